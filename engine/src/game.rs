//! The authoritative game: the deal, the turn and the match as a state machine.
//!
//! [`Setup`] is what a game is created from (rules, seed or card orders); [`Game::new`]
//! validates it once. [`Game::apply`] checks an action through [`crate::legal`] and then carries
//! it out, returning the events it caused; a refused action changes nothing.

use std::fmt;

use smallvec::SmallVec;

use crate::action::{Action, MeldSpec, MeldTarget, TopMeld};
use crate::card::{Card, CardCounts, Rank, Suit, pack};
use crate::error::RuleError;
use crate::event::{DealFinish, DealStart, Event, Placed, PlacedList, RedThreeSource};
use crate::legal::{
    Ask, Choice, Ctx, LegalChoices, TurnFlags, discard_blocks, freezes_pile, laid_from_pile,
    own_canasta, stop_card, went_out_concealed,
};
use crate::meld::{Meld, MeldKind, kind_of_new};
use crate::rng::Xoshiro256;
use crate::rules::{RuleSpec, Rules, RulesError};
use crate::score::{DealEnd, DealFacts, DealScore, score_deal};
use crate::stamp::{Lineage, NO_STATE, Stamp};
use crate::table::{Chairs, MAX_SEATS, Seat, Side, Table};
use crate::view::View;

/// The cards of a seat the table does not have.
static NO_CARDS: CardCounts = CardCounts::new();

/// What the game waits for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[non_exhaustive]
pub enum Phase {
    /// The player to act must draw from the stock or take the pile (or, with the stock empty,
    /// take or decline the pile).
    #[default]
    Draw,
    /// The player has drawn: he may meld, ask his partner, and must discard or go out.
    Play,
    /// The player asked "may I go out?": his partner must answer.
    Answer,
    /// The match is over.
    Over,
}

/// What a game is created from: unvalidated.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Setup {
    /// The rule set.
    pub rules: RuleSpec,
    /// The seed of the shuffles and of the first dealer (R-DEAL-4).
    pub seed: u64,
    /// Prearranged decks: deal `k` uses `card_orders[k]` if present, the seeded shuffle
    /// otherwise. A deck lists the whole pack top first: cards are dealt one at a time
    /// clockwise from the dealer's left, the next card starts the pile, the rest is the stock.
    pub card_orders: Vec<Vec<Card>>,
    /// The first dealer; drawn from the seed if `None` (R-DEAL-1).
    pub first_dealer: Option<Seat>,
    /// Scores the sides start with, by side (empty: all 0), to continue a match or set a puzzle.
    pub start_scores: Vec<i32>,
}

impl Setup {
    /// A seeded game of these rules.
    pub fn seeded(rules: RuleSpec, seed: u64) -> Setup {
        Setup {
            rules,
            seed,
            ..Setup::default()
        }
    }
}

/// Why a game could not be created.
///
/// Not `#[non_exhaustive]`, unlike the engine's other enums that grow: each variant is a reason
/// of the protocol (`canasta_proto::reason::Reason`), which maps them exhaustively, so that a
/// new one does not compile until the wire names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The rule set was refused.
    Rules(RulesError),
    /// A prearranged deck is not the pack.
    CardOrder {
        /// The deal it is for.
        deal: usize,
        /// What is wrong.
        why: String,
    },
    /// The first dealer is not a seat that plays the first deal.
    FirstDealer {
        /// The seat given.
        seat: Seat,
    },
    /// Start scores are given, but not one per side.
    StartScores {
        /// Scores given.
        given: usize,
        /// Sides in the game.
        sides: u8,
    },
    /// A start score beyond [`MAX_START_SCORE`] either way.
    StartScoreRange {
        /// The score given.
        score: i32,
    },
}

/// The largest start score, either way: far beyond any match, and far enough from the limits
/// of `i32` that adding deal scores can never overflow.
pub const MAX_START_SCORE: i32 = 1_000_000;

impl SetupError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            SetupError::Rules(e) => e.code(),
            SetupError::CardOrder { .. } => "BAD_CARD_ORDER",
            SetupError::FirstDealer { .. } => "BAD_FIRST_DEALER",
            SetupError::StartScores { .. } | SetupError::StartScoreRange { .. } => {
                "BAD_START_SCORES"
            }
        }
    }
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Rules(e) => e.fmt(f),
            SetupError::CardOrder { deal, why } => {
                write!(f, "the card order of deal {deal} is not the pack: {why}")
            }
            SetupError::FirstDealer { seat } => write!(
                f,
                "seat {} cannot deal first: name a seat that plays the first deal",
                seat.0
            ),
            SetupError::StartScores { given, sides } => write!(
                f,
                "{given} start scores are given for {sides} sides: give one per side, or none"
            ),
            SetupError::StartScoreRange { score } => write!(
                f,
                "start score {score} is out of range: give scores from -{MAX_START_SCORE} to {MAX_START_SCORE}"
            ),
        }
    }
}

impl std::error::Error for SetupError {}

impl From<RulesError> for SetupError {
    fn from(e: RulesError) -> Self {
        SetupError::Rules(e)
    }
}

