//! `canasta loadtest --seekers N`: measures matchmaking. N players register, then all seek a
//! game of the same rules at once (each its own Seek stream, the streams sharing
//! `--connections` HTTP/2 connections); the report gives the time from the start of the
//! seeks to each player's seat (p50, p90, p99, max), how many were seated, and the server's
//! resident memory before the seeks and once everyone sat. The games found are not played:
//! an in-process server stops after the run, and a server given by `--server` ends them as it
//! ends games that nobody plays (`--idle-timeout-secs`).

use std::sync::Arc;
use std::time::Duration;

use anyhow::anyhow;
use canasta_engine::RuleSpec;
use canasta_proto::convert::rules_to_wire;
use canasta_proto::v1;
use serde::Serialize;
use tokio::sync::{Barrier, mpsc};
use tokio::time::Instant;
use tokio_stream::StreamExt;

use crate::cli::LoadtestArgs;
use crate::loadtest::{InProcess, Latency, Memory, memory, parse_duration, require_loopback};
use crate::players::Lobby;
use crate::remote::{self, limited};

/// Registrations in flight at once.
const REGISTERING: usize = 64;

/// What a matchmaking run measured.
#[derive(Debug, Serialize)]
pub struct SeekReport {
    /// Where the server ran.
    pub server: String,
    /// Players that sought a game.
    pub seekers: usize,
    /// Seats per game.
    pub players: u8,
    /// HTTP/2 connections the players' streams shared (0: one each).
    pub connections: usize,
    /// Seconds to register every player (before the seeks).
    pub register_seconds: f64,
    /// Players seated within the run's time.
    pub seated: usize,
    /// Games they were seated in.
    pub games: usize,
    /// Microseconds from the start of the seeks to each seat (the seated players only).
    pub time_to_seat_us: Latency,
    /// Seeks that failed, with their reasons.
    pub errors: std::collections::BTreeMap<String, u64>,
    /// The server's memory once every player was registered, before the seeks.
    pub memory_before: Option<Memory>,
    /// The server's memory once the players were seated (their seeks closed, their games
    /// started), before the games are ended.
    pub memory_seated: Option<Memory>,
    /// True if the memory is this process's (an in-process server: the client's streams are
    /// counted in it too).
    pub memory_includes_client: bool,
}

/// How one player's seek ended.
enum Seat {
    /// Seated after this long, in this game.
    After(Duration, String),
    /// Failed, for this reason.
    Failed(String),
}

/// Runs the matchmaking load.
pub async fn run(n: usize, args: &LoadtestArgs, spec: RuleSpec) -> anyhow::Result<()> {
    let players = spec.players;
    if !n.is_multiple_of(usize::from(players)) {
        return Err(anyhow!(
            "{n} seekers cannot all be seated in games of {players}: give a multiple of {players}"
        ));
    }
    let deadline = parse_duration(&args.duration).map_err(anyhow::Error::msg)?;
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
    let result = measure(n, args, &spec, &addr, deadline, local.is_some()).await;
    if let Some(s) = local {
        s.stop().await;
    }
    let mut report = result?;
    report.server = label;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report_text(&report));
    }
    Ok(())
}

/// The server's memory: by its pid, or this process's when it runs here.
fn server_memory(args: &LoadtestArgs, in_process: bool) -> Option<Memory> {
    match (args.server_pid, in_process) {
        (Some(pid), _) => memory(Some(pid)),
        (None, true) => memory(None),
        (None, false) => None,
    }
}

