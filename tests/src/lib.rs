//! Helpers for end-to-end tests: a real `canasta-server` on `127.0.0.1:0` (on the test's runtime,
//! or on one of its own, whose clock the tests of time pause: [`TestServer::on_own_runtime`]),
//! configured by [`test_config`] (a test changes what it tests and builds it),
//! gRPC clients with seat tokens, a count to wait on ([`Counter`]), refusals to assert, and small
//! conveniences for the common steps of a game, for files ([`workspace_root`], [`temp_dir`]) and
//! for other programs ([`run`]). [`replica`] plays the same game in the engine and reads
//! streams, [`play`] drives Play calls, [`wire`] writes actions as a client sends them.
//!
//! A helper that more than one test file needs lives here, once.

pub mod lobby;
pub mod play;
pub mod replica;
pub mod web;
pub mod wire;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use canasta_server::store::{Loaded, Store};
use canasta_server::{Config, ConfigBuilder, Storage};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Request, Response, Status};
use tonic_types::StatusExt;

/// The gRPC client type.
pub type Client = CanastaServiceClient<Channel>;

/// A server running in this process.
///
/// [`TestServer::start`] and its siblings serve on the test's own runtime, whose clock is the
/// real one. [`TestServer::on_own_runtime`] serves on a runtime the test built, on a thread of
/// its own: the tests of time build one whose clock is paused (`tests/tests/clock/mod.rs`), and
/// move that clock on with [`TestServer::on_server`]. Every time of the server (time controls,
/// heartbeats, deadlines, request budgets, the shutdown's grace) is on tokio's clock, so a test
/// of time waits for the events it expects and never for time to pass.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    /// When the shutdown began.
    stopping_since: Option<tokio::time::Instant>,
    task: Option<JoinHandle<()>>,
    /// The server's own runtime, if it has one.
    runtime: Option<Arc<OwnRuntime>>,
}

/// Keeps a server's own runtime running while held, after `serve` has returned (as an
/// embedder's runtime runs on); see [`TestServer::keep_runtime`].
pub struct RuntimeKept {
    _runtime: Option<Arc<OwnRuntime>>,
}

/// A server's own runtime (see [`TestServer::on_own_runtime`]), run on a thread of its own,
/// with a blocking task that lasts as long as the server.
///
/// Tokio moves a paused clock on by itself when its runtime has nothing to do but wait (it
/// "auto-advances" to the next timer), which a server waiting on its sockets always is: its
/// time-outs would fire between any two requests. Auto-advance is held off while a blocking
/// task runs (tokio's documentation of `time::pause`, "Preventing auto-advance"): with the
/// blocking task, a paused clock moves only when the test moves it.
struct OwnRuntime {
    handle: tokio::runtime::Handle,
    /// Dropped to end the blocking task that holds the clock.
    hold: Option<std::sync::mpsc::Sender<()>>,
    /// Dropped to let the runtime's thread end.
    keep: Option<oneshot::Sender<()>>,
}

impl Drop for OwnRuntime {
    fn drop(&mut self) {
        // The blocking task first: the runtime, when it ends, waits for its blocking tasks.
        drop(self.hold.take());
        drop(self.keep.take());
    }
}

impl TestServer {
    /// Starts an in-memory server.
    pub async fn start() -> TestServer {
        TestServer::with_config(test_config().build().expect("a valid configuration")).await
    }

    /// Starts a server with SQLite storage at `db`.
    pub async fn with_db(db: &Path) -> TestServer {
        TestServer::with_config(db_config(db)).await
    }

    /// Starts a server with this configuration, on a free loopback port.
    pub async fn with_config(config: Config) -> TestServer {
        let (store, loaded) = canasta_server::open_store(&config).expect("the storage opens");
        TestServer::with_store(config, store, loaded).await
    }

