//! The gRPC service `canasta.v1.CanastaService`. Each method's tonic adapter hands its request
//! to the one layer every call passes through ([`layer`]: admission, metrics, a tracing span),
//! with the method's own work: one function per method below, returning [`ApiError`], which
//! asks the game's actor and builds the answer. The streams that WatchGame and Play leave
//! running are in [`streams`].

mod layer;
mod lobby;
mod replay;
mod streams;

use std::pin::Pin;
use std::sync::Arc;

use canasta_engine::Rules;
use canasta_proto::Reason;
use canasta_proto::convert::{preset_to_wire, rules_from_wire};
use canasta_proto::v1;
use canasta_proto::v1::canasta_service_server::CanastaService;
use tokio::sync::{mpsc, watch};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Request, Response, Status};

use crate::actor::{Command, GameHandle, Subscription};
use crate::auth::Token;
use crate::config::Config;
use crate::errors::ApiError;
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::ratelimit::{Client, RequestLimits, StreamLimiter, StreamSlot, keep_swept};
use crate::registry::Registry;
use layer::{AsSeat, Failure, InGame, NoGame, Opening};
use streams::{Plays, STREAM_QUEUE, StreamOut, Watch};

pub use layer::Method;

/// The `canasta.v1.CanastaService` implementation.
pub struct Service {
    registry: Arc<Registry>,
    /// The lobby (`canasta.v1.LobbyService`'s work).
    lobby: Arc<Lobby>,
    /// Request rates, by seat token and by address (who pays for what: [`layer`]).
    limits: Arc<RequestLimits>,
    streams: StreamLimiter,
    config: Arc<Config>,
    metrics: Arc<Metrics>,
    shutdown: watch::Receiver<bool>,
}

type WatchStream = Pin<Box<dyn Stream<Item = Result<v1::WatchGameResponse, Status>> + Send>>;
type PlayStream = Pin<Box<dyn Stream<Item = Result<v1::PlayResponse, Status>> + Send>>;

impl Service {
    /// The service over a registry of games. Called on a tokio runtime: it starts the task that
    /// sweeps the rate limits' idle budgets (until `shutdown`, or until the service is dropped).
    pub fn new(
        registry: Arc<Registry>,
        lobby: Arc<Lobby>,
        config: Arc<Config>,
        metrics: Arc<Metrics>,
        shutdown: watch::Receiver<bool>,
    ) -> Service {
        let limits = Arc::new(RequestLimits::new(
            config.requests_per_second(),
            config.address_requests_per_second(),
        ));
        tokio::spawn(keep_swept(Arc::downgrade(&limits), shutdown.clone()));
        for method in Method::ALL {
            metrics.declare_method(method.name());
        }
        Service {
            registry,
            lobby,
            limits,
            streams: StreamLimiter::new(
                config.max_watchers_per_token(),
                config.max_watchers_per_address(),
            ),
            config,
            metrics,
            shutdown,
        }
    }

    /// A place for one more watch stream of the caller: per token, or per address for a
    /// spectator.
    fn stream_slot(
        &self,
        peer: Option<std::net::IpAddr>,
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

    /// Starts the task that feeds a watch stream (WatchGame's, or Play's) into `tx`, in the
    /// call's span.
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
        tokio::spawn(tracing::Instrument::in_current_span(watch.run()))
    }
}

/// The tonic adapters: each runs its method's own work (below) through the layer.
#[tonic::async_trait]
impl CanastaService for Service {
    async fn create_game(
        &self,
        request: Request<v1::CreateGameRequest>,
    ) -> Result<Response<v1::CreateGameResponse>, Status> {
        self.call(request, |c, r| self.create(c, r)).await
    }

    async fn cancel_game(
        &self,
        request: Request<v1::CancelGameRequest>,
    ) -> Result<Response<v1::CancelGameResponse>, Status> {
        self.call(request, |c, r| self.cancel(c, r)).await
    }

    async fn list_games(
        &self,
        request: Request<v1::ListGamesRequest>,
    ) -> Result<Response<v1::ListGamesResponse>, Status> {
        self.call(request, |c, r| self.list(c, r)).await
    }

