//! Durable storage: every game and every entry of its log (joins, leaves, actions, time-outs)
//! in an embedded SQLite database, written before the server acknowledges them. On start the
//! server replays the logs, and every game is back where it was.
//!
//! One thread owns the database. Writers queue their rows with a reply channel; the thread
//! takes everything queued, commits it in one transaction (group commit) and then answers each
//! writer, so a busy server pays one commit for many actions while no action is acknowledged
//! before it is stored. In memory mode nothing is written.

use std::path::Path;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use canasta_proto::v1;
use prost::Message;
use rusqlite::{Connection, params};
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
    tx: Option<mpsc::Sender<Write>>,
    thread: Arc<Mutex<Option<JoinHandle<()>>>>,
}

/// Most rows committed in one transaction.
const BATCH: usize = 4096;

impl Store {
    /// Storage that keeps nothing.
    pub fn memory() -> Store {
        Store {
            tx: None,
            thread: Arc::new(Mutex::new(None)),
        }
    }

    /// Opens (or creates) the database at `path` and loads every game in it.
    pub fn open(path: &Path, sync_full: bool) -> Result<(Store, Vec<StoredGame>), StoreError> {
        let err = |e: rusqlite::Error| StoreError(format!("{}: {e}", path.display()));
        let conn = Connection::open(path).map_err(err)?;
        conn.execute_batch(&format!(
            "PRAGMA journal_mode = WAL;
             PRAGMA synchronous = {};
             CREATE TABLE IF NOT EXISTS games (
                 id TEXT PRIMARY KEY,
                 created_ms INTEGER NOT NULL,
                 request BLOB NOT NULL
             );
             CREATE TABLE IF NOT EXISTS entries (
                 game_id TEXT NOT NULL,
                 n INTEGER NOT NULL,
                 entry BLOB NOT NULL,
                 PRIMARY KEY (game_id, n)
             ) WITHOUT ROWID;",
            if sync_full { "FULL" } else { "NORMAL" }
        ))
        .map_err(err)?;
        let games = load(&conn).map_err(err)?;
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("canasta-store".into())
            .spawn(move || writer(conn, rx))
            .map_err(|e| StoreError(e.to_string()))?;
        Ok((
            Store {
                tx: Some(tx),
                thread: Arc::new(Mutex::new(Some(thread))),
            },
            games,
        ))
    }

    /// True if nothing is written.
    pub fn is_memory(&self) -> bool {
        self.tx.is_none()
    }

    async fn send(
        &self,
        make: impl FnOnce(oneshot::Sender<Result<(), StoreError>>) -> Write,
    ) -> Result<(), StoreError> {
        let Some(tx) = &self.tx else {
            return Ok(());
        };
        let (ack, done) = oneshot::channel();
        tx.send(make(ack))
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
        let entry = entry.encode_to_vec();
        self.send(|ack| Write::Entry {
            game_id: game_id.to_string(),
            n,
            entry,
            ack,
        })
        .await
    }

    /// Stops the writer after everything queued is committed.
    pub fn close(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.lock().expect("not poisoned").take() {
            // Other clones may still hold senders; the thread ends when the last one goes.
            if Arc::strong_count(&self.thread) == 1 {
                let _ = t.join();
            }
        }
    }
}

fn load(conn: &Connection) -> rusqlite::Result<Vec<StoredGame>> {
    let mut games = Vec::new();
    // rowid is the order of creation; created_ms alone is not (many games share a millisecond).
    let mut stmt = conn.prepare("SELECT id, created_ms, request FROM games ORDER BY rowid")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, Vec<u8>>(2)?,
        ))
    })?;
    let mut entries = conn.prepare("SELECT entry FROM entries WHERE game_id = ?1 ORDER BY n")?;
    for row in rows {
        let (id, created_ms, request) = row?;
        let Ok(request) = v1::CreateGameRequest::decode(request.as_slice()) else {
            tracing::error!(game = %id, "skipping a game whose stored request cannot be read");
            continue;
        };
        let log: Vec<Entry> = entries
            .query_map(params![id], |r| r.get::<_, Vec<u8>>(0))?
            .filter_map(|b| b.ok().and_then(|b| Entry::decode(b.as_slice()).ok()))
            .collect();
        games.push(StoredGame {
            id,
            created_ms,
            request,
            entries: log,
        });
    }
    Ok(games)
}

fn writer(mut conn: Connection, rx: mpsc::Receiver<Write>) {
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(w) => batch.push(w),
                Err(_) => break,
            }
        }
        let results: Vec<Result<(), StoreError>> = match commit(&mut conn, &batch) {
            Ok(()) => vec![Ok(()); batch.len()],
            // One bad row must not fail the others: commit them one by one.
            Err(_) if batch.len() > 1 => batch
                .iter()
                .map(|w| {
                    commit(&mut conn, std::slice::from_ref(w))
                        .map_err(|e| StoreError(e.to_string()))
                })
                .collect(),
            Err(e) => vec![Err(StoreError(e.to_string()))],
        };
        for (w, result) in batch.into_iter().zip(results) {
            if let Err(e) = &result {
                tracing::error!(error = %e, "a write failed");
            }
            let ack = match w {
                Write::Game { ack, .. } | Write::Entry { ack, .. } => ack,
            };
            let _ = ack.send(result);
        }
    }
}

fn commit(conn: &mut Connection, batch: &[Write]) -> rusqlite::Result<()> {
    let tx = conn.transaction()?;
    {
        let mut game =
            tx.prepare_cached("INSERT INTO games (id, created_ms, request) VALUES (?1, ?2, ?3)")?;
        let mut entry =
            tx.prepare_cached("INSERT INTO entries (game_id, n, entry) VALUES (?1, ?2, ?3)")?;
        for w in batch {
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
        let (mut store, games) = Store::open(&path, false).unwrap();
        assert!(games.is_empty());
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
        let (_store, games) = Store::open(&path, false).unwrap();
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].request.seed, Some(7));
        assert_eq!(games[0].entries, vec![entry.clone(), entry]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
