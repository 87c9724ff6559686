//! Legality: the one place that decides what the player to act may do.
//!
//! The same code answers "is this action legal" ([`LegalChoices::check`]), lists the legal
//! actions ([`LegalChoices::actions`]), summarises them for a prompt ([`LegalChoices::summary`])
//! and guards [`crate::Game::apply`]. It reads only public facts and the acting seat's own hand,
//! so it runs the same on the referee's game and on a seat's [`crate::View`].
//!
//! # Canonical actions
//!
//! Many legal actions have the same effect, and a turn's melds can be laid in one batch or in
//! several. The enumerator lists each effect once, in *canonical form*, such that every legal
//! turn can be played as a sequence of listed actions with the same result:
//!
//! - cards of the same rank are taken from the lowest suits first (suits of natural cards and
//!   of twos change nothing but their display in these rules);
//! - once the side has melded, a meld action is one step: a new meld of exactly three cards, or
//!   one card added to a meld; bigger melds are built by further steps in the same turn;
//! - an initial meld (from the hand, or with the pile) is a batch that reaches the minimum and
//!   is *irreducible*: taking away any card or meld would fall below the minimum; more cards
//!   follow as steps;
//! - going out lists every split of the remaining hand into melds, with or without a discard,
//!   when the hand is small enough that no step could come first (at most four cards besides
//!   black threes), and, for a player who may still go out concealed, every concealed going
//!   out of his whole hand.

use smallvec::SmallVec;

use crate::action::{Action, MeldBatch, MeldSpec, MeldTarget, TopMeld};
use crate::card::{Card, CardCounts, Rank, Suit};
use crate::error::RuleError;
use crate::game::Phase;
use crate::meld::{
    CanastaKind, Meld, MeldId, MeldKind, canasta_of, check_addition, check_fits,
    check_group_counts, check_growth, check_new, kind_of_new,
};
use crate::rules::Rules;
use crate::table::Seat;

/// The state of "Partner, may I go out?" in the current turn (R-OUT-3).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum Ask {
    /// Not asked this turn.
    #[default]
    NotAsked,
    /// Asked; the partner must answer.
    Pending,
    /// The partner said yes: the player must go out this turn or his side loses 100.
    Yes,
    /// The partner said no: the player may not go out this turn.
    No,
}

/// Public facts about the turn in progress.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct TurnFlags {
    /// The player took the pile this turn.
    pub took_pile: bool,
    /// The player laid cards this turn (taking the pile included).
    pub melded: bool,
    /// The player added cards to a meld another seat laid (this spoils a concealed going out).
    pub foreign: bool,
    /// The partner question.
    pub ask: Ask,
}

/// Everything legality depends on, borrowed from a game or a view.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ctx<'a> {
    pub rules: &'a Rules,
    pub seat: Seat,
    pub phase: Phase,
    pub hand: &'a CardCounts,
    pub melds: &'a [Meld],
    pub side_melded: bool,
    pub minimum: u32,
    pub pile: &'a [Card],
    pub pile_frozen: bool,
    pub pile_blocked: bool,
    pub stock_len: usize,
    pub partner: Option<Seat>,
    /// The seat melded in an earlier turn of this deal (no concealed going out, R-OUT-4).
    pub melded_before: bool,
    pub turn: TurnFlags,
}

/// What a batch of melds would do.
#[derive(Clone, Copy, Debug)]
struct BatchInfo {
    /// All cards laid.
    cards: CardCounts,
    /// Canastas of the side afterwards.
    canastas: u8,
    /// Natural canastas of the side afterwards.
    natural_canastas: u8,
}

/// One way to take the pile, for the prompt.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct TakeOption {
    /// Where the top card goes.
    pub target: MeldTarget,
    /// Natural cards of the top card's rank needed from the hand.
    pub naturals: u8,
    /// Wild cards needed from the hand.
    pub wilds: u8,
    /// True if further melds from the hand must be laid with it to reach the initial minimum.
    pub with_melds: bool,
}

/// A compact description of the legal choices, as sent in a prompt.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Summary {
    /// The seat that must act.
    pub seat: Option<Seat>,
    /// Drawing from the stock is legal.
    pub can_draw: bool,
    /// Each way the pile may be taken.
    pub pile_takes: Vec<TakeOption>,
    /// The stock is empty and the top card fits a meld: the pile must be taken (R-STOCK-1).
    pub must_take_pile: bool,
    /// Declining the pile (ending the deal) is legal.
    pub can_decline_pile: bool,
    /// Ranks that can start a new meld now.
    pub meld_ranks: Vec<Rank>,
    /// Melds of the side that can take a card from the hand now.
    pub add_to_melds: Vec<MeldId>,
    /// Discarding is legal.
    pub can_discard: bool,
    /// Going out is possible now.
    pub can_go_out: bool,
    /// Asking the partner is legal.
    pub can_ask_partner: bool,
    /// The seat must answer its partner.
    pub must_answer: bool,
    /// Points the side's initial meld must still reach (0 once the side has melded).
    pub minimum_remaining: u32,
}

