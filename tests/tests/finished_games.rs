//! Finished games are kept compact: the server drops a finished game's events, record and
//! applied requests, keeps its log's entries as stored, and rebuilds the rest when a request
//! needs it. None of it may show: after the end, a watch from any seq (by each seat, by a
//! spectator, over WatchGame or Play) gets exactly the events the live streams got, the export
//! is the record of the actions submitted (the engine replays it to those events), and a
//! retried SubmitAction is answered exactly as the first time; on memory storage, on SQLite,
//! and after a restart from SQLite.

mod clock;

use std::time::Duration;

use canasta_engine::{Seat, Viewer};
use canasta_proto::convert::action_from_wire;
use canasta_proto::v1;
use canasta_proto::v1::game_event::Kind as Ev;
use canasta_proto::v1::play_response::Kind as Play;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use canasta_server::Storage;
use canasta_tests::replica::*;
use canasta_tests::*;
use clock::*;
use tokio::sync::mpsc;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Streaming;

/// A game played over RPC to its end, and what its clients got while it was played.
struct Played {
    id: String,
    request: v1::CreateGameRequest,
    tokens: Vec<String>,
    /// Every message of each viewer's live stream (opened before the first action, read to
    /// its end): the seats' in seat order, then a spectator's.
    live: Vec<Vec<Msg>>,
    /// Every action submitted: its seat, the request and the first answer.
    submitted: Vec<(usize, v1::SubmitActionRequest, v1::SubmitActionResponse)>,
    /// The match ended by a forfeit (a move's time ran out), not by the rules.
    forfeit: bool,
}

impl Played {
    /// The events of viewer `v`'s live stream.
    fn events(&self, v: usize) -> Vec<v1::GameEvent> {
        events(&self.live[v])
    }

    /// The viewers: each seat's token, then none for a spectator.
    fn viewers(&self) -> Vec<Option<&str>> {
        self.tokens
            .iter()
            .map(|t| Some(t.as_str()))
            .chain([None])
            .collect()
    }
}

/// A four-player match short enough for a test: official rules, target 50, one canasta to go
/// out.
fn short_match(seed: u64) -> v1::CreateGameRequest {
    v1::CreateGameRequest {
        rules: Some(rules(
            v1::Preset::Official,
            4,
            &[("target_score", "50"), ("canastas_to_go_out", "1")],
        )),
        seed: Some(seed),
        ..Default::default()
    }
}

/// A server whose rate limit lets a whole match be played (the limit is not under test here);
/// SQLite storage at `db` if given. Its clock is paused: a move budget runs out when the test
/// moves the clock on, never while the seats are playing.
async fn server(db: Option<&std::path::Path>) -> TestServer {
    let mut config = test_config().requests_per_second(100_000.0);
    if let Some(db) = db {
        config = config.storage(Storage::sqlite(db));
    }
    paused(config.build().unwrap()).await
}

async fn watch(
    client: &mut Client,
    id: &str,
    token: Option<&str>,
    after_seq: u64,
) -> Streaming<v1::WatchGameResponse> {
    open_watch(client, id, token, after_seq, true)
        .await
        .expect("a watch stream")
}

