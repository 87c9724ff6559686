//! The command line: subcommands and their flags, read in two stages (as ripgrep does): clap
//! checks each value on its own (bot names, presets, options, ranges, durations), then
//! [`check`] the combinations (a preset's player counts, options that conflict, one bot per
//! side). Both stages report bad usage, which exits with code 2 before anything starts.

use std::path::PathBuf;

use canasta_engine::bot::{self, BOT_NAMES};
use canasta_engine::table::Table;
use canasta_engine::{Preset, RuleSpec, Rules};
use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand, ValueEnum};

/// Play Canasta in a terminal, attach bots to a server, run headless matches between bots.
#[derive(Debug, Parser)]
#[command(name = "canasta", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play a game in the terminal against built-in bots or other players.
    ///
    /// On a server, the seat's token is shown when you join: `quit` keeps your seat, and
    /// `canasta play --game GAME --token TOKEN` takes you back to it.
    Play(PlayArgs),
    /// List the server's games, newest first: status, rules, seats and who holds them, when
    /// each was created, and the scores.
    Games(GamesArgs),
    /// Create a game on the server and print its id; with --bots, seat built-in bots in some
    /// of its seats and play them to the end of the match.
    Create(CreateArgs),
    /// Watch a game live in the terminal, as a spectator (or as a seat, with its token), to the
    /// end of the match. A dropped connection is resumed from the last event shown.
    Watch(WatchArgs),
    /// Attach a built-in bot to a seat of a game on a server and play it to the end; or, as a
    /// registered player (--seek, --accept-challenges), play the games the lobby finds.
    ///
    /// The bot watches and acts over one Play call (with --unary, a WatchGame stream and a
    /// SubmitAction call per action). It waits as long as the server asks when refused for a
    /// limit, and when its connection drops it reconnects and resumes from the last event it
    /// saw. Under a time control a `search` bot keeps each decision within the seat's time
    /// left, less a margin.
    Bot(BotArgs),
    /// Run headless matches between bots, in-process or against a server.
    Match(MatchArgs),
    /// Write a finished game's record from a server as JSON.
    Export(ExportArgs),
    /// Cancel a game that waits for players, with the creator token CreateGame returned.
    Cancel(CancelArgs),
    /// Show a game record (from `export`) deal by deal, replayed by the engine.
    Replay(ReplayArgs),
    /// Start a server in this process and watch bots play a game (four, unless --players).
    Demo(DemoArgs),
    /// Load a server on this machine with concurrent games of bots and report throughput,
    /// latency, errors and memory; or measure the memory of idle games, or how fast many
    /// players seeking games at once are seated (--seekers).
    Loadtest(LoadtestArgs),
    /// Register a player in the server's lobby: a name and a secret key, shown once (or
    /// written to --key-file). The lobby's commands take the key from --key-file or the
    /// environment variable CANASTA_KEY.
    Register(RegisterArgs),
    /// The rated players of a family of rules (preset and player count), best first.
    Leaderboard(LeaderboardArgs),
    /// A player's record: ratings, games, wins and recent games.
    Player(PlayerArgs),
    /// Run a round robin among registered players through challenges, and print the standings
    /// with 95% confidence intervals and the rating changes. The players' bots must be
    /// following their players' games (`canasta bot --seek` or `canasta bot
    /// --accept-challenges`).
    Tournament(TournamentArgs),
}

/// The default server address of every subcommand that talks to a server.
pub const DEFAULT_SERVER: &str = "127.0.0.1:50051";

/// Where the server is.
#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    /// The server's address: HOST:PORT, or https://HOST:PORT for TLS.
    #[arg(long, env = "CANASTA_SERVER", default_value = DEFAULT_SERVER)]
    pub server: String,
}

/// A rule set on the command line.
#[derive(Debug, Clone, Args)]
pub struct RuleArgs {
    /// The preset.
    #[arg(long, default_value = "official", ignore_case = true, value_parser = presets())]
    pub preset: String,
    /// Number of players (2 to 6; samba 2 to 4, swiss 2 to 5).
    #[arg(long, default_value_t = 4, value_parser = players)]
    pub players: u8,
    /// An option override, NAME=VALUE (repeatable); see docs/rules.md.
    #[arg(long = "option", value_name = "NAME=VALUE", value_parser = rule_option)]
    pub options: Vec<String>,
}

