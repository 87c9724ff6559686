//! R-OUT: going out; R-SCORE: scoring a deal and the match.
mod common;
use canasta_engine::legal::Ask;
use canasta_engine::{
    Action, Arrangement, DealEnd, Event, Game, Phase, RuleSpec, Rules, Seat, Setup, Side,
    SideScore, Viewer, redact,
};
use common::*;

/// Seat 0 lays six kings (meld 0) and three queens (meld 1) in its first turn and keeps QC KC;
/// seats 1 to 3 draw and discard. Seat 0 is then to draw `draw`; the stock goes on with `more`.
fn kings_queens(options: &[(&str, &str)], draw: &str, more: &str) -> Game {
    let stock = format!("8C 4S 5S 6S {draw} {more}");
    let mut g = arranged(
        4,
        options,
        &["KS KS KH KH KD KD QS QH QD QC KC", "", "", ""],
        "7D",
        &stock,
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KS KH KH KD KD"), new_meld("QS QH QD")]),
    );
    act(&mut g, 0, discard("8C"));
    pass(&mut g, &[1, 2, 3]);
    assert_eq!(g.to_act(), Some(Seat(0)));
    assert_eq!(*g.hand(Seat(0)), cards("QC KC"));
    assert!(g.melds(Side(0)).iter().all(|m| !m.is_canasta()));
    g
}

/// Hands of a deal in which seat 0 draws QC and goes out concealed with a natural canasta of
/// kings and four queens, discarding 9C. Card values left: seat 1 110, seat 2 110, seat 3 55.
const CONCEALED: [&str; 4] = [
    "KS KS KH KH KD KD KC QS QH QD 9C",
    "8S 8H 9S 9H 10S 10H JS JH 8D 9D 10D",
    "AS AH 8C 9C 10C JC 4C 5C 6C 7C QH",
    "4S 4H 5S 5H 6S 6H 7S 7H 4D 5D 6D",
];

fn concealed_out() -> Action {
    go_out(
        &[new_meld("KS KS KH KH KD KD KC"), new_meld("QS QH QD QC")],
        Some("9C"),
    )
}

/// A four-player game of several prearranged deals `(hands, pile, stock)`; the dealer of deal k
/// is seat (3 + k) mod 4, so seat k mod 4 plays first.
fn deals_game(spec: RuleSpec, deals: &[([&str; 4], &str, &str)], start_scores: Vec<i32>) -> Game {
    let rules = Rules::new(&spec).unwrap();
    let card_orders = deals
        .iter()
        .enumerate()
        .map(|(k, (hands, pile, stock))| {
            Arrangement {
                hands: hands.iter().map(|h| list(h)).collect(),
                pile: list(pile),
                stock: list(stock),
                ..Default::default()
            }
            .deck(&rules, k as u32, Seat(((3 + k) % 4) as u8))
            .unwrap()
        })
        .collect();
    Game::new(&Setup {
        rules: spec,
        card_orders,
        first_dealer: Some(Seat(3)),
        start_scores,
        ..Setup::default()
    })
    .unwrap()
}

/// The CONCEALED deal, with start scores.
fn concealed_game(options: &[(&str, &str)], start_scores: Vec<i32>) -> Game {
    deals_game(spec(4, options), &[(CONCEALED, "7D", "QC")], start_scores)
}

// ---------------------------------------------------------------------------------------------
// R-OUT-1: going out

// R-OUT-1: going out by melding all cards but one and discarding it; the canasta of kings is
// completed in the going-out action itself and counts.
#[test]
fn r_out_1_meld_all_but_one_and_discard() {
    let mut g = kings_queens(&[], "9C", "");
    act(&mut g, 0, Action::DrawStock);
    assert_eq!(*g.hand(Seat(0)), cards("QC KC 9C"));
    let events = act(&mut g, 0, go_out(&[add(0, "KC"), add(1, "QC")], Some("9C")));
    let placed = events
        .iter()
        .find_map(|e| match e {
            Event::WentOut {
                seat: Seat(0),
                placed,
                discard,
                ..
            } => Some((placed.clone(), *discard)),
            _ => None,
        })
        .expect("seat 0 went out");
    assert_eq!(placed.1, Some(card("9C")));
    assert_eq!(placed.0.len(), 2);
    assert_eq!(placed.0[0].cards, cards("KC"));
    let finish = events
        .iter()
        .find_map(|e| match e {
            Event::DealEnded(f) => Some(f.clone()),
            _ => None,
        })
        .unwrap();
    assert!(finish.hands[0].is_empty());
    assert_eq!(
        finish.score.end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: false
        }
    );
    let s0 = &finish.score.sides[0];
    assert_eq!((s0.natural_canastas, s0.mixed_canastas), (1, 0));
    // Kings 7 x 10, queens 4 x 10.
    assert_eq!(s0.melded_cards, 110);
}

// R-OUT-1: going out by melding every card, with no discard.
#[test]
fn r_out_1_meld_all_cards_no_discard() {
    let mut g = kings_queens(&[], "QD", "");
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, go_out(&[add(0, "KC"), add(1, "QC QD")], None));
    assert!(events.iter().any(|e| matches!(
        e,
        Event::WentOut {
            seat: Seat(0),
            discard: None,
            ..
        }
    )));
    let finish = events
        .iter()
        .find_map(|e| match e {
            Event::DealEnded(f) => Some(f.clone()),
            _ => None,
        })
        .unwrap();
    assert!(finish.hands[0].is_empty());
    // Kings 70, queens 5 x 10.
    assert_eq!(finish.score.sides[0].melded_cards, 120);
    assert_eq!(finish.score.sides[0].natural_canastas, 1);
}

