//! Scoring a deal (R-SCORE-1, R-SCORE-3, R-RED-5): the one place where points are counted.

use crate::card::CardCounts;
use crate::legal::own_canasta;
use crate::meld::{CanastaKind, Meld};
use crate::rules::{RedThreesPositive, Rules};
use crate::table::{Seat, Side, Table};

/// How a deal ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum DealEnd {
    /// A player went out (R-OUT-1).
    WentOut {
        /// Who.
        seat: Seat,
        /// True if he went out concealed (R-OUT-4).
        concealed: bool,
    },
    /// The stock was empty and a player could not, or would not, take the pile (R-STOCK-2).
    StockExhausted {
        /// The player who declined.
        seat: Seat,
    },
    /// The last card of the stock was a red three (R-RED-4).
    LastRedThree {
        /// The player who drew it.
        seat: Seat,
    },
}

impl DealEnd {
    /// The seat whose move ended the deal.
    pub fn seat(self) -> Seat {
        match self {
            DealEnd::WentOut { seat, .. }
            | DealEnd::StockExhausted { seat }
            | DealEnd::LastRedThree { seat } => seat,
        }
    }
}

/// One side's score for a deal, itemised (R-SCORE-3). `total` is the sum of the items.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct SideScore {
    /// The side.
    pub side: u8,
    /// Values of all the side's melded cards.
    pub melded_cards: i32,
    /// Number of natural canastas.
    pub natural_canastas: u8,
    /// Number of mixed canastas.
    pub mixed_canastas: u8,
    /// Number of sambas (sequences of seven, R-SAMBA-3).
    pub sambas: u8,
    /// Number of wild canastas (R-SAMBA-9, Rasche b).
    pub wild_canastas: u8,
    /// Canasta bonuses.
    pub canasta_bonus: i32,
    /// Red threes laid by the side's players.
    pub red_threes: u8,
    /// Red-three bonus, negative if the side did not qualify (R-RED-5).
    pub red_three_bonus: i32,
    /// Going-out bonus (plain or concealed), if one of its players went out.
    pub going_out_bonus: i32,
    /// Minus the values of the cards left in its players' hands.
    pub cards_in_hand: i32,
    /// Minus its penalties (R-OUT-3).
    pub penalties: i32,
    /// The deal's total for the side.
    pub total: i32,
    /// The side's cumulative score after this deal.
    pub cumulative: i32,
}

impl SideScore {
    /// The sum of the items, which must equal `total`. Saturating: a report from elsewhere
    /// (the wire) may hold any numbers, and their sum is then checked, not overflowed.
    pub fn sum_of_items(&self) -> i32 {
        [
            self.canasta_bonus,
            self.red_three_bonus,
            self.going_out_bonus,
            self.cards_in_hand,
            self.penalties,
        ]
        .into_iter()
        .fold(self.melded_cards, i32::saturating_add)
    }
}

/// The score report of one deal.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct DealScore {
    /// The deal number, 0-based.
    pub deal: u32,
    /// How it ended.
    pub end: DealEnd,
    /// One entry per side, by side number.
    pub sides: Vec<SideScore>,
}

/// What the scorer needs to know about a finished deal.
pub(crate) struct DealFacts<'a> {
    pub rules: &'a Rules,
    pub table: &'a Table,
    pub hands: &'a [CardCounts],
    pub red_threes: &'a [CardCounts],
    pub melds: &'a [Vec<Meld>],
    pub side_melded: &'a [bool],
    pub penalties: &'a [i32],
    pub end: DealEnd,
}

/// R-OUT-2, R-OUT-4 and their options: the bonus for going out, concealed or not (whether it
/// was concealed is [`crate::legal`]'s to say), with or without a canasta of the player's own.
fn going_out_bonus(rules: &Rules, concealed: bool, own_canasta: bool) -> i32 {
    match (concealed, own_canasta) {
        (true, true) => rules.concealed_bonus,
        (true, false) => rules
            .concealed_without_canasta_bonus
            .unwrap_or(rules.going_out_bonus),
        (false, _) => rules.going_out_bonus,
    }
}

/// Scores a deal for every side (R-SCORE-1). `cumulative` holds each side's score before the
/// deal and receives the new totals.
pub(crate) fn score_deal(deal: u32, facts: &DealFacts<'_>, cumulative: &mut [i32]) -> DealScore {
    let rules = facts.rules;
    let sides = (0..facts.table.sides())
        .map(|s| {
            let side = Side(s);
            let melds = &facts.melds[side.index()];
            let mut score = SideScore {
                side: s,
                ..SideScore::default()
            };
            let mut canastas = 0;
            for meld in melds {
                score.melded_cards += meld.cards.value() as i32;
                let Some(kind) = meld.canasta() else { continue };
                canastas += 1;
                score.canasta_bonus += kind.bonus(rules);
                match kind {
                    CanastaKind::Natural => score.natural_canastas += 1,
                    CanastaKind::Mixed => score.mixed_canastas += 1,
                    CanastaKind::Samba => score.sambas += 1,
                    CanastaKind::WildJokers | CanastaKind::WildDeuces | CanastaKind::WildMixed => {
                        score.wild_canastas += 1
                    }
                }
            }
            for seat in facts.table.members(side) {
                // Red threes still in a hand count nothing (R-RED-6), and have no card value.
                score.red_threes += facts.red_threes[seat.index()].len() as u8;
                score.cards_in_hand -= facts.hands[seat.index()].value() as i32;
            }
            let positive = match rules.red_threes_positive {
                RedThreesPositive::InitialMeld => facts.side_melded[side.index()],
                RedThreesPositive::Canastas(n) => canastas >= n,
            };
            let amount = rules.red_three_scores.value(score.red_threes);
            score.red_three_bonus = if positive { amount } else { -amount };
            if let DealEnd::WentOut { seat, concealed } = facts.end
                && facts.table.side_of(seat) == side
            {
                score.going_out_bonus = going_out_bonus(rules, concealed, own_canasta(melds, seat));
            }
            score.penalties = -facts.penalties[side.index()];
            score.total = score.sum_of_items();
            cumulative[side.index()] += score.total;
            score.cumulative = cumulative[side.index()];
            score
        })
        .collect();
    DealScore {
        deal,
        end: facts.end,
        sides,
    }
}