/// Creates `request`'s game, opens a live stream for each seat and a spectator, and plays:
/// every seat acts on its view's choices (going out when it can, else melding, else the last
/// listed action), to the end, or for `actions` actions after which the seats stop acting and
/// the move budget runs out (the test moves `server`'s clock past it).
async fn play(
    server: &TestServer,
    client: &mut Client,
    request: v1::CreateGameRequest,
    actions: usize,
) -> Played {
    let game = create_with(client, request.clone()).await;
    let id = game.game_id.clone();
    let spectator = watch(client, &id, None, 0).await;
    let tokens = join_all(client, &game).await;
    let mut streams = Vec::new();
    for token in &tokens {
        streams.push(watch(client, &id, Some(token), 0).await);
    }
    streams.push(spectator);
    let readers: Vec<_> = streams
        .into_iter()
        .map(|mut s| tokio::spawn(async move { read_to_end(&mut s).await }))
        .collect();
    let mut submitted = Vec::new();
    'game: while submitted.len() < actions {
        let mut progressed = false;
        for (seat, token) in tokens.iter().enumerate() {
            let view = client
                .get_view(authed(
                    v1::GetViewRequest {
                        game_id: id.clone(),
                        include_actions: true,
                    },
                    token,
                ))
                .await
                .expect("a view")
                .into_inner();
            let seq = view.view.as_ref().expect("a view").seq;
            if view.view.as_ref().expect("a view").status == v1::GameStatus::Finished as i32 {
                break 'game;
            }
            let Some(legal) = view.legal else { continue };
            let find = |f: fn(&v1::action::Kind) -> bool| {
                legal
                    .actions
                    .iter()
                    .position(|a| a.kind.as_ref().is_some_and(f))
            };
            let pick = find(|k| matches!(k, v1::action::Kind::GoOut(_)))
                .or_else(|| find(|k| matches!(k, v1::action::Kind::Meld(_))))
                .unwrap_or(legal.actions.len() - 1);
            let submit = v1::SubmitActionRequest {
                game_id: id.clone(),
                expected_seq: seq,
                request_id: format!("seat{seat}-{}", submitted.len()),
                action: Some(legal.actions[pick].clone()),
            };
            let answer = client
                .submit_action(authed(submit.clone(), token))
                .await
                .expect("a listed action is applied")
                .into_inner();
            submitted.push((seat, submit, answer));
            progressed = true;
            if submitted.len() == actions {
                break 'game;
            }
        }
        assert!(progressed, "no seat could act");
        assert!(submitted.len() < 5000, "the match ends");
    }
    if let Some(budget) = request.time_control.as_ref().map(|t| t.move_budget_ms)
        && submitted.len() == actions
    {
        server.advance(Duration::from_millis(budget)).await;
    }
    let mut live = Vec::new();
    for reader in readers {
        live.push(reader.await.expect("a stream read to its end"));
    }
    let played = Played {
        id,
        request,
        tokens,
        live,
        submitted,
        forfeit: actions != usize::MAX,
    };
    for v in 0..played.live.len() {
        let last = played.events(v).pop().and_then(|e| e.kind);
        assert!(matches!(last, Some(Ev::MatchEnded(_))), "{last:?}");
    }
    played
}

/// Reads a Play call opened on a finished game to its end: its updates.
async fn play_call_to_end(client: &mut Client, id: &str, token: &str) -> Vec<Msg> {
    let (requests, rx) = mpsc::channel(1);
    requests
        .send(v1::PlayRequest {
            kind: Some(v1::play_request::Kind::Watch(v1::WatchGameRequest {
                game_id: id.to_string(),
                after_seq: 0,
                include_actions: true,
                include_view: true,
            })),
        })
        .await
        .expect("the receiver is here");
    let mut responses = client
        .play(authed(ReceiverStream::new(rx), token))
        .await
        .expect("a Play call")
        .into_inner();
    let mut out = Vec::new();
    while let Some(message) = tokio::time::timeout(Duration::from_secs(10), responses.next())
        .await
        .expect("a message within 10 s")
    {
        match message.expect("a good message").kind {
            Some(Play::Update(u)) => out.push(u.kind.expect("a message kind")),
            other => panic!("a finished game's Play call sent {other:?}"),
        }
    }
    out
}

