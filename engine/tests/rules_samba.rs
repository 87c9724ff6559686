//! R-SAMBA: the `samba` preset (docs/rules.md, "samba"; seed 003).
mod common;
use canasta_engine::meld::kind_of_new;
use canasta_engine::{
    Action, CanastaKind, Card, CardCounts, DealEnd, DealScore, Event, Game, MeldKind, MeldTarget,
    Phase, Preset, Rank, RuleSpec, Rules, Seat, Setup, Side, Suit,
};
use common::*;

// ---------------------------------------------------------------------------------------------
// Helpers

/// The samba preset for four players with option overrides.
fn samba_spec(options: &[(&str, &str)]) -> RuleSpec {
    let mut spec = RuleSpec::new(Preset::Samba, 4);
    for (k, v) in options {
        spec = spec.with(k, v).unwrap();
    }
    spec
}

/// A prearranged Samba deal for four players (seat 0 plays first).
fn samba(hands: &[&str], pile: &str, stock: &str) -> Game {
    arranged_with(samba_spec(&[]), hands, pile, stock, vec![])
}

/// The cards of the seat's Drew event.
fn drawn(events: &[Event], s: u8) -> Vec<Card> {
    events
        .iter()
        .find_map(|e| match e {
            Event::Drew {
                seat,
                cards: Some(c),
                ..
            } if seat.0 == s => Some(c.to_vec()),
            _ => None,
        })
        .expect("a Drew event")
}

/// Each seat draws two cards from the stock and discards the first of them.
fn pass(g: &mut Game, seats: &[u8]) {
    for &s in seats {
        let events = act(g, s, Action::DrawStock);
        let cards = drawn(&events, s);
        assert_eq!(cards.len(), 2);
        act(g, s, Action::Discard { card: cards[0] });
    }
}

/// The value of the cards a seat held when the deal ended, from the DealEnded event.
fn finish_hand_value(events: &[Event], seat: usize) -> i32 {
    events
        .iter()
        .find_map(|e| match e {
            Event::DealEnded(f) => Some(f.hands[seat].value() as i32),
            _ => None,
        })
        .expect("a DealEnded event")
}

/// Seat 1's hand for deals that seat 1 ends by going out concealed in its first turn: with the
/// two cards it draws (SEAT1_DRAW) it melds seven queens, seven jacks and three tens.
const SEAT1: &str = "QC QC QC QD QD QD QH JC JC JC JD JD JD JH 10C";
const SEAT1_DRAW: &str = "10D 10H";

/// Seat 1 draws SEAT1_DRAW and goes out concealed with two natural canastas; returns the events.
fn seat1_goes_out(g: &mut Game) -> Vec<Event> {
    let events = act(g, 1, Action::DrawStock);
    assert_eq!(drawn(&events, 1), list(SEAT1_DRAW));
    act(
        g,
        1,
        go_out(
            &[
                new_meld("QC QC QC QD QD QD QH"),
                new_meld("JC JC JC JD JD JD JH"),
                new_meld("10C 10D 10H"),
            ],
            None,
        ),
    )
}

/// Checks side 1's report of a deal that seat 1 ended with `seat1_goes_out`.
fn check_seat1_side(report: &DealScore, events: &[Event]) {
    let s1 = &report.sides[1];
    assert_eq!(s1.melded_cards, 170);
    assert_eq!(s1.natural_canastas, 2);
    assert_eq!(s1.canasta_bonus, 1000);
    assert_eq!(s1.going_out_bonus, 200);
    assert_eq!(s1.cards_in_hand, -finish_hand_value(events, 3));
    assert_eq!(s1.total, s1.sum_of_items());
}

// ---------------------------------------------------------------------------------------------
// R-SAMBA-1: pack, hands, players

// R-SAMBA-1: three decks and six jokers (162 cards), 15 cards each, four players in two
// partnerships (0+2, 1+3), drawing two.
#[test]
fn r_samba_1_pack_hands_and_partnerships() {
    let rules = Rules::preset(Preset::Samba, 4).unwrap();
    assert_eq!((rules.decks, rules.jokers, rules.hand_size), (3, 6, 15));
    assert_eq!(rules.pack_size(), 162);
    assert_eq!(rules.draw, 2);
    let g = samba(&["", "", "", ""], "", "");
    let all = g.all_cards();
    assert_eq!(all.len(), 162);
    assert_eq!(all.count(Card::JOKER), 6);
    assert_eq!(all.twos(), 12);
    assert_eq!(all.red_threes(), 6);
    assert_eq!(all.black_threes(), 6);
    assert_eq!(all.count(card("KS")), 3);
    for s in 0..4 {
        assert_eq!(g.hand(Seat(s)).len(), 15, "seat {s}");
    }
    // 162 - 4 x 15 dealt - 1 upcard.
    assert_eq!(g.pile().len(), 1);
    assert_eq!(g.stock().len(), 101);
    let t = g.table();
    assert_eq!(t.sides(), 2);
    assert!(t.has_partnerships());
    assert_eq!(t.side_of(Seat(0)), t.side_of(Seat(2)));
    assert_eq!(t.side_of(Seat(1)), t.side_of(Seat(3)));
    assert_ne!(t.side_of(Seat(0)), t.side_of(Seat(1)));
}

// R-SAMBA-1: two and three players may play Samba, each for himself, with 15 cards each.
#[test]
fn r_samba_1_two_and_three_players() {
    for players in [2u8, 3] {
        let rules = Rules::preset(Preset::Samba, players).unwrap();
        assert_eq!((rules.decks, rules.jokers), (3, 6), "{players}");
        assert_eq!(rules.hand_size, 15, "{players}");
        assert_eq!(rules.draw, 2, "{players}");
        let hands = vec![""; players as usize];
        let g = arranged_with(
            RuleSpec::new(Preset::Samba, players),
            &hands,
            "",
            "",
            vec![],
        );
        assert_eq!(g.all_cards().len(), 162);
        assert_eq!(g.table().sides(), players);
        assert!(!g.table().has_partnerships());
        for s in 0..players {
            assert_eq!(g.hand(Seat(s)).len(), 15, "{players} players, seat {s}");
        }
        assert_eq!(g.stock().len(), 162 - 15 * players as usize - 1);
    }
}

// R-SAMBA-1: five (and six) players are refused with BAD_PLAYER_COUNT, naming the range.
#[test]
fn r_samba_1_five_players_refused() {
    for players in [5u8, 6] {
        let err = Rules::new(&RuleSpec::new(Preset::Samba, players)).unwrap_err();
        assert_eq!(err.code(), "BAD_PLAYER_COUNT", "{err}");
        assert!(err.to_string().contains("2 to 4"), "{err}");
    }
    let err = Game::new(&Setup::seeded(RuleSpec::new(Preset::Samba, 5), 1)).unwrap_err();
    assert_eq!(err.code(), "BAD_PLAYER_COUNT");
    // The same count is fine under the official rules.
    assert!(Rules::new(&RuleSpec::new(Preset::Official, 5)).is_ok());
}

// ---------------------------------------------------------------------------------------------
// R-SAMBA-2: drawing two

