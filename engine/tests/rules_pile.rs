//! R-PILE: taking the discard pile.
mod common;
use canasta_engine::{Action, Event, Game, Phase, Seat, Side, Viewer, redact};
use common::*;

/// Seat 0 opens with three kings and three nines (drawing 4H and discarding it), seat 1 draws
/// 10S and discards `d1`, seat 2 draws 10H and discards it, seat 3 draws 10D and discards `d3`.
/// Seat 0 (side 0, melded: meld 0 = kings, meld 1 = nines) is then to draw, holding
/// QS QH Jk 5C 6C; the pile is `pile` + 4H, `d1`, 10H, `d3`.
fn opened(options: &[(&str, &str)], pile: &str, d1: &str, d3: &str) -> Game {
    let mut g = arranged(
        4,
        options,
        &["KS KH KD 9S 9D 9C QS QH Jk 5C 6C", d1, "", d3],
        pile,
        "4H 10S 10H 10D",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD"), new_meld("9S 9D 9C")]),
    );
    act(&mut g, 0, discard("4H"));
    act(&mut g, 1, Action::DrawStock);
    act(&mut g, 1, discard(d1));
    pass(&mut g, &[2]);
    act(&mut g, 3, Action::DrawStock);
    act(&mut g, 3, discard(d3));
    assert_eq!(g.to_act(), Some(Seat(0)));
    assert_eq!(*g.hand(Seat(0)), cards("QS QH Jk 5C 6C"));
    g
}

fn has_take(g: &Game) -> bool {
    legal(g)
        .iter()
        .any(|a| matches!(a, Action::TakePile { .. }))
}

// R-PILE-1: a wild card on top blocks the pile for the next player.
#[test]
fn r_pile_1_wild_on_top_blocks() {
    let mut g = arranged(4, &[], &["2C", "KS KH"], "7D", "5D");
    draw_discard(&mut g, 0, "2C");
    assert!(g.pile_blocked());
    let msg = refuse(&mut g, 1, take_new("KS KH", &[]), "PILE_BLOCKED");
    assert!(msg.contains("2♣"), "{msg}");
}

// R-PILE-1: a black three on top blocks the pile for the next player, even one holding a pair
// of black threes; the message names the card and the legal list offers no take.
#[test]
fn r_pile_1_black_three_on_top_blocks() {
    let mut g = arranged(4, &[], &["3S", "3S 3C KS KH"], "7D", "5D");
    draw_discard(&mut g, 0, "3S");
    assert!(g.pile_blocked());
    assert_eq!(g.pile(), &list("7D 3S")[..]);
    let msg = refuse(&mut g, 1, take_new("3S 3C", &[]), "PILE_BLOCKED");
    assert!(msg.contains("3♠"), "{msg}");
    assert!(msg.contains("draw from the stock"), "{msg}");
    assert!(!has_take(&g));
    assert!(legal(&g).contains(&Action::DrawStock));
}

// R-PILE-1: a joker on top blocks the pile too.
#[test]
fn r_pile_1_joker_on_top_blocks() {
    let mut g = arranged(4, &[], &["Jk", "7S 7H Jk"], "7D", "5D");
    draw_discard(&mut g, 0, "Jk");
    let msg = refuse(&mut g, 1, take_new("7S 7H", &[]), "PILE_BLOCKED");
    assert!(msg.contains("Jk"), "{msg}");
}

// R-PILE-2: a pile holding a wild card is frozen, also after the wild card is covered; a side
// that has melded may then not take it with one natural and a wild card.
#[test]
fn r_pile_2_frozen_by_covered_wild_card() {
    let mut g = opened(&[], "7D", "2C", "QD");
    assert!(g.side_melded(Side(0)));
    assert!(g.pile_frozen());
    assert!(!g.pile_blocked());
    assert_eq!(g.pile(), &list("7D 4H 2C 10H QD")[..]);
    let msg = refuse(&mut g, 0, take_new("QS Jk", &[]), "PILE_FROZEN");
    assert!(msg.contains("two natural queens"), "{msg}");
}

// R-PILE-2: a red three turned up with the upcards freezes the pile for the whole deal.
#[test]
fn r_pile_2_frozen_by_red_three_upcard() {
    let g = arranged(4, &[], &["", "", "", ""], "3H 7D", "");
    assert_eq!(g.pile(), &list("3H 7D")[..]);
    assert!(g.pile_frozen());
    // A black three turned up does not freeze it (R-DEAL-5).
    let g = arranged(4, &[], &["", "", "", ""], "3S 7D", "");
    assert_eq!(g.pile(), &list("3S 7D")[..]);
    assert!(!g.pile_frozen());

    // Side 0 has melded and the red three is still in the pile: one natural + wild is refused.
    let mut g = opened(&[], "3H 7D", "8S", "QD");
    assert!(g.side_melded(Side(0)));
    assert!(g.pile_frozen());
    let msg = refuse(&mut g, 0, take_new("QS Jk", &[]), "PILE_FROZEN");
    assert!(msg.contains("two natural queens"), "{msg}");
}

