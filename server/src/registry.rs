//! The games the server holds: created, restored from storage, found by id, listed.
//!
//! `--max-games` limits the unfinished games (waiting or in play): each holds a [`GameSlot`]
//! from its creation until it finishes. Finished games stay, readable, and count for nothing.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use canasta_proto::convert::rules_from_wire;
use canasta_proto::v1;
use tonic::Code;

use crate::actor::{Actor, GameHandle, Rebuilds, now_ms};
use crate::auth::Token;
use crate::bots::BotPool;
use crate::config::Config;
use crate::errors::ApiError;
use crate::metrics::Metrics;
use crate::store::{DamagedGame, Store, StoredGame};
use canasta_proto::Reason;

/// Most games one ListGames page holds.
const MAX_PAGE: usize = 500;
/// Games a ListGames page holds when the request does not say.
const DEFAULT_PAGE: usize = 50;

/// The count of unfinished games, against `--max-games`.
#[derive(Debug)]
pub struct GameSlots {
    held: AtomicUsize,
    max: usize,
}

/// The place of one unfinished game; dropping it (when the game finishes, or when its creation
/// fails) frees the place.
#[derive(Debug)]
pub struct GameSlot {
    slots: Arc<GameSlots>,
}

impl Drop for GameSlot {
    fn drop(&mut self) {
        self.slots.held.fetch_sub(1, Ordering::SeqCst);
    }
}

impl GameSlots {
    /// Room for `max` unfinished games.
    pub fn new(max: usize) -> Arc<GameSlots> {
        Arc::new(GameSlots {
            held: AtomicUsize::new(0),
            max,
        })
    }

    /// Takes a place if one is free: checked and taken in one step, so that concurrent
    /// creations never exceed the limit.
    pub fn try_take(self: &Arc<Self>) -> Option<GameSlot> {
        self.held
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < self.max).then_some(n + 1)
            })
            .ok()
            .map(|_| GameSlot {
                slots: self.clone(),
            })
    }

    /// Takes a place even beyond the limit: a game restored from storage is always served.
    pub fn take(self: &Arc<Self>) -> GameSlot {
        self.held.fetch_add(1, Ordering::SeqCst);
        GameSlot {
            slots: self.clone(),
        }
    }

    /// The places taken.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
    }
}

/// The places (in the registry's creation order) of the games of each status, so that a
/// ListGames of one status visits the games of that status only (it read every game's summary:
/// 158 ms for the finished ones among 200 000 games). Each game's actor moves its place when its
/// status changes (see `Actor::list_in`); a game's status only moves forward (waiting, playing,
/// finished), and a place costs 10 to 20 bytes (B-tree nodes of 11 places, half full to full).
#[derive(Debug, Default)]
pub struct StatusIndex {
    /// Waiting, playing and finished games' places.
    places: RwLock<[BTreeSet<usize>; 3]>,
}

impl StatusIndex {
    fn set(status: v1::GameStatus) -> Option<usize> {
        match status {
            v1::GameStatus::Unspecified => None,
            v1::GameStatus::Waiting => Some(0),
            v1::GameStatus::Playing => Some(1),
            v1::GameStatus::Finished => Some(2),
        }
    }

    /// The game at `place` went from status `from` (none: it was not listed) to `to`.
    pub fn moved(&self, place: usize, from: Option<v1::GameStatus>, to: v1::GameStatus) {
        let mut places = self.places.write().expect("not poisoned");
        if let Some(set) = from.and_then(StatusIndex::set) {
            places[set].remove(&place);
        }
        if let Some(set) = StatusIndex::set(to) {
            places[set].insert(place);
        }
    }

    /// The places of the games of a status, oldest first.
    #[cfg(test)]
    pub(crate) fn places(&self, status: v1::GameStatus) -> Vec<usize> {
        let places = self.places.read().expect("not poisoned");
        StatusIndex::set(status).map_or(Vec::new(), |set| places[set].iter().copied().collect())
    }
}

