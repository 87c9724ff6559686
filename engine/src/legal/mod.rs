//! Legality: the one place that decides what the player to act may do.
//!
//! The same code answers "is this action legal" ([`LegalChoices::check`]), lists the legal
//! actions ([`LegalChoices::actions`]), summarises them for a prompt ([`LegalChoices::summary`])
//! and guards [`crate::Game::apply`]. It reads only public facts and the acting seat's own hand,
//! so it runs the same on the referee's game and on a seat's [`crate::View`].
//!
//! # Layout: one place for each rule
//!
//! - `predicates.rs`: the rules of a turn, one predicate each. The checks call them and turn
//!   their answer into a [`RuleError`]; the searches call the same predicates to skip what the
//!   checks would refuse. A rule change is an edit there.
//! - This file: the checks, built from the predicates ([`LegalChoices::check`]), and the
//!   summary of a prompt.
//! - `enumerate.rs`: the listing in canonical form (below): draws, takes, melds, discards.
//! - `going_out.rs`: "can I go out now?", answered exactly by a search over the ways to lay
//!   the whole hand, and the quick tests every going-out search shares (the discards a going
//!   out may end with, the canastas within reach); `going_out/list.rs`: the going outs the
//!   listing shows. The two searches answer different questions (one going out of any hand,
//!   found fast; every canonical going out of a small hand, or the concealed ones), so they
//!   differ in how they walk; both hand every candidate to the check, which stays the judge, and
//!   the property tests compare them with a brute force.
//!
//! Where each rule is decided (the ids are those of `docs/rules.md`):
//!
//! | Rule | Where |
//! |---|---|
//! | R-MELD-1, R-MELD-5 to R-MELD-7, R-SAMBA-3, R-SAMBA-4, R-SAMBA-9: what a meld is, what may be added to one | [`crate::meld`] (`check_new`, `check_addition`, `check_growth`, `check_group_counts`, `check_shape`; the sizes `MELD_MIN_LEN`, `GROUP_MIN_NATURALS`, `CANASTA_LEN`) |
//! | R-MELD-2: one group of a rank (Samba and Swiss: several) | `one_group_per_rank`, `may_start_group` |
//! | R-MELD-3: own melds only | a position holds its side's melds only (`Ctx::melds`); `check_batch` refuses any other number |
//! | R-MELD-6, R-SAMBA-7: black threes, only going out, in one meld | `check_batch` (this file); `black_three_meld` for the searches |
//! | R-INIT-1 to R-INIT-4: the initial meld's minimum | `reaches_minimum`, `check_minimum` |
//! | R-INIT-5, R-OUT-4, R-SAMBA-7: the minimum of a concealed going out | `check_out_minimum` |
//! | R-TURN-1, R-STOCK-1: drawing | `check_draw` |
//! | R-TURN-2: keeping a card to discard | `keeps_a_card`, `could_go_out_after` |
//! | R-TURN-3, R-RED-6: no red three discarded | `discardable` |
//! | R-PILE-1, R-TURN-4: what blocks the pile, the stop rules of Wiener and Swiss | `stop_card`, `discard_blocks` (the game asks it at each discard), `top_blocks` |
//! | R-PILE-2: what freezes the pile, and for whom | `freezes_pile` (the game asks it), `PileFacts::frozen` |
//! | R-PILE-1, R-PILE-6, R-PILE-8: whether the pile may be taken at all | `open_pile` |
//! | R-PILE-3, R-PILE-4, R-SAMBA-5, Rasche g: the cards that take the pile | `take_way`, `needs_pair` |
//! | R-PILE-5, R-RED-3: the cards a take leaves in hand | `cards_after_take`, `laid_from_pile` (the game asks it at each take) |
//! | R-PILE-5 (Swiss, `meld_after_take=false`): after a take, only naturals onto canastas | `may_lay_after_take`, `check_after_take` |
//! | R-STOCK-1: declining, and when the pile must be taken | `check_decline`, `forced_top` (this file) |
//! | R-OUT-1, R-SAMBA-7: canastas needed, going out with or without a discard | `out_needs`, `check_out_canastas`, `may_go_out_without_discard`, `discard_is_going_out` |
//! | R-OUT-3: asking the partner, and his answer | `check_ask` (this file), `check_partner_lets_out` |
//! | R-OUT-4: a concealed going out | `concealed_so_far`, `went_out_concealed`, `own_canasta`; its bonus in [`crate::score`] |
//!
//! Every predicate without a path above is in `predicates.rs`.
//!
//! # Canonical actions
//!
//! Many legal actions have the same effect, and a turn's melds can be laid in one batch or in
//! several. The enumerator lists each effect once, in *canonical form*, such that every legal
//! turn can be played as a sequence of listed actions with the same result:
//!
//! - where suits change nothing (the rules have no sequences), cards of a rank are taken from
//!   the lowest suits first; with sequences, every distinct choice of suits is listed;
//! - once the side has melded, a meld action is one step: a new meld of exactly three cards, or
//!   one card added to a meld; bigger melds are built by further steps in the same turn;
//! - an initial meld (from the hand, or with the pile) is a batch that reaches the minimum and
//!   is *irreducible*: taking away any card or meld would fall below the minimum; more cards
//!   follow as steps;
//! - going out lists every split of the remaining hand into melds, with or without a discard,
//!   when the hand is small enough that no step could come first (at most four cards besides
//!   black threes), and, for a player who may still go out concealed, concealed going outs of
//!   his whole hand: every one of them where no step could start it (below the minimum, which
//!   a concealed going out need not reach), and one per discard otherwise. In such a split the
//!   natural cards of a rank form one meld.
//!
//! The list is complete for playing, not for asking: a going out of a bigger hand is reached by
//! listed steps first. Whether going out is possible *now* is answered exactly by
//! [`LegalChoices::first_go_out`] and [`Summary::can_go_out`], which search every way to lay
//! the whole hand.

