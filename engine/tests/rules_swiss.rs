//! The `swiss` preset (docs/rules.md, "swiss"; seed 004, "Kanaster"): each difference from
//! `official`, with the rule ids it changes (R-DEAL-6, R-DEAL-2, R-DEAL-5, R-INIT-1, R-INIT-5,
//! R-MELD-1, R-MELD-2, R-MELD-6, R-TURN-4, R-PILE-5, R-OUT-1, R-OUT-4, R-RED-5, R-SCORE-2).
mod common;
use canasta_engine::{
    Action, Arrangement, CanastaKind, Event, Game, MeldKind, MeldSpec, MeldTarget, Phase, Preset,
    Rank, RuleSpec, Rules, Seat, Setup, Side,
};
use common::*;

// ---------------------------------------------------------------------------------------------
// Helpers

/// A prearranged Swiss deal (seat 0 plays first; the cutter, the seat before the dealer,
/// keeps no wild card).
fn swiss(players: u8, hands: &[&str], pile: &str, stock: &str) -> Game {
    arranged_with(
        RuleSpec::new(Preset::Swiss, players),
        hands,
        pile,
        stock,
        vec![],
    )
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
// R-DEAL-6: the cut

// R-DEAL-6: with a prearranged deck whose bottom cards are Jk and 2C, the cutter (seat 2, the
// player before the dealer, seat 3) keeps them and is dealt 11 cards; every hand holds 13; the
// DealStarted event reports the cut.
#[test]
fn r_deal_6_cutter_keeps_the_wild_cards_of_the_cut() {
    let spec = RuleSpec::new(Preset::Swiss, 4);
    let rules = Rules::new(&spec).unwrap();
    let dealer = Seat(3);
    let arrangement = Arrangement {
        hands: vec![list("AS AH"), vec![], list("KS KH KD"), vec![]],
        pile: list("7D"),
        stock: list("QS"),
        cut: list("Jk 2C"),
    };
    let deck = arrangement.deck(&rules, 0, dealer).unwrap();
    assert_eq!(deck.len(), 162);
    // The deck lies as after the cut: the kept wild cards at the bottom, Jk shown first.
    assert_eq!(&deck[160..], &list("2C Jk")[..]);
    let setup = Setup {
        rules: spec,
        card_orders: vec![deck],
        first_dealer: Some(dealer),
        ..Setup::default()
    };
    let (g, events) = Game::start(&setup).unwrap();
    let start = deal_started(&events);
    assert_eq!(start.dealer, Seat(3));
    assert_eq!(start.cut, Some((Seat(2), list("Jk 2C"))));
    assert_eq!(start.hand_sizes, vec![13, 13, 13, 13]);
    for s in 0..4 {
        assert_eq!(g.hand(Seat(s)).len(), 13, "seat {s}");
    }
    let cutter = g.hand(Seat(2));
    assert_eq!(cutter.count(card("Jk")), 1);
    assert_eq!(cutter.count(card("2C")), 1);
    assert!(cutter.contains(&cards("KS KH KD")));
    // The cutter's other eleven cards are the natural fillers dealt to him.
    assert_eq!(cutter.wilds(), 2);
    assert_eq!(start.hands[2], Some(*cutter));
    assert!(g.hand(Seat(0)).contains(&cards("AS AH")));
    assert_eq!(g.pile(), &list("7D")[..]);
    assert_eq!(g.stock().last(), Some(&card("QS")));
    // 162 - 4 x 13 dealt (two of them by the cut) - 1 upcard.
    assert_eq!(g.stock().len(), 109);
}

// R-DEAL-6: the cutter is dealt as many fewer cards as he kept: naming 12 dealt cards for him
// beside a cut of two is refused when the deck is built.
#[test]
fn r_deal_6_cutter_is_dealt_fewer_cards() {
    let rules = Rules::new(&RuleSpec::new(Preset::Swiss, 4)).unwrap();
    let arrangement = Arrangement {
        hands: vec![
            vec![],
            vec![],
            list("4S 5S 6S 7S 8S 9S 10S JS QS KS AS 4H"),
            vec![],
        ],
        pile: vec![],
        stock: vec![],
        cut: list("Jk 2C"),
    };
    let err = arrangement.deck(&rules, 0, Seat(3)).unwrap_err();
    assert!(
        err.contains("seat 2 is given 12 cards, but 11 are dealt to him"),
        "{err}"
    );
    // The same hand of eleven cards is accepted.
    let arrangement = Arrangement {
        hands: vec![
            vec![],
            vec![],
            list("4S 5S 6S 7S 8S 9S 10S JS QS KS AS"),
            vec![],
        ],
        ..arrangement
    };
    assert_eq!(arrangement.deck(&rules, 0, Seat(3)).unwrap().len(), 162);
}

// R-DEAL-6: a deck whose bottom card is not wild shows no wild card at the cut: the cutter
// keeps nothing, and the event reports an empty cut.
#[test]
fn r_deal_6_cut_showing_no_wild_card_keeps_nothing() {
    let spec = RuleSpec::new(Preset::Swiss, 4);
    let rules = Rules::new(&spec).unwrap();
    let deck = Arrangement::default().deck(&rules, 0, Seat(3)).unwrap();
    assert!(!deck.last().unwrap().is_wild());
    let setup = Setup {
        rules: spec,
        card_orders: vec![deck],
        first_dealer: Some(Seat(3)),
        ..Setup::default()
    };
    let (g, events) = Game::start(&setup).unwrap();
    assert_eq!(deal_started(&events).cut, Some((Seat(2), vec![])));
    assert_eq!(g.hand(Seat(2)).wilds(), 0);
}

// R-DEAL-6: a seeded Swiss deal is cut too: in a seed whose cut shows wild cards, the cutter
// (the seat before the dealer) holds them in a hand of 13, and the deal is deterministic: the
// same seed deals the same hands and the same cut.
#[test]
fn r_deal_6_seeded_deal_is_cut_deterministically() {
    let spec = RuleSpec::new(Preset::Swiss, 4);
    let start = |seed: u64| Game::start(&Setup::seeded(spec.clone(), seed)).unwrap();
    let (seed, g, events) = (0..500)
        .map(|seed| {
            let (g, events) = start(seed);
            (seed, g, events)
        })
        .find(|(_, _, events)| {
            deal_started(events)
                .cut
                .is_some_and(|(_, kept)| !kept.is_empty())
        })
        .expect("some seed below 500 cuts a wild card");
    let d = deal_started(&events);
    let (cutter, kept) = d.cut.clone().unwrap();
    assert_eq!(cutter, Seat((g.dealer().0 + 3) % 4), "seed {seed}");
    assert!(kept.iter().all(|c| c.is_wild()), "{kept:?}");
    assert_eq!(g.hand(cutter).len(), 13);
    assert!(g.hand(cutter).contains(&kept.iter().copied().collect()));
    assert_eq!(d.hand_sizes, vec![13, 13, 13, 13]);
    for &s in g.play_order() {
        assert_eq!(g.hand(s).len(), 13, "seat {}", s.0);
    }
    assert_eq!(g.all_cards().len(), 162);

    // The same seed: the same deal, hands and stock.
    let (again, events_again) = start(seed);
    assert_eq!(deal_started(&events_again), d);
    for s in 0..4 {
        assert_eq!(again.hand(Seat(s)), g.hand(Seat(s)));
    }
    assert_eq!(again.stock(), g.stock());
    assert_eq!(again.state_hash(), g.state_hash());
}

// ---------------------------------------------------------------------------------------------
// R-DEAL-2: players, decks, hand size

// R-DEAL-2 (Swiss): 13 cards each; two decks (108 cards) for 2 or 3 players, three decks and six
// jokers (162) for 4 or 5; six players are refused with BAD_PLAYER_COUNT.
#[test]
fn r_deal_2_swiss_decks_and_hands_by_player_count() {
    for (n, decks, jokers, pack) in [
        (2, 2, 4, 108),
        (3, 2, 4, 108),
        (4, 3, 6, 162),
        (5, 3, 6, 162),
    ] {
        let spec = RuleSpec::new(Preset::Swiss, n);
        let rules = Rules::new(&spec).unwrap();
        assert_eq!(
            (
                rules.decks,
                rules.jokers,
                rules.pack_size(),
                rules.hand_size
            ),
            (decks, jokers, pack, 13),
            "{n} players"
        );
        let g = Game::new(&Setup::seeded(spec, 3)).unwrap();
        let all = g.all_cards();
        assert_eq!(all.len(), pack, "{n} players");
        assert_eq!(all.jokers(), jokers, "{n} players");
        assert_eq!(all.count(card("KS")), decks, "{n} players");
        for &s in g.play_order() {
            assert_eq!(g.hand(s).len(), 13, "{n} players, seat {}", s.0);
        }
    }
    let err = Rules::new(&RuleSpec::new(Preset::Swiss, 6)).unwrap_err();
    assert_eq!(err.code(), "BAD_PLAYER_COUNT");
    assert!(err.to_string().contains("2 to 5"), "{err}");
    let err = Game::new(&Setup::seeded(RuleSpec::new(Preset::Swiss, 6), 1)).unwrap_err();
    assert_eq!(err.code(), "BAD_PLAYER_COUNT");
}

// ---------------------------------------------------------------------------------------------
// R-INIT-1: the minimum table 50 / 90 / 120

// R-INIT-1 (Swiss): a side with a negative score needs 50 (officially 15), a side with 1500
// needs 90.
#[test]
fn r_init_1_swiss_negative_score_needs_50() {
    let hands = [
        "4S 4H 4D 4C JS JH JD",
        "AS AH AD 9S 9H 9D 4S 4H 4D 4C",
        "",
        "",
    ];
    let mut g = arranged_with(
        RuleSpec::new(Preset::Swiss, 4),
        &hands,
        "7D",
        "5S 6S",
        vec![-500, 1500],
    );
    assert_eq!((g.minimum(Side(0)), g.minimum(Side(1))), (50, 90));
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld("4S 4H 4D 4C")]), "BELOW_MINIMUM");
    assert!(msg.contains("at least 50"), "{msg}");
    act(
        &mut g,
        0,
        meld(&[new_meld("4S 4H 4D 4C"), new_meld("JS JH JD")]),
    );
    assert!(g.side_melded(Side(0)));
    act(&mut g, 0, discard("5S"));
    act(&mut g, 1, Action::DrawStock);
    let msg = refuse(
        &mut g,
        1,
        meld(&[new_meld("AS AH AD"), new_meld("4S 4H 4D 4C")]),
        "BELOW_MINIMUM",
    );
    assert!(msg.contains("at least 90"), "{msg}");
    act(
        &mut g,
        1,
        meld(&[new_meld("AS AH AD"), new_meld("9S 9H 9D")]),
    );
    assert!(g.side_melded(Side(1)));

    // Official: a negative score needs 15.
    let g = arranged_with(spec(4, &[]), &["", "", "", ""], "7D", "", vec![-500, 1500]);
    assert_eq!((g.minimum(Side(0)), g.minimum(Side(1))), (15, 90));
}

