//! What a finished game drops, and its rebuild for the reads that need it.
//!
//! The actor keeps every entry in its stored encoding, one buffer for the whole log. A
//! finished game keeps only that buffer of its log: its events, its record and its applied
//! requests are dropped when it ends, and rebuilt for the requests that need them (a watch from
//! an earlier seq, the export, a retried action) by replaying the buffer into a fresh actor, as
//! a restart does. A finished match then keeps tens of kilobytes instead of most of a megabyte.
//! The rebuilds are kept in a cache the server's games share, bounded (see [`Rebuilds`]), so
//! that the reads of a finished game that come together (its watchers catching up, its export,
//! a retry) replay its log once; a retry is told from another request by an index of the
//! request ids its requests had, without a replay (`retry.rs`).
//!
//! It is apart from the log because it concerns the memory of finished games only: the log's
//! entries are applied the same way whether a game is played, restored or rebuilt.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use canasta_proto::v1;

use super::retry::Retries;
use super::{Actor, LogEvent, Status};
use crate::errors::ApiError;
use crate::store::Store;

/// Most rebuilt finished games the server keeps (see [`Rebuilds`]).
const REBUILT_GAMES: usize = 16;
/// Most events, all games together, of the rebuilt games the server keeps: about 16 MiB (a
/// rebuilt event costs about 280 bytes with its share of the game's requests and record).
const REBUILT_EVENTS: usize = 60_000;

/// What a finished game's replay rebuilds for the reads that need it: its events, its applied
/// requests and its export.
#[derive(Debug)]
pub(super) struct Rebuilt {
    pub(super) log: Vec<Arc<LogEvent>>,
    pub(super) retries: Retries,
    pub(super) record: v1::GameRecord,
}

/// The rebuilt finished games that were read last, shared by the server's games: at most
/// [`REBUILT_GAMES`] games and [`REBUILT_EVENTS`] events in all, the least recently read
/// dropped first.
///
/// One bounded cache for the server rather than one per game: [`Actor::compact`] exists so
/// that a finished game keeps only its entries as stored (tens of kilobytes) instead of its
/// events (most of a megabyte), and a rebuild kept by each game that was read would undo that
/// for every game ever watched or exported. (Keeping only the export's encoded bytes in the
/// game would serve the export alone, and still grow with every game exported.) The reads that
/// need a rebuild come together on a few games: the watchers of a match that has just ended
/// catching up, a client exporting a game or retrying its last action, an archive reading each
/// game once. A few recent games serve them, in a memory bounded whatever the number of
/// finished games. A game bigger than the whole bound is rebuilt for each read, as before.
#[derive(Debug, Default)]
pub struct Rebuilds {
    /// The least recently read first: each game's key (see [`Actor::key`]) and rebuild.
    games: Mutex<VecDeque<(u64, Arc<Rebuilt>)>>,
}

impl Rebuilds {
    /// An empty cache.
    pub fn new() -> Arc<Rebuilds> {
        Arc::new(Rebuilds::default())
    }

    /// The rebuild of the game with this key, if kept; it becomes the most recently read.
    fn get(&self, key: u64) -> Option<Arc<Rebuilt>> {
        let mut games = self.games.lock().expect("not poisoned");
        let at = games.iter().position(|(k, _)| *k == key)?;
        let game = games.remove(at)?;
        let rebuilt = game.1.clone();
        games.push_back(game);
        Some(rebuilt)
    }

    /// Keeps a rebuild, dropping the least recently read ones beyond the bounds.
    fn put(&self, key: u64, rebuilt: Arc<Rebuilt>) {
        if rebuilt.log.len() > REBUILT_EVENTS {
            return;
        }
        let mut games = self.games.lock().expect("not poisoned");
        games.retain(|(k, _)| *k != key);
        games.push_back((key, rebuilt));
        let mut events: usize = games.iter().map(|(_, r)| r.log.len()).sum();
        while games.len() > REBUILT_GAMES || events > REBUILT_EVENTS {
            let Some((_, old)) = games.pop_front() else {
                break;
            };
            events -= old.log.len();
        }
    }

