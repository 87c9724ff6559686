//! gRPC-Web beside native gRPC on loopback, against one server in this process: the round trip
//! of a small unary call (GetGame), and the throughput of a watch stream (WatchGame of a
//! finished two-player match from its first event, thousands of events in one answer). Each over
//! gRPC (HTTP/2), gRPC-Web over HTTP/2 (tonic-web's client layer, as a browser speaks to a TLS
//! server) and gRPC-Web over HTTP/1.1 framed by hand (as a browser speaks to a plain `http://`
//! server, one call at a time on a kept-alive connection). `docs/performance.md` has the
//! figures:
//!
//! ```sh
//! cargo bench -p canasta-tests --bench grpc_web
//! ```

use std::time::Duration;

use canasta_proto::v1;
use canasta_tests::web::*;
use canasta_tests::*;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tokio_stream::StreamExt;

fn watch_request(game_id: &str) -> v1::WatchGameRequest {
    v1::WatchGameRequest {
        game_id: game_id.to_string(),
        after_seq: 0,
        include_actions: false,
        include_view: false,
    }
}

fn bench(c: &mut Criterion) {
    let runtime = canasta_server::runtime().expect("a runtime");
    let config = test_config()
        .requests_per_second(1e9)
        .address_requests_per_second(1e9)
        .build()
        .expect("a config");
    let (server, game_id, events) = runtime.block_on(async {
        let server = TestServer::with_config(config).await;
        let mut client = server.client().await;
        let game = create(&mut client, 2, 1).await;
        let tokens = join_all(&mut client, &game).await;
        play_to_end(&mut client, &game.game_id, &tokens, 1_000_000, |_| 0).await;
        let events = summary_of(&mut client, &game.game_id).await.seq;
        (server, game.game_id, events)
    });
    let addr = server.addr;
    let (mut grpc, mut web2) =
        runtime.block_on(async { (server.client().await, web_client(addr).await) });
    // An HTTP/1.1 connection must speak within the server's handshake deadline: each is opened
    // right before its benchmark, not while the others run.
    let h1 = || runtime.block_on(H1::connect(addr));
    let get = v1::GetGameRequest {
        game_id: game_id.clone(),
    };

    let mut unary = c.benchmark_group("GetGame round trip");
    unary.bench_function("gRPC", |b| {
        b.iter(|| {
            runtime
                .block_on(grpc.get_game(get.clone()))
                .expect("answered")
        })
    });
    unary.bench_function("gRPC-Web, HTTP/2", |b| {
        b.iter(|| {
            runtime
                .block_on(web2.get_game(get.clone()))
                .expect("answered")
        })
    });
    let mut web1 = h1();
    unary.bench_function("gRPC-Web, HTTP/1.1", |b| {
        b.iter(|| {
            let answer = runtime.block_on(web1.call("GetGame", &get, &[]));
            answer.only::<v1::GetGameResponse>()
        })
    });
    unary.finish();

    let mut watch = c.benchmark_group(format!("WatchGame of {events} events"));
    watch.throughput(Throughput::Elements(events));
    watch
        .sample_size(20)
        .measurement_time(Duration::from_secs(10));
    watch.bench_function("gRPC", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut stream = grpc
                    .watch_game(watch_request(&game_id))
                    .await
                    .expect("a stream")
                    .into_inner();
                let mut n = 0u64;
                while let Some(m) = stream.next().await {
                    m.expect("a message");
                    n += 1;
                }
                assert!(n >= events);
            })
        })
    });
    watch.bench_function("gRPC-Web, HTTP/2", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut stream = web2
                    .watch_game(watch_request(&game_id))
                    .await
                    .expect("a stream")
                    .into_inner();
                let mut n = 0u64;
                while let Some(m) = stream.next().await {
                    m.expect("a message");
                    n += 1;
                }
                assert!(n >= events);
            })
        })
    });
    let mut web1 = h1();
    watch.bench_function("gRPC-Web, HTTP/1.1", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let answer = web1.call("WatchGame", &watch_request(&game_id), &[]).await;
                assert!(answer.messages.len() as u64 >= events);
            })
        })
    });
    watch.finish();
    runtime.block_on(server.stop());
}

criterion_group!(benches, bench);
criterion_main!(benches);