// R-OUT-1: no going out without the required canasta.
#[test]
fn r_out_1_not_enough_canastas() {
    let mut g = kings_queens(&[], "QD", "");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        go_out(&[add(1, "QC QD")], Some("KC")),
        "NOT_ENOUGH_CANASTAS",
    );
    assert!(
        msg.contains("needs 1 canasta") && msg.contains("have 0"),
        "{msg}"
    );
}

// R-OUT-1: going out must leave no card in the hand.
#[test]
fn r_out_1_cards_left() {
    let mut g = kings_queens(&[], "9C", "");
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        go_out(&[add(0, "KC"), add(1, "QC")], None),
        "CARDS_LEFT",
    );
    assert!(msg.contains("1 card(s)"), "{msg}");
}

// R-OUT-1 with option go_out_needs_natural_canasta (Rasche h): a mixed canasta is not enough; a
// natural one is.
#[test]
fn r_out_1_needs_natural_canasta_option() {
    let mut g = kings_queens(&[("go_out_needs_natural_canasta", "true")], "Jk", "");
    act(&mut g, 0, Action::DrawStock);
    assert_eq!(*g.hand(Seat(0)), cards("QC KC Jk"));
    let msg = refuse(
        &mut g,
        0,
        go_out(&[add(0, "Jk"), add(1, "QC")], Some("KC")),
        "NEED_NATURAL_CANASTA",
    );
    assert!(msg.contains("natural canasta"), "{msg}");
    act(&mut g, 0, go_out(&[add(0, "KC"), add(1, "QC Jk")], None));
    assert_eq!(g.history().len(), 1);
}

// R-OUT-1 without the option, the mixed canasta is enough.
#[test]
fn r_out_1_mixed_canasta_enough_by_default() {
    let mut g = kings_queens(&[], "Jk", "");
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, go_out(&[add(0, "Jk"), add(1, "QC")], Some("KC")));
    let s0 = &deal_ended(&events).sides[0];
    assert_eq!((s0.natural_canastas, s0.mixed_canastas), (0, 1));
}

// R-OUT-1: two players need two canastas to go out.
#[test]
fn r_out_1_two_players_need_two_canastas() {
    // One canasta (kings) and three more melds: refused.
    let mut g = arranged(
        2,
        &[],
        &["KS KS KH KH KD KD KC QS QH QD QC JS JH JD AS"],
        "7D",
        "AH AD",
    );
    act(&mut g, 0, Action::DrawStock);
    assert_eq!(g.hand(Seat(0)).len(), 17);
    let msg = refuse(
        &mut g,
        0,
        go_out(
            &[
                new_meld("KS KS KH KH KD KD KC"),
                new_meld("QS QH QD QC"),
                new_meld("JS JH JD"),
                new_meld("AS AH AD"),
            ],
            None,
        ),
        "NOT_ENOUGH_CANASTAS",
    );
    assert!(
        msg.contains("needs 2 canasta") && msg.contains("have 1"),
        "{msg}"
    );

    // Two canastas (kings and queens): allowed.
    let mut g = arranged(
        2,
        &[],
        &["KS KS KH KH KD KD KC QS QS QH QH QD QD QC AS"],
        "7D",
        "AH AD",
    );
    act(&mut g, 0, Action::DrawStock);
    let events = act(
        &mut g,
        0,
        go_out(
            &[
                new_meld("KS KS KH KH KD KD KC"),
                new_meld("QS QS QH QH QD QD QC"),
                new_meld("AS AH AD"),
            ],
            None,
        ),
    );
    let report = deal_ended(&events);
    assert_eq!(report.sides[0].natural_canastas, 2);
    assert_eq!(
        report.end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: true
        }
    );
}

// ---------------------------------------------------------------------------------------------
// R-OUT-2: the going-out bonus

// R-OUT-2: the side of the player who goes out scores 100 for it, the other side nothing.
#[test]
fn r_out_2_going_out_bonus_100() {
    let mut g = kings_queens(&[], "9C", "");
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, go_out(&[add(0, "KC"), add(1, "QC")], Some("9C")));
    assert!(!went_out_concealed(&events));
    let report = &g.history()[0];
    assert_eq!(report.sides[0].going_out_bonus, 100);
    assert_eq!(report.sides[1].going_out_bonus, 0);
}

// ---------------------------------------------------------------------------------------------
// R-OUT-3: "Partner, may I go out?"

// R-OUT-3: the question passes the action to the partner; after yes the asker goes out. The
// asker cannot act while the question is pending, and may ask only once.
#[test]
fn r_out_3_ask_then_yes_then_go_out() {
    let mut g = kings_queens(&[], "9C", "");
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, Action::AskPartner);
    assert_eq!(
        events,
        vec![Event::AskedPartner {
            seat: Seat(0),
            partner: Seat(2)
        }]
    );
    assert_eq!(g.phase(), Phase::Answer);
    assert_eq!(g.to_act(), Some(Seat(2)));
    assert_eq!(g.turn_seat(), Seat(0));
    assert_eq!(g.turn_flags().ask, Ask::Pending);
    let msg = refuse(
        &mut g,
        0,
        go_out(&[add(0, "KC"), add(1, "QC")], Some("9C")),
        "NOT_YOUR_TURN",
    );
    assert!(msg.contains("seat 2"), "{msg}");
    refuse(&mut g, 0, discard("9C"), "NOT_YOUR_TURN");
    refuse(
        &mut g,
        1,
        Action::AnswerPartner { yes: true },
        "NOT_YOUR_TURN",
    );
    assert_eq!(
        legal(&g),
        vec![
            Action::AnswerPartner { yes: true },
            Action::AnswerPartner { yes: false }
        ]
    );

    let events = act(&mut g, 2, Action::AnswerPartner { yes: true });
    assert_eq!(
        events,
        vec![Event::PartnerAnswered {
            seat: Seat(2),
            asker: Seat(0),
            yes: true
        }]
    );
    assert_eq!(g.phase(), Phase::Play);
    assert_eq!(g.to_act(), Some(Seat(0)));
    assert_eq!(g.turn_flags().ask, Ask::Yes);
    refuse(&mut g, 0, Action::AskPartner, "ALREADY_ASKED");
    let events = act(&mut g, 0, go_out(&[add(0, "KC"), add(1, "QC")], Some("9C")));
    assert!(!events.iter().any(|e| matches!(e, Event::Penalty { .. })));
    assert_eq!(g.history()[0].sides[0].penalties, 0);
    assert_eq!(g.history()[0].sides[0].going_out_bonus, 100);
}

