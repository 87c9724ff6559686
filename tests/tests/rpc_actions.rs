//! The playing RPCs end to end: GetView, SubmitAction, CheckAction, GetScores and ExportGame,
//! each with its success path and every error it can return. Games are prearranged, and an
//! engine game in the test (the mirror) is played alongside the server's: the server must answer
//! exactly as the engine does, with the engine's codes and messages for illegal actions, and a
//! refused request must change nothing.
use canasta_engine::{Action, Game, Phase, Seat, Setup, Side, Viewer, redact};
use canasta_proto::convert::{
    self, ViewMeta, action_from_wire, deal_score_to_wire, event_to_wire, legal_to_wire,
    result_to_wire, rules_from_wire, view_to_wire,
};
use canasta_proto::v1;
use canasta_tests::replica::deck;
use canasta_tests::wire::*;
use canasta_tests::*;
use tonic::{Code, Request, Response, Status};
use tonic_types::StatusExt;

// ----- helpers -----

/// The engine's setup for a record's (or a request's) fields.
fn setup(
    rules: &v1::RuleSet,
    seed: u64,
    card_orders: &[v1::CardOrder],
    first_dealer: Option<u32>,
    start_scores: &[i32],
) -> Setup {
    Setup {
        rules: rules_from_wire(rules).expect("good rules"),
        seed,
        card_orders: card_orders
            .iter()
            .map(|o| convert::card_list_from_wire(&o.cards, "card_orders").expect("good cards"))
            .collect(),
        first_dealer: first_dealer.map(|s| Seat(s as u8)),
        start_scores: start_scores.to_vec(),
    }
}

/// A server game with every seat joined, and the same game in the engine.
struct Table {
    server: TestServer,
    client: Client,
    id: String,
    tokens: Vec<String>,
    mirror: Game,
    names: Vec<String>,
}

/// What a refused request must leave as it was: the summary and every view.
#[derive(Debug, PartialEq)]
struct Snapshot {
    summary: v1::GameSummary,
    views: Vec<v1::GetViewResponse>,
}

impl Table {
    async fn new(request: v1::CreateGameRequest) -> Table {
        let server = TestServer::start().await;
        Table::on(server, request).await
    }

    async fn on(server: TestServer, request: v1::CreateGameRequest) -> Table {
        let mut client = server.client().await;
        let mirror = Game::new(&setup(
            request.rules.as_ref().unwrap(),
            request.seed.expect("a seed for the mirror"),
            &request.card_orders,
            request.first_dealer,
            &request.start_scores,
        ))
        .expect("a good setup");
        let game = create_with(&mut client, request).await;
        let tokens = join_all(&mut client, &game).await;
        let names = (0..tokens.len()).map(|s| format!("player {s}")).collect();
        Table {
            server,
            client,
            id: game.game_id,
            tokens,
            mirror,
            names,
        }
    }

    async fn summary(&mut self) -> v1::GameSummary {
        self.client
            .get_game(v1::GetGameRequest {
                game_id: self.id.clone(),
            })
            .await
            .expect("the game exists")
            .into_inner()
            .game
            .expect("a summary")
    }

    async fn seq(&mut self) -> u64 {
        self.summary().await.seq
    }

    /// The view of a seat, or of a spectator.
    async fn view(&mut self, seat: Option<usize>, include_actions: bool) -> v1::GetViewResponse {
        let message = v1::GetViewRequest {
            game_id: self.id.clone(),
            include_actions,
        };
        let request = match seat {
            Some(s) => authed(message, &self.tokens[s]),
            None => Request::new(message),
        };
        self.client
            .get_view(request)
            .await
            .expect("a view")
            .into_inner()
    }

    async fn snapshot(&mut self) -> Snapshot {
        let mut views = Vec::new();
        for seat in (0..self.tokens.len()).map(Some).chain([None]) {
            views.push(self.view(seat, true).await);
        }
        Snapshot {
            summary: self.summary().await,
            views,
        }
    }

    fn request(
        &self,
        seat: usize,
        expected_seq: u64,
        id: &str,
        action: Option<v1::Action>,
    ) -> Request<v1::SubmitActionRequest> {
        authed(
            v1::SubmitActionRequest {
                game_id: self.id.clone(),
                expected_seq,
                request_id: id.to_string(),
                action,
            },
            &self.tokens[seat],
        )
    }

    async fn send(
        &mut self,
        seat: usize,
        id: &str,
        action: Option<v1::Action>,
    ) -> Result<Response<v1::SubmitActionResponse>, Status> {
        let seq = self.seq().await;
        let request = self.request(seat, seq, id, action);
        self.client.submit_action(request).await
    }

    /// Submits a legal action: the server's answer must be the engine's events, redacted for
    /// the seat and numbered on from the game's seq.
    async fn play(&mut self, seat: usize, action: v1::Action) -> v1::SubmitActionResponse {
        let before = self.seq().await;
        let id = format!("play-{before}");
        let answer = self
            .send(seat, &id, Some(action.clone()))
            .await
            .unwrap_or_else(|e| panic!("seat {seat}: {action:?} refused: {e:?}"))
            .into_inner();
        let engine = action_from_wire(&action).expect("well-formed");
        let events = self
            .mirror
            .apply(Seat(seat as u8), &engine)
            .expect("legal in the engine too");
        let expected: Vec<v1::GameEvent> = events
            .iter()
            .enumerate()
            .map(|(i, e)| v1::GameEvent {
                seq: before + 1 + i as u64,
                kind: event_to_wire(&redact(e, Viewer::Seat(Seat(seat as u8)))),
            })
            .collect();
        assert_eq!(answer.events, expected);
        assert_eq!(answer.seq, before + events.len() as u64);
        assert_eq!(self.seq().await, answer.seq);
        answer
    }

