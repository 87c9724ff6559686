//! The Rasche options a) to j) (seed 000; docs/rules.md, "The Rasche options") in play, and the
//! option machinery (docs/rules.md, "Options"): letter aliases, presets with options,
//! contradictions refused at creation, the presets' defaults and the option listing.
mod common;
use canasta_engine::rules::OPTION_DOCS;
use canasta_engine::{
    Action, Arrangement, CanastaKind, DealEnd, Event, Game, MeldKind, MeldTarget, Phase, Preset,
    RuleSpec, Rules, RulesError, Seat, Setup, Side, SideScore,
};
use common::*;

// ---------------------------------------------------------------------------------------------
// Helpers

/// A rule spec: `preset`, `players`, options by name.
fn pspec(preset: Preset, players: u8, options: &[(&str, &str)]) -> RuleSpec {
    let mut spec = RuleSpec::new(preset, players);
    for (k, v) in options {
        spec.options
            .set(k, v)
            .unwrap_or_else(|e| panic!("{k}={v}: {e}"));
    }
    spec
}

/// The validated rules of `preset` for `players` with these options; they must be accepted.
fn rules_of(preset: Preset, players: u8, options: &[(&str, &str)]) -> Rules {
    Rules::new(&pspec(preset, players, options))
        .unwrap_or_else(|e| panic!("{preset} {players} {options:?} refused: {e}"))
}

/// Asserts that a letter option sets exactly what the named options set, for the official
/// rules and for every preset that accepts both.
fn same_rules(letter: &[(&str, &str)], named: &[(&str, &str)]) {
    for preset in Preset::ALL {
        let a = Rules::new(&pspec(preset, 4, letter));
        let b = Rules::new(&pspec(preset, 4, named));
        assert_eq!(a, b, "{preset}: {letter:?} against {named:?}");
    }
    assert_ne!(
        rules_of(Preset::Official, 4, letter),
        Rules::official(4).unwrap(),
        "{letter:?} changes nothing"
    );
}

/// Creating rules and a game with these options is refused with OPTION_CONFLICT; returns the
/// message.
fn conflict(preset: Preset, players: u8, options: &[(&str, &str)]) -> String {
    let spec = pspec(preset, players, options);
    let err = Rules::new(&spec).expect_err(&format!("{preset} {players} {options:?} accepted"));
    assert_eq!(err.code(), "OPTION_CONFLICT", "{err}");
    let setup_err = Game::new(&Setup::seeded(spec, 1)).expect_err("the game was created");
    assert_eq!(setup_err.code(), "OPTION_CONFLICT");
    assert_eq!(setup_err.to_string(), err.to_string());
    err.to_string()
}

/// The value of the cards in a seat's hand.
fn hand_value(g: &Game, seat: u8) -> i32 {
    g.hand(Seat(seat)).value() as i32
}

/// Seat 0 holds a natural canasta of kings and four queens in his hand, draws QC and goes out
/// concealed: KS KS KH KH KD KD KC + QS QH QD QC, discarding 9C. His side scores 110 for the
/// cards, 500 for the natural canasta and the concealed bonus, minus 95 for the cards left in
/// his partner's hand (seat 2: 4C 5C 6C 7C 8C 9C 10C JC QC AC 4D). Returns the game after
/// going out, the events, and the value of the cards left in side 1's hands (seats 1 and 3).
fn concealed_out(options: &[(&str, &str)], start_scores: Vec<i32>) -> (Game, Vec<Event>, i32) {
    let mut g = arranged_with(
        spec(4, options),
        &[
            "KS KS KH KH KD KD KC QS QH QD 9C",
            "",
            "4C 5C 6C 7C 8C 9C 10C JC QC AC 4D",
            "",
        ],
        "7D",
        "QC",
        start_scores,
    );
    act(&mut g, 0, Action::DrawStock);
    assert_eq!(hand_value(&g, 2), 95);
    let side1 = hand_value(&g, 1) + hand_value(&g, 3);
    let events = act(
        &mut g,
        0,
        go_out(
            &[new_meld("KS KS KH KH KD KD KC"), new_meld("QS QH QD QC")],
            Some("9C"),
        ),
    );
    (g, events, side1)
}

// ---------------------------------------------------------------------------------------------
// a) six jokers

// R-CARD-1 (Rasche a): `rasche_a=true` is `jokers=6`: a pack of 110 cards, and a seat may hold
// and meld six jokers, which a 108-card pack cannot deal.
#[test]
fn r_card_1_rasche_a_six_jokers() {
    same_rules(&[("rasche_a", "true")], &[("jokers", "6")]);
    let r = rules_of(Preset::Official, 4, &[("rasche_a", "true")]);
    assert_eq!((r.decks, r.jokers, r.pack_size()), (2, 6, 110));
    // Switched off, the letter leaves the preset's four jokers.
    assert_eq!(
        rules_of(Preset::Official, 4, &[("rasche_a", "false")]),
        Rules::official(4).unwrap()
    );

    // Seat 0 is dealt all six jokers; the official pack has only four.
    let hand = "KS KH Jk Jk Jk QS QH Jk Jk Jk 9C";
    let official = Arrangement {
        hands: vec![list(hand)],
        ..Default::default()
    }
    .deck(&Rules::official(4).unwrap(), 0, Seat(3))
    .unwrap_err();
    assert!(official.contains("no more Jk"), "{official}");

    let mut g = arranged(4, &[("rasche_a", "true")], &[hand], "7D", "4S");
    let all = g.all_cards();
    assert_eq!((all.len(), all.jokers()), (110, 6));
    // 110 cards - 4 hands of 11 - the upcard.
    assert_eq!(g.stock().len(), 65);
    assert_eq!(*g.hand(Seat(0)), cards(hand));
    act(&mut g, 0, Action::DrawStock);
    // Two melds with three jokers each: 2 * (20 + 150) = 340 for the initial meld.
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KH Jk Jk Jk"), new_meld("QS QH Jk Jk Jk")]),
    );
    let melds = g.melds(Side(0));
    assert_eq!(melds.len(), 2);
    assert_eq!(melds[0].cards, cards("KS KH Jk Jk Jk"));
    assert_eq!(melds[1].cards, cards("QS QH Jk Jk Jk"));
    assert_eq!(melds.iter().map(|m| m.cards.value()).sum::<u32>(), 340);
    assert_eq!(*g.hand(Seat(0)), cards("9C 4S"));
}

// ---------------------------------------------------------------------------------------------
// b) wild-card canastas

