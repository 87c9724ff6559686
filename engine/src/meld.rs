//! Melds and canastas (R-MELD, R-SAMBA-3, R-SAMBA-4): what a meld is, and the one place that
//! decides whether cards make a valid meld or may be added to one.

use crate::card::{Card, CardCounts, Rank, Suit};
use crate::error::RuleError;
use crate::rules::{Rules, WildRatio};
use crate::table::Seat;

/// The number of a meld within its side's melds, in the order they were laid (0-based).
pub type MeldId = u8;

/// What a meld is made of.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum MeldKind {
    /// Natural cards of one rank, four to ace, with wild cards (R-MELD-1).
    Group(Rank),
    /// Three or more black threes, laid only when going out (R-MELD-6).
    BlackThrees,
    /// Three to seven consecutive natural cards of one suit, four to ace (R-SAMBA-3).
    Sequence(Suit),
    /// Wild cards only, where the rules allow wild canastas (R-SAMBA-9, Rasche b).
    Wild,
}

/// The kind of a completed canasta (R-MELD-5, R-SAMBA-3, R-SAMBA-9).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum CanastaKind {
    /// Seven or more cards of a rank, no wild card.
    Natural,
    /// Seven or more cards of a rank with at least one wild card.
    Mixed,
    /// A sequence of seven.
    Samba,
    /// Seven jokers.
    WildJokers,
    /// Seven twos.
    WildDeuces,
    /// Seven wild cards, jokers and twos.
    WildMixed,
}

impl CanastaKind {
    /// True for canastas without a wild card standing in for a natural one: natural canastas
    /// and sambas (for `go_out_needs_natural_canasta`).
    pub fn is_natural(self) -> bool {
        matches!(self, CanastaKind::Natural | CanastaKind::Samba)
    }

    /// The bonus the rules give it (R-MELD-5, R-SAMBA-3, R-SAMBA-9).
    pub fn bonus(self, rules: &Rules) -> i32 {
        match self {
            CanastaKind::Natural => rules.natural_canasta_bonus,
            CanastaKind::Mixed => rules.mixed_canasta_bonus,
            CanastaKind::Samba => rules.samba_bonus,
            CanastaKind::WildJokers => rules.joker_canasta_bonus,
            CanastaKind::WildDeuces => rules.deuce_canasta_bonus,
            CanastaKind::WildMixed => rules.wild_canasta_bonus,
        }
    }
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

/// A canasta has at least this many cards (R-MELD-5); a samba and a wild canasta exactly this
/// many.
pub const CANASTA_LEN: usize = 7;

/// A meld has at least this many cards (R-MELD-1): a group, and so a sequence (R-SAMBA-3), a
/// meld of wild cards (R-SAMBA-9) and the black threes laid going out (R-MELD-6). The checks
/// below and every search that skips what they would refuse read it here.
pub const MELD_MIN_LEN: usize = 3;

/// A group holds at least this many natural cards (R-MELD-1).
pub const GROUP_MIN_NATURALS: u8 = 2;

/// The wild cards a group of `naturals` natural cards needs at least to reach
/// [`MELD_MIN_LEN`] cards.
pub const fn group_wilds_needed(naturals: u8) -> u8 {
    (MELD_MIN_LEN as u8).saturating_sub(naturals)
}

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
            _ => None,
        }
    }

    /// The canasta it is, if it is one (R-MELD-5).
    pub fn canasta(&self) -> Option<CanastaKind> {
        canasta_of(self.kind, &self.cards)
    }

    /// True if it is a canasta.
    pub fn is_canasta(&self) -> bool {
        self.canasta().is_some()
    }

    /// The lowest and highest rank of a sequence.
    pub fn sequence_ends(&self) -> Option<(Rank, Rank)> {
        let MeldKind::Sequence(suit) = self.kind else {
            return None;
        };
        let mut ranks = Rank::NATURALS
            .iter()
            .filter(|&&r| self.cards.count(Card::new(r, suit)) > 0);
        let low = *ranks.next()?;
        Some((low, ranks.next_back().copied().unwrap_or(low)))
    }
}