// R-PILE-2: the pile is frozen against a side that has not melded, though it holds no wild card
// and no red three.
#[test]
fn r_pile_2_frozen_for_side_not_melded() {
    let mut g = arranged(4, &[], &["7S Jk 4C 5D 6H 8S 9C 10D JH QS KC"], "7D", "");
    assert!(!g.pile_frozen());
    assert!(!g.side_melded(Side(0)));
    let msg = refuse(&mut g, 0, take_new("7S Jk", &[]), "PILE_FROZEN");
    assert!(msg.contains("two natural sevens"), "{msg}");
    assert!(msg.contains("you offered 1"), "{msg}");
    assert!(!has_take(&g));
}

// R-PILE-2: the partner's initial meld unfreezes the pile for the side: seat 2 may take it with
// one natural and a wild card although seat 2 has not melded himself.
#[test]
fn r_pile_2_partner_meld_unfreezes_for_side() {
    let mut g = arranged(
        4,
        &[],
        &["KS KH KD 9S 9D 9C", "QD", "QS Jk"],
        "7D",
        "4H 10S",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD"), new_meld("9S 9D 9C")]),
    );
    act(&mut g, 0, discard("4H"));
    act(&mut g, 1, Action::DrawStock);
    act(&mut g, 1, discard("QD"));
    act(&mut g, 2, take_new("QS Jk", &[]));
    let q = &g.melds(Side(0))[2];
    assert_eq!(q.cards, cards("QS QD Jk"));
    assert_eq!(q.creator, Seat(2));
}

// R-PILE-3: a frozen pile is taken with a natural pair of the top card's rank.
#[test]
fn r_pile_3_frozen_taken_with_natural_pair() {
    let mut g = opened(&[], "7D", "2C", "QD");
    assert!(g.pile_frozen());
    act(&mut g, 0, take_new("QS QH", &[]));
    assert_eq!(g.melds(Side(0))[2].cards, cards("QS QH QD"));
    assert_eq!(*g.hand(Seat(0)), cards("Jk 5C 6C 7D 4H 2C 10H"));
    assert_eq!(g.phase(), Phase::Play);
}

// R-PILE-3: a frozen pile cannot be taken by adding the top card to the side's meld of its rank
// without a natural pair from the hand.
#[test]
fn r_pile_3_frozen_not_taken_onto_meld() {
    let mut g = opened(&[], "7D", "2C", "9H");
    assert!(g.pile_frozen());
    let msg = refuse(&mut g, 0, take_add(1, ""), "PILE_FROZEN");
    assert!(msg.contains("two natural nines"), "{msg}");
    assert!(msg.contains("you offered 0"), "{msg}");
    assert!(!has_take(&g));
}

// R-PILE-3 (with R-INIT-3): for an initial meld the natural pair with the top card must reach
// the minimum together with further melds from the hand laid in the same action.
#[test]
fn r_pile_3_initial_meld_needs_minimum_with_extra_melds() {
    let mut g = arranged(4, &[], &["7S 7H AS AH AD 4C 5D 6H 8S 9C 10D"], "7D", "");
    assert_eq!(g.minimum(Side(0)), 50);
    let msg = refuse(&mut g, 0, take_new("7S 7H", &[]), "BELOW_MINIMUM");
    assert!(
        msg.contains("at least 50") && msg.contains("count 15"),
        "{msg}"
    );
    act(&mut g, 0, take_new("7S 7H", &[new_meld("AS AH AD")]));
    assert!(g.side_melded(Side(0)));
    let melds = g.melds(Side(0));
    assert_eq!(melds.len(), 2);
    assert_eq!(melds[0].cards, cards("7S 7H 7D"));
    assert_eq!(melds[1].cards, cards("AS AH AD"));
    assert_eq!(*g.hand(Seat(0)), cards("4C 5D 6H 8S 9C 10D"));
}

// R-PILE-4 (a): an unfrozen pile taken by a melded side with a natural pair.
#[test]
fn r_pile_4_unfrozen_natural_pair() {
    let mut g = opened(&[], "7D", "8S", "QD");
    assert!(!g.pile_frozen());
    act(&mut g, 0, take_new("QS QH", &[]));
    assert_eq!(g.melds(Side(0))[2].cards, cards("QS QH QD"));
    assert_eq!(*g.hand(Seat(0)), cards("Jk 5C 6C 7D 4H 8S 10H"));
}

