//! The server's operation end to end: storage across restarts, time controls, the limits
//! (games, message size, request rate), grpc.health.v1, server reflection, Prometheus metrics
//! and graceful shutdown.
//!
//! The expected events come from the engine itself: a [`Replica`] plays the same setup and
//! actions in-process, so a game after a restart is compared with what it must be, event by
//! event.

mod clock;

use std::net::SocketAddr;
use std::time::Duration;

use canasta_engine::{Action, Game, Seat, Viewer};
use canasta_proto::convert::{action_to_wire, card_list_to_wire};
use canasta_proto::v1;
use canasta_proto::v1::game_event::Kind as Ev;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use canasta_tests::replica::*;
use canasta_tests::*;
use clock::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tonic::transport::Channel;
use tonic::{Code, Status, Streaming};
use tonic_types::StatusExt;

// ----- the engine's copy of a game -----

// ----- games -----

/// A seeded two-player game with a time control.
fn timed(seed: u64, budget_ms: u64, policy: v1::TimeoutPolicy) -> v1::CreateGameRequest {
    v1::CreateGameRequest {
        time_control: Some(v1::TimeControl {
            move_budget_ms: budget_ms,
            policy: policy as i32,
        }),
        ..seeded(seed)
    }
}

// ----- requests -----

async fn list(client: &mut Client) -> v1::ListGamesResponse {
    client
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("the games")
        .into_inner()
}

/// The request submitting `action` of a seat at the replica's seq.
fn submission(game_id: &str, replica: &Replica, action: &Action) -> v1::SubmitActionRequest {
    v1::SubmitActionRequest {
        game_id: game_id.to_string(),
        expected_seq: replica.seq(),
        request_id: format!("a{}", replica.seq()),
        action: Some(action_to_wire(action)),
    }
}

/// Opens a watch stream, as a seat (with its token) or a spectator.
async fn watch(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
    after_seq: u64,
) -> Streaming<v1::WatchGameResponse> {
    open_watch(client, game_id, token, after_seq, false)
        .await
        .expect("a watch stream")
}

// ----- storage and restart -----

// After a graceful restart on the same database every game is back where it was: listed, the
// same seq, views and hands; play goes on; a request applied before the restart is answered
// from the log when retried, not applied again; a watcher resumes after its last seq.
#[tokio::test]
async fn a_restarted_server_has_every_game_where_it_was() {
    let dir = temp_dir("ops-restart");
    let db = dir.path().join("canasta.db");
    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let (id, tokens, mut replica) = started(&mut client, seeded(101)).await;
    // A game waiting for its second player.
    let waiting = create_with(&mut client, seeded(102)).await;
    client
        .join_game(v1::JoinGameRequest {
            game_id: waiting.game_id.clone(),
            seat: Some(0),
            display_name: "early".into(),
        })
        .await
        .expect("a seat");
    plain_moves(&mut client, &id, &tokens, &mut replica, 9).await;
    let mut watcher = watch(&mut client, &id, Some(&tokens[0]), 0).await;
    read_until(&mut watcher, replica.seq()).await;
    // The last action before the restart.
    let (s, action) = replica.plain_move();
    let last_request = submission(&id, &replica, &action);
    let last_answer = act(&mut client, &id, &tokens, &mut replica, s, &action).await;
    let seen = events(&read_until(&mut watcher, replica.seq()).await)
        .last()
        .expect("an event")
        .seq;
    assert_eq!(seen, replica.seq());

    let games = list(&mut client).await;
    assert_eq!(games.games.len(), 2);
    let mut views = Vec::new();
    for token in [Some(tokens[0].as_str()), Some(tokens[1].as_str()), None] {
        views.push(view_of(&mut client, &id, token, true).await);
    }
    let waiting_summary = summary_of(&mut client, &waiting.game_id).await;
    server.stop().await;
    // The stream ended with the server, with nothing more.
    assert_eq!(events(&read_to_end(&mut watcher).await), vec![]);

    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    // The same games (their order is the_game_list_keeps_its_order_after_a_restart's concern).
    let by_id = |mut r: v1::ListGamesResponse| {
        r.games.sort_by(|a, b| a.game_id.cmp(&b.game_id));
        r
    };
    assert_eq!(by_id(list(&mut client).await), by_id(games));
    assert_eq!(
        summary_of(&mut client, &waiting.game_id).await,
        waiting_summary
    );
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    for (token, before) in [Some(tokens[0].as_str()), Some(tokens[1].as_str()), None]
        .into_iter()
        .zip(&views)
    {
        assert_eq!(view_of(&mut client, &id, token, true).await, *before);
    }
    assert_eq!(
        log_of(&mut client, &id, None).await,
        replica.events(Viewer::Spectator)
    );

    // The retried request is answered from the log, as the first time, and not applied.
    let retried = client
        .submit_action(authed(last_request, &tokens[s as usize]))
        .await
        .expect("a retry is answered")
        .into_inner();
    assert_eq!(retried, last_answer);
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    assert_eq!(
        view_of(&mut client, &id, Some(&tokens[0]), true).await,
        views[0]
    );

    // Play goes on, with the same tokens.
    plain_moves(&mut client, &id, &tokens, &mut replica, 4).await;
    // The watcher resumes after the last seq it saw.
    let mut resumed = watch(&mut client, &id, Some(&tokens[0]), seen).await;
    let got = events(&read_until(&mut resumed, replica.seq()).await);
    assert_eq!(got, replica.events_after(seat(0), seen));
    // The waiting game starts when its last seat is taken.
    let joined = client
        .join_game(v1::JoinGameRequest {
            game_id: waiting.game_id.clone(),
            seat: None,
            display_name: "late".into(),
        })
        .await
        .expect("the free seat")
        .into_inner();
    assert_eq!(joined.seat, 1);
    let game = joined.game.expect("a summary");
    assert_eq!(game.status, v1::GameStatus::Playing as i32);
    let opening = Game::start(&setup_of(&seeded(102))).expect("a setup").1;
    assert_eq!(game.seq, 3 + opening.len() as u64);
    assert_eq!(waiting_summary.seq, 1);
    server.stop().await;
}

