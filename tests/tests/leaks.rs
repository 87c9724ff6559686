//! Leak tests: random games of every preset played through a real server, while every seat and
//! two spectators record everything the server sends them: watch streams (events and prompts,
//! with and without the action lists), views, SubmitAction and CheckAction answers, refused
//! requests (their messages and details), scores, and at the end the export. Afterwards the
//! engine replays the exported game and each received item is checked against the referee's
//! truth at the seq it reflects:
//!
//! - every event, view and score equals the engine's own redaction for that receiver, exactly;
//! - independently of that redaction, no hand field carries another seat's cards (counts only),
//!   no `Drew` or `DealStarted` names cards of another seat, and the viewer's own hand is exact;
//! - legal choices, dry-run verdicts and rule errors equal what the engine derives from the
//!   receiver's redacted view alone, so they cannot depend on a hidden card or the stock order;
//! - no error message or detail names a card the caller could not know: only its own cards,
//!   the public ones, and those its request named.
//!
//! Games waiting for players are checked apart: one client joins and leaves every seat in turn
//! and reads all it can (views, summaries, scores, watch streams and Play calls from seq 0, dry
//! runs, actions, the refusals of its left tokens); nothing may show a card or the deal.
//!
//! The seed of each game is chosen by the server, so nothing is known to the players but what
//! the server sends. `CANASTA_LEAK_GAMES=N` plays N games of each rule set instead of one;
//! `CANASTA_LEAK_SEED` fixes the random choices of the players.

use std::collections::HashMap;
use std::time::Duration;

use canasta_engine::rng::Xoshiro256;
use canasta_engine::{Card, CardCounts, Game, Phase, RuleError, Rules, Seat, Viewer};
use canasta_proto::convert::{
    ViewMeta, action_from_wire, all_card_kinds, card_to_wire, counts_from_wire, deal_score_to_wire,
    legal_to_wire, record_from_wire, result_to_wire, view_to_wire,
};
use canasta_proto::v1;
use canasta_proto::v1::game_event::Kind as Ev;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use canasta_tests::replica::{LogItem, joined_log_with_bots};
use canasta_tests::*;
use tokio_stream::StreamExt;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// The server's default limit of listed actions (`--max-prompt-actions`).
const MAX_PROMPT_ACTIONS: usize = 2000;

/// One thing a receiver got from the server.
#[derive(Debug)]
enum Received {
    /// An event, from a watch stream or a SubmitAction answer.
    Event(v1::GameEvent),
    /// A prompt from a watch stream.
    Prompt {
        prompt: v1::Prompt,
        include_actions: bool,
    },
    /// A GetView answer.
    View {
        response: v1::GetViewResponse,
        include_actions: bool,
    },
    /// A CheckAction answer, asked when the game was at `seq`.
    Check {
        seq: u64,
        action: v1::Action,
        answer: v1::CheckActionResponse,
    },
    /// A refused request, made when the game was at `seq`; `action` is the action it carried.
    Refused {
        seq: u64,
        action: Option<v1::Action>,
        status: Status,
    },
    /// A GetScores answer, asked when the game was at `seq`.
    Scores {
        seq: u64,
        scores: v1::GetScoresResponse,
    },
    /// The export of the finished game.
    Export(v1::GameRecord),
}

/// Everything received in one game, by receiver, and the seats the server's bots played.
#[derive(Default)]
struct Inbox {
    items: Vec<(Viewer, Received)>,
    bots: Vec<(u32, String)>,
}

impl Inbox {
    fn push(&mut self, viewer: Viewer, item: Received) {
        self.items.push((viewer, item));
    }
}

/// Counts of what was checked, for the report of a long run.
#[derive(Default, Debug)]
struct Tally {
    games: usize,
    actions: usize,
    events: usize,
    prompts: usize,
    views: usize,
    checks: usize,
    refusals: usize,
    scores: usize,
    /// Requests that named a card held by another seat and not by the caller.
    probes_of_hidden_cards: usize,
}

// ----- the referee's truth, rebuilt from the export -----

/// The game as the referee saw it: every event by seq, and the state after each action.
struct Truth {
    rules: Rules,
    game_id: String,
    /// The seats' display names, by seat.
    names: Vec<String>,
    /// The seats the server's bots played, and their names.
    bots: Vec<(u32, String)>,
    log: Vec<LogItem>,
    states: HashMap<u64, Game>,
    last: u64,
}

impl Truth {
    /// Replays the export in the engine; the server's `bots` held their seats from the
    /// creation, and every other seat was joined in seat order as `join_all` does.
    fn replay(record: &v1::GameRecord, bots: &[(u32, String)]) -> Truth {
        let (setup, actions) = record_from_wire(record).expect("a valid record");
        let (mut game, opening) = Game::start(&setup).expect("a valid setup");
        let rules = *game.rules();
        let mut log = joined_log_with_bots(rules.players, bots, opening);
        let names = record.display_names.clone();
        let mut states = HashMap::new();
        states.insert(log.len() as u64, game.clone());
        for (seat, action) in &actions {
            let events = game
                .apply(*seat, action)
                .unwrap_or_else(|e| panic!("the export replays: {action} refused: {e}"));
            log.extend(events.into_iter().map(LogItem::Engine));
            states.insert(log.len() as u64, game.clone());
        }
        assert_eq!(game.phase(), Phase::Over, "the export replays to the end");
        let last = log.len() as u64;
        Truth {
            rules,
            game_id: record.game_id.clone(),
            names,
            bots: bots.to_vec(),
            log,
            states,
            last,
        }
    }

    /// The event `seq` as `viewer` must see it.
    fn event(&self, seq: u64, viewer: Viewer) -> v1::GameEvent {
        let item = &self.log[(seq - 1) as usize];
        v1::GameEvent {
            seq,
            kind: item.seen_by(viewer),
        }
    }

    /// The state after event `seq`, which must end an action (or the opening).
    fn state(&self, seq: u64) -> &Game {
        self.states
            .get(&seq)
            .unwrap_or_else(|| panic!("seq {seq} does not end an action"))
    }

    /// The view of `viewer` at `seq` on the wire, as the server must send it.
    fn wire_view(&self, seq: u64, viewer: Viewer) -> v1::GameView {
        let game = self.state(seq);
        let players = self.rules.players as usize;
        let occupied = vec![true; players];
        let meta = ViewMeta {
            game_id: &self.game_id,
            seq,
            status: if game.phase() == Phase::Over {
                v1::GameStatus::Finished
            } else {
                v1::GameStatus::Playing
            },
            names: &self.names,
            occupied: &occupied,
            result: result_to_wire(game.winner(), game.scores()),
        };
        let mut view = view_to_wire(&game.view(viewer), &meta);
        // The server's bots are named in their seats' views, as in the summary.
        for (seat, bot) in &self.bots {
            view.seats[*seat as usize].bot = bot.clone();
        }
        view
    }

