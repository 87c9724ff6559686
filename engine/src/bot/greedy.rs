//! The `greedy` bot: a quick heuristic player. It builds the move it wants directly from its
//! view instead of searching all legal actions, and checks it before playing it:
//!
//! - it takes the pile when it pays (a big pile, or one it can take onto a meld or with a pair),
//!   making its initial meld with the take when it must;
//! - it melds towards canastas: three or more naturals of a rank, naturals onto its melds, wild
//!   cards onto melds close to a canasta; it keeps pairs in hand to take the pile with;
//! - it discards safely: cards no opponent can use first (every other card of the rank is in
//!   sight, in the pile, the melds or its hand, so no opponent holds what taking the pile with
//!   it needs), then black threes (kept until then: a three blocks the pile for one turn, and
//!   is worth most when nothing else in the hand is safe), then ranks the next player discarded lately, and last the
//!   ranks the opponents meld or took with the pile (it remembers the pile it saw before they
//!   took it); high values before low ones, pairs and cards for its own melds kept; when far
//!   behind it freezes a big pile with a two;
//! - it times going out: at once when its side is ahead, when the stock runs low or when an
//!   opponent is close to going out; while its side is behind and a meld is a card or two from
//!   another canasta, it holds back;
//! - it answers its partner by comparing what its own hand would cost with the bonus for going
//!   out (and says yes when the opponents are about to go out themselves).

use super::Bot;
use crate::action::{Action, MeldBatch, MeldSpec, MeldTarget, TopMeld};
use crate::card::{Card, CardCounts, Rank, Suit};
use crate::legal::{Choice, LegalChoices};
use crate::meld::{CANASTA_LEN, Meld, MeldKind};
use crate::view::{SideView, View};

/// The greedy heuristic bot (see the module documentation). Deterministic: it plays the same
/// moves from the same views in the same order.
#[derive(Clone, Debug, Default)]
pub struct GreedyBot {
    actions: Vec<Action>,
    memory: Memory,
}

impl GreedyBot {
    /// A greedy bot.
    pub fn new() -> GreedyBot {
        GreedyBot::default()
    }
}

/// What the bot remembers from one of its turns to the next within a deal: the pile as its
/// last discard left it, and so the natural cards the opponents took with the pile since.
/// Everything in it was public when the bot saw it.
#[derive(Clone, Debug, Default)]
struct Memory {
    /// The deal, and the stock's count, it was last updated in: a new deal (or game) starts
    /// afresh.
    deal: u32,
    stock_len: u32,
    /// The pile after the bot's last discard, bottom first.
    pile: Vec<Card>,
    /// Cards of the bot's side, in hands and melds, after that discard.
    side_cards: u32,
    /// Natural cards of each rank the opponents took with the pile this deal.
    taken: [u8; 14],
}

/// The cards a side holds in its hands and its melds.
fn side_cards(view: &View, side: &SideView) -> u32 {
    let melded: usize = side.melds.iter().map(Meld::len).sum();
    let held: u32 = side
        .members
        .iter()
        .filter_map(|m| view.seats.get(m.index()))
        .map(|s| s.hand_len)
        .sum();
    held + melded as u32
}

impl Memory {
    /// At the start of the bot's turn: if the pile it left was taken since, by an opponent, the
    /// opponents now hold its natural cards. A partner who took it made the side's cards grow
    /// by more than the partners' draws would.
    fn observe(&mut self, view: &View, mine: &SideView) {
        if view.deal != self.deal || view.stock_len > self.stock_len {
            self.deal = view.deal;
            self.taken = [0; 14];
            self.pile.clear();
        } else if !view.pile.starts_with(&self.pile) {
            let partners = mine.members.len().saturating_sub(1) as u32;
            let drawn = partners * view.rules.draw.saturating_sub(1) as u32;
            let partner_took = side_cards(view, mine) > self.side_cards + drawn;
            if !partner_took {
                for c in self.pile.iter().filter(|c| c.is_natural()) {
                    self.taken[c.rank() as usize] += 1;
                }
            }
            self.pile.clear();
        }
        self.stock_len = view.stock_len;
    }

    /// After the bot's own action: the pile it leaves.
    fn acted(&mut self, view: &View, mine: &SideView, action: &Action) {
        match action {
            Action::Discard { card } => {
                self.pile.clear();
                self.pile.extend_from_slice(&view.pile);
                self.pile.push(*card);
                self.side_cards = side_cards(view, mine).saturating_sub(1);
                self.stock_len = view.stock_len;
            }
            Action::TakePile { .. } => self.pile.clear(),
            _ => {}
        }
    }
}

/// What the bot knows of its position, read once per decision.
struct Pos<'v> {
    view: &'v View,
    hand: CardCounts,
    mine: &'v SideView,
}

