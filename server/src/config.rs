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
    /// A configuration for tests: in memory, on a free loopback port, short heartbeats.
    pub fn for_tests() -> Config {
        Config::parse_from(["canasta-server", "--memory", "--listen", "127.0.0.1:0"])
    }

    /// The heartbeat period.
    pub fn heartbeat(&self) -> Duration {
        Duration::from_secs_f64(self.heartbeat_secs.max(0.01))
    }
}