/// The legal choices of the seat to act: checks, the full enumeration and the summary.
#[derive(Clone, Copy, Debug)]
pub struct LegalChoices<'a> {
    ctx: Ctx<'a>,
}

impl<'a> LegalChoices<'a> {
    pub(crate) fn new(ctx: Ctx<'a>) -> Self {
        LegalChoices { ctx }
    }

    /// The seat these choices are for.
    pub fn seat(&self) -> Seat {
        self.ctx.seat
    }

    /// The phase of the turn.
    pub fn phase(&self) -> Phase {
        self.ctx.phase
    }

    /// The seat's hand.
    pub fn hand(&self) -> &CardCounts {
        self.ctx.hand
    }

    /// Checks an action of this seat without applying it.
    pub fn check(&self, action: &Action) -> Result<(), RuleError> {
        self.ctx.check(action)
    }

    /// Appends every legal action in canonical form (see the module documentation) to `out`.
    pub fn actions(&self, out: &mut Vec<Action>) {
        self.ctx.enumerate(out);
    }

    /// Every legal action in canonical form.
    pub fn to_vec(&self) -> Vec<Action> {
        let mut v = Vec::new();
        self.actions(&mut v);
        v
    }

    /// The compact description of the choices, for a prompt.
    pub fn summary(&self) -> Summary {
        let actions = self.to_vec();
        let c = &self.ctx;
        let mut s = Summary {
            seat: Some(c.seat),
            minimum_remaining: if c.side_melded { 0 } else { c.minimum },
            ..Summary::default()
        };
        for a in &actions {
            match a {
                Action::DrawStock => s.can_draw = true,
                Action::TakePile { top, melds } => {
                    let rank = c.pile.last().map(|t| t.rank());
                    let opt = TakeOption {
                        target: top.target,
                        naturals: rank.map_or(0, |r| top.cards.rank_count(r)),
                        wilds: top.cards.wilds(),
                        with_melds: !melds.is_empty(),
                    };
                    let same_way = |o: &TakeOption| {
                        o.target == opt.target
                            && o.naturals.min(2) == opt.naturals.min(2)
                            && (o.wilds > 0) == (opt.wilds > 0)
                    };
                    if let Some(o) = s.pile_takes.iter_mut().find(|o| same_way(o)) {
                        o.with_melds &= opt.with_melds;
                    } else {
                        s.pile_takes.push(opt);
                    }
                }
                Action::DeclinePile => s.can_decline_pile = true,
                Action::Meld { melds } => {
                    for m in melds {
                        match m.target {
                            MeldTarget::New => {
                                if let Ok(MeldKind::Group(r)) = kind_of_new(&m.cards)
                                    && !s.meld_ranks.contains(&r)
                                {
                                    s.meld_ranks.push(r);
                                }
                            }
                            MeldTarget::Existing(id) => {
                                if !s.add_to_melds.contains(&id) {
                                    s.add_to_melds.push(id);
                                }
                            }
                        }
                    }
                }
                Action::Discard { .. } => s.can_discard = true,
                Action::GoOut { .. } => s.can_go_out = true,
                Action::AskPartner => s.can_ask_partner = true,
                Action::AnswerPartner { .. } => s.must_answer = true,
            }
        }
        s.must_take_pile = c.phase == Phase::Draw
            && c.stock_len == 0
            && !s.pile_takes.is_empty()
            && !s.can_decline_pile;
        s.meld_ranks.sort();
        s.add_to_melds.sort();
        s
    }
}

/// Cards of a rank taken from `from`, lowest suit first: the canonical choice of suits.
fn pick(from: &CardCounts, rank: Rank, n: u8) -> CardCounts {
    let mut out = CardCounts::new();
    if rank == Rank::Joker {
        out.add_n(Card::JOKER, n.min(from.jokers()));
        return out;
    }
    let mut need = n;
    for s in Suit::ALL {
        if need == 0 {
            break;
        }
        let c = Card::new(rank, s);
        let k = from.count(c).min(need);
        out.add_n(c, k);
        need -= k;
    }
    out
}

fn plus(a: &CardCounts, b: &CardCounts) -> CardCounts {
    let mut c = *a;
    c.add_all(b);
    c
}

fn single(card: Card) -> CardCounts {
    let mut c = CardCounts::new();
    c.add(card);
    c
}

/// Side canastas: (all, natural).
fn canasta_counts(melds: &[Meld]) -> (u8, u8) {
    melds
        .iter()
        .fold((0, 0), |(all, nat), m| match m.canasta() {
            Some(CanastaKind::Natural) => (all + 1, nat + 1),
            Some(CanastaKind::Mixed) => (all + 1, nat),
            None => (all, nat),
        })
}

/// Which existing melds a going-out split may lay cards on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum MeldUse {
    /// Any meld of the side.
    All,
    /// Only melds this seat laid (a concealed going out, R-OUT-4).
    Own,
    /// None: new melds only.
    None,
}

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
        !self.canasta && (self.len + self.cap) as usize >= crate::meld::CANASTA_LEN
    }
}