    async fn get_game(
        &self,
        request: Request<v1::GetGameRequest>,
    ) -> Result<Response<v1::GetGameResponse>, Status> {
        self.call(request, |c, r| self.get(c, r)).await
    }

    async fn join_game(
        &self,
        request: Request<v1::JoinGameRequest>,
    ) -> Result<Response<v1::JoinGameResponse>, Status> {
        self.call(request, |c, r| self.join(c, r)).await
    }

    async fn leave_game(
        &self,
        request: Request<v1::LeaveGameRequest>,
    ) -> Result<Response<v1::LeaveGameResponse>, Status> {
        self.call(request, |c, r| self.leave(c, r)).await
    }

    async fn get_view(
        &self,
        request: Request<v1::GetViewRequest>,
    ) -> Result<Response<v1::GetViewResponse>, Status> {
        self.call(request, |c, r| self.view(c, r)).await
    }

    async fn submit_action(
        &self,
        request: Request<v1::SubmitActionRequest>,
    ) -> Result<Response<v1::SubmitActionResponse>, Status> {
        self.call(request, |c, r| self.submit(c, r)).await
    }

    async fn check_action(
        &self,
        request: Request<v1::CheckActionRequest>,
    ) -> Result<Response<v1::CheckActionResponse>, Status> {
        self.call(request, |c, r| self.check(c, r)).await
    }

    type WatchGameStream = WatchStream;

    async fn watch_game(
        &self,
        request: Request<v1::WatchGameRequest>,
    ) -> Result<Response<WatchStream>, Status> {
        self.call(request, |c, r| self.watch(c, r)).await
    }

    type PlayStream = PlayStream;

    async fn play(
        &self,
        request: Request<tonic::Streaming<v1::PlayRequest>>,
    ) -> Result<Response<PlayStream>, Status> {
        self.call(request, |c, r| self.play_stream(c, r)).await
    }

    async fn get_scores(
        &self,
        request: Request<v1::GetScoresRequest>,
    ) -> Result<Response<v1::GetScoresResponse>, Status> {
        self.call(request, |c, r| self.scores(c, r)).await
    }

    async fn export_game(
        &self,
        request: Request<v1::ExportGameRequest>,
    ) -> Result<Response<v1::ExportGameResponse>, Status> {
        self.call(request, |c, r| self.export(c, r)).await
    }

    async fn get_replay_step(
        &self,
        request: Request<v1::GetReplayStepRequest>,
    ) -> Result<Response<v1::GetReplayStepResponse>, Status> {
        self.call(request, |c, r| self.replay_step(c, r)).await
    }

    async fn describe_rules(
        &self,
        request: Request<v1::DescribeRulesRequest>,
    ) -> Result<Response<v1::DescribeRulesResponse>, Status> {
        self.call(request, |c, r| self.describe(c, r)).await
    }
}

/// Each method's own work, once the layer has admitted the call.
impl Service {
    async fn create(
        &self,
        _: NoGame,
        r: v1::CreateGameRequest,
    ) -> Result<v1::CreateGameResponse, ApiError> {
        let created = self.registry.create(r).await?;
        if let Some(game) = &created.game {
            let id = canasta_engine::quote::quoted(&game.game_id);
            tracing::Span::current().record("game_id", tracing::field::display(id));
        }
        Ok(created)
    }

    async fn cancel(
        &self,
        call: InGame,
        _: v1::CancelGameRequest,
    ) -> Result<v1::CancelGameResponse, ApiError> {
        let token = call.token.ok_or_else(|| {
            ApiError::new(
                Code::Unauthenticated,
                Reason::MissingToken,
                "CancelGame needs the game's creator token: send `authorization: Bearer \
                 <creator_token>` with the creator_token CreateGame returned",
            )
        })?;
        let game = call
            .game
            .ask(|reply| Command::Cancel { token, reply })
            .await?;
        Ok(v1::CancelGameResponse { game: Some(game) })
    }

    async fn list(
        &self,
        _: NoGame,
        r: v1::ListGamesRequest,
    ) -> Result<v1::ListGamesResponse, ApiError> {
        let status = v1::GameStatus::try_from(r.status).map_err(|_| {
            ApiError::invalid(
                Reason::InvalidEnum,
                "status",
                format!("status {} is not a GameStatus", r.status),
            )
        })?;
        self.registry.list(r.page_size, &r.page_token, status)
    }

