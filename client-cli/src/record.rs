//! Game records as JSON files: written by `canasta export`, read by `canasta replay`. Actions
//! are kept in the engine's text notation, so a record is readable and editable by hand.

use std::collections::BTreeMap;

use canasta_engine::notation::{card_ascii, parse_action, to_notation};
use canasta_engine::{Game, Preset, RuleSpec, Seat, Setup, parse_cards};
use canasta_proto::convert::{action_from_wire, card_list_from_wire, rules_from_wire};
use canasta_proto::v1;
use serde::{Deserialize, Serialize};

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
}

impl Record {
    /// A record from the server's export.
    pub fn from_wire(r: &v1::GameRecord) -> Result<Record, String> {
        let spec = rules_from_wire(r.rules.as_ref().ok_or("the record has no rules")?)
            .map_err(|e| e.to_string())?;
        let actions = r
            .actions
            .iter()
            .map(|a| {
                let action = action_from_wire(a.action.as_ref().ok_or("an empty action")?)
                    .map_err(|e| e.to_string())?;
                Ok((a.seat as u8, to_notation(&action)))
            })
            .collect::<Result<Vec<_>, String>>()?;
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
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
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
            totals: result.totals,
            winner_side: result.winner_side,
        })
    }

    /// The setup and actions, for the engine.
    pub fn to_engine(&self) -> Result<(Setup, Vec<(Seat, canasta_engine::Action)>), String> {
        if self.format != FORMAT {
            return Err(format!(
                "this file's format is {:?}, not {FORMAT}",
                self.format
            ));
        }
        let preset: Preset = self.rules.preset.parse().map_err(|e| format!("{e}"))?;
        let mut spec = RuleSpec::new(preset, self.rules.players);
        for (k, v) in &self.rules.options {
            spec.options.set(k, v).map_err(|e| e.to_string())?;
        }
        let card_orders = self
            .card_orders
            .iter()
            .map(|o| parse_cards(o).map_err(|e| e.to_string()))
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
                    .map_err(|e| format!("action {i} ({text:?}): {e}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((setup, actions))
    }

    /// Replays the record in the engine.
    pub fn replay(&self) -> Result<Game, String> {
        let (setup, actions) = self.to_engine()?;
        Game::replay(&setup, &actions).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use canasta_engine::bot::{Bot, GreedyBot};
    use canasta_proto::convert::{action_to_wire, rules_to_wire};

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
    }
}
