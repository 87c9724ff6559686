//! gRPC-Web on the server's port, as a browser speaks it: over HTTP/1.1 with requests framed
//! here byte by byte (a 5-byte header per message, the trailers in a last frame flagged 0x80),
//! in binary and in the base64 text mode, and over HTTP/2 with tonic-web's client layer. Unary
//! calls, refusals with their reason, the limits (message size, request rates), WatchGame as
//! a server stream, and CORS for the allowed origins only. Every answer is compared with what
//! a plain gRPC client gets from the same server.

use std::collections::HashMap;
use std::net::SocketAddr;

use base64::Engine;
use canasta_proto::v1;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use canasta_tests::web::*;
use canasta_tests::*;
use prost::Message;
use tonic::Code;

const TEXT: &str = "application/grpc-web-text";
const ALLOWED: &str = "https://app.example";

/// Asserts the status of a gRPC-Web answer is a refusal with `code` and `why`, as the
/// service's reasons travel (the status, `canasta-reason`, the details).
#[track_caller]
fn assert_web_refused(answer: &Answer, code: Code, why: &str) {
    assert!(answer.messages.is_empty(), "{answer:?}");
    assert_eq!(
        answer.trailers.get("canasta-reason").map(String::as_str),
        Some(why),
        "{answer:?}"
    );
    assert_refused(&answer.status(), code, why);
}

fn create_request(seed: u64) -> v1::CreateGameRequest {
    v1::CreateGameRequest {
        rules: Some(rules(v1::Preset::Official, 2, &[])),
        seed: Some(seed),
        ..Default::default()
    }
}

// ----- gRPC-Web over HTTP/2, with tonic-web's client layer -----

// ----- unary calls -----

// CreateGame and GetGame over HTTP/1.1, one after the other on one kept-alive connection:
// each answer is one message and trailers with grpc-status 0, and says what a gRPC client
// reads of the same game.
#[tokio::test]
async fn unary_calls_over_http1_answer_as_grpc_does() {
    let server = TestServer::start().await;
    let mut native = server.client().await;
    let mut h1 = H1::connect(server.addr).await;
    let created: v1::CreateGameResponse =
        h1.call("CreateGame", &create_request(7), &[]).await.only();
    let game = created.game.expect("a summary");
    assert_eq!(created.creator_token.len(), 32);
    let got: v1::GetGameResponse = h1
        .call(
            "GetGame",
            &v1::GetGameRequest {
                game_id: game.game_id.clone(),
            },
            &[],
        )
        .await
        .only();
    assert_eq!(got.game.as_ref(), Some(&game));
    assert_eq!(summary_of(&mut native, &game.game_id).await, game);
    // The token travels as a header: the creator cancels its game over gRPC-Web.
    let bearer = format!("Bearer {}", created.creator_token);
    let cancelled = h1
        .call(
            "CancelGame",
            &v1::CancelGameRequest {
                game_id: game.game_id.clone(),
            },
            &[("authorization", &bearer)],
        )
        .await;
    assert_eq!(cancelled.status().code(), Code::Ok, "{cancelled:?}");
    let after = summary_of(&mut native, &game.game_id).await;
    assert_eq!(after.status, v1::GameStatus::Finished as i32, "{after:?}");
}

// The generated client over tonic-web's client layer, on HTTP/2: the same calls, and a
// refusal read as a gRPC client reads it.
#[tokio::test]
async fn unary_calls_over_http2_with_a_grpc_web_client() {
    let server = TestServer::start().await;
    let mut web = web_client(server.addr).await;
    let mut native = server.client().await;
    let game = web
        .create_game(create_request(8))
        .await
        .expect("created over gRPC-Web")
        .into_inner()
        .game
        .expect("a summary");
    let got = web
        .get_game(v1::GetGameRequest {
            game_id: game.game_id.clone(),
        })
        .await
        .expect("read over gRPC-Web")
        .into_inner();
    assert_eq!(got.game.as_ref(), Some(&game));
    assert_eq!(summary_of(&mut native, &game.game_id).await, game);
    let status = web
        .get_game(v1::GetGameRequest {
            game_id: "no-such-game".into(),
        })
        .await
        .expect_err("no such game");
    assert_refused(&status, Code::NotFound, "GAME_NOT_FOUND");
}

// ----- refusals and limits -----