// R-INIT-1 (Swiss): 120 from 3000; 50 just below 1500.
#[test]
fn r_init_1_swiss_120_from_3000() {
    let mut g = arranged_with(
        RuleSpec::new(Preset::Swiss, 4),
        &["AS AH AD KS KH KD QS QH QD 4S 4H 4D 4C", "", "", ""],
        "7D",
        "5S",
        vec![3000, 1495],
    );
    assert_eq!((g.minimum(Side(0)), g.minimum(Side(1))), (120, 50));
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        meld(&[
            new_meld("AS AH AD"),
            new_meld("KS KH KD"),
            new_meld("4S 4H 4D 4C"),
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
            new_meld("QS QH QD"),
        ]),
    );
    assert_eq!(g.melds(Side(0)).len(), 3);
}

// ---------------------------------------------------------------------------------------------
// R-MELD-1: wild cards fewer than naturals

// R-MELD-1 (Swiss): two naturals and one wild card are legal; two and two are refused with
// WILD_RATIO; three and two are legal; four and three (by adding) are legal, three and three
// are not.
#[test]
fn r_meld_1_swiss_wild_cards_fewer_than_naturals() {
    let mut g = swiss(4, &["AS AH 2C KS KH KD KC 2D 2H Jk"], "7D", "5S");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld("KS KH 2D 2H")]), "WILD_RATIO");
    assert!(msg.contains("must be fewer"), "{msg}");
    refuse(&mut g, 0, meld(&[new_meld("AS AH 2C 2D")]), "WILD_RATIO");
    act(&mut g, 0, meld(&[new_meld("AS AH 2C")]));
    refuse(&mut g, 0, meld(&[new_meld("KS KH 2D 2H")]), "WILD_RATIO");
    act(&mut g, 0, meld(&[new_meld("KS KH KD 2D 2H")]));
    refuse(&mut g, 0, meld(&[add(1, "Jk")]), "WILD_RATIO");
    act(&mut g, 0, meld(&[add(1, "KC Jk")]));
    let m = g.melds(Side(0))[1];
    assert_eq!(m.cards, cards("KS KH KD KC 2D 2H Jk"));
    assert_eq!(m.canasta(), Some(CanastaKind::Mixed));
    assert_eq!(g.hand(Seat(0)).len(), 4);
}

