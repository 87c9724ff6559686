//! Time controls: a game's move budget, the time-outs when it runs out, and the end of a match
//! that only time-outs play.
//!
//! The clock runs on tokio's time, which tests pause. Apart from the policies for games nobody
//! plays (`unplayed.rs`), which count from the last activity rather than from the last move,
//! and end a game whatever its time control; the actor's loop waits for the first of both
//! deadlines.

use std::time::Duration;

use canasta_engine::Viewer;
use canasta_engine::bot::{Bot, SafeBot};
use canasta_proto::convert::action_to_wire;
use canasta_proto::v1;

use super::{Actor, Status};
use crate::config::Config;
use crate::errors::ApiError;
use crate::store::{Entry, EntryKind, TimeoutEntry};
use canasta_proto::Reason;

/// A game's time control and its clock, on tokio's clock (which tests pause).
#[derive(Debug)]
pub(super) struct Clock {
    /// The move budget; none without a time control.
    budget: Option<Duration>,
    /// What a time-out does.
    policy: v1::TimeoutPolicy,
    /// When the seat to act runs out of time.
    deadline: Option<tokio::time::Instant>,
    /// Each seat's time-outs since the last action of any seat, rebuilt from the log.
    timeouts_in_a_row: Vec<u32>,
    /// The time-outs' log lines, at most one a minute (see [`LineLimit`]).
    lines: LineLimit,
}

impl Clock {
    /// The clock of a game of `players` seats under the time control `tc`, stopped. A new
    /// game's budget was checked against the bounds ([`check_time_control`]); a stored one made
    /// under other bounds (or before there were any) runs at the nearest.
    pub(super) fn new(
        tc: Option<v1::TimeControl>,
        config: &Config,
        players: usize,
    ) -> Result<Clock, ApiError> {
        let tc = tc.unwrap_or_default();
        let bounds = config.move_budgets();
        let budget = (tc.move_budget_ms > 0).then(|| {
            Duration::from_millis(tc.move_budget_ms).clamp(*bounds.start(), *bounds.end())
        });
        let policy =
            v1::TimeoutPolicy::try_from(tc.policy).unwrap_or(v1::TimeoutPolicy::Unspecified);
        if budget.is_some() && policy == v1::TimeoutPolicy::Unspecified {
            return Err(ApiError::invalid(
                Reason::InvalidEnum,
                "time_control.policy",
                "a move budget needs a policy: TIMEOUT_POLICY_FALLBACK_MOVE or TIMEOUT_POLICY_FORFEIT",
            ));
        }
        Ok(Clock {
            budget,
            policy,
            deadline: None,
            timeouts_in_a_row: vec![0; players],
            lines: LineLimit::default(),
        })
    }

    /// True if the game has a time control.
    pub(super) fn timed(&self) -> bool {
        self.budget.is_some()
    }

    /// When the seat to act runs out of time, if it can.
    pub(super) fn deadline(&self) -> Option<tokio::time::Instant> {
        self.deadline
    }

    /// A seat acted: the count towards abandoning the match starts again.
    pub(super) fn acted(&mut self) {
        self.timeouts_in_a_row.fill(0);
    }

    /// `seat` timed out.
    pub(super) fn timed_out(&mut self, seat: u32) {
        if let Some(n) = self.timeouts_in_a_row.get_mut(seat as usize) {
            *n = n.saturating_add(1);
        }
    }
}

/// Time-outs since the last action of any seat after which a match under
/// `TIMEOUT_POLICY_FALLBACK_MOVE` is abandoned, once every seat has had that many: no side
/// wins (`MATCH_END_KIND_ABANDONED`). Logged with the time-out that ends it, so changing it
/// changes no stored game.
pub const ABANDON_AFTER: u32 = 3;

/// A check of a new game's time control (CreateGame's, a seek's, a challenge's): its policy is
/// a known one, even without a budget (where it would never act), as every unknown enum value
/// is refused; its budget is within the server's bounds (`--min-move-budget-ms`,
/// `--max-move-budget-ms`), 0 (no time control) passes. Games restored from storage are not
/// checked: they run at the nearest bound.
pub fn check_time_control(tc: Option<&v1::TimeControl>, config: &Config) -> Result<(), ApiError> {
    if let Some(tc) = tc
        && v1::TimeoutPolicy::try_from(tc.policy).is_err()
    {
        return Err(ApiError::invalid(
            Reason::InvalidEnum,
            "time_control.policy",
            format!(
                "policy {} is not a TimeoutPolicy: send TIMEOUT_POLICY_FALLBACK_MOVE or TIMEOUT_POLICY_FORFEIT",
                tc.policy
            ),
        ));
    }
    let Some(ms) = tc.map(|tc| tc.move_budget_ms).filter(|&ms| ms > 0) else {
        return Ok(());
    };
    let bounds = config.move_budgets();
    if bounds.contains(&Duration::from_millis(ms)) {
        return Ok(());
    }
    Err(ApiError::invalid(
        Reason::BadTimeControl,
        "time_control.move_budget_ms",
        format!(
            "a move budget of {ms} ms is outside this server's bounds: send 0 (no time control) \
             or {} to {} ms",
            bounds.start().as_millis(),
            bounds.end().as_millis()
        ),
    ))
}

