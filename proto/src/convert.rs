//! Conversions between the wire types of `canasta.v1` and the engine's types: the one place
//! where that is decided.
//!
//! Input from the wire (`*_from_wire`) is checked here: a missing field, an unknown enum value,
//! an impossible card or a list too long is refused with a [`WireError`] naming the field. What
//! passes is well-formed; whether it is legal is the engine's question. Output to the wire
//! (`*_to_wire`) takes engine values that are already redacted for their receiver.

use std::fmt;

use canasta_engine::card::CARD_KINDS;
use canasta_engine::event::{DealFinish, DealStart, Placed, RedThreeSource};
use canasta_engine::legal::TakeOption;
use canasta_engine::quote::quoted;
use canasta_engine::view::{SeatView, SideView};
use canasta_engine::{
    Action, Ask, CanastaKind, Card, CardCounts, DealEnd, DealScore, Event, LegalChoices, MeldBatch,
    MeldKind, MeldSpec, MeldTarget, Phase, Preset, Rank, RuleSpec, Seat, Setup, SideScore, Suit,
    TopMeld, View,
};

use crate::reason::Reason;
use crate::v1;

/// Most cards one list on the wire may hold: more than any pack.
pub const MAX_CARDS: usize = 255;

/// Why a wire message was refused: a stable reason code, the field, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    /// The stable reason: `MISSING_FIELD`, `INVALID_ENUM`, `INVALID_CARD`, `TOO_MANY_CARDS`,
    /// `INVALID_INDEX` (a meld index, a side or a count out of range), `INVALID_SEAT`, or a
    /// rule set's or setup's (`UNKNOWN_OPTION`, `OPTION_CONFLICT`, `BAD_FIRST_DEALER` …).
    pub reason: Reason,
    /// The field, as a path (`action.take_pile.cards[2]`).
    pub field: String,
    /// What is wrong and what to send instead.
    pub message: String,
}

impl WireError {
    fn new(reason: Reason, field: impl Into<String>, message: impl Into<String>) -> Self {
        WireError {
            reason,
            field: field.into(),
            message: message.into(),
        }
    }

    /// The same error, its field's path put under `parent` (`melds[2]` before `.cards[1]`).
    /// The paths of a list's items are spelled out only for an error: reading a valid list
    /// formats nothing (a view's cards are read on every prompt).
    fn under(mut self, parent: fmt::Arguments<'_>) -> Self {
        self.field = format!("{parent}{}", self.field);
        self
    }

    fn missing(field: impl Into<String>) -> Self {
        let field = field.into();
        let message = format!("{field} is required");
        WireError::new(Reason::MissingField, field, message)
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for WireError {}

// ----- cards -----

/// A card on the wire.
pub fn card_to_wire(card: Card) -> v1::Card {
    v1::Card {
        rank: card.rank() as i32 + 2,
        suit: card.suit().map_or(0, |s| s as i32 + 1),
    }
}

/// A card from the wire.
pub fn card_from_wire(card: &v1::Card, field: &str) -> Result<Card, WireError> {
    let rank = (card.rank - 2)
        .try_into()
        .ok()
        .and_then(Rank::from_index)
        .filter(|_| card.rank >= 2)
        .ok_or_else(|| {
            WireError::new(
                Reason::InvalidCard,
                field,
                format!(
                    "rank {} is not a rank: use RANK_TWO to RANK_JOKER",
                    card.rank
                ),
            )
        })?;
    if rank == Rank::Joker {
        if card.suit != 0 {
            return Err(WireError::new(
                Reason::InvalidCard,
                field,
                "a joker has no suit: send SUIT_UNSPECIFIED",
            ));
        }
        return Ok(Card::JOKER);
    }
    let suit = match card.suit {
        1..=4 => Suit::ALL[(card.suit - 1) as usize],
        s => {
            return Err(WireError::new(
                Reason::InvalidCard,
                field,
                format!("suit {s} is not a suit: use SUIT_CLUBS to SUIT_SPADES"),
            ));
        }
    };
    Ok(Card::new(rank, suit))
}

/// A list of cards on the wire, in the engine's order.
pub fn cards_to_wire(cards: &CardCounts) -> Vec<v1::Card> {
    cards.iter().map(card_to_wire).collect()
}

/// Cards in their order on the wire.
pub fn card_list_to_wire(cards: &[Card]) -> Vec<v1::Card> {
    cards.iter().copied().map(card_to_wire).collect()
}

/// A list of cards from the wire, as a multiset.
pub fn counts_from_wire(cards: &[v1::Card], field: &str) -> Result<CardCounts, WireError> {
    if cards.len() > MAX_CARDS {
        return Err(WireError::new(
            Reason::TooManyCards,
            field,
            format!(
                "{} cards is more than any pack: send at most {MAX_CARDS}",
                cards.len()
            ),
        ));
    }
    let mut counts = CardCounts::new();
    for (i, c) in cards.iter().enumerate() {
        counts.add(card_from_wire(c, "").map_err(|e| e.under(format_args!("{field}[{i}]")))?);
    }
    // The counts stop at 15 of a suited card: a copy past that is not counted. Refused rather
    // than read as another list (checked once, here; the card is found only for the error).
    if counts.len() != cards.len() {
        return Err(too_many_copies(cards, field));
    }
    Ok(counts)
}

/// The refusal of a list holding more copies of a card than [`CardCounts`] counts.
#[cold]
fn too_many_copies(cards: &[v1::Card], field: &str) -> WireError {
    let mut copies = [0usize; CARD_KINDS];
    for c in cards {
        if let Ok(card) = card_from_wire(c, "") {
            copies[card.index()] += 1;
        }
    }
    let (index, most) = copies
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != Card::JOKER.index())
        .max_by_key(|&(_, n)| *n)
        .expect("cards");
    let card = Card::from_index(index as u8).expect("a card's index");
    WireError::new(
        Reason::TooManyCards,
        field,
        format!(
            "{most} of {card} is more than any pack holds: send each card as many times as \
             the action uses it (at most 15 of a card)"
        ),
    )
}

/// A list of cards from the wire, in order.
pub fn card_list_from_wire(cards: &[v1::Card], field: &str) -> Result<Vec<Card>, WireError> {
    if cards.len() > MAX_CARDS {
        return Err(WireError::new(
            Reason::TooManyCards,
            field,
            format!(
                "{} cards is more than any pack: send at most {MAX_CARDS}",
                cards.len()
            ),
        ));
    }
    cards
        .iter()
        .enumerate()
        .map(|(i, c)| card_from_wire(c, "").map_err(|e| e.under(format_args!("{field}[{i}]"))))
        .collect()
}

/// A rank on the wire.
pub fn rank_to_wire(rank: Rank) -> i32 {
    rank as i32 + 2
}

/// A suit on the wire.
pub fn suit_to_wire(suit: Suit) -> i32 {
    suit as i32 + 1
}

// ----- actions -----

fn meld_index(index: Option<u32>, field: &str) -> Result<MeldTarget, WireError> {
    match index {
        None => Ok(MeldTarget::New),
        Some(i) => u8::try_from(i).map(MeldTarget::Existing).map_err(|_| {
            WireError::new(
                Reason::InvalidIndex,
                field,
                format!("meld index {i} is out of range: name one of your side's melds"),
            )
        }),
    }
}

fn batch_from_wire(specs: &[v1::MeldSpec], field: &str) -> Result<MeldBatch, WireError> {
    if specs.len() > MAX_CARDS {
        return Err(WireError::new(
            Reason::TooManyCards,
            field,
            format!(
                "{} melds in one action is more than a hand can hold",
                specs.len()
            ),
        ));
    }
    specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let at = |e: WireError| e.under(format_args!("{field}[{i}]"));
            Ok(MeldSpec {
                target: meld_index(s.meld_index, ".meld_index").map_err(at)?,
                cards: counts_from_wire(&s.cards, ".cards").map_err(at)?,
            })
        })
        .collect()
}

