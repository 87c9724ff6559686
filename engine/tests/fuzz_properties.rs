//! The fuzz target `apply_actions` (see fuzz/README.md) as a property test of the normal suite:
//! random reachable states of every preset and player count, and arbitrary, mostly illegal
//! actions sent for any seat.
//!
//! - Nothing panics.
//! - A refused action changes nothing: the state hash and every seat's and the spectator's
//!   view are as before, and `check` refuses it with the same error.
//! - An accepted action was accepted by `check`, keeps every card of the pack, and is listed
//!   by the enumerator where the enumerator promises completeness (see the canonical form in
//!   the documentation of `canasta_engine::legal`): the simple actions (draw, discard, ask,
//!   answer, decline) exactly, a meld or a pile take as at least one listed action of its kind
//!   (the turn it starts can be played with listed actions only).
//!
//! Runs the proptest default number of cases; set `PROPTEST_CASES` for a longer run. The rule
//! sets are the layouts of `common::layouts`: every preset, player count and seating the rules
//! accept, and the Rasche options.

mod common;

use canasta_engine::bot::RandomBot;
use canasta_engine::{
    Action, Card, CardCounts, Game, MeldBatch, MeldSpec, MeldTarget, Preset, RuleSpec, Seat, Setup,
    TopMeld, View, Viewer,
};
use common::layouts::layouts;
use proptest::prelude::*;

/// A card as the strategy picks it: one the seat holds (by position among its kinds), or any
/// kind of card.
#[derive(Clone, Copy, Debug)]
enum Pick {
    Held(usize),
    Any(u8),
}

impl Pick {
    fn card(self, hand: &CardCounts) -> Card {
        let kinds: Vec<Card> = hand.iter_kinds().map(|(c, _)| c).collect();
        match self {
            Pick::Held(i) if !kinds.is_empty() => kinds[i % kinds.len()],
            Pick::Held(i) => Card::from_index((i % 53) as u8).expect("a card kind"),
            Pick::Any(k) => Card::from_index(k % 53).expect("a card kind"),
        }
    }
}

/// A meld entry: its target (`None` for a new meld) and its cards.
type Spec = (Option<u8>, Vec<Pick>);

/// An action as the strategy builds it; made concrete against the acting seat's hand.
#[derive(Clone, Debug)]
enum Junk {
    Draw,
    Take(Spec, Vec<Spec>),
    Meld(Vec<Spec>),
    Discard(Pick),
    GoOut(Vec<Spec>, Option<Pick>),
    Ask,
    Answer(bool),
    Decline,
    /// A listed legal action (by position), changed a little: near misses and legal actions in
    /// other than canonical form.
    Listed(usize, Change),
}

/// How a listed action is changed.
#[derive(Clone, Copy, Debug)]
enum Change {
    Nothing,
    /// One more card in its first meld entry.
    AddCard(Pick),
    /// One card fewer in its first meld entry (the n-th, modulo its size).
    DropCard(usize),
    /// The first meld entry sent elsewhere.
    Retarget(Option<u8>),
    /// A card of the first meld entry exchanged for another suit of its rank.
    OtherSuit(usize, u8),
}

fn pick() -> impl Strategy<Value = Pick> {
    prop_oneof![
        3 => any::<usize>().prop_map(Pick::Held),
        1 => any::<u8>().prop_map(Pick::Any),
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop_oneof![2 => Just(None), 2 => (0u8..6).prop_map(Some), 1 => any::<u8>().prop_map(Some)],
        prop::collection::vec(pick(), 0..8),
    )
}

fn specs() -> impl Strategy<Value = Vec<Spec>> {
    prop::collection::vec(spec(), 0..4)
}

fn junk() -> impl Strategy<Value = Junk> {
    prop_oneof![
        1 => Just(Junk::Draw),
        1 => (spec(), specs()).prop_map(|(t, m)| Junk::Take(t, m)),
        1 => specs().prop_map(Junk::Meld),
        1 => pick().prop_map(Junk::Discard),
        1 => (specs(), prop::option::of(pick())).prop_map(|(m, d)| Junk::GoOut(m, d)),
        1 => Just(Junk::Ask),
        1 => any::<bool>().prop_map(Junk::Answer),
        1 => Just(Junk::Decline),
        4 => (any::<usize>(), change()).prop_map(|(i, c)| Junk::Listed(i, c)),
    ]
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        Just(Change::Nothing),
        pick().prop_map(Change::AddCard),
        any::<usize>().prop_map(Change::DropCard),
        prop::option::of(0u8..6).prop_map(Change::Retarget),
        (any::<usize>(), 0u8..4).prop_map(|(i, s)| Change::OtherSuit(i, s)),
    ]
}

