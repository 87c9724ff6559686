//! One task per game: the actor owns the game's state, its event log and its seats, and serves
//! requests from a channel in order, so a game needs no lock and games never block each other.
//!
//! Every change is an entry of the game's log (the creation, a join, a leave, an action, a
//! time-out, the end of a game nobody plays). A live change is checked, stored, and only then
//! applied and acknowledged; on restart the stored entries are applied again through the same
//! code, which rebuilds the same events with the same seqs.
//!
//! This file holds the actor's state, its handle and commands, and the task's loop, which hands
//! each command and each deadline to the file of its job. The state is one struct, so that a
//! command changes it without a lock; a job's own part of it (the remembered requests, the
//! clock, the times of activity) is a type of the job's file, and the methods are spread over
//! one file per job:
//!
//! - `log.rs`: the log's events, and its entries stored, applied and replayed.
//! - `compact.rs`: what a finished game drops, and its rebuild for the reads that need it.
//! - `seats.rs`: the seats and their tokens: joins, leaves, whose a token is.
//! - `actions.rs`: a seat's actions, checked and submitted.
//! - `house.rs`: the seats the server's built-in bots play: their thinking and their moves.
//! - `retry.rs`: the applied requests remembered to answer their retries.
//! - `clock.rs`: time controls: the move budget, time-outs, a match only time-outs play.
//! - `unplayed.rs`: the policies for games nobody plays, and the creator's cancel.
//! - `views.rs`: what a seat or a spectator sees of the game.
//! - `prompts.rs`: the prompt that tells the seat to act its choices.
//! - `watchers.rs`: watch streams: their subscriptions, their counts, the live feed.
//! - `summary.rs`: the match's result and the game's summary.
//! - `export.rs`: a finished game's record.

mod actions;
mod clock;
mod compact;
mod export;
mod house;
mod log;
mod prompts;
mod retry;
mod seats;
mod summary;
#[cfg(test)]
mod testing;
mod unplayed;
mod views;
mod watchers;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use canasta_engine::{Action, Event, Game, RuleError, Rules, Seat, Setup, Side};
use canasta_proto::convert;
use canasta_proto::v1;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tonic::Code;

use crate::auth::{SeatIds, Token};
use crate::config::Config;
use crate::errors::ApiError;
use crate::metrics::Metrics;
use crate::registry::{GameSlot, StatusIndex};
use crate::store::Store;
use canasta_proto::Reason;

pub use clock::{ABANDON_AFTER, check_time_control};
pub use compact::Rebuilds;
pub use house::BotMove;
pub use log::{LogEvent, LogKind};
pub use prompts::PromptItem;
pub use unplayed::STAMP_EVERY;
pub use watchers::{Item, Subscription, WatchGuard};

use clock::{Clock, LineLimit};
use house::House;
use retry::Retries;
use seats::SeatSlot;
use unplayed::Unplayed;
use watchers::Watchers;

type Reply<T> = oneshot::Sender<Result<T, ApiError>>;

/// A request to a game's actor.
pub enum Command {
    /// Take a seat.
    Join {
        /// The seat, or the lowest free one.
        seat: Option<u32>,
        /// The display name.
        name: String,
        /// The answer.
        reply: Reply<v1::JoinGameResponse>,
    },
    /// Leave a seat.
    Leave {
        /// The seat's token.
        token: Token,
        /// The answer.
        reply: Reply<()>,
    },
    /// A view.
    View {
        /// The seat's token, or none for a spectator.
        token: Option<Token>,
        /// List the legal actions.
        include_actions: bool,
        /// The answer.
        reply: Reply<v1::GetViewResponse>,
    },
    /// Apply an action.
    Submit {
        /// The seat's token.
        token: Token,
        /// The seq the client saw last.
        expected_seq: u64,
        /// The client's id of the request.
        request_id: String,
        /// The action (boxed: the command channel's blocks are sized by the biggest command,
        /// and every game, idle ones too, holds one block).
        action: Box<v1::Action>,
        /// The answer lists the action's events (a Play stream sends them anyway).
        with_events: bool,
        /// The answer.
        reply: Reply<v1::SubmitActionResponse>,
    },
    /// Check an action without applying it.
    Check {
        /// The seat's token.
        token: Token,
        /// The action (boxed, as for `Submit`).
        action: Box<v1::Action>,
        /// The answer.
        reply: Reply<Result<(), RuleError>>,
    },
    /// Open a watch stream.
    Subscribe {
        /// The seat's token, or none for a spectator.
        token: Option<Token>,
        /// Send the events after this seq.
        after_seq: u64,
        /// Prompts carry the list of legal actions.
        include_actions: bool,
        /// Prompts carry the seat's view.
        include_view: bool,
        /// The answer.
        reply: Reply<Subscription>,
    },
    /// The deal scores and the result.
    Scores {
        /// The answer.
        reply: Reply<v1::GetScoresResponse>,
    },
    /// The whole record of a finished game.
    Export {
        /// The answer.
        reply: Reply<v1::GameRecord>,
    },
    /// End a waiting game, for its creator.
    Cancel {
        /// The creator token the call carries.
        token: Token,
        /// The answer: the game's summary after its end.
        reply: Reply<v1::GameSummary>,
    },
    /// End a game the lobby made but has no record of (see
    /// [`EndCause::Unrecorded`](crate::store::EndCause::Unrecorded)).
    EndUnrecorded {
        /// The answer, once the end is stored.
        reply: Reply<()>,
    },
    /// A built-in bot's choice for its seat, from its thinking (boxed, as for `Submit`).
    BotMoved(Box<BotMove>),
}