// R-MELD-7 (Rasche b): `rasche_b=true` is `wild_canastas=true`; seven wild cards, jokers and
// twos, make a wild canasta worth 1000, which counts as a canasta for going out. Without the
// option the same meld is refused with WILD_ONLY_MELD.
#[test]
fn r_meld_7_rasche_b_wild_canasta_bonus_1000() {
    same_rules(&[("rasche_b", "true")], &[("wild_canastas", "true")]);
    let r = rules_of(Preset::Official, 4, &[("rasche_b", "true")]);
    assert!(r.wild_canastas);
    assert_eq!(
        (
            r.wild_canasta_bonus,
            r.joker_canasta_bonus,
            r.deuce_canasta_bonus
        ),
        (1000, 1000, 1000)
    );

    let hand = ["Jk Jk 2C 2D 2H 2S 2C KS KH KD KC", "", "", ""];
    let wild_seven = "Jk Jk 2C 2D 2H 2S 2C";
    let out = go_out(&[new_meld(wild_seven), new_meld("KS KH KD KC")], Some("9C"));

    // Official: no meld of wild cards only, neither during play nor when going out.
    let mut g = arranged(4, &[], &hand, "7D", "9C");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld(wild_seven)]), "WILD_ONLY_MELD");
    assert!(msg.contains("wild cards only"), "{msg}");
    refuse(&mut g, 0, out.clone(), "WILD_ONLY_MELD");

    // Rasche b: the wild canasta is laid and the player goes out concealed with it.
    let mut g = arranged(4, &[("rasche_b", "true")], &hand, "7D", "9C");
    act(&mut g, 0, Action::DrawStock);
    let partner = hand_value(&g, 2);
    let side1 = hand_value(&g, 1) + hand_value(&g, 3);
    let events = act(&mut g, 0, out);
    let report = deal_ended(&events);
    assert_eq!(
        report.end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: true
        }
    );
    let s = report.sides[0];
    // Cards: two jokers 100, five twos 100, four kings 40.
    assert_eq!(s.melded_cards, 240);
    assert_eq!(
        (s.wild_canastas, s.natural_canastas, s.mixed_canastas),
        (1, 0, 0)
    );
    assert_eq!(s.canasta_bonus, 1000);
    assert_eq!(s.going_out_bonus, 200);
    assert_eq!(s.cards_in_hand, -partner);
    assert_eq!(s.total, 1440 - partner);
    assert_eq!(report.sides[1].total, -side1);
}

/// Seat 0 holds seven wild cards `wilds` and four kings under `options`, draws 9C and goes out
/// concealed with a wild canasta and the kings; his partner keeps cards worth 95. Returns side
/// 0's score.
fn wild_canasta_out(options: &[(&str, &str)], wilds: &str) -> SideScore {
    let hand = format!("{wilds} KS KH KD KC");
    let mut g = arranged(
        4,
        options,
        &[&hand, "", "4C 5C 6C 7C 8C 9C 10C JC QC AC 4D"],
        "7D",
        "9C",
    );
    act(&mut g, 0, Action::DrawStock);
    let events = act(
        &mut g,
        0,
        go_out(&[new_meld(wilds), new_meld("KS KH KD KC")], Some("9C")),
    );
    let m = &g.history()[0];
    assert_eq!(*m, deal_ended(&events));
    m.sides[0]
}

// R-MELD-7 (Rasche b, its option): `joker_canasta_bonus=2000` pays 2000 for a wild canasta of
// seven jokers; seven twos and seven mixed wild cards keep their own bonuses (1000). Seven
// jokers need more than the six jokers of two decks: three decks with nine jokers.
#[test]
fn r_meld_7_rasche_b_joker_canasta_bonus_2000() {
    let options = [
        ("decks", "3"),
        ("jokers", "9"),
        ("rasche_b", "true"),
        ("joker_canasta_bonus", "2000"),
    ];
    let r = rules_of(Preset::Official, 4, &options);
    assert_eq!((r.pack_size(), r.joker_canasta_bonus), (165, 2000));
    assert_eq!((r.wild_canasta_bonus, r.deuce_canasta_bonus), (1000, 1000));

    let jokers = wild_canasta_out(&options, "Jk Jk Jk Jk Jk Jk Jk");
    assert_eq!(jokers.wild_canastas, 1);
    assert_eq!(jokers.canasta_bonus, 2000);
    assert_eq!(jokers.melded_cards, 7 * 50 + 40);
    assert_eq!(jokers.cards_in_hand, -95);
    assert_eq!(jokers.total, 390 + 2000 + 200 - 95);

    let twos = wild_canasta_out(&options, "2C 2C 2D 2D 2H 2H 2S");
    assert_eq!(twos.wild_canastas, 1);
    assert_eq!(twos.canasta_bonus, 1000);
    assert_eq!(twos.total, 140 + 40 + 1000 + 200 - 95);

    let mixed = wild_canasta_out(&options, "Jk Jk Jk Jk Jk Jk 2C");
    assert_eq!(mixed.canasta_bonus, 1000);

    // The canasta kinds on the table.
    let mut g = arranged(
        4,
        &options,
        &["Jk Jk Jk Jk Jk Jk Jk KS KH KD KC"],
        "7D",
        "9C",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("Jk Jk Jk Jk Jk Jk Jk")]));
    let m = &g.melds(Side(0))[0];
    assert_eq!(m.kind, MeldKind::Wild);
    assert_eq!(m.canasta(), Some(CanastaKind::WildJokers));
}

// ---------------------------------------------------------------------------------------------
// c) thirteen cards

// R-DEAL-2 (Rasche c): `rasche_c=true` is `hand_size=13`: every player is dealt 13 cards, which
// a seat may use for four melds at once and still keep two cards.
#[test]
fn r_deal_2_rasche_c_thirteen_cards_dealt() {
    same_rules(&[("rasche_c", "true")], &[("hand_size", "13")]);
    assert_eq!(
        rules_of(Preset::Official, 4, &[("rasche_c", "true")]).hand_size,
        13
    );
    let hand = "KS KH KD QS QH QD JS JH JD 10S 10H 10D 9C";
    let refused = Arrangement {
        hands: vec![list(hand)],
        ..Default::default()
    }
    .deck(&Rules::official(4).unwrap(), 0, Seat(3))
    .unwrap_err();
    assert!(refused.contains("13 cards"), "{refused}");

    let rules = rules_of(Preset::Official, 4, &[("rasche_c", "true")]);
    let deck = Arrangement {
        hands: vec![list(hand)],
        pile: list("7D"),
        stock: list("4S"),
        ..Default::default()
    }
    .deck(&rules, 0, Seat(3))
    .unwrap();
    let (mut g, events) = Game::start(&Setup {
        rules: spec(4, &[("rasche_c", "true")]),
        card_orders: vec![deck],
        first_dealer: Some(Seat(3)),
        ..Setup::default()
    })
    .unwrap();
    let start = events
        .iter()
        .find_map(|e| match e {
            Event::DealStarted(d) => Some(d.clone()),
            _ => None,
        })
        .expect("a DealStarted event");
    assert_eq!(start.hand_sizes, vec![13, 13, 13, 13]);
    for s in 0..4 {
        assert_eq!(g.hand(Seat(s)).len(), 13);
    }
    // 108 - 4 * 13 - the upcard.
    assert_eq!(g.stock().len(), 55);
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[
            new_meld("KS KH KD"),
            new_meld("QS QH QD"),
            new_meld("JS JH JD"),
            new_meld("10S 10H 10D"),
        ]),
    );
    assert_eq!(g.melds(Side(0)).len(), 4);
    assert_eq!(*g.hand(Seat(0)), cards("9C 4S"));
}

// ---------------------------------------------------------------------------------------------
// d) the target