/// The first meld entry of an action, if it has one.
fn first_entry(action: &mut Action) -> Option<(&mut MeldTarget, &mut CardCounts)> {
    match action {
        Action::TakePile { top, .. } => Some((&mut top.target, &mut top.cards)),
        Action::Meld { melds } | Action::GoOut { melds, .. } => {
            melds.first_mut().map(|m| (&mut m.target, &mut m.cards))
        }
        _ => None,
    }
}

impl Change {
    fn apply(self, mut action: Action, hand: &CardCounts) -> Action {
        if let Some((target, cards)) = first_entry(&mut action) {
            let nth = |i: usize| cards.iter().nth(i % cards.len().max(1));
            match self {
                Change::Nothing => {}
                Change::AddCard(p) => cards.add(p.card(hand)),
                Change::DropCard(i) => {
                    if let Some(c) = nth(i) {
                        assert!(cards.remove(c), "a card of the list");
                    }
                }
                Change::Retarget(t) => *target = t.map_or(MeldTarget::New, MeldTarget::Existing),
                Change::OtherSuit(i, suit) => {
                    if let Some(c) = nth(i).filter(|c| c.suit().is_some()) {
                        assert!(cards.remove(c), "a card of the list");
                        cards.add(Card::new(
                            c.rank(),
                            canasta_engine::Suit::ALL[suit as usize],
                        ));
                    }
                }
            }
        }
        action
    }
}

fn concrete_spec((target, picks): &Spec, hand: &CardCounts) -> MeldSpec {
    MeldSpec {
        target: target.map_or(MeldTarget::New, MeldTarget::Existing),
        cards: picks.iter().map(|p| p.card(hand)).collect(),
    }
}

fn concrete_batch(specs: &[Spec], hand: &CardCounts) -> MeldBatch {
    specs.iter().map(|s| concrete_spec(s, hand)).collect()
}

impl Junk {
    /// The action, its cards from `hand`; `listed` are the legal actions of the seat to act.
    fn action(&self, hand: &CardCounts, listed: &[Action]) -> Action {
        match self {
            Junk::Listed(_, _) if listed.is_empty() => Action::DrawStock,
            Junk::Listed(i, change) => change.apply(listed[i % listed.len()].clone(), hand),
            Junk::Draw => Action::DrawStock,
            Junk::Take(top, melds) => {
                let top = concrete_spec(top, hand);
                Action::TakePile {
                    top: TopMeld {
                        target: top.target,
                        cards: top.cards,
                    },
                    melds: concrete_batch(melds, hand),
                }
            }
            Junk::Meld(melds) => Action::Meld {
                melds: concrete_batch(melds, hand),
            },
            Junk::Discard(p) => Action::Discard { card: p.card(hand) },
            Junk::GoOut(melds, discard) => Action::GoOut {
                melds: concrete_batch(melds, hand),
                discard: discard.map(|p| p.card(hand)),
            },
            Junk::Ask => Action::AskPartner,
            Junk::Answer(yes) => Action::AnswerPartner { yes: *yes },
            Junk::Decline => Action::DeclinePile,
        }
    }
}

/// Every view: each seat's, then the spectator's.
fn views(game: &Game) -> Vec<View> {
    (0..game.table().players())
        .map(|s| Viewer::Seat(Seat(s)))
        .chain([Viewer::Spectator])
        .map(|v| game.view(v))
        .collect()
}

/// Applies `action` for `seat` and checks every property of the module documentation; true if
/// it was accepted.
fn apply_and_check(game: &mut Game, seat: Seat, action: &Action, pack: &CardCounts) -> bool {
    let hash = game.state_hash();
    let before = views(game);
    let checked = game.check(seat, action);
    let mut listed = Vec::new();
    if checked.is_ok() {
        game.legal_actions(&mut listed);
    }
    match game.apply(seat, action) {
        Err(e) => {
            assert_eq!(
                game.state_hash(),
                hash,
                "refused {action} changed the state"
            );
            assert_eq!(views(game), before, "refused {action} changed a view");
            assert_eq!(checked, Err(e), "check and apply disagree on {action}");
            false
        }
        Ok(_) => {
            assert_eq!(checked, Ok(()), "{action} applied, but check refused it");
            assert_eq!(
                &game.all_cards(),
                pack,
                "{action} lost or duplicated a card"
            );
            let listed_as = |f: fn(&Action) -> bool| listed.iter().any(f);
            match action {
                Action::Meld { .. } => assert!(
                    listed_as(|a| matches!(a, Action::Meld { .. })),
                    "{action} applied, but no meld is listed"
                ),
                Action::TakePile { .. } => assert!(
                    listed_as(|a| matches!(a, Action::TakePile { .. })),
                    "{action} applied, but no pile take is listed"
                ),
                // Going out is listed only for small hands (the canonical form).
                Action::GoOut { .. } => {}
                simple => assert!(
                    listed.contains(simple),
                    "{simple} applied, but the enumerator does not list it: {listed:?}"
                ),
            }
            true
        }
    }
}