/// The registry's handle on a game.
#[derive(Clone)]
pub struct GameHandle {
    /// The game's id.
    pub id: String,
    /// Creation time, milliseconds since the epoch.
    pub created_ms: i64,
    /// The game's summary, kept current by the actor.
    pub summary: Arc<Mutex<v1::GameSummary>>,
    /// The fingerprints of the seats' tokens, kept current by the actor.
    pub seats: Arc<SeatIds>,
    /// True once the match is over (the summary then holds the final result): the lobby waits
    /// on it to rate its games.
    pub finished: watch::Receiver<bool>,
    /// Made by the lobby, for a seek or a challenge: the lobby ends one it has no record of
    /// when the server starts (see [`Command::EndUnrecorded`]).
    pub for_lobby: bool,
    tx: mpsc::Sender<Command>,
}

impl GameHandle {
    /// Sends a command and waits for the answer.
    pub async fn ask<T>(&self, make: impl FnOnce(Reply<T>) -> Command) -> Result<T, ApiError> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(make(reply)).await.map_err(|_| gone())?;
        answer.await.map_err(|_| gone())?
    }

    /// The current summary.
    pub fn summary(&self) -> v1::GameSummary {
        self.summary.lock().expect("not poisoned").clone()
    }
}

fn gone() -> ApiError {
    ApiError::new(
        Code::Unavailable,
        Reason::ShuttingDown,
        "the server is shutting down: retry against the restarted server",
    )
}

/// Where the game is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Waiting,
    Playing,
    Finished,
}

/// The actor's state: the game and what each job keeps of it (the jobs' files say what they
/// do with it).
pub struct Actor {
    // The game.
    id: String,
    created_ms: i64,
    request: v1::CreateGameRequest,
    setup: Setup,
    game: Game,
    status: Status,
    /// True once the game has started (its GameStarted is logged): a game that ends before
    /// shows nothing of its deal, as while it waited.
    started: bool,
    /// The side that forfeited the match, if one did.
    forfeited: Option<Side>,
    /// How the match ended when no side won it: abandoned (see [`ABANDON_AFTER`] and
    /// [`EndCause`](crate::store::EndCause)), expired or cancelled.
    ended: Option<v1::MatchEndKind>,

    // The log (`log.rs`).
    /// The first deal's events, logged when the game starts and never before: its DealStarted
    /// carries the hands (each stream shows its seat's own), and a seat of a waiting game may
    /// be joined and left by anyone.
    opening: Vec<Event>,
    /// The seq of the last event: the length of `log` while the game keeps it.
    seq: u64,
    /// Every event; empty once the finished game is compacted (see [`Actor::compact`]).
    log: Vec<Arc<LogEvent>>,
    /// Every action played, by seat; empty once the finished game is compacted.
    record: Vec<(Seat, Action)>,
    /// Every entry of the log as stored (`Entry::encode_length_delimited`), in order: all a
    /// finished game keeps of its log, from which [`Actor::rebuilt`] rebuilds the rest.
    entry_log: Vec<u8>,
    /// The number of entries in the log.
    entries: u64,
    /// The log lines of the failed stores of the server's own entries (time-outs, ends of
    /// games nobody plays), at most one a minute (see [`LineLimit`]).
    failure_lines: LineLimit,
    store: Store,

    // A finished game's compaction and rebuilds (`compact.rs`).
    /// True once the finished game has dropped its log, record and requests.
    compacted: bool,
    /// The server's cache of rebuilt finished games, if it has one.
    rebuilds: Option<Arc<Rebuilds>>,
    /// This actor's key in `rebuilds`.
    key: u64,

