//! `canasta` driven as a process: matches in-process and against a real server on
//! 127.0.0.1:0, bots completing a game, export then replay, and `play` through standard input.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;

const BIN: &str = env!("CARGO_BIN_EXE_canasta");

fn canasta(args: &[&str]) -> std::process::Output {
    Command::new(BIN).args(args).output().expect("canasta runs")
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A server in this process on a free loopback port; stopped when the runtime ends.
fn server(rt: &tokio::runtime::Runtime) -> String {
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap().to_string();
        tokio::spawn(canasta_server::run(
            canasta_server::Config::for_tests(),
            listener,
            std::future::pending(),
        ));
        addr
    })
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("canasta-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_subcommand_has_help_and_bad_usage_exits_2() {
    for sub in [
        &[][..],
        &["play"],
        &["bot"],
        &["match"],
        &["export"],
        &["replay"],
        &["demo"],
        &["loadtest"],
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
        "--game is required"
    );
}

#[test]
fn failures_exit_1_with_a_message() {
    let o = canasta(&["match", "--bots", "nobody", "--matches", "1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("there is no bot"));
    let o = canasta(&["export", "abc", "--server", "127.0.0.1:1"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot reach the server"));
    let o = canasta(&["replay", "/nonexistent/record.json"]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn match_in_process_writes_json_lines_and_a_summary() {
    let dir = temp("match");
    let lines = dir.join("m.jsonl");
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
    // Duplicate: each seed twice, the sides swapped.
    let o = canasta(&[
        "match",
        "--bots",
        "greedy,random",
        "--matches",
        "3",
        "--duplicate",
        "--jsonl",
        "-",
        "--quiet",
    ]);
    assert!(o.status.success());
    let rows: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 6);
    assert_eq!(rows.iter().filter(|r| r["swapped"] == true).count(), 3);
    std::fs::remove_dir_all(&dir).unwrap();
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

#[test]
fn bots_play_a_game_to_the_end_then_export_and_replay_agree() {
    let rt = runtime();
    let addr = server(&rt);
    let game = rt.block_on(async {
        let mut client = CanastaServiceClient::connect(format!("http://{addr}"))
            .await
            .unwrap();
        client
            .create_game(v1::CreateGameRequest {
                rules: Some(v1::RuleSet {
                    preset: v1::Preset::Official as i32,
                    player_count: 2,
                    options: [("target_score".to_string(), "2000".to_string())].into(),
                }),
                seed: Some(12),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner()
            .game
            .unwrap()
            .game_id
    });
    let bots: Vec<_> = [("greedy", "0"), ("random", "1")]
        .iter()
        .map(|(bot, seat)| {
            Command::new(BIN)
                .args([
                    "bot", "--server", &addr, "--bot", bot, "--game", &game, "--seat", seat,
                    "--json",
                ])
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let results: Vec<serde_json::Value> = bots
        .into_iter()
        .map(|c| {
            let o = c.wait_with_output().unwrap();
            assert!(o.status.success());
            serde_json::from_str(stdout(&o).trim()).unwrap()
        })
        .collect();
    assert_eq!(results[0]["totals"], results[1]["totals"]);
    assert!(results[0]["winner_side"].is_u64());
    let dir = temp("export");
    let file = dir.join("game.json");
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
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
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
    let mut tried_nonsense = false;
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(30)) {
        seen.push(line.clone());
        if let Some(h) = line.strip_prefix("your hand: ") {
            hand = h.split_whitespace().map(str::to_string).collect();
        }
        let reply = if line.starts_with("your turn: draw") {
            Some(if tried_nonsense {
                "draw".to_string()
            } else {
                "fly away".to_string()
            })
        } else if line.starts_with("your turn: meld") {
            Some(format!("discard {}", hand.last().unwrap()))
        } else if line.starts_with("your turn: your partner") {
            Some("no".to_string())
        } else if line.ends_with("(type help)") || line.contains("is not an action") {
            tried_nonsense = true;
            Some("draw".to_string())
        } else {
            None
        };
        if let Some(r) = reply {
            writeln!(stdin, "{r}").unwrap();
        }
    }
    let status = child.wait().unwrap();
    let text = seen.join("\n");
    assert!(status.success(), "{text}");
    assert!(
        tried_nonsense,
        "the error for a bad command was shown:\n{text}"
    );
    assert!(text.contains("you (seat 0) draws"), "{text}");
    assert!(text.contains("you (seat 0) discards"), "{text}");
    assert!(text.contains("deal 1 ends"), "{text}");
    assert!(text.contains("stopping after 1 deal(s)"), "{text}");
}

#[test]
fn demo_shows_a_deal_and_its_score() {
    let o = canasta(&["demo", "--delay-ms", "0", "--color", "never"]);
    assert!(o.status.success());
    let text = stdout(&o);
    assert!(text.contains("the match begins"));
    assert!(text.contains("deal 1 ends"));
    assert!(text.contains("1 deal(s) played"));
}

#[test]
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
    // Every acknowledged action's event was seen, except those in flight when the time ran out.
    let count = l["count"].as_u64().unwrap();
    assert!(count > 0 && count <= actions, "{r}");
    let p = |k: &str| l[k].as_u64().unwrap();
    assert!(
        p("p50") <= p("p90") && p("p90") <= p("p99") && p("p99") <= p("max"),
        "{r}"
    );
    assert!(r["memory"]["vm_rss_kib"].as_u64().unwrap() > 0, "{r}");
}

#[test]
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
    let o = canasta(&["loadtest", "--games", "0"]);
    assert_eq!(o.status.code(), Some(1));
}
