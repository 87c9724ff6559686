//! The rules of a turn, one predicate each.
//!
//! Every rule that both the checks (`mod.rs`) and the searches (`enumerate.rs`, `going_out.rs`)
//! need is decided here, once: a check calls the predicate and turns its answer into a
//! [`RuleError`]; a search calls the same predicate to skip what the check would refuse. A
//! rule change is an edit here, and the property tests (`tests/properties.rs`: everything
//! listed passes the check, the summary says what the list says, "can I go out?" agrees with a
//! brute force) hold the searches to it. The shapes of melds are decided in [`crate::meld`],
//! the scores in [`crate::score`].
//!
//! Predicates on the position ([`Ctx`]) read only what a seat may see, so they run alike on
//! the referee's game and on a view; the free functions serve the game itself (what a discard
//! blocks, whether a going out was concealed) and the scorer.

use std::cell::OnceCell;

use crate::action::{MeldSpec, MeldTarget};
use crate::card::{Card, CardCounts, Rank, Suit};
use crate::error::RuleError;
use crate::meld::{Meld, MeldKind, check_addition, check_growth, check_shape};
use crate::rules::{Rules, StopRule};
use crate::table::Seat;

use super::{Ask, BatchInfo, Ctx, TurnFlags, single};

/// R-PILE-1, R-TURN-4: a wild card or a black three blocks the pile while it lies on top
/// (a wild card also freezes it, R-PILE-2). A turned-up card at the start of a deal blocks
/// alike.
#[inline]
pub(crate) fn stop_card(card: Card) -> bool {
    card.is_wild() || card.is_black_three()
}

/// R-PILE-2, R-TURN-4: a wild card or a red three in the pile freezes it (a red three is
/// never discarded, but may be turned up at the start of a deal).
#[inline]
pub(crate) fn freezes_pile(card: Card) -> bool {
    card.is_wild() || card.is_red_three()
}

/// R-TURN-4: whether `card`, just discarded, blocks the pile for the next player: a stop card
/// ([`stop_card`]) always; under the Wiener stop rule, a natural card the next player could add
/// to one of his side's canastas, when he is an opponent (`next_opponent_melds` gives his side's
/// melds then, `None` for a partner); under the Swiss rule (seed 004), a natural card of a rank
/// of which a canasta lies anywhere on the table (`table`: every side's melds).
#[inline]
pub(crate) fn discard_blocks<'m>(
    rules: &Rules,
    card: Card,
    next_opponent_melds: impl FnOnce() -> Option<&'m [Meld]>,
    table: &[Vec<Meld>],
) -> bool {
    if stop_card(card) {
        return true;
    }
    if !card.is_natural() {
        return false;
    }
    let matches = |m: &Meld| m.rank() == Some(card.rank()) && m.is_canasta();
    match rules.stop_rule {
        StopRule::BlackThrees => false,
        StopRule::Wiener => next_opponent_melds().is_some_and(|melds| {
            melds
                .iter()
                .enumerate()
                .any(|(id, m)| matches(m) && check_growth(rules, m, id as u8, 1, 0).is_ok())
        }),
        StopRule::Swiss => table.iter().flatten().any(matches),
    }
}

/// R-OUT-4: the seat may still go out concealed: it laid nothing in an earlier turn of this
/// deal, and nothing this turn onto a meld another seat laid.
#[inline]
pub(crate) fn concealed_so_far(melded_before: bool, turn: &TurnFlags) -> bool {
    !melded_before && !turn.foreign
}

/// R-OUT-4: the seat laid a canasta of its own (among its side's `melds`).
pub(crate) fn own_canasta(melds: &[Meld], seat: Seat) -> bool {
    melds.iter().any(|m| m.creator == seat && m.is_canasta())
}