/// The games of the server.
pub struct Registry {
    games: RwLock<HashMap<String, GameHandle>>,
    /// Ids in creation order, oldest first.
    order: RwLock<Vec<String>>,
    /// The places in `order` of the games of each status.
    statuses: Arc<StatusIndex>,
    /// The rebuilt finished games the games share (see [`Rebuilds`]).
    rebuilds: Arc<Rebuilds>,
    /// What bounds the CPU of the games' built-in bots.
    bots: Arc<BotPool>,
    /// Stored games that could not be restored, by id: they answer `BAD_LOG`.
    damaged: RwLock<HashMap<String, String>>,
    slots: Arc<GameSlots>,
    store: Store,
    config: Arc<Config>,
    metrics: Arc<Metrics>,
}

impl Registry {
    /// An empty registry.
    pub fn new(store: Store, config: Arc<Config>, metrics: Arc<Metrics>) -> Registry {
        Registry {
            games: RwLock::new(HashMap::new()),
            order: RwLock::new(Vec::new()),
            statuses: Arc::default(),
            rebuilds: Rebuilds::new(),
            bots: BotPool::new(&config),
            damaged: RwLock::new(HashMap::new()),
            slots: GameSlots::new(config.max_games()),
            store,
            config,
            metrics,
        }
    }

    /// Starts a game's actor and holds its handle, after the games held.
    fn insert(&self, mut actor: Actor) -> GameHandle {
        actor.share_rebuilds(self.rebuilds.clone());
        actor.share_bots(self.bots.clone());
        // Its place is taken and indexed before its actor runs, which moves it from then on.
        let mut order = self.order.write().expect("not poisoned");
        actor.list_in(self.statuses.clone(), order.len());
        let handle = actor.spawn();
        order.push(handle.id.clone());
        self.games
            .write()
            .expect("not poisoned")
            .insert(handle.id.clone(), handle.clone());
        handle
    }

    /// Brings stored games back, each where it was. A game that cannot be brought back whole
    /// (its log does not read or does not replay) is not served: it answers `BAD_LOG`.
    pub fn restore(&self, stored: Vec<StoredGame>, damaged: Vec<DamagedGame>) {
        for d in damaged {
            self.quarantine(d.id, d.why);
        }
        for g in stored {
            let id = g.id.clone();
            let actor = Actor::new(
                g.id,
                g.created_ms,
                g.request,
                self.store.clone(),
                self.config.clone(),
                self.metrics.clone(),
            );
            match actor.and_then(|mut a| a.replay(&g.entries).map(|_| a)) {
                Ok(mut actor) => {
                    actor.hold_slot(self.slots.take());
                    self.insert(actor);
                    self.metrics.game_added(false);
                }
                Err(e) => {
                    tracing::error!(
                        game = %id,
                        db = %self.config.storage(),
                        error = %e.message,
                        "a stored game does not replay: it is not served (clients get BAD_LOG) \
                         until the database is repaired or the game removed"
                    );
                    self.quarantine(id, format!("its log does not replay: {}", e.message));
                }
            }
        }
    }

    fn quarantine(&self, id: String, why: String) {
        self.damaged.write().expect("not poisoned").insert(id, why);
    }

    /// The number of stored games that are not served because their log is damaged.
    pub fn damaged(&self) -> usize {
        self.damaged.read().expect("not poisoned").len()
    }

    /// Creates a game: checks the request, stores it with its creator token, starts its actor.
    /// The answer holds the creator token, which is never shown again.
    pub async fn create(
        &self,
        request: v1::CreateGameRequest,
    ) -> Result<v1::CreateGameResponse, ApiError> {
        self.create_game(request, false).await
    }

    /// [`Registry::create`] for the lobby: the game's log says the lobby made it, so that a
    /// restart can tell such a game the lobby never recorded (see [`Registry::lobby_games`]).
    pub async fn create_for_lobby(
        &self,
        request: v1::CreateGameRequest,
    ) -> Result<v1::CreateGameResponse, ApiError> {
        self.create_game(request, true).await
    }

