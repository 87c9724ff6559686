//! R-INIT (the initial meld) and R-TURN (the turn), played through `Game::apply` on
//! prearranged deals.
mod common;
use common::*;

use canasta_engine::{Action, CardCounts, DealEnd, Event, Game, MeldSpec, Phase, Seat, Side};

/// The cards of each meld of a side, in the order laid.
fn melds_of(g: &Game, side: u8) -> Vec<CardCounts> {
    g.melds(Side(side)).iter().map(|m| m.cards).collect()
}

/// A four-player game where side 0 starts the deal with `score` (side 1 with 0) and seat 0,
/// holding `hand`, has drawn the 4♠ from the stock.
fn drawn_at_score(score: i32, hand: &str) -> Game {
    let mut g = arranged_with(spec(4, &[]), &[hand], "6C", "4S", vec![score, 0]);
    act(&mut g, 0, Action::DrawStock);
    g
}

/// `hand` without the cards of `out`, plus the cards of `plus`.
fn changed(hand: &CardCounts, out: &str, plus: &[&str]) -> CardCounts {
    let mut h = *hand;
    h.remove_all(&cards(out));
    for c in plus {
        h.add(card(c));
    }
    h
}

// ----- R-INIT-1: the minimum by cumulative score -----

// R-INIT-1: below 0: 15; 0 to 1495: 50; 1500 to 2995: 90; 3000 or more: 120, per side.
#[test]
fn r_init_1_minimum_by_cumulative_score() {
    for (score, minimum) in [
        (-5, 15),
        (0, 50),
        (1495, 50),
        (1500, 90),
        (2995, 90),
        (3000, 120),
        (4990, 120),
    ] {
        let g = arranged_with(spec(4, &[]), &[""], "6C", "", vec![score, 0]);
        assert_eq!(g.minimum(Side(0)), minimum, "score {score}");
        assert_eq!(g.minimum(Side(1)), 50, "score {score}");
        assert_eq!(g.legal().unwrap().summary().minimum_remaining, minimum);
    }
    let g = arranged_with(spec(4, &[]), &[""], "6C", "", vec![1500, -20]);
    assert_eq!((g.minimum(Side(0)), g.minimum(Side(1))), (90, 15));
}

// R-INIT-1: the minimum is set at the start of each deal from the cumulative score: side 0
// starts at 1000 and goes out (cumulative 1500 or more: 90); side 1 ends below 0 (15).
#[test]
fn r_init_1_minimum_follows_the_score_between_deals() {
    let mut g = arranged_with(
        spec(4, &[]),
        &["4S 4S 4H 4H 4D 4D 4C 5S 5H 5D 5C"],
        "6C",
        "6S",
        vec![1000, 0],
    );
    assert_eq!((g.minimum(Side(0)), g.minimum(Side(1))), (50, 50));
    act(&mut g, 0, Action::DrawStock);
    let ev = act(
        &mut g,
        0,
        go_out(
            &[new_meld("4S 4S 4H 4H 4D 4D 4C"), new_meld("5S 5H 5D 5C")],
            Some("6S"),
        ),
    );
    let scores = g.scores().to_vec();
    assert!(scores[0] >= 1500 && scores[0] < 3000, "{scores:?}");
    assert!(scores[1] < 0, "{scores:?}");
    assert_eq!((g.minimum(Side(0)), g.minimum(Side(1))), (90, 15));
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::DealStarted(d) if d.deal == 1 && d.minimums == vec![90, 15]
    )));
}

