//! One task per game: the actor owns the game's state, its event log and its seats, and serves
//! requests from a channel in order, so a game needs no lock and games never block each other.
//!
//! Every change is an entry of the game's log (the creation, a join, a leave, an action, a
//! time-out, the end of a game nobody plays). A live change is checked, stored, and only then
//! applied and acknowledged; on restart the stored entries are applied again through the same
//! code, which rebuilds the same events with the same seqs.
//!
//! A game nobody plays ends by the server's policy (`docs/protocol.md`, "Games nobody plays"):
//! the actor keeps when the game last saw a player's activity, and the deadline that follows
//! from it (see [`Actor::end_deadline`]), and stores the end as an entry of the log when it
//! comes, so that a restart replays it.
//!
//! The actor also keeps every entry in its stored encoding, one buffer for the whole log. A
//! finished game keeps only that buffer of its log: its events, its record and its applied
//! requests are dropped when it ends, and rebuilt for the requests that need them (a watch from
//! an earlier seq, the export, a retried action) by replaying the buffer into a fresh actor, as
//! a restart does. A finished match then keeps tens of kilobytes instead of most of a megabyte.
//! The rebuilds are kept in a cache the server's games share, bounded (see [`Rebuilds`]), so
//! that the reads of a finished game that come together (its watchers catching up, its export,
//! a retry) replay its log once; a retry is told from another request by an index of the
//! request ids its requests had, without a replay.

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use canasta_engine::bot::{Bot, SafeBot};
use canasta_engine::{
    Action, Event, Game, Phase, RuleError, Rules, Seat, Setup, Side, Viewer, redact,
};
use canasta_proto::convert::{
    self, ViewMeta, action_from_wire, action_to_wire, deal_score_to_wire, event_to_wire,
    legal_to_wire, result_to_wire,
};
use canasta_proto::v1;
use prost::Message;
use tokio::sync::{broadcast, mpsc, oneshot};
use tonic::Code;

use crate::auth::{SeatIds, Token};
use crate::config::Config;
use crate::errors::ApiError;
use crate::metrics::Metrics;
use crate::registry::{GameSlot, StatusIndex};
use crate::store::{
    ActEntry, CreatedEntry, EndCause, EndEntry, Entry, EntryKind, JoinEntry, LeaveEntry, Store,
    TimeoutEntry,
};
use canasta_proto::Reason;

/// An event of a game's log, as the referee sees it: redacted for each receiver on the way out.
#[derive(Clone, Debug)]
pub struct LogEvent {
    /// Its number in the game.
    pub seq: u64,
    /// What happened.
    pub kind: LogKind,
}

/// The two sources of events.
#[derive(Clone, Debug)]
pub enum LogKind {
    /// A rules event.
    Engine(Event),
    /// A server event (joins, leaves, the start, time-outs), public as it is.
    Server(v1::game_event::Kind),
}

impl LogEvent {
    /// The event on the wire, as `viewer` may see it.
    pub fn to_wire(&self, viewer: Viewer) -> v1::GameEvent {
        // An engine event the protocol has no message for keeps its seq, without a kind.
        let kind = match &self.kind {
            LogKind::Engine(e) => event_to_wire(&redact(e, viewer)),
            LogKind::Server(k) => Some(k.clone()),
        };
        v1::GameEvent {
            seq: self.seq,
            kind,
        }
    }
}

/// What the actor broadcasts to its watchers.
#[derive(Clone, Debug)]
pub enum Item {
    /// An event.
    Event(Arc<LogEvent>),
    /// A seat must act.
    Prompt(Arc<PromptItem>),
}

/// A prompt with every part a watcher may ask for; each stream sends what its watcher asked
/// for (see [`PromptItem::for_watcher`]).
#[derive(Debug)]
pub struct PromptItem {
    /// The prompt with the summary of the legal choices, without the list of actions and the
    /// view.
    pub prompt: v1::Prompt,
    /// The legal actions (at most the configured number).
    pub actions: Vec<v1::Action>,
    /// True if `actions` was cut at that number.
    pub actions_truncated: bool,
    /// The seat's view, built only while one of the seat's streams asked for it.
    pub view: Option<Box<v1::GameView>>,
}

impl PromptItem {
    /// The prompt as a watcher gets it: with the list of actions and the view if asked.
    pub fn for_watcher(&self, include_actions: bool, include_view: bool) -> v1::Prompt {
        let mut prompt = self.prompt.clone();
        if include_actions && let Some(l) = &mut prompt.legal {
            l.actions = self.actions.clone();
            l.actions_truncated = self.actions_truncated;
        }
        if include_view {
            prompt.view = self.view.clone();
        }
        prompt
    }
}

/// Counts of a game's open watch streams: spectators' (limited per game) and each seat's
/// (limited per token, by the service).
#[derive(Debug, Default)]
pub struct Watchers {
    spectators: AtomicUsize,
    by_seat: [AtomicUsize; 6],
    /// Each seat's streams that asked for its view in prompts.
    views_by_seat: [AtomicUsize; 6],
    /// Each seat's streams that asked for the list of legal actions in prompts.
    actions_by_seat: [AtomicUsize; 6],
}

/// Held by a watch stream; un-counts it when the stream ends.
#[derive(Debug)]
pub struct WatchGuard {
    watchers: Arc<Watchers>,
    seat: Option<usize>,
    /// The stream asked for the seat's view in prompts.
    view: bool,
    /// The stream asked for the list of legal actions in prompts.
    actions: bool,
}

impl Drop for WatchGuard {
    fn drop(&mut self) {
        match self.seat {
            Some(s) => {
                self.watchers.by_seat[s].fetch_sub(1, Ordering::Relaxed);
                if self.view {
                    self.watchers.views_by_seat[s].fetch_sub(1, Ordering::Relaxed);
                }
                if self.actions {
                    self.watchers.actions_by_seat[s].fetch_sub(1, Ordering::Relaxed);
                }
            }
            None => {
                self.watchers.spectators.fetch_sub(1, Ordering::Relaxed);
            }
        };
    }
}

/// A new watch stream: the missed events, the live feed, and the prompt if the watcher's seat
/// must act now.
pub struct Subscription {
    /// Who watches.
    pub viewer: Viewer,
    /// Events after the requested seq, up to now.
    pub backlog: Vec<Arc<LogEvent>>,
    /// Everything from now on.
    pub live: broadcast::Receiver<Item>,
    /// The watcher's prompt, if its seat must act.
    pub prompt: Option<Arc<PromptItem>>,
    /// The seq the watcher asked to start after.
    pub after_seq: u64,
    /// True if the match is over: nothing will follow the backlog.
    pub finished: bool,
    /// Counts the stream while it lives.
    pub guard: WatchGuard,
}

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

#[derive(Clone, Debug, Default)]
struct SeatSlot {
    token: Option<Token>,
    name: String,
}

/// Where the game is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Waiting,
    Playing,
    Finished,
}

/// Most request ids remembered per seat for answering retries.
const REMEMBERED_REQUESTS: usize = 256;

/// An applied request, remembered to answer its retries.
#[derive(Clone, Copy, Debug)]
struct AppliedRequest {
    /// The seq of its first event.
    first: u64,
    /// The seq of its last event.
    last: u64,
    /// The fingerprint of its action (see [`action_fingerprint`]).
    action: u64,
}

/// A fingerprint of an action, to tell a retry (the same action) from a request id used again
/// for another action, in 8 bytes rather than the whole action. A fixed-key hash: the same in
/// every run, so that it is computed again on replay. Two different actions share one with
/// probability 2^-64 (the second would then be answered as a retry of the first).
fn action_fingerprint(action: &Action) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    action.hash(&mut h);
    h.finish()
}

/// The key of a seat's request id in a finished game's index of its remembered requests (see
/// [`Actor::compact`]). Hashed with a key drawn once per process, so that a client cannot make
/// up ids that share a key with a stored one; if one did (with probability 2^-64 an id), it
/// would only cost a replay: the rebuilt game looks the request up by its id.
fn request_key(seat: u32, request_id: &str) -> u64 {
    static KEY: LazyLock<RandomState> = LazyLock::new(RandomState::new);
    KEY.hash_one((seat, request_id))
}

/// Most rebuilt finished games the server keeps (see [`Rebuilds`]).
const REBUILT_GAMES: usize = 16;
/// Most events, all games together, of the rebuilt games the server keeps: about 16 MiB (a
/// rebuilt event costs about 280 bytes with its share of the game's requests and record).
const REBUILT_EVENTS: usize = 60_000;

/// What a finished game's replay rebuilds for the reads that need it: its events, its applied
/// requests and its export.
#[derive(Debug)]
struct Rebuilt {
    log: Vec<Arc<LogEvent>>,
    requests: HashMap<(u32, String), AppliedRequest>,
    record: v1::GameRecord,
}

/// The rebuilt finished games that were read last, shared by the server's games: at most
/// [`REBUILT_GAMES`] games and [`REBUILT_EVENTS`] events in all, the least recently read
/// dropped first.
///
/// One bounded cache for the server rather than one per game: [`Actor::compact`] exists so
/// that a finished game keeps only its entries as stored (tens of kilobytes) instead of its
/// events (most of a megabyte), and a rebuild kept by each game that was read would undo that
/// for every game ever watched or exported. (Keeping only the export's encoded bytes in the
/// game would serve the export alone, and still grow with every game exported.) The reads that
/// need a rebuild come together on a few games: the watchers of a match that has just ended
/// catching up, a client exporting a game or retrying its last action, an archive reading each
/// game once. A few recent games serve them, in a memory bounded whatever the number of
/// finished games. A game bigger than the whole bound is rebuilt for each read, as before.
#[derive(Debug, Default)]
pub struct Rebuilds {
    /// The least recently read first: each game's key (see [`Actor::key`]) and rebuild.
    games: Mutex<VecDeque<(u64, Arc<Rebuilt>)>>,
}

impl Rebuilds {
    /// An empty cache.
    pub fn new() -> Arc<Rebuilds> {
        Arc::new(Rebuilds::default())
    }

    /// The rebuild of the game with this key, if kept; it becomes the most recently read.
    fn get(&self, key: u64) -> Option<Arc<Rebuilt>> {
        let mut games = self.games.lock().expect("not poisoned");
        let at = games.iter().position(|(k, _)| *k == key)?;
        let game = games.remove(at)?;
        let rebuilt = game.1.clone();
        games.push_back(game);
        Some(rebuilt)
    }

    /// Keeps a rebuild, dropping the least recently read ones beyond the bounds.
    fn put(&self, key: u64, rebuilt: Arc<Rebuilt>) {
        if rebuilt.log.len() > REBUILT_EVENTS {
            return;
        }
        let mut games = self.games.lock().expect("not poisoned");
        games.retain(|(k, _)| *k != key);
        games.push_back((key, rebuilt));
        let mut events: usize = games.iter().map(|(_, r)| r.log.len()).sum();
        while games.len() > REBUILT_GAMES || events > REBUILT_EVENTS {
            let Some((_, old)) = games.pop_front() else {
                break;
            };
            events -= old.log.len();
        }
    }

    /// The number of games kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.games.lock().expect("not poisoned").len()
    }
}

/// Tells actors apart in the [`Rebuilds`] cache (game ids are not enough: tests and a restart
/// make actors of the same id).
static NEXT_KEY: AtomicU64 = AtomicU64::new(0);

