//! The `canasta-server` binary as a process: what it prints where (one `listening on ADDR` line
//! on stdout once the database is open and the port bound, logs on stderr), its flags' boolean
//! environment variables, refusing to start on a database it cannot open, naming a stored game
//! it cannot restore, and SIGTERM: in the middle of play it exits 0, ends the watch streams
//! cleanly, and every acknowledged action is there after a restart; idle, it exits at once.
//! After a kill -9, the lobby's players, ratings and events are back, and so is every
//! challenge answer the server acknowledged.

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use canasta_proto::v1::lobby_service_client::LobbyServiceClient;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use tonic::transport::Channel;
use tonic::{Request, Status, Streaming};

mod common;
use common::{Client, authed, started_game};

/// A `canasta-server` process and what it wrote.
struct Server {
    child: Child,
    addr: Option<SocketAddr>,
    stdout: Option<JoinHandle<Vec<String>>>,
    stderr: Option<JoinHandle<String>>,
    /// Told once by each of the two pipes' readers when its pipe ends: when the process has
    /// exited (it starts no process of its own to hold them).
    pipes_closed: mpsc::Receiver<()>,
}

/// What a finished process left.
struct Exited {
    status: ExitStatus,
    stdout: Vec<String>,
    stderr: String,
    /// From SIGTERM to the exit, for information.
    took: Duration,
}

/// The line the server logs when it stops waiting for the connections left open after its
/// shutdown's grace and cuts them.
const GRACE_OVER: &str = "connections still open after the shutdown grace";

