//! The `canasta-server` binary's command line: flags, each with an environment variable
//! fallback, parsed with clap and turned into the library's [`Config`]. The library knows
//! nothing of them (this module is the binary's: `main.rs` declares it); the defaults shown in
//! `--help` are [`Config::default`]'s.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use canasta_server::{Config, ConfigError, Storage, Tls};
use clap::builder::BoolishValueParser;
use clap::{ArgAction, CommandFactory, Parser};

/// The defaults, as the flags show them.
fn defaults() -> Config {
    Config::default()
}

/// Seconds, as a flag of seconds shows a duration.
fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Seconds, 0 for none, as a flag of seconds shows an optional duration.
fn secs_or_0(d: Option<Duration>) -> f64 {
    d.map_or(0.0, secs)
}

/// The Canasta referee: hosts authoritative games over gRPC (package canasta.v1).
#[derive(Clone, Debug, Parser)]
#[command(name = "canasta-server", version, about, long_about = None)]
pub struct Flags {
    /// Address to serve gRPC on.
    #[arg(long, env = "CANASTA_LISTEN", default_value = "127.0.0.1:50051")]
    pub listen: SocketAddr,

    /// SQLite database file holding every game; created if missing.
    #[arg(long, env = "CANASTA_DB", default_value = canasta_server::config::DEFAULT_DATABASE)]
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
    #[arg(long, env = "CANASTA_MAX_GAMES", default_value_t = defaults().max_games())]
    pub max_games: usize,

