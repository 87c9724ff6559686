//! Durable storage: every game and every entry of its log (joins, leaves, actions, time-outs)
//! in an embedded SQLite database, written before the server acknowledges them. On start the
//! server replays the logs, and every game is back where it was.
//!
//! One thread owns the database. Writers queue their rows with a reply channel; the thread
//! takes everything queued, commits it in one transaction (group commit) and then answers each
//! writer, so a busy server pays one commit for many actions while no action is acknowledged
//! before it is stored. The log is one table in the order written, so a commit appends to its
//! last pages whatever games it holds; the thread knows where each game's log ends and refuses
//! an entry out of order. In memory mode nothing is written.
//!
//! SQLite's write-ahead log is copied back into the database (a checkpoint) by the thread too,
//! but only after it has answered the writers of the commit that filled the log, and in small
//! steps: a checkpoint holds up the commits queued behind it, and SQLite's own, run inside the
//! commit every 1000 pages, held every game's action up for 5 ms about eight times a second.
//!
//! Every row carries a CRC-32C of its key and its bytes (see [`game_crc`], [`entry_crc`]):
//! a row changed after it was written (a flipped bit, a row moved to another game or number)
//! makes its game damaged instead of replaying into another game. A row whose key cannot be
//! read is skipped and named (its table and rowid), and the other games are served.
//!
//! The writer also checks, after each commit and before answering its writers, that the
//! database file is still the one it opened: a database deleted, moved or replaced while the
//! server runs would lose at the next start everything written since, so from then on nothing
//! is acknowledged (see [`FileWatch`]).

mod crc32c;
pub mod lobby;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use canasta_proto::v1;
use prost::Message;
use rusqlite::types::ValueRef;
use rusqlite::wal::CheckpointMode;
use rusqlite::{Connection, MAIN_DB, OpenFlags, params};

use crc32c::Crc32c;
pub use lobby::{ChallengeRow, LobbyGameRow, LobbyLoaded, LobbyOp, PlayerRow, RatingRow};
use tokio::sync::oneshot;

/// One entry of a game's log, as stored.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Entry {
    /// What happened.
    #[prost(oneof = "EntryKind", tags = "1, 2, 3, 4, 5, 6")]
    pub kind: Option<EntryKind>,
    /// When it was stored, in milliseconds since the Unix epoch; 0 when not told. Only entries
    /// of a player's activity carry it: the creation, every join and leave, and the actions
    /// that come [`crate::actor::STAMP_EVERY`] or more after the last time stored. A restart
    /// needs to know when the game last saw activity (to end a game nobody plays when the
    /// policy says, not later and never earlier), to within that much, and a time on every
    /// action (7 bytes) would grow a match's log by a third (its entries average 21 bytes).
    #[prost(int64, tag = "15")]
    pub at_ms: i64,
}

impl Entry {
    /// An entry of this kind, not stamped with a time.
    pub fn of(kind: EntryKind) -> Entry {
        Entry {
            kind: Some(kind),
            at_ms: 0,
        }
    }
}

/// The kinds of log entries.
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum EntryKind {
    /// A player took a seat.
    #[prost(message, tag = "1")]
    Join(JoinEntry),
    /// A player left a seat.
    #[prost(message, tag = "2")]
    Leave(LeaveEntry),
    /// A seat acted.
    #[prost(message, tag = "3")]
    Act(ActEntry),
    /// A seat's time ran out.
    #[prost(message, tag = "4")]
    Timeout(TimeoutEntry),
    /// The game was created: the first entry of every game created since creator tokens
    /// exist (older games have none, and cannot be cancelled).
    #[prost(message, tag = "5")]
    Created(CreatedEntry),
    /// The server ended a game nobody plays, or its creator cancelled it.
    #[prost(message, tag = "6")]
    End(EndEntry),
}

/// The game was created.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CreatedEntry {
    /// The creator token (see [`crate::auth::Token`]), stored as the seats' tokens are.
    #[prost(string, tag = "1")]
    pub creator_token: String,
    /// True for a game the lobby created (for a seek or a challenge). The lobby records such a
    /// game in another write; a restart ends one it finds no record of (see
    /// [`EndCause::Unrecorded`]).
    #[prost(bool, tag = "2")]
    pub for_lobby: bool,
}

/// The server ended the game (or its creator cancelled it): why, as decided when it was stored,
/// so that a restart, or other timeouts after it, end it the same.
#[derive(Clone, PartialEq, prost::Message)]
pub struct EndEntry {
    /// Why the game ended.
    #[prost(enumeration = "EndCause", tag = "1")]
    pub cause: i32,
}

/// Why the server ended a game that no time-out ended (see `docs/protocol.md`, "Games nobody
/// plays").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum EndCause {
    /// Not used.
    Unspecified = 0,
    /// A waiting game's seats were not all taken in time (`--waiting-timeout-secs`).
    Expired = 1,
    /// Its creator cancelled the waiting game (CancelGame).
    Cancelled = 2,
    /// No seat of a game without a time control acted, joined or left for
    /// `--idle-timeout-secs`.
    Idle = 3,
    /// Every seat of a started game was left for `--left-timeout-secs`.
    Left = 4,
    /// The lobby created the game but its record of it was never stored: the server stopped
    /// between the two writes (nobody was told of the game), or the database refused the
    /// record (the players were told until the restart only). Nobody can play or rate it after
    /// a restart, so the restart ends it.
    Unrecorded = 5,
}

impl EndCause {
    /// How the match ends, on the wire, for a game that had `started` or not: an unrecorded
    /// lobby game is cancelled if it never started, abandoned if it did.
    pub fn end_kind(self, started: bool) -> v1::MatchEndKind {
        match self {
            EndCause::Expired => v1::MatchEndKind::Expired,
            EndCause::Cancelled => v1::MatchEndKind::Cancelled,
            EndCause::Unrecorded if !started => v1::MatchEndKind::Cancelled,
            EndCause::Idle | EndCause::Left | EndCause::Unrecorded | EndCause::Unspecified => {
                v1::MatchEndKind::Abandoned
            }
        }
    }
}

/// A player took a seat.
#[derive(Clone, PartialEq, prost::Message)]
pub struct JoinEntry {
    /// The seat.
    #[prost(uint32, tag = "1")]
    pub seat: u32,
    /// The display name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// The seat's token.
    #[prost(string, tag = "3")]
    pub token: String,
}

/// A player left a seat.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LeaveEntry {
    /// The seat.
    #[prost(uint32, tag = "1")]
    pub seat: u32,
}

/// A seat acted.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ActEntry {
    /// The seat.
    #[prost(uint32, tag = "1")]
    pub seat: u32,
    /// The client's request id.
    #[prost(string, tag = "2")]
    pub request_id: String,
    /// The action.
    #[prost(message, optional, tag = "3")]
    pub action: Option<v1::Action>,
}

/// A seat's move time ran out.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TimeoutEntry {
    /// The seat.
    #[prost(uint32, tag = "1")]
    pub seat: u32,
    /// The fallback action the server played, if the policy plays one.
    #[prost(message, optional, tag = "2")]
    pub action: Option<v1::Action>,
    /// This time-out abandoned the match (no seat had acted for [`crate::actor::ABANDON_AFTER`]
    /// time-outs of each): no action, the match ends with no winner. Logged, not recomputed on
    /// replay, so a restart ends the game where it ended.
    #[prost(bool, tag = "3")]
    pub abandoned: bool,
}

/// A game as stored: its creation and its log.
#[derive(Clone, Debug)]
pub struct StoredGame {
    /// The id.
    pub id: String,
    /// Creation time, milliseconds since the epoch.
    pub created_ms: i64,
    /// The creating request, with the seed the server chose filled in.
    pub request: v1::CreateGameRequest,
    /// The log, in order.
    pub entries: Vec<Entry>,
}

/// A stored game that cannot be read back whole: a row of it that fails its checksum, an
/// undecodable request or log entry, a gap in its log, or a log without its game's row. Replaying what can be read would rebuild a different game, so the server
/// does not serve it (it answers `BAD_LOG`) and the operator repairs or removes it.
#[derive(Clone, Debug)]
pub struct DamagedGame {
    /// The id.
    pub id: String,
    /// What is wrong, for the operator (never shown to clients).
    pub why: String,
}

/// Everything the database held when it was opened.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The games that read back whole, in creation order.
    pub games: Vec<StoredGame>,
    /// The games that did not.
    pub damaged: Vec<DamagedGame>,
    /// Rows that belong to no game that could be told: their key cannot be read, or they fail
    /// their checksum and match no game's. Skipped (and logged), left in the database.
    pub bad_rows: Vec<BadRow>,
    /// The lobby's players, ratings, records and events.
    pub lobby: LobbyLoaded,
}

/// A stored row that is not read into any game.
#[derive(Clone, Debug)]
pub struct BadRow {
    /// `games` or `entries`.
    pub table: &'static str,
    /// Its rowid, to find it with `sqlite3`.
    pub rowid: i64,
    /// What is wrong, for the operator.
    pub why: String,
}

/// A switch that makes every write fail while it is on, as a full disk or a lost volume
/// would: for tests of what the server answers then. Shared by every clone of a [`Store`]
/// (see [`Store::write_faults`]); off unless a test turns it on.
#[derive(Clone, Debug, Default)]
pub struct WriteFaults(Arc<AtomicBool>);

impl WriteFaults {
    /// Makes writes fail (`true`) or work again (`false`).
    pub fn set(&self, failing: bool) {
        self.0.store(failing, Ordering::SeqCst);
    }