/// The canasta a meld of this kind and these cards is, if any. Black threes never make one.
pub fn canasta_of(kind: MeldKind, cards: &CardCounts) -> Option<CanastaKind> {
    if cards.len() < CANASTA_LEN {
        return None;
    }
    match kind {
        MeldKind::BlackThrees => None,
        MeldKind::Group(_) if cards.wilds() == 0 => Some(CanastaKind::Natural),
        MeldKind::Group(_) => Some(CanastaKind::Mixed),
        MeldKind::Sequence(_) => Some(CanastaKind::Samba),
        MeldKind::Wild if cards.jokers() as usize == cards.len() => Some(CanastaKind::WildJokers),
        MeldKind::Wild if cards.twos() as usize == cards.len() => Some(CanastaKind::WildDeuces),
        MeldKind::Wild => Some(CanastaKind::WildMixed),
    }
}

/// The kind of meld the cards of a new meld make, judged by their cards and the rules.
pub fn kind_of_new(rules: &Rules, cards: &CardCounts) -> Result<MeldKind, RuleError> {
    if cards.is_empty() {
        return Err(RuleError::EmptyMeld);
    }
    if cards.red_threes() > 0 {
        return Err(RuleError::RedThree);
    }
    let mut ranks = Rank::NATURALS.iter().filter(|&&r| cards.rank_count(r) > 0);
    let first = ranks.next().copied();
    let second = ranks.next().copied();
    let one_suit = || {
        let mut suits = cards
            .iter()
            .filter(|c| !c.is_wild())
            .filter_map(|c| c.suit());
        let first = suits.next();
        first.filter(|&f| suits.all(|s| s == f))
    };
    match (first, second) {
        // Where sequences are played, cards of one suit were meant as one (and fail its shape).
        (Some(_), _) if rules.sequences && one_suit().is_some() && cards.black_threes() > 0 => {
            Ok(MeldKind::Sequence(one_suit().expect("checked")))
        }
        (Some(r), _) if cards.black_threes() > 0 => Err(RuleError::WrongRank {
            rank: r,
            card: any_black_three(cards),
        }),
        (Some(r), None) => Ok(MeldKind::Group(r)),
        (Some(a), Some(b)) => {
            // Several ranks: a sequence, if the rules have them and the suit is one.
            let suits: Vec<Suit> = Suit::ALL
                .into_iter()
                .filter(|&s| cards.iter().any(|c| c.suit() == Some(s) && c.is_natural()))
                .collect();
            if rules.sequences && suits.len() == 1 {
                Ok(MeldKind::Sequence(suits[0]))
            } else {
                Err(RuleError::MixedRanks { a, b })
            }
        }
        (None, _) if cards.black_threes() > 0 => Ok(MeldKind::BlackThrees),
        (None, _) if rules.wild_canastas => Ok(MeldKind::Wild),
        (None, _) => Err(RuleError::WildOnlyMeld),
    }
}

fn any_black_three(cards: &CardCounts) -> Card {
    cards
        .iter()
        .find(|c| c.is_black_three())
        .expect("called with a black three present")
}