    /// Most spectator watch streams (without a seat token) open on one game. A seat's own
    /// streams are not counted here: they are limited per token (--max-watchers-per-token), so
    /// spectators can never lock a player out. (--max-watchers-per-game is its old name.)
    #[arg(
        long,
        env = "CANASTA_MAX_SPECTATORS_PER_GAME",
        default_value_t = defaults().max_spectators_per_game(),
        alias = "max-watchers-per-game"
    )]
    pub max_spectators_per_game: usize,

    /// Largest request message, in bytes.
    #[arg(long, env = "CANASTA_MAX_MESSAGE_BYTES", default_value_t = defaults().max_message_bytes())]
    pub max_message_bytes: usize,

    /// Requests per second one seat token may make on its own game (bursts up to twice as
    /// many).
    #[arg(long, env = "CANASTA_REQUESTS_PER_SECOND", default_value_t = defaults().requests_per_second())]
    pub requests_per_second: f64,

    /// Requests per second one IP address may make for every call whose token holds no seat
    /// of the game it names (creating, joining, listing, spectating, made-up tokens; bursts up
    /// to twice as many).
    #[arg(
        long,
        env = "CANASTA_ADDRESS_REQUESTS_PER_SECOND",
        default_value_t = defaults().address_requests_per_second()
    )]
    pub address_requests_per_second: f64,

    /// Most watch streams one seat token may hold open.
    #[arg(long, env = "CANASTA_MAX_WATCHERS_PER_TOKEN", default_value_t = defaults().max_watchers_per_token())]
    pub max_watchers_per_token: usize,

    /// Most seeks (open Seek streams) and pending challenges one player may hold at once.
    #[arg(long, env = "CANASTA_MAX_SEEKS_PER_PLAYER", default_value_t = defaults().max_seeks_per_player())]
    pub max_seeks_per_player: usize,

    /// Most unfinished lobby games one player may sit in, its seeks and the pending challenges
    /// it made or accepted counted.
    #[arg(long, env = "CANASTA_MAX_GAMES_PER_PLAYER", default_value_t = defaults().max_games_per_player())]
    pub max_games_per_player: usize,

    /// Seconds a challenge waits for every invited player's answer before it expires.
    #[arg(long, env = "CANASTA_CHALLENGE_TIMEOUT_SECS", default_value_t = secs(defaults().challenge_timeout()), value_parser = seconds)]
    pub challenge_timeout_secs: f64,

    /// Each player's last events kept for its WatchPlayer stream to resume from.
    #[arg(long, env = "CANASTA_PLAYER_EVENTS_KEPT", default_value_t = defaults().player_events_kept())]
    pub player_events_kept: usize,

    /// Most spectator watch streams (without a seat token) one IP address may hold open.
    #[arg(long, env = "CANASTA_MAX_WATCHERS_PER_ADDRESS", default_value_t = defaults().max_watchers_per_address())]
    pub max_watchers_per_address: usize,

    /// TLS certificate chain (PEM) to serve gRPC over TLS; needs --tls-key. Plaintext if unset.
    #[arg(long, env = "CANASTA_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// TLS private key (PEM) of --tls-cert.
    #[arg(long, env = "CANASTA_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Seconds between heartbeats on an idle watch stream.
    #[arg(long, env = "CANASTA_HEARTBEAT_SECS", default_value_t = secs(defaults().heartbeat()), value_parser = seconds)]
    pub heartbeat_secs: f64,

    /// Messages a watch stream may fall behind before it is told it lagged and closed.
    #[arg(long, env = "CANASTA_WATCH_BUFFER", default_value_t = defaults().watch_buffer())]
    pub watch_buffer: usize,

    /// Seconds a watch stream may stay unable to take a message (its client does not read)
    /// before it is told it lagged and closed, freeing its place; the client resumes by seq.
    #[arg(
        long,
        env = "CANASTA_WATCH_SEND_TIMEOUT_SECS",
        default_value_t = secs(defaults().watch_send_timeout()),
        value_parser = seconds
    )]
    pub watch_send_timeout_secs: f64,

    /// Most legal actions listed in one prompt.
    #[arg(long, env = "CANASTA_MAX_PROMPT_ACTIONS", default_value_t = defaults().max_prompt_actions())]
    pub max_prompt_actions: usize,

    /// Shortest move budget (TimeControl.move_budget_ms) a game may be created with, in
    /// milliseconds; 0, no time control, is always allowed. Below a remote bot's round trip
    /// (prompt, decision, action) honest players time out, and every time-out is the server's
    /// work: a fallback move chosen, stored and sent to every watcher.
    #[arg(
        long,
        env = "CANASTA_MIN_MOVE_BUDGET_MS",
        default_value_t = millis(*defaults().move_budgets().start())
    )]
    pub min_move_budget_ms: u64,

    /// Longest move budget a game may be created with, in milliseconds (a day by default): a
    /// game whose seat to act has gone holds its place among the unfinished games
    /// (--max-games) for a whole budget. At most a year.
    #[arg(
        long,
        env = "CANASTA_MAX_MOVE_BUDGET_MS",
        default_value_t = millis(*defaults().move_budgets().end())
    )]
    pub max_move_budget_ms: u64,

    /// Longest a built-in bot of the server (CreateGameRequest.bots) thinks about a move, in
    /// milliseconds: a search bot with a longer time budget is refused at CreateGame
    /// (BOT_BUDGET_TOO_HIGH), and every search stops at it. 1 to 60000.
    #[arg(
        long,
        env = "CANASTA_MAX_BOT_THINK_MS",
        default_value_t = millis(defaults().max_bot_think())
    )]
    pub max_bot_think_ms: u64,

    /// Largest iteration budget of a built-in search bot (search:N); a larger one is refused
    /// at CreateGame (BOT_BUDGET_TOO_HIGH).
    #[arg(
        long,
        env = "CANASTA_MAX_BOT_ITERATIONS",
        default_value_t = defaults().max_bot_iterations()
    )]
    pub max_bot_iterations: u32,

    /// Most built-in bots' moves thinking at once, over all games (each takes a core while it
    /// thinks); by default half the cores the process may use (at least 1), leaving the others
    /// to serve requests.
    #[arg(long, env = "CANASTA_BOT_THREADS", default_value_t = defaults().bot_threads())]
    pub bot_threads: usize,

    /// Seconds a game may wait for players: a game whose seats are not all taken within them
    /// of its creation or of its last join or leave ends, expired (MATCH_END_KIND_EXPIRED),
    /// and frees its place among the unfinished games (--max-games). 0: never. At most a year.
    #[arg(
        long,
        env = "CANASTA_WAITING_TIMEOUT_SECS",
        default_value_t = secs_or_0(defaults().waiting_timeout()),
        value_parser = seconds
    )]
    pub waiting_timeout_secs: f64,

    /// Seconds a started game without a time control may go without any seat acting,
    /// joining or leaving; past them it ends, abandoned (MATCH_END_KIND_ABANDONED, no side
    /// wins). Games with a time control end by their time-outs instead. 0: never. At most a
    /// year.
    #[arg(
        long,
        env = "CANASTA_IDLE_TIMEOUT_SECS",
        default_value_t = secs_or_0(defaults().idle_timeout()),
        value_parser = seconds
    )]
    pub idle_timeout_secs: f64,

    /// Seconds a started game may have every seat left (free after LeaveGame); past them it
    /// ends, abandoned (MATCH_END_KIND_ABANDONED), with or without a time control. 0: never. At
    /// most a year.
    #[arg(
        long,
        env = "CANASTA_LEFT_TIMEOUT_SECS",
        default_value_t = secs_or_0(defaults().left_timeout()),
        value_parser = seconds
    )]
    pub left_timeout_secs: f64,

    /// Seconds a Play call may take to send its opening `watch` message; past them it ends
    /// with DEADLINE_EXCEEDED (PLAY_NOT_OPENED) and holds nothing.
    #[arg(
        long,
        env = "CANASTA_PLAY_OPEN_TIMEOUT_SECS",
        default_value_t = secs(defaults().play_open_timeout()),
        value_parser = seconds
    )]
    pub play_open_timeout_secs: f64,

    /// Most client connections served at once; one more is accepted and closed at once. Kept
    /// below the process's descriptor limit (ulimit -n) less what the server needs besides.
    #[arg(long, env = "CANASTA_MAX_CONNECTIONS", default_value_t = defaults().max_connections())]
    pub max_connections: usize,

    /// Seconds a new connection may take to send its first 24 bytes (the length of HTTP/2's
    /// preface, or of the start of a TLS handshake); past them it is closed.
    #[arg(
        long,
        env = "CANASTA_HANDSHAKE_TIMEOUT_SECS",
        default_value_t = secs(defaults().handshake_timeout()),
        value_parser = seconds
    )]
    pub handshake_timeout_secs: f64,

    /// Seconds between HTTP/2 pings on a connection, each to be answered within
    /// --keepalive-timeout-secs or the connection is closed (a client that vanished, or never
    /// answers, frees its connection); 0 turns the pings off.
    #[arg(
        long,
        env = "CANASTA_KEEPALIVE_SECS",
        default_value_t = secs_or_0(defaults().keepalive()),
        value_parser = seconds
    )]
    pub keepalive_secs: f64,

    /// Seconds an HTTP/2 ping may wait for its answer before the connection is closed.
    #[arg(
        long,
        env = "CANASTA_KEEPALIVE_TIMEOUT_SECS",
        default_value_t = secs(defaults().keepalive_timeout()),
        value_parser = seconds
    )]
    pub keepalive_timeout_secs: f64,

    /// An origin (scheme://host[:port], e.g. https://app.example) whose web pages may call the
    /// service with gRPC-Web: the server answers its CORS preflights and shows its scripts
    /// the responses' headers. Repeat the flag for more origins (the environment variable
    /// takes them separated by commas); * allows any. None by default: only pages of the
    /// server's own origin, and programs that are not browsers, can call.
    #[arg(
        long = "cors-origin",
        env = "CANASTA_CORS_ORIGINS",
        value_name = "ORIGIN",
        value_delimiter = ',',
        action = ArgAction::Append
    )]
    pub cors_origins: Vec<String>,

    /// A built-in bot the lobby hosts as a player of the same name (greedy, random, safe,
    /// search, search:50ms ...): rated, accepting every challenge, filling the seats of seeks
    /// that ask for it. Repeat the flag for more (the environment variable takes them separated
    /// by commas); --house-player none for none. Default: greedy and random.
    #[arg(
        long = "house-player",
        env = "CANASTA_HOUSE_PLAYERS",
        value_name = "BOT",
        value_delimiter = ',',
        action = ArgAction::Append
    )]
    pub house_players: Vec<String>,

    /// Do not serve the web page (GET / on the port: the lobby, the table, replays); gRPC and
    /// gRPC-Web are served all the same. The environment variable takes 1/0, true/false,
    /// yes/no or on/off.
    #[arg(long = "no-web", env = "CANASTA_NO_WEB", action = ArgAction::SetTrue, value_parser = BoolishValueParser::new())]
    pub no_web: bool,
}

