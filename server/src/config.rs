//! The server's configuration: command-line flags, each with an environment variable fallback.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::BoolishValueParser;
use clap::{ArgAction, Parser};

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

    /// Keep games in memory only: nothing survives a restart (tests, throwaway runs). The
    /// environment variable takes 1/0, true/false, yes/no or on/off.
    #[arg(long, env = "CANASTA_MEMORY", action = ArgAction::SetTrue, value_parser = BoolishValueParser::new())]
    pub memory: bool,

    /// Make every write reach the disk before it is acknowledged (survives power loss, not
    /// only a crash of the server; slower). The environment variable takes 1/0, true/false,
    /// yes/no or on/off.
    #[arg(long, env = "CANASTA_SYNC_FULL", action = ArgAction::SetTrue, value_parser = BoolishValueParser::new())]
    pub sync_full: bool,

    /// Serve Prometheus metrics over HTTP on this address (e.g. 127.0.0.1:9090); off if unset.
    #[arg(long, env = "CANASTA_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,

    /// Most unfinished games (waiting for players or in play) the server holds; finished
    /// games do not count and stay readable.
    #[arg(long, env = "CANASTA_MAX_GAMES", default_value_t = 200_000)]
    pub max_games: usize,

    /// Most spectator watch streams (without a seat token) open on one game. A seat's own
    /// streams are not counted here: they are limited per token (--max-watchers-per-token), so
    /// spectators can never lock a player out. (--max-watchers-per-game is its old name.)
    #[arg(
        long,
        env = "CANASTA_MAX_SPECTATORS_PER_GAME",
        default_value_t = 64,
        alias = "max-watchers-per-game"
    )]
    pub max_spectators_per_game: usize,

    /// Largest request message, in bytes.
    #[arg(long, env = "CANASTA_MAX_MESSAGE_BYTES", default_value_t = 1 << 20)]
    pub max_message_bytes: usize,

    /// Requests per second one seat token may make on its own game (bursts up to twice as
    /// many).
    #[arg(long, env = "CANASTA_REQUESTS_PER_SECOND", default_value_t = 200.0)]
    pub requests_per_second: f64,

    /// Requests per second one IP address may make for every call whose token holds no seat
    /// of the game it names (creating, joining, listing, spectating, made-up tokens; bursts up
    /// to twice as many).
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

    /// Seconds a watch stream may stay unable to take a message (its client does not read)
    /// before it is told it lagged and closed, freeing its place; the client resumes by seq.
    #[arg(long, env = "CANASTA_WATCH_SEND_TIMEOUT_SECS", default_value_t = 30.0)]
    pub watch_send_timeout_secs: f64,

    /// Most legal actions listed in one prompt.
    #[arg(long, env = "CANASTA_MAX_PROMPT_ACTIONS", default_value_t = 2000)]
    pub max_prompt_actions: usize,

    /// Shortest move budget (TimeControl.move_budget_ms) a game may be created with, in
    /// milliseconds; 0, no time control, is always allowed. Below a remote bot's round trip
    /// (prompt, decision, action) honest players time out, and every time-out is the server's
    /// work: a fallback move chosen, stored and sent to every watcher.
    #[arg(
        long,
        env = "CANASTA_MIN_MOVE_BUDGET_MS",
        default_value_t = 1000,
        value_parser = clap::value_parser!(u64).range(1..=MOVE_BUDGET_LIMIT_MS)
    )]
    pub min_move_budget_ms: u64,

    /// Longest move budget a game may be created with, in milliseconds (a day by default): a
    /// game whose seat to act has gone holds its place among the unfinished games
    /// (--max-games) for a whole budget. At most a year.
    #[arg(
        long,
        env = "CANASTA_MAX_MOVE_BUDGET_MS",
        default_value_t = 86_400_000,
        value_parser = clap::value_parser!(u64).range(1..=MOVE_BUDGET_LIMIT_MS)
    )]
    pub max_move_budget_ms: u64,

    /// Seconds a game may wait for players: a game whose seats are not all taken within them
    /// of its creation or of its last join or leave ends, expired (MATCH_END_KIND_EXPIRED),
    /// and frees its place among the unfinished games (--max-games). 0: never. At most a year.
    #[arg(
        long,
        env = "CANASTA_WAITING_TIMEOUT_SECS",
        default_value_t = 3600.0,
        value_parser = timeout_secs
    )]
    pub waiting_timeout_secs: f64,

    /// Seconds a started game without a time control may go without any seat acting,
    /// joining or leaving; past them it ends, abandoned (MATCH_END_KIND_ABANDONED, no side
    /// wins). Games with a time control end by their time-outs instead. 0: never. At most a
    /// year.
    #[arg(
        long,
        env = "CANASTA_IDLE_TIMEOUT_SECS",
        default_value_t = 86_400.0,
        value_parser = timeout_secs
    )]
    pub idle_timeout_secs: f64,

    /// Seconds a started game may have every seat left (free after LeaveGame); past them it
    /// ends, abandoned (MATCH_END_KIND_ABANDONED), with or without a time control. 0: never. At
    /// most a year.
    #[arg(
        long,
        env = "CANASTA_LEFT_TIMEOUT_SECS",
        default_value_t = 600.0,
        value_parser = timeout_secs
    )]
    pub left_timeout_secs: f64,

    /// Seconds a Play call may take to send its opening `watch` message; past them it ends
    /// with DEADLINE_EXCEEDED (PLAY_NOT_OPENED) and holds nothing.
    #[arg(long, env = "CANASTA_PLAY_OPEN_TIMEOUT_SECS", default_value_t = 10.0)]
    pub play_open_timeout_secs: f64,

    /// Most client connections served at once; one more is accepted and closed at once. Kept
    /// below the process's descriptor limit (ulimit -n) less what the server needs besides.
    #[arg(long, env = "CANASTA_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub max_connections: usize,

    /// Seconds a new connection may take to send its first 24 bytes (the length of HTTP/2's
    /// preface, or of the start of a TLS handshake); past them it is closed.
    #[arg(long, env = "CANASTA_HANDSHAKE_TIMEOUT_SECS", default_value_t = 10.0)]
    pub handshake_timeout_secs: f64,

    /// Seconds between HTTP/2 pings on a connection, each to be answered within
    /// --keepalive-timeout-secs or the connection is closed (a client that vanished, or never
    /// answers, frees its connection); 0 turns the pings off.
    #[arg(long, env = "CANASTA_KEEPALIVE_SECS", default_value_t = 60.0)]
    pub keepalive_secs: f64,

    /// Seconds an HTTP/2 ping may wait for its answer before the connection is closed.
    #[arg(long, env = "CANASTA_KEEPALIVE_TIMEOUT_SECS", default_value_t = 20.0)]
    pub keepalive_timeout_secs: f64,
}

