//! The lobby's commands driven as processes against a real server on 127.0.0.1:0: `register`
//! and its key file, `bot --seek` (eight bots in two four-player games; three games at once),
//! `bot --seek --partner` (two partners on one side), `tournament` among four players whose bots
//! accept challenges (and `--duplicate`), `leaderboard` and `player`
//! after rated games, `loadtest --seekers`, and the errors of a bad key file, a wrong key and
//! an unknown player.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::Duration;

use canasta_proto::v1;
use canasta_tests::test_config;

mod common;
use common::*;

/// A guard against a hang, not a measured bound.
const LIMIT: Duration = Duration::from_secs(300);

/// Registers `name` with its key written to `dir/NAME.key`; returns the file.
fn register(addr: &str, dir: &Path, name: &str) -> PathBuf {
    let file = dir.join(format!("{name}.key"));
    let o = canasta(&[
        "register",
        name,
        "--server",
        addr,
        "--key-file",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains(&format!("registered the player {name}")));
    file
}

/// The JSON lines of a text.
fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A game's summary, from the server.
fn game(rt: &tokio::runtime::Runtime, addr: &str, id: &str) -> v1::GameSummary {
    rt.block_on(async {
        let mut client = canasta_tests::connect(addr.parse().unwrap()).await;
        canasta_tests::summary_of(&mut client, id).await
    })
}

/// A short unrated match of `players`: the seek flags of a bot.
fn short(players: &str) -> Vec<&str> {
    vec![
        "--players",
        players,
        "--option",
        "target_score=300",
        "--unrated",
    ]
}

// The register-then-play path of docs/bots.md: eight players register (their keys in files
// only they may read), eight `canasta bot --seek` processes ask for four-player games, and
// are seated in two games played to the end; each process reports its game, and the server
// says both ended.
#[test]
fn eight_registered_bots_seeking_four_player_games_play_two_games_to_the_end() {
    let rt = runtime();
    let addr = server(&rt);
    let dir = temp("eight");
    let names: Vec<String> = (0..8).map(|i| format!("seeker{i}")).collect();
    let files: Vec<PathBuf> = names
        .iter()
        .map(|n| register(&addr, dir.path(), n))
        .collect();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "only its owner may read a key file");
    }
    let bots: Vec<Child> = files
        .iter()
        .map(|f| {
            spawn(
                &[
                    &["bot", "--seek", "--server", &addr, "--games", "1", "--json"][..],
                    &["--key-file", f.to_str().unwrap()],
                    &short("4"),
                ]
                .concat(),
            )
        })
        .collect();
    let mut lines = Vec::new();
    for (i, b) in bots.into_iter().enumerate() {
        let o = finish_within(b, LIMIT, &names[i]);
        assert!(o.status.success(), "{}: {}", names[i], stderr(&o));
        let mine = json_lines(&stdout(&o));
        assert_eq!(mine.len(), 1, "one game reported: {}", stdout(&o));
        let seat = mine[0]["seat"].as_u64().unwrap() as usize;
        assert_eq!(mine[0]["players"][seat], names[i].as_str(), "{}", mine[0]);
        lines.push(mine[0].clone());
    }
    let mut games: Vec<&str> = lines
        .iter()
        .map(|l| l["game_id"].as_str().unwrap())
        .collect();
    games.sort_unstable();
    games.dedup();
    assert_eq!(games.len(), 2, "two games: {lines:?}");
    for id in &games {
        let summary = game(&rt, &addr, id);
        let result = summary.result.unwrap_or_default();
        assert!(result.finished, "game {id} ended");
        let mine: Vec<&serde_json::Value> = lines.iter().filter(|l| l["game_id"] == *id).collect();
        assert_eq!(mine.len(), 4, "four players in {id}");
        for l in &mine {
            assert_eq!(l["players"].as_array().unwrap().len(), 4);
            assert_eq!(
                l["totals"].as_array().unwrap().len(),
                result.totals.len(),
                "{l}"
            );
            let seat = l["seat"].as_u64().unwrap() as u32;
            let side = seat % result.totals.len() as u32;
            assert_eq!(l["won"], result.winner_side == Some(side), "{l}");
            assert_eq!(l["rated"], false);
        }
    }
    assert_eq!(
        shape(&documented("bot seek")),
        shape(&lines[0]),
        "{}",
        lines[0]
    );
}

