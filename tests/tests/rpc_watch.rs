//! WatchGame end to end: events numbered 1, 2, 3 … for seats and spectators, redacted for each
//! watcher, resumed after a seq with nothing lost or duplicated, prompts for the seat that must
//! act (and the partner asked to answer), heartbeats on idle streams, the end of a stream after
//! the match, the errors, the limits of spectators per game and of streams per token, and slow
//! or stalled watchers that are told they lagged without slowing the game or keeping a place.
//!
//! The expected events come from the engine itself: a [`Replica`] plays the same setup and
//! actions in-process, so every stream is compared with what its viewer must see, event by
//! event.

mod clock;

use std::time::Duration;

use canasta_engine::{Action, CardCounts, Seat, Viewer};
use canasta_proto::convert::card_list_from_wire;
use canasta_proto::v1;
use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use canasta_proto::v1::game_event::Kind as Ev;
use canasta_proto::v1::watch_game_response::Kind as Msg;
use canasta_tests::replica::*;
use canasta_tests::*;
use clock::*;
use tonic::{Code, Request, Status, Streaming};

// ----- the engine's copy of a game -----

// ----- games -----

// ----- requests -----

/// The prompts among messages.
fn prompts(messages: &[Msg]) -> Vec<v1::Prompt> {
    messages
        .iter()
        .filter_map(|m| match m {
            Msg::Prompt(p) => Some(p.clone()),
            _ => None,
        })
        .collect()
}

/// Asserts events are numbered `after + 1`, `after + 2` … with no gap.
fn assert_gapless(events: &[v1::GameEvent], after: u64) {
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, after + 1 + i as u64, "event {i} of {events:?}");
    }
}

// ----- seqs -----

// Every stream numbers events 1, 2, 3 … with no gap: the joins first, then GameStarted and
// DealStarted, as the seat or the spectator sees them; live events continue the numbering.
#[tokio::test]
async fn events_are_numbered_from_one_without_gaps_for_seats_and_spectators() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let request = seeded(21);
    let game = create_with(&mut client, request.clone()).await;
    // A spectator may watch a game still waiting for players.
    let mut spectator = open_watch(&mut client, &game.game_id, None, 0, false)
        .await
        .expect("a spectator stream");
    let tokens = join_all(&mut client, &game).await;
    let id = game.game_id.clone();
    let mut replica = Replica::joined(&request);
    plain_moves(&mut client, &id, &tokens, &mut replica, 6).await;
    assert_eq!(game_seq(&mut client, &id).await, replica.seq());

    let mut seat0 = open_watch(&mut client, &id, Some(&tokens[0]), 0, false)
        .await
        .expect("seat 0's stream");
    let mut seat1 = open_watch(&mut client, &id, Some(&tokens[1]), 0, false)
        .await
        .expect("seat 1's stream");
    for (stream, viewer) in [
        (&mut spectator, Viewer::Spectator),
        (&mut seat0, seat(0)),
        (&mut seat1, seat(1)),
    ] {
        let got = events(&read_until(stream, replica.seq()).await);
        assert_gapless(&got, 0);
        assert_eq!(got, replica.events(viewer), "{viewer:?}");
        let kinds: Vec<_> = got
            .iter()
            .take(5)
            .map(|e| e.kind.clone().unwrap())
            .collect();
        assert_eq!(
            kinds[0],
            Ev::SeatJoined(v1::SeatJoined {
                seat: 0,
                display_name: "player 0".into()
            })
        );
        assert_eq!(
            kinds[1],
            Ev::SeatJoined(v1::SeatJoined {
                seat: 1,
                display_name: "player 1".into()
            })
        );
        assert_eq!(kinds[2], Ev::GameStarted(v1::GameStarted {}));
        assert!(matches!(&kinds[3], Ev::DealStarted(d) if d.deal == 0 && d.dealer == 1));
        assert_eq!(kinds[4], Ev::TurnStarted(v1::TurnStarted { seat: 0 }));
    }

    // Live events go on from there.
    let before = replica.seq();
    plain_moves(&mut client, &id, &tokens, &mut replica, 5).await;
    for (stream, viewer) in [
        (&mut spectator, Viewer::Spectator),
        (&mut seat0, seat(0)),
        (&mut seat1, seat(1)),
    ] {
        let got = events(&read_until(stream, replica.seq()).await);
        assert_gapless(&got, before);
        assert_eq!(got, replica.events_after(viewer, before), "{viewer:?}");
    }
    server.stop().await;
}

// ----- redaction -----