    /// The cards `viewer` may know at `seq`: its own hand and every public card (the pile, the
    /// melds, the red threes).
    fn known_cards(&self, seq: u64, viewer: Viewer) -> CardCounts {
        let game = self.state(seq);
        let mut known = CardCounts::new();
        if let Viewer::Seat(s) = viewer {
            known.add_all(game.hand(s));
        }
        let public = self.wire_view(seq, Viewer::Spectator);
        let mut cards: Vec<v1::Card> = public.pile.clone();
        for side in &public.sides {
            for meld in &side.melds {
                cards.extend(meld.cards.iter().cloned());
            }
        }
        for seat in &public.seats {
            cards.extend(seat.red_threes.iter().cloned());
        }
        known.add_all(&counts_from_wire(&cards, "public").expect("valid cards"));
        known
    }

    /// The cards held at `seq` by seats other than `viewer`.
    fn hidden_cards(&self, seq: u64, viewer: Viewer) -> CardCounts {
        let game = self.state(seq);
        let mut hidden = CardCounts::new();
        for seat in game.table().seats() {
            if !viewer.sees_hand_of(seat) {
                hidden.add_all(game.hand(seat));
            }
        }
        hidden
    }

    /// The verdict on `action` by `viewer` at `seq` that the engine derives from the viewer's
    /// redacted view alone.
    fn visible_verdict(&self, seq: u64, viewer: Viewer, action: &v1::Action) -> Verdict {
        let Viewer::Seat(seat) = viewer else {
            panic!("a spectator's action is refused before any rule");
        };
        let game = self.state(seq);
        if game.phase() == Phase::Over {
            return Verdict::Finished;
        }
        let action = match action_from_wire(action) {
            Ok(a) => a,
            Err(e) => return Verdict::Malformed(e.reason.to_string()),
        };
        let view = game.view(viewer);
        let result = match view.legal() {
            Some(legal) if view.to_act == Some(seat) => legal.check(&action),
            // Not this seat's turn: the seat to act is public.
            _ => Err(RuleError::NotYourTurn {
                to_act: game.to_act().expect("a seat to act"),
            }),
        };
        match result {
            Ok(()) => Verdict::Legal,
            Err(e) => Verdict::Rule(e.code().to_string(), e.to_string()),
        }
    }
}

/// What the server must answer to an action.
#[derive(Debug, PartialEq)]
enum Verdict {
    Legal,
    Rule(String, String),
    Malformed(String),
    Finished,
}

/// Every card kind named in `text` (as the engine writes cards: `K♠`, `10♥`, `Jk`).
fn cards_named(text: &str) -> Vec<Card> {
    // No rank label is the end of another ("10♥" holds no other card's name).
    all_card_kinds()
        .filter(|c| text.contains(&c.to_string()))
        .collect()
}

/// The texts of a status that a client reads: its message and every detail's words.
fn status_texts(status: &Status) -> Vec<String> {
    let mut texts = vec![status.message().to_string()];
    if let Some(info) = status.get_details_error_info() {
        texts.push(info.reason.clone());
        texts.extend(info.metadata.values().cloned());
    }
    if let Some(bad) = status.get_details_bad_request() {
        for v in bad.field_violations {
            texts.push(v.field);
            texts.push(v.description);
        }
    }
    // The plain metadata that repeats the details (canasta-reason, canasta-seq …).
    for entry in status.metadata().iter() {
        if let tonic::metadata::KeyAndValueRef::Ascii(key, value) = entry
            && key
                .as_str()
                .starts_with(canasta_proto::reason::METADATA_PREFIX)
        {
            texts.push(value.to_str().unwrap_or_default().to_string());
        }
    }
    texts
}

/// The cards an action names.
fn action_cards(action: &v1::Action) -> CardCounts {
    use v1::action::Kind;
    let mut cards: Vec<v1::Card> = Vec::new();
    match &action.kind {
        Some(Kind::TakePile(t)) => {
            cards.extend(t.cards.iter().cloned());
            for m in &t.melds {
                cards.extend(m.cards.iter().cloned());
            }
        }
        Some(Kind::Meld(m)) => {
            for m in &m.melds {
                cards.extend(m.cards.iter().cloned());
            }
        }
        Some(Kind::Discard(d)) => cards.extend(d.card.iter().cloned()),
        Some(Kind::GoOut(g)) => {
            for m in &g.melds {
                cards.extend(m.cards.iter().cloned());
            }
            cards.extend(g.discard.iter().cloned());
        }
        _ => {}
    }
    // Malformed cards name nothing.
    counts_from_wire(&cards, "action").unwrap_or_default()
}

/// Fails if `text`, received by `viewer` at `seq` in answer to a request naming `named`,
/// names a card of another hand that is neither public, nor the viewer's, nor named by it.
fn assert_names_no_hidden_card(
    truth: &Truth,
    seq: u64,
    viewer: Viewer,
    named: &CardCounts,
    text: &str,
) {
    let mut allowed = truth.known_cards(seq, viewer);
    allowed.add_all(named);
    let hidden = truth.hidden_cards(seq, viewer);
    for card in cards_named(text) {
        assert!(
            allowed.count(card) > 0 || hidden.count(card) == 0,
            "LEAK: {viewer:?} at seq {seq} was told {text:?}, which names {card}, a card of \
             another hand it may not know"
        );
    }
}

// ----- checking what was received -----

/// Checks one event against the truth: the engine's redaction, and independently that hidden
/// fields carry only the viewer's own cards.
fn check_event(truth: &Truth, viewer: Viewer, event: &v1::GameEvent) {
    assert!(
        event.seq >= 1 && event.seq <= truth.last,
        "an event with seq {}",
        event.seq
    );
    match &event.kind {
        Some(Ev::DealStarted(d)) => {
            for hand in &d.hands {
                if !viewer.sees_hand_of(Seat(hand.seat as u8)) {
                    assert!(
                        hand.cards.is_empty(),
                        "LEAK: {viewer:?} got seat {}'s dealt cards at seq {}",
                        hand.seat,
                        event.seq
                    );
                }
            }
        }
        Some(Ev::Drew(d)) if !viewer.sees_hand_of(Seat(d.seat as u8)) => {
            assert!(
                d.cards.is_empty(),
                "LEAK: {viewer:?} got the cards seat {} drew at seq {}",
                d.seat,
                event.seq
            );
        }
        _ => {}
    }
    assert_eq!(
        *event,
        truth.event(event.seq, viewer),
        "{viewer:?}: event {}",
        event.seq
    );
}