    /// Starts a server on storage the test opened (and whose write faults it may turn on:
    /// [`Store::write_faults`]), serving the games `loaded` from it.
    pub async fn with_store(config: Config, store: Store, loaded: Loaded) -> TestServer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free loopback port");
        let addr = listener.local_addr().expect("bound");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve(config, store, loaded, listener, stopped));
        TestServer {
            addr,
            stop: Some(stop),
            stopping_since: None,
            task: Some(task),
            runtime: None,
        }
    }

    /// Starts a server on `runtime` (a current-thread runtime the caller built, whose clock
    /// may be paused), run on a thread of its own for as long as the server lives, with a
    /// blocking task that holds off tokio's auto-advance of a paused clock: on a paused
    /// runtime, the clock moves only when the test moves it.
    pub async fn on_own_runtime(
        config: Config,
        store: Store,
        loaded: Loaded,
        runtime: tokio::runtime::Runtime,
    ) -> TestServer {
        let handle = runtime.handle().clone();
        let (hold, held) = std::sync::mpsc::channel::<()>();
        handle.spawn_blocking(move || {
            let _ = held.recv();
        });
        let (keep, kept) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("test-server".into())
            .spawn(move || {
                runtime.block_on(async {
                    let _ = kept.await;
                });
            })
            .expect("the server's thread");
        // Bound here, registered with the server's runtime there.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
        listener
            .set_nonblocking(true)
            .expect("a non-blocking socket");
        let addr = listener.local_addr().expect("bound");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = handle.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("a tokio listener");
            serve(config, store, loaded, listener, stopped).await;
        });
        TestServer {
            addr,
            stop: Some(stop),
            stopping_since: None,
            task: Some(task),
            runtime: Some(Arc::new(OwnRuntime {
                handle,
                hold: Some(hold),
                keep: Some(keep),
            })),
        }
    }

    /// Runs `f` on the server's runtime (its own, or the test's) and returns its output: on a
    /// paused clock, `tokio::time::advance` moves the server's clock on.
    pub async fn on_server<F>(&self, f: F) -> F::Output
    where
        F: std::future::Future + Send + 'static,
        F::Output: Send + 'static,
    {
        let task = match &self.runtime {
            Some(runtime) => runtime.handle.spawn(f),
            None => tokio::spawn(f),
        };
        task.await.expect("the task on the server's runtime")
    }

    /// Keeps the server's runtime running while the value is held, even after the server is
    /// stopped and dropped. (A server on the test's runtime needs nothing: that runs on
    /// anyway.)
    pub fn keep_runtime(&self) -> RuntimeKept {
        RuntimeKept {
            _runtime: self.runtime.clone(),
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
    /// must happen within `limit` of this call (a guard against a hang: on the test's clock,
    /// which is real) and without an error; returns how long it took from the beginning of
    /// the shutdown, for information.
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

    /// True once `serve` has returned.
    pub fn has_stopped(&self) -> bool {
        self.task.as_ref().is_none_or(JoinHandle::is_finished)
    }
}

/// The configuration of the tests' servers, to build (after changing what a test changes):
/// in memory. Every test client comes from 127.0.0.1, so the per-address limits are raised out
/// of reach (a test of a limit lowers it), and so is the number of streams a token may open
/// (a test of streams opens many). The shortest move budget is 100 ms, so that the tests that
/// wait for a time-out on a real clock wait less. Everything else is the production default.
pub fn test_config() -> ConfigBuilder {
    Config::builder()
        .storage(Storage::Memory)
        .address_requests_per_second(1_000_000.0)
        .max_watchers_per_address(100_000)
        .max_watchers_per_token(1000)
        .min_move_budget(Duration::from_millis(100))
}

/// The configuration of a server storing in SQLite at `db`.
pub fn db_config(db: &Path) -> Config {
    test_config()
        .storage(Storage::sqlite(db))
        .build()
        .expect("a valid configuration")
}

/// Serves until `stopped` completes (or its sender is dropped).
async fn serve(
    config: Config,
    store: Store,
    loaded: Loaded,
    listener: tokio::net::TcpListener,
    stopped: oneshot::Receiver<()>,
) {
    canasta_server::serve(config, store, loaded, listener, async {
        let _ = stopped.await;
    })
    .await
    .expect("the server runs");
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A count that tasks add to and a test waits on: the test waits for the count it expects,
/// never for time to pass. Its clones share the count, across runtimes.
#[derive(Clone, Debug)]
pub struct Counter(Arc<tokio::sync::watch::Sender<usize>>);

impl Default for Counter {
    fn default() -> Counter {
        Counter(Arc::new(tokio::sync::watch::Sender::new(0)))
    }
}

impl Counter {
    /// A count of zero.
    pub fn new() -> Counter {
        Counter::default()
    }

    /// Adds one.
    pub fn add_one(&self) {
        self.0.send_modify(|n| *n += 1);
    }

    /// The count now.
    pub fn get(&self) -> usize {
        *self.0.borrow()
    }

    /// Waits until the count is at least `n`.
    pub async fn reached(&self, n: usize) {
        let mut rx = self.0.subscribe();
        rx.wait_for(|&count| count >= n)
            .await
            .expect("the count lives as long as this clone");
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
    Ok(CanastaServiceClient::new(tls_channel(addr, ca_pem).await?))
}

/// A channel over TLS to `addr`, trusting the certificate authority `ca_pem` for the name
/// `localhost`.
pub async fn tls_channel(
    addr: SocketAddr,
    ca_pem: &str,
) -> Result<Channel, tonic::transport::Error> {
    use tonic::transport::{Certificate, ClientTlsConfig};
    let tls = ClientTlsConfig::new()
        .ca_certificate(Certificate::from_pem(ca_pem))
        .domain_name("localhost");
    Channel::from_shared(format!("https://{addr}"))
        .expect("a uri")
        .tls_config(tls)?
        .connect()
        .await
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

/// Asserts a refusal: its code, its reason, and for a limit (RESOURCE_EXHAUSTED) a RetryInfo
/// with a delay.
#[track_caller]
pub fn assert_refused(status: &Status, code: Code, why: &str) {
    assert_eq!(status.code(), code, "{status:?}");
    assert_eq!(reason(status), why, "{status:?}");
    if code == Code::ResourceExhausted {
        let retry = status.get_details_retry_info().expect("a RetryInfo");
        assert!(
            retry.retry_delay.is_some_and(|d| d > Duration::ZERO),
            "{retry:?}"
        );
    }
}

/// Asserts that a call was refused with `code` and `why` (see [`assert_refused`]); returns the
/// status.
#[track_caller]
pub fn refused<T: std::fmt::Debug>(
    result: Result<Response<T>, Status>,
    code: Code,
    why: &str,
) -> Status {
    let status = result.expect_err(&format!("the request should be refused with {why}"));
    assert_refused(&status, code, why);
    status
}

/// Opens a watch stream of `game_id` (from the start, without the legal actions) once the
/// server has freed a place: a closed stream's place is freed when the server has read the
/// client's reset and ended the stream's task, a few of its task switches after the reset
/// (which comes before the next request on the connection). Each try is a round trip, and
/// any refusal but TOO_MANY_WATCHERS fails; a bounded number of them, never a pause.
pub async fn watch_when_freed(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
) -> tonic::Streaming<v1::WatchGameResponse> {
    for _ in 0..100 {
        match open_watch(client, game_id, token, 0, false).await {
            Ok(stream) => return stream,
            Err(status) => assert_refused(&status, Code::ResourceExhausted, "TOO_MANY_WATCHERS"),
        }
    }
    panic!("the closed stream's place is not freed after 100 tries");
}

/// Whether the server serves a raw connection that has sent nothing: still open, nothing
/// received (the server waits for the client to speak first: HTTP/2's preface or an HTTP/1.1
/// request, both served on the port), or closed at once beyond `--max-connections` (false).
/// Read without waiting, so only after a barrier: a connection made after this one that the
/// server closed at once (the server accepts connections in the order they came).
pub fn is_served(stream: &tokio::net::TcpStream) -> bool {
    let mut buf = [0u8; 64];
    match stream.try_read(&mut buf) {
        Ok(0) => false,
        Ok(n) => panic!("the server spoke first: {:?}", &buf[..n]),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => true,
        Err(e) => {
            assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}");
            false
        }
    }
}

/// Reads `stream` until the server closes it (the end, or a reset), within 10 s: a guard
/// against a connection held for ever, not a measured bound. Returns the bytes read (none for
/// a connection closed at once beyond `--max-connections`).
pub async fn until_closed(mut stream: tokio::net::TcpStream) -> Vec<u8> {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut got))
        .await
        .expect("the server closed the connection within 10 s");
    if let Err(e) = read {
        assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}");
    }
    got
}