    /// The number of games kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.games.lock().expect("not poisoned").len()
    }
}

/// Tells actors apart in the [`Rebuilds`] cache (game ids are not enough: tests and a restart
/// make actors of the same id).
static NEXT_KEY: AtomicU64 = AtomicU64::new(0);

/// A new actor's key in the [`Rebuilds`] cache.
pub(super) fn rebuild_key() -> u64 {
    NEXT_KEY.fetch_add(1, Ordering::Relaxed)
}

impl Actor {
    /// Drops what only a running game needs, once the game is finished: the events, the
    /// record, the applied requests (all rebuilt from `entry_log` when asked for, see
    /// [`Actor::rebuilt`]) and the live feed. A finished game is kept for as long as the
    /// server runs; these grow with every action, to most of a megabyte for a match.
    pub(super) fn compact(&mut self) {
        if self.status != Status::Finished || self.compacted {
            return;
        }
        self.compacted = true;
        self.retries.compact();
        self.log = Vec::new();
        self.record = Vec::new();
        self.opening = Vec::new();
        self.entry_log.shrink_to_fit();
        // Every event is in the feed already and nothing follows MatchEnded: its streams end
        // there, and the feed's buffer (`--watch-buffer` slots, holding the game's last
        // events and prompts) goes with the last of them instead of staying with the game.
        self.live = None;
    }

    /// What the finished game dropped in [`Actor::compact`], rebuilt: from the server's cache
    /// if it kept it, or replayed (then kept there, see [`Rebuilds`]).
    pub(super) fn rebuilt(&self) -> Result<Arc<Rebuilt>, ApiError> {
        if let Some(rebuilt) = self.rebuilds.as_ref().and_then(|r| r.get(self.key)) {
            return Ok(rebuilt);
        }
        let fresh = self.replayed()?;
        let record = fresh.export()?;
        let rebuilt = Arc::new(Rebuilt {
            log: fresh.log,
            retries: fresh.retries,
            record,
        });
        if let Some(rebuilds) = &self.rebuilds {
            rebuilds.put(self.key, rebuilt.clone());
        }
        Ok(rebuilt)
    }