    fn failing(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Why storage failed.
#[derive(Clone, Debug)]
pub struct StoreError(pub String);

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "storage failed: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

enum Write {
    Game {
        id: String,
        created_ms: i64,
        request: Vec<u8>,
        crc: u32,
        /// The log's first entry (number 0) and its checksum, written in the same transaction.
        first: Option<(Vec<u8>, u32)>,
        ack: oneshot::Sender<Result<(), StoreError>>,
    },
    Entry {
        game_id: String,
        n: u64,
        entry: Vec<u8>,
        crc: u32,
        ack: oneshot::Sender<Result<(), StoreError>>,
    },
    /// Changes to the lobby's tables, committed together.
    Lobby {
        ops: Vec<LobbyOp>,
        ack: oneshot::Sender<Result<(), StoreError>>,
    },
}

/// The handle to storage; cheap to clone.
#[derive(Clone)]
pub struct Store {
    tx: Option<mpsc::Sender<ToWriter>>,
    thread: Arc<Mutex<Option<JoinHandle<()>>>>,
    faults: WriteFaults,
}

/// Most rows committed in one transaction.
const BATCH: usize = 4096;

/// Pages in the write-ahead log after which the writer checkpoints it. Small, so that each
/// checkpoint is short (about a millisecond here) and the log stays under a megabyte.
const CHECKPOINT_PAGES: i32 = 128;

impl Store {
    /// Storage that keeps nothing.
    pub fn memory() -> Store {
        Store {
            tx: None,
            thread: Arc::new(Mutex::new(None)),
            faults: WriteFaults::default(),
        }
    }

    /// Opens (or creates) the database at `path` and loads every game in it. A game that
    /// cannot be read back whole is listed among [`Loaded::damaged`] (and logged), not
    /// skipped silently; an unreadable database is an error naming the file.
    pub fn open(path: &Path, sync_full: bool) -> Result<(Store, Loaded), StoreError> {
        Store::open_with(path, sync_full, OpenFlags::default())
    }

    /// [`Store::open`] with SQLite's flags to open the file with (tests open read-only).
    fn open_with(
        path: &Path,
        sync_full: bool,
        flags: OpenFlags,
    ) -> Result<(Store, Loaded), StoreError> {
        let err = |e: rusqlite::Error| db_error(path, e);
        let conn = Connection::open_with_flags(path, flags).map_err(err)?;
        // SQLite opens a file it may not write read-only, and says so only at the first write
        // (as "attempt to write a readonly database", or in WAL mode "disk I/O error").
        if conn.is_readonly(MAIN_DB).map_err(err)? {
            return Err(read_only(path));
        }
        // Exclusive: one server owns the database while it runs (a second one is refused),
        // and SQLite then takes no file lock per transaction.
        conn.execute_batch(&format!(
            "PRAGMA locking_mode = EXCLUSIVE;
             PRAGMA journal_mode = WAL;
             PRAGMA synchronous = {};",
            if sync_full { "FULL" } else { "NORMAL" }
        ))
        .map_err(err)?;
        migrate(&conn, path)?;
        let mut loaded = load(&conn, path).map_err(err)?;
        loaded.lobby = lobby::load(&conn).map_err(err)?;
        // Where each stored log ends; a damaged game's log is closed to new entries.
        let mut ends: LogEnds = loaded
            .games
            .iter()
            .map(|g| (g.id.clone(), g.entries.len() as u64))
            .collect();
        ends.extend(loaded.damaged.iter().map(|d| (d.id.clone(), u64::MAX)));
        let watch = FileWatch::new(path)?;
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("canasta-store".into())
            .spawn(move || writer(conn, rx, ends, watch))
            .map_err(|e| StoreError(e.to_string()))?;
        Ok((
            Store {
                tx: Some(tx),
                thread: Arc::new(Mutex::new(Some(thread))),
                faults: WriteFaults::default(),
            },
            loaded,
        ))
    }

    /// True if nothing is written.
    pub fn is_memory(&self) -> bool {
        self.tx.is_none()
    }

    /// The switch that makes this store's writes fail (for tests).
    pub fn write_faults(&self) -> WriteFaults {
        self.faults.clone()
    }

    async fn send(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<(), StoreError>>) -> Write,
    ) -> Result<(), StoreError> {
        if self.faults.failing() {
            return Err(StoreError(
                "the database refuses writes (a fault injected by a test)".into(),
            ));
        }
        let Some(tx) = &self.tx else {
            return Ok(());
        };
        let (ack, done) = oneshot::channel();
        tx.send(ToWriter::Write(make(ack)))
            .map_err(|_| StoreError("the storage thread has stopped".into()))?;
        done.await
            .map_err(|_| StoreError("the storage thread has stopped".into()))?
    }

    /// Stores a new game; returns once it is committed.
    pub async fn create_game(
        &self,
        id: &str,
        created_ms: i64,
        request: &v1::CreateGameRequest,
    ) -> Result<(), StoreError> {
        self.create_game_with(id, created_ms, request, None).await
    }

    /// Stores a new game and, in the same transaction, the first entry of its log (given as
    /// its encoding, `Entry::encode`): both are stored or neither. Returns once committed.
    pub async fn create_game_with(
        &self,
        id: &str,
        created_ms: i64,
        request: &v1::CreateGameRequest,
        first: Option<&[u8]>,
    ) -> Result<(), StoreError> {
        let request = request.encode_to_vec();
        let crc = game_crc(id.as_bytes(), created_ms, &request);
        let first = first.map(|e| (e.to_vec(), entry_crc(id.as_bytes(), 0, e)));
        self.send(|ack| Write::Game {
            id: id.to_string(),
            created_ms,
            request,
            crc,
            first,
            ack,
        })
        .await
    }

    /// Stores entry number `n` of a game's log; returns once it is committed.
    pub async fn append(&self, game_id: &str, n: u64, entry: &Entry) -> Result<(), StoreError> {
        self.append_encoded(game_id, n, &entry.encode_to_vec())
            .await
    }

    /// Stores entry number `n` of a game's log, given as its encoding (`Entry::encode`);
    /// returns once it is committed. The actor encodes each entry once, for this and for the
    /// compact log it keeps; in memory mode the bytes are not even copied.
    pub async fn append_encoded(
        &self,
        game_id: &str,
        n: u64,
        entry: &[u8],
    ) -> Result<(), StoreError> {
        // The checksum is computed here, on the caller's task, not on the one writer thread.
        self.send(|ack| Write::Entry {
            game_id: game_id.to_string(),
            n,
            entry: entry.to_vec(),
            crc: entry_crc(game_id.as_bytes(), n as i64, entry),
            ack,
        })
        .await
    }

    /// Queues changes to the lobby's tables, at once and in the order of the calls (the
    /// caller may hold a lock meanwhile); the answer says when they are committed. In memory
    /// mode nothing is written and the answer is ready.
    pub fn lobby(
        &self,
        ops: Vec<LobbyOp>,
    ) -> impl std::future::Future<Output = Result<(), StoreError>> + Send + use<> {
        let queued = if self.faults.failing() {
            Err(StoreError(
                "the database refuses writes (a fault injected by a test)".into(),
            ))
        } else {
            match &self.tx {
                None => Ok(None),
                Some(tx) => {
                    let (ack, done) = oneshot::channel();
                    tx.send(ToWriter::Write(Write::Lobby { ops, ack }))
                        .map(|_| Some(done))
                        .map_err(|_| StoreError("the storage thread has stopped".into()))
                }
            }
        };
        async move {
            match queued? {
                None => Ok(()),
                Some(done) => done
                    .await
                    .map_err(|_| StoreError("the storage thread has stopped".into()))?,
            }
        }
    }

    /// Closes the storage, for every clone of this store: what was queued before is
    /// committed, the database is closed (and free for another server) when this returns, and
    /// later writes fail.
    pub fn close(&mut self) {
        if let Some(tx) = self.tx.take() {
            let _ = tx.send(ToWriter::Close);
        }
        if let Some(t) = self.thread.lock().expect("not poisoned").take() {
            let _ = t.join();
        }
    }
}

/// The database at `path` cannot be written.
fn read_only(path: &Path) -> StoreError {
    StoreError(format!(
        "{}: the database is read-only (the file, its directory or its file system refuses \
         this user's writes; the server writes the file and creates its -wal file next to \
         it): make them writable by the server's user (chmod u+w, chown), pass another --db, \
         or run with --memory to keep nothing",
        path.display()
    ))
}

/// An error of the database at `path`, said so that the operator knows what to do.
fn db_error(path: &Path, e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::ReadOnly) => {
            return StoreError(format!("{} ({e})", read_only(path).0));
        }
        Some(rusqlite::ErrorCode::CannotOpen) => {
            return StoreError(format!(
                "{}: {e}: the file or its -wal file cannot be opened: check that its directory \
                 exists and that the server's user may read and write the file and create files \
                 in the directory (or run with --memory to keep nothing)",
                path.display()
            ));
        }
        _ => {}
    }
    if e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) {
        // The server holds its database in exclusive mode while it runs.
        return StoreError(format!(
            "{}: {e}: another process holds it (a database serves one canasta-server at a \
             time): stop that server, or pass another --db",
            path.display()
        ));
    }
    StoreError(format!("{}: {e}", path.display()))
}

/// The layout of the database, kept in `PRAGMA user_version`.
///
/// Version 2: `entries` is a plain table in the order of writing (its rowid), with no index.
/// Every commit then appends to the table's last pages, whatever games its rows belong to,
/// where an index by game scattered each commit over a page per game: a write to SQLite costs
/// the pages it touches, and group commits mix many games. The server reads the log only when
/// it starts, in one scan.
///
/// Version 3: every row of both tables has a `crc` column, the CRC-32C of its key and bytes
/// ([`game_crc`], [`entry_crc`]). Opening an older database computes it for every row, once, in
/// the transaction that changes the layout: a row damaged before then is not told apart (its
/// checksum is of the damaged bytes), every change after is.
///
/// Version 4: the lobby's tables ([`lobby`]): players, ratings, records, events and pending
/// lobby games. An older database gains them, empty.
///
/// Version 5: the lobby's pending challenges (`lobby_challenges`), so that a restart keeps
/// them. An older database gains the table, empty.
const SCHEMA_VERSION: i64 = 5;

/// The checksum of a `games` row: its id, creation time and request.
pub fn game_crc(id: &[u8], created_ms: i64, request: &[u8]) -> u32 {
    Crc32c::default()
        .update(b"game")
        .update(&(id.len() as u64).to_le_bytes())
        .update(id)
        .update(&created_ms.to_le_bytes())
        .update(request)
        .finish()
}

