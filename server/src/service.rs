//! The gRPC service: reads requests, checks tokens and limits, asks the game's actor, and turns
//! answers and errors into responses.

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;

use canasta_engine::{Rules, Viewer};
use canasta_proto::convert::{preset_to_wire, rules_from_wire};
use canasta_proto::v1;
use canasta_proto::v1::canasta_service_server::CanastaService;
use prost::Message;
use tokio::sync::{broadcast, mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Request, Response, Status};

use crate::actor::{Command, Item, PromptItem, Subscription};
use crate::auth::{Token, require_token, token_of};
use crate::config::Config;
use crate::errors::ApiError;
use crate::metrics::Metrics;
use crate::ratelimit::{Client, RateLimiter, StreamLimiter, StreamSlot, rate_limited};
use crate::registry::Registry;

/// The `canasta.v1.CanastaService` implementation.
pub struct Service {
    registry: Arc<Registry>,
    limiter: RateLimiter,
    /// Calls without a seat token, by peer address.
    address_limiter: RateLimiter<IpAddr>,
    streams: StreamLimiter,
    config: Arc<Config>,
    metrics: Arc<Metrics>,
    shutdown: watch::Receiver<bool>,
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<v1::WatchGameResponse, Status>> + Send>>;

fn code_name(code: Code) -> &'static str {
    match code {
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::NotFound => "NOT_FOUND",
        Code::Unauthenticated => "UNAUTHENTICATED",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::Unavailable => "UNAVAILABLE",
        _ => "OTHER",
    }
}

impl Service {
    /// The service over a registry of games.
    pub fn new(
        registry: Arc<Registry>,
        config: Arc<Config>,
        metrics: Arc<Metrics>,
        shutdown: watch::Receiver<bool>,
    ) -> Service {
        Service {
            registry,
            limiter: RateLimiter::new(config.requests_per_second),
            address_limiter: RateLimiter::new(config.address_requests_per_second),
            streams: StreamLimiter::new(
                config.max_watchers_per_token,
                config.max_watchers_per_address,
            ),
            config,
            metrics,
            shutdown,
        }
    }

    /// Counts a refused request and turns it into a status.
    fn fail(&self, e: ApiError) -> Status {
        self.metrics.error(code_name(e.code), e.reason);
        e.into()
    }

    /// The checks every request passes: its size, its token's form and the token's rate; a
    /// call without a token, or with a token not seen before, spends from its address's rate
    /// (so made-up tokens buy no fresh budget).
    fn admit<T: Message>(&self, request: &Request<T>) -> Result<Option<Token>, ApiError> {
        let size = request.get_ref().encoded_len();
        if size > self.config.max_message_bytes {
            return Err(ApiError::exhausted(
                "MESSAGE_TOO_LARGE",
                format!(
                    "the request has {size} bytes, more than the limit of {}: send a smaller one",
                    self.config.max_message_bytes
                ),
                std::time::Duration::from_secs(1),
            ));
        }
        let token = token_of(request.metadata())?;
        let new_token = token.as_ref().is_some_and(|t| !self.limiter.knows(t));
        if (token.is_none() || new_token)
            && let Some(ip) = request.remote_addr().map(|a| a.ip())
        {
            self.address_limiter.take(&ip).map_err(|wait| {
                rate_limited(&Client::Address(ip), self.address_limiter.rate(), wait)
            })?;
        }
        if let Some(t) = &token {
            self.limiter.check(t)?;
        }
        Ok(token)
    }

    /// A place for one more watch stream of the caller: per token, or per address for a
    /// spectator.
    fn stream_slot<T>(
        &self,
        request: &Request<T>,
        token: &Option<Token>,
    ) -> Result<Option<StreamSlot>, ApiError> {
        let client = match token {
            Some(t) => Client::Seat(t.clone()),
            None => match request.remote_addr() {
                Some(a) => Client::Address(a.ip()),
                None => return Ok(None),
            },
        };
        self.streams.open(&client).map(Some)
    }