// R-SCORE-2 (Rasche d): `rasche_d=7500` is `target_score=7500` (and 10000 likewise). A side
// that reaches 7500 ends the match; at 7490 another deal starts, where the official 5000 would
// have ended it.
#[test]
fn r_score_2_rasche_d_target_7500() {
    same_rules(&[("rasche_d", "7500")], &[("target_score", "7500")]);
    same_rules(&[("rasche_d", "10000")], &[("target_score", "10000")]);
    assert_eq!(
        rules_of(Preset::Official, 4, &[("rasche_d", "5000")]),
        Rules::official(4).unwrap()
    );
    assert_eq!(
        rules_of(Preset::Official, 4, &[("rasche_d", "7500")]).target_score,
        7500
    );

    // Side 0 scores 110 + 500 + 200 - 95 = 715 in the deal. 6785 + 715 = 7500: the match ends.
    let (g, events, side1) = concealed_out(&[("rasche_d", "7500")], vec![6785, 0]);
    assert_eq!(deal_ended(&events).sides[0].total, 715);
    assert_eq!(g.scores(), &[7500, -side1]);
    assert!(events.contains(&Event::MatchEnded {
        winner: Side(0),
        totals: vec![7500, -side1],
    }));
    assert_eq!(g.phase(), Phase::Over);
    assert_eq!(g.winner(), Some(Side(0)));

    // 6775 + 715 = 7490: below 7500, the next deal starts.
    let (g, events, side1) = concealed_out(&[("rasche_d", "7500")], vec![6775, 0]);
    assert_eq!(g.scores(), &[7490, -side1]);
    assert!(!events.iter().any(|e| matches!(e, Event::MatchEnded { .. })));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::DealStarted(d) if d.deal == 1))
    );
    assert_eq!(
        (g.phase(), g.deal_number(), g.winner()),
        (Phase::Draw, 1, None)
    );

    // The same 7490 ends an official match (target 5000).
    let (g, events, _) = concealed_out(&[], vec![6775, 0]);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::MatchEnded {
            winner: Side(0),
            ..
        }
    )));
    assert_eq!(g.phase(), Phase::Over);

    // With 10000, 7500 does not end it.
    let (g, _, _) = concealed_out(&[("rasche_d", "10000")], vec![6785, 0]);
    assert_eq!((g.phase(), g.deal_number()), (Phase::Draw, 1));
}

// ---------------------------------------------------------------------------------------------
// e) the minimum table

// R-INIT-1 (Rasche e): `rasche_e=true` is `minimum_table=-inf:25,0:90,1500:120,3000:150`.
#[test]
fn r_init_1_rasche_e_minimum_table() {
    same_rules(
        &[("rasche_e", "true")],
        &[("minimum_table", "-inf:25,0:90,1500:120,3000:150")],
    );
    let r = rules_of(Preset::Official, 4, &[("rasche_e", "true")]);
    let tiers = [
        (-5, 25),
        (0, 90),
        (1495, 90),
        (1500, 120),
        (2995, 120),
        (3000, 150),
        (9000, 150),
    ];
    for (score, minimum) in tiers {
        assert_eq!(r.minimum_for(score), minimum, "score {score}");
    }
    assert_eq!(
        r.minimum_table.to_string(),
        "-inf:25,0:90,1500:120,3000:150"
    );

    // The game's minimums follow the sides' start scores.
    let g = arranged_with(
        spec(4, &[("rasche_e", "true")]),
        &[""],
        "7D",
        "",
        vec![-100, 3000],
    );
    assert_eq!((g.minimum(Side(0)), g.minimum(Side(1))), (25, 150));
    let g = arranged_with(spec(4, &[]), &[""], "7D", "", vec![-100, 3000]);
    assert_eq!((g.minimum(Side(0)), g.minimum(Side(1))), (15, 120));
}

// R-INIT-1 (Rasche e): from 0 points the initial meld needs 90. Cards count in fives, so 85 is
// the most that falls short (89 cannot be laid): refused with BELOW_MINIMUM, where the
// official minimum of 50 accepts it; 90 is accepted.
#[test]
fn r_init_1_rasche_e_below_90_from_zero() {
    let hand = ["AS AH AD 5S 5H 5D 5C 5S 9S 9H 9D", "", "", ""];
    let short = || meld(&[new_meld("AS AH AD"), new_meld("5S 5H 5D 5C 5S")]);
    let mut g = arranged(4, &[("rasche_e", "true")], &hand, "7D", "4C");
    assert_eq!(g.minimum(Side(0)), 90);
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, short(), "BELOW_MINIMUM");
    assert!(
        msg.contains("at least 90") && msg.contains("count 85"),
        "{msg}"
    );
    act(
        &mut g,
        0,
        meld(&[new_meld("AS AH AD"), new_meld("9S 9H 9D")]),
    );
    assert!(g.side_melded(Side(0)));
    assert_eq!(*g.hand(Seat(0)), cards("5S 5H 5D 5C 5S 4C"));

    let mut g = arranged(4, &[], &hand, "7D", "4C");
    assert_eq!(g.minimum(Side(0)), 50);
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, short());
    assert!(g.side_melded(Side(0)));
}

// R-INIT-1 (Rasche e): below 0 points the minimum is 25, not 15.
#[test]
fn r_init_1_rasche_e_negative_score_needs_25() {
    let hand = ["7S 7H 7D 7C 7S", "", "", ""];
    let mut g = arranged_with(
        spec(4, &[("rasche_e", "true")]),
        &hand,
        "10D",
        "4D",
        vec![-100, 0],
    );
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, meld(&[new_meld("7S 7H 7D")]), "BELOW_MINIMUM");
    assert!(
        msg.contains("at least 25") && msg.contains("count 15"),
        "{msg}"
    );
    act(&mut g, 0, meld(&[new_meld("7S 7H 7D 7C 7S")]));
    assert_eq!(g.melds(Side(0))[0].cards.value(), 25);

    let mut g = arranged_with(spec(4, &[]), &hand, "10D", "4D", vec![-100, 0]);
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("7S 7H 7D")]));
    assert!(g.side_melded(Side(0)));
}

// ---------------------------------------------------------------------------------------------
// f) the concealed bonus

// R-OUT-4 (Rasche f): `rasche_f=500` is `concealed_bonus=500`: a concealed going out earns 500
// instead of 200; a going out after an earlier meld still earns 100.
#[test]
fn r_out_4_rasche_f_concealed_bonus_500() {
    same_rules(&[("rasche_f", "500")], &[("concealed_bonus", "500")]);
    assert_eq!(
        rules_of(Preset::Official, 4, &[("rasche_f", "500")]).concealed_bonus,
        500
    );

    let (_, events, side1) = concealed_out(&[("rasche_f", "500")], vec![]);
    let report = deal_ended(&events);
    assert_eq!(
        report.end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: true
        }
    );
    let s = report.sides[0];
    assert_eq!(
        (s.melded_cards, s.canasta_bonus, s.going_out_bonus),
        (110, 500, 500)
    );
    assert_eq!(s.cards_in_hand, -95);
    assert_eq!(s.total, 1015);
    assert_eq!(report.sides[1].total, -side1);

    let (_, events, _) = concealed_out(&[], vec![]);
    assert_eq!(deal_ended(&events).sides[0].going_out_bonus, 200);

    // Not concealed: seat 0 melds six kings and three queens in his first turn, and goes out
    // in his second.
    let mut g = arranged(
        4,
        &[("rasche_f", "500")],
        &["KS KS KH KH KD KD QS QH QD QC KC"],
        "7D",
        "8C 4S 5S 6S 9C",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KS KH KH KD KD"), new_meld("QS QH QD")]),
    );
    act(&mut g, 0, discard("8C"));
    pass(&mut g, &[1, 2, 3]);
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, go_out(&[add(0, "KC"), add(1, "QC")], Some("9C")));
    let report = deal_ended(&events);
    assert_eq!(
        report.end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: false
        }
    );
    assert_eq!(report.sides[0].going_out_bonus, 100);
}

// ---------------------------------------------------------------------------------------------
// g) the initial take without a natural pair

