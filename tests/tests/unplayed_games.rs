//! Games nobody plays end by the server's policies (docs/protocol.md, "Games nobody plays"),
//! through a real server on 127.0.0.1:0: a waiting game nobody fills expires, a started game
//! nobody plays (a Play call open but silent included) or whose seats all left is abandoned,
//! the creator cancels a waiting game with its creator token and nothing else does. Each end
//! frees the game's place among the unfinished games (`--max-games`), reaches the game's
//! watchers as MatchEnded, and survives a restart, which arms the pending policies again from
//! the times the game's log holds.
//!
//! The servers run on a paused clock that the tests move (`clock::paused`): each policy's
//! timeout is the default's, nothing ends a millisecond before it (counted from the game's
//! last activity: a join or a leave gives a waiting game its time again), and each test then
//! waits for the MatchEnded event of a watch stream. A restart counts a pending policy from the
//! wall-clock times of the log; the unit tests of the server's actor check that count.

use std::time::Duration;

mod clock;

use canasta_proto::v1;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use canasta_server::{ConfigBuilder, Storage};
use canasta_tests::play::{PlayCall, watch};
use canasta_tests::*;
use clock::*;
use tonic::{Code, Request};

/// The policies' default timeouts: a waiting game's, an idle one's, a left one's.
const WAITING: Duration = Duration::from_secs(3600);
const IDLE: Duration = Duration::from_secs(86_400);
const LEFT: Duration = Duration::from_secs(600);

/// A millisecond: what a deadline is checked by, before and at it.
const MS: Duration = Duration::from_millis(1);

/// A test server's configuration with these timeouts (seconds; 0 is never).
fn config(waiting: f64, idle: f64, left: f64) -> ConfigBuilder {
    let timeout = |secs: f64| (secs > 0.0).then(|| Duration::from_secs_f64(secs));
    test_config()
        .waiting_timeout(timeout(waiting))
        .idle_timeout(timeout(idle))
        .left_timeout(timeout(left))
}

/// A two-player official game, with a time control of `budget_ms` (a fallback move) if not 0;
/// its summary and creator token.
async fn new_game(client: &mut Client, budget_ms: u64) -> (v1::GameSummary, String) {
    let created = client
        .create_game(v1::CreateGameRequest {
            rules: Some(rules(v1::Preset::Official, 2, &[])),
            seed: Some(5),
            time_control: (budget_ms > 0).then_some(v1::TimeControl {
                move_budget_ms: budget_ms,
                policy: v1::TimeoutPolicy::FallbackMove as i32,
            }),
            ..Default::default()
        })
        .await
        .expect("a game")
        .into_inner();
    (created.game.expect("a summary"), created.creator_token)
}

/// Reads a watch stream to its MatchEnded (skipping the events, prompts and heartbeats before
/// it), which must be its last message; returns the result it carries.
async fn match_ended(stream: &mut tonic::Streaming<v1::WatchGameResponse>) -> v1::MatchResult {
    loop {
        match next_message(stream).await.map(|m| m.kind) {
            Some(Some(Msg::Event(v1::GameEvent {
                kind: Some(v1::game_event::Kind::MatchEnded(ended)),
                ..
            }))) => {
                assert!(
                    next_message(stream).await.is_none(),
                    "the stream ends there"
                );
                return ended.result.expect("a result");
            }
            Some(Some(Msg::Lagged(l))) => panic!("lagged at {}", l.last_seq),
            Some(_) => continue,
            None => panic!("the stream ended without MatchEnded"),
        }
    }
}

/// Opens a spectator's stream of the game from its first event.
async fn spectate(client: &mut Client, game_id: &str) -> tonic::Streaming<v1::WatchGameResponse> {
    open_watch(client, game_id, None, 0, false)
        .await
        .expect("a spectator watches")
}

/// Asserts that the game ended with no winner, as `end`, and that its summary says so.
async fn assert_ended(
    client: &mut Client,
    game_id: &str,
    result: &v1::MatchResult,
    end: v1::MatchEndKind,
) -> v1::GameSummary {
    assert!(result.finished);
    assert_eq!(result.end, end as i32, "{result:?}");
    assert_eq!(result.winner_side, None);
    assert_eq!(result.forfeited_side, None);
    let summary = summary_of(client, game_id).await;
    assert_eq!(summary.status, v1::GameStatus::Finished as i32);
    assert_eq!(summary.result.as_ref(), Some(result));
    summary
}