    fn seat_token<T: Message>(&self, request: &Request<T>) -> Result<Token, ApiError> {
        self.admit(request)?;
        require_token(request.metadata())
    }
}

#[tonic::async_trait]
impl CanastaService for Service {
    async fn create_game(
        &self,
        request: Request<v1::CreateGameRequest>,
    ) -> Result<Response<v1::CreateGameResponse>, Status> {
        self.admit(&request).map_err(|e| self.fail(e))?;
        let game = self
            .registry
            .create(request.into_inner())
            .await
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(v1::CreateGameResponse { game: Some(game) }))
    }

    async fn list_games(
        &self,
        request: Request<v1::ListGamesRequest>,
    ) -> Result<Response<v1::ListGamesResponse>, Status> {
        self.admit(&request).map_err(|e| self.fail(e))?;
        let r = request.into_inner();
        let status = v1::GameStatus::try_from(r.status).map_err(|_| {
            self.fail(ApiError::invalid(
                "INVALID_ENUM",
                "status",
                format!("status {} is not a GameStatus", r.status),
            ))
        })?;
        let page = self
            .registry
            .list(r.page_size, &r.page_token, status)
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(page))
    }

    async fn get_game(
        &self,
        request: Request<v1::GetGameRequest>,
    ) -> Result<Response<v1::GetGameResponse>, Status> {
        self.admit(&request).map_err(|e| self.fail(e))?;
        let handle = self
            .registry
            .get(&request.get_ref().game_id)
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(v1::GetGameResponse {
            game: Some(handle.summary()),
        }))
    }

    async fn join_game(
        &self,
        request: Request<v1::JoinGameRequest>,
    ) -> Result<Response<v1::JoinGameResponse>, Status> {
        self.admit(&request).map_err(|e| self.fail(e))?;
        let r = request.into_inner();
        let handle = self.registry.get(&r.game_id).map_err(|e| self.fail(e))?;
        let joined = handle
            .ask(|reply| Command::Join {
                seat: r.seat,
                name: r.display_name,
                reply,
            })
            .await
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(joined))
    }

    async fn leave_game(
        &self,
        request: Request<v1::LeaveGameRequest>,
    ) -> Result<Response<v1::LeaveGameResponse>, Status> {
        let token = self.seat_token(&request).map_err(|e| self.fail(e))?;
        let handle = self
            .registry
            .get(&request.get_ref().game_id)
            .map_err(|e| self.fail(e))?;
        handle
            .ask(|reply| Command::Leave { token, reply })
            .await
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(v1::LeaveGameResponse {}))
    }

    async fn get_view(
        &self,
        request: Request<v1::GetViewRequest>,
    ) -> Result<Response<v1::GetViewResponse>, Status> {
        let token = self.admit(&request).map_err(|e| self.fail(e))?;
        let r = request.into_inner();
        let handle = self.registry.get(&r.game_id).map_err(|e| self.fail(e))?;
        let view = handle
            .ask(|reply| Command::View {
                token,
                include_actions: r.include_actions,
                reply,
            })
            .await
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(view))
    }

    async fn submit_action(
        &self,
        request: Request<v1::SubmitActionRequest>,
    ) -> Result<Response<v1::SubmitActionResponse>, Status> {
        let token = self.seat_token(&request).map_err(|e| self.fail(e))?;
        let r = request.into_inner();
        let handle = self.registry.get(&r.game_id).map_err(|e| self.fail(e))?;
        let action = r.action.ok_or_else(|| {
            self.fail(ApiError::invalid(
                "MISSING_FIELD",
                "action",
                "action is required",
            ))
        })?;
        let answer = handle
            .ask(|reply| Command::Submit {
                token,
                expected_seq: r.expected_seq,
                request_id: r.request_id,
                action,
                reply,
            })
            .await
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(answer))
    }

    async fn check_action(
        &self,
        request: Request<v1::CheckActionRequest>,
    ) -> Result<Response<v1::CheckActionResponse>, Status> {
        let token = self.seat_token(&request).map_err(|e| self.fail(e))?;
        let r = request.into_inner();
        let handle = self.registry.get(&r.game_id).map_err(|e| self.fail(e))?;
        let action = r.action.ok_or_else(|| {
            self.fail(ApiError::invalid(
                "MISSING_FIELD",
                "action",
                "action is required",
            ))
        })?;
        let verdict = handle
            .ask(|reply| Command::Check {
                token,
                action,
                reply,
            })
            .await
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(match verdict {
            Ok(()) => v1::CheckActionResponse {
                legal: true,
                reason: String::new(),
                message: String::new(),
            },
            Err(e) => v1::CheckActionResponse {
                legal: false,
                reason: e.code().to_string(),
                message: e.to_string(),
            },
        }))
    }

    type WatchGameStream = WatchStream;

    async fn watch_game(
        &self,
        request: Request<v1::WatchGameRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        let token = self.admit(&request).map_err(|e| self.fail(e))?;
        let slot = self
            .stream_slot(&request, &token)
            .map_err(|e| self.fail(e))?;
        let r = request.into_inner();
        let handle = self.registry.get(&r.game_id).map_err(|e| self.fail(e))?;
        let sub = handle
            .ask(|reply| Command::Subscribe {
                token,
                after_seq: r.after_seq,
                reply,
            })
            .await
            .map_err(|e| self.fail(e))?;
        let (tx, rx) = mpsc::channel(64);
        let watch = Watch {
            sub,
            include_actions: r.include_actions,
            include_view: r.include_view,
            heartbeat: self.config.heartbeat(),
            shutdown: self.shutdown.clone(),
            metrics: self.metrics.clone(),
            tx,
            _slot: slot,
        };
        tokio::spawn(watch.run());
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn get_scores(
        &self,
        request: Request<v1::GetScoresRequest>,
    ) -> Result<Response<v1::GetScoresResponse>, Status> {
        self.admit(&request).map_err(|e| self.fail(e))?;
        let handle = self
            .registry
            .get(&request.get_ref().game_id)
            .map_err(|e| self.fail(e))?;
        let scores = handle
            .ask(|reply| Command::Scores { reply })
            .await
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(scores))
    }

    async fn export_game(
        &self,
        request: Request<v1::ExportGameRequest>,
    ) -> Result<Response<v1::ExportGameResponse>, Status> {
        self.admit(&request).map_err(|e| self.fail(e))?;
        let handle = self
            .registry
            .get(&request.get_ref().game_id)
            .map_err(|e| self.fail(e))?;
        let record = handle
            .ask(|reply| Command::Export { reply })
            .await
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(v1::ExportGameResponse {
            record: Some(record),
        }))
    }

    async fn describe_rules(
        &self,
        request: Request<v1::DescribeRulesRequest>,
    ) -> Result<Response<v1::DescribeRulesResponse>, Status> {
        self.admit(&request).map_err(|e| self.fail(e))?;
        let rules = request.into_inner().rules.ok_or_else(|| {
            self.fail(ApiError::invalid(
                "MISSING_FIELD",
                "rules",
                "rules is required",
            ))
        })?;
        let spec = rules_from_wire(&rules).map_err(|e| self.fail(e.into()))?;
        let rules = Rules::new(&spec).map_err(|e| self.fail(e.into()))?;
        let docs = canasta_engine::rules::OPTION_DOCS;
        Ok(Response::new(v1::DescribeRulesResponse {
            preset: preset_to_wire(rules.preset) as i32,
            player_count: rules.players as u32,
            options: rules
                .option_values()
                .into_iter()
                .map(|(name, value)| v1::RuleOption {
                    name: name.to_string(),
                    value,
                    description: docs
                        .iter()
                        .find(|d| d.0 == name)
                        .map(|d| d.1.trim().to_string())
                        .unwrap_or_default(),
                })
                .collect(),
            pack_size: rules.pack_size() as u32,
        }))
    }
}

