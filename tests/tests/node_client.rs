//! A client in a language other than Rust reads the reason of the service's errors: the
//! Node.js client of `tests/node/reasons.js` (@grpc/grpc-js and @grpc/proto-loader, loading
//! `proto/canasta/v1/service.proto` at run time; protobufjs for `proto/google/rpc/*.proto`)
//! reads each error's reason from the plain metadata `canasta-reason` and from the decoded
//! google.rpc.ErrorInfo detail, a limit's delay from `canasta-retry-after-ms` and from the
//! RetryInfo, a stale request's seq from `canasta-seq` — with nothing but the project's files.
//!
//! The test needs Node.js 18 or newer and npm. It installs the pinned packages of
//! `tests/node/package-lock.json` with `npm ci` under `target/` (the only network it uses),
//! once, and again only when the lock file changes.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use canasta_tests::*;
use serde_json::{Value, json};

/// A directory under `target/` holding the client's pinned packages and a copy of the client,
/// made once per test process.
fn node_client() -> &'static (String, PathBuf) {
    static CLIENT: OnceLock<(String, PathBuf)> = OnceLock::new();
    CLIENT.get_or_init(|| {
        let (node, npm) = node_and_npm("the Node.js client's test");
        let source = workspace_root().join("tests").join("node");
        let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("node-client");
        npm_ci("the Node.js client's", &npm, &source, &work);
        // The client beside its packages (require() looks for them from the script's place),
        // under this process's name: the script changes without a new install.
        let script = work.join(format!("reasons-{}.js", std::process::id()));
        fs::copy(source.join("reasons.js"), &script).expect("the client's copy");
        (node, script)
    })
}

/// Runs the Node.js client on `calls` against `server`; returns its report of each call, by
/// name.
fn node_calls(server: std::net::SocketAddr, calls: Value) -> serde_json::Map<String, Value> {
    let (node, script) = node_client();
    let input = json!({
        "server": server.to_string(),
        "proto": workspace_root().join("proto"),
        "calls": calls,
    });
    let mut child = Command::new(node)
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("the calls are sent");
    let out = child.wait_with_output().expect("node ends");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the Node.js client failed ({}):\n{stdout}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
        .lines()
        .map(|l| {
            let report: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"));
            (report["name"].as_str().expect("a name").to_string(), report)
        })
        .collect()
}

/// The detail of `type` in a report, as protobufjs's toJSON gives it.
fn detail<'a>(report: &'a Value, type_name: &str) -> &'a Value {
    report["details"]
        .as_array()
        .expect("the details")
        .iter()
        .find(|d| d["type"] == type_name)
        .map(|d| &d["message"])
        .unwrap_or_else(|| panic!("no {type_name} in {report}"))
}

/// Checks a report: the gRPC code, and the reason read both ways.
fn assert_refused(report: &Value, code: tonic::Code, reason: &str) {
    assert_eq!(report["code"], code as i32, "{report}");
    assert_eq!(report["reason"], reason, "the metadata: {report}");
    let info = detail(report, "google.rpc.ErrorInfo");
    assert_eq!(
        (&info["reason"], &info["domain"]),
        (&json!(reason), &json!("canasta.v1")),
        "the ErrorInfo: {report}"
    );
}

// From Node.js, with the project's .proto files alone: an unknown game (a unary call and a
// stream), a bad argument, a rule refusal, a stale request and a rate limit each give their
// reason in the metadata and in the decoded ErrorInfo, with the BadRequest's field, the seq and
// the retry delay (metadata and RetryInfo agreeing).
#[tokio::test(flavor = "multi_thread")]
async fn a_node_client_reads_the_reasons_from_the_metadata_and_the_details() {
    let config = test_config()
        // One request in a burst per token, then one every 100 s.
        .requests_per_second(0.01)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let game = create(&mut client, 4, 11).await;
    let tokens = join_all(&mut client, &game).await;
    let view = view_of(&mut client, &game.game_id, None, false)
        .await
        .view
        .expect("a view");
    let to_act = view.to_act.expect("a seat to act") as usize;
    let other = (to_act + 1) % tokens.len();
    let id = game.game_id.clone();
    let submit = |seq: u64, request_id: &str, token: &str| {
        json!({
            "method": "SubmitAction",
            "request": {
                "game_id": id,
                "expected_seq": seq.to_string(),
                "request_id": request_id,
                "action": {"draw_stock": {}},
            },
            "token": token,
        })
    };
    let mut calls = vec![
        json!({"name": "not_found", "method": "GetGame", "request": {"game_id": "nosuch"}}),
        json!({"name": "stream_not_found", "method": "WatchGame", "stream": true,
               "request": {"game_id": "nosuch"}}),
        json!({"name": "bad_argument", "method": "CreateGame",
               "request": {"rules": {"preset": "PRESET_UNSPECIFIED", "player_count": 4}}}),
    ];
    let mut rule = submit(view.seq, "a", &tokens[other]);
    rule["name"] = json!("rule");
    let mut stale = submit(view.seq - 1, "b", &tokens[to_act]);
    stale["name"] = json!("stale");
    // The stale request spent the seat's burst: its next call is limited.
    let limited = json!({"name": "rate_limited", "method": "GetView", "until_error": 5,
        "request": {"game_id": id}, "token": tokens[to_act]});
    calls.extend([rule, stale, limited]);

    let server_addr = server.addr;
    let reports = tokio::task::spawn_blocking(move || node_calls(server_addr, json!(calls)))
        .await
        .expect("the Node.js client ran");

    use tonic::Code;
    assert_refused(&reports["not_found"], Code::NotFound, "GAME_NOT_FOUND");
    assert_refused(
        &reports["stream_not_found"],
        Code::NotFound,
        "GAME_NOT_FOUND",
    );

    let bad = &reports["bad_argument"];
    assert_refused(bad, Code::InvalidArgument, "INVALID_ENUM");
    let violations = &detail(bad, "google.rpc.BadRequest")["field_violations"];
    assert_eq!(violations[0]["field"], "rules.preset", "{bad}");

    assert_refused(&reports["rule"], Code::FailedPrecondition, "NOT_YOUR_TURN");
    assert!(
        reports["rule"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("turn")),
        "the message is for people: {}",
        reports["rule"]
    );

    let stale = &reports["stale"];
    assert_refused(stale, Code::Aborted, "STALE_SEQ");
    assert_eq!(stale["seq"], view.seq.to_string(), "{stale}");
    let info = detail(stale, "google.rpc.ErrorInfo");
    assert_eq!(info["metadata"]["seq"], view.seq.to_string(), "{stale}");

    let limited = &reports["rate_limited"];
    assert_refused(limited, Code::ResourceExhausted, "RATE_LIMITED");
    let ms = limited["retry_after_ms"].as_u64().expect("a delay");
    assert!(ms > 0, "{limited}");
    // protobufjs gives a Duration as {seconds (a string: an int64), nanos}.
    let delay = &detail(limited, "google.rpc.RetryInfo")["retry_delay"];
    let seconds: u64 = delay["seconds"]
        .as_str()
        .map_or_else(|| delay["seconds"].as_u64(), |s| s.parse().ok())
        .unwrap_or(0);
    let nanos = delay["nanos"].as_u64().unwrap_or(0);
    assert_eq!(
        ms,
        (seconds * 1_000_000_000 + nanos).div_ceil(1_000_000),
        "the metadata's delay is the RetryInfo's, rounded up: {limited}"
    );

    // Nothing the client did changed the game.
    let after = view_of(&mut client, &game.game_id, None, false).await;
    assert_eq!(after.view.map(|v| v.seq), Some(view.seq));
    server.stop().await;
}
