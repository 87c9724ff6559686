//! `canasta play` (a person at the terminal), `canasta demo` (bots, watched), and the helpers
//! they share: a server in this process, and bots that take seats over the public protocol.

use std::io::Write;
use std::time::Duration;

use canasta_engine::bot::{self, Bot, GreedyBot};
use canasta_engine::notation::{parse_action, to_notation};
use canasta_engine::table::Table;
use canasta_engine::{Action, RuleSpec, Rules};
use canasta_proto::convert::rules_to_wire;
use canasta_proto::v1;
use tokio::sync::{mpsc, oneshot};
use tokio_stream::StreamExt;

use crate::cli::{DemoArgs, PlayArgs, RuleArgs};
use crate::remote::{self, Client, SeatClient, authed, status_text};
use crate::render::{self, Style};

/// A server running in this process, stopped when dropped.
pub struct LocalServer {
    /// Its address.
    pub addr: String,
    stop: Option<oneshot::Sender<()>>,
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// Starts an in-memory server on a free loopback port.
pub async fn local_server() -> Result<LocalServer, String> {
    let mut config = canasta_server::Config::for_tests();
    config.heartbeat_secs = 15.0;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("cannot start a local server: {e}"))?;
    let addr = listener
        .local_addr()
        .map_err(|e| e.to_string())?
        .to_string();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = canasta_server::run(config, listener, async {
            let _ = stopped.await;
        })
        .await;
    });
    Ok(LocalServer {
        addr,
        stop: Some(stop),
    })
}

/// A rule spec from the command line.
pub fn spec(args: &RuleArgs) -> Result<RuleSpec, String> {
    args.spec()
}

/// Creates a game on the server.
pub async fn create(
    client: &mut Client,
    spec: &RuleSpec,
    seed: Option<u64>,
) -> Result<v1::GameSummary, String> {
    client
        .create_game(v1::CreateGameRequest {
            rules: Some(rules_to_wire(spec)),
            seed,
            ..Default::default()
        })
        .await
        .map_err(|s| status_text(&s))?
        .into_inner()
        .game
        .ok_or_else(|| "the server answered no game".into())
}

/// Built-in bots playing seats over the protocol, each in a task of its own; stopped when
/// dropped. A bot that fails says why on a channel, so that whoever waits for the game does
/// not wait forever.
pub struct Bots {
    tasks: tokio::task::JoinSet<()>,
    failed_tx: mpsc::UnboundedSender<String>,
    failed: mpsc::UnboundedReceiver<String>,
}