// A finished game survives a restart: listed as finished, the same result and scores, and it
// exports the same record, from which the engine replays it exactly.
#[tokio::test]
async fn a_finished_game_survives_a_restart_and_exports() {
    let dir = temp_dir("ops-finished");
    let db = dir.path().join("canasta.db");
    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, mut replica) = started(&mut client, request.clone()).await;
    for (s, action) in &script {
        act(&mut client, &id, &tokens, &mut replica, *s, action).await;
    }
    let before = summary_of(&mut client, &id).await;
    assert_eq!(before.status, v1::GameStatus::Finished as i32);
    let export = |client: &mut Client| {
        let mut client = client.clone();
        let id = id.clone();
        async move {
            client
                .export_game(v1::ExportGameRequest { game_id: id })
                .await
                .expect("the record")
                .into_inner()
                .record
                .expect("a record")
        }
    };
    let scores = |client: &mut Client| {
        let mut client = client.clone();
        let id = id.clone();
        async move {
            client
                .get_scores(v1::GetScoresRequest { game_id: id })
                .await
                .expect("the scores")
                .into_inner()
        }
    };
    let record = export(&mut client).await;
    let score_sheet = scores(&mut client).await;
    server.stop().await;

    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    assert_eq!(summary_of(&mut client, &id).await, before);
    assert_eq!(export(&mut client).await, record);
    assert_eq!(scores(&mut client).await, score_sheet);
    assert_eq!(
        log_of(&mut client, &id, None).await,
        replica.events(Viewer::Spectator)
    );
    let finished = client
        .list_games(v1::ListGamesRequest {
            status: v1::GameStatus::Finished as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(finished.games, vec![before.clone()]);

    // The record replays exactly.
    assert_eq!(record.actions.len(), script.len());
    let actions: Vec<(Seat, Action)> = record
        .actions
        .iter()
        .map(|a| {
            (
                Seat(a.seat as u8),
                canasta_proto::convert::action_from_wire(a.action.as_ref().unwrap()).unwrap(),
            )
        })
        .collect();
    let replayed = Game::replay(&setup_of(&request), &actions).expect("the record replays");
    assert_eq!(replayed.state_hash(), replica.game.state_hash());
    assert_eq!(replayed.scores().to_vec(), record.result.unwrap().totals);
    server.stop().await;
}

// ListGames lists newest first, also after a restart, for games created within the same
// millisecond too (300 games, created one after the other).
#[tokio::test]
async fn the_game_list_keeps_its_order_after_a_restart() {
    let dir = temp_dir("ops-order");
    let db = dir.path().join("canasta.db");
    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let mut created = Vec::new();
    // Each creation is answered before the next is sent: the order is defined. On an idle
    // machine many of them share a millisecond (under load fewer do; the order must hold
    // either way, so that is not asserted).
    for seed in 0..300 {
        let g = create_with(&mut client, seeded(seed)).await;
        created.push(g.game_id);
    }
    let newest_first: Vec<String> = created.iter().rev().cloned().collect();
    let ids = |client: &mut Client| {
        let mut client = client.clone();
        async move {
            client
                .list_games(v1::ListGamesRequest {
                    page_size: 500,
                    ..Default::default()
                })
                .await
                .expect("the games")
                .into_inner()
                .games
                .into_iter()
                .map(|g| g.game_id)
                .collect::<Vec<String>>()
        }
    };
    assert_eq!(ids(&mut client).await, newest_first);
    server.stop().await;
    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    assert_eq!(ids(&mut client).await, newest_first);
    server.stop().await;
}

// ----- time controls -----

/// Reads a stream's next message, which must be a prompt.
async fn prompt(stream: &mut Streaming<v1::WatchGameResponse>) -> v1::Prompt {
    loop {
        match next_message(stream).await.expect("a message").kind.unwrap() {
            Msg::Prompt(p) => return p,
            Msg::Heartbeat(_) => continue,
            other => panic!("a prompt, not {other:?}"),
        }
    }
}

/// Asserts the time left to act is exactly `left` ms: the server's clock is paused, so the
/// time left is what the test moved the clock to, to the millisecond.
fn assert_time_left(t: Option<u64>, left: u64) {
    assert_eq!(t, Some(left), "the time left to act");
}

// With the fallback policy, a seat that does nothing times out: TimedOut, then the fallback
// bot's move, and play goes on. Views and prompts carry the time left to the seat to act only.
// The server's clock is paused: a seat times out when the test moves the clock past its
// budget, not a millisecond before.
#[tokio::test]
async fn a_timed_out_seat_gets_the_fallback_move_and_play_goes_on() {
    let server = paused(test_config().build().unwrap()).await;
    let mut client = server.client().await;
    let budget = 300;
    let request = timed(201, budget, v1::TimeoutPolicy::FallbackMove);
    let (id, tokens, mut replica) = started(&mut client, request).await;
    let opening = replica.seq();
    assert_eq!(
        summary_of(&mut client, &id).await.time_control,
        Some(v1::TimeControl {
            move_budget_ms: budget,
            policy: v1::TimeoutPolicy::FallbackMove as i32
        })
    );

    // Seat 0 must act: its view has time left; the others' views have none.
    let v0 = view_of(&mut client, &id, Some(&tokens[0]), false).await;
    assert!(v0.legal.is_some());
    assert_time_left(v0.time_left_ms, budget);
    let v1_ = view_of(&mut client, &id, Some(&tokens[1]), false).await;
    assert_eq!((v1_.legal, v1_.time_left_ms), (None, None));
    assert_eq!(
        view_of(&mut client, &id, None, false).await.time_left_ms,
        None
    );

    let mut seat0 = watch(&mut client, &id, Some(&tokens[0]), 0).await;
    read_until(&mut seat0, opening).await;
    let p = prompt(&mut seat0).await;
    assert_eq!((p.seq, p.seat), (opening, 0));
    assert_time_left(p.time_left_ms, budget);
    let mut spectator = watch(&mut client, &id, None, 0).await;
    read_until(&mut spectator, opening).await;

    // Seat 0 does nothing: a millisecond before its budget is spent nothing happens; then it
    // times out and the fallback bot draws for it.
    server.advance(Duration::from_millis(budget - 1)).await;
    let v0 = view_of(&mut client, &id, Some(&tokens[0]), false).await;
    assert_time_left(v0.time_left_ms, 1);
    assert_eq!(v0.view.map(|v| v.seq), Some(opening), "no time-out yet");
    server.advance(Duration::from_millis(1)).await;
    replica.time_out();
    let got = events(&read_until(&mut spectator, replica.seq()).await);
    assert_eq!(got, replica.events_after(Viewer::Spectator, opening));
    assert_eq!(
        got[0].kind,
        Some(Ev::TimedOut(v1::TimedOut {
            seat: 0,
            policy: v1::TimeoutPolicy::FallbackMove as i32
        }))
    );
    assert!(matches!(got[1].kind, Some(Ev::Drew(ref d)) if d.seat == 0 && d.cards.is_empty()));
    let spectator_seen = replica.seq();
    // Seat 0 is prompted again, with a new budget, and discards itself.
    let seat0_got = events(&read_until(&mut seat0, replica.seq()).await);
    assert_eq!(seat0_got, replica.events_after(seat(0), opening));
    let p = prompt(&mut seat0).await;
    assert_eq!(p.seq, replica.seq());
    assert!(p.legal.as_ref().unwrap().can_discard);
    assert_time_left(p.time_left_ms, budget);
    let (s, action) = replica.plain_move();
    assert_eq!(s, 0);
    act(&mut client, &id, &tokens, &mut replica, s, &action).await;

    // Seat 1 now has the clock; it times out twice: the bot draws, then discards.
    let v1_ = view_of(&mut client, &id, Some(&tokens[1]), false).await;
    assert_time_left(v1_.time_left_ms, budget);
    assert_eq!(
        view_of(&mut client, &id, Some(&tokens[0]), false)
            .await
            .time_left_ms,
        None
    );
    let from = replica.seq();
    // Each time-out gives the seat a new budget from then: one move of the clock, one
    // time-out.
    let mut got = Vec::new();
    for _ in 0..2 {
        server.advance(Duration::from_millis(budget)).await;
        replica.time_out();
        got.extend(events(&read_until(&mut spectator, replica.seq()).await));
    }
    assert_eq!(got, replica.events_after(Viewer::Spectator, spectator_seen));
    assert!(
        matches!(got[(from - spectator_seen) as usize].kind, Some(Ev::TimedOut(ref t)) if t.seat == 1)
    );
    assert!(matches!(got.last().unwrap().kind, Some(Ev::TurnStarted(ref t)) if t.seat == 0));
    // Play goes on: seat 0 draws itself.
    let (s, action) = replica.plain_move();
    assert_eq!((s, &action), (0, &Action::DrawStock));
    act(&mut client, &id, &tokens, &mut replica, s, &action).await;
    server.stop().await;
}

// With the forfeit policy, the timed-out seat's side forfeits: TimedOut, then MatchEnded with
// the other side the winner; the game is finished. A game waiting for players never times
// out.
#[tokio::test]
async fn a_timed_out_seat_forfeits_the_match_under_the_forfeit_policy() {
    let server = paused(test_config().build().unwrap()).await;
    let mut client = server.client().await;
    let budget = 300;
    let policy = v1::TimeoutPolicy::Forfeit;
    // Game a: seat 0 stalls at once. Game b: seat 0 plays a turn, then seat 1 stalls.
    let (a, a_tokens, a_replica) = started(&mut client, timed(301, budget, policy)).await;
    let (b, b_tokens, mut b_replica) = started(&mut client, timed(302, budget, policy)).await;
    let waiting = create_with(&mut client, timed(303, budget, policy)).await;
    client
        .join_game(v1::JoinGameRequest {
            game_id: waiting.game_id.clone(),
            seat: Some(0),
            display_name: "alone".into(),
        })
        .await
        .unwrap();
    let mut a_stream = watch(&mut client, &a, None, 0).await;
    let mut b_stream = watch(&mut client, &b, None, 0).await;
    plain_moves(&mut client, &b, &b_tokens, &mut b_replica, 2).await;
    // Both stalled seats' budgets run out at once.
    server.advance(Duration::from_millis(budget)).await;

    for (id, stream, replica, loser) in [
        (&a, &mut a_stream, &a_replica, 0u32),
        (&b, &mut b_stream, &b_replica, 1),
    ] {
        let messages = read_to_end(stream).await;
        let got = events(&messages);
        let n = replica.seq() as usize;
        assert_eq!(got.len(), n + 2, "TimedOut and MatchEnded, then the end");
        assert_eq!(got[..n].to_vec(), replica.events(Viewer::Spectator));
        let result = v1::MatchResult {
            finished: true,
            winner_side: Some(1 - loser),
            totals: vec![0, 0],
            end: v1::MatchEndKind::Forfeit as i32,
            forfeited_side: Some(loser),
        };
        assert_eq!(
            got[n],
            v1::GameEvent {
                seq: n as u64 + 1,
                kind: Some(Ev::TimedOut(v1::TimedOut {
                    seat: loser,
                    policy: policy as i32
                }))
            }
        );
        assert_eq!(
            got[n + 1],
            v1::GameEvent {
                seq: n as u64 + 2,
                kind: Some(Ev::MatchEnded(v1::MatchEnded {
                    result: Some(result.clone())
                }))
            }
        );
        let game = summary_of(&mut client, id).await;
        assert_eq!(game.status, v1::GameStatus::Finished as i32);
        assert_eq!(game.result, Some(result.clone()));
        assert_eq!(game.seq, n as u64 + 2);
        let tokens = if id == &a { &a_tokens } else { &b_tokens };
        let v = view_of(&mut client, id, Some(&tokens[loser as usize]), false).await;
        assert_eq!((v.legal, v.time_left_ms), (None, None));
        let v = v.view.unwrap();
        assert_eq!(v.to_act, None);
        assert_eq!(v.result, Some(result));
        // No more actions.
        let status = client
            .submit_action(authed(
                v1::SubmitActionRequest {
                    game_id: id.clone(),
                    expected_seq: n as u64 + 2,
                    request_id: "late".into(),
                    action: Some(action_to_wire(&Action::DrawStock)),
                },
                &tokens[loser as usize],
            ))
            .await
            .expect_err("the match is over");
        assert_refused(&status, Code::FailedPrecondition, "GAME_FINISHED");
        assert_eq!(game_seq(&mut client, id).await, n as u64 + 2);
    }
    // Meanwhile the waiting game did not time out.
    let w = summary_of(&mut client, &waiting.game_id).await;
    assert_eq!((w.status, w.seq), (v1::GameStatus::Waiting as i32, 1));
    server.stop().await;
}

// A game with a time control is back where it was after a restart: no time-out happened
// while the server was down, and its clock runs again after, the whole budget from the
// restart. (On paused clocks: the first server's time moved most of the budget on, the
// restarted one's counts from its start, and any reading of the wall clock, which moved on
// meanwhile, would show in a time left off by the milliseconds the restart took.)
#[tokio::test]
async fn a_timed_game_is_back_where_it_was_after_a_restart() {
    let dir = temp_dir("ops-timed");
    let db = dir.path().join("canasta.db");
    let budget = 1000;
    let server = paused_with_db(&db).await;
    let mut client = server.client().await;
    let (id, tokens, mut replica) = started(
        &mut client,
        timed(211, budget, v1::TimeoutPolicy::FallbackMove),
    )
    .await;
    server.advance(Duration::from_millis(budget - 1)).await;
    let v = view_of(&mut client, &id, Some(&tokens[0]), false).await;
    assert_time_left(v.time_left_ms, 1);
    server.stop().await;

    let server = paused_with_db(&db).await;
    let mut client = server.client().await;
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    let v = view_of(&mut client, &id, Some(&tokens[0]), false).await;
    assert_time_left(v.time_left_ms, budget);
    // The clock runs: seat 0 times out on the restarted server, at the end of its budget.
    let mut spectator = watch(&mut client, &id, None, replica.seq()).await;
    let from = replica.seq();
    server.advance(Duration::from_millis(budget - 1)).await;
    assert_eq!(game_seq(&mut client, &id).await, from, "no time-out yet");
    server.advance(Duration::from_millis(1)).await;
    replica.time_out();
    let got = events(&read_until(&mut spectator, replica.seq()).await);
    assert_eq!(got, replica.events_after(Viewer::Spectator, from));
    server.stop().await;
}

// A move budget outside the server's bounds (by default 1 000 ms to a day) is refused at
// CreateGame, INVALID_ARGUMENT BAD_TIME_CONTROL naming the field and the bounds, and no game is
// made; the bounds themselves and 0 (no time control) are taken. Before the bounds, a budget
// of 1 ms made a game whose fallback bot played for ever, and one of u64::MAX ms a game whose
// absent seat held it unfinished for ever.
#[tokio::test]
async fn move_budgets_outside_the_servers_bounds_are_refused() {
    // The defaults (test_config lowers the floor; server/src/config.rs checks the defaults).
    let config = test_config()
        .min_move_budget(Duration::from_millis(1000))
        .max_move_budget(Duration::from_millis(86_400_000))
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let policy = v1::TimeoutPolicy::FallbackMove;
    for budget in [1, 999, 86_400_001, u64::MAX] {
        let status = client
            .create_game(timed(7, budget, policy))
            .await
            .expect_err("a budget out of bounds is refused");
        assert_refused(&status, Code::InvalidArgument, "BAD_TIME_CONTROL");
        let bad = status.get_details_bad_request().expect("a BadRequest");
        assert_eq!(
            bad.field_violations[0].field, "time_control.move_budget_ms",
            "{status:?}"
        );
        assert!(
            status.message().contains("1000 to 86400000 ms"),
            "{}",
            status.message()
        );
    }
    assert!(list(&mut client).await.games.is_empty());
    for budget in [0, 1000, 86_400_000] {
        let (id, tokens, _) = started(&mut client, timed(7, budget, policy)).await;
        let v = view_of(&mut client, &id, Some(&tokens[0]), false).await;
        assert_eq!(v.time_left_ms.is_some(), budget > 0, "{budget}");
    }
    server.stop().await;
}

// Nobody plays a game under the fallback policy: once every seat has timed out three times
// with no action between, the match ends, abandoned with no winner (TimedOut, then
// MatchEnded), after a bounded number of time-outs; it is finished for every call, and after a
// restart on its database it is the same finished game, with the same log. The server's
// clock is paused: the test moves it on by one budget at a time, each move one time-out.
#[tokio::test]
async fn a_match_nobody_plays_is_abandoned_and_stays_so_after_a_restart() {
    let dir = temp_dir("ops-abandoned");
    let db = dir.path().join("canasta.db");
    let server = paused_with_db(&db).await;
    let mut client = server.client().await;
    let budget = test_config()
        .build()
        .unwrap()
        .move_budgets()
        .start()
        .as_millis() as u64;
    let (id, tokens, replica) = started(
        &mut client,
        timed(212, budget, v1::TimeoutPolicy::FallbackMove),
    )
    .await;
    let mut stream = watch(&mut client, &id, None, 0).await;
    let mut got = Vec::new();
    let timeouts = |got: &[v1::GameEvent]| {
        got.iter()
            .filter(|e| matches!(e.kind, Some(Ev::TimedOut(_))))
            .count()
    };
    'play: loop {
        // A time-out is streamed once the actor has applied it and set the next deadline:
        // then the clock may move on to that one.
        server.advance(Duration::from_millis(budget)).await;
        let before = timeouts(&got);
        while timeouts(&got) == before {
            let Some(m) = next_message(&mut stream).await else {
                break 'play;
            };
            if let Some(Msg::Event(e)) = m.kind {
                got.push(e);
            }
        }
        assert!(
            timeouts(&got) <= 100,
            "{} time-outs and the match goes on",
            timeouts(&got)
        );
    }
    let timeouts = timeouts(&got);
    assert!((6..=16).contains(&timeouts), "{timeouts} time-outs");
    assert_eq!(
        got[..replica.seq() as usize].to_vec(),
        replica.events(Viewer::Spectator)
    );
    let n = got.len();
    assert!(
        matches!(got[n - 2].kind, Some(Ev::TimedOut(ref t)) if t.policy == v1::TimeoutPolicy::FallbackMove as i32),
        "{:?}",
        got[n - 2]
    );
    let Some(Ev::MatchEnded(v1::MatchEnded {
        result: Some(ref result),
    })) = got[n - 1].kind
    else {
        panic!("the match ends: {:?}", got[n - 1]);
    };
    assert!(result.finished);
    assert_eq!(result.end, v1::MatchEndKind::Abandoned as i32);
    assert_eq!((result.winner_side, result.forfeited_side), (None, None));
    let game = summary_of(&mut client, &id).await;
    assert_eq!(game.status, v1::GameStatus::Finished as i32);
    assert_eq!(game.result.as_ref(), Some(result));
    assert_eq!(game.seq, n as u64);
    let status = client
        .submit_action(authed(
            v1::SubmitActionRequest {
                game_id: id.clone(),
                expected_seq: n as u64,
                request_id: "late".into(),
                action: Some(action_to_wire(&Action::DrawStock)),
            },
            &tokens[0],
        ))
        .await
        .expect_err("the match is over");
    assert_refused(&status, Code::FailedPrecondition, "GAME_FINISHED");
    let record = client
        .export_game(v1::ExportGameRequest {
            game_id: id.clone(),
        })
        .await
        .expect("a finished game exports")
        .into_inner();
    let recorded = record.record.as_ref().and_then(|r| r.result.as_ref());
    assert_eq!(recorded, Some(result));
    server.stop().await;

    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    assert_eq!(summary_of(&mut client, &id).await, game);
    let mut stream = watch(&mut client, &id, None, 0).await;
    assert_eq!(events(&read_to_end(&mut stream).await), got);
    let again = client
        .export_game(v1::ExportGameRequest {
            game_id: id.clone(),
        })
        .await
        .expect("a finished game exports")
        .into_inner();
    assert_eq!(again, record);
    server.stop().await;
}

