//! The game-management RPCs end to end: CreateGame, ListGames, GetGame, JoinGame, LeaveGame and
//! DescribeRules, each with its success path and every error it can return. Every refused
//! request is checked to have changed nothing.
use canasta_engine::Card;
use canasta_proto::convert::card_to_wire;
use canasta_proto::v1;
use canasta_tests::replica::deck;
use canasta_tests::wire::wire_cards;
use canasta_tests::*;
use tonic::{Code, Request, Status};

// ----- helpers -----

async fn list(
    client: &mut Client,
    page_size: u32,
    page_token: &str,
    status: v1::GameStatus,
) -> v1::ListGamesResponse {
    client
        .list_games(v1::ListGamesRequest {
            page_size,
            page_token: page_token.to_string(),
            status: status as i32,
        })
        .await
        .expect("a page")
        .into_inner()
}

async fn all_games(client: &mut Client) -> Vec<v1::GameSummary> {
    list(client, 500, "", v1::GameStatus::Unspecified)
        .await
        .games
}

fn join(game_id: &str, seat: Option<u32>, name: &str) -> v1::JoinGameRequest {
    v1::JoinGameRequest {
        game_id: game_id.to_string(),
        seat,
        display_name: name.to_string(),
    }
}

async fn view(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
) -> Result<v1::GameView, Status> {
    let message = v1::GetViewRequest {
        game_id: game_id.to_string(),
        include_actions: false,
    };
    let request = match token {
        Some(t) => authed(message, t),
        None => Request::new(message),
    };
    client
        .get_view(request)
        .await
        .map(|r| r.into_inner().view.expect("a view"))
}

/// Seat 0's hand of the quick match: two natural canastas and three aces after its first draw.
const QUICK_HAND: &str = "KS KS KH KH KD KD KC QS QS QH QH QD QD QC AS";

/// A two-player official match that ends after one action of each kind: seat 0 draws two aces
/// and goes out concealed with two natural canastas, reaching the target of 300.
async fn quick_match(client: &mut Client) -> (v1::GameSummary, Vec<String>) {
    let rules = rules(v1::Preset::Official, 2, &[("target_score", "300")]);
    let order = deck(&rules, 0, 1, &[QUICK_HAND, ""], "4C", "AH AD");
    let game = create_with(
        client,
        v1::CreateGameRequest {
            rules: Some(rules),
            seed: Some(1),
            card_orders: vec![order],
            first_dealer: Some(1),
            ..Default::default()
        },
    )
    .await;
    let tokens = join_all(client, &game).await;
    let draw = v1::Action {
        kind: Some(v1::action::Kind::DrawStock(v1::DrawStockAction {})),
    };
    let meld = |text: &str| v1::MeldSpec {
        meld_index: None,
        cards: wire_cards(text),
    };
    let go_out = v1::Action {
        kind: Some(v1::action::Kind::GoOut(v1::GoOutAction {
            melds: vec![
                meld("KS KS KH KH KD KD KC"),
                meld("QS QS QH QH QD QD QC"),
                meld("AS AH AD"),
            ],
            discard: None,
        })),
    };
    let mut seq = summary_of(client, &game.game_id).await.seq;
    for (i, action) in [draw, go_out].into_iter().enumerate() {
        seq = client
            .submit_action(authed(
                v1::SubmitActionRequest {
                    game_id: game.game_id.clone(),
                    expected_seq: seq,
                    request_id: format!("quick-{i}"),
                    action: Some(action),
                },
                &tokens[0],
            ))
            .await
            .expect("the arranged action is legal")
            .into_inner()
            .seq;
    }
    let summary = summary_of(client, &game.game_id).await;
    assert_eq!(summary.status, v1::GameStatus::Finished as i32);
    (summary, tokens)
}

// ----- CreateGame -----

#[tokio::test]
async fn create_game_makes_a_waiting_game_for_every_preset() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let cases = [
        (v1::Preset::Official, 2),
        (v1::Preset::Official, 4),
        (v1::Preset::Official, 6),
        (v1::Preset::Wiener, 3),
        (v1::Preset::Samba, 4),
        (v1::Preset::Swiss, 5),
    ];
    let mut ids = Vec::new();
    for (preset, players) in cases {
        let rules = rules(preset, players, &[]);
        let before = now_ms();
        let game = create_with(
            &mut client,
            v1::CreateGameRequest {
                rules: Some(rules.clone()),
                seed: Some(7),
                ..Default::default()
            },
        )
        .await;
        assert!(!game.game_id.is_empty(), "{game:?}");
        assert!(!ids.contains(&game.game_id));
        ids.push(game.game_id.clone());
        assert_eq!(game.rules, Some(rules), "{preset:?}");
        assert_eq!(game.status, v1::GameStatus::Waiting as i32);
        assert_eq!(game.seq, 0);
        assert_eq!(game.seats.len(), players as usize);
        for (i, seat) in game.seats.iter().enumerate() {
            assert_eq!(seat.seat, i as u32);
            assert!(!seat.occupied);
            assert_eq!(seat.display_name, "");
        }
        // No result while the game waits for players.
        assert_eq!(game.result, None);
        assert_eq!(game.time_control, None);
        assert!(game.created_unix_ms >= before && game.created_unix_ms <= now_ms() + 1);
        assert_eq!(summary_of(&mut client, &game.game_id).await, game);
    }
    // Partners sit opposite: four players are two sides of seats 0, 2 and 1, 3.
    let four = summary_of(&mut client, &ids[1]).await;
    let sides: Vec<u32> = four.seats.iter().map(|s| s.side).collect();
    assert_eq!(sides, [0, 1, 0, 1]);
    let six = summary_of(&mut client, &ids[2]).await;
    let sides: Vec<u32> = six.seats.iter().map(|s| s.side).collect();
    assert_eq!(sides, [0, 1, 2, 0, 1, 2]);
    assert_eq!(all_games(&mut client).await.len(), cases.len());
    server.stop().await;
}

