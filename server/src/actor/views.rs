//! What a seat or a spectator sees of the game: its view, redacted for the viewer.
//!
//! Apart from the prompts: a view is asked for (GetView) and shows the whole table as the
//! viewer may see it, a prompt is sent to the seat to act when its turn comes. A waiting game
//! shows nothing of its deal, and a game that ended before it started shows what it showed
//! while it waited.

use canasta_engine::Viewer;
use canasta_proto::convert::{self, ViewMeta};
use canasta_proto::v1;

use super::Actor;
use crate::auth::Token;
use crate::errors::ApiError;

impl Actor {
    /// The view of the token's seat, or a spectator's, with the seat's choices (and their
    /// list if asked) when it is to act.
    pub(super) fn view(
        &self,
        token: Option<&Token>,
        include_actions: bool,
    ) -> Result<v1::GetViewResponse, ApiError> {
        let viewer = self.viewer(token)?;
        let view = self.wire_view(viewer);
        let legal = match viewer {
            Viewer::Seat(s) => {
                let max = if include_actions {
                    self.config.max_prompt_actions()
                } else {
                    0
                };
                self.legal_for(s, max)
            }
            _ => None,
        };
        let time_left = legal.as_ref().and(self.time_left());
        Ok(v1::GetViewResponse {
            view: Some(view),
            legal,
            time_left_ms: time_left,
        })
    }

    /// The game on the wire as `viewer` may see it.
    pub(super) fn wire_view(&self, viewer: Viewer) -> v1::GameView {
        let names: Vec<String> = self.seats.iter().map(|s| s.name.clone()).collect();
        let occupied: Vec<bool> = self.seats.iter().map(|s| s.held()).collect();
        // A game that ended before it started (expired, cancelled) shows what it showed while
        // it waited: its deal was never played, and nobody sees it.
        let status = match self.started {
            true => self.wire_status(),
            false => v1::GameStatus::Waiting,
        };
        let meta = ViewMeta {
            game_id: &self.id,
            seq: self.seq(),
            status,
            names: &names,
            occupied: &occupied,
            result: self.result(),
        };
        let mut view = convert::view_to_wire(&self.game.view(viewer), &meta);
        for (seat, slot) in view.seats.iter_mut().zip(&self.seats) {
            seat.bot = slot.bot.clone().unwrap_or_default();
        }
        if status != self.wire_status() {
            view.status = self.wire_status() as i32;
            view.result = self.shown_result();
        }
        view
    }
}