impl<'v> Pos<'v> {
    fn new(view: &'v View) -> Option<Pos<'v>> {
        let seat = view.to_act?;
        let me = view.seats.get(seat.index())?;
        let mine = view.sides.get(me.side.index())?;
        Some(Pos {
            view,
            hand: me.hand?,
            mine,
        })
    }

    fn melds(&self) -> &[Meld] {
        &self.mine.melds
    }

    fn group_of(&self, rank: Rank) -> Option<usize> {
        self.melds()
            .iter()
            .position(|m| m.kind == MeldKind::Group(rank) && !m.is_canasta())
            .or_else(|| {
                self.melds()
                    .iter()
                    .position(|m| m.kind == MeldKind::Group(rank))
            })
    }

    fn canastas(&self) -> usize {
        self.melds().iter().filter(|m| m.is_canasta()).count()
    }

    fn opponents(&self) -> impl Iterator<Item = &'v SideView> + use<'v> {
        let mine = self.mine.side;
        self.view.sides.iter().filter(move |s| s.side != mine)
    }

    /// How far behind the best opponent the side is, on the scores before this deal.
    fn behind(&self) -> i32 {
        let best = self.opponents().map(|s| s.score).max().unwrap_or(0);
        best - self.mine.score
    }

    /// How far behind the best opponent the side is, counting what each side has on the table
    /// this deal (its melds' cards and canasta bonuses).
    fn behind_now(&self) -> i32 {
        let rules = &self.view.rules;
        let standing = |s: &SideView| {
            s.score
                + s.melds
                    .iter()
                    .map(|m| m.cards.value() as i32 + m.canasta().map_or(0, |k| k.bonus(rules)))
                    .sum::<i32>()
        };
        let best = self.opponents().map(standing).max().unwrap_or(0);
        best - standing(self.mine)
    }

    /// An opponent is close to going out: a hand of two cards or fewer, or a small hand on a
    /// side that has the canastas going out needs.
    fn opponents_threaten(&self) -> bool {
        let needed = self.view.rules.canastas_to_go_out as usize;
        self.opponents().any(|side| {
            let canastas = side.melds.iter().filter(|m| m.is_canasta()).count();
            side.members
                .iter()
                .filter_map(|m| self.view.seats.get(m.index()))
                .filter(|s| s.playing)
                .any(|s| s.hand_len <= 2 || (canastas >= needed && s.hand_len <= 6))
        })
    }

    /// The seat to play after this one.
    fn next_seat(&self) -> Option<&'v crate::view::SeatView> {
        let order = &self.view.play_order;
        let me = order.iter().position(|&s| Some(s) == self.view.to_act)?;
        self.view.seats.get(order[(me + 1) % order.len()].index())
    }
}

/// One wild card, twos before jokers (a joker is worth more in a meld's count and in hand).
fn a_wild(from: &CardCounts) -> Option<Card> {
    from.any_of_rank(Rank::Two)
        .or_else(|| (from.jokers() > 0).then_some(Card::JOKER))
}

fn batch(specs: impl IntoIterator<Item = MeldSpec>) -> MeldBatch {
    specs.into_iter().collect()
}

/// The natural ranks (four to ace), a bit each (bit `Rank as usize`).
const NATURAL_RANKS: u16 = 0x1FFC;

/// The ranks of a mask (bit `Rank as usize`), lowest first.
#[derive(Clone, Copy)]
struct Ranks(u16);

impl Iterator for Ranks {
    type Item = Rank;

    fn next(&mut self) -> Option<Rank> {
        let i = self.0.trailing_zeros() as usize;
        let r = *Rank::ALL.get(i)?;
        self.0 &= self.0 - 1;
        Some(r)
    }
}

impl Ranks {
    /// The rank of the greatest `key`, the lowest rank among equals (as a stable sort by
    /// descending key would list first).
    fn max_by_first(self, key: impl Fn(Rank) -> u32) -> Option<Rank> {
        let mut best: Option<(u32, Rank)> = None;
        for r in self {
            let k = key(r);
            if best.is_none_or(|(b, _)| k > b) {
                best = Some((k, r));
            }
        }
        best.map(|(_, r)| r)
    }
}