// R-MELD-1 (Swiss): no limit of three wild cards: K K K K 2 2 2 is a legal new meld, and five
// queens take four wild cards (officially TOO_MANY_WILDS).
#[test]
fn r_meld_1_swiss_no_limit_of_three_wild_cards() {
    let mut g = swiss(4, &["KS KH KD KC 2C 2D 2H"], "7D", "5S");
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KH KD KC 2C 2D 2H")]));
    assert_eq!(g.melds(Side(0))[0].wilds(), 3);

    let hand = ["QS QH QD QC QS 2C 2D 2H Jk"];
    let mut g = swiss(4, &hand, "7D", "5S");
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("QS QH QD QC QS 2C 2D 2H Jk")]));
    assert_eq!(g.melds(Side(0))[0].wilds(), 4);
    assert_eq!(g.melds(Side(0))[0].canasta(), Some(CanastaKind::Mixed));

    let mut g = arranged(4, &[], &hand, "7D", "5S");
    act(&mut g, 0, Action::DrawStock);
    refuse(
        &mut g,
        0,
        meld(&[new_meld("QS QH QD QC QS 2C 2D 2H Jk")]),
        "TOO_MANY_WILDS",
    );
}

// ---------------------------------------------------------------------------------------------
// R-MELD-2: several melds and canastas of one rank

