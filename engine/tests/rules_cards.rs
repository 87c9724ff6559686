//! R-CARD: the pack, the cards' classes and values, in play on seeded and prearranged deals (the
//! unit tests of `card.rs` check the same facts on the card types alone).
mod common;
use canasta_engine::card::CARD_KINDS;
use canasta_engine::event::RedThreeSource;
use canasta_engine::{
    Action, Card, Event, Game, MeldKind, Preset, Rank, RuleSpec, Rules, Seat, Setup, Side,
    SideScore,
};
use common::*;

// ---------------------------------------------------------------------------------------------
// R-CARD-1: two decks and four jokers, 108 cards; six jokers, or three decks with six.

/// The cards of a seeded game's pack, wherever they lie (hands, pile, stock, red threes laid),
/// checked card by card: `copies` of each of the 52 cards and `jokers` jokers.
fn check_pack(spec: RuleSpec, copies: u8, jokers: u8) {
    let label = format!(
        "{} {}p {:?}",
        spec.preset,
        spec.players,
        spec.options.entries()
    );
    let g = Game::new(&Setup::seeded(spec, 5)).unwrap_or_else(|e| panic!("{label}: {e}"));
    let all = g.all_cards();
    for i in 0..CARD_KINDS as u8 {
        let c = Card::from_index(i).unwrap();
        let want = if c == Card::JOKER { jokers } else { copies };
        assert_eq!(all.count(c), want, "{label}: {c}");
    }
    assert_eq!(all.len(), 52 * copies as usize + jokers as usize, "{label}");
    assert_eq!(all.len(), g.rules().pack_size(), "{label}");
}

