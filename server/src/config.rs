//! The server's configuration: a plain value, built with [`Config::builder`] (or taken whole
//! with [`Config::default`]), checked once when it is built.
//!
//! Every setting has the default the `canasta-server` binary's flag of the same name has: the
//! binary parses its flags and environment variables (`canasta-server --help`) into this type,
//! and nothing in this library reads either.
//!
//! ```
//! use std::time::Duration;
//! use canasta_server::{Config, Storage};
//!
//! let config = Config::builder()
//!     .storage(Storage::Memory)
//!     .max_games(1000)
//!     .heartbeat(Duration::from_secs(5))
//!     .waiting_timeout(None)
//!     .build()?;
//! assert_eq!(config.max_games(), 1000);
//! assert_eq!(config.max_spectators_per_game(), 64); // the default
//! # Ok::<(), canasta_server::ConfigError>(())
//! ```

use std::fmt;
use std::net::SocketAddr;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::time::Duration;

use canasta_engine::quote::quoted;

/// The SQLite database file of [`Storage::default`], relative to the working directory.
pub const DEFAULT_DATABASE: &str = "canasta.db";

/// The longest of every duration a [`Config`] holds: a year (a deadline that far ahead is
/// still a time the clock can hold).
pub const LONGEST: Duration = Duration::from_secs(365 * 86_400);

/// The shortest period or time-out of a connection or a stream (heartbeats, send, open,
/// handshake and ping time-outs): shorter ones would have the server wake without pause.
pub const SHORTEST_PERIOD: Duration = Duration::from_millis(10);

/// The smallest largest request message: below it a player's ordinary requests would not fit.
pub const SMALLEST_MESSAGE_LIMIT: usize = 1024;

/// The most messages a watch stream may fall behind by ([`ConfigBuilder::watch_buffer`]): each
/// game keeps a buffer of this many for its watchers.
pub const LARGEST_WATCH_BUFFER: usize = 1 << 20;

/// The fewest messages a watch stream may fall behind by.
pub const SMALLEST_WATCH_BUFFER: usize = 16;

/// Where the server keeps its games.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Storage {
    /// In memory only: nothing survives a restart (tests, throwaway runs).
    Memory,
    /// A SQLite database file, created if missing, holding every game.
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// Make every write reach the disk before it is acknowledged: a game then survives
        /// power loss, not only a crash of the server; writes are slower.
        sync_full: bool,
    },
}

impl Storage {
    /// The SQLite database at `path`, without `sync_full`.
    pub fn sqlite(path: impl Into<PathBuf>) -> Storage {
        Storage::Sqlite {
            path: path.into(),
            sync_full: false,
        }
    }

    /// The database's path, if the storage is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Storage::Memory => None,
            Storage::Sqlite { path, .. } => Some(path),
        }
    }
}

/// The database [`DEFAULT_DATABASE`], without `sync_full`.
impl Default for Storage {
    fn default() -> Storage {
        Storage::sqlite(DEFAULT_DATABASE)
    }
}

/// `memory`, or the database's path: as logs name the storage.
impl fmt::Display for Storage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Storage::Memory => f.write_str("memory"),
            Storage::Sqlite { path, .. } => write!(f, "{}", path.display()),
        }
    }
}

/// The certificate chain and private key (PEM files) the server serves gRPC over TLS with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tls {
    /// The certificate chain.
    pub cert: PathBuf,
    /// The private key of the certificate.
    pub key: PathBuf,
}

/// How the server runs: storage, limits, periods and time-outs. Built with
/// [`Config::builder`]; every value a `Config` holds was checked then. [`Config::default`] is
/// the configuration of `canasta-server` without flags.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    storage: Storage,
    tls: Option<Tls>,
    metrics_listen: Option<SocketAddr>,
    max_games: usize,
    max_spectators_per_game: usize,
    max_message_bytes: usize,
    requests_per_second: f64,
    address_requests_per_second: f64,
    max_watchers_per_token: usize,
    max_watchers_per_address: usize,
    heartbeat: Duration,
    watch_buffer: usize,
    watch_send_timeout: Duration,
    max_prompt_actions: usize,
    min_move_budget: Duration,
    max_move_budget: Duration,
    waiting_timeout: Option<Duration>,
    idle_timeout: Option<Duration>,
    left_timeout: Option<Duration>,
    play_open_timeout: Duration,
    max_connections: usize,
    handshake_timeout: Duration,
    keepalive: Option<Duration>,
    keepalive_timeout: Duration,
    cors_origins: Vec<String>,
    max_bot_think: Duration,
    max_bot_iterations: u32,
    bot_threads: usize,
    max_seeks_per_player: usize,
    max_games_per_player: usize,
    challenge_timeout: Duration,
    player_events_kept: usize,
    house_players: Vec<String>,
    web_page: bool,
}

/// The production defaults: each is the default of the binary's flag of the same name, and
/// the builder's method of the same name says what it is.
impl Default for Config {
    fn default() -> Config {
        Config {
            storage: Storage::default(),
            tls: None,
            metrics_listen: None,
            max_games: 200_000,
            max_spectators_per_game: 64,
            max_message_bytes: 1 << 20,
            requests_per_second: 200.0,
            address_requests_per_second: 1000.0,
            max_watchers_per_token: 8,
            max_watchers_per_address: 256,
            heartbeat: Duration::from_secs(15),
            watch_buffer: 4096,
            watch_send_timeout: Duration::from_secs(30),
            max_prompt_actions: 2000,
            min_move_budget: Duration::from_secs(1),
            max_move_budget: Duration::from_secs(86_400),
            waiting_timeout: Some(Duration::from_secs(3600)),
            idle_timeout: Some(Duration::from_secs(86_400)),
            left_timeout: Some(Duration::from_secs(600)),
            play_open_timeout: Duration::from_secs(10),
            max_connections: 10_000,
            handshake_timeout: Duration::from_secs(10),
            keepalive: Some(Duration::from_secs(60)),
            keepalive_timeout: Duration::from_secs(20),
            cors_origins: Vec::new(),
            max_bot_think: Duration::from_millis(200),
            max_bot_iterations: 4000,
            bot_threads: half_the_cores(),
            max_seeks_per_player: 16,
            max_games_per_player: 64,
            challenge_timeout: Duration::from_secs(300),
            player_events_kept: 1024,
            house_players: vec!["greedy".into(), "random".into()],
            web_page: true,
        }
    }
}

