//! Prometheus metrics: a `prometheus-client` registry of the server's counters, gauges and
//! histograms, served as text over plain HTTP on a port of their own (`--metrics-listen`).
//!
//! The HTTP side is a minimal one-shot responder (the crate serves nothing itself): any path
//! answers the metrics, in the Prometheus text format (0.0.4), or in OpenMetrics when the
//! scraper's `Accept` asks for it (Prometheus does). It is bounded for a hostile client: at
//! most [`MAX_CONNECTIONS`] connections at once (more are closed at once), a request head of at
//! most [`MAX_HEAD_BYTES`] (a longer one is answered 431 and not read further), and
//! [`CONNECTION_DEADLINE`] for the whole exchange, from the accept to the answer's last byte.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use canasta_proto::Reason;
use canasta_proto::reason::code_name;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tonic::Code;

/// Upper bounds of the action-latency histogram, in seconds.
const ACTION_BUCKETS: [f64; 12] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
];

/// Upper bounds of the bots' think-time histogram, in seconds: greedy's microseconds to a
/// search's cap (`--max-bot-think-ms`, 200 ms by default).
const BOT_THINK_BUCKETS: [f64; 12] = [
    0.00001, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1.0,
];

/// Upper bounds of the call-latency histogram, in seconds: an action's, and beyond for the
/// calls that wait (a Play call waits up to `--play-open-timeout-secs` for its opening).
const CALL_BUCKETS: [f64; 14] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5, 10.0,
];

/// The labels of a refusal: its gRPC code and its reason.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Refusal {
    code: &'static str,
    reason: &'static str,
}

/// The labels of an answered call: its method and its gRPC code (`OK` if served).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Answered {
    method: &'static str,
    code: &'static str,
}

/// The label of a call's latency: its method.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Method {
    method: &'static str,
}

/// The server's metrics.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    games: Gauge,
    games_created: Counter,
    actions: Counter,
    watchers: Gauge,
    timeouts: Counter,
    abandoned: Counter,
    expired: Counter,
    cancelled: Counter,
    rebuilds: Counter,
    bot_moves: Counter,
    bot_think_seconds: Histogram,
    action_seconds: Histogram,
    errors: Family<Refusal, Counter>,
    calls: Family<Answered, Counter>,
    call_seconds: Family<Method, Histogram>,
}

/// How a scrape wants its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The Prometheus text format, version 0.0.4 (`text/plain`).
    Prometheus,
    /// OpenMetrics 1.0 text (`application/openmetrics-text`).
    OpenMetrics,
}

impl Format {
    /// The `Content-Type` of the format.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Prometheus => prometheus_client::encoding::prometheus_text::CONTENT_TYPE,
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
        }
    }
}

