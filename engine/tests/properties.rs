//! Property tests over thousands of random games of every preset, player count, seating and the
//! Rasche options (the layouts of `common::layouts`, derived from the rules): no panic, cards
//! conserved, deals end, scores add up, replay reproduces the state, enumerated actions are
//! legal, refused actions change nothing, no seat or spectator sees a hidden card, and "can I
//! go out now?" is answered exactly.

mod common;

use canasta_engine::bot::{Bot, GreedyBot, RandomBot};
use canasta_engine::legal::TakeOption;
use canasta_engine::meld::card_fits;
use canasta_engine::rng::Xoshiro256;
use canasta_engine::rules::{FivePlayers, RASCHE_OPTIONS, SixPlayers};
use canasta_engine::{
    Action, Card, CardCounts, Event, Game, LegalChoices, MeldSpec, MeldTarget, Phase, Preset, Rank,
    RuleSpec, Rules, Seat, Setup, Summary, TopMeld, View, ViewBuffer, Viewer, redact,
};
use common::layouts::{PLAYER_COUNTS, RASCHE_PLAYERS, layouts, name, rasche_on, seatings};
use proptest::prelude::*;

/// A random action, legal or not, built from the cards of the pack: the kind of input a buggy
/// or hostile client sends.
fn junk_action(rng: &mut Xoshiro256, hand: &CardCounts) -> Action {
    let any_card = |rng: &mut Xoshiro256| Card::from_index(rng.below(53) as u8).unwrap();
    let some_cards = |rng: &mut Xoshiro256| {
        let mut c = CardCounts::new();
        let held: Vec<Card> = hand.iter().collect();
        for _ in 0..rng.below(5) {
            if !held.is_empty() && rng.below(4) > 0 {
                c.add(held[rng.below(held.len() as u64) as usize]);
            } else {
                c.add(any_card(rng));
            }
        }
        c
    };
    let target = |rng: &mut Xoshiro256| {
        if rng.below(2) == 0 {
            MeldTarget::New
        } else {
            MeldTarget::Existing(rng.below(4) as u8)
        }
    };
    let batch = |rng: &mut Xoshiro256| {
        (0..rng.below(3))
            .map(|_| MeldSpec {
                target: target(rng),
                cards: some_cards(rng),
            })
            .collect()
    };
    match rng.below(8) {
        0 => Action::DrawStock,
        1 => Action::TakePile {
            top: TopMeld {
                target: target(rng),
                cards: some_cards(rng),
            },
            melds: batch(rng),
        },
        2 => Action::Meld { melds: batch(rng) },
        3 => Action::Discard {
            card: any_card(rng),
        },
        4 => Action::GoOut {
            melds: batch(rng),
            discard: (rng.below(2) == 0).then(|| any_card(rng)),
        },
        5 => Action::AskPartner,
        6 => Action::AnswerPartner {
            yes: rng.below(2) == 0,
        },
        _ => Action::DeclinePile,
    }
}

// ---------------------------------------------------------------------------------------------
// Redaction

/// Every card an event shows, read from its `Debug` form. Generic over the kinds of event: a
/// new kind that carries cards is checked without being named here.
fn shown_cards(event: &Event) -> Vec<Card> {
    static NAMES: std::sync::OnceLock<std::collections::HashMap<String, Card>> =
        std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        (0..53u8)
            .filter_map(Card::from_index)
            .map(|c| (c.to_string(), c))
            .collect()
    });
    format!("{event:?}")
        .split(|c: char| c.is_whitespace() || "[](){},:\"".contains(c))
        .filter_map(|t| names.get(t).copied())
        .collect()
}

/// The cards a view shows: the viewer's own hand, every meld, red three and pile card.
fn visible(view: &View) -> CardCounts {
    let mut c = CardCounts::new();
    for s in &view.seats {
        if let Some(h) = &s.hand {
            c.add_all(h);
        }
        c.add_all(&s.red_threes);
    }
    for side in &view.sides {
        for m in &side.melds {
            c.add_all(&m.cards);
        }
    }
    for &card in &view.pile {
        c.add(card);
    }
    c
}

/// The viewers: every seat, then the spectator.
fn viewers(game: &Game) -> Vec<Viewer> {
    (0..game.table().players())
        .map(|s| Viewer::Seat(Seat(s)))
        .chain([Viewer::Spectator])
        .collect()
}

/// A viewer's view and the cards it shows.
#[derive(Clone)]
struct Seen {
    view: View,
    cards: CardCounts,
}

/// The views of every viewer of [`viewers`]; checks that none shows the stock or a hand that is
/// not the viewer's own.
fn checked_views(game: &Game) -> Vec<Seen> {
    viewers(game)
        .into_iter()
        .map(|viewer| {
            let view = game.view(viewer);
            assert!(view.stock.is_none(), "{viewer:?} sees the stock");
            for sv in &view.seats {
                assert_eq!(sv.hand.is_some(), viewer == Viewer::Seat(sv.seat));
                assert_eq!(sv.hand_len as usize, game.hand(sv.seat).len());
            }
            let cards = visible(&view);
            Seen { view, cards }
        })
        .collect()
}

