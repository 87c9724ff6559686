//! GetReplayStep: a finished game's table after a number of its actions, for a viewer that has
//! no rules engine of its own (the web page's replay).
//!
//! The step is rebuilt from the game's record (its export) by the engine, as any replay of a
//! record is, and shown through the engine's one redaction ([`Game::view`], [`redact`]) as the
//! referee sees it: every hand, since a finished game's record is public (the stock's order,
//! which the referee also knows, has no field on the wire). The work is one replay of the
//! record, bounded by the game's length, for each call.

use canasta_engine::{Game, Viewer, redact};
use canasta_proto::Reason;
use canasta_proto::convert::{self, ViewMeta, record_from_wire};
use canasta_proto::v1;

use crate::errors::ApiError;

/// The step `step` of the finished game whose record this is.
pub(super) fn step(
    record: &v1::GameRecord,
    step: u32,
) -> Result<v1::GetReplayStepResponse, ApiError> {
    let bad = |why: String| {
        ApiError::bad_log(format!(
            "game {}'s record does not replay: {why}",
            record.game_id
        ))
    };
    let steps = record.actions.len();
    let wanted = step as usize;
    if wanted > steps {
        return Err(ApiError::invalid(
            Reason::InvalidIndex,
            "step",
            format!(
                "step {step} is past the game's end: its record has {steps} actions, give 0 to {steps}"
            ),
        ));
    }
    let (setup, actions) = record_from_wire(record).map_err(|e| bad(e.to_string()))?;
    let (mut game, opening) = Game::start(&setup).map_err(|e| bad(e.to_string()))?;
    let mut deal_steps = vec![0u32];
    let mut deal = game.deal_number();
    let mut events = opening;
    let mut shown = None;
    if wanted == 0 {
        shown = Some((game.clone(), std::mem::take(&mut events)));
    }
    for (i, (seat, action)) in actions.iter().enumerate() {
        let caused = game
            .apply(*seat, action)
            .map_err(|e| bad(format!("action {i} is refused: {e}")))?;
        if game.deal_number() != deal {
            deal = game.deal_number();
            deal_steps.push(i as u32 + 1);
        }
        if i + 1 == wanted {
            shown = Some((game.clone(), caused));
        }
    }
    let (game, events) = shown.expect("the step is within the record");
    let last = wanted == steps;
    let names: Vec<String> = record.display_names.clone();
    let occupied: Vec<bool> = names.iter().map(|n| !n.is_empty()).collect();
    let meta = ViewMeta {
        game_id: &record.game_id,
        seq: 0,
        status: match last {
            true => v1::GameStatus::Finished,
            false => v1::GameStatus::Playing,
        },
        names: &names,
        occupied: &occupied,
        result: match (last, &record.result) {
            (true, Some(result)) => result.clone(),
            _ => convert::result_to_wire(game.winner(), game.scores()),
        },
    };
    let view = convert::view_to_wire(&game.view(Viewer::Referee), &meta);
    Ok(v1::GetReplayStepResponse {
        step,
        steps: steps as u32,
        deal_steps,
        view: Some(view),
        action: wanted.checked_sub(1).map(|i| record.actions[i].clone()),
        events: events
            .iter()
            .map(|e| v1::GameEvent {
                seq: 0,
                kind: convert::event_to_wire(&redact(e, Viewer::Referee)),
            })
            .collect(),
    })
}
