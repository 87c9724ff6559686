//! The `search` bot: it plays only legal actions, in every preset and player count; it chooses
//! from its seat's view alone (two games that differ only in cards it cannot see get the same
//! choices); it spends its budget and no more; it is deterministic for a seed.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use canasta_engine::arrange::Arrangement;
use canasta_engine::bot::search::{Budget, Clock, MIN_TIME_MARGIN, usable_time};
use canasta_engine::bot::{self, Bot, GreedyBot, RandomBot, SearchBot};
use canasta_engine::event::Event;
use canasta_engine::{Action, Game, Phase, Preset, RuleSpec, Rules, Seat, Setup, Viewer};
use proptest::prelude::*;

/// Every preset and player count its rules accept.
fn rule_sets() -> Vec<RuleSpec> {
    let mut out = Vec::new();
    for preset in Preset::ALL {
        for players in 2..=6 {
            let spec = RuleSpec::new(preset, players);
            if Rules::new(&spec).is_ok() {
                out.push(spec);
            }
        }
    }
    out
}

/// A position reached by `steps` random actions from a seeded game.
fn position(spec: RuleSpec, seed: u64, steps: usize) -> Game {
    let mut game = Game::new(&Setup::seeded(spec, seed)).unwrap();
    let mut random = RandomBot::new(seed ^ 0xABCD);
    for _ in 0..steps {
        let Some(seat) = game.to_act() else { break };
        let action = random.pick(&game.legal().unwrap());
        game.apply(seat, &action).unwrap();
    }
    game
}

/// The search bot's choice for the seat to act, which must be legal there.
fn search_choice(bot: &mut SearchBot, game: &Game) -> Action {
    let seat = game.to_act().unwrap();
    let view = game.view(Viewer::Seat(seat));
    let legal = view.legal().unwrap();
    let action = bot.choose(&view, &legal);
    assert_eq!(game.check(seat, &action), Ok(()), "{action}");
    action
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    // Random positions of every preset and player count (any phase: the draw, the play, the
    // partner's answer, the end of the stock): a few decisions in a row, each legal.
    #[test]
    fn the_search_bot_never_plays_an_illegal_action(
        which in any::<prop::sample::Index>(),
        seed in any::<u64>(),
        steps in 0usize..600,
    ) {
        let sets = rule_sets();
        let mut game = position(sets[which.index(sets.len())].clone(), seed, steps);
        let mut bot = SearchBot::new(seed, Budget::Iterations(6));
        for _ in 0..4 {
            let Some(seat) = game.to_act() else { break };
            let action = search_choice(&mut bot, &game);
            game.apply(seat, &action).unwrap();
        }
    }
}

// Whole deals of every preset and player count, every seat a search bot with a small budget
// (through the registry, as `canasta match` makes them): no illegal action, and between them
// they ask and answer the partner's question, take the pile and reach the end of the stock
// somewhere.
#[test]
fn search_bots_play_whole_deals_of_every_rule_set() {
    let mut asked = 0;
    let mut taken = 0;
    for spec in rule_sets() {
        for seed in 0..2 {
            let mut game = Game::new(&Setup::seeded(spec.clone(), seed)).unwrap();
            let players = game.table().players() as u64;
            let mut bots: Vec<Box<dyn Bot>> = (0..players)
                .map(|s| bot::by_name("search:4", seed * 10 + s).unwrap())
                .collect();
            bot::play(&mut game, &mut bots, 1, |e| match e {
                Event::AskedPartner { .. } => asked += 1,
                Event::PileTaken { .. } => taken += 1,
                _ => {}
            })
            .map(|_| ())
            .or_else(|e| match e {
                bot::PlayError::DealLimit { .. } => Ok(()),
                e => Err(e),
            })
            .unwrap_or_else(|e| panic!("{spec:?} seed {seed}: {e}"));
            assert_eq!(game.history().len(), 1);
        }
    }
    assert!(taken > 0, "no pile was taken");
    let _ = asked;
}

