//! R-DEAL: seats, dealer, hand sizes, partnerships, the shuffle and the upcard;
//! R-RED: red threes.
mod common;
use common::*;

use canasta_engine::card::pack;
use canasta_engine::event::{DealFinish, DealStart, RedThreeSource};
use canasta_engine::table::Table;
use canasta_engine::{
    Action, Arrangement, Card, DealEnd, DealScore, Event, Game, Phase, RuleSpec, Rules, Seat,
    Setup, Side,
};

// ----- local helpers -----

/// A setup of several prearranged deals. `deals[k]` is deal `k`'s (hands by seat, pile, stock),
/// as for `arranged`. The last playing seat of the first deal deals first, as in `arranged`,
/// so the dealer of deal `k` sits `k` chairs further clockwise.
fn setup_deals(spec: RuleSpec, deals: &[(Vec<&str>, &str, &str)]) -> Setup {
    let rules = Rules::new(&spec).unwrap();
    let table = Table::new(&rules);
    let first = Seat(rules.active_players() - 1);
    let first_chair = table.chairs(0).chair_of(first).unwrap();
    let card_orders = deals
        .iter()
        .enumerate()
        .map(|(k, (hands, pile, stock))| {
            let dealer = table.chairs(k as u32).seat(first_chair + k);
            Arrangement {
                hands: hands.iter().map(|h| list(h)).collect(),
                pile: list(pile),
                stock: list(stock),
                ..Default::default()
            }
            .deck(&rules, k as u32, dealer)
            .unwrap_or_else(|e| panic!("deal {k}: {e}"))
        })
        .collect();
    Setup {
        rules: spec,
        card_orders,
        first_dealer: Some(first),
        ..Setup::default()
    }
}

/// The setup of one prearranged deal (like `arranged`, for `Game::start` and its events).
fn setup_one(spec: RuleSpec, hands: &[&str], pile: &str, stock: &str) -> Setup {
    setup_deals(spec, &[(hands.to_vec(), pile, stock)])
}

/// Eight kings and three queens: with the stock's `5H` drawn, the holder goes out concealed
/// on his first turn (`go_out_concealed`).
const OUT_HAND: &str = "KS KS KH KH KD KD KC KC QS QH QD";

/// Hands where seat `seat` holds [`OUT_HAND`] and every other seat is filled.
fn out_hands(seat: usize) -> Vec<&'static str> {
    let mut h = vec![""; seat + 1];
    h[seat] = OUT_HAND;
    h
}

/// Draws (the `5H` arranged on top of the stock) and goes out concealed with [`OUT_HAND`].
fn go_out_concealed(g: &mut Game, seat: u8) -> Vec<Event> {
    act(g, seat, Action::DrawStock);
    act(
        g,
        seat,
        go_out(
            &[new_meld("KS KS KH KH KD KD KC KC"), new_meld("QS QH QD")],
            Some("5H"),
        ),
    )
}

/// The report of the deal that ended among `events`.
fn finish(events: &[Event]) -> &DealFinish {
    events
        .iter()
        .find_map(|e| match e {
            Event::DealEnded(f) => Some(&**f),
            _ => None,
        })
        .expect("the deal ended")
}

/// The deal start among `events`.
fn deal_start(events: &[Event]) -> &DealStart {
    events
        .iter()
        .find_map(|e| match e {
            Event::DealStarted(s) => Some(&**s),
            _ => None,
        })
        .expect("a deal started")
}

fn seats(v: &[u8]) -> Vec<Seat> {
    v.iter().map(|&s| Seat(s)).collect()
}

fn last_report(g: &Game) -> &DealScore {
    g.history().last().expect("a deal was scored")
}

// ----- R-DEAL-1: seats, dealer, first player -----

// R-DEAL-1: the dealer moves one seat clockwise each deal and the player to his left plays
// first. Each deal is ended at once by that player going out concealed.
#[test]
fn r_deal_1_dealer_moves_clockwise_each_deal() {
    let deals: Vec<_> = (0..4).map(|k| (out_hands(k), "7D", "5H")).collect();
    let mut g = Game::new(&setup_deals(spec(4, &[]), &deals)).unwrap();
    for k in 0..4u8 {
        assert_eq!(g.deal_number(), k as u32);
        let dealer = (3 + k) % 4;
        let first = (dealer + 1) % 4;
        assert_eq!(g.dealer(), Seat(dealer), "deal {k}");
        assert_eq!(g.to_act(), Some(Seat(first)), "deal {k}");
        assert_eq!(g.play_order(), &seats(&[0, 1, 2, 3])[..]);
        let ev = go_out_concealed(&mut g, first);
        assert_eq!(
            finish(&ev).score.end,
            DealEnd::WentOut {
                seat: Seat(first),
                concealed: true
            }
        );
        // The next deal starts in the same call, with the next dealer.
        let next = deal_start(&ev);
        assert_eq!(next.deal, k as u32 + 1);
        assert_eq!(next.dealer, Seat((dealer + 1) % 4));
    }
    // Deal 4 (seeded): back to seat 3.
    assert_eq!(g.deal_number(), 4);
    assert_eq!(g.dealer(), Seat(3));
    assert_eq!(g.to_act(), Some(Seat(0)));
}

