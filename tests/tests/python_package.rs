//! The Python package (`python/`): built with `pip install ./python` into a virtual
//! environment under `target/`, then its pytest suite (`python/tests`) runs there: the engine's
//! API, the encodings (every legal action's id, no hidden card in an observation), PettingZoo's
//! own API test for every preset and player count, the Gymnasium environment against the
//! built-in bots, random play over thousands of deals, and records made here by the Rust
//! engine, which the package must replay to the state hash the Rust engine computed.
//!
//! The network client's tests (`python/tests/test_client.py`) play against servers this test
//! starts on free loopback ports, named to pytest by environment variables: one with the tests'
//! defaults (`CANASTA_TEST_SERVER`), one that allows a seat 20 requests a second
//! (`CANASTA_TEST_LIMITED_SERVER`), and one over TLS (`CANASTA_TEST_TLS_SERVER`, its certificate
//! authority's PEM in the file `CANASTA_TEST_TLS_CA`).
//!
//! The test needs Python 3.10 or newer with its `venv` module, and Rust (maturin builds the
//! extension with cargo, in release mode, in a target directory of its own under `target/`):
//! see `canasta_tests::python_with_package`.

use std::fs;
use std::path::Path;
use std::process::Command;

use canasta_engine::bot::{Bot, GreedyBot, RandomBot};
use canasta_engine::notation::{card_ascii, to_notation};
use canasta_engine::{Card, Game, Preset, RuleSpec, Seat, Setup, Viewer};
use canasta_server::Tls;
use canasta_tests::{TestServer, python_with_package, run, temp_dir, test_config, workspace_root};
use serde_json::{Value, json};

/// A record in the format of `canasta export` (canasta-record/1), as the client writes it.
fn record(setup: &Setup, actions: &[(Seat, canasta_engine::Action)]) -> Value {
    let options: serde_json::Map<String, Value> = setup
        .rules
        .options
        .entries()
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::String(v)))
        .collect();
    let orders: Vec<String> = setup
        .card_orders
        .iter()
        .map(|o| {
            o.iter()
                .map(|c| card_ascii(*c))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    json!({
        "format": "canasta-record/1",
        "game_id": "",
        "rules": {
            "preset": setup.rules.preset.name(),
            "players": setup.rules.players,
            "options": options,
        },
        "seed": setup.seed,
        "card_orders": orders,
        "first_dealer": setup.first_dealer.map(|s| s.0),
        "start_scores": setup.start_scores,
        "actions": actions
            .iter()
            .map(|(s, a)| json!([s.0, to_notation(a)]))
            .collect::<Vec<_>>(),
    })
}

/// Plays `setup` with greedy and random bots for `limit` actions (or to the match's end) and
/// returns the record with the Rust engine's state hash and scores.
fn case(setup: Setup, limit: usize) -> Value {
    let mut game = Game::new(&setup).expect("a valid setup");
    let mut bots: Vec<Box<dyn Bot>> = (0..setup.rules.players)
        .map(|i| -> Box<dyn Bot> {
            if i % 2 == 0 {
                Box::new(GreedyBot::new())
            } else {
                Box::new(RandomBot::new(u64::from(i)))
            }
        })
        .collect();
    let mut actions = Vec::new();
    while let Some(seat) = game.to_act() {
        if actions.len() >= limit {
            break;
        }
        let view = game.view(Viewer::Seat(seat));
        let legal = game.legal().expect("choices");
        let action = bots[seat.index()].choose(&view, &legal);
        game.apply(seat, &action).expect("a bot's legal action");
        actions.push((seat, action));
    }
    json!({
        "record": record(&setup, &actions),
        "state_hash": game.state_hash(),
        "scores": game.scores(),
    })
}

/// Records of every preset, with options, start scores and a prearranged deck, made and hashed
/// by the Rust engine.
fn rust_replays() -> Vec<Value> {
    let mut cases = Vec::new();
    for (i, preset) in Preset::ALL.into_iter().enumerate() {
        let players = if preset == Preset::Samba { 3 } else { 4 };
        let setup = Setup::seeded(RuleSpec::new(preset, players), 1000 + i as u64);
        cases.push(case(setup, 2000));
    }
    let spec = RuleSpec::new(Preset::Official, 2)
        .with("target_score", "2000")
        .expect("an option");
    let mut setup = Setup::seeded(spec, 77);
    setup.start_scores = vec![1500, -200];
    cases.push(case(setup, usize::MAX));
    // A prearranged deck: the pack in a fixed order, turned around.
    let probe = Game::new(&Setup::seeded(RuleSpec::new(Preset::Wiener, 3), 5)).expect("a game");
    let mut deck: Vec<Card> = probe.all_cards().to_vec();
    deck.reverse();
    let mut setup = Setup::seeded(RuleSpec::new(Preset::Wiener, 3), 5);
    setup.card_orders = vec![deck];
    setup.first_dealer = Some(Seat(2));
    cases.push(case(setup, 600));
    cases
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_package_passes_its_tests() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let python = tokio::task::spawn_blocking(move || python_with_package(tmp))
        .await
        .expect("the package's installation");
    let scratch = temp_dir("python-package");
    let replays = scratch.path().join("rust-replays.json");
    fs::write(
        &replays,
        serde_json::to_string(&rust_replays()).expect("JSON"),
    )
    .expect("the records' file");

    let server = TestServer::start().await;
    let limited =
        TestServer::with_config(test_config().requests_per_second(20.0).build().unwrap()).await;
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).expect("a certificate");
    let (ca, cert, key) = (
        scratch.path().join("ca.pem"),
        scratch.path().join("cert.pem"),
        scratch.path().join("key.pem"),
    );
    fs::write(&ca, certified.cert.pem()).expect("the certificate is written");
    fs::write(&cert, certified.cert.pem()).expect("the certificate is written");
    fs::write(&key, certified.signing_key.serialize_pem()).expect("the key is written");
    let tls =
        TestServer::with_config(test_config().tls(Some(Tls { cert, key })).build().unwrap()).await;

    // Run from `work`, not from python/, so that the installed package is the one imported.
    let work = tmp.join("python-package");
    let mut pytest = Command::new(&python);
    pytest
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"])
        .arg(workspace_root().join("python").join("tests"))
        .current_dir(&work)
        .env("CANASTA_RUST_REPLAYS", &replays)
        .env("CANASTA_TEST_SERVER", server.addr.to_string())
        .env("CANASTA_TEST_LIMITED_SERVER", limited.addr.to_string())
        .env("CANASTA_TEST_TLS_SERVER", tls.addr.to_string())
        .env("CANASTA_TEST_TLS_CA", &ca)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env_remove("PYTHONHOME")
        .env_remove("PYTHONPATH");
    // pytest runs on a blocking thread while the servers serve on this runtime.
    let out = tokio::task::spawn_blocking(move || {
        run(
            "the Python package's pytest suite (python/tests)",
            &mut pytest,
        )
    })
    .await
    .expect("pytest's thread");
    println!("{out}");
    // Every test ran: the replays against the Rust engine and the client's tests are skipped
    // only without the file and the servers.
    assert!(
        !out.contains("skipped"),
        "a Python test was skipped:\n{out}"
    );
    assert!(out.contains(" passed"), "pytest's summary:\n{out}");
    server.stop().await;
    limited.stop().await;
    tls.stop().await;
}
