//! The streams a call leaves running: a watch stream's feed (WatchGame's, and the watch side
//! of Play) and the actions side of a Play stream. Each runs as its own task, in the span of
//! the call that opened it.

use std::sync::Arc;

use canasta_engine::Viewer;
use canasta_proto::Reason;
use canasta_proto::v1;
use tokio::sync::{broadcast, mpsc, watch};
use tonic::Status;

use super::submit_to;
use crate::actor::{GameHandle, Item, PromptItem, Subscription};
use crate::auth::{Token, TokenId};
use crate::errors::{ApiError, retry_after_ms};
use crate::metrics::Metrics;
use crate::ratelimit::{RequestLimits, StreamSlot};

/// The actions side of a Play stream: applies each action the client sends and queues its
/// result among the watch stream's messages. It ends when the client stops sending, or when
/// the watch side ends (the call then ends).
pub(super) struct Plays {
    pub(super) game_id: String,
    pub(super) handle: GameHandle,
    pub(super) token: Token,
    /// The token's fingerprint (computed once: each action is charged to it).
    pub(super) token_id: TokenId,
    pub(super) limits: Arc<RequestLimits>,
    pub(super) metrics: Arc<Metrics>,
    /// How long a result waits for the client to make room (as the watch side waits).
    pub(super) send_timeout: std::time::Duration,
    /// The largest request message (`--max-message-bytes`).
    pub(super) max_message_bytes: usize,
    pub(super) tx: mpsc::Sender<Result<v1::PlayResponse, Status>>,
}

impl Plays {
    pub(super) async fn run(
        self,
        mut requests: tonic::Streaming<v1::PlayRequest>,
        mut watching: tokio::task::JoinHandle<()>,
    ) {
        loop {
            let request = tokio::select! {
                r = requests.message() => r,
                _ = &mut watching => break,
            };
            let request = match request {
                Ok(Some(request)) => request,
                // The client closed its side: the watch side goes on alone.
                Ok(None) => break,
                // A message that cannot be read (too large, malformed) ends the call with the
                // reason; a call that broke has no one to tell.
                Err(status) => {
                    let refusal = crate::message_limit::refusal_of(&status, self.max_message_bytes);
                    let status = match refusal {
                        Some(e) => {
                            self.metrics.refused(e.code, e.reason);
                            Status::from(e)
                        }
                        None => status,
                    };
                    let _ = self.tx.try_send(Err(status));
                    break;
                }
            };
            let (request_id, outcome) = match request.kind {
                Some(v1::play_request::Kind::Submit(s)) => {
                    (s.request_id.clone(), self.submit(s).await)
                }
                Some(v1::play_request::Kind::Watch(_)) => (
                    String::new(),
                    Err(ApiError::invalid(
                        Reason::PlayAlreadyOpen,
                        "watch",
                        "this Play stream is already open: send actions as `submit` (to watch \
                         from another seq, open another stream)",
                    )),
                ),
                None => (
                    String::new(),
                    Err(ApiError::invalid(
                        Reason::MissingField,
                        "kind",
                        "a Play request carries `watch` (the first) or `submit`",
                    )),
                ),
            };
            let result = match outcome {
                Ok(seq) => v1::PlayResult {
                    request_id,
                    seq: Some(seq),
                    error: None,
                },
                Err(e) => {
                    self.metrics.refused(e.code, e.reason);
                    v1::PlayResult {
                        request_id,
                        seq: None,
                        error: Some(Box::new(play_error(e))),
                    }
                }
            };
            let message = Ok(v1::PlayResponse {
                kind: Some(v1::play_response::Kind::Result(result)),
            });
            // Like the watch side, keeps the last place free for its final Lagged. A result is
            // sent even after the watch side has ended (the action that ended the match), to a
            // client that still reads.
            match tokio::time::timeout(self.send_timeout, self.tx.reserve_many(2)).await {
                Ok(Ok(mut places)) => places.next().expect("two places").send(message),
                Ok(Err(_)) | Err(_) => break,
            }
        }
    }

    /// What SubmitAction does with the action, for this stream's seat and game.
    async fn submit(&self, s: v1::SubmitActionRequest) -> Result<u64, ApiError> {
        // The stream was opened by a seat of its game: its actions are the token's to pay.
        self.limits.charge_token(self.token_id)?;
        if !s.game_id.is_empty() && s.game_id != self.game_id {
            return Err(ApiError::invalid(
                Reason::WrongGame,
                "submit.game_id",
                format!(
                    "this Play stream plays game {}, not {}: leave game_id empty, or open a \
                     stream for that game",
                    self.game_id,
                    canasta_engine::quote::quoted(&s.game_id)
                ),
            ));
        }
        let answer = submit_to(&self.handle, self.token.clone(), s, false).await?;
        Ok(answer.seq)
    }
}