/// Asserts that the server can create one more game (`--max-games` is 1 in these tests: the
/// game that ended gave its place back).
async fn assert_place_is_free(client: &mut Client) {
    new_game(client, 0).await;
}

async fn cancel(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
) -> Result<v1::GameSummary, tonic::Status> {
    let request = v1::CancelGameRequest {
        game_id: game_id.to_string(),
    };
    client
        .cancel_game(as_viewer(request, token))
        .await
        .map(|r| r.into_inner().game.expect("a summary"))
}

// A waiting game whose seats are not all taken expires (`--waiting-timeout-secs`), counted
// from its creation or its last join or leave, not a millisecond before: its watchers see
// MatchEnded with MATCH_END_KIND_EXPIRED; it is FINISHED, joined no more, shows no deal,
// exports with its result, and its place is free for another game.
#[tokio::test]
async fn a_waiting_game_nobody_fills_expires_and_frees_its_place() {
    let config = config(WAITING.as_secs_f64(), 0.0, 0.0)
        .max_games(1)
        .build()
        .unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    let (game, _) = new_game(&mut client, 0).await;
    let id = game.game_id.clone();
    let mut spectator = spectate(&mut client, &id).await;
    // A join a millisecond before the deadline gives the game its time again, and so does a
    // leave: it is still waiting well past its creation's deadline.
    server.advance(WAITING - MS).await;
    let seat = client
        .join_game(v1::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(0),
            display_name: "Ann".into(),
        })
        .await
        .expect("a seat")
        .into_inner()
        .token;
    server.advance(WAITING - MS).await;
    client
        .leave_game(authed(
            v1::LeaveGameRequest {
                game_id: id.clone(),
            },
            &seat,
        ))
        .await
        .expect("the seat is left");
    server.advance(WAITING - MS).await;
    let waiting = summary_of(&mut client, &id).await;
    assert_eq!(
        waiting.status,
        v1::GameStatus::Waiting as i32,
        "{waiting:?}"
    );
    server.advance(MS).await;
    let result = match_ended(&mut spectator).await;
    assert_ended(&mut client, &id, &result, v1::MatchEndKind::Expired).await;
    // Nothing of its deal is shown; it is over.
    let view = view_of(&mut client, &id, None, true).await;
    let shown = view.view.expect("a view");
    assert_eq!(shown.status, v1::GameStatus::Finished as i32);
    assert_eq!(shown.phase, v1::Phase::Unspecified as i32);
    assert!(shown.pile.is_empty() && shown.stock_count == 0);
    assert!(
        shown
            .seats
            .iter()
            .all(|s| s.hand.is_empty() && s.hand_count == 0)
    );
    assert!(view.legal.is_none());
    let late = client
        .join_game(v1::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(1),
            display_name: "Bob".into(),
        })
        .await
        .expect_err("over");
    assert_eq!(reason(&late), "GAME_FINISHED");
    let record = client
        .export_game(v1::ExportGameRequest {
            game_id: id.clone(),
        })
        .await
        .expect("a finished game exports")
        .into_inner()
        .record
        .expect("a record");
    assert!(record.actions.is_empty());
    assert_eq!(record.result, Some(result));
    assert_place_is_free(&mut client).await;
    server.stop().await;
}

