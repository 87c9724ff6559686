//! The lobby (`canasta.v1.LobbyService`'s work): players and their keys, matchmaking, challenges,
//! one event stream per player, ratings, the leaderboard and players' records.
//!
//! Its state is one value behind one lock ([`State`]), never held across an await: the games
//! it starts are ordinary games of the [`Registry`], created and joined as any client would,
//! and their ends reach the lobby through [`GameHandle::finished`]. What must survive a restart
//! is written through the store's one writer thread ([`crate::store::lobby`]), queued under the
//! lock so that writes keep the order of the changes.
//!
//! - [`keys`]: a player's key and its stored hash;
//! - [`seeks`]: the matchmaking queues (pure, unit-tested);
//! - [`ratings`]: the Weng-Lin update (pure, unit-tested);
//! - [`events`]: a player's event stream (WatchPlayer);
//! - [`challenges`]: challenges, their answers and their expiry;
//! - this file: the players (house players among them: the built-in bots it hosts, whose seats
//!   the server plays), the seeks' streams and their fill with house players, the games the
//!   lobby starts and rates, the records and the leaderboard.

pub mod challenges;
pub mod events;
pub mod keys;
pub mod ratings;
pub mod seeks;

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use canasta_engine::Rules;
use canasta_engine::table::Table;
use canasta_proto::Reason;
use canasta_proto::convert::rules_from_wire;
use canasta_proto::v1;
use prost::Message;
use tokio::sync::{broadcast, mpsc, watch};
use tonic::{Code, Status};

use crate::actor::{Command, now_ms};
use crate::auth::Token;
use crate::config::Config;
use crate::errors::ApiError;
use crate::registry::Registry;
use crate::store::{LobbyGameRow, LobbyLoaded, LobbyOp, PlayerRow, RatingRow, Store};
use challenges::Challenges;
use keys::KeyHash;
use ratings::Rating;
use seeks::{Formed, Layout, Matcher, PlayerId, SeekId, Seeker};

/// The most recent games kept in memory per player (GetPlayer lists at most these).
pub const RECENT_KEPT: usize = crate::store::lobby::RECENT_KEPT as usize;

/// The longest wait before empty seats are filled with house bots.
pub const MAX_FILL_WAIT_MS: u64 = 3_600_000;

/// A rating family: the preset (its wire number) and the player count.
pub type Family = (i32, u32);

/// A kind of game seekers may share: the rules (preset, player count, options, encoded in a
/// canonical order), the time control and whether it is rated.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct GameKind {
    rules: Vec<u8>,
    budget_ms: u64,
    policy: i32,
    rated: bool,
}

/// A game a seek or challenge asks for, checked.
#[derive(Clone, Debug)]
pub struct GameSpec {
    /// The rules, as asked.
    pub rules: v1::RuleSet,
    /// The time control, if any.
    pub time_control: Option<v1::TimeControl>,
    /// Rated.
    pub rated: bool,
    /// Who sits on which side.
    pub layout: Layout,
    /// The seed of the game's deals, if its maker chose one (a challenge's; never rated).
    pub seed: Option<u64>,
}

impl GameSpec {
    /// Checks the rules, time control and ratedness of a seek or a challenge, as CreateGame
    /// checks its own: a documented reason for each field, nothing changed.
    pub fn check(
        rules: Option<&v1::RuleSet>,
        time_control: Option<&v1::TimeControl>,
        rated: Option<bool>,
        config: &Config,
    ) -> Result<GameSpec, ApiError> {
        let rules = rules.ok_or_else(|| {
            ApiError::invalid(
                Reason::MissingField,
                "rules",
                "rules is required: name a preset and a player count",
            )
        })?;
        let spec = rules_from_wire(rules)?;
        let checked = Rules::new(&spec)?;
        crate::actor::check_time_control(time_control, config)?;
        let rated = rated.unwrap_or(true);
        if rated && !rules.options.is_empty() {
            return Err(ApiError::invalid(
                Reason::RatedHouseRules,
                "rated",
                "a rated game plays its preset's own rules: drop the options, or set rated to \
                 false",
            ));
        }
        let table = Table::new(&checked);
        let mut sides = vec![Vec::new(); table.sides() as usize];
        for seat in table.seats() {
            sides[table.side_of(seat).index()].push(seat.index());
        }
        Ok(GameSpec {
            rules: rules.clone(),
            time_control: time_control.copied(),
            rated,
            layout: Layout { sides },
            seed: None,
        })
    }

    /// The kind of game: what two seekers must agree on to meet.
    pub fn kind(&self) -> GameKind {
        let mut options: Vec<(&String, &String)> = self.rules.options.iter().collect();
        options.sort();
        let mut rules = self.rules.preset.encode_to_vec();
        rules.extend(self.rules.player_count.encode_to_vec());
        for (k, v) in options {
            k.encode_length_delimited(&mut rules)
                .expect("a vector grows");
            v.encode_length_delimited(&mut rules)
                .expect("a vector grows");
        }
        let tc = self.time_control.unwrap_or_default();
        GameKind {
            rules,
            budget_ms: tc.move_budget_ms,
            policy: if tc.move_budget_ms > 0 { tc.policy } else { 0 },
            rated: self.rated,
        }
    }

    /// The rating family.
    pub fn family(&self) -> Family {
        (self.rules.preset, self.rules.player_count)
    }
}

/// One registered player.
struct Player {
    name: String,
    house: bool,
    created_ms: i64,
    key_hash: KeyHash,
    ratings: HashMap<Family, Rating>,
    /// Finished lobby games, and those its side won.
    games: u32,
    wins: u32,
    /// The last finished games, oldest first.
    recent: VecDeque<v1::PlayedGame>,
    /// The last events, oldest first, and the last seq given.
    events: VecDeque<Arc<v1::PlayerEvent>>,
    last_seq: u64,
    /// The live feed of its events, while someone watches.
    live: Option<broadcast::Sender<Arc<v1::PlayerEvent>>>,
    /// Open seeks.
    seeks: usize,
    /// Pending challenges it made.
    challenges_made: usize,
    /// Pending challenges it made or accepted (an unanswered invitation is none).
    challenges_in: usize,
    /// Unfinished lobby games it sits in (or that are being created for it).
    games_open: usize,
}

impl Player {
    fn new(name: String, house: bool, created_ms: i64, key_hash: KeyHash) -> Player {
        Player {
            name,
            house,
            created_ms,
            key_hash,
            ratings: HashMap::new(),
            games: 0,
            wins: 0,
            recent: VecDeque::new(),
            events: VecDeque::new(),
            last_seq: 0,
            live: None,
            seeks: 0,
            challenges_made: 0,
            challenges_in: 0,
            games_open: 0,
        }
    }

    fn summary(&self) -> v1::PlayerSummary {
        v1::PlayerSummary {
            name: self.name.clone(),
            house: self.house,
            created_unix_ms: self.created_ms,
        }
    }

    /// Its lobby commitments: unfinished games, open seeks, pending challenges.
    fn busy(&self) -> usize {
        self.games_open + self.seeks + self.challenges_in
    }
}

/// A leaderboard's order: best conservative rating first, then the older player.
#[derive(Clone, Copy, Debug)]
struct Ranked {
    display: f64,
    player: PlayerId,
}

