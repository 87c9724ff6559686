//! Melds and canastas (R-MELD): what a meld is, and the one place that decides whether cards
//! make a valid meld or may be added to one.

use crate::card::{Card, CardCounts, Rank};
use crate::error::RuleError;
use crate::rules::{Rules, WildRatio};
use crate::table::Seat;

/// The number of a meld within its side's melds, in the order they were laid (0-based).
pub type MeldId = u8;

/// What a meld is made of.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum MeldKind {
    /// Natural cards of one rank, four to ace, with wild cards (R-MELD-1).
    Group(Rank),
    /// Three or more black threes, laid only when going out (R-MELD-6).
    BlackThrees,
}

/// The kind of a completed canasta (R-MELD-5).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum CanastaKind {
    /// Seven or more cards, no wild card.
    Natural,
    /// Seven or more cards with at least one wild card.
    Mixed,
}

/// A meld on the table.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Meld {
    /// What it is made of.
    pub kind: MeldKind,
    /// Its cards.
    pub cards: CardCounts,
    /// The seat that laid it (for concealed going out, R-OUT-4).
    pub creator: Seat,
}

/// A canasta has at least this many cards (R-MELD-5).
pub const CANASTA_LEN: usize = 7;

impl Meld {
    /// Number of cards.
    pub fn len(&self) -> usize {
        self.cards.len()
    }

    /// Never true for a meld on the table.
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }

    /// Wild cards in it.
    pub fn wilds(&self) -> u8 {
        self.cards.wilds()
    }

    /// The rank of a group, `None` for other kinds.
    pub fn rank(&self) -> Option<Rank> {
        match self.kind {
            MeldKind::Group(r) => Some(r),
            MeldKind::BlackThrees => None,
        }
    }

    /// The canasta it is, if it has seven cards or more (R-MELD-5).
    pub fn canasta(&self) -> Option<CanastaKind> {
        canasta_of(self.kind, &self.cards)
    }

    /// True if it is a canasta.
    pub fn is_canasta(&self) -> bool {
        self.canasta().is_some()
    }
}

/// The canasta a meld of this kind and these cards is, if any. Black threes never make one.
pub fn canasta_of(kind: MeldKind, cards: &CardCounts) -> Option<CanastaKind> {
    if kind == MeldKind::BlackThrees || cards.len() < CANASTA_LEN {
        return None;
    }
    Some(if cards.wilds() == 0 {
        CanastaKind::Natural
    } else {
        CanastaKind::Mixed
    })
}

/// The kind of meld the cards of a new meld make, judged by their cards alone.
pub fn kind_of_new(cards: &CardCounts) -> Result<MeldKind, RuleError> {
    if cards.is_empty() {
        return Err(RuleError::EmptyMeld);
    }
    if cards.red_threes() > 0 {
        return Err(RuleError::RedThree);
    }
    let mut rank = None;
    for r in Rank::NATURALS {
        if cards.rank_count(r) > 0 {
            match rank {
                None => rank = Some(r),
                Some(a) => return Err(RuleError::MixedRanks { a, b: r }),
            }
        }
    }
    match rank {
        Some(r) if cards.black_threes() > 0 => Err(RuleError::WrongRank {
            rank: r,
            card: any_black_three(cards),
        }),
        Some(r) => Ok(MeldKind::Group(r)),
        None if cards.black_threes() > 0 => Ok(MeldKind::BlackThrees),
        None => Err(RuleError::WildOnlyMeld),
    }
}

fn any_black_three(cards: &CardCounts) -> Card {
    cards
        .iter()
        .find(|c| c.is_black_three())
        .expect("called with a black three present")
}

/// Checks that a meld of `kind` holding `cards` is valid as it would lie on the table
/// (R-MELD-1, R-MELD-6). The cards must already fit the kind (see [`check_fits`]).
pub fn check_shape(rules: &Rules, kind: MeldKind, cards: &CardCounts) -> Result<(), RuleError> {
    match kind {
        MeldKind::BlackThrees => {
            let n = cards.black_threes();
            if n < 3 || n > rules.black_three_meld_max || cards.len() != n as usize {
                return Err(RuleError::BadBlackThreeMeld {
                    count: n,
                    max: rules.black_three_meld_max,
                });
            }
            Ok(())
        }
        MeldKind::Group(rank) => {
            check_group_counts(rules, rank, cards.rank_count(rank), cards.wilds())
        }
    }
}

