//! Fault tests: `canasta-server` runs as a process on an SQLite file while bots play concurrent
//! games through the public protocol; it is killed with SIGKILL at random moments and restarted
//! on the same database, again and again. Afterwards:
//!
//! - every acknowledged SubmitAction is in the game's log with the very events it was answered
//!   with (checked after each restart against GetGame's seq, and at the end event by event);
//! - every game was played to its end, each action applied once (a request cut off by a kill
//!   is resubmitted with the same request id and answered as the first time);
//! - a spectator of each game, resuming by seq after each kill, received every event once and
//!   in order, exactly as the engine replays the exported game.
//!
//! The normal test suite runs a bounded form (3 kills). A long run:
//!
//! ```sh
//! CANASTA_FAULT_KILLS=200 cargo test --release -p canasta-server --test faults -- --nocapture
//! ```
//!
//! `CANASTA_FAULT_GAMES` sets the number of concurrent games (default 4) and
//! `CANASTA_FAULT_SEED` fixes the random choices (the moves, and the moments of the kills,
//! counted in actions acknowledged); the run prints its counts. Nothing waits for time to
//! pass: a bot whose server is gone waits for the next one to be up.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use canasta_engine::rng::Xoshiro256;
use canasta_engine::{Event, Game, Phase, Seat, Viewer, redact};
use canasta_proto::convert::{event_to_wire, record_from_wire};
use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use canasta_proto::v1::game_event::Kind as Ev;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use tokio::sync::watch;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Status};

mod common;
use common::{Client, authed, started_game, temp_dir};

/// Longest wait for any one answer, or for the next server after a kill: a request to a
/// killed server fails at once, so only a server that hangs reaches it (a guard against a
/// hang, not a measured bound).
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

// ----- the server process -----