impl PartialEq for Ranked {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}

impl Eq for Ranked {}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .display
            .total_cmp(&self.display)
            .then(self.player.cmp(&other.player))
    }
}

/// An open seek: its player, kind, and the task that feeds its stream.
struct OpenSeek {
    player: PlayerId,
    kind: GameKind,
    spec: GameSpec,
    to_stream: mpsc::UnboundedSender<SeekNews>,
}

/// What a seek's stream task is told.
enum SeekNews {
    /// The queue changed: waiting, needed.
    Waiting(u32, u32),
    /// Seated: the last message.
    Seated(Box<v1::SeekSeated>),
    /// The game could not be made: the stream ends with this status.
    Failed(Status),
}

/// A lobby game not yet finished.
struct LobbyGame {
    players: Vec<PlayerId>,
    rated: bool,
}

/// Everything the lobby knows, behind one lock.
#[derive(Default)]
struct State {
    players: HashMap<PlayerId, Player>,
    next_player: PlayerId,
    /// Lower-cased names.
    by_name: HashMap<String, PlayerId>,
    /// The players whose key hash starts with these 8 bytes (see [`keys`]).
    by_key: HashMap<u64, Vec<PlayerId>>,
    matcher: Matcher<GameKind>,
    seeks: HashMap<SeekId, OpenSeek>,
    next_seek: SeekId,
    games: HashMap<String, LobbyGame>,
    boards: HashMap<Family, BTreeSet<Ranked>>,
    challenges: Challenges,
    /// The house players this server hosts (`--house-player`), in the configured order: the
    /// server plays their seats with the built-in bot of their name.
    hosted: Vec<PlayerId>,
}

/// The lobby.
pub struct Lobby {
    state: Mutex<State>,
    registry: Arc<Registry>,
    store: Store,
    config: Arc<Config>,
    shutdown: watch::Receiver<bool>,
}

/// Messages a seek's stream queues for its client.
const SEEK_QUEUE: usize = 16;

impl Lobby {
    /// The lobby of `loaded` (players, ratings, records, events, lobby games not yet rated).
    /// Called on a tokio runtime: it starts waiting for the ends of the unfinished lobby
    /// games, and rates those that finished while the server was down.
    pub fn new(
        registry: Arc<Registry>,
        store: Store,
        config: Arc<Config>,
        loaded: LobbyLoaded,
        shutdown: watch::Receiver<bool>,
    ) -> Arc<Lobby> {
        let mut state = State::default();
        for row in loaded.players {
            state.next_player = state.next_player.max(row.id + 1);
            state.by_name.insert(row.name.to_lowercase(), row.id);
            state
                .by_key
                .entry(keys::bucket(&row.key_hash))
                .or_default()
                .push(row.id);
            state.players.insert(
                row.id,
                Player {
                    name: row.name,
                    house: row.house,
                    created_ms: row.created_ms,
                    key_hash: row.key_hash,
                    ratings: HashMap::new(),
                    games: 0,
                    wins: 0,
                    recent: VecDeque::new(),
                    events: VecDeque::new(),
                    last_seq: 0,
                    live: None,
                    seeks: 0,
                    challenges_made: 0,
                    challenges_in: 0,
                    games_open: 0,
                },
            );
        }
        for r in loaded.ratings {
            if let Some(p) = state.players.get_mut(&r.player) {
                let rating = Rating {
                    mu: r.mu,
                    sigma: r.sigma,
                    games: r.games,
                    wins: r.wins,
                };
                p.ratings.insert((r.preset, r.player_count), rating);
                state
                    .boards
                    .entry((r.preset, r.player_count))
                    .or_default()
                    .insert(Ranked {
                        display: rating.display(),
                        player: r.player,
                    });
            }
        }
        for (id, games, wins) in loaded.counts {
            if let Some(p) = state.players.get_mut(&id) {
                p.games = games;
                p.wins = wins;
            }
        }
        for (id, bytes) in loaded.recent {
            if let (Some(p), Ok(game)) = (
                state.players.get_mut(&id),
                v1::PlayedGame::decode(bytes.as_slice()),
            ) {
                p.recent.push_back(game);
            }
        }
        for (id, seq, bytes) in loaded.events {
            if let (Some(p), Ok(event)) = (
                state.players.get_mut(&id),
                v1::PlayerEvent::decode(bytes.as_slice()),
            ) {
                p.events.push_back(Arc::new(event));
                p.last_seq = p.last_seq.max(seq);
            }
        }
        let mut pending = Vec::new();
        for (game_id, row) in loaded.games {
            for id in &row.players {
                if let Some(p) = state.players.get_mut(id) {
                    p.games_open += 1;
                }
            }
            state.games.insert(
                game_id.clone(),
                LobbyGame {
                    players: row.players,
                    rated: row.rated,
                },
            );
            pending.push(game_id);
        }
        let lobby = Arc::new(Lobby {
            state: Mutex::new(state),
            registry,
            store,
            config,
            shutdown,
        });
        lobby.host_house_players();
        for game_id in pending {
            lobby.follow(game_id);
        }
        lobby.end_unrecorded_games();
        lobby.restore_challenges(loaded.challenges);
        lobby
    }

    /// Ends the unfinished games the lobby made but has no record of. Mostly, the server
    /// stopped between creating such a game and storing the lobby's record of it (which holds
    /// the players' news of it too): nobody holds its seats' tokens, so nobody would play it,
    /// and it would count against `--max-games` until the policies for games nobody plays
    /// ended it. Otherwise that write failed while the server ran: the players' news of the
    /// game did not survive the restart, and the lobby would not rate it.
    fn end_unrecorded_games(&self) {
        let st = self.state();
        for handle in self.registry.lobby_games() {
            if st.games.contains_key(&handle.id) {
                continue;
            }
            tracing::warn!(
                game = %handle.id,
                "a game the lobby made has no record in the lobby (the server stopped before \
                 storing it, or the write failed): nobody can play or rate it, so it is ended"
            );
            tokio::spawn(async move {
                let ended = handle.ask(|reply| Command::EndUnrecorded { reply }).await;
                if let Err(e) = ended {
                    tracing::error!(
                        game = %handle.id,
                        error = %e.message,
                        "an unrecorded lobby game could not be ended: the policies for games \
                         nobody plays will end it"
                    );
                }
            });
        }
    }

    /// Hosts the configured house players: registers those missing (their key is drawn and
    /// thrown away: nobody acts as a house player but the server). A name a client player
    /// holds is not taken from it: that bot is not hosted, and the log says so.
    fn host_house_players(&self) {
        let mut st = self.state();
        let mut ops = Vec::new();
        for name in self.config.house_players() {
            match st.by_name.get(&name.to_lowercase()).copied() {
                Some(id) if st.players[&id].house => st.hosted.push(id),
                Some(_) => tracing::warn!(
                    bot = %name,
                    "a player who is no house player holds the name of a house bot: that bot \
                     is not hosted"
                ),
                None => {
                    let key_hash = keys::hash(&Token::generate());
                    let id = st.next_player;
                    st.next_player += 1;
                    let created_ms = now_ms();
                    st.by_name.insert(name.to_lowercase(), id);
                    st.by_key
                        .entry(keys::bucket(&key_hash))
                        .or_default()
                        .push(id);
                    st.players
                        .insert(id, Player::new(name.clone(), true, created_ms, key_hash));
                    st.hosted.push(id);
                    ops.push(LobbyOp::Player(PlayerRow {
                        id,
                        name: name.clone(),
                        key_hash,
                        house: true,
                        created_ms,
                    }));
                }
            }
        }
        if !ops.is_empty() {
            let stored = self.store.lobby(ops);
            tokio::spawn(async move {
                if let Err(e) = stored.await {
                    tracing::error!(error = %e, "the house players were not stored: they are registered again at the next start");
                }
            });
        }
    }

