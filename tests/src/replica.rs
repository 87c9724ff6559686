//! A game's expected log, played by the engine beside the server: the [`Replica`] plays the same
//! setup and actions in-process, so what the server sends can be compared with what each viewer
//! must receive, event by event; and the short scripted games the RPC tests share.

use canasta_engine::bot::{Bot, SafeBot};
use canasta_engine::{
    Action, Arrangement, Card, CardCounts, Event, Game, MeldSpec, Phase, Rules, Seat, Setup,
    Viewer, parse_cards, redact,
};
use canasta_proto::convert::{
    self, action_to_wire, card_list_to_wire, event_to_wire, rules_from_wire,
};
use canasta_proto::v1;
use canasta_proto::v1::game_event::Kind as Ev;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use tonic::Streaming;

use crate::{Client, authed, create_with, join_all, next_message, rules, summary_of};

/// A prearranged deck for deal `deal` dealt by `dealer` under `rules`: the given hands (short
/// ones filled), pile and stock top, as a CreateGame card order.
pub fn deck(
    rules: &v1::RuleSet,
    deal: u32,
    dealer: u8,
    hands: &[&str],
    pile: &str,
    stock: &str,
) -> v1::CardOrder {
    let rules = Rules::new(&rules_from_wire(rules).expect("good rules")).expect("good rules");
    let arrangement = Arrangement {
        hands: hands.iter().map(|h| cards(h)).collect(),
        pile: cards(pile),
        stock: cards(stock),
        cut: vec![],
    };
    let deck = arrangement
        .deck(&rules, deal, Seat(dealer))
        .unwrap_or_else(|e| panic!("{e}"));
    v1::CardOrder {
        cards: card_list_to_wire(&deck),
    }
}

/// The engine's setup of a CreateGame request.
pub fn setup_of(request: &v1::CreateGameRequest) -> Setup {
    convert::setup_from_wire(
        request.rules.as_ref(),
        request.seed.expect("a seed"),
        &request.card_orders,
        request.first_dealer,
        &request.start_scores,
    )
    .expect("a valid setup")
}

/// One entry of the log the server keeps: its own events (joins, the start, time-outs) or the
/// engine's.
pub enum LogItem {
    /// A server event, public as it is.
    Server(Ev),
    /// A rules event, redacted for each viewer.
    Engine(Event),
}

impl LogItem {
    /// The event as `viewer` must receive it.
    pub fn seen_by(&self, viewer: Viewer) -> Option<Ev> {
        match self {
            LogItem::Server(k) => Some(k.clone()),
            LogItem::Engine(e) => event_to_wire(&redact(e, viewer)),
        }
    }
}

/// The log of a game of `players` that every seat joined in seat order as [`crate::join_all`]
/// does (as "player N"), up to its start: the joins, the start, and the engine's `opening`
/// events.
pub fn joined_log(players: u8, opening: Vec<Event>) -> Vec<LogItem> {
    joined_log_with_bots(players, &[], opening)
}

/// The log of a game of `players` created with the server's `bots` (seat, name), whose other
/// seats were joined in seat order as "player N", up to its start: the bots' joins (at the
/// creation, in seat order), the others' joins, the start, and the engine's `opening` events.
pub fn joined_log_with_bots(
    players: u8,
    bots: &[(u32, String)],
    opening: Vec<Event>,
) -> Vec<LogItem> {
    let bot_of = |seat: u32| bots.iter().find(|(s, _)| *s == seat).map(|(_, b)| b);
    let joined = |seat: u32, display_name: String| {
        LogItem::Server(Ev::SeatJoined(v1::SeatJoined { seat, display_name }))
    };
    let mut log: Vec<LogItem> = (0..u32::from(players))
        .filter_map(|seat| bot_of(seat).map(|b| joined(seat, b.clone())))
        .collect();
    log.extend(
        (0..u32::from(players))
            .filter(|&seat| bot_of(seat).is_none())
            .map(|seat| joined(seat, format!("player {seat}"))),
    );
    log.push(LogItem::Server(Ev::GameStarted(v1::GameStarted {})));
    log.extend(opening.into_iter().map(LogItem::Engine));
    log
}

/// The game as the server must have it, played in-process by the engine from the same setup
/// and the same actions: the events each viewer must receive.
pub struct Replica {
    /// The engine's game.
    pub game: Game,
    /// Every event so far, in order.
    pub log: Vec<LogItem>,
}

impl Replica {
    /// The game `request` creates, after every seat joined in seat order as `join_all` does.
    pub fn joined(request: &v1::CreateGameRequest) -> Replica {
        let (game, opening) = Game::start(&setup_of(request)).expect("a valid setup");
        let log = joined_log(game.rules().players, opening);
        Replica { game, log }
    }