// R-OUT-3: told yes, the player discards instead of going out: his side loses 100, shown as an
// event and as the penalties item of the deal score.
#[test]
fn r_out_3_yes_then_discard_costs_100() {
    // Turn 2: draws 9C, asks, hears yes, discards 9C. Turn 3: draws QD and goes out.
    let mut g = kings_queens(&[], "9C", "4D 5D 6D QD");
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, Action::AskPartner);
    act(&mut g, 2, Action::AnswerPartner { yes: true });
    let events = act(&mut g, 0, discard("9C"));
    assert!(events.contains(&Event::Penalty {
        side: Side(0),
        points: 100,
        reason: "DID_NOT_GO_OUT_AFTER_YES"
    }));
    assert_eq!(g.penalties(Side(0)), 100);
    assert_eq!(g.penalties(Side(1)), 0);
    assert_eq!(g.view(Viewer::Seat(Seat(1))).sides[0].penalties, 100);
    pass(&mut g, &[1, 2, 3]);
    act(&mut g, 0, Action::DrawStock);
    assert_eq!(*g.hand(Seat(0)), cards("QC KC QD"));
    let events = act(&mut g, 0, go_out(&[add(0, "KC"), add(1, "QC QD")], None));
    let report = deal_ended(&events);
    assert_eq!(report.sides[0].penalties, -100);
    assert_eq!(report.sides[1].penalties, 0);
    assert_eq!(report.sides[0].total, report.sides[0].sum_of_items());
    // The partner (seat 2) holds his filler hand 4D 5D 6D 7D 8D 9D 10D JD AD 4H 5H = 90.
    assert_eq!(finish_hand_value(&events, 2), 90);
    assert_eq!(report.sides[0].cards_in_hand, -90);
    // Kings 70 + queens 50 + natural canasta 500 + going out 100 - 90 in hand - penalty 100.
    assert_eq!(report.sides[0].total, 70 + 50 + 500 + 100 - 90 - 100);
    // The penalty belongs to that deal only.
    assert_eq!(g.deal_number(), 1);
    assert_eq!(g.penalties(Side(0)), 0);
}

/// The value of the cards a seat held at the end of the deal, from the DealEnded event.
fn finish_hand_value(events: &[Event], seat: usize) -> i32 {
    events
        .iter()
        .find_map(|e| match e {
            Event::DealEnded(f) => Some(f.hands[seat].value() as i32),
            _ => None,
        })
        .unwrap()
}

// R-OUT-3: after no, the player may not go out this turn; he melds or discards, with no
// penalty.
#[test]
fn r_out_3_no_forbids_going_out() {
    let mut g = kings_queens(&[], "9C", "");
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, Action::AskPartner);
    let events = act(&mut g, 2, Action::AnswerPartner { yes: false });
    assert_eq!(
        events,
        vec![Event::PartnerAnswered {
            seat: Seat(2),
            asker: Seat(0),
            yes: false
        }]
    );
    assert_eq!(g.turn_flags().ask, Ask::No);
    let msg = refuse(
        &mut g,
        0,
        go_out(&[add(0, "KC"), add(1, "QC")], Some("9C")),
        "PARTNER_SAID_NO",
    );
    assert!(msg.contains("answered no"), "{msg}");
    refuse(&mut g, 0, Action::AskPartner, "ALREADY_ASKED");
    assert!(!legal(&g).iter().any(|a| matches!(a, Action::GoOut { .. })));
    let events = act(&mut g, 0, discard("9C"));
    assert!(!events.iter().any(|e| matches!(e, Event::Penalty { .. })));
    assert_eq!(g.penalties(Side(0)), 0);
    assert_eq!(g.to_act(), Some(Seat(1)));
}

// R-OUT-3: no partner to ask with two or three players.
#[test]
fn r_out_3_no_partner() {
    for players in [2u8, 3] {
        let hands = vec![""; players as usize];
        let mut g = arranged(players, &[], &hands, "7D", "");
        act(&mut g, 0, Action::DrawStock);
        let msg = refuse(&mut g, 0, Action::AskPartner, "NO_PARTNER");
        assert!(msg.contains("no partner"), "{players} players: {msg}");
        assert!(!legal(&g).contains(&Action::AskPartner));
    }
}