/// The state of a search for going-out splits.
struct Spread<'s, 'e> {
    slots: &'s [Slot],
    /// The twos to hand out, canonical suits first.
    twos: CardCounts,
    /// Search steps left before giving up, when only one split is wanted (a convenience that
    /// must never cost much; every such going out is also reached by meld steps).
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
            let these = pick(&twos, Rank::Two, t);
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

/// One meld of an initial-meld search: `n` naturals of `rank` from the hand, `j` jokers and `t`
/// twos; `take` if it holds the pile's top card.
#[derive(Clone, Copy, Debug)]
struct Choice {
    rank: Rank,
    n: u8,
    j: u8,
    t: u8,
    take: bool,
}

impl Choice {
    /// The points the meld counts toward the minimum, the top card included.
    fn value(&self) -> u32 {
        (self.n + self.take as u8) as u32 * self.rank.value()
            + self.j as u32 * Rank::Joker.value()
            + self.t as u32 * Rank::Two.value()
    }
}

impl<'a> Ctx<'a> {
    fn frozen_for_me(&self) -> bool {
        self.pile_frozen || !self.side_melded
    }

    /// The pile may be taken for an initial meld with one natural and a wild card (Rasche g),
    /// unless a wild card or red three freezes it.
    fn relaxed_take(&self) -> bool {
        self.rules.initial_take_without_pair && !self.pile_frozen && !self.side_melded
    }

    fn top_blocks(&self, top: Card) -> bool {
        self.pile_blocked || top.is_wild() || top.is_black_three()
    }

    fn group_of(&self, rank: Rank) -> Option<usize> {
        self.melds
            .iter()
            .position(|m| m.kind == MeldKind::Group(rank))
    }

    /// Whether the side may go out with this many canastas afterwards (R-OUT-1, R-OUT-3).
    fn go_out_allowed(&self, canastas: u8, natural_canastas: u8) -> Result<(), RuleError> {
        if self.turn.ask == Ask::No {
            return Err(RuleError::PartnerSaidNo);
        }
        if canastas < self.rules.canastas_to_go_out {
            return Err(RuleError::NotEnoughCanastas {
                have: canastas,
                need: self.rules.canastas_to_go_out,
            });
        }
        if self.rules.go_out_needs_natural_canasta && natural_canastas == 0 {
            return Err(RuleError::NeedNaturalCanasta);
        }
        Ok(())
    }

    fn wrong_phase(&self, action: &Action) -> RuleError {
        RuleError::WrongPhase {
            phase: self.phase,
            action: action.kind_name(),
        }
    }

    /// Checks an action of the seat to act. The caller has checked that it is this seat's turn.
    pub fn check(&self, action: &Action) -> Result<(), RuleError> {
        if self.phase == Phase::Over {
            return Err(RuleError::MatchOver);
        }
        let need = match action {
            Action::DrawStock | Action::TakePile { .. } | Action::DeclinePile => Phase::Draw,
            Action::AnswerPartner { .. } => Phase::Answer,
            _ => Phase::Play,
        };
        if need != self.phase {
            return Err(self.wrong_phase(action));
        }
        match action {
            Action::DrawStock => {
                if self.stock_len == 0 {
                    return Err(RuleError::StockEmpty);
                }
                Ok(())
            }
            Action::TakePile { top, melds } => self.check_take(top, melds).map(|_| ()),
            Action::DeclinePile => self.check_decline(),
            Action::Meld { melds } => self.check_meld(melds),
            Action::Discard { card } => self.check_discard(*card),
            Action::GoOut { melds, discard } => self.check_go_out(melds, *discard).map(|_| ()),
            Action::AskPartner => self.check_ask(),
            Action::AnswerPartner { .. } => Ok(()),
        }
    }