// R-DEAL-1: play passes clockwise from the player to the dealer's left, whoever deals.
#[test]
fn r_deal_1_play_passes_clockwise_from_dealers_left() {
    let setup = Setup {
        rules: spec(4, &[]),
        seed: 42,
        first_dealer: Some(Seat(1)),
        ..Setup::default()
    };
    let mut g = Game::new(&setup).unwrap();
    assert_eq!(g.dealer(), Seat(1));
    let mut order = Vec::new();
    for _ in 0..5 {
        let seat = g.to_act().unwrap();
        order.push(seat.0);
        act(&mut g, seat.0, Action::DrawStock);
        let card = g.hand(seat).iter().next().unwrap();
        act(&mut g, seat.0, Action::Discard { card });
    }
    assert_eq!(order, vec![2, 3, 0, 1, 2]);
}

// R-DEAL-1: without a first dealer given, the seed chooses him: the same seed always gives the
// same dealer, different seeds give different dealers, and the player to his left starts.
#[test]
fn r_deal_1_first_dealer_from_seed() {
    let dealer = |seed: u64| {
        Game::new(&Setup::seeded(spec(4, &[]), seed))
            .unwrap()
            .dealer()
    };
    let dealers: Vec<Seat> = (0..16).map(dealer).collect();
    for (seed, d) in dealers.iter().enumerate() {
        assert_eq!(dealer(seed as u64), *d, "seed {seed}");
        let g = Game::new(&Setup::seeded(spec(4, &[]), seed as u64)).unwrap();
        assert_eq!(g.to_act(), Some(Seat((d.0 + 1) % 4)), "seed {seed}");
    }
    let mut distinct = dealers.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        4,
        "16 seeds should give every seat as dealer: {dealers:?}"
    );
}

// R-DEAL-1: a first dealer given at creation is used, whatever the seed.
#[test]
fn r_deal_1_first_dealer_set_when_given() {
    for seat in 0..4u8 {
        for seed in [1, 42] {
            let setup = Setup {
                rules: spec(4, &[]),
                seed,
                first_dealer: Some(Seat(seat)),
                ..Setup::default()
            };
            let g = Game::new(&setup).unwrap();
            assert_eq!(g.dealer(), Seat(seat));
            assert_eq!(g.to_act(), Some(Seat((seat + 1) % 4)));
        }
    }
}

// R-DEAL-1: a first dealer who is not a seat of the first deal is refused.
#[test]
fn r_deal_1_bad_first_dealer_refused() {
    let bad = |spec: RuleSpec, seat: u8| {
        let setup = Setup {
            rules: spec,
            first_dealer: Some(Seat(seat)),
            ..Setup::default()
        };
        let err = Game::new(&setup).unwrap_err();
        assert_eq!(err.code(), "BAD_FIRST_DEALER", "{err}");
        let msg = err.to_string();
        assert!(msg.contains(&format!("seat {seat}")), "{msg}");
        msg
    };
    bad(spec(4, &[]), 4);
    bad(spec(2, &[]), 2);
    // Seat 4 sits out the first deal with five players in two sides, and seats 4 and 5 with
    // six in two teams of three.
    bad(spec(5, &[]), 4);
    bad(spec(6, &[("six_players", "two_teams_of_three")]), 5);
    // Seat 4 plays the first deal when five play each for himself.
    let ok = Setup {
        rules: spec(5, &[("five_players", "each_alone")]),
        first_dealer: Some(Seat(4)),
        ..Setup::default()
    };
    assert_eq!(Game::new(&ok).unwrap().to_act(), Some(Seat(0)));
}

// ----- R-DEAL-2: player counts -----

// R-DEAL-2: cards dealt, pack size, draw and canastas to go out for every seating.
#[test]
fn r_deal_2_hand_and_pack_sizes_in_game() {
    struct Case {
        players: u8,
        option: Option<(&'static str, &'static str)>,
        hand: usize,
        pack: usize,
        sizes: Vec<u8>,
        draw: u8,
        canastas: u8,
        sides: u8,
    }
    let cases = [
        Case {
            players: 2,
            option: None,
            hand: 15,
            pack: 108,
            sizes: vec![15; 2],
            draw: 2,
            canastas: 2,
            sides: 2,
        },
        Case {
            players: 3,
            option: None,
            hand: 13,
            pack: 108,
            sizes: vec![13; 3],
            draw: 1,
            canastas: 1,
            sides: 3,
        },
        Case {
            players: 4,
            option: None,
            hand: 11,
            pack: 108,
            sizes: vec![11; 4],
            draw: 1,
            canastas: 1,
            sides: 2,
        },
        Case {
            players: 5,
            option: None,
            hand: 11,
            pack: 108,
            sizes: vec![11, 11, 11, 11, 0],
            draw: 1,
            canastas: 1,
            sides: 2,
        },
        Case {
            players: 5,
            option: Some(("five_players", "each_alone")),
            hand: 11,
            pack: 108,
            sizes: vec![11; 5],
            draw: 1,
            canastas: 1,
            sides: 5,
        },
        Case {
            players: 6,
            option: Some(("six_players", "three_pairs")),
            hand: 13,
            pack: 162,
            sizes: vec![13; 6],
            draw: 1,
            canastas: 2,
            sides: 3,
        },
        Case {
            players: 6,
            option: Some(("six_players", "two_teams_of_three")),
            hand: 11,
            pack: 108,
            sizes: vec![11, 11, 11, 11, 0, 0],
            draw: 1,
            canastas: 1,
            sides: 2,
        },
    ];
    for c in cases {
        let opts: Vec<(&str, &str)> = c.option.into_iter().collect();
        let label = format!("{} players {:?}", c.players, c.option);
        let (g, events) = Game::start(&Setup::seeded(spec(c.players, &opts), 9)).unwrap();
        assert_eq!(g.all_cards().len(), c.pack, "{label}");
        assert_eq!(g.rules().pack_size(), c.pack, "{label}");
        assert_eq!(deal_start(&events).hand_sizes, c.sizes, "{label}");
        assert_eq!(g.table().sides(), c.sides, "{label}");
        assert_eq!(g.rules().draw, c.draw, "{label}");
        assert_eq!(g.rules().canastas_to_go_out, c.canastas, "{label}");
        for s in 0..c.players {
            let expected = if c.sizes[s as usize] == 0 { 0 } else { c.hand };
            // The first player's dealt red threes are replaced, so hands keep their size.
            assert_eq!(g.hand(Seat(s)).len(), expected, "{label}: seat {s}");
        }
        let playing = c.sizes.iter().filter(|&&n| n > 0).count();
        assert_eq!(g.play_order().len(), playing, "{label}");
        let laid: usize = (0..c.players).map(|s| g.red_threes(Seat(s)).len()).sum();
        assert_eq!(
            g.stock().len() + g.pile().len() + laid,
            c.pack - c.hand * playing,
            "{label}"
        );
    }
}

