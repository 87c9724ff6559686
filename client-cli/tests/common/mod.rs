//! What the client's test binaries share: `canasta` run to its end or spawned and waited for
//! with a guard against a hang, a server in the test's process on a free loopback port, a
//! temporary directory per test, and the JSON examples of docs/cli.md with the shape to
//! compare them by.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// The client binary Cargo built for these tests.
pub const BIN: &str = env!("CARGO_BIN_EXE_canasta");

/// `canasta ARGS` run to its end.
pub fn canasta(args: &[&str]) -> Output {
    canasta_env(args, &[])
}

/// `canasta ARGS` with these environment variables, run to its end. A key in the developer's
/// own environment (`CANASTA_KEY`) is removed, so that it changes no test.
pub fn canasta_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    command(args, env).output().expect("canasta runs")
}

/// `canasta ARGS`, piped, to be waited for with [`finish_within`].
pub fn spawn(args: &[&str]) -> Child {
    spawn_env(args, &[])
}

/// `canasta ARGS` with these environment variables, piped, to be waited for with
/// [`finish_within`].
pub fn spawn_env(args: &[&str], env: &[(&str, &str)]) -> Child {
    command(args, env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("canasta runs")
}

fn command(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut c = Command::new(BIN);
    c.args(args).env_remove("CANASTA_KEY");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

/// What a process wrote to its standard output.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What a process wrote to its standard error.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Waits for a child to exit: for the end of its piped output (each pipe read to its end on
/// a thread of its own, which says when), then for its status. One that has not ended within
/// `limit` (a guard against a hang, not a measured bound) is killed, and the test fails.
pub fn finish_within(mut child: Child, limit: Duration, what: &str) -> Output {
    let (ended, pipe_ended) = std::sync::mpsc::channel();
    let read_to_end = |pipe: Option<Box<dyn Read + Send>>| {
        let ended = ended.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            let _ = ended.send(());
            bytes
        })
    };
    let out = read_to_end(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let err = read_to_end(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let in_time = (0..2).all(|_| pipe_ended.recv_timeout(limit).is_ok());
    if !in_time {
        let _ = child.kill();
    }
    let o = Output {
        status: child.wait().unwrap(),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    assert!(
        in_time,
        "{what} did not finish within {limit:?}\nstdout:\n{}\nstderr:\n{}",
        stdout(&o),
        stderr(&o)
    );
    o
}

/// A multi-threaded runtime for the servers and clients a test runs in its own process.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A server in this process on a free loopback port, configured as the tests' servers are
/// (hosting the default house players, greedy and random); stopped when the runtime ends.
pub fn server(rt: &tokio::runtime::Runtime) -> String {
    server_with(rt, canasta_tests::test_config().build().unwrap())
}

/// A server with this configuration, on a free loopback port; stopped when the runtime ends.
pub fn server_with(rt: &tokio::runtime::Runtime, config: canasta_server::Config) -> String {
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(canasta_server::run(
            config,
            listener,
            std::future::pending(),
        ));
        addr
    })
}

/// A fresh directory for a test's files, removed when dropped (by a failing test too), its
/// name unique to the run.
pub fn temp(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("canasta-cli-{name}-"))
        .tempdir()
        .unwrap()
}

/// The shape of a JSON value: the keys of its objects, the shape of an array's first element,
/// the type of anything else.
pub fn shape(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
        Value::Array(a) => Value::Array(a.first().map(shape).into_iter().collect()),
        Value::Null => "null".into(),
        Value::Bool(_) => "bool".into(),
        Value::Number(_) => "number".into(),
        Value::String(_) => "string".into(),
    }
}

/// The JSON example of docs/cli.md after the comment `<!-- name -->`.
pub fn documented(name: &str) -> serde_json::Value {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/cli.md"))
        .expect("docs/cli.md");
    let marker = format!("<!-- {name} -->\n```json\n");
    let start = doc
        .find(&marker)
        .unwrap_or_else(|| panic!("docs/cli.md has no {marker:?}"))
        + marker.len();
    let end = start + doc[start..].find("```").expect("the example ends");
    serde_json::from_str(&doc[start..end]).unwrap_or_else(|e| panic!("the {name} example: {e}"))
}