/// The state of the deal in progress.
#[derive(Clone, Debug)]
pub(crate) struct Deal {
    pub chairs: Chairs,
    /// Chair of the dealer.
    pub dealer: u8,
    /// Chair of the player whose turn it is.
    pub turn: u8,
    pub hands: [CardCounts; MAX_SEATS],
    /// Red threes laid, per seat.
    pub red_threes: [CardCounts; MAX_SEATS],
    /// Top card last.
    pub stock: Vec<Card>,
    /// Top card last.
    pub pile: Vec<Card>,
    /// The pile holds a wild card or a red three (R-PILE-2).
    pub pile_frozen: bool,
    /// The top card blocks the pile (R-PILE-1, R-TURN-4).
    pub pile_blocked: bool,
    /// Per side.
    pub melds: [Vec<Meld>; MAX_SEATS],
    /// Per side: the initial meld is made (R-INIT-4).
    pub side_melded: [bool; MAX_SEATS],
    /// Per seat: has had a turn this deal (red threes are laid at the first, R-RED-1).
    pub had_turn: [bool; MAX_SEATS],
    /// Per seat: melded in an earlier turn of this deal (R-OUT-4).
    pub melded_before: [bool; MAX_SEATS],
    pub turn_flags: TurnFlags,
    /// Per side, points lost (R-OUT-3).
    pub penalties: [i32; MAX_SEATS],
    /// Per side, the initial-meld minimum of this deal (R-INIT-1).
    pub minimums: [u32; MAX_SEATS],
    /// Per seat, its partner in this deal (as `Table::partner` says), looked up once per deal:
    /// every check asks for it.
    pub partners: [Option<Seat>; MAX_SEATS],
    /// Per side, the state in which its melds last changed (see [`crate::stamp`]).
    pub meld_stamps: [u64; MAX_SEATS],
    /// Per seat, the cards every seat knows to be in its hand ([`Game::known`]).
    pub known: [CardCounts; MAX_SEATS],
    /// Per seat, the pile's top card it passed at its last draw ([`Game::passed`]).
    pub passed: [CardCounts; MAX_SEATS],
    /// Per seat, the cards it discarded this deal ([`Game::discarded`]).
    pub discarded: [CardCounts; MAX_SEATS],
}

/// The least pile whose pass [`Game::passed`] records: players often keep a pair rather
/// than take a pile of one or two cards with it, so passing one says little.
const PASS_PILE: usize = 3;

/// Counts `card` in a seat's public record of its discards ([`Game::discarded`]),
/// up to the copies of it the pack holds: a card may pass through the pile more than once,
/// and a record longer than the pack would tell nothing more (and fit no message).
fn record(rules: &Rules, into: &mut CardCounts, card: Card) {
    let copies = if card == Card::JOKER {
        rules.jokers
    } else {
        rules.decks
    };
    if into.count(card) < copies {
        into.add(card);
    }
}

/// A game in progress: the referee's complete state.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    table: Table,
    seed: u64,
    card_orders: Vec<Vec<Card>>,
    first_dealer: u8,
    deal_no: u32,
    scores: [i32; MAX_SEATS],
    history: Vec<DealScore>,
    /// The game and its clones (see [`crate::stamp`]): the rules never change within it.
    lineage: Lineage,
    /// The number of the game's state in its lineage: new whenever an action changes it. A
    /// [`Choice`] checked in this state is applied without a second check.
    state: u64,
    /// The state in which `history` last changed.
    history_stamp: u64,
    winner: Option<Side>,
    phase: Phase,
    pub(crate) d: Deal,
}

impl Game {
    /// Creates a game and deals the first deal.
    pub fn new(setup: &Setup) -> Result<Game, SetupError> {
        Game::start(setup).map(|(g, _)| g)
    }

    /// Creates a game, deals the first deal and returns the events of the deal's start.
    pub fn start(setup: &Setup) -> Result<(Game, Vec<Event>), SetupError> {
        let rules = Rules::new(&setup.rules)?;
        let table = Table::new(&rules);
        // Counted only for prearranged decks: most games have none, and are created often.
        let expected = if setup.card_orders.is_empty() {
            CardCounts::new()
        } else {
            CardCounts::from_cards(pack(rules.decks, rules.jokers))
        };
        for (deal, order) in setup.card_orders.iter().enumerate() {
            check_card_order(&expected, order)
                .map_err(|why| SetupError::CardOrder { deal, why })?;
        }
        let mut scores = [0; MAX_SEATS];
        if !setup.start_scores.is_empty() {
            if setup.start_scores.len() != table.sides() as usize {
                return Err(SetupError::StartScores {
                    given: setup.start_scores.len(),
                    sides: table.sides(),
                });
            }
            if let Some(&score) = setup
                .start_scores
                .iter()
                .find(|s| s.unsigned_abs() > MAX_START_SCORE as u32)
            {
                return Err(SetupError::StartScoreRange { score });
            }
            scores[..setup.start_scores.len()].copy_from_slice(&setup.start_scores);
        }
        let chairs = table.chairs(0);
        let first_dealer = match setup.first_dealer {
            Some(seat) => chairs
                .chair_of(seat)
                .ok_or(SetupError::FirstDealer { seat })? as u8,
            None => Xoshiro256::for_first_dealer(setup.seed).below(chairs.len() as u64) as u8,
        };
        let lineage = Lineage::new();
        let state = lineage.next_state();
        let mut game = Game {
            rules,
            table,
            seed: setup.seed,
            card_orders: setup.card_orders.clone(),
            first_dealer,
            deal_no: 0,
            scores,
            history: Vec::new(),
            winner: None,
            phase: Phase::Draw,
            d: Deal {
                chairs,
                dealer: 0,
                turn: 0,
                hands: [CardCounts::new(); MAX_SEATS],
                red_threes: [CardCounts::new(); MAX_SEATS],
                stock: Vec::new(),
                pile: Vec::new(),
                pile_frozen: false,
                pile_blocked: false,
                melds: Default::default(),
                side_melded: [false; MAX_SEATS],
                had_turn: [false; MAX_SEATS],
                melded_before: [false; MAX_SEATS],
                turn_flags: TurnFlags::default(),
                penalties: [0; MAX_SEATS],
                minimums: [0; MAX_SEATS],
                partners: [None; MAX_SEATS],
                meld_stamps: [NO_STATE; MAX_SEATS],
                known: [CardCounts::new(); MAX_SEATS],
                passed: [CardCounts::new(); MAX_SEATS],
                discarded: [CardCounts::new(); MAX_SEATS],
            },
            lineage,
            state,
            history_stamp: state,
        };
        let mut events = Vec::new();
        game.start_deal(&mut events);
        Ok((game, events))
    }

