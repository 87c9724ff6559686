//! Helpers for rule tests on prearranged deals.
#![allow(dead_code)]

pub mod layouts;

use canasta_engine::event::DealStart;
use canasta_engine::{
    Action, Arrangement, Card, CardCounts, DealScore, Event, Game, MeldBatch, MeldSpec, MeldTarget,
    Preset, RuleSpec, Rules, Seat, Setup, TopMeld, Viewer, parse_cards,
};

/// Cards from text, e.g. `"KS KH Jk 2C"`.
pub fn cards(text: &str) -> CardCounts {
    CardCounts::from_cards(list(text))
}

/// A list of cards from text.
pub fn list(text: &str) -> Vec<Card> {
    parse_cards(text).unwrap_or_else(|e| panic!("{e}"))
}

/// One card from text.
pub fn card(text: &str) -> Card {
    text.parse().unwrap_or_else(|e| panic!("{e}"))
}

/// A rule spec: official preset, `players`, and option overrides.
pub fn spec(players: u8, options: &[(&str, &str)]) -> RuleSpec {
    let mut spec = RuleSpec::new(Preset::Official, players);
    for (k, v) in options {
        spec.options.set(k, v).unwrap();
    }
    spec
}

/// A prearranged game. `hands[s]` is seat `s`'s hand (filled up with unpaired naturals if
/// short; `""` for all fillers), `pile` the upcards bottom first, `stock` the stock's top
/// cards, top first. The dealer is the last seat of the first deal, so seat 0 plays first.
pub fn arranged(
    players: u8,
    options: &[(&str, &str)],
    hands: &[&str],
    pile: &str,
    stock: &str,
) -> Game {
    arranged_with(spec(players, options), hands, pile, stock, vec![])
}

/// Like [`arranged`], with start scores per side.
pub fn arranged_with(
    spec: RuleSpec,
    hands: &[&str],
    pile: &str,
    stock: &str,
    start_scores: Vec<i32>,
) -> Game {
    let rules = Rules::new(&spec).unwrap();
    let dealer = Seat(rules.active_players() - 1);
    let arrangement = Arrangement {
        hands: hands.iter().map(|h| list(h)).collect(),
        pile: list(pile),
        stock: list(stock),
        cut: vec![],
    };
    let deck = arrangement
        .deck(&rules, 0, dealer)
        .unwrap_or_else(|e| panic!("{e}"));
    let setup = Setup {
        rules: spec,
        card_orders: vec![deck],
        first_dealer: Some(dealer),
        start_scores,
        ..Setup::default()
    };
    Game::new(&setup).unwrap_or_else(|e| panic!("{e}"))
}

/// A new meld of these cards.
pub fn new_meld(text: &str) -> MeldSpec {
    MeldSpec::new_meld(cards(text))
}

/// These cards added to meld `id` of the side.
pub fn add(id: u8, text: &str) -> MeldSpec {
    MeldSpec::add_to(id, cards(text))
}

/// A meld action.
pub fn meld(specs: &[MeldSpec]) -> Action {
    Action::Meld {
        melds: specs.iter().copied().collect(),
    }
}

/// Take the pile melding the top card with `with` from the hand into a new meld, plus `extra`.
pub fn take_new(with: &str, extra: &[MeldSpec]) -> Action {
    Action::TakePile {
        top: TopMeld {
            target: MeldTarget::New,
            cards: cards(with),
        },
        melds: extra.iter().copied().collect(),
    }
}

/// Take the pile adding the top card (and `with` from the hand) to meld `id`.
pub fn take_add(id: u8, with: &str) -> Action {
    Action::TakePile {
        top: TopMeld {
            target: MeldTarget::Existing(id),
            cards: cards(with),
        },
        melds: MeldBatch::new(),
    }
}

/// Go out with these melds and an optional discard.
pub fn go_out(specs: &[MeldSpec], discard: Option<&str>) -> Action {
    Action::GoOut {
        melds: specs.iter().copied().collect(),
        discard: discard.map(card),
    }
}

/// Discard a card.
pub fn discard(text: &str) -> Action {
    Action::Discard { card: card(text) }
}

/// Applies an action that must succeed; returns its events.
pub fn act(game: &mut Game, seat: u8, action: Action) -> Vec<Event> {
    game.apply(Seat(seat), &action)
        .unwrap_or_else(|e| panic!("seat {seat}: {action} refused: {e} ({})", e.code()))
}

/// Applies an action that must be refused with `code`, and checks that nothing changed.
pub fn refuse(game: &mut Game, seat: u8, action: Action, code: &str) -> String {
    let hash = game.state_hash();
    let view = game.view(Viewer::Referee);
    let err = game.apply(Seat(seat), &action).expect_err(&format!(
        "seat {seat}: {action} should be refused with {code}"
    ));
    assert_eq!(err.code(), code, "{err}");
    assert_eq!(
        game.state_hash(),
        hash,
        "a refused action changed the state"
    );
    assert_eq!(
        game.view(Viewer::Referee),
        view,
        "a refused action changed the state"
    );
    err.to_string()
}

/// Draws from the stock and discards `card`.
pub fn draw_discard(game: &mut Game, seat: u8, card_text: &str) {
    act(game, seat, Action::DrawStock);
    act(game, seat, discard(card_text));
}

/// The canonical legal actions of the seat to act.
pub fn legal(game: &Game) -> Vec<Action> {
    game.legal().map(|l| l.to_vec()).unwrap_or_default()
}

/// The seats in turn draw from the stock and discard the card drawn.
pub fn pass(g: &mut Game, seats: &[u8]) {
    for &s in seats {
        let events = act(g, s, Action::DrawStock);
        let drawn = events
            .iter()
            .find_map(|e| match e {
                Event::Drew {
                    seat,
                    cards: Some(c),
                    ..
                } if seat.0 == s => Some(c[0]),
                _ => None,
            })
            .expect("a Drew event");
        act(g, s, Action::Discard { card: drawn });
    }
}

/// The score report in the events (the DealEnded event).
pub fn deal_ended(events: &[Event]) -> DealScore {
    events
        .iter()
        .find_map(|e| match e {
            Event::DealEnded(f) => Some(f.score.clone()),
            _ => None,
        })
        .expect("a DealEnded event")
}

/// The first DealStarted event.
pub fn deal_started(events: &[Event]) -> DealStart {
    events
        .iter()
        .find_map(|e| match e {
            Event::DealStarted(d) => Some((**d).clone()),
            _ => None,
        })
        .expect("a DealStarted event")
}

/// The `concealed` flag of the WentOut event.
pub fn went_out_concealed(events: &[Event]) -> bool {
    events
        .iter()
        .find_map(|e| match e {
            Event::WentOut { concealed, .. } => Some(*concealed),
            _ => None,
        })
        .expect("a WentOut event")
}