/// A deal of official 4-player Canasta arranged from `seed`'s deal, with seats 1 and 2's hands
/// exchanged and the stock below its top eight cards reversed if `other`: seat 0, who plays first,
/// sees the same in both.
fn twin(seed: u64, other: bool) -> Game {
    let spec = RuleSpec::new(Preset::Official, 4);
    let rules = Rules::new(&spec).unwrap();
    let dealer = Seat(3);
    let (_, events) = Game::start(&Setup {
        rules: spec.clone(),
        seed,
        first_dealer: Some(dealer),
        ..Setup::default()
    })
    .unwrap();
    let Event::DealStarted(start) = &events[0] else {
        panic!("a deal starts")
    };
    let mut hands: Vec<Vec<_>> = start.hands.iter().map(|h| h.unwrap().to_vec()).collect();
    let plain = Arrangement {
        hands: hands.clone(),
        pile: start.pile.clone(),
        ..Arrangement::default()
    };
    let deck = plain.deck(&rules, 0, dealer).unwrap();
    let deck = if other {
        hands.swap(1, 2);
        let dealt = hands.iter().map(Vec::len).sum::<usize>() + start.pile.len();
        let mut stock = deck[dealt..].to_vec();
        // The top cards stay: seat 0 draws them (for its red threes, and in its turn).
        stock[8..].reverse();
        Arrangement {
            hands,
            pile: start.pile.clone(),
            stock,
            cut: vec![],
        }
        .deck(&rules, 0, dealer)
        .unwrap()
    } else {
        deck
    };
    Game::new(&Setup {
        rules: spec,
        card_orders: vec![deck],
        first_dealer: Some(dealer),
        ..Setup::default()
    })
    .unwrap()
}

// The bot is given its seat's view only: two games that differ in the other hands and the
// order of the stock, the same to seat 0, get the same choice and the same search (every
// candidate's count and mean), before and after its draw, with the same seed and budget.
#[test]
fn hidden_cards_do_not_change_the_choice() {
    for seed in 0..6 {
        let mut a = twin(seed, false);
        let mut b = twin(seed, true);
        assert_ne!(a.hand(Seat(1)), b.hand(Seat(1)), "the twins differ");
        for _ in 0..2 {
            let seat = a.to_act().unwrap();
            assert_eq!(seat, Seat(0));
            assert_eq!(a.view(Viewer::Seat(seat)), b.view(Viewer::Seat(seat)));
            let mut bot_a = SearchBot::new(seed, Budget::Iterations(60));
            let mut bot_b = SearchBot::new(seed, Budget::Iterations(60));
            let action = search_choice(&mut bot_a, &a);
            assert_eq!(search_choice(&mut bot_b, &b), action, "seed {seed}");
            assert_eq!(bot_a.stats(), bot_b.stats(), "seed {seed}");
            if a.phase() != Phase::Draw {
                // After the draw there are discards to weigh: the search ran.
                assert_eq!(bot_a.stats().iterations, 60);
                break;
            }
            // Both draw the same top card and look again.
            a.apply(seat, &Action::DrawStock).unwrap();
            b.apply(seat, &Action::DrawStock).unwrap();
        }
    }
}

// An iteration budget is spent exactly, over one thread or several; the same seed and view
// give the same choice and the same counts, however many threads share the work.
#[test]
fn an_iteration_budget_is_spent_exactly_and_deterministically() {
    for seed in 0..4 {
        let game = position(RuleSpec::new(Preset::Official, 4), seed, 40 + seed as usize);
        for threads in [1, 3] {
            let run = || {
                let mut bot = SearchBot::new(seed, Budget::Iterations(50)).with_threads(threads);
                let action = search_choice(&mut bot, &game);
                (action, bot.stats().clone())
            };
            let (action, stats) = run();
            if stats.candidates.len() > 1 {
                assert_eq!(stats.iterations, 50);
                let visits: u64 = stats.candidates.iter().map(|c| c.1).sum();
                assert_eq!(visits, 50);
            } else {
                assert_eq!(stats.iterations, 0, "a single candidate needs no search");
            }
            assert_eq!(stats.candidates[stats.chosen].0, action);
            assert_eq!(run(), (action, stats), "seed {seed}, {threads} threads");
        }
    }
}

/// A clock that moves one millisecond each time it is read.
struct Ticking(AtomicU64);

impl Clock for Ticking {
    fn now(&self) -> Duration {
        Duration::from_millis(self.0.fetch_add(1, Ordering::Relaxed))
    }
}

// A time budget is read on the bot's clock before every iteration: with a clock that moves a
// millisecond a reading, 10 ms is the start's reading and nine more, so nine iterations.
#[test]
fn a_time_budget_stops_the_search_on_the_bots_clock() {
    let mut checked = 0;
    for seed in 0..8 {
        let game = position(RuleSpec::new(Preset::Official, 4), seed, 30);
        let clock = Arc::new(Ticking(AtomicU64::new(1000)));
        let mut bot =
            SearchBot::new(seed, Budget::Time(Duration::from_millis(10))).with_clock(clock.clone());
        search_choice(&mut bot, &game);
        if bot.stats().candidates.len() > 1 {
            assert_eq!(bot.stats().iterations, 9);
            checked += 1;
        }
    }
    assert!(checked > 0);
}