#[tokio::test]
async fn create_game_keeps_options_and_time_control() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let rules = rules(
        v1::Preset::Official,
        2,
        &[("target_score", "300"), ("going_out_bonus", "150")],
    );
    let time_control = v1::TimeControl {
        move_budget_ms: 60_000,
        policy: v1::TimeoutPolicy::FallbackMove as i32,
    };
    let game = create_with(
        &mut client,
        v1::CreateGameRequest {
            rules: Some(rules.clone()),
            time_control: Some(time_control),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(game.rules, Some(rules));
    assert_eq!(game.time_control, Some(time_control));
    assert_eq!(game.status, v1::GameStatus::Waiting as i32);
    // A budget of 0 is no time control, whatever the policy.
    let untimed = create_with(
        &mut client,
        v1::CreateGameRequest {
            rules: Some(rules_of(v1::Preset::Official, 2)),
            time_control: Some(v1::TimeControl {
                move_budget_ms: 0,
                policy: 0,
            }),
            ..Default::default()
        },
    )
    .await;
    assert_eq!(untimed.status, v1::GameStatus::Waiting as i32);
    server.stop().await;
}

fn rules_of(preset: v1::Preset, players: u32) -> v1::RuleSet {
    rules(preset, players, &[])
}

#[tokio::test]
async fn create_game_refuses_malformed_requests() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let official =
        |players: u32, options: &[(&str, &str)]| rules(v1::Preset::Official, players, options);
    let good = v1::CreateGameRequest {
        rules: Some(official(2, &[])),
        seed: Some(3),
        ..Default::default()
    };
    let pack = {
        let o = deck(&official(2, &[]), 0, 1, &[], "", "");
        assert_eq!(o.cards.len(), 108);
        o
    };
    let short = v1::CardOrder {
        cards: pack.cards[1..].to_vec(),
    };
    let mut doubled = pack.clone();
    doubled.cards[0] = doubled.cards[1];
    let mut bad_card = pack.clone();
    bad_card.cards[5] = v1::Card { rank: 0, suit: 1 };
    let too_long = v1::CardOrder {
        cards: vec![card_to_wire(Card::JOKER); 300],
    };
    let with = |f: &dyn Fn(&mut v1::CreateGameRequest)| {
        let mut r = good.clone();
        f(&mut r);
        r
    };
    let cases: Vec<(&str, v1::CreateGameRequest, &str)> = vec![
        ("no rules", with(&|r| r.rules = None), "MISSING_FIELD"),
        (
            "PRESET_UNSPECIFIED",
            with(&|r| r.rules = Some(rules(v1::Preset::Unspecified, 2, &[]))),
            "INVALID_ENUM",
        ),
        (
            "an unknown preset",
            with(&|r| {
                r.rules = Some(v1::RuleSet {
                    preset: 99,
                    player_count: 2,
                    options: Default::default(),
                })
            }),
            "INVALID_ENUM",
        ),
        (
            "0 players",
            with(&|r| r.rules = Some(official(0, &[]))),
            "BAD_PLAYER_COUNT",
        ),
        (
            "1 player",
            with(&|r| r.rules = Some(official(1, &[]))),
            "BAD_PLAYER_COUNT",
        ),
        (
            "7 players",
            with(&|r| r.rules = Some(official(7, &[]))),
            "BAD_PLAYER_COUNT",
        ),
        (
            "300 players",
            with(&|r| r.rules = Some(official(300, &[]))),
            "BAD_PLAYER_COUNT",
        ),
        (
            "Samba for 5",
            with(&|r| r.rules = Some(rules(v1::Preset::Samba, 5, &[]))),
            "BAD_PLAYER_COUNT",
        ),
        (
            "Swiss for 6",
            with(&|r| r.rules = Some(rules(v1::Preset::Swiss, 6, &[]))),
            "BAD_PLAYER_COUNT",
        ),
        (
            "an unknown option",
            with(&|r| r.rules = Some(official(2, &[("no_such_option", "1")]))),
            "UNKNOWN_OPTION",
        ),
        (
            "a bad option value",
            with(&|r| r.rules = Some(official(2, &[("target_score", "lots")]))),
            "BAD_OPTION_VALUE",
        ),
        (
            "a card order one card short",
            with(&|r| r.card_orders = vec![short.clone()]),
            "BAD_CARD_ORDER",
        ),
        (
            "a card order with a card twice",
            with(&|r| r.card_orders = vec![doubled.clone()]),
            "BAD_CARD_ORDER",
        ),
        (
            "a good first deck and a bad second one",
            with(&|r| r.card_orders = vec![pack.clone(), short.clone()]),
            "BAD_CARD_ORDER",
        ),
        (
            "a card order with a card of no rank",
            with(&|r| r.card_orders = vec![bad_card.clone()]),
            "INVALID_CARD",
        ),
        (
            "a card order of 300 cards",
            with(&|r| r.card_orders = vec![too_long.clone()]),
            "TOO_MANY_CARDS",
        ),
        (
            "first dealer 2 of 2 players",
            with(&|r| r.first_dealer = Some(2)),
            "BAD_FIRST_DEALER",
        ),
        (
            "first dealer 1000",
            with(&|r| r.first_dealer = Some(1000)),
            "BAD_FIRST_DEALER",
        ),
        (
            "one start score for two sides",
            with(&|r| r.start_scores = vec![100]),
            "BAD_START_SCORES",
        ),
        (
            "three start scores for two sides",
            with(&|r| r.start_scores = vec![100, 0, 0]),
            "BAD_START_SCORES",
        ),
        (
            "four start scores for four players in two sides",
            with(&|r| {
                r.rules = Some(official(4, &[]));
                r.start_scores = vec![0, 0, 0, 0];
            }),
            "BAD_START_SCORES",
        ),
        (
            "a move budget with no policy",
            with(&|r| {
                r.time_control = Some(v1::TimeControl {
                    move_budget_ms: 1000,
                    policy: v1::TimeoutPolicy::Unspecified as i32,
                })
            }),
            "INVALID_ENUM",
        ),
        (
            "a move budget with an unknown policy",
            with(&|r| {
                r.time_control = Some(v1::TimeControl {
                    move_budget_ms: 1000,
                    policy: 42,
                })
            }),
            "INVALID_ENUM",
        ),
    ];
    for (what, request, why) in cases {
        let status = client
            .create_game(request)
            .await
            .expect_err(&format!("{what} should be refused"));
        assert_eq!(status.code(), Code::InvalidArgument, "{what}: {status:?}");
        assert_eq!(reason(&status), why, "{what}: {status:?}");
        assert!(!status.message().is_empty(), "{what}");
    }
    // Contradictory options are refused naming them.
    for (options, name) in [
        (&[("samba_bonus", "1500")][..], "samba_bonus"),
        (&[("wild_canasta_bonus", "1000")][..], "wild_canasta_bonus"),
        (&[("five_players", "each_alone")][..], "five_players"),
    ] {
        let status = refused(
            client
                .create_game(v1::CreateGameRequest {
                    rules: Some(official(4, options)),
                    ..Default::default()
                })
                .await,
            Code::InvalidArgument,
            "OPTION_CONFLICT",
        );
        assert!(status.message().contains(name), "{status:?}");
    }
    // Nothing was created.
    assert!(all_games(&mut client).await.is_empty());
    // The good request itself is accepted, with every fix applied at once.
    let game = create_with(
        &mut client,
        v1::CreateGameRequest {
            card_orders: vec![pack],
            first_dealer: Some(1),
            start_scores: vec![100, -50],
            ..good
        },
    )
    .await;
    assert_eq!(all_games(&mut client).await, vec![game]);
    server.stop().await;
}