/// R-OUT-4 with its options: whether the going out just made scores as concealed. The seat went
/// out concealed so far ([`concealed_so_far`]), in a turn that did not take the pile where the
/// rules give no raised bonus then (Wiener), and with a canasta of its own unless the rules give
/// a concealed bonus without one (Wiener). What it earns is [`crate::score`]'s.
pub(crate) fn went_out_concealed(
    rules: &Rules,
    melded_before: bool,
    turn: &TurnFlags,
    own_canasta: bool,
) -> bool {
    concealed_so_far(melded_before, turn)
        && (rules.concealed_bonus_after_take || !turn.took_pile)
        && (own_canasta || rules.concealed_without_canasta_bonus.is_some())
}

/// R-RED-3: a card picked up with the pile that is laid at once instead of joining the hand
/// (a red three, which only the upcards can bring into the pile).
#[inline]
pub(crate) fn laid_from_pile(card: Card) -> bool {
    card.is_red_three()
}

/// R-TURN-3, R-RED-6: a card that may be discarded (a red three never may; it never stays in
/// a hand).
#[inline]
pub(super) fn discardable(card: Card) -> bool {
    !card.is_red_three()
}

/// R-TURN-2, R-OUT-1: a take or meld that leaves `left` cards in hand keeps a card to discard
/// and ends the turn with it; with fewer than two, the last discard would be going out, which
/// only [`crate::Action::GoOut`] does.
#[inline]
pub(super) fn keeps_a_card(left: usize) -> bool {
    left >= 2
}

/// What taking the pile depends on besides the cards offered, read once per check or listing.
#[derive(Clone, Debug)]
pub(super) struct PileFacts {
    /// The top card.
    pub top: Card,
    /// R-PILE-2: the pile is frozen for the seat (a wild card or red three in it, or its side
    /// has not melded).
    pub frozen: bool,
    /// Rasche g: one natural card (and a wild card) takes it for an initial meld.
    pub one_natural: bool,
    /// R-SAMBA-5: the top card could be added to one of the side's canastas; looked at only for
    /// a take without a natural pair (most takes of a check have one), then kept.
    needs_pair: OnceCell<bool>,
}

