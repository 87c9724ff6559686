//! The one layer every call of the service passes through ([`Service::call`]), in three parts:
//!
//! - admission: the server is not stopping, the `authorization` metadata is well formed, and
//!   the call's request rate is charged to whoever pays for it (the seat token if it holds a
//!   seat of the game the call names, the peer's address otherwise; see [`crate::ratelimit`]).
//!   What a method needs admitted is its request's [`Rpc::Admission`]: [`NoGame`], [`InGame`],
//!   [`AsSeat`] or, for Play, whose game comes with its first message, [`Opening`];
//! - metrics: each call counted once, by method and gRPC code, with its latency; a refusal
//!   also by its code and reason (`canasta_errors_total`);
//! - a tracing span `rpc` per call (at debug level), with the method, the game id (once known)
//!   and the seat (once known), which the streams a call opens carry on.
//!
//! The message size limit is checked before, by the transport ([`crate::message_limit`]).

use std::future::Future;
use std::net::IpAddr;
use std::time::Instant;

use canasta_engine::quote::quoted;
use canasta_proto::Reason;
use canasta_proto::reason::code_name;
use canasta_proto::v1;
use tonic::{Code, Request, Response, Status};
use tracing::Instrument;
use tracing::field::{Empty, display};

use super::Service;
use crate::actor::GameHandle;
use crate::auth::{Token, missing_token, token_of};
use crate::errors::ApiError;

/// The service's methods, as metrics and spans name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// `CreateGame`.
    CreateGame,
    /// `CancelGame`.
    CancelGame,
    /// `ListGames`.
    ListGames,
    /// `GetGame`.
    GetGame,
    /// `JoinGame`.
    JoinGame,
    /// `LeaveGame`.
    LeaveGame,
    /// `GetView`.
    GetView,
    /// `SubmitAction`.
    SubmitAction,
    /// `CheckAction`.
    CheckAction,
    /// `WatchGame` (a server stream).
    WatchGame,
    /// `Play` (a stream each way).
    Play,
    /// `GetScores`.
    GetScores,
    /// `ExportGame`.
    ExportGame,
    /// `GetReplayStep`.
    GetReplayStep,
    /// `DescribeRules`.
    DescribeRules,
    /// `LobbyService.RegisterPlayer`.
    RegisterPlayer,
    /// `LobbyService.Seek` (a server stream).
    Seek,
    /// `LobbyService.CreateChallenge`.
    CreateChallenge,
    /// `LobbyService.AnswerChallenge`.
    AnswerChallenge,
    /// `LobbyService.CancelChallenge`.
    CancelChallenge,
    /// `LobbyService.WatchPlayer` (a server stream).
    WatchPlayer,
    /// `LobbyService.GetPlayer`.
    GetPlayer,
    /// `LobbyService.GetLeaderboard`.
    GetLeaderboard,
}

impl Method {
    /// Every method.
    pub const ALL: [Method; 23] = [
        Method::CreateGame,
        Method::CancelGame,
        Method::ListGames,
        Method::GetGame,
        Method::JoinGame,
        Method::LeaveGame,
        Method::GetView,
        Method::SubmitAction,
        Method::CheckAction,
        Method::WatchGame,
        Method::Play,
        Method::GetScores,
        Method::ExportGame,
        Method::GetReplayStep,
        Method::DescribeRules,
        Method::RegisterPlayer,
        Method::Seek,
        Method::CreateChallenge,
        Method::AnswerChallenge,
        Method::CancelChallenge,
        Method::WatchPlayer,
        Method::GetPlayer,
        Method::GetLeaderboard,
    ];