/// Checks that a meld of `kind` holding `cards` is valid as it would lie on the table
/// (R-MELD-1, R-MELD-6, R-SAMBA-3, R-SAMBA-4). The cards must fit the kind ([`check_fits`]).
pub fn check_shape(rules: &Rules, kind: MeldKind, cards: &CardCounts) -> Result<(), RuleError> {
    match kind {
        MeldKind::BlackThrees => {
            let n = cards.black_threes();
            if (n as usize) < MELD_MIN_LEN
                || n > rules.black_three_meld_max
                || cards.len() != n as usize
            {
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
        MeldKind::Sequence(suit) => {
            let ranks: Vec<Rank> = Rank::NATURALS
                .into_iter()
                .filter(|&r| cards.count(Card::new(r, suit)) > 0)
                .collect();
            let consecutive = ranks.windows(2).all(|w| w[1] as u8 == w[0] as u8 + 1);
            let one_each = ranks.iter().all(|&r| cards.count(Card::new(r, suit)) == 1);
            if ranks.len() != cards.len() || !consecutive || !one_each {
                return Err(RuleError::NotASequence);
            }
            if cards.len() < MELD_MIN_LEN {
                return Err(RuleError::MeldTooSmall {
                    len: cards.len() as u8,
                });
            }
            if cards.len() > CANASTA_LEN {
                return Err(RuleError::NotASequence);
            }
            Ok(())
        }
        MeldKind::Wild => {
            if cards.len() < MELD_MIN_LEN {
                return Err(RuleError::MeldTooSmall {
                    len: cards.len() as u8,
                });
            }
            if cards.len() > CANASTA_LEN {
                return Err(RuleError::CanastaClosed { meld: u8::MAX });
            }
            Ok(())
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
    if len < MELD_MIN_LEN as u16 {
        return Err(RuleError::MeldTooSmall { len: len as u8 });
    }
    if naturals < GROUP_MIN_NATURALS {
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

/// True if `card` (not a red three) may belong to a meld of `kind`: [`check_fits`] for one
/// card, without building an error.
pub fn card_fits(kind: MeldKind, card: Card) -> bool {
    match kind {
        MeldKind::Group(rank) => card.is_wild() || card.rank() == rank,
        // check_shape counts the black threes and refuses anything else.
        MeldKind::BlackThrees => true,
        MeldKind::Sequence(suit) => card.is_natural() && card.suit() == Some(suit),
        MeldKind::Wild => card.is_wild(),
    }
}

/// Checks that every card of `cards` may belong to a meld of `kind`.
pub fn check_fits(kind: MeldKind, cards: &CardCounts) -> Result<(), RuleError> {
    // Groups and wild melds counted at once; the card-by-card loop below names the card that
    // does not fit.
    let fitting = match kind {
        MeldKind::Group(rank) => Some(cards.rank_count(rank) as usize + cards.wilds() as usize),
        MeldKind::Wild => Some(cards.wilds() as usize),
        _ => None,
    };
    if fitting == Some(cards.len()) && cards.red_threes() == 0 {
        return Ok(());
    }
    for card in cards.iter() {
        if card.is_red_three() {
            return Err(RuleError::RedThree);
        }
        if !card_fits(kind, card) {
            return Err(match kind {
                MeldKind::Group(rank) => RuleError::WrongRank { rank, card },
                MeldKind::Wild => RuleError::NotWild { card },
                _ => RuleError::NotASequence,
            });
        }
    }
    Ok(())
}

/// Checks that `added` may be laid on `meld` (number `id`), and returns the cards the meld would
/// then hold (R-MELD-1, R-MELD-5 and its options, R-SAMBA-3, R-SAMBA-4).
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
    let mut after = meld.cards;
    after.add_all(added);
    match meld.kind {
        MeldKind::Group(rank) => {
            check_growth(rules, meld, id, added.rank_count(rank), added.wilds())?;
        }
        MeldKind::BlackThrees => return Err(RuleError::BlackThreesOnlyGoingOut),
        MeldKind::Sequence(_) | MeldKind::Wild => {
            if meld.is_canasta() {
                return Err(RuleError::CanastaClosed { meld: id });
            }
            check_shape(rules, meld.kind, &after).map_err(|e| match e {
                RuleError::CanastaClosed { .. } => RuleError::CanastaClosed { meld: id },
                e => e,
            })?;
        }
    }
    Ok(after)
}

/// Checks that a group or wild meld may take this many more natural cards of its rank and wild
/// cards: the rules of [`check_addition`] once the cards are known to fit.
pub fn check_growth(
    rules: &Rules,
    meld: &Meld,
    id: MeldId,
    naturals: u8,
    wilds: u8,
) -> Result<(), RuleError> {
    match meld.kind {
        MeldKind::BlackThrees => Err(RuleError::BlackThreesOnlyGoingOut),
        MeldKind::Sequence(_) => Err(RuleError::NotASequence),
        MeldKind::Wild => {
            if meld.is_canasta() || meld.len() + (naturals + wilds) as usize > CANASTA_LEN {
                return Err(RuleError::CanastaClosed { meld: id });
            }
            Ok(())
        }
        MeldKind::Group(rank) => {
            if rules.closed_canastas && meld.is_canasta() {
                return Err(RuleError::CanastaClosed { meld: id });
            }
            if !rules.wilds_on_canasta && wilds > 0 && meld.is_canasta() {
                return Err(RuleError::NoWildOnCanasta { meld: id });
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
    let kind = kind_of_new(rules, cards)?;
    check_fits(kind, cards)?;
    check_shape(rules, kind, cards).map_err(|e| match e {
        // A new wild meld of more than seven cards.
        RuleError::CanastaClosed { .. } => RuleError::TooManyWilds {
            rank: Rank::Joker,
            wilds: cards.len() as u8,
            max: CANASTA_LEN as u8,
        },
        e => e,
    })?;
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