/// Reads the next message of a stream (a watch stream, a player's), with a time limit.
pub async fn next_message<T>(stream: &mut tonic::Streaming<T>) -> Option<T> {
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

/// The workspace's root directory, where the tests crate sits.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate is in the workspace")
        .to_path_buf()
}

/// The system's Python, 3.10 or newer with its venv module (as the pinned packages of the
/// Python tests need): `$PYTHON`, else `python3`, else `python`. Panics with what to install,
/// naming the test that needs it (`needed_by`).
pub fn system_python(needed_by: &str) -> String {
    let candidates: Vec<String> = match std::env::var("PYTHON") {
        Ok(p) if !p.is_empty() => vec![p],
        _ => vec!["python3".into(), "python".into()],
    };
    let mut found = Vec::new();
    for candidate in &candidates {
        let Ok(out) = std::process::Command::new(candidate)
            .args([
                "-c",
                "import sys, venv; print(sys.version_info >= (3, 10), sys.version.split()[0])",
            ])
            .output()
        else {
            continue;
        };
        let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
        if out.status.success() && text.starts_with("True") {
            return candidate.clone();
        }
        found.push(format!(
            "{candidate}: {}{}",
            text,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    panic!(
        "{needed_by} needs Python 3.10 or newer with its venv module, and none was found (tried \
         {candidates:?}; found {found:?}): install python3 (on Debian and Ubuntu: python3 \
         python3-venv), or name an interpreter in the PYTHON environment variable"
    );
}

/// Runs a command to its end; panics with its output if it fails, saying what it was for
/// (`what`). Returns its standard output.
pub fn run(what: &str, command: &mut std::process::Command) -> String {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {command:?}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}): {command:?}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The Python package (`python/`) installed in a virtual environment, for the tests that run
/// Python: `tmp` is the test's `CARGO_TARGET_TMPDIR`. The venv (`tmp/python-package/venv`)
/// holds the pinned packages of `python/requirements.txt`, installed once and again only when
/// they change; the package is built and installed at the first call of each test process (the
/// later ones find it there). maturin builds the extension in release mode in
/// `tmp/python-package/cargo-target`, so every test binary shares one build. The test binaries
/// that call this run one after the other (as `cargo test` runs them), never two at once.
/// Returns the venv's interpreter.
pub fn python_with_package(tmp: &Path) -> PathBuf {
    static INSTALLED: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    INSTALLED
        .get_or_init(|| install_python_package(&tmp.join("python-package")))
        .clone()
}

fn install_python_package(work: &Path) -> PathBuf {
    use std::fs;
    use std::process::Command;
    let venv = work.join("venv");
    let python = if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    };
    let requirements = workspace_root().join("python").join("requirements.txt");
    let wanted = fs::read_to_string(&requirements).expect("python/requirements.txt");
    let stamp = venv.join("canasta-requirements.txt");
    if !python.exists() || fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        let _ = fs::remove_dir_all(&venv);
        fs::create_dir_all(work).expect("a directory under target/");
        run(
            "making a Python virtual environment (on Debian and Ubuntu: apt install python3-venv)",
            Command::new(system_python("the Python package's test"))
                .arg("-m")
                .arg("venv")
                .arg(&venv),
        );
        run(
            "installing the Python package's pinned requirements with pip",
            Command::new(&python)
                .args(["-m", "pip", "install", "--disable-pip-version-check"])
                .args(["--no-input", "--quiet", "-r"])
                .arg(&requirements),
        );
        fs::write(&stamp, &wanted).expect("the venv's stamp");
    }
    // maturin (pinned in the requirements) builds the extension: no isolated build
    // environment, so nothing is fetched but the pinned packages; the build backend runs the
    // venv's `maturin`. Its own target directory keeps its release build apart from the
    // workspace's.
    let bin = python.parent().expect("the venv's bin directory");
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a PATH");
    run(
        "building and installing the package with pip install ./python",
        Command::new(&python)
            .args(["-m", "pip", "install", "--disable-pip-version-check"])
            .args(["--no-input", "--quiet", "--no-build-isolation", "--no-deps"])
            .args(["--force-reinstall"])
            .arg(workspace_root().join("python"))
            .env("CARGO_TARGET_DIR", work.join("cargo-target"))
            .env("PATH", path),
    );
    python
}

