//! Rule violations: one enum, a stable machine code per case, and a message that tells the
//! player what to do instead. An action that fails leaves the game exactly as it was.

use std::fmt;

use crate::card::{Card, Rank};
use crate::game::Phase;
use crate::table::Seat;

/// Why an action is not legal now.
///
/// Not `#[non_exhaustive]`, unlike the engine's other enums that grow: each variant is a reason
/// of the protocol (`canasta_proto::reason::Reason`), which maps them exhaustively, so that a
/// new one does not compile until the wire names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleError {
    /// The match is over; no action is possible.
    MatchOver,
    /// The seat is not part of this game.
    NoSuchSeat {
        /// The seat named.
        seat: Seat,
    },
    /// Another seat must act now.
    NotYourTurn {
        /// The seat that must act.
        to_act: Seat,
    },
    /// The action does not fit the phase of the turn.
    WrongPhase {
        /// The phase the turn is in.
        phase: Phase,
        /// What the action was (`"draw"`, `"discard"` …), for the message.
        action: &'static str,
    },
    /// Drawing with an empty stock (R-STOCK-1).
    StockEmpty,
    /// Declining the pile while the stock still has cards.
    StockNotEmpty,
    /// Declining the pile when it must be taken (forcing, R-STOCK-1): the top card fits a meld
    /// of the side, or, with `forcing_frozen`, any take is legal.
    MustTakePile {
        /// The top card of the pile.
        top: Card,
    },
    /// Taking an empty pile.
    PileEmpty,
    /// The top card is a wild card or a stop card (R-PILE-1, R-TURN-4).
    PileBlocked {
        /// The top card of the pile.
        top: Card,
    },
    /// The pile is frozen for the player and needs a natural pair of the top card's rank
    /// (R-PILE-2, R-PILE-3).
    PileFrozen {
        /// The top card of the pile.
        top: Card,
        /// Natural cards of that rank the player offered from his hand.
        naturals: u8,
    },
    /// The cards given do not meld the top card (R-PILE-4).
    TopCardNotMelded {
        /// The top card of the pile.
        top: Card,
        /// True if the rules let one natural and a wild card take the pile.
        with_wild: bool,
    },
    /// One card in hand may not take a pile of one card (R-PILE-6).
    OneCardPile,
    /// The action names a card the player does not hold (that often).
    CardNotHeld {
        /// The card.
        card: Card,
        /// How many the player holds.
        held: u8,
    },
    /// A meld action with no melds, or a meld entry with no cards.
    EmptyMeld,
    /// A meld of fewer than three cards (R-MELD-1).
    MeldTooSmall {
        /// Cards it would hold.
        len: u8,
    },
    /// A meld with fewer than two natural cards (R-MELD-1).
    TooFewNaturals {
        /// The meld's rank.
        rank: Rank,
    },
    /// A meld with more wild cards than the rules allow (R-MELD-1).
    TooManyWilds {
        /// The meld's rank.
        rank: Rank,
        /// Wild cards it would hold.
        wilds: u8,
        /// The most it may hold.
        max: u8,
    },
    /// Wild cards outnumber (or equal, where they must be fewer) the naturals (R-MELD-1 options).
    WildRatio {
        /// The meld's rank.
        rank: Rank,
        /// Wild cards it would hold.
        wilds: u8,
        /// Natural cards it would hold.
        naturals: u8,
        /// True if wild cards must be strictly fewer.
        strict: bool,
    },
    /// A new meld with natural cards of more than one rank.
    MixedRanks {
        /// One rank.
        a: Rank,
        /// Another rank.
        b: Rank,
    },
    /// A card that does not belong in the meld it is added to.
    WrongRank {
        /// The meld's rank.
        rank: Rank,
        /// The card.
        card: Card,
    },
    /// Red threes are never melded or discarded (R-RED-6).
    RedThree,
    /// Black threes are melded only when going out (R-MELD-6).
    BlackThreesOnlyGoingOut,
    /// A black-three meld must hold 3 (to the rules' maximum) black threes and no wild card.
    BadBlackThreeMeld {
        /// Black threes given.
        count: u8,
        /// The most allowed.
        max: u8,
    },
    /// A meld of wild cards only (R-MELD-7).
    WildOnlyMeld,
    /// The side already has a meld of this rank (R-MELD-2).
    RankAlreadyMelded {
        /// The rank.
        rank: Rank,
        /// The side's meld of that rank.
        meld: u8,
    },
    /// The same meld (or a new meld of the same rank) appears twice in one batch.
    DuplicateMeld,
    /// No meld with this number on the player's side (R-MELD-3).
    NoSuchMeld {
        /// The meld number given.
        meld: u8,
        /// How many melds the side has.
        count: u8,
    },
    /// Completed canastas take no more cards (Rasche j).
    CanastaClosed {
        /// The canasta's meld number.
        meld: u8,
    },
    /// The initial meld does not reach the minimum (R-INIT-1).
    BelowMinimum {
        /// The value of the cards that count.
        value: u32,
        /// The minimum.
        minimum: u32,
    },
    /// The action would leave too few cards to continue the turn (R-TURN-2).
    MustKeepCard {
        /// Cards the action would leave in hand.
        left: u8,
        /// True if the side may go out now, so `go_out` would do it.
        could_go_out: bool,
    },
    /// Going out must meld or discard every card (R-OUT-1).
    CardsLeft {
        /// Cards that would stay in hand.
        left: u8,
    },
    /// The side lacks the canastas needed to go out (R-OUT-1).
    NotEnoughCanastas {
        /// Canastas the side would have.
        have: u8,
        /// Canastas needed.
        need: u8,
    },
    /// Going out needs a natural canasta (Rasche h).
    NeedNaturalCanasta,
    /// The partner answered no this turn (R-OUT-3).
    PartnerSaidNo,
    /// Asking the partner needs a partner (R-OUT-3).
    NoPartner,
    /// The partner may be asked once a turn.
    AlreadyAsked,
    /// The partner must be asked after drawing from the stock and before melding.
    AskTooLate,
    /// Cards that are not three to seven consecutive naturals of one suit (R-SAMBA-3).
    NotASequence,
    /// A natural card offered to a meld of wild cards.
    NotWild {
        /// The card.
        card: Card,
    },
    /// No wild card may be added to a canasta (R-SAMBA-4).
    NoWildOnCanasta {
        /// The canasta's meld number.
        meld: u8,
    },
    /// The pile may not be taken this way under these rules (R-SAMBA-5).
    PileTakeForbidden {
        /// The top card.
        top: Card,
        /// What the rules forbid, for the message.
        why: &'static str,
    },
    /// No melding after taking the pile under these rules (Swiss).
    NoMeldAfterTake,
    /// Going out must end with a discard under these rules (Swiss).
    GoOutNeedsDiscard,
    /// Discarding the last card is going out: use the go-out action.
    DiscardLastCard {
        /// True if the side may go out now.
        could_go_out: bool,
    },
}

