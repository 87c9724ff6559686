//! `canasta loadtest`: measures a server under load through the public protocol, as third-party
//! bots would load it. Games of built-in bots run concurrently, each seat a separate client
//! with its own Play call, acting on the prompts it receives (which carry its view) by sending
//! the action on the same call (`--unary`: a watch stream and a SubmitAction call per move).
//! The seats share a few HTTP/2 connections (`--connections`), as a host of many bots would,
//! the seats of a game on the same one; `--connections 0` gives each seat its own. Finished
//! games are replaced by new ones until the time is up. The report counts games and actions,
//! the latency from submitting an action to receiving its first event on the actor's own
//! stream, errors by reason, the server's resident memory and the CPU time per action.
//!
//! `--idle-games N` measures memory instead: it creates N games that wait for players on an
//! in-process, in-memory server and reports the resident memory they add.
//!
//! Loopback only, and bounded in games and time.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow};
use canasta_engine::RuleSpec;
use canasta_engine::bot::{self, Bot};
use canasta_proto::v1;
use serde::Serialize;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tonic::Status;

use crate::cli::LoadtestArgs;
use crate::local::{self, LocalServer};
use crate::play;
use crate::remote::{self, Client, SeatClient};

/// Most games in flight at once.
pub const MAX_GAMES: usize = 1024;
/// Longest run.
pub const MAX_DURATION: Duration = Duration::from_secs(3600);
/// Most idle games created.
const MAX_IDLE_GAMES: usize = 1_000_000;

/// What a load run measured.
#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// Where the server ran: "in-process sqlite", "in-process memory" or its address.
    pub server: String,
    /// Games played at once.
    pub concurrent_games: usize,
    /// HTTP/2 connections the seats shared (0: one per seat).
    pub connections: usize,
    /// How seats submitted actions: "play" (one Play call per seat) or "unary" (a SubmitAction
    /// call per action, beside a WatchGame stream).
    pub submit: String,
    /// Seats per game.
    pub players: u8,
    /// The bot in every seat.
    pub bot: String,
    /// Seconds from the first game's creation to the last seat's stop.
    pub seconds: f64,
    /// Games created.
    pub games_started: u64,
    /// Games played to the end of the match.
    pub games_finished: u64,
    /// Actions the server acknowledged.
    pub actions: u64,
    /// Actions acknowledged per second.
    pub actions_per_second: f64,
    /// Submit-to-event latency, microseconds.
    pub latency_us: Latency,
    /// Failed requests by reason.
    pub errors: BTreeMap<String, u64>,
    /// The server's memory at the end, if it could be read.
    pub memory: Option<Memory>,
    /// CPU time per acknowledged action, if it could be read.
    pub cpu: Option<Cpu>,
}

/// CPU time (user and system) used during the run, per acknowledged action, in microseconds.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Cpu {
    /// This process: the load generator, and the server when it runs in it.
    pub this_process_us_per_action: f64,
    /// The server, when it runs in a process of its own (`--server-pid`).
    pub server_us_per_action: Option<f64>,
}

/// Clock ticks per second of the times in /proc/PID/stat (`USER_HZ`, 100 on Linux).
const USER_HZ: f64 = 100.0;

/// The CPU time process `pid` (or this process) has used so far, user and system, in seconds;
/// none where /proc cannot be read.
pub fn cpu_seconds(pid: Option<u32>) -> Option<f64> {
    let path = match pid {
        Some(p) => PathBuf::from(format!("/proc/{p}/stat")),
        None => PathBuf::from("/proc/self/stat"),
    };
    let ticks = stat_cpu_ticks(&std::fs::read_to_string(path).ok()?)?;
    Some(ticks as f64 / USER_HZ)
}

/// utime + stime from a /proc/PID/stat line. The fields are read after the command's name,
/// which is in parentheses and may hold spaces and parentheses itself.
fn stat_cpu_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    // After the name: state is field 3 of the line; utime and stime are fields 14 and 15.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    Some(utime + stime)
}

/// Latency percentiles, in microseconds.
#[derive(Debug, Default, Serialize)]
pub struct Latency {
    /// Latencies measured.
    pub count: u64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// The slowest.
    pub max: u64,
    /// The mean.
    pub mean: u64,
}