// A seat's stream shows its own dealt hand and drawn cards and never another seat's (counts
// only); a spectator sees no hand at all; the hands left at the end of the deal are shown to
// everyone.
#[tokio::test]
async fn each_stream_is_redacted_for_its_watcher() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, mut replica) = started(&mut client, request).await;
    let mut streams = Vec::new();
    for (token, viewer) in [
        (Some(tokens[0].as_str()), seat(0)),
        (Some(tokens[1].as_str()), seat(1)),
        (None, Viewer::Spectator),
    ] {
        let s = open_watch(&mut client, &id, token, 0, false)
            .await
            .expect("a stream");
        streams.push((s, viewer));
    }
    for (s, action) in &script {
        act(&mut client, &id, &tokens, &mut replica, *s, action).await;
    }
    let drawn = [
        (0, cards("4S 5S")),
        (1, cards("9S 9H")),
        (0, cards("AH AD")),
    ];
    let mut ended_hands = Vec::new();
    for (stream, viewer) in &mut streams {
        let messages = read_to_end(stream).await;
        let got = events(&messages);
        assert_gapless(&got, 0);
        assert_eq!(got, replica.events(*viewer), "{viewer:?}");
        let own = match viewer {
            Viewer::Seat(s) => Some(s.0 as u32),
            _ => None,
        };
        // The dealt hands: 15 cards each, shown to their own seat only.
        let dealt = got
            .iter()
            .find_map(|e| match &e.kind {
                Some(Ev::DealStarted(d)) => Some(d.clone()),
                _ => None,
            })
            .expect("DealStarted");
        assert_eq!(dealt.hands.len(), 2);
        for hand in &dealt.hands {
            assert_eq!(hand.count, 15);
            if Some(hand.seat) == own {
                assert_eq!(hand.cards.len(), 15);
            } else {
                assert!(hand.cards.is_empty(), "{viewer:?} sees seat {}", hand.seat);
            }
        }
        if own == Some(0) {
            let hand = card_list_from_wire(&dealt.hands[0].cards, "hand").unwrap();
            assert_eq!(
                CardCounts::from_cards(hand),
                CardCounts::from_cards(cards(SEAT0_HAND))
            );
        }
        // The draws: two cards each, shown to the drawer only.
        let draws: Vec<v1::Drew> = got
            .iter()
            .filter_map(|e| match &e.kind {
                Some(Ev::Drew(d)) => Some(d.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(draws.len(), 3);
        for (d, (s, expected)) in draws.iter().zip(&drawn) {
            assert_eq!((d.seat, d.count), (*s, 2));
            if Some(*s) == own {
                assert_eq!(card_list_from_wire(&d.cards, "drew").unwrap(), *expected);
            } else {
                assert!(d.cards.is_empty(), "{viewer:?} sees the draw of seat {s}");
            }
        }
        // The hands left are public: seat 0 went out, seat 1 holds 16 cards.
        let ended = got
            .iter()
            .find_map(|e| match &e.kind {
                Some(Ev::DealEnded(d)) => Some(d.clone()),
                _ => None,
            })
            .expect("DealEnded");
        assert_eq!(ended.hands.len(), 2);
        assert_eq!((ended.hands[0].count, ended.hands[0].cards.len()), (0, 0));
        assert_eq!((ended.hands[1].count, ended.hands[1].cards.len()), (16, 16));
        ended_hands.push(ended.hands);
        // The match ended last; a spectator was never prompted.
        assert!(matches!(
            got.last().and_then(|e| e.kind.as_ref()),
            Some(Ev::MatchEnded(_))
        ));
        if own.is_none() {
            assert_eq!(prompts(&messages), vec![]);
        }
    }
    assert_eq!(ended_hands[0], ended_hands[1]);
    assert_eq!(ended_hands[0], ended_hands[2]);
    // Seat 1's final hand as seat 0 and the spectator see it is seat 1's own.
    let seat1_cards = card_list_from_wire(&ended_hands[0][1].cards, "hand").unwrap();
    assert_eq!(
        CardCounts::from_cards(seat1_cards),
        *replica.game.hand(Seat(1))
    );
    server.stop().await;
}

// ----- resuming -----

// A stream opened after seq N sends exactly the events N+1 … (the same as a full stream's),
// then the live ones: nothing lost or duplicated, also when actions happen between the
// opening and the reading.
#[tokio::test]
async fn resuming_after_a_seq_sends_exactly_the_rest_then_live_events() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens, mut replica) = started(&mut client, seeded(33)).await;
    plain_moves(&mut client, &id, &tokens, &mut replica, 8).await;
    let mut full = open_watch(&mut client, &id, None, 0, false).await.unwrap();
    let now = replica.seq();
    let mut all = events(&read_until(&mut full, now).await);
    assert_gapless(&all, 0);

    // Resume points: the start, after the joins, mid-deal, the current seq.
    let points = [0, 2, 4, now / 2, now - 1, now];
    let mut resumed = Vec::new();
    for &n in &points {
        resumed.push((
            n,
            open_watch(&mut client, &id, None, n, false).await.unwrap(),
            open_watch(&mut client, &id, Some(&tokens[1]), n, false)
                .await
                .unwrap(),
        ));
    }
    // Actions happen before the resumed streams are read.
    plain_moves(&mut client, &id, &tokens, &mut replica, 7).await;
    let end = replica.seq();
    all.extend(events(&read_until(&mut full, end).await));
    assert_gapless(&all, 0);
    assert_eq!(all, replica.events(Viewer::Spectator));
    for (n, mut spectator, mut seat1) in resumed {
        let got = events(&read_until(&mut spectator, end).await);
        assert_gapless(&got, n);
        assert_eq!(got, all[n as usize..].to_vec(), "after {n}");
        let got = events(&read_until(&mut seat1, end).await);
        assert_gapless(&got, n);
        assert_eq!(got, replica.events_after(seat(1), n), "seat 1 after {n}");
    }
    assert_eq!(game_seq(&mut client, &id).await, end);
    server.stop().await;
}

// ----- prompts -----

/// Checks that every prompt follows the event of its seq at once, and returns the seqs
/// prompted.
fn prompt_seqs(messages: &[Msg], seat: u32, after: u64) -> Vec<u64> {
    let mut last = after;
    let mut out = Vec::new();
    for m in messages {
        match m {
            Msg::Event(e) => last = e.seq,
            Msg::Prompt(p) => {
                assert_eq!(p.seq, last, "a prompt after the event of its seq");
                assert_eq!(p.seat, seat);
                out.push(p.seq);
            }
            _ => {}
        }
    }
    out
}