impl Metrics {
    /// Fresh metrics, every one registered (so a scrape shows each, at zero).
    pub fn new() -> Arc<Metrics> {
        let mut registry = Registry::default();
        // The crate adds `_total` to a counter's name; the help's final period too.
        let games = Gauge::default();
        registry.register("canasta_games", "Games held by the server", games.clone());
        let games_created = Counter::default();
        registry.register(
            "canasta_games_created",
            "Games created since the server started",
            games_created.clone(),
        );
        let actions = Counter::default();
        registry.register("canasta_actions", "Actions applied", actions.clone());
        let watchers = Gauge::default();
        registry.register("canasta_watchers", "Open watch streams", watchers.clone());
        let timeouts = Counter::default();
        registry.register(
            "canasta_timeouts",
            "Moves whose time ran out (the server played the fallback move, forfeited or \
             abandoned the match)",
            timeouts.clone(),
        );
        let abandoned = Counter::default();
        registry.register(
            "canasta_games_abandoned",
            "Matches ended with no winner because nobody played: three time-outs of each seat, \
             no activity for --idle-timeout-secs, or every seat left for --left-timeout-secs",
            abandoned.clone(),
        );
        let expired = Counter::default();
        registry.register(
            "canasta_games_expired",
            "Games ended because their seats were not all taken within --waiting-timeout-secs",
            expired.clone(),
        );
        let cancelled = Counter::default();
        registry.register(
            "canasta_games_cancelled",
            "Waiting games their creators cancelled",
            cancelled.clone(),
        );
        let rebuilds = Counter::default();
        registry.register(
            "canasta_game_rebuilds",
            "Finished games' logs replayed to answer a watch, an export or a retry",
            rebuilds.clone(),
        );
        let bot_moves = Counter::default();
        registry.register(
            "canasta_bot_moves",
            "Moves the server's built-in bots chose for their seats",
            bot_moves.clone(),
        );
        let bot_think_seconds = Histogram::new(BOT_THINK_BUCKETS);
        registry.register(
            "canasta_bot_think_seconds",
            "Time a built-in bot thought about a move (on a blocking thread, after waiting \
             for the pool of --bot-threads)",
            bot_think_seconds.clone(),
        );
        let errors = Family::default();
        registry.register(
            "canasta_errors",
            "Requests refused, by gRPC code and reason (a Play stream's refused actions \
             included)",
            errors.clone(),
        );
        let action_seconds = Histogram::new(ACTION_BUCKETS);
        registry.register(
            "canasta_action_seconds",
            "Time from an action reaching its game to its being stored and applied",
            action_seconds.clone(),
        );
        let calls = Family::default();
        registry.register(
            "canasta_requests",
            "Calls answered, by method and gRPC code (OK: served); a stream's call counts once, \
             when it is opened or refused",
            calls.clone(),
        );
        let call_seconds: Family<Method, Histogram> =
            Family::new_with_constructor(|| Histogram::new(CALL_BUCKETS));
        registry.register(
            "canasta_request_seconds",
            "Time from a call reaching the server to its answer (a stream's: to its opening), \
             by method",
            call_seconds.clone(),
        );
        Arc::new(Metrics {
            registry,
            games,
            games_created,
            actions,
            watchers,
            timeouts,
            abandoned,
            expired,
            cancelled,
            rebuilds,
            bot_moves,
            bot_think_seconds,
            action_seconds,
            errors,
            calls,
            call_seconds,
        })
    }

    /// Shows the calls of `method` in every scrape, at zero until one is answered.
    pub fn declare_method(&self, method: &'static str) {
        let ok = Answered {
            method,
            code: code_name(Code::Ok),
        };
        let _ = self.calls.get_or_create(&ok);
        let _ = self.call_seconds.get_or_create(&Method { method });
    }

    /// A call of `method` was answered with `code` in `took`. Each call is counted once: a
    /// refusal also counts under its reason ([`Metrics::refused`]).
    pub fn answered(&self, method: &'static str, code: Code, took: Duration) {
        let labels = Answered {
            method,
            code: code_name(code),
        };
        self.calls.get_or_create(&labels).inc();
        self.call_seconds
            .get_or_create(&Method { method })
            .observe(took.as_secs_f64());
    }

    /// A request was refused with this code and reason.
    pub fn refused(&self, code: Code, reason: Reason) {
        let labels = Refusal {
            code: code_name(code),
            reason: reason.as_str(),
        };
        self.errors.get_or_create(&labels).inc();
    }

    /// A game was created (or restored).
    pub fn game_added(&self, created: bool) {
        self.games.inc();
        if created {
            self.games_created.inc();
        }
    }

    /// An action was applied in `took` (from the request reaching the game to its storage).
    pub fn action_applied(&self, took: Duration) {
        self.actions.inc();
        self.action_seconds.observe(took.as_secs_f64());
    }

    /// A watch stream opened (`+1`) or closed (`-1`).
    pub fn watcher(&self, opened: bool) {
        if opened {
            self.watchers.inc();
        } else {
            self.watchers.dec();
        }
    }

    /// A seat's move time ran out (and the time-out was stored); `abandoned` if it ended
    /// the match as abandoned. Counted here for every time-out; the log has at most a line a
    /// minute per game.
    pub fn timed_out(&self, abandoned: bool) {
        self.timeouts.inc();
        if abandoned {
            self.abandoned.inc();
        }
    }

    /// The server ended a game nobody plays (abandoned, expired), or its creator cancelled it
    /// (a time-out that abandons a match is counted by [`Metrics::timed_out`]).
    pub fn game_ended(&self, end: canasta_proto::v1::MatchEndKind) {
        use canasta_proto::v1::MatchEndKind;
        let counter = match end {
            MatchEndKind::Abandoned => &self.abandoned,
            MatchEndKind::Expired => &self.expired,
            MatchEndKind::Cancelled => &self.cancelled,
            MatchEndKind::Unspecified | MatchEndKind::Target | MatchEndKind::Forfeit => return,
        };
        counter.inc();
    }

