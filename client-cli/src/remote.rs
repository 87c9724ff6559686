//! Talking to a server over the public protocol: connecting, creating and joining games, and
//! playing a seat with a bot that resumes by seq whenever its stream drops.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::time::Duration;

use canasta_engine::bot::Bot;
use canasta_engine::{Action, Rules, View};
use canasta_proto::convert::{action_to_wire, rules_from_wire, view_from_wire};
use canasta_proto::reason::{Reason, raw_reason_of, reason_of};
use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use tokio::sync::mpsc;
// tokio's clock, which tests pause: a seat's patience is time on it.
use tokio::time::Instant;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::{Code, Request, Status, Streaming};

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
    match raw_reason_of(s) {
        Some(reason) => match Reason::parse(&reason).and_then(client_hint) {
            Some(hint) => format!("{} ({reason}); {hint}", s.message()),
            None => format!("{} ({reason})", s.message()),
        },
        // Said by a server that has no such method: another service, a proxy in front of
        // none, or an older canasta-server. Its message is often empty.
        None if s.code() == Code::Unimplemented => format!(
            "the server does not serve this call of the Canasta service (Unimplemented{}{}): \
             check that --server is the address of a canasta-server of this version",
            if s.message().is_empty() { "" } else { ": " },
            s.message()
        ),
        None if s.message().is_empty() => format!("the call failed ({:?})", s.code()),
        None => format!("{} ({:?})", s.message(), s.code()),
    }
}

/// What this client adds to a server's message that names a gRPC method (the server speaks to
/// every client): the command that does it here.
fn client_hint(reason: Reason) -> Option<&'static str> {
    match reason {
        Reason::GameNotFound => Some("with this client: `canasta games` lists them"),
        Reason::NotASeatOfGame => Some(
            "with this client: give the token `canasta play` showed when it took a seat of this game",
        ),
        Reason::NameTaken => Some("with this client: `canasta register ANOTHER_NAME`"),
        Reason::PlayerNotFound => {
            Some("with this client: `canasta leaderboard` lists the rated players")
        }
        Reason::HouseBotsUnavailable => {
            Some("with this client: drop --fill-with-bots-after, and wait for other players' bots")
        }
        Reason::RatedHouseRules => {
            Some("with this client: drop --option, or ask for unrated games with --unrated")
        }
        Reason::UnknownPlayerKey => Some(
            "with this client: give the key `canasta register` printed or wrote (--key-file FILE, or CANASTA_KEY)",
        ),
        _ => None,
    }
}

/// Connects to `addr` (`host:port`, or a URI). An `https://` URI connects over TLS, trusting
/// the certificate authority in the PEM file named by `CANASTA_TLS_CA` if set, else the public
/// web authorities.
pub async fn connect(addr: &str) -> Result<Client, RemoteError> {
    Ok(CanastaServiceClient::new(channel(addr).await?))
}

/// The web page's address for game `game_id` on the server at `addr` (`host:port`, or a URI),
/// if that server serves its page (asked with a `GET /` over `channel`, the server's own
/// connection; not every server does: `--no-web`, or an older one). The page watches the game
/// as a spectator.
pub async fn page_url(channel: &Channel, addr: &str, game_id: &str) -> Option<String> {
    use tonic::codegen::{Service, http};
    let base = if addr.contains("://") {
        addr.trim_end_matches('/').to_string()
    } else {
        format!("http://{addr}")
    };
    let request = http::Request::get(format!("{base}/"))
        .body(tonic::body::Body::empty())
        .ok()?;
    let mut channel = channel.clone();
    let ask = async {
        std::future::poll_fn(|cx| {
            Service::<http::Request<tonic::body::Body>>::poll_ready(&mut channel, cx)
        })
        .await
        .ok()?;
        channel.call(request).await.ok()
    };
    let response = tokio::time::timeout(Duration::from_secs(5), ask)
        .await
        .ok()??;
    let html = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|t| t.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html"));
    (response.status() == http::StatusCode::OK && html)
        .then(|| format!("{base}/#/game/{game_id}/watch"))
}

