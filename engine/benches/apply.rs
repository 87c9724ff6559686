//! Applying actions: [`Game::apply_into`] with the full check it always makes, per rule set.
//!
//! `cargo bench -p canasta-engine --bench apply` replays recorded deals (the first deal of 50
//! seeded games played by greedy bots, so draws, takes, melds, discards and going out all
//! occur) for each rule set of `common::presets`:
//!
//! - `apply/<preset>`: a fresh game per deal ([`Game::new`]: shuffle and deal) and every
//!   action of the deal applied. Throughput in elements = **actions** applied: actions/s.
//! - `new_game/<preset>`: [`Game::new`] alone, throughput in elements = **games** created:
//!   the part of `apply` that is not applying.
//!
//! One thread: every figure is for one core.

mod common;

use std::hint::black_box;

use canasta_engine::{Event, Game};
use common::{presets, record_greedy_deals, setups};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const DEALS: u64 = 50;

fn apply(c: &mut Criterion) {
    for (name, spec) in presets() {
        let records = record_greedy_deals(&setups(&spec, DEALS));
        let actions: usize = records.iter().map(|r| r.actions.len()).sum();
        let mut group = c.benchmark_group("apply");
        group.throughput(Throughput::Elements(actions as u64));
        group.bench_function(name, |b| {
            let mut events: Vec<Event> = Vec::new();
            b.iter(|| {
                for r in &records {
                    let mut game = Game::new(&r.setup).expect("valid setup");
                    for (seat, action) in &r.actions {
                        events.clear();
                        game.apply_into(*seat, action, &mut events)
                            .expect("recorded actions are legal");
                    }
                    black_box(&game);
                }
            })
        });
        group.finish();
        let mut group = c.benchmark_group("new_game");
        group.throughput(Throughput::Elements(DEALS));
        group.bench_function(name, |b| {
            b.iter(|| {
                for r in &records {
                    black_box(Game::new(&r.setup).expect("valid setup"));
                }
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = apply
}
criterion_main!(benches);
