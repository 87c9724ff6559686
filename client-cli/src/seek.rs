//! `canasta bot --seek` and `--accept-challenges`: a built-in bot that plays as a registered
//! player. It follows the player's event stream (WatchPlayer), plays every game that starts
//! for the player (found by its seeks, or by challenges it accepted), holds up to
//! `--concurrent` seeks and games at once over one connection, and seeks again as games end,
//! until `--games` games are played (or for ever).
//!
//! Nothing is lost to a dropped connection: the event stream resumes after the last event seen
//! (a seat found while a Seek stream was down arrives there as a started game), and each game
//! is played by `remote::play_seat`, which resumes by seq. On start the stream replays the
//! events the server keeps, so the games an earlier run left unfinished are played too.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::Duration;

use anyhow::anyhow;
use canasta_engine::bot;
use canasta_proto::convert::rules_to_wire;
use canasta_proto::reason::{Reason, reason_of};
use canasta_proto::v1;
use serde_json::json;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tonic::Status;

use crate::cli::BotArgs;
use crate::lobby::{end_name, time_control};
use crate::players::{self, Key, Lobby, change_json, change_text};
use crate::remote::{
    self, Client, Link, RemoteError, limited, retry_delay, status_text, transient,
};

/// How long, once its last game is played, the bot waits for the games' ends on the player's
/// stream (they carry the rating changes) before it reports without them.
const LAST_EVENTS_GRACE: Duration = Duration::from_secs(10);

/// How long after a seek lost to the connection the bot seeks again.
const SEEK_AGAIN_AFTER: Duration = Duration::from_millis(500);

/// What the bot's tasks tell it.
enum Msg {
    /// An event of the player's stream.
    Event(Box<v1::PlayerEvent>),
    /// A seek's stream ended.
    Seek(SeekEnd),
    /// A game's play ended: its result (`None`: it was over before the bot came).
    Played(String, Result<Option<v1::MatchResult>, RemoteError>),
    /// The bot cannot go on.
    Fatal(anyhow::Error),
}

/// How a seek's stream ended.
enum SeekEnd {
    /// With a seat.
    Seated(Box<v1::SeekSeated>),
    /// Before a seat, for a reason that may pass (the connection): the seek is made again. A
    /// seat found meanwhile comes on the player's stream.
    Lost(String),
    /// Refused.
    Refused(Status),
}

/// A game the bot plays.
struct Game {
    seat: u32,
    players: Vec<String>,
    rated: bool,
}

/// Where the bot stands.
struct Bot {
    args: BotArgs,
    key: Key,
    addr: String,
    lobby: Lobby,
    client: Client,
    tx: mpsc::Sender<Msg>,
    /// The seek every seek of the bot sends.
    seek: v1::SeekRequest,
    /// The player's name, once known (from the key file, or a game's seats).
    name: Option<String>,
    /// Seeks open.
    seeks: usize,
    /// Games being played.
    running: HashMap<String, Game>,
    /// Every game started and not yet reported: a game announced twice (by its seek and on
    /// the stream, or again after a resume) is played once.
    known: HashSet<String>,
    /// Games played whose end has not come on the player's stream yet.
    awaiting: HashMap<String, (Game, v1::MatchResult)>,
    /// Ends that came on the stream before the game's play ended.
    early: HashMap<String, v1::PlayerGameFinished>,
    /// Challenges to accept when a game ends (at most `--concurrent` games at once).
    invitations: VecDeque<v1::Challenge>,
    /// Games played to the end by this run, won, and failed.
    played: u64,
    won: u64,
    failed: Vec<String>,
    /// Games started so far, for the bots' seeds.
    started: u64,
    /// The player's limits refused a seek: wait for a game to end.
    blocked: bool,
}