impl GreedyBot {
    /// Melds from `hand` (no group of rank `skip`) that bring `value` up to `minimum`: triples
    /// and bigger groups first (the biggest value first), then pairs with a wild card (the
    /// highest rank first). `None` if they cannot.
    fn initial_melds(
        pos: &Pos<'_>,
        hand: &CardCounts,
        skip: Option<Rank>,
        mut value: u32,
    ) -> Option<MeldBatch> {
        let minimum = pos.mine.minimum;
        // Melds use cards of the hand only: if all of them cannot reach the minimum, none will.
        if value + hand.value() < minimum {
            return None;
        }
        // The naturals of each rank, counted once: melding one rank leaves the others' counts.
        let counts = hand.rank_counts();
        // Only naturals are melded here, a bit per rank.
        let naturals = hand.ranks_held() & NATURAL_RANKS & !skip.map_or(0, |r| 1 << r as u16);
        let (mut triples, mut pairs) = (0u16, 0u16);
        for r in Ranks(naturals) {
            match counts[r as usize] {
                2 => pairs |= 1 << r as u16,
                n if n >= 3 => triples |= 1 << r as u16,
                _ => {}
            }
        }
        // The melds are chosen on values alone, and built only if they reach the minimum: most
        // hands cannot make it yet, and this is asked at every turn until the side melds.
        let worth = |r: Rank| r.value() * counts[r as usize] as u32;
        let mut picks: u16 = 0;
        while value < minimum
            && let Some(r) = Ranks(triples & !picks).max_by_first(worth)
        {
            picks |= 1 << r as u16;
            value += worth(r);
        }
        // The wild cards not used yet: melds of naturals take none, twos go before jokers.
        let (twos, jokers) = (hand.twos() as u32, hand.jokers() as u32);
        let (mut paired, mut wilds_used) = (0u16, 0u32);
        while value < minimum
            && wilds_used < twos + jokers
            && let Some(r) = Ranks(pairs & !paired).max_by_first(Rank::value)
        {
            paired |= 1 << r as u16;
            let wild = if wilds_used < twos {
                Rank::Two
            } else {
                Rank::Joker
            };
            wilds_used += 1;
            value += 2 * r.value() + wild.value();
        }
        if value < minimum {
            return None;
        }
        // Built in the order chosen.
        let mut specs = MeldBatch::new();
        while let Some(r) = Ranks(picks).max_by_first(worth) {
            picks &= !(1 << r as u16);
            specs.push(MeldSpec::new_meld(hand.of_rank(r, counts[r as usize])));
        }
        let mut wilds_left = *hand;
        while let Some(r) = Ranks(paired).max_by_first(Rank::value) {
            paired &= !(1 << r as u16);
            let wild = a_wild(&wilds_left)?;
            let held = wilds_left.remove(wild);
            debug_assert!(held, "a wild card found in the hand");
            let mut cards = hand.of_rank(r, 2);
            cards.add(wild);
            specs.push(MeldSpec::new_meld(cards));
        }
        Some(specs)
    }

    fn draw_phase(&mut self, pos: &Pos<'_>, legal: &LegalChoices<'_>) -> Option<Choice> {
        let view = pos.view;
        if let Some(&top) = view.pile.last()
            && !view.pile_blocked
            && top.is_natural()
        {
            let r = top.rank();
            // A pile of one or two cards is not worth a pair from the hand.
            let worth = view.pile.len() >= 3 || pos.group_of(r).is_some();
            if (worth || view.stock_len == 0)
                && let Some(take) = Self::take_pile(pos, legal, top)
            {
                return Some(take);
            }
        }
        // Drawing is legal whenever the stock has cards.
        if view.stock_len > 0 {
            legal.checked(Action::DrawStock).ok()
        } else {
            None
        }
    }

    /// The first legal way to take the pile the bot likes, in its order of preference.
    fn take_pile(pos: &Pos<'_>, legal: &LegalChoices<'_>, top: Card) -> Option<Choice> {
        let view = pos.view;
        let hand = &pos.hand;
        let r = top.rank();
        let frozen = view.pile_frozen || !pos.mine.melded;
        // Each way is built and checked only if the ways before it failed.
        let legal_take = |target, cards, melds: MeldBatch| {
            let a = Action::TakePile {
                top: TopMeld { target, cards },
                melds,
            };
            legal.checked(a).ok()
        };
        if !pos.mine.melded {
            if hand.rank_count(r) >= 2 {
                let pair = hand.of_rank(r, 2);
                let mut rest = *hand;
                rest.remove_all(&pair);
                let value = pair.value() + top.value();
                let extra = Self::initial_melds(pos, &rest, Some(r), value)?;
                return legal_take(MeldTarget::New, pair, extra);
            }
            return None;
        }
        if let Some(id) = pos.group_of(r) {
            let cards = if frozen {
                hand.of_rank(r, 2)
            } else {
                CardCounts::new()
            };
            if let Some(a) = legal_take(MeldTarget::Existing(id as u8), cards, MeldBatch::new()) {
                return Some(a);
            }
        }
        if hand.rank_count(r) >= 2
            && let Some(a) = legal_take(MeldTarget::New, hand.of_rank(r, 2), MeldBatch::new())
        {
            return Some(a);
        }
        if !frozen
            && view.pile.len() >= 3
            && hand.rank_count(r) == 1
            && let Some(w) = a_wild(hand)
        {
            let mut cards = hand.of_rank(r, 1);
            cards.add(w);
            return legal_take(MeldTarget::New, cards, MeldBatch::new());
        }
        None
    }