/// A refusal as a Play stream reports it: what the status of a refused call says.
fn play_error(e: ApiError) -> v1::PlayError {
    v1::PlayError {
        code: e.code as i32,
        message: e.message,
        reason: e.reason.as_str().to_string(),
        field: e.field.unwrap_or_default(),
        // 0: none given.
        retry_after_ms: e.retry_after.map_or(0, retry_after_ms),
        metadata: e
            .metadata
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    }
}

/// Messages a watch stream queues for its client, before the transport's own buffers.
pub(super) const STREAM_QUEUE: usize = 64;

/// One watch stream: the backlog, then live events and prompts for the watcher, heartbeats
/// while idle; it ends when the match ends, when the watcher lags too far or does not take a
/// message for `send_timeout` (both with a final `Lagged`), when its seat is left, or at
/// shutdown.
pub(super) struct Watch<O> {
    pub(super) sub: Subscription,
    /// The seq of the last event the stream passed on.
    pub(super) last: u64,
    pub(super) include_actions: bool,
    pub(super) include_view: bool,
    pub(super) heartbeat: std::time::Duration,
    pub(super) send_timeout: std::time::Duration,
    /// When the stream last queued a message (a heartbeat is due a `heartbeat` after).
    pub(super) last_sent: tokio::time::Instant,
    pub(super) shutdown: watch::Receiver<bool>,
    pub(super) metrics: Arc<Metrics>,
    pub(super) tx: mpsc::Sender<Result<O, Status>>,
    /// The stream's place among its client's; freed when the stream ends.
    pub(super) _slot: Option<StreamSlot>,
}

enum Flow {
    Go,
    Stop,
}

/// The messages of a stream that carries what a watch stream sends: WatchGame's own, or
/// Play's.
pub(super) trait StreamOut: Send + 'static {
    fn wrap(message: v1::WatchGameResponse) -> Self;
}

impl StreamOut for v1::WatchGameResponse {
    fn wrap(message: v1::WatchGameResponse) -> Self {
        message
    }
}

impl StreamOut for v1::PlayResponse {
    fn wrap(message: v1::WatchGameResponse) -> Self {
        v1::PlayResponse {
            kind: Some(v1::play_response::Kind::Update(message)),
        }
    }
}

impl<O: StreamOut> Watch<O> {
    /// Queues a message for the client. A client that takes none for `send_timeout` (it does
    /// not read, or cannot) is told it lagged and the stream ends, so that it holds no place
    /// and no memory of the server's for longer. The queue keeps one place free for that
    /// final `Lagged`: each message waits for two free places and takes one.
    async fn send(&mut self, kind: v1::watch_game_response::Kind) -> Flow {
        let msg = Ok(O::wrap(v1::WatchGameResponse { kind: Some(kind) }));
        self.last_sent = tokio::time::Instant::now();
        // The usual case first, without a timer: the queue has room.
        if let Ok(mut places) = self.tx.try_reserve_many(2) {
            places.next().expect("two places").send(msg);
            return Flow::Go;
        }
        let sent = tokio::select! {
            places = tokio::time::timeout(self.send_timeout, self.tx.reserve_many(2)) => match places {
                Ok(Ok(mut places)) => {
                    places.next().expect("two places").send(msg);
                    Some(Flow::Go)
                }
                Ok(Err(_closed)) => Some(Flow::Stop),
                Err(_timed_out) => None,
            },
            _ = self.shutdown.changed() => Some(Flow::Stop),
        };
        sent.unwrap_or_else(|| self.lagged())
    }

    /// Ends the stream with `Lagged`: the client resumes by seq after the last event it got.
    fn lagged(&self) -> Flow {
        let lagged = v1::watch_game_response::Kind::Lagged(v1::Lagged {
            last_seq: self.last,
        });
        // The place kept free takes it; a client that has gone needs nothing.
        let _ = self
            .tx
            .try_send(Ok(O::wrap(v1::WatchGameResponse { kind: Some(lagged) })));
        Flow::Stop
    }

    async fn send_event(&mut self, event: &crate::actor::LogEvent) -> Flow {
        if event.seq <= self.last {
            return Flow::Go;
        }
        let wire = event.to_wire(self.sub.viewer);
        let ended = matches!(wire.kind, Some(v1::game_event::Kind::MatchEnded(_)));
        match self.send(v1::watch_game_response::Kind::Event(wire)).await {
            Flow::Go => {
                // Counted as passed on only once queued: a Lagged names the last one queued.
                self.last = event.seq;
                if ended { Flow::Stop } else { Flow::Go }
            }
            Flow::Stop => Flow::Stop,
        }
    }

