//! Random self-play: the engine's speed at enumerating, choosing and applying legal actions.
//!
//! `cargo bench -p canasta-engine --bench selfplay` reports, per case, the time of one batch of
//! deals; the throughput lines give actions per second (elements) for 4 players under the
//! official rules:
//!
//! - `engine`: the referee's loop: list the legal actions, pick one uniformly, apply it;
//! - `bots`: the same through the `Bot` trait, with the seat's view rebuilt for every action,
//!   as an in-process match runs it.

use std::hint::black_box;

use canasta_engine::bot::{Bot, RandomBot};
use canasta_engine::rng::Xoshiro256;
use canasta_engine::{Action, Game, Preset, RuleSpec, Setup, Viewer};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const DEALS: u64 = 200;

fn setups(players: u8) -> Vec<Setup> {
    (0..DEALS)
        .map(|seed| Setup::seeded(RuleSpec::new(Preset::Official, players), seed))
        .collect()
}

/// Plays one deal per setup with the referee's loop; returns the number of actions.
fn engine_loop(setups: &[Setup], rng: &mut Xoshiro256) -> u64 {
    let mut actions: Vec<Action> = Vec::new();
    let mut events = Vec::new();
    let mut n = 0;
    for setup in setups {
        let mut game = Game::new(setup).unwrap();
        while game.history().is_empty() {
            let seat = game.to_act().unwrap();
            actions.clear();
            game.legal_actions(&mut actions);
            let action = actions.swap_remove(rng.below(actions.len() as u64) as usize);
            events.clear();
            game.apply_into(seat, &action, &mut events).unwrap();
            n += 1;
        }
    }
    n
}

/// Plays one deal per setup through the `Bot` trait and seat views.
fn bot_loop(setups: &[Setup], bot: &mut RandomBot) -> u64 {
    let mut events = Vec::new();
    let mut n = 0;
    let mut view = Game::new(&setups[0]).unwrap().view(Viewer::Spectator);
    for setup in setups {
        let mut game = Game::new(setup).unwrap();
        while game.history().is_empty() {
            let seat = game.to_act().unwrap();
            game.view_into(Viewer::Seat(seat), &mut view);
            let action = bot.choose(&view, &view.legal().unwrap());
            events.clear();
            game.apply_into(seat, &action, &mut events).unwrap();
            n += 1;
        }
    }
    n
}

fn selfplay(c: &mut Criterion) {
    let setups = setups(4);
    // Count the actions of the batch once, to report throughput in actions.
    let actions = engine_loop(&setups, &mut Xoshiro256::seed_from_u64(1));
    let mut group = c.benchmark_group("random_selfplay_4p_official");
    group.throughput(Throughput::Elements(actions));
    group.sample_size(20);
    group.bench_function("engine", |b| {
        b.iter(|| black_box(engine_loop(&setups, &mut Xoshiro256::seed_from_u64(1))))
    });
    let bot_actions = bot_loop(&setups, &mut RandomBot::new(1));
    group.throughput(Throughput::Elements(bot_actions));
    group.bench_function("bots", |b| {
        b.iter(|| black_box(bot_loop(&setups, &mut RandomBot::new(1))))
    });
    group.finish();

    let mut deals = c.benchmark_group("random_selfplay_4p_official_deals");
    deals.throughput(Throughput::Elements(DEALS));
    deals.sample_size(20);
    deals.bench_function("engine", |b| {
        b.iter(|| black_box(engine_loop(&setups, &mut Xoshiro256::seed_from_u64(1))))
    });
    deals.finish();
}

criterion_group!(benches, selfplay);
criterion_main!(benches);