impl Ctx<'_> {
    /// R-PILE-1, R-TURN-4: the top card blocks the pile (a stop card, or a card the stop rules
    /// made block when it was discarded: `pile_blocked`).
    #[inline]
    pub(super) fn top_blocks(&self, top: Card) -> bool {
        self.pile_blocked || stop_card(top)
    }

    /// R-PILE-1, R-PILE-6, R-PILE-8: the pile's top card, if the pile may be taken at all
    /// whatever the cards offered: it is not empty, its top card does not block it, and the
    /// seat does not hold one card facing a pile of one (unless the rules drop that rule).
    pub(super) fn open_pile(&self) -> Result<Card, RuleError> {
        let top = *self.pile.last().ok_or(RuleError::PileEmpty)?;
        if self.top_blocks(top) {
            return Err(RuleError::PileBlocked { top });
        }
        if self.rules.one_card_pile_rule && self.hand.len() == 1 && self.pile.len() == 1 {
            return Err(RuleError::OneCardPile);
        }
        Ok(top)
    }

    /// The facts of [`PileFacts`] for the top card `top`.
    #[inline]
    pub(super) fn pile_facts(&self, top: Card) -> PileFacts {
        PileFacts {
            top,
            frozen: self.pile_frozen || !self.side_melded,
            one_natural: self.rules.initial_take_without_pair
                && !self.pile_frozen
                && !self.side_melded,
            needs_pair: OnceCell::new(),
        }
    }

    /// R-SAMBA-5 (`pair_if_top_fits_canasta`): only a natural pair takes the pile while its top
    /// card could be added to one of the side's canastas ([`PileFacts`]).
    pub(super) fn needs_pair(&self, f: &PileFacts) -> bool {
        *f.needs_pair.get_or_init(|| {
            self.rules.pair_if_top_fits_canasta
                && self.melds.iter().enumerate().any(|(id, m)| {
                    m.is_canasta()
                        && check_addition(self.rules, m, id as u8, &single(f.top)).is_ok()
                })
        })
    }

    /// R-PILE-3, R-PILE-4, R-SAMBA-5 and Rasche g: whether the top card, laid into `target`
    /// (`None`: a new group of its rank) with `naturals` natural cards of its rank from the hand
    /// (and the wild cards the meld's shape needs, which [`crate::meld`] judges), takes the
    /// pile. A frozen pile needs a natural pair (Rasche g: one natural, for an initial meld of an
    /// unfrozen pile); so does a top card that fits one of the side's canastas (Samba,
    /// [`Ctx::needs_pair`]); a new group needs a natural card, and two where one natural and a
    /// wild card do not take it (Samba); a canasta takes the top card only where the rules allow
    /// it.
    pub(super) fn take_way(
        &self,
        f: &PileFacts,
        target: Option<&Meld>,
        naturals: u8,
    ) -> Result<(), RuleError> {
        let top = f.top;
        if f.frozen && naturals < 2 && !(f.one_natural && naturals == 1) {
            return Err(RuleError::PileFrozen { top, naturals });
        }
        if naturals < 2 && self.needs_pair(f) {
            return Err(RuleError::PileTakeForbidden {
                top,
                why: "the top card could be added to one of your side's canastas, so only a natural pair from the hand takes the pile under these rules",
            });
        }
        match target {
            None if naturals == 0 => Err(RuleError::TopCardNotMelded {
                top,
                with_wild: self.rules.pile_with_natural_and_wild,
            }),
            None if naturals < 2 && !self.rules.pile_with_natural_and_wild => {
                Err(RuleError::PileTakeForbidden {
                    top,
                    why: "one natural card and a wild card do not take the pile under these rules",
                })
            }
            Some(meld) if meld.is_canasta() && !self.rules.pile_onto_canasta => {
                Err(RuleError::PileTakeForbidden {
                    top,
                    why: "the top card may not be added to a canasta under these rules",
                })
            }
            _ => Ok(()),
        }
    }

    /// R-PILE-5, R-RED-3: the cards in hand after taking the pile and laying
    /// `hand_cards_laid` cards of the hand (with the top card): the rest of the pile comes into
    /// the hand, but its red threes are laid.
    #[inline]
    pub(super) fn cards_after_take(&self, hand_cards_laid: usize) -> usize {
        let rest = &self.pile[..self.pile.len().saturating_sub(1)];
        let picked_up = rest.len() - rest.iter().filter(|&&c| laid_from_pile(c)).count();
        self.hand.len() - hand_cards_laid + picked_up
    }

    /// The side's first group of this rank.
    pub(super) fn group_of(&self, rank: Rank) -> Option<usize> {
        self.melds
            .iter()
            .position(|m| m.kind == MeldKind::Group(rank))
    }

    /// R-MELD-2: a side has one group of each rank, further cards of the rank go onto it
    /// (Samba and Swiss allow several).
    #[inline]
    pub(super) fn one_group_per_rank(&self) -> bool {
        !self.rules.multiple_melds_per_rank
    }

    /// R-MELD-2: the side may start a new group of `rank` ([`Ctx::one_group_per_rank`]).
    #[inline]
    pub(super) fn may_start_group(&self, rank: Rank) -> bool {
        !self.one_group_per_rank() || self.group_of(rank).is_none()
    }

    /// R-INIT-1, R-INIT-2, R-INIT-4: cards worth `value` laid in one action meet the side's
    /// minimum: it has melded, or they reach it.
    #[inline]
    pub(super) fn reaches_minimum(&self, value: u32) -> bool {
        self.side_melded || value >= self.minimum
    }

    /// R-INIT-1 to R-INIT-4: the cards `laid` in one action (with the pile's top card for a
    /// take, R-INIT-3) meet the side's minimum ([`Ctx::reaches_minimum`]).
    pub(super) fn check_minimum(&self, laid: &CardCounts) -> Result<(), RuleError> {
        if self.side_melded {
            return Ok(());
        }
        let value = laid.value();
        if !self.reaches_minimum(value) {
            return Err(RuleError::BelowMinimum {
                value,
                minimum: self.minimum,
            });
        }
        Ok(())
    }

    /// R-INIT-5, R-OUT-4: the minimum a going out of a side that has not melded must reach: none
    /// (a concealed going out), unless the rules say so (`concealed_needs_minimum`: Samba,
    /// R-SAMBA-7, and Swiss). A side that took the pile this turn has melded.
    pub(super) fn check_out_minimum(&self, laid: &CardCounts) -> Result<(), RuleError> {
        if self.rules.concealed_needs_minimum {
            self.check_minimum(laid)
        } else {
            Ok(())
        }
    }

    /// R-PILE-5 (seed 004): the seat took the pile this turn under rules without melding after
    /// a take (Swiss).
    #[inline]
    pub(super) fn restricted_after_take(&self) -> bool {
        !self.rules.meld_after_take && self.turn.took_pile
    }

    /// R-PILE-5 (seed 004): cards may be laid now onto `meld` (`None`: a new meld), natural
    /// cards of the meld's rank only if `naturals_only`: always, but after a take under rules
    /// without melding after it (Swiss), only natural cards onto the side's canastas of their
    /// rank.
    #[inline]
    pub(super) fn may_lay_after_take(&self, meld: Option<&Meld>, naturals_only: bool) -> bool {
        !self.restricted_after_take()
            || (naturals_only && meld.is_some_and(|m| m.is_canasta() && m.rank().is_some()))
    }

    /// [`Ctx::may_lay_after_take`] for every meld of a batch.
    pub(super) fn check_after_take(&self, melds: &[MeldSpec]) -> Result<(), RuleError> {
        if !self.restricted_after_take() {
            return Ok(());
        }
        let allowed = |spec: &MeldSpec| {
            let MeldTarget::Existing(id) = spec.target else {
                return false;
            };
            self.melds.get(id as usize).is_some_and(|meld| {
                let naturals_only = meld
                    .rank()
                    .is_some_and(|r| spec.cards.rank_count(r) as usize == spec.cards.len());
                self.may_lay_after_take(Some(meld), naturals_only)
            })
        };
        if melds.iter().all(allowed) {
            Ok(())
        } else {
            Err(RuleError::NoMeldAfterTake)
        }
    }

    /// R-TURN-1, R-STOCK-1: drawing from the stock needs a stock.
    #[inline]
    pub(super) fn check_draw(&self) -> Result<(), RuleError> {
        if self.stock_len == 0 {
            return Err(RuleError::StockEmpty);
        }
        Ok(())
    }

    /// R-OUT-1: discarding now would empty the hand, which is going out: a discard keeps a
    /// card.
    #[inline]
    pub(super) fn discard_is_going_out(&self) -> bool {
        self.hand.len() < 2
    }

    /// R-OUT-3: the partner's answer lets the seat go out this turn (not after a "no").
    #[inline]
    pub(super) fn check_partner_lets_out(&self) -> Result<(), RuleError> {
        if self.turn.ask == Ask::No {
            return Err(RuleError::PartnerSaidNo);
        }
        Ok(())
    }

    /// R-OUT-1 (R-DEAL-2; Rasche h): the canastas the side needs to go out, and whether one of
    /// them must be natural (a samba counts as natural).
    #[inline]
    pub(super) fn out_needs(&self) -> (u8, bool) {
        (
            self.rules.canastas_to_go_out,
            self.rules.go_out_needs_natural_canasta,
        )
    }

    /// R-OUT-1: whether the side may go out with this many canastas, natural ones among them,
    /// once the going out is laid ([`Ctx::out_needs`]).
    pub(super) fn check_out_canastas(
        &self,
        canastas: u8,
        natural_canastas: u8,
    ) -> Result<(), RuleError> {
        let (need, natural) = self.out_needs();
        if canastas < need {
            return Err(RuleError::NotEnoughCanastas {
                have: canastas,
                need,
            });
        }
        if natural && natural_canastas == 0 {
            return Err(RuleError::NeedNaturalCanasta);
        }
        Ok(())
    }

    /// R-OUT-1, R-OUT-3: whether the side may go out this turn with this many canastas.
    pub(super) fn go_out_allowed(
        &self,
        canastas: u8,
        natural_canastas: u8,
    ) -> Result<(), RuleError> {
        self.check_partner_lets_out()?;
        self.check_out_canastas(canastas, natural_canastas)
    }

    /// R-OUT-1 (Swiss: going out always ends with a discard): a going out may lay the whole
    /// hand without discarding.
    #[inline]
    pub(super) fn may_go_out_without_discard(&self) -> bool {
        !self.rules.go_out_requires_discard
    }

    /// R-TURN-2 with R-OUT-1: a take or meld that leaves `left` cards, with the side's canastas
    /// as the batch leaves them, could be followed by going out at once: what a player who
    /// keeps fewer than two cards is told (and, for a take, what lets it through).
    pub(super) fn could_go_out_after(&self, left: usize, info: &BatchInfo) -> bool {
        left >= !self.may_go_out_without_discard() as usize
            && self
                .go_out_allowed(info.canastas, info.natural_canastas)
                .is_ok()
    }

    /// R-OUT-4: the seat may still go out concealed ([`concealed_so_far`]).
    #[inline]
    pub(super) fn may_still_go_out_concealed(&self) -> bool {
        concealed_so_far(self.melded_before, &self.turn)
    }

    /// R-MELD-6: black threes are laid only going out, all of them in one meld ([`check_shape`]
    /// judges its size): the meld the black threes of `cards` make, `Ok(None)` if there are
    /// none, `Err(())` if they make no meld.
    #[inline]
    pub(super) fn black_three_meld(&self, cards: &CardCounts) -> Result<Option<CardCounts>, ()> {
        // Most hands hold none: said without a call.
        if cards.black_threes() == 0 {
            return Ok(None);
        }
        self.black_three_meld_of(cards)
    }

    /// [`Ctx::black_three_meld`] of cards that hold a black three.
    fn black_three_meld_of(&self, cards: &CardCounts) -> Result<Option<CardCounts>, ()> {
        let mut meld = CardCounts::new();
        for s in [Suit::Clubs, Suit::Spades] {
            let c = Card::new(Rank::Three, s);
            meld.add_n(c, cards.count(c));
        }
        match check_shape(self.rules, MeldKind::BlackThrees, &meld) {
            Ok(()) => Ok(Some(meld)),
            Err(_) => Err(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_cards;
    use crate::game::Phase;
    use crate::rules::{Preset, RuleSpec};

    fn cards(text: &str) -> CardCounts {
        CardCounts::from_cards(parse_cards(text).unwrap())
    }

    fn card(text: &str) -> Card {
        text.parse().unwrap()
    }

    fn rules(preset: Preset) -> Rules {
        Rules::new(&RuleSpec::new(preset, 4)).unwrap()
    }

    fn meld(kind: MeldKind, text: &str, creator: u8) -> Meld {
        Meld {
            kind,
            cards: cards(text),
            creator: Seat(creator),
        }
    }

    fn ctx<'a>(
        rules: &'a Rules,
        hand: &'a CardCounts,
        pile: &'a [Card],
        melds: &'a [Meld],
    ) -> Ctx<'a> {
        Ctx {
            rules,
            seat: Seat(0),
            phase: Phase::Draw,
            hand,
            melds,
            side_melded: true,
            minimum: 50,
            pile,
            pile_frozen: false,
            pile_blocked: false,
            stock_len: 10,
            partner: Some(Seat(2)),
            melded_before: false,
            turn: TurnFlags::default(),
        }
    }

    // R-PILE-1, R-TURN-4: wild cards and black threes block; the presets' stop rules add
    // natural cards that match a canasta (the next opponent's, Wiener; anyone's, Swiss).
    #[test]
    fn r_turn_4_what_a_discard_blocks() {
        let canasta = meld(MeldKind::Group(Rank::King), "KS KH KD KC KS KH KD", 1);
        let sides = vec![vec![], vec![canasta]];
        for preset in [Preset::Official, Preset::Wiener, Preset::Swiss] {
            let r = rules(preset);
            for stop in ["Jk", "2C", "3S", "3C"] {
                assert!(
                    discard_blocks(&r, card(stop), || None, &sides),
                    "{preset} {stop}"
                );
            }
            assert!(!discard_blocks(&r, card("QS"), || Some(&sides[1]), &sides));
        }
        let king = card("KS");
        let official = rules(Preset::Official);
        assert!(!discard_blocks(&official, king, || Some(&sides[1]), &sides));
        let wiener = rules(Preset::Wiener);
        assert!(discard_blocks(&wiener, king, || Some(&sides[1]), &sides));
        // Only the next player's side counts, and only an opponent's.
        assert!(!discard_blocks(&wiener, king, || None, &sides));
        assert!(!discard_blocks(&wiener, king, || Some(&sides[0]), &sides));
        let swiss = rules(Preset::Swiss);
        assert!(discard_blocks(&swiss, king, || None, &sides));
    }

    // R-PILE-6: one card facing a pile of one; Wiener drops the rule.
    #[test]
    fn r_pile_6_open_pile() {
        let official = rules(Preset::Official);
        let one = cards("5D");
        let pile = [card("5S")];
        assert_eq!(
            ctx(&official, &one, &pile, &[]).open_pile(),
            Err(RuleError::OneCardPile)
        );
        let two = cards("5D 5H");
        assert_eq!(ctx(&official, &two, &pile, &[]).open_pile(), Ok(card("5S")));
        let wiener = rules(Preset::Wiener);
        assert_eq!(ctx(&wiener, &one, &pile, &[]).open_pile(), Ok(card("5S")));
        let blocked = [card("5S"), card("3C")];
        assert_eq!(
            ctx(&official, &two, &blocked, &[]).open_pile(),
            Err(RuleError::PileBlocked { top: card("3C") })
        );
        assert_eq!(
            ctx(&official, &two, &[], &[]).open_pile(),
            Err(RuleError::PileEmpty)
        );
    }

    // R-PILE-2 to R-PILE-4: the naturals a take needs, frozen or not, into a new group or
    // onto a meld (a canasta where the rules allow it).
    #[test]
    fn r_pile_3_and_4_take_ways() {
        let official = rules(Preset::Official);
        let hand = cards("7S 7H Jk 4C");
        let pile = [card("9C"), card("7D")];
        let seven = meld(MeldKind::Group(Rank::Seven), "7C 7C 7S", 0);
        let melds = [seven];
        let c = ctx(&official, &hand, &pile, &melds);
        let f = c.pile_facts(card("7D"));
        assert!(!f.frozen && !f.one_natural && !c.needs_pair(&f));
        assert!(c.take_way(&f, Some(&melds[0]), 0).is_ok());
        assert!(c.take_way(&f, None, 2).is_ok());
        assert!(
            c.take_way(&f, None, 1).is_ok(),
            "one natural and a wild card"
        );
        assert!(matches!(
            c.take_way(&f, None, 0),
            Err(RuleError::TopCardNotMelded { .. })
        ));
        // Frozen: a natural pair only, whatever the target.
        let mut frozen = c;
        frozen.pile_frozen = true;
        let f = frozen.pile_facts(card("7D"));
        assert!(f.frozen);
        for (target, n) in [(Some(&melds[0]), 0), (None, 1)] {
            assert!(matches!(
                frozen.take_way(&f, target, n),
                Err(RuleError::PileFrozen { .. })
            ));
        }
        assert!(frozen.take_way(&f, Some(&melds[0]), 2).is_ok());
        assert!(frozen.take_way(&f, None, 2).is_ok());
        // Before the side's initial meld the pile is frozen for it; Rasche g takes it with one
        // natural (and a wild card) while nothing else freezes it.
        let mut unmelded = c;
        unmelded.side_melded = false;
        let f = unmelded.pile_facts(card("7D"));
        assert!(f.frozen && !f.one_natural);
        assert!(unmelded.take_way(&f, None, 1).is_err());
        let g = Rules::new(
            &RuleSpec::new(Preset::Official, 4)
                .with("rasche_g", "true")
                .unwrap(),
        )
        .unwrap();
        let mut relaxed = unmelded;
        relaxed.rules = &g;
        let f = relaxed.pile_facts(card("7D"));
        assert!(f.one_natural);
        assert!(relaxed.take_way(&f, None, 1).is_ok());
    }

    // Samba: a top card that fits a canasta of the side needs a natural pair; the top card
    // never joins a canasta, and one natural with a wild card never takes the pile.
    #[test]
    fn r_samba_take_ways() {
        let samba = rules(Preset::Samba);
        let hand = cards("7S 7H Jk 4C");
        let pile = [card("9C"), card("7D")];
        let canasta = meld(MeldKind::Group(Rank::Seven), "7C 7C 7S 7S 7H 7H 7D", 0);
        let melds = [canasta];
        let c = ctx(&samba, &hand, &pile, &melds);
        let f = c.pile_facts(card("7D"));
        assert!(c.needs_pair(&f));
        assert!(c.take_way(&f, Some(&melds[0]), 0).is_err());
        assert!(
            c.take_way(&f, Some(&melds[0]), 2).is_err(),
            "not onto a canasta"
        );
        assert!(c.take_way(&f, None, 1).is_err());
        assert!(c.take_way(&f, None, 2).is_ok());
        let f = c.pile_facts(card("9C"));
        assert!(!c.needs_pair(&f));
        assert!(
            c.take_way(&f, None, 1).is_err(),
            "no natural and wild card take"
        );
    }

    // R-INIT-1 to R-INIT-5: the minimum binds a side that has not melded, and a going out
    // only under the rules that say so.
    #[test]
    fn r_init_minimum_for_melds_and_going_out() {
        let official = rules(Preset::Official);
        let hand = cards("KS KH KD 5C 5D");
        let mut c = ctx(&official, &hand, &[], &[]);
        c.side_melded = false;
        assert!(c.reaches_minimum(50) && !c.reaches_minimum(49));
        assert_eq!(
            c.check_minimum(&cards("KS KH KD")),
            Err(RuleError::BelowMinimum {
                value: 30,
                minimum: 50
            })
        );
        assert_eq!(c.check_out_minimum(&cards("KS KH KD")), Ok(()));
        let samba = rules(Preset::Samba);
        c.rules = &samba;
        assert!(c.check_out_minimum(&cards("KS KH KD")).is_err());
        c.side_melded = true;
        assert!(c.reaches_minimum(0));
        assert_eq!(c.check_minimum(&cards("KS KH KD")), Ok(()));
        assert_eq!(c.check_out_minimum(&cards("KS KH KD")), Ok(()));
    }

    // R-PILE-5 (seed 004): after a take under Swiss rules, natural cards onto a canasta of
    // their rank only.
    #[test]
    fn r_pile_5_after_a_take() {
        let swiss = rules(Preset::Swiss);
        let hand = cards("KS 9H 9D 2C");
        let canasta = meld(MeldKind::Group(Rank::King), "KS KH KD KC KS KH KD", 0);
        let small = meld(MeldKind::Group(Rank::Nine), "9S 9C 9C", 0);
        let melds = [canasta, small];
        let mut c = ctx(&swiss, &hand, &[], &melds);
        assert!(c.may_lay_after_take(None, false));
        c.turn.took_pile = true;
        assert!(c.may_lay_after_take(Some(&melds[0]), true));
        assert!(!c.may_lay_after_take(Some(&melds[0]), false));
        assert!(!c.may_lay_after_take(Some(&melds[1]), true));
        assert!(!c.may_lay_after_take(None, true));
        let onto = |id: u8, text: &str| MeldSpec::add_to(id, cards(text));
        assert_eq!(c.check_after_take(&[onto(0, "KS")]), Ok(()));
        for bad in [
            onto(0, "2C"),
            onto(1, "9H"),
            MeldSpec::new_meld(cards("9H 9D 2C")),
        ] {
            assert_eq!(c.check_after_take(&[bad]), Err(RuleError::NoMeldAfterTake));
        }
        let official = rules(Preset::Official);
        c.rules = &official;
        assert!(c.may_lay_after_take(None, false));
    }

    // R-MELD-6: black threes make one meld of three up to the rules' most (Samba: six).
    #[test]
    fn r_meld_6_black_three_meld() {
        let official = rules(Preset::Official);
        let samba = rules(Preset::Samba);
        let hand = CardCounts::new();
        let c = ctx(&official, &hand, &[], &[]);
        assert_eq!(c.black_three_meld(&cards("KS 5D")), Ok(None));
        assert_eq!(c.black_three_meld(&cards("3C 3S KS")), Err(()));
        assert_eq!(
            c.black_three_meld(&cards("3C 3S 3S KS")),
            Ok(Some(cards("3C 3S 3S")))
        );
        let five = cards("3C 3C 3S 3S 3C");
        assert_eq!(c.black_three_meld(&five), Err(()));
        let mut s = c;
        s.rules = &samba;
        assert_eq!(s.black_three_meld(&five), Ok(Some(five)));
    }

    // R-OUT-4: concealed so far, and what scores as concealed under the options.
    #[test]
    fn r_out_4_concealed() {
        let official = rules(Preset::Official);
        let wiener = rules(Preset::Wiener);
        let plain = TurnFlags::default();
        let foreign = TurnFlags {
            foreign: true,
            ..plain
        };
        let took = TurnFlags {
            took_pile: true,
            ..plain
        };
        assert!(concealed_so_far(false, &plain));
        assert!(!concealed_so_far(true, &plain));
        assert!(!concealed_so_far(false, &foreign));
        assert!(went_out_concealed(&official, false, &plain, true));
        assert!(!went_out_concealed(&official, false, &plain, false));
        assert!(went_out_concealed(&official, false, &took, true));
        assert!(!went_out_concealed(&official, true, &plain, true));
        // Wiener: a concealed bonus without an own canasta too, none after taking the pile.
        assert!(went_out_concealed(&wiener, false, &plain, false));
        assert!(!went_out_concealed(&wiener, false, &took, true));
        let mine = meld(MeldKind::Group(Rank::King), "KS KH KD KC KS KH KD", 0);
        let partners = meld(MeldKind::Group(Rank::Queen), "QS QH QD QC QS QH QD", 2);
        assert!(own_canasta(&[mine, partners], Seat(0)));
        assert!(!own_canasta(&[partners], Seat(0)));
        let small = meld(MeldKind::Group(Rank::Five), "5S 5H 5D", 0);
        assert!(!own_canasta(&[small, partners], Seat(0)));
    }

    // R-OUT-1, R-OUT-3: canastas needed, a natural one under Rasche h, and the partner's no.
    #[test]
    fn r_out_1_and_3_going_out_allowed() {
        let official = rules(Preset::Official);
        let hand = CardCounts::new();
        let mut c = ctx(&official, &hand, &[], &[]);
        assert_eq!(c.out_needs(), (1, false));
        assert_eq!(
            c.go_out_allowed(0, 0),
            Err(RuleError::NotEnoughCanastas { have: 0, need: 1 })
        );
        assert_eq!(c.go_out_allowed(1, 0), Ok(()));
        c.turn.ask = Ask::No;
        assert_eq!(c.go_out_allowed(1, 1), Err(RuleError::PartnerSaidNo));
        let h = Rules::new(
            &RuleSpec::new(Preset::Official, 4)
                .with("rasche_h", "true")
                .unwrap(),
        )
        .unwrap();
        let c = ctx(&h, &hand, &[], &[]);
        assert_eq!(c.go_out_allowed(2, 0), Err(RuleError::NeedNaturalCanasta));
        assert_eq!(c.go_out_allowed(1, 1), Ok(()));
    }
}