/// Checks a view: exactly the engine's view for the viewer; other hands as counts only; the
/// legal choices as the engine derives them from the redacted view.
fn check_view(truth: &Truth, viewer: Viewer, response: &v1::GetViewResponse, include: bool) {
    let view = response.view.as_ref().expect("a view");
    let seq = view.seq;
    let game = truth.state(seq);
    // Leaks first: a view of another seat's hand is a leak whatever else is wrong with it.
    for seat in &view.seats {
        let s = Seat(seat.seat as u8);
        assert!(
            viewer.sees_hand_of(s) || seat.hand.is_empty(),
            "LEAK: {viewer:?} got seat {}'s hand in a view at seq {seq}",
            seat.seat
        );
    }
    for seat in &view.seats {
        let s = Seat(seat.seat as u8);
        assert_eq!(seat.hand_count as usize, game.hand(s).len());
        if viewer.sees_hand_of(s) {
            assert_eq!(
                counts_from_wire(&seat.hand, "hand").expect("valid cards"),
                *game.hand(s),
                "{viewer:?} sees its own hand exactly"
            );
        }
    }
    assert_eq!(
        *view,
        truth.wire_view(seq, viewer),
        "{viewer:?}: view at {seq}"
    );
    let expected = match viewer {
        Viewer::Seat(s) if game.phase() != Phase::Over && game.to_act() == Some(s) => {
            let redacted = game.view(viewer);
            let legal = redacted.legal().expect("the seat to act sees its choices");
            Some(legal_to_wire(
                &legal,
                if include { MAX_PROMPT_ACTIONS } else { 0 },
            ))
        }
        _ => None,
    };
    assert_eq!(
        response.legal, expected,
        "{viewer:?}: legal choices at {seq}"
    );
    assert_eq!(response.time_left_ms, None);
}

/// Checks a prompt: for the viewer's seat, when it must act, with the choices the engine
/// derives from its redacted view.
fn check_prompt(truth: &Truth, viewer: Viewer, prompt: &v1::Prompt, include: bool) {
    let Viewer::Seat(seat) = viewer else {
        panic!("a spectator was prompted: {prompt:?}");
    };
    let game = truth.state(prompt.seq);
    assert_eq!(prompt.seat, seat.0 as u32);
    assert_eq!(game.to_act(), Some(seat), "prompted when not to act");
    let redacted = game.view(viewer);
    let legal = redacted.legal().expect("the seat to act sees its choices");
    let mut expected = legal_to_wire(&legal, MAX_PROMPT_ACTIONS);
    if !include {
        expected.actions.clear();
        expected.actions_truncated = false;
    }
    assert_eq!(
        prompt.legal.as_deref(),
        Some(&expected),
        "prompt at {}",
        prompt.seq
    );
    assert_eq!(prompt.game_id, truth.game_id);
    // The view a prompt carries is the seat's own, exactly as GetView would give it.
    match &prompt.view {
        Some(view) => {
            assert!(include, "a view in a prompt nobody asked for");
            for other in &view.seats {
                assert!(
                    other.seat == seat.0 as u32 || other.hand.is_empty(),
                    "LEAK: seat {} got seat {}'s hand in a prompt at seq {}",
                    seat.0,
                    other.seat,
                    prompt.seq
                );
            }
            assert_eq!(
                **view,
                truth.wire_view(prompt.seq, viewer),
                "the view in the prompt at {}",
                prompt.seq
            );
        }
        None => assert!(!include, "no view in the prompt at {}", prompt.seq),
    }
}

/// Checks everything one game's receivers got.
fn check_inbox(inbox: &Inbox, tally: &mut Tally) {
    let record = inbox
        .items
        .iter()
        .find_map(|(_, r)| match r {
            Received::Export(rec) => Some(rec.clone()),
            _ => None,
        })
        .expect("the game was exported");
    let truth = Truth::replay(&record, &inbox.bots);
    tally.games += 1;
    tally.actions += record.actions.len();
    for (viewer, item) in &inbox.items {
        let viewer = *viewer;
        match item {
            Received::Event(e) => {
                check_event(&truth, viewer, e);
                tally.events += 1;
            }
            Received::Prompt {
                prompt,
                include_actions,
            } => {
                check_prompt(&truth, viewer, prompt, *include_actions);
                tally.prompts += 1;
            }
            Received::View {
                response,
                include_actions,
            } => {
                check_view(&truth, viewer, response, *include_actions);
                tally.views += 1;
            }
            Received::Check {
                seq,
                action,
                answer,
            } => {
                let got = if answer.legal {
                    Verdict::Legal
                } else {
                    Verdict::Rule(answer.reason.clone(), answer.message.clone())
                };
                assert_eq!(
                    got,
                    truth.visible_verdict(*seq, viewer, action),
                    "{viewer:?}: CheckAction at {seq} of {action:?}"
                );
                let named = action_cards(action);
                if truth.hidden_cards(*seq, viewer).contains(&named) && !named.is_empty() {
                    tally.probes_of_hidden_cards += 1;
                }
                assert_names_no_hidden_card(&truth, *seq, viewer, &named, &answer.message);
                tally.checks += 1;
            }
            Received::Refused {
                seq,
                action,
                status,
            } => {
                let named = action.as_ref().map(action_cards).unwrap_or_default();
                if status.code() == Code::FailedPrecondition
                    && let Some(action) = action
                {
                    let expected = truth.visible_verdict(*seq, viewer, action);
                    let got = match expected {
                        Verdict::Finished => Verdict::Finished,
                        _ => Verdict::Rule(reason(status), status.message().to_string()),
                    };
                    assert_eq!(got, expected, "{viewer:?}: refusal at {seq} of {action:?}");
                    if truth.hidden_cards(*seq, viewer).contains(&named) && !named.is_empty() {
                        tally.probes_of_hidden_cards += 1;
                    }
                }
                for text in status_texts(status) {
                    assert_names_no_hidden_card(&truth, *seq, viewer, &named, &text);
                }
                tally.refusals += 1;
            }
            Received::Scores { seq, scores } => {
                let game = truth.state(*seq);
                let expected = v1::GetScoresResponse {
                    deals: game.history().iter().map(deal_score_to_wire).collect(),
                    result: Some(result_to_wire(game.winner(), game.scores())),
                };
                assert_eq!(*scores, expected, "scores at {seq}");
                tally.scores += 1;
            }
            Received::Export(rec) => assert_eq!(*rec, record),
        }
    }
}

// ----- playing -----

/// One rule set to play.
#[derive(Debug)]
struct Table {
    preset: v1::Preset,
    players: u32,
}

/// Reads a watch stream to its end, recording everything for `viewer`.
fn spawn_watcher(
    mut client: Client,
    game_id: String,
    token: Option<String>,
    include_actions: bool,
) -> tokio::task::JoinHandle<Vec<Received>> {
    tokio::spawn(async move {
        let request = v1::WatchGameRequest {
            game_id,
            after_seq: 0,
            include_actions,
            // The watchers that ask for actions ask for views too: both kinds of prompt are
            // checked.
            include_view: include_actions,
        };
        let mut stream = match &token {
            Some(t) => client.watch_game(authed(request, t)).await,
            None => client.watch_game(request).await,
        }
        .expect("a watch stream")
        .into_inner();
        let mut got = Vec::new();
        loop {
            let message = tokio::time::timeout(Duration::from_secs(60), stream.next())
                .await
                .expect("a message within 60 s");
            match message {
                None => break,
                Some(m) => match m.expect("a good message").kind {
                    Some(Msg::Event(e)) => got.push(Received::Event(e)),
                    Some(Msg::Prompt(prompt)) => got.push(Received::Prompt {
                        prompt,
                        include_actions,
                    }),
                    Some(Msg::Heartbeat(_)) => {}
                    Some(Msg::Lagged(l)) => panic!("a watcher lagged at {}", l.last_seq),
                    None => panic!("an empty watch message"),
                },
            }
        }
        got
    })
}