// R-OUT-3: the question comes after drawing from the stock and before melding: not before the
// draw, not after a meld.
#[test]
fn r_out_3_ask_too_late_after_meld() {
    let mut g = arranged(4, &[], &["KS KS KH KH KD KD QS QH QD QC KC"], "7D", "8C");
    refuse(&mut g, 0, Action::AskPartner, "WRONG_PHASE");
    act(&mut g, 0, Action::DrawStock);
    assert!(legal(&g).contains(&Action::AskPartner));
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD KD")]));
    let msg = refuse(&mut g, 0, Action::AskPartner, "ASK_TOO_LATE");
    assert!(msg.contains("before melding"), "{msg}");
    assert!(!legal(&g).contains(&Action::AskPartner));
}

// R-OUT-3: the question is too late after taking the pile.
#[test]
fn r_out_3_ask_too_late_after_taking_pile() {
    let mut g = arranged(4, &[], &["KS KS KH KH KD KD QS QH 9C 8C 4S"], "QD", "");
    act(
        &mut g,
        0,
        take_new("QS QH", &[new_meld("KS KS KH KH KD KD")]),
    );
    refuse(&mut g, 0, Action::AskPartner, "ASK_TOO_LATE");
}

// R-OUT-3: answering when no question is pending is refused: WRONG_PHASE for the seat to act,
// NOT_YOUR_TURN for the partner.
#[test]
fn r_out_3_answer_without_question() {
    let mut g = kings_queens(&[], "9C", "");
    refuse(
        &mut g,
        0,
        Action::AnswerPartner { yes: true },
        "WRONG_PHASE",
    );
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        Action::AnswerPartner { yes: true },
        "WRONG_PHASE",
    );
    assert!(msg.contains("meld, discard or go out"), "{msg}");
    refuse(
        &mut g,
        2,
        Action::AnswerPartner { yes: false },
        "NOT_YOUR_TURN",
    );
}

// R-OUT-3: the question and the answer are public: every seat and a spectator receive the
// events unredacted and see the pending question in their views.
#[test]
fn r_out_3_question_and_answer_are_public() {
    let mut g = kings_queens(&[], "9C", "");
    act(&mut g, 0, Action::DrawStock);
    let asked = act(&mut g, 0, Action::AskPartner);
    let viewers = [
        Viewer::Seat(Seat(1)),
        Viewer::Seat(Seat(2)),
        Viewer::Seat(Seat(3)),
        Viewer::Spectator,
    ];
    for v in viewers {
        assert_eq!(redact(&asked[0], v), asked[0], "{v:?}");
        let view = g.view(v);
        assert_eq!(view.phase, Phase::Answer, "{v:?}");
        assert_eq!(view.to_act, Some(Seat(2)), "{v:?}");
        assert_eq!(view.turn.ask, Ask::Pending, "{v:?}");
    }
    let answered = act(&mut g, 2, Action::AnswerPartner { yes: false });
    for v in viewers {
        assert_eq!(redact(&answered[0], v), answered[0], "{v:?}");
        assert_eq!(g.view(v).turn.ask, Ask::No, "{v:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// R-OUT-4: concealed going out

// R-OUT-4: a player who has not melded goes out in one turn with a canasta of his own: concealed,
// bonus 200. From a stock draw no minimum applies (R-INIT-5): side 0 needs 120 (score 3000) and
// the melds count 110.
#[test]
fn r_out_4_concealed_bonus_200() {
    let mut g = concealed_game(&[], vec![3000, 0]);
    assert_eq!(g.minimum(Side(0)), 120);
    act(&mut g, 0, Action::DrawStock);
    assert!(legal(&g).iter().any(|a| matches!(a, Action::GoOut { .. })));
    let events = act(&mut g, 0, concealed_out());
    assert!(went_out_concealed(&events));
    let report = &g.history()[0];
    assert_eq!(
        report.end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: true
        }
    );
    assert_eq!(report.sides[0].going_out_bonus, 200);
    assert_eq!(report.sides[1].going_out_bonus, 0);
}

// R-OUT-4: not concealed if the player melded in an earlier turn of the deal.
#[test]
fn r_out_4_not_concealed_after_earlier_meld() {
    let mut g = kings_queens(&[], "9C", "");
    assert!(g.melded_before(Seat(0)));
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, go_out(&[add(0, "KC"), add(1, "QC")], Some("9C")));
    assert!(!went_out_concealed(&events));
    assert_eq!(g.history()[0].sides[0].going_out_bonus, 100);
}

/// Seat 0 draws and discards in its first turn; seat 2 lays `partner_melds` in its first turn;
/// seat 0 is then to play its second turn, having drawn `draw0`.
fn after_partner_melded(
    hand0: &str,
    hand2: &str,
    partner_melds: &[canasta_engine::MeldSpec],
    draw0: &str,
) -> Game {
    let stock = format!("4S 5S 6S 8S {draw0}");
    let mut g = arranged(4, &[], &[hand0, "", hand2, ""], "7D", &stock);
    pass(&mut g, &[0, 1]);
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, meld(partner_melds));
    act(&mut g, 2, discard("6S"));
    pass(&mut g, &[3]);
    act(&mut g, 0, Action::DrawStock);
    assert!(!g.melded_before(Seat(0)));
    g
}

// R-OUT-4: a player whose partner has melded may still go out concealed with melds of his own.
#[test]
fn r_out_4_concealed_although_partner_melded() {
    let mut g = after_partner_melded(
        "KS KS KH KH KD KD KC QC QS QH 9C",
        "AS AH AD",
        &[new_meld("AS AH AD")],
        "QD",
    );
    let events = act(
        &mut g,
        0,
        go_out(
            &[new_meld("KS KS KH KH KD KD KC"), new_meld("QS QH QD QC")],
            Some("9C"),
        ),
    );
    assert!(went_out_concealed(&events));
    assert_eq!(g.history()[0].sides[0].going_out_bonus, 200);
}