// R-SAMBA-2: a draw takes the two top cards of the stock, in one Drew event; the player then
// discards one.
#[test]
fn r_samba_2_draws_two() {
    let mut g = samba(&["", "", "", ""], "7D", "9C 8D 4H");
    let stock = g.stock().len();
    let events = act(&mut g, 0, Action::DrawStock);
    let drew: Vec<_> = events
        .iter()
        .filter(|e| matches!(e, Event::Drew { .. }))
        .collect();
    assert_eq!(drew.len(), 1);
    assert!(matches!(
        drew[0],
        Event::Drew {
            seat: Seat(0),
            count: 2,
            ..
        }
    ));
    assert_eq!(drawn(&events, 0), list("9C 8D"));
    assert_eq!(g.stock().len(), stock - 2);
    assert_eq!(g.hand(Seat(0)).len(), 17);
    assert!(g.hand(Seat(0)).contains(&cards("9C 8D")));
    assert_eq!(g.phase(), Phase::Play);
    act(&mut g, 0, discard("9C"));
    assert_eq!(g.hand(Seat(0)).len(), 16);
    assert_eq!(g.to_act(), Some(Seat(1)));
    // The next player draws the next two.
    let events = act(&mut g, 1, Action::DrawStock);
    assert_eq!(drawn(&events, 1)[0], card("4H"));
    assert_eq!(drawn(&events, 1).len(), 2);
}

// R-SAMBA-2 (with R-RED-2): a red three among the two drawn is laid at once and replaced, so the
// player still keeps two cards.
#[test]
fn r_samba_2_red_three_drawn_is_replaced() {
    let mut g = samba(&["", "", "", ""], "7D", "9C 3H 8D 4S");
    let stock = g.stock().len();
    let events = act(&mut g, 0, Action::DrawStock);
    assert!(events.iter().any(|e| matches!(e,
        Event::RedThreeLaid { seat: Seat(0), card: c, source: canasta_engine::event::RedThreeSource::Drawn }
            if *c == card("3H"))));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::Drew {
            seat: Seat(0),
            count: 2,
            ..
        }
    )));
    assert_eq!(drawn(&events, 0), list("9C 8D"));
    assert_eq!(*g.red_threes(Seat(0)), cards("3H"));
    assert_eq!(g.hand(Seat(0)).len(), 17);
    assert_eq!(g.hand(Seat(0)).red_threes(), 0);
    assert_eq!(g.stock().len(), stock - 3);
    assert_eq!(g.stock().last(), Some(&card("4S")));
}

// R-SAMBA-2: a player who takes the pile draws nothing from the stock in that turn.
#[test]
fn r_samba_2_taking_the_pile_draws_nothing() {
    let mut g = samba(
        &["KS KH 8H 9H 10H 4C 5D 6S 7C 9S JD QC AS 4D 6C", "", "", ""],
        "3S KD",
        "",
    );
    let stock = g.stock().to_vec();
    let events = act(&mut g, 0, take_new("KS KH", &[new_meld("8H 9H 10H")]));
    assert!(!events.iter().any(|e| matches!(e, Event::Drew { .. })));
    assert_eq!(g.stock(), &stock[..]);
    assert_eq!(g.phase(), Phase::Play);
    assert_eq!(*g.hand(Seat(0)), cards("4C 5D 6S 7C 9S JD QC AS 4D 6C 3S"));
    refuse(&mut g, 0, Action::DrawStock, "WRONG_PHASE");
    let melds = g.melds(Side(0));
    assert_eq!(melds[0].cards, cards("KS KH KD"));
    assert_eq!(melds[1].kind, MeldKind::Sequence(Suit::Hearts));
    act(&mut g, 0, discard("3S"));
    assert_eq!(g.stock(), &stock[..]);
}

// ---------------------------------------------------------------------------------------------
// R-SAMBA-3: sequences

// R-SAMBA-3: three consecutive naturals of one suit make a new sequence (here in an initial
// meld with three aces); it is extended at its low and at its high end.
#[test]
fn r_samba_3_sequence_melded_and_extended_at_both_ends() {
    let mut g = samba(
        &["AS AC AD 6H 7H 8H 5H 9H 10H KS 4C 4D 7C 9S JD", "", "", ""],
        "7D",
        "QD 8C",
    );
    act(&mut g, 0, Action::DrawStock);
    let events = act(
        &mut g,
        0,
        meld(&[new_meld("AS AC AD"), new_meld("6H 7H 8H")]),
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Melded { placed, .. }
        if placed.len() == 2 && placed[1].new && placed[1].cards == cards("6H 7H 8H")))
    );
    let melds = g.melds(Side(0));
    assert_eq!(melds[0].kind, MeldKind::Group(Rank::Ace));
    assert_eq!(melds[1].kind, MeldKind::Sequence(Suit::Hearts));
    assert_eq!(melds[1].sequence_ends(), Some((Rank::Six, Rank::Eight)));
    // The low end.
    act(&mut g, 0, meld(&[add(1, "5H")]));
    assert_eq!(
        g.melds(Side(0))[1].sequence_ends(),
        Some((Rank::Five, Rank::Eight))
    );
    // The high end, two cards at once.
    act(&mut g, 0, meld(&[add(1, "9H 10H")]));
    let seq = &g.melds(Side(0))[1];
    assert_eq!(seq.cards, cards("5H 6H 7H 8H 9H 10H"));
    assert_eq!(seq.sequence_ends(), Some((Rank::Five, Rank::Ten)));
    assert_eq!(seq.canasta(), None);
    assert_eq!(*g.hand(Seat(0)), cards("KS 4C 4D 7C 9S JD QD 8C"));
}

// R-SAMBA-3: a gap, more than seven cards, fewer than three, and K-A-4 (the ace is high only,
// no wrap-around) are refused; Q-K-A is a sequence.
#[test]
fn r_samba_3_gaps_long_runs_and_ace_low_refused() {
    let mut g = samba(
        &["AC AD AH KC KD KH 4S 5S 6S 7S 8S 9S 10S JS KS", "", "", ""],
        "7D",
        "AS QS",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("AC AD AH"), new_meld("KC KD KH")]),
    );
    assert_eq!(*g.hand(Seat(0)), cards("4S 5S 6S 7S 8S 9S 10S JS KS AS QS"));
    let msg = refuse(&mut g, 0, meld(&[new_meld("4S 5S 7S")]), "NOT_A_SEQUENCE");
    assert!(msg.contains("consecutive"), "{msg}");
    refuse(
        &mut g,
        0,
        meld(&[new_meld("4S 5S 6S 7S 8S 9S 10S JS")]),
        "NOT_A_SEQUENCE",
    );
    refuse(&mut g, 0, meld(&[new_meld("KS AS 4S")]), "NOT_A_SEQUENCE");
    refuse(&mut g, 0, meld(&[new_meld("4S 5S")]), "MELD_TOO_SMALL");
    // Ace high.
    act(&mut g, 0, meld(&[new_meld("QS KS AS")]));
    let seq = &g.melds(Side(0))[2];
    assert_eq!(seq.kind, MeldKind::Sequence(Suit::Spades));
    assert_eq!(seq.sequence_ends(), Some((Rank::Queen, Rank::Ace)));
    // No wrap-around onto the ace.
    refuse(&mut g, 0, meld(&[add(2, "4S")]), "NOT_A_SEQUENCE");
    // Six cards, then an eighth: a sequence holds at most seven.
    act(&mut g, 0, meld(&[new_meld("4S 5S 6S 7S 8S 9S")]));
    assert_eq!(g.melds(Side(0))[3].len(), 6);
    refuse(&mut g, 0, meld(&[add(3, "10S JS")]), "NOT_A_SEQUENCE");
    assert_eq!(*g.hand(Seat(0)), cards("10S JS"));
}

