//! The public API answers every value of its argument types: seats and sides are plain numbers
//! (`Seat(u8)`, `Side(u8)`) a caller may get wrong, and a wrong one gets an answer or an error,
//! never a panic.

use canasta_engine::bot::RandomBot;
use canasta_engine::{
    DealEnd, Game, Preset, RuleError, RuleSpec, Seat, Setup, Side, Viewer, redact,
};

/// A game of official rules for four, played by random bots into its second deal (so that
/// hands, melds, red threes and penalties are not all empty), and every event of it.
fn played() -> (Game, Vec<canasta_engine::Event>) {
    let setup = Setup::seeded(RuleSpec::new(Preset::Official, 4), 11);
    let (mut game, mut events) = Game::start(&setup).expect("a valid setup");
    let mut bot = RandomBot::new(11);
    while game.history().is_empty() {
        let seat = game.to_act().expect("a deal in progress");
        let action = bot.pick(&game.legal().expect("a seat to act"));
        events.extend(game.apply(seat, &action).expect("a legal action"));
    }
    (game, events)
}

// A seat or side the table does not have holds nothing and has done nothing; those below the
// most seats a table has did so already, those past it panicked (an index out of bounds).
#[test]
fn a_seat_or_side_the_table_does_not_have_holds_nothing() {
    let (game, _) = played();
    for n in 0..=u8::MAX {
        let (seat, side) = (Seat(n), Side(n));
        if n < game.table().players() {
            continue;
        }
        assert!(game.hand(seat).is_empty(), "{seat:?}");
        assert!(game.red_threes(seat).is_empty(), "{seat:?}");
        assert!(
            !game.had_turn(seat) && !game.melded_before(seat),
            "{seat:?}"
        );
        if n >= game.table().sides() {
            assert!(game.melds(side).is_empty(), "{side:?}");
            assert!(!game.side_melded(side), "{side:?}");
            assert_eq!(
                (game.minimum(side), game.penalties(side)),
                (0, 0),
                "{side:?}"
            );
        }
    }
}

// A viewer's seat past the most seats a table has overflowed a shift (a panic in a debug
// build, a wrong answer in a release build): it sees its own hand only, and in a game none.
#[test]
fn any_viewer_seat_sees_its_own_hand_only() {
    let (game, events) = played();
    for n in 0..=u8::MAX {
        let viewer = Viewer::Seat(Seat(n));
        for m in 0..=u8::MAX {
            assert_eq!(viewer.sees_hand_of(Seat(m)), n == m, "{n} sees {m}");
        }
        assert!(Viewer::Referee.sees_hand_of(Seat(n)));
        assert!(!Viewer::Spectator.sees_hand_of(Seat(n)));
        let view = game.view(viewer);
        let own = view.seats.iter().filter(|s| s.hand.is_some()).count();
        assert_eq!(own, usize::from(n < game.table().players()), "{viewer:?}");
        // A seat the game does not have sees the events as a spectator does.
        if n >= game.table().players() {
            for e in &events {
                assert_eq!(
                    redact(e, viewer),
                    redact(e, Viewer::Spectator),
                    "{viewer:?}"
                );
            }
        }
    }
}

// A what-if end of the deal naming a seat the table does not have panicked looking up its
// side: it is refused as an action of that seat is.
#[test]
fn a_what_if_end_by_a_seat_not_at_the_table_is_refused() {
    let (game, _) = played();
    for n in 0..=u8::MAX {
        let seat = Seat(n);
        for end in [
            DealEnd::WentOut {
                seat,
                concealed: n % 2 == 0,
            },
            DealEnd::StockExhausted { seat },
            DealEnd::LastRedThree { seat },
        ] {
            match game.score_as_if(end) {
                Ok(report) => {
                    assert!(n < game.table().players(), "{end:?}");
                    assert_eq!(report.end, end);
                }
                Err(e) => {
                    assert!(n >= game.table().players(), "{end:?}: {e}");
                    assert_eq!(e, RuleError::NoSuchSeat { seat });
                }
            }
        }
    }
}

// A view whose seat has no legal action (the referee's never: a view from a server that is
// wrong can, and the command-line client plays bots on views from the wire) made every
// built-in bot panic. It gets an action the referee refuses instead.
#[test]
fn bots_given_no_legal_action_answer_without_panic() {
    use canasta_engine::bot;
    use canasta_engine::{Action, CardCounts, Phase};
    let (game, _) = played();
    let seat = game.to_act().expect("a deal in progress");
    let mut view = game.view(Viewer::Seat(seat));
    // In the play phase with nothing in hand, no canasta and the pile taken: no discard, no
    // going out, no meld, no question to the partner.
    view.phase = Phase::Play;
    view.seats[seat.index()].hand = Some(CardCounts::new());
    view.seats[seat.index()].hand_len = 0;
    for side in &mut view.sides {
        side.melds.clear();
    }
    view.turn.took_pile = true;
    view.turn.melded = true;
    let legal = view.legal().expect("the seat's choices");
    assert!(legal.to_vec().is_empty() && legal.first_go_out().is_none());
    for name in bot::BOT_NAMES {
        let mut b = bot::by_name(name, 1).expect("a built-in bot");
        let action = b.choose(&view, &legal);
        assert_eq!(action, bot::NOTHING_LEGAL, "{name}");
        assert!(legal.check(&action).is_err(), "{name}: {action}");
        let _: Action = b.choose_checked(&view, &legal).into_action();
    }
}

// A score report read from elsewhere (a server's) may hold any numbers: summing its items
// overflowed (a panic in a debug build) where it is only to be compared with its total.
#[test]
fn the_items_of_any_score_report_sum_without_overflow() {
    use canasta_engine::SideScore;
    let huge = SideScore {
        melded_cards: i32::MAX,
        canasta_bonus: i32::MAX,
        red_three_bonus: 5,
        total: 7,
        ..SideScore::default()
    };
    assert_eq!(huge.sum_of_items(), i32::MAX);
    assert_ne!(huge.sum_of_items(), huge.total);
    let low = SideScore {
        cards_in_hand: i32::MIN,
        penalties: -1,
        ..SideScore::default()
    };
    assert_eq!(low.sum_of_items(), i32::MIN);
    // Within range, the plain sum.
    let (game, _) = played();
    for report in game.history() {
        for side in &report.sides {
            assert_eq!(side.sum_of_items(), side.total);
        }
    }
}