    async fn create_game(
        &self,
        mut request: v1::CreateGameRequest,
        for_lobby: bool,
    ) -> Result<v1::CreateGameResponse, ApiError> {
        // The place is taken before anything is awaited, and given back (dropped) if the
        // creation fails.
        let slot = self.slots.try_take().ok_or_else(|| {
            ApiError::exhausted(
                Reason::TooManyGames,
                format!(
                    "the server holds {} unfinished games, its limit: retry later, when games have finished",
                    self.config.max_games()
                ),
                Duration::from_secs(30),
            )
        })?;
        crate::actor::check_time_control(request.time_control.as_ref(), &self.config)?;
        // The bots after the rules they sit at: rules that do not read are refused below, as
        // in a game without bots.
        if let Some(Ok(spec)) = request.rules.as_ref().map(rules_from_wire)
            && let Ok(rules) = canasta_engine::Rules::new(&spec)
        {
            crate::bots::check(&request.bots, rules.players as usize, &self.config)?;
        }
        request.seed.get_or_insert_with(rand::random::<u64>);
        let id = format!("{:016x}", rand::random::<u64>());
        let created_ms = now_ms();
        let mut actor = Actor::new(
            id.clone(),
            created_ms,
            request.clone(),
            self.store.clone(),
            self.config.clone(),
            self.metrics.clone(),
        )?;
        let creator = Token::generate();
        let first = actor.created(&creator, for_lobby)?;
        actor.hold_slot(slot);
        self.store
            .create_game_with(&id, created_ms, &request, Some(&first))
            .await
            .map_err(|e| {
                ApiError::new(
                    Code::Unavailable,
                    Reason::StorageFailed,
                    format!("{e}: retry later"),
                )
            })?;
        let handle = self.insert(actor);
        let summary = handle.summary();
        self.metrics.game_added(true);
        tracing::info!(game = %id, "game created");
        Ok(v1::CreateGameResponse {
            game: Some(summary),
            creator_token: creator.as_str().to_string(),
        })
    }

    /// The unfinished games the lobby made, in no order.
    pub fn lobby_games(&self) -> Vec<GameHandle> {
        self.games
            .read()
            .expect("not poisoned")
            .values()
            .filter(|g| g.for_lobby && !*g.finished.borrow())
            .cloned()
            .collect()
    }

    /// The game with this id.
    pub fn get(&self, id: &str) -> Result<GameHandle, ApiError> {
        if id.is_empty() {
            return Err(ApiError::invalid(
                Reason::MissingField,
                "game_id",
                "game_id is required: name a game (ListGames lists them)",
            ));
        }
        if let Some(handle) = self.games.read().expect("not poisoned").get(id) {
            return Ok(handle.clone());
        }
        if self.damaged.read().expect("not poisoned").contains_key(id) {
            return Err(ApiError::bad_log(format!(
                "game {id} cannot be served: its stored log is damaged and would not replay to \
                 the game that was played; the server's log says what is wrong. Ask the \
                 server's operator to repair the database or remove the game"
            )));
        }
        Err(ApiError::game_not_found(id))
    }

    /// A page of games, newest first, optionally of one status.
    pub fn list(
        &self,
        page_size: u32,
        page_token: &str,
        status: v1::GameStatus,
    ) -> Result<v1::ListGamesResponse, ApiError> {
        self.page(page_size, page_token, status)
            .map(|(page, _)| page)
    }

    /// A page of games, and the number of games visited to make it.
    fn page(
        &self,
        page_size: u32,
        page_token: &str,
        status: v1::GameStatus,
    ) -> Result<(v1::ListGamesResponse, usize), ApiError> {
        let size = match page_size as usize {
            0 => DEFAULT_PAGE,
            n => n.min(MAX_PAGE),
        };
        let order = self.order.read().expect("not poisoned");
        let games = self.games.read().expect("not poisoned");
        // A page token is the position, counted from the oldest game, at which the next page
        // starts: games created meanwhile are appended after it and shift nothing.
        let start: usize = if page_token.is_empty() {
            order.len()
        } else {
            match page_token.parse::<usize>() {
                Ok(n) if n <= order.len() => n,
                _ => {
                    return Err(ApiError::invalid(
                        Reason::BadPageToken,
                        "page_token",
                        "page_token must be a next_page_token from an earlier answer",
                    ));
                }
            }
        };
        let mut out = Vec::new();
        let mut next = String::new();
        let mut visited = 0;
        // One status: only the places of its games, newest first (a game whose actor has
        // changed its summary and not yet the index is skipped by the test below, as it would
        // have been a moment later).
        let statuses = self.statuses.places.read().expect("not poisoned");
        let places: Box<dyn Iterator<Item = usize>> = match StatusIndex::set(status) {
            None => Box::new((0..start).rev()),
            Some(set) => Box::new(statuses[set].range(..start).rev().copied()),
        };
        for i in places {
            visited += 1;
            let Some(handle) = games.get(&order[i]) else {
                continue;
            };
            let summary = handle.summary();
            if status != v1::GameStatus::Unspecified && summary.status != status as i32 {
                continue;
            }
            if out.len() == size {
                next = (i + 1).to_string();
                break;
            }
            out.push(summary);
        }
        let page = v1::ListGamesResponse {
            games: out,
            next_page_token: next,
        };
        Ok((page, visited))
    }

