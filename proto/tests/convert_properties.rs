//! The fuzz target `convert` (see fuzz/README.md) as a property test of the normal suite:
//! arbitrary wire actions, rule sets, card lists, setups, game records and views never make a
//! conversion panic, and what converts comes back the same through the wire; arbitrary bytes
//! (random, or a real message's encoding damaged) decoded as each request never make prost
//! panic, and what decodes re-encodes to itself. Values are drawn around the valid ones (every
//! enum value and its neighbours, indexes near 255, lists near the length limit, whole packs)
//! and from the whole range of each type.

use canasta_engine::bot::RandomBot;
use canasta_engine::rules::OPTION_DOCS;
use canasta_engine::{Arrangement, Game, Preset, RuleSpec, Rules, Seat, Setup, Viewer};
use canasta_proto::Reason;
use canasta_proto::convert::{
    self, MAX_CARDS, ViewMeta, action_from_wire, action_to_wire, rules_from_wire, rules_to_wire,
};
use canasta_proto::v1;
use proptest::prelude::*;
use prost::Message;

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

/// A valid rule set: a preset and a player count it is played by.
fn valid_spec() -> impl Strategy<Value = RuleSpec> {
    (prop::sample::select(Preset::ALL.to_vec()), 2u8..=6)
        .prop_map(|(preset, players)| RuleSpec::new(preset, players))
        .prop_filter("a count the preset is played by", |spec| {
            Rules::new(spec).is_ok()
        })
}

/// A card order: arbitrary cards, or the rules' whole pack (a valid deck) turned by `turn`.
fn card_order(spec: RuleSpec) -> impl Strategy<Value = v1::CardOrder> {
    let rules = Rules::new(&spec).expect("valid rules");
    let pack = Arrangement::default()
        .deck(&rules, 0, Seat(0))
        .expect("a whole pack");
    prop_oneof![
        1 => cards().prop_map(|cards| v1::CardOrder { cards }),
        2 => any::<prop::sample::Index>().prop_map(move |turn| {
            let mut deck = pack.clone();
            let by = turn.index(deck.len());
            deck.rotate_left(by);
            v1::CardOrder { cards: convert::card_list_to_wire(&deck) }
        }),
    ]
}

/// The fields of a CreateGameRequest (or a GameRecord) that make a setup: rules valid or not,
/// card orders, a first dealer and start scores around the valid ones.
#[derive(Clone, Debug)]
struct WireSetup {
    rules: Option<v1::RuleSet>,
    seed: u64,
    card_orders: Vec<v1::CardOrder>,
    first_dealer: Option<u32>,
    start_scores: Vec<i32>,
}

fn wire_setup() -> impl Strategy<Value = WireSetup> {
    valid_spec()
        .prop_flat_map(|spec| {
            let rules = prop_oneof![
                3 => Just(Some(rules_to_wire(&spec))),
                1 => prop::option::of(rule_set()),
            ];
            (
                rules,
                any::<u64>(),
                prop::collection::vec(card_order(spec), 0..3),
                prop_oneof![
                    2 => Just(None),
                    2 => (0u32..7).prop_map(Some),
                    1 => any::<u32>().prop_map(Some),
                ],
                prop_oneof![
                    2 => Just(vec![]),
                    1 => prop::collection::vec(prop_oneof![-1000i32..5000, any::<i32>()], 0..4),
                ],
            )
        })
        .prop_map(
            |(rules, seed, card_orders, first_dealer, start_scores)| WireSetup {
                rules,
                seed,
                card_orders,
                first_dealer,
                start_scores,
            },
        )
}

fn setup_from(w: &WireSetup) -> Result<Setup, convert::WireError> {
    convert::setup_from_wire(
        w.rules.as_ref(),
        w.seed,
        &w.card_orders,
        w.first_dealer,
        &w.start_scores,
    )
}

/// A setup back on the wire.
fn setup_to_wire(setup: &Setup) -> WireSetup {
    WireSetup {
        rules: Some(rules_to_wire(&setup.rules)),
        seed: setup.seed,
        card_orders: setup
            .card_orders
            .iter()
            .map(|o| v1::CardOrder {
                cards: convert::card_list_to_wire(o),
            })
            .collect(),
        first_dealer: setup.first_dealer.map(|s| s.0 as u32),
        start_scores: setup.start_scores.clone(),
    }
}

