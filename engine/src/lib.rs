//! A Canasta rules engine: the Official Canasta Laws for 2 to 6 players, as a pure library with
//! no I/O. It referees complete matches: deals, turns, melds, going out and scoring, and tells
//! every player what he may see and do.
//!
//! # Rules
//!
//! The rules it plays are those of `docs/rules.md`, the project's rules reference: every rule of
//! every preset (`official`, `wiener`, `samba`, `swiss`) and option, under a stable id such as
//! `R-PILE-3`. The code cites those ids where it implements a rule, and the tests that check a
//! rule name its id (`engine/tests/rules_*.rs`), so `grep -rn R-PILE-3` finds the rule, its code
//! and its tests.
//!
//! # Layout
//!
//! - [`card`]: cards, ranks, suits, values and card multisets ([`CardCounts`]).
//! - [`rules`]: rule sets: a preset and options ([`RuleSpec`]), validated into [`Rules`].
//! - [`table`]: seats, sides, partners, who plays each deal.
//! - [`rng`]: the portable shuffle (xoshiro256** and Fisher-Yates), pinned forever.
//! - [`meld`]: what makes a meld and a canasta, and what may be added to one (R-MELD): the one
//!   place for meld shapes and sizes, which the checks and every search read.
//! - [`action`], [`event`]: what players do and what happens.
//! - [`legal`]: the one place that decides what is legal. Each rule of a turn is one predicate
//!   (`legal/predicates.rs`: taking the pile, the minimum, keeping a card, going out, what
//!   blocks and freezes the pile, concealed going out) that the checks and the searches both
//!   call; then the checks, the listing in canonical form (`enumerate.rs`), the prompt summary,
//!   and the going-out searches (`going_out.rs`, `going_out/list.rs`). Its module documentation
//!   tables where each rule id is decided. The game asks it what a discard blocks and whether a
//!   going out was concealed.
//! - [`game`]: the state machine of a match ([`Setup`] in, [`Game`] out).
//! - [`arrange`]: prearranged decks for tests, puzzles and duplicate matches.
//! - [`score`]: itemised deal scores: the one place where points are counted.
//! - [`view`]: the one place that decides what a seat, a spectator or the referee sees
//!   ([`View`]; [`ViewBuffer`], a view refreshed in place without copying what did not change).
//! - [`notation`]: a short text notation for actions (terminals, records).
//! - [`quote`]: a caller's text as error messages quote it (cut short).
//! - [`bot`]: the [`Bot`] trait and the built-in bots: `greedy`, `random`, `safe`, and
//!   `search` (determinized Monte Carlo search over guesses at the hidden cards).
//!
//! # Example
//!
//! ```
//! use canasta_engine::{Game, Preset, RuleSpec, Setup, Viewer, bot::RandomBot};
//!
//! // Four players, official rules, a seeded deal.
//! let mut game = Game::new(&Setup::seeded(RuleSpec::new(Preset::Official, 4), 42)).unwrap();
//! let mut bot = RandomBot::new(7);
//!
//! // Play one deal with a random bot in every seat.
//! while game.history().is_empty() {
//!     let seat = game.to_act().unwrap();
//!     let view = game.view(Viewer::Seat(seat)); // what this seat may see
//!     let action = bot.pick(&view.legal().unwrap());
//!     let events = game.apply(seat, &action).unwrap();
//!     assert!(!events.is_empty());
//! }
//! let report = &game.history()[0];
//! for side in &report.sides {
//!     assert_eq!(side.total, side.sum_of_items());
//! }
//! ```

pub mod action;
pub mod arrange;
pub mod bot;
pub mod card;
pub mod error;
pub mod event;
pub mod game;
mod hash;
pub mod legal;
pub mod meld;
pub mod notation;
pub mod quote;
pub mod rng;
pub mod rules;
pub mod score;
mod stamp;
pub mod table;
pub mod view;

pub use action::{Action, MeldBatch, MeldSpec, MeldTarget, TopMeld};
pub use arrange::Arrangement;
pub use bot::Bot;
pub use card::{Card, CardCounts, Rank, Suit, parse_cards};
pub use error::RuleError;
pub use event::Event;
pub use game::{Game, Phase, ReplayError, Setup, SetupError};
pub use legal::{Ask, Choice, LegalChoices, Summary, TurnFlags};
pub use meld::{CanastaKind, Meld, MeldId, MeldKind};
pub use rules::{Preset, RuleSpec, Rules, RulesError};
pub use score::{DealEnd, DealScore, SideScore};
pub use table::{Seat, Side};
pub use view::{View, ViewBuffer, Viewer, redact};

/// The README's example, compiled and run as a doc test so it stays true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