// A refusal over gRPC-Web carries what it carries over gRPC: the code, the message, the
// reason (canasta-reason) and the details, compared with a plain client's refusal of the
// same call. A bad token is refused as such: the header is read as gRPC's metadata.
#[tokio::test]
async fn refusals_carry_their_status_and_reason() {
    let server = TestServer::start().await;
    let mut native = server.client().await;
    let mut h1 = H1::connect(server.addr).await;
    let missing = v1::GetGameRequest {
        game_id: "no-such-game".into(),
    };
    let answer = h1.call("GetGame", &missing, &[]).await;
    assert_web_refused(&answer, Code::NotFound, "GAME_NOT_FOUND");
    let plain = native.get_game(missing).await.expect_err("no such game");
    assert_eq!(answer.status().message(), plain.message());
    assert_eq!(answer.status().details(), plain.details());

    let game = create(&mut native, 2, 9).await;
    let submit = v1::SubmitActionRequest {
        game_id: game.game_id.clone(),
        request_id: "r1".into(),
        ..Default::default()
    };
    let bad = "Bearer 0123456789abcdef0123456789abcdef";
    let answer = h1
        .call("SubmitAction", &submit, &[("authorization", bad)])
        .await;
    let plain = native
        .submit_action(authed(submit, "0123456789abcdef0123456789abcdef"))
        .await
        .expect_err("not a seat");
    assert_web_refused(&answer, plain.code(), &reason(&plain));
    assert_eq!(answer.status().message(), plain.message());
}

// The request rate of an address is one budget, whichever protocol its calls use: a burst of
// gRPC-Web calls spends it, and both kinds of client are then refused RATE_LIMITED with a
// retry delay.
#[tokio::test]
async fn grpc_web_calls_spend_the_addresss_request_rate() {
    let config = test_config()
        .address_requests_per_second(1.0)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut h1 = H1::connect(server.addr).await;
    let request = v1::ListGamesRequest::default();
    // A burst of twice the rate, then refusals.
    let mut admitted = 0;
    let refusal = loop {
        let answer = h1.call("ListGames", &request, &[]).await;
        if answer.status().code() != Code::Ok {
            break answer;
        }
        admitted += 1;
        assert!(admitted <= 2, "more than the burst admitted");
    };
    assert_web_refused(&refusal, Code::ResourceExhausted, "RATE_LIMITED");
    assert!(
        refusal.trailers.contains_key("canasta-retry-after-ms"),
        "{refusal:?}"
    );
    let mut native = server.client().await;
    let status = native
        .list_games(request)
        .await
        .expect_err("the same budget");
    assert_refused(&status, Code::ResourceExhausted, "RATE_LIMITED");
}

// A message over --max-message-bytes is refused from its frame header, as over gRPC, with
// MESSAGE_TOO_LARGE; the connection goes on serving.
#[tokio::test]
async fn an_oversized_message_is_refused_as_over_grpc() {
    let config = test_config().max_message_bytes(1024).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut h1 = H1::connect(server.addr).await;
    let mut request = create_request(1);
    request.start_scores = vec![1; 2000];
    let answer = h1.call("CreateGame", &request, &[]).await;
    assert_web_refused(&answer, Code::ResourceExhausted, "MESSAGE_TOO_LARGE");
    let fine: v1::ListGamesResponse = h1
        .call("ListGames", &v1::ListGamesRequest::default(), &[])
        .await
        .only();
    assert!(fine.games.is_empty());
}

// ----- the text mode -----

// The base64 text mode, which some browser clients use: the request's frames encoded, the
// answer's too (each chunk on its own: decoded four characters at a time).
#[tokio::test]
async fn the_text_mode_answers_in_base64() {
    let server = TestServer::start().await;
    let mut h1 = H1::connect(server.addr).await;
    let body = base64::engine::general_purpose::STANDARD.encode(frame(&create_request(3)));
    let headers = [
        ("content-type", TEXT),
        ("accept", TEXT),
        ("x-grpc-web", "1"),
    ];
    let path = format!("{SERVICE}/CreateGame");
    let mut response = h1.request("POST", &path, &headers, body.as_bytes()).await;
    assert_eq!(response.status, 200);
    assert!(
        response
            .header("content-type")
            .is_some_and(|t| t.starts_with(TEXT)),
        "{:?}",
        response.headers
    );
    while response.more().await {}
    let text = std::mem::take(&mut response.body);
    assert!(text.is_ascii() && !text.is_empty());
    let mut decoded = Vec::new();
    for quantum in text.chunks(4) {
        decoded.extend(
            base64::engine::general_purpose::STANDARD
                .decode(quantum)
                .expect("base64"),
        );
    }
    // The decoded frames, read as a binary body.
    response.body = decoded;
    let answer = response.answer().await;
    let created: v1::CreateGameResponse = answer.only();
    let game = created.game.expect("a summary");
    let mut native = server.client().await;
    assert_eq!(summary_of(&mut native, &game.game_id).await, game);
}

