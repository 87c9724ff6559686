//! Storage faults end to end: writes that fail (a full disk, a lost volume; injected through
//! the store's fault switch) are answered UNAVAILABLE `STORAGE_FAILED` and change nothing, and
//! a retry after the storage recovers is applied once (the lobby's challenge calls say what
//! became of the challenge); a stored game whose log is damaged (a
//! row that does not decode, or fails its checksum, or a game id that no longer reads) is not
//! served as if it were fine (DATA_LOSS `BAD_LOG`) while the other games play on; a database
//! deleted while the server runs makes it acknowledge nothing more.

use canasta_engine::Viewer;
use canasta_proto::convert::action_to_wire;
use canasta_proto::v1;
use canasta_tests::replica::*;
use canasta_tests::*;
use tonic::{Code, Status};

/// Every game's summary, and every view of `id` (each seat's with its choices, and a
/// spectator's): what a refused request must leave as it was.
async fn snapshot(
    client: &mut Client,
    id: &str,
    tokens: &[String],
) -> (v1::ListGamesResponse, Vec<v1::GetViewResponse>) {
    let games = client
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("the games")
        .into_inner();
    let mut views = Vec::new();
    for token in tokens.iter().map(|t| Some(t.as_str())).chain([None]) {
        views.push(view_of(client, id, token, true).await);
    }
    (games, views)
}

/// A server on the database `db` whose writes the test can make fail, with the switch that
/// does it.
async fn server_with_faults(
    db: &std::path::Path,
) -> (TestServer, canasta_server::store::WriteFaults) {
    let config = db_config(db);
    let (store, loaded) = canasta_server::open_store(&config).expect("the database opens");
    let faults = store.write_faults();
    (TestServer::with_store(config, store, loaded).await, faults)
}

// While the database refuses writes, CreateGame, JoinGame and SubmitAction are answered
// UNAVAILABLE STORAGE_FAILED, and no game, seat, view or seq changes. Once it works again, the
// SubmitAction retried with the same request id is applied, once (a second retry is answered
// the same and applies nothing), and after a restart the log holds it once.
#[tokio::test]
async fn failed_writes_change_nothing_and_a_retry_after_recovery_applies_once() {
    let dir = temp_dir("storage-faults");
    let db = dir.path().join("canasta.db");
    let (server, faults) = server_with_faults(&db).await;
    let mut client = server.client().await;
    let (id, tokens, mut replica) = started(&mut client, seeded(91)).await;
    let waiting = create_with(&mut client, seeded(92)).await;
    let (mover, action) = replica.plain_move();
    let submit = v1::SubmitActionRequest {
        game_id: id.clone(),
        expected_seq: replica.seq(),
        request_id: "once".into(),
        action: Some(action_to_wire(&action)),
    };
    let before = snapshot(&mut client, &id, &tokens).await;

    faults.set(true);
    let status = client
        .create_game(seeded(93))
        .await
        .expect_err("no game is stored");
    assert_refused(&status, Code::Unavailable, "STORAGE_FAILED");
    assert!(status.message().contains("retry"), "{}", status.message());
    let status = client
        .join_game(v1::JoinGameRequest {
            game_id: waiting.game_id.clone(),
            seat: None,
            display_name: "late".into(),
        })
        .await
        .expect_err("no seat is stored");
    assert_refused(&status, Code::Unavailable, "STORAGE_FAILED");
    for _ in 0..2 {
        let status = client
            .submit_action(authed(submit.clone(), &tokens[mover as usize]))
            .await
            .expect_err("no action is stored");
        assert_refused(&status, Code::Unavailable, "STORAGE_FAILED");
        assert!(
            status.message().contains("not applied"),
            "{}",
            status.message()
        );
    }
    assert_eq!(snapshot(&mut client, &id, &tokens).await, before);

    faults.set(false);
    let from = replica.seq();
    let applied = client
        .submit_action(authed(submit.clone(), &tokens[mover as usize]))
        .await
        .expect("the retry is applied")
        .into_inner();
    replica.apply(mover, &action);
    assert_eq!(applied.seq, replica.seq());
    assert_eq!(applied.events, replica.events_after(seat(mover), from));
    let again = client
        .submit_action(authed(submit, &tokens[mover as usize]))
        .await
        .expect("a retry is answered")
        .into_inner();
    assert_eq!(again, applied);
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    // Creating and joining work again too.
    create_with(&mut client, seeded(93)).await;
    client
        .join_game(v1::JoinGameRequest {
            game_id: waiting.game_id.clone(),
            seat: None,
            display_name: "late".into(),
        })
        .await
        .expect("a seat");
    server.stop().await;

    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    assert_eq!(
        log_of(&mut client, &id, None).await,
        replica.events(Viewer::Spectator)
    );
    server.stop().await;
}

