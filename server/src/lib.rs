//! The Canasta referee: a tonic gRPC server (package `canasta.v1`) that hosts authoritative
//! games, streams their events, and keeps them in an embedded SQLite database.
//!
//! # Layout
//!
//! - [`config`]: flags and environment variables.
//! - [`service`]: the gRPC service: tokens, limits, requests to games, errors to statuses.
//! - [`registry`]: the games held: create, restore, find, list.
//! - [`actor`]: one task per game owning its state, log, seats, time control and watchers.
//! - [`store`]: SQLite storage with group commit (or memory).
//! - [`auth`], [`ratelimit`], [`message_limit`], [`errors`], [`metrics`], [`connections`],
//!   [`names`]: one concern each.
//!
//! [`run`] serves on a listener the caller binds, so tests bind `127.0.0.1:0`; [`open_store`]
//! and [`serve`] are its two halves, for a caller that must know the database is open before
//! it says it serves (the binary), or that holds the store's fault switch (tests).

pub mod actor;
pub mod auth;
pub mod config;
pub mod connections;
pub mod errors;
pub mod message_limit;
pub mod metrics;
pub mod names;
pub mod ratelimit;
pub mod registry;
pub mod service;
pub mod store;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use canasta_proto::v1;
use canasta_proto::v1::canasta_service_server::CanastaServiceServer;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_stream::wrappers::TcpListenerStream;

pub use config::Config;

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
/// registered with `open` while they live.
fn incoming(
    listener: TcpListener,
    open: OpenConnections,
) -> impl tokio_stream::Stream<Item = std::io::Result<Conn>> {
    use tokio_stream::StreamExt;
    TcpListenerStream::new(listener).map(move |conn| {
        conn.map(|c| {
            let _ = c.set_nodelay(true);
            open.serve(c)
        })
    })
}

/// The TLS settings of `--tls-cert` and `--tls-key`: none if neither is set, an error if only
/// one is, or if a file cannot be read.
pub fn tls_config(
    config: &Config,
) -> Result<Option<tonic::transport::ServerTlsConfig>, Box<dyn std::error::Error + Send + Sync>> {
    let (cert, key) = match (&config.tls_cert, &config.tls_key) {
        (None, None) => return Ok(None),
        (Some(c), Some(k)) => (c, k),
        _ => {
            return Err(
                "TLS needs both --tls-cert and --tls-key (PEM files); give both, or neither for plaintext"
                    .into(),
            );
        }
    };
    let read = |what: &str, path: &std::path::Path| {
        std::fs::read(path)
            .map_err(|e| format!("cannot read the TLS {what} {}: {e}", path.display()))
    };
    let identity =
        tonic::transport::Identity::from_pem(read("certificate", cert)?, read("key", key)?);
    Ok(Some(
        tonic::transport::ServerTlsConfig::new().identity(identity),
    ))
}

/// Opens the storage `config` asks for: the SQLite database at `--db` (created if missing)
/// with every game it holds, or nothing with `--memory`.
pub fn open_store(config: &Config) -> Result<(Store, Loaded), StoreError> {
    if config.memory {
        Ok((Store::memory(), Loaded::default()))
    } else {
        Store::open(&config.db, config.sync_full)
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
            db = %config.db.display(),
            "stored games not served: their logs are damaged (see the errors above)"
        );
    }
    if let Some(addr) = config.metrics_listen {
        let metrics_listener = metrics::bind(addr).await?;
        tracing::info!(addr = %metrics_listener.local_addr()?, "serving metrics");
        tokio::spawn(metrics::serve(metrics_listener, metrics.clone()));
    }
    let (stop, stopped) = watch::channel(false);
    let service = Service::new(registry, config.clone(), metrics.clone(), stopped.clone());
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<CanastaServiceServer<Service>>().await;
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(v1::FILE_DESCRIPTOR_SET)
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
    let mut server = tonic::transport::Server::builder();
    if let Some(tls) = tls_config(&config)? {
        server = server
            .tls_config(tls)
            .map_err(|e| format!("the TLS certificate or key is not usable: {e}"))?;
    }
    // The transport refuses a request over the limit from its frame header, before reading
    // its body; MessageLimit gives that refusal the service's reason.
    let canasta = MessageLimit::new(
        CanastaServiceServer::new(service).max_decoding_message_size(config.max_message_bytes),
        config.max_message_bytes,
        metrics,
    );
    let open = OpenConnections::default();
    let serving = server
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(canasta)
        .serve_with_incoming_shutdown(incoming(listener, open.clone()), shutdown);
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
            // The transport's connection tasks outlive `serving`: their sockets are shut down,
            // so that they end here too, not only when the process exits.
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