// R-OUT-4: adding to the partner's meld in the going-out turn spoils a concealed going out.
#[test]
fn r_out_4_not_concealed_when_adding_to_partner_meld() {
    let mut g = after_partner_melded(
        "KS KS KH KH KD KD KC AC QS QH 9C",
        "AS AH AD",
        &[new_meld("AS AH AD")],
        "QD",
    );
    let events = act(
        &mut g,
        0,
        go_out(
            &[
                new_meld("KS KS KH KH KD KD KC"),
                add(0, "AC"),
                new_meld("QS QH QD"),
            ],
            Some("9C"),
        ),
    );
    assert!(!went_out_concealed(&events));
    let report = &g.history()[0];
    assert_eq!(
        report.end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: false
        }
    );
    assert_eq!(report.sides[0].going_out_bonus, 100);
}

// R-OUT-4: going out in one turn without a canasta of one's own (the side's canasta is the
// partner's) is not concealed.
#[test]
fn r_out_4_not_concealed_without_own_canasta() {
    let mut g = after_partner_melded(
        "QS QS QH QH JS JS JH JH 10S 10H 9C",
        "KS KS KH KH KD KD KC",
        &[new_meld("KS KS KH KH KD KD KC")],
        "10D",
    );
    let events = act(
        &mut g,
        0,
        go_out(
            &[
                new_meld("QS QS QH QH"),
                new_meld("JS JS JH JH"),
                new_meld("10S 10H 10D"),
            ],
            Some("9C"),
        ),
    );
    assert!(!went_out_concealed(&events));
    assert_eq!(g.history()[0].sides[0].going_out_bonus, 100);
}

/// Seat 0 could go out concealed by taking the upcard 7D with 7S 7H and melding the kings.
const TAKE_HAND: &str = "7S 7H 7C KS KS KH KH KD KD KC 9C";

// R-OUT-4: after taking the pile, the initial minimum applies to a player going out concealed:
// with 120 to reach, the take with 85 is refused, though the same cards would go out concealed
// from a stock draw.
#[test]
fn r_out_4_minimum_after_taking_pile() {
    let mut g = deals_game(
        spec(4, &[]),
        &[([TAKE_HAND, "", "", ""], "7D", "7D")],
        vec![3000, 0],
    );
    assert_eq!(g.minimum(Side(0)), 120);
    let msg = refuse(
        &mut g,
        0,
        take_new("7S 7H", &[new_meld("KS KS KH KH KD KD KC")]),
        "BELOW_MINIMUM",
    );
    assert!(
        msg.contains("at least 120") && msg.contains("count 85"),
        "{msg}"
    );
    // From the stock (drawing the other 7D) the same melds go out concealed, minimum or not.
    act(&mut g, 0, Action::DrawStock);
    let events = act(
        &mut g,
        0,
        go_out(
            &[new_meld("7S 7H 7C 7D"), new_meld("KS KS KH KH KD KD KC")],
            Some("9C"),
        ),
    );
    assert!(went_out_concealed(&events));
}

// R-OUT-4: with the minimum reached by the take, the player goes out concealed in that turn.
#[test]
fn r_out_4_concealed_after_taking_pile() {
    let mut g = arranged(4, &[], &[TAKE_HAND], "7D", "");
    act(
        &mut g,
        0,
        take_new("7S 7H", &[new_meld("KS KS KH KH KD KD KC")]),
    );
    let events = act(&mut g, 0, go_out(&[add(0, "7C")], Some("9C")));
    assert!(went_out_concealed(&events));
    assert_eq!(g.history()[0].sides[0].going_out_bonus, 200);
}

// R-OUT-4: a concealed going out may take several actions of one turn: seat 0 lays his canasta
// of kings (70, his side's initial meld: it must reach the minimum of 50) and then goes out with
// the queens; nothing was melded in an earlier turn, so the going out is concealed. At 3000 the
// same first meld is refused (below 120), where the going out in one action needs no minimum.
#[test]
fn r_out_4_concealed_over_several_actions_of_one_turn() {
    let mut g = concealed_game(&[], vec![]);
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD KD KC")]));
    assert!(!g.melded_before(Seat(0)));
    let events = act(&mut g, 0, go_out(&[new_meld("QS QH QD QC")], Some("9C")));
    assert!(went_out_concealed(&events));
    let s = &g.history()[0].sides[0];
    assert_eq!((s.melded_cards, s.going_out_bonus), (110, 200));

    let mut g = concealed_game(&[], vec![3000, 0]);
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(
        &mut g,
        0,
        meld(&[new_meld("KS KS KH KH KD KD KC")]),
        "BELOW_MINIMUM",
    );
    assert!(msg.contains("at least 120"), "{msg}");
    assert!(went_out_concealed(&act(&mut g, 0, concealed_out())));
}

// R-OUT-4 with option concealed_bonus (Rasche f): the concealed bonus is 500.
#[test]
fn r_out_4_concealed_bonus_option() {
    let mut g = concealed_game(&[("concealed_bonus", "500")], vec![]);
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, concealed_out());
    let s0 = &g.history()[0].sides[0];
    assert_eq!(s0.going_out_bonus, 500);
    // 110 melded + 500 natural canasta + 500 concealed - 110 in the partner's hand.
    assert_eq!(s0.total, 1000);
}

// ---------------------------------------------------------------------------------------------
// R-OUT-5: the deal ends at once

