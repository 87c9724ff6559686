//! The lobby's tables: players (name, hash of the key), their ratings per family, the games
//! each played (its record), the tail of each player's events (for WatchPlayer's resume), the
//! lobby's games not yet finished (to rate them after a restart), and the pending challenges
//! (to answer, start or expire them after a restart).
//!
//! They live in the games' database and are written by its one writer thread, in the same
//! group commits; a [`LobbyWrite`] is a list of operations committed together (a finished
//! game's ratings, records, events and the removal of its pending row are one write, so a
//! crash leaves either all of them or none: the game is then rated again at the next start).

use prost::Message;
use rusqlite::{Connection, params};

/// The lobby's tables (created by the migrations to layout versions 4 and 5).
pub(super) const TABLES: &str = "
    CREATE TABLE IF NOT EXISTS players (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        key_hash BLOB NOT NULL,
        house INTEGER NOT NULL,
        created_ms INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS player_ratings (
        player_id INTEGER NOT NULL,
        preset INTEGER NOT NULL,
        player_count INTEGER NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        PRIMARY KEY (player_id, preset, player_count)
    );
    CREATE TABLE IF NOT EXISTS player_games (
        player_id INTEGER NOT NULL,
        won INTEGER NOT NULL,
        game BLOB NOT NULL
    );
    CREATE INDEX IF NOT EXISTS player_games_by_player ON player_games (player_id);
    CREATE TABLE IF NOT EXISTS player_events (
        player_id INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        event BLOB NOT NULL,
        PRIMARY KEY (player_id, seq)
    );
    CREATE TABLE IF NOT EXISTS lobby_games (
        game_id TEXT PRIMARY KEY,
        game BLOB NOT NULL
    );
    CREATE TABLE IF NOT EXISTS lobby_challenges (
        challenge_id TEXT PRIMARY KEY,
        challenge BLOB NOT NULL
    );
";

/// A pending challenge as stored: what the lobby holds of it in memory.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ChallengeRow {
    /// The challenge as its players see it (`v1::Challenge`, encoded): rules, time control,
    /// ratedness, seats and answers, and the deadline (`expires_unix_ms`), kept across a
    /// restart.
    #[prost(bytes = "vec", tag = "1")]
    pub challenge: Vec<u8>,
    /// The players' ids, in seat order.
    #[prost(uint32, repeated, tag = "2")]
    pub players: Vec<u32>,
    /// The challenger's id.
    #[prost(uint32, tag = "3")]
    pub challenger: u32,
    /// The seed of its game, if the challenger chose one (never shown on the wire until the
    /// game is over).
    #[prost(uint64, optional, tag = "4")]
    pub seed: Option<u64>,
}

/// A lobby game not yet rated: who sits where, and how it came to be.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LobbyGameRow {
    /// The players' ids, in seat order.
    #[prost(uint32, repeated, tag = "1")]
    pub players: Vec<u32>,
    /// The game is rated.
    #[prost(bool, tag = "2")]
    pub rated: bool,
}

/// A player as stored.
#[derive(Clone, Debug)]
pub struct PlayerRow {
    /// The player's number.
    pub id: u32,
    /// The name, as registered.
    pub name: String,
    /// SHA-256 of the key.
    pub key_hash: [u8; 32],
    /// One of the server's bots.
    pub house: bool,
    /// Registration time, milliseconds since the epoch.
    pub created_ms: i64,
}

/// A player's rating in one family, as stored.
#[derive(Clone, Copy, Debug)]
pub struct RatingRow {
    /// The player.
    pub player: u32,
    /// The preset (its wire number).
    pub preset: i32,
    /// The player count.
    pub player_count: u32,
    /// Estimated skill.
    pub mu: f64,
    /// Its uncertainty.
    pub sigma: f64,
    /// Rated games.
    pub games: u32,
    /// Rated games won.
    pub wins: u32,
}