/// `canasta play`.
#[derive(Debug, Args)]
pub struct PlayArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Start a server in this process instead of connecting to one.
    #[arg(long)]
    pub local: bool,
    /// Join this game instead of creating one.
    #[arg(long, value_parser = game_id)]
    pub game: Option<String>,
    /// The seat to take (the lowest free one if unset).
    #[arg(long, conflicts_with = "token")]
    pub seat: Option<u32>,
    /// Come back to the seat this token holds (shown when you joined it): a secret, like a
    /// password. Read from the environment variable CANASTA_TOKEN when --game is given
    /// without --token or --seat.
    #[arg(long, requires = "game", conflicts_with = "local")]
    pub token: Option<String>,
    /// Keep the seat's token in this file, readable by you only: written when you take a new
    /// seat, and read to come back to the seat when the file exists (with --game).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["local", "token"])]
    pub token_file: Option<PathBuf>,
    /// Your display name.
    #[arg(long, default_value = "you")]
    pub name: String,
    /// The rules of a new game.
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The seed of a new game.
    #[arg(long)]
    pub seed: Option<u64>,
    /// The built-in bot that takes the other seats of a new game (greedy unless set). With
    /// --game, the bot that takes every seat of the game still free.
    #[arg(long, value_parser = bot_name)]
    pub bot: Option<String>,
    /// The server plays the other seats of the new game itself, with its built-in bot (--bot),
    /// instead of this command: they play on if this command stops, and wait for you on your
    /// turns (come back to your seat with its token).
    #[arg(long, conflicts_with = "game")]
    pub house_bots: bool,
    /// Stop after this many deals (0: play the match to its end).
    #[arg(long, default_value_t = 0)]
    pub deals: u32,
    /// Colours and suit symbols (auto: on a terminal, without colours if NO_COLOR is set).
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
}

/// `canasta bot`.
#[derive(Debug, Args)]
pub struct BotArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The bot.
    #[arg(long, default_value = "greedy", value_parser = bot_name)]
    pub bot: String,
    /// The game to play (`canasta games` lists them). Not with --seek or --accept-challenges,
    /// which play the player's games.
    #[arg(long, value_parser = game_id, required_unless_present_any = ["seek", "accept_challenges"], conflicts_with_all = ["seek", "accept_challenges"])]
    pub game: Option<String>,
    /// The seat to take (the lowest free one if unset).
    #[arg(long, conflicts_with = "token", requires = "game")]
    pub seat: Option<u32>,
    /// Play a seat already joined, with its token.
    #[arg(long, env = "CANASTA_TOKEN", requires = "game")]
    pub token: Option<String>,
    /// As a registered player, play game after game through matchmaking: seek games of the
    /// rules (--preset, --players, --option) and time control given, play each to the end, and
    /// seek again. The player's games (started through seeks or challenges) are followed on its
    /// event stream, so a game found while the connection was down, or left unfinished by an
    /// earlier run, is played too.
    #[arg(long)]
    pub seek: bool,
    /// As a registered player, accept the challenges it is invited to (while it plays fewer
    /// than --concurrent games) and play them; with --seek too, both.
    #[arg(long)]
    pub accept_challenges: bool,
    /// The player's key (with --seek or --accept-challenges).
    #[command(flatten)]
    pub key: KeyArgs,
    /// The rules of the games sought (with --seek).
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The move budget of the games sought, e.g. 30s (no time control if unset): only seekers
    /// asking for the same time control meet.
    #[arg(long, value_name = "DURATION", value_parser = move_budget, requires = "seek")]
    pub move_budget: Option<u64>,
    /// What happens when a seat's move time runs out (with --move-budget).
    #[arg(long, value_enum, default_value_t = TimeoutPolicy::Fallback, requires = "move_budget")]
    pub timeout_policy: TimeoutPolicy,
    /// Seek unrated games (rated ones by default; a rated game plays its preset's own rules,
    /// without --option).
    #[arg(long, requires = "seek")]
    pub unrated: bool,
    /// Sit with this player on one side (it must seek naming this player in turn).
    #[arg(long, value_name = "NAME", requires = "seek")]
    pub partner: Option<String>,
    /// Ask the server to fill the seats still empty with its house bots after this wait, e.g.
    /// 30s (never if unset).
    #[arg(long, value_name = "DURATION", value_parser = fill_wait, requires = "seek")]
    pub fill_with_bots_after: Option<u64>,
    /// Stop after this many games played to the end (without it, play on until stopped).
    #[arg(long, value_parser = positive::<u64>)]
    pub games: Option<u64>,
    /// Games played at once, over one connection (with --seek: seeks held at once).
    #[arg(long, default_value_t = 1, value_parser = concurrent)]
    pub concurrent: usize,
    /// The bot's display name.
    #[arg(long)]
    pub name: Option<String>,
    /// Seed of the bot's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print nothing but errors: no line on standard error saying which seat the bot plays,
    /// no result (unless --json asks for it), for scripts that start many bots.
    #[arg(long, short)]
    pub quiet: bool,
    /// How long to keep trying to reach the server again after the connection drops (the bot
    /// then resumes from the last event it saw), in seconds.
    #[arg(long, default_value_t = 60, value_parser = positive::<u64>)]
    pub reconnect_secs: u64,
    /// Submit each action with a SubmitAction call of its own, reading a WatchGame stream (as
    /// a bot without Play does), instead of watching and acting over one Play call.
    #[arg(long)]
    pub unary: bool,
}

