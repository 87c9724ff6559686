//! The fuzz target `convert` (see fuzz/README.md) as a property test of the normal suite:
//! arbitrary wire actions, rule sets and card lists never make a conversion panic, and what
//! converts comes back the same through the wire. Values are drawn around the valid ones
//! (every enum value and its neighbours, indexes near 255, lists near the length limit) and
//! from the whole range of each type.

use canasta_engine::rules::OPTION_DOCS;
use canasta_engine::{Game, Rules, Setup};
use canasta_proto::convert::{
    self, MAX_CARDS, action_from_wire, action_to_wire, rules_from_wire, rules_to_wire,
};
use canasta_proto::v1;
use proptest::prelude::*;

/// An enum or card field: near the valid values, or anything.
fn enum_value() -> impl Strategy<Value = i32> {
    prop_oneof![4 => -2i32..18, 1 => any::<i32>()]
}

fn card() -> impl Strategy<Value = v1::Card> {
    (enum_value(), enum_value()).prop_map(|(rank, suit)| v1::Card { rank, suit })
}

/// A list of cards: short, or around the length limit.
fn cards() -> impl Strategy<Value = Vec<v1::Card>> {
    prop_oneof![
        8 => prop::collection::vec(card(), 0..8),
        1 => prop::collection::vec(card(), MAX_CARDS - 2..MAX_CARDS + 3),
    ]
}

fn meld_index() -> impl Strategy<Value = Option<u32>> {
    prop::option::of(prop_oneof![0u32..8, 250u32..260, any::<u32>()])
}

fn meld_spec() -> impl Strategy<Value = v1::MeldSpec> {
    (meld_index(), cards()).prop_map(|(meld_index, cards)| v1::MeldSpec { meld_index, cards })
}

fn meld_specs() -> impl Strategy<Value = Vec<v1::MeldSpec>> {
    prop_oneof![
        8 => prop::collection::vec(meld_spec(), 0..4),
        1 => prop::collection::vec(
            Just(v1::MeldSpec { meld_index: None, cards: vec![] }),
            MAX_CARDS - 1..MAX_CARDS + 2,
        ),
    ]
}

fn action() -> impl Strategy<Value = v1::Action> {
    use v1::action::Kind;
    let kind = prop_oneof![
        Just(Kind::DrawStock(v1::DrawStockAction {})),
        (meld_index(), cards(), meld_specs()).prop_map(|(meld_index, cards, melds)| {
            Kind::TakePile(v1::TakePileAction {
                meld_index,
                cards,
                melds,
            })
        }),
        meld_specs().prop_map(|melds| Kind::Meld(v1::MeldAction { melds })),
        prop::option::of(card()).prop_map(|card| Kind::Discard(v1::DiscardAction { card })),
        (meld_specs(), prop::option::of(card()))
            .prop_map(|(melds, discard)| Kind::GoOut(v1::GoOutAction { melds, discard })),
        Just(Kind::AskPartner(v1::AskPartnerAction {})),
        any::<bool>().prop_map(|yes| Kind::AnswerPartner(v1::AnswerPartnerAction { yes })),
        Just(Kind::DeclinePile(v1::DeclinePileAction {})),
    ];
    prop::option::of(kind).prop_map(|kind| v1::Action { kind })
}

/// An option: a documented name (or junk), and a number, a boolean or junk as its value.
fn option() -> impl Strategy<Value = (String, String)> {
    let name = prop_oneof![
        6 => prop::sample::select(OPTION_DOCS.iter().map(|d| d.0.to_string()).collect::<Vec<_>>()),
        1 => Just("rasche_a".to_string()),
        1 => ".{0,12}",
    ];
    let value = prop_oneof![
        (-3i64..20).prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<bool>().prop_map(|b| b.to_string()),
        ".{0,12}",
    ];
    (name, value)
}

fn rule_set() -> impl Strategy<Value = v1::RuleSet> {
    (
        enum_value(),
        prop_oneof![4 => 0u32..8, 1 => any::<u32>()],
        prop::collection::btree_map(option().prop_map(|o| o.0), option().prop_map(|o| o.1), 0..4),
    )
        .prop_map(|(preset, player_count, options)| v1::RuleSet {
            preset,
            player_count,
            options: options.into_iter().collect(),
        })
}

proptest! {
    #[test]
    fn wire_actions_convert_without_panic_and_round_trip(wire in action()) {
        if let Ok(a) = action_from_wire(&wire) {
            prop_assert_eq!(action_from_wire(&action_to_wire(&a)), Ok(a));
        }
    }

    #[test]
    fn wire_rule_sets_convert_without_panic_and_round_trip(wire in rule_set(), seed in any::<u64>()) {
        if let Ok(spec) = rules_from_wire(&wire) {
            prop_assert_eq!(rules_from_wire(&rules_to_wire(&spec)), Ok(spec.clone()));
            if Rules::new(&spec).is_ok() {
                // Valid rules deal a game.
                prop_assert!(Game::new(&Setup::seeded(spec, seed)).is_ok());
            }
        }
    }

    #[test]
    fn wire_card_lists_convert_without_panic_and_round_trip(wire in cards()) {
        if let Ok(list) = convert::card_list_from_wire(&wire, "cards") {
            prop_assert_eq!(convert::card_list_to_wire(&list), wire.clone());
        }
        if let Ok(counts) = convert::counts_from_wire(&wire, "cards") {
            prop_assert_eq!(counts.len(), wire.len());
        }
    }
}

/// The strategies reach the refusals and the successes of each conversion.
#[test]
fn the_strategies_reach_every_outcome() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut reasons = std::collections::BTreeSet::new();
    let mut converted = 0;
    for _ in 0..3000 {
        let wire = action().new_tree(&mut runner).unwrap().current();
        match action_from_wire(&wire) {
            Ok(_) => converted += 1,
            Err(e) => {
                reasons.insert(e.reason);
            }
        }
        let rules = rule_set().new_tree(&mut runner).unwrap().current();
        match rules_from_wire(&rules).map(|s| Rules::new(&s)) {
            Ok(Ok(_)) => converted += 1,
            Ok(Err(e)) => {
                reasons.insert(e.code());
            }
            Err(e) => {
                reasons.insert(e.reason);
            }
        }
    }
    assert!(converted > 100, "{converted}");
    for reason in [
        "MISSING_FIELD",
        "INVALID_CARD",
        "INVALID_INDEX",
        "TOO_MANY_CARDS",
        "INVALID_ENUM",
        "BAD_PLAYER_COUNT",
        "UNKNOWN_OPTION",
        "BAD_OPTION_VALUE",
    ] {
        assert!(
            reasons.contains(reason),
            "{reason} never reached: {reasons:?}"
        );
    }
}