// `bot --seek --partner NAME`: two seeking processes that name each other sit on one side of a
// four-player game, against two seekers who name nobody, in each of three games (three, so
// that partners placed together by chance would not pass: lone seekers are seated as they
// come, seat 0, 1, 2, 3, and the partners start first and second).
#[test]
fn two_seekers_naming_each_other_as_partners_sit_on_one_side() {
    let rt = runtime();
    let addr = server(&rt);
    let dir = temp("partners");
    // In this order, seats taken as the seekers come would put ann and bob on two sides.
    let names = ["ann", "bob", "cy", "dan"];
    let partner_of = |name: &str| match name {
        "ann" => Some("bob"),
        "bob" => Some("ann"),
        _ => None,
    };
    // Every player exists before any names another as partner.
    let files: Vec<PathBuf> = names
        .iter()
        .map(|n| register(&addr, dir.path(), n))
        .collect();
    let bots: Vec<Child> = names
        .iter()
        .zip(&files)
        .map(|(n, file)| {
            let mut args = vec![
                "bot".to_string(),
                "--seek".into(),
                "--server".into(),
                addr.clone(),
                "--games".into(),
                "3".into(),
                "--json".into(),
                "--key-file".into(),
                file.to_str().unwrap().into(),
            ];
            args.extend(short("4").into_iter().map(String::from));
            if let Some(p) = partner_of(n) {
                args.extend(["--partner".into(), p.into()]);
            }
            spawn(&args.iter().map(String::as_str).collect::<Vec<_>>())
        })
        .collect();
    let mut lines = Vec::new();
    for (i, b) in bots.into_iter().enumerate() {
        let o = finish_within(b, LIMIT, names[i]);
        assert!(o.status.success(), "{}: {}", names[i], stderr(&o));
        let mine = json_lines(&stdout(&o));
        assert_eq!(mine.len(), 3, "{}: {}", names[i], stdout(&o));
        lines.extend(mine);
    }
    let mut games: Vec<String> = lines
        .iter()
        .map(|l| l["game_id"].as_str().unwrap().to_string())
        .collect();
    games.sort_unstable();
    games.dedup();
    assert_eq!(
        games.len(),
        3,
        "the four played three games together: {lines:?}"
    );
    for id in &games {
        let summary = game(&rt, &addr, id);
        let side_of = |name: &str| {
            summary
                .seats
                .iter()
                .find(|s| s.display_name == name)
                .unwrap_or_else(|| panic!("{name} sits in {id}: {summary:?}"))
                .side
        };
        assert_eq!(
            side_of("ann"),
            side_of("bob"),
            "partners on one side in {id}"
        );
        assert_eq!(
            side_of("cy"),
            side_of("dan"),
            "the others on the other in {id}"
        );
        assert_ne!(side_of("ann"), side_of("cy"), "{id}");
    }
}

