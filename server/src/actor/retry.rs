//! The applied requests a game remembers, to answer their retries as the first time.
//!
//! A client that lost an answer sends the same action again with the same request id; the
//! game answers it from memory instead of applying it twice, and refuses the id used again for
//! another action. Apart from the actions because it is state of its own (the requests by seat
//! and id, bounded per seat; once finished, an index of their keys), kept as the log is
//! applied and dropped with the finished game's log (`compact.rs`).

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasher, RandomState};
use std::sync::{Arc, LazyLock};

use canasta_engine::{Action, Seat, Viewer};
use canasta_proto::convert::action_from_wire;
use canasta_proto::v1;

use super::{Actor, LogEvent};
use crate::errors::ApiError;
use canasta_proto::Reason;

/// Most request ids remembered per seat for answering retries.
const REMEMBERED_REQUESTS: usize = 256;

/// An applied request, remembered to answer its retries.
#[derive(Clone, Copy, Debug)]
pub(super) struct AppliedRequest {
    /// The seq of its first event.
    pub(super) first: u64,
    /// The seq of its last event.
    pub(super) last: u64,
    /// The fingerprint of its action (see [`action_fingerprint`]).
    pub(super) action: u64,
}

/// A fingerprint of an action, to tell a retry (the same action) from a request id used again
/// for another action, in 8 bytes rather than the whole action. A fixed-key hash: the same in
/// every run, so that it is computed again on replay. Two different actions share one with
/// probability 2^-64 (the second would then be answered as a retry of the first).
pub(super) fn action_fingerprint(action: &Action) -> u64 {
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

/// The applied requests a game remembers, to answer their retries as the first time; once the
/// finished game is compacted, only the keys of their ids.
#[derive(Debug, Default)]
pub(super) struct Retries {
    /// Applied requests by (seat, request id): the seqs of their events, and the fingerprint
    /// of their action (a retry must repeat the action).
    requests: HashMap<(u32, String), AppliedRequest>,
    /// The same, the oldest first: the game keeps at most [`REMEMBERED_REQUESTS`] a seat.
    order: VecDeque<(u32, String)>,
    /// Once compacted: the keys ([`request_key`]) of the remembered requests' seats and ids,
    /// sorted, to tell a retry without a replay (8 bytes a request, at most
    /// [`REMEMBERED_REQUESTS`] a seat).
    keys: Box<[u64]>,
}

impl Retries {
    /// Remembers an applied request of `seat` in a game of `seats` seats, forgetting the
    /// oldest beyond [`REMEMBERED_REQUESTS`] a seat.
    pub(super) fn remember(
        &mut self,
        seats: usize,
        seat: u32,
        request_id: String,
        applied: AppliedRequest,
    ) {
        if request_id.is_empty() {
            return;
        }
        let key = (seat, request_id);
        self.requests.insert(key.clone(), applied);
        self.order.push_back(key);
        if self.order.len() > REMEMBERED_REQUESTS * seats
            && let Some(old) = self.order.pop_front()
        {
            self.requests.remove(&old);
        }
    }

    /// Forgets the requests of `seat`, whose holder has left.
    pub(super) fn forget_seat(&mut self, seat: u32) {
        self.requests.retain(|(s, _), _| *s != seat);
        self.order.retain(|(s, _)| *s != seat);
    }

    /// Drops the requests of the finished game (see [`Actor::compact`]), keeping the keys
    /// ([`request_key`]) of their ids, sorted, to tell a retry without a replay.
    pub(super) fn compact(&mut self) {
        let mut keys: Vec<u64> = self
            .requests
            .keys()
            .map(|(seat, id)| request_key(*seat, id))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        self.keys = keys.into_boxed_slice();
        self.requests = HashMap::new();
        self.order = VecDeque::new();
    }

    /// True if the compacted game may hold a retry of this seat's request id: it remembered a
    /// request of the seat with that id when it was compacted.
    fn may_retry(&self, seat: Seat, request_id: &str) -> bool {
        self.keys
            .binary_search(&request_key(seat.0 as u32, request_id))
            .is_ok()
    }

    /// The answer to a retry of an applied request (the same seat and request id), as the
    /// first time, from the game's `log`; `None` if the request is not a remembered one.
    fn answer(
        &self,
        log: &[Arc<LogEvent>],
        seat: Seat,
        request_id: &str,
        action: &v1::Action,
        with_events: bool,
    ) -> Option<Result<v1::SubmitActionResponse, ApiError>> {
        let applied = *self
            .requests
            .get(&(seat.0 as u32, request_id.to_string()))?;
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
        Some(Ok(response(
            log,
            seat,
            applied.first,
            applied.last,
            with_events,
        )))
    }

    /// The memory the remembered requests hold: their map's and their order's capacities.
    #[cfg(test)]
    pub(super) fn capacity(&self) -> (usize, usize) {
        (self.requests.capacity(), self.order.capacity())
    }

    /// The number of keys a compacted game keeps.
    #[cfg(test)]
    pub(super) fn keys_kept(&self) -> usize {
        self.keys.len()
    }
}

/// The answer to an applied request whose events are `first..=last` of `log` (on a compacted
/// game, the rebuilt log).
pub(super) fn response(
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
    // `last`, not the current seq: a retry is answered exactly as the first time, even after
    // later actions.
    v1::SubmitActionResponse { seq: last, events }
}

impl Actor {
    /// The answer to a retry of an applied request of `seat` with `request_id`, as the first
    /// time; `None` if it is not a retry. A finished game has dropped its requests and events:
    /// they are rebuilt to answer a retry. Only a request id the seat's remembered requests had
    /// can be one (the game keeps an index of them), so any other action is refused without
    /// the replay, which a client could otherwise make the server do for every request.
    pub(super) fn answer_retry(
        &self,
        seat: Seat,
        request_id: &str,
        action: &v1::Action,
        with_events: bool,
    ) -> Option<Result<v1::SubmitActionResponse, ApiError>> {
        match self.compacted {
            true if self.retries.may_retry(seat, request_id) => match self.rebuilt() {
                Ok(rebuilt) => {
                    rebuilt
                        .retries
                        .answer(&rebuilt.log, seat, request_id, action, with_events)
                }
                Err(e) => Some(Err(e)),
            },
            true => None,
            false => self
                .retries
                .answer(&self.log, seat, request_id, action, with_events),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{actor, play_to_end};
    use super::*;

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
}