    fn play_phase(&mut self, pos: &Pos<'_>, legal: &LegalChoices<'_>) -> Option<Choice> {
        let hand = &pos.hand;
        // Going out, when it is time: looked for in a hand of seven cards or fewer (the black
        // threes aside), which a turn's melds may empty; larger ones seldom can, and the
        // search costs.
        if hand.len() <= 7 + hand.black_threes() as usize
            && Self::time_to_go_out(pos)
            && let Some(out) = legal.first_go_out()
        {
            // Found by the search, so legal: checked once more only to keep the proof.
            return legal.checked(out).ok();
        }
        if let Some(m) = self.meld(pos)
            && let Ok(c) = legal.checked(Action::Meld { melds: m })
        {
            return Some(c);
        }
        self.discard(pos, legal)
    }

    /// Going out now pays, unless the side is behind with time to catch up: then it holds back
    /// while a meld of the side is a card or two from another canasta and someone can bring
    /// those cards (the bot's own hand after this turn, a partner, or a draw of two).
    fn time_to_go_out(pos: &Pos<'_>) -> bool {
        let view = pos.view;
        if view.stock_len <= HOLD_BACK_STOCK || pos.opponents_threaten() {
            return true;
        }
        let near = pos.melds().iter().any(|m| {
            matches!(m.kind, MeldKind::Group(_)) && !m.is_canasta() && m.len() + 2 >= CANASTA_LEN
        });
        let helped = pos.hand.len() >= 3 || pos.mine.members.len() > 1 || view.rules.draw >= 2;
        // Last, as it costs most: the standing.
        !(near && helped) || pos.behind_now() <= 0
    }

    /// The next meld worth laying, one step at a time.
    fn meld(&self, pos: &Pos<'_>) -> Option<MeldBatch> {
        let hand = &pos.hand;
        // Keep two cards: one to discard, one in hand.
        let spare = hand.len().saturating_sub(2);
        if spare == 0 {
            return None;
        }
        if !pos.mine.melded {
            let specs = Self::initial_melds(pos, hand, None, 0)?;
            let used: usize = specs.iter().map(|s| s.cards.len()).sum();
            return (used <= spare).then_some(specs);
        }
        // Naturals onto the side's groups.
        for (id, m) in pos.melds().iter().enumerate() {
            if let MeldKind::Group(r) = m.kind {
                let n = hand.rank_count(r).min(spare as u8);
                if n > 0 && !(m.is_canasta() && pos.view.rules.closed_canastas) {
                    return Some(batch([MeldSpec::add_to(id as u8, hand.of_rank(r, n))]));
                }
            }
        }
        // New groups of three naturals or more; pairs stay in hand for the pile.
        let counts = hand.rank_counts();
        for r in Rank::NATURALS {
            let n = counts[r as usize];
            if n >= 3 && pos.group_of(r).is_none() && (n as usize) <= spare {
                return Some(batch([MeldSpec::new_meld(hand.of_rank(r, n))]));
            }
        }
        // A wild card onto a meld close to a canasta, while the side lacks canastas.
        if pos.canastas() < pos.view.rules.canastas_to_go_out as usize + 1
            && let Some(w) = a_wild(hand)
        {
            let nearest = pos
                .melds()
                .iter()
                .enumerate()
                .filter(|(_, m)| {
                    matches!(m.kind, MeldKind::Group(_))
                        && !m.is_canasta()
                        && m.len() + 2 >= CANASTA_LEN
                        && m.wilds() < pos.view.rules.max_wilds
                })
                .max_by_key(|(_, m)| m.len());
            if let Some((id, _)) = nearest {
                let mut cards = CardCounts::new();
                cards.add(w);
                return Some(batch([MeldSpec::add_to(id as u8, cards)]));
            }
        }
        None
    }

