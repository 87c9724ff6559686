//! The engine's views and scores as plain, immutable Python objects (fields read as
//! attributes, compared with `==`, shown by `repr`). Cards are written as in the notation
//! (`KS`, `10H`, `Jk`).

use canasta_engine::meld::{CanastaKind, MeldKind};
use canasta_engine::notation::card_ascii;
use canasta_engine::score::{DealEnd, SideScore as EngineSideScore};
use canasta_engine::view::{SeatView as EngineSeatView, SideView as EngineSideView};
use canasta_engine::{Ask, CardCounts, Viewer};
use pyo3::prelude::*;

/// An option as Python writes it: the value, or `None`.
pub fn py_option<T: std::fmt::Debug>(value: Option<T>) -> String {
    value.map_or_else(|| "None".to_string(), |v| format!("{v:?}"))
}

fn cards(c: &CardCounts) -> Vec<String> {
    c.iter().map(card_ascii).collect()
}

/// One meld of a side.
#[pyclass(module = "canasta._engine", frozen, get_all, eq)]
#[derive(Clone, PartialEq)]
pub struct Meld {
    /// Its number on the side (what `meld 2: KS` names).
    pub id: usize,
    /// `group`, `sequence`, `wild` or `black_threes`.
    pub kind: &'static str,
    /// The rank of a group (`K`), the suit of a sequence (`S`), else None.
    pub of: Option<String>,
    /// Its cards.
    pub cards: Vec<String>,
    /// `natural`, `mixed`, `samba`, `wild_jokers`, `wild_deuces`, `wild_mixed`, or None if it
    /// is no canasta yet.
    pub canasta: Option<&'static str>,
    /// The seat that laid it.
    pub creator: u8,
}

#[pymethods]
impl Meld {
    fn __repr__(&self) -> String {
        format!(
            "Meld({}, {}{}, [{}]{})",
            self.id,
            self.kind,
            self.of
                .as_ref()
                .map(|o| format!(" {o}"))
                .unwrap_or_default(),
            self.cards.join(" "),
            self.canasta
                .map(|c| format!(", canasta={c}"))
                .unwrap_or_default()
        )
    }
}

fn canasta_name(kind: CanastaKind) -> &'static str {
    match kind {
        CanastaKind::Natural => "natural",
        CanastaKind::Mixed => "mixed",
        CanastaKind::Samba => "samba",
        CanastaKind::WildJokers => "wild_jokers",
        CanastaKind::WildDeuces => "wild_deuces",
        CanastaKind::WildMixed => "wild_mixed",
        _ => "other",
    }
}

impl Meld {
    fn new(id: usize, m: &canasta_engine::Meld) -> Meld {
        let (kind, of) = match m.kind {
            MeldKind::Group(r) => ("group", Some(r.label().to_string())),
            MeldKind::Sequence(s) => ("sequence", Some(s.letter().to_string())),
            MeldKind::Wild => ("wild", None),
            MeldKind::BlackThrees => ("black_threes", None),
            _ => ("other", None),
        };
        Meld {
            id,
            kind,
            of,
            cards: cards(&m.cards),
            canasta: m.canasta().map(canasta_name),
            creator: m.creator.0,
        }
    }
}

/// One seat as the viewer sees it.
#[pyclass(module = "canasta._engine", frozen, get_all, eq)]
#[derive(Clone, PartialEq)]
pub struct SeatView {
    /// The seat.
    pub seat: u8,
    /// Its side.
    pub side: u8,
    /// It plays the current deal (false while sitting out).
    pub playing: bool,
    /// Cards in its hand.
    pub hand_len: u32,
    /// Its hand, if the viewer may see it, else None.
    pub hand: Option<Vec<String>>,
    /// Red threes it laid this deal.
    pub red_threes: Vec<String>,
    /// The cards of its hand every seat knows are there (picked up with the pile, kept from
    /// the cut; counted down as cards of their kind are laid or discarded).
    pub known: Vec<String>,
    /// The pile's top card it passed at its last draw (a pile of three or more, its side
    /// melded), or nothing: public, a hint for bots that guess hands.
    pub passed: Vec<String>,
    /// The cards it discarded this deal: public.
    pub discarded: Vec<String>,
    /// It has had a turn this deal.
    pub had_turn: bool,
    /// It melded in an earlier turn of this deal.
    pub melded_before: bool,
}