#[tokio::test]
async fn a_prearranged_card_order_is_dealt_as_given() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let rules = rules(v1::Preset::Official, 2, &[]);
    let hand0 = "KS KH Jk 2C 7D 7H 8S 9S TD JC QH AS AD 4C 5H";
    let hand1 = "KC KD 6S 6H";
    let order = deck(&rules, 0, 1, &[hand0, hand1], "2S 9H", "AC AH");
    let game = create_with(
        &mut client,
        v1::CreateGameRequest {
            rules: Some(rules),
            card_orders: vec![order],
            first_dealer: Some(1),
            start_scores: vec![1200, -300],
            ..Default::default()
        },
    )
    .await;
    let tokens = join_all(&mut client, &game).await;
    let sorted = |mut c: Vec<v1::Card>| {
        c.sort_by_key(|c| (c.rank, c.suit));
        c
    };
    let mine = view(&mut client, &game.game_id, Some(&tokens[0]))
        .await
        .unwrap();
    assert_eq!(mine.viewer_seat, Some(0));
    assert_eq!(
        sorted(mine.seats[0].hand.clone()),
        sorted(wire_cards(hand0))
    );
    assert_eq!(mine.seats[0].hand_count, 15);
    assert_eq!(mine.dealer, 1);
    assert_eq!(mine.to_act, Some(0));
    assert_eq!(mine.pile, wire_cards("2S 9H"));
    assert!(mine.pile_frozen);
    assert_eq!(mine.stock_count, 108 - 30 - 2);
    let scores: Vec<i32> = mine.sides.iter().map(|s| s.score).collect();
    assert_eq!(scores, [1200, -300]);
    // Seat 1 was dealt the named cards and fillers.
    let theirs = view(&mut client, &game.game_id, Some(&tokens[1]))
        .await
        .unwrap();
    let hand = &theirs.seats[1].hand;
    assert_eq!(hand.len(), 15);
    for c in wire_cards(hand1) {
        assert!(hand.contains(&c), "{c:?} in {hand:?}");
    }
    // The first draw takes the top of the arranged stock.
    let drawn = client
        .submit_action(authed(
            v1::SubmitActionRequest {
                game_id: game.game_id.clone(),
                expected_seq: mine.seq,
                request_id: "draw".into(),
                action: Some(v1::Action {
                    kind: Some(v1::action::Kind::DrawStock(v1::DrawStockAction {})),
                }),
            },
            &tokens[0],
        ))
        .await
        .unwrap()
        .into_inner();
    let drew: Vec<v1::Drew> = drawn
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            Some(v1::game_event::Kind::Drew(d)) => Some(d.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(drew.len(), 1, "{drawn:?}");
    assert_eq!(drew[0].cards, wire_cards("AC AH"));
    server.stop().await;
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

// ----- ListGames -----

#[tokio::test]
async fn list_games_pages_newest_first() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let mut ids = Vec::new();
    for seed in 0..7 {
        ids.push(create(&mut client, 2, seed).await.game_id);
    }
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    // Pages of 3: 3, 3, 1.
    let mut seen = Vec::new();
    let mut token = String::new();
    let mut sizes = Vec::new();
    loop {
        let page = list(&mut client, 3, &token, v1::GameStatus::Unspecified).await;
        sizes.push(page.games.len());
        seen.extend(page.games.iter().map(|g| g.game_id.clone()));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
        assert!(sizes.len() < 10, "paging does not end");
    }
    assert_eq!(sizes, [3, 3, 1]);
    assert_eq!(seen, newest_first);
    // Exactly 7 at a page of 7: one page, no next token.
    let page = list(&mut client, 7, "", v1::GameStatus::Unspecified).await;
    assert_eq!(page.games.len(), 7);
    assert_eq!(page.next_page_token, "");
    // 0 is the default page (50), and a page size over the maximum is cut to it.
    for size in [0, 100_000] {
        let page = list(&mut client, size, "", v1::GameStatus::Unspecified).await;
        let got: Vec<String> = page.games.iter().map(|g| g.game_id.clone()).collect();
        assert_eq!(got, newest_first);
        assert_eq!(page.next_page_token, "");
    }
    // Created times never decrease from the oldest to the newest.
    let page = list(&mut client, 0, "", v1::GameStatus::Unspecified).await;
    let times: Vec<i64> = page.games.iter().map(|g| g.created_unix_ms).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    server.stop().await;
}

