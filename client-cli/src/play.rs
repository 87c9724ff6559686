//! `canasta play` (a person at the terminal), `canasta demo` (bots, watched), and the helpers
//! they share: a server in this process, and bots that take seats over the public protocol.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, anyhow};
use canasta_engine::bot::{self, Bot, GreedyBot};
use canasta_engine::notation::{parse_action, to_notation};
use canasta_engine::table::Table;
use canasta_engine::{Action, RuleSpec, Rules};
use canasta_proto::convert::rules_to_wire;
use canasta_proto::v1;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;

use crate::cli::{DemoArgs, PlayArgs, RuleArgs};
use crate::local;
use crate::remote::{self, Client, RemoteError, SeatClient, authed, status_text};
use crate::render::{self, Style};

/// A rule spec from the command line.
pub fn spec(args: &RuleArgs) -> anyhow::Result<RuleSpec> {
    args.spec().map_err(anyhow::Error::msg)
}

/// Creates a game on the server.
pub async fn create(
    client: &mut Client,
    spec: &RuleSpec,
    seed: Option<u64>,
    house_bots: &[(u32, String)],
) -> anyhow::Result<v1::GameSummary> {
    client
        .create_game(v1::CreateGameRequest {
            rules: Some(rules_to_wire(spec)),
            seed,
            bots: house_bots
                .iter()
                .map(|(seat, bot)| v1::SeatBot {
                    seat: *seat,
                    bot: bot.clone(),
                })
                .collect(),
            ..Default::default()
        })
        .await
        .map_err(RemoteError::from)?
        .into_inner()
        .game
        .context("the server answered no game")
}

/// Built-in bots playing seats over the protocol, each in a task of its own; stopped when
/// dropped (their seats stay taken: [`Bots::leave`] gives them up). A bot that fails says why
/// on a channel, so that whoever waits for the game does not wait forever.
pub struct Bots {
    tasks: tokio::task::JoinSet<()>,
    failed_tx: mpsc::UnboundedSender<String>,
    failed: mpsc::UnboundedReceiver<String>,
    ended_tx: mpsc::UnboundedSender<v1::MatchResult>,
    ended: mpsc::UnboundedReceiver<v1::MatchResult>,
    /// The seats the bots took, with their tokens, as they take them.
    seated: Arc<Mutex<Vec<SeatClient>>>,
    /// Set to stop the bots: each stops at once, but for a join under way, which it finishes
    /// so that the seat it took is known and can be given up.
    stop: tokio::sync::watch::Sender<bool>,
}

/// How long [`Bots::leave`] waits for joins under way before it stops the bots regardless.
const JOIN_GRACE: Duration = Duration::from_secs(10);

impl Bots {
    /// No bots yet.
    pub fn new() -> Bots {
        let (failed_tx, failed) = mpsc::unbounded_channel();
        let (ended_tx, ended) = mpsc::unbounded_channel();
        Bots {
            tasks: tokio::task::JoinSet::new(),
            failed_tx,
            failed,
            ended_tx,
            ended,
            seated: Arc::default(),
            stop: tokio::sync::watch::channel(false).0,
        }
    }

    /// Puts the built-in bot `name` in `seat` of a game.
    pub fn spawn(
        &mut self,
        addr: String,
        game_id: String,
        seat: u32,
        name: String,
        seed: u64,
    ) -> anyhow::Result<()> {
        let mut bot = bot::by_name(&name, seed).with_context(|| {
            format!(
                "there is no bot {name:?}: the bots are {}",
                bot::BOT_NAMES.join(", ")
            )
        })?;
        let failed = self.failed_tx.clone();
        let ended = self.ended_tx.clone();
        let seated = self.seated.clone();
        let mut stop = self.stop.subscribe();
        self.tasks.spawn(async move {
            let run = async {
                let mut client = tokio::select! {
                    c = remote::connect(&addr) => c?,
                    _ = stop.wait_for(|&s| s) => return Ok(None),
                };
                // Not cut short by a stop: a JoinGame the server carried out must be known
                // here, or its seat would stay taken by a bot that is gone.
                let mut s = SeatClient::join(
                    &mut client,
                    &addr,
                    &game_id,
                    Some(seat),
                    &format!("{name} bot"),
                )
                .await?;
                seated.lock().expect("not poisoned").push(s.clone());
                tokio::select! {
                    r = remote::play_seat(&mut client, &mut s, bot.as_mut(), |_| {}) => r.map(Some),
                    _ = stop.wait_for(|&s| s) => Ok(None),
                }
            };
            match run.await {
                Ok(Some(result)) => {
                    let _ = ended.send(result);
                }
                Ok(None) => {}
                Err(e) => {
                    let _ = failed.send(format!("the {name} bot in seat {seat} stopped: {e}"));
                }
            }
        });
        Ok(())
    }

