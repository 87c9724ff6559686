//! Prearranged decks (R-DEAL-4): build a deck from the hands, upcards and stock a test, a puzzle
//! or a duplicate match wants, instead of writing out all 108 cards.

use crate::card::{Card, CardCounts, Rank, Suit, pack};
use crate::rules::Rules;
use crate::table::{Seat, Table};

/// A deal to arrange. Cards not named are filled in from the rest of the pack: natural cards
/// first, spread over the ranks so that a filled hand gets no pair, and wild cards and threes
/// last, deep in the stock.
#[derive(Clone, Debug, Default)]
pub struct Arrangement {
    /// Cards dealt to each seat, by seat number; a hand given short is filled up.
    pub hands: Vec<Vec<Card>>,
    /// The cards turned to start the pile, bottom first (all but the last must be wild cards or
    /// threes for the upcard procedure to turn them, R-DEAL-5).
    pub pile: Vec<Card>,
    /// The top cards of the stock after the upcards, top first.
    pub stock: Vec<Card>,
    /// Under rules where the cutter keeps the wild cards the cut shows (R-DEAL-6, Swiss): the
    /// wild cards he keeps, in the order the cut shows them. His entry in `hands` then lists
    /// only the cards dealt to him.
    pub cut: Vec<Card>,
}

impl Arrangement {
    /// The deck, top first, for deal `deal` dealt by `dealer` under `rules`: the form
    /// [`crate::Setup::card_orders`] takes.
    pub fn deck(&self, rules: &Rules, deal: u32, dealer: Seat) -> Result<Vec<Card>, String> {
        let table = Table::new(rules);
        let chairs = table.chairs(deal);
        let dealer_chair = chairs
            .chair_of(dealer)
            .ok_or_else(|| format!("seat {} does not play deal {deal}", dealer.0))?;
        let mut left = CardCounts::from_cards(pack(rules.decks, rules.jokers));
        let mut take = |c: Card| -> Result<(), String> {
            if left.remove(c) {
                Ok(())
            } else {
                Err(format!("the pack has no more {c} to place"))
            }
        };
        for hand in &self.hands {
            if hand.len() > rules.hand_size as usize {
                return Err(format!(
                    "a hand of {} cards is given, but {} are dealt",
                    hand.len(),
                    rules.hand_size
                ));
            }
            hand.iter().try_for_each(|&c| take(c))?;
        }
        self.pile.iter().try_for_each(|&c| take(c))?;
        self.stock.iter().try_for_each(|&c| take(c))?;
        self.cut.iter().try_for_each(|&c| take(c))?;
        let n = chairs.len();
        let cutter_chair = (dealer_chair + n - 1) % n;
        if !self.cut.is_empty() {
            if !rules.cut_keeps_wilds {
                return Err("these rules have no cut that keeps wild cards".into());
            }
            if self.cut.iter().any(|c| !c.is_wild()) || self.cut.len() > rules.hand_size as usize {
                return Err("the cut keeps wild cards only, at most a hand of them".into());
            }
        }
        // Cards dealt to each chair: the cutter gets as many fewer as he kept.
        let dealt = |chair: usize| {
            let kept = if chair == cutter_chair {
                self.cut.len()
            } else {
                0
            };
            rules.hand_size as usize - kept
        };
        let mut fillers = filler_order(&left).into_iter();
        let mut hands: Vec<Vec<Card>> = Vec::new();
        for chair in 0..n {
            let seat = chairs.seat(chair);
            let mut h = self.hands.get(seat.index()).cloned().unwrap_or_default();
            if h.len() > dealt(chair) {
                return Err(format!(
                    "seat {} is given {} cards, but {} are dealt to him",
                    seat.0,
                    h.len(),
                    dealt(chair)
                ));
            }
            while h.len() < dealt(chair) {
                h.push(
                    fillers
                        .next()
                        .ok_or("the pack ran out while filling hands")?,
                );
            }
            hands.push(h);
        }
        for seat in 0..self.hands.len() {
            if !self.hands[seat].is_empty() && chairs.chair_of(Seat(seat as u8)).is_none() {
                return Err(format!(
                    "seat {seat} sits out deal {deal} and gets no cards"
                ));
            }
        }
        let mut deck = Vec::with_capacity(rules.pack_size());
        // One card at a time, clockwise from the dealer's left, to every hand not yet full.
        let mut by_chair: Vec<_> = (1..=n)
            .map(|k| hands[(dealer_chair + k) % n].iter())
            .collect();
        for _ in 0..rules.hand_size {
            for cards in by_chair.iter_mut() {
                if let Some(&c) = cards.next() {
                    deck.push(c);
                }
            }
        }
        deck.extend(&self.pile);
        deck.extend(&self.stock);
        deck.extend(fillers);
        if rules.cut_keeps_wilds {
            // The cut keeps the wild cards at the bottom: put a natural card last, under the
            // kept ones, so the cut shows exactly those.
            if let Some(i) = deck.iter().rposition(|c| !c.is_wild()) {
                let c = deck.remove(i);
                deck.push(c);
            }
            deck.extend(self.cut.iter().rev());
        }
        Ok(deck)
    }
}

