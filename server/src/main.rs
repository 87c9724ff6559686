//! `canasta-server`: serves canasta.v1 on `--listen` with SQLite storage (`--db`).

use std::process::ExitCode;

use clap::Parser;
use tracing_subscriber::EnvFilter;

use canasta_server::Config;

#[tokio::main]
async fn main() -> ExitCode {
    let config = Config::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();
    let listener = match tokio::net::TcpListener::bind(config.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("canasta-server: cannot listen on {}: {e}", config.listen);
            return ExitCode::FAILURE;
        }
    };
    match listener.local_addr() {
        Ok(addr) => {
            // One plain line on stdout, whatever the log settings, so that a script or a test
            // that starts the server on port 0 learns the port it got.
            println!("listening on {addr}");
            tracing::info!(%addr, db = %if config.memory { "memory".into() } else { config.db.display().to_string() }, "serving canasta.v1")
        }
        Err(e) => tracing::warn!(error = %e, "listening, address unknown"),
    }
    match canasta_server::run(config, listener, shutdown_signal()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("canasta-server: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Completes on SIGINT or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(t) => t,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
