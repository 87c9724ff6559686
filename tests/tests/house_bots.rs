//! The server's own built-in bots (`CreateGameRequest.bots`), through a real server on
//! 127.0.0.1:0: a client plays a match against three of them; four of them play a match on
//! their own, the same every time for a seed, and as the engine's own bots play it in-process;
//! they go on after a restart; under a time control their moves never time out while a silent
//! client's do; every new field of CreateGame is checked, and nothing is created on a refusal.
//! (What the clients and spectators of such a game see is checked in `leaks.rs`.)

mod clock;

use std::time::Duration;

use canasta_engine::bot::{self, Bot, GreedyBot};
use canasta_engine::{Game, Phase, Rules};
use canasta_proto::convert::{action_to_wire, record_from_wire, rules_from_wire, view_from_wire};
use canasta_proto::v1;
use canasta_proto::v1::game_event::Kind as Ev;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use canasta_tests::*;
use clock::Advance;
use tonic::Code;
use tonic_types::StatusExt;

/// A four-player official game of `seed` with the server's `bots` (seat, name).
fn with_bots(seed: u64, bots: &[(u32, &str)]) -> v1::CreateGameRequest {
    v1::CreateGameRequest {
        rules: Some(rules(v1::Preset::Official, 4, &[])),
        seed: Some(seed),
        bots: bots
            .iter()
            .map(|&(seat, bot)| v1::SeatBot {
                seat,
                bot: bot.into(),
            })
            .collect(),
        ..Default::default()
    }
}

/// Every event of a game from `after_seq` as a spectator sees it, until MatchEnded.
async fn events_to_the_end(
    client: &mut Client,
    game_id: &str,
    after_seq: u64,
) -> Vec<v1::GameEvent> {
    let mut stream = open_watch(client, game_id, None, after_seq, false)
        .await
        .expect("a spectator stream");
    let mut events = Vec::new();
    loop {
        let message = next_message(&mut stream)
            .await
            .expect("the stream runs to the end");
        match message.kind {
            Some(Msg::Event(e)) => {
                let ended = matches!(e.kind, Some(Ev::MatchEnded(_)));
                events.push(e);
                if ended {
                    return events;
                }
            }
            Some(Msg::Lagged(l)) => panic!("the spectator lagged at {}", l.last_seq),
            _ => {}
        }
    }
}

/// The record of a finished game.
async fn export(client: &mut Client, game_id: &str) -> v1::GameRecord {
    client
        .export_game(v1::ExportGameRequest {
            game_id: game_id.to_string(),
        })
        .await
        .expect("a finished game exports")
        .into_inner()
        .record
        .expect("a record")
}

/// The engine's own greedy bots play the game of `record`'s setup in-process: its final state.
fn greedy_in_process(record: &v1::GameRecord) -> Game {
    let (setup, _) = record_from_wire(record).expect("a record");
    let (mut game, _) = Game::start(&setup).expect("the setup");
    let players = game.rules().players as usize;
    let mut bots: Vec<Box<dyn Bot>> = (0..players)
        .map(|_| Box::new(GreedyBot::new()) as Box<dyn Bot>)
        .collect();
    bot::play(&mut game, &mut bots, 1000, |_| {}).expect("the match ends");
    game
}

/// The final state of the game a record replays to, which must be the match's end.
fn replayed(record: &v1::GameRecord) -> Game {
    let (setup, actions) = record_from_wire(record).expect("a record");
    let game = Game::replay(&setup, &actions).expect("the record replays");
    assert_eq!(
        game.phase(),
        Phase::Over,
        "the record plays the match to its end"
    );
    game
}

