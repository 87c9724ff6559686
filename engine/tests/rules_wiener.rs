//! The `wiener` preset (docs/rules.md, "wiener"; seed 001, "Wiener Canasta"): each difference
//! from `official`, with the rule ids it changes (R-RED-5, R-MELD-1, R-TURN-4, R-OUT-4,
//! R-PILE-6).
mod common;
use canasta_engine::{
    Action, CanastaKind, DealScore, Event, Game, Phase, Preset, RuleSpec, Seat, Side,
};
use common::*;

// ---------------------------------------------------------------------------------------------
// Helpers

/// A prearranged Wiener deal (seat 0 plays first).
fn wiener(players: u8, hands: &[&str], pile: &str, stock: &str) -> Game {
    arranged_with(
        RuleSpec::new(Preset::Wiener, players),
        hands,
        pile,
        stock,
        vec![],
    )
}

/// The same deal under the official preset.
fn official(players: u8, hands: &[&str], pile: &str, stock: &str) -> Game {
    arranged(players, &[], hands, pile, stock)
}

/// The `blocks` flag of the seat's Discarded event.
fn discard_blocks(events: &[Event], s: u8) -> bool {
    events
        .iter()
        .find_map(|e| match e {
            Event::Discarded { seat, blocks, .. } if seat.0 == s => Some(*blocks),
            _ => None,
        })
        .expect("a Discarded event")
}

fn has_take(g: &Game) -> bool {
    legal(g)
        .iter()
        .any(|a| matches!(a, Action::TakePile { .. }))
}

// ---------------------------------------------------------------------------------------------
// R-RED-5: red threes count only with a canasta

/// Seat 0 is dealt 3H (laid at his first turn and replaced by 4S), draws 5S, melds `meld0` and
/// discards 5S. Seat 1 draws JC and goes out concealed with a natural canasta of queens and
/// four jacks, discarding 9C. Returns the deal's report.
fn red_three_deal(
    make: fn(u8, &[&str], &str, &str) -> Game,
    seat0: &str,
    meld0: &str,
) -> DealScore {
    let mut g = make(
        4,
        &[seat0, "QS QS QH QH QD QD QC JS JH JD 9C", "", ""],
        "7D",
        "4S 5S JC",
    );
    assert_eq!(*g.red_threes(Seat(0)), cards("3H"));
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld(meld0)]));
    act(&mut g, 0, discard("5S"));
    act(&mut g, 1, Action::DrawStock);
    let events = act(
        &mut g,
        1,
        go_out(
            &[new_meld("QS QS QH QH QD QD QC"), new_meld("JS JH JD JC")],
            Some("9C"),
        ),
    );
    deal_ended(&events)
}

// R-RED-5 (Wiener): a side that made its initial meld but has no canasta loses its red three
// (officially the initial meld is enough to gain it).
#[test]
fn r_red_5_wiener_initial_meld_without_canasta_is_negative() {
    let report = red_three_deal(wiener, "3H AS AH AD", "AS AH AD");
    let s = report.sides[0];
    assert_eq!(s.melded_cards, 60);
    assert_eq!((s.natural_canastas, s.mixed_canastas), (0, 0));
    assert_eq!((s.red_threes, s.red_three_bonus), (1, -100));
    assert_eq!(s.total, s.sum_of_items());

    let s = red_three_deal(official, "3H AS AH AD", "AS AH AD").sides[0];
    assert_eq!((s.red_threes, s.red_three_bonus), (1, 100));
}

// R-RED-5 (Wiener): with a canasta on the table the side's red three counts for it, though
// another side ended the deal.
#[test]
fn r_red_5_wiener_canasta_makes_red_threes_positive() {
    let report = red_three_deal(wiener, "3H KS KS KH KH KD KD KC", "KS KS KH KH KD KD KC");
    let s = report.sides[0];
    assert_eq!(s.melded_cards, 70);
    assert_eq!((s.natural_canastas, s.canasta_bonus), (1, 500));
    assert_eq!((s.red_threes, s.red_three_bonus), (1, 100));
    assert_eq!(s.going_out_bonus, 0);
    assert_eq!(s.total, s.sum_of_items());
}

