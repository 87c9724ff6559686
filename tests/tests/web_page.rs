//! The server's own web page: its files served on the gRPC port (over HTTP/1.1 and HTTP/2,
//! with their types, a strict Content-Security-Policy, 404 for anything else, no way out of the
//! embedded files), and the page itself in a real browser.
//!
//! The browser test drives Debian's Chromium (`apt-get install chromium`; `$CHROMIUM` names
//! another) with playwright-core, pinned in `web/package-lock.json` and installed with `npm ci`
//! under `target/` (no browser is downloaded). It runs `web/test/page.mjs` against a server on
//! 127.0.0.1:0: the lobby, a game created with the server's built-in bots in three seats, the
//! person's seat played by clicking through the whole deal (drawing, taking the pile,
//! melding, discarding) to its score, a reload mid-game, a spectator's page that never shows a
//! hand, and the finished game's replay to its end, with no console error. Its screenshots are
//! kept under `target/web-screenshots/`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::Command;
use std::time::Duration;

use canasta_proto::v1;
use canasta_tests::*;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tonic::body::Body;
use tonic::codegen::{Service, http};

/// A guard against a hang: every answer comes within it.
const READ_LIMIT: Duration = Duration::from_secs(10);

/// The CSP every answer of the page carries (server/src/page.rs).
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; \
                   frame-ancestors 'none'";

