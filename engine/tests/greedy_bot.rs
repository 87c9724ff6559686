//! The `greedy` bot's choices in arranged deals: each test pins one of the changes the search
//! bot's games taught it (docs/bots.md, "What greedy learned from it"), and fails if that
//! change is undone. The rule ids name the rules each position relies on; the bot itself knows
//! the rules only through its legal actions.

mod common;

use canasta_engine::bot::{Bot, GreedyBot};
use canasta_engine::{Action, DealEnd, Game, Rank, Seat, Viewer};
use common::{act, arranged, card, cards, discard, list, meld, new_meld, pass, take_new};

/// What `bot` chooses for the seat to act; the action is legal.
fn choose(bot: &mut GreedyBot, game: &Game) -> Action {
    let seat = game.to_act().expect("a seat to act");
    let view = game.view(Viewer::Seat(seat));
    let legal = view.legal().expect("the seat to act has choices");
    let action = bot.choose(&view, &legal);
    assert_eq!(legal.check(&action), Ok(()), "{action}");
    action
}

/// Lets `bot` play the seat to act: its choice, applied.
fn bot_plays(bot: &mut GreedyBot, game: &mut Game) -> Action {
    let seat = game.to_act().expect("a seat to act");
    let action = choose(bot, game);
    act(game, seat.0, action.clone());
    action
}

/// Seat 0, four players, official rules: draws, lays a mixed canasta of kings as its initial
/// meld (R-INIT-1, R-MELD-5) and discards `discarded`.
fn kings_canasta_first(game: &mut Game, discarded: &str) {
    act(game, 0, Action::DrawStock);
    act(game, 0, meld(&[new_meld("KC KD KH KS KC KD Jk")]));
    act(game, 0, discard(discarded));
}

// R-OUT-1, R-DEAL-2 (one canasta to go out with four players), R-MELD-1, R-PILE-3: with a
// mixed canasta of kings laid, seat 0 takes a frozen pile of six with a pair of nines and holds
// seven cards: two pairs, two twos and a four. Going out melds both pairs with a two and
// discards the four. The bot looks for it in a hand of up to seven cards: with four, as it once
// did, it would discard, as its melds lay no pair with a wild card after the initial meld and
// so never bring the hand down to four.
#[test]
fn going_out_is_found_in_a_hand_of_seven_cards() {
    let mut game = arranged(
        4,
        &[],
        &["KC KD KH KS KC KD Jk 9D 9H 8C 8D"],
        "2D 5C",
        "5D 2C 4S 9S",
    );
    assert_eq!(game.pile(), list("2D 5C").as_slice());
    kings_canasta_first(&mut game, "5D");
    pass(&mut game, &[1, 2, 3]);
    assert_eq!(game.pile().last(), Some(&card("9S")));
    assert!(game.pile_frozen());
    let mut bot = GreedyBot::new();
    assert_eq!(bot_plays(&mut bot, &mut game), take_new("9D 9H", &[]));
    assert_eq!(*game.hand(Seat(0)), cards("8C 8D 2D 5C 5D 2C 4S"));
    let a = bot_plays(&mut bot, &mut game);
    assert!(matches!(a, Action::GoOut { .. }), "{a}");
    assert_eq!(
        game.history().last().map(|d| d.end),
        Some(DealEnd::WentOut {
            seat: Seat(0),
            concealed: false
        }),
        "{a}"
    );
}

// R-PILE-4 (b), R-PILE-2: seat 0's side has melded, and the pile (three natural cards, none
// wild: not frozen) shows a seven; seat 0 holds one seven and a two. The bot takes the pile
// with them, where it once waited for a pile of five. Seat 1 took the pile before (R-PILE-3,
// R-INIT-3: a pair of aces for its initial meld), so that it holds three cards.
#[test]
fn an_unfrozen_pile_of_three_is_taken_with_a_natural_and_a_wild_card() {
    let mut game = arranged(
        4,
        &[],
        &[
            "KC KD KH KS KC KD Jk 7C 2S 4D 5H",
            "AC AD QS 4C 5C 6C 8C 9C 10C JC 6D",
        ],
        "8S",
        "AS 4H 7D",
    );
    kings_canasta_first(&mut game, "AS");
    act(&mut game, 1, take_new("AC AD", &[]));
    act(&mut game, 1, discard("QS"));
    pass(&mut game, &[2, 3]);
    assert_eq!(game.pile(), list("QS 4H 7D").as_slice());
    assert!(!game.pile_frozen());
    assert_eq!(choose(&mut GreedyBot::new(), &game), take_new("7C 2S", &[]));
}

// R-TURN-4, R-PILE-1, R-PILE-3: a black three blocks the pile for the next player only, so the
// bot keeps it while it holds a card no opponent can use. Six queens lie in the pile and seat 0
// holds a seventh: the eighth alone cannot take the pile (with no opponent melded, a pair is
// needed), so the queen goes first. With those queens elsewhere nothing in the hand is as safe,
// and the black three goes first, as it always did.
#[test]
fn a_card_no_opponent_can_use_goes_before_a_black_three() {
    for queens in [true, false] {
        let (upcard, stock) = if queens {
            ("QH", "AS QS QD QC AD QH QS 8C AH")
        } else {
            ("6H", "AS 8S 8H 7S AD 7H 8S 8C AH")
        };
        let mut game = arranged(
            4,
            &[],
            &["3C QC 4D 5H 6S 7C 8D 9H 10S JC KH"],
            upcard,
            stock,
        );
        for drawn in ["AS", "AD"] {
            act(&mut game, 0, Action::DrawStock);
            act(&mut game, 0, discard(drawn));
            pass(&mut game, &[1, 2, 3]);
        }
        act(&mut game, 0, Action::DrawStock);
        let queens_seen = game
            .pile()
            .iter()
            .filter(|c| c.rank() == Rank::Queen)
            .count();
        assert_eq!(queens_seen, if queens { 6 } else { 0 });
        let expected = if queens { "QC" } else { "3C" };
        assert_eq!(
            choose(&mut GreedyBot::new(), &game),
            discard(expected),
            "queens in the pile: {queens}"
        );
    }
}