/// `canasta bot --seek` / `--accept-challenges`.
pub async fn run(args: BotArgs) -> anyhow::Result<()> {
    let key = players::key(args.key.key_file.as_deref())?;
    let spec = args.rules.spec().map_err(anyhow::Error::msg)?;
    let addr = args.server.server.clone();
    let channel = remote::channel(&addr).await?;
    let lobby = Lobby::new(channel.clone());
    let client = Client::new(channel);
    let (tx, mut rx) = mpsc::channel(256);
    let seek = v1::SeekRequest {
        rules: Some(rules_to_wire(&spec)),
        time_control: time_control(args.move_budget, args.timeout_policy),
        partner: args.partner.clone().unwrap_or_default(),
        rated: Some(!args.unrated),
        fill_with_bots_after_ms: args.fill_with_bots_after.unwrap_or(0),
    };
    tokio::spawn(follow_player(
        lobby.clone(),
        key.clone(),
        addr.clone(),
        Duration::from_secs(args.reconnect_secs),
        tx.clone(),
        |event| match event {
            Ok(e) => Msg::Event(Box::new(e)),
            Err(e) => Msg::Fatal(e),
        },
    ));
    if !args.json && !args.quiet {
        eprintln!("{}", intro(&args, &key));
    }
    let mut bot = Bot {
        name: key.name.clone(),
        args,
        key,
        addr,
        lobby,
        client,
        tx,
        seek,
        seeks: 0,
        running: HashMap::new(),
        known: HashSet::new(),
        awaiting: HashMap::new(),
        early: HashMap::new(),
        invitations: VecDeque::new(),
        played: 0,
        won: 0,
        failed: Vec::new(),
        started: 0,
        blocked: false,
    };
    bot.seek_more(Duration::ZERO);
    while !bot.done() {
        let Some(msg) = rx.recv().await else { break };
        bot.handle(msg).await?;
    }
    // The games' ends (with the rating changes) may come on the stream just after the games.
    let grace = tokio::time::sleep(LAST_EVENTS_GRACE);
    tokio::pin!(grace);
    while !bot.awaiting.is_empty() {
        tokio::select! {
            msg = rx.recv() => match msg {
                Some(Msg::Event(e)) => bot.event(*e).await?,
                Some(_) => {}
                None => break,
            },
            () = &mut grace => break,
        }
    }
    let late: Vec<(String, (Game, v1::MatchResult))> = bot.awaiting.drain().collect();
    for (id, (game, result)) in late {
        bot.report(&id, &game, &result, None);
    }
    bot.finish()
}

/// What the bot says it does, on standard error.
fn intro(args: &BotArgs, key: &Key) -> String {
    let who = key.name.clone().unwrap_or_else(|| "the player".into());
    let mut doing = Vec::new();
    if args.seek {
        doing.push(format!(
            "seeks {} {} games of {} players{}",
            if args.unrated { "unrated" } else { "rated" },
            args.rules.preset,
            args.rules.players,
            match args.move_budget {
                Some(ms) => format!(" ({ms} ms a move)"),
                None => String::new(),
            }
        ));
    }
    if args.accept_challenges {
        doing.push("accepts challenges".into());
    }
    format!(
        "{who} plays with the {} bot: {}, {} at a time, {}",
        args.bot,
        doing.join(" and "),
        args.concurrent,
        match args.games {
            Some(n) => format!("{n} games in all"),
            None => "until stopped".into(),
        }
    )
}

impl Bot {
    /// Whether the bot has played all it was asked to, and plays nothing more.
    fn done(&self) -> bool {
        match self.args.games {
            Some(n) => self.played + self.failed.len() as u64 >= n && self.running.is_empty(),
            None => false,
        }
    }

    /// Games started or sought and not yet over, against `--games`.
    fn committed(&self) -> u64 {
        self.played + self.failed.len() as u64 + self.running.len() as u64 + self.seeks as u64
    }

    /// Whether another game may be started (by a seek or a challenge) without passing
    /// `--games`.
    fn room_for_more(&self) -> bool {
        self.args.games.is_none_or(|n| self.committed() < n)
    }

