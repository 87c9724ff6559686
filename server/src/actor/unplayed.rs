//! Games nobody plays, and the creator's cancel of a waiting game.
//!
//! A game nobody plays ends by the server's policy (`docs/protocol.md`, "Games nobody plays"):
//! the actor keeps when the game last saw a player's activity, and the deadline that follows
//! from it (see [`Actor::end_deadline`]), and stores the end as an entry of the log when it
//! comes, so that a restart replays it; the log keeps the times of the players' activity
//! ([`Stamps`]), from which a restart counts again. A creator's cancel ends a waiting game by
//! the same entry. Apart from the time controls (`clock.rs`): a policy counts from the last
//! activity of any player, not from the last move, and ends a game whatever its time control.

use std::time::Duration;

use canasta_proto::v1;
use tonic::Code;

use super::{Actor, Status, now_ms};
use crate::auth::Token;
use crate::errors::ApiError;
use crate::store::{EndCause, EndEntry, Entry, EntryKind};
use canasta_proto::Reason;

/// True for the entries of a player's activity, from which the policies for games nobody plays
/// count: the creation, a join, a leave, an action (a time-out or an end is the server's).
fn is_activity(kind: &EntryKind) -> bool {
    matches!(
        kind,
        EntryKind::Created(_) | EntryKind::Join(_) | EntryKind::Leave(_) | EntryKind::Act(_)
    )
}

/// How often, at most, an action carries the time it was stored ([`Entry::at_ms`]): when it
/// comes this long or longer after the last time stored (the creation, every join and every
/// leave carry theirs). A restart counts the game's last activity from the last time stored,
/// plus this much if actions came after it: at most this much later than it was, never
/// earlier.
pub const STAMP_EVERY: Duration = Duration::from_secs(60);

/// How long the actor waits before it tries again to store the end of a game nobody plays,
/// after storage failed.
const END_RETRY: Duration = Duration::from_secs(60);

/// What the policies for games nobody plays keep of a game: the times of its players'
/// activity, and the end that follows from them.
#[derive(Debug)]
pub(super) struct Unplayed {
    /// The times the log holds of the players' activity.
    stamps: Stamps,
    /// When the game last saw a player's activity (its creation, a join, a leave, an action):
    /// the policies count from it.
    activity: Activity,
    /// When the game is to end because nobody plays it, and why, if a policy applies to it
    /// now (see [`Actor::end_deadline`]).
    deadline: Option<(tokio::time::Instant, EndCause)>,
}

impl Unplayed {
    /// A new game's: its activity is now.
    pub(super) fn new() -> Unplayed {
        Unplayed {
            stamps: Stamps::default(),
            activity: Activity::now(),
            deadline: None,
        }
    }

    /// Gives a live entry of a player's activity the time it is stored, when it should carry
    /// it; true if the entry is one of activity.
    pub(super) fn stamp(&self, entry: &mut Entry) -> bool {
        let active = entry.kind.as_ref().is_some_and(is_activity);
        if active {
            // Joins and leaves are few: each carries its time. Actions are many: one a
            // minute does (see STAMP_EVERY).
            let now = now_ms();
            let action = matches!(entry.kind, Some(EntryKind::Act(_)));
            if !action || self.stamps.due(now) {
                entry.at_ms = now;
            }
        }
        active
    }

    /// An entry of the log applied, live or on replay: its time, if it is one of activity.
    pub(super) fn applied(&mut self, kind: &EntryKind, at_ms: i64) {
        if is_activity(kind) {
            self.stamps.note(at_ms);
        }
    }

    /// A player's activity now, stored: the policies count from it.
    pub(super) fn active_now(&mut self) {
        self.activity = Activity::now();
    }

    /// The log was replayed at the wall-clock time `now_ms`: the policies count from the last
    /// activity as the log tells it (see [`Stamps::last_activity_ms`]).
    pub(super) fn replayed(&mut self, created_ms: i64, now_ms: i64) {
        self.activity = match self.stamps.last_activity_ms(created_ms) {
            // Time the server was down counts as time without activity: a policy is a time
            // since the last activity, so a game ends as the policy says, never earlier, and a
            // server restarted more often than a timeout still ends the games nobody plays.
            Some(at) => Activity::since(now_ms.saturating_sub(at)),
            // A log written before the times were stored: counted from the restart, which
            // ends the game later than the policy says, never earlier.
            None => Activity::now(),
        };
    }

    /// When the game is to end because nobody plays it, and why.
    pub(super) fn deadline(&self) -> Option<(tokio::time::Instant, EndCause)> {
        self.deadline
    }
}

/// What a game's log says of the times of its players' activity.
#[derive(Clone, Copy, Debug, Default)]
struct Stamps {
    /// The last time an entry of activity carried, in milliseconds since the epoch.
    last_ms: Option<i64>,
    /// Entries of activity came after it without a time.
    unstamped_after: bool,
    /// The log holds an entry of activity.
    any: bool,
}