// ----- limits -----

// max_games = 2: a third CreateGame is refused RESOURCE_EXHAUSTED TOO_MANY_GAMES with a
// RetryInfo, and no game is added.
#[tokio::test]
async fn the_game_limit_refuses_a_third_game() {
    let config = test_config().max_games(2).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    create_with(&mut client, seeded(1)).await;
    create_with(&mut client, seeded(2)).await;
    let before = list(&mut client).await;
    assert_eq!(before.games.len(), 2);
    for request in [seeded(3), short_game().0] {
        let status = client
            .create_game(request)
            .await
            .expect_err("a third game is refused");
        assert_refused(&status, Code::ResourceExhausted, "TOO_MANY_GAMES");
    }
    assert_eq!(list(&mut client).await, before);
    server.stop().await;
}

// Regression: finished games counted against max_games, so a long-running server came to
// refuse every CreateGame. With max_games = 2, once one of two games has finished a third
// may be created (and then no fourth); the finished game stays readable: GetGame, GetScores
// and ExportGame answer, and its export replays. After a restart the count is the same.
#[tokio::test]
async fn finished_games_do_not_count_against_the_game_limit() {
    let dir = temp_dir("ops-game-limit");
    let db = dir.path().join("canasta.db");
    let config = db_config(&db).to_builder().max_games(2).build().unwrap();
    let server = TestServer::with_config(config.clone()).await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (finished, tokens, mut replica) = started(&mut client, request).await;
    create_with(&mut client, seeded(2)).await;
    let status = client
        .create_game(seeded(3))
        .await
        .expect_err("two unfinished games: the limit");
    assert_refused(&status, Code::ResourceExhausted, "TOO_MANY_GAMES");
    for (s, action) in &script {
        act(&mut client, &finished, &tokens, &mut replica, *s, action).await;
    }
    assert_eq!(
        summary_of(&mut client, &finished).await.status,
        v1::GameStatus::Finished as i32
    );
    let third = create_with(&mut client, seeded(3)).await;
    let status = client
        .create_game(seeded(4))
        .await
        .expect_err("two unfinished games again");
    assert_refused(&status, Code::ResourceExhausted, "TOO_MANY_GAMES");
    let listed = list(&mut client).await;
    assert_eq!(listed.games.len(), 3);
    assert_eq!(listed.games[0].game_id, third.game_id);

    // The finished game is still there, whole.
    let check_finished = |mut client: Client, finished: String, replica_seq: u64| async move {
        let game = summary_of(&mut client, &finished).await;
        assert_eq!(game.status, v1::GameStatus::Finished as i32);
        assert_eq!(game.seq, replica_seq);
        let scores = client
            .get_scores(v1::GetScoresRequest {
                game_id: finished.clone(),
            })
            .await
            .expect("the scores")
            .into_inner();
        assert!(scores.result.expect("a result").finished);
        let record = client
            .export_game(v1::ExportGameRequest {
                game_id: finished.clone(),
            })
            .await
            .expect("the record")
            .into_inner()
            .record
            .expect("a record");
        let (setup, moves) = canasta_proto::convert::record_from_wire(&record).expect("a record");
        let replayed = Game::replay(&setup, &moves).expect("it replays");
        assert_eq!(replayed.phase(), canasta_engine::Phase::Over);
    };
    check_finished(client.clone(), finished.clone(), replica.seq()).await;
    server.stop().await;

    // After a restart the two unfinished games fill the limit again; the finished one does not.
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let status = client
        .create_game(seeded(5))
        .await
        .expect_err("two unfinished games after the restart");
    assert_refused(&status, Code::ResourceExhausted, "TOO_MANY_GAMES");
    assert_eq!(list(&mut client).await, listed);
    check_finished(client.clone(), finished.clone(), replica.seq()).await;
    server.stop().await;
}