// A seat's stream prompts it whenever it must act, with the seq of the last event, its legal
// choices (the list of actions only when asked for) and no time left without a time control;
// the other seat and a spectator are not prompted.
#[tokio::test]
async fn a_seat_is_prompted_when_it_must_act_and_a_spectator_never() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, mut replica) = started(&mut client, request).await;
    let opening = replica.seq();

    let mut seat0 = open_watch(&mut client, &id, Some(&tokens[0]), 0, false)
        .await
        .unwrap();
    let mut seat0_actions = open_watch(&mut client, &id, Some(&tokens[0]), opening, true)
        .await
        .unwrap();
    let mut seat1 = open_watch(&mut client, &id, Some(&tokens[1]), 0, true)
        .await
        .unwrap();
    let mut spectator = open_watch(&mut client, &id, None, 0, true).await.unwrap();

    // Seat 0 must draw: its streams prompt it at once, after the backlog.
    let expected = view_of(&mut client, &id, Some(&tokens[0]), true).await;
    let legal = expected.legal.clone().expect("seat 0's choices");
    assert!(legal.can_draw && !legal.can_discard);
    assert!(!legal.actions.is_empty());
    let mut backlog = read_until(&mut seat0, opening).await;
    let first = next_message(&mut seat0).await.unwrap().kind.unwrap();
    backlog.push(first.clone());
    let Msg::Prompt(prompt) = first else {
        panic!("a prompt, not {first:?}")
    };
    assert_eq!(prompt.game_id, id);
    assert_eq!((prompt.seq, prompt.seat), (opening, 0));
    assert_eq!(prompt.time_left_ms, None);
    assert_eq!(
        prompt.legal.as_deref(),
        Some(&v1::LegalChoices {
            actions: vec![],
            actions_truncated: false,
            ..legal.clone()
        })
    );
    let listed_first = next_message(&mut seat0_actions)
        .await
        .unwrap()
        .kind
        .unwrap();
    let Msg::Prompt(listed) = listed_first.clone() else {
        panic!("a prompt first after the current seq, not {listed_first:?}")
    };
    assert_eq!(listed.seq, opening);
    assert_eq!(listed.legal.as_deref(), Some(&legal));

    for (s, action) in &script {
        act(&mut client, &id, &tokens, &mut replica, *s, action).await;
    }
    let mut seat0_all = backlog;
    seat0_all.extend(read_to_end(&mut seat0).await);
    let mut seat0_listed = vec![listed_first];
    seat0_listed.extend(read_to_end(&mut seat0_actions).await);
    let seat1_all = read_to_end(&mut seat1).await;
    let spectator_all = read_to_end(&mut spectator).await;

    // Seat 0 must act at the start, after its draw, and after seat 1's discard, twice; seat
    // 1 after seat 0's discard and after its own draw.
    let s0 = opening;
    let after = |n: usize| -> u64 {
        let mut r = Replica::joined(&short_game().0);
        for (s, a) in &script[..n] {
            r.apply(*s, a);
        }
        r.seq()
    };
    assert_eq!(
        prompt_seqs(&seat0_all, 0, 0),
        vec![s0, after(1), after(4), after(5)]
    );
    assert_eq!(prompt_seqs(&seat1_all, 1, 0), vec![after(2), after(3)]);
    assert_eq!(prompt_seqs(&spectator_all, 0, 0), vec![]);
    assert_eq!(
        prompt_seqs(&seat0_listed, 0, opening),
        vec![s0, after(1), after(4), after(5)]
    );
    // Without include_actions no actions are listed; with it they are.
    for p in prompts(&seat0_all) {
        let l = p.legal.expect("choices");
        assert!(l.actions.is_empty() && !l.actions_truncated);
        assert_eq!(p.time_left_ms, None);
    }
    for p in prompts(&seat0_listed).iter().chain(&prompts(&seat1_all)) {
        assert!(!p.legal.as_ref().expect("choices").actions.is_empty());
    }
    // The phases the prompts stand for.
    let p1 = prompts(&seat1_all);
    assert!(p1[0].legal.as_ref().unwrap().can_draw);
    assert!(p1[1].legal.as_ref().unwrap().can_discard);
    let p0 = prompts(&seat0_all);
    assert!(p0[3].legal.as_ref().unwrap().can_go_out);
    // Every stream carried the whole game.
    for (messages, viewer, from) in [
        (&seat0_all, seat(0), 0),
        (&seat0_listed, seat(0), opening),
        (&seat1_all, seat(1), 0),
        (&spectator_all, Viewer::Spectator, 0),
    ] {
        assert_eq!(events(messages), replica.events_after(viewer, from));
    }
    server.stop().await;
}

/// The next prompt of a stream, skipping events and heartbeats.
async fn next_prompt(stream: &mut Streaming<v1::WatchGameResponse>) -> v1::Prompt {
    loop {
        match next_message(stream).await.expect("a message").kind {
            Some(Msg::Prompt(p)) => return p,
            Some(Msg::Lagged(l)) => panic!("lagged at {}", l.last_seq),
            _ => continue,
        }
    }
}