    /// True if the server plays this player's seats.
    fn hosted(st: &State, player: PlayerId) -> bool {
        st.hosted.contains(&player)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("not poisoned")
    }

    /// The player whose key this is; `UNKNOWN_PLAYER_KEY` for a key no player holds.
    pub fn authenticate(&self, key: &Token) -> Result<PlayerId, ApiError> {
        let hash = keys::hash(key);
        let st = self.state();
        st.by_key
            .get(&keys::bucket(&hash))
            .into_iter()
            .flatten()
            .copied()
            .find(|id| keys::matches(&st.players[id].key_hash, &hash))
            .ok_or_else(|| {
                ApiError::new(
                    Code::Unauthenticated,
                    Reason::UnknownPlayerKey,
                    "no player holds this key: send the key RegisterPlayer returned as \
                     `authorization: Bearer <key>` (a lost key is not recovered: register \
                     another name)",
                )
            })
    }

    /// The player's name.
    pub fn name_of(&self, player: PlayerId) -> String {
        self.state()
            .players
            .get(&player)
            .map(|p| p.name.clone())
            .unwrap_or_default()
    }

    /// Registers a player; answers once it is stored.
    pub async fn register(
        &self,
        r: v1::RegisterPlayerRequest,
    ) -> Result<v1::RegisterPlayerResponse, ApiError> {
        let name = crate::names::display_name(&r.name).map_err(|mut e| {
            e.field = Some("name".into());
            e.message = e.message.replace("display_name", "name");
            e
        })?;
        self.add_player(name, false).await
    }

    /// Adds a player (a client's, or a house bot) and returns its key.
    pub(crate) async fn add_player(
        &self,
        name: String,
        house: bool,
    ) -> Result<v1::RegisterPlayerResponse, ApiError> {
        let key = Token::generate();
        let key_hash = keys::hash(&key);
        let created_ms = now_ms();
        let (id, stored) = {
            let mut st = self.state();
            let lower = name.to_lowercase();
            if st.by_name.contains_key(&lower) {
                return Err(ApiError::new(
                    Code::AlreadyExists,
                    Reason::NameTaken,
                    format!(
                        "a player is named {} already (names are unique regardless of case): \
                         choose another name",
                        canasta_engine::quote::quoted(&name)
                    ),
                ));
            }
            let id = st.next_player;
            st.next_player += 1;
            st.by_name.insert(lower, id);
            st.by_key
                .entry(keys::bucket(&key_hash))
                .or_default()
                .push(id);
            st.players.insert(
                id,
                Player {
                    name: name.clone(),
                    house,
                    created_ms,
                    key_hash,
                    ratings: HashMap::new(),
                    games: 0,
                    wins: 0,
                    recent: VecDeque::new(),
                    events: VecDeque::new(),
                    last_seq: 0,
                    live: None,
                    seeks: 0,
                    challenges_made: 0,
                    challenges_in: 0,
                    games_open: 0,
                },
            );
            let stored = self.store.lobby(vec![LobbyOp::Player(PlayerRow {
                id,
                name: name.clone(),
                key_hash,
                house,
                created_ms,
            })]);
            (id, stored)
        };
        if let Err(e) = stored.await {
            // Not stored: the name is free again, and no key was handed out.
            let mut st = self.state();
            st.players.remove(&id);
            st.by_name.remove(&name.to_lowercase());
            if let Some(ids) = st.by_key.get_mut(&keys::bucket(&key_hash)) {
                ids.retain(|&p| p != id);
            }
            return Err(ApiError::new(
                Code::Unavailable,
                Reason::StorageFailed,
                format!("{e}: the player was not registered; retry later"),
            ));
        }
        tracing::info!(player = %canasta_engine::quote::quoted(&name), house, "player registered");
        Ok(v1::RegisterPlayerResponse {
            player: Some(v1::PlayerSummary {
                name,
                house,
                created_unix_ms: created_ms,
            }),
            key: key.as_str().to_string(),
        })
    }

    /// The player a name names, for a field of a request (`reason` if none has it).
    fn find_name(
        st: &State,
        name: &str,
        reason: Reason,
        field: &str,
    ) -> Result<PlayerId, ApiError> {
        st.by_name
            .get(&name.trim().to_lowercase())
            .copied()
            .ok_or_else(|| {
                ApiError::invalid(
                    reason,
                    field,
                    format!(
                        "no player is named {}: name a registered player",
                        canasta_engine::quote::quoted(name)
                    ),
                )
            })
    }

    /// Refuses a new seek or challenge of `player` beyond its limits.
    fn check_limits(&self, p: &Player) -> Result<(), ApiError> {
        if p.seeks + p.challenges_made >= self.config.max_seeks_per_player() {
            return Err(ApiError::exhausted(
                Reason::TooManySeeks,
                format!(
                    "the player holds {} seeks and pending challenges, the most allowed: close \
                     a seek, or wait for a game to start",
                    p.seeks + p.challenges_made
                ),
                Duration::from_secs(5),
            ));
        }
        self.check_games(p)
    }

    /// Refuses one more game or wait (a seek, a challenge made or accepted) of a player at its
    /// limit of unfinished lobby games and waits.
    fn check_games(&self, p: &Player) -> Result<(), ApiError> {
        if p.busy() >= self.config.max_games_per_player() {
            return Err(ApiError::exhausted(
                Reason::TooManyPlayerGames,
                format!(
                    "the player sits in {} unfinished lobby games and waits for {} more, the \
                     most allowed: finish a game first",
                    p.games_open,
                    p.seeks + p.challenges_in
                ),
                Duration::from_secs(30),
            ));
        }
        Ok(())
    }

