//! GetReplayStep: a finished game, step by step, with every hand shown, for a viewer without a
//! rules engine (the web page's replay). Each step is the record replayed to it: every card of
//! the pack is somewhere on the table (hands, melds, the pile, red threes, the stock), each
//! step's action is the record's, each deal's start is where its DealStarted is, and the last
//! step is the game's end with its result and scores. Refused before the end (a replay would
//! show the hands of a game still played), past the last step, and for an unknown game.

use canasta_proto::v1;
use canasta_proto::v1::game_event::Kind as Ev;
use canasta_tests::*;
use tonic::Code;

/// A two-player match short enough for a test: official rules, target 50.
fn short_match(seed: u64) -> v1::CreateGameRequest {
    v1::CreateGameRequest {
        rules: Some(rules(v1::Preset::Official, 2, &[("target_score", "50")])),
        seed: Some(seed),
        ..Default::default()
    }
}

async fn step(client: &mut Client, game_id: &str, step: u32) -> v1::GetReplayStepResponse {
    client
        .get_replay_step(v1::GetReplayStepRequest {
            game_id: game_id.to_string(),
            step,
        })
        .await
        .unwrap_or_else(|e| panic!("step {step}: {e:?}"))
        .into_inner()
}

/// Every card the view shows or counts: the hands (shown), melds, pile, red threes, stock.
fn cards_on_table(view: &v1::GameView) -> usize {
    let hands: usize = view
        .seats
        .iter()
        .map(|s| s.hand.len() + s.red_threes.len())
        .sum();
    let melds: usize = view
        .sides
        .iter()
        .flat_map(|s| &s.melds)
        .map(|m| m.cards.len())
        .sum();
    hands + melds + view.pile.len() + view.stock_count as usize
}

#[tokio::test]
async fn a_finished_game_replays_step_by_step_with_every_hand_shown() {
    let config = test_config()
        .requests_per_second(100_000.0)
        .address_requests_per_second(100_000.0)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let game = create_with(&mut client, short_match(7)).await;
    let id = game.game_id.clone();
    let tokens = join_all(&mut client, &game).await;
    // Before the end nobody may see every hand.
    refused(
        client
            .get_replay_step(v1::GetReplayStepRequest {
                game_id: id.clone(),
                step: 0,
            })
            .await,
        Code::FailedPrecondition,
        "GAME_NOT_FINISHED",
    );
    play_to_end(&mut client, &id, &tokens, 100_000, |_| 0).await;
    let record = client
        .export_game(v1::ExportGameRequest {
            game_id: id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .record
        .unwrap();
    let scores = client
        .get_scores(v1::GetScoresRequest {
            game_id: id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let pack = client
        .describe_rules(v1::DescribeRulesRequest {
            rules: record.rules.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .pack_size as usize;

    let first = step(&mut client, &id, 0).await;
    let steps = record.actions.len() as u32;
    assert_eq!(first.steps, steps);
    assert_eq!(
        first.deal_steps.len(),
        scores.deals.len(),
        "a start per deal"
    );
    assert_eq!(first.deal_steps[0], 0);
    assert!(first.action.is_none());
    let view = first.view.as_ref().unwrap();
    assert_eq!(view.viewer_seat, None);
    assert_eq!(view.status, v1::GameStatus::Playing as i32);
    for seat in &view.seats {
        assert!(seat.hand_count > 0);
        assert_eq!(
            seat.hand.len() as u32,
            seat.hand_count,
            "seat {} shown",
            seat.seat
        );
        assert_eq!(seat.display_name, format!("player {}", seat.seat));
    }
    assert!(
        first.events.iter().any(|e| matches!(&e.kind,
            Some(Ev::DealStarted(d)) if d.hands.iter().all(|h| h.cards.len() as u32 == h.count))),
        "the first deal's events show every hand: {:?}",
        first.events
    );

    let mut deal_starts = Vec::new();
    for i in 0..=steps {
        let s = step(&mut client, &id, i).await;
        assert_eq!((s.step, s.steps), (i, steps));
        assert_eq!(s.deal_steps, first.deal_steps, "the same at every step");
        let view = s.view.as_ref().unwrap();
        assert_eq!(
            cards_on_table(view),
            pack,
            "step {i}: every card is on the table"
        );
        for seat in &view.seats {
            assert_eq!(seat.hand.len() as u32, seat.hand_count, "step {i}");
        }
        assert!(s.events.iter().all(|e| e.seq == 0 && e.kind.is_some()));
        if i > 0 {
            assert_eq!(s.action.as_ref(), Some(&record.actions[i as usize - 1]));
            assert!(!s.events.is_empty(), "step {i}: its action's events");
            if s.events
                .iter()
                .any(|e| matches!(e.kind, Some(Ev::DealStarted(_))))
            {
                deal_starts.push(i);
            }
        }
        if i < steps {
            assert_eq!(view.status, v1::GameStatus::Playing as i32);
        } else {
            assert_eq!(view.status, v1::GameStatus::Finished as i32);
            assert_eq!(view.result, record.result, "the game's result");
            assert_eq!(
                view.sides.iter().map(|s| s.score).collect::<Vec<_>>(),
                scores.result.as_ref().unwrap().totals
            );
            assert_eq!(view.last_deal.as_ref(), scores.deals.last());
        }
    }
    assert_eq!(
        deal_starts,
        first.deal_steps[1..],
        "each deal starts where it is dealt"
    );

    // Past the end, and an unknown game.
    refused(
        client
            .get_replay_step(v1::GetReplayStepRequest {
                game_id: id.clone(),
                step: steps + 1,
            })
            .await,
        Code::InvalidArgument,
        "INVALID_INDEX",
    );
    refused(
        client
            .get_replay_step(v1::GetReplayStepRequest {
                game_id: "ffffffffffffffff".into(),
                step: 0,
            })
            .await,
        Code::NotFound,
        "GAME_NOT_FOUND",
    );
    server.stop().await;
}