// A time limit caps an iteration budget (a server's bot under a time control): with a clock
// that moves a millisecond a reading, a 5 ms limit is the start's reading and four more, so
// four of the 1000 iterations; without the limit the budget alone counts.
#[test]
fn a_time_limit_cuts_an_iteration_budget_short() {
    let mut checked = 0;
    for seed in 0..8 {
        let game = position(RuleSpec::new(Preset::Official, 4), seed, 30);
        let clock = Arc::new(Ticking(AtomicU64::new(1000)));
        let mut bot = SearchBot::new(seed, Budget::Iterations(1000)).with_clock(clock.clone());
        bot.set_time_limit(Some(Duration::from_millis(5)));
        search_choice(&mut bot, &game);
        if bot.stats().candidates.len() > 1 {
            assert_eq!(bot.stats().iterations, 4);
            bot.set_time_limit(None);
            search_choice(&mut bot, &game);
            assert_eq!(bot.stats().iterations, 1000);
            checked += 1;
        }
    }
    assert!(checked > 0);
}

// Under a time control the bot keeps to the time its seat has left, less the margin: a clock
// that moves a millisecond a reading stops a decision given 60 ms (10 usable) after nine
// iterations, whether its own budget is 1 000 iterations or two seconds. With the time control
// lifted the budget is the bot's own again; with less time left than the margin it plays the
// greedy choice at once.
#[test]
fn the_time_left_caps_every_budget() {
    let ms = Duration::from_millis;
    // A tenth of the time left, at least the margin asked for: 50 ms for a bot behind a
    // network (what `set_time_left` keeps), 20 ms for the server's house bots.
    assert_eq!(MIN_TIME_MARGIN, ms(50));
    assert_eq!(
        usable_time(Duration::from_secs(2), MIN_TIME_MARGIN),
        ms(1800)
    );
    assert_eq!(usable_time(ms(300), MIN_TIME_MARGIN), ms(250));
    assert_eq!(usable_time(ms(50), MIN_TIME_MARGIN), Duration::ZERO);
    assert_eq!(usable_time(Duration::ZERO, MIN_TIME_MARGIN), Duration::ZERO);
    assert_eq!(usable_time(ms(300), ms(20)), ms(270));
    assert_eq!(usable_time(ms(100), ms(20)), ms(80));
    assert_eq!(usable_time(ms(15), ms(20)), Duration::ZERO);
    let mut checked = 0;
    for seed in 0..8 {
        let game = position(RuleSpec::new(Preset::Official, 4), seed, 30);
        for budget in [
            Budget::Iterations(1000),
            Budget::Time(Duration::from_secs(2)),
        ] {
            let clock = Arc::new(Ticking(AtomicU64::new(1000)));
            let mut bot = SearchBot::new(seed, budget).with_clock(clock);
            bot.set_time_left(Some(ms(60)));
            search_choice(&mut bot, &game);
            if bot.stats().candidates.len() == 1 {
                continue;
            }
            checked += 1;
            assert_eq!(bot.stats().iterations, 9, "seed {seed}, {budget:?}");
            // Still capped at the next decision, until told otherwise.
            search_choice(&mut bot, &game);
            assert_eq!(bot.stats().iterations, 9, "seed {seed}, {budget:?}");
            if let Budget::Iterations(_) = budget {
                let mut free = SearchBot::new(seed, Budget::Iterations(120));
                free.set_time_left(Some(ms(60)));
                free.set_time_left(None);
                search_choice(&mut free, &game);
                assert_eq!(free.stats().iterations, 120);
            }
            let seat = game.to_act().unwrap();
            let view = game.view(Viewer::Seat(seat));
            let greedy = GreedyBot::new().choose(&view, &view.legal().unwrap());
            let mut hurried = SearchBot::new(seed, budget);
            hurried.set_time_left(Some(ms(40)));
            assert_eq!(search_choice(&mut hurried, &game), greedy);
            assert_eq!(hurried.stats().iterations, 0);
        }
    }
    assert!(checked > 0);
}

// The names the registry takes, and what it says of those it refuses.
#[test]
fn search_names_set_the_budget_and_threads() {
    for (name, made) in [
        ("search", "search:400"),
        ("search:250", "search:250"),
        ("search:50ms", "search:50ms"),
        ("search:2s:t2", "search:2000ms:t2"),
        ("search:t4:100", "search:100:t4"),
        ("search:noinfer:50ms", "search:50ms:noinfer"),
    ] {
        assert_eq!(bot::check_name(name), Ok(()), "{name}");
        assert_eq!(bot::by_name(name, 1).unwrap().name(), made);
    }
    for (name, says) in [
        ("search:0", "is not a budget"),
        ("search:fast", "is not a budget"),
        ("search:0ms", "is not a time"),
        ("search:t0", "is not a number of threads"),
        ("search:t65", "is not a number of threads"),
        ("searching", "there is no bot"),
        ("greedy:50ms", "there is no bot"),
    ] {
        assert!(bot::by_name(name, 1).is_none(), "{name}");
        let e = bot::check_name(name).unwrap_err();
        assert!(e.contains(says), "{name}: {e}");
    }
}