/// The most either move budget flag takes: a year, in milliseconds (a deadline that far ahead
/// is still a time the clock can hold).
pub const MOVE_BUDGET_LIMIT_MS: u64 = 365 * 86_400_000;

/// The most a timeout of a game nobody plays takes, in seconds: a year, as for a move budget.
const GAME_TIMEOUT_LIMIT_SECS: f64 = 365.0 * 86_400.0;

/// A timeout of a game nobody plays: seconds, 0 (never) to a year.
fn timeout_secs(text: &str) -> Result<f64, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a number of seconds"))?;
    if !(0.0..=GAME_TIMEOUT_LIMIT_SECS).contains(&secs) {
        return Err(format!(
            "{text} is outside 0 (never) to {GAME_TIMEOUT_LIMIT_SECS} seconds (a year)"
        ));
    }
    Ok(secs)
}

/// A timeout flag's duration; `None` for 0, never.
fn timeout(secs: f64) -> Option<Duration> {
    (secs > 0.0).then(|| Duration::from_secs_f64(secs))
}

impl Config {
    /// A configuration for tests: in memory, on a free loopback port. Every test client comes
    /// from 127.0.0.1, so the per-address limits are raised out of reach; a test of a limit
    /// lowers it. The shortest move budget is 100 ms, so that the tests that wait for a
    /// time-out on a real clock wait less.
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
            "--min-move-budget-ms",
            "100",
        ])
    }

    /// The bounds of a move budget, inclusive.
    pub fn move_budgets(&self) -> std::ops::RangeInclusive<Duration> {
        Duration::from_millis(self.min_move_budget_ms)
            ..=Duration::from_millis(self.max_move_budget_ms)
    }

    /// How long a game may wait for players (`--waiting-timeout-secs`); `None`: for ever.
    pub fn waiting_timeout(&self) -> Option<Duration> {
        timeout(self.waiting_timeout_secs)
    }

    /// How long a started game without a time control may go without activity
    /// (`--idle-timeout-secs`); `None`: for ever.
    pub fn idle_timeout(&self) -> Option<Duration> {
        timeout(self.idle_timeout_secs)
    }

    /// How long a started game may have every seat left (`--left-timeout-secs`); `None`: for
    /// ever.
    pub fn left_timeout(&self) -> Option<Duration> {
        timeout(self.left_timeout_secs)
    }

    /// The heartbeat period.
    pub fn heartbeat(&self) -> Duration {
        Duration::from_secs_f64(self.heartbeat_secs.max(0.01))
    }

    /// The longest a watch stream may wait to pass on one message.
    pub fn watch_send_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.watch_send_timeout_secs.clamp(0.01, 1e9))
    }

    /// The longest a Play call may wait for its opening message.
    pub fn play_open_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.play_open_timeout_secs.clamp(0.01, 1e9))
    }

    /// The longest a new connection may take to send its first bytes.
    pub fn handshake_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.handshake_timeout_secs.clamp(0.01, 1e9))
    }

    /// The period of HTTP/2 pings, if they are on.
    pub fn keepalive(&self) -> Option<Duration> {
        (self.keepalive_secs > 0.0).then(|| Duration::from_secs_f64(self.keepalive_secs.min(1e9)))
    }

    /// How long an HTTP/2 ping waits for its answer.
    pub fn keepalive_timeout(&self) -> Duration {
        Duration::from_secs_f64(self.keepalive_timeout_secs.clamp(0.01, 1e9))
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
        assert_eq!(defaults.max_spectators_per_game, 64);
        assert_eq!(defaults.watch_send_timeout(), Duration::from_secs(30));
        assert_eq!(
            defaults.move_budgets(),
            Duration::from_secs(1)..=Duration::from_secs(86_400)
        );
        assert_eq!(defaults.play_open_timeout(), Duration::from_secs(10));
        assert_eq!(defaults.handshake_timeout(), Duration::from_secs(10));
        assert_eq!(defaults.max_connections, 10_000);
        assert_eq!(defaults.keepalive(), Some(Duration::from_secs(60)));
        assert_eq!(defaults.keepalive_timeout(), Duration::from_secs(20));
        let off = Config::parse_from(["canasta-server", "--keepalive-secs", "0"]);
        assert_eq!(off.keepalive(), None);
        let tests = Config::for_tests();
        assert_eq!(tests.max_watchers_per_address, 100_000);
        assert_eq!(tests.address_requests_per_second, 1_000_000.0);
        assert_eq!(tests.requests_per_second, defaults.requests_per_second);
        assert_eq!(tests.min_move_budget_ms, 100);
        assert_eq!(tests.max_move_budget_ms, defaults.max_move_budget_ms);
        // A budget flag of 0 or beyond a year is refused.
        for bad in ["0", "31536000001"] {
            assert!(
                Config::try_parse_from(["canasta-server", "--min-move-budget-ms", bad]).is_err()
            );
            assert!(
                Config::try_parse_from(["canasta-server", "--max-move-budget-ms", bad]).is_err()
            );
        }
        // Games nobody plays: an hour to fill the seats, a day without activity, ten minutes
        // with every seat left; 0 is never, and a timeout is at most a year.
        assert_eq!(defaults.waiting_timeout(), Some(Duration::from_secs(3600)));
        assert_eq!(defaults.idle_timeout(), Some(Duration::from_secs(86_400)));
        assert_eq!(defaults.left_timeout(), Some(Duration::from_secs(600)));
        let never = Config::parse_from([
            "canasta-server",
            "--waiting-timeout-secs",
            "0",
            "--idle-timeout-secs",
            "0",
            "--left-timeout-secs",
            "0.25",
        ]);
        assert_eq!(never.waiting_timeout(), None);
        assert_eq!(never.idle_timeout(), None);
        assert_eq!(never.left_timeout(), Some(Duration::from_millis(250)));
        for flag in [
            "--waiting-timeout-secs",
            "--idle-timeout-secs",
            "--left-timeout-secs",
        ] {
            for bad in ["-1", "31536001", "NaN", "inf", "soon"] {
                let err = Config::try_parse_from(["canasta-server", &format!("{flag}={bad}")])
                    .expect_err("refused");
                let text = err.to_string();
                assert!(text.contains(flag), "{flag} {bad}: {text}");
                assert!(
                    text.contains("a year") || text.contains("number of seconds"),
                    "{flag} {bad}: {text}"
                );
            }
        }
        // The old name of the spectator limit still works.
        let old = Config::parse_from(["canasta-server", "--max-watchers-per-game", "5"]);
        assert_eq!(old.max_spectators_per_game, 5);
    }

    #[test]
    fn every_flag_has_an_environment_variable_and_is_in_the_help() {
        use clap::CommandFactory;
        let mut command = Config::command();
        let help = command.render_long_help().to_string();
        let mut flags = 0;
        for arg in command.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            flags += 1;
            let long = arg
                .get_long()
                .unwrap_or_else(|| panic!("{id} has no --flag"));
            let env = arg
                .get_env()
                .unwrap_or_else(|| panic!("--{long} has no environment variable"))
                .to_str()
                .expect("a UTF-8 name");
            assert!(env.starts_with("CANASTA_"), "--{long}: {env}");
            assert!(
                help.contains(&format!("--{long}")),
                "--{long} is not in --help"
            );
            assert!(
                help.contains(&format!("[env: {env}")),
                "{env} of --{long} is not in --help"
            );
            assert!(
                arg.get_long_help().or(arg.get_help()).is_some(),
                "--{long} has no description"
            );
        }
        assert!(flags >= 18, "{flags} flags");
    }

    #[test]
    fn boolean_flags_take_the_usual_words_from_the_environment() {
        // The environment of this process is not touched (tests run in parallel): the words
        // the flags' value parser accepts are checked here, and server/tests/process.rs starts
        // the binary with CANASTA_MEMORY=1 and =0.
        use clap::CommandFactory;
        let command = Config::command();
        for name in ["memory", "sync_full"] {
            let arg = command
                .get_arguments()
                .find(|a| a.get_id() == name)
                .expect("the flag");
            let words: Vec<String> = arg
                .get_value_parser()
                .possible_values()
                .expect("a list of words")
                .map(|v| v.get_name().to_string())
                .collect();
            for word in ["1", "0", "true", "false", "yes", "no", "on", "off"] {
                assert!(
                    words.iter().any(|w| w == word),
                    "{name}: {word} in {words:?}"
                );
            }
            assert!(matches!(arg.get_action(), ArgAction::SetTrue));
        }
        // On the command line they stay plain switches.
        let c = Config::parse_from(["canasta-server", "--memory", "--sync-full"]);
        assert!(c.memory && c.sync_full);
    }
}