// ---------------------------------------------------------------------------------------------
// R-MELD-1: wild cards may not outnumber naturals

// R-MELD-1 (Wiener): K-K-2-2-2 is refused with WILD_RATIO (officially legal); K-K-2-2 is
// legal, and a third wild card cannot be added to it afterwards.
#[test]
fn r_meld_1_wiener_wild_cards_may_not_outnumber_naturals() {
    let hands = ["KS KH 2C 2D 2H", "", "", ""];
    let mut g = wiener(4, &hands, "7D", "5S");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS KH 2C 2D 2H")]), "WILD_RATIO");
    assert!(msg.contains("may not outnumber"), "{msg}");
    act(&mut g, 0, meld(&[new_meld("KS KH 2C 2D")]));
    assert_eq!(g.melds(Side(0))[0].cards, cards("KS KH 2C 2D"));
    refuse(&mut g, 0, meld(&[add(0, "2H")]), "WILD_RATIO");
    assert_eq!(g.hand(Seat(0)).count(card("2H")), 1);

    // Official: three wild cards with two kings are a legal meld.
    let mut g = official(4, &hands, "7D", "5S");
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KH 2C 2D 2H")]));
    assert_eq!(g.melds(Side(0))[0].wilds(), 3);
}

// ---------------------------------------------------------------------------------------------
// R-TURN-4: the Wiener stop rule

/// Seat 0 draws and discards; seat 1 draws 5S, melds a natural canasta of kings (meld 0 of
/// side 1) and discards 5S; seat 2 draws 6S and discards the last king, KC. Seat 3 (side 1) is
/// next; he holds QD. Seat 0 holds QS QH AS AH AD. Returns the game and seat 2's events.
fn kings_for_side_1(make: fn(u8, &[&str], &str, &str) -> Game) -> (Game, Vec<Event>) {
    let mut g = make(
        4,
        &["QS QH AS AH AD", "KS KS KH KH KD KD KC", "KC", "QD"],
        "7D",
        "4S 5S 6S 7S",
    );
    pass(&mut g, &[0]);
    act(&mut g, 1, Action::DrawStock);
    act(&mut g, 1, meld(&[new_meld("KS KS KH KH KD KD KC")]));
    act(&mut g, 1, discard("5S"));
    assert_eq!(g.melds(Side(1))[0].canasta(), Some(CanastaKind::Natural));
    act(&mut g, 2, Action::DrawStock);
    let events = act(&mut g, 2, discard("KC"));
    assert_eq!(g.pile(), &list("7D 4S 5S KC")[..]);
    (g, events)
}

// R-TURN-4 (Wiener): a card the next player, an opponent, could add to his side's completed
// canasta blocks the pile for him like a black three: the Discarded event says so, the take
// onto the canasta is refused with PILE_BLOCKED, and no take is listed.
#[test]
fn r_turn_4_wiener_card_for_next_opponents_canasta_blocks() {
    let (mut g, events) = kings_for_side_1(wiener);
    assert!(discard_blocks(&events, 2));
    assert!(events.contains(&Event::Discarded {
        seat: Seat(2),
        card: card("KC"),
        blocks: true,
        frozen: false,
    }));
    assert!(g.pile_blocked());
    assert!(!g.pile_frozen());
    let msg = refuse(&mut g, 3, take_add(0, ""), "PILE_BLOCKED");
    assert!(msg.contains("K♣"), "{msg}");
    assert!(msg.contains("draw from the stock"), "{msg}");
    assert!(!has_take(&g));

    // Official: the king blocks nothing; seat 3 takes the pile onto his side's canasta.
    let (mut g, events) = kings_for_side_1(official);
    assert!(!discard_blocks(&events, 2));
    assert!(!g.pile_blocked());
    act(&mut g, 3, take_add(0, ""));
    assert_eq!(g.melds(Side(1))[0].len(), 8);
}