    /// The card that helps the opponents least, unless freezing the pile pays.
    fn discard(&self, pos: &Pos<'_>, legal: &LegalChoices<'_>) -> Option<Choice> {
        let hand = &pos.hand;
        let view = pos.view;
        // Far behind with a big unfrozen pile: freeze it with a two.
        if pos.behind() > 1000
            && view.pile.len() >= 6
            && !view.pile_frozen
            && let Some(two) = hand.any_of_rank(Rank::Two)
            && let Ok(c) = legal.checked(Action::Discard { card: two })
        {
            return Some(c);
        }
        // The hand's cards by rank, and the natural cards of each rank in sight: the hand, the
        // pile, every meld. The rest are in other hands or the stock.
        let held = hand.rank_counts();
        let held_ranks = hand.ranks_held() as u32;
        let mut seen = held;
        for c in &view.pile {
            seen[c.rank() as usize] += 1;
        }
        // The ranks of the opponents' groups and of the side's own open groups, a bit each.
        let (mut opponent_ranks, mut own_ranks) = (0u16, 0u16);
        for side in &view.sides {
            let own = side.side == pos.mine.side;
            for m in &side.melds {
                match m.kind {
                    MeldKind::Group(r) => {
                        seen[r as usize] += m.cards.rank_count(r);
                        if !own {
                            opponent_ranks |= 1 << r as u16;
                        } else if !(m.is_canasta() && view.rules.closed_canastas) {
                            own_ranks |= 1 << r as u16;
                        }
                    }
                    _ => {
                        for (c, n) in m.cards.iter_kinds() {
                            seen[c.rank() as usize] += n;
                        }
                    }
                }
            }
        }
        let copies = view.rules.decks * 4;
        // Whether the next player may take the pile with my discard: onto a meld, or with one
        // natural and a wild card, if the pile is open to him; with a natural pair otherwise.
        let next = pos.next_seat();
        let open = !view.pile_frozen
            && next.is_some_and(|n| {
                n.side != pos.mine.side && view.sides.get(n.side.index()).is_some_and(|s| s.melded)
            });
        let needed = if open && view.rules.pile_with_natural_and_wild {
            1
        } else {
            2
        };
        // The rank the next player discarded on his last turn, if it is still in the pile:
        // he did not keep it.
        let players = view.play_order.len();
        let next_discarded = (view.pile.len() + 1)
            .checked_sub(players)
            .filter(|_| players > 1)
            .and_then(|i| view.pile.get(i))
            .map(|c| c.rank());
        // (keeps a card for the side's melds, danger, keeps a pair, 100 - value), lowest
        // first, packed in one number: the meld in bit 20, danger in bits 16 to 19, the pair in
        // bit 8, 100 - value (50 to 100) in bits 0 to 7. Alike for every card of a rank.
        let risk = |r: Rank| -> u32 {
            if r == Rank::Three {
                // Black threes only (red ones never stay in a hand): they block the pile for
                // one turn, so they go before any card the next player may take the pile
                // with, but after a single card no opponent can use, which is as safe now and
                // leaves the three for a turn when nothing else is.
                return 1 << 16 | 0xFF;
            }
            if r.is_wild() {
                return 1 << 20 | 7 << 16 | (100 - r.value());
            }
            let i = r as usize;
            let danger = if open && opponent_ranks & (1 << i) != 0 {
                // The next player adds it to a meld and takes the pile.
                6
            } else if copies.saturating_sub(seen[i]) < needed {
                // No opponent can hold what taking the pile with it needs.
                1
            } else if self.memory.taken[i] > 0 {
                // The opponents took cards of this rank with the pile.
                5
            } else if next_discarded == Some(r) {
                2
            } else {
                3
            };
            let keep = (own_ranks >> i) as u32 & 1;
            let pair = (held[i] >= 2) as u32;
            keep << 20 | danger << 16 | pair << 8 | (100 - r.value())
        };
        // The first card (in card order: rank by rank) of the lowest risk: the risk and the
        // rank packed in one key, so the least key is the choice; only the ranks held are
        // visited (few branches for the processor to guess).
        let mut best = u32::MAX;
        let mut ranks = held_ranks;
        while ranks != 0 {
            let i = ranks.trailing_zeros();
            ranks &= ranks - 1;
            best = best.min(risk(Rank::ALL[i as usize]) << 4 | i);
        }
        let rank = *Rank::ALL.get((best & 0xf) as usize)?;
        let card = if rank == Rank::Three {
            [Suit::Clubs, Suit::Spades]
                .into_iter()
                .map(|s| Card::new(rank, s))
                .find(|&c| hand.count(c) > 0)?
        } else {
            hand.any_of_rank(rank)?
        };
        legal.checked(Action::Discard { card }).ok()
    }
}

/// Below this many cards in the stock the bot goes out as soon as it can.
const HOLD_BACK_STOCK: u32 = 12;

impl Bot for GreedyBot {
    fn name(&self) -> &str {
        "greedy"
    }

    fn choose(&mut self, view: &View, legal: &LegalChoices<'_>) -> Action {
        self.choose_checked(view, legal).into_action()
    }

