//! The `search` bot's cost per iteration (one guess at the hidden cards, one candidate played,
//! greedy players to the end of the deal).
//!
//! `cargo bench -p canasta-engine --bench search` runs, for each rule set of
//! `common::presets`, `search_iterations/<preset>`: the bot deciding at 20 positions of greedy
//! deals (every 5th position of the first deal of seeds 0 and 1, where it has more than one
//! candidate), 100 iterations each. Throughput in elements = **iterations**: the figure is
//! iterations/s on one core, its inverse the cost of one.

mod common;

use std::hint::black_box;

use canasta_engine::bot::search::Budget;
use canasta_engine::bot::{Bot, SearchBot};
use canasta_engine::{Game, View, Viewer};
use common::{positions, presets, record_greedy_deals, setups};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// Iterations per decision.
const ITERATIONS: u32 = 100;
/// Decisions per benchmark iteration.
const DECISIONS: usize = 20;

/// Positions where the bot searches (more than one candidate), as the seat to act sees them.
fn decisions(games: Vec<Game>) -> Vec<View> {
    let mut out = Vec::new();
    for game in games.into_iter().step_by(5) {
        let seat = game.to_act().expect("a position of a deal in progress");
        let view = game.view(Viewer::Seat(seat));
        let mut bot = SearchBot::new(1, Budget::Iterations(1));
        bot.choose(&view, &view.legal().expect("its own choices"));
        if bot.stats().iterations > 0 {
            out.push(view);
        }
        if out.len() == DECISIONS {
            break;
        }
    }
    out
}

/// Decides at every position; returns the iterations run.
fn decide(views: &[View]) -> u64 {
    let mut bot = SearchBot::new(7, Budget::Iterations(ITERATIONS));
    views
        .iter()
        .map(|view| {
            black_box(bot.choose(view, &view.legal().expect("its own choices")));
            bot.stats().iterations
        })
        .sum()
}

fn search(c: &mut Criterion) {
    for (name, spec) in presets() {
        let records = record_greedy_deals(&setups(&spec, 2));
        let games = positions(&records).into_iter().map(|(g, _)| g).collect();
        let views = decisions(games);
        let iterations = decide(&views);
        eprintln!(
            "search {name}: one iteration decides at {} positions, {iterations} search iterations",
            views.len()
        );
        let mut group = c.benchmark_group("search_iterations");
        group.throughput(Throughput::Elements(iterations));
        group.bench_function(name, |b| b.iter(|| decide(&views)));
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = search
}
criterion_main!(benches);
