//! The reasons of the service's errors, as any gRPC client reads them:
//!
//! - a client that knows nothing of google.rpc reads every error's reason (and a limit's retry
//!   delay, a stale request's seq) from plain response metadata, on unary calls, on a stream
//!   refused at its start, and on a stream that ends with an error after its first messages;
//! - a client that knows nothing but reflection finds the google.rpc detail types there and
//!   decodes an error's details with them;
//! - docs/protocol.md lists exactly the reasons of [`Reason::ALL`], and the server's code can
//!   send each of them.
//!
//! The same from Node.js, with nothing but the project's .proto files: `node_client.rs`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

use canasta_proto::Reason;
use canasta_proto::reason::reason_of;
use canasta_proto::v1;
use canasta_tests::*;
use prost::Message;
use prost_reflect::prost_types::FileDescriptorProto;
use prost_reflect::{DescriptorPool, DynamicMessage, Value};
use tonic::transport::Channel;
use tonic::{Code, Status};

/// What a client that knows nothing of google.rpc reads of an error: its code and the plain
/// metadata the docs name (`canasta-reason`, `canasta-retry-after-ms`, `canasta-seq`).
#[derive(Debug, PartialEq)]
struct Plain {
    code: Code,
    reason: String,
    retry_after_ms: Option<u64>,
    seq: Option<u64>,
}

fn plain(status: &Status) -> Plain {
    let m = status.metadata();
    let text = |key: &str| {
        m.get(key)
            .map(|v| v.to_str().expect("plain ASCII metadata").to_string())
    };
    let number = |key: &str| text(key).map(|v| v.parse::<u64>().expect("a whole number"));
    let plain = Plain {
        code: status.code(),
        reason: text("canasta-reason").unwrap_or_else(|| panic!("no canasta-reason: {status:?}")),
        retry_after_ms: number("canasta-retry-after-ms"),
        seq: number("canasta-seq"),
    };
    // The metadata says what the details say.
    assert_eq!(
        reason_of(status).map(Reason::as_str),
        Some(plain.reason.as_str()),
        "{status:?}"
    );
    plain
}

/// An error that gives no retry delay and no seq.
fn refusal(code: Code, reason: Reason) -> Plain {
    Plain {
        code,
        reason: reason.as_str().to_string(),
        retry_after_ms: None,
        seq: None,
    }
}

/// A started four-player game: its id, the seats' tokens, the seat to act and the game's seq.
async fn started(client: &mut Client, seed: u64) -> (String, Vec<String>, usize, u64) {
    let game = create(client, 4, seed).await;
    let tokens = join_all(client, &game).await;
    let view = view_of(client, &game.game_id, None, false)
        .await
        .view
        .expect("a view");
    let to_act = view.to_act.expect("a seat to act") as usize;
    (game.game_id, tokens, to_act, view.seq)
}

fn submit(game_id: &str, seq: u64, id: &str, kind: v1::action::Kind) -> v1::SubmitActionRequest {
    v1::SubmitActionRequest {
        game_id: game_id.to_string(),
        expected_seq: seq,
        request_id: id.to_string(),
        action: Some(v1::Action { kind: Some(kind) }),
    }
}

fn draw() -> v1::action::Kind {
    v1::action::Kind::DrawStock(v1::DrawStockAction {})
}