    /// Opens seeks up to `--concurrent` seeks and games, within `--games`, each after `delay`.
    fn seek_more(&mut self, delay: Duration) {
        if !self.args.seek || self.blocked {
            return;
        }
        while self.seeks + self.running.len() < self.args.concurrent && self.room_for_more() {
            self.seeks += 1;
            tokio::spawn(seek_once(
                self.lobby.clone(),
                self.key.clone(),
                self.seek.clone(),
                delay,
                self.tx.clone(),
            ));
        }
    }

    async fn handle(&mut self, msg: Msg) -> anyhow::Result<()> {
        match msg {
            Msg::Event(e) => self.event(*e).await?,
            Msg::Seek(end) => {
                self.seeks -= 1;
                match end {
                    SeekEnd::Seated(s) => {
                        let g = s.game.clone().unwrap_or_default();
                        let players = g.seats.iter().map(|x| x.display_name.clone()).collect();
                        self.start(
                            s.game_id.clone(),
                            s.seat,
                            s.token.clone(),
                            g,
                            players,
                            s.rated,
                            false,
                        );
                    }
                    SeekEnd::Lost(why) => {
                        if !self.args.quiet && !self.args.json {
                            eprintln!(
                                "canasta: a seek ended without a seat ({why}); seeking again"
                            );
                        }
                        // After a pause, so that a server that is away is not asked in a loop.
                        self.seek_more(SEEK_AGAIN_AFTER);
                        return Ok(());
                    }
                    SeekEnd::Refused(s) => {
                        let player_limit = matches!(
                            reason_of(&s),
                            Some(Reason::TooManySeeks | Reason::TooManyPlayerGames)
                        );
                        if player_limit && !self.running.is_empty() {
                            // Seek again when one of the player's games ends.
                            self.blocked = true;
                        } else {
                            return Err(self.key.refused(&s).context("the server refused a seek"));
                        }
                    }
                }
                self.seek_more(Duration::ZERO);
            }
            Msg::Played(id, result) => {
                let game = self.running.remove(&id);
                self.blocked = false;
                match (result, game) {
                    (Ok(Some(result)), Some(game)) => {
                        self.played += 1;
                        match self.early.remove(&id) {
                            Some(end) => self.report(&id, &game, &result, Some(&end)),
                            None => {
                                self.awaiting.insert(id, (game, result));
                            }
                        }
                    }
                    (Ok(None), _) | (_, None) => {
                        self.early.remove(&id);
                        self.known.remove(&id);
                    }
                    (Err(e), Some(_)) => {
                        self.early.remove(&id);
                        self.known.remove(&id);
                        if !self.args.quiet {
                            eprintln!("canasta: game {id}: {e}");
                        }
                        self.failed.push(format!("game {id}: {e}"));
                    }
                }
                self.accept_waiting().await?;
                self.seek_more(Duration::ZERO);
            }
            Msg::Fatal(e) => return Err(e),
        }
        Ok(())
    }

    /// Acts on an event of the player's stream.
    async fn event(&mut self, e: v1::PlayerEvent) -> anyhow::Result<()> {
        use v1::player_event::Kind;
        match e.kind {
            Some(Kind::GameStarted(g)) => {
                if self.name.is_none() {
                    self.name = g.players.get(g.seat as usize).cloned();
                }
                let summary = v1::GameSummary {
                    game_id: g.game_id.clone(),
                    rules: g.rules.clone(),
                    seats: g
                        .players
                        .iter()
                        .enumerate()
                        .map(|(i, n)| v1::SeatInfo {
                            seat: i as u32,
                            occupied: true,
                            display_name: n.clone(),
                            ..Default::default()
                        })
                        .collect(),
                    ..Default::default()
                };
                self.start(
                    g.game_id, g.seat, g.token, summary, g.players, g.rated, true,
                );
            }
            Some(Kind::GameFinished(f)) => {
                if let Some((game, result)) = self.awaiting.remove(&f.game_id) {
                    let id = f.game_id.clone();
                    self.report(&id, &game, &result, Some(&f));
                } else if self.running.contains_key(&f.game_id) {
                    self.early.insert(f.game_id.clone(), f);
                }
            }
            Some(Kind::Challenge(c)) => self.challenge(c).await?,
            None => {}
        }
        Ok(())
    }

