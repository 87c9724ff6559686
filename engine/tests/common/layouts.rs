//! The rule sets the property tests play: derived from the rules themselves, so a preset, a
//! player count or a seating that the rules accept cannot be left out.

use canasta_engine::rules::{FivePlayers, OptionValue, RASCHE_OPTIONS, SixPlayers};
use canasta_engine::{Preset, RuleSpec, Rules};

/// Player counts tried: wider than any preset accepts, so that a preset accepting more (or
/// fewer) players is played too.
pub const PLAYER_COUNTS: std::ops::RangeInclusive<u8> = 0..=8;

/// Player count of the layouts with the Rasche options (every preset plays four).
pub const RASCHE_PLAYERS: u8 = 4;

/// The seatings of a player count: the option that sets one and its value, or none where the
/// count has a single seating.
pub fn seatings(players: u8) -> Vec<Option<(&'static str, String)>> {
    match players {
        5 => FivePlayers::ALL
            .iter()
            .map(|v| Some(("five_players", v.show_value())))
            .collect(),
        6 => SixPlayers::ALL
            .iter()
            .map(|v| Some(("six_players", v.show_value())))
            .collect(),
        _ => vec![None],
    }
}

/// The value that switches a Rasche letter on: a number for the letters that take one.
pub fn rasche_on(letter: &str) -> &'static str {
    match letter {
        "rasche_d" => "7500",
        "rasche_f" => "500",
        _ => "true",
    }
}

/// A preset's rules with every Rasche letter the combination accepts, in letter order (a
/// letter that the preset, or the letters before it, refuse is left out).
pub fn with_rasche(preset: Preset, players: u8) -> RuleSpec {
    let mut spec = RuleSpec::new(preset, players);
    for (letter, _) in RASCHE_OPTIONS {
        let mut tried = spec.clone();
        tried
            .options
            .set(letter, rasche_on(letter))
            .expect("a Rasche letter");
        if Rules::new(&tried).is_ok() {
            spec = tried;
        }
    }
    // Rasche b's 2000 for seven jokers, where the pack has seven.
    let mut tried = spec.clone();
    tried
        .options
        .set("joker_canasta_bonus", "2000")
        .expect("an option");
    if Rules::new(&tried).is_ok() {
        spec = tried;
    }
    spec
}

/// Every preset with every player count and seating it accepts, then every preset with the
/// Rasche options it accepts, then Samba's wild canastas (its supplement).
pub fn layouts() -> Vec<RuleSpec> {
    let mut all = Vec::new();
    for preset in Preset::ALL {
        for players in PLAYER_COUNTS {
            for seating in seatings(players) {
                let mut spec = RuleSpec::new(preset, players);
                if let Some((option, value)) = &seating {
                    spec.options.set(option, value).expect("a seating");
                }
                if Rules::new(&spec).is_ok() {
                    all.push(spec);
                }
            }
        }
    }
    for preset in Preset::ALL {
        all.push(with_rasche(preset, RASCHE_PLAYERS));
    }
    let mut wild = RuleSpec::new(Preset::Samba, 4);
    wild.options
        .set("wild_canastas", "true")
        .expect("an option");
    all.push(wild);
    all
}

/// A layout's name for messages: preset, players and options.
pub fn name(spec: &RuleSpec) -> String {
    let options: Vec<String> = spec
        .options
        .entries()
        .into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("{} {}p {}", spec.preset, spec.players, options.join(" "))
}