#[pymethods]
impl SeatView {
    fn __repr__(&self) -> String {
        format!(
            "SeatView(seat={}, side={}, hand_len={}, hand={}, red_threes={:?})",
            self.seat,
            self.side,
            self.hand_len,
            self.hand
                .as_ref()
                .map(|h| format!("{h:?}"))
                .unwrap_or_else(|| "hidden".into()),
            self.red_threes
        )
    }
}

impl From<&EngineSeatView> for SeatView {
    fn from(s: &EngineSeatView) -> Self {
        SeatView {
            seat: s.seat.0,
            side: s.side.0,
            playing: s.playing,
            hand_len: s.hand_len,
            hand: s.hand.as_ref().map(cards),
            red_threes: cards(&s.red_threes),
            known: cards(&s.known),
            passed: cards(&s.passed),
            discarded: cards(&s.discarded),
            had_turn: s.had_turn,
            melded_before: s.melded_before,
        }
    }
}

/// One side as everyone sees it.
#[pyclass(module = "canasta._engine", frozen, get_all, eq)]
#[derive(Clone, PartialEq)]
pub struct SideView {
    /// The side.
    pub side: u8,
    /// Its seats.
    pub members: Vec<u8>,
    /// Its melds, by number.
    pub melds: Vec<Meld>,
    /// It has made its initial meld this deal.
    pub melded: bool,
    /// Its initial-meld minimum this deal.
    pub minimum: u32,
    /// Its cumulative score before this deal.
    pub score: i32,
    /// Points lost to penalties this deal.
    pub penalties: i32,
}

#[pymethods]
impl SideView {
    fn __repr__(&self) -> String {
        format!(
            "SideView(side={}, members={:?}, score={}, melded={}, melds={})",
            self.side,
            self.members,
            self.score,
            if self.melded { "True" } else { "False" },
            self.melds.len()
        )
    }
}

impl From<&EngineSideView> for SideView {
    fn from(s: &EngineSideView) -> Self {
        SideView {
            side: s.side.0,
            members: s.members.iter().map(|m| m.0).collect(),
            melds: s
                .melds
                .iter()
                .enumerate()
                .map(|(i, m)| Meld::new(i, m))
                .collect(),
            melded: s.melded,
            minimum: s.minimum,
            score: s.score,
            penalties: s.penalties,
        }
    }
}

/// One side's score for a deal, itemised; `total` is the sum of the items.
#[pyclass(module = "canasta._engine", frozen, get_all, eq)]
#[derive(Clone, PartialEq)]
pub struct SideScore {
    /// The side.
    pub side: u8,
    /// Values of its melded cards.
    pub melded_cards: i32,
    /// Natural canastas.
    pub natural_canastas: u8,
    /// Mixed canastas.
    pub mixed_canastas: u8,
    /// Sambas.
    pub sambas: u8,
    /// Wild canastas.
    pub wild_canastas: u8,
    /// All canasta bonuses.
    pub canasta_bonus: i32,
    /// Red threes laid.
    pub red_threes: u8,
    /// Red-three bonus, negative if the side did not qualify.
    pub red_three_bonus: i32,
    /// Going-out bonus.
    pub going_out_bonus: i32,
    /// Minus the values of the cards left in its hands.
    pub cards_in_hand: i32,
    /// Minus its penalties.
    pub penalties: i32,
    /// The deal's total.
    pub total: i32,
    /// The side's score after the deal.
    pub cumulative: i32,
}

#[pymethods]
impl SideScore {
    /// The sum of the items (equal to `total`).
    fn sum_of_items(&self) -> i32 {
        self.melded_cards
            + self.canasta_bonus
            + self.red_three_bonus
            + self.going_out_bonus
            + self.cards_in_hand
            + self.penalties
    }

    fn __repr__(&self) -> String {
        format!(
            "SideScore(side={}, total={}, melded_cards={}, canasta_bonus={}, red_three_bonus={}, going_out_bonus={}, cards_in_hand={}, penalties={}, cumulative={})",
            self.side,
            self.total,
            self.melded_cards,
            self.canasta_bonus,
            self.red_three_bonus,
            self.going_out_bonus,
            self.cards_in_hand,
            self.penalties,
            self.cumulative
        )
    }
}

