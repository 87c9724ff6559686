//! "Can I go out now?", answered exactly: a search for one legal going out of the whole hand.
//!
//! The enumerator lists going outs in full only where no meld step could come first (see the
//! canonical form in the documentation of [`crate::legal`]); a prompt must still say whether
//! going out is possible at once, whatever the size of the hand. This search answers that. It
//! builds candidate going outs and hands each to the one check of [`Ctx::check`], which stays
//! the judge: the search only has to be *complete*, never to decide legality itself.
//!
//! Completeness rests on what can tell two going outs apart for the check. Suits matter only
//! in sequences; which wild card (joker or two) goes where matters to no check of a going out
//! (only to bonuses); the value laid is the whole hand's whatever the split. So the search
//! chooses, per rank, how many natural cards go onto each of the side's groups of that rank and
//! into new groups, and how many wild cards each group or wild meld takes; with sequences it
//! first tries every way to lay each suit's cards in sequences. Memos of failed states keep it
//! polynomial in the size of the hand, and a bound on the sequences tried per search keeps
//! even an absurd Samba hand fast (no hand a deal produces comes near it).

mod list;

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use smallvec::SmallVec;

use super::{Ctx, discardable};
use crate::action::{Action, MeldSpec, MeldTarget};
use crate::card::{Card, CardCounts, Rank, Suit};
use crate::game::Phase;
use crate::meld::{
    CANASTA_LEN, GROUP_MIN_NATURALS, MELD_MIN_LEN, MeldKind, check_group_counts, check_growth,
    group_wilds_needed,
};

/// Most nodes of the sequence search (all suits together) in one search: far above what a
/// hand of a real deal needs (a suit rarely holds more than a few cards), a guard against
/// pathological hands only.
const SEQUENCE_NODES: u32 = 200_000;

/// A hasher for the packed `u64` keys of the memos.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        let h = self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^ (h >> 32)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// Packed states known to lead to no going out: the first few in a small inline list (the
/// searches of small hands, a bot's every turn, stay off the heap), the rest hashed.
#[derive(Default)]
struct Failed {
    few: SmallVec<[u64; 16]>,
    many: HashSet<u64, BuildHasherDefault<KeyHasher>>,
}

impl Failed {
    fn contains(&self, key: &u64) -> bool {
        self.few.contains(key) || (!self.many.is_empty() && self.many.contains(key))
    }

    fn insert(&mut self, key: u64) {
        if self.few.len() < self.few.inline_size() {
            self.few.push(key);
        } else {
            self.many.insert(key);
        }
    }
}

/// The side's melds a going out may add to, by kind: its groups per natural rank (in
/// `Rank::NATURALS` order) and its wild melds.
struct SideMelds {
    groups: [SmallVec<[u8; 3]>; 11],
    wild: SmallVec<[u8; 2]>,
}

/// A part of the search: a natural rank (its cards in hand and the side's groups of it), an
/// existing wild meld, or the new wild melds made of the wild cards left.
#[derive(Clone, Copy, Debug)]
enum Unit {
    Rank { rank: Rank, naturals: u8 },
    WildMeld(u8),
    NewWilds,
}

/// Cards the candidate lays into one group or wild meld.
#[derive(Clone, Copy, Debug)]
struct Laid {
    target: MeldTarget,
    rank: Option<Rank>,
    naturals: u8,
    wilds: u8,
}

/// One way to lay cards of one suit in sequences.
#[derive(Clone, Debug)]
struct SeqUse {
    used: CardCounts,
    specs: SmallVec<[MeldSpec; 4]>,
    /// Sequences of the suit that are sambas (canastas) afterwards.
    sambas: u8,
}

/// The discard a going out must make, where some card has no other place.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Forced {
    /// A card of this rank (without sequences suits change nothing; black threes are alike).
    Rank(Rank),
    /// This very card (with sequences).
    Card(Card),
}

impl Forced {
    fn allows(self, card: Card) -> bool {
        match self {
            Forced::Rank(r) => card.rank() == r,
            Forced::Card(c) => card == c,
        }
    }
}

/// A rank as a bit of a mask of ranks.
fn bit(rank: Rank) -> u16 {
    1 << rank as u16
}

/// The search across suits for the sequences of a going out, and what it is for.
struct Suits<'s> {
    uses: &'s [Vec<SeqUse>; 4],
    rest: &'s CardCounts,
    discard: Option<Card>,
    side: &'s SideMelds,
    failed: &'s mut Failed,
}

/// The search for groups and wild melds, once black threes and sequences are placed.
struct Groups<'s, 'c, 'a> {
    ctx: &'s Ctx<'a>,
    side: &'c SideMelds,
    units: SmallVec<[Unit; 16]>,
    /// The natural cards left for groups.
    naturals: CardCounts,
    /// The wild cards of the hand: all go into groups or wild melds.
    jokers: u8,
    twos: CardCounts,
    wilds: u8,
    /// Canastas the side needs (R-OUT-1); counts are kept up to it.
    want: u8,
    need_natural: bool,
    failed: Failed,
    chosen: SmallVec<[Laid; 16]>,
    /// Candidates the check refused: a state is remembered as failed only if none was.
    refused: u32,
    prefix: &'c [MeldSpec],
    discard: Option<Card>,
    found: Option<Action>,
}