/// Half the cores the process may use, at least 1: the built-in bots' moves thinking at once
/// by default, so that bots busy in every game still leave cores to serve the requests.
fn half_the_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().div_ceil(2))
}

/// The longest a built-in bot may be allowed to think about a move
/// ([`ConfigBuilder::max_bot_think`]).
pub const LONGEST_BOT_THINK: Duration = Duration::from_secs(60);

/// The most built-in bots' moves that may be allowed to think at once
/// ([`ConfigBuilder::bot_threads`]).
pub const MOST_BOT_THREADS: usize = 1024;

impl Config {
    /// A builder that starts from the defaults ([`Config::default`]).
    pub fn builder() -> ConfigBuilder {
        ConfigBuilder {
            config: Config::default(),
        }
    }

    /// A builder that starts from this configuration: to change a setting or two of it.
    pub fn to_builder(&self) -> ConfigBuilder {
        ConfigBuilder {
            config: self.clone(),
        }
    }

    /// Where games are kept ([`ConfigBuilder::storage`]).
    pub fn storage(&self) -> &Storage {
        &self.storage
    }

    /// The TLS certificate and key, if gRPC is served over TLS ([`ConfigBuilder::tls`]).
    pub fn tls(&self) -> Option<&Tls> {
        self.tls.as_ref()
    }

    /// Where Prometheus metrics are served, if they are ([`ConfigBuilder::metrics_listen`]).
    pub fn metrics_listen(&self) -> Option<SocketAddr> {
        self.metrics_listen
    }

    /// The most unfinished games held ([`ConfigBuilder::max_games`]).
    pub fn max_games(&self) -> usize {
        self.max_games
    }

    /// The most spectator streams on one game ([`ConfigBuilder::max_spectators_per_game`]).
    pub fn max_spectators_per_game(&self) -> usize {
        self.max_spectators_per_game
    }

    /// The largest request message, in bytes ([`ConfigBuilder::max_message_bytes`]).
    pub fn max_message_bytes(&self) -> usize {
        self.max_message_bytes
    }

    /// Requests per second of one seat token ([`ConfigBuilder::requests_per_second`]).
    pub fn requests_per_second(&self) -> f64 {
        self.requests_per_second
    }

    /// Requests per second of one address for calls no seat pays for
    /// ([`ConfigBuilder::address_requests_per_second`]).
    pub fn address_requests_per_second(&self) -> f64 {
        self.address_requests_per_second
    }

    /// The most seeks and pending challenges of one player
    /// ([`ConfigBuilder::max_seeks_per_player`]).
    pub fn max_seeks_per_player(&self) -> usize {
        self.max_seeks_per_player
    }

    /// The most unfinished lobby games of one player, its seeks and challenges counted
    /// ([`ConfigBuilder::max_games_per_player`]).
    pub fn max_games_per_player(&self) -> usize {
        self.max_games_per_player
    }

    /// How long a challenge waits for its answers ([`ConfigBuilder::challenge_timeout`]).
    pub fn challenge_timeout(&self) -> Duration {
        self.challenge_timeout
    }

    /// The events of each player kept for WatchPlayer's resume
    /// ([`ConfigBuilder::player_events_kept`]).
    pub fn player_events_kept(&self) -> usize {
        self.player_events_kept
    }

    /// The built-in bots the lobby hosts as players ([`ConfigBuilder::house_players`]).
    pub fn house_players(&self) -> &[String] {
        &self.house_players
    }

    /// The most watch streams of one seat token ([`ConfigBuilder::max_watchers_per_token`]).
    pub fn max_watchers_per_token(&self) -> usize {
        self.max_watchers_per_token
    }

    /// The most spectator streams of one address
    /// ([`ConfigBuilder::max_watchers_per_address`]).
    pub fn max_watchers_per_address(&self) -> usize {
        self.max_watchers_per_address
    }

    /// The heartbeat period of an idle watch stream ([`ConfigBuilder::heartbeat`]).
    pub fn heartbeat(&self) -> Duration {
        self.heartbeat
    }

    /// Messages a watch stream may fall behind by ([`ConfigBuilder::watch_buffer`]).
    pub fn watch_buffer(&self) -> usize {
        self.watch_buffer
    }

    /// The longest a watch stream may wait to pass on one message
    /// ([`ConfigBuilder::watch_send_timeout`]).
    pub fn watch_send_timeout(&self) -> Duration {
        self.watch_send_timeout
    }

    /// The most legal actions listed in one prompt ([`ConfigBuilder::max_prompt_actions`]).
    pub fn max_prompt_actions(&self) -> usize {
        self.max_prompt_actions
    }

    /// The bounds of a new game's move budget, inclusive, in whole milliseconds
    /// ([`ConfigBuilder::min_move_budget`], [`ConfigBuilder::max_move_budget`]).
    pub fn move_budgets(&self) -> RangeInclusive<Duration> {
        self.min_move_budget..=self.max_move_budget
    }

    /// How long a game may wait for players; `None`: for ever
    /// ([`ConfigBuilder::waiting_timeout`]).
    pub fn waiting_timeout(&self) -> Option<Duration> {
        self.waiting_timeout
    }

    /// How long a started game without a time control may go without activity; `None`: for
    /// ever ([`ConfigBuilder::idle_timeout`]).
    pub fn idle_timeout(&self) -> Option<Duration> {
        self.idle_timeout
    }

    /// How long a started game may have every seat left; `None`: for ever
    /// ([`ConfigBuilder::left_timeout`]).
    pub fn left_timeout(&self) -> Option<Duration> {
        self.left_timeout
    }

    /// The longest a Play call may wait for its opening message
    /// ([`ConfigBuilder::play_open_timeout`]).
    pub fn play_open_timeout(&self) -> Duration {
        self.play_open_timeout
    }

