//! Talking to a server over the public protocol: connecting, creating and joining games, and
//! playing a seat with a bot that resumes by seq whenever its stream drops.

use std::time::{Duration, Instant};

use canasta_engine::bot::Bot;
use canasta_engine::{Rules, View};
use canasta_proto::convert::{action_to_wire, rules_from_wire, view_from_wire};
use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};

/// A client of the service.
pub type Client = CanastaServiceClient<Channel>;

/// Why a remote operation failed.
#[derive(Debug)]
pub struct RemoteError(pub String);

impl std::fmt::Display for RemoteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RemoteError {}

impl From<Status> for RemoteError {
    fn from(s: Status) -> Self {
        RemoteError(status_text(&s))
    }
}

/// A status as a person reads it: the message and the stable reason.
pub fn status_text(s: &Status) -> String {
    use tonic_types::StatusExt;
    match s.get_details_error_info() {
        Some(info) => format!("{} ({})", s.message(), info.reason),
        None => format!("{} ({:?})", s.message(), s.code()),
    }
}

/// Connects to `addr` (`host:port`, or a URI). An `https://` URI connects over TLS, trusting
/// the certificate authority in the PEM file named by `CANASTA_TLS_CA` if set, else the public
/// web authorities.
pub async fn connect(addr: &str) -> Result<Client, RemoteError> {
    let uri = if addr.contains("://") {
        addr.to_string()
    } else {
        format!("http://{addr}")
    };
    let mut endpoint = Channel::from_shared(uri.clone())
        .map_err(|e| RemoteError(format!("{addr} is not a server address: {e}")))?;
    if uri.starts_with("https://") {
        use tonic::transport::{Certificate, ClientTlsConfig};
        let tls = match std::env::var_os("CANASTA_TLS_CA") {
            Some(path) => {
                let pem = std::fs::read(&path).map_err(|e| {
                    RemoteError(format!(
                        "cannot read the certificate authority CANASTA_TLS_CA={}: {e}",
                        path.to_string_lossy()
                    ))
                })?;
                ClientTlsConfig::new().ca_certificate(Certificate::from_pem(pem))
            }
            None => ClientTlsConfig::new().with_webpki_roots(),
        };
        endpoint = endpoint
            .tls_config(tls)
            .map_err(|e| RemoteError(format!("cannot set up TLS for {addr}: {e}")))?;
    }
    let channel = endpoint
        .connect_timeout(Duration::from_secs(5))
        .connect()
        .await
        .map_err(|e| {
            // The transport's own message is vague ("transport error"): the causes say what
            // failed, e.g. a refused connection or an untrusted certificate.
            let mut why = e.to_string();
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                let text = c.to_string();
                if !why.contains(&text) {
                    why = format!("{why}: {text}");
                }
                cause = c.source();
            }
            RemoteError(format!(
                "cannot reach the server at {addr}: {why} (start one with `cargo run --release -p canasta-server`, or pass --server)"
            ))
        })?;
    Ok(CanastaServiceClient::new(channel))
}

/// A request carrying a seat token.
pub fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut r = Request::new(message);
    if let Ok(v) = format!("Bearer {token}").parse() {
        r.metadata_mut().insert("authorization", v);
    }
    r
}

/// The rules of a game, from its summary.
pub fn rules_of(summary: &v1::GameSummary) -> Result<Rules, RemoteError> {
    let wire = summary
        .rules
        .as_ref()
        .ok_or_else(|| RemoteError("the game has no rules".into()))?;
    let spec = rules_from_wire(wire).map_err(|e| RemoteError(e.to_string()))?;
    Rules::new(&spec).map_err(|e| RemoteError(e.to_string()))
}

/// A seat held by this client.
#[derive(Clone)]
pub struct SeatClient {
    /// The server's address.
    pub addr: String,
    /// The game.
    pub game_id: String,
    /// The seat.
    pub seat: u32,
    /// Its token.
    pub token: String,
    /// The game's rules.
    pub rules: Rules,
    /// Display names by seat.
    pub names: Vec<String>,
    /// How long [`play_seat`] keeps trying to reach the server again after it went away.
    pub reconnect: Duration,
    requests: u64,
    prefix: u64,
}

impl SeatClient {
    /// Joins a seat of a game (the lowest free one if `seat` is `None`).
    pub async fn join(
        client: &mut Client,
        addr: &str,
        game_id: &str,
        seat: Option<u32>,
        name: &str,
    ) -> Result<SeatClient, RemoteError> {
        let request = v1::JoinGameRequest {
            game_id: game_id.to_string(),
            seat,
            display_name: name.to_string(),
        };
        // A join refused for a limit took no seat: asking again is safe.
        let r = limited!(client.join_game(request.clone()).await)?.into_inner();
        let summary = r.game.unwrap_or_default();
        SeatClient::with_token(addr, &summary, r.seat, r.token)
    }

