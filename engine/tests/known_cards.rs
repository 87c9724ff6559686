//! What every seat knows of the other hands ([`Game::known`], `SeatView::known`): the cards a
//! player picked up with the pile (R-PILE-5) and the wild cards kept from the cut (R-DEAL-6),
//! counted down as cards of their kind leave the hand. Checked against a recomputation from
//! the events alone, over random games of every layout, and for what each viewer may see.

mod common;

use canasta_engine::bot::{Bot, GreedyBot, RandomBot};
use canasta_engine::event::RedThreeSource;
use canasta_engine::{CardCounts, Event, Game, Seat, Setup, Viewer};
use common::layouts::{layouts, name};

/// The known cards of every seat, recomputed from the referee's events alone: a second
/// derivation of the rule, by another road than the game's.
#[derive(Default)]
struct Recount {
    known: Vec<CardCounts>,
}

impl Recount {
    fn event(&mut self, event: &Event) {
        fn known(this: &mut Recount, seat: Seat) -> &mut CardCounts {
            if this.known.len() <= seat.index() {
                this.known.resize(seat.index() + 1, CardCounts::new());
            }
            &mut this.known[seat.index()]
        }
        match event {
            Event::DealStarted(start) => {
                self.known = vec![CardCounts::new(); start.hand_sizes.len()];
                if let Some((cutter, kept)) = &start.cut {
                    *known(self, *cutter) = CardCounts::from_cards(kept.iter().copied());
                }
            }
            Event::PileTaken {
                seat,
                top,
                placed,
                picked_up,
            } => {
                // Every card laid with the take but the top came from the hand: any of them
                // may have been a known one.
                let mut from_hand = CardCounts::new();
                for p in placed {
                    from_hand.add_all(&p.cards);
                }
                assert!(from_hand.remove(*top), "the top card is laid with the take");
                let k = known(self, *seat);
                k.remove_all(&from_hand);
                k.add_all(&CardCounts::from_cards(picked_up.iter().copied()));
            }
            Event::RedThreeLaid {
                seat,
                card,
                source: RedThreeSource::Pile,
            } => {
                assert!(known(self, *seat).remove(*card), "picked up just before");
            }
            Event::Melded { seat, placed } => {
                for p in placed {
                    known(self, *seat).remove_all(&p.cards);
                }
            }
            Event::Discarded { seat, card, .. } => {
                let _ = known(self, *seat).remove(*card);
            }
            Event::WentOut {
                seat,
                placed,
                discard,
                ..
            } => {
                for p in placed {
                    known(self, *seat).remove_all(&p.cards);
                }
                if let Some(card) = discard {
                    let _ = known(self, *seat).remove(*card);
                }
            }
            _ => {}
        }
    }
}

/// Checks the game's known cards against the recount and against every view.
fn check(game: &Game, recount: &Recount, at: &str) {
    let spectator = game.view(Viewer::Spectator);
    for seat in game.table().seats() {
        let known = game.known(seat);
        let expected = recount.known.get(seat.index()).copied().unwrap_or_default();
        assert_eq!(*known, expected, "{at}: seat {}", seat.0);
        assert!(game.hand(seat).contains(known), "{at}: known cards held");
        assert_eq!(spectator.seats[seat.index()].known, *known, "{at}");
    }
    // A seat sees of every other hand exactly what a spectator sees: the known cards, the
    // count, nothing more.
    for viewer in game.table().seats() {
        let view = game.view(Viewer::Seat(viewer));
        for (mine, theirs) in view.seats.iter().zip(&spectator.seats) {
            if mine.seat == viewer {
                assert_eq!(mine.hand.as_ref(), Some(game.hand(viewer)), "{at}");
                let mut without_hand = mine.clone();
                without_hand.hand = None;
                assert_eq!(&without_hand, theirs, "{at}");
            } else {
                assert_eq!(mine, theirs, "{at}: seat {} of {}", mine.seat.0, viewer.0);
            }
        }
    }
}

// Random games of every layout, greedy players (who take the pile) against random ones (who
// do anything legal): the known cards equal the recount from the events after every action,
// sit within the hand, and are the same for every viewer.
#[test]
fn known_cards_equal_a_recount_from_the_events() {
    let mut taken = 0;
    let mut cut = 0;
    for spec in layouts() {
        for seed in 0..6u64 {
            let at_layout = format!("{} seed {seed}", name(&spec));
            let (mut game, events) = Game::start(&Setup::seeded(spec.clone(), seed)).unwrap();
            let mut recount = Recount::default();
            events.iter().for_each(|e| recount.event(e));
            let players = game.table().players() as usize;
            let mut bots: Vec<Box<dyn Bot>> = (0..players)
                .map(|s| -> Box<dyn Bot> {
                    if (s + seed as usize).is_multiple_of(3) {
                        Box::new(RandomBot::new(seed + s as u64))
                    } else {
                        Box::new(GreedyBot::new())
                    }
                })
                .collect();
            let mut step = 0;
            while let Some(seat) = game.to_act() {
                if game.history().len() >= 2 {
                    break;
                }
                let view = game.view(Viewer::Seat(seat));
                let action = bots[seat.index()].choose(&view, &game.legal().unwrap());
                let events = game.apply(seat, &action).unwrap();
                for e in &events {
                    recount.event(e);
                    match e {
                        Event::PileTaken { picked_up, .. } if !picked_up.is_empty() => taken += 1,
                        Event::DealStarted(s)
                            if s.cut.as_ref().is_some_and(|c| !c.1.is_empty()) =>
                        {
                            cut += 1
                        }
                        _ => {}
                    }
                }
                check(&game, &recount, &format!("{at_layout} step {step}"));
                step += 1;
            }
        }
    }
    assert!(
        taken > 100,
        "only {taken} piles were taken: the test saw too little"
    );
    assert!(
        cut > 0,
        "no cut kept a wild card: the Swiss rule went unchecked"
    );
}