// A stored log entry that no longer decodes: after a restart that game answers DATA_LOSS
// BAD_LOG to every call that names it (it is not replayed without the entry, which would
// rebuild another game), it is not listed, and the other game is back where it was and plays
// on.
#[tokio::test]
async fn a_game_with_a_damaged_log_answers_bad_log_and_the_others_play_on() {
    let dir = temp_dir("storage-damaged");
    let db = dir.path().join("canasta.db");
    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let (damaged, damaged_tokens, mut damaged_replica) = started(&mut client, seeded(94)).await;
    plain_moves(
        &mut client,
        &damaged,
        &damaged_tokens,
        &mut damaged_replica,
        4,
    )
    .await;
    let (id, tokens, mut replica) = started(&mut client, seeded(95)).await;
    plain_moves(&mut client, &id, &tokens, &mut replica, 4).await;
    server.stop().await;

    // Entry 3 (entries count from 0: the first action, after the creation and the two joins)
    // becomes bytes that are no protobuf message (a field of wire type 7).
    let conn = rusqlite::Connection::open(&db).expect("the database opens");
    let changed = conn
        .execute(
            "UPDATE entries SET entry = X'0F0F0F' WHERE game_id = ?1 AND n = 3",
            [&damaged],
        )
        .expect("the row is changed");
    assert_eq!(changed, 1);
    drop(conn);

    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let bad_log = |status: Status| {
        assert_refused(&status, Code::DataLoss, "BAD_LOG");
        assert!(status.message().contains(&damaged), "{}", status.message());
        assert!(
            status.message().contains("operator"),
            "{}",
            status.message()
        );
    };
    let game_id = damaged.clone();
    bad_log(
        client
            .get_game(v1::GetGameRequest {
                game_id: game_id.clone(),
            })
            .await
            .expect_err("not served"),
    );
    bad_log(
        client
            .get_view(authed(
                v1::GetViewRequest {
                    game_id: game_id.clone(),
                    include_actions: true,
                },
                &damaged_tokens[0],
            ))
            .await
            .expect_err("not served"),
    );
    let (seat, action) = damaged_replica.plain_move();
    bad_log(
        client
            .submit_action(authed(
                v1::SubmitActionRequest {
                    game_id: game_id.clone(),
                    expected_seq: damaged_replica.seq(),
                    request_id: "after".into(),
                    action: Some(action_to_wire(&action)),
                },
                &damaged_tokens[seat as usize],
            ))
            .await
            .expect_err("not served"),
    );
    match client
        .watch_game(v1::WatchGameRequest {
            game_id: game_id.clone(),
            ..Default::default()
        })
        .await
    {
        Err(status) => bad_log(status),
        Ok(_) => panic!("a stream of a damaged game"),
    }
    bad_log(
        client
            .get_scores(v1::GetScoresRequest {
                game_id: game_id.clone(),
            })
            .await
            .expect_err("not served"),
    );
    bad_log(
        client
            .export_game(v1::ExportGameRequest {
                game_id: game_id.clone(),
            })
            .await
            .expect_err("not served"),
    );
    // Only the sound game is listed, where it was, and it plays on.
    let listed = client
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("the games")
        .into_inner()
        .games;
    let ids: Vec<&str> = listed.iter().map(|g| g.game_id.as_str()).collect();
    assert_eq!(ids, [id.as_str()]);
    assert_eq!(
        log_of(&mut client, &id, None).await,
        replica.events(Viewer::Spectator)
    );
    plain_moves(&mut client, &id, &tokens, &mut replica, 2).await;
    // The damaged game's rows are left as they were, for the operator.
    server.stop().await;
    let conn = rusqlite::Connection::open(&db).expect("the database opens");
    let rows: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM entries WHERE game_id = ?1",
            [&damaged],
            |r| r.get(0),
        )
        .expect("a count");
    // Its creation, two joins and four actions.
    assert_eq!(rows, 1 + 2 + 4);
    drop(conn);
}