/// The checksum of an `entries` row: its game's id, its number and its bytes. The key is in
/// it, so an entry moved to another game or number fails it too; `game` and `entry` tell the
/// two tables' rows apart.
pub fn entry_crc(game_id: &[u8], n: i64, entry: &[u8]) -> u32 {
    Crc32c::default()
        .update(b"entry")
        .update(&(game_id.len() as u64).to_le_bytes())
        .update(game_id)
        .update(&n.to_le_bytes())
        .update(entry)
        .finish()
}

/// Creates the tables, or brings an older database to [`SCHEMA_VERSION`].
fn migrate(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let err = |e: rusqlite::Error| db_error(path, e);
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(err)?;
    if version > SCHEMA_VERSION {
        return Err(StoreError(format!(
            "{}: the database has layout version {version}, newer than this server's \
             ({SCHEMA_VERSION}): use a newer canasta-server",
            path.display()
        )));
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    let has_table = |name: &str| -> Result<bool, StoreError> {
        conn.query_row(
            "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?1",
            [name],
            |r| r.get(0),
        )
        .map_err(err)
    };
    let has_games = has_table("games")?;
    let has_entries = has_table("entries")?;
    let tx = conn.unchecked_transaction().map_err(err)?;
    tx.execute_batch(&format!(
        "{}
         CREATE TABLE IF NOT EXISTS games (
             id TEXT PRIMARY KEY,
             created_ms INTEGER NOT NULL,
             request BLOB NOT NULL,
             crc INTEGER
         );
         {}
         {}
         CREATE TABLE IF NOT EXISTS entries (
             game_id TEXT NOT NULL,
             n INTEGER NOT NULL,
             entry BLOB NOT NULL,
             crc INTEGER
         );
         {}
         {}",
        // Version 2 rows have no checksum (version 3 has them).
        if has_games && version < 3 {
            "ALTER TABLE games ADD COLUMN crc INTEGER;"
        } else {
            ""
        },
        // Version 1 (no user_version) kept the entries in a table keyed by (game_id, n).
        if version < 2 && has_entries {
            "ALTER TABLE entries RENAME TO entries_v1;"
        } else {
            ""
        },
        if version == 2 && has_entries {
            "ALTER TABLE entries ADD COLUMN crc INTEGER;"
        } else {
            ""
        },
        if version < 2 && has_entries {
            "INSERT INTO entries (game_id, n, entry)
                 SELECT game_id, n, entry FROM entries_v1 ORDER BY game_id, n;
             DROP TABLE entries_v1;"
        } else {
            ""
        },
        lobby::TABLES,
    ))
    .map_err(err)?;
    // The checksums of the rows there are, computed over their bytes as they are (as load
    // reads them). A row whose values are not of their types keeps none: load names it.
    let filled = fill_checksums(&tx).map_err(err)?;
    tx.execute_batch(&format!("PRAGMA user_version = {SCHEMA_VERSION};"))
        .map_err(err)?;
    tx.commit().map_err(err)?;
    if version > 0 || filled > 0 {
        tracing::info!(
            db = %path.display(),
            from = version,
            to = SCHEMA_VERSION,
            rows = filled,
            "the database was brought to the current layout; its rows have checksums now"
        );
    }
    Ok(())
}

/// Computes the checksum of every row without one; returns how many it filled.
fn fill_checksums(conn: &Connection) -> rusqlite::Result<usize> {
    let mut filled = 0;
    let mut crcs = Vec::new();
    {
        let mut stmt =
            conn.prepare("SELECT rowid, id, created_ms, request FROM games WHERE crc IS NULL")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            if let (Some(id), Some(created_ms), Some(request)) = (
                bytes_of(r.get_ref(1)?),
                int_of(r.get_ref(2)?),
                bytes_of(r.get_ref(3)?),
            ) {
                crcs.push((r.get::<_, i64>(0)?, game_crc(id, created_ms, request)));
            }
        }
    }
    let mut update = conn.prepare("UPDATE games SET crc = ?2 WHERE rowid = ?1")?;
    for (rowid, crc) in crcs.drain(..) {
        filled += update.execute(params![rowid, crc])?;
    }
    {
        let mut stmt =
            conn.prepare("SELECT rowid, game_id, n, entry FROM entries WHERE crc IS NULL")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            if let (Some(id), Some(n), Some(entry)) = (
                bytes_of(r.get_ref(1)?),
                int_of(r.get_ref(2)?),
                bytes_of(r.get_ref(3)?),
            ) {
                crcs.push((r.get::<_, i64>(0)?, entry_crc(id, n, entry)));
            }
        }
    }
    let mut update = conn.prepare("UPDATE entries SET crc = ?2 WHERE rowid = ?1")?;
    for (rowid, crc) in crcs {
        filled += update.execute(params![rowid, crc])?;
    }
    Ok(filled)
}

/// A text or blob value's bytes (a flipped bit in a row's header can turn one into the other:
/// the checksum, not the type, says whether the bytes are sound).
fn bytes_of(v: ValueRef<'_>) -> Option<&[u8]> {
    match v {
        ValueRef::Text(b) | ValueRef::Blob(b) => Some(b),
        _ => None,
    }
}

fn int_of(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Integer(i) => Some(i),
        _ => None,
    }
}

/// A stored checksum, if the value is one.
fn crc_of(v: ValueRef<'_>) -> Option<u32> {
    int_of(v).and_then(|c| u32::try_from(c).ok())
}

/// A row as read, before it is known to be sound: `key` is the game's id, `n` the entry's
/// number (a game row's creation time), `bytes` the entry (the request).
struct RawRow {
    rowid: i64,
    key: Option<Vec<u8>>,
    n: Option<i64>,
    bytes: Option<Vec<u8>>,
    crc: Option<u32>,
}

impl RawRow {
    fn read(r: &rusqlite::Row<'_>) -> rusqlite::Result<RawRow> {
        Ok(RawRow {
            rowid: r.get(0)?,
            key: bytes_of(r.get_ref(1)?).map(<[u8]>::to_vec),
            n: int_of(r.get_ref(2)?),
            bytes: bytes_of(r.get_ref(3)?).map(<[u8]>::to_vec),
            crc: crc_of(r.get_ref(4)?),
        })
    }

    /// Whether the row's checksum is that of its key and bytes under `key` (its own, or
    /// another's when finding whose a damaged row is), with `crc` the table's checksum.
    fn checks_as(&self, key: &[u8], crc: fn(&[u8], i64, &[u8]) -> u32) -> bool {
        match (self.n, &self.bytes, self.crc) {
            (Some(n), Some(bytes), Some(stored)) => crc(key, n, bytes) == stored,
            _ => false,
        }
    }

    /// The row's key as a game id, if its checksum holds and it is one; else what is wrong.
    fn sound(&self, table: &str, crc: fn(&[u8], i64, &[u8]) -> u32) -> Result<String, String> {
        let row = match self.n {
            Some(n) if table == "entries" => format!("{table} row {} (entry {n})", self.rowid),
            _ => format!("{table} row {}", self.rowid),
        };
        let Some(key) = &self.key else {
            return Err(format!("{row}: its game id is not text"));
        };
        if self.n.is_none() || self.bytes.is_none() {
            return Err(format!("{row}: a value is not of its type"));
        }
        if self.crc.is_none() {
            return Err(format!("{row}: it has no checksum"));
        }
        if !self.checks_as(key, crc) {
            return Err(format!(
                "{row}: it fails its checksum (it was changed after it was written)"
            ));
        }
        match std::str::from_utf8(key) {
            Ok("") => Err(format!("{row}: its game id is empty")),
            Ok(id) => Ok(id.to_string()),
            Err(_) => Err(format!("{row}: its game id is not UTF-8")),
        }
    }

    /// The key, if it reads as a game id (whether or not the checksum holds).
    fn id(&self) -> Option<&str> {
        std::str::from_utf8(self.key.as_deref()?)
            .ok()
            .filter(|id| !id.is_empty())
    }
}

/// Most damaged rows whose game is looked for among all games (each costs a checksum per game).
const MAX_ROWS_MATCHED: usize = 64;

