//! The going outs the enumerator lists (see the canonical form in the documentation of
//! [`crate::legal`]): every split of a small hand once the side has melded, and the concealed
//! going outs of a whole hand. They share the going-out search's quick tests (which discards
//! can end a going out, whether the side can reach its canastas) and, like it, hand every
//! candidate to the one check, which stays the judge.

use smallvec::SmallVec;

use crate::action::{Action, MeldSpec, MeldTarget};
use crate::card::{Card, CardCounts, Rank};
use crate::legal::{Ctx, canasta_counts, single};
use crate::meld::{
    CANASTA_LEN, GROUP_MIN_NATURALS, MELD_MIN_LEN, Meld, MeldKind, card_fits, check_group_counts,
    group_wilds_needed,
};

/// A meld of a going-out split: its natural cards (or black threes) and the wild cards it
/// needs and can take, with the totals of the slots from here on.
#[derive(Clone, Copy, Debug)]
struct Slot {
    spec: MeldSpec,
    need: u8,
    cap: u8,
    /// Cards the meld holds before wild cards are spread (existing cards included).
    len: u8,
    /// It is a canasta already.
    canasta: bool,
    need_after: u16,
    cap_after: u16,
    /// How many of the slots from here on could become new canastas.
    canastas_after: u8,
}

impl Slot {
    fn new(spec: MeldSpec, need: u8, cap: u8, len: u8, canasta: bool) -> Slot {
        Slot {
            spec,
            need,
            cap,
            len,
            canasta,
            need_after: 0,
            cap_after: 0,
            canastas_after: 0,
        }
    }

    fn may_become_canasta(&self) -> bool {
        !self.canasta && (self.len + self.cap) as usize >= CANASTA_LEN
    }
}

/// The state of a search for concealed going-out splits.
/// Search steps for the concealed going-outs of one position that need not all be listed
/// (see [`Ctx::partitions`]): plenty for any hand of a normal deal, a bound for a huge one.
const CONCEALED_BUDGET: u32 = 20_000;

/// What a split handed on for checking costs of a search budget, in steps.
const EMIT_COST: u32 = 16;

struct Spread<'s, 'e> {
    slots: &'s [Slot],
    /// The twos to hand out, canonical suits first.
    twos: CardCounts,
    /// Search steps left before giving up, when only one split is wanted (a convenience that
    /// must never cost much: steps reach every such going out too).
    budget: Option<u32>,
    /// New canastas the split must make.
    wanted: u8,
    /// Jokers and twos given to each slot so far.
    wilds: SmallVec<[(u8, u8); 12]>,
    emit: &'e mut dyn FnMut(&[MeldSpec]) -> bool,
}

impl Spread<'_, '_> {
    /// Builds the melds of the split found and hands them to `emit`.
    fn emit_current(&mut self) -> bool {
        let mut twos = self.twos;
        let mut specs: SmallVec<[MeldSpec; 8]> = SmallVec::new();
        for (slot, &(j, t)) in self.slots.iter().zip(self.wilds.iter()) {
            let mut cards = slot.spec.cards;
            if j + t == 0 && cards.is_empty() {
                continue;
            }
            cards.add_n(Card::JOKER, j);
            let these = twos.of_rank(Rank::Two, t);
            twos.remove_all(&these);
            cards.add_all(&these);
            specs.push(MeldSpec {
                target: slot.spec.target,
                cards,
            });
        }
        (self.emit)(&specs)
    }
}

