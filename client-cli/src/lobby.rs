//! `canasta games` (the server's games, as a table or JSON) and `canasta create` (a new game,
//! perhaps with built-in bots in some seats), and the one JSON form of a game's summary they
//! share.

use std::collections::{BTreeMap, HashSet};

use anyhow::Context;
use canasta_proto::convert::{preset_from_wire, rules_to_wire};
use canasta_proto::v1;
use serde_json::{Value, json};

use crate::cli::{CreateArgs, GamesArgs, StatusFilter, TimeoutPolicy, seated_bots};
use crate::play::{Bots, seats_text};
use crate::remote::{self, RemoteError, limited};

/// The most games one ListGames page may hold (the server's ceiling).
const PAGE: usize = 500;

/// A wire enum value's name without its prefix, in lower case (`GAME_STATUS_WAITING` ->
/// `waiting`): the stable names of the JSON output, the same as the protocol's.
fn enum_name(name: &str, prefix: &str) -> String {
    name.strip_prefix(prefix)
        .unwrap_or(name)
        .to_ascii_lowercase()
}

/// A game status's name: waiting, playing, finished.
pub fn status_name(status: i32) -> String {
    match v1::GameStatus::try_from(status) {
        Ok(s) => enum_name(s.as_str_name(), "GAME_STATUS_"),
        Err(_) => format!("status {status}"),
    }
}

/// How a match ended: target, forfeit, abandoned …; `None` while it goes on.
pub(crate) fn end_name(end: i32) -> Option<String> {
    match v1::MatchEndKind::try_from(end) {
        Ok(v1::MatchEndKind::Unspecified) => None,
        Ok(k) => Some(enum_name(k.as_str_name(), "MATCH_END_KIND_")),
        Err(_) => Some(format!("end {end}")),
    }
}

/// The preset's name of a summary's rules.
fn preset_name(rules: &v1::RuleSet) -> String {
    preset_from_wire(rules.preset, "rules.preset")
        .map(|p| p.name().to_string())
        .unwrap_or_else(|_| format!("preset {}", rules.preset))
}