mod enumerate;
mod going_out;
mod predicates;

use enumerate::Sink;
pub(crate) use predicates::{
    discard_blocks, freezes_pile, laid_from_pile, own_canasta, stop_card, went_out_concealed,
};
use predicates::{discardable, keeps_a_card};

use smallvec::SmallVec;

#[cfg(test)]
use crate::action::MeldBatch;
use crate::action::{Action, MeldSpec, MeldTarget, TopMeld};
use crate::card::{Card, CardCounts, Rank, Suit};
use crate::error::RuleError;
use crate::game::Phase;
use crate::meld::{
    CanastaKind, GROUP_MIN_NATURALS, MELD_MIN_LEN, Meld, MeldId, MeldKind, canasta_of,
    check_addition, check_fits, check_new, kind_of_new,
};
use crate::rules::Rules;
use crate::stamp::{Lineage, Stamp};
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
    /// Natural canastas (and sambas) of the side afterwards.
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
#[non_exhaustive]
pub struct Summary {
    /// The seat that must act.
    pub seat: Option<Seat>,
    /// Drawing from the stock is legal.
    pub can_draw: bool,
    /// Each way the pile may be taken.
    pub pile_takes: Vec<TakeOption>,
    /// The stock is empty and the pile must be taken (R-STOCK-1): the top card fits a meld,
    /// or, with `forcing_frozen`, the pile may be taken at all.
    pub must_take_pile: bool,
    /// Declining the pile (ending the deal) is legal.
    pub can_decline_pile: bool,
    /// Ranks that can start a new group now.
    pub meld_ranks: Vec<Rank>,
    /// Suits that can start a new sequence now (R-SAMBA-3).
    pub sequence_suits: Vec<Suit>,
    /// A meld of wild cards can be started now (wild canastas).
    pub can_meld_wilds: bool,
    /// Melds of the side that can take a card from the hand now.
    pub add_to_melds: Vec<MeldId>,
    /// Discarding is legal.
    pub can_discard: bool,
    /// Some legal going out exists now, laying the whole hand in this action (exact, whatever
    /// the size of the hand; the canonical list shows going outs of small hands only).
    pub can_go_out: bool,
    /// Asking the partner is legal.
    pub can_ask_partner: bool,
    /// The seat must answer its partner.
    pub must_answer: bool,
    /// Points the side's initial meld must still reach (0 once the side has melded).
    pub minimum_remaining: u32,
    /// The search for the ways to take the pile and for the melds ran to its end: false only
    /// for a huge hand before its side's initial meld, where `pile_takes`, `meld_ranks`,
    /// `sequence_suits` and `can_meld_wilds` may then miss entries (every entry they hold is
    /// legal; check an action to be sure). The flags are exact.
    pub complete: bool,
}