async fn measure(
    n: usize,
    args: &LoadtestArgs,
    spec: &RuleSpec,
    addr: &str,
    deadline: Duration,
    in_process: bool,
) -> anyhow::Result<SeekReport> {
    let connections = match args.connections {
        0 => n,
        c => c.min(n),
    };
    let mut lobbies = Vec::with_capacity(connections);
    for _ in 0..connections {
        lobbies.push(Lobby::new(remote::channel(addr).await?));
    }
    // Names no earlier run on the same server took.
    let run: u32 = rand::random();
    let registering = Instant::now();
    let mut keys = vec![String::new(); n];
    let mut pending = tokio::task::JoinSet::new();
    let mut next = 0;
    while next < n || !pending.is_empty() {
        while next < n && pending.len() < REGISTERING {
            let mut lobby = lobbies[next % connections].clone();
            let (i, name) = (next, format!("seeker-{run:08x}-{next}"));
            pending.spawn(async move {
                let request = v1::RegisterPlayerRequest { name };
                let r = limited!(lobby.register_player(request.clone()).await)
                    .map(|r| r.into_inner().key)
                    .map_err(|s| {
                        anyhow!("cannot register the seekers: {}", remote::status_text(&s))
                    });
                (i, r)
            });
            next += 1;
        }
        if let Some(done) = pending.join_next().await {
            let (i, key) = done?;
            keys[i] = key?;
        }
    }
    let register_seconds = registering.elapsed().as_secs_f64();
    let memory_before = server_memory(args, in_process);
    let request = v1::SeekRequest {
        rules: Some(rules_to_wire(spec)),
        rated: Some(args.rules.options.is_empty()),
        ..Default::default()
    };
    // Every task opens its stream once all are ready: the seeks start together.
    let barrier = Arc::new(Barrier::new(n + 1));
    let (tx, mut rx) = mpsc::channel(n.max(1));
    let started = Arc::new(std::sync::OnceLock::<Instant>::new());
    for (i, key) in keys.into_iter().enumerate() {
        let mut lobby = lobbies[i % connections].clone();
        let (request, barrier, tx, started) = (
            request.clone(),
            barrier.clone(),
            tx.clone(),
            started.clone(),
        );
        tokio::spawn(async move {
            barrier.wait().await;
            let start = *started.get_or_init(Instant::now);
            let seat = async {
                let mut stream = lobby
                    .seek(remote::authed(request, &key))
                    .await
                    .map_err(|s| reason(&s))?
                    .into_inner();
                while let Some(m) = stream.next().await {
                    if let Some(v1::seek_response::Kind::Seated(s)) =
                        m.map_err(|s| reason(&s))?.kind
                    {
                        return Ok(Seat::After(start.elapsed(), s.game_id));
                    }
                }
                Err("the stream ended without a seat".to_string())
            }
            .await;
            let _ = tx.send(seat.unwrap_or_else(Seat::Failed)).await;
        });
    }
    drop(tx);
    barrier.wait().await;
    let begun = *started.get_or_init(Instant::now);
    let mut times = Vec::with_capacity(n);
    let mut games = std::collections::HashSet::new();
    let mut errors = std::collections::BTreeMap::new();
    let end = begun + deadline;
    loop {
        match tokio::time::timeout_at(end, rx.recv()).await {
            Ok(Some(Seat::After(d, game))) => {
                times.push(d.as_micros() as u64);
                games.insert(game);
            }
            Ok(Some(Seat::Failed(why))) => *errors.entry(why).or_insert(0) += 1,
            Ok(None) => break,
            Err(_) => {
                *errors.entry("NOT_SEATED_IN_TIME".to_string()).or_insert(0) +=
                    (n - times.len() - errors.values().sum::<u64>() as usize) as u64;
                break;
            }
        }
    }
    let memory_seated = server_memory(args, in_process);
    Ok(SeekReport {
        server: String::new(),
        seekers: n,
        players: spec.players,
        connections: args.connections,
        register_seconds,
        seated: times.len(),
        games: games.len(),
        time_to_seat_us: Latency::of(&mut times),
        errors,
        memory_before,
        memory_seated,
        memory_includes_client: in_process && args.server_pid.is_none(),
    })
}

/// A failed seek's reason: the server's, or the code's name.
fn reason(s: &tonic::Status) -> String {
    canasta_proto::reason::raw_reason_of(s)
        .unwrap_or_else(|| canasta_proto::reason::code_name(s.code()).to_string())
}

/// The report as text.
fn report_text(r: &SeekReport) -> String {
    let ms = |us: u64| us as f64 / 1000.0;
    let t = &r.time_to_seat_us;
    let mut out = format!(
        "server: {}\n{} players registered in {:.2} s, then sought games of {} at once over {}\n\
         seated: {} of {}, in {} games\n\
         time to seat (ms): p50 {:.1} p90 {:.1} p99 {:.1} max {:.1} mean {:.1}\n",
        r.server,
        r.seekers,
        r.register_seconds,
        r.players,
        match r.connections {
            0 => "a connection each".to_string(),
            1 => "1 shared connection".to_string(),
            c => format!("{c} shared connections"),
        },
        r.seated,
        r.seekers,
        r.games,
        ms(t.p50),
        ms(t.p90),
        ms(t.p99),
        ms(t.max),
        ms(t.mean),
    );
    for (k, v) in &r.errors {
        out += &format!("errors: {k}: {v}\n");
    }
    if let (Some(b), Some(a)) = (r.memory_before, r.memory_seated) {
        out += &format!(
            "{} memory: resident {} KiB before the seeks, {} KiB once seated (peak {} KiB){}\n",
            if r.memory_includes_client {
                "this process's"
            } else {
                "server"
            },
            b.vm_rss_kib,
            a.vm_rss_kib,
            a.vm_hwm_kib,
            if r.memory_includes_client {
                " (server and clients)"
            } else {
                ""
            }
        );
    }
    out
}
