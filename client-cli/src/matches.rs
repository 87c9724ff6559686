//! Headless matches between bots: in-process on every core, or against a server with each seat
//! a separate client; results as JSON lines and a summary with confidence intervals.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Instant;

use anyhow::Context;
use canasta_engine::bot::{self, PlayError};
use canasta_engine::table::Table;
use canasta_engine::{Event, Game, RuleSpec, Rules, Seat, Setup};
use canasta_proto::convert::rules_to_wire;
use canasta_proto::v1;
use serde::Serialize;

use crate::remote::{self, SeatClient};

/// What to play.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The rules.
    pub spec: RuleSpec,
    /// The bot of each seat, in the first orientation.
    pub seat_bots: Vec<String>,
    /// Number of seeds.
    pub matches: u64,
    /// The first seed.
    pub seed: u64,
    /// Play each seed once per side, the bots moved round the sides each time.
    pub duplicate: bool,
    /// A match stops unfinished after this many deals.
    pub max_deals: u32,
}

/// One match's outcome: a JSON line (its fields are documented in docs/cli.md).
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    /// The match's number.
    pub index: u64,
    /// The game's id on the server (`canasta export` takes it); none for a match played in
    /// this process.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game_id: Option<String>,
    /// Its seed.
    pub seed: u64,
    /// How far the bots were moved round the sides (0: as named; in duplicate mode 0 to the
    /// number of sides - 1, each seed once with each).
    pub rotation: u32,
    /// True for the games of a duplicate set with the bots moved (rotation above 0).
    pub swapped: bool,
    /// The bots of each side (with the side's number in self-play, where every side has the
    /// same bots).
    pub side_bots: Vec<String>,
    /// The winning side, if the match finished.
    pub winner_side: Option<u8>,
    /// The winning side's bots.
    pub winner: Option<String>,
    /// Final scores by side.
    pub totals: Vec<i32>,
    /// Deals finished.
    pub deals: u32,
    /// Actions applied to the game (the actions of its record).
    pub actions: u64,
    /// Turns started (the game's `turn_started` events, the first deal's first turn included).
    pub turns: u64,
    /// Wall time of the match.
    pub millis: u64,
}

impl Plan {
    /// The orientations of each seed: one, or in duplicate mode one per side.
    fn orientations(&self, rules: &Rules) -> u64 {
        if self.duplicate {
            Table::new(rules).sides() as u64
        } else {
            1
        }
    }

    /// The number of games to play.
    pub fn jobs(&self, rules: &Rules) -> u64 {
        self.matches * self.orientations(rules)
    }

    /// The match of job `j`: its index, seed, and the rotation of the bots.
    fn job(&self, rules: &Rules, j: u64) -> (u64, u64, u32) {
        let n = self.orientations(rules);
        let index = j / n;
        (index, self.seed + index, (j % n) as u32)
    }

    /// The bot of each seat with the bots moved `rotation` sides on: side `i` gets the bots of
    /// side `i + rotation`, member by member (a shorter side's members in turn).
    fn bots_for(&self, rules: &Rules, rotation: u32) -> Vec<String> {
        rotate_sides(&Table::new(rules), &self.seat_bots, rotation)
    }

    /// The name of each side's player: its bots. The summary keeps one record per name, so
    /// a bot playing on several sides (and moved round them in duplicate mode) has one record;
    /// in self-play, where every side has the same bots, the sides keep records of their own.
    fn side_bots(&self, rules: &Rules, seats: &[String]) -> Vec<String> {
        let table = Table::new(rules);
        let names: Vec<String> = (0..table.sides())
            .map(|side| {
                let mut names: Vec<&str> = table
                    .members(canasta_engine::Side(side))
                    .map(|s| seats[s.index()].as_str())
                    .collect();
                names.dedup();
                names.join("+")
            })
            .collect();
        if names.iter().all(|n| *n == names[0]) && names.len() > 1 {
            return names
                .into_iter()
                .enumerate()
                .map(|(i, n)| format!("{n} (side {i})"))
                .collect();
        }
        names
    }
}