// R-SAMBA-3: no wild card in a sequence (new or added), no card of another suit (two suits in a
// new meld are refused as MIXED_RANKS), no rank twice, no three added.
#[test]
fn r_samba_3_wild_cards_suits_and_threes_refused() {
    let mut g = samba(
        &["AC AD AH KC KD KH 4S 5S 6S 7S 8H 3S Jk 2C 5S", "", "", ""],
        "7D",
        "9D 9C",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("AC AD AH"), new_meld("KC KD KH")]),
    );
    let msg = refuse(&mut g, 0, meld(&[new_meld("4S 5S Jk")]), "NOT_A_SEQUENCE");
    assert!(msg.contains("no wild card"), "{msg}");
    refuse(
        &mut g,
        0,
        meld(&[new_meld("4S 5S 6S 2C")]),
        "NOT_A_SEQUENCE",
    );
    refuse(
        &mut g,
        0,
        meld(&[new_meld("4S 5S 5S 6S")]),
        "NOT_A_SEQUENCE",
    );
    // Two suits: the engine reads several ranks of several suits as mixed ranks.
    refuse(&mut g, 0, meld(&[new_meld("6S 7S 8H")]), "MIXED_RANKS");
    act(&mut g, 0, meld(&[new_meld("4S 5S 6S")]));
    assert_eq!(g.melds(Side(0))[2].kind, MeldKind::Sequence(Suit::Spades));
    for bad in ["Jk", "2C", "3S", "8H", "5S", "7S 8H"] {
        let msg = refuse(&mut g, 0, meld(&[add(2, bad)]), "NOT_A_SEQUENCE");
        assert!(msg.contains("one suit"), "{bad}: {msg}");
    }
    act(&mut g, 0, meld(&[add(2, "7S")]));
    assert_eq!(g.melds(Side(0))[2].cards, cards("4S 5S 6S 7S"));
}

// R-SAMBA-3: a three may not be in a sequence; a new meld 3S 4S 5S should be refused as not a
// sequence, with a hint about sequences.
#[test]
fn r_samba_3_three_in_new_sequence_refused_as_not_a_sequence() {
    let mut g = samba(
        &["AC AD AH KC KD KH 4S 5S 6S 7S 8H 3S Jk 2C 5S", "", "", ""],
        "7D",
        "9D 9C",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("AC AD AH"), new_meld("KC KD KH")]),
    );
    let msg = refuse(&mut g, 0, meld(&[new_meld("3S 4S 5S")]), "NOT_A_SEQUENCE");
    assert!(!msg.contains("wild cards"), "{msg}");
}

// R-SAMBA-3: a three in a new sequence is refused as no sequence, and no state changes.
#[test]
fn r_samba_3_three_in_new_sequence_refused() {
    let mut g = samba(
        &["AC AD AH KC KD KH 4S 5S 6S 7S 8H 3S Jk 2C 5S", "", "", ""],
        "7D",
        "9D 9C",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("AC AD AH"), new_meld("KC KD KH")]),
    );
    let err = g
        .check(Seat(0), &meld(&[new_meld("3S 4S 5S")]))
        .unwrap_err();
    assert_eq!(err.code(), "NOT_A_SEQUENCE", "{err}");
    let before = g.state_hash();
    assert!(g.apply(Seat(0), &meld(&[new_meld("3S 4S 5S")])).is_err());
    assert_eq!(g.state_hash(), before);
    assert_eq!(g.melds(Side(0)).len(), 2);
}

// R-SAMBA-3: a sequence of seven is a samba: it takes no more cards at either end
// (CANASTA_CLOSED), and scores 1500 (report: sambas 1, canasta_bonus 1500).
#[test]
fn r_samba_3_seven_card_sequence_is_a_samba() {
    let mut g = samba(
        &["5S 6S 7S 8S 9S 10S JS 4S QS KS KH KD AC AD 9H", SEAT1],
        "7D",
        &format!("4H 8D {SEAT1_DRAW}"),
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("5S 6S 7S 8S 9S 10S JS")]));
    let s = &g.melds(Side(0))[0];
    assert_eq!(s.kind, MeldKind::Sequence(Suit::Spades));
    assert_eq!(s.canasta(), Some(CanastaKind::Samba));
    let msg = refuse(&mut g, 0, meld(&[add(0, "4S")]), "CANASTA_CLOSED");
    assert!(msg.contains("meld 0"), "{msg}");
    refuse(&mut g, 0, meld(&[add(0, "QS")]), "CANASTA_CLOSED");
    act(&mut g, 0, discard("9H"));
    assert_eq!(*g.hand(Seat(0)), cards("4S QS KS KH KD AC AD 4H 8D"));
    let events = seat1_goes_out(&mut g);
    let report = deal_ended(&events);
    let s0 = &report.sides[0];
    assert_eq!(s0.melded_cards, 55);
    assert_eq!(s0.sambas, 1);
    assert_eq!(s0.natural_canastas, 0);
    assert_eq!(s0.mixed_canastas, 0);
    assert_eq!(s0.canasta_bonus, 1500);
    assert_eq!(s0.going_out_bonus, 0);
    assert_eq!(s0.red_three_bonus, 0);
    assert_eq!(finish_hand_value(&events, 0), 100);
    assert_eq!(s0.cards_in_hand, -100 - finish_hand_value(&events, 2));
    assert_eq!(s0.total, s0.sum_of_items());
    check_seat1_side(&report, &events);
}

// ---------------------------------------------------------------------------------------------
// R-SAMBA-4: groups

// R-SAMBA-4: a group holds at most two wild cards, new or by additions.
#[test]
fn r_samba_4_groups_hold_at_most_two_wilds() {
    let mut g = samba(
        &["KS KH KD KC Jk 2C 2D QS QH 9S 9H 9D 4C 5D 6H", "", "", ""],
        "7D",
        "8C 8D",
    );
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        meld(&[new_meld("KS KH Jk 2C 2D")]),
        "TOO_MANY_WILDS",
    );
    assert!(msg.contains("at most 2"), "{msg}");
    act(&mut g, 0, meld(&[new_meld("KS KH Jk 2C")]));
    assert_eq!(g.melds(Side(0))[0].wilds(), 2);
    refuse(&mut g, 0, meld(&[add(0, "2D")]), "TOO_MANY_WILDS");
    // Naturals still go on, and another group takes the third wild card.
    act(&mut g, 0, meld(&[add(0, "KD KC"), new_meld("QS QH 2D")]));
    let melds = g.melds(Side(0));
    assert_eq!(melds[0].cards, cards("KS KH KD KC Jk 2C"));
    assert_eq!(melds[1].cards, cards("QS QH 2D"));
}

// R-SAMBA-4: no wild card may be added to a canasta; natural cards may. A wild card that
// completes a group of six into a (mixed) canasta is allowed.
#[test]
fn r_samba_4_no_wild_card_on_a_canasta() {
    let mut g = samba(
        &["KS KS KH KH KD KD KC KC QS QH QD QC QC Jk 2C", "", "", ""],
        "7D",
        "5D 9C",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KS KH KH KD KD KC"), new_meld("QS QH QD QC QC")]),
    );
    assert_eq!(g.melds(Side(0))[0].canasta(), Some(CanastaKind::Natural));
    let msg = refuse(&mut g, 0, meld(&[add(0, "Jk")]), "NO_WILD_ON_CANASTA");
    assert!(msg.contains("add natural cards"), "{msg}");
    refuse(&mut g, 0, meld(&[add(0, "KC 2C")]), "NO_WILD_ON_CANASTA");
    act(&mut g, 0, meld(&[add(0, "KC")]));
    assert_eq!(g.melds(Side(0))[0].cards.len(), 8);
    assert_eq!(g.melds(Side(0))[0].canasta(), Some(CanastaKind::Natural));
    act(&mut g, 0, meld(&[add(1, "Jk")]));
    act(&mut g, 0, meld(&[add(1, "2C")]));
    let q = &g.melds(Side(0))[1];
    assert_eq!(q.cards, cards("QS QH QD QC QC Jk 2C"));
    assert_eq!(q.canasta(), Some(CanastaKind::Mixed));
    assert_eq!(*g.hand(Seat(0)), cards("5D 9C"));
}