/// An action a bot chose, with the proof, when it has one, that the referee's check passed it
/// in the game's current state ([`LegalChoices::checked`] on the choices of
/// [`crate::Game::legal`]). [`crate::Game::apply_choice`] trusts the proof only for the very
/// state and seat it was made for, and checks the action as [`crate::Game::apply`] does
/// otherwise: a choice can save the second check of an action, never let an illegal one
/// through. Its action cannot be changed once checked.
#[derive(Clone, Debug)]
pub struct Choice {
    action: Action,
    /// The seat whose choices checked the action.
    pub(crate) seat: Seat,
    /// The game state the check was made in; none for an unchecked action or one checked on
    /// a view's choices.
    pub(crate) proof: Option<Stamp>,
}

impl Choice {
    /// The action.
    pub fn action(&self) -> &Action {
        &self.action
    }

    /// The action, without its proof.
    #[must_use]
    pub fn into_action(self) -> Action {
        self.action
    }
}

impl From<Action> for Choice {
    /// An action without proof: the referee checks it when it is applied.
    fn from(action: Action) -> Choice {
        Choice {
            action,
            seat: Seat(0),
            proof: None,
        }
    }
}

/// The legal choices of the seat to act: checks, the full enumeration and the summary.
#[derive(Clone, Copy, Debug)]
pub struct LegalChoices<'a> {
    ctx: Ctx<'a>,
    /// The state of the game these choices were read from, when they were read from the
    /// referee's [`crate::Game`] itself (never from a view, which its holder may edit): a
    /// [`Choice`] checked here is proof for that state only.
    game: Option<(&'a Lineage, u64)>,
}

impl<'a> LegalChoices<'a> {
    /// Choices read from a view: what they check proves nothing to the referee.
    pub(crate) fn new(ctx: Ctx<'a>) -> Self {
        LegalChoices { ctx, game: None }
    }

