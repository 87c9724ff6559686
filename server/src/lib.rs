//! The Canasta referee: a tonic gRPC server (package `canasta.v1`) that hosts authoritative
//! games, streams their events, and keeps them in an embedded SQLite database.
//!
//! # Layout
//!
//! - [`config`]: the configuration, a plain value with a builder ([`Config::builder`]); the
//!   `canasta-server` binary parses its flags and environment variables into it.
//! - [`local`]: a server in this process on a free loopback port ([`LocalServer`]).
//! - [`service`]: the gRPC services (`CanastaService`, and `LobbyService` in
//!   `service/lobby.rs`): one function per method, behind one layer that every call
//!   passes through (admission: tokens and request rates; metrics; a tracing span per call);
//!   the streams WatchGame and Play leave running.
//! - [`registry`]: the games held: create, restore, find, list.
//! - [`bots`]: the server's built-in bots (`CreateGameRequest.bots`): their check, their
//!   seeds, and the pool that bounds their CPU; `actor/house.rs` plays their seats.
//! - [`actor`]: one task per game owning its state; `actor/mod.rs` holds the state, the
//!   handle, the commands and the task's loop, and one file each does a job: `log.rs` (the
//!   entries stored, applied, replayed), `compact.rs` (a finished game's memory and rebuilds),
//!   `seats.rs`, `actions.rs`, `retry.rs` (answers to retried actions), `clock.rs` (time
//!   controls and time-outs), `unplayed.rs` (games nobody plays, the creator's cancel),
//!   `views.rs`, `prompts.rs`, `watchers.rs`, `summary.rs` (the result and the summary),
//!   `export.rs`, `house.rs` (the seats the server's bots play).
//! - [`lobby`]: `canasta.v1.LobbyService`'s work: players and their keys, matchmaking,
//!   challenges, each player's event stream, ratings, records and the leaderboard; its games
//!   are the registry's, created and joined as a client would.
//! - [`store`]: SQLite storage with group commit (or memory), the lobby's tables too.
//! - [`metrics`]: the Prometheus registry (prometheus-client) and its bounded HTTP port.
//! - [`page`]: the web page, embedded, served to a browser's `GET` on the same port.
//! - [`web`]: gRPC-Web (HTTP/1.1 or HTTP/2) on the same port, translated to gRPC before
//!   everything else, and CORS for the origins the operator allows.
//! - [`auth`], [`ratelimit`], [`message_limit`], [`errors`], [`connections`], [`names`]: one
//!   concern each.
//!
//! [`LocalServer::start`] serves on `127.0.0.1:0` and says where; [`run`] serves on a listener
//! the caller binds; [`open_store`] and [`serve`] are its two halves, for a caller that must
//! know the database is open before it says it serves (the binary), or that holds the store's
//! fault switch (tests).
//!
//! # Features
//!
//! `cli` (on by default) builds the `canasta-server` binary and its dependencies (clap, the
//! log's formatter, the allocator); the library needs none of them: a program that embeds the
//! server may depend on this crate with `default-features = false`.

pub mod actor;
pub mod auth;
pub mod bots;
pub mod config;
pub mod connections;
pub mod errors;
pub mod lobby;
pub mod local;
pub mod message_limit;
pub mod metrics;
pub mod names;
pub mod page;
pub mod ratelimit;
pub mod registry;
pub mod service;
pub mod store;
pub mod web;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use canasta_proto::v1;
use canasta_proto::v1::canasta_service_server::CanastaServiceServer;
use canasta_proto::v1::lobby_service_server::LobbyServiceServer;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub use config::{Config, ConfigBuilder, ConfigError, Storage, Tls};
pub use local::LocalServer;

use crate::connections::{Conn, OpenConnections};
use crate::message_limit::MessageLimit;
use crate::metrics::Metrics;
use crate::registry::Registry;
use crate::service::Service;
use crate::store::{Loaded, Store, StoreError};