// Games created while a client pages through the list neither repeat nor hide the games of
// the pages still to come.
#[tokio::test]
async fn list_games_pages_stay_put_while_games_are_created() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let mut ids = Vec::new();
    for seed in 0..5 {
        ids.push(create(&mut client, 2, seed).await.game_id);
    }
    let first = list(&mut client, 2, "", v1::GameStatus::Unspecified).await;
    create(&mut client, 2, 99).await;
    create(&mut client, 2, 100).await;
    let mut seen: Vec<String> = first.games.iter().map(|g| g.game_id.clone()).collect();
    let mut token = first.next_page_token;
    while !token.is_empty() {
        let page = list(&mut client, 2, &token, v1::GameStatus::Unspecified).await;
        seen.extend(page.games.iter().map(|g| g.game_id.clone()));
        token = page.next_page_token;
    }
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    assert_eq!(seen, newest_first);
    server.stop().await;
}

#[tokio::test]
async fn list_games_filters_by_status() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (finished, _) = quick_match(&mut client).await;
    let mut waiting = Vec::new();
    let mut playing = Vec::new();
    for seed in 0..6 {
        let game = create(&mut client, 2, seed).await;
        if seed % 3 == 1 {
            join_all(&mut client, &game).await;
            playing.push(game.game_id);
        } else {
            waiting.push(game.game_id);
        }
    }
    waiting.reverse();
    playing.reverse();
    let ids = |page: &v1::ListGamesResponse| -> Vec<String> {
        page.games.iter().map(|g| g.game_id.clone()).collect()
    };
    let page = list(&mut client, 0, "", v1::GameStatus::Playing).await;
    assert_eq!(ids(&page), playing);
    assert!(
        page.games
            .iter()
            .all(|g| g.status == v1::GameStatus::Playing as i32)
    );
    let page = list(&mut client, 0, "", v1::GameStatus::Finished).await;
    assert_eq!(ids(&page), std::slice::from_ref(&finished.game_id));
    assert_eq!(page.games[0], finished);
    let page = list(&mut client, 0, "", v1::GameStatus::Waiting).await;
    assert_eq!(ids(&page), waiting);
    assert_eq!(
        list(&mut client, 0, "", v1::GameStatus::Unspecified)
            .await
            .games
            .len(),
        7
    );
    // Pages of a filtered list hold only matching games, and lose none.
    let mut seen = Vec::new();
    let mut token = String::new();
    let mut sizes = Vec::new();
    loop {
        let page = list(&mut client, 3, &token, v1::GameStatus::Waiting).await;
        sizes.push(page.games.len());
        seen.extend(ids(&page));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(sizes, [3, 1]);
    assert_eq!(seen, waiting);
    server.stop().await;
}