    /// Starts playing a game, unless it is played already.
    #[allow(clippy::too_many_arguments)]
    fn start(
        &mut self,
        game_id: String,
        seat: u32,
        token: String,
        summary: v1::GameSummary,
        players: Vec<String>,
        rated: bool,
        maybe_over: bool,
    ) {
        if !self.known.insert(game_id.clone()) {
            return;
        }
        self.started += 1;
        if !self.args.quiet && !self.args.json {
            eprintln!(
                "game {game_id} starts: seat {seat} of {} ({})",
                players.join(", "),
                if rated { "rated" } else { "unrated" }
            );
        }
        self.running.insert(
            game_id.clone(),
            Game {
                seat,
                players,
                rated,
            },
        );
        let seed = self.args.seed.wrapping_add(self.started);
        tokio::spawn(play_game(
            self.client.clone(),
            self.addr.clone(),
            game_id,
            seat,
            token,
            summary,
            maybe_over,
            Settings {
                bot: self.args.bot.clone(),
                seed,
                unary: self.args.unary,
                reconnect: Duration::from_secs(self.args.reconnect_secs),
            },
            self.tx.clone(),
        ));
    }

    /// A challenge the player is part of was made or changed.
    async fn challenge(&mut self, c: v1::Challenge) -> anyhow::Result<()> {
        let open = c.status == v1::ChallengeStatus::Pending as i32;
        self.invitations
            .retain(|i| i.challenge_id != c.challenge_id);
        if !self.args.accept_challenges || !open || !self.awaits_our_answer(&c) {
            return Ok(());
        }
        self.invitations.push_back(c);
        self.accept_waiting().await
    }

    /// Whether the player's answer to a pending challenge is still awaited (when the player's
    /// name is not known, any pending answer may be it: answering twice is harmless).
    fn awaits_our_answer(&self, c: &v1::Challenge) -> bool {
        let pending = v1::ChallengeAnswer::Pending as i32;
        match &self.name {
            Some(name) => c
                .seats
                .iter()
                .any(|s| s.player.eq_ignore_ascii_case(name) && s.answer == pending),
            None => c.seats.iter().any(|s| s.answer == pending),
        }
    }