    /// A seat already joined, by its token.
    pub fn with_token(
        addr: &str,
        summary: &v1::GameSummary,
        seat: u32,
        token: String,
    ) -> Result<SeatClient, RemoteError> {
        Ok(SeatClient {
            addr: addr.to_string(),
            game_id: summary.game_id.clone(),
            seat,
            token,
            rules: rules_of(summary)?,
            names: summary
                .seats
                .iter()
                .map(|s| s.display_name.clone())
                .collect(),
            reconnect: DEFAULT_RECONNECT,
            requests: 0,
            prefix: rand::random(),
        })
    }

    /// Finds which seat a token holds.
    pub async fn from_token(
        client: &mut Client,
        addr: &str,
        game_id: &str,
        token: String,
    ) -> Result<SeatClient, RemoteError> {
        let view = client
            .get_view(authed(
                v1::GetViewRequest {
                    game_id: game_id.to_string(),
                    include_actions: false,
                },
                &token,
            ))
            .await?
            .into_inner();
        let seat = view
            .view
            .and_then(|v| v.viewer_seat)
            .ok_or_else(|| RemoteError("the token holds no seat".into()))?;
        let summary = client
            .get_game(v1::GetGameRequest {
                game_id: game_id.to_string(),
            })
            .await?
            .into_inner()
            .game
            .unwrap_or_default();
        SeatClient::with_token(addr, &summary, seat, token)
    }

    /// A fresh request id.
    pub fn request_id(&mut self) -> String {
        self.requests += 1;
        format!("{:x}-{}", self.prefix, self.requests)
    }

    /// The seat's view, in the engine's form, with the game's seq and status. A refusal for the
    /// request rate is waited out.
    pub async fn view(
        &self,
        client: &mut Client,
    ) -> Result<(View, u64, v1::GameStatus), RemoteError> {
        let r = self.get_view(client).await?;
        self.decode_view(r)
    }

    async fn get_view(&self, client: &mut Client) -> Result<v1::GetViewResponse, Status> {
        let request = v1::GetViewRequest {
            game_id: self.game_id.clone(),
            include_actions: false,
        };
        limited!(client.get_view(authed(request.clone(), &self.token)).await)
            .map(|r| r.into_inner())
    }

    fn decode_view(
        &self,
        r: v1::GetViewResponse,
    ) -> Result<(View, u64, v1::GameStatus), RemoteError> {
        let wire = r.view.ok_or_else(|| RemoteError("no view".into()))?;
        let status = v1::GameStatus::try_from(wire.status).unwrap_or(v1::GameStatus::Unspecified);
        let view = view_from_wire(&wire, self.rules).map_err(|e| RemoteError(e.to_string()))?;
        Ok((view, wire.seq, status))
    }

    /// The seat's view carried by a prompt (a stream opened with `include_view`), in the
    /// engine's form, with its seq; `None` if the prompt carries none.
    pub fn prompt_view(&self, prompt: &v1::Prompt) -> Option<Result<(View, u64), RemoteError>> {
        let wire = prompt.view.as_ref()?;
        Some(
            view_from_wire(wire, self.rules)
                .map(|v| (v, wire.seq))
                .map_err(|e| RemoteError(e.to_string())),
        )
    }

    /// The request that submits an action (with a fresh request id), as SubmitAction and a
    /// Play stream take it.
    pub fn submit_request(
        &mut self,
        expected_seq: u64,
        action: &canasta_engine::Action,
    ) -> v1::SubmitActionRequest {
        v1::SubmitActionRequest {
            game_id: self.game_id.clone(),
            expected_seq,
            request_id: self.request_id(),
            action: Some(action_to_wire(action)),
        }
    }

    /// Submits an action. A refusal for the request rate is waited out (as long as the
    /// server's RetryInfo says, at most [`RATE_LIMIT_ATTEMPTS`] times); a failed transport is
    /// retried on a new connection with the same request id, so the action applies once.
    pub async fn submit(
        &mut self,
        client: &mut Client,
        expected_seq: u64,
        action: &canasta_engine::Action,
    ) -> Result<v1::SubmitActionResponse, Status> {
        let request = self.submit_request(expected_seq, action);
        let mut delay = Duration::from_millis(50);
        let (mut limited_tries, mut transport_tries) = (0, 0);
        loop {
            let r = client
                .submit_action(authed(request.clone(), &self.token))
                .await;
            let s = match r {
                Ok(r) => return Ok(r.into_inner()),
                Err(s) => s,
            };
            if let Some(wait) = retry_delay(&s)
                && limited_tries < RATE_LIMIT_ATTEMPTS
            {
                limited_tries += 1;
                tokio::time::sleep(wait).await;
            } else if transient(&s) && transport_tries < 8 {
                transport_tries += 1;
                tokio::time::sleep(delay).await;
                delay *= 2;
                if let Ok(c) = connect(&self.addr).await {
                    *client = c;
                }
            } else {
                return Err(s);
            }
        }
    }
}