#[tokio::test]
async fn list_games_refuses_a_bad_page_token_or_status() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    for seed in 0..3 {
        create(&mut client, 2, seed).await;
    }
    let before = all_games(&mut client).await;
    // "4" points past the three games: no answer ever gave it.
    for token in ["garbage", "-1", "1.5", "0x2", "4"] {
        refused(
            client
                .list_games(v1::ListGamesRequest {
                    page_size: 2,
                    page_token: token.into(),
                    status: 0,
                })
                .await,
            Code::InvalidArgument,
            "BAD_PAGE_TOKEN",
        );
    }
    refused(
        client
            .list_games(v1::ListGamesRequest {
                page_size: 2,
                page_token: String::new(),
                status: 17,
            })
            .await,
        Code::InvalidArgument,
        "INVALID_ENUM",
    );
    assert_eq!(all_games(&mut client).await, before);
    server.stop().await;
}

// ----- GetGame -----

#[tokio::test]
async fn get_game_follows_the_game_and_refuses_an_unknown_id() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create(&mut client, 2, 11).await;
    let got = summary_of(&mut client, &game.game_id).await;
    assert_eq!(got, game);
    let joined = client
        .join_game(join(&game.game_id, Some(1), "Bea"))
        .await
        .unwrap()
        .into_inner();
    let got = summary_of(&mut client, &game.game_id).await;
    assert_eq!(Some(&got), joined.game.as_ref());
    assert_eq!(got.seq, 1);
    assert_eq!(got.status, v1::GameStatus::Waiting as i32);
    assert!(!got.seats[0].occupied);
    assert!(got.seats[1].occupied);
    assert_eq!(got.seats[1].display_name, "Bea");
    // A token is not needed, and a seat's token is accepted too.
    let with_token = client
        .get_game(authed(
            v1::GetGameRequest {
                game_id: game.game_id.clone(),
            },
            &joined.token,
        ))
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert_eq!(with_token, got);
    // An empty id is a missing field (bad_input.rs).
    for id in ["0123456789abcdef", "no such game"] {
        let status = refused(
            client
                .get_game(v1::GetGameRequest {
                    game_id: id.to_string(),
                })
                .await,
            Code::NotFound,
            "GAME_NOT_FOUND",
        );
        assert!(!status.message().is_empty());
    }
    assert_eq!(summary_of(&mut client, &game.game_id).await, got);
    server.stop().await;
}

// ----- JoinGame -----

