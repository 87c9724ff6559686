//! The gRPC service: reads requests, checks tokens and limits, asks the game's actor, and turns
//! answers and errors into responses.

use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;

use canasta_engine::{Rules, Viewer};
use canasta_proto::convert::{preset_to_wire, rules_from_wire};
use canasta_proto::v1;
use canasta_proto::v1::canasta_service_server::CanastaService;
use tokio::sync::{broadcast, mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Request, Response, Status};

use crate::actor::{Command, GameHandle, Item, PromptItem, Subscription};
use crate::auth::{Token, TokenId, require_token, token_of};
use crate::config::Config;
use crate::errors::{ApiError, retry_after_ms};
use crate::metrics::Metrics;
use crate::ratelimit::{Client, RequestLimits, StreamLimiter, StreamSlot, keep_swept};
use crate::registry::Registry;
use canasta_proto::Reason;

/// The `canasta.v1.CanastaService` implementation.
pub struct Service {
    registry: Arc<Registry>,
    /// Request rates, by seat token and by address (who pays for what: [`Service::charge`]).
    limits: Arc<RequestLimits>,
    streams: StreamLimiter,
    config: Arc<Config>,
    metrics: Arc<Metrics>,
    shutdown: watch::Receiver<bool>,
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<v1::WatchGameResponse, Status>> + Send>>;
type PlayStream = Pin<Box<dyn Stream<Item = Result<v1::PlayResponse, Status>> + Send>>;

pub(crate) fn code_name(code: Code) -> &'static str {
    match code {
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::NotFound => "NOT_FOUND",
        Code::Unauthenticated => "UNAUTHENTICATED",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::Unavailable => "UNAVAILABLE",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        _ => "OTHER",
    }
}

