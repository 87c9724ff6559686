//! The Python package (`python/`): built with `pip install ./python` into a virtual
//! environment under `target/`, then its pytest suite (`python/tests`) runs there: the engine's
//! API, the encodings (every legal action's id, no hidden card in an observation), PettingZoo's
//! own API test for every preset and player count, the Gymnasium environment against the
//! built-in bots, random play over thousands of deals, and records made here by the Rust
//! engine, which the package must replay to the state hash the Rust engine computed.
//!
//! The test needs Python 3.10 or newer with its `venv` module, and Rust (maturin builds the
//! extension with cargo, in release mode, in a target directory of its own under `target/`).
//! The venv holds the pinned packages of `python/requirements.txt`, installed once, and again
//! only when the requirements change; the package itself is built and installed at every run.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use canasta_engine::bot::{Bot, GreedyBot, RandomBot};
use canasta_engine::notation::{card_ascii, to_notation};
use canasta_engine::{Card, Game, Preset, RuleSpec, Seat, Setup, Viewer};
use canasta_tests::{run, system_python, temp_dir, workspace_root};
use serde_json::{Value, json};

/// Makes the venv with the pinned packages (when the requirements changed) and builds and
/// installs the package into it. Returns the venv's interpreter.
fn python_with_package(work: &Path) -> PathBuf {
    let venv = work.join("venv");
    let python = if cfg!(windows) {
        venv.join("Scripts").join("python.exe")
    } else {
        venv.join("bin").join("python")
    };
    let requirements = workspace_root().join("python").join("requirements.txt");
    let wanted = fs::read_to_string(&requirements).expect("python/requirements.txt");
    let stamp = venv.join("canasta-requirements.txt");
    if !python.exists() || fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        let _ = fs::remove_dir_all(&venv);
        fs::create_dir_all(work).expect("a directory under target/");
        run(
            "making a Python virtual environment (on Debian and Ubuntu: apt install python3-venv)",
            Command::new(system_python("the Python package's test"))
                .arg("-m")
                .arg("venv")
                .arg(&venv),
        );
        run(
            "installing the Python package's pinned requirements with pip",
            Command::new(&python)
                .args(["-m", "pip", "install", "--disable-pip-version-check"])
                .args(["--no-input", "--quiet", "-r"])
                .arg(&requirements),
        );
        fs::write(&stamp, &wanted).expect("the venv's stamp");
    }
    // maturin (pinned in the requirements) builds the extension: no isolated build
    // environment, so nothing is fetched but the pinned packages; the build backend runs the
    // venv's `maturin`. Its own target directory keeps its release build apart from the
    // workspace's.
    let bin = python.parent().expect("the venv's bin directory");
    let path = std::env::join_paths(std::iter::once(bin.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("a PATH");
    run(
        "building and installing the package with pip install ./python",
        Command::new(&python)
            .args(["-m", "pip", "install", "--disable-pip-version-check"])
            .args(["--no-input", "--quiet", "--no-build-isolation", "--no-deps"])
            .args(["--force-reinstall"])
            .arg(workspace_root().join("python"))
            .env("CARGO_TARGET_DIR", work.join("cargo-target"))
            .env("PATH", path),
    );
    python
}

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

#[test]
fn the_python_package_passes_its_tests() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("python-package");
    let python = python_with_package(&work);
    let scratch = temp_dir("python-package");
    let replays = scratch.path().join("rust-replays.json");
    fs::write(
        &replays,
        serde_json::to_string(&rust_replays()).expect("JSON"),
    )
    .expect("the records' file");
    // Run from `work`, not from python/, so that the installed package is the one imported.
    let out = run(
        "the Python package's pytest suite (python/tests)",
        Command::new(&python)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs"])
            .arg(workspace_root().join("python").join("tests"))
            .current_dir(&work)
            .env("CANASTA_RUST_REPLAYS", &replays)
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .env_remove("PYTHONHOME")
            .env_remove("PYTHONPATH"),
    );
    println!("{out}");
    // Every test ran: the replays against the Rust engine are skipped only without the file.
    assert!(
        !out.contains("skipped"),
        "a Python test was skipped:\n{out}"
    );
    assert!(out.contains(" passed"), "pytest's summary:\n{out}");
}
