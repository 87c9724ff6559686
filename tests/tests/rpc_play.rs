//! The Play call: a seat watches and acts over one bidirectional stream. Games played to the
//! end over it, refusals answered on the stream without ending it or changing the game,
//! retries applied once, and a call that does not open properly refused.

mod clock;

use std::time::Duration;

use canasta_engine::{Action, Seat, Viewer};
use canasta_proto::v1;
use canasta_tests::play::*;
use canasta_tests::replica::*;
use canasta_tests::*;
use clock::*;
use tokio_stream::StreamExt;
use tonic::Code;

// Both seats play a whole deal over their Play calls: each action's result names its request
// and the game's seq after it, and each call carries the events redacted for its seat, the
// same as WatchGame gives, through the end of the match.
#[tokio::test]
async fn a_game_is_played_to_the_end_over_play_calls() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, mut replica) = started(&mut client, request).await;
    let mut calls = Vec::new();
    for token in &tokens {
        calls.push(
            PlayCall::open(&mut client, Some(token), watch(&id))
                .await
                .expect("a Play call"),
        );
    }
    for (i, (seat, action)) in script.iter().enumerate() {
        let call = &mut calls[*seat as usize];
        let request_id = format!("r{i}");
        call.send(submit(&id, replica.seq(), &request_id, action))
            .await;
        let result = call.result().await;
        replica.apply(*seat, action);
        assert_eq!(result.request_id, request_id);
        assert_eq!(result.error, None, "{action}");
        assert_eq!(result.seq, Some(replica.seq()));
    }
    for (s, call) in calls.iter_mut().enumerate() {
        let got = call.events_until(replica.seq()).await.to_vec();
        assert_eq!(got, replica.events(Viewer::Seat(Seat(s as u8))), "seat {s}");
    }
    server.stop().await;
}

// A refused action is answered on the stream with the reason SubmitAction gives, changes
// nothing, and the call goes on: the next, legal action is applied. The refusals: another
// seat's turn, a stale seq, another game's id, no action, a second opening request.
#[tokio::test]
async fn refusals_are_answered_on_the_stream_which_goes_on() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, mut replica) = started(&mut client, request).await;
    let (seat, action) = script[0].clone();
    let other = 1 - seat as usize;
    let mut mine = PlayCall::open(&mut client, Some(&tokens[seat as usize]), watch(&id))
        .await
        .expect("a Play call");
    let mut theirs = PlayCall::open(&mut client, Some(&tokens[other]), watch(&id))
        .await
        .expect("a Play call");
    let seq = replica.seq();

    theirs
        .send(submit(&id, seq, "early", &Action::DrawStock))
        .await;
    let refused = theirs.result().await;
    assert_eq!(refused.request_id, "early");
    assert_eq!(refused.seq, None);
    let error = refused.error.expect("refused");
    assert_eq!(error.code, Code::FailedPrecondition as i32, "{error:?}");
    assert_eq!(error.reason, "NOT_YOUR_TURN", "{error:?}");
    assert!(!error.message.is_empty());

    mine.send(submit(&id, seq - 1, "stale", &action)).await;
    let error = mine.result().await.error.expect("refused");
    assert_eq!(
        (error.code, error.reason.as_str()),
        (Code::Aborted as i32, "STALE_SEQ")
    );
    assert_eq!(
        error.metadata.get("seq").map(String::as_str),
        Some(seq.to_string().as_str())
    );

    mine.send(submit("another-game", seq, "elsewhere", &action))
        .await;
    let error = mine.result().await.error.expect("refused");
    assert_eq!(
        (error.code, error.reason.as_str(), error.field.as_str()),
        (Code::InvalidArgument as i32, "WRONG_GAME", "submit.game_id")
    );

    let mut empty = submit(&id, seq, "empty", &action);
    if let Some(v1::play_request::Kind::Submit(s)) = &mut empty.kind {
        s.action = None;
    }
    mine.send(empty).await;
    let error = mine.result().await.error.expect("refused");
    assert_eq!(error.reason, "MISSING_FIELD");

    mine.send(watch(&id)).await;
    let error = mine.result().await.error.expect("refused");
    assert_eq!(error.reason, "PLAY_ALREADY_OPEN");

    assert_eq!(game_seq(&mut client, &id).await, seq, "nothing changed");
    // The call goes on; the game id may be left out.
    mine.send(submit("", seq, "draw", &action)).await;
    let applied = mine.result().await;
    replica.apply(seat, &action);
    assert_eq!(
        (applied.request_id.as_str(), applied.seq, applied.error),
        ("draw", Some(replica.seq()), None)
    );
    server.stop().await;
}