/// Two started games with moves played on a database in `dir`, the server stopped: the
/// database, the ids, the first game's tokens and replica, and the second's.
async fn two_played_games(
    dir: &std::path::Path,
) -> (
    std::path::PathBuf,
    [String; 2],
    Vec<String>,
    Replica,
    Vec<String>,
    Replica,
) {
    let db = dir.join("canasta.db");
    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let (first, first_tokens, mut first_replica) = started(&mut client, seeded(96)).await;
    plain_moves(&mut client, &first, &first_tokens, &mut first_replica, 4).await;
    let (second, tokens, mut replica) = started(&mut client, seeded(97)).await;
    plain_moves(&mut client, &second, &tokens, &mut replica, 4).await;
    server.stop().await;
    (
        db,
        [first, second],
        first_tokens,
        first_replica,
        tokens,
        replica,
    )
}

/// The ids ListGames lists.
async fn listed(client: &mut Client) -> Vec<String> {
    client
        .list_games(v1::ListGamesRequest::default())
        .await
        .expect("the games")
        .into_inner()
        .games
        .into_iter()
        .map(|g| g.game_id)
        .collect()
}

// Every single bit flipped in a stored action (the first game's entry 3: its second action)
// makes that game answer DATA_LOSS BAD_LOG after a restart, and the other game is back where
// it was. Before the checksums, a flip that still decoded to a legal action (another card, say)
// was replayed and served at the same seqs, with no error.
#[tokio::test]
async fn any_bit_flipped_in_a_stored_action_is_refused_bad_log() {
    let dir = temp_dir("storage-flips");
    let (db, [damaged, id], _, _, _, replica) = two_played_games(dir.path()).await;
    let pristine = std::fs::read(&db).expect("the database");
    let entry: Vec<u8> = rusqlite::Connection::open(&db)
        .expect("the database opens")
        .query_row(
            "SELECT entry FROM entries WHERE game_id = ?1 AND n = 3",
            [&damaged],
            |r| r.get(0),
        )
        .expect("the entry");
    let mut served = Vec::new();
    for bit in 0..entry.len() * 8 {
        std::fs::write(&db, &pristine).expect("the database is put back");
        let mut flipped = entry.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        rusqlite::Connection::open(&db)
            .expect("the database opens")
            .execute(
                "UPDATE entries SET entry = ?1 WHERE game_id = ?2 AND n = 3",
                rusqlite::params![flipped, damaged],
            )
            .expect("the row is changed");
        let server = TestServer::with_db(&db).await;
        let mut client = server.client().await;
        match client
            .get_game(v1::GetGameRequest {
                game_id: damaged.clone(),
            })
            .await
        {
            Ok(_) => served.push(bit),
            Err(status) => assert_refused(&status, Code::DataLoss, "BAD_LOG"),
        }
        assert_eq!(listed(&mut client).await, [id.as_str()], "bit {bit}");
        assert_eq!(game_seq(&mut client, &id).await, replica.seq(), "bit {bit}");
        server.stop().await;
    }
    assert!(
        served.is_empty(),
        "{} of {} flipped bits were served: {served:?}",
        served.len(),
        entry.len() * 8
    );
}