/// Plays `deals` deals of `spec` where the first player of each goes out at once, checking
/// before each that the seats in `orders[k]` play in that order, the others hold no cards,
/// sides alternate round the table and the dealer is the chair after the last deal's dealer.
fn check_rotation(spec: RuleSpec, orders: &[[u8; 4]]) {
    let rules = Rules::new(&spec).unwrap();
    let table = Table::new(&rules);
    // The first player of deal k sits in chair k % 4 (the first dealer is chair 3).
    let deals: Vec<_> = orders
        .iter()
        .enumerate()
        .map(|(k, o)| (out_hands(o[k % 4] as usize), "7D", "5H"))
        .collect();
    let mut g = Game::new(&setup_deals(spec, &deals)).unwrap();
    for (k, order) in orders.iter().enumerate() {
        assert_eq!(g.deal_number(), k as u32);
        assert_eq!(g.play_order(), &seats(order)[..], "deal {k}");
        for s in 0..rules.players {
            let playing = order.contains(&s);
            assert_eq!(
                g.hand(Seat(s)).len(),
                if playing { 11 } else { 0 },
                "deal {k} seat {s}"
            );
        }
        for i in 0..4 {
            let a = table.side_of(Seat(order[i]));
            let b = table.side_of(Seat(order[(i + 1) % 4]));
            assert_ne!(a, b, "deal {k}: sides must alternate");
        }
        assert_eq!(g.dealer(), Seat(order[(k + 3) % 4]), "deal {k}");
        let first = order[k % 4];
        assert_eq!(g.to_act(), Some(Seat(first)), "deal {k}");
        go_out_concealed(&mut g, first);
    }
}

// R-DEAL-2: five players in two sides: in the side of three (seats 0, 2, 4) one sits out each
// deal in rotation (4, then 0, then 2); he holds no cards; the sides alternate in play.
#[test]
fn r_deal_2_five_players_sit_out_rotation() {
    check_rotation(
        spec(5, &[]),
        &[[0, 1, 2, 3], [2, 1, 4, 3], [0, 1, 4, 3], [0, 1, 2, 3]],
    );
}

// R-DEAL-2: six players in two teams of three: one of each team sits out each deal in
// rotation (4 and 5, then 0 and 1, then 2 and 3).
#[test]
fn r_deal_2_six_players_two_teams_sit_out_rotation() {
    check_rotation(
        spec(6, &[("six_players", "two_teams_of_three")]),
        &[[0, 1, 2, 3], [2, 3, 4, 5], [0, 1, 4, 5], [0, 1, 2, 3]],
    );
}

// R-DEAL-2: two players draw two cards from the stock and keep both.
#[test]
fn r_deal_2_two_players_draw_two() {
    let mut g = arranged(2, &[], &[""], "7D", "KS QH 9C");
    assert_eq!(g.hand(Seat(0)).len(), 15);
    let ev = act(&mut g, 0, Action::DrawStock);
    assert!(ev.contains(&Event::Drew {
        seat: Seat(0),
        count: 2,
        cards: Some(list("KS QH").into_iter().collect()),
    }));
    let hand = g.hand(Seat(0));
    assert_eq!(hand.len(), 17);
    assert!(hand.count(card("KS")) >= 1 && hand.count(card("QH")) >= 1);
    assert_eq!(g.stock().last(), Some(&card("9C")));
    assert_eq!(g.phase(), Phase::Play);
    // One discard ends the turn: 16 cards are kept.
    act(&mut g, 0, discard("KS"));
    assert_eq!(g.hand(Seat(0)).len(), 16);
    assert_eq!(g.to_act(), Some(Seat(1)));
}

// ----- R-DEAL-3: partnerships -----