// Every refusal carries its reason as plain metadata, the same as its ErrorInfo: an unknown
// game, a bad argument, rule refusals, a stale request (with the current seq), a missing
// token, and a stream refused at its start.
#[tokio::test]
async fn every_refusal_carries_its_reason_as_plain_metadata() {
    let server = TestServer::start().await;
    let mut client = server.client().await;

    let status = client
        .get_game(v1::GetGameRequest {
            game_id: "nosuch".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        plain(&status),
        refusal(Code::NotFound, Reason::GameNotFound)
    );

    let status = client
        .create_game(v1::CreateGameRequest {
            rules: Some(rules(v1::Preset::Unspecified, 4, &[])),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(
        plain(&status),
        refusal(Code::InvalidArgument, Reason::InvalidEnum)
    );

    let (id, tokens, to_act, seq) = started(&mut client, 7).await;
    let status = client
        .join_game(v1::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(9),
            display_name: "late".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(
        plain(&status),
        refusal(Code::InvalidArgument, Reason::InvalidSeat)
    );

    // Rules: another seat's turn; the stock is not empty, so the pile cannot be declined.
    let other = (to_act + 1) % tokens.len();
    let status = client
        .submit_action(authed(submit(&id, seq, "a", draw()), &tokens[other]))
        .await
        .unwrap_err();
    assert_eq!(
        plain(&status),
        refusal(Code::FailedPrecondition, Reason::NotYourTurn)
    );
    let decline = v1::action::Kind::DeclinePile(v1::DeclinePileAction {});
    let status = client
        .submit_action(authed(submit(&id, seq, "b", decline), &tokens[to_act]))
        .await
        .unwrap_err();
    assert_eq!(
        plain(&status),
        refusal(Code::FailedPrecondition, Reason::StockNotEmpty)
    );

    // A stale request says where the game is.
    let status = client
        .submit_action(authed(submit(&id, seq - 1, "c", draw()), &tokens[to_act]))
        .await
        .unwrap_err();
    assert_eq!(
        plain(&status),
        Plain {
            seq: Some(seq),
            ..refusal(Code::Aborted, Reason::StaleSeq)
        }
    );

    let status = client
        .submit_action(submit(&id, seq, "d", draw()))
        .await
        .unwrap_err();
    assert_eq!(
        plain(&status),
        refusal(Code::Unauthenticated, Reason::MissingToken)
    );

    // A stream refused before its first message.
    let status = open_watch(&mut client, "nosuch", None, 0, false)
        .await
        .unwrap_err();
    assert_eq!(
        plain(&status),
        refusal(Code::NotFound, Reason::GameNotFound)
    );
    server.stop().await;
}

// The limits carry their retry delay as plain metadata too, the RetryInfo's rounded up to
// whole milliseconds: a rate limit, a request over the size limit (refused by the transport's
// layer, not the service), and a Play call that ends with an error after its first messages
// (the status then comes in trailers after the response's headers).
#[tokio::test]
async fn limits_carry_their_reason_and_retry_delay_as_plain_metadata() {
    use tonic_types::StatusExt;
    let config = test_config()
        // One request in a burst, then one every 100 s: the second is refused, whatever the
        // machine's speed.
        .requests_per_second(0.01)
        .max_message_bytes(4096)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let (id, tokens, _, _) = started(&mut client, 8).await;

    let view = |token: &str| {
        authed(
            v1::GetViewRequest {
                game_id: id.clone(),
                include_actions: false,
            },
            token,
        )
    };
    client.get_view(view(&tokens[0])).await.expect("the burst");
    let status = client.get_view(view(&tokens[0])).await.unwrap_err();
    let limited = plain(&status);
    assert_eq!(
        (limited.code, limited.reason.as_str(), limited.seq),
        (Code::ResourceExhausted, "RATE_LIMITED", None)
    );
    let delay = status
        .get_details_retry_info()
        .and_then(|r| r.retry_delay)
        .expect("a RetryInfo");
    assert_eq!(
        limited.retry_after_ms,
        Some(delay.as_nanos().div_ceil(1_000_000) as u64)
    );
    assert!(limited.retry_after_ms > Some(0));

    let huge = "x".repeat(8000);
    let status = client
        .create_game(v1::CreateGameRequest {
            rules: Some(rules(v1::Preset::Official, 4, &[("note", &huge)])),
            ..Default::default()
        })
        .await
        .unwrap_err();
    let too_large = plain(&status);
    assert_eq!(
        (too_large.code, too_large.reason.as_str()),
        (Code::ResourceExhausted, "MESSAGE_TOO_LARGE")
    );
    assert!(too_large.retry_after_ms > Some(0));

    // A Play call of another seat: opened (the first request of its token's budget), then a
    // message over the limit ends it.
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let watch = v1::PlayRequest {
        kind: Some(v1::play_request::Kind::Watch(v1::WatchGameRequest {
            game_id: id.clone(),
            after_seq: 0,
            include_actions: false,
            include_view: false,
        })),
    };
    tx.send(watch).await.unwrap();
    let mut stream = client
        .play(authed(
            tokio_stream::wrappers::ReceiverStream::new(rx),
            &tokens[1],
        ))
        .await
        .expect("the call opens")
        .into_inner();
    stream
        .message()
        .await
        .expect("a message")
        .expect("the first event");
    let oversized = v1::PlayRequest {
        kind: Some(v1::play_request::Kind::Submit(submit(
            &id,
            0,
            &huge,
            draw(),
        ))),
    };
    tx.send(oversized).await.unwrap();
    let status = loop {
        match stream.message().await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the call ended without an error"),
            Err(status) => break status,
        }
    };
    let ended = plain(&status);
    assert_eq!(
        (ended.code, ended.reason.as_str()),
        (Code::ResourceExhausted, "MESSAGE_TOO_LARGE")
    );
    assert!(ended.retry_after_ms > Some(0));
    server.stop().await;
}

// ----- reflection -----

/// A client of server reflection v1 that fetches the files a generic client needs: the one
/// defining a symbol, then each dependency by name, as grpcurl does.
struct Reflection {
    client: tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient<Channel>,
}

impl Reflection {
    /// The serialized descriptors reflection answers for one request.
    async fn ask(
        &mut self,
        request: tonic_reflection::pb::v1::server_reflection_request::MessageRequest,
    ) -> Vec<Vec<u8>> {
        use tonic_reflection::pb::v1::ServerReflectionRequest;
        use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(request),
        };
        let mut answers = self
            .client
            .server_reflection_info(tokio_stream::iter([request]))
            .await
            .expect("a reflection stream")
            .into_inner();
        let answer = answers
            .message()
            .await
            .expect("an answer")
            .expect("one answer");
        match answer.message_response.expect("a response") {
            MessageResponse::FileDescriptorResponse(f) => f.file_descriptor_proto,
            MessageResponse::ErrorResponse(e) => panic!("reflection refused: {e:?}"),
            other => panic!("{other:?}"),
        }
    }

    /// The file defining `symbol` and, transitively, the files it imports.
    async fn files_for(&mut self, symbol: &str) -> BTreeMap<String, FileDescriptorProto> {
        use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
        let mut files = BTreeMap::new();
        let mut pending = self
            .ask(MessageRequest::FileContainingSymbol(symbol.into()))
            .await;
        while let Some(bytes) = pending.pop() {
            let file = FileDescriptorProto::decode(bytes.as_slice()).expect("a file descriptor");
            for dependency in &file.dependency {
                if !files.contains_key(dependency) {
                    let more = self
                        .ask(MessageRequest::FileByFilename(dependency.clone()))
                        .await;
                    pending.extend(more);
                }
            }
            files.insert(file.name().to_string(), file);
        }
        files
    }
}

// Reflection answers FileContainingSymbol for google.rpc.ErrorInfo (and the other detail types
// the server sends) with a descriptor that defines it, and serves every file it imports: with
// those alone, a client decodes a real error's grpc-status-details-bin and reads the reason,
// the field at fault and the retry delay.
#[tokio::test]
async fn reflection_serves_the_error_detail_types_and_they_decode_the_details() {
    let config = test_config().requests_per_second(0.01).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut reflection = Reflection {
        client: tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient::new(
            channel(server.addr).await,
        ),
    };
    let mut files = BTreeMap::new();
    for symbol in [
        "google.rpc.Status",
        "google.rpc.ErrorInfo",
        "google.rpc.BadRequest",
        "google.rpc.RetryInfo",
    ] {
        let found = reflection.files_for(symbol).await;
        let (package, name) = symbol.rsplit_once('.').expect("a package");
        assert!(
            found
                .values()
                .any(|f| f.package() == package && f.message_type.iter().any(|m| m.name() == name)),
            "the answer for {symbol} defines it: {:?}",
            found.keys().collect::<Vec<_>>()
        );
        files.extend(found);
    }
    assert_eq!(
        files.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "google/protobuf/any.proto",
            "google/protobuf/duration.proto",
            "google/rpc/error_details.proto",
            "google/rpc/status.proto",
        ]
    );
    let info = &files["google/rpc/error_details.proto"]
        .message_type
        .iter()
        .find(|m| m.name() == "ErrorInfo")
        .expect("ErrorInfo")
        .field;
    let fields: Vec<(&str, i32)> = info.iter().map(|f| (f.name(), f.number())).collect();
    assert_eq!(fields, [("reason", 1), ("domain", 2), ("metadata", 3)]);
    let mut pool = DescriptorPool::new();
    pool.add_file_descriptor_protos(files.into_values())
        .expect("the files describe every type they use");

    // Two real errors, decoded with the pool alone.
    let mut client = server.client().await;
    let game = create(&mut client, 4, 9).await;
    let status = client
        .join_game(v1::JoinGameRequest {
            game_id: game.game_id.clone(),
            seat: None,
            display_name: "a\u{7}bell".into(),
        })
        .await
        .unwrap_err();
    let details = decode_details(&pool, &status);
    assert_eq!(
        details["google.rpc.ErrorInfo"],
        ["reason=BAD_DISPLAY_NAME", "domain=canasta.v1"]
    );
    assert_eq!(details["google.rpc.BadRequest"], ["field=display_name"]);
    assert_eq!(
        status.metadata().get("canasta-reason").unwrap(),
        "BAD_DISPLAY_NAME"
    );

    let (id, tokens, _, _) = started(&mut client, 10).await;
    let view = || {
        authed(
            v1::GetViewRequest {
                game_id: id.clone(),
                include_actions: false,
            },
            &tokens[1],
        )
    };
    client.get_view(view()).await.expect("the burst");
    let status = client.get_view(view()).await.unwrap_err();
    let details = decode_details(&pool, &status);
    assert_eq!(
        details["google.rpc.ErrorInfo"],
        ["reason=RATE_LIMITED", "domain=canasta.v1"]
    );
    let retry = &details["google.rpc.RetryInfo"];
    assert_eq!(retry.len(), 1);
    assert!(retry[0].starts_with("retry_delay="), "{retry:?}");
    server.stop().await;
}

/// Decodes a status's details as a generic client does, with descriptors from reflection:
/// `google.rpc.Status`, then each `Any` by its type URL. Returns, by type, the fields read
/// (`reason=…`, `domain=…`, each violation's `field=…`, `retry_delay=…`).
fn decode_details(pool: &DescriptorPool, status: &Status) -> BTreeMap<String, Vec<String>> {
    let rpc_status = pool
        .get_message_by_name("google.rpc.Status")
        .expect("google.rpc.Status");
    let decoded =
        DynamicMessage::decode(rpc_status, status.details()).expect("a google.rpc.Status");
    assert_eq!(
        decoded.get_field_by_name("code").unwrap().as_i32(),
        Some(status.code() as i32)
    );
    let mut found = BTreeMap::new();
    let details = decoded.get_field_by_name("details").expect("details");
    for any in details.as_list().expect("a list") {
        let any = any.as_message().expect("an Any");
        let url = any.get_field_by_name("type_url").unwrap();
        let url = url.as_str().expect("a type URL");
        let name = url
            .strip_prefix("type.googleapis.com/")
            .unwrap_or_else(|| panic!("{url}"));
        let descriptor = pool
            .get_message_by_name(name)
            .unwrap_or_else(|| panic!("reflection describes {name}"));
        let value = any.get_field_by_name("value").unwrap();
        let message = DynamicMessage::decode(descriptor, value.as_bytes().expect("bytes").clone())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut fields = Vec::new();
        match name {
            "google.rpc.ErrorInfo" => {
                for f in ["reason", "domain"] {
                    let v = message.get_field_by_name(f).unwrap();
                    fields.push(format!("{f}={}", v.as_str().unwrap()));
                }
            }
            "google.rpc.BadRequest" => {
                let violations = message.get_field_by_name("field_violations").unwrap();
                for v in violations.as_list().unwrap() {
                    let field = v.as_message().unwrap().get_field_by_name("field").unwrap();
                    fields.push(format!("field={}", field.as_str().unwrap()));
                }
            }
            "google.rpc.RetryInfo" => {
                let delay = message.get_field_by_name("retry_delay").unwrap();
                let delay = delay.as_message().expect("a Duration");
                let part = |f: &str| match delay.get_field_by_name(f).as_deref() {
                    Some(Value::I64(n)) => *n,
                    Some(Value::I32(n)) => i64::from(*n),
                    other => panic!("{f}: {other:?}"),
                };
                assert!(part("seconds") > 0 || part("nanos") > 0, "a delay");
                fields.push(format!(
                    "retry_delay={}s{}ns",
                    part("seconds"),
                    part("nanos")
                ));
            }
            other => panic!("an unexpected detail {other}"),
        }
        found.insert(name.to_string(), fields);
    }
    found
}

// ----- the documented list -----

/// The gRPC codes, which docs/protocol.md may quote beside the reasons.
const GRPC_CODES: &[&str] = &[
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
];

/// The reasons docs/protocol.md's "Errors" section lists: every `CODE` quoted there (the
/// table and the rules' list), the gRPC codes aside.
fn documented_reasons() -> BTreeSet<String> {
    let protocol = fs::read_to_string(workspace_root().join("docs").join("protocol.md"))
        .expect("docs/protocol.md");
    let start = protocol.find("\n## Errors").expect("an Errors section");
    let section = &protocol[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    section
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|w| w.len() > 1 && w.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'))
        .filter(|w| !GRPC_CODES.contains(w))
        .map(str::to_string)
        .collect()
}

// docs/protocol.md lists every reason of Reason::ALL, and no other: a reason added to the code
// is documented, and the docs promise no reason the protocol does not have.
#[test]
fn the_protocol_documents_every_reason_and_no_other() {
    let documented = documented_reasons();
    let all: BTreeSet<String> = Reason::ALL.iter().map(|r| r.as_str().to_string()).collect();
    let undocumented: Vec<&String> = all.difference(&documented).collect();
    assert!(
        undocumented.is_empty(),
        "docs/protocol.md (Errors) does not document {undocumented:?}"
    );
    let unknown: Vec<&String> = documented.difference(&all).collect();
    assert!(
        unknown.is_empty(),
        "docs/protocol.md (Errors) lists {unknown:?}, which are not reasons (Reason::ALL)"
    );
    // The plain metadata is documented with them.
    let protocol = fs::read_to_string(workspace_root().join("docs").join("protocol.md")).unwrap();
    for key in ["canasta-reason", "canasta-retry-after-ms", "canasta-seq"] {
        assert!(
            protocol.contains(&format!("`{key}`")),
            "{key} is documented"
        );
    }
}

/// The `Reason::X` named in the code of the Rust files under `dir` (not in comments, nor in
/// the test module that ends a file).
fn reasons_named_in(dir: &Path, found: &mut BTreeMap<String, Vec<String>>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            reasons_named_in(&path, found);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = fs::read_to_string(&path).expect("a source file");
        // Test modules (`#[cfg(test)] mod … {` to the `}` that closes it at the margin, as
        // rustfmt lays them out) are left out.
        let mut in_tests = false;
        let mut previous = "";
        let mut code = Vec::new();
        for line in text.lines() {
            if previous == "#[cfg(test)]" && line.starts_with("mod ") && line.ends_with('{') {
                in_tests = true;
            } else if in_tests && line == "}" {
                in_tests = false;
            } else if !in_tests && !line.trim_start().starts_with("//") {
                code.push(line);
            }
            previous = line;
        }
        for line in code {
            let mut rest = line;
            while let Some(at) = rest.find("Reason::") {
                let before = rest[..at].chars().next_back();
                let after = &rest[at + "Reason::".len()..];
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                // A variant (`Reason::SeatTaken`), not `Reason::from` or `Reason::ALL`.
                let variant = name.starts_with(|c: char| c.is_ascii_uppercase())
                    && name.chars().any(|c| c.is_ascii_lowercase());
                if variant && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    found
                        .entry(name)
                        .or_default()
                        .push(path.display().to_string());
                }
                rest = after;
            }
        }
    }
}