/// The player's key, for the lobby's commands: from a file, or from the environment (never an
/// argument, which `ps` would show to every user of the machine).
#[derive(Debug, Clone, Args)]
pub struct KeyArgs {
    /// The file holding the player's key (as `canasta register --key-file` writes it, or the
    /// key alone). Without it the key is read from the environment variable CANASTA_KEY.
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
}

/// `canasta register`.
#[derive(Debug, Args)]
pub struct RegisterArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The player's name: 1 to 40 visible characters, unique on the server regardless of
    /// case.
    #[arg(value_parser = player_name)]
    pub name: String,
    /// Write the key to this new file (readable by you only; an existing file is never
    /// overwritten) instead of printing it.
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    /// Print one JSON object: name, created_unix_ms, and key (or key_file with --key-file).
    #[arg(long)]
    pub json: bool,
}

/// `canasta leaderboard`.
#[derive(Debug, Args)]
pub struct LeaderboardArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The family's preset.
    #[arg(long, default_value = "official", ignore_case = true, value_parser = presets())]
    pub preset: String,
    /// The family's player count.
    #[arg(long, default_value_t = 4, value_parser = players)]
    pub players: u8,
    /// Show at most this many players, the best.
    #[arg(long, default_value_t = 50, value_parser = positive::<usize>)]
    pub limit: usize,
    /// Print one JSON array of the rows (rank, name, house, rating: mu, sigma, display, games,
    /// wins) instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `canasta player`.
#[derive(Debug, Args)]
pub struct PlayerArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The player's name (any case).
    #[arg(value_parser = player_name)]
    pub name: String,
    /// Recent games to list (1 to 100).
    #[arg(long, default_value_t = 10, value_parser = recent_games)]
    pub games: u32,
    /// Print the record as one JSON object instead of tables.
    #[arg(long)]
    pub json: bool,
}

/// `canasta tournament`.
#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// A player's key file (repeatable): a player of the event whose key this command holds.
    /// It makes the challenges of the games this player sits in, and accepts its invitations.
    #[arg(long = "key-file", value_name = "FILE")]
    pub key_files: Vec<PathBuf>,
    /// A player of the event whose key this command does not hold (repeatable): its bot
    /// accepts the invitations itself (`canasta bot --accept-challenges`).
    #[arg(long = "player", value_name = "NAME", value_parser = player_name)]
    pub others: Vec<String>,
    /// The rules.
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The move budget of every game, e.g. 30s (no time control if unset).
    #[arg(long, value_name = "DURATION", value_parser = move_budget)]
    pub move_budget: Option<u64>,
    /// What happens when a seat's move time runs out (with --move-budget).
    #[arg(long, value_enum, default_value_t = TimeoutPolicy::Fallback, requires = "move_budget")]
    pub timeout_policy: TimeoutPolicy,
    /// Play unrated games (rated by default; a rated game plays its preset's own rules).
    #[arg(long)]
    pub unrated: bool,
    /// Duplicate: play every game of the round robin once per side on one seed, the sides
    /// moved round the seats each time (twice with two sides, three times with three), as
    /// `canasta match --duplicate` does, to cancel the luck of the cards. Whoever knows a seed
    /// knows every card, so these games are unrated.
    #[arg(long)]
    pub duplicate: bool,
    /// The first seed of --duplicate: the round robin's game i is dealt with seed + i (a
    /// random first seed if unset; the first progress line prints it).
    #[arg(long, requires = "duplicate")]
    pub seed: Option<u64>,
    /// How many times each table is played: every group of players, in every way of forming
    /// its sides, each seat order in turn.
    #[arg(long, default_value_t = 1, value_parser = positive::<u32>)]
    pub rounds: u32,
    /// Games in flight at once.
    #[arg(long, default_value_t = 1, value_parser = positive::<usize>)]
    pub parallel: usize,
    /// Give up on a game whose players have not all accepted within this long, e.g. 2m (the
    /// server's own limit on challenges may be shorter).
    #[arg(long, default_value = "5m", value_parser = wait_ms)]
    pub accept_within: u64,
    /// Say on standard error which game has not moved for this long, e.g. 30s, and whose move
    /// it waits for: a player whose bot is not running, most often (not with --quiet). A
    /// minute if unset, or twice --move-budget when that is longer, since a bot may think
    /// for its whole budget.
    #[arg(long, value_name = "DURATION", value_parser = wait_ms)]
    pub stalled_after: Option<u64>,
    /// Write one JSON line per game to this file ("-" for standard output: then the standings
    /// follow as one more line with --json, or go to standard error as text).
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Print the standings as JSON.
    #[arg(long)]
    pub json: bool,
    /// Print no progress.
    #[arg(long)]
    pub quiet: bool,
}