// R-OUT-3 over the wire: in a four-player game with a time control, seat 0 draws and asks its
// partner. Seat 2 is prompted to answer (must_answer, the answers listed, the time left), and
// its GetView says the same; seat 0 gets no choices and no prompt until the answer, and an
// action of seat 0 meanwhile is refused and changes nothing. After the answer seat 0 is
// prompted again.
#[tokio::test]
async fn the_asked_partner_is_prompted_to_answer_and_the_asker_waits() {
    const BUDGET_MS: u64 = 600_000;
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let request = v1::CreateGameRequest {
        rules: Some(rules(v1::Preset::Official, 4, &[])),
        seed: Some(83),
        first_dealer: Some(3),
        time_control: Some(v1::TimeControl {
            move_budget_ms: BUDGET_MS,
            policy: v1::TimeoutPolicy::FallbackMove as i32,
        }),
        ..Default::default()
    };
    let (id, tokens, mut replica) = started(&mut client, request).await;
    assert_eq!(replica.game.to_act(), Some(Seat(0)), "seat 0 plays first");
    let from = replica.seq();
    let mut asker = open_watch(&mut client, &id, Some(&tokens[0]), from, true)
        .await
        .unwrap();
    let mut partner = open_watch(&mut client, &id, Some(&tokens[2]), from, true)
        .await
        .unwrap();
    assert!(next_prompt(&mut asker).await.legal.unwrap().can_draw);

    act(
        &mut client,
        &id,
        &tokens,
        &mut replica,
        0,
        &Action::DrawStock,
    )
    .await;
    let after_draw = next_prompt(&mut asker).await;
    assert!(after_draw.legal.unwrap().can_ask_partner);
    act(
        &mut client,
        &id,
        &tokens,
        &mut replica,
        0,
        &Action::AskPartner,
    )
    .await;
    let asked = replica.seq();

    // Seat 2 must answer: prompted at the seq of the question, with both answers listed.
    let prompt = next_prompt(&mut partner).await;
    assert_eq!((prompt.seq, prompt.seat), (asked, 2));
    let legal = prompt.legal.clone().expect("the choices");
    assert!(legal.must_answer, "{legal:?}");
    assert!(!legal.can_draw && !legal.can_discard && !legal.can_ask_partner);
    let answer = |yes| v1::Action {
        kind: Some(v1::action::Kind::AnswerPartner(v1::AnswerPartnerAction {
            yes,
        })),
    };
    let mut listed = legal.actions.clone();
    listed.sort_by_key(|a| format!("{a:?}"));
    let mut both = vec![answer(true), answer(false)];
    both.sort_by_key(|a| format!("{a:?}"));
    assert_eq!(listed, both);
    let left = prompt.time_left_ms.expect("the time left");
    assert!(left > 0 && left <= BUDGET_MS, "{left}");
    let v2 = view_of(&mut client, &id, Some(&tokens[2]), true).await;
    assert_eq!(v2.legal, Some(*legal));
    let left = v2.time_left_ms.expect("the time left");
    assert!(left > 0 && left <= BUDGET_MS, "{left}");
    assert_eq!(v2.view.unwrap().to_act, Some(2));

    // Seat 0 waits: no choices, no time left, no prompt (its stream is read up to the
    // answer below: a prompt sent meanwhile would come before the answer's event).
    let v0 = view_of(&mut client, &id, Some(&tokens[0]), true).await;
    assert_eq!((v0.legal, v0.time_left_ms), (None, None));
    let got = read_until(&mut asker, asked).await;
    assert!(prompts(&got).is_empty(), "{got:?}");
    let discard = v1::SubmitActionRequest {
        game_id: id.clone(),
        expected_seq: asked,
        request_id: "too-early".into(),
        action: Some(v1::Action {
            kind: Some(v1::action::Kind::Discard(v1::DiscardAction {
                card: v0.view.unwrap().seats[0].hand.first().copied(),
            })),
        }),
    };
    let status = client
        .submit_action(authed(discard, &tokens[0]))
        .await
        .expect_err("the asker must wait for the answer");
    assert_eq!(status.code(), Code::FailedPrecondition, "{status:?}");
    assert_eq!(reason(&status), "NOT_YOUR_TURN", "{status:?}");
    assert_eq!(game_seq(&mut client, &id).await, asked);

    // The answer: seat 0 is prompted again, and its choices are back.
    act(
        &mut client,
        &id,
        &tokens,
        &mut replica,
        2,
        &Action::AnswerPartner { yes: false },
    )
    .await;
    let got = read_until(&mut asker, replica.seq()).await;
    assert_eq!(
        events(&got),
        replica.events_after(seat(0), asked),
        "the answer"
    );
    assert!(
        prompts(&got).is_empty(),
        "seat 0's stream prompted it before the answer: {got:?}"
    );
    let prompt = next_prompt(&mut asker).await;
    assert_eq!((prompt.seq, prompt.seat), (replica.seq(), 0));
    let legal = prompt.legal.expect("the choices");
    assert!(!legal.must_answer && !legal.can_ask_partner);
    assert!(prompt.time_left_ms.is_some());
    assert!(
        view_of(&mut client, &id, Some(&tokens[0]), false)
            .await
            .legal
            .is_some()
    );
    assert!(
        view_of(&mut client, &id, Some(&tokens[2]), false)
            .await
            .legal
            .is_none()
    );
    server.stop().await;
}

// A stream opened with include_view carries the seat's view in each prompt: the view GetView
// answers at the prompt's seq; a stream opened without it carries none.
#[tokio::test]
async fn prompts_carry_the_seat_view_when_asked() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, mut replica) = started(&mut client, request).await;
    let mut streams = Vec::new();
    for token in &tokens {
        let message = v1::WatchGameRequest {
            game_id: id.clone(),
            after_seq: 0,
            include_actions: false,
            include_view: true,
        };
        let stream = client
            .watch_game(authed(message, token))
            .await
            .expect("a stream")
            .into_inner();
        streams.push(stream);
    }
    let mut plain = open_watch(&mut client, &id, Some(&tokens[0]), 0, true)
        .await
        .unwrap();
    let mut checked = 0;
    for (s, action) in &script {
        // The seat to act is prompted with its view, the one GetView gives now.
        let seat = *s as usize;
        let prompt = loop {
            match next_message(&mut streams[seat])
                .await
                .unwrap()
                .kind
                .unwrap()
            {
                Msg::Prompt(p) => break p,
                _ => continue,
            }
        };
        assert_eq!(prompt.seq, replica.seq());
        let expected = view_of(&mut client, &id, Some(&tokens[seat]), false).await;
        let got = prompt.view.expect("a view in the prompt");
        assert_eq!(Some(&*got), expected.view.as_ref());
        assert_eq!(got.viewer_seat, Some(seat as u32));
        assert_eq!(got.seq, prompt.seq);
        assert_eq!(prompt.legal.as_deref(), expected.legal.as_ref());
        checked += 1;
        act(&mut client, &id, &tokens, &mut replica, *s, action).await;
    }
    assert_eq!(checked, script.len());
    // Without include_view, no view.
    for p in prompts(&read_to_end(&mut plain).await) {
        assert_eq!(p.view, None);
    }
    server.stop().await;
}