// R-INIT-1: below the minimum the meld is refused (nothing changes, the message gives the
// value and the minimum); at the minimum it is laid. One case per tier.
#[test]
fn r_init_1_meld_below_minimum_refused_at_each_tier() {
    // Below 0: 15. Three fives make it exactly.
    let mut g = drawn_at_score(-5, "5S 5H 5D");
    act(&mut g, 0, meld(&[new_meld("5S 5H 5D")]));
    assert!(g.side_melded(Side(0)));

    // 0: 50.
    let mut g = drawn_at_score(0, "KS KH KD 2C");
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS KH KD")]), "BELOW_MINIMUM");
    assert!(
        msg.contains("at least 50") && msg.contains("count 30"),
        "{msg}"
    );
    assert!(!g.side_melded(Side(0)));
    act(&mut g, 0, meld(&[new_meld("KS KH KD 2C")]));
    assert!(g.side_melded(Side(0)));

    // 1500: 90.
    let mut g = drawn_at_score(1500, "AS AH AD KS KH KD 2C");
    let msg = refuse(&mut g, 0, meld(&[new_meld("AS AH AD 2C")]), "BELOW_MINIMUM");
    assert!(
        msg.contains("at least 90") && msg.contains("count 80"),
        "{msg}"
    );
    act(
        &mut g,
        0,
        meld(&[new_meld("AS AH AD"), new_meld("KS KH KD")]),
    );
    assert_eq!(melds_of(&g, 0), vec![cards("AS AH AD"), cards("KS KH KD")]);

    // 3000: 120.
    let mut g = drawn_at_score(3000, "AS AH AD AC KS KH KD KC");
    let msg = refuse(
        &mut g,
        0,
        meld(&[new_meld("AS AH AD AC"), new_meld("KS KH KD")]),
        "BELOW_MINIMUM",
    );
    assert!(
        msg.contains("at least 120") && msg.contains("count 110"),
        "{msg}"
    );
    act(
        &mut g,
        0,
        meld(&[new_meld("AS AH AD AC"), new_meld("KS KH KD KC")]),
    );
    assert!(g.side_melded(Side(0)));
}

// R-INIT-1: each side has its own minimum: side 0 at 1500 needs 90, side 1 at 0 needs 50.
#[test]
fn r_init_1_each_side_its_own_minimum() {
    let mut g = arranged_with(
        spec(4, &[]),
        &["KS KH KD 2C", "QS QH QD 2D"],
        "6C",
        "4S 4H",
        vec![1500, 0],
    );
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS KH KD 2C")]), "BELOW_MINIMUM");
    assert!(
        msg.contains("at least 90") && msg.contains("count 50"),
        "{msg}"
    );
    act(&mut g, 0, discard("4S"));
    act(&mut g, 1, Action::DrawStock);
    act(&mut g, 1, meld(&[new_meld("QS QH QD 2D")]));
    assert_eq!(melds_of(&g, 1), vec![cards("QS QH QD 2D")]);
    assert!(!g.side_melded(Side(0)) && g.side_melded(Side(1)));
}

// R-INIT-1 option minimum_table (Rasche e: 25-90-120-150).
#[test]
fn r_init_1_option_minimum_table() {
    let table = spec(4, &[("minimum_table", "-inf:25,0:90,1500:120,3000:150")]);
    let g = arranged_with(table.clone(), &[""], "6C", "", vec![-100, 3000]);
    assert_eq!((g.minimum(Side(0)), g.minimum(Side(1))), (25, 150));
    let mut g = arranged_with(table, &["AS AH AD KS KH KD 2C"], "6C", "4S", vec![0, 1500]);
    assert_eq!((g.minimum(Side(0)), g.minimum(Side(1))), (90, 120));
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS KH KD 2C")]), "BELOW_MINIMUM");
    assert!(
        msg.contains("at least 90") && msg.contains("count 50"),
        "{msg}"
    );
    act(
        &mut g,
        0,
        meld(&[new_meld("AS AH AD"), new_meld("KS KH KD")]),
    );
    assert!(g.side_melded(Side(0)));
}

// ----- R-INIT-2: melds of one action count together; bonuses never count -----