/// Who sits where once the sides are moved `rotation` sides on, for a duplicate set: side `i`
/// gets the occupants of side `i + rotation`, member by member (a shorter side's members in
/// turn), so that the same seat (and the same cards, on the same seed) goes to each side in
/// turn. `seats` holds each seat's occupant in the first orientation.
pub fn rotate_sides<T: Clone>(table: &Table, seats: &[T], rotation: u32) -> Vec<T> {
    let sides = table.sides() as u32;
    table
        .seats()
        .map(|seat| {
            let side = table.side_of(seat);
            let member = table
                .members(side)
                .position(|m| m == seat)
                .expect("a seat is a member of its side");
            let from = canasta_engine::Side(((side.0 as u32 + rotation) % sides) as u8);
            let others: Vec<Seat> = table.members(from).collect();
            seats[others[member % others.len()].index()].clone()
        })
        .collect()
}

/// How a match went, before it becomes an [`Outcome`].
struct Played {
    game_id: Option<String>,
    winner: Option<u8>,
    totals: Vec<i32>,
    deals: u32,
    actions: u64,
    turns: u64,
}

fn outcome(
    plan: &Plan,
    rules: &Rules,
    job: u64,
    seats: &[String],
    played: Played,
    started: Instant,
) -> Outcome {
    let Played {
        game_id,
        winner,
        totals,
        deals,
        actions,
        turns,
    } = played;
    let (index, seed, rotation) = plan.job(rules, job);
    let side_bots = plan.side_bots(rules, seats);
    Outcome {
        index,
        game_id,
        seed,
        rotation,
        swapped: rotation > 0,
        winner: winner.map(|w| side_bots[w as usize].clone()),
        side_bots,
        winner_side: winner,
        totals,
        deals,
        actions,
        turns,
        millis: started.elapsed().as_millis() as u64,
    }
}

