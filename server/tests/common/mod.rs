//! What the tests that run `canasta-server` as a process share: a client type, token metadata,
//! temporary directories, and a game with every seat taken.

#![allow(dead_code)] // each test file uses part of this module

use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use tonic::Request;
use tonic::transport::Channel;

/// A client of the service.
pub type Client = CanastaServiceClient<Channel>;

/// `message` with a seat's token as its `authorization` metadata.
pub fn authed<T>(message: T, token: &str) -> Request<T> {
    let mut r = Request::new(message);
    r.metadata_mut().insert(
        "authorization",
        format!("Bearer {token}").parse().expect("ascii"),
    );
    r
}

/// A fresh temporary directory, its name starting with `canasta-NAME-` and made unique by
/// `tempfile`: removed with everything in it when dropped, by a test that fails as by one that
/// passes.
pub fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("canasta-{name}-"))
        .tempdir()
        .expect("a temporary directory")
}

/// Creates an official game of `players` (with `options`) from `seed` and takes every seat, in
/// seat order, as "player N": the game's id and the seat tokens.
pub async fn started_game(
    client: &mut Client,
    players: u32,
    options: &[(&str, &str)],
    seed: u64,
) -> (String, Vec<String>) {
    let game = client
        .create_game(v1::CreateGameRequest {
            rules: Some(v1::RuleSet {
                preset: v1::Preset::Official as i32,
                player_count: players,
                options: options
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            }),
            seed: Some(seed),
            ..Default::default()
        })
        .await
        .expect("a game")
        .into_inner()
        .game
        .expect("a summary");
    let mut tokens = Vec::new();
    for seat in 0..players {
        let joined = client
            .join_game(v1::JoinGameRequest {
                game_id: game.game_id.clone(),
                seat: Some(seat),
                display_name: format!("player {seat}"),
            })
            .await
            .expect("a free seat")
            .into_inner();
        tokens.push(joined.token);
    }
    (game.game_id, tokens)
}
