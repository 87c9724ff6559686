//! The lobby's players: `canasta register` (a name and its secret key), the key every lobby
//! command takes (`--key-file` or `CANASTA_KEY`, never an argument `ps` would show), and the
//! ratings: `canasta leaderboard` and `canasta player`, as tables or JSON. The one text and
//! JSON form of a rating and of a rating change lives here.

use std::io::Write;
use std::path::Path;

use anyhow::{Context, anyhow};
use canasta_proto::reason::{Reason, reason_of};
use canasta_proto::v1;
use canasta_proto::v1::lobby_service_client::LobbyServiceClient;
use serde_json::{Value, json};
use tonic::transport::Channel;

use crate::cli::{LeaderboardArgs, PlayerArgs, RegisterArgs};
use crate::lobby::{end_name, utc};
use crate::remote::{self, RemoteError, limited};

/// A client of the lobby.
pub type Lobby = LobbyServiceClient<Channel>;

/// The environment variable that holds a player's key when no `--key-file` is given.
pub const KEY_ENV: &str = "CANASTA_KEY";

/// The longest key read: the server's keys are 32 hex digits; a longer text is not one.
const MAX_KEY_LEN: usize = 256;

/// Connects to the lobby of the server at `addr`.
pub async fn connect(addr: &str) -> Result<Lobby, RemoteError> {
    Ok(LobbyServiceClient::new(remote::channel(addr).await?))
}

/// A player's key, and where it came from (to name it in errors, never the key itself).
#[derive(Clone)]
pub struct Key {
    /// The key.
    pub key: String,
    /// The player's name, when the key file gives it (`canasta register --key-file` writes it).
    pub name: Option<String>,
    /// Where the key was read: `the key file alice.key` or `CANASTA_KEY`.
    pub source: String,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key: a debug print must not leak it into a log.
        f.debug_struct("Key")
            .field("name", &self.name)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl Key {
    /// A request carrying the key.
    pub fn authed<T>(&self, message: T) -> tonic::Request<T> {
        remote::authed(message, &self.key)
    }

    /// What a refusal of the key means, in words: an unknown key names its source and what to
    /// do; any other refusal is the server's text.
    pub fn refused(&self, s: &tonic::Status) -> anyhow::Error {
        if reason_of(s) == Some(Reason::UnknownPlayerKey) {
            return anyhow!(
                "the server knows no player with the key from {}: check that it is the key `canasta register` gave for this server (a lost key cannot be recovered: register another name)",
                self.source
            );
        }
        anyhow!(remote::status_text(s))
    }
}

/// The player's key: read from `--key-file` if given, else from the environment variable
/// [`KEY_ENV`]; an error says how to give one.
pub fn key(key_file: Option<&Path>) -> anyhow::Result<Key> {
    if let Some(path) = key_file {
        return read_key_file(path);
    }
    match std::env::var(KEY_ENV) {
        Ok(text) => Ok(Key {
            key: checked_key(text.trim(), KEY_ENV)?,
            name: None,
            source: KEY_ENV.to_string(),
        }),
        Err(_) => Err(anyhow!(
            "this command needs a player's key: give --key-file FILE (as `canasta register NAME --key-file FILE` writes it) or set {KEY_ENV}"
        )),
    }
}

/// A key as text: visible ASCII without spaces, not too long. A text that cannot be a key is
/// refused here, before any call, with what it is not (never echoed: it may be a secret).
fn checked_key(text: &str, source: &str) -> anyhow::Result<String> {
    if text.is_empty() {
        return Err(anyhow!(
            "{source} holds no key: give the key `canasta register` printed or wrote"
        ));
    }
    if text.len() > MAX_KEY_LEN || !text.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(anyhow!(
            "{source} does not hold a player's key (a key is 32 hex digits, as `canasta register` gives it)"
        ));
    }
    Ok(text.to_string())
}

/// Reads a key file: `key KEY` and `player NAME` lines (as [`write_key_file`] writes them), or a
/// file holding the key alone; lines starting with `#` are comments.
pub fn read_key_file(path: &Path) -> anyhow::Result<Key> {
    let source = format!("the key file {}", path.display());
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {source}"))?;
    warn_if_shared(path);
    let (mut key, mut name) = (None, None);
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("player ") {
            name = Some(rest.trim().to_string());
        } else if let Some(rest) = line.strip_prefix("key ") {
            key = Some(rest.trim().to_string());
        } else if key.is_none() {
            key = Some(line.to_string());
        } else {
            return Err(anyhow!(
                "{source} has a line that is neither `key KEY` nor `player NAME`: write the key alone, or as `canasta register --key-file` does"
            ));
        }
    }
    let key = key.unwrap_or_default();
    Ok(Key {
        key: checked_key(&key, &source)?,
        name: name.filter(|n| !n.is_empty()),
        source,
    })
}

