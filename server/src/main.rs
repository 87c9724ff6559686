//! `canasta-server`: serves canasta.v1 on `--listen` with SQLite storage (`--db`).

mod flags;

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::process::ExitCode;

use tracing_subscriber::EnvFilter;

use canasta_server::Config;

use crate::flags::Flags;

// Every request and stream message allocates small buffers on the runtime's worker threads:
// mimalloc's thread-local heaps serve them with less work and contention than glibc's malloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Bad flags exit with clap's message and code 2, before anything starts.
    let (flags, config) = Flags::parse_config();
    match canasta_server::runtime() {
        Ok(runtime) => runtime.block_on(serve(flags, config)),
        Err(e) => {
            eprintln!("canasta-server: cannot start: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Opens the storage, binds the listener and serves until SIGINT or SIGTERM.
async fn serve(flags: Flags, config: Config) -> ExitCode {
    // Logs go to stderr: stdout carries only the `listening on` line that scripts read.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();
    if std::env::var_os("CANASTA_MAX_WATCHERS_PER_GAME").is_some() {
        tracing::warn!(
            "CANASTA_MAX_WATCHERS_PER_GAME is no longer read: seats' own streams are limited per \
             token only; set CANASTA_MAX_SPECTATORS_PER_GAME to limit spectators per game"
        );
    }
    if flags.memory && flags.sync_full {
        tracing::warn!("--sync-full does nothing with --memory: nothing is written to a disk");
    }
    let db = config.storage().to_string();
    let (store, loaded) = match canasta_server::open_store(&config) {
        Ok(opened) => opened,
        Err(e) => {
            eprintln!(
                "canasta-server: cannot open the database {db}: {e} (check the path and its \
                 permissions, or pass --memory to keep nothing)"
            );
            return ExitCode::FAILURE;
        }
    };
    let shutdown = match shutdown_signal() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("canasta-server: cannot listen for SIGINT and SIGTERM: {e}");
            return ExitCode::FAILURE;
        }
    };
    let listen: SocketAddr = flags.listen;
    let listener = match tokio::net::TcpListener::bind(listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("canasta-server: cannot listen on {listen}: {e}");
            return ExitCode::FAILURE;
        }
    };
    match listener.local_addr() {
        Ok(addr) => {
            // One plain line on stdout, whatever the log settings, once the database is open
            // and the port bound, so that a script or a test that starts the server on port 0
            // learns the port it got and may connect at once.
            println!("listening on {addr}");
            tracing::info!(%addr, %db, "serving canasta.v1")
        }
        Err(e) => tracing::warn!(error = %e, "listening, address unknown"),
    }
    match canasta_server::serve(config, store, loaded, listener, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("canasta-server: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Listens for SIGINT and SIGTERM from now on (their default action, an abrupt exit, is off),
/// and completes on the first: so a script that reads `listening on` and signals at once gets a
/// graceful shutdown.
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut terminate = signal(SignalKind::terminate())?;
        Ok(async move {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}