    /// A built-in bot chose a move in `took`.
    pub fn bot_moved(&self, took: Duration) {
        self.bot_moves.inc();
        self.bot_think_seconds.observe(took.as_secs_f64());
    }

    /// Moves the built-in bots chose so far.
    pub fn bot_moves(&self) -> u64 {
        self.bot_moves.get()
    }

    /// A finished game's log was replayed to answer a request (see `Actor::rebuilt`).
    pub fn game_rebuilt(&self) {
        self.rebuilds.inc();
    }

    /// Finished games' logs replayed so far.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds.get()
    }

    /// Actions applied so far.
    pub fn actions(&self) -> u64 {
        self.actions.get()
    }

    /// The metrics as text, in the Prometheus format (0.0.4).
    pub fn render(&self) -> String {
        self.encode(Format::Prometheus)
    }

    /// The metrics as text in `format`.
    pub fn encode(&self, format: Format) -> String {
        let mut out = String::with_capacity(16 * 1024);
        let encoded = match format {
            Format::Prometheus => {
                prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry)
            }
            Format::OpenMetrics => {
                prometheus_client::encoding::text::encode(&mut out, &self.registry)
            }
        };
        // Writing to a String fails only if a metric's encoding does, which ours never do.
        debug_assert!(encoded.is_ok(), "{encoded:?}");
        out
    }
}

/// Most connections of the metrics port served at once; beyond, a new one is closed at once.
/// A scraper needs one; a few spare for people with curl.
pub const MAX_CONNECTIONS: usize = 16;

/// The longest request head read; a longer one is answered 431 and not read further.
pub const MAX_HEAD_BYTES: usize = 8 * 1024;

/// How long one connection may take, from its accept to the last byte of the answer: a client
/// that sends its request or reads the answer slower is cut off.
pub const CONNECTION_DEADLINE: Duration = Duration::from_secs(5);

/// The pause after a failed accept (out of file descriptors, say): the listener, still ready,
/// would fail again at once, for ever.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Serves the metrics at any path of `listener` until the task is dropped.
pub async fn serve(listener: TcpListener, metrics: Arc<Metrics>) {
    let places = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let conn = match listener.accept().await {
            Ok((conn, _)) => conn,
            Err(e) => {
                tracing::debug!(error = %e, "the metrics port cannot accept a connection");
                tokio::time::sleep(ACCEPT_PAUSE).await;
                continue;
            }
        };
        let Ok(place) = places.clone().try_acquire_owned() else {
            drop(conn);
            continue;
        };
        let metrics = metrics.clone();
        tokio::spawn(async move {
            let _ = tokio::time::timeout(CONNECTION_DEADLINE, answer(conn, &metrics)).await;
            drop(place);
        });
    }
}

/// Reads one request from `conn` and answers it, then closes the connection's sending side.
async fn answer<C: AsyncRead + AsyncWrite + Unpin>(
    mut conn: C,
    metrics: &Metrics,
) -> std::io::Result<()> {
    let response = match read_head(&mut conn).await? {
        Head::Complete(head) => {
            let format = format_asked(&head);
            let body = metrics.encode(format);
            let mut response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: \
                 close\r\n\r\n",
                format.content_type(),
                body.len()
            );
            if !head.starts_with(b"HEAD ") {
                response.push_str(&body);
            }
            response
        }
        Head::TooLarge => "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: \
                           0\r\nConnection: close\r\n\r\n"
            .to_string(),
        // The client closed its side without a whole head: nobody to answer.
        Head::Cut => return Ok(()),
    };
    conn.write_all(response.as_bytes()).await?;
    conn.shutdown().await
}

/// What a connection sent before its answer.
#[derive(Debug, PartialEq, Eq)]
enum Head {
    /// A request head, up to its blank line (excluded).
    Complete(Vec<u8>),
    /// More than [`MAX_HEAD_BYTES`] without the blank line that ends a head.
    TooLarge,
    /// The connection ended before the head did.
    Cut,
}