// R-DEAL-3: partners share melds, initial-meld state and score. Seat 0 makes the initial
// meld; seat 2 then melds 30 points without a minimum (while seat 1's side still needs 50),
// adds to seat 0's kings and goes out on the shared canasta.
#[test]
fn r_deal_3_partners_share_melds_state_and_score() {
    let mut g = arranged(
        4,
        &[],
        &[
            "KS KH KD AS AH AD 4C 5D 6H 7S 8C",
            "QC QC QH",
            "KC KC KS KH KD QS QH QD JS JH JD",
        ],
        "7D",
        "9D 10H 5C",
    );
    // Seat 0: initial meld of 90.
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("KS KH KD"), new_meld("AS AH AD")]),
    );
    act(&mut g, 0, discard("9D"));
    assert!(g.side_melded(Side(0)));
    assert!(!g.side_melded(Side(1)));
    // Seat 1's side has not melded: 30 points are below its minimum.
    act(&mut g, 1, Action::DrawStock);
    let msg = refuse(&mut g, 1, meld(&[new_meld("QC QC QH")]), "BELOW_MINIMUM");
    assert!(msg.contains("50"), "{msg}");
    act(&mut g, 1, discard("10H"));
    // Seat 2: no minimum for his side any more.
    act(&mut g, 2, Action::DrawStock);
    act(&mut g, 2, meld(&[new_meld("QS QH QD")]));
    let side0 = g.melds(Side(0));
    assert_eq!(side0.len(), 3);
    assert_eq!((side0[0].creator, side0[2].creator), (Seat(0), Seat(2)));
    assert!(g.melds(Side(1)).is_empty());
    // Seat 2 adds five kings to seat 0's meld and goes out with the shared canasta.
    let ev = act(
        &mut g,
        2,
        go_out(
            &[add(0, "KC KC KS KH KD"), new_meld("JS JH JD")],
            Some("5C"),
        ),
    );
    let report = &finish(&ev).score;
    assert_eq!(report.sides.len(), 2);
    let s0 = report.sides[0];
    // One score for the side: both partners' melds, the canasta, going out (not concealed:
    // seat 2 added to his partner's meld) and seat 0's cards left.
    assert_eq!(s0.melded_cards, 90 + 30 + 50 + 30);
    assert_eq!((s0.natural_canastas, s0.canasta_bonus), (1, 500));
    assert_eq!(s0.going_out_bonus, 100);
    assert_eq!(s0.cards_in_hand, -30);
    assert_eq!(s0.total, 770);
    let s1 = report.sides[1];
    assert_eq!(s1.melded_cards, 0);
    let left = &finish(&ev).hands;
    assert_eq!(s1.cards_in_hand, -SIDE1_LEFT);
    assert_eq!(SIDE1_LEFT, (left[1].value() + left[3].value()) as i32);
    assert_eq!(g.scores(), &[770, -SIDE1_LEFT]);
}

/// The values left in the hands of seats 1 and 3 in `r_deal_3_partners_share_melds_state_and_score`:
/// 4♣ 5♣ 6♣ 7♣ 8♣ 9♣ 10♣ J♣ Q♣ Q♣ Q♥ (90) and 4♦ 5♦ 6♦ 7♦ 8♦ 9♦ 10♦ J♦ Q♦ A♣ A♦ (110).
const SIDE1_LEFT: i32 = 200;

// ----- R-DEAL-4: the shuffle -----

// R-DEAL-4: the same seed gives the same deals; other seeds give other deals.
#[test]
fn r_deal_4_same_seed_same_deal() {
    let deal_of = |g: &Game| {
        let hands: Vec<_> = (0..4).map(|s| *g.hand(Seat(s))).collect();
        (hands, g.pile().to_vec(), g.stock().to_vec(), g.dealer())
    };
    let a = Game::new(&Setup::seeded(spec(4, &[]), 7)).unwrap();
    let b = Game::new(&Setup::seeded(spec(4, &[]), 7)).unwrap();
    assert_eq!(a.state_hash(), b.state_hash());
    assert_eq!(deal_of(&a), deal_of(&b));
    for seed in [8, 9, 1 << 40] {
        let c = Game::new(&Setup::seeded(spec(4, &[]), seed)).unwrap();
        assert_ne!(a.state_hash(), c.state_hash(), "seed {seed}");
        let (ha, _, sa, _) = deal_of(&a);
        let (hc, _, sc, _) = deal_of(&c);
        assert_ne!(ha, hc, "seed {seed}: hands");
        assert_ne!(sa, sc, "seed {seed}: stock");
    }
}

/// Seat 0's dealt hand of the first deal of `Setup::seeded(official 4 players, 42)`.
const SEED_42_HAND: &str = "2S 4S 6H 7H 8C 8S 9H 10C 10D KD AD";
/// The upcards of that deal, bottom first.
const SEED_42_PILE: &str = "3S 7D";
/// Its dealer.
const SEED_42_DEALER: u8 = 3;

// R-DEAL-4: the shuffle is pinned forever: official rules, 4 players, seed 42.
#[test]
fn r_deal_4_seed_42_pinned() {
    let (g, events) = Game::start(&Setup::seeded(
        RuleSpec::new(canasta_engine::Preset::Official, 4),
        42,
    ))
    .unwrap();
    let start = deal_start(&events);
    assert_eq!(start.dealer, Seat(SEED_42_DEALER));
    assert_eq!(g.dealer(), Seat(SEED_42_DEALER));
    assert_eq!(start.hands[0], Some(cards(SEED_42_HAND)));
    assert_eq!(start.pile, list(SEED_42_PILE));
    assert_eq!(g.pile(), &list(SEED_42_PILE)[..]);
}

