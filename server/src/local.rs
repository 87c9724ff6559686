//! A server in this process, on a free loopback port: for a program that plays against a
//! server of its own (`canasta play --local`, `canasta demo`, `canasta loadtest`), or a test.

use std::error::Error;
use std::net::{Ipv4Addr, SocketAddr};

use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::{Config, open_store, serve, tls_config};

/// Why a server could not start or stopped with an error.
pub type ServeError = Box<dyn Error + Send + Sync>;

/// A server serving on `127.0.0.1` at a port the system chose, on the tokio runtime it was
/// started on, until [`LocalServer::shutdown`] or until it is dropped (which begins the same
/// graceful shutdown and does not wait for it).
///
/// ```no_run
/// # async fn demo() -> Result<(), canasta_server::local::ServeError> {
/// use canasta_server::{Config, LocalServer, Storage};
///
/// let config = Config::builder().storage(Storage::Memory).build()?;
/// let server = LocalServer::start(config).await?;
/// println!("connect to http://{}", server.addr());
/// server.shutdown().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct LocalServer {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<Result<(), ServeError>>>,
}

impl LocalServer {
    /// Opens the storage `config` names (with the games it holds), checks its TLS files, binds
    /// a free port of `127.0.0.1` and serves there. Must be called on a tokio runtime, which
    /// the server then runs on. Fails, serving nothing, if the storage does not open, a TLS
    /// file cannot be read or no port is free.
    pub async fn start(config: Config) -> Result<LocalServer, ServeError> {
        let (store, loaded) = open_store(&config).map_err(|e| {
            format!(
                "cannot open the database {}: {e} (check the path and its permissions, or keep \
                 the games in memory)",
                config.storage()
            )
        })?;
        tls_config(&config)?;
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .await
            .map_err(|e| format!("cannot listen on a free port of 127.0.0.1: {e}"))?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve(config, store, loaded, listener, async {
            // A dropped sender stops the server too.
            let _ = stopped.await;
        }));
        Ok(LocalServer {
            addr,
            stop: Some(stop),
            task: Some(task),
        })
    }

    /// Where it serves: `127.0.0.1` and its port.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Shuts the server down gracefully (see [`crate::serve`]: streams end, requests in
    /// flight finish, storage closes) and waits until it has; returns the error it stopped
    /// with, if any (e.g. a metrics address that could not be bound).
    pub async fn shutdown(mut self) -> Result<(), ServeError> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.task.take() {
            Some(task) => task
                .await
                .map_err(|e| format!("the local server's task failed: {e}"))?,
            None => Ok(()),
        }
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Storage;
    use canasta_proto::v1;
    use canasta_proto::v1::canasta_service_client::CanastaServiceClient;

    async fn client(server: &LocalServer) -> CanastaServiceClient<tonic::transport::Channel> {
        CanastaServiceClient::connect(format!("http://{}", server.addr()))
            .await
            .expect("the local server accepts a client")
    }

    // It serves on loopback, at the port it says, until shut down; then the port is closed.
    #[tokio::test]
    async fn a_local_server_serves_on_loopback_until_shut_down() {
        let server = LocalServer::start(Config::for_tests()).await.unwrap();
        let addr = server.addr();
        assert!(addr.ip().is_loopback() && addr.port() != 0, "{addr}");
        let games = client(&server)
            .await
            .list_games(v1::ListGamesRequest::default())
            .await
            .expect("the server answers")
            .into_inner();
        assert!(games.games.is_empty());
        server.shutdown().await.expect("a clean shutdown");
        assert!(
            tokio::net::TcpStream::connect(addr).await.is_err(),
            "{addr} still accepts connections after the shutdown"
        );
    }

    // A database, kept across two local servers: the storage of the configuration is used,
    // and the first shutdown closed it.
    #[tokio::test]
    async fn a_local_server_keeps_its_games_in_the_configured_storage() {
        let dir = tempfile::Builder::new()
            .prefix("canasta-local-")
            .tempdir()
            .unwrap();
        let config = Config::for_tests()
            .to_builder()
            .storage(Storage::sqlite(dir.path().join("games.db")))
            .build()
            .unwrap();
        let server = LocalServer::start(config.clone()).await.unwrap();
        let created = client(&server)
            .await
            .create_game(v1::CreateGameRequest {
                rules: Some(canasta_proto::convert::rules_to_wire(
                    &canasta_engine::RuleSpec::new(canasta_engine::Preset::Official, 2),
                )),
                ..Default::default()
            })
            .await
            .expect("a game is created")
            .into_inner()
            .game
            .expect("its summary");
        server.shutdown().await.unwrap();
        let again = LocalServer::start(config).await.unwrap();
        let games = client(&again)
            .await
            .list_games(v1::ListGamesRequest::default())
            .await
            .unwrap()
            .into_inner()
            .games;
        assert_eq!(
            games.iter().map(|g| &g.game_id).collect::<Vec<_>>(),
            [&created.game_id]
        );
        again.shutdown().await.unwrap();
    }

    // What cannot start says so, and serves nothing.
    #[tokio::test]
    async fn a_local_server_that_cannot_start_says_why() {
        let dir = tempfile::Builder::new()
            .prefix("canasta-local-")
            .tempdir()
            .unwrap();
        let missing = dir.path().join("no/such/dir/games.db");
        let config = Config::for_tests()
            .to_builder()
            .storage(Storage::sqlite(&missing))
            .build()
            .unwrap();
        let e = LocalServer::start(config).await.unwrap_err().to_string();
        assert!(e.contains("cannot open the database"), "{e}");
        assert!(e.contains(&missing.display().to_string()), "{e}");
        let config = Config::for_tests()
            .to_builder()
            .tls(Some(crate::Tls {
                cert: missing.clone(),
                key: missing.clone(),
            }))
            .build()
            .unwrap();
        let e = LocalServer::start(config).await.unwrap_err().to_string();
        assert!(e.contains("cannot read the TLS certificate"), "{e}");
    }

    // Dropped, it stops serving: the graceful shutdown begins without anyone waiting for it.
    #[tokio::test]
    async fn a_dropped_local_server_stops() {
        let server = LocalServer::start(Config::for_tests()).await.unwrap();
        let mut client = client(&server).await;
        drop(server);
        // The first answer after the signal may still come (the request may be in flight
        // before it); the server then refuses new requests and closes: wait for the refusal.
        while client
            .list_games(v1::ListGamesRequest::default())
            .await
            .is_ok()
        {
            tokio::task::yield_now().await;
        }
    }
}
