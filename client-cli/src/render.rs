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

/// How to draw cards: with colours and suit symbols on a terminal, plain ASCII otherwise.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    color: bool,
}

const RED: &str = "\x1b[31m";
const MAGENTA: &str = "\x1b[35m";
const BOLD: &str = "\x1b[1m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

impl Style {
    /// From `--color`: auto (a terminal gets colours), always, never.
    pub fn from_flag(flag: Color) -> Style {
        let color = match flag {
            Color::Always => true,
            Color::Never => false,
            Color::Auto => std::io::stdout().is_terminal(),
        };
        Style { color }
    }

    /// Plain text, for tests.
    #[cfg(test)]
    pub fn plain() -> Style {
        Style { color: false }
    }

    /// A card: `K♠` in colour on a terminal, `KS` otherwise.
    pub fn card(&self, card: Card) -> String {
        if !self.color {
            return card_ascii(card);
        }
        match card.suit() {
            None => format!("{MAGENTA}Jk{RESET}"),
            Some(s) if s.is_red() => format!("{RED}{card}{RESET}"),
            Some(_) => card.to_string(),
        }
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
        if self.color {
            format!("{BOLD}{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    /// Faint text.
    pub fn dim(&self, text: &str) -> String {
        if self.color {
            format!("{DIM}{text}{RESET}")
        } else {
            text.to_string()
        }
    }
}

fn name(names: &[String], seat: u32) -> String {
    match names.get(seat as usize) {
        Some(n) if !n.is_empty() => format!("{n} (seat {seat})"),
        _ => format!("seat {seat}"),
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

/// One line telling an event, or `None` for events not worth a line.
pub fn event(style: &Style, e: &v1::GameEvent, names: &[String]) -> Option<String> {
    let line = match e.kind.as_ref()? {
        Kind::SeatJoined(j) => format!("{} joined", name(names, j.seat)),
        Kind::SeatLeft(l) => format!("{} left", name(names, l.seat)),
        Kind::GameStarted(_) => style.bold("the match begins"),
        Kind::DealStarted(d) => {
            let mut line = style.bold(&format!(
                "deal {} — {} deals; the pile starts with {}",
                d.deal + 1,
                name(names, d.dealer),
                wire_cards(style, &d.pile)
            ));
            if let Some(cutter) = d.cutter
                && !d.cut_cards.is_empty()
            {
                line += &format!(
                    "; {} keeps {} from the cut",
                    name(names, cutter),
                    wire_cards(style, &d.cut_cards)
                );
            }
            line
        }
        Kind::TurnStarted(_) => return None,
        Kind::RedThreeLaid(r) => format!(
            "{} lays the red three {}",
            name(names, r.seat),
            r.card.map(|c| wire_cards(style, &[c])).unwrap_or_default()
        ),
        Kind::Drew(d) => {
            if d.cards.is_empty() {
                format!("{} draws {}", name(names, d.seat), count(d.count))
            } else {
                format!(
                    "{} draws {}",
                    name(names, d.seat),
                    wire_cards(style, &d.cards)
                )
            }
        }
        Kind::PileTaken(p) => format!(
            "{} takes the pile of {} with the {}: {}",
            name(names, p.seat),
            count(p.picked_up.len() as u32 + 1),
            p.top.map(|c| wire_cards(style, &[c])).unwrap_or_default(),
            placed(style, &p.placed)
        ),
        Kind::Melded(m) => format!("{} melds {}", name(names, m.seat), placed(style, &m.placed)),
        Kind::Discarded(d) => {
            let mut line = format!(
                "{} discards {}",
                name(names, d.seat),
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
            "{} asks {}: may I go out?",
            name(names, a.seat),
            name(names, a.partner)
        ),
        Kind::PartnerAnswered(a) => format!(
            "{} answers {}",
            name(names, a.seat),
            if a.yes { "yes" } else { "no" }
        ),
        Kind::Penalty(p) => format!("side {} loses {} ({})", p.side, p.points, p.reason),
        Kind::WentOut(w) => {
            let mut line = format!("{} goes out", name(names, w.seat));
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
        Kind::PileDeclined(p) => {
            format!("{} declines the pile: the deal ends", name(names, p.seat))
        }
        Kind::DealEnded(d) => {
            let score = d.score.clone().unwrap_or_default();
            let mut line = style.bold(&format!("deal {} ends", score.deal + 1));
            for s in &score.sides {
                line += &format!(
                    "\n  side {}: {:+} (melds {}, canastas {}, red threes {}, going out {}, hands {}, penalties {}) — total {}",
                    s.side,
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
                Some(s) => format!("side {s} wins"),
                None if r.end == v1::MatchEndKind::Abandoned as i32 => {
                    "abandoned, no seat played: no side wins".to_string()
                }
                None => "side ? wins".to_string(),
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
        Kind::TimedOut(t) => format!("{}'s time ran out", name(names, t.seat)),
    };
    Some(format!("{} {line}", style.dim(&format!("#{:<4}", e.seq))))
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
        out += &format!(
            "side {} ({}): score {}{}\n",
            side.side.0,
            members.join(", "),
            side.score,
            if side.melded {
                String::new()
            } else {
                format!(", needs {} to meld", side.minimum)
            }
        );
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
    if let Viewer::Seat(me) = view.viewer
        && let Some(hand) = view.seats.get(me.index()).and_then(|s| s.hand.as_ref())
    {
        out += &format!("your hand: {}\n", style.hand(hand));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use canasta_engine::parse_cards;

    #[test]
    fn plain_hands_are_sorted_and_grouped() {
        let hand = CardCounts::from_cards(parse_cards("Jk KS 4D KH 2C 3S 4C").unwrap());
        assert_eq!(Style::plain().hand(&hand), "4C 4D  KH KS  3S  2C  Jk");
    }

    #[test]
    fn colours_mark_red_suits() {
        let style = Style { color: true };
        assert!(style.card("KH".parse().unwrap()).contains(RED));
        assert!(!style.card("KS".parse().unwrap()).contains(RED));
    }
}