    /// Submits an illegal action: refused with FAILED_PRECONDITION and the engine's code and
    /// message, changing nothing. Returns the message.
    async fn illegal(&mut self, seat: usize, action: v1::Action, code: &str) -> String {
        let engine = action_from_wire(&action).expect("well-formed");
        let error = self
            .mirror
            .check(Seat(seat as u8), &engine)
            .expect_err("illegal in the engine");
        assert_eq!(error.code(), code, "{error}");
        let before = self.snapshot().await;
        let status = refused(
            self.send(seat, "illegal", Some(action.clone())).await,
            Code::FailedPrecondition,
            code,
        );
        assert_eq!(status.message(), error.to_string());
        // The dry run says the same.
        let check = self.check(seat, Some(action)).await.expect("a verdict");
        assert_eq!(
            check,
            v1::CheckActionResponse {
                legal: false,
                reason: code.to_string(),
                message: error.to_string(),
            }
        );
        assert_eq!(
            self.snapshot().await,
            before,
            "a refused action changed the game"
        );
        error.to_string()
    }

    async fn check(
        &mut self,
        seat: usize,
        action: Option<v1::Action>,
    ) -> Result<v1::CheckActionResponse, Status> {
        let request = authed(
            v1::CheckActionRequest {
                game_id: self.id.clone(),
                action,
            },
            &self.tokens[seat],
        );
        self.client
            .check_action(request)
            .await
            .map(|r| r.into_inner())
    }

    /// The engine's view of `viewer` as the server should send it.
    fn expected_view(&self, viewer: Viewer, seq: u64) -> v1::GameView {
        let occupied = vec![true; self.names.len()];
        let status = if self.mirror.phase() == Phase::Over {
            v1::GameStatus::Finished
        } else {
            v1::GameStatus::Playing
        };
        let meta = ViewMeta {
            game_id: &self.id,
            seq,
            status,
            names: &self.names,
            occupied: &occupied,
            result: result_to_wire(self.mirror.winner(), self.mirror.scores()),
        };
        view_to_wire(&self.mirror.view(viewer), &meta)
    }

    async fn scores(&mut self) -> v1::GetScoresResponse {
        self.client
            .get_scores(v1::GetScoresRequest {
                game_id: self.id.clone(),
            })
            .await
            .expect("scores")
            .into_inner()
    }

    async fn export(&mut self) -> Result<v1::GameRecord, Status> {
        self.client
            .export_game(v1::ExportGameRequest {
                game_id: self.id.clone(),
            })
            .await
            .map(|r| r.into_inner().record.expect("a record"))
    }
}

const SEED: u64 = 77;

/// Seat 0's hand in the rules game: a natural pair of sevens, a joker, a black three, three
/// kings (30 points: below the minimum of 50).
const HAND0: &str = "7H 7S Jk 3S KS KH KD 9C TC JD QS AS 4D 5D 6H";

/// Two players, official rules; seat 1 deals, so seat 0 plays first. The pile starts frozen by
/// a two under the seven of diamonds; seat 0 draws the fours of spades and hearts, seat 1 the
/// fives.
async fn rules_table() -> Table {
    let rules = rules(v1::Preset::Official, 2, &[]);
    let order = deck(&rules, 0, 1, &[HAND0, ""], "2C 7D", "4S 4H 5S 5H");
    Table::new(v1::CreateGameRequest {
        rules: Some(rules),
        seed: Some(SEED),
        card_orders: vec![order],
        first_dealer: Some(1),
        ..Default::default()
    })
    .await
}

const CANASTAS0: [&str; 2] = ["KS KS KH KH KD KD KC", "QS QS QH QH QD QD QC"];
const CANASTAS1: [&str; 2] = ["JS JS JH JH JD JD JC", "TS TS TH TH TD TD TC"];

/// A two-deal match, target 2000, side 1 starting at 1000: in deal 0 seat 0 draws two aces and
/// goes out concealed with two natural canastas (1400); in deal 1 seat 1 does the same and its
/// side reaches the target.
async fn two_deal_table(seed: Option<u64>) -> Table {
    let rules = rules(v1::Preset::Official, 2, &[("target_score", "2000")]);
    let hand0 = format!("{} {} AS", CANASTAS0[0], CANASTAS0[1]);
    let hand1 = format!("{} {} AC", CANASTAS1[0], CANASTAS1[1]);
    let deal0 = deck(&rules, 0, 1, &[&hand0, ""], "4C", "AH AD");
    let deal1 = deck(&rules, 1, 0, &["", &hand1], "4C", "AC AH");
    Table::new(v1::CreateGameRequest {
        rules: Some(rules),
        seed: Some(seed.unwrap_or(SEED)),
        card_orders: vec![deal0, deal1],
        first_dealer: Some(1),
        start_scores: vec![0, 1000],
        ..Default::default()
    })
    .await
}

async fn play_deal(t: &mut Table, seat: usize, canastas: [&str; 2], aces: &str) {
    t.play(seat, draw()).await;
    t.play(
        seat,
        go_out(
            vec![new_meld(canastas[0]), new_meld(canastas[1]), new_meld(aces)],
            None,
        ),
    )
    .await;
}

fn item_sum(s: &v1::SideScore) -> i32 {
    s.melded_cards
        + s.canasta_bonus
        + s.red_three_bonus
        + s.going_out_bonus
        + s.cards_in_hand
        + s.penalties
}

// ----- GetView -----

