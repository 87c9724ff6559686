//! `canasta`: the reference client. Play in a terminal, list, create and watch a server's
//! games, attach a built-in bot to a seat of a server's game, run headless matches between
//! bots, export and replay game records, or watch a demo.
//!
//! Exit codes: 0 success, 1 a failed operation, 2 bad usage.
//!
//! Errors are `anyhow` errors: each layer says what it was doing (`cannot read game.json`),
//! and `main` prints the chain after `canasta: `. The cargo feature `local` (on by default)
//! links the server crate for the commands that run one in this process (`play --local`,
//! `demo`, `loadtest`; see `local`); without it `canasta` is a client only.
//!
//! # Layout
//!
//! - `cli`: the commands and their flags (clap).
//! - `remote`: the connection to a server and a seat's play over it (Play and unary calls,
//!   reconnection, refusals by reason, rate limits waited out).
//! - `play`, `watch`: a person at a seat (and `leave`), a spectator.
//! - `lobby`: the server's games listed and created (`games`, `create`; `cancel` is here).
//! - `players`: the lobby's players and their keys (`register`), ratings (`leaderboard`,
//!   `player`).
//! - `seek`: a bot that plays as a registered player (`bot --seek`, `--accept-challenges`).
//! - `tournament`: a round robin among registered players, through challenges.
//! - `matches`: headless matches between bots, in the engine or on a server.
//! - `record`: export and replay of game records.
//! - `render`: text for terminals (cards, tables, events, colours).
//! - `loadtest`, `seekload`, `local`: the load tests (games; matchmaking) and the server run
//!   in this process.

mod cli;
mod loadtest;
mod lobby;
mod local;
mod matches;
mod play;
mod players;
mod record;
mod remote;
mod render;
mod seek;
mod seekload;
mod tournament;
mod watch;

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, anyhow};
use canasta_engine::Rules;
use canasta_engine::bot;
use clap::{CommandFactory, Parser};

use crate::cli::{BotArgs, CancelArgs, Cli, Command, ExportArgs, MatchArgs, ReplayArgs};
use crate::record::Record;

