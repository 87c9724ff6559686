//! Games a hostile client sets up to make the server work without bound: an option that deals
//! huge hands, and hands that grow huge because their players never meld. The server refuses
//! the first, and answers the second within its bounds, before and after a restart.

use canasta_engine::{Action, Card};
use canasta_proto::convert::{action_to_wire, card_from_wire};
use canasta_proto::v1;
use canasta_tests::{TestServer, authed, create_with, join_all, reason, rules, temp_dir, view_of};

/// The fuzzer's crash: Samba for two with 63 cards dealt to each needs no token to create, and
/// its first prompt listed hundreds of thousands of actions. The option is refused now.
#[tokio::test]
async fn a_hand_size_beyond_the_bound_is_refused() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for size in ["63", "46"] {
        let status = client
            .create_game(v1::CreateGameRequest {
                rules: Some(rules(v1::Preset::Samba, 2, &[("hand_size", size)])),
                seed: Some(1),
                ..Default::default()
            })
            .await
            .expect_err("refused");
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
        assert_eq!(reason(&status), "OPTION_CONFLICT");
        assert!(
            status.message().contains("at most 45"),
            "{}",
            status.message()
        );
    }
    let games = client
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("a list")
        .into_inner();
    assert!(games.games.is_empty(), "nothing was created");
    server.stop().await;
}

/// Draws and discards for both seats, never melding, until the seat to act holds `cards`
/// cards in its play phase. Returns the game's seq then.
async fn hoard(
    client: &mut canasta_tests::Client,
    game_id: &str,
    tokens: &[String],
    cards: usize,
) -> u64 {
    for step in 0.. {
        let seat_view = view_of(client, game_id, None, false).await;
        let seat = seat_view
            .view
            .expect("a view")
            .to_act
            .expect("a seat to act") as usize;
        let token = &tokens[seat];
        let mine = view_of(client, game_id, Some(token), false).await;
        let view = mine.view.expect("a view");
        let legal = mine.legal.expect("choices");
        let hand: Vec<Card> = view.seats[seat]
            .hand
            .iter()
            .map(|c| card_from_wire(c, "hand").expect("a card"))
            .collect();
        let action = if legal.can_draw {
            Action::DrawStock
        } else if hand.len() >= cards {
            return view.seq;
        } else {
            let card = *hand.iter().find(|c| !c.is_wild()).expect("a natural card");
            Action::Discard { card }
        };
        client
            .submit_action(authed(
                v1::SubmitActionRequest {
                    game_id: game_id.to_string(),
                    expected_seq: view.seq,
                    request_id: format!("hoard-{step}"),
                    action: Some(action_to_wire(&action)),
                },
                token,
            ))
            .await
            .expect("a legal action");
    }
    unreachable!()
}

/// A hand of 48 cards before the initial meld of a side that must reach 150 has millions of
/// initial melds: the view, the prompt's list and the summary come back bounded, and so they
/// do from a server restarted on the same database.
#[tokio::test]
async fn a_hoarded_hand_is_served_within_bounds_before_and_after_a_restart() {
    let dir = temp_dir("hoard");
    let db = dir.path().join("games.db");
    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let game = create_with(
        &mut client,
        v1::CreateGameRequest {
            rules: Some(rules(v1::Preset::Samba, 2, &[("hand_size", "20")])),
            seed: Some(1),
            start_scores: vec![8000, 8000],
            ..Default::default()
        },
    )
    .await;
    let tokens = join_all(&mut client, &game).await;
    let seq = hoard(&mut client, &game.game_id, &tokens, 48).await;

    let check = |answer: v1::GetViewResponse, seat_token: &str| {
        let legal = answer.legal.expect("choices");
        assert!(legal.can_discard && !legal.can_draw, "{seat_token:?}");
        assert_eq!(legal.minimum_remaining, 150);
        assert!(!legal.meld_ranks.is_empty());
        assert_eq!(
            legal.actions.len(),
            2000,
            "the default --max-prompt-actions"
        );
        assert!(legal.actions_truncated);
        answer.view.expect("a view").seq
    };
    let to_act = view_of(&mut client, &game.game_id, None, false)
        .await
        .view
        .expect("a view")
        .to_act
        .expect("a seat") as usize;
    let token = tokens[to_act].clone();
    let answer = view_of(&mut client, &game.game_id, Some(&token), true).await;
    assert_eq!(check(answer, &token), seq);
    server.stop().await;

    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let answer = view_of(&mut client, &game.game_id, Some(&token), true).await;
    assert_eq!(check(answer, &token), seq);
    // The game goes on: a discard is accepted.
    let view = view_of(&mut client, &game.game_id, Some(&token), false)
        .await
        .view
        .expect("a view");
    let card = view.seats[to_act].hand[0];
    client
        .submit_action(authed(
            v1::SubmitActionRequest {
                game_id: game.game_id.clone(),
                expected_seq: seq,
                request_id: "after-restart".into(),
                action: Some(v1::Action {
                    kind: Some(v1::action::Kind::Discard(v1::DiscardAction {
                        card: Some(card),
                    })),
                }),
            },
            &token,
        ))
        .await
        .expect("the discard");
    server.stop().await;
}