// A started game without a time control in which no seat acts (`--idle-timeout-secs`, from
// its last join; not a millisecond before) is abandoned, with no winner: the seat's Play call
// that stays open but never acts ends with MatchEnded too. Its place is free, its actions
// refused, its record exported.
#[tokio::test]
async fn a_started_game_nobody_plays_is_abandoned() {
    let config = config(0.0, IDLE.as_secs_f64(), 0.0)
        .max_games(1)
        .build()
        .unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    let (game, _) = new_game(&mut client, 0).await;
    let id = game.game_id.clone();
    let mut spectator = spectate(&mut client, &id).await;
    let tokens = join_all(&mut client, &game).await;
    let mut silent = PlayCall::open(&mut client, Some(&tokens[0]), watch(&id))
        .await
        .expect("a Play call");
    server.advance(IDLE - MS).await;
    let playing = summary_of(&mut client, &id).await;
    assert_eq!(
        playing.status,
        v1::GameStatus::Playing as i32,
        "{playing:?}"
    );
    server.advance(MS).await;
    let result = match_ended(&mut spectator).await;
    assert_ended(&mut client, &id, &result, v1::MatchEndKind::Abandoned).await;
    // The silent Play call sees the same end, and ends.
    let mut ended = None;
    while let Some(kind) = silent.next().await {
        if let v1::play_response::Kind::Update(v1::WatchGameResponse {
            kind:
                Some(Msg::Event(v1::GameEvent {
                    kind: Some(v1::game_event::Kind::MatchEnded(m)),
                    ..
                })),
        }) = kind
        {
            ended = m.result;
        }
    }
    assert_eq!(ended.as_ref(), Some(&result));
    let view = view_of(&mut client, &id, Some(&tokens[0]), true).await;
    assert!(view.legal.is_none(), "nobody is to act");
    let refused = client
        .leave_game(authed(
            v1::LeaveGameRequest {
                game_id: id.clone(),
            },
            &tokens[1],
        ))
        .await
        .expect_err("over");
    assert_eq!(reason(&refused), "GAME_FINISHED");
    let record = client
        .export_game(v1::ExportGameRequest {
            game_id: id.clone(),
        })
        .await
        .expect("a finished game exports")
        .into_inner()
        .record
        .expect("a record");
    assert_eq!(record.result, Some(result));
    assert_place_is_free(&mut client).await;
    server.stop().await;
}

// A started game whose every seat is left (`--left-timeout-secs`, from the last leave; not a
// millisecond before) is abandoned, with or without a time control: here a day a move, which
// would take days of time-outs.
#[tokio::test]
async fn a_started_game_whose_seats_all_left_is_abandoned() {
    let config = config(0.0, 0.0, LEFT.as_secs_f64())
        .max_games(1)
        .build()
        .unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    for budget_ms in [0, 86_400_000] {
        let (game, _) = new_game(&mut client, budget_ms).await;
        let id = game.game_id.clone();
        let mut spectator = spectate(&mut client, &id).await;
        let tokens = join_all(&mut client, &game).await;
        for token in &tokens {
            client
                .leave_game(authed(
                    v1::LeaveGameRequest {
                        game_id: id.clone(),
                    },
                    token,
                ))
                .await
                .expect("the seat is left");
        }
        server.advance(LEFT - MS).await;
        let playing = summary_of(&mut client, &id).await;
        assert_eq!(
            playing.status,
            v1::GameStatus::Playing as i32,
            "{playing:?}"
        );
        server.advance(MS).await;
        let result = match_ended(&mut spectator).await;
        assert_ended(&mut client, &id, &result, v1::MatchEndKind::Abandoned).await;
        let summary = summary_of(&mut client, &id).await;
        assert!(summary.seats.iter().all(|s| !s.occupied));
        // The place is free: the next round's game is created on a server of one place.
    }
    assert_place_is_free(&mut client).await;
    server.stop().await;
}