/// The runtime the server's binary and `canasta` run on: tokio's multi-threaded runtime with
/// its timers and I/O, one worker per core.
///
/// Built with `--cfg tokio_unstable` (this workspace's `.cargo/config.toml`), it also turns off
/// the scheduler's "LIFO slot", which runs the task a running task wakes next, ahead of every
/// task already waiting. An action wakes a chain of tasks (the call's reader, the game's actor,
/// each watcher's stream, the connection): in that order they run one after another on one
/// worker while the tasks of other games wait, and the other worker idles and must be woken.
/// Without the slot, woken tasks queue in order and both workers stay busy: 64 games of bots
/// played about a fifth more actions a second (`docs/performance.md`).
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    builder.enable_all();
    #[cfg(tokio_unstable)]
    builder.disable_lifo_slot();
    builder.build()
}

/// Accepted connections, with Nagle's algorithm off (a small response must not wait for an
/// acknowledgement that the client delays; tonic sets this only on listeners it binds itself),
/// registered with `open` while they live, each to send its first bytes within the handshake
/// deadline. Beyond `--max-connections` a new connection is closed at once. An accept that
/// fails for want of resources (out of file descriptors: EMFILE, ENFILE; of memory) is retried
/// after a pause, 5 ms doubling up to a second, instead of at once: the transport skips a
/// failed accept and asks again, and the listener, still ready, fails again at once, for ever.
fn incoming(
    listener: TcpListener,
    open: OpenConnections,
    config: &Config,
) -> impl tokio_stream::Stream<Item = std::io::Result<Conn>> + use<> {
    let state = Accepting {
        listener,
        open,
        limit: connection_limit(config.max_connections(), descriptor_limit()),
        handshake: config.handshake_timeout(),
        failures: Throttled::default(),
        refusals: Throttled::default(),
        pause: Duration::ZERO,
    };
    Connections::new(state)
}

/// Where connections come from: a listener (or, in tests, one that fails first).
trait Listen: Send + 'static {
    fn accept(&mut self) -> impl Future<Output = std::io::Result<TcpStream>> + Send;
}

impl Listen for TcpListener {
    async fn accept(&mut self) -> std::io::Result<TcpStream> {
        TcpListener::accept(self).await.map(|(stream, _)| stream)
    }
}

/// The accept loop's state (see [`incoming`]).
struct Accepting<L> {
    listener: L,
    open: OpenConnections,
    limit: usize,
    handshake: Duration,
    /// Failed accepts, for the log.
    failures: Throttled,
    /// Connections closed for the limit, for the log.
    refusals: Throttled,
    /// The pause before the next accept after a failure; zero after a success.
    pause: Duration,
}

/// The shortest and the longest pause after a failed accept.
const ACCEPT_PAUSE: (Duration, Duration) = (Duration::from_millis(5), Duration::from_secs(1));

impl<L: Listen> Accepting<L> {
    /// The next connection to serve.
    async fn next(&mut self) -> Conn {
        loop {
            if !self.pause.is_zero() {
                tokio::time::sleep(self.pause).await;
            }
            let stream = match self.listener.accept().await {
                Ok(stream) => stream,
                // The client gave up before it was accepted: nothing to pause for.
                Err(e) if is_connection_error(&e) => continue,
                Err(error) => {
                    self.pause = (self.pause * 2).clamp(ACCEPT_PAUSE.0, ACCEPT_PAUSE.1);
                    if let Some(since) = self.failures.count() {
                        tracing::error!(
                            %error,
                            failed_since_last_logged = since,
                            pause = ?self.pause,
                            "cannot accept connections (out of file descriptors? see \
                             --max-connections and ulimit -n): pausing before the next accept"
                        );
                    }
                    continue;
                }
            };
            self.pause = Duration::ZERO;
            let _ = stream.set_nodelay(true);
            match self.open.serve(stream, self.limit, self.handshake) {
                Ok(conn) => return conn,
                Err(stream) => {
                    drop(stream);
                    if let Some(since) = self.refusals.count() {
                        tracing::warn!(
                            limit = self.limit,
                            refused_since_last_logged = since,
                            "--max-connections connections are open: closing new ones"
                        );
                    }
                }
            }
        }
    }
}

/// The connections of [`Accepting::next`], one after another, as the transport takes them.
struct Connections<L> {
    next: Pin<Box<dyn Future<Output = (Conn, Accepting<L>)> + Send>>,
}

impl<L: Listen> Connections<L> {
    fn new(state: Accepting<L>) -> Connections<L> {
        Connections {
            next: Box::pin(state.into_next()),
        }
    }
}