/// Plays one match in this thread.
fn play_in_process(plan: &Plan, rules: &Rules, job: u64) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let (_, seed, rotation) = plan.job(rules, job);
    let seats = plan.bots_for(rules, rotation);
    let mut bots = seats
        .iter()
        .enumerate()
        .map(|(s, name)| {
            bot::by_name(name, seed.wrapping_mul(31).wrapping_add(s as u64)).with_context(|| {
                format!(
                    "there is no bot {name:?}: the bots are {}",
                    bot::BOT_NAMES.join(", ")
                )
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    // The events of the start count as a server's do: the first deal's first turn is one.
    let (mut game, start) = Game::start(&Setup::seeded(plan.spec.clone(), seed))?;
    let mut turns = 0;
    let mut count = |e: &Event| {
        if let Event::TurnStarted { .. } = e {
            turns += 1;
        }
    };
    start.iter().for_each(&mut count);
    let actions = match bot::play(&mut game, &mut bots, plan.max_deals, count) {
        Ok(n) => n,
        Err(PlayError::DealLimit { actions }) => actions,
        Err(e) => return Err(e.into()),
    };
    Ok(outcome(
        plan,
        rules,
        job,
        &seats,
        Played {
            game_id: None,
            winner: game.winner().map(|s| s.0),
            totals: game.scores().to_vec(),
            deals: game.history().len() as u32,
            actions,
            turns,
        },
        started,
    ))
}

/// Runs every match in-process on `threads` threads; `sink` receives each outcome in the order
/// they finish.
pub fn run_in_process(
    plan: &Plan,
    threads: usize,
    mut sink: impl FnMut(Outcome),
) -> anyhow::Result<()> {
    let rules = Rules::new(&plan.spec)?;
    let next = Arc::new(AtomicU64::new(0));
    let (tx, rx) = mpsc::channel();
    let mut handles = Vec::new();
    for _ in 0..threads.max(1) {
        let (plan, next, tx) = (plan.clone(), next.clone(), tx.clone());
        handles.push(std::thread::spawn(move || {
            loop {
                let j = next.fetch_add(1, Ordering::Relaxed);
                if j >= plan.jobs(&rules) {
                    break;
                }
                if tx.send(play_in_process(&plan, &rules, j)).is_err() {
                    break;
                }
            }
        }));
    }
    drop(tx);
    let mut first_error = None;
    for r in rx {
        match r {
            Ok(o) => sink(o),
            Err(e) => {
                first_error.get_or_insert(e);
                next.store(u64::MAX / 2, Ordering::Relaxed);
            }
        }
    }
    for h in handles {
        let _ = h.join();
    }
    first_error.map_or(Ok(()), Err)
}

/// Plays one match against a server: each seat a separate client over the public protocol.
/// The match fails as soon as one seat fails (the other seats would wait for it forever).
async fn play_remote(
    addr: String,
    plan: Arc<Plan>,
    rules: Rules,
    job: u64,
) -> anyhow::Result<Outcome> {
    let started = Instant::now();
    let (index, seed, rotation) = plan.job(&rules, job);
    let seats = plan.bots_for(&rules, rotation);
    let played = async {
        let mut client = remote::connect(&addr).await?;
        let request = v1::CreateGameRequest {
            rules: Some(rules_to_wire(&plan.spec)),
            seed: Some(seed),
            ..Default::default()
        };
        let game = remote::limited!(client.create_game(request.clone()).await)
            .map_err(remote::RemoteError::from)?
            .into_inner()
            .game
            .context("the server answered no game")?;
        // Dropped on the first failure: the other seats' tasks are aborted with it.
        let mut tasks = tokio::task::JoinSet::new();
        // The seats' own actions the server applied, for a match stopped at the deal limit
        // (whose record the server does not export until the game ends).
        let applied = Arc::new(AtomicU64::new(0));
        for (s, name) in seats.iter().enumerate() {
            let mut bot = bot::by_name(name, seed.wrapping_mul(31).wrapping_add(s as u64))
                .with_context(|| format!("there is no bot {name:?}"))?;
            let (addr, game_id, name) = (addr.clone(), game.game_id.clone(), name.clone());
            let (applied, max_deals) = (applied.clone(), plan.max_deals);
            tasks.spawn(async move {
                let played = async {
                    let mut client = remote::connect(&addr).await?;
                    let mut seat = SeatClient::join(
                        &mut client,
                        &addr,
                        &game_id,
                        Some(s as u32),
                        &format!("{name} {s}"),
                    )
                    .await?;
                    let (mut turns, mut deals, mut fallbacks) = (0u64, 0u32, 0u64);
                    let mut totals = Vec::new();
                    let result =
                        remote::play_seat_until(&mut client, &mut seat, bot.as_mut(), |e| {
                            stop_at_deal_limit(
                                e,
                                max_deals,
                                &mut turns,
                                &mut deals,
                                &mut fallbacks,
                                &mut totals,
                            )
                        })
                        .await?;
                    applied.fetch_add(seat.applied(), Ordering::Relaxed);
                    let result = match result {
                        Some(result) => result,
                        None => {
                            // Stopped: the seat is given up, so that the server ends the game
                            // (abandoned, after its --left-timeout-secs) instead of waiting.
                            let request = v1::LeaveGameRequest {
                                game_id: game_id.clone(),
                            };
                            remote::limited!(
                                client
                                    .leave_game(remote::authed(request.clone(), &seat.token))
                                    .await
                            )?;
                            v1::MatchResult {
                                totals,
                                ..Default::default()
                            }
                        }
                    };
                    Ok::<_, remote::RemoteError>((result, turns, deals, fallbacks))
                };
                played
                    .await
                    .with_context(|| format!("seat {s} ({name}) of game {game_id}"))
            });
        }
        let (result, turns, deals, fallbacks) = first_of_all(tasks).await?.context("no seat")?;
        let actions = if result.finished {
            // The seats see events, not actions: the game's record counts them, whoever acted
            // (a bot, or the server for a seat whose time ran out).
            let request = v1::ExportGameRequest {
                game_id: game.game_id.clone(),
            };
            remote::limited!(client.export_game(request.clone()).await)
                .map_err(remote::RemoteError::from)
                .context("exporting the game")?
                .into_inner()
                .record
                .context("the server exported no record")?
                .actions
                .len() as u64
        } else {
            applied.load(Ordering::Relaxed) + fallbacks
        };
        anyhow::Ok(Played {
            game_id: Some(game.game_id),
            winner: result.winner_side.map(|w| w as u8),
            totals: result.totals,
            deals,
            actions,
            turns,
        })
    };
    let played = played
        .await
        .with_context(|| format!("match {} (seed {seed}) failed", index + 1))?;
    Ok(outcome(&plan, &rules, job, &seats, played, started))
}

/// A seat's view of a match against a server, event by event: counts the turns started, the
/// deals ended (with the totals after the last one) and the moves the server made for seats
/// whose time ran out; breaks where a match in this process stops at the deal limit, on the
/// first turn begun after `max_deals` deals (a match that ends with its last deal ends first).
fn stop_at_deal_limit(
    e: &v1::GameEvent,
    max_deals: u32,
    turns: &mut u64,
    deals: &mut u32,
    fallbacks: &mut u64,
    totals: &mut Vec<i32>,
) -> ControlFlow<()> {
    use v1::game_event::Kind;
    match &e.kind {
        Some(Kind::TurnStarted(_)) => {
            *turns += 1;
            if *deals >= max_deals {
                return ControlFlow::Break(());
            }
        }
        Some(Kind::DealEnded(d)) => {
            *deals += 1;
            if let Some(score) = &d.score {
                *totals = score.sides.iter().map(|s| s.cumulative).collect();
            }
        }
        Some(Kind::TimedOut(t)) if t.policy() == v1::TimeoutPolicy::FallbackMove => *fallbacks += 1,
        _ => {}
    }
    ControlFlow::Continue(())
}

/// Waits for every task and returns the first one's result, or the first failure as soon as
/// it happens: the tasks still running are then aborted (dropping the set aborts them).
async fn first_of_all<T: 'static>(
    mut tasks: tokio::task::JoinSet<anyhow::Result<T>>,
) -> anyhow::Result<Option<T>> {
    let mut first = None;
    while let Some(r) = tasks.join_next().await {
        let r = r.context("a seat's task ended")??;
        first.get_or_insert(r);
    }
    Ok(first)
}

/// Runs every match against the server at `addr`, `parallel` at a time. The first match that
/// fails stops the run (the matches in flight are abandoned) with its reason.
pub async fn run_remote(
    addr: &str,
    plan: &Plan,
    parallel: usize,
    mut sink: impl FnMut(Outcome),
) -> anyhow::Result<()> {
    let rules = Rules::new(&plan.spec)?;
    let plan = Arc::new(plan.clone());
    let mut running = tokio::task::JoinSet::new();
    let mut next = 0;
    loop {
        while running.len() < parallel.max(1) && next < plan.jobs(&rules) {
            running.spawn(play_remote(addr.to_string(), plan.clone(), rules, next));
            next += 1;
        }
        match running.join_next().await {
            Some(r) => sink(r??),
            None => return Ok(()),
        }
    }
}

/// A bot's record over the matches.
#[derive(Clone, Debug, Default, Serialize)]
pub struct BotRecord {
    /// Matches it played (a side).
    pub played: u64,
    /// Matches it won.
    pub wins: u64,
    /// Wins over played.
    pub win_rate: f64,
    /// The 95% confidence interval of the win rate (Wilson score interval).
    pub win_rate_95: (f64, f64),
    /// Its side's final score minus the best other side's, on average.
    pub average_margin: f64,
    /// That margin per deal played: over each seed's matches (a duplicate set counts once),
    /// the margins summed over the deals summed.
    pub points_per_deal: f64,
    /// The 95% confidence interval of the points per deal (normal approximation over the
    /// seeds: in duplicate mode the luck of the cards is cancelled within a seed, not across).
    pub points_per_deal_95: (f64, f64),
}

/// The summary of a run.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    /// Matches played.
    pub matches: u64,
    /// Matches stopped at the deal limit.
    pub unfinished: u64,
    /// Each bot's record.
    pub bots: BTreeMap<String, BotRecord>,
    /// Deals per match.
    pub deals_per_match: f64,
    /// Matches per second of wall time.
    pub matches_per_second: f64,
    /// Turns per second of wall time.
    pub turns_per_second: f64,
    /// Actions per second of wall time.
    pub actions_per_second: f64,
    /// Wall time in seconds.
    pub seconds: f64,
}

/// The Wilson score interval of `wins` in `n` at 95%.
pub fn wilson(wins: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let (n, p, z) = (n as f64, wins as f64 / n as f64, 1.96f64);
    let centre = p + z * z / (2.0 * n);
    let spread = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let denom = 1.0 + z * z / n;
    (
        ((centre - spread) / denom).max(0.0),
        ((centre + spread) / denom).min(1.0),
    )
}

/// The mean of `values` and its 95% confidence interval (normal approximation; the mean
/// alone for fewer than two values).
pub fn mean_95(values: &[f64]) -> (f64, (f64, f64)) {
    let n = values.len() as f64;
    if values.is_empty() {
        return (0.0, (0.0, 0.0));
    }
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, (mean, mean));
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let half = 1.96 * (variance / n).sqrt();
    (mean, (mean - half, mean + half))
}