// A seat watching while the game waits for players is prompted as soon as the game starts,
// not before.
#[tokio::test]
async fn a_seat_watching_before_the_start_is_prompted_when_the_game_starts() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let request = seeded(88);
    let game = create_with(&mut client, request.clone()).await;
    let join = |seat: u32| v1::JoinGameRequest {
        game_id: game.game_id.clone(),
        seat: Some(seat),
        display_name: format!("player {seat}"),
    };
    let token = client.join_game(join(0)).await.unwrap().into_inner().token;
    let mut stream = open_watch(&mut client, &game.game_id, Some(&token), 0, false)
        .await
        .unwrap();
    let first = read_until(&mut stream, 1).await;
    client.join_game(join(1)).await.unwrap();
    let replica = Replica::joined(&request);
    let mut messages = first;
    messages.extend(read_until(&mut stream, replica.seq()).await);
    assert_eq!(prompts(&messages), vec![], "no prompt before the start");
    assert_eq!(events(&messages), replica.events(seat(0)));
    let Some(Msg::Prompt(p)) = next_message(&mut stream).await.unwrap().kind else {
        panic!("a prompt when the game starts")
    };
    assert_eq!((p.seq, p.seat), (replica.seq(), 0));
    assert!(p.legal.unwrap().can_draw);
    server.stop().await;
}

// ----- heartbeats -----

/// Reads every message (heartbeats too, which `read_until` passes over) up to the event of
/// seq `until`.
async fn every_message_until(
    stream: &mut Streaming<v1::WatchGameResponse>,
    until: u64,
) -> Vec<Msg> {
    let mut got = Vec::new();
    loop {
        let kind = next_message(stream)
            .await
            .expect("a message")
            .kind
            .expect("a kind");
        let last = matches!(&kind, Msg::Event(e) if e.seq >= until);
        got.push(kind);
        if last {
            return got;
        }
    }
}

/// Reads `n` messages that must be heartbeats; returns their seqs.
async fn heartbeats(stream: &mut Streaming<v1::WatchGameResponse>, n: usize) -> Vec<u64> {
    let mut seqs = Vec::new();
    while seqs.len() < n {
        match next_message(stream)
            .await
            .expect("a message")
            .kind
            .expect("a kind")
        {
            Msg::Heartbeat(h) => seqs.push(h.seq),
            other => panic!("a heartbeat, not {other:?}"),
        }
    }
    seqs
}

// An idle stream receives a heartbeat carrying the last seq every heartbeat period, counted
// from the last message it was sent, and none sooner. The server's clock is paused: the test
// moves it on, and reads what each move brings.
#[tokio::test]
async fn an_idle_stream_receives_heartbeats_with_the_last_seq() {
    let period = Duration::from_secs(15);
    let config = test_config().heartbeat(period).build().unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    let (id, tokens, mut replica) = started(&mut client, seeded(44)).await;
    let mut stream = open_watch(&mut client, &id, None, 0, false).await.unwrap();
    let got = events(&read_until(&mut stream, replica.seq()).await);
    assert_eq!(got, replica.events(Viewer::Spectator));

    // A moment before the period is over nothing comes: the events of an action made then are
    // the stream's next messages.
    server.advance(period - Duration::from_millis(1)).await;
    plain_moves(&mut client, &id, &tokens, &mut replica, 1).await;
    let got = every_message_until(&mut stream, replica.seq()).await;
    assert!(
        got.iter().all(|m| matches!(m, Msg::Event(_))),
        "a heartbeat before its period: {got:?}"
    );
    // The period counts from those events: a moment before it, nothing again; at its end, one
    // heartbeat with the last seq; then one every period.
    server.advance(period - Duration::from_millis(1)).await;
    plain_moves(&mut client, &id, &tokens, &mut replica, 1).await;
    let got = every_message_until(&mut stream, replica.seq()).await;
    assert!(
        got.iter().all(|m| matches!(m, Msg::Event(_))),
        "a heartbeat before its period: {got:?}"
    );
    for _ in 0..3 {
        server.advance(period).await;
        assert_eq!(heartbeats(&mut stream, 1).await, vec![replica.seq()]);
    }
    // One heartbeat a period, not more: the next message after the last is an action's event.
    let before = replica.seq();
    plain_moves(&mut client, &id, &tokens, &mut replica, 1).await;
    assert!(matches!(
        next_message(&mut stream).await.unwrap().kind,
        Some(Msg::Event(e)) if e.seq == before + 1
    ));

    // A stream with nothing to send begins with a heartbeat, a period after it opens.
    let mut caught_up = open_watch(&mut client, &id, None, replica.seq(), false)
        .await
        .unwrap();
    server.advance(period).await;
    assert_eq!(heartbeats(&mut caught_up, 1).await, vec![replica.seq()]);
    server.stop().await;
}

// ----- the end of a stream -----