/// Checks a group of `rank` with this many natural and wild cards (R-MELD-1 and its options).
pub fn check_group_counts(
    rules: &Rules,
    rank: Rank,
    naturals: u8,
    wilds: u8,
) -> Result<(), RuleError> {
    let len = naturals as u16 + wilds as u16;
    if len < 3 {
        return Err(RuleError::MeldTooSmall { len: len as u8 });
    }
    if naturals < 2 {
        return Err(RuleError::TooFewNaturals { rank });
    }
    if wilds > rules.max_wilds {
        return Err(RuleError::TooManyWilds {
            rank,
            wilds,
            max: rules.max_wilds,
        });
    }
    let ratio_ok = match rules.wild_ratio {
        WildRatio::Any => true,
        WildRatio::NotMoreThanNaturals => wilds <= naturals,
        WildRatio::FewerThanNaturals => wilds < naturals,
    };
    if !ratio_ok {
        return Err(RuleError::WildRatio {
            rank,
            wilds,
            naturals,
            strict: rules.wild_ratio == WildRatio::FewerThanNaturals,
        });
    }
    Ok(())
}

/// Checks that every card of `cards` may belong to a meld of `kind`.
pub fn check_fits(kind: MeldKind, cards: &CardCounts) -> Result<(), RuleError> {
    match kind {
        MeldKind::Group(rank) => {
            for card in cards.iter() {
                if card.is_red_three() {
                    return Err(RuleError::RedThree);
                }
                if !(card.is_wild() || card.rank() == rank) {
                    return Err(RuleError::WrongRank { rank, card });
                }
            }
            Ok(())
        }
        // check_shape counts the black threes and refuses anything else.
        MeldKind::BlackThrees => Ok(()),
    }
}

/// Checks that `added` may be laid on `meld` (number `id`), and returns the cards the meld would
/// then hold (R-MELD-1, R-MELD-5 and its options).
pub fn check_addition(
    rules: &Rules,
    meld: &Meld,
    id: MeldId,
    added: &CardCounts,
) -> Result<CardCounts, RuleError> {
    if added.is_empty() {
        return Err(RuleError::EmptyMeld);
    }
    check_fits(meld.kind, added)?;
    let naturals = meld.rank().map_or(0, |r| added.rank_count(r));
    check_growth(rules, meld, id, naturals, added.wilds())?;
    let mut after = meld.cards;
    after.add_all(added);
    Ok(after)
}

/// Checks that `meld` may take this many more natural cards of its rank and wild cards: the
/// rules of [`check_addition`] once the cards are known to fit.
pub fn check_growth(
    rules: &Rules,
    meld: &Meld,
    id: MeldId,
    naturals: u8,
    wilds: u8,
) -> Result<(), RuleError> {
    match meld.kind {
        MeldKind::BlackThrees => Err(RuleError::BlackThreesOnlyGoingOut),
        MeldKind::Group(rank) => {
            if rules.closed_canastas && meld.is_canasta() {
                return Err(RuleError::CanastaClosed { meld: id });
            }
            check_group_counts(
                rules,
                rank,
                meld.cards.rank_count(rank).saturating_add(naturals),
                meld.wilds().saturating_add(wilds),
            )
        }
    }
}