// An action sent again with the same request id (a client that lost the answer) is applied
// once and answered as the first time, over Play as over SubmitAction.
#[tokio::test]
async fn a_retried_action_is_applied_once() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, mut replica) = started(&mut client, request).await;
    let (seat, action) = script[0].clone();
    let mut call = PlayCall::open(&mut client, Some(&tokens[seat as usize]), watch(&id))
        .await
        .expect("a Play call");
    let seq = replica.seq();
    call.send(submit(&id, seq, "once", &action)).await;
    let first = call.result().await;
    replica.apply(seat, &action);
    call.send(submit(&id, seq, "once", &action)).await;
    let again = call.result().await;
    assert_eq!(first, again);
    assert_eq!(first.seq, Some(replica.seq()));
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    server.stop().await;
}

// A Play call needs a seat's token, and must open with `watch`: otherwise it is refused at
// once and nothing is played.
#[tokio::test]
async fn a_play_call_opens_with_watch_and_a_seat_token() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, replica) = started(&mut client, request).await;
    let (seat, action) = script[0].clone();

    let refused = PlayCall::open(&mut client, None, watch(&id))
        .await
        .err()
        .expect("refused");
    assert_eq!(refused.code(), Code::Unauthenticated, "{refused:?}");

    let first = submit(&id, replica.seq(), "first", &action);
    let refused = PlayCall::open(&mut client, Some(&tokens[seat as usize]), first)
        .await
        .err()
        .expect("refused");
    assert_eq!(refused.code(), Code::InvalidArgument, "{refused:?}");
    assert_eq!(reason(&refused), "PLAY_NOT_OPENED");
    assert!(refused.message().contains("watch"), "{}", refused.message());

    let refused = PlayCall::open(&mut client, Some(&tokens[seat as usize]), watch("nope"))
        .await
        .err()
        .expect("refused");
    assert_eq!(refused.code(), Code::NotFound, "{refused:?}");
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    server.stop().await;
}

// Every action sent on a Play call spends from the seat's request rate, as a SubmitAction
// call does: past the burst, actions are refused RATE_LIMITED with the time to wait, and the
// call goes on. On a paused server clock, nothing of the budget comes back meanwhile: the wait
// is one request's place, a second.
#[tokio::test]
async fn actions_on_a_play_call_spend_from_the_seat_rate() {
    let config = test_config().requests_per_second(1.0).build().unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, replica) = started(&mut client, request).await;
    let (seat, _) = script[0].clone();
    let mut call = PlayCall::open(&mut client, Some(&tokens[seat as usize]), watch(&id))
        .await
        .expect("a Play call");
    // Refused for the stale seq or for the rate, never applied.
    let mut limited = None;
    for i in 0..10 {
        let request = submit(&id, replica.seq() - 1, &format!("x{i}"), &Action::DrawStock);
        call.send(request).await;
        let error = call.result().await.error.expect("refused");
        if error.reason == "RATE_LIMITED" {
            limited = Some(error);
            break;
        }
        assert_eq!(error.reason, "STALE_SEQ");
    }
    let limited = limited.expect("the rate runs out within 10 actions");
    assert_eq!(limited.code, Code::ResourceExhausted as i32);
    assert_eq!(limited.retry_after_ms, 1000, "{limited:?}");
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    server.stop().await;
}

// A message over the size limit on a Play call ends the call with the limit's refusal
// (RESOURCE_EXHAUSTED MESSAGE_TOO_LARGE, as for any request), and plays nothing.
#[tokio::test]
async fn an_oversized_message_ends_the_call_with_the_limit() {
    let config = test_config().max_message_bytes(4096).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, replica) = started(&mut client, request).await;
    let (seat, action) = script[0].clone();
    let mut call = PlayCall::open(&mut client, Some(&tokens[seat as usize]), watch(&id))
        .await
        .expect("a Play call");
    let huge = "x".repeat(10_000);
    call.send(submit(&id, replica.seq(), &huge, &action)).await;
    let status = loop {
        let next = tokio::time::timeout(Duration::from_secs(10), call.responses.next())
            .await
            .expect("an answer within 10 s");
        match next {
            Some(Ok(_)) => continue,
            Some(Err(status)) => break status,
            None => panic!("the call ended without saying why"),
        }
    };
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(reason(&status), "MESSAGE_TOO_LARGE");
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    server.stop().await;
}