    /// A game in the state `view` shows, its hidden cards filled in: `hands[s]` is the hand
    /// of seat `s` (the view's own where it shows one) and `stock` the stock, top card last.
    /// What a player program that searches plays on: one guess at what it cannot see.
    ///
    /// The caller gives a guess consistent with the view (every hand of the view's count,
    /// holding the view's known cards, the pack whole). Its deals after the current one are
    /// shuffled from `seed`; its record holds none of the deals finished before.
    pub(crate) fn determinized(
        view: &View,
        hands: &[CardCounts],
        stock: Vec<Card>,
        seed: u64,
    ) -> Game {
        let rules = view.rules;
        let table = Table::new(&rules);
        let chairs = table.chairs(view.deal);
        debug_assert_eq!(chairs.seats(), &view.play_order[..]);
        let n = chairs.len();
        let chair = |seat: Seat| chairs.chair_of(seat).unwrap_or(0);
        let dealer = chair(view.dealer);
        let first_dealer = ((dealer + n - view.deal as usize % n) % n) as u8;
        let mut scores = [0; MAX_SEATS];
        let mut melds: [Vec<Meld>; MAX_SEATS] = Default::default();
        let mut side_melded = [false; MAX_SEATS];
        let mut penalties = [0; MAX_SEATS];
        let mut minimums = [0; MAX_SEATS];
        for (s, side) in view.sides.iter().enumerate().take(MAX_SEATS) {
            scores[s] = side.score;
            melds[s].clone_from(&side.melds);
            side_melded[s] = side.melded;
            penalties[s] = side.penalties;
            minimums[s] = side.minimum;
        }
        let mut d_hands = [CardCounts::new(); MAX_SEATS];
        let mut red_threes = [CardCounts::new(); MAX_SEATS];
        let mut had_turn = [false; MAX_SEATS];
        let mut melded_before = [false; MAX_SEATS];
        let mut known = [CardCounts::new(); MAX_SEATS];
        let mut passed = [CardCounts::new(); MAX_SEATS];
        let mut discarded = [CardCounts::new(); MAX_SEATS];
        let mut partners = [None; MAX_SEATS];
        for (s, seat) in view.seats.iter().enumerate().take(MAX_SEATS) {
            d_hands[s] = hands.get(s).copied().unwrap_or_default();
            red_threes[s] = seat.red_threes;
            had_turn[s] = seat.had_turn;
            melded_before[s] = seat.melded_before;
            known[s] = seat.known;
            passed[s] = seat.passed;
            discarded[s] = seat.discarded;
            partners[s] = table.partner(&chairs, seat.seat);
        }
        let lineage = Lineage::new();
        let state = lineage.next_state();
        Game {
            rules,
            table,
            seed,
            card_orders: Vec::new(),
            first_dealer,
            deal_no: view.deal,
            scores,
            history: Vec::new(),
            winner: None,
            phase: view.phase,
            d: Deal {
                chairs,
                dealer: dealer as u8,
                turn: chair(view.turn_seat) as u8,
                hands: d_hands,
                red_threes,
                stock,
                pile: view.pile.clone(),
                pile_frozen: view.pile_frozen,
                pile_blocked: view.pile_blocked,
                melds,
                side_melded,
                had_turn,
                melded_before,
                turn_flags: view.turn,
                penalties,
                minimums,
                partners,
                meld_stamps: [state; MAX_SEATS],
                known,
                passed,
                discarded,
            },
            lineage,
            state,
            history_stamp: state,
        }
    }

    /// Replays a record: a setup and the actions taken, in order.
    pub fn replay(setup: &Setup, actions: &[(Seat, Action)]) -> Result<Game, ReplayError> {
        let mut game = Game::new(setup).map_err(ReplayError::Setup)?;
        let mut events = Vec::new();
        for (index, (seat, action)) in actions.iter().enumerate() {
            events.clear();
            game.apply_into(*seat, action, &mut events)
                .map_err(|error| ReplayError::Action { index, error })?;
        }
        Ok(game)
    }

    // ----- reading the state (the referee's view; clients use `view`) -----

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The seating.
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// What the game waits for.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The current deal's number, 0-based.
    pub fn deal_number(&self) -> u32 {
        self.deal_no
    }

    /// The seat that must act, `None` once the match is over.
    pub fn to_act(&self) -> Option<Seat> {
        let seat = self.turn_seat();
        match self.phase {
            Phase::Over => None,
            Phase::Answer => self.d.partners[seat.index()],
            Phase::Draw | Phase::Play => Some(seat),
        }
    }

    /// The seat whose turn it is (during an answer, the asker).
    pub fn turn_seat(&self) -> Seat {
        // Indexed, not wrapped: `turn` is always a chair, and this is asked several times per
        // action (a division would cost more than the rest).
        self.d.chairs.seats()[self.d.turn as usize]
    }

    /// The dealer of the current deal.
    pub fn dealer(&self) -> Seat {
        self.d.chairs.seats()[self.d.dealer as usize]
    }

    /// The seats playing the current deal, in playing order.
    pub fn play_order(&self) -> &[Seat] {
        self.d.chairs.seats()
    }

    // The accessors by seat and by side answer for any number: a seat or side the table does
    // not have holds nothing, has done nothing, and has a minimum and penalties of 0.

    /// A seat's hand (empty for a seat the table does not have).
    pub fn hand(&self, seat: Seat) -> &CardCounts {
        self.d.hands.get(seat.index()).unwrap_or(&NO_CARDS)
    }

    /// The red threes a seat laid this deal.
    pub fn red_threes(&self, seat: Seat) -> &CardCounts {
        self.d.red_threes.get(seat.index()).unwrap_or(&NO_CARDS)
    }

    /// The stock, top card last.
    pub fn stock(&self) -> &[Card] {
        &self.d.stock
    }

    /// The discard pile, top card last.
    pub fn pile(&self) -> &[Card] {
        &self.d.pile
    }

    /// The pile holds a wild card or a red three (R-PILE-2).
    pub fn pile_frozen(&self) -> bool {
        self.d.pile_frozen
    }

