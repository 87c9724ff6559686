//! Scoring: the itemised score of a deal ([`Game::score_as_if`], the scorer the end of every
//! deal runs), per rule set.
//!
//! `cargo bench -p canasta-engine --bench scoring` scores every position of recorded deals
//! (the first deal of 20 seeded games played by greedy bots, for each rule set of
//! `common::presets`) as if the seat to act went out there:
//!
//! - `score/<preset>`: throughput in elements = **deal scores** computed (every side itemised).
//!
//! One thread: every figure is for one core.

mod common;

use std::hint::black_box;

use canasta_engine::DealEnd;
use common::{positions, presets, record_greedy_deals, setups};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const DEALS: u64 = 20;

fn scoring(c: &mut Criterion) {
    for (name, spec) in presets() {
        let positions = positions(&record_greedy_deals(&setups(&spec, DEALS)));
        let mut group = c.benchmark_group("score");
        group.throughput(Throughput::Elements(positions.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                for (game, _) in &positions {
                    let seat = game.to_act().expect("a seat to act");
                    let end = DealEnd::WentOut {
                        seat,
                        concealed: false,
                    };
                    black_box(
                        game.score_as_if(end)
                            .expect("the seat to act is at the table"),
                    );
                }
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = scoring
}
criterion_main!(benches);