    // The seats (`seats.rs`).
    seats: Vec<SeatSlot>,
    /// The fingerprints of the seats' tokens, for the service (see [`SeatIds`]).
    seat_ids: Arc<SeatIds>,
    /// The creator token, which cancels the game while it waits; none for a game created
    /// before there were creator tokens.
    creator: Option<Token>,
    /// Made by the lobby (the Created entry says so): see [`GameHandle::for_lobby`].
    for_lobby: bool,

    /// The applied requests remembered to answer retries (`retry.rs`).
    retries: Retries,
    /// The time control and its clock (`clock.rs`).
    clock: Clock,
    /// The seats the server's bots play (`house.rs`); none in a game without bots.
    house: Option<Box<House>>,
    /// The times of the players' activity and the end of a game nobody plays (`unplayed.rs`).
    unplayed: Unplayed,

    // The watchers (`watchers.rs`).
    /// The live feed, only while someone watches: its buffer holds `watch_buffer` slots, far
    /// more than an idle game should cost.
    live: Option<broadcast::Sender<Item>>,
    watchers: Arc<Watchers>,

    // The summary (`summary.rs`) and the registry's hold on the game.
    summary: Arc<Mutex<v1::GameSummary>>,
    /// Set once the match is over, after the summary (see [`GameHandle::finished`]).
    finished: watch::Sender<bool>,
    /// The registry's index of games by status, and this game's place in it: kept current by
    /// [`Actor::refresh_summary`].
    listed: Option<(Arc<StatusIndex>, usize)>,
    /// The game's place among the unfinished ones (`--max-games`), given up when it finishes.
    slot: Option<GameSlot>,

    config: Arc<Config>,
    metrics: Arc<Metrics>,
}