    /// Opens a seek for `player`: its stream says how the queue stands, then where it sits.
    pub fn seek(
        self: &Arc<Self>,
        player: PlayerId,
        r: v1::SeekRequest,
    ) -> Result<mpsc::Receiver<Result<v1::SeekResponse, Status>>, ApiError> {
        let spec = GameSpec::check(
            r.rules.as_ref(),
            r.time_control.as_ref(),
            r.rated,
            &self.config,
        )?;
        if r.fill_with_bots_after_ms > MAX_FILL_WAIT_MS {
            return Err(ApiError::invalid(
                Reason::BadFillWait,
                "fill_with_bots_after_ms",
                format!(
                    "{} ms is more than an hour: give at most {MAX_FILL_WAIT_MS}, or 0 (never)",
                    r.fill_with_bots_after_ms
                ),
            ));
        }
        if r.fill_with_bots_after_ms > 0 && self.state().hosted.is_empty() {
            return Err(ApiError::new(
                Code::FailedPrecondition,
                Reason::HouseBotsUnavailable,
                "this server hosts no house bots to fill seats with: send \
                 fill_with_bots_after_ms = 0, and wait for players",
            ));
        }
        let kind = spec.kind();
        let needed = spec.layout.seats() as u32;
        let (out, stream) = mpsc::channel(SEEK_QUEUE);
        let (to_stream, news) = mpsc::unbounded_channel();
        let mut st = self.state();
        let partner = match r.partner.trim() {
            "" => None,
            name => {
                let partner = Self::find_name(&st, name, Reason::BadPartner, "partner")?;
                if partner == player {
                    return Err(ApiError::invalid(
                        Reason::BadPartner,
                        "partner",
                        "a player cannot partner itself: name another player, or none",
                    ));
                }
                if !spec.layout.has_partners() {
                    return Err(ApiError::invalid(
                        Reason::BadPartner,
                        "partner",
                        format!(
                            "{}-player games of these rules have no partnerships: leave partner \
                             empty",
                            needed
                        ),
                    ));
                }
                Some(partner)
            }
        };
        self.check_limits(&st.players[&player])?;
        let seek = st.next_seek;
        st.next_seek += 1;
        st.players.get_mut(&player).expect("a player").seeks += 1;
        st.seeks.insert(
            seek,
            OpenSeek {
                player,
                kind: kind.clone(),
                spec: spec.clone(),
                to_stream,
            },
        );
        let formed = st
            .matcher
            .add(&kind, &spec.layout, Seeker { seek, player }, partner);
        let waiting = st.matcher.waiting(&kind) as u32;
        let seek_id = format!("s{seek}");
        tokio::spawn(self.clone().feed_seek(seek, seek_id.clone(), news, out));
        match formed {
            Some(formed) => {
                let taken = Self::take_formed(&mut st, &formed);
                drop(st);
                let seats = taken.into_iter().map(|(s, o)| (o.player, Some((s, o))));
                tokio::spawn(self.clone().seat(spec, seats.collect()));
            }
            None => {
                for s in st.matcher.seeks(&kind) {
                    if let Some(open) = st.seeks.get(&s) {
                        let _ = open.to_stream.send(SeekNews::Waiting(waiting, needed));
                    }
                }
            }
        }
        if r.fill_with_bots_after_ms > 0 {
            let lobby = self.clone();
            let wait = Duration::from_millis(r.fill_with_bots_after_ms);
            tokio::spawn(async move {
                tokio::time::sleep(wait).await;
                lobby.fill(seek);
            });
        }
        Ok(stream)
    }

    /// Seats a seek still waiting when its `fill_with_bots_after_ms` is over: with the seekers
    /// of its queue that fit with it, and house players in the seats left (each hosted one
    /// once, in the configured order, then again from the first: a game where a house player
    /// sits twice is not rated).
    fn fill(self: &Arc<Self>, seek: SeekId) {
        let mut st = self.state();
        let Some(open) = st.seeks.get(&seek) else {
            return;
        };
        let (kind, mut spec) = (open.kind.clone(), open.spec.clone());
        let Some(seated) = st.matcher.take_partial(&kind, seek) else {
            return;
        };
        let seated_players: Vec<PlayerId> = seated.iter().flatten().map(|s| s.player).collect();
        let mut house = st
            .hosted
            .iter()
            .copied()
            .filter(|h| !seated_players.contains(h))
            .collect::<Vec<_>>()
            .into_iter()
            .chain(st.hosted.clone().into_iter().cycle());
        let mut seats = Vec::with_capacity(seated.len());
        for s in seated {
            match s {
                Some(s) => {
                    let open = st.seeks.remove(&s.seek).expect("a waiting seek is open");
                    let p = st.players.get_mut(&open.player).expect("a player");
                    p.seeks -= 1;
                    p.games_open += 1;
                    seats.push((open.player, Some((s.seek, open))));
                }
                None => {
                    let h = house
                        .next()
                        .expect("a server that fills hosts house players");
                    st.players.get_mut(&h).expect("a player").games_open += 1;
                    seats.push((h, None));
                }
            }
        }
        let mut players: Vec<PlayerId> = seats.iter().map(|(p, _)| *p).collect();
        players.sort_unstable();
        players.dedup();
        spec.rated &= players.len() == seats.len();
        let waiting = st.matcher.waiting(&kind) as u32;
        let needed = spec.layout.seats() as u32;
        for s in st.matcher.seeks(&kind) {
            if let Some(other) = st.seeks.get(&s) {
                let _ = other.to_stream.send(SeekNews::Waiting(waiting, needed));
            }
        }
        drop(st);
        tokio::spawn(self.clone().seat(spec, seats));
    }

    /// Takes the seeks of a formed game out of the lobby's open seeks: their players now have
    /// a game being made (counted among their open games).
    fn take_formed(st: &mut State, formed: &Formed) -> Vec<(SeekId, OpenSeek)> {
        formed
            .seats
            .iter()
            .map(|s| {
                let open = st.seeks.remove(&s.seek).expect("a formed seek is open");
                let p = st.players.get_mut(&open.player).expect("a player");
                p.seeks -= 1;
                p.games_open += 1;
                (s.seek, open)
            })
            .collect()
    }

    /// Cancels a seek whose stream closed, if it still waits.
    fn cancel_seek(&self, seek: SeekId) {
        let mut st = self.state();
        let Some(open) = st.seeks.remove(&seek) else {
            return;
        };
        st.matcher.remove(&open.kind, seek);
        if let Some(p) = st.players.get_mut(&open.player) {
            p.seeks -= 1;
        }
        let waiting = st.matcher.waiting(&open.kind) as u32;
        let needed = open.spec.layout.seats() as u32;
        for s in st.matcher.seeks(&open.kind) {
            if let Some(other) = st.seeks.get(&s) {
                let _ = other.to_stream.send(SeekNews::Waiting(waiting, needed));
            }
        }
    }

    /// Feeds a seek's stream: the queue's state (first, on changes, and as a heartbeat), then
    /// the seat; cancels the seek when the client closes the stream.
    async fn feed_seek(
        self: Arc<Self>,
        seek: SeekId,
        seek_id: String,
        mut news: mpsc::UnboundedReceiver<SeekNews>,
        out: mpsc::Sender<Result<v1::SeekResponse, Status>>,
    ) {
        let waiting = |waiting, needed| {
            Ok(v1::SeekResponse {
                kind: Some(v1::seek_response::Kind::Waiting(v1::SeekWaiting {
                    seek_id: seek_id.clone(),
                    waiting,
                    needed,
                })),
            })
        };
        let mut shutdown = self.shutdown.clone();
        let heartbeat = self.config.heartbeat();
        let mut last = (0, 0);
        loop {
            tokio::select! {
                n = news.recv() => match n {
                    Some(SeekNews::Waiting(w, n)) => {
                        last = (w, n);
                        if out.try_send(waiting(w, n)).is_err() && out.is_closed() {
                            break;
                        }
                    }
                    Some(SeekNews::Seated(seated)) => {
                        let _ = out.send(Ok(v1::SeekResponse {
                            kind: Some(v1::seek_response::Kind::Seated(*seated)),
                        })).await;
                        return;
                    }
                    Some(SeekNews::Failed(status)) => {
                        let _ = out.send(Err(status)).await;
                        return;
                    }
                    None => return,
                },
                _ = out.closed() => break,
                _ = tokio::time::sleep(heartbeat) => {
                    // A full queue: the client reads slowly; the next heartbeat tells it.
                    let _ = out.try_send(waiting(last.0, last.1));
                }
                _ = shutdown.changed() => {
                    let _ = out.try_send(Err(ApiError::new(
                        Code::Unavailable,
                        Reason::ShuttingDown,
                        "the server is shutting down: seek again on the restarted server",
                    ).into()));
                    break;
                }
            }
        }
        self.cancel_seek(seek);
    }