/// The actor's state.
pub struct Actor {
    id: String,
    created_ms: i64,
    request: v1::CreateGameRequest,
    setup: Setup,
    game: Game,
    /// The first deal's events, logged when the game starts and never before: its DealStarted
    /// carries the hands (each stream shows its seat's own), and a seat of a waiting game may
    /// be joined and left by anyone.
    opening: Vec<Event>,
    status: Status,
    seats: Vec<SeatSlot>,
    /// The seq of the last event: the length of `log` while the game keeps it.
    seq: u64,
    /// Every event; empty once the finished game is compacted (see [`Actor::compact`]).
    log: Vec<Arc<LogEvent>>,
    /// Every action played, by seat; empty once the finished game is compacted.
    record: Vec<(Seat, Action)>,
    /// Every entry of the log as stored (`Entry::encode_length_delimited`), in order: all a
    /// finished game keeps of its log, from which [`Actor::rebuilt`] rebuilds the rest.
    entry_log: Vec<u8>,
    /// True once the finished game has dropped its log, record and requests.
    compacted: bool,
    /// Once compacted: the keys ([`request_key`]) of its remembered requests' seats and ids,
    /// sorted, to tell a retry without a replay (8 bytes a request, at most
    /// [`REMEMBERED_REQUESTS`] a seat).
    retry_keys: Box<[u64]>,
    /// The server's cache of rebuilt finished games, if it has one.
    rebuilds: Option<Arc<Rebuilds>>,
    /// This actor's key in `rebuilds`.
    key: u64,
    /// The registry's index of games by status, and this game's place in it: kept current by
    /// [`Actor::refresh_summary`].
    listed: Option<(Arc<StatusIndex>, usize)>,
    entries: u64,
    /// Applied requests by (seat, request id): the seqs of their events, and the fingerprint
    /// of their action (a retry must repeat the action).
    requests: HashMap<(u32, String), AppliedRequest>,
    request_order: VecDeque<(u32, String)>,
    forfeited: Option<Side>,
    /// How the match ended when no side won it: abandoned (see [`ABANDON_AFTER`] and
    /// [`EndCause`]), expired or cancelled.
    ended: Option<v1::MatchEndKind>,
    /// True once the game has started (its GameStarted is logged): a game that ends before
    /// shows nothing of its deal, as while it waited.
    started: bool,
    /// The creator token, which cancels the game while it waits; none for a game created
    /// before there were creator tokens.
    creator: Option<Token>,
    /// The times the log holds of the players' activity (see [`Stamps`]).
    stamps: Stamps,
    /// When the game last saw a player's activity (its creation, a join, a leave, an action):
    /// the policies for games nobody plays count from it.
    activity: Activity,
    /// When the game is to end because nobody plays it, and why, if a policy applies to it
    /// now (see [`Actor::end_deadline`]).
    end_deadline: Option<(tokio::time::Instant, EndCause)>,
    budget: Option<Duration>,
    policy: v1::TimeoutPolicy,
    /// When the seat to act runs out of time: on tokio's clock, which tests pause.
    deadline: Option<tokio::time::Instant>,
    /// Each seat's time-outs since the last action of any seat, rebuilt from the log.
    timeouts_in_a_row: Vec<u32>,
    /// The time-outs' log lines, at most one a minute (see [`LineLimit`]).
    timeout_lines: LineLimit,
    /// The failed stores of time-outs' log lines, at most one a minute.
    failure_lines: LineLimit,
    /// The live feed, only while someone watches: its buffer holds `watch_buffer` slots, far
    /// more than an idle game should cost.
    live: Option<broadcast::Sender<Item>>,
    watchers: Arc<Watchers>,
    summary: Arc<Mutex<v1::GameSummary>>,
    /// The fingerprints of the seats' tokens, for the service (see [`SeatIds`]).
    seat_ids: Arc<SeatIds>,
    /// The game's place among the unfinished ones (`--max-games`), given up when it finishes.
    slot: Option<GameSlot>,
    store: Store,
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
        let tc = request.time_control.unwrap_or_default();
        // A new game's budget was checked against the bounds ([`check_time_control`]); a
        // stored one made under other bounds (or before there were any) runs at the nearest.
        let bounds = config.move_budgets();
        let budget = (tc.move_budget_ms > 0).then(|| {
            Duration::from_millis(tc.move_budget_ms).clamp(*bounds.start(), *bounds.end())
        });
        let policy =
            v1::TimeoutPolicy::try_from(tc.policy).unwrap_or(v1::TimeoutPolicy::Unspecified);
        if budget.is_some() && policy == v1::TimeoutPolicy::Unspecified {
            return Err(ApiError::invalid(
                Reason::InvalidEnum,
                "time_control.policy",
                "a move budget needs a policy: TIMEOUT_POLICY_FALLBACK_MOVE or TIMEOUT_POLICY_FORFEIT",
            ));
        }
        let players = game.rules().players as usize;
        let actor = Actor {
            id,
            created_ms,
            request,
            setup,
            game,
            opening,
            status: Status::Waiting,
            seats: vec![SeatSlot::default(); players],
            seq: 0,
            log: Vec::new(),
            record: Vec::new(),
            entry_log: Vec::new(),
            compacted: false,
            retry_keys: Box::default(),
            rebuilds: None,
            key: NEXT_KEY.fetch_add(1, Ordering::Relaxed),
            listed: None,
            entries: 0,
            requests: HashMap::new(),
            request_order: VecDeque::new(),
            forfeited: None,
            ended: None,
            started: false,
            creator: None,
            stamps: Stamps::default(),
            activity: Activity::now(),
            end_deadline: None,
            budget,
            policy,
            deadline: None,
            timeouts_in_a_row: vec![0; players],
            timeout_lines: LineLimit::default(),
            failure_lines: LineLimit::default(),
            live: None,
            watchers: Arc::new(Watchers::default()),
            summary: Arc::new(Mutex::new(v1::GameSummary::default())),
            seat_ids: Arc::new(SeatIds::default()),
            slot: None,
            store,
            config,
            metrics,
        };
        actor.refresh_summary();
        Ok(actor)
    }

    /// Makes the new game's first entry, which holds its creator token, and applies it.
    /// Returns the entry's encoding, for the store to write with the game (see
    /// [`Store::create_game_with`]): the game is stored with its creator or not at all.
    pub fn created(&mut self, creator: &Token) -> Result<Vec<u8>, ApiError> {
        let entry = Entry {
            kind: Some(EntryKind::Created(CreatedEntry {
                creator_token: creator.as_str().to_string(),
            })),
            at_ms: self.created_ms,
        };
        entry
            .encode_length_delimited(&mut self.entry_log)
            .expect("a Vec grows as needed");
        let body = self.entry_log.len() - entry.encoded_len();
        self.apply_entry(&entry)?;
        self.entries += 1;
        self.restart_clock();
        Ok(self.entry_log[body..].to_vec())
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

    /// Applies stored entries again, as on restart. A game they finish is compacted; one
    /// they leave unfinished counts its policies' time from its last activity as the log
    /// tells it (see [`Stamps::last_activity_ms`]).
    pub fn replay(&mut self, entries: &[Entry]) -> Result<(), ApiError> {
        self.replay_at(entries, now_ms())
    }

    /// [`Actor::replay`], at the wall-clock time `now_ms`.
    fn replay_at(&mut self, entries: &[Entry], now_ms: i64) -> Result<(), ApiError> {
        self.apply_all(entries)?;
        for entry in entries {
            entry
                .encode_length_delimited(&mut self.entry_log)
                .expect("a Vec grows as needed");
        }
        self.activity = match self.stamps.last_activity_ms(self.created_ms) {
            // Time the server was down counts as time without activity: a policy is a time
            // since the last activity, so a game ends as the policy says, never earlier, and a
            // server restarted more often than a timeout still ends the games nobody plays.
            Some(at) => Activity::since(now_ms.saturating_sub(at)),
            // A log written before the times were stored: counted from the restart, which
            // ends the game later than the policy says, never earlier.
            None => Activity::now(),
        };
        self.refresh_summary();
        self.restart_clock();
        self.compact();
        Ok(())
    }

    /// Applies entries in order: what a restart and a rebuild of a finished game share.
    fn apply_all(&mut self, entries: &[Entry]) -> Result<(), ApiError> {
        for entry in entries {
            self.apply_entry(entry)?;
            self.entries += 1;
        }
        Ok(())
    }

    /// Drops what only a running game needs, once the game is finished: the events, the
    /// record, the applied requests (all rebuilt from `entry_log` when asked for, see
    /// [`Actor::rebuilt`]) and the live feed. A finished game is kept for as long as the
    /// server runs; these grow with every action, to most of a megabyte for a match.
    fn compact(&mut self) {
        if self.status != Status::Finished || self.compacted {
            return;
        }
        self.compacted = true;
        let mut keys: Vec<u64> = self
            .requests
            .keys()
            .map(|(seat, id)| request_key(*seat, id))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        self.retry_keys = keys.into_boxed_slice();
        self.log = Vec::new();
        self.record = Vec::new();
        self.requests = HashMap::new();
        self.request_order = VecDeque::new();
        self.opening = Vec::new();
        self.entry_log.shrink_to_fit();
        // Every event is in the feed already and nothing follows MatchEnded: its streams end
        // there, and the feed's buffer (`--watch-buffer` slots, holding the game's last
        // events and prompts) goes with the last of them instead of staying with the game.
        self.live = None;
    }

    /// True if the compacted game may hold a retry of this seat's request id: it remembered a
    /// request of the seat with that id when it was compacted.
    fn may_retry(&self, seat: Seat, request_id: &str) -> bool {
        self.retry_keys
            .binary_search(&request_key(seat.0 as u32, request_id))
            .is_ok()
    }

    /// What the finished game dropped in [`Actor::compact`], rebuilt: from the server's cache
    /// if it kept it, or replayed (then kept there, see [`Rebuilds`]).
    fn rebuilt(&self) -> Result<Arc<Rebuilt>, ApiError> {
        if let Some(rebuilt) = self.rebuilds.as_ref().and_then(|r| r.get(self.key)) {
            return Ok(rebuilt);
        }
        let fresh = self.replayed()?;
        let record = fresh.export()?;
        let rebuilt = Arc::new(Rebuilt {
            log: fresh.log,
            requests: fresh.requests,
            record,
        });
        if let Some(rebuilds) = &self.rebuilds {
            rebuilds.put(self.key, rebuilt.clone());
        }
        Ok(rebuilt)
    }

    /// The finished game whole, as it was before [`Actor::compact`]: its entries replayed
    /// into a fresh actor through the code a restart uses ([`Actor::new`], then the entries
    /// applied in order), so its events, seqs, record and requests are those of the game
    /// played.
    fn replayed(&self) -> Result<Actor, ApiError> {
        self.metrics.game_rebuilt();
        let bad = |why: String| {
            ApiError::new(
                Code::Internal,
                Reason::BadLog,
                format!("game {}'s log does not rebuild: {why}", self.id),
            )
        };
        let mut entries = Vec::with_capacity(self.entries as usize);
        let mut bytes = self.entry_log.as_slice();
        while !bytes.is_empty() {
            entries
                .push(Entry::decode_length_delimited(&mut bytes).map_err(|e| bad(e.to_string()))?);
        }
        let mut fresh = Actor::new(
            self.id.clone(),
            self.created_ms,
            self.request.clone(),
            // Nothing is stored: the rebuilt actor only answers.
            Store::memory(),
            self.config.clone(),
            self.metrics.clone(),
        )?;
        fresh.apply_all(&entries)?;
        // A rebuild that does not end where the game did must not answer for it.
        if fresh.entries != self.entries || fresh.seq != self.seq || fresh.status != self.status {
            return Err(bad(format!(
                "{} entries and seq {} rebuilt, {} and {} played",
                fresh.entries, fresh.seq, self.entries, self.seq
            )));
        }
        Ok(fresh)
    }

    /// Starts the actor's task and returns its handle.
    pub fn spawn(self) -> GameHandle {
        let (tx, rx) = mpsc::channel(64);
        let handle = GameHandle {
            id: self.id.clone(),
            created_ms: self.created_ms,
            summary: self.summary.clone(),
            seats: self.seat_ids.clone(),
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
        match (self.deadline, self.end_deadline) {
            (Some(a), Some((b, _))) => Some(a.min(b)),
            (a, b) => a.or(b.map(|(at, _)| at)),
        }
    }

    /// Acts on the deadline that has passed: the move's time-out first.
    async fn deadline_passed(&mut self) {
        let now = tokio::time::Instant::now();
        if self.deadline.is_some_and(|d| d <= now) {
            self.time_out().await;
        } else if self.end_deadline.is_some_and(|(d, _)| d <= now) {
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
                let _ = reply.send(Ok(v1::GetScoresResponse {
                    deals: self.game.history().iter().map(deal_score_to_wire).collect(),
                    result: self.shown_result(),
                }));
            }
            Command::Export { reply } => {
                let _ = reply.send(self.export());
            }
            Command::Cancel { token, reply } => {
                let _ = reply.send(self.cancel(&token).await);
            }
        }
    }

    // ----- the log -----

    fn seq(&self) -> u64 {
        self.seq
    }

    fn push(&mut self, kind: LogKind) {
        self.seq += 1;
        let event = Arc::new(LogEvent {
            seq: self.seq,
            kind,
        });
        self.log.push(event.clone());
        self.broadcast(Item::Event(event));
    }

    /// Sends to the watchers; frees the feed once the last one has gone.
    fn broadcast(&mut self, item: Item) {
        if let Some(live) = &self.live
            && live.send(item).is_err()
        {
            self.live = None;
        }
    }

    /// Stores a live entry, then applies it.
    async fn commit(&mut self, mut entry: Entry) -> Result<(), ApiError> {
        let active = entry.kind.as_ref().is_some_and(is_activity);
        if active {
            // Joins and leaves are few: each carries its time. Actions are many: one a
            // minute does (see STAMP_EVERY).
            let now = now_ms();
            let action = matches!(entry.kind, Some(EntryKind::Act(_)));
            if !action || self.stamps.due(now) {
                entry.at_ms = now;
            }
        }
        // Encoded once, into the compact log; storage gets the same bytes. An entry that is
        // not stored is taken out again: the compact log is the stored one.
        let start = self.entry_log.len();
        entry
            .encode_length_delimited(&mut self.entry_log)
            .expect("a Vec grows as needed");
        let body = self.entry_log.len() - entry.encoded_len();
        let stored = self
            .store
            .append_encoded(&self.id, self.entries, &self.entry_log[body..])
            .await;
        if let Err(e) = stored {
            self.entry_log.truncate(start);
            return Err(ApiError::new(
                Code::Unavailable,
                Reason::StorageFailed,
                format!("{e}: the action was not applied; retry later"),
            ));
        }
        self.entries += 1;
        self.apply_entry(&entry)?;
        if active {
            self.activity = Activity::now();
        }
        self.refresh_summary();
        self.restart_clock();
        self.prompt_to_act();
        Ok(())
    }

    /// Applies one entry of the log to the state (live or on replay): the one place where the
    /// game changes.
    fn apply_entry(&mut self, entry: &Entry) -> Result<(), ApiError> {
        let kind = entry
            .kind
            .as_ref()
            .ok_or_else(|| ApiError::new(Code::Internal, Reason::BadLog, "an empty log entry"))?;
        if is_activity(kind) {
            self.stamps.note(entry.at_ms);
        }
        match kind {
            EntryKind::Created(c) => {
                self.creator = Some(Token::from_stored(c.creator_token.clone()));
            }
            EntryKind::End(e) => {
                let cause = EndCause::try_from(e.cause)
                    .ok()
                    .filter(|c| *c != EndCause::Unspecified)
                    .ok_or_else(|| {
                        ApiError::new(
                            Code::Internal,
                            Reason::BadLog,
                            format!("an end of unknown cause {}", e.cause),
                        )
                    })?;
                if self.status == Status::Finished {
                    return Err(ApiError::new(
                        Code::Internal,
                        Reason::BadLog,
                        "an end after the end of the match",
                    ));
                }
                self.ended = Some(cause.end_kind());
                self.finish();
                let result = self.result();
                self.push(LogKind::Server(v1::game_event::Kind::MatchEnded(
                    v1::MatchEnded {
                        result: Some(result),
                    },
                )));
            }
            EntryKind::Join(j) => {
                let slot = &mut self.seats[j.seat as usize];
                let token = Token::from_stored(j.token.clone());
                self.seat_ids.set(j.seat as usize, Some(&token));
                slot.token = Some(token);
                slot.name = j.name.clone();
                self.push(LogKind::Server(v1::game_event::Kind::SeatJoined(
                    v1::SeatJoined {
                        seat: j.seat,
                        display_name: j.name.clone(),
                    },
                )));
                if self.status == Status::Waiting && self.seats.iter().all(|s| s.token.is_some()) {
                    self.status = Status::Playing;
                    self.started = true;
                    self.push(LogKind::Server(v1::game_event::Kind::GameStarted(
                        v1::GameStarted {},
                    )));
                    for e in std::mem::take(&mut self.opening) {
                        self.push(LogKind::Engine(e));
                    }
                }
            }
            EntryKind::Leave(l) => {
                let slot = &mut self.seats[l.seat as usize];
                slot.token = None;
                self.seat_ids.set(l.seat as usize, None);
                // The name is the holder's: a free seat has none.
                slot.name.clear();
                // The seat's next holder chooses request ids afresh: none of this holder's
                // requests may be answered to it as a retry.
                self.requests.retain(|(seat, _), _| *seat != l.seat);
                self.request_order.retain(|(seat, _)| *seat != l.seat);
                self.push(LogKind::Server(v1::game_event::Kind::SeatLeft(
                    v1::SeatLeft { seat: l.seat },
                )));
            }
            EntryKind::Act(a) => {
                let action = action_from_wire(a.action.as_ref().unwrap_or(&v1::Action::default()))?;
                let first = self.seq() + 1;
                let fingerprint = action_fingerprint(&action);
                self.play(Seat(a.seat as u8), action)?;
                // Someone plays: the count towards abandoning the match starts again.
                self.timeouts_in_a_row.fill(0);
                let applied = AppliedRequest {
                    first,
                    last: self.seq(),
                    action: fingerprint,
                };
                self.remember(a.seat, a.request_id.clone(), applied);
            }
            EntryKind::Timeout(t) => {
                self.push(LogKind::Server(v1::game_event::Kind::TimedOut(
                    v1::TimedOut {
                        seat: t.seat,
                        // An abandoning time-out is one of the fallback policy's.
                        policy: if t.action.is_some() || t.abandoned {
                            v1::TimeoutPolicy::FallbackMove
                        } else {
                            v1::TimeoutPolicy::Forfeit
                        } as i32,
                    },
                )));
                if let Some(n) = self.timeouts_in_a_row.get_mut(t.seat as usize) {
                    *n = n.saturating_add(1);
                }
                match &t.action {
                    Some(a) => self.play(Seat(t.seat as u8), action_from_wire(a)?)?,
                    // Decided when the time-out was stored, not counted again here: the log
                    // says where the match ended, whatever ABANDON_AFTER is when it replays.
                    None if t.abandoned => {
                        self.ended = Some(v1::MatchEndKind::Abandoned);
                        self.finish();
                        let result = self.result();
                        self.push(LogKind::Server(v1::game_event::Kind::MatchEnded(
                            v1::MatchEnded {
                                result: Some(result),
                            },
                        )));
                    }
                    None => {
                        let side = self.game.table().side_of(Seat(t.seat as u8));
                        self.forfeited = Some(side);
                        self.finish();
                        let result = self.result();
                        self.push(LogKind::Server(v1::game_event::Kind::MatchEnded(
                            v1::MatchEnded {
                                result: Some(result),
                            },
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    fn play(&mut self, seat: Seat, action: Action) -> Result<(), ApiError> {
        let events = self.game.apply(seat, &action)?;
        self.record.push((seat, action));
        for e in events {
            self.push(LogKind::Engine(e));
        }
        if self.game.phase() == Phase::Over {
            self.finish();
        }
        Ok(())
    }

    /// The match is over: the game leaves the unfinished ones.
    fn finish(&mut self) {
        self.status = Status::Finished;
        self.slot = None;
    }

    fn remember(&mut self, seat: u32, request_id: String, applied: AppliedRequest) {
        if request_id.is_empty() {
            return;
        }
        let key = (seat, request_id);
        self.requests.insert(key.clone(), applied);
        self.request_order.push_back(key);
        if self.request_order.len() > REMEMBERED_REQUESTS * self.seats.len()
            && let Some(old) = self.request_order.pop_front()
        {
            self.requests.remove(&old);
        }
    }

    // ----- seats -----

    fn seat_of(&self, token: &Token) -> Result<Seat, ApiError> {
        self.seats
            .iter()
            .position(|s| s.token.as_ref().is_some_and(|t| t.matches(token)))
            .map(|i| Seat(i as u8))
            .ok_or_else(|| {
                ApiError::new(
                    Code::PermissionDenied,
                    Reason::NotASeatOfGame,
                    format!(
                        "this token holds no seat of game {}: use the token JoinGame returned for this game",
                        self.id
                    ),
                )
            })
    }

    fn viewer(&self, token: Option<&Token>) -> Result<Viewer, ApiError> {
        match token {
            None => Ok(Viewer::Spectator),
            Some(t) => self.seat_of(t).map(Viewer::Seat),
        }
    }

    async fn join(
        &mut self,
        seat: Option<u32>,
        name: String,
    ) -> Result<v1::JoinGameResponse, ApiError> {
        // The seat first: a seat that does not exist is said so, whatever the name.
        if let Some(s) = seat.filter(|&s| s as usize >= self.seats.len()) {
            return Err(ApiError::invalid(
                Reason::InvalidSeat,
                "seat",
                format!(
                    "seat {s} does not exist: the seats of this game are 0 to {} (or leave the \
                     seat unset for the lowest free one)",
                    self.seats.len() - 1
                ),
            ));
        }
        let name = crate::names::display_name(&name)?;
        if self.status == Status::Finished {
            return Err(ApiError::new(
                Code::FailedPrecondition,
                Reason::GameFinished,
                "the game is over: create a new one",
            ));
        }
        let seat = match seat {
            Some(s) if self.seats[s as usize].token.is_some() => {
                return Err(ApiError::new(
                    Code::FailedPrecondition,
                    Reason::SeatTaken,
                    format!(
                        "seat {s} is taken: join another seat, or leave the seat unset for a free one"
                    ),
                ));
            }
            Some(s) => s,
            None => self
                .seats
                .iter()
                .position(|s| s.token.is_none())
                .ok_or_else(|| {
                    ApiError::new(
                        Code::FailedPrecondition,
                        Reason::GameFull,
                        "every seat is taken: watch the game as a spectator, or create another",
                    )
                })? as u32,
        };
        let token = Token::generate();
        let entry = Entry::of(EntryKind::Join(JoinEntry {
            seat,
            name,
            token: token.as_str().to_string(),
        }));
        self.commit(entry).await?;
        Ok(v1::JoinGameResponse {
            seat,
            token: token.as_str().to_string(),
            game: Some(self.summary.lock().expect("not poisoned").clone()),
        })
    }

    async fn leave(&mut self, token: &Token) -> Result<(), ApiError> {
        let seat = self.seat_of(token)?;
        if self.status == Status::Finished {
            // The log ends with MatchEnded; there is no seat to give up any more.
            return Err(ApiError::new(
                Code::FailedPrecondition,
                Reason::GameFinished,
                "the match is over: there is nothing to leave",
            ));
        }
        let entry = Entry::of(EntryKind::Leave(LeaveEntry {
            seat: seat.0 as u32,
        }));
        self.commit(entry).await
    }

    // ----- acting -----

    fn playing(&self) -> Result<(), ApiError> {
        match self.status {
            Status::Playing => Ok(()),
            Status::Waiting => Err(ApiError::new(
                Code::FailedPrecondition,
                Reason::GameNotStarted,
                "the game starts when every seat is taken: wait for the GameStarted event",
            )),
            Status::Finished => Err(ApiError::new(
                Code::FailedPrecondition,
                Reason::GameFinished,
                "the match is over: no more actions",
            )),
        }
    }

    async fn submit(
        &mut self,
        token: &Token,
        expected_seq: u64,
        request_id: String,
        action: &v1::Action,
        with_events: bool,
    ) -> Result<v1::SubmitActionResponse, ApiError> {
        let seat = self.seat_of(token)?;
        if request_id.is_empty() || request_id.len() > 64 {
            return Err(ApiError::invalid(
                Reason::BadRequestId,
                "request_id",
                "request_id must have 1 to 64 characters: a fresh one per action, the same one when retrying",
            ));
        }
        // A finished game has dropped its requests and events: they are rebuilt to answer a
        // retry. Only a request id the seat's remembered requests had can be one (the game
        // keeps an index of them), so any other action is refused without the replay, which
        // a client could otherwise make the server do for every request.
        let retry = match self.compacted {
            true if self.may_retry(seat, &request_id) => {
                let rebuilt = self.rebuilt()?;
                Self::retry(
                    &rebuilt.requests,
                    &rebuilt.log,
                    seat,
                    &request_id,
                    action,
                    with_events,
                )
            }
            true => None,
            false => Self::retry(
                &self.requests,
                &self.log,
                seat,
                &request_id,
                action,
                with_events,
            ),
        };
        if let Some(answer) = retry {
            return answer;
        }
        self.playing()?;
        let engine_action = action_from_wire(action)?;
        if expected_seq != self.seq() {
            return Err(ApiError::new(
                Code::Aborted,
                Reason::StaleSeq,
                format!(
                    "the game is at seq {}, not {expected_seq}: read the events you missed (WatchGame after your seq) and decide again",
                    self.seq()
                ),
            )
            .with("seq", self.seq()));
        }
        self.game.check(seat, &engine_action)?;
        let first = self.seq() + 1;
        let entry = Entry::of(EntryKind::Act(ActEntry {
            seat: seat.0 as u32,
            request_id,
            action: Some(action_to_wire(&engine_action)),
        }));
        self.commit(entry).await?;
        Ok(Self::response(
            &self.log,
            seat,
            first,
            self.seq(),
            with_events,
        ))
    }

    /// The answer to a retry of an applied request (the same seat and request id), as the
    /// first time; `None` if the request is not a remembered one.
    fn retry(
        requests: &HashMap<(u32, String), AppliedRequest>,
        log: &[Arc<LogEvent>],
        seat: Seat,
        request_id: &str,
        action: &v1::Action,
        with_events: bool,
    ) -> Option<Result<v1::SubmitActionResponse, ApiError>> {
        let applied = *requests.get(&(seat.0 as u32, request_id.to_string()))?;
        // The same id with another action is a client's mistake that must not pass for a
        // success.
        let same = action_from_wire(action).is_ok_and(|a| action_fingerprint(&a) == applied.action);
        if !same {
            return Some(Err(ApiError::invalid(
                Reason::RequestIdReused,
                "request_id",
                format!(
                    "request id {request_id:?} was used for another action, applied at seq {}: \
                     send a fresh request id for each new action (the same id only to retry \
                     the very same action)",
                    applied.last
                ),
            )));
        }
        Some(Ok(Self::response(
            log,
            seat,
            applied.first,
            applied.last,
            with_events,
        )))
    }

    /// The answer to an applied request whose events are `first..=last` of `log` (on a
    /// compacted game, the rebuilt log).
    fn response(
        log: &[Arc<LogEvent>],
        seat: Seat,
        first: u64,
        last: u64,
        with_events: bool,
    ) -> v1::SubmitActionResponse {
        let events = match with_events {
            true => log[(first - 1) as usize..last as usize]
                .iter()
                .map(|e| e.to_wire(Viewer::Seat(seat)))
                .collect(),
            false => Vec::new(),
        };
        // `last`, not the current seq: a retry is answered exactly as the first time, even
        // after later actions.
        v1::SubmitActionResponse { seq: last, events }
    }

    fn check(&self, token: &Token, action: &v1::Action) -> Result<Result<(), RuleError>, ApiError> {
        let seat = self.seat_of(token)?;
        self.playing()?;
        let action = action_from_wire(action)?;
        Ok(self.game.check(seat, &action))
    }

    // ----- time control -----

    fn restart_clock(&mut self) {
        self.deadline = match (self.status, self.budget) {
            // The budget is at most a year (`--max-move-budget-ms`): the sum does not overflow.
            (Status::Playing, Some(b)) => Some(tokio::time::Instant::now() + b),
            _ => None,
        };
        self.end_deadline = self.end_deadline();
    }

    // ----- games nobody plays -----

    /// When the game ends if nobody plays it from now on, and why: the first of the policies
    /// that apply to it now, counted from its last activity. A waiting game expires
    /// (`--waiting-timeout-secs`); a started game without a time control is abandoned when
    /// idle (`--idle-timeout-secs`: a game with one ends by its time-outs, see
    /// [`ABANDON_AFTER`]); a started game whose every seat is left is abandoned
    /// (`--left-timeout-secs`).
    fn end_deadline(&self) -> Option<(tokio::time::Instant, EndCause)> {
        let after = |limit: Option<Duration>, cause| limit.map(|l| (self.activity.after(l), cause));
        match self.status {
            Status::Waiting => after(self.config.waiting_timeout(), EndCause::Expired),
            Status::Playing => {
                let idle = match self.budget {
                    None => after(self.config.idle_timeout(), EndCause::Idle),
                    Some(_) => None,
                };
                let left = match self.seats.iter().all(|s| s.token.is_none()) {
                    true => after(self.config.left_timeout(), EndCause::Left),
                    false => None,
                };
                idle.into_iter().chain(left).min()
            }
            Status::Finished => None,
        }
    }

    /// Ends the game nobody plays, as its deadline says (see [`Actor::end_deadline`]).
    async fn end_unplayed(&mut self) {
        let Some((_, cause)) = self.end_deadline.take() else {
            return;
        };
        let now = tokio::time::Instant::now();
        match self.end(cause).await {
            Ok(()) => tracing::info!(
                game = %self.id,
                cause = ?cause,
                "a game nobody plays has ended (see docs/protocol.md, \"Games nobody plays\")"
            ),
            Err(e) => {
                if let Some(unlogged) = self.failure_lines.allow(now) {
                    tracing::error!(
                        game = %self.id,
                        error = %e.message,
                        unlogged,
                        "the end of a game nobody plays could not be stored (at most one line a \
                         minute per game); tried again in a minute"
                    );
                }
                // Try again later rather than spin; an activity meanwhile moves it on.
                self.end_deadline = Some((now + END_RETRY, cause));
            }
        }
    }

    /// Stores and applies the end of the game for `cause`.
    async fn end(&mut self, cause: EndCause) -> Result<(), ApiError> {
        let entry = Entry::of(EntryKind::End(EndEntry {
            cause: cause as i32,
        }));
        self.commit(entry).await?;
        self.metrics.game_ended(cause.end_kind());
        Ok(())
    }

    /// Cancels the waiting game for its creator: the token must be the creator token.
    async fn cancel(&mut self, token: &Token) -> Result<v1::GameSummary, ApiError> {
        if !self.creator.as_ref().is_some_and(|c| c.matches(token)) {
            return Err(ApiError::new(
                Code::PermissionDenied,
                Reason::NotGameCreator,
                match self.creator {
                    Some(_) => format!(
                        "this token is not the creator token of game {}: only the creator_token \
                         CreateGame returned for it cancels it (a seat's token does not)",
                        self.id
                    ),
                    None => format!(
                        "game {} was created before the server gave creator tokens: nobody can \
                         cancel it; it ends by the server's policy for games nobody plays",
                        self.id
                    ),
                },
            ));
        }
        match self.status {
            Status::Waiting => self.end(EndCause::Cancelled).await?,
            Status::Playing => {
                return Err(ApiError::new(
                    Code::FailedPrecondition,
                    Reason::GameStarted,
                    format!(
                        "game {} has started (every seat was taken) and can no longer be \
                         cancelled: only a game waiting for players can; a started match ends \
                         as any match does",
                        self.id
                    ),
                ));
            }
            // A retried cancel is answered as the first was.
            Status::Finished if self.ended == Some(v1::MatchEndKind::Cancelled) => {}
            Status::Finished => {
                return Err(ApiError::new(
                    Code::FailedPrecondition,
                    Reason::GameFinished,
                    format!(
                        "game {} is over already: there is nothing to cancel",
                        self.id
                    ),
                ));
            }
        }
        Ok(self.summary.lock().expect("not poisoned").clone())
    }

    fn time_left(&self) -> Option<u64> {
        self.deadline.map(|d| {
            d.saturating_duration_since(tokio::time::Instant::now())
                .as_millis() as u64
        })
    }

    async fn time_out(&mut self) {
        self.deadline = None;
        let Some(seat) = self
            .game
            .to_act()
            .filter(|_| self.status == Status::Playing)
        else {
            return;
        };
        // This time-out abandons the match if, with it, every seat has timed out
        // ABANDON_AFTER times since the last action of any seat: nobody is playing, and the
        // fallback bot, which never melds, would play on for ever.
        let abandons = self.policy == v1::TimeoutPolicy::FallbackMove
            && self
                .timeouts_in_a_row
                .iter()
                .enumerate()
                .all(|(s, &n)| n.saturating_add(u32::from(s == seat.index())) >= ABANDON_AFTER);
        let action = match self.policy {
            v1::TimeoutPolicy::Forfeit => None,
            _ if abandons => None,
            _ => {
                let view = self.game.view(Viewer::Seat(seat));
                let legal = view.legal().expect("the seat to act sees its choices");
                Some(action_to_wire(&SafeBot::new().choose(&view, &legal)))
            }
        };
        let entry = Entry::of(EntryKind::Timeout(TimeoutEntry {
            seat: seat.0 as u32,
            action,
            abandoned: abandons,
        }));
        let now = tokio::time::Instant::now();
        match self.commit(entry).await {
            Ok(()) => {
                self.metrics.timed_out(abandons);
                if abandons {
                    tracing::info!(
                        game = %self.id,
                        "the match is abandoned: every seat timed out {ABANDON_AFTER} times and none acted"
                    );
                } else if let Some(unlogged) = self.timeout_lines.allow(now) {
                    tracing::info!(
                        game = %self.id,
                        seat = seat.0,
                        unlogged,
                        "a move timed out (at most one line a minute per game; `unlogged` more since the last)"
                    );
                }
            }
            Err(e) => {
                if let Some(unlogged) = self.failure_lines.allow(now) {
                    tracing::error!(
                        game = %self.id,
                        error = %e.message,
                        unlogged,
                        "a time-out could not be stored (at most one line a minute per game)"
                    );
                }
                // Try again after another budget rather than spin.
                self.restart_clock();
            }
        }
    }

    // ----- views and prompts -----

    fn result(&self) -> v1::MatchResult {
        let mut result = result_to_wire(self.game.winner(), self.game.scores());
        if let Some(end) = self.ended {
            // Nobody played (every side ran out of time, or went silent, or left), or the game
            // never started: none wins.
            result = v1::MatchResult {
                finished: true,
                winner_side: None,
                totals: self.game.scores().to_vec(),
                end: end as i32,
                forfeited_side: None,
            };
        }
        if let Some(side) = self.forfeited {
            let scores = self.game.scores();
            let winner = (0..scores.len())
                .filter(|&s| s != side.index())
                .max_by_key(|&s| (scores[s], std::cmp::Reverse(s)))
                .map(|s| s as u32);
            result = v1::MatchResult {
                finished: true,
                winner_side: winner,
                totals: scores.to_vec(),
                end: v1::MatchEndKind::Forfeit as i32,
                forfeited_side: Some(side.0 as u32),
            };
        }
        result
    }

    /// The result as summaries and scores show it: none while the game waits for players
    /// (the match has not begun; views leave it out too, see `convert::view_to_wire`).
    fn shown_result(&self) -> Option<v1::MatchResult> {
        (self.status != Status::Waiting).then(|| self.result())
    }

    fn wire_status(&self) -> v1::GameStatus {
        match self.status {
            Status::Waiting => v1::GameStatus::Waiting,
            Status::Playing => v1::GameStatus::Playing,
            Status::Finished => v1::GameStatus::Finished,
        }
    }

    fn legal_for(&self, seat: Seat, max_actions: usize) -> Option<v1::LegalChoices> {
        if self.status != Status::Playing || self.game.to_act() != Some(seat) {
            return None;
        }
        // The referee's own choices for the seat: the same as its view's, without building one.
        let legal = self.game.legal()?;
        Some(legal_to_wire(&legal, max_actions))
    }

    fn view(
        &self,
        token: Option<&Token>,
        include_actions: bool,
    ) -> Result<v1::GetViewResponse, ApiError> {
        let viewer = self.viewer(token)?;
        let view = self.wire_view(viewer);
        let legal = match viewer {
            Viewer::Seat(s) => {
                let max = if include_actions {
                    self.config.max_prompt_actions
                } else {
                    0
                };
                self.legal_for(s, max)
            }
            _ => None,
        };
        let time_left = legal.as_ref().and(self.time_left());
        Ok(v1::GetViewResponse {
            view: Some(view),
            legal,
            time_left_ms: time_left,
        })
    }

    /// The game on the wire as `viewer` may see it.
    fn wire_view(&self, viewer: Viewer) -> v1::GameView {
        let names: Vec<String> = self.seats.iter().map(|s| s.name.clone()).collect();
        let occupied: Vec<bool> = self.seats.iter().map(|s| s.token.is_some()).collect();
        // A game that ended before it started (expired, cancelled) shows what it showed while
        // it waited: its deal was never played, and nobody sees it.
        let status = match self.started {
            true => self.wire_status(),
            false => v1::GameStatus::Waiting,
        };
        let meta = ViewMeta {
            game_id: &self.id,
            seq: self.seq(),
            status,
            names: &names,
            occupied: &occupied,
            result: self.result(),
        };
        let mut view = convert::view_to_wire(&self.game.view(viewer), &meta);
        if status != self.wire_status() {
            view.status = self.wire_status() as i32;
            view.result = self.shown_result();
        }
        view
    }

    /// The prompt of `seat`, with every part a watcher may ask for.
    fn prompt(&self, seat: Seat) -> Option<Arc<PromptItem>> {
        // The list of actions, like the view, only for streams that asked for it.
        let max_actions = if self.watchers.actions_by_seat[seat.index()].load(Ordering::Relaxed) > 0
        {
            self.config.max_prompt_actions
        } else {
            0
        };
        let mut legal = self.legal_for(seat, max_actions)?;
        let actions = std::mem::take(&mut legal.actions);
        let actions_truncated = std::mem::replace(&mut legal.actions_truncated, false);
        Some(Arc::new(PromptItem {
            prompt: v1::Prompt {
                game_id: self.id.clone(),
                seq: self.seq(),
                seat: seat.0 as u32,
                legal: Some(Box::new(legal)),
                time_left_ms: self.time_left(),
                view: None,
            },
            actions,
            actions_truncated,
            // Building and converting a view costs more than the rest of a prompt: only for
            // streams that asked for it.
            view: (self.watchers.views_by_seat[seat.index()].load(Ordering::Relaxed) > 0)
                .then(|| Box::new(self.wire_view(Viewer::Seat(seat)))),
        }))
    }

    /// Prompts the seat to act, if anyone watches that seat.
    fn prompt_to_act(&mut self) {
        let Some(seat) = self
            .game
            .to_act()
            .filter(|_| self.status == Status::Playing)
        else {
            return;
        };
        if self.watchers.by_seat[seat.index()].load(Ordering::Relaxed) == 0 {
            return;
        }
        if let Some(p) = self.prompt(seat) {
            self.broadcast(Item::Prompt(p));
        }
    }

    fn subscribe(
        &mut self,
        token: Option<&Token>,
        after_seq: u64,
        include_actions: bool,
        include_view: bool,
    ) -> Result<Subscription, ApiError> {
        let viewer = self.viewer(token)?;
        // Spectators have a limit per game; a seat's own streams are limited per token (by the
        // service) only, so that spectators can never lock a player out of its game.
        if !matches!(viewer, Viewer::Seat(_)) {
            let spectators = self.watchers.spectators.load(Ordering::Relaxed);
            if spectators >= self.config.max_spectators_per_game {
                return Err(ApiError::exhausted(
                    Reason::TooManyWatchers,
                    format!(
                        "game {} has {spectators} spectator streams, the most allowed: close one, or retry later",
                        self.id
                    ),
                    Duration::from_secs(5),
                ));
            }
        }
        if after_seq > self.seq() {
            return Err(ApiError::invalid(
                Reason::BadSeq,
                "after_seq",
                format!("the game is at seq {}, before {after_seq}", self.seq()),
            ));
        }
        // Before the stream is counted: a rebuild that fails leaves no count behind.
        let backlog = if !self.compacted {
            self.log[after_seq as usize..].to_vec()
        } else if after_seq == self.seq() {
            Vec::new()
        } else {
            self.rebuilt()?.log[after_seq as usize..].to_vec()
        };
        let seat = match viewer {
            Viewer::Seat(s) => {
                self.watchers.by_seat[s.index()].fetch_add(1, Ordering::Relaxed);
                if include_view {
                    self.watchers.views_by_seat[s.index()].fetch_add(1, Ordering::Relaxed);
                }
                if include_actions {
                    self.watchers.actions_by_seat[s.index()].fetch_add(1, Ordering::Relaxed);
                }
                Some(s.index())
            }
            _ => {
                self.watchers.spectators.fetch_add(1, Ordering::Relaxed);
                None
            }
        };
        let guard = WatchGuard {
            watchers: self.watchers.clone(),
            seat,
            view: include_view && seat.is_some(),
            actions: include_actions && seat.is_some(),
        };
        let live = match self.status {
            // Nothing follows a finished game's backlog (it ends with MatchEnded, where the
            // stream stops): a closed feed of one slot rather than a game's feed, whose buffer
            // would stay with the game.
            Status::Finished => broadcast::channel(1).1,
            _ => self
                .live
                .get_or_insert_with(|| broadcast::channel(self.config.watch_buffer.max(16)).0)
                .subscribe(),
        };
        Ok(Subscription {
            viewer,
            backlog,
            live,
            prompt: seat.and_then(|s| self.prompt(Seat(s as u8))),
            after_seq,
            finished: self.status == Status::Finished,
            guard,
        })
    }

    fn refresh_summary(&self) {
        let table = self.game.table();
        let summary = v1::GameSummary {
            game_id: self.id.clone(),
            rules: self.request.rules.clone(),
            status: self.wire_status() as i32,
            seats: self
                .seats
                .iter()
                .enumerate()
                .map(|(i, s)| v1::SeatInfo {
                    seat: i as u32,
                    side: table.side_of(Seat(i as u8)).0 as u32,
                    occupied: s.token.is_some(),
                    display_name: s.name.clone(),
                })
                .collect(),
            seq: self.seq(),
            time_control: self.request.time_control,
            result: self.shown_result(),
            created_unix_ms: self.created_ms,
        };
        let now = summary.status;
        // The summary's lock is released before the index is taken: a listing holds the
        // index while it reads summaries.
        let was = std::mem::replace(&mut *self.summary.lock().expect("not poisoned"), summary);
        if was.status != now
            && let Some((index, place)) = &self.listed
        {
            index.moved(
                *place,
                v1::GameStatus::try_from(was.status).ok(),
                self.wire_status(),
            );
        }
    }

    fn export(&self) -> Result<v1::GameRecord, ApiError> {
        if self.status != Status::Finished {
            return Err(ApiError::new(
                Code::FailedPrecondition,
                Reason::GameNotFinished,
                "only a finished game can be exported: watch it to the end first",
            ));
        }
        if self.compacted {
            // The record was dropped with the log: the rebuilt game exports the same.
            return Ok(self.rebuilt()?.record.clone());
        }
        Ok(v1::GameRecord {
            game_id: self.id.clone(),
            rules: self.request.rules.clone(),
            seed: self.setup.seed,
            card_orders: self.request.card_orders.clone(),
            first_dealer: self.request.first_dealer,
            start_scores: self.request.start_scores.clone(),
            display_names: self.seats.iter().map(|s| s.name.clone()).collect(),
            actions: self
                .record
                .iter()
                .map(|(seat, a)| v1::RecordedAction {
                    seat: seat.0 as u32,
                    action: Some(action_to_wire(a)),
                })
                .collect(),
            result: Some(self.result()),
        })
    }

    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        self.game.rules()
    }
}

/// Until `deadline`; for ever if there is none.
#[cfg(test)]
async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// True for the entries of a player's activity, from which the policies for games nobody plays
/// count: the creation, a join, a leave, an action (a time-out or an end is the server's).
fn is_activity(kind: &EntryKind) -> bool {
    matches!(
        kind,
        EntryKind::Created(_) | EntryKind::Join(_) | EntryKind::Leave(_) | EntryKind::Act(_)
    )
}

/// How often, at most, an action carries the time it was stored ([`Entry::at_ms`]): when it
/// comes this long or longer after the last time stored (the creation, every join and every
/// leave carry theirs). A restart counts the game's last activity from the last time stored,
/// plus this much if actions came after it: at most this much later than it was, never
/// earlier.
pub const STAMP_EVERY: Duration = Duration::from_secs(60);

/// How long the actor waits before it tries again to store the end of a game nobody plays,
/// after storage failed.
const END_RETRY: Duration = Duration::from_secs(60);

/// What a game's log says of the times of its players' activity.
#[derive(Clone, Copy, Debug, Default)]
struct Stamps {
    /// The last time an entry of activity carried, in milliseconds since the epoch.
    last_ms: Option<i64>,
    /// Entries of activity came after it without a time.
    unstamped_after: bool,
    /// The log holds an entry of activity.
    any: bool,
}

impl Stamps {
    /// An entry of activity, with its time or 0.
    fn note(&mut self, at_ms: i64) {
        self.any = true;
        if at_ms > 0 {
            self.last_ms = Some(at_ms);
            self.unstamped_after = false;
        } else {
            self.unstamped_after = true;
        }
    }

    /// True if an action stored at `now_ms` carries its time (see [`STAMP_EVERY`]); a clock
    /// set back stamps again.
    fn due(&self, now_ms: i64) -> bool {
        self.last_ms
            .is_none_or(|last| now_ms < last || now_ms - last >= STAMP_EVERY.as_millis() as i64)
    }

    /// The latest the game's last activity may have been, in milliseconds since the epoch:
    /// the last time stored (plus [`STAMP_EVERY`] if activity followed it), or the creation
    /// of a game with no activity logged; `None` if a log written before the times were
    /// stored does not tell.
    fn last_activity_ms(&self, created_ms: i64) -> Option<i64> {
        match self.last_ms {
            Some(at) if self.unstamped_after => {
                Some(at.saturating_add(STAMP_EVERY.as_millis() as i64))
            }
            Some(at) => Some(at),
            None if !self.any => Some(created_ms),
            None => None,
        }
    }
}

/// When a game last saw a player's activity, on tokio's clock (which tests pause): an instant,
/// and how long before it the activity was (after a restart, from the times the log holds; an
/// instant that far back may be before the clock's start).
#[derive(Clone, Copy, Debug)]
struct Activity {
    at: tokio::time::Instant,
    behind: Duration,
}

impl Activity {
    /// Activity now.
    fn now() -> Activity {
        Activity::since(0)
    }

    /// Activity `ms` milliseconds ago (none if negative: a clock set back).
    fn since(ms: i64) -> Activity {
        Activity {
            at: tokio::time::Instant::now(),
            behind: Duration::from_millis(ms.max(0) as u64),
        }
    }

    /// The instant `limit` after the activity (now, if that has passed).
    fn after(&self, limit: Duration) -> tokio::time::Instant {
        // A limit is at most a year (the flags): the sum does not overflow.
        self.at + limit.saturating_sub(self.behind)
    }
}

/// Time-outs since the last action of any seat after which a match under
/// `TIMEOUT_POLICY_FALLBACK_MOVE` is abandoned, once every seat has had that many: no side
/// wins (`MATCH_END_KIND_ABANDONED`). Logged with the time-out that ends it, so changing it
/// changes no stored game.
pub const ABANDON_AFTER: u32 = 3;

/// A check of a new game's time control against the server's bounds (`--min-move-budget-ms`,
/// `--max-move-budget-ms`); 0, no time control, passes. Games restored from storage are not
/// checked: they run at the nearest bound.
pub fn check_time_control(tc: Option<&v1::TimeControl>, config: &Config) -> Result<(), ApiError> {
    let Some(ms) = tc.map(|tc| tc.move_budget_ms).filter(|&ms| ms > 0) else {
        return Ok(());
    };
    if (config.min_move_budget_ms..=config.max_move_budget_ms).contains(&ms) {
        return Ok(());
    }
    Err(ApiError::invalid(
        Reason::BadTimeControl,
        "time_control.move_budget_ms",
        format!(
            "a move budget of {ms} ms is outside this server's bounds: send 0 (no time control) \
             or {} to {} ms",
            config.min_move_budget_ms, config.max_move_budget_ms
        ),
    ))
}

/// At most one log line a minute for an event a game repeats (its time-outs, the failed
/// stores of them): the first is logged, the next ones within the minute only counted, and the
/// count told in the next line. The metrics count every one.
#[derive(Debug, Default)]
struct LineLimit {
    /// When the last line was logged.
    last: Option<tokio::time::Instant>,
    /// Events since then that were not logged.
    unlogged: u64,
    /// Lines allowed so far, and the events they tell of (themselves and those left out
    /// before them): what the tests check, as the output of a log depends on its subscriber.
    lines: u64,
    told: u64,
}

impl LineLimit {
    /// The least time between two lines.
    const EVERY: Duration = Duration::from_secs(60);

    /// An event at `now`: the number of events not logged since the last line, if this one is
    /// logged.
    fn allow(&mut self, now: tokio::time::Instant) -> Option<u64> {
        match self.last {
            Some(last) if now.saturating_duration_since(last) < Self::EVERY => {
                self.unlogged += 1;
                None
            }
            _ => {
                self.last = Some(now);
                let unlogged = std::mem::take(&mut self.unlogged);
                self.lines += 1;
                self.told += 1 + unlogged;
                Some(unlogged)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canasta_engine::bot::GreedyBot;

    /// A short two-player match with a move budget (for a time-out entry), on memory storage.
    fn actor() -> Actor {
        let request = v1::CreateGameRequest {
            rules: Some(v1::RuleSet {
                preset: v1::Preset::Official as i32,
                player_count: 2,
                options: [("target_score", "1500"), ("canastas_to_go_out", "1")]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            }),
            seed: Some(7),
            time_control: Some(v1::TimeControl {
                move_budget_ms: 60_000,
                policy: v1::TimeoutPolicy::FallbackMove as i32,
            }),
            ..Default::default()
        };
        let config = Arc::new(Config::for_tests());
        let mut actor = Actor::new(
            "g".into(),
            1,
            request,
            Store::memory(),
            config,
            Metrics::new(),
        )
        .expect("a valid game");
        actor.share_rebuilds(Rebuilds::new());
        actor
    }

    async fn join(actor: &mut Actor, seat: u32) -> Token {
        let joined = actor.join(Some(seat), format!("player {seat}")).await;
        Token::from_stored(joined.expect("a free seat").token)
    }

    /// The last action applied: its seat, request id, action and first answer.
    struct Last {
        seat: Seat,
        request_id: String,
        action: v1::Action,
        answer: v1::SubmitActionResponse,
    }

    /// Plays the match to its end with greedy bots, with every kind of entry on the way: joins,
    /// a seat left and taken again, a time-out, actions. Returns the tokens by seat, the last
    /// action, and a spectator's subscription made before the first entry.
    async fn play_to_end(actor: &mut Actor) -> (Vec<Token>, Last, Subscription) {
        let watching = match actor.subscribe(None, 0, false, false) {
            Ok(sub) => sub,
            Err(e) => panic!("a spectator watches: {e:?}"),
        };
        let mut tokens = vec![join(actor, 0).await, join(actor, 1).await];
        let mut bots = [GreedyBot::new(), GreedyBot::new()];
        let mut last = None;
        for n in 0.. {
            if actor.status == Status::Finished {
                break;
            }
            assert!(n < 5000, "the match ends");
            if n == 3 {
                actor.leave(&tokens[1]).await.expect("a seat is left");
                tokens[1] = join(actor, 1).await;
            }
            if n == 6 {
                actor.time_out().await;
                continue;
            }
            let seat = actor.game.to_act().expect("a seat to act");
            let action = {
                let view = actor.game.view(Viewer::Seat(seat));
                let legal = actor.game.legal().expect("choices");
                action_to_wire(&bots[seat.index()].choose(&view, &legal))
            };
            let request_id = format!("r{n}");
            let answer = actor
                .submit(
                    &tokens[seat.index()],
                    actor.seq(),
                    request_id.clone(),
                    &action,
                    true,
                )
                .await
                .expect("the bot's action is applied");
            last = Some(Last {
                seat,
                request_id,
                action,
                answer,
            });
        }
        (tokens, last.expect("actions were played"), watching)
    }

    /// Everything a client can get from a finished game that needs its log: each viewer's
    /// backlog from seq 0 and from the middle, the export, and the answers to a retry of the
    /// last action, to its request id used for another action, and to a new action.
    type Answers = (
        Vec<Vec<v1::GameEvent>>,
        Result<v1::GameRecord, ApiError>,
        Vec<Result<v1::SubmitActionResponse, ApiError>>,
    );

    async fn answers(actor: &mut Actor, tokens: &[Token], last: &Last) -> Answers {
        let mut backlogs = Vec::new();
        let middle = actor.seq() / 2;
        let viewers = tokens.iter().map(Some).chain([None]);
        for (token, after) in viewers.flat_map(|t| [(t, 0), (t, middle)]) {
            let sub = match actor.subscribe(token, after, true, true) {
                Ok(sub) => sub,
                Err(e) => panic!("a watch of a finished game: {e:?}"),
            };
            assert!(sub.finished && sub.prompt.is_none());
            backlogs.push(sub.backlog.iter().map(|e| e.to_wire(sub.viewer)).collect());
        }
        let other = action_to_wire(&Action::DrawStock);
        let token = &tokens[last.seat.index()];
        let mut submits = Vec::new();
        for (id, action, with_events) in [
            (&last.request_id, &last.action, true),
            (&last.request_id, &last.action, false),
            (&last.request_id, &other, true),
            (&"fresh".to_string(), &other, true),
        ] {
            let seq = actor.seq();
            submits.push(
                actor
                    .submit(token, seq, id.clone(), action, with_events)
                    .await,
            );
        }
        (backlogs, actor.export(), submits)
    }

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

    // A finished game drops its log, record, requests and feed, and answers every request
    // that needs them exactly as it did with them: watches from any seq, the export, a retry
    // of its last action (and the refusals of a reused request id and of a new action).
    #[tokio::test]
    async fn a_finished_game_keeps_only_its_compact_log_and_answers_as_before() {
        let mut actor = actor();
        let (tokens, last, mut watching) = play_to_end(&mut actor).await;
        assert_eq!(actor.status, Status::Finished);
        assert!(actor.live.is_some());
        assert!(
            !actor.compacted,
            "compacted by the actor's loop, after the answer"
        );
        let before = answers(&mut actor, &tokens, &last).await;
        let log_bytes = actor.log.len() * size_of::<LogEvent>();
        actor.compact();

        assert!(actor.compacted);
        assert_eq!(actor.log.capacity(), 0);
        assert_eq!(actor.record.capacity(), 0);
        assert_eq!(actor.requests.capacity(), 0);
        assert_eq!(actor.request_order.capacity(), 0);
        assert!(actor.live.is_none());
        assert_eq!(actor.entry_log.len(), actor.entry_log.capacity());
        assert!(
            actor.entry_log.len() < log_bytes,
            "{} bytes kept for {log_bytes}",
            actor.entry_log.len()
        );
        // The feed is dropped: the live stream gets every event, MatchEnded last, then its end.
        let mut seen = 0;
        loop {
            match watching.live.try_recv() {
                Ok(Item::Event(e)) => seen = e.seq,
                Ok(Item::Prompt(_)) => {}
                Err(broadcast::error::TryRecvError::Closed) => break,
                Err(e) => panic!("the live feed: {e:?}"),
            }
        }
        assert_eq!(seen, actor.seq());
        let after = answers(&mut actor, &tokens, &last).await;
        assert_eq!(after, before);
        // What the answers are: the whole log, the retry answered as the first time.
        let (backlogs, record, submits) = after;
        assert_eq!(backlogs[0].len() as u64, actor.seq());
        assert_eq!(backlogs[0].last().map(|e| e.seq), Some(actor.seq()));
        assert!(matches!(
            backlogs[0].last().and_then(|e| e.kind.as_ref()),
            Some(v1::game_event::Kind::MatchEnded(_))
        ));
        let record = record.expect("a finished game exports");
        assert_eq!(
            record.actions.last().and_then(|a| a.action.as_ref()),
            Some(&last.action)
        );
        assert_eq!(submits[0].as_ref(), Ok(&last.answer));
        assert!(!last.answer.events.is_empty());
        assert_eq!(submits[1].as_ref().map(|r| r.seq), Ok(last.answer.seq));
        let reasons: Vec<Option<Reason>> = submits[2..]
            .iter()
            .map(|r| r.as_ref().err().map(|e| e.reason))
            .collect();
        assert_eq!(
            reasons,
            [Some(Reason::RequestIdReused), Some(Reason::GameFinished)]
        );
        // Nothing was kept from the rebuilds, and the watches made no feed.
        assert!(actor.log.is_empty() && actor.record.is_empty() && actor.requests.is_empty());
        assert!(actor.live.is_none());
    }

    // A finished game restored from its stored entries is compacted too, and answers as the
    // game that was played.
    #[tokio::test]
    async fn a_restored_finished_game_is_compacted_and_answers_the_same() {
        let mut played = actor();
        let (tokens, last, _) = play_to_end(&mut played).await;
        played.compact();
        let mut entries = Vec::new();
        let mut bytes = played.entry_log.as_slice();
        while !bytes.is_empty() {
            entries.push(Entry::decode_length_delimited(&mut bytes).expect("an entry"));
        }
        assert_eq!(entries.len() as u64, played.entries);
        let mut restored = actor();
        restored.replay(&entries).expect("the log replays");
        assert!(restored.compacted && restored.log.capacity() == 0);
        assert_eq!(restored.entry_log, played.entry_log);
        assert_eq!(
            answers(&mut restored, &tokens, &last).await,
            answers(&mut played, &tokens, &last).await
        );
    }

    // The service tells a seat's token from any other by the fingerprints the actor keeps:
    // set when a seat is taken, cleared when it is left, restored with the game.
    #[tokio::test]
    async fn the_seats_fingerprints_follow_joins_and_leaves_and_are_restored() {
        let mut actor = actor();
        let seats = actor.seat_ids.clone();
        let first = join(&mut actor, 0).await;
        assert!(seats.holds(first.id()));
        assert!(!seats.holds(Token::generate().id()));
        actor.leave(&first).await.expect("the seat is left");
        assert!(!seats.holds(first.id()));
        let second = join(&mut actor, 0).await;
        let third = join(&mut actor, 1).await;
        assert!(seats.holds(second.id()) && seats.holds(third.id()));
        let mut entries = Vec::new();
        let mut bytes = actor.entry_log.as_slice();
        while !bytes.is_empty() {
            entries.push(Entry::decode_length_delimited(&mut bytes).expect("an entry"));
        }
        let mut restored = super::tests::actor();
        restored.replay(&entries).expect("the log replays");
        let handle = restored.spawn();
        assert!(handle.seats.holds(second.id()) && handle.seats.holds(third.id()));
        assert!(!handle.seats.holds(first.id()));
    }

    // Reads of a finished game are answered from one replay of its log (kept in the server's
    // bounded cache of rebuilt games), not one replay each: many exports, watches from seq 0
    // and from the middle by every viewer, and retries of the last action (it replayed the
    // log for each: 100 times here).
    #[tokio::test]
    async fn many_reads_of_a_finished_game_replay_its_log_once() {
        let mut actor = actor();
        let (tokens, last, _) = play_to_end(&mut actor).await;
        actor.compact();
        let first = answers(&mut actor, &tokens, &last).await;
        for _ in 0..9 {
            assert_eq!(answers(&mut actor, &tokens, &last).await, first);
        }
        assert_eq!(actor.metrics.rebuilds(), 1);
    }

    // Only a request id a seat's remembered request had can be a retry of it: an id that is
    // only somewhere in the stored log's bytes (a prefix of every id, a display name, a part
    // of a token, an action's name, another seat's id) is refused without a replay (each made
    // the game replay its log, to find no request).
    #[tokio::test]
    async fn a_request_id_only_inside_the_log_causes_no_replay() {
        let mut actor = actor();
        let (tokens, last, _) = play_to_end(&mut actor).await;
        actor.compact();
        let other_seat = &tokens[1 - last.seat.index()];
        let token_part = tokens[0].as_str()[..12].to_string();
        let ids = [
            (&tokens[last.seat.index()], "r".to_string()),
            (&tokens[last.seat.index()], "player 1".to_string()),
            (&tokens[last.seat.index()], token_part),
            (other_seat, last.request_id.clone()),
        ];
        for (token, id) in ids {
            assert!(
                actor
                    .entry_log
                    .windows(id.len())
                    .any(|w| w == id.as_bytes()),
                "{id:?} is in the log's bytes"
            );
            let seq = actor.seq();
            let answer = actor
                .submit(token, seq, id.clone(), &last.action, true)
                .await;
            assert_eq!(
                answer.err().map(|e| e.reason),
                Some(Reason::GameFinished),
                "{id:?}"
            );
        }
        assert_eq!(actor.metrics.rebuilds(), 0);
        // The retry itself is still answered as the first time.
        let token = &tokens[last.seat.index()];
        let retried = actor
            .submit(token, 0, last.request_id.clone(), &last.action, true)
            .await;
        assert_eq!(retried, Ok(last.answer));
        assert_eq!(actor.metrics.rebuilds(), 1);
    }

    // The server's rebuilt games stay within their bounds, the least recently read dropped
    // first; a game bigger than the whole bound is not kept.
    #[test]
    fn the_rebuilt_games_kept_are_bounded() {
        let rebuilt = |events: usize| {
            let event = Arc::new(LogEvent {
                seq: 1,
                kind: LogKind::Server(v1::game_event::Kind::GameStarted(v1::GameStarted {})),
            });
            Arc::new(Rebuilt {
                log: vec![event; events],
                requests: HashMap::new(),
                record: v1::GameRecord::default(),
            })
        };
        let rebuilds = Rebuilds::new();
        for key in 0..REBUILT_GAMES as u64 {
            rebuilds.put(key, rebuilt(10));
        }
        assert!(rebuilds.get(0).is_some(), "read: the most recent");
        rebuilds.put(100, rebuilt(10));
        assert_eq!(rebuilds.len(), REBUILT_GAMES);
        assert!(rebuilds.get(1).is_none() && rebuilds.get(0).is_some());
        rebuilds.put(101, rebuilt(REBUILT_EVENTS + 1));
        assert!(rebuilds.get(101).is_none());
        rebuilds.put(102, rebuilt(REBUILT_EVENTS / 2));
        rebuilds.put(103, rebuilt(REBUILT_EVENTS / 2));
        assert_eq!(rebuilds.len(), 2);
        assert!(rebuilds.get(102).is_some() && rebuilds.get(103).is_some());
    }

    // A game's place in the registry's index of statuses follows the game: waiting, playing,
    // finished.
    #[tokio::test]
    async fn the_status_index_follows_the_game() {
        let index = Arc::new(StatusIndex::default());
        let listed = |status| index.places(status);
        let mut started = actor();
        started.list_in(index.clone(), 5);
        assert_eq!(listed(v1::GameStatus::Waiting), [5]);
        join(&mut started, 0).await;
        assert_eq!(listed(v1::GameStatus::Waiting), [5]);
        join(&mut started, 1).await;
        assert!(listed(v1::GameStatus::Waiting).is_empty());
        assert_eq!(listed(v1::GameStatus::Playing), [5]);
        let mut finished = actor();
        finished.list_in(index.clone(), 7);
        assert_eq!(listed(v1::GameStatus::Waiting), [7]);
        play_to_end(&mut finished).await;
        assert_eq!(listed(v1::GameStatus::Finished), [7]);
        assert_eq!(listed(v1::GameStatus::Playing), [5]);
        assert!(listed(v1::GameStatus::Waiting).is_empty());
    }

    /// The resident memory of the process, in bytes (Linux).
    fn resident() -> usize {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
        let pages: usize = statm
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        pages * 4096
    }

    /// The median time of `f` over `n` runs.
    fn median(n: usize, mut f: impl FnMut()) -> Duration {
        let mut times: Vec<Duration> = (0..n)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect();
        times.sort();
        times[n / 2]
    }

    // The cost of a finished match's reads (a match to 10 000), for docs/performance.md: a replay of its log (what each read cost before the cache), the
    // memory of a rebuild, and the reads served from the cache. `cargo test -p canasta-server
    // --release --lib -- --ignored --nocapture measure_reads_of_a_finished_game`
    #[tokio::test]
    #[ignore]
    async fn measure_reads_of_a_finished_game() {
        let mut actor = actor();
        if let Some(rules) = &mut actor.request.rules {
            rules.options.clear();
            rules.options.insert("target_score".into(), "10000".into());
        }
        let request = &actor.request;
        actor.setup = convert::setup_from_wire(request.rules.as_ref(), 7, &[], None, &[])
            .expect("a valid setup");
        (actor.game, actor.opening) = Game::start(&actor.setup).expect("a deal");
        let (tokens, last, _) = play_to_end(&mut actor).await;
        actor.compact();
        println!(
            "{} events, {} entries, {} bytes kept, {} request keys",
            actor.seq(),
            actor.entries,
            actor.entry_log.len(),
            actor.retry_keys.len()
        );
        let replay = median(21, || {
            actor.replayed().expect("a replay");
        });
        println!("a replay of its log: {replay:?} (median of 21)");
        let before = resident();
        let kept: Vec<Arc<Rebuilt>> = (0..16)
            .map(|_| {
                let fresh = actor.replayed().expect("a replay");
                let record = fresh.export().expect("an export");
                Arc::new(Rebuilt {
                    log: fresh.log,
                    requests: fresh.requests,
                    record,
                })
            })
            .collect();
        let grown = resident().saturating_sub(before);
        println!(
            "16 rebuilds: {} KiB resident, {} bytes an event",
            grown / 1024,
            grown / 16 / kept[0].log.len()
        );
        drop(kept);
        let rebuilds = actor.metrics.rebuilds();
        let token = &tokens[last.seat.index()];
        let export = median(101, || {
            actor.export().expect("an export");
        });
        let watch = median(101, || {
            actor.subscribe(None, 0, false, false).expect("a watch");
        });
        let seq = actor.seq();
        let mut retries = Duration::ZERO;
        for _ in 0..101 {
            let t = Instant::now();
            let answer = actor
                .submit(token, seq, last.request_id.clone(), &last.action, true)
                .await;
            retries += t.elapsed();
            assert!(answer.is_ok());
        }
        let mut refused = Duration::ZERO;
        for _ in 0..101 {
            let t = Instant::now();
            let answer = actor
                .submit(token, seq, "r".into(), &last.action, true)
                .await;
            refused += t.elapsed();
            assert!(answer.is_err());
        }
        println!(
            "from the cache: an export {export:?}, a watch from seq 0 {watch:?}, a retry {:?}, \
             an id found only in the log {:?} (medians of 101, means for the last two); \
             {} replays for 404 reads",
            retries / 101,
            refused / 101,
            actor.metrics.rebuilds() - rebuilds
        );
    }
}

/// Time controls: the budget's bounds, the end of a match that only time-outs play, and the
/// time-outs' log lines. Time is tokio's paused clock: every wait is virtual.
#[cfg(test)]
mod time_control_tests {
    use super::*;
    use canasta_engine::bot::GreedyBot;

    /// A game of `players` under a fallback-move budget of `budget_ms`, on memory storage.
    fn timed_actor(players: u32, budget_ms: u64) -> Actor {
        let request = v1::CreateGameRequest {
            rules: Some(v1::RuleSet {
                preset: v1::Preset::Official as i32,
                player_count: players,
                options: Default::default(),
            }),
            seed: Some(11),
            time_control: Some(v1::TimeControl {
                move_budget_ms: budget_ms,
                policy: v1::TimeoutPolicy::FallbackMove as i32,
            }),
            ..Default::default()
        };
        Actor::new(
            "t".into(),
            1,
            request,
            Store::memory(),
            Arc::new(Config::for_tests()),
            Metrics::new(),
        )
        .expect("a valid game")
    }

    async fn seated(players: u32, budget_ms: u64) -> (Actor, Vec<Token>) {
        let mut actor = timed_actor(players, budget_ms);
        let mut tokens = Vec::new();
        for seat in 0..players {
            let joined = actor.join(Some(seat), format!("p{seat}")).await;
            tokens.push(Token::from_stored(joined.expect("a free seat").token));
        }
        assert_eq!(actor.status, Status::Playing);
        (actor, tokens)
    }

    /// Lets the clock run out as the actor's loop does (waiting for the deadline, then timing
    /// out), until the game ends or `cap` time-outs have passed; returns how many passed.
    async fn run_out(actor: &mut Actor, cap: usize) -> usize {
        let mut n = 0;
        while actor.status == Status::Playing && n < cap {
            assert!(actor.deadline.is_some(), "a game in play runs a clock");
            sleep_until(actor.deadline).await;
            actor.time_out().await;
            n += 1;
        }
        n
    }

    /// The stored entries of the actor, decoded.
    fn entries_of(actor: &Actor) -> Vec<Entry> {
        let mut entries = Vec::new();
        let mut bytes = actor.entry_log.as_slice();
        while !bytes.is_empty() {
            entries.push(Entry::decode_length_delimited(&mut bytes).expect("an entry"));
        }
        entries
    }

    // No seat ever acts: the match ends, abandoned with no winner, after three time-outs of
    // each seat, in that many budgets of (virtual) time and as many stored entries, and a
    // restart from the stored entries ends it the same.
    #[tokio::test(start_paused = true)]
    async fn a_match_that_only_time_outs_play_is_abandoned() {
        for players in [2, 4] {
            let budget = 1000;
            let (mut actor, _) = seated(players, budget).await;
            let started = tokio::time::Instant::now();
            let entries_before = actor.entries;
            let n = run_out(&mut actor, 500).await;
            assert_eq!(
                actor.status,
                Status::Finished,
                "{players} players: {n} time-outs"
            );
            // Every seat timed out three times; a seat's turn is a few decisions, so no seat
            // timed out more than a turn's worth more.
            assert!(
                n >= 3 * players as usize && n <= 8 * players as usize,
                "{n}"
            );
            assert_eq!(actor.entries - entries_before, n as u64);
            assert_eq!(started.elapsed(), Duration::from_millis(budget) * n as u32);
            assert_eq!(actor.deadline, None, "a finished game runs no clock");
            let result = actor.result();
            assert!(result.finished);
            assert_eq!(result.end, v1::MatchEndKind::Abandoned as i32);
            assert_eq!(result.winner_side, None);
            assert_eq!(result.forfeited_side, None);
            let last: Vec<_> = actor.log[actor.log.len() - 2..]
                .iter()
                .map(|e| e.to_wire(Viewer::Spectator).kind)
                .collect();
            assert!(
                matches!(last[0], Some(v1::game_event::Kind::TimedOut(_))),
                "{last:?}"
            );
            assert_eq!(
                last[1],
                Some(v1::game_event::Kind::MatchEnded(v1::MatchEnded {
                    result: Some(result.clone())
                }))
            );
            // Nothing more happens, however long the game is left.
            tokio::time::advance(Duration::from_secs(3600)).await;
            assert_eq!(run_out(&mut actor, 10).await, 0);

            // Restored from its entries, the game is the same finished game.
            let entries = entries_of(&actor);
            let mut restored = timed_actor(players, budget);
            restored.replay(&entries).expect("the log replays");
            assert_eq!(restored.status, Status::Finished);
            assert_eq!(restored.seq, actor.seq);
            assert_eq!(restored.result(), result);
            assert_eq!(restored.deadline, None);
            let summary = |a: &Actor| a.summary.lock().expect("not poisoned").clone();
            assert_eq!(summary(&restored), summary(&actor));
            actor.compact();
            let rebuilt = actor.replayed().expect("the game rebuilds");
            assert_eq!(rebuilt.result(), result);
        }
    }

    // A seat that acts starts the count again: after two time-outs of each seat, seat 0's
    // action means each must time out three more times before the match is abandoned.
    #[tokio::test(start_paused = true)]
    async fn an_action_starts_the_count_again() {
        let (mut actor, tokens) = seated(2, 1000).await;
        let mut by_seat = [0; 2];
        while by_seat.iter().any(|&n| n < 2) || actor.game.to_act() != Some(Seat(0)) {
            let seat = actor.game.to_act().expect("a seat to act");
            assert_eq!(run_out(&mut actor, 1).await, 1);
            by_seat[seat.index()] += 1;
            assert_eq!(actor.status, Status::Playing, "{by_seat:?}");
        }
        let action = {
            let view = actor.game.view(Viewer::Seat(Seat(0)));
            let legal = actor.game.legal().expect("choices");
            action_to_wire(&GreedyBot::new().choose(&view, &legal))
        };
        actor
            .submit(&tokens[0], actor.seq(), "r".into(), &action, false)
            .await
            .expect("the action is applied");
        let n = run_out(&mut actor, 500).await;
        assert_eq!(actor.status, Status::Finished);
        assert!(n >= 6, "{n} time-outs after the action");
        assert_eq!(actor.result().end, v1::MatchEndKind::Abandoned as i32);
        // The count is restored from the log: a restart before the end ends the game after
        // the same time-outs.
        let entries = entries_of(&actor);
        let mut restored = timed_actor(2, 1000);
        restored
            .replay(&entries[..entries.len() - 1])
            .expect("the log replays");
        assert_eq!(restored.status, Status::Playing);
        assert_eq!(run_out(&mut restored, 500).await, 1);
        assert_eq!(restored.entry_log, actor.entry_log);
    }

    /// A log sink for one test.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("not poisoned").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    // A seat that is gone while the other plays: its time-outs are all counted in the metrics
    // but logged at most once a minute (the first one at once), with the number left out.
    #[tokio::test(start_paused = true)]
    async fn time_outs_are_logged_at_most_once_a_minute_per_game() {
        let captured = Captured::default();
        let sink = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        // Tests on other threads, without a subscriber, may have hit the time-out's log line
        // first: tracing then cached "never" for it. Its interest is asked again with this
        // thread's subscriber registered.
        tracing::callsite::rebuild_interest_cache();

        let (mut actor, tokens) = seated(2, 1000).await;
        let started = tokio::time::Instant::now();
        let mut bot = GreedyBot::new();
        let mut timeouts = 0;
        for n in 0..2000 {
            if actor.status != Status::Playing || timeouts == 300 {
                break;
            }
            match actor.game.to_act() {
                Some(Seat(0)) => {
                    let view = actor.game.view(Viewer::Seat(Seat(0)));
                    let legal = actor.game.legal().expect("choices");
                    let action = action_to_wire(&bot.choose(&view, &legal));
                    actor
                        .submit(&tokens[0], actor.seq(), format!("r{n}"), &action, false)
                        .await
                        .expect("the bot's action is applied");
                }
                _ => timeouts += run_out(&mut actor, 1).await,
            }
        }
        assert!(timeouts >= 120, "{timeouts} time-outs");
        // Seat 0 plays: the match is not abandoned.
        assert_ne!(actor.result().end, v1::MatchEndKind::Abandoned as i32);
        let minutes = started.elapsed().as_secs() / 60;
        let limit = &actor.timeout_lines;
        assert!(
            limit.lines > 0 && limit.lines <= minutes + 1,
            "{} lines in {minutes} minutes for {timeouts} time-outs",
            limit.lines
        );
        // The lines count the time-outs they leave out: with the first, all of them but those
        // of the last minute.
        let told = limit.told as usize;
        assert!(
            told <= timeouts && timeouts - told < 60,
            "{told} of {timeouts}"
        );
        // What reached the log, when this thread's subscriber got it (tracing's per-callsite
        // cache, shared with the tests running beside this one, may have said no one wants
        // the line): a line per allowed one, each with its count.
        let text = String::from_utf8(captured.0.lock().expect("not poisoned").clone())
            .expect("UTF-8 lines");
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("timed out")).collect();
        assert!(lines.len() as u64 <= limit.lines, "{lines:?}");
        assert!(lines.iter().all(|l| l.contains("unlogged=")), "{lines:?}");
        assert!(
            actor
                .metrics
                .render()
                .contains(&format!("canasta_timeouts_total {timeouts}\n"))
        );
    }
}

#[cfg(test)]
mod unplayed_tests {
    //! Games nobody plays: each policy's deadline, counted from the last activity, on tokio's
    //! paused clock; the end as a log entry that a restart replays; the timers a restart
    //! arms from the times the log holds; the creator's cancel.

    use super::*;
    use crate::registry::GameSlots;
    use canasta_engine::bot::GreedyBot;

    const HOUR: Duration = Duration::from_secs(3600);
    const DAY: Duration = Duration::from_secs(86_400);
    const TEN_MINUTES: Duration = Duration::from_secs(600);

    /// A configuration with the default policies: an hour to fill the seats, a day idle, ten
    /// minutes with every seat left.
    fn config() -> Config {
        let config = Config::for_tests();
        assert_eq!(config.waiting_timeout(), Some(HOUR));
        assert_eq!(config.idle_timeout(), Some(DAY));
        assert_eq!(config.left_timeout(), Some(TEN_MINUTES));
        config
    }

    /// A new two-player game (created at `created_ms`, without a creator entry), with a
    /// fallback-move budget of `budget_ms` if not 0.
    fn new_game(config: Config, budget_ms: u64, created_ms: i64) -> Actor {
        let request = v1::CreateGameRequest {
            rules: Some(v1::RuleSet {
                preset: v1::Preset::Official as i32,
                player_count: 2,
                options: Default::default(),
            }),
            seed: Some(3),
            time_control: (budget_ms > 0).then_some(v1::TimeControl {
                move_budget_ms: budget_ms,
                policy: v1::TimeoutPolicy::FallbackMove as i32,
            }),
            ..Default::default()
        };
        let mut actor = Actor::new(
            "u".into(),
            created_ms,
            request,
            Store::memory(),
            Arc::new(config),
            Metrics::new(),
        )
        .expect("a valid game");
        actor.share_rebuilds(Rebuilds::new());
        actor
    }

    /// A game created now, as the registry creates one: with its creator entry, holding one
    /// of `slots`. Returns the creator token too.
    fn created(config: Config, budget_ms: u64, slots: &Arc<GameSlots>) -> (Actor, Token) {
        let mut actor = new_game(config, budget_ms, now_ms());
        let creator = Token::generate();
        actor.created(&creator).expect("the creation applies");
        actor.hold_slot(slots.try_take().expect("a free place"));
        (actor, creator)
    }

    async fn join(actor: &mut Actor, seat: u32) -> Token {
        let joined = actor.join(Some(seat), format!("p{seat}")).await;
        Token::from_stored(joined.expect("a free seat").token)
    }

    /// Plays one action of the seat to act, with its token.
    async fn act(actor: &mut Actor, tokens: &[Token], n: usize) {
        let seat = actor.game.to_act().expect("a seat to act");
        let action = {
            let view = actor.game.view(Viewer::Seat(seat));
            let legal = actor.game.legal().expect("choices");
            action_to_wire(&GreedyBot::new().choose(&view, &legal))
        };
        actor
            .submit(
                &tokens[seat.index()],
                actor.seq(),
                format!("r{n}"),
                &action,
                false,
            )
            .await
            .expect("the action is applied");
    }

    /// Waits, as the actor's loop does, for its next deadline and acts on it.
    async fn run_to_deadline(actor: &mut Actor) {
        sleep_until(actor.next_deadline()).await;
        actor.deadline_passed().await;
    }

    fn entries_of(actor: &Actor) -> Vec<Entry> {
        let mut entries = Vec::new();
        let mut bytes = actor.entry_log.as_slice();
        while !bytes.is_empty() {
            entries.push(Entry::decode_length_delimited(&mut bytes).expect("an entry"));
        }
        entries
    }

    fn last_event(actor: &Actor) -> Option<v1::game_event::Kind> {
        actor
            .log
            .last()
            .and_then(|e| e.to_wire(Viewer::Spectator).kind)
    }

    /// The result of a game that ended with no winner, as `end`.
    fn no_winner(actor: &Actor, end: v1::MatchEndKind) -> v1::MatchResult {
        let result = actor.result();
        assert!(result.finished);
        assert_eq!(result.end, end as i32);
        assert_eq!(result.winner_side, None);
        assert_eq!(result.forfeited_side, None);
        result
    }

    // A waiting game whose seats are not all taken expires an hour after its creation or its
    // last join or leave, whichever is later: a join or a leave gives it the hour again.
    // It ends FINISHED, EXPIRED, with MatchEnded last in its log; it gives its place among the
    // unfinished games back; it shows nothing of its deal, to its seat either.
    #[tokio::test(start_paused = true)]
    async fn a_waiting_game_expires_an_hour_after_its_last_join_or_leave() {
        let slots = GameSlots::new(1);
        let (mut actor, _) = created(config(), 0, &slots);
        let start = tokio::time::Instant::now();
        assert_eq!(actor.end_deadline, Some((start + HOUR, EndCause::Expired)));
        assert_eq!(slots.held(), 1);
        tokio::time::advance(Duration::from_secs(3000)).await;
        let seat = join(&mut actor, 0).await;
        assert_eq!(
            actor.end_deadline,
            Some((start + Duration::from_secs(3000) + HOUR, EndCause::Expired))
        );
        tokio::time::advance(Duration::from_secs(3000)).await;
        actor.leave(&seat).await.expect("the seat is left");
        let seat = join(&mut actor, 1).await;
        let last = tokio::time::Instant::now();
        assert_eq!(actor.end_deadline, Some((last + HOUR, EndCause::Expired)));
        // The creation, each join and each leave carry their time, for a restart.
        let times: Vec<bool> = entries_of(&actor).iter().map(|e| e.at_ms > 0).collect();
        assert_eq!(times, [true; 4]);
        assert_eq!(entries_of(&actor)[0].at_ms, actor.created_ms);
        run_to_deadline(&mut actor).await;
        assert_eq!(last.elapsed(), HOUR);
        assert_eq!(actor.status, Status::Finished);
        let result = no_winner(&actor, v1::MatchEndKind::Expired);
        assert_eq!(
            last_event(&actor),
            Some(v1::game_event::Kind::MatchEnded(v1::MatchEnded {
                result: Some(result)
            }))
        );
        assert_eq!(slots.held(), 0, "the expired game holds no place");
        assert_eq!((actor.deadline, actor.end_deadline), (None, None));
        // Its seat and spectators see it finished, with its result and without its deal.
        for token in [Some(&seat), None] {
            let view = actor
                .view(token, true)
                .expect("a view")
                .view
                .expect("a view");
            assert_eq!(view.status, v1::GameStatus::Finished as i32);
            assert_eq!(
                view.result.map(|r| r.end),
                Some(v1::MatchEndKind::Expired as i32)
            );
            assert_eq!(view.phase, v1::Phase::Unspecified as i32);
            assert!(view.pile.is_empty() && view.stock_count == 0);
            assert!(
                view.seats
                    .iter()
                    .all(|s| s.hand.is_empty() && s.hand_count == 0)
            );
        }
        // Nothing more happens to it; it is joined no more.
        tokio::time::advance(DAY).await;
        assert_eq!(actor.next_deadline(), None);
        let refused = actor.join(Some(0), "late".into()).await.expect_err("over");
        assert_eq!(refused.reason, Reason::GameFinished);
    }

    // A started game without a time control ends, abandoned with no winner, a day after the
    // last activity of any seat (the start, an action, a join, a leave); the actions of one
    // player keep it going. A game with a time control has no such deadline: its time-outs
    // end it (ABANDON_AFTER).
    #[tokio::test(start_paused = true)]
    async fn a_started_game_without_a_time_control_ends_a_day_after_its_last_activity() {
        let slots = GameSlots::new(2);
        let (mut actor, _) = created(config(), 0, &slots);
        let tokens = vec![join(&mut actor, 0).await, join(&mut actor, 1).await];
        assert_eq!(actor.status, Status::Playing);
        let started = tokio::time::Instant::now();
        assert_eq!(actor.end_deadline, Some((started + DAY, EndCause::Idle)));
        for n in 0..5 {
            tokio::time::advance(DAY - Duration::from_secs(1)).await;
            act(&mut actor, &tokens, n).await;
            assert_eq!(actor.status, Status::Playing);
        }
        let last = tokio::time::Instant::now();
        assert_eq!(actor.end_deadline, Some((last + DAY, EndCause::Idle)));
        let seq = actor.seq();
        run_to_deadline(&mut actor).await;
        assert_eq!(last.elapsed(), DAY);
        assert_eq!(actor.status, Status::Finished);
        let result = no_winner(&actor, v1::MatchEndKind::Abandoned);
        assert_eq!(actor.seq(), seq + 1, "MatchEnded alone");
        assert!(matches!(
            last_event(&actor),
            Some(v1::game_event::Kind::MatchEnded(_))
        ));
        assert_eq!(slots.held(), 0);
        // The exported record's actions replay to the deal in progress; its result says how
        // the match ended.
        let record = actor.export().expect("a finished game exports");
        assert_eq!(record.actions.len(), 5);
        assert_eq!(record.result, Some(result));

        // With a time control of a day a move, the game waits for its time-outs instead.
        let (mut timed, _) = created(config(), 86_400_000, &slots);
        join(&mut timed, 0).await;
        join(&mut timed, 1).await;
        assert_eq!(timed.end_deadline, None);
        run_to_deadline(&mut timed).await;
        assert_eq!(timed.status, Status::Playing, "a time-out played a move");
        assert!(matches!(
            timed.log.iter().rev().find_map(|e| match &e.kind {
                LogKind::Server(k) => Some(k.clone()),
                LogKind::Engine(_) => None,
            }),
            Some(v1::game_event::Kind::TimedOut(_))
        ));
    }

    // A started game whose every seat is left ends, abandoned, ten minutes after the last
    // leave, with or without a time control (here a day a move, which would take days of
    // time-outs); a seat joined again stops the count, and the next leave of every seat
    // starts it again.
    #[tokio::test(start_paused = true)]
    async fn a_started_game_whose_seats_all_left_ends_ten_minutes_later() {
        for budget_ms in [0, 86_400_000] {
            let slots = GameSlots::new(1);
            let (mut actor, _) = created(config(), budget_ms, &slots);
            let a = join(&mut actor, 0).await;
            let b = join(&mut actor, 1).await;
            actor.leave(&a).await.expect("left");
            let idle = match budget_ms {
                0 => Some((tokio::time::Instant::now() + DAY, EndCause::Idle)),
                _ => None,
            };
            assert_eq!(actor.end_deadline, idle, "a seat is held");
            actor.leave(&b).await.expect("left");
            let left = tokio::time::Instant::now();
            assert_eq!(
                actor.end_deadline,
                Some((left + TEN_MINUTES, EndCause::Left))
            );
            tokio::time::advance(Duration::from_secs(500)).await;
            let c = join(&mut actor, 1).await;
            let idle = match budget_ms {
                0 => Some((tokio::time::Instant::now() + DAY, EndCause::Idle)),
                _ => None,
            };
            assert_eq!(actor.end_deadline, idle, "budget {budget_ms}");
            tokio::time::advance(Duration::from_secs(500)).await;
            actor.leave(&c).await.expect("left");
            let left = tokio::time::Instant::now();
            assert_eq!(actor.status, Status::Playing);
            run_to_deadline(&mut actor).await;
            assert_eq!(left.elapsed(), TEN_MINUTES, "budget {budget_ms}");
            assert_eq!(actor.status, Status::Finished);
            no_winner(&actor, v1::MatchEndKind::Abandoned);
            assert_eq!(slots.held(), 0);
        }
    }

    // A policy of 0 never ends a game.
    #[tokio::test(start_paused = true)]
    async fn a_policy_of_zero_never_ends_a_game() {
        let mut config = config();
        config.waiting_timeout_secs = 0.0;
        config.idle_timeout_secs = 0.0;
        config.left_timeout_secs = 0.0;
        let slots = GameSlots::new(2);
        let (waiting, _) = created(config.clone(), 0, &slots);
        assert_eq!(waiting.next_deadline(), None);
        let (mut playing, _) = created(config, 0, &slots);
        let a = join(&mut playing, 0).await;
        let b = join(&mut playing, 1).await;
        assert_eq!(playing.next_deadline(), None);
        playing.leave(&a).await.expect("left");
        playing.leave(&b).await.expect("left");
        assert_eq!(playing.next_deadline(), None);
        assert_eq!(slots.held(), 2);
    }

    // The actor's own loop ends the game at its deadline, moved on by a join that came
    // meanwhile, and its watchers see the end; nothing else wakes it.
    #[tokio::test(start_paused = true)]
    async fn the_actors_loop_ends_the_game_and_tells_its_watchers() {
        let slots = GameSlots::new(1);
        let (actor, _) = created(config(), 0, &slots);
        let start = tokio::time::Instant::now();
        let handle = actor.spawn();
        let mut watching = handle
            .ask(|reply| Command::Subscribe {
                token: None,
                after_seq: 0,
                include_actions: false,
                include_view: false,
                reply,
            })
            .await
            .expect("a spectator watches");
        tokio::time::advance(Duration::from_secs(1000)).await;
        handle
            .ask(|reply| Command::Join {
                seat: Some(0),
                name: "Ann".into(),
                reply,
            })
            .await
            .expect("a seat");
        // The paused clock runs on to the next timer: the game's end.
        let mut events = Vec::new();
        loop {
            match watching.live.recv().await {
                Ok(Item::Event(e)) => {
                    let kind = e.to_wire(Viewer::Spectator).kind;
                    let ended = matches!(kind, Some(v1::game_event::Kind::MatchEnded(_)));
                    events.push(kind);
                    if ended {
                        break;
                    }
                }
                Ok(Item::Prompt(_)) => {}
                Err(e) => panic!("the feed: {e:?}"),
            }
        }
        assert_eq!(start.elapsed(), Duration::from_secs(1000) + HOUR);
        assert!(matches!(
            events[..],
            [
                Some(v1::game_event::Kind::SeatJoined(_)),
                Some(v1::game_event::Kind::MatchEnded(_))
            ]
        ));
        let summary = handle.summary();
        assert_eq!(summary.status, v1::GameStatus::Finished as i32);
        assert_eq!(
            summary.result.map(|r| r.end),
            Some(v1::MatchEndKind::Expired as i32)
        );
        assert_eq!(slots.held(), 0);
    }

    /// A game's entries, rebuilt with `at_ms` set: the creation at `t0`, a join at `t0 +
    /// join_after` (unstamped if `None`).
    fn stamped_log(t0: i64, join_after: Option<i64>) -> Vec<Entry> {
        let mut created = Entry::of(EntryKind::Created(CreatedEntry {
            creator_token: Token::generate().as_str().to_string(),
        }));
        created.at_ms = t0;
        let mut joined = Entry::of(EntryKind::Join(JoinEntry {
            seat: 0,
            name: "Ann".into(),
            token: Token::generate().as_str().to_string(),
        }));
        joined.at_ms = join_after.map_or(0, |d| t0 + d);
        vec![created, joined]
    }

    // A restart counts each policy from the game's last activity as its log tells it: a
    // waiting game whose last join was stored 10 minutes before the restart expires 50 minutes
    // after it, not an hour; one whose last activity is past the hour expires at once; an
    // activity stored without its time (within STAMP_EVERY of the last time stored) counts as
    // that much later, never earlier; a log written before the times were stored counts from
    // the restart; a game with no activity logged counts from its creation.
    #[tokio::test(start_paused = true)]
    async fn a_restart_arms_the_policies_from_the_times_in_the_log() {
        let t0: i64 = 1_700_000_000_000;
        let minute = 60_000;
        let restart = |entries: &[Entry], created_ms: i64, now_ms: i64| {
            let mut actor = new_game(config(), 0, created_ms);
            actor.replay_at(entries, now_ms).expect("the log replays");
            let now = tokio::time::Instant::now();
            let (at, cause) = actor.end_deadline.expect("a deadline");
            assert_eq!(cause, EndCause::Expired);
            (at - now, actor)
        };
        let log = stamped_log(t0, Some(5 * minute));
        let (left, _) = restart(&log, t0, t0 + 15 * minute);
        assert_eq!(left, Duration::from_secs(50 * 60));
        // Past the hour: at once, and it ends as the policy says.
        let (left, mut overdue) = restart(&log, t0, t0 + 2 * 60 * minute);
        assert_eq!(left, Duration::ZERO);
        run_to_deadline(&mut overdue).await;
        no_winner(&overdue, v1::MatchEndKind::Expired);
        // The join stored without a time came within a minute of the creation's time.
        let log = stamped_log(t0, None);
        let (left, _) = restart(&log, t0, t0 + 10 * minute);
        assert_eq!(left, Duration::from_secs(51 * 60));
        // A clock set back: the whole hour from the restart.
        let (left, _) = restart(&log, t0, t0 - 10 * minute);
        assert_eq!(left, HOUR);
        // A log without times (an older server's): from the restart.
        let old: Vec<Entry> = stamped_log(t0, None)
            .into_iter()
            .filter(|e| matches!(e.kind, Some(EntryKind::Join(_))))
            .collect();
        let (left, _) = restart(&old, t0, t0 + 10 * 60 * minute);
        assert_eq!(left, HOUR);
        // No activity logged at all (an older server's game nobody joined): from its creation.
        let (left, _) = restart(&[], t0, t0 + 20 * minute);
        assert_eq!(left, Duration::from_secs(40 * 60));
    }

    // An entry of activity carries its time when it is the first, or a minute or more after
    // the last time stored; the last activity is known to within that minute, never earlier.
    #[test]
    fn activity_is_stamped_at_most_once_a_minute() {
        let t: i64 = 1_700_000_000_000;
        let mut stamps = Stamps::default();
        assert_eq!(
            stamps.last_activity_ms(5),
            Some(5),
            "no activity: the creation"
        );
        assert!(stamps.due(t));
        stamps.note(t);
        assert_eq!(stamps.last_activity_ms(5), Some(t));
        assert!(!stamps.due(t + 59_999));
        assert!(stamps.due(t + 60_000));
        assert!(stamps.due(t - 1), "a clock set back stamps again");
        stamps.note(0);
        assert_eq!(stamps.last_activity_ms(5), Some(t + 60_000));
        stamps.note(t + 70_000);
        assert_eq!(stamps.last_activity_ms(5), Some(t + 70_000));
        let mut old = Stamps::default();
        old.note(0);
        assert_eq!(old.last_activity_ms(5), None, "an older log does not tell");
    }

    // A game that ended is restored ended, with the same seqs and result, whatever the
    // policies of the restarted server (here none); a game restored before its end ends
    // as the game that was not restarted did, and logs the same.
    #[tokio::test(start_paused = true)]
    async fn an_end_survives_a_restart_and_replays_the_same() {
        let slots = GameSlots::new(4);
        let (mut expired, _) = created(config(), 0, &slots);
        join(&mut expired, 0).await;
        let (mut idle, _) = created(config(), 0, &slots);
        let tokens = vec![join(&mut idle, 0).await, join(&mut idle, 1).await];
        act(&mut idle, &tokens, 0).await;
        run_to_deadline(&mut expired).await;
        run_to_deadline(&mut idle).await;
        let mut never = config();
        never.waiting_timeout_secs = 0.0;
        never.idle_timeout_secs = 0.0;
        for (played, end) in [
            (&mut expired, v1::MatchEndKind::Expired),
            (&mut idle, v1::MatchEndKind::Abandoned),
        ] {
            let result = no_winner(played, end);
            let entries = entries_of(played);
            assert!(matches!(
                entries.last().and_then(|e| e.kind.as_ref()),
                Some(EntryKind::End(_))
            ));
            let mut restored = new_game(never.clone(), 0, played.created_ms);
            restored.replay(&entries).expect("the log replays");
            assert_eq!(restored.status, Status::Finished);
            assert_eq!(restored.seq, played.seq);
            assert_eq!(restored.result(), result);
            assert_eq!(restored.next_deadline(), None);
            let summary = |a: &Actor| a.summary.lock().expect("not poisoned").clone();
            assert_eq!(summary(&restored), summary(played));
            played.compact();
            let rebuilt = played.replayed().expect("the game rebuilds");
            assert_eq!(rebuilt.result(), result);
            // Restored before its end, it ends the same.
            let mut pending = new_game(config(), 0, played.created_ms);
            pending
                .replay(&entries[..entries.len() - 1])
                .expect("the log replays");
            assert_ne!(pending.status, Status::Finished);
            run_to_deadline(&mut pending).await;
            assert_eq!(pending.entry_log, played.entry_log);
        }
        // An end of an unknown cause is a damaged log, not another game.
        let mut entries = entries_of(&expired);
        if let Some(EntryKind::End(e)) = entries.last_mut().and_then(|e| e.kind.as_mut()) {
            e.cause = 99;
        }
        let mut restored = new_game(config(), 0, expired.created_ms);
        let damaged = restored.replay(&entries).expect_err("refused");
        assert_eq!(damaged.reason, Reason::BadLog);
    }

    // The creator token cancels a waiting game (CANCELLED), and a retry of the cancel is
    // answered the same; any other token is refused, and so is a cancel of a started or
    // finished game. A game restored from a log without a creator cannot be cancelled.
    #[tokio::test(start_paused = true)]
    async fn the_creator_cancels_a_waiting_game_only() {
        let slots = GameSlots::new(3);
        let (mut waiting, creator) = created(config(), 0, &slots);
        let seat = join(&mut waiting, 0).await;
        for wrong in [Token::generate(), seat.clone()] {
            let refused = waiting.cancel(&wrong).await.expect_err("not the creator");
            assert_eq!(refused.code, Code::PermissionDenied);
            assert_eq!(refused.reason, Reason::NotGameCreator);
        }
        assert_eq!(waiting.status, Status::Waiting);
        let seq = waiting.seq();
        let summary = waiting.cancel(&creator).await.expect("cancelled");
        assert_eq!(summary.status, v1::GameStatus::Finished as i32);
        assert_eq!(
            summary.result.as_ref().map(|r| r.end),
            Some(v1::MatchEndKind::Cancelled as i32)
        );
        assert_eq!(waiting.seq(), seq + 1);
        no_winner(&waiting, v1::MatchEndKind::Cancelled);
        assert_eq!(waiting.next_deadline(), None);
        assert_eq!(waiting.cancel(&creator).await, Ok(summary), "a retry");
        assert_eq!(waiting.seq(), seq + 1);

        let (mut started, creator) = created(config(), 0, &slots);
        join(&mut started, 0).await;
        join(&mut started, 1).await;
        let refused = started.cancel(&creator).await.expect_err("started");
        assert_eq!(refused.code, Code::FailedPrecondition);
        assert_eq!(refused.reason, Reason::GameStarted);
        assert!(
            refused.message.contains("can no longer be cancelled"),
            "{}",
            refused.message
        );
        assert_eq!(started.status, Status::Playing);
        run_to_deadline(&mut started).await;
        let refused = started.cancel(&creator).await.expect_err("finished");
        assert_eq!(refused.reason, Reason::GameFinished);
        assert_eq!(
            slots.held(),
            0,
            "the cancelled and the abandoned game hold no place"
        );

        let mut old = new_game(config(), 0, now_ms());
        old.replay(&[]).expect("an older game");
        let refused = old
            .cancel(&Token::generate())
            .await
            .expect_err("no creator");
        assert_eq!(refused.reason, Reason::NotGameCreator);
        assert!(
            refused
                .message
                .contains("before the server gave creator tokens")
        );
    }

    // JoinGame says what is wrong with a join: a seat that does not exist before anything of
    // the name, and a missing name as a missing field.
    #[tokio::test]
    async fn a_join_names_the_seat_before_the_name() {
        let slots = GameSlots::new(1);
        let (mut actor, _) = created(config(), 0, &slots);
        let refused = actor
            .join(Some(2), String::new())
            .await
            .expect_err("no seat 2");
        assert_eq!(refused.reason, Reason::InvalidSeat);
        assert_eq!(refused.field.as_deref(), Some("seat"));
        assert!(refused.message.contains("0 to 1"), "{}", refused.message);
        let refused = actor
            .join(Some(1), String::new())
            .await
            .expect_err("no name");
        assert_eq!(refused.reason, Reason::MissingField);
        assert_eq!(refused.field.as_deref(), Some("display_name"));
        assert!(refused.message.contains("display_name is required"));
        assert_eq!(actor.seq(), 0, "nothing changed");
    }
}