// R-SAMBA-4: a wild card may not go onto a mixed canasta either.
#[test]
fn r_samba_4_no_wild_card_on_a_mixed_canasta() {
    let mut g = samba(
        &["KS KS KH KH KD Jk 2C 2D 4C 5D 6H 8S 9C 10D JH", "", "", ""],
        "7D",
        "QS AS",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD Jk 2C")]));
    assert_eq!(g.melds(Side(0))[0].canasta(), Some(CanastaKind::Mixed));
    refuse(&mut g, 0, meld(&[add(0, "2D")]), "NO_WILD_ON_CANASTA");
}

// R-SAMBA-4: a side may have several melds of one rank: a new group of kings while it has one.
#[test]
fn r_samba_4_several_melds_of_one_rank() {
    let mut g = samba(
        &["KS KH KD KC KC KH AS AH AD 4C 5D 6H 7S 9C 10D", "", "", ""],
        "7D",
        "8H JS",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD"), new_meld("AS AH AD")]),
    );
    act(&mut g, 0, meld(&[new_meld("KC KC KH")]));
    let melds = g.melds(Side(0));
    assert_eq!(melds.len(), 3);
    assert_eq!(melds[0].kind, MeldKind::Group(Rank::King));
    assert_eq!(melds[2].kind, MeldKind::Group(Rank::King));
    assert_eq!(melds[2].cards, cards("KC KC KH"));
    // Two new groups of one rank in one batch are fine too.
    let mut g = samba(
        &["KS KH KD KC KC KH AS AH AD 4C 5D 6H 7S 9C 10D", "", "", ""],
        "7D",
        "8H JS",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[
            new_meld("KS KH KD"),
            new_meld("KC KC KH"),
            new_meld("AS AH AD"),
        ]),
    );
    assert_eq!(g.melds(Side(0)).len(), 3);
}

// ---------------------------------------------------------------------------------------------
// R-SAMBA-5: taking the pile

/// Seat 0 opens with a natural canasta of kings (meld 0), three queens (meld 1) and the
/// sequence 6H 7H 8H (meld 2) and discards 4C; seat 1 draws and discards `d1`. Seat 2 (side 0)
/// is then to draw, holding KS KH QS QH QH Jk 10H JH and seven fillers; the pile is `pile`,
/// 4C, `d1`.
fn side0_opened(pile: &str, d1: &str) -> Game {
    let mut g = samba(
        &[
            "KS KS KH KH KD KD KC QC QC QD 6H 7H 8H 4C 9D",
            d1,
            "KS KH QS QH QH Jk 10H JH",
            "",
        ],
        pile,
        "5C 10C JC JD",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[
            new_meld("KS KS KH KH KD KD KC"),
            new_meld("QC QC QD"),
            new_meld("6H 7H 8H"),
        ]),
    );
    act(&mut g, 0, discard("4C"));
    act(&mut g, 1, Action::DrawStock);
    act(&mut g, 1, discard(d1));
    assert_eq!(g.to_act(), Some(Seat(2)));
    assert!(g.side_melded(Side(0)));
    assert!(g.melds(Side(0))[0].is_canasta());
    g
}

// R-SAMBA-5: the pile is taken with a natural pair from the hand (here a second group of
// queens, R-SAMBA-4); nothing is drawn from the stock (R-SAMBA-2).
#[test]
fn r_samba_5_natural_pair_takes_the_pile() {
    let mut g = side0_opened("7D", "QD");
    assert!(!g.pile_frozen());
    let stock = g.stock().len();
    let mut hand = *g.hand(Seat(2));
    let events = act(&mut g, 2, take_new("QS QH", &[]));
    assert!(!events.iter().any(|e| matches!(e, Event::Drew { .. })));
    assert_eq!(g.stock().len(), stock);
    let melds = g.melds(Side(0));
    assert_eq!(melds.len(), 4);
    assert_eq!(melds[3].cards, cards("QS QH QD"));
    assert_eq!(melds[1].cards, cards("QC QC QD"));
    hand.remove_all(&cards("QS QH"));
    hand.add_all(&cards("7D 4C"));
    assert_eq!(*g.hand(Seat(2)), hand);
    assert!(g.pile().is_empty());
}

// R-SAMBA-5: one natural card and a wild card do not take the pile, even unfrozen; the legal
// list offers no such take.
#[test]
fn r_samba_5_natural_and_wild_do_not_take_the_pile() {
    let mut g = side0_opened("7D", "QD");
    assert!(!g.pile_frozen());
    let msg = refuse(&mut g, 2, take_new("QS Jk", &[]), "PILE_TAKE_FORBIDDEN");
    assert!(msg.contains("natural pair"), "{msg}");
    assert!(!legal(&g).iter().any(|a| matches!(a,
        Action::TakePile { top, .. } if top.cards.wilds() > 0)));
    // Under the official rules the same take would be legal (R-PILE-4 (b)).
    assert!(!g.rules().pile_with_natural_and_wild);
}

// R-SAMBA-5: a take that melds no natural card with the top card is refused; the hint must not
// offer the take with one natural and a wild card, which these rules forbid.
#[test]
fn r_samba_5_top_card_not_melded_hint_fits_samba() {
    let mut g = side0_opened("7D", "QD");
    let msg = refuse(&mut g, 2, take_new("Jk", &[]), "TOP_CARD_NOT_MELDED");
    assert!(msg.contains("natural pair"), "{msg}");
    assert!(!msg.contains("wild card"), "{msg}");
}

// R-SAMBA-5: the top card may be added to the side's group below seven cards.
#[test]
fn r_samba_5_top_card_onto_group_below_seven() {
    let mut g = side0_opened("7D", "QD");
    let stock = g.stock().len();
    act(&mut g, 2, take_add(1, ""));
    assert_eq!(g.melds(Side(0))[1].cards, cards("QC QC QD QD"));
    assert_eq!(g.stock().len(), stock);
    assert!(g.pile().is_empty());
}

// R-SAMBA-5: the top card may not be added to a canasta; a natural pair still takes it, as a
// new group of the canasta's rank.
#[test]
fn r_samba_5_top_card_not_onto_a_canasta() {
    let mut g = side0_opened("7D", "KC");
    let msg = refuse(&mut g, 2, take_add(0, ""), "PILE_TAKE_FORBIDDEN");
    assert!(msg.contains("canasta"), "{msg}");
    assert!(!legal(&g).iter().any(|a| matches!(a,
        Action::TakePile { top, .. } if top.target == MeldTarget::Existing(0))));
    act(&mut g, 2, take_new("KS KH", &[]));
    let melds = g.melds(Side(0));
    assert_eq!(melds[0].cards, cards("KS KS KH KH KD KD KC"));
    assert_eq!(melds[3].kind, MeldKind::Group(Rank::King));
    assert_eq!(melds[3].cards, cards("KS KH KC"));
}

// R-SAMBA-5: the top card may be added to the side's sequence it extends, at the high or low
// end, with nothing from the hand; no stock card is drawn.
#[test]
fn r_samba_5_top_card_onto_a_sequence() {
    let mut g = side0_opened("7D", "9H");
    let stock = g.stock().len();
    let events = act(&mut g, 2, take_add(2, ""));
    assert!(!events.iter().any(|e| matches!(e, Event::Drew { .. })));
    assert_eq!(g.stock().len(), stock);
    assert_eq!(g.melds(Side(0))[2].cards, cards("6H 7H 8H 9H"));
    assert!(g.hand(Seat(2)).contains(&cards("7D 4C")));

    let mut g = side0_opened("7D", "5H");
    act(&mut g, 2, take_add(2, ""));
    assert_eq!(g.melds(Side(0))[2].cards, cards("5H 6H 7H 8H"));
}

