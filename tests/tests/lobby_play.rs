//! The lobby end to end (`canasta.v1.LobbyService` through a real server on 127.0.0.1:0):
//! seekers seated and playing to the end, a player in several games at once over one
//! connection, challenges accepted and declined, rated games moving ratings, the leaderboard
//! and records, a player's stream resumed without loss, and players and ratings kept across a
//! restart. What each player is sent holds its own seat tokens only.

use std::collections::BTreeMap;

use canasta_engine::rng::Xoshiro256;
use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use canasta_proto::v1::lobby_service_client::LobbyServiceClient;
use canasta_tests::lobby::*;
use canasta_tests::*;
use prost::Message;
use tonic::Code;

/// Plays a game to its end with seeded random legal actions; returns the final summary.
async fn play_out(
    client: &mut Client,
    game_id: &str,
    tokens: &[String],
    seed: u64,
) -> v1::GameSummary {
    let mut rng = Xoshiro256::seed_from_u64(seed);
    play_to_end(client, game_id, tokens, 200_000, |l| {
        rng.below(l.actions.len() as u64) as usize
    })
    .await;
    let summary = summary_of(client, game_id).await;
    assert_eq!(summary.status, v1::GameStatus::Finished as i32);
    summary
}

/// The seats' tokens of seated seeks of one game, in seat order.
fn tokens_in_seat_order(seats: &[v1::SeekSeated]) -> Vec<String> {
    let mut seats = seats.to_vec();
    seats.sort_by_key(|s| s.seat);
    seats.into_iter().map(|s| s.token).collect()
}