#[tokio::test]
async fn get_view_shows_a_seat_its_own_hand_and_everyone_the_counts() {
    let mut t = rules_table().await;
    let seq = t.seq().await;
    let zero = t.view(Some(0), false).await;
    let one = t.view(Some(1), false).await;
    let spectator = t.view(None, false).await;
    for (got, viewer) in [
        (&zero, Viewer::Seat(Seat(0))),
        (&one, Viewer::Seat(Seat(1))),
        (&spectator, Viewer::Spectator),
    ] {
        assert_eq!(got.view, Some(t.expected_view(viewer, seq)), "{viewer:?}");
        assert_eq!(got.time_left_ms, None, "no time control");
    }
    let v = zero.view.as_ref().unwrap();
    assert_eq!(v.viewer_seat, Some(0));
    assert_eq!(v.status, v1::GameStatus::Playing as i32);
    assert_eq!(v.to_act, Some(0));
    let mut hand = v.seats[0].hand.clone();
    hand.sort_by_key(|c| (c.rank, c.suit));
    let mut dealt = wire_cards(HAND0);
    dealt.sort_by_key(|c| (c.rank, c.suit));
    assert_eq!(hand, dealt);
    assert_eq!(v.seats[0].hand_count, 15);
    assert!(
        v.seats[1].hand.is_empty(),
        "another seat's cards are hidden"
    );
    assert_eq!(v.seats[1].hand_count, 15);
    assert_eq!(v.pile, wire_cards("2C 7D"));
    let v = one.view.as_ref().unwrap();
    assert_eq!(v.viewer_seat, Some(1));
    assert!(v.seats[0].hand.is_empty());
    assert_eq!(v.seats[1].hand.len(), 15);
    let v = spectator.view.as_ref().unwrap();
    assert_eq!(v.viewer_seat, None);
    for s in &v.seats {
        assert!(s.hand.is_empty(), "a spectator sees no hand");
        assert_eq!(s.hand_count, 15);
    }
    assert_eq!(v.stock_count, 108 - 30 - 2);
    t.server.stop().await;
}

#[tokio::test]
async fn get_view_gives_legal_choices_to_the_seat_to_act_only() {
    let mut t = rules_table().await;
    // Seat 0 must act: the summary always, the list of actions when asked for.
    let summary_only = t.view(Some(0), false).await;
    let legal = summary_only.legal.expect("seat 0 must act");
    let engine = t.mirror.view(Viewer::Seat(Seat(0)));
    assert_eq!(legal, legal_to_wire(&engine.legal().unwrap(), 0));
    assert_eq!(legal.seat, 0);
    assert!(legal.can_draw);
    assert!(!legal.can_discard);
    assert!(legal.actions.is_empty());
    assert!(!legal.actions_truncated);
    let with_actions = t.view(Some(0), true).await.legal.expect("seat 0 must act");
    assert_eq!(with_actions, legal_to_wire(&engine.legal().unwrap(), 2000));
    assert!(with_actions.actions.contains(&draw()));
    assert!(!with_actions.actions_truncated);
    // Nobody else gets choices.
    assert_eq!(t.view(Some(1), true).await.legal, None);
    assert_eq!(t.view(None, true).await.legal, None);
    // After the draw seat 0 still acts, with the choices of its play phase.
    t.play(0, draw()).await;
    let legal = t
        .view(Some(0), true)
        .await
        .legal
        .expect("seat 0 still acts");
    assert!(!legal.can_draw);
    assert!(legal.can_discard);
    assert!(legal.actions.contains(&discard("3S")));
    assert_eq!(t.view(Some(1), true).await.legal, None);
    // After the discard it is seat 1's turn.
    t.play(0, discard("3S")).await;
    assert_eq!(t.view(Some(0), true).await.legal, None);
    let legal = t.view(Some(1), true).await.legal.expect("seat 1 acts");
    assert_eq!(legal.seat, 1);
    assert!(legal.can_draw);
    assert!(
        legal.pile_takes.is_empty(),
        "the black three blocks the pile"
    );
    t.server.stop().await;
}

#[tokio::test]
async fn get_view_under_a_time_control_tells_the_seat_to_act_its_time() {
    let rules = rules(v1::Preset::Official, 2, &[]);
    let server = TestServer::start().await;
    let mut t = Table::on(
        server,
        v1::CreateGameRequest {
            rules: Some(rules),
            seed: Some(SEED),
            time_control: Some(v1::TimeControl {
                move_budget_ms: 600_000,
                policy: v1::TimeoutPolicy::FallbackMove as i32,
            }),
            ..Default::default()
        },
    )
    .await;
    let to_act = t.mirror.to_act().unwrap().index();
    let left = t
        .view(Some(to_act), false)
        .await
        .time_left_ms
        .expect("time left for the seat to act");
    assert!(left > 500_000 && left <= 600_000, "{left}");
    assert_eq!(t.view(Some(1 - to_act), false).await.time_left_ms, None);
    assert_eq!(t.view(None, false).await.time_left_ms, None);
    t.server.stop().await;
}

#[tokio::test]
async fn get_view_refuses_a_token_of_another_game() {
    let mut t = rules_table().await;
    let other = create(&mut t.client, 2, 9).await;
    let other_tokens = join_all(&mut t.client, &other).await;
    let before = t.snapshot().await;
    let id = t.id.clone();
    let request = |token: &str| {
        authed(
            v1::GetViewRequest {
                game_id: id.clone(),
                include_actions: true,
            },
            token,
        )
    };
    for token in [other_tokens[0].as_str(), "ffffffffffffffffffffffffffffffff"] {
        let r = request(token);
        refused(
            t.client.get_view(r).await,
            Code::PermissionDenied,
            "NOT_A_SEAT_OF_GAME",
        );
    }
    let mut r = Request::new(v1::GetViewRequest {
        game_id: t.id.clone(),
        include_actions: false,
    });
    r.metadata_mut()
        .insert("authorization", "Basic x".parse().unwrap());
    refused(
        t.client.get_view(r).await,
        Code::Unauthenticated,
        "MALFORMED_TOKEN",
    );
    let r = authed(
        v1::GetViewRequest {
            game_id: "0000000000000000".into(),
            include_actions: false,
        },
        &t.tokens[0],
    );
    refused(t.client.get_view(r).await, Code::NotFound, "GAME_NOT_FOUND");
    assert_eq!(t.snapshot().await, before);
    t.server.stop().await;
}

// ----- SubmitAction -----