/// Sums up outcomes.
pub fn summarize(outcomes: &[Outcome], seconds: f64) -> Summary {
    let mut s = Summary {
        matches: outcomes.len() as u64,
        seconds,
        ..Summary::default()
    };
    let mut margins: BTreeMap<String, i64> = BTreeMap::new();
    // Per bot and seed: the margins and the deals of the seed's matches.
    let mut per_seed: BTreeMap<(String, u64), (i64, u64)> = BTreeMap::new();
    let (mut deals, mut turns, mut actions) = (0u64, 0u64, 0u64);
    for o in outcomes {
        deals += o.deals as u64;
        turns += o.turns;
        actions += o.actions;
        if o.winner_side.is_none() {
            s.unfinished += 1;
        }
        let mut seen = Vec::new();
        for bot in &o.side_bots {
            if seen.contains(bot) {
                continue;
            }
            seen.push(bot.clone());
            let r = s.bots.entry(bot.clone()).or_default();
            r.played += 1;
            if o.winner.as_ref() == Some(bot) {
                r.wins += 1;
            }
            // A bot on several sides counts its best one.
            let own = o
                .totals
                .iter()
                .enumerate()
                .filter(|(i, _)| o.side_bots[*i] == *bot)
                .map(|(_, t)| *t)
                .max()
                .unwrap_or(0);
            let best_other = o
                .totals
                .iter()
                .enumerate()
                .filter(|(i, _)| o.side_bots[*i] != *bot)
                .map(|(_, t)| *t)
                .max()
                .unwrap_or(own);
            *margins.entry(bot.clone()).or_default() += (own - best_other) as i64;
            let seed = per_seed.entry((bot.clone(), o.seed)).or_default();
            seed.0 += (own - best_other) as i64;
            seed.1 += o.deals as u64;
        }
    }
    for (bot, r) in s.bots.iter_mut() {
        r.win_rate = r.wins as f64 / r.played.max(1) as f64;
        r.win_rate_95 = wilson(r.wins, r.played);
        r.average_margin = margins[bot] as f64 / r.played.max(1) as f64;
        let seeds: Vec<f64> = per_seed
            .range((bot.clone(), 0)..=(bot.clone(), u64::MAX))
            .filter(|(_, (_, deals))| *deals > 0)
            .map(|(_, (margin, deals))| *margin as f64 / *deals as f64)
            .collect();
        (r.points_per_deal, r.points_per_deal_95) = mean_95(&seeds);
    }
    let n = s.matches.max(1) as f64;
    s.deals_per_match = deals as f64 / n;
    let secs = seconds.max(1e-9);
    s.matches_per_second = s.matches as f64 / secs;
    s.turns_per_second = turns as f64 / secs;
    s.actions_per_second = actions as f64 / secs;
    s
}