#[tokio::test]
async fn join_game_takes_the_named_seat_or_the_lowest_free_one() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create(&mut client, 4, 2).await;
    let id = game.game_id.clone();
    let a = client
        .join_game(join(&id, Some(2), "Cy"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(a.seat, 2);
    let b = client
        .join_game(join(&id, None, "Di"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(b.seat, 0);
    let c = client
        .join_game(join(&id, None, "Ed"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(c.seat, 1);
    // Tokens: at least 128 random bits, one per seat.
    for t in [&a.token, &b.token, &c.token] {
        assert!(t.len() >= 32, "{t}");
    }
    assert_ne!(a.token, b.token);
    assert_ne!(b.token, c.token);
    let summary = c.game.unwrap();
    assert_eq!(summary.seq, 3);
    assert_eq!(summary.status, v1::GameStatus::Waiting as i32);
    let names: Vec<(bool, &str)> = summary
        .seats
        .iter()
        .map(|s| (s.occupied, s.display_name.as_str()))
        .collect();
    assert_eq!(
        names,
        [(true, "Di"), (true, "Ed"), (true, "Cy"), (false, "")]
    );
    // Each token acts for its seat.
    for (t, seat) in [(&a.token, 2), (&b.token, 0), (&c.token, 1)] {
        let v = view(&mut client, &id, Some(t)).await.unwrap();
        assert_eq!(v.viewer_seat, Some(seat));
    }
    // A display name of 40 characters (of several bytes each) is accepted; spaces around it are
    // trimmed.
    let long = "é".repeat(40);
    let d = client
        .join_game(join(&id, None, &format!("  {long} ")))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(d.seat, 3);
    let summary = summary_of(&mut client, &id).await;
    assert_eq!(summary.seats[3].display_name, long);
    assert_eq!(summary.status, v1::GameStatus::Playing as i32);
    server.stop().await;
}

#[tokio::test]
async fn join_game_refuses_taken_missing_and_badly_named_seats() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create(&mut client, 3, 4).await;
    let id = game.game_id.clone();
    client.join_game(join(&id, Some(1), "Flo")).await.unwrap();
    let before = summary_of(&mut client, &id).await;
    let status = refused(
        client.join_game(join(&id, Some(1), "Gus")).await,
        Code::FailedPrecondition,
        "SEAT_TAKEN",
    );
    assert!(status.message().contains("seat 1"), "{status:?}");
    for seat in [3, 6, 1000] {
        refused(
            client.join_game(join(&id, Some(seat), "Gus")).await,
            Code::InvalidArgument,
            "INVALID_SEAT",
        );
    }
    refused(
        client.join_game(join(&id, None, "")).await,
        Code::InvalidArgument,
        "MISSING_FIELD",
    );
    let names = [
        "   ",
        &"x".repeat(41),
        &"é".repeat(41),
        "tab\there",
        "new\nline",
    ];
    for name in names {
        refused(
            client.join_game(join(&id, None, name)).await,
            Code::InvalidArgument,
            "BAD_DISPLAY_NAME",
        );
    }
    refused(
        client
            .join_game(join("0000000000000000", None, "Gus"))
            .await,
        Code::NotFound,
        "GAME_NOT_FOUND",
    );
    assert_eq!(summary_of(&mut client, &id).await, before);
    // The game fills up and starts; then every seat is taken.
    client.join_game(join(&id, None, "Gus")).await.unwrap();
    client.join_game(join(&id, None, "Hal")).await.unwrap();
    let full = summary_of(&mut client, &id).await;
    assert_eq!(full.status, v1::GameStatus::Playing as i32);
    refused(
        client.join_game(join(&id, None, "Ida")).await,
        Code::FailedPrecondition,
        "GAME_FULL",
    );
    refused(
        client.join_game(join(&id, Some(0), "Ida")).await,
        Code::FailedPrecondition,
        "SEAT_TAKEN",
    );
    assert_eq!(summary_of(&mut client, &id).await, full);
    server.stop().await;
}

#[tokio::test]
async fn the_game_starts_when_the_last_seat_joins() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create(&mut client, 2, 21).await;
    let id = game.game_id.clone();
    let mut stream = client
        .watch_game(v1::WatchGameRequest {
            game_id: id.clone(),
            after_seq: 0,
            include_actions: false,
            include_view: false,
        })
        .await
        .unwrap()
        .into_inner();
    let first = client
        .join_game(join(&id, None, "Jo"))
        .await
        .unwrap()
        .into_inner();
    let first_game = first.game.unwrap();
    assert_eq!(first_game.status, v1::GameStatus::Waiting as i32);
    assert_eq!(first_game.seq, 1);
    // Nobody can act yet.
    let v = view(&mut client, &id, Some(&first.token)).await.unwrap();
    assert_eq!(v.status, v1::GameStatus::Waiting as i32);
    assert_eq!(v.to_act, None);
    let last = client
        .join_game(join(&id, None, "Kim"))
        .await
        .unwrap()
        .into_inner();
    let last_game = last.game.unwrap();
    assert_eq!(last.seat, 1);
    assert_eq!(last_game.status, v1::GameStatus::Playing as i32);
    let mut events = Vec::new();
    while events.len() < last_game.seq as usize {
        let m = next_message(&mut stream).await.expect("the stream goes on");
        if let Some(v1::watch_game_response::Kind::Event(e)) = m.kind {
            events.push(e);
        }
    }
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=last_game.seq).collect::<Vec<_>>());
    use v1::game_event::Kind;
    assert_eq!(
        events[0].kind,
        Some(Kind::SeatJoined(v1::SeatJoined {
            seat: 0,
            display_name: "Jo".into()
        }))
    );
    assert_eq!(
        events[1].kind,
        Some(Kind::SeatJoined(v1::SeatJoined {
            seat: 1,
            display_name: "Kim".into()
        }))
    );
    assert_eq!(events[2].kind, Some(Kind::GameStarted(v1::GameStarted {})));
    let Some(Kind::DealStarted(deal)) = &events[3].kind else {
        panic!("DealStarted expected, got {:?}", events[3]);
    };
    assert_eq!(deal.deal, 0);
    assert_eq!(deal.hands.len(), 2);
    for h in &deal.hands {
        assert_eq!(h.count, 15);
        assert!(h.cards.is_empty(), "a spectator sees no hand");
    }
    assert_eq!(deal.stock_count as usize + 30 + deal.pile.len(), 108);
    // Exactly one GameStarted and one DealStarted.
    let count = |f: fn(&Kind) -> bool| {
        events
            .iter()
            .filter(|e| e.kind.as_ref().is_some_and(f))
            .count()
    };
    assert_eq!(count(|k| matches!(k, Kind::GameStarted(_))), 1);
    assert_eq!(count(|k| matches!(k, Kind::DealStarted(_))), 1);
    let v = view(&mut client, &id, Some(&first.token)).await.unwrap();
    assert_eq!(v.status, v1::GameStatus::Playing as i32);
    assert_eq!(v.seq, last_game.seq);
    assert_eq!(v.dealer, deal.dealer);
    assert_eq!(v.play_order, deal.play_order);
    assert_eq!(v.to_act, Some(deal.play_order[0]));
    assert_eq!(summary_of(&mut client, &id).await, last_game);
    server.stop().await;
}

#[tokio::test]
async fn join_game_refuses_a_finished_game() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (finished, tokens) = quick_match(&mut client).await;
    let id = finished.game_id.clone();
    for seat in [None, Some(0)] {
        refused(
            client.join_game(join(&id, seat, "Late")).await,
            Code::FailedPrecondition,
            "GAME_FINISHED",
        );
    }
    // Nor can a seat be left once the match is over: the log ends with MatchEnded.
    refused(
        client
            .leave_game(authed(
                v1::LeaveGameRequest {
                    game_id: id.clone(),
                },
                &tokens[0],
            ))
            .await,
        Code::FailedPrecondition,
        "GAME_FINISHED",
    );
    assert_eq!(summary_of(&mut client, &id).await, finished);
    // The seats still hold their tokens.
    let v = view(&mut client, &id, Some(&tokens[1])).await.unwrap();
    assert_eq!(v.viewer_seat, Some(1));
    assert_eq!(v.status, v1::GameStatus::Finished as i32);
    server.stop().await;
}

// ----- LeaveGame -----

