//! The command line: subcommands and their flags.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

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
    Play(PlayArgs),
    /// Attach a built-in bot to a seat of a game on a server and play it to the end.
    Bot(BotArgs),
    /// Run headless matches between bots, in-process or against a server.
    Match(MatchArgs),
    /// Write a finished game's record from a server as JSON.
    Export(ExportArgs),
    /// Show a game record (from `export`) deal by deal, replayed by the engine.
    Replay(ReplayArgs),
    /// Start a server in this process and watch four bots play.
    Demo(DemoArgs),
    /// Load a server on this machine with concurrent games of bots and report throughput,
    /// latency, errors and memory; or measure the memory of idle games.
    Loadtest(LoadtestArgs),
}

/// Where the server is.
#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    /// The server's address.
    #[arg(long, env = "CANASTA_SERVER", default_value = "127.0.0.1:50051")]
    pub server: String,
}

/// A rule set on the command line.
#[derive(Debug, Clone, Args)]
pub struct RuleArgs {
    /// The preset: official, wiener, samba, swiss.
    #[arg(long, default_value = "official")]
    pub preset: String,
    /// Number of players.
    #[arg(long, default_value_t = 4)]
    pub players: u8,
    /// An option override, NAME=VALUE (repeatable); see docs/rules.md.
    #[arg(long = "option", value_name = "NAME=VALUE")]
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
    #[arg(long)]
    pub game: Option<String>,
    /// The seat to take (the lowest free one if unset).
    #[arg(long)]
    pub seat: Option<u32>,
    /// Your display name.
    #[arg(long, default_value = "you")]
    pub name: String,
    /// The rules of a new game.
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The seed of a new game.
    #[arg(long)]
    pub seed: Option<u64>,
    /// The built-in bot that takes the other seats of a new game.
    #[arg(long, default_value = "greedy")]
    pub bot: String,
    /// Stop after this many deals (0: play the match to its end).
    #[arg(long, default_value_t = 0)]
    pub deals: u32,
    /// Colours and suit symbols: auto, always, never.
    #[arg(long, default_value = "auto")]
    pub color: String,
}

/// `canasta bot`.
#[derive(Debug, Args)]
pub struct BotArgs {
    /// The server.
    #[command(flatten)]
    pub server: ServerArgs,
    /// The bot: greedy, random, safe.
    #[arg(long, default_value = "greedy")]
    pub bot: String,
    /// The game to play.
    #[arg(long)]
    pub game: String,
    /// The seat to take (the lowest free one if unset).
    #[arg(long, conflicts_with = "token")]
    pub seat: Option<u32>,
    /// Play a seat already joined, with its token.
    #[arg(long, env = "CANASTA_TOKEN")]
    pub token: Option<String>,
    /// The bot's display name.
    #[arg(long)]
    pub name: Option<String>,
    /// Seed of the bot's random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `canasta match`.
#[derive(Debug, Args)]
pub struct MatchArgs {
    /// Bots by side, comma separated (one name: every side); e.g. greedy,random.
    #[arg(long, default_value = "greedy,random")]
    pub bots: String,
    /// Bots by seat instead, comma separated, one per seat.
    #[arg(long, conflicts_with = "bots")]
    pub seat_bots: Option<String>,
    /// The rules.
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Number of matches (deals of cards; in duplicate mode each is played twice).
    #[arg(long, default_value_t = 100)]
    pub matches: u64,
    /// The first seed; match i uses seed + i.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Duplicate: play each seed twice, the bots' sides swapped, to cancel the luck of the cards.
    #[arg(long)]
    pub duplicate: bool,
    /// Threads for in-process matches (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Play against this server, each seat a separate client, instead of in-process.
    #[arg(long)]
    pub server: Option<String>,
    /// Matches in flight at once against a server.
    #[arg(long, default_value_t = 8)]
    pub parallel: usize,
    /// Stop a match after this many deals (it then counts as unfinished).
    #[arg(long, default_value_t = 200)]
    pub max_deals: u32,
    /// Write one JSON line per match to this file ("-" for standard output).
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
    /// The game.
    pub game: String,
    /// Write to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
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
    /// The rules.
    #[command(flatten)]
    pub rules: RuleArgs,
    /// The seed.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// The bot in every seat.
    #[arg(long, default_value = "greedy")]
    pub bot: String,
    /// Pause between events, in milliseconds.
    #[arg(long, default_value_t = 150)]
    pub delay_ms: u64,
    /// Stop after this many deals (0: the whole match).
    #[arg(long, default_value_t = 1)]
    pub deals: u32,
    /// Colours and suit symbols: auto, always, never.
    #[arg(long, default_value = "auto")]
    pub color: String,
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
    /// Games played at once.
    #[arg(long, default_value_t = 64)]
    pub games: usize,
    /// How long to play: e.g. 10s, 500ms, 2m.
    #[arg(long, default_value = "10s")]
    pub duration: String,
    /// HTTP/2 connections the seats share (each seat keeps its own watch stream and calls);
    /// 0 gives every seat a connection of its own.
    #[arg(long, default_value_t = 4)]
    pub connections: usize,
    /// Stop creating games after this many in all.
    #[arg(long)]
    pub max_games_total: Option<u64>,
    /// The bot in every seat: greedy, random, safe.
    #[arg(long, default_value = "greedy")]
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
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}
