//! Graceful shutdown end to end: a real server on SQLite whose shutdown future the test
//! completes, with games in play, WatchGame streams and Play calls open, and players acting.
//!
//! The behaviour promised: `canasta_server::serve` "then refuses new requests
//! (`SHUTTING_DOWN`), ends every watch stream, finishes the requests in flight and closes
//! storage. Every acknowledged action is already stored"; docs/protocol.md, Operations ("new
//! requests are refused (`SHUTTING_DOWN`), watch streams end, requests in flight finish, and
//! every acknowledged action is already stored") and its error table (UNAVAILABLE
//! `SHUTTING_DOWN`: "the server is stopping and took no new request; nothing changed");
//! docs/bots.md's error table (UNAVAILABLE `SHUTTING_DOWN`: "not applied: retry after a pause
//! with the same request id; reconnect and resume the stream").
//!
//! Over the network a new request meets the shutdown in one of two ways. A request the server
//! had received (its HTTP/2 stream open) but not yet started is answered UNAVAILABLE with the
//! reason `SHUTTING_DOWN`. A request sent after that (the server has said GOAWAY and closed its
//! listener) fails in the client's transport, without a reason: UNAVAILABLE, or as tonic
//! reports a call the GOAWAY refused, INTERNAL or CANCELLED (see
//! [`assert_refused_at_shutdown`]). Neither changes anything.

mod clock;

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use canasta_engine::Viewer;
use canasta_engine::rng::Xoshiro256;
use canasta_proto::convert::action_to_wire;
use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use canasta_proto::v1::game_event::Kind as Ev;
use canasta_proto::v1::play_response::Kind as Play;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use canasta_tests::play::*;
use canasta_tests::replica::*;
use canasta_tests::*;
use clock::*;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::timeout;
use tokio_stream::Stream;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::Channel;
use tonic::{Code, Request, Status, Streaming};

/// The longest any one step may take on the test's (real) clock: a hang fails the test instead
/// of holding it, and nothing is measured against it.
const WITHIN: Duration = Duration::from_secs(10);

/// `serve` stops waiting for the connections still open this long after the shutdown began
/// (`SHUTDOWN_GRACE`), on the server's clock. The servers here run on a paused clock that only
/// the grace test moves: a shutdown that ends while the clock stands still had every
/// connection close by itself, whatever the time it took.
const GRACE: Duration = Duration::from_secs(5);

/// A server storing in SQLite at `db`, with a token rate no test here reaches, on a paused
/// clock (see [`GRACE`]).
async fn start(db: &std::path::Path) -> TestServer {
    let config = db_config(db)
        .to_builder()
        .requests_per_second(1_000_000.0)
        .build()
        .unwrap();
    paused(config).await
}

/// A refusal by the stopping server itself: UNAVAILABLE `SHUTTING_DOWN`, saying to retry.
fn assert_shutting_down(status: &Status) {
    assert_eq!(status.code(), Code::Unavailable, "{status:?}");
    assert_eq!(reason(status), "SHUTTING_DOWN", "{status:?}");
    assert!(status.message().contains("retry"), "{}", status.message());
}

/// A request that met the shutdown: refused by the server, UNAVAILABLE `SHUTTING_DOWN`, or by
/// the transport before any service saw it. The transport's refusal is made by the client
/// itself (it has the transport's error as its source, and no ErrorInfo, which docs/bots.md
/// says to treat as UNAVAILABLE): UNAVAILABLE once the listener is closed, but for a call the
/// server's GOAWAY refused, tonic says INTERNAL ("h2 protocol error: ... GoAway(NO_ERROR)"),
/// or CANCELLED ("connection closed") for one still queued when the connection closed.
fn assert_refused_at_shutdown(status: &Status) {
    if reason(status).is_empty() {
        assert!(
            std::error::Error::source(status).is_some(),
            "not the transport's refusal: {status:?}"
        );
        assert!(
            matches!(
                status.code(),
                Code::Unavailable | Code::Internal | Code::Cancelled
            ),
            "{status:?}"
        );
    } else {
        assert_shutting_down(status);
    }
}

// ----- a request the server has received but not started -----

/// A unary request whose message is held back: the call's HTTP/2 stream opens at once (the
/// server has received the request), but the service starts on it only when the message is
/// released and the request ends.
struct Held<R> {
    release: oneshot::Sender<()>,
    answer: JoinHandle<Result<R, Status>>,
}

/// The body of a held request: it says when the transport first asks for it (the request's
/// headers are sent), and gives its one message once released.
struct HeldBody<M> {
    asked: Option<oneshot::Sender<()>>,
    released: oneshot::Receiver<()>,
    message: Option<M>,
}