fn load(conn: &Connection, path: &Path) -> rusqlite::Result<Loaded> {
    let mut loaded = Loaded::default();
    // Every game's log in one scan, in the order written: a game's entries in their order.
    // The rows that are not sound wait until the games are known.
    let mut logs: HashMap<String, Vec<(i64, Vec<u8>)>> = HashMap::new();
    let mut log_order: Vec<String> = Vec::new();
    let mut bad_entries: Vec<(RawRow, String)> = Vec::new();
    let mut stmt =
        conn.prepare("SELECT rowid, game_id, n, entry, crc FROM entries ORDER BY rowid")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let row = RawRow::read(r)?;
        match row.sound("entries", entry_crc) {
            Ok(id) => {
                let log = logs.entry(id).or_insert_with_key(|id| {
                    log_order.push(id.clone());
                    Vec::new()
                });
                log.push((row.n.unwrap_or_default(), row.bytes.unwrap_or_default()));
            }
            Err(why) => bad_entries.push((row, why)),
        }
    }
    drop(rows);
    drop(stmt);
    // rowid is the order of creation; created_ms alone is not (many games share a millisecond).
    // Each game's row, sound or not, under the id it is found to be, in rowid order; with
    // what is wrong with the game.
    let mut games: Vec<(String, Option<RawRow>)> = Vec::new();
    let mut damage: HashMap<String, Vec<String>> = HashMap::new();
    let mut bad_games: Vec<(RawRow, String)> = Vec::new();
    let mut stmt =
        conn.prepare("SELECT rowid, id, created_ms, request, crc FROM games ORDER BY rowid")?;
    let mut rows = stmt.query([])?;
    while let Some(r) = rows.next()? {
        let row = RawRow::read(r)?;
        match row.sound("games", game_crc) {
            Ok(id) => games.push((id, Some(row))),
            Err(why) => bad_games.push((row, why)),
        }
    }
    drop(rows);
    drop(stmt);
    let mut known: std::collections::HashSet<String> =
        games.iter().map(|(id, _)| id.clone()).collect();
    // A game row that is not sound is its game's if its checksum matches a log without a game
    // (its id was damaged), or if its id reads as one (the damage is elsewhere in the row).
    for (row, why) in bad_games {
        let owner = log_order
            .iter()
            .find(|id| !known.contains(*id) && row.checks_as(id.as_bytes(), game_crc))
            .map(String::as_str)
            .or_else(|| row.id());
        match owner {
            Some(id) => {
                let id = id.to_string();
                known.insert(id.clone());
                damage.entry(id.clone()).or_default().push(why);
                games.push((id, None));
            }
            None => loaded.bad_rows.push(BadRow {
                table: "games",
                rowid: row.rowid,
                why,
            }),
        }
    }
    // A log whose game has no sound row: the row is missing or was damaged.
    for id in &log_order {
        if !known.contains(id) {
            known.insert(id.clone());
            damage
                .entry(id.clone())
                .or_default()
                .push("its log is stored but its row in games is missing or cannot be read".into());
            games.push((id.clone(), None));
        }
    }
    // An entry row that is not sound is the game's whose id its checksum matches (its id was
    // damaged), or else the game's its id names (the damage is elsewhere in the row); one that
    // is neither is named on its own.
    for (i, (row, why)) in bad_entries.into_iter().enumerate() {
        let mut owners: Vec<&str> = Vec::new();
        if i < MAX_ROWS_MATCHED {
            owners.extend(
                games
                    .iter()
                    .map(|(id, _)| id.as_str())
                    .filter(|id| row.checks_as(id.as_bytes(), entry_crc)),
            );
        }
        if owners.is_empty() {
            owners.extend(row.id().filter(|id| known.contains(*id)));
        }
        if owners.is_empty() {
            loaded.bad_rows.push(BadRow {
                table: "entries",
                rowid: row.rowid,
                why: format!("{why}, and it matches no game"),
            });
        }
        for id in owners {
            damage.entry(id.to_string()).or_default().push(why.clone());
        }
    }
    // Games in the order of their rows (damaged rows after the sound ones).
    games.sort_by_key(|(_, row)| row.as_ref().map_or(i64::MAX, |r| r.rowid));
    let mut seen = std::collections::HashSet::new();
    for (id, row) in games {
        if !seen.insert(id.clone()) {
            continue;
        }
        let log = logs.remove(&id).unwrap_or_default();
        let read = match (damage.remove(&id), row) {
            (Some(why), _) => Err(why.join("; ")),
            (None, Some(row)) => read_game(log, row.bytes.unwrap_or_default())
                .map(|(request, entries)| (row.n.unwrap_or_default(), request, entries)),
            (None, None) => Err("its row cannot be read".into()),
        };
        match read {
            Ok((created_ms, request, entries)) => loaded.games.push(StoredGame {
                id,
                created_ms,
                request,
                entries,
            }),
            Err(why) => {
                tracing::error!(
                    game = %id,
                    db = %path.display(),
                    %why,
                    "a stored game cannot be read back: it is not served (clients get BAD_LOG) \
                     until the database is repaired or the game removed"
                );
                loaded.damaged.push(DamagedGame { id, why });
            }
        }
    }
    for bad in &loaded.bad_rows {
        tracing::error!(
            db = %path.display(),
            table = bad.table,
            rowid = bad.rowid,
            why = %bad.why,
            "a stored row belongs to no game that can be told: it is skipped, and left in the \
             database for the operator to repair or delete"
        );
    }
    Ok(loaded)
}

/// One game's request and log (its sound entries, number and bytes, in the order written), or
/// what keeps them from being read whole.
fn read_game(
    entries: Vec<(i64, Vec<u8>)>,
    request: Vec<u8>,
) -> Result<(v1::CreateGameRequest, Vec<Entry>), String> {
    let request = v1::CreateGameRequest::decode(request.as_slice())
        .map_err(|e| format!("its creating request cannot be decoded: {e}"))?;
    let mut log = Vec::new();
    for (n, bytes) in entries {
        let expected = log.len() as i64;
        if n != expected {
            return Err(format!(
                "entry {expected} of its log is missing (the next one stored is {n})"
            ));
        }
        let entry = Entry::decode(bytes.as_slice())
            .map_err(|e| format!("entry {n} of its log cannot be decoded: {e}"))?;
        log.push(entry);
    }
    Ok((request, log))
}

/// The next entry number of each stored game's log. The entries table has no index that would
/// refuse a repeated or skipped number (see [`SCHEMA_VERSION`]): the writer does, from this.
type LogEnds = HashMap<String, u64>;

impl Write {
    /// Checks the write's place against where the logs end (`staged` first: the writes of the
    /// same batch before it); on success, records where its game's log now ends in `staged`.
    fn check_order<'a>(
        &'a self,
        ends: &LogEnds,
        staged: &mut HashMap<&'a str, u64>,
    ) -> Result<(), StoreError> {
        match self {
            Write::Game { id, first, .. } => {
                if staged.contains_key(id.as_str()) || ends.contains_key(id) {
                    return Err(StoreError(format!("game {id} is stored already")));
                }
                staged.insert(id, u64::from(first.is_some()));
            }
            Write::Lobby { .. } => {}
            Write::Entry { game_id, n, .. } => {
                let next = staged
                    .get(game_id.as_str())
                    .or_else(|| ends.get(game_id))
                    .copied();
                if next != Some(*n) {
                    return Err(StoreError(match next {
                        None => format!("game {game_id} is not stored"),
                        Some(u64::MAX) => format!("game {game_id}'s stored log is damaged"),
                        Some(next) => format!(
                            "entry {n} of game {game_id} is out of order: its log ends before \
                             entry {next}, and a log is never rewritten"
                        ),
                    }));
                }
                staged.insert(game_id, n + 1);
            }
        }
        Ok(())
    }

    /// The game the write is to, if it is to one.
    fn game_id(&self) -> Option<&str> {
        match self {
            Write::Game { id, .. } => Some(id),
            Write::Entry { game_id, .. } => Some(game_id),
            Write::Lobby { .. } => None,
        }
    }

    fn ack(self) -> oneshot::Sender<Result<(), StoreError>> {
        match self {
            Write::Game { ack, .. } | Write::Entry { ack, .. } | Write::Lobby { ack, .. } => ack,
        }
    }
}

/// What the writer thread is sent.
enum ToWriter {
    Write(Write),
    /// Commit what came before, close the database and stop.
    Close,
}

/// Whether the database file is still the one the server opened. SQLite writes to the file it
/// opened whatever happens to its name: if the file is deleted, moved or replaced while the
/// server runs, every later commit goes to a file that the next start will not read. The
/// writer checks after each commit, before it answers (a `stat` of the database and of its
/// write-ahead log: a few microseconds a batch), and from the first change on answers every
/// write with an error saying what happened: nothing is acknowledged that a restart would lose.
struct FileWatch {
    path: PathBuf,
    wal: PathBuf,
    db_id: Option<FileId>,
    wal_id: Option<FileId>,
    /// What happened, once it has: every later write fails with it.
    lost: Option<StoreError>,
}

/// A file's identity: its device and inode (on other systems, that it exists).
type FileId = (u64, u64);

fn file_id(path: &Path) -> std::io::Result<FileId> {
    let m = std::fs::metadata(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Ok((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        Ok((0, 0))
    }
}

impl FileWatch {
    fn new(path: &Path) -> Result<FileWatch, StoreError> {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let wal = PathBuf::from(wal);
        let db_id = file_id(path).map_err(|e| StoreError(format!("{}: {e}", path.display())))?;
        Ok(FileWatch {
            path: path.to_path_buf(),
            wal_id: file_id(&wal).ok(),
            wal,
            db_id: Some(db_id),
            lost: None,
        })
    }

    /// Ok if the files are the ones opened (the write-ahead log's is learned once it exists).
    fn check(&mut self) -> Result<(), StoreError> {
        if let Some(lost) = &self.lost {
            return Err(lost.clone());
        }
        let mut changed = None;
        for (path, id, what) in [
            (&self.path, &mut self.db_id, "database file"),
            (&self.wal, &mut self.wal_id, "database's write-ahead log"),
        ] {
            match (file_id(path), *id) {
                (Ok(now), None) => *id = Some(now),
                (Ok(now), Some(was)) if now == was => {}
                (Ok(_), Some(_)) => {
                    changed = Some(format!(
                        "the {what} {} was replaced by another file",
                        path.display()
                    ));
                }
                (Err(e), Some(_)) if e.kind() == std::io::ErrorKind::NotFound => {
                    changed = Some(format!(
                        "the {what} {} was deleted or moved",
                        path.display()
                    ));
                }
                (Err(_), None) => {}
                (Err(e), Some(_)) => {
                    // Not known to be gone (a directory made unreadable, say): this batch
                    // fails, the next is checked again.
                    return Err(StoreError(format!(
                        "the {what} {} cannot be checked: {e}: the writes were not acknowledged",
                        path.display()
                    )));
                }
            }
            if changed.is_some() {
                break;
            }
        }
        let Some(changed) = changed else {
            return Ok(());
        };
        let lost = StoreError(format!(
            "{changed} while the server ran: what it writes now would be lost at the next \
             start, so it stores and acknowledges nothing more. Put the database back where it \
             was (restore it from a backup if it is gone) and restart the server; the games \
             are back as last acknowledged"
        ));
        tracing::error!(db = %self.path.display(), error = %lost.0, "storage stopped");
        self.lost = Some(lost.clone());
        Err(lost)
    }
}

fn writer(
    mut conn: Connection,
    rx: mpsc::Receiver<ToWriter>,
    mut ends: LogEnds,
    mut watch: FileWatch,
) {
    // The log's size after each commit, told by SQLite. Setting this hook also turns off
    // SQLite's own checkpoints, which would run inside the commit, before the writers are
    // answered.
    let wal_pages = Arc::new(AtomicI32::new(0));
    let told = Arc::clone(&wal_pages);
    if let Err(e) = conn.wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, pages| {
        told.store(pages, Ordering::Relaxed);
        Ok(())
    })) {
        tracing::warn!(error = %e, "cannot follow the write-ahead log: SQLite checkpoints it");
    }
    let mut checkpoints = Checkpoints::default();
    let mut open = true;
    while open {
        let mut batch = match rx.recv() {
            Ok(ToWriter::Write(w)) => vec![w],
            Ok(ToWriter::Close) | Err(_) => break,
        };
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(ToWriter::Write(w)) => batch.push(w),
                Ok(ToWriter::Close) => {
                    open = false;
                    break;
                }
                Err(_) => break,
            }
        }
        let results = match watch.lost.clone() {
            Some(lost) => vec![Err(lost); batch.len()],
            None => {
                let mut results = write_batch(&mut conn, &batch, &mut ends, &watch.path);
                // After the commit, before anyone is answered: a write acknowledged is in the
                // file that the next start reads.
                if let Err(e) = watch.check() {
                    for r in results.iter_mut().filter(|r| r.is_ok()) {
                        *r = Err(e.clone());
                    }
                }
                results
            }
        };
        for (w, result) in batch.into_iter().zip(results) {
            if let Err(e) = &result
                && watch.lost.is_none()
            {
                tracing::error!(error = %e, "a write failed");
            }
            let _ = w.ack().send(result);
        }
        let pages = wal_pages.load(Ordering::Relaxed);
        if checkpoints.due(pages) && watch.lost.is_none() {
            // With this one connection nothing else reads or writes, so the whole log is
            // copied and the next commit starts it anew.
            let done = conn
                .wal_checkpoint_v2(Some(MAIN_DB), CheckpointMode::PASSIVE)
                .map(|_| ());
            if done.is_ok() {
                wal_pages.store(0, Ordering::Relaxed);
            }
            checkpoints.after(pages, done);
        }
    }
}