impl Groups<'_, '_, '_> {
    fn key(u: usize, stage: usize, left: u8, used: u8, canastas: u8, natural: bool) -> u64 {
        (u as u64) << 40
            | (stage as u64) << 32
            | (left as u64) << 24
            | (used as u64) << 16
            | (canastas as u64) << 8
            | natural as u64
    }

    /// Counts a canasta (and a natural one) into the state.
    fn count(&self, canastas: u8, natural: bool, is: bool, is_natural: bool) -> (u8, bool) {
        ((canastas + is as u8).min(self.want), natural || is_natural)
    }

    /// Searches from unit `u` on; true once a candidate passed the check.
    fn unit(&mut self, u: usize, used: u8, canastas: u8, natural: bool) -> bool {
        let Some(&unit) = self.units.get(u) else {
            return self.finish(used, canastas, natural);
        };
        match unit {
            Unit::Rank { rank, naturals } => {
                let side = self.side;
                let groups = &side.groups[rank as usize - Rank::Four as usize];
                self.rank(u, rank, groups, 0, naturals, used, canastas, natural)
            }
            Unit::WildMeld(id) => {
                let key = Self::key(u, 0, 0, used, canastas, natural);
                if self.failed.contains(&key) {
                    return false;
                }
                let refused = self.refused;
                let meld = self.ctx.melds[id as usize];
                for w in 0..=self.wilds - used {
                    if w > 0 && check_growth(self.ctx.rules, &meld, id, 0, w).is_err() {
                        break;
                    }
                    let is = meld.len() + w as usize >= CANASTA_LEN;
                    let (c, n) = self.count(canastas, natural, is, false);
                    self.chosen.push(Laid {
                        target: MeldTarget::Existing(id),
                        rank: None,
                        naturals: 0,
                        wilds: w,
                    });
                    let found = self.unit(u + 1, used + w, c, n);
                    self.chosen.pop();
                    if found {
                        return true;
                    }
                }
                if self.refused == refused {
                    self.failed.insert(key);
                }
                false
            }
            Unit::NewWilds => {
                // New melds of wild cards only, three to seven each (R-SAMBA-9, Rasche b): any
                // number of three or more splits into such melds, with as many canastas of
                // seven as leave no remainder of one or two.
                let left = self.wilds - used;
                if left > 0 && (left as usize) < MELD_MIN_LEN {
                    return false;
                }
                let mut sevens = left / 7;
                if sevens > 0 && matches!(left % 7, 1 | 2) {
                    sevens -= 1;
                }
                let mut rest = left - sevens * 7;
                let mut parts: SmallVec<[u8; 4]> = smallvec::smallvec![7; sevens as usize];
                while rest > 0 {
                    // Parts of three to seven: a remainder of eight or nine as two parts.
                    let part = if rest > 7 { rest - 4 } else { rest };
                    parts.push(part);
                    rest -= part;
                }
                let mark = self.chosen.len();
                for &p in &parts {
                    self.chosen.push(Laid {
                        target: MeldTarget::New,
                        rank: None,
                        naturals: 0,
                        wilds: p,
                    });
                }
                let (c, n) = ((canastas + sevens).min(self.want), natural);
                let found = self.finish(self.wilds, c, n);
                self.chosen.truncate(mark);
                found
            }
        }
    }

    /// The natural cards of `rank` still to place (`left`): onto the side's groups of that
    /// rank from `stage` on, then into new groups; each with the wild cards it may take.
    #[allow(clippy::too_many_arguments)]
    fn rank(
        &mut self,
        u: usize,
        rank: Rank,
        groups: &[u8],
        stage: usize,
        left: u8,
        used: u8,
        canastas: u8,
        natural: bool,
    ) -> bool {
        let key = Self::key(u, stage, left, used, canastas, natural);
        if self.failed.contains(&key) {
            return false;
        }
        let refused = self.refused;
        let rules = self.ctx.rules;
        let several = !self.ctx.one_group_per_rank();
        let found = if let Some(&id) = groups.get(stage) {
            // One group per rank: all its naturals go there. Several: any share, most first.
            let meld = self.ctx.melds[id as usize];
            let least = if several { 0 } else { left };
            let mut found = false;
            'shares: for a in (least..=left).rev() {
                let mut fitted = false;
                for w in 0..=self.wilds - used {
                    if a + w > 0 && check_growth(rules, &meld, id, a, w).is_err() {
                        if fitted {
                            break;
                        }
                        continue;
                    }
                    fitted = true;
                    let len = meld.len() + (a + w) as usize;
                    let is = len >= CANASTA_LEN;
                    let is_natural = is && meld.wilds() + w == 0;
                    let (c, n) = self.count(canastas, natural, is, is_natural);
                    self.chosen.push(Laid {
                        target: MeldTarget::Existing(id),
                        rank: Some(rank),
                        naturals: a,
                        wilds: w,
                    });
                    let ok = self.rank(u, rank, groups, stage + 1, left - a, used + w, c, n);
                    self.chosen.pop();
                    if ok {
                        found = true;
                        break 'shares;
                    }
                }
            }
            found
        } else if left == 0 {
            self.unit(u + 1, used, canastas, natural)
        } else if !several && !groups.is_empty() {
            false
        } else {
            // New groups: one with all the naturals, or (several melds per rank) any split;
            // the memo folds the orders of one split together.
            let least = if several { 1 } else { left };
            let mut found = false;
            'sizes: for b in (least..=left).rev() {
                let mut fitted = false;
                for w in 0..=self.wilds - used {
                    if check_group_counts(rules, rank, b, w).is_err() {
                        if fitted {
                            break;
                        }
                        continue;
                    }
                    fitted = true;
                    let is = (b + w) as usize >= CANASTA_LEN;
                    let (c, n) = self.count(canastas, natural, is, is && w == 0);
                    self.chosen.push(Laid {
                        target: MeldTarget::New,
                        rank: Some(rank),
                        naturals: b,
                        wilds: w,
                    });
                    let ok = self.rank(u, rank, groups, stage, left - b, used + w, c, n);
                    self.chosen.pop();
                    if ok {
                        found = true;
                        break 'sizes;
                    }
                }
            }
            found
        };
        if !found && self.refused == refused {
            self.failed.insert(key);
        }
        found
    }

    /// Every card placed: builds the going out and asks the check.
    fn finish(&mut self, used: u8, canastas: u8, natural: bool) -> bool {
        if used != self.wilds || canastas < self.want || (self.need_natural && !natural) {
            return false;
        }
        let mut naturals = self.naturals;
        let mut jokers = self.jokers;
        let mut twos = self.twos;
        let mut melds: crate::action::MeldBatch = self.prefix.iter().copied().collect();
        for laid in &self.chosen {
            if laid.naturals + laid.wilds == 0 {
                continue;
            }
            let mut cards = CardCounts::new();
            if let Some(rank) = laid.rank {
                let these = naturals.of_rank(rank, laid.naturals);
                naturals.remove_all(&these);
                cards.add_all(&these);
            }
            let j = laid.wilds.min(jokers);
            jokers -= j;
            cards.add_n(Card::JOKER, j);
            let these = twos.of_rank(Rank::Two, laid.wilds - j);
            twos.remove_all(&these);
            cards.add_all(&these);
            melds.push(MeldSpec {
                target: laid.target,
                cards,
            });
        }
        let action = Action::GoOut {
            melds,
            discard: self.discard,
        };
        if self.ctx.check(&action).is_ok() {
            self.found = Some(action);
            true
        } else {
            self.refused += 1;
            false
        }
    }
}

