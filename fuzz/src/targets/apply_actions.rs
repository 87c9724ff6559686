//! Arbitrary actions on arbitrary reachable games: a game of any preset and player count is
//! played some random legal steps, then actions decoded from the bytes are applied, as engine
//! actions or as wire `canasta.v1.Action`s converted by `canasta_proto::convert`.
//!
//! Nothing may panic; a refused action leaves the state hash as it was; an accepted one was
//! accepted by `check` first and keeps every card of the pack; the choices a server prompts
//! with (the summary, a list cut at 2000) are found with bounded work in every state reached.

use arbitrary::Unstructured;
use canasta_engine::Game;
use canasta_engine::rng::Xoshiro256;
use canasta_proto::{convert, v1};
use prost::Message;

/// Runs the target on one input.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = play(&mut u);
}

fn play(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    let Some(mut game) = crate::reachable_game(u)? else {
        return Ok(());
    };
    let pack = game.all_cards();
    let mut rng = Xoshiro256::seed_from_u64(u.arbitrary()?);
    let mut legal = Vec::new();
    while !u.is_empty() {
        let seat = crate::seat(u, &game)?;
        let action = if u.ratio(1, 4)? {
            // Wire bytes, as a client would send them.
            let len = u.arbitrary_len::<u8>()?;
            let bytes = u.bytes(len)?;
            let Ok(wire) = v1::Action::decode(bytes) else {
                continue;
            };
            match convert::action_from_wire(&wire) {
                Ok(a) => a,
                Err(_) => continue,
            }
        } else {
            let hand = *game.hand(seat_in_table(&game, seat));
            crate::action(u, &hand)?
        };
        apply_checked(&mut game, seat, &action, &pack);
        prompt(&game);
        if u.ratio(1, 3)? && !crate::random_step(&mut game, &mut rng, &mut legal) {
            break;
        }
    }
    Ok(())
}

/// What a server computes for a prompt: the summary, and the list of actions cut at 2000.
/// Both must be bounded (a fuzzer input once made the list run out of memory), and what they
/// offer must be legal.
fn prompt(game: &Game) {
    let Some(legal) = game.legal() else {
        return;
    };
    let summary = legal.summary();
    let mut listed = Vec::new();
    legal.actions_up_to(&mut listed, 2000);
    assert!(listed.len() <= 2000);
    for a in &listed {
        assert_eq!(legal.check(a), Ok(()), "listed {a} is refused");
    }
    assert_eq!(
        summary.can_draw,
        legal.check(&canasta_engine::Action::DrawStock).is_ok()
    );
}

/// A seat of the table to borrow a hand from (the action itself may name any seat).
fn seat_in_table(game: &Game, seat: canasta_engine::Seat) -> canasta_engine::Seat {
    canasta_engine::Seat(seat.0 % game.table().players())
}

fn apply_checked(
    game: &mut Game,
    seat: canasta_engine::Seat,
    action: &canasta_engine::Action,
    pack: &canasta_engine::CardCounts,
) {
    let before = game.state_hash();
    let checked = game.check(seat, action);
    match game.apply(seat, action) {
        Err(e) => {
            assert_eq!(
                game.state_hash(),
                before,
                "refused {action} changed the game"
            );
            assert_eq!(checked, Err(e), "check and apply disagree on {action}");
        }
        Ok(_) => {
            assert_eq!(checked, Ok(()), "{action} applied but check refused it");
            assert_eq!(
                &game.all_cards(),
                pack,
                "{action} lost or duplicated a card"
            );
        }
    }
}
