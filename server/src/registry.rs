//! The games the server holds: created, restored from storage, found by id, listed.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use canasta_proto::v1;
use tonic::Code;

use crate::actor::{Actor, GameHandle, now_ms};
use crate::config::Config;
use crate::errors::ApiError;
use crate::metrics::Metrics;
use crate::store::{Store, StoredGame};

/// Most games one ListGames page holds.
const MAX_PAGE: usize = 500;
/// Games a ListGames page holds when the request does not say.
const DEFAULT_PAGE: usize = 50;

/// The games of the server.
pub struct Registry {
    games: RwLock<HashMap<String, GameHandle>>,
    /// Ids in creation order, oldest first.
    order: RwLock<Vec<String>>,
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
            store,
            config,
            metrics,
        }
    }

    fn insert(&self, handle: GameHandle) {
        self.order
            .write()
            .expect("not poisoned")
            .push(handle.id.clone());
        self.games
            .write()
            .expect("not poisoned")
            .insert(handle.id.clone(), handle);
    }

    /// Brings stored games back, each where it was.
    pub fn restore(&self, stored: Vec<StoredGame>) {
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
                Ok(actor) => {
                    self.insert(actor.spawn());
                    self.metrics.game_added(false);
                }
                Err(e) => {
                    tracing::error!(game = %id, error = %e.message, "a stored game cannot be restored")
                }
            }
        }
    }

    /// Creates a game: checks the request, stores it, starts its actor.
    pub async fn create(
        &self,
        mut request: v1::CreateGameRequest,
    ) -> Result<v1::GameSummary, ApiError> {
        let held = self.games.read().expect("not poisoned").len();
        if held >= self.config.max_games {
            return Err(ApiError::exhausted(
                "TOO_MANY_GAMES",
                format!("the server holds {held} games, its limit: retry later"),
                Duration::from_secs(30),
            ));
        }
        // An unknown policy is refused even without a budget (where it would never act), as
        // every unknown enum value is; the actor checks the rest of the time control.
        if let Some(tc) = &request.time_control
            && v1::TimeoutPolicy::try_from(tc.policy).is_err()
        {
            return Err(ApiError::invalid(
                "INVALID_ENUM",
                "time_control.policy",
                format!(
                    "policy {} is not a TimeoutPolicy: send TIMEOUT_POLICY_FALLBACK_MOVE or TIMEOUT_POLICY_FORFEIT",
                    tc.policy
                ),
            ));
        }
        request.seed.get_or_insert_with(rand::random::<u64>);
        let id = format!("{:016x}", rand::random::<u64>());
        let created_ms = now_ms();
        let actor = Actor::new(
            id.clone(),
            created_ms,
            request.clone(),
            self.store.clone(),
            self.config.clone(),
            self.metrics.clone(),
        )?;
        self.store
            .create_game(&id, created_ms, &request)
            .await
            .map_err(|e| {
                ApiError::new(
                    Code::Unavailable,
                    "STORAGE_FAILED",
                    format!("{e}: retry later"),
                )
            })?;
        let handle = actor.spawn();
        let summary = handle.summary();
        self.insert(handle);
        self.metrics.game_added(true);
        tracing::info!(game = %id, "game created");
        Ok(summary)
    }

    /// The game with this id.
    pub fn get(&self, id: &str) -> Result<GameHandle, ApiError> {
        if id.is_empty() {
            return Err(ApiError::invalid(
                "MISSING_FIELD",
                "game_id",
                "game_id is required: name a game (ListGames lists them)",
            ));
        }
        self.games
            .read()
            .expect("not poisoned")
            .get(id)
            .cloned()
            .ok_or_else(|| ApiError::game_not_found(id))
    }

    /// A page of games, newest first, optionally of one status.
    pub fn list(
        &self,
        page_size: u32,
        page_token: &str,
        status: v1::GameStatus,
    ) -> Result<v1::ListGamesResponse, ApiError> {
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
                        "BAD_PAGE_TOKEN",
                        "page_token",
                        "page_token must be a next_page_token from an earlier answer",
                    ));
                }
            }
        };
        let mut out = Vec::new();
        let mut next = String::new();
        for i in (0..start).rev() {
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
        Ok(v1::ListGamesResponse {
            games: out,
            next_page_token: next,
        })
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