impl Stamps {
    /// An entry of activity, with its time or 0.
    fn note(&mut self, at_ms: i64) {
        self.any = true;
        if at_ms > 0 {
            self.last_ms = Some(at_ms);
            self.unstamped_after = false;
        } else {
            self.unstamped_after = true;
        }
    }

    /// True if an action stored at `now_ms` carries its time (see [`STAMP_EVERY`]); a clock
    /// set back stamps again.
    fn due(&self, now_ms: i64) -> bool {
        self.last_ms
            .is_none_or(|last| now_ms < last || now_ms - last >= STAMP_EVERY.as_millis() as i64)
    }

    /// The latest the game's last activity may have been, in milliseconds since the epoch:
    /// the last time stored (plus [`STAMP_EVERY`] if activity followed it), or the creation
    /// of a game with no activity logged; `None` if a log written before the times were
    /// stored does not tell.
    fn last_activity_ms(&self, created_ms: i64) -> Option<i64> {
        match self.last_ms {
            Some(at) if self.unstamped_after => {
                Some(at.saturating_add(STAMP_EVERY.as_millis() as i64))
            }
            Some(at) => Some(at),
            None if !self.any => Some(created_ms),
            None => None,
        }
    }
}

/// When a game last saw a player's activity, on tokio's clock (which tests pause): an instant,
/// and how long before it the activity was (after a restart, from the times the log holds; an
/// instant that far back may be before the clock's start).
#[derive(Clone, Copy, Debug)]
struct Activity {
    at: tokio::time::Instant,
    behind: Duration,
}

impl Activity {
    /// Activity now.
    fn now() -> Activity {
        Activity::since(0)
    }

    /// Activity `ms` milliseconds ago (none if negative: a clock set back).
    fn since(ms: i64) -> Activity {
        Activity {
            at: tokio::time::Instant::now(),
            behind: Duration::from_millis(ms.max(0) as u64),
        }
    }

    /// The instant `limit` after the activity (now, if that has passed).
    fn after(&self, limit: Duration) -> tokio::time::Instant {
        // A limit is at most a year (the flags): the sum does not overflow.
        self.at + limit.saturating_sub(self.behind)
    }
}

impl Actor {
    /// Moves the end of the game nobody plays as its status and its activity now say.
    pub(super) fn restart_end(&mut self) {
        self.unplayed.deadline = self.end_deadline();
    }

    /// When the game ends if nobody plays it from now on, and why: the first of the policies
    /// that apply to it now, counted from its last activity. A waiting game expires
    /// (`--waiting-timeout-secs`); a started game without a time control is abandoned when
    /// idle (`--idle-timeout-secs`: a game with one ends by its time-outs, see
    /// [`ABANDON_AFTER`](super::ABANDON_AFTER)); a started game whose every seat is left is
    /// abandoned (`--left-timeout-secs`).
    fn end_deadline(&self) -> Option<(tokio::time::Instant, EndCause)> {
        let after = |limit: Option<Duration>, cause| {
            limit.map(|l| (self.unplayed.activity.after(l), cause))
        };
        match self.status {
            Status::Waiting => after(self.config.waiting_timeout(), EndCause::Expired),
            Status::Playing => {
                let idle = match self.clock.timed() {
                    false => after(self.config.idle_timeout(), EndCause::Idle),
                    true => None,
                };
                // Bots never leave: every seat a client may hold is left.
                let left = match self.seats.iter().all(|s| s.token.is_none())
                    && self.seats.iter().any(|s| s.bot.is_none())
                {
                    true => after(self.config.left_timeout(), EndCause::Left),
                    false => None,
                };
                idle.into_iter().chain(left).min()
            }
            Status::Finished => None,
        }
    }

    /// Ends the game nobody plays, as its deadline says (see [`Actor::end_deadline`]).
    pub(super) async fn end_unplayed(&mut self) {
        let Some((_, cause)) = self.unplayed.deadline.take() else {
            return;
        };
        let now = tokio::time::Instant::now();
        match self.end(cause).await {
            Ok(()) => tracing::info!(
                game = %self.id,
                cause = ?cause,
                "a game nobody plays has ended (see docs/protocol.md, \"Games nobody plays\")"
            ),
            Err(e) => {
                if let Some(unlogged) = self.failure_lines.allow(now) {
                    tracing::error!(
                        game = %self.id,
                        error = %e.message,
                        unlogged,
                        "the end of a game nobody plays could not be stored (at most one line a \
                         minute per game); tried again in a minute"
                    );
                }
                // Try again later rather than spin; an activity meanwhile moves it on.
                self.unplayed.deadline = Some((now + END_RETRY, cause));
            }
        }
    }