// R-PILE-4 (Rasche g): `rasche_g=true` is `initial_take_without_pair=true`: a side that has not
// melded may take an unfrozen pile for its initial meld with one natural card and a wild card.
// Officially the pile is frozen for it and needs a natural pair (PILE_FROZEN).
#[test]
fn r_pile_4_rasche_g_initial_take_with_natural_and_wild() {
    same_rules(
        &[("rasche_g", "true")],
        &[("initial_take_without_pair", "true")],
    );
    // Seat 0 (not melded) holds KS Jk and nine clubs; the pile is KD alone, unfrozen.
    let hand = ["KS Jk", "", "", ""];
    let mut g = arranged(4, &[], &hand, "KD", "");
    assert_eq!(*g.hand(Seat(0)), cards("KS Jk 4C 5C 6C 7C 8C 9C 10C JC QC"));
    assert!(!g.pile_frozen());
    let msg = refuse(&mut g, 0, take_new("KS Jk", &[]), "PILE_FROZEN");
    assert!(msg.contains("two natural kings"), "{msg}");

    let mut g = arranged(4, &[("rasche_g", "true")], &hand, "KD", "");
    assert!(legal(&g).contains(&take_new("KS Jk", &[])));
    let events = act(&mut g, 0, take_new("KS Jk", &[]));
    assert!(events.iter().any(|e| matches!(e,
        Event::PileTaken { seat: Seat(0), placed, .. }
            if placed.len() == 1 && placed[0].new && placed[0].cards == cards("KS KD Jk"))));
    assert!(g.side_melded(Side(0)));
    assert_eq!(g.melds(Side(0))[0].cards, cards("KS KD Jk"));
    assert_eq!(*g.hand(Seat(0)), cards("4C 5C 6C 7C 8C 9C 10C JC QC"));
    assert!(g.pile().is_empty());
    assert_eq!(g.phase(), Phase::Play);
}

// R-PILE-4, R-INIT-1 (Rasche g): the take with one natural and a wild card must still reach the
// initial minimum, with further melds from the hand if needed.
#[test]
fn r_pile_4_rasche_g_take_still_needs_the_minimum() {
    let mut g = arranged(
        4,
        &[("rasche_g", "true")],
        &["5S 2C AS AH AD", "", "", ""],
        "5D",
        "",
    );
    // 5D + 5S + 2C = 30.
    let msg = refuse(&mut g, 0, take_new("5S 2C", &[]), "BELOW_MINIMUM");
    assert!(
        msg.contains("at least 50") && msg.contains("count 30"),
        "{msg}"
    );
    act(&mut g, 0, take_new("5S 2C", &[new_meld("AS AH AD")]));
    let melds = g.melds(Side(0));
    assert_eq!(melds[0].cards, cards("5S 5D 2C"));
    assert_eq!(melds[1].cards, cards("AS AH AD"));
}

