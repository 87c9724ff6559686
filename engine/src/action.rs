//! What a player can do: the [`Action`] enum and its parts.

use std::fmt;

use smallvec::SmallVec;

use crate::card::{Card, CardCounts};
use crate::meld::MeldId;

/// Where the cards of a meld entry go.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MeldTarget {
    /// A new meld; its kind follows from its cards.
    New,
    /// One of the player's side's melds, by number (R-MELD-3: never an opponent's).
    Existing(MeldId),
}

/// One entry of a meld batch: cards from the hand laid as a new meld or added to a meld.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct MeldSpec {
    /// Where the cards go.
    pub target: MeldTarget,
    /// The cards, from the player's hand.
    pub cards: CardCounts,
}

impl MeldSpec {
    /// A new meld of these cards.
    pub fn new_meld(cards: CardCounts) -> MeldSpec {
        MeldSpec {
            target: MeldTarget::New,
            cards,
        }
    }

    /// These cards added to the side's meld `id`.
    pub fn add_to(id: MeldId, cards: CardCounts) -> MeldSpec {
        MeldSpec {
            target: MeldTarget::Existing(id),
            cards,
        }
    }
}

/// Melds laid at once (R-INIT-2): new melds and additions, in order.
pub type MeldBatch = SmallVec<[MeldSpec; 2]>;

/// How the top card of the pile is melded when the pile is taken (R-PILE-3, R-PILE-4): with
/// `cards` from the hand, into a new meld or onto a meld of the side.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TopMeld {
    /// Where the top card goes.
    pub target: MeldTarget,
    /// Cards from the hand laid with it (a natural pair, a natural and a wild card, or none when
    /// it is added to a meld of an unfrozen pile).
    pub cards: CardCounts,
}

/// An action of the player whose turn it is (or of the partner who is asked).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Action {
    /// Draw from the stock (one or two cards by the rules; red threes are replaced automatically).
    DrawStock,
    /// Take the discard pile: meld its top card as `top` says, lay `melds` from the hand at the
    /// same time (needed when they count toward an initial meld, R-INIT-3), then pick up the
    /// rest of the pile.
    TakePile {
        /// How the top card is melded.
        top: TopMeld,
        /// Further melds laid from the hand before picking up the pile.
        melds: MeldBatch,
    },
    /// Lay melds and additions from the hand.
    Meld {
        /// The batch.
        melds: MeldBatch,
    },
    /// Discard a card, ending the turn.
    Discard {
        /// The card.
        card: Card,
    },
    /// Go out: meld every remaining card, or all but one which is discarded (R-OUT-1).
    GoOut {
        /// The final melds.
        melds: MeldBatch,
        /// The final discard, if any.
        discard: Option<Card>,
    },
    /// "Partner, may I go out?" (R-OUT-3).
    AskPartner,
    /// The partner's binding answer.
    AnswerPartner {
        /// Yes or no.
        yes: bool,
    },
    /// With the stock empty, refuse the pile and so end the deal (R-STOCK-1, R-STOCK-2).
    DeclinePile,
}

impl Action {
    /// A short name of the action's kind, as used in messages and on the wire.
    pub fn kind_name(&self) -> &'static str {
        match self {
            Action::DrawStock => "draw",
            Action::TakePile { .. } => "take the pile",
            Action::Meld { .. } => "meld",
            Action::Discard { .. } => "discard",
            Action::GoOut { .. } => "go out",
            Action::AskPartner => "ask your partner",
            Action::AnswerPartner { .. } => "answer",
            Action::DeclinePile => "decline the pile",
        }
    }
}

fn write_batch(f: &mut fmt::Formatter<'_>, melds: &[MeldSpec]) -> fmt::Result {
    for (i, m) in melds.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        match m.target {
            MeldTarget::New => write!(f, "new {}", m.cards)?,
            MeldTarget::Existing(id) => write!(f, "{} on meld {id}", m.cards)?,
        }
    }
    Ok(())
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::DrawStock => f.write_str("draw from the stock"),
            Action::TakePile { top, melds } => {
                match top.target {
                    MeldTarget::New => write!(f, "take the pile with {}", top.cards)?,
                    MeldTarget::Existing(id) => {
                        write!(f, "take the pile onto meld {id}")?;
                        if !top.cards.is_empty() {
                            write!(f, " with {}", top.cards)?;
                        }
                    }
                }
                if !melds.is_empty() {
                    f.write_str(", melding ")?;
                    write_batch(f, melds)?;
                }
                Ok(())
            }
            Action::Meld { melds } => {
                f.write_str("meld ")?;
                write_batch(f, melds)
            }
            Action::Discard { card } => write!(f, "discard {card}"),
            Action::GoOut { melds, discard } => {
                f.write_str("go out")?;
                if !melds.is_empty() {
                    f.write_str(" melding ")?;
                    write_batch(f, melds)?;
                }
                if let Some(d) = discard {
                    write!(f, " discarding {d}")?;
                }
                Ok(())
            }
            Action::AskPartner => f.write_str("ask partner: may I go out?"),
            Action::AnswerPartner { yes: true } => f.write_str("answer yes"),
            Action::AnswerPartner { yes: false } => f.write_str("answer no"),
            Action::DeclinePile => f.write_str("decline the pile"),
        }
    }
}