// R-INIT-2: each meld alone is below 50; laid in one action they count together.
#[test]
fn r_init_2_melds_of_one_action_count_together() {
    let mut g = drawn_at_score(0, "KS KH KD QS QH QD 5S 5H 5D");
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS KH KD")]), "BELOW_MINIMUM");
    assert!(msg.contains("count 30"), "{msg}");
    refuse(&mut g, 0, meld(&[new_meld("QS QH QD")]), "BELOW_MINIMUM");
    let msg = refuse(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD"), new_meld("5S 5H 5D")]),
        "BELOW_MINIMUM",
    );
    assert!(msg.contains("count 45"), "{msg}");
    let ev = act(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD"), new_meld("QS QH QD")]),
    );
    assert!(matches!(&ev[..], [Event::Melded { seat: Seat(0), placed }] if placed.len() == 2));
    assert_eq!(melds_of(&g, 0), vec![cards("KS KH KD"), cards("QS QH QD")]);
    // Once melded, the fives follow alone.
    act(&mut g, 0, meld(&[new_meld("5S 5H 5D")]));
    assert_eq!(g.melds(Side(0)).len(), 3);
}

// R-INIT-2: red threes and canasta bonuses do not count toward the minimum: two red threes laid
// (200) and a natural canasta of sevens (500 bonus, 35 in cards) still count 35.
#[test]
fn r_init_2_bonuses_do_not_count() {
    // Seat 0 is dealt two red threes; they are laid at its first turn and replaced by the K♦
    // and the 9♠; then it draws the 4♠.
    let mut g = arranged(
        4,
        &[],
        &["3H 3D 7S 7S 7H 7H 7D 7D 7C KS KH"],
        "6C",
        "KD 9S 4S",
    );
    assert_eq!(*g.red_threes(Seat(0)), cards("3H 3D"));
    assert_eq!(*g.hand(Seat(0)), cards("7S 7S 7H 7H 7D 7D 7C KS KH KD 9S"));
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        meld(&[new_meld("7S 7S 7H 7H 7D 7D 7C")]),
        "BELOW_MINIMUM",
    );
    assert!(
        msg.contains("count 35") && msg.contains("at least 50"),
        "{msg}"
    );
    act(
        &mut g,
        0,
        meld(&[new_meld("7S 7S 7H 7H 7D 7D 7C"), new_meld("KS KH KD")]),
    );
    assert!(g.side_melded(Side(0)));
    assert_eq!(*g.hand(Seat(0)), cards("9S 4S"));
}

// ----- R-INIT-3: taking the pile for the initial meld -----

// R-INIT-3: the top card and the hand cards melded with it count, with further melds of the
// same action; the rest of the pile (here 9♠ Jk A♠, 80 points) never counts.
#[test]
fn r_init_3_pile_take_counts_top_and_melds_not_the_rest() {
    // Seats 0, 1, 2 discard the joker, the A♠ and the 5♠ onto the 9♠; seat 3 holds the fives.
    let mut g = arranged(
        4,
        &[],
        &["Jk", "AS", "5S", "5H 5D KS KH KD QS QH QD"],
        "9S",
        "4S 4H 4D",
    );
    draw_discard(&mut g, 0, "Jk");
    draw_discard(&mut g, 1, "AS");
    draw_discard(&mut g, 2, "5S");
    assert_eq!(g.pile(), &list("9S Jk AS 5S")[..]);
    let msg = refuse(&mut g, 3, take_new("5H 5D", &[]), "BELOW_MINIMUM");
    assert!(
        msg.contains("count 15") && msg.contains("at least 50"),
        "{msg}"
    );
    let msg = refuse(
        &mut g,
        3,
        take_new("5H 5D", &[new_meld("KS KH KD")]),
        "BELOW_MINIMUM",
    );
    assert!(msg.contains("count 45"), "{msg}");
    let before = *g.hand(Seat(3));
    let ev = act(
        &mut g,
        3,
        take_new("5H 5D", &[new_meld("KS KH KD"), new_meld("QS QH QD")]),
    );
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::PileTaken { seat: Seat(3), top, picked_up, .. }
            if *top == card("5S") && *picked_up == list("9S Jk AS")
    )));
    assert_eq!(
        melds_of(&g, 1),
        vec![cards("5S 5H 5D"), cards("KS KH KD"), cards("QS QH QD")]
    );
    assert_eq!(
        *g.hand(Seat(3)),
        changed(&before, "5H 5D KS KH KD QS QH QD", &["9S", "Jk", "AS"])
    );
    assert!(g.pile().is_empty());
}

// ----- R-INIT-4: no minimum once the side has melded -----

