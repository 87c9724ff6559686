//! The server's configuration: command-line flags, each with an environment variable fallback.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

/// The Canasta referee: hosts authoritative games over gRPC (package canasta.v1).
#[derive(Clone, Debug, Parser)]
#[command(name = "canasta-server", version, about, long_about = None)]
pub struct Config {
    /// Address to serve gRPC on.
    #[arg(long, env = "CANASTA_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    /// SQLite database file holding every game; created if missing.
    #[arg(long, env = "CANASTA_DB", default_value = "canasta.db")]
    pub db: PathBuf,

    /// Keep games in memory only: nothing survives a restart (tests, throwaway runs).
    #[arg(long, env = "CANASTA_MEMORY")]
    pub memory: bool,

    /// Make every write reach the disk before it is acknowledged (survives power loss, not
    /// only a crash of the server; slower).
    #[arg(long, env = "CANASTA_SYNC_FULL")]
    pub sync_full: bool,

    /// Serve Prometheus metrics over HTTP on this address (e.g. 127.0.0.1:9090); off if unset.
    #[arg(long, env = "CANASTA_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// Most games the server holds.
    #[arg(long, env = "CANASTA_MAX_GAMES", default_value_t = 200_000)]
    pub max_games: usize,

    /// Most watch streams open on one game.
    #[arg(long, env = "CANASTA_MAX_WATCHERS_PER_GAME", default_value_t = 64)]
    pub max_watchers_per_game: usize,

    /// Largest request message, in bytes.
    #[arg(long, env = "CANASTA_MAX_MESSAGE_BYTES", default_value_t = 1 << 20)]
    pub max_message_bytes: usize,

    /// Requests per second one seat token may make (bursts up to twice as many).
    #[arg(long, env = "CANASTA_REQUESTS_PER_SECOND", default_value_t = 200.0)]
    pub requests_per_second: f64,

    /// Requests per second one IP address may make without a seat token (creating, joining,
    /// listing, spectating; bursts up to twice as many).
    #[arg(
        long,
        env = "CANASTA_ADDRESS_REQUESTS_PER_SECOND",
        default_value_t = 1000.0
    )]
    pub address_requests_per_second: f64,

    /// Most watch streams one seat token may hold open.
    #[arg(long, env = "CANASTA_MAX_WATCHERS_PER_TOKEN", default_value_t = 8)]
    pub max_watchers_per_token: usize,

    /// Most spectator watch streams (without a seat token) one IP address may hold open.
    #[arg(long, env = "CANASTA_MAX_WATCHERS_PER_ADDRESS", default_value_t = 256)]
    pub max_watchers_per_address: usize,

    /// TLS certificate chain (PEM) to serve gRPC over TLS; needs --tls-key. Plaintext if unset.
    #[arg(long, env = "CANASTA_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// TLS private key (PEM) of --tls-cert.
    #[arg(long, env = "CANASTA_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Seconds between heartbeats on an idle watch stream.
    #[arg(long, env = "CANASTA_HEARTBEAT_SECS", default_value_t = 15.0)]
    pub heartbeat_secs: f64,

    /// Messages a watch stream may fall behind before it is told it lagged and closed.
    #[arg(long, env = "CANASTA_WATCH_BUFFER", default_value_t = 4096)]
    pub watch_buffer: usize,

    /// Most legal actions listed in one prompt.
    #[arg(long, env = "CANASTA_MAX_PROMPT_ACTIONS", default_value_t = 2000)]
    pub max_prompt_actions: usize,
}

impl Config {
    /// A configuration for tests: in memory, on a free loopback port. Every test client comes
    /// from 127.0.0.1, so the per-address limits are raised out of reach; a test of a limit
    /// lowers it.
    pub fn for_tests() -> Config {
        Config::parse_from([
            "canasta-server",
            "--memory",
            "--listen",
            "127.0.0.1:0",
            "--address-requests-per-second",
            "1000000",
            "--max-watchers-per-address",
            "100000",
            "--max-watchers-per-token",
            "1000",
        ])
    }

    /// The heartbeat period.
    pub fn heartbeat(&self) -> Duration {
        Duration::from_secs_f64(self.heartbeat_secs.max(0.01))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_takes_both_files_or_neither() {
        let parse = |args: &[&str]| {
            Config::try_parse_from(std::iter::once("canasta-server").chain(args.iter().copied()))
        };
        assert!(parse(&[]).unwrap().tls_cert.is_none());
        let both = parse(&["--tls-cert", "c.pem", "--tls-key", "k.pem"]).unwrap();
        assert_eq!(both.tls_cert, Some(PathBuf::from("c.pem")));
        assert_eq!(both.tls_key, Some(PathBuf::from("k.pem")));
        let err = parse(&["--tls-cert", "c.pem"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert!(err.to_string().contains("--tls-key"), "{err}");
        let err = parse(&["--tls-key", "k.pem"]).unwrap_err();
        assert!(err.to_string().contains("--tls-cert"), "{err}");
    }

    #[test]
    fn limits_have_defaults_and_tests_raise_the_per_address_ones() {
        let defaults = Config::parse_from(["canasta-server"]);
        assert_eq!(defaults.max_watchers_per_token, 8);
        assert_eq!(defaults.max_watchers_per_address, 256);
        assert_eq!(defaults.address_requests_per_second, 1000.0);
        let tests = Config::for_tests();
        assert_eq!(tests.max_watchers_per_address, 100_000);
        assert_eq!(tests.address_requests_per_second, 1_000_000.0);
        assert_eq!(tests.requests_per_second, defaults.requests_per_second);
    }
}
