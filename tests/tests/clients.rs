//! Misbehaving clients: bots that drop their connection at random moments (in the middle of a
//! watch stream or of a SubmitAction) and resubmit with the same request id, and watchers that
//! never read their stream. None of them may corrupt or stall a game: every game plays to its
//! end, each action is applied once, every seat's events (gathered over its reconnections)
//! are exactly what the engine's replay of the export shows that seat, and a watcher that does
//! not read is told it lagged and resumes by seq.

mod clock;

use std::time::Duration;

use canasta_engine::rng::Xoshiro256;
use canasta_engine::{Event, Game, Phase, Seat, Viewer, redact};
use canasta_proto::convert::{event_to_wire, record_from_wire};
use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use canasta_proto::v1::game_event::Kind as Ev;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use canasta_tests::*;
use clock::*;

/// Every event of a finished game as `viewer` must see it, from the engine's replay of its
/// export (every seat joined in seat order, as `join_all` does).
fn expected_events(record: &v1::GameRecord, viewer: Viewer) -> Vec<v1::GameEvent> {
    let (setup, actions) = record_from_wire(record).expect("a valid record");
    let (mut game, opening) = Game::start(&setup).expect("a valid setup");
    let players = game.rules().players as u32;
    let mut kinds: Vec<Option<Ev>> = (0..players)
        .map(|seat| {
            Some(Ev::SeatJoined(v1::SeatJoined {
                seat,
                display_name: format!("player {seat}"),
            }))
        })
        .collect();
    kinds.push(Some(Ev::GameStarted(v1::GameStarted {})));
    let wire = |e: &Event| event_to_wire(&redact(e, viewer));
    kinds.extend(opening.iter().map(wire));
    for (seat, action) in &actions {
        let events = game
            .apply(*seat, action)
            .unwrap_or_else(|e| panic!("the export replays: {action} refused: {e}"));
        kinds.extend(events.iter().map(wire));
    }
    assert_eq!(game.phase(), Phase::Over, "the export replays to the end");
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| v1::GameEvent {
            seq: i as u64 + 1,
            kind,
        })
        .collect()
}

/// What one seat's bot went through.
#[derive(Default)]
struct SeatRun {
    /// Its events, over all its streams.
    events: Vec<v1::GameEvent>,
    /// Its actions answered, one per prompt it acted on.
    answered: usize,
    /// Submissions cut off by dropping the connection.
    cut_off: usize,
    /// Of those, the ones the server had applied before the resubmission was sent.
    applied_before_retry: usize,
    /// Streams dropped at a random moment.
    dropped_streams: usize,
}