#[tokio::test]
async fn leave_game_frees_the_seat_for_a_new_token() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create(&mut client, 3, 8).await;
    let id = game.game_id.clone();
    let zero = client
        .join_game(join(&id, None, "Lou"))
        .await
        .unwrap()
        .into_inner();
    let one = client
        .join_game(join(&id, None, "Max"))
        .await
        .unwrap()
        .into_inner();
    let mut stream = client
        .watch_game(v1::WatchGameRequest {
            game_id: id.clone(),
            after_seq: 2,
            include_actions: false,
            include_view: false,
        })
        .await
        .unwrap()
        .into_inner();
    client
        .leave_game(authed(
            v1::LeaveGameRequest {
                game_id: id.clone(),
            },
            &one.token,
        ))
        .await
        .unwrap();
    let m = next_message(&mut stream).await.unwrap();
    assert_eq!(
        m.kind,
        Some(v1::watch_game_response::Kind::Event(v1::GameEvent {
            seq: 3,
            kind: Some(v1::game_event::Kind::SeatLeft(v1::SeatLeft { seat: 1 })),
        }))
    );
    let summary = summary_of(&mut client, &id).await;
    assert_eq!(summary.seq, 3);
    assert!(summary.seats[0].occupied);
    assert!(!summary.seats[1].occupied);
    assert_eq!(summary.seats[1].display_name, "", "a free seat has no name");
    // The old token holds no seat any more.
    for status in [
        view(&mut client, &id, Some(&one.token)).await.unwrap_err(),
        client
            .leave_game(authed(
                v1::LeaveGameRequest {
                    game_id: id.clone(),
                },
                &one.token,
            ))
            .await
            .unwrap_err(),
    ] {
        assert_eq!(status.code(), Code::PermissionDenied, "{status:?}");
        assert_eq!(reason(&status), "NOT_A_SEAT_OF_GAME");
    }
    assert_eq!(summary_of(&mut client, &id).await, summary);
    // The freed seat is the lowest free one again, with a new token.
    let again = client
        .join_game(join(&id, None, "Ned"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.seat, 1);
    assert_ne!(again.token, one.token);
    let v = view(&mut client, &id, Some(&again.token)).await.unwrap();
    assert_eq!(v.viewer_seat, Some(1));
    assert_eq!(v.seats[1].display_name, "Ned");
    assert!(v.seats[1].occupied);
    let status = view(&mut client, &id, Some(&one.token)).await.unwrap_err();
    assert_eq!(status.code(), Code::PermissionDenied);
    assert_eq!(reason(&status), "NOT_A_SEAT_OF_GAME");
    let m = next_message(&mut stream).await.unwrap();
    assert_eq!(
        m.kind,
        Some(v1::watch_game_response::Kind::Event(v1::GameEvent {
            seq: 4,
            kind: Some(v1::game_event::Kind::SeatJoined(v1::SeatJoined {
                seat: 1,
                display_name: "Ned".into()
            })),
        }))
    );
    // Seat 0 kept its token throughout.
    let v = view(&mut client, &id, Some(&zero.token)).await.unwrap();
    assert_eq!(v.viewer_seat, Some(0));
    server.stop().await;
}

#[tokio::test]
async fn leaving_a_game_in_play_keeps_it_going_for_the_next_holder_of_the_seat() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create(&mut client, 2, 13).await;
    let id = game.game_id.clone();
    let tokens = join_all(&mut client, &game).await;
    let before = view(&mut client, &id, Some(&tokens[1])).await.unwrap();
    client
        .leave_game(authed(
            v1::LeaveGameRequest {
                game_id: id.clone(),
            },
            &tokens[1],
        ))
        .await
        .unwrap();
    let summary = summary_of(&mut client, &id).await;
    assert_eq!(summary.status, v1::GameStatus::Playing as i32);
    assert_eq!(summary.seq, before.seq + 1);
    assert!(!summary.seats[1].occupied);
    let again = client
        .join_game(join(&id, None, "Oz"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.seat, 1);
    let after = view(&mut client, &id, Some(&again.token)).await.unwrap();
    assert_eq!(after.seq, before.seq + 2, "no second start, no new deal");
    assert_eq!(after.status, v1::GameStatus::Playing as i32);
    assert_eq!(
        after.seats[1].hand, before.seats[1].hand,
        "the new holder has the seat's hand"
    );
    assert_eq!(after.deal, before.deal);
    server.stop().await;
}

#[tokio::test]
async fn leave_game_needs_a_well_formed_token_of_the_game() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create(&mut client, 2, 5).await;
    let other = create(&mut client, 2, 6).await;
    let id = game.game_id.clone();
    let mine = client
        .join_game(join(&id, None, "Pat"))
        .await
        .unwrap()
        .into_inner();
    let theirs = client
        .join_game(join(&other.game_id, None, "Quin"))
        .await
        .unwrap()
        .into_inner();
    let before = summary_of(&mut client, &id).await;
    let leave = || v1::LeaveGameRequest {
        game_id: id.clone(),
    };
    refused(
        client.leave_game(leave()).await,
        Code::Unauthenticated,
        "MISSING_TOKEN",
    );
    for header in ["Basic x", "Bearer ", "Bearer", "x"] {
        let mut r = Request::new(leave());
        r.metadata_mut()
            .insert("authorization", header.parse().unwrap());
        refused(
            client.leave_game(r).await,
            Code::Unauthenticated,
            "MALFORMED_TOKEN",
        );
    }
    for token in [theirs.token.as_str(), "0123456789abcdef0123456789abcdef"] {
        refused(
            client.leave_game(authed(leave(), token)).await,
            Code::PermissionDenied,
            "NOT_A_SEAT_OF_GAME",
        );
    }
    refused(
        client
            .leave_game(authed(
                v1::LeaveGameRequest {
                    game_id: "ffffffffffffffff".into(),
                },
                &mine.token,
            ))
            .await,
        Code::NotFound,
        "GAME_NOT_FOUND",
    );
    assert_eq!(summary_of(&mut client, &id).await, before);
    assert_eq!(summary_of(&mut client, &other.game_id).await.seq, 1);
    // The right token still works.
    client
        .leave_game(authed(leave(), &mine.token))
        .await
        .unwrap();
    assert!(!summary_of(&mut client, &id).await.seats[0].occupied);
    server.stop().await;
}