#[tokio::test]
async fn submit_action_applies_and_answers_with_the_events_redacted_for_the_submitter() {
    let mut t = rules_table().await;
    let before = t.seq().await;
    let watch = |t: &Table, seat: Option<usize>| {
        let message = v1::WatchGameRequest {
            game_id: t.id.clone(),
            after_seq: before,
            include_actions: false,
            include_view: false,
        };
        match seat {
            Some(s) => authed(message, &t.tokens[s]),
            None => Request::new(message),
        }
    };
    let r = watch(&t, Some(1));
    let mut other = t.client.watch_game(r).await.unwrap().into_inner();
    let r = watch(&t, None);
    let mut spectator = t.client.watch_game(r).await.unwrap().into_inner();
    // A request id of 64 characters is accepted.
    let id = "x".repeat(64);
    let request = t.request(0, before, &id, Some(draw()));
    let answer = t.client.submit_action(request).await.unwrap().into_inner();
    assert_eq!(answer.seq, before + 1);
    assert_eq!(
        answer.events,
        [v1::GameEvent {
            seq: before + 1,
            kind: Some(v1::game_event::Kind::Drew(v1::Drew {
                seat: 0,
                count: 2,
                cards: wire_cards("4S 4H"),
            })),
        }]
    );
    t.mirror.apply(Seat(0), &Action::DrawStock).unwrap();
    assert_eq!(t.seq().await, before + 1);
    let v = t.view(Some(0), false).await.view.unwrap();
    assert_eq!(v.seats[0].hand_count, 17);
    assert_eq!(v.phase, v1::Phase::Play as i32);
    // The other seat and a spectator see the draw without its cards.
    for stream in [&mut other, &mut spectator] {
        let m = next_message(stream).await.unwrap();
        assert_eq!(
            m.kind,
            Some(v1::watch_game_response::Kind::Event(v1::GameEvent {
                seq: before + 1,
                kind: Some(v1::game_event::Kind::Drew(v1::Drew {
                    seat: 0,
                    count: 2,
                    cards: vec![],
                })),
            }))
        );
    }
    // The discard, checked against the engine.
    let answer = t.play(0, discard("3S")).await;
    let discarded = answer
        .events
        .iter()
        .find_map(|e| match &e.kind {
            Some(v1::game_event::Kind::Discarded(d)) => Some(*d),
            _ => None,
        })
        .expect("a Discarded event");
    assert_eq!(discarded.card, Some(wire_card("3S")));
    assert!(discarded.blocks);
    assert!(discarded.frozen);
    // Seat 1 draws the fives, which it sees.
    let answer = t.play(1, draw()).await;
    let Some(v1::game_event::Kind::Drew(d)) = &answer.events[0].kind else {
        panic!("{answer:?}");
    };
    assert_eq!(d.cards, wire_cards("5S 5H"));
    t.server.stop().await;
}

#[tokio::test]
async fn submit_action_refuses_illegal_actions_with_the_engines_code_and_message() {
    let mut t = rules_table().await;
    let message = t.illegal(1, draw(), "NOT_YOUR_TURN").await;
    assert!(message.contains("seat 0"), "{message}");
    t.illegal(0, discard("3S"), "WRONG_PHASE").await;
    t.illegal(0, take_pile("7H Jk"), "PILE_FROZEN").await;
    t.illegal(
        0,
        action(v1::action::Kind::DeclinePile(v1::DeclinePileAction {})),
        "STOCK_NOT_EMPTY",
    )
    .await;
    t.play(0, draw()).await;
    t.illegal(
        0,
        action(v1::action::Kind::AskPartner(v1::AskPartnerAction {})),
        "NO_PARTNER",
    )
    .await;
    // A card seat 0 does not hold.
    let hand = *t.mirror.hand(Seat(0));
    let missing = ["AC", "AD", "AH", "QC", "QD", "JC"]
        .into_iter()
        .find(|c| hand.count(c.parse().unwrap()) == 0)
        .expect("a card not held");
    t.illegal(0, discard(missing), "CARD_NOT_HELD").await;
    t.illegal(0, meld(vec![new_meld("KS KH KD")]), "BELOW_MINIMUM")
        .await;
    t.illegal(0, draw(), "WRONG_PHASE").await;
    t.play(0, discard("3S")).await;
    // The black three on top blocks the pile for seat 1.
    t.illegal(1, take_pile(""), "PILE_BLOCKED").await;
    t.illegal(0, draw(), "NOT_YOUR_TURN").await;
    t.play(1, draw()).await;
    t.server.stop().await;
}