impl<'a> Ctx<'a> {
    /// A legal going out of the whole hand now, if any exists (see the module documentation).
    pub(super) fn find_go_out(&self) -> Option<Action> {
        if self.phase != Phase::Play || self.check_partner_lets_out().is_err() {
            return None;
        }
        // The cheap tests first: they settle most positions of a bot's every turn.
        let grouped = self.grouped_ranks();
        let forced = self.forced_discard(grouped)?;
        if !self.may_reach_canastas(true) {
            return None;
        }
        // The natural cards: the hand without its wild cards and threes.
        let mut naturals = *self.hand;
        let mut others = CardCounts::new();
        others.add_n(Card::JOKER, self.hand.jokers());
        for suit in Suit::ALL {
            for rank in [Rank::Two, Rank::Three] {
                let c = Card::new(rank, suit);
                others.add_n(c, self.hand.count(c));
            }
        }
        naturals.remove_all(&others);
        let mut side = SideMelds {
            groups: Default::default(),
            wild: SmallVec::new(),
        };
        for (id, m) in self.melds.iter().enumerate() {
            match m.kind {
                MeldKind::Group(r) => side.groups[r as usize - Rank::Four as usize].push(id as u8),
                MeldKind::Wild => side.wild.push(id as u8),
                _ => {}
            }
        }
        // The ways to lay each suit in sequences, for the whole hand: those of a hand without
        // its discard are among them (the search skips uses of the discarded card).
        let uses = self.rules.sequences.then(|| {
            let mut budget = SEQUENCE_NODES;
            Suit::ALL.map(|suit| self.sequence_uses(suit, self.hand, &mut budget))
        });
        for discard in self.discard_choices(forced, grouped) {
            let mut rest = *self.hand;
            let mut left = naturals;
            if let Some(d) = discard {
                let held = rest.remove(d);
                debug_assert!(held, "a discard is a card of the hand");
                // Nothing to take from the naturals where the discard is a wild card or a three.
                let _ = left.remove(d);
            }
            if let Some(a) = self.go_out_with(&rest, left, discard, &side, uses.as_ref()) {
                return Some(a);
            }
        }
        None
    }

