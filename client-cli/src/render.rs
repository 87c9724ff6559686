//! What a person reads in the terminal: cards with suit symbols and colours, the table, and one
//! line per event.

use std::io::IsTerminal;

use canasta_engine::meld::MeldKind;
use canasta_engine::notation::card_ascii;
use canasta_engine::{Card, CardCounts, Rank, Suit, View, Viewer};
use canasta_proto::convert::card_from_wire;
use canasta_proto::v1;
use canasta_proto::v1::game_event::Kind;

use crate::cli::Color;

/// How to draw cards and text: suit symbols (`K♠`) or letters (`KS`), with colours or without.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Suit symbols instead of letters.
    symbols: bool,
    /// Colours and weights, as ANSI escape codes.
    color: bool,
}

const RED: anstyle::Style = anstyle::AnsiColor::Red.on_default();
const MAGENTA: anstyle::Style = anstyle::AnsiColor::Magenta.on_default();
const BOLD: anstyle::Style = anstyle::Style::new().bold();
const DIM: anstyle::Style = anstyle::Style::new().dimmed();

impl Style {
    /// From `--color`, for standard output. `always` and `never` decide whatever the
    /// environment says. `auto` leaves colours to anstream: none when `NO_COLOR` is set (not
    /// empty) or `CLICOLOR` is `0`; on when `CLICOLOR_FORCE` is set (not empty), even into a
    /// pipe or a file; otherwise on a terminal whose `TERM` is set and not `dumb`. Suit symbols
    /// come with colours, and on a terminal without them (`NO_COLOR` turns off colours, not
    /// symbols).
    pub fn from_flag(flag: Color) -> Style {
        match flag {
            Color::Always => Style {
                symbols: true,
                color: true,
            },
            Color::Never => Style {
                symbols: false,
                color: false,
            },
            Color::Auto => {
                let stdout = std::io::stdout();
                let color = anstream::AutoStream::choice(&stdout) != anstream::ColorChoice::Never;
                Style {
                    symbols: color || stdout.is_terminal(),
                    color,
                }
            }
        }
    }

    /// Plain text, for tests.
    #[cfg(test)]
    pub fn plain() -> Style {
        Style {
            symbols: false,
            color: false,
        }
    }

    /// `text` in `style`, if colours are on.
    fn paint(&self, style: anstyle::Style, text: &str) -> String {
        if self.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_string()
        }
    }

    /// A card: `K♠` (red for hearts and diamonds, magenta for a joker, when colours are on),
    /// or `KS` without symbols.
    pub fn card(&self, card: Card) -> String {
        if !self.symbols {
            return card_ascii(card);
        }
        let style = match card.suit() {
            None => MAGENTA,
            Some(s) if s.is_red() => RED,
            Some(_) => anstyle::Style::new(),
        };
        self.paint(style, &card.to_string())
    }

    /// Cards in a row.
    pub fn cards(&self, cards: impl IntoIterator<Item = Card>) -> String {
        cards
            .into_iter()
            .map(|c| self.card(c))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A hand sorted and grouped: naturals by rank, then threes, then wild cards.
    pub fn hand(&self, hand: &CardCounts) -> String {
        let mut groups: Vec<Vec<Card>> = Vec::new();
        let order = Rank::NATURALS
            .into_iter()
            .chain([Rank::Three, Rank::Two, Rank::Joker]);
        for rank in order {
            let mut group = Vec::new();
            for card in hand.iter().filter(|c| c.rank() == rank) {
                group.push(card);
            }
            if !group.is_empty() {
                groups.push(group);
            }
        }
        groups
            .into_iter()
            .map(|g| self.cards(g))
            .collect::<Vec<_>>()
            .join("  ")
    }

    /// Bold text.
    pub fn bold(&self, text: &str) -> String {
        self.paint(BOLD, text)
    }

    /// Faint text.
    pub fn dim(&self, text: &str) -> String {
        self.paint(DIM, text)
    }
}