    /// Stores and applies the end of the game for `cause`.
    async fn end(&mut self, cause: EndCause) -> Result<(), ApiError> {
        let entry = Entry::of(EntryKind::End(EndEntry {
            cause: cause as i32,
        }));
        self.commit(entry).await?;
        if let Some(kind) = self.ended {
            self.metrics.game_ended(kind);
        }
        Ok(())
    }

    /// Ends a game the lobby made but has no record of (see [`EndCause::Unrecorded`]),
    /// whatever its state; one over already stays as it is.
    pub(super) async fn end_unrecorded(&mut self) -> Result<(), ApiError> {
        if self.status == Status::Finished {
            return Ok(());
        }
        self.end(EndCause::Unrecorded).await
    }

    /// Cancels the waiting game for its creator: the token must be the creator token.
    pub(super) async fn cancel(&mut self, token: &Token) -> Result<v1::GameSummary, ApiError> {
        if !self.creator.as_ref().is_some_and(|c| c.matches(token)) {
            return Err(ApiError::new(
                Code::PermissionDenied,
                Reason::NotGameCreator,
                match self.creator {
                    Some(_) => format!(
                        "this token is not the creator token of game {}: only the creator_token \
                         CreateGame returned for it cancels it (a seat's token does not)",
                        self.id
                    ),
                    None => format!(
                        "game {} was created before the server gave creator tokens: nobody can \
                         cancel it; it ends by the server's policy for games nobody plays",
                        self.id
                    ),
                },
            ));
        }
        match self.status {
            Status::Waiting => self.end(EndCause::Cancelled).await?,
            Status::Playing => {
                return Err(ApiError::new(
                    Code::FailedPrecondition,
                    Reason::GameStarted,
                    format!(
                        "game {} has started (every seat was taken) and can no longer be \
                         cancelled: only a game waiting for players can; a started match ends \
                         as any match does",
                        self.id
                    ),
                ));
            }
            // A retried cancel is answered as the first was.
            Status::Finished if self.ended == Some(v1::MatchEndKind::Cancelled) => {}
            Status::Finished => {
                return Err(ApiError::new(
                    Code::FailedPrecondition,
                    Reason::GameFinished,
                    format!(
                        "game {} is over already: there is nothing to cancel",
                        self.id
                    ),
                ));
            }
        }
        Ok(self.summary())
    }
}

#[cfg(test)]
mod tests {
    //! Games nobody plays: each policy's deadline, counted from the last activity, on tokio's
    //! paused clock; the end as a log entry that a restart replays; the timers a restart
    //! arms from the times the log holds; the creator's cancel.

    use std::sync::Arc;

    use canasta_engine::Viewer;
    use canasta_engine::bot::GreedyBot;

    use super::super::testing::{bot_action, join, sleep_until};
    use super::super::{Command, Item, LogKind, Rebuilds, now_ms};
    use super::*;
    use crate::config::Config;
    use crate::metrics::Metrics;
    use crate::registry::GameSlots;
    use crate::store::{CreatedEntry, JoinEntry, Store};

    const HOUR: Duration = Duration::from_secs(3600);
    const DAY: Duration = Duration::from_secs(86_400);
    const TEN_MINUTES: Duration = Duration::from_secs(600);

    /// A configuration with the default policies: an hour to fill the seats, a day idle, ten
    /// minutes with every seat left.
    fn config() -> Config {
        let config = Config::for_tests();
        assert_eq!(config.waiting_timeout(), Some(HOUR));
        assert_eq!(config.idle_timeout(), Some(DAY));
        assert_eq!(config.left_timeout(), Some(TEN_MINUTES));
        config
    }

    /// A new two-player game (created at `created_ms`, without a creator entry), with a
    /// fallback-move budget of `budget_ms` if not 0.
    fn new_game(config: Config, budget_ms: u64, created_ms: i64) -> Actor {
        let request = v1::CreateGameRequest {
            rules: Some(v1::RuleSet {
                preset: v1::Preset::Official as i32,
                player_count: 2,
                options: Default::default(),
            }),
            seed: Some(3),
            time_control: (budget_ms > 0).then_some(v1::TimeControl {
                move_budget_ms: budget_ms,
                policy: v1::TimeoutPolicy::FallbackMove as i32,
            }),
            ..Default::default()
        };
        let mut actor = Actor::new(
            "u".into(),
            created_ms,
            request,
            Store::memory(),
            Arc::new(config),
            Metrics::new(),
        )
        .expect("a valid game");
        actor.share_rebuilds(Rebuilds::new());
        actor
    }

    /// A game created now, as the registry creates one: with its creator entry, holding one
    /// of `slots`. Returns the creator token too.
    fn created(config: Config, budget_ms: u64, slots: &Arc<GameSlots>) -> (Actor, Token) {
        let mut actor = new_game(config, budget_ms, now_ms());
        let creator = Token::generate();
        actor
            .created(&creator, false)
            .expect("the creation applies");
        actor.hold_slot(slots.try_take().expect("a free place"));
        (actor, creator)
    }

