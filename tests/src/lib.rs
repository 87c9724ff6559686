//! Helpers for end-to-end tests: a real `canasta-server` on `127.0.0.1:0`, gRPC clients with
//! seat tokens, and small conveniences for the common steps of a game.

pub mod play;
pub mod replica;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use canasta_server::Config;
use canasta_server::store::{Loaded, Store};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Request, Status};

/// The gRPC client type.
pub type Client = CanastaServiceClient<Channel>;

/// A server running in this process.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    /// When the shutdown began.
    stopping_since: Option<tokio::time::Instant>,
    task: Option<JoinHandle<()>>,
}

impl TestServer {
    /// Starts an in-memory server.
    pub async fn start() -> TestServer {
        TestServer::with_config(Config::for_tests()).await
    }

    /// Starts a server with SQLite storage at `db`.
    pub async fn with_db(db: &Path) -> TestServer {
        let mut config = Config::for_tests();
        config.memory = false;
        config.db = db.to_path_buf();
        TestServer::with_config(config).await
    }

    /// Starts a server with this configuration, on a free loopback port.
    pub async fn with_config(config: Config) -> TestServer {
        let (store, loaded) = canasta_server::open_store(&config).expect("the storage opens");
        TestServer::with_store(config, store, loaded).await
    }

    /// Starts a server on storage the test opened (and whose write faults it may turn on:
    /// [`Store::write_faults`]), serving the games `loaded` from it.
    pub async fn with_store(mut config: Config, store: Store, loaded: Loaded) -> TestServer {
        config.listen = "127.0.0.1:0".parse().expect("an address");
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .expect("a free loopback port");
        let addr = listener.local_addr().expect("bound");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            canasta_server::serve(config, store, loaded, listener, async {
                let _ = stopped.await;
            })
            .await
            .expect("the server runs");
        });
        TestServer {
            addr,
            stop: Some(stop),
            stopping_since: None,
            task: Some(task),
        }
    }

    /// A new client of this server.
    pub async fn client(&self) -> Client {
        connect(self.addr).await
    }

    /// Shuts the server down gracefully and waits for it.
    pub async fn stop(self) {
        self.stopped_within(Duration::from_secs(10)).await;
    }

    /// Begins the graceful shutdown (completes the shutdown future `serve` was given) and
    /// returns at once; [`TestServer::stopped_within`] waits for `serve` to return.
    pub fn begin_shutdown(&mut self) {
        if let Some(stop) = self.stop.take() {
            self.stopping_since = Some(tokio::time::Instant::now());
            let _ = stop.send(());
        }
    }

    /// Shuts the server down (if that has not begun) and waits for `serve` to return, which
    /// must happen within `limit` of this call and without an error; returns how long it took
    /// from the beginning of the shutdown.
    pub async fn stopped_within(mut self, limit: Duration) -> Duration {
        self.begin_shutdown();
        if let Some(task) = self.task.take() {
            tokio::time::timeout(limit, task)
                .await
                .unwrap_or_else(|_| panic!("the server stops within {limit:?}"))
                .expect("the server task ends cleanly");
        }
        self.stopping_since.expect("the shutdown began").elapsed()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A client connected to `addr`.
pub async fn connect(addr: SocketAddr) -> Client {
    CanastaServiceClient::new(channel(addr).await)
}

/// A connection to `addr` (one HTTP/2 connection, for a client or for raw gRPC calls).
pub async fn channel(addr: SocketAddr) -> Channel {
    Channel::from_shared(format!("http://{addr}"))
        .expect("a uri")
        .connect()
        .await
        .expect("the server accepts connections")
}

/// A client connected over TLS to `addr`, trusting the certificate authority `ca_pem` for the
/// name `localhost`.
pub async fn connect_tls(
    addr: SocketAddr,
    ca_pem: &str,
) -> Result<Client, tonic::transport::Error> {
    use tonic::transport::{Certificate, ClientTlsConfig};
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca_pem))
        .domain_name("localhost");
    let channel = Channel::from_shared(format!("https://{addr}"))
        .expect("a uri")
        .tls_config(tls)?
        .connect()
        .await?;
    Ok(CanastaServiceClient::new(channel))
}

/// A request carrying a seat token.
pub fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut r = Request::new(message);
    r.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    r
}

/// A request as the seat of `token`, or as a spectator without one.
pub fn as_viewer<T>(message: T, token: Option<&str>) -> Request<T> {
    match token {
        Some(t) => authed(message, t),
        None => Request::new(message),
    }
}