impl Service {
    /// The service over a registry of games. Called on a tokio runtime: it starts the task that
    /// sweeps the rate limits' idle budgets (until `shutdown`, or until the service is dropped).
    pub fn new(
        registry: Arc<Registry>,
        config: Arc<Config>,
        metrics: Arc<Metrics>,
        shutdown: watch::Receiver<bool>,
    ) -> Service {
        let limits = Arc::new(RequestLimits::new(
            config.requests_per_second,
            config.address_requests_per_second,
        ));
        tokio::spawn(keep_swept(Arc::downgrade(&limits), shutdown.clone()));
        Service {
            registry,
            limits,
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
        self.metrics.error(code_name(e.code), e.reason.as_str());
        e.into()
    }

    /// The checks every request passes first (its size was checked by the transport, see
    /// [`crate::message_limit`]): the server is not stopping, and the token's form (a
    /// malformed one is charged to the address). The rate is charged once the call's game is
    /// known: [`Service::admit_to_game`], [`Service::admit_no_game`].
    fn admit<T>(&self, request: &Request<T>) -> Result<Option<Token>, ApiError> {
        if *self.shutdown.borrow() {
            return Err(ApiError::new(
                Code::Unavailable,
                Reason::ShuttingDown,
                "the server is shutting down and takes no new request (this one changed nothing): \
                 retry against the restarted server",
            ));
        }
        token_of(request.metadata()).map_err(|e| {
            // Refused anyway: the address pays for the refusal (or is refused for its rate).
            self.charge(peer(request), None, None).err().unwrap_or(e)
        })
    }

    /// Charges a call to whoever pays for it: the token's rate if the token holds a seat of
    /// the game the call names; the address's otherwise (a call naming no game, or a game
    /// that does not exist; a spectator's; a token of another game; a made-up token). So
    /// made-up tokens buy no budget of their own, and players behind one address (a NAT) do
    /// not spend each other's on their own games. Whether the token holds a seat is read from
    /// the game's seat fingerprints ([`crate::auth::SeatIds`]): no round-trip to the actor.
    fn charge(
        &self,
        peer: Option<IpAddr>,
        token: Option<&Token>,
        game: Option<&GameHandle>,
    ) -> Result<(), ApiError> {
        if let (Some(token), Some(game)) = (token, game) {
            let id = token.id();
            if game.seats.holds(id) {
                return self.limits.charge_token(id);
            }
        }
        match peer {
            Some(ip) => self.limits.charge_address(ip),
            // Not over a socket (the service called in process): nothing to key a rate by.
            None => Ok(()),
        }
    }

    /// Admits a call that names no game (creating, listing, describing rules, joining a free
    /// seat): the address pays, whatever token the call carries.
    fn admit_no_game<T>(&self, request: &Request<T>) -> Result<(), ApiError> {
        self.admit(request)?;
        self.charge(peer(request), None, None)
    }

    /// Admits a call naming the game `game_id` and finds the game: the token pays if it holds
    /// one of its seats, the address otherwise (also when there is no such game: the refusal
    /// comes after the charge).
    fn admit_to_game<T>(
        &self,
        request: &Request<T>,
        game_id: &str,
    ) -> Result<(Option<Token>, GameHandle), ApiError> {
        let token = self.admit(request)?;
        let game = self.registry.get(game_id);
        self.charge(peer(request), token.as_ref(), game.as_ref().ok())?;
        Ok((token, game?))
    }

    /// As [`Service::admit_to_game`], for a call that acts for a seat and needs a token.
    fn seat_call<T>(
        &self,
        request: &Request<T>,
        game_id: &str,
    ) -> Result<(Token, GameHandle), ApiError> {
        let (token, game) = self.admit_to_game(request, game_id)?;
        let token = token.ok_or_else(|| {
            require_token(request.metadata()).expect_err("the request has no token")
        })?;
        Ok((token, game))
    }

    /// A place for one more watch stream of the caller: per token, or per address for a
    /// spectator.
    fn stream_slot(
        &self,
        peer: Option<IpAddr>,
        token: &Option<Token>,
    ) -> Result<Option<StreamSlot>, ApiError> {
        let client = match token {
            Some(t) => Client::Seat(t.id()),
            None => match peer {
                Some(ip) => Client::Address(ip),
                None => return Ok(None),
            },
        };
        self.streams.open(&client).map(Some)
    }

    /// Starts the task that feeds a watch stream (WatchGame's, or Play's) into `tx`.
    fn start_watch<O: StreamOut>(
        &self,
        sub: Subscription,
        request: &v1::WatchGameRequest,
        slot: Option<StreamSlot>,
        tx: mpsc::Sender<Result<O, Status>>,
    ) -> tokio::task::JoinHandle<()> {
        let watch = Watch {
            last: sub.after_seq,
            sub,
            include_actions: request.include_actions,
            include_view: request.include_view,
            heartbeat: self.config.heartbeat(),
            send_timeout: self.config.watch_send_timeout(),
            last_sent: tokio::time::Instant::now(),
            shutdown: self.shutdown.clone(),
            metrics: self.metrics.clone(),
            tx,
            _slot: slot,
        };
        tokio::spawn(watch.run())
    }
}

/// The peer's IP address, if the call came over a socket.
fn peer<T>(request: &Request<T>) -> Option<IpAddr> {
    request.remote_addr().map(|a| a.ip())
}

#[tonic::async_trait]
impl CanastaService for Service {
    async fn create_game(
        &self,
        request: Request<v1::CreateGameRequest>,
    ) -> Result<Response<v1::CreateGameResponse>, Status> {
        self.admit_no_game(&request).map_err(|e| self.fail(e))?;
        let created = self
            .registry
            .create(request.into_inner())
            .await
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(created))
    }