    fn choose_checked(&mut self, view: &View, legal: &LegalChoices<'_>) -> Choice {
        let pos = Pos::new(view);
        let chosen = match (legal.phase(), &pos) {
            (crate::game::Phase::Answer, Some(pos)) => {
                // Yes when what my hand would cost is less than the bonus the going out earns,
                // or when the opponents are about to go out anyway.
                let cost = pos.hand.value() as i32;
                let yes = cost <= view.rules.going_out_bonus || pos.opponents_threaten();
                legal.checked(Action::AnswerPartner { yes }).ok()
            }
            (crate::game::Phase::Draw, Some(pos)) => {
                self.memory.observe(view, pos.mine);
                self.draw_phase(pos, legal)
            }
            (crate::game::Phase::Play, Some(pos)) => self.play_phase(pos, legal),
            _ => None,
        };
        // Every action chosen above was checked where it was built, and carries the proof.
        let choice = match chosen {
            Some(c) => c,
            None => {
                // Nothing of its own fits (a forced take, a declined pile, a rare shape): the
                // first legal action.
                self.actions.clear();
                legal.actions(&mut self.actions);
                let take = self
                    .actions
                    .iter()
                    .find(|a| matches!(a, Action::TakePile { .. }))
                    .cloned();
                let action = take
                    .or_else(|| self.actions.first().cloned())
                    .unwrap_or(super::NOTHING_LEGAL);
                Choice::from(action)
            }
        };
        if let Some(pos) = &pos {
            self.memory.acted(view, pos.mine, choice.action());
        }
        choice
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arrange::Arrangement;
    use crate::bot::{RandomBot, play};
    use crate::card::parse_cards;
    use crate::game::{Game, Setup};
    use crate::rules::{Preset, RuleSpec, Rules};
    use crate::table::{Seat, Side};
    use crate::view::Viewer;

    fn list(text: &str) -> Vec<Card> {
        parse_cards(text).unwrap()
    }

    fn cards(text: &str) -> CardCounts {
        CardCounts::from_cards(list(text))
    }

    fn card(text: &str) -> Card {
        text.parse().unwrap()
    }

    /// Four players, official rules, a prearranged first deal: `hands[s]` for seat `s` (filled
    /// up with unpaired naturals if short), `pile` the upcards bottom first (a filler if
    /// empty), `stock` its top cards, top first. Seat 3 deals, so seat 0 plays first.
    fn arranged(hands: &[&str], pile: &str, stock: &str, scores: [i32; 2]) -> Game {
        let spec = RuleSpec::new(Preset::Official, 4);
        let rules = Rules::new(&spec).unwrap();
        let arrangement = Arrangement {
            hands: hands.iter().map(|h| list(h)).collect(),
            pile: list(pile),
            stock: list(stock),
            cut: vec![],
        };
        let deck = arrangement.deck(&rules, 0, Seat(3)).unwrap();
        Game::new(&Setup {
            rules: spec,
            card_orders: vec![deck],
            first_dealer: Some(Seat(3)),
            start_scores: scores.to_vec(),
            ..Setup::default()
        })
        .unwrap()
    }

    fn act(game: &mut Game, seat: u8, action: Action) {
        if let Err(e) = game.apply(Seat(seat), &action) {
            panic!("seat {seat}: {action}: {e}");
        }
    }

    /// The seats in turn draw a card and discard it.
    fn pass(game: &mut Game, seats: &[u8]) {
        for &s in seats {
            let before = *game.hand(Seat(s));
            act(game, s, Action::DrawStock);
            let mut drawn = *game.hand(Seat(s));
            drawn.remove_all(&before);
            let card = drawn.iter().next().expect("a card drawn");
            act(game, s, Action::Discard { card });
        }
    }

    /// What `bot` chooses for the seat to act; the action is legal.
    fn choose(bot: &mut GreedyBot, game: &Game) -> Action {
        let seat = game.to_act().unwrap();
        let view = game.view(Viewer::Seat(seat));
        let legal = view.legal().unwrap();
        let action = bot.choose(&view, &legal);
        assert_eq!(legal.check(&action), Ok(()), "{action}");
        action
    }

    /// Lets `bot` play the seat to act: its choice, applied.
    fn bot_plays(bot: &mut GreedyBot, game: &mut Game) -> Action {
        let seat = game.to_act().unwrap();
        let action = choose(bot, game);
        act(game, seat.0, action.clone());
        action
    }

    fn discard(text: &str) -> Action {
        Action::Discard { card: card(text) }
    }

    #[test]
    fn a_black_three_is_discarded_first() {
        let mut game = arranged(&["3C 4D 5H 6S 7C 8D 9H 10S JC QD KH"], "8S", "AS", [0, 0]);
        act(&mut game, 0, Action::DrawStock);
        assert_eq!(choose(&mut GreedyBot::new(), &game), discard("3C"));
    }

    #[test]
    fn pairs_are_kept() {
        let mut game = arranged(&["5C 5D 7H 8S 9C 10D JH QS KC AD 4H"], "8H", "6S", [0, 0]);
        act(&mut game, 0, Action::DrawStock);
        let a = choose(&mut GreedyBot::new(), &game);
        assert!(
            !matches!(a, Action::Discard { card } if card.rank() == Rank::Five),
            "{a}"
        );
        // High values go first among cards alike.
        assert_eq!(a, discard("AD"));
    }

    /// Seat 0 to play, with a two, after two rounds: a pile of nine natural cards.
    fn big_pile(scores: [i32; 2]) -> Game {
        let mut game = arranged(
            &["2C 4D 5H 6S 7C 8D 9H 10S JC QD KH"],
            "8S",
            "AH 5C 6C 7D AD 8C 9C 10C AS",
            scores,
        );
        pass(&mut game, &[0, 1, 2, 3, 0, 1, 2, 3]);
        act(&mut game, 0, Action::DrawStock);
        assert_eq!(game.pile().len(), 9);
        assert!(!game.pile_frozen());
        game
    }

    #[test]
    fn a_two_freezes_a_big_pile_when_far_behind() {
        let game = big_pile([0, 1500]);
        assert_eq!(choose(&mut GreedyBot::new(), &game), discard("2C"));
        // Not behind: the two is kept.
        let game = big_pile([0, 0]);
        let a = choose(&mut GreedyBot::new(), &game);
        assert!(
            !matches!(a, Action::Discard { card } if card.is_wild()),
            "{a}"
        );
    }

    #[test]
    fn the_pile_is_taken_onto_a_meld() {
        let mut game = arranged(
            &["KC KD KH AS AD AH 4D 5H 6S 7C 8D"],
            "JD",
            "9C 10D JS KS",
            [0, 0],
        );
        act(&mut game, 0, Action::DrawStock);
        act(
            &mut game,
            0,
            Action::Meld {
                melds: [
                    MeldSpec::new_meld(cards("KC KD KH")),
                    MeldSpec::new_meld(cards("AS AD AH")),
                ]
                .into_iter()
                .collect(),
            },
        );
        act(&mut game, 0, discard("9C"));
        // Seat 3 (an opponent) discards a king.
        pass(&mut game, &[1, 2, 3]);
        assert_eq!(game.pile().last(), Some(&card("KS")));
        let kings = game
            .melds(Side(0))
            .iter()
            .position(|m| m.kind == MeldKind::Group(Rank::King))
            .unwrap() as u8;
        let a = choose(&mut GreedyBot::new(), &game);
        assert_eq!(
            a,
            Action::TakePile {
                top: TopMeld {
                    target: MeldTarget::Existing(kings),
                    cards: CardCounts::new(),
                },
                melds: MeldBatch::new(),
            }
        );
    }

    #[test]
    fn the_partner_question_is_answered_by_the_cost_of_the_hand() {
        for (hand, yes) in [
            // 70 points in hand: less than the 100 for going out.
            ("4C 4D 5C 5D 6C 6D 7C 7D 8C 8D 9C", true),
            // 190 points.
            ("AC AD AH KC KD KH QC QD QH Jk 2C", false),
        ] {
            let mut game = arranged(&["", "", hand], "JS", "", [0, 0]);
            act(&mut game, 0, Action::DrawStock);
            act(&mut game, 0, Action::AskPartner);
            assert_eq!(game.to_act(), Some(Seat(2)));
            assert_eq!(
                choose(&mut GreedyBot::new(), &game),
                Action::AnswerPartner { yes },
                "{hand}"
            );
        }
    }

    /// Seat 0 with a mixed canasta of kings and five queens on the table (three of them laid
    /// by its partner), holding 9D and QC after its draw: it can go out.
    fn ready_to_go_out(scores: [i32; 2]) -> Game {
        let mut game = arranged(
            &[
                "KC KD KH KS KC KD Jk QC QD QH 8C",
                "",
                "QS QH 4C 5D 6H 7S 8D 9S 10H JC AC",
            ],
            "5S",
            "9D JD 10D JH QC",
            scores,
        );
        act(&mut game, 0, Action::DrawStock);
        act(
            &mut game,
            0,
            Action::Meld {
                melds: [
                    MeldSpec::new_meld(cards("KC KD KH KS KC KD Jk")),
                    MeldSpec::new_meld(cards("QC QD QH")),
                ]
                .into_iter()
                .collect(),
            },
        );
        act(&mut game, 0, discard("8C"));
        pass(&mut game, &[1]);
        act(&mut game, 2, Action::DrawStock);
        act(
            &mut game,
            2,
            Action::Meld {
                melds: [MeldSpec::add_to(1, cards("QS QH"))].into_iter().collect(),
            },
        );
        act(&mut game, 2, discard("10D"));
        pass(&mut game, &[3]);
        act(&mut game, 0, Action::DrawStock);
        assert_eq!(*game.hand(Seat(0)), cards("9D QC"));
        assert!(game.legal().unwrap().first_go_out().is_some());
        game
    }

    /// What the bot plays in seat 0 after drawing a jack, with `hand` dealt and the scores
    /// `scores` (its side's first): the choice for an initial meld.
    fn play_after_drawing(hand: &str, scores: [i32; 2]) -> Action {
        let mut game = arranged(&[hand], "8S", "JS", scores);
        act(&mut game, 0, Action::DrawStock);
        choose(&mut GreedyBot::new(), &game)
    }

    fn new_melds(melds: &[&str]) -> Action {
        Action::Meld {
            melds: batch(melds.iter().map(|m| MeldSpec::new_meld(cards(m)))),
        }
    }

    // The bot's initial meld takes the groups worth most first, and stops as soon as the minimum
    // (50 at a score of 0) is reached: the fours stay in hand.
    #[test]
    fn the_initial_meld_takes_the_groups_worth_most_first() {
        assert_eq!(
            play_after_drawing("4C 4D 4H 7C 7D 7H 7S KC KD KH 9S", [0, 0]),
            new_melds(&["KC KD KH", "7C 7D 7H 7S"])
        );
    }

    // With no group of three, the bot completes pairs with wild cards, the highest pair first and
    // twos before jokers, until the minimum (90 at a score of 1500) is reached.
    #[test]
    fn an_initial_meld_of_pairs_uses_twos_before_jokers() {
        assert_eq!(
            play_after_drawing("AC AD QC QD 5C 5D 2C Jk 8H 9S 10H", [1500, 0]),
            new_melds(&["AC AD 2C", "QC QD Jk"])
        );
        // Below the minimum even with every pair completed: no meld, a discard.
        let a = play_after_drawing("AC AD QC QD 5C 5D 2C 6H 8H 9S 10H", [1500, 0]);
        assert!(matches!(a, Action::Discard { .. }), "{a}");
    }

    #[test]
    fn going_out_at_once_when_ahead() {
        let game = ready_to_go_out([0, 0]);
        let a = choose(&mut GreedyBot::new(), &game);
        assert!(matches!(a, Action::GoOut { .. }), "{a}");
    }

    #[test]
    fn holding_back_from_going_out_when_behind_with_a_canasta_in_reach() {
        let game = ready_to_go_out([0, 2000]);
        // Not out: the queens (five) are two cards from a canasta, the opponents far from
        // going out. The queen stays in hand for the meld.
        assert_eq!(choose(&mut GreedyBot::new(), &game), discard("9D"));
    }

    // The opponents took a pile holding the 7D: the bot keeps its own seven (they may hold a
    // pair now) and breaks a pair instead. Had the pile stayed, the seven was its discard.
    #[test]
    fn cards_the_opponents_took_with_the_pile_are_not_discarded() {
        for taken in [true, false] {
            let mut game = arranged(
                &[
                    "4C 4D 5C 5D 6C 6D 7C 8C 8D 9C 9D",
                    "AC AD KC QC JC 10C 10S JH QH KH 5H",
                ],
                "7D",
                "AS KS QS 9H 9H",
                [0, 0],
            );
            let mut bot = GreedyBot::new();
            assert_eq!(bot_plays(&mut bot, &mut game), Action::DrawStock);
            assert_eq!(bot_plays(&mut bot, &mut game), discard("AS"));
            if taken {
                act(
                    &mut game,
                    1,
                    Action::TakePile {
                        top: TopMeld {
                            target: MeldTarget::New,
                            cards: cards("AC AD"),
                        },
                        melds: MeldBatch::new(),
                    },
                );
                act(&mut game, 1, discard("KC"));
            } else {
                pass(&mut game, &[1]);
            }
            pass(&mut game, &[2, 3]);
            assert_eq!(bot_plays(&mut bot, &mut game), Action::DrawStock);
            assert_eq!(game.hand(Seat(0)).rank_count(Rank::Nine), 3);
            let a = choose(&mut bot, &game);
            if taken {
                assert!(
                    !matches!(a, Action::Discard { card } if card.rank() == Rank::Seven),
                    "{a}"
                );
            } else {
                assert_eq!(a, discard("7C"));
            }
        }
    }

    #[test]
    fn greedy_bots_play_legal_matches_under_every_preset() {
        for preset in Preset::ALL {
            let spec = RuleSpec::new(preset, 4);
            let mut game = Game::new(&Setup::seeded(spec, 11)).unwrap();
            let mut bots: Vec<Box<dyn Bot>> =
                (0..4).map(|_| Box::new(GreedyBot::new()) as _).collect();
            match play(&mut game, &mut bots, 30, |_| {}) {
                Ok(_) => assert!(game.winner().is_some()),
                Err(e) => panic!("{preset}: {e}"),
            }
        }
    }

    // The README's claim, in-process: 100 seeded matches, 4 players, official rules, greedy
    // on side 0 for even seeds and on side 1 for odd ones.
    #[test]
    fn greedy_beats_random_in_95_of_100_matches() {
        let mut wins = 0;
        for seed in 0..100u64 {
            let greedy_side = (seed % 2) as u8;
            let spec = RuleSpec::new(Preset::Official, 4);
            let mut game = Game::new(&Setup::seeded(spec, seed)).unwrap();
            let mut bots: Vec<Box<dyn Bot>> = (0..4u64)
                .map(|s| -> Box<dyn Bot> {
                    if s % 2 == greedy_side as u64 {
                        Box::new(GreedyBot::new())
                    } else {
                        Box::new(RandomBot::new(seed * 31 + s))
                    }
                })
                .collect();
            play(&mut game, &mut bots, 200, |_| {}).unwrap();
            wins += (game.winner() == Some(Side(greedy_side))) as u32;
        }
        assert!(wins >= 95, "greedy won {wins} of 100");
    }
}