    /// The most connections served at once ([`ConfigBuilder::max_connections`]).
    pub fn max_connections(&self) -> usize {
        self.max_connections
    }

    /// The longest a new connection may take to send its first bytes
    /// ([`ConfigBuilder::handshake_timeout`]).
    pub fn handshake_timeout(&self) -> Duration {
        self.handshake_timeout
    }

    /// The period of HTTP/2 pings, if they are on ([`ConfigBuilder::keepalive`]).
    pub fn keepalive(&self) -> Option<Duration> {
        self.keepalive
    }

    /// How long an HTTP/2 ping waits for its answer ([`ConfigBuilder::keepalive_timeout`]).
    pub fn keepalive_timeout(&self) -> Duration {
        self.keepalive_timeout
    }

    /// The origins whose web pages may call the service with gRPC-Web, in lower case; `*` for
    /// any ([`ConfigBuilder::cors_origins`]).
    pub fn cors_origins(&self) -> &[String] {
        &self.cors_origins
    }

    /// The longest a built-in bot thinks about one move ([`ConfigBuilder::max_bot_think`]).
    pub fn max_bot_think(&self) -> Duration {
        self.max_bot_think
    }

    /// The largest search budget in iterations a built-in bot may be given
    /// ([`ConfigBuilder::max_bot_iterations`]).
    pub fn max_bot_iterations(&self) -> u32 {
        self.max_bot_iterations
    }

    /// The most built-in bots' moves thinking at once ([`ConfigBuilder::bot_threads`]).
    pub fn bot_threads(&self) -> usize {
        self.bot_threads
    }

    /// Whether the server serves its web page on its port ([`ConfigBuilder::web_page`]).
    pub fn web_page(&self) -> bool {
        self.web_page
    }
}

/// Builds a [`Config`]: each method sets one setting and says its default;
/// [`ConfigBuilder::build`] checks them all. From [`Config::builder`] or
/// [`Config::to_builder`].
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct ConfigBuilder {
    config: Config,
}

impl ConfigBuilder {
    /// Where games are kept. Default: the SQLite database [`DEFAULT_DATABASE`] (in the working
    /// directory), without `sync_full`.
    pub fn storage(mut self, storage: Storage) -> Self {
        self.config.storage = storage;
        self
    }

    /// Serve gRPC over TLS with this certificate chain and private key (PEM files, read when
    /// the server starts). Default: `None`, plaintext.
    pub fn tls(mut self, tls: Option<Tls>) -> Self {
        self.config.tls = tls;
        self
    }

    /// Serve Prometheus metrics over HTTP on this address. Default: `None`, no metrics.
    pub fn metrics_listen(mut self, addr: Option<SocketAddr>) -> Self {
        self.config.metrics_listen = addr;
        self
    }

    /// The most unfinished games (waiting for players or in play) the server holds; finished
    /// games do not count and stay readable. 0 makes a server that creates no game and serves
    /// the finished ones of its storage. Default: 200 000.
    pub fn max_games(mut self, n: usize) -> Self {
        self.config.max_games = n;
        self
    }

    /// The most spectator watch streams (without a seat token) open on one game; 0: no
    /// spectators. A seat's own streams count against [`ConfigBuilder::max_watchers_per_token`]
    /// instead, so spectators can never lock a player out. Default: 64.
    pub fn max_spectators_per_game(mut self, n: usize) -> Self {
        self.config.max_spectators_per_game = n;
        self
    }

    /// The largest request message, in bytes; at least [`SMALLEST_MESSAGE_LIMIT`]. Default:
    /// 1 MiB.
    pub fn max_message_bytes(mut self, bytes: usize) -> Self {
        self.config.max_message_bytes = bytes;
        self
    }

    /// Requests per second one seat token may make on its own game (bursts up to twice as
    /// many); positive and finite (a huge rate lifts the limit). Default: 200.
    pub fn requests_per_second(mut self, rate: f64) -> Self {
        self.config.requests_per_second = rate;
        self
    }

    /// Requests per second one IP address may make for every call whose token holds no seat of
    /// the game it names (creating, joining, listing, spectating, made-up tokens; bursts up to
    /// twice as many); positive and finite. Default: 1000.
    pub fn address_requests_per_second(mut self, rate: f64) -> Self {
        self.config.address_requests_per_second = rate;
        self
    }

    /// The most watch streams one seat token may hold open; at least 1 (a seat plays over
    /// one). Default: 8.
    pub fn max_watchers_per_token(mut self, n: usize) -> Self {
        self.config.max_watchers_per_token = n;
        self
    }

    /// The most seeks (open Seek streams) and pending challenges one player may hold at once;
    /// at least 1. Default: 16.
    pub fn max_seeks_per_player(mut self, n: usize) -> Self {
        self.config.max_seeks_per_player = n;
        self
    }

    /// The most lobby games one player may sit in unfinished at once, counting its seeks and
    /// the pending challenges it made or accepted (not the invitations it has not answered);
    /// at least 1. Default: 64.
    pub fn max_games_per_player(mut self, n: usize) -> Self {
        self.config.max_games_per_player = n;
        self
    }

    /// How long a challenge waits for every invited player's answer before it expires;
    /// [`SHORTEST_PERIOD`] to [`LONGEST`]. Default: 5 minutes.
    pub fn challenge_timeout(mut self, d: Duration) -> Self {
        self.config.challenge_timeout = d;
        self
    }

    /// How many of each player's last events the server keeps (in memory and in storage) for
    /// a WatchPlayer stream to resume from; 16 to [`LARGEST_WATCH_BUFFER`]. Default: 1024.
    pub fn player_events_kept(mut self, n: usize) -> Self {
        self.config.player_events_kept = n;
        self
    }

    /// The built-in bots the lobby hosts as players, each under its bot's name (`greedy`,
    /// `random`, `safe`, `search`, or a search with its budget, `search:50ms`): registered at
    /// the start if missing, flagged as house players, rated as any player, accepting every
    /// challenge, and filling the seats of seeks that ask for it. Empty: none. Default: greedy
    /// and random.
    pub fn house_players<I>(mut self, names: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.config.house_players = names.into_iter().map(Into::into).collect();
        self
    }

