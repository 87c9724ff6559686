//! Abuse limits under load: a flooding seat token, and made-up tokens flooding every call from
//! the same address, are refused RESOURCE_EXHAUSTED `RATE_LIMITED` with a RetryInfo (the
//! made-up tokens' calls, charged to the address, pass no more often than its rate allows) and
//! their refused calls change nothing, while another game played from that address at the same
//! time keeps going at nearly its pace (its seats' calls are charged to their tokens; its median
//! action latency during the flood stays within a generous bound of the quiet one; the figures
//! are printed); watch streams are limited per token and, for spectators, per address, and
//! closing a stream frees its place; every call whose token holds no seat of the game it names
//! is limited per address. Play calls that never send their opening and connections that never
//! send a byte, twice as many as `--max-connections`, are each ended by the server (at their
//! deadlines, or at once beyond the limit) while another game keeps its pace (figures printed).
//!
//! The servers' clocks are paused (`clock::paused`): budgets come back, and deadlines
//! pass, only when a test moves the clock on, so what the limits let through is exact and no
//! test waits for time to pass. Latencies are measured and printed for information; no test
//! holds them to a bound (a busy machine would fail it).
//!
//! The normal run takes seconds. A longer run floods for `CANASTA_ABUSE_SECS` seconds while bots
//! keep playing, on a server with the real clock (budgets refilling as they do in service), and
//! prints the latency figures:
//!
//! ```sh
//! CANASTA_ABUSE_SECS=60 cargo test --release -p canasta-tests --test abuse -- --nocapture
//! ```
mod clock;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use canasta_proto::v1;
use canasta_tests::play::{PlayCall, silent_play, watch as watch_play};
use canasta_tests::*;
use clock::*;
use tonic::Code;
use tonic_types::StatusExt;

/// Pause between a bot's actions in the long run, on the real clock: keeps each bot token far
/// below its rate limit, so the only refusals are the flooder's. (On a paused clock the bots'
/// budgets hold the bounded run's actions, and they play without a pause.)
const BOT_PACE: Duration = Duration::from_millis(10);

/// The actions the bots play in the normal, bounded run (per phase).
const BOUNDED_ACTIONS: usize = 50;

/// Requests per second of the address in the flood test (bursts of twice as many).
const ADDRESS_RATE: f64 = 200.0;

/// Requests per second of a seat token in the flood tests (bursts of twice as many).
const TOKEN_RATE: f64 = 300.0;

/// Asserts a status is RESOURCE_EXHAUSTED with `reason` and a positive RetryInfo no longer than
/// `max_delay`; returns the delay.
fn assert_exhausted(status: &tonic::Status, reason_code: &str, max_delay: Duration) -> Duration {
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    assert_eq!(reason(status), reason_code, "{status:?}");
    let delay = status
        .get_details_retry_info()
        .and_then(|r| r.retry_delay)
        .expect("a RetryInfo with a delay");
    assert!(
        delay > Duration::ZERO && delay <= max_delay,
        "retry after {delay:?}"
    );
    delay
}

/// A started two-player game: its id and the seat tokens.
async fn started_game(client: &mut Client, seed: u64) -> (String, Vec<String>) {
    let game = create(client, 2, seed).await;
    let tokens = join_all(client, &game).await;
    (game.game_id, tokens)
}

/// The game's seq, read by one of its seats (`token`), whose token pays for the call: the
/// address may have no budget left during a flood.
async fn seq_of(client: &mut Client, game_id: &str, token: &str) -> u64 {
    let request = v1::GetGameRequest {
        game_id: game_id.to_string(),
    };
    client
        .get_game(authed(request, token))
        .await
        .expect("the game")
        .into_inner()
        .game
        .expect("a summary")
        .seq
}

/// Bots play `game_id`, pausing `pace` after each action, each seat acting with its first
/// legal action, until `enough` says stop or the match ends; returns the latency of every
/// SubmitAction (measured for information).
async fn play_paced(
    client: &mut Client,
    game_id: &str,
    tokens: &[String],
    pace: Duration,
    mut enough: impl FnMut(usize) -> bool,
) -> Vec<Duration> {
    let mut latencies = Vec::new();
    let mut seat = 0;
    while !enough(latencies.len()) {
        let v = view_of(client, game_id, Some(&tokens[seat]), true).await;
        if v.view.as_ref().map(|v| v.status) == Some(v1::GameStatus::Finished as i32) {
            break;
        }
        let Some(legal) = v.legal else {
            seat = (seat + 1) % tokens.len();
            continue;
        };
        let request = v1::SubmitActionRequest {
            game_id: game_id.to_string(),
            expected_seq: v.view.as_ref().map(|v| v.seq).unwrap_or_default(),
            request_id: format!("bot{}", latencies.len()),
            action: Some(legal.actions[0].clone()),
        };
        let start = Instant::now();
        client
            .submit_action(authed(request, &tokens[seat]))
            .await
            .expect("a bot's listed action is accepted, never rate limited");
        latencies.push(start.elapsed());
        if !pace.is_zero() {
            tokio::time::sleep(pace).await;
        }
    }
    latencies
}

/// The median of latencies.
fn median(latencies: &[Duration]) -> Duration {
    let mut sorted = latencies.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

/// Median, 90th and 99th percentile and maximum, in microseconds.
fn summary(mut latencies: Vec<Duration>) -> String {
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize].as_micros();
    format!(
        "{} actions: median {} us, p90 {} us, p99 {} us, max {} us",
        latencies.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0)
    )
}

/// What a flood got back.
#[derive(Default)]
struct FloodCounts {
    /// The seat token's calls.
    passed: AtomicUsize,
    refused: Counter,
    /// The made-up tokens' calls (charged to the address).
    made_up_passed: AtomicUsize,
    made_up_refused: Counter,
    /// Games the made-up tokens' CreateGame calls created.
    games_created: AtomicUsize,
}