// A text-mode body that is not base64 is the caller's mistake, refused as a message that
// cannot be read (INVALID_ARGUMENT MALFORMED_MESSAGE), not as the server's fault; the
// connection goes on serving.
#[tokio::test]
async fn a_text_body_that_is_not_base64_is_malformed() {
    let server = TestServer::start().await;
    let mut h1 = H1::connect(server.addr).await;
    let headers = [("content-type", TEXT), ("x-grpc-web", "1")];
    let path = format!("{SERVICE}/ListGames");
    let mut response = h1
        .request("POST", &path, &headers, b"\0\0\0\0\0not base64!")
        .await;
    assert_eq!(response.status, 200);
    let answer = response.answer().await;
    assert_web_refused(&answer, Code::InvalidArgument, "MALFORMED_MESSAGE");
    assert!(
        answer
            .status()
            .message()
            .contains("application/grpc-web-text"),
        "{:?}",
        answer.status()
    );
    let fine: v1::ListGamesResponse = h1
        .call("ListGames", &v1::ListGamesRequest::default(), &[])
        .await
        .only();
    assert!(fine.games.is_empty());
}

// ----- a server stream -----

/// The events a spectator's stream shows up to `last` (heartbeats skipped).
async fn events_until(
    mut next: impl AsyncFnMut() -> Option<v1::WatchGameResponse>,
    last: u64,
) -> Vec<v1::GameEvent> {
    let mut events = Vec::new();
    while events.last().is_none_or(|e: &v1::GameEvent| e.seq < last) {
        match next().await.expect("the stream goes on").kind {
            Some(Msg::Event(e)) => events.push(e),
            Some(Msg::Heartbeat(_)) => {}
            other => panic!("a spectator got {other:?}"),
        }
    }
    events
}

// WatchGame as a server stream over gRPC-Web, over HTTP/1.1 (framed by hand, the frames
// read as they come in chunks) and over HTTP/2 (the generated client): while two seats play
// 40 actions, both streams show every event, numbered from 1, exactly as a plain gRPC
// spectator's stream does.
#[tokio::test]
async fn watch_game_streams_over_grpc_web() {
    let server = TestServer::start().await;
    let mut native = server.client().await;
    let game = create(&mut native, 2, 11).await;
    let tokens = join_all(&mut native, &game).await;
    let watch = v1::WatchGameRequest {
        game_id: game.game_id.clone(),
        ..Default::default()
    };
    let mut plain = open_watch(&mut native, &game.game_id, None, 0, false)
        .await
        .expect("a spectator's stream");
    let mut web = web_client(server.addr).await;
    let mut h2 = web
        .watch_game(watch.clone())
        .await
        .expect("a gRPC-Web stream over HTTP/2")
        .into_inner();
    let mut h1 = H1::connect(server.addr).await;
    let mut h1_stream = h1
        .request(
            "POST",
            &format!("{SERVICE}/WatchGame"),
            &[("content-type", BINARY), ("x-grpc-web", "1")],
            &frame(&watch),
        )
        .await;
    assert_eq!(h1_stream.status, 200);

    let played = play_to_end(&mut native, &game.game_id, &tokens, 40, |_| 0).await;
    assert_eq!(played, 40);
    let last = view_of(&mut native, &game.game_id, Some(&tokens[0]), false)
        .await
        .view
        .expect("a view")
        .seq;

    let expected = events_until(async || next_message(&mut plain).await, last).await;
    assert_eq!(expected.first().map(|e| e.seq), Some(1));
    assert_eq!(expected.len() as u64, last, "no gap");
    let over_h2 = events_until(async || next_message(&mut h2).await, last).await;
    assert_eq!(over_h2, expected);
    let over_h1 = events_until(
        async || {
            let (flag, bytes) = h1_stream.next_frame().await?;
            assert_eq!(flag, 0, "a message, not the trailers");
            Some(v1::WatchGameResponse::decode(&bytes[..]).expect("a message"))
        },
        last,
    )
    .await;
    assert_eq!(over_h1, expected);
}

