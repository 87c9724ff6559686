//! The match's result, the game's status, and its summary and scores.
//!
//! The result is one place for how a match ended (won, forfeited, abandoned, expired,
//! cancelled), read by the summary, the views, the scores, the export and the log's
//! MatchEnded. The summary is shared with the registry, which lists games without asking
//! their actors; the actor keeps it current after every entry.

use canasta_engine::Seat;
use canasta_proto::convert::{deal_score_to_wire, result_to_wire};
use canasta_proto::v1;

use super::{Actor, Status};

impl Actor {
    /// The current summary.
    pub(super) fn summary(&self) -> v1::GameSummary {
        self.summary.lock().expect("not poisoned").clone()
    }

    /// The deal scores and the result.
    pub(super) fn scores(&self) -> v1::GetScoresResponse {
        v1::GetScoresResponse {
            deals: self.game.history().iter().map(deal_score_to_wire).collect(),
            result: self.shown_result(),
        }
    }

    /// How the match stands or ended: the engine's result, unless the server ended it.
    pub(super) fn result(&self) -> v1::MatchResult {
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
    pub(super) fn shown_result(&self) -> Option<v1::MatchResult> {
        (self.status != Status::Waiting).then(|| self.result())
    }

    /// The game's status on the wire.
    pub(super) fn wire_status(&self) -> v1::GameStatus {
        match self.status {
            Status::Waiting => v1::GameStatus::Waiting,
            Status::Playing => v1::GameStatus::Playing,
            Status::Finished => v1::GameStatus::Finished,
        }
    }

    /// Makes the shared summary current, and moves the game in the registry's index of
    /// statuses when its status changed.
    pub(super) fn refresh_summary(&self) {
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
                    occupied: s.held(),
                    display_name: s.name.clone(),
                    bot: s.bot.clone().unwrap_or_default(),
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
        if now == v1::GameStatus::Finished as i32 {
            self.finished
                .send_if_modified(|finished| !std::mem::replace(finished, true));
        }
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
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::testing::{actor, join, play_to_end};
    use super::*;
    use crate::registry::StatusIndex;

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
}