    /// Makes the game of a formed seek and seats its players.
    async fn seat(
        self: Arc<Self>,
        spec: GameSpec,
        seats: Vec<(PlayerId, Option<(SeekId, OpenSeek)>)>,
    ) {
        let players: Vec<PlayerId> = seats.iter().map(|(p, _)| *p).collect();
        let origins: Vec<Origin> = seats
            .iter()
            .map(|(_, s)| Origin::Seek(s.as_ref().map_or(String::new(), |(s, _)| format!("s{s}"))))
            .collect();
        match self.start_game(&spec, &players, &origins).await {
            Ok(started) => {
                for ((_, taken), seat) in seats.into_iter().zip(started.seats) {
                    let Some((seek, open)) = taken else {
                        continue;
                    };
                    let _ = open
                        .to_stream
                        .send(SeekNews::Seated(Box::new(v1::SeekSeated {
                            seek_id: format!("s{seek}"),
                            game_id: started.game.game_id.clone(),
                            seat: seat.seat,
                            token: seat.token,
                            game: Some(started.game.clone()),
                            rated: spec.rated,
                        })));
                }
            }
            Err(e) => {
                for (_, (_, open)) in seats.into_iter().filter_map(|(p, s)| Some((p, s?))) {
                    let _ = open.to_stream.send(SeekNews::Failed(e.clone().into()));
                }
            }
        }
    }

    /// Creates a lobby game, seats `players` in order (their open games already count it),
    /// records it, tells each player, and follows it to its end. On failure the players' counts
    /// are given back and nothing is left waiting.
    async fn start_game(
        self: &Arc<Self>,
        spec: &GameSpec,
        players: &[PlayerId],
        origins: &[Origin],
    ) -> Result<Started, ApiError> {
        let made = self.make_game(spec, players).await;
        let (game, seats) = match made {
            Ok(made) => made,
            Err(e) => {
                let mut st = self.state();
                for id in players {
                    if let Some(p) = st.players.get_mut(id) {
                        p.games_open -= 1;
                    }
                }
                return Err(e);
            }
        };
        let stored = self.record_start(spec, players, origins, &game, &seats);
        if let Err(e) = stored.await {
            tracing::error!(game = %game.game_id, error = %e, "a lobby game's start was not stored: a restart will not rate it");
        }
        tracing::info!(game = %game.game_id, rated = spec.rated, "lobby game started");
        self.follow(game.game_id.clone());
        Ok(Started { game, seats })
    }

    /// Records a lobby game that started and tells its players; returns the write to wait for.
    fn record_start(
        &self,
        spec: &GameSpec,
        players: &[PlayerId],
        origins: &[Origin],
        game: &v1::GameSummary,
        seats: &[SeatTaken],
    ) -> impl std::future::Future<Output = Result<(), crate::store::StoreError>> + use<> {
        let mut st = self.state();
        let names: Vec<String> = players
            .iter()
            .map(|id| st.players[id].name.clone())
            .collect();
        st.games.insert(
            game.game_id.clone(),
            LobbyGame {
                players: players.to_vec(),
                rated: spec.rated,
            },
        );
        let mut ops = vec![LobbyOp::GameStarted {
            game_id: game.game_id.clone(),
            row: LobbyGameRow {
                players: players.to_vec(),
                rated: spec.rated,
            },
        }];
        // A challenge's game and the challenge's end are one write: a restart finds either the
        // challenge pending or its game started, never both.
        if let Some(Origin::Challenge(c)) = origins.first() {
            ops.push(LobbyOp::ChallengeDone {
                challenge_id: c.clone(),
            });
        }
        for ((id, seat), origin) in players.iter().zip(seats).zip(origins) {
            let (seek_id, challenge_id) = match origin {
                Origin::Seek(s) => (s.clone(), String::new()),
                Origin::Challenge(c) => (String::new(), c.clone()),
            };
            let event = v1::player_event::Kind::GameStarted(v1::PlayerGameStarted {
                game_id: game.game_id.clone(),
                seat: seat.seat,
                token: seat.token.clone(),
                players: names.clone(),
                rated: spec.rated,
                seek_id,
                challenge_id,
                rules: Some(spec.rules.clone()),
            });
            ops.extend(self.push_event(&mut st, *id, event));
        }
        self.store.lobby(ops)
    }

    /// Creates the game and joins its seats, or cancels what was made.
    async fn make_game(
        &self,
        spec: &GameSpec,
        players: &[PlayerId],
    ) -> Result<(v1::GameSummary, Vec<SeatTaken>), ApiError> {
        // The house players' seats are the server's bots', held from the creation on.
        let bots: Vec<v1::SeatBot> = {
            let st = self.state();
            players
                .iter()
                .enumerate()
                .filter(|(_, p)| Self::hosted(&st, **p))
                .map(|(seat, p)| v1::SeatBot {
                    seat: seat as u32,
                    bot: st.players[p].name.clone(),
                })
                .collect()
        };
        let created = self
            .registry
            .create_for_lobby(v1::CreateGameRequest {
                rules: Some(spec.rules.clone()),
                seed: spec.seed,
                time_control: spec.time_control,
                bots: bots.clone(),
                ..Default::default()
            })
            .await?;
        let id = created.game.map(|g| g.game_id).unwrap_or_default();
        let handle = self.registry.get(&id)?;
        let mut seats = Vec::with_capacity(players.len());
        for (seat, player) in players.iter().enumerate() {
            if bots.iter().any(|b| b.seat == seat as u32) {
                seats.push(SeatTaken {
                    seat: seat as u32,
                    token: String::new(),
                });
                continue;
            }
            let name = self.name_of(*player);
            let joined = handle
                .ask(|reply| Command::Join {
                    seat: Some(seat as u32),
                    name,
                    reply,
                })
                .await;
            match joined {
                Ok(j) => seats.push(SeatTaken {
                    seat: j.seat,
                    token: j.token,
                }),
                Err(e) => {
                    let creator = Token::from_stored(created.creator_token.clone());
                    let _ = handle
                        .ask(|reply| Command::Cancel {
                            token: creator,
                            reply,
                        })
                        .await;
                    return Err(e);
                }
            }
        }
        Ok((handle.summary(), seats))
    }