fn batch_to_wire(batch: &[MeldSpec]) -> Vec<v1::MeldSpec> {
    batch
        .iter()
        .map(|s| v1::MeldSpec {
            meld_index: match s.target {
                MeldTarget::New => None,
                MeldTarget::Existing(id) => Some(id as u32),
            },
            cards: cards_to_wire(&s.cards),
        })
        .collect()
}

/// An action from the wire.
pub fn action_from_wire(action: &v1::Action) -> Result<Action, WireError> {
    use v1::action::Kind;
    let kind = action
        .kind
        .as_ref()
        .ok_or_else(|| WireError::missing("action.kind"))?;
    Ok(match kind {
        Kind::DrawStock(_) => Action::DrawStock,
        Kind::TakePile(t) => Action::TakePile {
            top: TopMeld {
                target: meld_index(t.meld_index, "action.take_pile.meld_index")?,
                cards: counts_from_wire(&t.cards, "action.take_pile.cards")?,
            },
            melds: batch_from_wire(&t.melds, "action.take_pile.melds")?,
        },
        Kind::Meld(m) => Action::Meld {
            melds: batch_from_wire(&m.melds, "action.meld.melds")?,
        },
        Kind::Discard(d) => Action::Discard {
            card: card_from_wire(
                d.card
                    .as_ref()
                    .ok_or_else(|| WireError::missing("action.discard.card"))?,
                "action.discard.card",
            )?,
        },
        Kind::GoOut(g) => Action::GoOut {
            melds: batch_from_wire(&g.melds, "action.go_out.melds")?,
            discard: g
                .discard
                .as_ref()
                .map(|c| card_from_wire(c, "action.go_out.discard"))
                .transpose()?,
        },
        Kind::AskPartner(_) => Action::AskPartner,
        Kind::AnswerPartner(a) => Action::AnswerPartner { yes: a.yes },
        Kind::DeclinePile(_) => Action::DeclinePile,
    })
}

/// An action on the wire.
pub fn action_to_wire(action: &Action) -> v1::Action {
    use v1::action::Kind;
    let kind = match action {
        Action::DrawStock => Kind::DrawStock(v1::DrawStockAction {}),
        Action::TakePile { top, melds } => Kind::TakePile(v1::TakePileAction {
            meld_index: match top.target {
                MeldTarget::New => None,
                MeldTarget::Existing(id) => Some(id as u32),
            },
            cards: cards_to_wire(&top.cards),
            melds: batch_to_wire(melds),
        }),
        Action::Meld { melds } => Kind::Meld(v1::MeldAction {
            melds: batch_to_wire(melds),
        }),
        Action::Discard { card } => Kind::Discard(v1::DiscardAction {
            card: Some(card_to_wire(*card)),
        }),
        Action::GoOut { melds, discard } => Kind::GoOut(v1::GoOutAction {
            melds: batch_to_wire(melds),
            discard: discard.map(card_to_wire),
        }),
        Action::AskPartner => Kind::AskPartner(v1::AskPartnerAction {}),
        Action::AnswerPartner { yes } => Kind::AnswerPartner(v1::AnswerPartnerAction { yes: *yes }),
        Action::DeclinePile => Kind::DeclinePile(v1::DeclinePileAction {}),
    };
    v1::Action { kind: Some(kind) }
}

// ----- rules -----

/// A preset on the wire: PRESET_UNSPECIFIED for a preset of a newer engine that the protocol
/// does not name yet (every preset of [`Preset::ALL`] has its value: tested).
pub fn preset_to_wire(preset: Preset) -> v1::Preset {
    match preset {
        Preset::Official => v1::Preset::Official,
        Preset::Wiener => v1::Preset::Wiener,
        Preset::Samba => v1::Preset::Samba,
        Preset::Swiss => v1::Preset::Swiss,
        _ => v1::Preset::Unspecified,
    }
}

/// A preset from the wire.
pub fn preset_from_wire(preset: i32, field: &str) -> Result<Preset, WireError> {
    match v1::Preset::try_from(preset) {
        Ok(v1::Preset::Official) => Ok(Preset::Official),
        Ok(v1::Preset::Wiener) => Ok(Preset::Wiener),
        Ok(v1::Preset::Samba) => Ok(Preset::Samba),
        Ok(v1::Preset::Swiss) => Ok(Preset::Swiss),
        _ => Err(WireError::new(
            Reason::InvalidEnum,
            field,
            format!(
                "preset {preset} is not a preset: use PRESET_OFFICIAL, PRESET_WIENER, PRESET_SAMBA or PRESET_SWISS"
            ),
        )),
    }
}

/// A rule set from the wire, not yet validated (see [`canasta_engine::Rules::new`]).
pub fn rules_from_wire(rules: &v1::RuleSet) -> Result<RuleSpec, WireError> {
    let preset = preset_from_wire(rules.preset, "rules.preset")?;
    let players = u8::try_from(rules.player_count).map_err(|_| {
        WireError::new(
            Reason::BadPlayerCount,
            "rules.player_count",
            format!(
                "{} players: Canasta is played by 2 to 6",
                rules.player_count
            ),
        )
    })?;
    let mut spec = RuleSpec::new(preset, players);
    let mut names: Vec<&String> = rules.options.keys().collect();
    names.sort();
    for name in names {
        spec.options.set(name, &rules.options[name]).map_err(|e| {
            // The name is the caller's: quoted cut short, as the message quotes it.
            WireError::new(
                Reason::from(&e),
                format!("rules.options[{}]", quoted(name)),
                e.to_string(),
            )
        })?;
    }
    Ok(spec)
}

/// A game's setup from the fields that fix it on the wire (a `CreateGameRequest`'s, or a
/// `GameRecord`'s), not yet validated (see [`canasta_engine::Game::new`]).
pub fn setup_from_wire(
    rules: Option<&v1::RuleSet>,
    seed: u64,
    card_orders: &[v1::CardOrder],
    first_dealer: Option<u32>,
    start_scores: &[i32],
) -> Result<Setup, WireError> {
    let rules = rules_from_wire(rules.ok_or_else(|| WireError::missing("rules"))?)?;
    let card_orders = card_orders
        .iter()
        .enumerate()
        .map(|(i, o)| card_list_from_wire(&o.cards, &format!("card_orders[{i}]")))
        .collect::<Result<Vec<Vec<Card>>, _>>()?;
    let first_dealer = first_dealer
        .map(|s| {
            u8::try_from(s).map(Seat).map_err(|_| {
                WireError::new(
                    Reason::BadFirstDealer,
                    "first_dealer",
                    format!("first_dealer {s} is not a seat: choose 0 to players-1"),
                )
            })
        })
        .transpose()?;
    Ok(Setup {
        rules,
        seed,
        card_orders,
        first_dealer,
        start_scores: start_scores.to_vec(),
    })
}

/// A finished game's record as the engine replays it: its setup and every action with its
/// seat (see [`canasta_engine::Game::replay`]).
pub fn record_from_wire(
    record: &v1::GameRecord,
) -> Result<(Setup, Vec<(Seat, Action)>), WireError> {
    let setup = setup_from_wire(
        record.rules.as_ref(),
        record.seed,
        &record.card_orders,
        record.first_dealer,
        &record.start_scores,
    )?;
    let actions = record
        .actions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let seat = u8::try_from(a.seat).map(Seat).map_err(|_| {
                WireError::new(
                    Reason::InvalidSeat,
                    format!("actions[{i}].seat"),
                    format!("seat {} does not exist", a.seat),
                )
            })?;
            let action = a
                .action
                .as_ref()
                .ok_or_else(|| WireError::missing(format!("actions[{i}].action")))?;
            Ok((seat, action_from_wire(action)?))
        })
        .collect::<Result<Vec<_>, WireError>>()?;
    Ok((setup, actions))
}