// R-OUT-5: going out ends the deal in the same action: the deal is scored, the next deal is
// dealt, and the next seat (seat 1) acts first in the new deal, never again in the old one.
#[test]
fn r_out_5_deal_ends_at_once() {
    let mut g = concealed_game(&[], vec![]);
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, concealed_out());
    let pos = |f: &dyn Fn(&Event) -> bool| events.iter().position(f).expect("event present");
    let went = pos(&|e| matches!(e, Event::WentOut { .. }));
    let ended = pos(&|e| matches!(e, Event::DealEnded(_)));
    let started =
        pos(&|e| matches!(e, Event::DealStarted(s) if s.deal == 1 && s.dealer == Seat(0)));
    let turn = pos(&|e| matches!(e, Event::TurnStarted { .. }));
    assert!(
        went < ended && ended < started && started < turn,
        "{events:?}"
    );
    assert_eq!(events[turn], Event::TurnStarted { seat: Seat(1) });
    assert_eq!(g.history().len(), 1);
    assert_eq!(g.deal_number(), 1);
    assert_eq!(g.dealer(), Seat(0));
    assert_eq!(g.phase(), Phase::Draw);
    assert_eq!(g.to_act(), Some(Seat(1)));
    assert!(g.melds(Side(0)).is_empty() && g.melds(Side(1)).is_empty());
    for s in 0..4 {
        assert_eq!(g.hand(Seat(s)).len(), 11, "seat {s}");
    }
    assert_eq!(g.all_cards().len(), 108);
    refuse(&mut g, 0, Action::DrawStock, "NOT_YOUR_TURN");
}

// ---------------------------------------------------------------------------------------------
// R-SCORE-1, R-SCORE-3: the itemised deal score

/// A deal that touches every item of the score:
/// - seat 0 lays its dealt 3H (replacement KC), draws Jk, asks, hears yes, melds seven kings
///   (natural canasta) and three queens, and discards 2C: penalty 100;
/// - seat 1 lays its dealt 3D (replacement 9S), draws 9H and discards it; side 1 never melds;
/// - seat 2 draws 6D, adds QS QH to the queens and discards 6D;
/// - seat 3 draws 8C and discards it;
/// - seat 0 draws QC and goes out adding QC Jk: the queens become a mixed canasta.
fn scored_deal(start_scores: Vec<i32>) -> (Game, Vec<Event>) {
    let hands = [
        "3H KS KS KH KH KD KD QS QH QD 2C",
        "3D 4S 4H 5S 5H 6S 6H 7S 7H 8S 8H",
        "QS QH AS AH AD 10S 10H JS JH 3S 2D",
        "9C 9D 10C 10D JC JD AC Jk 5C 6C 7C",
    ];
    let mut g = deals_game(
        spec(4, &[]),
        &[(hands, "7D", "KC Jk 9S 9H 6D 8C QC")],
        start_scores,
    );
    assert_eq!(*g.red_threes(Seat(0)), cards("3H"));
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, Action::AskPartner);
    act(&mut g, 2, Action::AnswerPartner { yes: true });
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KS KH KH KD KD KC"), new_meld("QS QH QD")]),
    );
    act(&mut g, 0, discard("2C"));
    assert_eq!(*g.red_threes(Seat(1)), cards("3D"));
    act(&mut g, 1, Action::DrawStock);
    act(&mut g, 1, discard("9H"));
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, meld(&[add(1, "QS QH")]));
    act(&mut g, 2, discard("6D"));
    act(&mut g, 3, Action::DrawStock);
    act(&mut g, 3, discard("8C"));
    act(&mut g, 0, Action::DrawStock);
    assert_eq!(*g.hand(Seat(0)), cards("Jk QC"));
    let events = act(&mut g, 0, go_out(&[add(1, "QC Jk")], None));
    (g, events)
}

// R-SCORE-1: every item of both sides, counted by hand.
#[test]
fn r_score_1_itemised_deal_score() {
    let (g, events) = scored_deal(vec![]);
    let report = &g.history()[0];
    assert_eq!(
        report.end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: false
        }
    );
    // Side 0: kings 7 x 10 = 70; queens 6 x 10 + joker 50 = 110.
    // Canastas: natural kings 500, mixed queens 300. One red three, side melded: +100.
    // Going out 100. Left in hands: seat 0 none; seat 2 AS AH AD 10S 10H JS JH 3S 2D
    // = 60 + 40 + 5 + 20 = 125. Penalty 100.
    let side0 = SideScore {
        side: 0,
        melded_cards: 180,
        natural_canastas: 1,
        mixed_canastas: 1,
        sambas: 0,
        wild_canastas: 0,
        canasta_bonus: 800,
        red_threes: 1,
        red_three_bonus: 100,
        going_out_bonus: 100,
        cards_in_hand: -125,
        penalties: -100,
        total: 180 + 800 + 100 + 100 - 125 - 100,
        cumulative: 955,
    };
    // Side 1: nothing melded; one red three without an initial meld: -100. Left in hands:
    // seat 1 4S 4H 5S 5H 6S 6H 7S 7H 8S 8H 9S = 40 + 30 = 70; seat 3 9C 9D 10C 10D JC JD AC
    // Jk 5C 6C 7C = 60 + 20 + 50 + 15 = 145.
    let side1 = SideScore {
        side: 1,
        melded_cards: 0,
        natural_canastas: 0,
        mixed_canastas: 0,
        sambas: 0,
        wild_canastas: 0,
        canasta_bonus: 0,
        red_threes: 1,
        red_three_bonus: -100,
        going_out_bonus: 0,
        cards_in_hand: -215,
        penalties: 0,
        total: -315,
        cumulative: -315,
    };
    assert_eq!(report.sides, vec![side0, side1]);
    assert_eq!(side0.total, 955);
    assert_eq!(g.scores(), &[955, -315]);
    // The hands shown for the count.
    let finish = events
        .iter()
        .find_map(|e| match e {
            Event::DealEnded(f) => Some(f.clone()),
            _ => None,
        })
        .unwrap();
    assert!(finish.hands[0].is_empty());
    assert_eq!(finish.hands[1], cards("4S 4H 5S 5H 6S 6H 7S 7H 8S 8H 9S"));
    assert_eq!(finish.hands[2], cards("AS AH AD 10S 10H JS JH 3S 2D"));
    assert_eq!(finish.hands[3], cards("9C 9D 10C 10D JC JD AC Jk 5C 6C 7C"));
}