    /// The most spectator watch streams (without a seat token) one IP address may hold open;
    /// 0: no spectators. Default: 256.
    pub fn max_watchers_per_address(mut self, n: usize) -> Self {
        self.config.max_watchers_per_address = n;
        self
    }

    /// The time between heartbeats on an idle watch stream; [`SHORTEST_PERIOD`] to
    /// [`LONGEST`]. Default: 15 s.
    pub fn heartbeat(mut self, period: Duration) -> Self {
        self.config.heartbeat = period;
        self
    }

    /// Messages a watch stream may fall behind before it is told it lagged and closed;
    /// [`SMALLEST_WATCH_BUFFER`] to [`LARGEST_WATCH_BUFFER`]. Default: 4096.
    pub fn watch_buffer(mut self, messages: usize) -> Self {
        self.config.watch_buffer = messages;
        self
    }

    /// How long a watch stream may stay unable to take a message (its client does not read)
    /// before it is told it lagged and closed, freeing its place (the client resumes by seq);
    /// [`SHORTEST_PERIOD`] to [`LONGEST`]. Default: 30 s.
    pub fn watch_send_timeout(mut self, timeout: Duration) -> Self {
        self.config.watch_send_timeout = timeout;
        self
    }

    /// The most legal actions listed in one prompt; at least 1. Default: 2000.
    pub fn max_prompt_actions(mut self, n: usize) -> Self {
        self.config.max_prompt_actions = n;
        self
    }

    /// The shortest move budget (`TimeControl.move_budget_ms`) a game may be created with;
    /// no time control is always allowed. Whole milliseconds, 1 ms to [`LONGEST`], at most
    /// [`ConfigBuilder::max_move_budget`]. Below a remote bot's round trip (prompt, decision,
    /// action) honest players time out, and every time-out is the server's work: a fallback
    /// move chosen, stored and sent to every watcher. Default: 1 s.
    pub fn min_move_budget(mut self, budget: Duration) -> Self {
        self.config.min_move_budget = budget;
        self
    }

    /// The longest move budget a game may be created with: a game whose seat to act has gone
    /// holds its place among the unfinished games ([`ConfigBuilder::max_games`]) for a whole
    /// budget. Whole milliseconds, 1 ms to [`LONGEST`]. Default: a day.
    pub fn max_move_budget(mut self, budget: Duration) -> Self {
        self.config.max_move_budget = budget;
        self
    }

