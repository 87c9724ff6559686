//! The binaries' packages resolve their dependencies' features as the whole workspace does, so
//! that the README's `cargo build --release` followed by `cargo run --release -p
//! canasta-server` (or `-p canasta-cli`) builds nothing again. Cargo builds a dependency once
//! per set of features: when `-p canasta-server` alone asks tonic for fewer features than the
//! workspace (the client's `tls-webpki-roots`), tonic and the seven crates above it are
//! compiled a second time. The comparison is with what `cargo build` builds: the workspace's
//! default members (the Python package's crate, which maturin builds on its own with PyO3's
//! macros and their features of `syn`, is not one).
//!
//! The builds without default features link less: `canasta` without `local` no server and no
//! SQLite, the server library without `cli` none of the binary's dependencies.
//!
//! The checks read `cargo tree` (the resolved graph, in a second) rather than building twice
//! (minutes); they run offline, from the lock file and the registry a build has fetched.

use std::collections::BTreeSet;
use std::process::Command;

/// Each unit the dependency graph holds for these `cargo tree` arguments: a package and the
/// features it is built with (a package built for build scripts and for the target may appear
/// twice, with its features for each).
fn units(args: &[&str]) -> BTreeSet<String> {
    let root = canasta_tests::workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["tree", "--offline", "--locked", "-e", "normal,build"])
        .args(["--prefix", "none", "--format", "{p}|{f}"])
        .args(args)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?} failed (it needs the registry a build fetched):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.replace(" (*)", "").replace(" (proc-macro)", ""))
        .filter(|l| !l.trim().is_empty())
        .collect()
}

#[test]
fn the_binaries_packages_resolve_features_as_the_workspace_does() {
    // No package named: the default members, as `cargo build` selects them.
    let workspace = units(&[]);
    assert!(
        workspace.iter().any(|u| u.starts_with("tonic ")),
        "the graph was read: {workspace:#?}"
    );
    for package in ["canasta-server", "canasta-cli"] {
        let alone = units(&["-p", package]);
        let rebuilt: Vec<&String> = alone.difference(&workspace).collect();
        assert!(
            rebuilt.is_empty(),
            "`cargo build -p {package}` builds these crates with other features than `cargo \
             build` (PACKAGE|FEATURES), so it compiles them again after a build of the \
             workspace: {rebuilt:#?}\nenable the same features in every package that asks for \
             the crate (`cargo tree -e features -i CRATE` shows who asks for which)"
        );
    }
}

/// Whether the graph holds the package `name` (whatever its version and features).
fn holds(graph: &BTreeSet<String>, name: &str) -> bool {
    graph.iter().any(|u| u.starts_with(&format!("{name} ")))
}

// `canasta` built without its default feature `local` (`cargo build -p canasta-cli
// --no-default-features`) is a client only: no server crate, no SQLite (bundled C, the
// longest part of its build). (.ci/run builds it, so that it keeps compiling.)
#[test]
fn a_client_without_the_local_feature_links_no_server_and_no_sqlite() {
    let full = units(&["-p", "canasta-cli"]);
    for package in ["canasta-server", "rusqlite", "libsqlite3-sys"] {
        assert!(holds(&full, package), "the default client links {package}");
    }
    let slim = units(&["-p", "canasta-cli", "--no-default-features"]);
    assert!(holds(&slim, "tonic"), "the graph was read: {slim:#?}");
    for package in ["canasta-server", "rusqlite", "libsqlite3-sys"] {
        assert!(
            !holds(&slim, package),
            "`canasta-cli --no-default-features` links {package}: the in-process server (and \
             what only it needs) belongs behind the feature `local`"
        );
    }
}

// The server library without the binary's feature `cli` (`default-features = false`, for a
// program that embeds the server) has none of the binary's dependencies: its configuration is
// a plain value, not a command line. (.ci/run checks that it compiles so.)
#[test]
fn the_server_library_needs_none_of_the_binarys_dependencies() {
    let binary = ["clap", "tracing-subscriber", "mimalloc"];
    let full = units(&["-p", "canasta-server"]);
    for package in binary {
        assert!(holds(&full, package), "the binary links {package}");
    }
    let library = units(&["-p", "canasta-server", "--no-default-features"]);
    assert!(holds(&library, "tonic"), "the graph was read: {library:#?}");
    for package in binary {
        assert!(
            !holds(&library, package),
            "the server library without `cli` links {package}: only the binary needs it"
        );
    }
}