/// A seat's bot that misbehaves: it follows its watch stream and acts on its prompts with a
/// random listed action, but at random moments drops the stream, or cuts a submission off by
/// dropping its connection mid-call, then reconnects, resumes after the last seq it saw and
/// resubmits with the same request id (twice: both answers must be equal).
async fn flaky_seat(server: std::net::SocketAddr, id: String, token: String, seed: u64) -> SeatRun {
    let mut rng = Xoshiro256::seed_from_u64(seed);
    let mut run = SeatRun::default();
    loop {
        let last = run.events.last().map_or(0, |e| e.seq);
        // A fresh connection each time: dropping it cuts every call on it.
        let mut client = connect(server).await;
        let mut stream = client
            .watch_game(authed(
                v1::WatchGameRequest {
                    game_id: id.clone(),
                    after_seq: last,
                    include_actions: true,
                    include_view: false,
                },
                &token,
            ))
            .await
            .expect("a stream")
            .into_inner();
        loop {
            let Some(message) = next_message(&mut stream).await else {
                panic!("the stream ended before MatchEnded")
            };
            match message.kind {
                Some(Msg::Event(e)) => {
                    let last = run.events.last().map_or(0, |e| e.seq);
                    assert_eq!(e.seq, last + 1, "events follow one another");
                    let ended = matches!(e.kind, Some(Ev::MatchEnded(_)));
                    run.events.push(e);
                    if ended {
                        return run;
                    }
                }
                Some(Msg::Prompt(p)) => {
                    let legal = p.legal.expect("choices");
                    let action =
                        legal.actions[rng.below(legal.actions.len() as u64) as usize].clone();
                    // One request id per prompt: a prompt sent again after a reconnection is
                    // answered from memory, not applied twice.
                    let request = v1::SubmitActionRequest {
                        game_id: id.clone(),
                        expected_seq: p.seq,
                        request_id: format!("prompt-{}", p.seq),
                        action: Some(action),
                    };
                    if rng.below(3) == 0 {
                        // Cut off after a random few hundred microseconds: before the request
                        // left, while the server applies it, or after the answer was sent.
                        let mut doomed = connect(server).await;
                        let wait = Duration::from_micros(rng.below(3000));
                        let _ = tokio::time::timeout(
                            wait,
                            doomed.submit_action(authed(request.clone(), &token)),
                        )
                        .await;
                        drop(doomed);
                        run.cut_off += 1;
                        let seq = client
                            .get_game(v1::GetGameRequest {
                                game_id: id.clone(),
                            })
                            .await
                            .expect("the game")
                            .into_inner()
                            .game
                            .expect("a summary")
                            .seq;
                        if seq > p.seq {
                            run.applied_before_retry += 1;
                        }
                        let again = connect(server)
                            .await
                            .submit_action(authed(request.clone(), &token))
                            .await
                            .expect("a resubmission is answered")
                            .into_inner();
                        let once_more = client
                            .submit_action(authed(request, &token))
                            .await
                            .expect("a resubmission is answered")
                            .into_inner();
                        assert_eq!(again, once_more, "a retry is answered the same");
                        assert_eq!(again.events.first().map(|e| e.seq), Some(p.seq + 1));
                    } else {
                        let answer = client
                            .submit_action(authed(request, &token))
                            .await
                            .expect("a listed action is accepted")
                            .into_inner();
                        assert_eq!(answer.events.first().map(|e| e.seq), Some(p.seq + 1));
                    }
                    run.answered += 1;
                }
                Some(Msg::Lagged(_)) => break,
                _ => {}
            }
            if rng.below(25) == 0 {
                run.dropped_streams += 1;
                break;
            }
        }
    }
}

// Concurrent games in which every seat's bot drops its stream and cuts its submissions off at
// random: every game ends, each prompt led to exactly one applied action, and every seat saw
// exactly its own redacted events of the exported game.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_that_drop_connections_and_resubmit_never_corrupt_or_stall_a_game() {
    let seed: u64 = rand::random();
    eprintln!("seed {seed}");
    let mut rng = Xoshiro256::seed_from_u64(seed);
    let config = test_config().requests_per_second(1e9).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let mut games = Vec::new();
    for (i, players) in [2u32, 4, 3].into_iter().enumerate() {
        let game = create_with(
            &mut client,
            v1::CreateGameRequest {
                rules: Some(rules(
                    v1::Preset::Official,
                    players,
                    &[("target_score", "150")],
                )),
                seed: Some(rng.next_u64()),
                ..Default::default()
            },
        )
        .await;
        let tokens = join_all(&mut client, &game).await;
        let bots: Vec<_> = tokens
            .iter()
            .map(|t| {
                tokio::spawn(flaky_seat(
                    server.addr,
                    game.game_id.clone(),
                    t.clone(),
                    rng.next_u64() ^ i as u64,
                ))
            })
            .collect();
        games.push((game.game_id, bots));
    }
    let (mut cut_off, mut applied, mut dropped) = (0, 0, 0);
    for (id, bots) in games {
        let mut runs = Vec::new();
        for bot in bots {
            let run = tokio::time::timeout(Duration::from_secs(300), bot)
                .await
                .expect("the game does not stall")
                .expect("the bot ends");
            runs.push(run);
        }
        let record = client
            .export_game(v1::ExportGameRequest {
                game_id: id.clone(),
            })
            .await
            .expect("the finished game is exported")
            .into_inner()
            .record
            .expect("a record");
        let answered: usize = runs.iter().map(|r| r.answered).sum();
        assert_eq!(
            record.actions.len(),
            answered,
            "one action per prompt acted on"
        );
        for (seat, run) in runs.iter().enumerate() {
            assert_eq!(
                run.events,
                expected_events(&record, Viewer::Seat(Seat(seat as u8))),
                "game {id}: seat {seat}'s events"
            );
            cut_off += run.cut_off;
            applied += run.applied_before_retry;
            dropped += run.dropped_streams;
        }
    }
    eprintln!(
        "submissions cut off: {cut_off} ({applied} applied before their resubmission), \
         streams dropped: {dropped}"
    );
    assert!(cut_off > 0 && dropped > 0, "the bots misbehaved");
    server.stop().await;
}

