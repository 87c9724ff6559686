//! The fixed encodings of the environments: actions as integer ids with a mask, and a seat's
//! observation as one vector of numbers (docs/python.md tables both).
//!
//! # Action ids
//!
//! | ids | action |
//! |---|---|
//! | 0 | draw from the stock |
//! | 1 | decline the pile (stock empty) |
//! | 2 | ask the partner "may I go out?" |
//! | 3, 4 | answer yes, answer no |
//! | 5 + k | discard card kind k (`k` = [`Card::index`], 0 to 52) |
//! | 58 + 53 m + k | add one card of kind k to the side's meld m, for m < [`MAX_MELDS`] |
//! | [`OPTION_BASE`] + j | option slot j: the j-th legal action of no fixed id, in the engine's canonical order |
//!
//! The legal actions are the engine's canonical list ([`LegalChoices::actions_up_to`]): every
//! legal turn can be played as a sequence of them. Those of a fixed shape get their fixed id;
//! the others (taking the pile, new melds, initial melds of several melds, going out, additions
//! to a meld numbered [`MAX_MELDS`] or more) fill the [`OPTION_SLOTS`] option slots in the
//! list's order, and the observation describes each slot (the cards it takes from the hand).
//! Options beyond the last slot have no id this turn: [`Listing::unreachable`] counts them,
//! and the engine's API (`Game.apply`) plays them. A listing cut short by the engine's bound on
//! its search (a huge hand before the side's initial meld) is completed for the fixed ids by
//! checking each of them, so the fixed part of the mask is always exact.

use canasta_engine::card::CARD_KINDS;
use canasta_engine::legal::LegalChoices;
use canasta_engine::meld::{CanastaKind, MeldKind};
use canasta_engine::view::View;
use canasta_engine::{Action, Ask, Card, CardCounts, Game, MeldSpec, MeldTarget, Phase, Seat};

/// Card kinds: 52 cards and the joker ([`Card::index`]).
pub const KINDS: usize = CARD_KINDS;
/// Draw from the stock.
pub const DRAW: u32 = 0;
/// Decline the pile.
pub const DECLINE: u32 = 1;
/// Ask the partner.
pub const ASK: u32 = 2;
/// Answer yes.
pub const YES: u32 = 3;
/// Answer no.
pub const NO: u32 = 4;
/// The first discard id.
pub const DISCARD_BASE: u32 = 5;
/// The first id of one card added to a meld.
pub const ADD_BASE: u32 = DISCARD_BASE + KINDS as u32;
/// Melds of a side that one-card additions have fixed ids for (and the observation shows).
pub const MAX_MELDS: usize = 32;
/// The first option slot's id.
pub const OPTION_BASE: u32 = ADD_BASE + (KINDS * MAX_MELDS) as u32;
/// Option slots.
pub const OPTION_SLOTS: usize = 128;
/// The size of the action space.
pub const ACTION_COUNT: u32 = OPTION_BASE + OPTION_SLOTS as u32;
/// Most actions listed per position: beyond it (a huge hand before the initial meld) the list
/// is cut and the fixed ids are checked one by one.
pub const LIST_MAX: usize = 1 << 14;