/// Refusals for a limit waited out in a row before giving up.
pub const RATE_LIMIT_ATTEMPTS: u32 = 20;

/// The longest wait for a limit: a server asking for more is asked again sooner.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(5);

/// How long to wait before sending a request again, if the status refused it for a limit:
/// RESOURCE_EXHAUSTED with a google.rpc.RetryInfo (the server's `RATE_LIMITED`,
/// `TOO_MANY_WATCHERS`, ...), its delay capped at [`MAX_RETRY_WAIT`]. `None` for any other
/// status, and for a limit the server gives no retry time for (a message too large).
pub fn retry_delay(s: &Status) -> Option<Duration> {
    use tonic_types::StatusExt;
    if s.code() != Code::ResourceExhausted {
        return None;
    }
    let info = s.get_details_retry_info()?;
    let delay = info.retry_delay.unwrap_or_default();
    Some(delay.clamp(Duration::from_millis(1), MAX_RETRY_WAIT))
}

/// Evaluates `$call` (an expression awaiting a request) again while the server refuses it for
/// a limit, waiting as long as it asks (see [`retry_delay`]), at most [`RATE_LIMIT_ATTEMPTS`]
/// times. Only for requests a refusal leaves undone: every limit is checked before a request
/// does anything. A macro rather than a function taking an async closure: the futures of such
/// closures cannot be proven `Send` for a spawned task yet.
macro_rules! limited {
    ($call:expr) => {{
        let mut tries = 0;
        loop {
            match $call {
                Err(s) => match $crate::remote::retry_delay(&s) {
                    Some(wait) if tries < $crate::remote::RATE_LIMIT_ATTEMPTS => {
                        tries += 1;
                        tokio::time::sleep(wait).await;
                    }
                    _ => break Err(s),
                },
                done => break done,
            }
        }
    }};
}
pub(crate) use limited;

/// Errors worth retrying: the connection, not the request.
pub fn transient(s: &Status) -> bool {
    matches!(
        s.code(),
        Code::Unavailable | Code::Unknown | Code::Cancelled | Code::DeadlineExceeded
    )
}

/// How long a seat keeps trying to reach a server that went away, unless told otherwise.
pub const DEFAULT_RECONNECT: Duration = Duration::from_secs(60);

/// Plays `seat` with `bot` until the match ends; returns its result. A dropped stream or
/// connection is resumed by seq, for as long as `seat.reconnect` without an answer from the
/// server; `on_event` sees every event once.
pub async fn play_seat(
    client: &mut Client,
    seat: &mut SeatClient,
    bot: &mut dyn Bot,
    mut on_event: impl FnMut(&v1::GameEvent),
) -> Result<v1::MatchResult, RemoteError> {
    let mut last = 0u64;
    // Since when the server has not answered, and how many times the bot resumed since.
    let mut heard = Instant::now();
    let mut resumed = 0u32;
    let mut limited_tries = 0u32;
    loop {
        let opened = client
            .watch_game(authed(
                v1::WatchGameRequest {
                    game_id: seat.game_id.clone(),
                    after_seq: last,
                    include_actions: false,
                    include_view: true,
                },
                &seat.token,
            ))
            .await;
        let why = match opened {
            Ok(stream) => {
                let mut stream = stream.into_inner();
                limited_tries = 0;
                let mut why = "the server closed the stream".to_string();
                while let Some(message) = stream.next().await {
                    let message = match message {
                        Ok(m) => m,
                        Err(s) => {
                            why = status_text(&s);
                            break;
                        }
                    };
                    heard = Instant::now();
                    resumed = 0;
                    use v1::watch_game_response::Kind;
                    match message.kind {
                        Some(Kind::Event(e)) => {
                            if e.seq <= last {
                                continue;
                            }
                            last = e.seq;
                            on_event(&e);
                            if let Some(v1::game_event::Kind::SeatJoined(j)) = &e.kind
                                && let Some(n) = seat.names.get_mut(j.seat as usize)
                            {
                                *n = j.display_name.clone();
                            }
                            if let Some(v1::game_event::Kind::MatchEnded(m)) = e.kind {
                                return Ok(m.result.unwrap_or_default());
                            }
                        }
                        Some(Kind::Prompt(p)) if p.seq == last => {
                            if let Acted::Resume(w) = act(client, seat, bot, &p).await? {
                                why = w;
                                break;
                            }
                        }
                        Some(Kind::Lagged(_)) => {
                            why = "the stream fell behind".to_string();
                            break;
                        }
                        _ => {}
                    }
                }
                why
            }
            Err(s) => match retry_delay(&s) {
                Some(wait) if limited_tries < RATE_LIMIT_ATTEMPTS => {
                    limited_tries += 1;
                    tokio::time::sleep(wait).await;
                    continue;
                }
                _ if transient(&s) => status_text(&s),
                _ => return Err(s.into()),
            },
        };
        // Resume after the last event seen, on a new connection.
        if heard.elapsed() > seat.reconnect {
            return Err(RemoteError(format!(
                "lost the server at {}: {why}; it has not answered for {} s, so the seat gives up (--reconnect-secs sets how long to keep trying)",
                seat.addr,
                heard.elapsed().as_secs()
            )));
        }
        resumed += 1;
        reconnect(client, &seat.addr, resumed).await;
    }
}