    /// Checks the cards of a batch against the hand and the side's melds. `avail` is what the
    /// cards may come from.
    fn check_batch(
        &self,
        avail: &CardCounts,
        specs: &[MeldSpec],
        going_out: bool,
    ) -> Result<BatchInfo, RuleError> {
        let mut total = CardCounts::new();
        for s in specs {
            if s.cards.is_empty() {
                return Err(RuleError::EmptyMeld);
            }
            // Said first: the player may think he holds one, but it was laid out (R-RED-6).
            if s.cards.red_threes() > 0 {
                return Err(RuleError::RedThree);
            }
            let mut with = total;
            with.add_all(&s.cards);
            // A sum that stopped at 255 names more cards than any hand holds.
            if with.len() != total.len() + s.cards.len() || !avail.contains(&with) {
                let (card, held) = s
                    .cards
                    .iter_kinds()
                    .find(|&(c, n)| total.count(c) as u16 + n as u16 > avail.count(c) as u16)
                    .map(|(c, _)| (c, avail.count(c)))
                    .expect("some card is missing");
                return Err(RuleError::CardNotHeld { card, held });
            }
            total = with;
        }
        let (mut canastas, mut natural_canastas) = canasta_counts(self.melds);
        let mut tally = |before: Option<CanastaKind>, after: Option<CanastaKind>| {
            for (k, delta) in [(before, -1i8), (after, 1)] {
                match k {
                    Some(CanastaKind::Natural) => {
                        canastas = canastas.wrapping_add_signed(delta);
                        natural_canastas = natural_canastas.wrapping_add_signed(delta);
                    }
                    Some(CanastaKind::Mixed) => canastas = canastas.wrapping_add_signed(delta),
                    None => {}
                }
            }
        };
        for (i, s) in specs.iter().enumerate() {
            match s.target {
                MeldTarget::New => {
                    let kind = check_new(self.rules, &s.cards)?;
                    if kind == MeldKind::BlackThrees && !going_out {
                        return Err(RuleError::BlackThreesOnlyGoingOut);
                    }
                    if let MeldKind::Group(rank) = kind
                        && let Some(id) = self.group_of(rank)
                    {
                        return Err(RuleError::RankAlreadyMelded {
                            rank,
                            meld: id as u8,
                        });
                    }
                    if specs[..i].iter().any(|p| {
                        p.target == MeldTarget::New && kind_of_new(&p.cards).ok() == Some(kind)
                    }) {
                        return Err(RuleError::DuplicateMeld);
                    }
                    tally(None, canasta_of(kind, &s.cards));
                }
                MeldTarget::Existing(id) => {
                    let meld = self.melds.get(id as usize).ok_or(RuleError::NoSuchMeld {
                        meld: id,
                        count: self.melds.len() as u8,
                    })?;
                    if specs[..i].iter().any(|p| p.target == s.target) {
                        return Err(RuleError::DuplicateMeld);
                    }
                    let after = check_addition(self.rules, meld, id, &s.cards)?;
                    tally(meld.canasta(), canasta_of(meld.kind, &after));
                }
            }
        }
        Ok(BatchInfo {
            cards: total,
            canastas,
            natural_canastas,
        })
    }

    /// Checks taking the pile; returns the cards left in hand afterwards.
    fn check_take(&self, top_use: &TopMeld, extras: &[MeldSpec]) -> Result<usize, RuleError> {
        let top = *self.pile.last().ok_or(RuleError::PileEmpty)?;
        if self.top_blocks(top) {
            return Err(RuleError::PileBlocked { top });
        }
        if self.rules.one_card_pile_rule && self.hand.len() == 1 && self.pile.len() == 1 {
            return Err(RuleError::OneCardPile);
        }
        if let Some((card, held)) = self.hand.first_missing(&top_use.cards) {
            return Err(RuleError::CardNotHeld { card, held });
        }
        let rank = top.rank();
        check_fits(MeldKind::Group(rank), &top_use.cards)?;
        let naturals = top_use.cards.rank_count(rank);
        if self.frozen_for_me() && naturals < 2 && !(self.relaxed_take() && naturals == 1) {
            return Err(RuleError::PileFrozen { top, naturals });
        }
        if top_use.target == MeldTarget::New && naturals == 0 {
            return Err(RuleError::TopCardNotMelded { top });
        }
        let mut specs: SmallVec<[MeldSpec; 4]> = SmallVec::new();
        specs.push(MeldSpec {
            target: top_use.target,
            cards: plus(&top_use.cards, &single(top)),
        });
        specs.extend_from_slice(extras);
        let mut avail = *self.hand;
        avail.add(top);
        let info = self.check_batch(&avail, &specs, false)?;
        if !self.side_melded {
            // R-INIT-3: the top card and the hand cards laid with it count, the rest of the
            // pile never does.
            let value = info.cards.value();
            if value < self.minimum {
                return Err(RuleError::BelowMinimum {
                    value,
                    minimum: self.minimum,
                });
            }
        }
        let rest = &self.pile[..self.pile.len() - 1];
        let red_threes = rest.iter().filter(|c| c.is_red_three()).count();
        let left = self.hand.len() + 1 - info.cards.len() + rest.len() - red_threes;
        if left < 2 {
            let could = self
                .go_out_allowed(info.canastas, info.natural_canastas)
                .is_ok();
            if !could {
                return Err(RuleError::MustKeepCard {
                    left: left as u8,
                    could_go_out: false,
                });
            }
        }
        Ok(left)
    }

    fn check_decline(&self) -> Result<(), RuleError> {
        if self.stock_len > 0 {
            return Err(RuleError::StockNotEmpty);
        }
        if let Some(top) = self.forced_top() {
            return Err(RuleError::MustTakePile { top });
        }
        Ok(())
    }

    /// With the stock empty, the top card if it can be added to a meld of the side: then the
    /// pile must be taken (R-STOCK-1).
    fn forced_top(&self) -> Option<Card> {
        let top = *self.pile.last()?;
        (0..self.melds.len()).find_map(|id| {
            let t = TopMeld {
                target: MeldTarget::Existing(id as u8),
                cards: CardCounts::new(),
            };
            self.check_take(&t, &[]).ok().map(|_| top)
        })
    }