impl<L: Listen> Accepting<L> {
    async fn into_next(mut self) -> (Conn, Accepting<L>) {
        let conn = self.next().await;
        (conn, self)
    }
}

impl<L: Listen> tokio_stream::Stream for Connections<L> {
    type Item = std::io::Result<Conn>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let (conn, state) = std::task::ready!(self.next.as_mut().poll(cx));
        self.next = Box::pin(state.into_next());
        Poll::Ready(Some(Ok(conn)))
    }
}

/// Descriptors the server keeps for itself besides its connections': the listener, the
/// database's files, the metrics listener, the runtime's, the standard streams, with room.
const RESERVED_DESCRIPTORS: u64 = 64;

/// `--max-connections`, lowered to what the process's descriptor limit leaves (a connection
/// is one descriptor) so that the limit, not a failing accept, refuses the connection too many.
fn connection_limit(max_connections: usize, descriptors: Option<u64>) -> usize {
    let Some(descriptors) = descriptors else {
        return max_connections;
    };
    let room = descriptors.saturating_sub(RESERVED_DESCRIPTORS).max(1);
    if (max_connections as u64) <= room {
        return max_connections;
    }
    tracing::warn!(
        max_connections,
        descriptors,
        serving = room,
        "--max-connections is above what the descriptor limit (ulimit -n) leaves: raise that, \
         or lower this"
    );
    room as usize
}

/// The process's limit of open file descriptors (its soft limit), where it can be read.
fn descriptor_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    limits
        .lines()
        .find_map(|line| line.strip_prefix("Max open files"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// Errors of one connection that failed before it was accepted (the others are the
/// listener's, or the process's).
fn is_connection_error(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionAborted | ConnectionReset | ConnectionRefused | Interrupted | WouldBlock
    )
}

/// A count of repeated events, logged at most once every [`Throttled::EVERY`].
#[derive(Default)]
struct Throttled {
    last: Option<tokio::time::Instant>,
    since: u64,
}

impl Throttled {
    const EVERY: Duration = Duration::from_secs(10);

    /// Counts one event; returns how many there were since the last logged one if this one is
    /// to be logged.
    fn count(&mut self) -> Option<u64> {
        self.since += 1;
        let now = tokio::time::Instant::now();
        if self.last.is_some_and(|last| now - last < Throttled::EVERY) {
            return None;
        }
        self.last = Some(now);
        Some(std::mem::take(&mut self.since))
    }
}

/// The TLS settings of [`Config::tls`]: none for plaintext, an error if a file cannot be read.
pub fn tls_config(
    config: &Config,
) -> Result<Option<tonic::transport::ServerTlsConfig>, Box<dyn std::error::Error + Send + Sync>> {
    let Some(tls) = config.tls() else {
        return Ok(None);
    };
    let read = |what: &str, path: &std::path::Path| {
        std::fs::read(path)
            .map_err(|e| format!("cannot read the TLS {what} {}: {e}", path.display()))
    };
    let identity = tonic::transport::Identity::from_pem(
        read("certificate", &tls.cert)?,
        read("key", &tls.key)?,
    );
    Ok(Some(
        tonic::transport::ServerTlsConfig::new().identity(identity),
    ))
}

/// Opens the storage `config` asks for: the SQLite database (created if missing) with every
/// game it holds, or nothing in memory.
pub fn open_store(config: &Config) -> Result<(Store, Loaded), StoreError> {
    match config.storage() {
        Storage::Memory => Ok((Store::memory(), Loaded::default())),
        Storage::Sqlite { path, sync_full } => Store::open(path, *sync_full),
    }
}

/// Opens the storage, then serves until `shutdown` completes (see [`serve`]).
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (store, loaded) = open_store(&config)?;
    serve(config, store, loaded, listener, shutdown).await
}

