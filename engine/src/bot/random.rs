//! The `random` bot: uniform among the legal actions in canonical form.

use super::Bot;
use crate::action::Action;
use crate::legal::LegalChoices;
use crate::rng::Xoshiro256;
use crate::view::View;

/// Picks uniformly among the legal actions (see [`crate::legal`] for the canonical form).
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: Xoshiro256,
    actions: Vec<Action>,
}

impl RandomBot {
    /// A random bot seeded for reproducible play.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: Xoshiro256::seed_from_u64(seed),
            actions: Vec::new(),
        }
    }

    /// Picks an action from the legal choices ([`super::NOTHING_LEGAL`] if there is none).
    pub fn pick(&mut self, legal: &LegalChoices<'_>) -> Action {
        self.actions.clear();
        legal.actions(&mut self.actions);
        if self.actions.is_empty() {
            return super::NOTHING_LEGAL;
        }
        let i = self.rng.below(self.actions.len() as u64) as usize;
        self.actions.swap_remove(i)
    }
}

impl Bot for RandomBot {
    fn name(&self) -> &str {
        "random"
    }

    fn choose(&mut self, _view: &View, legal: &LegalChoices<'_>) -> Action {
        self.pick(legal)
    }
}
