//! R-STOCK: the end of the stock.
mod common;
use common::*;

use canasta_engine::{Action, DealEnd, Event, Game, MeldTarget, Phase, Seat, Side};

// ----- the short-stock deal -----
//
// Two players with 43 cards each (the most the rules allow) leave 22 cards: the upcard 9♣ and a
// stock of 21. Seat 0 is dealt all four red threes, laid at once and replaced by 4♣ 4♦ 4♥ 4♠;
// seat 1 holds every wild card and black three, so the stock is natural cards only. Each turn
// draws two: 17 cards last four turns each, and seat 0's fifth draw finds a single card.

/// Seat 0: the red threes and the cards he may discard last.
const SEAT0: &str = "3H 3H 3D 3D KD QD JD";
/// Seat 1: the specials, kings and aces for his initial meld, and a pair of queens.
const SEAT1: &str = "Jk Jk Jk Jk 2C 2C 2D 2D 2H 2H 2S 2S 3C 3C 3S 3S KS KS KH AS AS AH QS QS";
/// The stock, top first: replacements, then two cards a turn, then the last single card.
const STOCK: &str = "4C 4D 4H 4S 5C 5D 5H 5S 6C 6D 6H 6S 7C 7D 7H 7S 8C 8D 8H 8S 10C";

/// Plays the short-stock deal until one card is left in the stock and seat 0 is to draw it.
/// Seat 1 melds kings and aces on his first turn and discards `seat1_last` on his last.
fn play_to_last_card(seat1_last: &str) -> Game {
    play_to_last_card_with(&[], seat1_last)
}

/// [`play_to_last_card`] with option overrides.
fn play_to_last_card_with(options: &[(&str, &str)], seat1_last: &str) -> Game {
    let mut opts = vec![("hand_size", "43")];
    opts.extend_from_slice(options);
    let mut g = arranged(2, &opts, &[SEAT0, SEAT1], "9C", STOCK);
    assert_eq!(g.red_threes(Seat(0)).len(), 4);
    assert_eq!(g.stock().len(), 17);
    draw_discard(&mut g, 0, "5C");
    act(&mut g, 1, Action::DrawStock);
    act(
        &mut g,
        1,
        meld(&[new_meld("KS KS KH"), new_meld("AS AS AH")]),
    );
    act(&mut g, 1, discard("5H"));
    draw_discard(&mut g, 0, "6C");
    draw_discard(&mut g, 1, "6H");
    draw_discard(&mut g, 0, "7C");
    draw_discard(&mut g, 1, "7H");
    draw_discard(&mut g, 0, "8C");
    draw_discard(&mut g, 1, seat1_last);
    assert_eq!(g.stock(), &list("10C")[..]);
    assert_eq!((g.to_act(), g.phase()), (Some(Seat(0)), Phase::Draw));
    g
}

/// The short-stock deal played until the stock is empty and seat 1 is to act, with
/// `seat0_last` on top of the pile.
fn exhausted(seat1_last: &str, seat0_last: &str) -> Game {
    exhausted_with(&[], seat1_last, seat0_last)
}

/// [`exhausted`] with option overrides.
fn exhausted_with(options: &[(&str, &str)], seat1_last: &str, seat0_last: &str) -> Game {
    let mut g = play_to_last_card_with(options, seat1_last);
    draw_discard(&mut g, 0, seat0_last);
    assert!(g.stock().is_empty());
    assert_eq!(g.pile().last(), Some(&card(seat0_last)));
    assert_eq!((g.to_act(), g.phase()), (Some(Seat(1)), Phase::Draw));
    g
}

fn has(actions: &[Action], f: impl Fn(&Action) -> bool) -> bool {
    actions.iter().any(f)
}

// ----- R-STOCK-1 -----

// R-STOCK-1: the pile may be declined only when the stock is empty.
#[test]
fn r_stock_1_decline_with_stock_left_refused() {
    let mut g = arranged(4, &[], &[], "7D", "");
    let msg = refuse(&mut g, 0, Action::DeclinePile, "STOCK_NOT_EMPTY");
    assert!(msg.contains("draw from the stock"), "{msg}");
    assert!(!legal(&g).contains(&Action::DeclinePile));
    // Also with one card left in the stock.
    let mut g = play_to_last_card("8H");
    refuse(&mut g, 0, Action::DeclinePile, "STOCK_NOT_EMPTY");
}