    /// The method's name in its service (the names of the two services' methods differ).
    pub fn name(self) -> &'static str {
        match self {
            Method::CreateGame => "CreateGame",
            Method::CancelGame => "CancelGame",
            Method::ListGames => "ListGames",
            Method::GetGame => "GetGame",
            Method::JoinGame => "JoinGame",
            Method::LeaveGame => "LeaveGame",
            Method::GetView => "GetView",
            Method::SubmitAction => "SubmitAction",
            Method::CheckAction => "CheckAction",
            Method::WatchGame => "WatchGame",
            Method::Play => "Play",
            Method::GetScores => "GetScores",
            Method::ExportGame => "ExportGame",
            Method::GetReplayStep => "GetReplayStep",
            Method::DescribeRules => "DescribeRules",
            Method::RegisterPlayer => "RegisterPlayer",
            Method::Seek => "Seek",
            Method::CreateChallenge => "CreateChallenge",
            Method::AnswerChallenge => "AnswerChallenge",
            Method::CancelChallenge => "CancelChallenge",
            Method::WatchPlayer => "WatchPlayer",
            Method::GetPlayer => "GetPlayer",
            Method::GetLeaderboard => "GetLeaderboard",
        }
    }

    /// The full name of the method's service: `canasta.v1.CanastaService` or
    /// `canasta.v1.LobbyService`.
    pub fn service(self) -> &'static str {
        use canasta_proto::v1::canasta_service_server::SERVICE_NAME as GAMES;
        use canasta_proto::v1::lobby_service_server::SERVICE_NAME as LOBBY;
        match self {
            Method::RegisterPlayer
            | Method::Seek
            | Method::CreateChallenge
            | Method::AnswerChallenge
            | Method::CancelChallenge
            | Method::WatchPlayer
            | Method::GetPlayer
            | Method::GetLeaderboard => LOBBY,
            _ => GAMES,
        }
    }

    /// The method a request's HTTP path names (`/canasta.v1.CanastaService/GetGame`,
    /// `/canasta.v1.LobbyService/Seek`), if it names one of the services'.
    pub fn from_path(path: &str) -> Option<Method> {
        let (service, name) = path.strip_prefix('/')?.split_once('/')?;
        Method::ALL
            .into_iter()
            .find(|m| m.name() == name && m.service() == service)
    }
}

/// What the layer needs to know of a method's request.
pub(super) trait Rpc: Send + 'static {
    /// The method.
    const METHOD: Method;
    /// What the call needs admitted before the method's own work.
    type Admission: Admit;
    /// The game the request names, if it names one.
    fn game_id(&self) -> Option<&str> {
        None
    }
}

/// An admission: what the layer checks and charges before a method's own work, and what it
/// hands that work.
pub(super) trait Admit: Sized + Send {
    /// Admits `request`, or refuses it.
    fn admit<M: Rpc>(service: &Service, request: &Request<M>) -> Result<Self, ApiError>;
}

/// A call naming no game (creating, listing, describing rules, joining a free seat: no token
/// holds that seat yet): the address pays, whatever token the call carries.
pub(super) struct NoGame;

/// A call naming a game, which exists: its token, if any, paid if it holds one of the game's
/// seats; the address paid otherwise (also for a game that does not exist: the refusal comes
/// after the charge).
pub(super) struct InGame {
    /// The call's token, if it carries one.
    pub token: Option<Token>,
    /// The game.
    pub game: GameHandle,
    /// The peer's address, if the call came over a socket.
    pub peer: Option<IpAddr>,
}

/// As [`InGame`], for a call that acts for a seat: it carries a token.
pub(super) struct AsSeat {
    /// The call's token.
    pub token: Token,
    /// The game.
    pub game: GameHandle,
}

/// A call that needs a token and names its game later, in its first message (Play): nothing
/// is charged until then, unless the call is refused (then the address pays). The game is
/// admitted by [`Opening::game`].
pub(super) struct Opening {
    /// The call's token.
    pub token: Token,
    /// The peer's address, if the call came over a socket.
    pub peer: Option<IpAddr>,
}

/// Why a call failed.
pub(super) enum Failure {
    /// The service refused it: counted under its reason.
    Refused(ApiError),
    /// The transport broke before the service could answer (a Play call whose opening could
    /// not be read, its client gone): passed on as it is.
    Broken(Status),
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Failure {
        Failure::Refused(e)
    }
}