    /// Applies an action that must be legal.
    pub fn apply(&mut self, seat: u8, action: &Action) {
        let events = self
            .game
            .apply(Seat(seat), action)
            .unwrap_or_else(|e| panic!("seat {seat}: {action} refused: {e}"));
        self.log.extend(events.into_iter().map(LogItem::Engine));
    }

    /// The seat to act times out and the fallback bot moves for it.
    pub fn time_out(&mut self) {
        let seat = self.game.to_act().expect("a seat to act");
        let view = self.game.view(Viewer::Seat(seat));
        let action = SafeBot::new().choose(&view, &view.legal().expect("choices"));
        self.log.push(LogItem::Server(Ev::TimedOut(v1::TimedOut {
            seat: seat.0 as u32,
            policy: v1::TimeoutPolicy::FallbackMove as i32,
        })));
        self.apply(seat.0, &action);
    }

    /// The seq of the last event.
    pub fn seq(&self) -> u64 {
        self.log.len() as u64
    }

    /// Every event, as `viewer` must see it.
    pub fn events(&self, viewer: Viewer) -> Vec<v1::GameEvent> {
        self.log
            .iter()
            .enumerate()
            .map(|(i, item)| v1::GameEvent {
                seq: i as u64 + 1,
                kind: item.seen_by(viewer),
            })
            .collect()
    }

    /// The events after seq `after`, as `viewer` must see them.
    pub fn events_after(&self, viewer: Viewer, after: u64) -> Vec<v1::GameEvent> {
        self.events(viewer)[after as usize..].to_vec()
    }

    /// A plain move for the seat to act: draw from the stock, then discard the first card of
    /// the hand; where that is not legal (the stock is empty), the first legal action.
    pub fn plain_move(&self) -> (u8, Action) {
        let seat = self.game.to_act().expect("a seat to act");
        let wanted = match self.game.phase() {
            Phase::Draw => Action::DrawStock,
            _ => Action::Discard {
                card: self.game.hand(seat).iter().next().expect("a card"),
            },
        };
        if self.game.check(seat, &wanted).is_ok() {
            return (seat.0, wanted);
        }
        let mut all = Vec::new();
        self.game.legal_actions(&mut all);
        (seat.0, all.into_iter().next().expect("a legal action"))
    }
}

/// A rule set for short matches: official, two players, target 300.
pub fn short_rules() -> v1::RuleSet {
    rules(v1::Preset::Official, 2, &[("target_score", "300")])
}

/// A seeded two-player game in which seat 0 plays first.
pub fn seeded(seed: u64) -> v1::CreateGameRequest {
    v1::CreateGameRequest {
        rules: Some(short_rules()),
        seed: Some(seed),
        first_dealer: Some(1),
        ..Default::default()
    }
}

/// A card from its text, e.g. `card("KS")`; panics saying what is wrong with the text.
pub fn card(text: &str) -> Card {
    text.parse()
        .unwrap_or_else(|e| panic!("{text:?} is not a card: {e}"))
}

/// Cards from their text, e.g. `cards("KS KH 2C")`; panics saying what is wrong with the text.
pub fn cards(text: &str) -> Vec<Card> {
    parse_cards(text).unwrap_or_else(|e| panic!("{text:?} are not cards: {e}"))
}

pub const SEAT0_HAND: &str = "KS KS KH KH KD KD KC QS QS QH QH QD QD QC AS";

/// A prearranged two-player match that ends in six actions: seat 0 draws 4S 5S and discards
/// 4S; seat 1 draws 9S 9H and discards 9S; seat 0 draws AH AD and goes out with a canasta of
/// kings, one of queens and three aces, discarding 5S, which ends the match (target 300).
pub fn short_game() -> (v1::CreateGameRequest, Vec<(u8, Action)>) {
    let spec = rules_from_wire(&short_rules()).expect("valid rules");
    let deck = Arrangement {
        hands: vec![cards(SEAT0_HAND), vec![]],
        pile: cards("7D"),
        stock: cards("4S 5S 9S 9H AH AD"),
        cut: vec![],
    }
    .deck(&Rules::new(&spec).expect("rules"), 0, Seat(1))
    .expect("a deck");
    let request = v1::CreateGameRequest {
        rules: Some(short_rules()),
        seed: Some(3),
        card_orders: vec![v1::CardOrder {
            cards: card_list_to_wire(&deck),
        }],
        first_dealer: Some(1),
        ..Default::default()
    };
    let meld = |text: &str| MeldSpec::new_meld(CardCounts::from_cards(cards(text)));
    let script = vec![
        (0, Action::DrawStock),
        (0, Action::Discard { card: card("4S") }),
        (1, Action::DrawStock),
        (1, Action::Discard { card: card("9S") }),
        (0, Action::DrawStock),
        (
            0,
            Action::GoOut {
                melds: [
                    meld("KS KS KH KH KD KD KC"),
                    meld("QS QS QH QH QD QD QC"),
                    meld("AS AH AD"),
                ]
                .into_iter()
                .collect(),
                discard: Some(card("5S")),
            },
        ),
    ];
    (request, script)
}