    async fn get(
        &self,
        call: InGame,
        _: v1::GetGameRequest,
    ) -> Result<v1::GetGameResponse, ApiError> {
        Ok(v1::GetGameResponse {
            game: Some(call.game.summary()),
        })
    }

    async fn join(
        &self,
        _: NoGame,
        r: v1::JoinGameRequest,
    ) -> Result<v1::JoinGameResponse, ApiError> {
        let game = self.registry.get(&r.game_id)?;
        let joined = game
            .ask(|reply| Command::Join {
                seat: r.seat,
                name: r.display_name,
                reply,
            })
            .await?;
        tracing::Span::current().record("seat", joined.seat);
        Ok(joined)
    }

    async fn leave(
        &self,
        call: AsSeat,
        _: v1::LeaveGameRequest,
    ) -> Result<v1::LeaveGameResponse, ApiError> {
        let token = call.token;
        call.game
            .ask(|reply| Command::Leave { token, reply })
            .await?;
        Ok(v1::LeaveGameResponse {})
    }

    async fn view(
        &self,
        call: InGame,
        r: v1::GetViewRequest,
    ) -> Result<v1::GetViewResponse, ApiError> {
        let token = call.token;
        call.game
            .ask(|reply| Command::View {
                token,
                include_actions: r.include_actions,
                reply,
            })
            .await
    }

    async fn submit(
        &self,
        call: AsSeat,
        r: v1::SubmitActionRequest,
    ) -> Result<v1::SubmitActionResponse, ApiError> {
        submit_to(&call.game, call.token, r, true).await
    }

    async fn check(
        &self,
        call: AsSeat,
        r: v1::CheckActionRequest,
    ) -> Result<v1::CheckActionResponse, ApiError> {
        let action = r.action.ok_or_else(|| {
            ApiError::invalid(Reason::MissingField, "action", "action is required")
        })?;
        let token = call.token;
        let verdict = call
            .game
            .ask(|reply| Command::Check {
                token,
                action: Box::new(action),
                reply,
            })
            .await?;
        Ok(match verdict {
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
        })
    }

    async fn watch(&self, call: InGame, r: v1::WatchGameRequest) -> Result<WatchStream, ApiError> {
        let slot = self.stream_slot(call.peer, &call.token)?;
        let sub = call
            .game
            .ask(|reply| Command::Subscribe {
                token: call.token,
                after_seq: r.after_seq,
                include_actions: r.include_actions,
                include_view: r.include_view,
                reply,
            })
            .await?;
        // One place more than the queue: the final Lagged always fits (see `Watch::send`).
        let (tx, rx) = mpsc::channel(STREAM_QUEUE + 1);
        self.start_watch(sub, &r, slot, tx);
        Ok(Box::pin(ReceiverStream::new(rx)))
    }

