//! `canasta._engine`: the Canasta engine (`canasta_engine`) as a Python extension module.
//!
//! The Python package `canasta` (python/canasta) re-exports what is here and adds the
//! environments. Everything the rules decide is the engine's: this crate converts values
//! between Rust and Python, keeps the encodings of [`encoding`], and raises the engine's
//! refusals as the exceptions of `canasta.errors` with the engine's stable codes.

mod encoding;
mod objects;
mod wire;

use std::collections::BTreeMap;

use std::sync::Mutex;

use canasta_engine::bot;
use canasta_engine::notation::{card_ascii, parse_action, to_notation};
use canasta_engine::rng::Xoshiro256;
use canasta_engine::{
    Action, Card, Game as EngineGame, Phase, Preset, RuleError, RuleSpec, Seat, Setup, SetupError,
    ViewBuffer, Viewer, parse_cards,
};
use numpy::{PyArray1, PyArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use encoding::{Layout, Listing};
use objects::{DealScore, View};

/// Mixed into the game's seed for the generator of `random_id`, so that its choices are not
/// drawn from the very numbers that shuffled the deck.
const RANDOM_ID_SALT: u64 = 0x5eed_0fc0_ffee;

/// The format name of the game records of `canasta export` and `canasta replay`.
const RECORD_FORMAT: &str = "canasta-record/1";

/// Builds an exception of `canasta.errors` by name.
fn error<'py>(py: Python<'py>, class: &str, args: impl pyo3::call::PyCallArgs<'py>) -> PyErr {
    match py
        .import("canasta.errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.call1(args))
    {
        Ok(value) => PyErr::from_value(value),
        Err(e) => e,
    }
}

fn rule_error(py: Python<'_>, e: &RuleError) -> PyErr {
    error(py, "IllegalAction", (e.code(), e.to_string()))
}

fn setup_error(py: Python<'_>, e: &SetupError) -> PyErr {
    error(py, "SetupRefused", (e.code(), e.to_string()))
}

fn notation_error(py: Python<'_>, message: String) -> PyErr {
    error(py, "NotationError", (message,))
}

/// A card from its text (`KS`, `10H`, `K♠`, `Jk`).
fn card_from(py: Python<'_>, text: &str) -> PyResult<Card> {
    text.parse::<Card>()
        .map_err(|e| notation_error(py, e.to_string()))
}

/// A seat number from Python: a number no table could have is a `ValueError` (one that this
/// table lacks is the engine's `NO_SUCH_SEAT`).
fn seat_from(seat: i64) -> PyResult<Seat> {
    u8::try_from(seat).map(Seat).map_err(|_| {
        PyValueError::new_err(format!(
            "{seat} is not a seat number: seats are numbered from 0 to the players less one"
        ))
    })
}

/// An action of the game (immutable, hashable). Built from the engine's notation,
/// `Action("take KS KH")`, or by the class methods; `str()` gives the notation back and
/// `describe()` a sentence.
#[pyclass(module = "canasta._engine", name = "Action", frozen, eq, hash)]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PyAction {
    pub(crate) action: Action,
}

impl PyAction {
    fn from_any(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Action> {
        if let Ok(a) = value.cast::<PyAction>() {
            return Ok(a.get().action.clone());
        }
        if let Ok(s) = value.cast::<PyString>() {
            return parse_action(&s.to_cow()?).map_err(|e| notation_error(py, e.to_string()));
        }
        Err(PyTypeError::new_err(format!(
            "an action is an Action or its notation (\"draw\", \"discard 9C\"), not {}",
            value.get_type().name()?
        )))
    }
}

#[pymethods]
impl PyAction {
    /// Reads an action in the engine's notation: `draw`, `take KS KH`, `take 2:`,
    /// `meld KS KH KD`, `meld 0: KS; 1: QS`, `discard 9C`, `out 0: KS / 9C`, `ask`, `yes`,
    /// `no`, `decline`.
    #[new]
    fn new(py: Python<'_>, notation: &str) -> PyResult<Self> {
        parse_action(notation)
            .map(|action| PyAction { action })
            .map_err(|e| notation_error(py, e.to_string()))
    }

    /// Draw from the stock.
    #[staticmethod]
    fn draw() -> Self {
        PyAction {
            action: Action::DrawStock,
        }
    }

    /// Discard a card (`"9C"`).
    #[staticmethod]
    fn discard(py: Python<'_>, card: &str) -> PyResult<Self> {
        Ok(PyAction {
            action: Action::Discard {
                card: card_from(py, card)?,
            },
        })
    }

