//! The lobby's times on a paused clock: a challenge nobody answers expires after
//! `--challenge-timeout-secs` (every player told), and is then closed to answers; a seek's
//! stream beats while its player waits.

mod clock;

use std::time::Duration;

use canasta_proto::v1;
use canasta_tests::lobby::*;
use canasta_tests::*;
use clock::{Advance, paused};
use tonic::Code;

#[tokio::test]
async fn an_unanswered_challenge_expires_and_is_closed_to_answers() {
    let config = test_config()
        .challenge_timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let server = paused(config).await;
    let mut lobby = lobby(server.addr).await;
    let ann = register(&mut lobby, "ann").await;
    let bob = register(&mut lobby, "bob").await;
    let mut bob_events = watch_player(&mut lobby, &bob, 0).await;
    let made = make_challenge(
        &mut lobby,
        &ann,
        v1::CreateChallengeRequest {
            rules: Some(rules(v1::Preset::Official, 2, &[])),
            seats: vec!["ann".into(), "bob".into()],
            ..Default::default()
        },
    )
    .await;
    events_until(&mut bob_events, 0, |_| true).await;
    // At the time-out bob is told it expired: his next event.
    server.advance(Duration::from_secs(60)).await;
    let expired = events_until(&mut bob_events, 1, |_| true).await;
    let Some(v1::player_event::Kind::Challenge(c)) = &expired[0].kind else {
        panic!("{expired:?}")
    };
    assert_eq!(c.challenge_id, made.challenge_id);
    assert_eq!(c.status, v1::ChallengeStatus::Expired as i32);
    let late = lobby
        .answer_challenge(authed(
            v1::AnswerChallengeRequest {
                challenge_id: made.challenge_id.clone(),
                accept: true,
            },
            &bob,
        ))
        .await;
    refused(late, Code::FailedPrecondition, "CHALLENGE_CLOSED");
    // ann may challenge again: the expired one no longer counts against her.
    let again = lobby
        .create_challenge(authed(
            v1::CreateChallengeRequest {
                rules: Some(rules(v1::Preset::Official, 2, &[])),
                seats: vec!["ann".into(), "bob".into()],
                ..Default::default()
            },
            &ann,
        ))
        .await;
    assert!(again.is_ok(), "{again:?}");
    // Kept a while for late answers, then forgotten.
    server.advance(Duration::from_secs(61)).await;
    let forgotten = lobby
        .answer_challenge(authed(
            v1::AnswerChallengeRequest {
                challenge_id: made.challenge_id.clone(),
                accept: true,
            },
            &bob,
        ))
        .await;
    refused(forgotten, Code::NotFound, "CHALLENGE_NOT_FOUND");
    server.stop().await;
}

#[tokio::test]
async fn a_waiting_seek_beats_with_the_queue_s_state() {
    let config = test_config()
        .heartbeat(Duration::from_secs(15))
        .build()
        .unwrap();
    let server = paused(config).await;
    let mut lobby = lobby(server.addr).await;
    let ann = register(&mut lobby, "ann").await;
    let mut waiting = seek(&mut lobby, &ann, short_seek(3)).await;
    let first = waiting.message().await.unwrap().unwrap();
    let Some(v1::seek_response::Kind::Waiting(w)) = first.kind else {
        panic!("{first:?}")
    };
    assert_eq!((w.waiting, w.needed), (1, 3));
    server.advance(Duration::from_secs(15)).await;
    let beat = waiting.message().await.unwrap().unwrap();
    assert_eq!(beat.kind, Some(v1::seek_response::Kind::Waiting(w)));
    server.stop().await;
}