/// One change to the lobby's tables.
#[derive(Clone, Debug)]
pub enum LobbyOp {
    /// A new player.
    Player(PlayerRow),
    /// A rating, inserted or replaced.
    Rating(RatingRow),
    /// A finished game in a player's record (`v1::PlayedGame`, encoded).
    Played {
        /// The player.
        player: u32,
        /// Its side won.
        won: bool,
        /// The record.
        game: Vec<u8>,
    },
    /// A player's event (`v1::PlayerEvent`, encoded); the events `keep` and more before it are
    /// deleted.
    Event {
        /// The player.
        player: u32,
        /// The event's seq.
        seq: u64,
        /// The event.
        event: Vec<u8>,
        /// How many of the player's events are kept.
        keep: u64,
    },
    /// A lobby game started.
    GameStarted {
        /// The game.
        game_id: String,
        /// Its row.
        row: LobbyGameRow,
    },
    /// A lobby game is rated and recorded: it is pending no more.
    GameDone {
        /// The game.
        game_id: String,
    },
    /// A pending challenge, made or changed (an answer), inserted or replaced.
    Challenge {
        /// The challenge.
        challenge_id: String,
        /// Its row.
        row: ChallengeRow,
    },
    /// A challenge has ended (started, declined, expired, cancelled): pending no more.
    ChallengeDone {
        /// The challenge.
        challenge_id: String,
    },
}

/// What the lobby's tables held when the database was opened.
#[derive(Debug, Default)]
pub struct LobbyLoaded {
    /// The players, by id.
    pub players: Vec<PlayerRow>,
    /// Their ratings.
    pub ratings: Vec<RatingRow>,
    /// Per player: (player, games, wins).
    pub counts: Vec<(u32, u32, u32)>,
    /// The last games of each player (at most [`RECENT_KEPT`] each), oldest first.
    pub recent: Vec<(u32, Vec<u8>)>,
    /// The kept events of each player, in order.
    pub events: Vec<(u32, u64, Vec<u8>)>,
    /// The lobby games not yet rated.
    pub games: Vec<(String, LobbyGameRow)>,
    /// The pending challenges, oldest first.
    pub challenges: Vec<(String, ChallengeRow)>,
}

/// The most recent games of a player read at the start (and kept in memory).
pub const RECENT_KEPT: u32 = 100;