    /// The kind: `draw`, `take`, `meld`, `discard`, `out`, `ask`, `answer`, `decline`.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.action {
            Action::DrawStock => "draw",
            Action::TakePile { .. } => "take",
            Action::Meld { .. } => "meld",
            Action::Discard { .. } => "discard",
            Action::GoOut { .. } => "out",
            Action::AskPartner => "ask",
            Action::AnswerPartner { .. } => "answer",
            Action::DeclinePile => "decline",
        }
    }

    /// The card discarded (a discard, or a going out that ends with one), else None.
    #[getter]
    fn discarded(&self) -> Option<String> {
        match &self.action {
            Action::Discard { card } => Some(card_ascii(*card)),
            Action::GoOut { discard, .. } => discard.map(card_ascii),
            _ => None,
        }
    }

    /// Every card the action takes from the hand, melded or discarded.
    #[getter]
    fn cards(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut add = |c: &canasta_engine::CardCounts| out.extend(c.iter().map(card_ascii));
        match &self.action {
            Action::TakePile { top, melds } => {
                add(&top.cards);
                melds.iter().for_each(|m| add(&m.cards));
            }
            Action::Meld { melds } | Action::GoOut { melds, .. } => {
                melds.iter().for_each(|m| add(&m.cards))
            }
            _ => {}
        }
        if let Some(d) = self.discarded() {
            out.push(d);
        }
        out
    }

    /// The melds laid: a list of (meld number or None for a new meld, cards). For a take,
    /// the top card's meld comes first, its cards without the top card.
    #[getter]
    fn melds(&self) -> Vec<(Option<u8>, Vec<String>)> {
        use canasta_engine::MeldTarget;
        let target = |t: MeldTarget| match t {
            MeldTarget::New => None,
            MeldTarget::Existing(m) => Some(m),
        };
        let spec = |m: &canasta_engine::MeldSpec| {
            (target(m.target), m.cards.iter().map(card_ascii).collect())
        };
        match &self.action {
            Action::TakePile { top, melds } => {
                let mut out = vec![(
                    target(top.target),
                    top.cards.iter().map(card_ascii).collect(),
                )];
                out.extend(melds.iter().map(spec));
                out
            }
            Action::Meld { melds } | Action::GoOut { melds, .. } => {
                melds.iter().map(spec).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The answer of an `answer` action, else None.
    #[getter]
    fn yes(&self) -> Option<bool> {
        match self.action {
            Action::AnswerPartner { yes } => Some(yes),
            _ => None,
        }
    }

    /// The action in words ("take the pile with K♥ K♠").
    fn describe(&self) -> String {
        self.action.to_string()
    }

    /// Its id in the fixed action encoding, if it has a fixed one (option slots depend on
    /// the position: see `Game.id_of`).
    #[getter]
    fn fixed_id(&self) -> Option<u32> {
        encoding::fixed_id(&self.action)
    }

    fn __str__(&self) -> String {
        to_notation(&self.action)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let text = PyString::new(py, &to_notation(&self.action));
        Ok(format!("Action({})", text.repr()?.to_cow()?))
    }
}

/// A built-in bot: `Bot("greedy")`, `Bot("random", seed=7)`, `Bot("safe")`,
/// `Bot("search:400", seed=7)` (the search bot with its budget: `search:50ms`, threads
/// `search:400:t2`). It sees what its seat may see, as over the network.
#[pyclass(module = "canasta._engine", name = "Bot")]
pub struct PyBot {
    // A bot is `Send`, not `Sync`: Python objects may be shared between threads.
    bot: Mutex<Box<dyn bot::Bot>>,
    name: String,
}

#[pymethods]
impl PyBot {
    #[new]
    #[pyo3(signature = (name, seed = 0))]
    fn new(name: &str, seed: u64) -> PyResult<Self> {
        bot::by_name(name, seed)
            .map(|bot| PyBot {
                bot: Mutex::new(bot),
                name: name.to_string(),
            })
            .ok_or_else(|| {
                // A search bot's name says what is wrong with its budget or threads.
                PyValueError::new_err(match bot::SearchBot::parse(name, seed) {
                    Some(Err(why)) => why,
                    _ => format!(
                        "there is no bot {name:?}: the built-in bots are {} (search with a \
                         budget: search:400, search:50ms, search:400:t2)",
                        bot::BOT_NAMES.join(", ")
                    ),
                })
            })
    }

    /// The bot's name.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The action the bot chooses for the seat to act in `game` (None once the match is over).
    fn choose(&mut self, game: &Game) -> Option<PyAction> {
        let seat = game.game.to_act()?;
        let view = game.game.view(Viewer::Seat(seat));
        let legal = game.game.legal()?;
        let bot = self.bot.get_mut().unwrap_or_else(|e| e.into_inner());
        Some(PyAction {
            action: bot.choose(&view, &legal),
        })
    }

    /// Chooses for the seat to act and plays it. Returns the action played, or None if the
    /// match is over.
    fn play(&mut self, py: Python<'_>, game: &mut Game) -> PyResult<Option<PyAction>> {
        let Some(action) = self.choose(game) else {
            return Ok(None);
        };
        let seat = game.game.to_act().expect("a seat to act");
        game.apply_engine(py, seat, &action.action)?;
        Ok(Some(action))
    }

    /// The bot as a `choose(view, legal) -> action` function, for the network client
    /// (`canasta.client`) as for any loop: it chooses for `view`'s seat, which must be the seat
    /// to act, from what that view shows. The legal actions are the engine's, read from the view
    /// (`legal`, the list a `choose` function receives, is accepted and not needed).
    #[pyo3(signature = (view, legal = None))]
    fn __call__(
        &mut self,
        py: Python<'_>,
        view: &View,
        legal: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyAction> {
        let _ = legal;
        let Some(choices) = view.engine.legal() else {
            return Err(not_to_act(py, view));
        };
        let bot = self.bot.get_mut().unwrap_or_else(|e| e.into_inner());
        Ok(PyAction {
            action: bot.choose(&view.engine, &choices),
        })
    }

    fn __repr__(&self) -> String {
        format!("Bot({:?})", self.name)
    }
}

/// A game of Canasta: the referee's whole state, the engine in-process.
///
/// Besides the engine's API (legal actions, apply, views, scores, replay), it keeps the fixed
/// encodings of the environments: `action_mask`, `legal_ids`, `step(id)`, `observe(seat)`.
#[pyclass(module = "canasta._engine", name = "Game")]
pub struct Game {
    game: EngineGame,
    setup: Setup,
    /// Every action applied, for the record.
    actions: Vec<(Seat, Action)>,
    /// The listing of the current position, once asked for.
    listing: Listing,
    listed: bool,
    layout: Layout,
    views: ViewBuffer,
    rng: Xoshiro256,
    events: Vec<canasta_engine::Event>,
}

impl Game {
    fn from_setup(py: Python<'_>, setup: Setup) -> PyResult<Game> {
        Game::try_from_setup(setup).map_err(|e| setup_error(py, &e))
    }

    fn try_from_setup(setup: Setup) -> Result<Game, SetupError> {
        let game = EngineGame::new(&setup)?;
        let layout = Layout::new(
            game.table().players() as usize,
            game.table().sides() as usize,
        );
        let views = game.view_buffer(Viewer::Spectator);
        Ok(Game {
            rng: Xoshiro256::seed_from_u64(setup.seed ^ RANDOM_ID_SALT),
            game,
            setup,
            actions: Vec::new(),
            listing: Listing::default(),
            listed: false,
            layout,
            views,
            events: Vec::new(),
        })
    }

    /// The game of `setup` after `actions`, replayed as `canasta_engine::Game::replay` does,
    /// action by action, into the game kept here (so that its record continues). A refusal is
    /// `ReplayRefused` (with the index of the refused action).
    fn replay_setup(py: Python<'_>, setup: Setup, actions: &[(Seat, Action)]) -> PyResult<Game> {
        let mut game = Game::try_from_setup(setup).map_err(|e| {
            let message = format!("the record's setup is refused: {e}");
            error(py, "ReplayRefused", (e.code(), message))
        })?;
        for (index, (seat, action)) in actions.iter().enumerate() {
            game.events.clear();
            if let Err(e) = game.game.apply_into(*seat, action, &mut game.events) {
                let message = format!("action {index} of the record is refused: {e}");
                return Err(error(py, "ReplayRefused", (e.code(), message, index)));
            }
            game.actions.push((*seat, action.clone()));
        }
        Ok(game)
    }

    fn apply_engine(&mut self, py: Python<'_>, seat: Seat, action: &Action) -> PyResult<()> {
        self.events.clear();
        self.game
            .apply_into(seat, action, &mut self.events)
            .map_err(|e| rule_error(py, &e))?;
        self.actions.push((seat, action.clone()));
        self.listed = false;
        Ok(())
    }

    fn listing(&mut self) -> &Listing {
        if !self.listed {
            let melds = encoding::melds_of_actor(&self.game);
            match self.game.legal() {
                Some(legal) => self.listing.fill(&legal, melds),
                None => self.listing = Listing::default(),
            }
            self.listed = true;
        }
        &self.listing
    }

    /// A seat of this table, else the engine's `NO_SUCH_SEAT`.
    fn table_seat(&self, py: Python<'_>, seat: i64) -> PyResult<Seat> {
        let seat = seat_from(seat)?;
        if seat.0 >= self.game.table().players() {
            return Err(rule_error(py, &RuleError::NoSuchSeat { seat }));
        }
        Ok(seat)
    }

    fn seat_or_to_act(&self, py: Python<'_>, seat: Option<i64>) -> PyResult<Seat> {
        match seat {
            Some(s) => seat_from(s),
            None => self
                .game
                .to_act()
                .ok_or_else(|| rule_error(py, &RuleError::MatchOver)),
        }
    }
}

/// A view in which nobody may choose: not a seat's, or its seat is not the one to act.
fn not_to_act(py: Python<'_>, view: &View) -> PyErr {
    match (view.seat, view.to_act) {
        (Some(_), Some(to_act)) => rule_error(
            py,
            &RuleError::NotYourTurn {
                to_act: Seat(to_act),
            },
        ),
        (Some(_), None) => rule_error(py, &RuleError::MatchOver),
        (None, _) => PyValueError::new_err(
            "a spectator's or the referee's view has no legal actions: choose in the view of \
             the seat to act (game.view(game.to_act))",
        ),
    }
}

fn phase_name(phase: Phase) -> &'static str {
    match phase {
        Phase::Draw => "draw",
        Phase::Play => "play",
        Phase::Answer => "answer",
        _ => "over",
    }
}

/// Reads a deck: a string of cards or a list of card strings.
fn deck_from(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<Vec<Card>> {
    if let Ok(s) = value.cast::<PyString>() {
        return parse_cards(&s.to_cow()?).map_err(|e| notation_error(py, e.to_string()));
    }
    let cards: Vec<String> = value.extract()?;
    cards.iter().map(|c| card_from(py, c)).collect()
}

fn spec_from(
    py: Python<'_>,
    preset: &str,
    players: u8,
    options: Option<BTreeMap<String, String>>,
) -> PyResult<RuleSpec> {
    let preset: Preset = preset
        .parse()
        .map_err(|e| setup_error(py, &SetupError::Rules(e)))?;
    let mut spec = RuleSpec::new(preset, players);
    for (k, v) in options.unwrap_or_default() {
        spec.options
            .set(&k, &v)
            .map_err(|e| setup_error(py, &SetupError::Rules(e)))?;
    }
    Ok(spec)
}

#[pymethods]
impl Game {
    /// A new game, dealt: `Game("official", 4, seed=42)`. `options` overrides the preset's
    /// options by name (values as text or numbers: `{"canastas_to_go_out": 2}`); `card_orders`
    /// gives prearranged decks, one per deal, each the whole pack top first (a string
    /// `"KS KH ..."` or a list of cards); `first_dealer` a seat; `start_scores` one per side.
    #[new]
    #[pyo3(signature = (preset = "official", players = 4, *, seed = 0, options = None, card_orders = None, first_dealer = None, start_scores = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        preset: &str,
        players: u8,
        seed: u64,
        options: Option<Bound<'_, PyDict>>,
        card_orders: Option<Vec<Bound<'_, PyAny>>>,
        first_dealer: Option<i64>,
        start_scores: Option<Vec<i32>>,
    ) -> PyResult<Game> {
        let options = match options {
            None => None,
            Some(d) => {
                let mut out = BTreeMap::new();
                for (k, v) in d.iter() {
                    let value = match v.extract::<bool>() {
                        Ok(b) => b.to_string(),
                        Err(_) => v.str()?.to_cow()?.into_owned(),
                    };
                    out.insert(k.str()?.to_cow()?.into_owned(), value);
                }
                Some(out)
            }
        };
        let spec = spec_from(py, preset, players, options)?;
        let card_orders = card_orders
            .unwrap_or_default()
            .iter()
            .map(|d| deck_from(py, d))
            .collect::<PyResult<Vec<_>>>()?;
        let first_dealer = first_dealer.map(seat_from).transpose()?;
        let setup = Setup {
            rules: spec,
            seed,
            card_orders,
            first_dealer,
            start_scores: start_scores.unwrap_or_default(),
        };
        Game::from_setup(py, setup)
    }

    /// Replays a game record (the format of `canasta export`: a dict, or its JSON text) and
    /// returns the game as it stands after the record's actions. Raises `ReplayRefused` with
    /// the engine's code and the index of the first refused action.
    #[staticmethod]
    fn replay(py: Python<'_>, record: &Bound<'_, PyAny>) -> PyResult<Game> {
        let record = if record.is_instance_of::<PyString>() {
            py.import("json")?.call_method1("loads", (record,))?
        } else {
            record.clone()
        };
        let record = record.cast::<PyDict>().map_err(|_| {
            PyTypeError::new_err("a record is a dict or its JSON text (canasta export)")
        })?;
        let get = |key: &str| record.get_item(key);
        let format: String = match get("format")? {
            Some(f) => f.extract()?,
            None => String::new(),
        };
        if format != RECORD_FORMAT {
            return Err(PyValueError::new_err(format!(
                "this record's format is {format:?}, not {RECORD_FORMAT:?}"
            )));
        }
        let rules =
            get("rules")?.ok_or_else(|| PyValueError::new_err("the record has no rules"))?;
        let rule = |key: &str| {
            rules
                .get_item(key)
                .map_err(|_| PyValueError::new_err(format!("the record's rules have no {key}")))
        };
        let preset: String = rule("preset")?.extract()?;
        let players: u8 = rule("players")?.extract()?;
        let options: Option<BTreeMap<String, String>> =
            match rules.cast::<PyDict>()?.get_item("options")? {
                Some(o) => Some(o.extract()?),
                None => None,
            };
        let spec =
            spec_from(py, &preset, players, options).map_err(|e| replay_setup_error(py, e))?;
        let seed: u64 = get("seed")?.map(|s| s.extract()).transpose()?.unwrap_or(0);
        let card_orders = match get("card_orders")? {
            Some(o) => o
                .extract::<Vec<Bound<'_, PyAny>>>()?
                .iter()
                .map(|d| deck_from(py, d))
                .collect::<PyResult<Vec<_>>>()?,
            None => Vec::new(),
        };
        let first_dealer: Option<u8> = match get("first_dealer")? {
            Some(v) => v.extract()?,
            None => None,
        };
        let start_scores: Vec<i32> = match get("start_scores")? {
            Some(v) => v.extract()?,
            None => Vec::new(),
        };
        // Pairs of a seat and the action's notation: lists in JSON, tuples from `record()`.
        let actions: Vec<(u8, String)> = match get("actions")? {
            Some(v) => v
                .try_iter()?
                .map(|pair| {
                    let pair = pair?;
                    Ok((pair.get_item(0)?.extract()?, pair.get_item(1)?.extract()?))
                })
                .collect::<PyResult<_>>()?,
            None => Vec::new(),
        };
        let actions = actions
            .iter()
            .enumerate()
            .map(|(i, (seat, text))| {
                parse_action(text)
                    .map(|a| (Seat(*seat), a))
                    .map_err(|e| notation_error(py, format!("action {i} ({text:?}): {e}")))
            })
            .collect::<PyResult<Vec<_>>>()?;
        let setup = Setup {
            rules: spec,
            seed,
            card_orders,
            first_dealer: first_dealer.map(Seat),
            start_scores,
        };
        Game::replay_setup(py, setup, &actions)
    }

    /// The record of the game so far, in the format of `canasta export` (a dict; `json.dumps`
    /// writes the file `canasta replay` reads).
    fn record<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("format", RECORD_FORMAT)?;
        let rules = PyDict::new(py);
        rules.set_item("preset", self.setup.rules.preset.name())?;
        rules.set_item("players", self.setup.rules.players)?;
        let options = PyDict::new(py);
        for (k, v) in self.setup.rules.options.entries() {
            options.set_item(k, v)?;
        }
        rules.set_item("options", options)?;
        d.set_item("rules", rules)?;
        d.set_item("seed", self.setup.seed)?;
        let orders: Vec<String> = self
            .setup
            .card_orders
            .iter()
            .map(|o| {
                o.iter()
                    .map(|c| card_ascii(*c))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        d.set_item("card_orders", orders)?;
        d.set_item("first_dealer", self.setup.first_dealer.map(|s| s.0))?;
        d.set_item("start_scores", self.setup.start_scores.clone())?;
        let actions = PyList::empty(py);
        for (seat, a) in &self.actions {
            actions.append((seat.0, to_notation(a)))?;
        }
        d.set_item("actions", actions)?;
        if self.game.winner().is_some() {
            d.set_item("totals", self.game.scores().to_vec())?;
            d.set_item("winner_side", self.game.winner().map(|s| s.0))?;
        }
        Ok(d)
    }

    /// A copy of the game, to explore from (the record and the encodings' state come along).
    fn clone(&self, py: Python<'_>) -> PyResult<Game> {
        let mut g = Game::from_setup(py, self.setup.clone())?;
        g.game = self.game.clone();
        g.actions = self.actions.clone();
        g.rng = self.rng.clone();
        Ok(g)
    }

    fn __copy__(&self, py: Python<'_>) -> PyResult<Game> {
        self.clone(py)
    }

    /// The preset's name.
    #[getter]
    fn preset(&self) -> &'static str {
        self.game.rules().preset.name()
    }

    /// Number of seats.
    #[getter]
    fn players(&self) -> u8 {
        self.game.table().players()
    }

    /// Number of sides.
    #[getter]
    fn sides(&self) -> u8 {
        self.game.table().sides()
    }

    /// The side of a seat.
    fn side_of(&self, py: Python<'_>, seat: i64) -> PyResult<u8> {
        let seat = self.table_seat(py, seat)?;
        Ok(self.game.table().side_of(seat).0)
    }

    /// The seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.game.seed()
    }

    /// The seat that must act, None once the match is over.
    #[getter]
    fn to_act(&self) -> Option<u8> {
        self.game.to_act().map(|s| s.0)
    }

    /// What the game waits for: `draw`, `play`, `answer` or `over`.
    #[getter]
    fn phase(&self) -> &'static str {
        phase_name(self.game.phase())
    }

    /// True once the match is over.
    #[getter]
    fn over(&self) -> bool {
        self.game.to_act().is_none()
    }

    /// The current deal, from 0.
    #[getter]
    fn deal(&self) -> u32 {
        self.game.deal_number()
    }

    /// Deals finished.
    #[getter]
    fn deals_played(&self) -> usize {
        self.game.history().len()
    }

    /// Cumulative scores by side, after the finished deals.
    #[getter]
    fn scores(&self) -> Vec<i32> {
        self.game.scores().to_vec()
    }

    /// The winning side once the match is over.
    #[getter]
    fn winner(&self) -> Option<u8> {
        self.game.winner().map(|s| s.0)
    }

    /// The itemised score of every finished deal.
    #[getter]
    fn history(&self) -> Vec<DealScore> {
        self.game.history().iter().map(DealScore::from).collect()
    }

    /// The current deal scored as if `seat` went out now (or, with `went_out=False`, as if the
    /// stock ran out on `seat`'s move): a running score. The game does not change.
    #[pyo3(signature = (seat, went_out = true))]
    fn score_as_if(&self, py: Python<'_>, seat: i64, went_out: bool) -> PyResult<DealScore> {
        use canasta_engine::DealEnd;
        let seat = seat_from(seat)?;
        let end = if went_out {
            DealEnd::WentOut {
                seat,
                concealed: false,
            }
        } else {
            DealEnd::StockExhausted { seat }
        };
        self.game
            .score_as_if(end)
            .map(|d| DealScore::from(&d))
            .map_err(|e| rule_error(py, &e))
    }

    /// A hash of the whole state, stable across runs, machines and versions: a replay
    /// reproduces it, in Python as in Rust.
    fn state_hash(&self) -> u64 {
        self.game.state_hash()
    }

    /// The game as a seat sees it (its own hand and everything public); `seat=None` for a
    /// spectator, `referee=True` for everything (the stock's order included).
    #[pyo3(signature = (seat = None, *, referee = false))]
    fn view(&self, py: Python<'_>, seat: Option<i64>, referee: bool) -> PyResult<View> {
        let viewer = match (seat, referee) {
            (_, true) => Viewer::Referee,
            (None, false) => Viewer::Spectator,
            (Some(s), false) => Viewer::Seat(self.table_seat(py, s)?),
        };
        Ok(View::from(self.game.view(viewer)))
    }

    /// The legal actions of the seat to act, in the engine's canonical form (every legal
    /// turn is a sequence of them); empty once the match is over. The list is bounded: for a
    /// huge hand before its side's initial meld it may be cut (see `legal_complete`).
    fn legal_actions(&mut self) -> Vec<PyAction> {
        self.listing()
            .actions
            .iter()
            .map(|a| PyAction { action: a.clone() })
            .collect()
    }

    /// False when the last listing was cut short by the engine's bound on its search.
    #[getter]
    fn legal_complete(&mut self) -> bool {
        self.listing().complete
    }

    /// Checks an action of `seat` (default: the seat to act) without applying it; raises
    /// `IllegalAction` with the engine's code if it is refused.
    #[pyo3(signature = (action, seat = None))]
    fn check(&self, py: Python<'_>, action: &Bound<'_, PyAny>, seat: Option<i64>) -> PyResult<()> {
        let action = PyAction::from_any(py, action)?;
        let seat = self.seat_or_to_act(py, seat)?;
        self.game
            .check(seat, &action)
            .map_err(|e| rule_error(py, &e))
    }

    /// Applies an action (an `Action` or its notation) of `seat` (default: the seat to act).
    /// Raises `IllegalAction` with the engine's code if it is refused; the game is then
    /// unchanged.
    #[pyo3(signature = (action, seat = None))]
    fn apply(
        &mut self,
        py: Python<'_>,
        action: &Bound<'_, PyAny>,
        seat: Option<i64>,
    ) -> PyResult<()> {
        let action = PyAction::from_any(py, action)?;
        let seat = self.seat_or_to_act(py, seat)?;
        self.apply_engine(py, seat, &action)
    }

    /// The actions applied so far: (seat, action) pairs.
    #[getter]
    fn actions(&self) -> Vec<(u8, PyAction)> {
        self.actions
            .iter()
            .map(|(s, a)| (s.0, PyAction { action: a.clone() }))
            .collect()
    }

    /// A seat's hand, as the referee knows it (an agent should read its own view).
    fn hand(&self, py: Python<'_>, seat: i64) -> PyResult<Vec<String>> {
        let seat = self.table_seat(py, seat)?;
        Ok(self.game.hand(seat).iter().map(card_ascii).collect())
    }

    // ----- the encodings -----

    /// The ids of the legal actions of the seat to act (fixed ids and option slots), as a
    /// NumPy uint32 array in the canonical list's order.
    fn legal_ids<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<u32>> {
        PyArray1::from_slice(py, &self.listing().legal_ids)
    }

    /// The action mask: 1 at the id of every legal action of the seat to act, 0 elsewhere.
    /// With `out` (an int8 array of `ACTION_COUNT`), it is written there and returned: a
    /// loop that reuses one array allocates nothing.
    #[pyo3(signature = (out = None))]
    fn action_mask<'py>(
        &mut self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<i8>>> {
        let out = match out {
            Some(o) => array_of::<i8>(o, "an int8 array of ACTION_COUNT")?,
            None => PyArray1::zeros(py, encoding::ACTION_COUNT as usize, false),
        };
        {
            let mut rw = out.try_readwrite()?;
            let mask = rw.as_slice_mut()?;
            if mask.len() != encoding::ACTION_COUNT as usize {
                return Err(PyValueError::new_err(format!(
                    "the mask has {} entries: give an int8 array of ACTION_COUNT ({})",
                    mask.len(),
                    encoding::ACTION_COUNT
                )));
            }
            mask.fill(0);
            for &id in &self.listing().legal_ids {
                mask[id as usize] = 1;
            }
        }
        Ok(out)
    }

    /// Legal actions of the current position that have no id (options past the last slot).
    #[getter]
    fn unreachable(&mut self) -> usize {
        self.listing().unreachable
    }

    /// The action of an id in the current position: a fixed id's action (legal or not), or
    /// the action in an option slot; None for an empty slot.
    fn action_of(&mut self, id: i64) -> PyResult<Option<PyAction>> {
        let id = id_from(id)?;
        Ok(self
            .listing()
            .action_of(id)
            .map(|action| PyAction { action }))
    }

    /// The id of an action in the current position: its fixed id, or its option slot; None if
    /// it has neither (not a listed option, or one past the last slot).
    fn id_of(&mut self, py: Python<'_>, action: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
        let action = PyAction::from_any(py, action)?;
        Ok(self.listing().id_of(&action))
    }

    /// Plays the action of an id for the seat to act. Raises `IllegalAction` (with the
    /// engine's code) for an illegal one, or `ValueError` for an empty slot or an id out of
    /// range.
    fn step(&mut self, py: Python<'_>, id: i64) -> PyResult<()> {
        let id = id_from(id)?;
        let Some(seat) = self.game.to_act() else {
            return Err(rule_error(py, &RuleError::MatchOver));
        };
        let Some(action) = self.listing().action_of(id) else {
            return Err(PyValueError::new_err(format!(
                "id {id} is an empty option slot in this position: choose an id of the mask"
            )));
        };
        self.apply_engine(py, seat, &action)
    }

    /// A uniformly random legal id (among those with an id), from the game's own generator;
    /// None once the match is over.
    fn random_id(&mut self) -> Option<u32> {
        self.listing();
        let ids = &self.listing.legal_ids;
        if ids.is_empty() {
            return None;
        }
        Some(ids[self.rng.below(ids.len() as u64) as usize])
    }

    /// Plays a random legal id (see `random_id`) and returns it; None once the match is over.
    fn step_random(&mut self, py: Python<'_>) -> PyResult<Option<u32>> {
        let Some(id) = self.random_id() else {
            return Ok(None);
        };
        self.step(py, i64::from(id))?;
        Ok(Some(id))
    }

    /// Reseeds the generator of `random_id`.
    fn seed_random(&mut self, seed: u64) {
        self.rng = Xoshiro256::seed_from_u64(seed);
    }

    /// The observation of `seat` (float32, `observation_size` values; see
    /// `observation_layout`): what that seat may see, never another seat's hidden card. With
    /// `out`, written there and returned.
    #[pyo3(signature = (seat, out = None))]
    fn observe<'py>(
        &mut self,
        py: Python<'py>,
        seat: i64,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let seat = self.table_seat(py, seat)?;
        let out = match out {
            Some(o) => array_of::<f32>(o, "a float32 array of observation_size")?,
            None => PyArray1::zeros(py, self.layout.len, false),
        };
        let acting = self.game.to_act() == Some(seat);
        if acting {
            self.listing();
        }
        {
            let mut rw = out.try_readwrite()?;
            let values = rw.as_slice_mut()?;
            if values.len() != self.layout.len {
                return Err(PyValueError::new_err(format!(
                    "the observation has {} values: give a float32 array of observation_size ({})",
                    values.len(),
                    self.layout.len
                )));
            }
            let view = self.game.view_into(Viewer::Seat(seat), &mut self.views);
            encoding::observe(&self.layout, view, acting.then_some(&self.listing), values);
        }
        Ok(out)
    }

    /// The length of an observation.
    #[getter]
    fn observation_size(&self) -> usize {
        self.layout.len
    }

    /// The observation's fields: name -> (offset, shape), in the order of their offsets (a
    /// dict keeps the order it is filled in).
    fn observation_layout<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let fields = PyDict::new(py);
        for (name, offset, shape) in &self.layout.fields {
            let shape: Vec<usize> = match shape {
                [1, 1, n] => vec![*n],
                [1, r, n] => vec![*r, *n],
                s => s.to_vec(),
            };
            fields.set_item(*name, (*offset, shape))?;
        }
        Ok(fields)
    }

    fn __repr__(&self) -> String {
        format!(
            "Game({:?}, {}, seed={}, deal={}, phase={:?}, to_act={}, scores={:?})",
            self.game.rules().preset.name(),
            self.game.table().players(),
            self.game.seed(),
            self.game.deal_number(),
            phase_name(self.game.phase()),
            objects::py_option(self.game.to_act().map(|s| s.0)),
            self.game.scores()
        )
    }
}