/// Milliseconds, as a flag of milliseconds shows a duration.
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A number of seconds: finite and not negative (its bounds are the setting's, checked when
/// the configuration is built).
fn seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(secs) if Duration::try_from_secs_f64(secs).is_ok() => Ok(secs),
        _ => Err(format!("{text:?} is not a number of seconds")),
    }
}

/// A duration of a flag of seconds; `seconds` made sure it is one.
fn duration(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs).unwrap_or(Duration::MAX)
}

/// A duration of a flag of seconds where 0 is none.
fn optional(secs: f64) -> Option<Duration> {
    (secs > 0.0).then(|| duration(secs))
}

impl Flags {
    /// The flags of this process's command line and environment; exits with clap's message
    /// and code 2 if they are not a configuration (as for any bad usage).
    pub fn parse_config() -> (Flags, Config) {
        let flags = Flags::parse();
        match flags.config() {
            Ok(config) => (flags, config),
            Err(e) => Flags::refusal(&e).exit(),
        }
    }

    /// The configuration these flags say.
    pub fn config(&self) -> Result<Config, ConfigError> {
        let storage = if self.memory {
            Storage::Memory
        } else {
            Storage::Sqlite {
                path: self.db.clone(),
                sync_full: self.sync_full,
            }
        };
        // clap holds that both are given or neither (`requires`).
        let tls = match (&self.tls_cert, &self.tls_key) {
            (Some(cert), Some(key)) => Some(Tls {
                cert: cert.clone(),
                key: key.clone(),
            }),
            _ => None,
        };
        Config::builder()
            .storage(storage)
            .tls(tls)
            .metrics_listen(self.metrics_listen)
            .max_games(self.max_games)
            .max_spectators_per_game(self.max_spectators_per_game)
            .max_message_bytes(self.max_message_bytes)
            .requests_per_second(self.requests_per_second)
            .address_requests_per_second(self.address_requests_per_second)
            .max_watchers_per_token(self.max_watchers_per_token)
            .max_watchers_per_address(self.max_watchers_per_address)
            .max_seeks_per_player(self.max_seeks_per_player)
            .max_games_per_player(self.max_games_per_player)
            .challenge_timeout(duration(self.challenge_timeout_secs))
            .player_events_kept(self.player_events_kept)
            .heartbeat(duration(self.heartbeat_secs))
            .watch_buffer(self.watch_buffer)
            .watch_send_timeout(duration(self.watch_send_timeout_secs))
            .max_prompt_actions(self.max_prompt_actions)
            .min_move_budget(Duration::from_millis(self.min_move_budget_ms))
            .max_move_budget(Duration::from_millis(self.max_move_budget_ms))
            .waiting_timeout(optional(self.waiting_timeout_secs))
            .idle_timeout(optional(self.idle_timeout_secs))
            .left_timeout(optional(self.left_timeout_secs))
            .play_open_timeout(duration(self.play_open_timeout_secs))
            .max_connections(self.max_connections)
            .handshake_timeout(duration(self.handshake_timeout_secs))
            .keepalive(optional(self.keepalive_secs))
            .keepalive_timeout(duration(self.keepalive_timeout_secs))
            .cors_origins(self.cors_origins.iter().map(|o| o.trim()))
            .house_players(self.house_players())
            .max_bot_think(Duration::from_millis(self.max_bot_think_ms))
            .max_bot_iterations(self.max_bot_iterations)
            .bot_threads(self.bot_threads)
            .web_page(!self.no_web)
            .build()
    }

