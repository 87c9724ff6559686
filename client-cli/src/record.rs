//! Game records as JSON files: written by `canasta export`, read by `canasta replay`. Actions
//! are kept in the engine's text notation, so a record is readable and editable by hand.

use std::collections::BTreeMap;

use anyhow::{Context, anyhow};
use canasta_engine::notation::{card_ascii, parse_action, to_notation};
use canasta_engine::score::{DealEnd, DealScore, SideScore};
use canasta_engine::{Game, Preset, RuleSpec, Seat, Setup, parse_cards};
use canasta_proto::convert::{action_from_wire, card_list_from_wire, rules_from_wire};
use canasta_proto::v1;
use serde::{Deserialize, Serialize};

use crate::lobby::end_name;

/// The format name written in every record.
pub const FORMAT: &str = "canasta-record/1";

/// A rule set in a record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordRules {
    /// The preset's name.
    pub preset: String,
    /// Number of players.
    pub players: u8,
    /// Option overrides by name.
    #[serde(default)]
    pub options: BTreeMap<String, String>,
}

/// A finished game, replayable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Always [`FORMAT`].
    pub format: String,
    /// The game's id on its server.
    #[serde(default)]
    pub game_id: String,
    /// The rules.
    pub rules: RecordRules,
    /// The seed.
    pub seed: u64,
    /// Prearranged decks, each the whole pack top first, in card notation.
    #[serde(default)]
    pub card_orders: Vec<String>,
    /// The first dealer, if it was set.
    #[serde(default)]
    pub first_dealer: Option<u8>,
    /// Start scores by side.
    #[serde(default)]
    pub start_scores: Vec<i32>,
    /// Display names by seat.
    #[serde(default)]
    pub names: Vec<String>,
    /// Every action: the seat and the action in notation.
    pub actions: Vec<(u8, String)>,
    /// Final scores by side, as the server reported them.
    #[serde(default)]
    pub totals: Vec<i32>,
    /// The winning side, as the server reported it.
    #[serde(default)]
    pub winner_side: Option<u32>,
    /// How the match ended, as the server reported it: the name of the protocol's
    /// `MatchEndKind` in lower case (`target`, `forfeit`, `abandoned`, `expired`,
    /// `cancelled`); absent from the records of older versions.
    #[serde(default)]
    pub end: Option<String>,
    /// The side that forfeited, if one did, as the server reported it.
    #[serde(default)]
    pub forfeited_side: Option<u32>,
}

