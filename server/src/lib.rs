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
//! - [`auth`], [`ratelimit`], [`errors`], [`metrics`]: one concern each.
//!
//! [`run`] serves on a listener the caller binds, so tests bind `127.0.0.1:0`.

pub mod actor;
pub mod auth;
pub mod config;
pub mod errors;
pub mod metrics;
pub mod ratelimit;
pub mod registry;
pub mod service;
pub mod store;

use std::future::Future;
use std::sync::Arc;

use canasta_proto::v1;
use canasta_proto::v1::canasta_service_server::CanastaServiceServer;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_stream::wrappers::TcpListenerStream;

pub use config::Config;

use crate::metrics::Metrics;
use crate::registry::Registry;
use crate::service::Service;
use crate::store::Store;

/// The largest message the transport accepts; the service's own, smaller limit
/// (`--max-message-bytes`) answers RESOURCE_EXHAUSTED below it.
const TRANSPORT_MESSAGE_LIMIT: usize = 64 << 20;

/// Accepted connections, with Nagle's algorithm off: a small response must not wait for an
/// acknowledgement that the client delays (tonic sets this only on listeners it binds itself).
fn incoming(
    listener: TcpListener,
) -> impl tokio_stream::Stream<Item = std::io::Result<tokio::net::TcpStream>> {
    use tokio_stream::StreamExt;
    TcpListenerStream::new(listener).map(|conn| {
        if let Ok(c) = &conn {
            let _ = c.set_nodelay(true);
        }
        conn
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

/// Serves until `shutdown` completes: then ends every watch stream, finishes the requests in
/// flight and closes storage. Every acknowledged action is already stored.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let config = Arc::new(config);
    let metrics = Metrics::new();
    let (mut store, stored) = if config.memory {
        (Store::memory(), Vec::new())
    } else {
        Store::open(&config.db, config.sync_full)?
    };
    let registry = Arc::new(Registry::new(
        store.clone(),
        config.clone(),
        metrics.clone(),
    ));
    let restored = stored.len();
    registry.restore(stored);
    if restored > 0 {
        tracing::info!(games = restored, "games restored from storage");
    }
    if let Some(addr) = config.metrics_listen {
        let metrics_listener = metrics::bind(addr).await?;
        tracing::info!(addr = %metrics_listener.local_addr()?, "serving metrics");
        tokio::spawn(metrics::serve(metrics_listener, metrics.clone()));
    }
    let (stop, stopped) = watch::channel(false);
    let service = Service::new(registry, config.clone(), metrics, stopped);
    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<CanastaServiceServer<Service>>().await;
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(v1::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;
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
    server
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(
            CanastaServiceServer::new(service).max_decoding_message_size(TRANSPORT_MESSAGE_LIMIT),
        )
        .serve_with_incoming_shutdown(incoming(listener), shutdown)
        .await?;
    store.close();
    Ok(())
}