impl Service {
    /// Runs one call through the layer: a span, admission, the method's own work `inner`
    /// (handed what was admitted and the request's message), metrics, and the answer.
    pub(super) async fn call<M, R, E, F, Fut>(
        &self,
        request: Request<M>,
        inner: F,
    ) -> Result<Response<R>, Status>
    where
        M: Rpc,
        F: FnOnce(M::Admission, M) -> Fut,
        Fut: Future<Output = Result<R, E>>,
        Failure: From<E>,
    {
        let started = Instant::now();
        let method = M::METHOD.name();
        // At debug level: a span costs an allocation or two and some formatting per call when
        // enabled, and the default filter (info) leaves it off; `RUST_LOG=canasta_server=debug`
        // turns it on.
        let span = tracing::debug_span!("rpc", method, game_id = Empty, seat = Empty);
        if let Some(id) = request.get_ref().game_id().filter(|id| !id.is_empty()) {
            // A client's string: quoted, and cut short.
            span.record("game_id", display(quoted(id)));
        }
        let outcome = async {
            let admitted = M::Admission::admit(self, &request)?;
            inner(admitted, request.into_inner())
                .await
                .map_err(Failure::from)
        }
        .instrument(span.clone())
        .await;
        let took = started.elapsed();
        match outcome {
            Ok(answer) => {
                self.metrics.answered(method, Code::Ok, took);
                Ok(Response::new(answer))
            }
            Err(Failure::Refused(e)) => {
                span.in_scope(|| {
                    tracing::debug!(
                        code = code_name(e.code),
                        reason = e.reason.as_str(),
                        "refused"
                    );
                });
                self.metrics.refused(e.code, e.reason);
                self.metrics.answered(method, e.code, took);
                Err(e.into())
            }
            Err(Failure::Broken(status)) => {
                self.metrics.answered(method, status.code(), took);
                Err(status)
            }
        }
    }

