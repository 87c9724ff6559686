//! The fuzz targets' corpus and every input that ever failed them, replayed through the
//! targets' bodies (`canasta_fuzz::targets`): what the fuzzers found keeps being checked by
//! `cargo test`, without libFuzzer. `fuzz/README.md` says how the corpus grows.

use std::path::PathBuf;

use canasta_fuzz::targets;

/// The inputs of `target`: its seed corpus (`fuzz/corpus/TARGET`) and its regressions
/// (`fuzz/regressions/TARGET`), in a stable order.
fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let fuzz = canasta_tests::workspace_root().join("fuzz");
    let mut files = Vec::new();
    for kind in ["corpus", "regressions"] {
        let dir = fuzz.join(kind).join(target);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_file() && path.extension().is_none() {
                let bytes = std::fs::read(&path).expect("a readable input");
                files.push((path, bytes));
            }
        }
    }
    files.sort();
    files
}

/// Replays every input of `target` through `run`, naming the input that panics.
fn replay(target: &str, run: fn(&[u8])) {
    let inputs = inputs(target);
    assert!(
        inputs.len() >= 10,
        "{target}: {} inputs in fuzz/corpus and fuzz/regressions",
        inputs.len()
    );
    for (path, bytes) in &inputs {
        let result = std::panic::catch_unwind(|| run(bytes));
        assert!(result.is_ok(), "{target} fails on {}", path.display());
    }
    eprintln!("{target}: {} inputs replayed", inputs.len());
}

#[test]
fn the_apply_actions_corpus_replays() {
    replay("apply_actions", targets::apply_actions::run);
}

#[test]
fn the_convert_corpus_replays() {
    replay("convert", targets::convert::run);
}

#[test]
fn the_notation_corpus_replays() {
    replay("notation", targets::notation::run);
}