// R-PILE-3 (Rasche g): a pile frozen by a wild card or a red three still needs the natural pair,
// option or not.
#[test]
fn r_pile_3_rasche_g_frozen_pile_still_needs_pair() {
    for upcards in ["2C KD", "Jk KD", "3H KD"] {
        let mut g = arranged(
            4,
            &[("rasche_g", "true")],
            &["KS Jk", "", "", ""],
            upcards,
            "",
        );
        assert_eq!(g.pile(), &list(upcards)[..]);
        assert!(g.pile_frozen(), "{upcards}");
        let msg = refuse(&mut g, 0, take_new("KS Jk", &[]), "PILE_FROZEN");
        assert!(msg.contains("two natural kings"), "{upcards}: {msg}");
        assert!(
            !legal(&g)
                .iter()
                .any(|a| matches!(a, Action::TakePile { .. })),
            "{upcards}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// h) going out needs a natural canasta

// R-OUT-1 (Rasche h): `rasche_h=true` is `go_out_needs_natural_canasta=true`: a mixed canasta
// no longer allows going out (NEED_NATURAL_CANASTA); a natural one does.
#[test]
fn r_out_1_rasche_h_going_out_needs_natural_canasta() {
    same_rules(
        &[("rasche_h", "true")],
        &[("go_out_needs_natural_canasta", "true")],
    );
    // Seat 0 holds a mixed canasta of kings (six kings and a joker) and three queens; he draws
    // QC and would go out discarding 9C.
    let hand = ["KS KS KH KH KD KD Jk QS QH QD 9C", "", "", ""];
    let out = || {
        go_out(
            &[new_meld("KS KS KH KH KD KD Jk"), new_meld("QS QH QD QC")],
            Some("9C"),
        )
    };
    let mut g = arranged(4, &[("rasche_h", "true")], &hand, "7D", "QC");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, out(), "NEED_NATURAL_CANASTA");
    assert!(msg.contains("natural canasta"), "{msg}");
    assert!(!legal(&g).iter().any(|a| matches!(a, Action::GoOut { .. })));

    // Official: the mixed canasta is enough.
    let mut g = arranged(4, &[], &hand, "7D", "QC");
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, out());
    let s = deal_ended(&events).sides[0];
    assert_eq!((s.mixed_canastas, s.canasta_bonus), (1, 300));

    // Rasche h with a natural canasta: going out is allowed.
    let (_, events, _) = concealed_out(&[("rasche_h", "true")], vec![]);
    let s = deal_ended(&events).sides[0];
    assert_eq!((s.natural_canastas, s.canasta_bonus), (1, 500));
    assert_eq!(s.going_out_bonus, 200);
}

// ---------------------------------------------------------------------------------------------
// i) red threes only with a canasta

// R-RED-5 (Rasche i): `rasche_i=true` is `red_threes_positive=canasta`: a side that has melded
// but has no canasta loses its red threes (officially it gains them).
#[test]
fn r_red_5_rasche_i_red_three_negative_without_canasta() {
    same_rules(
        &[("rasche_i", "true")],
        &[("red_threes_positive", "canasta")],
    );
    // Seat 0 is dealt 3H (laid and replaced by 4S at his first turn), draws 5S, melds three
    // aces and discards 5S. Seat 1 draws JC and goes out concealed.
    let play = |options: &[(&str, &str)]| {
        let mut g = arranged(
            4,
            options,
            &["3H AS AH AD", "QS QS QH QH QD QD QC JS JH JD 9C", "", ""],
            "7D",
            "4S 5S JC",
        );
        act(&mut g, 0, Action::DrawStock);
        assert_eq!(g.red_threes(Seat(0)).len(), 1);
        act(&mut g, 0, meld(&[new_meld("AS AH AD")]));
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
        deal_ended(&events).sides[0]
    };
    let s = play(&[("rasche_i", "true")]);
    assert_eq!((s.red_threes, s.red_three_bonus), (1, -100));
    assert_eq!(s.melded_cards, 60);
    assert_eq!(s.total, s.sum_of_items());
    let s = play(&[]);
    assert_eq!((s.red_threes, s.red_three_bonus), (1, 100));
}

// R-RED-5 (Rasche i): with a canasta the red threes count for the side.
#[test]
fn r_red_5_rasche_i_red_three_positive_with_canasta() {
    // Seat 0 is dealt 3H (replaced by 9C), draws QC and goes out concealed with a natural
    // canasta of kings; his partner keeps cards worth 95.
    let mut g = arranged(
        4,
        &[("rasche_i", "true")],
        &[
            "3H KS KS KH KH KD KD KC QS QH QD",
            "",
            "4C 5C 6C 7C 8C 9C 10C JC QC AC 4D",
            "",
        ],
        "7D",
        "9C QC",
    );
    act(&mut g, 0, Action::DrawStock);
    let events = act(
        &mut g,
        0,
        go_out(
            &[new_meld("KS KS KH KH KD KD KC"), new_meld("QS QH QD QC")],
            Some("9C"),
        ),
    );
    let s = deal_ended(&events).sides[0];
    assert_eq!((s.red_threes, s.red_three_bonus), (1, 100));
    assert_eq!(s.total, 110 + 500 + 100 + 200 - 95);
}

// ---------------------------------------------------------------------------------------------
// j) closed canastas

/// Seat 0 melds a mixed canasta of kings (KS KS KH KH KD KD Jk, meld 0) in his first turn and
/// keeps KC 2C 9S 10S; seats 1 and 2 draw and discard; seat 3 discards the last king KC. Seat 0
/// is then to draw (8S next in the stock).
fn canasta_then_king(spec: RuleSpec) -> Game {
    let mut g = arranged_with(
        spec,
        &["KS KS KH KH KD KD Jk KC 2C 9S 10S", "", "", "KC"],
        "7D",
        "4S 5S 6S 7S 8S",
        vec![],
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD KD Jk")]));
    act(&mut g, 0, discard("4S"));
    pass(&mut g, &[1, 2]);
    act(&mut g, 3, Action::DrawStock);
    act(&mut g, 3, discard("KC"));
    assert_eq!(g.melds(Side(0))[0].canasta(), Some(CanastaKind::Mixed));
    assert_eq!(*g.hand(Seat(0)), cards("KC 2C 9S 10S"));
    assert_eq!(g.pile(), &list("7D 4S 5S 6S KC")[..]);
    g
}

// R-MELD-5 (Rasche j): `rasche_j=true` is `closed_canastas=true`: no card, natural or wild, is
// added to a completed canasta (CANASTA_CLOSED), and the pile cannot be taken by adding its top
// card to one.
#[test]
fn r_meld_5_rasche_j_closed_canastas() {
    same_rules(&[("rasche_j", "true")], &[("closed_canastas", "true")]);
    let mut g = canasta_then_king(spec(4, &[("rasche_j", "true")]));
    assert!(!g.pile_frozen() && !g.pile_blocked());
    let msg = refuse(&mut g, 0, take_add(0, ""), "CANASTA_CLOSED");
    assert!(msg.contains("meld 0 is a completed canasta"), "{msg}");
    refuse(&mut g, 0, take_add(0, "KC"), "CANASTA_CLOSED");
    assert!(
        !legal(&g)
            .iter()
            .any(|a| matches!(a, Action::TakePile { .. }))
    );
    act(&mut g, 0, Action::DrawStock);
    refuse(&mut g, 0, meld(&[add(0, "KC")]), "CANASTA_CLOSED");
    refuse(&mut g, 0, meld(&[add(0, "2C")]), "CANASTA_CLOSED");
    assert!(!legal(&g).iter().any(|a| matches!(a,
        Action::Meld { melds } if melds.iter().any(|m| m.target == MeldTarget::Existing(0)))));
    assert_eq!(g.melds(Side(0))[0].len(), 7);

    // Official: the pile is taken onto the canasta, and more cards follow.
    let mut g = canasta_then_king(spec(4, &[]));
    act(&mut g, 0, take_add(0, ""));
    act(&mut g, 0, meld(&[add(0, "KC 2C")]));
    assert_eq!(
        g.melds(Side(0))[0].cards,
        cards("KS KS KH KH KD KD KC KC Jk 2C")
    );
}

// R-MELD-5 (Rasche j): a meld may still grow to seven cards; only then is it closed.
#[test]
fn r_meld_5_rasche_j_meld_grows_to_seven() {
    let mut g = arranged(
        4,
        &[("rasche_j", "true")],
        &["KS KS KH KH KD KD KC KC 9S 10S JS", "", "", ""],
        "7D",
        "4S",
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD")]));
    act(&mut g, 0, meld(&[add(0, "KD KC")]));
    assert!(g.melds(Side(0))[0].is_canasta());
    refuse(&mut g, 0, meld(&[add(0, "KC")]), "CANASTA_CLOSED");
}

// ---------------------------------------------------------------------------------------------
// The options with the presets

/// Each Rasche letter with the value that switches it on, and the option and value it shows in
/// `option_values()`.
const LETTERS: [(&str, &str, &str, &str); 10] = [
    ("rasche_a", "true", "jokers", "6"),
    ("rasche_b", "true", "wild_canastas", "true"),
    ("rasche_c", "true", "hand_size", "13"),
    ("rasche_d", "7500", "target_score", "7500"),
    (
        "rasche_e",
        "true",
        "minimum_table",
        "-inf:25,0:90,1500:120,3000:150",
    ),
    ("rasche_f", "500", "concealed_bonus", "500"),
    ("rasche_g", "true", "initial_take_without_pair", "true"),
    ("rasche_h", "true", "go_out_needs_natural_canasta", "true"),
    ("rasche_i", "true", "red_threes_positive", "canasta"),
    ("rasche_j", "true", "closed_canastas", "true"),
];

/// Options by name and value.
type Opts = Vec<(&'static str, &'static str)>;

/// The player counts each preset supports, with the seating variants.
fn tables() -> Vec<(Preset, u8, Opts)> {
    let mut out = Vec::new();
    for preset in Preset::ALL {
        let counts: &[u8] = match preset {
            Preset::Official | Preset::Wiener => &[2, 3, 4, 5, 6],
            Preset::Samba => &[2, 3, 4],
            Preset::Swiss => &[2, 3, 4, 5],
            other => panic!("{other:?}: list the player counts it is played by"),
        };
        for &n in counts {
            out.push((preset, n, vec![]));
        }
        if matches!(preset, Preset::Official | Preset::Wiener) {
            out.push((preset, 5, vec![("five_players", "each_alone")]));
            out.push((preset, 6, vec![("six_players", "two_teams_of_three")]));
        }
    }
    out
}

fn value_of(rules: &Rules, name: &str) -> String {
    rules
        .option_values()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no option {name}"))
        .1
}

// The Rasche options: every Rasche option combines with every preset and player count, except g with
// Samba (its pile rules forbid that take) and j with Swiss (its stop cards go under a canasta,
// which closed canastas forbid); the option's value shows in option_values() and a seeded game
// of the rules is dealt.
#[test]
fn rasche_options_combine_with_every_preset() {
    for (preset, n, seating) in tables() {
        for (letter, on, name, shown) in LETTERS {
            let mut options = seating.clone();
            options.push((letter, on));
            if preset == Preset::Samba && letter == "rasche_g" {
                let msg = conflict(preset, n, &options);
                assert!(msg.contains("initial_take_without_pair"), "{msg}");
                continue;
            }
            if preset == Preset::Swiss && letter == "rasche_j" {
                let msg = conflict(preset, n, &options);
                assert!(
                    msg.contains("closed_canastas") && msg.contains("stop_rule=swiss"),
                    "{msg}"
                );
                continue;
            }
            let spec = pspec(preset, n, &options);
            let rules = Rules::new(&spec)
                .unwrap_or_else(|e| panic!("{preset} {n} {options:?} refused: {e}"));
            assert_eq!(rules.preset, preset);
            assert_eq!(value_of(&rules, name), shown, "{preset} {n} {letter}");
            let g = Game::new(&Setup::seeded(spec, 11))
                .unwrap_or_else(|e| panic!("{preset} {n} {options:?}: no game: {e}"));
            assert_eq!(g.all_cards().len(), rules.pack_size());
            for &s in g.play_order() {
                assert!(
                    g.hand(s).len() + g.red_threes(s).len() >= rules.hand_size as usize,
                    "{preset} {n} {letter}: seat {}",
                    s.0
                );
            }
        }
    }
}

// The Rasche options with named presets: rasche_j with wiener, rasche_d with samba, rasche_a with
// swiss for two players (two decks), each keeping the preset's other values.
#[test]
fn rasche_options_with_named_presets() {
    let r = rules_of(Preset::Wiener, 4, &[("rasche_j", "true")]);
    assert!(r.closed_canastas);
    assert_eq!(value_of(&r, "closed_canastas"), "true");
    assert_eq!(value_of(&r, "stop_rule"), "wiener");
    assert_eq!(r.concealed_bonus, 1000);

    let r = rules_of(Preset::Samba, 4, &[("rasche_d", "7500")]);
    assert_eq!(r.target_score, 7500);
    assert_eq!(value_of(&r, "target_score"), "7500");
    assert!(r.sequences);
    assert_eq!((r.decks, r.hand_size, r.draw), (3, 15, 2));

    let r = rules_of(Preset::Swiss, 2, &[("rasche_a", "true")]);
    assert_eq!((r.decks, r.jokers, r.pack_size()), (2, 6, 110));
    assert_eq!(value_of(&r, "jokers"), "6");
    assert!(r.cut_keeps_wilds);
    let g = Game::new(&Setup::seeded(
        pspec(Preset::Swiss, 2, &[("rasche_a", "true")]),
        5,
    ))
    .unwrap();
    let all = g.all_cards();
    assert_eq!((all.len(), all.jokers()), (110, 6));
}

// R-MELD-5 (Rasche j) with R-TURN-4 (Wiener): with closed canastas the next opponent cannot add
// a king to his canasta of kings, so the king discarded is no Wiener stop card; the pile is
// still not taken onto the canasta. Without j the king blocks the pile.
#[test]
fn r_meld_5_rasche_j_with_wiener_stop_rule() {
    let mut g = canasta_then_king(pspec(Preset::Wiener, 4, &[("rasche_j", "true")]));
    assert!(!g.pile_blocked());
    refuse(&mut g, 0, take_add(0, ""), "CANASTA_CLOSED");

    let mut g = canasta_then_king(pspec(Preset::Wiener, 4, &[]));
    assert!(g.pile_blocked());
    refuse(&mut g, 0, take_add(0, ""), "PILE_BLOCKED");
}

// ---------------------------------------------------------------------------------------------
// Contradictions, unknown names, bad values

// Options: `rasche_g` (initial_take_without_pair) with Samba, whose pile_with_natural_and_wild
// is false, is refused naming both options; setting pile_with_natural_and_wild=true resolves it.
#[test]
fn option_conflict_rasche_g_with_samba() {
    for options in [
        vec![("rasche_g", "true")],
        vec![("initial_take_without_pair", "true")],
    ] {
        let msg = conflict(Preset::Samba, 4, &options);
        assert!(
            msg.contains("initial_take_without_pair") && msg.contains("pile_with_natural_and_wild"),
            "{msg}"
        );
    }
    let msg = conflict(
        Preset::Official,
        4,
        &[
            ("initial_take_without_pair", "true"),
            ("pile_with_natural_and_wild", "false"),
        ],
    );
    assert!(msg.contains("pile_with_natural_and_wild=false"), "{msg}");
    let r = rules_of(
        Preset::Samba,
        4,
        &[("rasche_g", "true"), ("pile_with_natural_and_wild", "true")],
    );
    assert!(r.initial_take_without_pair && r.pile_with_natural_and_wild);
}

// Options (Rasche b): a joker_canasta_bonus (or another wild-canasta bonus) without wild
// canastas is refused naming both options.
#[test]
fn option_conflict_wild_canasta_bonus_without_wild_canastas() {
    for name in [
        "joker_canasta_bonus",
        "wild_canasta_bonus",
        "deuce_canasta_bonus",
    ] {
        let msg = conflict(Preset::Official, 4, &[(name, "2000")]);
        assert!(msg.contains(name) && msg.contains("wild_canastas"), "{msg}");
    }
    // Rasche b's 2000 for a canasta of jokers needs seven jokers: with two decks (four or six
    // jokers) it could never be scored and is refused naming both; with three decks and wild
    // canastas (nine jokers) it is accepted.
    for jokers in ["4", "6"] {
        let msg = conflict(
            Preset::Official,
            4,
            &[
                ("rasche_b", "true"),
                ("jokers", jokers),
                ("joker_canasta_bonus", "2000"),
            ],
        );
        assert!(
            msg.contains("joker_canasta_bonus") && msg.contains(&format!("jokers={jokers}")),
            "{msg}"
        );
    }
    let r = rules_of(
        Preset::Samba,
        4,
        &[("rasche_b", "true"), ("joker_canasta_bonus", "2000")],
    );
    assert_eq!((r.jokers, r.joker_canasta_bonus), (9, 2000));
}

// Options (Rasche j with Swiss): closed canastas forbid the stop cards the Swiss rule lays
// under a canasta; refused naming both options, with the preset and with the options alone.
#[test]
fn option_conflict_closed_canastas_with_swiss_stop_rule() {
    for (preset, options) in [
        (Preset::Swiss, vec![("closed_canastas", "true")]),
        (Preset::Swiss, vec![("rasche_j", "true")]),
        (
            Preset::Official,
            vec![("closed_canastas", "true"), ("stop_rule", "swiss")],
        ),
    ] {
        let msg = conflict(preset, 4, &options);
        assert!(
            msg.contains("closed_canastas=true") && msg.contains("stop_rule=swiss"),
            "{msg}"
        );
    }
    // Another stop rule resolves it.
    let r = rules_of(
        Preset::Swiss,
        4,
        &[("rasche_j", "true"), ("stop_rule", "black_threes")],
    );
    assert!(r.closed_canastas);
}

// Options (Rasche j): options about adding to a canasta have nothing to act on with closed
// canastas; setting one is refused naming both. (The Wiener stop rule, a preset default, is
// kept: see r_meld_5_rasche_j_with_wiener_stop_rule.)
#[test]
fn option_conflict_closed_canastas_with_canasta_additions() {
    for name in [
        "wilds_on_canasta",
        "pile_onto_canasta",
        "pair_if_top_fits_canasta",
    ] {
        for value in ["true", "false"] {
            let msg = conflict(
                Preset::Official,
                4,
                &[("closed_canastas", "true"), (name, value)],
            );
            assert!(
                msg.contains(name) && msg.contains("closed_canastas"),
                "{msg}"
            );
        }
        rules_of(Preset::Official, 4, &[(name, "true")]);
    }
    // The listing leaves them out, so it round-trips.
    let r = rules_of(Preset::Samba, 4, &[("rasche_j", "true")]);
    assert!(
        !r.option_values()
            .iter()
            .any(|(n, _)| *n == "pile_onto_canasta")
    );
}

// Options (Rasche g): taking the pile with a wild card when no meld may hold one is refused.
#[test]
fn option_conflict_rasche_g_without_wild_cards_in_melds() {
    let msg = conflict(
        Preset::Official,
        4,
        &[("rasche_g", "true"), ("max_wilds", "0")],
    );
    assert!(
        msg.contains("initial_take_without_pair") && msg.contains("max_wilds=0"),
        "{msg}"
    );
    rules_of(Preset::Official, 4, &[("max_wilds", "0")]);
}

// Options: samba_bonus without sequences is refused naming both options.
#[test]
fn option_conflict_samba_bonus_without_sequences() {
    let msg = conflict(Preset::Official, 4, &[("samba_bonus", "2000")]);
    assert!(
        msg.contains("samba_bonus") && msg.contains("sequences"),
        "{msg}"
    );
    assert_eq!(
        rules_of(Preset::Samba, 4, &[("samba_bonus", "2000")]).samba_bonus,
        2000
    );
}

// R-CARD-1: jokers=4 with decks=3 is refused naming both.
#[test]
fn option_conflict_jokers_4_with_decks_3() {
    let msg = conflict(Preset::Official, 4, &[("decks", "3"), ("jokers", "4")]);
    assert!(msg.contains("jokers=4") && msg.contains("decks=3"), "{msg}");
    let msg = conflict(Preset::Samba, 4, &[("jokers", "4")]);
    assert!(msg.contains("jokers=4") && msg.contains("decks=3"), "{msg}");
    let msg = conflict(Preset::Official, 4, &[("jokers", "5")]);
    assert!(msg.contains("jokers=5") && msg.contains("decks=2"), "{msg}");
}

// R-DEAL-2: five_players with four players (and six_players with five) is refused.
#[test]
fn option_conflict_seating_for_the_wrong_count() {
    let msg = conflict(Preset::Official, 4, &[("five_players", "each_alone")]);
    assert!(msg.contains("five_players") && msg.contains('4'), "{msg}");
    let msg = conflict(
        Preset::Official,
        5,
        &[("six_players", "two_teams_of_three")],
    );
    assert!(msg.contains("six_players"), "{msg}");
}

// R-RED-5: red_three_scores must have one value per possible number of red threes.
#[test]
fn option_conflict_red_three_scores_length() {
    let msg = conflict(
        Preset::Official,
        4,
        &[("red_three_scores", "0,100,200,300")],
    );
    assert!(
        msg.contains("red_three_scores") && msg.contains("decks=2") && msg.contains("give 5"),
        "{msg}"
    );
    let msg = conflict(
        Preset::Samba,
        4,
        &[("red_three_scores", "0,100,200,300,800")],
    );
    assert!(msg.contains("decks=3") && msg.contains("give 7"), "{msg}");
    let r = rules_of(
        Preset::Official,
        4,
        &[("red_three_scores", "0,100,200,300,1000")],
    );
    assert_eq!(r.red_three_scores.value(4), 1000);
}

// R-MELD-6: black_three_meld_max=5 with two decks (four black threes) is refused.
#[test]
fn option_conflict_black_three_meld_max() {
    let msg = conflict(Preset::Official, 4, &[("black_three_meld_max", "5")]);
    assert!(
        msg.contains("black_three_meld_max=5") && msg.contains("decks=2"),
        "{msg}"
    );
    assert_eq!(
        rules_of(Preset::Samba, 4, &[("black_three_meld_max", "5")]).black_three_meld_max,
        5
    );
}

// R-DEAL-2 (Rasche c): a hand size that leaves too small a stock is refused.
#[test]
fn option_conflict_hand_size_too_large() {
    let msg = conflict(Preset::Official, 4, &[("hand_size", "25")]);
    assert!(
        msg.contains("hand_size=25") && msg.contains("lower hand_size"),
        "{msg}"
    );
    let msg = conflict(Preset::Official, 4, &[("hand_size", "0")]);
    assert!(msg.contains("hand_size=0"), "{msg}");
    // Thirteen cards for six players in pairs fit three decks.
    assert_eq!(
        rules_of(Preset::Official, 6, &[("rasche_c", "true")]).hand_size,
        13
    );
}

// Options: an unknown option name is refused with UNKNOWN_OPTION, and the message lists the
// option names.
#[test]
fn unknown_option_lists_the_options() {
    for name in ["rasche_k", "joker", "closed_canasta"] {
        let err = RuleSpec::new(Preset::Official, 4)
            .with(name, "true")
            .unwrap_err();
        assert_eq!(err.code(), "UNKNOWN_OPTION");
        assert_eq!(err, RulesError::UnknownOption(name.to_string()));
        let msg = err.to_string();
        assert!(msg.contains(&format!("{name:?}")), "{msg}");
        for (option, _) in OPTION_DOCS {
            assert!(msg.contains(option), "{option} missing in {msg}");
        }
    }
}

// Options: a value that cannot be read is refused with BAD_OPTION_VALUE naming the option.
#[test]
fn bad_option_values_are_refused() {
    let cases = [
        ("jokers", "many", "jokers"),
        ("closed_canastas", "maybe", "closed_canastas"),
        ("target_score", "high", "target_score"),
        ("minimum_table", "50", "minimum_table"),
        ("minimum_table", "0:90,-inf:25", "minimum_table"),
        ("red_threes_positive", "sometimes", "red_threes_positive"),
        ("red_three_scores", "100,200", "red_three_scores"),
        ("stop_rule", "red_threes", "stop_rule"),
        ("five_players", "alone", "five_players"),
        (
            "concealed_without_canasta_bonus",
            "some",
            "concealed_without_canasta_bonus",
        ),
        ("rasche_d", "high", "target_score"),
        ("rasche_f", "true", "concealed_bonus"),
    ];
    for (name, value, option) in cases {
        let err = RuleSpec::new(Preset::Official, 4)
            .with(name, value)
            .unwrap_err();
        assert_eq!(err.code(), "BAD_OPTION_VALUE", "{name}={value}: {err}");
        assert!(
            err.to_string().starts_with(&format!("option {option}:")),
            "{name}={value}: {err}"
        );
    }
}

// Options: a Rasche letter switched on or off by a value that is neither true nor false is
// a bad value, as it is for the option it stands for.
#[test]

fn bad_rasche_letter_values_are_refused() {
    for letter in [
        "rasche_a", "rasche_b", "rasche_c", "rasche_e", "rasche_g", "rasche_h", "rasche_i",
        "rasche_j",
    ] {
        let result = RuleSpec::new(Preset::Official, 4).with(letter, "maybe");
        assert_eq!(
            result.map(|s| s.options.entries()).map_err(|e| e.code()),
            Err("BAD_OPTION_VALUE"),
            "{letter}=maybe"
        );
    }
}

// Options: an unknown preset name is refused with UNKNOWN_PRESET; the message lists the
// presets. Names are read without regard to case.
#[test]
fn unknown_preset_is_refused() {
    for name in ["canasta", "rasche", "", "officials"] {
        let err = name.parse::<Preset>().unwrap_err();
        assert_eq!(err.code(), "UNKNOWN_PRESET");
        assert_eq!(err, RulesError::UnknownPreset(name.to_string()));
        let msg = err.to_string();
        assert!(msg.contains("official, wiener, samba, swiss"), "{msg}");
    }
    for preset in Preset::ALL {
        assert_eq!(preset.name().parse::<Preset>(), Ok(preset));
        assert_eq!(preset.name().to_uppercase().parse::<Preset>(), Ok(preset));
    }
}

// ---------------------------------------------------------------------------------------------
// Preset defaults and the option listing

// R-DEAL-2, R-SAMBA-1, R-SAMBA-2, R-SAMBA-6, R-SAMBA-7, R-SCORE-2 (the presets): every preset's
// defaults for every player count it supports: (decks, jokers, hand size, draw, canastas to go
// out, target).
#[test]
fn r_deal_2_preset_defaults_by_player_count() {
    type Row = (u8, u8, u8, u8, u8, i32);
    let row = |r: Rules| -> Row {
        (
            r.decks,
            r.jokers,
            r.hand_size,
            r.draw,
            r.canastas_to_go_out,
            r.target_score,
        )
    };
    let official: [(u8, Row); 5] = [
        (2, (2, 4, 15, 2, 2, 5000)),
        (3, (2, 4, 13, 1, 1, 5000)),
        (4, (2, 4, 11, 1, 1, 5000)),
        (5, (2, 4, 11, 1, 1, 5000)),
        (6, (3, 6, 13, 1, 2, 5000)),
    ];
    for preset in [Preset::Official, Preset::Wiener] {
        for (n, expected) in official {
            assert_eq!(
                row(Rules::preset(preset, n).unwrap()),
                expected,
                "{preset} {n}"
            );
        }
        let five = rules_of(preset, 5, &[("five_players", "each_alone")]);
        assert_eq!(row(five), (2, 4, 11, 1, 1, 5000));
        assert_eq!(five.active_players(), 5);
        let six = rules_of(preset, 6, &[("six_players", "two_teams_of_three")]);
        assert_eq!(row(six), (2, 4, 11, 1, 1, 5000));
        assert_eq!(six.active_players(), 4);
    }
    for n in [2, 3, 4] {
        assert_eq!(
            row(Rules::preset(Preset::Samba, n).unwrap()),
            (3, 6, 15, 2, 2, 10000),
            "samba {n}"
        );
    }
    // Swiss (seed 004): 13 cards, two decks for 2-3 players, three for 4-5, one canasta to go
    // out, 5000. The draw of two players is checked by swiss_two_players_draw_one_card.
    type SwissRow = (u8, u8, u8, u8, i32);
    let swiss: [(u8, SwissRow); 4] = [
        (2, (2, 4, 13, 1, 5000)),
        (3, (2, 4, 13, 1, 5000)),
        (4, (3, 6, 13, 1, 5000)),
        (5, (3, 6, 13, 1, 5000)),
    ];
    for (n, expected) in swiss {
        let r = Rules::preset(Preset::Swiss, n).unwrap();
        assert_eq!(
            (
                r.decks,
                r.jokers,
                r.hand_size,
                r.canastas_to_go_out,
                r.target_score
            ),
            expected,
            "swiss {n}"
        );
        if n > 2 {
            assert_eq!(r.draw, 1, "swiss {n}");
        }
    }
    // Counts the presets do not support.
    for (preset, n) in [
        (Preset::Samba, 5),
        (Preset::Samba, 6),
        (Preset::Swiss, 6),
        (Preset::Official, 1),
        (Preset::Official, 7),
        (Preset::Wiener, 7),
        (Preset::Swiss, 1),
    ] {
        let err = Rules::preset(preset, n).unwrap_err();
        assert_eq!(err.code(), "BAD_PLAYER_COUNT", "{preset} {n}");
        assert!(err.to_string().contains(preset.name()), "{err}");
    }
}

// R-DEAL-2 (Swiss, seed 004): "Wird eine Karte vom Talon genommen": a Swiss player draws one
// card, whatever the number of players; the seed knows no draw of two, and the Swiss preset
// follows its seed (docs/rules.md, "swiss").
#[test]

fn swiss_two_players_draw_one_card() {
    assert_eq!(Rules::preset(Preset::Swiss, 2).unwrap().draw, 1);
}

/// Options that Rules::new refuses when set explicitly although `option_values()` lists them:
/// seatings for another player count, and bonuses (or limits) of features the rules do not
/// have.
fn refused_when_set(name: &str, r: &Rules) -> bool {
    match name {
        "five_players" => r.players != 5,
        "six_players" => r.players != 6,
        "samba_bonus" => !r.sequences,
        "wild_canasta_bonus" | "deuce_canasta_bonus" => !r.wild_canastas,
        // A canasta of jokers needs seven of them.
        "joker_canasta_bonus" => !r.wild_canastas || r.jokers < 7,
        // Nothing is added to a closed canasta (Rasche j).
        "wilds_on_canasta" | "pile_onto_canasta" | "pair_if_top_fits_canasta" => r.closed_canastas,
        _ => false,
    }
}

/// Every preset, player count and seating, plain and with each Rasche letter on: the options and
/// the rules they give.
fn all_rule_sets() -> Vec<(RuleSpec, Rules)> {
    let mut out = Vec::new();
    for (preset, n, seating) in tables() {
        let mut variants = vec![seating.clone()];
        for (letter, on, _, _) in LETTERS {
            let mut v = seating.clone();
            v.push((letter, on));
            variants.push(v);
        }
        for options in variants {
            let spec = pspec(preset, n, &options);
            if let Ok(rules) = Rules::new(&spec) {
                out.push((spec, rules));
            }
        }
    }
    out
}

// Options: option_values() lists, in documentation order, every option that applies to the
// rules, with its effective value; setting each of them by name (Options::set) on the bare
// preset gives the same rules. The options it leaves out (a seating for another player count,
// the bonus of a feature that is off) are refused when set, with OPTION_CONFLICT.
#[test]
fn option_values_round_trip() {
    let sets = all_rule_sets();
    assert!(sets.len() > 150, "{}", sets.len());
    for (spec, rules) in sets {
        let values = rules.option_values();
        let names: Vec<&str> = values.iter().map(|v| v.0).collect();
        let documented: Vec<&str> = OPTION_DOCS.iter().map(|d| d.0).collect();
        let in_order: Vec<&str> = documented
            .iter()
            .copied()
            .filter(|d| names.contains(d))
            .collect();
        assert_eq!(names, in_order, "{spec:?}");
        for name in documented.iter().filter(|d| !names.contains(d)) {
            assert!(
                refused_when_set(name, &rules),
                "{name} left out of {spec:?}"
            );
        }
        let mut again = RuleSpec::new(rules.preset, rules.players);
        for (name, value) in &values {
            again
                .options
                .set(name, value)
                .unwrap_or_else(|e| panic!("{name}={value}: {e}"));
        }
        let back = Rules::new(&again).unwrap_or_else(|e| panic!("{spec:?}: {e}"));
        assert_eq!(back, rules, "{spec:?}");
    }
}

// Options: setting every option listed by option_values() to its effective value, the ones
// that do not apply included, gives the same rules: a client may echo the listing back.
#[test]
fn option_values_round_trip_in_full() {
    for (spec, rules) in all_rule_sets() {
        let mut again = RuleSpec::new(rules.preset, rules.players);
        for (name, value) in rules.option_values() {
            again.options.set(name, &value).unwrap();
        }
        assert_eq!(Rules::new(&again), Ok(rules), "{spec:?}");
    }
}

// docs/rules.md, the rules reference for players and bot authors, names every option (in its
// table of options) and every Rasche letter.
#[test]
fn every_option_is_documented_for_players() {
    let doc = include_str!("../../docs/rules.md");
    for (name, _) in OPTION_DOCS {
        assert!(
            doc.contains(&format!("| `{name}` |")),
            "docs/rules.md has no row for option {name}"
        );
    }
    for letter in "abcdefghij".chars() {
        assert!(
            doc.contains(&format!("| {letter} |")),
            "docs/rules.md does not describe Rasche {letter}"
        );
    }
}