impl TournamentArgs {
    /// How long a game may stand still before the tournament names it: `--stalled-after`, or
    /// a minute, or twice the move budget when that is longer (a bot thinking for its whole
    /// budget is not stalled).
    pub fn stalled_after(&self) -> std::time::Duration {
        let ms = self
            .stalled_after
            .unwrap_or_else(|| 60_000.max(self.move_budget.unwrap_or(0).saturating_mul(2)));
        std::time::Duration::from_millis(ms)
    }
}

/// `canasta games`.
#[derive(Debug, Args)]
pub struct GamesArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// Only the games of this status.
    #[arg(long, value_enum)]
    pub status: Option<StatusFilter>,
    /// List at most this many games, the newest (all of them if unset).
    #[arg(long, value_parser = positive::<usize>)]
    pub limit: Option<usize>,
    /// Print one JSON array of the games, each an object (game_id, status, preset, players,
    /// options, seats, seats_taken, seats_free, created_unix_ms, created, seq, time_control,
    /// result), instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// A game status to filter on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatusFilter {
    /// Waiting for players.
    Waiting,
    /// Being played.
    Playing,
    /// Over.
    Finished,
}

/// `canasta create`.
#[derive(Debug, Args)]
pub struct CreateArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The rules.
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The seed of the shuffles and of the first dealer (the server picks one if unset).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The time each seat has for each of its moves, e.g. 30s, 1500ms or 2m (no time control
    /// if unset). The server refuses a budget outside its floor and ceiling.
    #[arg(long, value_name = "DURATION", value_parser = move_budget)]
    pub move_budget: Option<u64>,
    /// What happens when a seat's move time runs out: the server's fallback bot makes a safe
    /// move for it, or its side forfeits the match.
    #[arg(long, value_enum, default_value_t = TimeoutPolicy::Fallback, requires = "move_budget")]
    pub timeout_policy: TimeoutPolicy,
    /// The score each side starts from, one per side, comma separated (e.g. 1500,-200), to
    /// continue a match.
    #[arg(
        long,
        value_name = "SCORES",
        value_parser = score,
        value_delimiter = ',',
        allow_hyphen_values = true
    )]
    pub start_scores: Vec<i32>,
    /// Built-in bots by seat from seat 0, comma separated, `-` for a seat left free for a
    /// player (e.g. -,greedy,-,random: bots in seats 1 and 3); the seats after the list are
    /// free too. The bots play from this command, which then runs to the end of the match.
    #[arg(long, value_name = "SEATS", value_parser = seat_bot_list, allow_hyphen_values = true)]
    pub bots: Option<String>,
    /// A seat the server plays itself with one of its built-in bots, as SEAT=BOT (e.g.
    /// 1=greedy or 2=search:50ms); repeat it for more seats. The seat is taken at once and the
    /// server plays it to the end of the match, with or without this command (which returns at
    /// once unless --bots seats bots of its own). The server may cap a search bot's budget.
    #[arg(long, value_name = "SEAT=BOT", value_parser = house_bot)]
    pub house_bot: Vec<(u32, String)>,
    /// Print the new game's summary as one JSON object (the fields of `canasta games
    /// --json`) instead of its id.
    #[arg(long)]
    pub json: bool,
}

/// `--timeout-policy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TimeoutPolicy {
    /// The server's fallback bot moves for the seat: draw, discard its safest card, answer
    /// no, decline the pile.
    Fallback,
    /// The seat's side forfeits the match.
    Forfeit,
}

/// `canasta watch`.
#[derive(Debug, Args)]
pub struct WatchArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The game (`canasta games` lists them).
    #[arg(value_parser = game_id)]
    pub game: String,
    /// Watch as the seat this token holds (its own cards shown) instead of as a spectator.
    #[arg(long)]
    pub token: Option<String>,
    /// Show every event from the first (the game so far, then live) instead of the table as
    /// it is now and the live events.
    #[arg(long)]
    pub from_start: bool,
    /// Print one JSON object per event, a line each (game_id, seq, kind, seat, text: the line
    /// `play` shows, null for an event it does not show; score for a deal's end, result for the
    /// match's), instead of text.
    #[arg(long)]
    pub json: bool,
    /// How long to keep trying to reach the server again after the connection drops (the
    /// watch then resumes from the last event it showed), in seconds.
    #[arg(long, default_value_t = 60, value_parser = positive::<u64>)]
    pub reconnect_secs: u64,
    /// Colours and suit symbols (auto: on a terminal, without colours if NO_COLOR is set).
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
}

