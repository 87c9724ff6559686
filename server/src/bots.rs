//! The server's own built-in bots: the seats a game is created with in
//! `CreateGameRequest.bots`, which the server plays itself.
//!
//! This module holds what is not one game's: the check of a request's bots against the
//! server's caps, the bot of a seat (its [`Brain`]) and its seed, and the [`BotPool`] that
//! bounds the CPU all games' bots take together. The game's actor (`actor/house.rs`) decides
//! when a bot seat thinks and submits its choice through the same path as a client's action.
//!
//! A bot sees only its seat's view (the engine's one redaction, `Game::view`), as any client
//! does, and thinks off the game's task, on tokio's blocking threads, at most
//! [`Config::bot_threads`] moves at once over all games. Its seed comes from the game's seed
//! and its seat ([`seat_seed`]), so that a game of bots with a fixed seed plays the same every
//! time.

use std::sync::Arc;
use std::time::Duration;

use canasta_engine::bot::search::{self, Budget, SearchBot};
use canasta_engine::bot::{self as engine_bot, Bot, GreedyBot, RandomBot, SafeBot};
use canasta_engine::quote::quoted;
use canasta_engine::rng::SplitMix64;
use canasta_engine::{Action, View};
use canasta_proto::Reason;
use canasta_proto::v1;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::config::Config;
use crate::errors::ApiError;

/// The longest bot name read: a longer one is no bot's (and is not echoed whole).
const LONGEST_NAME: usize = 64;

/// The least time a house bot leaves of its seat's time under a time control, for its move to
/// reach the game and be stored; it leaves a tenth of the time left if that is more
/// ([`search::usable_time`], less than a bot behind a network keeps: the move goes through no
/// network).
pub const TIME_MARGIN: Duration = Duration::from_millis(20);

/// The seed of the bot of `seat` in a game of seed `game_seed`: the same game and seat, the
/// same bot's choices.
pub fn seat_seed(game_seed: u64, seat: u32) -> u64 {
    SplitMix64::new(game_seed ^ u64::from(seat + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64()
}

/// The time a bot may think about a move: the server's cap, and under a time control at most
/// the seat's `time_left` less a margin (a tenth of it, at least [`TIME_MARGIN`]: the engine's
/// [`search::usable_time`]).
pub fn think_limit(max_think: Duration, time_left: Option<Duration>) -> Duration {
    match time_left {
        None => max_think,
        Some(left) => max_think.min(search::usable_time(left, TIME_MARGIN)),
    }
}

/// Checks the bots of a new game of `players` seats: each seat at most once and at the table,
/// each bot a built-in one within the server's caps. Nothing is made.
pub fn check(bots: &[v1::SeatBot], players: usize, config: &Config) -> Result<(), ApiError> {
    let mut named = vec![false; players];
    for (i, b) in bots.iter().enumerate() {
        let seat = b.seat as usize;
        if seat >= players {
            return Err(ApiError::invalid(
                Reason::InvalidSeat,
                &format!("bots[{i}].seat"),
                format!(
                    "seat {} does not exist: the seats of this game are 0 to {}",
                    b.seat,
                    players - 1
                ),
            ));
        }
        if std::mem::replace(&mut named[seat], true) {
            return Err(ApiError::invalid(
                Reason::DuplicateSeat,
                &format!("bots[{i}].seat"),
                format!(
                    "seat {} is named twice in bots: give each seat one bot at most",
                    b.seat
                ),
            ));
        }
        match Brain::parse(&b.bot, 0, config) {
            Err(why) => {
                return Err(ApiError::invalid(
                    Reason::UnknownBot,
                    &format!("bots[{i}].bot"),
                    why,
                ));
            }
            Ok((_, Some(why))) => {
                return Err(ApiError::invalid(
                    Reason::BotBudgetTooHigh,
                    &format!("bots[{i}].bot"),
                    why,
                ));
            }
            Ok((_, None)) => {}
        }
    }
    Ok(())
}

/// The bot that plays a seat: its name (as the game was created with it) and its state.
pub struct Brain {
    name: String,
    kind: Kind,
}

enum Kind {
    Greedy(GreedyBot),
    Safe(SafeBot),
    /// A random bot is made afresh for each decision, seeded from its seed and the game's seq:
    /// it plays the same after a restart.
    Random(u64),
    Search(SearchBot),
}

impl std::fmt::Debug for Brain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Brain").field("name", &self.name).finish()
    }
}

impl Brain {
    /// The bot `name` with `seed`, within the server's caps: a stored game's bot (checked
    /// when its game was created, perhaps under other caps) runs at the caps.
    pub fn restore(name: &str, seed: u64, config: &Config) -> Result<Brain, ApiError> {
        Brain::parse(name, seed, config)
            .map(|(brain, _)| brain)
            .map_err(|why| ApiError::bad_log(format!("a stored seat bot: {why}")))
    }

