//! Watch streams: their subscriptions, their counts, and the live feed of the game.
//!
//! A stream gets the events it missed, then everything from the feed; the feed exists only
//! while someone watches. The counts limit spectators per game, and tell the prompts what a
//! seat's streams asked for. Apart from the prompts and the views, which say what a stream is
//! sent, because this is who is listening and how.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use canasta_engine::{Seat, Viewer};
use tokio::sync::broadcast;

use super::{Actor, LogEvent, PromptItem, Status};
use crate::auth::Token;
use crate::errors::ApiError;
use canasta_proto::Reason;

/// What the actor broadcasts to its watchers.
#[derive(Clone, Debug)]
pub enum Item {
    /// An event.
    Event(Arc<LogEvent>),
    /// A seat must act.
    Prompt(Arc<PromptItem>),
}

/// Counts of a game's open watch streams: spectators' (limited per game) and each seat's
/// (limited per token, by the service).
#[derive(Debug, Default)]
pub(super) struct Watchers {
    spectators: AtomicUsize,
    by_seat: [AtomicUsize; 6],
    /// Each seat's streams that asked for its view in prompts.
    views_by_seat: [AtomicUsize; 6],
    /// Each seat's streams that asked for the list of legal actions in prompts.
    actions_by_seat: [AtomicUsize; 6],
}

impl Watchers {
    /// True if a stream of `seat` is open.
    pub(super) fn watch(&self, seat: Seat) -> bool {
        self.by_seat[seat.index()].load(Ordering::Relaxed) > 0
    }

    /// True if a stream of `seat` asked for its view in prompts.
    pub(super) fn want_view(&self, seat: Seat) -> bool {
        self.views_by_seat[seat.index()].load(Ordering::Relaxed) > 0
    }

    /// True if a stream of `seat` asked for the list of legal actions in prompts.
    pub(super) fn want_actions(&self, seat: Seat) -> bool {
        self.actions_by_seat[seat.index()].load(Ordering::Relaxed) > 0
    }
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

impl Actor {
    /// Sends to the watchers; frees the feed once the last one has gone.
    pub(super) fn broadcast(&mut self, item: Item) {
        if let Some(live) = &self.live
            && live.send(item).is_err()
        {
            self.live = None;
        }
    }

    /// Opens a watch stream for the token's seat, or for a spectator.
    pub(super) fn subscribe(
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
            if spectators >= self.config.max_spectators_per_game() {
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
                .get_or_insert_with(|| broadcast::channel(self.config.watch_buffer()).0)
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
}