// A bit flipped in one game's id in the games table, so that it is no longer UTF-8: the server
// starts, that game (found by the checksum of its row against its log) answers BAD_LOG, and the
// other plays on. Before, the server did not start, naming neither the game nor the row.
#[tokio::test]
async fn a_game_id_damaged_in_its_row_answers_bad_log_and_the_server_starts() {
    let dir = temp_dir("storage-bad-id");
    let (db, [damaged, id], _, _, tokens, mut replica) = two_played_games(dir.path()).await;
    let conn = rusqlite::Connection::open(&db).expect("the database opens");
    let mut bytes = damaged.clone().into_bytes();
    bytes[3] ^= 0x80;
    let changed = conn
        .execute(
            "UPDATE games SET id = CAST(?1 AS TEXT) WHERE id = ?2",
            rusqlite::params![bytes, damaged],
        )
        .expect("the row is changed");
    assert_eq!(changed, 1);
    drop(conn);

    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let status = client
        .get_game(v1::GetGameRequest {
            game_id: damaged.clone(),
        })
        .await
        .expect_err("not served");
    assert_refused(&status, Code::DataLoss, "BAD_LOG");
    assert_eq!(listed(&mut client).await, [id.as_str()]);
    assert_eq!(
        log_of(&mut client, &id, None).await,
        replica.events(Viewer::Spectator)
    );
    plain_moves(&mut client, &id, &tokens, &mut replica, 2).await;
    server.stop().await;
}

// The database deleted while the server runs: the next action is refused UNAVAILABLE
// STORAGE_FAILED, saying what happened and what to do, and nothing changes; so are the next
// game and seat. Before, every action was acknowledged, and lost at the restart.
#[tokio::test]
async fn a_database_deleted_while_serving_acknowledges_nothing_more() {
    let dir = temp_dir("storage-deleted");
    let db = dir.path().join("canasta.db");
    let server = TestServer::with_db(&db).await;
    let mut client = server.client().await;
    let (id, tokens, mut replica) = started(&mut client, seeded(98)).await;
    plain_moves(&mut client, &id, &tokens, &mut replica, 2).await;
    let waiting = create_with(&mut client, seeded(99)).await;
    std::fs::remove_file(&db).expect("the database is deleted");

    let (mover, action) = replica.plain_move();
    for _ in 0..2 {
        let status = client
            .submit_action(authed(
                v1::SubmitActionRequest {
                    game_id: id.clone(),
                    expected_seq: replica.seq(),
                    request_id: "after-delete".into(),
                    action: Some(action_to_wire(&action)),
                },
                &tokens[mover as usize],
            ))
            .await
            .expect_err("not acknowledged");
        assert_refused(&status, Code::Unavailable, "STORAGE_FAILED");
        let message = status.message();
        assert!(
            message.contains("was deleted or moved") && message.contains("restart the server"),
            "{message}"
        );
    }
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());
    let status = client
        .create_game(seeded(100))
        .await
        .expect_err("no game is stored");
    assert_refused(&status, Code::Unavailable, "STORAGE_FAILED");
    let status = client
        .join_game(v1::JoinGameRequest {
            game_id: waiting.game_id.clone(),
            seat: None,
            display_name: "late".into(),
        })
        .await
        .expect_err("no seat is stored");
    assert_refused(&status, Code::Unavailable, "STORAGE_FAILED");
    server.stop().await;
}

