//! What happened: the events an action causes. Events as the engine emits them are the
//! referee's; every client receives them through [`crate::view::redact`].

use smallvec::SmallVec;

use crate::card::{Card, CardCounts};
use crate::meld::MeldId;
use crate::score::{DealEnd, DealScore};
use crate::table::{Seat, Side};

/// Cards laid into one meld by an action.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Placed {
    /// The meld's number on the side.
    pub meld: MeldId,
    /// The cards laid into it.
    pub cards: CardCounts,
    /// True if the action started this meld.
    pub new: bool,
}

/// Melds touched by one action.
pub type PlacedList = SmallVec<[Placed; 2]>;

/// Where a red three came from.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum RedThreeSource {
    /// Dealt; laid at the start of the player's first turn (R-RED-1).
    Dealt,
    /// Drawn from the stock and replaced (R-RED-2).
    Drawn,
    /// Picked up with the discard pile, not replaced (R-RED-3).
    Pile,
}

/// The start of a deal.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct DealStart {
    /// The deal number, 0-based.
    pub deal: u32,
    /// The dealer.
    pub dealer: Seat,
    /// The seats that play this deal, in playing order (some sit out with 5 or 6 players).
    pub play_order: Vec<Seat>,
    /// Each seat's dealt hand: `None` where the receiver may not see it.
    pub hands: Vec<Option<CardCounts>>,
    /// Number of cards dealt to each seat (public).
    pub hand_sizes: Vec<u8>,
    /// The cards turned to start the pile, bottom first (R-DEAL-5).
    pub pile: Vec<Card>,
    /// The cutter and the wild cards he kept from the cut, shown to all (R-DEAL-6, Swiss).
    pub cut: Option<(Seat, Vec<Card>)>,
    /// Cards left in the stock.
    pub stock: u32,
    /// Each side's initial-meld minimum for this deal (R-INIT-1).
    pub minimums: Vec<u32>,
}

/// The end of a deal.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct DealFinish {
    /// How it ended and what each side scored.
    pub score: DealScore,
    /// The cards left in every seat's hand, shown for the count as at a real table.
    pub hands: Vec<CardCounts>,
}

/// Something that happened in a game.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum Event {
    /// A deal was dealt.
    DealStarted(Box<DealStart>),
    /// A seat's turn began.
    TurnStarted {
        /// Whose turn.
        seat: Seat,
    },
    /// A red three was laid face up (R-RED-1, R-RED-2, R-RED-3).
    RedThreeLaid {
        /// Who laid it.
        seat: Seat,
        /// The card.
        card: Card,
        /// Where it came from.
        source: RedThreeSource,
    },
    /// Cards drawn from the stock into a hand (a turn's draw, or replacements of red threes).
    Drew {
        /// Who drew.
        seat: Seat,
        /// How many cards.
        count: u8,
        /// The cards; `None` where the receiver may not see them.
        cards: Option<SmallVec<[Card; 3]>>,
    },
    /// The discard pile was taken (R-PILE-5).
    PileTaken {
        /// Who took it.
        seat: Seat,
        /// Its top card.
        top: Card,
        /// The melds laid: the top card's meld first.
        placed: PlacedList,
        /// The rest of the pile, which went into the hand (public: the pile is, R-PILE-7).
        picked_up: Vec<Card>,
    },
    /// Cards were melded from the hand.
    Melded {
        /// Who melded.
        seat: Seat,
        /// Where the cards went.
        placed: PlacedList,
    },
    /// A card was discarded, ending the turn.
    Discarded {
        /// Who discarded.
        seat: Seat,
        /// The card.
        card: Card,
        /// True if it blocks the pile for the next player (R-TURN-4).
        blocks: bool,
        /// True if the pile is frozen now (R-PILE-2).
        frozen: bool,
    },
    /// "Partner, may I go out?" (R-OUT-3).
    AskedPartner {
        /// Who asked.
        seat: Seat,
        /// Who must answer.
        partner: Seat,
    },
    /// The partner's binding answer.
    PartnerAnswered {
        /// Who answered.
        seat: Seat,
        /// Who had asked.
        asker: Seat,
        /// The answer.
        yes: bool,
    },
    /// A side lost points for breaking a rule of play (R-OUT-3).
    Penalty {
        /// The side.
        side: Side,
        /// Points lost.
        points: i32,
        /// Why, as a stable code.
        reason: &'static str,
    },
    /// A player went out (R-OUT-1); the deal ends.
    WentOut {
        /// Who.
        seat: Seat,
        /// The final melds.
        placed: PlacedList,
        /// The final discard.
        discard: Option<Card>,
        /// True if concealed (R-OUT-4).
        concealed: bool,
    },
    /// The player declined the pile with the stock empty (R-STOCK-2).
    PileDeclined {
        /// Who.
        seat: Seat,
    },
    /// A deal ended and was scored (R-SCORE-1).
    DealEnded(Box<DealFinish>),
    /// The match ended (R-SCORE-2).
    MatchEnded {
        /// The winning side.
        winner: Side,
        /// Every side's final score.
        totals: Vec<i32>,
    },
}

impl Event {
    /// How the deal ended, if this is the end of a deal.
    pub fn deal_end(&self) -> Option<DealEnd> {
        match self {
            Event::DealEnded(f) => Some(f.score.end),
            _ => None,
        }
    }
}