impl Server {
    /// Starts the server with `args` and environment variables `env` (and `RUST_LOG=info`),
    /// on a free loopback port unless `args` name one.
    fn spawn(args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_canasta-server"));
        if !args.contains(&"--listen") {
            command.args(["--listen", "127.0.0.1:0"]);
        }
        command
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("canasta-server starts");
        let stdout = child.stdout.take().expect("a pipe");
        let stderr = child.stderr.take().expect("a pipe");
        let (tx, rx) = mpsc::channel();
        let (closed, pipes_closed) = mpsc::channel();
        let stderr_closed = closed.clone();
        // Both pipes are read to their end, so the server never blocks on a full one.
        let stdout = std::thread::spawn(move || {
            let mut lines = Vec::new();
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(addr) = line.strip_prefix("listening on ") {
                    let _ = tx.send(addr.trim().to_string());
                }
                lines.push(line);
            }
            let _ = closed.send(());
            lines
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = BufReader::new(stderr).read_to_string(&mut text);
            let _ = stderr_closed.send(());
            text
        });
        let addr = rx
            .recv_timeout(Duration::from_secs(60))
            .ok()
            .map(|a| a.parse().expect("an address"));
        Server {
            child,
            addr,
            stdout: Some(stdout),
            stderr: Some(stderr),
            pipes_closed,
        }
    }

    fn addr(&self) -> SocketAddr {
        self.addr.expect("the server printed its address")
    }

    /// Sends SIGTERM and waits for the exit (30 s without one fail the test: a hang).
    fn terminate(mut self) -> Exited {
        let sent = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .expect("kill runs");
        assert!(sent.success());
        let start = Instant::now();
        let status = self.wait(Duration::from_secs(30));
        let took = start.elapsed();
        self.exited(status, took)
    }

    /// SIGKILL: no shutdown, nothing flushed.
    fn kill_9(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("killed");
    }

    /// Waits for an exit the process makes on its own (30 s without one fail the test).
    fn exit(mut self) -> Exited {
        let status = self.wait(Duration::from_secs(30));
        self.exited(status, Duration::ZERO)
    }

    /// Waits for the process to exit: for its pipes to end, then for its status. `within` is
    /// a guard against a hang, not a measured bound.
    fn wait(&mut self, within: Duration) -> ExitStatus {
        for _ in 0..2 {
            if self.pipes_closed.recv_timeout(within).is_err() {
                let _ = self.child.kill();
                panic!("the server did not exit within {within:?}");
            }
        }
        self.child.wait().expect("the process is there")
    }

    fn exited(&mut self, status: ExitStatus, took: Duration) -> Exited {
        Exited {
            status,
            stdout: self.stdout.take().expect("once").join().expect("read"),
            stderr: self.stderr.take().expect("once").join().expect("read"),
            took,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn temp_dir(name: &str) -> tempfile::TempDir {
    common::temp_dir(&format!("process-{name}"))
}

fn db_arg(db: &Path) -> &str {
    db.to_str().expect("a UTF-8 path")
}

async fn connect(addr: SocketAddr) -> Client {
    let channel = Channel::from_shared(format!("http://{addr}"))
        .expect("a uri")
        .connect()
        .await
        .expect("the server accepts connections");
    CanastaServiceClient::new(channel)
}

/// A started two-player game: its id and the seat tokens.
async fn started(client: &mut Client, seed: u64) -> (String, Vec<String>) {
    started_game(client, 2, &[], seed).await
}

async fn watch(
    client: &mut Client,
    id: &str,
    token: Option<&str>,
) -> Streaming<v1::WatchGameResponse> {
    let message = v1::WatchGameRequest {
        game_id: id.to_string(),
        ..Default::default()
    };
    let request = match token {
        Some(t) => authed(message, t),
        None => Request::new(message),
    };
    client
        .watch_game(request)
        .await
        .expect("a stream")
        .into_inner()
}

/// Reads a stream to its end: the events, and the error that ended it, if any.
async fn drain(
    mut stream: Streaming<v1::WatchGameResponse>,
) -> (Vec<v1::GameEvent>, Option<Status>) {
    let mut events = Vec::new();
    loop {
        match stream.message().await {
            Ok(Some(m)) => {
                if let Some(Msg::Event(e)) = m.kind {
                    events.push(e);
                }
            }
            Ok(None) => return (events, None),
            Err(status) => return (events, Some(status)),
        }
    }
}

/// An acknowledged action: the seat, and the events it was answered with.
struct Ack {
    seat: usize,
    events: Vec<v1::GameEvent>,
}

/// Plays the game (each seat its first legal action) until a call fails; returns the
/// acknowledged actions and the failure. `acked` counts the acknowledged actions.
async fn play_until_refused(
    mut client: Client,
    id: String,
    tokens: Vec<String>,
    acked: tokio::sync::watch::Sender<usize>,
) -> (Vec<Ack>, Status) {
    let mut acks = Vec::new();
    loop {
        let public = match client
            .get_view(v1::GetViewRequest {
                game_id: id.clone(),
                include_actions: false,
            })
            .await
        {
            Ok(v) => v.into_inner().view.expect("a view"),
            Err(status) => return (acks, status),
        };
        let seat = public.to_act.expect("a seat to act") as usize;
        let mine = match client
            .get_view(authed(
                v1::GetViewRequest {
                    game_id: id.clone(),
                    include_actions: true,
                },
                &tokens[seat],
            ))
            .await
        {
            Ok(v) => v.into_inner(),
            Err(status) => return (acks, status),
        };
        let request = v1::SubmitActionRequest {
            game_id: id.clone(),
            expected_seq: mine.view.expect("a view").seq,
            request_id: format!("r{}", acks.len()),
            action: Some(mine.legal.expect("choices").actions[0].clone()),
        };
        match client.submit_action(authed(request, &tokens[seat])).await {
            Ok(answer) => {
                acks.push(Ack {
                    seat,
                    events: answer.into_inner().events,
                });
                acked.send_modify(|n| *n += 1);
            }
            Err(status) => return (acks, status),
        }
    }
}

// SIGTERM while a player acts as fast as it can and two streams are open (a seat's and a
// spectator's): the server exits with code 0, both streams end cleanly (no error status), and
// on the restarted server every acknowledged action's events are in the log, at their seqs,
// as each seat was answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_mid_play_exits_0_ends_streams_and_keeps_every_acknowledged_action() {
    let dir = temp_dir("sigterm");
    let db = dir.path().join("canasta.db");
    let server = Server::spawn(&["--db", db_arg(&db)], &[]);
    let mut client = connect(server.addr()).await;
    let (id, tokens) = started(&mut client, 7).await;
    let seat_stream = tokio::spawn(drain(watch(&mut client, &id, Some(&tokens[0])).await));
    let spectator_stream = tokio::spawn(drain(watch(&mut client, &id, None).await));
    let (acked, mut acks_seen) = tokio::sync::watch::channel(0);
    let player = tokio::spawn(play_until_refused(
        connect(server.addr()).await,
        id.clone(),
        tokens.clone(),
        acked,
    ));
    tokio::time::timeout(Duration::from_secs(30), acks_seen.wait_for(|&n| n >= 20))
        .await
        .expect("the player acts (30 s is a guard against a hang)")
        .expect("the player counts its actions");
    let exited = tokio::task::spawn_blocking(move || server.terminate())
        .await
        .expect("the waiting task");
    assert_eq!(exited.status.code(), Some(0), "stderr:\n{}", exited.stderr);
    assert!(
        exited.stderr.contains("shutting down"),
        "stderr:\n{}",
        exited.stderr
    );
    println!("exit after SIGTERM in play: {:?}", exited.took);
    let (acks, stopped_by) = tokio::time::timeout(Duration::from_secs(10), player)
        .await
        .expect("the player stops")
        .expect("the player's task");
    assert!(acks.len() >= 20);
    // The player was stopped by the server going away, not by a refusal of the rules.
    assert!(
        !matches!(
            stopped_by.code(),
            tonic::Code::FailedPrecondition | tonic::Code::Aborted | tonic::Code::InvalidArgument
        ),
        "{stopped_by:?}"
    );
    let mut streamed = Vec::new();
    for reader in [seat_stream, spectator_stream] {
        let (events, error) = tokio::time::timeout(Duration::from_secs(10), reader)
            .await
            .expect("the stream ends with the server")
            .expect("the reader's task");
        assert!(error.is_none(), "the stream ended with {error:?}");
        assert!(!events.is_empty());
        streamed.push(events);
    }

    // The restarted server has every acknowledged action, as each seat was answered.
    let server = Server::spawn(&["--db", db_arg(&db)], &[]);
    let mut client = connect(server.addr()).await;
    let seq = client
        .get_game(v1::GetGameRequest {
            game_id: id.clone(),
        })
        .await
        .expect("the game is back")
        .into_inner()
        .game
        .expect("a summary")
        .seq;
    let last_acked = acks
        .last()
        .and_then(|a| a.events.last())
        .expect("events")
        .seq;
    // At most the one request in flight at the signal was stored without its answer.
    assert!(
        seq >= last_acked,
        "seq {seq}, acknowledged up to {last_acked}"
    );
    let mut logs = Vec::new();
    for token in &tokens {
        let stream = watch(&mut client, &id, Some(token)).await;
        let mut stream = stream;
        let mut events = Vec::new();
        while events.len() < seq as usize {
            match tokio::time::timeout(Duration::from_secs(10), stream.message())
                .await
                .expect("the log within 10 s")
                .expect("a message")
                .and_then(|m| m.kind)
            {
                Some(Msg::Event(e)) => events.push(e),
                Some(_) => continue,
                None => panic!("the stream ended before seq {seq}"),
            }
        }
        logs.push(events);
    }
    for ack in &acks {
        for e in &ack.events {
            assert_eq!(&logs[ack.seat][e.seq as usize - 1], e, "seq {}", e.seq);
        }
    }
    // What the streams sent before the signal is the log's beginning.
    assert_eq!(streamed[0][..], logs[0][..streamed[0].len()]);
    let exited = server.terminate();
    assert_eq!(exited.status.code(), Some(0));
}

// An idle server, with a client connected and a stream open, exits at once on SIGTERM: no
// wait for anything (the only line on stdout is the address).
#[tokio::test]
async fn an_idle_server_exits_at_once_on_sigterm() {
    let dir = temp_dir("idle");
    let db = dir.path().join("canasta.db");
    let server = Server::spawn(&["--db", db_arg(&db)], &[]);
    let mut client = connect(server.addr()).await;
    let (id, _) = started(&mut client, 8).await;
    let stream = tokio::spawn(drain(watch(&mut client, &id, None).await));
    let exited = tokio::task::spawn_blocking(move || server.terminate())
        .await
        .expect("the waiting task");
    println!("idle exit after SIGTERM: {:?}", exited.took);
    assert_eq!(exited.status.code(), Some(0), "stderr:\n{}", exited.stderr);
    // At once: without waiting for the shutdown's grace (which it logs when it is over).
    assert!(
        !exited.stderr.contains(GRACE_OVER),
        "stderr:\n{}",
        exited.stderr
    );
    assert_eq!(exited.stdout.len(), 1, "{:?}", exited.stdout);
    assert!(exited.stdout[0].starts_with("listening on 127.0.0.1:"));
    let (_, error) = stream.await.expect("the reader");
    assert!(error.is_none(), "{error:?}");
    drop(client);
}

// A client that keeps its connection open and never answers (here a bare HTTP/2 handshake
// that reads nothing) holds the exit at most the shutdown grace (5 s), not forever: the server
// exits by cutting it when the grace is over, and says so.
#[test]
fn a_client_that_never_closes_delays_the_exit_by_the_grace_at_most() {
    use std::io::Write;
    let server = Server::spawn(&["--memory"], &[]);
    let mut conn = std::net::TcpStream::connect(server.addr()).expect("a connection");
    // The HTTP/2 connection preface and an empty SETTINGS frame.
    conn.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
        .expect("the preface is sent");
    // The server's own settings come back: it serves the connection.
    conn.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a read time-out (a guard against a hang)");
    let mut settings = [0u8; 9];
    conn.read_exact(&mut settings)
        .expect("the server's settings");
    assert_eq!(settings[3], 0x04, "a SETTINGS frame first: {settings:?}");
    let exited = server.terminate();
    println!("exit with a frozen client: {:?}", exited.took);
    assert_eq!(exited.status.code(), Some(0), "stderr:\n{}", exited.stderr);
    let cut = exited
        .stderr
        .lines()
        .find(|l| l.contains(GRACE_OVER))
        .unwrap_or_else(|| panic!("no line that the grace is over:\n{}", exited.stderr));
    assert!(cut.contains("connections=1"), "{cut}");
    drop(conn);
}

// Logs go to stderr; stdout holds the address line alone, printed once the database is open.
// A database that cannot be opened: exit code 1, nothing on stdout, and a message naming it.
#[test]
fn the_address_is_printed_only_once_the_database_is_open() {
    let dir = temp_dir("unopenable");
    let server = Server::spawn(&["--db", db_arg(dir.path())], &[]);
    assert!(
        server.addr.is_none(),
        "a server that cannot store printed its address"
    );
    let exited = server.exit();
    assert_eq!(exited.status.code(), Some(1), "stderr:\n{}", exited.stderr);
    assert!(exited.stdout.is_empty(), "{:?}", exited.stdout);
    assert!(
        exited.stderr.contains("cannot open the database")
            && exited.stderr.contains(db_arg(dir.path())),
        "stderr:\n{}",
        exited.stderr
    );
}

// A database serves one server at a time: a second server on it is refused with a message that
// says another process holds it, and the first serves on.
#[test]
fn a_second_server_on_the_same_database_is_refused() {
    let dir = temp_dir("second");
    let db = dir.path().join("games.db");
    let first = Server::spawn(&["--db", db_arg(&db)], &[]);
    assert!(first.addr.is_some(), "the first server started");
    let second = Server::spawn(&["--db", db_arg(&db)], &[]);
    assert!(
        second.addr.is_none(),
        "the second server printed an address"
    );
    let exited = second.exit();
    assert_eq!(exited.status.code(), Some(1), "stderr:\n{}", exited.stderr);
    assert!(
        exited.stderr.contains("another process holds it"),
        "stderr:\n{}",
        exited.stderr
    );
    let exited = first.terminate();
    assert_eq!(exited.status.code(), Some(0), "stderr:\n{}", exited.stderr);
    // Once the first has stopped, the database opens again.
    let again = Server::spawn(&["--db", db_arg(&db)], &[]);
    assert!(
        again.addr.is_some(),
        "the database opens after the first server stopped"
    );
    assert_eq!(again.terminate().status.code(), Some(0));
}

// CANASTA_MEMORY and CANASTA_SYNC_FULL take 1/0 (and true/false, yes/no): with
// CANASTA_MEMORY=1 no database file is made, with =0 it is; a word that is no boolean is a
// usage error (exit code 2) that names the variable's flag.
#[test]
fn boolean_environment_variables_take_1_and_0() {
    let dir = temp_dir("booleans");
    for (memory, sync_full, file_made) in [
        ("1", "0", false),
        ("0", "1", true),
        ("yes", "no", false),
        ("false", "true", true),
    ] {
        let db = dir.path().join(format!("m{memory}-s{sync_full}.db"));
        let server = Server::spawn(
            &["--db", db_arg(&db)],
            &[("CANASTA_MEMORY", memory), ("CANASTA_SYNC_FULL", sync_full)],
        );
        assert!(
            server.addr.is_some(),
            "CANASTA_MEMORY={memory} CANASTA_SYNC_FULL={sync_full}: the server did not start"
        );
        let exited = server.terminate();
        assert_eq!(exited.status.code(), Some(0), "stderr:\n{}", exited.stderr);
        assert_eq!(db.exists(), file_made, "CANASTA_MEMORY={memory}");
    }
    for var in ["CANASTA_MEMORY", "CANASTA_SYNC_FULL"] {
        let db = dir.path().join("never.db");
        let server = Server::spawn(&["--db", db_arg(&db)], &[(var, "maybe")]);
        let exited = server.exit();
        assert_eq!(exited.status.code(), Some(2), "{var}=maybe");
        assert!(
            exited.stderr.contains("maybe"),
            "stderr:\n{}",
            exited.stderr
        );
        assert!(!db.exists());
    }
}

// A stored game whose log does not decode: the server starts and serves the others, and its
// log names the game and the database, and the reason clients get.
#[tokio::test]
async fn a_damaged_game_is_named_in_the_log_with_its_database() {
    use canasta_server::store::{Entry, EntryKind, LeaveEntry, Store};
    let dir = temp_dir("damaged");
    let db = dir.path().join("canasta.db");
    {
        let (mut store, _) = Store::open(&db, false).expect("a database");
        let request = v1::CreateGameRequest::default();
        store
            .create_game("0badbadbadbadbad", 1, &request)
            .await
            .expect("stored");
        let entry = Entry::of(EntryKind::Leave(LeaveEntry { seat: 0 }));
        store
            .append("0badbadbadbadbad", 0, &entry)
            .await
            .expect("stored");
        store.close();
        let conn = rusqlite::Connection::open(&db).expect("the database");
        conn.execute("UPDATE entries SET entry = X'0F0F'", [])
            .expect("damaged");
    }
    let server = Server::spawn(&["--db", db_arg(&db)], &[]);
    let mut client = connect(server.addr()).await;
    let status = client
        .get_game(v1::GetGameRequest {
            game_id: "0badbadbadbadbad".into(),
        })
        .await
        .expect_err("not served");
    assert_eq!(status.code(), tonic::Code::DataLoss, "{status:?}");
    assert_eq!(
        canasta_proto::reason::reason_of(&status),
        Some(canasta_proto::Reason::BadLog)
    );
    let exited = tokio::task::spawn_blocking(move || server.terminate())
        .await
        .expect("the waiting task");
    assert_eq!(exited.status.code(), Some(0));
    for needle in ["0badbadbadbadbad", db_arg(&db), "BAD_LOG", "entry 0"] {
        assert!(
            exited.stderr.contains(needle),
            "{needle} not in stderr:\n{}",
            exited.stderr
        );
    }
}

/// The lobby's gRPC client, connected to `server`.
async fn lobby_of(server: &Server) -> LobbyServiceClient<Channel> {
    let channel = Channel::from_shared(format!("http://{}", server.addr()))
        .expect("a uri")
        .connect()
        .await
        .expect("the server accepts connections");
    LobbyServiceClient::new(channel)
}

/// Answers a challenge with the player's key; returns the challenge as it then stands.
async fn answered(
    lobby: &mut LobbyServiceClient<Channel>,
    request: v1::AnswerChallengeRequest,
    key: &str,
) -> v1::Challenge {
    lobby
        .answer_challenge(authed(request, key))
        .await
        .expect("an answer taken")
        .into_inner()
        .challenge
        .expect("the challenge")
}

/// Registers these players; returns their keys, in order.
async fn register_all(lobby: &mut LobbyServiceClient<Channel>, names: &[&str]) -> Vec<String> {
    let mut keys = Vec::new();
    for name in names {
        let key = lobby
            .register_player(v1::RegisterPlayerRequest {
                name: name.to_string(),
            })
            .await
            .expect("registered")
            .into_inner()
            .key;
        keys.push(key);
    }
    keys
}

/// Reads a player's stream until the end of a game; returns the events up to it.
async fn until_a_game_ends(
    stream: &mut Streaming<v1::WatchPlayerResponse>,
) -> Vec<v1::PlayerEvent> {
    let mut events = Vec::new();
    loop {
        let message = tokio::time::timeout(Duration::from_secs(30), stream.message())
            .await
            .expect("an event (30 s is a guard against a hang)")
            .expect("a good message")
            .expect("the stream goes on");
        if let Some(v1::watch_player_response::Kind::Event(e)) = message.kind {
            let done = matches!(e.kind, Some(v1::player_event::Kind::GameFinished(_)));
            events.push(e);
            if done {
                return events;
            }
        }
    }
}

// kill -9 right after a rated lobby game ended: the restarted server knows the players (their
// keys work), and their ratings, records and events are those the players were told, whether
// the result had been stored before the kill or the game is rated again at the start.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_and_ratings_survive_a_kill_9() {
    let dir = temp_dir("lobby-kill");
    let db = dir.path().join("canasta.db");
    let args = ["--db", db_arg(&db), "--min-move-budget-ms", "100"];
    let server = Server::spawn(&args, &[]);
    let mut lobby = lobby_of(&server).await;
    let keys = register_all(&mut lobby, &["alpha", "beta"]).await;
    let mut stream = lobby
        .watch_player(authed(v1::WatchPlayerRequest { after_seq: 0 }, &keys[0]))
        .await
        .expect("a stream")
        .into_inner();
    // A rated game nobody plays: the first seat to act forfeits after 100 ms.
    let seek = v1::SeekRequest {
        rules: Some(v1::RuleSet {
            preset: v1::Preset::Official as i32,
            player_count: 2,
            options: Default::default(),
        }),
        time_control: Some(v1::TimeControl {
            move_budget_ms: 100,
            policy: v1::TimeoutPolicy::Forfeit as i32,
        }),
        ..Default::default()
    };
    let mut seeks = Vec::new();
    for key in &keys {
        seeks.push(
            lobby
                .seek(authed(seek.clone(), key))
                .await
                .expect("a seek")
                .into_inner(),
        );
    }
    let told = until_a_game_ends(&mut stream).await;
    drop(seeks);
    drop(stream);
    server.kill_9();

    let server = Server::spawn(&args, &[]);
    let mut lobby = lobby_of(&server).await;
    let mut stream = lobby
        .watch_player(authed(v1::WatchPlayerRequest { after_seq: 0 }, &keys[0]))
        .await
        .expect("the key still works")
        .into_inner();
    // The same events at the same seqs (a game rated again at the start has its events
    // stamped then).
    let unstamped = |events: Vec<v1::PlayerEvent>| -> Vec<v1::PlayerEvent> {
        events
            .into_iter()
            .map(|e| v1::PlayerEvent { unix_ms: 0, ..e })
            .collect()
    };
    assert_eq!(
        unstamped(until_a_game_ends(&mut stream).await),
        unstamped(told.clone())
    );
    let Some(v1::player_event::Kind::GameFinished(finished)) = &told.last().unwrap().kind else {
        unreachable!()
    };
    let after = lobby
        .get_player(v1::GetPlayerRequest {
            name: "alpha".into(),
            recent_games: 0,
        })
        .await
        .expect("a record")
        .into_inner();
    assert_eq!((after.games, after.wins), (1, u32::from(finished.won)));
    assert_eq!(
        after.ratings,
        vec![finished.rating.unwrap().after.unwrap()],
        "the rating the player was told"
    );
    let _ = server.terminate();
}