/// Checks the cards of a new meld and returns its kind.
pub fn check_new(rules: &Rules, cards: &CardCounts) -> Result<MeldKind, RuleError> {
    let kind = kind_of_new(cards)?;
    check_fits(kind, cards)?;
    check_shape(rules, kind, cards)?;
    Ok(kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_cards;

    fn cc(s: &str) -> CardCounts {
        CardCounts::from_cards(parse_cards(s).unwrap())
    }

    fn rules() -> Rules {
        Rules::official(4).unwrap()
    }

    // R-MELD-1: three or more cards of a rank, two naturals at least, three wild cards at most.
    #[test]
    fn r_meld_1_shapes() {
        let r = rules();
        assert_eq!(
            check_new(&r, &cc("KS KH KD")),
            Ok(MeldKind::Group(Rank::King))
        );
        assert_eq!(
            check_new(&r, &cc("KS KH Jk")),
            Ok(MeldKind::Group(Rank::King))
        );
        assert_eq!(
            check_new(&r, &cc("KS KH Jk 2C 2D")),
            Ok(MeldKind::Group(Rank::King))
        );
        assert_eq!(
            check_new(&r, &cc("KS KH")).unwrap_err().code(),
            "MELD_TOO_SMALL"
        );
        assert_eq!(
            check_new(&r, &cc("KS Jk 2C")).unwrap_err().code(),
            "TOO_FEW_NATURALS"
        );
        assert_eq!(
            check_new(&r, &cc("KS KH Jk Jk 2C 2D")).unwrap_err().code(),
            "TOO_MANY_WILDS"
        );
        assert_eq!(
            check_new(&r, &cc("KS KH QS")).unwrap_err().code(),
            "MIXED_RANKS"
        );
        assert_eq!(
            check_new(&r, &cc("3H 4H 4S")).unwrap_err().code(),
            "RED_THREE"
        );
    }

    #[test]
    fn r_meld_1_wild_ratio_options() {
        let mut r = rules();
        r.wild_ratio = WildRatio::NotMoreThanNaturals;
        assert!(check_new(&r, &cc("KS KH Jk 2C")).is_ok());
        assert_eq!(
            check_new(&r, &cc("KS KH Jk 2C 2D")).unwrap_err().code(),
            "WILD_RATIO"
        );
        r.wild_ratio = WildRatio::FewerThanNaturals;
        assert_eq!(
            check_new(&r, &cc("KS KH Jk 2C")).unwrap_err().code(),
            "WILD_RATIO"
        );
        assert!(check_new(&r, &cc("KS KH KD Jk 2C")).is_ok());
    }

    // R-MELD-5: seven cards make a canasta; a wild card makes it mixed; closed canastas option.
    #[test]
    fn r_meld_5_canastas() {
        let r = rules();
        let meld = Meld {
            kind: MeldKind::Group(Rank::Seven),
            cards: cc("7S 7S 7H 7H 7D 7D 7C"),
            creator: Seat(0),
        };
        assert_eq!(meld.canasta(), Some(CanastaKind::Natural));
        let after = check_addition(&r, &meld, 0, &cc("Jk")).unwrap();
        assert_eq!(canasta_of(meld.kind, &after), Some(CanastaKind::Mixed));
        let after = check_addition(&r, &meld, 0, &cc("7C")).unwrap();
        assert_eq!(canasta_of(meld.kind, &after), Some(CanastaKind::Natural));
        let mut closed = r;
        closed.closed_canastas = true;
        assert_eq!(
            check_addition(&closed, &meld, 0, &cc("7C"))
                .unwrap_err()
                .code(),
            "CANASTA_CLOSED"
        );
        let six = Meld {
            cards: cc("7S 7S 7H 7H 7D 2D"),
            ..meld
        };
        assert_eq!(six.canasta(), None);
    }

    // R-MELD-6: black threes only as a meld of their own, no wild cards.
    #[test]
    fn r_meld_6_black_threes() {
        let r = rules();
        assert_eq!(check_new(&r, &cc("3S 3C 3S")), Ok(MeldKind::BlackThrees));
        assert_eq!(check_new(&r, &cc("3S 3C 3S 3C")), Ok(MeldKind::BlackThrees));
        assert_eq!(
            check_new(&r, &cc("3S 3C")).unwrap_err().code(),
            "BAD_BLACK_THREE_MELD"
        );
        assert_eq!(
            check_new(&r, &cc("3S 3C Jk")).unwrap_err().code(),
            "BAD_BLACK_THREE_MELD"
        );
        assert_eq!(
            check_new(&r, &cc("3S KS KH")).unwrap_err().code(),
            "WRONG_RANK"
        );
    }

    // R-MELD-7: no meld of wild cards only.
    #[test]
    fn r_meld_7_no_wild_only_meld() {
        assert_eq!(
            check_new(&rules(), &cc("Jk Jk 2C")).unwrap_err().code(),
            "WILD_ONLY_MELD"
        );
    }
}