// Eight bots asking for four-player games are seated in two games (four distinct seats each,
// every seat named after its player) and play them to the end; each player's stream tells it
// of its game's start (with its own seat token, no other) and end, and its record counts it.
#[tokio::test]
async fn eight_seekers_of_four_player_games_sit_in_two_games_and_play_them_to_the_end() {
    let server = TestServer::start().await;
    let mut lobby = lobby(server.addr).await;
    let mut client = server.client().await;
    let mut keys = Vec::new();
    let mut streams = Vec::new();
    for i in 0..8 {
        let key = register(&mut lobby, &format!("bot{i}")).await;
        streams.push(watch_player(&mut lobby, &key, 0).await);
        keys.push(key);
    }
    let mut seeks = Vec::new();
    for key in &keys {
        seeks.push(seek(&mut lobby, key, short_seek(4)).await);
    }
    let mut games: BTreeMap<String, Vec<(usize, v1::SeekSeated)>> = BTreeMap::new();
    for (i, s) in seeks.iter_mut().enumerate() {
        let seat = seated(s).await;
        assert!(!seat.rated);
        assert!(
            s.message().await.expect("ends cleanly").is_none(),
            "the seat is the last message"
        );
        games
            .entry(seat.game_id.clone())
            .or_default()
            .push((i, seat));
    }
    assert_eq!(games.len(), 2, "{games:?}");
    let all_tokens: Vec<String> = games
        .values()
        .flatten()
        .map(|(_, s)| s.token.clone())
        .collect();
    for (n, (game_id, seats)) in games.iter().enumerate() {
        let mut taken: Vec<u32> = seats.iter().map(|(_, s)| s.seat).collect();
        taken.sort();
        assert_eq!(taken, vec![0, 1, 2, 3]);
        let summary = summary_of(&mut client, game_id).await;
        assert_eq!(summary.status, v1::GameStatus::Playing as i32);
        for (i, s) in seats {
            assert_eq!(
                summary.seats[s.seat as usize].display_name,
                format!("bot{i}")
            );
        }
        let seated: Vec<v1::SeekSeated> = seats.iter().map(|(_, s)| s.clone()).collect();
        let end = play_out(
            &mut client,
            game_id,
            &tokens_in_seat_order(&seated),
            40 + n as u64,
        )
        .await;
        assert_eq!(end.result.unwrap().end, v1::MatchEndKind::Target as i32);
    }
    for (game_id, seats) in &games {
        for (i, seat) in seats {
            let events = events_until(&mut streams[*i], 0, is_finished).await;
            let Some(v1::player_event::Kind::GameStarted(started)) = &events[0].kind else {
                panic!("the game's start first: {events:?}");
            };
            assert_eq!((&started.game_id, started.seat), (game_id, seat.seat));
            assert_eq!(started.token, seat.token);
            assert_eq!(started.seek_id, seat.seek_id);
            assert_eq!(started.players.len(), 4);
            // A player is sent its own seat's token, never another's.
            let bytes: Vec<u8> = events.iter().flat_map(|e| e.encode_to_vec()).collect();
            for other in all_tokens.iter().filter(|t| **t != seat.token) {
                assert!(
                    !contains(&bytes, other.as_bytes()),
                    "bot{i} was sent another seat's token"
                );
            }
            let Some(v1::player_event::Kind::GameFinished(finished)) = &events.last().unwrap().kind
            else {
                unreachable!()
            };
            assert_eq!(&finished.game_id, game_id);
            assert!(finished.rating.is_none(), "an unrated game");
            let record = lobby
                .get_player(v1::GetPlayerRequest {
                    name: format!("BOT{i}"),
                    recent_games: 0,
                })
                .await
                .unwrap()
                .into_inner();
            assert_eq!(record.games, 1);
            assert_eq!(record.wins, u32::from(finished.won));
            assert_eq!(&record.recent_games[0].game_id, game_id);
            assert!(record.ratings.is_empty(), "unrated games rate nothing");
            // The record shows no token and no key.
            let bytes = record.encode_to_vec();
            for secret in all_tokens.iter().chain(&keys) {
                assert!(!contains(&bytes, secret.as_bytes()));
            }
        }
    }
    server.stop().await;
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

// A player with three seeks open at once over one connection is seated in three games (never
// twice in one) and plays them concurrently to their ends over that same connection.
#[tokio::test]
async fn a_player_plays_three_games_at_once_over_one_connection() {
    let server = TestServer::start().await;
    let connection = channel(server.addr).await;
    let mut lobby = LobbyServiceClient::new(connection.clone());
    let client = CanastaServiceClient::new(connection);
    let ace = register(&mut lobby, "ace").await;
    let mut mine = Vec::new();
    for _ in 0..3 {
        mine.push(seek(&mut lobby, &ace, short_seek(2)).await);
    }
    let mut other_lobby = canasta_tests::lobby::lobby(server.addr).await;
    let mut theirs = Vec::new();
    for name in ["b", "c", "d"] {
        let key = register(&mut other_lobby, name).await;
        theirs.push(seek(&mut other_lobby, &key, short_seek(2)).await);
    }
    let mut plays = Vec::new();
    for (n, (a, b)) in mine.iter_mut().zip(theirs.iter_mut()).enumerate() {
        let (a, b) = (seated(a).await, seated(b).await);
        assert_eq!(a.game_id, b.game_id, "one opponent per game");
        let mut tokens = vec![(a.seat, a.token), (b.seat, b.token)];
        tokens.sort();
        let tokens: Vec<String> = tokens.into_iter().map(|t| t.1).collect();
        let mut client = client.clone();
        plays.push(tokio::spawn(async move {
            play_out(&mut client, &a.game_id, &tokens, 7 + n as u64)
                .await
                .game_id
        }));
    }
    let mut played = Vec::new();
    for p in plays {
        played.push(p.await.expect("a game played out"));
    }
    played.sort();
    played.dedup();
    assert_eq!(played.len(), 3);
    // Each game is recorded once its end has reached the lobby: the player's stream says when.
    let mut stream = watch_player(&mut lobby, &ace, 0).await;
    let mut ends = 0;
    events_until(&mut stream, 0, |e| {
        ends += usize::from(is_finished(e));
        ends == 3
    })
    .await;
    let record = lobby
        .get_player(v1::GetPlayerRequest {
            name: "ace".into(),
            recent_games: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(record.games, 3);
    let mut recorded: Vec<String> = record
        .recent_games
        .iter()
        .map(|g| g.game_id.clone())
        .collect();
    recorded.sort();
    assert_eq!(recorded, played);
    server.stop().await;
}

// A challenge accepted by every invited player starts its game (each player told on its
// stream, with its seat's token; the seats named as the challenge said); one declined starts
// none, and a late answer hears it has ended.
#[tokio::test]
async fn a_challenge_accepted_by_all_starts_a_game_and_one_declined_does_not() {
    let server = TestServer::start().await;
    let mut lobby = lobby(server.addr).await;
    let mut client = server.client().await;
    let (ann, bob, cy) = (
        register(&mut lobby, "ann").await,
        register(&mut lobby, "bob").await,
        register(&mut lobby, "cy").await,
    );
    let mut ann_events = watch_player(&mut lobby, &ann, 0).await;
    let mut bob_events = watch_player(&mut lobby, &bob, 0).await;
    let mut cy_events = watch_player(&mut lobby, &cy, 0).await;
    let challenge = |seats: &[&str]| v1::CreateChallengeRequest {
        rules: Some(rules(v1::Preset::Official, 3, &[("target_score", "300")])),
        seats: seats.iter().map(|s| s.to_string()).collect(),
        rated: Some(false),
        ..Default::default()
    };
    let made = make_challenge(&mut lobby, &ann, challenge(&["bob", "ann", "cy"])).await;
    assert_eq!(made.status, v1::ChallengeStatus::Pending as i32);
    assert_eq!(made.challenger, "ann");
    let answers: Vec<i32> = made.seats.iter().map(|s| s.answer).collect();
    use v1::ChallengeAnswer as A;
    assert_eq!(
        answers,
        vec![A::Pending as i32, A::Accepted as i32, A::Pending as i32]
    );
    let received = events_until(&mut bob_events, 0, |_| true).await;
    assert!(
        matches!(&received[0].kind, Some(v1::player_event::Kind::Challenge(c)) if c.challenge_id == made.challenge_id)
    );
    let after_bob = answer(&mut lobby, &bob, &made.challenge_id, true).await;
    assert_eq!(after_bob.status, v1::ChallengeStatus::Pending as i32);
    let games_before = client
        .list_games(v1::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .games
        .len();
    assert_eq!(games_before, 0, "no game before everyone accepts");
    let started = answer(&mut lobby, &cy, &made.challenge_id, true).await;
    assert_eq!(started.status, v1::ChallengeStatus::Started as i32);
    let summary = summary_of(&mut client, &started.game_id).await;
    assert_eq!(summary.status, v1::GameStatus::Playing as i32);
    let names: Vec<&str> = summary
        .seats
        .iter()
        .map(|s| s.display_name.as_str())
        .collect();
    assert_eq!(names, vec!["bob", "ann", "cy"]);
    let mut tokens = vec![String::new(); 3];
    let mut ann_seen = 0;
    for (seat, stream, after) in [
        (1, &mut ann_events, 0),
        (0, &mut bob_events, 1),
        (2, &mut cy_events, 0),
    ] {
        let events = events_until(stream, after, is_started).await;
        if seat == 1 {
            ann_seen = events.last().unwrap().seq;
        }
        let Some(v1::player_event::Kind::GameStarted(g)) = &events.last().unwrap().kind else {
            unreachable!()
        };
        assert_eq!(
            (g.game_id.as_str(), g.seat),
            (started.game_id.as_str(), seat)
        );
        assert_eq!(g.challenge_id, made.challenge_id);
        tokens[seat as usize] = g.token.clone();
    }
    // The tokens the streams gave act for their seats.
    for (seat, token) in tokens.iter().enumerate() {
        let view = view_of(&mut client, &started.game_id, Some(token), false).await;
        assert_eq!(view.view.unwrap().viewer_seat, Some(seat as u32));
    }
    // A late answer: the challenge has ended.
    let late = lobby
        .answer_challenge(authed(
            v1::AnswerChallengeRequest {
                challenge_id: made.challenge_id.clone(),
                accept: false,
            },
            &bob,
        ))
        .await;
    refused(late, Code::FailedPrecondition, "CHALLENGE_CLOSED");

    // Declined: no game; every player is told.
    let second = make_challenge(&mut lobby, &ann, challenge(&["cy", "bob", "ann"])).await;
    let declined = answer(&mut lobby, &cy, &second.challenge_id, false).await;
    assert_eq!(declined.status, v1::ChallengeStatus::Declined as i32);
    assert_eq!(declined.seats[0].answer, A::Declined as i32);
    let told = events_until(&mut ann_events, ann_seen, |e| {
        matches!(&e.kind, Some(v1::player_event::Kind::Challenge(c))
            if c.challenge_id == second.challenge_id && c.status == v1::ChallengeStatus::Declined as i32)
    })
    .await;
    assert!(!told.is_empty());
    let games = client
        .list_games(v1::ListGamesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .games;
    assert_eq!(games.len(), 1, "the declined challenge made no game");
    let withdraw = lobby
        .cancel_challenge(authed(
            v1::CancelChallengeRequest {
                challenge_id: second.challenge_id.clone(),
            },
            &ann,
        ))
        .await;
    refused(withdraw, Code::FailedPrecondition, "CHALLENGE_CLOSED");
    server.stop().await;
}

/// A rated two-player game between `a` and `b` that ends at once: a move budget of 100 ms
/// with the forfeit policy, and nobody moves. Returns the two players' GameFinished events.
async fn forfeited_rated_game(
    lobby: &mut Lobby,
    a: &str,
    b: &str,
) -> (v1::PlayerGameFinished, v1::PlayerGameFinished) {
    let request = v1::SeekRequest {
        rules: Some(rules(v1::Preset::Official, 2, &[])),
        time_control: Some(v1::TimeControl {
            move_budget_ms: 100,
            policy: v1::TimeoutPolicy::Forfeit as i32,
        }),
        ..Default::default()
    };
    let mut finished = Vec::new();
    let mut streams = Vec::new();
    for key in [a, b] {
        let last = lobby
            .watch_player(authed(v1::WatchPlayerRequest { after_seq: 0 }, key))
            .await
            .unwrap()
            .into_inner();
        streams.push(last);
    }
    let mut seeks = Vec::new();
    for key in [a, b] {
        seeks.push(seek(lobby, key, request.clone()).await);
    }
    let game_id = seated(&mut seeks[0]).await.game_id;
    for stream in &mut streams {
        let mut last = None;
        let mut after = 0;
        loop {
            let events = events_until(stream, after, |_| true).await;
            let e = events.last().unwrap().clone();
            after = e.seq;
            if let Some(v1::player_event::Kind::GameFinished(f)) = e.kind
                && f.game_id == game_id
            {
                last = Some(f);
            }
            if last.is_some() {
                break;
            }
        }
        finished.push(last.unwrap());
    }
    let b = finished.pop().unwrap();
    (finished.pop().unwrap(), b)
}

// A rated game moves its players' ratings (Weng-Lin: the winner's mu up, the loser's down,
// both sigmas down), counts in their records, and orders the family's leaderboard.
#[tokio::test]
async fn a_rated_game_moves_ratings_the_record_and_the_leaderboard() {
    let server = TestServer::start().await;
    let mut lobby = lobby(server.addr).await;
    let (a, b) = (
        register(&mut lobby, "alpha").await,
        register(&mut lobby, "beta").await,
    );
    let (fa, fb) = forfeited_rated_game(&mut lobby, &a, &b).await;
    assert_eq!(
        fa.result.as_ref().unwrap().end,
        v1::MatchEndKind::Forfeit as i32
    );
    assert_ne!(fa.won, fb.won, "one side won");
    let (winner, loser, winner_name) = if fa.won {
        (&fa, &fb, "alpha")
    } else {
        (&fb, &fa, "beta")
    };
    let (w, l) = (winner.rating.unwrap(), loser.rating.unwrap());
    let (wb, wa) = (w.before.unwrap(), w.after.unwrap());
    let (lb, la) = (l.before.unwrap(), l.after.unwrap());
    assert_eq!((wb.mu, lb.mu), (25.0, 25.0));
    assert!(wa.mu > wb.mu && la.mu < lb.mu);
    assert!(wa.sigma < wb.sigma && la.sigma < lb.sigma);
    assert_eq!((wa.games, wa.wins, la.games, la.wins), (1, 1, 1, 0));
    assert!((wa.display - (wa.mu - 3.0 * wa.sigma)).abs() < 1e-9);
    let family = v1::RatingFamily {
        preset: v1::Preset::Official as i32,
        player_count: 2,
    };
    let board = lobby
        .get_leaderboard(v1::GetLeaderboardRequest {
            family: Some(family),
            page_size: 1,
            page_token: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(board.entries.len(), 1);
    assert_eq!(board.entries[0].rank, 1);
    assert_eq!(board.entries[0].player.as_ref().unwrap().name, winner_name);
    assert_eq!(board.entries[0].rating, Some(wa));
    let second = lobby
        .get_leaderboard(v1::GetLeaderboardRequest {
            family: Some(family),
            page_size: 1,
            page_token: board.next_page_token.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(second.entries[0].rank, 2);
    assert_eq!(second.entries[0].rating, Some(la));
    assert!(second.next_page_token.is_empty());
    let record = lobby
        .get_player(v1::GetPlayerRequest {
            name: winner_name.into(),
            recent_games: 1,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!((record.games, record.wins), (1, 1));
    assert_eq!(record.ratings, vec![wa]);
    assert_eq!(record.recent_games[0].rating, Some(w));
    // Another family has no rating yet.
    let empty = lobby
        .get_leaderboard(v1::GetLeaderboardRequest {
            family: Some(v1::RatingFamily {
                preset: v1::Preset::Official as i32,
                player_count: 4,
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(empty.entries.is_empty());
    server.stop().await;
}

// A player that reconnects its stream from the last seq it saw gets what happened meanwhile,
// in order, nothing lost or repeated.
#[tokio::test]
async fn a_reconnecting_player_s_stream_resumes_without_loss() {
    let server = TestServer::start().await;
    let mut lobby = lobby(server.addr).await;
    let (ann, bob) = (
        register(&mut lobby, "ann").await,
        register(&mut lobby, "bob").await,
    );
    let challenge = v1::CreateChallengeRequest {
        rules: Some(rules(v1::Preset::Official, 2, &[])),
        seats: vec!["ann".into(), "bob".into()],
        ..Default::default()
    };
    let mut stream = watch_player(&mut lobby, &ann, 0).await;
    let first = make_challenge(&mut lobby, &ann, challenge.clone()).await;
    let seen = events_until(&mut stream, 0, |_| true).await;
    assert_eq!(seen.len(), 1);
    drop(stream);
    // Meanwhile: the first is declined, a second made and accepted (its game starts).
    answer(&mut lobby, &bob, &first.challenge_id, false).await;
    let second = make_challenge(&mut lobby, &ann, challenge).await;
    answer(&mut lobby, &bob, &second.challenge_id, true).await;
    let mut resumed = watch_player(&mut lobby, &ann, 1).await;
    let missed = events_until(&mut resumed, 1, is_started).await;
    let kinds: Vec<String> = missed
        .iter()
        .map(|e| match &e.kind {
            Some(v1::player_event::Kind::Challenge(c)) => format!(
                "{} {}",
                c.challenge_id,
                v1::ChallengeStatus::try_from(c.status)
                    .unwrap()
                    .as_str_name()
            ),
            Some(v1::player_event::Kind::GameStarted(g)) => format!("game {}", g.challenge_id),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        vec![
            format!("{} CHALLENGE_STATUS_DECLINED", first.challenge_id),
            format!("{} CHALLENGE_STATUS_PENDING", second.challenge_id),
            format!("game {}", second.challenge_id),
        ]
    );
    // From 0 again: everything kept, the same events.
    let mut again = watch_player(&mut lobby, &ann, 0).await;
    let all = events_until(&mut again, 0, is_started).await;
    assert_eq!(&all[1..], &missed[..]);
    assert_eq!(all[0], seen[0]);
    server.stop().await;
}

// Players (their names and keys), ratings, records and events survive a restart on the same
// database; a name stays taken in any case.
#[tokio::test]
async fn players_and_ratings_survive_a_restart() {
    let dir = temp_dir("lobby-restart");
    let db = dir.path().join("lobby.db");
    let server = TestServer::with_db(&db).await;
    let mut lobby = lobby(server.addr).await;
    let (a, b) = (
        register(&mut lobby, "alpha").await,
        register(&mut lobby, "beta").await,
    );
    let (fa, _) = forfeited_rated_game(&mut lobby, &a, &b).await;
    let before = lobby
        .get_player(v1::GetPlayerRequest {
            name: "alpha".into(),
            recent_games: 0,
        })
        .await
        .unwrap()
        .into_inner();
    let mut stream = watch_player(&mut lobby, &a, 0).await;
    let events = events_until(&mut stream, 0, is_finished).await;
    drop(stream);
    server.stop().await;

    let server = TestServer::with_db(&db).await;
    let mut lobby = canasta_tests::lobby::lobby(server.addr).await;
    let after = lobby
        .get_player(v1::GetPlayerRequest {
            name: "ALPHA".into(),
            recent_games: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(after, before);
    assert_eq!(after.ratings, vec![fa.rating.unwrap().after.unwrap()]);
    let mut stream = watch_player(&mut lobby, &a, 0).await;
    assert_eq!(events_until(&mut stream, 0, is_finished).await, events);
    let taken = lobby
        .register_player(v1::RegisterPlayerRequest {
            name: "Beta".into(),
        })
        .await;
    refused(taken, Code::AlreadyExists, "NAME_TAKEN");
    // A new player gets a number of its own: its key is not the others'.
    let c = register(&mut lobby, "gamma").await;
    assert_ne!(c, a);
    let mut stream = watch_player(&mut lobby, &c, 0).await;
    make_challenge(
        &mut lobby,
        &c,
        v1::CreateChallengeRequest {
            rules: Some(rules(v1::Preset::Official, 2, &[])),
            seats: vec!["gamma".into(), "beta".into()],
            ..Default::default()
        },
    )
    .await;
    let first = events_until(&mut stream, 0, |_| true).await;
    assert_eq!(first[0].seq, 1);
    server.stop().await;
}

// Nothing the lobby answers can hold a card: no message reachable from a LobbyService
// response (its streams' messages included) has a field of a type that carries cards (a card,
// a view, an event, a prompt, a record). The secrets it carries are the caller's own (its key,
// its seats' tokens: see the other tests).
#[test]
fn no_lobby_answer_can_hold_a_card() {
    use prost_reflect::{DescriptorPool, Kind, MessageDescriptor};
    let pool = DescriptorPool::decode(v1::FILE_DESCRIPTOR_SET).unwrap();
    let service = pool.get_service_by_name("canasta.v1.LobbyService").unwrap();
    let carrying = [
        "canasta.v1.Card",
        "canasta.v1.GameView",
        "canasta.v1.GameEvent",
        "canasta.v1.Prompt",
        "canasta.v1.GameRecord",
        "canasta.v1.CardOrder",
    ];
    let mut seen = std::collections::BTreeSet::new();
    let mut todo: Vec<MessageDescriptor> = service.methods().map(|m| m.output()).collect();
    assert_eq!(todo.len(), 8);
    while let Some(message) = todo.pop() {
        if !seen.insert(message.full_name().to_string()) {
            continue;
        }
        assert!(
            !carrying.contains(&message.full_name()),
            "a lobby answer reaches {}",
            message.full_name()
        );
        for field in message.fields() {
            if let Kind::Message(m) = field.kind() {
                todo.push(m);
            }
        }
    }
    // The walk saw what the answers hold: a game's summary, a result, a rating.
    for name in [
        "canasta.v1.GameSummary",
        "canasta.v1.MatchResult",
        "canasta.v1.Rating",
    ] {
        assert!(seen.contains(name), "{name} in {seen:?}");
    }
}

// Two seekers who name each other as partners sit on one side of a four-player game; the
// other two, who name nobody, make the other side.
#[tokio::test]
async fn partners_who_name_each_other_sit_on_one_side() {
    let server = TestServer::start().await;
    let mut lobby = lobby(server.addr).await;
    let mut client = server.client().await;
    let names = ["north", "east", "south", "west"];
    let mut keys = Vec::new();
    for name in names {
        keys.push(register(&mut lobby, name).await);
    }
    let with_partner = |partner: &str| v1::SeekRequest {
        partner: partner.into(),
        ..short_seek(4)
    };
    // Arrival order: a lone seeker, one partner, the other lone one, the other partner.
    let mut seeks = vec![
        seek(&mut lobby, &keys[1], short_seek(4)).await,
        seek(&mut lobby, &keys[0], with_partner("SOUTH")).await,
        seek(&mut lobby, &keys[3], short_seek(4)).await,
        seek(&mut lobby, &keys[2], with_partner("north")).await,
    ];
    let mut game_id = String::new();
    for s in &mut seeks {
        game_id = seated(s).await.game_id;
    }
    let summary = summary_of(&mut client, &game_id).await;
    let side_of = |name: &str| {
        summary
            .seats
            .iter()
            .find(|s| s.display_name == name)
            .map(|s| s.side)
            .expect("seated")
    };
    assert_eq!(side_of("north"), side_of("south"));
    assert_eq!(side_of("east"), side_of("west"));
    assert_ne!(side_of("north"), side_of("east"));
    server.stop().await;
}

// A seeded (unrated) challenge's game is dealt as CreateGame deals a game of the same rules and
// seed, and as the engine deals it in process (`canasta match --seed`): every seat's first
// hand and the dealer are the same three ways. The invited player is told the challenge is
// seeded, never the seed; the finished game's record gives it.
#[tokio::test]
async fn a_seeded_challenge_deals_as_create_game_and_the_engine_deal_that_seed() {
    const SEED: u64 = 20_260_701;
    let server = TestServer::start().await;
    let mut lobby = lobby(server.addr).await;
    let mut client = server.client().await;
    let (ann, bob) = (
        register(&mut lobby, "ann").await,
        register(&mut lobby, "bob").await,
    );
    let short = rules(v1::Preset::Official, 2, &[("target_score", "300")]);
    let mut bob_events = watch_player(&mut lobby, &bob, 0).await;
    let made = make_challenge(
        &mut lobby,
        &ann,
        v1::CreateChallengeRequest {
            rules: Some(short.clone()),
            seats: vec!["ann".into(), "bob".into()],
            rated: Some(false),
            seed: Some(SEED),
            ..Default::default()
        },
    )
    .await;
    assert!(made.seeded && !made.rated, "{made:?}");
    let invited = events_until(&mut bob_events, 0, |_| true).await;
    let Some(v1::player_event::Kind::Challenge(told)) = &invited[0].kind else {
        panic!("bob is invited: {invited:?}")
    };
    assert!(
        told.seeded,
        "the invited player hears the challenger chose the seed"
    );
    let started = answer(&mut lobby, &bob, &made.challenge_id, true).await;
    let mut ann_events = watch_player(&mut lobby, &ann, 0).await;
    let mut tokens = vec![String::new(); 2];
    for (stream, after) in [(&mut ann_events, 0), (&mut bob_events, 1)] {
        let events = events_until(stream, after, is_started).await;
        let Some(v1::player_event::Kind::GameStarted(g)) = &events.last().unwrap().kind else {
            unreachable!()
        };
        assert!(!g.rated);
        tokens[g.seat as usize] = g.token.clone();
    }
    // (hands by seat, dealer) of a game's first deal, from its seats' own views.
    async fn first_deal(
        client: &mut Client,
        game_id: &str,
        tokens: &[String],
    ) -> (Vec<Vec<v1::Card>>, u32) {
        let mut hands = Vec::new();
        let mut dealer = 0;
        for (seat, token) in tokens.iter().enumerate() {
            let view = view_of(client, game_id, Some(token), false)
                .await
                .view
                .unwrap();
            assert_eq!(view.deal, 0, "the first deal");
            hands.push(view.seats[seat].hand.clone());
            dealer = view.dealer;
        }
        (hands, dealer)
    }
    let challenged = first_deal(&mut client, &started.game_id, &tokens).await;
    let created = create_with(
        &mut client,
        v1::CreateGameRequest {
            rules: Some(short.clone()),
            seed: Some(SEED),
            ..Default::default()
        },
    )
    .await;
    let created_tokens = join_all(&mut client, &created).await;
    let by_create_game = first_deal(&mut client, &created.game_id, &created_tokens).await;
    assert_eq!(
        challenged, by_create_game,
        "dealt as CreateGame deals seed {SEED}"
    );
    let spec = canasta_proto::convert::rules_from_wire(&short).unwrap();
    let (game, _) =
        canasta_engine::Game::start(&canasta_engine::Setup::seeded(spec, SEED)).unwrap();
    let in_process: Vec<Vec<v1::Card>> = (0..2)
        .map(|s| canasta_proto::convert::cards_to_wire(game.hand(canasta_engine::table::Seat(s))))
        .collect();
    assert_eq!(
        challenged.0, in_process,
        "dealt as the engine deals seed {SEED}"
    );
    // Once over, the record names the seed.
    play_out(&mut client, &started.game_id, &tokens, 5).await;
    let record = client
        .export_game(v1::ExportGameRequest {
            game_id: started.game_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .record
        .unwrap();
    assert_eq!(record.seed, SEED);
    server.stop().await;
}

// Pending challenges survive a restart: one answered by one of its two invited players is
// still pending on the restarted server, with its answers and its deadline, and the last accept
// starts its game, which the players' streams tell (their seqs going on from before the stop);
// one whose deadline falls after the restart expires then, and its challenger's stream says so.
#[tokio::test]
async fn pending_challenges_survive_a_restart_with_their_answers_and_deadline() {
    let dir = temp_dir("lobby-challenges-restart");
    let db = dir.path().join("lobby.db");
    let config = |timeout: u64| {
        test_config()
            .storage(canasta_server::Storage::sqlite(&db))
            .challenge_timeout(std::time::Duration::from_secs(timeout))
            .build()
            .unwrap()
    };
    let server = TestServer::with_config(config(300)).await;
    let mut lobby = lobby(server.addr).await;
    let (ann, bob, cy) = (
        register(&mut lobby, "ann").await,
        register(&mut lobby, "bob").await,
        register(&mut lobby, "cy").await,
    );
    let short = |seats: &[&str]| v1::CreateChallengeRequest {
        rules: Some(rules(v1::Preset::Official, 3, &[("target_score", "300")])),
        seats: seats.iter().map(|s| s.to_string()).collect(),
        rated: Some(false),
        seed: Some(12),
        ..Default::default()
    };
    let made = make_challenge(&mut lobby, &ann, short(&["ann", "bob", "cy"])).await;
    let answered = answer(&mut lobby, &bob, &made.challenge_id, true).await;
    let mut bob_events = watch_player(&mut lobby, &bob, 0).await;
    let before = events_until(&mut bob_events, 0, |e| e.seq == 2).await;
    drop(bob_events);
    server.stop().await;

    // Restarted with a one-second challenge timeout: the first challenge keeps its own
    // deadline (five minutes on), a new one expires after a second.
    let server = TestServer::with_config(config(1)).await;
    let mut lobby = canasta_tests::lobby::lobby(server.addr).await;
    // A second answer from bob: still pending, with bob's accept and its deadline kept.
    let again = lobby
        .answer_challenge(authed(
            v1::AnswerChallengeRequest {
                challenge_id: made.challenge_id.clone(),
                accept: true,
            },
            &bob,
        ))
        .await
        .expect("the challenge is still there")
        .into_inner()
        .challenge
        .unwrap();
    assert_eq!(again, answered, "the same answers, status and deadline");
    let mut bob_events = watch_player(&mut lobby, &bob, 2).await;
    let started = answer(&mut lobby, &cy, &made.challenge_id, true).await;
    assert_eq!(started.status, v1::ChallengeStatus::Started as i32);
    let after = events_until(&mut bob_events, 2, is_started).await;
    let Some(v1::player_event::Kind::GameStarted(g)) = &after.last().unwrap().kind else {
        unreachable!()
    };
    assert_eq!(
        (g.game_id.as_str(), g.challenge_id.as_str(), g.seat),
        (started.game_id.as_str(), made.challenge_id.as_str(), 1)
    );
    assert!(before.iter().chain(&after).all(|e| e.seq > 0));
    // Its game is dealt with its seed: the same first hand as a game created with it.
    let mut client = server.client().await;
    let view = view_of(&mut client, &started.game_id, Some(&g.token), false)
        .await
        .view
        .unwrap();
    let created = create_with(
        &mut client,
        v1::CreateGameRequest {
            rules: Some(rules(v1::Preset::Official, 3, &[("target_score", "300")])),
            seed: Some(12),
            ..Default::default()
        },
    )
    .await;
    let tokens = join_all(&mut client, &created).await;
    let twin = view_of(&mut client, &created.game_id, Some(&tokens[1]), false)
        .await
        .view
        .unwrap();
    assert_eq!(view.seats[1].hand, twin.seats[1].hand, "the seed survived");

    // A challenge made now, stored, and the server restarted before its deadline: it expires
    // on the restarted server, and the challenger's stream tells it.
    let late = make_challenge(&mut lobby, &bob, short(&["bob", "ann", "cy"])).await;
    let mut bob_events = watch_player(&mut lobby, &bob, 0).await;
    let told = events_until(&mut bob_events, 0, |e| {
        matches!(&e.kind, Some(v1::player_event::Kind::Challenge(c)) if c.challenge_id == late.challenge_id)
    })
    .await;
    let seen = told.last().unwrap().seq;
    drop(bob_events);
    server.stop().await;
    let server = TestServer::with_config(config(1)).await;
    let mut lobby = canasta_tests::lobby::lobby(server.addr).await;
    let mut bob_events = watch_player(&mut lobby, &bob, seen).await;
    let ended = events_until(&mut bob_events, seen, |e| {
        matches!(&e.kind, Some(v1::player_event::Kind::Challenge(c)) if c.challenge_id == late.challenge_id)
    })
    .await;
    let Some(v1::player_event::Kind::Challenge(c)) = &ended.last().unwrap().kind else {
        unreachable!()
    };
    assert_eq!(c.status, v1::ChallengeStatus::Expired as i32, "{c:?}");
    assert_eq!(c.expires_unix_ms, late.expires_unix_ms, "its own deadline");
    let closed = lobby
        .answer_challenge(authed(
            v1::AnswerChallengeRequest {
                challenge_id: late.challenge_id.clone(),
                accept: true,
            },
            &ann,
        ))
        .await;
    refused(closed, Code::FailedPrecondition, "CHALLENGE_CLOSED");
    server.stop().await;
}
