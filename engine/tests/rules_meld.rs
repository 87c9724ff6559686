//! R-MELD: melds and canastas, played through `Game::apply` on prearranged deals.
mod common;
use common::*;

use canasta_engine::{
    Action, CanastaKind, CardCounts, DealEnd, Event, Game, MeldKind, Rank, Seat, Side,
};

/// The cards of each meld of a side, in the order laid.
fn melds_of(g: &Game, side: u8) -> Vec<CardCounts> {
    g.melds(Side(side)).iter().map(|m| m.cards).collect()
}

/// The melds an action's `Melded` event reports: (meld number, cards, new).
fn placed(events: &[Event]) -> Vec<(u8, CardCounts, bool)> {
    events
        .iter()
        .find_map(|e| match e {
            Event::Melded { placed, .. } => {
                Some(placed.iter().map(|p| (p.meld, p.cards, p.new)).collect())
            }
            _ => None,
        })
        .expect("a Melded event")
}

/// Seats 1, 2 and 3 each draw from the stock and discard the card they drew (the stock is
/// arranged so that these are the given cards).
fn others_draw_discard(g: &mut Game, drawn: [&str; 3]) {
    for (i, c) in drawn.iter().enumerate() {
        draw_discard(g, i as u8 + 1, c);
    }
}

// ----- R-MELD-1: three or more cards of a rank, at least two naturals, at most three wilds -----