/// A card kind the caller (by its own view) does not hold, and if there is one, that it cannot
/// see anywhere: in another hand or in the stock. Late in a deal the pile and the melds may
/// show every kind; then a kind merely not held will do.
fn unseen_card(view: &v1::GameView, rng: &mut Xoshiro256) -> v1::Card {
    let mine = match view.viewer_seat {
        Some(me) => counts_from_wire(&view.seats[me as usize].hand, "hand").expect("valid cards"),
        None => CardCounts::new(),
    };
    let mut public = view.pile.clone();
    for side in &view.sides {
        for meld in &side.melds {
            public.extend(meld.cards.iter().cloned());
        }
    }
    for seat in &view.seats {
        public.extend(seat.red_threes.iter().cloned());
    }
    let public = counts_from_wire(&public, "public").expect("valid cards");
    let not_held: Vec<Card> = all_card_kinds().filter(|c| mine.count(*c) == 0).collect();
    let unseen: Vec<Card> = not_held
        .iter()
        .copied()
        .filter(|c| public.count(*c) == 0)
        .collect();
    let from = if unseen.is_empty() {
        &not_held
    } else {
        &unseen
    };
    card_to_wire(from[rng.below(from.len() as u64) as usize])
}

/// Wrong actions naming cards the caller does not hold.
fn probe_actions(view: &v1::GameView, rng: &mut Xoshiro256) -> Vec<v1::Action> {
    use v1::action::Kind;
    let x = unseen_card(view, rng);
    let y = unseen_card(view, rng);
    let spec = |index: Option<u32>, cards: Vec<v1::Card>| v1::MeldSpec {
        meld_index: index,
        cards,
    };
    vec![
        v1::Action {
            kind: Some(Kind::Discard(v1::DiscardAction { card: Some(x) })),
        },
        v1::Action {
            kind: Some(Kind::Meld(v1::MeldAction {
                melds: vec![spec(None, vec![x, x, y])],
            })),
        },
        v1::Action {
            kind: Some(Kind::Meld(v1::MeldAction {
                melds: vec![spec(Some(0), vec![y])],
            })),
        },
        v1::Action {
            kind: Some(Kind::TakePile(v1::TakePileAction {
                meld_index: None,
                cards: vec![x, x],
                melds: vec![spec(None, vec![y, y, y])],
            })),
        },
        v1::Action {
            kind: Some(Kind::GoOut(v1::GoOutAction {
                melds: vec![spec(None, vec![x, x, x])],
                discard: Some(y),
            })),
        },
    ]
}

/// A GetView, recorded.
async fn get_view(
    client: &mut Client,
    inbox: &mut Inbox,
    game_id: &str,
    viewer: Viewer,
    token: Option<&String>,
    include_actions: bool,
) -> v1::GetViewResponse {
    let request = v1::GetViewRequest {
        game_id: game_id.to_string(),
        include_actions,
    };
    let response = match token {
        Some(t) => client.get_view(authed(request, t)).await,
        None => client.get_view(request).await,
    }
    .expect("a view")
    .into_inner();
    inbox.push(
        viewer,
        Received::View {
            response: response.clone(),
            include_actions,
        },
    );
    response
}

/// A SubmitAction that must be refused, recorded.
async fn submit_wrong(
    client: &mut Client,
    inbox: &mut Inbox,
    viewer: Viewer,
    token: Option<&String>,
    request: v1::SubmitActionRequest,
    seq: u64,
) {
    let action = request.action.clone();
    let answer = match token {
        Some(t) => client.submit_action(authed(request, t)).await,
        None => client.submit_action(request).await,
    };
    let status = answer.expect_err("a wrong action is refused");
    inbox.push(
        viewer,
        Received::Refused {
            seq,
            action,
            status,
        },
    );
}

/// A CheckAction, recorded.
async fn check(
    client: &mut Client,
    inbox: &mut Inbox,
    game_id: &str,
    viewer: Viewer,
    token: &str,
    action: v1::Action,
    seq: u64,
) {
    let request = v1::CheckActionRequest {
        game_id: game_id.to_string(),
        action: Some(action.clone()),
    };
    match client.check_action(authed(request, token)).await {
        Ok(answer) => inbox.push(
            viewer,
            Received::Check {
                seq,
                action,
                answer: answer.into_inner(),
            },
        ),
        Err(status) => inbox.push(
            viewer,
            Received::Refused {
                seq,
                action: Some(action),
                status,
            },
        ),
    }
}

/// Sends the probes of one step: views of every receiver, dry runs and refused submissions of
/// wrong actions by every seat, and a few malformed or misdirected requests.
#[allow(clippy::too_many_arguments)]
async fn probe(
    client: &mut Client,
    inbox: &mut Inbox,
    game_id: &str,
    tokens: &[Option<String>],
    actor: usize,
    chosen: &v1::Action,
    seq: u64,
    rng: &mut Xoshiro256,
) {
    let include = rng.below(2) == 0;
    get_view(client, inbox, game_id, Viewer::Spectator, None, include).await;
    // The seats clients hold: a bot's seat has no token.
    for (s, token) in tokens.iter().enumerate() {
        let Some(token) = token else { continue };
        let viewer = Viewer::Seat(Seat(s as u8));
        let view = get_view(client, inbox, game_id, viewer, Some(token), include).await;
        let view = view.view.expect("a view");
        // Two wrong actions and the move chosen for the seat to act (its own legal move, or
        // another seat's) are dry-run; one wrong action is submitted for real.
        let mut wrong = probe_actions(&view, rng);
        let first = wrong.swap_remove(rng.below(wrong.len() as u64) as usize);
        let second = wrong.swap_remove(rng.below(wrong.len() as u64) as usize);
        for action in [&first, &second, chosen] {
            check(client, inbox, game_id, viewer, token, action.clone(), seq).await;
        }
        let action = if s == actor { first } else { chosen.clone() };
        let request = v1::SubmitActionRequest {
            game_id: game_id.to_string(),
            expected_seq: seq,
            request_id: format!("wrong-{seq}-{s}"),
            action: Some(action),
        };
        submit_wrong(client, inbox, viewer, Some(token), request, seq).await;
    }
    let token = tokens[actor].as_ref().expect("a client's seat acts");
    let viewer = Viewer::Seat(Seat(actor as u8));
    // A stale seq, a malformed card, no token, a token of no seat, an export too early.
    let stale = v1::SubmitActionRequest {
        game_id: game_id.to_string(),
        expected_seq: seq - 1,
        request_id: format!("stale-{seq}"),
        action: Some(chosen.clone()),
    };
    submit_wrong(client, inbox, viewer, Some(token), stale, seq).await;
    let malformed = v1::SubmitActionRequest {
        game_id: game_id.to_string(),
        expected_seq: seq,
        request_id: format!("malformed-{seq}"),
        action: Some(v1::Action {
            kind: Some(v1::action::Kind::Discard(v1::DiscardAction {
                card: Some(v1::Card { rank: 0, suit: 9 }),
            })),
        }),
    };
    submit_wrong(client, inbox, viewer, Some(token), malformed, seq).await;
    let anonymous = v1::SubmitActionRequest {
        game_id: game_id.to_string(),
        expected_seq: seq,
        request_id: format!("anonymous-{seq}"),
        action: Some(chosen.clone()),
    };
    submit_wrong(
        client,
        inbox,
        Viewer::Spectator,
        None,
        anonymous.clone(),
        seq,
    )
    .await;
    let stranger = "0123456789abcdef0123456789abcdef".to_string();
    submit_wrong(
        client,
        inbox,
        Viewer::Spectator,
        Some(&stranger),
        anonymous,
        seq,
    )
    .await;
    match client
        .export_game(v1::ExportGameRequest {
            game_id: game_id.to_string(),
        })
        .await
    {
        Ok(r) => panic!("an unfinished game was exported: {r:?}"),
        Err(status) => inbox.push(
            Viewer::Spectator,
            Received::Refused {
                seq,
                action: None,
                status,
            },
        ),
    }
    let scores = client
        .get_scores(v1::GetScoresRequest {
            game_id: game_id.to_string(),
        })
        .await
        .expect("scores")
        .into_inner();
    inbox.push(Viewer::Spectator, Received::Scores { seq, scores });
}

