//! The `safe` bot: the server's fallback when a seat's move time runs out. It makes a quiet,
//! legal move and never takes risks: it draws, melds nothing, discards the card least useful to
//! the opponents, answers its partner no, and declines the pile when allowed.

use super::Bot;
use crate::action::Action;
use crate::card::{Card, Rank};
use crate::game::Phase;
use crate::legal::LegalChoices;
use crate::view::View;

/// Plays the safest legal move (see the module documentation). Deterministic.
#[derive(Clone, Debug, Default)]
pub struct SafeBot {
    actions: Vec<Action>,
}

impl SafeBot {
    /// A safe bot.
    pub fn new() -> SafeBot {
        SafeBot::default()
    }

    /// How risky discarding `card` is: lower is safer. Black threes block the pile; then cards
    /// of ranks no opponent has melded, lowest value first; wild cards last.
    fn risk(view: &View, card: Card) -> u32 {
        if card.is_black_three() {
            return 0;
        }
        if card.is_wild() {
            return 10_000 + card.value();
        }
        let me = view.to_act.map(|s| view.seats[s.index()].side);
        let melded_by_opponents = view
            .sides
            .iter()
            .filter(|s| Some(s.side) != me)
            .flat_map(|s| s.melds.iter())
            .any(|m| m.rank() == Some(card.rank()));
        let penalty = if melded_by_opponents { 1000 } else { 0 };
        penalty + card.value()
    }
}

impl Bot for SafeBot {
    fn name(&self) -> &str {
        "safe"
    }

    fn choose(&mut self, view: &View, legal: &LegalChoices<'_>) -> Action {
        // The server plays this bot for a seat whose time ran out, on any hand: it checks the
        // few actions it considers instead of listing every legal one (a huge hand before its
        // side's initial meld has millions).
        for quiet in [
            Action::AnswerPartner { yes: false },
            Action::DrawStock,
            Action::DeclinePile,
        ] {
            if legal.check(&quiet).is_ok() {
                return quiet;
            }
        }
        // Every card of a hand of two or more may be discarded in the play phase (a last card
        // goes out, see below).
        let hand = legal.hand();
        let discards = legal.phase() == Phase::Play && hand.len() >= 2;
        let safest = hand
            .iter_kinds()
            .map(|(card, _)| card)
            .filter(|_| discards)
            .min_by_key(|&c| (Self::risk(view, c), c.rank() == Rank::Joker, c));
        if let Some(card) = safest {
            return Action::Discard { card };
        }
        // A forced take, or going out with the last card: the first legal action.
        self.actions.clear();
        legal.actions_up_to(&mut self.actions, 1);
        if let Some(first) = self.actions.pop() {
            return first;
        }
        legal.first_go_out().unwrap_or(super::NOTHING_LEGAL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::play;
    use crate::game::{Game, Setup};
    use crate::rules::{Preset, RuleSpec};

    #[test]
    fn safe_bots_finish_deals_legally() {
        for preset in Preset::ALL {
            let spec = RuleSpec::new(preset, 4);
            let mut game = Game::new(&Setup::seeded(spec, 3)).unwrap();
            let mut bots: Vec<Box<dyn Bot>> =
                (0..4).map(|_| Box::new(SafeBot::new()) as _).collect();
            // Safe bots never meld, so the match may never end: two deals must finish.
            match play(&mut game, &mut bots, 2, |_| {}) {
                Ok(_) | Err(crate::bot::PlayError::DealLimit { .. }) => {}
                Err(e) => panic!("{preset}: {e}"),
            }
            assert!(game.history().len() >= 2 || game.winner().is_some());
        }
    }
}