async fn reconnect(client: &mut Client, addr: &str, attempt: u32) {
    tokio::time::sleep(Duration::from_millis(50 * attempt.min(20) as u64)).await;
    if let Ok(c) = connect(addr).await {
        *client = c;
    }
}

/// What became of a prompt.
enum Acted {
    /// The action was submitted (or the game had moved on: a fresh prompt follows).
    Done,
    /// The connection failed: resume the stream, which prompts again if the action was lost.
    Resume(String),
}

/// Decides and submits one action for the seat, from the view in its prompt (or its current
/// view, if the prompt carries none).
async fn act(
    client: &mut Client,
    seat: &mut SeatClient,
    bot: &mut dyn Bot,
    prompt: &v1::Prompt,
) -> Result<Acted, RemoteError> {
    let (view, seq) = match seat.prompt_view(prompt) {
        Some(v) => v?,
        None => match seat.get_view(client).await {
            Ok(r) => {
                let (view, seq, _) = seat.decode_view(r)?;
                (view, seq)
            }
            Err(s) if transient(&s) => return Ok(Acted::Resume(status_text(&s))),
            Err(s) => return Err(s.into()),
        },
    };
    let Some(legal) = view.legal() else {
        // Not our turn after all (the prompt was stale).
        return Ok(Acted::Done);
    };
    let action = bot.choose(&view, &legal);
    match seat.submit(client, seq, &action).await {
        Ok(_) => Ok(Acted::Done),
        // The game moved on; a fresh prompt follows.
        Err(s) if s.code() == Code::Aborted => Ok(Acted::Done),
        Err(s) if transient(&s) => Ok(Acted::Resume(status_text(&s))),
        Err(s) => Err(RemoteError(format!(
            "the server refused the bot's action {action}: {}",
            status_text(&s)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::{ErrorDetails, StatusExt};

    fn exhausted(retry: Option<Duration>) -> Status {
        let mut details = ErrorDetails::with_error_info("RATE_LIMITED", "canasta", []);
        if let Some(r) = retry {
            details.set_retry_info(Some(r));
        }
        Status::with_error_details(Code::ResourceExhausted, "slow down", details)
    }

    #[test]
    fn limits_are_retried_after_the_delay_the_server_asks_for() {
        let wait = Duration::from_millis(250);
        assert_eq!(retry_delay(&exhausted(Some(wait))), Some(wait));
        // A long wait is capped; no retry information, or another code, is not retried.
        assert_eq!(
            retry_delay(&exhausted(Some(Duration::from_secs(3600)))),
            Some(MAX_RETRY_WAIT)
        );
        assert_eq!(retry_delay(&exhausted(None)), None);
        assert_eq!(retry_delay(&Status::unavailable("gone")), None);
        assert_eq!(retry_delay(&Status::failed_precondition("no")), None);
    }

    #[tokio::test(start_paused = true)]
    async fn limited_calls_wait_then_succeed_or_give_up() {
        let wait = Duration::from_millis(300);
        let started = tokio::time::Instant::now();
        let mut calls = 0;
        let mut call = |refusal: Status, succeed_at: u32| {
            calls += 1;
            if calls < succeed_at {
                Err(refusal)
            } else {
                Ok(calls)
            }
        };
        let r = limited!(async { call(exhausted(Some(wait)), 3) }.await);
        assert_eq!(r.unwrap(), 3);
        assert_eq!(started.elapsed(), wait * 2, "it waited as asked, twice");
        let mut calls = 0;
        let r: Result<(), Status> = limited!(
            async {
                calls += 1;
                Err(exhausted(Some(wait)))
            }
            .await
        );
        assert_eq!(r.unwrap_err().code(), Code::ResourceExhausted);
        assert_eq!(
            calls,
            RATE_LIMIT_ATTEMPTS + 1,
            "a bounded number of attempts"
        );
        let mut calls = 0;
        let r: Result<(), Status> = limited!(
            async {
                calls += 1;
                Err(Status::permission_denied("not yours"))
            }
            .await
        );
        assert!(r.is_err());
        assert_eq!(calls, 1, "other refusals are not retried");
    }
}