    /// How long a game may wait for players: a game whose seats are not all taken within it of
    /// its creation or of its last join or leave ends, expired (`MATCH_END_KIND_EXPIRED`), and
    /// frees its place among the unfinished games. `None`: never; at most [`LONGEST`].
    /// Default: an hour.
    pub fn waiting_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.config.waiting_timeout = timeout;
        self
    }

    /// How long a started game without a time control may go without any seat acting,
    /// joining or leaving; past it the game ends, abandoned (`MATCH_END_KIND_ABANDONED`, no
    /// side wins). Games with a time control end by their time-outs instead. `None`: never; at
    /// most [`LONGEST`]. Default: a day.
    pub fn idle_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.config.idle_timeout = timeout;
        self
    }

    /// How long a started game may have every seat left (free after `LeaveGame`); past it the
    /// game ends, abandoned, with or without a time control. `None`: never; at most
    /// [`LONGEST`]. Default: ten minutes.
    pub fn left_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.config.left_timeout = timeout;
        self
    }

    /// How long a Play call may take to send its opening `watch` message; past it the call
    /// ends with `DEADLINE_EXCEEDED` (`PLAY_NOT_OPENED`) and holds nothing. [`SHORTEST_PERIOD`]
    /// to [`LONGEST`]. Default: 10 s.
    pub fn play_open_timeout(mut self, timeout: Duration) -> Self {
        self.config.play_open_timeout = timeout;
        self
    }

    /// The most client connections served at once (one more is accepted and closed at once);
    /// at least 1. The server lowers it to what the process's descriptor limit leaves.
    /// Default: 10 000.
    pub fn max_connections(mut self, n: usize) -> Self {
        self.config.max_connections = n;
        self
    }

    /// How long a new connection may take to send its first 24 bytes (the length of HTTP/2's
    /// preface, or of the start of a TLS handshake); past it the connection is closed.
    /// [`SHORTEST_PERIOD`] to [`LONGEST`]. Default: 10 s.
    pub fn handshake_timeout(mut self, timeout: Duration) -> Self {
        self.config.handshake_timeout = timeout;
        self
    }

    /// The time between HTTP/2 pings on a connection, each to be answered within
    /// [`ConfigBuilder::keepalive_timeout`] or the connection is closed (a client that
    /// vanished, or never answers, frees its connection). `None`: no pings; else
    /// [`SHORTEST_PERIOD`] to [`LONGEST`]. Default: 60 s.
    pub fn keepalive(mut self, period: Option<Duration>) -> Self {
        self.config.keepalive = period;
        self
    }

    /// How long an HTTP/2 ping may wait for its answer before the connection is closed;
    /// [`SHORTEST_PERIOD`] to [`LONGEST`]. Default: 20 s.
    pub fn keepalive_timeout(mut self, timeout: Duration) -> Self {
        self.config.keepalive_timeout = timeout;
        self
    }

    /// The origins (`https://app.example`, `http://localhost:5173`: a scheme, a host and an
    /// optional port, as a browser's `Origin` header names a page's) whose pages may call the
    /// service with gRPC-Web: the server answers their CORS preflights and lets their scripts
    /// read the responses and the trailers' headers. `*` allows any origin (the calls carry
    /// their tokens in the `authorization` header, never in cookies, so a page can only use a
    /// token it was given). Case does not matter. Default: none; a page the server is asked
    /// for directly (same origin) needs none.
    pub fn cors_origins<I>(mut self, origins: I) -> Self
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.config.cors_origins = origins.into_iter().map(Into::into).collect();
        self
    }

    /// The longest the server's built-in bots (`CreateGameRequest.bots`) think about one
    /// move: a `search` bot with a longer time budget is refused at CreateGame
    /// (`BOT_BUDGET_TOO_HIGH`), and every search, an iteration budget's too, stops at it. Whole
    /// milliseconds, 1 ms to [`LONGEST_BOT_THINK`]. Default: 200 ms.
    pub fn max_bot_think(mut self, limit: Duration) -> Self {
        self.config.max_bot_think = limit;
        self
    }

    /// The largest iteration budget of a built-in `search` bot (`search:N`): a larger one is
    /// refused at CreateGame (`BOT_BUDGET_TOO_HIGH`). 1 to the search bot's own maximum.
    /// Default: 4000 (about 200 ms of one core, the default think limit).
    pub fn max_bot_iterations(mut self, n: u32) -> Self {
        self.config.max_bot_iterations = n;
        self
    }

    /// The most built-in bots' moves thinking at once, over all games: each takes a core
    /// while it thinks, and the others wait their turn (within their time, under a time
    /// control). 1 to [`MOST_BOT_THREADS`]. Default: half the cores the process may use (at
    /// least 1), leaving the others to serve requests.
    pub fn bot_threads(mut self, n: usize) -> Self {
        self.config.bot_threads = n;
        self
    }

    /// Whether the server answers a browser's `GET /` on its port with its own web page (the
    /// lobby, the table, replays; see `docs/web.md`) and its assets. gRPC and gRPC-Web are
    /// served either way. Default: on.
    pub fn web_page(mut self, serve: bool) -> Self {
        self.config.web_page = serve;
        self
    }

    /// The configuration, if every setting is within its bounds; else the first that is not,
    /// with what to give instead.
    pub fn build(self) -> Result<Config, ConfigError> {
        let c = self.config;
        if let Storage::Sqlite { path, .. } = &c.storage
            && path.as_os_str().is_empty()
        {
            return Err(ConfigError::new(
                "storage",
                "the database path is empty: name a file (it is created if missing), or keep \
                 the games in memory",
            ));
        }
        if let Some(tls) = &c.tls
            && (tls.cert.as_os_str().is_empty() || tls.key.as_os_str().is_empty())
        {
            return Err(ConfigError::new(
                "tls",
                "a path of the certificate or key is empty: name both PEM files",
            ));
        }
        at_least(
            "max_message_bytes",
            c.max_message_bytes,
            SMALLEST_MESSAGE_LIMIT,
            "bytes (no ordinary request would fit)",
        )?;
        rate("requests_per_second", c.requests_per_second)?;
        rate("address_requests_per_second", c.address_requests_per_second)?;
        at_least(
            "max_watchers_per_token",
            c.max_watchers_per_token,
            1,
            "streams (a seat plays over a watch stream)",
        )?;
        period("heartbeat", c.heartbeat)?;
        at_least(
            "watch_buffer",
            c.watch_buffer,
            SMALLEST_WATCH_BUFFER,
            "messages (a stream would lag at every burst of events)",
        )?;
        if c.watch_buffer > LARGEST_WATCH_BUFFER {
            return Err(ConfigError::new(
                "watch_buffer",
                format!(
                    "{} messages is more than the {LARGEST_WATCH_BUFFER} a game may keep for \
                     its watchers: give fewer",
                    c.watch_buffer
                ),
            ));
        }
        period("watch_send_timeout", c.watch_send_timeout)?;
        at_least(
            "max_prompt_actions",
            c.max_prompt_actions,
            1,
            "actions (a prompt would list none)",
        )?;
        budget("min_move_budget", c.min_move_budget)?;
        budget("max_move_budget", c.max_move_budget)?;
        if c.min_move_budget > c.max_move_budget {
            return Err(ConfigError::new(
                "min_move_budget",
                format!(
                    "{} ms is above the longest move budget, {} ms: no game could have a time \
                     control; lower the shortest or raise the longest",
                    c.min_move_budget.as_millis(),
                    c.max_move_budget.as_millis()
                ),
            ));
        }
        game_timeout("waiting_timeout", c.waiting_timeout)?;
        game_timeout("idle_timeout", c.idle_timeout)?;
        game_timeout("left_timeout", c.left_timeout)?;
        period("play_open_timeout", c.play_open_timeout)?;
        at_least(
            "max_connections",
            c.max_connections,
            1,
            "connections (the server would serve nobody)",
        )?;
        period("handshake_timeout", c.handshake_timeout)?;
        if let Some(keepalive) = c.keepalive {
            period("keepalive", keepalive)?;
        }
        period("keepalive_timeout", c.keepalive_timeout)?;
        budget("max_bot_think", c.max_bot_think)?;
        if c.max_bot_think > LONGEST_BOT_THINK {
            return Err(ConfigError::new(
                "max_bot_think",
                format!(
                    "{} ms is more than {} ms: a bot's move would hold a core that long; give \
                     less",
                    c.max_bot_think.as_millis(),
                    LONGEST_BOT_THINK.as_millis()
                ),
            ));
        }
        let most = canasta_engine::bot::search::MAX_ITERATIONS;
        if !(1..=most).contains(&c.max_bot_iterations) {
            return Err(ConfigError::new(
                "max_bot_iterations",
                format!(
                    "{} is outside 1 to {most} iterations: give a budget within them",
                    c.max_bot_iterations
                ),
            ));
        }
        if !(1..=MOST_BOT_THREADS).contains(&c.bot_threads) {
            return Err(ConfigError::new(
                "bot_threads",
                format!(
                    "{} is outside 1 to {MOST_BOT_THREADS}: give how many bots' moves may \
                     think at once (each takes a core)",
                    c.bot_threads
                ),
            ));
        }
        at_least(
            "max_seeks_per_player",
            c.max_seeks_per_player,
            1,
            "seeks (no player could seek a game)",
        )?;
        at_least(
            "max_games_per_player",
            c.max_games_per_player,
            1,
            "games (no player could play in the lobby)",
        )?;
        period("challenge_timeout", c.challenge_timeout)?;
        at_least(
            "player_events_kept",
            c.player_events_kept,
            SMALLEST_WATCH_BUFFER,
            "events (a player's stream could not resume after a short break)",
        )?;
        if c.player_events_kept > LARGEST_WATCH_BUFFER {
            return Err(ConfigError::new(
                "player_events_kept",
                format!(
                    "{} events is more than the {LARGEST_WATCH_BUFFER} a player may keep: give fewer",
                    c.player_events_kept
                ),
            ));
        }
        for (i, name) in c.house_players.iter().enumerate() {
            if let Err(why) = canasta_engine::bot::check_name(name) {
                return Err(ConfigError::new(
                    "house_players",
                    format!("{}: {why}", quoted(name)),
                ));
            }
            if c.house_players[..i].contains(name) {
                return Err(ConfigError::new(
                    "house_players",
                    format!("{} is named twice: name each bot once", quoted(name)),
                ));
            }
        }
        let mut c = c;
        for origin in &mut c.cors_origins {
            *origin = cors_origin(origin)?;
        }
        Ok(c)
    }
}