// CreateGame returns a creator token (128 random bits, fresh for each game) that cancels the
// game while it waits: MATCH_END_KIND_CANCELLED, seen by its watchers, its place free; a
// retry answers the same. No other token cancels it (UNAUTHENTICATED without one or with a
// malformed one, PERMISSION_DENIED NOT_GAME_CREATOR with a seat's or another game's), and a
// started game is not cancelled (FAILED_PRECONDITION GAME_STARTED).
#[tokio::test]
async fn the_creator_cancels_a_waiting_game_and_nobody_else_does() {
    let config = test_config().max_games(2).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let (game, creator) = new_game(&mut client, 0).await;
    let (other, other_creator) = new_game(&mut client, 0).await;
    for token in [&creator, &other_creator] {
        assert_eq!(token.len(), 32, "{token}");
        assert!(token.chars().all(|c| c.is_ascii_hexdigit()), "{token}");
    }
    assert_ne!(creator, other_creator);
    let id = game.game_id.clone();
    let mut spectator = spectate(&mut client, &id).await;
    let seat = client
        .join_game(v1::JoinGameRequest {
            game_id: id.clone(),
            seat: None,
            display_name: "Ann".into(),
        })
        .await
        .expect("a seat")
        .into_inner()
        .token;
    let before = summary_of(&mut client, &id).await;

    let refused = cancel(&mut client, &id, None).await.expect_err("no token");
    assert_eq!(refused.code(), Code::Unauthenticated);
    assert_eq!(reason(&refused), "MISSING_TOKEN");
    assert!(refused.message().contains("creator_token"), "{refused:?}");
    let mut malformed = Request::new(v1::CancelGameRequest {
        game_id: id.clone(),
    });
    malformed
        .metadata_mut()
        .insert("authorization", "Basic abc".parse().expect("ascii"));
    let refused = client.cancel_game(malformed).await.expect_err("malformed");
    assert_eq!(reason(&refused), "MALFORMED_TOKEN");
    for wrong in [&seat, &other_creator, &"0".repeat(32)] {
        let refused = cancel(&mut client, &id, Some(wrong))
            .await
            .expect_err("not the creator");
        assert_eq!(refused.code(), Code::PermissionDenied);
        assert_eq!(reason(&refused), "NOT_GAME_CREATOR");
    }
    let refused = cancel(&mut client, "0000000000000000", Some(&creator))
        .await
        .expect_err("no such game");
    assert_eq!(reason(&refused), "GAME_NOT_FOUND");
    assert_eq!(
        summary_of(&mut client, &id).await,
        before,
        "nothing changed"
    );

    let cancelled = cancel(&mut client, &id, Some(&creator))
        .await
        .expect("the creator cancels");
    let result = match_ended(&mut spectator).await;
    assert_eq!(
        assert_ended(&mut client, &id, &result, v1::MatchEndKind::Cancelled).await,
        cancelled
    );
    assert_eq!(cancelled.seq, before.seq + 1, "MatchEnded alone");
    assert_eq!(
        cancel(&mut client, &id, Some(&creator))
            .await
            .expect("a retry"),
        cancelled,
        "a retry is answered the same"
    );
    // Its place is free: two games fit again.
    let (third, _) = new_game(&mut client, 0).await;

    // A started game is not cancelled, and stays as it was.
    join_all(&mut client, &other).await;
    let started = summary_of(&mut client, &other.game_id).await;
    let refused = cancel(&mut client, &other.game_id, Some(&other_creator))
        .await
        .expect_err("started");
    assert_eq!(refused.code(), Code::FailedPrecondition);
    assert_eq!(reason(&refused), "GAME_STARTED");
    assert!(
        refused.message().contains("started") && refused.message().contains("can no longer"),
        "{}",
        refused.message()
    );
    assert_eq!(summary_of(&mut client, &other.game_id).await, started);
    assert_eq!(
        summary_of(&mut client, &third.game_id).await.status,
        v1::GameStatus::Waiting as i32
    );
    server.stop().await;
}

/// A server on the database `db` with these timeouts (seconds), on a paused clock.
async fn server_on(db: &std::path::Path, waiting: f64, idle: f64) -> TestServer {
    let config = config(waiting, idle, 0.0)
        .storage(Storage::sqlite(db))
        .build()
        .unwrap();
    paused(config).await
}