// `--concurrent 3`: one process holds three seeks and plays the three games they find at
// the same time, over one connection; the player's own event stream shows the three games
// started before the first ended. The opponent takes its key from CANASTA_KEY.
#[test]
fn a_bot_plays_three_games_at_once() {
    let rt = runtime();
    let addr = server(&rt);
    let dir = temp("three");
    let a = register(&addr, dir.path(), "triple");
    let b = register(&addr, dir.path(), "opponent");
    let seek = |extra: &[&str]| {
        [
            &["bot", "--seek", "--server", &addr, "--concurrent", "3"][..],
            &["--games", "3"],
            &short("2"),
            extra,
        ]
        .concat()
        .iter()
        .map(|s| s.to_string())
        .collect::<Vec<String>>()
    };
    fn args(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    let first = spawn(&args(&seek(&["--key-file", a.to_str().unwrap()])));
    let second = spawn_env(
        &args(&seek(&["--quiet"])),
        &[("CANASTA_KEY", &canasta_players_key(&b))],
    );
    let o = finish_within(first, LIMIT, "triple");
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(
        text.lines().filter(|l| l.starts_with("game ")).count(),
        3,
        "three games reported: {text}"
    );
    assert!(text.contains("unrated"), "{text}");
    assert!(
        stderr(&o).contains("played 3 games"),
        "a summary: {}",
        stderr(&o)
    );
    let o = finish_within(second, LIMIT, "opponent");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).is_empty() && stderr(&o).is_empty(), "--quiet");
    // The order of the player's events: three starts, then the ends.
    let key = canasta_players_key(&a);
    let events = rt.block_on(async {
        let mut lobby = canasta_tests::lobby::lobby(addr.parse().unwrap()).await;
        let mut stream = canasta_tests::lobby::watch_player(&mut lobby, &key, 0).await;
        let mut finished = 0;
        canasta_tests::lobby::events_until(&mut stream, 0, |e| {
            finished += usize::from(canasta_tests::lobby::is_finished(e));
            finished == 3
        })
        .await
    });
    let kinds: Vec<bool> = events
        .iter()
        .filter(|e| canasta_tests::lobby::is_started(e) || canasta_tests::lobby::is_finished(e))
        .map(canasta_tests::lobby::is_started)
        .collect();
    assert_eq!(
        kinds,
        [true, true, true, false, false, false],
        "three games started before the first ended"
    );
}

/// The key in a key file as `canasta register` writes it.
fn canasta_players_key(file: &Path) -> String {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("key "))
        .expect("a key line")
        .to_string()
}