    /// Accepts the waiting invitations while the player plays fewer than `--concurrent`
    /// games (and within `--games`); an expired one is dropped.
    async fn accept_waiting(&mut self) -> anyhow::Result<()> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        while self.running.len() < self.args.concurrent && self.room_for_more() {
            let Some(c) = self.invitations.pop_front() else {
                break;
            };
            if c.expires_unix_ms > 0 && c.expires_unix_ms <= now {
                continue;
            }
            let request = v1::AnswerChallengeRequest {
                challenge_id: c.challenge_id.clone(),
                accept: true,
            };
            match limited!(
                self.lobby
                    .answer_challenge(self.key.authed(request.clone()))
                    .await
            ) {
                Ok(_) => {
                    if !self.args.quiet && !self.args.json {
                        eprintln!(
                            "accepted the challenge {} from {}",
                            c.challenge_id, c.challenger
                        );
                    }
                }
                // Answered already, ended meanwhile, or not ours to answer: nothing to do.
                Err(s)
                    if matches!(
                        reason_of(&s),
                        Some(
                            Reason::ChallengeClosed
                                | Reason::ChallengeNotFound
                                | Reason::NotInvited
                        )
                    ) => {}
                Err(s) if transient(&s) => {
                    if !self.args.quiet {
                        eprintln!(
                            "canasta: could not accept the challenge {}: {}",
                            c.challenge_id,
                            status_text(&s)
                        );
                    }
                }
                Err(s) => return Err(self.key.refused(&s)),
            }
        }
        Ok(())
    }

    /// Reports a game played to its end, with its rating change when the stream brought it.
    fn report(
        &mut self,
        id: &str,
        game: &Game,
        result: &v1::MatchResult,
        end: Option<&v1::PlayerGameFinished>,
    ) {
        self.known.remove(id);
        let sides = result.totals.len().max(1) as u32;
        let won = match end {
            Some(f) => f.won,
            None => result.winner_side == Some(game.seat % sides),
        };
        if won {
            self.won += 1;
        }
        let rating = end.and_then(|f| f.rating.as_ref());
        if self.args.json {
            let line = json!({
                "game_id": id,
                "seat": game.seat,
                "players": game.players,
                "rated": game.rated,
                "won": won,
                "winner_side": result.winner_side,
                "totals": result.totals,
                "end": end_name(result.end),
                "rating": change_json(rating),
            });
            println!("{line}");
        } else if !self.args.quiet {
            let outcome = match (won, result.winner_side) {
                (true, _) => "won".to_string(),
                (false, Some(_)) => "lost".to_string(),
                (false, None) => format!(
                    "ended without a winner ({})",
                    end_name(result.end).unwrap_or_else(|| "unfinished".into())
                ),
            };
            let scores: Vec<String> = result.totals.iter().map(i32::to_string).collect();
            let rating = match (game.rated, end) {
                (false, _) => "unrated".to_string(),
                (true, Some(_)) => change_text(rating),
                (true, None) => "its rating change did not arrive".to_string(),
            };
            println!(
                "game {id}: {outcome}, scores {} (seat {} of {}); {rating}",
                scores.join(" / "),
                game.seat,
                game.players.join(", ")
            );
        }
    }

    /// The last words: how many games were played, and the failures.
    fn finish(self) -> anyhow::Result<()> {
        if !self.args.quiet && !self.args.json {
            eprintln!(
                "played {} games: {} won, {} lost{}",
                self.played,
                self.won,
                self.played - self.won,
                if self.failed.is_empty() {
                    String::new()
                } else {
                    format!(", {} failed", self.failed.len())
                }
            );
        }
        match self.failed.first() {
            None => Ok(()),
            Some(first) => Err(anyhow!(
                "{} of {} games failed; the first: {first}",
                self.failed.len(),
                self.played + self.failed.len() as u64
            )),
        }
    }
}

/// How a game's bot plays.
struct Settings {
    bot: String,
    seed: u64,
    unary: bool,
    reconnect: Duration,
}

/// Plays one game to its end and says how it went.
#[allow(clippy::too_many_arguments)]
async fn play_game(
    mut client: Client,
    addr: String,
    game_id: String,
    seat: u32,
    token: String,
    summary: v1::GameSummary,
    maybe_over: bool,
    settings: Settings,
    tx: mpsc::Sender<Msg>,
) {
    let result: Result<Option<v1::MatchResult>, RemoteError> = async {
        // A game from the replayed part of the stream may be long over: a look at it costs
        // less than reading its whole stream.
        if maybe_over {
            let request = v1::GetGameRequest {
                game_id: game_id.clone(),
            };
            let status = limited!(client.get_game(request.clone()).await)?
                .into_inner()
                .game
                .map(|g| g.status);
            if status == Some(v1::GameStatus::Finished as i32) {
                return Ok(None);
            }
        }
        let mut seat = remote::SeatClient::with_token(&addr, &summary, seat, token)?;
        seat.reconnect = settings.reconnect;
        seat.unary = settings.unary;
        let mut bot = bot::by_name(&settings.bot, settings.seed)
            .ok_or_else(|| RemoteError(format!("there is no bot {:?}", settings.bot)))?;
        remote::play_seat(&mut client, &mut seat, bot.as_mut(), |_| {})
            .await
            .map(Some)
    }
    .await;
    let _ = tx.send(Msg::Played(game_id, result)).await;
}