/// A fresh temporary directory for a test's files, its name starting with `canasta-NAME-`
/// and made unique by `tempfile`: removed with everything in it when dropped, by a test that
/// fails as by one that passes.
pub fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("canasta-{name}-"))
        .tempdir()
        .expect("a temporary directory")
}

/// The `canasta` binary of this build, built if missing (it belongs to another package, so
/// cargo does not build it for these tests).
pub fn canasta_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    // target/<profile>/deps/<test>
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let target_dir = profile_dir.parent().expect("target");
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev",
        Some(other) => other,
    };
    let mut cargo =
        std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    // Without the variables cargo sets for this test: ring's build script reads
    // CARGO_MANIFEST_DIR, and inherited it would rebuild ring and all that depends on it.
    for (name, _) in std::env::vars_os() {
        if let Some(name) = name.to_str()
            && (name.starts_with("CARGO_PKG_")
                || name.starts_with("CARGO_MANIFEST_")
                || [
                    "CARGO_CRATE_NAME",
                    "CARGO_PRIMARY_PACKAGE",
                    "CARGO_TARGET_TMPDIR",
                ]
                .contains(&name))
        {
            cargo.env_remove(name);
        }
    }
    run(
        "building canasta",
        cargo
            .args(["build", "--quiet", "-p", "canasta-cli", "--bin", "canasta"])
            .arg("--profile")
            .arg(profile)
            .arg("--target-dir")
            .arg(target_dir),
    );
    profile_dir.join(format!("canasta{}", std::env::consts::EXE_SUFFIX))
}