// R-PILE-4 (b): an unfrozen pile taken by a melded side with one natural and one wild card.
#[test]
fn r_pile_4_unfrozen_natural_and_wild() {
    let mut g = opened(&[], "7D", "8S", "QD");
    act(&mut g, 0, take_new("QS Jk", &[]));
    assert_eq!(g.melds(Side(0))[2].cards, cards("QS QD Jk"));
    assert_eq!(*g.hand(Seat(0)), cards("QH 5C 6C 7D 4H 8S 10H"));
}

// R-PILE-4 (c): an unfrozen pile taken by adding the top card to the side's meld of its rank,
// with no card from the hand.
#[test]
fn r_pile_4_unfrozen_add_to_meld() {
    let mut g = opened(&[], "7D", "8S", "9H");
    let events = act(&mut g, 0, take_add(1, ""));
    assert_eq!(g.melds(Side(0))[1].cards, cards("9S 9D 9C 9H"));
    assert_eq!(*g.hand(Seat(0)), cards("QS QH Jk 5C 6C 7D 4H 8S 10H"));
    assert!(events.iter().any(|e| matches!(e,
        Event::PileTaken { placed, .. } if placed.len() == 1 && placed[0].meld == 1 && !placed[0].new
            && placed[0].cards == cards("9H"))));
}

/// Seat 0 opens with a natural canasta of kings (meld 0), keeping QS QH QD 5C; seat 3 discards
/// the eighth king. Seat 0 is then to draw.
fn canasta_then_king(options: &[(&str, &str)]) -> Game {
    let mut g = arranged(
        4,
        options,
        &["KS KS KH KH KD KD KC QS QH QD 5C", "", "", "KC"],
        "7D",
        "4H 10S 10H 10D",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD KD KC")]));
    act(&mut g, 0, discard("4H"));
    pass(&mut g, &[1, 2]);
    act(&mut g, 3, Action::DrawStock);
    act(&mut g, 3, discard("KC"));
    assert!(g.melds(Side(0))[0].is_canasta());
    g
}

// R-PILE-4 (c): the top card may be added to a completed canasta.
#[test]
fn r_pile_4_add_to_completed_canasta() {
    let mut g = canasta_then_king(&[]);
    act(&mut g, 0, take_add(0, ""));
    let k = &g.melds(Side(0))[0];
    assert_eq!(k.cards, cards("KS KS KH KH KD KD KC KC"));
    assert_eq!(k.canasta(), Some(canasta_engine::CanastaKind::Natural));
    assert_eq!(*g.hand(Seat(0)), cards("QS QH QD 5C 7D 4H 10S 10H"));
}

// R-PILE-4 (c) with option closed_canastas (Rasche j): no card goes onto a canasta, so the
// pile cannot be taken that way.
#[test]
fn r_pile_4_closed_canastas_refuses_add_to_canasta() {
    let mut g = canasta_then_king(&[("closed_canastas", "true")]);
    let msg = refuse(&mut g, 0, take_add(0, ""), "CANASTA_CLOSED");
    assert!(
        msg.contains("meld 0") && msg.contains("completed canasta"),
        "{msg}"
    );
    assert!(!has_take(&g));
}

// R-PILE-4: the top card must be melded with a natural card from the hand when it starts a new
// meld: wild cards alone, or nothing, are refused.
#[test]
fn r_pile_4_top_card_not_melded() {
    let mut g = opened(&[], "7D", "8S", "QD");
    let msg = refuse(&mut g, 0, take_new("Jk", &[]), "TOP_CARD_NOT_MELDED");
    assert!(msg.contains("natural pair"), "{msg}");
    refuse(&mut g, 0, take_new("", &[]), "TOP_CARD_NOT_MELDED");
}

// R-PILE-5: taking the pile melds the top card, puts the rest of the pile into the hand (a red
// three in it is laid, R-RED-3), and the player, now in the play phase, may meld further and
// must discard or go out.
#[test]
fn r_pile_5_after_taking() {
    let mut g = opened(&[], "3H 7D", "8S", "QD");
    act(&mut g, 0, take_new("QS QH", &[]));
    assert_eq!(g.phase(), Phase::Play);
    assert_eq!(g.to_act(), Some(Seat(0)));
    assert_eq!(g.melds(Side(0))[2].cards, cards("QS QH QD"));
    assert_eq!(*g.hand(Seat(0)), cards("Jk 5C 6C 7D 4H 8S 10H"));
    assert_eq!(*g.red_threes(Seat(0)), cards("3H"));
    assert!(g.turn_flags().took_pile);
    // No second draw.
    refuse(&mut g, 0, Action::DrawStock, "WRONG_PHASE");
    refuse(&mut g, 1, Action::DrawStock, "NOT_YOUR_TURN");
    // Further melds from the hand, then the discard that ends the turn.
    act(&mut g, 0, meld(&[add(2, "Jk")]));
    assert_eq!(g.melds(Side(0))[2].cards, cards("QS QH QD Jk"));
    act(&mut g, 0, discard("8S"));
    assert_eq!(*g.hand(Seat(0)), cards("5C 6C 7D 4H 10H"));
    assert_eq!(g.to_act(), Some(Seat(1)));
    assert_eq!(g.phase(), Phase::Draw);
}

/// Seat 0 opens with a canasta of kings (meld 0) and three fives (meld 1) and keeps only 9C;
/// seat 3 takes the pile with a pair of aces and discards 5C, so the pile is that one card.
fn one_card_each(options: &[(&str, &str)]) -> Game {
    let mut g = arranged(
        4,
        options,
        &["KS KS KH KH KD KD KC 5S 5H 5D 9C", "", "AC", "AS AH 5C"],
        "7D",
        "4D 10S 10H 10D",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KS KH KH KD KD KC"), new_meld("5S 5H 5D")]),
    );
    act(&mut g, 0, discard("4D"));
    pass(&mut g, &[1]);
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, discard("AC"));
    act(&mut g, 3, take_new("AS AH", &[]));
    act(&mut g, 3, discard("5C"));
    assert_eq!(*g.hand(Seat(0)), cards("9C"));
    assert_eq!(g.pile(), &list("5C")[..]);
    g
}