impl Actor {
    /// Starts the move's time again (the seat to act has the whole budget), and moves the end
    /// of a game nobody plays as its activity says.
    pub(super) fn restart_clock(&mut self) {
        self.clock.deadline = match (self.status, self.clock.budget) {
            // The budget is at most a year (`--max-move-budget-ms`): the sum does not overflow.
            (Status::Playing, Some(b)) => Some(tokio::time::Instant::now() + b),
            _ => None,
        };
        self.restart_end();
    }

    /// The move the fallback bot plays for `seat`, the seat to act: on a time-out, and for a
    /// built-in bot whose own choice failed.
    pub(super) fn fallback_move(&self, seat: canasta_engine::Seat) -> v1::Action {
        let view = self.game.view(Viewer::Seat(seat));
        let legal = view.legal().expect("the seat to act sees its choices");
        action_to_wire(&SafeBot::new().choose(&view, &legal))
    }

    /// The time left to the seat to act, in milliseconds, if it has a budget.
    pub(super) fn time_left(&self) -> Option<u64> {
        self.clock.deadline.map(|d| {
            d.saturating_duration_since(tokio::time::Instant::now())
                .as_millis() as u64
        })
    }

    /// The seat to act has run out of time: the time-out is stored and applied, with the
    /// fallback move if the policy says so.
    pub(super) async fn time_out(&mut self) {
        self.clock.deadline = None;
        let Some(seat) = self.seat_to_act() else {
            return;
        };
        // This time-out abandons the match if, with it, every seat has timed out
        // ABANDON_AFTER times since the last action of any seat: nobody is playing, and the
        // fallback bot, which never melds, would play on for ever.
        let abandons = self.clock.policy == v1::TimeoutPolicy::FallbackMove
            && self
                .clock
                .timeouts_in_a_row
                .iter()
                .enumerate()
                .all(|(s, &n)| n.saturating_add(u32::from(s == seat.index())) >= ABANDON_AFTER);
        let action = match self.clock.policy {
            v1::TimeoutPolicy::Forfeit => None,
            _ if abandons => None,
            _ => Some(self.fallback_move(seat)),
        };
        let entry = Entry::of(EntryKind::Timeout(TimeoutEntry {
            seat: seat.0 as u32,
            action,
            abandoned: abandons,
        }));
        let now = tokio::time::Instant::now();
        match self.commit(entry).await {
            Ok(()) => {
                self.metrics.timed_out(abandons);
                if abandons {
                    tracing::info!(
                        game = %self.id,
                        "the match is abandoned: every seat timed out {ABANDON_AFTER} times and none acted"
                    );
                } else if let Some(unlogged) = self.clock.lines.allow(now) {
                    tracing::info!(
                        game = %self.id,
                        seat = seat.0,
                        unlogged,
                        "a move timed out (at most one line a minute per game; `unlogged` more since the last)"
                    );
                }
            }
            Err(e) => {
                if let Some(unlogged) = self.failure_lines.allow(now) {
                    tracing::error!(
                        game = %self.id,
                        error = %e.message,
                        unlogged,
                        "a time-out could not be stored (at most one line a minute per game)"
                    );
                }
                // Try again after another budget rather than spin.
                self.restart_clock();
            }
        }
    }
}

/// At most one log line a minute for an event a game repeats (its time-outs, the failed
/// stores of the server's own entries): the first is logged, the next ones within the minute only counted, and the
/// count told in the next line. The metrics count every one.
#[derive(Debug, Default)]
pub(super) struct LineLimit {
    /// When the last line was logged.
    last: Option<tokio::time::Instant>,
    /// Events since then that were not logged.
    unlogged: u64,
    /// Lines allowed so far, and the events they tell of (themselves and those left out
    /// before them): what the tests check, as the output of a log depends on its subscriber.
    lines: u64,
    told: u64,
}

impl LineLimit {
    /// The least time between two lines.
    const EVERY: Duration = Duration::from_secs(60);