/// A time in milliseconds since the Unix epoch as UTC: `2026-11-25T21:49:03Z`.
pub fn utc(unix_ms: i64) -> String {
    let secs = unix_ms.div_euclid(1000);
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Days to a civil date (H. Hinnant's algorithm, proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// A game's summary as JSON, with stable field names: what `games --json` lists and `create
/// --json` prints.
pub fn summary_json(g: &v1::GameSummary) -> Value {
    let rules = g.rules.clone().unwrap_or_default();
    let options: BTreeMap<&String, &String> = rules.options.iter().collect();
    let taken = g.seats.iter().filter(|s| s.occupied).count();
    let seats: Vec<Value> = g
        .seats
        .iter()
        .map(|s| {
            json!({
                "seat": s.seat,
                "side": s.side,
                "occupied": s.occupied,
                "name": s.occupied.then_some(&s.display_name),
                // The server's built-in bot that plays the seat, if one does.
                "bot": (!s.bot.is_empty()).then_some(&s.bot),
            })
        })
        .collect();
    let time_control = g
        .time_control
        .as_ref()
        .filter(|t| t.move_budget_ms > 0)
        .map(|t| {
            json!({
                "move_budget_ms": t.move_budget_ms,
                "policy": v1::TimeoutPolicy::try_from(t.policy)
                    .map(|p| enum_name(p.as_str_name(), "TIMEOUT_POLICY_"))
                    .unwrap_or_else(|_| format!("policy {}", t.policy)),
            })
        });
    json!({
        "game_id": g.game_id,
        "status": status_name(g.status),
        "preset": preset_name(&rules),
        "players": rules.player_count,
        "options": options,
        "seats": seats,
        "seats_taken": taken,
        "seats_free": g.seats.len() - taken,
        "created_unix_ms": g.created_unix_ms,
        "created": utc(g.created_unix_ms),
        "seq": g.seq,
        "time_control": time_control,
        "result": g.result.as_ref().map(result_json),
    })
}

/// A match result as JSON.
pub fn result_json(r: &v1::MatchResult) -> Value {
    json!({
        "finished": r.finished,
        "winner_side": r.winner_side,
        "totals": r.totals,
        "end": end_name(r.end),
        "forfeited_side": r.forfeited_side,
    })
}

/// A match result as a person reads it: who won (or how it ended) and the totals by side.
pub fn result_text(r: &v1::MatchResult) -> String {
    let totals = r
        .totals
        .iter()
        .map(i32::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    if !r.finished {
        return format!("so far {totals}");
    }
    let how = match (r.winner_side, r.forfeited_side) {
        (Some(w), Some(f)) => format!("side {f} forfeited, side {w} won"),
        (Some(w), None) => format!("side {w} won"),
        (None, _) => crate::render::no_winner(r).to_string(),
    };
    format!("{how} ({totals})")
}

/// The rules of a summary in a few words: preset, players, options, time control.
fn rules_text(g: &v1::GameSummary) -> String {
    let rules = g.rules.clone().unwrap_or_default();
    let mut text = format!("{} {}p", preset_name(&rules), rules.player_count);
    let options: BTreeMap<&String, &String> = rules.options.iter().collect();
    for (k, v) in options {
        text += &format!(" {k}={v}");
    }
    if let Some(t) = g.time_control.as_ref().filter(|t| t.move_budget_ms > 0) {
        let policy = if t.policy == v1::TimeoutPolicy::Forfeit as i32 {
            "forfeit"
        } else {
            "fallback"
        };
        text += &format!(", {} s/move ({policy})", t.move_budget_ms as f64 / 1000.0);
    }
    text
}

/// Who holds the seats: the names in seat order, then the free seats.
fn seats_column(g: &v1::GameSummary) -> String {
    let names: Vec<String> = g
        .seats
        .iter()
        .filter(|s| s.occupied)
        .map(|s| match s.bot.is_empty() {
            true => s.display_name.clone(),
            false => format!("{} (server bot)", s.display_name),
        })
        .collect();
    let free: Vec<String> = g
        .seats
        .iter()
        .filter(|s| !s.occupied)
        .map(|s| s.seat.to_string())
        .collect();
    match (names.is_empty(), free.is_empty()) {
        (_, true) => names.join(", "),
        (true, false) => format!("free: {}", free.join(", ")),
        (false, false) => format!("{}; free: {}", names.join(", "), free.join(", ")),
    }
}

/// The games as a table, a header and a line each, the columns aligned.
pub fn games_table(games: &[v1::GameSummary]) -> String {
    let header = [
        "GAME", "STATUS", "RULES", "SEATS", "PLAYERS", "CREATED", "SCORES",
    ];
    let rows: Vec<[String; 7]> = games
        .iter()
        .map(|g| {
            let taken = g.seats.iter().filter(|s| s.occupied).count();
            let created = utc(g.created_unix_ms);
            [
                g.game_id.clone(),
                status_name(g.status),
                rules_text(g),
                format!("{taken}/{}", g.seats.len()),
                seats_column(g),
                // Minutes are enough to tell games apart by age.
                format!("{} {} UTC", &created[..10], &created[11..16]),
                g.result.as_ref().map(result_text).unwrap_or_default(),
            ]
        })
        .collect();
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut out = String::new();
        for (i, (cell, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                out += cell;
            } else {
                out += cell;
                out += &" ".repeat(w - cell.chars().count() + 2);
            }
        }
        out.trim_end().to_string() + "\n"
    };
    let mut out = line(&header.map(String::from));
    for row in &rows {
        out += &line(row);
    }
    out
}

/// Every game of the server (of one status), newest first, at most `limit`: ListGames' pages
/// followed to the end. A game listed twice (pages read while games change) is kept once.
pub async fn list_games(
    client: &mut remote::Client,
    status: v1::GameStatus,
    limit: Option<usize>,
) -> anyhow::Result<Vec<v1::GameSummary>> {
    let mut games = Vec::new();
    let mut seen = HashSet::new();
    let mut page_token = String::new();
    loop {
        let wanted = limit.map_or(PAGE, |l| (l - games.len()).min(PAGE));
        let request = v1::ListGamesRequest {
            page_size: wanted as u32,
            page_token: page_token.clone(),
            status: status as i32,
        };
        let page = limited!(client.list_games(request.clone()).await)
            .map_err(RemoteError::from)?
            .into_inner();
        for g in page.games {
            if seen.insert(g.game_id.clone()) {
                games.push(g);
            }
        }
        if page.next_page_token.is_empty() || limit.is_some_and(|l| games.len() >= l) {
            break;
        }
        page_token = page.next_page_token;
    }
    if let Some(l) = limit {
        games.truncate(l);
    }
    Ok(games)
}

/// `canasta games`.
pub async fn games(args: GamesArgs) -> anyhow::Result<()> {
    let mut client = remote::connect(&args.server.server).await?;
    let status = match args.status {
        None => v1::GameStatus::Unspecified,
        Some(StatusFilter::Waiting) => v1::GameStatus::Waiting,
        Some(StatusFilter::Playing) => v1::GameStatus::Playing,
        Some(StatusFilter::Finished) => v1::GameStatus::Finished,
    };
    let games = list_games(&mut client, status, args.limit).await?;
    if args.json {
        let all: Vec<Value> = games.iter().map(summary_json).collect();
        println!("{}", Value::Array(all));
    } else if games.is_empty() {
        match args.status {
            None => println!("the server has no games: `canasta create` makes one"),
            Some(_) => println!("the server has no {} games", status_name(status as i32)),
        }
    } else {
        print!("{}", games_table(&games));
    }
    Ok(())
}

/// The time control of `--move-budget` and `--timeout-policy`: none without a budget.
pub fn time_control(move_budget_ms: Option<u64>, policy: TimeoutPolicy) -> Option<v1::TimeControl> {
    move_budget_ms.map(|ms| v1::TimeControl {
        move_budget_ms: ms,
        policy: match policy {
            TimeoutPolicy::Fallback => v1::TimeoutPolicy::FallbackMove,
            TimeoutPolicy::Forfeit => v1::TimeoutPolicy::Forfeit,
        } as i32,
    })
}

/// `canasta create`.
pub async fn create(args: CreateArgs) -> anyhow::Result<()> {
    let spec = args.rules.spec().map_err(anyhow::Error::msg)?;
    let addr = args.server.server.clone();
    let mut client = remote::connect(&addr).await?;
    let request = v1::CreateGameRequest {
        rules: Some(rules_to_wire(&spec)),
        seed: args.seed,
        start_scores: args.start_scores.clone(),
        time_control: time_control(args.move_budget, args.timeout_policy),
        bots: args
            .house_bot
            .iter()
            .map(|(seat, bot)| v1::SeatBot {
                seat: *seat,
                bot: bot.clone(),
            })
            .collect(),
        ..Default::default()
    };
    // A refusal for a limit created nothing: asking again is safe.
    let response = limited!(client.create_game(request.clone()).await)
        .map_err(RemoteError::from)?
        .into_inner();
    let game = response.game.context("the server answered no game")?;
    let id = &game.game_id;
    let token = &response.creator_token;
    // Standard output holds the id alone (or the JSON), for scripts; the rest goes to
    // standard error.
    if args.json {
        let mut j = summary_json(&game);
        j["creator_token"] = json!(token);
        println!("{j}");
    } else {
        println!("{id}");
    }
    eprintln!(
        "created game {id} ({}): join it with `canasta play --game {id}`, watch it with `canasta watch {id}`",
        rules_text(&game)
    );
    if !token.is_empty() {
        eprintln!(
            "its creator token is {token} — a secret: it cancels the game while it waits for players (`canasta cancel {id} --token {token}`), and holds no seat"
        );
    }
    let Some(list) = &args.bots else {
        return Ok(());
    };
    let seated = seated_bots(list);
    let mut bots = Bots::new();
    for (seat, name) in &seated {
        let seed = args.seed.unwrap_or(0).wrapping_add(*seat as u64 + 1);
        bots.spawn(addr.clone(), id.clone(), *seat, name.clone(), seed)?;
    }
    let bot_seats: Vec<u32> = seated.iter().map(|(s, _)| *s).collect();
    let free: Vec<u32> = (0..spec.players as u32)
        .filter(|s| !bot_seats.contains(s))
        .collect();
    let free = match free.len() {
        0 => "no seat is left free".to_string(),
        1 => format!("{} is free for a player", seats_text(&free)),
        _ => format!("{} are free for players", seats_text(&free)),
    };
    eprintln!(
        "bots: {}; {free}. They play from this command until the match ends (Ctrl-C: they give their seats up)",
        seated
            .iter()
            .map(|(s, n)| format!("{n} in seat {s}"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    let result = tokio::select! {
        r = bots.finish() => r?,
        _ = tokio::signal::ctrl_c() => {
            let left = bots.leave().await;
            eprintln!(
                "the bots gave up {}: the game waits until they are taken again (`canasta play --game {id} --bot greedy` takes one and seats bots in the others); a game that waits expires after the server's waiting time (an hour unless its operator set another)",
                seats_text(&left)
            );
            return Ok(());
        }
    };
    eprintln!("the match is over: {}", result_text(&result));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_utc_dates() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(951_782_400_000), "2000-02-29T00:00:00Z");
        assert_eq!(utc(1_764_107_343_999), "2025-11-25T21:49:03Z");
        assert_eq!(utc(-1_000), "1969-12-31T23:59:59Z");
    }

    fn summary(status: v1::GameStatus, seats: &[Option<&str>]) -> v1::GameSummary {
        v1::GameSummary {
            game_id: "g1".into(),
            rules: Some(v1::RuleSet {
                preset: v1::Preset::Samba as i32,
                player_count: seats.len() as u32,
                options: [("target_score".to_string(), "1500".to_string())].into(),
            }),
            status: status as i32,
            seats: seats
                .iter()
                .enumerate()
                .map(|(i, n)| v1::SeatInfo {
                    seat: i as u32,
                    side: i as u32 % 2,
                    occupied: n.is_some(),
                    display_name: n.unwrap_or_default().to_string(),
                    bot: String::new(),
                })
                .collect(),
            seq: 9,
            time_control: None,
            result: None,
            created_unix_ms: 0,
        }
    }

    #[test]
    fn a_summary_as_json_has_stable_names_and_no_debug_text() {
        let mut g = summary(v1::GameStatus::Finished, &[Some("ann"), None]);
        g.result = Some(v1::MatchResult {
            finished: true,
            winner_side: Some(1),
            totals: vec![900, 1600],
            end: v1::MatchEndKind::Target as i32,
            forfeited_side: None,
        });
        g.time_control = Some(v1::TimeControl {
            move_budget_ms: 30_000,
            policy: v1::TimeoutPolicy::Forfeit as i32,
        });
        let j = summary_json(&g);
        assert_eq!(j["status"], "finished");
        assert_eq!(j["preset"], "samba");
        assert_eq!(j["players"], 2);
        assert_eq!(j["options"]["target_score"], "1500");
        assert_eq!(j["seats"][0]["name"], "ann");
        assert!(j["seats"][1]["name"].is_null());
        assert_eq!(
            (j["seats_taken"].as_u64(), j["seats_free"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(j["created"], "1970-01-01T00:00:00Z");
        assert_eq!(j["time_control"]["policy"], "forfeit");
        assert_eq!(j["result"]["end"], "target");
        assert_eq!(j["result"]["winner_side"], 1);
        assert!(!j.to_string().contains("Some("), "{j}");
    }

    #[test]
    fn the_table_aligns_its_columns_and_names_the_free_seats() {
        let games = [
            summary(
                v1::GameStatus::Waiting,
                &[Some("ann"), None, Some("bob"), None],
            ),
            summary(
                v1::GameStatus::Playing,
                &[Some("a rather long name"), Some("c")],
            ),
        ];
        let table = games_table(&games);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 3, "{table}");
        assert!(lines[0].starts_with("GAME"), "{table}");
        assert!(lines[1].contains("ann, bob; free: 1, 3"), "{table}");
        assert!(
            lines[1].contains("2/4") && lines[2].contains("2/2"),
            "{table}"
        );
        assert!(lines[1].contains("samba 4p target_score=1500"), "{table}");
        // Aligned: each column starts at the same place on every line.
        let at = |l: &str, what: &str| l.find(what).unwrap();
        assert_eq!(at(lines[0], "STATUS"), at(lines[1], "waiting"));
        assert_eq!(at(lines[0], "STATUS"), at(lines[2], "playing"));
        assert_eq!(
            at(lines[0], "CREATED"),
            at(lines[1], "1970-01-01 00:00 UTC")
        );
        assert_eq!(
            at(lines[0], "CREATED"),
            at(lines[2], "1970-01-01 00:00 UTC")
        );
    }

    #[test]
    fn results_say_who_won_and_how() {
        let mut r = v1::MatchResult {
            finished: true,
            winner_side: Some(0),
            totals: vec![5120, 3020],
            end: v1::MatchEndKind::Target as i32,
            forfeited_side: None,
        };
        assert_eq!(result_text(&r), "side 0 won (5120, 3020)");
        r.forfeited_side = Some(1);
        r.end = v1::MatchEndKind::Forfeit as i32;
        assert_eq!(result_text(&r), "side 1 forfeited, side 0 won (5120, 3020)");
        r.winner_side = None;
        r.forfeited_side = None;
        r.end = v1::MatchEndKind::Abandoned as i32;
        assert_eq!(
            result_text(&r),
            "abandoned, nobody played: no side wins (5120, 3020)"
        );
        r.end = v1::MatchEndKind::Expired as i32;
        assert!(
            result_text(&r).starts_with("expired"),
            "{}",
            result_text(&r)
        );
        r.finished = false;
        assert_eq!(result_text(&r), "so far 5120, 3020");
    }
}