// R-INIT-4: after seat 0 melds, its partner lays three fives (15) alone; the opponents, not yet
// melded, may not.
#[test]
fn r_init_4_partner_needs_no_minimum() {
    let mut g = arranged(
        4,
        &[],
        &["KS KH KD QS QH QD", "4S 4H 4D", "5S 5H 5D"],
        "6C",
        "9S 9H 9D",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD"), new_meld("QS QH QD")]),
    );
    act(&mut g, 0, discard("9S"));
    act(&mut g, 1, Action::DrawStock);
    let msg = refuse(&mut g, 1, meld(&[new_meld("4S 4H 4D")]), "BELOW_MINIMUM");
    assert!(msg.contains("count 15"), "{msg}");
    act(&mut g, 1, discard("9H"));
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, meld(&[new_meld("5S 5H 5D")]));
    assert_eq!(
        melds_of(&g, 0),
        vec![cards("KS KH KD"), cards("QS QH QD"), cards("5S 5H 5D")]
    );
    assert_eq!(g.melds(Side(0))[2].creator, Seat(2));
}

// ----- R-INIT-5: concealed going out needs no minimum -----

// R-INIT-5: at 1500 the minimum is 90; seat 0 goes out concealed from a stock draw with a
// natural canasta of fours and four fives, 55 points.
#[test]
fn r_init_5_concealed_going_out_needs_no_minimum() {
    let mut g = arranged_with(
        spec(4, &[]),
        &["4S 4S 4H 4H 4D 4D 4C 5S 5H 5D 5C"],
        "6C",
        "6S",
        vec![1500, 0],
    );
    act(&mut g, 0, Action::DrawStock);
    let fours = new_meld("4S 4S 4H 4H 4D 4D 4C");
    let msg = refuse(
        &mut g,
        0,
        meld(&[fours, new_meld("5S 5H 5D 5C")]),
        "BELOW_MINIMUM",
    );
    assert!(
        msg.contains("count 55") && msg.contains("at least 90"),
        "{msg}"
    );
    let partner_hand = g.hand(Seat(2)).value() as i32;
    let ev = act(
        &mut g,
        0,
        go_out(&[fours, new_meld("5S 5H 5D 5C")], Some("6S")),
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
    assert_eq!(s.melded_cards, 55);
    assert_eq!(s.canasta_bonus, 500);
    assert_eq!(s.going_out_bonus, 200);
    assert_eq!(s.total, 55 + 500 + 200 - partner_hand);
    assert_eq!(g.scores()[0], 1500 + s.total);
}

// ----- R-TURN-1: draw, meld, discard -----

// R-TURN-1: nothing before the draw, one draw only, melds as often as allowed, and the discard
// ends the turn.
#[test]
fn r_turn_1_draw_then_meld_then_discard() {
    let mut g = arranged(4, &[], &["KS KH KD QS QH QD KC"], "6C", "8S");
    let melds = meld(&[new_meld("KS KH KD"), new_meld("QS QH QD")]);
    let msg = refuse(&mut g, 0, melds.clone(), "WRONG_PHASE");
    assert!(msg.contains("start your turn by drawing"), "{msg}");
    refuse(&mut g, 0, discard("KC"), "WRONG_PHASE");
    refuse(&mut g, 0, go_out(&[], Some("KC")), "WRONG_PHASE");
    act(&mut g, 0, Action::DrawStock);
    assert_eq!(g.phase(), Phase::Play);
    let msg = refuse(&mut g, 0, Action::DrawStock, "WRONG_PHASE");
    assert!(msg.contains("you have drawn already"), "{msg}");
    refuse(&mut g, 0, take_new("6S 6H", &[]), "WRONG_PHASE");
    act(&mut g, 0, melds);
    act(&mut g, 0, meld(&[add(0, "KC")]));
    assert_eq!(g.to_act(), Some(Seat(0)));
    let ev = act(&mut g, 0, discard("8S"));
    assert_eq!(
        ev,
        vec![
            Event::Discarded {
                seat: Seat(0),
                card: card("8S"),
                blocks: false,
                frozen: false
            },
            Event::TurnStarted { seat: Seat(1) },
        ]
    );
    assert_eq!(g.to_act(), Some(Seat(1)));
    assert_eq!(g.phase(), Phase::Draw);
    assert_eq!(g.pile().last(), Some(&card("8S")));
    assert_eq!(
        melds_of(&g, 0),
        vec![cards("KS KH KD KC"), cards("QS QH QD")]
    );
}

// R-TURN-1: only the seat to act may act, and only seats of the game.
#[test]
fn r_turn_1_not_your_turn_and_no_such_seat() {
    let mut g = arranged(4, &[], &[""], "6C", "8S");
    let msg = refuse(&mut g, 1, Action::DrawStock, "NOT_YOUR_TURN");
    assert!(msg.contains("seat 0's turn"), "{msg}");
    let msg = refuse(&mut g, 9, Action::DrawStock, "NO_SUCH_SEAT");
    assert!(msg.contains("seat 9"), "{msg}");
    act(&mut g, 0, Action::DrawStock);
    refuse(&mut g, 2, discard("8S"), "NOT_YOUR_TURN");
    act(&mut g, 0, discard("8S"));
    refuse(&mut g, 0, Action::DrawStock, "NOT_YOUR_TURN");
    act(&mut g, 1, Action::DrawStock);
}

// R-TURN-1: going out ends the turn (and the deal) without a discard.
#[test]
fn r_turn_1_going_out_without_discard_ends_the_turn() {
    let mut g = arranged(4, &[], &["KS KS KH KH KD KD KC AS AH AD AC"], "6C", "AS");
    act(&mut g, 0, Action::DrawStock);
    let ev = act(
        &mut g,
        0,
        go_out(
            &[new_meld("KS KS KH KH KD KD KC"), new_meld("AS AS AH AD AC")],
            None,
        ),
    );
    assert!(matches!(
        &ev[0],
        Event::WentOut {
            seat: Seat(0),
            discard: None,
            concealed: true,
            ..
        }
    ));
    assert!(matches!(&ev[1], Event::DealEnded(_)));
    assert!(matches!(&ev[2], Event::DealStarted(_)));
    assert!(!ev.iter().any(|e| matches!(e, Event::Discarded { .. })));
    assert_eq!(
        g.history()[0].end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: true
        }
    );
    // The next deal: seat 0 deals, seat 1 plays first.
    assert_eq!(g.deal_number(), 1);
    assert_eq!(g.to_act(), Some(Seat(1)));
    assert_eq!(g.phase(), Phase::Draw);
}