// R-TURN-4 (Wiener): only a *completed* canasta makes a stop card: with six kings melded by
// side 1, the king seat 2 discards does not block, and seat 3 takes the pile onto the meld,
// completing the canasta.
#[test]
fn r_turn_4_wiener_meld_below_seven_does_not_block() {
    let mut g = wiener(4, &["", "KS KS KH KH KD KD", "KC", ""], "7D", "4S 5S 6S");
    pass(&mut g, &[0]);
    act(&mut g, 1, Action::DrawStock);
    act(&mut g, 1, meld(&[new_meld("KS KS KH KH KD KD")]));
    act(&mut g, 1, discard("5S"));
    act(&mut g, 2, Action::DrawStock);
    let events = act(&mut g, 2, discard("KC"));
    assert!(!discard_blocks(&events, 2));
    assert!(!g.pile_blocked());
    act(&mut g, 3, take_add(0, ""));
    assert_eq!(g.melds(Side(1))[0].canasta(), Some(CanastaKind::Natural));
}

// R-TURN-4 (Wiener): like a black three, the stop card blocks only while it is on top: once
// the next player covers it, the following player takes the pile with the king in it.
#[test]
fn r_turn_4_wiener_stop_card_covered_has_no_effect() {
    let (mut g, _) = kings_for_side_1(wiener);
    act(&mut g, 3, Action::DrawStock);
    let events = act(&mut g, 3, discard("QD"));
    assert!(!discard_blocks(&events, 3));
    assert!(!g.pile_blocked());
    assert_eq!(g.pile(), &list("7D 4S 5S KC QD")[..]);
    // Seat 0 (side 0 has not melded) takes with a natural pair and three aces for the minimum.
    act(&mut g, 0, take_new("QS QH", &[new_meld("AS AH AD")]));
    assert!(g.pile().is_empty());
    assert_eq!(g.hand(Seat(0)).count(card("KC")), 1);
    assert_eq!(g.melds(Side(0))[0].cards, cards("QS QH QD"));
}

// R-TURN-4 (Wiener): with three players, a king discarded by seat 0 does not block the pile
// for seat 1, who has no canasta of kings, though seat 2 (the player after him) has one; seat 1
// takes the pile with his pair of kings.
#[test]
fn r_turn_4_wiener_canasta_of_the_player_after_next_does_not_block() {
    // Seat 2 melds a mixed canasta of kings (five kings, 2C, Jk) in his first turn; seat 0
    // discards KD in his second; seat 1 holds KC KC and three aces.
    let mut g = wiener(
        3,
        &["KD", "KC KC AS AH AD", "KS KS KH KH KD 2C Jk"],
        "7D",
        "4S 5S 6S 7S",
    );
    pass(&mut g, &[0, 1]);
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, meld(&[new_meld("KS KS KH KH KD 2C Jk")]));
    act(&mut g, 2, discard("6S"));
    assert_eq!(g.melds(Side(2))[0].canasta(), Some(CanastaKind::Mixed));
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, discard("KD"));
    assert!(!discard_blocks(&events, 0));
    assert!(!g.pile_blocked());
    assert!(has_take(&g));
    act(&mut g, 1, take_new("KC KC", &[new_meld("AS AH AD")]));
    assert_eq!(g.melds(Side(1))[0].cards, cards("KC KC KD"));
}