// A stream ends after MatchEnded; a finished game's stream sends what is asked and ends.
#[tokio::test]
async fn the_stream_ends_after_the_match_ended() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, mut replica) = started(&mut client, request).await;
    let mut live = open_watch(&mut client, &id, None, 0, false).await.unwrap();
    for (s, action) in &script {
        act(&mut client, &id, &tokens, &mut replica, *s, action).await;
    }
    let end = replica.seq();
    let got = events(&read_to_end(&mut live).await);
    assert_eq!(got, replica.events(Viewer::Spectator));
    assert!(matches!(
        got.last().and_then(|e| e.kind.as_ref()),
        Some(Ev::MatchEnded(m)) if m.result.as_ref().is_some_and(|r| r.finished && r.winner_side == Some(0))
    ));

    // Watching the finished game: the events asked for, then the end.
    for (token, viewer) in [
        (None, Viewer::Spectator),
        (Some(tokens[1].as_str()), seat(1)),
    ] {
        for after in [0, end - 3, end - 1] {
            let mut s = open_watch(&mut client, &id, token, after, true)
                .await
                .unwrap();
            let messages = read_to_end(&mut s).await;
            assert_eq!(events(&messages), replica.events_after(viewer, after));
            assert_eq!(messages.len(), (end - after) as usize, "no prompt");
        }
        let mut s = open_watch(&mut client, &id, token, end, false)
            .await
            .unwrap();
        assert_eq!(read_to_end(&mut s).await, vec![]);
    }
    server.stop().await;
}

// ----- errors -----

// after_seq beyond the game's seq is INVALID_ARGUMENT BAD_SEQ; an unknown game NOT_FOUND; a
// token of no seat of the game PERMISSION_DENIED; a malformed one UNAUTHENTICATED. Nothing
// changes.
#[tokio::test]
async fn watch_errors_change_nothing() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (id, tokens, mut replica) = started(&mut client, seeded(55)).await;
    plain_moves(&mut client, &id, &tokens, &mut replica, 3).await;
    let (other, other_tokens, other_replica) = started(&mut client, seeded(56)).await;
    let seq = replica.seq();
    let before = view_of(&mut client, &id, Some(&tokens[0]), false).await;

    let expect = |r: Result<Streaming<v1::WatchGameResponse>, Status>, code: Code, why: &str| {
        let status = r.err().unwrap_or_else(|| panic!("{why}: refused"));
        assert_eq!(status.code(), code, "{why}: {status:?}");
        reason(&status)
    };
    for after in [seq + 1, seq + 100, u64::MAX] {
        for token in [None, Some(tokens[0].as_str())] {
            let r = open_watch(&mut client, &id, token, after, false).await;
            assert_eq!(
                expect(r, Code::InvalidArgument, "after_seq beyond"),
                "BAD_SEQ"
            );
        }
    }
    let r = open_watch(&mut client, "0123456789abcdef", None, 0, false).await;
    assert_eq!(expect(r, Code::NotFound, "unknown game"), "GAME_NOT_FOUND");
    let r = open_watch(&mut client, "", Some(&tokens[0]), 0, false).await;
    assert_eq!(
        expect(r, Code::InvalidArgument, "empty id"),
        "MISSING_FIELD"
    );
    for token in [other_tokens[0].as_str(), "0123456789abcdef0123456789abcdef"] {
        let r = open_watch(&mut client, &id, Some(token), 0, false).await;
        assert_eq!(
            expect(r, Code::PermissionDenied, "a wrong token"),
            "NOT_A_SEAT_OF_GAME"
        );
    }
    let mut malformed = Request::new(v1::WatchGameRequest {
        game_id: id.clone(),
        after_seq: 0,
        include_actions: false,
        include_view: false,
    });
    malformed
        .metadata_mut()
        .insert("authorization", "Basic abc".parse().unwrap());
    let r = client.watch_game(malformed).await.map(|r| r.into_inner());
    assert_eq!(
        expect(r, Code::Unauthenticated, "a malformed token"),
        "MALFORMED_TOKEN"
    );

    assert_eq!(game_seq(&mut client, &id).await, seq);
    assert_eq!(
        view_of(&mut client, &id, Some(&tokens[0]), false).await,
        before
    );
    assert_eq!(game_seq(&mut client, &other).await, other_replica.seq());
    // The right token still watches, and is prompted.
    let to_act = replica.game.to_act().expect("a seat to act").0;
    let mut s = open_watch(&mut client, &id, Some(&tokens[to_act as usize]), seq, false)
        .await
        .unwrap();
    assert!(matches!(
        next_message(&mut s).await.unwrap().kind,
        Some(Msg::Prompt(p)) if p.seq == seq && p.seat == to_act as u32
    ));
    server.stop().await;
}

// ----- the watcher limit -----

/// Opens a stream and reads its first message, so that it is surely established.
async fn open(
    client: &mut Client,
    id: &str,
    token: Option<&str>,
) -> Streaming<v1::WatchGameResponse> {
    let mut s = open_watch(client, id, token, 0, false)
        .await
        .expect("a stream");
    next_message(&mut s).await.expect("a first message");
    s
}

/// Asserts a refused WatchGame: RESOURCE_EXHAUSTED TOO_MANY_WATCHERS with a RetryInfo.
#[track_caller]
fn assert_too_many_watchers(status: &Status) {
    assert_refused(status, Code::ResourceExhausted, "TOO_MANY_WATCHERS");
}