/// What a flood aims at: a game the flooding seat token holds a seat of, and a game with free
/// seats (the made-up tokens' JoinGame calls).
struct FloodTarget {
    game_id: String,
    token: String,
    waiting_id: String,
}

/// Made-up tokens each flood task of the made-up tokens takes turns with.
const MADE_UP_TOKENS: usize = 8;

/// Floods until `stop`; the thread ends when every flood task has. `seat_tasks` clients send
/// GetView and SubmitAction (a stale one: if it passes the limiter the game refuses it) with
/// one seat token of the game; `made_up_tasks` clients send every call of the service, in
/// turn, with made-up tokens ([`MADE_UP_TOKENS`] each, in turn), which the address pays for.
/// Every refusal must be RATE_LIMITED with a RetryInfo.
///
/// The flooding clients run on a runtime of their own, in their own threads, as a flooder on
/// another machine would: their own work (building, sending and reading calls) is not queued
/// among the server's tasks, whose latency under the flood is what is measured.
fn flood(
    server: &TestServer,
    target: FloodTarget,
    (seat_tasks, made_up_tasks): (usize, usize),
    stop: Arc<AtomicBool>,
) -> (Arc<FloodCounts>, std::thread::JoinHandle<()>) {
    let counts = Arc::new(FloodCounts::default());
    let (addr, all_counts) = (server.addr, counts.clone());
    let thread = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("the flood's runtime");
        runtime.block_on(flood_tasks(
            addr,
            Arc::new(target),
            (seat_tasks, made_up_tasks),
            stop,
            all_counts,
        ));
    });
    (counts, thread)
}

