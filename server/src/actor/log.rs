//! The game's log: its events, and its entries stored, applied and replayed.
//!
//! Every change of a game is an entry of its log, and [`Actor::apply_entry`] is the one place
//! where an entry changes the game, live or on replay; a live entry is stored first
//! ([`Actor::commit`]). It is apart from the other jobs because they all come to it: a join, an
//! action, a time-out and an end are each made into an entry by their own file, and applied
//! here, in the same order on restart.

use std::sync::Arc;

use canasta_engine::{Action, Event, Phase, Seat, Viewer, redact};
use canasta_proto::convert::{action_from_wire, event_to_wire};
use canasta_proto::v1;
use prost::Message;
use tonic::Code;

use super::retry::{AppliedRequest, action_fingerprint};
use super::{Actor, Item, Status, now_ms};
use crate::auth::Token;
use crate::errors::ApiError;
use crate::store::{CreatedEntry, EndCause, Entry, EntryKind};
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

impl Actor {
    /// Makes the new game's first entry, which holds its creator token and whether the lobby
    /// made it, and applies it.
    /// Returns the entry's encoding, for the store to write with the game (see
    /// [`Store::create_game_with`](crate::store::Store::create_game_with)): the game is
    /// stored with its creator or not at all.
    pub fn created(&mut self, creator: &Token, for_lobby: bool) -> Result<Vec<u8>, ApiError> {
        let entry = Entry {
            kind: Some(EntryKind::Created(CreatedEntry {
                creator_token: creator.as_str().to_string(),
                for_lobby,
            })),
            at_ms: self.created_ms,
        };
        entry
            .encode_length_delimited(&mut self.entry_log)
            .expect("a Vec grows as needed");
        let body = self.entry_log.len() - entry.encoded_len();
        self.apply_entry(&entry)?;
        self.entries += 1;
        // The server's bots hold their seats from the creation on (and start a game they
        // fill): the answer to CreateGame shows them.
        self.refresh_summary();
        self.restart_clock();
        Ok(self.entry_log[body..].to_vec())
    }

    /// Applies stored entries again, as on restart. A game they finish is compacted; one
    /// they leave unfinished counts its policies' time from its last activity as the log
    /// tells it (see `unplayed.rs`).
    pub fn replay(&mut self, entries: &[Entry]) -> Result<(), ApiError> {
        self.replay_at(entries, now_ms())
    }

    /// [`Actor::replay`], at the wall-clock time `now_ms`.
    pub(super) fn replay_at(&mut self, entries: &[Entry], now_ms: i64) -> Result<(), ApiError> {
        self.apply_all(entries)?;
        for entry in entries {
            entry
                .encode_length_delimited(&mut self.entry_log)
                .expect("a Vec grows as needed");
        }
        self.unplayed.replayed(self.created_ms, now_ms);
        self.refresh_summary();
        self.restart_clock();
        self.compact();
        Ok(())
    }

    /// Applies entries in order: what a restart and a rebuild of a finished game share.
    pub(super) fn apply_all(&mut self, entries: &[Entry]) -> Result<(), ApiError> {
        for entry in entries {
            self.apply_entry(entry)?;
            self.entries += 1;
        }
        Ok(())
    }

    /// The seq of the last event.
    pub(super) fn seq(&self) -> u64 {
        self.seq
    }

    /// Appends an event to the log and sends it to the watchers.
    fn push(&mut self, kind: LogKind) {
        self.seq += 1;
        let event = Arc::new(LogEvent {
            seq: self.seq,
            kind,
        });
        self.log.push(event.clone());
        self.broadcast(Item::Event(event));
    }