/// A game played by random bots from a valid setup for up to `steps` actions: the setup, the
/// actions, and the game.
fn played(
    spec: RuleSpec,
    seed: u64,
    steps: usize,
) -> (Setup, Vec<(Seat, canasta_engine::Action)>, Game) {
    let setup = Setup::seeded(spec, seed);
    let mut game = Game::new(&setup).expect("a valid setup");
    let mut bot = RandomBot::new(seed);
    let mut actions = Vec::new();
    for _ in 0..steps {
        let Some(seat) = game.to_act() else { break };
        let view = game.view(Viewer::Seat(seat));
        let action = bot.pick(&view.legal().expect("the seat to act has choices"));
        game.apply(seat, &action).expect("a legal action");
        actions.push((seat, action));
    }
    (setup, actions, game)
}

/// A number of a wire view that the engine keeps in a narrower type: a side or a count in a
/// byte, the partner question's state in an enum.
#[derive(Clone, Copy, Debug)]
enum Narrow {
    SeatSide,
    SideSide,
    Winner,
    ScoreSide,
    /// Natural, mixed, samba and wild canastas, red threes.
    ScoreCount(usize),
    Ask,
}

impl Narrow {
    /// The field an error names.
    fn field(self) -> &'static str {
        match self {
            Narrow::SeatSide => "view.seats.side",
            Narrow::SideSide => "view.sides.side",
            Narrow::Winner => "view.result.winner_side",
            Narrow::ScoreSide => "last_deal.sides.side",
            Narrow::ScoreCount(k) => [
                "last_deal.sides.natural_canastas",
                "last_deal.sides.mixed_canastas",
                "last_deal.sides.sambas",
                "last_deal.sides.wild_canastas",
                "last_deal.sides.red_threes",
            ][k],
            Narrow::Ask => "view.turn.ask",
        }
    }

    /// The values the engine's type holds, and the reason a value past them is refused with.
    fn accepts(self, value: u32) -> (bool, Reason) {
        match self {
            Narrow::SeatSide | Narrow::SideSide | Narrow::Winner | Narrow::ScoreSide => {
                (value < 6, Reason::InvalidIndex)
            }
            Narrow::ScoreCount(_) => (value <= 255, Reason::InvalidIndex),
            // NOT_ASKED to NO in a game being played (UNSPECIFIED only while waiting).
            Narrow::Ask => ((1..=4).contains(&value), Reason::InvalidEnum),
        }
    }
}

fn narrow() -> impl Strategy<Value = Narrow> {
    prop_oneof![
        Just(Narrow::SeatSide),
        Just(Narrow::SideSide),
        Just(Narrow::Winner),
        Just(Narrow::ScoreSide),
        (0usize..5).prop_map(Narrow::ScoreCount),
        Just(Narrow::Ask),
    ]
}

/// A number around the edges of a byte and of the valid values, or anywhere.
fn wide_number() -> impl Strategy<Value = u32> {
    prop_oneof![0u32..8, 250u32..260, 65530u32..65540, any::<u32>()]
}

/// Puts `value` into the number `which` of `wire` (at the item `pick` of a list), making the
/// message that holds it where the view has none; returns that item's position.
fn put_number(
    wire: &mut v1::GameView,
    which: Narrow,
    value: u32,
    pick: prop::sample::Index,
) -> usize {
    match which {
        Narrow::SeatSide => {
            let i = pick.index(wire.seats.len());
            wire.seats[i].side = value;
            i
        }
        Narrow::SideSide => {
            let i = pick.index(wire.sides.len());
            wire.sides[i].side = value;
            i
        }
        Narrow::Winner => {
            let result = wire.result.get_or_insert_default();
            result.finished = true;
            result.winner_side = Some(value);
            0
        }
        Narrow::ScoreSide | Narrow::ScoreCount(_) => {
            let deal = wire.last_deal.get_or_insert_with(|| v1::DealScore {
                end: v1::DealEndKind::StockExhausted as i32,
                sides: vec![v1::SideScore::default(); 2],
                ..Default::default()
            });
            let i = pick.index(deal.sides.len());
            let s = &mut deal.sides[i];
            *match which {
                Narrow::ScoreSide => &mut s.side,
                Narrow::ScoreCount(0) => &mut s.natural_canastas,
                Narrow::ScoreCount(1) => &mut s.mixed_canastas,
                Narrow::ScoreCount(2) => &mut s.sambas,
                Narrow::ScoreCount(3) => &mut s.wild_canastas,
                _ => &mut s.red_threes,
            } = value;
            i
        }
        Narrow::Ask => {
            wire.turn.get_or_insert_default().ask = value as i32;
            0
        }
    }
}