    /// The finished game whole, as it was before [`Actor::compact`]: its entries replayed
    /// into a fresh actor through the code a restart uses ([`Actor::new`], then the entries
    /// applied in order), so its events, seqs, record and requests are those of the game
    /// played.
    pub(super) fn replayed(&self) -> Result<Actor, ApiError> {
        self.metrics.game_rebuilt();
        let bad = |why: String| {
            ApiError::bad_log(format!("game {}'s log does not rebuild: {why}", self.id))
        };
        let entries = self.stored_entries().map_err(|e| bad(e.to_string()))?;
        let mut fresh = Actor::new(
            self.id.clone(),
            self.created_ms,
            self.request.clone(),
            // Nothing is stored: the rebuilt actor only answers.
            Store::memory(),
            self.config.clone(),
            self.metrics.clone(),
        )?;
        fresh.apply_all(&entries)?;
        // A rebuild that does not end where the game did must not answer for it.
        if fresh.entries != self.entries || fresh.seq != self.seq || fresh.status != self.status {
            return Err(bad(format!(
                "{} entries and seq {} rebuilt, {} and {} played",
                fresh.entries, fresh.seq, self.entries, self.seq
            )));
        }
        Ok(fresh)
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use canasta_engine::{Action, Game};
    use canasta_proto::Reason;
    use canasta_proto::convert::{self, action_to_wire};
    use tokio::sync::broadcast;

    use super::super::testing::{Last, actor, play_to_end};
    use super::*;
    use crate::actor::{Item, LogKind};
    use crate::auth::Token;

    /// Everything a client can get from a finished game that needs its log: each viewer's
    /// backlog from seq 0 and from the middle, the export, and the answers to a retry of the
    /// last action, to its request id used for another action, and to a new action.
    type Answers = (
        Vec<Vec<v1::GameEvent>>,
        Result<v1::GameRecord, ApiError>,
        Vec<Result<v1::SubmitActionResponse, ApiError>>,
    );

    async fn answers(actor: &mut Actor, tokens: &[Token], last: &Last) -> Answers {
        let mut backlogs = Vec::new();
        let middle = actor.seq() / 2;
        let viewers = tokens.iter().map(Some).chain([None]);
        for (token, after) in viewers.flat_map(|t| [(t, 0), (t, middle)]) {
            let sub = match actor.subscribe(token, after, true, true) {
                Ok(sub) => sub,
                Err(e) => panic!("a watch of a finished game: {e:?}"),
            };
            assert!(sub.finished && sub.prompt.is_none());
            backlogs.push(sub.backlog.iter().map(|e| e.to_wire(sub.viewer)).collect());
        }
        let other = action_to_wire(&Action::DrawStock);
        let token = &tokens[last.seat.index()];
        let mut submits = Vec::new();
        for (id, action, with_events) in [
            (&last.request_id, &last.action, true),
            (&last.request_id, &last.action, false),
            (&last.request_id, &other, true),
            (&"fresh".to_string(), &other, true),
        ] {
            let seq = actor.seq();
            submits.push(
                actor
                    .submit(token, seq, id.clone(), action, with_events)
                    .await,
            );
        }
        (backlogs, actor.export(), submits)
    }

    // A finished game drops its log, record, requests and feed, and answers every request
    // that needs them exactly as it did with them: watches from any seq, the export, a retry
    // of its last action (and the refusals of a reused request id and of a new action).
    #[tokio::test]
    async fn a_finished_game_keeps_only_its_compact_log_and_answers_as_before() {
        let mut actor = actor();
        let (tokens, last, mut watching) = play_to_end(&mut actor).await;
        assert_eq!(actor.status, Status::Finished);
        assert!(actor.live.is_some());
        assert!(
            !actor.compacted,
            "compacted by the actor's loop, after the answer"
        );
        let before = answers(&mut actor, &tokens, &last).await;
        let log_bytes = actor.log.len() * size_of::<LogEvent>();
        actor.compact();

        assert!(actor.compacted);
        assert_eq!(actor.log.capacity(), 0);
        assert_eq!(actor.record.capacity(), 0);
        assert_eq!(actor.retries.capacity(), (0, 0));
        assert!(actor.live.is_none());
        assert_eq!(actor.entry_log.len(), actor.entry_log.capacity());
        assert!(
            actor.entry_log.len() < log_bytes,
            "{} bytes kept for {log_bytes}",
            actor.entry_log.len()
        );
        // The feed is dropped: the live stream gets every event, MatchEnded last, then its end.
        let mut seen = 0;
        loop {
            match watching.live.try_recv() {
                Ok(Item::Event(e)) => seen = e.seq,
                Ok(Item::Prompt(_)) => {}
                Err(broadcast::error::TryRecvError::Closed) => break,
                Err(e) => panic!("the live feed: {e:?}"),
            }
        }
        assert_eq!(seen, actor.seq());
        let after = answers(&mut actor, &tokens, &last).await;
        assert_eq!(after, before);
        // What the answers are: the whole log, the retry answered as the first time.
        let (backlogs, record, submits) = after;
        assert_eq!(backlogs[0].len() as u64, actor.seq());
        assert_eq!(backlogs[0].last().map(|e| e.seq), Some(actor.seq()));
        assert!(matches!(
            backlogs[0].last().and_then(|e| e.kind.as_ref()),
            Some(v1::game_event::Kind::MatchEnded(_))
        ));
        let record = record.expect("a finished game exports");
        assert_eq!(
            record.actions.last().and_then(|a| a.action.as_ref()),
            Some(&last.action)
        );
        assert_eq!(submits[0].as_ref(), Ok(&last.answer));
        assert!(!last.answer.events.is_empty());
        assert_eq!(submits[1].as_ref().map(|r| r.seq), Ok(last.answer.seq));
        let reasons: Vec<Option<Reason>> = submits[2..]
            .iter()
            .map(|r| r.as_ref().err().map(|e| e.reason))
            .collect();
        assert_eq!(
            reasons,
            [Some(Reason::RequestIdReused), Some(Reason::GameFinished)]
        );
        // Nothing was kept from the rebuilds, and the watches made no feed.
        assert!(actor.log.is_empty() && actor.record.is_empty());
        assert_eq!(actor.retries.capacity(), (0, 0));
        assert!(actor.live.is_none());
    }

    // A finished game restored from its stored entries is compacted too, and answers as the
    // game that was played.
    #[tokio::test]
    async fn a_restored_finished_game_is_compacted_and_answers_the_same() {
        let mut played = actor();
        let (tokens, last, _) = play_to_end(&mut played).await;
        played.compact();
        let entries = played.stored_entries().expect("the entries");
        assert_eq!(entries.len() as u64, played.entries);
        let mut restored = actor();
        restored.replay(&entries).expect("the log replays");
        assert!(restored.compacted && restored.log.capacity() == 0);
        assert_eq!(restored.entry_log, played.entry_log);
        assert_eq!(
            answers(&mut restored, &tokens, &last).await,
            answers(&mut played, &tokens, &last).await
        );
    }

    // A finished game whose log no longer rebuilds (it does not decode, or an entry does not
    // apply) answers DATA_LOSS BAD_LOG, as a stored game that does not restore does: one reason
    // has one code. (Regression: the rebuild answered INTERNAL BAD_LOG.)
    #[tokio::test]
    async fn a_finished_game_whose_log_does_not_rebuild_answers_data_loss() {
        let cut_short = |log: &mut Vec<u8>| {
            log.pop();
        };
        let empty_entry = |log: &mut Vec<u8>| {
            prost::Message::encode_length_delimited(&crate::store::Entry::default(), log)
                .expect("a Vec grows");
        };
        for damage in [&cut_short as &dyn Fn(&mut Vec<u8>), &empty_entry] {
            let mut actor = actor();
            play_to_end(&mut actor).await;
            actor.compact();
            damage(&mut actor.entry_log);
            let e = actor.export().expect_err("the rebuild fails");
            assert_eq!(
                (e.code, e.reason),
                (tonic::Code::DataLoss, Reason::BadLog),
                "{}",
                e.message
            );
        }
    }

    // Reads of a finished game are answered from one replay of its log (kept in the server's
    // bounded cache of rebuilt games), not one replay each: many exports, watches from seq 0
    // and from the middle by every viewer, and retries of the last action (it replayed the
    // log for each: 100 times here).
    #[tokio::test]
    async fn many_reads_of_a_finished_game_replay_its_log_once() {
        let mut actor = actor();
        let (tokens, last, _) = play_to_end(&mut actor).await;
        actor.compact();
        let first = answers(&mut actor, &tokens, &last).await;
        for _ in 0..9 {
            assert_eq!(answers(&mut actor, &tokens, &last).await, first);
        }
        assert_eq!(actor.metrics.rebuilds(), 1);
    }

    // The server's rebuilt games stay within their bounds, the least recently read dropped
    // first; a game bigger than the whole bound is not kept.
    #[test]
    fn the_rebuilt_games_kept_are_bounded() {
        let rebuilt = |events: usize| {
            let event = Arc::new(LogEvent {
                seq: 1,
                kind: LogKind::Server(v1::game_event::Kind::GameStarted(v1::GameStarted {})),
            });
            Arc::new(Rebuilt {
                log: vec![event; events],
                retries: Retries::default(),
                record: v1::GameRecord::default(),
            })
        };
        let rebuilds = Rebuilds::new();
        for key in 0..REBUILT_GAMES as u64 {
            rebuilds.put(key, rebuilt(10));
        }
        assert!(rebuilds.get(0).is_some(), "read: the most recent");
        rebuilds.put(100, rebuilt(10));
        assert_eq!(rebuilds.len(), REBUILT_GAMES);
        assert!(rebuilds.get(1).is_none() && rebuilds.get(0).is_some());
        rebuilds.put(101, rebuilt(REBUILT_EVENTS + 1));
        assert!(rebuilds.get(101).is_none());
        rebuilds.put(102, rebuilt(REBUILT_EVENTS / 2));
        rebuilds.put(103, rebuilt(REBUILT_EVENTS / 2));
        assert_eq!(rebuilds.len(), 2);
        assert!(rebuilds.get(102).is_some() && rebuilds.get(103).is_some());
    }

    /// The resident memory of the process, in bytes (Linux).
    fn resident() -> usize {
        let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
        let pages: usize = statm
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        pages * 4096
    }

    /// The median time of `f` over `n` runs.
    fn median(n: usize, mut f: impl FnMut()) -> Duration {
        let mut times: Vec<Duration> = (0..n)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect();
        times.sort();
        times[n / 2]
    }

    // The cost of a finished match's reads (a match to 10 000), for docs/performance.md: a
    // replay of its log (what each read cost before the cache), the memory of a rebuild, and
    // the reads served from the cache. `cargo test -p canasta-server --release --lib --
    // --ignored --nocapture measure_reads_of_a_finished_game`
    #[tokio::test]
    #[ignore]
    async fn measure_reads_of_a_finished_game() {
        let mut actor = actor();
        if let Some(rules) = &mut actor.request.rules {
            rules.options.clear();
            rules.options.insert("target_score".into(), "10000".into());
        }
        let request = &actor.request;
        actor.setup = convert::setup_from_wire(request.rules.as_ref(), 7, &[], None, &[])
            .expect("a valid setup");
        (actor.game, actor.opening) = Game::start(&actor.setup).expect("a deal");
        let (tokens, last, _) = play_to_end(&mut actor).await;
        actor.compact();
        println!(
            "{} events, {} entries, {} bytes kept, {} request keys",
            actor.seq(),
            actor.entries,
            actor.entry_log.len(),
            actor.retries.keys_kept()
        );
        let replay = median(21, || {
            actor.replayed().expect("a replay");
        });
        println!("a replay of its log: {replay:?} (median of 21)");
        let before = resident();
        let kept: Vec<Arc<Rebuilt>> = (0..16)
            .map(|_| {
                let fresh = actor.replayed().expect("a replay");
                let record = fresh.export().expect("an export");
                Arc::new(Rebuilt {
                    log: fresh.log,
                    retries: fresh.retries,
                    record,
                })
            })
            .collect();
        let grown = resident().saturating_sub(before);
        println!(
            "16 rebuilds: {} KiB resident, {} bytes an event",
            grown / 1024,
            grown / 16 / kept[0].log.len()
        );
        drop(kept);
        let rebuilds = actor.metrics.rebuilds();
        let token = &tokens[last.seat.index()];
        let export = median(101, || {
            actor.export().expect("an export");
        });
        let watch = median(101, || {
            actor.subscribe(None, 0, false, false).expect("a watch");
        });
        let seq = actor.seq();
        let mut retries = Duration::ZERO;
        for _ in 0..101 {
            let t = Instant::now();
            let answer = actor
                .submit(token, seq, last.request_id.clone(), &last.action, true)
                .await;
            retries += t.elapsed();
            assert!(answer.is_ok());
        }
        let mut refused = Duration::ZERO;
        for _ in 0..101 {
            let t = Instant::now();
            let answer = actor
                .submit(token, seq, "r".into(), &last.action, true)
                .await;
            refused += t.elapsed();
            assert!(answer.is_err());
        }
        println!(
            "from the cache: an export {export:?}, a watch from seq 0 {watch:?}, a retry {:?}, \
             an id found only in the log {:?} (medians of 101, means for the last two); \
             {} replays for 404 reads",
            retries / 101,
            refused / 101,
            actor.metrics.rebuilds() - rebuilds
        );
    }
}
