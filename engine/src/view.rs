//! Redaction: the one place that decides what a seat, a spectator or the referee may see.
//!
//! A seat sees its own hand and every public fact: melds, red threes, the whole pile (R-PILE-7),
//! the number of cards in each hand and in the stock, scores, whose turn it is and the phase.
//! It never sees another hand or the stock's order, only what every seat knows of it (the cards
//! it picked up with the pile, [`Game::known`]) and what every seat saw it do (the pile top it
//! passed at its last draw, [`Game::passed`], and the cards it discarded, [`Game::discarded`]). A spectator sees the public facts only; the
//! referee sees everything. Views ([`Game::view`]) and events ([`redact`]) both go through here.
//! When a deal ends, its hands are shown to everyone, as cards are counted at a real table.
//!
//! The engine knows no game that waits for players: a [`Game`] is dealt when it is made. A
//! server that deals before every seat is taken must show none of that deal until the start;
//! the wire conversion (`canasta_proto::convert::view_to_wire`) shows a waiting game without
//! its deal, whoever looks.

use smallvec::SmallVec;

use crate::card::{Card, CardCounts};
use crate::event::Event;
use crate::game::{Game, Phase};
use crate::legal::{Ctx, LegalChoices, TurnFlags};
use crate::meld::Meld;
use crate::rules::Rules;
use crate::score::DealScore;
use crate::stamp::{Lineage, NO_STATE};
use crate::table::{MAX_SEATS, Seat, Side};

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

    /// The seats whose hands this viewer may see, a bit each (bit `Seat::index`), for the
    /// seats a game may have (a viewer's seat past them sees none of them).
    fn hands_seen(self) -> u32 {
        match self {
            Viewer::Seat(s) => 1u32.checked_shl(s.0.into()).unwrap_or(0),
            Viewer::Spectator => 0,
            Viewer::Referee => !0,
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
    /// The cards of its hand every viewer knows are there ([`Game::known`]): public, the same
    /// in every view, and within `hand` where the viewer sees it.
    pub known: CardCounts,
    /// The pile's top card it passed at its last draw, drawing from the stock instead
    /// ([`Game::passed`]): public, the same in every view.
    pub passed: CardCounts,
    /// The cards it discarded this deal ([`Game::discarded`]): public, the same in every view.
    pub discarded: CardCounts,
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

/// A view refreshed in place ([`Game::view_into`]): the way to build views in a loop without
/// allocating, and without copying what did not change since the last refresh (the rules, a
/// side's melds, the last deal's report). It remembers what it copied from which game, so
/// its view is read-only: [`ViewBuffer::view`] lends it, [`ViewBuffer::into_view`] gives it
/// up, and a view to edit is a copy.
#[derive(Clone, Debug)]
pub struct ViewBuffer {
    view: View,
    cache: ViewCache,
}

impl ViewBuffer {
    /// The view of the last refresh (or the one the buffer was made from).
    #[must_use]
    pub fn view(&self) -> &View {
        &self.view
    }

    /// The view, for keeps.
    #[must_use]
    pub fn into_view(self) -> View {
        self.view
    }
}

impl From<View> for ViewBuffer {
    /// A buffer that reuses the allocations of `view` (of any game, possibly edited): the
    /// first refresh copies everything.
    fn from(view: View) -> ViewBuffer {
        ViewBuffer {
            view,
            cache: ViewCache::default(),
        }
    }
}

/// What a [`ViewBuffer`] last copied from which game (see [`crate::stamp`]): the rules of
/// `lineage`, and the state of its list of finished deals and of each side's melds. Nothing of
/// a game whose lineage it does not hold.
#[derive(Clone, Debug, Default)]
struct ViewCache {
    lineage: Option<Lineage>,
    history: u64,
    melds: [u64; MAX_SEATS],
}

impl Game {
    /// The game as `viewer` may see it.
    #[must_use]
    pub fn view(&self, viewer: Viewer) -> View {
        let mut view = self.unfilled_view(viewer);
        // Nothing copied before, and nothing to remember: the lineage is not kept.
        self.refresh(viewer, &mut view, &mut ViewCache::default(), false);
        view
    }

    /// A buffer holding the view of `viewer`, for [`Game::view_into`] to refresh.
    #[must_use]
    pub fn view_buffer(&self, viewer: Viewer) -> ViewBuffer {
        let mut buffer = ViewBuffer::from(self.unfilled_view(viewer));
        self.view_into(viewer, &mut buffer);
        buffer
    }

    /// A view with nothing of the game yet but its rules, for [`Game::refresh`] to fill.
    fn unfilled_view(&self, viewer: Viewer) -> View {
        View {
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
        }
    }

    /// Refreshes `out` as the view of `viewer` and lends it: every field is replaced, reusing
    /// the buffer's allocations. It may hold a view of any game; what it copied from this
    /// game's current state (or a clone's) is not copied again.
    pub fn view_into<'b>(&self, viewer: Viewer, out: &'b mut ViewBuffer) -> &'b View {
        self.refresh(viewer, &mut out.view, &mut out.cache, true);
        &out.view
    }

    /// Makes `out` the view of `viewer`, leaving what `cache` says was copied from this
    /// game's current state as it is, and records in `cache` what it copied (holding on to
    /// the game's lineage if `keep`, so that the cache can name it).
    // Inlined into both callers: `keep` is then known, and the refresh is one call.
    #[inline(always)]
    fn refresh(&self, viewer: Viewer, out: &mut View, cache: &mut ViewCache, keep: bool) {
        let table = self.table();
        // The rules never change within a lineage: copied once per game (they are big).
        let lineage = self.lineage();
        if !cache.lineage.as_ref().is_some_and(|l| l.is(lineage)) {
            out.rules = *self.rules();
            *cache = ViewCache {
                lineage: keep.then(|| lineage.clone()),
                ..ViewCache::default()
            };
        }
        out.viewer = viewer;
        out.deal = self.deal_number();
        out.phase = self.phase();
        out.to_act = self.to_act();
        out.turn_seat = self.turn_seat();
        out.dealer = self.dealer();
        let d = &self.d;
        let order = d.chairs.seats();
        out.play_order.clear();
        out.play_order.extend_from_slice(order);
        let playing = order.iter().fold(0u32, |all, s| all | 1 << s.index());
        let seen = viewer.hands_seen();
        // Seats are refreshed in place; a seat that changes side (a view of another game)
        // means the sides' members must be listed again.
        let players = table.players() as usize;
        let mut seating_changed = out.seats.len() != players;
        out.seats.truncate(players);
        while out.seats.len() < players {
            let seat = Seat(out.seats.len() as u8);
            out.seats.push(SeatView {
                seat,
                side: table.side_of(seat),
                playing: false,
                hand_len: 0,
                hand: None,
                known: CardCounts::new(),
                passed: CardCounts::new(),
                discarded: CardCounts::new(),
                red_threes: CardCounts::new(),
                had_turn: false,
                melded_before: false,
            });
        }
        // Field by field, the game's per-seat arrays walked alongside: no seat view is built
        // and then copied, and no index is checked.
        let per_seat = table
            .sides_of()
            .iter()
            .zip(d.hands.iter().zip(&d.red_threes))
            .zip(d.had_turn.iter().zip(&d.melded_before))
            .zip(d.known.iter().zip(d.passed.iter().zip(&d.discarded)));
        for (
            i,
            (
                sv,
                (((&side, (hand, red)), (&had_turn, &melded_before)), (known, (passed, discarded))),
            ),
        ) in out.seats.iter_mut().zip(per_seat).enumerate()
        {
            seating_changed |= sv.side != side;
            sv.seat = Seat(i as u8);
            sv.side = side;
            sv.playing = playing >> i & 1 != 0;
            sv.hand_len = hand.len() as u32;
            sv.hand = (seen >> i & 1 != 0).then_some(*hand);
            sv.known = *known;
            sv.passed = *passed;
            sv.discarded = *discarded;
            sv.red_threes = *red;
            sv.had_turn = had_turn;
            sv.melded_before = melded_before;
        }
        // Side views made afresh hold no melds yet: their stamps name nothing copied.
        let sides = table.sides() as usize;
        out.sides.truncate(sides);
        for s in out.sides.len()..sides {
            cache.melds[s] = NO_STATE;
            out.sides.push(SideView {
                side: Side(s as u8),
                members: table.members(Side(s as u8)).collect(),
                melds: Vec::new(),
                melded: false,
                minimum: 0,
                score: 0,
                penalties: 0,
            });
        }
        let per_side = (d.melds.iter().zip(&d.meld_stamps))
            .zip(d.side_melded.iter().zip(&d.minimums))
            .zip(d.penalties.iter().zip(self.scores()));
        for (s, ((sv, copied), (((melds, &stamp), (&melded, &minimum)), (&penalties, &score)))) in
            out.sides
                .iter_mut()
                .zip(&mut cache.melds)
                .zip(per_side)
                .enumerate()
        {
            let side = Side(s as u8);
            if seating_changed || sv.side != side {
                sv.side = side;
                sv.members = table.members(side).collect();
            }
            // Copied only if they changed since the last refresh from this game (or a clone).
            if *copied == NO_STATE || *copied != stamp {
                sv.melds.clear();
                sv.melds.extend_from_slice(melds);
                *copied = stamp;
            }
            sv.melded = melded;
            sv.minimum = minimum;
            sv.score = score;
            sv.penalties = penalties;
        }
        out.pile.clear();
        out.pile.extend_from_slice(self.pile());
        out.pile_frozen = self.pile_frozen();
        out.pile_blocked = self.pile_blocked();
        out.stock_len = self.stock().len() as u32;
        if viewer == Viewer::Referee {
            let stock = out.stock.get_or_insert_with(Vec::new);
            stock.clear();
            stock.extend_from_slice(self.stock());
        } else {
            out.stock = None;
        }
        out.turn = self.turn_flags();
        // By stamp: a view of another game may hold a report of the same deal number.
        let stamp = self.history_stamp();
        if cache.history == NO_STATE || cache.history != stamp {
            out.last_deal = self.history().last().cloned();
            cache.history = stamp;
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
            // A view may come from the wire: a seat of the order that is not at the table is
            // nobody's partner, not a panic.
            .find(|&s| {
                s != self.turn_seat
                    && self
                        .seats
                        .get(s.index())
                        .is_some_and(|v| v.side == turn_side)
            });
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
#[must_use = "this returns a redacted copy and leaves the event as it is (redact_in_place \
              changes it)"]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::RandomBot;
    use crate::game::Setup;
    use crate::rules::{Preset, RuleSpec};

    /// Plays `deals` deals of a seeded game with a random bot, refreshing `buffer` (last used
    /// for any other game) for every viewer before each action: it must equal a fresh view.
    fn check_reuse(spec: RuleSpec, seed: u64, deals: usize, buffer: &mut ViewBuffer) {
        let mut game = Game::new(&Setup::seeded(spec, seed)).unwrap();
        let mut bot = RandomBot::new(seed);
        while game.history().len() < deals && game.winner().is_none() {
            let seat = game.to_act().unwrap();
            let viewers = [Viewer::Seat(seat), Viewer::Spectator, Viewer::Referee];
            for viewer in viewers
                .into_iter()
                .chain(game.table().seats().map(Viewer::Seat))
            {
                let view = game.view_into(viewer, buffer);
                assert_eq!(*view, game.view(viewer), "{viewer:?}");
            }
            let action = bot.pick(&game.legal().unwrap());
            game.apply(seat, &action).unwrap();
        }
    }

    // A view is its holder's to edit, and the buffer it is put in knows nothing of what it
    // copied: its first refresh copies everything, the edited rules, melds and report too.
    #[test]
    fn a_buffer_made_from_an_edited_view_is_refreshed_whole() {
        let mut game = Game::new(&Setup::seeded(RuleSpec::new(Preset::Official, 4), 5)).unwrap();
        let mut bot = RandomBot::new(5);
        while game.history().is_empty() || game.d.melds.iter().all(|m| m.is_empty()) {
            let seat = game.to_act().unwrap();
            let action = bot.pick(&game.legal().unwrap());
            game.apply(seat, &action).unwrap();
        }
        let mut edited = game.view_buffer(Viewer::Referee).into_view();
        edited.rules.hand_size += 1;
        for side in &mut edited.sides {
            side.melds.clear();
        }
        edited.last_deal = None;
        let mut buffer = ViewBuffer::from(edited);
        assert_eq!(
            *game.view_into(Viewer::Referee, &mut buffer),
            game.view(Viewer::Referee)
        );
    }

    // A view reused across games (other rules, other seating, the same deal numbers) holds
    // nothing of the game it showed before.
    #[test]
    fn a_reused_view_equals_a_fresh_view() {
        let six_in_teams = RuleSpec::new(Preset::Official, 6)
            .with("six_players", "two_teams_of_three")
            .unwrap();
        let mut buffer = Game::new(&Setup::seeded(RuleSpec::new(Preset::Samba, 4), 9))
            .unwrap()
            .view_buffer(Viewer::Referee);
        for (spec, seed) in [
            (RuleSpec::new(Preset::Official, 4), 1),
            (RuleSpec::new(Preset::Official, 4), 2),
            (RuleSpec::new(Preset::Official, 6), 3),
            (six_in_teams, 4),
            (RuleSpec::new(Preset::Samba, 2), 5),
            (RuleSpec::new(Preset::Official, 4), 1),
        ] {
            check_reuse(spec, seed, 2, &mut buffer);
        }
    }
}