impl RuleError {
    /// A stable machine-readable code; bots and clients branch on it.
    pub fn code(&self) -> &'static str {
        use RuleError::*;
        match self {
            MatchOver => "MATCH_OVER",
            NoSuchSeat { .. } => "NO_SUCH_SEAT",
            NotYourTurn { .. } => "NOT_YOUR_TURN",
            WrongPhase { .. } => "WRONG_PHASE",
            StockEmpty => "STOCK_EMPTY",
            StockNotEmpty => "STOCK_NOT_EMPTY",
            MustTakePile { .. } => "MUST_TAKE_PILE",
            PileEmpty => "PILE_EMPTY",
            PileBlocked { .. } => "PILE_BLOCKED",
            PileFrozen { .. } => "PILE_FROZEN",
            TopCardNotMelded { .. } => "TOP_CARD_NOT_MELDED",
            OneCardPile => "ONE_CARD_PILE",
            CardNotHeld { .. } => "CARD_NOT_HELD",
            EmptyMeld => "EMPTY_MELD",
            MeldTooSmall { .. } => "MELD_TOO_SMALL",
            TooFewNaturals { .. } => "TOO_FEW_NATURALS",
            TooManyWilds { .. } => "TOO_MANY_WILDS",
            WildRatio { .. } => "WILD_RATIO",
            MixedRanks { .. } => "MIXED_RANKS",
            WrongRank { .. } => "WRONG_RANK",
            RedThree => "RED_THREE",
            BlackThreesOnlyGoingOut => "BLACK_THREES_ONLY_GOING_OUT",
            BadBlackThreeMeld { .. } => "BAD_BLACK_THREE_MELD",
            WildOnlyMeld => "WILD_ONLY_MELD",
            RankAlreadyMelded { .. } => "RANK_ALREADY_MELDED",
            DuplicateMeld => "DUPLICATE_MELD",
            NoSuchMeld { .. } => "NO_SUCH_MELD",
            CanastaClosed { .. } => "CANASTA_CLOSED",
            BelowMinimum { .. } => "BELOW_MINIMUM",
            MustKeepCard { .. } => "MUST_KEEP_CARD",
            CardsLeft { .. } => "CARDS_LEFT",
            NotEnoughCanastas { .. } => "NOT_ENOUGH_CANASTAS",
            NeedNaturalCanasta => "NEED_NATURAL_CANASTA",
            PartnerSaidNo => "PARTNER_SAID_NO",
            NoPartner => "NO_PARTNER",
            AlreadyAsked => "ALREADY_ASKED",
            AskTooLate => "ASK_TOO_LATE",
            DiscardLastCard { .. } => "DISCARD_LAST_CARD",
            NotASequence => "NOT_A_SEQUENCE",
            NotWild { .. } => "NOT_WILD",
            NoWildOnCanasta { .. } => "NO_WILD_ON_CANASTA",
            PileTakeForbidden { .. } => "PILE_TAKE_FORBIDDEN",
            NoMeldAfterTake => "NO_MELD_AFTER_TAKE",
            GoOutNeedsDiscard => "GO_OUT_NEEDS_DISCARD",
        }
    }

    /// Every code, for documentation and tests.
    pub const CODES: &'static [&'static str] = &[
        "MATCH_OVER",
        "NO_SUCH_SEAT",
        "NOT_YOUR_TURN",
        "WRONG_PHASE",
        "STOCK_EMPTY",
        "STOCK_NOT_EMPTY",
        "MUST_TAKE_PILE",
        "PILE_EMPTY",
        "PILE_BLOCKED",
        "PILE_FROZEN",
        "TOP_CARD_NOT_MELDED",
        "ONE_CARD_PILE",
        "CARD_NOT_HELD",
        "EMPTY_MELD",
        "MELD_TOO_SMALL",
        "TOO_FEW_NATURALS",
        "TOO_MANY_WILDS",
        "WILD_RATIO",
        "MIXED_RANKS",
        "WRONG_RANK",
        "RED_THREE",
        "BLACK_THREES_ONLY_GOING_OUT",
        "BAD_BLACK_THREE_MELD",
        "WILD_ONLY_MELD",
        "RANK_ALREADY_MELDED",
        "DUPLICATE_MELD",
        "NO_SUCH_MELD",
        "CANASTA_CLOSED",
        "BELOW_MINIMUM",
        "MUST_KEEP_CARD",
        "CARDS_LEFT",
        "NOT_ENOUGH_CANASTAS",
        "NEED_NATURAL_CANASTA",
        "PARTNER_SAID_NO",
        "NO_PARTNER",
        "ALREADY_ASKED",
        "ASK_TOO_LATE",
        "DISCARD_LAST_CARD",
        "NOT_A_SEQUENCE",
        "NOT_WILD",
        "NO_WILD_ON_CANASTA",
        "PILE_TAKE_FORBIDDEN",
        "NO_MELD_AFTER_TAKE",
        "GO_OUT_NEEDS_DISCARD",
    ];
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use RuleError::*;
        match self {
            MatchOver => f.write_str("the match is over: no more actions are possible"),
            NoSuchSeat { seat } => write!(f, "seat {} is not in this game", seat.0),
            NotYourTurn { to_act } => {
                write!(f, "it is seat {}'s turn to act, not yours: wait for your turn", to_act.0)
            }
            WrongPhase { phase, action } => {
                let hint = match phase {
                    Phase::Draw => "start your turn by drawing from the stock or taking the pile",
                    Phase::Play => "you have drawn already: meld, discard or go out",
                    Phase::Answer => "your partner asked to go out: answer yes or no",
                    Phase::Over => "the match is over",
                };
                write!(f, "you cannot {action} now: {hint}")
            }
            StockEmpty => f.write_str(
                "the stock is empty: take the discard pile if you can, or decline it to end the deal",
            ),
            StockNotEmpty => f.write_str(
                "you can decline the pile only when the stock is empty: draw from the stock or take the pile",
            ),
            MustTakePile { top } => write!(
                f,
                "the stock is empty and you can take the pile with the {top} on top, so you must take it (forcing)"
            ),
            PileEmpty => f.write_str("the discard pile is empty: draw from the stock"),
            PileBlocked { top } => write!(
                f,
                "the pile is blocked by the {top} on top: draw from the stock instead"
            ),
            PileFrozen { top, naturals } => write!(
                f,
                "the pile is frozen for you: take it only by melding the {top} with two natural {} from your hand (you offered {naturals})",
                top.rank().plural()
            ),
            TopCardNotMelded { top, with_wild } => {
                write!(f, "to take the pile, meld the {top} with a natural pair")?;
                if *with_wild {
                    write!(f, ", with one natural {} and a wild card", top.rank().label())?;
                }
                write!(f, ", or add it to your side's meld of {}", top.rank().plural())
            }
            OneCardPile => f.write_str(
                "with one card in your hand you may not take a pile of one card: draw from the stock",
            ),
            CardNotHeld { card, held } => {
                write!(f, "you do not hold that many {card}: you hold {held}")
            }
            EmptyMeld => f.write_str("every meld must name at least one card, and a meld action at least one meld"),
            MeldTooSmall { len } => write!(
                f,
                "a meld needs at least three cards, and this one would have {len}"
            ),
            TooFewNaturals { rank } => write!(
                f,
                "a meld of {} needs at least two natural {}",
                rank.plural(),
                rank.plural()
            ),
            TooManyWilds { rank, wilds, max } => write!(
                f,
                "the meld of {} would hold {wilds} wild cards, but at most {max} are allowed",
                rank.plural()
            ),
            WildRatio {
                rank,
                wilds,
                naturals,
                strict,
            } => {
                let rule = if *strict {
                    "wild cards must be fewer than natural cards"
                } else {
                    "wild cards may not outnumber natural cards"
                };
                write!(
                    f,
                    "the meld of {} would hold {wilds} wild and {naturals} natural cards: {rule}",
                    rank.plural()
                )
            }
            MixedRanks { a, b } => write!(
                f,
                "a meld holds natural cards of one rank, not {} and {} (where sequences are played, a sequence holds consecutive cards of one suit): make two melds",
                a.plural(),
                b.plural()
            ),
            WrongRank { rank, card } => write!(
                f,
                "the {card} cannot go into the meld of {}: add natural {} or wild cards",
                rank.plural(),
                rank.plural()
            ),
            RedThree => f.write_str(
                "red threes are never melded or discarded: they are laid out automatically",
            ),
            BlackThreesOnlyGoingOut => f.write_str(
                "black threes can be melded only when going out, three or more together without wild cards",
            ),
            BadBlackThreeMeld { count, max } => write!(
                f,
                "a black-three meld holds 3 to {max} black threes and no wild card, not {count}"
            ),
            WildOnlyMeld => f.write_str(
                "a meld of wild cards only is not allowed: add wild cards to a meld with at least two naturals",
            ),
            RankAlreadyMelded { rank, meld } => write!(
                f,
                "your side already has a meld of {} (meld {meld}): add the cards to it instead",
                rank.plural()
            ),
            DuplicateMeld => f.write_str(
                "the same meld appears twice in this batch: put all its cards in one entry",
            ),
            NoSuchMeld { meld, count } => write!(
                f,
                "your side has no meld {meld} (it has {count}): you may add cards only to your own side's melds"
            ),
            CanastaClosed { meld } => write!(
                f,
                "meld {meld} is a completed canasta and these rules allow no more cards on it"
            ),
            BelowMinimum { value, minimum } => write!(
                f,
                "your side's initial meld must count at least {minimum} points, and these cards count {value}: meld more cards in the same action"
            ),
            MustKeepCard { left, could_go_out } => {
                if *could_go_out {
                    write!(
                        f,
                        "this would leave you {left} card(s), and only going out may empty your hand: send go_out with these melds and the discard"
                    )
                } else {
                    write!(
                        f,
                        "this would leave you {left} card(s), but you cannot go out yet, so you must keep a card to discard and a card in hand"
                    )
                }
            }
            CardsLeft { left } => write!(
                f,
                "going out must meld or discard every card, and {left} card(s) would stay in your hand"
            ),
            NotEnoughCanastas { have, need } => write!(
                f,
                "your side needs {need} canasta(s) to go out and would have {have}: keep melding"
            ),
            NeedNaturalCanasta => {
                f.write_str("going out needs a natural canasta under these rules: keep melding")
            }
            PartnerSaidNo => f.write_str(
                "your partner answered no: you may not go out this turn; meld or discard",
            ),
            NoPartner => f.write_str("you have no partner to ask in this game"),
            AlreadyAsked => f.write_str("you have asked your partner already this turn"),
            AskTooLate => f.write_str(
                "ask your partner after drawing from the stock and before melding anything this turn",
            ),
            NotASequence => f.write_str(
                "a sequence is three to seven consecutive natural cards of one suit, four to ace, with no wild card",
            ),
            NotWild { card } => write!(
                f,
                "the {card} cannot go into a meld of wild cards: it takes jokers and twos only"
            ),
            NoWildOnCanasta { meld } => write!(
                f,
                "meld {meld} is a canasta, and no wild card may be added to a canasta under these rules: add natural cards"
            ),
            PileTakeForbidden { top, why } => {
                write!(f, "you cannot take the pile that way ({why}): meld the {top} with a natural pair from your hand, or draw from the stock")
            }
            NoMeldAfterTake => f.write_str(
                "after taking the pile you may not meld again this turn, except cards of a canasta's rank onto that canasta: discard now",
            ),
            GoOutNeedsDiscard => f.write_str(
                "going out must end with a discard under these rules: keep one card to discard",
            ),
            DiscardLastCard { could_go_out } => {
                if *could_go_out {
                    f.write_str("discarding your last card goes out: send go_out with the discard")
                } else {
                    f.write_str("you cannot discard your last card: your side may not go out yet")
                }
            }
        }
    }
}

impl std::error::Error for RuleError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_listed() {
        let mut seen = std::collections::HashSet::new();
        for c in RuleError::CODES {
            assert!(seen.insert(c), "{c} twice");
            assert!(c.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'));
        }
    }
}
