//! Actions as a client sends them, written from card text (`"KS KH"`, as `canasta` reads it):
//! for the tests that submit well-formed wire actions. Malformed ones (unknown ranks, missing
//! cards) are built field by field where a test needs them.

use canasta_proto::convert::{card_list_to_wire, card_to_wire};
use canasta_proto::v1;
use canasta_proto::v1::action::Kind;

use crate::replica::{card, cards};

/// A card on the wire, e.g. `wire_card("KS")`.
pub fn wire_card(text: &str) -> v1::Card {
    card_to_wire(card(text))
}

/// Cards on the wire, e.g. `wire_cards("KS KH 2C")`.
pub fn wire_cards(text: &str) -> Vec<v1::Card> {
    card_list_to_wire(&cards(text))
}

/// An action of this kind.
pub fn action(kind: Kind) -> v1::Action {
    v1::Action { kind: Some(kind) }
}

/// Draws from the stock.
pub fn draw() -> v1::Action {
    action(Kind::DrawStock(v1::DrawStockAction {}))
}

/// Discards a card.
pub fn discard(text: &str) -> v1::Action {
    action(Kind::Discard(v1::DiscardAction {
        card: Some(wire_card(text)),
    }))
}

/// A new meld of these cards.
pub fn new_meld(text: &str) -> v1::MeldSpec {
    v1::MeldSpec {
        meld_index: None,
        cards: wire_cards(text),
    }
}

/// Lays these melds (new ones and additions) at once.
pub fn meld(specs: Vec<v1::MeldSpec>) -> v1::Action {
    action(Kind::Meld(v1::MeldAction { melds: specs }))
}

/// Goes out with these melds, discarding `discard` (none: melding the last card).
pub fn go_out(specs: Vec<v1::MeldSpec>, discard: Option<&str>) -> v1::Action {
    action(Kind::GoOut(v1::GoOutAction {
        melds: specs,
        discard: discard.map(wire_card),
    }))
}

/// Takes the pile, melding its top card with these cards from the hand as a new meld.
pub fn take_pile(with: &str) -> v1::Action {
    action(Kind::TakePile(v1::TakePileAction {
        meld_index: None,
        cards: wire_cards(with),
        melds: vec![],
    }))
}
