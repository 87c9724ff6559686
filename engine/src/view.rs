//! Redaction: the one place that decides what a seat, a spectator or the referee may see.
//!
//! A seat sees its own hand and every public fact: melds, red threes, the whole pile (R-PILE-7),
//! the number of cards in each hand and in the stock, scores, whose turn it is and the phase.
//! It never sees another hand or the stock's order. A spectator sees the public facts only; the
//! referee sees everything. Views ([`Game::view`]) and events ([`redact`]) both go through here.
//! When a deal ends, its hands are shown to everyone, as cards are counted at a real table.

use smallvec::SmallVec;

use crate::card::{Card, CardCounts};
use crate::event::Event;
use crate::game::{Game, Phase};
use crate::legal::{Ctx, LegalChoices, TurnFlags};
use crate::meld::Meld;
use crate::rules::Rules;
use crate::score::DealScore;
use crate::table::{Seat, Side};

/// Who is looking.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Viewer {
    /// A player: sees his own hand.
    Seat(Seat),
    /// An onlooker: sees no hand.
    Spectator,
    /// Sees everything, the stock's order included.
    Referee,
}

impl Viewer {
    /// True if this viewer may see the cards held by `seat`.
    pub fn sees_hand_of(self, seat: Seat) -> bool {
        match self {
            Viewer::Seat(s) => s == seat,
            Viewer::Spectator => false,
            Viewer::Referee => true,
        }
    }
}

/// One seat as a viewer sees it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SeatView {
    /// The seat.
    pub seat: Seat,
    /// Its side.
    pub side: Side,
    /// True if it plays the current deal (false while sitting out).
    pub playing: bool,
    /// Cards in its hand.
    pub hand_len: u32,
    /// Its hand, if the viewer may see it.
    pub hand: Option<CardCounts>,
    /// Red threes it laid this deal.
    pub red_threes: CardCounts,
    /// It has had a turn this deal.
    pub had_turn: bool,
    /// It melded in an earlier turn of this deal.
    pub melded_before: bool,
}

/// One side as everyone sees it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SideView {
    /// The side.
    pub side: Side,
    /// Its members.
    pub members: SmallVec<[Seat; 3]>,
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

/// A game as one viewer may see it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct View {
    /// Who is looking.
    pub viewer: Viewer,
    /// The rules.
    pub rules: Rules,
    /// The current deal, 0-based.
    pub deal: u32,
    /// What the game waits for.
    pub phase: Phase,
    /// The seat that must act.
    pub to_act: Option<Seat>,
    /// The seat whose turn it is.
    pub turn_seat: Seat,
    /// The dealer.
    pub dealer: Seat,
    /// Seats playing this deal, in order.
    pub play_order: Vec<Seat>,
    /// Every seat.
    pub seats: Vec<SeatView>,
    /// Every side.
    pub sides: Vec<SideView>,
    /// The discard pile, top card last (public, R-PILE-7).
    pub pile: Vec<Card>,
    /// The pile holds a wild card or a red three.
    pub pile_frozen: bool,
    /// The top card blocks the pile for the player to act.
    pub pile_blocked: bool,
    /// Cards in the stock.
    pub stock_len: u32,
    /// The stock, top card last: the referee's view only.
    pub stock: Option<Vec<Card>>,
    /// Facts about the turn in progress.
    pub turn: TurnFlags,
    /// The score report of the last finished deal.
    pub last_deal: Option<DealScore>,
    /// Deals finished.
    pub deals_played: u32,
    /// The winner once the match is over.
    pub winner: Option<Side>,
}

impl Game {
    /// The game as `viewer` may see it.
    pub fn view(&self, viewer: Viewer) -> View {
        let mut v = View {
            viewer,
            rules: *self.rules(),
            deal: 0,
            phase: Phase::Draw,
            to_act: None,
            turn_seat: Seat(0),
            dealer: Seat(0),
            play_order: Vec::new(),
            seats: Vec::new(),
            sides: Vec::new(),
            pile: Vec::new(),
            pile_frozen: false,
            pile_blocked: false,
            stock_len: 0,
            stock: None,
            turn: TurnFlags::default(),
            last_deal: None,
            deals_played: 0,
            winner: None,
        };
        self.view_into(viewer, &mut v);
        v
    }