    /// The bot `name` with `seed`, brought within the server's caps, and why it had to be
    /// (none if it was within them); or why `name` is no built-in bot.
    fn parse(name: &str, seed: u64, config: &Config) -> Result<(Brain, Option<String>), String> {
        if name.chars().count() > LONGEST_NAME {
            return Err(format!(
                "{} is no bot's name: name one of {}",
                quoted(name),
                engine_bot::BOT_NAMES.join(", ")
            ));
        }
        engine_bot::check_name(name)?;
        let mut over = None;
        let kind = match name {
            "greedy" => Kind::Greedy(GreedyBot::new()),
            "safe" => Kind::Safe(SafeBot::new()),
            "random" => Kind::Random(seed),
            _ => {
                let bot = match SearchBot::parse(name, seed) {
                    Some(Ok(bot)) => bot,
                    // check_name took it: not reached.
                    _ => return Err(format!("{} is no bot's name", quoted(name))),
                };
                let cap_think = config.max_bot_think();
                let cap_iterations = config.max_bot_iterations();
                let budget = match bot.budget() {
                    Budget::Time(t) if t > cap_think => {
                        over = Some(format!(
                            "bot {}: {} ms a move is more than this server's bots may think, \
                             {} ms (--max-bot-think-ms): ask for less, e.g. search:{}ms",
                            quoted(name),
                            t.as_millis(),
                            cap_think.as_millis(),
                            cap_think.as_millis()
                        ));
                        Budget::Time(cap_think)
                    }
                    Budget::Iterations(n) if n > cap_iterations => {
                        over = Some(format!(
                            "bot {}: {n} iterations a move is more than this server's bots may \
                             search, {cap_iterations} (--max-bot-iterations): ask for fewer, \
                             e.g. search:{cap_iterations}",
                            quoted(name)
                        ));
                        Budget::Iterations(cap_iterations)
                    }
                    b => b,
                };
                if bot.threads() > 1 && over.is_none() {
                    over = Some(format!(
                        "bot {}: the server's bots think on one thread each (a move of another \
                         game takes the next core): leave out :t{}",
                        quoted(name),
                        bot.threads()
                    ));
                }
                Kind::Search(SearchBot::new(seed, budget))
            }
        };
        let brain = Brain {
            name: name.to_string(),
            kind,
        };
        Ok((brain, over))
    }

    /// The bot's name, as its game was created with it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The bot's choice for the seat `view` is of, if that seat is to act; `seq` is the game's
    /// last seq (the random bot's decisions are seeded with it) and `limit` the longest the
    /// bot may think.
    pub fn decide(&mut self, view: &View, seq: u64, limit: Duration) -> Option<Action> {
        let legal = view.legal()?;
        Some(match &mut self.kind {
            Kind::Greedy(b) => b.choose(view, &legal),
            Kind::Safe(b) => b.choose(view, &legal),
            Kind::Random(seed) => {
                RandomBot::new(SplitMix64::new(*seed ^ seq).next_u64()).choose(view, &legal)
            }
            Kind::Search(b) => {
                b.set_time_limit(Some(limit));
                b.choose(view, &legal)
            }
        })
    }

    /// The budget of a search bot, for the tests of the caps.
    #[cfg(test)]
    fn budget(&self) -> Option<Budget> {
        match &self.kind {
            Kind::Search(b) => Some(b.budget()),
            _ => None,
        }
    }
}

/// What bounds the CPU of all games' bots: at most [`Config::bot_threads`] moves think at
/// once, each at most [`Config::max_bot_think`].
#[derive(Debug)]
pub struct BotPool {
    permits: Arc<Semaphore>,
    max_think: Duration,
}

impl BotPool {
    /// The pool of the server of `config`.
    pub fn new(config: &Config) -> Arc<BotPool> {
        Arc::new(BotPool {
            permits: Arc::new(Semaphore::new(config.bot_threads())),
            max_think: config.max_bot_think(),
        })
    }

    /// Waits for a bot's turn to think; it thinks while the permit is held.
    pub async fn permit(&self) -> OwnedSemaphorePermit {
        self.permits
            .clone()
            .acquire_owned()
            .await
            .expect("the pool's semaphore is never closed")
    }

    /// The longest a bot may think now, with `time_left` under a time control.
    pub fn limit(&self, time_left: Option<Duration>) -> Duration {
        think_limit(self.max_think, time_left)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::builder()
            .max_bot_think(Duration::from_millis(200))
            .max_bot_iterations(4000)
            .build()
            .expect("a valid configuration")
    }