    /// The discards a going out may end with, in the listing's order: none first where the
    /// rules allow it (R-OUT-1), then each kind of card held that may be discarded (R-TURN-3).
    pub(super) fn discards(&self) -> impl Iterator<Item = Option<Card>> + '_ {
        let none = self.may_go_out_without_discard().then_some(None);
        none.into_iter().chain(
            self.hand
                .iter_kinds()
                .filter(|&(c, _)| discardable(c))
                .map(|(c, _)| Some(c)),
        )
    }

    /// Whether a going out may end with `discard` (`None`: without one), given the discard
    /// `forced` by [`Ctx::forced_discard`] and the ranks the side has groups of that the going
    /// out may add to (`grouped`, see [`bit`]): without a discard only where the rules allow it
    /// (R-OUT-1) and none is forced; else only the forced discard if there is one, and (without
    /// sequences) none that would leave a lone card of a rank no group takes, as a discard from
    /// a pair does (R-MELD-1).
    fn may_end_with(&self, discard: Option<Card>, forced: Option<Forced>, grouped: u16) -> bool {
        match discard {
            None => self.may_go_out_without_discard() && forced.is_none(),
            Some(c) => {
                forced.is_none_or(|f| f.allows(c))
                    && (self.rules.sequences
                        || !c.is_natural()
                        || self.hand.rank_count(c.rank()) != 2
                        || grouped & bit(c.rank()) != 0)
            }
        }
    }

    /// The discards worth trying for the search: those [`Ctx::may_end_with`] allows, and
    /// without sequences one card per rank (suits change nothing; black threes are alike).
    fn discard_choices(
        &self,
        forced: Option<Forced>,
        grouped: u16,
    ) -> SmallVec<[Option<Card>; 16]> {
        let hand = self.hand;
        let mut out = SmallVec::new();
        if self.rules.sequences {
            out.extend(
                self.discards()
                    .filter(|&d| self.may_end_with(d, forced, grouped)),
            );
            return out;
        }
        if self.may_end_with(None, forced, grouped) {
            out.push(None);
        }
        for rank in Rank::ALL {
            // Ranks other than a forced one's are skipped before a card is looked for
            // (`may_end_with` would refuse them).
            if forced.is_some_and(|f| f != Forced::Rank(rank)) {
                continue;
            }
            let card = if rank == Rank::Three {
                [Suit::Clubs, Suit::Spades]
                    .map(|s| Card::new(Rank::Three, s))
                    .into_iter()
                    .find(|&c| hand.count(c) > 0)
            } else {
                hand.any_of_rank(rank)
            };
            if let Some(card) = card
                && discardable(card)
                && self.may_end_with(Some(card), forced, grouped)
            {
                out.push(Some(card));
            }
        }
        out
    }

    /// A cheap look at cards no meld can take, which must be the discard: a lone natural card
    /// of a rank the side has no group of (with sequences: that no sequence can take either),
    /// one or two black threes (their meld needs three), or one black three too many for their
    /// meld. `None` (the outer option) if going out is impossible, as it is with two such cards
    /// or (without sequences) when pairs of ranks the side has no group of need more wild
    /// cards than the hand holds; else the card the discard must be, if any.
    // Inlined into both searches: "can I go out?" asks it at every position of a bot's play.
    #[inline(always)]
    fn forced_discard(&self, grouped: u16) -> Option<Option<Forced>> {
        let hand = self.hand;
        let sequences = self.rules.sequences;
        let mut forced: Option<Forced> = None;
        let mut force = |f: Forced| match forced {
            Some(_) => false,
            None => {
                forced = Some(f);
                true
            }
        };
        // Wild cards the new groups need to reach their fewest cards (R-MELD-1): more than the
        // hand holds, and going out is impossible whatever the discard.
        let mut need = 0u8;
        for rank in Rank::NATURALS {
            let n = hand.rank_count(rank);
            if n == 0 || group_wilds_needed(n) == 0 || grouped & bit(rank) != 0 {
                continue;
            }
            if n >= GROUP_MIN_NATURALS {
                need += group_wilds_needed(n);
                continue;
            }
            let lone = if sequences {
                let card = hand.any_of_rank(rank).expect("one card of the rank");
                (!self.sequence_may_take(card)).then_some(Forced::Card(card))
            } else {
                Some(Forced::Rank(rank))
            };
            if let Some(f) = lone
                && !force(f)
            {
                return None;
            }
        }
        // With sequences, a pair may go into sequences instead of a group.
        if !sequences && need > hand.wilds() {
            return None;
        }
        // The black threes make one meld (R-MELD-6), or do once one of them is discarded.
        let ok = self.black_three_meld(hand).is_ok() || {
            let mut less = *hand;
            [Suit::Clubs, Suit::Spades]
                .into_iter()
                .any(|s| less.remove(Card::new(Rank::Three, s)))
                && self.black_three_meld(&less).is_ok()
                && force(Forced::Rank(Rank::Three))
        };
        ok.then_some(forced)
    }

    /// Could a sequence take this natural card of the hand (R-SAMBA-3)? Only if the hand holds
    /// a run of three of its suit through it, or a run from it to just below or above one of
    /// the side's sequences of the suit (a quick necessary test, not the whole rule).
    fn sequence_may_take(&self, card: Card) -> bool {
        let Some(suit) = card.suit() else {
            return false;
        };
        let held = |r: u8| {
            Rank::from_index(r)
                .filter(|rank| rank.is_natural())
                .is_some_and(|rank| self.hand.count(Card::new(rank, suit)) > 0)
        };
        let r = card.rank() as u8;
        let (mut low, mut high) = (r, r);
        while held(low - 1) {
            low -= 1;
        }
        while held(high + 1) {
            high += 1;
        }
        if (high - low + 1) as usize >= MELD_MIN_LEN {
            return true;
        }
        self.melds.iter().any(|m| {
            m.kind == MeldKind::Sequence(suit)
                && !m.is_canasta()
                && m.sequence_ends().is_some_and(|(lo, hi)| {
                    let (lo, hi) = (lo as u8, hi as u8);
                    (r < lo && high + 1 >= lo) || (r > hi && low <= hi + 1)
                })
        })
    }

    /// The natural ranks the side has a group of, as bits (see [`bit`]).
    fn grouped_ranks(&self) -> u16 {
        self.melds.iter().fold(0, |mask, m| match m.kind {
            MeldKind::Group(r) => mask | bit(r),
            _ => mask,
        })
    }

    /// A cheap bound: could the hand bring the side to the canastas it needs to go out
    /// (R-OUT-1)? Each canasta the hand completes takes at least the cards it lacks, from the
    /// hand's cards that fit the meld (only where the going out may add to melds:
    /// `onto_melds`), and a new one seven.
    fn may_reach_canastas(&self, onto_melds: bool) -> bool {
        let want = self.out_needs().0 as usize;
        let have = self.melds.iter().filter(|m| m.is_canasta()).count();
        if have >= want {
            return true;
        }
        let hand = self.hand;
        let wilds = hand.wilds() as usize;
        let mut usable = hand.len() - hand.black_threes() as usize;
        let mut lacks: SmallVec<[usize; 16]> = self
            .melds
            .iter()
            .filter(|m| onto_melds && !m.is_canasta())
            .filter_map(|m| {
                let lack = CANASTA_LEN - m.len();
                let fitting = match m.kind {
                    MeldKind::Group(r) => hand.rank_count(r) as usize + wilds,
                    MeldKind::Wild => wilds,
                    MeldKind::Sequence(s) => Rank::NATURALS
                        .iter()
                        .map(|&r| hand.count(Card::new(r, s)) as usize)
                        .sum(),
                    MeldKind::BlackThrees => 0,
                };
                (fitting >= lack).then_some(lack)
            })
            .collect();
        lacks.sort_unstable();
        let mut reach = have;
        for lack in lacks {
            if lack > usable {
                break;
            }
            usable -= lack;
            reach += 1;
        }
        reach + usable / CANASTA_LEN >= want
    }

    /// A legal going out laying all of `rest` (the hand without the discard; `naturals` its
    /// natural cards), if any; `uses` are the ways to lay the hand's cards in sequences, where
    /// the rules have them.
    fn go_out_with(
        &self,
        rest: &CardCounts,
        naturals: CardCounts,
        discard: Option<Card>,
        side: &SideMelds,
        uses: Option<&[Vec<SeqUse>; 4]>,
    ) -> Option<Action> {
        if rest.red_threes() > 0 {
            return None;
        }
        // The value laid is the whole rest, however it is split.
        if self.check_out_minimum(rest).is_err() {
            return None;
        }
        if self.restricted_after_take() {
            return self.out_onto_canastas(rest, discard);
        }
        // Without sequences every natural card has a place by now: `find_go_out` skipped the
        // discards that would leave a lone card of a rank the side has no group of.
        let mut prefix: SmallVec<[MeldSpec; 8]> = SmallVec::new();
        // All black threes in one meld (R-MELD-6): a second one would be refused.
        if let Some(cards) = self.black_three_meld(rest).ok()? {
            prefix.push(MeldSpec::new_meld(cards));
        }
        match uses {
            Some(uses) => {
                let mut failed = Failed::default();
                let mut search = Suits {
                    uses,
                    rest,
                    discard,
                    side,
                    failed: &mut failed,
                };
                self.across_suits(&mut search, 0, naturals, &mut prefix, 0)
            }
            None => self.groups(naturals, rest, &prefix, 0, discard, side),
        }
    }

    /// Swiss, after taking the pile: only natural cards onto the side's canastas of their
    /// rank (seed 004), so the whole rest must be such cards.
    fn out_onto_canastas(&self, rest: &CardCounts, discard: Option<Card>) -> Option<Action> {
        let mut melds = crate::action::MeldBatch::new();
        for rank in Rank::NATURALS {
            let n = rest.rank_count(rank);
            if n == 0 {
                continue;
            }
            let id = self.melds.iter().position(|m| {
                m.kind == MeldKind::Group(rank) && self.may_lay_after_take(Some(m), true)
            })?;
            melds.push(MeldSpec::add_to(id as u8, rest.of_rank(rank, n)));
        }
        let placed: usize = melds.iter().map(|m| m.cards.len()).sum();
        if placed != rest.len() {
            return None;
        }
        let action = Action::GoOut { melds, discard };
        self.check(&action).is_ok().then_some(action)
    }

    /// Every way to lay natural cards of `suit` in sequences: onto the side's sequences of
    /// the suit (at either end) and as new ones, one of each set of cards used.
    fn sequence_uses(&self, suit: Suit, naturals: &CardCounts, budget: &mut u32) -> Vec<SeqUse> {
        let mut avail = CardCounts::new();
        for rank in Rank::NATURALS {
            let c = Card::new(rank, suit);
            avail.add_n(c, naturals.count(c));
        }
        let existing: SmallVec<[u8; 4]> = self
            .melds
            .iter()
            .enumerate()
            .filter(|(_, m)| m.kind == MeldKind::Sequence(suit))
            .map(|(id, _)| id as u8)
            .collect();
        let mut out: Vec<SeqUse> = Vec::new();
        let mut specs = SmallVec::new();
        self.extend_sequences(
            suit, &existing, avail, avail, &mut specs, 0, budget, &mut out,
        );
        // One use per set of cards, the one with the most sambas.
        out.sort_by(|a, b| {
            a.used
                .to_array()
                .cmp(&b.used.to_array())
                .then(b.sambas.cmp(&a.sambas))
        });
        out.dedup_by(|later, first| later.used == first.used);
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn extend_sequences(
        &self,
        suit: Suit,
        existing: &[u8],
        all: CardCounts,
        avail: CardCounts,
        specs: &mut SmallVec<[MeldSpec; 4]>,
        sambas: u8,
        budget: &mut u32,
        out: &mut Vec<SeqUse>,
    ) {
        let Some((&id, more)) = existing.split_first() else {
            self.new_sequences(suit, 0, all, avail, specs, sambas, budget, out);
            return;
        };
        let meld = &self.melds[id as usize];
        let ends = meld.sequence_ends().filter(|_| !meld.is_canasta());
        let Some((low, high)) = ends else {
            let sambas = sambas + meld.is_canasta() as u8;
            self.extend_sequences(suit, more, all, avail, specs, sambas, budget, out);
            return;
        };
        let room = CANASTA_LEN - meld.len();
        // The cards below and above the sequence that the hand holds, nearest first.
        let run = |from: u8, step: i8| -> SmallVec<[Card; 7]> {
            let mut cards = SmallVec::new();
            let mut i = from as i8 + step;
            while cards.len() < room
                && let Some(rank) = Rank::from_index(i as u8).filter(|r| r.is_natural())
                && avail.count(Card::new(rank, suit)) > 0
            {
                cards.push(Card::new(rank, suit));
                i += step;
            }
            cards
        };
        let below = run(low as u8, -1);
        let above = run(high as u8, 1);
        for lo in 0..=below.len() {
            for hi in 0..=above.len().min(room - lo) {
                if *budget == 0 {
                    return;
                }
                *budget -= 1;
                let mut cards = CardCounts::new();
                for &c in below[..lo].iter().chain(&above[..hi]) {
                    cards.add(c);
                }
                let mut left = avail;
                left.remove_all(&cards);
                let added = lo + hi > 0;
                if added {
                    specs.push(MeldSpec::add_to(id, cards));
                }
                let samba = meld.len() + lo + hi == CANASTA_LEN;
                let s = sambas + samba as u8;
                self.extend_sequences(suit, more, all, left, specs, s, budget, out);
                if added {
                    specs.pop();
                }
            }
        }
    }

    /// New sequences of `suit` from `avail`, in order of (lowest rank, length) from `from` on,
    /// so that each set of sequences comes once.
    #[allow(clippy::too_many_arguments)]
    fn new_sequences(
        &self,
        suit: Suit,
        from: usize,
        all: CardCounts,
        avail: CardCounts,
        specs: &mut SmallVec<[MeldSpec; 4]>,
        sambas: u8,
        budget: &mut u32,
        out: &mut Vec<SeqUse>,
    ) {
        let mut used = all;
        used.remove_all(&avail);
        out.push(SeqUse {
            used,
            specs: specs.clone(),
            sambas,
        });
        const LENS: usize = CANASTA_LEN - 2;
        for i in from..Rank::NATURALS.len() * LENS {
            if *budget == 0 {
                return;
            }
            *budget -= 1;
            let (start, len) = (Rank::NATURALS[i / LENS], i % LENS + 3);
            let mut cards = CardCounts::new();
            let fits = (0..len as u8).all(|k| {
                let rank = Rank::from_index(start as u8 + k).filter(|r| r.is_natural());
                rank.is_some_and(|r| {
                    let c = Card::new(r, suit);
                    cards.add(c);
                    avail.count(c) > 0
                })
            });
            if !fits {
                continue;
            }
            let mut left = avail;
            left.remove_all(&cards);
            specs.push(MeldSpec::new_meld(cards));
            let s = sambas + (len == CANASTA_LEN) as u8;
            self.new_sequences(suit, i, all, left, specs, s, budget, out);
            specs.pop();
        }
    }

    /// Tries the sequence uses of each suit from `s` on, then the groups of what is left.
    fn across_suits(
        &self,
        search: &mut Suits<'_>,
        s: usize,
        naturals: CardCounts,
        prefix: &mut SmallVec<[MeldSpec; 8]>,
        sambas: u8,
    ) -> Option<Action> {
        let want = self.out_needs().0;
        let sambas = sambas.min(want);
        let Some(suit_uses) = search.uses.get(s) else {
            let (rest, discard, side) = (search.rest, search.discard, search.side);
            return self.groups(naturals, rest, prefix, sambas, discard, side);
        };
        // What the groups get depends on the natural cards left per rank only.
        let mut key = (s as u64) << 60 | (sambas as u64) << 52;
        for (i, &r) in Rank::NATURALS.iter().enumerate() {
            key |= (naturals.rank_count(r).min(15) as u64) << (4 * i);
        }
        if search.failed.contains(&key) {
            return None;
        }
        for u in suit_uses {
            if !naturals.contains(&u.used) {
                continue;
            }
            let mut left = naturals;
            left.remove_all(&u.used);
            let mark = prefix.len();
            prefix.extend_from_slice(&u.specs);
            let found = self.across_suits(search, s + 1, left, prefix, sambas + u.sambas);
            prefix.truncate(mark);
            if found.is_some() {
                return found;
            }
        }
        search.failed.insert(key);
        None
    }

    /// The group search for `naturals` and the wild cards of `rest`, after the melds of
    /// `prefix` (black threes, sequences) which make `sambas` canastas.
    fn groups(
        &self,
        naturals: CardCounts,
        rest: &CardCounts,
        prefix: &[MeldSpec],
        sambas: u8,
        discard: Option<Card>,
        side: &SideMelds,
    ) -> Option<Action> {
        let rules = self.rules;
        let wilds = rest.wilds();
        let mut units: SmallVec<[Unit; 16]> = SmallVec::new();
        let (mut canastas, mut natural) = (sambas, sambas > 0);
        // Wild cards each new group needs to reach its fewest cards: more than the hand holds,
        // and no split exists (a cheap test that settles most small hands).
        let mut need = 0u8;
        for (rank, groups) in Rank::NATURALS.into_iter().zip(&side.groups) {
            let n = naturals.rank_count(rank);
            if groups.is_empty() && n > 0 {
                need = need.saturating_add(group_wilds_needed(n));
            }
            if n > 0 || (wilds > 0 && !groups.is_empty()) {
                units.push(Unit::Rank { rank, naturals: n });
            } else {
                // Untouched groups: only their canastas count.
                for &id in groups {
                    if let Some(k) = self.melds[id as usize].canasta() {
                        canastas = canastas.saturating_add(1);
                        natural |= k.is_natural();
                    }
                }
            }
        }
        if need > wilds {
            return None;
        }
        for &id in &side.wild {
            if wilds > 0 {
                units.push(Unit::WildMeld(id));
            } else if self.melds[id as usize].is_canasta() {
                canastas = canastas.saturating_add(1);
            }
        }
        if rules.wild_canastas {
            units.push(Unit::NewWilds);
        }
        let mut search = Groups {
            ctx: self,
            side,
            units,
            naturals,
            jokers: rest.jokers(),
            twos: rest.of_rank(Rank::Two, rest.twos()),
            wilds,
            want: self.out_needs().0,
            need_natural: self.out_needs().1,
            failed: Failed::default(),
            chosen: SmallVec::new(),
            refused: 0,
            prefix,
            discard,
            found: None,
        };
        search.unit(0, 0, canastas.min(search.want), natural);
        search.found
    }
}