fn replay_setup_error(py: Python<'_>, e: PyErr) -> PyErr {
    // A refused rule set, raised as SetupRefused, is the record's setup refused.
    let value = e.value(py);
    match (value.getattr("code"), value.getattr("message")) {
        (Ok(code), Ok(message)) => error(py, "ReplayRefused", (code, message)),
        _ => e,
    }
}

/// An `out` argument as a one-dimensional array of `T`, or a `TypeError` that says what to give.
fn array_of<'py, T: numpy::Element>(
    value: Bound<'py, PyAny>,
    wanted: &str,
) -> PyResult<Bound<'py, PyArray1<T>>> {
    if value.cast::<PyArray1<T>>().is_err() {
        // Described only when refused: the description costs more than the whole fill.
        let described = value
            .getattr("dtype")
            .and_then(|d| d.str())
            .map(|d| format!("an array of {d}"))
            .unwrap_or_else(|_| "no NumPy array".to_string());
        return Err(PyTypeError::new_err(format!(
            "out is {described}: give {wanted}"
        )));
    }
    Ok(value
        .cast_into::<PyArray1<T>>()
        .expect("an array of the element type, as just checked"))
}

fn id_from(id: i64) -> PyResult<u32> {
    u32::try_from(id)
        .ok()
        .filter(|&i| i < encoding::ACTION_COUNT)
        .ok_or_else(|| {
            PyValueError::new_err(format!(
                "id {id} is out of the action space: ids are 0 to {}",
                encoding::ACTION_COUNT - 1
            ))
        })
}