fn name(names: &[String], seat: u32) -> String {
    match names.get(seat as usize) {
        Some(n) if !n.is_empty() => format!("{n} (seat {seat})"),
        _ => format!("seat {seat}"),
    }
}

/// The person at the terminal, when the events are told to a player: his own seat's doings
/// are told as "you draw", his side's as "your side".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Me {
    /// The player's seat.
    pub seat: u32,
    /// The seat's side.
    pub side: u32,
}

/// Whom events are told to: a player (`Some`), or a spectator.
#[derive(Clone, Copy, Debug)]
struct Teller<'a> {
    names: &'a [String],
    me: Option<Me>,
}

impl Teller<'_> {
    fn is_me(&self, seat: u32) -> bool {
        self.me.is_some_and(|m| m.seat == seat)
    }

    /// A seat as the subject of a verb, with the verb agreeing: "you draw", "ann (seat 1)
    /// draws". `you` is the verb after "you", `other` after a name.
    fn does(&self, seat: u32, you: &str, other: &str) -> String {
        if self.is_me(seat) {
            format!("you {you}")
        } else {
            format!("{} {other}", name(self.names, seat))
        }
    }

    /// A seat as an object: "you", or its name.
    fn whom(&self, seat: u32) -> String {
        if self.is_me(seat) {
            "you".into()
        } else {
            name(self.names, seat)
        }
    }

    /// A side: "your side (side 0)", or "side 1".
    fn side(&self, side: u32) -> String {
        if self.me.is_some_and(|m| m.side == side) {
            format!("your side (side {side})")
        } else {
            format!("side {side}")
        }
    }
}

fn wire_cards(style: &Style, cards: &[v1::Card]) -> String {
    style.cards(cards.iter().filter_map(|c| card_from_wire(c, "card").ok()))
}