    fn seat(seat: u32, bot: &str) -> v1::SeatBot {
        v1::SeatBot {
            seat,
            bot: bot.into(),
        }
    }

    // Every field of a seat bot is checked, each with its reason and the entry at fault.
    #[test]
    fn the_bots_of_a_request_are_checked() {
        let config = config();
        let ok = [
            seat(1, "greedy"),
            seat(3, "search:50ms"),
            seat(0, "search:4000"),
        ];
        assert_eq!(check(&ok, 4, &config), Ok(()));
        assert_eq!(check(&[], 2, &config), Ok(()));
        for (bots, reason, field, says) in [
            (
                vec![seat(4, "greedy")],
                Reason::InvalidSeat,
                "bots[0].seat",
                "0 to 3",
            ),
            (
                vec![seat(1, "greedy"), seat(1, "random")],
                Reason::DuplicateSeat,
                "bots[1].seat",
                "named twice",
            ),
            (
                vec![seat(0, "clever")],
                Reason::UnknownBot,
                "bots[0].bot",
                "greedy, random, safe, search",
            ),
            (
                vec![seat(0, "")],
                Reason::UnknownBot,
                "bots[0].bot",
                "there is no bot",
            ),
            (
                vec![seat(0, "search:fast")],
                Reason::UnknownBot,
                "bots[0].bot",
                "is not a budget",
            ),
            (
                vec![seat(0, &"x".repeat(10_000))],
                Reason::UnknownBot,
                "bots[0].bot",
                "no bot's name",
            ),
            (
                vec![seat(2, "search:201ms")],
                Reason::BotBudgetTooHigh,
                "bots[0].bot",
                "200 ms",
            ),
            (
                vec![seat(2, "search:4001")],
                Reason::BotBudgetTooHigh,
                "bots[0].bot",
                "search:4000",
            ),
            (
                vec![seat(2, "search:50ms:t2")],
                Reason::BotBudgetTooHigh,
                "bots[0].bot",
                "one thread",
            ),
        ] {
            let e = check(&bots, 4, &config).expect_err(says);
            assert_eq!(e.reason, reason, "{says}: {e:?}");
            assert_eq!(e.field.as_deref(), Some(field), "{says}");
            assert!(e.message.contains(says), "{says}: {}", e.message);
            assert!(e.message.len() < 400, "{}", e.message.len());
        }
    }

    // A stored game's bots run within the caps of the server that restores it.
    #[test]
    fn a_restored_bot_runs_within_the_caps() {
        let config = config();
        let brain = Brain::restore("search:5s", 1, &config).expect("a bot");
        assert_eq!(brain.name(), "search:5s");
        assert_eq!(
            brain.budget(),
            Some(Budget::Time(Duration::from_millis(200)))
        );
        let brain = Brain::restore("search:9000", 1, &config).expect("a bot");
        assert_eq!(brain.budget(), Some(Budget::Iterations(4000)));
        let e = Brain::restore("clever", 1, &config).expect_err("no bot");
        assert_eq!(e.reason, Reason::BadLog);
    }

    // A bot thinks at most the server's cap, and under a time control never longer than its
    // time left less the margin: a tenth of it, at least 20 ms (a bot behind a network keeps
    // 50 ms, the engine's own default).
    #[test]
    fn the_think_limit_keeps_a_margin_of_the_time_left() {
        let ms = Duration::from_millis;
        assert_eq!(think_limit(ms(200), None), ms(200));
        assert_eq!(think_limit(ms(200), Some(ms(10_000))), ms(200));
        assert_eq!(think_limit(ms(200), Some(ms(200))), ms(180));
        assert_eq!(think_limit(ms(200), Some(ms(100))), ms(80));
        assert_eq!(think_limit(ms(200), Some(ms(50))), ms(30));
        assert_eq!(think_limit(ms(200), Some(ms(15))), ms(0));
        assert_eq!(think_limit(ms(200), Some(ms(0))), ms(0));
        // The server keeps less than a remote bot does: its move goes through no network.
        assert!(TIME_MARGIN < search::MIN_TIME_MARGIN);
        assert_eq!(
            search::usable_time(ms(100), search::MIN_TIME_MARGIN),
            ms(50)
        );
    }

    // Each seat of a game has its own stream, and the same game and seat the same.
    #[test]
    fn seat_seeds_differ_by_seat_and_repeat() {
        let seeds: Vec<u64> = (0..6).map(|s| seat_seed(7, s)).collect();
        for (i, a) in seeds.iter().enumerate() {
            assert!(seeds[i + 1..].iter().all(|b| b != a));
        }
        assert_eq!(seeds, (0..6).map(|s| seat_seed(7, s)).collect::<Vec<_>>());
        assert_ne!(seat_seed(8, 0), seeds[0]);
    }
}