// Concurrent CreateGame calls never exceed max_games: the place is taken before the game is
// stored (the store's round trip is where creations used to overlap). 40 calls at once, limit
// 5: exactly 5 games, every other call refused TOO_MANY_GAMES.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_creations_never_exceed_the_game_limit() {
    let dir = temp_dir("ops-concurrent-limit");
    let config = db_config(&dir.path().join("canasta.db"))
        .to_builder()
        .max_games(5)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut calls = Vec::new();
    for i in 0..40 {
        // A connection each, so that the calls really run side by side.
        let mut client = server.client().await;
        calls.push(tokio::spawn(async move {
            client.create_game(seeded(100 + i)).await
        }));
    }
    let mut created = 0;
    for call in calls {
        match call.await.expect("the call's task") {
            Ok(_) => created += 1,
            Err(status) => assert_refused(&status, Code::ResourceExhausted, "TOO_MANY_GAMES"),
        }
    }
    assert_eq!(created, 5);
    let mut client = server.client().await;
    assert_eq!(list(&mut client).await.games.len(), 5);
    server.stop().await;
}

// max_message_bytes = 2000: larger requests are refused RESOURCE_EXHAUSTED MESSAGE_TOO_LARGE
// and change nothing; smaller ones pass.
#[tokio::test]
async fn the_message_size_limit_refuses_larger_requests() {
    let config = test_config().max_message_bytes(2000).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    // A game with a whole card order (about 650 bytes) is below the limit.
    let (request, script) = short_game();
    let (id, tokens, mut replica) = started(&mut client, request.clone()).await;
    let games = list(&mut client).await;
    let before = view_of(&mut client, &id, Some(&tokens[0]), false).await;

    // A meld of 255 cards in each of four specs.
    let spec = v1::MeldSpec {
        meld_index: None,
        cards: card_list_to_wire(&[card("KS"); 255]),
    };
    let meld = v1::Action {
        kind: Some(v1::action::Kind::Meld(v1::MeldAction {
            melds: vec![spec; 4],
        })),
    };
    let huge = v1::SubmitActionRequest {
        game_id: id.clone(),
        expected_seq: replica.seq(),
        request_id: "huge".into(),
        action: Some(meld.clone()),
    };
    assert!(prost::Message::encoded_len(&huge) > 2000);
    let status = client
        .submit_action(authed(huge, &tokens[0]))
        .await
        .expect_err("too large");
    assert_refused(&status, Code::ResourceExhausted, "MESSAGE_TOO_LARGE");
    let status = client
        .check_action(authed(
            v1::CheckActionRequest {
                game_id: id.clone(),
                action: Some(meld),
            },
            &tokens[0],
        ))
        .await
        .expect_err("too large");
    assert_refused(&status, Code::ResourceExhausted, "MESSAGE_TOO_LARGE");
    // A game created with four card orders.
    let large = v1::CreateGameRequest {
        card_orders: vec![request.card_orders[0].clone(); 4],
        ..request
    };
    assert!(prost::Message::encoded_len(&large) > 2000);
    let status = client.create_game(large).await.expect_err("too large");
    assert_refused(&status, Code::ResourceExhausted, "MESSAGE_TOO_LARGE");

    assert_eq!(list(&mut client).await, games);
    assert_eq!(
        view_of(&mut client, &id, Some(&tokens[0]), false).await,
        before
    );
    // Requests below the limit pass.
    for (s, action) in &script {
        act(&mut client, &id, &tokens, &mut replica, *s, action).await;
    }
    assert_eq!(
        summary_of(&mut client, &id).await.status,
        v1::GameStatus::Finished as i32
    );
    server.stop().await;
}