// R-STOCK-1: with the stock empty, drawing is refused.
#[test]
fn r_stock_1_draw_from_empty_stock_refused() {
    let mut g = exhausted("8H", "JD");
    let msg = refuse(&mut g, 1, Action::DrawStock, "STOCK_EMPTY");
    assert!(msg.contains("take the discard pile"), "{msg}");
    assert!(!legal(&g).contains(&Action::DrawStock));
}

// R-STOCK-1: with the stock empty, a player whose side has a meld the unfrozen pile's top card
// fits must take the pile (forcing): declining is refused, taking onto the meld is legal.
#[test]
fn r_stock_1_forced_to_take_matching_top() {
    let mut g = exhausted("8H", "KD");
    assert!(!g.pile_frozen());
    let msg = refuse(&mut g, 1, Action::DeclinePile, "MUST_TAKE_PILE");
    assert!(msg.contains("K♦") && msg.contains("must take"), "{msg}");
    let choices = legal(&g);
    assert!(!choices.contains(&Action::DeclinePile));
    assert!(choices.contains(&take_add(0, "")), "{choices:?}");
    assert!(g.legal().unwrap().summary().must_take_pile);
    let pile = g.pile().to_vec();
    let hand = g.hand(Seat(1)).len();
    let ev = act(&mut g, 1, take_add(0, ""));
    assert!(matches!(&ev[0], Event::PileTaken { top, .. } if *top == card("KD")));
    assert_eq!(g.melds(Side(1))[0].cards, cards("KS KS KH KD"));
    assert_eq!(g.hand(Seat(1)).len(), hand + pile.len() - 1);
    assert!(g.pile().is_empty());
    assert_eq!(g.phase(), Phase::Play);
}

// R-STOCK-1: a frozen pile does not force: the player may decline it even though its top card
// fits his side's meld (seat 1 froze it with a 2♣, covered by seat 0's K♦).
#[test]
fn r_stock_1_frozen_pile_not_forced() {
    let mut g = exhausted("2C", "KD");
    assert!(g.pile_frozen());
    assert!(!g.pile_blocked());
    // Frozen: the top card cannot simply be added to the kings.
    refuse(&mut g, 1, take_add(0, ""), "PILE_FROZEN");
    assert!(legal(&g).contains(&Action::DeclinePile));
    assert!(!g.legal().unwrap().summary().must_take_pile);
    let ev = act(&mut g, 1, Action::DeclinePile);
    assert_eq!(ev[0], Event::PileDeclined { seat: Seat(1) });
    assert_eq!(
        g.history()[0].end,
        DealEnd::StockExhausted { seat: Seat(1) }
    );
}

// R-STOCK-1: when the top card fits none of his side's melds, the player may take the pile
// with a natural pair, or decline it.
#[test]
fn r_stock_1_may_take_with_pair_or_decline() {
    let mut g = exhausted("8H", "QD");
    let choices = legal(&g);
    assert!(choices.contains(&Action::DeclinePile), "{choices:?}");
    assert!(
        has(
            &choices,
            |a| matches!(a, Action::TakePile { top, .. } if top.target == MeldTarget::New)
        ),
        "{choices:?}"
    );
    assert!(g.check(Seat(1), &Action::DeclinePile).is_ok());
    let pile = g.pile().len();
    let hand = g.hand(Seat(1)).len();
    act(&mut g, 1, take_new("QS QS", &[]));
    let melds = g.melds(Side(1));
    assert_eq!(melds.len(), 3);
    assert_eq!(melds[2].cards, cards("QS QS QD"));
    assert_eq!(g.hand(Seat(1)).len(), hand - 2 + pile - 1);
    assert_eq!(g.deal_number(), 0);
}