// Every reason is sent by some code: named by the server's or the protocol crate's code (the
// rules' reasons by the mapping from the engine's errors), outside tests. So the docs list no
// reason that the server cannot send.
#[test]
fn every_reason_is_sent_by_some_code() {
    let mut named = BTreeMap::new();
    for dir in [
        workspace_root().join("server").join("src"),
        workspace_root().join("proto").join("src"),
    ] {
        reasons_named_in(&dir, &mut named);
    }
    let never: Vec<&str> = Reason::ALL
        .iter()
        .filter(|r| !named.contains_key(&format!("{r:?}")))
        .map(|r| r.as_str())
        .collect();
    assert!(
        never.is_empty(),
        "no code of server/src or proto/src sends {never:?}: remove them from Reason (and the \
         docs), or send them"
    );
    // The scan reads what it should: the reasons of the service and of the rules' mapping.
    assert!(
        named["GameNotFound"]
            .iter()
            .any(|f| f.ends_with("errors.rs"))
    );
    assert!(named["PileFrozen"].iter().any(|f| f.ends_with("reason.rs")));
    let known: BTreeSet<String> = Reason::ALL.iter().map(|r| format!("{r:?}")).collect();
    for name in named.keys() {
        assert!(known.contains(name), "Reason::{name} is not a reason");
    }
}