/// Serves the games of `loaded` and new ones, kept in `store`, until `shutdown` completes:
/// then refuses new requests (`SHUTTING_DOWN`), ends every watch stream, finishes the requests
/// in flight and closes storage. Every acknowledged action is already stored. Connections
/// their clients keep open 5 seconds after the signal are shut down when `serve` returns.
pub async fn serve(
    config: Config,
    mut store: Store,
    loaded: Loaded,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let config = Arc::new(config);
    let metrics = Metrics::new();
    let registry = Arc::new(Registry::new(
        store.clone(),
        config.clone(),
        metrics.clone(),
    ));
    let restored = loaded.games.len();
    registry.restore(loaded.games, loaded.damaged);
    if restored > 0 {
        tracing::info!(games = restored, "games restored from storage");
    }
    if registry.damaged() > 0 {
        tracing::error!(
            games = registry.damaged(),
            db = %config.storage(),
            "stored games not served: their logs are damaged (see the errors above)"
        );
    }
    if let Some(addr) = config.metrics_listen() {
        let metrics_listener = metrics::bind(addr).await?;
        tracing::info!(addr = %metrics_listener.local_addr()?, "serving metrics");
        tokio::spawn(metrics::serve(metrics_listener, metrics.clone()));
    }
    let (stop, stopped) = watch::channel(false);
    let lobby = lobby::Lobby::new(
        registry.clone(),
        store.clone(),
        config.clone(),
        loaded.lobby,
        stopped.clone(),
    );
    let service = Arc::new(Service::new(
        registry,
        lobby,
        config.clone(),
        metrics.clone(),
        stopped.clone(),
    ));
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<CanastaServiceServer<Service>>().await;
    health.set_serving::<LobbyServiceServer<Service>>().await;
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(v1::FILE_DESCRIPTOR_SET)
            // The types of the errors' details (google.rpc.ErrorInfo …), so that a generic
            // client (grpcurl) decodes them from reflection alone.
            .register_encoded_file_descriptor_set(canasta_proto::ERROR_DETAILS_FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;
    let mut stopping = stopped.clone();
    let shutdown = async move {
        shutdown.await;
        tracing::info!("shutting down: ending streams, finishing requests");
        let _ = stop.send(true);
    };
    // A client that vanishes, or stops answering, frees its connection: pings every
    // --keepalive-secs, each to be answered within --keepalive-timeout-secs.
    let mut server = tonic::transport::Server::builder()
        .http2_keepalive_interval(config.keepalive())
        .http2_keepalive_timeout(Some(config.keepalive_timeout()));
    if let Some(tls) = tls_config(&config)? {
        server = server
            .tls_config(tls)
            .map_err(|e| format!("the TLS certificate or key is not usable: {e}"))?;
    }
    // gRPC-Web, from browsers, over HTTP/1.1 as well as HTTP/2: translated into gRPC before
    // every service (the message limit, admission and metrics see a gRPC call), after the
    // CORS of the allowed origins. HTTP/1.1 connections pass the same accept loop (the
    // connection limit, the handshake deadline); hyper closes one that takes more than 30 s
    // to send a request's headers.
    // The page first: a browser's GET of it is answered before CORS and gRPC-Web, which
    // concern calls (POST) and their preflights (OPTIONS) only.
    let mut server = server
        .accept_http1(true)
        .layer(page::PageLayer::new(config.web_page()))
        .layer(web::CrossOriginLayer::new(config.cors_origins()))
        .layer(tonic_web::GrpcWebLayer::new());
    // The transport refuses a request over the limit from its frame header, before reading
    // its body; MessageLimit gives that refusal the service's reason.
    let canasta = MessageLimit::new(
        CanastaServiceServer::from_arc(service.clone())
            .max_decoding_message_size(config.max_message_bytes()),
        config.max_message_bytes(),
        metrics.clone(),
    );
    let lobby = MessageLimit::new(
        LobbyServiceServer::from_arc(service).max_decoding_message_size(config.max_message_bytes()),
        config.max_message_bytes(),
        metrics,
    );
    let open = OpenConnections::default();
    let serving = server
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(canasta)
        .add_service(lobby)
        .serve_with_incoming_shutdown(incoming(listener, open.clone(), &config), shutdown);
    // After the signal the transport waits for every connection to close: a client that
    // ignores the GOAWAY (or is frozen) would hold the exit forever. Its requests in flight
    // have had SHUTDOWN_GRACE to finish; what it has not been answered was not acknowledged.
    let grace = async move {
        let _ = stopping.wait_for(|stopped| *stopped).await;
        tokio::time::sleep(SHUTDOWN_GRACE).await;
    };
    tokio::select! {
        served = serving => served?,
        _ = grace => {
            // The transport's connection tasks outlive `serving`: they are cut (their reads end,
            // their writes fail, the tasks are woken), so that they end and close their
            // sockets here too, not only when the process exits.
            let cut = open.cut_all();
            tracing::warn!(
                grace = ?SHUTDOWN_GRACE,
                connections = cut,
                "connections still open after the shutdown grace: closing them"
            );
        }
    }
    store.close();
    Ok(())
}

/// How long a shutdown waits for clients to close their connections.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

#[cfg(test)]
mod tests {
    use super::*;

    /// A listener whose first accepts fail as when the process is out of descriptors.
    struct Exhausted {
        failures_left: usize,
        calls: usize,
        listener: TcpListener,
    }

    impl Listen for Exhausted {
        async fn accept(&mut self) -> std::io::Result<TcpStream> {
            self.calls += 1;
            if self.failures_left > 0 {
                self.failures_left -= 1;
                // EMFILE.
                return Err(std::io::Error::from_raw_os_error(24));
            }
            TcpListener::accept(&self.listener).await.map(|(s, _)| s)
        }
    }

    // Failed accepts are retried after a pause that doubles from 5 ms to a second, not at
    // once: the transport skips a failed accept and asks again, and a listener out of
    // descriptors fails again at once (it spun at 90% CPU). A success ends the pauses. On a
    // paused clock, which moves on by itself when the runtime has nothing to do but wait: to
    // the end of each pause (no other timer runs meanwhile: the connections accepted are
    // dropped, with their handshake deadlines, at once).
    #[tokio::test(start_paused = true)]
    async fn failed_accepts_are_retried_after_a_growing_pause() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let _waiting = TcpStream::connect(addr).await.unwrap();
        let _next = TcpStream::connect(addr).await.unwrap();
        let mut accepting = Accepting {
            listener: Exhausted {
                failures_left: 12,
                calls: 0,
                listener,
            },
            open: OpenConnections::default(),
            limit: 10,
            handshake: Duration::from_secs(3600),
            failures: Throttled::default(),
            refusals: Throttled::default(),
            pause: Duration::ZERO,
        };
        let started = tokio::time::Instant::now();
        drop(accepting.next().await);
        // 5, 10, 20, … 640 ms, then 1 s four times.
        let paused: Duration = (0..8)
            .map(|i| Duration::from_millis(5 << i))
            .chain([Duration::from_secs(1); 4])
            .sum();
        assert_eq!(accepting.listener.calls, 13);
        assert_eq!(started.elapsed(), paused);
        // Logged once (the first failure, at once), within the log's 10 s: the 11 others are
        // counted for its next line.
        assert_eq!(accepting.failures.since, 11);
        assert_eq!(accepting.pause, Duration::ZERO);
        let before = tokio::time::Instant::now();
        drop(accepting.next().await);
        assert_eq!(before.elapsed(), Duration::ZERO, "no pause after a success");
    }

    #[test]
    fn the_connection_limit_leaves_room_under_the_descriptor_limit() {
        assert_eq!(connection_limit(10_000, None), 10_000);
        assert_eq!(connection_limit(10_000, Some(1 << 20)), 10_000);
        assert_eq!(connection_limit(10_000, Some(1024)), 1024 - 64);
        assert_eq!(connection_limit(10_000, Some(10)), 1);
        #[cfg(target_os = "linux")]
        assert!(descriptor_limit().is_some_and(|n| n > 0));
    }

    // The binaries' runtime has what the server uses: tasks on several workers, timers and
    // sockets.
    #[test]
    fn the_runtime_runs_tasks_timers_and_sockets() {
        let runtime = runtime().expect("the runtime starts");
        let (sum, addr) = runtime.block_on(async {
            let tasks: Vec<_> = (0..64u64).map(|i| tokio::spawn(async move { i })).collect();
            let mut sum = 0;
            for t in tasks {
                sum += t.await.expect("the task ran");
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bound");
            (sum, listener.local_addr().expect("an address"))
        });
        assert_eq!(sum, 64 * 63 / 2);
        assert!(addr.ip().is_loopback() && addr.port() != 0);
    }
}