    /// Waits for a lobby game's end, then rates and records it.
    fn follow(self: &Arc<Self>, game_id: String) {
        let lobby = self.clone();
        tokio::spawn(async move {
            let Ok(handle) = lobby.registry.get(&game_id) else {
                tracing::error!(game = %game_id, "a lobby game is not served: it is not rated");
                let forgotten = lobby.forget(&game_id);
                let _ = forgotten.await;
                return;
            };
            let mut finished = handle.finished.clone();
            if finished.wait_for(|f| *f).await.is_err() {
                // The game's actor has stopped (the server is stopping): rated at the next
                // start.
                return;
            }
            lobby.finish(&game_id, handle.summary()).await;
        });
    }

    /// Forgets a lobby game that cannot be followed (not served): its players' seats are free.
    fn forget(
        &self,
        game_id: &str,
    ) -> impl std::future::Future<Output = Result<(), crate::store::StoreError>> + use<> {
        let mut st = self.state();
        if let Some(game) = st.games.remove(game_id) {
            for id in game.players {
                if let Some(p) = st.players.get_mut(&id) {
                    p.games_open = p.games_open.saturating_sub(1);
                }
            }
        }
        self.store.lobby(vec![LobbyOp::GameDone {
            game_id: game_id.to_string(),
        }])
    }

    /// Rates and records a finished lobby game, and tells its players.
    async fn finish(&self, game_id: &str, summary: v1::GameSummary) {
        let Some((stored, rated)) = self.record_finish(game_id, &summary) else {
            return;
        };
        if let Err(e) = stored.await {
            tracing::error!(game = %game_id, error = %e, "a lobby game's ratings were not stored: a restart rates it again");
        }
        tracing::info!(game = %game_id, rated, "lobby game finished");
    }

    /// Rates and records a finished lobby game and tells its players; returns the write to
    /// wait for and whether the game was rated (none if it was recorded already).
    fn record_finish(
        &self,
        game_id: &str,
        summary: &v1::GameSummary,
    ) -> Option<(
        impl std::future::Future<Output = Result<(), crate::store::StoreError>> + use<>,
        bool,
    )> {
        let result = summary.result.clone().unwrap_or_default();
        let end = v1::MatchEndKind::try_from(result.end).unwrap_or(v1::MatchEndKind::Unspecified);
        let family: Family = summary
            .rules
            .as_ref()
            .map_or((0, 0), |r| (r.preset, r.player_count));
        let mut st = self.state();
        let game = st.games.remove(game_id)?;
        let sides: Vec<u32> = summary.seats.iter().map(|s| s.side).collect();
        let names: Vec<String> = game
            .players
            .iter()
            .map(|id| {
                st.players
                    .get(id)
                    .map(|p| p.name.clone())
                    .unwrap_or_default()
            })
            .collect();
        // Rated: created rated, won or forfeited (an abandoned game names no side that left),
        // and every seat still the lobby's player's (a seat left and joined by another is not).
        let seats_kept = summary.seats.len() == names.len()
            && summary
                .seats
                .iter()
                .zip(&names)
                .all(|(s, n)| s.display_name == *n);
        let rated = game.rated
            && seats_kept
            && matches!(end, v1::MatchEndKind::Target | v1::MatchEndKind::Forfeit);
        // The ratings, the players' records and events and the game's end are one write: a
        // crash between two writes would rate the game again at the restart.
        let mut ops = Vec::new();
        let changes = if rated {
            self.rate(&mut st, &game.players, &sides, &result, family, &mut ops)
        } else {
            vec![None; game.players.len()]
        };
        let finished_ms = now_ms();
        for (seat, (id, change)) in game.players.iter().zip(changes).enumerate() {
            let won = result
                .winner_side
                .is_some_and(|w| Some(&w) == sides.get(seat));
            let played = v1::PlayedGame {
                game_id: game_id.to_string(),
                rules: summary.rules.clone(),
                seat: seat as u32,
                players: names.clone(),
                result: Some(result.clone()),
                won,
                rating: change,
                finished_unix_ms: finished_ms,
            };
            let Some(p) = st.players.get_mut(id) else {
                continue;
            };
            p.games_open = p.games_open.saturating_sub(1);
            p.games += 1;
            p.wins += u32::from(won);
            if p.recent.len() == RECENT_KEPT {
                p.recent.pop_front();
            }
            ops.push(LobbyOp::Played {
                player: *id,
                won,
                game: played.encode_to_vec(),
            });
            p.recent.push_back(played);
            let event = v1::player_event::Kind::GameFinished(v1::PlayerGameFinished {
                game_id: game_id.to_string(),
                seat: seat as u32,
                result: Some(result.clone()),
                won,
                rating: change,
            });
            ops.extend(self.push_event(&mut st, *id, event));
        }
        ops.push(LobbyOp::GameDone {
            game_id: game_id.to_string(),
        });
        Some((self.store.lobby(ops), rated))
    }

    /// Updates the ratings of a rated game's players in `st`, and adds the rows to store to
    /// `ops`; returns each player's change.
    fn rate(
        &self,
        st: &mut State,
        players: &[PlayerId],
        sides: &[u32],
        result: &v1::MatchResult,
        family: Family,
        ops: &mut Vec<LobbyOp>,
    ) -> Vec<Option<v1::RatingChange>> {
        let side_count = sides.iter().max().map_or(0, |&s| s as usize + 1);
        let places = places(side_count, result);
        let mut teams: Vec<Vec<(usize, PlayerId, Rating)>> = vec![Vec::new(); side_count];
        for (seat, (&id, &side)) in players.iter().zip(sides).enumerate() {
            let rating = st
                .players
                .get(&id)
                .and_then(|p| p.ratings.get(&family).copied())
                .unwrap_or_default();
            teams[side as usize].push((seat, id, rating));
        }
        let input: Vec<Vec<Rating>> = teams
            .iter()
            .map(|t| t.iter().map(|(_, _, r)| *r).collect())
            .collect();
        let output = ratings::rate(&input, &places);
        let mut changes = vec![None; players.len()];
        let board = st.boards.entry(family).or_default();
        let mut updates = Vec::new();
        for (team, new) in teams.iter().zip(output) {
            for (&(seat, id, before), after) in team.iter().zip(new) {
                board.remove(&Ranked {
                    display: before.display(),
                    player: id,
                });
                board.insert(Ranked {
                    display: after.display(),
                    player: id,
                });
                changes[seat] = Some(v1::RatingChange {
                    before: Some(rating_to_wire(family, &before)),
                    after: Some(rating_to_wire(family, &after)),
                });
                updates.push((id, after));
            }
        }
        for (id, after) in updates {
            if let Some(p) = st.players.get_mut(&id) {
                p.ratings.insert(family, after);
            }
            ops.push(LobbyOp::Rating(RatingRow {
                player: id,
                preset: family.0,
                player_count: family.1,
                mu: after.mu,
                sigma: after.sigma,
                games: after.games,
                wins: after.wins,
            }));
        }
        changes
    }