/// The card kinds in the order of the encodings (`Card::index`): index -> card text.
#[pyfunction]
fn card_kinds() -> Vec<String> {
    (0..encoding::KINDS as u8)
        .filter_map(Card::from_index)
        .map(card_ascii)
        .collect()
}

/// The presets' names.
#[pyfunction]
fn presets() -> Vec<&'static str> {
    Preset::ALL.iter().map(|p| p.name()).collect()
}

/// The built-in bots' names.
#[pyfunction]
fn bot_names() -> Vec<&'static str> {
    bot::BOT_NAMES.to_vec()
}

/// The extension module.
#[pymodule]
fn _engine(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Game>()?;
    m.add_class::<PyAction>()?;
    m.add_class::<PyBot>()?;
    objects::register(m)?;
    wire::register(m)?;
    m.add_function(wrap_pyfunction!(card_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(bot_names, m)?)?;
    m.add("ACTION_COUNT", encoding::ACTION_COUNT)?;
    m.add("DRAW", encoding::DRAW)?;
    m.add("DECLINE", encoding::DECLINE)?;
    m.add("ASK", encoding::ASK)?;
    m.add("YES", encoding::YES)?;
    m.add("NO", encoding::NO)?;
    m.add("DISCARD_BASE", encoding::DISCARD_BASE)?;
    m.add("ADD_BASE", encoding::ADD_BASE)?;
    m.add("MAX_MELDS", encoding::MAX_MELDS)?;
    m.add("OPTION_BASE", encoding::OPTION_BASE)?;
    m.add("OPTION_SLOTS", encoding::OPTION_SLOTS)?;
    m.add("CARD_KINDS", encoding::KINDS)?;
    m.add("RECORD_FORMAT", RECORD_FORMAT)?;
    Ok(())
}