impl Latency {
    /// Percentiles of `samples` (sorted here), nearest-rank.
    pub fn of(samples: &mut [u64]) -> Latency {
        if samples.is_empty() {
            return Latency::default();
        }
        samples.sort_unstable();
        let at = |p: f64| {
            let rank = ((p * samples.len() as f64).ceil() as usize).clamp(1, samples.len());
            samples[rank - 1]
        };
        Latency {
            count: samples.len() as u64,
            p50: at(0.50),
            p90: at(0.90),
            p99: at(0.99),
            max: samples[samples.len() - 1],
            mean: samples.iter().sum::<u64>() / samples.len() as u64,
        }
    }
}

/// A process's memory, from /proc/PID/status.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Memory {
    /// Resident now, KiB.
    pub vm_rss_kib: u64,
    /// Highest resident, KiB.
    pub vm_hwm_kib: u64,
}

/// The memory of process `pid`, or of this process; none where /proc cannot be read.
pub fn memory(pid: Option<u32>) -> Option<Memory> {
    let path = match pid {
        Some(p) => PathBuf::from(format!("/proc/{p}/status")),
        None => PathBuf::from("/proc/self/status"),
    };
    let text = std::fs::read_to_string(path).ok()?;
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    Some(Memory {
        vm_rss_kib: field("VmRSS:")?,
        vm_hwm_kib: field("VmHWM:")?,
    })
}

/// What an idle-games run measured.
#[derive(Debug, Serialize)]
pub struct IdleReport {
    /// Games created, each waiting for its players.
    pub idle_games: usize,
    /// Seats per game.
    pub players: u8,
    /// Resident memory of this process (client and in-memory server) before creating them, KiB.
    pub rss_before_kib: u64,
    /// Resident memory after, KiB.
    pub rss_after_kib: u64,
    /// Highest resident memory, KiB.
    pub hwm_kib: u64,
    /// (after - before) / games.
    pub bytes_per_game: u64,
    /// Seconds to create them.
    pub seconds: f64,
}

/// Reads a duration: `10s`, `500ms`, `2m`, or seconds as a bare number.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t, 1.0)
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(Duration::from_secs_f64(v * scale)),
        _ => Err(format!(
            "{text:?} is not a duration: write e.g. 10s, 500ms or 2m"
        )),
    }
}

/// A server started in this process for the run; stopped by `stop`. Its files are removed
/// when it is dropped, also when the run ends early with an error.
pub(crate) struct InProcess {
    server: LocalServer,
    pub(crate) addr: String,
    dir: Option<tempfile::TempDir>,
}

impl InProcess {
    /// Starts a server on a free loopback port: in memory, or with a SQLite file in a fresh
    /// temporary directory. Rate limits are lifted: the run measures throughput, not limits.
    pub(crate) async fn start(memory: bool) -> anyhow::Result<InProcess> {
        let dir = if memory {
            None
        } else {
            let dir = tempfile::Builder::new()
                .prefix("canasta-loadtest-")
                .tempdir()
                .with_context(|| {
                    format!(
                        "cannot create a temporary directory in {} for the database (set \
                         TMPDIR to a writable directory, or pass --memory)",
                        std::env::temp_dir().display()
                    )
                })?;
            Some(dir)
        };
        let db = dir.as_ref().map(|d| d.path().join("loadtest.db"));
        let server = local::for_load(db.as_deref()).await?;
        Ok(InProcess {
            addr: server.addr().to_string(),
            server,
            dir,
        })
    }

    /// Stops the server (its streams end, storage closes), then removes its files.
    pub(crate) async fn stop(self) {
        if let Err(e) = self.server.shutdown().await {
            eprintln!("the local server stopped: {e:#}");
        }
        drop(self.dir);
    }
}

/// Fails unless every address `addr` names is a loopback one: the load generator must not load
/// anyone else's server.
pub(crate) async fn require_loopback(addr: &str) -> anyhow::Result<()> {
    let host = addr.split("://").last().unwrap_or(addr);
    let resolved: Vec<SocketAddr> = tokio::net::lookup_host(host)
        .await
        .with_context(|| format!("cannot resolve {addr} (give host:port, e.g. 127.0.0.1:50051)"))?
        .collect();
    if resolved.is_empty() || !resolved.iter().all(|a| a.ip().is_loopback()) {
        return Err(anyhow!(
            "{addr} is not a loopback address: loadtest only targets a server on this machine"
        ));
    }
    Ok(())
}