/// Node.js (18 or newer: `$NODE`, else `node`) and npm (`$NPM`, else `npm`), or a panic that
/// says what to install for `needed_by`.
pub fn node_and_npm(needed_by: &str) -> (String, String) {
    use std::process::Command;
    let node = std::env::var("NODE").unwrap_or_else(|_| "node".into());
    let npm = std::env::var("NPM").unwrap_or_else(|_| "npm".into());
    let help = format!(
        "{needed_by} needs Node.js 18 or newer and npm: install them (on Debian and Ubuntu: apt \
         install nodejs npm), or name them in the NODE and NPM environment variables"
    );
    let version = Command::new(&node)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("{help} (`{node} --version`: {e})"));
    let text = String::from_utf8_lossy(&version.stdout).trim().to_string();
    let major = text
        .strip_prefix('v')
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse::<u32>().ok());
    assert!(
        version.status.success() && major.is_some_and(|m| m >= 18),
        "{help} (`{node} --version` says {text:?})"
    );
    let npm_version = Command::new(&npm)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("{help} (`{npm} --version`: {e})"));
    assert!(
        npm_version.status.success(),
        "{help} (`{npm} --version` failed)"
    );
    (node, npm)
}

/// Installs the pinned packages of `source`'s `package.json` and `package-lock.json` with `npm
/// ci` into `work` (a directory under `target/`), unless the same lock file is installed there
/// already. `what` names them in the messages.
///
/// Installed aside and then put in place: another test process never sees a half-made one.
pub fn npm_ci(what: &str, npm: &str, source: &Path, work: &Path) {
    use std::fs;
    let manifest = fs::read_to_string(source.join("package.json")).expect("package.json");
    let lock = fs::read_to_string(source.join("package-lock.json")).expect("the lock file");
    let key = format!("{manifest}\n{lock}");
    let stamp = |dir: &Path| fs::read_to_string(dir.join("canasta-installed-from.txt")).ok();
    if stamp(work).as_deref() == Some(key.as_str()) {
        return;
    }
    let parent = work.parent().expect("a directory under target/");
    fs::create_dir_all(parent).expect("a directory under target/");
    let staging = tempfile::Builder::new()
        .prefix("npm-")
        .tempdir_in(parent)
        .expect("a directory under target/");
    let fresh = staging.path();
    fs::write(fresh.join("package.json"), &manifest).expect("package.json");
    fs::write(fresh.join("package-lock.json"), &lock).expect("package-lock.json");
    run(
        &format!("installing {what} pinned packages with npm ci"),
        std::process::Command::new(npm)
            .args(["ci", "--no-audit", "--no-fund", "--loglevel=error"])
            .env("npm_config_update_notifier", "false")
            .current_dir(fresh),
    );
    fs::write(fresh.join("canasta-installed-from.txt"), &key).expect("the stamp");
    let _ = fs::remove_dir_all(work);
    if fs::rename(fresh, work).is_err() {
        // Another test process put its own in place meanwhile (ours is removed with
        // `staging`): the same, if it is current.
        assert_eq!(
            stamp(work).as_deref(),
            Some(key.as_str()),
            "current packages"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_dirs_never_collide_and_are_removed_by_a_failing_test() {
        // Two tests (or two runs) asking for the same name get directories of their own.
        let (a, b) = (temp_dir("same"), temp_dir("same"));
        assert_ne!(a.path(), b.path());
        assert!(a.path().is_dir() && b.path().is_dir());
        // A test that panics with files in its directory leaves nothing behind.
        let seen = std::sync::Mutex::new(None);
        let failed = std::panic::catch_unwind(|| {
            let dir = temp_dir("failing");
            std::fs::write(dir.path().join("games.db"), b"data").expect("written");
            *seen.lock().unwrap() = Some(dir.path().to_path_buf());
            panic!("the test fails");
        });
        assert!(failed.is_err());
        let path = seen.into_inner().unwrap().expect("the directory was made");
        assert!(!path.exists(), "{} is left behind", path.display());
    }
}
