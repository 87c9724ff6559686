//! The seats the server plays itself with its built-in bots (`CreateGameRequest.bots`).
//!
//! When a bot seat is to act, the actor hands the bot its seat's view (the one redaction) and
//! lets it think on a blocking thread, once the server's [`BotPool`] has room; the choice
//! comes back as a command, [`Command::BotMoved`], and is submitted through
//! [`Actor::act`], the path of every seat's action (the checks, the log, the events, the
//! clock). A choice made for a seq the game has left (a time-out came first, the game was
//! ended) is dropped, and the bot thinks again if it is still its turn. Apart from the seats
//! (`seats.rs`), which say which seats are bots' and keep their names.

use std::sync::Arc;
use std::time::{Duration, Instant};

use canasta_engine::{Action, Seat, Viewer};
use canasta_proto::v1;
use tokio::sync::mpsc;

use super::{Actor, Command};
use crate::bots::{BotPool, Brain, seat_seed};
use crate::config::Config;
use crate::errors::ApiError;

/// How long a bot waits before it tries again to submit a move that could not be stored.
const STORE_RETRY: Duration = Duration::from_secs(1);

/// What a game keeps of its bot seats.
pub(super) struct House {
    /// The bot of each seat, by seat: none for a client's seat, and none while it thinks (it
    /// is then on the thinking task).
    brains: Vec<Option<Brain>>,
    /// True while one of the game's bots thinks: at most one at a time (one seat acts).
    thinking: bool,
    /// The actor's own channel, where a bot's choice comes back; weak, so that a thinking bot
    /// does not keep a game nobody holds any more.
    tx: Option<mpsc::WeakSender<Command>>,
    /// The server's pool (the registry shares it); a game outside a registry makes its own.
    pool: Option<Arc<BotPool>>,
}

/// A bot's choice, back from its thinking.
pub struct BotMove {
    seat: Seat,
    /// The seq of the game the bot saw.
    seq: u64,
    /// The bot, back; none if its thinking failed (panicked).
    brain: Option<Brain>,
    /// Its choice: none if the view showed no choice (not reached) or it failed.
    action: Option<Action>,
    /// How long it thought.
    took: Duration,
    /// How long it was allowed to think: the server's cap, and its time left less a margin.
    limit: Duration,
}

impl House {
    /// The bots of a game of `players` seats created with `bots` and seed `seed`; none if it
    /// has none. A stored game's bots were checked when it was created: a seat that does not
    /// exist or comes twice is a damaged log.
    pub(super) fn new(
        bots: &[v1::SeatBot],
        players: usize,
        seed: u64,
        config: &Config,
    ) -> Result<Option<Box<House>>, ApiError> {
        if bots.is_empty() {
            return Ok(None);
        }
        let mut brains: Vec<Option<Brain>> = (0..players).map(|_| None).collect();
        for b in bots {
            let slot = brains.get_mut(b.seat as usize).ok_or_else(|| {
                ApiError::bad_log(format!("a bot at seat {}, which does not exist", b.seat))
            })?;
            if slot.is_some() {
                return Err(ApiError::bad_log(format!("two bots at seat {}", b.seat)));
            }
            *slot = Some(Brain::restore(&b.bot, seat_seed(seed, b.seat), config)?);
        }
        Ok(Some(Box::new(House {
            brains,
            thinking: false,
            tx: None,
            pool: None,
        })))
    }

    /// The names of the bots, by seat (none for a client's seat).
    pub(super) fn names(&self) -> Vec<Option<String>> {
        self.brains
            .iter()
            .map(|b| b.as_ref().map(|b| b.name().to_string()))
            .collect()
    }

    /// Where the bots' choices come back: the actor's channel, once it runs.
    pub(super) fn listen(&mut self, tx: mpsc::WeakSender<Command>) {
        self.tx = Some(tx);
    }

    /// Shares the server's pool of thinking bots.
    pub(super) fn share_pool(&mut self, pool: Arc<BotPool>) {
        self.pool = Some(pool);
    }
}

impl Actor {
    /// Lets the seat to act think, if it is a bot's and none of the game's bots thinks now.
    pub(super) fn wake_bot(&mut self) {
        self.think_after(Duration::ZERO);
    }

