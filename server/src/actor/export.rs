//! A finished game's record: its setup, its players' names, every action played and the result,
//! from which the game replays.
//!
//! Apart from the log because the record is a view of it for archives and replays, built only
//! on request; a compacted game exports its rebuild (`compact.rs`).

use canasta_proto::convert::action_to_wire;
use canasta_proto::v1;
use tonic::Code;

use super::{Actor, Status};
use crate::errors::ApiError;
use canasta_proto::Reason;

impl Actor {
    /// The record of the finished game; refused before its end.
    pub(super) fn export(&self) -> Result<v1::GameRecord, ApiError> {
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
}