    /// A game the lobby made, as the registry creates one for it.
    fn created_for_lobby(slots: &Arc<GameSlots>) -> Actor {
        let mut actor = new_game(config(), 0, now_ms());
        actor
            .created(&Token::generate(), true)
            .expect("the creation applies");
        actor.hold_slot(slots.try_take().expect("a free place"));
        actor
    }

    /// Plays one action of the seat to act, with its token.
    async fn act(actor: &mut Actor, tokens: &[Token], n: usize) {
        let seat = actor.game.to_act().expect("a seat to act");
        let action = bot_action(actor, seat, &mut GreedyBot::new());
        actor
            .submit(
                &tokens[seat.index()],
                actor.seq(),
                format!("r{n}"),
                &action,
                false,
            )
            .await
            .expect("the action is applied");
    }

    /// Waits, as the actor's loop does, for its next deadline and acts on it.
    async fn run_to_deadline(actor: &mut Actor) {
        sleep_until(actor.next_deadline()).await;
        actor.deadline_passed().await;
    }

    fn last_event(actor: &Actor) -> Option<v1::game_event::Kind> {
        actor
            .log
            .last()
            .and_then(|e| e.to_wire(Viewer::Spectator).kind)
    }

    /// The result of a game that ended with no winner, as `end`.
    fn no_winner(actor: &Actor, end: v1::MatchEndKind) -> v1::MatchResult {
        let result = actor.result();
        assert!(result.finished);
        assert_eq!(result.end, end as i32);
        assert_eq!(result.winner_side, None);
        assert_eq!(result.forfeited_side, None);
        result
    }

    // A waiting game whose seats are not all taken expires an hour after its creation or its
    // last join or leave, whichever is later: a join or a leave gives it the hour again.
    // It ends FINISHED, EXPIRED, with MatchEnded last in its log; it gives its place among the
    // unfinished games back; it shows nothing of its deal, to its seat either.
    #[tokio::test(start_paused = true)]
    async fn a_waiting_game_expires_an_hour_after_its_last_join_or_leave() {
        let slots = GameSlots::new(1);
        let (mut actor, _) = created(config(), 0, &slots);
        let start = tokio::time::Instant::now();
        assert_eq!(
            actor.unplayed.deadline,
            Some((start + HOUR, EndCause::Expired))
        );
        assert_eq!(slots.held(), 1);
        tokio::time::advance(Duration::from_secs(3000)).await;
        let seat = join(&mut actor, 0).await;
        assert_eq!(
            actor.unplayed.deadline,
            Some((start + Duration::from_secs(3000) + HOUR, EndCause::Expired))
        );
        tokio::time::advance(Duration::from_secs(3000)).await;
        actor.leave(&seat).await.expect("the seat is left");
        let seat = join(&mut actor, 1).await;
        let last = tokio::time::Instant::now();
        assert_eq!(
            actor.unplayed.deadline,
            Some((last + HOUR, EndCause::Expired))
        );
        // The creation, each join and each leave carry their time, for a restart.
        let times: Vec<bool> = actor
            .stored_entries()
            .expect("the entries")
            .iter()
            .map(|e| e.at_ms > 0)
            .collect();
        assert_eq!(times, [true; 4]);
        assert_eq!(
            actor.stored_entries().expect("the entries")[0].at_ms,
            actor.created_ms
        );
        run_to_deadline(&mut actor).await;
        assert_eq!(last.elapsed(), HOUR);
        assert_eq!(actor.status, Status::Finished);
        let result = no_winner(&actor, v1::MatchEndKind::Expired);
        assert_eq!(
            last_event(&actor),
            Some(v1::game_event::Kind::MatchEnded(v1::MatchEnded {
                result: Some(result)
            }))
        );
        assert_eq!(slots.held(), 0, "the expired game holds no place");
        assert_eq!(actor.clock.deadline(), None);
        assert_eq!(actor.unplayed.deadline, None);
        // Its seat and spectators see it finished, with its result and without its deal.
        for token in [Some(&seat), None] {
            let view = actor
                .view(token, true)
                .expect("a view")
                .view
                .expect("a view");
            assert_eq!(view.status, v1::GameStatus::Finished as i32);
            assert_eq!(
                view.result.map(|r| r.end),
                Some(v1::MatchEndKind::Expired as i32)
            );
            assert_eq!(view.phase, v1::Phase::Unspecified as i32);
            assert!(view.pile.is_empty() && view.stock_count == 0);
            assert!(
                view.seats
                    .iter()
                    .all(|s| s.hand.is_empty() && s.hand_count == 0)
            );
        }
        // Nothing more happens to it; it is joined no more.
        tokio::time::advance(DAY).await;
        assert_eq!(actor.next_deadline(), None);
        let refused = actor.join(Some(0), "late".into()).await.expect_err("over");
        assert_eq!(refused.reason, Reason::GameFinished);
    }