// R-SCORE-1: the concealed deal: the cards in the hands of the player's partner count against
// the side that went out, and both opponents' hands against theirs.
#[test]
fn r_score_1_partner_hand_counts_against_side() {
    let mut g = concealed_game(&[], vec![]);
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, concealed_out());
    let r = &g.history()[0];
    let (s0, s1) = (&r.sides[0], &r.sides[1]);
    assert_eq!(
        (
            s0.melded_cards,
            s0.canasta_bonus,
            s0.going_out_bonus,
            s0.cards_in_hand,
            s0.total
        ),
        (110, 500, 200, -110, 700)
    );
    assert_eq!(
        (s1.melded_cards, s1.cards_in_hand, s1.total),
        (0, -165, -165)
    );
    assert_eq!((s0.red_three_bonus, s1.red_three_bonus), (0, 0));
}

// R-SCORE-3: the report itemises each part per side, the total is the sum of the items and the
// cumulative score follows from the start score; the same report is in the DealEnded event and in
// every seat's view.
#[test]
fn r_score_3_report_items_total_and_cumulative() {
    let (g, events) = scored_deal(vec![1000, 2000]);
    let report = g.history()[0].clone();
    assert_eq!(deal_ended(&events), report);
    assert_eq!(report.deal, 0);
    assert_eq!(report.sides.len(), 2);
    for (i, s) in report.sides.iter().enumerate() {
        assert_eq!(s.side as usize, i);
        assert_eq!(s.total, s.sum_of_items(), "side {i}");
    }
    assert_eq!(report.sides[0].total, 955);
    assert_eq!(report.sides[1].total, -315);
    assert_eq!(report.sides[0].cumulative, 1955);
    assert_eq!(report.sides[1].cumulative, 1685);
    assert_eq!(g.scores(), &[1955, 1685]);
    for v in [Viewer::Seat(Seat(1)), Viewer::Spectator] {
        let view = g.view(v);
        assert_eq!(view.last_deal.as_ref(), Some(&report), "{v:?}");
        assert_eq!(view.sides[0].score, 1955);
        assert_eq!(view.sides[1].score, 1685);
    }
}

// ---------------------------------------------------------------------------------------------
// R-SCORE-2: the match

// R-SCORE-2: scores accumulate over deals.
#[test]
fn r_score_2_scores_accumulate() {
    // Deal 0: seat 0 goes out concealed (side 0 +700, side 1 -165). Deal 1 (seat 1 first): the
    // same hands one seat on, so seat 1 goes out concealed (side 1 +700, side 0 -165).
    let deal1 = [CONCEALED[3], CONCEALED[0], CONCEALED[1], CONCEALED[2]];
    let mut g = deals_game(
        spec(4, &[]),
        &[(CONCEALED, "7D", "QC"), (deal1, "7D", "QC")],
        vec![],
    );
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, concealed_out());
    assert_eq!(g.scores(), &[700, -165]);
    assert_eq!(g.to_act(), Some(Seat(1)));
    act(&mut g, 1, Action::DrawStock);
    act(&mut g, 1, concealed_out());
    let h = g.history();
    assert_eq!(h.len(), 2);
    assert_eq!((h[1].sides[0].total, h[1].sides[1].total), (-165, 700));
    assert_eq!(
        (h[1].sides[0].cumulative, h[1].sides[1].cumulative),
        (535, 535)
    );
    assert_eq!(g.scores(), &[535, 535]);
    assert_eq!(g.phase(), Phase::Draw);
    assert_eq!(g.deal_number(), 2);
}

// R-SCORE-2: the match ends after the deal in which a side reaches the target (5000), exactly
// reached included; the highest total wins; nothing more can be done.
#[test]
fn r_score_2_match_ends_at_target() {
    let mut g = concealed_game(&[], vec![4300, 0]);
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, concealed_out());
    assert_eq!(g.scores(), &[5000, -165]);
    assert_eq!(g.phase(), Phase::Over);
    assert_eq!(g.winner(), Some(Side(0)));
    assert_eq!(g.to_act(), None);
    assert_eq!(
        events.last(),
        Some(&Event::MatchEnded {
            winner: Side(0),
            totals: vec![5000, -165]
        })
    );
    assert!(!events.iter().any(|e| matches!(e, Event::DealStarted(_))));
    assert_eq!(g.history().len(), 1);
    refuse(&mut g, 1, Action::DrawStock, "MATCH_OVER");
    assert!(legal(&g).is_empty());
}

// R-SCORE-2: below the target the match goes on.
#[test]
fn r_score_2_below_target_goes_on() {
    let mut g = concealed_game(&[], vec![4299, 0]);
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, concealed_out());
    assert_eq!(g.scores(), &[4999, -165]);
    assert_eq!(g.phase(), Phase::Draw);
    assert_eq!(g.winner(), None);
    assert!(!events.iter().any(|e| matches!(e, Event::MatchEnded { .. })));
    assert_eq!(g.deal_number(), 1);
}