// Every end is stored: a restarted server serves the ended games as they ended, whatever its
// own policies, with the same events; and it arms the pending policies again (counted from the
// times the log holds, so at most their timeouts after the restart): a game that a server
// without an idle policy kept is ended by one that has it, a waiting game kept by a server
// with a day's policy expires on one with an hour's.
#[tokio::test]
async fn ends_survive_a_restart_and_a_restart_arms_the_pending_policies() {
    let dir = temp_dir("unplayed");
    let db = dir.path().join("canasta.db");
    // The first server: a day to fill a game; started ones are never idle.
    let server = server_on(&db, 86_400.0, 0.0).await;
    let mut client = server.client().await;
    let (cancelled, creator) = new_game(&mut client, 0).await;
    let mut spectator = spectate(&mut client, &cancelled.game_id).await;
    cancel(&mut client, &cancelled.game_id, Some(&creator))
        .await
        .expect("the creator cancels");
    let result = match_ended(&mut spectator).await;
    let cancelled_summary = assert_ended(
        &mut client,
        &cancelled.game_id,
        &result,
        v1::MatchEndKind::Cancelled,
    )
    .await;
    let (started, _) = new_game(&mut client, 0).await;
    join_all(&mut client, &started).await;
    let started_summary = summary_of(&mut client, &started.game_id).await;
    assert_eq!(started_summary.status, v1::GameStatus::Playing as i32);
    server.stop().await;

    // The second: a day to fill a game, a day idle.
    let server = server_on(&db, 86_400.0, IDLE.as_secs_f64()).await;
    let mut client = server.client().await;
    assert_eq!(
        summary_of(&mut client, &cancelled.game_id).await,
        cancelled_summary
    );
    let mut replayed = spectate(&mut client, &cancelled.game_id).await;
    assert_eq!(match_ended(&mut replayed).await, result);
    assert_eq!(
        cancel(&mut client, &cancelled.game_id, Some(&creator))
            .await
            .expect("a retry"),
        cancelled_summary,
        "its creator token was kept"
    );
    let mut spectator = spectate(&mut client, &started.game_id).await;
    server.advance(IDLE).await;
    let abandoned = match_ended(&mut spectator).await;
    let abandoned_summary = assert_ended(
        &mut client,
        &started.game_id,
        &abandoned,
        v1::MatchEndKind::Abandoned,
    )
    .await;
    assert_eq!(abandoned_summary.seq, started_summary.seq + 1);
    let (waiting, creator) = new_game(&mut client, 0).await;
    server.stop().await;

    // The third: every game ended is as it ended; the waiting one expires.
    let server = server_on(&db, WAITING.as_secs_f64(), 0.0).await;
    let mut client = server.client().await;
    assert_eq!(
        summary_of(&mut client, &started.game_id).await,
        abandoned_summary
    );
    let mut spectator = spectate(&mut client, &waiting.game_id).await;
    server.advance(WAITING).await;
    let result = match_ended(&mut spectator).await;
    assert_ended(
        &mut client,
        &waiting.game_id,
        &result,
        v1::MatchEndKind::Expired,
    )
    .await;
    // Its creator token was kept, and the game is over.
    let refused = cancel(&mut client, &waiting.game_id, Some(&creator))
        .await
        .expect_err("over");
    assert_eq!(reason(&refused), "GAME_FINISHED");
    server.stop().await;
}

// JoinGame says what is wrong: without a display name, that it is required (never a
// character count); a seat that does not exist, as such (its field and the valid seats),
// whatever the name.
#[tokio::test]
async fn join_game_says_a_name_is_required_and_names_a_bad_seat_first() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (game, _) = new_game(&mut client, 0).await;
    let join = |seat: Option<u32>, name: &str| v1::JoinGameRequest {
        game_id: game.game_id.clone(),
        seat,
        display_name: name.to_string(),
    };
    let refused = client.join_game(join(None, "")).await.expect_err("no name");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert_eq!(reason(&refused), "MISSING_FIELD");
    assert!(
        refused.message().contains("display_name is required"),
        "{}",
        refused.message()
    );
    assert!(
        !refused.message().contains("this one has"),
        "{}",
        refused.message()
    );
    for name in ["", "Ann", "\u{202E}x"] {
        let refused = client
            .join_game(join(Some(7), name))
            .await
            .expect_err("no seat 7");
        assert_eq!(refused.code(), Code::InvalidArgument);
        assert_eq!(reason(&refused), "INVALID_SEAT", "{name:?}");
        assert!(
            refused.message().contains("0 to 1"),
            "{}",
            refused.message()
        );
        use tonic_types::StatusExt;
        let fields: Vec<String> = refused
            .get_details_bad_request()
            .map(|b| b.field_violations.into_iter().map(|v| v.field).collect())
            .unwrap_or_default();
        assert_eq!(fields, ["seat"]);
    }
    server.stop().await;
}