// ----- DescribeRules -----

#[tokio::test]
async fn describe_rules_lists_every_effective_option() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let describe = |rules: v1::RuleSet| v1::DescribeRulesRequest { rules: Some(rules) };
    let samba = client
        .describe_rules(describe(rules(v1::Preset::Samba, 4, &[])))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(samba.preset, v1::Preset::Samba as i32);
    assert_eq!(samba.player_count, 4);
    assert_eq!(samba.pack_size, 162);
    let names: Vec<&str> = samba.options.iter().map(|o| o.name.as_str()).collect();
    let documented: Vec<&str> = canasta_engine::rules::OPTION_DOCS
        .iter()
        .map(|d| d.0)
        .collect();
    let mut sorted_names = names.clone();
    sorted_names.sort();
    sorted_names.dedup();
    assert_eq!(sorted_names.len(), names.len(), "an option listed twice");
    // Every documented option that applies: seatings of five and six players do not, nor the
    // bonuses of wild canastas, which Samba plays without by default.
    let not_applying = [
        "five_players",
        "six_players",
        "wild_canasta_bonus",
        "joker_canasta_bonus",
        "deuce_canasta_bonus",
    ];
    let mut expected: Vec<&str> = documented
        .iter()
        .copied()
        .filter(|n| !not_applying.contains(n))
        .collect();
    expected.sort();
    assert_eq!(sorted_names, expected);
    for o in &samba.options {
        assert!(!o.value.is_empty(), "{o:?}");
        assert!(!o.description.is_empty(), "{o:?}");
    }
    let value = |d: &v1::DescribeRulesResponse, name: &str| {
        d.options
            .iter()
            .find(|o| o.name == name)
            .unwrap_or_else(|| panic!("{name} listed"))
            .value
            .clone()
    };
    assert_eq!(value(&samba, "decks"), "3");
    assert_eq!(value(&samba, "jokers"), "6");
    assert_eq!(value(&samba, "target_score"), "10000");
    assert_eq!(value(&samba, "sequences"), "true");
    let official = client
        .describe_rules(describe(rules(
            v1::Preset::Official,
            2,
            &[("target_score", "7500")],
        )))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(official.preset, v1::Preset::Official as i32);
    assert_eq!(official.player_count, 2);
    assert_eq!(official.pack_size, 108);
    assert_eq!(value(&official, "target_score"), "7500");
    assert_eq!(value(&official, "hand_size"), "15");
    assert_eq!(value(&official, "decks"), "2");
    assert_eq!(value(&official, "sequences"), "false");
    assert!(
        official.options.iter().all(|o| o.name != "samba_bonus"),
        "samba_bonus applies to sequences only"
    );
    // Options are described for the rules asked: five players list their seating.
    let five = client
        .describe_rules(describe(rules(
            v1::Preset::Official,
            5,
            &[("five_players", "each_alone")],
        )))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(value(&five, "five_players"), "each_alone");
    // Six players in three pairs play with three decks.
    let six = client
        .describe_rules(describe(rules(v1::Preset::Official, 6, &[])))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(six.pack_size, 162);
    // Describing creates nothing.
    assert!(all_games(&mut client).await.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn describe_rules_refuses_bad_rule_sets() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let cases = [
        (None, "MISSING_FIELD"),
        (
            Some(rules(v1::Preset::Official, 2, &[("nonsense", "1")])),
            "UNKNOWN_OPTION",
        ),
        (Some(rules(v1::Preset::Unspecified, 2, &[])), "INVALID_ENUM"),
        (Some(rules(v1::Preset::Samba, 6, &[])), "BAD_PLAYER_COUNT"),
        (
            Some(rules(v1::Preset::Official, 2, &[("decks", "many")])),
            "BAD_OPTION_VALUE",
        ),
        (
            Some(rules(v1::Preset::Official, 4, &[("samba_bonus", "1000")])),
            "OPTION_CONFLICT",
        ),
    ];
    for (rules, why) in cases {
        let status = refused(
            client
                .describe_rules(v1::DescribeRulesRequest { rules })
                .await,
            Code::InvalidArgument,
            why,
        );
        assert!(!status.message().is_empty());
    }
    let status = client
        .describe_rules(v1::DescribeRulesRequest {
            rules: Some(rules(v1::Preset::Official, 2, &[("nonsense", "1")])),
        })
        .await
        .unwrap_err();
    assert!(status.message().contains("nonsense"), "{status:?}");
    server.stop().await;
}