// R-DEAL-4: a game from an explicit card order deals exactly that order: one card at a time
// clockwise from the dealer's left, then the upcard, the rest is the stock.
#[test]
fn r_deal_4_explicit_card_order_is_dealt_as_given() {
    // The pack reversed: jokers first, then aces down to twos.
    let mut deck = pack(2, 4);
    deck.reverse();
    let setup = Setup {
        rules: spec(4, &[]),
        card_orders: vec![deck.clone()],
        first_dealer: Some(Seat(1)),
        ..Setup::default()
    };
    let (g, events) = Game::start(&setup).unwrap();
    let start = deal_start(&events);
    // Seat 2 (the dealer's left) gets cards 0, 4, 8, ...; seat 1, the dealer, cards 3, 7, ...
    for (k, seat) in [2u8, 3, 0, 1].into_iter().enumerate() {
        let want = canasta_engine::CardCounts::from_cards((0..11).map(|r| deck[4 * r + k]));
        assert_eq!(start.hands[seat as usize], Some(want), "seat {seat}");
    }
    // The upcard procedure turns cards from card 44 on until a natural one shows.
    let natural = (44..).find(|&i| deck[i].is_natural()).unwrap();
    assert_eq!(start.pile, deck[44..=natural].to_vec());
    assert_eq!(g.stock().last(), Some(&deck[natural + 1]));
    assert_eq!(g.stock().first(), Some(deck.last().unwrap()));
}

// R-DEAL-4: a card order that is not the pack is refused with a message naming the card.
#[test]
fn r_deal_4_bad_card_order_refused() {
    let create = |orders: Vec<Vec<Card>>| {
        let setup = Setup {
            rules: spec(4, &[]),
            card_orders: orders,
            ..Setup::default()
        };
        let err = Game::new(&setup).unwrap_err();
        assert_eq!(err.code(), "BAD_CARD_ORDER", "{err}");
        err.to_string()
    };
    // One king of spades replaced by a third queen of hearts.
    let mut deck = pack(2, 4);
    let ks = deck.iter().position(|&c| c == card("KS")).unwrap();
    deck[ks] = card("QH");
    let msg = create(vec![deck.clone()]);
    assert!(msg.contains("K♠") || msg.contains("Q♥"), "{msg}");
    assert!(msg.contains("deal 0"), "{msg}");
    // A card missing: 107 cards.
    let mut short = pack(2, 4);
    let jk = short.iter().position(|&c| c == Card::JOKER).unwrap();
    short.remove(jk);
    let msg = create(vec![short]);
    assert!(msg.contains("Jk"), "{msg}");
    // Cards added: a pack and twenty more kings of spades. The message counts them all, past
    // what a count of cards holds (15 of a card).
    let mut long = pack(2, 4);
    long.extend(std::iter::repeat_n(card("KS"), 20));
    let msg = create(vec![long]);
    assert!(
        msg.contains("it has 22 of K♠ where the pack has 2"),
        "{msg}"
    );
    // A bad order for the second deal is refused as well, naming that deal.
    let msg = create(vec![pack(2, 4), deck]);
    assert!(msg.contains("deal 1"), "{msg}");
}

// ----- R-DEAL-5: the upcard -----

// R-DEAL-5: a natural first upcard stands alone; the pile is neither frozen nor blocked.
#[test]
fn r_deal_5_natural_upcard_alone() {
    let g = arranged(4, &[], &[], "7D", "");
    assert_eq!(g.pile(), &list("7D")[..]);
    assert!(!g.pile_frozen());
    assert!(!g.pile_blocked());
    assert_eq!(g.stock().len(), 108 - 44 - 1);
}

// R-DEAL-5: a wild card turned first is covered by another card and freezes the pile.
#[test]
fn r_deal_5_wild_upcard_freezes() {
    for wild in ["Jk", "2C"] {
        let g = arranged(4, &[], &[], &format!("{wild} 7D"), "");
        assert_eq!(g.pile(), &list(&format!("{wild} 7D"))[..]);
        assert!(g.pile_frozen(), "{wild}");
        assert!(!g.pile_blocked(), "{wild}: covered by a natural card");
        assert_eq!(g.stock().len(), 108 - 44 - 2);
    }
}

// R-DEAL-5: a red three turned first is covered, stays in the pile and freezes it.
#[test]
fn r_deal_5_red_three_upcard_freezes() {
    let g = arranged(4, &[], &[], "3H 7D", "");
    assert_eq!(g.pile(), &list("3H 7D")[..]);
    assert!(g.pile_frozen());
    assert!(g.red_threes(Seat(0)).is_empty());
}

// R-DEAL-5: a black three turned first is covered and does not freeze the pile.
#[test]
fn r_deal_5_black_three_upcard_does_not_freeze() {
    let g = arranged(4, &[], &[], "3S 7D", "");
    assert_eq!(g.pile(), &list("3S 7D")[..]);
    assert!(!g.pile_frozen());
    assert!(!g.pile_blocked());
}

// R-DEAL-5: cards are turned as long as wild cards and threes show.
#[test]
fn r_deal_5_several_upcards() {
    let g = arranged(4, &[], &[], "3C 2H 3S Jk 9S", "");
    assert_eq!(g.pile(), &list("3C 2H 3S Jk 9S")[..]);
    assert!(g.pile_frozen());
    assert_eq!(g.stock().len(), 108 - 44 - 5);
    let g = arranged(4, &[], &[], "3C 3S 9S", "");
    assert!(!g.pile_frozen());
}

// ----- R-RED: red threes -----

/// A red three laid by `seat` from `source`.
fn laid(seat: u8, c: &str, source: RedThreeSource) -> Event {
    Event::RedThreeLaid {
        seat: Seat(seat),
        card: card(c),
        source,
    }
}