// R-MELD-2 (Swiss): a side may start a second meld of kings beside its canasta of kings, and
// complete it into a second canasta of kings (officially RANK_ALREADY_MELDED).
#[test]
fn r_meld_2_swiss_several_melds_and_canastas_of_one_rank() {
    let mut g = swiss(
        4,
        &["KS KS KH KH KD KD KC KS KH KD", "", "KC KC Jk 2C", ""],
        "7D",
        "4S 5S 6S",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD KD KC")]));
    act(&mut g, 0, meld(&[new_meld("KS KH KD")]));
    let melds = g.melds(Side(0));
    assert_eq!(melds.len(), 2);
    assert_eq!(melds[0].kind, MeldKind::Group(Rank::King));
    assert_eq!(melds[1].kind, MeldKind::Group(Rank::King));
    assert_eq!(melds[1].cards, cards("KS KH KD"));
    act(&mut g, 0, discard("4S"));
    pass(&mut g, &[1]);
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, meld(&[add(1, "KC KC Jk 2C")]));
    let melds = g.melds(Side(0));
    assert_eq!(melds[0].canasta(), Some(CanastaKind::Natural));
    assert_eq!(melds[1].canasta(), Some(CanastaKind::Mixed));
    assert_eq!(melds[1].cards, cards("KS KH KD KC KC Jk 2C"));

    // Official: one meld per rank.
    let mut g = arranged(4, &[], &["KS KH KD AS AH AD KS KH KC"], "7D", "5S");
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD"), new_meld("AS AH AD")]),
    );
    refuse(
        &mut g,
        0,
        meld(&[new_meld("KS KH KC")]),
        "RANK_ALREADY_MELDED",
    );
}

// ---------------------------------------------------------------------------------------------
// R-TURN-4 / R-PILE-5: the Swiss stop cards and no melding after taking the pile

/// Seat 0 melds a natural canasta of kings (meld 0 of side 0) in his first turn; seats 1 to 3
/// draw and discard; seat 0 draws 8S and discards KS in his second turn. Seat 1 holds KH KD and
/// three aces and QD; seat 2 holds QS QH QC JS JH JD 2C. Returns the game and seat 0's events.
fn own_canasta_king_discarded() -> (Game, Vec<Event>) {
    let mut g = swiss(
        4,
        &[
            "KS KS KH KH KD KD KC KS",
            "KH KD AS AH AD QD",
            "QS QH QC JS JH JD 2C",
            "",
        ],
        "7D",
        "4S 5S 6S 7S 8S 9S",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD KD KC")]));
    act(&mut g, 0, discard("4S"));
    pass(&mut g, &[1, 2, 3]);
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, discard("KS"));
    assert_eq!(g.pile(), &list("7D 4S 5S 6S 7S KS")[..]);
    (g, events)
}

// R-TURN-4 (Swiss): a king discarded while a canasta of kings lies on the table blocks the pile
// for the next player, even when the canasta is the discarder's own side's (the Wiener rule
// would not block here).
#[test]
fn r_turn_4_swiss_card_of_a_canastas_rank_blocks() {
    let (mut g, events) = own_canasta_king_discarded();
    assert!(events.contains(&Event::Discarded {
        seat: Seat(0),
        card: card("KS"),
        blocks: true,
        frozen: false,
    }));
    assert!(g.pile_blocked());
    let msg = refuse(
        &mut g,
        1,
        take_new("KH KD", &[new_meld("AS AH AD")]),
        "PILE_BLOCKED",
    );
    assert!(msg.contains("K♠"), "{msg}");
    assert!(!has_take(&g));
}

// R-TURN-4 / R-PILE-5 (Swiss): once covered the stop card has no effect: seat 1 covers the king
// with QD and seat 2 takes the pile with QS QH. After the pick-up he may lay the king he picked
// up onto his side's canasta of kings, but nothing else: no new meld, no addition to the
// queens (not a canasta), no wild card on the canasta (NO_MELD_AFTER_TAKE).
#[test]
fn r_pile_5_swiss_after_take_only_stop_cards_onto_the_canasta() {
    let (mut g, _) = own_canasta_king_discarded();
    act(&mut g, 1, Action::DrawStock);
    let events = act(&mut g, 1, discard("QD"));
    assert!(!discard_blocks(&events, 1));
    assert!(!g.pile_blocked());
    act(&mut g, 2, take_new("QS QH", &[]));
    assert!(g.turn_flags().took_pile);
    assert_eq!(g.melds(Side(0))[1].cards, cards("QS QH QD"));
    assert_eq!(g.hand(Seat(2)).count(card("KS")), 1);
    assert!(g.hand(Seat(2)).contains(&cards("QC JS JH JD 2C")));

    let msg = refuse(
        &mut g,
        2,
        meld(&[new_meld("JS JH JD")]),
        "NO_MELD_AFTER_TAKE",
    );
    assert!(msg.contains("discard now"), "{msg}");
    refuse(&mut g, 2, meld(&[add(1, "QC")]), "NO_MELD_AFTER_TAKE");
    refuse(&mut g, 2, meld(&[add(0, "2C")]), "NO_MELD_AFTER_TAKE");
    refuse(
        &mut g,
        2,
        meld(&[add(0, "KS"), new_meld("JS JH JD")]),
        "NO_MELD_AFTER_TAKE",
    );
    // The legal list offers only kings onto the canasta.
    let steps: Vec<MeldSpec> = legal(&g)
        .into_iter()
        .filter_map(|a| match a {
            Action::Meld { melds } => Some(melds.to_vec()),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(!steps.is_empty());
    for step in &steps {
        assert_eq!(step.target, MeldTarget::Existing(0), "{step:?}");
        assert_eq!(step.cards.rank_count(Rank::King) as usize, step.cards.len());
    }
    act(&mut g, 2, meld(&[add(0, "KS")]));
    let m = g.melds(Side(0))[0];
    assert_eq!(m.len(), 8);
    assert_eq!(m.canasta(), Some(CanastaKind::Natural));
    assert_eq!(g.hand(Seat(2)).count(card("KS")), 0);
    act(&mut g, 2, discard("JS"));
    assert_eq!(g.to_act(), Some(Seat(3)));
}

/// Seat 0 melds `meld0` (kings) in his first turn; seat 1 draws and discards KC.
fn opponent_discards_king(meld0: &str) -> (Game, Vec<Event>) {
    let mut g = swiss(4, &["KS KS KH KH KD KD KC", "KC", "", ""], "7D", "4S 5S 6S");
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld(meld0)]));
    act(&mut g, 0, discard("4S"));
    act(&mut g, 1, Action::DrawStock);
    let events = act(&mut g, 1, discard("KC"));
    (g, events)
}