#[cfg(test)]
mod tests {
    //! The quick tests the search and the listing of going outs share: each must only skip
    //! what the check would refuse (the property tests compare both with a brute force), and
    //! must skip it, or the searches slow down.

    use super::*;
    use crate::card::parse_cards;
    use crate::legal::TurnFlags;
    use crate::meld::Meld;
    use crate::rules::{Preset, RuleSpec, Rules};
    use crate::table::Seat;

    fn cards(text: &str) -> CardCounts {
        CardCounts::from_cards(parse_cards(text).unwrap())
    }

    fn group(rank: Rank, text: &str) -> Meld {
        Meld {
            kind: MeldKind::Group(rank),
            cards: cards(text),
            creator: Seat(0),
        }
    }

    fn ctx<'a>(rules: &'a Rules, hand: &'a CardCounts, melds: &'a [Meld]) -> Ctx<'a> {
        Ctx {
            rules,
            seat: Seat(0),
            phase: Phase::Play,
            hand,
            melds,
            side_melded: true,
            minimum: 50,
            pile: &[],
            pile_frozen: false,
            pile_blocked: false,
            stock_len: 10,
            partner: Some(Seat(2)),
            melded_before: true,
            turn: TurnFlags::default(),
        }
    }

    fn rules(preset: Preset) -> Rules {
        Rules::new(&RuleSpec::new(preset, 4)).unwrap()
    }

    // R-OUT-1: where going out must end with a discard (Swiss), no search tries going out
    // without one (every such candidate would be refused, one by one).
    #[test]
    fn r_out_1_no_search_without_a_discard_where_one_is_required() {
        let hand = cards("KS KH KD 5C 5D 5H");
        for (preset, without) in [(Preset::Official, true), (Preset::Swiss, false)] {
            let r = rules(preset);
            let c = ctx(&r, &hand, &[]);
            assert_eq!(c.may_end_with(None, None, 0), without, "{preset}");
            assert_eq!(c.discards().next() == Some(None), without, "{preset}");
            assert_eq!(
                c.discard_choices(None, 0).contains(&None),
                without,
                "{preset}"
            );
        }
    }

    // R-MELD-1: a lone natural card of a rank no group takes must be the discard; two such
    // cards, or pairs needing more wild cards than the hand holds, leave no going out.
    #[test]
    fn r_meld_1_lone_cards_force_the_discard() {
        let official = rules(Preset::Official);
        let kings = [group(Rank::King, "KS KH KD")];
        let hand = cards("5C 5D 5H 9S");
        let c = ctx(&official, &hand, &[]);
        assert_eq!(c.forced_discard(0), Some(Some(Forced::Rank(Rank::Nine))));
        assert!(c.may_end_with(
            Some(Card::new(Rank::Nine, Suit::Spades)),
            c.forced_discard(0).unwrap(),
            0
        ));
        assert!(!c.may_end_with(
            Some(Card::new(Rank::Five, Suit::Clubs)),
            c.forced_discard(0).unwrap(),
            0
        ));
        let two_lone = cards("5C 5D 5H 9S KS");
        assert_eq!(ctx(&official, &two_lone, &[]).forced_discard(0), None);
        // A king goes onto the side's group of kings, when the going out may add to it.
        let c = ctx(&official, &two_lone, &kings);
        let grouped = c.grouped_ranks();
        assert_eq!(
            c.forced_discard(grouped),
            Some(Some(Forced::Rank(Rank::Nine)))
        );
        assert_eq!(c.forced_discard(0), None);
        // Two pairs need two wild cards; one is held.
        let pairs = cards("5C 5D 9S 9H Jk KS KH KD");
        assert_eq!(ctx(&official, &pairs, &[]).forced_discard(0), None);
        let pairs = cards("5C 5D 9S 9H Jk 2C KS KH KD");
        assert_eq!(ctx(&official, &pairs, &[]).forced_discard(0), Some(None));
        // A discard from an ungrouped pair leaves a lone card.
        let c = ctx(&official, &pairs, &[]);
        assert!(!c.may_end_with(Some(Card::new(Rank::Five, Suit::Clubs)), None, 0));
        assert!(c.may_end_with(Some(Card::new(Rank::King, Suit::Spades)), None, 0));
    }

    // R-MELD-6: one or two black threes too many must be discarded, or make no meld.
    #[test]
    fn r_meld_6_black_threes_force_the_discard() {
        let official = rules(Preset::Official);
        let three = Some(Some(Forced::Rank(Rank::Three)));
        for (text, forced) in [
            ("3C KS KH KD", three),
            ("3C 3S KS KH KD", None),
            ("3C 3S 3S KS KH KD", Some(None)),
            ("3C 3C 3S 3S KS KH KD", Some(None)),
            ("3C 3C 3S 3S 3C KS KH KD", three),
            ("3C 3C 3S 3S 3C 3S KS KH KD", None),
        ] {
            let hand = cards(text);
            assert_eq!(
                ctx(&official, &hand, &[]).forced_discard(0),
                forced,
                "{text}"
            );
        }
    }

    // R-OUT-1: the canastas a hand can bring, counting melds it completes only where the
    // going out may add to them.
    #[test]
    fn r_out_1_canastas_within_reach() {
        let official = rules(Preset::Official);
        let six = [group(Rank::King, "KS KH KD KC KS KH")];
        let hand = cards("KD 5C 5D 5H");
        let c = ctx(&official, &hand, &six);
        assert!(c.may_reach_canastas(true));
        assert!(!c.may_reach_canastas(false));
        let far = [group(Rank::King, "KS KH KD")];
        assert!(!ctx(&official, &hand, &far).may_reach_canastas(true));
        let canasta = [group(Rank::King, "KS KH KD KC KS KH KD")];
        assert!(ctx(&official, &hand, &canasta).may_reach_canastas(false));
    }
}