    // A started game without a time control ends, abandoned with no winner, a day after the
    // last activity of any seat (the start, an action, a join, a leave); the actions of one
    // player keep it going. A game with a time control has no such deadline: its time-outs
    // end it (ABANDON_AFTER).
    #[tokio::test(start_paused = true)]
    async fn a_started_game_without_a_time_control_ends_a_day_after_its_last_activity() {
        let slots = GameSlots::new(2);
        let (mut actor, _) = created(config(), 0, &slots);
        let tokens = vec![join(&mut actor, 0).await, join(&mut actor, 1).await];
        assert_eq!(actor.status, Status::Playing);
        let started = tokio::time::Instant::now();
        assert_eq!(
            actor.unplayed.deadline,
            Some((started + DAY, EndCause::Idle))
        );
        for n in 0..5 {
            tokio::time::advance(DAY - Duration::from_secs(1)).await;
            act(&mut actor, &tokens, n).await;
            assert_eq!(actor.status, Status::Playing);
        }
        let last = tokio::time::Instant::now();
        assert_eq!(actor.unplayed.deadline, Some((last + DAY, EndCause::Idle)));
        let seq = actor.seq();
        run_to_deadline(&mut actor).await;
        assert_eq!(last.elapsed(), DAY);
        assert_eq!(actor.status, Status::Finished);
        let result = no_winner(&actor, v1::MatchEndKind::Abandoned);
        assert_eq!(actor.seq(), seq + 1, "MatchEnded alone");
        assert!(matches!(
            last_event(&actor),
            Some(v1::game_event::Kind::MatchEnded(_))
        ));
        assert_eq!(slots.held(), 0);
        // The exported record's actions replay to the deal in progress; its result says how
        // the match ended.
        let record = actor.export().expect("a finished game exports");
        assert_eq!(record.actions.len(), 5);
        assert_eq!(record.result, Some(result));

        // With a time control of a day a move, the game waits for its time-outs instead.
        let (mut timed, _) = created(config(), 86_400_000, &slots);
        join(&mut timed, 0).await;
        join(&mut timed, 1).await;
        assert_eq!(timed.unplayed.deadline, None);
        run_to_deadline(&mut timed).await;
        assert_eq!(timed.status, Status::Playing, "a time-out played a move");
        assert!(matches!(
            timed.log.iter().rev().find_map(|e| match &e.kind {
                LogKind::Server(k) => Some(k.clone()),
                LogKind::Engine(_) => None,
            }),
            Some(v1::game_event::Kind::TimedOut(_))
        ));
    }

    // A started game whose every seat is left ends, abandoned, ten minutes after the last
    // leave, with or without a time control (here a day a move, which would take days of
    // time-outs); a seat joined again stops the count, and the next leave of every seat
    // starts it again.
    #[tokio::test(start_paused = true)]
    async fn a_started_game_whose_seats_all_left_ends_ten_minutes_later() {
        for budget_ms in [0, 86_400_000] {
            let slots = GameSlots::new(1);
            let (mut actor, _) = created(config(), budget_ms, &slots);
            let a = join(&mut actor, 0).await;
            let b = join(&mut actor, 1).await;
            actor.leave(&a).await.expect("left");
            let idle = match budget_ms {
                0 => Some((tokio::time::Instant::now() + DAY, EndCause::Idle)),
                _ => None,
            };
            assert_eq!(actor.unplayed.deadline, idle, "a seat is held");
            actor.leave(&b).await.expect("left");
            let left = tokio::time::Instant::now();
            assert_eq!(
                actor.unplayed.deadline,
                Some((left + TEN_MINUTES, EndCause::Left))
            );
            tokio::time::advance(Duration::from_secs(500)).await;
            let c = join(&mut actor, 1).await;
            let idle = match budget_ms {
                0 => Some((tokio::time::Instant::now() + DAY, EndCause::Idle)),
                _ => None,
            };
            assert_eq!(actor.unplayed.deadline, idle, "budget {budget_ms}");
            tokio::time::advance(Duration::from_secs(500)).await;
            actor.leave(&c).await.expect("left");
            let left = tokio::time::Instant::now();
            assert_eq!(actor.status, Status::Playing);
            run_to_deadline(&mut actor).await;
            assert_eq!(left.elapsed(), TEN_MINUTES, "budget {budget_ms}");
            assert_eq!(actor.status, Status::Finished);
            no_winner(&actor, v1::MatchEndKind::Abandoned);
            assert_eq!(slots.held(), 0);
        }
    }