    /// The top card blocks the pile for the player to act (R-PILE-1, R-TURN-4).
    pub fn pile_blocked(&self) -> bool {
        self.d.pile_blocked
    }

    /// A side's melds, in the order laid.
    pub fn melds(&self, side: Side) -> &[Meld] {
        self.d.melds.get(side.index()).map_or(&[], Vec::as_slice)
    }

    /// True once the side has made its initial meld this deal.
    pub fn side_melded(&self, side: Side) -> bool {
        self.d.side_melded.get(side.index()) == Some(&true)
    }

    /// A side's initial-meld minimum this deal.
    pub fn minimum(&self, side: Side) -> u32 {
        self.d.minimums.get(side.index()).copied().unwrap_or(0)
    }

    /// Points a side has lost to penalties this deal.
    pub fn penalties(&self, side: Side) -> i32 {
        self.d.penalties.get(side.index()).copied().unwrap_or(0)
    }

    /// True if the seat has had a turn this deal.
    pub fn had_turn(&self, seat: Seat) -> bool {
        self.d.had_turn.get(seat.index()) == Some(&true)
    }

    /// True if the seat melded in an earlier turn of this deal.
    pub fn melded_before(&self, seat: Seat) -> bool {
        self.d.melded_before.get(seat.index()) == Some(&true)
    }

    /// The cards of a seat's hand that every seat knows are there, whoever looks: those it
    /// picked up with the pile (R-PILE-5) and the wild cards it kept from the cut (R-DEAL-6),
    /// until cards of their kind leave the hand. A card laid or discarded counts down the
    /// known cards of its kind, for nobody can tell a known card from a hidden one of the same
    /// kind: what remains is certain, never a guess. Empty for a seat the table does not have.
    pub fn known(&self, seat: Seat) -> &CardCounts {
        self.d.known.get(seat.index()).unwrap_or(&NO_CARDS)
    }

    /// The pile's top card a seat passed at its last draw, if it did: it drew from the stock
    /// while its side had made its initial meld and the pile held three cards or more, the
    /// top a natural card (four to ace) that did not block the pile for it. Empty otherwise
    /// (and from its next draw on: a pass says ever less as the hand changes). Public, and a
    /// hint, not a certainty: a player who held a natural pair of that rank could have taken
    /// the pile with it, but the choice between the stock and the pile
    /// is free while the stock lasts (R-TURN-1; R-STOCK-1 forces a take only once it is empty). Empty for a seat the table does not have.
    pub fn passed(&self, seat: Seat) -> &CardCounts {
        self.d.passed.get(seat.index()).unwrap_or(&NO_CARDS)
    }

    /// The cards a seat discarded this deal, in sight of all (the discard that goes out
    /// included). Empty for a seat the table does not have.
    pub fn discarded(&self, seat: Seat) -> &CardCounts {
        self.d.discarded.get(seat.index()).unwrap_or(&NO_CARDS)
    }

    /// Facts about the turn in progress.
    pub fn turn_flags(&self) -> TurnFlags {
        self.d.turn_flags
    }

    /// Cumulative scores per side (after the finished deals).
    pub fn scores(&self) -> &[i32] {
        &self.scores[..self.table.sides() as usize]
    }

    /// The score reports of the finished deals.
    pub fn history(&self) -> &[DealScore] {
        &self.history
    }

    /// The game and its clones.
    pub(crate) fn lineage(&self) -> &Lineage {
        &self.lineage
    }

    /// The state in which the list of finished deals last changed.
    pub(crate) fn history_stamp(&self) -> u64 {
        self.history_stamp
    }

    /// The winning side once the match is over.
    pub fn winner(&self) -> Option<Side> {
        self.winner
    }

    /// The prearranged decks the game was created with.
    pub fn card_orders(&self) -> &[Vec<Card>] {
        &self.card_orders
    }

    /// Every card of the current deal, wherever it lies: always the whole pack.
    pub fn all_cards(&self) -> CardCounts {
        let mut all = CardCounts::from_cards(self.d.stock.iter().copied());
        all.add_all(&CardCounts::from_cards(self.d.pile.iter().copied()));
        for s in 0..MAX_SEATS {
            all.add_all(&self.d.hands[s]);
            all.add_all(&self.d.red_threes[s]);
            for m in &self.d.melds[s] {
                all.add_all(&m.cards);
            }
        }
        all
    }

    // ----- acting -----