// R-CARD-1: the official pack is two of every card and four jokers; `jokers=6` adds two jokers;
// three decks (six players in pairs, Samba, Swiss for four) hold three of every card and six
// jokers; three decks with four jokers are refused when the game is created.
#[test]
fn r_card_1_the_pack_in_play() {
    check_pack(spec(4, &[]), 2, 4);
    check_pack(spec(2, &[]), 2, 4);
    check_pack(spec(4, &[("jokers", "6")]), 2, 6);
    check_pack(spec(6, &[]), 3, 6);
    check_pack(spec(4, &[("decks", "3"), ("jokers", "6")]), 3, 6);
    check_pack(RuleSpec::new(Preset::Samba, 4), 3, 6);
    check_pack(RuleSpec::new(Preset::Swiss, 4), 3, 6);
    check_pack(RuleSpec::new(Preset::Swiss, 3), 2, 4);
    // `decks=3` alone is the three-deck pack, six jokers, for every player count (the jokers
    // follow the decks unless named). (Regression: it kept the preset's four jokers and was
    // refused.)
    for players in 2..=6 {
        check_pack(spec(players, &[("decks", "3")]), 3, 6);
        let rules = Rules::new(&spec(players, &[("decks", "3")])).unwrap();
        assert_eq!(
            rules.red_three_scores.values().len(),
            7,
            "{players} players"
        );
    }
    check_pack(
        RuleSpec::new(Preset::Swiss, 2).with("decks", "3").unwrap(),
        3,
        6,
    );
    // Two decks named for a three-deck preset keep its six jokers (Rasche a's pack).
    check_pack(
        RuleSpec::new(Preset::Samba, 4).with("decks", "2").unwrap(),
        2,
        6,
    );
    // Three decks with four jokers named are refused, saying what is played; so is any other
    // number of decks.
    let err = Rules::new(&spec(4, &[("decks", "3"), ("jokers", "4")])).unwrap_err();
    assert_eq!(err.code(), "OPTION_CONFLICT");
    assert!(
        err.to_string().contains("jokers=4 with decks=3") && err.to_string().contains("6 jokers"),
        "{err}"
    );
    let err = Rules::new(&spec(4, &[("decks", "4")])).unwrap_err();
    assert_eq!(err.code(), "OPTION_CONFLICT");
    assert!(err.to_string().contains("2 or 3 decks"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// R-CARD-2: jokers and twos are wild, red threes bonus cards, black threes stop cards, fours to
// aces natural.

/// Seat 0 is dealt a red three, a black three, pairs of kings and queens, a two and a joker.
fn classes_deal() -> Game {
    arranged(
        4,
        &[],
        &["KS KH 2C QS QH Jk 3H 3S 7D 8D 9C", "", "", ""],
        "6D",
        "10C 4S 5S",
    )
}

// R-CARD-2: the red three is laid at once as a bonus card and replaced; the two and the joker
// stand in for a third king and a third queen; a natural card stands in for nothing (a king
// with a queen is no meld); a black three is no natural card (it melds only when going out)
// and, discarded, stops the pile for the next player.
#[test]
fn r_card_2_wild_cards_bonus_and_stop_cards_in_play() {
    let mut g = classes_deal();
    // The red three was laid when seat 0's first turn began, and replaced from the stock.
    assert_eq!(*g.red_threes(Seat(0)), cards("3H"));
    assert!(g.hand(Seat(0)).contains(&cards("10C")));
    assert_eq!(g.hand(Seat(0)).red_threes(), 0);
    act(&mut g, 0, Action::DrawStock);
    refuse(&mut g, 0, meld(&[new_meld("KS KH QS")]), "MIXED_RANKS");
    refuse(&mut g, 0, meld(&[new_meld("3S KS KH")]), "WRONG_RANK");
    let events = act(
        &mut g,
        0,
        meld(&[new_meld("KS KH 2C"), new_meld("QS QH Jk")]),
    );
    assert!(matches!(&events[0], Event::Melded { .. }));
    let melds = g.melds(Side(0));
    assert_eq!(melds[0].kind, MeldKind::Group(Rank::King));
    assert_eq!(
        (melds[0].cards.rank_count(Rank::King), melds[0].wilds()),
        (2, 1)
    );
    assert_eq!(melds[1].kind, MeldKind::Group(Rank::Queen));
    assert_eq!((melds[1].cards.jokers(), melds[1].wilds()), (1, 1));
    // The black three discarded blocks the pile for seat 1, though it is not frozen.
    let events = act(&mut g, 0, discard("3S"));
    assert!(matches!(
        events[0],
        Event::Discarded {
            blocks: true,
            frozen: false,
            ..
        }
    ));
    refuse(&mut g, 1, take_new("", &[]), "PILE_BLOCKED");
}

// R-CARD-2: a red three drawn later is laid as a bonus card too, never held.
#[test]
fn r_card_2_red_three_drawn_is_laid() {
    let mut g = arranged(4, &[], &["", "", "", ""], "6D", "3D 9S");
    let events = act(&mut g, 0, Action::DrawStock);
    assert!(events.iter().any(|e| matches!(
        e,
        Event::RedThreeLaid {
            source: RedThreeSource::Drawn,
            ..
        }
    )));
    assert_eq!(*g.red_threes(Seat(0)), cards("3D"));
    assert_eq!(g.hand(Seat(0)).red_threes(), 0);
    assert!(g.hand(Seat(0)).contains(&cards("9S")));
}

// ---------------------------------------------------------------------------------------------
// R-CARD-3: joker 50; ace and two 20; king to eight 10; seven to four and black three 5; red
// threes no card value.

/// Hands of a deal in which seat 0 draws QC and goes out concealed (R-OUT-4) with a natural
/// canasta of kings and four queens, discarding 9C. Seat 1 never has a turn and still holds a
/// red three.
const VALUES: [&str; 4] = [
    "KS KS KH KH KD KD KC QS QH QD 9C",
    "Jk 2C AS KC 8S 7S 4S 3S 3C 3H 10D",
    "AH AD 5C 6C 7C 8C 9S 10S JS JD 4D",
    "2D 2H Jk 5S 6S 7H 8H 9H 10H JH 4H",
];

// R-CARD-3: the deal's itemised score counts every card at its value: the melded kings and
// queens at 10, the cards left in hand at 50 (joker), 20 (ace, two), 10 (king to eight), 5
// (seven to four, black three), and the red three left in a hand at nothing.
#[test]
fn r_card_3_values_in_the_itemised_score() {
    let mut g = arranged(4, &[], &VALUES, "7D", "QC");
    act(&mut g, 0, Action::DrawStock);
    let events = act(
        &mut g,
        0,
        go_out(
            &[new_meld("KS KS KH KH KD KD KC"), new_meld("QS QH QD QC")],
            Some("9C"),
        ),
    );
    let score = deal_ended(&events);
    let (ours, theirs) = (score.sides[0], score.sides[1]);
    // Eleven melded cards, kings and queens: 11 × 10.
    assert_eq!(ours.melded_cards, 110);
    // Seat 2: A A (20 each), 8 9 10 J J (10 each), 5 6 7 4 (5 each).
    assert_eq!(ours.cards_in_hand, -(2 * 20 + 5 * 10 + 4 * 5));
    // Seat 1: Jk 50, 2 and A 20, K 8 10 10, 7 4 and the black threes 5, the red three 0.
    // Seat 3: Jk 50, two 2s 20, 8 9 10 J 10, 5 6 7 4 5.
    let seat1 = 50 + 2 * 20 + 3 * 10 + 4 * 5;
    let seat3 = 50 + 2 * 20 + 4 * 10 + 4 * 5;
    assert_eq!(theirs.cards_in_hand, -(seat1 + seat3));
    assert_eq!(theirs.red_threes, 0, "a red three never laid is no bonus");
    assert_eq!(
        (ours.canasta_bonus, ours.going_out_bonus, ours.total),
        (500, 200, 110 + 500 + 200 - 110)
    );
    assert_eq!(theirs.total, -(seat1 + seat3));
}

// ---------------------------------------------------------------------------------------------
// R-CARD-4: suits matter only for red and black threes (and sequences): cards of a rank are
// interchangeable, whatever their suit, and two cards of one rank and suit are alike.

/// The VALUES deal with the suits of every card but the threes moved round (spades to hearts,
/// hearts to diamonds, diamonds to clubs, clubs to spades).
fn other_suits(text: &str) -> String {
    text.split_whitespace()
        .map(|t| {
            if t.starts_with('3') || t == "Jk" {
                return t.to_string();
            }
            let (rank, suit) = t.split_at(t.len() - 1);
            let suit = match suit {
                "S" => "H",
                "H" => "D",
                "D" => "C",
                _ => "S",
            };
            format!("{rank}{suit}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Plays the VALUES deal (its suits changed by `suits`): seat 0 draws and goes out. Returns the
/// score of each side.
fn values_deal(suits: fn(&str) -> String) -> Vec<SideScore> {
    let hands: Vec<String> = VALUES.iter().map(|h| suits(h)).collect();
    let hands: Vec<&str> = hands.iter().map(String::as_str).collect();
    let mut g = arranged(4, &[], &hands, &suits("7D"), &suits("QC"));
    act(&mut g, 0, Action::DrawStock);
    let events = act(
        &mut g,
        0,
        go_out(
            &[
                new_meld(&suits("KS KS KH KH KD KD KC")),
                new_meld(&suits("QS QH QD QC")),
            ],
            Some(&suits("9C")),
        ),
    );
    deal_ended(&events).sides
}

// R-CARD-4: the deal played with every suit changed scores exactly the same, item by item;
// the canasta of kings, two of them of one rank and suit, is natural either way.
#[test]
fn r_card_4_suits_are_interchangeable() {
    let same = values_deal(|t| t.to_string());
    let moved = values_deal(other_suits);
    assert_eq!(same, moved);
    assert_eq!(same[0].natural_canastas, 1);
    // Two K♠ in one hand are alike: a meld of both is a meld of two kings, and the hand keeps
    // no trace of which was which.
    let mut g = arranged(4, &[], &VALUES, "7D", "QC");
    act(&mut g, 0, Action::DrawStock);
    act(&mut g, 0, meld(&[new_meld("KS KS KH KH KD KD")]));
    assert_eq!(g.melds(Side(0))[0].cards.rank_count(Rank::King), 6);
    assert_eq!(g.hand(Seat(0)).count(card("KS")), 0);
}
