//! The prompt that tells the seat to act its choices, and those choices.
//!
//! A prompt is built once for all of a seat's streams, with every part one of them asked for
//! (the list of actions, the view), and each stream sends its watcher what it asked for.
//! Apart from the watchers (who asked for what) and the views (what a prompt may carry).

use std::sync::Arc;

use canasta_engine::{Seat, Viewer};
use canasta_proto::convert::legal_to_wire;
use canasta_proto::v1;

use super::{Actor, Item};

/// A prompt with every part a watcher may ask for; each stream sends what its watcher asked
/// for (see [`PromptItem::for_watcher`]).
#[derive(Debug)]
pub struct PromptItem {
    /// The prompt with the summary of the legal choices, without the list of actions and the
    /// view.
    pub prompt: v1::Prompt,
    /// The legal actions (at most the configured number).
    pub actions: Vec<v1::Action>,
    /// True if `actions` was cut at that number.
    pub actions_truncated: bool,
    /// The seat's view, built only while one of the seat's streams asked for it.
    pub view: Option<Box<v1::GameView>>,
}

impl PromptItem {
    /// The prompt as a watcher gets it: with the list of actions and the view if asked.
    pub fn for_watcher(&self, include_actions: bool, include_view: bool) -> v1::Prompt {
        let mut prompt = self.prompt.clone();
        if include_actions && let Some(l) = &mut prompt.legal {
            l.actions = self.actions.clone();
            l.actions_truncated = self.actions_truncated;
        }
        if include_view {
            prompt.view = self.view.clone();
        }
        prompt
    }
}

impl Actor {
    /// The legal choices of `seat` if it is to act, with at most `max_actions` actions listed.
    pub(super) fn legal_for(&self, seat: Seat, max_actions: usize) -> Option<v1::LegalChoices> {
        if self.seat_to_act() != Some(seat) {
            return None;
        }
        // The referee's own choices for the seat: the same as its view's, without building one.
        let legal = self.game.legal()?;
        Some(legal_to_wire(&legal, max_actions))
    }

    /// The prompt of `seat`, with every part a watcher may ask for.
    pub(super) fn prompt(&self, seat: Seat) -> Option<Arc<PromptItem>> {
        // The list of actions, like the view, only for streams that asked for it.
        let max_actions = if self.watchers.want_actions(seat) {
            self.config.max_prompt_actions()
        } else {
            0
        };
        let mut legal = self.legal_for(seat, max_actions)?;
        let actions = std::mem::take(&mut legal.actions);
        let actions_truncated = std::mem::replace(&mut legal.actions_truncated, false);
        Some(Arc::new(PromptItem {
            prompt: v1::Prompt {
                game_id: self.id.clone(),
                seq: self.seq(),
                seat: seat.0 as u32,
                legal: Some(Box::new(legal)),
                time_left_ms: self.time_left(),
                view: None,
            },
            actions,
            actions_truncated,
            // Building and converting a view costs more than the rest of a prompt: only for
            // streams that asked for it.
            view: self
                .watchers
                .want_view(seat)
                .then(|| Box::new(self.wire_view(Viewer::Seat(seat)))),
        }))
    }

    /// Prompts the seat to act, if anyone watches that seat.
    pub(super) fn prompt_to_act(&mut self) {
        let Some(seat) = self.seat_to_act() else {
            return;
        };
        if !self.watchers.watch(seat) {
            return;
        }
        if let Some(p) = self.prompt(seat) {
            self.broadcast(Item::Prompt(p));
        }
    }
}