fn placed(style: &Style, placed: &[v1::Placed]) -> String {
    placed
        .iter()
        .map(|p| {
            let cards = wire_cards(style, &p.cards);
            if p.new_meld {
                format!("new meld {} [{cards}]", p.meld_index)
            } else {
                format!("[{cards}] on meld {}", p.meld_index)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// One line telling an event to a spectator, or `None` for events not worth a line.
pub fn event(style: &Style, e: &v1::GameEvent, names: &[String]) -> Option<String> {
    event_for(style, e, names, None)
}

/// One line telling an event to the player `me` (his seat's doings as "you …"), or to a
/// spectator (`None`); `None` for events not worth a line.
pub fn event_for(
    style: &Style,
    e: &v1::GameEvent,
    names: &[String],
    me: Option<Me>,
) -> Option<String> {
    let t = Teller { names, me };
    let Some(kind) = e.kind.as_ref() else {
        // A kind this client does not know (a newer server's), or an event the protocol has
        // no message for: something happened all the same.
        return Some(format!(
            "event {}: something happened that this client cannot show",
            e.seq
        ));
    };
    let line = match kind {
        Kind::SeatJoined(j) => t.does(j.seat, "joined", "joined"),
        Kind::SeatLeft(l) => t.does(l.seat, "left", "left"),
        Kind::GameStarted(_) => style.bold("the match begins"),
        Kind::DealStarted(d) => {
            let mut line = style.bold(&format!(
                "deal {} — {}; the pile starts with {}",
                d.deal + 1,
                t.does(d.dealer, "deal", "deals"),
                wire_cards(style, &d.pile)
            ));
            if let Some(cutter) = d.cutter
                && !d.cut_cards.is_empty()
            {
                line += &format!(
                    "; {} {} from the cut",
                    t.does(cutter, "keep", "keeps"),
                    wire_cards(style, &d.cut_cards)
                );
            }
            line
        }
        Kind::TurnStarted(_) => return None,
        Kind::RedThreeLaid(r) => format!(
            "{} {}",
            t.does(r.seat, "lay the red three", "lays the red three"),
            r.card.map(|c| wire_cards(style, &[c])).unwrap_or_default()
        ),
        Kind::Drew(d) => {
            let drawn = if d.cards.is_empty() {
                count(d.count)
            } else {
                wire_cards(style, &d.cards)
            };
            format!("{} {drawn}", t.does(d.seat, "draw", "draws"))
        }
        Kind::PileTaken(p) => format!(
            "{} the pile of {} with the {}: {}",
            t.does(p.seat, "take", "takes"),
            count(p.picked_up.len() as u32 + 1),
            p.top.map(|c| wire_cards(style, &[c])).unwrap_or_default(),
            placed(style, &p.placed)
        ),
        Kind::Melded(m) => format!(
            "{} {}",
            t.does(m.seat, "meld", "melds"),
            placed(style, &m.placed)
        ),
        Kind::Discarded(d) => {
            let mut line = format!(
                "{} {}",
                t.does(d.seat, "discard", "discards"),
                d.card.map(|c| wire_cards(style, &[c])).unwrap_or_default()
            );
            if d.blocks {
                line += " (the pile is blocked for the next player)";
            } else if d.frozen {
                line += " (the pile is frozen)";
            }
            line
        }
        Kind::AskedPartner(a) => format!(
            "{} {}: may I go out?",
            t.does(a.seat, "ask", "asks"),
            t.whom(a.partner)
        ),
        Kind::PartnerAnswered(a) => format!(
            "{} {}",
            t.does(a.seat, "answer", "answers"),
            if a.yes { "yes" } else { "no" }
        ),
        Kind::Penalty(p) => {
            let why = match p.reason.as_str() {
                "DID_NOT_GO_OUT_AFTER_YES" => {
                    "its player, told yes by his partner, did not go out".to_string()
                }
                other => other.to_string(),
            };
            style.bold(&format!(
                "{} loses {} points: {why} (taken from the deal's score)",
                t.side(p.side),
                p.points
            ))
        }
        Kind::WentOut(w) => {
            let mut line = t.does(w.seat, "go out", "goes out");
            if w.concealed {
                line += " concealed";
            }
            if !w.placed.is_empty() {
                line += &format!(", melding {}", placed(style, &w.placed));
            }
            if let Some(d) = w.discard {
                line += &format!(", discarding {}", wire_cards(style, &[d]));
            }
            style.bold(&line)
        }
        Kind::PileDeclined(p) => format!(
            "{} the pile: the deal ends",
            t.does(p.seat, "decline", "declines")
        ),
        Kind::DealEnded(d) => {
            let score = d.score.clone().unwrap_or_default();
            let mut line = style.bold(&format!("deal {} ends", score.deal + 1));
            for s in &score.sides {
                line += &format!(
                    "\n  {}: {:+} (melds {}, canastas {}, red threes {}, going out {}, hands {}, penalties {}) — total {}",
                    t.side(s.side),
                    s.total,
                    s.melded_cards,
                    s.canasta_bonus,
                    s.red_three_bonus,
                    s.going_out_bonus,
                    s.cards_in_hand,
                    s.penalties,
                    s.cumulative
                );
            }
            line
        }
        Kind::MatchEnded(m) => {
            let r = m.result.clone().unwrap_or_default();
            let who = match r.winner_side {
                Some(s) => format!("{} wins", t.side(s)),
                None => no_winner(&r).to_string(),
            };
            style.bold(&format!(
                "the match is over: {who}, {}",
                r.totals
                    .iter()
                    .enumerate()
                    .map(|(i, t)| format!("side {i} {t}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        }
        Kind::TimedOut(o) => {
            if t.is_me(o.seat) {
                "your time ran out".to_string()
            } else {
                format!("{}'s time ran out", name(names, o.seat))
            }
        }
    };
    Some(format!("{} {line}", style.dim(&format!("#{:<4}", e.seq))))
}

/// How a match without a winner ended.
pub fn no_winner(r: &v1::MatchResult) -> &'static str {
    match v1::MatchEndKind::try_from(r.end) {
        Ok(v1::MatchEndKind::Abandoned) => "abandoned, nobody played: no side wins",
        Ok(v1::MatchEndKind::Expired) => "expired before every seat was taken: no side wins",
        Ok(v1::MatchEndKind::Cancelled) => {
            "cancelled by its creator before it started: no side wins"
        }
        _ => "side ? wins",
    }
}

fn count(n: u32) -> String {
    if n == 1 {
        "1 card".into()
    } else {
        format!("{n} cards")
    }
}

fn meld_text(style: &Style, m: &canasta_engine::Meld) -> String {
    let label = match m.kind {
        MeldKind::Group(r) => r.plural().to_string(),
        MeldKind::Sequence(s) => format!("sequence of {}", suit_name(s)),
        MeldKind::BlackThrees => "black threes".into(),
        MeldKind::Wild => "wild cards".into(),
        // A kind of a newer engine: named as it is known.
        kind => format!("{kind:?}").to_lowercase(),
    };
    let canasta = match m.canasta() {
        Some(k) => format!(" {}", style.bold(&format!("{k:?} canasta").to_lowercase())),
        None => String::new(),
    };
    format!("{label} [{}]{canasta}", style.cards(m.cards.iter()))
}

fn suit_name(s: Suit) -> &'static str {
    match s {
        Suit::Clubs => "clubs",
        Suit::Diamonds => "diamonds",
        Suit::Hearts => "hearts",
        Suit::Spades => "spades",
    }
}

/// The table as the viewer sees it: scores, melds, red threes, the pile, the counts, the hand.
pub fn table(style: &Style, view: &View, names: &[String]) -> String {
    let mut out = String::new();
    out += &style.bold(&format!("— deal {} —", view.deal + 1));
    out += "\n";
    for side in &view.sides {
        let members: Vec<String> = side
            .members
            .iter()
            .map(|m| name(names, m.0 as u32))
            .collect();
        // The score is the side's before this deal: a penalty of this deal shows beside it
        // until the deal is scored, or the table would say nothing of it.
        let mut score = format!("score {}", side.score);
        if side.penalties != 0 {
            score += &format!(", {} in penalties this deal", -side.penalties);
        }
        if !side.melded {
            score += &format!(", needs {} to meld", side.minimum);
        }
        out += &format!("side {} ({}): {score}\n", side.side.0, members.join(", "));
        for (i, m) in side.melds.iter().enumerate() {
            out += &format!("   {i}: {}\n", meld_text(style, m));
        }
    }
    for s in &view.seats {
        let mut line = format!("{}: {}", name(names, s.seat.0 as u32), count(s.hand_len));
        if !s.red_threes.is_empty() {
            line += &format!(", red threes {}", style.cards(s.red_threes.iter()));
        }
        if !s.playing {
            line += " (sits out)";
        }
        out += &format!("   {line}\n");
    }
    let top = match view.pile.last() {
        Some(&c) => style.card(c),
        None => "(empty)".into(),
    };
    let mut pile = format!("pile: {}, top {top}", count(view.pile.len() as u32));
    if view.pile_frozen {
        pile += ", frozen";
    }
    if view.pile_blocked {
        pile += ", blocked";
    }
    out += &format!("{pile}; stock: {}\n", count(view.stock_len));
    if let Some(hand) = hand_line(style, view) {
        out += &hand;
        out += "\n";
    }
    out
}

/// The viewer's hand, `your hand: …`, if the viewer is a seat.
pub fn hand_line(style: &Style, view: &View) -> Option<String> {
    let Viewer::Seat(me) = view.viewer else {
        return None;
    };
    let hand = view.seats.get(me.index())?.hand.as_ref()?;
    Some(format!("your hand: {}", style.hand(hand)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use canasta_engine::parse_cards;

    #[test]
    fn a_match_without_a_winner_says_how_it_ended() {
        let ended = |end: v1::MatchEndKind| {
            no_winner(&v1::MatchResult {
                finished: true,
                end: end as i32,
                ..Default::default()
            })
        };
        assert!(ended(v1::MatchEndKind::Abandoned).contains("nobody played"));
        assert!(ended(v1::MatchEndKind::Expired).contains("expired"));
        assert!(ended(v1::MatchEndKind::Cancelled).contains("cancelled by its creator"));
    }

    #[test]
    fn plain_hands_are_sorted_and_grouped() {
        let hand = CardCounts::from_cards(parse_cards("Jk KS 4D KH 2C 3S 4C").unwrap());
        assert_eq!(Style::plain().hand(&hand), "4C 4D  KH KS  3S  2C  Jk");
    }

    fn card(text: &str) -> Option<v1::Card> {
        Some(canasta_proto::convert::card_to_wire(text.parse().unwrap()))
    }

    /// An event of each kind a seat does, by `seat` (its partner seat 2, its side 0).
    fn doings(seat: u32) -> Vec<Kind> {
        let placed = vec![v1::Placed {
            meld_index: 0,
            cards: vec![card("KS").unwrap(); 3],
            new_meld: true,
        }];
        vec![
            Kind::DealStarted(Box::new(v1::DealStarted {
                dealer: seat,
                pile: vec![card("9C").unwrap()],
                cutter: Some(seat),
                cut_cards: vec![card("2C").unwrap()],
                ..Default::default()
            })),
            Kind::RedThreeLaid(v1::RedThreeLaid {
                seat,
                card: card("3H"),
                ..Default::default()
            }),
            Kind::Drew(v1::Drew {
                seat,
                count: 1,
                cards: vec![card("QH").unwrap()],
            }),
            Kind::PileTaken(v1::PileTaken {
                seat,
                top: card("KS"),
                placed: placed.clone(),
                picked_up: vec![card("4D").unwrap()],
            }),
            Kind::Melded(v1::Melded { seat, placed }),
            Kind::Discarded(v1::Discarded {
                seat,
                card: card("9D"),
                ..Default::default()
            }),
            Kind::AskedPartner(v1::AskedPartner {
                seat,
                partner: (seat + 2) % 4,
            }),
            Kind::PartnerAnswered(v1::PartnerAnswered {
                seat,
                asker: (seat + 2) % 4,
                yes: true,
            }),
            Kind::WentOut(v1::WentOut {
                seat,
                ..Default::default()
            }),
            Kind::PileDeclined(v1::PileDeclined { seat }),
            Kind::TimedOut(v1::TimedOut {
                seat,
                ..Default::default()
            }),
        ]
    }

    fn told(kind: Kind, me: Option<Me>) -> String {
        let names = ["you", "ann", "bob", "cy"].map(String::from);
        let e = v1::GameEvent {
            seq: 7,
            kind: Some(kind),
        };
        event_for(&Style::plain(), &e, &names, me).unwrap()
    }

    // Regression: the player's own moves read "you (seat 0) draws Q♥", "… lays the red three".
    #[test]
    fn the_players_own_moves_are_told_in_the_second_person() {
        let me = Some(Me { seat: 0, side: 0 });
        let lines: Vec<String> = doings(0).into_iter().map(|k| told(k, me)).collect();
        let expected = [
            "deal 1 — you deal; the pile starts with 9C; you keep 2C from the cut",
            "you lay the red three 3H",
            "you draw QH",
            "you take the pile of 2 cards with the KS: new meld 0 [KS KS KS]",
            "you meld new meld 0 [KS KS KS]",
            "you discard 9D",
            "you ask bob (seat 2): may I go out?",
            "you answer yes",
            "you go out",
            "you decline the pile: the deal ends",
            "your time ran out",
        ];
        for (line, want) in lines.iter().zip(expected) {
            assert_eq!(line, &format!("#7    {want}"));
        }
        // Another seat's moves, told to the player or to a spectator, in the third person.
        for viewer in [me, None] {
            let lines: Vec<String> = doings(1).into_iter().map(|k| told(k, viewer)).collect();
            for (line, verb) in lines.iter().zip([
                "deals", "lays", "draws", "takes", "melds", "discards", "asks", "answers",
                "goes out", "declines",
            ]) {
                assert!(line.contains(&format!("ann (seat 1) {verb}")), "{line}");
            }
            assert!(lines.iter().all(|l| !l.contains("you")), "{lines:?}");
            assert!(lines[10].ends_with("ann (seat 1)'s time ran out"));
        }
        // Asked by the partner, and a spectator's view of the player's seat.
        let asked = told(doings(2).swap_remove(6), me);
        assert_eq!(asked, "#7    bob (seat 2) asks you: may I go out?");
        let drew = told(doings(0).swap_remove(2), None);
        assert_eq!(drew, "#7    you (seat 0) draws QH");
    }

    #[test]
    fn a_penalty_says_whose_side_and_why() {
        let penalty = Kind::Penalty(v1::Penalty {
            side: 0,
            points: 100,
            reason: "DID_NOT_GO_OUT_AFTER_YES".into(),
        });
        let line = told(penalty.clone(), Some(Me { seat: 2, side: 0 }));
        assert!(
            line.contains("your side (side 0) loses 100 points: its player, told yes"),
            "{line}"
        );
        let line = told(penalty, Some(Me { seat: 1, side: 1 }));
        assert!(line.contains("#7    side 0 loses 100 points"), "{line}");
    }

    // Regression: after a penalty of 100 the table still said "score 0", with no word of it.
    #[test]
    fn the_table_shows_this_deals_penalties_beside_the_score() {
        use canasta_engine::{Game, Preset, RuleSpec, Seat, Setup};
        let game = Game::new(&Setup::seeded(RuleSpec::new(Preset::Official, 4), 1)).unwrap();
        let mut view = game.view(Viewer::Seat(Seat(0)));
        let names = ["you", "ann", "bob", "cy"].map(String::from);
        let shown = table(&Style::plain(), &view, &names);
        assert!(
            shown.contains("side 0 (you (seat 0), bob (seat 2)): score 0, needs 50 to meld\n"),
            "{shown}"
        );
        view.sides[0].penalties = 100;
        let shown = table(&Style::plain(), &view, &names);
        assert!(
            shown.contains(
                "side 0 (you (seat 0), bob (seat 2)): score 0, -100 in penalties this deal, \
                 needs 50 to meld\n"
            ),
            "{shown}"
        );
        let hand = hand_line(&Style::plain(), &view).unwrap();
        assert!(hand.starts_with("your hand: "), "{hand}");
        assert!(shown.ends_with(&format!("{hand}\n")), "{shown}");
    }

    // An event without a kind is not dropped in silence: the player learns something
    // happened that this client cannot show.
    #[test]
    fn an_event_of_an_unknown_kind_gets_a_line() {
        let e = v1::GameEvent { seq: 7, kind: None };
        let line = event(&Style::plain(), &e, &[]).expect("a line");
        assert!(line.starts_with("event 7: something happened"), "{line}");
    }

    #[test]
    fn colours_mark_red_suits_and_jokers_with_the_same_codes_as_ever() {
        let style = Style {
            symbols: true,
            color: true,
        };
        let card = |text: &str| style.card(text.parse().unwrap());
        assert_eq!(card("KH"), "\x1b[31mK♥\x1b[0m");
        assert_eq!(card("10D"), "\x1b[31m10♦\x1b[0m");
        assert_eq!(card("KS"), "K♠");
        assert_eq!(card("Jk"), "\x1b[35mJk\x1b[0m");
        assert_eq!(style.bold("you"), "\x1b[1myou\x1b[0m");
        assert_eq!(style.dim("seat 2"), "\x1b[2mseat 2\x1b[0m");
    }

    #[test]
    fn symbols_without_colours_have_no_escape_codes() {
        // What a terminal gets with NO_COLOR set.
        let style = Style {
            symbols: true,
            color: false,
        };
        let hand = CardCounts::from_cards(parse_cards("KH KS 2C Jk").unwrap());
        assert_eq!(style.hand(&hand), "K♥ K♠  2♣  Jk");
        assert_eq!(style.bold("you"), "you");
        assert_eq!(style.dim("seat 2"), "seat 2");
    }
}
