//! Bots: players that see what a seat may see (a [`View`]) and the legal choices, never the
//! referee's state, so a bot plays the same in-process and over the network.

mod greedy;
mod random;
mod safe;
pub mod search;

pub use greedy::GreedyBot;
pub use random::RandomBot;
pub use safe::SafeBot;
pub use search::SearchBot;

use crate::action::Action;
use crate::event::Event;
use crate::game::Game;
use crate::legal::{Choice, LegalChoices};
use crate::view::{View, Viewer};

/// A player program.
pub trait Bot: Send {
    /// The bot's name, as chosen on the command line.
    fn name(&self) -> &str;

    /// Chooses an action for the seat to act. `view` is that seat's view and `legal` its legal
    /// choices; the action returned must be legal. Choices with no legal action (never the
    /// referee's: only those of a view edited, or received from a server that is wrong) get
    /// [`NOTHING_LEGAL`] from the built-in bots, for the referee to refuse, not a panic.
    fn choose(&mut self, view: &View, legal: &LegalChoices<'_>) -> Action;

    /// Chooses like [`Bot::choose`], keeping the proof of the check where the bot checked its
    /// action with [`LegalChoices::checked`]. Given the referee's own choices
    /// ([`Game::legal`]), such a choice is applied by [`Game::apply_choice`] without a second
    /// check, which is what [`play`] does. The default has no proof: the referee checks.
    fn choose_checked(&mut self, view: &View, legal: &LegalChoices<'_>) -> Choice {
        Choice::from(self.choose(view, legal))
    }

    /// Tells the bot the time its seat has left for its next decisions under a time control
    /// (a prompt's `time_left_ms`), or `None` where there is none; it holds until it is set
    /// again. A bot whose decisions take time keeps them within it, less the margin of a bot
    /// behind a network ([`search::usable_time`] with [`search::MIN_TIME_MARGIN`]); the
    /// default, for bots that decide at once, ignores it. Whoever runs a bot under a time
    /// control and holds it as a `dyn Bot` (`canasta bot`) calls it before each decision; a
    /// host with a margin of its own (the server's house bots) sets the search bot's limit
    /// itself ([`SearchBot::set_time_limit`]), from [`search::usable_time`] with that margin.
    fn set_time_left(&mut self, time_left: Option<std::time::Duration>) {
        let _ = time_left;
    }
}

/// What the built-in bots play when their choices hold no legal action: the referee refuses
/// it, and so reports the broken view it came from.
pub const NOTHING_LEGAL: Action = Action::DrawStock;

/// The names of the built-in bots. `search` also takes a budget and threads after its name
/// (`search:50ms`, `search:2000:t2`: see [`SearchBot::parse`]).
pub const BOT_NAMES: &[&str] = &["greedy", "random", "safe", "search"];

/// A built-in bot by name (with its settings, for `search`), seeded for reproducible play.
/// `None` for a name that is not a built-in bot's or settings that are refused
/// ([`check_name`] says why).
pub fn by_name(name: &str, seed: u64) -> Option<Box<dyn Bot>> {
    match name {
        "greedy" => Some(Box::new(GreedyBot::new())),
        "random" => Some(Box::new(RandomBot::new(seed))),
        "safe" => Some(Box::new(SafeBot::new())),
        _ => match SearchBot::parse(name, seed)? {
            Ok(bot) => Some(Box::new(bot)),
            Err(_) => None,
        },
    }
}

/// `Ok` if [`by_name`] makes a bot of this name; otherwise what is wrong with it, for a
/// person to read.
pub fn check_name(name: &str) -> Result<(), String> {
    if BOT_NAMES.contains(&name) {
        return Ok(());
    }
    match SearchBot::parse(name, 0) {
        Some(Ok(_)) => Ok(()),
        Some(Err(e)) => Err(e),
        None => Err(format!(
            "there is no bot {name:?}: name a bot from {} (search takes a budget, e.g. \
             search:50ms or search:400, and threads, e.g. search:50ms:t2)",
            BOT_NAMES.join(", ")
        )),
    }
}

/// Why [`play`] stopped before the match ended.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlayError {
    /// A bot chose an illegal action.
    Illegal {
        /// The bot's name.
        bot: String,
        /// The action.
        action: Box<Action>,
        /// Why it is illegal.
        error: crate::RuleError,
    },
    /// The number of deals given was played without a winner.
    DealLimit {
        /// The actions applied until then.
        actions: u64,
    },
}

impl std::fmt::Display for PlayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlayError::Illegal { bot, action, error } => {
                write!(f, "bot {bot} chose an illegal action ({action}): {error}")
            }
            PlayError::DealLimit { actions } => write!(
                f,
                "the deal limit was reached before the match ended ({actions} actions)"
            ),
        }
    }
}

impl std::error::Error for PlayError {}

/// Plays `game` with one bot per seat until the match ends or `max_deals` deals are finished.
/// Calls `on_event` with every event (as the referee sees it). Returns the number of actions.
pub fn play(
    game: &mut Game,
    bots: &mut [Box<dyn Bot>],
    max_deals: u32,
    mut on_event: impl FnMut(&Event),
) -> Result<u64, PlayError> {
    let mut events = Vec::new();
    let mut buffer = game.view_buffer(Viewer::Spectator);
    let mut actions = 0;
    while let Some(seat) = game.to_act() {
        if game.history().len() as u32 >= max_deals {
            return Err(PlayError::DealLimit { actions });
        }
        let view = game.view_into(Viewer::Seat(seat), &mut buffer);
        let bot = &mut bots[seat.index()];
        // The referee's own choices: what a bot checks on them need not be checked again.
        let legal = game.legal().expect("a game with a seat to act has choices");
        let choice = bot.choose_checked(view, &legal);
        events.clear();
        if let Err(error) = game.apply_choice(seat, &choice, &mut events) {
            return Err(PlayError::Illegal {
                bot: bot.name().to_string(),
                action: Box::new(choice.into_action()),
                error,
            });
        }
        actions += 1;
        events.iter().for_each(&mut on_event);
    }
    Ok(actions)
}
