//! Helpers for the lobby's tests (`canasta.v1.LobbyService`): a client, registered players,
//! seeks read to their seat, and a player's events read in order.

use std::net::SocketAddr;

use canasta_proto::v1;
use canasta_proto::v1::lobby_service_client::LobbyServiceClient;
use tonic::Streaming;
use tonic::transport::Channel;

use crate::{authed, channel, next_message};

/// The lobby's gRPC client type.
pub type Lobby = LobbyServiceClient<Channel>;

/// A lobby client connected to `addr`.
pub async fn lobby(addr: SocketAddr) -> Lobby {
    LobbyServiceClient::new(channel(addr).await)
}

/// Registers `name`; returns its key.
pub async fn register(lobby: &mut Lobby, name: &str) -> String {
    let answer = lobby
        .register_player(v1::RegisterPlayerRequest { name: name.into() })
        .await
        .unwrap_or_else(|e| panic!("{name} registers: {e:?}"))
        .into_inner();
    assert_eq!(answer.player.expect("the player").name, name);
    assert_eq!(answer.key.len(), 32);
    answer.key
}

/// A seek of `players`-player Official games, unrated and to 300 points (a short match).
pub fn short_seek(players: u32) -> v1::SeekRequest {
    v1::SeekRequest {
        rules: Some(crate::rules(
            v1::Preset::Official,
            players,
            &[("target_score", "300")],
        )),
        rated: Some(false),
        ..Default::default()
    }
}

/// Opens a seek with the player's key.
pub async fn seek(
    lobby: &mut Lobby,
    key: &str,
    request: v1::SeekRequest,
) -> Streaming<v1::SeekResponse> {
    lobby
        .seek(authed(request, key))
        .await
        .expect("a seek stream")
        .into_inner()
}

/// Reads a seek's stream until its seat; panics if it ends without one.
pub async fn seated(stream: &mut Streaming<v1::SeekResponse>) -> v1::SeekSeated {
    loop {
        let message = stream
            .message()
            .await
            .expect("a good message")
            .expect("the stream ends with the seat");
        if let Some(v1::seek_response::Kind::Seated(s)) = message.kind {
            return s;
        }
    }
}

/// Opens the player's event stream after `after_seq`.
pub async fn watch_player(
    lobby: &mut Lobby,
    key: &str,
    after_seq: u64,
) -> Streaming<v1::WatchPlayerResponse> {
    lobby
        .watch_player(authed(v1::WatchPlayerRequest { after_seq }, key))
        .await
        .expect("a player stream")
        .into_inner()
}

/// Reads a player's events until one `until` accepts (heartbeats skipped); returns them all,
/// checking that their seqs follow each other from `after`.
pub async fn events_until(
    stream: &mut Streaming<v1::WatchPlayerResponse>,
    mut after: u64,
    mut until: impl FnMut(&v1::PlayerEvent) -> bool,
) -> Vec<v1::PlayerEvent> {
    let mut events = Vec::new();
    loop {
        let message = next_message(stream).await.expect("the stream goes on");
        match message.kind {
            Some(v1::watch_player_response::Kind::Event(e)) => {
                assert_eq!(e.seq, after + 1, "gapless: {e:?}");
                after = e.seq;
                let done = until(&e);
                events.push(e);
                if done {
                    return events;
                }
            }
            Some(v1::watch_player_response::Kind::Heartbeat(_)) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// True for a player's event saying a game finished.
pub fn is_finished(e: &v1::PlayerEvent) -> bool {
    matches!(e.kind, Some(v1::player_event::Kind::GameFinished(_)))
}

/// True for a player's event saying a game started.
pub fn is_started(e: &v1::PlayerEvent) -> bool {
    matches!(e.kind, Some(v1::player_event::Kind::GameStarted(_)))
}

/// Makes a challenge with the challenger's key; returns it as made. Panics if it is refused
/// (tests of refusals call `create_challenge` themselves).
pub async fn make_challenge(
    lobby: &mut Lobby,
    key: &str,
    request: v1::CreateChallengeRequest,
) -> v1::Challenge {
    lobby
        .create_challenge(authed(request, key))
        .await
        .unwrap_or_else(|e| panic!("the challenge is made: {e:?}"))
        .into_inner()
        .challenge
        .expect("the challenge made")
}

/// Answers a challenge with an invited player's key; returns the challenge as it stands
/// after the answer (started once the last seat accepts). Panics if the answer is refused
/// (tests of refusals call `answer_challenge` themselves).
pub async fn answer(
    lobby: &mut Lobby,
    key: &str,
    challenge_id: &str,
    accept: bool,
) -> v1::Challenge {
    lobby
        .answer_challenge(authed(
            v1::AnswerChallengeRequest {
                challenge_id: challenge_id.into(),
                accept,
            },
            key,
        ))
        .await
        .unwrap_or_else(|e| panic!("the answer is taken: {e:?}"))
        .into_inner()
        .challenge
        .expect("the challenge answered")
}
