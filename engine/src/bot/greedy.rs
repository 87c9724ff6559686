//! The `greedy` bot: a quick heuristic player. It builds the move it wants directly from its
//! view instead of searching all legal actions, and checks it before playing it:
//!
//! - it takes the pile when it pays (a big pile, or one it can take onto a meld or with a pair),
//!   making its initial meld with the take when it must;
//! - it melds towards canastas: three or more naturals of a rank, naturals onto its melds, wild
//!   cards onto melds close to a canasta; it keeps pairs in hand to take the pile with;
//! - it discards safely: black threes first, then cards no opponent can use, high values before
//!   low ones; when far behind it freezes a big pile with a two;
//! - it goes out as soon as it can, and answers its partner by comparing what its own hand would
//!   cost with the bonus for going out.

use super::Bot;
use crate::action::{Action, MeldBatch, MeldSpec, MeldTarget, TopMeld};
use crate::card::{Card, CardCounts, Rank, Suit};
use crate::legal::LegalChoices;
use crate::meld::{CANASTA_LEN, Meld, MeldKind};
use crate::view::{SideView, View};
use smallvec::SmallVec;

/// The greedy heuristic bot (see the module documentation). Deterministic.
#[derive(Clone, Debug, Default)]
pub struct GreedyBot {
    actions: Vec<Action>,
}

impl GreedyBot {
    /// A greedy bot.
    pub fn new() -> GreedyBot {
        GreedyBot::default()
    }
}

/// What the bot knows of its position, read once per decision.
struct Pos<'v> {
    view: &'v View,
    hand: CardCounts,
    mine: &'v SideView,
    /// The ranks of the opponents' groups, one bit per rank: read once, asked per card.
    opponent_ranks: u16,
}