/// Reads a request head, at most [`MAX_HEAD_BYTES`] of it. A request's body, if any, is not
/// read: the answer does not depend on it.
async fn read_head<R: AsyncRead + Unpin>(conn: &mut R) -> std::io::Result<Head> {
    let mut head = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    loop {
        let room = (MAX_HEAD_BYTES + 4 - head.len()).min(chunk.len());
        let n = conn.read(&mut chunk[..room]).await?;
        if n == 0 {
            return Ok(Head::Cut);
        }
        // The blank line may straddle two reads: look from three bytes before the new ones.
        let from = head.len().saturating_sub(3);
        head.extend_from_slice(&chunk[..n]);
        if let Some(end) = head[from..].windows(4).position(|w| w == b"\r\n\r\n") {
            head.truncate(from + end);
            return Ok(Head::Complete(head));
        }
        if head.len() >= MAX_HEAD_BYTES {
            return Ok(Head::TooLarge);
        }
    }
}

/// The format a request head's `Accept` asks for: OpenMetrics if it names it (and does not
/// refuse it with `q=0`), Prometheus' text otherwise.
fn format_asked(head: &[u8]) -> Format {
    let text = String::from_utf8_lossy(head);
    let accept = text.lines().skip(1).find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.trim()
            .eq_ignore_ascii_case("accept")
            .then(|| value.to_ascii_lowercase())
    });
    let Some(accept) = accept else {
        return Format::Prometheus;
    };
    let wanted = accept.split(',').any(|range| {
        let mut parts = range.split(';').map(str::trim);
        parts.next() == Some("application/openmetrics-text")
            && !parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f64>().ok())
                    .is_some_and(|q| q <= 0.0)
            })
    });
    if wanted {
        Format::OpenMetrics
    } else {
        Format::Prometheus
    }
}