// The load generator and the in-process server allocate small messages on every call from
// several threads: mimalloc's thread-local heaps serve them with less work and contention than
// glibc's malloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    quiet_broken_pipe();
    // Bad usage exits with code 2, from clap (each value) or from the second stage (values
    // that must agree), before anything starts.
    let cli = Cli::parse();
    if let Err((subcommand, why)) = cli::check(&cli) {
        let mut command = Cli::command();
        command.build();
        let command = command
            .find_subcommand_mut(subcommand)
            .expect("check names a subcommand");
        command
            .error(clap::error::ErrorKind::ValueValidation, why)
            .exit();
    }
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("canasta: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = match cli.command {
        Command::Play(a) => runtime.block_on(play::play(a)),
        Command::Games(a) => runtime.block_on(lobby::games(a)),
        Command::Create(a) => runtime.block_on(lobby::create(a)),
        Command::Watch(a) => runtime.block_on(watch::watch(a)),
        Command::Bot(a) => runtime.block_on(bot_command(a)),
        Command::Match(a) => match_command(a, &runtime),
        Command::Export(a) => runtime.block_on(export(a)),
        Command::Cancel(a) => runtime.block_on(cancel(a)),
        Command::Replay(a) => replay(a),
        Command::Demo(a) => runtime.block_on(play::demo(a)),
        Command::Loadtest(a) => runtime.block_on(loadtest::loadtest(a)),
        Command::Register(a) => runtime.block_on(players::register(a)),
        Command::Leaderboard(a) => runtime.block_on(players::leaderboard(a)),
        Command::Player(a) => runtime.block_on(players::player(a)),
        Command::Tournament(a) => runtime.block_on(tournament::tournament(a)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The message and, after it, what it came from: `cannot read x.json: No such file
            // or directory (os error 2)`.
            eprintln!("canasta: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The runtime the commands run on: the server's (see `canasta_server::runtime`) when a server
/// may run in this process (`play --local`, `demo`, `loadtest`), tokio's multi-threaded one
/// in a build without one.
fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    #[cfg(feature = "local")]
    return canasta_server::runtime();
    #[cfg(not(feature = "local"))]
    return tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build();
}

/// A reader that stops reading (`canasta … | head`) ends the program quietly, as it would end
/// `cat`, instead of a panic report.
fn quiet_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let text = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if text.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

async fn bot_command(args: BotArgs) -> anyhow::Result<()> {
    let Some(game) = args.game.clone() else {
        return seek::run(args).await;
    };
    let addr = args.server.server.clone();
    let mut bot = bot::by_name(&args.bot, args.seed).with_context(|| {
        format!(
            "there is no bot {:?}: the bots are {}",
            args.bot,
            bot::BOT_NAMES.join(", ")
        )
    })?;
    let mut client = remote::connect(&addr).await?;
    let mut seat = match args.token {
        Some(token) => remote::SeatClient::from_token(&mut client, &addr, &game, token).await,
        None => {
            let name = args
                .name
                .clone()
                .unwrap_or_else(|| format!("{} bot", args.bot));
            remote::SeatClient::join(&mut client, &addr, &game, args.seat, &name).await
        }
    }?;
    seat.reconnect = std::time::Duration::from_secs(args.reconnect_secs);
    seat.unary = args.unary;
    if !args.json && !args.quiet {
        eprintln!(
            "{} plays seat {} of game {} {}",
            args.bot,
            seat.seat,
            seat.game_id,
            if seat.unary {
                "with a WatchGame stream and a SubmitAction call per action"
            } else {
                "over one Play call"
            }
        );
    }
    let result = remote::play_seat(&mut client, &mut seat, bot.as_mut(), |_| {}).await?;
    if args.json {
        let json = serde_json::json!({
            "game_id": seat.game_id,
            "seat": seat.seat,
            "winner_side": result.winner_side,
            "totals": result.totals,
        });
        println!("{json}");
    } else if !args.quiet {
        let who = match result.winner_side {
            Some(s) => format!("side {s} wins"),
            None => render::no_winner(&result).to_string(),
        };
        println!("the match is over: {who}; scores {:?}", result.totals);
    }
    Ok(())
}

fn match_command(args: MatchArgs, runtime: &tokio::runtime::Runtime) -> anyhow::Result<()> {
    let spec = play::spec(&args.rules)?;
    let rules = Rules::new(&spec)?;
    let plan = matches::Plan {
        seat_bots: cli::seat_bots(&rules, &args.bots, args.seat_bots.as_deref())
            .map_err(anyhow::Error::msg)?,
        spec,
        matches: args.matches,
        seed: args.seed,
        duplicate: args.duplicate,
        max_deals: args.max_deals,
    };
    // JSON lines on standard output stay JSON lines: the summary follows them as one compact
    // line (--json), or goes to standard error as text.
    let lines_to_stdout = args.jsonl.as_ref().is_some_and(|p| p.as_os_str() == "-");
    let mut lines = match &args.jsonl {
        None => matches::Lines::None,
        Some(_) if lines_to_stdout => matches::Lines::To(Box::new(std::io::stdout())),
        Some(p) => matches::Lines::To(Box::new(
            std::fs::File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
        )),
    };
    let bar = matches::progress(plan.jobs(&rules), args.quiet || args.json);
    let mut outcomes = Vec::new();
    let mut write_error = None;
    let mut sink = |o: matches::Outcome| {
        if let Err(e) = lines.write(&o) {
            write_error.get_or_insert(e.to_string());
        }
        if let Some(b) = &bar {
            b.inc(1);
        }
        outcomes.push(o);
    };
    let started = Instant::now();
    match &args.server {
        None => {
            let threads = args.threads.unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            });
            matches::run_in_process(&plan, threads, &mut sink)?;
        }
        Some(addr) => {
            runtime.block_on(matches::run_remote(addr, &plan, args.parallel, &mut sink))?
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    if let Some(e) = write_error {
        return Err(anyhow!("cannot write the JSON lines: {e}"));
    }
    let summary = matches::summarize(&outcomes, seconds);
    match (args.json, lines_to_stdout) {
        (true, true) => println!("{}", serde_json::to_string(&summary)?),
        (true, false) => println!("{}", serde_json::to_string_pretty(&summary)?),
        (false, true) => eprint!("{}", matches::summary_text(&summary)),
        (false, false) => print!("{}", matches::summary_text(&summary)),
    }
    Ok(())
}

async fn export(args: ExportArgs) -> anyhow::Result<()> {
    let mut client = remote::connect(&args.server.server).await?;
    let wire = client
        .export_game(canasta_proto::v1::ExportGameRequest {
            game_id: args.game.clone(),
        })
        .await
        .map_err(remote::RemoteError::from)?
        .into_inner()
        .record
        .context("the server answered no record")?;
    let record = Record::from_wire(&wire)?;
    let json = serde_json::to_string_pretty(&record)?;
    match &args.out {
        Some(p) => std::fs::write(p, json + "\n")
            .with_context(|| format!("cannot write {}", p.display()))?,
        None => println!("{json}"),
    }
    Ok(())
}

async fn cancel(args: CancelArgs) -> anyhow::Result<()> {
    let mut client = remote::connect(&args.server.server).await?;
    let request = canasta_proto::v1::CancelGameRequest {
        game_id: args.game.clone(),
    };
    client
        .cancel_game(remote::authed(request, &args.token))
        .await
        .map_err(remote::RemoteError::from)?;
    println!("game {} is cancelled", args.game);
    Ok(())
}

fn replay(args: ReplayArgs) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let record: Record = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a game record", args.file.display()))?;
    let game = record.replay()?;
    if !record.totals.is_empty() && record.totals != game.scores() {
        return Err(anyhow!(
            "the replay ends at {:?}, but the record says {:?}",
            game.scores(),
            record.totals
        ));
    }
    if let (Some(replayed), Some(recorded)) = (game.winner(), record.winner_side)
        && u32::from(replayed.0) != recorded
    {
        return Err(anyhow!(
            "the replay ends with side {} winning, but the record says side {recorded}",
            replayed.0
        ));
    }
    let report = record::ReplayReport::new(&record, &game);
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
        return Ok(());
    }
    println!(
        "game {} ({} {} players, seed {}), {} actions",
        record.game_id,
        record.rules.preset,
        record.rules.players,
        record.seed,
        record.actions.len()
    );
    for d in game.history() {
        let how = match d.end {
            canasta_engine::DealEnd::WentOut { seat, concealed } => format!(
                "seat {} went out{}",
                seat.0,
                if concealed { " concealed" } else { "" }
            ),
            canasta_engine::DealEnd::StockExhausted { seat } => {
                format!("the stock ran out (seat {} declined the pile)", seat.0)
            }
            canasta_engine::DealEnd::LastRedThree { seat } => {
                format!("seat {} drew the last card, a red three", seat.0)
            }
            // An end of a newer engine: as it is known, and the seat that ended the deal.
            end => format!("{end:?} (seat {})", end.seat().0),
        };
        println!("deal {}: {how}", d.deal + 1);
        for s in &d.sides {
            println!(
                "  side {}: {:+} (melds {}, canastas {}, red threes {}, going out {}, hands {}, penalties {}) total {}",
                s.side,
                s.total,
                s.melded_cards,
                s.canasta_bonus,
                s.red_three_bonus,
                s.going_out_bonus,
                s.cards_in_hand,
                s.penalties,
                s.cumulative
            );
        }
    }
    let scores = game.scores();
    match (
        report.end.as_deref(),
        report.winner_side,
        report.forfeited_side,
    ) {
        (Some("forfeit"), Some(w), Some(f)) => {
            println!("side {f} forfeited, side {w} wins: {scores:?}")
        }
        (Some("target") | None, Some(w), _) => println!("side {w} wins: {scores:?}"),
        (Some(end), Some(w), _) => println!("the match ended ({end}), side {w} wins: {scores:?}"),
        (Some(end), None, _) => println!("the match ended ({end}), no side wins: {scores:?}"),
        (None, None, _) => println!("unfinished: {scores:?}"),
    }
    Ok(())
}
