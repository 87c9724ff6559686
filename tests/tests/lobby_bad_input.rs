//! The lobby's bad-input table: every field of every LobbyService request, and the keys the
//! calls carry (none, malformed, unknown), one row per case with the code and reason
//! docs/protocol.md documents for it. After every row nothing has changed: no player was added,
//! no event was sent to anyone (each player's next seq is refused as beyond its last), no game
//! was made, and the players' records and the leaderboard are as before.

use std::collections::HashMap;

use canasta_proto::v1;
use canasta_tests::lobby::*;
use canasta_tests::*;
use tonic::{Code, Request, Status};
use tonic_types::StatusExt;

/// Who a request is sent as.
#[derive(Clone, Copy, Debug)]
enum As {
    Nobody,
    Player(&'static str),
    /// A made-up key of the right form.
    Unknown,
    /// `authorization: Basic …`.
    Malformed,
}

/// A request of any lobby RPC.
#[derive(Clone, Debug)]
enum Call {
    Register(v1::RegisterPlayerRequest),
    Seek(v1::SeekRequest),
    Challenge(v1::CreateChallengeRequest),
    Answer(v1::AnswerChallengeRequest),
    Cancel(v1::CancelChallengeRequest),
    Watch(v1::WatchPlayerRequest),
    Player(v1::GetPlayerRequest),
    Board(v1::GetLeaderboardRequest),
}

struct World {
    lobby: Lobby,
    client: Client,
    keys: HashMap<&'static str, String>,
    /// Each player's last event seq.
    last: HashMap<&'static str, u64>,
}

impl World {
    fn request<T>(&self, message: T, who: As) -> Request<T> {
        match who {
            As::Nobody => Request::new(message),
            As::Player(p) => authed(message, &self.keys[p]),
            As::Unknown => authed(message, &"0".repeat(32)),
            As::Malformed => {
                let mut r = Request::new(message);
                r.metadata_mut()
                    .insert("authorization", "Basic abc".parse().unwrap());
                r
            }
        }
    }

    async fn call(&mut self, call: Call, who: As) -> Result<(), Status> {
        let mut lobby = self.lobby.clone();
        match call {
            Call::Register(m) => lobby.register_player(self.request(m, who)).await.map(drop),
            Call::Seek(m) => lobby.seek(self.request(m, who)).await.map(drop),
            Call::Challenge(m) => lobby.create_challenge(self.request(m, who)).await.map(drop),
            Call::Answer(m) => lobby.answer_challenge(self.request(m, who)).await.map(drop),
            Call::Cancel(m) => lobby.cancel_challenge(self.request(m, who)).await.map(drop),
            Call::Watch(m) => lobby.watch_player(self.request(m, who)).await.map(drop),
            Call::Player(m) => lobby.get_player(self.request(m, who)).await.map(drop),
            Call::Board(m) => lobby.get_leaderboard(self.request(m, who)).await.map(drop),
        }
    }