/// The summary as text.
pub fn summary_text(s: &Summary) -> String {
    let mut out = format!(
        "{} matches in {:.2} s ({:.1} matches/s, {:.0} turns/s{}), {:.1} deals per match{}\n",
        s.matches,
        s.seconds,
        s.matches_per_second,
        s.turns_per_second,
        if s.actions_per_second > 0.0 {
            format!(", {:.0} actions/s", s.actions_per_second)
        } else {
            String::new()
        },
        s.deals_per_match,
        if s.unfinished > 0 {
            format!(", {} unfinished", s.unfinished)
        } else {
            String::new()
        }
    );
    for (bot, r) in &s.bots {
        out += &format!(
            "  {bot}: {} wins of {} ({:.1}%, 95% CI {:.1}% to {:.1}%), average margin {:+.0}, \
             {:+.1} points per deal (95% CI {:+.1} to {:+.1})\n",
            r.wins,
            r.played,
            r.win_rate * 100.0,
            r.win_rate_95.0 * 100.0,
            r.win_rate_95.1 * 100.0,
            r.average_margin,
            r.points_per_deal,
            r.points_per_deal_95.0,
            r.points_per_deal_95.1,
        );
    }
    out
}

/// Where JSON lines go.
pub enum Lines {
    /// Nowhere.
    None,
    /// A writer.
    To(Box<dyn Write + Send>),
}

