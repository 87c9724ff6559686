//! Prometheus metrics: counters kept with atomics, served as text over plain HTTP on a port of
//! their own (`--metrics-listen`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Upper bounds of the action-latency histogram, in seconds.
const BUCKETS: [f64; 12] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
];

/// The server's metrics.
#[derive(Debug, Default)]
pub struct Metrics {
    games: AtomicU64,
    games_created: AtomicU64,
    actions: AtomicU64,
    watchers: AtomicU64,
    timeouts: AtomicU64,
    abandoned: AtomicU64,
    expired: AtomicU64,
    cancelled: AtomicU64,
    rebuilds: AtomicU64,
    latency_buckets: [AtomicU64; BUCKETS.len()],
    latency_count: AtomicU64,
    latency_sum_ns: AtomicU64,
    errors: Mutex<BTreeMap<(&'static str, String), u64>>,
}

impl Metrics {
    /// Fresh metrics.
    pub fn new() -> Arc<Metrics> {
        Arc::new(Metrics::default())
    }

    /// A game was created (or restored).
    pub fn game_added(&self, created: bool) {
        self.games.fetch_add(1, Ordering::Relaxed);
        if created {
            self.games_created.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// An action was applied in `took` (from the request reaching the game to its storage).
    pub fn action_applied(&self, took: Duration) {
        self.actions.fetch_add(1, Ordering::Relaxed);
        let secs = took.as_secs_f64();
        for (i, bound) in BUCKETS.iter().enumerate() {
            if secs <= *bound {
                self.latency_buckets[i].fetch_add(1, Ordering::Relaxed);
            }
        }
        self.latency_count.fetch_add(1, Ordering::Relaxed);
        self.latency_sum_ns
            .fetch_add(took.as_nanos() as u64, Ordering::Relaxed);
    }

    /// A request failed with this code and reason.
    pub fn error(&self, code: &'static str, reason: &str) {
        let mut errors = self.errors.lock().expect("not poisoned");
        *errors.entry((code, reason.to_string())).or_default() += 1;
    }

    /// A watch stream opened (`+1`) or closed (`-1`).
    pub fn watcher(&self, opened: bool) {
        if opened {
            self.watchers.fetch_add(1, Ordering::Relaxed);
        } else {
            self.watchers.fetch_sub(1, Ordering::Relaxed);
        }
    }

    /// A seat's move time ran out (and the time-out was stored); `abandoned` if it ended
    /// the match as abandoned. Counted here for every time-out; the log has at most a line a
    /// minute per game.
    pub fn timed_out(&self, abandoned: bool) {
        self.timeouts.fetch_add(1, Ordering::Relaxed);
        if abandoned {
            self.abandoned.fetch_add(1, Ordering::Relaxed);
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
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// A finished game's log was replayed to answer a request (see `Actor::rebuilt`).
    pub fn game_rebuilt(&self) {
        self.rebuilds.fetch_add(1, Ordering::Relaxed);
    }

    /// Finished games' logs replayed so far.
    pub fn rebuilds(&self) -> u64 {
        self.rebuilds.load(Ordering::Relaxed)
    }

    /// Actions applied so far.
    pub fn actions(&self) -> u64 {
        self.actions.load(Ordering::Relaxed)
    }

    /// The metrics in Prometheus' text format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut counter = |name: &str, help: &str, kind: &str, value: u64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        };
        counter(
            "canasta_games",
            "Games held by the server.",
            "gauge",
            self.games.load(Ordering::Relaxed),
        );
        counter(
            "canasta_games_created_total",
            "Games created since the server started.",
            "counter",
            self.games_created.load(Ordering::Relaxed),
        );
        counter(
            "canasta_actions_total",
            "Actions applied.",
            "counter",
            self.actions.load(Ordering::Relaxed),
        );
        counter(
            "canasta_watchers",
            "Open watch streams.",
            "gauge",
            self.watchers.load(Ordering::Relaxed),
        );
        counter(
            "canasta_timeouts_total",
            "Moves whose time ran out (the server played the fallback move, forfeited or abandoned the match).",
            "counter",
            self.timeouts.load(Ordering::Relaxed),
        );
        counter(
            "canasta_games_abandoned_total",
            "Matches ended with no winner because nobody played: three time-outs of each seat, no activity for --idle-timeout-secs, or every seat left for --left-timeout-secs.",
            "counter",
            self.abandoned.load(Ordering::Relaxed),
        );
        counter(
            "canasta_games_expired_total",
            "Games ended because their seats were not all taken within --waiting-timeout-secs.",
            "counter",
            self.expired.load(Ordering::Relaxed),
        );
        counter(
            "canasta_games_cancelled_total",
            "Waiting games their creators cancelled.",
            "counter",
            self.cancelled.load(Ordering::Relaxed),
        );
        counter(
            "canasta_game_rebuilds_total",
            "Finished games' logs replayed to answer a watch, an export or a retry.",
            "counter",
            self.rebuilds.load(Ordering::Relaxed),
        );
        let _ = writeln!(
            out,
            "# HELP canasta_errors_total Requests refused, by gRPC code and reason.\n# TYPE canasta_errors_total counter"
        );
        for ((code, reason), n) in self.errors.lock().expect("not poisoned").iter() {
            let _ = writeln!(
                out,
                "canasta_errors_total{{code=\"{code}\",reason=\"{reason}\"}} {n}"
            );
        }
        let _ = writeln!(
            out,
            "# HELP canasta_action_seconds Time from an action reaching its game to its being stored and applied.\n# TYPE canasta_action_seconds histogram"
        );
        for (i, bound) in BUCKETS.iter().enumerate() {
            let _ = writeln!(
                out,
                "canasta_action_seconds_bucket{{le=\"{bound}\"}} {}",
                self.latency_buckets[i].load(Ordering::Relaxed)
            );
        }
        let count = self.latency_count.load(Ordering::Relaxed);
        let _ = writeln!(out, "canasta_action_seconds_bucket{{le=\"+Inf\"}} {count}");
        let _ = writeln!(
            out,
            "canasta_action_seconds_sum {}",
            self.latency_sum_ns.load(Ordering::Relaxed) as f64 / 1e9
        );
        let _ = writeln!(out, "canasta_action_seconds_count {count}");
        out
    }
}

/// Serves the metrics at any path of `listener` until the task is dropped.
pub async fn serve(listener: TcpListener, metrics: Arc<Metrics>) {
    loop {
        let Ok((mut conn, _)) = listener.accept().await else {
            continue;
        };
        let metrics = metrics.clone();
        tokio::spawn(async move {
            // Read the request head; its content does not matter.
            let mut buf = [0u8; 2048];
            let _ = tokio::time::timeout(Duration::from_secs(5), conn.read(&mut buf)).await;
            let body = metrics.render();
            let response = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = conn.write_all(response.as_bytes()).await;
            let _ = conn.shutdown().await;
        });
    }
}

/// Binds the metrics port.
pub async fn bind(addr: SocketAddr) -> std::io::Result<TcpListener> {
    TcpListener::bind(addr).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_counters_and_histogram() {
        let m = Metrics::new();
        m.game_added(true);
        m.action_applied(Duration::from_micros(300));
        m.error("FAILED_PRECONDITION", "PILE_FROZEN");
        m.timed_out(false);
        m.timed_out(true);
        m.game_ended(canasta_proto::v1::MatchEndKind::Abandoned);
        m.game_ended(canasta_proto::v1::MatchEndKind::Expired);
        m.game_ended(canasta_proto::v1::MatchEndKind::Target);
        let text = m.render();
        assert!(text.contains("canasta_games 1"));
        assert!(text.contains("canasta_actions_total 1"));
        assert!(text.contains("canasta_timeouts_total 2"));
        assert!(text.contains("canasta_games_abandoned_total 2"));
        assert!(text.contains("canasta_games_expired_total 1"));
        assert!(text.contains("canasta_games_cancelled_total 0"));
        assert!(text.contains(
            "canasta_errors_total{code=\"FAILED_PRECONDITION\",reason=\"PILE_FROZEN\"} 1"
        ));
        assert!(text.contains("canasta_action_seconds_bucket{le=\"0.0005\"} 1"));
        assert!(text.contains("canasta_action_seconds_bucket{le=\"0.00025\"} 0"));
        assert!(text.contains("canasta_action_seconds_count 1"));
    }
}