    /// How many bots were started.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    /// Waits for a bot to fail, and says why.
    pub async fn failure(&mut self) -> String {
        match self.failed.recv().await {
            Some(why) => why,
            // Never: `self` holds a sender.
            None => std::future::pending().await,
        }
    }

    /// Waits until every bot has played to the end of the match: the match's result, or why
    /// a bot stopped.
    pub async fn finish(&mut self) -> anyhow::Result<v1::MatchResult> {
        let mut result = None;
        for _ in 0..self.tasks.len() {
            tokio::select! {
                r = self.ended.recv() => result = r,
                why = self.failed.recv() => {
                    return Err(anyhow!(why.unwrap_or_else(|| "a bot stopped".to_string())));
                }
            }
        }
        result.context("no bot played")
    }

    /// Stops the bots and gives up the seats they took, so that the game does not wait for
    /// bots that are gone: those seats can be joined again. The seats given up, in order.
    pub async fn leave(mut self) -> Vec<u32> {
        // Joins under way finish first (within a grace), so that every seat a bot took is
        // in `seated`; a bot that never reaches the server is stopped regardless.
        self.stop.send_replace(true);
        let joined = async { while self.tasks.join_next().await.is_some() {} };
        if tokio::time::timeout(JOIN_GRACE, joined).await.is_err() {
            self.tasks.abort_all();
            while self.tasks.join_next().await.is_some() {}
        }
        let seated = std::mem::take(&mut *self.seated.lock().expect("not poisoned"));
        let mut left = Vec::new();
        for s in seated {
            let Ok(mut client) = remote::connect(&s.addr).await else {
                continue;
            };
            let request = v1::LeaveGameRequest {
                game_id: s.game_id.clone(),
            };
            if remote::limited!(client.leave_game(authed(request.clone(), &s.token)).await).is_ok()
            {
                left.push(s.seat);
            }
        }
        left.sort_unstable();
        left
    }
}