// The rule by hand (R-PILE-5, two decks): the pile's cards become known to all; laying a
// kind counts its known cards down, even where the hand holds another card of that kind (which
// of the two was laid nobody can tell), and a discard does too.
#[test]
fn laying_or_discarding_a_kind_counts_its_known_cards_down() {
    use common::{act, arranged, cards, discard, meld, new_meld, take_new};
    let mut game = arranged(
        4,
        &[],
        &["KS", "KD", "5C", "5H 5S AH AS AD KH KS"],
        "7D",
        "4C 4D 4H",
    );
    for (seat, card) in [(0, "KS"), (1, "KD"), (2, "5C")] {
        act(&mut game, seat, canasta_engine::Action::DrawStock);
        act(&mut game, seat, discard(card));
        assert!(game.known(Seat(seat)).is_empty(), "nothing picked up");
    }
    act(&mut game, 3, take_new("5H 5S", &[new_meld("AH AS AD")]));
    let seat = Seat(3);
    assert_eq!(*game.known(seat), cards("7D KS KD"));
    for viewer in [Viewer::Spectator, Viewer::Seat(Seat(0)), Viewer::Seat(seat)] {
        assert_eq!(game.view(viewer).seats[3].known, cards("7D KS KD"));
    }
    act(&mut game, 3, meld(&[new_meld("KH KS KD")]));
    assert_eq!(
        game.hand(seat).count(common::card("KS")),
        1,
        "a king is left"
    );
    assert_eq!(*game.known(seat), cards("7D"), "but not known to be");
    act(&mut game, 3, discard("7D"));
    assert!(game.known(seat).is_empty());
}

// The public record of what each seat did (`SeatView::passed`, `SeatView::discarded`), over
// random games of every layout, recomputed by another road: the cards it discarded, from the
// events (each kind counted up to the copies the pack holds); the top card it passed at its
// last draw, from the view before the draw (its side melded, a pile of three cards or more, a
// natural top that does not block it), emptied by its next draw or pile take. Every viewer
// sees the same record (checked by `check` above, which compares whole seat views).
#[test]
fn passes_and_discards_are_recorded_as_played() {
    use canasta_engine::{Action, Card, Rules};
    let mut passes = 0;
    for spec in layouts() {
        let rules = Rules::new(&spec).unwrap();
        for seed in 0..4u64 {
            let mut game = Game::new(&Setup::seeded(spec.clone(), seed)).unwrap();
            let players = game.table().players() as usize;
            let mut bots: Vec<Box<dyn Bot>> = (0..players)
                .map(|s| -> Box<dyn Bot> {
                    if (s + seed as usize).is_multiple_of(3) {
                        Box::new(RandomBot::new(seed + s as u64))
                    } else {
                        Box::new(GreedyBot::new())
                    }
                })
                .collect();
            let mut passed = vec![CardCounts::new(); players];
            let mut discarded = vec![CardCounts::new(); players];
            let deal = |g: &Game| g.history().len();
            while let Some(seat) = game.to_act() {
                if deal(&game) >= 2 {
                    break;
                }
                let view = game.view(Viewer::Spectator);
                let action = bots[seat.index()]
                    .choose(&game.view(Viewer::Seat(seat)), &game.legal().unwrap());
                let before = deal(&game);
                let s = seat.index();
                match &action {
                    Action::DrawStock => {
                        passed[s] = CardCounts::new();
                        let melded = view.sides[view.seats[s].side.index()].melded;
                        if let Some(&top) = view.pile.last()
                            && melded
                            && view.pile.len() >= 3
                            && !view.pile_blocked
                            && top.is_natural()
                        {
                            passed[s].add(top);
                            passes += 1;
                        }
                    }
                    Action::TakePile { .. } => passed[s] = CardCounts::new(),
                    _ => {}
                }
                for e in game.apply(seat, &action).unwrap() {
                    let card = match e {
                        Event::Discarded { card, .. } => card,
                        Event::WentOut {
                            discard: Some(card),
                            ..
                        } => card,
                        _ => continue,
                    };
                    let copies = if card == Card::JOKER {
                        rules.jokers
                    } else {
                        rules.decks
                    };
                    if discarded[s].count(card) < copies {
                        discarded[s].add(card);
                    }
                }
                if deal(&game) != before {
                    if deal(&game) >= 2 {
                        break;
                    }
                    passed = vec![CardCounts::new(); players];
                    discarded = vec![CardCounts::new(); players];
                }
                for t in game.table().seats() {
                    let i = t.index();
                    assert_eq!(*game.passed(t), passed[i], "{} seed {seed}", name(&spec));
                    assert_eq!(
                        *game.discarded(t),
                        discarded[i],
                        "{} seed {seed}",
                        name(&spec)
                    );
                    let v = &game.view(Viewer::Spectator).seats[i];
                    assert_eq!((&v.passed, &v.discarded), (&passed[i], &discarded[i]));
                }
            }
        }
    }
    assert!(
        passes > 100,
        "only {passes} passes: the test saw too little"
    );
}