/// Milliseconds since the epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl Actor {
    /// Builds a game from its creating request (with the seed filled in). Nothing is stored.
    pub fn new(
        id: String,
        created_ms: i64,
        request: v1::CreateGameRequest,
        store: Store,
        config: Arc<Config>,
        metrics: Arc<Metrics>,
    ) -> Result<Actor, ApiError> {
        let setup = convert::setup_from_wire(
            request.rules.as_ref(),
            request.seed.unwrap_or(0),
            &request.card_orders,
            request.first_dealer,
            &request.start_scores,
        )?;
        // The deal is made now, not when the last seat is joined: the setup is checked at
        // creation (a bad card order is refused to its creator, not to the last player to
        // join), and dealing later would change nothing, since the seed or the card orders
        // decide the cards either way. What keeps the deal secret is that nothing shows it
        // before the start: a waiting game's views and summary carry no card and no result
        // (`convert::view_to_wire`), its opening events wait in `opening`, and it answers no
        // prompt, dry run or action (`Actor::playing`).
        let (game, opening) = Game::start(&setup)?;
        let players = game.rules().players as usize;
        let clock = Clock::new(request.time_control, &config, players)?;
        let house = House::new(&request.bots, players, request.seed.unwrap_or(0), &config)?;
        let mut seats = vec![SeatSlot::default(); players];
        if let Some(house) = &house {
            for (slot, name) in seats.iter_mut().zip(house.names()) {
                slot.bot = name;
            }
        }
        let actor = Actor {
            id,
            created_ms,
            request,
            setup,
            game,
            status: Status::Waiting,
            started: false,
            forfeited: None,
            ended: None,
            opening,
            seq: 0,
            log: Vec::new(),
            record: Vec::new(),
            entry_log: Vec::new(),
            entries: 0,
            failure_lines: LineLimit::default(),
            store,
            compacted: false,
            rebuilds: None,
            key: compact::rebuild_key(),
            seats,
            seat_ids: Arc::new(SeatIds::default()),
            creator: None,
            for_lobby: false,
            retries: Retries::default(),
            clock,
            house,
            unplayed: Unplayed::new(),
            live: None,
            watchers: Arc::new(Watchers::default()),
            summary: Arc::new(Mutex::new(v1::GameSummary::default())),
            finished: watch::Sender::new(false),
            listed: None,
            slot: None,
            config,
            metrics,
        };
        actor.refresh_summary();
        Ok(actor)
    }

    /// Holds the game's place among the unfinished games until it finishes.
    pub fn hold_slot(&mut self, slot: GameSlot) {
        if self.status != Status::Finished {
            self.slot = Some(slot);
        }
    }

    /// Shares the server's cache of rebuilt finished games.
    pub fn share_rebuilds(&mut self, rebuilds: Arc<Rebuilds>) {
        self.rebuilds = Some(rebuilds);
    }

    /// Enters the game in the registry's index of games by status, at `place`; the actor
    /// moves it there when its status changes.
    pub fn list_in(&mut self, index: Arc<StatusIndex>, place: usize) {
        index.moved(place, None, self.wire_status());
        self.listed = Some((index, place));
    }

    /// Shares the server's pool of thinking bots (see [`BotPool`](crate::bots::BotPool)).
    pub fn share_bots(&mut self, pool: Arc<crate::bots::BotPool>) {
        if let Some(house) = &mut self.house {
            house.share_pool(pool);
        }
    }

    /// Starts the actor's task and returns its handle.
    pub fn spawn(mut self) -> GameHandle {
        let (tx, rx) = mpsc::channel(64);
        if let Some(house) = &mut self.house {
            house.listen(tx.downgrade());
        }
        let handle = GameHandle {
            id: self.id.clone(),
            created_ms: self.created_ms,
            summary: self.summary.clone(),
            seats: self.seat_ids.clone(),
            finished: self.finished.subscribe(),
            for_lobby: self.for_lobby,
            tx,
        };
        tokio::spawn(self.run(rx));
        handle
    }

    async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        // One timer for both deadlines (the move budget's, and the end of a game nobody
        // plays), moved only when the next of them changes: most commands change neither.
        let timer = tokio::time::sleep_until(tokio::time::Instant::now());
        tokio::pin!(timer);
        let mut armed = None;
        // A game restored where a bot is to act (or created with a bot in every seat) goes on.
        self.wake_bot();
        loop {
            let next = self.next_deadline();
            if next != armed {
                if let Some(at) = next {
                    timer.as_mut().reset(at);
                }
                armed = next;
            }
            tokio::select! {
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
                _ = &mut timer, if armed.is_some() => {
                    armed = None;
                    self.deadline_passed().await;
                }
            }
            // After the answer: the answer to the action that ends the match lists its events.
            self.compact();
        }
    }

    /// The next of the game's deadlines.
    fn next_deadline(&self) -> Option<tokio::time::Instant> {
        match (self.clock.deadline(), self.unplayed.deadline()) {
            (Some(a), Some((b, _))) => Some(a.min(b)),
            (a, b) => a.or(b.map(|(at, _)| at)),
        }
    }

    /// Acts on the deadline that has passed: the move's time-out first.
    async fn deadline_passed(&mut self) {
        let now = tokio::time::Instant::now();
        if self.clock.deadline().is_some_and(|d| d <= now) {
            self.time_out().await;
        } else if self.unplayed.deadline().is_some_and(|(d, _)| d <= now) {
            self.end_unplayed().await;
        }
    }

    async fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Join { seat, name, reply } => {
                let _ = reply.send(self.join(seat, name).await);
            }
            Command::Leave { token, reply } => {
                let _ = reply.send(self.leave(&token).await);
            }
            Command::View {
                token,
                include_actions,
                reply,
            } => {
                let _ = reply.send(self.view(token.as_ref(), include_actions));
            }
            Command::Submit {
                token,
                expected_seq,
                request_id,
                action,
                with_events,
                reply,
            } => {
                let started = Instant::now();
                let before = self.seq();
                let result = self
                    .submit(&token, expected_seq, request_id, &action, with_events)
                    .await;
                // A retry answered from memory applies nothing and is not counted.
                if result.is_ok() && self.seq() != before {
                    self.metrics.action_applied(started.elapsed());
                }
                let _ = reply.send(result);
            }
            Command::Check {
                token,
                action,
                reply,
            } => {
                let _ = reply.send(self.check(&token, &action));
            }
            Command::Subscribe {
                token,
                after_seq,
                include_actions,
                include_view,
                reply,
            } => {
                let _ = reply.send(self.subscribe(
                    token.as_ref(),
                    after_seq,
                    include_actions,
                    include_view,
                ));
            }
            Command::Scores { reply } => {
                let _ = reply.send(Ok(self.scores()));
            }
            Command::Export { reply } => {
                let _ = reply.send(self.export());
            }
            Command::Cancel { token, reply } => {
                let _ = reply.send(self.cancel(&token).await);
            }
            Command::EndUnrecorded { reply } => {
                let _ = reply.send(self.end_unrecorded().await);
            }
            Command::BotMoved(moved) => self.bot_moved(*moved).await,
        }
    }

    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        self.game.rules()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every game, idle ones too, holds its command channel's first block of 32 commands: a
    // command stays small (its big parts boxed), or each idle game grows by 32 times the
    // difference (128 bytes a command cost 2.3 KB a game more than 80).
    #[test]
    fn a_command_stays_small() {
        assert!(
            std::mem::size_of::<Command>() <= 80,
            "{}",
            std::mem::size_of::<Command>()
        );
    }
}