/// Lines of standard input, read on a thread of their own.
fn stdin_lines() -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut line = String::new();
        loop {
            line.clear();
            match stdin.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.send(line.trim().to_string()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    rx
}

const HELP: &str = "\
commands: an action, or help, hint, auto, table, quit (keep your seat: its token takes you back),
          leave (give your seat up)
actions:  draw | take KS KH | take 2: | take KS KH; AS AH Jk | meld KS KH KD | meld 0: KS; 1: QS
          discard 9C | out 0: KS / 9C | ask | yes | no | decline
          (cards: KS 10H Jk, or with symbols K♠; `N:` adds to your side's meld N)";

/// The seat token `play` comes back with, if any: `--token`, the `--token-file` when it
/// exists, or `CANASTA_TOKEN` when a game is named with no seat. With where it came from.
fn seat_token(args: &PlayArgs) -> anyhow::Result<Option<(String, String)>> {
    if let Some(t) = &args.token {
        return Ok(Some((t.trim().to_string(), "--token".into())));
    }
    if let Some(path) = &args.token_file
        && path.exists()
    {
        if args.game.is_none() {
            return Err(anyhow!(
                "{} holds the token of a seat taken earlier: add --game GAME to come back to that seat, or remove the file to take a new seat",
                path.display()
            ));
        }
        let token = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the token in {}", path.display()))?;
        let token = token.trim();
        if token.is_empty() {
            return Err(anyhow!(
                "{} holds no token: remove it to take a new seat",
                path.display()
            ));
        }
        return Ok(Some((token.to_string(), path.display().to_string())));
    }
    if args.game.is_some()
        && args.seat.is_none()
        && args.token_file.is_none()
        && let Ok(t) = std::env::var("CANASTA_TOKEN")
        && !t.trim().is_empty()
    {
        return Ok(Some((t.trim().to_string(), "CANASTA_TOKEN".into())));
    }
    Ok(None)
}

/// Writes a seat's token to a new file that only its owner may read.
fn keep_token(path: &Path, token: &str) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(path)
        .with_context(|| format!("cannot keep the token in {}", path.display()))?;
    writeln!(file, "{token}")
        .with_context(|| format!("cannot keep the token in {}", path.display()))
}

/// A word as a POSIX shell reads it, quoted if it needs to be.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/@=+,".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The command that takes a player back to his seat: the server (unless the default), the
/// game, the token, and the bot to seat again in the seats the bots gave up.
fn come_back_command(addr: &str, me: &SeatClient, bot: Option<&str>) -> String {
    let mut words = vec!["canasta".to_string(), "play".into()];
    if addr != crate::cli::DEFAULT_SERVER {
        words.extend(["--server".into(), shell_word(addr)]);
    }
    words.extend(["--game".into(), shell_word(&me.game_id)]);
    words.extend(["--token".into(), shell_word(&me.token)]);
    if let Some(b) = bot {
        words.extend(["--bot".into(), b.to_string()]);
    }
    words.join(" ")
}

/// Seats as a person reads them: "seat 1", "seats 1, 2 and 3".
pub fn seats_text(seats: &[u32]) -> String {
    let names: Vec<String> = seats.iter().map(u32::to_string).collect();
    match names.as_slice() {
        [] => "no seat".into(),
        [one] => format!("seat {one}"),
        [rest @ .., last] => format!("seats {} and {last}", rest.join(", ")),
    }
}

/// What the game does with a seat whose player is away, under its time control.
fn away_text(time_control: Option<&v1::TimeControl>) -> String {
    match time_control.filter(|t| t.move_budget_ms > 0) {
        None => "the game waits for your seat (it has no time control: nobody moves for you; the server abandons a match in which no seat acts, joins or leaves for its idle time, a day unless its operator set another)"
            .into(),
        Some(t) => {
            let budget = format!("{:.1} s", t.move_budget_ms as f64 / 1000.0);
            if t.policy == v1::TimeoutPolicy::Forfeit as i32 {
                format!(
                    "under the game's time control your side forfeits the match if your {budget} for a move run out while you are away"
                )
            } else {
                format!(
                    "under the game's time control the server's fallback bot moves for your seat whenever your {budget} for a move run out"
                )
            }
        }
    }
}

/// How a person stopped playing before the match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// `quit`, the end of standard input, Ctrl-C, or `--deals`: the seat is kept.
    Quit,
    /// `leave`: the seat is given up.
    Leave,
}

/// Ends a session before the match's end: the bots this client seated give up their seats
/// (they stop with the client, and the game must not wait for them for ever), the person's seat
/// is kept (`Stop::Quit`) or given up (`Stop::Leave`), and the message says what happens to the
/// game and how to come back.
async fn stop_playing(
    client: &mut Client,
    me: &SeatClient,
    bots: Bots,
    bot: &str,
    addr: &str,
    local: bool,
    stop: Stop,
) -> anyhow::Result<()> {
    if local {
        drop(bots);
        println!("goodbye: the server in this process stops, and the game with it");
        return Ok(());
    }
    let seated_bots = bots.len();
    let left = bots.leave().await;
    let game = &me.game_id;
    // Bots stop with this client: the game must not wait for them for ever.
    let bots_line = (seated_bots > 0).then(|| {
        format!(
            "the {bot} bots stop with this client: they gave up {}, free for anyone to take; the game waits until {} taken again",
            seats_text(&left),
            if left.len() == 1 { "it is" } else { "they are" }
        )
    });
    match stop {
        Stop::Leave => {
            client
                .leave_game(authed(
                    v1::LeaveGameRequest {
                        game_id: game.clone(),
                    },
                    &me.token,
                ))
                .await
                .map_err(RemoteError::from)
                .context("cannot give up your seat")?;
            println!(
                "you left seat {} of game {game}: the seat is free for anyone to take (`canasta play --game {game} --seat {}`), and your token no longer plays it",
                me.seat, me.seat
            );
            if let Some(line) = bots_line {
                println!("{line}");
            }
            let summary = client
                .get_game(v1::GetGameRequest {
                    game_id: game.clone(),
                })
                .await
                .ok()
                .and_then(|r| r.into_inner().game);
            if summary.is_some_and(|g| {
                g.status == v1::GameStatus::Playing as i32 && g.seats.iter().all(|s| !s.occupied)
            }) {
                println!(
                    "every seat is empty now: unless one is taken again, the server abandons the match after its time for empty games (ten minutes unless its operator set another)"
                );
            }
        }
        Stop::Quit => {
            let summary = client
                .get_game(v1::GetGameRequest {
                    game_id: game.clone(),
                })
                .await
                .ok()
                .and_then(|r| r.into_inner().game);
            let away = away_text(summary.as_ref().and_then(|g| g.time_control.as_ref()));
            println!("you keep seat {} of game {game}: {away}", me.seat);
            if let Some(line) = bots_line {
                println!("{line}");
            }
            println!(
                "come back with: {}",
                come_back_command(addr, me, (seated_bots > 0).then_some(bot))
            );
            println!(
                "(the token is a secret: whoever holds it plays your seat{}; type `leave` instead of `quit` to give the seat up)",
                if seated_bots > 0 {
                    ", and --bot seats the bots again"
                } else {
                    ""
                }
            );
        }
    }
    Ok(())
}