// ----- R-TURN-2: a card to discard -----

// R-TURN-2: a meld that would leave one card is refused; the side cannot go out (no canasta),
// and the message says so. Leaving two cards is fine.
#[test]
fn r_turn_2_meld_must_keep_a_card() {
    let mut g = arranged(4, &[], &["KS KH KD QS QH QD JS JH JD JC JS"], "6C", "9S");
    act(&mut g, 0, Action::DrawStock);
    let all: [MeldSpec; 3] = [
        new_meld("KS KH KD"),
        new_meld("QS QH QD"),
        new_meld("JS JS JH JD JC"),
    ];
    let msg = refuse(&mut g, 0, meld(&all), "MUST_KEEP_CARD");
    assert!(
        msg.contains("leave you 1 card(s)") && msg.contains("cannot go out yet"),
        "{msg}"
    );
    act(
        &mut g,
        0,
        meld(&[
            new_meld("KS KH KD"),
            new_meld("QS QH QD"),
            new_meld("JS JH JD JC"),
        ]),
    );
    assert_eq!(*g.hand(Seat(0)), cards("JS 9S"));
    act(&mut g, 0, discard("9S"));
    assert_eq!(*g.hand(Seat(0)), cards("JS"));
}

// R-TURN-2: even when the side could go out (the meld completes a canasta), a meld action may
// not leave fewer than two cards: the message points to going out, which then succeeds.
#[test]
fn r_turn_2_meld_must_keep_a_card_even_when_going_out_is_possible() {
    let mut g = arranged(4, &[], &["KS KS KH KH KD KD KC AS AH AD AC"], "6C", "9S");
    act(&mut g, 0, Action::DrawStock);
    let all = [new_meld("KS KS KH KH KD KD KC"), new_meld("AS AH AD AC")];
    let msg = refuse(&mut g, 0, meld(&all), "MUST_KEEP_CARD");
    assert!(
        msg.contains("leave you 1 card(s)") && msg.contains("send go_out"),
        "{msg}"
    );
    let ev = act(&mut g, 0, go_out(&all, Some("9S")));
    assert!(matches!(
        &ev[0],
        Event::WentOut { seat: Seat(0), discard: Some(c), .. } if *c == card("9S")
    ));
}