/// The game's seq now.
pub async fn game_seq(client: &mut Client, game_id: &str) -> u64 {
    summary_of(client, game_id).await.seq
}

/// Submits an action of `seat` at the replica's seq, checks the answer and applies it to the
/// replica.
pub async fn act(
    client: &mut Client,
    game_id: &str,
    tokens: &[String],
    replica: &mut Replica,
    seat: u8,
    action: &Action,
) -> v1::SubmitActionResponse {
    let response = client
        .submit_action(authed(
            v1::SubmitActionRequest {
                game_id: game_id.to_string(),
                expected_seq: replica.seq(),
                request_id: format!("a{}", replica.seq()),
                action: Some(action_to_wire(action)),
            },
            &tokens[seat as usize],
        ))
        .await
        .unwrap_or_else(|e| panic!("seat {seat}: {action} refused: {e:?}"))
        .into_inner();
    let first = replica.seq();
    replica.apply(seat, action);
    assert_eq!(response.seq, replica.seq());
    assert_eq!(
        response.events,
        replica.events_after(Viewer::Seat(Seat(seat)), first)
    );
    response
}

/// Makes `n` plain moves (see [`Replica::plain_move`]).
pub async fn plain_moves(
    client: &mut Client,
    game_id: &str,
    tokens: &[String],
    replica: &mut Replica,
    n: usize,
) {
    for _ in 0..n {
        let (seat, action) = replica.plain_move();
        act(client, game_id, tokens, replica, seat, &action).await;
    }
}

/// A started game (all seats joined) and its replica.
pub async fn started(
    client: &mut Client,
    request: v1::CreateGameRequest,
) -> (String, Vec<String>, Replica) {
    let game = create_with(client, request.clone()).await;
    let tokens = join_all(client, &game).await;
    (game.game_id, tokens, Replica::joined(&request))
}

/// Reads messages until the event with seq `until` (included); heartbeats are skipped.
pub async fn read_until(stream: &mut Streaming<v1::WatchGameResponse>, until: u64) -> Vec<Msg> {
    let mut out = Vec::new();
    loop {
        let m = next_message(stream)
            .await
            .unwrap_or_else(|| panic!("the stream ended before seq {until}"));
        let kind = m.kind.expect("a message kind");
        match &kind {
            Msg::Heartbeat(_) => continue,
            Msg::Lagged(l) => panic!("lagged at {}", l.last_seq),
            Msg::Event(e) if e.seq >= until => {
                out.push(kind);
                return out;
            }
            _ => out.push(kind),
        }
    }
}

/// Reads messages until the stream ends.
pub async fn read_to_end(stream: &mut Streaming<v1::WatchGameResponse>) -> Vec<Msg> {
    let mut out = Vec::new();
    while let Some(m) = next_message(stream).await {
        out.push(m.kind.expect("a message kind"));
    }
    out
}

/// Reads a stream until it ends, each message within 10 s (a guard against a hang): its
/// messages, and the error that ended it, if one did.
pub async fn drain(
    mut stream: Streaming<v1::WatchGameResponse>,
) -> (Vec<Msg>, Option<tonic::Status>) {
    let mut messages = Vec::new();
    loop {
        match tokio::time::timeout(std::time::Duration::from_secs(10), stream.message())
            .await
            .expect("a message or the stream's end within 10 s")
        {
            Ok(Some(m)) => messages.push(m.kind.expect("a message kind")),
            Ok(None) => return (messages, None),
            Err(status) => return (messages, Some(status)),
        }
    }
}

/// The whole event log of `game_id` as the seat of `token` (or a spectator) sees it now.
pub async fn log_of(client: &mut Client, game_id: &str, token: Option<&str>) -> Vec<v1::GameEvent> {
    let seq = game_seq(client, game_id).await;
    if seq == 0 {
        return Vec::new();
    }
    let mut stream = crate::open_watch(client, game_id, token, 0, false)
        .await
        .expect("a watch stream");
    events(&read_until(&mut stream, seq).await)
}

/// The events among messages.
pub fn events(messages: &[Msg]) -> Vec<v1::GameEvent> {
    messages
        .iter()
        .filter_map(|m| match m {
            Msg::Event(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

pub fn seat(s: u8) -> Viewer {
    Viewer::Seat(Seat(s))
}