/// Asserts that the finished game answers every request that needs its log as it did while
/// it was played.
async fn assert_served_as_played(client: &mut Client, played: &Played) {
    let id = played.id.as_str();
    // (a) Watches from the start, the middle and the end get exactly the live events, and
    // nothing else: the stream ends after them.
    for (v, viewer) in played.viewers().into_iter().enumerate() {
        let live: Vec<Msg> = played.events(v).into_iter().map(Msg::Event).collect();
        for after in [0, live.len() / 2, live.len() - 1, live.len()] {
            let got = read_to_end(&mut watch(client, id, viewer, after as u64).await).await;
            assert_eq!(got, live[after..], "viewer {v} after seq {after}");
        }
    }
    for (seat, token) in played.tokens.iter().enumerate() {
        let got = play_call_to_end(client, id, token).await;
        let live: Vec<Msg> = played.events(seat).into_iter().map(Msg::Event).collect();
        assert_eq!(got, live, "seat {seat}'s Play call");
    }

    // (b) The export is the record of the actions submitted, which the engine replays to the
    // events each viewer got.
    let record = client
        .export_game(v1::ExportGameRequest {
            game_id: id.to_string(),
        })
        .await
        .expect("a finished game exports")
        .into_inner()
        .record
        .expect("a record");
    let recorded: Vec<(u32, v1::Action)> = record
        .actions
        .iter()
        .map(|a| (a.seat, a.action.clone().expect("an action")))
        .collect();
    let submitted: Vec<(u32, v1::Action)> = played
        .submitted
        .iter()
        .map(|(seat, r, _)| (*seat as u32, r.action.clone().expect("an action")))
        .collect();
    assert_eq!(recorded, submitted);
    let mut replica = Replica::joined(&played.request);
    for (seat, action) in &recorded {
        replica.apply(
            *seat as u8,
            &action_from_wire(action).expect("a valid action"),
        );
    }
    // A forfeit ends with the server's TimedOut and MatchEnded, which the engine knows nothing of.
    let tail = if played.forfeit { 2 } else { 0 };
    for v in 0..played.live.len() {
        let viewer = match v {
            v if v < played.tokens.len() => Viewer::Seat(Seat(v as u8)),
            _ => Viewer::Spectator,
        };
        let live = played.events(v);
        assert_eq!(
            replica.events(viewer),
            live[..live.len() - tail],
            "viewer {v}"
        );
    }
    let scores = client
        .get_scores(v1::GetScoresRequest {
            game_id: id.to_string(),
        })
        .await
        .expect("the scores")
        .into_inner();
    assert_eq!(record.result, scores.result);
    assert!(record.result.as_ref().is_some_and(|r| r.finished));

    // (c) A retried SubmitAction (the same seat, request id and action) is answered exactly as
    // the first time, events included: the last action and the first.
    let (first, last) = (
        &played.submitted[0],
        played.submitted.last().expect("an action"),
    );
    for (seat, request, answer) in [last, first] {
        let again = client
            .submit_action(authed(request.clone(), &played.tokens[*seat]))
            .await
            .expect("a retry is answered")
            .into_inner();
        assert_eq!(&again, answer, "a retry of {}", request.request_id);
        assert!(!again.events.is_empty());
    }
    // A new action is refused as by any finished game.
    let mut fresh = last.1.clone();
    fresh.request_id = "fresh".into();
    let status = client
        .submit_action(authed(fresh, &played.tokens[last.0]))
        .await
        .expect_err("the match is over");
    assert_eq!(reason(&status), "GAME_FINISHED", "{status:?}");
}

// In memory: a match played to its end by the rules, and one ended by a forfeit (the time-out
// finishes it, not an action), are served after the end as they were played; twice, since a
// rebuild must leave nothing behind that changes the next.
#[tokio::test]
async fn finished_games_in_memory_are_served_as_they_were_played() {
    let server = server(None).await;
    let mut client = server.client().await;
    let played = play(&server, &mut client, short_match(61), usize::MAX).await;
    assert!(played.submitted.len() > 20, "a real match");
    let mut forfeited = short_match(62);
    forfeited.time_control = Some(v1::TimeControl {
        move_budget_ms: 300,
        policy: v1::TimeoutPolicy::Forfeit as i32,
    });
    let forfeited = play(&server, &mut client, forfeited, 9).await;
    for _ in 0..2 {
        assert_served_as_played(&mut client, &played).await;
        assert_served_as_played(&mut client, &forfeited).await;
    }
    server.stop().await;
}

// On SQLite: a finished match is served as it was played, and again after a restart, when the
// server has rebuilt it from the database (the restore path).
#[tokio::test]
async fn a_finished_game_on_sqlite_is_served_as_it_was_played_before_and_after_a_restart() {
    let dir = temp_dir("finished-games");
    let db = dir.path().join("canasta.db");
    let server1 = server(Some(&db)).await;
    let mut client = server1.client().await;
    let played = play(&server1, &mut client, short_match(63), usize::MAX).await;
    assert_served_as_played(&mut client, &played).await;
    server1.stop().await;

    let server2 = server(Some(&db)).await;
    let mut client = server2.client().await;
    assert_served_as_played(&mut client, &played).await;
    server2.stop().await;
}