/// When the writer checkpoints the write-ahead log: every [`CHECKPOINT_PAGES`] pages while
/// checkpoints work. After a failure (the disk full, say) it waits for the log to grow by
/// twice as much as the time before (up to 64 times [`CHECKPOINT_PAGES`]) before trying
/// again, so that a lasting failure neither slows every commit nor fills the server's log with
/// a warning each: it warns at the 1st, 2nd, 4th, 8th… failure in a row, and says when
/// checkpoints work again. Nothing is lost meanwhile: the log only grows.
#[derive(Debug)]
struct Checkpoints {
    /// The log's size, in pages, at which the next checkpoint is due.
    due_at: i32,
    /// Failures in a row.
    failures: u32,
}

impl Default for Checkpoints {
    fn default() -> Self {
        Checkpoints {
            due_at: CHECKPOINT_PAGES,
            failures: 0,
        }
    }
}

impl Checkpoints {
    /// Whether a log of `pages` pages is to be checkpointed now.
    fn due(&self, pages: i32) -> bool {
        pages >= self.due_at
    }

    /// Records how a checkpoint of a log of `pages` pages went; returns whether it warned.
    fn after(&mut self, pages: i32, result: rusqlite::Result<()>) -> bool {
        match result {
            Ok(()) => {
                if self.failures > 0 {
                    tracing::info!(
                        failures = self.failures,
                        "checkpoints of the write-ahead log work again"
                    );
                }
                *self = Checkpoints::default();
                false
            }
            Err(e) => {
                self.failures += 1;
                let wait = CHECKPOINT_PAGES << self.failures.min(6);
                self.due_at = pages.saturating_add(wait);
                let warn = self.failures.is_power_of_two();
                if warn {
                    tracing::warn!(
                        error = %e,
                        failures = self.failures,
                        next_at_pages = self.due_at,
                        "a checkpoint of the write-ahead log failed; the log grows until one \
                         works (nothing is lost)"
                    );
                }
                warn
            }
        }
    }
}

/// Writes what of `batch` is in order, in one transaction if it can; returns each write's
/// result and moves `ends` on.
fn write_batch(
    conn: &mut Connection,
    batch: &[Write],
    ends: &mut LogEnds,
    path: &Path,
) -> Vec<Result<(), StoreError>> {
    let mut staged = HashMap::new();
    let checked: Vec<Result<(), StoreError>> = batch
        .iter()
        .map(|w| w.check_order(ends, &mut staged))
        .collect();
    let in_order = || batch.iter().zip(&checked).filter(|(_, c)| c.is_ok());
    match commit(conn, in_order().map(|(w, _)| w)) {
        Ok(()) => {
            for (id, next) in staged {
                ends.insert(id.to_string(), next);
            }
            checked
        }
        // One bad row must not fail the others: write them one by one, each checked again
        // against what is written by then.
        Err(e) if in_order().count() > 1 => {
            tracing::warn!(error = %e, "a group commit failed: writing its rows one by one");
            batch
                .iter()
                .zip(checked)
                .map(|(w, checked)| {
                    checked?;
                    let mut staged = HashMap::new();
                    w.check_order(ends, &mut staged)?;
                    commit(conn, std::iter::once(w)).map_err(|e| db_error(path, e))?;
                    if let Some(id) = w.game_id() {
                        ends.insert(id.to_string(), staged[id]);
                    }
                    Ok(())
                })
                .collect()
        }
        Err(e) => {
            let e = db_error(path, e);
            checked.into_iter().map(|c| c.and(Err(e.clone()))).collect()
        }
    }
}