    /// The house players the flags name: the default's without the flag, none for `none`.
    fn house_players(&self) -> Vec<String> {
        let named: Vec<String> = self
            .house_players
            .iter()
            .map(|n| n.trim().to_string())
            .filter(|n| !n.is_empty())
            .collect();
        match named.as_slice() {
            [] => defaults().house_players().to_vec(),
            [none] if none == "none" => Vec::new(),
            _ => named,
        }
    }

    /// A setting the configuration refused, as clap tells a bad value: naming its flag.
    fn refusal(e: &ConfigError) -> clap::Error {
        let mut command = Flags::command();
        let message = format!(
            "invalid value for --{}: {}",
            flag_of(e.setting()),
            e.problem()
        );
        command.error(clap::error::ErrorKind::ValueValidation, message)
    }
}

/// The flag (without its dashes) of a setting of [`canasta_server::ConfigBuilder`]: the same
/// name, with the unit of the flag's number.
fn flag_of(setting: &str) -> String {
    let name = setting.replace('_', "-");
    match setting {
        "storage" => "db".into(),
        "tls" => "tls-cert".into(),
        "keepalive" => "keepalive-secs".into(),
        "cors_origins" => "cors-origin".into(),
        "house_players" => "house-player".into(),
        "min_move_budget" | "max_move_budget" | "max_bot_think" => format!("{name}-ms"),
        s if s.ends_with("timeout") || s == "heartbeat" => format!("{name}-secs"),
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Flags, clap::Error> {
        Flags::try_parse_from(std::iter::once("canasta-server").chain(args.iter().copied()))
    }

    /// The configuration of these flags, or the message the binary would print.
    fn config(args: &[&str]) -> Result<Config, String> {
        let flags = parse(args).map_err(|e| e.to_string())?;
        flags.config().map_err(|e| Flags::refusal(&e).to_string())
    }

    #[test]
    fn no_flags_are_the_librarys_defaults() {
        let flags = parse(&[]).unwrap();
        assert_eq!(flags.listen, "127.0.0.1:50051".parse().unwrap());
        assert_eq!(flags.config().unwrap(), Config::default());
    }

    #[test]
    fn each_flag_reaches_its_setting() {
        let c = config(&[
            "--memory",
            "--metrics-listen",
            "127.0.0.1:9090",
            "--max-games",
            "7",
            "--max-spectators-per-game",
            "6",
            "--max-message-bytes",
            "5000",
            "--requests-per-second",
            "10",
            "--address-requests-per-second",
            "20",
            "--max-watchers-per-token",
            "4",
            "--max-watchers-per-address",
            "3",
            "--tls-cert",
            "c.pem",
            "--tls-key",
            "k.pem",
            "--heartbeat-secs",
            "1.5",
            "--watch-buffer",
            "32",
            "--watch-send-timeout-secs",
            "2",
            "--max-prompt-actions",
            "9",
            "--min-move-budget-ms",
            "100",
            "--max-move-budget-ms",
            "200",
            "--waiting-timeout-secs",
            "0",
            "--idle-timeout-secs",
            "0",
            "--left-timeout-secs",
            "0.25",
            "--play-open-timeout-secs",
            "3",
            "--max-connections",
            "11",
            "--handshake-timeout-secs",
            "4",
            "--keepalive-secs",
            "0",
            "--keepalive-timeout-secs",
            "5",
            "--cors-origin",
            "https://app.example",
            "--cors-origin",
            "HTTP://localhost:5173",
            "--no-web",
        ])
        .unwrap();
        let ms = Duration::from_millis;
        let s = Duration::from_secs;
        assert_eq!(c.storage(), &Storage::Memory);
        assert_eq!(c.metrics_listen(), Some("127.0.0.1:9090".parse().unwrap()));
        assert_eq!(c.max_games(), 7);
        assert_eq!(c.max_spectators_per_game(), 6);
        assert_eq!(c.max_message_bytes(), 5000);
        assert_eq!(c.requests_per_second(), 10.0);
        assert_eq!(c.address_requests_per_second(), 20.0);
        assert_eq!(c.max_watchers_per_token(), 4);
        assert_eq!(c.max_watchers_per_address(), 3);
        assert_eq!(
            c.tls(),
            Some(&Tls {
                cert: "c.pem".into(),
                key: "k.pem".into()
            })
        );
        assert_eq!(c.heartbeat(), ms(1500));
        assert_eq!(c.watch_buffer(), 32);
        assert_eq!(c.watch_send_timeout(), s(2));
        assert_eq!(c.max_prompt_actions(), 9);
        assert_eq!(c.move_budgets(), ms(100)..=ms(200));
        assert_eq!(c.waiting_timeout(), None);
        assert_eq!(c.idle_timeout(), None);
        assert_eq!(c.left_timeout(), Some(ms(250)));
        assert_eq!(c.play_open_timeout(), s(3));
        assert_eq!(c.max_connections(), 11);
        assert_eq!(c.handshake_timeout(), s(4));
        assert_eq!(c.keepalive(), None);
        assert_eq!(c.keepalive_timeout(), s(5));
        assert_eq!(
            c.cors_origins(),
            ["https://app.example", "http://localhost:5173"]
        );
        assert!(!c.web_page());
        assert!(
            config(&[]).unwrap().web_page(),
            "the page is served by default"
        );
        // A database, durable or not.
        let c = config(&["--db", "games.db", "--sync-full"]).unwrap();
        assert_eq!(
            c.storage(),
            &Storage::Sqlite {
                path: "games.db".into(),
                sync_full: true
            }
        );
        // The old name of the spectator limit still works.
        let old = config(&["--max-watchers-per-game", "5"]).unwrap();
        assert_eq!(old.max_spectators_per_game(), 5);
    }

    #[test]
    fn tls_takes_both_files_or_neither() {
        assert!(parse(&[]).unwrap().tls_cert.is_none());
        let err = parse(&["--tls-cert", "c.pem"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::MissingRequiredArgument);
        assert!(err.to_string().contains("--tls-key"), "{err}");
        let err = parse(&["--tls-key", "k.pem"]).unwrap_err();
        assert!(err.to_string().contains("--tls-cert"), "{err}");
    }

    // A value the configuration refuses is told as clap tells a bad value (exit code 2),
    // naming the flag and what to give.
    #[test]
    fn a_refused_value_names_its_flag() {
        let cases: &[(&[&str], &str, &str)] = &[
            (
                &["--min-move-budget-ms", "0"],
                "--min-move-budget-ms",
                "a year",
            ),
            (
                &["--max-move-budget-ms", "31536000001"],
                "--max-move-budget-ms",
                "a year",
            ),
            (
                &[
                    "--min-move-budget-ms",
                    "2000",
                    "--max-move-budget-ms",
                    "1000",
                ],
                "--min-move-budget-ms",
                "lower the shortest or raise the longest",
            ),
            (&["--heartbeat-secs", "0"], "--heartbeat-secs", "0.01 s"),
            (&["--keepalive-secs", "0.001"], "--keepalive-secs", "0.01 s"),
            (
                &["--keepalive-timeout-secs", "0"],
                "--keepalive-timeout-secs",
                "0.01 s",
            ),
            (
                &["--watch-send-timeout-secs", "0"],
                "--watch-send-timeout-secs",
                "0.01 s",
            ),
            (
                &["--play-open-timeout-secs", "0"],
                "--play-open-timeout-secs",
                "0.01 s",
            ),
            (
                &["--handshake-timeout-secs", "0"],
                "--handshake-timeout-secs",
                "0.01 s",
            ),
            (
                &["--cors-origin", "https://app.example/"],
                "--cors-origin",
                "scheme://host[:port]",
            ),
            (
                &["--max-connections", "0"],
                "--max-connections",
                "at least 1",
            ),
            (
                &["--max-message-bytes", "10"],
                "--max-message-bytes",
                "at least 1024",
            ),
            (&["--watch-buffer", "1"], "--watch-buffer", "at least 16"),
            (
                &["--max-prompt-actions", "0"],
                "--max-prompt-actions",
                "at least 1",
            ),
            (
                &["--max-watchers-per-token", "0"],
                "--max-watchers-per-token",
                "at least 1",
            ),
            (
                &["--requests-per-second", "0"],
                "--requests-per-second",
                "positive number",
            ),
            (
                &["--address-requests-per-second", "inf"],
                "--address-requests-per-second",
                "positive number",
            ),
        ];
        for (args, flag, hint) in cases {
            let flags = parse(args).unwrap();
            let e = flags.config().expect_err("refused");
            let refusal = Flags::refusal(&e);
            assert_eq!(refusal.kind(), clap::error::ErrorKind::ValueValidation);
            assert_eq!(refusal.exit_code(), 2);
            let text = refusal.to_string();
            assert!(text.contains(flag), "{args:?}: {text}");
            assert!(text.contains(hint), "{args:?}: {text}");
            // The flag named is one the command has.
            assert!(
                Flags::command()
                    .get_arguments()
                    .any(|a| a.get_long() == Some(&flag[2..])),
                "{flag}"
            );
        }
    }

    #[test]
    fn the_games_timeouts_take_0_for_never_and_at_most_a_year() {
        let never = config(&[
            "--waiting-timeout-secs",
            "0",
            "--idle-timeout-secs",
            "0",
            "--left-timeout-secs",
            "0.25",
        ])
        .unwrap();
        assert_eq!(never.waiting_timeout(), None);
        assert_eq!(never.idle_timeout(), None);
        assert_eq!(never.left_timeout(), Some(Duration::from_millis(250)));
        for flag in [
            "--waiting-timeout-secs",
            "--idle-timeout-secs",
            "--left-timeout-secs",
        ] {
            for bad in ["-1", "31536001", "NaN", "inf", "soon"] {
                let text = config(&[&format!("{flag}={bad}")]).expect_err("refused");
                assert!(text.contains(flag), "{flag} {bad}: {text}");
                assert!(
                    text.contains("a year") || text.contains("number of seconds"),
                    "{flag} {bad}: {text}"
                );
            }
        }
    }

    #[test]
    fn every_flag_has_an_environment_variable_and_is_in_the_help() {
        let mut command = Flags::command();
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

    // The environment variable of the origins takes several, separated by commas (checked
    // through clap's own parsing of the value: this process's environment is not touched).
    #[test]
    fn the_cors_origins_variable_takes_a_list() {
        let command = Flags::command();
        let arg = command
            .get_arguments()
            .find(|a| a.get_id() == "cors_origins")
            .expect("the flag");
        assert_eq!(
            arg.get_env().and_then(|e| e.to_str()),
            Some("CANASTA_CORS_ORIGINS")
        );
        assert_eq!(arg.get_value_delimiter(), Some(','));
        let f = parse(&["--cors-origin", "https://a.example, https://b.example"]).unwrap();
        assert_eq!(
            f.config().unwrap().cors_origins(),
            ["https://a.example", "https://b.example"]
        );
        assert_eq!(
            parse(&[]).unwrap().config().unwrap().cors_origins(),
            [] as [String; 0]
        );
    }

    #[test]
    fn boolean_flags_take_the_usual_words_from_the_environment() {
        // The environment of this process is not touched (tests run in parallel): the words
        // the flags' value parser accepts are checked here, and server/tests/process.rs starts
        // the binary with CANASTA_MEMORY=1 and =0.
        let command = Flags::command();
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
        let f = parse(&["--memory", "--sync-full"]).unwrap();
        assert!(f.memory && f.sync_full);
    }

    // The help shows the library's defaults, in the flags' units.
    #[test]
    fn the_help_shows_the_librarys_defaults() {
        let help = Flags::command().render_long_help().to_string();
        for (flag, shown) in [
            ("--db", "[default: canasta.db]"),
            ("--max-games", "[default: 200000]"),
            ("--max-message-bytes", "[default: 1048576]"),
            ("--requests-per-second", "[default: 200]"),
            ("--heartbeat-secs", "[default: 15]"),
            ("--min-move-budget-ms", "[default: 1000]"),
            ("--max-move-budget-ms", "[default: 86400000]"),
            ("--waiting-timeout-secs", "[default: 3600]"),
            ("--keepalive-secs", "[default: 60]"),
        ] {
            // Each flag's entry begins a line with its name.
            let entry = help
                .split("\n      --")
                .find(|entry| entry.starts_with(&format!("{} <", &flag[2..])))
                .expect(flag);
            assert!(entry.contains(shown), "{flag}: {entry}");
        }
    }
}