// R-MELD-1: three naturals, and two naturals with a wild card, are melds; a meld may grow to
// three wild cards, not four.
#[test]
fn r_meld_1_valid_melds_up_to_three_wilds() {
    // Seat 0 holds kings, queens with a joker, and three twos; draws the 4♠.
    let mut g = arranged(4, &[], &["KS KH KD QS QH Jk 2C 2D 2H 9S 9H"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    let ev = act(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD"), new_meld("QS QH Jk")]),
    );
    assert_eq!(
        placed(&ev),
        vec![(0, cards("KS KH KD"), true), (1, cards("QS QH Jk"), true)]
    );
    assert_eq!(g.melds(Side(0))[0].kind, MeldKind::Group(Rank::King));
    assert_eq!(g.melds(Side(0))[1].kind, MeldKind::Group(Rank::Queen));
    // Two more wild cards: the queens hold three wilds.
    act(&mut g, 0, meld(&[add(1, "2C 2D")]));
    assert_eq!(
        melds_of(&g, 0),
        vec![cards("KS KH KD"), cards("QS QH Jk 2C 2D")]
    );
    assert_eq!(g.melds(Side(0))[1].wilds(), 3);
    // A fourth wild card is refused.
    let msg = refuse(&mut g, 0, meld(&[add(1, "2H")]), "TOO_MANY_WILDS");
    assert!(
        msg.contains("4 wild cards") && msg.contains("at most 3"),
        "{msg}"
    );
    assert_eq!(*g.hand(Seat(0)), cards("2H 9S 9H 4S"));
}

// R-MELD-1: a new meld may start with three wild cards (two naturals and three wilds), not four.
#[test]
fn r_meld_1_new_meld_with_three_wilds() {
    let mut g = arranged(4, &[], &["5S 5H Jk 2C 2D 2H 9S 9H 8S 8H 7S"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        meld(&[new_meld("5S 5H Jk 2C 2D 2H")]),
        "TOO_MANY_WILDS",
    );
    assert!(msg.contains("fives") && msg.contains("at most 3"), "{msg}");
    // 5 + 5 + 50 + 20 + 20 = 100: above the minimum of 50.
    act(&mut g, 0, meld(&[new_meld("5S 5H Jk 2C 2D")]));
    assert_eq!(melds_of(&g, 0), vec![cards("5S 5H Jk 2C 2D")]);
    assert_eq!(*g.hand(Seat(0)), cards("2H 9S 9H 8S 8H 7S 4S"));
}

// R-MELD-1: the shapes that are not melds, each with its code.
#[test]
fn r_meld_1_refused_shapes() {
    let mut g = arranged(4, &[], &["KS KH KD QS Jk 2C 2D 2H 5S 5H 5D"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS KH")]), "MELD_TOO_SMALL");
    assert!(msg.contains("would have 2"), "{msg}");
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS Jk 2C")]), "TOO_FEW_NATURALS");
    assert!(msg.contains("two natural kings"), "{msg}");
    refuse(
        &mut g,
        0,
        meld(&[new_meld("KS KH Jk 2C 2D 2H")]),
        "TOO_MANY_WILDS",
    );
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS KH QS")]), "MIXED_RANKS");
    assert!(msg.contains("queens") && msg.contains("kings"), "{msg}");
    // A wrong meld in a batch spoils the whole batch.
    refuse(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD Jk"), new_meld("5S 5H")]),
        "MELD_TOO_SMALL",
    );
    assert!(g.melds(Side(0)).is_empty());
    // The kings are melded; a queen cannot join them.
    act(&mut g, 0, meld(&[new_meld("KS KH KD Jk")]));
    let msg = refuse(&mut g, 0, meld(&[add(0, "QS")]), "WRONG_RANK");
    assert!(msg.contains("Q♠") && msg.contains("meld of kings"), "{msg}");
    assert_eq!(melds_of(&g, 0), vec![cards("KS KH KD Jk")]);
}

// R-MELD-1: cards must come from the hand, each as often as it is held.
#[test]
fn r_meld_1_card_not_held() {
    let mut g = arranged(4, &[], &["KS KH KD QS Jk 2C 2D 2H 5S 5H 5D"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld("AS AH AD")]), "CARD_NOT_HELD");
    assert!(msg.contains("you hold 0"), "{msg}");
    // The K♠ is held once, named twice.
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS KS KH")]), "CARD_NOT_HELD");
    assert!(msg.contains("K♠") && msg.contains("you hold 1"), "{msg}");
    // The one joker named in two melds of a batch.
    let msg = refuse(
        &mut g,
        0,
        meld(&[new_meld("KS KH Jk"), new_meld("5S 5H Jk")]),
        "CARD_NOT_HELD",
    );
    assert!(msg.contains("Jk") && msg.contains("you hold 1"), "{msg}");
    // The same melds with a two in the second: 70 + 30 = 100.
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KH Jk"), new_meld("5S 5H 2C")]),
    );
    assert_eq!(melds_of(&g, 0), vec![cards("KS KH Jk"), cards("5S 5H 2C")]);
}

// R-MELD-1: a meld action names at least one meld, and every entry names cards.
#[test]
fn r_meld_1_empty_meld() {
    let mut g = arranged(4, &[], &["KS KH KD QS Jk 2C 2D 2H 5S 5H 5D"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    refuse(&mut g, 0, meld(&[]), "EMPTY_MELD");
    refuse(&mut g, 0, meld(&[new_meld("")]), "EMPTY_MELD");
    refuse(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD Jk"), new_meld("")]),
        "EMPTY_MELD",
    );
    act(&mut g, 0, meld(&[new_meld("KS KH KD Jk")]));
    let msg = refuse(&mut g, 0, meld(&[add(0, "")]), "EMPTY_MELD");
    assert!(msg.contains("at least one card"), "{msg}");
    assert_eq!(melds_of(&g, 0), vec![cards("KS KH KD Jk")]);
}

// R-MELD-1 option wild_ratio=not_more_than_naturals (Wiener, Rasche): as many wilds as
// naturals at most, in new melds and additions.
#[test]
fn r_meld_1_option_wilds_not_more_than_naturals() {
    let opts = [("wild_ratio", "not_more_than_naturals")];
    let mut g = arranged(4, &opts, &["KS KH KD Jk 2C 2D 5S 5H 9S 9H 8S"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS KH Jk 2C 2D")]), "WILD_RATIO");
    assert!(msg.contains("may not outnumber"), "{msg}");
    act(&mut g, 0, meld(&[new_meld("KS KH Jk 2C")]));
    // A third wild card on two naturals is refused; with a third natural it is allowed.
    refuse(&mut g, 0, meld(&[add(0, "2D")]), "WILD_RATIO");
    act(&mut g, 0, meld(&[add(0, "KD 2D")]));
    assert_eq!(melds_of(&g, 0), vec![cards("KS KH KD Jk 2C 2D")]);
}

// R-MELD-1 option wild_ratio=fewer_than_naturals (seed 004): wild cards strictly fewer.
#[test]
fn r_meld_1_option_wilds_fewer_than_naturals() {
    let opts = [("wild_ratio", "fewer_than_naturals")];
    let mut g = arranged(4, &opts, &["KS KH KD Jk 2C 5S 5H 9S 9H 8S 8H"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS KH Jk 2C")]), "WILD_RATIO");
    assert!(msg.contains("must be fewer"), "{msg}");
    act(&mut g, 0, meld(&[new_meld("KS KH KD Jk 2C")]));
    assert_eq!(melds_of(&g, 0), vec![cards("KS KH KD Jk 2C")]);
}

// R-MELD-1 option max_wilds: the most wild cards in one meld.
#[test]
fn r_meld_1_option_max_wilds() {
    let opts = [("max_wilds", "1")];
    let mut g = arranged(4, &opts, &["KS KH KD Jk 2C 5S 5H 9S 9H 8S 8H"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD Jk 2C")]),
        "TOO_MANY_WILDS",
    );
    assert!(
        msg.contains("2 wild cards") && msg.contains("at most 1"),
        "{msg}"
    );
    act(&mut g, 0, meld(&[new_meld("KS KH KD Jk")]));
    refuse(&mut g, 0, meld(&[add(0, "2C")]), "TOO_MANY_WILDS");
    assert_eq!(melds_of(&g, 0), vec![cards("KS KH KD Jk")]);
}

// ----- R-MELD-2: one meld of each rank per side -----

// R-MELD-2: a new meld of a rank the side has melded is refused and names that meld; the cards
// go onto the existing meld instead.
#[test]
fn r_meld_2_new_meld_of_a_melded_rank() {
    let mut g = arranged(4, &[], &["QS QH QD KS KH KD KC KS Jk 9S 9H"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("QS QH QD"), new_meld("KS KH KD")]),
    );
    let msg = refuse(
        &mut g,
        0,
        meld(&[new_meld("KC KS Jk")]),
        "RANK_ALREADY_MELDED",
    );
    assert!(msg.contains("kings (meld 1)"), "{msg}");
    let ev = act(&mut g, 0, meld(&[add(1, "KC KS Jk")]));
    assert_eq!(placed(&ev), vec![(1, cards("KC KS Jk"), false)]);
    assert_eq!(
        melds_of(&g, 0),
        vec![cards("QS QH QD"), cards("KS KS KH KD KC Jk")]
    );
    assert_eq!(*g.hand(Seat(0)), cards("9S 9H 4S"));
}

// R-MELD-2: two new melds of one rank in one batch are refused; one meld of all the cards is
// laid.
#[test]
fn r_meld_2_two_new_melds_of_one_rank_in_a_batch() {
    let mut g = arranged(4, &[], &["AS AH AD AC Jk 2C 9S 9H 8S 8H 7S"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        meld(&[new_meld("AS AH Jk"), new_meld("AD AC 2C")]),
        "DUPLICATE_MELD",
    );
    assert!(msg.contains("one entry"), "{msg}");
    act(&mut g, 0, meld(&[new_meld("AS AH AD AC Jk 2C")]));
    assert_eq!(melds_of(&g, 0), vec![cards("AS AH AD AC Jk 2C")]);
}

// R-MELD-2: the same existing meld twice in one batch is refused.
#[test]
fn r_meld_2_same_meld_twice_in_a_batch() {
    let mut g = arranged(4, &[], &["KS KH KD Jk KC KS 9S 9H 8S 8H 7S"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KH KD Jk")]));
    refuse(
        &mut g,
        0,
        meld(&[add(0, "KC"), add(0, "KS")]),
        "DUPLICATE_MELD",
    );
    act(&mut g, 0, meld(&[add(0, "KC KS")]));
    assert_eq!(melds_of(&g, 0), vec![cards("KS KS KH KD KC Jk")]);
}

// ----- R-MELD-3: only one's own side's melds -----

// R-MELD-3: meld numbers refer to the acting seat's side. Side 1 has melds 0 and 1, side 0 only
// meld 0: seat 2 (side 0) cannot reach the opponents' meld 1, and its meld 0 is its own kings.
#[test]
fn r_meld_3_meld_numbers_are_the_own_sides() {
    let mut g = arranged(
        4,
        &[],
        &["KS KH KD Jk", "QS QH QD JS JH JD", "KC JC QC"],
        "6C",
        "9S 9H 9D",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KH KD Jk")]));
    act(&mut g, 0, discard("9S"));
    act(&mut g, 1, Action::DrawStock);
    act(
        &mut g,
        1,
        meld(&[new_meld("QS QH QD"), new_meld("JS JH JD")]),
    );
    act(&mut g, 1, discard("9H"));
    act(&mut g, 2, Action::DrawStock);
    let theirs = melds_of(&g, 1);
    assert_eq!(theirs, vec![cards("QS QH QD"), cards("JS JH JD")]);
    let msg = refuse(&mut g, 2, meld(&[add(1, "JC")]), "NO_SUCH_MELD");
    assert!(msg.contains("no meld 1 (it has 1)"), "{msg}");
    // Meld 0 is side 0's kings, not the opponents' queens.
    let msg = refuse(&mut g, 2, meld(&[add(0, "QC")]), "WRONG_RANK");
    assert!(msg.contains("meld of kings"), "{msg}");
    act(&mut g, 2, meld(&[add(0, "KC")]));
    assert_eq!(melds_of(&g, 0), vec![cards("KS KH KD KC Jk")]);
    assert_eq!(melds_of(&g, 1), theirs);
}

// ----- R-MELD-4: melded cards stay melded -----

// R-MELD-4: melding moves cards from the hand to the table for good: they are no longer held,
// so no discard or later meld can use them, and the melds are unchanged a round later.
#[test]
fn r_meld_4_melded_cards_stay_melded() {
    let mut g = arranged(
        4,
        &[],
        &["KS KH Jk QS QH QD 9S 9H 8S 8H 7S"],
        "6C",
        "4S 4H 4D 4C 9D",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KH Jk"), new_meld("QS QH QD")]),
    );
    let laid = vec![cards("KS KH Jk"), cards("QS QH QD")];
    assert_eq!(melds_of(&g, 0), laid);
    assert_eq!(*g.hand(Seat(0)), cards("9S 9H 8S 8H 7S 4S"));
    refuse(&mut g, 0, discard("Jk"), "CARD_NOT_HELD");
    refuse(&mut g, 0, meld(&[new_meld("9S 9H Jk")]), "CARD_NOT_HELD");
    act(&mut g, 0, discard("4S"));
    others_draw_discard(&mut g, ["4H", "4D", "4C"]);
    act(&mut g, 0, Action::DrawStock);
    assert_eq!(melds_of(&g, 0), laid);
    // The joker does not come back to move to another meld.
    refuse(&mut g, 0, meld(&[new_meld("9S 9H Jk")]), "CARD_NOT_HELD");
    refuse(&mut g, 0, meld(&[add(1, "Jk")]), "CARD_NOT_HELD");
    act(&mut g, 0, meld(&[new_meld("9S 9H 9D")]));
    assert_eq!(
        melds_of(&g, 0),
        vec![cards("KS KH Jk"), cards("QS QH QD"), cards("9S 9H 9D")]
    );
    assert_eq!(*g.hand(Seat(0)), cards("8S 8H 7S"));
}

// ----- R-MELD-5: canastas -----

// R-MELD-5: seven cards make a canasta: natural (no wild card) 500, mixed 300, in the deal
// score; cards may be added to a canasta (here a king on the natural canasta when going out).
#[test]
fn r_meld_5_natural_and_mixed_canasta_bonuses() {
    // Seat 0: seven kings and three aces; seat 2: five queens, a joker and a two.
    let mut g = arranged(
        4,
        &[],
        &[
            "KS KS KH KH KD KD KC AS AH AD 9S",
            "",
            "QS QS QH QH QD Jk 2C 4H 5H 6H 8H",
        ],
        "6C",
        "9H 7D 7H 7S KC",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD KD KC")]));
    assert_eq!(g.melds(Side(0))[0].canasta(), Some(CanastaKind::Natural));
    act(&mut g, 0, discard("9S"));
    draw_discard(&mut g, 1, "7D");
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, meld(&[new_meld("QS QS QH QH QD Jk 2C")]));
    assert_eq!(g.melds(Side(0))[1].canasta(), Some(CanastaKind::Mixed));
    act(&mut g, 2, discard("8H"));
    assert_eq!(*g.hand(Seat(2)), cards("4H 5H 6H 7H"));
    draw_discard(&mut g, 3, "7S");
    // Seat 0 draws the K♣, adds it to the canasta and goes out with the aces.
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        go_out(&[add(0, "KC"), new_meld("AS AH AD")], Some("9H")),
    );
    let report = &g.history()[0];
    assert_eq!(
        report.end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: false
        }
    );
    let s = report.sides[0];
    // Kings 8 x 10, queens 5 x 10 + 50 + 20, aces 3 x 20.
    assert_eq!(s.melded_cards, 80 + 120 + 60);
    assert_eq!((s.natural_canastas, s.mixed_canastas), (1, 1));
    assert_eq!(s.canasta_bonus, 500 + 300);
    assert_eq!(s.going_out_bonus, 100);
    assert_eq!(s.cards_in_hand, -20);
    assert_eq!(s.total, 260 + 800 + 100 - 20);
    let o = report.sides[1];
    assert_eq!(
        (o.natural_canastas, o.mixed_canastas, o.canasta_bonus),
        (0, 0, 0)
    );
    assert_eq!(g.scores()[0], 1140);
}

// R-MELD-5: a wild card added to a natural canasta makes it mixed (300, not 500).
#[test]
fn r_meld_5_wild_card_makes_a_natural_canasta_mixed() {
    let mut g = arranged(
        4,
        &[],
        &["KS KS KH KH KD KD KC Jk AS AH AD"],
        "6C",
        "9S 9H 9D 9C AC",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD KD KC")]));
    assert_eq!(g.melds(Side(0))[0].canasta(), Some(CanastaKind::Natural));
    act(&mut g, 0, meld(&[add(0, "Jk")]));
    assert_eq!(g.melds(Side(0))[0].len(), 8);
    assert_eq!(g.melds(Side(0))[0].canasta(), Some(CanastaKind::Mixed));
    act(&mut g, 0, discard("9S"));
    others_draw_discard(&mut g, ["9H", "9D", "9C"]);
    act(&mut g, 0, Action::DrawStock);
    let partner_hand = g.hand(Seat(2)).value() as i32;
    act(&mut g, 0, go_out(&[new_meld("AS AH AD AC")], None));
    let s = g.history()[0].sides[0];
    assert_eq!((s.natural_canastas, s.mixed_canastas), (0, 1));
    assert_eq!(s.canasta_bonus, 300);
    assert_eq!(s.melded_cards, 70 + 50 + 80);
    assert_eq!(s.total, 200 + 300 + 100 - partner_hand);
}

// R-MELD-5 option closed_canastas (Rasche j): a meld may grow to a canasta, but then takes no
// more cards, natural or wild.
#[test]
fn r_meld_5_option_closed_canastas() {
    let opts = [("closed_canastas", "true")];
    let mut g = arranged(4, &opts, &["KS KS KH KH KD KD KC KC Jk 9S 9H"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD KD")]));
    assert_eq!(g.melds(Side(0))[0].canasta(), None);
    act(&mut g, 0, meld(&[add(0, "KC")]));
    assert_eq!(g.melds(Side(0))[0].canasta(), Some(CanastaKind::Natural));
    let msg = refuse(&mut g, 0, meld(&[add(0, "KC")]), "CANASTA_CLOSED");
    assert!(msg.contains("meld 0"), "{msg}");
    refuse(&mut g, 0, meld(&[add(0, "Jk")]), "CANASTA_CLOSED");
    assert_eq!(melds_of(&g, 0), vec![cards("KS KS KH KH KD KD KC")]);
}

// ----- R-MELD-6: black threes -----

// R-MELD-6: black threes are melded only when going out, three or four together, without wild
// cards, never in a group; a going out that melds three black threes succeeds.
#[test]
fn r_meld_6_black_threes_only_when_going_out() {
    let mut g = arranged(4, &[], &["KS KS KH KH KD KD KC 3S 3C 3S Jk"], "6C", "9H");
    act(&mut g, 0, Action::DrawStock);
    let kings = new_meld("KS KS KH KH KD KD KC Jk");
    let msg = refuse(
        &mut g,
        0,
        meld(&[new_meld("3S 3C 3S")]),
        "BLACK_THREES_ONLY_GOING_OUT",
    );
    assert!(msg.contains("only when going out"), "{msg}");
    let msg = refuse(
        &mut g,
        0,
        go_out(&[kings, new_meld("3S 3C")], Some("9H")),
        "BAD_BLACK_THREE_MELD",
    );
    assert!(msg.contains("not 2"), "{msg}");
    refuse(
        &mut g,
        0,
        go_out(
            &[new_meld("KS KS KH KH KD KD KC"), new_meld("3S 3C 3S Jk")],
            Some("9H"),
        ),
        "BAD_BLACK_THREE_MELD",
    );
    refuse(&mut g, 0, meld(&[new_meld("KS KH 3S")]), "WRONG_RANK");
    let partner_hand = g.hand(Seat(2)).value() as i32;
    let ev = act(
        &mut g,
        0,
        go_out(&[kings, new_meld("3S 3C 3S")], Some("9H")),
    );
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::WentOut {
            seat: Seat(0),
            concealed: true,
            ..
        }
    )));
    let s = g.history()[0].sides[0];
    // Kings 70 + joker 50 + three black threes at 5.
    assert_eq!(s.melded_cards, 135);
    assert_eq!(s.mixed_canastas, 1);
    assert_eq!(s.going_out_bonus, 200);
    assert_eq!(s.total, 135 + 300 + 200 - partner_hand);
}

// R-MELD-6: four black threes may be melded together when going out.
#[test]
fn r_meld_6_four_black_threes_going_out() {
    let mut g = arranged(4, &[], &["KS KS KH KH KD KD KC 3S 3S 3C 3C"], "6C", "9H");
    act(&mut g, 0, Action::DrawStock);
    let ev = act(
        &mut g,
        0,
        go_out(
            &[new_meld("KS KS KH KH KD KD KC"), new_meld("3S 3S 3C 3C")],
            Some("9H"),
        ),
    );
    let laid: Vec<CardCounts> = ev
        .iter()
        .find_map(|e| match e {
            Event::WentOut { placed, .. } => Some(placed.iter().map(|p| p.cards).collect()),
            _ => None,
        })
        .expect("went out");
    assert_eq!(
        laid,
        vec![cards("KS KS KH KH KD KD KC"), cards("3S 3S 3C 3C")]
    );
    assert_eq!(g.history()[0].sides[0].melded_cards, 70 + 20);
}

// ----- R-MELD-7: no meld of wild cards only -----

// R-MELD-7: a meld of wild cards only is refused, alone or in a batch; the wild cards may join
// a meld with naturals.
#[test]
fn r_meld_7_wild_only_meld() {
    let mut g = arranged(4, &[], &["Jk 2C 2D KS KH KD AS AH AD 9S 9H"], "6C", "4S");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld("Jk 2C 2D")]), "WILD_ONLY_MELD");
    assert!(msg.contains("wild cards only"), "{msg}");
    refuse(
        &mut g,
        0,
        meld(&[new_meld("AS AH AD"), new_meld("Jk 2C 2D")]),
        "WILD_ONLY_MELD",
    );
    act(
        &mut g,
        0,
        meld(&[new_meld("AS AH AD"), new_meld("KS KH KD Jk 2C 2D")]),
    );
    assert_eq!(
        melds_of(&g, 0),
        vec![cards("AS AH AD"), cards("KS KH KD Jk 2C 2D")]
    );
}