    fn left_my_seat(&self, event: &crate::actor::LogEvent) -> bool {
        matches!(
            (&event.kind, self.sub.viewer),
            (
                crate::actor::LogKind::Server(v1::game_event::Kind::SeatLeft(left)),
                Viewer::Seat(s),
            ) if left.seat == s.0 as u32
        )
    }

    async fn send_prompt(&mut self, prompt: &PromptItem) -> Flow {
        let mine = matches!(self.sub.viewer, Viewer::Seat(s) if s.0 as u32 == prompt.prompt.seat);
        if !mine || prompt.prompt.seq != self.last {
            return Flow::Go;
        }
        let prompt = prompt.for_watcher(self.include_actions, self.include_view);
        self.send(v1::watch_game_response::Kind::Prompt(prompt))
            .await
    }

    /// Passes one item of the live feed on to the client.
    async fn pass_on(&mut self, item: Result<Item, broadcast::error::RecvError>) -> Flow {
        match item {
            Ok(Item::Event(e)) => match self.send_event(&e).await {
                // The holder gave up the seat: its stream must show nothing of the next
                // holder's (a live SeatLeft of the stream's seat is this holder's: a token
                // holds its seat from subscribing on).
                Flow::Go if self.left_my_seat(&e) => Flow::Stop,
                flow => flow,
            },
            Ok(Item::Prompt(p)) => self.send_prompt(&p).await,
            Err(broadcast::error::RecvError::Lagged(_)) => self.lagged(),
            Err(broadcast::error::RecvError::Closed) => Flow::Stop,
        }
    }

    pub(super) async fn run(mut self) {
        self.metrics.watcher(true);
        let backlog = std::mem::take(&mut self.sub.backlog);
        // A finished game sends what is asked and ends.
        let mut flow = if self.sub.finished && backlog.is_empty() {
            Flow::Stop
        } else {
            Flow::Go
        };
        for event in &backlog {
            flow = self.send_event(event).await;
            if matches!(flow, Flow::Stop) {
                break;
            }
        }
        if matches!(flow, Flow::Go)
            && let Some(p) = self.sub.prompt.take()
        {
            flow = self.send_prompt(&p).await;
        }
        // One timer for the heartbeats, moved on only when it fires: a timer made anew for
        // every message would cost more than the message.
        let beat = tokio::time::sleep(self.heartbeat);
        tokio::pin!(beat);
        while matches!(flow, Flow::Go) {
            tokio::select! {
                item = self.sub.live.recv() => {
                    flow = self.pass_on(item).await;
                    // What else the feed holds now goes out in the same turn: the events of
                    // one action and the prompt after them wake the stream once.
                    while matches!(flow, Flow::Go) {
                        let item = match self.sub.live.try_recv() {
                            Ok(item) => Ok(item),
                            Err(broadcast::error::TryRecvError::Empty) => break,
                            Err(broadcast::error::TryRecvError::Lagged(n)) => {
                                Err(broadcast::error::RecvError::Lagged(n))
                            }
                            Err(broadcast::error::TryRecvError::Closed) => {
                                Err(broadcast::error::RecvError::Closed)
                            }
                        };
                        flow = self.pass_on(item).await;
                    }
                }
                _ = &mut beat => {
                    let due = self.last_sent + self.heartbeat;
                    if tokio::time::Instant::now() >= due {
                        let seq = self.last;
                        flow = self.send(v1::watch_game_response::Kind::Heartbeat(v1::Heartbeat { seq })).await;
                    }
                    beat.as_mut().reset(self.last_sent + self.heartbeat);
                }
                _ = self.shutdown.changed() => flow = Flow::Stop,
                _ = self.tx.closed() => flow = Flow::Stop,
            }
        }
        self.metrics.watcher(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use tonic::Code;

    // A Play refusal says when to retry in whole milliseconds, rounded up: a rate limit that
    // frees up within a millisecond still asks for a wait, which a client may not read as none
    // given (0).
    #[test]
    fn a_play_refusal_rounds_its_retry_delay_up_to_a_millisecond() {
        let wait = |d: Duration| {
            play_error(ApiError::exhausted(Reason::RateLimited, "slow down", d)).retry_after_ms
        };
        assert_eq!(wait(Duration::from_micros(300)), 1);
        assert_eq!(wait(Duration::from_millis(5)), 5);
        assert_eq!(wait(Duration::from_micros(5_001)), 6);
        let other = play_error(ApiError::new(Code::Aborted, Reason::StaleSeq, "moved on"));
        assert_eq!(other.retry_after_ms, 0, "none given");
    }
}