/// Warns (on standard error) about a key file others may read, as ssh does about its keys.
fn warn_if_shared(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(meta) = std::fs::metadata(path)
            && meta.permissions().mode() & 0o077 != 0
        {
            eprintln!(
                "canasta: warning: {} may be read by other users: the key acts as the player (chmod 600 {})",
                path.display(),
                path.display()
            );
        }
    }
}

/// Writes a new key file, readable and writable by its owner only (mode 0600 on Unix). An
/// existing file is never overwritten: it may hold another player's key, which the server
/// cannot give again.
pub fn write_key_file(path: &Path, name: &str, key: &str, server: &str) -> anyhow::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            anyhow!(
                "{} exists: it may hold another player's key, which cannot be recovered; give --key-file a new path",
                path.display()
            )
        } else {
            anyhow!("cannot create {}: {e}", path.display())
        }
    })?;
    let text = format!(
        "# The key of the Canasta player {name:?} on {server}: keep it secret, it acts as the player.\n\
         # The server keeps only a hash of it: a lost key cannot be recovered.\n\
         player {name}\n\
         key {key}\n"
    );
    file.write_all(text.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write {}", path.display()))
}

/// `canasta register`.
pub async fn register(args: RegisterArgs) -> anyhow::Result<()> {
    // Refused before the name is taken: a key the file cannot hold would be lost.
    if let Some(path) = &args.key_file
        && path.exists()
    {
        return Err(anyhow!(
            "{} exists: it may hold another player's key, which cannot be recovered; give --key-file a new path",
            path.display()
        ));
    }
    let mut lobby = connect(&args.server.server).await?;
    let request = v1::RegisterPlayerRequest {
        name: args.name.clone(),
    };
    // A registration refused for a limit registered nothing: asking again is safe.
    let r = limited!(lobby.register_player(request.clone()).await)
        .map_err(RemoteError::from)?
        .into_inner();
    let player = r.player.unwrap_or_default();
    if let Some(path) = &args.key_file {
        write_key_file(path, &player.name, &r.key, &args.server.server).with_context(|| {
            format!(
                "the player {:?} is registered, but its key could not be saved; here it is, keep it: {}",
                player.name, r.key
            )
        })?;
    }
    if args.json {
        let mut out = json!({
            "name": player.name,
            "created_unix_ms": player.created_unix_ms,
        });
        match &args.key_file {
            Some(path) => out["key_file"] = json!(path),
            None => out["key"] = json!(r.key),
        }
        println!("{out}");
        return Ok(());
    }
    println!("registered the player {}", player.name);
    match &args.key_file {
        Some(path) => println!(
            "its key is in {} (readable by you only): keep it secret and give it to the lobby commands with --key-file {}",
            path.display(),
            path.display()
        ),
        None => {
            println!("key: {}", r.key);
            println!(
                "Keep this key secret: it acts as the player, and the server cannot show it again (it keeps only a hash). \
                 Give it to the lobby commands in the environment variable {KEY_ENV}, or save it next time with --key-file."
            );
        }
    }
    Ok(())
}

/// The wire family of a preset and player count.
pub fn family(preset: &str, players: u8) -> anyhow::Result<v1::RatingFamily> {
    let preset: canasta_engine::Preset = preset.parse().map_err(|e| anyhow!("{e}"))?;
    Ok(v1::RatingFamily {
        preset: canasta_proto::convert::preset_to_wire(preset) as i32,
        player_count: u32::from(players),
    })
}

/// A family as people say it: `official, 4 players`.
pub fn family_text(f: Option<&v1::RatingFamily>) -> String {
    let Some(f) = f else {
        return "no family".into();
    };
    let preset = canasta_proto::convert::preset_from_wire(f.preset, "family.preset")
        .map(|p| p.name().to_string())
        .unwrap_or_else(|_| format!("preset {}", f.preset));
    format!("{preset}, {} players", f.player_count)
}