    /// Choices read from the referee's game, in the state `state` of its lineage.
    pub(crate) fn of_game(ctx: Ctx<'a>, lineage: &'a Lineage, state: u64) -> Self {
        LegalChoices {
            ctx,
            game: Some((lineage, state)),
        }
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

    /// Checks an action like [`LegalChoices::check`] and, if it is legal, keeps it as a
    /// [`Choice`] that remembers the check: where these choices were read from a
    /// [`crate::Game`] ([`crate::Game::legal`]), [`crate::Game::apply_choice`] then applies it
    /// without checking it a second time, as long as the game is still in the same state.
    #[inline]
    pub fn checked(&self, action: Action) -> Result<Choice, RuleError> {
        self.ctx.check(&action)?;
        Ok(Choice {
            action,
            seat: self.ctx.seat,
            proof: self.game.map(|(lineage, state)| Stamp::new(lineage, state)),
        })
    }

    /// Appends every legal action in canonical form (see the module documentation) to `out`.
    ///
    /// The list has no bound: a hand of sixty cards before its side's initial meld has
    /// millions of irreducible initial melds. Where the hand comes from someone else (a
    /// server's prompt), list with [`LegalChoices::actions_up_to`].
    pub fn actions(&self, out: &mut Vec<Action>) {
        self.ctx
            .enumerate(&mut Sink::list(out, usize::MAX, u64::MAX));
    }

    /// Appends the legal actions in canonical form, as [`LegalChoices::actions`] does, until
    /// `max` are listed or [`LIST_STEPS`] search steps are spent, whichever comes first: the
    /// work is bounded whatever the hand. True if the list is complete; false if it was cut
    /// (the actions listed are legal, in the order of the full list).
    pub fn actions_up_to(&self, out: &mut Vec<Action>, max: usize) -> bool {
        let mut sink = Sink::list(out, max, LIST_STEPS);
        self.ctx.enumerate(&mut sink);
        sink.complete()
    }

    /// "Can I go out now?": a legal going out of the whole hand, `Some` exactly when one
    /// exists, whatever the size of the hand (the canonical list of [`LegalChoices::actions`]
    /// shows going outs of small hands only). It is found by a search over the ways to lay the
    /// hand, judged by [`LegalChoices::check`]; which one it is, where there are several, is
    /// the search's first (going out without a discard before discards of low ranks).
    #[must_use = "a search with no effect but its answer"]
    pub fn first_go_out(&self) -> Option<Action> {
        self.ctx.find_go_out()
    }

    /// True if some going out is legal now (see [`LegalChoices::first_go_out`]).
    #[must_use = "a search with no effect but its answer"]
    pub fn can_go_out(&self) -> bool {
        self.first_go_out().is_some()
    }

    /// Every legal action in canonical form (unbounded, see [`LegalChoices::actions`]).
    #[must_use = "a search with no effect but its answer"]
    pub fn to_vec(&self) -> Vec<Action> {
        let mut v = Vec::new();
        self.actions(&mut v);
        v
    }

    /// The compact description of the choices, for a prompt, found without listing them: the
    /// flags are decided by the checks themselves, and the ways to take the pile and the melds
    /// that may be started or added to by a search that spends at most [`SUMMARY_STEPS`]
    /// steps. Where that search is cut short (a huge hand before its side's initial meld),
    /// [`Summary::complete`] is false and the lists of takes and melds may miss entries; every
    /// entry they hold is legal.
    #[must_use = "a search with no effect but its answer"]
    pub fn summary(&self) -> Summary {
        let c = &self.ctx;
        let mut s = Summary {
            seat: Some(c.seat),
            minimum_remaining: if c.side_melded { 0 } else { c.minimum },
            complete: true,
            ..Summary::default()
        };
        let rank = c.pile.last().map(|t| t.rank());
        // Before the side's initial meld, once every rank, suit and wild meld the hand could
        // start has been seen, nothing more can be learnt from the melds: the search stops.
        let unmelded = c.phase == Phase::Play && !c.side_melded;
        let ranks_possible = Rank::NATURALS
            .iter()
            .filter(|&&r| c.hand.rank_count(r) >= GROUP_MIN_NATURALS)
            .count();
        // Without sequences no suit can start one: the stop must not wait for them.
        let suits_possible = if c.rules.sequences {
            Suit::ALL.len()
        } else {
            0
        };
        let wilds_possible = c.rules.wild_canastas && c.hand.wilds() as usize >= MELD_MIN_LEN;
        let mut fold = |a: &Action| {
            match a {
                Action::TakePile { top, melds } => {
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
                Action::Meld { melds } => {
                    for m in melds {
                        match m.target {
                            MeldTarget::New => match kind_of_new(c.rules, &m.cards) {
                                Ok(MeldKind::Group(r)) if !s.meld_ranks.contains(&r) => {
                                    s.meld_ranks.push(r)
                                }
                                Ok(MeldKind::Sequence(suit))
                                    if !s.sequence_suits.contains(&suit) =>
                                {
                                    s.sequence_suits.push(suit)
                                }
                                Ok(MeldKind::Wild) => s.can_meld_wilds = true,
                                _ => {}
                            },
                            MeldTarget::Existing(id) => {
                                if !s.add_to_melds.contains(&id) {
                                    s.add_to_melds.push(id);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
            !(unmelded
                && s.meld_ranks.len() == ranks_possible
                && s.sequence_suits.len() == suits_possible
                && s.can_meld_wilds == wilds_possible)
        };
        let mut sink = Sink::fold(&mut fold, SUMMARY_STEPS);
        // The suits of a group tell nothing the summary says.
        sink.canonical_suits = true;
        match c.phase {
            Phase::Draw => c.push_takes(&mut sink),
            Phase::Play => c.push_melds(&mut sink),
            Phase::Answer | Phase::Over => {}
        }
        let complete = !sink.exhausted();
        s.complete = complete;
        match c.phase {
            Phase::Draw => {
                s.can_draw = c.check_draw().is_ok();
                s.can_decline_pile = c.check_decline().is_ok();
            }
            Phase::Play => {
                s.can_ask_partner = c.check_ask().is_ok();
                s.can_discard = !c.discard_is_going_out();
                // Exact for every hand (the list shows going outs of small hands only).
                s.can_go_out = c.find_go_out().is_some();
            }
            Phase::Answer => s.must_answer = true,
            Phase::Over => {}
        }
        // R-STOCK-1: no stock to draw from, no declining, and some way to take the pile.
        s.must_take_pile = c.phase == Phase::Draw
            && !s.can_draw
            && !s.pile_takes.is_empty()
            && !s.can_decline_pile;
        s.meld_ranks.sort();
        s.sequence_suits.sort();
        s.add_to_melds.sort();
        s
    }
}

/// Search steps [`LegalChoices::actions_up_to`] may spend: far more than any hand of a normal
/// deal needs (a few thousand), a bound for a huge one (a few milliseconds of work).
pub const LIST_STEPS: u64 = 100_000;

/// Search steps [`LegalChoices::summary`] may spend on the ways to take the pile and on the
/// melds (see [`LIST_STEPS`]).
pub const SUMMARY_STEPS: u64 = 100_000;

/// Search steps spent at most on whether the pile may be taken at all, where that forces the
/// take (R-STOCK-1 with `forcing_frozen`): the search stops at the first take it finds.
const FORCED_STEPS: u64 = 100_000;

/// Side canastas: (all, natural or samba).
fn canasta_counts(melds: &[Meld]) -> (u8, u8) {
    melds
        .iter()
        .fold((0, 0), |(all, nat), m| match m.canasta() {
            Some(k) => (all + 1, nat + k.is_natural() as u8),
            None => (all, nat),
        })
}

fn single(card: Card) -> CardCounts {
    let mut c = CardCounts::new();
    c.add(card);
    c
}

fn plus(a: &CardCounts, b: &CardCounts) -> CardCounts {
    let mut c = *a;
    c.add_all(b);
    c
}

impl<'a> Ctx<'a> {
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
            Action::DrawStock => self.check_draw(),
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
                if let Some(k) = k {
                    canastas = canastas.wrapping_add_signed(delta);
                    if k.is_natural() {
                        natural_canastas = natural_canastas.wrapping_add_signed(delta);
                    }
                }
            }
        };
        let one_per_rank = self.one_group_per_rank();
        for (i, s) in specs.iter().enumerate() {
            match s.target {
                MeldTarget::New => {
                    let kind = check_new(self.rules, &s.cards)?;
                    if kind == MeldKind::BlackThrees && !going_out {
                        return Err(RuleError::BlackThreesOnlyGoingOut);
                    }
                    if let MeldKind::Group(rank) = kind
                        && !self.may_start_group(rank)
                        && let Some(id) = self.group_of(rank)
                    {
                        return Err(RuleError::RankAlreadyMelded {
                            rank,
                            meld: id as u8,
                        });
                    }
                    let unique = kind == MeldKind::BlackThrees
                        || (one_per_rank && matches!(kind, MeldKind::Group(_)));
                    if unique
                        && specs[..i].iter().any(|p| {
                            p.target == MeldTarget::New
                                && kind_of_new(self.rules, &p.cards).ok() == Some(kind)
                        })
                    {
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
        let top = self.open_pile()?;
        if let Some((card, held)) = self.hand.first_missing(&top_use.cards) {
            return Err(RuleError::CardNotHeld { card, held });
        }
        let rank = top.rank();
        let target = match top_use.target {
            MeldTarget::New => None,
            MeldTarget::Existing(id) => {
                Some(self.melds.get(id as usize).ok_or(RuleError::NoSuchMeld {
                    meld: id,
                    count: self.melds.len() as u8,
                })?)
            }
        };
        let kind = target.map_or(MeldKind::Group(rank), |m| m.kind);
        check_fits(kind, &top_use.cards)?;
        let naturals = top_use.cards.rank_count(rank);
        self.take_way(&self.pile_facts(top), target, naturals)?;
        let mut specs: SmallVec<[MeldSpec; 4]> = SmallVec::new();
        specs.push(MeldSpec {
            target: top_use.target,
            cards: plus(&top_use.cards, &single(top)),
        });
        specs.extend_from_slice(extras);
        let mut avail = *self.hand;
        avail.add(top);
        let info = self.check_batch(&avail, &specs, false)?;
        // R-INIT-3: the top card and the hand cards laid with it count, the rest of the pile
        // never does.
        self.check_minimum(&info.cards)?;
        let left = self.cards_after_take(info.cards.len() - 1);
        if !keeps_a_card(left) && !self.could_go_out_after(left, &info) {
            return Err(RuleError::MustKeepCard {
                left: left as u8,
                could_go_out: false,
            });
        }
        Ok(left)
    }

    #[inline]
    fn check_decline(&self) -> Result<(), RuleError> {
        if self.stock_len > 0 {
            return Err(RuleError::StockNotEmpty);
        }
        if let Some(top) = self.forced_top() {
            return Err(RuleError::MustTakePile { top });
        }
        Ok(())
    }

    /// With the stock empty, the top card if the pile must be taken (R-STOCK-1): when the top
    /// card can be added to a meld of the side, or, with `forcing_frozen` (seeds 000, 002),
    /// when the pile may be taken at all.
    fn forced_top(&self) -> Option<Card> {
        let top = *self.pile.last()?;
        if self.rules.forcing_frozen {
            // The enumerator lists a take whenever one is legal (its canonical form): the
            // first one listed answers. A search cut short by its budget (a huge hand before
            // the side's initial meld) found none, and the pile is not forced.
            let mut found = false;
            let mut first = |_: &Action| {
                found = true;
                false
            };
            self.push_takes(&mut Sink::fold(&mut first, FORCED_STEPS));
            return found.then_some(top);
        }
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
        self.check_after_take(melds)?;
        let info = self.check_batch(self.hand, melds, false)?;
        self.check_minimum(&info.cards)?;
        let left = self.hand.len() - info.cards.len();
        if !keeps_a_card(left) {
            return Err(RuleError::MustKeepCard {
                left: left as u8,
                could_go_out: self.could_go_out_after(left, &info),
            });
        }
        Ok(())
    }

    fn check_discard(&self, card: Card) -> Result<(), RuleError> {
        if !discardable(card) {
            return Err(RuleError::RedThree);
        }
        if self.hand.count(card) == 0 {
            return Err(RuleError::CardNotHeld { card, held: 0 });
        }
        if self.discard_is_going_out() {
            let (c, n) = canasta_counts(self.melds);
            return Err(RuleError::DiscardLastCard {
                could_go_out: self.go_out_allowed(c, n).is_ok(),
            });
        }
        Ok(())
    }

    /// Checks going out; returns the canastas of the side afterwards.
    fn check_go_out(&self, melds: &[MeldSpec], discard: Option<Card>) -> Result<u8, RuleError> {
        self.check_partner_lets_out()?;
        if discard.is_none() && !self.may_go_out_without_discard() {
            return Err(RuleError::GoOutNeedsDiscard);
        }
        self.check_after_take(melds)?;
        let info = self.check_batch(self.hand, melds, true)?;
        let mut rest = *self.hand;
        rest.remove_all(&info.cards);
        if let Some(d) = discard {
            if !discardable(d) {
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
        self.check_out_minimum(&info.cards)?;
        self.check_out_canastas(info.canastas, info.natural_canastas)?;
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
        let out = LegalChoices::new(c).to_vec();
        assert_eq!(out, vec![Action::DrawStock]);
    }

    // `first_go_out` offers a legal going out whenever the full listing holds one (and more
    // often: the listing shows small hands only; the search is checked against a brute force
    // in `tests/properties.rs`), and the summary says the same. Greedy bots reach many
    // going-out positions under every preset.
    #[test]
    fn first_go_out_agrees_with_the_listing() {
        use crate::bot::{Bot, GreedyBot};
        use crate::game::{Game, Setup};
        use crate::rules::{Preset, RuleSpec};
        use crate::view::Viewer;
        let mut found = 0;
        for (preset, players) in [
            (crate::Preset::Official, 2),
            (Preset::Official, 4),
            (Preset::Official, 6),
            (Preset::Wiener, 4),
            (Preset::Samba, 4),
            (Preset::Swiss, 4),
        ] {
            for seed in 0..3 {
                let setup = Setup::seeded(RuleSpec::new(preset, players), seed);
                let mut game = Game::new(&setup).unwrap();
                let mut bot = GreedyBot::new();
                while let Some(seat) = game.to_act() {
                    let legal = game.legal().unwrap();
                    let listed = legal
                        .to_vec()
                        .into_iter()
                        .find(|a| matches!(a, Action::GoOut { .. }));
                    let first = legal.first_go_out();
                    if listed.is_some() {
                        assert!(first.is_some(), "{preset} seed {seed}: {listed:?}");
                    }
                    if let Some(a) = &first {
                        assert_eq!(legal.check(a), Ok(()), "{preset} seed {seed}: {a}");
                    }
                    assert_eq!(legal.summary().can_go_out, first.is_some());
                    found += listed.is_some() as u32;
                    let view = game.view(Viewer::Seat(seat));
                    let action = bot.choose(&view, &view.legal().unwrap());
                    game.apply(seat, &action).unwrap();
                }
            }
        }
        assert!(found > 50, "only {found} positions with a going out");
    }

    // The enumerator's fast paths agree with the full check on every action they list.
    #[test]
    fn listed_takes_pass_the_full_check() {
        let rules = Rules::official(4).unwrap();
        let h = hand("KS KH Jk 2C 5D");
        let pile = parse_cards("9C 4S KD").unwrap();
        let c = ctx(&rules, &h, &pile);
        let out = LegalChoices::new(c).to_vec();
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