    /// The checks every call passes first: the server is not stopping, and the token's form
    /// (a malformed one is charged to the address).
    pub(super) fn admit_any<M>(&self, request: &Request<M>) -> Result<Option<Token>, ApiError> {
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
    pub(super) fn charge(
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

    /// Finds the game `game_id` names and charges the call to whoever pays for it (the refusal
    /// of a game that does not exist comes after the charge). The span learns the seat the
    /// token holds, if it holds one.
    fn find_game(
        &self,
        peer: Option<IpAddr>,
        token: Option<&Token>,
        game_id: &str,
    ) -> Result<GameHandle, ApiError> {
        let game = self.registry.get(game_id);
        self.charge(peer, token, game.as_ref().ok())?;
        let game = game?;
        if let Some(seat) = token.and_then(|t| game.seats.seat_of(t.id())) {
            tracing::Span::current().record("seat", seat);
        }
        Ok(game)
    }
}

/// The peer's IP address, if the call came over a socket.
pub(super) fn peer<T>(request: &Request<T>) -> Option<IpAddr> {
    request.remote_addr().map(|a| a.ip())
}

impl Admit for NoGame {
    fn admit<M: Rpc>(service: &Service, request: &Request<M>) -> Result<NoGame, ApiError> {
        service.admit_any(request)?;
        service.charge(peer(request), None, None)?;
        Ok(NoGame)
    }
}

impl Admit for InGame {
    fn admit<M: Rpc>(service: &Service, request: &Request<M>) -> Result<InGame, ApiError> {
        let token = service.admit_any(request)?;
        let peer = peer(request);
        let game_id = request.get_ref().game_id().unwrap_or_default();
        let game = service.find_game(peer, token.as_ref(), game_id)?;
        Ok(InGame { token, game, peer })
    }
}

impl Admit for AsSeat {
    fn admit<M: Rpc>(service: &Service, request: &Request<M>) -> Result<AsSeat, ApiError> {
        let InGame { token, game, .. } = InGame::admit(service, request)?;
        Ok(AsSeat {
            token: token.ok_or_else(missing_token)?,
            game,
        })
    }
}

impl Admit for Opening {
    fn admit<M: Rpc>(service: &Service, request: &Request<M>) -> Result<Opening, ApiError> {
        let peer = peer(request);
        match service.admit_any(request)? {
            Some(token) => Ok(Opening { token, peer }),
            // Refused: the address pays for the refusal (or is refused for its rate).
            None => Err(service
                .charge(peer, None, None)
                .err()
                .unwrap_or_else(missing_token)),
        }
    }
}

impl Opening {
    /// Admits the game the call's first message names, as [`InGame`] admits a game.
    pub(super) fn game(&self, service: &Service, game_id: &str) -> Result<GameHandle, ApiError> {
        if !game_id.is_empty() {
            tracing::Span::current().record("game_id", display(quoted(game_id)));
        }
        service.find_game(self.peer, Some(&self.token), game_id)
    }

    /// Refuses the call before its game is known: the address pays for the refusal (or is
    /// refused for its rate).
    pub(super) fn refuse(&self, service: &Service, e: ApiError) -> ApiError {
        service.charge(self.peer, None, None).err().unwrap_or(e)
    }
}

/// The requests of the methods: what each needs admitted, and the game it names.
macro_rules! rpc {
    ($request:ty, $method:ident, $admission:ty) => {
        impl Rpc for $request {
            const METHOD: Method = Method::$method;
            type Admission = $admission;
        }
    };
    ($request:ty, $method:ident, $admission:ty, game_id) => {
        impl Rpc for $request {
            const METHOD: Method = Method::$method;
            type Admission = $admission;
            fn game_id(&self) -> Option<&str> {
                Some(&self.game_id)
            }
        }
    };
}

rpc!(v1::CreateGameRequest, CreateGame, NoGame);
// The creator token holds no seat: the address pays, as for any call without a seat.
rpc!(v1::CancelGameRequest, CancelGame, InGame, game_id);
rpc!(v1::ListGamesRequest, ListGames, NoGame);
rpc!(v1::GetGameRequest, GetGame, InGame, game_id);
// Joining takes a free seat: no token holds it yet, the address pays.
rpc!(v1::JoinGameRequest, JoinGame, NoGame, game_id);
rpc!(v1::LeaveGameRequest, LeaveGame, AsSeat, game_id);
rpc!(v1::GetViewRequest, GetView, InGame, game_id);
rpc!(v1::SubmitActionRequest, SubmitAction, AsSeat, game_id);
rpc!(v1::CheckActionRequest, CheckAction, AsSeat, game_id);
rpc!(v1::WatchGameRequest, WatchGame, InGame, game_id);
rpc!(tonic::Streaming<v1::PlayRequest>, Play, Opening);
rpc!(v1::GetScoresRequest, GetScores, InGame, game_id);
rpc!(v1::ExportGameRequest, ExportGame, InGame, game_id);
rpc!(v1::GetReplayStepRequest, GetReplayStep, InGame, game_id);
rpc!(v1::DescribeRulesRequest, DescribeRules, NoGame);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_names_a_method_of_the_service_or_none() {
        for m in Method::ALL {
            let path = format!("/{}/{}", m.service(), m.name());
            assert_eq!(Method::from_path(&path), Some(m));
        }
        assert_eq!(
            Method::from_path("/canasta.v1.LobbyService/Seek"),
            Some(Method::Seek)
        );
        assert_eq!(Method::from_path("/canasta.v1.CanastaService/Seek"), None);
        assert_eq!(Method::from_path("/canasta.v1.LobbyService/GetGame"), None);
        for path in [
            "/canasta.v1.CanastaService/Nope",
            "/grpc.health.v1.Health/Check",
            "canasta.v1.CanastaService/GetGame",
            "/canasta.v1.CanastaService/GetGame/x",
            "",
        ] {
            assert_eq!(Method::from_path(path), None, "{path}");
        }
    }
}