/// The number `which` of an engine view, as the wire numbers it.
fn read_number(view: &canasta_engine::View, which: Narrow, i: usize) -> Option<u32> {
    use canasta_engine::Ask;
    let score = || view.last_deal.as_ref().map(|d| d.sides[i]);
    match which {
        Narrow::SeatSide => Some(view.seats[i].side.0 as u32),
        Narrow::SideSide => Some(view.sides[i].side.0 as u32),
        Narrow::Winner => view.winner.map(|s| s.0 as u32),
        Narrow::ScoreSide => score().map(|s| s.side as u32),
        Narrow::ScoreCount(k) => score().map(|s| {
            [
                s.natural_canastas,
                s.mixed_canastas,
                s.sambas,
                s.wild_canastas,
                s.red_threes,
            ][k] as u32
        }),
        Narrow::Ask => Some(match view.turn.ask {
            Ask::NotAsked => v1::AskState::NotAsked,
            Ask::Pending => v1::AskState::Pending,
            Ask::Yes => v1::AskState::Yes,
            Ask::No => v1::AskState::No,
        } as u32),
    }
}

/// Bytes as a client might send them: random, or a real message's encoding with a few bytes
/// changed, then perhaps cut short.
fn damaged(valid: impl Strategy<Value = Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..64),
        3 => (
            valid,
            prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
            prop::option::of(any::<prop::sample::Index>()),
        )
            .prop_map(|(mut bytes, edits, cut)| {
                if !bytes.is_empty() {
                    for (at, byte) in edits {
                        let i = at.index(bytes.len());
                        bytes[i] = byte;
                    }
                    if let Some(cut) = cut {
                        bytes.truncate(cut.index(bytes.len()));
                    }
                }
                bytes
            }),
    ]
}

/// Encodings of real requests of every kind.
fn request_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (action(), ".{0,8}", any::<u64>()).prop_map(|(action, request_id, expected_seq)| {
            v1::SubmitActionRequest {
                game_id: "0123456789abcdef".into(),
                expected_seq,
                request_id,
                action: Some(action),
            }
            .encode_to_vec()
        }),
        wire_setup().prop_map(|w| {
            v1::CreateGameRequest {
                rules: w.rules,
                seed: Some(w.seed),
                card_orders: w.card_orders,
                first_dealer: w.first_dealer,
                start_scores: w.start_scores,
                time_control: Some(v1::TimeControl {
                    move_budget_ms: 1000,
                    policy: 1,
                }),
                bots: vec![v1::SeatBot {
                    seat: 1,
                    bot: "greedy".into(),
                }],
            }
            .encode_to_vec()
        }),
        rule_set()
            .prop_map(|rules| v1::DescribeRulesRequest { rules: Some(rules) }.encode_to_vec()),
        (any::<Option<u32>>(), ".{0,8}").prop_map(|(seat, display_name)| {
            v1::JoinGameRequest {
                game_id: "g".into(),
                seat,
                display_name,
            }
            .encode_to_vec()
        }),
        (any::<u64>(), any::<bool>()).prop_map(|(after_seq, include_view)| {
            v1::WatchGameRequest {
                game_id: "g".into(),
                after_seq,
                include_actions: true,
                include_view,
            }
            .encode_to_vec()
        }),
        (any::<u32>(), ".{0,8}", enum_value()).prop_map(|(page_size, page_token, status)| {
            v1::ListGamesRequest {
                page_size,
                page_token,
                status,
            }
            .encode_to_vec()
        }),
    ]
}

/// Decodes `bytes` as a `T`: never a panic, and what decodes re-encodes to bytes that decode
/// to the same message.
fn decodes_and_round_trips<T: Message + Default + PartialEq + std::fmt::Debug>(
    bytes: &[u8],
) -> Option<T> {
    let m = T::decode(bytes).ok()?;
    let again = T::decode(m.encode_to_vec().as_slice()).expect("its own encoding decodes");
    assert_eq!(again, m);
    Some(m)
}