// R-TURN-4 (Swiss): the canasta may lie on either side: seat 1 discards a king and the pile is
// blocked for seat 2, whose side owns the canasta of kings; a meld of six kings blocks nothing,
// and seat 2 then takes the pile onto it.
#[test]
fn r_turn_4_swiss_opponents_canasta_blocks_a_meld_of_six_does_not() {
    let (mut g, events) = opponent_discards_king("KS KS KH KH KD KD KC");
    assert!(discard_blocks(&events, 1));
    assert!(g.pile_blocked());
    refuse(&mut g, 2, take_add(0, ""), "PILE_BLOCKED");

    let (mut g, events) = opponent_discards_king("KS KS KH KH KD KD");
    assert!(!discard_blocks(&events, 1));
    assert!(!g.pile_blocked());
    act(&mut g, 2, take_add(0, ""));
    assert_eq!(g.melds(Side(0))[0].canasta(), Some(CanastaKind::Natural));
}

/// Seat 0 holds `hand` (13 cards: a natural canasta of kings, QS QH and `rest`), draws 4S,
/// melds the canasta and `more` and discards 4S. Seats 1 and 2 draw and discard (seat 2
/// discards AS); seat 3 takes the pile with AS AH and discards QD. Seat 0 is then to draw,
/// facing a pile of one card, QD.
fn before_queen_pile(spec: RuleSpec, rest: &str, more: &[&str]) -> Game {
    let hand = format!("KS KS KH KH KD KD KC QS QH {rest}");
    let mut g = arranged_with(
        spec,
        &[&hand, "", "AS", "AS AH QD"],
        "7D",
        "4S 5S 6S",
        vec![],
    );
    act(&mut g, 0, Action::DrawStock);
    let mut melds = vec![new_meld("KS KS KH KH KD KD KC")];
    melds.extend(more.iter().map(|m| new_meld(m)));
    act(&mut g, 0, meld(&melds));
    act(&mut g, 0, discard("4S"));
    pass(&mut g, &[1]);
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, discard("AS"));
    act(&mut g, 3, take_new("AS AH", &[]));
    act(&mut g, 3, discard("QD"));
    assert_eq!(g.pile(), &list("QD")[..]);
    g
}

/// [`before_queen_pile`], then seat 0 takes the pile with QS QH.
fn take_then_go_out(rest: &str) -> Game {
    let mut g = before_queen_pile(RuleSpec::new(Preset::Swiss, 4), rest, &[]);
    act(&mut g, 0, take_new("QS QH", &[]));
    g
}

// R-PILE-5 / R-OUT-1 (Swiss): going out after taking the pile may not lay a new meld
// (NO_MELD_AFTER_TAKE), though the same cards would go out after a stock draw.
#[test]
fn r_pile_5_swiss_no_going_out_meld_after_take() {
    let mut g = take_then_go_out("JS JH JD 5C");
    assert_eq!(*g.hand(Seat(0)), cards("JS JH JD 5C"));
    refuse(
        &mut g,
        0,
        go_out(&[new_meld("JS JH JD")], Some("5C")),
        "NO_MELD_AFTER_TAKE",
    );
    refuse(
        &mut g,
        0,
        meld(&[new_meld("JS JH JD")]),
        "NO_MELD_AFTER_TAKE",
    );
    assert!(
        !legal(&g)
            .iter()
            .any(|a| matches!(a, Action::GoOut { .. } | Action::Meld { .. }))
    );
    act(&mut g, 0, discard("5C"));
    assert_eq!(*g.hand(Seat(0)), cards("JS JH JD"));
}

// R-PILE-5 / R-OUT-1 (Swiss): going out after taking the pile by laying the kings picked up or
// held onto the side's canasta of kings, with a discard, is allowed.
#[test]
fn r_pile_5_swiss_go_out_onto_canasta_after_take() {
    let mut g = take_then_go_out("KS KH KD 5C");
    assert_eq!(*g.hand(Seat(0)), cards("KS KH KD 5C"));
    let events = act(&mut g, 0, go_out(&[add(0, "KS KH KD")], Some("5C")));
    assert!(!went_out_concealed(&events));
    let s = deal_ended(&events).sides[0];
    assert_eq!(s.melded_cards, 100 + 30);
    assert_eq!(s.natural_canastas, 1);
    assert_eq!(s.going_out_bonus, 100);
}