/// Seat 0 holds `hand`, draws the 6♣, lays `first` and discards the 6♣, keeping the 9♠ 9♥ 5♣.
/// Seat 3 then takes the pile with its aces and discards the 9♦: at seat 0's turn the pile is
/// that one card.
fn one_card_pile_for_nines(hand: &str, first: &[MeldSpec]) -> Game {
    let mut g = arranged(4, &[], &[hand, "", "AD", "AS AH 9D"], "10S", "6C 7D 8D");
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(first));
    act(&mut g, 0, discard("6C"));
    assert_eq!(*g.hand(Seat(0)), cards("9S 9H 5C"));
    draw_discard(&mut g, 1, "7D");
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, discard("AD"));
    act(&mut g, 3, take_new("AS AH", &[]));
    act(&mut g, 3, discard("9D"));
    assert_eq!(g.pile(), &list("9D")[..]);
    g
}

// R-TURN-2: discarding the last card is going out, so a Discard of it is refused; GoOut with
// that discard succeeds. Seat 0's side has a canasta, so it may take a one-card pile with its
// nines and keep a single card.
#[test]
fn r_turn_2_discard_last_card_refused() {
    let hand = "KS KS KH KH KD KD KC KC 9S 9H 5C";
    let mut g = one_card_pile_for_nines(hand, &[new_meld("KS KS KH KH KD KD KC KC")]);
    act(&mut g, 0, take_new("9S 9H", &[]));
    assert_eq!(*g.hand(Seat(0)), cards("5C"));
    let msg = refuse(&mut g, 0, discard("5C"), "DISCARD_LAST_CARD");
    assert!(msg.contains("send go_out with the discard"), "{msg}");
    let ev = act(&mut g, 0, go_out(&[], Some("5C")));
    assert!(matches!(
        &ev[0],
        Event::WentOut { seat: Seat(0), discard: Some(c), .. } if *c == card("5C")
    ));
}

// R-TURN-2: without a canasta, taking the pile may not leave a single card either.
#[test]
fn r_turn_2_pile_take_must_keep_a_card() {
    let hand = "KS KH KD KC QS QH QD QC 9S 9H 5C";
    let first = [new_meld("KS KH KD KC"), new_meld("QS QH QD QC")];
    let mut g = one_card_pile_for_nines(hand, &first);
    let msg = refuse(&mut g, 0, take_new("9S 9H", &[]), "MUST_KEEP_CARD");
    assert!(
        msg.contains("leave you 1 card(s)") && msg.contains("cannot go out yet"),
        "{msg}"
    );
    act(&mut g, 0, Action::DrawStock);
    assert_eq!(g.hand(Seat(0)).len(), 4);
}

// ----- R-TURN-3: red threes are never discarded -----