/// A running `canasta-server` process.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    /// Starts the server on `db` and a free loopback port, and waits for the address it prints.
    fn start(db: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_canasta-server"))
            .arg("--listen")
            .arg("127.0.0.1:0")
            .arg("--db")
            .arg(db)
            // The bots are fast and all come from 127.0.0.1: no limit may refuse them. Limits
            // another version may lack are set through the environment, which clap ignores.
            .env("CANASTA_REQUESTS_PER_SECOND", "1000000000")
            .env("CANASTA_ADDRESS_REQUESTS_PER_SECOND", "1000000000")
            .env("CANASTA_MAX_WATCHERS_PER_ADDRESS", "1000000")
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("canasta-server starts");
        let stdout = child.stdout.take().expect("a pipe");
        let (tx, rx) = std::sync::mpsc::channel();
        // Keeps reading stdout, so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(addr) = line.strip_prefix("listening on ") {
                    let _ = tx.send(addr.trim().to_string());
                }
            }
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the server prints its address")
            .parse()
            .expect("an address");
        Server { child, addr }
    }

    /// SIGKILL: no shutdown, no flush, nothing.
    fn kill(mut self) {
        self.child.kill().expect("the server is killed");
        self.child.wait().expect("the server is reaped");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The current server: a generation number and its address, for the bots to reconnect to.
type Current = watch::Receiver<(u64, SocketAddr)>;

/// A client of the server at `addr`, or none if it is gone (a killed server's port refuses at
/// once).
async fn connect(addr: SocketAddr) -> Option<Client> {
    let endpoint = Channel::from_shared(format!("http://{addr}")).expect("a uri");
    tokio::time::timeout(ANSWER_WITHIN, endpoint.connect())
        .await
        .unwrap_or_else(|_| panic!("no answer to a connection within {ANSWER_WITHIN:?}"))
        .ok()
        .map(CanastaServiceClient::new)
}

/// Waits for a server of a generation after `generation`, whose server failed: it was killed,
/// and the test starts the next one. A server that failed though it was not killed is never
/// followed, and fails the test.
async fn next_server(current: &Current, generation: u64) {
    let mut current = current.clone();
    tokio::time::timeout(ANSWER_WITHIN, current.wait_for(|&(g, _)| g > generation))
        .await
        .unwrap_or_else(|_| {
            panic!("server {generation} failed, and no other followed: it failed unkilled")
        })
        .expect("the test holds the sender");
}

/// A client of the current server and its generation; a server that is gone is followed by
/// the next.
async fn client_of(current: &Current) -> (u64, Client) {
    loop {
        let (generation, addr) = *current.borrow();
        match connect(addr).await {
            Some(c) => return (generation, c),
            None => next_server(current, generation).await,
        }
    }
}

/// True if a failed call says the server went away (killed, or not up yet) rather than
/// refusing the request: such a call is retried on the next server.
fn server_gone(status: &Status) -> bool {
    use canasta_proto::Reason;
    match canasta_proto::reason::raw_reason_of(status) {
        None => matches!(
            status.code(),
            Code::Unavailable
                | Code::Unknown
                | Code::Cancelled
                | Code::Internal
                | Code::DeadlineExceeded
        ),
        Some(r) => matches!(
            Reason::parse(&r),
            Some(Reason::StorageFailed | Reason::ShuttingDown)
        ),
    }
}

/// Calls `f` on a client of the current server until the server answers (an answer or a
/// refusal); a server that went away is followed by the next (`client` keeps the client and
/// its server's generation).
async fn call<T, F, Fut>(
    current: &Current,
    client: &mut Option<(u64, Client)>,
    mut f: F,
) -> Result<T, Status>
where
    F: FnMut(Client) -> Fut,
    Fut: std::future::Future<Output = Result<T, Status>>,
{
    loop {
        let (generation, c) = match client {
            Some((generation, c)) => (*generation, c.clone()),
            None => {
                let (generation, c) = client_of(current).await;
                *client = Some((generation, c.clone()));
                (generation, c)
            }
        };
        match tokio::time::timeout(ANSWER_WITHIN, f(c)).await {
            Ok(Ok(answer)) => return Ok(answer),
            Ok(Err(status)) if !server_gone(&status) => return Err(status),
            Ok(Err(_)) => {
                *client = None;
                next_server(current, generation).await;
            }
            Err(_) => panic!("the server did not answer within {ANSWER_WITHIN:?}"),
        }
    }
}

// ----- what the bots and watchers record -----

/// An acknowledged action: the answer the server gave.
#[derive(Clone, Debug)]
struct Ack {
    seat: u32,
    seq: u64,
    events: Vec<v1::GameEvent>,
}

/// The last seq answered to a SubmitAction of each game.
type Answered = Arc<Mutex<HashMap<String, u64>>>;

/// One game under test.
struct Played {
    id: String,
    tokens: Vec<String>,
    acks: Vec<Ack>,
    /// What its spectator received, in order.
    watched: Vec<v1::GameEvent>,
    /// Resubmissions of requests a kill cut off.
    retried: usize,
}

/// Plays a game with random legal moves until it is over; every action is resubmitted with
/// the same request id until the server answers it.
async fn bot(
    current: Current,
    id: String,
    tokens: Vec<String>,
    seed: u64,
    answered: Answered,
    acked: watch::Sender<usize>,
) -> (Vec<Ack>, usize) {
    let mut rng = Xoshiro256::seed_from_u64(seed);
    let mut client = None;
    let mut acks = Vec::new();
    let mut retried = 0;
    loop {
        let public = call(&current, &mut client, |mut c| {
            let id = id.clone();
            async move {
                c.get_view(v1::GetViewRequest {
                    game_id: id,
                    include_actions: false,
                })
                .await
            }
        })
        .await
        .expect("a spectator's view")
        .into_inner()
        .view
        .expect("a view");
        if public.status == v1::GameStatus::Finished as i32 {
            return (acks, retried);
        }
        let seat = public.to_act.expect("a seat to act");
        let token = tokens[seat as usize].clone();
        let mine = call(&current, &mut client, |mut c| {
            let request = authed(
                v1::GetViewRequest {
                    game_id: id.clone(),
                    include_actions: true,
                },
                &token,
            );
            async move { c.get_view(request).await }
        })
        .await
        .expect("the seat's view")
        .into_inner();
        let seq = mine.view.as_ref().expect("a view").seq;
        let legal = mine.legal.expect("the seat to act has choices");
        let action = legal.actions[rng.below(legal.actions.len() as u64) as usize].clone();
        let request = v1::SubmitActionRequest {
            game_id: id.clone(),
            expected_seq: seq,
            request_id: format!("{id}-{}", acks.len()),
            action: Some(action),
        };
        let mut attempts = 0;
        let answer = call(&current, &mut client, |mut c| {
            attempts += 1;
            let request = authed(request.clone(), &token);
            async move { c.submit_action(request).await }
        })
        .await
        .unwrap_or_else(|s| panic!("game {id}: a listed action (or its retry) refused: {s:?}"))
        .into_inner();
        retried += attempts - 1;
        answered
            .lock()
            .expect("not poisoned")
            .insert(id.clone(), answer.seq);
        acks.push(Ack {
            seat,
            seq: answer.seq,
            events: answer.events,
        });
        acked.send_modify(|n| *n += 1);
    }
}

/// Watches a game as a spectator to its end, resuming after the last seq received whenever
/// the stream breaks; every event must follow the one before.
async fn spectator(current: Current, id: String) -> Vec<v1::GameEvent> {
    let mut got: Vec<v1::GameEvent> = Vec::new();
    loop {
        let last = got.last().map_or(0, |e| e.seq);
        let (generation, mut client) = client_of(&current).await;
        let stream = client
            .watch_game(v1::WatchGameRequest {
                game_id: id.clone(),
                after_seq: last,
                include_actions: false,
                include_view: false,
            })
            .await;
        let mut stream = match stream {
            Ok(s) => s.into_inner(),
            Err(s) if server_gone(&s) => {
                next_server(&current, generation).await;
                continue;
            }
            Err(s) => panic!("game {id}: watching after {last} refused: {s:?}"),
        };
        loop {
            let message = match tokio::time::timeout(ANSWER_WITHIN, stream.next()).await {
                Ok(Some(Ok(m))) => m,
                // The stream broke (the server died) or ended: resume by seq.
                Ok(Some(Err(_))) | Ok(None) => break,
                Err(_) => panic!("game {id}: the watch stream stalled"),
            };
            match message.kind {
                Some(Msg::Event(e)) => {
                    let last = got.last().map_or(0, |e| e.seq);
                    assert_eq!(e.seq, last + 1, "game {id}: the spectator's events follow");
                    let ended = matches!(e.kind, Some(Ev::MatchEnded(_)));
                    got.push(e);
                    if ended {
                        return got;
                    }
                }
                Some(Msg::Lagged(_)) => break,
                _ => {}
            }
        }
    }
}

// ----- the truth -----

/// Every event of a finished game as the engine replays its export, with the server's own
/// events (joins in seat order, the start) first.
fn replay(record: &v1::GameRecord) -> (Vec<Ev>, Vec<Option<Event>>) {
    let (setup, actions) = record_from_wire(record).expect("a valid record");
    let (mut game, opening) = Game::start(&setup).expect("a valid setup");
    let players = game.rules().players as u32;
    let mut server: Vec<Ev> = (0..players)
        .map(|seat| {
            Ev::SeatJoined(v1::SeatJoined {
                seat,
                display_name: format!("player {seat}"),
            })
        })
        .collect();
    server.push(Ev::GameStarted(v1::GameStarted {}));
    let mut engine: Vec<Option<Event>> = vec![None; server.len()];
    engine.extend(opening.into_iter().map(Some));
    for (seat, action) in &actions {
        let events = game
            .apply(*seat, action)
            .unwrap_or_else(|e| panic!("the export replays: {action} refused: {e}"));
        engine.extend(events.into_iter().map(Some));
    }
    assert_eq!(game.phase(), Phase::Over, "the export replays to the end");
    (server, engine)
}

/// The event `seq` as `viewer` must see it.
fn event_for(
    truth: &(Vec<Ev>, Vec<Option<Event>>),
    seq: u64,
    viewer: Viewer,
) -> Option<v1::GameEvent> {
    let i = (seq as usize).checked_sub(1)?;
    let kind = match truth.1.get(i)? {
        Some(e) => event_to_wire(&redact(e, viewer)),
        None => Some(truth.0[i].clone()),
    };
    Some(v1::GameEvent { seq, kind })
}

// ----- the test -----

/// Counts of a run.
#[derive(Debug, Default)]
struct Counts {
    games: usize,
    kills: usize,
    kills_at_startup: usize,
    actions_acknowledged: usize,
    actions_lost: usize,
    games_behind_after_restart: usize,
    retries_after_kill: usize,
    events_watched: usize,
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Creates a game and takes every seat (the server is up and is not killed meanwhile).
async fn new_game(client: &mut Client, players: u32, seed: u64) -> (String, Vec<String>) {
    started_game(client, players, &[("target_score", "150")], seed).await
}

/// A fresh directory (removed when dropped) and the database's path in it.
fn temp_db(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = temp_dir(name);
    let db = dir.path().join("games.db");
    (dir, db)
}

type Task = tokio::task::JoinHandle<(Vec<Ack>, usize)>;
type WatchTask = tokio::task::JoinHandle<Vec<v1::GameEvent>>;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_servers_lose_no_acknowledged_action_and_every_game_goes_on() {
    let kills = env_number("CANASTA_FAULT_KILLS", 3);
    let concurrent = env_number("CANASTA_FAULT_GAMES", 4) as usize;
    let seed = env_number("CANASTA_FAULT_SEED", rand::random());
    eprintln!("CANASTA_FAULT_SEED={seed}");
    let mut rng = Xoshiro256::seed_from_u64(seed);
    let (_dir, db) = temp_db("faults");
    let mut server = Server::start(&db);
    let (tell, current) = watch::channel((0u64, server.addr));
    let mut counts = Counts::default();
    let mut running: Vec<(String, Vec<String>, Task, WatchTask)> = Vec::new();
    let mut done: Vec<Played> = Vec::new();
    let answered: Answered = Arc::default();
    // Actions acknowledged, and bots done with their game, all told.
    let (acked, mut acks_seen) = watch::channel(0usize);
    let (finished, mut finished_seen) = watch::channel(0usize);
    let mut started_bots = 0;

    for generation in 1..=kills {
        // Finished games are collected; new ones take their places.
        let mut still = Vec::new();
        for (id, tokens, bot_task, watch_task) in running {
            if bot_task.is_finished() && watch_task.is_finished() {
                let (acks, retried) = bot_task.await.expect("the bot ends");
                let watched = watch_task.await.expect("the spectator ends");
                done.push(Played {
                    id,
                    tokens,
                    acks,
                    watched,
                    retried,
                });
            } else {
                still.push((id, tokens, bot_task, watch_task));
            }
        }
        running = still;
        let (_, mut client) = client_of(&current).await;
        while running.len() < concurrent {
            let players = [2, 4, 3][running.len() % 3];
            let (id, tokens) = new_game(&mut client, players, rng.next_u64()).await;
            let bot = bot(
                current.clone(),
                id.clone(),
                tokens.clone(),
                rng.next_u64(),
                answered.clone(),
                acked.clone(),
            );
            let finished = finished.clone();
            let bot_task = tokio::spawn(async move {
                let played = bot.await;
                finished.send_modify(|n| *n += 1);
                played
            });
            started_bots += 1;
            let watch_task = tokio::spawn(spectator(current.clone(), id.clone()));
            running.push((id, tokens, bot_task, watch_task));
        }

        // The load runs for a while, drawn from the seed in actions acknowledged (from none to
        // 40; or until every bot is done), then the server dies mid-flight.
        let target = *acks_seen.borrow() + rng.below(41) as usize;
        tokio::time::timeout(ANSWER_WITHIN, async {
            tokio::select! {
                _ = acks_seen.wait_for(|&n| n >= target) => {}
                _ = finished_seen.wait_for(|&n| n == started_bots) => {}
            }
        })
        .await
        .expect("the bots act");
        server.kill();
        counts.kills += 1;
        if counts.kills % 50 == 0 {
            eprintln!("{} kills, {} games finished", counts.kills, done.len());
        }
        // Answers that arrive later were sent before the kill as well; they are checked at the
        // end, with all the others.
        let acked = answered.lock().expect("not poisoned").clone();

        // Every action answered before the kill is there after the restart. Now and then the
        // restarted server is killed again at once, while it opens the database and restores
        // the games.
        server = Server::start(&db);
        if rng.below(8) == 0 {
            server.kill();
            counts.kills += 1;
            counts.kills_at_startup += 1;
            server = Server::start(&db);
        }
        let _ = tell.send((generation, server.addr));
        let (_, mut client) = client_of(&current).await;
        for (id, _, _, _) in &running {
            let summary = client
                .get_game(v1::GetGameRequest {
                    game_id: id.clone(),
                })
                .await
                .expect("the game is back after the restart")
                .into_inner()
                .game
                .expect("a summary");
            let answered = acked.get(id).copied().unwrap_or(0);
            if summary.seq < answered {
                counts.games_behind_after_restart += 1;
                eprintln!(
                    "game {id}: at seq {} after the restart, but seq {answered} was answered",
                    summary.seq
                );
            }
        }
    }

    // No more kills: every game plays to its end.
    for (id, tokens, bot_task, watch_task) in running {
        let (acks, retried) = tokio::time::timeout(Duration::from_secs(600), bot_task)
            .await
            .expect("the game ends")
            .expect("the bot ends");
        let watched = tokio::time::timeout(Duration::from_secs(60), watch_task)
            .await
            .expect("the spectator sees the end")
            .expect("the spectator ends");
        done.push(Played {
            id,
            tokens,
            acks,
            watched,
            retried,
        });
    }

    // Every game against the engine's replay of its export.
    let (_, mut client) = client_of(&current).await;
    for game in &done {
        let record = client
            .export_game(v1::ExportGameRequest {
                game_id: game.id.clone(),
            })
            .await
            .expect("a finished game is exported")
            .into_inner()
            .record
            .expect("a record");
        let truth = replay(&record);
        let last = truth.1.len() as u64;
        counts.games += 1;
        counts.actions_acknowledged += game.acks.len();
        counts.retries_after_kill += game.retried;
        counts.events_watched += game.watched.len();
        // Each action was answered once and applied once.
        assert_eq!(
            game.acks.len(),
            record.actions.len(),
            "game {}: one answer per applied action",
            game.id
        );
        for ack in &game.acks {
            let viewer = Viewer::Seat(Seat(ack.seat as u8));
            let there = !ack.events.is_empty()
                && ack.seq <= last
                && ack.events.last().map(|e| e.seq) == Some(ack.seq)
                && ack
                    .events
                    .iter()
                    .all(|e| event_for(&truth, e.seq, viewer).as_ref() == Some(e));
            if !there {
                counts.actions_lost += 1;
                eprintln!(
                    "game {}: acknowledged action lost or changed: {ack:?}",
                    game.id
                );
            }
        }
        // The spectator got every event once, in order, as the engine has it.
        let expected: Vec<v1::GameEvent> = (1..=last)
            .map(|seq| event_for(&truth, seq, Viewer::Spectator).expect("an event"))
            .collect();
        assert_eq!(
            game.watched, expected,
            "game {}: the spectator's events",
            game.id
        );
        // The log after all restarts replays identically for each seat too.
        for (seat, token) in game.tokens.iter().enumerate() {
            let mut stream = client
                .watch_game(authed(
                    v1::WatchGameRequest {
                        game_id: game.id.clone(),
                        after_seq: 0,
                        include_actions: false,
                        include_view: false,
                    },
                    token,
                ))
                .await
                .expect("a stream")
                .into_inner();
            let mut seq = 0;
            while let Some(m) = stream.next().await {
                if let Some(Msg::Event(e)) = m.expect("a message").kind {
                    seq += 1;
                    assert_eq!(
                        Some(&e),
                        event_for(&truth, seq, Viewer::Seat(Seat(seat as u8))).as_ref(),
                        "game {}: seat {seat}'s log",
                        game.id
                    );
                }
            }
            assert_eq!(
                seq, last,
                "game {}: seat {seat} replays the whole log",
                game.id
            );
        }
    }
    eprintln!("{counts:?}");
    server.kill();
    assert_eq!(
        counts.actions_lost, 0,
        "acknowledged actions lost: {counts:?}"
    );
    assert_eq!(counts.games_behind_after_restart, 0, "{counts:?}");
    assert_eq!(counts.games, done.len());
    assert!(counts.actions_acknowledged > 0);
}