    // Inlined: built field by field where it is used, a caller's copy of the whole would
    // read its small fields back before they are stored, which costs more than building it.
    #[inline]
    pub(crate) fn ctx(&self) -> Option<Ctx<'_>> {
        let seat = self.to_act()?;
        let side = self.table.side_of(seat).index();
        let d = &self.d;
        Some(Ctx {
            rules: &self.rules,
            seat,
            phase: self.phase,
            hand: &d.hands[seat.index()],
            melds: &d.melds[side],
            side_melded: d.side_melded[side],
            minimum: d.minimums[side],
            pile: &d.pile,
            pile_frozen: d.pile_frozen,
            pile_blocked: d.pile_blocked,
            stock_len: d.stock.len(),
            partner: d.partners[self.turn_seat().index()],
            melded_before: d.melded_before[seat.index()],
            turn: d.turn_flags,
        })
    }

    /// The legal choices of the seat to act; `None` once the match is over. What
    /// [`LegalChoices::checked`] passes on them is applied by [`Game::apply_choice`] without a
    /// second check while the game stays in this state.
    #[inline]
    pub fn legal(&self) -> Option<LegalChoices<'_>> {
        self.ctx()
            .map(|ctx| LegalChoices::of_game(ctx, &self.lineage, self.state))
    }

    /// Appends the legal actions of the seat to act, in canonical form, to `out`.
    pub fn legal_actions(&self, out: &mut Vec<Action>) {
        if let Some(l) = self.legal() {
            l.actions(out);
        }
    }

    /// Checks an action without applying it (a dry run).
    pub fn check(&self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        if self.phase == Phase::Over {
            return Err(RuleError::MatchOver);
        }
        if seat.0 >= self.table.players() {
            return Err(RuleError::NoSuchSeat { seat });
        }
        let to_act = self.to_act().expect("a game not over has a seat to act");
        if seat != to_act {
            return Err(RuleError::NotYourTurn { to_act });
        }
        self.ctx().expect("checked above").check(action)
    }

    /// Applies an action of `seat` and returns the events it caused. On error nothing changes.
    pub fn apply(&mut self, seat: Seat, action: &Action) -> Result<Vec<Event>, RuleError> {
        let mut events = Vec::new();
        self.apply_into(seat, action, &mut events)?;
        Ok(events)
    }

    /// Like [`Game::apply`], appending the events to a buffer the caller reuses.
    pub fn apply_into(
        &mut self,
        seat: Seat,
        action: &Action,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        self.check(seat, action)?;
        self.exec(seat, action, events);
        Ok(())
    }

    /// Applies a bot's [`Choice`] like [`Game::apply_into`]. A choice checked on this game's
    /// own choices ([`Game::legal`]), for `seat`, in the state the game is still in, is not
    /// checked again: that check would give the same answer. Any other choice is checked.
    pub fn apply_choice(
        &mut self,
        seat: Seat,
        choice: &Choice,
        events: &mut Vec<Event>,
    ) -> Result<(), RuleError> {
        if choice.seat == seat
            && choice
                .proof
                .as_ref()
                .is_some_and(|p: &Stamp| p.names(&self.lineage, self.state))
        {
            self.exec(seat, choice.action(), events);
            Ok(())
        } else {
            self.apply_into(seat, choice.action(), events)
        }
    }

    /// Carries out a checked action: the one way the game's state changes after its start.
    fn exec(&mut self, seat: Seat, action: &Action, ev: &mut Vec<Event>) {
        // A new state: no choice checked before it may skip its check from now on.
        self.state = self.lineage.next_state();
        match action {
            Action::DrawStock => {
                // A pass says something where a natural pair of the top's rank would have
                // taken a pile worth a pair: the side has melded (R-PILE-3, R-PILE-4), the
                // pile holds more than the top and one card.
                let passed = &mut self.d.passed[seat.index()];
                *passed = CardCounts::new();
                if let Some(&top) = self.d.pile.last()
                    && self.d.pile.len() >= PASS_PILE
                    && !self.d.pile_blocked
                    && top.is_natural()
                    && self.d.side_melded[self.table.side_of(seat).index()]
                {
                    passed.add(top);
                }
                if self.draw(seat, self.rules.draw, ev) {
                    self.phase = Phase::Play;
                }
            }
            Action::TakePile { top, melds } => self.take_pile(seat, top, melds, ev),
            Action::Meld { melds } => {
                let placed = self.lay(seat, melds);
                self.d.turn_flags.melded = true;
                ev.push(Event::Melded { seat, placed });
            }
            Action::Discard { card } => {
                let held = self.d.hands[seat.index()].remove(*card);
                debug_assert!(held, "checked: the seat holds {card}");
                // Not held any more if it was the last of its kind known to be.
                let _ = self.d.known[seat.index()].remove(*card);
                record(&self.rules, &mut self.d.discarded[seat.index()], *card);
                self.discard(seat, *card, ev);
                self.end_turn(seat, ev);
            }
            Action::GoOut { melds, discard } => {
                let placed = self.lay(seat, melds);
                if !melds.is_empty() {
                    self.d.turn_flags.melded = true;
                }
                if let Some(card) = discard {
                    let held = self.d.hands[seat.index()].remove(*card);
                    debug_assert!(held, "checked: the seat holds {card}");
                    let _ = self.d.known[seat.index()].remove(*card);
                    record(&self.rules, &mut self.d.discarded[seat.index()], *card);
                    self.d.pile.push(*card);
                }
                let concealed = self.is_concealed(seat);
                ev.push(Event::WentOut {
                    seat,
                    placed,
                    discard: *discard,
                    concealed,
                });
                self.end_deal(DealEnd::WentOut { seat, concealed }, ev);
            }
            Action::AskPartner => {
                let partner =
                    self.d.partners[seat.index()].expect("checked: the seat has a partner");
                self.d.turn_flags.ask = Ask::Pending;
                self.phase = Phase::Answer;
                ev.push(Event::AskedPartner { seat, partner });
            }
            Action::AnswerPartner { yes } => {
                let asker = self.turn_seat();
                self.d.turn_flags.ask = if *yes { Ask::Yes } else { Ask::No };
                self.phase = Phase::Play;
                ev.push(Event::PartnerAnswered {
                    seat,
                    asker,
                    yes: *yes,
                });
            }
            Action::DeclinePile => {
                ev.push(Event::PileDeclined { seat });
                self.end_deal(DealEnd::StockExhausted { seat }, ev);
            }
        }
    }

    /// R-OUT-4: whether the going out just made by `seat` scores as concealed
    /// ([`went_out_concealed`] decides).
    fn is_concealed(&self, seat: Seat) -> bool {
        let side = self.table.side_of(seat).index();
        went_out_concealed(
            &self.rules,
            self.d.melded_before[seat.index()],
            &self.d.turn_flags,
            own_canasta(&self.d.melds[side], seat),
        )
    }

    /// Lays checked melds from the seat's hand.
    fn lay(&mut self, seat: Seat, specs: &[MeldSpec]) -> PlacedList {
        let side = self.table.side_of(seat).index();
        let mut placed = PlacedList::new();
        self.d.meld_stamps[side] = self.state;
        for spec in specs {
            self.d.hands[seat.index()].remove_all(&spec.cards);
            // Counted down, not below zero: the cards laid may be known ones or hidden ones.
            // Most hands hold no known card: nothing to count then.
            let known = &mut self.d.known[seat.index()];
            if !known.is_empty() {
                known.remove_up_to(&spec.cards);
            }
            let melds = &mut self.d.melds[side];
            let (id, new) = match spec.target {
                MeldTarget::New => {
                    let kind =
                        kind_of_new(&self.rules, &spec.cards).expect("checked before laying");
                    melds.push(Meld {
                        kind,
                        cards: spec.cards,
                        creator: seat,
                    });
                    (melds.len() - 1, true)
                }
                MeldTarget::Existing(id) => {
                    let meld = &mut melds[id as usize];
                    meld.cards.add_all(&spec.cards);
                    if meld.creator != seat {
                        self.d.turn_flags.foreign = true;
                    }
                    (id as usize, false)
                }
            };
            placed.push(Placed {
                meld: id as u8,
                cards: spec.cards,
                new,
            });
        }
        if !specs.is_empty() {
            self.d.side_melded[side] = true;
        }
        placed
    }

    fn take_pile(
        &mut self,
        seat: Seat,
        top_meld: &TopMeld,
        extras: &[MeldSpec],
        ev: &mut Vec<Event>,
    ) {
        let top = self.d.pile.pop().expect("checked: the pile has a top card");
        self.d.passed[seat.index()] = CardCounts::new();
        let mut first = top_meld.cards;
        first.add(top);
        self.d.hands[seat.index()].add(top);
        // The top card passes through the hand in sight of all: laying it counts it down again.
        self.d.known[seat.index()].add(top);
        let mut specs: SmallVec<[MeldSpec; 4]> = SmallVec::new();
        specs.push(MeldSpec {
            target: top_meld.target,
            cards: first,
        });
        specs.extend_from_slice(extras);
        let placed = self.lay(seat, &specs);
        let picked_up: Vec<Card> = self.d.pile.drain(..).collect();
        self.d.pile_frozen = false;
        self.d.pile_blocked = false;
        self.d.turn_flags.took_pile = true;
        self.d.turn_flags.melded = true;
        ev.push(Event::PileTaken {
            seat,
            top,
            placed,
            picked_up: picked_up.clone(),
        });
        for card in picked_up {
            if laid_from_pile(card) {
                // R-RED-3: laid, not replaced.
                self.d.red_threes[seat.index()].add(card);
                ev.push(Event::RedThreeLaid {
                    seat,
                    card,
                    source: RedThreeSource::Pile,
                });
            } else {
                self.d.hands[seat.index()].add(card);
                self.d.known[seat.index()].add(card);
            }
        }
        self.phase = Phase::Play;
    }

    fn discard(&mut self, seat: Seat, card: Card, ev: &mut Vec<Event>) {
        self.d.pile.push(card);
        if freezes_pile(card) {
            self.d.pile_frozen = true;
        }
        // R-TURN-4: what the card blocks for the next player.
        let next_opponent_melds = || {
            let chair = self.d.chairs.chair_of(seat).expect("the discarder plays");
            let side = self.table.side_of(self.d.chairs.seat(chair + 1));
            (side != self.table.side_of(seat)).then(|| &self.d.melds[side.index()][..])
        };
        self.d.pile_blocked = discard_blocks(&self.rules, card, next_opponent_melds, &self.d.melds);
        ev.push(Event::Discarded {
            seat,
            card,
            blocks: self.d.pile_blocked,
            frozen: self.d.pile_frozen,
        });
    }

    /// Draws `n` cards from the stock into the seat's hand; red threes are laid and replaced
    /// (R-RED-2). A short stock gives what it has (R-STOCK-3). Returns false if the deal ended
    /// because the last card was a red three (R-RED-4).
    fn draw(&mut self, seat: Seat, n: u8, ev: &mut Vec<Event>) -> bool {
        let mut kept: SmallVec<[Card; 3]> = SmallVec::new();
        let mut need = n;
        while need > 0 {
            let Some(card) = self.d.stock.pop() else {
                break;
            };
            if card.is_red_three() {
                self.d.red_threes[seat.index()].add(card);
                ev.push(Event::RedThreeLaid {
                    seat,
                    card,
                    source: RedThreeSource::Drawn,
                });
                if self.d.stock.is_empty() {
                    self.give(seat, kept, ev);
                    self.end_deal(DealEnd::LastRedThree { seat }, ev);
                    return false;
                }
                continue;
            }
            kept.push(card);
            need -= 1;
        }
        self.give(seat, kept, ev);
        true
    }

    fn give(&mut self, seat: Seat, cards: SmallVec<[Card; 3]>, ev: &mut Vec<Event>) {
        if cards.is_empty() {
            return;
        }
        for &c in &cards {
            self.d.hands[seat.index()].add(c);
        }
        ev.push(Event::Drew {
            seat,
            count: cards.len() as u8,
            cards: Some(cards),
        });
    }

    fn end_turn(&mut self, seat: Seat, ev: &mut Vec<Event>) {
        if self.d.turn_flags.melded {
            self.d.melded_before[seat.index()] = true;
        }
        if self.d.turn_flags.ask == Ask::Yes {
            // R-OUT-3: told yes, the player had to go out.
            let side = self.table.side_of(seat);
            self.d.penalties[side.index()] += self.rules.ask_partner_penalty;
            ev.push(Event::Penalty {
                side,
                points: self.rules.ask_partner_penalty,
                reason: "DID_NOT_GO_OUT_AFTER_YES",
            });
        }
        self.d.turn = ((self.d.turn as usize + 1) % self.d.chairs.len()) as u8;
        self.begin_turn(ev);
    }

    fn begin_turn(&mut self, ev: &mut Vec<Event>) {
        let seat = self.turn_seat();
        self.d.turn_flags = TurnFlags::default();
        self.phase = Phase::Draw;
        ev.push(Event::TurnStarted { seat });
        if !self.d.had_turn[seat.index()] {
            self.d.had_turn[seat.index()] = true;
            // R-RED-1: dealt red threes are laid at the first turn and replaced. Looked up by
            // card, not by walking the hand: most hands hold none.
            let mut laid = 0;
            for card in [Suit::Diamonds, Suit::Hearts].map(|s| Card::new(Rank::Three, s)) {
                for _ in 0..self.d.hands[seat.index()].count(card) {
                    let held = self.d.hands[seat.index()].remove(card);
                    debug_assert!(held, "counted: the seat holds {card}");
                    self.d.red_threes[seat.index()].add(card);
                    ev.push(Event::RedThreeLaid {
                        seat,
                        card,
                        source: RedThreeSource::Dealt,
                    });
                    laid += 1;
                }
            }
            if laid > 0 {
                self.draw(seat, laid, ev);
            }
        }
    }

    fn start_deal(&mut self, ev: &mut Vec<Event>) {
        let chairs = self.table.chairs(self.deal_no);
        let n = chairs.len();
        let rules = self.rules;
        let order: Vec<Card> = match self.card_orders.get(self.deal_no as usize) {
            Some(order) => order.clone(),
            None => {
                let mut p = pack(rules.decks, rules.jokers);
                Xoshiro256::for_deal(self.seed, self.deal_no).shuffle(&mut p);
                p
            }
        };
        let state = self.state;
        let d = &mut self.d;
        d.chairs = chairs;
        for seat in self.table.seats() {
            d.partners[seat.index()] = self.table.partner(&d.chairs, seat);
        }
        d.dealer = ((self.first_dealer as u32 + self.deal_no) % n as u32) as u8;
        d.turn = ((d.dealer as usize + 1) % n) as u8;
        d.hands = [CardCounts::new(); MAX_SEATS];
        d.known = [CardCounts::new(); MAX_SEATS];
        d.passed = [CardCounts::new(); MAX_SEATS];
        d.discarded = [CardCounts::new(); MAX_SEATS];
        d.red_threes = [CardCounts::new(); MAX_SEATS];
        for (m, stamp) in d.melds.iter_mut().zip(&mut d.meld_stamps) {
            m.clear();
            *stamp = state;
        }
        d.side_melded = [false; MAX_SEATS];
        d.had_turn = [false; MAX_SEATS];
        d.melded_before = [false; MAX_SEATS];
        d.turn_flags = TurnFlags::default();
        d.penalties = [0; MAX_SEATS];
        for s in 0..self.table.sides() as usize {
            d.minimums[s] = rules.minimum_for(self.scores[s]);
        }
        // R-DEAL-6: the player before the dealer cuts and keeps the wild cards the cut shows:
        // the bottom cards of the deck once cut. A seeded deck is cut at a random place first; a
        // prearranged deck is given as it lies after the cut.
        let mut order = order;
        let mut cut = None;
        if rules.cut_keeps_wilds {
            if self.card_orders.get(self.deal_no as usize).is_none() {
                let at = Xoshiro256::for_cut(self.seed, self.deal_no).below(order.len() as u64 - 1);
                order.rotate_left(at as usize + 1);
            }
            let cutter = chairs.seat(d.dealer as usize + n - 1);
            let mut kept = Vec::new();
            while kept.len() < rules.hand_size as usize
                && let Some(&card) = order.last()
                && card.is_wild()
            {
                order.pop();
                d.hands[cutter.index()].add(card);
                // Shown to all (R-DEAL-6).
                d.known[cutter.index()].add(card);
                kept.push(card);
            }
            cut = Some((cutter, kept));
        }
        let mut next = 0;
        for _ in 0..rules.hand_size {
            for k in 1..=n {
                let seat = chairs.seat(d.dealer as usize + k);
                if d.hands[seat.index()].len() < rules.hand_size as usize {
                    d.hands[seat.index()].add(order[next]);
                    next += 1;
                }
            }
        }
        d.stock.clear();
        d.stock.extend(order[next..].iter().rev());
        d.pile.clear();
        // R-DEAL-5: turn cards until a natural card shows.
        while let Some(card) = d.stock.pop() {
            d.pile.push(card);
            if card.is_natural() {
                break;
            }
        }
        d.pile_frozen = d.pile.iter().any(|&c| freezes_pile(c));
        d.pile_blocked = d.pile.last().is_some_and(|&c| stop_card(c));
        let players = self.table.players() as usize;
        let in_deal = |s: usize| chairs.chair_of(Seat(s as u8)).is_some();
        ev.push(Event::DealStarted(Box::new(DealStart {
            deal: self.deal_no,
            dealer: chairs.seat(d.dealer as usize),
            play_order: chairs.seats().to_vec(),
            hands: (0..players).map(|s| Some(d.hands[s])).collect(),
            hand_sizes: (0..players)
                .map(|s| if in_deal(s) { rules.hand_size } else { 0 })
                .collect(),
            pile: d.pile.clone(),
            cut,
            stock: d.stock.len() as u32,
            minimums: d.minimums[..self.table.sides() as usize].to_vec(),
        })));
        self.phase = Phase::Draw;
        self.begin_turn(ev);
    }

    fn deal_facts(&self, end: DealEnd) -> DealFacts<'_> {
        DealFacts {
            rules: &self.rules,
            table: &self.table,
            hands: &self.d.hands,
            red_threes: &self.d.red_threes,
            melds: &self.d.melds,
            side_melded: &self.d.side_melded,
            penalties: &self.d.penalties,
            end,
        }
    }

    /// The current deal scored as if it ended now as `end` says, without ending it: what each
    /// side would count (a running score for a display, or a what-if for a player program).
    /// The cumulative totals in the report include it; the game's scores do not change.
    /// Refused ([`RuleError::NoSuchSeat`]) if `end` names a seat the table does not have.
    pub fn score_as_if(&self, end: DealEnd) -> Result<DealScore, RuleError> {
        let seat = end.seat();
        if seat.0 >= self.table.players() {
            return Err(RuleError::NoSuchSeat { seat });
        }
        let mut cumulative = self.scores;
        Ok(score_deal(
            self.deal_no,
            &self.deal_facts(end),
            &mut cumulative,
        ))
    }

    fn end_deal(&mut self, end: DealEnd, ev: &mut Vec<Event>) {
        let mut scores = self.scores;
        let score = score_deal(self.deal_no, &self.deal_facts(end), &mut scores);
        self.scores = scores;
        let hands = self.d.hands[..self.table.players() as usize].to_vec();
        self.history.push(score.clone());
        self.history_stamp = self.state;
        ev.push(Event::DealEnded(Box::new(DealFinish { score, hands })));
        if let Some(winner) = self.match_winner() {
            self.winner = Some(winner);
            self.phase = Phase::Over;
            ev.push(Event::MatchEnded {
                winner,
                totals: self.scores().to_vec(),
            });
            return;
        }
        self.deal_no += 1;
        self.start_deal(ev);
    }

    /// R-SCORE-2: the match ends after a deal in which a side reached the target; the highest
    /// total wins, and a tie for the lead means another deal.
    fn match_winner(&self) -> Option<Side> {
        let scores = self.scores();
        let best = *scores.iter().max()?;
        if best < self.rules.target_score {
            return None;
        }
        let mut leaders = scores.iter().enumerate().filter(|(_, s)| **s == best);
        let (first, _) = leaders.next()?;
        leaders.next().is_none().then_some(Side(first as u8))
    }

    /// A hash of the whole state, stable across runs, machines and versions of Rust: replaying
    /// a record must reproduce it.
    pub fn state_hash(&self) -> u64 {
        let mut h = crate::hash::StableHasher::new();
        h.u64(self.seed);
        h.u32(self.deal_no);
        h.u8(self.phase as u8);
        h.u8(self.first_dealer);
        for s in self.scores() {
            h.i32(*s);
        }
        h.u8(self.winner.map_or(255, |s| s.0));
        h.u32(self.history.len() as u32);
        let d = &self.d;
        for s in d.chairs.seats() {
            h.u8(s.0);
        }
        h.u8(d.dealer);
        h.u8(d.turn);
        for seat in 0..self.table.players() as usize {
            h.bytes(&d.hands[seat].to_array());
            h.bytes(&d.red_threes[seat].to_array());
            h.bool(d.had_turn[seat]);
            h.bool(d.melded_before[seat]);
        }
        h.u32(d.stock.len() as u32);
        for c in &d.stock {
            h.u8(c.index() as u8);
        }
        h.u32(d.pile.len() as u32);
        for c in &d.pile {
            h.u8(c.index() as u8);
        }
        h.bool(d.pile_frozen);
        h.bool(d.pile_blocked);
        for side in 0..self.table.sides() as usize {
            h.u32(d.melds[side].len() as u32);
            for m in &d.melds[side] {
                h.u8(match m.kind {
                    MeldKind::Group(r) => r as u8,
                    MeldKind::BlackThrees => 100,
                    MeldKind::Sequence(suit) => 110 + suit as u8,
                    MeldKind::Wild => 120,
                });
                h.bytes(&m.cards.to_array());
                h.u8(m.creator.0);
            }
            h.bool(d.side_melded[side]);
            h.i32(d.penalties[side]);
            h.u32(d.minimums[side]);
        }
        let t = d.turn_flags;
        h.bool(t.took_pile);
        h.bool(t.melded);
        h.bool(t.foreign);
        h.u8(t.ask as u8);
        h.finish()
    }
}

