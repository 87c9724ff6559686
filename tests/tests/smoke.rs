//! A first end-to-end game: create, join, watch, play through prompts to the end.
use canasta_proto::v1;
use canasta_tests::*;

#[tokio::test]
async fn a_whole_match_over_rpc() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create_with(
        &mut client,
        v1::CreateGameRequest {
            rules: Some(rules(v1::Preset::Official, 2, &[("target_score", "300")])),
            seed: Some(5),
            ..Default::default()
        },
    )
    .await;
    let tokens = join_all(&mut client, &game).await;
    let mut stream = client
        .watch_game(v1::WatchGameRequest {
            game_id: game.game_id.clone(),
            after_seq: 0,
            include_actions: false,
            include_view: false,
        })
        .await
        .unwrap()
        .into_inner();
    let actions = play_to_end(&mut client, &game.game_id, &tokens, 100_000, |l| {
        l.actions.len().saturating_sub(1)
    })
    .await;
    assert!(actions > 10);
    let mut seq = 0;
    while let Some(m) = next_message(&mut stream).await {
        if let Some(v1::watch_game_response::Kind::Event(e)) = m.kind {
            assert_eq!(e.seq, seq + 1);
            seq = e.seq;
        }
    }
    let summary = client
        .get_game(v1::GetGameRequest {
            game_id: game.game_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert_eq!(summary.status, v1::GameStatus::Finished as i32);
    assert_eq!(summary.seq, seq);
    server.stop().await;
}

/// Random bots play whole matches for 2, 3, 4 and 6 players: one client polls each seat's
/// GetView in turn (`play_to_end`) and the seat with choices submits a random legal action,
/// while every seat's watch stream, opened before the first move, is read after the match. Every
/// stream is gapless and ends with MatchEnded, and the export replays in the engine to the same
/// final scores.
#[tokio::test]
async fn random_bots_finish_matches_for_every_player_count() {
    use canasta_engine::rng::Xoshiro256;
    use canasta_proto::convert;
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for (players, seed) in [(2u32, 11u64), (3, 12), (4, 13), (6, 14)] {
        let game = create_with(
            &mut client,
            v1::CreateGameRequest {
                rules: Some(rules(
                    v1::Preset::Official,
                    players,
                    &[("target_score", "400")],
                )),
                seed: Some(seed),
                ..Default::default()
            },
        )
        .await;
        let tokens = join_all(&mut client, &game).await;
        let mut streams = Vec::new();
        for token in &tokens {
            let stream = client
                .watch_game(authed(
                    v1::WatchGameRequest {
                        game_id: game.game_id.clone(),
                        after_seq: 0,
                        include_actions: false,
                        include_view: false,
                    },
                    token,
                ))
                .await
                .unwrap()
                .into_inner();
            streams.push(stream);
        }
        let mut rng = Xoshiro256::seed_from_u64(seed);
        let actions = play_to_end(&mut client, &game.game_id, &tokens, 200_000, |l| {
            rng.below(l.actions.len() as u64) as usize
        })
        .await;
        let summary = client
            .get_game(v1::GetGameRequest {
                game_id: game.game_id.clone(),
            })
            .await
            .unwrap()
            .into_inner()
            .game
            .unwrap();
        assert_eq!(
            summary.status,
            v1::GameStatus::Finished as i32,
            "{players}p"
        );
        for (seat, stream) in streams.iter_mut().enumerate() {
            let mut seq = 0;
            let mut last = None;
            while let Some(m) = next_message(stream).await {
                if let Some(v1::watch_game_response::Kind::Event(e)) = m.kind {
                    assert_eq!(e.seq, seq + 1, "{players}p seat {seat}: no gap");
                    seq = e.seq;
                    last = e.kind;
                }
            }
            assert_eq!(seq, summary.seq, "{players}p seat {seat}: every event");
            assert!(
                matches!(last, Some(v1::game_event::Kind::MatchEnded(_))),
                "{players}p seat {seat}: ends with MatchEnded"
            );
        }
        let record = client
            .export_game(v1::ExportGameRequest {
                game_id: game.game_id.clone(),
            })
            .await
            .unwrap()
            .into_inner()
            .record
            .unwrap();
        assert_eq!(
            record.actions.len(),
            actions,
            "{players}p: every action recorded"
        );
        let (setup, moves) = convert::record_from_wire(&record).unwrap();
        let replayed = canasta_engine::Game::replay(&setup, &moves).unwrap();
        let result = record.result.unwrap();
        let totals: Vec<i32> = replayed.scores().to_vec();
        assert_eq!(
            result.totals, totals,
            "{players}p: the replay scores the same"
        );
    }
    server.stop().await;
}