// Watchers that never read (their connections accept a few bytes at a time, as a client that
// does not read would) on every game: the games still run to their end; each stalled stream,
// read at last, ends with Lagged at the seq of its last event, and watching again after that
// seq delivers the rest exactly, up to MatchEnded.
#[tokio::test]
async fn watchers_that_never_read_neither_stall_a_game_nor_lose_events() {
    let config = test_config()
        .watch_buffer(16)
        .requests_per_second(1e9)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let mut games = Vec::new();
    for (players, seed) in [(2u32, 21u64), (4, 22)] {
        let game = create_with(
            &mut client,
            v1::CreateGameRequest {
                rules: Some(rules(
                    v1::Preset::Official,
                    players,
                    &[("target_score", "150")],
                )),
                seed: Some(seed),
                ..Default::default()
            },
        )
        .await;
        let tokens = join_all(&mut client, &game).await;
        let mut stalled = Vec::new();
        // A seat and a spectator that never read, each on its own slow connection.
        for token in [Some(tokens[0].clone()), None] {
            let channel =
                tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr))
                    .expect("a uri")
                    .initial_stream_window_size(Some(1024))
                    .initial_connection_window_size(Some(1024))
                    .connect()
                    .await
                    .expect("a connection");
            let mut slow = CanastaServiceClient::new(channel);
            let request = v1::WatchGameRequest {
                game_id: game.game_id.clone(),
                after_seq: 0,
                include_actions: true,
                include_view: false,
            };
            let stream = match &token {
                Some(t) => slow.watch_game(authed(request, t)).await,
                None => slow.watch_game(request).await,
            }
            .expect("a stream")
            .into_inner();
            stalled.push((token, slow, stream));
        }
        games.push((game, tokens, stalled));
    }
    for (game, tokens, stalled) in games {
        let id = game.game_id.clone();
        let mut rng = Xoshiro256::seed_from_u64(game.seats.len() as u64);
        play_to_end(&mut client, &id, &tokens, 100_000, |l| {
            rng.below(l.actions.len() as u64) as usize
        })
        .await;
        let record = client
            .export_game(v1::ExportGameRequest {
                game_id: id.clone(),
            })
            .await
            .expect("the game ended")
            .into_inner()
            .record
            .expect("a record");
        for (token, mut slow, mut stream) in stalled {
            let viewer = match token {
                Some(_) => Viewer::Seat(Seat(0)),
                None => Viewer::Spectator,
            };
            let all = expected_events(&record, viewer);
            let mut got = Vec::new();
            let mut lagged = None;
            while let Some(m) = next_message(&mut stream).await {
                match m.kind {
                    Some(Msg::Event(e)) => got.push(e),
                    Some(Msg::Lagged(l)) => lagged = Some(l.last_seq),
                    _ => {}
                }
            }
            let last = lagged.expect("a watcher that never read lagged");
            assert_eq!(got.last().map(|e| e.seq), Some(last));
            assert_eq!(
                got,
                all[..last as usize].to_vec(),
                "{viewer:?}: before the lag"
            );
            let request = v1::WatchGameRequest {
                game_id: id.clone(),
                after_seq: last,
                include_actions: false,
                include_view: false,
            };
            let mut again = match &token {
                Some(t) => slow.watch_game(authed(request, t)).await,
                None => slow.watch_game(request).await,
            }
            .expect("a stream")
            .into_inner();
            let mut rest = Vec::new();
            while let Some(m) = next_message(&mut again).await {
                if let Some(Msg::Event(e)) = m.kind {
                    rest.push(e);
                }
            }
            assert_eq!(
                rest,
                all[last as usize..].to_vec(),
                "{viewer:?}: after the lag"
            );
        }
    }
    server.stop().await;
}