/// Plays one game of `table` with random moves, probing on some steps; returns the inbox.
async fn play_one(client: &mut Client, server: &TestServer, table: &Table, seed: u64) -> Inbox {
    play_one_with_bots(client, server, table, seed, &[]).await
}

/// Plays one game of `table` whose seats `bots` the server's built-in bots play (seat, name),
/// the others with random moves, probing on some steps; returns the inbox.
async fn play_one_with_bots(
    client: &mut Client,
    server: &TestServer,
    table: &Table,
    seed: u64,
    bots: &[(u32, &str)],
) -> Inbox {
    let mut rng = Xoshiro256::seed_from_u64(seed);
    let game = create_with(
        client,
        v1::CreateGameRequest {
            rules: Some(rules(
                table.preset,
                table.players,
                &[("target_score", "150")],
            )),
            // The server picks the seed: the players know only what it tells them.
            seed: None,
            bots: bots
                .iter()
                .map(|&(seat, bot)| v1::SeatBot {
                    seat,
                    bot: bot.into(),
                })
                .collect(),
            ..Default::default()
        },
    )
    .await;
    let id = game.game_id.clone();
    let bot_of = |seat: usize| bots.iter().find(|(s, _)| *s as usize == seat);
    // The clients' seats, by seat: none for a bot's.
    let mut tokens: Vec<Option<String>> = Vec::new();
    for seat in 0..game.seats.len() {
        if bot_of(seat).is_some() {
            tokens.push(None);
            continue;
        }
        let joined = client
            .join_game(v1::JoinGameRequest {
                game_id: id.clone(),
                seat: Some(seat as u32),
                display_name: format!("player {seat}"),
            })
            .await
            .expect("a client's seat is free")
            .into_inner();
        tokens.push(Some(joined.token));
    }
    let mut inbox = Inbox {
        bots: bots.iter().map(|&(s, b)| (s, b.to_string())).collect(),
        ..Inbox::default()
    };
    // The last seq a spectator stream has seen, to wait for a bot's move on.
    let (seen_tx, mut seen) = tokio::sync::watch::channel(0u64);
    let mut pacer = open_watch(client, &id, None, 0, false)
        .await
        .expect("a spectator stream");
    let pacer = tokio::spawn(async move {
        while let Some(Ok(m)) = pacer.next().await {
            if let Some(Msg::Event(e)) = m.kind {
                let _ = seen_tx.send(e.seq);
            }
        }
    });
    // Every client's seat and two spectators watch, half of them with the action lists.
    let mut watchers = Vec::new();
    for (s, token) in tokens.iter().enumerate() {
        let Some(token) = token else { continue };
        let viewer = Viewer::Seat(Seat(s as u8));
        let task = spawn_watcher(
            server.client().await,
            id.clone(),
            Some(token.clone()),
            s % 2 == 0,
        );
        watchers.push((viewer, task));
    }
    for include in [true, false] {
        let task = spawn_watcher(server.client().await, id.clone(), None, include);
        watchers.push((Viewer::Spectator, task));
    }
    let mut step = 0u64;
    loop {
        let public = get_view(client, &mut inbox, &id, Viewer::Spectator, None, false).await;
        let public = public.view.expect("a view");
        if public.status == v1::GameStatus::Finished as i32 {
            break;
        }
        let actor = public.to_act.expect("a seat to act") as usize;
        let Some(token) = tokens[actor].clone() else {
            // A bot's turn: the server plays it; wait for its move's first event.
            tokio::time::timeout(Duration::from_secs(60), seen.wait_for(|&s| s > public.seq))
                .await
                .expect("a bot moves within 60 s")
                .expect("the spectator stream runs");
            continue;
        };
        let viewer = Viewer::Seat(Seat(actor as u8));
        let mine = get_view(client, &mut inbox, &id, viewer, Some(&token), true).await;
        let seq = mine.view.as_ref().expect("a view").seq;
        let legal = mine.legal.expect("the seat to act has choices");
        let chosen = legal.actions[rng.below(legal.actions.len() as u64) as usize].clone();
        // Probing every step would make the games slow; one step in six is plenty.
        if rng.below(6) == 0 {
            probe(
                client, &mut inbox, &id, &tokens, actor, &chosen, seq, &mut rng,
            )
            .await;
        }
        let answer = client
            .submit_action(authed(
                v1::SubmitActionRequest {
                    game_id: id.clone(),
                    expected_seq: seq,
                    request_id: format!("move-{step}"),
                    action: Some(chosen),
                },
                &token,
            ))
            .await
            .expect("a listed action is accepted")
            .into_inner();
        for e in answer.events {
            inbox.push(viewer, Received::Event(e));
        }
        step += 1;
        assert!(step < 20_000, "the game ends");
    }
    // After the end: every receiver's view, the scores, and the export.
    let seq = get_view(client, &mut inbox, &id, Viewer::Spectator, None, true)
        .await
        .view
        .expect("a view")
        .seq;
    for (s, token) in tokens.iter().enumerate() {
        let Some(token) = token else { continue };
        let viewer = Viewer::Seat(Seat(s as u8));
        get_view(client, &mut inbox, &id, viewer, Some(token), true).await;
    }
    pacer.abort();
    let scores = client
        .get_scores(v1::GetScoresRequest {
            game_id: id.clone(),
        })
        .await
        .expect("scores")
        .into_inner();
    inbox.push(Viewer::Spectator, Received::Scores { seq, scores });
    let record = client
        .export_game(v1::ExportGameRequest {
            game_id: id.clone(),
        })
        .await
        .expect("the finished game is exported")
        .into_inner()
        .record
        .expect("a record");
    inbox.push(Viewer::Spectator, Received::Export(record));
    for (viewer, task) in watchers {
        let got = task.await.expect("the watcher ends");
        // A watcher receives every event of the game, in order.
        let seqs: Vec<u64> = got
            .iter()
            .filter_map(|r| match r {
                Received::Event(e) => Some(e.seq),
                _ => None,
            })
            .collect();
        assert_eq!(
            seqs,
            (1..=seq).collect::<Vec<_>>(),
            "{viewer:?}: every event"
        );
        for item in got {
            inbox.push(viewer, item);
        }
    }
    inbox
}