/// `canasta match`.
#[derive(Debug, Args)]
pub struct MatchArgs {
    /// Bots by side, comma separated (one name: every side); e.g. greedy,random. The bots:
    /// greedy, random, safe, search (`search:400` for 400 iterations a move, `search:50ms`
    /// for 50 ms a move, `:t2` for two threads: `search:50ms:t2`, `:noinfer` to guess hidden
    /// hands from the known cards alone).
    #[arg(long, default_value = "greedy,random", value_parser = bot_list)]
    pub bots: String,
    /// Bots by seat instead, comma separated, one per seat.
    #[arg(long, conflicts_with = "bots", value_parser = bot_list)]
    pub seat_bots: Option<String>,
    /// The rules.
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Number of matches, each with its own seed (in duplicate mode each seed is played once
    /// per side).
    #[arg(long, default_value_t = 100, value_parser = positive::<u64>)]
    pub matches: u64,
    /// The first seed; match i uses seed + i.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Duplicate: play each seed once per side, the bots moved round the sides each time (twice
    /// with two sides, three times with three), to cancel the luck of the cards.
    #[arg(long)]
    pub duplicate: bool,
    /// Threads for in-process matches (default: every core).
    #[arg(long, value_parser = positive::<usize>)]
    pub threads: Option<usize>,
    /// Play against the server at this address (e.g. 127.0.0.1:50051), each seat a separate
    /// client. Without it the matches run in this process, with no server (unlike the other
    /// subcommands, `match` has no default server).
    #[arg(long)]
    pub server: Option<String>,
    /// Matches in flight at once against a server.
    #[arg(long, default_value_t = 8, value_parser = positive::<usize>)]
    pub parallel: usize,
    /// Stop a match after this many deals (it then counts as unfinished).
    #[arg(long, default_value_t = 200, value_parser = positive::<u32>)]
    pub max_deals: u32,
    /// Write one JSON line per match to this file ("-" for standard output: then standard
    /// output holds JSON lines only, and the summary follows them as one more line with
    /// --json, or goes to standard error as text without it).
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// `canasta export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The game (`canasta games --status finished` lists the finished ones).
    #[arg(value_parser = game_id)]
    pub game: String,
    /// Write to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// `canasta cancel`.
#[derive(Debug, Args)]
pub struct CancelArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The game.
    pub game: String,
    /// The game's creator token (`canasta create` prints it; CreateGame's creator_token).
    #[arg(long, env = "CANASTA_CREATOR_TOKEN")]
    pub token: String,
}

/// `canasta replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The record file (JSON, as `canasta export` writes it).
    pub file: PathBuf,
    /// Print the deals and the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `canasta demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Play on the server at this address (HOST:PORT, or https://HOST:PORT for TLS) instead of
    /// one started in this process.
    #[arg(long)]
    pub server: Option<String>,
    /// The rules.
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The seed.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// The bot in every seat.
    #[arg(long, default_value = "greedy", value_parser = bot_name)]
    pub bot: String,
    /// The server plays every seat itself with its built-in bot (--bot), and this command
    /// only watches, instead of playing the seats over the protocol as a client's bots.
    #[arg(long)]
    pub house_bots: bool,
    /// Pause between events, in milliseconds.
    #[arg(long, default_value_t = 150)]
    pub delay_ms: u64,
    /// Stop after this many deals (0: the whole match).
    #[arg(long, default_value_t = 1)]
    pub deals: u32,
    /// Colours and suit symbols (auto: on a terminal, without colours if NO_COLOR is set).
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    pub color: Color,
}