/// A connection to `addr`, as [`connect`] makes it, for any of the server's services (the
/// lobby's too): its clones share one HTTP/2 connection.
pub async fn channel(addr: &str) -> Result<Channel, RemoteError> {
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
    Ok(channel)
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

/// A JoinGame that failed, as this client says it: the server's refusal took no seat, but a
/// join whose answer the transport lost may have taken one, whose token nobody holds.
fn join_failed(s: Status) -> RemoteError {
    if !transient(&s) {
        return RemoteError::from(s);
    }
    RemoteError(format!(
        "the join got no answer: {}; if the server stored it, the seat is held by a token this client never received: join another seat, or `canasta games` shows whether this one is taken",
        status_text(&s)
    ))
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
    /// How [`play_seat`] plays: with a WatchGame stream and a SubmitAction call per action
    /// (`true`), or over one Play call (`false`, the default: cheaper for both sides).
    pub unary: bool,
    requests: u64,
    prefix: u64,
    /// The seat's actions the server applied.
    applied: u64,
    /// Actions sent on a Play call whose answer had not come when the next prompt did (a Play
    /// call's answers and events come from two sides of the server, in either order): their
    /// answers, when they come, still count in `applied`. Oldest first, at most
    /// [`UNANSWERED_KEPT`].
    unanswered: VecDeque<String>,
}

/// The most actions kept waiting for their answer after a later prompt came. The server answers
/// every action it receives, so the list stays short; the cap only bounds a server that does not.
const UNANSWERED_KEPT: usize = 16;

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
        // A join refused for a limit took no seat: asking again is safe. One whose answer was
        // lost may have taken it: asking again could take a second seat, so it is said instead.
        let r = limited!(client.join_game(request.clone()).await)
            .map_err(join_failed)?
            .into_inner();
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
            unary: false,
            requests: 0,
            prefix: rand::random(),
            applied: 0,
            unanswered: VecDeque::new(),
        })
    }

    /// Finds which seat a token holds.
    pub async fn from_token(
        client: &mut Client,
        addr: &str,
        game_id: &str,
        token: String,
    ) -> Result<SeatClient, RemoteError> {
        // Reads only: asking again after a limit's delay is safe (a bot restarted on a busy
        // token must not give up at once).
        let request = v1::GetViewRequest {
            game_id: game_id.to_string(),
            include_actions: false,
        };
        let view = limited!(client.get_view(authed(request.clone(), &token)).await)?.into_inner();
        let seat = view
            .view
            .and_then(|v| v.viewer_seat)
            .ok_or_else(|| RemoteError("the token holds no seat".into()))?;
        let request = v1::GetGameRequest {
            game_id: game_id.to_string(),
        };
        let summary = limited!(client.get_game(request.clone()).await)?
            .into_inner()
            .game
            .unwrap_or_default();
        SeatClient::with_token(addr, &summary, seat, token)
    }

    /// The seat's actions the server applied so far (not those it took for the seat on a
    /// time-out).
    pub fn applied(&self) -> u64 {
        self.applied
    }

    /// Keeps waiting for the answer to an action sent earlier on a Play call.
    fn await_answer(&mut self, request_id: String) {
        if self.unanswered.len() == UNANSWERED_KEPT {
            self.unanswered.pop_front();
        }
        self.unanswered.push_back(request_id);
    }

    /// Whether `result` answers an action sent before the one in flight; if so, it is counted
    /// when applied and no longer waited for.
    fn answer_of_unanswered(&mut self, result: &v1::PlayResult) -> bool {
        let Some(i) = self
            .unanswered
            .iter()
            .position(|id| *id == result.request_id)
        else {
            return false;
        };
        self.unanswered.remove(i);
        if result.error.is_none() {
            self.applied += 1;
        }
        true
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

    /// What the seat's streams ask for: the events after `after_seq`, and prompts that carry
    /// the seat's view (so that a move costs no GetView).
    pub fn watch_request(&self, after_seq: u64) -> v1::WatchGameRequest {
        v1::WatchGameRequest {
            game_id: self.game_id.clone(),
            after_seq,
            include_actions: false,
            include_view: true,
        }
    }

    /// Opens the seat's watch stream, from the events after `after_seq`.
    pub async fn watch(
        &self,
        client: &mut Client,
        after_seq: u64,
    ) -> Result<Streaming<v1::WatchGameResponse>, Status> {
        let request = authed(self.watch_request(after_seq), &self.token);
        Ok(client.watch_game(request).await?.into_inner())
    }

    /// Opens a Play call for the seat, watching from the events after `after_seq`.
    pub async fn open_play(&self, client: &mut Client, after_seq: u64) -> Result<PlayCall, Status> {
        // The opening request is queued before the call starts: the server reads it before it
        // answers the call.
        let (requests, rx) = mpsc::channel(4);
        let opening = v1::PlayRequest {
            kind: Some(v1::play_request::Kind::Watch(self.watch_request(after_seq))),
        };
        requests.send(opening).await.expect("the receiver is here");
        let stream = tokio_stream::wrappers::ReceiverStream::new(rx);
        let responses = client.play(authed(stream, &self.token)).await?.into_inner();
        Ok(PlayCall {
            requests,
            responses,
        })
    }

    /// The request that submits an action (with a fresh request id), as SubmitAction and a
    /// Play stream take it.
    pub fn submit_request(
        &mut self,
        expected_seq: u64,
        action: &Action,
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
        action: &Action,
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

/// A seat's open Play call: actions go in, watch-stream updates and the actions' results come
/// out. Dropping it closes the call.
pub struct PlayCall {
    requests: mpsc::Sender<v1::PlayRequest>,
    /// What the server sends.
    pub responses: Streaming<v1::PlayResponse>,
}

impl PlayCall {
    /// Sends an action on the call; false if the call no longer takes any (it ended).
    pub async fn submit(&self, request: v1::SubmitActionRequest) -> bool {
        let request = v1::PlayRequest {
            kind: Some(v1::play_request::Kind::Submit(request)),
        };
        self.requests.send(request).await.is_ok()
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

/// Errors worth retrying: the connection, not the request. An error without the service's
/// reason comes from the transport, whatever its code (docs/bots.md): tonic reports a call
/// refused by the GOAWAY of a server shutting down as INTERNAL. Except UNIMPLEMENTED: a server
/// without the method will not have it on the next try.
pub fn transient(s: &Status) -> bool {
    if s.code() == Code::Unimplemented {
        return false;
    }
    matches!(
        s.code(),
        Code::Unavailable | Code::Unknown | Code::Cancelled | Code::DeadlineExceeded
    ) || raw_reason_of(s).is_none()
}

/// A refusal reported on a Play call, as the status of a refused SubmitAction carries it (an
/// ErrorInfo, and a BadRequest and a RetryInfo when given): [`retry_delay`], [`transient`] and
/// [`status_text`] then read both alike.
pub fn play_error_status(e: &v1::PlayError) -> Status {
    use tonic_types::{ErrorDetails, StatusExt};
    let mut details = ErrorDetails::with_error_info(
        e.reason.clone(),
        canasta_proto::reason::DOMAIN,
        e.metadata.clone(),
    );
    if !e.field.is_empty() {
        details.add_bad_request_violation(e.field.clone(), e.message.clone());
    }
    if e.retry_after_ms > 0 {
        details.set_retry_info(Some(Duration::from_millis(e.retry_after_ms)));
    }
    Status::with_error_details(Code::from_i32(e.code), e.message.clone(), details)
}

/// How long a seat keeps trying to reach a server that went away, unless told otherwise.
pub const DEFAULT_RECONNECT: Duration = Duration::from_secs(60);

/// Plays `seat` with `bot` until the match ends; returns its result. The seat plays over one
/// Play call, or, if `seat.unary`, with a watch stream and a SubmitAction call per action.
/// Either way a dropped stream or connection is resumed by seq, for as long as
/// `seat.reconnect` without an answer from the server; a refusal for a limit is waited out as
/// the server asks; `on_event` sees every event once.
pub async fn play_seat(
    client: &mut Client,
    seat: &mut SeatClient,
    bot: &mut dyn Bot,
    mut on_event: impl FnMut(&v1::GameEvent),
) -> Result<v1::MatchResult, RemoteError> {
    let played = play_seat_until(client, seat, bot, |e| {
        on_event(e);
        ControlFlow::Continue(())
    })
    .await?;
    Ok(played.expect("a seat that is never told to stop plays to the end"))
}

/// Plays `seat` as [`play_seat`] does, until the match ends (its result) or `on_event` breaks
/// on an event (`None`: the seat stops reading and acting there, its seat still taken).
pub async fn play_seat_until(
    client: &mut Client,
    seat: &mut SeatClient,
    bot: &mut dyn Bot,
    mut on_event: impl FnMut(&v1::GameEvent) -> ControlFlow<()>,
) -> Result<Option<v1::MatchResult>, RemoteError> {
    let mut link = Link::new(0);
    // Kept across Play calls: an action whose answer was lost with its call is sent again, with
    // its request id, when its prompt comes again.
    let mut pending = None;
    loop {
        let session = if seat.unary {
            watch_and_submit(client, seat, bot, &mut link, &mut on_event).await?
        } else {
            play_call(client, seat, bot, &mut link, &mut pending, &mut on_event).await?
        };
        let why = match session {
            Session::Ended(result) => return Ok(Some(result)),
            Session::Stopped => return Ok(None),
            Session::Dropped(why) => why,
            Session::Refused(s) => match retry_delay(&s) {
                Some(wait) if link.limited < RATE_LIMIT_ATTEMPTS => {
                    link.limited += 1;
                    tokio::time::sleep(wait).await;
                    continue;
                }
                _ if transient(&s) => status_text(&s),
                _ => return Err(s.into()),
            },
        };
        link.reconnect(client, &seat.addr, seat.reconnect, &why)
            .await?;
    }
}

/// How one stream of a seat ended.
enum Session {
    /// With the match, whose result this is.
    Ended(v1::MatchResult),
    /// Where the seat's `on_event` told it to stop.
    Stopped,
    /// The server refused to open it.
    Refused(Status),
    /// Before the match ended, for this reason: the seat resumes.
    Dropped(String),
}

/// Why a stream that fell behind ends.
const LAGGED: &str = "the stream fell behind";

/// What a follower of a game's stream (a seat, or a watcher) keeps from one stream to the
/// next.
pub(crate) struct Link {
    /// The seq of the last event seen: the next stream starts after it.
    pub(crate) last: u64,
    /// When the server last sent something.
    heard: Instant,
    /// Streams opened again since then.
    resumed: u32,
    /// Refusals for a limit in a row while opening a stream.
    pub(crate) limited: u32,
}

impl Link {
    /// A link that has seen the events up to `last`.
    pub(crate) fn new(last: u64) -> Link {
        Link {
            last,
            heard: Instant::now(),
            resumed: 0,
            limited: 0,
        }
    }

    /// A stream opened.
    pub(crate) fn opened(&mut self) {
        self.limited = 0;
    }

    /// The next message of a stream, or why the stream ended.
    pub(crate) async fn next<T>(&mut self, stream: &mut Streaming<T>) -> Result<T, String> {
        match stream.next().await {
            Some(Ok(m)) => {
                // The server answered: the patience for reconnecting starts again.
                self.heard = Instant::now();
                self.resumed = 0;
                Ok(m)
            }
            Some(Err(s)) => Err(status_text(&s)),
            None => Err("the server closed the stream".to_string()),
        }
    }

    /// Reads one message of a stream: notes an event seen for the first time and says what the
    /// seat must do about the message.
    fn update<F: FnMut(&v1::GameEvent) -> ControlFlow<()>>(
        &mut self,
        seat: &mut SeatClient,
        message: v1::WatchGameResponse,
        on_event: &mut F,
    ) -> Update {
        use v1::watch_game_response::Kind;
        match message.kind {
            Some(Kind::Event(e)) if e.seq > self.last => {
                self.last = e.seq;
                if on_event(&e).is_break() {
                    return Update::Stopped;
                }
                match e.kind {
                    Some(v1::game_event::Kind::SeatJoined(j)) => {
                        if let Some(n) = seat.names.get_mut(j.seat as usize) {
                            *n = j.display_name;
                        }
                        Update::Read
                    }
                    Some(v1::game_event::Kind::MatchEnded(m)) => {
                        Update::Ended(m.result.unwrap_or_default())
                    }
                    _ => Update::Read,
                }
            }
            // A prompt older than the last event is stale: a fresh one follows if needed.
            Some(Kind::Prompt(p)) if p.seq == self.last => Update::Act(Box::new(p)),
            Some(Kind::Lagged(_)) => Update::Lagged,
            _ => Update::Read,
        }
    }

    /// Connects again to `addr` after a stream ended for `why`, after a pause that grows with
    /// the attempts; gives up once the server has not answered for `patience`.
    pub(crate) async fn reconnect(
        &mut self,
        client: &mut Client,
        addr: &str,
        patience: Duration,
        why: &str,
    ) -> Result<(), RemoteError> {
        if let Some(channel) = self.reconnect_channel(addr, patience, why).await? {
            *client = CanastaServiceClient::new(channel);
        }
        Ok(())
    }

    /// As [`Link::reconnect`], for a client of any service: the new connection, or `None` if
    /// this attempt failed (the caller tries again on its next break).
    pub(crate) async fn reconnect_channel(
        &mut self,
        addr: &str,
        patience: Duration,
        why: &str,
    ) -> Result<Option<Channel>, RemoteError> {
        if self.heard.elapsed() > patience {
            return Err(RemoteError(format!(
                "lost the server at {addr}: {why}; it has not answered for {} s, so this client gives up (--reconnect-secs sets how long to keep trying)",
                self.heard.elapsed().as_secs()
            )));
        }
        self.resumed += 1;
        tokio::time::sleep(Duration::from_millis(50 * self.resumed.min(20) as u64)).await;
        Ok(channel(addr).await.ok())
    }
}

/// What a message of a seat's stream asks of it.
enum Update {
    /// Nothing: read on.
    Read,
    /// Act on this prompt (boxed: it carries the seat's whole view).
    Act(Box<v1::Prompt>),
    /// The match ended, with this result.
    Ended(v1::MatchResult),
    /// The seat's `on_event` said to stop.
    Stopped,
    /// The stream fell behind and ends.
    Lagged,
}

/// What a seat does after a prompt or an answer.
#[derive(Debug, PartialEq)]
enum Next {
    /// Reads on: the next event, prompt or answer.
    Read,
    /// The connection failed: resume the stream, which prompts again if the action was lost.
    Resume(String),
}

/// Plays over a watch stream, submitting each action with a SubmitAction call (which waits
/// out limits and retries a failed transport itself), until the match or the stream ends.
async fn watch_and_submit<F: FnMut(&v1::GameEvent) -> ControlFlow<()>>(
    client: &mut Client,
    seat: &mut SeatClient,
    bot: &mut dyn Bot,
    link: &mut Link,
    on_event: &mut F,
) -> Result<Session, RemoteError> {
    let mut stream = match seat.watch(client, link.last).await {
        Ok(s) => s,
        Err(s) => return Ok(Session::Refused(s)),
    };
    link.opened();
    loop {
        let message = match link.next(&mut stream).await {
            Ok(m) => m,
            Err(why) => return Ok(Session::Dropped(why)),
        };
        let prompt = match link.update(seat, message, on_event) {
            Update::Read => continue,
            Update::Act(p) => p,
            Update::Ended(result) => return Ok(Session::Ended(result)),
            Update::Stopped => return Ok(Session::Stopped),
            Update::Lagged => return Ok(Session::Dropped(LAGGED.into())),
        };
        let next = match decide(client, seat, bot, &prompt).await? {
            Decision::Act(seq, action) => match seat.submit(client, seq, &action).await {
                Ok(_) => {
                    seat.applied += 1;
                    Next::Read
                }
                Err(s) => after_refusal(&s, &action)?,
            },
            Decision::Then(next) => next,
        };
        if let Next::Resume(why) = next {
            return Ok(Session::Dropped(why));
        }
    }
}

/// An action sent on a Play call and not answered yet.
struct Pending {
    request: v1::SubmitActionRequest,
    /// The action, to name it if it is refused for good.
    action: Action,
    /// Refusals for a limit in a row.
    limited: u32,
    /// Sent on the Play call open now (an action kept from a call that ended is answered on
    /// no other).
    on_this_call: bool,
}

/// Plays over one Play call, sending each action on it, until the match or the call ends.
/// `pending` is the action sent and not answered yet.
async fn play_call<F: FnMut(&v1::GameEvent) -> ControlFlow<()>>(
    client: &mut Client,
    seat: &mut SeatClient,
    bot: &mut dyn Bot,
    link: &mut Link,
    pending: &mut Option<Pending>,
    on_event: &mut F,
) -> Result<Session, RemoteError> {
    let mut call = match seat.open_play(client, link.last).await {
        Ok(c) => c,
        Err(s) => return Ok(Session::Refused(s)),
    };
    link.opened();
    // The answers still awaited were lost with the call before.
    seat.unanswered.clear();
    if let Some(p) = pending {
        p.on_this_call = false;
    }
    loop {
        let message = match link.next(&mut call.responses).await {
            Ok(m) => m,
            Err(why) => return Ok(Session::Dropped(why)),
        };
        use v1::play_response::Kind;
        let next = match message.kind {
            Some(Kind::Update(u)) => match link.update(seat, u, on_event) {
                Update::Read => Next::Read,
                Update::Act(p) => prompted(client, &call, seat, bot, &p, pending).await?,
                Update::Ended(result) => return Ok(Session::Ended(result)),
                Update::Stopped => {
                    settle(&mut call, link, pending, seat).await;
                    return Ok(Session::Stopped);
                }
                Update::Lagged => Next::Resume(LAGGED.into()),
            },
            Some(Kind::Result(r)) if seat.answer_of_unanswered(&r) => Next::Read,
            Some(Kind::Result(r)) => match answered(pending, &mut seat.applied, r)? {
                Answer::Then(next) => next,
                Answer::Retry(wait, request) => {
                    tokio::time::sleep(wait).await;
                    send(&call, request).await
                }
            },
            None => Next::Read,
        };
        if let Next::Resume(why) = next {
            return Ok(Session::Dropped(why));
        }
    }
}

/// Reads a Play call on until the actions in flight are answered: their events may come before
/// their answers, and a seat that stops on them counts those applied. Gives up if the call ends
/// first (the server answers every action it receives).
async fn settle(
    call: &mut PlayCall,
    link: &mut Link,
    pending: &mut Option<Pending>,
    seat: &mut SeatClient,
) {
    while pending.is_some() || !seat.unanswered.is_empty() {
        let Ok(message) = link.next(&mut call.responses).await else {
            return;
        };
        let Some(v1::play_response::Kind::Result(r)) = message.kind else {
            continue;
        };
        if seat.answer_of_unanswered(&r) {
            continue;
        }
        if let Some(p) = pending
            && r.request_id == p.request.request_id
        {
            if r.error.is_none() {
                seat.applied += 1;
            }
            *pending = None;
        }
    }
}

/// Sends the seat's action for a prompt on a Play call: the action in flight again if it
/// answers this very prompt (its answer was lost with an earlier call; the same request id
/// makes it apply once), else the bot's choice.
async fn prompted(
    client: &mut Client,
    call: &PlayCall,
    seat: &mut SeatClient,
    bot: &mut dyn Bot,
    prompt: &v1::Prompt,
    pending: &mut Option<Pending>,
) -> Result<Next, RemoteError> {
    let resend = pending
        .as_ref()
        .filter(|p| p.request.expected_seq == prompt.seq);
    let request = match resend {
        Some(p) => p.request.clone(),
        None => match decide(client, seat, bot, prompt).await? {
            Decision::Act(seq, action) => {
                let request = seat.submit_request(seq, &action);
                // The action before, if still unanswered, was applied or overtaken (a prompt
                // for a later seq came): its answer is still to be counted.
                if let Some(earlier) = pending.take().filter(|p| p.on_this_call) {
                    seat.await_answer(earlier.request.request_id);
                }
                *pending = Some(Pending {
                    request: request.clone(),
                    action,
                    limited: 0,
                    on_this_call: true,
                });
                request
            }
            Decision::Then(next) => return Ok(next),
        },
    };
    Ok(send(call, request).await)
}

/// Sends an action on a Play call.
async fn send(call: &PlayCall, request: v1::SubmitActionRequest) -> Next {
    if call.submit(request).await {
        Next::Read
    } else {
        Next::Resume("the server closed the Play call".into())
    }
}

/// What the answer to an action sent on a Play call asks of the seat.
#[derive(Debug)]
enum Answer {
    /// Go on as this says.
    Then(Next),
    /// Send this request again (the same request id) after this wait.
    Retry(Duration, v1::SubmitActionRequest),
}

/// Reads the answer to an action sent on a Play call. A refusal for a limit is retried after
/// the delay the server asks for (at most [`RATE_LIMIT_ATTEMPTS`] times in a row), as
/// [`SeatClient::submit`] retries; any other refusal is read as a refused SubmitAction is
/// ([`after_refusal`]).
fn answered(
    pending: &mut Option<Pending>,
    applied: &mut u64,
    result: v1::PlayResult,
) -> Result<Answer, RemoteError> {
    // The answer to an action given up on (a newer prompt came since) changes nothing.
    let Some(p) = pending
        .as_mut()
        .filter(|p| p.request.request_id == result.request_id)
    else {
        return Ok(Answer::Then(Next::Read));
    };
    let Some(error) = result.error else {
        *pending = None;
        *applied += 1;
        return Ok(Answer::Then(Next::Read));
    };
    let status = play_error_status(&error);
    if let Some(wait) = retry_delay(&status)
        && p.limited < RATE_LIMIT_ATTEMPTS
    {
        p.limited += 1;
        return Ok(Answer::Retry(wait, p.request.clone()));
    }
    let next = after_refusal(&status, &p.action)?;
    // A transient refusal keeps the action, to send it again when its prompt comes again.
    if matches!(next, Next::Read) {
        *pending = None;
    }
    Ok(Answer::Then(next))
}

/// The bot's move on a prompt.
enum Decision {
    /// Submit this action, expecting this seq.
    Act(u64, Action),
    /// Nothing to submit.
    Then(Next),
}

/// Lets the bot choose an action for a prompt, from the view in the prompt (or the seat's
/// current view, if the prompt carries none).
async fn decide(
    client: &mut Client,
    seat: &SeatClient,
    bot: &mut dyn Bot,
    prompt: &v1::Prompt,
) -> Result<Decision, RemoteError> {
    let (view, seq, time_left) = match seat.prompt_view(prompt) {
        Some(v) => v.map(|(view, seq)| (view, seq, prompt.time_left_ms))?,
        None => match seat.get_view(client).await {
            Ok(r) => {
                // The time left as GetView answers it: later than the prompt's.
                let time_left = r.time_left_ms;
                let (view, seq, _) = seat.decode_view(r)?;
                (view, seq, time_left)
            }
            Err(s) if transient(&s) => return Ok(Decision::Then(Next::Resume(status_text(&s)))),
            Err(s) => return Err(s.into()),
        },
    };
    match view.legal() {
        Some(legal) => {
            // A bot that searches keeps within the seat's time under a time control.
            bot.set_time_left(time_left.map(Duration::from_millis));
            Ok(Decision::Act(seq, bot.choose(&view, &legal)))
        }
        // Not our turn after all (the prompt was stale).
        None => Ok(Decision::Then(Next::Read)),
    }
}

/// Whether a refused action was refused because the game moved on while the seat decided:
/// another entry came first (`STALE_SEQ`, or any other `ABORTED`), it is no longer the seat's turn
/// (`NOT_YOUR_TURN`) or the match is over (`GAME_FINISHED`, `MATCH_OVER`). The seat reads what
/// happened on its stream and decides again on the next prompt; nothing is wrong with the action.
pub fn moved_on(s: &Status) -> bool {
    const MOVED_ON: [Reason; 3] = [Reason::NotYourTurn, Reason::GameFinished, Reason::MatchOver];
    s.code() == Code::Aborted || reason_of(s).is_some_and(|r| MOVED_ON.contains(&r))
}

/// What a seat does about a refusal of its action that is not waited out. The game moved on
/// (`STALE_SEQ`), it is not the seat's turn (`NOT_YOUR_TURN`) or the match is over
/// (`GAME_FINISHED`, `MATCH_OVER`): the stream brings what happened, and a fresh prompt when the
/// seat must act (or the end of the match). The connection failed: resume. Anything else (the
/// bot's action breaks a rule, the seat was taken away, a limit that stays) ends the seat's
/// play, with the reason.
fn after_refusal(s: &Status, action: &Action) -> Result<Next, RemoteError> {
    if moved_on(s) {
        Ok(Next::Read)
    } else if transient(s) {
        Ok(Next::Resume(status_text(s)))
    } else {
        Err(RemoteError(format!(
            "the server refused the bot's action {action}: {}",
            status_text(s)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::{ErrorDetails, StatusExt};

    /// Greedy, remembering the time left it was told before each decision.
    #[cfg(feature = "local")]
    struct Recorder {
        greedy: canasta_engine::bot::GreedyBot,
        told: Option<Duration>,
        seen: Vec<Option<Duration>>,
    }

    #[cfg(feature = "local")]
    impl Bot for Recorder {
        fn name(&self) -> &str {
            "recorder"
        }

        fn choose(
            &mut self,
            view: &canasta_engine::View,
            legal: &canasta_engine::LegalChoices<'_>,
        ) -> Action {
            self.seen.push(self.told.take());
            self.greedy.choose(view, legal)
        }

        fn set_time_left(&mut self, time_left: Option<Duration>) {
            self.told = Some(time_left.unwrap_or(Duration::MAX));
        }
    }

    // A seat's bot is told the time its seat has left before every decision: within the
    // move budget under a time control, none without one (told as Duration::MAX here), over
    // the Play call and over a watch stream with SubmitAction alike.
    #[cfg(feature = "local")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn bots_are_told_the_time_their_seat_has_left() {
        let server = crate::local::for_play().await.unwrap();
        let addr = server.addr().to_string();
        let mut client = connect(&addr).await.unwrap();
        let budget = Duration::from_secs(600);
        for timed in [true, false] {
            let game = client
                .create_game(v1::CreateGameRequest {
                    rules: Some(canasta_proto::convert::rules_to_wire(
                        &canasta_engine::RuleSpec::new(canasta_engine::Preset::Official, 2),
                    )),
                    seed: Some(3),
                    time_control: timed.then_some(v1::TimeControl {
                        move_budget_ms: budget.as_millis() as u64,
                        policy: v1::TimeoutPolicy::FallbackMove as i32,
                    }),
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner()
                .game
                .unwrap();
            let mut seats = Vec::new();
            for seat in 0..2u32 {
                let mut c = connect(&addr).await.unwrap();
                let mut s = SeatClient::join(&mut c, &addr, &game.game_id, Some(seat), "r")
                    .await
                    .unwrap();
                s.unary = seat == 1;
                seats.push(tokio::spawn(async move {
                    let mut bot = Recorder {
                        greedy: Default::default(),
                        told: None,
                        seen: Vec::new(),
                    };
                    // Some forty events in, the seat stops.
                    let played = play_seat_until(&mut c, &mut s, &mut bot, |e| {
                        if e.seq >= 40 {
                            ControlFlow::Break(())
                        } else {
                            ControlFlow::Continue(())
                        }
                    })
                    .await
                    .unwrap();
                    assert!(played.is_none(), "stopped before the end");
                    bot.seen
                }));
            }
            for (seat, task) in seats.into_iter().enumerate() {
                let seen = task.await.unwrap();
                assert!(seen.len() >= 3, "seat {seat}: {seen:?}");
                for told in seen {
                    let told = told.expect("told before the decision");
                    if timed {
                        assert!(told <= budget && told > budget / 2, "seat {seat}: {told:?}");
                    } else {
                        assert_eq!(told, Duration::MAX, "seat {seat}");
                    }
                }
            }
        }
        server.shutdown().await.unwrap();
    }

    fn exhausted(retry: Option<Duration>) -> Status {
        let mut details =
            ErrorDetails::with_error_info("RATE_LIMITED", canasta_proto::reason::DOMAIN, []);
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

    // A client whose server has gone keeps trying to reach it for `--reconnect-secs` from its
    // last answer (here the default minute), pausing 50 ms more each time up to a second, and
    // then gives up, saying so; it gave up after 20 tries (about 10 s) whatever the patience.
    // On a paused clock; the server's address is not one a connection can be made to, so
    // every try fails at once.
    #[tokio::test(start_paused = true)]
    async fn a_client_keeps_trying_for_its_patience_then_gives_up() {
        let mut client =
            CanastaServiceClient::new(Channel::from_static("http://127.0.0.1:1").connect_lazy());
        let started = Instant::now();
        let mut link = Link::new(0);
        let mut tries = 0;
        let gave_up = loop {
            let tried = link
                .reconnect(
                    &mut client,
                    "no server here",
                    DEFAULT_RECONNECT,
                    "the stream broke",
                )
                .await;
            match tried {
                Ok(()) => tries += 1,
                Err(e) => break e,
            }
        };
        // 50 ms, 100 ms, … 1 s (10.5 s in 20 tries), then a second a try: past the minute
        // after 70.
        assert_eq!(tries, 70);
        assert_eq!(started.elapsed(), Duration::from_millis(60_500));
        assert!(gave_up.0.contains("--reconnect-secs"), "{}", gave_up.0);
        assert!(gave_up.0.contains("the stream broke"), "{}", gave_up.0);
    }

    /// A refusal as a Play call reports it.
    fn play_error(code: Code, reason: &str, retry_after_ms: u64) -> v1::PlayError {
        v1::PlayError {
            code: code as i32,
            message: format!("refused: {reason}"),
            reason: reason.to_string(),
            field: String::new(),
            retry_after_ms,
            metadata: [("seq".to_string(), "7".to_string())].into(),
        }
    }

    #[test]
    fn a_play_refusal_reads_as_the_status_of_a_refused_call() {
        let limited = play_error_status(&play_error(Code::ResourceExhausted, "RATE_LIMITED", 250));
        assert_eq!(retry_delay(&limited), Some(Duration::from_millis(250)));
        assert!(status_text(&limited).contains("(RATE_LIMITED)"));
        let stale = play_error_status(&play_error(Code::Aborted, "STALE_SEQ", 0));
        assert_eq!(stale.code(), Code::Aborted);
        assert_eq!(retry_delay(&stale), None);
        let info = stale.get_details_error_info().expect("an ErrorInfo");
        assert_eq!(info.metadata.get("seq").map(String::as_str), Some("7"));
        let stopping = play_error_status(&play_error(Code::Unavailable, "STORAGE_FAILED", 0));
        assert!(transient(&stopping));
        // An error without the service's reason is the transport's, whatever its code; one
        // with a reason is the server's answer to the request.
        assert!(transient(&Status::internal(
            "h2 protocol error: http2 error"
        )));
        let damaged = play_error_status(&play_error(Code::Internal, "BAD_LOG", 0));
        assert!(!transient(&damaged));
        // A server without the method: asking again cannot help, and the text says what to
        // check, though the status says nothing.
        let missing = Status::unimplemented("");
        assert!(!transient(&missing));
        assert!(status_text(&missing).contains("a canasta-server of this version"));
        assert_eq!(
            status_text(&Status::internal("")),
            "the call failed (Internal)"
        );
        let mut bad = play_error(Code::InvalidArgument, "INVALID_CARD", 0);
        bad.field = "action".into();
        let bad = play_error_status(&bad);
        let field = &bad
            .get_details_bad_request()
            .expect("a BadRequest")
            .field_violations[0];
        assert_eq!(field.field, "action");
    }

    #[test]
    fn a_join_without_an_answer_says_the_seat_may_be_taken_and_what_to_do() {
        let lost = join_failed(Status::unknown("transport error")).0;
        assert!(
            lost.starts_with("the join got no answer: transport error"),
            "{lost}"
        );
        assert!(lost.contains("join another seat"), "{lost}");
        // A refusal is the server's answer: nothing was taken, and its reason is kept.
        let details = ErrorDetails::with_error_info("SEAT_TAKEN", "canasta.v1", []);
        let taken =
            Status::with_error_details(Code::FailedPrecondition, "seat 0 is taken", details);
        assert_eq!(join_failed(taken).0, "seat 0 is taken (SEAT_TAKEN)");
    }

    #[test]
    fn messages_naming_a_method_name_the_command_too() {
        let details = ErrorDetails::with_error_info("GAME_NOT_FOUND", "canasta.v1", []);
        let s = Status::with_error_details(
            Code::NotFound,
            "there is no game \"g\": list the games with ListGames",
            details,
        );
        let text = status_text(&s);
        assert!(text.contains("(GAME_NOT_FOUND)"), "{text}");
        assert!(text.contains("`canasta games`"), "{text}");
        let details = ErrorDetails::with_error_info("NOT_A_SEAT_OF_GAME", "canasta.v1", []);
        let s = Status::with_error_details(Code::PermissionDenied, "not yours", details);
        assert!(status_text(&s).contains("`canasta play` showed"));
        let details = ErrorDetails::with_error_info("PILE_FROZEN", "canasta.v1", []);
        let s = Status::with_error_details(Code::FailedPrecondition, "frozen", details);
        assert_eq!(status_text(&s), "frozen (PILE_FROZEN)");
    }

    #[test]
    fn refusals_of_a_moved_on_game_wait_for_the_next_prompt_and_others_end_the_bot() {
        let action = Action::DrawStock;
        let refused = |code, reason| play_error_status(&play_error(code, reason, 0));
        let stale = refused(Code::Aborted, "STALE_SEQ");
        assert_eq!(after_refusal(&stale, &action).unwrap(), Next::Read);
        for reason in ["NOT_YOUR_TURN", "GAME_FINISHED", "MATCH_OVER"] {
            let moved_on = refused(Code::FailedPrecondition, reason);
            assert_eq!(after_refusal(&moved_on, &action).unwrap(), Next::Read);
        }
        let lost = Status::unavailable("connection reset");
        assert!(matches!(after_refusal(&lost, &action), Ok(Next::Resume(_))));
        // A call the server's GOAWAY refused as it shut down: tonic reports it INTERNAL, with
        // no reason (the request never reached the service).
        let refused_by_goaway = Status::internal("h2 protocol error: http2 error");
        assert!(matches!(
            after_refusal(&refused_by_goaway, &action),
            Ok(Next::Resume(_))
        ));
        for (code, reason) in [
            (Code::FailedPrecondition, "WRONG_PHASE"),
            (Code::PermissionDenied, "NOT_A_SEAT_OF_GAME"),
            (Code::ResourceExhausted, "RATE_LIMITED"),
        ] {
            let e = after_refusal(&refused(code, reason), &action).unwrap_err();
            assert!(e.0.contains(reason), "{e}");
        }
    }

    fn pending(id: &str) -> Option<Pending> {
        Some(Pending {
            request: v1::SubmitActionRequest {
                game_id: "g".into(),
                expected_seq: 7,
                request_id: id.into(),
                action: Some(action_to_wire(&Action::DrawStock)),
            },
            action: Action::DrawStock,
            limited: 0,
            on_this_call: true,
        })
    }

    fn answer(id: &str, error: Option<v1::PlayError>) -> v1::PlayResult {
        v1::PlayResult {
            request_id: id.into(),
            seq: error.is_none().then_some(8),
            error: error.map(Box::new),
        }
    }

    #[test]
    fn a_limited_play_action_is_sent_again_after_the_delay_a_bounded_number_of_times() {
        let mut p = pending("a-1");
        let mut applied = 0;
        let limited = || Some(play_error(Code::ResourceExhausted, "RATE_LIMITED", 300));
        for _ in 0..RATE_LIMIT_ATTEMPTS {
            match answered(&mut p, &mut applied, answer("a-1", limited())).unwrap() {
                Answer::Retry(wait, request) => {
                    assert_eq!(wait, Duration::from_millis(300));
                    assert_eq!(request.request_id, "a-1", "the same request id");
                }
                other => panic!("{other:?}"),
            }
        }
        let e = answered(&mut p, &mut applied, answer("a-1", limited())).unwrap_err();
        assert!(e.0.contains("RATE_LIMITED"), "{e}");
        // An applied retry ends the wait.
        let mut p = pending("a-2");
        answered(&mut p, &mut applied, answer("a-2", limited())).unwrap();
        assert!(matches!(
            answered(&mut p, &mut applied, answer("a-2", None)).unwrap(),
            Answer::Then(Next::Read)
        ));
        assert!(p.is_none());
        // Only the applied answer counts as the seat's action.
        assert_eq!(applied, 1);
    }

    // Regression: a Play call's answer and the events of the same action come from two sides of
    // the server, in either order. When the next prompt came before the answer, the answer was
    // dropped with the action it answered, so a match stopped at a deal limit counted fewer
    // actions against a server than in this process.
    #[test]
    fn an_answer_that_comes_after_the_next_prompt_still_counts() {
        let spec = canasta_engine::RuleSpec::new(canasta_engine::Preset::Official, 4);
        let summary = v1::GameSummary {
            rules: Some(canasta_proto::convert::rules_to_wire(&spec)),
            ..Default::default()
        };
        let mut seat = SeatClient::with_token("addr", &summary, 0, "t".into()).unwrap();
        seat.await_answer("a-1".into());
        seat.await_answer("a-2".into());
        // Another seat's answer, or one already counted, is not theirs.
        assert!(!seat.answer_of_unanswered(&answer("a-3", None)));
        assert!(seat.answer_of_unanswered(&answer("a-2", None)));
        assert_eq!(seat.applied(), 1);
        assert!(!seat.answer_of_unanswered(&answer("a-2", None)));
        assert_eq!(seat.applied(), 1);
        // A refused one is no longer awaited, and not counted.
        let refusal = play_error(Code::FailedPrecondition, "STALE_SEQ", 0);
        assert!(seat.answer_of_unanswered(&answer("a-1", Some(refusal))));
        assert_eq!((seat.applied(), seat.unanswered.len()), (1, 0));
        // The list is bounded.
        for i in 0..UNANSWERED_KEPT + 5 {
            seat.await_answer(format!("b-{i}"));
        }
        assert_eq!(seat.unanswered.len(), UNANSWERED_KEPT);
        assert!(!seat.answer_of_unanswered(&answer("b-0", None)));
    }

    #[test]
    fn play_answers_keep_or_drop_the_action_in_flight() {
        // Another action's answer changes nothing.
        let mut p = pending("a-1");
        let mut applied = 0;
        let stale = || Some(play_error(Code::Aborted, "STALE_SEQ", 0));
        answered(&mut p, &mut applied, answer("a-0", stale())).unwrap();
        assert!(p.is_some());
        // A stale action is dropped: the next prompt brings a new decision.
        assert!(matches!(
            answered(&mut p, &mut applied, answer("a-1", stale())).unwrap(),
            Answer::Then(Next::Read)
        ));
        assert!(p.is_none());
        // A transient refusal keeps it, to send again (same id) on the next call.
        let mut p = pending("a-1");
        let failed = Some(play_error(Code::Unavailable, "STORAGE_FAILED", 0));
        assert!(matches!(
            answered(&mut p, &mut applied, answer("a-1", failed)).unwrap(),
            Answer::Then(Next::Resume(_))
        ));
        assert!(p.is_some());
        assert_eq!(applied, 0, "no action was applied");
    }
}