    fn check_meld(&self, melds: &[MeldSpec]) -> Result<(), RuleError> {
        if melds.is_empty() {
            return Err(RuleError::EmptyMeld);
        }
        let info = self.check_batch(self.hand, melds, false)?;
        if !self.side_melded {
            let value = info.cards.value();
            if value < self.minimum {
                return Err(RuleError::BelowMinimum {
                    value,
                    minimum: self.minimum,
                });
            }
        }
        let left = self.hand.len() - info.cards.len();
        if left < 2 {
            return Err(RuleError::MustKeepCard {
                left: left as u8,
                could_go_out: self
                    .go_out_allowed(info.canastas, info.natural_canastas)
                    .is_ok(),
            });
        }
        Ok(())
    }

    fn check_discard(&self, card: Card) -> Result<(), RuleError> {
        if card.is_red_three() {
            return Err(RuleError::RedThree);
        }
        if self.hand.count(card) == 0 {
            return Err(RuleError::CardNotHeld { card, held: 0 });
        }
        if self.hand.len() < 2 {
            let (c, n) = canasta_counts(self.melds);
            return Err(RuleError::DiscardLastCard {
                could_go_out: self.go_out_allowed(c, n).is_ok(),
            });
        }
        Ok(())
    }

    /// Checks going out; returns the canastas of the side afterwards.
    fn check_go_out(&self, melds: &[MeldSpec], discard: Option<Card>) -> Result<u8, RuleError> {
        if self.turn.ask == Ask::No {
            return Err(RuleError::PartnerSaidNo);
        }
        let info = self.check_batch(self.hand, melds, true)?;
        let mut rest = *self.hand;
        rest.remove_all(&info.cards);
        if let Some(d) = discard {
            if d.is_red_three() {
                return Err(RuleError::RedThree);
            }
            if !rest.remove(d) {
                return Err(RuleError::CardNotHeld {
                    card: d,
                    held: self.hand.count(d),
                });
            }
        }
        if !rest.is_empty() {
            return Err(RuleError::CardsLeft {
                left: rest.len() as u8,
            });
        }
        // No minimum here: a side that has not melded can go out only concealed, which needs
        // none (R-INIT-5); a side that took the pile this turn has melded already.
        self.go_out_allowed(info.canastas, info.natural_canastas)?;
        Ok(info.canastas)
    }

    fn check_ask(&self) -> Result<(), RuleError> {
        if self.partner.is_none() {
            return Err(RuleError::NoPartner);
        }
        if self.turn.ask != Ask::NotAsked {
            return Err(RuleError::AlreadyAsked);
        }
        if self.turn.melded || self.turn.took_pile {
            return Err(RuleError::AskTooLate);
        }
        Ok(())
    }

    // ----- enumeration -----

    fn enumerate(&self, out: &mut Vec<Action>) {
        match self.phase {
            Phase::Over => {}
            Phase::Answer => {
                out.push(Action::AnswerPartner { yes: true });
                out.push(Action::AnswerPartner { yes: false });
            }
            Phase::Draw => {
                if self.stock_len > 0 {
                    out.push(Action::DrawStock);
                }
                let first_take = out.len();
                self.push_takes(out);
                if self.stock_len == 0 {
                    let forced = out[first_take..].iter().any(|a| {
                        matches!(a, Action::TakePile { top, .. }
                            if top.target != MeldTarget::New && top.cards.is_empty())
                    });
                    if !forced {
                        out.push(Action::DeclinePile);
                    }
                }
            }
            Phase::Play => {
                if self.check_ask().is_ok() {
                    out.push(Action::AskPartner);
                }
                if self.side_melded {
                    self.push_steps(out);
                } else {
                    let hand = self.hand;
                    self.initial_sets(hand, None, &mut |specs, used| {
                        // R-TURN-2: a meld keeps two cards; going out is listed apart.
                        if hand.len() - used >= 2 {
                            let a = Action::Meld {
                                melds: specs.iter().copied().collect(),
                            };
                            debug_assert_eq!(self.check(&a), Ok(()), "{a}");
                            out.push(a);
                        }
                    });
                }
                if self.hand.len() >= 2 {
                    for (card, _) in self.hand.iter_kinds() {
                        out.push(Action::Discard { card });
                    }
                }
                self.push_go_outs(out);
            }
        }
    }