/// `canasta loadtest`.
#[derive(Debug, Args)]
pub struct LoadtestArgs {
    /// Load this server (a loopback address) instead of starting one in this process.
    #[arg(long)]
    pub server: Option<String>,
    /// The pid of the server given by --server, to read its memory from /proc.
    #[arg(long, requires = "server")]
    pub server_pid: Option<u32>,
    /// Start the in-process server with in-memory storage instead of a SQLite file.
    #[arg(long, conflicts_with = "server")]
    pub memory: bool,
    /// Games played at once (1 to 1024).
    #[arg(long, default_value_t = 64, value_parser = loadtest_games)]
    pub games: usize,
    /// How long to play: e.g. 10s, 500ms, 2m (at most an hour).
    #[arg(long, default_value = "10s", value_parser = loadtest_duration)]
    pub duration: String,
    /// HTTP/2 connections the seats share (each seat keeps its own watch stream and calls),
    /// the seats of a game on the same one; 0 gives every seat a connection of its own.
    #[arg(long, default_value_t = 4)]
    pub connections: usize,
    /// Submit each action with a SubmitAction call of its own, reading a WatchGame stream (as
    /// a bot without Play does), instead of playing each seat over one Play call.
    #[arg(long)]
    pub unary: bool,
    /// Stop creating games after this many in all.
    #[arg(long)]
    pub max_games_total: Option<u64>,
    /// The bot in every seat.
    #[arg(long, default_value = "greedy", value_parser = bot_name)]
    pub bots: String,
    /// The rules.
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The first seed of games and bots.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Measure memory instead: create this many idle games (waiting for players) on an
    /// in-process, in-memory server and report the resident memory they add.
    #[arg(long, conflicts_with_all = ["server", "memory"])]
    pub idle_games: Option<usize>,
    /// Measure matchmaking instead: register this many players (2 to 100000), let them all
    /// seek a game of the rules at once, and report the time each waited for its seat and the
    /// server's memory. The games found are cancelled, not played.
    #[arg(long, value_parser = seekers, conflicts_with_all = ["idle_games", "unary", "max_games_total"])]
    pub seekers: Option<usize>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `--color`: it wins over the environment (`NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE`), which
/// only `auto` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Color {
    /// Suit symbols when standard output is a terminal; colours there too unless NO_COLOR is
    /// set or CLICOLOR=0, and anywhere if CLICOLOR_FORCE is set.
    Auto,
    /// Colours and suit symbols, whatever the environment says.
    Always,
    /// Never: plain ASCII cards (KS, 10H, Jk), no escape codes.
    Never,
}

/// A built-in bot's name, with its settings (`search:50ms`).
fn bot_name(text: &str) -> Result<String, String> {
    bot::check_name(text.trim()).map(|()| text.trim().to_string())
}

/// The presets, as possible values.
fn presets() -> PossibleValuesParser {
    PossibleValuesParser::new(Preset::ALL.map(Preset::name))
}

/// A player's name: not empty (the server checks the rest and says what it refuses).
fn player_name(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("give a player's name: 1 to 40 visible characters".into());
    }
    Ok(text.trim().to_string())
}

/// How many recent games `canasta player` lists.
fn recent_games(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=100).contains(&n) => Ok(n),
        _ => Err(format!("{text:?} is out of range: list 1 to 100 games")),
    }
}

/// The most games a lobby bot plays at once.
pub const MAX_CONCURRENT: usize = 256;

/// How many games a lobby bot plays at once.
fn concurrent(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=MAX_CONCURRENT).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text:?} is out of range: play 1 to {MAX_CONCURRENT} games at once"
        )),
    }
}

/// The wait before house bots fill a seek's empty seats, in milliseconds: at most an hour.
fn fill_wait(text: &str) -> Result<u64, String> {
    let d = crate::loadtest::parse_duration(text)?;
    match u64::try_from(d.as_millis()) {
        Ok(ms) if ms <= 3_600_000 => Ok(ms),
        _ => Err(format!(
            "{text:?} is too long: wait at most an hour, e.g. 30s"
        )),
    }
}

/// How many players a matchmaking load test seats.
fn seekers(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if (2..=100_000).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text:?} is out of range: give 2 to 100000 seekers"
        )),
    }
}

/// A whole number of one or more.
fn positive<T: std::str::FromStr + PartialOrd + From<u8>>(text: &str) -> Result<T, String> {
    match text.trim().parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        _ => Err(format!("{text:?} is not a whole number of 1 or more")),
    }
}

/// A player count.
fn players(text: &str) -> Result<u8, String> {
    match text.trim().parse::<u8>() {
        Ok(n) if (2..=6).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text:?} is not a player count: Canasta is played by 2 to 6 players"
        )),
    }
}

/// A comma-separated list of built-in bots.
fn bot_list(text: &str) -> Result<String, String> {
    for name in text.split(',').map(str::trim) {
        bot::check_name(name).map_err(|e| format!("{e}; separate bots by commas"))?;
    }
    Ok(text.to_string())
}

/// A game id: not empty.
fn game_id(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("name a game: `canasta games` lists the server's games".into());
    }
    Ok(text.to_string())
}

/// A move budget in milliseconds, from a duration (`30s`, `1500ms`, `2m`).
fn move_budget(text: &str) -> Result<u64, String> {
    let d = crate::loadtest::parse_duration(text)?;
    match u64::try_from(d.as_millis()) {
        Ok(ms) if ms >= 1 => Ok(ms),
        _ => Err(format!(
            "{text:?} is not a move budget: give at least 1ms, e.g. 30s"
        )),
    }
}