/// The fixed id of an action of a fixed shape, whether legal or not.
pub fn fixed_id(action: &Action) -> Option<u32> {
    match action {
        Action::DrawStock => Some(DRAW),
        Action::DeclinePile => Some(DECLINE),
        Action::AskPartner => Some(ASK),
        Action::AnswerPartner { yes: true } => Some(YES),
        Action::AnswerPartner { yes: false } => Some(NO),
        Action::Discard { card } => Some(DISCARD_BASE + card.index() as u32),
        Action::Meld { melds } if melds.len() == 1 => {
            let spec = &melds[0];
            match spec.target {
                MeldTarget::Existing(m) if (m as usize) < MAX_MELDS && spec.cards.len() == 1 => {
                    let card = spec.cards.iter().next()?;
                    Some(ADD_BASE + (m as usize * KINDS + card.index()) as u32)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The action of a fixed id (`None` for an option slot or an id past the space).
pub fn fixed_action(id: u32) -> Option<Action> {
    Some(match id {
        DRAW => Action::DrawStock,
        DECLINE => Action::DeclinePile,
        ASK => Action::AskPartner,
        YES => Action::AnswerPartner { yes: true },
        NO => Action::AnswerPartner { yes: false },
        _ if (DISCARD_BASE..ADD_BASE).contains(&id) => Action::Discard {
            card: Card::from_index((id - DISCARD_BASE) as u8)?,
        },
        _ if (ADD_BASE..OPTION_BASE).contains(&id) => {
            let i = (id - ADD_BASE) as usize;
            let card = Card::from_index((i % KINDS) as u8)?;
            Action::Meld {
                melds: [MeldSpec::add_to(
                    (i / KINDS) as u8,
                    CardCounts::from_cards([card]),
                )]
                .into_iter()
                .collect(),
            }
        }
        _ => return None,
    })
}

/// The legal actions of one position and their ids.
#[derive(Default, Debug)]
pub struct Listing {
    /// The canonical list (completed with the legal fixed-id actions if it was cut).
    pub actions: Vec<Action>,
    /// The id of each action of `actions`, `None` for an option past the last slot.
    pub ids: Vec<Option<u32>>,
    /// The index in `actions` of each option slot's action, slot by slot.
    pub slots: Vec<usize>,
    /// The ids of the legal actions that have one, in the list's order.
    pub legal_ids: Vec<u32>,
    /// Options past the last slot: legal actions with no id in this position.
    pub unreachable: usize,
    /// The engine listed every canonical action (the list was not cut).
    pub complete: bool,
}

impl Listing {
    /// Lists the choices `legal` of a game whose seat to act belongs to a side with `melds`
    /// melds.
    pub fn fill(&mut self, legal: &LegalChoices<'_>, melds: usize) {
        self.actions.clear();
        self.ids.clear();
        self.slots.clear();
        self.legal_ids.clear();
        self.unreachable = 0;
        self.complete = legal.actions_up_to(&mut self.actions, LIST_MAX);
        if !self.complete {
            self.complete_fixed(legal, melds);
        }
        for (i, action) in self.actions.iter().enumerate() {
            let id = match fixed_id(action) {
                Some(id) => Some(id),
                None if self.slots.len() < OPTION_SLOTS => {
                    self.slots.push(i);
                    Some(OPTION_BASE + (self.slots.len() - 1) as u32)
                }
                None => {
                    self.unreachable += 1;
                    None
                }
            };
            self.ids.push(id);
            if let Some(id) = id {
                self.legal_ids.push(id);
            }
        }
    }

    /// Adds every legal action of a fixed id that a cut list lacks, checked one by one.
    fn complete_fixed(&mut self, legal: &LegalChoices<'_>, melds: usize) {
        let mut have = vec![false; OPTION_BASE as usize];
        for a in &self.actions {
            if let Some(id) = fixed_id(a) {
                have[id as usize] = true;
            }
        }
        let hand = *legal.hand();
        let mut candidates: Vec<u32> = vec![DRAW, DECLINE, ASK, YES, NO];
        for (card, _) in hand.iter_kinds() {
            candidates.push(DISCARD_BASE + card.index() as u32);
            for m in 0..melds.min(MAX_MELDS) {
                candidates.push(ADD_BASE + (m * KINDS + card.index()) as u32);
            }
        }
        for id in candidates {
            if have[id as usize] {
                continue;
            }
            let action = fixed_action(id).expect("a fixed id");
            if legal.check(&action).is_ok() {
                self.actions.push(action);
            }
        }
    }

    /// The legal action of an option slot, or the action of a fixed id (legal or not).
    pub fn action_of(&self, id: u32) -> Option<Action> {
        if id >= OPTION_BASE {
            let slot = (id - OPTION_BASE) as usize;
            return self.slots.get(slot).map(|&i| self.actions[i].clone());
        }
        fixed_action(id)
    }

    /// The id of an action: its fixed id, or the slot it holds in this position.
    pub fn id_of(&self, action: &Action) -> Option<u32> {
        fixed_id(action).or_else(|| {
            self.slots
                .iter()
                .position(|&i| self.actions[i] == *action)
                .map(|j| OPTION_BASE + j as u32)
        })
    }
}

/// The observation's fields, in order: name, shape (rows, columns; a vector has one row).
pub struct Layout {
    /// Seats at the table.
    pub players: usize,
    /// Sides.
    pub sides: usize,
    /// Every field with its offset.
    pub fields: Vec<(&'static str, usize, [usize; 3])>,
    /// The whole length.
    pub len: usize,
}

/// Values per seat in the `seats` field.
pub const SEAT_VALUES: usize = 9;
/// Values per side in the `sides` field.
pub const SIDE_VALUES: usize = 6;
/// Values of the `table` field.
pub const TABLE_VALUES: usize = 16;
/// Values per meld in `meld_info`.
pub const MELD_INFO_VALUES: usize = 3;
/// Values per slot in `option_info`.
pub const OPTION_INFO_VALUES: usize = 6;

impl Layout {
    /// The layout for a table of `players` seats in `sides` sides.
    pub fn new(players: usize, sides: usize) -> Layout {
        let shapes: [(&'static str, [usize; 3]); 13] = [
            ("hand", [1, 1, KINDS]),
            ("known", [1, players, KINDS]),
            ("passed", [1, players, KINDS]),
            ("discarded", [1, players, KINDS]),
            ("pile", [1, 1, KINDS]),
            ("pile_top", [1, 1, KINDS]),
            ("table", [1, 1, TABLE_VALUES]),
            ("seats", [1, players, SEAT_VALUES]),
            ("sides", [1, sides, SIDE_VALUES]),
            ("melds", [sides, MAX_MELDS, KINDS]),
            ("meld_info", [sides, MAX_MELDS, MELD_INFO_VALUES]),
            ("options", [1, OPTION_SLOTS, KINDS]),
            ("option_info", [1, OPTION_SLOTS, OPTION_INFO_VALUES]),
        ];
        let mut fields = Vec::new();
        let mut offset = 0;
        for (name, shape) in shapes {
            fields.push((name, offset, shape));
            offset += shape.iter().product::<usize>();
        }
        Layout {
            players,
            sides,
            fields,
            len: offset,
        }
    }

    fn offset(&self, name: &str) -> usize {
        self.fields
            .iter()
            .find(|f| f.0 == name)
            .map(|f| f.1)
            .expect("a field of the layout")
    }
}

fn put_counts(out: &mut [f32], cards: &CardCounts) {
    for (card, n) in cards.iter_kinds() {
        out[card.index()] = f32::from(n);
    }
}

fn canasta_code(kind: Option<CanastaKind>) -> f32 {
    match kind {
        None => 0.0,
        Some(CanastaKind::Natural) => 1.0,
        Some(CanastaKind::Mixed) => 2.0,
        Some(CanastaKind::Samba) => 3.0,
        Some(CanastaKind::WildJokers) => 4.0,
        Some(CanastaKind::WildDeuces) => 5.0,
        Some(CanastaKind::WildMixed) => 6.0,
        // A kind of a newer engine: a canasta all the same.
        Some(_) => 7.0,
    }
}

fn meld_kind_code(kind: MeldKind) -> f32 {
    match kind {
        MeldKind::Group(_) => 1.0,
        MeldKind::BlackThrees => 2.0,
        MeldKind::Sequence(_) => 3.0,
        MeldKind::Wild => 4.0,
        _ => 5.0,
    }
}

/// Writes the observation of the seat `view` belongs to (a seat's view: what that seat may
/// see, and nothing else) into `out`, zeroed first. `listing` describes the option slots when
/// the seat is the one to act.
pub fn observe(layout: &Layout, view: &View, listing: Option<&Listing>, out: &mut [f32]) {
    out.fill(0.0);
    let canasta_engine::Viewer::Seat(me) = view.viewer else {
        // Only a seat's view is encoded; a spectator's observation is left empty.
        return;
    };
    let players = layout.players;
    let sides = layout.sides;
    let rel_seat = |s: Seat| (s.index() + players - me.index()) % players;
    let my_side = view.seats.get(me.index()).map_or(0, |s| s.side.index());
    let rel_side = |s: usize| (s + sides - my_side) % sides;

    if let Some(hand) = view.seats.get(me.index()).and_then(|s| s.hand.as_ref()) {
        let o = layout.offset("hand");
        put_counts(&mut out[o..o + KINDS], hand);
    }
    let o = layout.offset("pile");
    for card in &view.pile {
        out[o + card.index()] += 1.0;
    }
    if let Some(top) = view.pile.last() {
        out[layout.offset("pile_top") + top.index()] = 1.0;
    }
    let t = layout.offset("table");
    let phase = match view.phase {
        Phase::Draw => 0,
        Phase::Play => 1,
        Phase::Answer => 2,
        _ => 3,
    };
    let ask = match view.turn.ask {
        Ask::NotAsked => 0,
        Ask::Pending => 1,
        Ask::Yes => 2,
        Ask::No => 3,
    };
    let table = &mut out[t..t + TABLE_VALUES];
    table[0] = view.pile.len() as f32;
    table[1] = f32::from(u8::from(view.pile_frozen));
    table[2] = f32::from(u8::from(view.pile_blocked));
    table[3] = view.stock_len as f32;
    table[4 + phase] = 1.0;
    table[8] = f32::from(u8::from(view.turn.took_pile));
    table[9] = f32::from(u8::from(view.turn.melded));
    table[10] = f32::from(u8::from(view.turn.foreign));
    table[11 + ask] = 1.0;
    table[15] = view.deal as f32;

    // What every seat knows of each hand (picked up with the pile, kept from the cut), and
    // what each hand's player showed of it: the pile's top card it passed at its last draw,
    // the cards it discarded this deal. All public, the same in every seat's view.
    let (ok, op, od) = (
        layout.offset("known"),
        layout.offset("passed"),
        layout.offset("discarded"),
    );
    for s in &view.seats {
        if s.seat.index() < players {
            let r = rel_seat(s.seat) * KINDS;
            put_counts(&mut out[ok + r..ok + r + KINDS], &s.known);
            put_counts(&mut out[op + r..op + r + KINDS], &s.passed);
            put_counts(&mut out[od + r..od + r + KINDS], &s.discarded);
        }
    }
    let o = layout.offset("seats");
    for s in &view.seats {
        if s.seat.index() >= players {
            continue;
        }
        let row = &mut out[o + rel_seat(s.seat) * SEAT_VALUES..][..SEAT_VALUES];
        row[0] = s.hand_len as f32;
        row[1] = f32::from(s.red_threes.red_threes());
        row[2] = f32::from(u8::from(s.had_turn));
        row[3] = f32::from(u8::from(s.melded_before));
        row[4] = f32::from(u8::from(s.playing));
        row[5] = f32::from(u8::from(view.to_act == Some(s.seat)));
        row[6] = f32::from(u8::from(view.turn_seat == s.seat));
        row[7] = f32::from(u8::from(view.dealer == s.seat));
        row[8] = rel_side(s.side.index()) as f32;
    }
    let o = layout.offset("sides");
    let om = layout.offset("melds");
    let oi = layout.offset("meld_info");
    for side in &view.sides {
        let r = rel_side(side.side.index());
        if r >= sides {
            continue;
        }
        let row = &mut out[o + r * SIDE_VALUES..][..SIDE_VALUES];
        row[0] = side.score as f32;
        row[1] = f32::from(u8::from(side.melded));
        row[2] = side.minimum as f32;
        row[3] = side.penalties as f32;
        row[4] = side.melds.len() as f32;
        row[5] = side.melds.iter().filter(|m| m.is_canasta()).count() as f32;
        for (m, meld) in side.melds.iter().take(MAX_MELDS).enumerate() {
            let at = om + (r * MAX_MELDS + m) * KINDS;
            put_counts(&mut out[at..at + KINDS], &meld.cards);
            let info = &mut out[oi + (r * MAX_MELDS + m) * MELD_INFO_VALUES..][..MELD_INFO_VALUES];
            info[0] = 1.0;
            info[1] = canasta_code(meld.canasta());
            info[2] = meld_kind_code(meld.kind);
        }
    }
    let Some(listing) = listing else { return };
    if view.to_act != Some(me) {
        return;
    }
    let oc = layout.offset("options");
    let oi = layout.offset("option_info");
    for (j, &i) in listing.slots.iter().enumerate() {
        let (kind, specs, discard, target): (f32, &[MeldSpec], Option<Card>, f32) =
            match &listing.actions[i] {
                Action::TakePile { top, melds } => {
                    let target = match top.target {
                        MeldTarget::New => 0.0,
                        MeldTarget::Existing(m) => f32::from(m) + 1.0,
                    };
                    // The top card's companions from the hand count with the melds'.
                    let at = oc + j * KINDS;
                    put_counts(&mut out[at..at + KINDS], &top.cards);
                    (1.0, melds, None, target)
                }
                Action::Meld { melds } => (2.0, melds, None, 0.0),
                Action::GoOut { melds, discard } => (3.0, melds, *discard, 0.0),
                // Only the actions above have no fixed id.
                _ => (0.0, &[], None, 0.0),
            };
        let row = &mut out[oc + j * KINDS..][..KINDS];
        let mut new = 0.0;
        let mut added = 0.0;
        for spec in specs {
            for (card, n) in spec.cards.iter_kinds() {
                row[card.index()] += f32::from(n);
            }
            match spec.target {
                MeldTarget::New => new += 1.0,
                MeldTarget::Existing(_) => added += 1.0,
            }
        }
        if let Some(d) = discard {
            row[d.index()] += 1.0;
        }
        let info = &mut out[oi + j * OPTION_INFO_VALUES..][..OPTION_INFO_VALUES];
        info[0] = 1.0;
        info[1] = kind;
        info[2] = new;
        info[3] = added;
        info[4] = discard.map_or(0.0, |d| d.index() as f32 + 1.0);
        info[5] = target;
    }
}

/// The seat a game waits for, and the number of melds of its side (for [`Listing::fill`]).
pub fn melds_of_actor(game: &Game) -> usize {
    game.to_act()
        .map_or(0, |s| game.melds(game.table().side_of(s)).len())
}