    /// An event at `now`: the number of events not logged since the last line, if this one is
    /// logged.
    pub(super) fn allow(&mut self, now: tokio::time::Instant) -> Option<u64> {
        match self.last {
            Some(last) if now.saturating_duration_since(last) < Self::EVERY => {
                self.unlogged += 1;
                None
            }
            _ => {
                self.last = Some(now);
                let unlogged = std::mem::take(&mut self.unlogged);
                self.lines += 1;
                self.told += 1 + unlogged;
                Some(unlogged)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Time controls: the budget's bounds, the end of a match that only time-outs play, and the
    //! time-outs' log lines. Time is tokio's paused clock: every wait is virtual.

    use std::sync::{Arc, Mutex};

    use canasta_engine::Seat;
    use canasta_engine::bot::GreedyBot;

    use super::super::testing::{bot_action, join, sleep_until};
    use super::*;
    use crate::auth::Token;
    use crate::metrics::Metrics;
    use crate::store::Store;

    /// A game of `players` under a fallback-move budget of `budget_ms`, on memory storage.
    fn timed_actor(players: u32, budget_ms: u64) -> Actor {
        let request = v1::CreateGameRequest {
            rules: Some(v1::RuleSet {
                preset: v1::Preset::Official as i32,
                player_count: players,
                options: Default::default(),
            }),
            seed: Some(11),
            time_control: Some(v1::TimeControl {
                move_budget_ms: budget_ms,
                policy: v1::TimeoutPolicy::FallbackMove as i32,
            }),
            ..Default::default()
        };
        Actor::new(
            "t".into(),
            1,
            request,
            Store::memory(),
            Arc::new(Config::for_tests()),
            Metrics::new(),
        )
        .expect("a valid game")
    }

    async fn seated(players: u32, budget_ms: u64) -> (Actor, Vec<Token>) {
        let mut actor = timed_actor(players, budget_ms);
        let mut tokens = Vec::new();
        for seat in 0..players {
            tokens.push(join(&mut actor, seat).await);
        }
        assert_eq!(actor.status, Status::Playing);
        (actor, tokens)
    }

    /// Lets the clock run out as the actor's loop does (waiting for the deadline, then timing
    /// out), until the game ends or `cap` time-outs have passed; returns how many passed.
    async fn run_out(actor: &mut Actor, cap: usize) -> usize {
        let mut n = 0;
        while actor.status == Status::Playing && n < cap {
            assert!(
                actor.clock.deadline.is_some(),
                "a game in play runs a clock"
            );
            sleep_until(actor.clock.deadline).await;
            actor.time_out().await;
            n += 1;
        }
        n
    }

    // No seat ever acts: the match ends, abandoned with no winner, after three time-outs of
    // each seat, in that many budgets of (virtual) time and as many stored entries, and a
    // restart from the stored entries ends it the same.
    #[tokio::test(start_paused = true)]
    async fn a_match_that_only_time_outs_play_is_abandoned() {
        for players in [2, 4] {
            let budget = 1000;
            let (mut actor, _) = seated(players, budget).await;
            let started = tokio::time::Instant::now();
            let entries_before = actor.entries;
            let n = run_out(&mut actor, 500).await;
            assert_eq!(
                actor.status,
                Status::Finished,
                "{players} players: {n} time-outs"
            );
            // Every seat timed out three times; a seat's turn is a few decisions, so no seat
            // timed out more than a turn's worth more.
            assert!(
                n >= 3 * players as usize && n <= 8 * players as usize,
                "{n}"
            );
            assert_eq!(actor.entries - entries_before, n as u64);
            assert_eq!(started.elapsed(), Duration::from_millis(budget) * n as u32);
            assert_eq!(actor.clock.deadline, None, "a finished game runs no clock");
            let result = actor.result();
            assert!(result.finished);
            assert_eq!(result.end, v1::MatchEndKind::Abandoned as i32);
            assert_eq!(result.winner_side, None);
            assert_eq!(result.forfeited_side, None);
            let last: Vec<_> = actor.log[actor.log.len() - 2..]
                .iter()
                .map(|e| e.to_wire(Viewer::Spectator).kind)
                .collect();
            assert!(
                matches!(last[0], Some(v1::game_event::Kind::TimedOut(_))),
                "{last:?}"
            );
            assert_eq!(
                last[1],
                Some(v1::game_event::Kind::MatchEnded(v1::MatchEnded {
                    result: Some(result.clone())
                }))
            );
            // Nothing more happens, however long the game is left.
            tokio::time::advance(Duration::from_secs(3600)).await;
            assert_eq!(run_out(&mut actor, 10).await, 0);

            // Restored from its entries, the game is the same finished game.
            let entries = actor.stored_entries().expect("the entries");
            let mut restored = timed_actor(players, budget);
            restored.replay(&entries).expect("the log replays");
            assert_eq!(restored.status, Status::Finished);
            assert_eq!(restored.seq, actor.seq);
            assert_eq!(restored.result(), result);
            assert_eq!(restored.clock.deadline, None);
            assert_eq!(restored.summary(), actor.summary());
            actor.compact();
            let rebuilt = actor.replayed().expect("the game rebuilds");
            assert_eq!(rebuilt.result(), result);
        }
    }

    // A seat that acts starts the count again: after two time-outs of each seat, seat 0's
    // action means each must time out three more times before the match is abandoned.
    #[tokio::test(start_paused = true)]
    async fn an_action_starts_the_count_again() {
        let (mut actor, tokens) = seated(2, 1000).await;
        let mut by_seat = [0; 2];
        while by_seat.iter().any(|&n| n < 2) || actor.game.to_act() != Some(Seat(0)) {
            let seat = actor.game.to_act().expect("a seat to act");
            assert_eq!(run_out(&mut actor, 1).await, 1);
            by_seat[seat.index()] += 1;
            assert_eq!(actor.status, Status::Playing, "{by_seat:?}");
        }
        let action = bot_action(&actor, Seat(0), &mut GreedyBot::new());
        actor
            .submit(&tokens[0], actor.seq(), "r".into(), &action, false)
            .await
            .expect("the action is applied");
        let n = run_out(&mut actor, 500).await;
        assert_eq!(actor.status, Status::Finished);
        assert!(n >= 6, "{n} time-outs after the action");
        assert_eq!(actor.result().end, v1::MatchEndKind::Abandoned as i32);
        // The count is restored from the log: a restart before the end ends the game after
        // the same time-outs.
        let entries = actor.stored_entries().expect("the entries");
        let mut restored = timed_actor(2, 1000);
        restored
            .replay(&entries[..entries.len() - 1])
            .expect("the log replays");
        assert_eq!(restored.status, Status::Playing);
        assert_eq!(run_out(&mut restored, 500).await, 1);
        assert_eq!(restored.entry_log, actor.entry_log);
    }

    /// A log sink for one test.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("not poisoned").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    // A seat that is gone while the other plays: its time-outs are all counted in the metrics
    // but logged at most once a minute (the first one at once), with the number left out.
    #[tokio::test(start_paused = true)]
    async fn time_outs_are_logged_at_most_once_a_minute_per_game() {
        let captured = Captured::default();
        let sink = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        // Tests on other threads, without a subscriber, may have hit the time-out's log line
        // first: tracing then cached "never" for it. Its interest is asked again with this
        // thread's subscriber registered.
        tracing::callsite::rebuild_interest_cache();

        let (mut actor, tokens) = seated(2, 1000).await;
        let started = tokio::time::Instant::now();
        let mut bot = GreedyBot::new();
        let mut timeouts = 0;
        for n in 0..2000 {
            if actor.status != Status::Playing || timeouts == 300 {
                break;
            }
            match actor.game.to_act() {
                Some(Seat(0)) => {
                    let action = bot_action(&actor, Seat(0), &mut bot);
                    actor
                        .submit(&tokens[0], actor.seq(), format!("r{n}"), &action, false)
                        .await
                        .expect("the bot's action is applied");
                }
                _ => timeouts += run_out(&mut actor, 1).await,
            }
        }
        assert!(timeouts >= 120, "{timeouts} time-outs");
        // Seat 0 plays: the match is not abandoned.
        assert_ne!(actor.result().end, v1::MatchEndKind::Abandoned as i32);
        let minutes = started.elapsed().as_secs() / 60;
        let limit = &actor.clock.lines;
        assert!(
            limit.lines > 0 && limit.lines <= minutes + 1,
            "{} lines in {minutes} minutes for {timeouts} time-outs",
            limit.lines
        );
        // The lines count the time-outs they leave out: with the first, all of them but those
        // of the last minute.
        let told = limit.told as usize;
        assert!(
            told <= timeouts && timeouts - told < 60,
            "{told} of {timeouts}"
        );
        // What reached the log, when this thread's subscriber got it (tracing's per-callsite
        // cache, shared with the tests running beside this one, may have said no one wants
        // the line): a line per allowed one, each with its count.
        let text = String::from_utf8(captured.0.lock().expect("not poisoned").clone())
            .expect("UTF-8 lines");
        let lines: Vec<&str> = text.lines().filter(|l| l.contains("timed out")).collect();
        assert!(lines.len() as u64 <= limit.lines, "{lines:?}");
        assert!(lines.iter().all(|l| l.contains("unlogged=")), "{lines:?}");
        assert!(
            actor
                .metrics
                .render()
                .contains(&format!("canasta_timeouts_total {timeouts}\n"))
        );
    }
}