    /// Numbers a player's event, keeps it, sends it to the player's streams; returns its row
    /// to store. A house player has no stream (nobody holds its key): nothing for it.
    fn push_event(
        &self,
        st: &mut State,
        player: PlayerId,
        kind: v1::player_event::Kind,
    ) -> Option<LobbyOp> {
        let keep = self.config.player_events_kept();
        let p = st.players.get_mut(&player).expect("a player");
        if p.house {
            return None;
        }
        p.last_seq += 1;
        let event = Arc::new(v1::PlayerEvent {
            seq: p.last_seq,
            unix_ms: now_ms(),
            kind: Some(kind),
        });
        while p.events.len() >= keep {
            p.events.pop_front();
        }
        p.events.push_back(event.clone());
        if let Some(live) = &p.live
            && live.send(event.clone()).is_err()
        {
            p.live = None;
        }
        Some(LobbyOp::Event {
            player,
            seq: event.seq,
            event: event.encode_to_vec(),
            keep: keep as u64,
        })
    }

    /// Opens a player's event stream: the kept events after `after_seq`, and the live feed.
    pub fn subscribe(
        &self,
        player: PlayerId,
        after_seq: u64,
    ) -> Result<events::Subscription, ApiError> {
        let mut st = self.state();
        let p = st.players.get_mut(&player).expect("a player");
        if after_seq > p.last_seq {
            return Err(ApiError::invalid(
                Reason::BadSeq,
                "after_seq",
                format!(
                    "the player's last event is {}, before {after_seq}: watch from a seq you saw, \
                     or 0",
                    p.last_seq
                ),
            ));
        }
        let first = p.events.front().map_or(p.last_seq + 1, |e| e.seq);
        if after_seq + 1 < first {
            return Err(ApiError::new(
                Code::OutOfRange,
                Reason::EventsDropped,
                format!(
                    "the server keeps the player's events from seq {first} on: the events after \
                     {after_seq} before it are gone. Read the player's record (GetPlayer), then \
                     watch from {}",
                    first - 1
                ),
            )
            .with("first_seq", first));
        }
        let backlog = p
            .events
            .iter()
            .filter(|e| e.seq > after_seq)
            .cloned()
            .collect();
        let buffer = self.config.watch_buffer();
        let live = p
            .live
            .get_or_insert_with(|| broadcast::channel(buffer).0)
            .subscribe();
        Ok(events::Subscription {
            backlog,
            live,
            last: after_seq,
        })
    }

    /// A player's record.
    pub fn player(&self, r: v1::GetPlayerRequest) -> Result<v1::GetPlayerResponse, ApiError> {
        if r.name.trim().is_empty() {
            return Err(ApiError::invalid(
                Reason::MissingField,
                "name",
                "name is required: name a player",
            ));
        }
        let st = self.state();
        let id = st
            .by_name
            .get(&r.name.trim().to_lowercase())
            .copied()
            .ok_or_else(|| {
                ApiError::new(
                    Code::NotFound,
                    Reason::PlayerNotFound,
                    format!(
                        "no player is named {}: check the name (the leaderboard lists players)",
                        canasta_engine::quote::quoted(&r.name)
                    ),
                )
            })?;
        let p = &st.players[&id];
        let mut ratings: Vec<v1::Rating> = p
            .ratings
            .iter()
            .map(|(f, r)| rating_to_wire(*f, r))
            .collect();
        ratings.sort_by_key(|r| r.family.map(|f| (f.preset, f.player_count)));
        // As ListGames' page size: 0 for the default, more than the most for the most.
        let count = match r.recent_games as usize {
            0 => 10,
            n => n.min(RECENT_KEPT),
        };
        Ok(v1::GetPlayerResponse {
            player: Some(p.summary()),
            ratings,
            games: p.games,
            wins: p.wins,
            recent_games: p.recent.iter().rev().take(count).cloned().collect(),
        })
    }

    /// A page of a family's leaderboard.
    pub fn leaderboard(
        &self,
        r: v1::GetLeaderboardRequest,
    ) -> Result<v1::GetLeaderboardResponse, ApiError> {
        let family = r.family.ok_or_else(|| {
            ApiError::invalid(
                Reason::MissingField,
                "family",
                "family is required: name a preset and a player count",
            )
        })?;
        // The family is checked as rules are: a preset, a count it is played by.
        let spec = rules_from_wire(&v1::RuleSet {
            preset: family.preset,
            player_count: family.player_count,
            options: Default::default(),
        })
        .map_err(|mut e| {
            e.field = e.field.replace("rules.", "family.");
            e
        })?;
        Rules::new(&spec).map_err(|e| {
            let mut e = ApiError::from(e);
            e.field = Some("family.player_count".into());
            e
        })?;
        let size = match r.page_size as usize {
            0 => 50,
            n => n.min(500),
        };
        let offset: usize = if r.page_token.is_empty() {
            0
        } else {
            r.page_token
                .strip_prefix('p')
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| {
                    ApiError::invalid(
                        Reason::BadPageToken,
                        "page_token",
                        "this page token was not made by this server: start from the first page \
                         (an empty token)",
                    )
                })?
        };
        let key = (family.preset, family.player_count);
        let st = self.state();
        let Some(board) = st.boards.get(&key) else {
            return Ok(v1::GetLeaderboardResponse::default());
        };
        let entries: Vec<v1::LeaderboardEntry> = board
            .iter()
            .enumerate()
            .skip(offset)
            .take(size)
            .map(|(i, ranked)| {
                let p = &st.players[&ranked.player];
                v1::LeaderboardEntry {
                    rank: i as u32 + 1,
                    player: Some(p.summary()),
                    rating: p.ratings.get(&key).map(|r| rating_to_wire(key, r)),
                }
            })
            .collect();
        let next = offset + entries.len();
        Ok(v1::GetLeaderboardResponse {
            entries,
            next_page_token: if next < board.len() {
                format!("p{next}")
            } else {
                String::new()
            },
        })
    }
}

/// What made a lobby game, for a player.
#[derive(Clone, Debug)]
enum Origin {
    Seek(String),
    Challenge(String),
}

/// A seat taken for a player.
#[derive(Clone, Debug)]
struct SeatTaken {
    seat: u32,
    token: String,
}

/// A lobby game made and recorded.
struct Started {
    game: v1::GameSummary,
    seats: Vec<SeatTaken>,
}

/// Each side's place (1 for the best) in a finished match: the winner first, a side that
/// forfeited last, the others by their totals (equal totals tie).
pub fn places(sides: usize, result: &v1::MatchResult) -> Vec<usize> {
    let key = |side: usize| {
        let forfeited = result.forfeited_side == Some(side as u32);
        let won = result.winner_side == Some(side as u32);
        let total = result.totals.get(side).copied().unwrap_or(0);
        // Lower is better.
        (forfeited, !won, -(total as i64))
    };
    (0..sides)
        .map(|s| 1 + (0..sides).filter(|&o| key(o) < key(s)).count())
        .collect()
}