    /// [`Actor::wake_bot`], the bot starting after `delay`.
    fn think_after(&mut self, delay: Duration) {
        let Some(seat) = self.seat_to_act() else {
            return;
        };
        let seq = self.seq();
        let deadline = self.clock.deadline();
        let Some(house) = self.house.as_deref_mut() else {
            return;
        };
        if house.thinking || house.brains[seat.index()].is_none() {
            return;
        }
        let Some(tx) = house.tx.clone() else {
            return;
        };
        let pool = house
            .pool
            .get_or_insert_with(|| BotPool::new(&self.config))
            .clone();
        let mut brain = house.brains[seat.index()].take().expect("a bot's seat");
        house.thinking = true;
        // The seat's view, as its client would get it: the bot sees nothing else.
        let view = self.game.view(Viewer::Seat(seat));
        tokio::spawn(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let permit = pool.permit().await;
            // Counted once the bot may think: the wait for the pool is the seat's time too.
            let time_left =
                deadline.map(|d| d.saturating_duration_since(tokio::time::Instant::now()));
            let limit = pool.limit(time_left);
            let thought = tokio::task::spawn_blocking(move || {
                let started = Instant::now();
                let action = brain.decide(&view, seq, limit);
                (brain, action, started.elapsed())
            })
            .await;
            drop(permit);
            let moved = match thought {
                Ok((brain, action, took)) => BotMove {
                    seat,
                    seq,
                    brain: Some(brain),
                    action,
                    took,
                    limit,
                },
                Err(_) => BotMove {
                    seat,
                    seq,
                    brain: None,
                    action: None,
                    took: Duration::ZERO,
                    limit,
                },
            };
            if let Some(tx) = tx.upgrade() {
                let _ = tx.send(Command::BotMoved(Box::new(moved))).await;
            }
        });
    }

    /// A bot's choice is back: submitted as the seat's action if the game is still where the
    /// bot saw it; then the next bot, if one is to act, thinks.
    pub(super) async fn bot_moved(&mut self, moved: BotMove) {
        let BotMove {
            seat,
            seq,
            brain,
            action,
            took,
            limit,
        } = moved;
        let brain = match brain {
            Some(b) => Some(b),
            None => {
                tracing::error!(
                    game = %self.id,
                    seat = seat.0,
                    "a built-in bot failed while thinking: it starts afresh, and the seat plays \
                     the fallback move"
                );
                let name = self.seats[seat.index()].bot.clone().unwrap_or_default();
                let seed = seat_seed(self.request.seed.unwrap_or(0), u32::from(seat.0));
                // Its name was read when the game was made: it reads again.
                Brain::restore(&name, seed, &self.config).ok()
            }
        };
        let Some(house) = self.house.as_deref_mut() else {
            return;
        };
        house.thinking = false;
        house.brains[seat.index()] = brain;
        if seq != self.seq() || self.seat_to_act() != Some(seat) {
            // The game moved on while the bot thought (a time-out, an end): think again.
            self.wake_bot();
            return;
        }
        self.metrics.bot_moved(took);
        tracing::debug!(
            game = %self.id,
            seat = seat.0,
            took_ms = took.as_secs_f64() * 1000.0,
            limit_ms = limit.as_millis() as u64,
            "a built-in bot chose its move"
        );
        let chosen = action.map(|a| canasta_proto::convert::action_to_wire(&a));
        let started = Instant::now();
        let result = match chosen {
            Some(a) => self.bot_act(seat, &a).await,
            None => self.bot_act(seat, &self.fallback_move(seat)).await,
        };
        match result {
            Ok(()) => self.metrics.action_applied(started.elapsed()),
            Err(e) if e.code == tonic::Code::Unavailable => {
                let now = tokio::time::Instant::now();
                if let Some(unlogged) = self.failure_lines.allow(now) {
                    tracing::error!(
                        game = %self.id,
                        error = %e.message,
                        unlogged,
                        "a built-in bot's move could not be stored (at most one line a minute \
                         per game); it thinks again in a second"
                    );
                }
                self.think_after(STORE_RETRY);
                return;
            }
            Err(e) => {
                // A built-in bot chooses among the referee's legal choices: a refusal is a bug
                // of the bot. The seat plays the fallback move rather than stall the game.
                tracing::error!(
                    game = %self.id,
                    seat = seat.0,
                    reason = e.reason.as_str(),
                    error = %e.message,
                    "a built-in bot's move was refused: the seat plays the fallback move"
                );
                let fallback = self.fallback_move(seat);
                if self.bot_act(seat, &fallback).await.is_ok() {
                    self.metrics.action_applied(started.elapsed());
                }
            }
        }
        self.wake_bot();
    }

    /// Submits a bot seat's action, as the seat's client would, with a request id of its own.
    async fn bot_act(&mut self, seat: Seat, action: &v1::Action) -> Result<(), ApiError> {
        let seq = self.seq();
        self.act(seat, seq, format!("bot-{seq}"), action, false)
            .await
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    //! The server's bots in one game's actor, on tokio's paused clock: a bot thinks on a
    //! blocking thread, which holds the paused clock still while it runs, so a time control's
    //! budget passes only if a bot does not act.

    use std::sync::Arc;

    use canasta_engine::bot::{self as engine_bot, GreedyBot};
    use canasta_engine::{Game, Phase};
    use canasta_proto::convert::record_from_wire;

    use super::super::testing::{bot_action, join};
    use super::super::{GameHandle, Item, LogKind, Rebuilds, Status};
    use super::*;
    use crate::auth::Token;
    use crate::metrics::Metrics;
    use crate::store::Store;

    /// A four-player official game of seed `seed` with `bots`, under a fallback-move budget
    /// of `budget_ms` (none if 0), created (its first entry applied), not yet running.
    fn bot_game(seed: u64, bots: &[(u32, &str)], budget_ms: u64) -> (Actor, Arc<Metrics>) {
        let request = v1::CreateGameRequest {
            rules: Some(v1::RuleSet {
                preset: v1::Preset::Official as i32,
                player_count: 4,
                options: Default::default(),
            }),
            seed: Some(seed),
            time_control: (budget_ms > 0).then_some(v1::TimeControl {
                move_budget_ms: budget_ms,
                policy: v1::TimeoutPolicy::FallbackMove as i32,
            }),
            bots: bots
                .iter()
                .map(|&(seat, bot)| v1::SeatBot {
                    seat,
                    bot: bot.into(),
                })
                .collect(),
            ..Default::default()
        };
        let metrics = Metrics::new();
        let mut actor = Actor::new(
            "h".into(),
            1,
            request,
            Store::memory(),
            Arc::new(Config::for_tests()),
            metrics.clone(),
        )
        .expect("a valid game");
        actor.share_rebuilds(Rebuilds::new());
        actor.created(&Token::generate(), false).expect("created");
        (actor, metrics)
    }

    /// Every event of the game as a spectator sees it, until MatchEnded.
    async fn until_the_end(handle: &GameHandle) -> Vec<v1::GameEvent> {
        let sub = handle
            .ask(|reply| Command::Subscribe {
                token: None,
                after_seq: 0,
                include_actions: false,
                include_view: false,
                reply,
            })
            .await
            .expect("a spectator watches");
        let mut events: Vec<v1::GameEvent> = sub
            .backlog
            .iter()
            .map(|e| e.to_wire(Viewer::Spectator))
            .collect();
        let mut live = sub.live;
        let ended = |events: &[v1::GameEvent]| {
            events
                .last()
                .is_some_and(|e| matches!(e.kind, Some(v1::game_event::Kind::MatchEnded(_))))
        };
        while !ended(&events) {
            match live.recv().await.expect("the watcher keeps up") {
                Item::Event(e) => events.push(e.to_wire(Viewer::Spectator)),
                Item::Prompt(_) => {}
            }
        }
        events
    }

    /// The record of a finished game.
    async fn record(handle: &GameHandle) -> v1::GameRecord {
        handle
            .ask(|reply| Command::Export { reply })
            .await
            .expect("a finished game exports")
    }

    // Four greedy bots of the server play a match to its end on their own, under a time
    // control whose budget never runs out for them; they play exactly what the engine's
    // greedy bots play in-process (a bot sees its seat's view, nothing else), so the same seed
    // ends the same every time; every seat joined at the creation.
    #[tokio::test(start_paused = true)]
    async fn four_bots_play_a_match_to_its_end_as_the_engines_bots_do() {
        let seats: Vec<(u32, &str)> = (0..4).map(|s| (s, "greedy")).collect();
        let mut hashes = Vec::new();
        for _ in 0..2 {
            let (actor, metrics) = bot_game(5, &seats, 1000);
            assert_eq!(actor.status, Status::Playing, "every seat is held at once");
            let joined: Vec<_> = actor.log[..4]
                .iter()
                .map(|e| e.to_wire(Viewer::Spectator).kind)
                .collect();
            for (seat, kind) in joined.iter().enumerate() {
                assert_eq!(
                    kind,
                    &Some(v1::game_event::Kind::SeatJoined(v1::SeatJoined {
                        seat: seat as u32,
                        display_name: "greedy".into(),
                    }))
                );
            }
            let summary = actor.summary();
            assert!(
                summary
                    .seats
                    .iter()
                    .all(|s| s.occupied && s.bot == "greedy")
            );
            let handle = actor.spawn();
            let events = until_the_end(&handle).await;
            assert!(
                !events
                    .iter()
                    .any(|e| matches!(e.kind, Some(v1::game_event::Kind::TimedOut(_)))),
                "a bot's move never times out"
            );
            let record = record(&handle).await;
            assert_eq!(record.display_names, vec!["greedy"; 4]);
            let (setup, actions) = record_from_wire(&record).expect("a record");
            let replayed = Game::replay(&setup, &actions).expect("the record replays");
            assert_eq!(replayed.phase(), Phase::Over);
            assert_eq!(metrics.bot_moves(), actions.len() as u64);
            let text = metrics.render();
            for line in [
                format!("canasta_bot_moves_total {}", actions.len()),
                format!("canasta_bot_think_seconds_count {}", actions.len()),
                format!("canasta_actions_total {}", actions.len()),
            ] {
                assert!(text.contains(&format!("{line}\n")), "{line} in {text}");
            }
            // The engine's own greedy bots, in-process, from the same setup.
            let (mut game, _) = Game::start(&setup).expect("the setup");
            let mut bots: Vec<Box<dyn engine_bot::Bot>> = (0..4)
                .map(|_| Box::new(GreedyBot::new()) as Box<dyn engine_bot::Bot>)
                .collect();
            engine_bot::play(&mut game, &mut bots, 1000, |_| {}).expect("the match ends");
            assert_eq!(game.state_hash(), replayed.state_hash());
            hashes.push((replayed.state_hash(), record.result));
        }
        assert_eq!(hashes[0], hashes[1], "the same seed, the same match");
    }

    // A game with bots in some seats waits for the others; once joined, a client's seat acts
    // on its turn and the bots act on theirs, through the same path: every action is in the
    // log, the bots' with request ids of their own. A bot seat cannot be joined.
    #[tokio::test(start_paused = true)]
    async fn bots_play_their_seats_beside_a_client() {
        let (mut actor, _) = bot_game(9, &[(1, "greedy"), (2, "random"), (3, "safe")], 0);
        assert_eq!(actor.status, Status::Waiting);
        let refused = actor
            .join(Some(2), "someone".into())
            .await
            .expect_err("a bot's seat");
        assert_eq!(refused.reason, canasta_proto::Reason::SeatTaken);
        let token = join(&mut actor, 0).await;
        assert_eq!(actor.status, Status::Playing);
        let handle = actor.spawn();
        let sub = handle
            .ask(|reply| Command::Subscribe {
                token: Some(token.clone()),
                after_seq: 0,
                include_actions: false,
                include_view: false,
                reply,
            })
            .await
            .expect("the seat watches");
        let mut live = sub.live;
        let mut prompt = sub.prompt;
        let mut played = 0;
        while played < 40 {
            if let Some(p) = prompt.take() {
                let view = handle
                    .ask(|reply| Command::View {
                        token: Some(token.clone()),
                        include_actions: true,
                        reply,
                    })
                    .await
                    .expect("a view");
                let seq = view.view.as_ref().expect("a view").seq;
                assert_eq!(p.prompt.seq, seq);
                let bots: Vec<&str> = view
                    .view
                    .as_ref()
                    .expect("a view")
                    .seats
                    .iter()
                    .map(|s| s.bot.as_str())
                    .collect();
                assert_eq!(
                    bots,
                    ["", "greedy", "random", "safe"],
                    "a view names the bots"
                );
                // The last listed action: a discard rather than a draw, a meld where one is
                // listed; any legal action will do.
                let action = view
                    .legal
                    .and_then(|l| l.actions.last().cloned())
                    .expect("the seat to act has choices");
                handle
                    .ask(|reply| Command::Submit {
                        token: token.clone(),
                        expected_seq: seq,
                        request_id: format!("c{played}"),
                        action: Box::new(action),
                        with_events: false,
                        reply,
                    })
                    .await
                    .expect("the client's action is applied");
                played += 1;
                continue;
            }
            match live.recv().await.expect("the watcher keeps up") {
                Item::Prompt(p) => prompt = Some(p),
                Item::Event(e) => {
                    if let LogKind::Server(v1::game_event::Kind::MatchEnded(_)) = e.kind {
                        break;
                    }
                }
            }
        }
        assert!(played >= 10, "{played}");
        let summary = handle.summary();
        let bots: Vec<&str> = summary.seats.iter().map(|s| s.bot.as_str()).collect();
        assert_eq!(bots, ["", "greedy", "random", "safe"]);
    }

    // A bot thinks at most the server's cap (--max-bot-think-ms) and, under a time control,
    // its seat's time left less a margin (a tenth, at least 20 ms), counted once the pool lets
    // it think: the wait for its turn among the server's thinking bots is the seat's time too.
    #[tokio::test(start_paused = true)]
    async fn a_bot_thinks_within_the_cap_and_its_time_left() {
        let config = Config::for_tests()
            .to_builder()
            .bot_threads(1)
            .max_bot_think(Duration::from_millis(200))
            .build()
            .expect("a valid configuration");
        let pool = BotPool::new(&config);
        let seats: Vec<(u32, &str)> = (0..4).map(|s| (s, "search:10")).collect();
        for (waited, limit) in [(0, 200), (700, 200), (800, 180), (900, 80), (990, 0)] {
            let (mut actor, _) = bot_game(6, &seats, 1000);
            actor.share_bots(pool.clone());
            // The bot's choice comes back to the test instead of the game's loop.
            let (tx, mut rx) = mpsc::channel(1);
            actor.house.as_mut().expect("bots").listen(tx.downgrade());
            // The pool's one place is taken: the bot waits its turn.
            let held = pool.permit().await;
            actor.wake_bot();
            tokio::time::advance(Duration::from_millis(waited)).await;
            drop(held);
            let Some(Command::BotMoved(moved)) = rx.recv().await else {
                panic!("the bot's choice comes back");
            };
            assert_eq!(
                moved.limit,
                Duration::from_millis(limit),
                "after {waited} ms"
            );
            assert!(moved.action.is_some(), "a choice however short the time");
            assert_eq!(moved.seq, actor.seq());
            actor.bot_moved(*moved).await;
            assert!(
                actor.seq() > 0 && actor.record.len() == 1,
                "the choice is played"
            );
        }
    }

    // The seat to act is a bot's when the game is restored from its entries (a restart): the
    // bot acts without anything else happening.
    #[tokio::test(start_paused = true)]
    async fn a_restored_game_goes_on_with_its_bots() {
        let (mut actor, _) = bot_game(3, &[(1, "greedy"), (2, "greedy"), (3, "greedy")], 0);
        let token = join(&mut actor, 0).await;
        // The client plays until a bot is to act.
        let mut mine = GreedyBot::new();
        while actor.game.to_act() == Some(Seat(0)) {
            let action = bot_action(&actor, Seat(0), &mut mine);
            actor
                .submit(
                    &token,
                    actor.seq(),
                    format!("r{}", actor.seq()),
                    &action,
                    false,
                )
                .await
                .expect("applied");
        }
        let entries = actor.stored_entries().expect("the entries");
        // Restored as on a restart: the stored request and entries.
        let mut restored = Actor::new(
            "h".into(),
            1,
            actor.request.clone(),
            Store::memory(),
            Arc::new(Config::for_tests()),
            Metrics::new(),
        )
        .expect("a valid game");
        restored.replay(&entries).expect("the log replays");
        assert_eq!(restored.seq(), actor.seq());
        let seq = restored.seq();
        let handle = restored.spawn();
        let sub = handle
            .ask(|reply| Command::Subscribe {
                token: Some(token.clone()),
                after_seq: seq,
                include_actions: false,
                include_view: false,
                reply,
            })
            .await
            .expect("the seat watches");
        let mut live = sub.live;
        // The bots play on to seat 0's next prompt.
        let mut prompted = sub.prompt.is_some();
        while !prompted {
            prompted = matches!(live.recv().await.expect("live"), Item::Prompt(_));
        }
        assert!(handle.summary().seq > seq);
    }
}