/// Holds one seek until it is seated, lost or refused.
async fn seek_once(
    mut lobby: Lobby,
    key: Key,
    request: v1::SeekRequest,
    delay: Duration,
    tx: mpsc::Sender<Msg>,
) {
    tokio::time::sleep(delay).await;
    let end = async {
        let mut stream = match limited!(lobby.seek(key.authed(request.clone())).await) {
            Ok(r) => r.into_inner(),
            Err(s) if transient(&s) => return SeekEnd::Lost(status_text(&s)),
            Err(s) => return SeekEnd::Refused(s),
        };
        loop {
            match stream.next().await {
                Some(Ok(v1::SeekResponse {
                    kind: Some(v1::seek_response::Kind::Seated(s)),
                })) => return SeekEnd::Seated(Box::new(s)),
                Some(Ok(_)) => {}
                Some(Err(s)) if transient(&s) => return SeekEnd::Lost(status_text(&s)),
                Some(Err(s)) => return SeekEnd::Refused(s),
                None => return SeekEnd::Lost("the server closed the seek".into()),
            }
        }
    }
    .await;
    let _ = tx.send(Msg::Seek(end)).await;
}

/// Follows a player's event stream from the first event the server keeps, resuming after the
/// last event seen whenever it breaks, and hands each event on once (as `wrap` makes it a
/// message); an error that ends the following goes the same way, last.
pub(crate) async fn follow_player<T: Send + 'static>(
    mut lobby: Lobby,
    key: Key,
    addr: String,
    patience: Duration,
    tx: mpsc::Sender<T>,
    wrap: impl Fn(anyhow::Result<v1::PlayerEvent>) -> T + Send + 'static,
) {
    let mut link = Link::new(0);
    loop {
        let request = key.authed(v1::WatchPlayerRequest {
            after_seq: link.last,
        });
        let why = match lobby.watch_player(request).await {
            Ok(r) => {
                link.opened();
                let mut stream = r.into_inner();
                loop {
                    use v1::watch_player_response::Kind;
                    match link.next(&mut stream).await {
                        Ok(m) => match m.kind {
                            Some(Kind::Event(e)) if e.seq > link.last => {
                                link.last = e.seq;
                                if tx.send(wrap(Ok(e))).await.is_err() {
                                    return;
                                }
                            }
                            Some(Kind::Lagged(_)) => break "the stream fell behind".to_string(),
                            _ => {}
                        },
                        Err(why) => break why,
                    }
                }
            }
            Err(s) => {
                if let Some(wait) = retry_delay(&s)
                    && link.limited < remote::RATE_LIMIT_ATTEMPTS
                {
                    link.limited += 1;
                    tokio::time::sleep(wait).await;
                    continue;
                }
                if let Some(first) = first_kept(&s) {
                    // The server no longer keeps the events after ours: take up from the
                    // oldest it keeps (the games in between are over or on it).
                    eprintln!(
                        "canasta: the player's events {}..{} are no longer kept; resuming from event {first}",
                        link.last + 1,
                        first - 1
                    );
                    link.last = first - 1;
                    continue;
                }
                if !transient(&s) {
                    let _ = tx
                        .send(wrap(Err(key
                            .refused(&s)
                            .context("cannot follow the player's events"))))
                        .await;
                    return;
                }
                status_text(&s)
            }
        };
        match link.reconnect_channel(&addr, patience, &why).await {
            Ok(Some(channel)) => lobby = Lobby::new(channel),
            Ok(None) => {}
            Err(e) => {
                let _ = tx.send(wrap(Err(e.into()))).await;
                return;
            }
        }
    }
}

/// The oldest event the server keeps, from an EVENTS_DROPPED refusal.
fn first_kept(s: &Status) -> Option<u64> {
    use tonic_types::StatusExt;
    if reason_of(s) != Some(Reason::EventsDropped) {
        return None;
    }
    s.get_details_error_info()?
        .metadata
        .get("first_seq")?
        .parse::<u64>()
        .ok()
        .filter(|f| *f >= 1)
}