/// A rating on the wire.
fn rating_to_wire(family: Family, r: &Rating) -> v1::Rating {
    v1::Rating {
        family: Some(v1::RatingFamily {
            preset: family.0,
            player_count: family.1,
        }),
        mu: r.mu,
        sigma: r.sigma,
        display: r.display(),
        games: r.games,
        wins: r.wins,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // A forfeiting side places last whatever its score; the winner first; others by totals.
    #[test]
    fn places_follow_the_result() {
        let won = v1::MatchResult {
            finished: true,
            winner_side: Some(1),
            totals: vec![4000, 5100],
            end: v1::MatchEndKind::Target as i32,
            forfeited_side: None,
        };
        assert_eq!(places(2, &won), vec![2, 1]);
        let forfeit = v1::MatchResult {
            finished: true,
            winner_side: Some(2),
            totals: vec![3000, 2000, 1000],
            end: v1::MatchEndKind::Forfeit as i32,
            forfeited_side: Some(0),
        };
        assert_eq!(places(3, &forfeit), vec![3, 2, 1]);
        let tie = v1::MatchResult {
            winner_side: Some(0),
            totals: vec![6000, 100, 100],
            ..won
        };
        assert_eq!(places(3, &tie), vec![1, 2, 2]);
    }

    // A game the lobby made but never recorded (the server stopped between creating it and
    // the lobby's write of its start, which tells its players of it) is ended when the server
    // starts again: nobody holds its seats' tokens. A lobby game it recorded and a game made
    // by CreateGame go on, as every game does.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_restart_ends_the_games_the_lobby_made_but_never_recorded() {
        use crate::metrics::Metrics;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("games.db");
        let config = Arc::new(Config::for_tests());
        let rules = v1::RuleSet {
            preset: v1::Preset::Official as i32,
            player_count: 2,
            options: Default::default(),
        };
        let request = v1::CreateGameRequest {
            rules: Some(rules.clone()),
            ..Default::default()
        };
        // A server: one recorded lobby game of two players, one game made for the lobby and
        // never recorded, one made by CreateGame.
        let serve = |store: &Store, loaded: crate::store::Loaded| {
            let registry = Arc::new(Registry::new(store.clone(), config.clone(), Metrics::new()));
            registry.restore(loaded.games, loaded.damaged);
            let (stop, stopped) = watch::channel(false);
            let lobby = Lobby::new(
                registry.clone(),
                store.clone(),
                config.clone(),
                loaded.lobby,
                stopped,
            );
            (registry, lobby, stop)
        };
        let (mut store, loaded) = Store::open(&path, false).unwrap();
        let (registry, lobby, _stop) = serve(&store, loaded);
        let mut players = Vec::new();
        for name in ["ann", "bob"] {
            let r = v1::RegisterPlayerRequest { name: name.into() };
            lobby.register(r).await.expect("registered");
            let id = lobby.state().by_name[name];
            lobby.state().players.get_mut(&id).unwrap().games_open += 1;
            players.push(id);
        }
        let spec = GameSpec::check(Some(&rules), None, Some(false), &config).expect("rules");
        let origins = vec![Origin::Seek(String::new()); 2];
        let recorded = lobby
            .start_game(&spec, &players, &origins)
            .await
            .expect("a lobby game")
            .game
            .game_id;
        let unrecorded = registry.create_for_lobby(request.clone()).await.unwrap();
        let unrecorded = unrecorded.game.unwrap().game_id;
        let plain = registry
            .create(request)
            .await
            .unwrap()
            .game
            .unwrap()
            .game_id;
        store.close();

        let (mut store, loaded) = Store::open(&path, false).unwrap();
        let (registry, _lobby, _stop) = serve(&store, loaded);
        let handle = registry.get(&unrecorded).expect("restored");
        let mut finished = handle.finished.clone();
        // A guard, not a bound: the end is asked for at the start, and comes at once.
        let ended = tokio::time::timeout(Duration::from_secs(120), finished.wait_for(|f| *f));
        ended.await.expect("the game is ended").expect("it ends");
        let result = handle.summary().result.expect("a result");
        assert_eq!(result.end, v1::MatchEndKind::Cancelled as i32);
        assert_eq!(result.winner_side, None);
        for (id, status) in [
            (&recorded, v1::GameStatus::Playing),
            (&plain, v1::GameStatus::Waiting),
        ] {
            let summary = registry.get(id).expect("restored").summary();
            assert_eq!(summary.status, status as i32, "game {id}");
        }
        let lobby_games: Vec<String> = registry.lobby_games().into_iter().map(|g| g.id).collect();
        assert_eq!(lobby_games, [recorded]);
        store.close();

        // The end is stored: the next start finds the game over, as it left it.
        let (mut store, loaded) = Store::open(&path, false).unwrap();
        let (registry, _lobby, _stop) = serve(&store, loaded);
        let again = registry.get(&unrecorded).expect("restored").summary();
        assert_eq!(again.result, Some(result));
        store.close();
    }

    // Rated games between the house players greedy and random, played to the end by the
    // server's bots through the registry (in memory) and rated by the lobby as any lobby game:
    // after a few hundred, greedy ranks first and its conservative rating (mu - 3 sigma) is
    // above random's optimistic one (mu + 3 sigma).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn house_greedy_ranks_above_house_random_after_rated_games() {
        use crate::metrics::Metrics;
        let config = Arc::new(Config::for_tests());
        let registry = Arc::new(Registry::new(
            Store::memory(),
            config.clone(),
            Metrics::new(),
        ));
        let (_stop, stopped) = watch::channel(false);
        let lobby = Lobby::new(
            registry.clone(),
            Store::memory(),
            config.clone(),
            LobbyLoaded::default(),
            stopped,
        );
        let (greedy, random) = {
            let st = lobby.state();
            (st.by_name["greedy"], st.by_name["random"])
        };
        let rules = v1::RuleSet {
            preset: v1::Preset::Official as i32,
            player_count: 2,
            options: Default::default(),
        };
        let spec = GameSpec::check(Some(&rules), None, Some(true), &config).expect("rated rules");
        let games = 300;
        let mut played = tokio::task::JoinSet::new();
        for g in 0..games {
            let (lobby, spec) = (lobby.clone(), spec.clone());
            played.spawn(async move {
                let players = if g % 2 == 0 {
                    [greedy, random]
                } else {
                    [random, greedy]
                };
                for p in players {
                    lobby.state().players.get_mut(&p).unwrap().games_open += 1;
                }
                let origins = vec![Origin::Seek(String::new()); 2];
                let started = lobby
                    .start_game(&spec, &players, &origins)
                    .await
                    .expect("a game of house players");
                let handle = lobby.registry.get(&started.game.game_id).unwrap();
                let mut finished = handle.finished.clone();
                finished.wait_for(|f| *f).await.expect("the game ends");
                // Rated here, or already by the lobby's own follower: once either way.
                lobby.finish(&started.game.game_id, handle.summary()).await;
            });
            if played.len() >= 16 {
                played.join_next().await.unwrap().unwrap();
            }
        }
        while let Some(done) = played.join_next().await {
            done.unwrap();
        }
        let family = (v1::Preset::Official as i32, 2);
        let (g, r) = {
            let st = lobby.state();
            (
                st.players[&greedy].ratings[&family],
                st.players[&random].ratings[&family],
            )
        };
        assert_eq!(g.games, games);
        assert!(g.wins > games * 9 / 10, "{g:?}");
        assert!(
            g.display() > r.mu + 3.0 * r.sigma,
            "greedy {g:?} against random {r:?}"
        );
        let board = lobby
            .leaderboard(v1::GetLeaderboardRequest {
                family: Some(v1::RatingFamily {
                    preset: family.0,
                    player_count: 2,
                }),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(board.entries[0].player.as_ref().unwrap().name, "greedy");
    }
}
