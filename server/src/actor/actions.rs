//! A seat's actions: checked (the dry run) and submitted.
//!
//! An action is refused unless the game is in play, the token holds the seat to act, the seq
//! is the game's and the rules allow it; it is then stored and applied as an entry of the log.
//! Apart from the seats (who holds a token) and the retries (answers from memory), which it
//! asks first.

use canasta_engine::{RuleError, Seat};
use canasta_proto::convert::{action_from_wire, action_to_wire};
use canasta_proto::v1;
use tonic::Code;

use super::retry::response;
use super::{Actor, Status};
use crate::auth::Token;
use crate::errors::ApiError;
use crate::store::{ActEntry, Entry, EntryKind};
use canasta_proto::Reason;

impl Actor {
    /// The seat to act, while the game is in play.
    pub(super) fn seat_to_act(&self) -> Option<Seat> {
        self.game
            .to_act()
            .filter(|_| self.status == Status::Playing)
    }

    /// Refuses an action unless the game is in play.
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

    /// Applies the seat's action: stored, then applied and answered with its events (or
    /// answered as the first time, if it is a retry).
    pub(super) async fn submit(
        &mut self,
        token: &Token,
        expected_seq: u64,
        request_id: String,
        action: &v1::Action,
        with_events: bool,
    ) -> Result<v1::SubmitActionResponse, ApiError> {
        let seat = self.seat_of(token)?;
        self.act(seat, expected_seq, request_id, action, with_events)
            .await
    }

    /// Applies `seat`'s action: the one path of every seat's action, a client's (its token
    /// checked by [`Actor::submit`]) or a built-in bot's (`house.rs`).
    pub(super) async fn act(
        &mut self,
        seat: Seat,
        expected_seq: u64,
        request_id: String,
        action: &v1::Action,
        with_events: bool,
    ) -> Result<v1::SubmitActionResponse, ApiError> {
        if request_id.is_empty() || request_id.len() > 64 {
            return Err(ApiError::invalid(
                Reason::BadRequestId,
                "request_id",
                "request_id must have 1 to 64 characters: a fresh one per action, the same one when retrying",
            ));
        }
        if let Some(answer) = self.answer_retry(seat, &request_id, action, with_events) {
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
        Ok(response(&self.log, seat, first, self.seq(), with_events))
    }

    /// Checks the seat's action against the rules without applying it (the dry run).
    pub(super) fn check(
        &self,
        token: &Token,
        action: &v1::Action,
    ) -> Result<Result<(), RuleError>, ApiError> {
        let seat = self.seat_of(token)?;
        self.playing()?;
        let action = action_from_wire(action)?;
        Ok(self.game.check(seat, &action))
    }
}
