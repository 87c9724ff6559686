//! `canasta` driven as a process: matches in-process and against a real server on
//! 127.0.0.1:0, bots completing a game over Play calls and with unary calls (`--unary`), waiting
//! out the request rate, playing on after a refusal, surviving a killed server; export then
//! replay, `play` through standard input, and bad usage.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use canasta_server::{Config, Storage};
use canasta_tests::test_config;
use tokio_stream::StreamExt;

mod common;
use common::*;

/// The server's production configuration (its limits), in memory.
fn production() -> canasta_server::ConfigBuilder {
    Config::builder().storage(Storage::Memory)
}

#[test]
fn every_subcommand_has_help_and_bad_usage_exits_2() {
    for sub in [
        &[][..],
        &["play"],
        &["games"],
        &["create"],
        &["watch"],
        &["bot"],
        &["match"],
        &["export"],
        &["cancel"],
        &["replay"],
        &["demo"],
        &["loadtest"],
        &["register"],
        &["leaderboard"],
        &["player"],
        &["tournament"],
    ] {
        let mut args: Vec<&str> = sub.to_vec();
        args.push("--help");
        let o = canasta(&args);
        assert!(o.status.success(), "{args:?}");
        assert!(stdout(&o).contains("Usage"), "{args:?}");
    }
    assert_eq!(canasta(&["fly"]).status.code(), Some(2));
    assert_eq!(
        canasta(&["match", "--matches", "many"]).status.code(),
        Some(2)
    );
    assert_eq!(
        canasta(&["bot"]).status.code(),
        Some(2),
        "--game is required (or --seek, or --accept-challenges)"
    );
}

#[test]
fn bad_usage_exits_2_and_says_what_is_allowed() {
    // (arguments, what the message must name)
    let table: &[(&[&str], &str)] = &[
        (&["match", "--bots", "nobody"], "greedy, random, safe"),
        (
            &["match", "--seat-bots", "greedy,nobody,random,random"],
            "greedy, random, safe",
        ),
        (&["match", "--bots", "greedy,random,safe"], "one per side"),
        (&["match", "--seat-bots", "greedy,random"], "one per seat"),
        (
            &["match", "--preset", "canadian"],
            "official, wiener, samba, swiss",
        ),
        (&["match", "--players", "7"], "2 to 6 players"),
        (
            &["match", "--players", "6", "--preset", "samba"],
            "2 to 4 players",
        ),
        (&["match", "--option", "colour=red"], "the options are"),
        (&["match", "--option", "target_score=lots"], "target_score"),
        (&["match", "--option", "target_score"], "NAME=VALUE"),
        (&["match", "--matches", "0"], "1 or more"),
        (
            &["bot", "--game", "g", "--bot", "nobody"],
            "greedy, random, safe",
        ),
        (
            &["bot", "--game", "g", "--reconnect-secs", "never"],
            "1 or more",
        ),
        (&["play", "--bot", "nobody"], "greedy, random, safe"),
        (&["play", "--color", "purple"], "auto, always, never"),
        (&["play", "--players", "1"], "2 to 6 players"),
        (&["demo", "--bot", "nobody"], "greedy, random, safe"),
        (&["demo", "--color", "purple"], "auto, always, never"),
        (
            &["demo", "--preset", "swiss", "--players", "6"],
            "2 to 5 players",
        ),
        (&["loadtest", "--duration", "soon"], "10s, 500ms or 2m"),
        (&["loadtest", "--duration", "61m"], "at most 3600 seconds"),
        (&["loadtest", "--games", "0"], "1 to 1024 games"),
        (&["loadtest", "--games", "5000"], "1 to 1024 games"),
        (&["loadtest", "--bots", "nobody"], "greedy, random, safe"),
        (&["fly"], "Usage"),
        (&["bot"], "--game"),
        (&["bot", "--game", ""], "`canasta games` lists"),
        (&["watch"], "<GAME>"),
        (&["watch", ""], "`canasta games` lists"),
        (&["games", "--status", "over"], "waiting, playing, finished"),
        (&["games", "--limit", "0"], "1 or more"),
        (
            &["create", "--preset", "samba", "--players", "6"],
            "2 to 4 players",
        ),
        (&["create", "--option", "target_score=lots"], "target_score"),
        (
            &["create", "--players", "2", "--start-scores", "1,2,3"],
            "one per side",
        ),
        (&["create", "--start-scores", "lots"], "one per side"),
        (&["create", "--move-budget", "soon"], "10s, 500ms or 2m"),
        (&["create", "--timeout-policy", "forfeit"], "--move-budget"),
        (
            &["create", "--bots", "greedy,nobody"],
            "greedy, random, safe",
        ),
        (&["create", "--bots", "-,-"], "seats no bot"),
        (
            &["create", "--players", "2", "--bots", "-,greedy,greedy"],
            "one entry per seat",
        ),
        (&["create", "--house-bot", "greedy"], "SEAT=BOT"),
        (&["create", "--house-bot", "x=greedy"], "not a seat number"),
        (
            &["create", "--house-bot", "1=clever"],
            "greedy, random, safe",
        ),
        (
            &["create", "--players", "2", "--house-bot", "2=greedy"],
            "seats are 0 to 1",
        ),
        (
            &["create", "--house-bot", "1=greedy", "--house-bot", "1=safe"],
            "seat 1 twice",
        ),
        (
            &["create", "--bots", "-,greedy", "--house-bot", "1=safe"],
            "both --bots and --house-bot",
        ),
        (&["play", "--game", "g", "--house-bots"], "--game"),
        (&["play", "--token", "t"], "--game"),
        (
            &["play", "--game", "g", "--token", "t", "--seat", "1"],
            "--seat",
        ),
    ];
    for (args, allowed) in table {
        let o = canasta(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(allowed), "{args:?}: {}", stderr(&o));
        // Checked before anything starts: no server, no match.
        assert!(o.stdout.is_empty(), "{args:?}: {}", stdout(&o));
    }
}