impl From<&EngineSideScore> for SideScore {
    fn from(s: &EngineSideScore) -> Self {
        SideScore {
            side: s.side,
            melded_cards: s.melded_cards,
            natural_canastas: s.natural_canastas,
            mixed_canastas: s.mixed_canastas,
            sambas: s.sambas,
            wild_canastas: s.wild_canastas,
            canasta_bonus: s.canasta_bonus,
            red_threes: s.red_threes,
            red_three_bonus: s.red_three_bonus,
            going_out_bonus: s.going_out_bonus,
            cards_in_hand: s.cards_in_hand,
            penalties: s.penalties,
            total: s.total,
            cumulative: s.cumulative,
        }
    }
}

/// A finished deal's score.
#[pyclass(module = "canasta._engine", frozen, get_all, eq)]
#[derive(Clone, PartialEq)]
pub struct DealScore {
    /// The deal's number, from 0.
    pub deal: u32,
    /// How it ended: `went_out`, `stock_exhausted` or `last_red_three`.
    pub end: &'static str,
    /// The seat whose move ended it.
    pub end_seat: u8,
    /// True if the player went out concealed.
    pub concealed: bool,
    /// Each side's score, by side.
    pub sides: Vec<SideScore>,
}

#[pymethods]
impl DealScore {
    /// The deal's totals by side.
    #[getter]
    fn totals(&self) -> Vec<i32> {
        self.sides.iter().map(|s| s.total).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "DealScore(deal={}, end={}, end_seat={}, totals={:?})",
            self.deal,
            self.end,
            self.end_seat,
            self.totals()
        )
    }
}

impl From<&canasta_engine::DealScore> for DealScore {
    fn from(d: &canasta_engine::DealScore) -> Self {
        let (end, concealed) = match d.end {
            DealEnd::WentOut { concealed, .. } => ("went_out", concealed),
            DealEnd::StockExhausted { .. } => ("stock_exhausted", false),
            DealEnd::LastRedThree { .. } => ("last_red_three", false),
            _ => ("other", false),
        };
        DealScore {
            deal: d.deal,
            end,
            end_seat: d.end.seat().0,
            concealed,
            sides: d.sides.iter().map(SideScore::from).collect(),
        }
    }
}

/// A game as one viewer may see it: a seat its own hand and every public fact, a spectator
/// the public facts, the referee everything.
#[pyclass(module = "canasta._engine", frozen, eq)]
#[derive(Clone, PartialEq)]
pub struct View {
    /// The seat looking, None for a spectator or the referee.
    #[pyo3(get)]
    pub seat: Option<u8>,
    /// `seat`, `spectator` or `referee`.
    #[pyo3(get)]
    pub viewer: &'static str,
    /// The preset.
    #[pyo3(get)]
    pub preset: &'static str,
    /// Seats at the table.
    #[pyo3(get)]
    pub players: u8,
    /// The current deal, from 0.
    #[pyo3(get)]
    pub deal: u32,
    /// `draw`, `play`, `answer` or `over`.
    #[pyo3(get)]
    pub phase: &'static str,
    /// The seat that must act.
    #[pyo3(get)]
    pub to_act: Option<u8>,
    /// The seat whose turn it is.
    #[pyo3(get)]
    pub turn_seat: u8,
    /// The dealer.
    #[pyo3(get)]
    pub dealer: u8,
    /// Seats playing this deal, in order.
    #[pyo3(get)]
    pub play_order: Vec<u8>,
    /// Every seat.
    #[pyo3(get)]
    pub seats: Vec<SeatView>,
    /// Every side.
    #[pyo3(get)]
    pub sides: Vec<SideView>,
    /// The discard pile, top card last (public).
    #[pyo3(get)]
    pub pile: Vec<String>,
    /// The pile holds a wild card or a red three.
    #[pyo3(get)]
    pub pile_frozen: bool,
    /// The top card blocks the pile for the player to act.
    #[pyo3(get)]
    pub pile_blocked: bool,
    /// Cards in the stock.
    #[pyo3(get)]
    pub stock_len: u32,
    /// The stock, top card last: the referee's view only.
    #[pyo3(get)]
    pub stock: Option<Vec<String>>,
    /// The player took the pile this turn.
    #[pyo3(get)]
    pub took_pile: bool,
    /// The player laid cards this turn.
    #[pyo3(get)]
    pub melded_this_turn: bool,
    /// The partner question: `not_asked`, `pending`, `yes`, `no`.
    #[pyo3(get)]
    pub ask: &'static str,
    /// The last finished deal's score.
    #[pyo3(get)]
    pub last_deal: Option<DealScore>,
    /// Deals finished.
    #[pyo3(get)]
    pub deals_played: u32,
    /// The winning side once the match is over.
    #[pyo3(get)]
    pub winner: Option<u8>,
    /// The engine's own view, which the built-in bots and the legal actions read (a view
    /// read from the wire is the engine's view too, rebuilt by the protocol's conversion).
    pub engine: canasta_engine::View,
}