/// Registers north, east, south and west (their keys in `dir`) and starts for each a bot that
/// accepts challenges and plays `games` games, three at once: the players of a tournament.
/// Returns the names, the key files and the bots, to be waited for once the tournament ends.
fn challenge_bots(
    addr: &str,
    dir: &Path,
    games: u32,
) -> ([&'static str; 4], Vec<PathBuf>, Vec<Child>) {
    let names = ["north", "east", "south", "west"];
    let files: Vec<PathBuf> = names.iter().map(|n| register(addr, dir, n)).collect();
    let games = games.to_string();
    let bots = files
        .iter()
        .map(|f| {
            spawn(&[
                "bot",
                "--accept-challenges",
                "--server",
                addr,
                "--games",
                &games,
                "--concurrent",
                "3",
                "--key-file",
                f.to_str().unwrap(),
            ])
        })
        .collect();
    (names, files, bots)
}

// A tournament among four registered players whose bots accept challenges: a round robin of
// four-player games (each way of forming the partnerships once), every game finished, its
// JSON lines and standings parse, the ratings moved; then the leaderboard and the players'
// records show the games.
#[test]
fn a_tournament_among_four_players_then_their_leaderboard_and_records() {
    let rt = runtime();
    let addr = server(&rt);
    let dir = temp("tournament");
    let (names, files, bots) = challenge_bots(&addr, dir.path(), 3);
    let jsonl = dir.path().join("games.jsonl");
    let mut args = vec![
        "tournament",
        "--server",
        &addr,
        "--players",
        "4",
        "--parallel",
        "3",
        "--json",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ];
    for f in &files {
        args.extend(["--key-file", f.to_str().unwrap()]);
    }
    let o = finish_within(spawn(&args), LIMIT, "the tournament");
    assert!(o.status.success(), "{}", stderr(&o));
    for (i, b) in bots.into_iter().enumerate() {
        let o = finish_within(b, LIMIT, names[i]);
        assert!(o.status.success(), "{}: {}", names[i], stderr(&o));
        let text = stdout(&o);
        assert_eq!(text.lines().count(), 3, "{}: {text}", names[i]);
        assert!(text.contains("rating "), "rating changes reported: {text}");
    }
    let summary: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(summary["games"], 3, "{summary}");
    assert_eq!(summary["finished"], 3, "{summary}");
    assert_eq!(summary["failed"], 0, "{summary}");
    let standings = summary["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 4);
    for s in standings {
        assert_eq!(s["played"], 3, "{s}");
        let (low, high) = (
            s["win_rate_95"][0].as_f64().unwrap(),
            s["win_rate_95"][1].as_f64().unwrap(),
        );
        let rate = s["win_rate"].as_f64().unwrap();
        assert!(low <= rate && rate <= high, "{s}");
        assert!(s["rating_before"].is_null(), "new players: {s}");
        assert_eq!(s["rating_after"]["games"], 3, "{s}");
        assert_ne!(s["rating_after"]["mu"], 25.0, "the rating moved: {s}");
    }
    let lines = json_lines(&std::fs::read_to_string(&jsonl).unwrap());
    assert_eq!(lines.len(), 3);
    let mut partnerships: Vec<Vec<Vec<String>>> = Vec::new();
    for l in &lines {
        assert!(l["error"].is_null(), "{l}");
        let id = l["game_id"].as_str().unwrap();
        let result = game(&rt, &addr, id).result.unwrap_or_default();
        assert!(result.finished, "{id}");
        assert_eq!(
            l["winner_side"].as_u64().map(|w| w as u32),
            result.winner_side
        );
        let mut sides: Vec<Vec<String>> = serde_json::from_value(l["sides"].clone()).unwrap();
        for s in &mut sides {
            s.sort();
        }
        sides.sort();
        partnerships.push(sides);
    }
    partnerships.sort();
    partnerships.dedup();
    assert_eq!(
        partnerships.len(),
        3,
        "each partnership once: {partnerships:?}"
    );
    assert_eq!(shape(&documented("tournament line")), shape(&lines[0]));
    assert_eq!(shape(&documented("tournament summary")), shape(&summary));

    // The leaderboard of the family: the four players, ranked, each with three games.
    let o = canasta(&["leaderboard", "--server", &addr, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let board: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = board.as_array().unwrap();
    assert_eq!(rows.len(), 4, "{board}");
    for (i, r) in rows.iter().enumerate() {
        assert_eq!(r["rank"], i + 1);
        assert_eq!(r["rating"]["games"], 3);
    }
    let displays: Vec<f64> = rows
        .iter()
        .map(|r| r["rating"]["display"].as_f64().unwrap())
        .collect();
    assert!(displays.windows(2).all(|w| w[0] >= w[1]), "{displays:?}");
    assert_eq!(shape(&documented("leaderboard")), shape(&board));
    let o = canasta(&["leaderboard", "--server", &addr]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("official, 4 players"), "{text}");
    for n in names {
        assert!(text.contains(n), "{text}");
    }
    // Another family has nobody yet, and says so.
    let o = canasta(&["leaderboard", "--server", &addr, "--players", "2"]);
    assert!(
        stdout(&o).contains("no player has a rating"),
        "{}",
        stdout(&o)
    );

    // A player's record: the rating, and the three games with their rating changes.
    let o = canasta(&["player", "NORTH", "--server", &addr, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let record: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(record["name"], "north", "any case finds the player");
    assert_eq!(record["games"], 3);
    assert_eq!(record["recent_games"].as_array().unwrap().len(), 3);
    assert!(record["recent_games"][0]["rating"]["after"].is_object());
    assert_eq!(shape(&documented("player")), shape(&record));
    let o = canasta(&["player", "north", "--server", &addr]);
    let text = stdout(&o);
    assert!(text.contains("3 games finished"), "{text}");
    assert!(text.contains("recent games"), "{text}");
    assert!(text.contains(" -> "), "rating changes: {text}");
}

// `tournament --duplicate` among four players whose bots accept challenges: each of the round
// robin's three four-player games is a set of two games on one seed (from --seed on), the sides
// swapped; the finished games' records give each set's seed, and their first deals (replayed
// by the server) give every seat the same hand in both games of a set, the other side's
// players now holding it. The games are unrated, the standings say so, and the lines name the
// set, seed and rotation.
#[test]
fn a_duplicate_tournament_plays_each_game_on_one_seed_with_the_sides_swapped() {
    let rt = runtime();
    let addr = server(&rt);
    let dir = temp("duplicate");
    let (names, files, bots) = challenge_bots(&addr, dir.path(), 6);
    let jsonl = dir.path().join("games.jsonl");
    let mut args = vec![
        "tournament",
        "--server",
        &addr,
        "--players",
        "4",
        "--option",
        "target_score=300",
        "--duplicate",
        "--seed",
        "41",
        "--parallel",
        "3",
        "--json",
        "--jsonl",
        jsonl.to_str().unwrap(),
    ];
    for f in &files {
        args.extend(["--key-file", f.to_str().unwrap()]);
    }
    let o = finish_within(spawn(&args), LIMIT, "the duplicate tournament");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("seeds 41 to 43"),
        "the seeds are announced: {}",
        stderr(&o)
    );
    for (i, b) in bots.into_iter().enumerate() {
        let o = finish_within(b, LIMIT, names[i]);
        assert!(o.status.success(), "{}: {}", names[i], stderr(&o));
    }
    let summary: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        (&summary["games"], &summary["finished"], &summary["rated"]),
        (&6.into(), &6.into(), &false.into()),
        "{summary}"
    );
    assert_eq!(
        summary["duplicate"],
        serde_json::json!({"first_seed": 41, "sets": 3, "games_per_set": 2, "complete_sets": 3})
    );
    for s in summary["standings"].as_array().unwrap() {
        assert_eq!((&s["played"], &s["sets"]), (&6.into(), &3.into()), "{s}");
        let (low, high) = (
            s["average_margin_95"][0].as_f64().unwrap(),
            s["average_margin_95"][1].as_f64().unwrap(),
        );
        let margin = s["average_margin"].as_f64().unwrap();
        assert!(low <= margin && margin <= high, "{s}");
        assert!(s["rating_after"].is_null(), "no game was rated: {s}");
    }
    let lines = json_lines(&std::fs::read_to_string(&jsonl).unwrap());
    assert_eq!(lines.len(), 6);
    assert_eq!(
        shape(&documented("tournament duplicate line")),
        shape(&lines[0])
    );
    // Per set: rotation -> (seats, the first deal's hands by seat).
    type Deal = (Vec<String>, Vec<Vec<v1::Card>>);
    let mut sets: std::collections::BTreeMap<u64, Vec<(u64, Deal)>> = Default::default();
    for l in &lines {
        assert!(l["error"].is_null(), "{l}");
        let (set, seed, rotation) = (
            l["set"].as_u64().unwrap(),
            l["seed"].as_u64().unwrap(),
            l["rotation"].as_u64().unwrap(),
        );
        assert_eq!(seed, 41 + set, "{l}");
        let id = l["game_id"].as_str().unwrap().to_string();
        let (record, first) = rt.block_on(async {
            let mut client = canasta_tests::connect(addr.parse().unwrap()).await;
            let record = client
                .export_game(v1::ExportGameRequest {
                    game_id: id.clone(),
                })
                .await
                .unwrap()
                .into_inner()
                .record
                .unwrap();
            let first = client
                .get_replay_step(v1::GetReplayStepRequest {
                    game_id: id.clone(),
                    step: 0,
                })
                .await
                .unwrap()
                .into_inner()
                .view
                .unwrap();
            (record, first)
        });
        assert_eq!(record.seed, seed, "{id} was dealt with its set's seed");
        let seats: Vec<String> = serde_json::from_value(l["seats"].clone()).unwrap();
        assert_eq!(record.display_names, seats, "{id}");
        let hands = first.seats.iter().map(|s| s.hand.clone()).collect();
        sets.entry(set)
            .or_default()
            .push((rotation, (seats, hands)));
    }
    assert_eq!(sets.len(), 3);
    let mut first_hands = Vec::new();
    for (set, mut games) in sets {
        games.sort_by_key(|(rotation, _)| *rotation);
        let [(0, (seats, hands)), (1, (swapped, swapped_hands))] = &games[..] else {
            panic!("set {set}: one game per rotation, two rotations: {games:?}")
        };
        assert_eq!(
            hands, swapped_hands,
            "set {set}: the same cards at each seat"
        );
        assert!(hands.iter().all(|h| !h.is_empty()));
        // The sides swapped, member by member: the partnerships kept.
        assert_eq!(
            swapped,
            &vec![
                seats[1].clone(),
                seats[0].clone(),
                seats[3].clone(),
                seats[2].clone()
            ],
            "set {set}"
        );
        first_hands.push(hands.clone());
    }
    first_hands.dedup();
    assert_eq!(first_hands.len(), 3, "each set its own deal");
}

/// Runs `canasta tournament ARGS` until its first hint of a challenge or game left standing
/// (read from standard error line by line on a thread), then stops it; returns the hint.
fn first_hint(args: &[&str]) -> String {
    let mut tournament = spawn(args);
    let (line_read, lines) = std::sync::mpsc::channel();
    let err = std::io::BufReader::new(tournament.stderr.take().unwrap());
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in err.lines().map_while(Result::ok) {
            if line_read.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let hint = loop {
        let Ok(line) = lines.recv_timeout(LIMIT) else {
            let _ = tournament.kill();
            panic!("no hint; standard error so far:\n{}", seen.join("\n"));
        };
        if line.contains("has not moved") || line.contains("has waited") {
            break line;
        }
        seen.push(line);
    };
    let _ = tournament.kill();
    let _ = tournament.wait();
    hint
}

// A tournament whose players' bots are not running says so on standard error instead of
// waiting in silence. Bob's bot is not running and this command does not hold his key: the
// challenge waits for his answer, and the hint names him. Then both keys are held: the
// tournament accepts for both, the game starts, nobody moves, and the hint names the game and
// the player whose move it waits for (the first to play, as the server's spectator view says),
// with the key file to start that player's bot with.
#[test]
fn a_tournament_says_which_challenge_or_game_stands_still_and_whom_it_waits_for() {
    let rt = runtime();
    let addr = server(&rt);
    let dir = temp("stalled");
    let files: Vec<PathBuf> = ["ann", "bob"]
        .iter()
        .map(|n| register(&addr, dir.path(), n))
        .collect();
    let (ann, bob) = (files[0].to_str().unwrap(), files[1].to_str().unwrap());
    let short = [
        "tournament",
        "--server",
        &addr,
        "--players",
        "2",
        "--unrated",
        "--stalled-after",
        "100ms",
    ];

    let hint = first_hint(&[&short[..], &["--key-file", ann, "--player", "bob"]].concat());
    assert_eq!(
        hint,
        "the challenge for the game of ann, bob has waited 100ms for bob to accept. \
         Is bob's bot running (`canasta bot --accept-challenges` with its key)?"
    );

    let hint = first_hint(&[&short[..], &["--key-file", ann, "--key-file", bob]].concat());
    let game_id = hint
        .strip_prefix("game ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("the hint names the game: {hint}"));
    let summary = game(&rt, &addr, game_id);
    assert_eq!(summary.status, v1::GameStatus::Playing as i32, "{hint}");
    let to_act = rt.block_on(async {
        let mut client = canasta_tests::connect(addr.parse().unwrap()).await;
        canasta_tests::view_of(&mut client, game_id, None, false)
            .await
            .view
            .unwrap()
            .to_act
            .expect("a seat to act")
    });
    let name = &summary.seats[to_act as usize].display_name;
    assert_eq!(
        hint,
        format!(
            "game {game_id} has not moved for 100ms: it waits for {name} to move. \
             Is {name}'s bot running (`canasta bot --accept-challenges --key-file {}`)? \
             `canasta watch {game_id}` shows the game.",
            dir.path().join(format!("{name}.key")).display()
        )
    );
}

// A lone player always has opponents: its seek is filled with the server's house players
// after the wait it asked for, and a tournament against a house player (which accepts at once)
// starts its game in the challenge's answer.
#[test]
fn a_lone_player_plays_the_house_players() {
    let rt = runtime();
    let addr = server(&rt);
    let dir = temp("house");
    let me = register(&addr, dir.path(), "loner");
    let o = finish_within(
        spawn(
            &[
                &["bot", "--seek", "--server", &addr, "--games", "1", "--json"][..],
                &["--key-file", me.to_str().unwrap()],
                &["--fill-with-bots-after", "100ms"],
                &short("2"),
            ]
            .concat(),
        ),
        LIMIT,
        "a seek filled with a house player",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let line = &json_lines(&stdout(&o))[0];
    let players = line["players"].as_array().unwrap();
    assert!(players.contains(&"loner".into()), "{line}");
    assert!(players.contains(&"greedy".into()), "a house player: {line}");
    assert!(
        game(&rt, &addr, line["game_id"].as_str().unwrap())
            .result
            .unwrap_or_default()
            .finished
    );
    // The tournament's only other player is the house's random bot: the loner's own bot
    // plays the game the challenge started.
    let bot = spawn(&[
        "bot",
        "--accept-challenges",
        "--server",
        &addr,
        "--games",
        "1",
        "--key-file",
        me.to_str().unwrap(),
    ]);
    let o = finish_within(
        spawn(&[
            "tournament",
            "--server",
            &addr,
            "--players",
            "2",
            "--unrated",
            "--option",
            "target_score=300",
            "--key-file",
            me.to_str().unwrap(),
            "--player",
            "random",
            "--json",
        ]),
        LIMIT,
        "a tournament against a house player",
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(summary["finished"], 1, "{summary}");
    let o = finish_within(bot, LIMIT, "the loner's bot");
    assert!(o.status.success(), "{}", stderr(&o));
    let o = canasta(&["player", "random", "--server", &addr]);
    assert!(stdout(&o).contains("random (house bot)"), "{}", stdout(&o));
}

// The errors of the lobby's commands say what went wrong and what to do, and never echo a key.
#[test]
fn bad_keys_and_unknown_players_say_what_to_do() {
    let rt = runtime();
    let addr = server(&rt);
    let dir = temp("errors");
    let seek = ["bot", "--seek", "--server", &addr, "--games", "1"];
    // No key at all.
    let o = canasta(&seek);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("--key-file") && stderr(&o).contains("CANASTA_KEY"),
        "{}",
        stderr(&o)
    );
    // A key file that is not there, or holds no key.
    let missing = dir.path().join("missing.key");
    let o = canasta(&[&seek[..], &["--key-file", missing.to_str().unwrap()]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cannot read the key file"),
        "{}",
        stderr(&o)
    );
    let bad = dir.path().join("bad.key");
    std::fs::write(&bad, "not a key at all\n").unwrap();
    let o = canasta(&[&seek[..], &["--key-file", bad.to_str().unwrap()]].concat());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("does not hold a player's key"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("not a key at all"), "never echoed");
    // A key no player holds, from the environment.
    let wrong = "0123456789abcdef0123456789abcdef";
    let o = canasta_env(&seek, &[("CANASTA_KEY", wrong)]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(e.contains("CANASTA_KEY") && e.contains("register"), "{e}");
    assert!(!e.contains(wrong), "the key is not echoed: {e}");
    // House bots asked of a server that hosts none: the server's reason, and what to do here.
    let lonely = server_with(
        &rt,
        test_config()
            .house_players(Vec::<String>::new())
            .build()
            .unwrap(),
    );
    let o = canasta(&[
        "bot",
        "--seek",
        "--server",
        &lonely,
        "--key-file",
        register(&lonely, dir.path(), "hopeful").to_str().unwrap(),
        "--fill-with-bots-after",
        "1s",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("HOUSE_BOTS_UNAVAILABLE") && e.contains("drop --fill-with-bots-after"),
        "{e}"
    );
    // An unknown player.
    let o = canasta(&["player", "nobody", "--server", &addr]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no player is named \"nobody\"")
            && stderr(&o).contains("canasta leaderboard"),
        "{}",
        stderr(&o)
    );
    // A name taken, and a key file that exists (never overwritten, checked before the name
    // is taken).
    let file = register(&addr, dir.path(), "alice");
    let o = canasta(&["register", "ALICE", "--server", &addr]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("NAME_TAKEN"), "{}", stderr(&o));
    let before = std::fs::read_to_string(&file).unwrap();
    let o = canasta(&[
        "register",
        "bob",
        "--server",
        &addr,
        "--key-file",
        file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("exists"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    let o = canasta(&["player", "bob", "--server", &addr]);
    assert_eq!(o.status.code(), Some(1), "bob was not registered");
    // A tournament with a player nobody registered stops before any challenge.
    let o = canasta(&[
        "tournament",
        "--server",
        &addr,
        "--players",
        "2",
        "--key-file",
        file.to_str().unwrap(),
        "--player",
        "bob",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no player is named \"bob\"")
            && stderr(&o).contains("canasta register bob"),
        "{}",
        stderr(&o)
    );
    // A key file without the player's name cannot name a tournament's player.
    let bare = dir.path().join("bare.key");
    std::fs::write(&bare, format!("{}\n", canasta_players_key(&file))).unwrap();
    let o = canasta(&[
        "tournament",
        "--server",
        &addr,
        "--players",
        "2",
        "--key-file",
        bare.to_str().unwrap(),
        "--player",
        "carol",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("player NAME"), "{}", stderr(&o));
    // Without --key-file the key is printed once, with the advice to keep it.
    let o = canasta(&["register", "carol", "--server", &addr]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("Keep this key secret"),
        "{}",
        stdout(&o)
    );
    let o = canasta(&["register", "dave", "--server", &addr, "--json"]);
    let registered: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(registered["key"].as_str().unwrap().len(), 32);
    assert_eq!(shape(&documented("register")), shape(&registered));
}

// Bad usage of the lobby's flags exits with code 2 before anything starts, saying what to do.
#[test]
fn lobby_usage_errors_exit_2_and_say_what_to_do() {
    let table: &[(&[&str], &str)] = &[
        (
            &["bot", "--seek", "--option", "target_score=300"],
            "--unrated",
        ),
        (&["bot", "--seek", "--game", "g"], "--game"),
        (&["bot", "--seek", "--concurrent", "0"], "1 to 256"),
        (
            &["bot", "--seek", "--fill-with-bots-after", "2h"],
            "not a duration",
        ),
        (
            &["bot", "--seek", "--fill-with-bots-after", "90m"],
            "at most an hour",
        ),
        (&["bot", "--accept-challenges", "--unrated"], "--seek"),
        (&["player", "alice", "--games", "0"], "1 to 100"),
        (&["register", " "], "name"),
        (&["tournament", "--player", "a"], "--key-file"),
        (
            &["tournament", "--key-file", "a.key", "--player", "b"],
            "cannot fill a game of 4",
        ),
        (
            &[
                "tournament",
                "--key-file",
                "a.key",
                "--option",
                "target_score=300",
                "--players",
                "2",
                "--player",
                "b",
            ],
            "--unrated",
        ),
        (
            &[
                "tournament",
                "--key-file",
                "a.key",
                "--player",
                "b",
                "--players",
                "2",
                "--seed",
                "3",
            ],
            "--duplicate",
        ),
        (&["loadtest", "--seekers", "1"], "2 to 100000"),
    ];
    for (args, needle) in table {
        let o = canasta(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    }
}

// A small matchmaking load: eight players register and seek four-player games at once; the
// report says all were seated in two games, with the times to seat.
#[test]
fn loadtest_seekers_reports_the_time_to_seat() {
    let o = canasta(&[
        "loadtest",
        "--seekers",
        "8",
        "--players",
        "4",
        "--memory",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(r["seekers"], 8, "{r}");
    assert_eq!(r["seated"], 8, "{r}");
    assert_eq!(r["games"], 2, "{r}");
    assert_eq!(r["time_to_seat_us"]["count"], 8, "{r}");
    assert!(
        r["memory_before"]["vm_rss_kib"].as_u64().unwrap() > 0,
        "{r}"
    );
    let o = canasta(&["loadtest", "--seekers", "6", "--players", "4", "--memory"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("multiple of 4"), "{}", stderr(&o));
}
