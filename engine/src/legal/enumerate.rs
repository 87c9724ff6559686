//! The enumerator: every legal action of the seat to act, in canonical form (see the
//! documentation of [`crate::legal`]); the going outs come from `going_out/list.rs`.
//!
//! What may be listed is decided by the predicates the checks call (`predicates.rs`: which
//! ways take the pile, the minimum, keeping a card, melding after a take, drawing, declining,
//! discarding), so the listing and the checks cannot drift apart. Actions built here are legal
//! by construction where that is cheap to see; the rare ones that are not (a take that leaves
//! the hand almost empty, a going out) pass the full check before they are listed. Tests run
//! the full check on everything listed.

use smallvec::SmallVec;

use super::{Ctx, discardable, keeps_a_card, plus, single};
use crate::action::{Action, MeldBatch, MeldSpec, MeldTarget, TopMeld};
use crate::card::{Card, CardCounts, Rank, Suit};
use crate::game::Phase;
use crate::meld::{
    CANASTA_LEN, GROUP_MIN_NATURALS, MELD_MIN_LEN, MeldKind, check_addition, check_group_counts,
    check_growth,
};

/// Most suit combinations listed for the groups of one initial meld; beyond it the lowest suits
/// are taken (a bound on the listing only: any choice of suits is legal).
const SUIT_COMBINATIONS: usize = 64;

/// Where the enumerator hands the actions it finds, and how much searching it may still do.
///
/// Every search of the enumerator spends steps from here (a node of a search, an action
/// handed on) and returns as soon as the receiver asks to stop or the steps run out: a request
/// that lists a player's choices (a prompt, a summary, a bot) does bounded work, however big the
/// hand. A hand of sixty cards before its side's initial meld has millions of irreducible
/// initial melds.
pub(super) struct Sink<'s> {
    to: To<'s>,
    /// Search steps left.
    steps: u64,
    /// The receiver asked to stop, the list is full, or the steps ran out: every search
    /// returns at once.
    stopped: bool,
    /// The steps ran out before the enumeration was complete.
    exhausted: bool,
    /// An action was left out because the list was full.
    full: bool,
    /// Groups of an initial meld in one choice of suits only (a summary tells ranks apart,
    /// not suits of groups).
    pub(super) canonical_suits: bool,
}

/// Where a [`Sink`] hands its actions: a list (pushed there directly, for the bots' speed), or
/// a function that reads each one.
enum To<'s> {
    List {
        out: &'s mut Vec<Action>,
        /// Length of `out` when the enumeration began.
        start: usize,
        /// Most actions to list.
        max: usize,
    },
    Fold(&'s mut dyn FnMut(&Action) -> bool),
}

