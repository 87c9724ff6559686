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