proptest! {
    #[test]
    fn setups_from_the_wire_convert_without_panic_and_round_trip(w in wire_setup()) {
        if let Ok(setup) = setup_from(&w) {
            prop_assert_eq!(setup_from(&setup_to_wire(&setup)), Ok(setup.clone()));
            // The engine validates what converts, without panicking.
            let _ = Game::new(&setup);
        }
    }

    #[test]
    fn records_from_the_wire_convert_without_panic(
        w in wire_setup(),
        actions in prop::collection::vec(
            (prop_oneof![0u32..6, any::<u32>()], prop::option::of(action())),
            0..6,
        ),
        result in any::<bool>(),
    ) {
        let record = v1::GameRecord {
            game_id: "g".into(),
            rules: w.rules.clone(),
            seed: w.seed,
            card_orders: w.card_orders.clone(),
            first_dealer: w.first_dealer,
            start_scores: w.start_scores.clone(),
            display_names: vec![],
            actions: actions
                .into_iter()
                .map(|(seat, action)| v1::RecordedAction { seat, action })
                .collect(),
            result: result.then(v1::MatchResult::default),
        };
        if let Ok((setup, moves)) = convert::record_from_wire(&record) {
            prop_assert_eq!(setup_from(&w), Ok(setup.clone()));
            prop_assert_eq!(moves.len(), record.actions.len());
            // Replaying never panics: arbitrary actions are refused, not applied.
            let _ = Game::replay(&setup, &moves);
        }
    }

    #[test]
    fn records_of_played_games_round_trip_and_replay(
        spec in valid_spec(),
        seed in any::<u64>(),
        steps in 0usize..120,
    ) {
        let (setup, moves, game) = played(spec, seed, steps);
        let w = setup_to_wire(&setup);
        let record = v1::GameRecord {
            rules: w.rules,
            seed: w.seed,
            card_orders: w.card_orders,
            first_dealer: w.first_dealer,
            start_scores: w.start_scores,
            actions: moves
                .iter()
                .map(|(seat, a)| v1::RecordedAction {
                    seat: seat.0 as u32,
                    action: Some(action_to_wire(a)),
                })
                .collect(),
            ..Default::default()
        };
        let (back, back_moves) = convert::record_from_wire(&record).expect("a record of ours");
        prop_assert_eq!(&back, &setup);
        prop_assert_eq!(&back_moves, &moves);
        let replayed = Game::replay(&back, &back_moves).expect("it replays");
        prop_assert_eq!(replayed.state_hash(), game.state_hash());
    }

    #[test]
    fn views_round_trip_for_every_viewer(
        spec in valid_spec(),
        seed in any::<u64>(),
        steps in 0usize..120,
    ) {
        let (_, _, game) = played(spec, seed, steps);
        let viewers = (0..game.rules().players)
            .map(|s| Viewer::Seat(Seat(s)))
            .chain([Viewer::Spectator]);
        for viewer in viewers {
            let view = game.view(viewer);
            let meta = ViewMeta {
                game_id: "g",
                seq: 1,
                status: v1::GameStatus::Playing,
                names: &[],
                occupied: &[],
                result: convert::result_to_wire(game.winner(), game.scores()),
            };
            let wire = view_to_wire_and_back(&view, &meta, *game.rules());
            prop_assert_eq!(wire, view);
        }
    }

    #[test]
    fn damaged_views_convert_without_panic(
        bytes in damaged(
            (valid_spec(), any::<u64>(), 0usize..60, 0u8..7).prop_map(|(spec, seed, steps, who)| {
                let (_, _, game) = played(spec, seed, steps);
                let viewer = if who < game.rules().players { Viewer::Seat(Seat(who)) } else { Viewer::Spectator };
                let meta = ViewMeta {
                    game_id: "g",
                    seq: 1,
                    status: v1::GameStatus::Playing,
                    names: &[],
                    occupied: &[],
                    result: convert::result_to_wire(game.winner(), game.scores()),
                };
                convert::view_to_wire(&game.view(viewer), &meta).encode_to_vec()
            }),
        ),
        spec in valid_spec(),
    ) {
        if let Some(wire) = decodes_and_round_trips::<v1::GameView>(&bytes) {
            let rules = Rules::new(&spec).expect("valid rules");
            if let Ok(view) = convert::view_from_wire(&wire, rules) {
                // What a bot does with it: read its choices.
                if let Some(legal) = view.legal() {
                    let _ = legal.check(&canasta_engine::Action::DrawStock);
                }
            }
        }
    }

    // A view from the wire keeps every number it was sent, or is refused naming the field:
    // side 256 was read as side 0, and an unknown ask state as "not asked".
    #[test]
    fn view_numbers_are_kept_as_sent_or_refused(
        spec in valid_spec(),
        seed in any::<u64>(),
        steps in 0usize..200,
        which in narrow(),
        value in wide_number(),
        pick in any::<prop::sample::Index>(),
    ) {
        let (_, _, game) = played(spec, seed, steps);
        let meta = ViewMeta {
            game_id: "g",
            seq: 1,
            status: v1::GameStatus::Playing,
            names: &[],
            occupied: &[],
            result: convert::result_to_wire(game.winner(), game.scores()),
        };
        let mut wire = convert::view_to_wire(&game.view(Viewer::Spectator), &meta);
        let i = put_number(&mut wire, which, value, pick);
        let (valid, reason) = which.accepts(value);
        match convert::view_from_wire(&wire, *game.rules()) {
            Ok(view) => {
                prop_assert!(valid, "{which:?} = {value} was accepted");
                prop_assert_eq!(read_number(&view, which, i), Some(value));
            }
            Err(e) => {
                prop_assert!(!valid, "{which:?} = {value} was refused: {e}");
                prop_assert_eq!((e.reason, e.field.as_str()), (reason, which.field()));
            }
        }
    }

    #[test]
    fn request_bytes_decode_without_panic_and_round_trip(bytes in damaged(request_bytes())) {
        // Every request type the service decodes, whatever the bytes were meant to be.
        if let Some(m) = decodes_and_round_trips::<v1::SubmitActionRequest>(&bytes)
            && let Some(a) = &m.action
        {
            let _ = action_from_wire(a);
        }
        if let Some(m) = decodes_and_round_trips::<v1::CheckActionRequest>(&bytes)
            && let Some(a) = &m.action
        {
            let _ = action_from_wire(a);
        }
        if let Some(m) = decodes_and_round_trips::<v1::CreateGameRequest>(&bytes)
            && let Ok(setup) = convert::setup_from_wire(
                m.rules.as_ref(),
                m.seed.unwrap_or(0),
                &m.card_orders,
                m.first_dealer,
                &m.start_scores,
            )
        {
            let _ = Game::new(&setup);
        }
        if let Some(m) = decodes_and_round_trips::<v1::DescribeRulesRequest>(&bytes)
            && let Some(r) = &m.rules
            && let Ok(spec) = rules_from_wire(r)
        {
            let _ = Rules::new(&spec);
        }
        decodes_and_round_trips::<v1::ListGamesRequest>(&bytes);
        decodes_and_round_trips::<v1::GetGameRequest>(&bytes);
        decodes_and_round_trips::<v1::JoinGameRequest>(&bytes);
        decodes_and_round_trips::<v1::LeaveGameRequest>(&bytes);
        decodes_and_round_trips::<v1::GetViewRequest>(&bytes);
        decodes_and_round_trips::<v1::WatchGameRequest>(&bytes);
        decodes_and_round_trips::<v1::GetScoresRequest>(&bytes);
        decodes_and_round_trips::<v1::ExportGameRequest>(&bytes);
    }

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

/// A view through the wire and back.
fn view_to_wire_and_back(
    view: &canasta_engine::View,
    meta: &ViewMeta<'_>,
    rules: Rules,
) -> canasta_engine::View {
    convert::view_from_wire(&convert::view_to_wire(view, meta), rules)
        .expect("a view of ours converts back")
}

/// The engine's enums may gain values the protocol does not name yet (they are
/// `#[non_exhaustive]`, and the conversions send such a value as UNSPECIFIED, or an event
/// without a kind): the compiler no longer says when the wire falls behind, so this does.
/// Every preset has its wire value, and in games of every preset and player count played by
/// random bots, every event has its message and every phase, meld kind, canasta kind and deal
/// end of the views has its value.
#[test]
fn everything_the_engine_produces_in_play_has_a_wire_form() {
    for preset in Preset::ALL {
        assert_ne!(
            convert::preset_to_wire(preset),
            v1::Preset::Unspecified,
            "{preset:?}"
        );
    }
    let mut canastas = std::collections::BTreeSet::new();
    let mut ends = std::collections::BTreeSet::new();
    for preset in Preset::ALL {
        for players in 2..=6 {
            let spec = RuleSpec::new(preset, players);
            if Rules::new(&spec).is_err() {
                continue;
            }
            for seed in 0..3 {
                let (mut game, mut events) =
                    Game::start(&Setup::seeded(spec.clone(), seed)).expect("a valid setup");
                let mut bot = RandomBot::new(seed);
                for _ in 0..3_000 {
                    for e in &events {
                        assert!(convert::event_to_wire(e).is_some(), "{preset:?}: {e:?}");
                    }
                    let meta = ViewMeta {
                        game_id: "g",
                        seq: 1,
                        status: v1::GameStatus::Playing,
                        names: &[],
                        occupied: &[],
                        result: convert::result_to_wire(game.winner(), game.scores()),
                    };
                    let view = game.view(Viewer::Referee);
                    let wire = convert::view_to_wire(&view, &meta);
                    assert_ne!(
                        wire.phase,
                        v1::Phase::Unspecified as i32,
                        "{:?}",
                        view.phase
                    );
                    for (side, wire_side) in view.sides.iter().zip(&wire.sides) {
                        for (meld, m) in side.melds.iter().zip(&wire_side.melds) {
                            assert_ne!(m.kind, v1::MeldKind::Unspecified as i32, "{meld:?}");
                            if let Some(kind) = meld.canasta() {
                                assert_ne!(m.canasta, 0, "{kind:?}");
                                canastas.insert(m.canasta);
                            }
                        }
                    }
                    if let Some(d) = &wire.last_deal {
                        assert_ne!(
                            d.end,
                            v1::DealEndKind::Unspecified as i32,
                            "{:?}",
                            view.last_deal
                        );
                        ends.insert(d.end);
                    }
                    let Some(seat) = game.to_act() else { break };
                    let action = bot.pick(&game.legal().expect("a seat to act"));
                    events = game.apply(seat, &action).expect("a legal action");
                }
            }
        }
    }
    // The games reach enough of the values for the checks above to mean something.
    assert!(canastas.len() >= 3, "canasta kinds met: {canastas:?}");
    assert!(ends.len() >= 2, "deal ends met: {ends:?}");
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
                reasons.insert(Reason::from(&e));
            }
            Err(e) => {
                reasons.insert(e.reason);
            }
        }
    }
    assert!(converted > 100, "{converted}");
    // Setups: dealt from prearranged packs, and refused by the conversion and by the engine.
    let mut dealt_from_orders = 0;
    for _ in 0..300 {
        let w = wire_setup().new_tree(&mut runner).unwrap().current();
        match setup_from(&w) {
            Ok(setup) => match Game::new(&setup) {
                Ok(_) if !setup.card_orders.is_empty() => dealt_from_orders += 1,
                Ok(_) => {}
                Err(e) => {
                    reasons.insert(Reason::from(&e));
                }
            },
            Err(e) => {
                reasons.insert(e.reason);
            }
        }
    }
    assert!(dealt_from_orders > 10, "{dealt_from_orders}");
    // Damaged request bytes: some still decode to an action that converts.
    let mut actions_decoded = 0;
    for _ in 0..300 {
        let bytes = damaged(request_bytes())
            .new_tree(&mut runner)
            .unwrap()
            .current();
        if let Ok(m) = v1::SubmitActionRequest::decode(bytes.as_slice())
            && m.action
                .as_ref()
                .is_some_and(|a| action_from_wire(a).is_ok())
        {
            actions_decoded += 1;
        }
    }
    assert!(actions_decoded > 0, "{actions_decoded}");
    for reason in [
        Reason::MissingField,
        Reason::InvalidCard,
        Reason::InvalidIndex,
        Reason::TooManyCards,
        Reason::InvalidEnum,
        Reason::BadPlayerCount,
        Reason::UnknownOption,
        Reason::BadOptionValue,
        Reason::BadCardOrder,
        Reason::BadFirstDealer,
    ] {
        assert!(
            reasons.contains(&reason),
            "{reason} never reached: {reasons:?}"
        );
    }
}