#[tokio::test]
async fn submit_action_refuses_malformed_requests() {
    let mut t = rules_table().await;
    let before = t.snapshot().await;
    let joker_with_suit = v1::Card {
        rank: v1::Rank::Joker as i32,
        suit: v1::Suit::Hearts as i32,
    };
    let no_rank = v1::Card {
        rank: v1::Rank::Unspecified as i32,
        suit: v1::Suit::Spades as i32,
    };
    let cases: Vec<(&str, Option<v1::Action>, &str, &str)> = vec![
        ("no action", None, "MISSING_FIELD", "action"),
        (
            "an action of no kind",
            Some(v1::Action { kind: None }),
            "MISSING_FIELD",
            "action.kind",
        ),
        (
            "a discard of no card",
            Some(action(v1::action::Kind::Discard(v1::DiscardAction {
                card: None,
            }))),
            "MISSING_FIELD",
            "action.discard.card",
        ),
        (
            "a card of no rank",
            Some(action(v1::action::Kind::Discard(v1::DiscardAction {
                card: Some(no_rank),
            }))),
            "INVALID_CARD",
            "action.discard.card",
        ),
        (
            "a king of no suit",
            Some(action(v1::action::Kind::Discard(v1::DiscardAction {
                card: Some(v1::Card {
                    rank: v1::Rank::King as i32,
                    suit: 0,
                }),
            }))),
            "INVALID_CARD",
            "action.discard.card",
        ),
        (
            "a joker with a suit",
            Some(action(v1::action::Kind::Discard(v1::DiscardAction {
                card: Some(joker_with_suit),
            }))),
            "INVALID_CARD",
            "action.discard.card",
        ),
        (
            "a rank out of range",
            Some(action(v1::action::Kind::Discard(v1::DiscardAction {
                card: Some(v1::Card { rank: 16, suit: 1 }),
            }))),
            "INVALID_CARD",
            "action.discard.card",
        ),
        (
            "meld index 300",
            Some(meld(vec![v1::MeldSpec {
                meld_index: Some(300),
                cards: wire_cards("KS"),
            }])),
            "INVALID_INDEX",
            "action.meld.melds[0].meld_index",
        ),
        (
            "pile taken onto meld 300",
            Some(action(v1::action::Kind::TakePile(v1::TakePileAction {
                meld_index: Some(300),
                cards: vec![],
                melds: vec![],
            }))),
            "INVALID_INDEX",
            "action.take_pile.meld_index",
        ),
        (
            "300 cards in a meld",
            Some(meld(vec![v1::MeldSpec {
                meld_index: None,
                cards: vec![wire_card("KS"); 300],
            }])),
            "TOO_MANY_CARDS",
            "action.meld.melds[0].cards",
        ),
        (
            "300 cards taking the pile",
            Some(action(v1::action::Kind::TakePile(v1::TakePileAction {
                meld_index: None,
                cards: vec![wire_card("7H"); 300],
                melds: vec![],
            }))),
            "TOO_MANY_CARDS",
            "action.take_pile.cards",
        ),
        (
            "a bad card in a going out",
            Some(go_out(
                vec![v1::MeldSpec {
                    meld_index: None,
                    cards: vec![no_rank],
                }],
                None,
            )),
            "INVALID_CARD",
            "action.go_out.melds[0].cards[0]",
        ),
    ];
    for (what, action, why, field) in cases {
        let seq = t.seq().await;
        let request = t.request(0, seq, "malformed", action.clone());
        let status = t.client.submit_action(request).await.expect_err(what);
        assert_eq!(status.code(), Code::InvalidArgument, "{what}: {status:?}");
        assert_eq!(reason(&status), why, "{what}: {status:?}");
        let violations = status
            .get_details_bad_request()
            .unwrap_or_else(|| panic!("{what}: a BadRequest detail"))
            .field_violations;
        assert_eq!(violations.len(), 1, "{what}");
        assert_eq!(violations[0].field, field, "{what}");
        // The dry run refuses it the same way (CheckAction has no request id).
        if action.is_some() {
            let status = t.check(0, action).await.expect_err(what);
            assert_eq!(status.code(), Code::InvalidArgument, "{what}: {status:?}");
            assert_eq!(reason(&status), why, "{what}: {status:?}");
        }
    }
    // Request ids: 1 to 64 characters.
    for id in [String::new(), "y".repeat(65)] {
        let seq = t.seq().await;
        let request = t.request(0, seq, &id, Some(draw()));
        let status = refused(
            t.client.submit_action(request).await,
            Code::InvalidArgument,
            "BAD_REQUEST_ID",
        );
        assert_eq!(
            status.get_details_bad_request().unwrap().field_violations[0].field,
            "request_id"
        );
    }
    assert_eq!(
        t.snapshot().await,
        before,
        "a malformed request changed the game"
    );
    // The id of a refused request is free for the next one.
    let seq = t.seq().await;
    let request = t.request(0, seq, "malformed", Some(draw()));
    let answer = t.client.submit_action(request).await.unwrap().into_inner();
    assert_eq!(answer.seq, seq + 1);
    t.server.stop().await;
}

#[tokio::test]
async fn submit_action_refuses_a_stale_seq_and_says_the_current_one() {
    let mut t = rules_table().await;
    t.play(0, draw()).await;
    let seq = t.seq().await;
    let before = t.snapshot().await;
    for (i, stale) in [0, seq - 1, seq + 1, u64::MAX].into_iter().enumerate() {
        let request = t.request(0, stale, &format!("stale-{i}"), Some(discard("3S")));
        let status = refused(
            t.client.submit_action(request).await,
            Code::Aborted,
            "STALE_SEQ",
        );
        let info = status.get_details_error_info().expect("an ErrorInfo");
        assert_eq!(info.domain, "canasta.v1");
        assert_eq!(
            info.metadata.get("seq"),
            Some(&seq.to_string()),
            "{status:?}"
        );
    }
    assert_eq!(t.snapshot().await, before);
    // With the current seq the same action is applied.
    t.play(0, discard("3S")).await;
    t.server.stop().await;
}