    fn push_takes(&self, out: &mut Vec<Action>) {
        let Some(&top) = self.pile.last() else {
            return;
        };
        if self.top_blocks(top) || !top.is_natural() {
            return;
        }
        if self.rules.one_card_pile_rule && self.hand.len() == 1 && self.pile.len() == 1 {
            return;
        }
        let rest = &self.pile[..self.pile.len() - 1];
        let picked_up = rest.len() - rest.iter().filter(|c| c.is_red_three()).count();
        // Cards left after laying `used` hand cards; below two, the player must be able to go
        // out at once, which the full check decides (rare).
        let keeps_two = |used: usize| self.hand.len() - used + picked_up >= 2;
        let push = |out: &mut Vec<Action>, a: Action, used: usize| {
            if keeps_two(used) {
                debug_assert_eq!(self.check(&a), Ok(()), "{a}");
                out.push(a);
            } else if self.check(&a).is_ok() {
                out.push(a);
            }
        };
        let rank = top.rank();
        if !self.side_melded {
            let hand = self.hand;
            self.initial_sets(hand, Some(top), &mut |specs, used| {
                let a = Action::TakePile {
                    top: TopMeld {
                        target: MeldTarget::New,
                        cards: specs[0].cards,
                    },
                    melds: specs[1..].iter().copied().collect(),
                };
                push(out, a, used);
            });
            return;
        }
        let hand = self.hand;
        let naturals = hand.rank_count(rank);
        let frozen = self.frozen_for_me();
        let take = |target, cards: CardCounts| Action::TakePile {
            top: TopMeld { target, cards },
            melds: MeldBatch::new(),
        };
        if let Some(id) = self.group_of(rank) {
            let meld = &self.melds[id];
            let target = MeldTarget::Existing(id as u8);
            let hand_naturals = if frozen { 2 } else { 0 };
            if (!frozen || naturals >= 2)
                && check_growth(self.rules, meld, id as u8, hand_naturals + 1, 0).is_ok()
            {
                let cards = pick(hand, rank, hand_naturals);
                push(out, take(target, cards), hand_naturals as usize);
            }
        } else {
            if naturals >= 2 && check_group_counts(self.rules, rank, 3, 0).is_ok() {
                push(out, take(MeldTarget::New, pick(hand, rank, 2)), 2);
            }
            if !frozen && naturals >= 1 && check_group_counts(self.rules, rank, 2, 1).is_ok() {
                let one = pick(hand, rank, 1);
                for wild in [
                    (hand.jokers() > 0).then_some(Card::JOKER),
                    hand.any_of_rank(Rank::Two),
                ]
                .into_iter()
                .flatten()
                {
                    push(out, take(MeldTarget::New, plus(&one, &single(wild))), 2);
                }
            }
        }
    }

    /// Single meld steps of a side that has melded: a new meld of three, or one card added.
    fn push_steps(&self, out: &mut Vec<Action>) {
        let hand = self.hand;
        let one_meld = |spec: MeldSpec| {
            let mut melds = MeldBatch::new();
            melds.push(spec);
            Action::Meld { melds }
        };
        let wild_cards = [
            (hand.jokers() > 0).then_some(Card::JOKER),
            hand.any_of_rank(Rank::Two),
        ];
        if hand.len() >= 5 {
            for rank in Rank::NATURALS {
                let n = hand.rank_count(rank);
                if n < 2 || self.group_of(rank).is_some() {
                    continue;
                }
                if n >= 3 {
                    out.push(one_meld(MeldSpec::new_meld(pick(hand, rank, 3))));
                }
                let pair = pick(hand, rank, 2);
                for wild in wild_cards.into_iter().flatten() {
                    if check_group_counts(self.rules, rank, 2, 1).is_ok() {
                        out.push(one_meld(MeldSpec::new_meld(plus(&pair, &single(wild)))));
                    }
                }
            }
        }
        if hand.len() >= 3 {
            for (id, meld) in self.melds.iter().enumerate() {
                let Some(rank) = meld.rank() else { continue };
                let natural = hand.any_of_rank(rank);
                for card in [natural, wild_cards[0], wild_cards[1]]
                    .into_iter()
                    .flatten()
                {
                    let natural = !card.is_wild() as u8;
                    if check_growth(self.rules, meld, id as u8, natural, 1 - natural).is_ok() {
                        out.push(one_meld(MeldSpec::add_to(id as u8, single(card))));
                    }
                }
            }
        }
    }