/// The unnamed cards in filling order: naturals rank by rank within each suit (so consecutive
/// fillers differ in rank), then black threes, twos, red threes and jokers.
fn filler_order(left: &CardCounts) -> Vec<Card> {
    let mut left = *left;
    let mut out = Vec::with_capacity(left.len());
    loop {
        let before = out.len();
        for suit in Suit::ALL {
            for rank in Rank::NATURALS {
                let c = Card::new(rank, suit);
                if left.remove(c) {
                    out.push(c);
                }
            }
        }
        if out.len() == before {
            break;
        }
    }
    let specials = [
        Card::new(Rank::Three, Suit::Clubs),
        Card::new(Rank::Three, Suit::Spades),
        Card::new(Rank::Two, Suit::Clubs),
        Card::new(Rank::Two, Suit::Diamonds),
        Card::new(Rank::Two, Suit::Hearts),
        Card::new(Rank::Two, Suit::Spades),
        Card::new(Rank::Three, Suit::Diamonds),
        Card::new(Rank::Three, Suit::Hearts),
        Card::JOKER,
    ];
    for c in specials {
        while left.remove(c) {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_cards;
    use crate::game::{Game, Setup};
    use crate::rules::{Preset, RuleSpec};

    // R-DEAL-4: a prearranged deck deals exactly the hands, pile and stock asked for.
    #[test]
    fn r_deal_4_arranged_deck_deals_as_asked() {
        let spec = RuleSpec::new(Preset::Official, 4);
        let rules = Rules::new(&spec).unwrap();
        let arr = Arrangement {
            hands: vec![
                parse_cards("KS KH Jk").unwrap(),
                vec![],
                parse_cards("3H").unwrap(),
            ],
            pile: parse_cards("2C 7D").unwrap(),
            stock: parse_cards("AS AH").unwrap(),
            cut: vec![],
        };
        let deck = arr.deck(&rules, 0, Seat(3)).unwrap();
        assert_eq!(deck.len(), 108);
        let setup = Setup {
            rules: spec,
            card_orders: vec![deck],
            first_dealer: Some(Seat(3)),
            ..Setup::default()
        };
        let game = Game::new(&setup).unwrap();
        let hand = game.hand(Seat(0));
        assert_eq!(hand.len(), 11);
        for c in parse_cards("KS KH Jk").unwrap() {
            assert!(hand.count(c) >= 1);
        }
        assert_eq!(game.pile(), &parse_cards("2C 7D").unwrap()[..]);
        let stock = game.stock();
        assert_eq!(
            &stock[stock.len() - 2..],
            &parse_cards("AH AS").unwrap()[..]
        );
        // Filled hands hold no pair.
        let h1 = game.hand(Seat(1));
        assert!(Rank::NATURALS.iter().all(|&r| h1.rank_count(r) <= 1));
    }
}