// R-STOCK-1, option `forcing_frozen` (seed 000: "Das gilt auch für einen eingefrorenen
// Haufen"; seed 002): the pile must be taken whenever it may be taken, frozen or not. Seat 1
// froze the pile with a 2♣; seat 0 covered it with a Q♦, and seat 1 holds a natural pair of
// queens: he cannot decline, and takes the pile with the pair.
#[test]
fn r_stock_1_forcing_frozen_pair_cannot_decline() {
    let mut g = exhausted_with(&[("forcing_frozen", "true")], "2C", "QD");
    assert!(g.pile_frozen() && g.rules().forcing_frozen);
    let msg = refuse(&mut g, 1, Action::DeclinePile, "MUST_TAKE_PILE");
    assert!(msg.contains("Q♦") && msg.contains("must take"), "{msg}");
    let choices = legal(&g);
    assert!(!choices.contains(&Action::DeclinePile), "{choices:?}");
    // Seat 1 holds four queens (fillers among them): the listing takes the lowest suits.
    assert!(choices.contains(&take_new("QC QH", &[])), "{choices:?}");
    assert!(g.legal().unwrap().summary().must_take_pile);
    act(&mut g, 1, take_new("QS QS", &[]));
    assert_eq!(g.melds(Side(1))[2].cards, cards("QS QS QD"));

    // The official default: the same frozen pile may be declined.
    let mut g = exhausted("2C", "QD");
    assert!(!g.rules().forcing_frozen);
    assert!(legal(&g).contains(&Action::DeclinePile));
    assert!(!g.legal().unwrap().summary().must_take_pile);
    act(&mut g, 1, Action::DeclinePile);
    assert_eq!(g.deal_number(), 1);
}

// R-STOCK-1 with `forcing_frozen`: a frozen pile the player cannot take (no natural pair of the
// top card's rank in hand) may still be declined.
#[test]
fn r_stock_1_forcing_frozen_without_a_take_may_decline() {
    let mut g = exhausted_with(&[("forcing_frozen", "true")], "2C", "KD");
    assert!(g.pile_frozen());
    refuse(&mut g, 1, take_add(0, ""), "PILE_FROZEN");
    assert!(
        !legal(&g)
            .iter()
            .any(|a| matches!(a, Action::TakePile { .. }))
    );
    assert!(!g.legal().unwrap().summary().must_take_pile);
    let ev = act(&mut g, 1, Action::DeclinePile);
    assert_eq!(ev[0], Event::PileDeclined { seat: Seat(1) });
}

// ----- R-STOCK-2 -----

// R-STOCK-2: declining the pile ends the deal; nobody gets a going-out bonus. Seat 0 has not
// melded, so his four red threes count minus 800; seat 1's meld of 90 counts.
#[test]
fn r_stock_2_decline_ends_deal_without_going_out_bonus() {
    let mut g = exhausted("8H", "QD");
    let ev = act(&mut g, 1, Action::DeclinePile);
    assert_eq!(ev[0], Event::PileDeclined { seat: Seat(1) });
    assert_eq!(
        ev[1].deal_end(),
        Some(DealEnd::StockExhausted { seat: Seat(1) })
    );
    assert!(!ev.iter().any(|e| matches!(e, Event::WentOut { .. })));
    let report = &g.history()[0];
    assert_eq!(report.end, DealEnd::StockExhausted { seat: Seat(1) });
    for s in &report.sides {
        assert_eq!(s.going_out_bonus, 0, "side {}", s.side);
        assert_eq!(s.total, s.sum_of_items());
    }
    let (s0, s1) = (report.sides[0], report.sides[1]);
    assert_eq!(
        (s0.red_threes, s0.red_three_bonus, s0.melded_cards),
        (4, -800, 0)
    );
    assert_eq!(
        (s1.red_threes, s1.red_three_bonus, s1.melded_cards),
        (0, 0, 90)
    );
    // The next deal has begun.
    assert_eq!((g.deal_number(), g.phase()), (1, Phase::Draw));
    assert_eq!(g.dealer(), Seat(0));
    assert_eq!(g.to_act(), Some(Seat(1)));
}

// ----- R-STOCK-3 -----

// R-STOCK-3: with a draw of two, a single last stock card counts as the full draw: the player
// takes it and plays on (meld, discard) as after a normal draw.
#[test]
fn r_stock_3_last_single_card_is_full_draw() {
    let mut g = play_to_last_card("8H");
    assert_eq!(g.rules().draw, 2);
    let hand = g.hand(Seat(0)).len();
    let ev = act(&mut g, 0, Action::DrawStock);
    assert_eq!(
        ev,
        vec![Event::Drew {
            seat: Seat(0),
            count: 1,
            cards: Some(list("10C").into_iter().collect()),
        }]
    );
    assert_eq!(g.hand(Seat(0)).len(), hand + 1);
    assert!(g.stock().is_empty());
    assert_eq!(g.phase(), Phase::Play);
    assert_eq!(g.deal_number(), 0);
    act(&mut g, 0, discard("10C"));
    assert_eq!((g.to_act(), g.phase()), (Some(Seat(1)), Phase::Draw));
}