impl Lines {
    /// Writes one outcome as a JSON line.
    pub fn write(&mut self, o: &Outcome) -> std::io::Result<()> {
        if let Lines::To(w) = self {
            serde_json::to_writer(&mut *w, o)?;
            w.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// A progress bar on the terminal, if there is one.
pub fn progress(total: u64, quiet: bool) -> Option<indicatif::ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} matches  {rate}  eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .with_key(
                "rate",
                |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = w.write_str(&rate_text(state.per_sec()));
                },
            ),
    );
    Some(bar)
}

/// A rate as the progress bar shows it: whole numbers with thousands separators ("3,825/s",
/// where indicatif's `{per_sec}` shows "3,825.0479/s"), one decimal below 10 ("2.5/s").
pub fn rate_text(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        "0/s".to_string()
    } else if per_sec < 10.0 {
        format!("{per_sec:.1}/s")
    } else {
        format!("{}/s", indicatif::HumanCount(per_sec.round() as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canasta_engine::Preset;

    // Regression: the progress bar showed "3,825.0479/s".
    #[test]
    fn the_progress_rate_is_a_whole_number_with_separators() {
        assert_eq!(rate_text(3825.0479), "3,825/s");
        assert_eq!(rate_text(1_234_567.8), "1,234,568/s");
        assert_eq!(rate_text(42.5), "43/s");
        assert_eq!(rate_text(2.54), "2.5/s");
        assert_eq!(rate_text(0.0), "0/s");
        assert_eq!(rate_text(f64::INFINITY), "0/s");
    }

    // The interval of a mean: around it, narrower with more values, none for one value.
    #[test]
    fn mean_interval_brackets_the_mean() {
        assert_eq!(mean_95(&[]), (0.0, (0.0, 0.0)));
        assert_eq!(mean_95(&[5.0]), (5.0, (5.0, 5.0)));
        let (mean, (lo, hi)) = mean_95(&[10.0, 20.0, 30.0, 40.0]);
        assert_eq!(mean, 25.0);
        // s = 12.91, s / sqrt(4) = 6.45, 1.96 of it = 12.65.
        assert!((hi - mean - 12.65).abs() < 0.01 && (mean - lo - 12.65).abs() < 0.01);
        let (_, (lo8, hi8)) = mean_95(&[10.0, 20.0, 30.0, 40.0, 10.0, 20.0, 30.0, 40.0]);
        assert!(hi8 - lo8 < hi - lo);
    }

    #[test]
    fn wilson_interval_brackets_the_rate() {
        let (lo, hi) = wilson(95, 100);
        assert!(
            lo > 0.88 && lo < 0.95 && hi > 0.95 && hi < 0.99,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0), (0.0, 0.0));
    }

    fn plan(players: u8, bots: &str, seat_bots: Option<&str>, matches: u64) -> (Plan, Rules) {
        let spec = RuleSpec::new(Preset::Official, players);
        let rules = Rules::new(&spec).unwrap();
        let plan = Plan {
            seat_bots: crate::cli::seat_bots(&rules, bots, seat_bots).unwrap(),
            spec,
            matches,
            seed: 10,
            duplicate: true,
            max_deals: 200,
        };
        (plan, rules)
    }

    fn run(plan: &Plan) -> Vec<Outcome> {
        let mut outcomes = Vec::new();
        run_in_process(plan, 2, |o| outcomes.push(o)).unwrap();
        outcomes.sort_by_key(|o| (o.index, o.rotation));
        outcomes
    }

    #[test]
    fn duplicate_matches_swap_the_sides() {
        let (plan, _) = plan(4, "greedy,random", None, 3);
        let outcomes = run(&plan);
        assert_eq!(outcomes.len(), 6);
        assert_eq!(outcomes[0].side_bots, vec!["greedy", "random"]);
        assert_eq!(outcomes[1].side_bots, vec!["random", "greedy"]);
        assert!(!outcomes[0].swapped && outcomes[1].swapped);
        assert_eq!(outcomes[0].seed, outcomes[1].seed);
        let s = summarize(&outcomes, 1.0);
        assert_eq!(s.bots["greedy"].played, 6);
        assert!(s.bots["greedy"].wins >= 5);
        // Two sides: what one wins per deal the other loses, seed by seed.
        let (greedy, random) = (&s.bots["greedy"], &s.bots["random"]);
        assert!(greedy.points_per_deal > 0.0);
        assert_eq!(greedy.points_per_deal, -random.points_per_deal);
        assert_eq!(greedy.points_per_deal_95.0, -random.points_per_deal_95.1);
        let by_hand: f64 = outcomes
            .chunks(2)
            .map(|pair| {
                let margin = |o: &Outcome| {
                    let g = o.side_bots.iter().position(|b| b == "greedy").unwrap();
                    (o.totals[g] - o.totals[1 - g]) as f64
                };
                (margin(&pair[0]) + margin(&pair[1])) / (pair[0].deals + pair[1].deals) as f64
            })
            .sum::<f64>()
            / 3.0;
        assert!((greedy.points_per_deal - by_hand).abs() < 1e-9);
    }

    // Regression: with three sides, duplicate mode moved the bots one seat on only (two of the
    // three orientations), and named each side apart, splitting a bot's record.
    #[test]
    fn duplicate_matches_move_the_bots_round_three_sides() {
        for (players, bots) in [(3, "greedy,random,safe"), (6, "greedy,random,safe")] {
            let (plan, _) = plan(players, bots, None, 2);
            let outcomes = run(&plan);
            assert_eq!(outcomes.len(), 6, "{players} players");
            for seed in outcomes.chunks(3) {
                assert!(seed.iter().all(|o| o.seed == seed[0].seed));
                assert_eq!(
                    seed.iter().map(|o| o.rotation).collect::<Vec<_>>(),
                    [0, 1, 2]
                );
                // Each bot plays each side once per seed.
                for bot in ["greedy", "random", "safe"] {
                    let mut sides: Vec<usize> = seed
                        .iter()
                        .map(|o| o.side_bots.iter().position(|b| b == bot).unwrap())
                        .collect();
                    sides.sort();
                    assert_eq!(sides, [0, 1, 2], "{players} players, {bot}");
                }
            }
            let s = summarize(&outcomes, 1.0);
            assert_eq!(s.bots.len(), 3);
            assert!(s.bots.values().all(|r| r.played == 6), "{:?}", s.bots);
        }
        // Bots on several sides: one record per bot.
        let (plan, _) = plan(3, "", Some("random,greedy,random"), 2);
        let outcomes = run(&plan);
        assert_eq!(outcomes.len(), 6);
        let s = summarize(&outcomes, 1.0);
        assert_eq!(
            s.bots.keys().collect::<Vec<_>>(),
            ["greedy", "random"],
            "{:?}",
            s.bots
        );
        assert_eq!(s.bots["random"].played, 6);
        assert_eq!(
            s.bots["random"].wins + s.bots["greedy"].wins,
            6 - s.unfinished
        );
    }

    // Regression: the seats of a match over a server were awaited in order, so a seat that
    // failed after another one started waiting for it left the match hanging forever.
    #[tokio::test]
    async fn a_match_fails_as_soon_as_one_seat_fails() {
        let mut tasks = tokio::task::JoinSet::new();
        let (_keep, never) = tokio::sync::oneshot::channel::<()>();
        tasks.spawn(async move {
            let _ = never.await;
            Ok(0)
        });
        tasks.spawn(async { Err(anyhow::anyhow!("seat 1 (random): refused")) });
        let r = tokio::time::timeout(std::time::Duration::from_secs(10), first_of_all(tasks))
            .await
            .expect("no waiting for the seat that still plays");
        assert_eq!(
            r.map_err(|e| e.to_string()).err().as_deref(),
            Some("seat 1 (random): refused")
        );
        let mut tasks = tokio::task::JoinSet::new();
        for k in 0..3 {
            tasks.spawn(async move { anyhow::Ok(k) });
        }
        assert!(matches!(first_of_all(tasks).await, Ok(Some(_))));
    }

    #[test]
    fn self_play_keeps_a_record_per_side() {
        let (plan, _) = plan(4, "greedy", None, 2);
        let outcomes = run(&plan);
        assert_eq!(
            outcomes[0].side_bots,
            vec!["greedy (side 0)", "greedy (side 1)"]
        );
        let s = summarize(&outcomes, 1.0);
        assert_eq!(s.bots["greedy (side 0)"].played, 4);
    }
}