    /// What a refused request must leave as it was.
    async fn snapshot(
        &mut self,
    ) -> (
        Vec<v1::GetPlayerResponse>,
        v1::GetLeaderboardResponse,
        usize,
    ) {
        let mut records = Vec::new();
        for name in ["ann", "bob", "cy"] {
            records.push(
                self.lobby
                    .get_player(v1::GetPlayerRequest {
                        name: name.into(),
                        recent_games: 100,
                    })
                    .await
                    .unwrap()
                    .into_inner(),
            );
        }
        let board = self
            .lobby
            .get_leaderboard(v1::GetLeaderboardRequest {
                family: Some(family(2)),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let games = self
            .client
            .list_games(v1::ListGamesRequest::default())
            .await
            .unwrap()
            .into_inner()
            .games
            .len();
        // No event was sent: each player's next seq is still beyond its last.
        for (name, last) in self.last.clone() {
            let next = self
                .lobby
                .watch_player(authed(
                    v1::WatchPlayerRequest {
                        after_seq: last + 1,
                    },
                    &self.keys[name],
                ))
                .await;
            refused(next, Code::InvalidArgument, "BAD_SEQ");
        }
        (records, board, games)
    }
}

fn family(players: u32) -> v1::RatingFamily {
    v1::RatingFamily {
        preset: v1::Preset::Official as i32,
        player_count: players,
    }
}

fn seek_of(rules: Option<v1::RuleSet>) -> v1::SeekRequest {
    v1::SeekRequest {
        rules,
        ..Default::default()
    }
}

fn official(players: u32) -> Option<v1::RuleSet> {
    Some(rules(v1::Preset::Official, players, &[]))
}

#[tokio::test]
async fn every_bad_field_of_the_lobby_is_refused_with_its_reason_and_changes_nothing() {
    // No house players: a seek that asks for them is refused.
    let config = test_config()
        .house_players(Vec::<String>::new())
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut lobby = lobby(server.addr).await;
    let mut keys = HashMap::new();
    for name in ["ann", "bob", "cy"] {
        keys.insert(name, register(&mut lobby, name).await);
    }
    let challenge = |seats: &[&str]| v1::CreateChallengeRequest {
        rules: official(2),
        seats: seats.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    let pending = make_challenge(&mut lobby, &keys["ann"], challenge(&["ann", "bob"]))
        .await
        .challenge_id;
    let ended = make_challenge(&mut lobby, &keys["ann"], challenge(&["ann", "bob"]))
        .await
        .challenge_id;
    lobby
        .cancel_challenge(authed(
            v1::CancelChallengeRequest {
                challenge_id: ended.clone(),
            },
            &keys["ann"],
        ))
        .await
        .unwrap();
    // ann: two challenges made, one withdrawn; bob: told of the same; cy: nothing.
    let last = HashMap::from([("ann", 3), ("bob", 3), ("cy", 0)]);
    let mut world = World {
        lobby,
        client: server.client().await,
        keys,
        last,
    };
    let before = world.snapshot().await;

    use Call::*;
    use Code::*;
    let answer = |id: &str, accept| {
        Answer(v1::AnswerChallengeRequest {
            challenge_id: id.into(),
            accept,
        })
    };
    let cancel = |id: &str| {
        Cancel(v1::CancelChallengeRequest {
            challenge_id: id.into(),
        })
    };
    let with_options = |rated| v1::SeekRequest {
        rules: Some(rules(v1::Preset::Official, 2, &[("target_score", "300")])),
        rated,
        ..Default::default()
    };
    let timed = |budget, policy| v1::SeekRequest {
        time_control: Some(v1::TimeControl {
            move_budget_ms: budget,
            policy,
        }),
        ..seek_of(official(2))
    };
    let partner = |players, name: &str| v1::SeekRequest {
        partner: name.into(),
        ..seek_of(official(players))
    };
    let fill = |ms| v1::SeekRequest {
        fill_with_bots_after_ms: ms,
        ..seek_of(official(2))
    };
    let player_rules = |preset: i32, players| {
        Some(v1::RuleSet {
            preset,
            player_count: players,
            options: Default::default(),
        })
    };
    let rows: Vec<(&str, Call, As, Code, &str)> = vec![
        // RegisterPlayer: the name.
        (
            "no name",
            Register(v1::RegisterPlayerRequest { name: "".into() }),
            As::Nobody,
            InvalidArgument,
            "MISSING_FIELD",
        ),
        (
            "spaces only",
            Register(v1::RegisterPlayerRequest { name: "  ".into() }),
            As::Nobody,
            InvalidArgument,
            "BAD_DISPLAY_NAME",
        ),
        (
            "a control character",
            Register(v1::RegisterPlayerRequest {
                name: "a\u{7}b".into(),
            }),
            As::Nobody,
            InvalidArgument,
            "BAD_DISPLAY_NAME",
        ),
        (
            "a direction change",
            Register(v1::RegisterPlayerRequest {
                name: "a\u{202e}b".into(),
            }),
            As::Nobody,
            InvalidArgument,
            "BAD_DISPLAY_NAME",
        ),
        (
            "41 characters",
            Register(v1::RegisterPlayerRequest {
                name: "x".repeat(41),
            }),
            As::Nobody,
            InvalidArgument,
            "BAD_DISPLAY_NAME",
        ),
        (
            "a name taken, in another case",
            Register(v1::RegisterPlayerRequest {
                name: " ANN ".into(),
            }),
            As::Nobody,
            AlreadyExists,
            "NAME_TAKEN",
        ),
        // Seek: the key.
        (
            "a seek without a key",
            Seek(seek_of(official(2))),
            As::Nobody,
            Unauthenticated,
            "MISSING_TOKEN",
        ),
        (
            "a seek with a malformed key",
            Seek(seek_of(official(2))),
            As::Malformed,
            Unauthenticated,
            "MALFORMED_TOKEN",
        ),
        (
            "a seek with an unknown key",
            Seek(seek_of(official(2))),
            As::Unknown,
            Unauthenticated,
            "UNKNOWN_PLAYER_KEY",
        ),
        // Seek: the rules.
        (
            "no rules",
            Seek(seek_of(None)),
            As::Player("ann"),
            InvalidArgument,
            "MISSING_FIELD",
        ),
        (
            "no preset",
            Seek(seek_of(player_rules(0, 2))),
            As::Player("ann"),
            InvalidArgument,
            "INVALID_ENUM",
        ),
        (
            "an unknown preset",
            Seek(seek_of(player_rules(99, 2))),
            As::Player("ann"),
            InvalidArgument,
            "INVALID_ENUM",
        ),
        (
            "seven players",
            Seek(seek_of(official(7))),
            As::Player("ann"),
            InvalidArgument,
            "BAD_PLAYER_COUNT",
        ),
        (
            "no players",
            Seek(seek_of(official(0))),
            As::Player("ann"),
            InvalidArgument,
            "BAD_PLAYER_COUNT",
        ),
        (
            "an unknown option",
            Seek(v1::SeekRequest {
                rules: Some(rules(v1::Preset::Official, 2, &[("nope", "1")])),
                rated: Some(false),
                ..Default::default()
            }),
            As::Player("ann"),
            InvalidArgument,
            "UNKNOWN_OPTION",
        ),
        (
            "a bad option value",
            Seek(v1::SeekRequest {
                rules: Some(rules(v1::Preset::Official, 2, &[("target_score", "many")])),
                rated: Some(false),
                ..Default::default()
            }),
            As::Player("ann"),
            InvalidArgument,
            "BAD_OPTION_VALUE",
        ),
        (
            "options, rated by default",
            Seek(with_options(None)),
            As::Player("ann"),
            InvalidArgument,
            "RATED_HOUSE_RULES",
        ),
        (
            "options, rated",
            Seek(with_options(Some(true))),
            As::Player("ann"),
            InvalidArgument,
            "RATED_HOUSE_RULES",
        ),
        // Seek: the time control.
        (
            "an unknown policy",
            Seek(timed(0, 9)),
            As::Player("ann"),
            InvalidArgument,
            "INVALID_ENUM",
        ),
        (
            "a budget under the floor",
            Seek(timed(5, 1)),
            As::Player("ann"),
            InvalidArgument,
            "BAD_TIME_CONTROL",
        ),
        (
            "a budget over the ceiling",
            Seek(timed(u64::MAX, 1)),
            As::Player("ann"),
            InvalidArgument,
            "BAD_TIME_CONTROL",
        ),
        // Seek: the partner.
        (
            "an unknown partner",
            Seek(partner(4, "nobody")),
            As::Player("ann"),
            InvalidArgument,
            "BAD_PARTNER",
        ),
        (
            "oneself as partner",
            Seek(partner(4, "ANN")),
            As::Player("ann"),
            InvalidArgument,
            "BAD_PARTNER",
        ),
        (
            "a partner in a two-player game",
            Seek(partner(2, "bob")),
            As::Player("ann"),
            InvalidArgument,
            "BAD_PARTNER",
        ),
        (
            "a partner in a three-player game",
            Seek(partner(3, "bob")),
            As::Player("ann"),
            InvalidArgument,
            "BAD_PARTNER",
        ),
        // Seek: the house bots.
        (
            "a fill wait over an hour",
            Seek(fill(3_600_001)),
            As::Player("ann"),
            InvalidArgument,
            "BAD_FILL_WAIT",
        ),
        (
            "a fill wait, no house bots",
            Seek(fill(1000)),
            As::Player("ann"),
            FailedPrecondition,
            "HOUSE_BOTS_UNAVAILABLE",
        ),
        // CreateChallenge.
        (
            "a challenge without a key",
            Challenge(challenge(&["ann", "cy"])),
            As::Nobody,
            Unauthenticated,
            "MISSING_TOKEN",
        ),
        (
            "a challenge with an unknown key",
            Challenge(challenge(&["ann", "cy"])),
            As::Unknown,
            Unauthenticated,
            "UNKNOWN_PLAYER_KEY",
        ),
        (
            "a challenge without rules",
            Challenge(v1::CreateChallengeRequest {
                rules: None,
                ..challenge(&["ann", "cy"])
            }),
            As::Player("ann"),
            InvalidArgument,
            "MISSING_FIELD",
        ),
        (
            "a challenge of seven",
            Challenge(v1::CreateChallengeRequest {
                rules: official(7),
                ..challenge(&["ann", "cy"])
            }),
            As::Player("ann"),
            InvalidArgument,
            "BAD_PLAYER_COUNT",
        ),
        (
            "a rated challenge with options",
            Challenge(v1::CreateChallengeRequest {
                rules: Some(rules(v1::Preset::Official, 2, &[("target_score", "300")])),
                ..challenge(&["ann", "cy"])
            }),
            As::Player("ann"),
            InvalidArgument,
            "RATED_HOUSE_RULES",
        ),
        (
            "a seeded challenge, rated by default",
            Challenge(v1::CreateChallengeRequest {
                seed: Some(7),
                ..challenge(&["ann", "cy"])
            }),
            As::Player("ann"),
            InvalidArgument,
            "RATED_SEED",
        ),
        (
            "a seeded challenge asked rated",
            Challenge(v1::CreateChallengeRequest {
                seed: Some(0),
                rated: Some(true),
                ..challenge(&["ann", "cy"])
            }),
            As::Player("ann"),
            InvalidArgument,
            "RATED_SEED",
        ),
        (
            "a challenge's bad policy",
            Challenge(v1::CreateChallengeRequest {
                time_control: Some(v1::TimeControl {
                    move_budget_ms: 0,
                    policy: 7,
                }),
                ..challenge(&["ann", "cy"])
            }),
            As::Player("ann"),
            InvalidArgument,
            "INVALID_ENUM",
        ),
        (
            "too few seats named",
            Challenge(challenge(&["ann"])),
            As::Player("ann"),
            InvalidArgument,
            "BAD_SEATS",
        ),
        (
            "too many seats named",
            Challenge(challenge(&["ann", "bob", "cy"])),
            As::Player("ann"),
            InvalidArgument,
            "BAD_SEATS",
        ),
        (
            "an unknown player seated",
            Challenge(challenge(&["ann", "zed"])),
            As::Player("ann"),
            InvalidArgument,
            "BAD_SEATS",
        ),
        (
            "a player seated twice",
            Challenge(challenge(&["cy", "CY"])),
            As::Player("cy"),
            InvalidArgument,
            "BAD_SEATS",
        ),
        (
            "the challenger not seated",
            Challenge(challenge(&["bob", "cy"])),
            As::Player("ann"),
            InvalidArgument,
            "BAD_SEATS",
        ),
        // AnswerChallenge.
        (
            "an answer without a key",
            answer(&pending, true),
            As::Nobody,
            Unauthenticated,
            "MISSING_TOKEN",
        ),
        (
            "an answer without an id",
            answer("", true),
            As::Player("bob"),
            InvalidArgument,
            "MISSING_FIELD",
        ),
        (
            "an answer to no challenge",
            answer("c0", true),
            As::Player("bob"),
            NotFound,
            "CHALLENGE_NOT_FOUND",
        ),
        (
            "an answer by the challenger",
            answer(&pending, false),
            As::Player("ann"),
            PermissionDenied,
            "NOT_INVITED",
        ),
        (
            "an answer by a player not invited",
            answer(&pending, true),
            As::Player("cy"),
            PermissionDenied,
            "NOT_INVITED",
        ),
        (
            "an answer to an ended challenge",
            answer(&ended, true),
            As::Player("bob"),
            FailedPrecondition,
            "CHALLENGE_CLOSED",
        ),
        // CancelChallenge.
        (
            "a cancel without an id",
            cancel(""),
            As::Player("ann"),
            InvalidArgument,
            "MISSING_FIELD",
        ),
        (
            "a cancel of no challenge",
            cancel("nope"),
            As::Player("ann"),
            NotFound,
            "CHALLENGE_NOT_FOUND",
        ),
        (
            "a cancel by an invited player",
            cancel(&pending),
            As::Player("bob"),
            PermissionDenied,
            "NOT_INVITED",
        ),
        (
            "a cancel of an ended challenge",
            cancel(&ended),
            As::Player("ann"),
            FailedPrecondition,
            "CHALLENGE_CLOSED",
        ),
        (
            "a cancel with an unknown key",
            cancel(&pending),
            As::Unknown,
            Unauthenticated,
            "UNKNOWN_PLAYER_KEY",
        ),
        // WatchPlayer.
        (
            "a stream without a key",
            Watch(v1::WatchPlayerRequest { after_seq: 0 }),
            As::Nobody,
            Unauthenticated,
            "MISSING_TOKEN",
        ),
        (
            "a stream with an unknown key",
            Watch(v1::WatchPlayerRequest { after_seq: 0 }),
            As::Unknown,
            Unauthenticated,
            "UNKNOWN_PLAYER_KEY",
        ),
        (
            "a stream after a seq to come",
            Watch(v1::WatchPlayerRequest { after_seq: 4 }),
            As::Player("ann"),
            InvalidArgument,
            "BAD_SEQ",
        ),
        (
            "a stream after the last seq",
            Watch(v1::WatchPlayerRequest {
                after_seq: u64::MAX,
            }),
            As::Player("cy"),
            InvalidArgument,
            "BAD_SEQ",
        ),
        // GetPlayer.
        (
            "no player name",
            Player(v1::GetPlayerRequest {
                name: String::new(),
                recent_games: 0,
            }),
            As::Nobody,
            InvalidArgument,
            "MISSING_FIELD",
        ),
        (
            "an unknown player",
            Player(v1::GetPlayerRequest {
                name: "zed".into(),
                recent_games: 0,
            }),
            As::Nobody,
            NotFound,
            "PLAYER_NOT_FOUND",
        ),
        // GetLeaderboard.
        (
            "no family",
            Board(v1::GetLeaderboardRequest::default()),
            As::Nobody,
            InvalidArgument,
            "MISSING_FIELD",
        ),
        (
            "a family without a preset",
            Board(v1::GetLeaderboardRequest {
                family: Some(v1::RatingFamily {
                    preset: 0,
                    player_count: 2,
                }),
                ..Default::default()
            }),
            As::Nobody,
            InvalidArgument,
            "INVALID_ENUM",
        ),
        (
            "a family of seven",
            Board(v1::GetLeaderboardRequest {
                family: Some(family(7)),
                ..Default::default()
            }),
            As::Nobody,
            InvalidArgument,
            "BAD_PLAYER_COUNT",
        ),
        (
            "a samba family of six",
            Board(v1::GetLeaderboardRequest {
                family: Some(v1::RatingFamily {
                    preset: v1::Preset::Samba as i32,
                    player_count: 6,
                }),
                ..Default::default()
            }),
            As::Nobody,
            InvalidArgument,
            "BAD_PLAYER_COUNT",
        ),
        (
            "a made-up page token",
            Board(v1::GetLeaderboardRequest {
                family: Some(family(2)),
                page_token: "x1".into(),
                ..Default::default()
            }),
            As::Nobody,
            InvalidArgument,
            "BAD_PAGE_TOKEN",
        ),
    ];
    for (what, call, who, code, why) in rows {
        let result = world.call(call, who).await;
        let status = result.expect_err(what);
        assert_eq!(
            (status.code(), reason(&status).as_str()),
            (code, why),
            "{what}: {status:?}"
        );
        assert!(
            !status.message().is_empty(),
            "{what}: a message says what to do"
        );
        assert_eq!(world.snapshot().await, before, "{what} changed something");
    }
    // A seeded challenge asked rated names the field to change in its BadRequest.
    let status = world
        .call(
            Challenge(v1::CreateChallengeRequest {
                seed: Some(7),
                ..challenge(&["ann", "cy"])
            }),
            As::Player("ann"),
        )
        .await
        .expect_err("a rated seeded challenge");
    let violations = status
        .get_details_bad_request()
        .expect("a BadRequest")
        .field_violations;
    assert_eq!(violations[0].field, "seed", "{status:?}");
    // A refused row counted nothing against the player: its seeks still open and are
    // answered, here the first of as many as the limit allows.
    let mut open = seek(
        &mut world.lobby.clone(),
        &world.keys["cy"],
        v1::SeekRequest {
            rated: Some(false),
            ..short_seek(2)
        },
    )
    .await;
    let first = open.message().await.unwrap().unwrap();
    assert!(matches!(
        first.kind,
        Some(v1::seek_response::Kind::Waiting(_))
    ));
    server.stop().await;
}

// A player's limits: seeks (and pending challenges) beyond --max-seeks-per-player are
// TOO_MANY_SEEKS; a player whose games and waits reach --max-games-per-player is
// TOO_MANY_PLAYER_GAMES; a closed seek frees its place. Events older than the kept tail are
// EVENTS_DROPPED, with the first kept seq.
#[tokio::test]
async fn a_player_s_limits_and_its_kept_events() {
    let config = test_config()
        .max_seeks_per_player(2)
        .max_games_per_player(2)
        .player_events_kept(16)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut lobby = lobby(server.addr).await;
    let ann = register(&mut lobby, "ann").await;
    let bob = register(&mut lobby, "bob").await;
    let first = seek(&mut lobby, &ann, short_seek(3)).await;
    let _second = seek(&mut lobby, &ann, short_seek(3)).await;
    let third = lobby.seek(authed(short_seek(3), &ann)).await;
    refused(third, Code::ResourceExhausted, "TOO_MANY_SEEKS");
    let challenge = v1::CreateChallengeRequest {
        rules: Some(rules(v1::Preset::Official, 2, &[])),
        seats: vec!["ann".into(), "bob".into()],
        ..Default::default()
    };
    refused(
        lobby
            .create_challenge(authed(challenge.clone(), &ann))
            .await,
        Code::ResourceExhausted,
        "TOO_MANY_SEEKS",
    );
    // A closed seek frees its place (once the server has seen the stream close).
    drop(first);
    let mut freed = None;
    for _ in 0..1000 {
        match lobby
            .create_challenge(authed(challenge.clone(), &ann))
            .await
        {
            Ok(c) => {
                freed = Some(c.into_inner());
                break;
            }
            Err(e) => {
                assert_refused(&e, Code::ResourceExhausted, "TOO_MANY_SEEKS");
                tokio::task::yield_now().await;
            }
        }
    }
    assert!(freed.is_some(), "the closed seek's place was freed");
    // bob: an invitation he has not answered is no wait of his; a seek and a challenge he
    // accepted are two, the most.
    let cy = register(&mut lobby, "cy").await;
    let _bob_seek = seek(&mut lobby, &bob, short_seek(4)).await;
    let three = make_challenge(
        &mut lobby,
        &cy,
        v1::CreateChallengeRequest {
            rules: Some(rules(v1::Preset::Official, 3, &[])),
            seats: vec!["cy".into(), "bob".into(), "ann".into()],
            ..Default::default()
        },
    )
    .await
    .challenge_id;
    let bob_challenge = v1::CreateChallengeRequest {
        seats: vec!["bob".into(), "cy".into()],
        ..challenge.clone()
    };
    answer(&mut lobby, &bob, &three, true).await;
    let more = lobby.create_challenge(authed(bob_challenge, &bob)).await;
    refused(more, Code::ResourceExhausted, "TOO_MANY_PLAYER_GAMES");
    // Kept events: bob declines and ann challenges again, until bob has more than 16 events.
    let mut id = freed.unwrap().challenge.unwrap().challenge_id;
    for _ in 0..10 {
        answer(&mut lobby, &bob, &id, false).await;
        id = make_challenge(&mut lobby, &ann, challenge.clone())
            .await
            .challenge_id;
    }
    // bob: 23 events (ann's first challenge, cy's and his accept of it, then each challenge
    // and each decline), the last 16 kept: 8 to 23.
    let dropped = lobby
        .watch_player(authed(v1::WatchPlayerRequest { after_seq: 0 }, &bob))
        .await;
    let status = refused(dropped, Code::OutOfRange, "EVENTS_DROPPED");
    assert_eq!(
        status
            .metadata()
            .get("canasta-first_seq")
            .map(|v| v.to_str().unwrap()),
        Some("8"),
        "{status:?}"
    );
    let mut kept = watch_player(&mut lobby, &bob, 7).await;
    let events = events_until(&mut kept, 7, |e| e.seq == 23).await;
    assert_eq!(events.len(), 16);
    server.stop().await;
}