impl Record {
    /// A record from the server's export.
    pub fn from_wire(r: &v1::GameRecord) -> anyhow::Result<Record> {
        let spec = rules_from_wire(r.rules.as_ref().context("the record has no rules")?)?;
        let actions = r
            .actions
            .iter()
            .map(|a| {
                let action = action_from_wire(a.action.as_ref().context("an empty action")?)?;
                Ok((a.seat as u8, to_notation(&action)))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let card_orders = r
            .card_orders
            .iter()
            .map(|o| {
                card_list_from_wire(&o.cards, "card_orders").map(|cards| {
                    cards
                        .into_iter()
                        .map(card_ascii)
                        .collect::<Vec<_>>()
                        .join(" ")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let result = r.result.clone().unwrap_or_default();
        Ok(Record {
            format: FORMAT.to_string(),
            game_id: r.game_id.clone(),
            rules: RecordRules {
                preset: spec.preset.name().to_string(),
                players: spec.players,
                options: spec
                    .options
                    .entries()
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
            },
            seed: r.seed,
            card_orders,
            first_dealer: r.first_dealer.map(|s| s as u8),
            start_scores: r.start_scores.clone(),
            names: r.display_names.clone(),
            actions,
            end: end_name(result.end),
            forfeited_side: result.forfeited_side,
            totals: result.totals,
            winner_side: result.winner_side,
        })
    }

    /// The setup and actions, for the engine.
    pub fn to_engine(&self) -> anyhow::Result<(Setup, Vec<(Seat, canasta_engine::Action)>)> {
        if self.format != FORMAT {
            return Err(anyhow!(
                "this file's format is {:?}, not {FORMAT}",
                self.format
            ));
        }
        let preset: Preset = self.rules.preset.parse()?;
        let mut spec = RuleSpec::new(preset, self.rules.players);
        for (k, v) in &self.rules.options {
            spec.options.set(k, v)?;
        }
        let card_orders = self
            .card_orders
            .iter()
            .map(|o| parse_cards(o))
            .collect::<Result<Vec<_>, _>>()?;
        let setup = Setup {
            rules: spec,
            seed: self.seed,
            card_orders,
            first_dealer: self.first_dealer.map(Seat),
            start_scores: self.start_scores.clone(),
        };
        let actions = self
            .actions
            .iter()
            .enumerate()
            .map(|(i, (seat, text))| {
                parse_action(text)
                    .map(|a| (Seat(*seat), a))
                    .with_context(|| format!("action {i} ({text:?})"))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok((setup, actions))
    }

    /// Replays the record in the engine.
    pub fn replay(&self) -> anyhow::Result<Game> {
        let (setup, actions) = self.to_engine()?;
        Ok(Game::replay(&setup, &actions)?)
    }
}

/// What `canasta replay --json` prints: the record's game as the engine replayed it, deal by
/// deal (docs/cli.md shows an example).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ReplayReport {
    /// The game's id on its server.
    pub game_id: String,
    /// The rules.
    pub rules: RecordRules,
    /// The seed.
    pub seed: u64,
    /// Display names by seat.
    pub names: Vec<String>,
    /// Actions replayed.
    pub actions: usize,
    /// Every finished deal.
    pub deals: Vec<DealReport>,
    /// Scores by side at the end of the replay.
    pub totals: Vec<i32>,
    /// True if the match is over: replayed to its end, or ended where the record says (a
    /// forfeit, an abandoned, expired or cancelled game ends before the rules end it).
    pub finished: bool,
    /// How the match ended (as [`Record::end`] names it); `None` while it goes on.
    pub end: Option<String>,
    /// The winning side, once the match is over: the replay's, or the record's after a
    /// forfeit (which the actions do not show).
    pub winner_side: Option<u8>,
    /// The side that forfeited, if one did.
    pub forfeited_side: Option<u8>,
}

/// One deal of a [`ReplayReport`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DealReport {
    /// The deal's number, from 1.
    pub deal: u32,
    /// How it ended.
    pub end: DealEndReport,
    /// The deal's total by side.
    pub totals: Vec<i32>,
    /// Each side's score after the deal.
    pub cumulative: Vec<i32>,
    /// Each side's score for the deal, item by item.
    pub sides: Vec<SideReport>,
}

/// How a deal ended, tagged by `kind` (the names of the protocol's `DealEndKind`, in lower
/// case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DealEndReport {
    /// A player went out.
    WentOut {
        /// The seat.
        seat: u8,
        /// True if the player went out concealed.
        concealed: bool,
    },
    /// The stock ran out and the player to draw could not, or would not, take the pile.
    StockExhausted {
        /// The seat that declined the pile.
        seat: u8,
    },
    /// The last card of the stock was a red three.
    LastRedThree {
        /// The seat that drew it.
        seat: u8,
    },
    /// An end of a newer engine that this report does not name (the protocol's UNSPECIFIED).
    Unspecified {
        /// The seat whose move ended the deal.
        seat: u8,
    },
}

/// One side's score for a deal: the items of the protocol's `SideScore`, by the same names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SideReport {
    /// The side.
    pub side: u8,
    /// Values of its melded cards.
    pub melded_cards: i32,
    /// Natural canastas.
    pub natural_canastas: u8,
    /// Mixed canastas.
    pub mixed_canastas: u8,
    /// Sambas.
    pub sambas: u8,
    /// Wild canastas.
    pub wild_canastas: u8,
    /// All canasta bonuses.
    pub canasta_bonus: i32,
    /// Red threes laid.
    pub red_threes: u8,
    /// Red-three bonus; negative when the side did not qualify.
    pub red_three_bonus: i32,
    /// Going-out bonus.
    pub going_out_bonus: i32,
    /// Minus the values of the cards left in its hands.
    pub cards_in_hand: i32,
    /// Minus its penalties.
    pub penalties: i32,
    /// The deal's total.
    pub total: i32,
    /// The side's score after the deal.
    pub cumulative: i32,
}

impl From<DealEnd> for DealEndReport {
    fn from(end: DealEnd) -> Self {
        match end {
            DealEnd::WentOut { seat, concealed } => DealEndReport::WentOut {
                seat: seat.0,
                concealed,
            },
            DealEnd::StockExhausted { seat } => DealEndReport::StockExhausted { seat: seat.0 },
            DealEnd::LastRedThree { seat } => DealEndReport::LastRedThree { seat: seat.0 },
            other => DealEndReport::Unspecified {
                seat: other.seat().0,
            },
        }
    }
}

impl From<&SideScore> for SideReport {
    fn from(s: &SideScore) -> Self {
        SideReport {
            side: s.side,
            melded_cards: s.melded_cards,
            natural_canastas: s.natural_canastas,
            mixed_canastas: s.mixed_canastas,
            sambas: s.sambas,
            wild_canastas: s.wild_canastas,
            canasta_bonus: s.canasta_bonus,
            red_threes: s.red_threes,
            red_three_bonus: s.red_three_bonus,
            going_out_bonus: s.going_out_bonus,
            cards_in_hand: s.cards_in_hand,
            penalties: s.penalties,
            total: s.total,
            cumulative: s.cumulative,
        }
    }
}

impl From<&DealScore> for DealReport {
    fn from(d: &DealScore) -> Self {
        DealReport {
            deal: d.deal + 1,
            end: d.end.into(),
            totals: d.sides.iter().map(|s| s.total).collect(),
            cumulative: d.sides.iter().map(|s| s.cumulative).collect(),
            sides: d.sides.iter().map(SideReport::from).collect(),
        }
    }
}

impl ReplayReport {
    /// The report of `game`, replayed from `record`.
    pub fn new(record: &Record, game: &Game) -> ReplayReport {
        // The record says how the match ended; a record of an older version says nothing, and
        // a match the replay plays to a winner ended at the target.
        let end = record
            .end
            .as_deref()
            .or_else(|| game.winner().map(|_| "target"));
        let side = |s: u32| u8::try_from(s).ok();
        ReplayReport {
            game_id: record.game_id.clone(),
            rules: record.rules.clone(),
            seed: record.seed,
            names: record.names.clone(),
            actions: record.actions.len(),
            deals: game.history().iter().map(DealReport::from).collect(),
            totals: game.scores().to_vec(),
            finished: end.is_some(),
            winner_side: game
                .winner()
                .map(|s| s.0)
                .or_else(|| end.and(record.winner_side).and_then(side)),
            forfeited_side: end.and(record.forfeited_side).and_then(side),
            end: end.map(str::to_string),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canasta_engine::bot::{Bot, GreedyBot};
    use canasta_proto::convert::{action_to_wire, rules_to_wire};

    // Regression: `replay --json` wrote the deal's end as Rust's debug text.
    #[test]
    fn every_deal_end_is_an_object_with_a_snake_case_kind_and_seat_numbers() {
        let json = |end| serde_json::to_value(DealEndReport::from(end)).unwrap();
        assert_eq!(
            json(DealEnd::WentOut {
                seat: Seat(2),
                concealed: true
            }),
            serde_json::json!({"kind": "went_out", "seat": 2, "concealed": true})
        );
        assert_eq!(
            json(DealEnd::StockExhausted { seat: Seat(1) }),
            serde_json::json!({"kind": "stock_exhausted", "seat": 1})
        );
        assert_eq!(
            json(DealEnd::LastRedThree { seat: Seat(3) }),
            serde_json::json!({"kind": "last_red_three", "seat": 3})
        );
    }

    /// The wire record of `setup` after `n` actions of greedy bots, with `result`.
    fn partial_record(setup: &Setup, n: usize, result: v1::MatchResult) -> v1::GameRecord {
        let mut game = Game::new(setup).unwrap();
        let mut bots = [GreedyBot::new(), GreedyBot::new()];
        let mut actions = Vec::new();
        while let Some(seat) = game.to_act().filter(|_| actions.len() < n) {
            let view = game.view(canasta_engine::Viewer::Seat(seat));
            let a = bots[seat.index()].choose(&view, &view.legal().unwrap());
            game.apply(seat, &a).unwrap();
            actions.push(v1::RecordedAction {
                seat: seat.0 as u32,
                action: Some(action_to_wire(&a)),
            });
        }
        v1::GameRecord {
            game_id: "g".into(),
            rules: Some(rules_to_wire(&setup.rules)),
            seed: setup.seed,
            actions,
            result: Some(result),
            ..Default::default()
        }
    }

    // Regression: a match that ended by forfeit (or was abandoned, expired or cancelled)
    // replayed as unfinished, with no winner: the actions stop before the rules end the match,
    // and only the record's result says how it ended.
    #[test]
    fn a_match_that_ended_before_its_target_replays_as_finished_with_its_end() {
        let setup = Setup::seeded(RuleSpec::new(Preset::Official, 2), 4);
        let report = |result| {
            let record = Record::from_wire(&partial_record(&setup, 10, result)).unwrap();
            // Through the file, as `canasta replay` reads it.
            let record: Record =
                serde_json::from_str(&serde_json::to_string(&record).unwrap()).unwrap();
            let game = record.replay().unwrap();
            assert!(game.winner().is_none(), "the replay stops mid-deal");
            ReplayReport::new(&record, &game)
        };
        let forfeit = report(v1::MatchResult {
            finished: true,
            winner_side: Some(1),
            totals: vec![0, 0],
            end: v1::MatchEndKind::Forfeit as i32,
            forfeited_side: Some(0),
        });
        assert_eq!(forfeit.actions, 10);
        assert!(forfeit.finished);
        assert_eq!(forfeit.end.as_deref(), Some("forfeit"));
        assert_eq!(
            (forfeit.winner_side, forfeit.forfeited_side),
            (Some(1), Some(0))
        );
        for (kind, name) in [
            (v1::MatchEndKind::Abandoned, "abandoned"),
            (v1::MatchEndKind::Expired, "expired"),
            (v1::MatchEndKind::Cancelled, "cancelled"),
        ] {
            let r = report(v1::MatchResult {
                finished: true,
                totals: vec![0, 0],
                end: kind as i32,
                ..Default::default()
            });
            assert!(r.finished, "{name}");
            assert_eq!(r.end.as_deref(), Some(name));
            assert_eq!((r.winner_side, r.forfeited_side), (None, None), "{name}");
        }
        // A record that says nothing of an end (an older version's, or one cut short by hand)
        // is unfinished where the replay stops.
        let open = report(v1::MatchResult::default());
        assert!(!open.finished);
        assert_eq!((open.end, open.winner_side), (None, None));
        let json = serde_json::to_value(&forfeit).unwrap();
        assert_eq!(json["end"], "forfeit");
        assert_eq!(json["forfeited_side"], 0);
    }

    #[test]
    fn a_record_replays_to_the_same_game() {
        let setup = Setup::seeded(
            RuleSpec::new(Preset::Official, 2)
                .with("target_score", "500")
                .unwrap(),
            3,
        );
        let mut game = Game::new(&setup).unwrap();
        let mut bots = [GreedyBot::new(), GreedyBot::new()];
        let mut actions = Vec::new();
        while let Some(seat) = game.to_act() {
            let view = game.view(canasta_engine::Viewer::Seat(seat));
            let a = bots[seat.index()].choose(&view, &view.legal().unwrap());
            game.apply(seat, &a).unwrap();
            actions.push((seat, a));
        }
        let wire = v1::GameRecord {
            game_id: "g".into(),
            rules: Some(rules_to_wire(&setup.rules)),
            seed: setup.seed,
            actions: actions
                .iter()
                .map(|(s, a)| v1::RecordedAction {
                    seat: s.0 as u32,
                    action: Some(action_to_wire(a)),
                })
                .collect(),
            ..Default::default()
        };
        let record = Record::from_wire(&wire).unwrap();
        let json = serde_json::to_string(&record).unwrap();
        let back: Record = serde_json::from_str(&json).unwrap();
        assert_eq!(back, record);
        let replayed = back.replay().unwrap();
        assert_eq!(replayed.state_hash(), game.state_hash());
        assert_eq!(replayed.scores(), game.scores());
        assert!(replayed.winner().is_some());
        let report = ReplayReport::new(&back, &replayed);
        assert_eq!(report.actions, actions.len());
        assert_eq!(report.deals.len(), game.history().len());
        assert!(report.finished);
        assert_eq!(report.end.as_deref(), Some("target"));
        for (r, d) in report.deals.iter().zip(game.history()) {
            assert_eq!(r.deal, d.deal + 1);
            assert_eq!(r.sides.len(), d.sides.len());
            assert!(r.sides.iter().all(|s| s.total
                == s.melded_cards
                    + s.canasta_bonus
                    + s.red_three_bonus
                    + s.going_out_bonus
                    + s.cards_in_hand
                    + s.penalties));
        }
    }
}
