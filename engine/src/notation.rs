//! A short text notation for actions, to type them in a terminal and to keep them in records.
//!
//! ```text
//! draw                          draw from the stock
//! take KS KH                    take the pile: the top card with a natural pair, a new meld
//! take 2:                       take the pile: the top card onto the side's meld 2
//! take KS KH; AS AH Jk          ... and lay a further meld in the same action
//! meld KS KH KD                 a new meld
//! meld 0: KS; 1: QS QH          additions to the side's melds 0 and 1 (and more specs)
//! discard 9C                    discard
//! out 0: KS / 9C                go out: add KS to meld 0, discard 9C
//! out KS KH KD                  go out melding the last cards, no discard
//! ask, yes, no, decline         ask the partner, answer, decline the pile
//! ```
//!
//! Cards are written `KS`, `10H`, `Jk` (or with suit symbols, `K♠`). Specs are separated by `;`;
//! `N:` names a meld of the side, and a spec without it is a new meld.

use std::fmt::{self, Write as _};
use std::str::FromStr;

use crate::action::{Action, MeldBatch, MeldSpec, MeldTarget, TopMeld};
use crate::card::{Card, CardCounts, parse_cards};

/// A card in ASCII: `KS`, `10H`, `Jk`.
pub fn card_ascii(card: Card) -> String {
    match card.suit() {
        None => "Jk".to_string(),
        Some(s) => format!("{}{}", card.rank().label(), s.letter()),
    }
}

fn cards_ascii(out: &mut String, cards: &CardCounts) {
    for (i, c) in cards.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&card_ascii(c));
    }
}

fn spec_ascii(out: &mut String, target: MeldTarget, cards: &CardCounts) {
    if let MeldTarget::Existing(id) = target {
        let _ = write!(out, "{id}:");
        if !cards.is_empty() {
            out.push(' ');
        }
    }
    cards_ascii(out, cards);
}

fn batch_ascii(out: &mut String, specs: &[MeldSpec]) {
    for (i, s) in specs.iter().enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        spec_ascii(out, s.target, &s.cards);
    }
}

/// An action in the notation.
pub fn to_notation(action: &Action) -> String {
    let mut out = String::new();
    match action {
        Action::DrawStock => out.push_str("draw"),
        Action::TakePile { top, melds } => {
            out.push_str("take ");
            spec_ascii(&mut out, top.target, &top.cards);
            if !melds.is_empty() {
                out.push_str("; ");
                batch_ascii(&mut out, melds);
            }
        }
        Action::Meld { melds } => {
            out.push_str("meld ");
            batch_ascii(&mut out, melds);
        }
        Action::Discard { card } => {
            let _ = write!(out, "discard {}", card_ascii(*card));
        }
        Action::GoOut { melds, discard } => {
            out.push_str("out");
            if !melds.is_empty() {
                out.push(' ');
                batch_ascii(&mut out, melds);
            }
            if let Some(d) = discard {
                let _ = write!(out, " / {}", card_ascii(*d));
            }
        }
        Action::AskPartner => out.push_str("ask"),
        Action::AnswerPartner { yes: true } => out.push_str("yes"),
        Action::AnswerPartner { yes: false } => out.push_str("no"),
        Action::DeclinePile => out.push_str("decline"),
    }
    out
}

/// Why a text is not an action.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotationError(pub String);

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotationError {}

fn spec(text: &str) -> Result<MeldSpec, NotationError> {
    let text = text.trim();
    let (target, cards) = match text.split_once(':') {
        Some((n, rest)) => {
            let id = n.trim().parse::<u8>().map_err(|_| {
                NotationError(format!(
                    "{n:?} is not a meld number: write `2: KS` to add to meld 2"
                ))
            })?;
            (MeldTarget::Existing(id), rest)
        }
        None => (MeldTarget::New, text),
    };
    let cards = parse_cards(cards).map_err(|e| NotationError(e.to_string()))?;
    Ok(MeldSpec {
        target,
        cards: CardCounts::from_cards(cards),
    })
}

fn batch(text: &str) -> Result<MeldBatch, NotationError> {
    let mut out = MeldBatch::new();
    for s in text.split(';') {
        let spec = spec(s)?;
        // A new meld of no cards (`;;`, `, ;`) is no spec at all: it would print as nothing.
        if spec.target != MeldTarget::New || !spec.cards.is_empty() {
            out.push(spec);
        }
    }
    Ok(out)
}