impl<'s> Sink<'s> {
    fn new(to: To<'s>, steps: u64) -> Sink<'s> {
        Sink {
            to,
            steps,
            stopped: false,
            exhausted: false,
            full: false,
            canonical_suits: false,
        }
    }

    /// A sink appending at most `max` actions to `out`, for at most `steps` steps.
    pub(super) fn list(out: &'s mut Vec<Action>, max: usize, steps: u64) -> Sink<'s> {
        let start = out.len();
        Sink::new(To::List { out, start, max }, steps)
    }

    /// A sink handing each action to `read` until it returns false, for at most `steps`
    /// steps.
    pub(super) fn fold(read: &'s mut dyn FnMut(&Action) -> bool, steps: u64) -> Sink<'s> {
        Sink::new(To::Fold(read), steps)
    }

    /// Hands on an action; false once the enumeration must stop.
    #[inline]
    fn push(&mut self, action: Action) -> bool {
        if !self.step() {
            return false;
        }
        match &mut self.to {
            To::List { out, start, max } => {
                if out.len() - *start < *max {
                    out.push(action);
                } else {
                    self.full = true;
                    self.stopped = true;
                }
            }
            To::Fold(read) => {
                if !read(&action) {
                    self.stopped = true;
                }
            }
        }
        !self.stopped
    }

    /// Spends one search step; false once the enumeration must stop.
    #[inline]
    fn step(&mut self) -> bool {
        if self.stopped {
            return false;
        }
        if self.steps == 0 {
            self.stopped = true;
            self.exhausted = true;
            return false;
        }
        self.steps -= 1;
        true
    }

    /// True if the step budget ran out.
    pub(super) fn exhausted(&self) -> bool {
        self.exhausted
    }

    /// True if the enumeration ran to its end: no action was left out for want of room or of
    /// steps.
    pub(super) fn complete(&self) -> bool {
        !self.full && !self.exhausted
    }
}

/// The ways to take `n` natural cards of `rank` from `from`: every choice of suits when suits
/// matter (the rules have sequences), the canonical one otherwise.
fn suit_choices(
    suits_matter: bool,
    from: &CardCounts,
    rank: Rank,
    n: u8,
) -> SmallVec<[CardCounts; 8]> {
    let mut out = SmallVec::new();
    if !suits_matter {
        out.push(from.of_rank(rank, n));
        return out;
    }
    let have = Suit::ALL.map(|s| from.count(Card::new(rank, s)));
    for a in 0..=have[0].min(n) {
        for b in 0..=have[1].min(n - a) {
            for c in 0..=have[2].min(n - a - b) {
                let d = n - a - b - c;
                if d <= have[3] {
                    let mut cards = CardCounts::new();
                    for (suit, k) in Suit::ALL.into_iter().zip([a, b, c, d]) {
                        cards.add_n(Card::new(rank, suit), k);
                    }
                    out.push(cards);
                }
            }
        }
    }
    out
}

/// The sequence of `len` cards of `suit` from `start` upward, if every rank exists.
fn run(suit: Suit, start: Rank, len: u8) -> Option<CardCounts> {
    let mut cards = CardCounts::new();
    for i in 0..len {
        let rank = Rank::from_index(start as u8 + i).filter(|r| r.is_natural())?;
        cards.add(Card::new(rank, suit));
    }
    Some(cards)
}

/// A kind of meld an initial-meld search may use.
#[derive(Clone, Copy, Debug)]
enum Cand {
    /// A group of a rank; with the pile's top card when it comes first in a take.
    Group(Rank),
    /// These cards as a sequence.
    Seq(CardCounts),
    /// Wild cards only.
    Wild,
}

/// One meld of an initial-meld search: candidate `cand`, with `n` natural cards from the hand
/// (groups), `j` jokers and `t` twos.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Choice {
    cand: usize,
    n: u8,
    j: u8,
    t: u8,
}

/// The search state of an initial meld.
struct Initial<'s> {
    cands: &'s [Cand],
    /// For each candidate, the value of the natural cards it and the candidates after it hold
    /// at most.
    upper: &'s [u32],
    /// The first candidate is the group of the pile's top card, which must be chosen.
    with_top: bool,
    /// The fewest naturals from the hand in the top card's group.
    top_naturals: u8,
    chosen: SmallVec<[Choice; 8]>,
}

impl Choice {
    fn wild_value(&self) -> u32 {
        self.j as u32 * Rank::Joker.value() + self.t as u32 * Rank::Two.value()
    }
}

impl<'a> Ctx<'a> {
    /// Hands every legal action, in canonical form, to `sink`, until it asks to stop or its
    /// steps run out.
    pub(super) fn enumerate(&self, sink: &mut Sink<'_>) {
        match self.phase {
            Phase::Over => {}
            Phase::Answer => {
                let _ = sink.push(Action::AnswerPartner { yes: true })
                    && sink.push(Action::AnswerPartner { yes: false });
            }
            Phase::Draw => {
                if self.check_draw().is_ok() && !sink.push(Action::DrawStock) {
                    return;
                }
                self.push_takes(sink);
                if self.check_decline().is_ok() {
                    sink.push(Action::DeclinePile);
                }
            }
            Phase::Play => {
                if self.check_ask().is_ok() && !sink.push(Action::AskPartner) {
                    return;
                }
                self.push_melds(sink);
                if !self.discard_is_going_out() {
                    // Red threes never stay in a hand (R-RED-1 to R-RED-3): only a hand that
                    // holds one (an edited view) asks which cards may be discarded.
                    let red = self.hand.red_threes() > 0;
                    for (card, _) in self.hand.iter_kinds() {
                        if (!red || discardable(card)) && !sink.push(Action::Discard { card }) {
                            return;
                        }
                    }
                }
                self.go_outs(&mut |a| sink.push(a));
            }
        }
    }