// The lobby's challenges answer once what they say is stored. While the database refuses
// writes, making, accepting, declining and withdrawing a challenge are answered UNAVAILABLE
// STORAGE_FAILED, saying what became of it: one made or accepted then is cancelled (its
// players are told, and answers to it are refused as closed), so that no player goes on
// waiting for a game the database never heard of. Once the database works again, challenges
// work again.
#[tokio::test]
async fn challenge_calls_answer_storage_failed_while_the_database_refuses_writes() {
    use canasta_tests::lobby::*;
    let dir = temp_dir("storage-faults-lobby");
    let db = dir.path().join("canasta.db");
    let (server, faults) = server_with_faults(&db).await;
    let mut lobby = lobby(server.addr).await;
    let (ann, bob, cy) = (
        register(&mut lobby, "ann").await,
        register(&mut lobby, "bob").await,
        register(&mut lobby, "cy").await,
    );
    let challenge = |seats: &[&str]| v1::CreateChallengeRequest {
        rules: Some(rules(v1::Preset::Official, seats.len() as u32, &[])),
        seats: seats.iter().map(|s| s.to_string()).collect(),
        rated: Some(false),
        ..Default::default()
    };
    let refused_storage = |status: Status, what: &str| {
        assert_refused(&status, Code::Unavailable, "STORAGE_FAILED");
        assert!(status.message().contains(what), "{}", status.message());
    };
    let answer_request = |id: &str, accept| v1::AnswerChallengeRequest {
        challenge_id: id.into(),
        accept,
    };
    let earlier = make_challenge(&mut lobby, &ann, challenge(&["ann", "bob", "cy"])).await;
    let declined = make_challenge(&mut lobby, &ann, challenge(&["ann", "bob"])).await;
    let withdrawn = make_challenge(&mut lobby, &ann, challenge(&["ann", "cy"])).await;
    let mut bob_events = watch_player(&mut lobby, &bob, 0).await;
    let seen = events_until(&mut bob_events, 0, |e| e.seq == 2).await;

    faults.set(true);
    let status = lobby
        .create_challenge(authed(challenge(&["ann", "bob"]), &ann))
        .await
        .expect_err("no challenge is stored");
    refused_storage(status, "the challenge was not made");
    // bob hears of it, and of its end: it was cancelled, since the database refused it.
    let told = events_until(&mut bob_events, seen.len() as u64, |e| {
        matches!(&e.kind, Some(v1::player_event::Kind::Challenge(c))
            if c.status == v1::ChallengeStatus::Cancelled as i32)
    })
    .await;
    let Some(v1::player_event::Kind::Challenge(cancelled)) = &told.last().unwrap().kind else {
        unreachable!()
    };
    assert!(
        cancelled.note.contains("refused to store it"),
        "{cancelled:?}"
    );
    let late = lobby
        .answer_challenge(authed(answer_request(&cancelled.challenge_id, true), &bob))
        .await;
    refused(late, Code::FailedPrecondition, "CHALLENGE_CLOSED");

    let status = lobby
        .answer_challenge(authed(answer_request(&earlier.challenge_id, true), &bob))
        .await
        .expect_err("no accept is stored");
    refused_storage(
        status,
        "your accept was not stored, and the challenge is cancelled",
    );
    let late = lobby
        .answer_challenge(authed(answer_request(&earlier.challenge_id, true), &cy))
        .await;
    refused(late, Code::FailedPrecondition, "CHALLENGE_CLOSED");

    let status = lobby
        .answer_challenge(authed(answer_request(&declined.challenge_id, false), &bob))
        .await
        .expect_err("no decline is stored");
    refused_storage(status, "decline it again");
    let status = lobby
        .cancel_challenge(authed(
            v1::CancelChallengeRequest {
                challenge_id: withdrawn.challenge_id.clone(),
            },
            &ann,
        ))
        .await
        .expect_err("no withdrawal is stored");
    refused_storage(status, "withdraw it again");

    // The database works again: so do challenges, to the game.
    faults.set(false);
    let made = make_challenge(&mut lobby, &ann, challenge(&["ann", "bob"])).await;
    let started = answer(&mut lobby, &bob, &made.challenge_id, true).await;
    assert_eq!(started.status, v1::ChallengeStatus::Started as i32);
    server.stop().await;
}