/// The reason of a failed request: the server's (one this client knows or not), or the gRPC
/// code's canonical name (`UNAVAILABLE`), as the report's JSON keys show them.
fn reason(s: &Status) -> String {
    canasta_proto::reason::raw_reason_of(s)
        .unwrap_or_else(|| canasta_proto::reason::code_name(s.code()).to_string())
}

/// What one seat counted in one game.
#[derive(Default)]
struct SeatStats {
    actions: u64,
    latencies: Vec<u64>,
    errors: BTreeMap<String, u64>,
    finished: bool,
}

impl SeatStats {
    fn error(&mut self, reason: impl Into<String>) {
        *self.errors.entry(reason.into()).or_default() += 1;
    }
}

/// Totals over every seat and game.
#[derive(Default)]
struct Totals {
    games_finished: u64,
    actions: u64,
    latencies: Vec<u64>,
    errors: BTreeMap<String, u64>,
}

impl Totals {
    fn error(&mut self, reason: String) {
        *self.errors.entry(reason).or_default() += 1;
    }

    fn add(&mut self, s: SeatStats, first_seat: bool) {
        self.actions += s.actions;
        self.latencies.extend(s.latencies);
        for (k, v) in s.errors {
            *self.errors.entry(k).or_default() += v;
        }
        if first_seat && s.finished {
            self.games_finished += 1;
        }
    }
}

/// The run's settings, shared by its game slots.
struct Plan {
    addr: String,
    spec: RuleSpec,
    bot: String,
    seed: u64,
    deadline: Instant,
    max_games_total: u64,
    games_started: AtomicU64,
    /// The shared connections (empty: a connection per seat).
    pool: Vec<Client>,
    /// Seats submit with SubmitAction calls rather than over a Play call.
    unary: bool,
}

/// Runs `canasta loadtest`.
pub async fn loadtest(args: LoadtestArgs) -> anyhow::Result<()> {
    let spec = play::spec(&args.rules)?;
    if bot::by_name(&args.bots, 0).is_none() {
        return Err(anyhow!(
            "there is no bot {:?}: the bots are {}",
            args.bots,
            bot::BOT_NAMES.join(", ")
        ));
    }
    if let Some(n) = args.idle_games {
        return idle(n, &spec, args.json).await;
    }
    if let Some(n) = args.seekers {
        return crate::seekload::run(n, &args, spec).await;
    }
    // The command line checked the ranges (`cli::loadtest_games`, `cli::loadtest_duration`).
    let duration = parse_duration(&args.duration).map_err(anyhow::Error::msg)?;
    let (local, addr, label) = match &args.server {
        Some(addr) => {
            require_loopback(addr).await?;
            (None, addr.clone(), addr.clone())
        }
        None => {
            let s = InProcess::start(args.memory).await?;
            let addr = s.addr.clone();
            let label = if args.memory {
                "in-process memory"
            } else {
                "in-process sqlite"
            };
            (Some(s), addr, label.to_string())
        }
    };
    // This process's CPU time, and the server's when it runs apart.
    let cpu_now = || {
        (
            cpu_seconds(None),
            args.server_pid.and_then(|p| cpu_seconds(Some(p))),
        )
    };
    let cpu_before = cpu_now();
    let result = run(&args, spec, addr, duration).await;
    let cpu_after = cpu_now();
    // The memory is read before the server stops; an external one is read by its pid.
    let memory = match (&local, args.server_pid) {
        (_, Some(pid)) => memory(Some(pid)),
        (Some(_), None) => memory(None),
        (None, None) => None,
    };
    if let Some(s) = local {
        s.stop().await;
    }
    let mut report = result?;
    report.server = label;
    report.memory = memory;
    let per_action = |before: Option<f64>, after: Option<f64>| {
        let used = after? - before?;
        (report.actions > 0).then(|| used * 1e6 / report.actions as f64)
    };
    report.cpu = per_action(cpu_before.0, cpu_after.0).map(|this| Cpu {
        this_process_us_per_action: this,
        server_us_per_action: per_action(cpu_before.1, cpu_after.1),
    });
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report_text(&report));
    }
    Ok(())
}