    /// Number of unfinished games (waiting or in play), the ones `--max-games` limits.
    pub fn unfinished(&self) -> usize {
        self.slots.held()
    }

    /// Number of games held.
    pub fn len(&self) -> usize {
        self.games.read().expect("not poisoned").len()
    }

    /// True if no game is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::actor::Command;

    /// A two-player game; with `forfeit`, a move budget of 1 ms that forfeits the match.
    fn request(forfeit: bool) -> v1::CreateGameRequest {
        v1::CreateGameRequest {
            rules: Some(v1::RuleSet {
                preset: v1::Preset::Official as i32,
                player_count: 2,
                options: Default::default(),
            }),
            time_control: forfeit.then_some(v1::TimeControl {
                move_budget_ms: 1,
                policy: v1::TimeoutPolicy::Forfeit as i32,
            }),
            ..Default::default()
        }
    }

    /// Takes both seats of the two-player game `id`, which starts it.
    async fn join_both(registry: &Registry, id: &str) {
        let handle = registry.get(id).expect("the game");
        for seat in 0..2 {
            let name = format!("player {seat}");
            let joined = handle
                .ask(|reply| Command::Join {
                    seat: Some(seat),
                    name,
                    reply,
                })
                .await;
            joined.expect("a free seat");
        }
    }

    /// The page as the listing made it before the index: every game before the token's place,
    /// newest first, read and kept if of the status.
    fn scanned(
        registry: &Registry,
        size: u32,
        token: &str,
        status: v1::GameStatus,
    ) -> v1::ListGamesResponse {
        let size = match size {
            0 => DEFAULT_PAGE,
            n => (n as usize).min(MAX_PAGE),
        };
        let order = registry.order.read().expect("not poisoned");
        let games = registry.games.read().expect("not poisoned");
        let start = if token.is_empty() {
            order.len()
        } else {
            token.parse().expect("a place")
        };
        let mut page = v1::ListGamesResponse::default();
        for i in (0..start).rev() {
            let summary = games[&order[i]].summary();
            if status != v1::GameStatus::Unspecified && summary.status != status as i32 {
                continue;
            }
            if page.games.len() == size {
                page.next_page_token = (i + 1).to_string();
                break;
            }
            page.games.push(summary);
        }
        page
    }