// The lobby's server streams over gRPC-Web, as a browser's page would follow them (HTTP/1.1,
// one connection a stream, the player's key in the `authorization` header): a player's Seek
// and WatchPlayer streams, while three players seek over plain gRPC. The seek ends with its
// seat, the trailers say OK, and the player's stream tells of the game started, as plain gRPC
// streams do.
#[tokio::test]
async fn the_lobbys_streams_go_over_grpc_web() {
    use canasta_tests::lobby::*;
    const LOBBY: &str = "/canasta.v1.LobbyService";
    let server = TestServer::start().await;
    let mut native = lobby(server.addr).await;
    let key = register(&mut native, "browser").await;
    let bearer = format!("Bearer {key}");
    let headers = [
        ("content-type", BINARY),
        ("x-grpc-web", "1"),
        ("authorization", bearer.as_str()),
    ];

    let mut watch_conn = H1::connect(server.addr).await;
    let mut watching = watch_conn
        .request(
            "POST",
            &format!("{LOBBY}/WatchPlayer"),
            &headers,
            &frame(&v1::WatchPlayerRequest { after_seq: 0 }),
        )
        .await;
    assert_eq!(watching.status, 200);
    let mut seek_conn = H1::connect(server.addr).await;
    let mut seeking = seek_conn
        .request(
            "POST",
            &format!("{LOBBY}/Seek"),
            &headers,
            &frame(&short_seek(4)),
        )
        .await;
    assert_eq!(seeking.status, 200);
    // The seek is in its queue before the others come: its first message says so.
    let (flag, bytes) = seeking.next_frame().await.expect("a message");
    assert_eq!(flag, 0, "a message, not the trailers");
    let first = v1::SeekResponse::decode(&bytes[..]).expect("a seek message");
    assert!(
        matches!(first.kind, Some(v1::seek_response::Kind::Waiting(_))),
        "{first:?}"
    );

    let mut others = Vec::new();
    for i in 0..3 {
        let key = register(&mut native, &format!("native{i}")).await;
        others.push(seek(&mut native, &key, short_seek(4)).await);
    }
    let seat = loop {
        let (flag, bytes) = seeking
            .next_frame()
            .await
            .expect("the seek goes on to its seat");
        assert_eq!(flag, 0, "a message, not the trailers");
        match v1::SeekResponse::decode(&bytes[..])
            .expect("a seek message")
            .kind
        {
            Some(v1::seek_response::Kind::Seated(s)) => break s,
            Some(v1::seek_response::Kind::Waiting(_)) => {}
            None => panic!("an empty seek message"),
        }
    };
    let answer = seeking.answer().await;
    assert!(answer.messages.is_empty(), "the seat is the last message");
    assert_eq!(answer.status().code(), Code::Ok, "{:?}", answer.status());
    let mut games: Vec<String> = vec![seat.game_id.clone()];
    for s in &mut others {
        games.push(seated(s).await.game_id);
    }
    games.dedup();
    assert_eq!(
        games.len(),
        1,
        "the four seekers sit at one table: {games:?}"
    );
    assert_eq!(seat.token.len(), 32);

    let started = loop {
        let (flag, bytes) = watching
            .next_frame()
            .await
            .expect("the player's stream goes on");
        assert_eq!(flag, 0, "a message, not the trailers");
        let message = v1::WatchPlayerResponse::decode(&bytes[..]).expect("a player message");
        match message.kind {
            Some(v1::watch_player_response::Kind::Event(e)) => break e,
            Some(v1::watch_player_response::Kind::Heartbeat(_)) => {}
            other => panic!("unexpected {other:?}"),
        }
    };
    assert_eq!(started.seq, 1);
    match started.kind {
        Some(v1::player_event::Kind::GameStarted(g)) => {
            assert_eq!(g.game_id, seat.game_id, "{g:?}");
        }
        other => panic!("the first event is the game's start: {other:?}"),
    }
}

// ----- CORS -----

/// A preflight from `origin` for a gRPC-Web call with a token.
async fn preflight(addr: SocketAddr, origin: &str) -> (u16, Vec<(String, String)>) {
    let mut h1 = H1::connect(addr).await;
    let mut response = h1
        .request(
            "OPTIONS",
            &format!("{SERVICE}/GetGame"),
            &[
                ("origin", origin),
                ("access-control-request-method", "POST"),
                (
                    "access-control-request-headers",
                    "authorization,content-type,x-grpc-web,x-user-agent",
                ),
            ],
            b"",
        )
        .await;
    while response.more().await {}
    (response.status, response.headers)
}