/// The summary of `game_id`, as anyone may read it.
pub async fn summary_of(client: &mut Client, game_id: &str) -> v1::GameSummary {
    client
        .get_game(v1::GetGameRequest {
            game_id: game_id.to_string(),
        })
        .await
        .expect("the game")
        .into_inner()
        .game
        .expect("a summary")
}

/// The view of `game_id` as the seat of `token` (or a spectator), with the legal actions if
/// `include_actions`.
pub async fn view_of(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
    include_actions: bool,
) -> v1::GetViewResponse {
    let message = v1::GetViewRequest {
        game_id: game_id.to_string(),
        include_actions,
    };
    client
        .get_view(as_viewer(message, token))
        .await
        .expect("a view")
        .into_inner()
}

/// Opens a watch stream of `game_id` after `after_seq`, as the seat of `token` or as a
/// spectator; prompts list the legal actions if `include_actions` (and carry no view).
pub async fn open_watch(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
    after_seq: u64,
    include_actions: bool,
) -> Result<tonic::Streaming<v1::WatchGameResponse>, Status> {
    let message = v1::WatchGameRequest {
        game_id: game_id.to_string(),
        after_seq,
        include_actions,
        include_view: false,
    };
    client
        .watch_game(as_viewer(message, token))
        .await
        .map(|r| r.into_inner())
}

/// A rule set.
pub fn rules(preset: v1::Preset, players: u32, options: &[(&str, &str)]) -> v1::RuleSet {
    v1::RuleSet {
        preset: preset as i32,
        player_count: players,
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

/// Creates a seeded official game for `players`.
pub async fn create(client: &mut Client, players: u32, seed: u64) -> v1::GameSummary {
    create_with(
        client,
        v1::CreateGameRequest {
            rules: Some(rules(v1::Preset::Official, players, &[])),
            seed: Some(seed),
            ..Default::default()
        },
    )
    .await
}

/// Creates a game from a request.
pub async fn create_with(client: &mut Client, request: v1::CreateGameRequest) -> v1::GameSummary {
    client
        .create_game(request)
        .await
        .expect("the game is created")
        .into_inner()
        .game
        .expect("a summary")
}

/// Joins every seat of a game; returns the tokens by seat.
pub async fn join_all(client: &mut Client, game: &v1::GameSummary) -> Vec<String> {
    let mut tokens = Vec::new();
    for seat in 0..game.seats.len() as u32 {
        let r = client
            .join_game(v1::JoinGameRequest {
                game_id: game.game_id.clone(),
                seat: Some(seat),
                display_name: format!("player {seat}"),
            })
            .await
            .expect("a free seat")
            .into_inner();
        assert_eq!(r.seat, seat);
        tokens.push(r.token);
    }
    tokens
}

/// The reason of an error status, as the wire spells it (empty if it carries none).
pub fn reason(status: &Status) -> String {
    canasta_proto::reason::raw_reason_of(status).unwrap_or_default()
}

/// Reads the next message of a watch stream, with a time limit.
pub async fn next_message(
    stream: &mut tonic::Streaming<v1::WatchGameResponse>,
) -> Option<v1::WatchGameResponse> {
    tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("a message within 10 s")
        .map(|m| m.expect("a good message"))
}

/// Plays a game to its end over RPC: every seat acts on its prompts with the first legal action
/// listed (`pick` may choose another index). Returns the number of actions submitted.
pub async fn play_to_end(
    client: &mut Client,
    game_id: &str,
    tokens: &[String],
    max_actions: usize,
    mut pick: impl FnMut(&v1::LegalChoices) -> usize,
) -> usize {
    let mut done = 0;
    loop {
        let mut progressed = false;
        for token in tokens {
            let view = client
                .get_view(authed(
                    v1::GetViewRequest {
                        game_id: game_id.to_string(),
                        include_actions: true,
                    },
                    token,
                ))
                .await
                .expect("a view")
                .into_inner();
            let status = view.view.as_ref().map(|v| v.status).unwrap_or_default();
            if status == v1::GameStatus::Finished as i32 {
                return done;
            }
            let Some(legal) = view.legal else { continue };
            let index = pick(&legal).min(legal.actions.len() - 1);
            let action = legal.actions[index].clone();
            client
                .submit_action(authed(
                    v1::SubmitActionRequest {
                        game_id: game_id.to_string(),
                        expected_seq: view.view.as_ref().map(|v| v.seq).unwrap_or_default(),
                        request_id: format!("r{done}"),
                        action: Some(action),
                    },
                    token,
                ))
                .await
                .expect("a listed action is accepted");
            done += 1;
            progressed = true;
            if done >= max_actions {
                return done;
            }
        }
        assert!(progressed, "no seat could act");
    }
}

/// A fresh temporary directory for a test's database.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "canasta-{name}-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}