/// The checks are not vacuous: a card a seat drew, planted in what another seat or a
/// spectator received, and a seat's view delivered to another seat, are each caught.
fn assert_planted_leaks_are_caught(inbox: &Inbox) {
    let export = inbox
        .items
        .iter()
        .find_map(|(_, r)| match r {
            Received::Export(rec) => Some(rec.clone()),
            _ => None,
        })
        .expect("an export");
    let drawn = inbox.items.iter().find_map(|(v, r)| match (v, r) {
        (Viewer::Seat(s), Received::Event(e))
            if matches!(&e.kind, Some(Ev::Drew(d)) if !d.cards.is_empty()) =>
        {
            Some((*s, Received::Event(e.clone())))
        }
        _ => None,
    });
    let view = inbox.items.iter().find_map(|(v, r)| match (v, r) {
        (Viewer::Seat(s), Received::View { response, .. }) => Some((
            *s,
            Received::View {
                response: response.clone(),
                include_actions: false,
            },
        )),
        _ => None,
    });
    for (seat, item) in [drawn, view]
        .into_iter()
        .map(|p| p.expect("an item to plant"))
    {
        let other = Viewer::Seat(Seat((seat.0 + 1) % export.display_names.len() as u8));
        for viewer in [other, Viewer::Spectator] {
            let planted = Inbox {
                items: vec![
                    (Viewer::Spectator, Received::Export(export.clone())),
                    (viewer, clone_received(&item)),
                ],
                bots: inbox.bots.clone(),
            };
            let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check_inbox(&planted, &mut Tally::default())
            }));
            let message = match caught {
                Ok(()) => panic!("a planted leak to {viewer:?} was not caught"),
                Err(payload) => payload
                    .downcast_ref::<String>()
                    .cloned()
                    .unwrap_or_default(),
            };
            assert!(message.starts_with("LEAK"), "caught as a leak: {message}");
        }
    }
}

/// A copy of an event or a view (the only items planted).
fn clone_received(item: &Received) -> Received {
    match item {
        Received::Event(e) => Received::Event(e.clone()),
        Received::View {
            response,
            include_actions,
        } => Received::View {
            response: response.clone(),
            include_actions: *include_actions,
        },
        other => panic!("not planted: {other:?}"),
    }
}