/// An origin of [`ConfigBuilder::cors_origins`], in lower case, or why it is none.
fn cors_origin(origin: &str) -> Result<String, ConfigError> {
    let refuse = |problem: String| {
        Err(ConfigError::new(
            "cors_origins",
            format!(
                "{}: {problem}; give an origin as scheme://host[:port] (https://app.example), \
                 or * for any",
                quoted(origin)
            ),
        ))
    };
    if origin == "*" {
        return Ok(origin.into());
    }
    if !origin.is_ascii() || origin.bytes().any(|b| b.is_ascii_control() || b == b' ') {
        return refuse(
            "not ASCII without spaces (write an international domain name in its xn-- form)".into(),
        );
    }
    let origin = origin.to_ascii_lowercase();
    let Some((scheme, rest)) = origin.split_once("://") else {
        return refuse("no scheme".into());
    };
    if scheme != "http" && scheme != "https" {
        return refuse(format!("the scheme is {scheme}, not http or https"));
    }
    if rest.is_empty() || rest.starts_with(':') {
        return refuse("no host".into());
    }
    if let Some(at) = rest.find(['/', '?', '#', '@', '*']) {
        let what = match rest.as_bytes()[at] {
            b'/' => "a path (a trailing / included): an origin ends with its host or port",
            b'@' => "a user name: an origin has none",
            b'*' => "a wildcard in the host: list each origin, or give * alone",
            _ => "a query or fragment: an origin ends with its host or port",
        };
        return refuse(format!("has {what}"));
    }
    if let Some((_, port)) = rest.rsplit_once(':')
        && !rest.ends_with(']')
        && port.parse::<u16>().is_err()
    {
        return refuse(format!("{} is not a port", quoted(port)));
    }
    Ok(origin)
}

/// A setting [`ConfigBuilder::build`] refused, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    setting: &'static str,
    problem: String,
}

impl ConfigError {
    fn new(setting: &'static str, problem: impl Into<String>) -> ConfigError {
        ConfigError {
            setting,
            problem: problem.into(),
        }
    }

    /// The setting, named as its [`ConfigBuilder`] method is (`heartbeat`).
    pub fn setting(&self) -> &'static str {
        self.setting
    }

    /// What is wrong with its value and what to give instead, without the setting's name.
    pub fn problem(&self) -> &str {
        &self.problem
    }
}

/// `setting: problem`.
impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.setting, self.problem)
    }
}

impl std::error::Error for ConfigError {}

/// A count of at least `least`; `unit_why` is its unit and, in brackets, what fewer would do.
fn at_least(
    setting: &'static str,
    n: usize,
    least: usize,
    unit_why: &str,
) -> Result<(), ConfigError> {
    if n >= least {
        return Ok(());
    }
    Err(ConfigError::new(
        setting,
        format!("{n} is too few {unit_why}: give at least {least}"),
    ))
}

/// A rate of requests: positive and finite.
fn rate(setting: &'static str, rate: f64) -> Result<(), ConfigError> {
    if rate.is_finite() && rate > 0.0 {
        return Ok(());
    }
    Err(ConfigError::new(
        setting,
        format!(
            "{rate} is not a rate of requests: give a positive number of requests a second \
             (a large one, e.g. 1e9, lifts the limit)"
        ),
    ))
}

/// A period or time-out of a connection or a stream: [`SHORTEST_PERIOD`] to [`LONGEST`].
fn period(setting: &'static str, d: Duration) -> Result<(), ConfigError> {
    if (SHORTEST_PERIOD..=LONGEST).contains(&d) {
        return Ok(());
    }
    Err(ConfigError::new(
        setting,
        format!(
            "{} is outside {} to {} (a year): give a time within them",
            seconds(d),
            seconds(SHORTEST_PERIOD),
            seconds(LONGEST)
        ),
    ))
}

/// A duration in seconds, as a person reads it: `0.25 s`.
fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// A move budget bound: whole milliseconds, 1 ms to [`LONGEST`].
fn budget(setting: &'static str, d: Duration) -> Result<(), ConfigError> {
    if !d.subsec_nanos().is_multiple_of(1_000_000) {
        return Err(ConfigError::new(
            setting,
            format!("{d:?} is not a whole number of milliseconds, the protocol's unit"),
        ));
    }
    if (Duration::from_millis(1)..=LONGEST).contains(&d) {
        return Ok(());
    }
    Err(ConfigError::new(
        setting,
        format!(
            "{} ms is outside 1 to {} ms (a year)",
            d.as_millis(),
            LONGEST.as_millis()
        ),
    ))
}

/// A time-out of a game nobody plays: `None` (never), or more than nothing to [`LONGEST`].
fn game_timeout(setting: &'static str, d: Option<Duration>) -> Result<(), ConfigError> {
    match d {
        None => Ok(()),
        Some(d) if d.is_zero() => Err(ConfigError::new(
            setting,
            "a time-out of zero would end every game at once: give a longer one, or none \
             (never)",
        )),
        Some(d) if d > LONGEST => Err(ConfigError::new(
            setting,
            format!(
                "{} is more than {} (a year): give less, or no time-out (never)",
                seconds(d),
                seconds(LONGEST)
            ),
        )),
        Some(_) => Ok(()),
    }
}

