//! gRPC over TLS (`--tls-cert`, `--tls-key`): a client that trusts the server's certificate
//! plays a whole game; plaintext clients and clients that trust another authority are turned
//! away; gRPC-Web (a browser's calls, on an https page) goes over the same TLS port; missing or
//! unusable files are reported, not ignored.
use std::path::PathBuf;
use std::time::Duration;

use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use canasta_server::{Config, Tls};
use canasta_tests::*;
use tempfile::TempDir;
use tonic::transport::Channel;

/// A self-signed certificate for localhost and 127.0.0.1: (certificate PEM, key PEM).
fn self_signed() -> (String, String) {
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .expect("a certificate");
    (certified.cert.pem(), certified.signing_key.serialize_pem())
}

/// Writes the certificate and key to a fresh directory; returns it (removed when dropped) and
/// their paths.
fn write_pem(name: &str, cert: &str, key: &str) -> (TempDir, PathBuf, PathBuf) {
    let dir = temp_dir(name);
    let (cert_path, key_path) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    std::fs::write(&cert_path, cert).expect("written");
    std::fs::write(&key_path, key).expect("written");
    (dir, cert_path, key_path)
}

/// A TLS server with a fresh certificate; returns it, the certificate to trust, and the
/// directory of its files (removed when dropped, after the server).
async fn tls_server(name: &str) -> (TestServer, String, TempDir) {
    let (cert, key) = self_signed();
    let (dir, cert_path, key_path) = write_pem(name, &cert, &key);
    let config = test_config()
        .tls(Some(Tls {
            cert: cert_path,
            key: key_path,
        }))
        .build()
        .unwrap();
    (TestServer::with_config(config).await, cert, dir)
}

#[tokio::test]
async fn a_tls_client_plays_a_whole_game() {
    let (server, ca, _dir) = tls_server("tls-game").await;
    let mut client = connect_tls(server.addr, &ca)
        .await
        .expect("a TLS connection");
    let game = create_with(
        &mut client,
        v1::CreateGameRequest {
            rules: Some(rules(v1::Preset::Official, 2, &[("target_score", "300")])),
            seed: Some(7),
            ..Default::default()
        },
    )
    .await;
    let tokens = join_all(&mut client, &game).await;
    let mut stream = client
        .watch_game(authed(
            v1::WatchGameRequest {
                game_id: game.game_id.clone(),
                after_seq: 0,
                include_actions: false,
                include_view: false,
            },
            &tokens[0],
        ))
        .await
        .expect("a watch stream over TLS")
        .into_inner();
    let actions = play_to_end(&mut client, &game.game_id, &tokens, 100_000, |_| 0).await;
    assert!(actions > 10, "a match takes more than {actions} actions");
    // The stream carries every event, gapless, to MatchEnded.
    let mut seq = 0;
    let mut ended = false;
    while let Some(m) = next_message(&mut stream).await {
        if let Some(v1::watch_game_response::Kind::Event(e)) = m.kind {
            assert_eq!(e.seq, seq + 1);
            seq = e.seq;
            ended = matches!(e.kind, Some(v1::game_event::Kind::MatchEnded(_)));
        }
    }
    assert!(ended, "the stream ends with MatchEnded");
    let summary = client
        .get_game(v1::GetGameRequest {
            game_id: game.game_id.clone(),
        })
        .await
        .expect("the game")
        .into_inner()
        .game
        .expect("a summary");
    assert_eq!(summary.status, v1::GameStatus::Finished as i32);
    assert_eq!(summary.seq, seq);
    server.stop().await;
}

// gRPC-Web over TLS, as a browser on an https page calls the server: a game created over it
// is the game a gRPC client over TLS reads, and a refusal carries its code and reason.
#[tokio::test]
async fn grpc_web_goes_over_tls_as_grpc_does() {
    let (server, ca, _dir) = tls_server("tls-web").await;
    let mut web = canasta_tests::web::web_client_tls(server.addr, &ca).await;
    let mut native = connect_tls(server.addr, &ca)
        .await
        .expect("a TLS connection");
    let game = web
        .create_game(v1::CreateGameRequest {
            rules: Some(rules(v1::Preset::Official, 2, &[])),
            seed: Some(3),
            ..Default::default()
        })
        .await
        .expect("created over gRPC-Web on TLS")
        .into_inner()
        .game
        .expect("a summary");
    assert_eq!(summary_of(&mut native, &game.game_id).await, game);
    let status = web
        .get_game(v1::GetGameRequest {
            game_id: "no-such-game".into(),
        })
        .await
        .expect_err("no such game");
    assert_refused(&status, tonic::Code::NotFound, "GAME_NOT_FOUND");
    server.stop().await;
}

#[tokio::test]
async fn plaintext_and_untrusting_clients_are_turned_away() {
    let (server, ca, _dir) = tls_server("tls-plain").await;
    // A plaintext HTTP/2 client: the TLS handshake fails, so no call gets through.
    let plain = Channel::from_shared(format!("http://{}", server.addr))
        .expect("a uri")
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(5))
        .connect_lazy();
    let err = CanastaServiceClient::new(plain)
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect_err("a plaintext call to a TLS server fails");
    assert!(
        matches!(
            err.code(),
            tonic::Code::Unavailable | tonic::Code::Unknown | tonic::Code::Cancelled
        ),
        "{err:?}"
    );
    // A TLS client that trusts another certificate refuses the server's.
    let (other_ca, _) = self_signed();
    let refused = match connect_tls(server.addr, &other_ca).await {
        Err(_) => true,
        Ok(mut c) => c.list_games(v1::ListGamesRequest::default()).await.is_err(),
    };
    assert!(
        refused,
        "a certificate from an untrusted authority is accepted"
    );
    // The server still serves clients that trust it.
    let mut good = connect_tls(server.addr, &ca)
        .await
        .expect("a TLS connection");
    let games = good
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("a listing over TLS")
        .into_inner();
    assert!(games.games.is_empty());
    server.stop().await;
}

#[tokio::test]
async fn unusable_tls_files_stop_the_server_with_a_message() {
    let run = |config: Config| async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a free loopback port");
        tokio::time::timeout(
            Duration::from_secs(10),
            canasta_server::run(config, listener, std::future::pending()),
        )
        .await
        .expect("the server refuses to start at once")
        .expect_err("the server refuses to start")
        .to_string()
    };
    // (A certificate without a key, or a key without one, is not a configuration: the
    // binary's flags require both, server/src/flags.rs.)
    let (cert, key) = self_signed();
    let (_dir, cert_path, key_path) = write_pem("tls-bad", &cert, &key);
    let with_tls =
        |cert: PathBuf, key: PathBuf| test_config().tls(Some(Tls { cert, key })).build().unwrap();
    // A file that cannot be read: the certificate, or the key.
    let missing = cert_path.with_file_name("missing.pem");
    let message = run(with_tls(missing.clone(), key_path.clone())).await;
    assert!(
        message.contains("cannot read the TLS certificate") && message.contains("missing.pem"),
        "{message}"
    );
    let message = run(with_tls(cert_path.clone(), missing)).await;
    assert!(
        message.contains("cannot read the TLS key") && message.contains("missing.pem"),
        "{message}"
    );
    // Files that are not PEM.
    let garbage = cert_path.with_file_name("garbage.pem");
    std::fs::write(&garbage, "not a certificate").expect("written");
    let message = run(with_tls(garbage.clone(), garbage)).await;
    assert!(message.contains("not usable"), "{message}");
}