// R-PILE-6: a player holding one card may not take a pile of exactly one card.
#[test]
fn r_pile_6_one_card_may_not_take_one_card_pile() {
    let mut g = one_card_each(&[]);
    let msg = refuse(&mut g, 0, take_add(1, ""), "ONE_CARD_PILE");
    assert!(msg.contains("draw from the stock"), "{msg}");
    assert!(!has_take(&g));
    act(&mut g, 0, Action::DrawStock);
    assert_eq!(g.hand(Seat(0)).len(), 2);
}

// R-PILE-6: with option one_card_pile_rule=false (Wiener) the one-card pile may be taken; the
// player then holds his one card and must go out with it.
#[test]
fn r_pile_6_option_allows_one_card_pile() {
    let mut g = one_card_each(&[("one_card_pile_rule", "false")]);
    assert!(has_take(&g));
    act(&mut g, 0, take_add(1, ""));
    assert_eq!(g.melds(Side(0))[1].cards, cards("5S 5H 5D 5C"));
    assert!(g.pile().is_empty());
    assert_eq!(*g.hand(Seat(0)), cards("9C"));
    refuse(&mut g, 0, discard("9C"), "DISCARD_LAST_CARD");
    let events = act(&mut g, 0, go_out(&[], Some("9C")));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::WentOut { seat: Seat(0), .. }))
    );
}

// R-PILE-7: the pile is public: every seat's view and a spectator's view show all its cards, and
// the PileTaken event, as every seat receives it, lists the cards picked up.
#[test]
fn r_pile_7_pile_is_public() {
    let mut g = opened(&[], "7D", "8S", "QD");
    let whole = list("7D 4H 8S 10H QD");
    assert_eq!(g.pile(), &whole[..]);
    for viewer in [
        Viewer::Seat(Seat(0)),
        Viewer::Seat(Seat(1)),
        Viewer::Seat(Seat(3)),
        Viewer::Spectator,
    ] {
        assert_eq!(g.view(viewer).pile, whole, "{viewer:?}");
    }
    let events = act(&mut g, 0, take_new("QS QH", &[]));
    let taken = events
        .iter()
        .find(|e| matches!(e, Event::PileTaken { .. }))
        .expect("a PileTaken event");
    for viewer in [
        Viewer::Seat(Seat(1)),
        Viewer::Seat(Seat(2)),
        Viewer::Spectator,
    ] {
        match redact(taken, viewer) {
            Event::PileTaken {
                seat,
                top,
                placed,
                picked_up,
            } => {
                assert_eq!(seat, Seat(0));
                assert_eq!(top, card("QD"));
                assert_eq!(placed[0].cards, cards("QS QH QD"));
                assert_eq!(picked_up, list("7D 4H 8S 10H"), "{viewer:?}");
            }
            other => panic!("{other:?}"),
        }
    }
}

// R-PILE-8: a taken pile leaves the pile empty and no longer frozen; the taker's discard starts a
// new pile.
#[test]
fn r_pile_8_taken_pile_is_empty_and_unfrozen() {
    let mut g = opened(&[], "7D", "2C", "QD");
    assert!(g.pile_frozen());
    act(&mut g, 0, take_new("QS QH", &[]));
    assert!(g.pile().is_empty());
    assert!(!g.pile_frozen());
    assert!(!g.pile_blocked());
    assert!(g.view(Viewer::Spectator).pile.is_empty());
    act(&mut g, 0, discard("10H"));
    assert_eq!(g.pile(), &list("10H")[..]);
    assert!(!g.pile_frozen());
    assert_eq!(g.to_act(), Some(Seat(1)));
}