// R-SAMBA-5: a top card that does not extend the sequence does not go onto it; nor does the
// top card start a new sequence with cards from the hand (only a natural pair of its rank, or
// an existing meld, takes the pile).
#[test]
fn r_samba_5_top_card_must_extend_the_sequence() {
    let mut g = side0_opened("7D", "10H");
    refuse(&mut g, 2, take_add(2, ""), "NOT_A_SEQUENCE");
    let mut g = side0_opened("7D", "9H");
    let code = g
        .check(Seat(2), &take_new("10H JH", &[]))
        .unwrap_err()
        .code();
    assert_eq!(code, "WRONG_RANK");
    refuse(&mut g, 2, take_new("10H JH", &[]), "WRONG_RANK");
}

// R-SAMBA-5: the top card may not be added to a samba (a canasta), though it would extend it.
#[test]
fn r_samba_5_top_card_not_onto_a_samba() {
    let mut g = samba(
        &["5S 6S 7S 8S 9S 10S JS", "QS", "QH QD"],
        "7D",
        "4D 9C 8D 8H",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("5S 6S 7S 8S 9S 10S JS")]));
    act(&mut g, 0, discard("4D"));
    act(&mut g, 1, Action::DrawStock);
    act(&mut g, 1, discard("QS"));
    let msg = refuse(&mut g, 2, take_add(0, ""), "PILE_TAKE_FORBIDDEN");
    assert!(msg.contains("canasta"), "{msg}");
    act(&mut g, 2, take_new("QH QD", &[]));
    assert_eq!(g.melds(Side(0))[0].len(), 7);
    assert_eq!(g.melds(Side(0))[1].cards, cards("QS QH QD"));
}

// R-SAMBA-5: a frozen pile still needs the natural pair: not onto the side's group, not onto
// its sequence, not with a natural and a wild card.
#[test]
fn r_samba_5_frozen_pile_needs_the_pair() {
    let mut g = side0_opened("2C 7D", "QD");
    assert!(g.pile_frozen());
    let msg = refuse(&mut g, 2, take_add(1, ""), "PILE_FROZEN");
    assert!(msg.contains("two natural queens"), "{msg}");
    refuse(&mut g, 2, take_new("QS Jk", &[]), "PILE_FROZEN");
    act(&mut g, 2, take_new("QS QH", &[]));
    assert_eq!(g.melds(Side(0))[3].cards, cards("QS QH QD"));
    assert!(g.hand(Seat(2)).contains(&cards("2C 7D 4C")));

    let mut g = side0_opened("2C 7D", "9H");
    assert!(g.pile_frozen());
    let msg = refuse(&mut g, 2, take_add(2, ""), "PILE_FROZEN");
    assert!(msg.contains("two natural nines"), "{msg}");
}

// ---------------------------------------------------------------------------------------------
// R-SAMBA-6: target and minimum

/// Seat 0 holds seven kings, the samba 4S-10S and QS; it draws QH QD and may go out concealed
/// with 150 points of melds. Side scores start at `start`.
fn concealed_out_deal(start: Vec<i32>) -> Game {
    let mut g = arranged_with(
        samba_spec(&[]),
        &["KS KS KS KH KH KH KD 4S 5S 6S 7S 8S 9S 10S QS"],
        "7D",
        "QH QD",
        start,
    );
    act(&mut g, 0, Action::DrawStock);
    g
}

fn concealed_out() -> Action {
    go_out(
        &[
            new_meld("KS KS KS KH KH KH KD"),
            new_meld("4S 5S 6S 7S 8S 9S 10S"),
            new_meld("QS QH QD"),
        ],
        None,
    )
}

// R-SAMBA-6: the game is played to 10000: a side passing 5000 plays on; a side reaching 10000
// wins.
#[test]
fn r_samba_6_game_to_10000() {
    assert_eq!(Rules::preset(Preset::Samba, 4).unwrap().target_score, 10000);
    let mut g = concealed_out_deal(vec![4900, 0]);
    let events = act(&mut g, 0, concealed_out());
    let report = deal_ended(&events);
    assert!(report.sides[0].cumulative > 5000, "{report:?}");
    assert!(report.sides[0].cumulative < 10000, "{report:?}");
    assert!(!events.iter().any(|e| matches!(e, Event::MatchEnded { .. })));
    assert_eq!(g.deal_number(), 1);
    assert_eq!(g.phase(), Phase::Draw);

    let mut g = concealed_out_deal(vec![9000, 0]);
    let events = act(&mut g, 0, concealed_out());
    let report = deal_ended(&events);
    assert!(report.sides[0].cumulative >= 10000, "{report:?}");
    assert!(events.iter().any(|e| matches!(
        e,
        Event::MatchEnded {
            winner: Side(0),
            ..
        }
    )));
    assert_eq!(g.phase(), Phase::Over);
    assert_eq!(g.winner(), Some(Side(0)));
}

// R-SAMBA-6: from 7000 points the initial minimum is 150.
#[test]
fn r_samba_6_minimum_150_from_7000() {
    let mut g = arranged_with(
        samba_spec(&[]),
        &["AS AH AD KS KH KD 10S 10H 10D QS QH QD 6S 7S 8S"],
        "7D",
        "4C 9D",
        vec![7000, 0],
    );
    assert_eq!(g.minimum(Side(0)), 150);
    assert_eq!(g.minimum(Side(1)), 50);
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        meld(&[
            new_meld("AS AH AD"),
            new_meld("KS KH KD"),
            new_meld("10S 10H 10D"),
            new_meld("6S 7S 8S"),
        ]),
        "BELOW_MINIMUM",
    );
    assert!(
        msg.contains("at least 150") && msg.contains("count 140"),
        "{msg}"
    );
    act(
        &mut g,
        0,
        meld(&[
            new_meld("AS AH AD"),
            new_meld("KS KH KD"),
            new_meld("10S 10H 10D"),
            new_meld("QS QH QD"),
        ]),
    );
    assert!(g.side_melded(Side(0)));
    assert_eq!(*g.hand(Seat(0)), cards("6S 7S 8S 4C 9D"));
}

// R-SAMBA-6: below 7000 (6995) the minimum is 120.
#[test]
fn r_samba_6_minimum_120_at_6995() {
    let mut g = arranged_with(
        samba_spec(&[]),
        &["AS AH AD KS KH KD 10S 10H 10D QS QH QD 6S 7S 8S"],
        "7D",
        "4C 9D",
        vec![6995, 0],
    );
    assert_eq!(g.minimum(Side(0)), 120);
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        meld(&[
            new_meld("AS AH AD"),
            new_meld("KS KH KD"),
            new_meld("6S 7S 8S"),
        ]),
        "BELOW_MINIMUM",
    );
    assert!(
        msg.contains("at least 120") && msg.contains("count 110"),
        "{msg}"
    );
    act(
        &mut g,
        0,
        meld(&[
            new_meld("AS AH AD"),
            new_meld("KS KH KD"),
            new_meld("10S 10H 10D"),
        ]),
    );
    assert!(g.side_melded(Side(0)));
    assert_eq!(g.melds(Side(0)).len(), 3);
}

// ---------------------------------------------------------------------------------------------
// R-SAMBA-7: going out

// R-SAMBA-7: going out needs two canastas; one is refused with NOT_ENOUGH_CANASTAS.
#[test]
fn r_samba_7_going_out_needs_two_canastas() {
    let mut g = samba(
        &["KS KS KS KH KH KH KD 4S 5S 6S QS QH QD 9C 9D"],
        "7D",
        "9H 8C",
    );
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        go_out(
            &[
                new_meld("KS KS KS KH KH KH KD"),
                new_meld("4S 5S 6S"),
                new_meld("QS QH QD"),
                new_meld("9C 9D 9H"),
            ],
            Some("8C"),
        ),
        "NOT_ENOUGH_CANASTAS",
    );
    assert!(
        msg.contains("needs 2 canasta") && msg.contains("would have 1"),
        "{msg}"
    );
    assert!(!legal(&g).iter().any(|a| matches!(a, Action::GoOut { .. })));
}