// A client plays seat 0 against three greedy bots of the server, to the end of the match: the
// bots' seats are held from the creation (the game waits for the client alone, and starts when
// it joins), and the bots play every turn of theirs.
#[tokio::test]
async fn a_client_plays_a_match_against_three_of_the_servers_bots() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create_with(
        &mut client,
        with_bots(21, &[(1, "greedy"), (2, "greedy"), (3, "greedy")]),
    )
    .await;
    assert_eq!(game.status, v1::GameStatus::Waiting as i32);
    let seats: Vec<(bool, &str, &str)> = game
        .seats
        .iter()
        .map(|s| (s.occupied, s.display_name.as_str(), s.bot.as_str()))
        .collect();
    assert_eq!(
        seats,
        [
            (false, "", ""),
            (true, "greedy", "greedy"),
            (true, "greedy", "greedy"),
            (true, "greedy", "greedy")
        ]
    );
    let joined = client
        .join_game(v1::JoinGameRequest {
            game_id: game.game_id.clone(),
            seat: None,
            display_name: "Ann".into(),
        })
        .await
        .expect("the one free seat")
        .into_inner();
    assert_eq!(joined.seat, 0, "the lowest free seat is the client's");
    let token = joined.token;
    let mut stream = client
        .watch_game(authed(
            v1::WatchGameRequest {
                game_id: game.game_id.clone(),
                after_seq: 0,
                include_actions: false,
                include_view: true,
            },
            &token,
        ))
        .await
        .expect("the seat watches")
        .into_inner();
    let spec = rules_from_wire(game.rules.as_ref().expect("the rules")).expect("valid rules");
    let engine_rules = Rules::new(&spec).expect("valid rules");
    let mut mine = GreedyBot::new();
    let mut played = 0;
    loop {
        let message = next_message(&mut stream)
            .await
            .expect("the stream runs to the end");
        match message.kind {
            Some(Msg::Prompt(p)) => {
                let view =
                    view_from_wire(p.view.as_ref().expect("the view asked for"), engine_rules)
                        .expect("a valid view");
                let action = mine.choose(&view, &view.legal().expect("the seat's choices"));
                client
                    .submit_action(authed(
                        v1::SubmitActionRequest {
                            game_id: game.game_id.clone(),
                            expected_seq: p.seq,
                            request_id: format!("ann-{played}"),
                            action: Some(action_to_wire(&action)),
                        },
                        &token,
                    ))
                    .await
                    .expect("the client's action is applied");
                played += 1;
            }
            Some(Msg::Event(e)) if matches!(e.kind, Some(Ev::MatchEnded(_))) => break,
            Some(Msg::Lagged(l)) => panic!("the seat lagged at {}", l.last_seq),
            _ => {}
        }
    }
    let record = export(&mut client, &game.game_id).await;
    assert_eq!(record.display_names, ["Ann", "greedy", "greedy", "greedy"]);
    let by_seat = |s: u32| record.actions.iter().filter(|a| a.seat == s).count();
    assert_eq!(by_seat(0), played);
    assert!((1..4).all(|s| by_seat(s) > 0), "every bot played");
    // The client played as a greedy bot plays: the match is the engine's, in-process.
    assert_eq!(
        replayed(&record).state_hash(),
        greedy_in_process(&record).state_hash()
    );
    let summary = summary_of(&mut client, &game.game_id).await;
    assert_eq!(summary.status, v1::GameStatus::Finished as i32);
    server.stop().await;
}

// Four bots of the server play a match by themselves, to its end: the game starts at its
// creation, holds the place of an unfinished game (--max-games) while it plays and frees it at
// the end; with the same seed it ends the same, as the engine's greedy bots play it.
#[tokio::test]
async fn four_of_the_servers_bots_play_a_match_alone_the_same_for_a_seed() {
    let config = test_config().max_games(1).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    // A waiting game with a bot holds the one place.
    let waiting = client
        .create_game(with_bots(1, &[(0, "greedy")]))
        .await
        .expect("created")
        .into_inner();
    refused(
        client.create_game(with_bots(2, &[(0, "greedy")])).await,
        Code::ResourceExhausted,
        "TOO_MANY_GAMES",
    );
    client
        .cancel_game(authed(
            v1::CancelGameRequest {
                game_id: waiting.game.expect("a summary").game_id,
            },
            &waiting.creator_token,
        ))
        .await
        .expect("the creator cancels its waiting game");
    let all: Vec<(u32, &str)> = (0..4).map(|s| (s, "greedy")).collect();
    let mut finals = Vec::new();
    for _ in 0..2 {
        // The place of the game before is free once it has ended.
        let game = create_with(&mut client, with_bots(33, &all)).await;
        assert_eq!(game.status, v1::GameStatus::Playing as i32, "no seat waits");
        let events = events_to_the_end(&mut client, &game.game_id, 0).await;
        assert!(
            !events
                .iter()
                .any(|e| matches!(e.kind, Some(Ev::TimedOut(_)))),
            "no time-out"
        );
        let record = export(&mut client, &game.game_id).await;
        let state = replayed(&record).state_hash();
        assert_eq!(state, greedy_in_process(&record).state_hash());
        assert!(
            record
                .result
                .as_ref()
                .is_some_and(|r| r.finished && r.winner_side.is_some())
        );
        finals.push((state, record.actions, record.result));
    }
    assert_eq!(finals[0], finals[1], "the same seed, the same match");
    server.stop().await;
}

