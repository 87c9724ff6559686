//! Servers on a paused clock, for the tests of time: the server's clock stands still until the
//! test moves it ([`Advance::advance`]), and the test then waits for the events the time
//! brings. Tokio's paused clock needs its `test-util` feature, a dev-dependency: only test
//! builds have it, so this is the tests' own module and not the helpers' library (which the
//! workspace builds with the binaries).

// Each test file uses a part.
#![allow(dead_code)]

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use canasta_server::Config;
use canasta_server::store::{Loaded, Store};
use canasta_tests::{TestServer, db_config};

/// Starts a server with this configuration on a runtime of its own (one thread) whose clock
/// stands still until [`Advance::advance`] moves it. Its HTTP/2 keepalive pings are off: a
/// ping's answer comes on the real clock and its time-out on the paused one, so a test that
/// moved the clock on past the time-out before the server read the answer would see its
/// connection cut.
pub async fn paused(config: Config) -> TestServer {
    let (store, loaded) = canasta_server::open_store(&config).expect("the storage opens");
    paused_with_store(config, store, loaded).await
}

/// [`paused`] with SQLite storage at `db`.
pub async fn paused_with_db(db: &Path) -> TestServer {
    paused(db_config(db)).await
}

/// [`paused`] on storage the test opened.
pub async fn paused_with_store(config: Config, store: Store, loaded: Loaded) -> TestServer {
    let config = config.to_builder().keepalive(None).build().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("the server's runtime");
    TestServer::on_own_runtime(config, store, loaded, runtime).await
}

/// The paused clock of a server started by [`paused`].
pub trait Advance {
    /// Moves the server's clock on by `by`: every timer due by then fires (the events they
    /// cause follow; wait for them). Panics if the server's clock is not paused.
    fn advance(&self, by: Duration) -> impl Future<Output = ()>;
}

impl Advance for TestServer {
    async fn advance(&self, by: Duration) {
        self.on_server(tokio::time::advance(by)).await;
    }
}