// R-SAMBA-7: a samba counts as a canasta for going out; a concealed going out earns the plain
// bonus of 200 (no raised concealed bonus).
#[test]
fn r_samba_7_samba_counts_and_concealed_bonus_is_200() {
    let mut g = concealed_out_deal(vec![]);
    let events = act(&mut g, 0, concealed_out());
    assert!(went_out_concealed(&events));
    let report = deal_ended(&events);
    assert_eq!(
        report.end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: true
        }
    );
    let s0 = &report.sides[0];
    assert_eq!(s0.melded_cards, 150);
    assert_eq!(s0.natural_canastas, 1);
    assert_eq!(s0.sambas, 1);
    assert_eq!(s0.canasta_bonus, 2000);
    assert_eq!(s0.going_out_bonus, 200);
    assert_eq!(s0.cards_in_hand, -finish_hand_value(&events, 2));
    assert_eq!(s0.total, s0.sum_of_items());
    assert_eq!(report.sides[1].going_out_bonus, 0);
}

// R-SAMBA-7: a plain going out (the player melded in an earlier turn) earns 200 too.
#[test]
fn r_samba_7_plain_going_out_bonus_200() {
    let mut g = samba(
        &["KS KS KS KH KH KH KD 4S 5S 6S 7S 8S 9S QS QH"],
        "7D",
        "QD 4C 8C 8D 9C 9D JC JD 10S 5D",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[
            new_meld("KS KS KS KH KH KH KD"),
            new_meld("4S 5S 6S 7S 8S 9S"),
        ]),
    );
    act(&mut g, 0, discard("4C"));
    pass(&mut g, &[1, 2, 3]);
    assert!(g.melded_before(Seat(0)));
    let events = act(&mut g, 0, Action::DrawStock);
    assert_eq!(drawn(&events, 0), list("10S 5D"));
    let events = act(
        &mut g,
        0,
        go_out(&[add(1, "10S"), new_meld("QS QH QD")], Some("5D")),
    );
    assert!(!went_out_concealed(&events));
    let report = deal_ended(&events);
    let s0 = &report.sides[0];
    assert_eq!(s0.sambas, 1);
    assert_eq!(s0.natural_canastas, 1);
    assert_eq!(s0.going_out_bonus, 200);
    assert_eq!(s0.total, s0.sum_of_items());
}

// R-SAMBA-7: a concealed going out of a side that has not melded must reach the initial minimum
// (150 at 7000 points): 105 is refused, and the same going out at 0 points (minimum 50) is fine.
#[test]
fn r_samba_7_concealed_going_out_needs_the_minimum() {
    let hand = "4C 4C 4C 4D 4D 4D 4H 5S 6S 7S 8S 9S 10S JS 6C";
    let out = go_out(
        &[
            new_meld("4C 4C 4C 4D 4D 4D 4H"),
            new_meld("5S 6S 7S 8S 9S 10S JS"),
            new_meld("6C 6D 6H"),
        ],
        None,
    );
    let mut g = arranged_with(samba_spec(&[]), &[hand], "7D", "6D 6H", vec![7000, 0]);
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, out.clone(), "BELOW_MINIMUM");
    assert!(
        msg.contains("at least 150") && msg.contains("count 105"),
        "{msg}"
    );

    let mut g = arranged_with(samba_spec(&[]), &[hand], "7D", "6D 6H", vec![0, 0]);
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, out);
    assert!(went_out_concealed(&events));
    assert_eq!(deal_ended(&events).sides[0].going_out_bonus, 200);
}

/// Seat 0 holds six natural sevens, the samba 4S-10S and 3S 3C; the pile is `threes` under 7D.
/// Seat 0 takes it with the sevens (a natural canasta with the 7D) and lays the samba from the
/// hand, picking up the black threes.
fn black_threes_deal(threes: &str) -> Game {
    let mut g = samba(
        &["7C 7C 7H 7H 7D 7D 4S 5S 6S 7S 8S 9S 10S 3S 3C"],
        &format!("{threes} 7D"),
        "",
    );
    act(
        &mut g,
        0,
        take_new("7C 7C 7H 7H 7D 7D", &[new_meld("4S 5S 6S 7S 8S 9S 10S")]),
    );
    let melds = g.melds(Side(0));
    assert_eq!(melds[0].canasta(), Some(CanastaKind::Natural));
    assert_eq!(melds[1].canasta(), Some(CanastaKind::Samba));
    g
}

// R-SAMBA-7: five black threes may be melded when going out (not before, not two).
#[test]
fn r_samba_7_five_black_threes_going_out() {
    assert_eq!(
        Rules::preset(Preset::Samba, 4)
            .unwrap()
            .black_three_meld_max,
        6
    );
    let mut g = black_threes_deal("3S 3S 3C");
    assert_eq!(*g.hand(Seat(0)), cards("3S 3S 3S 3C 3C"));
    refuse(
        &mut g,
        0,
        meld(&[new_meld("3S 3S 3C")]),
        "BLACK_THREES_ONLY_GOING_OUT",
    );
    refuse(
        &mut g,
        0,
        go_out(&[new_meld("3S 3C"), new_meld("3S 3S 3C")], None),
        "BAD_BLACK_THREE_MELD",
    );
    let events = act(&mut g, 0, go_out(&[new_meld("3S 3S 3S 3C 3C")], None));
    let s0 = g.history()[0].sides[0];
    assert_eq!(s0.melded_cards, 35 + 50 + 25);
    let report = deal_ended(&events);
    assert_eq!(report.sides[0].canasta_bonus, 2000);
    assert_eq!(report.sides[0].going_out_bonus, 200);
}

// R-SAMBA-7: six black threes (all the pack holds) may be melded when going out.
#[test]
fn r_samba_7_six_black_threes_going_out() {
    let mut g = black_threes_deal("3S 3S 3C 3C");
    assert_eq!(*g.hand(Seat(0)), cards("3S 3S 3S 3C 3C 3C"));
    let events = act(&mut g, 0, go_out(&[new_meld("3S 3S 3S 3C 3C 3C")], None));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::WentOut { seat: Seat(0), .. }))
    );
    let s0 = &g.history()[0].sides[0];
    assert_eq!(s0.melded_cards, 35 + 50 + 30);
    assert_eq!(s0.cards_in_hand, -finish_hand_value(&events, 2));
}