// R-TURN-4 (Wiener): a card of the discarder's own side's canasta does not block: seat 2
// discards a king while his partner's canasta of kings lies on the table, and seat 3 takes the
// pile with his pair of kings.
#[test]
fn r_turn_4_wiener_own_sides_canasta_does_not_block() {
    let mut g = wiener(
        4,
        &["KS KS KH KH KD 2C Jk", "", "KD", "KC KC AS AH AD"],
        "7D",
        "4S 5S 6S 7S",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD 2C Jk")]));
    act(&mut g, 0, discard("4S"));
    assert!(g.melds(Side(0))[0].is_canasta());
    pass(&mut g, &[1]);
    act(&mut g, 2, Action::DrawStock);
    let events = act(&mut g, 2, discard("KD"));
    assert!(!discard_blocks(&events, 2));
    assert!(!g.pile_blocked());
    act(&mut g, 3, take_new("KC KC", &[new_meld("AS AH AD")]));
    assert_eq!(g.melds(Side(1))[0].cards, cards("KC KC KD"));
    assert_eq!(g.melds(Side(1))[1].cards, cards("AS AH AD"));
}

// ---------------------------------------------------------------------------------------------
// R-OUT-4: concealed going out 1000 / 200 / plain after a take

// R-OUT-4 (Wiener): going out concealed with a canasta of one's own ("hand canasta") earns
// 1000 instead of 200.
#[test]
fn r_out_4_wiener_hand_canasta_earns_1000() {
    let hands = [
        "KS KS KH KH KD KD KC QS QH QD 9C",
        "",
        "4C 5C 6C 7C 8C 9C 10C JC QC AC 4D",
        "",
    ];
    let out = |g: &mut Game| {
        act(g, 0, Action::DrawStock);
        act(
            g,
            0,
            go_out(
                &[new_meld("KS KS KH KH KD KD KC"), new_meld("QS QH QD QC")],
                Some("9C"),
            ),
        )
    };
    let mut g = wiener(4, &hands, "7D", "QC");
    let events = out(&mut g);
    assert!(went_out_concealed(&events));
    let s = deal_ended(&events).sides[0];
    assert_eq!(s.going_out_bonus, 1000);
    assert_eq!(s.melded_cards, 110);
    assert_eq!(s.canasta_bonus, 500);
    assert_eq!(s.cards_in_hand, -95);
    assert_eq!(s.total, 110 + 500 + 1000 - 95);
    assert_eq!(g.scores()[0], 1515);

    let mut g = official(4, &hands, "7D", "QC");
    let s = deal_ended(&out(&mut g)).sides[0];
    assert_eq!(s.going_out_bonus, 200);
}

/// Seat 2 melds a natural canasta of kings in his first turn. Seat 0, who only drew and
/// discarded in his first turn, goes out in his second with queens, nines and sixes of his own
/// hand, adding nothing to his partner's meld. Returns the events and the value of seat 2's
/// hand when seat 0 goes out.
fn out_on_partners_canasta(make: fn(u8, &[&str], &str, &str) -> Game) -> (Vec<Event>, i32) {
    let mut g = make(
        4,
        &[
            "QS QH QD QC 9S 9H 9D 9C 6S 6H 6D",
            "",
            "KS KS KH KH KD KD KC",
            "",
        ],
        "7D",
        "4S 5S 6C 7S 8S",
    );
    pass(&mut g, &[0, 1]);
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, meld(&[new_meld("KS KS KH KH KD KD KC")]));
    act(&mut g, 2, discard("6C"));
    pass(&mut g, &[3]);
    act(&mut g, 0, Action::DrawStock);
    assert!(!g.melded_before(Seat(0)));
    let partner = g.hand(Seat(2)).value() as i32;
    let events = act(
        &mut g,
        0,
        go_out(
            &[
                new_meld("QS QH QD QC"),
                new_meld("9S 9H 9D 9C"),
                new_meld("6S 6H 6D"),
            ],
            Some("8S"),
        ),
    );
    (events, partner)
}

// R-OUT-4 (Wiener): going out in one turn without an earlier meld but without a canasta of
// one's own (the partner's canasta allows it) is concealed, worth 200; officially it is a plain
// going out, 100.
#[test]
fn r_out_4_wiener_concealed_without_own_canasta_earns_200() {
    let (events, partner) = out_on_partners_canasta(wiener);
    assert!(went_out_concealed(&events));
    let s = deal_ended(&events).sides[0];
    assert_eq!(s.going_out_bonus, 200);
    assert_eq!(s.melded_cards, 70 + 40 + 40 + 15);
    assert_eq!(s.canasta_bonus, 500);
    assert_eq!(s.cards_in_hand, -partner);
    assert_eq!(s.total, 165 + 500 + 200 - partner);

    let (events, _) = out_on_partners_canasta(official);
    assert!(!went_out_concealed(&events));
    assert_eq!(deal_ended(&events).sides[0].going_out_bonus, 100);
}