    // A policy of 0 never ends a game.
    #[tokio::test(start_paused = true)]
    async fn a_policy_of_zero_never_ends_a_game() {
        let config = config()
            .to_builder()
            .waiting_timeout(None)
            .idle_timeout(None)
            .left_timeout(None)
            .build()
            .unwrap();
        let slots = GameSlots::new(2);
        let (waiting, _) = created(config.clone(), 0, &slots);
        assert_eq!(waiting.next_deadline(), None);
        let (mut playing, _) = created(config, 0, &slots);
        let a = join(&mut playing, 0).await;
        let b = join(&mut playing, 1).await;
        assert_eq!(playing.next_deadline(), None);
        playing.leave(&a).await.expect("left");
        playing.leave(&b).await.expect("left");
        assert_eq!(playing.next_deadline(), None);
        assert_eq!(slots.held(), 2);
    }

    // The actor's own loop ends the game at its deadline, moved on by a join that came
    // meanwhile, and its watchers see the end; nothing else wakes it.
    #[tokio::test(start_paused = true)]
    async fn the_actors_loop_ends_the_game_and_tells_its_watchers() {
        let slots = GameSlots::new(1);
        let (actor, _) = created(config(), 0, &slots);
        let start = tokio::time::Instant::now();
        let handle = actor.spawn();
        let mut watching = handle
            .ask(|reply| Command::Subscribe {
                token: None,
                after_seq: 0,
                include_actions: false,
                include_view: false,
                reply,
            })
            .await
            .expect("a spectator watches");
        tokio::time::advance(Duration::from_secs(1000)).await;
        handle
            .ask(|reply| Command::Join {
                seat: Some(0),
                name: "Ann".into(),
                reply,
            })
            .await
            .expect("a seat");
        // The paused clock runs on to the next timer: the game's end.
        let mut events = Vec::new();
        loop {
            match watching.live.recv().await {
                Ok(Item::Event(e)) => {
                    let kind = e.to_wire(Viewer::Spectator).kind;
                    let ended = matches!(kind, Some(v1::game_event::Kind::MatchEnded(_)));
                    events.push(kind);
                    if ended {
                        break;
                    }
                }
                Ok(Item::Prompt(_)) => {}
                Err(e) => panic!("the feed: {e:?}"),
            }
        }
        assert_eq!(start.elapsed(), Duration::from_secs(1000) + HOUR);
        assert!(matches!(
            events[..],
            [
                Some(v1::game_event::Kind::SeatJoined(_)),
                Some(v1::game_event::Kind::MatchEnded(_))
            ]
        ));
        let summary = handle.summary();
        assert_eq!(summary.status, v1::GameStatus::Finished as i32);
        assert_eq!(
            summary.result.map(|r| r.end),
            Some(v1::MatchEndKind::Expired as i32)
        );
        assert_eq!(slots.held(), 0);
    }

    /// A game's entries, rebuilt with `at_ms` set: the creation at `t0`, a join at `t0 +
    /// join_after` (unstamped if `None`).
    fn stamped_log(t0: i64, join_after: Option<i64>) -> Vec<Entry> {
        let mut created = Entry::of(EntryKind::Created(CreatedEntry {
            creator_token: Token::generate().as_str().to_string(),
            for_lobby: false,
        }));
        created.at_ms = t0;
        let mut joined = Entry::of(EntryKind::Join(JoinEntry {
            seat: 0,
            name: "Ann".into(),
            token: Token::generate().as_str().to_string(),
        }));
        joined.at_ms = join_after.map_or(0, |d| t0 + d);
        vec![created, joined]
    }

    // A restart counts each policy from the game's last activity as its log tells it: a
    // waiting game whose last join was stored 10 minutes before the restart expires 50 minutes
    // after it, not an hour; one whose last activity is past the hour expires at once; an
    // activity stored without its time (within STAMP_EVERY of the last time stored) counts as
    // that much later, never earlier; a log written before the times were stored counts from
    // the restart; a game with no activity logged counts from its creation.
    #[tokio::test(start_paused = true)]
    async fn a_restart_arms_the_policies_from_the_times_in_the_log() {
        let t0: i64 = 1_700_000_000_000;
        let minute = 60_000;
        let restart = |entries: &[Entry], created_ms: i64, now_ms: i64| {
            let mut actor = new_game(config(), 0, created_ms);
            actor.replay_at(entries, now_ms).expect("the log replays");
            let now = tokio::time::Instant::now();
            let (at, cause) = actor.unplayed.deadline.expect("a deadline");
            assert_eq!(cause, EndCause::Expired);
            (at - now, actor)
        };
        let log = stamped_log(t0, Some(5 * minute));
        let (left, _) = restart(&log, t0, t0 + 15 * minute);
        assert_eq!(left, Duration::from_secs(50 * 60));
        // Past the hour: at once, and it ends as the policy says.
        let (left, mut overdue) = restart(&log, t0, t0 + 2 * 60 * minute);
        assert_eq!(left, Duration::ZERO);
        run_to_deadline(&mut overdue).await;
        no_winner(&overdue, v1::MatchEndKind::Expired);
        // The join stored without a time came within a minute of the creation's time.
        let log = stamped_log(t0, None);
        let (left, _) = restart(&log, t0, t0 + 10 * minute);
        assert_eq!(left, Duration::from_secs(51 * 60));
        // A clock set back: the whole hour from the restart.
        let (left, _) = restart(&log, t0, t0 - 10 * minute);
        assert_eq!(left, HOUR);
        // A log without times (an older server's): from the restart.
        let old: Vec<Entry> = stamped_log(t0, None)
            .into_iter()
            .filter(|e| matches!(e.kind, Some(EntryKind::Join(_))))
            .collect();
        let (left, _) = restart(&old, t0, t0 + 10 * 60 * minute);
        assert_eq!(left, HOUR);
        // No activity logged at all (an older server's game nobody joined): from its creation.
        let (left, _) = restart(&[], t0, t0 + 20 * minute);
        assert_eq!(left, Duration::from_secs(40 * 60));
    }

