//! Views: what a seat or a spectator may see, rebuilt from the referee's game, per rule set.
//!
//! `cargo bench -p canasta-engine --bench views` measures, over every position of recorded
//! deals (the first deal of 20 seeded games played by greedy bots, for each rule set of
//! `common::presets`):
//!
//! - `view_into/<preset>`: [`Game::view_into`] for the seat to act, into one reused [`ViewBuffer`]
//!   (what a match loop does before every action; no allocation once the buffers have grown).
//!   Throughput in elements = **views** built.
//! - `view_into_legal/<preset>`: the same, then [`View::legal`] (the choices a bot is given).
//!   Elements = **views**.
//! - `view_new/<preset>`: [`Game::view`], a fresh [`View`] each time (allocates). Elements =
//!   **views**.
//!
//! One thread: every figure is for one core.

mod common;

use std::hint::black_box;

use canasta_engine::{ViewBuffer, Viewer};
use common::{positions, presets, record_greedy_deals, setups};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const DEALS: u64 = 20;

fn views(c: &mut Criterion) {
    for (name, spec) in presets() {
        let positions = positions(&record_greedy_deals(&setups(&spec, DEALS)));
        let seats: Vec<_> = positions
            .iter()
            .map(|(g, _)| (g, Viewer::Seat(g.to_act().expect("a seat to act"))))
            .collect();
        let n = positions.len() as u64;
        let mut buffer: ViewBuffer = positions[0].0.view_buffer(Viewer::Spectator);
        let mut group = c.benchmark_group("view_into");
        group.throughput(Throughput::Elements(n));
        group.bench_function(name, |b| {
            b.iter(|| {
                for (game, viewer) in &seats {
                    black_box(game.view_into(*viewer, &mut buffer));
                }
            })
        });
        group.finish();
        let mut group = c.benchmark_group("view_into_legal");
        group.throughput(Throughput::Elements(n));
        group.bench_function(name, |b| {
            b.iter(|| {
                for (game, viewer) in &seats {
                    black_box(game.view_into(*viewer, &mut buffer).legal());
                }
            })
        });
        group.finish();
        let mut group = c.benchmark_group("view_new");
        group.throughput(Throughput::Elements(n));
        group.bench_function(name, |b| {
            b.iter(|| {
                for (game, viewer) in &seats {
                    black_box(game.view(*viewer));
                }
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = views
}
criterion_main!(benches);
