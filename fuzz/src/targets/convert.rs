//! The wire-to-engine conversions: arbitrary bytes decoded as each request message, action,
//! rule set, card list, game record and view are converted to engine types. Nothing may
//! panic; what converts comes back the same through the wire (engine -> wire -> engine), and
//! setups that convert are validated by the engine without panicking.
use canasta_engine::{Ask, Game, Preset, RuleSpec, Rules, View};
use canasta_proto::{convert, v1};
use prost::Message;

/// Runs the target on one input.
pub fn run(data: &[u8]) {
    let Some((&which, bytes)) = data.split_first() else {
        return;
    };
    match which % 9 {
        0 => {
            if let Ok(m) = v1::Action::decode(bytes) {
                action(&m);
            }
        }
        1 => {
            if let Ok(m) = v1::SubmitActionRequest::decode(bytes) {
                m.action.as_ref().map(action);
            }
        }
        2 => {
            if let Ok(m) = v1::CheckActionRequest::decode(bytes) {
                m.action.as_ref().map(action);
            }
        }
        3 => {
            if let Ok(m) = v1::RuleSet::decode(bytes) {
                rule_set(&m);
            }
        }
        4 => {
            if let Ok(m) = v1::DescribeRulesRequest::decode(bytes) {
                m.rules.as_ref().map(rule_set);
            }
        }
        5 => {
            if let Ok(m) = v1::CreateGameRequest::decode(bytes)
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
        }
        6 => {
            if let Ok(m) = v1::CardOrder::decode(bytes) {
                card_list(&m.cards);
            }
        }
        7 => {
            if let Ok(m) = v1::GameRecord::decode(bytes)
                && let Ok((setup, actions)) = convert::record_from_wire(&m)
            {
                let _ = Game::replay(&setup, &actions);
            }
        }
        _ => {
            if let Ok(m) = v1::GameView::decode(bytes) {
                let rules = Rules::new(&RuleSpec::new(Preset::Official, 4)).expect("official");
                if let Ok(view) = convert::view_from_wire(&m, rules) {
                    numbers_kept(&m, &view);
                    // What a bot would do with it: read the choices of its seat.
                    let _ = view
                        .legal()
                        .map(|l| l.check(&canasta_engine::Action::DrawStock));
                }
            }
        }
    }
}

fn action(wire: &v1::Action) {
    if let Ok(a) = convert::action_from_wire(wire) {
        let back = convert::action_to_wire(&a);
        assert_eq!(convert::action_from_wire(&back), Ok(a.clone()), "{wire:?}");
        let notation = canasta_engine::notation::to_notation(&a);
        assert!(!notation.is_empty());
    }
}

fn rule_set(wire: &v1::RuleSet) {
    if let Ok(spec) = convert::rules_from_wire(wire) {
        assert_eq!(
            convert::rules_from_wire(&convert::rules_to_wire(&spec)),
            Ok(spec.clone()),
            "{wire:?}"
        );
        if let Ok(rules) = Rules::new(&spec) {
            let _ = rules.option_values();
            let _ = Game::new(&canasta_engine::Setup::seeded(spec, 0));
        }
    }
}

fn card_list(cards: &[v1::Card]) {
    if let Ok(list) = convert::card_list_from_wire(cards, "cards") {
        assert_eq!(convert::card_list_to_wire(&list), cards, "cards round trip");
    }
    if let Ok(counts) = convert::counts_from_wire(cards, "cards") {
        assert_eq!(counts.len(), cards.len());
        let back = convert::cards_to_wire(&counts);
        assert_eq!(convert::counts_from_wire(&back, "cards"), Ok(counts));
    }
}

/// A view that converts keeps every number it was sent: none is cut to the engine's narrower
/// type (side 256 read as side 0), and no unknown enum value is read as a known one.
fn numbers_kept(wire: &v1::GameView, view: &View) {
    for (w, e) in wire.seats.iter().zip(&view.seats) {
        assert_eq!(w.side, e.side.0 as u32, "a seat's side");
    }
    for (w, e) in wire.sides.iter().zip(&view.sides) {
        assert_eq!(w.side, e.side.0 as u32, "a side");
    }
    if let (Some(w), Some(e)) = (&wire.last_deal, &view.last_deal) {
        assert_eq!(
            convert::deal_score_to_wire(e).sides,
            w.sides,
            "a score report's sides"
        );
    }
    if let Some(result) = wire.result.as_ref().filter(|r| r.finished) {
        assert_eq!(
            result.winner_side,
            view.winner.map(|s| s.0 as u32),
            "the winner"
        );
    }
    let sent = wire.turn.map_or(0, |t| t.ask);
    let read = match view.turn.ask {
        Ask::NotAsked => v1::AskState::NotAsked,
        Ask::Pending => v1::AskState::Pending,
        Ask::Yes => v1::AskState::Yes,
        Ask::No => v1::AskState::No,
    } as i32;
    // A waiting game shows no turn: read as a deal not begun.
    let waiting = wire.status == v1::GameStatus::Waiting as i32;
    assert!(
        sent == read || (waiting && sent == 0 && read == v1::AskState::NotAsked as i32),
        "ask state {sent} read as {read}"
    );
}