/// Plays `steps` random legal actions, then sends each junk action for the seat `seats` picks
/// (0 to 3: the seat to act; higher: that seat number, existing or not), with a random legal
/// step after every other one to move on. Returns the kinds of the junk actions accepted.
fn run(layout: usize, seed: u64, steps: u32, moves: &[(u8, Junk)]) -> Vec<&'static str> {
    let all = layouts();
    let setup = Setup::seeded(all[layout % all.len()].clone(), seed);
    let mut game = Game::new(&setup).expect("every layout is valid");
    let pack = game.all_cards();
    let mut bot = RandomBot::new(seed ^ 0xf022);
    let mut step = |game: &mut Game| -> bool {
        let Some(seat) = game.to_act() else {
            return false;
        };
        let action = bot.pick(&game.legal().expect("a seat to act has choices"));
        game.apply(seat, &action).expect("a listed action applies");
        true
    };
    for _ in 0..steps {
        if !step(&mut game) {
            break;
        }
    }
    let mut accepted = Vec::new();
    for (i, (who, junk)) in moves.iter().enumerate() {
        let seat = match (game.to_act(), who) {
            (Some(s), 0..=3) => s,
            (_, n) => Seat(n.saturating_sub(4)),
        };
        let players = game.table().players();
        let hand = *game.hand(Seat(seat.0 % players));
        let mut listed = Vec::new();
        game.legal_actions(&mut listed);
        let action = junk.action(&hand, &listed);
        if apply_and_check(&mut game, seat, &action, &pack) {
            accepted.push(action.kind_name());
        }
        if i % 2 == 1 && !step(&mut game) {
            break;
        }
    }
    accepted
}

/// The junk is not all refused at the door: in a fixed sample, draws, discards, melds, pile
/// takes, questions and answers are accepted, so the properties of accepted actions are
/// exercised; most of it is refused.
#[test]
fn some_junk_is_accepted() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut accepted = std::collections::BTreeMap::new();
    let mut sent = 0;
    for case in 0..300u64 {
        let moves: Vec<(u8, Junk)> = (0..16)
            .map(|_| {
                let who = (0u8..12).new_tree(&mut runner).unwrap().current();
                (who, junk().new_tree(&mut runner).unwrap().current())
            })
            .collect();
        sent += moves.len();
        for kind in run(case as usize, case, (case * 7 % 500) as u32, &moves) {
            *accepted.entry(kind).or_insert(0) += 1;
        }
    }
    for kind in [
        "draw",
        "discard",
        "meld",
        "take the pile",
        "ask your partner",
        "answer",
    ] {
        assert!(
            accepted.contains_key(kind),
            "no {kind} accepted: {accepted:?}"
        );
    }
    let total: usize = accepted.values().sum();
    assert!(total < sent / 2, "{total} of {sent} junk actions accepted");
}

proptest! {
    #[test]
    fn arbitrary_actions_on_reachable_states(
        layout in any::<usize>(),
        seed in any::<u64>(),
        steps in 0u32..700,
        moves in prop::collection::vec((0u8..12, junk()), 1..24),
    ) {
        run(layout, seed, steps, &moves);
    }
}

/// Regression (found by fuzzing): start scores near the limits of `i32` overflowed when the
/// first deal was scored (a panic in debug builds, a wrong winner in release). They are refused
/// at setup; scores up to the bound play on.
#[test]
fn huge_start_scores_are_refused_not_overflowed() {
    use canasta_engine::SetupError;
    use canasta_engine::game::MAX_START_SCORE;
    let spec = RuleSpec::new(Preset::Official, 2);
    for bad in [
        i32::MAX,
        i32::MIN,
        MAX_START_SCORE + 1,
        -MAX_START_SCORE - 1,
    ] {
        let setup = Setup {
            start_scores: vec![0, bad],
            ..Setup::seeded(spec.clone(), 3)
        };
        let e = Game::new(&setup).unwrap_err();
        assert_eq!(e, SetupError::StartScoreRange { score: bad });
        assert_eq!(e.code(), "BAD_START_SCORES");
    }
    for edge in [MAX_START_SCORE, -MAX_START_SCORE] {
        let setup = Setup {
            start_scores: vec![edge, -edge],
            ..Setup::seeded(spec.clone(), 3)
        };
        let mut game = Game::new(&setup).expect("a start score at the bound");
        let mut bot = RandomBot::new(1);
        while game.history().is_empty() {
            let seat = game.to_act().expect("the deal goes on");
            let action = bot.pick(&game.legal().expect("choices"));
            game.apply(seat, &action).expect("a listed action");
        }
        let deal = &game.history()[0];
        assert_eq!(
            game.scores(),
            [edge + deal.sides[0].total, -edge + deal.sides[1].total]
        );
    }
}
