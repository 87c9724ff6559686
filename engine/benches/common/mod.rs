//! What the engine's benchmarks share: the rule sets measured and the loops that play them.
//!
//! Every loop is deterministic (seeded deals, seeded bots), so each iteration of a benchmark
//! does the same work and the throughput counts (actions, turns, deals, matches) are exact.

#![allow(dead_code)] // each bench uses part of this module

use std::time::Duration;

use canasta_engine::bot::{Bot, GreedyBot, RandomBot};
use canasta_engine::rng::Xoshiro256;
use canasta_engine::{Action, Event, Game, Phase, Preset, RuleSpec, Setup, ViewBuffer, Viewer};
use criterion::Criterion;

/// The benchmarks' settings: 10 samples, 1 s of warm-up, 3 s of measurement (each run does
/// much work; the command line may change these, e.g. `-- --measurement-time 10`).
pub fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
}

/// The rule sets measured: the official rules for 2, 4 and 6 players, and the other presets
/// for 4 players (Samba plays with 162 cards).
pub fn presets() -> Vec<(&'static str, RuleSpec)> {
    vec![
        ("official_2p", RuleSpec::new(Preset::Official, 2)),
        ("official_4p", RuleSpec::new(Preset::Official, 4)),
        ("official_6p", RuleSpec::new(Preset::Official, 6)),
        ("wiener_4p", RuleSpec::new(Preset::Wiener, 4)),
        ("samba_4p", RuleSpec::new(Preset::Samba, 4)),
        ("swiss_4p", RuleSpec::new(Preset::Swiss, 4)),
    ]
}

/// Seeded setups `0..n` of a rule set.
pub fn setups(spec: &RuleSpec, n: u64) -> Vec<Setup> {
    (0..n)
        .map(|seed| Setup::seeded(spec.clone(), seed))
        .collect()
}

/// What a batch of play did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Played {
    /// Actions applied.
    pub actions: u64,
    /// Turns played: a seat's whole turn from its draw (or its take, or its refusal of the
    /// pile) to its discard or going out; counted at the draw.
    pub turns: u64,
    /// Deals finished.
    pub deals: u64,
    /// Matches finished.
    pub matches: u64,
}

impl Played {
    fn count(&mut self, game: &Game) {
        self.actions += 1;
        if game.phase() == Phase::Draw {
            self.turns += 1;
        }
    }
}

/// The referee's loop with uniform random choices: one deal per setup. Lists the legal
/// actions, picks one, applies it (with the full check `apply` always makes).
pub fn random_deals(setups: &[Setup], seed: u64) -> Played {
    let mut rng = Xoshiro256::seed_from_u64(seed);
    let mut actions: Vec<Action> = Vec::new();
    let mut events: Vec<Event> = Vec::new();
    let mut p = Played::default();
    for setup in setups {
        let mut game = Game::new(setup).expect("the bench's setups are valid");
        while game.history().is_empty() {
            let seat = game.to_act().expect("a deal in progress has a seat to act");
            actions.clear();
            game.legal_actions(&mut actions);
            let action = actions.swap_remove(rng.below(actions.len() as u64) as usize);
            p.count(&game);
            events.clear();
            game.apply_into(seat, &action, &mut events)
                .expect("listed actions are legal");
        }
        p.deals += 1;
    }
    p
}

/// Plays whole matches, one per setup, as an in-process match runs them: for every action the
/// seat's view is refreshed, the bot chooses from it, the game applies the choice.
/// `max_deals` bounds a match (a bound reached counts the deals but not a match).
pub fn bot_matches(setups: &[Setup], bots: &mut [Box<dyn Bot>], max_deals: usize) -> Played {
    let mut events: Vec<Event> = Vec::new();
    let mut buffer: Option<ViewBuffer> = None;
    let mut p = Played::default();
    for setup in setups {
        let mut game = Game::new(setup).expect("the bench's setups are valid");
        let buffer = buffer.get_or_insert_with(|| game.view_buffer(Viewer::Spectator));
        while let Some(seat) = game.to_act() {
            if game.history().len() >= max_deals {
                break;
            }
            let view = game.view_into(Viewer::Seat(seat), buffer);
            // As `bot::play` does: the referee's own choices, so a checked choice is applied
            // without a second check.
            let legal = game.legal().expect("a game with a seat to act has choices");
            let choice = bots[seat.index() % bots.len()].choose_checked(view, &legal);
            p.count(&game);
            events.clear();
            game.apply_choice(seat, &choice, &mut events)
                .expect("the bots play legal actions");
        }
        p.deals += game.history().len() as u64;
        p.matches += game.winner().is_some() as u64;
    }
    p
}

/// One greedy bot per seat.
pub fn greedy_bots(players: u8) -> Vec<Box<dyn Bot>> {
    (0..players)
        .map(|_| Box::new(GreedyBot::new()) as _)
        .collect()
}

/// One random bot per seat, seeded by seat.
pub fn random_bots(players: u8) -> Vec<Box<dyn Bot>> {
    (0..players)
        .map(|s| Box::new(RandomBot::new(s as u64 + 1)) as _)
        .collect()
}

/// A deal as played: its setup and every action in order, for replaying.
pub struct Record {
    /// The setup.
    pub setup: Setup,
    /// The actions of the first deal, with their seats.
    pub actions: Vec<(canasta_engine::Seat, Action)>,
}

/// Records the first deal of each setup, played by greedy bots in every seat (greedy play
/// melds, takes the pile and goes out, so every kind of action is met).
pub fn record_greedy_deals(setups: &[Setup]) -> Vec<Record> {
    let mut events = Vec::new();
    setups
        .iter()
        .map(|setup| {
            let mut game = Game::new(setup).expect("the bench's setups are valid");
            let mut bots = greedy_bots(game.table().players());
            let mut actions = Vec::new();
            while game.history().is_empty() {
                let seat = game.to_act().expect("a deal in progress has a seat to act");
                let view = game.view(Viewer::Seat(seat));
                let legal = view.legal().expect("a seat sees its own legal choices");
                let action = bots[seat.index()].choose(&view, &legal);
                events.clear();
                game.apply_into(seat, &action, &mut events)
                    .expect("the bots play legal actions");
                actions.push((seat, action));
            }
            Record {
                setup: setup.clone(),
                actions,
            }
        })
        .collect()
}

/// Every position met while replaying the records (before each action), with the action
/// played there.
pub fn positions(records: &[Record]) -> Vec<(Game, Action)> {
    let mut out = Vec::new();
    for r in records {
        let mut game = Game::new(&r.setup).expect("the bench's setups are valid");
        for (seat, action) in &r.actions {
            out.push((game.clone(), action.clone()));
            game.apply(*seat, action)
                .expect("recorded actions are legal");
        }
    }
    out
}