fn check_card_order(expected: &CardCounts, order: &[Card]) -> Result<(), String> {
    let given = CardCounts::from_cards(order.iter().copied());
    if given == *expected {
        return Ok(());
    }
    // Counted in the order itself: the counts of `given` stop at 15 of a card.
    let copies = |card: Card| order.iter().filter(|&&c| c == card).count();
    if let Some((card, have)) = given.first_missing(expected) {
        return Err(format!(
            "it has {have} of {card} where the pack has {}",
            expected.count(card)
        ));
    }
    if let Some((card, have)) = expected.first_missing(&given) {
        return Err(format!(
            "it has {} of {card} where the pack has {have}",
            copies(card)
        ));
    }
    Err(format!(
        "it has {} cards where the pack has {}",
        order.len(),
        expected.len()
    ))
}

/// Why a record could not be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplayError {
    /// The setup was refused.
    Setup(SetupError),
    /// Action number `index` was refused.
    Action {
        /// Its position in the record.
        index: usize,
        /// Why.
        error: RuleError,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Setup(e) => write!(f, "the record's setup is refused: {e}"),
            ReplayError::Action { index, error } => {
                write!(f, "action {index} of the record is refused: {error}")
            }
        }
    }
}

impl std::error::Error for ReplayError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::RandomBot;
    use crate::rules::Preset;

    // Scoring a deal as if it ended changes nothing, and gives the report the deal's end gives
    // when it ends that way with nothing laid (a declined pile).
    #[test]
    fn score_as_if_is_the_report_of_the_end() {
        let mut declined = 0;
        for seed in 0..40 {
            let spec = RuleSpec::new(Preset::Official, 4);
            let mut game = Game::new(&Setup::seeded(spec, seed)).unwrap();
            let mut bot = RandomBot::new(seed);
            while game.history().is_empty() {
                let seat = game.to_act().unwrap();
                let action = bot.pick(&game.legal().unwrap());
                let end = DealEnd::StockExhausted { seat };
                let before = game.state_hash();
                let expected = game.score_as_if(end).expect("a seat of the table");
                assert_eq!(game.state_hash(), before);
                for side in &expected.sides {
                    assert_eq!(side.total, side.sum_of_items());
                    assert_eq!(side.cumulative, side.total, "the first deal");
                }
                game.apply(seat, &action).unwrap();
                if action == Action::DeclinePile {
                    assert_eq!(game.history(), [expected]);
                    declined += 1;
                }
            }
        }
        assert!(declined > 0, "no deal ended with a declined pile");
    }
}