    /// Every irreducible initial meld (see the module documentation) from `avail`, with the
    /// pile's `top` card in the first meld if given. Emits the specs; with a top card, the first
    /// spec holds the hand cards melded with it (without the top card).
    fn initial_sets(
        &self,
        avail: &CardCounts,
        top: Option<Card>,
        emit: &mut dyn FnMut(&[MeldSpec], usize),
    ) {
        let mut ranks: SmallVec<[Rank; 12]> = SmallVec::new();
        let take_rank = top.map(|t| t.rank());
        if let Some(r) = take_rank {
            ranks.push(r);
        }
        for r in Rank::NATURALS {
            if Some(r) != take_rank && avail.rank_count(r) >= 2 {
                ranks.push(r);
            }
        }
        let mut chosen: SmallVec<[Choice; 8]> = SmallVec::new();
        self.initial_dfs(
            avail,
            &ranks,
            take_rank.is_some(),
            0,
            avail.jokers(),
            avail.twos(),
            0,
            u32::MAX,
            &mut chosen,
            &mut |choices| {
                let used = choices.iter().map(|c| (c.n + c.j + c.t) as usize).sum();
                let mut left = *avail;
                let specs: SmallVec<[MeldSpec; 4]> = choices
                    .iter()
                    .map(|c| {
                        let mut cards = pick(&left, c.rank, c.n);
                        cards.add_n(Card::JOKER, c.j);
                        cards.add_all(&pick(&left, Rank::Two, c.t));
                        left.remove_all(&cards);
                        MeldSpec::new_meld(cards)
                    })
                    .collect();
                emit(&specs, used);
            },
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn initial_dfs(
        &self,
        avail: &CardCounts,
        ranks: &[Rank],
        with_top: bool,
        i: usize,
        jokers: u8,
        twos: u8,
        value: u32,
        smallest: u32,
        chosen: &mut SmallVec<[Choice; 8]>,
        emit: &mut dyn FnMut(&[Choice]),
    ) {
        if value >= self.minimum {
            // Any further meld could be taken away again: the batch is complete here, and it
            // is irreducible, since branches that could lose a card or meld were cut below.
            emit(chosen);
            return;
        }
        let Some(&rank) = ranks.get(i) else { return };
        let take = with_top && i == 0;
        if !take {
            self.initial_dfs(
                avail,
                ranks,
                with_top,
                i + 1,
                jokers,
                twos,
                value,
                smallest,
                chosen,
                emit,
            );
        }
        // The side has not melded, so the pile is frozen for it: the top card needs a natural
        // pair from the hand, or one natural under Rasche g.
        let min_n = if take && self.relaxed_take() { 1 } else { 2 };
        for n in min_n..=avail.rank_count(rank) {
            for j in 0..=jokers {
                for t in 0..=twos {
                    let c = Choice {
                        rank,
                        n,
                        j,
                        t,
                        take,
                    };
                    if check_group_counts(self.rules, rank, n + take as u8, j + t).is_err() {
                        continue;
                    }
                    let v = c.value();
                    let smallest = smallest.min(self.smallest_unit(&c, min_n));
                    // Once the total reaches the minimum plus the smallest part that could be
                    // taken away, the batch is reducible whatever follows.
                    if value + v >= self.minimum.saturating_add(smallest) {
                        continue;
                    }
                    chosen.push(c);
                    self.initial_dfs(
                        avail,
                        ranks,
                        with_top,
                        i + 1,
                        jokers - j,
                        twos - t,
                        value + v,
                        smallest,
                        chosen,
                        emit,
                    );
                    chosen.pop();
                }
            }
        }
    }

    /// The value of the smallest part of a meld that could be taken from an initial batch with
    /// the batch still valid: one of its cards, or the whole meld unless it holds the top card.
    fn smallest_unit(&self, c: &Choice, min_n: u8) -> u32 {
        let top = c.take as u8;
        let ok = |n: u8, w: u8| check_group_counts(self.rules, c.rank, n + top, w).is_ok();
        let mut smallest = u32::MAX;
        if c.n > min_n && ok(c.n - 1, c.j + c.t) {
            smallest = smallest.min(c.rank.value());
        }
        if c.j > 0 && ok(c.n, c.j + c.t - 1) {
            smallest = smallest.min(Rank::Joker.value());
        }
        if c.t > 0 && ok(c.n, c.j + c.t - 1) {
            smallest = smallest.min(Rank::Two.value());
        }
        if !c.take {
            smallest = smallest.min(c.value());
        }
        smallest
    }

    fn push_go_outs(&self, out: &mut Vec<Action>) {
        if self.turn.ask == Ask::No {
            return;
        }
        let hand = self.hand;
        let small = hand.len() <= 4 + hand.black_threes() as usize;
        if self.side_melded && small {
            // The final action of a turn. A split that adds cards to a meld could lay them by a
            // step first, unless the hand has two cards or fewer; a bigger hand is reached by
            // steps (see the module documentation).
            let melds = if hand.len() <= 2 {
                MeldUse::All
            } else {
                MeldUse::None
            };
            self.push_splits(out, melds, false);
        } else if !self.melded_before && !self.turn.foreign && self.concealed_possible() {
            // A concealed going out of the whole hand (R-OUT-4). When the side has melded, or
            // the hand is worth the minimum, steps reach every such going out too, so one split
            // per discard is listed, for players who lay a whole hand at once; below the
            // minimum every split is listed, as no step could start it (R-INIT-5).
            self.push_splits(out, MeldUse::Own, true);
        }
    }

    /// Lists going out with every discard (or none) and the splits of the rest into melds.
    fn push_splits(&self, out: &mut Vec<Action>, melds: MeldUse, concealed: bool) {
        let hand = self.hand;
        let discards = std::iter::once(None).chain(hand.iter_kinds().map(|(c, _)| Some(c)));
        for discard in discards {
            let mut rest = *hand;
            if let Some(d) = discard {
                rest.remove(d);
            }
            let every = !concealed || (!self.side_melded && rest.value() < self.minimum);
            self.partitions(&rest, melds, every, &mut |specs| {
                let a = Action::GoOut {
                    melds: specs.iter().copied().collect(),
                    discard,
                };
                if self.check(&a).is_ok() {
                    out.push(a);
                    return every;
                }
                true
            });
        }
    }

    /// A quick test before searching concealed going-out splits: some rank must be able to
    /// make a canasta with the wild cards held.
    fn concealed_possible(&self) -> bool {
        let hand = self.hand;
        let wilds = hand.wilds();
        let max_wilds = self.rules.max_wilds.min(wilds);
        Rank::NATURALS.iter().any(|&r| {
            let n = hand.rank_count(r);
            n >= 2 && (n + max_wilds) as usize >= crate::meld::CANASTA_LEN
        })
    }

    /// Every split of `rest` into melds of the side: all naturals of a rank go together, black
    /// threes form one meld, and wild cards are spread over the melds in every valid way.
    /// `melds` says which existing melds may take cards. `emit` returns false to stop; unless
    /// `every` split is wanted, the search also stops after a bounded number of steps.
    fn partitions(
        &self,
        rest: &CardCounts,
        melds: MeldUse,
        every: bool,
        emit: &mut dyn FnMut(&[MeldSpec]) -> bool,
    ) {
        let usable = |m: &Meld| match melds {
            MeldUse::All => true,
            MeldUse::Own => m.creator == self.seat,
            MeldUse::None => false,
        };
        let mut slots: SmallVec<[Slot; 12]> = SmallVec::new();
        let bt = rest.black_threes();
        if bt > 0 {
            if bt < 3 || bt > self.rules.black_three_meld_max {
                return;
            }
            let mut cards = CardCounts::new();
            for s in [Suit::Clubs, Suit::Spades] {
                let c = Card::new(Rank::Three, s);
                cards.add_n(c, rest.count(c));
            }
            let len = cards.len() as u8;
            slots.push(Slot::new(MeldSpec::new_meld(cards), 0, 0, len, false));
        }
        for rank in Rank::NATURALS {
            let n = rest.rank_count(rank);
            if n == 0 {
                continue;
            }
            let cards = pick(rest, rank, n);
            match self.group_of(rank) {
                Some(id) if !usable(&self.melds[id]) => return,
                Some(id) => {
                    let meld = &self.melds[id];
                    let base = meld.cards.rank_count(rank) + n;
                    let cap = self.wild_room(rank, base, meld.wilds());
                    let len = (meld.len() + n as usize) as u8;
                    let spec = MeldSpec::add_to(id as u8, cards);
                    slots.push(Slot::new(spec, 0, cap, len, meld.is_canasta()));
                }
                None if n >= 2 => {
                    let need = 3u8.saturating_sub(n);
                    let cap = self.wild_room(rank, n, 0);
                    if cap < need {
                        return;
                    }
                    slots.push(Slot::new(MeldSpec::new_meld(cards), need, cap, n, false));
                }
                None => return,
            }
        }
        if rest.wilds() > 0 {
            for (id, meld) in self.melds.iter().enumerate() {
                if let Some(rank) = meld.rank()
                    && usable(meld)
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
        // Suffix sums of the wild cards the remaining slots need and can hold, to cut dead
        // branches early.
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
        let wanted = self.rules.canastas_to_go_out.saturating_sub(have);
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
            twos: pick(rest, Rank::Two, rest.twos()),
            budget: (!every).then_some(20_000),
            wanted,
            wilds: smallvec::smallvec![(0, 0); slots.len()],
            emit,
        };
        self.spread_wilds(&mut search, 0, rest.jokers(), rest.twos(), 0);
    }

    /// How many more wild cards a group of `rank` with `naturals` and `wilds` may take.
    fn wild_room(&self, rank: Rank, naturals: u8, wilds: u8) -> u8 {
        let mut room = 0;
        while check_group_counts(self.rules, rank, naturals.max(2), wilds + room + 1).is_ok() {
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
                let new_canasta = !canasta && (len + j + t) as usize >= crate::meld::CANASTA_LEN;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::card::parse_cards;

    fn hand(text: &str) -> CardCounts {
        CardCounts::from_cards(parse_cards(text).unwrap())
    }

    fn ctx<'a>(rules: &'a Rules, hand: &'a CardCounts, pile: &'a [Card]) -> Ctx<'a> {
        Ctx {
            rules,
            seat: Seat(0),
            phase: Phase::Draw,
            hand,
            melds: &[],
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

    // R-PILE-8: a play can never meet an empty pile at a draw (every turn ends with a discard
    // or ends the deal), but the check still answers it.
    #[test]
    fn r_pile_8_empty_pile_cannot_be_taken() {
        let rules = Rules::official(4).unwrap();
        let h = hand("KS KH QS");
        let c = ctx(&rules, &h, &[]);
        let take = Action::TakePile {
            top: TopMeld {
                target: MeldTarget::New,
                cards: hand("KS KH"),
            },
            melds: MeldBatch::new(),
        };
        assert_eq!(c.check(&take).unwrap_err().code(), "PILE_EMPTY");
        let mut out = Vec::new();
        c.enumerate(&mut out);
        assert_eq!(out, vec![Action::DrawStock]);
    }

    // The enumerator's fast paths agree with the full check on every action they list.
    #[test]
    fn listed_takes_pass_the_full_check() {
        let rules = Rules::official(4).unwrap();
        let h = hand("KS KH Jk 2C 5D");
        let pile = parse_cards("9C 4S KD").unwrap();
        let c = ctx(&rules, &h, &pile);
        let mut out = Vec::new();
        c.enumerate(&mut out);
        let takes = out
            .iter()
            .filter(|a| matches!(a, Action::TakePile { .. }))
            .count();
        assert_eq!(takes, 3, "{out:?}");
        for a in &out {
            assert_eq!(c.check(a), Ok(()), "{a}");
        }
    }
}