// requests_per_second = 5 (bursts of 10): the 11th rapid request of one token is refused
// RESOURCE_EXHAUSTED RATE_LIMITED with a RetryInfo and changes nothing; another token's
// requests still pass; after the delay the token passes again, not a millisecond before. The
// server's clock is paused: the requests are "rapid" whatever time they take.
#[tokio::test]
async fn the_rate_limit_refuses_the_eleventh_rapid_request_of_a_token() {
    let config = test_config().requests_per_second(5.0).build().unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    let (id, tokens, mut replica) = started(&mut client, seeded(401)).await;
    let mut views = Vec::new();
    for _ in 0..10 {
        views.push(view_of(&mut client, &id, Some(&tokens[0]), false).await);
    }
    let (s, action) = replica.plain_move();
    assert_eq!(s, 0);
    let draw = submission(&id, &replica, &action);
    let status = client
        .submit_action(authed(draw.clone(), &tokens[0]))
        .await
        .expect_err("the 11th request is refused");
    assert_refused(&status, Code::ResourceExhausted, "RATE_LIMITED");
    let delay = status
        .get_details_retry_info()
        .unwrap()
        .retry_delay
        .unwrap();
    assert_eq!(
        delay,
        Duration::from_millis(200),
        "one request's place in 1/5 s"
    );
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());

    // The other seat's token has a bucket of its own; spectator calls carry no token.
    for _ in 0..10 {
        assert_eq!(
            view_of(&mut client, &id, Some(&tokens[1]), false)
                .await
                .view
                .unwrap()
                .seq,
            replica.seq()
        );
    }
    assert_eq!(
        view_of(&mut client, &id, None, false)
            .await
            .view
            .unwrap()
            .seq,
        replica.seq()
    );

    // A millisecond before the delay is over the request is still refused; after it, it
    // passes, once.
    server.advance(delay - Duration::from_millis(1)).await;
    let status = client
        .submit_action(authed(draw.clone(), &tokens[0]))
        .await
        .expect_err("refused until the delay is over");
    assert_refused(&status, Code::ResourceExhausted, "RATE_LIMITED");
    assert_eq!(
        status.get_details_retry_info().unwrap().retry_delay,
        Some(Duration::from_millis(1))
    );
    server.advance(Duration::from_millis(1)).await;
    let response = client
        .submit_action(authed(draw, &tokens[0]))
        .await
        .expect("passes after the delay")
        .into_inner();
    replica.apply(s, &action);
    assert_eq!(response.seq, replica.seq());
    let status = client
        .get_view(authed(
            v1::GetViewRequest {
                game_id: id.clone(),
                include_actions: false,
            },
            &tokens[0],
        ))
        .await
        .expect_err("the bucket is empty again");
    assert_refused(&status, Code::ResourceExhausted, "RATE_LIMITED");
    server.stop().await;
}

// ----- health and reflection -----

async fn channel(addr: SocketAddr) -> Channel {
    Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .expect("the server accepts connections")
}

// grpc.health.v1 reports the server, the Canasta service and the lobby SERVING.
#[tokio::test]
async fn health_reports_serving() {
    use tonic_health::pb::HealthCheckRequest;
    use tonic_health::pb::health_check_response::ServingStatus;
    use tonic_health::pb::health_client::HealthClient;
    let server = TestServer::start().await;
    let mut health = HealthClient::new(channel(server.addr).await);
    for service in ["", "canasta.v1.CanastaService", "canasta.v1.LobbyService"] {
        let r = health
            .check(HealthCheckRequest {
                service: service.into(),
            })
            .await
            .expect("a health answer")
            .into_inner();
        assert_eq!(r.status, ServingStatus::Serving as i32, "{service:?}");
    }
    let status = health
        .check(HealthCheckRequest {
            service: "canasta.v1.NoSuchService".into(),
        })
        .await
        .expect_err("an unknown service");
    assert_eq!(status.code(), Code::NotFound);
    server.stop().await;
}