/// Cards drawn by `seat`.
fn drew(seat: u8, cards_text: &str) -> Event {
    let cards = list(cards_text);
    Event::Drew {
        seat: Seat(seat),
        count: cards.len() as u8,
        cards: Some(cards.into_iter().collect()),
    }
}

// R-RED-1: dealt red threes are laid at the start of the player's first turn and replaced
// from the stock; a player who has not had a turn yet still holds his.
#[test]
fn r_red_1_dealt_red_threes_laid_and_replaced() {
    // Both decks' three of hearts: each is laid, in card order.
    let setup = setup_one(spec(4, &[]), &["3H 3D KS 3H", "3D"], "7D", "QS QH JC 9C");
    let (mut g, events) = Game::start(&setup).unwrap();
    assert_eq!(
        events[1..],
        [
            Event::TurnStarted { seat: Seat(0) },
            laid(0, "3D", RedThreeSource::Dealt),
            laid(0, "3H", RedThreeSource::Dealt),
            laid(0, "3H", RedThreeSource::Dealt),
            drew(0, "QS QH JC"),
        ]
    );
    assert_eq!(*g.red_threes(Seat(0)), cards("3D 3H 3H"));
    let hand = *g.hand(Seat(0));
    assert_eq!(hand.len(), 11);
    assert_eq!(hand.red_threes(), 0);
    assert_eq!((hand.count(card("QS")), hand.count(card("QH"))), (1, 1));
    assert_eq!(hand.count(card("JC")), 1);
    assert_eq!(g.stock().last(), Some(&card("9C")));
    assert_eq!(g.phase(), Phase::Draw);
    // Seat 1 lays his red three only when his first turn begins.
    assert_eq!(g.hand(Seat(1)).count(card("3D")), 1);
    assert!(g.red_threes(Seat(1)).is_empty());
    act(&mut g, 0, Action::DrawStock);
    let ev = act(&mut g, 0, discard("9C"));
    assert!(ev.contains(&laid(1, "3D", RedThreeSource::Dealt)), "{ev:?}");
    assert_eq!(*g.red_threes(Seat(1)), cards("3D"));
    assert_eq!(g.hand(Seat(1)).len(), 11);
    assert_eq!(g.hand(Seat(1)).red_threes(), 0);
}

// R-RED-1: a replacement that is a red three is laid and replaced too.
#[test]
fn r_red_1_red_three_replacement_replaced_again() {
    let setup = setup_one(spec(4, &[]), &["3H"], "7D", "3D 9S 8S");
    let (g, events) = Game::start(&setup).unwrap();
    assert_eq!(
        events[1..],
        [
            Event::TurnStarted { seat: Seat(0) },
            laid(0, "3H", RedThreeSource::Dealt),
            laid(0, "3D", RedThreeSource::Drawn),
            drew(0, "9S"),
        ]
    );
    assert_eq!(*g.red_threes(Seat(0)), cards("3D 3H"));
    assert_eq!(g.hand(Seat(0)).len(), 11);
    assert_eq!(g.hand(Seat(0)).count(card("9S")), 1);
    assert_eq!(g.stock().last(), Some(&card("8S")));
}

// R-RED-2: a red three drawn from the stock is laid and replaced at once.
#[test]
fn r_red_2_drawn_red_three_laid_and_replaced() {
    let mut g = arranged(4, &[], &[""], "7D", "3H 8C 9C");
    let stock = g.stock().len();
    let ev = act(&mut g, 0, Action::DrawStock);
    assert_eq!(
        ev,
        vec![laid(0, "3H", RedThreeSource::Drawn), drew(0, "8C")]
    );
    assert_eq!(*g.red_threes(Seat(0)), cards("3H"));
    assert_eq!(g.hand(Seat(0)).len(), 12);
    assert_eq!(g.hand(Seat(0)).red_threes(), 0);
    assert_eq!(g.stock().len(), stock - 2);
    assert_eq!(g.stock().last(), Some(&card("9C")));
    assert_eq!(g.phase(), Phase::Play);
}

// R-RED-2: with a draw of two, red threes among the drawn cards are laid and replaced, and
// two cards are kept.
#[test]
fn r_red_2_drawn_red_threes_with_draw_of_two() {
    let mut g = arranged(2, &[], &[""], "7D", "3H KS 3D QS 9C");
    let ev = act(&mut g, 0, Action::DrawStock);
    assert_eq!(
        ev,
        vec![
            laid(0, "3H", RedThreeSource::Drawn),
            laid(0, "3D", RedThreeSource::Drawn),
            drew(0, "KS QS"),
        ]
    );
    assert_eq!(*g.red_threes(Seat(0)), cards("3D 3H"));
    assert_eq!(g.hand(Seat(0)).len(), 17);
    assert_eq!(g.stock().last(), Some(&card("9C")));
}

// R-RED-3: a red three turned as an upcard comes with the taken pile: it is laid and not
// replaced.
#[test]
fn r_red_3_red_three_from_pile_laid_without_replacement() {
    let mut g = arranged(4, &[], &["7C 7S AS AH AD"], "3H 7D", "9C");
    assert!(g.pile_frozen());
    let stock = g.stock().to_vec();
    let ev = act(&mut g, 0, take_new("7C 7S", &[new_meld("AS AH AD")]));
    assert!(ev.contains(&laid(0, "3H", RedThreeSource::Pile)), "{ev:?}");
    assert!(
        !ev.iter().any(|e| matches!(e, Event::Drew { .. })),
        "{ev:?}"
    );
    assert_eq!(*g.red_threes(Seat(0)), cards("3H"));
    assert_eq!(g.hand(Seat(0)).len(), 11 - 5);
    assert_eq!(g.hand(Seat(0)).red_threes(), 0);
    assert_eq!(g.stock(), &stock[..], "no replacement is drawn");
    assert!(g.pile().is_empty());
    assert_eq!(g.melds(Side(0)).len(), 2);
    assert_eq!(g.melds(Side(0))[0].cards, cards("7C 7D 7S"));
}