// ---------------------------------------------------------------------------------------------
// R-OUT-1 / R-OUT-4: going out needs a canasta and a discard; 200 concealed, 100 otherwise

/// Seat 0 holds a natural canasta of kings, three queens and three jacks, and draws QC.
fn swiss_out_deal(spec: RuleSpec, start_scores: Vec<i32>) -> Game {
    let mut g = arranged_with(
        spec,
        &["KS KS KH KH KD KD KC QS QH QD JS JH JD"],
        "7D",
        "QC",
        start_scores,
    );
    act(&mut g, 0, Action::DrawStock);
    g
}

/// Seat 0 goes out concealed, discarding QC; returns the events.
fn swiss_concealed_out(g: &mut Game) -> Vec<Event> {
    act(
        g,
        0,
        go_out(
            &[
                new_meld("KS KS KH KH KD KD KC"),
                new_meld("QS QH QD"),
                new_meld("JS JH JD"),
            ],
            Some("QC"),
        ),
    )
}

// R-OUT-1 (Swiss): going out always ends with a discard: melding all 14 cards is refused with
// GO_OUT_NEEDS_DISCARD; melding 13 and discarding the last is going out concealed, 200.
#[test]
fn r_out_1_swiss_going_out_needs_a_discard() {
    let mut g = swiss_out_deal(RuleSpec::new(Preset::Swiss, 4), vec![]);
    let msg = refuse(
        &mut g,
        0,
        go_out(
            &[
                new_meld("KS KS KH KH KD KD KC"),
                new_meld("QS QH QD QC"),
                new_meld("JS JH JD"),
            ],
            None,
        ),
        "GO_OUT_NEEDS_DISCARD",
    );
    assert!(msg.contains("keep one card to discard"), "{msg}");
    let partner = g.hand(Seat(2)).value() as i32;
    let events = swiss_concealed_out(&mut g);
    assert!(went_out_concealed(&events));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::WentOut { seat: Seat(0), discard: Some(d), concealed: true, .. } if *d == card("QC")
    )));
    let s = deal_ended(&events).sides[0];
    // R-OUT-4 (Swiss): concealed going out 200.
    assert_eq!(s.going_out_bonus, 200);
    assert_eq!(s.melded_cards, 130);
    assert_eq!(s.canasta_bonus, 500);
    assert_eq!(s.cards_in_hand, -partner);
    assert_eq!(s.total, 130 + 500 + 200 - partner);

    // Official: the same cards may all be melded without a discard.
    let mut g = swiss_out_deal(spec(4, &[("hand_size", "13")]), vec![]);
    let events = act(
        &mut g,
        0,
        go_out(
            &[
                new_meld("KS KS KH KH KD KD KC"),
                new_meld("QS QH QD QC"),
                new_meld("JS JH JD"),
            ],
            None,
        ),
    );
    assert!(went_out_concealed(&events));
}

// R-OUT-1 (Swiss): since going out must end with a discard, a take that would leave no card is
// refused (MUST_KEEP_CARD); without that rule the player takes the pile and goes out at once.
#[test]
fn r_out_1_swiss_take_may_not_empty_the_hand() {
    // Seat 0 melds his canasta of kings and four jacks, keeping only QS QH.
    let mut g = before_queen_pile(
        RuleSpec::new(Preset::Swiss, 4),
        "JS JH JD JC",
        &["JS JH JD JC"],
    );
    assert_eq!(*g.hand(Seat(0)), cards("QS QH"));
    refuse(&mut g, 0, take_new("QS QH", &[]), "MUST_KEEP_CARD");
    assert!(!has_take(&g));
    act(&mut g, 0, Action::DrawStock);
    assert_eq!(g.hand(Seat(0)).len(), 3);

    // With go_out_requires_discard=false the take empties the hand and the player goes out.
    let relaxed = RuleSpec::new(Preset::Swiss, 4)
        .with("go_out_requires_discard", "false")
        .unwrap();
    let mut g = before_queen_pile(relaxed, "JS JH JD JC", &["JS JH JD JC"]);
    act(&mut g, 0, take_new("QS QH", &[]));
    assert!(g.hand(Seat(0)).is_empty());
    let events = act(&mut g, 0, go_out(&[], None));
    assert_eq!(deal_ended(&events).sides[0].going_out_bonus, 100);
}

// R-OUT-1 (Swiss): going out needs a canasta: without one it is refused with
// NOT_ENOUGH_CANASTAS.
#[test]
fn r_out_1_swiss_going_out_needs_a_canasta() {
    let mut g = swiss(4, &["QS QH QD QC JS JH JD JC 9S 9H 9D 8S 8H"], "7D", "8D");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        go_out(
            &[
                new_meld("QS QH QD QC"),
                new_meld("JS JH JD"),
                new_meld("9S 9H 9D"),
                new_meld("8S 8H 8D"),
            ],
            Some("JC"),
        ),
        "NOT_ENOUGH_CANASTAS",
    );
    assert!(msg.contains("needs 1 canasta"), "{msg}");
}