/// The `access-control-*` headers among `headers`.
fn cors_headers(headers: &[(String, String)]) -> HashMap<String, String> {
    headers
        .iter()
        .filter(|(n, _)| n.starts_with("access-control-"))
        .cloned()
        .collect()
}

/// The comma-separated names of a header, in lower case.
fn names(value: Option<&String>) -> Vec<String> {
    value
        .map(|v| {
            v.split(',')
                .map(|n| n.trim().to_ascii_lowercase())
                .collect()
        })
        .unwrap_or_default()
}

// An allowed origin's preflight gets the methods and headers a gRPC-Web call needs (the
// token's `authorization` among them), and its calls' answers let the page read the status,
// the reason, the retry delay and the seq. Another origin gets no CORS header at all.
#[tokio::test]
async fn cors_answers_the_allowed_origins_only() {
    let config = test_config()
        .cors_origins([ALLOWED, "http://localhost:5173"])
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;

    let (status, headers) = preflight(server.addr, ALLOWED).await;
    assert!((200..300).contains(&status), "{status} {headers:?}");
    let cors = cors_headers(&headers);
    assert_eq!(
        cors.get("access-control-allow-origin").map(String::as_str),
        Some(ALLOWED),
        "{cors:?}"
    );
    assert!(
        names(cors.get("access-control-allow-methods")).contains(&"post".to_string()),
        "{cors:?}"
    );
    let allowed = names(cors.get("access-control-allow-headers"));
    for header in [
        "authorization",
        "content-type",
        "x-grpc-web",
        "x-user-agent",
    ] {
        assert!(allowed.iter().any(|h| h == header), "{header}: {cors:?}");
    }
    assert!(cors.contains_key("access-control-max-age"), "{cors:?}");
    assert!(
        !cors.contains_key("access-control-allow-credentials"),
        "tokens travel in a header, never cookies: {cors:?}"
    );

    // The call itself, from the page of the allowed origin.
    let mut h1 = H1::connect(server.addr).await;
    let path = format!("{SERVICE}/GetGame");
    let request = frame(&v1::GetGameRequest {
        game_id: "no-such-game".into(),
    });
    let call_headers = [
        ("content-type", BINARY),
        ("x-grpc-web", "1"),
        ("origin", ALLOWED),
    ];
    let mut response = h1.request("POST", &path, &call_headers, &request).await;
    let cors = cors_headers(&response.headers);
    assert_eq!(
        cors.get("access-control-allow-origin").map(String::as_str),
        Some(ALLOWED),
        "{cors:?}"
    );
    let exposed = names(cors.get("access-control-expose-headers"));
    for header in [
        "grpc-status",
        "grpc-message",
        "canasta-reason",
        "canasta-retry-after-ms",
        "canasta-seq",
    ] {
        assert!(exposed.iter().any(|h| h == header), "{header}: {cors:?}");
    }
    let answer = response.answer().await;
    assert_web_refused(&answer, Code::NotFound, "GAME_NOT_FOUND");

    // Another origin: neither its preflight nor its call gets a CORS header.
    for origin in ["https://evil.example", "http://app.example", "null"] {
        let (_, headers) = preflight(server.addr, origin).await;
        assert_eq!(cors_headers(&headers), HashMap::new(), "{origin}");
        let call_headers = [
            ("content-type", BINARY),
            ("x-grpc-web", "1"),
            ("origin", origin),
        ];
        let mut response = h1.request("POST", &path, &call_headers, &request).await;
        assert_eq!(cors_headers(&response.headers), HashMap::new(), "{origin}");
        // A program that is not a browser is served all the same: CORS guards pages only.
        assert_web_refused(&response.answer().await, Code::NotFound, "GAME_NOT_FOUND");
    }
}

// By default no origin is allowed: a preflight gets no CORS header, whatever its origin.
#[tokio::test]
async fn no_origin_is_allowed_by_default() {
    let server = TestServer::start().await;
    for origin in [ALLOWED, "http://localhost:5173"] {
        let (_, headers) = preflight(server.addr, origin).await;
        assert_eq!(cors_headers(&headers), HashMap::new(), "{origin}");
    }
}
