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

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use canasta_proto::v1;
use prost::Message;
use rusqlite::wal::CheckpointMode;
use rusqlite::{Connection, MAIN_DB, params};
use tokio::sync::oneshot;

/// One entry of a game's log, as stored.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Entry {
    /// What happened.
    #[prost(oneof = "EntryKind", tags = "1, 2, 3, 4")]
    pub kind: Option<EntryKind>,
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

/// A stored game that cannot be read back whole: an undecodable request or log entry, or a
/// gap in its log. Replaying what can be read would rebuild a different game, so the server
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
        ack: oneshot::Sender<Result<(), StoreError>>,
    },
    Entry {
        game_id: String,
        n: u64,
        entry: Vec<u8>,
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
        let err = |e: rusqlite::Error| db_error(path, e);
        let conn = Connection::open(path).map_err(err)?;
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
        let loaded = load(&conn, path).map_err(err)?;
        // Where each stored log ends; a damaged game's log is closed to new entries.
        let mut ends: LogEnds = loaded
            .games
            .iter()
            .map(|g| (g.id.clone(), g.entries.len() as u64))
            .collect();
        ends.extend(loaded.damaged.iter().map(|d| (d.id.clone(), u64::MAX)));
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("canasta-store".into())
            .spawn(move || writer(conn, rx, ends))
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
        let request = request.encode_to_vec();
        self.send(|ack| Write::Game {
            id: id.to_string(),
            created_ms,
            request,
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
        self.send(|ack| Write::Entry {
            game_id: game_id.to_string(),
            n,
            entry: entry.to_vec(),
            ack,
        })
        .await
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

/// An error of the database at `path`, said so that the operator knows what to do.
fn db_error(path: &Path, e: rusqlite::Error) -> StoreError {
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
const SCHEMA_VERSION: i64 = 2;

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
    let has_entries: bool = conn
        .query_row(
            "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'entries'",
            [],
            |r| r.get(0),
        )
        .map_err(err)?;
    conn.execute_batch(&format!(
        "BEGIN;
         CREATE TABLE IF NOT EXISTS games (
             id TEXT PRIMARY KEY,
             created_ms INTEGER NOT NULL,
             request BLOB NOT NULL
         );
         {}
         CREATE TABLE IF NOT EXISTS entries (
             game_id TEXT NOT NULL,
             n INTEGER NOT NULL,
             entry BLOB NOT NULL
         );
         {}
         PRAGMA user_version = {SCHEMA_VERSION};
         COMMIT;",
        // Version 1 (no user_version) kept the entries in a table keyed by (game_id, n).
        if version < 2 && has_entries {
            "ALTER TABLE entries RENAME TO entries_v1;"
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
    ))
    .map_err(err)
}

fn load(conn: &Connection, path: &Path) -> rusqlite::Result<Loaded> {
    let mut loaded = Loaded::default();
    // Both tables' rows are a game id, a number and bytes; the bytes are read as they come, so
    // that unreadable ones name their game.
    let id_number_bytes = |r: &rusqlite::Row<'_>| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, Vec<u8>>(2),
        ))
    };
    // Every game's log in one scan, in the order written: a game's entries in their order.
    let mut logs: HashMap<String, Vec<StoredEntry>> = HashMap::new();
    let mut stmt = conn.prepare("SELECT game_id, n, entry FROM entries ORDER BY rowid")?;
    for row in stmt.query_map([], id_number_bytes)? {
        let (game_id, n, entry) = row?;
        logs.entry(game_id).or_default().push((n, entry));
    }
    // rowid is the order of creation; created_ms alone is not (many games share a millisecond).
    let mut stmt = conn.prepare("SELECT id, created_ms, request FROM games ORDER BY rowid")?;
    for row in stmt.query_map([], id_number_bytes)? {
        let (id, created_ms, request) = row?;
        match read_game(logs.remove(&id).unwrap_or_default(), request) {
            Ok((request, log)) => loaded.games.push(StoredGame {
                id,
                created_ms,
                request,
                entries: log,
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
    Ok(loaded)
}

/// An entry's number and bytes as read back (the bytes may be unreadable).
type StoredEntry = (i64, rusqlite::Result<Vec<u8>>);

/// One game's request and log (its stored entries in the order written), or what keeps them
/// from being read whole.
fn read_game(
    entries: Vec<StoredEntry>,
    request: rusqlite::Result<Vec<u8>>,
) -> Result<(v1::CreateGameRequest, Vec<Entry>), String> {
    let request = request.map_err(|e| format!("its creating request cannot be read: {e}"))?;
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
        let bytes = bytes.map_err(|e| format!("entry {n} of its log cannot be read: {e}"))?;
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
            Write::Game { id, .. } => {
                if staged.contains_key(id.as_str()) || ends.contains_key(id) {
                    return Err(StoreError(format!("game {id} is stored already")));
                }
                staged.insert(id, 0);
            }
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

    fn game_id(&self) -> &str {
        match self {
            Write::Game { id, .. } => id,
            Write::Entry { game_id, .. } => game_id,
        }
    }

    fn ack(self) -> oneshot::Sender<Result<(), StoreError>> {
        match self {
            Write::Game { ack, .. } | Write::Entry { ack, .. } => ack,
        }
    }
}

/// What the writer thread is sent.
enum ToWriter {
    Write(Write),
    /// Commit what came before, close the database and stop.
    Close,
}

fn writer(mut conn: Connection, rx: mpsc::Receiver<ToWriter>, mut ends: LogEnds) {
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
        let results = write_batch(&mut conn, &batch, &mut ends);
        for (w, result) in batch.into_iter().zip(results) {
            if let Err(e) = &result {
                tracing::error!(error = %e, "a write failed");
            }
            let _ = w.ack().send(result);
        }
        let pages = wal_pages.load(Ordering::Relaxed);
        if checkpoints.due(pages) {
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
                    commit(conn, std::iter::once(w)).map_err(|e| StoreError(e.to_string()))?;
                    let next = staged[w.game_id()];
                    ends.insert(w.game_id().to_string(), next);
                    Ok(())
                })
                .collect()
        }
        Err(e) => checked
            .into_iter()
            .map(|c| c.and(Err(StoreError(e.to_string()))))
            .collect(),
    }
}

fn commit<'a>(
    conn: &mut Connection,
    writes: impl Iterator<Item = &'a Write>,
) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    {
        let mut game =
            tx.prepare_cached("INSERT INTO games (id, created_ms, request) VALUES (?1, ?2, ?3)")?;
        let mut entry =
            tx.prepare_cached("INSERT INTO entries (game_id, n, entry) VALUES (?1, ?2, ?3)")?;
        for w in writes {
            match w {
                Write::Game {
                    id,
                    created_ms,
                    request,
                    ..
                } => {
                    game.execute(params![id, created_ms, request])?;
                }
                Write::Entry {
                    game_id,
                    n,
                    entry: e,
                    ..
                } => {
                    entry.execute(params![game_id, *n as i64, e])?;
                }
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
        let dir = std::env::temp_dir().join(format!("canasta-store-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.db");
        let (mut store, loaded) = Store::open(&path, false).unwrap();
        assert!(loaded.games.is_empty() && loaded.damaged.is_empty());
        let request = v1::CreateGameRequest {
            seed: Some(7),
            ..Default::default()
        };
        store.create_game("g1", 5, &request).await.unwrap();
        let entry = Entry {
            kind: Some(EntryKind::Leave(LeaveEntry { seat: 2 })),
        };
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
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn entries_out_of_order_are_refused_and_the_rest_of_the_batch_is_written() {
        let (dir, path) = temp_db("order");
        let (mut store, _) = Store::open(&path, false).unwrap();
        let request = v1::CreateGameRequest::default();
        let entry = Entry {
            kind: Some(EntryKind::Leave(LeaveEntry { seat: 0 })),
        };
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
        std::fs::remove_dir_all(&dir).unwrap();
    }

    // A database of the first layout (entries keyed by game and number, no user_version) is
    // brought to the current one on opening, its games and logs intact; a newer one is refused.
    #[tokio::test]
    async fn an_older_database_is_migrated_and_a_newer_one_refused() {
        let (dir, path) = temp_db("migrate");
        let entry = Entry {
            kind: Some(EntryKind::Leave(LeaveEntry { seat: 3 })),
        };
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
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn temp_db(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
        let dir =
            std::env::temp_dir().join(format!("canasta-store-{name}-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.db");
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
        let entry = |n: u64| Entry {
            kind: Some(EntryKind::Join(JoinEntry {
                seat: 0,
                name: format!("player {n}"),
                token: "t".repeat(40),
            })),
        };
        let wal = dir.join("t.db-wal");
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
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_game_with_an_undecodable_or_missing_entry_is_reported_damaged() {
        let (dir, path) = temp_db("damaged");
        let (mut store, _) = Store::open(&path, false).unwrap();
        let request = v1::CreateGameRequest::default();
        let entry = Entry {
            kind: Some(EntryKind::Leave(LeaveEntry { seat: 1 })),
        };
        for id in ["good", "garbled", "gap", "bad-request"] {
            store.create_game(id, 1, &request).await.unwrap();
            for n in 0..3 {
                store.append(id, n, &entry).await.unwrap();
            }
        }
        store.close();
        {
            let conn = Connection::open(&path).unwrap();
            // Bytes that are no protobuf message: a field of wire type 7 (there is none).
            conn.execute(
                "UPDATE entries SET entry = X'0F0F0F' WHERE game_id = 'garbled' AND n = 1",
                [],
            )
            .unwrap();
            conn.execute("DELETE FROM entries WHERE game_id = 'gap' AND n = 1", [])
                .unwrap();
            conn.execute(
                "UPDATE games SET request = X'FF' WHERE id = 'bad-request'",
                [],
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
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn injected_faults_fail_writes_until_turned_off() {
        let (dir, path) = temp_db("faults");
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
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
