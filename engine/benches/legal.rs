//! Legality: listing, checking and summarising the legal actions, per rule set.
//!
//! `cargo bench -p canasta-engine --bench legal` measures, over every position of recorded
//! deals (the first deal of 20 seeded games played by greedy bots, for each rule set of
//! `common::presets`), with the seat to act's [`LegalChoices`] taken from the referee's game:
//!
//! - `legal_actions/<preset>`: the full enumeration in canonical form
//!   ([`LegalChoices::actions`]). Throughput in elements = **positions** enumerated.
//! - `legal_summary/<preset>`: the compact description sent in a prompt
//!   ([`LegalChoices::summary`]). Elements = **positions** summarised.
//! - `legal_check/<preset>`: the check of the action actually played there
//!   ([`LegalChoices::check`], what `apply` runs first). Elements = **checks**.
//! - `legal_first_go_out/<preset>`: [`LegalChoices::first_go_out`], asked in every position of
//!   the play phase (a bot's "can I go out now?"). Elements = **positions** asked.
//!
//! One thread: every figure is for one core.

mod common;

use std::hint::black_box;

use canasta_engine::{Action, LegalChoices, Phase};
use common::{positions, presets, record_greedy_deals, setups};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const DEALS: u64 = 20;

fn legal(c: &mut Criterion) {
    for (name, spec) in presets() {
        let positions = positions(&record_greedy_deals(&setups(&spec, DEALS)));
        let choices: Vec<LegalChoices<'_>> = positions
            .iter()
            .map(|(g, _)| g.legal().expect("a position has a seat to act"))
            .collect();
        let n = positions.len() as u64;
        let mut group = c.benchmark_group("legal_actions");
        group.throughput(Throughput::Elements(n));
        group.bench_function(name, |b| {
            let mut out: Vec<Action> = Vec::new();
            b.iter(|| {
                for l in &choices {
                    out.clear();
                    l.actions(&mut out);
                    black_box(&out);
                }
            })
        });
        group.finish();
        let mut group = c.benchmark_group("legal_summary");
        group.throughput(Throughput::Elements(n));
        group.bench_function(name, |b| {
            b.iter(|| {
                for l in &choices {
                    black_box(l.summary());
                }
            })
        });
        group.finish();
        let mut group = c.benchmark_group("legal_check");
        group.throughput(Throughput::Elements(n));
        group.bench_function(name, |b| {
            b.iter(|| {
                for (l, (_, action)) in choices.iter().zip(&positions) {
                    black_box(l.check(action)).expect("recorded actions are legal");
                }
            })
        });
        group.finish();
        let play: Vec<&LegalChoices<'_>> = choices
            .iter()
            .filter(|l| l.phase() == Phase::Play)
            .collect();
        let mut group = c.benchmark_group("legal_first_go_out");
        group.throughput(Throughput::Elements(play.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                for l in &play {
                    black_box(l.first_go_out());
                }
            })
        });
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = legal
}
criterion_main!(benches);