/// Plays `CANASTA_LEAK_GAMES` games (default 1) of each table and checks every inbox.
async fn play_and_check(tables: &[Table]) -> Tally {
    let games: usize = std::env::var("CANASTA_LEAK_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let seed: u64 = std::env::var("CANASTA_LEAK_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("CANASTA_LEAK_SEED={seed}");
    let config = test_config().requests_per_second(1e9).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let mut tally = Tally::default();
    let mut rng = Xoshiro256::seed_from_u64(seed);
    for _ in 0..games {
        for table in tables {
            let inbox = play_one(&mut client, &server, table, rng.next_u64()).await;
            check_inbox(&inbox, &mut tally);
            if tally.games == 1 {
                assert_planted_leaks_are_caught(&inbox);
            }
        }
    }
    eprintln!("{tally:?}");
    assert!(
        tally.probes_of_hidden_cards > 0,
        "the probes named hidden cards"
    );
    server.stop().await;
    tally
}

// Games where the server's built-in bots hold some seats: the clients' seats and the
// spectators see of a bot's seat what they see of any other seat (its hand never), the bots'
// seats join at the creation under their names, and the server plays them through the same
// events and logs as a client's moves.
#[tokio::test]
async fn games_with_the_servers_bots_leak_nothing() {
    let config = test_config().requests_per_second(1e9).build().unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let seed: u64 = rand::random();
    eprintln!("seed {seed}");
    let mut rng = Xoshiro256::seed_from_u64(seed);
    let mut tally = Tally::default();
    for (players, bots) in [
        (4, vec![(1, "greedy"), (2, "search:20")]),
        (2, vec![(0, "random")]),
        (3, vec![(0, "safe"), (2, "greedy")]),
    ] {
        let table = Table {
            preset: v1::Preset::Official,
            players,
        };
        let inbox = play_one_with_bots(&mut client, &server, &table, rng.next_u64(), &bots).await;
        check_inbox(&inbox, &mut tally);
        let bot_seats = inbox.items.iter().filter(|(viewer, _)| {
            matches!(viewer, Viewer::Seat(s) if bots.iter().any(|(b, _)| *b == u32::from(s.0)))
        });
        assert_eq!(bot_seats.count(), 0, "nothing was received as a bot's seat");
    }
    eprintln!("{tally:?}");
    assert_eq!(tally.games, 3);
    assert!(
        tally.probes_of_hidden_cards > 0,
        "the probes named hidden cards"
    );
    server.stop().await;
}

fn official(players: std::ops::RangeInclusive<u32>) -> Vec<Table> {
    players
        .map(|players| Table {
            preset: v1::Preset::Official,
            players,
        })
        .collect()
}

#[tokio::test]
async fn official_games_of_two_to_four_players_leak_nothing() {
    play_and_check(&official(2..=4)).await;
}

#[tokio::test]
async fn official_games_of_five_and_six_players_leak_nothing() {
    play_and_check(&official(5..=6)).await;
}

#[tokio::test]
async fn wiener_samba_and_swiss_games_leak_nothing() {
    let tables = [
        Table {
            preset: v1::Preset::Wiener,
            players: 4,
        },
        Table {
            preset: v1::Preset::Samba,
            players: 3,
        },
        Table {
            preset: v1::Preset::Swiss,
            players: 4,
        },
    ];
    play_and_check(&tables).await;
}

#[test]
fn card_names_are_found_in_messages() {
    let named = cards_named("you do not hold that many 10♥: you hold 0; K♠ and Jk");
    let names: Vec<String> = named.iter().map(|c| c.to_string()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
    for n in ["10♥", "K♠", "Jk"] {
        assert!(names.contains(&n.to_string()), "{names:?}");
    }
}

// A seat's watch stream follows its holder, not the seat: once he leaves, the cards of the
// seat's next holder must not reach him.
#[tokio::test]
async fn a_stream_of_a_seat_that_was_left_shows_nothing_of_the_next_holder() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create_with(
        &mut client,
        v1::CreateGameRequest {
            rules: Some(rules(v1::Preset::Official, 2, &[("target_score", "150")])),
            seed: Some(3),
            first_dealer: Some(1),
            ..Default::default()
        },
    )
    .await;
    let id = game.game_id.clone();
    let mut tokens = join_all(&mut client, &game).await;
    let mut old = client
        .watch_game(authed(
            v1::WatchGameRequest {
                game_id: id.clone(),
                after_seq: 0,
                include_actions: true,
                include_view: false,
            },
            &tokens[0],
        ))
        .await
        .expect("a stream")
        .into_inner();
    client
        .leave_game(authed(
            v1::LeaveGameRequest {
                game_id: id.clone(),
            },
            &tokens[0],
        ))
        .await
        .expect("the seat is left");
    let joined = client
        .join_game(v1::JoinGameRequest {
            game_id: id.clone(),
            seat: Some(0),
            display_name: "next holder".into(),
        })
        .await
        .expect("the seat is free")
        .into_inner();
    tokens[0] = joined.token;
    // The next holder of seat 0 plays a few turns: he draws cards only he may see.
    play_to_end(&mut client, &id, &tokens, 12, |_| 0).await;
    // The stream must end after its SeatLeft: read to its end (10 s without a message is a
    // hang, and fails).
    let mut after_leave = false;
    loop {
        let Some(message) = next_message(&mut old).await else {
            break;
        };
        match message.kind {
            Some(Msg::Event(e)) => {
                if let Some(Ev::SeatLeft(_)) = e.kind {
                    after_leave = true;
                }
                if let Some(Ev::Drew(d)) = &e.kind {
                    assert!(
                        !after_leave || d.cards.is_empty(),
                        "LEAK: the stream of the seat's former holder shows the cards its next \
                         holder drew (seq {})",
                        e.seq
                    );
                }
            }
            Some(Msg::Prompt(p)) => assert!(
                !after_leave,
                "LEAK: the former holder is prompted with the seat's choices (its hand) at {}",
                p.seq
            ),
            _ => {}
        }
    }
    assert!(after_leave, "the stream shows its holder's SeatLeft");
    server.stop().await;
}

// ----- games waiting for players -----

/// Everything one client got from a game while it waited for players.
#[derive(Default)]
struct WaitingInbox {
    views: Vec<v1::GetViewResponse>,
    summaries: Vec<v1::GameSummary>,
    scores: Vec<v1::GetScoresResponse>,
    events: Vec<v1::GameEvent>,
    prompts: Vec<v1::Prompt>,
    checks: Vec<v1::CheckActionResponse>,
    play_results: Vec<v1::PlayResult>,
    refusals: Vec<Status>,
}

impl WaitingInbox {
    /// Records one message of a watch stream (or of a Play call's watch side).
    fn watched(&mut self, message: Option<Msg>) {
        match message {
            Some(Msg::Event(e)) => self.events.push(e),
            Some(Msg::Prompt(p)) => self.prompts.push(p),
            Some(Msg::Heartbeat(_)) => {}
            Some(Msg::Lagged(l)) => panic!("a watcher lagged at {}", l.last_seq),
            None => panic!("an empty watch message"),
        }
    }
}

/// What a client may ask to see of a waiting game: everything a watch can carry.
fn watch_everything(game_id: &str) -> v1::WatchGameRequest {
    v1::WatchGameRequest {
        game_id: game_id.to_string(),
        after_seq: 0,
        include_actions: true,
        include_view: true,
    }
}

/// Actions a prober sends before the start: a draw, and moves naming cards it cannot know.
fn waiting_probes() -> Vec<v1::Action> {
    use v1::action::Kind;
    let card = |name: &str| card_to_wire(name.parse().expect("a card"));
    let king = card("KS");
    vec![
        canasta_proto::convert::action_to_wire(&canasta_engine::Action::DrawStock),
        v1::Action {
            kind: Some(Kind::Discard(v1::DiscardAction {
                card: Some(card("7H")),
            })),
        },
        v1::Action {
            kind: Some(Kind::Meld(v1::MeldAction {
                melds: vec![v1::MeldSpec {
                    meld_index: None,
                    cards: vec![king, king, king],
                }],
            })),
        },
    ]
}

/// The view of a game waiting for players, as the server must send it to anyone: who sits
/// where (the seats, their sides and names), nothing of the deal: no dealer, no turn, no phase,
/// no hand or count of cards, no pile, no result.
fn waiting_view(got: &v1::GameView) -> v1::GameView {
    v1::GameView {
        game_id: got.game_id.clone(),
        seq: got.seq,
        status: v1::GameStatus::Waiting as i32,
        viewer_seat: got.viewer_seat,
        seats: got
            .seats
            .iter()
            .map(|s| v1::SeatView {
                seat: s.seat,
                side: s.side,
                display_name: s.display_name.clone(),
                occupied: s.occupied,
                ..Default::default()
            })
            .collect(),
        sides: got
            .sides
            .iter()
            .map(|s| v1::SideView {
                side: s.side,
                seats: s.seats.clone(),
                // The scores the match starts from: part of its rules, not of the deal.
                score: s.score,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// Nothing in `inbox` shows a card, or anything else of the deal.
fn assert_waiting_shows_nothing(table: &Table, inbox: &WaitingInbox) {
    let players = table.players as usize;
    for r in &inbox.views {
        let view = r.view.as_ref().expect("a view");
        assert_eq!(view.seats.len(), players);
        assert_eq!(
            *view,
            waiting_view(view),
            "LEAK: a waiting game's view shows its deal ({table:?}, viewer {:?})",
            view.viewer_seat
        );
        assert_eq!((&r.legal, r.time_left_ms), (&None, None), "{table:?}");
    }
    for s in &inbox.summaries {
        assert_eq!(s.status, v1::GameStatus::Waiting as i32, "{table:?}");
        assert_eq!(
            s.result, None,
            "a waiting game has no result yet ({table:?})"
        );
    }
    for s in &inbox.scores {
        assert!(s.deals.is_empty() && s.result.is_none(), "{table:?}: {s:?}");
    }
    for e in &inbox.events {
        assert!(
            matches!(e.kind, Some(Ev::SeatJoined(_) | Ev::SeatLeft(_))),
            "LEAK: a waiting game streamed {e:?} ({table:?})"
        );
    }
    assert!(
        inbox.prompts.is_empty(),
        "LEAK: a waiting game prompted {:?} ({table:?})",
        inbox.prompts
    );
    // No dry run is answered before the start: its verdict would depend on the dealt hand.
    assert!(
        inbox.checks.is_empty(),
        "LEAK: a waiting game checked actions: {:?} ({table:?})",
        inbox.checks
    );
    for r in &inbox.play_results {
        let error = r
            .error
            .as_ref()
            .expect("an action before the start is refused");
        assert_eq!(error.reason, "GAME_NOT_STARTED", "{table:?}");
        assert_eq!(cards_named(&error.message), [], "{table:?}: {error:?}");
    }
    for status in &inbox.refusals {
        let why = reason(status);
        assert!(
            ["GAME_NOT_STARTED", "NOT_A_SEAT_OF_GAME"].contains(&why.as_str()),
            "{table:?}: {status:?}"
        );
        for text in status_texts(status) {
            assert_eq!(cards_named(&text), [], "LEAK: {table:?}: {status:?}");
        }
    }
}

/// One client joins every seat of a fresh `table` in turn, reads everything a seat and a
/// spectator may read (views, summaries, scores, a watch stream and a Play call from seq 0,
/// dry runs and actions), and leaves; then tries its left tokens again. Nothing it got may show
/// a card. Then the game fills and starts: each seat's hand is there, and was never shown.
async fn join_and_leave_every_seat(server: &TestServer, table: &Table) {
    let mut client = server.client().await;
    let game = create_with(
        &mut client,
        v1::CreateGameRequest {
            rules: Some(rules(table.preset, table.players, &[])),
            // The server picks the seed: nobody knows the deal in advance.
            seed: None,
            ..Default::default()
        },
    )
    .await;
    let id = game.game_id.clone();
    let mut inbox = WaitingInbox::default();
    inbox.summaries.push(game.clone());
    let mut spectator = client
        .watch_game(watch_everything(&id))
        .await
        .expect("a spectator's stream")
        .into_inner();
    let mut left = Vec::new();
    for seat in 0..table.players {
        let joined = client
            .join_game(v1::JoinGameRequest {
                game_id: id.clone(),
                seat: Some(seat),
                display_name: "prober".into(),
            })
            .await
            .expect("a free seat")
            .into_inner();
        inbox.summaries.push(joined.game.expect("a summary"));
        let token = joined.token;
        let mut watch = client
            .watch_game(authed(watch_everything(&id), &token))
            .await
            .expect("a seat's stream")
            .into_inner();
        let opening = v1::PlayRequest {
            kind: Some(v1::play_request::Kind::Watch(watch_everything(&id))),
        };
        let mut play = canasta_tests::play::PlayCall::open(&mut client, Some(&token), opening)
            .await
            .expect("a Play call");
        for (include_actions, viewer) in [(true, Some(&token)), (false, Some(&token)), (true, None)]
        {
            let viewer = viewer.map(String::as_str);
            let view = view_of(&mut client, &id, viewer, include_actions).await;
            inbox.views.push(view);
        }
        let seq = summary_of(&mut client, &id).await.seq;
        for (n, action) in waiting_probes().into_iter().enumerate() {
            let request = v1::CheckActionRequest {
                game_id: id.clone(),
                action: Some(action.clone()),
            };
            match client.check_action(authed(request, &token)).await {
                Ok(answer) => inbox.checks.push(answer.into_inner()),
                Err(status) => inbox.refusals.push(status),
            }
            let request = v1::SubmitActionRequest {
                game_id: id.clone(),
                expected_seq: seq,
                request_id: format!("probe-{seat}-{n}"),
                action: Some(action),
            };
            let status = client
                .submit_action(authed(request.clone(), &token))
                .await
                .expect_err("no action before the start");
            inbox.refusals.push(status);
            play.send(v1::PlayRequest {
                kind: Some(v1::play_request::Kind::Submit(request)),
            })
            .await;
            loop {
                use v1::play_response::Kind as Play;
                match play.next().await.expect("the call goes on") {
                    Play::Result(r) => {
                        inbox.play_results.push(r);
                        break;
                    }
                    Play::Update(u) => inbox.watched(u.kind),
                }
            }
        }
        let scores = client
            .get_scores(v1::GetScoresRequest {
                game_id: id.clone(),
            })
            .await
            .expect("scores")
            .into_inner();
        inbox.scores.push(scores);
        inbox.summaries.push(summary_of(&mut client, &id).await);
        client
            .leave_game(authed(
                v1::LeaveGameRequest {
                    game_id: id.clone(),
                },
                &token,
            ))
            .await
            .expect("the seat is left");
        // The seat's streams end after its SeatLeft.
        while let Some(m) = next_message(&mut watch).await {
            inbox.watched(m.kind);
        }
        while let Some(kind) = play.next().await {
            match kind {
                v1::play_response::Kind::Update(u) => inbox.watched(u.kind),
                v1::play_response::Kind::Result(r) => inbox.play_results.push(r),
            }
        }
        left.push(token);
    }
    // A left token is a stranger's: refused everywhere.
    for token in &left {
        let view = v1::GetViewRequest {
            game_id: id.clone(),
            include_actions: true,
        };
        match client.get_view(authed(view, token)).await {
            Ok(r) => inbox.views.push(r.into_inner()),
            Err(status) => inbox.refusals.push(status),
        }
        match client
            .watch_game(authed(watch_everything(&id), token))
            .await
        {
            Ok(_) => panic!("a left token watches as its seat"),
            Err(status) => inbox.refusals.push(status),
        }
        let check = v1::CheckActionRequest {
            game_id: id.clone(),
            action: Some(waiting_probes().remove(0)),
        };
        match client.check_action(authed(check, token)).await {
            Ok(answer) => inbox.checks.push(answer.into_inner()),
            Err(status) => inbox.refusals.push(status),
        }
    }
    let before_start = summary_of(&mut client, &id).await;
    inbox.summaries.push(before_start.clone());
    while inbox
        .events
        .iter()
        .filter(|e| e.seq == before_start.seq)
        .count()
        < 1
    {
        let m = next_message(&mut spectator)
            .await
            .expect("the stream goes on");
        inbox.watched(m.kind);
    }
    // Every probe was answered: one join and one leave a seat, three refused actions a seat
    // on each of the three ways to send one, three refusals a left token.
    let players = table.players as usize;
    assert_eq!(before_start.seq, 2 * players as u64);
    assert_eq!(inbox.play_results.len(), 3 * players);
    assert_eq!(inbox.refusals.len(), 2 * 3 * players + 3 * players);
    assert_eq!(inbox.views.len(), 3 * players);
    assert_waiting_shows_nothing(table, &inbox);

    // The game starts for real: every seat holds its dealt hand, which nothing above showed
    // (no card at all was shown before the start).
    let tokens = join_all(&mut client, &game).await;
    let mut dealt = 0;
    for (seat, token) in tokens.iter().enumerate() {
        let view = view_of(&mut client, &id, Some(token), false)
            .await
            .view
            .expect("a view");
        assert_eq!(view.status, v1::GameStatus::Playing as i32);
        assert_ne!(view.phase, v1::Phase::Unspecified as i32);
        let me = &view.seats[seat];
        // With five or six players, one or two sit the deal out and hold no cards.
        assert_eq!(
            me.hand.len() as u32,
            me.hand_count,
            "{table:?}: seat {seat}"
        );
        assert_eq!(me.hand.is_empty(), !me.playing, "{table:?}: seat {seat}");
        dealt += me.playing as u32;
    }
    assert!(dealt >= 2, "{table:?}: {dealt} hands dealt");
}

// A client that joins a waiting game's seats one after the other and leaves each learns
// nothing of the deal it would play: before the start no view, summary, stream, dry run,
// action or error shows a card (the hands were dealt at creation; a seat's view used to show
// its hand, so one client could read every hand before taking a seat for real).
#[tokio::test]
async fn a_client_that_joins_and_leaves_every_seat_of_a_waiting_game_learns_nothing() {
    let server = TestServer::start().await;
    let allowed = [
        (v1::Preset::Official, 2..=6),
        (v1::Preset::Wiener, 2..=6),
        (v1::Preset::Samba, 2..=4),
        (v1::Preset::Swiss, 2..=5),
    ];
    for (preset, counts) in allowed {
        for players in counts {
            join_and_leave_every_seat(&server, &Table { preset, players }).await;
        }
    }
    server.stop().await;
}