// R-SAMBA-7: no black-three meld beyond the six a 162-card pack holds: the option cannot be set
// above six.
#[test]
fn r_samba_7_black_three_meld_at_most_six() {
    let err = Rules::new(&samba_spec(&[("black_three_meld_max", "7")])).unwrap_err();
    assert_eq!(err.code(), "OPTION_CONFLICT");
    assert!(err.to_string().contains("between 3 and 6"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// R-SAMBA-8: red threes

/// Seat 0 is dealt `dealt` (with red threes), lays them at its first turn and draws
/// `replacements`, then draws 5S 5H; it goes out concealed with seven kings, the samba 4S-10S
/// and three queens. Returns the events of the going out.
fn red_threes_going_out(dealt: &str, replacements: &str) -> (Game, Vec<Event>) {
    let mut g = samba(&[dealt], "7D", &format!("{replacements} QH QD"));
    let reds: CardCounts = list(dealt)
        .into_iter()
        .filter(|c| c.is_red_three())
        .collect();
    assert_eq!(*g.red_threes(Seat(0)), reds);
    assert_eq!(
        *g.hand(Seat(0)),
        cards("KS KS KS KH KH KH KD 4S 5S 6S 7S 8S 9S 10S QS")
    );
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, concealed_out());
    (g, events)
}

// R-SAMBA-8: 100 per red three for a side with two canastas.
#[test]
fn r_samba_8_red_threes_positive_with_two_canastas() {
    let (g, events) =
        red_threes_going_out("3H 3D KS KS KS KH KH KH KD 4S 5S 6S 7S 8S 9S", "10S QS");
    assert_eq!(g.history().len(), 1);
    let s0 = &deal_ended(&events).sides[0];
    assert_eq!(s0.red_threes, 2);
    assert_eq!(s0.red_three_bonus, 200);
    assert_eq!(s0.total, s0.sum_of_items());
}

// R-SAMBA-8: all six red threes score 1000 for a side with two canastas.
#[test]
fn r_samba_8_all_six_red_threes_1000() {
    let (_, events) = red_threes_going_out(
        "3H 3H 3H 3D 3D 3D KS KS KS KH KH KH KD 4S 5S",
        "6S 7S 8S 9S 10S QS",
    );
    let s0 = &deal_ended(&events).sides[0];
    assert_eq!(s0.red_threes, 6);
    assert_eq!(s0.red_three_bonus, 1000);
    assert_eq!(s0.canasta_bonus, 2000);
    assert_eq!(s0.total, s0.sum_of_items());
}

/// Seat 0 is dealt `dealt` (red threes and seven kings), lays the red threes and draws
/// `replacements`; it melds the kings (one canasta) and discards. Seat 1 then goes out.
fn one_canasta_with_red_threes(dealt: &str, replacements: &str) -> (Game, Vec<Event>) {
    let mut g = samba(
        &[dealt, SEAT1],
        "7D",
        &format!("{replacements} 5S 5H {SEAT1_DRAW}"),
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KS KH KH KH KD")]));
    act(&mut g, 0, discard("5S"));
    let events = seat1_goes_out(&mut g);
    (g, events)
}

// R-SAMBA-8: a side with one canasta (it has melded) counts its red threes against it.
#[test]
fn r_samba_8_red_threes_negative_with_one_canasta() {
    let (g, events) =
        one_canasta_with_red_threes("3H 3D KS KS KS KH KH KH KD 4C 5D 6H 8C 9D 10S", "4D 4H");
    assert_eq!(g.history().len(), 1);
    let report = deal_ended(&events);
    let s0 = &report.sides[0];
    assert_eq!(s0.natural_canastas, 1);
    assert_eq!(s0.red_threes, 2);
    assert_eq!(s0.red_three_bonus, -200);
    assert_eq!(s0.canasta_bonus, 500);
    assert_eq!(s0.total, s0.sum_of_items());
    check_seat1_side(&report, &events);
}

// R-SAMBA-8: all six red threes with one canasta cost 1000.
#[test]
fn r_samba_8_six_red_threes_negative_with_one_canasta() {
    let (_, events) = one_canasta_with_red_threes(
        "3H 3H 3H 3D 3D 3D KS KS KS KH KH KH KD 4C 5D",
        "4D 4H 6D 6S 8D 8S",
    );
    let s0 = &deal_ended(&events).sides[0];
    assert_eq!(s0.red_threes, 6);
    assert_eq!(s0.red_three_bonus, -1000);
    assert_eq!(s0.total, s0.sum_of_items());
}

// ---------------------------------------------------------------------------------------------
// R-SAMBA-9: wild-card canastas

// R-SAMBA-9: with wild_canastas=true three more jokers join the pack: 165 cards, 9 jokers.
#[test]
fn r_samba_9_wild_canastas_pack_of_165() {
    let spec = samba_spec(&[("wild_canastas", "true")]);
    let rules = Rules::new(&spec).unwrap();
    assert_eq!(rules.jokers, 9);
    assert_eq!(rules.pack_size(), 165);
    let g = arranged_with(spec, &["", "", "", ""], "", "", vec![]);
    let all = g.all_cards();
    assert_eq!(all.len(), 165);
    assert_eq!(all.count(Card::JOKER), 9);
    assert_eq!(all.twos(), 12);
}

// R-SAMBA-9: a meld of wild cards only is allowed with the option; it takes only wild cards and
// no more than seven. Without the option it is refused as WILD_ONLY_MELD.
#[test]
fn r_samba_9_meld_of_wild_cards_only() {
    let hand = "Jk Jk Jk Jk Jk Jk 2C 2D KS KH 4C 5D 6H 8S 9C";
    let mut g = arranged_with(
        samba_spec(&[("wild_canastas", "true")]),
        &[hand],
        "7D",
        "10D JH",
        vec![],
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("Jk Jk 2C")]));
    assert_eq!(g.melds(Side(0))[0].kind, MeldKind::Wild);
    let msg = refuse(&mut g, 0, meld(&[add(0, "KS")]), "NOT_WILD");
    assert!(msg.contains("jokers and twos"), "{msg}");
    act(&mut g, 0, meld(&[add(0, "Jk Jk Jk Jk")]));
    let w = &g.melds(Side(0))[0];
    assert_eq!(w.len(), 7);
    assert_eq!(w.canasta(), Some(CanastaKind::WildMixed));
    refuse(&mut g, 0, meld(&[add(0, "2D")]), "CANASTA_CLOSED");

    let mut g = samba(&[hand], "7D", "10D JH");
    act(&mut g, 0, Action::DrawStock);
    refuse(&mut g, 0, meld(&[new_meld("Jk Jk 2C")]), "WILD_ONLY_MELD");
}

// R-SAMBA-9: seven jokers score 4000, seven twos 3000.
#[test]
fn r_samba_9_joker_and_deuce_canastas() {
    let mut g = arranged_with(
        samba_spec(&[("wild_canastas", "true")]),
        &["Jk Jk Jk Jk Jk Jk Jk 2C 2C 2C 2D 2D 2D 2H KS"],
        "7D",
        "KH KD",
        vec![],
    );
    act(&mut g, 0, Action::DrawStock);
    let events = act(
        &mut g,
        0,
        go_out(
            &[
                new_meld("Jk Jk Jk Jk Jk Jk Jk"),
                new_meld("2C 2C 2C 2D 2D 2D 2H"),
                new_meld("KS KH KD"),
            ],
            None,
        ),
    );
    let s0 = &deal_ended(&events).sides[0];
    assert_eq!(s0.wild_canastas, 2);
    assert_eq!(s0.canasta_bonus, 4000 + 3000);
    assert_eq!(s0.melded_cards, 350 + 140 + 30);
    assert_eq!(s0.going_out_bonus, 200);
    assert_eq!(s0.total, s0.sum_of_items());
}

// R-SAMBA-9: seven wild cards of jokers and twos score 2000.
#[test]
fn r_samba_9_mixed_wild_canasta() {
    let mut g = arranged_with(
        samba_spec(&[("wild_canastas", "true")]),
        &["Jk Jk Jk Jk 2C 2D 2H KS KS KS KH KH KH KD QS"],
        "7D",
        "QH QD",
        vec![],
    );
    act(&mut g, 0, Action::DrawStock);
    let events = act(
        &mut g,
        0,
        go_out(
            &[
                new_meld("Jk Jk Jk Jk 2C 2D 2H"),
                new_meld("KS KS KS KH KH KH KD"),
                new_meld("QS QH QD"),
            ],
            None,
        ),
    );
    let s0 = &deal_ended(&events).sides[0];
    assert_eq!(s0.wild_canastas, 1);
    assert_eq!(s0.natural_canastas, 1);
    assert_eq!(s0.canasta_bonus, 2000 + 500);
    assert_eq!(s0.melded_cards, 200 + 60 + 70 + 30);
    assert_eq!(s0.total, s0.sum_of_items());
}

// ---------------------------------------------------------------------------------------------
// The enumerator in a Samba deal (R-SAMBA-3, R-SAMBA-5)

// R-SAMBA-5: the legal list offers the take onto the sequence, none with a wild card and none
// onto the canasta; after the take it offers a new sequence from a run in the hand and the
// extension of the sequence (R-SAMBA-3); every listed action passes the check.
#[test]
fn r_samba_enumerator_lists_sequences_and_takes_onto_them() {
    let mut g = side0_opened("7D", "9H");
    let actions = legal(&g);
    let onto_seq = take_add(2, "");
    assert!(actions.contains(&onto_seq), "{actions:?}");
    assert!(!actions.iter().any(|a| matches!(a,
        Action::TakePile { top, .. }
            if top.cards.wilds() > 0 || top.target == MeldTarget::Existing(0))));
    for a in &actions {
        assert_eq!(g.check(Seat(2), a), Ok(()), "{a}");
    }
    let summary = g.legal().unwrap().summary();
    assert!(summary.can_draw);
    assert!(
        summary
            .pile_takes
            .iter()
            .any(|t| t.target == MeldTarget::Existing(2)),
        "{summary:?}"
    );

    act(&mut g, 2, onto_seq);
    assert!(g.hand(Seat(2)).contains(&cards("10H JH QH")));
    let actions = legal(&g);
    assert!(
        actions.contains(&meld(&[new_meld("10H JH QH")])),
        "{actions:?}"
    );
    assert!(actions.contains(&meld(&[add(2, "10H")])), "{actions:?}");
    for a in &actions {
        assert_eq!(g.check(Seat(2), a), Ok(()), "{a}");
    }
    let summary = g.legal().unwrap().summary();
    assert!(
        summary.sequence_suits.contains(&Suit::Hearts),
        "{summary:?}"
    );
    assert!(summary.add_to_melds.contains(&2), "{summary:?}");
}

// R-SAMBA-3: an initial meld listed for a side that has not melded may be a sequence; every
// listed action passes the check.
#[test]
fn r_samba_enumerator_lists_initial_sequence() {
    let mut g = samba(
        &["4S 5S 6S 7S 8S 9S 10S KH 4C 6D 8H 10C QD AC 5H", "", "", ""],
        "7D",
        "9C JD",
    );
    act(&mut g, 0, Action::DrawStock);
    assert!(!g.side_melded(Side(0)));
    let actions = legal(&g);
    let rules = *g.rules();
    let seq_meld = actions.iter().find(|a| match a {
        Action::Meld { melds } => melds.iter().any(|m| {
            m.target == MeldTarget::New
                && kind_of_new(&rules, &m.cards) == Ok(MeldKind::Sequence(Suit::Spades))
        }),
        _ => false,
    });
    assert!(seq_meld.is_some(), "{actions:?}");
    assert!(actions.contains(&meld(&[new_meld("4S 5S 6S 7S 8S 9S 10S")])));
    for a in &actions {
        assert_eq!(g.check(Seat(0), a), Ok(()), "{a}");
    }
    let summary = g.legal().unwrap().summary();
    assert!(
        summary.sequence_suits.contains(&Suit::Spades),
        "{summary:?}"
    );
    assert_eq!(summary.minimum_remaining, 50);
    act(&mut g, 0, meld(&[new_meld("4S 5S 6S 7S 8S 9S 10S")]));
    assert_eq!(g.melds(Side(0))[0].canasta(), Some(CanastaKind::Samba));
}

// R-SAMBA-5 (seed 003): "ebenso wenig, wenn die oberste Karte an einen Canasta angelegt werden
// kann (ausgenommen mit einem Paar gleichrangiger natürlicher Karten, die aus der Hand
// ausgelegt werden)": while the top card could be added to one of the side's canastas, only a
// natural pair from the hand takes the pile, even where the top card could join a smaller meld.

/// Seat 0 opens with a mixed canasta of kings (meld 0), a second group of three kings (meld 1)
/// and the sequence 10H JH QH (meld 2), and discards 4C; seat 1 discards KH. Seat 2 (side 0)
/// is to draw, holding KS KD and fillers; the pile is 7D 4C KH, not frozen.
fn kings_canasta_and_group(options: &[(&str, &str)]) -> Game {
    let mut g = arranged_with(
        samba_spec(options),
        &[
            "KS KS KH KH KD 2C 2D KD KC KC 10H JH QH 4C 9D",
            "KH",
            "KS KD",
            "",
        ],
        "7D",
        "5C 5D 6C 6D",
        vec![],
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[
            new_meld("KS KS KH KH KD 2C 2D"),
            new_meld("KD KC KC"),
            new_meld("10H JH QH"),
        ]),
    );
    act(&mut g, 0, discard("4C"));
    act(&mut g, 1, Action::DrawStock);
    act(&mut g, 1, discard("KH"));
    assert_eq!(g.to_act(), Some(Seat(2)));
    assert!(!g.pile_frozen());
    let melds = g.melds(Side(0));
    assert!(melds[0].is_canasta() && !melds[1].is_canasta());
    g
}