/// Asks server reflection (`v1` or `v1alpha`) for its services, and for the file declaring
/// the Canasta service; returns the services' names and the file's serialized descriptors.
macro_rules! reflect {
    ($version:ident, $channel:expr) => {{
        use tonic_reflection::pb::$version::ServerReflectionRequest;
        use tonic_reflection::pb::$version::server_reflection_client::ServerReflectionClient;
        use tonic_reflection::pb::$version::server_reflection_request::MessageRequest;
        use tonic_reflection::pb::$version::server_reflection_response::MessageResponse;
        let mut client = ServerReflectionClient::new($channel);
        let requests = vec![
            ServerReflectionRequest {
                host: String::new(),
                message_request: Some(MessageRequest::ListServices(String::new())),
            },
            ServerReflectionRequest {
                host: String::new(),
                message_request: Some(MessageRequest::FileContainingSymbol(
                    "canasta.v1.CanastaService".into(),
                )),
            },
        ];
        let mut answers = client
            .server_reflection_info(tokio_stream::iter(requests))
            .await
            .expect("a reflection stream")
            .into_inner();
        let mut services = Vec::new();
        let mut files = Vec::new();
        while let Some(answer) = answers.message().await.expect("an answer") {
            match answer.message_response.expect("a response") {
                MessageResponse::ListServicesResponse(l) => {
                    services = l.service.into_iter().map(|s| s.name).collect::<Vec<_>>()
                }
                MessageResponse::FileDescriptorResponse(f) => files = f.file_descriptor_proto,
                other => panic!("{other:?}"),
            }
        }
        (services, files)
    }};
}

// Server reflection v1 and v1alpha list the Canasta, lobby and health services and describe
// the Canasta service.
#[tokio::test]
async fn reflection_lists_the_services_in_v1_and_v1alpha() {
    let server = TestServer::start().await;
    let answers = [
        reflect!(v1, channel(server.addr).await),
        reflect!(v1alpha, channel(server.addr).await),
    ];
    for (services, files) in answers {
        for wanted in [
            "canasta.v1.CanastaService",
            "canasta.v1.LobbyService",
            "grpc.health.v1.Health",
        ] {
            assert!(
                services.iter().any(|s| s == wanted),
                "{wanted} in {services:?}"
            );
        }
        assert!(!files.is_empty());
        let descriptors: Vec<String> = files
            .iter()
            .map(|f| String::from_utf8_lossy(f).into_owned())
            .collect();
        assert!(
            descriptors
                .iter()
                .any(|d| d.contains("canasta/v1/service.proto") && d.contains("CanastaService")),
            "the service's file is described"
        );
    }
    server.stop().await;
}

// ----- metrics -----

/// A free loopback address for the metrics port (bound, read, released).
fn free_addr() -> SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    l.local_addr().expect("bound")
}

/// GET /metrics: the body of the answer. The server binds its metrics port before it serves
/// gRPC: once a gRPC request of the test has been answered, the port takes connections.
async fn scrape(addr: SocketAddr) -> String {
    let mut conn = tokio::net::TcpStream::connect(addr)
        .await
        .expect("the metrics port takes connections");
    conn.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), conn.read_to_end(&mut raw))
        .await
        .expect("an answer within 5 s")
        .unwrap();
    let text = String::from_utf8(raw).expect("text");
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{head}");
    assert!(head.contains("text/plain"), "{head}");
    body.to_string()
}