// A Play call that never sends its opening message ends when --play-open-timeout-secs have
// passed, DEADLINE_EXCEEDED PLAY_NOT_OPENED, instead of being held for ever (it was); not a
// moment before. The server's clock is paused: the test moves it on. (The 10 s are a guard
// against a hang, on the test's clock.)
#[tokio::test]
async fn a_play_call_that_never_opens_ends_at_its_deadline() {
    let wait = Duration::from_millis(200);
    let config = test_config().play_open_timeout(wait).build().unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    let (request, _) = short_game();
    let (id, tokens, replica) = started(&mut client, request).await;
    for token in [tokens[0].as_str(), "made-up-token-made-up-token-0000"] {
        let call = silent_play(&client, Some(token)).await;
        // Answered after the call on the same connection: the call's handler waits (the
        // server's one thread takes its tasks in turn).
        game_seq(&mut client, &id).await;
        server.advance(wait - Duration::from_millis(1)).await;
        game_seq(&mut client, &id).await;
        assert!(!call.is_finished(), "the call ended before its deadline");
        server.advance(Duration::from_millis(1)).await;
        let answer = tokio::time::timeout(Duration::from_secs(10), call)
            .await
            .expect("the silent call ends")
            .unwrap();
        let status = answer.expect_err("a call that sent nothing is refused");
        assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
        assert_eq!(reason(&status), "PLAY_NOT_OPENED");
        assert!(status.message().contains("watch"), "{}", status.message());
    }
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    server.stop().await;
}

// Play calls of a seat's token that send nothing hold none of the token's stream places:
// with 2 places, two silent calls leave both to the seat's WatchGame and Play calls (they
// took both, locking the seat out of its own game, when a place was taken at the call's
// start). The silent calls then end at their deadline, when the test moves the server's
// paused clock there.
#[tokio::test]
async fn silent_play_calls_do_not_lock_a_seat_out() {
    let wait = Duration::from_secs(3);
    let config = test_config()
        .max_watchers_per_token(2)
        .play_open_timeout(wait)
        .build()
        .unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    let (request, _) = short_game();
    let (id, tokens, replica) = started(&mut client, request).await;
    let token = &tokens[0];
    let mut silent = Vec::new();
    for _ in 0..2 {
        silent.push(silent_play(&client, Some(token)).await);
    }
    // The calls' headers are on the connection before this request's: once it is answered,
    // their handlers have started (the server's one thread takes its tasks in turn). (Were a
    // place taken at a call's start, the seat's streams below would be refused, or else the
    // silent calls would be, TOO_MANY_WATCHERS instead of at their deadline.)
    game_seq(&mut client, &id).await;
    let watch_stream = client
        .watch_game(authed(
            v1::WatchGameRequest {
                game_id: id.clone(),
                after_seq: 0,
                include_actions: false,
                include_view: false,
            },
            token,
        ))
        .await
        .expect("the seat watches its game");
    let mut call = PlayCall::open(&mut client, Some(token), watch(&id))
        .await
        .expect("the seat plays its game");
    call.events_until(replica.seq()).await;
    // Both places are the seat's streams': a third is refused.
    let third = PlayCall::open(&mut client, Some(token), watch(&id))
        .await
        .err()
        .expect("a third stream is over the limit");
    assert_eq!(reason(&third), "TOO_MANY_WATCHERS");
    server.advance(wait).await;
    for answer in silent {
        let answer = tokio::time::timeout(Duration::from_secs(10), answer)
            .await
            .expect("the silent call ends")
            .unwrap();
        let status = answer.expect_err("refused at its deadline");
        assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
        assert_eq!(reason(&status), "PLAY_NOT_OPENED");
    }
    drop((watch_stream, call));
    server.stop().await;
}