/// Binds the metrics port.
pub async fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    TcpListener::bind(addr).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::net::TcpStream;

    /// The value of a sample line `name` (with its labels).
    fn sample(text: &str, name: &str) -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
    }

    #[test]
    fn renders_counters_and_histogram() {
        let m = Metrics::new();
        m.game_added(true);
        m.action_applied(Duration::from_micros(300));
        m.refused(Code::FailedPrecondition, Reason::PileFrozen);
        m.timed_out(false);
        m.timed_out(true);
        m.game_ended(canasta_proto::v1::MatchEndKind::Abandoned);
        m.game_ended(canasta_proto::v1::MatchEndKind::Expired);
        m.game_ended(canasta_proto::v1::MatchEndKind::Target);
        let text = m.render();
        assert!(text.contains("# TYPE canasta_games gauge\ncanasta_games 1\n"));
        assert!(text.contains("# TYPE canasta_actions_total counter\ncanasta_actions_total 1\n"));
        assert!(text.contains("canasta_timeouts_total 2"));
        assert!(text.contains("canasta_games_abandoned_total 2"));
        assert!(text.contains("canasta_games_expired_total 1"));
        assert!(text.contains("canasta_games_cancelled_total 0"));
        assert!(text.contains("canasta_game_rebuilds_total 0"));
        assert!(text.contains(
            "canasta_errors_total{code=\"FAILED_PRECONDITION\",reason=\"PILE_FROZEN\"} 1"
        ));
        assert!(text.contains("# TYPE canasta_action_seconds histogram"));
        assert_eq!(
            sample(&text, "canasta_action_seconds_bucket{le=\"0.0005\"}"),
            Some(1.0)
        );
        assert_eq!(
            sample(&text, "canasta_action_seconds_bucket{le=\"0.00025\"}"),
            Some(0.0)
        );
        assert_eq!(
            sample(&text, "canasta_action_seconds_bucket{le=\"+Inf\"}"),
            Some(1.0)
        );
        assert_eq!(sample(&text, "canasta_action_seconds_count"), Some(1.0));
        assert!(
            sample(&text, "canasta_action_seconds_sum").is_some_and(|s| (s - 0.0003).abs() < 1e-9)
        );
        assert!(text.contains("# HELP canasta_games Games held by the server.\n"));
    }

    // Each call counts once under its method and code, and its latency under its method; a
    // declared method shows at zero before its first call.
    #[test]
    fn calls_count_by_method_and_code() {
        let m = Metrics::new();
        m.declare_method("GetGame");
        let text = m.render();
        assert_eq!(
            sample(
                &text,
                "canasta_requests_total{method=\"GetGame\",code=\"OK\"}"
            ),
            Some(0.0)
        );
        assert_eq!(
            sample(&text, "canasta_request_seconds_count{method=\"GetGame\"}"),
            Some(0.0)
        );
        m.answered("GetGame", Code::Ok, Duration::from_millis(2));
        m.answered("GetGame", Code::NotFound, Duration::from_millis(20));
        m.answered("GetGame", Code::NotFound, Duration::from_secs(3));
        let text = m.render();
        let count = |code: &str| {
            sample(
                &text,
                &format!("canasta_requests_total{{method=\"GetGame\",code=\"{code}\"}}"),
            )
        };
        assert_eq!((count("OK"), count("NOT_FOUND")), (Some(1.0), Some(2.0)));
        assert_eq!(
            sample(&text, "canasta_request_seconds_count{method=\"GetGame\"}"),
            Some(3.0)
        );
        assert_eq!(
            sample(
                &text,
                "canasta_request_seconds_bucket{method=\"GetGame\",le=\"0.0025\"}"
            ),
            Some(1.0)
        );
        assert_eq!(
            sample(
                &text,
                "canasta_request_seconds_bucket{method=\"GetGame\",le=\"10\"}"
            ),
            Some(3.0)
        );
    }

    // OpenMetrics names a counter's family without `_total` and ends with `# EOF`; the
    // Prometheus text names it with, and has no `# EOF`.
    #[test]
    fn both_text_formats_carry_the_same_samples() {
        let m = Metrics::new();
        m.action_applied(Duration::from_millis(1));
        let prometheus = m.encode(Format::Prometheus);
        let open = m.encode(Format::OpenMetrics);
        assert!(prometheus.contains("# TYPE canasta_actions_total counter\n"));
        assert!(open.contains("# TYPE canasta_actions counter\n"));
        assert!(!prometheus.contains("# EOF"));
        assert!(open.ends_with("# EOF\n"));
        for text in [&prometheus, &open] {
            assert_eq!(sample(text, "canasta_actions_total"), Some(1.0));
        }
    }

    #[test]
    fn the_format_follows_the_accept_header() {
        let head = |accept: &str| format!("GET /metrics HTTP/1.1\r\nHost: x\r\n{accept}");
        let asked = |accept: &str| format_asked(head(accept).as_bytes());
        assert_eq!(asked(""), Format::Prometheus);
        assert_eq!(asked("Accept: text/plain"), Format::Prometheus);
        // What Prometheus sends.
        assert_eq!(
            asked(
                "Accept: application/openmetrics-text;version=1.0.0,application/openmetrics-text;\
                 version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
            ),
            Format::OpenMetrics
        );
        assert_eq!(
            asked("ACCEPT: Application/OpenMetrics-Text; version=1.0.0"),
            Format::OpenMetrics
        );
        assert_eq!(
            asked("Accept: application/openmetrics-text;q=0, text/plain"),
            Format::Prometheus
        );
        // A header named in the request line, not as a header, is none.
        assert_eq!(
            format_asked(b"GET /accept:application/openmetrics-text HTTP/1.1"),
            Format::Prometheus
        );
    }

    // A head is read up to its blank line, wherever the reads cut it; a head that does not end
    // within the limit is read no further; a connection that ends first is no request.
    #[tokio::test]
    async fn a_request_head_is_read_whole_and_no_further_than_the_limit() {
        let (mut client, mut server) = tokio::io::duplex(64);
        let writer = tokio::spawn(async move {
            for piece in [&b"GET / HTTP/1.1\r\nHost: x\r"[..], b"\n\r", b"\nbody"] {
                client.write_all(piece).await.unwrap();
                tokio::task::yield_now().await;
            }
            client
        });
        assert_eq!(
            read_head(&mut server).await.unwrap(),
            Head::Complete(b"GET / HTTP/1.1\r\nHost: x".to_vec())
        );
        drop(writer.await.unwrap());

        // A client that would send a megabyte of headers: the server stops at the limit.
        let (mut client, mut server) = tokio::io::duplex(4096);
        let writer = tokio::spawn(async move {
            let mut sent = 0;
            let line = b"X-Filler: 0123456789012345678901234567890123456789\r\n";
            while sent < (1 << 20) {
                if client.write_all(line).await.is_err() {
                    break;
                }
                sent += line.len();
            }
            sent
        });
        assert_eq!(read_head(&mut server).await.unwrap(), Head::TooLarge);
        drop(server);
        let sent = writer.await.unwrap();
        assert!(
            sent <= MAX_HEAD_BYTES + 4096 + 64,
            "the server read {sent} bytes"
        );

        let (client, mut server) = tokio::io::duplex(64);
        drop(client);
        assert_eq!(read_head(&mut server).await.unwrap(), Head::Cut);
    }

    /// Sends `request` to the metrics port and reads the answer to its end.
    async fn exchange(conn: &mut TcpStream, request: &[u8]) -> String {
        conn.write_all(request).await.unwrap();
        let mut answer = Vec::new();
        conn.read_to_end(&mut answer).await.unwrap();
        String::from_utf8(answer).expect("text")
    }

    async fn metrics_port() -> (SocketAddr, Arc<Metrics>, tokio::task::JoinHandle<()>) {
        let listener = bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let metrics = Metrics::new();
        let serving = tokio::spawn(serve(listener, metrics.clone()));
        (addr, metrics, serving)
    }

    // A scrape gets the metrics in the format it asks for; a HEAD gets the head alone; a head
    // over the limit gets 431.
    #[tokio::test]
    async fn the_port_answers_a_scrape_in_the_format_asked() {
        let (addr, metrics, serving) = metrics_port().await;
        metrics.game_added(true);
        let mut conn = TcpStream::connect(addr).await.unwrap();
        let answer = exchange(&mut conn, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").await;
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
        assert!(
            head.contains("Content-Type: text/plain; version=0.0.4"),
            "{head}"
        );
        assert!(
            head.contains(&format!("Content-Length: {}", body.len())),
            "{head}"
        );
        assert_eq!(sample(body, "canasta_games"), Some(1.0));

        let mut conn = TcpStream::connect(addr).await.unwrap();
        let answer = exchange(
            &mut conn,
            b"GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text;version=1.0.0\r\n\r\n",
        )
        .await;
        assert!(
            answer.contains("Content-Type: application/openmetrics-text"),
            "{answer}"
        );
        assert!(answer.ends_with("# EOF\n"));

        let mut conn = TcpStream::connect(addr).await.unwrap();
        let answer = exchange(&mut conn, b"HEAD /metrics HTTP/1.1\r\n\r\n").await;
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head");
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
        assert!(!head.contains("Content-Length: 0\r\n"), "{head}");
        assert_eq!(body, "");

        // A head that does not end within the limit: all of it is read (no reset), and
        // answered 431.
        let mut conn = TcpStream::connect(addr).await.unwrap();
        let mut long = b"GET /metrics HTTP/1.1\r\nX-Long: ".to_vec();
        long.resize(MAX_HEAD_BYTES + 4, b'a');
        let answer = exchange(&mut conn, &long).await;
        assert!(
            answer.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"),
            "{answer}"
        );
        serving.abort();
    }

    // A client that connects and sends nothing is cut off at the deadline; one connection
    // more than the limit is closed at once while the others are still served. On a paused
    // clock, which moves on only when every task waits (ready sockets are served first).
    #[tokio::test(start_paused = true)]
    async fn the_port_bounds_its_connections_and_their_time() {
        let (addr, _metrics, serving) = metrics_port().await;
        let started = tokio::time::Instant::now();
        let mut held = Vec::new();
        for _ in 0..MAX_CONNECTIONS {
            held.push(TcpStream::connect(addr).await.unwrap());
        }
        let mut extra = TcpStream::connect(addr).await.unwrap();
        let mut byte = [0u8; 1];
        let read = extra.read(&mut byte).await;
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
        assert_eq!(started.elapsed(), Duration::ZERO, "closed at once");
        // The held ones are still served: the first one answers.
        let answer = exchange(&mut held[0], b"GET / HTTP/1.1\r\n\r\n").await;
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
        // The silent ones are cut off at the deadline, not before.
        let read = held[1].read(&mut byte).await;
        assert!(matches!(read, Ok(0) | Err(_)), "{read:?}");
        assert_eq!(started.elapsed(), CONNECTION_DEADLINE);
        // Their places are free again.
        let mut conn = TcpStream::connect(addr).await.unwrap();
        let answer = exchange(&mut conn, b"GET / HTTP/1.1\r\n\r\n").await;
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
        serving.abort();
    }
}