/// A wait in milliseconds, from a duration (`2m`, `90s`): at least a millisecond.
fn wait_ms(text: &str) -> Result<u64, String> {
    let d = crate::loadtest::parse_duration(text)?;
    match u64::try_from(d.as_millis()) {
        Ok(ms) if ms >= 1 => Ok(ms),
        _ => Err(format!(
            "{text:?} is not a wait: give at least 1ms, e.g. 2m"
        )),
    }
}

/// A start score.
fn score(text: &str) -> Result<i32, String> {
    text.trim().parse::<i32>().map_err(|_| {
        format!("{text:?} is not a score: give one per side, comma separated, e.g. 1500,-200")
    })
}

/// Built-in bots by seat, `-` for a free seat.
fn seat_bot_list(text: &str) -> Result<String, String> {
    let seats: Vec<&str> = text.split(',').map(str::trim).collect();
    for name in &seats {
        if *name != "-"
            && let Err(e) = bot::check_name(name)
        {
            return Err(format!(
                "{e}; name a bot for each seat, or - to leave it free, separated by commas"
            ));
        }
    }
    if seats.iter().all(|s| *s == "-") {
        return Err(format!(
            "{text:?} seats no bot: name a bot from {} for some seats",
            BOT_NAMES.join(", ")
        ));
    }
    Ok(text.to_string())
}

/// A seat of `--house-bot`: SEAT=BOT, the bot a built-in one's name.
fn house_bot(text: &str) -> Result<(u32, String), String> {
    let Some((seat, name)) = text.split_once('=') else {
        return Err(format!(
            "{text:?} is not SEAT=BOT: give a seat and a bot, e.g. 1=greedy or 2=search:50ms"
        ));
    };
    let seat = seat
        .trim()
        .parse::<u32>()
        .map_err(|_| format!("{seat:?} is not a seat number (0 to players-1) in {text:?}"))?;
    let name = bot_name(name)?;
    Ok((seat, name))
}

/// The bots `--bots` of `canasta create` seats: (seat, bot) for each seat not left free.
pub fn seated_bots(list: &str) -> Vec<(u32, String)> {
    list.split(',')
        .map(str::trim)
        .enumerate()
        .filter(|(_, name)| *name != "-")
        .map(|(seat, name)| (seat as u32, name.to_string()))
        .collect()
}

/// A rule option override, NAME=VALUE, whose name exists and whose value reads.
fn rule_option(text: &str) -> Result<String, String> {
    let (name, value) = text.split_once('=').ok_or_else(|| {
        format!("{text:?} is not NAME=VALUE: write e.g. target_score=7500 (see docs/rules.md)")
    })?;
    RuleSpec::new(Preset::Official, 4)
        .with(name, value)
        .map_err(|e| e.to_string())?;
    Ok(text.to_string())
}

/// A duration as `loadtest` reads it.
/// How many games a load test plays at once.
fn loadtest_games(text: &str) -> Result<usize, String> {
    let max = crate::loadtest::MAX_GAMES;
    match text.trim().parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!(
            "{text:?} is out of range: run 1 to {max} games at once"
        )),
    }
}

/// How long a load test runs.
fn loadtest_duration(text: &str) -> Result<String, String> {
    let max = crate::loadtest::MAX_DURATION;
    match crate::loadtest::parse_duration(text)? {
        d if d > max => Err(format!(
            "{text:?} is too long: at most {} seconds",
            max.as_secs()
        )),
        _ => Ok(text.to_string()),
    }
}

impl RuleArgs {
    /// The rule spec, checked whole: the preset's player counts and the options together.
    pub fn spec(&self) -> Result<RuleSpec, String> {
        let preset: Preset = self.preset.parse().map_err(|e| format!("{e}"))?;
        let mut spec = RuleSpec::new(preset, self.players);
        for o in &self.options {
            let (k, v) = o
                .split_once('=')
                .ok_or_else(|| format!("--option {o:?} is not NAME=VALUE"))?;
            spec.options.set(k, v).map_err(|e| e.to_string())?;
        }
        Rules::new(&spec).map_err(|e| e.to_string())?;
        Ok(spec)
    }
}