/// Reads an action in the notation.
pub fn parse_action(text: &str) -> Result<Action, NotationError> {
    let text = text.trim();
    let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let one_card = |rest: &str| -> Result<Card, NotationError> {
        rest.trim()
            .parse::<Card>()
            .map_err(|e| NotationError(e.to_string()))
    };
    Ok(match word.to_ascii_lowercase().as_str() {
        "draw" | "d" => Action::DrawStock,
        "take" | "t" => {
            let mut parts = rest.splitn(2, ';');
            let top = spec(parts.next().unwrap_or(""))?;
            Action::TakePile {
                top: TopMeld {
                    target: top.target,
                    cards: top.cards,
                },
                melds: batch(parts.next().unwrap_or(""))?,
            }
        }
        "meld" | "m" => {
            let melds = batch(rest)?;
            if melds.is_empty() {
                return Err(NotationError(
                    "meld what? write `meld KS KH KD`, or `meld 2: KS` to add to meld 2".into(),
                ));
            }
            Action::Meld { melds }
        }
        "discard" | "x" => Action::Discard {
            card: one_card(rest)?,
        },
        "out" | "o" => {
            let (melds, discard) = match rest.split_once('/') {
                Some((m, d)) => (m, Some(one_card(d)?)),
                None => (rest, None),
            };
            Action::GoOut {
                melds: batch(melds)?,
                discard,
            }
        }
        "ask" => Action::AskPartner,
        "yes" | "y" => Action::AnswerPartner { yes: true },
        "no" | "n" => Action::AnswerPartner { yes: false },
        "decline" => Action::DeclinePile,
        _ => {
            return Err(NotationError(format!(
                "{word:?} is not an action: draw, take, meld, discard, out, ask, yes, no, decline"
            )));
        }
    })
}

impl FromStr for Action {
    type Err = NotationError;
    fn from_str(s: &str) -> Result<Action, NotationError> {
        parse_action(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bot::RandomBot;
    use crate::game::{Game, Setup};
    use crate::rules::{Preset, RuleSpec};

    #[test]
    fn examples_read_as_documented() {
        let a = parse_action("take KS KH; AS AH Jk").unwrap();
        assert_eq!(to_notation(&a), "take KH KS; AH AS Jk");
        assert_eq!(to_notation(&parse_action("take 2:").unwrap()), "take 2:");
        assert_eq!(
            to_notation(&parse_action("meld 0: KS; 1: QS QH").unwrap()),
            "meld 0: KS; 1: QH QS"
        );
        assert_eq!(
            to_notation(&parse_action("out 0: KS / 9C").unwrap()),
            "out 0: KS / 9C"
        );
        assert_eq!(to_notation(&parse_action("out / 9C").unwrap()), "out / 9C");
        assert_eq!(
            parse_action("discard K♠").unwrap(),
            parse_action("x ks").unwrap()
        );
        assert!(parse_action("meld").is_err());
        assert!(parse_action("fly away").is_err());
        assert!(parse_action("meld x: KS").is_err());
        assert!(parse_action("discard").is_err());
    }

    /// Regression (found by fuzzing): a spec of separators only (`out ,`) was read as a new
    /// meld of no cards, which prints as nothing, so the text did not read back the same.
    #[test]
    fn specs_of_separators_only_are_no_specs() {
        for text in ["out ,", "out , ; ,", "meld KS KH KD; ,", "take KS KH; , ;"] {
            let a = parse_action(text).unwrap();
            assert_eq!(parse_action(&to_notation(&a)), Ok(a.clone()), "{text}");
        }
        assert_eq!(
            parse_action("out ,"),
            Ok(Action::GoOut {
                melds: MeldBatch::new(),
                discard: None
            })
        );
        assert!(parse_action("meld ,").is_err(), "a meld of nothing");
    }

    #[test]
    fn every_legal_action_round_trips() {
        for preset in Preset::ALL {
            let mut game = Game::new(&Setup::seeded(RuleSpec::new(preset, 4), 21)).unwrap();
            let mut bot = RandomBot::new(3);
            for _ in 0..400 {
                let Some(legal) = game.legal() else { break };
                for a in legal.to_vec() {
                    assert_eq!(parse_action(&to_notation(&a)), Ok(a.clone()), "{a}");
                }
                let seat = game.to_act().unwrap();
                let a = bot.pick(&game.legal().unwrap());
                game.apply(seat, &a).unwrap();
            }
        }
    }
}