    // An entry of activity carries its time when it is the first, or a minute or more after
    // the last time stored; the last activity is known to within that minute, never earlier.
    #[test]
    fn activity_is_stamped_at_most_once_a_minute() {
        let t: i64 = 1_700_000_000_000;
        let mut stamps = Stamps::default();
        assert_eq!(
            stamps.last_activity_ms(5),
            Some(5),
            "no activity: the creation"
        );
        assert!(stamps.due(t));
        stamps.note(t);
        assert_eq!(stamps.last_activity_ms(5), Some(t));
        assert!(!stamps.due(t + 59_999));
        assert!(stamps.due(t + 60_000));
        assert!(stamps.due(t - 1), "a clock set back stamps again");
        stamps.note(0);
        assert_eq!(stamps.last_activity_ms(5), Some(t + 60_000));
        stamps.note(t + 70_000);
        assert_eq!(stamps.last_activity_ms(5), Some(t + 70_000));
        let mut old = Stamps::default();
        old.note(0);
        assert_eq!(old.last_activity_ms(5), None, "an older log does not tell");
    }

    // A game that ended is restored ended, with the same seqs and result, whatever the
    // policies of the restarted server (here none); a game restored before its end ends
    // as the game that was not restarted did, and logs the same.
    #[tokio::test(start_paused = true)]
    async fn an_end_survives_a_restart_and_replays_the_same() {
        let slots = GameSlots::new(4);
        let (mut expired, _) = created(config(), 0, &slots);
        join(&mut expired, 0).await;
        let (mut idle, _) = created(config(), 0, &slots);
        let tokens = vec![join(&mut idle, 0).await, join(&mut idle, 1).await];
        act(&mut idle, &tokens, 0).await;
        run_to_deadline(&mut expired).await;
        run_to_deadline(&mut idle).await;
        let never = config()
            .to_builder()
            .waiting_timeout(None)
            .idle_timeout(None)
            .build()
            .unwrap();
        for (played, end) in [
            (&mut expired, v1::MatchEndKind::Expired),
            (&mut idle, v1::MatchEndKind::Abandoned),
        ] {
            let result = no_winner(played, end);
            let entries = played.stored_entries().expect("the entries");
            assert!(matches!(
                entries.last().and_then(|e| e.kind.as_ref()),
                Some(EntryKind::End(_))
            ));
            let mut restored = new_game(never.clone(), 0, played.created_ms);
            restored.replay(&entries).expect("the log replays");
            assert_eq!(restored.status, Status::Finished);
            assert_eq!(restored.seq, played.seq);
            assert_eq!(restored.result(), result);
            assert_eq!(restored.next_deadline(), None);
            assert_eq!(restored.summary(), played.summary());
            played.compact();
            let rebuilt = played.replayed().expect("the game rebuilds");
            assert_eq!(rebuilt.result(), result);
            // Restored before its end, it ends the same.
            let mut pending = new_game(config(), 0, played.created_ms);
            pending
                .replay(&entries[..entries.len() - 1])
                .expect("the log replays");
            assert_ne!(pending.status, Status::Finished);
            run_to_deadline(&mut pending).await;
            assert_eq!(pending.entry_log, played.entry_log);
        }
        // An end of an unknown cause is a damaged log, not another game.
        let mut entries = expired.stored_entries().expect("the entries");
        if let Some(EntryKind::End(e)) = entries.last_mut().and_then(|e| e.kind.as_mut()) {
            e.cause = 99;
        }
        let mut restored = new_game(config(), 0, expired.created_ms);
        let damaged = restored.replay(&entries).expect_err("refused");
        assert_eq!(
            (damaged.code, damaged.reason),
            (Code::DataLoss, Reason::BadLog)
        );
    }