async fn flood_tasks(
    addr: std::net::SocketAddr,
    target: Arc<FloodTarget>,
    (seat_tasks, made_up_tasks): (usize, usize),
    stop: Arc<AtomicBool>,
    counts: Arc<FloodCounts>,
) {
    let mut handles = Vec::new();
    for task in 0..seat_tasks + made_up_tasks {
        let mut client = connect(addr).await;
        let (target, stop, counts) = (target.clone(), stop.clone(), counts.clone());
        if task >= seat_tasks {
            handles.push(tokio::spawn(async move {
                flood_made_up(&mut client, &target, &stop, &counts).await
            }));
            continue;
        }
        let (game_id, token) = (target.game_id.clone(), target.token.clone());
        handles.push(tokio::spawn(async move {
            let mut i = 0u64;
            while !stop.load(Ordering::Relaxed) {
                i += 1;
                let result = if i.is_multiple_of(2) {
                    client
                        .get_view(authed(
                            v1::GetViewRequest {
                                game_id: game_id.clone(),
                                include_actions: false,
                            },
                            &token,
                        ))
                        .await
                        .map(|_| ())
                } else {
                    client
                        .submit_action(authed(
                            v1::SubmitActionRequest {
                                game_id: game_id.clone(),
                                expected_seq: 1,
                                request_id: format!("flood{i}"),
                                action: Some(v1::Action::default()),
                            },
                            &token,
                        ))
                        .await
                        .map(|_| ())
                };
                match result {
                    Ok(()) => {
                        counts.passed.fetch_add(1, Ordering::Relaxed);
                    }
                    Err(s) if s.code() == Code::ResourceExhausted => {
                        assert_exhausted(&s, "RATE_LIMITED", Duration::from_secs(1));
                        counts.refused.add_one();
                    }
                    // Passed the limiter, refused by the game: the action is empty or stale.
                    Err(s) => {
                        assert!(
                            matches!(s.code(), Code::InvalidArgument | Code::Aborted),
                            "{s:?}"
                        );
                        counts.passed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }));
    }
    for h in handles {
        h.await.expect("a flood task ends cleanly");
    }
}

/// Every call of the service, in turn, with made-up tokens, until `stop`: each must be
/// refused for the address's rate, or pass it (and be refused by the game, or answered).
async fn flood_made_up(
    client: &mut Client,
    target: &FloodTarget,
    stop: &AtomicBool,
    counts: &FloodCounts,
) {
    let tokens: Vec<String> = (0..MADE_UP_TOKENS).map(|_| made_up_token()).collect();
    let calls: Vec<Call> = NO_GAME.iter().chain(&NAMING_A_GAME).copied().collect();
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        let call = calls[i % calls.len()];
        let token = &tokens[(i / calls.len()) % tokens.len()];
        i += 1;
        let result = make_call(
            client,
            call,
            &target.game_id,
            &target.waiting_id,
            Some(token),
        )
        .await;
        match result {
            Err(s) if s.code() == Code::ResourceExhausted => {
                assert_exhausted(&s, "RATE_LIMITED", Duration::from_secs(1));
                assert!(s.message().contains("address"), "{call:?}: {s:?}");
                counts.made_up_refused.add_one();
            }
            // Passed the limiter; the game refused it (no seat of the game, the game not
            // finished, no free seat left) or answered it.
            result => {
                if matches!((call, &result), (Call::CreateGame, Ok(()))) {
                    counts.games_created.fetch_add(1, Ordering::Relaxed);
                }
                counts.made_up_passed.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

// Several threads, so that the flood, the server and the bots run side by side as they would
// in separate processes. On a paused server clock (the bounded run) no budget comes back
// during the flood: the flooding token passes exactly its burst, and the made-up tokens
// exactly what the address's burst has left, then every call of theirs is refused, while the
// bots' game goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flooding_token_is_refused_and_another_game_keeps_going() {
    let long_secs: Option<u64> = std::env::var("CANASTA_ABUSE_SECS")
        .ok()
        .and_then(|s| s.parse().ok());
    let config = test_config()
        // A bot at BOT_PACE makes two requests per action, at most 200 a second: below 300.
        .requests_per_second(TOKEN_RATE)
        // The address of every client here: the bots make their games before the flood (with
        // room for them in the burst), and the made-up tokens' flood must outrun it.
        .address_requests_per_second(ADDRESS_RATE)
        .build()
        .unwrap();
    let (server, pace) = match long_secs {
        None => (paused(config).await, Duration::ZERO),
        Some(_) => (TestServer::with_config(config).await, BOT_PACE),
    };
    let mut client = server.client().await;

    // Without a flood (a longer sample in the long run).
    let quiet_actions = if long_secs.is_some() {
        4 * BOUNDED_ACTIONS
    } else {
        BOUNDED_ACTIONS
    };
    let (quiet_game, quiet_tokens) = started_game(&mut client, 31).await;
    let quiet = play_paced(&mut client, &quiet_game, &quiet_tokens, pace, |n| {
        n >= quiet_actions
    })
    .await;

    // The flooder holds a seat of its own game; its made-up tokens join a waiting game.
    let (flood_game, flood_tokens) = started_game(&mut client, 32).await;
    let waiting_id = create(&mut client, 2, 33).await.game_id;
    let flood_seq = seq_of(&mut client, &flood_game, &flood_tokens[1]).await;
    // The bots' games (the same deal as the quiet one), made before the flood: while the
    // made-up tokens flood, the address has nothing left for the bots' CreateGame and JoinGame
    // (their seats' calls are their tokens').
    let pool_size = long_secs.map_or(2, |s| 2 * s as usize + 2);
    let mut pool = Vec::new();
    for _ in 0..pool_size {
        pool.push(started_game(&mut client, 31).await);
    }
    // What the address paid for so far: a CreateGame and two JoinGame calls a started game,
    // and the waiting game's CreateGame.
    let address_calls = 3 * (2 + pool_size) + 1;
    let stop = Arc::new(AtomicBool::new(false));
    let target = FloodTarget {
        game_id: flood_game.clone(),
        token: flood_tokens[0].clone(),
        waiting_id,
    };
    let flood_start = Instant::now();
    let (counts, flooders) = flood(&server, target, (16, 8), stop.clone());

    // Meanwhile bots play another game.
    let mut flooded = Vec::new();
    let mut games = 0;
    loop {
        let (game, tokens) = pool
            .pop()
            .expect("a game made before the flood is left: make more");
        games += 1;
        let deadline = long_secs.map(|s| flood_start + Duration::from_secs(s));
        let done = flooded.len();
        flooded.extend(
            play_paced(&mut client, &game, &tokens, pace, |n| match deadline {
                Some(d) => Instant::now() >= d,
                None => done + n >= BOUNDED_ACTIONS,
            })
            .await,
        );
        let over = match deadline {
            Some(d) => Instant::now() >= d,
            None => flooded.len() >= BOUNDED_ACTIONS,
        };
        if over {
            break;
        }
    }
    // The flood goes on until both kinds of its calls have been refused (a slow machine may
    // take a while to get there: 60 s is a guard against a hang).
    tokio::time::timeout(Duration::from_secs(60), async {
        counts.refused.reached(1).await;
        counts.made_up_refused.reached(1).await;
    })
    .await
    .expect("the flood is refused");
    stop.store(true, Ordering::Relaxed);
    let flood_secs = flood_start.elapsed().as_secs_f64();
    // The flood's calls in flight end before the server stops (their checks run to the end).
    tokio::time::timeout(
        Duration::from_secs(10),
        tokio::task::spawn_blocking(move || flooders.join()),
    )
    .await
    .expect("the flood stops")
    .expect("the joining task")
    .expect("every flood task ends cleanly");
    // Every call of the made-up tokens came after `flood_start` and before now.
    let made_up_secs = flood_start.elapsed().as_secs_f64();
    let (passed, refused) = (counts.passed.load(Ordering::Relaxed), counts.refused.get());
    let (made_up_passed, made_up_refused, games_created) = (
        counts.made_up_passed.load(Ordering::Relaxed),
        counts.made_up_refused.get(),
        counts.games_created.load(Ordering::Relaxed),
    );
    println!(
        "flood: {passed} calls passed, {refused} refused RATE_LIMITED in {flood_secs:.2} s \
         ({:.0} calls/s) from one token",
        (passed + refused) as f64 / flood_secs
    );
    println!(
        "flood: {made_up_passed} calls passed ({games_created} games created), \
         {made_up_refused} refused RATE_LIMITED from made-up tokens ({:.0} calls/s) in \
         {made_up_secs:.2} s",
        (made_up_passed + made_up_refused) as f64 / flood_secs
    );
    let (quiet_median, flooded_median) = (median(&quiet), median(&flooded));
    println!("other game without flood: {}", summary(quiet));
    println!(
        "other game during flood ({games} game(s)): {}, its median from {quiet_median:?} \
         to {flooded_median:?}",
        summary(flooded.clone())
    );

    assert!(refused > 0, "the flood was never refused");
    assert!(made_up_refused > 0, "the made-up tokens were never refused");
    let burst = 2.0 * ADDRESS_RATE;
    match long_secs {
        None => {
            // The clock stood still: the bursts, to the call.
            assert_eq!(
                passed,
                (2.0 * TOKEN_RATE) as usize,
                "the flooding token passes its burst, no more"
            );
            assert_eq!(
                made_up_passed + address_calls,
                burst as usize,
                "the made-up tokens pass what the address's burst has left, no more"
            );
            assert_eq!(flooded.len(), BOUNDED_ACTIONS, "the other game kept going");
        }
        Some(_) => {
            // What the address may pay for in the flood's time, which is within the test's.
            let allowed = burst + ADDRESS_RATE * made_up_secs;
            assert!(
                made_up_passed as f64 <= allowed + 1.0,
                "{made_up_passed} calls of made-up tokens passed, the address allowing {allowed:.0}"
            );
        }
    }
    // The flooder's refused and stale calls did not move its game.
    assert_eq!(
        seq_of(&mut client, &flood_game, &flood_tokens[1]).await,
        flood_seq
    );
    server.stop().await;
}

/// Connections the server of the silent flood serves at most.
const SILENT_MAX_CONNECTIONS: usize = 48;

/// Connections the silent flood opens at once: twice the limit.
const SILENT_SOCKETS: usize = 2 * SILENT_MAX_CONNECTIONS;

/// Silent Play calls the flood holds open at once, over [`SILENT_CHANNELS`] connections.
const SILENT_CALLS: usize = 64;
const SILENT_CHANNELS: usize = 4;

/// Reads `stream` until the server closes it, within 10 s (a guard against a connection held
/// for ever, not a measured bound); returns how many bytes came.
async fn bytes_until_closed(mut stream: tokio::net::TcpStream) -> usize {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut got))
        .await
        .expect("the server closes a silent connection within 10 s");
    if let Err(e) = read {
        assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}");
    }
    got.len()
}

// Silent Play calls and connections that never send a byte, twice as many as the server
// serves, while bots play another game from a connection made before: the connections beyond
// --max-connections are closed at once (the server sends them nothing), the others served
// until --handshake-timeout-secs and then closed; every silent call holds no stream place (its
// seat plays on) and ends DEADLINE_EXCEEDED at --play-open-timeout-secs; the flood holds no
// more than that (it held every connection and call for ever), and once it is over the server
// takes connections again. The other game keeps going (its latency is printed). The server's
// clock is paused: the deadlines pass when the test moves it on, after the bots have played
// with the flood held open.
#[tokio::test]
async fn silent_calls_and_connections_are_bounded_and_another_game_keeps_going() {
    let deadline = Duration::from_millis(300);
    let config = test_config()
        .requests_per_second(TOKEN_RATE)
        .max_connections(SILENT_MAX_CONNECTIONS)
        .handshake_timeout(deadline)
        .play_open_timeout(deadline)
        .max_watchers_per_token(2)
        .build()
        .unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;

    let (quiet_game, quiet_tokens) = started_game(&mut client, 31).await;
    let quiet = play_paced(
        &mut client,
        &quiet_game,
        &quiet_tokens,
        Duration::ZERO,
        |n| n >= BOUNDED_ACTIONS,
    )
    .await;
    let (game, tokens) = started_game(&mut client, 31).await;
    let (flood_game, flood_tokens) = started_game(&mut client, 32).await;

    // The silent calls, over connections of their own, each served (a call answered on it);
    // once a call answered after them on each connection has come back, every silent call's
    // handler waits for its opening (the server's one thread takes its tasks in turn).
    let mut channels = Vec::new();
    for _ in 0..SILENT_CHANNELS {
        let mut channel = server.client().await;
        seq_of(&mut channel, &flood_game, &flood_tokens[1]).await;
        channels.push(channel);
    }
    let mut calls = Vec::new();
    for i in 0..SILENT_CALLS {
        calls.push(silent_play(&channels[i % SILENT_CHANNELS], Some(&flood_tokens[0])).await);
    }
    for channel in &mut channels {
        seq_of(channel, &flood_game, &flood_tokens[1]).await;
    }
    // The silent connections: the server serves as many as its limit leaves (the test's and
    // the calls' connections are served already) and closes the others at once.
    let mut sockets = Vec::new();
    for _ in 0..SILENT_SOCKETS {
        sockets.push(
            tokio::net::TcpStream::connect(server.addr)
                .await
                .expect("the listener takes connections"),
        );
    }
    // One more, closed at once (the limit is reached): every socket before it was accepted
    // or closed.
    let beyond = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("the listener takes connections");
    assert_eq!(until_closed(beyond).await, b"");
    let mut served = Vec::new();
    let mut at_once = 0;
    for socket in sockets {
        if is_served(&socket) {
            served.push(socket);
        } else {
            at_once += 1;
        }
    }
    let room = SILENT_MAX_CONNECTIONS - 1 - SILENT_CHANNELS;
    assert_eq!(
        (served.len(), at_once),
        (room, SILENT_SOCKETS - room),
        "served up to the limit, the others closed at once"
    );

    // While the flood holds its connections and calls, the bots play, and the seat of the
    // silent calls has both its stream places.
    let flood_start = Instant::now();
    let flooded = play_paced(&mut client, &game, &tokens, Duration::ZERO, |n| {
        n >= BOUNDED_ACTIONS
    })
    .await;
    let flood_secs = flood_start.elapsed().as_secs_f64();
    let mut seat_client = client.clone();
    let watching = open_watch(
        &mut seat_client,
        &flood_game,
        Some(&flood_tokens[0]),
        0,
        false,
    )
    .await
    .expect("the seat of the silent calls watches its game");
    let playing = PlayCall::open(&mut client, Some(&flood_tokens[0]), watch_play(&flood_game))
        .await
        .expect("the seat of the silent calls plays its game");

    // The deadlines pass: every silent call and connection ends.
    server.advance(deadline).await;
    for call in calls {
        let status = tokio::time::timeout(Duration::from_secs(10), call)
            .await
            .expect("a silent Play call ends")
            .expect("the call's task")
            .expect_err("a silent Play call is refused");
        assert_eq!(status.code(), Code::DeadlineExceeded, "{status:?}");
        assert_eq!(reason(&status), "PLAY_NOT_OPENED");
    }
    for socket in served {
        assert_eq!(
            bytes_until_closed(socket).await,
            0,
            "nothing said to a silent connection"
        );
    }
    // The server takes connections again.
    let mut again = server.client().await;
    assert_eq!(
        seq_of(&mut again, &flood_game, &flood_tokens[1]).await,
        seq_of(&mut client, &flood_game, &flood_tokens[1]).await
    );
    println!(
        "silent flood: {room} connections served and closed at the handshake deadline, \
         {} closed at once beyond --max-connections ({SILENT_MAX_CONNECTIONS}), {SILENT_CALLS} \
         silent Play calls ended at their deadline",
        SILENT_SOCKETS - room
    );
    println!("other game without flood: {}", summary(quiet.clone()));
    println!(
        "other game during silent flood ({flood_secs:.2} s): {}, its median from {:?} to {:?}",
        summary(flooded.clone()),
        median(&quiet),
        median(&flooded)
    );
    assert_eq!(flooded.len(), BOUNDED_ACTIONS, "the other game kept going");
    drop((watching, playing));
    server.stop().await;
}

// With a token limited to 1 request a second (bursts of 2), a burst of calls passes twice and is
// then refused; a refused legal action is not applied; after the RetryInfo delay it is, not a
// millisecond before. On a paused server clock: nothing comes back until the test moves it.
#[tokio::test]
async fn a_refused_action_is_not_applied_and_passes_after_the_delay() {
    let config = test_config().requests_per_second(1.0).build().unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    let (game, tokens) = started_game(&mut client, 41).await;
    // Find the seat to act; each view spends from that token's bucket, so use the other
    // token's views only to find out.
    let (seat, v) = {
        let v0 = view_of(&mut client, &game, Some(&tokens[0]), true).await;
        if v0.legal.is_some() {
            (0, v0)
        } else {
            (1, view_of(&mut client, &game, Some(&tokens[1]), true).await)
        }
    };
    let token = &tokens[seat];
    let seq = v.view.as_ref().unwrap().seq;
    let submit = v1::SubmitActionRequest {
        game_id: game.clone(),
        expected_seq: seq,
        request_id: "once".into(),
        action: Some(v.legal.unwrap().actions[0].clone()),
    };
    // Empty the bucket: the view above took one, a burst has two.
    let mut refused = 0;
    for _ in 0..20 {
        let r = client
            .get_view(authed(
                v1::GetViewRequest {
                    game_id: game.clone(),
                    include_actions: false,
                },
                token,
            ))
            .await;
        if let Err(s) = r {
            assert_exhausted(&s, "RATE_LIMITED", Duration::from_secs(1));
            refused += 1;
        }
    }
    assert_eq!(refused, 19, "all but the burst's second refused");
    let status = client
        .submit_action(authed(submit.clone(), token))
        .await
        .expect_err("the legal action is refused while the token is over its rate");
    let delay = assert_exhausted(&status, "RATE_LIMITED", Duration::from_secs(1));
    assert_eq!(delay, Duration::from_secs(1), "one request's place");
    assert_eq!(
        seq_of(&mut client, &game, &tokens[1 - seat]).await,
        seq,
        "a refused call moved the game"
    );
    server.advance(delay - Duration::from_millis(1)).await;
    let status = client
        .submit_action(authed(submit.clone(), token))
        .await
        .expect_err("refused until the delay is over");
    assert_eq!(
        assert_exhausted(&status, "RATE_LIMITED", Duration::from_secs(1)),
        Duration::from_millis(1)
    );
    server.advance(Duration::from_millis(1)).await;
    let accepted = client
        .submit_action(authed(submit, token))
        .await
        .expect("accepted after the delay")
        .into_inner();
    assert!(accepted.seq > seq);
    assert_eq!(
        seq_of(&mut client, &game, &tokens[1 - seat]).await,
        accepted.seq
    );
    server.stop().await;
}

/// Opens a watch stream of `game_id`, as the seat of `token` or as a spectator.
async fn watch(
    client: &mut Client,
    game_id: &str,
    token: Option<&str>,
) -> Result<tonic::Streaming<v1::WatchGameResponse>, tonic::Status> {
    open_watch(client, game_id, token, 0, false).await
}

#[tokio::test]
async fn a_token_holds_at_most_its_watch_streams() {
    let config = test_config().max_watchers_per_token(3).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let (game, tokens) = started_game(&mut client, 51).await;

    // A flood of 20 concurrent watches from one token: exactly 3 are opened.
    let mut attempts = Vec::new();
    for _ in 0..20 {
        let mut c = client.clone();
        let (game, token) = (game.clone(), tokens[0].clone());
        attempts.push(tokio::spawn(async move {
            watch(&mut c, &game, Some(&token)).await
        }));
    }
    let mut open = Vec::new();
    for a in attempts {
        match a.await.expect("the task ends") {
            Ok(s) => open.push(s),
            Err(s) => {
                assert_exhausted(&s, "TOO_MANY_WATCHERS", Duration::from_secs(5));
                assert!(s.message().contains("3 watch streams"), "{}", s.message());
            }
        }
    }
    assert_eq!(open.len(), 3);
    // The open streams work: each starts with the game's first event.
    for s in &mut open {
        let first = next_message(s).await.expect("a message");
        assert!(
            matches!(first.kind, Some(v1::watch_game_response::Kind::Event(ref e)) if e.seq == 1),
            "{first:?}"
        );
    }
    // The other seat's token and spectators have places of their own.
    let _other = watch(&mut client, &game, Some(&tokens[1]))
        .await
        .expect("another token's stream");
    let _spectator = watch(&mut client, &game, None)
        .await
        .expect("a spectator's stream");

    // Closing a stream frees its place, once.
    drop(open.pop());
    open.push(watch_when_freed(&mut client, &game, Some(&tokens[0])).await);
    let status = watch(&mut client, &game, Some(&tokens[0]))
        .await
        .expect_err("the token is at its limit again");
    assert_exhausted(&status, "TOO_MANY_WATCHERS", Duration::from_secs(5));
    server.stop().await;
}

#[tokio::test]
async fn spectators_of_one_address_are_limited() {
    let config = test_config().max_watchers_per_address(4).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let (game_a, tokens) = started_game(&mut client, 61).await;
    let (game_b, _) = started_game(&mut client, 62).await;

    // Spectator streams count per address, across games.
    let mut open = Vec::new();
    for game in [&game_a, &game_b, &game_a, &game_b] {
        open.push(watch(&mut client, game, None).await.expect("a spectator"));
    }
    let status = watch(&mut client, &game_b, None)
        .await
        .expect_err("a fifth spectator stream from this address");
    assert_exhausted(&status, "TOO_MANY_WATCHERS", Duration::from_secs(5));
    assert!(
        status.message().contains("127.0.0.1"),
        "{}",
        status.message()
    );
    // A seat's own stream is counted under its token, not the address.
    let _seat = watch(&mut client, &game_a, Some(&tokens[0]))
        .await
        .expect("a seat's stream");
    // Closing one frees its place.
    drop(open.remove(0));
    open.push(watch_when_freed(&mut client, &game_b, None).await);
    assert_eq!(open.len(), 4);
    server.stop().await;
}

// Calls without a token are limited per address: here 3 a second, bursts of 6. A seat's calls
// on its own game are not (its token pays); made-up tokens spend from the address's budget. On
// a paused server clock nothing comes back meanwhile: the counts are exact.
#[tokio::test]
async fn calls_without_a_token_are_limited_per_address() {
    let config = test_config()
        .address_requests_per_second(3.0)
        .build()
        .unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    // Create and two joins: 3 calls (the seats' views are their tokens').
    let (game, tokens) = started_game(&mut client, 71).await;
    for t in &tokens {
        view_of(&mut client, &game, Some(t), true).await;
    }
    let mut refused = 0;
    let mut passed = 0;
    for i in 0..30 {
        let r = match i % 3 {
            0 => client
                .list_games(v1::ListGamesRequest::default())
                .await
                .map(|_| ()),
            1 => client
                .get_game(v1::GetGameRequest {
                    game_id: game.clone(),
                })
                .await
                .map(|_| ()),
            _ => watch(&mut client, &game, None).await.map(|_| ()),
        };
        match r {
            Ok(()) => passed += 1,
            Err(s) => {
                let delay = assert_exhausted(&s, "RATE_LIMITED", Duration::from_secs(1));
                // A third of a second, rounded up to the millisecond.
                assert_eq!(delay, Duration::from_millis(334));
                assert!(s.message().contains("127.0.0.1"), "{}", s.message());
                refused += 1;
            }
        }
    }
    // The burst of 6 less the game's creation and its two joins.
    assert_eq!((passed, refused), (3, 27));
    // Made-up tokens hold no seat of the game: each call spends from the address, which is
    // empty, instead of from a budget of its own (each would pass, to be refused by the game).
    let mut made_up_refused = 0;
    for i in 0..10 {
        let r = client
            .get_view(authed(
                v1::GetViewRequest {
                    game_id: game.clone(),
                    include_actions: false,
                },
                &format!("{i:032x}"),
            ))
            .await;
        match r {
            Err(s) if s.code() == Code::ResourceExhausted => {
                assert_exhausted(&s, "RATE_LIMITED", Duration::from_secs(1));
                made_up_refused += 1;
            }
            Err(s) => assert_eq!(reason(&s), "NOT_A_SEAT_OF_GAME", "{s:?}"),
            Ok(_) => panic!("a made-up token got a view"),
        }
    }
    assert_eq!(made_up_refused, 10, "the address has nothing left");
    // The seats keep playing: on their own game, their tokens pay.
    for t in &tokens {
        let v = view_of(&mut client, &game, Some(t), true).await;
        assert_eq!(v.view.unwrap().status, v1::GameStatus::Playing as i32);
    }
    server.stop().await;
}

/// A made-up bearer token: 32 random hex digits, as a real one looks.
fn made_up_token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// The calls of the service, each as one request.
#[derive(Clone, Copy, Debug)]
enum Call {
    CreateGame,
    JoinGame,
    ListGames,
    DescribeRules,
    GetGame,
    GetScores,
    ExportGame,
    GetView,
    WatchGame,
    CheckAction,
    SubmitAction,
    LeaveGame,
    Play,
}

/// The calls that name no game (JoinGame names one, but takes a free seat, which no token
/// holds yet): the address pays for them whatever token they carry.
const NO_GAME: [Call; 4] = [
    Call::CreateGame,
    Call::JoinGame,
    Call::ListGames,
    Call::DescribeRules,
];

/// The calls that name a game: the token pays if it holds a seat of that game.
const NAMING_A_GAME: [Call; 9] = [
    Call::GetGame,
    Call::GetScores,
    Call::ExportGame,
    Call::GetView,
    Call::WatchGame,
    Call::CheckAction,
    Call::SubmitAction,
    Call::LeaveGame,
    Call::Play,
];

/// Makes `call` with `token` (or none): on `game`, or, for JoinGame, on `waiting` (a game with
/// free seats). Ok if the call was answered without a refusal.
async fn make_call(
    client: &mut Client,
    call: Call,
    game: &str,
    waiting: &str,
    token: Option<&str>,
) -> Result<(), tonic::Status> {
    let game_id = game.to_string();
    let action = Some(v1::Action {
        kind: Some(v1::action::Kind::DrawStock(v1::DrawStockAction {})),
    });
    let rules = Some(rules(v1::Preset::Official, 2, &[]));
    match call {
        Call::CreateGame => {
            let r = v1::CreateGameRequest {
                rules,
                ..Default::default()
            };
            client.create_game(as_viewer(r, token)).await.map(|_| ())
        }
        Call::JoinGame => {
            let r = v1::JoinGameRequest {
                game_id: waiting.to_string(),
                seat: None,
                display_name: "joiner".into(),
            };
            client.join_game(as_viewer(r, token)).await.map(|_| ())
        }
        Call::ListGames => {
            let r = v1::ListGamesRequest::default();
            client.list_games(as_viewer(r, token)).await.map(|_| ())
        }
        Call::DescribeRules => {
            let r = v1::DescribeRulesRequest { rules };
            client.describe_rules(as_viewer(r, token)).await.map(|_| ())
        }
        Call::GetGame => {
            let r = v1::GetGameRequest { game_id };
            client.get_game(as_viewer(r, token)).await.map(|_| ())
        }
        Call::GetScores => {
            let r = v1::GetScoresRequest { game_id };
            client.get_scores(as_viewer(r, token)).await.map(|_| ())
        }
        Call::ExportGame => {
            let r = v1::ExportGameRequest { game_id };
            client.export_game(as_viewer(r, token)).await.map(|_| ())
        }
        Call::GetView => {
            let r = v1::GetViewRequest {
                game_id,
                include_actions: false,
            };
            client.get_view(as_viewer(r, token)).await.map(|_| ())
        }
        Call::WatchGame => watch(client, game, token).await.map(|_| ()),
        Call::CheckAction => {
            let r = v1::CheckActionRequest { game_id, action };
            client.check_action(as_viewer(r, token)).await.map(|_| ())
        }
        Call::SubmitAction => {
            let r = v1::SubmitActionRequest {
                game_id,
                expected_seq: 1,
                request_id: "never".into(),
                action,
            };
            client.submit_action(as_viewer(r, token)).await.map(|_| ())
        }
        Call::LeaveGame => {
            let r = v1::LeaveGameRequest { game_id };
            client.leave_game(as_viewer(r, token)).await.map(|_| ())
        }
        Call::Play => {
            canasta_tests::play::PlayCall::open(client, token, canasta_tests::play::watch(game))
                .await
                .map(|_| ())
        }
    }
}

/// Asserts a call was refused for its address's rate, with a wait to retry after: more than
/// nothing, at most the 1000 s in which the address's one call comes back.
fn assert_charged_to_the_address(result: Result<(), tonic::Status>, what: &str) {
    let status = match result {
        Ok(()) => panic!("{what} passed: it was not charged to the address"),
        Err(s) => s,
    };
    assert_eq!(status.code(), Code::ResourceExhausted, "{what}: {status:?}");
    assert_exhausted(&status, "RATE_LIMITED", Duration::from_secs(1000));
    assert!(
        status.message().contains("address 127.0.0.1"),
        "{what}: {}",
        status.message()
    );
}

// "Charge the address for every call whose token is not a seat of the game it names." The
// server holds games made earlier (restored from its database) and allows one call in 1000
// seconds per address, on a paused clock, so that no budget comes back: after the address's
// one call (a made-up token's), the address pays for, and is refused, every call that names no
// game, names a game that does not exist, or names one its token holds no seat of: made-up
// tokens (the one that got in, and many more), a seat token of another game, no token. The
// seats of a game are charged to their own tokens on their game: they keep being answered,
// though their address has nothing left (players behind one NAT do not spend each other's
// budget). Before, a made-up token was charged to its address on its first call only, then
// had a budget of its own; and a seat token new to the server spent from its address.
#[tokio::test]
async fn calls_from_no_seat_of_the_game_they_name_are_charged_to_the_address() {
    let dir = temp_dir("address-pays");
    let db = dir.path().join("games.db");
    let (game, seats, other_seats, waiting) = {
        let server = TestServer::with_db(&db).await;
        let mut client = server.client().await;
        let (game, seats) = started_game(&mut client, 81).await;
        let (_, other_seats) = started_game(&mut client, 82).await;
        let waiting = create(&mut client, 2, 83).await.game_id;
        server.stop().await;
        (game, seats, other_seats, waiting)
    };
    let config = db_config(&db)
        .to_builder()
        .address_requests_per_second(0.001)
        .build()
        .unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;

    // The address's one call: a made-up token reads a game.
    let first = made_up_token();
    make_call(&mut client, Call::GetGame, &game, &waiting, Some(&first))
        .await
        .expect("the address's one call passes");

    // Now every call the address pays for is refused: the made-up token's again, other
    // made-up tokens', a seat token's on another game or on none, a spectator's.
    let mut payers: Vec<(String, Option<String>)> = vec![
        ("the made-up token that got in".into(), Some(first)),
        (
            "a seat token of another game".into(),
            Some(other_seats[0].clone()),
        ),
        ("no token".into(), None),
    ];
    for i in 0..8 {
        payers.push((format!("made-up token {i}"), Some(made_up_token())));
    }
    for (who, token) in &payers {
        for call in NO_GAME.iter().chain(&NAMING_A_GAME) {
            let result = make_call(&mut client, *call, &game, &waiting, token.as_deref()).await;
            assert_charged_to_the_address(result, &format!("{call:?} with {who}"));
        }
    }
    // A seat token pays for its own game only: calls naming no game, or a game that does not
    // exist, are its address's.
    for call in NO_GAME {
        let result = make_call(&mut client, call, &game, &waiting, Some(&seats[0])).await;
        assert_charged_to_the_address(result, &format!("{call:?} with a seat token"));
    }
    for call in NAMING_A_GAME {
        let result = make_call(
            &mut client,
            call,
            "0123456789abcdef",
            &waiting,
            Some(&seats[0]),
        );
        assert_charged_to_the_address(result.await, &format!("{call:?} of no game"));
    }

    // The seats, on their own game, are answered: their tokens pay.
    for token in &seats {
        for call in NAMING_A_GAME {
            if matches!(call, Call::LeaveGame) {
                continue;
            }
            match make_call(&mut client, call, &game, &waiting, Some(token)).await {
                Ok(()) => {}
                // Answered by the game (not its turn, not finished): not rate limited.
                Err(s) => assert!(
                    matches!(
                        reason(&s).as_str(),
                        "NOT_YOUR_TURN" | "STALE_SEQ" | "GAME_NOT_FINISHED"
                    ),
                    "{call:?} of a seat: {s:?}"
                ),
            }
        }
    }
    let v = view_of(&mut client, &game, Some(&seats[1]), true).await;
    assert_eq!(v.view.unwrap().status, v1::GameStatus::Playing as i32);
    server.stop().await;
}

/// Games created for abuse of time controls: the floor's budget, the fallback policy, every
/// seat taken and never played.
const TIMED_GAMES: usize = 24;

/// Reads a spectator's stream of a game nobody plays up to its next time-out (whose events
/// come after the actor has set its next deadline), or to its end. Returns the events read and
/// whether the stream ended.
async fn to_next_time_out(
    stream: &mut tonic::Streaming<v1::WatchGameResponse>,
) -> (Vec<v1::GameEvent>, bool) {
    let mut got = Vec::new();
    while let Some(message) = next_message(stream).await {
        if let Some(v1::watch_game_response::Kind::Event(event)) = message.kind {
            let timed_out = matches!(event.kind, Some(v1::game_event::Kind::TimedOut(_)));
            got.push(event);
            if timed_out {
                return (got, false);
            }
        }
    }
    (got, true)
}

// Time controls as a weapon: a budget below the server's floor is refused; games at the floor
// whose seats never act end as abandoned after a bounded number of time-outs (each stored and
// streamed), instead of playing fallback moves for ever, while another game is played; prints
// the other game's latency with and without them. The server's clock is paused: the test moves
// it on a budget at a time, each move a time-out in every game still going.
#[tokio::test]
async fn games_nobody_plays_under_a_time_control_end_and_another_game_keeps_going() {
    let config = test_config().build().unwrap();
    let floor = config.move_budgets().start().as_millis() as u64;
    let server = paused(config).await;
    let mut client = server.client().await;
    let timed = |budget: u64, seed: u64| v1::CreateGameRequest {
        rules: Some(rules(v1::Preset::Official, 2, &[])),
        seed: Some(seed),
        time_control: Some(v1::TimeControl {
            move_budget_ms: budget,
            policy: v1::TimeoutPolicy::FallbackMove as i32,
        }),
        ..Default::default()
    };
    let refused = client
        .create_game(timed(1, 1))
        .await
        .expect_err("a budget of 1 ms is refused");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert_eq!(reason(&refused), "BAD_TIME_CONTROL");

    let (quiet_game, quiet_tokens) = started_game(&mut client, 41).await;
    let quiet = play_paced(
        &mut client,
        &quiet_game,
        &quiet_tokens,
        Duration::ZERO,
        |n| n >= BOUNDED_ACTIONS,
    )
    .await;
    let (game, tokens) = started_game(&mut client, 41).await;
    let mut streams = Vec::new();
    for i in 0..TIMED_GAMES {
        let summary = create_with(&mut client, timed(floor, 100 + i as u64)).await;
        join_all(&mut client, &summary).await;
        let stream = open_watch(&mut client, &summary.game_id, None, 0, false)
            .await
            .expect("a spectator's stream");
        streams.push((summary.game_id, stream, Vec::new()));
    }
    // The clock moves on a budget at a time, each time once every game still going has
    // streamed its time-out; meanwhile the bots play.
    let mut bots_client = client.clone();
    let bots = play_paced(&mut bots_client, &game, &tokens, Duration::ZERO, |n| {
        n >= BOUNDED_ACTIONS
    });
    let mut moves = 0;
    let timing_out = async {
        let mut going: Vec<usize> = (0..streams.len()).collect();
        while !going.is_empty() {
            server.advance(Duration::from_millis(floor)).await;
            moves += 1;
            assert!(moves <= 100, "the games nobody plays go on");
            let mut still = Vec::new();
            for i in going {
                let (_, stream, got) = &mut streams[i];
                let (events, ended) = to_next_time_out(stream).await;
                got.extend(events);
                if !ended {
                    still.push(i);
                }
            }
            going = still;
        }
    };
    let flood_start = Instant::now();
    let (flooded, ()) = tokio::join!(bots, timing_out);
    let flood_secs = flood_start.elapsed().as_secs_f64();
    let mut longest = 0;
    for (id, _, got) in &streams {
        assert!(
            matches!(
                got.last().and_then(|e| e.kind.as_ref()),
                Some(v1::game_event::Kind::MatchEnded(_))
            ),
            "{id}: the stream ends with the match"
        );
        longest = longest.max(got.len());
        let summary = summary_of(&mut client, id).await;
        assert_eq!(summary.status, v1::GameStatus::Finished as i32, "{id}");
        assert_eq!(summary.seq, got.len() as u64, "{id}");
        let result = summary.result.expect("a result");
        assert_eq!(result.end, v1::MatchEndKind::Abandoned as i32, "{id}");
    }
    println!(
        "{TIMED_GAMES} games at the floor's budget ({floor} ms) nobody played: all abandoned \
         after {moves} budgets of the server's clock ({flood_secs:.2} s), the longest log \
         {longest} events"
    );
    println!("other game without them: {}", summary(quiet.clone()));
    println!(
        "other game while they timed out: {}, its median from {:?} to {:?}",
        summary(flooded.clone()),
        median(&quiet),
        median(&flooded)
    );
    // Two seats, three time-outs each before the end, each a few events (the fallback move,
    // its draw, its discard): a bounded log whatever the time left running.
    assert!(longest < 100, "an abandoned game logged {longest} events");
    assert_eq!(flooded.len(), BOUNDED_ACTIONS, "the other game kept going");
    server.stop().await;
}
