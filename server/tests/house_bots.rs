//! The server's own bots across a crash: `canasta-server` runs as a process on an SQLite file,
//! four of its built-in bots play a match by themselves, and the process is killed with
//! SIGKILL in the middle of it. Restarted on the same database, the server goes on playing the
//! bots' seats to the end of the match, and every event a spectator saw before the kill is
//! still there, the same.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use canasta_engine::{Game, Phase};
use canasta_proto::convert::record_from_wire;
use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use canasta_proto::v1::game_event::Kind as Ev;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use tokio_stream::StreamExt;

mod common;
use common::{Client, temp_dir};

/// The longest wait for any one message: a guard against a hang, not a measured bound.
const WITHIN: Duration = Duration::from_secs(30);

/// A running `canasta-server` process, killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    /// Starts the server on `db` and a free loopback port, and waits for the address it prints.
    fn start(db: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_canasta-server"))
            .args(["--listen", "127.0.0.1:0", "--db"])
            .arg(db)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
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

    async fn client(&self) -> Client {
        CanastaServiceClient::connect(format!("http://{}", self.addr))
            .await
            .expect("the server accepts")
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

/// A spectator's stream of `game_id` from `after_seq`.
async fn watch(
    client: &mut Client,
    game_id: &str,
    after_seq: u64,
) -> tonic::Streaming<v1::WatchGameResponse> {
    client
        .watch_game(v1::WatchGameRequest {
            game_id: game_id.to_string(),
            after_seq,
            include_actions: false,
            include_view: false,
        })
        .await
        .expect("a spectator stream")
        .into_inner()
}

/// The next event of a stream (none once it ends).
async fn next_event(stream: &mut tonic::Streaming<v1::WatchGameResponse>) -> Option<v1::GameEvent> {
    loop {
        let message = tokio::time::timeout(WITHIN, stream.next())
            .await
            .expect("a message in time")?
            .expect("a good message");
        match message.kind {
            Some(Msg::Event(e)) => return Some(e),
            Some(Msg::Lagged(l)) => panic!("the spectator lagged at {}", l.last_seq),
            _ => {}
        }
    }
}

// Four greedy bots of the server play a match alone; the server is killed (SIGKILL) once a
// spectator has seen 60 events, and restarted: the game, not over at the kill, goes on by
// itself to the end of the match, and the events seen before the kill are the stored ones.
#[tokio::test]
async fn the_servers_bots_go_on_after_a_kill() {
    let dir = temp_dir("house-bots-kill");
    let db = dir.path().join("canasta.db");
    let server = Server::start(&db);
    let mut client = server.client().await;
    let game = client
        .create_game(v1::CreateGameRequest {
            rules: Some(v1::RuleSet {
                preset: v1::Preset::Official as i32,
                player_count: 4,
                options: Default::default(),
            }),
            seed: Some(77),
            bots: (0..4)
                .map(|seat| v1::SeatBot {
                    seat,
                    bot: "greedy".into(),
                })
                .collect(),
            ..Default::default()
        })
        .await
        .expect("a game of bots")
        .into_inner()
        .game
        .expect("a summary");
    let id = game.game_id;
    let mut stream = watch(&mut client, &id, 0).await;
    let mut seen = Vec::new();
    while seen.len() < 60 {
        seen.push(next_event(&mut stream).await.expect("the match goes on"));
    }
    server.kill();

    let server = Server::start(&db);
    let mut client = server.client().await;
    let mut stream = watch(&mut client, &id, 0).await;
    let mut after = Vec::new();
    loop {
        let e = next_event(&mut stream)
            .await
            .expect("the stream runs to the end");
        let ended = matches!(e.kind, Some(Ev::MatchEnded(_)));
        after.push(e);
        if ended {
            break;
        }
    }
    eprintln!(
        "{} events seen before the kill, {} in all",
        seen.len(),
        after.len()
    );
    assert_eq!(after[..seen.len()], seen[..], "what was seen was stored");
    let record = client
        .export_game(v1::ExportGameRequest {
            game_id: id.clone(),
        })
        .await
        .expect("the finished game exports")
        .into_inner()
        .record
        .expect("a record");
    let (setup, actions) = record_from_wire(&record).expect("a record");
    let replayed = Game::replay(&setup, &actions).expect("the record replays");
    assert_eq!(replayed.phase(), Phase::Over);
    // The kill came in the middle of the match: the restarted server played the rest.
    assert!(
        after.len() > seen.len() + 100,
        "{} events after the {} seen",
        after.len(),
        seen.len()
    );
    server.kill();
}
