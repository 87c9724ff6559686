//! Property tests over random games for every player count and seating: no panic, cards
//! conserved, deals end, scores add up, replay reproduces the state, enumerated actions are
//! legal, refused actions change nothing, and no seat or spectator sees a hidden card.

use canasta_engine::bot::RandomBot;
use canasta_engine::rng::Xoshiro256;
use canasta_engine::{
    Action, Card, CardCounts, Event, Game, MeldSpec, MeldTarget, Preset, RuleSpec, Seat, Setup,
    TopMeld, Viewer, redact,
};
use proptest::prelude::*;

/// Every preset with every player count and seating it supports, and a few option sets.
fn layouts() -> Vec<RuleSpec> {
    let with = |p, n, opts: &[(&str, &str)]| {
        let mut spec = RuleSpec::new(p, n);
        for (k, v) in opts {
            spec.options.set(k, v).unwrap();
        }
        spec
    };
    let mut all = Vec::new();
    for preset in [Preset::Official, Preset::Wiener] {
        for n in 2..=6 {
            all.push(RuleSpec::new(preset, n));
        }
        all.push(with(preset, 5, &[("five_players", "each_alone")]));
        all.push(with(preset, 6, &[("six_players", "two_teams_of_three")]));
    }
    for n in 2..=4 {
        all.push(RuleSpec::new(Preset::Samba, n));
    }
    all.push(with(Preset::Samba, 4, &[("wild_canastas", "true")]));
    for n in 2..=5 {
        all.push(RuleSpec::new(Preset::Swiss, n));
    }
    // The Rasche options, together.
    all.push(with(
        Preset::Official,
        4,
        &[
            ("jokers", "6"),
            ("wild_canastas", "true"),
            ("hand_size", "13"),
            ("target_score", "7500"),
            ("minimum_table", "-inf:25,0:90,1500:120,3000:150"),
            ("concealed_bonus", "500"),
            ("initial_take_without_pair", "true"),
            ("go_out_needs_natural_canasta", "true"),
            ("red_threes_positive", "canasta"),
            ("closed_canastas", "true"),
        ],
    ));
    all
}

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

/// Checks that no view or redacted event gives a seat or a spectator a hidden card.
fn check_redaction(game: &Game, events: &[Event]) {
    let players = game.table().players();
    for viewer in (0..players)
        .map(|s| Viewer::Seat(Seat(s)))
        .chain([Viewer::Spectator])
    {
        let view = game.view(viewer);
        assert!(view.stock.is_none(), "{viewer:?} sees the stock");
        for sv in &view.seats {
            assert_eq!(sv.hand.is_some(), viewer == Viewer::Seat(sv.seat));
            assert_eq!(sv.hand_len as usize, game.hand(sv.seat).len());
        }
        for e in events {
            match redact(e, viewer) {
                Event::Drew { seat, cards, count } => {
                    assert_eq!(cards.is_some(), viewer == Viewer::Seat(seat));
                    assert!(count > 0);
                }
                Event::DealStarted(start) => {
                    for (s, h) in start.hands.iter().enumerate() {
                        assert_eq!(h.is_some(), viewer == Viewer::Seat(Seat(s as u8)));
                    }
                }
                _ => {}
            }
        }
    }
}

/// Plays up to `max_deals` deals of random play and checks every invariant on the way.
fn random_game(spec: RuleSpec, seed: u64, max_deals: usize) {
    let setup = Setup::seeded(spec, seed);
    let (mut game, start_events) = Game::start(&setup).expect("official rules");
    check_redaction(&game, &start_events);
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
        // Refused input never changes the state.
        let before = game.state_hash();
        let bad = junk_action(&mut junk, game.hand(seat));
        let liar = Seat(junk.below(game.table().players() as u64) as u8);
        let mut probe = game.clone();
        match probe.apply(liar, &bad) {
            Err(_) => assert_eq!(probe.state_hash(), before),
            Ok(_) => assert!(game.check(liar, &bad).is_ok()),
        }
        // Legal choices seen from the seat's view are the referee's, and all are legal.
        let view = game.view(Viewer::Seat(seat));
        let legal = view.legal().expect("a seat sees its own choices");
        actions.clear();
        legal.actions(&mut actions);
        assert!(!actions.is_empty(), "no legal action for {seat:?}");
        let from_game = game.legal().unwrap().to_vec();
        assert_eq!(actions, from_game);
        for a in &actions {
            if let Err(e) = game.check(seat, a) {
                panic!("enumerated action {a} is refused: {e}");
            }
        }
        let summary = legal.summary();
        assert_eq!(summary.can_draw, actions.contains(&Action::DrawStock));
        assert_eq!(
            summary.can_go_out,
            actions.iter().any(|a| matches!(a, Action::GoOut { .. }))
        );
        let action = bot.pick(&legal);
        let events = game.apply(seat, &action).expect("a legal action applies");
        record.push((seat, action));
        steps_in_deal += 1;
        assert!(steps_in_deal < 20_000, "a deal did not end");
        if game.history().len() > deals_seen {
            deals_seen = game.history().len();
            steps_in_deal = 0;
        }
        assert_eq!(game.all_cards(), pack, "cards were lost or duplicated");
        check_redaction(&game, &events);
        for e in &events {
            if let Event::DealEnded(end) = e {
                let mut total = 0;
                for s in &end.score.sides {
                    assert_eq!(s.total, s.sum_of_items());
                    total += 1;
                }
                assert_eq!(total, game.table().sides());
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

/// Random games per run: 64, or `PROPTEST_CASES` for a longer run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64)
}

/// The number of entries of [`layouts`].
const LAYOUTS: usize = 23;

#[test]
fn layouts_are_counted() {
    assert_eq!(layouts().len(), LAYOUTS);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_invariant(layout in 0usize..LAYOUTS, seed in any::<u64>()) {
        random_game(layouts()[layout].clone(), seed, 2);
    }
}

/// Thousands of games for every player count, with the cheaper checks only.
#[test]
fn thousands_of_games_per_layout_end_and_conserve_cards() {
    for spec in layouts() {
        for seed in 0..300u64 {
            let mut game = Game::new(&Setup::seeded(spec.clone(), seed)).unwrap();
            let pack = game.all_cards();
            let mut bot = RandomBot::new(seed);
            let mut steps = 0;
            while game.history().is_empty() {
                let seat = game.to_act().unwrap();
                let action = bot.pick(&game.legal().unwrap());
                game.apply(seat, &action).unwrap();
                steps += 1;
                assert!(steps < 20_000, "deal did not end");
            }
            assert_eq!(game.all_cards(), pack);
            for s in &game.history()[0].sides {
                assert_eq!(s.total, s.sum_of_items());
            }
        }
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