/// The second stage: what clap cannot check value by value. `Err` is bad usage, with what
/// to do instead; the subcommand's name comes with it.
pub fn check(cli: &Cli) -> Result<(), (&'static str, String)> {
    let rules_of = |rules: &RuleArgs| {
        rules
            .spec()
            .and_then(|s| Rules::new(&s).map_err(|e| e.to_string()))
    };
    match &cli.command {
        Command::Play(a) => {
            // Joining a game takes its rules: only a new game's rules matter.
            if a.game.is_none() {
                rules_of(&a.rules).map_err(|e| ("play", e))?;
            }
        }
        Command::Match(a) => {
            let rules = rules_of(&a.rules).map_err(|e| ("match", e))?;
            seat_bots(&rules, &a.bots, a.seat_bots.as_deref()).map_err(|e| ("match", e))?;
        }
        Command::Create(a) => {
            let rules = rules_of(&a.rules).map_err(|e| ("create", e))?;
            let table = Table::new(&rules);
            let scores = &a.start_scores;
            if !scores.is_empty() && scores.len() != table.sides() as usize {
                return Err((
                    "create",
                    format!(
                        "--start-scores gives {} scores, but the game has {} sides: give one per side",
                        scores.len(),
                        table.sides()
                    ),
                ));
            }
            if let Some(list) = &a.bots {
                let named = list.split(',').count();
                if named > table.players() as usize {
                    return Err((
                        "create",
                        format!(
                            "--bots names {named} seats, but the game has {}: one entry per seat at most",
                            table.players()
                        ),
                    ));
                }
            }
            let client_bots: Vec<u32> = a
                .bots
                .as_deref()
                .map(|l| seated_bots(l).into_iter().map(|(s, _)| s).collect())
                .unwrap_or_default();
            for (i, (seat, _)) in a.house_bot.iter().enumerate() {
                let problem = if *seat >= table.players() as u32 {
                    format!(
                        "--house-bot {seat}=...: the game's seats are 0 to {}",
                        table.players() - 1
                    )
                } else if a.house_bot[..i].iter().any(|(s, _)| s == seat) {
                    format!("--house-bot names seat {seat} twice: one bot per seat")
                } else if client_bots.contains(seat) {
                    format!("seat {seat} is in both --bots and --house-bot: give it to one of them")
                } else {
                    continue;
                };
                return Err(("create", problem));
            }
        }
        Command::Demo(a) => {
            rules_of(&a.rules).map_err(|e| ("demo", e))?;
        }
        Command::Loadtest(a) => {
            rules_of(&a.rules).map_err(|e| ("loadtest", e))?;
        }
        Command::Bot(a) => {
            if a.seek {
                rules_of(&a.rules).map_err(|e| ("bot", e))?;
                if !a.unrated && !a.rules.options.is_empty() {
                    return Err((
                        "bot",
                        "a rated game plays its preset's own rules: drop --option, or seek unrated games with --unrated".into(),
                    ));
                }
            }
        }
        Command::Tournament(a) => {
            rules_of(&a.rules).map_err(|e| ("tournament", e))?;
            // A duplicate event is unrated anyway (its games are seeded).
            if !a.unrated && !a.duplicate && !a.rules.options.is_empty() {
                return Err((
                    "tournament",
                    "a rated game plays its preset's own rules: drop --option, or play unrated games with --unrated".into(),
                ));
            }
            if a.key_files.is_empty() {
                return Err((
                    "tournament",
                    "give the key file of at least one player (--key-file): a challenge is made by one of its players".into(),
                ));
            }
            if a.key_files.len() + a.others.len() < usize::from(a.rules.players) {
                return Err((
                    "tournament",
                    format!(
                        "{} players cannot fill a game of {}: give more with --key-file or --player",
                        a.key_files.len() + a.others.len(),
                        a.rules.players
                    ),
                ));
            }
        }
        Command::Register(_) | Command::Leaderboard(_) | Command::Player(_) => {}
        Command::Export(_)
        | Command::Cancel(_)
        | Command::Replay(_)
        | Command::Games(_)
        | Command::Watch(_) => {}
    }
    Ok(())
}

/// The bot of each seat from `--bots` (by side: one name per side, or one for all) or
/// `--seat-bots` (one per seat).
pub fn seat_bots(rules: &Rules, bots: &str, by_seat: Option<&str>) -> Result<Vec<String>, String> {
    let table = Table::new(rules);
    let split = |s: &str| {
        s.split(',')
            .map(|b| b.trim().to_string())
            .collect::<Vec<_>>()
    };
    let seats: Vec<String> = match by_seat {
        Some(list) => {
            let names = split(list);
            if names.len() != table.players() as usize {
                return Err(format!(
                    "--seat-bots names {} bots, but the game has {} seats: name one per seat",
                    names.len(),
                    table.players()
                ));
            }
            names
        }
        None => {
            let names = split(bots);
            if names.len() != 1 && names.len() != table.sides() as usize {
                return Err(format!(
                    "--bots names {} bots, but the game has {} sides: name one per side, or one for all",
                    names.len(),
                    table.sides()
                ));
            }
            table
                .seats()
                .map(|s| {
                    let side = table.side_of(s).index();
                    names[if names.len() == 1 { 0 } else { side }].clone()
                })
                .collect()
        }
    };
    for name in &seats {
        bot_list(name)?;
    }
    Ok(seats)
}