// R-SCORE-2: the side with the higher total wins, even if the other side went out.
#[test]
fn r_score_2_highest_total_wins() {
    let mut g = concealed_game(&[], vec![3000, 5200]);
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, concealed_out());
    assert_eq!(g.scores(), &[3700, 5035]);
    assert_eq!(g.phase(), Phase::Over);
    assert_eq!(g.winner(), Some(Side(1)));
    assert!(events.contains(&Event::MatchEnded {
        winner: Side(1),
        totals: vec![3700, 5035]
    }));
}

// R-SCORE-2: equal totals at or above the target: another deal is played.
#[test]
fn r_score_2_tie_above_target_plays_another_deal() {
    // Side 0 scores +700, side 1 -165: both end on 6000.
    let mut g = concealed_game(&[], vec![5300, 6165]);
    act(&mut g, 0, Action::DrawStock);
    let events = act(&mut g, 0, concealed_out());
    assert_eq!(g.scores(), &[6000, 6000]);
    assert_ne!(g.phase(), Phase::Over);
    assert_eq!(g.winner(), None);
    assert!(!events.iter().any(|e| matches!(e, Event::MatchEnded { .. })));
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::DealStarted(s) if s.deal == 1))
    );
    assert_eq!(g.deal_number(), 1);
    assert_eq!(g.to_act(), Some(Seat(1)));
    // Both sides start the new deal at the top minimum.
    assert_eq!((g.minimum(Side(0)), g.minimum(Side(1))), (120, 120));
}

// R-SCORE-2 with option target_score: the match goes to 7500.
#[test]
fn r_score_2_target_score_option() {
    let opts = [("target_score", "7500")];
    let mut g = concealed_game(&opts, vec![6000, 0]);
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, concealed_out());
    assert_eq!(g.scores(), &[6700, -165]);
    assert_eq!(g.phase(), Phase::Draw);
    assert_eq!(g.winner(), None);

    let mut g = concealed_game(&opts, vec![6800, 0]);
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, concealed_out());
    assert_eq!(g.scores(), &[7500, -165]);
    assert_eq!(g.phase(), Phase::Over);
    assert_eq!(g.winner(), Some(Side(0)));
}

// ---------------------------------------------------------------------------------------------
// R-OUT-1: "can I go out now?" is answered exactly, whatever the size of the hand.

/// Seat 2 lays a natural canasta of kings for side 0; seat 0 then draws 5D, lays 5S 5H 5D and
/// holds QS QH QD JS JH JD 9S 9H 9D: nine cards, three melds to go out with.
fn nine_cards_to_go_out() -> Game {
    let mut g = arranged(
        4,
        &[],
        &[
            "QS QH QD JS JH JD 9S 9H 9D 5S 5H",
            "",
            "KS KS KH KH KD KD KC",
            "",
        ],
        "7D",
        "8C 4S 6S 4D 5D",
    );
    pass(&mut g, &[0, 1]);
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, meld(&[new_meld("KS KS KH KH KD KD KC")]));
    act(&mut g, 2, discard("6S"));
    pass(&mut g, &[3]);
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("5S 5H 5D")]));
    assert_eq!(*g.hand(Seat(0)), cards("QS QH QD JS JH JD 9S 9H 9D"));
    assert!(g.melds(Side(0))[0].is_canasta());
    g
}

// R-OUT-1 (a regression): with nine cards in hand (more than the canonical list shows going outs
// for), `check` accepted going out while the prompt said it was impossible. The summary and
// `first_go_out` now say yes, and the going out they offer is legal and ends the deal.
#[test]
fn r_out_1_can_go_out_with_a_big_hand() {
    let mut g = nine_cards_to_go_out();
    let out = go_out(
        &[
            new_meld("QS QH QD"),
            new_meld("JS JH JD"),
            new_meld("9S 9H 9D"),
        ],
        None,
    );
    assert_eq!(g.check(Seat(0), &out), Ok(()));
    let legal = g.legal().unwrap();
    assert!(legal.summary().can_go_out, "the prompt must say yes");
    assert!(legal.can_go_out());
    let offered = legal.first_go_out().expect("a going out");
    assert_eq!(g.check(Seat(0), &offered), Ok(()));
    // The seat's own view answers the same.
    let view = g.view(Viewer::Seat(Seat(0)));
    assert!(view.legal().unwrap().summary().can_go_out);
    let events = act(&mut g, 0, offered);
    assert!(events.iter().any(|e| matches!(e, Event::WentOut { .. })));
}

// R-OUT-1: the same big hand without the side's canasta cannot go out, and the prompt says so.
#[test]
fn r_out_1_big_hand_without_canasta_cannot_go_out() {
    let mut g = arranged(
        4,
        &[],
        &["QS QH QD JS JH JD 9S 9H 9D 5S 5H", "", "AS AH AD", ""],
        "7D",
        "8C 4S 6S 4D 5D",
    );
    pass(&mut g, &[0, 1]);
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, meld(&[new_meld("AS AH AD")]));
    act(&mut g, 2, discard("6S"));
    pass(&mut g, &[3]);
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("5S 5H 5D")]));
    let legal = g.legal().unwrap();
    assert!(!legal.summary().can_go_out);
    assert_eq!(legal.first_go_out(), None);
    refuse(
        &mut g,
        0,
        go_out(
            &[
                new_meld("QS QH QD"),
                new_meld("JS JH JD"),
                new_meld("9S 9H 9D"),
            ],
            None,
        ),
        "NOT_ENOUGH_CANASTAS",
    );
}
