//! The seats and their tokens: taking a seat, leaving it, and whose a token is.
//!
//! Every other request of a seat starts here ([`Actor::seat_of`]): a token names a seat of this
//! game or nothing. Apart because the seats are the one state every job reads, and a seat
//! changes only by a join or a leave, which this file makes into entries of the log.

use canasta_engine::{Seat, Viewer};
use canasta_proto::v1;
use tonic::Code;

use super::{Actor, Status};
use crate::auth::Token;
use crate::errors::ApiError;
use crate::store::{Entry, EntryKind, JoinEntry, LeaveEntry};
use canasta_proto::Reason;

/// A seat: its holder's token and display name, or none; or the server's built-in bot.
#[derive(Clone, Debug, Default)]
pub(super) struct SeatSlot {
    pub(super) token: Option<Token>,
    pub(super) name: String,
    /// The built-in bot the server plays the seat with, by name: the seat is held from the
    /// game's creation on, by no token.
    pub(super) bot: Option<String>,
}

impl SeatSlot {
    /// True if someone holds the seat: a client (with its token) or a built-in bot.
    pub(super) fn held(&self) -> bool {
        self.token.is_some() || self.bot.is_some()
    }
}

impl Actor {
    /// The seat the token holds in this game.
    pub(super) fn seat_of(&self, token: &Token) -> Result<Seat, ApiError> {
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

    /// Who a token is: its seat, or a spectator without one.
    pub(super) fn viewer(&self, token: Option<&Token>) -> Result<Viewer, ApiError> {
        match token {
            None => Ok(Viewer::Spectator),
            Some(t) => self.seat_of(t).map(Viewer::Seat),
        }
    }

    /// Gives `seat` (or the lowest free one) to a new holder named `name`, with a new token.
    pub(super) async fn join(
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
            Some(s) if self.seats[s as usize].held() => {
                return Err(ApiError::new(
                    Code::FailedPrecondition,
                    Reason::SeatTaken,
                    format!(
                        "seat {s} is taken: join another seat, or leave the seat unset for a free one"
                    ),
                ));
            }
            Some(s) => s,
            None => self.seats.iter().position(|s| !s.held()).ok_or_else(|| {
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
            game: Some(self.summary()),
        })
    }

    /// Gives the token's seat up.
    pub(super) async fn leave(&mut self, token: &Token) -> Result<(), ApiError> {
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
}

#[cfg(test)]
mod tests {
    use super::super::testing::{self, actor, join};
    use super::*;

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
        let entries = actor.stored_entries().expect("the entries");
        let mut restored = testing::actor();
        restored.replay(&entries).expect("the log replays");
        let handle = restored.spawn();
        assert!(handle.seats.holds(second.id()) && handle.seats.holds(third.id()));
        assert!(!handle.seats.holds(first.id()));
    }

    // JoinGame says what is wrong with a join: a seat that does not exist before anything of
    // the name, and a missing name as a missing field.
    #[tokio::test]
    async fn a_join_names_the_seat_before_the_name() {
        let mut actor = actor();
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