/// A rating as JSON: mu, sigma, display (mu - 3 sigma), games and wins.
pub fn rating_json(r: &v1::Rating) -> Value {
    json!({
        "mu": r.mu,
        "sigma": r.sigma,
        "display": r.display,
        "games": r.games,
        "wins": r.wins,
    })
}

/// A rating change as JSON: before and after; null for an unrated game.
pub fn change_json(c: Option<&v1::RatingChange>) -> Value {
    match c {
        Some(c) => json!({
            "before": c.before.as_ref().map(rating_json),
            "after": c.after.as_ref().map(rating_json),
        }),
        None => Value::Null,
    }
}

/// A rating change in words: `rating 3.12 -> 4.80 (+1.68; mu 27.9, sigma 7.7)`, or `unrated`.
pub fn change_text(c: Option<&v1::RatingChange>) -> String {
    match c.and_then(|c| Some((c.before.as_ref()?, c.after.as_ref()?))) {
        Some((b, a)) => format!(
            "rating {:.2} -> {:.2} ({:+.2}; mu {:.1}, sigma {:.1})",
            b.display,
            a.display,
            a.display - b.display,
            a.mu,
            a.sigma
        ),
        None => "unrated".into(),
    }
}

/// `canasta leaderboard`.
pub async fn leaderboard(args: LeaderboardArgs) -> anyhow::Result<()> {
    let mut lobby = connect(&args.server.server).await?;
    let family = family(&args.preset, args.players)?;
    let mut entries = Vec::new();
    let mut page_token = String::new();
    // Pages of the server's largest size until the limit or the last page.
    loop {
        let request = v1::GetLeaderboardRequest {
            family: Some(family),
            page_size: (args.limit - entries.len()).min(500) as u32,
            page_token: page_token.clone(),
        };
        let page = limited!(lobby.get_leaderboard(request.clone()).await)
            .map_err(RemoteError::from)?
            .into_inner();
        let empty = page.entries.is_empty();
        entries.extend(page.entries);
        page_token = page.next_page_token;
        if page_token.is_empty() || empty || entries.len() >= args.limit {
            break;
        }
    }
    entries.truncate(args.limit);
    if args.json {
        let rows: Vec<Value> = entries
            .iter()
            .map(|e| {
                let p = e.player.clone().unwrap_or_default();
                json!({
                    "rank": e.rank,
                    "name": p.name,
                    "house": p.house,
                    "rating": e.rating.as_ref().map(rating_json),
                })
            })
            .collect();
        println!("{}", Value::Array(rows));
        return Ok(());
    }
    let title = family_text(Some(&family));
    if entries.is_empty() {
        println!(
            "no player has a rating in {title} yet: rated games of these rules finished make one"
        );
        return Ok(());
    }
    println!("{title}: rating = mu - 3 sigma, the conservative estimate players are ranked by");
    print!("{}", leaderboard_table(&entries));
    Ok(())
}

/// The leaderboard as a table, one row a player.
fn leaderboard_table(entries: &[v1::LeaderboardEntry]) -> String {
    let rows: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            let p = e.player.clone().unwrap_or_default();
            let r = e.rating.unwrap_or_default();
            vec![
                e.rank.to_string(),
                if p.house {
                    format!("{} (house bot)", p.name)
                } else {
                    p.name
                },
                format!("{:.2}", r.display),
                format!("{:.2}", r.mu),
                format!("{:.2}", r.sigma),
                r.games.to_string(),
                r.wins.to_string(),
                percent(r.wins, r.games),
            ]
        })
        .collect();
    table(
        &[
            "rank", "player", "rating", "mu", "sigma", "games", "wins", "won",
        ],
        &rows,
        &[true, false, true, true, true, true, true, true],
    )
}

/// `wins` of `games` as a percentage, `-` for none.
fn percent(wins: u32, games: u32) -> String {
    if games == 0 {
        "-".into()
    } else {
        format!("{:.0}%", 100.0 * f64::from(wins) / f64::from(games))
    }
}

/// Rows under a header, in columns as wide as their widest cell, numbers (`right`) aligned
/// right.
pub fn table(header: &[&str], rows: &[Vec<String>], right: &[bool]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i].saturating_sub(cell.chars().count());
            if i > 0 {
                out.push_str("  ");
            }
            if right.get(i).copied().unwrap_or(false) {
                out.push_str(&" ".repeat(pad));
                out.push_str(cell);
            } else {
                out.push_str(cell);
                if i + 1 < cells.len() {
                    out.push_str(&" ".repeat(pad));
                }
            }
        }
        out.push('\n');
        out
    };
    let mut out = line(header.to_vec());
    for row in rows {
        out += &line(row.iter().map(String::as_str).collect());
    }
    out
}