async fn run(
    args: &LoadtestArgs,
    spec: RuleSpec,
    addr: String,
    duration: Duration,
) -> anyhow::Result<Report> {
    let players = spec.players;
    let started = Instant::now();
    let mut pool = Vec::new();
    for _ in 0..args.connections {
        pool.push(remote::connect(&addr).await?);
    }
    let plan = Arc::new(Plan {
        pool,
        addr,
        spec,
        bot: args.bots.clone(),
        seed: args.seed,
        deadline: started + duration,
        max_games_total: args.max_games_total.unwrap_or(u64::MAX),
        games_started: AtomicU64::new(0),
        unary: args.unary,
    });
    let mut slots = Vec::new();
    for slot in 0..args.games {
        slots.push(tokio::spawn(run_slot(plan.clone(), slot as u64)));
    }
    let mut totals = Totals::default();
    let mut failure = None;
    for s in slots {
        match s.await {
            Ok(Ok(t)) => {
                totals.games_finished += t.games_finished;
                totals.actions += t.actions;
                totals.latencies.extend(t.latencies);
                for (k, v) in t.errors {
                    *totals.errors.entry(k).or_default() += v;
                }
            }
            Ok(Err(e)) => {
                failure.get_or_insert(e);
            }
            Err(e) => {
                failure.get_or_insert(anyhow::Error::new(e).context("a game slot failed"));
            }
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if let Some(e) = failure
        && totals.actions == 0
    {
        return Err(e);
    }
    Ok(Report {
        server: String::new(),
        concurrent_games: args.games,
        connections: args.connections,
        submit: if args.unary { "unary" } else { "play" }.to_string(),
        players,
        bot: args.bots.clone(),
        seconds,
        games_started: plan.games_started.load(Ordering::Relaxed),
        games_finished: totals.games_finished,
        actions: totals.actions,
        actions_per_second: totals.actions as f64 / seconds,
        latency_us: Latency::of(&mut totals.latencies),
        errors: totals.errors,
        memory: None,
        cpu: None,
    })
}

/// One game slot: plays games one after another until the time or the game count runs out. Its
/// seats keep their connections from game to game. With shared connections, all seats of a slot
/// use the same one, as a host that runs whole games of bots would: an action's messages to
/// the seats of its game then go out on one connection, together.
async fn run_slot(plan: Arc<Plan>, slot: u64) -> anyhow::Result<Totals> {
    let mut totals = Totals::default();
    let mut clients = Vec::new();
    for _ in 0..plan.spec.players {
        clients.push(if plan.pool.is_empty() {
            remote::connect(&plan.addr).await?
        } else {
            let i = slot as usize % plan.pool.len();
            plan.pool[i].clone()
        });
    }
    let mut bots: Vec<Box<dyn Bot>> = (0..plan.spec.players as u64)
        .map(|s| bot::by_name(&plan.bot, plan.seed ^ (slot << 8) ^ s).expect("checked"))
        .collect();
    let mut round = 0u64;
    while Instant::now() < plan.deadline {
        if plan.games_started.fetch_add(1, Ordering::Relaxed) >= plan.max_games_total {
            plan.games_started.fetch_sub(1, Ordering::Relaxed);
            break;
        }
        let seed = plan.seed.wrapping_add(slot << 20).wrapping_add(round);
        round += 1;
        let game = match play::create(&mut clients[0], &plan.spec, Some(seed), &[]).await {
            Ok(g) => g,
            Err(e) => {
                totals.error(format!("CREATE: {e}"));
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        let mut seats = Vec::new();
        for (s, client) in clients.iter_mut().enumerate() {
            let name = format!("{} {s}", plan.bot);
            match SeatClient::join(client, &plan.addr, &game.game_id, Some(s as u32), &name).await {
                Ok(seat) => seats.push(seat),
                Err(e) => {
                    totals.error(format!("JOIN: {e}"));
                    break;
                }
            }
        }
        if seats.len() < clients.len() {
            continue;
        }
        let tasks: Vec<_> = clients
            .drain(..)
            .zip(bots.drain(..))
            .zip(seats)
            .map(|((client, bot), seat)| {
                if plan.unary {
                    tokio::spawn(play_seat_unary(client, seat, bot, plan.deadline))
                } else {
                    tokio::spawn(play_seat(client, seat, bot, plan.deadline))
                }
            })
            .collect();
        for (i, t) in tasks.into_iter().enumerate() {
            let (client, bot, stats) = t.await.context("a seat failed")?;
            clients.push(client);
            bots.push(bot);
            totals.add(stats, i == 0);
        }
    }
    Ok(totals)
}

/// What a seat's loop keeps of its stream: the seq of the last event, and the action in
/// flight (the seq of its first event, and when it was sent).
#[derive(Default)]
struct Progress {
    last: u64,
    pending: Option<(u64, Instant)>,
}

impl Progress {
    /// Notes an event that arrived at `at` (an event seen before is skipped), with the latency
    /// of the action in flight if it is that action's first event. True if the match ended.
    fn event(&mut self, e: &v1::GameEvent, at: Instant, stats: &mut SeatStats) -> bool {
        if e.seq <= self.last {
            return false;
        }
        self.last = e.seq;
        if let Some((seq, sent)) = self.pending
            && e.seq >= seq
        {
            if e.seq == seq {
                stats
                    .latencies
                    .push(at.saturating_duration_since(sent).as_micros() as u64);
            }
            self.pending = None;
        }
        let ended = matches!(e.kind, Some(v1::game_event::Kind::MatchEnded(_)));
        stats.finished |= ended;
        ended
    }
}

/// Plays one seat over one Play call until the match ends or the time is up: on each prompt
/// (which carries the view) lets the bot choose and sends the action on the same call. Nothing
/// waits for an action's result, so each message is stamped as it arrives, and the latency of
/// an action is the time from sending it to receiving its first event.
async fn play_seat(
    mut client: Client,
    mut seat: SeatClient,
    bot: Box<dyn Bot>,
    deadline: Instant,
) -> (Client, Box<dyn Bot>, SeatStats) {
    let mut stats = SeatStats::default();
    let mut call = match seat.open_play(&mut client, 0).await {
        Ok(c) => c,
        Err(s) => {
            stats.error(format!("PLAY: {}", reason(&s)));
            return (client, bot, stats);
        }
    };
    let mut bot = bot;
    let mut progress = Progress::default();
    let stop = tokio::time::sleep_until(deadline.into());
    tokio::pin!(stop);
    loop {
        let message = tokio::select! {
            m = call.responses.next() => match m {
                Some(Ok(m)) => m,
                Some(Err(s)) => {
                    stats.error(format!("PLAY: {}", reason(&s)));
                    break;
                }
                None => {
                    stats.error("STREAM_ENDED");
                    break;
                }
            },
            _ = &mut stop => break,
        };
        let at = Instant::now();
        use v1::play_response::Kind as Play;
        use v1::watch_game_response::Kind;
        let update = match message.kind {
            Some(Play::Update(u)) => u.kind,
            Some(Play::Result(r)) => {
                match r.error {
                    None => stats.actions += 1,
                    Some(e) => {
                        progress.pending = None;
                        stats.error(e.reason);
                    }
                }
                continue;
            }
            None => continue,
        };
        match update {
            // Every event is noted here; the loop ends with the match.
            Some(Kind::Event(e)) if progress.event(&e, at, &mut stats) => break,
            Some(Kind::Prompt(p)) if p.seq == progress.last => {
                if Instant::now() >= deadline {
                    break;
                }
                let (view, seq) = match seat.prompt_view(&p) {
                    Some(Ok(v)) => v,
                    Some(Err(e)) => {
                        stats.error(format!("VIEW: {e}"));
                        continue;
                    }
                    None => {
                        stats.error("PROMPT_WITHOUT_VIEW");
                        break;
                    }
                };
                let Some(legal) = view.legal() else {
                    continue;
                };
                let action = bot.choose(&view, &legal);
                progress.pending = Some((seq + 1, Instant::now()));
                if !call.submit(seat.submit_request(seq, &action)).await {
                    stats.error("PLAY_CLOSED");
                    break;
                }
            }
            Some(Kind::Lagged(_)) => {
                stats.error("LAGGED");
                break;
            }
            _ => {}
        }
    }
    (client, bot, stats)
}

/// Plays one seat as [`play_seat`] does, with a WatchGame stream and a SubmitAction call per
/// action. It reads its own watch stream, and on each prompt lets the bot choose from the view in the prompt and submits. A separate task reads the
/// stream and stamps each message as it arrives, so the latency of an action is the time from
/// sending it to receiving its first event, whatever the seat does meanwhile.
async fn play_seat_unary(
    mut client: Client,
    mut seat: SeatClient,
    mut bot: Box<dyn Bot>,
    deadline: Instant,
) -> (Client, Box<dyn Bot>, SeatStats) {
    let mut stats = SeatStats::default();
    let mut stream = match seat.watch(&mut client, 0).await {
        Ok(s) => s,
        Err(s) => {
            stats.error(format!("WATCH: {}", reason(&s)));
            return (client, bot, stats);
        }
    };
    let (tx, mut rx) = mpsc::unbounded_channel();
    let reader = tokio::spawn(async move {
        while let Some(m) = stream.next().await {
            if tx.send((Instant::now(), m)).is_err() {
                break;
            }
        }
    });
    let mut progress = Progress::default();
    let stop = tokio::time::sleep_until(deadline.into());
    tokio::pin!(stop);
    loop {
        let (at, message) = tokio::select! {
            m = rx.recv() => match m {
                Some(m) => m,
                None => {
                    stats.error("STREAM_ENDED");
                    break;
                }
            },
            _ = &mut stop => break,
        };
        let message = match message {
            Ok(m) => m,
            Err(s) => {
                stats.error(format!("WATCH: {}", reason(&s)));
                break;
            }
        };
        use v1::watch_game_response::Kind;
        match message.kind {
            // Every event is noted here; the loop ends with the match.
            Some(Kind::Event(e)) if progress.event(&e, at, &mut stats) => break,
            Some(Kind::Prompt(p)) if p.seq == progress.last => {
                if Instant::now() >= deadline {
                    break;
                }
                // The view comes with the prompt; a server that sends none is asked for it.
                let view = match seat.prompt_view(&p) {
                    Some(v) => v,
                    None => seat.view(&mut client).await.map(|(v, seq, _)| (v, seq)),
                };
                let (view, seq) = match view {
                    Ok(v) => v,
                    Err(e) => {
                        stats.error(format!("VIEW: {e}"));
                        continue;
                    }
                };
                let Some(legal) = view.legal() else {
                    continue;
                };
                let action = bot.choose(&view, &legal);
                progress.pending = Some((seq + 1, Instant::now()));
                match seat.submit(&mut client, seq, &action).await {
                    Ok(_) => stats.actions += 1,
                    Err(s) => {
                        progress.pending = None;
                        stats.error(reason(&s));
                    }
                }
            }
            Some(Kind::Lagged(_)) => {
                stats.error("LAGGED");
                break;
            }
            _ => {}
        }
    }
    reader.abort();
    (client, bot, stats)
}

/// Creates `n` games that wait for players on an in-process, in-memory server, and measures the
/// resident memory they add.
async fn idle(n: usize, spec: &RuleSpec, json: bool) -> anyhow::Result<()> {
    if n == 0 || n > MAX_IDLE_GAMES {
        return Err(anyhow!(
            "--idle-games {n} is out of range: create 1 to {MAX_IDLE_GAMES} games"
        ));
    }
    let server = InProcess::start(true).await?;
    const CLIENTS: usize = 8;
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        clients.push(remote::connect(&server.addr).await?);
    }
    // Warm up: the first requests allocate the connections' buffers and the runtime's pools.
    // These games are counted in neither figure.
    for c in &mut clients {
        for _ in 0..4 {
            play::create(c, spec, Some(0), &[]).await?;
        }
    }
    let before =
        memory(None).context("cannot read /proc/self/status: the memory test needs Linux")?;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for (i, mut c) in clients.into_iter().enumerate() {
        let count = n / CLIENTS + usize::from(i < n % CLIENTS);
        let spec = spec.clone();
        tasks.push(tokio::spawn(async move {
            for k in 0..count {
                play::create(&mut c, &spec, Some(k as u64), &[]).await?;
            }
            anyhow::Ok(c)
        }));
    }
    let mut kept = Vec::new();
    for t in tasks {
        kept.push(t.await??);
    }
    let seconds = started.elapsed().as_secs_f64();
    let after = memory(None).context("cannot read /proc/self/status")?;
    drop(kept);
    server.stop().await;
    let report = IdleReport {
        idle_games: n,
        players: spec.players,
        rss_before_kib: before.vm_rss_kib,
        rss_after_kib: after.vm_rss_kib,
        hwm_kib: after.vm_hwm_kib,
        bytes_per_game: after.vm_rss_kib.saturating_sub(before.vm_rss_kib) * 1024 / n as u64,
        seconds,
    };
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!(
            "{} idle games ({} players): resident {} KiB before, {} KiB after (peak {} KiB): {} bytes per game; created in {:.1} s",
            report.idle_games,
            report.players,
            report.rss_before_kib,
            report.rss_after_kib,
            report.hwm_kib,
            report.bytes_per_game,
            report.seconds
        );
    }
    Ok(())
}

fn report_text(r: &Report) -> String {
    let mut out = format!(
        "server: {}\n{} games at once, {} {} bots each, {}, {}, {:.1} s\ngames: {} started, {} finished\nactions: {} ({:.0} per second)\nsubmit-to-event latency (us): p50 {} p90 {} p99 {} max {} mean {} over {}\n",
        r.server,
        r.concurrent_games,
        r.players,
        r.bot,
        match r.connections {
            0 => "a connection per seat".to_string(),
            1 => "1 shared connection".to_string(),
            n => format!("{n} shared connections"),
        },
        if r.submit == "unary" {
            "a SubmitAction call per action"
        } else {
            "a Play call per seat"
        },
        r.seconds,
        r.games_started,
        r.games_finished,
        r.actions,
        r.actions_per_second,
        r.latency_us.p50,
        r.latency_us.p90,
        r.latency_us.p99,
        r.latency_us.max,
        r.latency_us.mean,
        r.latency_us.count,
    );
    if r.errors.is_empty() {
        out.push_str("errors: none\n");
    } else {
        for (k, v) in &r.errors {
            out.push_str(&format!("errors: {k}: {v}\n"));
        }
    }
    if let Some(m) = r.memory {
        out.push_str(&format!(
            "server memory: resident {} KiB, peak {} KiB\n",
            m.vm_rss_kib, m.vm_hwm_kib
        ));
    }
    if let Some(c) = r.cpu {
        match c.server_us_per_action {
            Some(server) => out.push_str(&format!(
                "cpu per action (us): server {server:.1}, load generator {:.1}\n",
                c.this_process_us_per_action
            )),
            None => out.push_str(&format!(
                "cpu per action (us): {:.1} for this process{}\n",
                c.this_process_us_per_action,
                if r.server.starts_with("in-process") {
                    " (server and load generator)"
                } else {
                    " (load generator)"
                }
            )),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_times_are_read_after_the_command_name() {
        let line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 31 0 0 20 0 3 0";
        assert_eq!(stat_cpu_ticks(line), Some(281));
        assert_eq!(stat_cpu_ticks("4242 (short) S 1"), None);
        assert_eq!(stat_cpu_ticks("no name at all"), None);
        let this = cpu_seconds(None).expect("this process's times");
        assert!(this >= 0.0);
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let mut samples: Vec<u64> = (1..=100).rev().collect();
        let l = Latency::of(&mut samples);
        assert_eq!(
            (l.count, l.p50, l.p90, l.p99, l.max, l.mean),
            (100, 50, 90, 99, 100, 50)
        );
        assert_eq!(Latency::of(&mut []).count, 0);
    }

    // Regression: a failure without the service's reason was keyed by tonic's Debug text
    // ("DeadlineExceeded") in the report's JSON, beside reasons in the protocol's spelling.
    #[test]
    fn failures_without_a_reason_are_keyed_by_the_canonical_code_name() {
        assert_eq!(
            reason(&Status::deadline_exceeded("slow")),
            "DEADLINE_EXCEEDED"
        );
        assert_eq!(reason(&Status::unavailable("gone")), "UNAVAILABLE");
        for code in 0..=16 {
            let name = canasta_proto::reason::code_name(tonic::Code::from_i32(code));
            assert!(
                name.chars().all(|c| c.is_ascii_uppercase() || c == '_'),
                "{name}"
            );
        }
    }

    #[test]
    fn durations_read_with_their_unit() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
    }
}