/// `canasta play`.
pub async fn play(args: PlayArgs) -> anyhow::Result<()> {
    let style = Style::from_flag(args.color);
    let local = if args.local {
        Some(local::for_play().await?)
    } else {
        None
    };
    let addr = local
        .as_ref()
        .map_or(args.server.server.clone(), |l| l.addr().to_string());
    let token = seat_token(&args)?;
    let mut client = remote::connect(&addr).await?;
    let bot_name = args.bot.clone().unwrap_or_else(|| "greedy".to_string());
    let (game_id, created) = match &args.game {
        Some(id) => (id.clone(), false),
        None => {
            let spec = spec(&args.rules)?;
            // The player takes the seat asked for (seat 0 unless set); with --house-bots the
            // server's bots hold the others from the creation.
            let mine = args.seat.unwrap_or(0);
            let house: Vec<(u32, String)> = match args.house_bots {
                true => (0..u32::from(spec.players))
                    .filter(|&s| s != mine)
                    .map(|s| (s, bot_name.clone()))
                    .collect(),
                false => Vec::new(),
            };
            let game = create(&mut client, &spec, args.seed, &house).await?;
            println!(
                "created game {} ({} players, {})",
                game.game_id, spec.players, spec.preset
            );
            (game.game_id, true)
        }
    };
    let resumed = token.is_some();
    let mut me = match token {
        Some((token, from)) => {
            let me = SeatClient::from_token(&mut client, &addr, &game_id, token)
                .await
                .with_context(|| {
                    format!("cannot come back to game {game_id} with the token of {from}")
                })?;
            println!("you are back at seat {} of game {game_id}", me.seat);
            me
        }
        None => {
            let my_seat = args.seat.or(created.then_some(0));
            let me = SeatClient::join(&mut client, &addr, &game_id, my_seat, &args.name).await?;
            println!("you are seat {} of game {game_id}", me.seat);
            if local.is_none() {
                println!(
                    "your seat's token is {} — a secret: whoever holds it plays your seat",
                    me.token
                );
                println!(
                    "come back to this seat with: {}",
                    come_back_command(&addr, &me, None)
                );
                if let Some(path) = &args.token_file {
                    keep_token(path, &me.token)?;
                    println!("the token is kept in {}", path.display());
                }
            }
            me
        }
    };
    let mut last = 0u64;
    if resumed {
        // The table as it is now, and the events from here on (the game so far is not told
        // again; the bots seated below join after it). On the seat's turn the prompt shows
        // the table.
        let (view, seq, status) = me.view(&mut client).await?;
        last = seq;
        match status {
            v1::GameStatus::Finished => {
                let scores = client
                    .get_scores(v1::GetScoresRequest {
                        game_id: game_id.clone(),
                    })
                    .await
                    .map_err(RemoteError::from)?
                    .into_inner();
                let ended = v1::GameEvent {
                    seq,
                    kind: Some(v1::game_event::Kind::MatchEnded(v1::MatchEnded {
                        result: scores.result,
                    })),
                };
                if let Some(line) = render::event(&style, &ended, &me.names) {
                    println!("{line}");
                }
                return Ok(());
            }
            v1::GameStatus::Waiting => println!("the game waits for players"),
            _ if view.legal().is_none() => print!("{}", render::table(&style, &view, &me.names)),
            _ => {}
        }
    }
    let mut bots = Bots::new();
    // A new game's other seats, or the seats still free of a game joined with --bot.
    let bot_seats: Vec<u32> = if created && args.house_bots {
        println!("the server's {bot_name} bots play the other seats");
        Vec::new()
    } else if created {
        (0..me.rules.players as u32)
            .filter(|&s| s != me.seat)
            .collect()
    } else {
        let summary = client
            .get_game(v1::GetGameRequest {
                game_id: game_id.clone(),
            })
            .await
            .map_err(RemoteError::from)?
            .into_inner()
            .game
            .unwrap_or_default();
        let free: Vec<u32> = summary
            .seats
            .iter()
            .filter(|s| !s.occupied && s.seat != me.seat)
            .map(|s| s.seat)
            .collect();
        if args.bot.is_none() && !free.is_empty() {
            let (is, it) = if free.len() == 1 {
                ("is", "it is")
            } else {
                ("are", "they are")
            };
            println!(
                "{} {is} free: the game waits until {it} taken (--bot NAME seats built-in bots in the free seats)",
                seats_text(&free)
            );
            Vec::new()
        } else {
            free
        }
    };
    for &s in &bot_seats {
        bots.spawn(
            addr.clone(),
            game_id.clone(),
            s,
            bot_name.clone(),
            s as u64 + 1,
        )?;
    }
    if !created && !bot_seats.is_empty() {
        println!("the {bot_name} bot takes {}", seats_text(&bot_seats));
    }
    let interrupted = Arc::new(tokio::sync::Notify::new());
    {
        let interrupted = interrupted.clone();
        tokio::spawn(async move {
            if tokio::signal::ctrl_c().await.is_ok() {
                interrupted.notify_one();
            }
        });
    }
    let mut input = stdin_lines();
    let mut deals = 0u32;
    let mut names = me.names.clone();
    let teller = render::Me {
        seat: me.seat,
        side: Table::new(&me.rules)
            .side_of(canasta_engine::Seat(me.seat as u8))
            .0 as u32,
    };
    // The whole table is shown when the player is first asked to act (his turn, or his
    // partner's question), and on request; the other prompts of a turn show his hand only, so
    // that the other players' moves, told line by line, stay on the screen.
    let mut table_due = true;
    let stop = 'session: loop {
        let mut stream = client
            .watch_game(authed(
                v1::WatchGameRequest {
                    game_id: game_id.clone(),
                    after_seq: last,
                    include_actions: false,
                    include_view: false,
                },
                &me.token,
            ))
            .await
            .map_err(RemoteError::from)?
            .into_inner();
        loop {
            let message = tokio::select! {
                m = stream.next() => m,
                why = bots.failure() => return Err(anyhow!(why)),
                _ = interrupted.notified() => {
                    println!();
                    break 'session Stop::Quit;
                }
            };
            let Some(Ok(message)) = message else { break };
            use v1::watch_game_response::Kind;
            match message.kind {
                Some(Kind::Event(e)) => {
                    if e.seq <= last {
                        continue;
                    }
                    last = e.seq;
                    if let Some(v1::game_event::Kind::SeatJoined(j)) = &e.kind {
                        if names.len() <= j.seat as usize {
                            names.resize(j.seat as usize + 1, String::new());
                        }
                        names[j.seat as usize] = j.display_name.clone();
                    }
                    if let Some(line) = render::event_for(&style, &e, &names, Some(teller)) {
                        println!("{line}");
                    }
                    match &e.kind {
                        Some(v1::game_event::Kind::TurnStarted(t)) if t.seat == me.seat => {
                            table_due = true;
                        }
                        Some(v1::game_event::Kind::AskedPartner(a)) if a.partner == me.seat => {
                            table_due = true;
                        }
                        _ => {}
                    }
                    match e.kind {
                        Some(v1::game_event::Kind::MatchEnded(_)) => return Ok(()),
                        Some(v1::game_event::Kind::DealEnded(_)) => {
                            deals += 1;
                            if args.deals > 0 && deals >= args.deals {
                                println!("stopping after {deals} deal(s), as asked");
                                break 'session Stop::Quit;
                            }
                        }
                        _ => {}
                    }
                }
                Some(Kind::Prompt(p)) if p.seq == last && p.seat == me.seat => {
                    me.names = names.clone();
                    let show_table = std::mem::take(&mut table_due);
                    match turn(
                        &mut client,
                        &mut me,
                        &style,
                        show_table,
                        &mut input,
                        &interrupted,
                    )
                    .await?
                    {
                        Turn::Acted => {}
                        // The table is shown again with the next prompt: the person decided
                        // on a table that changed.
                        Turn::MovedOn => table_due = true,
                        Turn::Stop(stop) => break 'session stop,
                    }
                }
                Some(Kind::Lagged(_)) => break,
                _ => {}
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        client = remote::connect(&addr).await?;
    };
    stop_playing(
        &mut client,
        &me,
        bots,
        &bot_name,
        &addr,
        local.is_some(),
        stop,
    )
    .await
}

/// What became of a turn.
enum Turn {
    /// An action was accepted.
    Acted,
    /// The game moved on before the person acted: the stream says what happened and prompts
    /// again if the seat still acts.
    MovedOn,
    /// The person stops playing.
    Stop(Stop),
}

/// Asks the person for commands until one action is accepted, or he stops playing: shows the
/// whole table first if `show_table`, else his hand.
async fn turn(
    client: &mut Client,
    me: &mut SeatClient,
    style: &Style,
    show_table: bool,
    input: &mut mpsc::UnboundedReceiver<String>,
    interrupted: &tokio::sync::Notify,
) -> anyhow::Result<Turn> {
    let (view, seq, _) = me.view(client).await?;
    let Some(legal) = view.legal() else {
        return Ok(Turn::MovedOn);
    };
    if show_table {
        print!("{}", render::table(style, &view, &me.names));
    } else if let Some(hand) = render::hand_line(style, &view) {
        println!("{hand}");
    }
    let told_yes;
    let what = match legal.phase() {
        canasta_engine::Phase::Draw => "draw or take the pile",
        canasta_engine::Phase::Play if view.turn.ask == canasta_engine::Ask::Yes => {
            told_yes = format!(
                "your partner said yes: go out, or your side loses {} points",
                view.rules.ask_partner_penalty
            );
            &told_yes
        }
        canasta_engine::Phase::Play => "meld, discard or go out",
        canasta_engine::Phase::Answer => "your partner asks to go out: yes or no",
        canasta_engine::Phase::Over => "the match is over",
        // A phase of a newer engine: the list of choices says what it allows.
        _ => "act",
    };
    println!(
        "{}",
        style.bold(&format!("your turn: {what} (help lists your choices)"))
    );
    loop {
        print!("> ");
        let _ = std::io::stdout().flush();
        let line = tokio::select! {
            line = input.recv() => line,
            _ = interrupted.notified() => {
                println!();
                None
            }
        };
        let Some(line) = line else {
            return Ok(Turn::Stop(Stop::Quit));
        };
        let action = match line.as_str() {
            "" => continue,
            "quit" | "exit" => return Ok(Turn::Stop(Stop::Quit)),
            "leave" => return Ok(Turn::Stop(Stop::Leave)),
            "help" | "?" => {
                println!("{HELP}");
                let s = legal.summary();
                println!(
                    "now: draw {} · take the pile {} · go out {} · ask partner {}",
                    yes(s.can_draw),
                    yes(!s.pile_takes.is_empty()),
                    yes(s.can_go_out),
                    yes(s.can_ask_partner)
                );
                let actions = legal.to_vec();
                println!("legal actions ({}):", actions.len());
                for a in actions.iter().take(40) {
                    println!("  {}", to_notation(a));
                }
                if actions.len() > 40 {
                    println!("  … and {} more", actions.len() - 40);
                }
                continue;
            }
            "table" | "view" => {
                print!("{}", render::table(style, &view, &me.names));
                continue;
            }
            "hint" => {
                println!(
                    "hint: {}",
                    to_notation(&GreedyBot::new().choose(&view, &legal))
                );
                continue;
            }
            "auto" => GreedyBot::new().choose(&view, &legal),
            text => match parse_action(text) {
                Ok(a) => a,
                Err(e) => {
                    println!("{e} (type help)");
                    continue;
                }
            },
        };
        if let Err(e) = legal.check(&action) {
            println!("{e}");
            continue;
        }
        // Asking is legal whenever the turn has not melded yet, going out or not: told yes,
        // a player who cannot go out costs his side the penalty.
        if action == Action::AskPartner && !legal.can_go_out() {
            println!("{}", ask_warning(view.rules.ask_partner_penalty));
            print!("ask anyway? (yes/no) ");
            let _ = std::io::stdout().flush();
            match input.recv().await.as_deref().map(str::trim) {
                Some("yes" | "y") => {}
                Some(_) => {
                    println!("not asked");
                    continue;
                }
                None => return Ok(Turn::Stop(Stop::Quit)),
            }
        }
        match me.submit(client, seq, &action).await {
            Ok(_) => return Ok(Turn::Acted),
            // Something happened while the person decided (a player joined, a time-out, the
            // end): the stream tells it, and prompts again if the seat still acts. Asking again
            // here would submit at a seq that is gone for ever.
            Err(s) if remote::moved_on(&s) => {
                println!("{}", status_text(&s));
                return Ok(Turn::MovedOn);
            }
            Err(s) => println!("{}", status_text(&s)),
        }
    }
}

/// What asking the partner risks when the player cannot go out.
fn ask_warning(penalty: i32) -> String {
    format!(
        "you cannot go out now: if your partner answers yes, you must go out, and your side \
         loses {penalty} points when you do not (type `help` to see what is legal)"
    )
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// `canasta demo`.
pub async fn demo(args: DemoArgs) -> anyhow::Result<()> {
    let style = Style::from_flag(args.color);
    let spec = spec(&args.rules)?;
    // The server outlives the bots and the stream (dropped last, it stops then).
    let (_local, addr, where_) = match &args.server {
        Some(addr) => (None, addr.clone(), format!("on the server at {addr}")),
        None => {
            let server = local::for_play().await?;
            let addr = server.addr().to_string();
            let where_ = format!("on a server in this process at {addr}");
            (Some(server), addr, where_)
        }
    };
    let channel = remote::channel(&addr).await?;
    let mut client = v1::canasta_service_client::CanastaServiceClient::new(channel.clone());
    let house: Vec<(u32, String)> = match args.house_bots {
        true => (0..u32::from(spec.players))
            .map(|s| (s, args.bot.clone()))
            .collect(),
        false => Vec::new(),
    };
    let game = create(&mut client, &spec, Some(args.seed), &house).await?;
    let whose = if args.house_bots {
        "the server's"
    } else {
        "this command's"
    };
    println!(
        "{} {} bots ({whose}) play game {} ({}, {} players) {where_}",
        spec.players, args.bot, game.game_id, spec.preset, spec.players
    );
    if let Some(url) = remote::page_url(&channel, &addr, &game.game_id).await {
        println!("watch it in a browser: {url}");
    }
    let watch = |after_seq: u64| v1::WatchGameRequest {
        game_id: game.game_id.clone(),
        after_seq,
        include_actions: false,
        include_view: false,
    };
    let mut stream = client
        .watch_game(watch(0))
        .await
        .map_err(RemoteError::from)?
        .into_inner();
    // The seq of the last event shown: the server's bots play faster than this shows, and a
    // stream that falls too far behind is resumed from here.
    let mut last = 0;
    let mut bots = Bots::new();
    for s in (0..spec.players as u32).filter(|_| !args.house_bots) {
        bots.spawn(
            addr.clone(),
            game.game_id.clone(),
            s,
            args.bot.clone(),
            s as u64 + args.seed,
        )?;
    }
    let mut names = vec![String::new(); spec.players as usize];
    let mut deals = 0;
    // The totals as the last deal shown left them: the bots play on while this prints, so the
    // server's scores would be ahead of what was shown.
    let mut totals: Vec<i32> = vec![0; Table::new(&Rules::new(&spec)?).sides() as usize];
    loop {
        let message = tokio::select! {
            m = stream.next() => m,
            why = bots.failure() => return Err(anyhow!(why)),
        };
        let message = match message {
            Some(Ok(m)) => m,
            Some(Err(s)) => return Err(anyhow!("the game's stream failed: {}", status_text(&s))),
            None => return Err(anyhow!("the server ended the game's stream early")),
        };
        let e = match message.kind {
            Some(v1::watch_game_response::Kind::Event(e)) => e,
            Some(v1::watch_game_response::Kind::Lagged(_)) => {
                stream = client
                    .watch_game(watch(last))
                    .await
                    .map_err(RemoteError::from)?
                    .into_inner();
                continue;
            }
            _ => continue,
        };
        last = e.seq;
        if let Some(v1::game_event::Kind::SeatJoined(j)) = &e.kind
            && let Some(n) = names.get_mut(j.seat as usize)
        {
            *n = j.display_name.clone();
        }
        if let Some(line) = render::event(&style, &e, &names) {
            println!("{line}");
            tokio::time::sleep(Duration::from_millis(args.delay_ms)).await;
        }
        match e.kind {
            Some(v1::game_event::Kind::DealEnded(d)) => {
                deals += 1;
                if let Some(score) = d.score {
                    totals = score.sides.iter().map(|s| s.cumulative).collect();
                }
                if args.deals > 0 && deals >= args.deals {
                    break;
                }
            }
            Some(v1::game_event::Kind::MatchEnded(m)) => {
                if let Some(result) = m.result {
                    totals = result.totals;
                }
                break;
            }
            _ => {}
        }
    }
    drop(bots);
    println!(
        "{deals} deal(s) played; scores: {}",
        totals
            .iter()
            .enumerate()
            .map(|(i, t)| format!("side {i} {t}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_way_back_is_a_command_a_shell_reads_as_written() {
        let summary = v1::GameSummary {
            game_id: "g1".into(),
            rules: Some(rules_to_wire(&RuleSpec::new(
                canasta_engine::Preset::Official,
                2,
            ))),
            ..Default::default()
        };
        let me = SeatClient::with_token("h:1", &summary, 0, "ab12".into()).unwrap();
        assert_eq!(
            come_back_command(crate::cli::DEFAULT_SERVER, &me, None),
            "canasta play --game g1 --token ab12"
        );
        assert_eq!(
            come_back_command("https://example.org:443", &me, Some("greedy")),
            "canasta play --server https://example.org:443 --game g1 --token ab12 --bot greedy"
        );
        assert_eq!(shell_word("it's here"), r"'it'\''s here'");
        assert_eq!(shell_word(""), "''");
    }

    #[test]
    fn seats_and_time_controls_read_as_sentences() {
        assert_eq!(seats_text(&[1]), "seat 1");
        assert_eq!(seats_text(&[1, 2, 3]), "seats 1, 2 and 3");
        assert!(away_text(None).contains("no time control"));
        let forfeit = v1::TimeControl {
            move_budget_ms: 30_000,
            policy: v1::TimeoutPolicy::Forfeit as i32,
        };
        assert!(away_text(Some(&forfeit)).contains("forfeits the match"));
        assert!(away_text(Some(&forfeit)).contains("30.0 s"));
        let fallback = v1::TimeControl {
            policy: v1::TimeoutPolicy::FallbackMove as i32,
            ..forfeit
        };
        assert!(away_text(Some(&fallback)).contains("fallback bot moves for your seat"));
    }

    // Bots that leave give up every seat they took, whenever the person stops: also when a
    // bot's JoinGame is on its way to the server (a join the server carried out but whose
    // answer the bot never read would leave the seat taken by a bot that is gone, and the
    // game waiting for it). The person stops after a varying number of round trips to the
    // server and of the runtime's turns, so that the stop falls before, during and after the
    // joins.
    #[cfg(feature = "local")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn bots_that_leave_give_up_every_seat_they_took() {
        let server = crate::local::for_play().await.unwrap();
        let addr = server.addr().to_string();
        let mut client = remote::connect(&addr).await.unwrap();
        let spec = RuleSpec::new(canasta_engine::Preset::Official, 4);
        let mut took = 0;
        for turns in 0..60 {
            let game = create(&mut client, &spec, Some(turns), &[]).await.unwrap();
            let mut bots = Bots::new();
            for seat in 1..4 {
                bots.spawn(addr.clone(), game.game_id.clone(), seat, "greedy".into(), 1)
                    .unwrap();
            }
            // As long as a round trip or two: about what a bot's connection and join take.
            for _ in 0..turns / 4 {
                client
                    .get_game(v1::GetGameRequest {
                        game_id: game.game_id.clone(),
                    })
                    .await
                    .unwrap();
            }
            for _ in 0..turns % 4 * 8 {
                tokio::task::yield_now().await;
            }
            let left = bots.leave().await;
            took += left.len();
            let summary = client
                .get_game(v1::GetGameRequest {
                    game_id: game.game_id.clone(),
                })
                .await
                .unwrap()
                .into_inner()
                .game
                .unwrap();
            let occupied: Vec<u32> = summary
                .seats
                .iter()
                .filter(|s| s.occupied)
                .map(|s| s.seat)
                .collect();
            assert!(
                occupied.is_empty(),
                "after {turns} turns: {occupied:?} taken, {left:?} left"
            );
        }
        // The stops did not all fall before the joins.
        assert!(took > 0);
        server.shutdown().await.unwrap();
    }
}
