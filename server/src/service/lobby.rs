//! The gRPC service `canasta.v1.LobbyService`: each method's adapter runs its work through the
//! same layer as the game service's ([`Service::call`]: admission, metrics, a span), and the
//! work itself is the lobby's ([`crate::lobby`]). A call with a player's key is charged to the
//! key's request rate (as a seat's call to its token's), once the key is known to be a
//! player's; any other to the address's.

use std::pin::Pin;

use canasta_proto::Reason;
use canasta_proto::v1;
use canasta_proto::v1::lobby_service_server::LobbyService;
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Code, Request, Response, Status};

use super::Service;
use super::layer::{Admit, Method, NoGame, Rpc, peer};
use crate::auth::Token;
use crate::errors::ApiError;
use crate::lobby::events::PlayerStream;
use crate::lobby::seeks::PlayerId;
use crate::ratelimit::Client;

type SeekStream = Pin<Box<dyn Stream<Item = Result<v1::SeekResponse, Status>> + Send>>;
type PlayerEvents = Pin<Box<dyn Stream<Item = Result<v1::WatchPlayerResponse, Status>> + Send>>;

/// A call of a registered player: its key was found, and the key pays for the call.
pub(super) struct AsPlayer {
    /// The player.
    pub player: PlayerId,
    /// The key it called with.
    pub key: Token,
}

impl Admit for AsPlayer {
    fn admit<M: Rpc>(service: &Service, request: &Request<M>) -> Result<AsPlayer, ApiError> {
        let peer = peer(request);
        let key = service.admit_any(request)?;
        let refuse = |e: ApiError| service.charge(peer, None, None).err().unwrap_or(e);
        let Some(key) = key else {
            return Err(refuse(ApiError::new(
                Code::Unauthenticated,
                Reason::MissingToken,
                "this call acts for a player: send its key as `authorization: Bearer <key>` \
                 (RegisterPlayer returns it)",
            )));
        };
        let player = service.lobby.authenticate(&key).map_err(refuse)?;
        service.limits.charge_token(key.id())?;
        Ok(AsPlayer { player, key })
    }
}

macro_rules! lobby_rpc {
    ($request:ty, $method:ident, $admission:ty) => {
        impl Rpc for $request {
            const METHOD: Method = Method::$method;
            type Admission = $admission;
        }
    };
}

lobby_rpc!(v1::RegisterPlayerRequest, RegisterPlayer, NoGame);
lobby_rpc!(v1::SeekRequest, Seek, AsPlayer);
lobby_rpc!(v1::CreateChallengeRequest, CreateChallenge, AsPlayer);
lobby_rpc!(v1::AnswerChallengeRequest, AnswerChallenge, AsPlayer);
lobby_rpc!(v1::CancelChallengeRequest, CancelChallenge, AsPlayer);
lobby_rpc!(v1::WatchPlayerRequest, WatchPlayer, AsPlayer);
lobby_rpc!(v1::GetPlayerRequest, GetPlayer, NoGame);
lobby_rpc!(v1::GetLeaderboardRequest, GetLeaderboard, NoGame);

/// Messages a player's stream queues for its client.
const PLAYER_QUEUE: usize = 64;

#[tonic::async_trait]
impl LobbyService for Service {
    async fn register_player(
        &self,
        request: Request<v1::RegisterPlayerRequest>,
    ) -> Result<Response<v1::RegisterPlayerResponse>, Status> {
        self.call(request, |_: NoGame, r| self.lobby.register(r))
            .await
    }

    type SeekStream = SeekStream;

    async fn seek(
        &self,
        request: Request<v1::SeekRequest>,
    ) -> Result<Response<SeekStream>, Status> {
        self.call(request, |c: AsPlayer, r| async move {
            let rx = self.lobby.seek(c.player, r)?;
            Ok::<_, ApiError>(Box::pin(ReceiverStream::new(rx)) as SeekStream)
        })
        .await
    }

    async fn create_challenge(
        &self,
        request: Request<v1::CreateChallengeRequest>,
    ) -> Result<Response<v1::CreateChallengeResponse>, Status> {
        self.call(request, |c: AsPlayer, r| {
            self.lobby.create_challenge(c.player, r)
        })
        .await
    }

    async fn answer_challenge(
        &self,
        request: Request<v1::AnswerChallengeRequest>,
    ) -> Result<Response<v1::AnswerChallengeResponse>, Status> {
        self.call(request, |c: AsPlayer, r| {
            self.lobby.answer_challenge(c.player, r)
        })
        .await
    }

    async fn cancel_challenge(
        &self,
        request: Request<v1::CancelChallengeRequest>,
    ) -> Result<Response<v1::CancelChallengeResponse>, Status> {
        self.call(request, |c: AsPlayer, r| {
            self.lobby.cancel_challenge(c.player, r)
        })
        .await
    }

    type WatchPlayerStream = PlayerEvents;

    async fn watch_player(
        &self,
        request: Request<v1::WatchPlayerRequest>,
    ) -> Result<Response<PlayerEvents>, Status> {
        self.call(request, |c: AsPlayer, r| async move {
            let slot = self.streams.open(&Client::Seat(c.key.id()))?;
            let sub = self.lobby.subscribe(c.player, r.after_seq)?;
            let (tx, rx) = tokio::sync::mpsc::channel(PLAYER_QUEUE + 1);
            let stream = PlayerStream {
                sub,
                heartbeat: self.config.heartbeat(),
                send_timeout: self.config.watch_send_timeout(),
                shutdown: self.shutdown.clone(),
                tx,
                _slot: Some(slot),
            };
            tokio::spawn(tracing::Instrument::in_current_span(stream.run()));
            Ok::<_, ApiError>(Box::pin(ReceiverStream::new(rx)) as PlayerEvents)
        })
        .await
    }

    async fn get_player(
        &self,
        request: Request<v1::GetPlayerRequest>,
    ) -> Result<Response<v1::GetPlayerResponse>, Status> {
        self.call(request, |_: NoGame, r| async move { self.lobby.player(r) })
            .await
    }

    async fn get_leaderboard(
        &self,
        request: Request<v1::GetLeaderboardRequest>,
    ) -> Result<Response<v1::GetLeaderboardResponse>, Status> {
        self.call(
            request,
            |_: NoGame, r| async move { self.lobby.leaderboard(r) },
        )
        .await
    }
}