impl Bots {
    /// No bots yet.
    pub fn new() -> Bots {
        let (failed_tx, failed) = mpsc::unbounded_channel();
        Bots {
            tasks: tokio::task::JoinSet::new(),
            failed_tx,
            failed,
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
    ) -> Result<(), String> {
        let mut bot = bot::by_name(&name, seed).ok_or_else(|| {
            format!(
                "there is no bot {name:?}: the bots are {}",
                bot::BOT_NAMES.join(", ")
            )
        })?;
        let failed = self.failed_tx.clone();
        self.tasks.spawn(async move {
            let run = async {
                let mut client = remote::connect(&addr).await?;
                let mut s = SeatClient::join(
                    &mut client,
                    &addr,
                    &game_id,
                    Some(seat),
                    &format!("{name} bot"),
                )
                .await?;
                remote::play_seat(&mut client, &mut s, bot.as_mut(), |_| {}).await
            };
            if let Err(e) = run.await {
                let _ = failed.send(format!("the {name} bot in seat {seat} stopped: {e}"));
            }
        });
        Ok(())
    }

    /// Waits for a bot to fail, and says why.
    pub async fn failure(&mut self) -> String {
        match self.failed.recv().await {
            Some(why) => why,
            // Never: `self` holds a sender.
            None => std::future::pending().await,
        }
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
commands: an action, or help, hint, auto, table, quit
actions:  draw | take KS KH | take 2: | take KS KH; AS AH Jk | meld KS KH KD | meld 0: KS; 1: QS
          discard 9C | out 0: KS / 9C | ask | yes | no | decline
          (cards: KS 10H Jk, or with symbols K♠; `N:` adds to your side's meld N)";

/// `canasta play`.
pub async fn play(args: PlayArgs) -> Result<(), String> {
    let style = Style::from_flag(args.color);
    let local = if args.local {
        Some(local_server().await?)
    } else {
        None
    };
    let addr = local
        .as_ref()
        .map_or(args.server.server.clone(), |l| l.addr.clone());
    let mut client = remote::connect(&addr).await.map_err(|e| e.to_string())?;
    let (game_id, created) = match &args.game {
        Some(id) => (id.clone(), false),
        None => {
            let spec = spec(&args.rules)?;
            let game = create(&mut client, &spec, args.seed).await?;
            println!(
                "created game {} ({} players, {})",
                game.game_id, spec.players, spec.preset
            );
            (game.game_id, true)
        }
    };
    let my_seat = args.seat.or(created.then_some(0));
    let mut me = SeatClient::join(&mut client, &addr, &game_id, my_seat, &args.name)
        .await
        .map_err(|e| e.to_string())?;
    println!("you are seat {} of game {game_id}", me.seat);
    let mut bots = Bots::new();
    if created {
        for s in (0..me.rules.players as u32).filter(|&s| s != me.seat) {
            bots.spawn(
                addr.clone(),
                game_id.clone(),
                s,
                args.bot.clone(),
                s as u64 + 1,
            )?;
        }
    }
    let mut input = stdin_lines();
    let mut last = 0u64;
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
    loop {
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
            .map_err(|s| status_text(&s))?
            .into_inner();
        loop {
            let message = tokio::select! {
                m = stream.next() => m,
                why = bots.failure() => return Err(why),
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
                                return Ok(());
                            }
                        }
                        _ => {}
                    }
                }
                Some(Kind::Prompt(p)) if p.seq == last && p.seat == me.seat => {
                    me.names = names.clone();
                    let show_table = std::mem::take(&mut table_due);
                    if !turn(&mut client, &mut me, &style, show_table, &mut input).await? {
                        println!("goodbye");
                        return Ok(());
                    }
                }
                Some(Kind::Lagged(_)) => break,
                _ => {}
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        client = remote::connect(&addr).await.map_err(|e| e.to_string())?;
    }
}

/// Asks the person for commands until one action is accepted: shows the whole table first if
/// `show_table`, else his hand. False if he quits.
async fn turn(
    client: &mut Client,
    me: &mut SeatClient,
    style: &Style,
    show_table: bool,
    input: &mut mpsc::UnboundedReceiver<String>,
) -> Result<bool, String> {
    let (view, seq, _) = me.view(client).await.map_err(|e| e.to_string())?;
    let Some(legal) = view.legal() else {
        return Ok(true);
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
    };
    println!(
        "{}",
        style.bold(&format!("your turn: {what} (help lists your choices)"))
    );
    loop {
        print!("> ");
        let _ = std::io::stdout().flush();
        let Some(line) = input.recv().await else {
            return Ok(false);
        };
        let action = match line.as_str() {
            "" => continue,
            "quit" | "exit" => return Ok(false),
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
                None => return Ok(false),
            }
        }
        match me.submit(client, seq, &action).await {
            Ok(_) => return Ok(true),
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
pub async fn demo(args: DemoArgs) -> Result<(), String> {
    let style = Style::from_flag(args.color);
    let spec = spec(&args.rules)?;
    let server = local_server().await?;
    let mut client = remote::connect(&server.addr)
        .await
        .map_err(|e| e.to_string())?;
    let game = create(&mut client, &spec, Some(args.seed)).await?;
    println!(
        "a server runs in this process at {}; {} {} bots play game {} ({}, {} players)",
        server.addr, spec.players, args.bot, game.game_id, spec.preset, spec.players
    );
    let mut stream = client
        .watch_game(v1::WatchGameRequest {
            game_id: game.game_id.clone(),
            after_seq: 0,
            include_actions: false,
            include_view: false,
        })
        .await
        .map_err(|s| status_text(&s))?
        .into_inner();
    let mut bots = Bots::new();
    for s in 0..spec.players as u32 {
        bots.spawn(
            server.addr.clone(),
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
    let mut totals: Vec<i32> =
        vec![0; Table::new(&Rules::new(&spec).map_err(|e| e.to_string())?).sides() as usize];
    loop {
        let message = tokio::select! {
            m = stream.next() => m,
            why = bots.failure() => return Err(why),
        };
        let message = match message {
            Some(Ok(m)) => m,
            Some(Err(s)) => return Err(format!("the game's stream failed: {}", status_text(&s))),
            None => return Err("the server ended the game's stream early".into()),
        };
        let Some(v1::watch_game_response::Kind::Event(e)) = message.kind else {
            continue;
        };
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