/// `canasta player`.
pub async fn player(args: PlayerArgs) -> anyhow::Result<()> {
    let mut lobby = connect(&args.server.server).await?;
    let request = v1::GetPlayerRequest {
        name: args.name.clone(),
        recent_games: args.games,
    };
    let r = match limited!(lobby.get_player(request.clone()).await) {
        Ok(r) => r.into_inner(),
        Err(s) if reason_of(&s) == Some(Reason::PlayerNotFound) => {
            return Err(anyhow!(
                "no player is named {:?} on {}: check the name (`canasta leaderboard` lists the rated players)",
                args.name,
                args.server.server
            ));
        }
        Err(s) => return Err(RemoteError::from(s).into()),
    };
    let p = r.player.clone().unwrap_or_default();
    if args.json {
        println!("{}", player_json(&r));
        return Ok(());
    }
    println!(
        "{}{}: registered {}, {} games finished, {} won ({})",
        p.name,
        if p.house { " (house bot)" } else { "" },
        utc(p.created_unix_ms),
        r.games,
        r.wins,
        percent(r.wins, r.games)
    );
    if r.ratings.is_empty() {
        println!("no rating yet: rated games finished make one");
    } else {
        println!();
        let rows: Vec<Vec<String>> = r
            .ratings
            .iter()
            .map(|x| {
                vec![
                    family_text(x.family.as_ref()),
                    format!("{:.2}", x.display),
                    format!("{:.2}", x.mu),
                    format!("{:.2}", x.sigma),
                    x.games.to_string(),
                    x.wins.to_string(),
                    percent(x.wins, x.games),
                ]
            })
            .collect();
        print!(
            "{}",
            table(
                &["rules", "rating", "mu", "sigma", "games", "wins", "won"],
                &rows,
                &[false, true, true, true, true, true, true],
            )
        );
    }
    if !r.recent_games.is_empty() {
        println!("\nrecent games, newest first:");
        let rows: Vec<Vec<String>> = r.recent_games.iter().map(played_row).collect();
        print!(
            "{}",
            table(
                &[
                    "finished", "game", "rules", "seat", "players", "result", "scores", "rating",
                ],
                &rows,
                &[false, false, false, true, false, false, false, false],
            )
        );
    }
    Ok(())
}

/// One row of a player's recent games.
fn played_row(g: &v1::PlayedGame) -> Vec<String> {
    let result = g.result.clone().unwrap_or_default();
    let outcome = if g.won {
        "won".to_string()
    } else if result.winner_side.is_some() {
        "lost".to_string()
    } else {
        end_name(result.end).unwrap_or_else(|| "unfinished".into())
    };
    let rules = g.rules.clone().unwrap_or_default();
    let rating = match g.rating.as_ref().and_then(|c| Some((c.before?, c.after?))) {
        Some((b, a)) => format!("{:.2} -> {:.2}", b.display, a.display),
        None => "unrated".into(),
    };
    vec![
        utc(g.finished_unix_ms),
        g.game_id.clone(),
        family_text(Some(&v1::RatingFamily {
            preset: rules.preset,
            player_count: rules.player_count,
        })),
        g.seat.to_string(),
        g.players.join(", "),
        outcome,
        result
            .totals
            .iter()
            .map(i32::to_string)
            .collect::<Vec<_>>()
            .join(" / "),
        rating,
    ]
}

/// A player's record as JSON (`canasta player --json`).
fn player_json(r: &v1::GetPlayerResponse) -> Value {
    let p = r.player.clone().unwrap_or_default();
    let ratings: Vec<Value> = r
        .ratings
        .iter()
        .map(|x| {
            let mut v = rating_json(x);
            let f = x.family.unwrap_or_default();
            v["family"] = family_json(&f);
            v
        })
        .collect();
    let recent: Vec<Value> = r
        .recent_games
        .iter()
        .map(|g| {
            let result = g.result.clone().unwrap_or_default();
            let rules = g.rules.clone().unwrap_or_default();
            json!({
                "game_id": g.game_id,
                "family": family_json(&v1::RatingFamily { preset: rules.preset, player_count: rules.player_count }),
                "seat": g.seat,
                "players": g.players,
                "won": g.won,
                "winner_side": result.winner_side,
                "totals": result.totals,
                "end": end_name(result.end),
                "rating": change_json(g.rating.as_ref()),
                "finished_unix_ms": g.finished_unix_ms,
                "finished": utc(g.finished_unix_ms),
            })
        })
        .collect();
    json!({
        "name": p.name,
        "house": p.house,
        "created_unix_ms": p.created_unix_ms,
        "games": r.games,
        "wins": r.wins,
        "ratings": ratings,
        "recent_games": recent,
    })
}

