//! What the fuzz targets share: games reached by random legal play from fuzz bytes, and
//! arbitrary (mostly illegal) actions built from fuzz bytes.
//!
//! Everything is read from one [`Unstructured`], so a crashing input replays exactly.

use arbitrary::{Result, Unstructured};
use canasta_engine::rng::Xoshiro256;
use canasta_engine::rules::OPTION_DOCS;
use canasta_engine::{
    Action, Card, CardCounts, Game, MeldBatch, MeldSpec, MeldTarget, Preset, RuleSpec, Seat, Setup,
    TopMeld,
};

/// Most random legal steps taken to reach a state: enough to pass several deals.
pub const MAX_STEPS: u32 = 600;

/// A rule set from the bytes: a preset, a player count (sometimes one the preset refuses), and
/// now and then option overrides by name with numbers, booleans or junk as values.
pub fn rule_spec(u: &mut Unstructured<'_>) -> Result<RuleSpec> {
    let preset = *u.choose(&Preset::ALL)?;
    let players = if u.ratio(1, 16)? {
        u.arbitrary()?
    } else {
        u.int_in_range(2..=6)?
    };
    let mut spec = RuleSpec::new(preset, players);
    if u.ratio(1, 4)? {
        for _ in 0..u.int_in_range(1..=3)? {
            let name = u.choose(OPTION_DOCS)?.0;
            let value = match u.int_in_range(0..=3)? {
                0 => u.int_in_range(-2i64..=20)?.to_string(),
                1 => u.arbitrary::<i64>()?.to_string(),
                2 => u.arbitrary::<bool>()?.to_string(),
                _ => u.arbitrary::<String>()?,
            };
            // A refused value is the setter's business (tested in `convert`); keep the rest.
            let _ = spec.options.set(name, &value);
        }
    }
    Ok(spec)
}

/// A started game and its pack, reached from a seeded deal by up to [`MAX_STEPS`] random legal
/// actions chosen by the bytes; `None` if the bytes asked for rules or a setup the engine
/// refuses (that refusal is all there is to check then).
pub fn reachable_game(u: &mut Unstructured<'_>) -> Result<Option<Game>> {
    let rules = rule_spec(u)?;
    let seed = u.arbitrary()?;
    let mut setup = Setup::seeded(rules, seed);
    if u.ratio(1, 8)? {
        // Start scores anywhere in the range of the type: a continued match.
        let sides = u.int_in_range(0..=3)?;
        setup.start_scores = (0..sides)
            .map(|_| u.arbitrary())
            .collect::<Result<Vec<i32>>>()?;
    }
    let Ok(mut game) = Game::new(&setup) else {
        return Ok(None);
    };
    let steps = u.int_in_range(0..=MAX_STEPS)?;
    let mut rng = Xoshiro256::seed_from_u64(u.arbitrary()?);
    let mut legal = Vec::new();
    for _ in 0..steps {
        if !random_step(&mut game, &mut rng, &mut legal) {
            break;
        }
    }
    Ok(Some(game))
}

/// Applies one legal action chosen by `rng`; false once the match is over.
pub fn random_step(game: &mut Game, rng: &mut Xoshiro256, legal: &mut Vec<Action>) -> bool {
    let Some(seat) = game.to_act() else {
        return false;
    };
    legal.clear();
    // Bounded, as the server lists: a huge hand before its side's initial meld has millions
    // of legal actions, and listing them all made the fuzzer run out of memory.
    if let Some(choices) = game.legal() {
        choices.actions_up_to(legal, 4096);
    }
    assert!(!legal.is_empty(), "no legal action for {seat:?}");
    let action = legal[rng.below(legal.len() as u64) as usize].clone();
    if let Err(e) = game.apply(seat, &action) {
        panic!("listed action {action} refused: {e}");
    }
    true
}

/// A card: most often one of `hand`, else any card kind.
pub fn card(u: &mut Unstructured<'_>, hand: &CardCounts) -> Result<Card> {
    let held: Vec<(Card, u8)> = hand.iter_kinds().collect();
    if !held.is_empty() && u.ratio(3, 4)? {
        return Ok(u.choose(&held)?.0);
    }
    Ok(Card::from_index(u.int_in_range(0..=52)?).expect("53 card kinds"))
}

/// A few cards, now and then many copies of one.
pub fn cards(u: &mut Unstructured<'_>, hand: &CardCounts) -> Result<CardCounts> {
    let mut out = CardCounts::new();
    for _ in 0..u.int_in_range(0..=8)? {
        let c = card(u, hand)?;
        let n = if u.ratio(1, 32)? { u.arbitrary()? } else { 1 };
        out.add_n(c, n);
    }
    Ok(out)
}

fn target(u: &mut Unstructured<'_>) -> Result<MeldTarget> {
    Ok(match u.int_in_range(0..=3)? {
        0 | 1 => MeldTarget::New,
        2 => MeldTarget::Existing(u.int_in_range(0..=6)?),
        _ => MeldTarget::Existing(u.arbitrary()?),
    })
}

fn batch(u: &mut Unstructured<'_>, hand: &CardCounts) -> Result<MeldBatch> {
    let n = if u.ratio(1, 64)? {
        u.int_in_range(0..=300)?
    } else {
        u.int_in_range(0..=4)?
    };
    (0..n)
        .map(|_| {
            Ok(MeldSpec {
                target: target(u)?,
                cards: cards(u, hand)?,
            })
        })
        .collect()
}

/// An engine action of any kind, its cards mostly from `hand`.
pub fn action(u: &mut Unstructured<'_>, hand: &CardCounts) -> Result<Action> {
    Ok(match u.int_in_range(0..=7)? {
        0 => Action::DrawStock,
        1 => Action::TakePile {
            top: TopMeld {
                target: target(u)?,
                cards: cards(u, hand)?,
            },
            melds: batch(u, hand)?,
        },
        2 => Action::Meld {
            melds: batch(u, hand)?,
        },
        3 => Action::Discard {
            card: card(u, hand)?,
        },
        4 => Action::GoOut {
            melds: batch(u, hand)?,
            discard: if u.arbitrary()? {
                Some(card(u, hand)?)
            } else {
                None
            },
        },
        5 => Action::AskPartner,
        6 => Action::AnswerPartner {
            yes: u.arbitrary()?,
        },
        _ => Action::DeclinePile,
    })
}

/// The seat an arbitrary action is sent for: mostly the seat to act, else any seat number
/// (even one the table does not have).
pub fn seat(u: &mut Unstructured<'_>, game: &Game) -> Result<Seat> {
    Ok(match (game.to_act(), u.int_in_range(0..=3)?) {
        (Some(s), 0 | 1) => s,
        (_, 2) => Seat(u.int_in_range(0..=game.table().players().saturating_sub(1))?),
        _ => Seat(u.arbitrary()?),
    })
}

/// The bodies of the fuzz targets, one module each, so that the project's test suite replays
/// their corpus without libFuzzer (tests/tests/fuzz_corpus.rs).
pub mod targets {
    pub mod apply_actions;
    pub mod convert;
    pub mod notation;
}