#[pymethods]
impl View {
    /// The viewer's own hand (None for a spectator).
    #[getter]
    fn hand(&self) -> Option<Vec<String>> {
        let seat = self.seat?;
        self.seats.get(seat as usize)?.hand.clone()
    }

    /// The legal actions of the viewer's seat in canonical form (as `Game.legal_actions`
    /// lists them), when it is the seat to act; else an empty list. The engine reads them from
    /// the view alone, so a view from the network (`canasta.client`) lists them as the server
    /// would. The list is bounded (a huge hand before its side's initial meld may cut it).
    fn legal_actions(&self) -> Vec<crate::PyAction> {
        let Some(legal) = self.engine.legal() else {
            return Vec::new();
        };
        let mut actions = Vec::new();
        legal.actions_up_to(&mut actions, crate::encoding::LIST_MAX);
        actions
            .into_iter()
            .map(|action| crate::PyAction { action })
            .collect()
    }

    /// The top card of the pile.
    #[getter]
    fn pile_top(&self) -> Option<String> {
        self.pile.last().cloned()
    }

    fn __repr__(&self) -> String {
        format!(
            "View({}{}, {} {}p, deal={}, phase={}, to_act={}, hand={}, pile_top={}, pile={}, stock={})",
            self.viewer,
            self.seat.map(|s| format!(" {s}")).unwrap_or_default(),
            self.preset,
            self.players,
            self.deal,
            self.phase,
            py_option(self.to_act),
            py_option(self.hand()),
            py_option(self.pile_top()),
            self.pile.len(),
            self.stock_len
        )
    }
}

impl From<canasta_engine::View> for View {
    fn from(v: canasta_engine::View) -> Self {
        let (seat, viewer) = match v.viewer {
            Viewer::Seat(s) => (Some(s.0), "seat"),
            Viewer::Spectator => (None, "spectator"),
            Viewer::Referee => (None, "referee"),
        };
        View {
            seat,
            viewer,
            preset: v.rules.preset.name(),
            players: v.rules.players,
            deal: v.deal,
            phase: super::phase_name(v.phase),
            to_act: v.to_act.map(|s| s.0),
            turn_seat: v.turn_seat.0,
            dealer: v.dealer.0,
            play_order: v.play_order.iter().map(|s| s.0).collect(),
            seats: v.seats.iter().map(SeatView::from).collect(),
            sides: v.sides.iter().map(SideView::from).collect(),
            pile: v.pile.iter().map(|c| card_ascii(*c)).collect(),
            pile_frozen: v.pile_frozen,
            pile_blocked: v.pile_blocked,
            stock_len: v.stock_len,
            stock: v
                .stock
                .as_ref()
                .map(|s| s.iter().map(|c| card_ascii(*c)).collect()),
            took_pile: v.turn.took_pile,
            melded_this_turn: v.turn.melded,
            ask: match v.turn.ask {
                Ask::NotAsked => "not_asked",
                Ask::Pending => "pending",
                Ask::Yes => "yes",
                Ask::No => "no",
            },
            last_deal: v.last_deal.as_ref().map(DealScore::from),
            deals_played: v.deals_played,
            winner: v.winner.map(|s| s.0),
            engine: v,
        }
    }
}

/// Adds the classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<View>()?;
    m.add_class::<SeatView>()?;
    m.add_class::<SideView>()?;
    m.add_class::<Meld>()?;
    m.add_class::<DealScore>()?;
    m.add_class::<SideScore>()?;
    Ok(())
}