    // A list of one status visits the games of that status only (and the one after its
    // page), not every game (it visited all 300 here), and pages exactly as the scan did.
    // On a paused clock, in memory: nothing but the games' own timers moves it.
    #[tokio::test(start_paused = true)]
    async fn a_list_of_one_status_visits_only_its_games_and_pages_as_before() {
        // The finished games forfeit on a budget of 1 ms: the floor is lowered to allow it.
        let config = Config::for_tests()
            .to_builder()
            .min_move_budget(Duration::from_millis(1))
            .build()
            .unwrap();
        let registry = Registry::new(Store::memory(), Arc::new(config), Metrics::new());
        let mut ids = Vec::new();
        for n in 0..300 {
            let summary = registry
                .create(request(n % 60 == 11))
                .await
                .expect("a game")
                .game
                .expect("a summary");
            ids.push(summary.game_id);
        }
        // Six games in play, five finished (their first move's time runs out), the rest waiting.
        for (n, id) in ids.iter().enumerate() {
            if n % 50 != 7 && n % 60 != 11 {
                continue;
            }
            join_both(&registry, id).await;
        }
        let statuses = |status| {
            ids.iter()
                .filter(|id| registry.get(id).expect("the game").summary().status == status as i32)
                .count()
        };
        // Past the budget: the runtime moves a paused clock on only when every task waits, so
        // the games' time-outs (due first, with nothing but memory to wait for) have run to
        // their end when this returns.
        tokio::time::sleep(Duration::from_millis(2)).await;
        assert_eq!(statuses(v1::GameStatus::Finished), 5);
        assert_eq!(statuses(v1::GameStatus::Playing), 6);

        let (page, visited) = registry
            .page(0, "", v1::GameStatus::Finished)
            .expect("a page");
        assert_eq!((page.games.len(), visited), (5, 5));
        let (page, visited) = registry
            .page(2, "", v1::GameStatus::Playing)
            .expect("a page");
        assert_eq!((page.games.len(), visited), (2, 3));
        assert_eq!(page.next_page_token, "158");
        for status in [
            v1::GameStatus::Unspecified,
            v1::GameStatus::Waiting,
            v1::GameStatus::Playing,
            v1::GameStatus::Finished,
        ] {
            for size in [0, 1, 2, 5, 500] {
                let mut token = String::new();
                let mut pages = 0;
                loop {
                    let (page, visited) = registry.page(size, &token, status).expect("a page");
                    assert_eq!(
                        page,
                        scanned(&registry, size, &token, status),
                        "{status:?} {size} {token}"
                    );
                    if status != v1::GameStatus::Unspecified {
                        assert!(
                            visited <= page.games.len() + 1,
                            "{status:?}: {visited} visited"
                        );
                    }
                    pages += 1;
                    if page.next_page_token.is_empty() {
                        break;
                    }
                    token = page.next_page_token;
                }
                assert!(pages >= 1);
            }
            // Any place is a page token, and pages from it as the scan did.
            for token in ["0", "1", "8", "100", "208", "300"] {
                let (page, _) = registry.page(3, token, status).expect("a page");
                assert_eq!(page, scanned(&registry, 3, token, status));
            }
        }
    }

    // The cost of a list of one status among many games, for docs/performance.md: 200 000
    // games, 2 000 of them finished, listed with the index and with the scan it replaced.
    // `cargo test -p canasta-server --release --lib -- --ignored --nocapture
    // measure_lists_of_one_status`
    #[tokio::test(start_paused = true)]
    #[ignore]
    async fn measure_lists_of_one_status() {
        let registry = Registry::new(
            Store::memory(),
            Arc::new(Config::for_tests()),
            Metrics::new(),
        );
        let mut finishing = Vec::new();
        for n in 0..200_000 {
            let summary = registry
                .create(request(n % 100 == 0))
                .await
                .expect("a game")
                .game
                .expect("a summary");
            if n % 100 == 0 {
                finishing.push(summary.game_id);
            }
        }
        for id in &finishing {
            join_both(&registry, id).await;
        }
        // Past the budget, on the paused clock: every time-out has run (see above).
        tokio::time::sleep(Duration::from_millis(2)).await;
        assert!(finishing.iter().all(|id| {
            registry.get(id).expect("the game").summary().status == v1::GameStatus::Finished as i32
        }));
        let median = |f: &dyn Fn()| {
            let mut times: Vec<Duration> = (0..21)
                .map(|_| {
                    let t = std::time::Instant::now();
                    f();
                    t.elapsed()
                })
                .collect();
            times.sort();
            times[10]
        };
        for status in [
            v1::GameStatus::Finished,
            v1::GameStatus::Playing,
            v1::GameStatus::Waiting,
        ] {
            let (page, visited) = registry.page(50, "", status).expect("a page");
            assert_eq!(page, scanned(&registry, 50, "", status));
            let indexed = median(&|| {
                registry.page(50, "", status).expect("a page");
            });
            let scan = median(&|| {
                scanned(&registry, 50, "", status);
            });
            println!(
                "{status:?}: {} games listed, {visited} visited, {indexed:?} (the scan: {scan:?}, medians of 21)",
                page.games.len()
            );
        }
    }
}