/// What the referee knew before an action, for the cards a deal's end reveals.
struct Before {
    /// The views of [`viewers`].
    views: Vec<Seen>,
    /// Every hand.
    hands: Vec<CardCounts>,
    /// The stock, top card last.
    stock: Vec<Card>,
}

impl Before {
    fn of(game: &Game, views: Vec<Seen>) -> Before {
        Before {
            views,
            hands: (0..game.table().players())
                .map(|s| *game.hand(Seat(s)))
                .collect(),
            stock: game.stock().to_vec(),
        }
    }
}

/// Checks that every event, as redacted for each viewer, shows only cards that viewer may see:
/// cards of its view before or after the action; for the events of a deal that ended in the
/// action, any card of the hands (the end of a deal shows them all) and the cards drawn in
/// the action (into a hand or laid as red threes); for the events of a deal that began, the
/// view after it and the wild cards of the cut (shown to all, R-DEAL-6). The hands of a
/// `DealStarted` and the cards of a `Drew` are present exactly for their own seat.
fn check_events(before: &Before, after: &[Seen], events: &[Event]) -> Result<(), String> {
    let ended = events.iter().position(|e| matches!(e, Event::DealEnded(_)));
    // A deal begins at the start of a game, or after one ended.
    let new_deal = events
        .iter()
        .position(|e| matches!(e, Event::DealStarted(_)));
    // Cards drawn from the stock in this action: its top cards, as many as the events count.
    let drawn: usize = events[..new_deal.unwrap_or(events.len())]
        .iter()
        .map(|e| match e {
            Event::Drew { count, .. } => *count as usize,
            Event::RedThreeLaid {
                source: canasta_engine::event::RedThreeSource::Drawn,
                ..
            } => 1,
            _ => 0,
        })
        .sum();
    let mut revealed = CardCounts::new();
    if ended.is_some() {
        for h in &before.hands {
            revealed.add_all(h);
        }
        let k = drawn.min(before.stock.len());
        for &c in &before.stock[before.stock.len() - k..] {
            revealed.add(c);
        }
    }
    let mut cut = CardCounts::new();
    if let Some(Event::DealStarted(start)) = new_deal.map(|i| &events[i])
        && let Some((_, cards)) = &start.cut
    {
        for &c in cards {
            cut.add(c);
        }
    }
    // The cards of the referee's events, read once: most events are the same for everyone.
    let referee: Vec<Vec<Card>> = events.iter().map(shown_cards).collect();
    for (v, (seen_before, seen_after)) in before.views.iter().zip(after).enumerate() {
        let viewer = seen_after.view.viewer;
        let mut old = seen_before.cards;
        old.add_all(&revealed);
        if new_deal.is_none() {
            old.add_all(&seen_after.cards);
        }
        let mut new = seen_after.cards;
        new.add_all(&cut);
        for (i, e) in events.iter().enumerate() {
            let r = redact(e, viewer);
            match &r {
                Event::Drew { seat, cards, count }
                    if cards.is_some() != (viewer == Viewer::Seat(*seat)) || *count == 0 =>
                {
                    return Err(format!("{viewer:?} gets {r:?}"));
                }
                Event::DealStarted(start) => {
                    for (s, h) in start.hands.iter().enumerate() {
                        if h.is_some() != (viewer == Viewer::Seat(Seat(s as u8))) {
                            return Err(format!("{viewer:?} gets the hand of seat {s}"));
                        }
                    }
                }
                _ => {}
            }
            let allowed = if new_deal.is_some_and(|n| i >= n) {
                &new
            } else {
                &old
            };
            let shown = if r == *e {
                referee[i].clone()
            } else {
                shown_cards(&r)
            };
            if let Some(c) = shown.into_iter().find(|&c| allowed.count(c) == 0) {
                return Err(format!(
                    "{viewer:?} (view {v}) is shown {c}, a card it may not see, in {r:?}"
                ));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Random games with every check

/// Plays up to `max_deals` deals of random play and checks every invariant on the way: each
/// step first sends a random (mostly illegal) action for a random seat, which must change
/// nothing if refused and is played on if accepted.
fn random_game(spec: RuleSpec, seed: u64, max_deals: usize) {
    let setup = Setup::seeded(spec, seed);
    let (mut game, start_events) = Game::start(&setup).expect("every layout is valid");
    let mut views = checked_views(&game);
    let start = Before::of(&game, views.clone());
    check_events(&start, &views, &start_events).unwrap_or_else(|e| panic!("{e}"));
    let pack = game.all_cards();
    let mut bot = RandomBot::new(seed ^ 0x5eed);
    let mut junk = Xoshiro256::seed_from_u64(seed);
    let mut record: Vec<(Seat, Action)> = Vec::new();
    let mut actions = Vec::new();
    let mut steps_in_deal = 0;
    let mut deals_seen = 0;
    while let Some(seat) = game.to_act() {
        if game.history().len() >= max_deals {
            break;
        }
        // Refused input never changes the state; accepted input is played on.
        let players = game.table().players() as u64;
        let liar = Seat(junk.below(players) as u8);
        let bad = junk_action(&mut junk, game.hand(liar));
        let hash = game.state_hash();
        let checked = game.check(liar, &bad);
        let before = Before::of(&game, std::mem::take(&mut views));
        let (who, before, events, action) = match game.apply(liar, &bad) {
            Ok(events) => {
                assert_eq!(checked, Ok(()), "{bad} applied, but check refused it");
                (liar, before, events, bad)
            }
            Err(e) => {
                assert_eq!(game.state_hash(), hash, "refused {bad} changed the state");
                assert_eq!(checked, Err(e), "check and apply disagree on {bad}");
                views = before.views;
                // Legal choices seen from the seat's view are the referee's; all are legal.
                let view = &views[seat.index()].view;
                let legal = view.legal().expect("a seat sees its own choices");
                actions.clear();
                legal.actions(&mut actions);
                assert!(!actions.is_empty(), "no legal action for {seat:?}");
                assert_eq!(actions, game.legal().unwrap().to_vec());
                for a in &actions {
                    if let Err(e) = game.check(seat, a) {
                        panic!("enumerated action {a} is refused: {e}");
                    }
                }
                let summary = legal.summary();
                assert_eq!(summary.can_draw, actions.contains(&Action::DrawStock));
                // The summary, found without listing, says what the full list says.
                assert_eq!(
                    summary,
                    summary_of_list(&legal, &actions, summary.can_go_out)
                );
                // The bounded listing is the full list's beginning, and says whether it is all.
                for max in [1, 3, actions.len(), usize::MAX] {
                    let mut some = Vec::new();
                    let complete = legal.actions_up_to(&mut some, max);
                    assert_eq!(some, actions[..max.min(actions.len())]);
                    assert_eq!(complete, max >= actions.len(), "max {max}");
                }
                // Exact, and at least what the list shows.
                let first = legal.first_go_out();
                assert_eq!(summary.can_go_out, first.is_some());
                if actions.iter().any(|a| matches!(a, Action::GoOut { .. })) {
                    assert!(summary.can_go_out);
                }
                if let Some(out) = &first {
                    assert_eq!(game.check(seat, out), Ok(()), "offered {out}");
                }
                let action = bot.pick(&legal);
                let before = Before::of(&game, std::mem::take(&mut views));
                let events = game.apply(seat, &action).expect("a legal action applies");
                (seat, before, events, action)
            }
        };
        record.push((who, action));
        views = checked_views(&game);
        check_events(&before, &views, &events).unwrap_or_else(|e| panic!("{e}"));
        steps_in_deal += 1;
        assert!(steps_in_deal < 20_000, "a deal did not end");
        if game.history().len() > deals_seen {
            deals_seen = game.history().len();
            steps_in_deal = 0;
        }
        assert_eq!(game.all_cards(), pack, "cards were lost or duplicated");
        for e in &events {
            if let Event::DealEnded(end) = e {
                for s in &end.score.sides {
                    assert_eq!(s.total, s.sum_of_items());
                }
                assert_eq!(end.score.sides.len(), game.table().sides() as usize);
            }
        }
    }
    for (i, report) in game.history().iter().enumerate() {
        for s in &report.sides {
            let before = if i == 0 {
                0
            } else {
                game.history()[i - 1].sides[s.side as usize].cumulative
            };
            assert_eq!(s.cumulative, before + s.total);
        }
    }
    let replayed = Game::replay(&setup, &record).expect("a record replays");
    assert_eq!(replayed.state_hash(), game.state_hash());
}

/// Seeds per layout in the normal suite: thousands of games in all (`CANASTA_SEEDS` for a
/// longer run).
/// The summary as the full canonical list shows it: what [`LegalChoices::summary`] must say
/// for every hand whose search fits its bound (going out is asked apart: the list shows going
/// outs of small hands only).
fn summary_of_list(legal: &LegalChoices<'_>, actions: &[Action], can_go_out: bool) -> Summary {
    let view_rank = |top: &canasta_engine::TopMeld| top.cards;
    let mut s = Summary::default();
    s.seat = Some(legal.seat());
    s.can_go_out = can_go_out;
    s.complete = true;
    let summary = legal.summary();
    s.minimum_remaining = summary.minimum_remaining;
    for a in actions {
        match a {
            Action::DrawStock => s.can_draw = true,
            Action::DeclinePile => s.can_decline_pile = true,
            Action::Discard { .. } => s.can_discard = true,
            Action::AskPartner => s.can_ask_partner = true,
            Action::AnswerPartner { .. } => s.must_answer = true,
            Action::GoOut { .. } => {}
            Action::TakePile { top, melds } => {
                let cards = view_rank(top);
                // The top card's rank is the one rank of the hand's cards besides wild cards.
                let naturals = cards.len() as u8 - cards.wilds();
                let same = |o: &TakeOption| {
                    o.target == top.target
                        && o.naturals.min(2) == naturals.min(2)
                        && (o.wilds > 0) == (cards.wilds() > 0)
                };
                match s.pile_takes.iter_mut().find(|o| same(o)) {
                    Some(o) => o.with_melds &= !melds.is_empty(),
                    None => s.pile_takes.push(TakeOption {
                        target: top.target,
                        naturals,
                        wilds: cards.wilds(),
                        with_melds: !melds.is_empty(),
                    }),
                }
            }
            Action::Meld { melds } => {
                for m in melds {
                    match m.target {
                        MeldTarget::Existing(id) => {
                            if !s.add_to_melds.contains(&id) {
                                s.add_to_melds.push(id)
                            }
                        }
                        MeldTarget::New => {
                            let naturals: Vec<Rank> = m
                                .cards
                                .iter()
                                .filter(|c| c.is_natural())
                                .map(|c| c.rank())
                                .collect();
                            let suits: Vec<_> = m
                                .cards
                                .iter()
                                .filter(|c| c.is_natural())
                                .filter_map(|c| c.suit())
                                .collect();
                            if naturals.is_empty() {
                                s.can_meld_wilds = true;
                            } else if naturals.iter().all(|&r| r == naturals[0]) {
                                if !s.meld_ranks.contains(&naturals[0]) {
                                    s.meld_ranks.push(naturals[0]);
                                }
                            } else if let Some(&suit) = suits.first()
                                && !s.sequence_suits.contains(&suit)
                            {
                                s.sequence_suits.push(suit);
                            }
                        }
                    }
                }
            }
        }
    }
    s.must_take_pile = legal.phase() == Phase::Draw
        && !s.can_draw
        && !s.pile_takes.is_empty()
        && !s.can_decline_pile;
    s.meld_ranks.sort();
    s.sequence_suits.sort();
    s.add_to_melds.sort();
    s
}

fn seeds_per_layout() -> u64 {
    std::env::var("CANASTA_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150)
}

/// Thousands of random deals, every layout, every check: replay, redaction of every event and
/// view, refused input changing nothing, cards conserved, scores adding up.
#[test]
fn thousands_of_games_keep_every_invariant() {
    let all = layouts();
    let seeds = seeds_per_layout();
    // Spread over the threads the test harness leaves idle: two layouts at a time.
    std::thread::scope(|scope| {
        for chunk in all.chunks(all.len().div_ceil(2)) {
            scope.spawn(move || {
                for spec in chunk {
                    for seed in 0..seeds {
                        let name = name(spec);
                        let r = std::panic::catch_unwind(|| random_game(spec.clone(), seed, 1));
                        if let Err(e) = r {
                            eprintln!("layout {name}, seed {seed}");
                            std::panic::resume_unwind(e);
                        }
                    }
                }
            });
        }
    });
}

/// A view refreshed in place ([`Game::view_into`], which skips copying what it knows did not
/// change) equals a fresh one: refreshed from the same game move after move, from another game
/// (of this layout and of the layout before, with other numbers of seats and sides), and from a
/// clone that went its own way, for every viewer. Greedy bots (melds change, deals end) against
/// random ones, over every layout.
#[test]
fn views_refreshed_in_place_equal_fresh_ones() {
    let mut reused: Vec<ViewBuffer> = Vec::new();
    let mut previous: Option<Game> = None;
    for (i, spec) in layouts().into_iter().enumerate() {
        let name = name(&spec);
        let mut a = Game::new(&Setup::seeded(spec.clone(), i as u64)).expect("a valid layout");
        let mut b = Game::new(&Setup::seeded(spec.clone(), i as u64 + 1)).expect("a valid layout");
        let players = a.table().players();
        let mut greedy: Vec<GreedyBot> = (0..players).map(|_| GreedyBot::new()).collect();
        let mut random = RandomBot::new(i as u64);
        // Views left by the layout before, as many as this one needs.
        while reused.len() < viewers(&a).len() {
            reused.push(a.view_buffer(Viewer::Spectator));
        }
        for step in 0..3_000 {
            // Half way, `b` becomes a clone of `a`, then both play on differently.
            if step == 1_500 {
                b = a.clone();
            }
            let games = [Some(&a), Some(&b), previous.as_ref()];
            for game in games.into_iter().flatten() {
                for (buffer, viewer) in reused.iter_mut().zip(viewers(game)) {
                    let view = game.view_into(viewer, buffer);
                    assert_eq!(*view, game.view(viewer), "{name}, step {step}, {viewer:?}");
                }
            }
            let (Some(sa), Some(sb)) = (a.to_act(), b.to_act()) else {
                break;
            };
            let view = a.view(Viewer::Seat(sa));
            let action = greedy[sa.index()].choose(&view, &view.legal().expect("own choices"));
            a.apply(sa, &action).expect("greedy plays legal actions");
            let action = random.pick(&b.legal().expect("a seat to act"));
            b.apply(sb, &action).expect("random plays legal actions");
        }
        previous = Some(a);
    }
}

/// A bot's checked [`Choice`] skips the referee's second check only in the state and for the
/// seat it was checked in: over every layout, greedy bots play by `choose_checked` on the
/// referee's choices, and at each move
/// - applying the choice gives the same events and state as applying its action with the full
///   check (on a clone);
/// - the same choice applied again (the game has moved on) or for another seat is judged
///   exactly as `Game::check` judges it, and a refusal changes nothing;
/// - on a clone in the very same state it applies as on the game.
#[test]
fn checked_choices_skip_the_check_only_in_their_state() {
    let mut events = Vec::new();
    let mut checked_events = Vec::new();
    for (i, spec) in layouts().into_iter().enumerate() {
        let name = name(&spec);
        let mut game = Game::new(&Setup::seeded(spec.clone(), i as u64)).expect("a valid layout");
        let players = game.table().players();
        let mut bots: Vec<GreedyBot> = (0..players).map(|_| GreedyBot::new()).collect();
        let mut buffer = game.view_buffer(Viewer::Spectator);
        for step in 0..1_500 {
            let Some(seat) = game.to_act() else { break };
            let view = game.view_into(Viewer::Seat(seat), &mut buffer);
            let legal = game.legal().expect("a seat to act");
            let choice = bots[seat.index()].choose_checked(view, &legal);
            let at = format!("{name}, step {step}, {seat:?}: {}", choice.action());
            // The same move with the full check, on a clone in the same state.
            let mut full = game.clone();
            events.clear();
            full.apply_into(seat, choice.action(), &mut events)
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            let clone = game.clone();
            checked_events.clear();
            game.apply_choice(seat, &choice, &mut checked_events)
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(checked_events, events, "{at}");
            assert_eq!(game.state_hash(), full.state_hash(), "{at}");
            // A clone left in the state the choice was checked in takes it alike.
            let mut twin = clone.clone();
            checked_events.clear();
            twin.apply_choice(seat, &choice, &mut checked_events)
                .unwrap_or_else(|e| panic!("{at}: {e}"));
            assert_eq!(twin.state_hash(), full.state_hash(), "{at}");
            // The same choice again, now stale, and for every other seat in its own state:
            // judged by the full check.
            let stale = [(game.clone(), seat)].into_iter().chain(
                (0..players)
                    .map(Seat)
                    .filter(|&s| s != seat)
                    .map(|s| (clone.clone(), s)),
            );
            for (mut g, s) in stale {
                let before = g.state_hash();
                let expected = g.check(s, choice.action());
                checked_events.clear();
                let got = g.apply_choice(s, &choice, &mut checked_events);
                assert_eq!(got, expected, "{at}, applied again as {s:?}");
                if got.is_err() {
                    assert_eq!(g.state_hash(), before, "{at}: a refusal changed the game");
                }
            }
        }
    }
}

/// A choice checked on a view's choices proves nothing: a view belongs to its holder, who may
/// edit it. Here the holder gives the seat a card it does not hold; the discard of that card
/// passes the edited view's check, and the referee still refuses it.
#[test]
fn choices_checked_on_a_view_are_checked_again() {
    let spec = RuleSpec::new(Preset::Official, 4);
    let mut game = Game::new(&Setup::seeded(spec, 7)).expect("a valid setup");
    let seat = game.to_act().expect("a seat to act");
    game.apply(seat, &Action::DrawStock)
        .expect("drawing is legal");
    let mut view = game.view(Viewer::Seat(seat));
    let hand = game.hand(seat);
    let missing = (0..53)
        .filter_map(Card::from_index)
        .find(|&c| hand.count(c) == 0 && !c.is_wild() && c.rank() != canasta_engine::Rank::Three)
        .expect("a card the seat does not hold");
    view.seats[seat.index()]
        .hand
        .as_mut()
        .expect("the seat sees its hand")
        .add(missing);
    let legal = view.legal().expect("the seat's choices");
    let choice = legal
        .checked(Action::Discard { card: missing })
        .expect("the edited view holds the card");
    let before = game.state_hash();
    let mut events = Vec::new();
    assert_eq!(
        game.apply_choice(seat, &choice, &mut events),
        game.check(seat, choice.action()),
    );
    assert!(
        game.check(seat, choice.action()).is_err(),
        "{missing} is not held"
    );
    assert_eq!(game.state_hash(), before);
    assert!(events.is_empty());
}

/// A game's states are numbered within the game and its clones, not across games, so two games
/// made apart hold the same numbers: a choice checked in one of them proves nothing to another
/// in a state of the same number, nor to a game made after its own game was dropped (its memory
/// free for the new one). Each game here has drawn, seat 0 to play, in the same numbered state;
/// the first one's seat discards a card it holds, which the others' seats often do not.
#[test]
fn checked_choices_prove_nothing_to_another_game() {
    let drawn = |seed: u64| {
        let spec = RuleSpec::new(Preset::Official, 4);
        let mut game = Game::new(&Setup {
            first_dealer: Some(Seat(3)),
            ..Setup::seeded(spec, seed)
        })
        .expect("a valid setup");
        game.apply(Seat(0), &Action::DrawStock)
            .expect("seat 0 draws first");
        game
    };
    // Checked on the referee's own choices, then the game is dropped.
    let choice = {
        let first = drawn(0);
        let card = first
            .hand(Seat(0))
            .iter()
            .find(|c| !c.is_wild() && !c.is_red_three() && !c.is_black_three())
            .expect("a card to discard");
        let legal = first.legal().expect("seat 0 plays");
        legal
            .checked(Action::Discard { card })
            .expect("a held card may be discarded")
    };
    let mut refused = 0;
    let mut events = Vec::new();
    for seed in 1..60 {
        let mut other = drawn(seed);
        let before = other.state_hash();
        let expected = other.check(Seat(0), choice.action());
        events.clear();
        let got = other.apply_choice(Seat(0), &choice, &mut events);
        assert_eq!(got, expected, "seed {seed}: {}", choice.action());
        if got.is_err() {
            refused += 1;
            assert_eq!(
                other.state_hash(),
                before,
                "seed {seed}: a refusal changed the game"
            );
        }
    }
    assert!(
        refused > 10,
        "only {refused} games lacked the card: the test proves little"
    );
}

/// Random games per run of the proptest below: 64, or `PROPTEST_CASES`.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// Random seeds beyond the fixed ones, two deals each.
    #[test]
    fn random_games_keep_every_invariant(layout in any::<prop::sample::Index>(), seed in any::<u64>()) {
        let all = layouts();
        random_game(all[layout.index(all.len())].clone(), seed, 2);
    }
}

// ---------------------------------------------------------------------------------------------
// The layouts

/// The seating a rule set has, for comparing layouts.
fn seating_of(r: &Rules) -> (Preset, u8, Option<FivePlayers>, Option<SixPlayers>) {
    (
        r.preset,
        r.players,
        (r.players == 5).then_some(r.five_players),
        (r.players == 6).then_some(r.six_players),
    )
}

/// The layouts hold every preset with every player count and every seating the rules accept,
/// derived from the rules (so a preset that comes to accept another count or seating must be
/// played), and each preset with every Rasche letter it accepts.
#[test]
fn layouts_cover_every_accepted_rule_set() {
    let played: Vec<Rules> = layouts()
        .iter()
        .map(|s| Rules::new(s).unwrap_or_else(|e| panic!("{}: {e}", name(s))))
        .collect();
    let mut expected = 0;
    for preset in Preset::ALL {
        for players in PLAYER_COUNTS {
            let mut variants = vec![RuleSpec::new(preset, players)];
            for five in FivePlayers::ALL {
                let mut spec = RuleSpec::new(preset, players);
                spec.options.five_players = Some(five);
                variants.push(spec);
            }
            for six in SixPlayers::ALL {
                let mut spec = RuleSpec::new(preset, players);
                spec.options.six_players = Some(six);
                variants.push(spec);
            }
            for spec in variants {
                let Ok(rules) = Rules::new(&spec) else {
                    continue;
                };
                expected += 1;
                assert!(
                    played
                        .iter()
                        .any(|p| seating_of(p) == seating_of(&rules) && p.decks == rules.decks),
                    "{} is not played",
                    name(&spec)
                );
            }
        }
        // Every Rasche letter the preset accepts on its own is on in one of its layouts:
        // switching it on there changes nothing.
        for (letter, _) in RASCHE_OPTIONS {
            let mut alone = RuleSpec::new(preset, RASCHE_PLAYERS);
            alone.options.set(letter, rasche_on(letter)).unwrap();
            if Rules::new(&alone).is_err() {
                continue;
            }
            let on = layouts().into_iter().any(|mut spec| {
                let rules = Rules::new(&spec).unwrap();
                spec.options.set(letter, rasche_on(letter)).unwrap();
                spec.preset == preset && Rules::new(&spec).as_ref() == Ok(&rules)
            });
            assert!(on, "{preset} is not played with {letter}");
        }
    }
    // At least the seatings docs/rules.md documents: official and wiener seven each (2 to 6
    // players, two seatings of five and of six), samba three, swiss five (with five alone).
    assert!(expected >= 7 + 7 + 3 + 5, "{expected}");
    // Swiss with five players each alone (seed 004 plays 4-5 players with three decks).
    let mut swiss_alone = RuleSpec::new(Preset::Swiss, 5);
    swiss_alone
        .options
        .set("five_players", "each_alone")
        .unwrap();
    let swiss_alone = Rules::new(&swiss_alone).expect("Swiss accepts five players each alone");
    assert!(played.contains(&swiss_alone));
    assert!(seatings(5).len() == FivePlayers::ALL.len());
}

// ---------------------------------------------------------------------------------------------
// "Can I go out now?"

/// True if some going out of the seat to act is legal, by brute force: every discard and every
/// assignment of the other cards to the side's melds or to new melds, each judged by `check`.
/// Only for small hands.
fn some_go_out_by_brute_force(game: &Game, seat: Seat) -> bool {
    let hand = *game.hand(seat);
    let side = game.table().side_of(seat);
    let melds = game.melds(side).to_vec();
    let sequences = game.rules().sequences;
    let mut discards: Vec<Option<Card>> = vec![None];
    discards.extend(hand.iter_kinds().map(|(c, _)| Some(c)));
    for discard in discards {
        let mut rest = hand;
        if let Some(d) = discard {
            assert!(rest.remove(d), "a discard of the hand");
        }
        let cards: Vec<Card> = rest.iter().collect();
        let mut targets = Vec::new();
        if assign(game, seat, &melds, sequences, &cards, discard, &mut targets) {
            return true;
        }
    }
    false
}

/// Assigns `cards[targets.len()..]` to melds (existing by number, new ones numbered after
/// them in order of first use; equal cards take non-decreasing targets) and checks each
/// complete assignment; true once one is legal.
fn assign(
    game: &Game,
    seat: Seat,
    melds: &[canasta_engine::Meld],
    sequences: bool,
    cards: &[Card],
    discard: Option<Card>,
    targets: &mut Vec<usize>,
) -> bool {
    let k = melds.len();
    let i = targets.len();
    let Some(&card) = cards.get(i) else {
        let mut specs: Vec<MeldSpec> = Vec::new();
        let mut new_ids: Vec<usize> = Vec::new();
        for (&c, &t) in cards.iter().zip(targets.iter()) {
            let slot = if t < k {
                specs
                    .iter()
                    .position(|s| s.target == MeldTarget::Existing(t as u8))
            } else {
                new_ids.iter().position(|&n| n == t).map(|p| {
                    specs
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.target == MeldTarget::New)
                        .nth(p)
                        .unwrap()
                        .0
                })
            };
            match slot {
                Some(s) => specs[s].cards.add(c),
                None => {
                    let mut one = CardCounts::new();
                    one.add(c);
                    if t >= k {
                        new_ids.push(t);
                    }
                    specs.push(MeldSpec {
                        target: if t < k {
                            MeldTarget::Existing(t as u8)
                        } else {
                            MeldTarget::New
                        },
                        cards: one,
                    });
                }
            }
        }
        let action = Action::GoOut {
            melds: specs.into_iter().collect(),
            discard,
        };
        return game.check(seat, &action).is_ok();
    };
    let new_used = targets
        .iter()
        .filter(|&&t| t >= k)
        .max()
        .map_or(0, |&t| t + 1 - k);
    let floor = match targets.last() {
        Some(&prev) if i > 0 && cards[i - 1] == card => prev,
        _ => 0,
    };
    for t in floor..k + new_used + 1 {
        if t < k && !card_fits(melds[t].kind, card) {
            continue;
        }
        // A new meld of one rank, of one suit (sequences), of wild cards or of black threes:
        // cards that fit no such meld together are not tried.
        if t >= k {
            let with: Vec<Card> = cards[..i]
                .iter()
                .zip(targets.iter())
                .filter(|&(_, &u)| u == t)
                .map(|(&c, _)| c)
                .collect();
            let fits = with.iter().all(|&c| {
                (c.is_black_three() == card.is_black_three())
                    && (c.is_wild()
                        || card.is_wild()
                        || c.rank() == card.rank()
                        || (sequences && c.suit() == card.suit()))
            });
            if !fits {
                continue;
            }
        }
        targets.push(t);
        let found = assign(game, seat, melds, sequences, cards, discard, targets);
        targets.pop();
        if found {
            return true;
        }
    }
    false
}

/// Most cards in hand for the brute force.
const BRUTE_FORCE_CARDS: usize = 7;

/// Seeds per layout for the brute force: 12, or `CANASTA_GO_OUT_SEEDS` for a longer run.
fn seeds_for_brute_force() -> u64 {
    std::env::var("CANASTA_GO_OUT_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12)
}

/// `first_go_out` (and the prompt's `can_go_out`) agree with a brute force over every split of
/// the hand, in positions of greedy and random play under every layout; and the going outs
/// they offer for bigger hands are legal. Most positions with a going out of a hand of more
/// than two cards are ones the canonical list does not show.
#[test]
fn can_go_out_is_exact() {
    let (mut compared, mut possible, mut unlisted) = (0, 0, 0);
    for spec in layouts() {
        for seed in 0..seeds_for_brute_force() {
            let setup = Setup::seeded(spec.clone(), seed);
            let mut game = Game::new(&setup).unwrap();
            let mut greedy = GreedyBot::new();
            let mut random = RandomBot::new(seed);
            while game.history().len() < 2 {
                let Some(seat) = game.to_act() else { break };
                let legal = game.legal().unwrap();
                if game.phase() == Phase::Play {
                    let first = legal.first_go_out();
                    let summary = legal.summary();
                    assert_eq!(summary.can_go_out, first.is_some());
                    if let Some(out) = &first {
                        assert_eq!(legal.check(out), Ok(()), "{}: {out}", name(&spec));
                    }
                    if game.hand(seat).len() <= BRUTE_FORCE_CARDS {
                        let brute = some_go_out_by_brute_force(&game, seat);
                        assert_eq!(
                            first.is_some(),
                            brute,
                            "{} seed {seed}: hand {}, melds {:?}",
                            name(&spec),
                            game.hand(seat),
                            game.melds(game.table().side_of(seat))
                        );
                        compared += 1;
                        if brute {
                            possible += 1;
                            let listed = legal
                                .to_vec()
                                .iter()
                                .any(|a| matches!(a, Action::GoOut { .. }));
                            unlisted += !listed as u32;
                        }
                    }
                }
                // Greedy play builds canastas; some random play reaches other positions.
                let action = if seed % 3 == 0 {
                    random.pick(&legal)
                } else {
                    let view = game.view(Viewer::Seat(seat));
                    greedy.choose(&view, &view.legal().unwrap())
                };
                game.apply(seat, &action).unwrap();
            }
        }
    }
    assert!(compared > 1000, "{compared} positions compared");
    assert!(possible > 100, "{possible} positions with a going out");
    assert!(unlisted > 20, "{unlisted} going outs only the search finds");
}

/// The generic redaction check is not vacuous: an event shown unredacted to another seat (a
/// deal's hands, a draw) is caught.
#[test]
fn redaction_check_catches_hidden_cards() {
    let setup = Setup::seeded(RuleSpec::new(Preset::Official, 4), 7);
    let (mut game, _) = Game::start(&setup).unwrap();
    let views = checked_views(&game);
    let before = Before::of(&game, views);
    let seat = game.to_act().unwrap();
    let events = game.apply(seat, &Action::DrawStock).unwrap();
    let after = checked_views(&game);
    check_events(&before, &after, &events).expect("the engine's own events pass");
    // The referee's Drew event, as if redaction forgot it: shown to another seat.
    let Event::Drew { cards, .. } = events
        .iter()
        .find(|e| matches!(e, Event::Drew { .. }))
        .unwrap()
    else {
        unreachable!()
    };
    let drawn = cards.clone().unwrap();
    let other = Seat((seat.0 + 1) % 4);
    let hidden: Vec<Card> = drawn
        .iter()
        .copied()
        .filter(|&c| after[other.index()].cards.count(c) == 0)
        .collect();
    assert!(
        !hidden.is_empty(),
        "seed 7 draws a card seat {} cannot see",
        other.0
    );
    {
        // A made-up kind of event carrying the drawn cards, in the Debug form the check reads.
        let leak = Event::Melded {
            seat,
            placed: [canasta_engine::event::Placed {
                meld: 0,
                cards: hidden.iter().copied().collect(),
                new: true,
            }]
            .into_iter()
            .collect(),
        };
        let err = check_events(&before, &after, &[leak]).unwrap_err();
        assert!(err.contains("may not see"), "{err}");
    }
}

/// Random play reaches every kind of action and every way a deal ends.
#[test]
fn random_play_reaches_every_kind_of_action() {
    let mut seen = std::collections::BTreeSet::new();
    let mut initial_batches_of_several = 0;
    let mut concealed = 0;
    let mut takes_with_melds = 0;
    for seed in 0..3000u64 {
        let mut game = Game::new(&Setup::seeded(RuleSpec::new(Preset::Official, 4), seed)).unwrap();
        let mut bot = RandomBot::new(seed);
        while game.history().is_empty() {
            let seat = game.to_act().unwrap();
            let action = bot.pick(&game.legal().unwrap());
            let side = game.table().side_of(seat);
            let melded = game.side_melded(side);
            match &action {
                Action::Meld { melds } if !melded && melds.len() > 1 => {
                    initial_batches_of_several += 1
                }
                Action::TakePile { melds, .. } if !melds.is_empty() => takes_with_melds += 1,
                _ => {}
            }
            seen.insert(action.kind_name());
            for e in game.apply(seat, &action).unwrap() {
                if let Event::WentOut {
                    concealed: true, ..
                } = e
                {
                    concealed += 1;
                }
            }
        }
    }
    for kind in [
        "draw",
        "take the pile",
        "meld",
        "discard",
        "go out",
        "ask your partner",
        "answer",
        "decline the pile",
    ] {
        assert!(seen.contains(kind), "random play never chose {kind}");
    }
    assert!(
        initial_batches_of_several > 0,
        "no initial meld of several melds"
    );
    assert!(takes_with_melds > 0, "no pile taken with extra melds");
    assert!(concealed > 0, "no concealed going out");
}