impl<'v> Pos<'v> {
    fn new(view: &'v View) -> Option<Pos<'v>> {
        let seat = view.to_act?;
        let me = view.seats.get(seat.index())?;
        let mine = view.sides.get(me.side.index())?;
        let opponent_ranks = view
            .sides
            .iter()
            .filter(|s| s.side != mine.side)
            .flat_map(|s| s.melds.iter())
            .filter_map(|m| match m.kind {
                MeldKind::Group(r) => Some(1u16 << r as u16),
                _ => None,
            })
            .fold(0, |all, bit| all | bit);
        Some(Pos {
            view,
            hand: me.hand?,
            mine,
            opponent_ranks,
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

    /// Ranks the opponents have melded: discarding them feeds the opponents.
    fn opponents_meld(&self, rank: Rank) -> bool {
        self.opponent_ranks & (1 << rank as u16) != 0
    }

    /// How far behind the best opponent the side is.
    fn behind(&self) -> i32 {
        let best = self
            .view
            .sides
            .iter()
            .filter(|s| s.side != self.mine.side)
            .map(|s| s.score)
            .max()
            .unwrap_or(0);
        best - self.mine.score
    }
}

/// Cards of a rank from `from`, lowest suits first.
fn take(from: &CardCounts, rank: Rank, n: u8) -> CardCounts {
    let mut out = CardCounts::new();
    let mut need = n;
    for s in Suit::ALL {
        let c = Card::new(rank, s);
        let k = from.count(c).min(need);
        out.add_n(c, k);
        need -= k;
    }
    out
}

/// One wild card, twos before jokers (a joker is worth more in a meld's count and in hand).
fn a_wild(from: &CardCounts) -> Option<Card> {
    from.any_of_rank(Rank::Two)
        .or_else(|| (from.jokers() > 0).then_some(Card::JOKER))
}

fn batch(specs: impl IntoIterator<Item = MeldSpec>) -> MeldBatch {
    specs.into_iter().collect()
}

impl GreedyBot {
    /// Melds from `hand` (no group of rank `skip`) that bring `value` up to `minimum`: triples
    /// and bigger groups first, then pairs with a wild card. `None` if they cannot.
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
        let mut counts = [0u8; 14];
        for r in Rank::NATURALS {
            if Some(r) != skip {
                counts[r as usize] = hand.rank_count(r);
            }
        }
        let mut left = *hand;
        let mut specs = MeldBatch::new();
        let mut ranks: SmallVec<[Rank; 11]> = Rank::NATURALS
            .into_iter()
            .filter(|&r| counts[r as usize] >= 3)
            .collect();
        ranks.sort_by_key(|&r| std::cmp::Reverse(r.value() * counts[r as usize] as u32));
        for r in ranks {
            if value >= minimum {
                break;
            }
            let cards = take(&left, r, counts[r as usize]);
            value += cards.value();
            left.remove_all(&cards);
            specs.push(MeldSpec::new_meld(cards));
        }
        let mut pairs: SmallVec<[Rank; 11]> = Rank::NATURALS
            .into_iter()
            .filter(|&r| counts[r as usize] == 2)
            .collect();
        pairs.sort_by_key(|&r| std::cmp::Reverse(r.value()));
        for r in pairs {
            if value >= minimum {
                break;
            }
            let Some(wild) = a_wild(&left) else { break };
            let mut cards = take(&left, r, 2);
            cards.add(wild);
            value += cards.value();
            left.remove_all(&cards);
            specs.push(MeldSpec::new_meld(cards));
        }
        (value >= minimum).then_some(specs)
    }

    fn draw_phase(&mut self, pos: &Pos<'_>, legal: &LegalChoices<'_>) -> Option<Action> {
        let view = pos.view;
        let hand = &pos.hand;
        if let Some(&top) = view.pile.last()
            && !view.pile_blocked
            && top.is_natural()
        {
            let r = top.rank();
            let frozen = view.pile_frozen || !pos.mine.melded;
            let mut tries: SmallVec<[Action; 3]> = SmallVec::new();
            let take_pile = |target, cards, melds: MeldBatch| Action::TakePile {
                top: TopMeld { target, cards },
                melds,
            };
            if !pos.mine.melded {
                if hand.rank_count(r) >= 2 {
                    let pair = take(hand, r, 2);
                    let mut rest = *hand;
                    rest.remove_all(&pair);
                    let value = pair.value() + top.value();
                    if let Some(extra) = Self::initial_melds(pos, &rest, Some(r), value) {
                        tries.push(take_pile(MeldTarget::New, pair, extra));
                    }
                }
            } else {
                if let Some(id) = pos.group_of(r) {
                    let cards = if frozen {
                        take(hand, r, 2)
                    } else {
                        CardCounts::new()
                    };
                    tries.push(take_pile(
                        MeldTarget::Existing(id as u8),
                        cards,
                        MeldBatch::new(),
                    ));
                }
                if hand.rank_count(r) >= 2 {
                    tries.push(take_pile(
                        MeldTarget::New,
                        take(hand, r, 2),
                        MeldBatch::new(),
                    ));
                }
                if !frozen
                    && view.pile.len() >= 5
                    && hand.rank_count(r) == 1
                    && let Some(w) = a_wild(hand)
                {
                    let mut cards = take(hand, r, 1);
                    cards.add(w);
                    tries.push(take_pile(MeldTarget::New, cards, MeldBatch::new()));
                }
            }
            // A pile of one or two cards is not worth a pair from the hand.
            let worth = view.pile.len() >= 3 || pos.group_of(r).is_some();
            if worth || view.stock_len == 0 {
                for a in tries {
                    if legal.check(&a).is_ok() {
                        return Some(a);
                    }
                }
            }
        }
        // Drawing is legal whenever the stock has cards.
        (view.stock_len > 0).then_some(Action::DrawStock)
    }

    fn play_phase(&mut self, pos: &Pos<'_>, legal: &LegalChoices<'_>) -> Option<Action> {
        let hand = &pos.hand;
        // Going out: listed in full for a small hand.
        if hand.len() <= 4 + hand.black_threes() as usize
            && let Some(out) = legal.first_go_out()
        {
            return Some(out);
        }
        if let Some(m) = self.meld(pos) {
            let a = Action::Meld { melds: m };
            if legal.check(&a).is_ok() {
                return Some(a);
            }
        }
        self.discard(pos, legal)
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
                    return Some(batch([MeldSpec::add_to(id as u8, take(hand, r, n))]));
                }
            }
        }
        // New groups of three naturals or more; pairs stay in hand for the pile.
        for r in Rank::NATURALS {
            let n = hand.rank_count(r);
            if n >= 3 && pos.group_of(r).is_none() && (n as usize) <= spare {
                return Some(batch([MeldSpec::new_meld(take(hand, r, n))]));
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
    fn discard(&self, pos: &Pos<'_>, legal: &LegalChoices<'_>) -> Option<Action> {
        let hand = &pos.hand;
        let view = pos.view;
        // Far behind with a big unfrozen pile: freeze it with a two.
        if pos.behind() > 1000
            && view.pile.len() >= 6
            && !view.pile_frozen
            && let Some(two) = hand.any_of_rank(Rank::Two)
        {
            let a = Action::Discard { card: two };
            if legal.check(&a).is_ok() {
                return Some(a);
            }
        }
        // (danger, keeps a pair, 100 - value), lowest first, packed in one number: danger in
        // bits 16 and up, the pair in bits 8 to 15, 100 - value (50 to 100) in bits 0 to 7.
        let risk = |c: Card| -> u32 {
            if c.is_black_three() {
                return 0;
            }
            if c.is_wild() {
                return 3 << 16 | (100 - c.value());
            }
            let danger = pos.opponents_meld(c.rank()) as u32 * 2;
            let pair = (hand.rank_count(c.rank()) >= 2) as u32;
            danger << 16 | pair << 8 | (100 - c.value())
        };
        // The first card (in card order) of the lowest risk.
        let mut best: Option<(u32, Card)> = None;
        for (i, &n) in hand.as_array().iter().enumerate() {
            if n == 0 {
                continue;
            }
            let c = Card::from_index(i as u8)?;
            let r = risk(c);
            if best.is_none_or(|(b, _)| r < b) {
                best = Some((r, c));
            }
        }
        let (_, best) = best?;
        let a = Action::Discard { card: best };
        legal.check(&a).is_ok().then_some(a)
    }
}

impl Bot for GreedyBot {
    fn name(&self) -> &str {
        "greedy"
    }

    fn choose(&mut self, view: &View, legal: &LegalChoices<'_>) -> Action {
        let chosen = match (legal.phase(), Pos::new(view)) {
            (crate::game::Phase::Answer, Some(pos)) => {
                // Yes when what my hand would cost is less than the bonus the going out earns.
                let cost = pos.hand.value() as i32;
                Some(Action::AnswerPartner {
                    yes: cost <= view.rules.going_out_bonus,
                })
            }
            (crate::game::Phase::Draw, Some(pos)) => self.draw_phase(&pos, legal),
            (crate::game::Phase::Play, Some(pos)) => self.play_phase(&pos, legal),
            _ => None,
        };
        // Every action chosen above was checked where it was built (drawing and answering
        // are legal whenever the phase asks for them): checking again would only cost time.
        match chosen {
            Some(a) => {
                debug_assert_eq!(legal.check(&a), Ok(()), "{a}");
                a
            }
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
                take.or_else(|| self.actions.first().cloned())
                    .expect("a seat asked to act always has a legal action")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::{RandomBot, play};
    use crate::game::{Game, Setup};
    use crate::rules::{Preset, RuleSpec};

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

    #[test]
    fn greedy_beats_random_in_a_quick_match() {
        let spec = RuleSpec::new(Preset::Official, 2);
        let mut game = Game::new(&Setup::seeded(spec, 5)).unwrap();
        let mut bots: Vec<Box<dyn Bot>> =
            vec![Box::new(GreedyBot::new()), Box::new(RandomBot::new(1))];
        play(&mut game, &mut bots, 200, |_| {}).unwrap();
        assert_eq!(game.winner(), Some(crate::table::Side(0)));
    }
}