// A challenge, an accept, a decline and a withdrawal are answered once stored: killed with
// SIGKILL right after the answers, the restarted server has the accepted challenge pending
// with the accept it was told (the last accept then starts its game), and the declined and
// withdrawn ones ended (forgotten: not pending again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn challenge_answers_survive_a_kill_9() {
    let dir = temp_dir("challenges-kill");
    let db = dir.path().join("canasta.db");
    let args = ["--db", db_arg(&db)];
    let challenge = |seats: &[&str]| v1::CreateChallengeRequest {
        rules: Some(v1::RuleSet {
            preset: v1::Preset::Official as i32,
            player_count: seats.len() as u32,
            options: Default::default(),
        }),
        seats: seats.iter().map(|s| s.to_string()).collect(),
        rated: Some(false),
        ..Default::default()
    };
    let answer = |id: &str, accept| v1::AnswerChallengeRequest {
        challenge_id: id.into(),
        accept,
    };
    let server = Server::spawn(&args, &[]);
    let mut lobby = lobby_of(&server).await;
    let keys = register_all(&mut lobby, &["ann", "bob", "cy"]).await;
    let (ann, bob, cy) = (&keys[0], &keys[1], &keys[2]);
    let mut made = Vec::new();
    for seats in [&["ann", "bob", "cy"][..], &["ann", "bob"], &["ann", "cy"]] {
        let c = lobby
            .create_challenge(authed(challenge(seats), ann))
            .await
            .expect("a challenge")
            .into_inner()
            .challenge
            .expect("the challenge");
        made.push(c.challenge_id);
    }
    let accepted = answered(&mut lobby, answer(&made[0], true), bob).await;
    answered(&mut lobby, answer(&made[1], false), bob).await;
    lobby
        .cancel_challenge(authed(
            v1::CancelChallengeRequest {
                challenge_id: made[2].clone(),
            },
            ann,
        ))
        .await
        .expect("a withdrawal");
    server.kill_9();

    let server = Server::spawn(&args, &[]);
    let mut lobby = lobby_of(&server).await;
    let again = answered(&mut lobby, answer(&made[0], true), bob).await;
    assert_eq!(again, accepted, "the accept it was told, kept");
    let started = answered(&mut lobby, answer(&made[0], true), cy).await;
    assert_eq!(started.status, v1::ChallengeStatus::Started as i32);
    for (id, key) in [(&made[1], bob), (&made[2], cy)] {
        let ended = lobby
            .answer_challenge(authed(answer(id, true), key))
            .await
            .expect_err("an ended challenge is not pending again");
        assert_eq!(ended.code(), tonic::Code::NotFound, "{ended:?}");
    }
    let _ = server.terminate();
}