    /// Refreshes `out` as the view of `viewer`, reusing its buffers: the way to build views in
    /// a loop without allocating.
    pub fn view_into(&self, viewer: Viewer, out: &mut View) {
        let table = self.table();
        if out.rules != *self.rules() {
            // A view of another game: its sides' members do not apply.
            out.sides.clear();
            out.rules = *self.rules();
        }
        out.viewer = viewer;
        out.deal = self.deal_number();
        out.phase = self.phase();
        out.to_act = self.to_act();
        out.turn_seat = self.turn_seat();
        out.dealer = self.dealer();
        out.play_order.clear();
        out.play_order.extend_from_slice(self.play_order());
        out.seats.clear();
        for seat in table.seats() {
            let hand = self.hand(seat);
            out.seats.push(SeatView {
                seat,
                side: table.side_of(seat),
                playing: self.play_order().contains(&seat),
                hand_len: hand.len() as u32,
                hand: viewer.sees_hand_of(seat).then_some(*hand),
                red_threes: *self.red_threes(seat),
                had_turn: self.had_turn(seat),
                melded_before: self.melded_before(seat),
            });
        }
        out.sides.truncate(table.sides() as usize);
        for s in 0..table.sides() {
            let side = Side(s);
            let melds = self.melds(side);
            let fill = |sv: &mut SideView| {
                if sv.side != side || sv.members.is_empty() {
                    sv.side = side;
                    sv.members = table.members(side).collect();
                }
                sv.melds.clear();
                sv.melds.extend_from_slice(melds);
                sv.melded = self.side_melded(side);
                sv.minimum = self.minimum(side);
                sv.score = self.scores()[s as usize];
                sv.penalties = self.penalties(side);
            };
            match out.sides.get_mut(s as usize) {
                Some(sv) => fill(sv),
                None => {
                    let mut sv = SideView {
                        side,
                        members: SmallVec::new(),
                        melds: Vec::new(),
                        melded: false,
                        minimum: 0,
                        score: 0,
                        penalties: 0,
                    };
                    fill(&mut sv);
                    out.sides.push(sv);
                }
            }
        }
        out.pile.clear();
        out.pile.extend_from_slice(self.pile());
        out.pile_frozen = self.pile_frozen();
        out.pile_blocked = self.pile_blocked();
        out.stock_len = self.stock().len() as u32;
        out.stock = (viewer == Viewer::Referee).then(|| self.stock().to_vec());
        out.turn = self.turn_flags();
        if out.last_deal.as_ref().map(|d| d.deal) != self.history().last().map(|d| d.deal) {
            out.last_deal = self.history().last().cloned();
        }
        out.deals_played = self.history().len() as u32;
        out.winner = self.winner();
    }
}

impl View {
    /// The legal choices of the seat to act, if this viewer may see that seat's hand.
    pub fn legal(&self) -> Option<LegalChoices<'_>> {
        let seat = self.to_act?;
        let sv = self.seats.get(seat.index())?;
        let hand = sv.hand.as_ref()?;
        let side = self.sides.get(sv.side.index())?;
        let turn_side = self.seats.get(self.turn_seat.index())?.side;
        let partner = self
            .play_order
            .iter()
            .copied()
            .find(|&s| s != self.turn_seat && self.seats[s.index()].side == turn_side);
        Some(LegalChoices::new(Ctx {
            rules: &self.rules,
            seat,
            phase: self.phase,
            hand,
            melds: &side.melds,
            side_melded: side.melded,
            minimum: side.minimum,
            pile: &self.pile,
            pile_frozen: self.pile_frozen,
            pile_blocked: self.pile_blocked,
            stock_len: self.stock_len as usize,
            partner,
            melded_before: sv.melded_before,
            turn: self.turn,
        }))
    }

    /// The viewer's own hand, if the viewer is a seat.
    pub fn my_hand(&self) -> Option<&CardCounts> {
        match self.viewer {
            Viewer::Seat(s) => self.seats.get(s.index())?.hand.as_ref(),
            _ => None,
        }
    }
}

/// An event as `viewer` may see it: hidden cards removed, counts kept.
pub fn redact(event: &Event, viewer: Viewer) -> Event {
    let mut e = event.clone();
    redact_in_place(&mut e, viewer);
    e
}

/// [`redact`] without a copy.
pub fn redact_in_place(event: &mut Event, viewer: Viewer) {
    match event {
        Event::DealStarted(start) => {
            for (s, hand) in start.hands.iter_mut().enumerate() {
                if !viewer.sees_hand_of(Seat(s as u8)) {
                    *hand = None;
                }
            }
        }
        Event::Drew { seat, cards, .. } => {
            if !viewer.sees_hand_of(*seat) {
                *cards = None;
            }
        }
        // Everything else is public: melds, discards, the pile's cards, red threes, answers and
        // the hands counted at the end of a deal.
        Event::TurnStarted { .. }
        | Event::RedThreeLaid { .. }
        | Event::PileTaken { .. }
        | Event::Melded { .. }
        | Event::Discarded { .. }
        | Event::AskedPartner { .. }
        | Event::PartnerAnswered { .. }
        | Event::Penalty { .. }
        | Event::WentOut { .. }
        | Event::PileDeclined { .. }
        | Event::DealEnded(_)
        | Event::MatchEnded { .. } => {}
    }
}