/// Seat 0 takes the pile (2C under QD, frozen) with QS QH and a natural canasta of kings for
/// his initial meld, picks up 2C and goes out at once with 9S 9H 2C. Returns the events and
/// the value of his partner's hand (seat 2).
fn out_after_take(make: fn(u8, &[&str], &str, &str) -> Game) -> (Vec<Event>, i32) {
    let mut g = make(
        4,
        &["KS KS KH KH KD KD KC QS QH 9S 9H", "", "", ""],
        "2C QD",
        "",
    );
    assert!(g.pile_frozen());
    act(
        &mut g,
        0,
        take_new("QS QH", &[new_meld("KS KS KH KH KD KD KC")]),
    );
    assert_eq!(*g.hand(Seat(0)), cards("9S 9H 2C"));
    let partner = g.hand(Seat(2)).value() as i32;
    (
        act(&mut g, 0, go_out(&[new_meld("9S 9H 2C")], None)),
        partner,
    )
}

// R-OUT-4 (Wiener): a player who took the pile in the turn he goes out concealed gets no
// raised bonus: plain 100 (officially 200), though he melded a canasta of his own.
#[test]
fn r_out_4_wiener_no_raised_bonus_after_taking_the_pile() {
    let (events, partner) = out_after_take(wiener);
    assert!(!went_out_concealed(&events));
    let s = deal_ended(&events).sides[0];
    assert_eq!(s.going_out_bonus, 100);
    assert_eq!(s.melded_cards, 70 + 30 + 40);
    assert_eq!((s.natural_canastas, s.canasta_bonus), (1, 500));
    assert_eq!(s.cards_in_hand, -partner);
    assert_eq!(s.total, 140 + 500 + 100 - partner);

    let (events, _) = out_after_take(official);
    assert!(went_out_concealed(&events));
    assert_eq!(deal_ended(&events).sides[0].going_out_bonus, 200);
}

// ---------------------------------------------------------------------------------------------
// R-PILE-6 dropped

/// Seat 0 melds a natural canasta of kings and three sevens in his first turn and keeps 9C
/// alone. Seat 3 takes the pile (QS QH on QD, with three aces) and discards 7C: seat 0, with
/// one card in hand, faces a pile of one card.
fn one_card_vs_one_card(make: fn(u8, &[&str], &str, &str) -> Game) -> Game {
    let mut g = make(
        4,
        &[
            "KS KS KH KH KD KD KC 7S 7H 7D 9C",
            "",
            "QD",
            "QS QH AS AH AD 7C",
        ],
        "10D",
        "4S 5S 6S",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KS KH KH KD KD KC"), new_meld("7S 7H 7D")]),
    );
    act(&mut g, 0, discard("4S"));
    pass(&mut g, &[1]);
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, discard("QD"));
    act(&mut g, 3, take_new("QS QH", &[new_meld("AS AH AD")]));
    act(&mut g, 3, discard("7C"));
    assert_eq!(*g.hand(Seat(0)), cards("9C"));
    assert_eq!(g.pile(), &list("7C")[..]);
    g
}

// R-PILE-6 (Wiener, rule dropped): a player holding one card may take a pile of one card; he
// adds it to his sevens and goes out with his last card. Officially: ONE_CARD_PILE.
#[test]
fn r_pile_6_wiener_one_card_may_take_one_card_pile() {
    let mut g = one_card_vs_one_card(wiener);
    assert!(has_take(&g));
    act(&mut g, 0, take_add(1, ""));
    assert_eq!(g.melds(Side(0))[1].cards, cards("7S 7H 7D 7C"));
    assert!(g.pile().is_empty());
    assert_eq!(*g.hand(Seat(0)), cards("9C"));
    assert_eq!(g.phase(), Phase::Play);
    let events = act(&mut g, 0, go_out(&[], Some("9C")));
    assert!(!went_out_concealed(&events));
    let s = deal_ended(&events).sides[0];
    assert_eq!(s.going_out_bonus, 100);
    assert_eq!(s.melded_cards, 70 + 20);

    let mut g = one_card_vs_one_card(official);
    refuse(&mut g, 0, take_add(1, ""), "ONE_CARD_PILE");
    assert!(!has_take(&g));
}