/// An HTTP/1.1 answer: its status, its headers (names in lower case) and its body.
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 request (`Connection: close`), its answer read to the end.
async fn http1(addr: SocketAddr, method: &str, path: &str, headers: &[(&str, &str)]) -> Answer {
    let mut stream = TcpStream::connect(addr).await.expect("the server accepts");
    let mut head = format!("{method} {path} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await.expect("sent");
    let mut bytes = Vec::new();
    tokio::time::timeout(READ_LIMIT, stream.read_to_end(&mut bytes))
        .await
        .expect("the server answers within 10 s")
        .expect("an answer");
    let split = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("an answer's head");
    let head = String::from_utf8(bytes[..split].to_vec()).expect("a text head");
    let mut lines = head.lines();
    let status_line = lines.next().expect("a status line");
    assert!(status_line.starts_with("HTTP/1.1 "), "{status_line:?}");
    let status = status_line
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers = lines
        .map(|l| {
            let (n, v) = l.split_once(':').expect("a header");
            (n.to_ascii_lowercase(), v.trim().to_string())
        })
        .collect();
    Answer {
        status,
        headers,
        body: bytes[split + 4..].to_vec(),
    }
}

/// The embedded file `name` of the built page, as the repository holds it.
fn dist(name: &str) -> Vec<u8> {
    std::fs::read(workspace_root().join("web").join("dist").join(name)).expect("web/dist/")
}

// Each file of the page is served at its path over HTTP/1.1 with its type, its bytes (those of
// web/dist/, which CI checks the sources build), the CSP and the other headers that keep a
// browser strict; `/` is the document; a HEAD has the headers and no body; a request with the
// file's tag gets a 304. A query string does not change the file (the page's links carry
// none, but a browser may add one).
#[tokio::test]
async fn the_page_and_its_assets_are_served_with_their_types() {
    let server = TestServer::start().await;
    let files = [
        ("/", "index.html", "text/html; charset=utf-8"),
        ("/index.html", "index.html", "text/html; charset=utf-8"),
        ("/?game=abc", "index.html", "text/html; charset=utf-8"),
        ("/app.js", "app.js", "text/javascript; charset=utf-8"),
        ("/app.css", "app.css", "text/css; charset=utf-8"),
        ("/favicon.svg", "favicon.svg", "image/svg+xml"),
    ];
    for (path, file, content_type) in files {
        let answer = http1(server.addr, "GET", path, &[]).await;
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(answer.header("content-type"), Some(content_type), "{path}");
        assert_eq!(answer.body, dist(file), "{path}");
        assert_eq!(
            answer.header("content-security-policy"),
            Some(CSP),
            "{path}"
        );
        assert_eq!(answer.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(answer.header("x-frame-options"), Some("DENY"));
        assert_eq!(answer.header("cache-control"), Some("no-cache"));
        let tag = answer.header("etag").expect("a tag").to_string();
        let again = http1(server.addr, "GET", path, &[("if-none-match", &tag)]).await;
        assert_eq!(again.status, 304, "{path}");
        assert!(again.body.is_empty());
        let head = http1(server.addr, "HEAD", path, &[]).await;
        assert_eq!(head.status, 200);
        assert!(head.body.is_empty(), "HEAD {path} has no body");
        assert_eq!(
            head.header("content-length"),
            Some(dist(file).len().to_string().as_str())
        );
    }
    let html = String::from_utf8(dist("index.html")).unwrap();
    assert!(
        html.contains(r#"<script src="/app.js" defer></script>"#) && !html.contains("<style"),
        "the document loads its script and style from files, as the CSP allows"
    );
    server.stop().await;
}

// Anything but the page's files is a 404 with the same CSP: paths that climb out (`..`, encoded
// or not), the sources, other files of the repository, a directory's listing. Nothing is read
// from the disk: the files are embedded.
#[tokio::test]
async fn other_paths_are_not_found_and_nothing_climbs_out() {
    let server = TestServer::start().await;
    for path in [
        "/../Cargo.toml",
        "/..%2f..%2fCargo.toml",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/web/dist/app.js",
        "/dist/",
        "/src/main.ts",
        "/app.js/..",
        "/app.js%00",
        "/APP.JS",
        "/canasta.v1.CanastaService/ListGames",
        "/nope",
    ] {
        let answer = http1(server.addr, "GET", path, &[]).await;
        assert_eq!(answer.status, 404, "{path}");
        assert_eq!(answer.header("content-security-policy"), Some(CSP));
        assert!(
            answer
                .header("content-type")
                .unwrap()
                .starts_with("text/plain"),
            "{path}"
        );
        assert!(answer.body.len() < 200, "a short answer");
    }
    // The service is still served beside the page: a gRPC call on the same port.
    let mut client = server.client().await;
    client
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("gRPC beside the page");
    server.stop().await;
}

// Over HTTP/2 (as a browser speaks to a TLS server), the same files with the same headers.
#[tokio::test]
async fn the_page_is_served_over_http2() {
    let server = TestServer::start().await;
    let mut channel = channel(server.addr).await;
    for (path, file) in [("/", "index.html"), ("/app.js", "app.js")] {
        let request = http::Request::get(format!("http://{}{path}", server.addr))
            .body(Body::empty())
            .unwrap();
        std::future::poll_fn(|cx| Service::<http::Request<Body>>::poll_ready(&mut channel, cx))
            .await
            .expect("ready");
        let response = tokio::time::timeout(READ_LIMIT, channel.call(request))
            .await
            .expect("an answer in time")
            .expect("an answer");
        assert_eq!(response.version(), http::Version::HTTP_2);
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(
            response.headers()["content-security-policy"]
                .to_str()
                .unwrap(),
            CSP
        );
        let mut body = response.into_body();
        let mut bytes = Vec::new();
        while let Some(frame) =
            std::future::poll_fn(|cx| tonic::codegen::Body::poll_frame(Pin::new(&mut body), cx))
                .await
        {
            if let Ok(data) = frame.expect("a frame").into_data() {
                bytes.extend_from_slice(&data);
            }
        }
        assert_eq!(bytes, dist(file), "{path}");
    }
    server.stop().await;
}

// With the page off (`--no-web`), a GET of it is no page: the port serves gRPC and gRPC-Web
// alone.
#[tokio::test]
async fn the_page_can_be_turned_off() {
    let config = test_config().web_page(false).build().expect("a config");
    let server = TestServer::with_config(config).await;
    let answer = http1(server.addr, "GET", "/", &[]).await;
    assert_ne!(answer.body, dist("index.html"));
    assert_eq!(answer.header("content-security-policy"), None);
    let mut client = server.client().await;
    client
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("gRPC without the page");
    server.stop().await;
}

/// Debian's Chromium (`$CHROMIUM`, else `/usr/bin/chromium`), or a panic that says how to get
/// it.
fn chromium() -> PathBuf {
    let path =
        PathBuf::from(std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()));
    assert!(
        path.exists(),
        "the web page's browser test needs Chromium at {}: install Debian's (apt-get install \
         chromium), or name another in the CHROMIUM environment variable",
        path.display()
    );
    path
}

/// The page's browser test: `web/`'s pinned packages (playwright-core among them) installed
/// under `target/`, and a copy of `web/test/page.mjs` beside them.
fn browser_script() -> (String, PathBuf) {
    let (node, npm) = node_and_npm("the web page's browser test");
    let source = workspace_root().join("web");
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-page");
    npm_ci("the web page's", &npm, &source, &work);
    // Beside its packages (imports are looked for from the script's place), under this
    // process's name: the script changes without a new install.
    let script = work.join(format!("page-{}.mjs", std::process::id()));
    std::fs::copy(source.join("test").join("page.mjs"), &script).expect("the script's copy");
    (node, script)
}

// The page in Chromium, as a person uses it (see the module's documentation and
// web/test/page.mjs). The seed deals the person's seat a hand from which it takes the pile and
// melds within the first deal; the match's target of 1 point ends the match with that deal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_plays_watches_and_replays_a_game_in_the_browser() {
    let chromium = chromium();
    let (node, script) = browser_script();
    let server = TestServer::start().await;
    let screenshots = workspace_root().join("target").join("web-screenshots");
    let _ = std::fs::remove_dir_all(&screenshots);
    let settings = json!({
        "url": format!("http://{}/", server.addr),
        "seed": 1,
        "screenshots": screenshots,
        "chromium": chromium,
    });
    let out = tokio::task::spawn_blocking(move || {
        Command::new(node)
            .arg(&script)
            .arg(settings.to_string())
            .output()
            .expect("node runs")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| {
            panic!(
                "the browser test reported nothing ({}):\n{stdout}{}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            )
        });
    assert!(
        out.status.success() && report["ok"] == true,
        "the browser test failed ({}): {report:#}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let count = |k: &str| report[k].as_u64().unwrap_or(0);
    assert!(count("draws") >= 1, "drew from the stock: {report}");
    assert!(count("tookPile") >= 1, "took the pile: {report}");
    assert!(count("melds") >= 1, "melded: {report}");
    assert!(count("discards") >= 1, "discarded: {report}");
    assert_eq!(count("reloads"), 1, "reloaded mid-game: {report}");
    assert_eq!(count("dealScores"), 1, "saw the deal's score: {report}");
    assert!(
        count("spectatorChecks") >= 2,
        "the spectator was checked: {report}"
    );
    // The replay went to the end of the game the server holds.
    let mut client = server.client().await;
    let game_id = report["gameId"]
        .as_str()
        .expect("the game's id")
        .to_string();
    let record = client
        .export_game(v1::ExportGameRequest { game_id })
        .await
        .expect("the game is finished")
        .into_inner()
        .record
        .expect("a record");
    assert_eq!(count("replaySteps"), record.actions.len() as u64);
    for name in [
        "lobby",
        "table",
        "spectator",
        "deal-score",
        "replay-end",
        "phone-replay",
    ] {
        let taken = std::fs::read_dir(&screenshots)
            .expect("the screenshots")
            .filter_map(Result::ok)
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .ends_with(&format!("-{name}.png"))
            });
        assert!(taken, "a screenshot of {name} in {}", screenshots.display());
    }
    server.stop().await;
}