/// Every special card (wild cards and black threes) for seat 1 of the short-stock deal.
const SPECIALS: &str = "Jk Jk Jk Jk 2C 2C 2D 2D 2H 2H 2S 2S 3C 3C 3S 3S";

// R-RED-4: when the last stock card is a red three, the player lays it and the deal ends at
// once: no meld, no discard. Two players with 43 cards each leave a stock of 21 under the
// upcard 9♣: seat 0's three dealt red threes take 4♣ 4♦ 4♥, then each turn draws two.
#[test]
fn r_red_4_last_stock_card_red_three_ends_deal() {
    let stock = "4C 4D 4H 4S 5C 5D 5H 5S 6C 6D 6H 6S 7C 7D 7H 7S 8C 8D 8H 8S 3H";
    let mut g = arranged(
        2,
        &[("hand_size", "43")],
        &["3H 3D 3D", SPECIALS],
        "9C",
        stock,
    );
    assert_eq!(g.stock().len(), 18);
    assert_eq!(*g.red_threes(Seat(0)), cards("3D 3D 3H"));
    for (seat, c) in [
        (0, "4S"),
        (1, "5D"),
        (0, "5S"),
        (1, "6D"),
        (0, "6S"),
        (1, "7D"),
        (0, "7S"),
        (1, "8D"),
    ] {
        draw_discard(&mut g, seat, c);
    }
    assert_eq!(g.stock().len(), 2);
    let eights = g.hand(Seat(0)).count(card("8S"));
    let ev = act(&mut g, 0, Action::DrawStock);
    // 8♠ is kept, the red three is laid and the deal ends without a discard.
    assert_eq!(ev[0], laid(0, "3H", RedThreeSource::Drawn));
    assert_eq!(ev[1], drew(0, "8S"));
    assert!(
        !ev.iter()
            .any(|e| matches!(e, Event::Discarded { .. } | Event::Melded { .. }))
    );
    let end = finish(&ev);
    assert_eq!(end.score.end, DealEnd::LastRedThree { seat: Seat(0) });
    assert_eq!(end.hands[0].len(), 43 + 4 + 1);
    assert_eq!(end.hands[0].count(card("8S")), eights + 1);
    // All four red threes, not melded: minus 800 (R-RED-5); nobody went out.
    let s0 = end.score.sides[0];
    assert_eq!(
        (s0.red_threes, s0.red_three_bonus, s0.going_out_bonus),
        (4, -800, 0)
    );
    assert_eq!(end.score.sides[1].red_three_bonus, 0);
    assert_eq!(g.deal_number(), 1);
    assert_eq!(g.phase(), Phase::Draw);
}

// R-RED-5: 100 a red three, plus for a side that has melded, minus for one that has not.
// Seat 0 lays one, seat 1 two; seat 2 goes out concealed on his first turn.
#[test]
fn r_red_5_hundred_each_minus_without_meld() {
    let mut g = arranged(
        4,
        &[],
        &["3H", "3D 3D", OUT_HAND],
        "7D",
        "9C 9D 10C 10D 10H 5H",
    );
    draw_discard(&mut g, 0, "9D");
    draw_discard(&mut g, 1, "10H");
    assert_eq!(*g.red_threes(Seat(1)), cards("3D 3D"));
    go_out_concealed(&mut g, 2);
    let r = last_report(&g);
    let (s0, s1) = (r.sides[0], r.sides[1]);
    assert_eq!((s0.red_threes, s0.red_three_bonus), (1, 100));
    assert_eq!((s1.red_threes, s1.red_three_bonus), (2, -200));
    assert_eq!(s0.total, s0.sum_of_items());
    assert_eq!(s1.total, s1.sum_of_items());
}

// R-RED-5: all four red threes score 800. Seat 0's four dealt red threes are replaced by the
// king and queens he needs to go out concealed.
#[test]
fn r_red_5_all_four_score_800() {
    let mut g = arranged(
        4,
        &[],
        &["3H 3H 3D 3D KS KS KH KH KD KD KC"],
        "7D",
        "KC QS QH QD 5H",
    );
    assert_eq!(g.red_threes(Seat(0)).len(), 4);
    assert_eq!(*g.hand(Seat(0)), cards(OUT_HAND));
    let ev = go_out_concealed(&mut g, 0);
    let end = finish(&ev);
    let s0 = end.score.sides[0];
    assert_eq!((s0.red_threes, s0.red_three_bonus), (4, 800));
    // 110 melded, natural canasta 500, concealed 200, red threes 800, minus seat 2's cards.
    let partner = end.hands[2].value() as i32;
    assert_eq!(s0.total, 110 + 500 + 200 + 800 - partner);
}