#[cfg(test)]
impl ConfigBuilder {
    /// The configuration of the crate's unit tests (the end-to-end tests' is
    /// `canasta_tests::test_config`): in memory; every test client comes from 127.0.0.1, so
    /// the per-address limits are raised out of reach (a test of a limit lowers it); the
    /// shortest move budget is 100 ms.
    pub(crate) fn for_tests() -> ConfigBuilder {
        Config::builder()
            .storage(Storage::Memory)
            .address_requests_per_second(1_000_000.0)
            .max_watchers_per_address(100_000)
            .max_watchers_per_token(1000)
            .min_move_budget(Duration::from_millis(100))
    }
}

#[cfg(test)]
impl Config {
    /// [`ConfigBuilder::for_tests`], built.
    pub(crate) fn for_tests() -> Config {
        ConfigBuilder::for_tests()
            .build()
            .expect("the tests' configuration is valid")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: Duration = Duration::from_secs(1);

    #[test]
    fn the_defaults_are_the_production_ones_and_valid() {
        let defaults = Config::default();
        assert_eq!(Config::builder().build(), Ok(defaults.clone()));
        assert_eq!(defaults.storage(), &Storage::sqlite("canasta.db"));
        assert_eq!(defaults.storage().to_string(), "canasta.db");
        assert_eq!(defaults.tls(), None);
        assert_eq!(defaults.metrics_listen(), None);
        assert_eq!(defaults.max_games(), 200_000);
        assert_eq!(defaults.max_spectators_per_game(), 64);
        assert_eq!(defaults.max_message_bytes(), 1 << 20);
        assert_eq!(defaults.requests_per_second(), 200.0);
        assert_eq!(defaults.address_requests_per_second(), 1000.0);
        assert_eq!(defaults.max_watchers_per_token(), 8);
        assert_eq!(defaults.max_watchers_per_address(), 256);
        assert_eq!(defaults.heartbeat(), 15 * SEC);
        assert_eq!(defaults.watch_buffer(), 4096);
        assert_eq!(defaults.watch_send_timeout(), 30 * SEC);
        assert_eq!(defaults.max_prompt_actions(), 2000);
        assert_eq!(defaults.move_budgets(), SEC..=86_400 * SEC);
        // Games nobody plays: an hour to fill the seats, a day without activity, ten minutes
        // with every seat left.
        assert_eq!(defaults.waiting_timeout(), Some(3600 * SEC));
        assert_eq!(defaults.idle_timeout(), Some(86_400 * SEC));
        assert_eq!(defaults.left_timeout(), Some(600 * SEC));
        assert_eq!(defaults.play_open_timeout(), 10 * SEC);
        assert_eq!(defaults.max_connections(), 10_000);
        assert_eq!(defaults.handshake_timeout(), 10 * SEC);
        assert_eq!(defaults.keepalive(), Some(60 * SEC));
        assert_eq!(defaults.keepalive_timeout(), 20 * SEC);
        assert!(defaults.cors_origins().is_empty(), "no CORS by default");
    }

    // Origins are kept as a browser's Origin header names them (lower case), and anything
    // else (a path, a trailing slash, no scheme, a user name, a bad port) is refused with
    // the form to give.
    #[test]
    fn cors_origins_are_origins() {
        let c = Config::builder()
            .cors_origins([
                "https://App.Example",
                "http://localhost:5173",
                "http://[::1]:8080",
                "*",
            ])
            .build()
            .unwrap();
        assert_eq!(
            c.cors_origins(),
            [
                "https://app.example",
                "http://localhost:5173",
                "http://[::1]:8080",
                "*"
            ]
        );
        for (origin, why) in [
            ("https://app.example/", "a path"),
            ("https://app.example/page", "a path"),
            ("app.example", "no scheme"),
            ("ftp://app.example", "not http or https"),
            ("https://", "no host"),
            ("https://:443", "no host"),
            ("https://user@app.example", "a user name"),
            ("https://*.example", "a wildcard"),
            ("https://app.example:http", "not a port"),
            ("https://app.example:70000", "not a port"),
            ("https://app.example?x", "a query"),
            ("https://bücher.example", "xn--"),
            ("https://app example", "without spaces"),
            ("", "no scheme"),
        ] {
            let e = Config::builder()
                .cors_origins([origin])
                .build()
                .expect_err(origin);
            assert_eq!(e.setting(), "cors_origins");
            assert!(e.problem().contains(why), "{origin}: {e}");
            assert!(e.problem().contains("scheme://host[:port]"), "{e}");
        }
    }

    #[test]
    fn the_builder_sets_each_setting_and_keeps_the_others() {
        let tls = Tls {
            cert: "c.pem".into(),
            key: "k.pem".into(),
        };
        let metrics: SocketAddr = "127.0.0.1:9090".parse().unwrap();
        let c = Config::builder()
            .storage(Storage::Sqlite {
                path: "games.db".into(),
                sync_full: true,
            })
            .tls(Some(tls.clone()))
            .metrics_listen(Some(metrics))
            .max_games(0)
            .max_spectators_per_game(0)
            .max_message_bytes(4096)
            .requests_per_second(0.01)
            .address_requests_per_second(1e9)
            .max_watchers_per_token(1)
            .max_watchers_per_address(0)
            .heartbeat(SHORTEST_PERIOD)
            .watch_buffer(16)
            .watch_send_timeout(LONGEST)
            .max_prompt_actions(1)
            .min_move_budget(Duration::from_millis(1))
            .max_move_budget(LONGEST)
            .waiting_timeout(None)
            .idle_timeout(Some(LONGEST))
            .left_timeout(Some(Duration::from_millis(250)))
            .play_open_timeout(3 * SEC)
            .max_connections(1)
            .handshake_timeout(2 * SEC)
            .keepalive(None)
            .keepalive_timeout(SEC)
            .build()
            .expect("every value is within its bounds");
        assert_eq!(c.storage().path(), Some(Path::new("games.db")));
        assert_eq!(c.tls(), Some(&tls));
        assert_eq!(c.metrics_listen(), Some(metrics));
        assert_eq!(c.max_games(), 0);
        assert_eq!(c.max_spectators_per_game(), 0);
        assert_eq!(c.max_message_bytes(), 4096);
        assert_eq!(c.requests_per_second(), 0.01);
        assert_eq!(c.address_requests_per_second(), 1e9);
        assert_eq!(c.max_watchers_per_token(), 1);
        assert_eq!(c.max_watchers_per_address(), 0);
        assert_eq!(c.heartbeat(), SHORTEST_PERIOD);
        assert_eq!(c.watch_buffer(), 16);
        assert_eq!(c.watch_send_timeout(), LONGEST);
        assert_eq!(c.max_prompt_actions(), 1);
        assert_eq!(c.move_budgets(), Duration::from_millis(1)..=LONGEST);
        assert_eq!(c.waiting_timeout(), None);
        assert_eq!(c.idle_timeout(), Some(LONGEST));
        assert_eq!(c.left_timeout(), Some(Duration::from_millis(250)));
        assert_eq!(c.play_open_timeout(), 3 * SEC);
        assert_eq!(c.max_connections(), 1);
        assert_eq!(c.handshake_timeout(), 2 * SEC);
        assert_eq!(c.keepalive(), None);
        assert_eq!(c.keepalive_timeout(), SEC);
        // A builder from a configuration changes what it is told to and keeps the rest.
        let again = c.to_builder().max_games(7).build().unwrap();
        assert_eq!(again.max_games(), 7);
        assert_eq!(again.to_builder().max_games(0).build(), Ok(c));
    }

    #[test]
    fn a_value_out_of_bounds_is_refused_with_what_to_give() {
        let refused = |b: ConfigBuilder| b.build().expect_err("refused");
        let cases: Vec<(ConfigBuilder, &str, &str)> = vec![
            (
                Config::builder().storage(Storage::sqlite("")),
                "storage",
                "name a file",
            ),
            (
                Config::builder().tls(Some(Tls {
                    cert: "c.pem".into(),
                    key: "".into(),
                })),
                "tls",
                "name both",
            ),
            (
                Config::builder().max_message_bytes(100),
                "max_message_bytes",
                "at least 1024",
            ),
            (
                Config::builder().requests_per_second(0.0),
                "requests_per_second",
                "positive number",
            ),
            (
                Config::builder().requests_per_second(f64::NAN),
                "requests_per_second",
                "positive number",
            ),
            (
                Config::builder().address_requests_per_second(f64::INFINITY),
                "address_requests_per_second",
                "lifts the limit",
            ),
            (
                Config::builder().max_watchers_per_token(0),
                "max_watchers_per_token",
                "at least 1",
            ),
            (
                Config::builder().heartbeat(Duration::ZERO),
                "heartbeat",
                "0.01 s to",
            ),
            (
                Config::builder().heartbeat(Duration::from_millis(9)),
                "heartbeat",
                "0.01 s to",
            ),
            (
                Config::builder().watch_buffer(15),
                "watch_buffer",
                "at least 16",
            ),
            (
                Config::builder().watch_buffer(usize::MAX),
                "watch_buffer",
                "give fewer",
            ),
            (
                Config::builder().watch_send_timeout(LONGEST + SEC),
                "watch_send_timeout",
                "a year",
            ),
            (
                Config::builder().max_prompt_actions(0),
                "max_prompt_actions",
                "list none",
            ),
            (
                Config::builder().min_move_budget(Duration::ZERO),
                "min_move_budget",
                "a year",
            ),
            (
                Config::builder().max_move_budget(LONGEST + Duration::from_millis(1)),
                "max_move_budget",
                "a year",
            ),
            (
                Config::builder().min_move_budget(Duration::from_micros(1500)),
                "min_move_budget",
                "whole number of milliseconds",
            ),
            (
                Config::builder().min_move_budget(2 * 86_400 * SEC),
                "min_move_budget",
                "lower the shortest or raise the longest",
            ),
            (
                Config::builder().waiting_timeout(Some(Duration::ZERO)),
                "waiting_timeout",
                "none (never)",
            ),
            (
                Config::builder().idle_timeout(Some(LONGEST + SEC)),
                "idle_timeout",
                "a year",
            ),
            (
                Config::builder().left_timeout(Some(Duration::ZERO)),
                "left_timeout",
                "none (never)",
            ),
            (
                Config::builder().play_open_timeout(Duration::ZERO),
                "play_open_timeout",
                "0.01 s",
            ),
            (
                Config::builder().max_connections(0),
                "max_connections",
                "at least 1",
            ),
            (
                Config::builder().handshake_timeout(Duration::from_millis(1)),
                "handshake_timeout",
                "0.01 s",
            ),
            (
                Config::builder().keepalive(Some(Duration::ZERO)),
                "keepalive",
                "0.01 s",
            ),
            (
                Config::builder().keepalive_timeout(Duration::MAX),
                "keepalive_timeout",
                "a year",
            ),
        ];
        for (builder, setting, hint) in cases {
            let e = refused(builder);
            assert_eq!(e.setting(), setting, "{e}");
            assert!(e.problem().contains(hint), "{setting}: {e}");
            assert_eq!(e.to_string(), format!("{setting}: {}", e.problem()));
        }
    }

    #[test]
    fn the_unit_tests_configuration_raises_the_per_address_limits_only() {
        let defaults = Config::default();
        let tests = Config::for_tests();
        assert_eq!(tests.storage(), &Storage::Memory);
        assert_eq!(tests.max_watchers_per_address(), 100_000);
        assert_eq!(tests.address_requests_per_second(), 1_000_000.0);
        assert_eq!(tests.requests_per_second(), defaults.requests_per_second());
        assert_eq!(
            tests.move_budgets(),
            Duration::from_millis(100)..=*defaults.move_budgets().end()
        );
        assert_eq!(tests.waiting_timeout(), defaults.waiting_timeout());
    }
}