    /// Stores a live entry, then applies it.
    pub(super) async fn commit(&mut self, mut entry: Entry) -> Result<(), ApiError> {
        let active = self.unplayed.stamp(&mut entry);
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
            self.unplayed.active_now();
        }
        self.refresh_summary();
        self.restart_clock();
        self.prompt_to_act();
        self.wake_bot();
        Ok(())
    }

    /// Applies one entry of the log to the state (live or on replay): the one place where the
    /// game changes.
    fn apply_entry(&mut self, entry: &Entry) -> Result<(), ApiError> {
        let kind = entry
            .kind
            .as_ref()
            .ok_or_else(|| ApiError::bad_log("an empty log entry"))?;
        self.unplayed.applied(kind, entry.at_ms);
        match kind {
            EntryKind::Created(c) => {
                self.creator = Some(Token::from_stored(c.creator_token.clone()));
                self.for_lobby = c.for_lobby;
                // The server's bots hold their seats from the creation on.
                let bots: Vec<(usize, String)> = self
                    .seats
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| s.bot.clone().map(|b| (i, b)))
                    .collect();
                for (seat, name) in bots {
                    self.push(LogKind::Server(v1::game_event::Kind::SeatJoined(
                        v1::SeatJoined {
                            seat: seat as u32,
                            display_name: name.clone(),
                        },
                    )));
                    self.seats[seat].name = name;
                }
                self.start_if_full();
            }
            EntryKind::End(e) => {
                let cause = EndCause::try_from(e.cause)
                    .ok()
                    .filter(|c| *c != EndCause::Unspecified)
                    .ok_or_else(|| {
                        ApiError::bad_log(format!("an end of unknown cause {}", e.cause))
                    })?;
                if self.status == Status::Finished {
                    return Err(ApiError::bad_log("an end after the end of the match"));
                }
                self.ended = Some(cause.end_kind(self.status != Status::Waiting));
                self.end_match();
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
                self.start_if_full();
            }
            EntryKind::Leave(l) => {
                let slot = &mut self.seats[l.seat as usize];
                slot.token = None;
                self.seat_ids.set(l.seat as usize, None);
                // The name is the holder's: a free seat has none.
                slot.name.clear();
                // The seat's next holder chooses request ids afresh: none of this holder's
                // requests may be answered to it as a retry.
                self.retries.forget_seat(l.seat);
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
                self.clock.acted();
                let applied = AppliedRequest {
                    first,
                    last: self.seq(),
                    action: fingerprint,
                };
                self.retries
                    .remember(self.seats.len(), a.seat, a.request_id.clone(), applied);
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
                self.clock.timed_out(t.seat);
                match &t.action {
                    Some(a) => self.play(Seat(t.seat as u8), action_from_wire(a)?)?,
                    // Decided when the time-out was stored, not counted again here: the log
                    // says where the match ended, whatever ABANDON_AFTER is when it replays.
                    None if t.abandoned => {
                        self.ended = Some(v1::MatchEndKind::Abandoned);
                        self.end_match();
                    }
                    None => {
                        let side = self.game.table().side_of(Seat(t.seat as u8));
                        self.forfeited = Some(side);
                        self.end_match();
                    }
                }
            }
        }
        Ok(())
    }

    /// Starts the waiting game once every seat is held: GameStarted, then the first deal.
    fn start_if_full(&mut self) {
        if self.status == Status::Waiting && self.seats.iter().all(|s| s.held()) {
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

    /// Applies a seat's action to the game and logs its events.
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

    /// The server ends the match (no seat went out: an end, an abandon, a forfeit, each set
    /// before): it finishes, and MatchEnded tells its result.
    fn end_match(&mut self) {
        self.finish();
        let result = self.result();
        self.push(LogKind::Server(v1::game_event::Kind::MatchEnded(
            v1::MatchEnded {
                result: Some(result),
            },
        )));
    }

    /// The entries of the log as stored, decoded from the compact log: what a rebuild
    /// replays.
    pub(super) fn stored_entries(&self) -> Result<Vec<Entry>, prost::DecodeError> {
        let mut entries = Vec::with_capacity(self.entries as usize);
        let mut bytes = self.entry_log.as_slice();
        while !bytes.is_empty() {
            entries.push(Entry::decode_length_delimited(&mut bytes)?);
        }
        Ok(entries)
    }
}