impl<M: Unpin> Stream for HeldBody<M> {
    type Item = M;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<M>> {
        let this = &mut *self;
        if let Some(asked) = this.asked.take() {
            let _ = asked.send(());
        }
        if this.message.is_none() {
            return Poll::Ready(None);
        }
        match Pin::new(&mut this.released).poll(cx) {
            Poll::Ready(_) => Poll::Ready(this.message.take()),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Sends `request` to `method` of the service on `channel`, holding its message back.
async fn held<Q, R>(channel: &Channel, method: &'static str, request: Request<Q>) -> Held<R>
where
    Q: prost::Message + Unpin + Send + Sync + 'static,
    R: prost::Message + Default + Send + Sync + 'static,
{
    let (asked, was_asked) = oneshot::channel();
    let (release, released) = oneshot::channel();
    let (metadata, extensions, message) = request.into_parts();
    let body = HeldBody {
        asked: Some(asked),
        released,
        message: Some(message),
    };
    let request = Request::from_parts(metadata, extensions, body);
    let path = PathAndQuery::from_static(method);
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    let answer = tokio::spawn(async move {
        grpc.ready()
            .await
            .map_err(|e| Status::unavailable(e.to_string()))?;
        grpc.client_streaming(request, path, tonic_prost::ProstCodec::<Q, R>::default())
            .await
            .map(tonic::Response::into_inner)
    });
    timeout(WITHIN, was_asked)
        .await
        .expect("the request is sent within 10 s")
        .expect("the body is asked for");
    Held { release, answer }
}

impl<R> Held<R> {
    /// Releases the message and waits for the answer.
    async fn answer(self) -> Result<R, Status> {
        let _ = self.release.send(());
        timeout(WITHIN, self.answer)
            .await
            .expect("an answer within 10 s")
            .expect("the caller's task")
    }
}

// ----- a client that keeps its connection open -----

// A client that never finishes its request holds its connection open past the shutdown's
// grace: `serve` stops waiting for it then (on the server's clock: not a moment before), and
// the connection ends with `serve`, though the runtime (an embedder's; here the server's own,
// kept running) runs on. The request is answered with an error at once instead of hanging on a
// connection no server serves any more.
#[tokio::test]
async fn a_connection_still_open_after_the_grace_is_closed_when_serve_returns() {
    let mut server = paused(test_config().build().unwrap()).await;
    let runtime = server.keep_runtime();
    let channel = channel(server.addr).await;
    let Held { release, answer } = held::<_, v1::CreateGameResponse>(
        &channel,
        "/canasta.v1.CanastaService/CreateGame",
        Request::new(seeded(41)),
    )
    .await;
    // A request sent after the held one on its connection is answered: the server has it.
    CanastaServiceClient::new(channel.clone())
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("the games");
    server.begin_shutdown();
    // Until the grace is over, the held request keeps its connection, and `serve`, waiting.
    server.advance(GRACE - Duration::from_millis(1)).await;
    assert!(
        !server.has_stopped(),
        "serve returned before its grace was over, with a connection open"
    );
    assert!(
        !answer.is_finished(),
        "the held call ended before the grace"
    );
    server.advance(Duration::from_millis(1)).await;
    server.stopped_within(WITHIN).await;
    // The message is still held back (`release` lives): only the cut connection ends the call.
    let answered = timeout(WITHIN, answer)
        .await
        .expect("the call ends when serve returns")
        .expect("the caller's task");
    let status = answered.expect_err("a request whose connection was cut has no answer");
    assert_eq!(reason(&status), "", "not the service's refusal: {status:?}");
    drop((release, runtime));
}

// ----- reading streams to their end -----

/// Reads a Play call to its end, within 10 s: its messages, and the error that ended it.
async fn play_to_end(mut call: PlayCall) -> (Vec<Play>, Option<Status>) {
    let mut messages = Vec::new();
    loop {
        match timeout(WITHIN, call.responses.message())
            .await
            .expect("the call ends within 10 s")
        {
            Ok(Some(m)) => messages.push(m.kind.expect("a message kind")),
            Ok(None) => return (messages, None),
            Err(status) => return (messages, Some(status)),
        }
    }
}

/// Opens a Play call for each seat's token and plays `moves` over them, each acknowledged
/// (request ids `{prefix}0`, `{prefix}1`, ...), the replica following; returns the calls, open.
async fn play_over_calls(
    client: &mut Client,
    game: &str,
    tokens: &[String],
    replica: &mut Replica,
    moves: &[(u8, canasta_engine::Action)],
    prefix: &str,
) -> Vec<PlayCall> {
    let mut calls = Vec::new();
    for token in tokens {
        calls.push(
            PlayCall::open(client, Some(token), watch(game))
                .await
                .expect("a Play call"),
        );
    }
    for (i, (s, action)) in moves.iter().enumerate() {
        let call = &mut calls[*s as usize];
        call.send(submit(game, replica.seq(), &format!("{prefix}{i}"), action))
            .await;
        let result = call.result().await;
        replica.apply(*s, action);
        assert_eq!((result.seq, result.error), (Some(replica.seq()), None));
    }
    calls
}

async fn watch_game(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
) -> Streaming<v1::WatchGameResponse> {
    open_watch(client, game_id, token, 0, false)
        .await
        .expect("a watch stream")
}

/// What clients see of a game: its summary, and each seat's view with its choices, and a
/// spectator's.
async fn state_of(
    client: &mut Client,
    game_id: &str,
    tokens: &[String],
) -> (v1::GameSummary, Vec<v1::GetViewResponse>) {
    let summary = summary_of(client, game_id).await;
    let mut views = Vec::new();
    for token in tokens.iter().map(|t| Some(t.as_str())).chain([None]) {
        views.push(view_of(client, game_id, token, true).await);
    }
    (summary, views)
}

/// Asserts that the server holds exactly `replica`'s log of `game_id`, as each seat and a
/// spectator see it.
async fn assert_log(client: &mut Client, game_id: &str, tokens: &[String], replica: &Replica) {
    assert_eq!(game_seq(client, game_id).await, replica.seq(), "{game_id}");
    for (s, token) in tokens.iter().enumerate() {
        assert_eq!(
            log_of(client, game_id, Some(token)).await,
            replica.events(seat(s as u8)),
            "{game_id}, seat {s}"
        );
    }
    assert_eq!(
        log_of(client, game_id, None).await,
        replica.events(Viewer::Spectator),
        "{game_id}, spectator"
    );
}

// With games in play, two WatchGame streams (a spectator's and a seat's) and two Play calls
// open, and four requests received but not yet started, the shutdown begins. Every stream and
// call ends cleanly (no error status, no Lagged, no event after those acknowledged) within the
// time limit; while the server finishes the four, a new request on the client's connection is
// refused by the transport and a new connection is not taken; the four received requests
// (CreateGame, JoinGame, SubmitAction, GetView) are each refused UNAVAILABLE SHUTTING_DOWN, with
// the ErrorInfo reason; `serve` returns with the server's clock standing still (it did not wait
// for its grace: no connection had to be cut).
// After a restart on the same database none of the refused requests changed anything, and the
// refused action retried with its request id is applied, once.
#[tokio::test]
async fn shutdown_ends_streams_and_calls_refuses_new_requests_and_returns() {
    let dir = temp_dir("shutdown-streams");
    let db = dir.path().join("canasta.db");
    let mut server = start(&db).await;
    let mut client = server.client().await;

    // Game A, played over SubmitAction, watched by a spectator and by seat 0.
    let (a, a_tokens, mut a_replica) = started(&mut client, seeded(31)).await;
    plain_moves(&mut client, &a, &a_tokens, &mut a_replica, 4).await;
    let mut streams = vec![
        watch_game(&mut client, &a, None).await,
        watch_game(&mut client, &a, Some(&a_tokens[0])).await,
    ];
    for stream in &mut streams {
        read_until(stream, a_replica.seq()).await;
    }
    // Game B, played over its two seats' Play calls, halfway.
    let (request, script) = short_game();
    let (b, b_tokens, mut b_replica) = started(&mut client, request).await;
    let mut calls = play_over_calls(
        &mut client,
        &b,
        &b_tokens,
        &mut b_replica,
        &script[..3],
        "b",
    )
    .await;
    for call in &mut calls {
        call.events_until(b_replica.seq()).await;
    }
    // Game C waits for its second player.
    let c = create_with(&mut client, seeded(32)).await;
    client
        .join_game(v1::JoinGameRequest {
            game_id: c.game_id.clone(),
            seat: Some(0),
            display_name: "first".into(),
        })
        .await
        .expect("seat 0");

    // Four requests the server receives now and starts on only once their messages come.
    let channel = channel(server.addr).await;
    let held_create: Held<v1::CreateGameResponse> = held(
        &channel,
        "/canasta.v1.CanastaService/CreateGame",
        Request::new(seeded(33)),
    )
    .await;
    let held_join: Held<v1::JoinGameResponse> = held(
        &channel,
        "/canasta.v1.CanastaService/JoinGame",
        Request::new(v1::JoinGameRequest {
            game_id: c.game_id.clone(),
            seat: Some(1),
            display_name: "second".into(),
        }),
    )
    .await;
    let (mover, action) = a_replica.plain_move();
    let a_seq = a_replica.seq();
    let a_submit = |request_id: &str| {
        authed(
            v1::SubmitActionRequest {
                game_id: a.clone(),
                expected_seq: a_seq,
                request_id: request_id.to_string(),
                action: Some(action_to_wire(&action)),
            },
            &a_tokens[mover as usize],
        )
    };
    let held_submit: Held<v1::SubmitActionResponse> = held(
        &channel,
        "/canasta.v1.CanastaService/SubmitAction",
        a_submit("held"),
    )
    .await;
    let held_view: Held<v1::GetViewResponse> = held(
        &channel,
        "/canasta.v1.CanastaService/GetView",
        authed(
            v1::GetViewRequest {
                game_id: a.clone(),
                include_actions: true,
            },
            &a_tokens[mover as usize],
        ),
    )
    .await;
    // A request sent after the four on their connection is answered: the server has them.
    CanastaServiceClient::new(channel.clone())
        .get_game(v1::GetGameRequest { game_id: a.clone() })
        .await
        .expect("the game");

    server.begin_shutdown();

    // Every stream and call ends, cleanly (no error, no Lagged), with no event after those
    // read before (at most a prompt for the last, and heartbeats).
    let quiet = |m: &Msg| matches!(m, Msg::Heartbeat(_) | Msg::Prompt(_));
    for stream in streams {
        let (messages, error) = drain(stream).await;
        assert!(error.is_none(), "the stream ended with {error:?}");
        assert!(messages.iter().all(quiet), "{messages:?}");
    }
    for call in calls {
        let (messages, error) = play_to_end(call).await;
        assert!(error.is_none(), "the call ended with {error:?}");
        assert!(
            messages.iter().all(|m| matches!(
                m,
                Play::Update(v1::WatchGameResponse { kind: Some(m) }) if quiet(m)
            )),
            "{messages:?}"
        );
    }
    // The server is still up (it finishes the four requests in flight), but a new request
    // reaches no service: on the client's connection (told GOAWAY) or on a new one.
    let refused = client
        .get_game(v1::GetGameRequest { game_id: a.clone() })
        .await
        .expect_err("no new request");
    assert_refused_at_shutdown(&refused);
    let refused = client
        .create_game(seeded(34))
        .await
        .expect_err("no new game");
    assert_refused_at_shutdown(&refused);
    let refused = client
        .submit_action(a_submit("late"))
        .await
        .expect_err("no new action");
    assert_refused_at_shutdown(&refused);
    let refused = Channel::from_shared(format!("http://{}", server.addr))
        .expect("a uri")
        .connect()
        .await;
    assert!(refused.is_err(), "a new connection is taken");
    // The four received requests reach the service now: each is refused SHUTTING_DOWN.
    assert_shutting_down(&held_create.answer().await.expect_err("no new game"));
    assert_shutting_down(&held_join.answer().await.expect_err("no new player"));
    assert_shutting_down(&held_submit.answer().await.expect_err("no new action"));
    assert_shutting_down(&held_view.answer().await.expect_err("no new view"));
    // The server's clock never moved: `serve` returning means it did not wait for its grace.
    server.stopped_within(WITHIN).await;

    // Nothing the refused requests asked for happened.
    let server = start(&db).await;
    let mut client = server.client().await;
    let mut listed: Vec<String> = client
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("the games")
        .into_inner()
        .games
        .into_iter()
        .map(|g| g.game_id)
        .collect();
    listed.sort();
    let mut ids = vec![a.clone(), b.clone(), c.game_id.clone()];
    ids.sort();
    assert_eq!(listed, ids, "no game was created");
    assert_log(&mut client, &a, &a_tokens, &a_replica).await;
    assert_log(&mut client, &b, &b_tokens, &b_replica).await;
    let joined = client
        .join_game(v1::JoinGameRequest {
            game_id: c.game_id.clone(),
            seat: None,
            display_name: "second".into(),
        })
        .await
        .expect("a free seat")
        .into_inner();
    assert_eq!(joined.seat, 1, "seat 1 was still free");
    // The action refused at the shutdown, retried with its request id, is applied now, once.
    let first = a_replica.seq();
    let applied = client
        .submit_action(a_submit("held"))
        .await
        .expect("the retry is applied")
        .into_inner();
    a_replica.apply(mover, &action);
    assert_eq!(applied.seq, a_replica.seq());
    assert_eq!(applied.events, a_replica.events_after(seat(mover), first));
    server.stop().await;
}

// Three games are in play when the shutdown begins: a short match played over SubmitAction,
// the same match played over Play calls (open at the shutdown), and a longer game. After a
// restart on the same database each game is exactly as its clients saw it acknowledged: the
// same summary, each seat's view and choices and a spectator's, each viewer's log event by
// event as the engine replays the acknowledged actions; an acknowledged action retried with
// its request id is answered as the first time (and not applied again); and the games play
// on, the short matches to their end.
#[tokio::test]
async fn every_acknowledged_action_is_stored_and_the_games_play_on_after_a_restart() {
    let dir = temp_dir("shutdown-stored");
    let db = dir.path().join("canasta.db");
    let mut server = start(&db).await;
    let mut client = server.client().await;
    let (request, script) = short_game();

    let (u, u_tokens, mut u_replica) = started(&mut client, request.clone()).await;
    let mut last_acked = None;
    for (s, action) in &script[..3] {
        let before = u_replica.seq();
        let answer = act(&mut client, &u, &u_tokens, &mut u_replica, *s, action).await;
        last_acked = Some((*s, action.clone(), before, answer));
    }

    let (p, p_tokens, mut p_replica) = started(&mut client, request).await;
    let mut calls = play_over_calls(
        &mut client,
        &p,
        &p_tokens,
        &mut p_replica,
        &script[..4],
        "p",
    )
    .await;
    for (s, call) in calls.iter_mut().enumerate() {
        let carried = call.events_until(p_replica.seq()).await.to_vec();
        assert_eq!(carried, p_replica.events(seat(s as u8)));
    }

    let (l, l_tokens, mut l_replica) = started(&mut client, seeded(41)).await;
    plain_moves(&mut client, &l, &l_tokens, &mut l_replica, 9).await;

    let games = [
        (&u, &u_tokens, &u_replica),
        (&p, &p_tokens, &p_replica),
        (&l, &l_tokens, &l_replica),
    ];
    let mut seen = Vec::new();
    for (id, tokens, _) in games {
        seen.push(state_of(&mut client, id, tokens).await);
    }

    server.begin_shutdown();
    for call in calls {
        let (_, error) = play_to_end(call).await;
        assert!(error.is_none(), "the call ended with {error:?}");
    }
    // Without the grace (the server's clock never moved).
    server.stopped_within(WITHIN).await;

    let server = start(&db).await;
    let mut client = server.client().await;
    for ((id, tokens, replica), seen) in games.into_iter().zip(&seen) {
        assert_eq!(&state_of(&mut client, id, tokens).await, seen, "{id}");
        assert_log(&mut client, id, tokens, replica).await;
    }

    // The last acknowledged action, sent again with its request id: the same answer, nothing
    // applied.
    let (s, action, before, answer) = last_acked.expect("an action");
    let again = client
        .submit_action(authed(
            v1::SubmitActionRequest {
                game_id: u.clone(),
                expected_seq: before,
                request_id: format!("a{before}"),
                action: Some(action_to_wire(&action)),
            },
            &u_tokens[s as usize],
        ))
        .await
        .expect("a retry is answered")
        .into_inner();
    assert_eq!(again, answer);
    assert_eq!(game_seq(&mut client, &u).await, u_replica.seq());

    // The games play on: the short matches to their end, over SubmitAction and over new Play
    // calls.
    for (s, action) in &script[3..] {
        act(&mut client, &u, &u_tokens, &mut u_replica, *s, action).await;
    }
    let mut calls = Vec::new();
    for token in &p_tokens {
        calls.push(
            PlayCall::open(&mut client, Some(token), watch(&p))
                .await
                .expect("a Play call"),
        );
    }
    for (i, (s, action)) in script.iter().enumerate().skip(4) {
        let call = &mut calls[*s as usize];
        call.send(submit(&p, p_replica.seq(), &format!("p{i}"), action))
            .await;
        let result = call.result().await;
        p_replica.apply(*s, action);
        assert_eq!((result.seq, result.error), (Some(p_replica.seq()), None));
    }
    for (s, call) in calls.iter_mut().enumerate() {
        let carried = call.events_until(p_replica.seq()).await.to_vec();
        assert_eq!(carried, p_replica.events(seat(s as u8)));
    }
    for (id, tokens, replica) in [(&u, &u_tokens, &u_replica), (&p, &p_tokens, &p_replica)] {
        let log = log_of(&mut client, id, None).await;
        assert!(
            matches!(
                log.last().and_then(|e| e.kind.as_ref()),
                Some(Ev::MatchEnded(_))
            ),
            "{id}: {:?}",
            log.last()
        );
        let (summary, _) = state_of(&mut client, id, tokens).await;
        assert_eq!(summary.status, v1::GameStatus::Finished as i32, "{id}");
        assert_log(&mut client, id, tokens, replica).await;
    }
    plain_moves(&mut client, &l, &l_tokens, &mut l_replica, 4).await;
    assert_log(&mut client, &l, &l_tokens, &l_replica).await;
    server.stop().await;
}

// ----- actions racing the shutdown -----

/// How an action racing the shutdown came out, for the player that sent it.
#[derive(Debug)]
enum Raced {
    /// A SubmitAction call failed with this status.
    Refused(Status),
    /// A Play call answered the action with this refusal.
    PlayRefused(v1::PlayError),
    /// The Play call ended before answering the action.
    Unanswered,
    /// The Play call ended with an error before answering the action.
    PlayFailed(Status),
}

/// The action a player was sending when the shutdown stopped it.
struct Pending {
    seat: u8,
    request: v1::SubmitActionRequest,
    outcome: Raced,
}

/// One game and its players, across the rounds.
struct Racer {
    id: String,
    tokens: Vec<String>,
    replica: Replica,
    /// Whether its players act over Play calls (else over SubmitAction).
    over_play: bool,
}

/// The actions acknowledged to a player, and to every player of the round.
#[derive(Clone)]
struct Acks {
    own: Counter,
    all: Counter,
}

impl Acks {
    fn add_one(&self) {
        self.own.add_one();
        self.all.add_one();
    }
}

/// The next plain move of `replica`'s game, as a request.
fn next_request(replica: &Replica) -> (u8, canasta_engine::Action, v1::SubmitActionRequest) {
    let (s, action) = replica.plain_move();
    let request = v1::SubmitActionRequest {
        game_id: String::new(),
        expected_seq: replica.seq(),
        request_id: format!("s{}", replica.seq()),
        action: Some(action_to_wire(&action)),
    };
    (s, action, request)
}

/// Acts as fast as it can over SubmitAction until a call fails; `acked` counts the actions
/// acknowledged.
async fn race_unary(mut client: Client, mut racer: Racer, acked: Acks) -> (Racer, Pending) {
    loop {
        let (s, action, mut request) = next_request(&racer.replica);
        request.game_id = racer.id.clone();
        let answer = timeout(
            WITHIN,
            client.submit_action(authed(request.clone(), &racer.tokens[s as usize])),
        )
        .await
        .expect("an answer within 10 s");
        match answer {
            Ok(answer) => {
                let answer = answer.into_inner();
                let first = racer.replica.seq();
                racer.replica.apply(s, &action);
                assert_eq!(answer.seq, racer.replica.seq());
                assert_eq!(answer.events, racer.replica.events_after(seat(s), first));
                acked.add_one();
            }
            Err(status) => {
                let outcome = Raced::Refused(status);
                return (
                    racer,
                    Pending {
                        seat: s,
                        request,
                        outcome,
                    },
                );
            }
        }
    }
}

/// What a seat's Play call brings back to the player.
enum FromCall {
    Result(v1::PlayResult),
    Ended(Option<Status>),
}

/// Reads a Play call to its end, passing the action results on; it checks that the call
/// never lags and that its events are the game's, in order.
async fn read_call(call: PlayCall, results: mpsc::UnboundedSender<FromCall>) -> Vec<v1::GameEvent> {
    let mut responses = call.responses;
    let mut events: Vec<v1::GameEvent> = Vec::new();
    loop {
        let message = timeout(WITHIN, responses.message())
            .await
            .expect("a message or the end within 10 s");
        let kind = match message {
            Ok(Some(m)) => m.kind.expect("a message kind"),
            Ok(None) => {
                let _ = results.send(FromCall::Ended(None));
                return events;
            }
            Err(status) => {
                let _ = results.send(FromCall::Ended(Some(status)));
                return events;
            }
        };
        match kind {
            Play::Result(r) => {
                let _ = results.send(FromCall::Result(r));
            }
            Play::Update(v1::WatchGameResponse {
                kind: Some(Msg::Event(e)),
            }) => {
                assert_eq!(e.seq, events.last().map_or(0, |e| e.seq) + 1);
                events.push(e);
            }
            Play::Update(v1::WatchGameResponse {
                kind: Some(Msg::Lagged(l)),
            }) => panic!("lagged at {}", l.last_seq),
            Play::Update(_) => {}
        }
    }
}

/// Acts as fast as it can over its seats' Play calls until an action is not acknowledged;
/// `acked` counts the actions acknowledged. Returns the events each call carried too.
async fn race_play(
    mut client: Client,
    mut racer: Racer,
    acked: Acks,
) -> (Racer, Pending, Vec<Vec<v1::GameEvent>>) {
    let mut senders = Vec::new();
    let mut results = Vec::new();
    let mut readers = Vec::new();
    for token in &racer.tokens {
        let call = PlayCall::open(&mut client, Some(token), watch(&racer.id))
            .await
            .expect("a Play call");
        senders.push(call.requests.clone());
        let (tx, rx) = mpsc::unbounded_channel();
        results.push(rx);
        readers.push(tokio::spawn(read_call(call, tx)));
    }
    let pending = loop {
        let (s, action, request) = next_request(&racer.replica);
        let message = v1::PlayRequest {
            kind: Some(v1::play_request::Kind::Submit(request.clone())),
        };
        // The call may have ended already: its reader says so.
        let _ = senders[s as usize].send(message).await;
        let answer = timeout(WITHIN, results[s as usize].recv())
            .await
            .expect("an answer or the end within 10 s")
            .expect("the reader says how the call ended");
        let outcome = match answer {
            FromCall::Result(r) if r.error.is_none() => {
                assert_eq!(r.request_id, request.request_id);
                racer.replica.apply(s, &action);
                assert_eq!(r.seq, Some(racer.replica.seq()));
                acked.add_one();
                continue;
            }
            FromCall::Result(r) => {
                assert_eq!(r.request_id, request.request_id);
                Raced::PlayRefused(*r.error.expect("an error"))
            }
            FromCall::Ended(None) => Raced::Unanswered,
            FromCall::Ended(Some(status)) => Raced::PlayFailed(status),
        };
        break Pending {
            seat: s,
            request,
            outcome,
        };
    };
    // Both calls end with the shutdown.
    drop(senders);
    let mut carried = Vec::new();
    for (reader, mut rx) in readers.into_iter().zip(results) {
        carried.push(
            timeout(WITHIN, reader)
                .await
                .expect("the call ends within 10 s")
                .expect("the reader's task"),
        );
        while let Ok(from) = rx.try_recv() {
            match from {
                FromCall::Ended(error) => assert!(error.is_none(), "the call ended with {error:?}"),
                FromCall::Result(r) => panic!("an answer to no request: {r:?}"),
            }
        }
    }
    (racer, pending, carried)
}

// Six games, each with a player acting as fast as it can (three over SubmitAction, three over
// Play calls) and a spectator watching, when the shutdown begins; then the server restarts on
// the same database, three rounds. The action each player was sending when the shutdown came
// is either acknowledged (and then stored: the restored game has it), or refused (SHUTTING_DOWN,
// or by the transport), or left unanswered by a Play call that ended, and then not applied:
// each restored game is exactly its acknowledged actions, event by event, and the action
// retried with its request id on the restarted server is applied then, once. The streams and
// calls end cleanly, and what they carried is the stored log's beginning (never an event of an
// action not acknowledged). The moment of each shutdown is drawn from a seed
// (CANASTA_SHUTDOWN_SEED repeats a run), counted in actions acknowledged; the server's clock
// never moves, so the shutdowns end without the grace.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_racing_the_shutdown_is_stored_if_acknowledged_and_else_not_applied() {
    const GAMES: usize = 6;
    const ROUNDS: usize = 3;
    let seed = std::env::var("CANASTA_SHUTDOWN_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("CANASTA_SHUTDOWN_SEED={seed}");
    let mut rng = Xoshiro256::seed_from_u64(seed);
    let dir = temp_dir("shutdown-race");
    let db = dir.path().join("canasta.db");
    let mut racers: Vec<Racer> = Vec::new();
    let mut pending: Vec<Option<Pending>> = (0..GAMES).map(|_| None).collect();
    let mut outcomes: Vec<String> = Vec::new();
    for round in 0..=ROUNDS {
        let mut server = start(&db).await;
        let mut client = server.client().await;
        if round == 0 {
            for g in 0..GAMES {
                let (id, tokens, replica) = started(&mut client, seeded(60 + g as u64)).await;
                racers.push(Racer {
                    id,
                    tokens,
                    replica,
                    over_play: g % 2 == 1,
                });
            }
        }
        // The restored games are their acknowledged actions, and the action each player was
        // sending at the shutdown, not applied, is applied now when retried.
        for (racer, slot) in racers.iter_mut().zip(&mut pending) {
            assert_eq!(
                log_of(&mut client, &racer.id, None).await,
                racer.replica.events(Viewer::Spectator),
                "round {round}: {}",
                racer.id
            );
            if let Some(p) = slot.take() {
                let first = racer.replica.seq();
                let request = v1::SubmitActionRequest {
                    game_id: racer.id.clone(),
                    ..p.request
                };
                let answer = client
                    .submit_action(authed(request.clone(), &racer.tokens[p.seat as usize]))
                    .await
                    .unwrap_or_else(|e| panic!("the retry of {request:?} is applied: {e:?}"))
                    .into_inner();
                // The same action as at the shutdown: the game is where it was then.
                let (s, action) = racer.replica.plain_move();
                assert_eq!((s, Some(action_to_wire(&action))), (p.seat, request.action));
                racer.replica.apply(s, &action);
                assert_eq!(answer.seq, racer.replica.seq());
                assert_eq!(answer.events, racer.replica.events_after(seat(s), first));
            }
        }
        if round == ROUNDS {
            for racer in &racers {
                assert_log(&mut client, &racer.id, &racer.tokens, &racer.replica).await;
            }
            server.stop().await;
            break;
        }

        let mut spectators = Vec::new();
        let mut players = Vec::new();
        let mut counts = Vec::new();
        let all_acked = Counter::new();
        for racer in std::mem::take(&mut racers) {
            let stream = watch_game(&mut client, &racer.id, None).await;
            spectators.push(tokio::spawn(drain(stream)));
            let acked = Acks {
                own: Counter::new(),
                all: all_acked.clone(),
            };
            counts.push(acked.clone());
            let client = server.client().await;
            players.push(tokio::spawn(async move {
                if racer.over_play {
                    race_play(client, racer, acked).await
                } else {
                    let (racer, pending) = race_unary(client, racer, acked).await;
                    (racer, pending, Vec::new())
                }
            }));
        }
        // Every player is under way (a few actions acknowledged), then the shutdown comes
        // at a moment that varies with the seed: once the players have had between none and a
        // dozen more actions acknowledged, all together.
        for acked in &counts {
            timeout(WITHIN, acked.own.reached(3))
                .await
                .expect("every player acts");
        }
        let moment = all_acked.get() + rng.below(13) as usize;
        timeout(WITHIN, all_acked.reached(moment))
            .await
            .expect("the players act on");
        server.begin_shutdown();

        for ((player, spectator), slot) in players.into_iter().zip(spectators).zip(&mut pending) {
            let (racer, p, carried) = timeout(WITHIN, player)
                .await
                .expect("the player stops within 10 s")
                .expect("the player's task");
            match &p.outcome {
                Raced::Refused(status) => assert_refused_at_shutdown(status),
                Raced::PlayRefused(e) => {
                    assert_eq!(
                        (e.code, e.reason.as_str()),
                        (Code::Unavailable as i32, "SHUTTING_DOWN"),
                        "{e:?}"
                    );
                }
                Raced::Unanswered => {}
                Raced::PlayFailed(status) => panic!("the Play call failed: {status:?}"),
            }
            outcomes.push(match &p.outcome {
                Raced::Refused(status) => {
                    format!("refused {:?} {:?}", status.code(), reason(status))
                }
                other => format!("{other:?}"),
            });
            // What the streams carried is the acknowledged log's beginning.
            let (messages, error) = spectator.await.expect("the spectator's task");
            assert!(error.is_none(), "the stream ended with {error:?}");
            assert!(!messages.iter().any(|m| matches!(m, Msg::Lagged(_))));
            let streamed = events(&messages);
            let log = racer.replica.events(Viewer::Spectator);
            assert!(
                streamed.len() <= log.len(),
                "{}: more than acknowledged",
                racer.id
            );
            assert_eq!(streamed[..], log[..streamed.len()], "{}", racer.id);
            for (s, events) in carried.iter().enumerate() {
                let log = racer.replica.events(seat(s as u8));
                assert!(
                    events.len() <= log.len(),
                    "{}: more than acknowledged",
                    racer.id
                );
                assert_eq!(events[..], log[..events.len()], "{}, seat {s}", racer.id);
            }
            *slot = Some(p);
            racers.push(racer);
        }
        server.stopped_within(WITHIN).await;
    }
    println!("the actions racing the shutdown: {outcomes:?}");
}

// A served connection costs the server one file descriptor: the registry that cuts the
// connections left open after the grace keeps a flag per connection, not a second handle on
// its socket (it kept one: two descriptors a connection, which halved the connections a
// descriptor limit allows). The clients are in this process too: 100 clients, each with a
// call answered (its connection accepted and served), add about 200 descriptors, not 300. The
// connections are then still cut at the end of the grace (the test above).
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_connection_costs_the_server_one_descriptor() {
    const CLIENTS: usize = 100;
    let descriptors = || std::fs::read_dir("/proc/self/fd").unwrap().count();
    let server = TestServer::start().await;
    // One connection first: whatever the server opens once (its runtime's, its listener's
    // first accept) is before the count.
    let mut first = server.client().await;
    create(&mut first, 2, 1).await;
    let before = descriptors();
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        let mut client = server.client().await;
        client
            .list_games(v1::ListGamesRequest::default())
            .await
            .expect("a served call");
        clients.push(client);
    }
    let added = descriptors() - before;
    // Other tests of this file open and close descriptors meanwhile: a margin for them.
    assert!(
        added < CLIENTS * 5 / 2,
        "{CLIENTS} connections added {added} descriptors (client and server ends): more than one a side"
    );
    drop(clients);
    server.stop().await;
}
