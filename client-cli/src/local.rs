//! The server that `canasta play --local`, `canasta demo` and `canasta loadtest` run in this
//! process: the server crate's [`canasta_server::LocalServer`] with the configurations these
//! commands need. Only with the cargo feature `local` (on by default); a `canasta` built
//! without it links no server (nor SQLite) and says so when asked for one.

use std::path::Path;

/// Why a command cannot run a server in this process, in a build without one.
#[cfg(not(feature = "local"))]
pub const NO_LOCAL_SERVER: &str = "this canasta was built without an in-process server (the \
     cargo feature `local`): pass --server ADDR to use a running canasta-server";

/// A server running in this process, on a free port of 127.0.0.1.
#[cfg(feature = "local")]
pub use canasta_server::LocalServer;

/// In a build without the feature `local` no server can run in this process: the type has no
/// value, and the functions that would start one fail with [`NO_LOCAL_SERVER`].
#[cfg(not(feature = "local"))]
pub struct LocalServer(std::convert::Infallible);

#[cfg(not(feature = "local"))]
impl LocalServer {
    /// Where it serves.
    pub fn addr(&self) -> std::net::SocketAddr {
        match self.0 {}
    }

    /// Shuts it down.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        match self.0 {}
    }
}

/// Starts a server in memory for `play --local` and `demo`: the person and the bots this
/// process runs are its only clients.
pub async fn for_play() -> anyhow::Result<LocalServer> {
    start(Purpose::Play).await
}

/// Starts a server for `loadtest`: in memory, or with its SQLite database at `db`, and with
/// its rate limits lifted (the run measures throughput, not limits).
pub async fn for_load(db: Option<&Path>) -> anyhow::Result<LocalServer> {
    start(Purpose::Load(db)).await
}

/// What the server is for.
#[cfg_attr(not(feature = "local"), allow(dead_code))]
enum Purpose<'a> {
    Play,
    Load(Option<&'a Path>),
}

#[cfg(feature = "local")]
async fn start(purpose: Purpose<'_>) -> anyhow::Result<LocalServer> {
    use anyhow::Context;
    use canasta_server::{Config, Storage};
    // Every client comes from this process, on 127.0.0.1: the limits per address, which
    // share a server among its clients' addresses, would only limit this one.
    let config = Config::builder()
        .storage(Storage::Memory)
        .address_requests_per_second(1e9)
        .max_watchers_per_address(1_000_000);
    let config = match purpose {
        Purpose::Play => config,
        Purpose::Load(db) => config
            .storage(db.map_or(Storage::Memory, Storage::sqlite))
            .requests_per_second(1e9),
    };
    let config = config
        .build()
        .context("the in-process server's configuration")?;
    LocalServer::start(config)
        .await
        .map_err(|e| anyhow::anyhow!(e))
        .context("cannot start a server in this process")
}

#[cfg(not(feature = "local"))]
async fn start(_: Purpose<'_>) -> anyhow::Result<LocalServer> {
    anyhow::bail!(NO_LOCAL_SERVER)
}