/// Six players in three pairs (three decks, six red threes): seat 0 is dealt `red` red threes
/// and goes out concealed with two canastas of seven on his first turn.
fn six_player_red_threes(red: &str, rest: &str, stock: &str) -> canasta_engine::SideScore {
    let hand = format!("{red} {rest}");
    let mut g = arranged(6, &[], &[&hand], "7D", stock);
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        go_out(
            &[
                new_meld("KS KS KH KH KD KD KC"),
                new_meld("QS QS QH QH QD QD QC"),
            ],
            None,
        ),
    );
    let r = last_report(&g);
    assert_eq!(
        r.end,
        DealEnd::WentOut {
            seat: Seat(0),
            concealed: true
        }
    );
    let s = r.sides[0];
    assert_eq!(s.total, s.sum_of_items());
    assert_eq!(
        (s.melded_cards, s.canasta_bonus, s.going_out_bonus),
        (140, 1000, 200)
    );
    s
}

// R-RED-5: with three decks, five red threes score 1000 and six 1200.
#[test]
fn r_red_5_three_decks_five_and_six() {
    let s = six_player_red_threes(
        "3H 3H 3H 3D 3D",
        "KS KS KH KH KD KD KC QC",
        "QS QS QH QH QD QD",
    );
    assert_eq!((s.red_threes, s.red_three_bonus), (5, 1000));
    let s = six_player_red_threes(
        "3H 3H 3H 3D 3D 3D",
        "KS KS KH KH KD KD KC",
        "QS QS QH QH QD QD QC",
    );
    assert_eq!((s.red_threes, s.red_three_bonus), (6, 1200));
}

/// Seat 0 lays a red three and melds 90 without a canasta; seat 1 lays a red three and goes
/// out concealed with a canasta of eight queens. Returns the red-three bonuses of both sides.
fn red_threes_with(options: &[(&str, &str)]) -> (i32, i32) {
    let mut g = arranged(
        4,
        options,
        &["3H AS AH AD KS KH KD", "3D QS QS QH QH QD QD QC QC JS JH"],
        "7D",
        "9C 9D JD 5H",
    );
    act(&mut g, 0, Action::DrawStock);
    act(
        &mut g,
        0,
        meld(&[new_meld("AS AH AD"), new_meld("KS KH KD")]),
    );
    act(&mut g, 0, discard("9D"));
    act(&mut g, 1, Action::DrawStock);
    act(
        &mut g,
        1,
        go_out(
            &[new_meld("QS QS QH QH QD QD QC QC"), new_meld("JS JH JD")],
            Some("5H"),
        ),
    );
    let r = last_report(&g);
    assert_eq!((r.sides[0].red_threes, r.sides[1].red_threes), (1, 1));
    (r.sides[0].red_three_bonus, r.sides[1].red_three_bonus)
}

// R-RED-5: officially red threes count plus for a side that has melded, canasta or not.
#[test]
fn r_red_5_positive_after_initial_meld() {
    assert_eq!(red_threes_with(&[]), (100, 100));
}

// R-RED-5 option red_threes_positive=canasta: only a side with a canasta counts them plus.
#[test]
fn r_red_5_option_positive_only_with_canasta() {
    assert_eq!(
        red_threes_with(&[("red_threes_positive", "canasta")]),
        (-100, 100)
    );
}

// R-RED-6: red threes are never discarded or melded: naming one is refused and changes
// nothing (a red three never stays in the hand of a player at his turn).
#[test]
fn r_red_6_red_three_never_discarded_or_melded() {
    let mut g = arranged(4, &[], &["3H KS KH KD"], "7D", "9C 9D");
    assert_eq!(g.hand(Seat(0)).red_threes(), 0);
    act(&mut g, 0, Action::DrawStock);
    let msg = refuse(&mut g, 0, discard("3H"), "RED_THREE");
    assert!(msg.contains("never"), "{msg}");
    refuse(&mut g, 0, go_out(&[], Some("3H")), "RED_THREE");
    refuse(
        &mut g,
        0,
        go_out(&[new_meld("KS KH KD")], Some("3D")),
        "RED_THREE",
    );
    // A meld naming a red three is refused as such, before the cards held are counted.
    refuse(&mut g, 0, meld(&[new_meld("KS KH KD 3H")]), "RED_THREE");
    refuse(&mut g, 0, meld(&[new_meld("3H 3D 3D")]), "RED_THREE");
    assert!(
        !legal(&g)
            .iter()
            .any(|a| matches!(a, Action::Discard { card } if card.is_red_three())),
        "a red three is never a legal discard"
    );
}

// R-RED-6: a red three left in the hand of a player who never had a turn counts nothing.
// Seat 0 goes out concealed at once; his partner seat 2 still holds two red threes.
#[test]
fn r_red_6_red_three_in_unplayed_hand_counts_nothing() {
    let mut g = arranged(4, &[], &[OUT_HAND, "", "3H 3D"], "7D", "5H");
    let ev = go_out_concealed(&mut g, 0);
    let end = finish(&ev);
    assert_eq!(end.hands[2].red_threes(), 2);
    let s0 = end.score.sides[0];
    assert_eq!((s0.red_threes, s0.red_three_bonus), (0, 0));
    // Seat 2's other nine cards count against the side; the red threes count nothing.
    assert_eq!(s0.cards_in_hand, -SEAT2_LEFT);
    assert_eq!(SEAT2_LEFT, end.hands[2].value() as i32);
    assert_eq!(s0.total, 110 + 500 + 200 - SEAT2_LEFT);
}

/// The value of seat 2's hand in `r_red_6_red_three_in_unplayed_hand_counts_nothing`.
const SEAT2_LEFT: i32 = 85;