// R-SAMBA-5: the top king fits the canasta of kings, so it may not go onto the group of three
// kings, nor extend the sequence to the king: refused, and nothing changes.
#[test]
fn r_samba_5_top_card_fitting_a_canasta_needs_a_pair() {
    let mut g = kings_canasta_and_group(&[]);
    assert!(g.rules().pair_if_top_fits_canasta);
    let msg = refuse(&mut g, 2, take_add(1, ""), "PILE_TAKE_FORBIDDEN");
    assert!(
        msg.contains("canastas") && msg.contains("natural pair"),
        "{msg}"
    );
    refuse(&mut g, 2, take_add(2, ""), "PILE_TAKE_FORBIDDEN");
    // The listing offers only takes with the natural pair.
    let takes: Vec<Action> = legal(&g)
        .into_iter()
        .filter(|a| matches!(a, Action::TakePile { .. }))
        .collect();
    assert!(!takes.is_empty());
    for t in &takes {
        let Action::TakePile { top, .. } = t else {
            unreachable!()
        };
        assert_eq!(top.cards.rank_count(Rank::King), 2, "{t}");
    }
    let summary = g.legal().unwrap().summary();
    assert!(
        summary.pile_takes.iter().all(|o| o.naturals >= 2),
        "{summary:?}"
    );
}

// R-SAMBA-5: the natural pair from the hand takes that pile, as a new group of kings or onto the
// group of three kings.
#[test]
fn r_samba_5_top_card_fitting_a_canasta_taken_with_a_pair() {
    let mut g = kings_canasta_and_group(&[]);
    act(&mut g, 2, take_new("KS KD", &[]));
    let melds = g.melds(Side(0));
    assert_eq!(melds[3].cards, cards("KS KD KH"));
    assert!(g.pile().is_empty());

    let mut g = kings_canasta_and_group(&[]);
    act(&mut g, 2, take_add(1, "KS KD"));
    assert_eq!(g.melds(Side(0))[1].cards, cards("KD KC KC KS KD KH"));
}

// R-SAMBA-5: with the option off (the looser reading, which forbids only adding the top card to
// the canasta itself), the top king may go onto the group of three kings.
#[test]
fn r_samba_5_top_card_onto_small_group_with_option_off() {
    let mut g = kings_canasta_and_group(&[("pair_if_top_fits_canasta", "false")]);
    act(&mut g, 2, take_add(1, ""));
    assert_eq!(g.melds(Side(0))[1].cards, cards("KD KC KC KH"));
}