    /// The meld actions of the play phase: steps once the side has melded, irreducible initial
    /// melds before.
    pub(super) fn push_melds(&self, sink: &mut Sink<'_>) {
        if self.side_melded {
            self.push_steps(sink);
            return;
        }
        let hand = self.hand;
        self.initial_sets(hand, None, sink, &|specs, used| {
            // Going out is listed apart.
            keeps_a_card(hand.len() - used).then(|| {
                let a = Action::Meld {
                    melds: specs.iter().copied().collect(),
                };
                debug_assert_eq!(self.check(&a), Ok(()), "{a}");
                a
            })
        });
    }

    fn wild_cards(&self) -> [Option<Card>; 2] {
        [
            (self.hand.jokers() > 0).then_some(Card::JOKER),
            self.hand.any_of_rank(Rank::Two),
        ]
    }

    /// The ways to take the pile: irreducible initial melds with the top card before the
    /// side's initial meld; after it, the top card alone onto each meld that takes it (or with a
    /// natural pair, where the pile needs one), and into a new group with a natural pair or
    /// with one natural and a wild card. [`Ctx::open_pile`] and [`Ctx::take_way`] decide, as
    /// they do for the check.
    pub(super) fn push_takes(&self, sink: &mut Sink<'_>) {
        let Ok(top) = self.open_pile() else {
            return;
        };
        if !top.is_natural() {
            return;
        }
        let facts = self.pile_facts(top);
        // Below two cards left, the player must be able to go out at once, which the full
        // check decides (rare).
        let keeps_two = |used: usize| keeps_a_card(self.cards_after_take(used));
        // The action if it is legal: built legal where it keeps two cards, checked otherwise.
        let legal = |a: Action, used: usize| {
            if keeps_two(used) {
                debug_assert_eq!(self.check(&a), Ok(()), "{a}");
                Some(a)
            } else {
                self.check(&a).is_ok().then_some(a)
            }
        };
        let push = |sink: &mut Sink<'_>, a: Action, used: usize| match legal(a, used) {
            Some(a) => sink.push(a),
            None => true,
        };
        if !self.side_melded {
            // The fewest naturals from the hand that take the pile into a new group.
            let Some(top_naturals) = (1..=2).find(|&n| self.take_way(&facts, None, n).is_ok())
            else {
                return;
            };
            let hand = self.hand;
            self.initial_sets(hand, Some((top, top_naturals)), sink, &|specs, used| {
                let a = Action::TakePile {
                    top: TopMeld {
                        target: MeldTarget::New,
                        cards: specs[0].cards,
                    },
                    melds: specs[1..].iter().copied().collect(),
                };
                legal(a, used)
            });
            return;
        }
        let hand = self.hand;
        let rank = top.rank();
        let naturals = hand.rank_count(rank);
        let suits = self.rules.sequences;
        let take = |target, cards: CardCounts| Action::TakePile {
            top: TopMeld { target, cards },
            melds: MeldBatch::new(),
        };
        for (id, meld) in self.melds.iter().enumerate() {
            let target = MeldTarget::Existing(id as u8);
            match meld.kind {
                MeldKind::Group(r) if r == rank => {
                    if self.take_way(&facts, Some(meld), 0).is_ok() {
                        if check_growth(self.rules, meld, id as u8, 1, 0).is_ok()
                            && !push(sink, take(target, CardCounts::new()), 0)
                        {
                            return;
                        }
                    } else if naturals >= 2
                        && self.take_way(&facts, Some(meld), 2).is_ok()
                        && check_growth(self.rules, meld, id as u8, 3, 0).is_ok()
                    {
                        for pair in suit_choices(suits, hand, rank, 2) {
                            if !push(sink, take(target, pair), 2) {
                                return;
                            }
                        }
                    }
                }
                MeldKind::Sequence(_)
                    if self.take_way(&facts, Some(meld), 0).is_ok()
                        && check_addition(self.rules, meld, id as u8, &single(top)).is_ok()
                        && !push(sink, take(target, CardCounts::new()), 0) =>
                {
                    return;
                }
                _ => {}
            }
        }
        if !self.may_start_group(rank) {
            return;
        }
        if naturals >= 2
            && self.take_way(&facts, None, 2).is_ok()
            && check_group_counts(self.rules, rank, 3, 0).is_ok()
        {
            for pair in suit_choices(suits, hand, rank, 2) {
                if !push(sink, take(MeldTarget::New, pair), 2) {
                    return;
                }
            }
        }
        if naturals >= 1
            && self.take_way(&facts, None, 1).is_ok()
            && check_group_counts(self.rules, rank, 2, 1).is_ok()
        {
            for one in suit_choices(suits, hand, rank, 1) {
                for wild in self.wild_cards().into_iter().flatten() {
                    if !push(sink, take(MeldTarget::New, plus(&one, &single(wild))), 2) {
                        return;
                    }
                }
            }
        }
    }

