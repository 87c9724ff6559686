//! Self-play: the engine and its bots playing whole deals and matches, per rule set.
//!
//! `cargo bench -p canasta-engine --bench selfplay` runs, for each rule set of
//! `common::presets` (official for 2, 4 and 6 players; wiener, samba and swiss for 4):
//!
//! - `random_actions/<preset>`: the referee's loop with uniform random choices over 100
//!   seeded deals (list the legal actions, pick one, apply it with the full check). Throughput
//!   in elements = **actions** applied: the figure is actions/s.
//! - `random_deals/<preset>`: the same loop, throughput in elements = **deals**: deals/s.
//! - `random_bots/<preset>`: 100 seeded deals played by random bots as an in-process match
//!   plays them (the seat's view refreshed, the bot asked, the action applied). Elements =
//!   **actions**.
//! - `greedy_turns/<preset>`: 10 whole matches (to the preset's target score: 5000 for
//!   official) between greedy bots in every seat, as an in-process match plays them.
//!   Throughput in elements = **turns** (a seat's whole turn, from its draw to its discard or
//!   going out): turns/s.
//! - `greedy_matches/<preset>`: the same matches, throughput in elements = **matches**:
//!   matches/s.
//!
//! Before measuring, each case prints what one iteration plays (actions, turns, deals,
//! matches), from which the other rates follow. One thread: every figure is for one core.

mod common;

use std::hint::black_box;

use common::{bot_matches, greedy_bots, presets, random_bots, random_deals, setups};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Deals per iteration of the random benchmarks.
const RANDOM_DEALS: u64 = 100;
/// Matches per iteration of the greedy benchmarks.
const GREEDY_MATCHES: u64 = 10;
/// A bound on a greedy match's deals (none comes near it).
const MAX_DEALS: usize = 200;

fn random(c: &mut Criterion) {
    for (name, spec) in presets() {
        let setups = setups(&spec, RANDOM_DEALS);
        let played = random_deals(&setups, 1);
        eprintln!("random {name}: one iteration plays {played:?}");
        let mut group = c.benchmark_group("random_actions");
        group.throughput(Throughput::Elements(played.actions));
        group.bench_function(name, |b| b.iter(|| black_box(random_deals(&setups, 1))));
        group.finish();
        let mut group = c.benchmark_group("random_deals");
        group.throughput(Throughput::Elements(played.deals));
        group.bench_function(name, |b| b.iter(|| black_box(random_deals(&setups, 1))));
        group.finish();
        let mut bots = random_bots(spec.players);
        let played = bot_matches(&setups, &mut bots, 1);
        eprintln!("random bots {name}: one iteration plays {played:?}");
        let mut group = c.benchmark_group("random_bots");
        group.throughput(Throughput::Elements(played.actions));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut bots = random_bots(spec.players);
                black_box(bot_matches(&setups, &mut bots, 1))
            })
        });
        group.finish();
    }
}

fn greedy(c: &mut Criterion) {
    for (name, spec) in presets() {
        let setups = setups(&spec, GREEDY_MATCHES);
        let mut bots = greedy_bots(spec.players);
        let played = bot_matches(&setups, &mut bots, MAX_DEALS);
        assert_eq!(played.matches, GREEDY_MATCHES, "{name}: every match ends");
        eprintln!("greedy {name}: one iteration plays {played:?}");
        let mut group = c.benchmark_group("greedy_turns");
        group.throughput(Throughput::Elements(played.turns));
        group.bench_function(name, |b| {
            b.iter(|| black_box(bot_matches(&setups, &mut bots, MAX_DEALS)))
        });
        group.finish();
        let mut group = c.benchmark_group("greedy_matches");
        group.throughput(Throughput::Elements(played.matches));
        group.bench_function(name, |b| {
            b.iter(|| black_box(bot_matches(&setups, &mut bots, MAX_DEALS)))
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = random, greedy
}
criterion_main!(benches);