    async fn cancel_game(
        &self,
        request: Request<v1::CancelGameRequest>,
    ) -> Result<Response<v1::CancelGameResponse>, Status> {
        // The creator token holds no seat: the address pays, as for any call without a seat.
        let (token, handle) = self
            .admit_to_game(&request, &request.get_ref().game_id)
            .map_err(|e| self.fail(e))?;
        let token = token.ok_or_else(|| {
            self.fail(ApiError::new(
                Code::Unauthenticated,
                Reason::MissingToken,
                "CancelGame needs the game's creator token: send `authorization: Bearer \
                 <creator_token>` with the creator_token CreateGame returned",
            ))
        })?;
        let game = handle
            .ask(|reply| Command::Cancel { token, reply })
            .await
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(v1::CancelGameResponse { game: Some(game) }))
    }

    async fn list_games(
        &self,
        request: Request<v1::ListGamesRequest>,
    ) -> Result<Response<v1::ListGamesResponse>, Status> {
        self.admit_no_game(&request).map_err(|e| self.fail(e))?;
        let r = request.into_inner();
        let status = v1::GameStatus::try_from(r.status).map_err(|_| {
            self.fail(ApiError::invalid(
                Reason::InvalidEnum,
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
        let (_, handle) = self
            .admit_to_game(&request, &request.get_ref().game_id)
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(v1::GetGameResponse {
            game: Some(handle.summary()),
        }))
    }

    async fn join_game(
        &self,
        request: Request<v1::JoinGameRequest>,
    ) -> Result<Response<v1::JoinGameResponse>, Status> {
        // Joining takes a free seat: no token holds it yet, the address pays.
        self.admit_no_game(&request).map_err(|e| self.fail(e))?;
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
        let (token, handle) = self
            .seat_call(&request, &request.get_ref().game_id)
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
        let (token, handle) = self
            .admit_to_game(&request, &request.get_ref().game_id)
            .map_err(|e| self.fail(e))?;
        let r = request.into_inner();
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
        let (token, handle) = self
            .seat_call(&request, &request.get_ref().game_id)
            .map_err(|e| self.fail(e))?;
        let r = request.into_inner();
        let answer = submit_to(&handle, token, r, true)
            .await
            .map_err(|e| self.fail(e))?;
        Ok(Response::new(answer))
    }

    async fn check_action(
        &self,
        request: Request<v1::CheckActionRequest>,
    ) -> Result<Response<v1::CheckActionResponse>, Status> {
        let (token, handle) = self
            .seat_call(&request, &request.get_ref().game_id)
            .map_err(|e| self.fail(e))?;
        let r = request.into_inner();
        let action = r.action.ok_or_else(|| {
            self.fail(ApiError::invalid(
                Reason::MissingField,
                "action",
                "action is required",
            ))
        })?;
        let verdict = handle
            .ask(|reply| Command::Check {
                token,
                action: Box::new(action),
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
                reason: Reason::from(&e).as_str().to_string(),
                message: e.to_string(),
            },
        }))
    }

    type WatchGameStream = WatchStream;

    async fn watch_game(
        &self,
        request: Request<v1::WatchGameRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        let (token, handle) = self
            .admit_to_game(&request, &request.get_ref().game_id)
            .map_err(|e| self.fail(e))?;
        let slot = self
            .stream_slot(peer(&request), &token)
            .map_err(|e| self.fail(e))?;
        let r = request.into_inner();
        let sub = handle
            .ask(|reply| Command::Subscribe {
                token,
                after_seq: r.after_seq,
                include_actions: r.include_actions,
                include_view: r.include_view,
                reply,
            })
            .await
            .map_err(|e| self.fail(e))?;
        // One place more than the queue: the final Lagged always fits (see `Watch::send`).
        let (tx, rx) = mpsc::channel(STREAM_QUEUE + 1);
        self.start_watch(sub, &r, slot, tx);
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    type PlayStream = PlayStream;

    async fn play(
        &self,
        request: Request<tonic::Streaming<v1::PlayRequest>>,
    ) -> Result<Response<PlayStream>, Status> {
        self.admit(&request).map_err(|e| self.fail(e))?;
        let token = require_token(request.metadata())
            .map_err(|e| self.fail(self.charge(peer(&request), None, None).err().unwrap_or(e)))?;
        let peer = peer(&request);
        let mut requests = request.into_inner();
        // The game is named by the opening: the call is charged once it has come (to the
        // token if it holds a seat of that game, as any call naming a game). Until then it
        // holds no stream place, and it waits for the opening a bounded time: a call that
        // never sends it ends, charged to the address, instead of being held for ever.
        let wait = self.config.play_open_timeout();
        let opening = match tokio::time::timeout(wait, requests.message()).await {
            Err(_) => {
                self.charge(peer, None, None).map_err(|e| self.fail(e))?;
                return Err(self.fail(ApiError::new(
                    Code::DeadlineExceeded,
                    Reason::PlayNotOpened,
                    format!(
                        "no `watch` came within {wait:?} of the Play call's start: send the \
                         opening message first, at once"
                    ),
                )));
            }
            Ok(message) => message?,
        };
        let opening = match opening {
            Some(v1::PlayRequest {
                kind: Some(v1::play_request::Kind::Watch(w)),
            }) => w,
            _ => {
                self.charge(peer, None, None).map_err(|e| self.fail(e))?;
                return Err(self.fail(ApiError::invalid(
                    Reason::PlayNotOpened,
                    "watch",
                    "the first request of a Play stream must be `watch` (the game, and what the \
                     stream carries); send it, then the actions as `submit`",
                )));
            }
        };
        let game = self.registry.get(&opening.game_id);
        self.charge(peer, Some(&token), game.as_ref().ok())
            .map_err(|e| self.fail(e))?;
        let handle = game.map_err(|e| self.fail(e))?;
        // The token's stream place is taken only once the token is known to hold a seat of
        // the game: a token that holds none is refused by the actor (NOT_A_SEAT_OF_GAME) and
        // takes nothing on the way. (Were it to hold one by then, its place is taken after.)
        let holds = handle.seats.holds(token.id());
        let mut slot = if holds {
            self.stream_slot(peer, &Some(token.clone()))
                .map_err(|e| self.fail(e))?
        } else {
            None
        };
        let sub = handle
            .ask(|reply| Command::Subscribe {
                token: Some(token.clone()),
                after_seq: opening.after_seq,
                include_actions: opening.include_actions,
                include_view: opening.include_view,
                reply,
            })
            .await
            .map_err(|e| self.fail(e))?;
        if !holds {
            slot = self
                .stream_slot(peer, &Some(token.clone()))
                .map_err(|e| self.fail(e))?;
        }
        let (tx, rx) = mpsc::channel(STREAM_QUEUE + 1);
        let watching = self.start_watch(sub, &opening, slot, tx.clone());
        let plays = Plays {
            game_id: opening.game_id,
            handle,
            token_id: token.id(),
            token,
            limits: self.limits.clone(),
            metrics: self.metrics.clone(),
            send_timeout: self.config.watch_send_timeout(),
            max_message_bytes: self.config.max_message_bytes,
            tx,
        };
        tokio::spawn(plays.run(requests, watching));
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn get_scores(
        &self,
        request: Request<v1::GetScoresRequest>,
    ) -> Result<Response<v1::GetScoresResponse>, Status> {
        let (_, handle) = self
            .admit_to_game(&request, &request.get_ref().game_id)
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
        let (_, handle) = self
            .admit_to_game(&request, &request.get_ref().game_id)
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
        self.admit_no_game(&request).map_err(|e| self.fail(e))?;
        let rules = request.into_inner().rules.ok_or_else(|| {
            self.fail(ApiError::invalid(
                Reason::MissingField,
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

/// The actions side of a Play stream: applies each action the client sends and queues its
/// result among the watch stream's messages. It ends when the client stops sending, or when
/// the watch side ends (the call then ends).
struct Plays {
    game_id: String,
    handle: GameHandle,
    token: Token,
    /// The token's fingerprint (computed once: each action is charged to it).
    token_id: TokenId,
    limits: Arc<RequestLimits>,
    metrics: Arc<Metrics>,
    /// How long a result waits for the client to make room (as the watch side waits).
    send_timeout: std::time::Duration,
    /// The largest request message (`--max-message-bytes`).
    max_message_bytes: usize,
    tx: mpsc::Sender<Result<v1::PlayResponse, Status>>,
}

impl Plays {
    async fn run(
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
                            self.metrics.error(code_name(e.code), e.reason.as_str());
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
                    self.metrics.error(code_name(e.code), e.reason.as_str());
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

/// Submits an action to its game's actor, as SubmitAction and a Play call both do; the
/// answer lists the action's events if `with_events`.
async fn submit_to(
    handle: &crate::actor::GameHandle,
    token: Token,
    r: v1::SubmitActionRequest,
    with_events: bool,
) -> Result<v1::SubmitActionResponse, ApiError> {
    let action = r
        .action
        .ok_or_else(|| ApiError::invalid(Reason::MissingField, "action", "action is required"))?;
    handle
        .ask(|reply| Command::Submit {
            token,
            expected_seq: r.expected_seq,
            request_id: r.request_id,
            action: Box::new(action),
            with_events,
            reply,
        })
        .await
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
const STREAM_QUEUE: usize = 64;

/// One watch stream: the backlog, then live events and prompts for the watcher, heartbeats
/// while idle; it ends when the match ends, when the watcher lags too far or does not take a
/// message for `send_timeout` (both with a final `Lagged`), when its seat is left, or at
/// shutdown.
struct Watch<O> {
    sub: Subscription,
    /// The seq of the last event the stream passed on.
    last: u64,
    include_actions: bool,
    include_view: bool,
    heartbeat: std::time::Duration,
    send_timeout: std::time::Duration,
    /// When the stream last queued a message (a heartbeat is due a `heartbeat` after).
    last_sent: tokio::time::Instant,
    shutdown: watch::Receiver<bool>,
    metrics: Arc<Metrics>,
    tx: mpsc::Sender<Result<O, Status>>,
    /// The stream's place among its client's; freed when the stream ends.
    _slot: Option<StreamSlot>,
}

enum Flow {
    Go,
    Stop,
}

/// The messages of a stream that carries what a watch stream sends: WatchGame's own, or
/// Play's.
trait StreamOut: Send + 'static {
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

    async fn run(mut self) {
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
    use crate::store::Store;
    use canasta_proto::reason::reason_of;
    use std::time::Duration;

    fn authed<T>(message: T, token: &str) -> Request<T> {
        let mut r = Request::new(message);
        r.metadata_mut().insert(
            "authorization",
            format!("Bearer {token}").parse().expect("ascii"),
        );
        r
    }

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

    fn assert_shutting_down(status: Status) {
        assert_eq!(status.code(), Code::Unavailable, "{status:?}");
        assert_eq!(reason_of(&status), Some(Reason::ShuttingDown));
        assert!(status.message().contains("retry"), "{}", status.message());
    }

    // Once the shutdown has begun, every new request is refused UNAVAILABLE SHUTTING_DOWN and
    // changes nothing. (Over the network a client rarely sees it: the transport stops taking
    // requests at the same moment; it answers the requests that reach the service meanwhile.)
    #[tokio::test]
    async fn a_stopping_server_refuses_new_requests_with_shutting_down() {
        let config = Arc::new(Config::for_tests());
        let metrics = Metrics::new();
        let registry = Arc::new(Registry::new(
            Store::memory(),
            config.clone(),
            metrics.clone(),
        ));
        let (stop, stopped) = watch::channel(false);
        let service = Service::new(registry.clone(), config, metrics, stopped);
        let rules = v1::RuleSet {
            preset: v1::Preset::Official as i32,
            player_count: 2,
            options: Default::default(),
        };
        let create = || v1::CreateGameRequest {
            rules: Some(rules.clone()),
            seed: Some(5),
            ..Default::default()
        };
        let game = service
            .create_game(Request::new(create()))
            .await
            .expect("a game")
            .into_inner()
            .game
            .expect("a summary");
        let id = game.game_id.clone();
        let join = |seat| v1::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(seat),
            display_name: format!("p{seat}"),
        };
        let token = service
            .join_game(Request::new(join(0)))
            .await
            .expect("a seat")
            .into_inner()
            .token;
        let before = registry.get(&id).expect("the game").summary();

        let _ = stop.send(true);
        assert_shutting_down(
            service
                .create_game(Request::new(create()))
                .await
                .expect_err("no new game"),
        );
        assert_shutting_down(
            service
                .join_game(Request::new(join(1)))
                .await
                .expect_err("no new player"),
        );
        let submit = v1::SubmitActionRequest {
            game_id: id.clone(),
            expected_seq: before.seq,
            request_id: "r1".into(),
            action: Some(v1::Action {
                kind: Some(v1::action::Kind::DrawStock(v1::DrawStockAction {})),
            }),
        };
        assert_shutting_down(
            service
                .submit_action(authed(submit, &token))
                .await
                .expect_err("no new action"),
        );
        let view = v1::GetViewRequest {
            game_id: id.clone(),
            include_actions: false,
        };
        assert_shutting_down(
            service
                .get_view(authed(view, &token))
                .await
                .expect_err("no new view"),
        );
        let watch = v1::WatchGameRequest {
            game_id: id.clone(),
            ..Default::default()
        };
        match service.watch_game(Request::new(watch)).await {
            Err(status) => assert_shutting_down(status),
            Ok(_) => panic!("a stream opened during the shutdown"),
        }
        // Nothing changed.
        assert_eq!(registry.len(), 1);
        assert_eq!(registry.get(&id).expect("the game").summary(), before);
    }
}
