//! What the actor's unit tests share: a game, its seats joined, bots' actions, a match played
//! to its end, and waits on tokio's clock.

use std::sync::Arc;

use canasta_engine::bot::{Bot, GreedyBot};
use canasta_engine::{Seat, Viewer};
use canasta_proto::convert::action_to_wire;
use canasta_proto::v1;

use super::{Actor, Rebuilds, Status, Subscription};
use crate::auth::Token;
use crate::config::Config;
use crate::metrics::Metrics;
use crate::store::Store;

/// Until `deadline`; for ever if there is none.
pub(super) async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// A short two-player match with a move budget (for a time-out entry), on memory storage.
pub(super) fn actor() -> Actor {
    let request = v1::CreateGameRequest {
        rules: Some(v1::RuleSet {
            preset: v1::Preset::Official as i32,
            player_count: 2,
            options: [("target_score", "1500"), ("canastas_to_go_out", "1")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }),
        seed: Some(7),
        time_control: Some(v1::TimeControl {
            move_budget_ms: 60_000,
            policy: v1::TimeoutPolicy::FallbackMove as i32,
        }),
        ..Default::default()
    };
    let config = Arc::new(Config::for_tests());
    let mut actor = Actor::new(
        "g".into(),
        1,
        request,
        Store::memory(),
        config,
        Metrics::new(),
    )
    .expect("a valid game");
    actor.share_rebuilds(Rebuilds::new());
    actor
}

/// Takes `seat` for a player named after it; returns its token.
pub(super) async fn join(actor: &mut Actor, seat: u32) -> Token {
    let joined = actor.join(Some(seat), format!("player {seat}")).await;
    Token::from_stored(joined.expect("a free seat").token)
}

/// The last action applied: its seat, request id, action and first answer.
pub(super) struct Last {
    pub(super) seat: Seat,
    pub(super) request_id: String,
    pub(super) action: v1::Action,
    pub(super) answer: v1::SubmitActionResponse,
}

/// Plays the match to its end with greedy bots, with every kind of entry on the way: joins,
/// a seat left and taken again, a time-out, actions. Returns the tokens by seat, the last
/// action, and a spectator's subscription made before the first entry.
pub(super) async fn play_to_end(actor: &mut Actor) -> (Vec<Token>, Last, Subscription) {
    let watching = match actor.subscribe(None, 0, false, false) {
        Ok(sub) => sub,
        Err(e) => panic!("a spectator watches: {e:?}"),
    };
    let mut tokens = vec![join(actor, 0).await, join(actor, 1).await];
    let mut bots = [GreedyBot::new(), GreedyBot::new()];
    let mut last = None;
    for n in 0.. {
        if actor.status == Status::Finished {
            break;
        }
        assert!(n < 5000, "the match ends");
        if n == 3 {
            actor.leave(&tokens[1]).await.expect("a seat is left");
            tokens[1] = join(actor, 1).await;
        }
        if n == 6 {
            actor.time_out().await;
            continue;
        }
        let seat = actor.game.to_act().expect("a seat to act");
        let action = bot_action(actor, seat, &mut bots[seat.index()]);
        let request_id = format!("r{n}");
        let answer = actor
            .submit(
                &tokens[seat.index()],
                actor.seq(),
                request_id.clone(),
                &action,
                true,
            )
            .await
            .expect("the bot's action is applied");
        last = Some(Last {
            seat,
            request_id,
            action,
            answer,
        });
    }
    (tokens, last.expect("actions were played"), watching)
}

/// The action `bot` chooses for `seat`, the seat to act.
pub(super) fn bot_action(actor: &Actor, seat: Seat, bot: &mut impl Bot) -> v1::Action {
    let view = actor.game.view(Viewer::Seat(seat));
    let legal = actor.game.legal().expect("choices");
    action_to_wire(&bot.choose(&view, &legal))
}