    /// Single meld steps of a side that has melded: a new meld of three, or one card added.
    fn push_steps(&self, sink: &mut Sink<'_>) {
        let hand = self.hand;
        let rules = self.rules;
        let one_meld = |spec: MeldSpec| {
            let mut melds = MeldBatch::new();
            melds.push(spec);
            Action::Meld { melds }
        };
        let wild_cards = self.wild_cards();
        let suits = rules.sequences;
        // A new meld of three that keeps a card to discard.
        if self.may_lay_after_take(None, false) && hand.len() >= 3 && keeps_a_card(hand.len() - 3) {
            for rank in Rank::NATURALS {
                let n = hand.rank_count(rank);
                if n < 2 || !self.may_start_group(rank) {
                    continue;
                }
                if n >= 3 && check_group_counts(rules, rank, 3, 0).is_ok() {
                    for cards in suit_choices(suits, hand, rank, 3) {
                        if !sink.push(one_meld(MeldSpec::new_meld(cards))) {
                            return;
                        }
                    }
                }
                if check_group_counts(rules, rank, 2, 1).is_ok() {
                    for pair in suit_choices(suits, hand, rank, 2) {
                        for wild in wild_cards.into_iter().flatten() {
                            if !sink.push(one_meld(MeldSpec::new_meld(plus(&pair, &single(wild)))))
                            {
                                return;
                            }
                        }
                    }
                }
            }
            if rules.sequences {
                for suit in Suit::ALL {
                    for start in Rank::NATURALS {
                        if let Some(cards) = run(suit, start, 3)
                            && hand.contains(&cards)
                            && !sink.push(one_meld(MeldSpec::new_meld(cards)))
                        {
                            return;
                        }
                    }
                }
            }
            if rules.wild_canastas {
                for j in 0..=3u8 {
                    let t = 3 - j;
                    if hand.jokers() >= j && hand.twos() >= t {
                        let mut cards = hand.of_rank(Rank::Two, t);
                        cards.add_n(Card::JOKER, j);
                        if !sink.push(one_meld(MeldSpec::new_meld(cards))) {
                            return;
                        }
                    }
                }
            }
        }
        // One card added, keeping a card to discard.
        if hand.is_empty() || !keeps_a_card(hand.len() - 1) {
            return;
        }
        for (id, meld) in self.melds.iter().enumerate() {
            let id8 = id as u8;
            let add = |sink: &mut Sink<'_>, card: Card| {
                sink.push(one_meld(MeldSpec::add_to(id8, single(card))))
            };
            match meld.kind {
                MeldKind::Group(rank) => {
                    if hand.rank_count(rank) > 0
                        && self.may_lay_after_take(Some(meld), true)
                        && check_growth(rules, meld, id8, 1, 0).is_ok()
                    {
                        for one in suit_choices(suits, hand, rank, 1) {
                            if !add(sink, one.iter().next().expect("one card")) {
                                return;
                            }
                        }
                    }
                    if self.may_lay_after_take(Some(meld), false)
                        && check_growth(rules, meld, id8, 0, 1).is_ok()
                    {
                        for wild in wild_cards.into_iter().flatten() {
                            if !add(sink, wild) {
                                return;
                            }
                        }
                    }
                }
                MeldKind::Sequence(suit) if self.may_lay_after_take(Some(meld), true) => {
                    let Some((low, high)) = meld.sequence_ends() else {
                        continue;
                    };
                    for next in [low as u8 - 1, high as u8 + 1] {
                        if let Some(rank) = Rank::from_index(next).filter(|r| r.is_natural()) {
                            let card = Card::new(rank, suit);
                            if hand.count(card) > 0
                                && check_addition(rules, meld, id8, &single(card)).is_ok()
                                && !add(sink, card)
                            {
                                return;
                            }
                        }
                    }
                }
                MeldKind::Wild
                    if self.may_lay_after_take(Some(meld), false)
                        && check_growth(rules, meld, id8, 0, 1).is_ok() =>
                {
                    for wild in wild_cards.into_iter().flatten() {
                        if !add(sink, wild) {
                            return;
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// Every irreducible initial meld (see the documentation of [`crate::legal`]) from `avail`,
    /// with the pile's `top` card in the first meld if given, with at least the given number of
    /// naturals of its rank from the hand (what [`Ctx::take_way`] asks of a new group). Emits
    /// the specs and the number of hand cards they use; with a top card, the first spec holds
    /// the hand cards melded with it (without the top card).
    ///
    /// `make` turns the specs and the number of hand cards they use into the action to hand to
    /// `sink`, or `None` to skip them; the search stops when the sink does.
    pub(super) fn initial_sets(
        &self,
        avail: &CardCounts,
        top: Option<(Card, u8)>,
        sink: &mut Sink<'_>,
        make: &dyn Fn(&[MeldSpec], usize) -> Option<Action>,
    ) {
        let rules = self.rules;
        let (top, top_naturals) = (top.map(|(t, _)| t), top.map_or(2, |(_, n)| n));
        let mut cands: SmallVec<[Cand; 24]> = SmallVec::new();
        if let Some(t) = top {
            cands.push(Cand::Group(t.rank()));
        }
        // Sequences come before groups: their cards are fixed, groups take what is left.
        if rules.sequences {
            for suit in Suit::ALL {
                for start in Rank::NATURALS {
                    for len in MELD_MIN_LEN as u8..=CANASTA_LEN as u8 {
                        match run(suit, start, len) {
                            Some(cards) if avail.contains(&cards) => cands.push(Cand::Seq(cards)),
                            _ => break,
                        }
                    }
                }
            }
        }
        for r in Rank::NATURALS {
            let top_rank = top.map(|t| t.rank()) == Some(r);
            if (!top_rank || !self.one_group_per_rank())
                && avail.rank_count(r) >= GROUP_MIN_NATURALS
            {
                cands.push(Cand::Group(r));
            }
        }
        if rules.wild_canastas && avail.wilds() as usize >= MELD_MIN_LEN {
            cands.push(Cand::Wild);
        }
        // The most natural cards each candidate and those after it could add: a branch whose
        // total cannot reach the minimum even with all of them (and every wild card left) is
        // cut, so a search that finds nothing ends soon instead of trying every small set.
        let mut upper: SmallVec<[u32; 24]> = SmallVec::from_elem(0, cands.len() + 1);
        for (k, cand) in cands.iter().enumerate().rev() {
            let naturals = match *cand {
                Cand::Seq(cards) => cards.value(),
                Cand::Group(r) => {
                    let with_top = (top.is_some() && k == 0) as u32;
                    (avail.rank_count(r) as u32 + with_top) * r.value()
                }
                Cand::Wild => 0,
            };
            upper[k] = upper[k + 1] + naturals;
        }
        let mut search = Initial {
            cands: &cands,
            upper: &upper,
            with_top: top.is_some(),
            top_naturals,
            chosen: SmallVec::new(),
        };
        let reserved = [0u8; 14];
        self.initial_dfs(
            &mut search,
            0,
            *avail,
            reserved,
            0,
            u32::MAX,
            sink,
            &mut |chosen, sink| self.emit_initial(avail, &cands, chosen, sink, make),
        );
    }

    /// Builds the melds of an initial set found by the search: sequences' cards first, then
    /// every choice of suits for the groups (up to [`SUIT_COMBINATIONS`]).
    fn emit_initial(
        &self,
        avail: &CardCounts,
        cands: &[Cand],
        chosen: &[Choice],
        sink: &mut Sink<'_>,
        make: &dyn Fn(&[MeldSpec], usize) -> Option<Action>,
    ) -> bool {
        let used: usize = chosen
            .iter()
            .map(|c| match cands[c.cand] {
                Cand::Seq(cards) => cards.len(),
                _ => (c.n + c.j + c.t) as usize,
            })
            .sum();
        let mut left = *avail;
        for c in chosen {
            if let Cand::Seq(cards) = cands[c.cand] {
                left.remove_all(&cards);
            }
        }
        // The take's group comes first (candidate 0), as the top card's meld.
        let mut specs: SmallVec<[MeldSpec; 6]> = SmallVec::new();
        let mut listed = 0;
        self.expand_groups(
            cands,
            chosen,
            0,
            left,
            &mut specs,
            &mut listed,
            sink,
            &mut |specs, sink| match make(specs, used) {
                Some(a) => sink.push(a),
                None => true,
            },
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn expand_groups(
        &self,
        cands: &[Cand],
        chosen: &[Choice],
        i: usize,
        left: CardCounts,
        specs: &mut SmallVec<[MeldSpec; 6]>,
        listed: &mut usize,
        sink: &mut Sink<'_>,
        emit: &mut dyn FnMut(&[MeldSpec], &mut Sink<'_>) -> bool,
    ) -> bool {
        let Some(c) = chosen.get(i) else {
            *listed += 1;
            return emit(specs, sink);
        };
        if !sink.step() {
            return false;
        }
        let mut wilds = CardCounts::new();
        wilds.add_n(Card::JOKER, c.j);
        wilds.add_all(&left.of_rank(Rank::Two, c.t));
        match cands[c.cand] {
            Cand::Seq(cards) => {
                specs.push(MeldSpec::new_meld(cards));
                let go_on =
                    self.expand_groups(cands, chosen, i + 1, left, specs, listed, sink, emit);
                specs.pop();
                go_on
            }
            Cand::Wild => {
                let mut rest = left;
                rest.remove_all(&wilds);
                specs.push(MeldSpec::new_meld(wilds));
                let go_on =
                    self.expand_groups(cands, chosen, i + 1, rest, specs, listed, sink, emit);
                specs.pop();
                go_on
            }
            Cand::Group(rank) => {
                let suits =
                    self.rules.sequences && !sink.canonical_suits && *listed < SUIT_COMBINATIONS;
                for naturals in suit_choices(suits, &left, rank, c.n) {
                    if *listed >= SUIT_COMBINATIONS && !specs.is_empty() && suits {
                        break;
                    }
                    let cards = plus(&naturals, &wilds);
                    let mut rest = left;
                    rest.remove_all(&cards);
                    specs.push(MeldSpec::new_meld(cards));
                    let go_on =
                        self.expand_groups(cands, chosen, i + 1, rest, specs, listed, sink, emit);
                    specs.pop();
                    if !go_on {
                        return false;
                    }
                }
                true
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn initial_dfs(
        &self,
        s: &mut Initial<'_>,
        from: usize,
        cards: CardCounts,
        reserved: [u8; 14],
        value: u32,
        smallest: u32,
        sink: &mut Sink<'_>,
        emit: &mut dyn FnMut(&[Choice], &mut Sink<'_>) -> bool,
    ) -> bool {
        if self.reaches_minimum(value) {
            // Any further meld could be taken away again: the batch is complete here, and it
            // is irreducible, since branches that could lose a card or meld were cut below.
            return emit(&s.chosen, sink);
        }
        if !sink.step() {
            return false;
        }
        let wild_value =
            cards.jokers() as u32 * Rank::Joker.value() + cards.twos() as u32 * Rank::Two.value();
        if !self.reaches_minimum(value + s.upper[from] + wild_value) {
            return true;
        }
        let range = if s.with_top && s.chosen.is_empty() {
            0..1
        } else {
            from..s.cands.len()
        };
        for k in range {
            let take = s.with_top && k == 0;
            let last = s.chosen.last().copied().filter(|l| l.cand == k);
            let mut try_choice = |s: &mut Initial<'_>,
                                  sink: &mut Sink<'_>,
                                  c: Choice,
                                  v: u32,
                                  unit: u32,
                                  cards: CardCounts,
                                  reserved: [u8; 14]|
             -> bool {
                // Every choice tried is a step, found or not: the work of a search is the
                // choices it tries.
                if !sink.step() {
                    return false;
                }
                // Repeats of a candidate come in non-increasing order, so each set is found once.
                if last.is_some_and(|l| c > l) {
                    return true;
                }
                let smallest = smallest.min(unit);
                // Once the total reaches the minimum plus the smallest part that could be taken
                // away, the batch is reducible whatever follows.
                if value + v >= self.minimum.saturating_add(smallest) {
                    return true;
                }
                s.chosen.push(c);
                // A group may come again (several melds of one rank); other kinds too, for
                // several sequences or wild melds.
                let next = if !self.one_group_per_rank() || !matches!(s.cands[k], Cand::Group(_)) {
                    k
                } else {
                    k + 1
                };
                let next = if take { 1 } else { next };
                let go_on =
                    self.initial_dfs(s, next, cards, reserved, value + v, smallest, sink, emit);
                s.chosen.pop();
                go_on
            };
            match s.cands[k] {
                Cand::Seq(seq) => {
                    // Every card must be held, and its rank must keep enough for the groups.
                    let ok = seq.iter().all(|card| {
                        cards.count(card) >= seq.count(card)
                            && cards.rank_count(card.rank()) > reserved[card.rank() as usize]
                    });
                    if !ok {
                        continue;
                    }
                    let mut after = cards;
                    after.remove_all(&seq);
                    let ends = seq.iter().map(|c| c.value());
                    let unit = if seq.len() > 3 {
                        // An end card: the lowest or highest rank.
                        let first = seq.iter().next().expect("three cards").value();
                        let last_card = seq.iter().last().expect("three cards").value();
                        first.min(last_card)
                    } else {
                        u32::MAX
                    };
                    let v: u32 = ends.sum();
                    let c = Choice {
                        cand: k,
                        n: seq.len() as u8,
                        j: 0,
                        t: 0,
                    };
                    if !try_choice(s, sink, c, v, unit.min(v), after, reserved) {
                        return false;
                    }
                }
                Cand::Wild => {
                    let (jokers, twos) = (cards.jokers(), cards.twos());
                    for j in 0..=jokers {
                        for t in 0..=twos {
                            let len = (j + t) as usize;
                            if !(MELD_MIN_LEN..=CANASTA_LEN).contains(&len) {
                                continue;
                            }
                            let c = Choice {
                                cand: k,
                                n: 0,
                                j,
                                t,
                            };
                            let v = c.wild_value();
                            let mut unit = v;
                            if len > 3 {
                                if t > 0 {
                                    unit = unit.min(Rank::Two.value());
                                }
                                if j > 0 {
                                    unit = unit.min(Rank::Joker.value());
                                }
                            }
                            let mut after = cards;
                            after.remove_all(&cards.of_rank(Rank::Two, t));
                            after.remove_all(&cards.of_rank(Rank::Joker, j));
                            if !try_choice(s, sink, c, v, unit, after, reserved) {
                                return false;
                            }
                        }
                    }
                }
                Cand::Group(rank) => {
                    let top = take as u8;
                    // The top card's group takes the naturals the take needs (`take_way`); any
                    // other group, two naturals at least (R-MELD-1).
                    let min_n = if take {
                        s.top_naturals
                    } else {
                        GROUP_MIN_NATURALS
                    };
                    let free = cards.rank_count(rank) - reserved[rank as usize];
                    let (jokers, twos) = (cards.jokers(), cards.twos());
                    for n in min_n..=free {
                        for j in 0..=jokers {
                            for t in 0..=twos {
                                if check_group_counts(self.rules, rank, n + top, j + t).is_err() {
                                    continue;
                                }
                                let c = Choice { cand: k, n, j, t };
                                let v = (n + top) as u32 * rank.value() + c.wild_value();
                                let unit = self.group_unit(rank, n, j, t, top, min_n, !take, v);
                                let mut after = cards;
                                after.remove_all(&cards.of_rank(Rank::Two, t));
                                after.remove_all(&cards.of_rank(Rank::Joker, j));
                                let mut reserved = reserved;
                                reserved[rank as usize] += n;
                                if !try_choice(s, sink, c, v, unit, after, reserved) {
                                    return false;
                                }
                            }
                        }
                    }
                }
            }
        }
        true
    }

    /// The value of the smallest part of a group that could be taken from an initial batch with
    /// the batch still valid: one of its cards, or the whole group unless it holds the top card.
    #[allow(clippy::too_many_arguments)]
    fn group_unit(
        &self,
        rank: Rank,
        n: u8,
        j: u8,
        t: u8,
        top: u8,
        min_n: u8,
        whole: bool,
        v: u32,
    ) -> u32 {
        let ok = |n: u8, w: u8| check_group_counts(self.rules, rank, n + top, w).is_ok();
        let mut smallest = if whole { v } else { u32::MAX };
        if n > min_n && ok(n - 1, j + t) {
            smallest = smallest.min(rank.value());
        }
        if j > 0 && ok(n, j + t - 1) {
            smallest = smallest.min(Rank::Joker.value());
        }
        if t > 0 && ok(n, j + t - 1) {
            smallest = smallest.min(Rank::Two.value());
        }
        smallest
    }
}
