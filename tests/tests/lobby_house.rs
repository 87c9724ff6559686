//! House players: the server's built-in bots registered as players (`--house-player`, greedy
//! and random by default). They are listed as house players, accept every challenge at once
//! (a challenge of house players alone starts its game in CreateChallenge's answer), play
//! their seats through the server's bots, are rated as any player, and fill the seats of a
//! seek after its `fill_with_bots_after_ms` (on a paused clock here).

mod clock;

use std::time::Duration;

use canasta_proto::v1;
use canasta_tests::lobby::*;
use canasta_tests::*;
use clock::{Advance, paused};
use tonic::Code;

#[tokio::test]
async fn house_players_accept_challenges_play_and_are_rated() {
    let server = TestServer::start().await;
    let mut lobby = lobby(server.addr).await;
    let mut client = server.client().await;
    for name in ["greedy", "random"] {
        let record = lobby
            .get_player(v1::GetPlayerRequest {
                name: name.into(),
                recent_games: 0,
            })
            .await
            .unwrap()
            .into_inner();
        assert!(record.player.unwrap().house, "{name} is a house player");
    }
    refused(
        lobby
            .register_player(v1::RegisterPlayerRequest {
                name: "Greedy".into(),
            })
            .await,
        Code::AlreadyExists,
        "NAME_TAKEN",
    );
    let ann = register(&mut lobby, "ann").await;
    let mut events = watch_player(&mut lobby, &ann, 0).await;
    // A rated game that ends at once: ann never moves under a 100 ms forfeit clock.
    let started = make_challenge(
        &mut lobby,
        &ann,
        v1::CreateChallengeRequest {
            rules: Some(rules(v1::Preset::Official, 2, &[])),
            time_control: Some(v1::TimeControl {
                move_budget_ms: 100,
                policy: v1::TimeoutPolicy::Forfeit as i32,
            }),
            seats: vec!["ann".into(), "greedy".into()],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(
        started.status,
        v1::ChallengeStatus::Started as i32,
        "greedy accepted at once"
    );
    let summary = summary_of(&mut client, &started.game_id).await;
    assert_eq!(summary.seats[1].bot, "greedy");
    assert_eq!(summary.seats[1].display_name, "greedy");
    let seen = events_until(&mut events, 0, is_finished).await;
    let Some(v1::player_event::Kind::GameFinished(finished)) = &seen.last().unwrap().kind else {
        unreachable!()
    };
    assert!(!finished.won, "ann forfeited");
    let greedy = lobby
        .get_player(v1::GetPlayerRequest {
            name: "greedy".into(),
            recent_games: 0,
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!((greedy.games, greedy.wins), (1, 1));
    assert_eq!(greedy.ratings.len(), 1);
    assert!(greedy.ratings[0].mu > 25.0);
    let board = lobby
        .get_leaderboard(v1::GetLeaderboardRequest {
            family: Some(v1::RatingFamily {
                preset: v1::Preset::Official as i32,
                player_count: 2,
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let names: Vec<String> = board
        .entries
        .iter()
        .map(|e| e.player.as_ref().unwrap().name.clone())
        .collect();
    assert_eq!(names, vec!["greedy", "ann"]);
    server.stop().await;
}

#[tokio::test]
async fn a_seek_s_empty_seats_are_filled_with_house_players_after_its_wait() {
    let server = paused(test_config().build().unwrap()).await;
    let mut lobby = lobby(server.addr).await;
    let ann = register(&mut lobby, "ann").await;
    let bob = register(&mut lobby, "bob").await;
    // Two players, two house players: a four-player game with every seat a distinct player.
    let fill = |ms| v1::SeekRequest {
        fill_with_bots_after_ms: ms,
        rated: Some(true),
        rules: Some(rules(v1::Preset::Official, 4, &[])),
        ..Default::default()
    };
    let mut a = seek(&mut lobby, &ann, fill(1000)).await;
    let mut b = seek(&mut lobby, &bob, fill(0)).await;
    server.advance(Duration::from_millis(999)).await;
    server.advance(Duration::from_millis(1)).await;
    let (sa, sb) = (seated(&mut a).await, seated(&mut b).await);
    assert_eq!(sa.game_id, sb.game_id, "bob, who waited, sits with ann");
    assert!(sa.rated, "every seat a distinct player");
    let game = sa.game.unwrap();
    let mut bots: Vec<&str> = game
        .seats
        .iter()
        .map(|s| s.bot.as_str())
        .filter(|b| !b.is_empty())
        .collect();
    bots.sort();
    assert_eq!(bots, vec!["greedy", "random"]);
    // Alone in a four-player game: three seats for two house players, one of them twice, and
    // the game is not rated.
    let mut alone = seek(&mut lobby, &ann, fill(500)).await;
    server.advance(Duration::from_millis(500)).await;
    let s = seated(&mut alone).await;
    assert!(!s.rated);
    let game = s.game.unwrap();
    assert_eq!(game.seats.iter().filter(|s| !s.bot.is_empty()).count(), 3);
    server.stop().await;
}