#[test]
fn failures_exit_1_with_a_message() {
    let o = canasta(&["export", "abc", "--server", "127.0.0.1:1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cannot reach the server"));
    let o = canasta(&["replay", "/nonexistent/record.json"]);
    assert_eq!(o.status.code(), Some(1));
    // A request the server refuses.
    let rt = runtime();
    let addr = server(&rt);
    let o = canasta(&["export", "no-such-game", "--server", &addr]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("GAME_NOT_FOUND"), "{}", stderr(&o));
    let o = canasta(&[
        "bot",
        "--server",
        &addr,
        "--game",
        "no-such-game",
        "--seat",
        "0",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("GAME_NOT_FOUND"), "{}", stderr(&o));
    // The server's message names its gRPC method; the client names its own command too.
    assert!(stderr(&o).contains("`canasta games`"), "{}", stderr(&o));
    for args in [
        &["watch", "no-such-game"][..],
        &["play", "--game", "no-such-game"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--server", &addr]);
        let o = canasta(&args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = stderr(&o);
        assert!(
            err.contains("GAME_NOT_FOUND") && err.contains("`canasta games`"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn every_subcommand_that_talks_to_a_server_defaults_to_port_50051() {
    for sub in [
        "play",
        "games",
        "create",
        "watch",
        "bot",
        "export",
        "cancel",
        "register",
        "leaderboard",
        "player",
        "tournament",
    ] {
        let o = Command::new(BIN)
            .args([sub, "--help"])
            .env_remove("CANASTA_SERVER")
            .output()
            .unwrap();
        let help = stdout(&o);
        assert!(help.contains("[default: 127.0.0.1:50051]"), "{sub}: {help}");
    }
    // `match` plays in-process unless it is given a server, and says so.
    let help = stdout(&canasta(&["match", "--help"]));
    let server = help
        .split("\n      --")
        .find(|flag| flag.starts_with("server"))
        .expect("match has --server");
    assert!(server.contains("in this process"), "{help}");
    assert!(!server.contains("[default"), "{help}");
}

#[test]
fn match_in_process_writes_json_lines_and_a_summary() {
    let dir = temp("match");
    let lines = dir.path().join("m.jsonl");
    let o = canasta(&[
        "match",
        "--bots",
        "greedy,random",
        "--matches",
        "20",
        "--seed",
        "1",
        "--json",
        "--jsonl",
        lines.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(summary["matches"], 20);
    assert!(summary["bots"]["greedy"]["wins"].as_u64().unwrap() >= 19);
    assert_eq!(summary["bots"]["random"]["played"], 20);
    let ci = &summary["bots"]["greedy"]["win_rate_95"];
    assert!(ci[0].as_f64().unwrap() <= summary["bots"]["greedy"]["win_rate"].as_f64().unwrap());
    let text = std::fs::read_to_string(&lines).unwrap();
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 20);
    for r in &rows {
        assert_eq!(r["side_bots"], serde_json::json!(["greedy", "random"]));
        assert!(r["deals"].as_u64().unwrap() >= 1);
        assert_eq!(r["totals"].as_array().unwrap().len(), 2);
    }
    // Duplicate: each seed twice, the sides swapped. Standard output holds JSON lines only:
    // the matches, then the summary as the last line (--json) or on standard error (text).
    let o = canasta(&[
        "match",
        "--bots",
        "greedy,random",
        "--matches",
        "3",
        "--duplicate",
        "--jsonl",
        "-",
        "--json",
    ]);
    assert!(o.status.success());
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect();
    assert_eq!(rows.len(), 7);
    let (summary, rows) = rows.split_last().unwrap();
    assert_eq!(summary["matches"], 6);
    assert_eq!(summary["bots"]["greedy"]["played"], 6);
    assert!(rows.iter().all(|r| r["index"].is_u64()));
    assert_eq!(rows.iter().filter(|r| r["swapped"] == true).count(), 3);
    let o = canasta(&[
        "match",
        "--bots",
        "greedy,random",
        "--matches",
        "2",
        "--jsonl",
        "-",
        "--quiet",
    ]);
    assert!(o.status.success());
    let lines: Vec<&str> = std::str::from_utf8(&o.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 2);
    for l in lines {
        let _: serde_json::Value = serde_json::from_str(l).unwrap();
    }
    assert!(stderr(&o).contains("greedy: "), "{}", stderr(&o));
}

#[test]
fn match_against_a_server_each_seat_a_client() {
    let rt = runtime();
    let addr = server(&rt);
    let o = canasta(&[
        "match",
        "--server",
        &addr,
        "--bots",
        "greedy,random",
        "--matches",
        "3",
        "--players",
        "2",
        "--option",
        "target_score=1500",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(summary["matches"], 3);
    assert_eq!(summary["unfinished"], 0);
    assert_eq!(summary["bots"]["greedy"]["wins"], 3);
}

/// The JSON lines of a `canasta match --jsonl -` run that must succeed, by match index.
fn match_lines(args: &[&str]) -> Vec<serde_json::Value> {
    let o = canasta(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let mut rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect();
    rows.sort_by_key(|r| r["index"].as_u64());
    rows
}

/// Fails if a string of `json` holds Rust's debug text (`WentOut { seat: Seat(0), .. }`)
/// instead of JSON structure.
fn assert_no_debug_text(json: &serde_json::Value) {
    match json {
        serde_json::Value::String(s) => assert!(
            !s.contains(['{', '}', '(', ')']),
            "debug text in the JSON: {s:?}"
        ),
        serde_json::Value::Array(a) => a.iter().for_each(assert_no_debug_text),
        serde_json::Value::Object(o) => o.values().for_each(assert_no_debug_text),
        _ => {}
    }
}

// Regression: against a server every line said "actions": 0, counted one turn more than the
// same seed in this process (which missed the first turn, started with the deal), and named
// no game, so the games could not be exported.
#[test]
fn match_lines_agree_in_process_and_against_a_server() {
    let rt = runtime();
    let addr = server(&rt);
    let args = [
        "match",
        "--bots",
        "greedy,random",
        "--matches",
        "3",
        "--seed",
        "1",
        "--jsonl",
        "-",
        "--quiet",
    ];
    let local = match_lines(&args);
    let remote = match_lines(&[&args[..], &["--server", &addr]].concat());
    assert_eq!((local.len(), remote.len()), (3, 3));
    for (l, r) in local.iter().zip(&remote) {
        for field in ["seed", "winner_side", "totals", "deals", "actions", "turns"] {
            assert_eq!(l[field], r[field], "{field}:\n{l}\n{r}");
        }
        let (actions, turns) = (r["actions"].as_u64().unwrap(), r["turns"].as_u64().unwrap());
        assert!(actions > turns && turns > 0, "{r}");
        assert!(l.get("game_id").is_none(), "{l}");
        assert!(r["game_id"].is_string(), "{r}");
    }
    // The game id exports the game: its record replays to the line's result.
    let dir = temp("match-export");
    let file = dir.path().join("game.json");
    let file = file.to_str().unwrap();
    let game = remote[0]["game_id"].as_str().unwrap();
    let o = canasta(&["export", game, "--server", &addr, "--out", file]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = canasta(&["replay", file, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let replay: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(replay["actions"], remote[0]["actions"]);
    assert_eq!(replay["totals"], remote[0]["totals"]);
    assert_eq!(
        replay["deals"].as_array().unwrap().len() as u64,
        remote[0]["deals"].as_u64().unwrap()
    );
    // A match stopped at the deal limit counts what was played, and stops at the same place
    // against a server. (Regression: against a server --max-deals was ignored, and the
    // matches played on to the target.)
    let args = [
        "match",
        "--bots",
        "greedy,random",
        "--matches",
        "2",
        "--seed",
        "1",
        "--max-deals",
        "1",
        "--jsonl",
        "-",
        "--json",
        "--quiet",
    ];
    let local = match_lines(&args);
    let remote = match_lines(&[&args[..], &["--server", &addr]].concat());
    // The summary has no index: it sorts first.
    assert_eq!((local.len(), remote.len()), (3, 3));
    assert_eq!(local[0]["unfinished"], 2, "{}", local[0]);
    assert_eq!(remote[0]["unfinished"], 2, "{}", remote[0]);
    for (l, r) in local[1..].iter().zip(&remote[1..]) {
        for field in ["seed", "winner_side", "totals", "deals", "actions", "turns"] {
            assert_eq!(l[field], r[field], "{field}:\n{l}\n{r}");
        }
        assert!(r["winner_side"].is_null(), "{r}");
        assert_eq!(r["deals"], 1, "{r}");
        assert!(r["actions"].as_u64().unwrap() > 0, "{r}");
        assert_eq!(r["totals"].as_array().unwrap().len(), 2, "{r}");
        // The bots gave their seats up: the game does not wait for them.
        let game = r["game_id"].as_str().unwrap();
        let listed = games_json(&addr, &["--limit", "10"]);
        let listed = listed.iter().find(|g| g["game_id"] == game).unwrap();
        assert_eq!(listed["status"], "playing", "{listed}");
        assert_eq!(listed["seats_taken"], 0, "{listed}");
    }
}

// Regression: `replay --json` wrote how a deal ended as Rust's debug text
// ("WentOut { seat: Seat(0), concealed: false }").
#[test]
fn replay_json_has_structure_not_debug_text() {
    let rt = runtime();
    let addr = server(&rt);
    let dir = temp("replay-json");
    for seed in [5, 6] {
        let game = create_game(&rt, &addr, 2, &[("target_score", "3000")], seed);
        let game = game.as_str();
        let results = run_bots(&addr, game, &[&["--bot", "greedy"], &["--bot", "random"]]);
        let file = dir.path().join("game.json");
        let file = file.to_str().unwrap();
        let o = canasta(&["export", game, "--server", &addr, "--out", file]);
        assert!(o.status.success(), "{}", stderr(&o));
        let o = canasta(&["replay", file, "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let replay: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_no_debug_text(&replay);
        assert_eq!(replay["game_id"], game);
        assert_eq!(replay["winner_side"], results[0]["winner_side"]);
        assert_eq!(replay["finished"], true);
        assert_eq!(replay["rules"]["players"], 2);
        let deals = replay["deals"].as_array().unwrap();
        assert!(!deals.is_empty());
        for (i, d) in deals.iter().enumerate() {
            assert_eq!(d["deal"], i as u64 + 1, "{d}");
            let end = &d["end"];
            let kind = end["kind"].as_str().unwrap_or_else(|| panic!("{d}"));
            assert!(
                ["went_out", "stock_exhausted", "last_red_three"].contains(&kind),
                "{end}"
            );
            assert!(end["seat"].as_u64().unwrap() < 2, "{end}");
            assert_eq!(end["concealed"].is_boolean(), kind == "went_out", "{end}");
            let sides = d["sides"].as_array().unwrap();
            assert_eq!(sides.len(), 2);
            for (s, side) in sides.iter().enumerate() {
                assert_eq!(side["side"], s as u64);
                assert_eq!(side["total"], d["totals"][s]);
                assert_eq!(side["cumulative"], d["cumulative"][s]);
                let items: i64 = [
                    "melded_cards",
                    "canasta_bonus",
                    "red_three_bonus",
                    "going_out_bonus",
                    "cards_in_hand",
                    "penalties",
                ]
                .iter()
                .map(|k| side[k].as_i64().unwrap())
                .sum();
                assert_eq!(Some(items), side["total"].as_i64(), "{side}");
            }
        }
        assert_eq!(deals.last().unwrap()["cumulative"], replay["totals"]);
    }
}

/// docs/cli.md shows each JSON output of the client as it is: each example has the shape of
/// what the command writes (the same fields, nested alike, of the same types).
#[test]
fn the_documented_json_outputs_have_the_shape_of_the_real_ones() {
    let rt = runtime();
    let addr = server(&rt);
    let rules = ["--players", "2", "--option", "target_score=500"];
    let lines = match_lines(
        &[
            &["match", "--server", &addr, "--matches", "1", "--seed", "3"][..],
            &rules,
            &["--jsonl", "-", "--json", "--quiet"],
        ]
        .concat(),
    );
    // The summary has no index: it sorts first.
    let (summary, line) = (&lines[0], &lines[1]);
    let dir = temp("documented-json");
    let file = dir.path().join("game.json");
    let file = file.to_str().unwrap();
    let game = line["game_id"].as_str().unwrap();
    let o = canasta(&["export", game, "--server", &addr, "--out", file]);
    assert!(o.status.success(), "{}", stderr(&o));
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let o = canasta(&["replay", file, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let replay: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // A game with a time control, from `create`, played to the end by two bots.
    let o = canasta(
        &[
            &["create", "--server", &addr, "--seed", "3", "--json"][..],
            &rules,
            &["--move-budget", "30s"],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let created: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let game = created["game_id"].as_str().unwrap().to_string();
    let bot = run_bots(&addr, &game, &[&["--bot", "greedy"], &["--bot", "random"]]).remove(0);
    let games = serde_json::Value::Array(games_json(&addr, &["--limit", "1"]));
    let o = canasta(&["watch", &game, "--server", &addr, "--from-start", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let events: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let event = |kind: &str| events.iter().find(|e| e["kind"] == kind).unwrap().clone();
    let (discarded, deal_end, match_end) = (
        event("discarded"),
        event("deal_ended"),
        event("match_ended"),
    );
    for (name, real) in [
        ("match line", line),
        ("match summary", summary),
        ("replay", &replay),
        ("bot", &bot),
        ("record", &record),
        ("games", &games),
        ("create", &created),
        ("watch event", &discarded),
        ("watch deal end", &deal_end),
        ("watch match end", &match_end),
    ] {
        assert_eq!(shape(&documented(name)), shape(real), "{name}: {real}");
    }
}

// Regression: a bot refused for the request rate stopped, and the seats waiting for it hung
// forever: random bots act faster than the default 200 requests per second per seat token.
#[test]
fn match_against_a_server_with_the_default_limits_finishes() {
    let rt = runtime();
    let addr = server_with(&rt, production().build().unwrap());
    let child = spawn(&[
        "match",
        "--server",
        &addr,
        "--bots",
        "random",
        "--matches",
        "3",
        "--seed",
        "2",
        "--json",
    ]);
    let o = finish_within(child, Duration::from_secs(300), "match --server");
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(summary["matches"], 3);
    assert_eq!(summary["unfinished"], 0);
}

// The bots wait as long as a refusal for the rate asks, and play on.
#[test]
fn bots_wait_out_the_request_rate() {
    let rt = runtime();
    let addr = server_with(&rt, production().requests_per_second(20.0).build().unwrap());
    let child = spawn(&[
        "match",
        "--server",
        &addr,
        "--bots",
        "greedy,random",
        "--players",
        "2",
        "--option",
        "target_score=1500",
        "--matches",
        "2",
        "--json",
    ]);
    let o = finish_within(child, Duration::from_secs(300), "match --server");
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(summary["matches"], 2);
    assert_eq!(summary["unfinished"], 0);
}

/// Creates a game of `players` with these rule options and seed on the server at `addr`;
/// returns its id.
fn create_game(
    rt: &tokio::runtime::Runtime,
    addr: &str,
    players: u32,
    options: &[(&str, &str)],
    seed: u64,
) -> String {
    rt.block_on(async {
        let mut client = CanastaServiceClient::connect(format!("http://{addr}"))
            .await
            .unwrap();
        client
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
            .unwrap()
            .into_inner()
            .game
            .unwrap()
            .game_id
    })
}

/// The server's result of a finished game.
fn match_result(rt: &tokio::runtime::Runtime, addr: &str, game: &str) -> v1::MatchResult {
    rt.block_on(async {
        let mut client = CanastaServiceClient::connect(format!("http://{addr}"))
            .await
            .unwrap();
        client
            .get_scores(v1::GetScoresRequest {
                game_id: game.to_string(),
            })
            .await
            .unwrap()
            .into_inner()
            .result
            .expect("the match is over")
    })
}

// `canasta cancel GAME --token T` ends a waiting game with its creator token (exit 0); a
// wrong token is refused with the server's reason (exit 1), and so is a started game.
#[test]
fn cancel_ends_a_waiting_game_with_its_creator_token() {
    let rt = runtime();
    let addr = server(&rt);
    let create = || {
        rt.block_on(async {
            let mut client = CanastaServiceClient::connect(format!("http://{addr}"))
                .await
                .unwrap();
            client
                .create_game(v1::CreateGameRequest {
                    rules: Some(v1::RuleSet {
                        preset: v1::Preset::Official as i32,
                        player_count: 2,
                        options: Default::default(),
                    }),
                    ..Default::default()
                })
                .await
                .unwrap()
                .into_inner()
        })
    };
    let created = create();
    let game = created.game.unwrap().game_id;
    let wrong = "0".repeat(32);
    let o = canasta(&["cancel", &game, "--token", &wrong, "--server", &addr]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("NOT_GAME_CREATOR"), "{}", stderr(&o));
    let o = Command::new(BIN)
        .args(["cancel", &game, "--server", &addr])
        .env("CANASTA_CREATOR_TOKEN", &created.creator_token)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("cancelled"), "{}", stdout(&o));
    let result = match_result(&rt, &addr, &game);
    assert_eq!(result.end, v1::MatchEndKind::Cancelled as i32);
    // Its record replays as a match that ended, cancelled, with no winner. (Regression: the
    // replay said `"finished": false` for every match that ended before its target.)
    let dir = temp("cancelled-record");
    let file = dir.path().join("game.json");
    let file = file.to_str().unwrap();
    let o = canasta(&["export", &game, "--server", &addr, "--out", file]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = canasta(&["replay", file, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let replay: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(replay["finished"], true, "{replay}");
    assert_eq!(replay["end"], "cancelled", "{replay}");
    assert!(replay["winner_side"].is_null(), "{replay}");
    assert_eq!(replay["actions"], 0, "{replay}");
    let o = canasta(&["replay", file]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("the match ended (cancelled), no side wins"),
        "{}",
        stdout(&o)
    );
    // A started game is not cancelled.
    let created = create();
    let started = created.game.unwrap().game_id;
    rt.block_on(async {
        let mut client = CanastaServiceClient::connect(format!("http://{addr}"))
            .await
            .unwrap();
        for seat in 0..2 {
            client
                .join_game(v1::JoinGameRequest {
                    game_id: started.clone(),
                    seat: Some(seat),
                    display_name: format!("p{seat}"),
                })
                .await
                .unwrap();
        }
    });
    let token = created.creator_token;
    let o = canasta(&["cancel", &started, "--token", &token, "--server", &addr]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("GAME_STARTED"), "{}", stderr(&o));
}

/// `canasta bot --json` for each of these argument lists (each with the server and the
/// game); each must succeed. Their JSON results, in order.
fn run_bots(addr: &str, game: &str, bots: &[&[&str]]) -> Vec<serde_json::Value> {
    let children: Vec<Child> = bots
        .iter()
        .map(|args| {
            let mut all = vec!["bot", "--server", addr, "--game", game, "--json"];
            all.extend_from_slice(args);
            spawn(&all)
        })
        .collect();
    children
        .into_iter()
        .zip(bots)
        .map(|(child, args)| {
            let o = finish_within(child, Duration::from_secs(300), "canasta bot");
            assert!(o.status.success(), "{args:?}: {}", stderr(&o));
            serde_json::from_str(stdout(&o).trim()).unwrap()
        })
        .collect()
}

/// Every bot's result is the server's.
fn assert_results_agree(results: &[serde_json::Value], server: &v1::MatchResult) {
    for r in results {
        assert_eq!(r["totals"], serde_json::json!(server.totals), "{r}");
        assert_eq!(
            r["winner_side"],
            serde_json::json!(server.winner_side),
            "{r}"
        );
    }
    assert!(results[0]["winner_side"].is_u64(), "{}", results[0]);
}

/// A whole match of two `canasta bot`s, each given `flags`: both end with the server's result,
/// and the exported record replays to it.
fn bots_play_a_game_to_the_end_then_export_and_replay_agree(flags: &[&str]) {
    let rt = runtime();
    let addr = server(&rt);
    let game = create_game(&rt, &addr, 2, &[("target_score", "2000")], 12);
    let seat = |bot: &'static str, seat: &'static str| {
        let mut args = vec!["--bot", bot, "--seat", seat];
        args.extend_from_slice(flags);
        args
    };
    let (greedy, random) = (seat("greedy", "0"), seat("random", "1"));
    let results = run_bots(&addr, &game, &[&greedy, &random]);
    assert_results_agree(&results, &match_result(&rt, &addr, &game));
    let dir = temp(&format!("export{}", flags.join("")));
    let file = dir.path().join("game.json");
    let o = canasta(&[
        "export",
        &game,
        "--server",
        &addr,
        "--out",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = canasta(&["replay", file.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let replay: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(replay["totals"], results[0]["totals"]);
    assert_eq!(replay["winner_side"], results[0]["winner_side"]);
    let o = canasta(&["replay", file.to_str().unwrap()]);
    assert!(stdout(&o).contains("deal 1:"));
}

#[test]
fn bots_play_a_game_to_the_end_over_play_then_export_and_replay_agree() {
    bots_play_a_game_to_the_end_then_export_and_replay_agree(&[]);
}

#[test]
fn bots_play_a_game_to_the_end_with_unary_calls_then_export_and_replay_agree() {
    bots_play_a_game_to_the_end_then_export_and_replay_agree(&["--unary"]);
}

/// A server with this configuration that serves its metrics too; its address, and the
/// metrics'. (The metrics port is found free, then bound by the server: another program could
/// take it in between, which a test would report as a failed scrape.)
fn server_with_metrics(
    rt: &tokio::runtime::Runtime,
    config: Config,
) -> (String, std::net::SocketAddr) {
    let metrics = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port");
    let config = config
        .to_builder()
        .metrics_listen(Some(metrics))
        .build()
        .unwrap();
    (server_with(rt, config), metrics)
}

/// How many requests the server refused with this code and reason, from its metrics. The
/// server binds its metrics port before it serves gRPC: once a gRPC request has been
/// answered, the port takes connections.
fn refusals(metrics: std::net::SocketAddr, code: &str, reason: &str) -> u64 {
    let mut conn = std::net::TcpStream::connect(metrics).expect("the metrics port");
    conn.write_all(b"GET /metrics HTTP/1.0\r\n\r\n").unwrap();
    let mut text = String::new();
    conn.read_to_string(&mut text).unwrap();
    let name = format!("canasta_errors_total{{code=\"{code}\",reason=\"{reason}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&name))
        .map_or(0, |n| n.trim().parse().unwrap())
}

/// Two `canasta bot`s, given `flags`, play a match whose seats' request rate (10 a second,
/// bursts of 20) is well below what they would send: refused RATE_LIMITED, they wait as the
/// server asks, send again, and finish with the server's result.
fn bots_wait_out_the_rate_of_their_token(flags: &[&str]) {
    let rt = runtime();
    let config = test_config().requests_per_second(10.0).build().unwrap();
    let (addr, metrics) = server_with_metrics(&rt, config);
    // One deal: about fifty actions a seat.
    let game = create_game(&rt, &addr, 2, &[("target_score", "500")], 4);
    let seat = |seat: &'static str| {
        let mut args = vec!["--seat", seat];
        args.extend_from_slice(flags);
        args
    };
    let (first, second) = (seat("0"), seat("1"));
    let results = run_bots(&addr, &game, &[&first, &second]);
    assert_results_agree(&results, &match_result(&rt, &addr, &game));
    let limited = refusals(metrics, "RESOURCE_EXHAUSTED", "RATE_LIMITED");
    assert!(limited > 0, "the bots were never refused for the rate");
}

#[test]
fn bots_over_play_wait_out_the_rate_of_their_token() {
    bots_wait_out_the_rate_of_their_token(&[]);
}

#[test]
fn bots_with_unary_calls_wait_out_the_rate_of_their_token() {
    bots_wait_out_the_rate_of_their_token(&["--unary"]);
}

// `canasta bot --token` on a token that has just used up its rate (10 a second, bursts of 20):
// the bot's first reads (its seat's view and the game) are refused RATE_LIMITED, and it waits
// as the server asks instead of giving up, then plays the match to the server's result.
#[test]
fn a_bot_started_with_a_busy_token_waits_for_its_rate() {
    let rt = runtime();
    let config = test_config().requests_per_second(10.0).build().unwrap();
    let addr = server_with(&rt, config);
    let game = create_game(&rt, &addr, 2, &[("target_score", "500")], 4);
    let token = rt.block_on(async {
        let mut client = CanastaServiceClient::connect(format!("http://{addr}"))
            .await
            .unwrap();
        let token = client
            .join_game(v1::JoinGameRequest {
                game_id: game.clone(),
                seat: Some(0),
                display_name: "busy".into(),
            })
            .await
            .unwrap()
            .into_inner()
            .token;
        // Use up the token's burst.
        let mut refused = 0;
        for _ in 0..40 {
            let mut request = tonic::Request::new(v1::GetViewRequest {
                game_id: game.clone(),
                include_actions: false,
            });
            request
                .metadata_mut()
                .insert("authorization", format!("Bearer {token}").parse().unwrap());
            if client.get_view(request).await.is_err() {
                refused += 1;
            }
        }
        assert!(refused > 0, "the token's rate was never used up");
        token
    });
    let results = run_bots(&addr, &game, &[&["--token", &token], &["--seat", "1"]]);
    assert_results_agree(&results, &match_result(&rt, &addr, &game));
}

// Two `canasta bot`s play the same seat with its token, one over Play and one with unary
// calls, against a third bot: on every prompt both act, one is applied and the other refused
// (STALE_SEQ: the game moved on; GAME_FINISHED after the last action), and the refused one
// waits for the next prompt, or the end of the match, instead of stopping. All three end with
// the server's result.
#[test]
fn a_bot_refused_because_the_game_moved_on_plays_on() {
    let rt = runtime();
    let (addr, metrics) = server_with_metrics(&rt, test_config().build().unwrap());
    let game = create_game(&rt, &addr, 2, &[("target_score", "500")], 4);
    let token = rt.block_on(async {
        let mut client = CanastaServiceClient::connect(format!("http://{addr}"))
            .await
            .unwrap();
        client
            .join_game(v1::JoinGameRequest {
                game_id: game.clone(),
                seat: Some(0),
                display_name: "twice".into(),
            })
            .await
            .unwrap()
            .into_inner()
            .token
    });
    let results = run_bots(
        &addr,
        &game,
        &[
            &["--token", &token],
            &["--token", &token, "--unary", "--bot", "random"],
            &["--seat", "1"],
        ],
    );
    assert_results_agree(&results, &match_result(&rt, &addr, &game));
    let stale = refusals(metrics, "ABORTED", "STALE_SEQ");
    let not_ours = refusals(metrics, "FAILED_PRECONDITION", "NOT_YOUR_TURN");
    assert!(
        stale + not_ours > 0,
        "the two bots of seat 0 never collided"
    );
}

// `canasta bot` says how it plays: over one Play call, or with unary calls (--unary).
#[test]
fn a_bot_says_how_it_plays() {
    let rt = runtime();
    let addr = server(&rt);
    for (flags, how) in [
        (&[][..], "over one Play call"),
        (&["--unary"][..], "a SubmitAction call per action"),
    ] {
        let game = create_game(&rt, &addr, 2, &[], 1);
        let mut args = vec!["bot", "--server", &addr, "--game", &game];
        args.extend_from_slice(flags);
        let mut bot = Command::new(BIN)
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(bot.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let _ = bot.kill();
        let _ = bot.wait();
        assert!(
            line.contains("plays seat 0") && line.contains(how),
            "{line}"
        );
    }
}

// Regression: a script starting many bots printed a line per bot on standard error, which
// discarding standard output does not silence, and errors must not be silenced with it.
#[test]
fn a_quiet_bot_prints_nothing_but_errors() {
    let rt = runtime();
    let addr = server(&rt);
    let game = create_game(&rt, &addr, 2, &[("target_score", "1500")], 4);
    let bots: Vec<Child> = ["greedy", "random"]
        .into_iter()
        .map(|bot| {
            spawn(&[
                "bot", "--server", &addr, "--game", &game, "--bot", bot, "--quiet",
            ])
        })
        .collect();
    for bot in bots {
        let o = finish_within(bot, Duration::from_secs(300), "canasta bot --quiet");
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!((stdout(&o), stderr(&o)), (String::new(), String::new()));
    }
    assert!(match_result(&rt, &addr, &game).finished);
    let o = canasta(&["bot", "--server", &addr, "--game", "nosuch", "-q"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nosuch"), "{}", stderr(&o));
}

/// The `canasta-server` binary of this build, built if missing (it belongs to another
/// package, so cargo does not build it for these tests).
fn server_binary() -> PathBuf {
    let bin = Path::new(BIN);
    let profile_dir = bin.parent().expect("target/<profile>");
    let target_dir = profile_dir.parent().expect("target");
    let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev",
        Some(other) => other,
    };
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    // Without the variables cargo sets for this test: ring's build script reads
    // CARGO_MANIFEST_DIR, and inherited it would rebuild ring and all that depends on it.
    for (name, _) in std::env::vars_os() {
        if let Some(name) = name.to_str()
            && (name.starts_with("CARGO_PKG_")
                || name.starts_with("CARGO_MANIFEST_")
                || [
                    "CARGO_CRATE_NAME",
                    "CARGO_PRIMARY_PACKAGE",
                    "CARGO_TARGET_TMPDIR",
                ]
                .contains(&name))
        {
            cargo.env_remove(name);
        }
    }
    let o = cargo
        .args([
            "build",
            "--quiet",
            "-p",
            "canasta-server",
            "--bin",
            "canasta-server",
        ])
        .arg("--profile")
        .arg(profile)
        .arg("--target-dir")
        .arg(target_dir)
        .output()
        .expect("cargo runs");
    assert!(
        o.status.success(),
        "cannot build canasta-server: {}",
        stderr(&o)
    );
    profile_dir.join(format!("canasta-server{}", std::env::consts::EXE_SUFFIX))
}

/// A `canasta-server` process on a SQLite database.
struct ServerProcess {
    child: Child,
    addr: String,
}

impl ServerProcess {
    /// Starts the server on `listen` (port 0 for a free one) and waits for the address it
    /// prints once it serves. Another process may take a port freed a moment ago: then the
    /// server exits at once, and it is started again (a few times).
    fn start(bin: &Path, db: &Path, listen: &str) -> ServerProcess {
        ServerProcess::start_with(bin, db, listen, &[])
    }

    /// [`ServerProcess::start`] with more flags.
    fn start_with(bin: &Path, db: &Path, listen: &str, flags: &[&str]) -> ServerProcess {
        for _ in 0..10 {
            let mut child = Command::new(bin)
                .args(["--listen", listen, "--db"])
                .arg(db)
                .args(flags)
                .env("RUST_LOG", "warn")
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("canasta-server starts");
            // The line may come on either stream; both are read to the end, so that the
            // server never blocks on a full pipe.
            let (tx, rx) = std::sync::mpsc::channel();
            let stdout = child.stdout.take().unwrap();
            let stderr = child.stderr.take().unwrap();
            for stream in [Box::new(stdout) as Box<dyn Read + Send>, Box::new(stderr)] {
                let tx = tx.clone();
                std::thread::spawn(move || {
                    for line in BufReader::new(stream).lines() {
                        let Ok(line) = line else { break };
                        if let Some(at) = line.find("listening on ") {
                            let addr = line[at + "listening on ".len()..].trim().to_string();
                            let _ = tx.send(addr);
                        }
                    }
                });
            }
            drop(tx);
            // The line, or the end of both pipes (the server exited); 60 s without either is a
            // hang.
            match rx.recv_timeout(Duration::from_secs(60)) {
                Ok(addr) => return ServerProcess { child, addr },
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                }
            }
        }
        panic!("canasta-server does not start on {listen}");
    }

    /// SIGKILL: no shutdown, nothing flushed.
    fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// `canasta bot` survives its server being killed mid-game: it reconnects to the restarted
// server (same port, same database), resumes from the last event it saw, and finishes. Seats 0
// and 1 play over Play calls, seats 2 and 3 with unary calls (--unary).
#[test]
fn bots_resume_after_the_server_is_killed_and_restarted() {
    let bin = server_binary();
    let dir = temp("restart");
    let db = dir.path().join("games.db");
    let server = ServerProcess::start(&bin, &db, "127.0.0.1:0");
    let addr = server.addr.clone();
    let rt = runtime();
    let game = rt.block_on(async {
        let mut client = CanastaServiceClient::connect(format!("http://{addr}"))
            .await
            .unwrap();
        client
            .create_game(v1::CreateGameRequest {
                rules: Some(v1::RuleSet {
                    preset: v1::Preset::Official as i32,
                    player_count: 4,
                    options: Default::default(),
                }),
                seed: Some(5),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
            .game
            .unwrap()
            .game_id
    });
    let bots: Vec<Child> = (0..4)
        .map(|seat: u32| {
            let number = seat.to_string();
            let mut args = vec![
                "bot", "--server", &addr, "--game", &game, "--seat", &number, "--bot", "greedy",
                "--json",
            ];
            if seat >= 2 {
                args.push("--unary");
            }
            spawn(&args)
        })
        .collect();
    // Mid-game: some turns played, the match not over.
    let seen = rt.block_on(async {
        let mut client = CanastaServiceClient::connect(format!("http://{addr}"))
            .await
            .unwrap();
        let mut stream = client
            .watch_game(v1::WatchGameRequest {
                game_id: game.clone(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        loop {
            let message = tokio::time::timeout(Duration::from_secs(60), stream.next())
                .await
                .expect("the bots play")
                .expect("the stream stays open")
                .unwrap();
            if let Some(v1::watch_game_response::Kind::Event(e)) = message.kind {
                assert!(
                    !matches!(e.kind, Some(v1::game_event::Kind::MatchEnded(_))),
                    "the match ended before the server was killed"
                );
                if e.seq >= 40 {
                    return e.seq;
                }
            }
        }
    });
    // Killed, and started again on the same port: the bots find their streams and calls
    // broken, reconnect and resume. (How long a bot keeps trying is the unit test's in
    // src/remote.rs, on a paused clock.)
    server.kill();
    let server = ServerProcess::start(&bin, &db, &addr);
    let results: Vec<serde_json::Value> = bots
        .into_iter()
        .enumerate()
        .map(|(seat, bot)| {
            let o = finish_within(bot, Duration::from_secs(300), "canasta bot");
            assert!(o.status.success(), "seat {seat}: {}", stderr(&o));
            serde_json::from_str(stdout(&o).trim()).unwrap()
        })
        .collect();
    for r in &results {
        assert_eq!(r["totals"], results[0]["totals"]);
        assert_eq!(r["winner_side"], results[0]["winner_side"]);
    }
    assert!(results[0]["winner_side"].is_u64(), "{}", results[0]);
    // The server agrees, and the game went on well past the moment it was killed.
    rt.block_on(async {
        let mut client = CanastaServiceClient::connect(format!("http://{}", server.addr))
            .await
            .unwrap();
        let scores = client
            .get_scores(v1::GetScoresRequest {
                game_id: game.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        let result = scores.result.unwrap();
        assert_eq!(serde_json::json!(result.totals), results[0]["totals"]);
        let record = client
            .export_game(v1::ExportGameRequest {
                game_id: game.clone(),
            })
            .await
            .unwrap()
            .into_inner()
            .record
            .unwrap();
        assert!(record.actions.len() as u64 > seen / 2, "{seen}");
    });
    drop(server);
}

// One deal through standard input, the bots' seeds fixed: the game is the same every run.
// Each turn shows the table; `help` lists the legal actions; a card not held is refused with
// the engine's message; the other seats' actions are shown as they happen.
// A server that does not come back: the bot gives up after --reconnect-secs, and says so.
#[test]
fn a_bot_gives_up_on_a_server_gone_for_good() {
    let bin = server_binary();
    let dir = temp("gone");
    let server = ServerProcess::start(&bin, &dir.path().join("games.db"), "127.0.0.1:0");
    let addr = server.addr.clone();
    let rt = runtime();
    let game = rt.block_on(async {
        let mut client = CanastaServiceClient::connect(format!("http://{addr}"))
            .await
            .unwrap();
        client
            .create_game(v1::CreateGameRequest {
                rules: Some(v1::RuleSet {
                    preset: v1::Preset::Official as i32,
                    player_count: 2,
                    options: Default::default(),
                }),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
            .game
            .unwrap()
            .game_id
    });
    let mut bot = Command::new(BIN)
        .args([
            "bot",
            "--server",
            &addr,
            "--game",
            &game,
            "--reconnect-secs",
            "2",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The bot has joined (it says so) and waits for the other seats.
    let mut err = BufReader::new(bot.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    assert!(line.contains("plays seat 0"), "{line}");
    server.kill();
    let o = finish_within(bot, Duration::from_secs(60), "canasta bot");
    let mut rest = String::new();
    err.read_to_string(&mut rest).unwrap();
    assert_eq!(o.status.code(), Some(1), "{rest}");
    assert!(rest.contains("--reconnect-secs"), "{rest}");
}

#[test]
#[cfg(feature = "local")]
fn play_through_standard_input_for_a_whole_deal() {
    let mut child = Command::new(BIN)
        .args([
            "play", "--local", "--deals", "1", "--seed", "3", "--color", "never",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut hand: Vec<String> = Vec::new();
    let mut seen = Vec::new();
    let (mut draws, mut plays) = (0, 0);
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(60)) {
        seen.push(line.clone());
        if let Some(h) = line.strip_prefix("your hand: ") {
            hand = h.split_whitespace().map(str::to_string).collect();
        }
        let mut replies = Vec::new();
        if line.starts_with("your turn: draw") {
            match draws {
                0 => replies.extend(["help".to_string(), "fly away".into(), "draw".into()]),
                _ => replies.push("draw".into()),
            }
            draws += 1;
        } else if line.starts_with("your turn: meld") {
            if plays == 0 {
                let not_held = ["9C", "9D", "9H", "9S", "KC"]
                    .into_iter()
                    .find(|c| !hand.iter().any(|h| h == c))
                    .unwrap();
                replies.push(format!("discard {not_held}"));
            }
            // The last card of the sorted hand: a wild card or a three when there is one,
            // which freezes or blocks the pile.
            replies.push(format!("discard {}", hand.last().unwrap()));
            plays += 1;
        } else if line.starts_with("your turn: your partner") {
            replies.push("no".into());
        }
        for r in replies {
            writeln!(stdin, "{r}").unwrap();
        }
    }
    let status = child.wait().unwrap();
    let text = seen.join("\n");
    assert!(status.success(), "{text}");
    let has = |needle: &str| text.contains(needle);
    // The table: sides with their members and scores, melds, seats' counts, the pile, the
    // stock and the hand.
    assert!(
        has("side 0 (you (seat 0), greedy bot (seat 2)): score 0, needs 50 to meld"),
        "{text}"
    );
    assert!(
        has("side 1 (greedy bot (seat 1), greedy bot (seat 3)): score 0"),
        "{text}"
    );
    let meld = seen.iter().any(|l| {
        l.strip_prefix("   ")
            .and_then(|l| l.split_once(": "))
            .is_some_and(|(n, m)| n.parse::<u32>().is_ok() && m.contains(" ["))
    });
    assert!(meld, "a meld line: {text}");
    assert!(has("   greedy bot (seat 1): "), "{text}");
    let piles: Vec<&String> = seen.iter().filter(|l| l.starts_with("pile: ")).collect();
    assert!(piles.len() >= 2, "{text}");
    for p in &piles {
        let (pile, stock) = p.split_once("; stock: ").expect("the stock count");
        assert!(pile.contains(", top "), "{p}");
        assert!(stock.ends_with(" cards") || stock == "1 card", "{p}");
    }
    assert!(piles.iter().any(|p| p.contains(", frozen")), "{text}");
    assert!(piles.iter().any(|p| p.contains(", blocked")), "{text}");
    assert!(has("your hand: "), "{text}");
    // help: what is legal now, and the actions listed.
    assert!(
        has("now: draw yes · take the pile no · go out no · ask partner no"),
        "{text}"
    );
    assert!(has("legal actions (1):") && has("  draw"), "{text}");
    // A command that is no action, then a card not held: the engine's message.
    assert!(has("(type help)"), "{text}");
    assert!(has("you do not hold"), "{text}");
    // Every seat's actions, as they happen; the player's own in the second person.
    assert!(has(" you draw "), "{text}");
    assert!(has(" you discard "), "{text}");
    assert!(!has("you (seat 0) d"), "{text}");
    // The whole table when a turn begins (or the partner asks), only the hand at the other
    // prompts of the turn: the other players' moves stay on the screen.
    let tables = seen.iter().filter(|l| l.starts_with("— deal ")).count();
    let turns = seen
        .iter()
        .filter(|l| l.starts_with("your turn: draw") || l.starts_with("your turn: your partner"))
        .count();
    assert_eq!(tables, turns, "{text}");
    for (i, line) in seen.iter().enumerate() {
        if line.starts_with("your turn: meld") {
            assert!(seen[i - 1].starts_with("your hand: "), "{text}");
            assert!(!seen[i - 2].starts_with("pile: "), "a table at {i}: {text}");
        }
    }
    for seat in 1..4 {
        assert!(has(&format!("greedy bot (seat {seat}) draws")), "{text}");
        assert!(has(&format!("greedy bot (seat {seat}) discards")), "{text}");
    }
    assert!(has("deal 1 ends"), "{text}");
    assert!(has("stopping after 1 deal(s)"), "{text}");
}

// Regression: `ask` was sent without a word when the player could not go out: told yes, his
// side lost 100 points, and the table still said "score 0".
#[test]
#[cfg(feature = "local")]
fn play_warns_before_an_ask_that_risks_the_penalty_and_shows_the_penalty() {
    // Seed 2: the random partner answers yes to the first question.
    let mut child = Command::new(BIN)
        .args([
            "play", "--local", "--seed", "2", "--bot", "random", "--color", "never",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut hand: Vec<String> = Vec::new();
    let mut seen = Vec::new();
    let mut asked = false;
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(60)) {
        seen.push(line.clone());
        if let Some(h) = line.strip_prefix("your hand: ") {
            hand = h.split_whitespace().map(str::to_string).collect();
        }
        let replies: Vec<String> = if line.starts_with("your turn: draw") {
            vec!["draw".into()]
        } else if line.starts_with("your turn: meld") && !asked {
            asked = true;
            // Warned, the player first declines, then asks anyway.
            ["ask", "no", "ask", "yes"].map(String::from).to_vec()
        } else if line.starts_with("your turn: meld")
            || line.starts_with("your turn: your partner said yes")
        {
            vec![format!("discard {}", hand.last().unwrap())]
        } else if line.starts_with("your turn: your partner asks") {
            vec!["no".into()]
        } else if line.contains("in penalties this deal") {
            vec!["quit".into()]
        } else {
            vec![]
        };
        for r in replies {
            writeln!(stdin, "{r}").unwrap();
        }
    }
    let status = child.wait().unwrap();
    let text = seen.join("\n");
    assert!(status.success(), "{text}");
    let count = |needle: &str| seen.iter().filter(|l| l.contains(needle)).count();
    let warning = "you cannot go out now: if your partner answers yes, you must go out, and \
                   your side loses 100 points when you do not";
    assert_eq!(count(warning), 2, "{text}");
    assert_eq!(count("ask anyway? (yes/no) not asked"), 1, "{text}");
    assert_eq!(
        count("you ask random bot (seat 2): may I go out?"),
        1,
        "{text}"
    );
    assert_eq!(count("random bot (seat 2) answers yes"), 1, "{text}");
    assert_eq!(
        count("your turn: your partner said yes: go out, or your side loses 100 points"),
        1,
        "{text}"
    );
    assert_eq!(
        count(
            "your side (side 0) loses 100 points: its player, told yes by his partner, did not go out"
        ),
        1,
        "{text}"
    );
    assert_eq!(
        count("side 0 (you (seat 0), random bot (seat 2)): score 0, -100 in penalties this deal"),
        1,
        "{text}"
    );
    assert!(
        text.ends_with("goodbye: the server in this process stops, and the game with it"),
        "{text}"
    );
}

// Regression: the totals were read from the server after the last shown deal, while the bots
// played on: in a fast build they were those of later deals.
#[test]
#[cfg(feature = "local")]
fn demo_shows_a_deal_and_its_score() {
    let o = canasta(&["demo", "--delay-ms", "0", "--color", "never"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("the match begins"));
    assert!(text.contains("deal 1 ends"));
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("1 deal(s) played; scores: "), "{text}");
    // The totals of the deal shown, side by side.
    let shown: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let (side, rest) = l.trim().strip_prefix("side ")?.split_once(": ")?;
            let total = rest.rsplit_once("total ")?.1;
            Some(format!("side {side} {total}"))
        })
        .collect();
    assert_eq!(shown.len(), 2, "{text}");
    assert_eq!(
        last.strip_prefix("1 deal(s) played; scores: ").unwrap(),
        shown.join(", ")
    );
    // Two deals: the second deal's totals.
    let o = canasta(&[
        "demo",
        "--delay-ms",
        "0",
        "--color",
        "never",
        "--deals",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let last = text.lines().last().unwrap();
    let shown: Vec<String> = text
        .lines()
        .filter_map(|l| {
            let (side, rest) = l.trim().strip_prefix("side ")?.split_once(": ")?;
            let total = rest.rsplit_once("total ")?.1;
            Some(format!("side {side} {total}"))
        })
        .collect();
    assert_eq!(shown.len(), 4, "{text}");
    assert_eq!(
        last.strip_prefix("2 deal(s) played; scores: ").unwrap(),
        shown[2..].join(", ")
    );
}

/// The environment's colour settings (`CI` among them: on a terminal it turns colours on),
/// cleared before each run of the colour tests so that the developer's or the CI service's own
/// do not change what they see.
#[cfg(feature = "local")]
const COLOUR_VARIABLES: [&str; 5] = ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM", "CI"];

/// A deal of `canasta demo` without pauses, with `args` and the environment's colour settings
/// replaced by `env`, standard output a pipe: what it printed.
#[cfg(feature = "local")]
fn demo_output(args: &[&str], env: &[(&str, &str)]) -> String {
    let mut command = Command::new(BIN);
    command
        .args(["demo", "--delay-ms", "0", "--seed", "5"])
        .args(args);
    for name in COLOUR_VARIABLES {
        command.env_remove(name);
    }
    let o = command
        .envs(env.iter().copied())
        .output()
        .expect("canasta runs");
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

/// True if `text` has a red card drawn with its suit symbol, in colour.
#[cfg(feature = "local")]
fn has_red_card_in_colour(text: &str) -> bool {
    text.contains("\x1b[31m") && (text.contains('♥') || text.contains('♦'))
}

// `--color auto` (the default) into a pipe: plain unless CLICOLOR_FORCE asks for colours, and
// NO_COLOR wins over that; an empty NO_COLOR counts as unset (as the NO_COLOR convention says).
#[cfg(feature = "local")]
#[test]
fn no_color_turns_colours_off_under_auto() {
    let plain = demo_output(&[], &[]);
    assert!(!plain.contains('\x1b') && !plain.contains('♥'), "{plain}");
    let forced = demo_output(&[], &[("CLICOLOR_FORCE", "1")]);
    assert!(has_red_card_in_colour(&forced), "{forced}");
    for no_color in ["1", "true", "0"] {
        let text = demo_output(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", no_color)]);
        assert!(
            !text.contains('\x1b'),
            "escape codes with NO_COLOR={no_color}: {text}"
        );
        assert!(text.contains("deal 1 ends"), "{text}");
    }
    let empty = demo_output(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "")]);
    assert!(has_red_card_in_colour(&empty), "{empty}");
}

// `--color always` and `--color never` win over the environment.
#[cfg(feature = "local")]
#[test]
fn the_color_flag_wins_over_the_environment() {
    let always = demo_output(
        &["--color", "always"],
        &[("NO_COLOR", "1"), ("CLICOLOR", "0")],
    );
    assert!(has_red_card_in_colour(&always), "{always}");
    let never = demo_output(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]);
    assert!(!never.contains('\x1b') && !never.contains('♥'), "{never}");
    assert!(never.contains("deal 1 ends"), "{never}");
}

/// `canasta demo` (a deal, no pauses) with `args` on a terminal: a pseudo-terminal that
/// util-linux's `script` makes, with the colour settings `env` (and `TERM` unless given).
#[cfg(all(target_os = "linux", feature = "local"))]
fn demo_on_a_terminal(args: &[&str], env: &[(&str, &str)]) -> String {
    assert!(!BIN.contains('\''), "{BIN}");
    let line = format!("'{BIN}' demo --delay-ms 0 --seed 5 {}", args.join(" "));
    let mut command = Command::new("script");
    command.args([
        "--quiet",
        "--return",
        "--flush",
        "--command",
        &line,
        "/dev/null",
    ]);
    for name in COLOUR_VARIABLES {
        command.env_remove(name);
    }
    command.env("TERM", "xterm-256color");
    let o = command
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "the terminal tests run `canasta` under util-linux's `script` (on Debian and \
                 Ubuntu in the bsdutils package): {e}"
            )
        });
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    stdout(&o)
}

// On a terminal `auto` gives colours and suit symbols; NO_COLOR (or CLICOLOR=0, or a dumb
// terminal) keeps the symbols and drops every escape code; `--color never` drops both, and
// `--color always` keeps both under NO_COLOR.
#[cfg(all(target_os = "linux", feature = "local"))]
#[test]
fn a_terminal_gets_colours_unless_no_color_is_set() {
    let coloured = demo_on_a_terminal(&[], &[]);
    assert!(has_red_card_in_colour(&coloured), "{coloured}");
    for env in [
        &[("NO_COLOR", "1")][..],
        &[("CLICOLOR", "0")],
        &[("TERM", "dumb")],
    ] {
        let text = demo_on_a_terminal(&[], env);
        assert!(!text.contains('\x1b'), "escape codes with {env:?}: {text}");
        assert!(text.contains('♥') || text.contains('♦'), "{env:?}: {text}");
    }
    let never = demo_on_a_terminal(&["--color", "never"], &[]);
    assert!(!never.contains('\x1b') && !never.contains('♥'), "{never}");
    let always = demo_on_a_terminal(&["--color", "always"], &[("NO_COLOR", "1")]);
    assert!(has_red_card_in_colour(&always), "{always}");
}

// `demo --server` plays on a running server instead of one in this process: the game it
// shows is on that server, played to the end of its first deal.
#[test]
fn demo_plays_on_the_server_it_is_given() {
    let rt = runtime();
    let addr = server(&rt);
    let o = canasta(&[
        "demo",
        "--server",
        &addr,
        "--delay-ms",
        "0",
        "--color",
        "never",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.contains(&format!("on the server at {addr}")),
        "{text}"
    );
    assert!(text.contains("deal 1 ends"), "{text}");
    let game = first
        .split_once("play game ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .expect("the game's id");
    let summary = rt.block_on(async {
        let mut client = CanastaServiceClient::connect(format!("http://{addr}"))
            .await
            .unwrap();
        client
            .get_game(v1::GetGameRequest {
                game_id: game.to_string(),
            })
            .await
            .expect("the game is on the server given")
            .into_inner()
            .game
            .unwrap()
    });
    assert_eq!(summary.seats.iter().filter(|s| s.occupied).count(), 4);
}

// A `canasta` built without the feature `local` has no server to run in this process: the
// commands that would run one say so, and what to do instead, and start nothing. (Run by
// `cargo test -p canasta-cli --no-default-features --test cli`, as .ci/run does.)
#[test]
#[cfg(not(feature = "local"))]
fn without_the_local_feature_in_process_servers_are_refused_with_what_to_do() {
    for args in [
        &["play", "--local"][..],
        &["demo"],
        &["loadtest", "--games", "1", "--duration", "1s"],
        &["loadtest", "--idle-games", "1"],
    ] {
        let o = canasta(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("built without an in-process server") && err.contains("--server ADDR"),
            "{args:?}: {err}"
        );
    }
    // The commands that talk to a server work as in any build.
    let rt = runtime();
    let addr = server(&rt);
    let o = canasta(&["games", "--server", &addr]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
#[cfg(feature = "local")]
fn loadtest_reports_consistent_counts() {
    let o = canasta(&[
        "loadtest",
        "--games",
        "4",
        "--duration",
        "2s",
        "--bots",
        "random",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["server"], "in-process sqlite");
    assert_eq!(r["concurrent_games"], 4);
    let actions = r["actions"].as_u64().unwrap();
    assert!(actions > 0, "{r}");
    assert!(r["games_started"].as_u64().unwrap() >= 4, "{r}");
    assert!(r["games_finished"].as_u64().unwrap() <= r["games_started"].as_u64().unwrap());
    assert_eq!(r["errors"], serde_json::json!({}), "{r}");
    let l = &r["latency_us"];
    // An action's event and its acknowledgement come on different paths, either first: when
    // the time runs out, each game may have one action whose event came and whose
    // acknowledgement did not, or the other way round.
    let count = l["count"].as_u64().unwrap();
    assert!(count > 0 && count.abs_diff(actions) <= 4, "{r}");
    let p = |k: &str| l[k].as_u64().unwrap();
    assert!(
        p("p50") <= p("p90") && p("p90") <= p("p99") && p("p99") <= p("max"),
        "{r}"
    );
    assert!(r["memory"]["vm_rss_kib"].as_u64().unwrap() > 0, "{r}");
    // Server and bots in this process: its CPU per action, and no separate server figure.
    assert!(
        r["cpu"]["this_process_us_per_action"].as_f64().unwrap() > 0.0,
        "{r}"
    );
    assert!(r["cpu"]["server_us_per_action"].is_null(), "{r}");
}

// Against a server in a process of its own, given its pid: the server's memory, and the CPU
// per action of the server and of the load generator apart.
#[test]
#[cfg(feature = "local")]
fn loadtest_reads_the_cpu_and_memory_of_a_server_of_its_own() {
    let bin = server_binary();
    let dir = temp("loadtest-pid");
    let unlimited = [
        "--requests-per-second",
        "1000000000",
        "--address-requests-per-second",
        "1000000000",
    ];
    let server = ServerProcess::start_with(
        &bin,
        &dir.path().join("games.db"),
        "127.0.0.1:0",
        &unlimited,
    );
    let pid = server.child.id().to_string();
    let o = canasta(&[
        "loadtest",
        "--server",
        &server.addr,
        "--server-pid",
        &pid,
        "--games",
        "2",
        "--duration",
        "1s",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["server"], server.addr.as_str());
    assert!(r["actions"].as_u64().unwrap() > 0, "{r}");
    assert_eq!(r["errors"], serde_json::json!({}), "{r}");
    assert!(r["memory"]["vm_rss_kib"].as_u64().unwrap() > 0, "{r}");
    // Both processes' times are read (null if a /proc file could not be). They count in clock
    // ticks of 10 ms, so a process starved of the CPU by a loaded machine may show 0.
    let cpu = &r["cpu"];
    assert!(cpu["server_us_per_action"].as_f64().unwrap() >= 0.0, "{r}");
    assert!(
        cpu["this_process_us_per_action"].as_f64().unwrap() >= 0.0,
        "{r}"
    );
    drop(server);
}

#[test]
#[cfg(feature = "local")]
fn loadtest_measures_idle_games_and_stays_on_loopback() {
    let o = canasta(&["loadtest", "--idle-games", "200", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["idle_games"], 200);
    assert_eq!(r["players"], 4);
    let before = r["rss_before_kib"].as_u64().unwrap();
    let after = r["rss_after_kib"].as_u64().unwrap();
    assert_eq!(
        r["bytes_per_game"].as_u64().unwrap(),
        after.saturating_sub(before) * 1024 / 200
    );
    let o = canasta(&[
        "loadtest",
        "--server",
        "192.0.2.1:50051",
        "--duration",
        "1s",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a loopback address"));
    // Out of range is bad usage (the table of bad usages checks the message).
    let o = canasta(&["loadtest", "--games", "0"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A gRPC server on a free loopback port that serves none of the Canasta methods: every call
/// is answered UNIMPLEMENTED, as by another service, or a proxy in front of none.
fn server_without_canasta(rt: &tokio::runtime::Runtime) -> String {
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
        tokio::spawn(
            tonic::transport::Server::builder()
                .add_routes(tonic::service::Routes::default())
                .serve_with_incoming(incoming),
        );
        addr
    })
}

// A bot sent to a server that does not serve the Canasta service gives up at once and says so:
// asking again cannot help.
#[test]
fn a_bot_sent_to_a_server_without_the_canasta_service_stops_at_once() {
    let rt = runtime();
    let addr = server_without_canasta(&rt);
    let with_token: &[&str] = &["--token", "t1"];
    let with_token_unary: &[&str] = &["--token", "t1", "--unary"];
    for flags in [&[][..], &["--unary"][..], with_token, with_token_unary] {
        let mut args = vec!["bot", "--server", &addr, "--game", "g1"];
        args.extend_from_slice(flags);
        let out = finish_within(spawn(&args), Duration::from_secs(10), "the bot");
        assert!(!out.status.success(), "{flags:?}");
        let err = stderr(&out);
        assert!(
            err.contains("does not serve this call of the Canasta service (Unimplemented")
                && err.contains("a canasta-server of this version"),
            "{flags:?}: {err}"
        );
    }
}

/// A client of the server at `addr`.
async fn client_of(addr: &str) -> CanastaServiceClient<tonic::transport::Channel> {
    CanastaServiceClient::connect(format!("http://{addr}"))
        .await
        .unwrap()
}

/// Takes `seat` of `game` with this display name; returns the token.
fn join(rt: &tokio::runtime::Runtime, addr: &str, game: &str, seat: u32, name: &str) -> String {
    rt.block_on(async {
        client_of(addr)
            .await
            .join_game(v1::JoinGameRequest {
                game_id: game.to_string(),
                seat: Some(seat),
                display_name: name.to_string(),
            })
            .await
            .unwrap()
            .into_inner()
            .token
    })
}

/// The server's summary of a game.
fn summary(rt: &tokio::runtime::Runtime, addr: &str, game: &str) -> v1::GameSummary {
    rt.block_on(async {
        client_of(addr)
            .await
            .get_game(v1::GetGameRequest {
                game_id: game.to_string(),
            })
            .await
            .unwrap()
            .into_inner()
            .game
            .unwrap()
    })
}

/// `canasta games ARGS --json` against `addr`: the games listed.
fn games_json(addr: &str, args: &[&str]) -> Vec<serde_json::Value> {
    let mut all = vec!["games", "--server", addr, "--json"];
    all.extend_from_slice(args);
    let o = canasta(&all);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    let listed: serde_json::Value = serde_json::from_str(&stdout(&o))
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {}", stdout(&o)));
    listed.as_array().expect("one JSON array").clone()
}

fn ids(games: &[serde_json::Value]) -> Vec<&str> {
    games
        .iter()
        .map(|g| g["game_id"].as_str().unwrap())
        .collect()
}

// `canasta games`: every game of the server, newest first, as JSON (one array) and as a
// table; filtered by status; at most --limit; ListGames' pages followed to the end. The
// finished game comes from `canasta create --bots`, whose bots play both seats to the end.
#[test]
fn games_lists_filters_and_pages_through_the_servers_games() {
    let rt = runtime();
    let addr = server(&rt);
    let o = canasta(&["games", "--server", &addr]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("no games"), "{}", stdout(&o));
    let o = canasta(&[
        "create",
        "--server",
        &addr,
        "--players",
        "2",
        "--option",
        "target_score=500",
        "--seed",
        "2",
        "--bots",
        "greedy,random",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the match is over: side "),
        "{}",
        stderr(&o)
    );
    let created: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let finished = created["game_id"].as_str().unwrap().to_string();
    let result = match_result(&rt, &addr, &finished);
    // A game in play (both seats taken, nobody acts) and a waiting one (one seat of four).
    let playing = create_game(&rt, &addr, 2, &[], 4);
    join(&rt, &addr, &playing, 0, "ann");
    join(&rt, &addr, &playing, 1, "bob");
    let waiting = create_game(&rt, &addr, 4, &[("target_score", "1500")], 5);
    join(&rt, &addr, &waiting, 2, "cy");

    let all = games_json(&addr, &[]);
    assert_eq!(ids(&all), [&waiting, &playing, &finished]);
    let status: Vec<&str> = all.iter().map(|g| g["status"].as_str().unwrap()).collect();
    assert_eq!(status, ["waiting", "playing", "finished"]);
    let w = &all[0];
    assert_eq!(
        (w["preset"].as_str(), w["players"].as_u64()),
        (Some("official"), Some(4))
    );
    assert_eq!(w["options"]["target_score"], "1500");
    assert_eq!(
        (w["seats_taken"].as_u64(), w["seats_free"].as_u64()),
        (Some(1), Some(3))
    );
    assert_eq!(w["seats"][2]["name"], "cy");
    assert!(
        w["seats"][0]["name"].is_null() && w["result"].is_null(),
        "{w}"
    );
    assert!(w["created"].as_str().unwrap().ends_with('Z'), "{w}");
    assert_eq!(all[1]["seats"][1]["name"], "bob");
    let f = &all[2];
    assert_eq!(f["result"]["totals"], serde_json::json!(result.totals));
    assert_eq!(
        f["result"]["winner_side"],
        serde_json::json!(result.winner_side)
    );
    assert_eq!(f["result"]["end"], "target");
    assert_eq!(f["options"]["target_score"], "500");

    assert_eq!(
        ids(&games_json(&addr, &["--status", "playing"])),
        [&playing]
    );
    assert_eq!(
        ids(&games_json(&addr, &["--status", "waiting"])),
        [&waiting]
    );
    assert_eq!(
        ids(&games_json(&addr, &["--status", "finished"])),
        [&finished]
    );
    assert_eq!(
        ids(&games_json(&addr, &["--limit", "2"])),
        [&waiting, &playing]
    );

    // The table: a header, a line per game, the seats' holders and the free seats, the
    // result of the finished game.
    let o = canasta(&["games", "--server", &addr]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(
        lines[0].starts_with("GAME") && lines[0].contains("STATUS"),
        "{table}"
    );
    assert!(lines[1].starts_with(waiting.as_str()), "{table}");
    for needle in [
        "waiting",
        "official 4p target_score=1500",
        "1/4",
        "cy; free: 0, 1, 3",
    ] {
        assert!(lines[1].contains(needle), "{needle}: {table}");
    }
    assert!(
        lines[2].contains("ann, bob") && lines[2].contains("2/2"),
        "{table}"
    );
    let totals = result
        .totals
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let won = format!("side {} won ({totals})", result.winner_side.unwrap());
    assert!(lines[3].contains(&won), "{won}: {table}");
    let o = canasta(&["games", "--server", &addr, "--status", "finished"]);
    assert_eq!(stdout(&o).lines().count(), 2, "{}", stdout(&o));

    // More games than ListGames' largest page (500): every one is listed, once.
    rt.block_on(async {
        let mut client = client_of(&addr).await;
        for seed in 0..500 {
            client
                .create_game(v1::CreateGameRequest {
                    rules: Some(v1::RuleSet {
                        preset: v1::Preset::Official as i32,
                        player_count: 2,
                        options: Default::default(),
                    }),
                    seed: Some(seed),
                    ..Default::default()
                })
                .await
                .unwrap();
        }
    });
    let all = games_json(&addr, &[]);
    assert_eq!(all.len(), 503);
    let unique: std::collections::HashSet<&str> = ids(&all).into_iter().collect();
    assert_eq!(unique.len(), 503);
    assert_eq!(ids(&all)[500..], [&waiting, &playing, &finished]);
    assert_eq!(games_json(&addr, &["--limit", "501"]).len(), 501);
    assert_eq!(games_json(&addr, &["--status", "waiting"]).len(), 501);
}

// `canasta create --house-bot` seats the server's own bots: they hold their seats at once
// (the summary names them, as `games --json` does), the command returns, and the server plays
// them: with a bot in every seat, the match plays to its end by itself.
#[test]
fn create_seats_the_servers_bots() {
    let rt = runtime();
    let addr = server(&rt);
    let o = canasta(&[
        "create",
        "--server",
        &addr,
        "--house-bot",
        "1=greedy",
        "--house-bot",
        "3=search:10",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(stdout(&o).trim()).expect("JSON");
    let bots: Vec<&serde_json::Value> = j["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| &s["bot"])
        .collect();
    assert_eq!(
        bots,
        [
            &serde_json::Value::Null,
            &serde_json::json!("greedy"),
            &serde_json::Value::Null,
            &serde_json::json!("search:10")
        ]
    );
    assert_eq!(j["seats_taken"], 2);
    assert_eq!(j["status"], "waiting");
    let o = canasta(&[
        "create",
        "--server",
        &addr,
        "--players",
        "2",
        "--seed",
        "5",
        "--house-bot",
        "0=greedy",
        "--house-bot",
        "1=random",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let game = stdout(&o).trim().to_string();
    // Watched to the end: the server plays the whole match.
    let o = canasta(&["watch", "--server", &addr, &game, "--from-start", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("\"result\""), "{}", stdout(&o));
    assert_eq!(
        summary(&rt, &addr, &game).status,
        v1::GameStatus::Finished as i32
    );
    // The server refuses a budget above its caps, and the command says why.
    let o = canasta(&["create", "--server", &addr, "--house-bot", "1=search:5s"]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("BOT_BUDGET_TOO_HIGH") || stderr(&o).contains("--max-bot-think-ms"),
        "{}",
        stderr(&o)
    );
}

// `canasta create` makes the game its flags describe: the rules and options (as `match` reads
// them), the time control, the start scores, the seed (kept in the finished game's record).
#[test]
fn create_makes_the_game_its_flags_describe() {
    let rt = runtime();
    let addr = server(&rt);
    let o = canasta(&[
        "create",
        "--server",
        &addr,
        "--players",
        "2",
        "--option",
        "target_score=700",
        "--seed",
        "42",
        "--move-budget",
        "30s",
        "--timeout-policy",
        "forfeit",
        "--start-scores",
        "100,-50",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Standard output holds the id alone, for scripts.
    let game = stdout(&o).trim().to_string();
    assert_eq!(stdout(&o), format!("{game}\n"));
    assert!(
        stderr(&o).contains(&format!("canasta play --game {game}")),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("its creator token is ") && stderr(&o).contains("a secret"),
        "{}",
        stderr(&o)
    );
    let g = summary(&rt, &addr, &game);
    let rules = g.rules.clone().unwrap();
    assert_eq!(rules.preset, v1::Preset::Official as i32);
    assert_eq!(rules.player_count, 2);
    assert_eq!(
        rules.options.get("target_score").map(String::as_str),
        Some("700")
    );
    assert_eq!(g.status, v1::GameStatus::Waiting as i32);
    let tc = g.time_control.unwrap();
    assert_eq!(tc.move_budget_ms, 30_000);
    assert_eq!(tc.policy, v1::TimeoutPolicy::Forfeit as i32);
    let scores: Vec<i32> = rt.block_on(async {
        let view = client_of(&addr)
            .await
            .get_view(v1::GetViewRequest {
                game_id: game.clone(),
                include_actions: false,
            })
            .await
            .unwrap()
            .into_inner()
            .view
            .unwrap();
        view.sides.iter().map(|s| s.score).collect()
    });
    assert_eq!(scores, [100, -50]);

    // --json: the whole summary, as `games --json` lists it.
    let o = canasta(&[
        "create",
        "--server",
        &addr,
        "--preset",
        "samba",
        "--players",
        "3",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(j["preset"], "samba");
    assert_eq!(
        (j["players"].as_u64(), j["seats_free"].as_u64()),
        (Some(3), Some(3))
    );
    assert_eq!(j["status"], "waiting");
    let listed = games_json(&addr, &["--limit", "1"]);
    let creator_token = j["creator_token"].as_str().unwrap().to_string();
    let mut without_token = j.clone();
    without_token
        .as_object_mut()
        .unwrap()
        .remove("creator_token");
    assert_eq!(listed[0], without_token);
    // The creator token printed is the one that cancels the game.
    let samba = j["game_id"].as_str().unwrap();
    let o = canasta(&[
        "cancel",
        samba,
        "--server",
        &addr,
        "--token",
        &creator_token,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cancelled = summary(&rt, &addr, samba);
    assert_eq!(cancelled.status, v1::GameStatus::Finished as i32);
    assert_eq!(
        cancelled.result.unwrap().end,
        v1::MatchEndKind::Cancelled as i32
    );

    // Two bots play the first game to the end: its record keeps the seed and start scores.
    let results = run_bots(&addr, &game, &[&["--seat", "0"], &["--seat", "1"]]);
    assert_results_agree(&results, &match_result(&rt, &addr, &game));
    let record = rt.block_on(async {
        client_of(&addr)
            .await
            .export_game(v1::ExportGameRequest {
                game_id: game.clone(),
            })
            .await
            .unwrap()
            .into_inner()
            .record
            .unwrap()
    });
    assert_eq!(record.seed, 42);
    assert_eq!(record.start_scores, [100, -50]);
}

/// Reads a child's standard output line by line on a thread of its own.
fn lines_of(child: &mut Child) -> std::sync::mpsc::Receiver<String> {
    lines_from(child.stdout.take().expect("piped"))
}

/// Reads a stream line by line, to its end, on a thread of its own (so that the writer never
/// blocks on a full pipe, even once nobody looks at the lines).
fn lines_from(stream: impl Read + Send + 'static) -> std::sync::mpsc::Receiver<String> {
    let out = BufReader::new(stream);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in out.lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(line);
        }
    });
    rx
}

// `canasta watch` follows a game of two `canasta bot`s to the end of the match, through two
// kills and restarts of the server (same database, same port; the first while the game waits
// for its second player, the second in the middle of the match): it resumes from the last
// event it showed, so every event comes once, in order (--json, from the first event), and the
// text view ends with the result.
#[test]
fn watch_follows_a_game_of_bots_to_the_end_across_a_server_restart() {
    let bin = server_binary();
    let dir = temp("watch");
    let db = dir.path().join("games.db");
    let server = ServerProcess::start(&bin, &db, "127.0.0.1:0");
    let addr = server.addr.clone();
    let o = canasta(&["create", "--server", &addr, "--players", "2", "--seed", "8"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let game = stdout(&o).trim().to_string();
    let mut text_watch = spawn(&[
        "watch",
        &game,
        "--server",
        &addr,
        "--color",
        "never",
        "--reconnect-secs",
        "600",
    ]);
    let text = lines_of(&mut text_watch);
    let first = text
        .recv_timeout(Duration::from_secs(60))
        .expect("the watch starts");
    assert_eq!(
        first,
        format!("watching game {game} as a spectator: waiting")
    );
    // Its errors go to a file, to say why if it stops early. The clients are patient: how
    // long a loaded machine takes to restart the server is not what this test is about.
    let watch_errors = dir.path().join("watch.err");
    let mut json_watch = Command::new(BIN)
        .args(["watch", &game, "--server", &addr, "--from-start", "--json"])
        .args(["--reconnect-secs", "600"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&watch_errors).unwrap())
        .spawn()
        .unwrap();
    let events = lines_of(&mut json_watch);
    let parse = |line: String| -> serde_json::Value {
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    };
    let next = |what: &str| {
        let line = events
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_else(|_| {
                let why = std::fs::read_to_string(&watch_errors).unwrap_or_default();
                panic!("the watch does not show {what}: {why}")
            });
        parse(line)
    };
    let bot = |seat: &str| {
        spawn(&[
            "bot",
            "--server",
            &addr,
            "--game",
            &game,
            "--seat",
            seat,
            "--reconnect-secs",
            "600",
        ])
    };
    // The first bot joins; then the server goes down while the game waits for the second, so
    // the match cannot be over yet: the watch must come back to see it.
    let mut bots = vec![bot("0")];
    let mut seen = vec![next("the first bot joining")];
    assert_eq!(seen[0]["kind"], "seat_joined");
    // Not before the bot has its seat's token: the join's event is out as soon as the join is
    // stored, its answer a moment later, and a join whose answer is lost is a seat nobody
    // holds the token of (the bot says so and stops).
    let said = lines_from(bots[0].stderr.take().expect("piped"));
    let first = said
        .recv_timeout(Duration::from_secs(120))
        .expect("the first bot says which seat it plays");
    assert!(first.starts_with("greedy plays seat 0 of game"), "{first}");
    server.kill();
    let server = ServerProcess::start(&bin, &db, &addr);
    bots.push(bot("1"));
    // Once more in the middle of the match (if the bots have not finished it by then).
    while seen.len() < 40 {
        let e = next("the bots' moves");
        let over = e["kind"] == "match_ended";
        seen.push(e);
        if over {
            break;
        }
    }
    server.kill();
    let server = ServerProcess::start(&bin, &db, &addr);
    seen.extend(events.iter().map(parse));
    let o = finish_within(json_watch, Duration::from_secs(300), "canasta watch --json");
    assert!(
        o.status.success(),
        "{}",
        std::fs::read_to_string(&watch_errors).unwrap_or_default()
    );
    for (i, e) in seen.iter().enumerate() {
        assert_eq!(e["seq"], i as u64 + 1, "every event once, in order: {e}");
        assert_eq!(e["game_id"], game.as_str());
    }
    let last = seen.last().unwrap();
    assert_eq!(last["kind"], "match_ended");
    let result = match_result(&runtime(), &server.addr, &game);
    assert_eq!(last["result"]["totals"], serde_json::json!(result.totals));
    assert_eq!(
        last["result"]["winner_side"],
        serde_json::json!(result.winner_side)
    );
    assert_eq!(seen[0]["kind"], "seat_joined");
    assert!(
        seen.iter()
            .any(|e| e["kind"] == "deal_ended" && e["score"]["sides"].is_array())
    );

    let o = finish_within(text_watch, Duration::from_secs(300), "canasta watch");
    assert!(o.status.success(), "{}", stderr(&o));
    let shown: Vec<String> = text.iter().collect();
    let numbers: Vec<u64> = shown
        .iter()
        .filter_map(|l| l.strip_prefix('#')?.split_whitespace().next()?.parse().ok())
        .collect();
    assert!(numbers.len() > 40, "{shown:?}");
    assert!(
        numbers.windows(2).all(|w| w[0] < w[1]),
        "each event once: {numbers:?}"
    );
    let end = shown.last().unwrap();
    assert!(end.contains("the match is over: side"), "{shown:?}");
    for bot in bots {
        let o = finish_within(bot, Duration::from_secs(300), "canasta bot");
        assert!(o.status.success(), "{}", stderr(&o));
    }
    drop(server);
}

/// `canasta ARGS` (with these environment variables) as a person at the terminal: each line
/// it prints goes to `answer`, whose replies are typed in. Its lines and whether it succeeded,
/// once it ends.
fn play_session(
    args: &[&str],
    env: &[(&str, &str)],
    mut answer: impl FnMut(&str) -> Vec<String>,
) -> (Vec<String>, Output) {
    let mut child = Command::new(BIN)
        .args(args)
        .env_remove("CANASTA_TOKEN")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let lines = lines_of(&mut child);
    let mut seen = Vec::new();
    while let Ok(line) = lines.recv_timeout(Duration::from_secs(120)) {
        for reply in answer(&line) {
            writeln!(stdin, "{reply}").unwrap();
        }
        seen.push(line);
    }
    drop(stdin);
    let o = finish_within(child, Duration::from_secs(60), "canasta play");
    (seen, o)
}

/// The text after `prefix` on the first line that holds it.
fn after<'a>(lines: &'a [String], prefix: &str) -> &'a str {
    lines
        .iter()
        .find_map(|l| l.split_once(prefix).map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("no {prefix:?} in {lines:#?}"))
}

// `canasta play` on a server shows the seat's token when it joins (and keeps it in a file if
// asked); `quit` keeps the seat, gives up the seats of the bots it started (the game would wait
// for them for ever) and prints the command that comes back; that very command takes the seat
// again, seats the bots again, shows the table and plays on. A wrong token is refused;
// CANASTA_TOKEN is read as --token; `leave` gives the seat up.
#[test]
fn play_shows_its_token_and_comes_back_to_the_seat_after_quit() {
    let rt = runtime();
    let addr = server(&rt);
    let dir = temp("token");
    let file = dir.path().join("seat.token");
    let _ = std::fs::remove_file(&file);
    let (lines, o) = play_session(
        &[
            "play",
            "--server",
            &addr,
            "--players",
            "2",
            "--seed",
            "3",
            "--color",
            "never",
            "--token-file",
            file.to_str().unwrap(),
        ],
        &[],
        |line| {
            if line.contains("your turn:") {
                vec!["quit".into()]
            } else {
                vec![]
            }
        },
    );
    assert!(o.status.success(), "{}\n{lines:#?}", stderr(&o));
    let game = after(&lines, "you are seat 0 of game ").to_string();
    let token = after(&lines, "your seat's token is ")
        .split_once(' ')
        .unwrap()
        .0
        .to_string();
    assert!(
        after(&lines, "your seat's token is ").contains("a secret"),
        "{lines:#?}"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), token);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "the token file is the owner's only");
    }
    let back = after(&lines, "come back with: ").to_string();
    assert_eq!(
        back,
        format!("canasta play --server {addr} --game {game} --token {token} --bot greedy")
    );
    assert!(after(&lines, "you keep seat 0 of game ").contains("no time control"));
    assert!(after(&lines, "the greedy bots stop with this client").contains("gave up seat 1"));
    // The server: the seat kept, the bot's seat free, the game in play.
    let g = summary(&rt, &addr, &game);
    assert_eq!(g.status, v1::GameStatus::Playing as i32);
    assert!(g.seats[0].occupied && !g.seats[1].occupied, "{g:?}");

    // The printed command, as it is, plays on: one whole deal.
    let mut args: Vec<&str> = back.split_whitespace().skip(1).collect();
    args.extend(["--color", "never", "--deals", "1"]);
    let mut turns = 0;
    let (lines, o) = play_session(&args, &[], |line| {
        if line.contains("your turn:") {
            turns += 1;
            vec!["auto".into()]
        } else {
            vec![]
        }
    });
    assert!(o.status.success(), "{}\n{lines:#?}", stderr(&o));
    let text = lines.join("\n");
    assert!(
        text.contains(&format!("you are back at seat 0 of game {game}")),
        "{text}"
    );
    assert!(text.contains("greedy bot (seat 1) joined"), "{text}");
    assert!(text.contains("your hand: "), "the table: {text}");
    assert!(turns >= 2, "{text}");
    assert!(text.contains("you discard "), "the seat acts: {text}");
    assert!(text.contains("deal 1 ends"), "{text}");
    assert!(text.contains("stopping after 1 deal(s)"), "{text}");
    assert_eq!(after(&lines, "come back with: "), back);

    // A token that holds no seat of the game.
    let o = canasta(&[
        "play", "--server", &addr, "--game", &game, "--token", "0123abcd",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!(
            "cannot come back to game {game} with the token of --token"
        )),
        "{}",
        stderr(&o)
    );

    // CANASTA_TOKEN, and `leave`: the seat is given up, and the token plays it no more.
    let (lines, o) = play_session(
        &[
            "play", "--server", &addr, "--game", &game, "--bot", "greedy", "--color", "never",
        ],
        &[("CANASTA_TOKEN", &token)],
        |line| {
            if line.contains("your turn:") {
                vec!["leave".into()]
            } else {
                vec![]
            }
        },
    );
    assert!(o.status.success(), "{}\n{lines:#?}", stderr(&o));
    assert!(after(&lines, "you are back at seat 0 of game ").starts_with(&game));
    assert!(after(&lines, "you left seat 0 of game ").contains("free for anyone"));
    assert!(
        after(&lines, "every seat is empty now").contains("abandons the match"),
        "{lines:#?}"
    );
    let g = summary(&rt, &addr, &game);
    assert!(!g.seats[0].occupied && !g.seats[1].occupied, "{g:?}");
    let o = canasta(&[
        "play", "--server", &addr, "--game", &game, "--token", &token,
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

// A player who decides while the game moves on (here a player takes the free seat between the
// prompt and the person's answer) is refused with STALE_SEQ: `canasta play` tells it, reads what
// happened and asks again on the next prompt, instead of asking for ever at a seq that is gone.
#[test]
fn play_asks_again_when_the_game_moved_on_while_the_person_decided() {
    let rt = runtime();
    let addr = server(&rt);
    let (lines, o) = play_session(
        &[
            "play",
            "--server",
            &addr,
            "--players",
            "2",
            "--seed",
            "5",
            "--color",
            "never",
        ],
        &[],
        |line| {
            if line.contains("your turn:") {
                vec!["quit".into()]
            } else {
                vec![]
            }
        },
    );
    assert!(o.status.success(), "{}\n{lines:#?}", stderr(&o));
    let game = after(&lines, "you are seat 0 of game ").to_string();
    let token = after(&lines, "your seat's token is ")
        .split_once(' ')
        .unwrap()
        .0
        .to_string();

    // Back without --bot: seat 1 stays free, and seat 0 is prompted at the game's seq.
    let mut turns = 0;
    let (lines, o) = play_session(
        &[
            "play", "--server", &addr, "--game", &game, "--token", &token, "--color", "never",
        ],
        &[],
        |line| {
            if !line.contains("your turn:") {
                return vec![];
            }
            turns += 1;
            match turns {
                // The game moves on before the answer arrives.
                1 => {
                    join(&rt, &addr, &game, 1, "latecomer");
                    vec!["auto".into()]
                }
                2 => vec!["auto".into()],
                _ => vec!["quit".into()],
            }
        },
    );
    assert!(o.status.success(), "{}\n{lines:#?}", stderr(&o));
    let text = lines.join("\n");
    assert!(text.contains("seat 1 is free"), "{text}");
    assert!(text.contains("(STALE_SEQ)"), "the refusal is told: {text}");
    assert!(text.contains("latecomer"), "what happened is told: {text}");
    assert!(turns >= 2, "asked again after the refusal: {text}");
    // The second answer was accepted: the seat drew (or took the pile) and was asked again.
    assert!(
        turns >= 3,
        "the action after the refusal was played: {text}"
    );
    let g = summary(&rt, &addr, &game);
    assert_eq!(g.status, v1::GameStatus::Playing as i32);
    assert!(g.seats[0].occupied && g.seats[1].occupied, "{g:?}");
}

// `canasta bot --seek` loses no game when its server is killed mid-game: two players seek
// two-player games, two each, one after the other; the server is killed (SIGKILL) during the
// first game and started again on the same port and database. Each bot resumes its game and
// its event stream, seeks again, and reports both games; the server agrees on the first.
#[test]
fn seeking_bots_lose_no_game_when_the_server_is_killed_and_restarted() {
    let bin = server_binary();
    let dir = temp("lobby-restart");
    let db = dir.path().join("games.db");
    let server = ServerProcess::start(&bin, &db, "127.0.0.1:0");
    let addr = server.addr.clone();
    let keys: Vec<PathBuf> = ["kept", "lasting"]
        .iter()
        .map(|name| {
            let file = dir.path().join(format!("{name}.key"));
            let o = canasta(&[
                "register",
                name,
                "--server",
                &addr,
                "--key-file",
                file.to_str().unwrap(),
            ]);
            assert!(o.status.success(), "{}", stderr(&o));
            file
        })
        .collect();
    let bots: Vec<Child> = keys
        .iter()
        .map(|file| {
            spawn(&[
                "bot",
                "--seek",
                "--server",
                &addr,
                "--players",
                "2",
                "--games",
                "2",
                "--json",
                "--key-file",
                file.to_str().unwrap(),
            ])
        })
        .collect();
    // The first player's first game, well under way.
    let key = std::fs::read_to_string(&keys[0])
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("key ").map(str::to_string))
        .unwrap();
    let rt = runtime();
    let first = rt.block_on(async {
        let socket = addr.parse().unwrap();
        let mut lobby = canasta_tests::lobby::lobby(socket).await;
        let mut events = canasta_tests::lobby::watch_player(&mut lobby, &key, 0).await;
        let started =
            canasta_tests::lobby::events_until(&mut events, 0, canasta_tests::lobby::is_started)
                .await;
        let Some(v1::player_event::Kind::GameStarted(g)) = &started.last().unwrap().kind else {
            unreachable!()
        };
        let mut client = canasta_tests::connect(socket).await;
        let mut stream = client
            .watch_game(v1::WatchGameRequest {
                game_id: g.game_id.clone(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        loop {
            let message = stream.next().await.expect("the stream stays open").unwrap();
            if let Some(v1::watch_game_response::Kind::Event(e)) = message.kind {
                assert!(
                    !matches!(e.kind, Some(v1::game_event::Kind::MatchEnded(_))),
                    "the match ended before the server was killed"
                );
                if e.seq >= 40 {
                    return g.game_id.clone();
                }
            }
        }
    });
    server.kill();
    let server = ServerProcess::start(&bin, &db, &addr);
    for (i, bot) in bots.into_iter().enumerate() {
        let o = finish_within(bot, Duration::from_secs(300), "canasta bot --seek");
        assert!(o.status.success(), "player {i}: {}", stderr(&o));
        let lines: Vec<serde_json::Value> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 2, "two games: {}", stdout(&o));
        let killed = lines
            .iter()
            .find(|l| l["game_id"] == first.as_str())
            .unwrap_or_else(|| panic!("the game under way is reported: {lines:?}"));
        let result = match_result(&rt, &server.addr, &first);
        assert!(result.finished);
        assert_eq!(killed["totals"], serde_json::json!(result.totals));
        assert!(killed["rating"]["after"].is_object(), "rated: {killed}");
    }
}