#[tokio::test]
async fn submit_action_waits_for_every_seat() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let game = create(&mut client, 2, 3).await;
    let joined = client
        .join_game(v1::JoinGameRequest {
            game_id: game.game_id.clone(),
            seat: Some(0),
            display_name: "early".into(),
        })
        .await
        .unwrap()
        .into_inner();
    let summary = joined.game.unwrap();
    let request = authed(
        v1::SubmitActionRequest {
            game_id: game.game_id.clone(),
            expected_seq: summary.seq,
            request_id: "early".into(),
            action: Some(draw()),
        },
        &joined.token,
    );
    refused(
        client.submit_action(request).await,
        Code::FailedPrecondition,
        "GAME_NOT_STARTED",
    );
    let request = authed(
        v1::CheckActionRequest {
            game_id: game.game_id.clone(),
            action: Some(draw()),
        },
        &joined.token,
    );
    refused(
        client.check_action(request).await,
        Code::FailedPrecondition,
        "GAME_NOT_STARTED",
    );
    let after = client
        .get_game(v1::GetGameRequest {
            game_id: game.game_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap();
    assert_eq!(after, summary);
    server.stop().await;
}

#[tokio::test]
async fn submit_action_needs_a_token_of_the_game() {
    let mut t = rules_table().await;
    let other = create(&mut t.client, 2, 9).await;
    let other_tokens = join_all(&mut t.client, &other).await;
    let other_seq = t
        .client
        .get_game(v1::GetGameRequest {
            game_id: other.game_id.clone(),
        })
        .await
        .unwrap()
        .into_inner()
        .game
        .unwrap()
        .seq;
    let before = t.snapshot().await;
    let seq = before.summary.seq;
    let message = v1::SubmitActionRequest {
        game_id: t.id.clone(),
        expected_seq: seq,
        request_id: "auth".into(),
        action: Some(draw()),
    };
    refused(
        t.client.submit_action(message.clone()).await,
        Code::Unauthenticated,
        "MISSING_TOKEN",
    );
    let mut r = Request::new(message.clone());
    r.metadata_mut()
        .insert("authorization", "Basic x".parse().unwrap());
    refused(
        t.client.submit_action(r).await,
        Code::Unauthenticated,
        "MALFORMED_TOKEN",
    );
    refused(
        t.client
            .submit_action(authed(message.clone(), &other_tokens[0]))
            .await,
        Code::PermissionDenied,
        "NOT_A_SEAT_OF_GAME",
    );
    let mut elsewhere = message.clone();
    elsewhere.game_id = "0000000000000000".into();
    refused(
        t.client
            .submit_action(authed(elsewhere, &t.tokens[0]))
            .await,
        Code::NotFound,
        "GAME_NOT_FOUND",
    );
    assert_eq!(t.snapshot().await, before);
    assert_eq!(
        t.client
            .get_game(v1::GetGameRequest {
                game_id: other.game_id.clone()
            })
            .await
            .unwrap()
            .into_inner()
            .game
            .unwrap()
            .seq,
        other_seq,
        "the other game did not move either"
    );
    t.server.stop().await;
}

// The seat to act's own token with one byte changed, at each of its 32 positions, acts for no
// seat: neither GetView nor SubmitAction takes it for the seat (a comparison that skipped a
// byte, or stopped at a prefix, would), and the game is left as it was until the real token
// acts.
#[tokio::test]
async fn a_seat_token_changed_in_any_one_byte_is_refused() {
    let mut t = rules_table().await;
    let before = t.snapshot().await;
    let seq = before.summary.seq;
    let token = t.tokens[0].clone();
    assert_eq!(token.len(), 32, "{token}");
    for i in 0..token.len() {
        let mut bytes = token.clone().into_bytes();
        bytes[i] = if bytes[i] == b'0' { b'1' } else { b'0' };
        let changed = String::from_utf8(bytes).unwrap();
        let view = authed(
            v1::GetViewRequest {
                game_id: t.id.clone(),
                include_actions: true,
            },
            &changed,
        );
        refused(
            t.client.get_view(view).await,
            Code::PermissionDenied,
            "NOT_A_SEAT_OF_GAME",
        );
        let submit = authed(
            v1::SubmitActionRequest {
                game_id: t.id.clone(),
                expected_seq: seq,
                request_id: format!("changed-{i}"),
                action: Some(draw()),
            },
            &changed,
        );
        refused(
            t.client.submit_action(submit).await,
            Code::PermissionDenied,
            "NOT_A_SEAT_OF_GAME",
        );
    }
    assert_eq!(t.snapshot().await, before);
    let request = t.request(0, seq, "the-real-token", Some(draw()));
    let answer = t.client.submit_action(request).await.unwrap().into_inner();
    assert_eq!(answer.seq, seq + 1);
    t.server.stop().await;
}

#[tokio::test]
async fn a_retried_request_is_applied_once_and_answered_the_same() {
    let mut t = rules_table().await;
    let seq = t.seq().await;
    let request = t.request(0, seq, "draw-once", Some(draw()));
    let first = t.client.submit_action(request).await.unwrap().into_inner();
    assert_eq!(first.seq, seq + 1);
    t.mirror.apply(Seat(0), &Action::DrawStock).unwrap();
    let after = t.snapshot().await;
    // The retry carries the seq the client had then, which is stale now: it is answered as the
    // first time, and nothing is applied again.
    for _ in 0..2 {
        let request = t.request(0, seq, "draw-once", Some(draw()));
        let again = t.client.submit_action(request).await.unwrap().into_inner();
        assert_eq!(again, first);
    }
    assert_eq!(t.snapshot().await, after);
    assert_eq!(
        after.views[0].view.as_ref().unwrap().seats[0].hand_count,
        17
    );
    // The same id from the other seat is another request, judged on its own.
    let request = t.request(1, seq, "draw-once", Some(draw()));
    refused(
        t.client.submit_action(request).await,
        Code::Aborted,
        "STALE_SEQ",
    );
    assert_eq!(t.snapshot().await, after);
    t.server.stop().await;
}

#[tokio::test]
async fn a_request_retried_after_later_actions_is_still_answered_as_the_first_time() {
    let mut t = rules_table().await;
    let seq = t.seq().await;
    let request = t.request(0, seq, "draw-once", Some(draw()));
    let first = t.client.submit_action(request).await.unwrap().into_inner();
    t.mirror.apply(Seat(0), &Action::DrawStock).unwrap();
    t.play(0, discard("3S")).await;
    let after = t.snapshot().await;
    let request = t.request(0, seq, "draw-once", Some(draw()));
    let again = t.client.submit_action(request).await.unwrap().into_inner();
    assert_eq!(again.events, first.events);
    assert_eq!(again.seq, first.seq, "answered as the first time");
    assert_eq!(t.snapshot().await, after);
    t.server.stop().await;
}

#[tokio::test]
async fn a_new_holder_of_a_seat_is_not_answered_with_the_old_holders_requests() {
    let mut t = rules_table().await;
    let seq = t.seq().await;
    let request = t.request(0, seq, "r0", Some(draw()));
    t.client.submit_action(request).await.unwrap();
    t.mirror.apply(Seat(0), &Action::DrawStock).unwrap();
    let leave = authed(
        v1::LeaveGameRequest {
            game_id: t.id.clone(),
        },
        &t.tokens[0],
    );
    t.client.leave_game(leave).await.unwrap();
    let joined = t
        .client
        .join_game(v1::JoinGameRequest {
            game_id: t.id.clone(),
            seat: Some(0),
            display_name: "player 0".into(),
        })
        .await
        .unwrap()
        .into_inner();
    t.tokens[0] = joined.token;
    // The new holder's first request happens to use the same id: it is not a retry.
    let seq = t.seq().await;
    let request = t.request(0, seq, "r0", Some(discard("3S")));
    let answer = t.client.submit_action(request).await.unwrap().into_inner();
    assert_eq!(
        answer.events[0].seq,
        seq + 1,
        "the discard is applied: {answer:?}"
    );
    assert!(matches!(
        answer.events[0].kind,
        Some(v1::game_event::Kind::Discarded(_))
    ));
    assert!(answer.seq > seq);
    assert_eq!(t.seq().await, answer.seq);
    t.server.stop().await;
}

#[tokio::test]
async fn submit_action_refuses_actions_after_the_match() {
    let mut t = two_deal_table(None).await;
    play_deal(&mut t, 0, CANASTAS0, "AS AH AD").await;
    play_deal(&mut t, 1, CANASTAS1, "AC AC AH").await;
    let before = t.snapshot().await;
    assert_eq!(before.summary.status, v1::GameStatus::Finished as i32);
    for seat in 0..2 {
        let seq = t.seq().await;
        let request = t.request(seat, seq, "late", Some(draw()));
        refused(
            t.client.submit_action(request).await,
            Code::FailedPrecondition,
            "GAME_FINISHED",
        );
        refused(
            t.check(seat, Some(draw())).await.map(Response::new),
            Code::FailedPrecondition,
            "GAME_FINISHED",
        );
    }
    assert_eq!(t.snapshot().await, before);
    t.server.stop().await;
}

// ----- CheckAction -----

#[tokio::test]
async fn check_action_judges_without_applying() {
    let mut t = rules_table().await;
    let before = t.snapshot().await;
    let verdict = t.check(0, Some(draw())).await.unwrap();
    assert_eq!(
        verdict,
        v1::CheckActionResponse {
            legal: true,
            reason: String::new(),
            message: String::new(),
        }
    );
    assert_eq!(t.snapshot().await, before, "a dry run changed the game");
    // Illegal actions: the engine's reason and message (`illegal` checks both RPCs).
    t.illegal(1, draw(), "NOT_YOUR_TURN").await;
    t.illegal(0, take_pile("7H Jk"), "PILE_FROZEN").await;
    let verdict = t.check(1, Some(draw())).await.unwrap();
    assert!(!verdict.legal);
    assert_eq!(verdict.reason, "NOT_YOUR_TURN");
    // After a draw, a discard is legal and the draw is not.
    t.play(0, draw()).await;
    let before = t.snapshot().await;
    assert!(t.check(0, Some(discard("3S"))).await.unwrap().legal);
    let verdict = t.check(0, Some(draw())).await.unwrap();
    assert!(!verdict.legal);
    assert_eq!(verdict.reason, "WRONG_PHASE");
    assert_eq!(t.snapshot().await, before);
    // Malformed actions and tokens are refused as errors.
    refused(
        t.check(0, None).await.map(Response::new),
        Code::InvalidArgument,
        "MISSING_FIELD",
    );
    refused(
        t.check(0, Some(v1::Action { kind: None }))
            .await
            .map(Response::new),
        Code::InvalidArgument,
        "MISSING_FIELD",
    );
    let request = v1::CheckActionRequest {
        game_id: t.id.clone(),
        action: Some(draw()),
    };
    refused(
        t.client.check_action(request.clone()).await,
        Code::Unauthenticated,
        "MISSING_TOKEN",
    );
    refused(
        t.client
            .check_action(authed(request, "0123456789abcdef0123456789abcdef"))
            .await,
        Code::PermissionDenied,
        "NOT_A_SEAT_OF_GAME",
    );
    assert_eq!(t.snapshot().await, before);
    t.server.stop().await;
}

// ----- GetScores -----

#[tokio::test]
async fn get_scores_itemises_every_deal_and_the_result() {
    let mut t = two_deal_table(None).await;
    let start = t.scores().await;
    assert!(start.deals.is_empty());
    let result = start.result.unwrap();
    assert!(!result.finished);
    assert_eq!(result.winner_side, None);
    assert_eq!(result.totals, [0, 1000]);
    assert_eq!(result.end, v1::MatchEndKind::Unspecified as i32);
    // Deal 0: seat 0 goes out concealed.
    play_deal(&mut t, 0, CANASTAS0, "AS AH AD").await;
    let mid = t.scores().await;
    assert_eq!(mid.deals.len(), 1);
    let deal = &mid.deals[0];
    assert_eq!(*deal, deal_score_to_wire(&t.mirror.history()[0]));
    assert_eq!(deal.deal, 0);
    assert_eq!(deal.end, v1::DealEndKind::WentOut as i32);
    assert_eq!(deal.seat, 0);
    assert!(deal.concealed);
    assert_eq!(deal.sides.len(), 2);
    for (i, s) in deal.sides.iter().enumerate() {
        assert_eq!(s.side, i as u32);
        assert_eq!(s.total, item_sum(s), "{s:?}");
    }
    assert_eq!(deal.sides[0].natural_canastas, 2);
    assert_eq!(deal.sides[0].cumulative, deal.sides[0].total);
    assert_eq!(deal.sides[1].cumulative, 1000 + deal.sides[1].total);
    assert!(deal.sides[1].cards_in_hand < 0);
    let result = mid.result.unwrap();
    assert!(!result.finished, "the match goes on");
    assert_eq!(result.winner_side, None);
    assert_eq!(
        result.totals,
        [deal.sides[0].cumulative, deal.sides[1].cumulative]
    );
    // Spectators may read the scores; the view's last deal is the same report.
    let view = t.view(None, false).await.view.unwrap();
    assert_eq!(view.last_deal.as_ref(), Some(deal));
    assert_eq!(view.deals_played, 1);
    // Deal 1: seat 1 goes out and side 1 reaches 2000.
    play_deal(&mut t, 1, CANASTAS1, "AC AC AH").await;
    let end = t.scores().await;
    assert_eq!(end.deals.len(), 2);
    assert_eq!(end.deals[0], mid.deals[0]);
    assert_eq!(end.deals[1], deal_score_to_wire(&t.mirror.history()[1]));
    assert_eq!(end.deals[1].deal, 1);
    assert_eq!(end.deals[1].seat, 1);
    for s in &end.deals[1].sides {
        assert_eq!(s.total, item_sum(s), "{s:?}");
        assert_eq!(
            s.cumulative,
            end.deals[0].sides[s.side as usize].cumulative + s.total
        );
    }
    let result = end.result.unwrap();
    assert!(result.finished);
    assert_eq!(result.winner_side, Some(1));
    assert_eq!(result.end, v1::MatchEndKind::Target as i32);
    assert_eq!(result.forfeited_side, None);
    assert_eq!(result.totals, t.mirror.scores());
    assert_eq!(
        result.totals,
        [
            end.deals[1].sides[0].cumulative,
            end.deals[1].sides[1].cumulative
        ]
    );
    assert!(result.totals[1] >= 2000);
    let summary = t.summary().await;
    assert_eq!(summary.status, v1::GameStatus::Finished as i32);
    assert_eq!(summary.result, Some(result));
    refused(
        t.client
            .get_scores(v1::GetScoresRequest {
                game_id: "0000000000000000".into(),
            })
            .await,
        Code::NotFound,
        "GAME_NOT_FOUND",
    );
    t.server.stop().await;
}

// ----- ExportGame -----

#[tokio::test]
async fn export_game_refuses_a_game_in_progress() {
    let mut t = two_deal_table(None).await;
    let waiting = create(&mut t.client, 2, 1).await;
    refused(
        t.client
            .export_game(v1::ExportGameRequest {
                game_id: waiting.game_id.clone(),
            })
            .await,
        Code::FailedPrecondition,
        "GAME_NOT_FINISHED",
    );
    refused(
        t.export().await.map(Response::new),
        Code::FailedPrecondition,
        "GAME_NOT_FINISHED",
    );
    play_deal(&mut t, 0, CANASTAS0, "AS AH AD").await;
    let before = t.snapshot().await;
    refused(
        t.export().await.map(Response::new),
        Code::FailedPrecondition,
        "GAME_NOT_FINISHED",
    );
    refused(
        t.client
            .export_game(v1::ExportGameRequest {
                game_id: "0000000000000000".into(),
            })
            .await,
        Code::NotFound,
        "GAME_NOT_FOUND",
    );
    assert_eq!(t.snapshot().await, before);
    t.server.stop().await;
}

/// Replays a record in the engine and checks it ends as the server says.
fn replay(record: &v1::GameRecord) -> Game {
    let setup = setup(
        record.rules.as_ref().expect("rules"),
        record.seed,
        &record.card_orders,
        record.first_dealer,
        &record.start_scores,
    );
    let actions: Vec<(Seat, Action)> = record
        .actions
        .iter()
        .map(|a| {
            (
                Seat(a.seat as u8),
                action_from_wire(a.action.as_ref().expect("an action")).expect("a good action"),
            )
        })
        .collect();
    let game = Game::replay(&setup, &actions).expect("the record replays");
    let result = record.result.as_ref().expect("a result");
    assert!(result.finished);
    assert_eq!(game.phase(), Phase::Over);
    assert_eq!(game.scores(), result.totals);
    assert_eq!(game.winner(), result.winner_side.map(|s| Side(s as u8)));
    game
}

#[tokio::test]
async fn an_exported_arranged_match_replays_exactly() {
    let mut t = two_deal_table(Some(4242)).await;
    play_deal(&mut t, 0, CANASTAS0, "AS AH AD").await;
    play_deal(&mut t, 1, CANASTAS1, "AC AC AH").await;
    let record = t.export().await.expect("a finished game exports");
    let scores = t.scores().await;
    assert_eq!(record.game_id, t.id);
    assert_eq!(
        record.rules,
        Some(rules(v1::Preset::Official, 2, &[("target_score", "2000")]))
    );
    assert_eq!(record.seed, 4242);
    assert_eq!(record.card_orders.len(), 2);
    assert_eq!(record.first_dealer, Some(1));
    assert_eq!(record.start_scores, [0, 1000]);
    assert_eq!(record.display_names, ["player 0", "player 1"]);
    let seats: Vec<u32> = record.actions.iter().map(|a| a.seat).collect();
    assert_eq!(seats, [0, 0, 1, 1]);
    assert_eq!(record.actions[0].action, Some(draw()));
    assert_eq!(record.result, scores.result);
    let game = replay(&record);
    let history: Vec<v1::DealScore> = game.history().iter().map(deal_score_to_wire).collect();
    assert_eq!(history, scores.deals);
    assert_eq!(game.state_hash(), t.mirror.state_hash());
    // Exporting again gives the same record, and changes nothing.
    assert_eq!(t.export().await.unwrap(), record);
    t.server.stop().await;
}

#[tokio::test]
async fn an_exported_seeded_match_replays_exactly() {
    // A whole match takes up to a few hundred requests per token in well under a second: lift
    // the rate limit, which is not under test here.
    let config = test_config()
        .requests_per_second(100_000.0)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    // The server draws the seed.
    let game = create_with(
        &mut client,
        v1::CreateGameRequest {
            rules: Some(rules(
                v1::Preset::Official,
                2,
                &[("target_score", "50"), ("canastas_to_go_out", "1")],
            )),
            ..Default::default()
        },
    )
    .await;
    let tokens = join_all(&mut client, &game).await;
    // Go out when possible, else meld, else the last listed action.
    let actions = play_to_end(&mut client, &game.game_id, &tokens, 2000, |l| {
        let find = |f: fn(&v1::action::Kind) -> bool| {
            l.actions
                .iter()
                .position(|a| a.kind.as_ref().is_some_and(f))
        };
        find(|k| matches!(k, v1::action::Kind::GoOut(_)))
            .or_else(|| find(|k| matches!(k, v1::action::Kind::Meld(_))))
            .unwrap_or(l.actions.len().saturating_sub(1))
    })
    .await;
    let record = client
        .export_game(v1::ExportGameRequest {
            game_id: game.game_id.clone(),
        })
        .await
        .expect("the game is finished")
        .into_inner()
        .record
        .unwrap();
    assert_eq!(record.actions.len(), actions);
    assert!(record.card_orders.is_empty());
    assert_eq!(record.first_dealer, None);
    assert!(record.start_scores.is_empty());
    let replayed = replay(&record);
    let scores = client
        .get_scores(v1::GetScoresRequest {
            game_id: game.game_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let history: Vec<v1::DealScore> = replayed.history().iter().map(deal_score_to_wire).collect();
    assert_eq!(history, scores.deals);
    assert_eq!(Some(record.result.clone().unwrap()), scores.result);
    server.stop().await;
}
