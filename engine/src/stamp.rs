//! Stamps: which state of which game a copy or a check was made from, so that a view refresh
//! skips copying what did not change ([`crate::view::ViewBuffer`]) and a checked
//! [`crate::legal::Choice`] skips the referee's second check, with no state shared beyond the
//! games themselves.
//!
//! A game and its clones form a *lineage*: one small allocation they share, holding the
//! counter their new states are numbered from. A number names one state of one lineage: every
//! action of any member takes the next one, so two members that went their own ways never hold
//! the same number, and a clone holds its original's number along with the equal state. The
//! allocation's address tells lineages apart; whatever keeps a number to compare later (a
//! view's cache, a choice's proof) keeps the lineage with it, so that the address cannot be
//! reused by another lineage meanwhile.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A state number that names no state: what was never copied, a choice without proof.
pub(crate) const NO_STATE: u64 = 0;

/// The lineage of a game: shared by its clones, held by the copies and proofs made from it.
#[derive(Clone, Debug)]
pub(crate) struct Lineage(Arc<AtomicU64>);

impl Lineage {
    /// A lineage of its own, for a new game.
    pub(crate) fn new() -> Lineage {
        Lineage(Arc::new(AtomicU64::new(NO_STATE + 1)))
    }

    /// A number no state of this lineage has had yet (never [`NO_STATE`]).
    pub(crate) fn next_state(&self) -> u64 {
        // Relaxed: only the number's uniqueness matters, which every atomic increment gives.
        self.0.fetch_add(1, Ordering::Relaxed)
    }

    /// True if both are the lineage of the same games.
    pub(crate) fn is(&self, other: &Lineage) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// One state of one lineage, as a proof keeps it.
#[derive(Clone, Debug)]
pub(crate) struct Stamp {
    lineage: Lineage,
    state: u64,
}

impl Stamp {
    /// The state `state` of `lineage`.
    pub(crate) fn new(lineage: &Lineage, state: u64) -> Stamp {
        Stamp {
            lineage: lineage.clone(),
            state,
        }
    }

    /// True if this names the state `state` of `lineage`.
    pub(crate) fn names(&self, lineage: &Lineage, state: u64) -> bool {
        state != NO_STATE && self.state == state && self.lineage.is(lineage)
    }
}