// A game whose seat to act is a bot's when the server stops goes on after the restart: the
// bots' seats are part of the stored game. Three bots and a client: the client plays a few
// moves, the server restarts, the bots play on (and the client, with its token) to the end.
#[tokio::test]
async fn the_servers_bots_go_on_after_a_restart() {
    let dir = temp_dir("house-bots-restart");
    let db = dir.path().join("canasta.db");
    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let game = create_with(
        &mut client,
        with_bots(44, &[(1, "greedy"), (2, "random"), (3, "search:10")]),
    )
    .await;
    let id = game.game_id.clone();
    let token = client
        .join_game(v1::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(0),
            display_name: "Ann".into(),
        })
        .await
        .expect("the free seat")
        .into_inner()
        .token;
    // The client's first moves; its last one hands the turn to a bot.
    let played = play_seat(&mut client, &id, &token, 6).await;
    assert_eq!(played, 6);
    let before = summary_of(&mut client, &id).await;
    server.stop().await;

    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let restored = summary_of(&mut client, &id).await;
    let bots: Vec<&str> = restored.seats.iter().map(|s| s.bot.as_str()).collect();
    assert_eq!(bots, ["", "greedy", "random", "search:10"]);
    assert!(restored.seq >= before.seq);
    play_seat(&mut client, &id, &token, usize::MAX).await;
    let record = export(&mut client, &id).await;
    replayed(&record);
    let by_seat = |s: u32| record.actions.iter().filter(|a| a.seat == s).count();
    assert!((1..4).all(|s| by_seat(s) > 0), "every bot played");
    server.stop().await;
}

/// Plays `seat`'s prompts with its first listed action, `max` times or to the end of the
/// match; returns how many it played.
async fn play_seat(client: &mut Client, game_id: &str, token: &str, max: usize) -> usize {
    let mut stream = client
        .watch_game(authed(
            v1::WatchGameRequest {
                game_id: game_id.to_string(),
                after_seq: 0,
                include_actions: true,
                include_view: false,
            },
            token,
        ))
        .await
        .expect("the seat watches")
        .into_inner();
    let mut played = 0;
    while played < max {
        let Some(message) = next_message(&mut stream).await else {
            break;
        };
        match message.kind {
            Some(Msg::Prompt(p)) => {
                let action = p
                    .legal
                    .as_ref()
                    .and_then(|l| l.actions.first().cloned())
                    .expect("a listed action");
                client
                    .submit_action(authed(
                        v1::SubmitActionRequest {
                            game_id: game_id.to_string(),
                            expected_seq: p.seq,
                            request_id: format!("p{}", p.seq),
                            action: Some(action),
                        },
                        token,
                    ))
                    .await
                    .expect("a listed action is applied");
                played += 1;
            }
            Some(Msg::Event(e)) if matches!(e.kind, Some(Ev::MatchEnded(_))) => break,
            Some(Msg::Lagged(l)) => panic!("the seat lagged at {}", l.last_seq),
            _ => {}
        }
    }
    played
}