    async fn play_stream(
        &self,
        call: Opening,
        mut requests: tonic::Streaming<v1::PlayRequest>,
    ) -> Result<PlayStream, Failure> {
        // The game is named by the opening: the call is charged once it has come (to the
        // token if it holds a seat of that game, as any call naming a game). Until then it
        // holds no stream place, and it waits for the opening a bounded time: a call that
        // never sends it ends, charged to the address, instead of being held for ever.
        let wait = self.config.play_open_timeout();
        let opening = match tokio::time::timeout(wait, requests.message()).await {
            Err(_) => {
                return Err(call
                    .refuse(
                        self,
                        ApiError::new(
                            Code::DeadlineExceeded,
                            Reason::PlayNotOpened,
                            format!(
                                "no `watch` came within {wait:?} of the Play call's start: send \
                                 the opening message first, at once"
                            ),
                        ),
                    )
                    .into());
            }
            // Too large, or not protobuf: the transport's refusal, as the service's.
            Ok(Err(status)) => {
                return Err(
                    match crate::message_limit::refusal_of(&status, self.config.max_message_bytes())
                    {
                        Some(e) => e.into(),
                        None => Failure::Broken(status),
                    },
                );
            }
            Ok(Ok(message)) => message,
        };
        let opening = match opening {
            Some(v1::PlayRequest {
                kind: Some(v1::play_request::Kind::Watch(w)),
            }) => w,
            _ => {
                return Err(call
                    .refuse(
                        self,
                        ApiError::invalid(
                            Reason::PlayNotOpened,
                            "watch",
                            "the first request of a Play stream must be `watch` (the game, and \
                             what the stream carries); send it, then the actions as `submit`",
                        ),
                    )
                    .into());
            }
        };
        let handle = call.game(self, &opening.game_id)?;
        let token = call.token;
        let peer = call.peer;
        // The token's stream place is taken only once the token is known to hold a seat of
        // the game: a token that holds none is refused by the actor (NOT_A_SEAT_OF_GAME) and
        // takes nothing on the way. (Were it to hold one by then, its place is taken after.)
        let holds = handle.seats.holds(token.id());
        let mut slot = if holds {
            self.stream_slot(peer, &Some(token.clone()))?
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
            .await?;
        if !holds {
            slot = self.stream_slot(peer, &Some(token.clone()))?;
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
            max_message_bytes: self.config.max_message_bytes(),
            tx,
        };
        tokio::spawn(tracing::Instrument::in_current_span(
            plays.run(requests, watching),
        ));
        Ok(Box::pin(ReceiverStream::new(rx)))
    }

    async fn scores(
        &self,
        call: InGame,
        _: v1::GetScoresRequest,
    ) -> Result<v1::GetScoresResponse, ApiError> {
        call.game.ask(|reply| Command::Scores { reply }).await
    }

    async fn export(
        &self,
        call: InGame,
        _: v1::ExportGameRequest,
    ) -> Result<v1::ExportGameResponse, ApiError> {
        let record = call.game.ask(|reply| Command::Export { reply }).await?;
        Ok(v1::ExportGameResponse {
            record: Some(record),
        })
    }

    /// A step of a finished game's replay, rebuilt from its record ([`replay::step`]) here
    /// rather than in the game's task: the record is the game's export, and the replay is
    /// the engine's work alone.
    async fn replay_step(
        &self,
        call: InGame,
        r: v1::GetReplayStepRequest,
    ) -> Result<v1::GetReplayStepResponse, ApiError> {
        let record = call.game.ask(|reply| Command::Export { reply }).await?;
        replay::step(&record, r.step)
    }

    async fn describe(
        &self,
        _: NoGame,
        r: v1::DescribeRulesRequest,
    ) -> Result<v1::DescribeRulesResponse, ApiError> {
        let rules = r
            .rules
            .ok_or_else(|| ApiError::invalid(Reason::MissingField, "rules", "rules is required"))?;
        let spec = rules_from_wire(&rules)?;
        let rules = Rules::new(&spec)?;
        let docs = canasta_engine::rules::OPTION_DOCS;
        Ok(v1::DescribeRulesResponse {
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
        })
    }
}

/// Submits an action to its game's actor, as SubmitAction and a Play call both do; the
/// answer lists the action's events if `with_events`.
async fn submit_to(
    handle: &GameHandle,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use canasta_proto::reason::reason_of;
    use std::collections::BTreeMap;

    fn authed<T>(message: T, token: &str) -> Request<T> {
        let mut r = Request::new(message);
        r.metadata_mut().insert(
            "authorization",
            format!("Bearer {token}").parse().expect("ascii"),
        );
        r
    }

    /// A service on a registry in memory with the tests' configuration, its registry, and
    /// the switch that begins its shutdown.
    fn service() -> (Service, Arc<Registry>, watch::Sender<bool>) {
        let config = Arc::new(Config::for_tests());
        let metrics = Metrics::new();
        let registry = Arc::new(Registry::new(
            Store::memory(),
            config.clone(),
            metrics.clone(),
        ));
        let (stop, stopped) = watch::channel(false);
        let lobby = Lobby::new(
            registry.clone(),
            Store::memory(),
            config.clone(),
            Default::default(),
            stopped.clone(),
        );
        (
            Service::new(registry.clone(), lobby, config, metrics, stopped),
            registry,
            stop,
        )
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
        let (service, registry, stop) = service();
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

    /// The spans opened while it is the thread's subscriber: each one's name and fields, as
    /// recorded when it opened and since.
    #[derive(Clone, Default)]
    struct Spans(Arc<std::sync::Mutex<Vec<(String, SpanFields)>>>);

    /// A span's fields, by name.
    type SpanFields = BTreeMap<String, String>;

    /// The index of a span among [`Spans`]'.
    struct Index(usize);

    struct Fields<'a>(&'a mut BTreeMap<String, String>);

    impl tracing::field::Visit for Fields<'_> {
        fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
            let text = format!("{value:?}");
            // Strings are recorded quoted (a client's are, to show where they end).
            let text = text.trim_matches('"').to_string();
            self.0.insert(field.name().to_string(), text);
        }
    }

    impl<S> tracing_subscriber::Layer<S> for Spans
    where
        S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
    {
        fn on_new_span(
            &self,
            attrs: &tracing::span::Attributes<'_>,
            id: &tracing::span::Id,
            ctx: tracing_subscriber::layer::Context<'_, S>,
        ) {
            let mut fields = BTreeMap::new();
            attrs.record(&mut Fields(&mut fields));
            let mut spans = self.0.lock().unwrap();
            spans.push((attrs.metadata().name().to_string(), fields));
            let span = ctx.span(id).expect("the span is open");
            span.extensions_mut().insert(Index(spans.len() - 1));
        }

        fn on_record(
            &self,
            id: &tracing::span::Id,
            values: &tracing::span::Record<'_>,
            ctx: tracing_subscriber::layer::Context<'_, S>,
        ) {
            let span = ctx.span(id).expect("the span is open");
            if let Some(Index(i)) = span.extensions().get::<Index>() {
                values.record(&mut Fields(&mut self.0.lock().unwrap()[*i].1));
            }
        }
    }

    impl Spans {
        /// The fields of the `rpc` spans, in the order they opened.
        fn calls(&self) -> Vec<BTreeMap<String, String>> {
            let spans = self.0.lock().unwrap();
            spans
                .iter()
                .filter(|(name, _)| name == "rpc")
                .map(|(_, fields)| fields.clone())
                .collect()
        }
    }

    fn fields(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    // Every call runs in one `rpc` span that names its method, the game once known (the one
    // it names, the one it created) and the seat once known (the one joined, the one the token
    // holds); a refused call's span too.
    #[tokio::test]
    async fn each_call_runs_in_a_span_naming_its_method_game_and_seat() {
        use tracing_subscriber::layer::SubscriberExt;
        let spans = Spans::default();
        let _subscriber =
            tracing::subscriber::set_default(tracing_subscriber::registry().with(spans.clone()));
        let (service, _registry, _stop) = service();
        let create = v1::CreateGameRequest {
            rules: Some(v1::RuleSet {
                preset: v1::Preset::Official as i32,
                player_count: 2,
                options: Default::default(),
            }),
            seed: Some(5),
            ..Default::default()
        };
        let id = service
            .create_game(Request::new(create))
            .await
            .expect("a game")
            .into_inner()
            .game
            .expect("a summary")
            .game_id;
        let join = v1::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(1),
            display_name: "p1".into(),
        };
        let token = service
            .join_game(Request::new(join))
            .await
            .expect("a seat")
            .into_inner()
            .token;
        let view = v1::GetViewRequest {
            game_id: id.clone(),
            include_actions: false,
        };
        service
            .get_view(authed(view, &token))
            .await
            .expect("a view");
        let unknown = v1::GetGameRequest {
            game_id: "nope".into(),
        };
        service
            .get_game(Request::new(unknown))
            .await
            .expect_err("no such game");
        service
            .list_games(Request::new(v1::ListGamesRequest::default()))
            .await
            .expect("the games");
        assert_eq!(
            spans.calls(),
            [
                fields(&[("method", "CreateGame"), ("game_id", &id)]),
                fields(&[("method", "JoinGame"), ("game_id", &id), ("seat", "1")]),
                fields(&[("method", "GetView"), ("game_id", &id), ("seat", "1")]),
                fields(&[("method", "GetGame"), ("game_id", "nope")]),
                fields(&[("method", "ListGames")]),
            ]
        );
    }
}
