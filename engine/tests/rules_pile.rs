//! R-PILE: taking the discard pile.
mod common;
use common::*;

// R-PILE-1: a wild card on top blocks the pile for the next player.
#[test]
fn r_pile_1_wild_on_top_blocks() {
    let mut g = arranged(4, &[], &["2C", "KS KH"], "7D", "5D");
    draw_discard(&mut g, 0, "2C");
    assert!(g.pile_blocked());
    let msg = refuse(&mut g, 1, take_new("KS KH", &[]), "PILE_BLOCKED");
    assert!(msg.contains("2♣"), "{msg}");
}