/// Applies `ops` in the open transaction.
pub(super) fn commit(tx: &rusqlite::Transaction<'_>, ops: &[LobbyOp]) -> rusqlite::Result<()> {
    for op in ops {
        match op {
            LobbyOp::Player(p) => {
                tx.prepare_cached(
                    "INSERT INTO players (id, name, key_hash, house, created_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )?
                .execute(params![
                    p.id,
                    p.name,
                    &p.key_hash[..],
                    p.house,
                    p.created_ms
                ])?;
            }
            LobbyOp::Rating(r) => {
                tx.prepare_cached(
                    "INSERT OR REPLACE INTO player_ratings
                     (player_id, preset, player_count, mu, sigma, games, wins)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )?
                .execute(params![
                    r.player,
                    r.preset,
                    r.player_count,
                    r.mu,
                    r.sigma,
                    r.games,
                    r.wins
                ])?;
            }
            LobbyOp::Played { player, won, game } => {
                tx.prepare_cached(
                    "INSERT INTO player_games (player_id, won, game) VALUES (?1, ?2, ?3)",
                )?
                .execute(params![player, won, game])?;
            }
            LobbyOp::Event {
                player,
                seq,
                event,
                keep,
            } => {
                tx.prepare_cached(
                    "INSERT OR REPLACE INTO player_events (player_id, seq, event)
                     VALUES (?1, ?2, ?3)",
                )?
                .execute(params![player, *seq as i64, event])?;
                if *seq > *keep {
                    tx.prepare_cached(
                        "DELETE FROM player_events WHERE player_id = ?1 AND seq <= ?2",
                    )?
                    .execute(params![player, (*seq - *keep) as i64])?;
                }
            }
            LobbyOp::GameStarted { game_id, row } => {
                tx.prepare_cached(
                    "INSERT OR REPLACE INTO lobby_games (game_id, game) VALUES (?1, ?2)",
                )?
                .execute(params![game_id, row.encode_to_vec()])?;
            }
            LobbyOp::GameDone { game_id } => {
                tx.prepare_cached("DELETE FROM lobby_games WHERE game_id = ?1")?
                    .execute(params![game_id])?;
            }
            LobbyOp::Challenge { challenge_id, row } => {
                // An upsert that keeps the row's place (its rowid): challenges load oldest
                // first.
                tx.prepare_cached(
                    "INSERT INTO lobby_challenges (challenge_id, challenge) VALUES (?1, ?2)
                     ON CONFLICT (challenge_id) DO UPDATE SET challenge = excluded.challenge",
                )?
                .execute(params![challenge_id, row.encode_to_vec()])?;
            }
            LobbyOp::ChallengeDone { challenge_id } => {
                tx.prepare_cached("DELETE FROM lobby_challenges WHERE challenge_id = ?1")?
                    .execute(params![challenge_id])?;
            }
        }
    }
    Ok(())
}

/// Reads the lobby's tables. A row that does not read (a key hash of the wrong length, an
/// undecodable record) is skipped and logged: the lobby serves the rest.
pub(super) fn load(conn: &Connection) -> rusqlite::Result<LobbyLoaded> {
    let mut loaded = LobbyLoaded::default();
    let mut stmt =
        conn.prepare("SELECT id, name, key_hash, house, created_ms FROM players ORDER BY id")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let id: u32 = r.get(0)?;
        let hash: Vec<u8> = r.get(2)?;
        let Ok(key_hash) = <[u8; 32]>::try_from(hash.as_slice()) else {
            tracing::error!(
                player = id,
                "a stored player's key hash is damaged: skipped"
            );
            continue;
        };
        loaded.players.push(PlayerRow {
            id,
            name: r.get(1)?,
            key_hash,
            house: r.get(3)?,
            created_ms: r.get(4)?,
        });
    }
    drop(rows);
    let mut stmt = conn.prepare(
        "SELECT player_id, preset, player_count, mu, sigma, games, wins FROM player_ratings",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        loaded.ratings.push(RatingRow {
            player: r.get(0)?,
            preset: r.get(1)?,
            player_count: r.get(2)?,
            mu: r.get(3)?,
            sigma: r.get(4)?,
            games: r.get(5)?,
            wins: r.get(6)?,
        });
    }
    drop(rows);
    let mut stmt =
        conn.prepare("SELECT player_id, COUNT(*), SUM(won) FROM player_games GROUP BY player_id")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        loaded.counts.push((r.get(0)?, r.get(1)?, r.get(2)?));
    }
    drop(rows);
    let mut stmt = conn.prepare(
        "SELECT player_id, game FROM (
             SELECT player_id, game, rowid AS r,
                    ROW_NUMBER() OVER (PARTITION BY player_id ORDER BY rowid DESC) AS n
             FROM player_games)
         WHERE n <= ?1 ORDER BY r",
    )?;
    let mut rows = stmt.query([RECENT_KEPT])?;
    while let Some(r) = rows.next()? {
        loaded.recent.push((r.get(0)?, r.get(1)?));
    }
    drop(rows);
    let mut stmt =
        conn.prepare("SELECT player_id, seq, event FROM player_events ORDER BY player_id, seq")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let seq: i64 = r.get(1)?;
        loaded.events.push((r.get(0)?, seq as u64, r.get(2)?));
    }
    drop(rows);
    let mut stmt = conn.prepare("SELECT game_id, game FROM lobby_games ORDER BY rowid")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let id: String = r.get(0)?;
        let bytes: Vec<u8> = r.get(1)?;
        match LobbyGameRow::decode(bytes.as_slice()) {
            Ok(row) => loaded.games.push((id, row)),
            Err(e) => {
                tracing::error!(game = %id, error = %e, "a lobby game's row is damaged: it is not rated")
            }
        }
    }
    drop(rows);
    let mut stmt =
        conn.prepare("SELECT challenge_id, challenge FROM lobby_challenges ORDER BY rowid")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let id: String = r.get(0)?;
        let bytes: Vec<u8> = r.get(1)?;
        match ChallengeRow::decode(bytes.as_slice()) {
            Ok(row) => loaded.challenges.push((id, row)),
            Err(e) => {
                tracing::error!(challenge = %id, error = %e, "a pending challenge's row is damaged: it is forgotten")
            }
        }
    }
    Ok(loaded)
}