// Regression: spectators filled a game's watcher limit (64 by default), and then the seats'
// own WatchGame was refused. Now the default limit of 64 spectator streams is full and one
// more spectator is refused RESOURCE_EXHAUSTED TOO_MANY_WATCHERS with a RetryInfo, changing
// nothing, while every seat's stream is still admitted and prompted; refused streams take no
// place, closing a spectator stream frees its place, and the limit is per game.
#[tokio::test]
async fn spectators_fill_their_limit_and_every_seat_still_watches() {
    let server = TestServer::with_config(test_config().build().unwrap()).await;
    let mut client = server.client().await;
    let (id, tokens, mut replica) = started(&mut client, seeded(66)).await;
    let (other, _, _) = started(&mut client, seeded(67)).await;
    let limit = test_config().build().unwrap().max_spectators_per_game();
    assert_eq!(limit, 64, "the default limit");

    let mut spectators = Vec::new();
    for _ in 0..limit {
        spectators.push(open(&mut client, &id, None).await);
    }
    let before = game_seq(&mut client, &id).await;
    for _ in 0..3 {
        let status = open_watch(&mut client, &id, None, 0, false)
            .await
            .expect_err("one spectator more is refused");
        assert_too_many_watchers(&status);
        assert!(
            status.message().contains("spectator"),
            "{}",
            status.message()
        );
    }
    assert_eq!(
        game_seq(&mut client, &id).await,
        before,
        "a refusal moved the game"
    );
    // Every seat still watches its game, and the seat to act is prompted at once.
    let to_act = replica.game.to_act().expect("a seat to act").0 as usize;
    let mut seats = Vec::new();
    for token in &tokens {
        seats.push(
            open_watch(&mut client, &id, Some(token), replica.seq(), false)
                .await
                .expect("a seat's own stream is admitted"),
        );
    }
    assert!(matches!(
        next_message(&mut seats[to_act]).await.unwrap().kind,
        Some(Msg::Prompt(p)) if p.seq == replica.seq() && p.seat == to_act as u32
    ));
    // The limit is per game: another game has places of its own.
    let _elsewhere = open(&mut client, &other, None).await;

    // Closing a spectator stream frees its place (the server notices the cancelled stream);
    // the refused ones took none, so exactly one more fits.
    drop(spectators.pop());
    spectators.push(watch_when_freed(&mut client, &id, None).await);
    assert_too_many_watchers(
        &open_watch(&mut client, &id, None, 0, false)
            .await
            .expect_err("full again"),
    );

    // The streams follow the game.
    let seq = replica.seq();
    plain_moves(&mut client, &id, &tokens, &mut replica, 3).await;
    for (s, stream) in seats.iter_mut().enumerate() {
        let got = events(&read_until(stream, replica.seq()).await);
        assert_eq!(got, replica.events_after(seat(s as u8), seq), "seat {s}");
    }
    let got = events(&read_until(&mut spectators[0], replica.seq()).await);
    // (`open` read its first event.)
    assert_eq!(got, replica.events_after(Viewer::Spectator, 1));
    server.stop().await;
}

// A seat token holds at most --max-watchers-per-token streams, whatever the spectators do.
#[tokio::test]
async fn a_seat_token_is_limited_only_by_its_own_stream_limit() {
    let config = test_config()
        .max_watchers_per_token(2)
        .max_spectators_per_game(1)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let (id, tokens, _) = started(&mut client, seeded(68)).await;
    let _spectator = open(&mut client, &id, None).await;
    let _a = open(&mut client, &id, Some(&tokens[0])).await;
    let _b = open(&mut client, &id, Some(&tokens[0])).await;
    let before = game_seq(&mut client, &id).await;
    let status = open_watch(&mut client, &id, Some(&tokens[0]), 0, false)
        .await
        .expect_err("a third stream of the token");
    assert_too_many_watchers(&status);
    assert!(
        status.message().contains("seat token"),
        "{}",
        status.message()
    );
    // The other seat's token has places of its own.
    let _c = open(&mut client, &id, Some(&tokens[1])).await;
    let _d = open(&mut client, &id, Some(&tokens[1])).await;
    assert_eq!(game_seq(&mut client, &id).await, before);
    server.stop().await;
}

/// A client whose connection accepts only a few bytes at a time: a stream it does not read
/// soon cannot take any more.
async fn stalling_client(server: &TestServer) -> Client {
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr))
        .expect("a uri")
        .initial_stream_window_size(Some(1024))
        .initial_connection_window_size(Some(1024))
        .connect()
        .await
        .expect("a connection");
    CanastaServiceClient::new(channel)
}