/// A rule set on the wire.
pub fn rules_to_wire(spec: &RuleSpec) -> v1::RuleSet {
    v1::RuleSet {
        preset: preset_to_wire(spec.preset) as i32,
        player_count: spec.players as u32,
        options: spec
            .options
            .entries()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    }
}

// ----- views -----

/// What a wire view needs beyond the engine's view: the server's facts about the game.
#[derive(Clone, Debug)]
pub struct ViewMeta<'a> {
    /// The game's id.
    pub game_id: &'a str,
    /// The seq of the last event.
    pub seq: u64,
    /// The game's status.
    pub status: v1::GameStatus,
    /// Display names by seat (empty where the seat is free).
    pub names: &'a [String],
    /// Whether each seat is held.
    pub occupied: &'a [bool],
    /// The match result.
    pub result: v1::MatchResult,
}

// The engine's enums below may gain values (they are `#[non_exhaustive]`): one the protocol
// does not name yet goes on the wire as UNSPECIFIED, which a client refuses or shows as
// unknown, rather than as another value. `tests/convert_properties.rs` checks that every value
// the engine produces in play has its own.

fn phase_to_wire(phase: Phase) -> v1::Phase {
    match phase {
        Phase::Draw => v1::Phase::Draw,
        Phase::Play => v1::Phase::Play,
        Phase::Answer => v1::Phase::Answer,
        Phase::Over => v1::Phase::Over,
        _ => v1::Phase::Unspecified,
    }
}

fn canasta_to_wire(kind: Option<CanastaKind>) -> v1::CanastaKind {
    match kind {
        None => v1::CanastaKind::Unspecified,
        Some(CanastaKind::Natural) => v1::CanastaKind::Natural,
        Some(CanastaKind::Mixed) => v1::CanastaKind::Mixed,
        Some(CanastaKind::Samba) => v1::CanastaKind::Samba,
        Some(CanastaKind::WildJokers) => v1::CanastaKind::WildJokers,
        Some(CanastaKind::WildDeuces) => v1::CanastaKind::WildDeuces,
        Some(CanastaKind::WildMixed) => v1::CanastaKind::WildMixed,
        Some(_) => v1::CanastaKind::Unspecified,
    }
}

fn meld_to_wire(index: usize, meld: &canasta_engine::Meld) -> v1::TableMeld {
    let (kind, rank, suit) = match meld.kind {
        MeldKind::Group(r) => (v1::MeldKind::Group, rank_to_wire(r), 0),
        MeldKind::BlackThrees => (v1::MeldKind::BlackThrees, 0, 0),
        MeldKind::Sequence(s) => (v1::MeldKind::Sequence, 0, suit_to_wire(s)),
        MeldKind::Wild => (v1::MeldKind::Wild, 0, 0),
        _ => (v1::MeldKind::Unspecified, 0, 0),
    };
    v1::TableMeld {
        index: index as u32,
        kind: kind as i32,
        rank,
        suit,
        cards: cards_to_wire(&meld.cards),
        creator_seat: meld.creator.0 as u32,
        canasta: canasta_to_wire(meld.canasta()) as i32,
    }
}

fn seat_to_wire(s: &SeatView, meta: &ViewMeta<'_>) -> v1::SeatView {
    let i = s.seat.index();
    v1::SeatView {
        seat: s.seat.0 as u32,
        side: s.side.0 as u32,
        display_name: meta.names.get(i).cloned().unwrap_or_default(),
        occupied: meta.occupied.get(i).copied().unwrap_or(false),
        playing: s.playing,
        hand_count: s.hand_len,
        hand: s.hand.as_ref().map(cards_to_wire).unwrap_or_default(),
        known: cards_to_wire(&s.known),
        passed: cards_to_wire(&s.passed),
        discarded: cards_to_wire(&s.discarded),
        red_threes: cards_to_wire(&s.red_threes),
        had_turn: s.had_turn,
        melded_before: s.melded_before,
        // Which seats the server's bots play is the server's to say, not the engine's view's.
        bot: String::new(),
    }
}

fn side_to_wire(s: &SideView) -> v1::SideView {
    v1::SideView {
        side: s.side.0 as u32,
        seats: s.members.iter().map(|m| m.0 as u32).collect(),
        melds: s
            .melds
            .iter()
            .enumerate()
            .map(|(i, m)| meld_to_wire(i, m))
            .collect(),
        melded: s.melded,
        minimum: s.minimum,
        score: s.score,
        penalties: s.penalties,
    }
}

fn ask_to_wire(ask: Ask) -> v1::AskState {
    match ask {
        Ask::NotAsked => v1::AskState::NotAsked,
        Ask::Pending => v1::AskState::Pending,
        Ask::Yes => v1::AskState::Yes,
        Ask::No => v1::AskState::No,
    }
}

/// A view on the wire. The view must be the receiver's own ([`canasta_engine::Game::view`]).
///
/// A game waiting for players (`meta.status` WAITING) is shown as [`waiting_view_to_wire`]
/// shows it, whoever the viewer: without its deal.
pub fn view_to_wire(view: &View, meta: &ViewMeta<'_>) -> v1::GameView {
    if meta.status == v1::GameStatus::Waiting {
        return waiting_view_to_wire(view, meta);
    }
    let playing = meta.status == v1::GameStatus::Playing;
    v1::GameView {
        game_id: meta.game_id.to_string(),
        seq: meta.seq,
        status: meta.status as i32,
        viewer_seat: match view.viewer {
            canasta_engine::Viewer::Seat(s) => Some(s.0 as u32),
            _ => None,
        },
        deal: view.deal,
        phase: phase_to_wire(view.phase) as i32,
        to_act: view.to_act.filter(|_| playing).map(|s| s.0 as u32),
        turn_seat: view.turn_seat.0 as u32,
        dealer: view.dealer.0 as u32,
        play_order: view.play_order.iter().map(|s| s.0 as u32).collect(),
        seats: view.seats.iter().map(|s| seat_to_wire(s, meta)).collect(),
        sides: view.sides.iter().map(side_to_wire).collect(),
        pile: card_list_to_wire(&view.pile),
        pile_frozen: view.pile_frozen,
        pile_blocked: view.pile_blocked,
        stock_count: view.stock_len,
        turn: Some(v1::TurnState {
            took_pile: view.turn.took_pile,
            melded: view.turn.melded,
            added_to_other_melds: view.turn.foreign,
            ask: ask_to_wire(view.turn.ask) as i32,
        }),
        last_deal: view.last_deal.as_ref().map(deal_score_to_wire),
        deals_played: view.deals_played,
        result: Some(meta.result.clone()),
    }
}