fn commit<'a>(
    conn: &mut Connection,
    writes: impl Iterator<Item = &'a Write>,
) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    {
        let mut game = tx.prepare_cached(
            "INSERT INTO games (id, created_ms, request, crc) VALUES (?1, ?2, ?3, ?4)",
        )?;
        let mut entry = tx.prepare_cached(
            "INSERT INTO entries (game_id, n, entry, crc) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for w in writes {
            match w {
                Write::Game {
                    id,
                    created_ms,
                    request,
                    crc,
                    first,
                    ..
                } => {
                    game.execute(params![id, created_ms, request, crc])?;
                    if let Some((e, crc)) = first {
                        entry.execute(params![id, 0i64, e, crc])?;
                    }
                }
                Write::Entry {
                    game_id,
                    n,
                    entry: e,
                    crc,
                    ..
                } => {
                    entry.execute(params![game_id, *n as i64, e, crc])?;
                }
                Write::Lobby { ops, .. } => lobby::commit(&tx, ops)?,
            }
        }
    }
    tx.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn games_and_entries_survive_a_reopen() {
        let (_dir, path) = temp_db("reopen");
        let (mut store, loaded) = Store::open(&path, false).unwrap();
        assert!(loaded.games.is_empty() && loaded.damaged.is_empty());
        let request = v1::CreateGameRequest {
            seed: Some(7),
            ..Default::default()
        };
        store.create_game("g1", 5, &request).await.unwrap();
        let entry = Entry::of(EntryKind::Leave(LeaveEntry { seat: 2 }));
        store.append("g1", 0, &entry).await.unwrap();
        store.append("g1", 1, &entry).await.unwrap();
        // The same entry number twice is refused: a log is never rewritten.
        assert!(store.append("g1", 1, &entry).await.is_err());
        store.close();
        let (_store, loaded) = Store::open(&path, false).unwrap();
        assert!(loaded.damaged.is_empty());
        let games = loaded.games;
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].request.seed, Some(7));
        assert_eq!(games[0].entries, vec![entry.clone(), entry]);
    }

    #[tokio::test]
    async fn entries_out_of_order_are_refused_and_the_rest_of_the_batch_is_written() {
        let (_dir, path) = temp_db("order");
        let (mut store, _) = Store::open(&path, false).unwrap();
        let request = v1::CreateGameRequest::default();
        let entry = Entry::of(EntryKind::Leave(LeaveEntry { seat: 0 }));
        store.create_game("a", 1, &request).await.unwrap();
        store.create_game("b", 1, &request).await.unwrap();
        // A game stored twice, an entry of a game never stored, a gap, a repeat: refused.
        assert!(store.create_game("a", 1, &request).await.is_err());
        let err = store.append("nowhere", 0, &entry).await.unwrap_err();
        assert!(err.to_string().contains("not stored"), "{err}");
        let err = store.append("a", 1, &entry).await.unwrap_err();
        assert!(err.to_string().contains("out of order"), "{err}");
        // Writes queued together are checked in their order: a's 0 and 1 and b's 0 pass, a's
        // second 1 does not.
        let (r0, r1, r2, r3) = tokio::join!(
            store.append("a", 0, &entry),
            store.append("a", 1, &entry),
            store.append("b", 0, &entry),
            store.append("a", 1, &entry),
        );
        let results = [r0.is_ok(), r1.is_ok(), r2.is_ok(), r3.is_ok()];
        assert_eq!(results, [true, true, true, false]);
        store.close();
        let (_store, loaded) = Store::open(&path, false).unwrap();
        assert!(loaded.damaged.is_empty());
        let lens: Vec<(&str, usize)> = loaded
            .games
            .iter()
            .map(|g| (g.id.as_str(), g.entries.len()))
            .collect();
        assert_eq!(lens, [("a", 2), ("b", 1)]);
    }

    // A game stored with its first entry has both, as entry 0 of its log, and its log goes on
    // from entry 1; a game stored twice writes neither, its entry included.
    #[tokio::test]
    async fn a_game_and_its_first_entry_are_stored_together() {
        let (_dir, path) = temp_db("first");
        let (mut store, _) = Store::open(&path, false).unwrap();
        let request = v1::CreateGameRequest::default();
        let mut created = Entry::of(EntryKind::Created(CreatedEntry {
            creator_token: "c".repeat(32),
            for_lobby: false,
        }));
        created.at_ms = 1_700_000_000_000;
        let first = created.encode_to_vec();
        store
            .create_game_with("a", 1, &request, Some(&first))
            .await
            .unwrap();
        let err = store.append("a", 0, &created).await.unwrap_err();
        assert!(err.to_string().contains("out of order"), "{err}");
        let leave = Entry::of(EntryKind::Leave(LeaveEntry { seat: 0 }));
        store.append("a", 1, &leave).await.unwrap();
        let other = Entry::of(EntryKind::Created(CreatedEntry {
            creator_token: "d".repeat(32),
            for_lobby: false,
        }))
        .encode_to_vec();
        assert!(
            store
                .create_game_with("a", 1, &request, Some(&other))
                .await
                .is_err()
        );
        store.close();
        let (_store, loaded) = Store::open(&path, false).unwrap();
        assert!(loaded.damaged.is_empty() && loaded.bad_rows.is_empty());
        assert_eq!(loaded.games.len(), 1);
        assert_eq!(loaded.games[0].entries, vec![created, leave]);
    }

    // A database of layout 3 (main's before the lobby) opens, keeps its games and gains the
    // lobby's tables; the lobby's rows written then read back: players, ratings, records (the
    // last ones and the counts), the kept tail of events, and the pending games (a done game
    // is pending no more).
    #[tokio::test]
    async fn a_layout_3_database_gains_the_lobby_s_tables_and_its_rows_read_back() {
        let (_dir, path) = temp_db("lobby");
        {
            let (mut store, _) = Store::open(&path, false).unwrap();
            store
                .create_game("g", 1, &v1::CreateGameRequest::default())
                .await
                .unwrap();
            store.close();
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "DROP TABLE players; DROP TABLE player_ratings; DROP TABLE player_games;
                 DROP TABLE player_events; DROP TABLE lobby_games; PRAGMA user_version = 3;",
            )
            .unwrap();
        }
        let (mut store, loaded) = Store::open(&path, false).unwrap();
        assert_eq!(loaded.games.len(), 1);
        assert!(loaded.lobby.players.is_empty());
        let player = |id: u32| {
            LobbyOp::Player(PlayerRow {
                id,
                name: format!("p{id}"),
                key_hash: [id as u8; 32],
                house: id == 1,
                created_ms: 5,
            })
        };
        let mut ops = vec![player(0), player(1)];
        ops.push(LobbyOp::Rating(RatingRow {
            player: 0,
            preset: 1,
            player_count: 4,
            mu: 26.5,
            sigma: 7.0,
            games: 1,
            wins: 1,
        }));
        for (i, won) in [true, false, true].into_iter().enumerate() {
            ops.push(LobbyOp::Played {
                player: 0,
                won,
                game: vec![i as u8],
            });
        }
        for seq in 1..=5 {
            ops.push(LobbyOp::Event {
                player: 1,
                seq,
                event: vec![seq as u8],
                keep: 3,
            });
        }
        for id in ["a", "b"] {
            ops.push(LobbyOp::GameStarted {
                game_id: id.into(),
                row: LobbyGameRow {
                    players: vec![0, 1],
                    rated: true,
                },
            });
        }
        ops.push(LobbyOp::GameDone {
            game_id: "a".into(),
        });
        store.lobby(ops).await.unwrap();
        store.close();
        let (_store, loaded) = Store::open(&path, false).unwrap();
        let lobby = loaded.lobby;
        let names: Vec<_> = lobby
            .players
            .iter()
            .map(|p| (p.id, p.name.as_str(), p.house))
            .collect();
        assert_eq!(names, vec![(0, "p0", false), (1, "p1", true)]);
        assert_eq!(lobby.players[1].key_hash, [1; 32]);
        assert_eq!(lobby.ratings.len(), 1);
        assert_eq!((lobby.ratings[0].mu, lobby.ratings[0].wins), (26.5, 1));
        assert_eq!(lobby.counts, vec![(0, 3, 2)]);
        assert_eq!(lobby.recent, vec![(0, vec![0]), (0, vec![1]), (0, vec![2])]);
        let events: Vec<u64> = lobby.events.iter().map(|e| e.1).collect();
        assert_eq!(events, vec![3, 4, 5], "the last 3 are kept");
        assert_eq!(lobby.games.len(), 1);
        assert_eq!(lobby.games[0].0, "b");
    }

    // A database of layout 4 (the lobby without its pending challenges) opens, keeps its
    // lobby's rows and gains the challenges' table at the current layout; a challenge written
    // then, changed (an answer) and another ended read back: the pending one as last written,
    // in the order they were made.
    #[tokio::test]
    async fn a_layout_4_database_gains_the_pending_challenges_and_they_read_back() {
        let (_dir, path) = temp_db("challenges");
        {
            let (mut store, _) = Store::open(&path, false).unwrap();
            store
                .lobby(vec![LobbyOp::Player(PlayerRow {
                    id: 0,
                    name: "p0".into(),
                    key_hash: [7; 32],
                    house: false,
                    created_ms: 5,
                })])
                .await
                .unwrap();
            store.close();
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch("DROP TABLE lobby_challenges; PRAGMA user_version = 4;")
                .unwrap();
        }
        let (mut store, loaded) = Store::open(&path, false).unwrap();
        assert_eq!(loaded.lobby.players.len(), 1, "the lobby's rows are kept");
        assert!(loaded.lobby.challenges.is_empty());
        let row = |answers: u8, seed| ChallengeRow {
            challenge: vec![answers],
            players: vec![0, 1],
            challenger: 0,
            seed,
        };
        let put = |id: &str, row: ChallengeRow| LobbyOp::Challenge {
            challenge_id: id.into(),
            row,
        };
        store
            .lobby(vec![
                put("c1", row(1, Some(9))),
                put("c2", row(1, None)),
                put("c3", row(1, None)),
            ])
            .await
            .unwrap();
        store
            .lobby(vec![
                put("c1", row(2, Some(9))),
                LobbyOp::ChallengeDone {
                    challenge_id: "c2".into(),
                },
            ])
            .await
            .unwrap();
        store.close();
        let version: i64 = Connection::open(&path)
            .unwrap()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let (_store, loaded) = Store::open(&path, false).unwrap();
        assert_eq!(
            loaded.lobby.challenges,
            vec![("c1".into(), row(2, Some(9))), ("c3".into(), row(1, None))]
        );
    }

    // A database of the first layout (entries keyed by game and number, no user_version) is
    // brought to the current one on opening, its games and logs intact; a newer one is refused.
    #[tokio::test]
    async fn an_older_database_is_migrated_and_a_newer_one_refused() {
        let (_dir, path) = temp_db("migrate");
        let entry = Entry::of(EntryKind::Leave(LeaveEntry { seat: 3 }));
        let request = v1::CreateGameRequest {
            seed: Some(11),
            ..Default::default()
        };
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "CREATE TABLE games (
                     id TEXT PRIMARY KEY,
                     created_ms INTEGER NOT NULL,
                     request BLOB NOT NULL
                 );
                 CREATE TABLE entries (
                     game_id TEXT NOT NULL,
                     n INTEGER NOT NULL,
                     entry BLOB NOT NULL,
                     PRIMARY KEY (game_id, n)
                 ) WITHOUT ROWID;",
            )
            .unwrap();
            for id in ["g2", "g1"] {
                conn.execute(
                    "INSERT INTO games (id, created_ms, request) VALUES (?1, 1, ?2)",
                    params![id, request.encode_to_vec()],
                )
                .unwrap();
            }
            // Written out of order on purpose: the old table kept them sorted by its key.
            for (id, n) in [("g1", 1), ("g2", 0), ("g1", 0), ("g1", 2)] {
                conn.execute(
                    "INSERT INTO entries (game_id, n, entry) VALUES (?1, ?2, ?3)",
                    params![id, n, entry.encode_to_vec()],
                )
                .unwrap();
            }
        }
        let (mut store, loaded) = Store::open(&path, false).unwrap();
        assert!(loaded.damaged.is_empty(), "{:?}", loaded.damaged);
        let lens: Vec<(&str, usize)> = loaded
            .games
            .iter()
            .map(|g| (g.id.as_str(), g.entries.len()))
            .collect();
        assert_eq!(lens, [("g2", 1), ("g1", 3)]);
        assert_eq!(loaded.games[1].request.seed, Some(11));
        // The logs go on where they ended.
        store.append("g1", 3, &entry).await.unwrap();
        assert!(store.append("g2", 0, &entry).await.is_err());
        store.close();
        let version: i64 = Connection::open(&path)
            .unwrap()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, SCHEMA_VERSION);
        let (mut store, loaded) = Store::open(&path, false).unwrap();
        assert_eq!(loaded.games[1].entries.len(), 4);
        store.close();
        Connection::open(&path)
            .unwrap()
            .execute_batch("PRAGMA user_version = 99;")
            .unwrap();
        let err = Store::open(&path, false)
            .err()
            .expect("a newer layout is refused");
        assert!(err.to_string().contains("newer"), "{err}");
    }

    /// A fresh directory (removed when dropped, even by a failing test) and the path of a
    /// database `t.db` in it.
    fn temp_db(name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::Builder::new()
            .prefix(&format!("canasta-store-{name}-"))
            .tempdir()
            .unwrap();
        let path = dir.path().join("t.db");
        (dir, path)
    }

    // After failed checkpoints the writer waits longer and longer (in pages of log) before it
    // tries again, warns less and less often, and starts afresh once one works.
    #[test]
    fn failed_checkpoints_are_tried_less_often_and_warned_of_less_often() {
        let failed = || {
            Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(13),
                None,
            ))
        };
        let mut c = Checkpoints::default();
        assert!(!c.due(CHECKPOINT_PAGES - 1) && c.due(CHECKPOINT_PAGES));
        let mut pages = CHECKPOINT_PAGES;
        let (mut waits, mut warned) = (vec![], vec![]);
        for failure in 1..=10 {
            if c.after(pages, failed()) {
                warned.push(failure);
            }
            let next = (pages..).find(|&p| c.due(p)).unwrap();
            waits.push((next - pages) / CHECKPOINT_PAGES);
            pages = next;
        }
        assert_eq!(waits, [2, 4, 8, 16, 32, 64, 64, 64, 64, 64]);
        assert_eq!(warned, [1, 2, 4, 8]);
        // One that works: every CHECKPOINT_PAGES pages again.
        assert!(!c.after(pages, Ok(())));
        assert!(!c.due(CHECKPOINT_PAGES - 1) && c.due(CHECKPOINT_PAGES));
        assert!(
            c.after(CHECKPOINT_PAGES, failed()),
            "a new run of failures warns"
        );
    }

    // The writer checkpoints the write-ahead log itself (SQLite's own checkpoints are off):
    // over many commits the log stays near CHECKPOINT_PAGES pages, and every entry is read
    // back after a reopen.
    #[tokio::test]
    async fn the_write_ahead_log_is_checkpointed_and_stays_small() {
        let (dir, path) = temp_db("checkpoint");
        let (mut store, _) = Store::open(&path, false).unwrap();
        store
            .create_game("g1", 5, &v1::CreateGameRequest::default())
            .await
            .unwrap();
        let entry = |n: u64| {
            Entry::of(EntryKind::Join(JoinEntry {
                seat: 0,
                name: format!("player {n}"),
                token: "t".repeat(40),
            }))
        };
        let wal = dir.path().join("t.db-wal");
        let page = 4096 + 24;
        let mut largest = 0;
        // One commit each: at least a page each, ten times the checkpoint's threshold.
        let entries = 10 * CHECKPOINT_PAGES as u64;
        for n in 0..entries {
            store.append("g1", n, &entry(n)).await.unwrap();
            largest = largest.max(std::fs::metadata(&wal).unwrap().len());
        }
        assert!(
            largest <= (CHECKPOINT_PAGES as u64 + 4) * page + 32,
            "the log reached {largest} bytes, more than {CHECKPOINT_PAGES} pages"
        );
        store.close();
        let (_store, loaded) = Store::open(&path, false).unwrap();
        let entries_read: Vec<Entry> = (0..entries).map(entry).collect();
        assert_eq!(loaded.games[0].entries, entries_read);
    }

    #[tokio::test]
    async fn a_game_with_an_undecodable_or_missing_entry_is_reported_damaged() {
        let (_dir, path) = temp_db("damaged");
        let (mut store, _) = Store::open(&path, false).unwrap();
        let request = v1::CreateGameRequest::default();
        let entry = Entry::of(EntryKind::Leave(LeaveEntry { seat: 1 }));
        for id in ["good", "garbled", "gap", "bad-request"] {
            store.create_game(id, 1, &request).await.unwrap();
            for n in 0..3 {
                store.append(id, n, &entry).await.unwrap();
            }
        }
        store.close();
        {
            let conn = Connection::open(&path).unwrap();
            // Bytes that are no protobuf message: a field of wire type 7 (there is none), with
            // their checksum, as if written so (the checksum's own test is below).
            conn.execute(
                "UPDATE entries SET entry = X'0F0F0F', crc = ?1 WHERE game_id = 'garbled' AND n = 1",
                [entry_crc(b"garbled", 1, &[0x0F; 3])],
            )
            .unwrap();
            conn.execute("DELETE FROM entries WHERE game_id = 'gap' AND n = 1", [])
                .unwrap();
            conn.execute(
                "UPDATE games SET request = X'FF', crc = ?1 WHERE id = 'bad-request'",
                [game_crc(b"bad-request", 1, &[0xFF])],
            )
            .unwrap();
        }
        let (_store, loaded) = Store::open(&path, false).unwrap();
        let ids: Vec<&str> = loaded.games.iter().map(|g| g.id.as_str()).collect();
        assert_eq!(ids, ["good"]);
        assert_eq!(loaded.games[0].entries.len(), 3);
        let damaged: Vec<(&str, &str)> = loaded
            .damaged
            .iter()
            .map(|d| (d.id.as_str(), d.why.as_str()))
            .collect();
        assert_eq!(damaged.len(), 3, "{damaged:?}");
        assert_eq!(damaged[0].0, "garbled");
        assert!(
            damaged[0].1.contains("entry 1") && damaged[0].1.contains("decoded"),
            "{damaged:?}"
        );
        assert_eq!(damaged[1].0, "gap");
        assert!(
            damaged[1].1.contains("entry 1 of its log is missing"),
            "{damaged:?}"
        );
        assert_eq!(damaged[2].0, "bad-request");
        assert!(damaged[2].1.contains("request"), "{damaged:?}");
    }

    /// Games `a`, `b` and `c` of three entries each, the database closed: its directory
    /// (removed when dropped) and path, and the entries.
    async fn three_games(name: &str) -> (tempfile::TempDir, std::path::PathBuf, Vec<Entry>) {
        let (dir, path) = temp_db(name);
        let (mut store, _) = Store::open(&path, false).unwrap();
        let entries: Vec<Entry> = ["discard A\u{2663}", "draw", "discard 7\u{2665}"]
            .iter()
            .map(|name| {
                Entry::of(EntryKind::Join(JoinEntry {
                    seat: 1,
                    name: name.to_string(),
                    token: "t0k3n".into(),
                }))
            })
            .collect();
        for id in ["a", "b", "c"] {
            let request = v1::CreateGameRequest {
                seed: Some(id.len() as u64 + 40),
                ..Default::default()
            };
            store
                .create_game(id, 1_700_000_000_000, &request)
                .await
                .unwrap();
            for (n, e) in entries.iter().enumerate() {
                store.append(id, n as u64, e).await.unwrap();
            }
        }
        store.close();
        (dir, path, entries)
    }

    /// The value of column `col` of row `rowid` of `table`, with bit `bit` flipped (text
    /// stays text, a blob a blob, an integer an integer).
    fn flip(conn: &Connection, table: &str, col: &str, rowid: i64, bit: usize) {
        let sql = format!("SELECT {col} FROM {table} WHERE rowid = ?1");
        let value: rusqlite::types::Value = conn.query_row(&sql, [rowid], |r| r.get(0)).unwrap();
        use rusqlite::types::Value;
        let flipped = match value {
            Value::Integer(i) => Value::Integer(i ^ (1 << (bit % 64))),
            Value::Text(t) => {
                let mut b = t.into_bytes();
                let len = b.len();
                b[bit / 8 % len] ^= 1 << (bit % 8);
                let sql = format!("UPDATE {table} SET {col} = CAST(?1 AS TEXT) WHERE rowid = ?2");
                conn.execute(&sql, params![b, rowid]).unwrap();
                return;
            }
            Value::Blob(mut b) => {
                let len = b.len();
                b[bit / 8 % len] ^= 1 << (bit % 8);
                Value::Blob(b)
            }
            other => panic!("{other:?}"),
        };
        let sql = format!("UPDATE {table} SET {col} = ?1 WHERE rowid = ?2");
        conn.execute(&sql, params![flipped, rowid]).unwrap();
    }

    // Any one bit flipped in any column of a stored row (an entry's bytes, its game id, its
    // number, its checksum; a game's id, creation time, request, checksum) makes that game
    // damaged, named with the row; the other games read back whole. Before the checksums,
    // most flips of an entry's bytes decoded to another entry and were served as such, and a
    // flip of a game id that left it invalid UTF-8 stopped every game from loading.
    #[tokio::test]
    async fn every_bit_flipped_in_a_stored_row_makes_its_game_damaged_and_only_that_one() {
        let (_dir, path, entries) = three_games("flips").await;
        let pristine = std::fs::read(&path).unwrap();
        let (b_rowid, b_entry_rowid): (i64, i64) = {
            let conn = Connection::open(&path).unwrap();
            (
                conn.query_row("SELECT rowid FROM games WHERE id = 'b'", [], |r| r.get(0))
                    .unwrap(),
                conn.query_row(
                    "SELECT rowid FROM entries WHERE game_id = 'b' AND n = 1",
                    [],
                    |r| r.get(0),
                )
                .unwrap(),
            )
        };
        let last_rowid = b_entry_rowid + 1;
        let entry_bits = entries[1].encoded_len() * 8;
        let mut cases: Vec<(&str, &str, i64, usize)> = Vec::new();
        for bit in 0..entry_bits {
            cases.push(("entries", "entry", b_entry_rowid, bit));
        }
        for bit in 0..8 {
            // The id of the middle entry and of the last one (whose loss would leave no gap).
            cases.push(("entries", "game_id", b_entry_rowid, bit));
            cases.push(("entries", "game_id", last_rowid, bit));
            // (Not bit 0: 'b' would become 'c', which the table's unique index refuses.)
            if bit > 0 {
                cases.push(("games", "id", b_rowid, bit));
            }
        }
        for bit in [0, 1, 5, 31, 40, 63] {
            cases.push(("entries", "n", b_entry_rowid, bit));
            cases.push(("entries", "crc", last_rowid, bit));
            cases.push(("games", "created_ms", b_rowid, bit));
            cases.push(("games", "crc", b_rowid, bit));
        }
        for bit in 0..16 {
            cases.push(("games", "request", b_rowid, bit));
        }
        for (table, col, rowid, bit) in cases {
            std::fs::write(&path, &pristine).unwrap();
            flip(&Connection::open(&path).unwrap(), table, col, rowid, bit);
            let case = format!("{table}.{col} of row {rowid}, bit {bit}");
            let (mut store, loaded) = Store::open(&path, false).expect(&case);
            let served: Vec<&str> = loaded.games.iter().map(|g| g.id.as_str()).collect();
            assert_eq!(served, ["a", "c"], "{case}: {:?}", loaded.damaged);
            assert!(loaded.games.iter().all(|g| g.entries == entries), "{case}");
            assert!(loaded.bad_rows.is_empty(), "{case}: {:?}", loaded.bad_rows);
            let damaged = loaded.damaged.iter().find(|d| d.id == "b");
            let damaged = damaged.unwrap_or_else(|| panic!("{case}: {:?}", loaded.damaged));
            assert!(
                damaged.why.contains(&format!("{table} row {rowid}")),
                "{case}: {}",
                damaged.why
            );
            // b's log is closed to new entries; the others go on.
            assert!(store.append("b", 3, &entries[0]).await.is_err(), "{case}");
            store.append("a", 3, &entries[0]).await.unwrap();
            store.close();
        }
    }

    // Rows whose key cannot be read, or that fail their checksum and match no game, do not
    // stop the others from loading: they are skipped and named by table and rowid. A log whose
    // game row is gone makes that game damaged (BAD_LOG, not GAME_NOT_FOUND). Before, one row
    // with a game id that was not UTF-8 failed the whole load, naming neither game nor row.
    #[tokio::test]
    async fn unreadable_rows_are_skipped_and_named_and_the_other_games_load() {
        let (_dir, path, entries) = three_games("quarantine").await;
        {
            let (mut store, _) = Store::open(&path, false).unwrap();
            store
                .create_game("empty", 2, &v1::CreateGameRequest::default())
                .await
                .unwrap();
            store.close();
            let conn = Connection::open(&path).unwrap();
            // The game without entries: its id no longer UTF-8, and no log to match it by.
            conn.execute(
                "UPDATE games SET id = CAST(X'FF656D707479' AS TEXT) WHERE id = 'empty'",
                [],
            )
            .unwrap();
            // An entry of a game that is not there, with a checksum of nothing.
            conn.execute(
                "INSERT INTO entries (game_id, n, entry, crc) VALUES (12, 0, X'00', 0)",
                [],
            )
            .unwrap();
            // Game c's row deleted: its log stays.
            conn.execute("DELETE FROM games WHERE id = 'c'", [])
                .unwrap();
            // Game b's id not UTF-8 (its log names it: the row's checksum matches 'b').
            conn.execute(
                "UPDATE games SET id = CAST(X'E2' AS TEXT) WHERE id = 'b'",
                [],
            )
            .unwrap();
        }
        let (_store, loaded) = Store::open(&path, false).expect("the database loads");
        let served: Vec<&str> = loaded.games.iter().map(|g| g.id.as_str()).collect();
        assert_eq!(served, ["a"]);
        assert_eq!(loaded.games[0].entries, entries);
        let damaged: Vec<(&str, &str)> = loaded
            .damaged
            .iter()
            .map(|d| (d.id.as_str(), d.why.as_str()))
            .collect();
        assert_eq!(damaged.len(), 2, "{damaged:?}");
        assert_eq!(damaged[0].0, "b");
        assert!(
            damaged[0].1.contains("games row 2") && damaged[0].1.contains("checksum"),
            "{damaged:?}"
        );
        assert_eq!(damaged[1].0, "c");
        assert!(
            damaged[1].1.contains("row in games is missing"),
            "{damaged:?}"
        );
        let bad: Vec<(&str, i64, &str)> = loaded
            .bad_rows
            .iter()
            .map(|b| (b.table, b.rowid, b.why.as_str()))
            .collect();
        assert_eq!(bad.len(), 2, "{bad:?}");
        assert_eq!((bad[0].0, bad[0].1), ("games", 4));
        assert!(bad[0].2.contains("checksum"), "{bad:?}");
        assert_eq!((bad[1].0, bad[1].1), ("entries", 10));
        assert!(
            bad[1].2.contains("checksum") && bad[1].2.contains("matches no game"),
            "{bad:?}"
        );
    }

    // A database of layout 2 (no checksums) gets one for every row on opening, once: its games
    // read back whole, and a bit flipped afterwards is found.
    #[tokio::test]
    async fn a_database_without_checksums_gets_them_on_opening() {
        let (_dir, path) = temp_db("migrate-v2");
        let entry = Entry::of(EntryKind::Leave(LeaveEntry { seat: 2 }));
        let request = v1::CreateGameRequest {
            seed: Some(5),
            ..Default::default()
        };
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "CREATE TABLE games (
                     id TEXT PRIMARY KEY,
                     created_ms INTEGER NOT NULL,
                     request BLOB NOT NULL
                 );
                 CREATE TABLE entries (
                     game_id TEXT NOT NULL,
                     n INTEGER NOT NULL,
                     entry BLOB NOT NULL
                 );
                 PRAGMA user_version = 2;",
            )
            .unwrap();
            for id in ["x", "y"] {
                conn.execute(
                    "INSERT INTO games (id, created_ms, request) VALUES (?1, 3, ?2)",
                    params![id, request.encode_to_vec()],
                )
                .unwrap();
                for n in 0..2 {
                    conn.execute(
                        "INSERT INTO entries (game_id, n, entry) VALUES (?1, ?2, ?3)",
                        params![id, n, entry.encode_to_vec()],
                    )
                    .unwrap();
                }
            }
        }
        let (mut store, loaded) = Store::open(&path, false).unwrap();
        assert!(
            loaded.damaged.is_empty() && loaded.bad_rows.is_empty(),
            "{loaded:?}"
        );
        assert_eq!(loaded.games.len(), 2);
        assert_eq!(loaded.games[1].entries, vec![entry.clone(), entry.clone()]);
        store.append("y", 2, &entry).await.unwrap();
        store.close();
        let conn = Connection::open(&path).unwrap();
        let (version, unchecked): (i64, i64) = (
            conn.query_row("PRAGMA user_version", [], |r| r.get(0))
                .unwrap(),
            conn.query_row(
                "SELECT (SELECT COUNT(*) FROM games WHERE crc IS NULL)
                      + (SELECT COUNT(*) FROM entries WHERE crc IS NULL)",
                [],
                |r| r.get(0),
            )
            .unwrap(),
        );
        assert_eq!((version, unchecked), (SCHEMA_VERSION, 0));
        let rowid: i64 = conn
            .query_row(
                "SELECT rowid FROM entries WHERE game_id = 'x' AND n = 1",
                [],
                |r| r.get(0),
            )
            .unwrap();
        flip(&conn, "entries", "entry", rowid, 3);
        drop(conn);
        let (_store, loaded) = Store::open(&path, false).unwrap();
        assert_eq!(loaded.games.len(), 1);
        assert_eq!(loaded.games[0].entries.len(), 3);
        assert_eq!(loaded.damaged[0].id, "x");
        assert!(
            loaded.damaged[0].why.contains("fails its checksum"),
            "{:?}",
            loaded.damaged
        );
    }

    // A database deleted, moved or replaced while the store runs: the commit that finds it is
    // not acknowledged, nor anything after, and the error says what happened and what to do.
    // Before, every write was acknowledged and lost at the next start.
    #[tokio::test]
    async fn a_database_deleted_or_replaced_while_open_acknowledges_nothing_more() {
        let entry = Entry::of(EntryKind::Leave(LeaveEntry { seat: 0 }));
        for how in ["deleted", "moved", "replaced", "log deleted"] {
            let (dir, path) = temp_db("deleted");
            let (mut store, _) = Store::open(&path, false).unwrap();
            store
                .create_game("g", 1, &v1::CreateGameRequest::default())
                .await
                .unwrap();
            store.append("g", 0, &entry).await.unwrap();
            match how {
                "deleted" => std::fs::remove_file(&path).unwrap(),
                "moved" => std::fs::rename(&path, dir.path().join("elsewhere.db")).unwrap(),
                "replaced" => {
                    std::fs::copy(&path, dir.path().join("copy.db")).unwrap();
                    std::fs::rename(dir.path().join("copy.db"), &path).unwrap();
                }
                _ => std::fs::remove_file(dir.path().join("t.db-wal")).unwrap(),
            }
            for n in 1..3 {
                let err = store.append("g", n, &entry).await.unwrap_err().to_string();
                let what = if how == "log deleted" {
                    "write-ahead log"
                } else {
                    "database file"
                };
                let happened = if how == "replaced" {
                    "was replaced"
                } else {
                    "was deleted or moved"
                };
                assert!(err.contains(what) && err.contains(happened), "{how}: {err}");
                assert!(err.contains("restart the server"), "{how}: {err}");
            }
            let err = store
                .create_game("h", 1, &v1::CreateGameRequest::default())
                .await
                .unwrap_err();
            assert!(
                err.to_string().contains("acknowledges nothing more"),
                "{err}"
            );
            store.close();
        }
    }

    // A database the server may not write is refused on opening with a message that says so
    // and what to do, instead of failing later with "disk I/O error". Tests run as root, whom
    // permissions do not stop: there the file is opened read-only, as SQLite does for any
    // other user of a 0o444 file.
    #[tokio::test]
    async fn a_read_only_database_is_refused_saying_what_to_do() {
        use std::os::unix::fs::PermissionsExt;
        let (_dir, path) = temp_db("read-only");
        let (mut store, _) = Store::open(&path, false).unwrap();
        store
            .create_game("g", 1, &v1::CreateGameRequest::default())
            .await
            .unwrap();
        store.close();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let says_what_to_do = |err: StoreError| {
            let err = err.to_string();
            assert!(err.contains("t.db: the database is read-only"), "{err}");
            assert!(
                err.contains("chmod u+w") && err.contains("--memory"),
                "{err}"
            );
        };
        let permissions_bind = std::fs::OpenOptions::new().write(true).open(&path).is_err();
        if permissions_bind {
            says_what_to_do(Store::open(&path, false).err().expect("refused"));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        says_what_to_do(
            Store::open_with(&path, false, flags)
                .err()
                .expect("refused"),
        );
        // A write refused as read-only later on says the same.
        says_what_to_do(db_error(
            &path,
            rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(8), None),
        ));
    }

    #[tokio::test]
    async fn injected_faults_fail_writes_until_turned_off() {
        let (_dir, path) = temp_db("faults");
        let (mut store, _) = Store::open(&path, false).unwrap();
        let faults = store.clone().write_faults();
        let request = v1::CreateGameRequest::default();
        faults.set(true);
        let err = store.create_game("g", 1, &request).await.unwrap_err();
        assert!(err.to_string().contains("refuses writes"), "{err}");
        faults.set(false);
        store.create_game("g", 1, &request).await.unwrap();
        store.close();
        let (_store, loaded) = Store::open(&path, false).unwrap();
        assert_eq!(loaded.games.len(), 1);
        // Memory storage fails the same way.
        let memory = Store::memory();
        memory.write_faults().set(true);
        assert!(memory.create_game("g", 1, &request).await.is_err());
    }
}