/// One watch stream: the backlog, then live events and prompts for the watcher, heartbeats
/// while idle; it ends when the match ends, when the watcher lags too far, when its seat is
/// left, or at shutdown.
struct Watch {
    sub: Subscription,
    include_actions: bool,
    include_view: bool,
    heartbeat: std::time::Duration,
    shutdown: watch::Receiver<bool>,
    metrics: Arc<Metrics>,
    tx: mpsc::Sender<Result<v1::WatchGameResponse, Status>>,
    /// The stream's place among its client's; freed when the stream ends.
    _slot: Option<StreamSlot>,
}

enum Flow {
    Go,
    Stop,
}

impl Watch {
    async fn send(&mut self, kind: v1::watch_game_response::Kind) -> Flow {
        let msg = Ok(v1::WatchGameResponse { kind: Some(kind) });
        tokio::select! {
            r = self.tx.send(msg) => if r.is_ok() { Flow::Go } else { Flow::Stop },
            _ = self.shutdown.changed() => Flow::Stop,
        }
    }

    async fn send_event(&mut self, event: &crate::actor::LogEvent, last: &mut u64) -> Flow {
        if event.seq <= *last {
            return Flow::Go;
        }
        *last = event.seq;
        let wire = event.to_wire(self.sub.viewer);
        let ended = matches!(wire.kind, Some(v1::game_event::Kind::MatchEnded(_)));
        match self.send(v1::watch_game_response::Kind::Event(wire)).await {
            Flow::Go if ended => Flow::Stop,
            flow => flow,
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

    async fn send_prompt(&mut self, prompt: &PromptItem, last: u64) -> Flow {
        let mine = matches!(self.sub.viewer, Viewer::Seat(s) if s.0 as u32 == prompt.prompt.seat);
        if !mine || prompt.prompt.seq != last {
            return Flow::Go;
        }
        let prompt = prompt.for_watcher(self.include_actions, self.include_view);
        self.send(v1::watch_game_response::Kind::Prompt(prompt))
            .await
    }

    async fn run(mut self) {
        self.metrics.watcher(true);
        let mut last = self.sub.after_seq;
        let backlog = std::mem::take(&mut self.sub.backlog);
        // A finished game sends what is asked and ends.
        let mut flow = if self.sub.finished && backlog.is_empty() {
            Flow::Stop
        } else {
            Flow::Go
        };
        for event in &backlog {
            flow = self.send_event(event, &mut last).await;
            if matches!(flow, Flow::Stop) {
                break;
            }
        }
        if matches!(flow, Flow::Go)
            && let Some(p) = self.sub.prompt.take()
        {
            flow = self.send_prompt(&p, last).await;
        }
        while matches!(flow, Flow::Go) {
            let beat = tokio::time::sleep(self.heartbeat);
            tokio::select! {
                item = self.sub.live.recv() => {
                    flow = match item {
                        Ok(Item::Event(e)) => match self.send_event(&e, &mut last).await {
                            // The holder gave up the seat: its stream must show nothing of the
                            // next holder's (a live SeatLeft of the stream's seat is this
                            // holder's: a token holds its seat from subscribing on).
                            Flow::Go if self.left_my_seat(&e) => Flow::Stop,
                            flow => flow,
                        },
                        Ok(Item::Prompt(p)) => self.send_prompt(&p, last).await,
                        Err(broadcast::error::RecvError::Lagged(_)) => {
                            let _ = self.send(v1::watch_game_response::Kind::Lagged(v1::Lagged { last_seq: last })).await;
                            Flow::Stop
                        }
                        Err(broadcast::error::RecvError::Closed) => Flow::Stop,
                    }
                }
                _ = beat => {
                    flow = self.send(v1::watch_game_response::Kind::Heartbeat(v1::Heartbeat { seq: last })).await;
                }
                _ = self.shutdown.changed() => flow = Flow::Stop,
                _ = self.tx.closed() => flow = Flow::Stop,
            }
        }
        self.metrics.watcher(false);
    }
}