    // A game the lobby made says so in its log, and keeps saying so after a restart. Ended as
    // unrecorded (the lobby has no record of it), it is cancelled if it never started and
    // abandoned if it did, with no winner; it gives its place back, and a restart replays the
    // same end. One over already stays as it was.
    #[tokio::test(start_paused = true)]
    async fn a_lobby_game_the_lobby_never_recorded_ends_cancelled_or_abandoned() {
        let slots = GameSlots::new(3);
        let mut waiting = created_for_lobby(&slots);
        join(&mut waiting, 0).await;
        let mut started = created_for_lobby(&slots);
        let tokens = vec![join(&mut started, 0).await, join(&mut started, 1).await];
        act(&mut started, &tokens, 0).await;
        let (mut not_lobby, _) = created(config(), 0, &slots);
        assert!(!not_lobby.for_lobby);
        for (game, end) in [
            (&mut waiting, v1::MatchEndKind::Cancelled),
            (&mut started, v1::MatchEndKind::Abandoned),
        ] {
            assert!(game.for_lobby);
            let entries = game.stored_entries().expect("the entries");
            let mut restored = new_game(config(), 0, game.created_ms);
            restored.replay(&entries).expect("the log replays");
            assert!(restored.for_lobby, "the log says who made the game");
            game.end_unrecorded().await.expect("ended");
            let result = no_winner(game, end);
            assert_eq!(game.next_deadline(), None);
            assert!(matches!(
                last_event(game),
                Some(v1::game_event::Kind::MatchEnded(_))
            ));
            let entries = game.stored_entries().expect("the entries");
            let mut restored = new_game(config(), 0, game.created_ms);
            restored.replay(&entries).expect("the log replays");
            assert_eq!(restored.result(), result);
            assert_eq!(restored.seq, game.seq);
            // Asked again, it changes nothing.
            let seq = game.seq();
            game.end_unrecorded().await.expect("over already");
            assert_eq!(game.seq(), seq);
        }
        assert_eq!(slots.held(), 1, "only the game still played holds a place");
        run_to_deadline(&mut not_lobby).await;
        let result = no_winner(&not_lobby, v1::MatchEndKind::Expired);
        not_lobby.end_unrecorded().await.expect("over already");
        assert_eq!(not_lobby.result(), result);
    }

    // The creator token cancels a waiting game (CANCELLED), and a retry of the cancel is
    // answered the same; any other token is refused, and so is a cancel of a started or
    // finished game. A game restored from a log without a creator cannot be cancelled.
    #[tokio::test(start_paused = true)]
    async fn the_creator_cancels_a_waiting_game_only() {
        let slots = GameSlots::new(3);
        let (mut waiting, creator) = created(config(), 0, &slots);
        let seat = join(&mut waiting, 0).await;
        for wrong in [Token::generate(), seat.clone()] {
            let refused = waiting.cancel(&wrong).await.expect_err("not the creator");
            assert_eq!(refused.code, Code::PermissionDenied);
            assert_eq!(refused.reason, Reason::NotGameCreator);
        }
        assert_eq!(waiting.status, Status::Waiting);
        let seq = waiting.seq();
        let summary = waiting.cancel(&creator).await.expect("cancelled");
        assert_eq!(summary.status, v1::GameStatus::Finished as i32);
        assert_eq!(
            summary.result.as_ref().map(|r| r.end),
            Some(v1::MatchEndKind::Cancelled as i32)
        );
        assert_eq!(waiting.seq(), seq + 1);
        no_winner(&waiting, v1::MatchEndKind::Cancelled);
        assert_eq!(waiting.next_deadline(), None);
        assert_eq!(waiting.cancel(&creator).await, Ok(summary), "a retry");
        assert_eq!(waiting.seq(), seq + 1);

        let (mut started, creator) = created(config(), 0, &slots);
        join(&mut started, 0).await;
        join(&mut started, 1).await;
        let refused = started.cancel(&creator).await.expect_err("started");
        assert_eq!(refused.code, Code::FailedPrecondition);
        assert_eq!(refused.reason, Reason::GameStarted);
        assert!(
            refused.message.contains("can no longer be cancelled"),
            "{}",
            refused.message
        );
        assert_eq!(started.status, Status::Playing);
        run_to_deadline(&mut started).await;
        let refused = started.cancel(&creator).await.expect_err("finished");
        assert_eq!(refused.reason, Reason::GameFinished);
        assert_eq!(
            slots.held(),
            0,
            "the cancelled and the abandoned game hold no place"
        );

        let mut old = new_game(config(), 0, now_ms());
        old.replay(&[]).expect("an older game");
        let refused = old
            .cancel(&Token::generate())
            .await
            .expect_err("no creator");
        assert_eq!(refused.reason, Reason::NotGameCreator);
        assert!(
            refused
                .message
                .contains("before the server gave creator tokens")
        );
    }
}