// Regression: a stream whose client never reads kept its place forever. Now, once it has
// been unable to take a message for --watch-send-timeout-secs (here heartbeats fill it without
// a move), it is ended with Lagged at the seq of the last event it got, and its place is freed:
// the seat's token (limited to one stream) and a spectator (one per game) watch again. The
// server's clock is paused: the test moves it on a heartbeat period at a time, each move a
// heartbeat more for the streams, until the stalled ones have been full for the time-out.
#[tokio::test]
async fn a_stream_that_is_never_read_is_ended_and_frees_its_place() {
    let heartbeat = Duration::from_millis(10);
    let config = test_config()
        .max_watchers_per_token(1)
        .max_spectators_per_game(1)
        .heartbeat(heartbeat)
        .watch_send_timeout(Duration::from_secs_f64(0.3))
        // The tries below are paid for by the seat's token, on a clock that does not refill it.
        .requests_per_second(1e6)
        .build()
        .unwrap();
    let server = paused(config).await;
    let mut client = server.client().await;
    let (id, tokens, replica) = started(&mut client, seeded(69)).await;
    let mut slow_seat = stalling_client(&server).await;
    let mut slow_spectator = stalling_client(&server).await;
    let mut stalled = [
        open_watch(&mut slow_seat, &id, Some(&tokens[0]), 0, false)
            .await
            .expect("a stream"),
        open_watch(&mut slow_spectator, &id, None, 0, false)
            .await
            .expect("a stream"),
    ];
    // Their places are taken.
    for token in [Some(tokens[0].as_str()), None] {
        assert_too_many_watchers(
            &open_watch(&mut client, &id, token, 0, false)
                .await
                .expect_err("the place is taken"),
        );
    }
    // Then freed, with nothing read: tried every ten heartbeats.
    let (mut seat_again, mut spectator_again) = (None, None);
    let mut periods = 0;
    while seat_again.is_none() || spectator_again.is_none() {
        for _ in 0..10 {
            server.advance(heartbeat).await;
        }
        periods += 10;
        assert!(periods <= 10_000, "the places are not freed");
        for (token, again) in [
            (Some(tokens[0].as_str()), &mut seat_again),
            (None, &mut spectator_again),
        ] {
            if again.is_none() {
                match open_watch(&mut client, &id, token, 0, false).await {
                    Ok(stream) => *again = Some(stream),
                    Err(status) => assert_too_many_watchers(&status),
                }
            }
        }
    }
    let (mut seat_again, mut spectator_again) = (seat_again.unwrap(), spectator_again.unwrap());
    println!("places freed after {periods} heartbeat periods of the server's clock");
    // Read at last, each stalled stream holds the game's events from the start, heartbeats,
    // and a final Lagged at the last event's seq.
    for (stream, viewer) in stalled.iter_mut().zip([seat(0), Viewer::Spectator]) {
        let messages = read_to_end(stream).await;
        let Some((Msg::Lagged(lagged), rest)) = messages.split_last() else {
            panic!("a Lagged message last, not {:?}", messages.last());
        };
        assert!(rest.iter().any(|m| matches!(m, Msg::Heartbeat(_))));
        let got = events(rest);
        assert_eq!(got, replica.events(viewer));
        assert_eq!(lagged.last_seq, replica.seq());
    }
    // The new streams work.
    assert_eq!(
        events(&read_until(&mut seat_again, replica.seq()).await),
        replica.events(seat(0))
    );
    assert_eq!(
        events(&read_until(&mut spectator_again, replica.seq()).await),
        replica.events(Viewer::Spectator)
    );
    server.stop().await;
}

// ----- a slow watcher -----

// A stream that is not read while many actions happen is told it lagged (Lagged with the seq
// of the last event it got) and ends; the game was not slowed; watching again after that seq
// delivers the rest with no gap.
#[tokio::test]
async fn a_slow_watcher_lags_without_slowing_the_game_and_resumes_by_seq() {
    let config = test_config()
        .watch_buffer(16)
        .requests_per_second(1e6)
        .build()
        .unwrap();
    let server = TestServer::with_config(config).await;
    let mut client = server.client().await;
    let (id, tokens, mut replica) = started(&mut client, seeded(77)).await;
    // The slow watcher's connection accepts little data at a time, as a client that does not
    // read would.
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr))
        .unwrap()
        .initial_stream_window_size(Some(1024))
        .connect()
        .await
        .unwrap();
    let mut slow_client = CanastaServiceClient::new(channel);
    let mut slow = open_watch(&mut slow_client, &id, None, 0, false)
        .await
        .unwrap();

    // Every action is accepted at once, whatever the slow watcher does.
    plain_moves(&mut client, &id, &tokens, &mut replica, 300).await;
    let end = replica.seq();
    assert_eq!(game_seq(&mut client, &id).await, end);

    let messages = read_to_end(&mut slow).await;
    let (last, got) = match messages.split_last() {
        Some((Msg::Lagged(l), rest)) => (l.last_seq, events(rest)),
        other => panic!("a Lagged message last, not {:?}", other.map(|o| o.0)),
    };
    assert!(!got.is_empty());
    assert_gapless(&got, 0);
    assert_eq!(got.last().unwrap().seq, last);
    assert!(last < end, "lagged at {last} of {end}");
    let all = replica.events(Viewer::Spectator);
    assert_eq!(got, all[..last as usize].to_vec());

    // Resuming after the last seq received delivers the rest.
    let mut again = open_watch(&mut slow_client, &id, None, last, false)
        .await
        .unwrap();
    let rest = events(&read_until(&mut again, end).await);
    assert_gapless(&rest, last);
    assert_eq!(rest, all[last as usize..].to_vec());
    server.stop().await;
}

// The list of legal actions is built into prompts only while one of the seat's streams asked
// for it, and each stream gets what it asked for: a stream opened with include_actions gets the
// list at once and in every prompt after; the seat's other stream never does.
#[tokio::test]
async fn prompts_carry_the_actions_only_to_streams_that_asked() {
    let server = TestServer::start().await;
    let mut client = server.client().await;
    let (request, script) = short_game();
    let (id, tokens, mut replica) = started(&mut client, request).await;
    let (seat, draw) = script[0].clone();
    let token = &tokens[seat as usize];
    let mut plain = open_watch(&mut client, &id, Some(token), 0, false)
        .await
        .unwrap();
    let legal = next_prompt(&mut plain).await.legal.expect("choices");
    assert!(legal.actions.is_empty(), "{legal:?}");
    let mut full = open_watch(&mut client, &id, Some(token), 0, true)
        .await
        .unwrap();
    let listed = view_of(&mut client, &id, Some(token), true)
        .await
        .legal
        .unwrap();
    assert!(!listed.actions.is_empty());
    assert_eq!(next_prompt(&mut full).await.legal.as_deref(), Some(&listed));
    // The same seat plays on after its draw: both streams are prompted again.
    act(&mut client, &id, &tokens, &mut replica, seat, &draw).await;
    let listed = view_of(&mut client, &id, Some(token), true)
        .await
        .legal
        .unwrap();
    assert!(!listed.actions.is_empty());
    let mut without = listed.clone();
    without.actions.clear();
    without.actions_truncated = false;
    assert_eq!(next_prompt(&mut full).await.legal.as_deref(), Some(&listed));
    assert_eq!(
        next_prompt(&mut plain).await.legal.as_deref(),
        Some(&without)
    );
    server.stop().await;
}