/// The view of a game waiting for players: who sits where (seats, sides, names, the scores
/// the match starts from) and nothing of the deal, for every viewer, its seat holders too. The
/// server deals when the game is created (see `canasta_server`'s actor), so the deal is there,
/// but nobody may see any of it before the start: a seat can be joined and left again, and a
/// seat's view showed its hand, so one client could read every hand and then take a seat for
/// real. No card field of `view` is read here: no hand, pile, red three or meld, no count of
/// cards, and no dealer, turn, phase or result (PHASE_UNSPECIFIED, seats and counts 0).
fn waiting_view_to_wire(view: &View, meta: &ViewMeta<'_>) -> v1::GameView {
    v1::GameView {
        game_id: meta.game_id.to_string(),
        seq: meta.seq,
        status: meta.status as i32,
        viewer_seat: match view.viewer {
            canasta_engine::Viewer::Seat(s) => Some(s.0 as u32),
            _ => None,
        },
        seats: view
            .seats
            .iter()
            .map(|s| {
                let i = s.seat.index();
                v1::SeatView {
                    seat: s.seat.0 as u32,
                    side: s.side.0 as u32,
                    display_name: meta.names.get(i).cloned().unwrap_or_default(),
                    occupied: meta.occupied.get(i).copied().unwrap_or(false),
                    ..Default::default()
                }
            })
            .collect(),
        sides: view
            .sides
            .iter()
            .map(|s| v1::SideView {
                side: s.side.0 as u32,
                seats: s.members.iter().map(|m| m.0 as u32).collect(),
                score: s.score,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

fn take_option_to_wire(t: &TakeOption) -> v1::TakeOption {
    v1::TakeOption {
        meld_index: match t.target {
            MeldTarget::New => None,
            MeldTarget::Existing(id) => Some(id as u32),
        },
        naturals: t.naturals as u32,
        wilds: t.wilds as u32,
        with_melds: t.with_melds,
    }
}

/// The legal choices on the wire: the summary, and with `max_actions` > 0 the list of legal
/// actions, cut at that many.
pub fn legal_to_wire(legal: &LegalChoices<'_>, max_actions: usize) -> v1::LegalChoices {
    // Both bounded whatever the hand: the summary searches within its budget, the list stops
    // at `max_actions` (or its own budget).
    let s = legal.summary();
    let mut out = v1::LegalChoices {
        seat: legal.seat().0 as u32,
        can_draw: s.can_draw,
        pile_takes: s.pile_takes.iter().map(take_option_to_wire).collect(),
        must_take_pile: s.must_take_pile,
        can_decline_pile: s.can_decline_pile,
        meld_ranks: s.meld_ranks.iter().map(|&r| rank_to_wire(r)).collect(),
        sequence_suits: s.sequence_suits.iter().map(|&x| suit_to_wire(x)).collect(),
        can_meld_wilds: s.can_meld_wilds,
        add_to_melds: s.add_to_melds.iter().map(|&m| m as u32).collect(),
        can_discard: s.can_discard,
        can_go_out: s.can_go_out,
        can_ask_partner: s.can_ask_partner,
        must_answer: s.must_answer,
        minimum_remaining: s.minimum_remaining,
        actions: Vec::new(),
        actions_truncated: false,
        summary_incomplete: !s.complete,
    };
    if max_actions > 0 {
        let mut actions = Vec::new();
        out.actions_truncated = !legal.actions_up_to(&mut actions, max_actions);
        out.actions = actions.iter().map(action_to_wire).collect();
    }
    out
}

// ----- scores -----

fn side_score_to_wire(s: &SideScore) -> v1::SideScore {
    v1::SideScore {
        side: s.side as u32,
        melded_cards: s.melded_cards,
        natural_canastas: s.natural_canastas as u32,
        mixed_canastas: s.mixed_canastas as u32,
        sambas: s.sambas as u32,
        wild_canastas: s.wild_canastas as u32,
        canasta_bonus: s.canasta_bonus,
        red_threes: s.red_threes as u32,
        red_three_bonus: s.red_three_bonus,
        going_out_bonus: s.going_out_bonus,
        cards_in_hand: s.cards_in_hand,
        penalties: s.penalties,
        total: s.total,
        cumulative: s.cumulative,
    }
}

/// A deal's score report on the wire.
pub fn deal_score_to_wire(d: &DealScore) -> v1::DealScore {
    let (end, concealed) = match d.end {
        DealEnd::WentOut { concealed, .. } => (v1::DealEndKind::WentOut, concealed),
        DealEnd::StockExhausted { .. } => (v1::DealEndKind::StockExhausted, false),
        DealEnd::LastRedThree { .. } => (v1::DealEndKind::LastRedThree, false),
        _ => (v1::DealEndKind::Unspecified, false),
    };
    let seat = d.end.seat();
    v1::DealScore {
        deal: d.deal,
        end: end as i32,
        seat: seat.0 as u32,
        concealed,
        sides: d.sides.iter().map(side_score_to_wire).collect(),
    }
}

// ----- events -----

fn placed_to_wire(placed: &[Placed]) -> Vec<v1::Placed> {
    placed
        .iter()
        .map(|p| v1::Placed {
            meld_index: p.meld as u32,
            cards: cards_to_wire(&p.cards),
            new_meld: p.new,
        })
        .collect()
}

fn deal_started_to_wire(d: &DealStart) -> v1::DealStarted {
    v1::DealStarted {
        deal: d.deal,
        dealer: d.dealer.0 as u32,
        play_order: d.play_order.iter().map(|s| s.0 as u32).collect(),
        hands: d
            .hands
            .iter()
            .enumerate()
            .map(|(seat, h)| v1::HandView {
                seat: seat as u32,
                count: d.hand_sizes.get(seat).copied().unwrap_or(0) as u32,
                cards: h.as_ref().map(cards_to_wire).unwrap_or_default(),
            })
            .collect(),
        pile: card_list_to_wire(&d.pile),
        stock_count: d.stock,
        minimums: d.minimums.clone(),
        cutter: d.cut.as_ref().map(|(s, _)| s.0 as u32),
        cut_cards: d
            .cut
            .as_ref()
            .map(|(_, c)| card_list_to_wire(c))
            .unwrap_or_default(),
    }
}

fn deal_ended_to_wire(f: &DealFinish) -> v1::DealEnded {
    v1::DealEnded {
        score: Some(deal_score_to_wire(&f.score)),
        hands: f
            .hands
            .iter()
            .enumerate()
            .map(|(seat, h)| v1::HandView {
                seat: seat as u32,
                count: h.len() as u32,
                cards: cards_to_wire(h),
            })
            .collect(),
    }
}

/// The match result the engine knows: finished by reaching the target, or not yet.
pub fn result_to_wire(winner: Option<canasta_engine::Side>, totals: &[i32]) -> v1::MatchResult {
    v1::MatchResult {
        finished: winner.is_some(),
        winner_side: winner.map(|s| s.0 as u32),
        totals: totals.to_vec(),
        end: if winner.is_some() {
            v1::MatchEndKind::Target as i32
        } else {
            v1::MatchEndKind::Unspecified as i32
        },
        forfeited_side: None,
    }
}

/// An engine event on the wire. The event must already be redacted for its receiver
/// ([`canasta_engine::redact`]).
///
/// `None` for an event of a newer engine that the protocol has no message for yet: sent as a
/// `GameEvent` with its seq and no kind, as an older client receives a kind it does not know.
/// Every event the engine emits in play has its message (tested).
pub fn event_to_wire(event: &Event) -> Option<v1::game_event::Kind> {
    use v1::game_event::Kind;
    let seat = |s: &Seat| s.0 as u32;
    Some(match event {
        Event::DealStarted(d) => Kind::DealStarted(Box::new(deal_started_to_wire(d))),
        Event::TurnStarted { seat: s } => Kind::TurnStarted(v1::TurnStarted { seat: seat(s) }),
        Event::RedThreeLaid {
            seat: s,
            card,
            source,
        } => Kind::RedThreeLaid(v1::RedThreeLaid {
            seat: seat(s),
            card: Some(card_to_wire(*card)),
            source: match source {
                RedThreeSource::Dealt => v1::RedThreeSource::Dealt,
                RedThreeSource::Drawn => v1::RedThreeSource::Drawn,
                RedThreeSource::Pile => v1::RedThreeSource::Pile,
            } as i32,
        }),
        Event::Drew {
            seat: s,
            count,
            cards,
        } => Kind::Drew(v1::Drew {
            seat: seat(s),
            count: *count as u32,
            cards: cards
                .as_ref()
                .map(|c| card_list_to_wire(c))
                .unwrap_or_default(),
        }),
        Event::PileTaken {
            seat: s,
            top,
            placed,
            picked_up,
        } => Kind::PileTaken(v1::PileTaken {
            seat: seat(s),
            top: Some(card_to_wire(*top)),
            placed: placed_to_wire(placed),
            picked_up: card_list_to_wire(picked_up),
        }),
        Event::Melded { seat: s, placed } => Kind::Melded(v1::Melded {
            seat: seat(s),
            placed: placed_to_wire(placed),
        }),
        Event::Discarded {
            seat: s,
            card,
            blocks,
            frozen,
        } => Kind::Discarded(v1::Discarded {
            seat: seat(s),
            card: Some(card_to_wire(*card)),
            blocks: *blocks,
            frozen: *frozen,
        }),
        Event::AskedPartner { seat: s, partner } => Kind::AskedPartner(v1::AskedPartner {
            seat: seat(s),
            partner: seat(partner),
        }),
        Event::PartnerAnswered {
            seat: s,
            asker,
            yes,
        } => Kind::PartnerAnswered(v1::PartnerAnswered {
            seat: seat(s),
            asker: seat(asker),
            yes: *yes,
        }),
        Event::Penalty {
            side,
            points,
            reason,
        } => Kind::Penalty(v1::Penalty {
            side: side.0 as u32,
            points: *points,
            reason: reason.to_string(),
        }),
        Event::WentOut {
            seat: s,
            placed,
            discard,
            concealed,
        } => Kind::WentOut(v1::WentOut {
            seat: seat(s),
            placed: placed_to_wire(placed),
            discard: discard.map(card_to_wire),
            concealed: *concealed,
        }),
        Event::PileDeclined { seat: s } => Kind::PileDeclined(v1::PileDeclined { seat: seat(s) }),
        Event::DealEnded(f) => Kind::DealEnded(deal_ended_to_wire(f)),
        Event::MatchEnded { winner, totals } => Kind::MatchEnded(v1::MatchEnded {
            result: Some(result_to_wire(Some(*winner), totals)),
        }),
        _ => return None,
    })
}

// ----- views back into the engine, for bots that play over the network -----

fn rank_from_wire(rank: i32, field: &str) -> Result<Rank, WireError> {
    card_from_wire(
        &v1::Card {
            rank,
            suit: if rank == 15 { 0 } else { 1 },
        },
        field,
    )
    .map(|c| c.rank())
}

fn suit_from_wire(suit: i32, field: &str) -> Result<Suit, WireError> {
    match suit {
        1..=4 => Ok(Suit::ALL[(suit - 1) as usize]),
        s => Err(WireError::new(
            Reason::InvalidEnum,
            field,
            format!("suit {s} is not a suit"),
        )),
    }
}

fn seat_from_wire(seat: u32, field: &str) -> Result<Seat, WireError> {
    u8::try_from(seat)
        .ok()
        .filter(|&s| (s as usize) < canasta_engine::table::MAX_SEATS)
        .map(Seat)
        .ok_or_else(|| {
            WireError::new(
                Reason::InvalidSeat,
                field,
                format!("seat {seat} does not exist"),
            )
        })
}

/// A side number from the wire: refused past the most sides a table has, never cut to a byte
/// (side 256 is not side 0).
fn side_from_wire(side: u32, field: &str) -> Result<canasta_engine::Side, WireError> {
    u8::try_from(side)
        .ok()
        .filter(|&s| (s as usize) < canasta_engine::table::MAX_SEATS)
        .map(canasta_engine::Side)
        .ok_or_else(|| {
            WireError::new(
                Reason::InvalidIndex,
                field,
                format!(
                    "side {side} does not exist: sides are 0 to {}",
                    canasta_engine::table::MAX_SEATS - 1
                ),
            )
        })
}

/// A count the engine keeps in a byte (canastas, red threes): refused past 255, never cut.
fn count_from_wire(count: u32, field: &str) -> Result<u8, WireError> {
    u8::try_from(count).map_err(|_| {
        WireError::new(
            Reason::InvalidIndex,
            field,
            format!("{count} is out of range: a deal holds at most 255"),
        )
    })
}

fn meld_from_wire(m: &v1::TableMeld, field: &str) -> Result<canasta_engine::Meld, WireError> {
    let kind = match v1::MeldKind::try_from(m.kind) {
        Ok(v1::MeldKind::Group) => MeldKind::Group(rank_from_wire(m.rank, field)?),
        Ok(v1::MeldKind::BlackThrees) => MeldKind::BlackThrees,
        Ok(v1::MeldKind::Sequence) => MeldKind::Sequence(suit_from_wire(m.suit, field)?),
        Ok(v1::MeldKind::Wild) => MeldKind::Wild,
        _ => {
            return Err(WireError::new(
                Reason::InvalidEnum,
                field,
                format!("meld kind {} is not a kind", m.kind),
            ));
        }
    };
    Ok(canasta_engine::Meld {
        kind,
        cards: counts_from_wire(&m.cards, field)?,
        creator: seat_from_wire(m.creator_seat, field)?,
    })
}

fn deal_score_from_wire(d: &v1::DealScore) -> Result<DealScore, WireError> {
    let seat = seat_from_wire(d.seat, "last_deal.seat")?;
    let end = match v1::DealEndKind::try_from(d.end) {
        Ok(v1::DealEndKind::WentOut) => DealEnd::WentOut {
            seat,
            concealed: d.concealed,
        },
        Ok(v1::DealEndKind::StockExhausted) => DealEnd::StockExhausted { seat },
        Ok(v1::DealEndKind::LastRedThree) => DealEnd::LastRedThree { seat },
        _ => {
            return Err(WireError::new(
                Reason::InvalidEnum,
                "last_deal.end",
                format!("deal end {} is not a kind", d.end),
            ));
        }
    };
    Ok(DealScore {
        deal: d.deal,
        end,
        sides: d
            .sides
            .iter()
            .map(|s| {
                Ok(SideScore {
                    side: side_from_wire(s.side, "last_deal.sides.side")?.0,
                    melded_cards: s.melded_cards,
                    natural_canastas: count_from_wire(
                        s.natural_canastas,
                        "last_deal.sides.natural_canastas",
                    )?,
                    mixed_canastas: count_from_wire(
                        s.mixed_canastas,
                        "last_deal.sides.mixed_canastas",
                    )?,
                    sambas: count_from_wire(s.sambas, "last_deal.sides.sambas")?,
                    wild_canastas: count_from_wire(
                        s.wild_canastas,
                        "last_deal.sides.wild_canastas",
                    )?,
                    canasta_bonus: s.canasta_bonus,
                    red_threes: count_from_wire(s.red_threes, "last_deal.sides.red_threes")?,
                    red_three_bonus: s.red_three_bonus,
                    going_out_bonus: s.going_out_bonus,
                    cards_in_hand: s.cards_in_hand,
                    penalties: s.penalties,
                    total: s.total,
                    cumulative: s.cumulative,
                })
            })
            .collect::<Result<_, WireError>>()?,
    })
}

/// A view from the wire, back into the engine's form, so that the engine's bots and legality
/// run on the client side exactly as in-process: `rules` are the game's rules.
pub fn view_from_wire(
    view: &v1::GameView,
    rules: canasta_engine::Rules,
) -> Result<View, WireError> {
    use canasta_engine::view::{SeatView as EngineSeat, SideView as EngineSide};
    use canasta_engine::{TurnFlags, Viewer};
    let viewer = match view.viewer_seat {
        Some(s) => Viewer::Seat(seat_from_wire(s, "view.viewer_seat")?),
        None => Viewer::Spectator,
    };
    // A game waiting for players shows no deal: in the engine's form, a deal not begun
    // (nobody to act, no card anywhere), with no phase and no turn on the wire.
    let waiting = view.status == v1::GameStatus::Waiting as i32;
    let phase = match v1::Phase::try_from(view.phase) {
        Ok(v1::Phase::Draw) => Phase::Draw,
        Ok(v1::Phase::Unspecified) if waiting => Phase::Draw,
        Ok(v1::Phase::Play) => Phase::Play,
        Ok(v1::Phase::Answer) => Phase::Answer,
        Ok(v1::Phase::Over) => Phase::Over,
        _ => {
            return Err(WireError::new(
                Reason::InvalidEnum,
                "view.phase",
                format!(
                    "phase {} is not a phase: use PHASE_DRAW, PHASE_PLAY, PHASE_ANSWER or \
                     PHASE_OVER (PHASE_UNSPECIFIED only in a waiting game)",
                    view.phase
                ),
            ));
        }
    };
    let seats = view
        .seats
        .iter()
        .map(|s| {
            let seat = seat_from_wire(s.seat, "view.seats")?;
            let hand = (viewer == Viewer::Seat(seat))
                .then(|| counts_from_wire(&s.hand, "view.seats.hand"))
                .transpose()?;
            let known = counts_from_wire(&s.known, "view.seats.known")?;
            // Known cards are cards of the hand: a view that says otherwise is not one the
            // server sends, and a bot reading it would sample hands that cannot be.
            if known.len() > s.hand_count as usize
                || hand.as_ref().is_some_and(|h| !h.contains(&known))
            {
                return Err(WireError::new(
                    Reason::TooManyCards,
                    "view.seats.known",
                    format!(
                        "seat {} has {} known cards that its hand of {} does not hold: give \
                         known cards from the hand only",
                        s.seat,
                        known.len(),
                        s.hand_count
                    ),
                ));
            }
            Ok(EngineSeat {
                seat,
                side: side_from_wire(s.side, "view.seats.side")?,
                playing: s.playing,
                hand_len: s.hand_count,
                hand,
                known,
                passed: counts_from_wire(&s.passed, "view.seats.passed")?,
                discarded: counts_from_wire(&s.discarded, "view.seats.discarded")?,
                red_threes: counts_from_wire(&s.red_threes, "view.seats.red_threes")?,
                had_turn: s.had_turn,
                melded_before: s.melded_before,
            })
        })
        .collect::<Result<Vec<_>, WireError>>()?;
    let sides = view
        .sides
        .iter()
        .map(|s| {
            Ok(EngineSide {
                side: side_from_wire(s.side, "view.sides.side")?,
                members: s
                    .seats
                    .iter()
                    .map(|&m| seat_from_wire(m, "view.sides.seats"))
                    .collect::<Result<_, _>>()?,
                melds: s
                    .melds
                    .iter()
                    .map(|m| meld_from_wire(m, "view.sides.melds"))
                    .collect::<Result<_, _>>()?,
                melded: s.melded,
                minimum: s.minimum,
                score: s.score,
                penalties: s.penalties,
            })
        })
        .collect::<Result<Vec<_>, WireError>>()?;
    let turn = match view.turn {
        Some(turn) => turn,
        None if waiting => v1::TurnState::default(),
        None => return Err(WireError::missing("view.turn")),
    };
    // As the phase: an unknown state is refused, not read as "not asked".
    let ask = match v1::AskState::try_from(turn.ask) {
        Ok(v1::AskState::NotAsked) => Ask::NotAsked,
        Ok(v1::AskState::Unspecified) if waiting => Ask::NotAsked,
        Ok(v1::AskState::Pending) => Ask::Pending,
        Ok(v1::AskState::Yes) => Ask::Yes,
        Ok(v1::AskState::No) => Ask::No,
        _ => {
            return Err(WireError::new(
                Reason::InvalidEnum,
                "view.turn.ask",
                format!(
                    "ask state {} is not an ask state: use ASK_STATE_NOT_ASKED, \
                     ASK_STATE_PENDING, ASK_STATE_YES or ASK_STATE_NO (ASK_STATE_UNSPECIFIED \
                     only in a waiting game)",
                    turn.ask
                ),
            ));
        }
    };
    let result = view.result.clone().unwrap_or_default();
    Ok(View {
        viewer,
        rules,
        deal: view.deal,
        phase,
        to_act: view
            .to_act
            .map(|s| seat_from_wire(s, "view.to_act"))
            .transpose()?,
        turn_seat: seat_from_wire(view.turn_seat, "view.turn_seat")?,
        dealer: seat_from_wire(view.dealer, "view.dealer")?,
        play_order: view
            .play_order
            .iter()
            .map(|&s| seat_from_wire(s, "view.play_order"))
            .collect::<Result<_, _>>()?,
        seats,
        sides,
        pile: card_list_from_wire(&view.pile, "view.pile")?,
        pile_frozen: view.pile_frozen,
        pile_blocked: view.pile_blocked,
        stock_len: view.stock_count,
        stock: None,
        turn: TurnFlags {
            took_pile: turn.took_pile,
            melded: turn.melded,
            foreign: turn.added_to_other_melds,
            ask,
        },
        last_deal: view
            .last_deal
            .as_ref()
            .map(deal_score_from_wire)
            .transpose()?,
        deals_played: view.deals_played,
        winner: result
            .finished
            .then_some(result.winner_side)
            .flatten()
            .map(|s| side_from_wire(s, "view.result.winner_side"))
            .transpose()?,
    })
}

/// Every card kind of the engine, for tests of the conversions.
pub fn all_card_kinds() -> impl Iterator<Item = Card> {
    (0..CARD_KINDS as u8).filter_map(Card::from_index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use canasta_engine::parse_cards;

    #[test]
    fn every_card_round_trips() {
        for card in all_card_kinds() {
            let wire = card_to_wire(card);
            assert_eq!(card_from_wire(&wire, "c"), Ok(card), "{card}");
        }
    }

    #[test]
    fn malformed_cards_are_refused() {
        let bad = [
            v1::Card { rank: 0, suit: 1 },
            v1::Card { rank: 1, suit: 1 },
            v1::Card { rank: 16, suit: 1 },
            v1::Card { rank: -3, suit: 1 },
            v1::Card { rank: 13, suit: 0 },
            v1::Card { rank: 13, suit: 5 },
            v1::Card { rank: 15, suit: 2 },
        ];
        for c in bad {
            let e = card_from_wire(&c, "x").unwrap_err();
            assert_eq!(e.reason, Reason::InvalidCard, "{c:?}");
        }
    }

    // An error names the field down to the card: the list item's path is built on the error.
    #[test]
    fn errors_name_the_card_and_the_meld_they_are_in() {
        let good = v1::Card { rank: 5, suit: 1 };
        let bad = v1::Card { rank: 1, suit: 1 };
        let meld = |index: Option<u32>, cards: Vec<v1::Card>| v1::MeldSpec {
            meld_index: index,
            cards,
        };
        let action = |melds: Vec<v1::MeldSpec>| v1::Action {
            kind: Some(v1::action::Kind::Meld(v1::MeldAction { melds })),
        };
        let e = action_from_wire(&action(vec![
            meld(None, vec![good, good, good]),
            meld(Some(0), vec![good, good, bad]),
        ]))
        .unwrap_err();
        assert_eq!(
            (e.reason, e.field.as_str()),
            (Reason::InvalidCard, "action.meld.melds[1].cards[2]")
        );
        let e = action_from_wire(&action(vec![meld(Some(300), vec![good])])).unwrap_err();
        assert_eq!(
            (e.reason, e.field.as_str()),
            (Reason::InvalidIndex, "action.meld.melds[0].meld_index")
        );
        let e = card_list_from_wire(&[good, good, good, bad], "view.pile").unwrap_err();
        assert_eq!(e.field, "view.pile[3]");
        let e = counts_from_wire(&[bad], "hand").unwrap_err();
        assert_eq!(e.field, "hand[0]");
    }

    // The packed counts stop at 15 of a suited card: a 16th copy was dropped without a word,
    // and the action read was another than the one sent.
    #[test]
    fn a_list_with_more_copies_of_a_card_than_counts_hold_is_refused() {
        let four = card_to_wire(Card::new(Rank::Four, Suit::Spades));
        let counts = counts_from_wire(&[four; 15], "cards").unwrap();
        assert_eq!(counts.count(Card::new(Rank::Four, Suit::Spades)), 15);
        let mut list = vec![card_to_wire(Card::JOKER); 3];
        list.extend([four; 16]);
        let e = counts_from_wire(&list, "action.meld.melds[0].cards").unwrap_err();
        assert_eq!(
            (e.reason, e.field.as_str()),
            (Reason::TooManyCards, "action.meld.melds[0].cards")
        );
        assert!(e.message.contains("16 of 4♠"), "{e}");
        // Jokers count to 255, more than a list may hold.
        let jokers = counts_from_wire(&[card_to_wire(Card::JOKER); MAX_CARDS], "cards").unwrap();
        assert_eq!(jokers.len(), MAX_CARDS);
        // Where counts come in through an action.
        let meld = v1::Action {
            kind: Some(v1::action::Kind::Meld(v1::MeldAction {
                melds: vec![v1::MeldSpec {
                    meld_index: None,
                    cards: vec![four; 16],
                }],
            })),
        };
        let e = action_from_wire(&meld).unwrap_err();
        assert_eq!(
            (e.reason, e.field.as_str()),
            (Reason::TooManyCards, "action.meld.melds[0].cards")
        );
    }

    #[test]
    fn actions_round_trip() {
        let cards = |s: &str| CardCounts::from_cards(parse_cards(s).unwrap());
        let actions = [
            Action::DrawStock,
            Action::TakePile {
                top: TopMeld {
                    target: MeldTarget::New,
                    cards: cards("KS KH"),
                },
                melds: [MeldSpec::new_meld(cards("AS AH Jk"))]
                    .into_iter()
                    .collect(),
            },
            Action::Meld {
                melds: [MeldSpec::add_to(3, cards("7C"))].into_iter().collect(),
            },
            Action::Discard {
                card: "3S".parse().unwrap(),
            },
            Action::GoOut {
                melds: MeldBatch::new(),
                discard: Some("4D".parse().unwrap()),
            },
            Action::AskPartner,
            Action::AnswerPartner { yes: true },
            Action::DeclinePile,
        ];
        for a in actions {
            assert_eq!(action_from_wire(&action_to_wire(&a)), Ok(a.clone()), "{a}");
        }
    }

    #[test]
    fn malformed_actions_are_refused() {
        assert_eq!(
            action_from_wire(&v1::Action { kind: None })
                .unwrap_err()
                .reason,
            Reason::MissingField
        );
        let discard = v1::Action {
            kind: Some(v1::action::Kind::Discard(v1::DiscardAction { card: None })),
        };
        assert_eq!(
            action_from_wire(&discard).unwrap_err().field,
            "action.discard.card"
        );
        let huge = v1::Action {
            kind: Some(v1::action::Kind::Meld(v1::MeldAction {
                melds: vec![v1::MeldSpec {
                    meld_index: Some(300),
                    cards: vec![],
                }],
            })),
        };
        assert_eq!(
            action_from_wire(&huge).unwrap_err().reason,
            Reason::InvalidIndex
        );
        let many = v1::Action {
            kind: Some(v1::action::Kind::Meld(v1::MeldAction {
                melds: vec![v1::MeldSpec {
                    meld_index: None,
                    cards: vec![card_to_wire(Card::JOKER); 300],
                }],
            })),
        };
        assert_eq!(
            action_from_wire(&many).unwrap_err().reason,
            Reason::TooManyCards
        );
    }

    #[test]
    fn views_come_back_from_the_wire_with_the_same_legal_choices() {
        use canasta_engine::bot::RandomBot;
        use canasta_engine::{Game, Setup, Viewer};
        for preset in Preset::ALL {
            let mut game = Game::new(&Setup::seeded(RuleSpec::new(preset, 4), 9)).unwrap();
            let mut bot = RandomBot::new(2);
            for _ in 0..300 {
                let Some(seat) = game.to_act() else { break };
                let view = game.view(Viewer::Seat(seat));
                let meta = ViewMeta {
                    game_id: "g",
                    seq: 1,
                    status: v1::GameStatus::Playing,
                    names: &[],
                    occupied: &[],
                    result: result_to_wire(game.winner(), game.scores()),
                };
                let back = view_from_wire(&view_to_wire(&view, &meta), *game.rules()).unwrap();
                assert_eq!(back, view, "{preset}");
                let legal = view.legal().unwrap();
                assert_eq!(back.legal().unwrap().to_vec(), legal.to_vec());
                let a = bot.pick(&legal);
                game.apply(seat, &a).unwrap();
            }
        }
    }

    // A seat's known cards are cards of its hand: a view listing more of them than the hand
    // holds, or, in the seat's own view, cards its hand does not hold, is refused, naming the
    // field; known cards within the hand are kept.
    #[test]
    fn known_cards_outside_the_hand_are_refused() {
        use canasta_engine::{Game, Setup, Viewer};
        let game = Game::new(&Setup::seeded(RuleSpec::new(Preset::Official, 4), 3)).unwrap();
        let me = game.to_act().unwrap().index();
        let meta = ViewMeta {
            game_id: "g",
            seq: 1,
            status: v1::GameStatus::Playing,
            names: &[],
            occupied: &[],
            result: result_to_wire(game.winner(), game.scores()),
        };
        let wire = view_to_wire(&game.view(Viewer::Seat(Seat(me as u8))), &meta);
        let held = game.hand(Seat(me as u8));
        let mut kept = wire.clone();
        kept.seats[me].known = vec![card_to_wire(held.iter().next().unwrap())];
        let back = view_from_wire(&kept, *game.rules()).unwrap();
        assert_eq!(back.seats[me].known.len(), 1);
        let missing = (0..53)
            .filter_map(Card::from_index)
            .find(|&c| held.count(c) == 0)
            .unwrap();
        let mut not_held = wire.clone();
        not_held.seats[me].known = vec![card_to_wire(missing)];
        let other = (me + 1) % 4;
        let mut too_many = wire;
        too_many.seats[other].known =
            vec![card_to_wire(missing); too_many.seats[other].hand_count as usize + 1];
        for bad in [not_held, too_many] {
            let e = view_from_wire(&bad, *game.rules()).unwrap_err();
            assert_eq!(
                (e.reason, e.field.as_str()),
                (Reason::TooManyCards, "view.seats.known")
            );
        }
    }

    // A game waiting for players is dealt already, but its view shows no card and nothing of
    // the deal to anyone (the referee's view included: the wire has no viewer who may see it),
    // and still reads back, as a deal where nobody may act.
    #[test]
    fn a_waiting_game_is_shown_without_its_deal_to_every_viewer() {
        use canasta_engine::{Game, Seat, Setup, Viewer};
        for preset in Preset::ALL {
            let game = Game::new(&Setup::seeded(RuleSpec::new(preset, 4), 9)).unwrap();
            let names = ["a".to_string(), String::new(), String::new(), String::new()];
            let meta = ViewMeta {
                game_id: "g",
                seq: 1,
                status: v1::GameStatus::Waiting,
                names: &names,
                occupied: &[true, false, false, false],
                result: result_to_wire(game.winner(), game.scores()),
            };
            let viewers = (0..4).map(|s| Viewer::Seat(Seat(s)));
            for viewer in viewers.chain([Viewer::Spectator, Viewer::Referee]) {
                let wire = view_to_wire(&game.view(viewer), &meta);
                assert_eq!(wire.status, v1::GameStatus::Waiting as i32);
                assert_eq!(wire.phase, v1::Phase::Unspecified as i32);
                assert_eq!((wire.to_act, wire.dealer, wire.turn_seat), (None, 0, 0));
                assert!(wire.play_order.is_empty() && wire.pile.is_empty());
                assert_eq!(
                    (wire.stock_count, wire.turn, &wire.result),
                    (0, None, &None)
                );
                assert_eq!(wire.seats.len(), 4);
                assert_eq!(
                    (wire.seats[0].display_name.as_str(), wire.seats[0].occupied),
                    ("a", true)
                );
                for s in &wire.seats {
                    assert!(
                        s.hand.is_empty() && s.red_threes.is_empty() && s.known.is_empty(),
                        "{preset} {viewer:?}"
                    );
                    assert_eq!((s.hand_count, s.playing), (0, false));
                }
                assert_eq!(wire.sides.len(), 2);
                assert!(
                    wire.sides
                        .iter()
                        .all(|s| s.melds.is_empty() && s.seats.len() == 2)
                );
                let back = view_from_wire(&wire, *game.rules()).unwrap();
                assert_eq!(back.to_act, None);
                assert!(back.legal().is_none());
            }
        }
    }

    /// The wire view of seat 0 of a game of official rules for four, a deal played to its end
    /// by random bots (so that it holds a score report), and the game's rules.
    fn wire_view_after_a_deal() -> (v1::GameView, canasta_engine::Rules) {
        use canasta_engine::bot::RandomBot;
        use canasta_engine::{Game, Seat, Setup, Viewer};
        let mut game = Game::new(&Setup::seeded(RuleSpec::new(Preset::Official, 4), 3)).unwrap();
        let mut bot = RandomBot::new(3);
        while game.history().is_empty() {
            let seat = game.to_act().unwrap();
            let action = bot.pick(&game.legal().unwrap());
            game.apply(seat, &action).unwrap();
        }
        let meta = ViewMeta {
            game_id: "g",
            seq: 1,
            status: v1::GameStatus::Playing,
            names: &[],
            occupied: &[],
            result: result_to_wire(Some(canasta_engine::Side(1)), game.scores()),
        };
        let wire = view_to_wire(&game.view(Viewer::Seat(Seat(0))), &meta);
        assert!(view_from_wire(&wire, *game.rules()).is_ok());
        (wire, *game.rules())
    }

    // A side or a count past what the engine's byte holds was cut to that byte: side 256 was
    // read as side 0, and a view of another table than the one sent came out.
    #[test]
    fn numbers_past_a_byte_are_refused_not_cut() {
        let (wire, rules) = wire_view_after_a_deal();
        let refused = |edit: &dyn Fn(&mut v1::GameView)| {
            let mut w = wire.clone();
            edit(&mut w);
            let e = view_from_wire(&w, rules).unwrap_err();
            (e.reason, e.field)
        };
        let expect = |reason: Reason, field: &str| (reason, field.to_string());
        assert_eq!(
            refused(&|w| w.seats[2].side = 256),
            expect(Reason::InvalidIndex, "view.seats.side")
        );
        assert_eq!(
            refused(&|w| w.sides[1].side = 257),
            expect(Reason::InvalidIndex, "view.sides.side")
        );
        // Within a byte, but no table has that many sides.
        assert_eq!(
            refused(&|w| w.sides[1].side = 6),
            expect(Reason::InvalidIndex, "view.sides.side")
        );
        assert_eq!(
            refused(&|w| w.result.as_mut().unwrap().winner_side = Some(256)),
            expect(Reason::InvalidIndex, "view.result.winner_side")
        );
        fn score(w: &mut v1::GameView) -> &mut v1::SideScore {
            &mut w.last_deal.as_mut().unwrap().sides[0]
        }
        assert_eq!(
            refused(&|w| score(w).side = 1 << 16),
            expect(Reason::InvalidIndex, "last_deal.sides.side")
        );
        assert_eq!(
            refused(&|w| score(w).natural_canastas = 256),
            expect(Reason::InvalidIndex, "last_deal.sides.natural_canastas")
        );
        assert_eq!(
            refused(&|w| score(w).mixed_canastas = 300),
            expect(Reason::InvalidIndex, "last_deal.sides.mixed_canastas")
        );
        assert_eq!(
            refused(&|w| score(w).sambas = u32::MAX),
            expect(Reason::InvalidIndex, "last_deal.sides.sambas")
        );
        assert_eq!(
            refused(&|w| score(w).wild_canastas = 512),
            expect(Reason::InvalidIndex, "last_deal.sides.wild_canastas")
        );
        assert_eq!(
            refused(&|w| score(w).red_threes = 259),
            expect(Reason::InvalidIndex, "last_deal.sides.red_threes")
        );
        // The largest values that fit are kept as sent.
        let mut w = wire.clone();
        w.sides[1].side = 5;
        score(&mut w).natural_canastas = 255;
        let view = view_from_wire(&w, rules).unwrap();
        assert_eq!(view.sides[1].side, canasta_engine::Side(5));
        assert_eq!(view.last_deal.unwrap().sides[0].natural_canastas, 255);
    }

    // An unknown ask state was read as "not asked" where an unknown phase was refused: a bot
    // then believed it could ask its partner while the server had it waiting for an answer.
    #[test]
    fn an_unknown_ask_state_is_refused_as_an_unknown_phase_is() {
        let (wire, rules) = wire_view_after_a_deal();
        let refusal = |edit: &dyn Fn(&mut v1::GameView)| {
            let mut w = wire.clone();
            edit(&mut w);
            view_from_wire(&w, rules).unwrap_err()
        };
        let phase = refusal(&|w| w.phase = 9);
        let ask = refusal(&|w| w.turn.as_mut().unwrap().ask = 9);
        assert_eq!(
            (phase.reason, phase.field.as_str()),
            (Reason::InvalidEnum, "view.phase")
        );
        assert_eq!(
            (ask.reason, ask.field.as_str()),
            (Reason::InvalidEnum, "view.turn.ask")
        );
        assert!(
            phase
                .message
                .starts_with("phase 9 is not a phase: use PHASE_DRAW")
        );
        assert!(
            ask.message
                .starts_with("ask state 9 is not an ask state: use ASK_STATE_NOT_ASKED")
        );
        // Unspecified, as the phase, only where a waiting game shows no turn.
        for (edit, field) in [
            (
                &(|w: &mut v1::GameView| w.phase = 0) as &dyn Fn(&mut v1::GameView),
                "view.phase",
            ),
            (
                &|w: &mut v1::GameView| w.turn.as_mut().unwrap().ask = 0,
                "view.turn.ask",
            ),
            (
                &|w: &mut v1::GameView| w.turn.as_mut().unwrap().ask = -1,
                "view.turn.ask",
            ),
        ] {
            let e = refusal(edit);
            assert_eq!((e.reason, e.field.as_str()), (Reason::InvalidEnum, field));
        }
        let e = refusal(&|w| w.turn = None);
        assert_eq!(
            (e.reason, e.field.as_str()),
            (Reason::MissingField, "view.turn")
        );
        // Every listed state reads back as sent.
        for (state, ask) in [
            (v1::AskState::NotAsked, Ask::NotAsked),
            (v1::AskState::Pending, Ask::Pending),
            (v1::AskState::Yes, Ask::Yes),
            (v1::AskState::No, Ask::No),
        ] {
            let mut w = wire.clone();
            w.turn.as_mut().unwrap().ask = state as i32;
            assert_eq!(view_from_wire(&w, rules).unwrap().turn.ask, ask);
        }
    }

    #[test]
    fn rules_from_wire_refuses_bad_options() {
        let mut r = v1::RuleSet {
            preset: v1::Preset::Official as i32,
            player_count: 4,
            options: Default::default(),
        };
        assert!(rules_from_wire(&r).is_ok());
        r.options.insert("nope".into(), "1".into());
        assert_eq!(
            rules_from_wire(&r).unwrap_err().reason,
            Reason::UnknownOption
        );
        r.options.clear();
        r.preset = 9;
        assert_eq!(rules_from_wire(&r).unwrap_err().reason, Reason::InvalidEnum);
    }

    // A fuzzer's input (fuzz/regressions/convert/crash-7daa9ba8…): a view whose play order
    // names a seat the view does not hold converted fine, and reading its choices indexed
    // past the seats.
    #[test]
    fn a_view_whose_play_order_names_a_missing_seat_does_not_panic() {
        use prost::Message;
        let bytes = [
            0x5a, 0x00, 0x30, 0x04, 0x62, 0x00, 0x20, 0x00, 0x50, 0x01, 0x38, 0x00,
        ];
        let wire = v1::GameView::decode(&bytes[..]).expect("the fuzzer's view decodes");
        let rules =
            canasta_engine::Rules::new(&RuleSpec::new(Preset::Official, 4)).expect("official");
        if let Ok(view) = view_from_wire(&wire, rules) {
            let _ = view.legal().map(|l| l.check(&Action::DrawStock));
        }
    }
}
