//! Talking to a server over the public protocol: connecting, creating and joining games, and
//! playing a seat with a bot that resumes by seq whenever its stream drops.

use std::time::Duration;

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
        let r = client
            .join_game(v1::JoinGameRequest {
                game_id: game_id.to_string(),
                seat,
                display_name: name.to_string(),
            })
            .await?
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

    /// The seat's view, in the engine's form, with the game's seq and status.
    pub async fn view(
        &self,
        client: &mut Client,
    ) -> Result<(View, u64, v1::GameStatus), RemoteError> {
        let r = client
            .get_view(authed(
                v1::GetViewRequest {
                    game_id: self.game_id.clone(),
                    include_actions: false,
                },
                &self.token,
            ))
            .await?
            .into_inner();
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

    /// Submits an action, retrying with the same request id when the transport fails.
    pub async fn submit(
        &mut self,
        client: &mut Client,
        expected_seq: u64,
        action: &canasta_engine::Action,
    ) -> Result<v1::SubmitActionResponse, Status> {
        let request_id = self.request_id();
        let mut delay = Duration::from_millis(50);
        for attempt in 0.. {
            let r = client
                .submit_action(authed(
                    v1::SubmitActionRequest {
                        game_id: self.game_id.clone(),
                        expected_seq,
                        request_id: request_id.clone(),
                        action: Some(action_to_wire(action)),
                    },
                    &self.token,
                ))
                .await;
            match r {
                Err(s) if transient(&s) && attempt < 8 => {
                    tokio::time::sleep(delay).await;
                    delay *= 2;
                    if let Ok(c) = connect(&self.addr).await {
                        *client = c;
                    }
                }
                r => return r.map(|r| r.into_inner()),
            }
        }
        unreachable!("the loop returns")
    }
}

/// Errors worth retrying: the connection, not the request.
pub fn transient(s: &Status) -> bool {
    matches!(
        s.code(),
        Code::Unavailable | Code::Unknown | Code::Cancelled | Code::DeadlineExceeded
    )
}

/// Plays `seat` with `bot` until the match ends; returns its result. A dropped stream or
/// connection is resumed by seq; `on_event` sees every event once.
pub async fn play_seat(
    client: &mut Client,
    seat: &mut SeatClient,
    bot: &mut dyn Bot,
    mut on_event: impl FnMut(&v1::GameEvent),
) -> Result<v1::MatchResult, RemoteError> {
    let mut last = 0u64;
    let mut failures = 0;
    loop {
        let stream = client
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
        let mut stream = match stream {
            Ok(s) => s.into_inner(),
            Err(s) if transient(&s) && failures < 20 => {
                failures += 1;
                reconnect(client, &seat.addr, failures).await;
                continue;
            }
            Err(s) => return Err(s.into()),
        };
        while let Some(message) = stream.next().await {
            let message = match message {
                Ok(m) => m,
                Err(_) => break,
            };
            failures = 0;
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
                    act(client, seat, bot, &p).await?;
                }
                Some(Kind::Lagged(_)) => break,
                _ => {}
            }
        }
        // The stream ended without the match's end: resume after the last event.
        failures += 1;
        if failures > 20 {
            return Err(RemoteError("the server keeps dropping the stream".into()));
        }
        reconnect(client, &seat.addr, failures).await;
    }
}

async fn reconnect(client: &mut Client, addr: &str, attempt: u32) {
    tokio::time::sleep(Duration::from_millis(50 * attempt.min(20) as u64)).await;
    if let Ok(c) = connect(addr).await {
        *client = c;
    }
}

/// Decides and submits one action for the seat, from the view in its prompt (or its current
/// view, if the prompt carries none).
async fn act(
    client: &mut Client,
    seat: &mut SeatClient,
    bot: &mut dyn Bot,
    prompt: &v1::Prompt,
) -> Result<(), RemoteError> {
    let (view, seq) = match seat.prompt_view(prompt) {
        Some(v) => v?,
        None => {
            let (view, seq, _) = seat.view(client).await?;
            (view, seq)
        }
    };
    let Some(legal) = view.legal() else {
        // Not our turn after all (the prompt was stale).
        return Ok(());
    };
    let action = bot.choose(&view, &legal);
    match seat.submit(client, seq, &action).await {
        Ok(_) => Ok(()),
        // The game moved on; a fresh prompt follows.
        Err(s) if s.code() == Code::Aborted => Ok(()),
        Err(s) => Err(RemoteError(format!(
            "the server refused the bot's action {action}: {}",
            status_text(&s)
        ))),
    }
}