/// A family as JSON: the preset's name and the player count.
pub fn family_json(f: &v1::RatingFamily) -> Value {
    let preset = canasta_proto::convert::preset_from_wire(f.preset, "family.preset")
        .map(|p| p.name().to_string())
        .unwrap_or_else(|_| format!("preset {}", f.preset));
    json!({ "preset": preset, "players": f.player_count })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp() -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix("canasta-keys-")
            .tempdir()
            .unwrap()
    }

    #[test]
    fn a_written_key_file_reads_back_with_its_name_and_only_its_owner_may_read_it() {
        let dir = temp();
        let path = dir.path().join("alice.key");
        let key = "0123456789abcdef0123456789abcdef";
        write_key_file(&path, "alice", key, "127.0.0.1:1").unwrap();
        let read = read_key_file(&path).unwrap();
        assert_eq!(read.key, key);
        assert_eq!(read.name.as_deref(), Some("alice"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Never overwritten: the old key could not be recovered.
        let e = write_key_file(&path, "bob", key, "127.0.0.1:1").unwrap_err();
        assert!(e.to_string().contains("exists"), "{e}");
        assert_eq!(read_key_file(&path).unwrap().name.as_deref(), Some("alice"));
    }

    #[test]
    fn a_bare_key_reads_and_what_is_no_key_is_refused_without_echoing_it() {
        let dir = temp();
        let path = dir.path().join("k");
        std::fs::write(&path, "# mine\n  0123456789abcdef0123456789abcdef \n").unwrap();
        let k = read_key_file(&path).unwrap();
        assert_eq!(k.key, "0123456789abcdef0123456789abcdef");
        assert_eq!(k.name, None);
        assert!(!format!("{k:?}").contains("0123"), "Debug hides the key");
        std::fs::write(&path, "# nothing\n").unwrap();
        let e = read_key_file(&path).unwrap_err().to_string();
        assert!(e.contains("holds no key"), "{e}");
        std::fs::write(&path, "secret with spaces\n").unwrap();
        let e = read_key_file(&path).unwrap_err().to_string();
        assert!(e.contains("does not hold a player's key"), "{e}");
        assert!(!e.contains("secret"), "{e}");
        std::fs::write(&path, "key abc\nanother line\n").unwrap();
        assert!(read_key_file(&path).is_err());
        let e = read_key_file(&dir.path().join("missing")).unwrap_err();
        assert!(
            format!("{e:#}").contains("cannot read the key file"),
            "{e:#}"
        );
    }

    #[test]
    fn tables_align_numbers_right_and_text_left() {
        let rows = vec![
            vec!["1".to_string(), "alice".to_string(), "12.50".to_string()],
            vec!["10".to_string(), "bo".to_string(), "-3.00".to_string()],
        ];
        let t = table(&["rank", "player", "rating"], &rows, &[true, false, true]);
        assert_eq!(
            t,
            "rank  player  rating\n   1  alice    12.50\n  10  bo       -3.00\n"
        );
    }

    #[test]
    fn a_rating_change_reads_as_before_and_after() {
        let r = |display: f64, mu: f64| v1::Rating {
            display,
            mu,
            sigma: (mu - display) / 3.0,
            ..Default::default()
        };
        let c = v1::RatingChange {
            before: Some(r(0.0, 25.0)),
            after: Some(r(1.5, 26.1)),
        };
        assert_eq!(
            change_text(Some(&c)),
            "rating 0.00 -> 1.50 (+1.50; mu 26.1, sigma 8.2)"
        );
        assert_eq!(change_text(None), "unrated");
        assert_eq!(change_json(None), Value::Null);
        assert_eq!(change_json(Some(&c))["after"]["display"], json!(1.5));
    }
}