// Under a time control the bots' moves never time out, while a client's seat that does not
// act times out on every turn (its fallback move played): on a paused clock that moves only
// when the test moves it, by a whole budget each time the client's seat is to act. The match
// ends as any match does, not abandoned: the bots act.
#[tokio::test]
async fn under_a_time_control_the_bots_never_time_out() {
    let server = clock::paused(test_config().build().unwrap()).await;
    let mut client = server.client().await;
    let budget = 100;
    let mut request = with_bots(55, &[(1, "greedy"), (2, "search:10"), (3, "greedy")]);
    request.rules = Some(rules(v1::Preset::Official, 4, &[("target_score", "1500")]));
    request.time_control = Some(v1::TimeControl {
        move_budget_ms: budget,
        policy: v1::TimeoutPolicy::FallbackMove as i32,
    });
    let game = create_with(&mut client, request).await;
    let id = game.game_id.clone();
    // The client joins and never acts.
    client
        .join_game(v1::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(0),
            display_name: "Gone".into(),
        })
        .await
        .expect("the free seat");
    let mut stream = open_watch(&mut client, &id, None, 0, false)
        .await
        .expect("a spectator stream");
    let mut seen = 0;
    let mut timeouts = 0;
    loop {
        let view = view_of(&mut client, &id, None, false).await;
        let view = view.view.expect("a view");
        if view.status == v1::GameStatus::Finished as i32 {
            break;
        }
        if view.to_act == Some(0) {
            server.advance(Duration::from_millis(budget)).await;
            timeouts += 1;
        }
        // The next action's events (a bot's move, or the time-out and its fallback move).
        while seen <= view.seq {
            match next_message(&mut stream)
                .await
                .expect("the stream runs")
                .kind
            {
                Some(Msg::Event(e)) => {
                    if let Some(Ev::TimedOut(t)) = &e.kind {
                        assert_eq!(t.seat, 0, "only the client's seat times out");
                    }
                    seen = e.seq;
                }
                Some(Msg::Lagged(l)) => panic!("lagged at {}", l.last_seq),
                _ => {}
            }
        }
    }
    assert!(timeouts > 0);
    let record = export(&mut client, &id).await;
    let result = record.result.clone().expect("a result");
    assert_eq!(result.end, v1::MatchEndKind::Target as i32, "{result:?}");
    replayed(&record);
    server.stop().await;
}

// Every new field of CreateGame is checked, with its code, reason and field, and a refused
// request creates nothing: a seat out of range, a seat named twice, a bot that does not exist
// (or settings it does not take), and a search budget above the server's caps.
#[tokio::test]
async fn the_bots_of_a_new_game_are_checked_and_nothing_is_made_on_a_refusal() {
    let config = test_config()
        .max_bot_think(Duration::from_millis(100))
        .max_bot_iterations(500)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    for (bots, reason, field) in [
        (vec![(4, "greedy")], "INVALID_SEAT", "bots[0].seat"),
        (
            vec![(0, "greedy"), (3, "safe"), (0, "random")],
            "DUPLICATE_SEAT",
            "bots[2].seat",
        ),
        (vec![(1, "clever")], "UNKNOWN_BOT", "bots[0].bot"),
        (vec![(1, "")], "UNKNOWN_BOT", "bots[0].bot"),
        (vec![(1, "search:soon")], "UNKNOWN_BOT", "bots[0].bot"),
        (
            vec![(1, "search:101ms")],
            "BOT_BUDGET_TOO_HIGH",
            "bots[0].bot",
        ),
        (
            vec![(1, "search:501")],
            "BOT_BUDGET_TOO_HIGH",
            "bots[0].bot",
        ),
        (
            vec![(1, "search:50ms:t2")],
            "BOT_BUDGET_TOO_HIGH",
            "bots[0].bot",
        ),
    ] {
        let status = refused(
            client.create_game(with_bots(1, &bots)).await,
            Code::InvalidArgument,
            reason,
        );
        let violations = status
            .get_details_bad_request()
            .expect("a BadRequest")
            .field_violations;
        assert_eq!(violations[0].field, field, "{bots:?}");
        assert!(status.message().len() < 500, "{}", status.message());
    }
    // At the caps, and the rules' errors first.
    create_with(
        &mut client,
        with_bots(1, &[(1, "search:100ms"), (2, "search:500")]),
    )
    .await;
    let mut bad_rules = with_bots(1, &[(9, "clever")]);
    bad_rules.rules = Some(rules(v1::Preset::Official, 9, &[]));
    refused(
        client.create_game(bad_rules).await,
        Code::InvalidArgument,
        "BAD_PLAYER_COUNT",
    );
    let games = client
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("the games")
        .into_inner()
        .games;
    assert_eq!(games.len(), 1, "only the game at the caps was made");
    server.stop().await;
}