/// The value of a sample line `name` (with its labels) in a scrape.
fn sample(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

// The metrics port serves Prometheus text: games held, actions applied, refused requests by
// code and reason, the action-latency histogram, open watch streams.
#[tokio::test]
async fn metrics_count_games_actions_errors_and_latency() {
    let metrics = free_addr();
    let config = test_config().metrics_listen(Some(metrics)).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    // Answered: the server serves, its metrics port too.
    assert!(list(&mut client).await.games.is_empty());
    let text = scrape(metrics).await;
    assert_eq!(sample(&text, "canasta_games"), Some(0.0));
    assert_eq!(sample(&text, "canasta_actions_total"), Some(0.0));

    let (id, tokens, mut replica) = started(&mut client, seeded(501)).await;
    create_with(&mut client, seeded(502)).await;
    plain_moves(&mut client, &id, &tokens, &mut replica, 7).await;
    // Refused requests: two stale, one of the wrong seat, one unknown game.
    for _ in 0..2 {
        let status = client
            .submit_action(authed(
                v1::SubmitActionRequest {
                    game_id: id.clone(),
                    expected_seq: 1,
                    request_id: format!("stale{}", rand::random::<u32>()),
                    action: Some(action_to_wire(&Action::DrawStock)),
                },
                &tokens[0],
            ))
            .await
            .expect_err("stale");
        assert_refused(&status, Code::Aborted, "STALE_SEQ");
    }
    let to_act = replica.game.to_act().unwrap().0 as usize;
    let status = client
        .submit_action(authed(
            v1::SubmitActionRequest {
                game_id: id.clone(),
                expected_seq: replica.seq(),
                request_id: "wrong seat".into(),
                action: Some(action_to_wire(&Action::DrawStock)),
            },
            &tokens[1 - to_act],
        ))
        .await
        .expect_err("not this seat's turn");
    assert_refused(&status, Code::FailedPrecondition, "NOT_YOUR_TURN");
    let status = client
        .get_game(v1::GetGameRequest {
            game_id: "nope".into(),
        })
        .await
        .expect_err("unknown");
    assert_refused(&status, Code::NotFound, "GAME_NOT_FOUND");
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    let mut stream = watch(&mut client, &id, None, 0).await;
    next_message(&mut stream).await.expect("a first message");

    let text = scrape(metrics).await;
    assert_eq!(sample(&text, "canasta_games"), Some(2.0));
    assert_eq!(sample(&text, "canasta_games_created_total"), Some(2.0));
    assert_eq!(sample(&text, "canasta_actions_total"), Some(7.0));
    assert_eq!(sample(&text, "canasta_watchers"), Some(1.0));
    assert_eq!(
        sample(
            &text,
            "canasta_errors_total{code=\"ABORTED\",reason=\"STALE_SEQ\"}"
        ),
        Some(2.0)
    );
    assert_eq!(
        sample(
            &text,
            "canasta_errors_total{code=\"FAILED_PRECONDITION\",reason=\"NOT_YOUR_TURN\"}"
        ),
        Some(1.0)
    );
    assert_eq!(
        sample(
            &text,
            "canasta_errors_total{code=\"NOT_FOUND\",reason=\"GAME_NOT_FOUND\"}"
        ),
        Some(1.0)
    );
    assert!(text.contains("# TYPE canasta_action_seconds histogram"));
    let buckets: Vec<f64> = text
        .lines()
        .filter(|l| l.starts_with("canasta_action_seconds_bucket{le="))
        .map(|l| l.rsplit(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(buckets.len() >= 2);
    assert!(buckets.windows(2).all(|w| w[0] <= w[1]), "{buckets:?}");
    assert_eq!(
        sample(&text, "canasta_action_seconds_bucket{le=\"+Inf\"}"),
        Some(7.0)
    );
    assert_eq!(sample(&text, "canasta_action_seconds_count"), Some(7.0));
    assert!(sample(&text, "canasta_action_seconds_sum").is_some_and(|s| s > 0.0));
    server.stop().await;
}

// canasta_actions_total counts actions applied: a retried request answered from the log is
// not applied again, so it is not counted again.
#[tokio::test]
async fn metrics_do_not_count_a_retried_request_again() {
    let metrics = free_addr();
    let config = test_config().metrics_listen(Some(metrics)).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let (id, tokens, mut replica) = started(&mut client, seeded(503)).await;
    let (s, action) = replica.plain_move();
    let request = submission(&id, &replica, &action);
    let first = act(&mut client, &id, &tokens, &mut replica, s, &action).await;
    for _ in 0..3 {
        let again = client
            .submit_action(authed(request.clone(), &tokens[s as usize]))
            .await
            .expect("a retry is answered")
            .into_inner();
        assert_eq!(again, first);
    }
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    let text = scrape(metrics).await;
    assert_eq!(sample(&text, "canasta_actions_total"), Some(1.0));
    assert_eq!(sample(&text, "canasta_action_seconds_count"), Some(1.0));
    server.stop().await;
}

/// The samples of a scrape whose name (with its labels) starts with `prefix`.
fn samples(text: &str, prefix: &str) -> std::collections::BTreeMap<String, f64> {
    text.lines()
        .filter(|l| l.starts_with(prefix))
        .filter_map(|l| {
            let (name, value) = l.rsplit_once(' ')?;
            Some((name.to_string(), value.parse().ok()?))
        })
        .collect()
}

/// The samples starting with `prefix` that changed from `before` to `after`, with how much.
fn changed(before: &str, after: &str, prefix: &str) -> Vec<(String, f64)> {
    let before = samples(before, prefix);
    samples(after, prefix)
        .into_iter()
        .filter_map(|(name, n)| {
            let was = before.get(&name).copied().unwrap_or(0.0);
            (n != was).then_some((name, n - was))
        })
        .collect()
}

/// A gRPC code as the wire names it: `NotFound` -> `NOT_FOUND`.
fn code_label(code: Code) -> String {
    let mut out = String::new();
    for (i, c) in format!("{code:?}").chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

/// Makes `call` and checks what the metrics counted for it: one call of `method` under the
/// code it was answered with, one latency, and, for a refusal, one refusal under its code and
/// reason; nothing else.
async fn counted_once<T>(
    metrics: SocketAddr,
    method: &str,
    call: impl std::future::Future<Output = Result<T, Status>>,
) -> Result<T, Status> {
    let before = scrape(metrics).await;
    let answer = call.await;
    let after = scrape(metrics).await;
    let code = match &answer {
        Ok(_) => "OK".to_string(),
        Err(status) => code_label(status.code()),
    };
    assert_eq!(
        changed(&before, &after, "canasta_requests_total{"),
        [(
            format!("canasta_requests_total{{method=\"{method}\",code=\"{code}\"}}"),
            1.0
        )],
        "{method}: {:?}",
        answer.as_ref().err()
    );
    assert_eq!(
        changed(&before, &after, "canasta_request_seconds_count{"),
        [(
            format!("canasta_request_seconds_count{{method=\"{method}\"}}"),
            1.0
        )],
        "{method}"
    );
    let refusals = changed(&before, &after, "canasta_errors_total{");
    match &answer {
        Ok(_) => assert!(refusals.is_empty(), "{method}: {refusals:?}"),
        Err(status) => assert_eq!(
            refusals,
            [(
                format!(
                    "canasta_errors_total{{code=\"{code}\",reason=\"{}\"}}",
                    reason(status)
                ),
                1.0
            )],
            "{method}"
        ),
    }
    answer
}

// Every call passes through one layer that counts it exactly once, under its method and the
// code it was answered with, and a refused one under its reason too: each method, served and
// refused, the streams when they open or are refused, a message the transport refuses before
// the method runs (unary or a Play call's opening). The actions sent on an open Play call are
// not calls: a refused one counts as a refusal only, as before the layer.
#[tokio::test]
async fn metrics_count_every_call_once_by_method_and_code() {
    let metrics = free_addr();
    let config = test_config()
        .metrics_listen(Some(metrics))
        .max_message_bytes(4096)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    // Every method is shown from the start, at zero.
    assert_eq!(
        sample(
            &scrape(metrics).await,
            "canasta_requests_total{method=\"DescribeRules\",code=\"OK\"}"
        ),
        Some(0.0)
    );
    let (id, tokens, mut replica) = started(&mut client, seeded(504)).await;
    let to_act = replica.game.to_act().unwrap().0 as usize;
    let m = metrics;

    counted_once(
        m,
        "ListGames",
        client.list_games(v1::ListGamesRequest::default()),
    )
    .await
    .expect("listed");
    let rules = v1::DescribeRulesRequest {
        rules: seeded(504).rules,
    };
    counted_once(m, "DescribeRules", client.describe_rules(rules))
        .await
        .expect("described");
    let request = v1::GetGameRequest {
        game_id: id.clone(),
    };
    counted_once(m, "GetGame", client.get_game(request))
        .await
        .expect("a summary");
    let request = v1::GetGameRequest {
        game_id: "nope".into(),
    };
    let status = counted_once(m, "GetGame", client.get_game(request))
        .await
        .expect_err("no such game");
    assert_refused(&status, Code::NotFound, "GAME_NOT_FOUND");
    let request = v1::GetViewRequest {
        game_id: id.clone(),
        include_actions: true,
    };
    counted_once(m, "GetView", client.get_view(authed(request, &tokens[0])))
        .await
        .expect("a view");
    let (seat, action) = replica.plain_move();
    let request = v1::CheckActionRequest {
        game_id: id.clone(),
        action: Some(action_to_wire(&action)),
    };
    counted_once(
        m,
        "CheckAction",
        client.check_action(authed(request, &tokens[seat as usize])),
    )
    .await
    .expect("a verdict");
    let mut stale = submission(&id, &replica, &action);
    stale.expected_seq -= 1;
    let status = counted_once(
        m,
        "SubmitAction",
        client.submit_action(authed(stale, &tokens[seat as usize])),
    )
    .await
    .expect_err("stale");
    assert_refused(&status, Code::Aborted, "STALE_SEQ");
    let request = submission(&id, &replica, &action);
    counted_once(
        m,
        "SubmitAction",
        client.submit_action(authed(request, &tokens[seat as usize])),
    )
    .await
    .expect("applied");
    replica.apply(seat, &action);
    let request = v1::GetScoresRequest {
        game_id: id.clone(),
    };
    counted_once(m, "GetScores", client.get_scores(request))
        .await
        .expect("the scores");
    let request = v1::ExportGameRequest {
        game_id: id.clone(),
    };
    let _ = counted_once(m, "ExportGame", client.export_game(request)).await;

    // The streams: counted when they open, or are refused.
    let request = v1::WatchGameRequest {
        game_id: id.clone(),
        ..Default::default()
    };
    let mut stream = counted_once(m, "WatchGame", client.watch_game(request))
        .await
        .expect("a stream")
        .into_inner();
    next_message(&mut stream).await.expect("a first message");
    let token = tokens[to_act].as_str();
    let opening = canasta_tests::play::watch(&id);
    let mut play = counted_once(
        m,
        "Play",
        canasta_tests::play::PlayCall::open(&mut client, Some(token), opening),
    )
    .await
    .expect("a Play call");
    let opening = canasta_tests::play::watch(&id);
    let status = counted_once(
        m,
        "Play",
        canasta_tests::play::PlayCall::open(&mut client, None, opening),
    )
    .await
    .err()
    .expect("no token");
    assert_refused(&status, Code::Unauthenticated, "MISSING_TOKEN");
    // An opening over the size limit: refused once, by the call's own reading of it.
    let opening = canasta_tests::play::watch(&"x".repeat(5000));
    let status = counted_once(
        m,
        "Play",
        canasta_tests::play::PlayCall::open(&mut client, Some(token), opening),
    )
    .await
    .err()
    .expect("too large");
    assert_refused(&status, Code::ResourceExhausted, "MESSAGE_TOO_LARGE");
    // A stale action on the open Play call: a refusal, not a call.
    let before = scrape(m).await;
    let (_, action) = replica.plain_move();
    let stale = canasta_tests::play::submit(&id, replica.seq() - 1, "stale", &action);
    play.send(stale).await;
    let error = play.result().await.error.expect("refused");
    assert_eq!(error.reason, "STALE_SEQ");
    let after = scrape(m).await;
    assert!(changed(&before, &after, "canasta_requests_total{").is_empty());
    assert_eq!(
        changed(&before, &after, "canasta_errors_total{"),
        [(
            "canasta_errors_total{code=\"ABORTED\",reason=\"STALE_SEQ\"}".to_string(),
            1.0
        )]
    );

    // A request the transport refuses before the method runs.
    let request = v1::JoinGameRequest {
        game_id: id.clone(),
        seat: Some(0),
        display_name: "x".repeat(5000),
    };
    let status = counted_once(m, "JoinGame", client.join_game(request))
        .await
        .expect_err("too large");
    assert_refused(&status, Code::ResourceExhausted, "MESSAGE_TOO_LARGE");

    // A second game: joined, left, cancelled by its creator.
    let created = counted_once(m, "CreateGame", client.create_game(seeded(505)))
        .await
        .expect("a game")
        .into_inner();
    let other = created.game.expect("a summary").game_id;
    let request = v1::JoinGameRequest {
        game_id: other.clone(),
        seat: Some(0),
        display_name: "p0".into(),
    };
    let joined = counted_once(m, "JoinGame", client.join_game(request))
        .await
        .expect("a seat")
        .into_inner();
    let request = v1::LeaveGameRequest {
        game_id: other.clone(),
    };
    counted_once(
        m,
        "LeaveGame",
        client.leave_game(authed(request, &joined.token)),
    )
    .await
    .expect("left");
    let request = v1::CancelGameRequest {
        game_id: other.clone(),
    };
    let status = counted_once(m, "CancelGame", client.cancel_game(request))
        .await
        .expect_err("no creator token");
    assert_refused(&status, Code::Unauthenticated, "MISSING_TOKEN");
    let request = v1::CancelGameRequest { game_id: other };
    counted_once(
        m,
        "CancelGame",
        client.cancel_game(authed(request, &created.creator_token)),
    )
    .await
    .expect("cancelled");
    server.stop().await;
}

// ----- graceful shutdown -----

/// The outcome of a player that acts until the server stops answering.
struct Mover {
    replica: Replica,
    /// The action whose request failed (it may have been applied, not acknowledged).
    pending: (u8, Action),
    /// The error that stopped it.
    error: Status,
}

// Stopping the server ends every open watch stream, and every acknowledged action is in the
// database: after a restart the log holds all of them.
#[tokio::test]
async fn shutdown_ends_streams_and_loses_no_acknowledged_action() {
    let dir = temp_dir("ops-shutdown");
    let db = dir.path().join("canasta.db");
    let server = paused_with_db(&db).await;
    let mut client = server.client().await;
    let (id, tokens, replica) = started(&mut client, seeded(601)).await;
    let seat_stream = watch(&mut client, &id, Some(&tokens[0]), 0).await;
    let spectator_stream = watch(&mut client, &id, None, 0).await;
    let seat_reader = tokio::spawn(drain(seat_stream));
    let spectator_reader = tokio::spawn(drain(spectator_stream));

    // A player acts as fast as it can on its own connection until the server stops.
    let acked = Counter::new();
    let mover = {
        let mut client = connect(server.addr).await;
        let (id, tokens, acked) = (id.clone(), tokens.clone(), acked.clone());
        let mut replica = replica;
        tokio::spawn(async move {
            loop {
                let (s, action) = replica.plain_move();
                let request = authed(submission(&id, &replica, &action), &tokens[s as usize]);
                let answer =
                    tokio::time::timeout(Duration::from_secs(10), client.submit_action(request))
                        .await
                        .expect("an answer within 10 s");
                match answer {
                    Ok(r) => {
                        replica.apply(s, &action);
                        assert_eq!(r.into_inner().seq, replica.seq());
                        acked.add_one();
                    }
                    Err(error) => {
                        return Mover {
                            replica,
                            pending: (s, action),
                            error,
                        };
                    }
                }
            }
        })
    };
    tokio::time::timeout(Duration::from_secs(10), acked.reached(30))
        .await
        .expect("the player acts");
    server.stop().await;

    let Mover {
        mut replica,
        pending,
        error,
    } = tokio::time::timeout(Duration::from_secs(10), mover)
        .await
        .expect("the player stops")
        .expect("the player's task");
    assert!(
        !matches!(
            error.code(),
            Code::FailedPrecondition | Code::Aborted | Code::InvalidArgument
        ),
        "the player stopped on {error:?}"
    );
    assert!(acked.get() >= 30);
    // Both streams ended, cleanly, with events of the game.
    let mut streamed = Vec::new();
    for (reader, viewer) in [
        (seat_reader, seat(0)),
        (spectator_reader, Viewer::Spectator),
    ] {
        let (messages, error) = tokio::time::timeout(Duration::from_secs(5), reader)
            .await
            .expect("the stream ends with the server")
            .expect("the reader's task");
        assert!(error.is_none(), "the stream ended with {error:?}");
        streamed.push((events(&messages), viewer));
    }

    // After a restart, the log holds every acknowledged action.
    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let stored = log_of(&mut client, &id, None).await;
    let acknowledged = replica.events(Viewer::Spectator);
    assert!(stored.len() >= acknowledged.len());
    assert_eq!(stored[..acknowledged.len()].to_vec(), acknowledged);
    if stored.len() > acknowledged.len() {
        // The request in flight was stored but its answer was lost: it is the whole rest.
        replica.apply(pending.0, &pending.1);
    }
    assert_eq!(stored, replica.events(Viewer::Spectator));
    // What the streams sent before the end is the stored log's beginning.
    for (got, viewer) in streamed {
        assert!(!got.is_empty());
        assert_eq!(got, replica.events(viewer)[..got.len()].to_vec());
    }
    server.stop().await;
}

// The metrics and spans name every method the services have (the game service's and the
// lobby's): a method added to the .proto but not to `Method::ALL` would be counted, but not
// shown at zero before its first call, and a path of it not recognised by the message limit's
// count.
#[test]
fn the_layer_knows_every_method_of_the_service() {
    use canasta_server::service::Method;
    let pool = prost_reflect::DescriptorPool::decode(v1::FILE_DESCRIPTOR_SET).unwrap();
    let mut in_proto = std::collections::BTreeSet::new();
    for name in ["canasta.v1.CanastaService", "canasta.v1.LobbyService"] {
        let service = pool.get_service_by_name(name).unwrap();
        in_proto.extend(service.methods().map(|m| format!("{name}/{}", m.name())));
    }
    let known: std::collections::BTreeSet<String> = Method::ALL
        .iter()
        .map(|m| format!("{}/{}", m.service(), m.name()))
        .collect();
    assert_eq!(known, in_proto);
    for m in Method::ALL {
        let path = format!("/{}/{}", m.service(), m.name());
        assert_eq!(Method::from_path(&path), Some(m));
    }
}