// R-TURN-3: red threes never stay in a hand (dealt ones are laid at the first turn, drawn ones
// at once, both replaced), and a discard of one is refused with RED_THREE.
#[test]
fn r_turn_3_red_three_never_discarded() {
    // Seat 0 is dealt the 3♥ (replaced by the 9♠), then draws the 3♦ (replaced by the 4♠).
    let mut g = arranged(4, &[], &["3H"], "6C", "9S 3D 4S");
    assert_eq!(*g.red_threes(Seat(0)), cards("3H"));
    assert_eq!(g.hand(Seat(0)).red_threes(), 0);
    let ev = act(&mut g, 0, Action::DrawStock);
    assert!(matches!(
        &ev[0],
        Event::RedThreeLaid { seat: Seat(0), card: c, .. } if *c == card("3D")
    ));
    assert_eq!(*g.red_threes(Seat(0)), cards("3H 3D"));
    assert_eq!(g.hand(Seat(0)).red_threes(), 0);
    assert_eq!(g.hand(Seat(0)).len(), 12);
    let msg = refuse(&mut g, 0, discard("3H"), "RED_THREE");
    assert!(msg.contains("never melded or discarded"), "{msg}");
    refuse(&mut g, 0, discard("3D"), "RED_THREE");
    refuse(&mut g, 0, go_out(&[], Some("3H")), "RED_THREE");
    act(&mut g, 0, discard("4S"));
    assert_eq!(g.pile(), &list("6C 4S")[..]);
}

// ----- R-TURN-4: stop cards -----

// R-TURN-4: a discarded wild card freezes the pile and blocks it for the next player; covered,
// it still freezes: the pile then needs a natural pair.
#[test]
fn r_turn_4_discarded_wild_card_freezes_and_blocks() {
    let mut g = arranged(
        4,
        &[],
        &["KS KH KD QS QH QD 2C", "9D", "9S 9H Jk"],
        "6C",
        "4S 4H 4D",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD"), new_meld("QS QH QD")]),
    );
    let ev = act(&mut g, 0, discard("2C"));
    assert_eq!(
        ev[0],
        Event::Discarded {
            seat: Seat(0),
            card: card("2C"),
            blocks: true,
            frozen: true
        }
    );
    assert!(g.pile_frozen() && g.pile_blocked());
    let msg = refuse(&mut g, 1, take_new("9D", &[]), "PILE_BLOCKED");
    assert!(msg.contains("2♣"), "{msg}");
    act(&mut g, 1, Action::DrawStock);
    let ev = act(&mut g, 1, discard("9D"));
    assert_eq!(
        ev[0],
        Event::Discarded {
            seat: Seat(1),
            card: card("9D"),
            blocks: false,
            frozen: true
        }
    );
    assert!(g.pile_frozen() && !g.pile_blocked());
    // Side 0 has melded, but the two in the pile freezes it: one natural and a wild won't do.
    refuse(&mut g, 2, take_new("9S Jk", &[]), "PILE_FROZEN");
    let ev = act(&mut g, 2, take_new("9S 9H", &[]));
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::PileTaken { picked_up, .. } if *picked_up == list("6C 2C")
    )));
    assert!(!g.pile_frozen());
}

// R-TURN-4: a discarded black three blocks the pile for the next player only, without freezing
// it; once covered, the player after may take the pile (with a natural and a wild card).
#[test]
fn r_turn_4_black_three_blocks_next_player_only() {
    let mut g = arranged(
        4,
        &[],
        &["KS KH KD QS QH QD 3S", "9D", "9S Jk"],
        "6C",
        "4S 4H 4D",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD"), new_meld("QS QH QD")]),
    );
    let ev = act(&mut g, 0, discard("3S"));
    assert_eq!(
        ev[0],
        Event::Discarded {
            seat: Seat(0),
            card: card("3S"),
            blocks: true,
            frozen: false
        }
    );
    let msg = refuse(&mut g, 1, take_new("9D", &[]), "PILE_BLOCKED");
    assert!(msg.contains("3♠"), "{msg}");
    act(&mut g, 1, Action::DrawStock);
    act(&mut g, 1, discard("9D"));
    assert!(!g.pile_blocked() && !g.pile_frozen());
    let before = *g.hand(Seat(2));
    let ev = act(&mut g, 2, take_new("9S Jk", &[]));
    assert!(ev.iter().any(|e| matches!(
        e,
        Event::PileTaken { picked_up, .. } if *picked_up == list("6C 3S")
    )));
    assert_eq!(melds_of(&g, 0)[2], cards("9S 9D Jk"));
    assert_eq!(*g.hand(Seat(2)), changed(&before, "9S Jk", &["6C", "3S"]));
}