impl Ctx<'_> {
    /// Hands the going outs of the play phase to `emit`, in the order of the enumeration, until
    /// `emit` returns false.
    pub(in crate::legal) fn go_outs(&self, emit: &mut dyn FnMut(Action) -> bool) {
        if self.check_partner_lets_out().is_err() {
            return;
        }
        let hand = self.hand;
        let small = hand.len() <= 4 + hand.black_threes() as usize;
        if self.side_melded && small {
            // The final action of a turn. A split that adds cards to a meld could lay them by a
            // step first, unless the hand has two cards or fewer; a bigger hand is reached by
            // steps (see the documentation of `legal`).
            let onto_melds = hand.len() <= 2;
            if self.may_reach_canastas(onto_melds) {
                self.push_small_splits(emit, onto_melds);
            }
        } else if self.may_still_go_out_concealed() && self.concealed_possible() {
            // A concealed going out of the whole hand (R-OUT-4).
            self.push_concealed(emit);
        }
    }

    /// Going out with a small hand: every assignment of its cards to melds, handed to `emit`
    /// until it returns false.
    fn push_small_splits(&self, emit: &mut dyn FnMut(Action) -> bool, onto_melds: bool) {
        // The side's groups take cards only when the splits may add to melds.
        let grouped = if onto_melds { self.grouped_ranks() } else { 0 };
        let Some(forced) = self.forced_discard(grouped) else {
            return;
        };
        for discard in self.discards() {
            if !self.may_end_with(discard, forced, grouped) {
                continue;
            }
            let mut rest = *self.hand;
            if let Some(d) = discard {
                let held = rest.remove(d);
                debug_assert!(held, "a discard is a card of the hand");
            }
            let mut specs: SmallVec<[MeldSpec; 6]> = SmallVec::new();
            match self.black_three_meld(&rest) {
                Err(()) => continue,
                Ok(Some(cards)) => {
                    rest.remove_all(&cards);
                    specs.push(MeldSpec::new_meld(cards));
                }
                Ok(None) => {}
            }
            let cards: SmallVec<[Card; 8]> = rest.iter().collect();
            let mut targets: SmallVec<[MeldTarget; 8]> = SmallVec::new();
            let existing = self.melds.len();
            let go_on = self.assign(&cards, onto_melds, &mut targets, &mut |targets| {
                // New melds (numbered from `existing`) of too few cards: no split.
                let mut sizes = [0u8; 16];
                for t in targets {
                    if let MeldTarget::Existing(id) = *t
                        && let Some(n) = (id as usize)
                            .checked_sub(existing)
                            .and_then(|i| sizes.get_mut(i))
                    {
                        *n += 1;
                    }
                }
                if sizes.iter().any(|&n| n > 0 && (n as usize) < MELD_MIN_LEN) {
                    return true;
                }
                let mut all = specs.clone();
                for (card, target) in cards.iter().zip(targets) {
                    match all.iter_mut().find(|s| s.target == *target) {
                        Some(s) => s.cards.add(*card),
                        None => all.push(MeldSpec {
                            target: *target,
                            cards: single(*card),
                        }),
                    }
                }
                // New melds are numbered by slot; all of them are new melds on the wire.
                for s in all.iter_mut() {
                    if let MeldTarget::Existing(id) = s.target
                        && id as usize >= self.melds.len()
                    {
                        s.target = MeldTarget::New;
                    }
                }
                debug_assert!(
                    all.iter()
                        .all(|s| s.target != MeldTarget::New || s.cards.len() >= MELD_MIN_LEN)
                );
                let a = Action::GoOut {
                    melds: all.into_iter().collect(),
                    discard,
                };
                self.check(&a).is_err() || emit(a)
            });
            if !go_on {
                return;
            }
        }
    }

    /// Every assignment of `cards` to existing melds (if allowed) or new melds. New melds are
    /// numbered after the existing ones, in order of first use; equal cards take non-decreasing
    /// targets, so each split comes once. `emit` returns false to stop the search; so does
    /// this function then.
    fn assign(
        &self,
        cards: &[Card],
        onto_melds: bool,
        targets: &mut SmallVec<[MeldTarget; 8]>,
        emit: &mut dyn FnMut(&[MeldTarget]) -> bool,
    ) -> bool {
        let i = targets.len();
        let Some(&card) = cards.get(i) else {
            return emit(targets);
        };
        let existing = self.melds.len();
        let new_used = targets
            .iter()
            .filter_map(|t| match t {
                MeldTarget::Existing(id) if *id as usize >= existing => {
                    Some(*id as usize + 1 - existing)
                }
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let floor = match (i, targets.last()) {
            (1.., Some(MeldTarget::Existing(prev))) if cards[i - 1] == card => *prev as usize,
            _ => 0,
        };
        let mut choices: SmallVec<[usize; 16]> = SmallVec::new();
        if onto_melds {
            choices.extend(0..existing);
        }
        choices.extend(existing..existing + new_used + 1);
        for t in choices {
            if t < floor {
                continue;
            }
            if t < existing {
                // Only melds the card could belong to; the full check judges the whole split.
                let meld: &Meld = &self.melds[t];
                if meld.kind == MeldKind::BlackThrees
                    || card.is_red_three()
                    || !card_fits(meld.kind, card)
                {
                    continue;
                }
            }
            targets.push(MeldTarget::Existing(t as u8));
            let go_on = self.assign(cards, onto_melds, targets, emit);
            targets.pop();
            if !go_on {
                return false;
            }
        }
        true
    }

    /// A quick test before searching concealed going-out splits: some rank must be able to
    /// make a canasta with the wild cards held.
    fn concealed_possible(&self) -> bool {
        let hand = self.hand;
        let max_wilds = self.rules.max_wilds.min(hand.wilds());
        Rank::NATURALS.iter().any(|&r| {
            let n = hand.rank_count(r);
            n >= GROUP_MIN_NATURALS && (n + max_wilds) as usize >= CANASTA_LEN
        })
    }

    /// Concealed going outs of the whole hand: every split where no step could start it (a
    /// side below the minimum, which a concealed going out need not reach), else one split
    /// per discard, for players who lay a whole hand at once.
    /// Handed to `emit` until it returns false.
    fn push_concealed(&self, emit: &mut dyn FnMut(Action) -> bool) {
        // One budget for every discard: a huge hand (a player who took pile after pile) has
        // as many discards as kinds of cards, and each search may try many splits in vain.
        let mut budget = CONCEALED_BUDGET;
        for discard in self.discards() {
            let mut rest = *self.hand;
            if let Some(d) = discard {
                let held = rest.remove(d);
                debug_assert!(held, "a discard is a card of the hand");
            }
            let below = !self.reaches_minimum(rest.value());
            if below && self.check_out_minimum(&rest).is_err() {
                continue;
            }
            let mut go_on = true;
            let every = below;
            self.partitions(&rest, (!every).then_some(&mut budget), &mut |specs| {
                let a = Action::GoOut {
                    melds: specs.iter().copied().collect(),
                    discard,
                };
                if self.check(&a).is_ok() {
                    go_on = emit(a);
                    return below && go_on;
                }
                true
            });
            if !go_on {
                return;
            }
        }
    }

    /// Every split of `rest` into melds of the seat's own: all naturals of a rank go together
    /// (onto the seat's own group of that rank if it laid one this turn), black threes form one
    /// meld, and wild cards are spread over the groups in every valid way. `emit` returns false
    /// to stop; with a `budget`, the search also stops once it has spent it (each step costs
    /// one, each split handed to `emit` [`EMIT_COST`]), and the budget keeps what is left.
    fn partitions(
        &self,
        rest: &CardCounts,
        budget: Option<&mut u32>,
        emit: &mut dyn FnMut(&[MeldSpec]) -> bool,
    ) {
        let own = |m: &Meld| m.creator == self.seat;
        let mut slots: SmallVec<[Slot; 12]> = SmallVec::new();
        match self.black_three_meld(rest) {
            Err(()) => return,
            Ok(Some(cards)) => {
                let len = cards.len() as u8;
                slots.push(Slot::new(MeldSpec::new_meld(cards), 0, 0, len, false));
            }
            Ok(None) => {}
        }
        for rank in Rank::NATURALS {
            let n = rest.rank_count(rank);
            if n == 0 {
                continue;
            }
            let cards = rest.of_rank(rank, n);
            let mine = self
                .melds
                .iter()
                .position(|m| m.kind == MeldKind::Group(rank) && own(m));
            match (self.group_of(rank), mine) {
                (_, Some(id)) => {
                    let meld = &self.melds[id];
                    let base = meld.cards.rank_count(rank) + n;
                    let cap = self.wild_room(rank, base, meld.wilds());
                    let len = (meld.len() + n as usize) as u8;
                    let spec = MeldSpec::add_to(id as u8, cards);
                    slots.push(Slot::new(spec, 0, cap, len, meld.is_canasta()));
                }
                (Some(_), None) if self.one_group_per_rank() => return,
                _ if n >= GROUP_MIN_NATURALS => {
                    let need = group_wilds_needed(n);
                    let cap = self.wild_room(rank, n, 0);
                    if cap < need {
                        return;
                    }
                    slots.push(Slot::new(MeldSpec::new_meld(cards), need, cap, n, false));
                }
                _ => return,
            }
        }
        if rest.wilds() > 0 {
            for (id, meld) in self.melds.iter().enumerate() {
                if let Some(rank) = meld.rank()
                    && own(meld)
                    && rest.rank_count(rank) == 0
                {
                    let cap = self.wild_room(rank, meld.cards.rank_count(rank), meld.wilds());
                    if cap > 0 {
                        let spec = MeldSpec::add_to(id as u8, CardCounts::new());
                        let len = meld.len() as u8;
                        slots.push(Slot::new(spec, 0, cap, len, meld.is_canasta()));
                    }
                }
            }
        }
        // Suffix sums of the wild cards the remaining slots need and can hold, and of the
        // canastas they could make, to cut dead branches early.
        for i in (0..slots.len()).rev() {
            let (need, cap, canastas) = slots
                .get(i + 1)
                .map_or((0, 0, 0), |n| (n.need_after, n.cap_after, n.canastas_after));
            slots[i].need_after = need + slots[i].need as u16;
            slots[i].cap_after = cap + slots[i].cap as u16;
            slots[i].canastas_after = canastas + slots[i].may_become_canasta() as u8;
        }
        // Going out needs canastas (R-OUT-1): count those the split must still make.
        let have = canasta_counts(self.melds).0;
        let wanted = self.out_needs().0.saturating_sub(have);
        let wilds = rest.wilds() as u16;
        if slots
            .first()
            .is_some_and(|s| wilds < s.need_after || wilds > s.cap_after)
            || (slots.is_empty() && wilds > 0)
        {
            return;
        }
        let mut search = Spread {
            slots: &slots,
            twos: rest.of_rank(Rank::Two, rest.twos()),
            budget: budget.as_deref().copied(),
            wanted,
            wilds: smallvec::smallvec![(0, 0); slots.len()],
            emit,
        };
        self.spread_wilds(&mut search, 0, rest.jokers(), rest.twos(), 0);
        if let (Some(b), Some(left)) = (budget, search.budget) {
            *b = left;
        }
    }

    /// How many more wild cards a group of `rank` with `naturals` and `wilds` may take.
    fn wild_room(&self, rank: Rank, naturals: u8, wilds: u8) -> u8 {
        let mut room = 0;
        let naturals = naturals.max(GROUP_MIN_NATURALS);
        while check_group_counts(self.rules, rank, naturals, wilds + room + 1).is_ok() {
            room += 1;
        }
        room
    }

    fn spread_wilds(
        &self,
        search: &mut Spread<'_, '_>,
        i: usize,
        jokers: u8,
        twos: u8,
        made: u8,
    ) -> bool {
        if let Some(b) = &mut search.budget {
            if *b == 0 {
                return false;
            }
            *b -= 1;
        }
        let Some(slot) = search.slots.get(i) else {
            return if jokers == 0 && twos == 0 && made >= search.wanted {
                // A split handed on is checked whole: it costs more than a step.
                if let Some(b) = &mut search.budget {
                    *b = b.saturating_sub(EMIT_COST);
                }
                search.emit_current()
            } else {
                true
            };
        };
        let left = jokers as u16 + twos as u16;
        if left < slot.need_after
            || left > slot.cap_after
            || made + slot.canastas_after < search.wanted
        {
            return true;
        }
        let (cap, need, len, canasta) = (slot.cap, slot.need, slot.len, slot.canasta);
        for j in 0..=jokers.min(cap) {
            for t in 0..=twos.min(cap - j) {
                if j + t < need {
                    continue;
                }
                let new_canasta = !canasta && (len + j + t) as usize >= CANASTA_LEN;
                search.wilds[i] = (j, t);
                let made = made + new_canasta as u8;
                if !self.spread_wilds(search, i + 1, jokers - j, twos - t, made) {
                    return false;
                }
            }
        }
        true
    }
}