// R-OUT-4 (Swiss): a player who melded in an earlier turn goes out for the plain 100.
#[test]
fn r_out_4_swiss_plain_going_out_100() {
    let mut g = swiss(
        4,
        &["KS KS KH KH KD KD KC QS QH QD JS JH 5C"],
        "7D",
        "4S 5S 6S 7S JD",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD KD KC")]));
    act(&mut g, 0, discard("4S"));
    pass(&mut g, &[1, 2, 3]);
    act(&mut g, 0, Action::DrawStock);
    let events = act(
        &mut g,
        0,
        go_out(&[new_meld("QS QH QD"), new_meld("JS JH JD")], Some("5C")),
    );
    assert!(!went_out_concealed(&events));
    let s = deal_ended(&events).sides[0];
    assert_eq!(s.going_out_bonus, 100);
    assert_eq!(s.melded_cards, 130);
}

// ---------------------------------------------------------------------------------------------
// R-RED-5: red threes +100 each with a canasta, -100 each without

// R-RED-5 (Swiss): side 0 melded three aces but has no canasta: its two red threes count -200;
// side 1, which goes out with a canasta, gains 100 for its red three.
#[test]
fn r_red_5_swiss_plus_with_canasta_minus_without() {
    // Seat 0 lays 3H 3D at his first turn (replaced by 4S 5S), draws 6S, melds three aces and
    // discards 6S; seat 1 lays 3H (replaced by JC), draws 9H and goes out concealed.
    let mut g = swiss(
        4,
        &[
            "3H 3D AS AH AD",
            "3H QS QS QH QH QD QD QC JS JH JD 9C 9S",
            "",
            "",
        ],
        "7D",
        "4S 5S 6S JC 9H",
    );
    assert_eq!(*g.red_threes(Seat(0)), cards("3H 3D"));
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("AS AH AD")]));
    act(&mut g, 0, discard("6S"));
    act(&mut g, 1, Action::DrawStock);
    assert_eq!(*g.red_threes(Seat(1)), cards("3H"));
    let events = act(
        &mut g,
        1,
        go_out(
            &[
                new_meld("QS QS QH QH QD QD QC"),
                new_meld("JS JH JD"),
                new_meld("9C 9S 9H"),
            ],
            Some("JC"),
        ),
    );
    let report = deal_ended(&events);
    let s0 = report.sides[0];
    assert_eq!(s0.melded_cards, 60);
    assert_eq!((s0.red_threes, s0.red_three_bonus), (2, -200));
    assert_eq!(s0.total, s0.sum_of_items());
    let s1 = report.sides[1];
    assert_eq!((s1.red_threes, s1.red_three_bonus), (1, 100));
    assert_eq!(s1.natural_canastas, 1);
    assert_eq!(s1.going_out_bonus, 200);
}

// R-RED-5 (Swiss): all four red threes of two decks (two players) count 400, not 800.
#[test]
fn r_red_5_swiss_four_red_threes_give_400() {
    // Seat 0 lays four red threes (replaced by QD JS JH JD), draws 9C and goes out concealed.
    let mut g = swiss(
        2,
        &["3H 3H 3D 3D KS KS KH KH KD KD KC QS QH"],
        "7D",
        "QD JS JH JD 9C",
    );
    assert_eq!(g.red_threes(Seat(0)).len(), 4);
    act(&mut g, 0, Action::DrawStock);
    let opponent = g.hand(Seat(1)).value() as i32;
    let events = act(
        &mut g,
        0,
        go_out(
            &[
                new_meld("KS KS KH KH KD KD KC"),
                new_meld("QS QH QD"),
                new_meld("JS JH JD"),
            ],
            Some("9C"),
        ),
    );
    let report = deal_ended(&events);
    let s = report.sides[0];
    assert_eq!((s.red_threes, s.red_three_bonus), (4, 400));
    assert_eq!(s.total, 130 + 500 + 400 + 200);
    assert_eq!(report.sides[1].total, -opponent);
}

// ---------------------------------------------------------------------------------------------
// R-SCORE-2: game to 5000, option 10000

// R-SCORE-2 (Swiss): the match is to 5000: side 0, starting at 4900, ends it by going out; with
// target_score=10000 the next deal starts instead.
#[test]
fn r_score_2_swiss_game_to_5000_or_10000() {
    let spec5000 = RuleSpec::new(Preset::Swiss, 4);
    assert_eq!(Rules::new(&spec5000).unwrap().target_score, 5000);
    let mut g = swiss_out_deal(spec5000, vec![4900, 0]);
    let events = swiss_concealed_out(&mut g);
    let total = deal_ended(&events).sides[0].total;
    assert!(4900 + total >= 5000, "{total}");
    assert_eq!(g.phase(), Phase::Over);
    assert_eq!(g.winner(), Some(Side(0)));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::MatchEnded {
            winner: Side(0),
            ..
        }
    )));
    assert_eq!(g.scores()[0], 4900 + total);

    let spec10000 = RuleSpec::new(Preset::Swiss, 4)
        .with("target_score", "10000")
        .unwrap();
    assert_eq!(Rules::new(&spec10000).unwrap().target_score, 10000);
    let mut g = swiss_out_deal(spec10000, vec![4900, 0]);
    let events = swiss_concealed_out(&mut g);
    assert!(!events.iter().any(|e| matches!(e, Event::MatchEnded { .. })));
    assert_eq!(g.deal_number(), 1);
    assert_eq!(g.phase(), Phase::Draw);
    assert_eq!(g.scores()[0], 4900 + total);
}