/// True if the server has closed `stream` (nothing else is to come on it here), read without
/// waiting: after a read that got bytes the socket counts as readable, so the read is tried
/// (an end of stream reads 0 bytes, no bytes yet is `WouldBlock`).
fn closed(stream: &tokio::net::TcpStream) -> bool {
    let mut buf = [0u8; 16];
    match stream.try_read(&mut buf) {
        Ok(0) => true,
        Ok(n) => panic!("{n} bytes more from the server: {:?}", &buf[..n]),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => false,
        Err(e) => {
            assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}");
            true
        }
    }
}

// A connection that sends nothing, or less than HTTP/2's preface, is closed by the server at
// --handshake-timeout-secs, not a moment before (it was kept for ever: each held a
// descriptor, 10 000 of them ran the server out); one that speaks HTTP/2 is served on, past
// that deadline, however idle. The server's clock is paused: the test moves it on.
#[tokio::test]
async fn connections_that_never_speak_are_closed_at_the_handshake_deadline() {
    use tokio::io::AsyncWriteExt;
    let deadline = Duration::from_millis(200);
    // Room for the client's connection and the two silent ones.
    let config = test_config()
        .handshake_timeout(deadline)
        .max_connections(3)
        .build()
        .unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    create(&mut client, 2, 1).await;
    let silent = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let mut partial = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    partial.write_all(b"PRI * HTTP/2.0\r\n").await.unwrap();
    // One more, beyond the limit, closed at once: the two before it were accepted.
    let beyond = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    assert_eq!(until_closed(beyond).await, b"");
    // Served (the server waits for them to speak): their deadlines run.
    assert!(is_served(&silent) && is_served(&partial));
    // A moment before the deadline both are open: a request answered on the other
    // connection after the clock moved would come after their close (the server's one thread
    // takes its tasks in turn).
    server.advance(deadline - Duration::from_millis(1)).await;
    create(&mut client, 2, 2).await;
    assert!(
        !closed(&silent) && !closed(&partial),
        "closed before the deadline"
    );
    server.advance(Duration::from_millis(1)).await;
    let (silent, partial) = tokio::join!(until_closed(silent), until_closed(partial));
    // Nothing was said to them.
    assert_eq!((silent, partial), (Vec::new(), Vec::new()));
    // The client connected before is still served, on its connection, long after.
    server.advance(deadline * 10).await;
    let listed = client
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("the idle connection is served");
    assert_eq!(listed.into_inner().games.len(), 2);
    server.stop().await;
}

// Beyond --max-connections a new connection is closed at once, while the connections served
// keep being served; once one of them closes, a new one is served again.
#[tokio::test]
async fn connections_beyond_the_limit_are_closed_and_the_others_served() {
    use tokio::io::AsyncWriteExt;
    let config = test_config().max_connections(3).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut clients = Vec::new();
    for seed in 0..2 {
        let mut client = server.client().await;
        create(&mut client, 2, seed).await;
        clients.push(client);
    }
    // The third: a bare connection, served (the server waits for it to speak).
    let mut bare = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    for _ in 0..3 {
        let extra = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        // Closed before the server sent anything: not served at all.
        assert_eq!(until_closed(extra).await, b"", "refused without a word");
    }
    // Accepted before the refused ones, and kept.
    assert!(is_served(&bare));
    for client in &mut clients {
        let listed = client
            .list_games(v1::ListGamesRequest::default())
            .await
            .expect("a connection within the limit is served");
        assert_eq!(listed.into_inner().games.len(), 2);
    }
    // Closing one makes room: the bare one ends its side, and once the server has closed its
    // own (it gives up the place first), a new connection is served.
    bare.shutdown().await.unwrap();
    until_closed(bare).await;
    let mut client = server.client().await;
    let listed = client
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("a connection is served again once one has closed");
    assert_eq!(listed.into_inner().games.len(), 2);
    server.stop().await;
}