// R-INIT-5 / R-OUT-4 (Swiss): seed 004 asks the initial minimum of every first laying-out, so
// going out concealed must reach it too (officially it needs none): at 3000 (minimum 120) a
// concealed going out worth 65 is refused with BELOW_MINIMUM; at 0 (minimum 50) the same cards
// go out for 200.
#[test]
fn r_init_5_swiss_concealed_going_out_needs_the_minimum() {
    let hand = "4S 4S 4H 4H 4D 4D 4C 5S 5H 5D 6S 6H 6D";
    let out = || {
        go_out(
            &[
                new_meld("4S 4S 4H 4H 4D 4D 4C"),
                new_meld("5S 5H 5D"),
                new_meld("6S 6H 6D"),
            ],
            Some("6C"),
        )
    };
    let mut g = arranged_with(
        RuleSpec::new(Preset::Swiss, 4),
        &[hand],
        "7D",
        "6C",
        vec![3000, 0],
    );
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, out(), "BELOW_MINIMUM");
    assert!(msg.contains("120"), "{msg}");

    let mut g = swiss(4, &[hand], "7D", "6C");
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, out());
    assert!(went_out_concealed(&events));
    assert_eq!(deal_ended(&events).sides[0].going_out_bonus, 200);

    // Official (13 cards dealt): the same going out at 3000 needs no minimum.
    let mut g = arranged_with(
        spec(4, &[("hand_size", "13")]),
        &[hand],
        "7D",
        "6C",
        vec![3000, 0],
    );
    assert_eq!(g.minimum(Side(0)), 120);
    act(&mut g, 0, Action::DrawStock);
    assert!(went_out_concealed(&act(&mut g, 0, out())));
}

// ---------------------------------------------------------------------------------------------
// R-DEAL-5: the upcard, as in `official`

// R-DEAL-5 (Swiss): the seed covers only a wild upcard; threes are covered too, as officially:
// cards are turned until a natural card shows, and a red three turned up freezes the pile.
#[test]
fn r_deal_5_swiss_threes_turned_up_are_covered() {
    let g = swiss(4, &["", "", "", ""], "3S 2C 3H Jk 9C", "");
    assert_eq!(g.pile(), &list("3S 2C 3H Jk 9C")[..]);
    assert!(g.pile_frozen());
    assert!(!g.pile_blocked());
    // 162 cards - 4 hands of 13 - five upcards.
    assert_eq!(g.stock().len(), 105);
    // A black three alone is covered and freezes nothing.
    let g = swiss(4, &["", "", "", ""], "3C 9C", "");
    assert_eq!(g.pile(), &list("3C 9C")[..]);
    assert!(!g.pile_frozen() && !g.pile_blocked());
}

// ---------------------------------------------------------------------------------------------
// R-MELD-6: black threes, up to every one of the pack

// R-MELD-6 (Swiss): with three decks (four players) five black threes are melded together when
// going out (officially at most four); with two decks (two players) the limit is the four the
// pack holds.
#[test]
fn r_meld_6_swiss_black_threes_up_to_two_per_deck() {
    let four = Rules::new(&RuleSpec::new(Preset::Swiss, 4)).unwrap();
    let two = Rules::new(&RuleSpec::new(Preset::Swiss, 2)).unwrap();
    assert_eq!((four.decks, four.black_three_meld_max), (3, 6));
    assert_eq!((two.decks, two.black_three_meld_max), (2, 4));

    // Seat 0 holds eight kings and five black threes, draws 9C and goes out concealed: kings
    // 80 + black threes 25, worth more than the minimum of 50.
    let mut g = swiss(4, &["KS KS KS KH KH KH KD KD 3S 3S 3S 3C 3C"], "7D", "9C");
    act(&mut g, 0, Action::DrawStock);
    let events = act(
        &mut g,
        0,
        go_out(
            &[
                new_meld("KS KS KS KH KH KH KD KD"),
                new_meld("3S 3S 3S 3C 3C"),
            ],
            Some("9C"),
        ),
    );
    let s = deal_ended(&events).sides[0];
    assert_eq!(s.melded_cards, 80 + 25);
    assert_eq!((s.natural_canastas, s.going_out_bonus), (1, 200));

    // Officially (three decks, six players in pairs) five black threes are refused.
    let hand = "KS KS KS KH KH KH KD KD 3S 3S 3S 3C 3C";
    let mut g = arranged(6, &[], &[hand], "7D", "9C");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        go_out(
            &[
                new_meld("KS KS KS KH KH KH KD KD"),
                new_meld("3S 3S 3S 3C 3C"),
            ],
            Some("9C"),
        ),
        "BAD_BLACK_THREE_MELD",
    );
    assert!(msg.contains('4'), "{msg}");
}
