//! Rule sets: a preset plus option overrides ([`RuleSpec`], unvalidated) and the validated,
//! concrete [`Rules`] a game is played by.
//!
//! Every option is declared once, in the `options!` table below, with its name, type and meaning.
//! That table generates the override struct ([`Options`]), the by-name setter used by the wire
//! and the command line, and the listing of effective values. The engine reads only [`Rules`]:
//! variants are data and a few rule hooks, never forks of the engine.

use std::fmt;
use std::str::FromStr;

use crate::quote::quoted;

/// A named rule set (docs/rules.md, "Presets").
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[non_exhaustive]
pub enum Preset {
    /// The Official Canasta Laws (Regency Whist Club, 1949-51), 2 to 6 players.
    #[default]
    Official,
    /// Austrian (Wiener) Canasta.
    Wiener,
    /// Samba: three decks, sequences.
    Samba,
    /// The Swiss house rules ("Kanaster").
    Swiss,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 4] = [
        Preset::Official,
        Preset::Wiener,
        Preset::Samba,
        Preset::Swiss,
    ];

    /// The preset's name as written on the wire and the command line.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Official => "official",
            Preset::Wiener => "wiener",
            Preset::Samba => "samba",
            Preset::Swiss => "swiss",
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Preset {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Preset, RulesError> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| RulesError::UnknownPreset(s.to_string()))
    }
}

/// How five players sit (R-DEAL-2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum FivePlayers {
    /// Two sides of 2 and 3; in the side of 3 one player sits out each deal, in rotation.
    TwoSides,
    /// Everyone for himself (seed 002).
    EachAlone,
}

impl FivePlayers {
    /// Every seating of five.
    pub const ALL: [FivePlayers; 2] = [FivePlayers::TwoSides, FivePlayers::EachAlone];
}

/// How six players sit (R-DEAL-2).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum SixPlayers {
    /// Option A: three partnerships of two, partners opposite; 3 decks and 6 jokers, 13 cards.
    ThreePairs,
    /// Option B: two sides of three; one player of each side sits out each deal, in rotation.
    TwoTeamsOfThree,
}

impl SixPlayers {
    /// Every seating of six.
    pub const ALL: [SixPlayers; 2] = [SixPlayers::ThreePairs, SixPlayers::TwoTeamsOfThree];
}

/// When red threes count for a side rather than against it (R-RED-5).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum RedThreesPositive {
    /// If the side has made its initial meld by the end of the deal (official).
    InitialMeld,
    /// If the side has at least this many canastas (Wiener and Rasche i: 1; Samba: 2).
    Canastas(u8),
}

/// How many wild cards a group may hold relative to its natural cards (R-MELD-1).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum WildRatio {
    /// Only the limits of `max_wilds` and two naturals apply (official).
    Any,
    /// Wild cards may not outnumber naturals (Wiener, Rasche).
    NotMoreThanNaturals,
    /// Wild cards must be fewer than naturals (seed 004).
    FewerThanNaturals,
}

/// The initial-meld minimum by the side's cumulative score (R-INIT-1): tiers of
/// (lowest score of the tier, minimum), in ascending order of score.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct MinimumTable {
    tiers: [(i32, u32); 8],
    len: u8,
}

impl MinimumTable {
    /// Builds a table from (from-score, minimum) tiers; the first tier's score is ignored and
    /// taken as "any lower score".
    pub fn new(tiers: &[(i32, u32)]) -> Result<MinimumTable, String> {
        if tiers.is_empty() || tiers.len() > 8 {
            return Err("give between 1 and 8 tiers".into());
        }
        if tiers.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err("tier scores must rise from left to right".into());
        }
        let mut t = [(0, 0); 8];
        t[..tiers.len()].copy_from_slice(tiers);
        t[0].0 = i32::MIN;
        Ok(MinimumTable {
            tiers: t,
            len: tiers.len() as u8,
        })
    }

    /// The official table: below 0: 15; 0 to 1495: 50; 1500 to 2995: 90; 3000 or more: 120.
    pub fn official() -> MinimumTable {
        MinimumTable::new(&[(i32::MIN, 15), (0, 50), (1500, 90), (3000, 120)]).unwrap()
    }

    /// The minimum for a side whose cumulative score is `score`.
    pub fn minimum_for(&self, score: i32) -> u32 {
        self.tiers()
            .iter()
            .rev()
            .find(|(from, _)| score >= *from)
            .map(|t| t.1)
            .unwrap_or(self.tiers[0].1)
    }

    /// The tiers.
    pub fn tiers(&self) -> &[(i32, u32)] {
        &self.tiers[..self.len as usize]
    }
}

impl fmt::Display for MinimumTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (from, min)) in self.tiers().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            if i == 0 {
                write!(f, "-inf:{min}")?;
            } else {
                write!(f, "{from}:{min}")?;
            }
        }
        Ok(())
    }
}

impl FromStr for MinimumTable {
    type Err = String;
    /// Reads `-inf:15,0:50,1500:90,3000:120`.
    fn from_str(s: &str) -> Result<MinimumTable, String> {
        let mut tiers = Vec::new();
        for part in s.split(',') {
            let (from, min) = part
                .split_once(':')
                .ok_or_else(|| format!("tier {} is not score:minimum", quoted(part)))?;
            let from = match from.trim() {
                "-inf" | "min" => i32::MIN,
                t => t
                    .parse()
                    .map_err(|_| format!("{} is not a score", quoted(t)))?,
            };
            let min = min
                .trim()
                .parse()
                .map_err(|_| format!("{} is not a minimum", quoted(min)))?;
            tiers.push((from, min));
        }
        MinimumTable::new(&tiers)
    }
}

/// Red-three bonuses by the number a side laid: entry `n` is the score for `n` red threes
/// (R-RED-5). It has one entry more than the pack has red threes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct RedThreeTable {
    values: [i32; 10],
    len: u8,
}

impl RedThreeTable {
    /// A table from its values; `values[0]` must be 0.
    pub fn new(values: &[i32]) -> Result<RedThreeTable, String> {
        if values.len() < 2 || values.len() > 10 {
            return Err("give between 2 and 10 values".into());
        }
        if values[0] != 0 {
            return Err("the first value (no red threes) must be 0".into());
        }
        let mut v = [0; 10];
        v[..values.len()].copy_from_slice(values);
        Ok(RedThreeTable {
            values: v,
            len: values.len() as u8,
        })
    }

    /// The score for `n` red threes (before the sign of R-RED-5 is applied).
    pub fn value(&self, n: u8) -> i32 {
        self.values[(n as usize).min(self.len as usize - 1)]
    }

    /// The entries.
    pub fn values(&self) -> &[i32] {
        &self.values[..self.len as usize]
    }
}

impl fmt::Display for RedThreeTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.values().iter().map(|v| v.to_string()).collect();
        f.write_str(&parts.join(","))
    }
}

impl FromStr for RedThreeTable {
    type Err = String;
    fn from_str(s: &str) -> Result<RedThreeTable, String> {
        let values: Result<Vec<i32>, _> = s.split(',').map(|v| v.trim().parse::<i32>()).collect();
        RedThreeTable::new(&values.map_err(|_| format!("{} is not a list of numbers", quoted(s)))?)
    }
}

/// A value that an option can take: read from and written as text for the wire and the CLI.
pub trait OptionValue: Sized {
    /// Reads the value; the error says what is expected.
    fn parse_value(text: &str) -> Result<Self, String>;
    /// Writes the value as [`OptionValue::parse_value`] reads it.
    fn show_value(&self) -> String;
}

macro_rules! numeric_option {
    ($($t:ty),*) => {$(
        impl OptionValue for $t {
            fn parse_value(text: &str) -> Result<Self, String> {
                text.trim().parse().map_err(|_| format!("{} is not a whole number in range", quoted(text)))
            }
            fn show_value(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
numeric_option!(u8, i32);

impl OptionValue for bool {
    fn parse_value(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "on" | "1" => Ok(true),
            "false" | "no" | "off" | "0" => Ok(false),
            _ => Err(format!("{} is not true or false", quoted(text))),
        }
    }
    fn show_value(&self) -> String {
        self.to_string()
    }
}

macro_rules! named_option {
    ($t:ty { $($name:literal => $v:expr),* $(,)? }) => {
        impl OptionValue for $t {
            fn parse_value(text: &str) -> Result<Self, String> {
                match text.trim() {
                    $($name => Ok($v),)*
                    _ => Err(format!("{} is not one of: {}", quoted(text), [$($name),*].join(", "))),
                }
            }
            fn show_value(&self) -> String {
                $(if *self == $v { return $name.to_string(); })*
                unreachable!()
            }
        }
    };
}

named_option!(FivePlayers { "two_sides" => FivePlayers::TwoSides, "each_alone" => FivePlayers::EachAlone });
named_option!(SixPlayers {
    "three_pairs" => SixPlayers::ThreePairs,
    "two_teams_of_three" => SixPlayers::TwoTeamsOfThree,
});
named_option!(WildRatio {
    "any" => WildRatio::Any,
    "not_more_than_naturals" => WildRatio::NotMoreThanNaturals,
    "fewer_than_naturals" => WildRatio::FewerThanNaturals,
});

impl OptionValue for RedThreesPositive {
    fn parse_value(text: &str) -> Result<Self, String> {
        match text.trim() {
            "initial_meld" => Ok(RedThreesPositive::InitialMeld),
            "canasta" => Ok(RedThreesPositive::Canastas(1)),
            t => t
                .strip_suffix("_canastas")
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|&n| n > 0)
                .map(RedThreesPositive::Canastas)
                .ok_or_else(|| {
                    format!(
                        "{} is not initial_meld, canasta or N_canastas",
                        quoted(text)
                    )
                }),
        }
    }
    fn show_value(&self) -> String {
        match self {
            RedThreesPositive::InitialMeld => "initial_meld".into(),
            RedThreesPositive::Canastas(1) => "canasta".into(),
            RedThreesPositive::Canastas(n) => format!("{n}_canastas"),
        }
    }
}

impl OptionValue for MinimumTable {
    fn parse_value(text: &str) -> Result<Self, String> {
        text.parse()
    }
    fn show_value(&self) -> String {
        self.to_string()
    }
}

impl OptionValue for RedThreeTable {
    fn parse_value(text: &str) -> Result<Self, String> {
        text.parse()
    }
    fn show_value(&self) -> String {
        self.to_string()
    }
}

impl OptionValue for StopRule {
    fn parse_value(text: &str) -> Result<Self, String> {
        match text.trim() {
            "black_threes" => Ok(StopRule::BlackThrees),
            "wiener" => Ok(StopRule::Wiener),
            "swiss" => Ok(StopRule::Swiss),
            _ => Err(format!(
                "{} is not one of: black_threes, wiener, swiss",
                quoted(text)
            )),
        }
    }
    fn show_value(&self) -> String {
        match self {
            StopRule::BlackThrees => "black_threes",
            StopRule::Wiener => "wiener",
            StopRule::Swiss => "swiss",
        }
        .into()
    }
}

impl OptionValue for Option<i32> {
    fn parse_value(text: &str) -> Result<Self, String> {
        match text.trim() {
            "none" => Ok(None),
            t => t
                .parse()
                .map(Some)
                .map_err(|_| format!("{} is not a number or none", quoted(text))),
        }
    }
    fn show_value(&self) -> String {
        match self {
            None => "none".into(),
            Some(v) => v.to_string(),
        }
    }
}

/// What blocks the discard pile for the next player, besides wild cards and black threes on top
/// (R-PILE-1, R-TURN-4).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum StopRule {
    /// Only wild cards and black threes (official).
    BlackThrees,
    /// Also a card the next opponent could add to one of his completed canastas (Wiener).
    Wiener,
    /// Also any card of a rank of which a canasta lies on the table (seed 004, Swiss).
    Swiss,
}

/// Declares every option once: the override struct, the field of [`Rules`] it sets, the by-name
/// setter and the listing. The doc comment of each entry is its documentation.
macro_rules! options {
    ($( $(#[doc = $doc:expr])+ $field:ident : $ty:ty, )*) => {
        /// Option overrides on top of a preset. `None` keeps the preset's value for the player count.
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        #[non_exhaustive]
        pub struct Options {
            $( $(#[doc = $doc])+ pub $field: Option<$ty>, )*
        }

        /// The validated rules of a game: every value concrete, every combination checked.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        #[non_exhaustive]
        pub struct Rules {
            /// The preset these rules start from.
            pub preset: Preset,
            /// Number of players, 2 to 6.
            pub players: u8,
            $( $(#[doc = $doc])+ pub $field: $ty, )*
        }

        /// The name and one-line description of every option, in declaration order.
        pub const OPTION_DOCS: &[(&str, &str)] = &[ $( (stringify!($field), concat!($($doc),+)) ),* ];

        impl Options {
            /// Sets an option by name from its text form (as on the wire and the command line).
            pub fn set(&mut self, name: &str, value: &str) -> Result<(), RulesError> {
                match name.trim() {
                    $( stringify!($field) => {
                        let v = <$ty as OptionValue>::parse_value(value).map_err(|why| {
                            RulesError::BadValue { option: stringify!($field).into(), why }
                        })?;
                        self.$field = Some(v);
                        Ok(())
                    } )*
                    other => match rasche_alias(other, value) {
                        Some(pairs) => {
                            for (name, value) in pairs? {
                                self.set(name, &value)?;
                            }
                            Ok(())
                        }
                        None => Err(RulesError::UnknownOption(other.to_string())),
                    },
                }
            }

            /// The options that are set, as (name, text value) pairs.
            pub fn entries(&self) -> Vec<(&'static str, String)> {
                let mut out = Vec::new();
                $( if let Some(v) = &self.$field { out.push((stringify!($field), v.show_value())); } )*
                out
            }

            fn apply_to(&self, rules: &mut Rules) {
                $( if let Some(v) = self.$field { rules.$field = v; } )*
            }
        }

        impl Rules {
            /// Every option's effective value, as (name, text value) pairs: the options that
            /// apply to these rules (no seating of five in a game of four, no wild-canasta
            /// bonus without wild canastas), so that setting them all gives the same rules.
            pub fn option_values(&self) -> Vec<(&'static str, String)> {
                let mut out = vec![ $( (stringify!($field), self.$field.show_value()) ),* ];
                out.retain(|(name, _)| self.applies(name));
                out
            }
        }
    };
}

options! {
    /// Seating for five players: `two_sides` (default) or `each_alone`.
    five_players: FivePlayers,
    /// Seating for six players: `three_pairs` (default) or `two_teams_of_three`.
    six_players: SixPlayers,
    /// Number of 52-card decks: 2, or 3 (six players in three pairs, Samba, Swiss for 4-5).
    decks: u8,
    /// Number of jokers: 4 or 6 with 2 decks (Rasche a: 6), 6 with 3 decks (9 with Samba's wild canastas).
    jokers: u8,
    /// Cards dealt to each player (Rasche c: 13).
    hand_size: u8,
    /// Cards drawn from the stock in a turn: 1, or 2 (two players, Samba).
    draw: u8,
    /// Canastas a side needs before one of its players may go out.
    canastas_to_go_out: u8,
    /// Going out needs a natural canasta (Rasche h).
    go_out_needs_natural_canasta: bool,
    /// Going out always ends with a discard (Swiss).
    go_out_requires_discard: bool,
    /// The score that ends the match (Rasche d: 5000, 7500 or 10000).
    target_score: i32,
    /// Initial-meld minimums as score:minimum tiers (Rasche e: -inf:25,0:90,1500:120,3000:150).
    minimum_table: MinimumTable,
    /// A concealed going out must reach the initial-meld minimum too (Samba).
    concealed_needs_minimum: bool,
    /// Bonus for a natural canasta.
    natural_canasta_bonus: i32,
    /// Bonus for a mixed canasta.
    mixed_canasta_bonus: i32,
    /// Bonus for going out.
    going_out_bonus: i32,
    /// Bonus for going out concealed with a canasta of one's own, instead of the going-out bonus (Rasche f: 500; Wiener: 1000).
    concealed_bonus: i32,
    /// Bonus for going out concealed without a canasta of one's own (Wiener: 200); `none`: that is a plain going out.
    concealed_without_canasta_bonus: Option<i32>,
    /// A concealed going out in a turn that took the pile earns the raised bonus (Wiener: no).
    concealed_bonus_after_take: bool,
    /// Points a side loses when a player told "yes" by his partner does not go out.
    ask_partner_penalty: i32,
    /// Red-three scores by the number a side laid, from 0 (official, 2 decks: 0,100,200,300,800).
    red_three_scores: RedThreeTable,
    /// When red threes count for a side: `initial_meld`, `canasta` (Rasche i, Wiener, Swiss) or `N_canastas` (Samba: 2).
    red_threes_positive: RedThreesPositive,
    /// Most wild cards in one group (Samba: 2).
    max_wilds: u8,
    /// Wild cards against naturals in a group: `any`, `not_more_than_naturals`, `fewer_than_naturals`.
    wild_ratio: WildRatio,
    /// Wild cards may be added to a completed canasta (Samba: no).
    wilds_on_canasta: bool,
    /// Most black threes in the meld laid when going out (Samba: 6).
    black_three_meld_max: u8,
    /// No card may be added to a completed canasta (Rasche j).
    closed_canastas: bool,
    /// A side may have several melds of one rank (Samba, Swiss).
    multiple_melds_per_rank: bool,
    /// Sequences of one suit may be melded, seven making a samba (Samba).
    sequences: bool,
    /// Bonus for a samba, a sequence of seven.
    samba_bonus: i32,
    /// Melds of wild cards only may be laid, seven making a wild canasta (Rasche b, Samba supplement).
    wild_canastas: bool,
    /// Bonus for a wild canasta of jokers and twos.
    wild_canasta_bonus: i32,
    /// Bonus for a wild canasta of seven jokers (Rasche b: optionally 2000; Samba: 4000).
    joker_canasta_bonus: i32,
    /// Bonus for a wild canasta of seven twos (Samba: 3000).
    deuce_canasta_bonus: i32,
    /// The pile may be taken for an initial meld with one natural and a wild card (Rasche g).
    initial_take_without_pair: bool,
    /// An unfrozen pile may be taken with one natural and one wild card (Samba: no).
    pile_with_natural_and_wild: bool,
    /// An unfrozen pile may be taken by adding its top card to a canasta (Samba: no).
    pile_onto_canasta: bool,
    /// While the top card could be added to one of the side's canastas, the pile is taken only with a natural pair from the hand (Samba, seed 003).
    pair_if_top_fits_canasta: bool,
    /// With the stock empty, the pile must be taken whenever any take is legal, frozen or not (seeds 000, 002); otherwise only when the top card fits a meld of the side and the pile is not frozen for it.
    forcing_frozen: bool,
    /// The player who took the pile may meld again in that turn (Swiss: only stop cards onto a canasta).
    meld_after_take: bool,
    /// A player holding one card may not take a pile of one card (R-PILE-6; Wiener: dropped).
    one_card_pile_rule: bool,
    /// What else blocks the pile: `black_threes` (only wild cards and black threes), `wiener`, `swiss`.
    stop_rule: StopRule,
    /// The player before the dealer cuts and keeps the wild cards exposed at the cut (Swiss).
    cut_keeps_wilds: bool,
}

/// The Rasche options a) to j) (seed 000) by their letters: `rasche_a` … `rasche_j`, each
/// setting the options it stands for. A true value (or, for d and f, a number) switches it on.
pub const RASCHE_OPTIONS: &[(&str, &str)] = &[
    ("rasche_a", "six jokers: jokers=6"),
    (
        "rasche_b",
        "wild-card canastas, bonus 1000: wild_canastas=true (joker_canasta_bonus for 2000, with a pack of seven jokers or more)",
    ),
    ("rasche_c", "thirteen cards dealt: hand_size=13"),
    (
        "rasche_d",
        "the target, 5000, 7500 or 10000: target_score=N",
    ),
    (
        "rasche_e",
        "minimums 25-90-120-150: minimum_table=-inf:25,0:90,1500:120,3000:150",
    ),
    (
        "rasche_f",
        "concealed going-out bonus, 200, 500 or more: concealed_bonus=N",
    ),
    (
        "rasche_g",
        "the pile taken for an initial meld without a natural pair: initial_take_without_pair=true",
    ),
    (
        "rasche_h",
        "going out needs a natural canasta: go_out_needs_natural_canasta=true",
    ),
    (
        "rasche_i",
        "red threes count for a side only with a canasta: red_threes_positive=canasta",
    ),
    (
        "rasche_j",
        "no cards added to a completed canasta: closed_canastas=true",
    ),
];

/// The options a Rasche letter stands for, with the value given (see [`RASCHE_OPTIONS`]):
/// `None` if the name is no Rasche letter. Switching a letter on sets its options; switching off
/// b, g, h or j sets the option to false, while off for a, c, e or i leaves the preset's value
/// (those letters name a change, not a setting).
fn rasche_alias(
    name: &str,
    value: &str,
) -> Option<Result<Vec<(&'static str, String)>, RulesError>> {
    let flag = || {
        bool::parse_value(value).map_err(|why| RulesError::BadValue {
            option: name.to_string(),
            why,
        })
    };
    let switch = |option: &'static str| flag().map(|on| vec![(option, on.to_string())]);
    let change = |option: &'static str, on_value: &str| {
        flag().map(|on| {
            if on {
                vec![(option, on_value.to_string())]
            } else {
                vec![]
            }
        })
    };
    Some(match name {
        "rasche_a" => change("jokers", "6"),
        "rasche_b" => switch("wild_canastas"),
        "rasche_c" => change("hand_size", "13"),
        "rasche_d" => Ok(vec![("target_score", value.to_string())]),
        "rasche_e" => change("minimum_table", "-inf:25,0:90,1500:120,3000:150"),
        "rasche_f" => Ok(vec![("concealed_bonus", value.to_string())]),
        "rasche_g" => switch("initial_take_without_pair"),
        "rasche_h" => switch("go_out_needs_natural_canasta"),
        "rasche_i" => change("red_threes_positive", "canasta"),
        "rasche_j" => switch("closed_canastas"),
        _ => return None,
    })
}

/// The most cards `hand_size` may deal. Every rule set deals 11 to 15 (R-DEAL-2); bigger
/// hands serve short stocks, a deal that reaches the end of the stock in a few turns (two
/// players with 43 cards each, as the rules' tests of the last stock card play). The number of
/// initial melds a hand holds grows combinatorially with its size (a hand of sixty has
/// millions), and a server summarises and lists a player's choices at every turn: that search
/// is bounded whatever the hand ([`crate::legal::LIST_STEPS`]), and this bound keeps the dealt
/// hands below the sizes where it is cut from the very first turn.
pub const MAX_HAND_SIZE: u8 = 45;

/// An unvalidated rule set: a preset, a player count and option overrides. Turn it into
/// [`Rules`] with [`Rules::new`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RuleSpec {
    /// The preset.
    pub preset: Preset,
    /// Number of players, 2 to 6.
    pub players: u8,
    /// Overrides.
    pub options: Options,
}

impl RuleSpec {
    /// A preset for a player count, with no overrides.
    pub fn new(preset: Preset, players: u8) -> RuleSpec {
        RuleSpec {
            preset,
            players,
            options: Options::default(),
        }
    }

    /// Sets an option by name (builder style).
    pub fn with(mut self, name: &str, value: &str) -> Result<RuleSpec, RulesError> {
        self.options.set(name, value)?;
        Ok(self)
    }
}

/// Why a rule set was refused.
///
/// Not `#[non_exhaustive]`, unlike the engine's other enums that grow: each variant is a reason
/// of the protocol (`canasta_proto::reason::Reason`), which maps them exhaustively, so that a
/// new one does not compile until the wire names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RulesError {
    /// No preset has this name.
    UnknownPreset(String),
    /// No option has this name.
    UnknownOption(String),
    /// The option's value cannot be read.
    BadValue {
        /// The option.
        option: String,
        /// What is expected.
        why: String,
    },
    /// The player count is outside 2 to 6, or the preset does not support it.
    Players(String),
    /// Options that contradict each other or the player count; the message names them.
    Conflict(String),
}

impl RulesError {
    /// A stable machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            RulesError::UnknownPreset(_) => "UNKNOWN_PRESET",
            RulesError::UnknownOption(_) => "UNKNOWN_OPTION",
            RulesError::BadValue { .. } => "BAD_OPTION_VALUE",
            RulesError::Players(_) => "BAD_PLAYER_COUNT",
            RulesError::Conflict(_) => "OPTION_CONFLICT",
        }
    }
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RulesError::UnknownPreset(p) => write!(
                f,
                "there is no preset {}: choose one of official, wiener, samba, swiss",
                quoted(p)
            ),
            RulesError::UnknownOption(o) => {
                let names: Vec<&str> = OPTION_DOCS.iter().map(|d| d.0).collect();
                write!(
                    f,
                    "there is no option {}: the options are {}, and the Rasche letters rasche_a to rasche_j",
                    quoted(o),
                    names.join(", ")
                )
            }
            RulesError::BadValue { option, why } => write!(f, "option {option}: {why}"),
            RulesError::Players(why) => f.write_str(why),
            RulesError::Conflict(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for RulesError {}

impl Rules {
    /// Validates a rule spec: the preset's defaults for the player count, then the overrides,
    /// then every check. The error names the options that conflict.
    pub fn new(spec: &RuleSpec) -> Result<Rules, RulesError> {
        let players = spec.players;
        let preset = spec.preset;
        let allowed = match preset {
            Preset::Official | Preset::Wiener => 2..=6,
            Preset::Samba => 2..=4,
            Preset::Swiss => 2..=5,
        };
        if !allowed.contains(&players) {
            return Err(RulesError::Players(format!(
                "{players} players: the {preset} preset is played by {} to {} players",
                allowed.start(),
                allowed.end()
            )));
        }
        let o = &spec.options;
        if o.five_players.is_some() && players != 5 {
            return Err(RulesError::Conflict(format!(
                "option five_players applies to 5 players only, and this game has {players}: remove five_players"
            )));
        }
        if o.six_players.is_some() && players != 6 {
            return Err(RulesError::Conflict(format!(
                "option six_players applies to 6 players only, and this game has {players}: remove six_players"
            )));
        }
        let mut rules = Rules::defaults(
            preset,
            players,
            o.five_players.unwrap_or(FivePlayers::TwoSides),
            o.six_players.unwrap_or(SixPlayers::ThreePairs),
        );
        // The red-three table and the jokers follow the pack unless they are set explicitly:
        // three decks are played with six jokers (R-CARD-1), so `decks=3` alone is that pack;
        // two decks keep the preset's four or six.
        if let Some(decks) = o.decks
            && decks != rules.decks
        {
            if decks == 3 && o.jokers.is_none() {
                rules.jokers = rules.jokers.max(6);
            }
            rules.red_three_scores = default_red_three_scores(preset, decks);
            // Saturating: `check` refuses a deck count out of range below, with its reason.
            rules.black_three_meld_max = rules.black_three_meld_max.min(decks.saturating_mul(2));
        }
        if o.wild_canastas == Some(true) && preset == Preset::Samba && o.jokers.is_none() {
            // The Samba supplement plays wild canastas with three more jokers (R-SAMBA-9).
            rules.jokers = 9;
        }
        o.apply_to(&mut rules);
        rules.check(o)?;
        Ok(rules)
    }

    /// The official rules for a player count, with no overrides (R-DEAL-2).
    pub fn official(players: u8) -> Result<Rules, RulesError> {
        Rules::new(&RuleSpec::new(Preset::Official, players))
    }

    /// A preset's rules for a player count, with no overrides.
    pub fn preset(preset: Preset, players: u8) -> Result<Rules, RulesError> {
        Rules::new(&RuleSpec::new(preset, players))
    }

    /// The preset's values for a player count: the one table of defaults.
    fn defaults(preset: Preset, players: u8, five: FivePlayers, six: SixPlayers) -> Rules {
        let (decks, jokers, hand_size, draw, canastas) = match (players, six) {
            (2, _) => (2, 4, 15, 2, 2),
            (3, _) => (2, 4, 13, 1, 1),
            (6, SixPlayers::ThreePairs) => (3, 6, 13, 1, 2),
            _ => (2, 4, 11, 1, 1),
        };
        let official = Rules {
            preset,
            players,
            five_players: five,
            six_players: six,
            decks,
            jokers,
            hand_size,
            draw,
            canastas_to_go_out: canastas,
            go_out_needs_natural_canasta: false,
            go_out_requires_discard: false,
            target_score: 5000,
            minimum_table: MinimumTable::official(),
            concealed_needs_minimum: false,
            natural_canasta_bonus: 500,
            mixed_canasta_bonus: 300,
            going_out_bonus: 100,
            concealed_bonus: 200,
            concealed_without_canasta_bonus: None,
            concealed_bonus_after_take: true,
            ask_partner_penalty: 100,
            red_three_scores: default_red_three_scores(Preset::Official, decks),
            red_threes_positive: RedThreesPositive::InitialMeld,
            max_wilds: 3,
            wild_ratio: WildRatio::Any,
            wilds_on_canasta: true,
            black_three_meld_max: 4,
            closed_canastas: false,
            multiple_melds_per_rank: false,
            sequences: false,
            samba_bonus: 1500,
            wild_canastas: false,
            wild_canasta_bonus: 1000,
            joker_canasta_bonus: 1000,
            deuce_canasta_bonus: 1000,
            initial_take_without_pair: false,
            pile_with_natural_and_wild: true,
            pile_onto_canasta: true,
            pair_if_top_fits_canasta: false,
            forcing_frozen: false,
            meld_after_take: true,
            one_card_pile_rule: true,
            stop_rule: StopRule::BlackThrees,
            cut_keeps_wilds: false,
        };
        match preset {
            Preset::Official => official,
            // Seed 001, "Wiener Canasta".
            Preset::Wiener => Rules {
                red_threes_positive: RedThreesPositive::Canastas(1),
                wild_ratio: WildRatio::NotMoreThanNaturals,
                stop_rule: StopRule::Wiener,
                concealed_bonus: 1000,
                concealed_without_canasta_bonus: Some(200),
                concealed_bonus_after_take: false,
                one_card_pile_rule: false,
                ..official
            },
            // Seed 003 and R-SAMBA.
            Preset::Samba => Rules {
                decks: 3,
                jokers: 6,
                hand_size: 15,
                draw: 2,
                canastas_to_go_out: 2,
                target_score: 10000,
                minimum_table: MinimumTable::new(&[
                    (i32::MIN, 15),
                    (0, 50),
                    (1500, 90),
                    (3000, 120),
                    (7000, 150),
                ])
                .expect("ascending tiers"),
                concealed_needs_minimum: true,
                going_out_bonus: 200,
                concealed_bonus: 200,
                red_three_scores: default_red_three_scores(Preset::Samba, 3),
                red_threes_positive: RedThreesPositive::Canastas(2),
                max_wilds: 2,
                wilds_on_canasta: false,
                black_three_meld_max: 6,
                multiple_melds_per_rank: true,
                sequences: true,
                wild_canasta_bonus: 2000,
                joker_canasta_bonus: 4000,
                deuce_canasta_bonus: 3000,
                pile_with_natural_and_wild: false,
                pile_onto_canasta: false,
                // Seed 003: "ebenso wenig, wenn die oberste Karte an einen Canasta angelegt
                // werden kann (ausgenommen mit einem Paar ... aus der Hand)".
                pair_if_top_fits_canasta: true,
                ..official
            },
            // Seed 004, "Kanaster".
            Preset::Swiss => {
                let decks = if players >= 4 { 3 } else { 2 };
                Rules {
                    decks,
                    jokers: if decks == 3 { 6 } else { 4 },
                    hand_size: 13,
                    // Seed 004: a card is taken from the stock, whatever the number of players.
                    draw: 1,
                    minimum_table: MinimumTable::new(&[(i32::MIN, 50), (1500, 90), (3000, 120)])
                        .expect("ascending tiers"),
                    max_wilds: 8,
                    wild_ratio: WildRatio::FewerThanNaturals,
                    black_three_meld_max: decks * 2,
                    multiple_melds_per_rank: true,
                    meld_after_take: false,
                    go_out_requires_discard: true,
                    // Seed 004: the first laying-out needs the minimum, even when it goes out.
                    concealed_needs_minimum: true,
                    canastas_to_go_out: 1,
                    red_three_scores: default_red_three_scores(Preset::Swiss, decks),
                    red_threes_positive: RedThreesPositive::Canastas(1),
                    stop_rule: StopRule::Swiss,
                    cut_keeps_wilds: true,
                    ..official
                }
            }
        }
    }

    fn check(&self, o: &Options) -> Result<(), RulesError> {
        let conflict = |s: String| Err(RulesError::Conflict(s));
        let wild_jokers = if self.wild_canastas { 3 } else { 0 };
        match self.decks {
            2 if ![4, 6].contains(&self.jokers) => {
                return conflict(format!(
                    "jokers={} with decks=2: two decks are played with 4 or 6 jokers",
                    self.jokers
                ));
            }
            3 if self.jokers != 6 && self.jokers != 6 + wild_jokers => {
                return conflict(format!(
                    "jokers={} with decks=3: three decks are played with 6 jokers, or 9 with wild_canastas",
                    self.jokers
                ));
            }
            2 | 3 => {}
            d => return conflict(format!("decks={d}: Canasta is played with 2 or 3 decks")),
        }
        let pack = self.decks as u32 * 52 + self.jokers as u32;
        let dealt = self.hand_size as u32 * self.active_players() as u32;
        // The upcard procedure turns cards until a natural one shows (R-DEAL-5): the stock left
        // after dealing must hold more cards than the pack has wild cards and threes.
        let specials = self.jokers as u32 + self.decks as u32 * 8;
        if self.hand_size > MAX_HAND_SIZE {
            return conflict(format!(
                "hand_size={}: at most {MAX_HAND_SIZE} cards are dealt (every rule set deals 11 to 15; the search for a player's choices, which a server makes at every turn, grows combinatorially with the hand)",
                self.hand_size
            ));
        }
        if self.hand_size == 0 || dealt + specials + 1 > pack {
            let hint = if o.hand_size.is_some() {
                "lower hand_size"
            } else {
                "raise decks"
            };
            return conflict(format!(
                "hand_size={} for {} active players deals {dealt} of {pack} cards (decks={}, jokers={}), which leaves too small a stock: {hint}",
                self.hand_size,
                self.active_players(),
                self.decks,
                self.jokers
            ));
        }
        if !(1..=3).contains(&self.draw) {
            return conflict(format!(
                "draw={}: a player draws 1, 2 or 3 cards",
                self.draw
            ));
        }
        if !(1..=5).contains(&self.canastas_to_go_out) {
            return conflict(format!(
                "canastas_to_go_out={}: it must be between 1 and 5",
                self.canastas_to_go_out
            ));
        }
        if self.target_score <= 0 {
            return conflict(format!(
                "target_score={}: the target must be positive",
                self.target_score
            ));
        }
        let red_threes = self.decks * 2;
        if self.red_three_scores.values().len() != red_threes as usize + 1 {
            return conflict(format!(
                "red_three_scores has {} values but decks={} gives {red_threes} red threes: give {} values, from 0 red threes to {red_threes}",
                self.red_three_scores.values().len(),
                self.decks,
                red_threes + 1
            ));
        }
        if self.max_wilds > 8 {
            return conflict(format!(
                "max_wilds={}: at most 8 wild cards in a meld",
                self.max_wilds
            ));
        }
        let black_threes = self.decks * 2;
        if self.black_three_meld_max < 3 || self.black_three_meld_max > black_threes {
            return conflict(format!(
                "black_three_meld_max={} with decks={}: it must be between 3 and {black_threes}",
                self.black_three_meld_max, self.decks
            ));
        }
        if let RedThreesPositive::Canastas(n) = self.red_threes_positive
            && n == 0
        {
            return conflict("red_threes_positive needs at least one canasta".into());
        }
        // Options that make no sense together: name both.
        if self.initial_take_without_pair && !self.pile_with_natural_and_wild {
            return conflict(
                "initial_take_without_pair=true (Rasche g) lets an initial meld take the pile with one natural and a wild card, but pile_with_natural_and_wild=false (Samba) forbids that take: set only one of them".into(),
            );
        }
        if !self.wild_canastas {
            for (name, set) in [
                ("wild_canasta_bonus", o.wild_canasta_bonus.is_some()),
                ("joker_canasta_bonus", o.joker_canasta_bonus.is_some()),
                ("deuce_canasta_bonus", o.deuce_canasta_bonus.is_some()),
            ] {
                if set {
                    return conflict(format!(
                        "{name} is set but wild_canastas=false: set wild_canastas=true or remove {name}"
                    ));
                }
            }
        }
        if !self.sequences && o.samba_bonus.is_some() {
            return conflict(
                "samba_bonus is set but sequences=false: set sequences=true or remove samba_bonus"
                    .into(),
            );
        }
        if self.concealed_without_canasta_bonus.is_some() && self.canastas_to_go_out == 0 {
            return conflict("concealed_without_canasta_bonus needs canastas_to_go_out".into());
        }
        // Options that would have nothing to act on.
        if self.wild_canastas
            && o.joker_canasta_bonus.is_some()
            && (self.jokers as usize) < crate::meld::CANASTA_LEN
        {
            return conflict(format!(
                "joker_canasta_bonus is set but jokers={}: a canasta of jokers needs seven, so the bonus can never be scored: set jokers to 9 (three decks) or remove joker_canasta_bonus",
                self.jokers
            ));
        }
        if self.max_wilds == 0 && self.initial_take_without_pair {
            return conflict(
                "initial_take_without_pair=true (Rasche g) takes the pile with a wild card, but max_wilds=0 allows none in a meld: raise max_wilds or remove initial_take_without_pair".into(),
            );
        }
        if self.closed_canastas {
            // Closed canastas (Rasche j) take no card. The Swiss rule is built on adding stop
            // cards under a canasta (seed 004), so the two contradict each other. (The Wiener
            // stop rule merely has nothing left to act on: a preset default, kept.)
            if self.stop_rule == StopRule::Swiss {
                return conflict(
                    "closed_canastas=true (Rasche j) forbids adding any card to a canasta, but stop_rule=swiss lets the player who takes the pile lay stop cards under the canasta of their rank: set closed_canastas=false, or stop_rule=black_threes or wiener".into(),
                );
            }
            for (name, set) in [
                ("wilds_on_canasta", o.wilds_on_canasta.is_some()),
                ("pile_onto_canasta", o.pile_onto_canasta.is_some()),
                (
                    "pair_if_top_fits_canasta",
                    o.pair_if_top_fits_canasta.is_some(),
                ),
            ] {
                if set {
                    return conflict(format!(
                        "{name} is set, but it is about adding cards to a canasta, which closed_canastas=true (Rasche j) forbids: remove {name} or closed_canastas"
                    ));
                }
            }
        }
        Ok(())
    }

    /// True if the option matters for these rules (see [`Rules::option_values`]).
    fn applies(&self, option: &str) -> bool {
        match option {
            "five_players" => self.players == 5,
            "six_players" => self.players == 6,
            "wild_canasta_bonus" | "deuce_canasta_bonus" => self.wild_canastas,
            // A canasta of jokers needs seven of them.
            "joker_canasta_bonus" => {
                self.wild_canastas && self.jokers as usize >= crate::meld::CANASTA_LEN
            }
            // Nothing is added to a closed canasta.
            "wilds_on_canasta" | "pile_onto_canasta" | "pair_if_top_fits_canasta" => {
                !self.closed_canastas
            }
            "samba_bonus" => self.sequences,
            _ => true,
        }
    }

    /// Players who hold cards in a deal: everyone, except those sitting out (R-DEAL-2).
    pub fn active_players(&self) -> u8 {
        match (self.players, self.five_players, self.six_players) {
            (5, FivePlayers::TwoSides, _) => 4,
            (6, _, SixPlayers::TwoTeamsOfThree) => 4,
            (n, _, _) => n,
        }
    }

    /// Number of cards in the pack.
    pub fn pack_size(&self) -> usize {
        self.decks as usize * 52 + self.jokers as usize
    }

    /// The initial-meld minimum for a side with this cumulative score (R-INIT-1).
    pub fn minimum_for(&self, score: i32) -> u32 {
        self.minimum_table.minimum_for(score)
    }
}

/// The red-three scores by preset and pack (R-RED-5, R-SAMBA-8): official 100 each, all four of
/// two decks 800, five of three decks 1000 and six 1200; Samba 1000 for all six; Swiss a flat 100
/// each.
fn default_red_three_scores(preset: Preset, decks: u8) -> RedThreeTable {
    let values: &[i32] = match (preset, decks) {
        (Preset::Samba, 3) => &[0, 100, 200, 300, 400, 500, 1000],
        (Preset::Swiss, 3) => &[0, 100, 200, 300, 400, 500, 600],
        (Preset::Swiss, _) => &[0, 100, 200, 300, 400],
        (_, 3) => &[0, 100, 200, 300, 400, 1000, 1200],
        _ => &[0, 100, 200, 300, 800],
    };
    RedThreeTable::new(values).expect("a valid table")
}

#[cfg(test)]
mod tests {
    use super::*;

    // R-DEAL-2: the defaults by player count.
    #[test]
    fn r_deal_2_defaults_by_player_count() {
        let r = |n| Rules::official(n).unwrap();
        let row = |r: Rules| (r.hand_size, r.draw, r.canastas_to_go_out, r.decks, r.jokers);
        assert_eq!(row(r(2)), (15, 2, 2, 2, 4));
        assert_eq!(row(r(3)), (13, 1, 1, 2, 4));
        assert_eq!(row(r(4)), (11, 1, 1, 2, 4));
        assert_eq!(row(r(5)), (11, 1, 1, 2, 4));
        assert_eq!(row(r(6)), (13, 1, 2, 3, 6));
        let b = Rules::new(
            &RuleSpec::new(Preset::Official, 6)
                .with("six_players", "two_teams_of_three")
                .unwrap(),
        )
        .unwrap();
        assert_eq!(row(b), (11, 1, 1, 2, 4));
        assert_eq!(b.active_players(), 4);
        let five_alone = Rules::new(
            &RuleSpec::new(Preset::Official, 5)
                .with("five_players", "each_alone")
                .unwrap(),
        )
        .unwrap();
        assert_eq!(row(five_alone), (11, 1, 1, 2, 4));
        assert_eq!(five_alone.active_players(), 5);
    }

    #[test]
    fn r_init_1_minimum_table() {
        let r = Rules::official(4).unwrap();
        assert_eq!(r.minimum_for(-5), 15);
        assert_eq!(r.minimum_for(0), 50);
        assert_eq!(r.minimum_for(1495), 50);
        assert_eq!(r.minimum_for(1500), 90);
        assert_eq!(r.minimum_for(2995), 90);
        assert_eq!(r.minimum_for(3000), 120);
        assert_eq!(r.minimum_for(9000), 120);
        let e: MinimumTable = "-inf:25,0:90,1500:120,3000:150".parse().unwrap();
        assert_eq!(e.minimum_for(-1), 25);
        assert_eq!(e.minimum_for(3000), 150);
        assert_eq!(e.to_string(), "-inf:25,0:90,1500:120,3000:150");
    }

    #[test]
    fn options_round_trip_by_name() {
        let spec = RuleSpec::new(Preset::Official, 4)
            .with("jokers", "6")
            .unwrap()
            .with("target_score", "7500")
            .unwrap()
            .with("closed_canastas", "true")
            .unwrap();
        let rules = Rules::new(&spec).unwrap();
        assert_eq!((rules.jokers, rules.target_score), (6, 7500));
        assert!(rules.closed_canastas);
        let entries = spec.options.entries();
        assert!(entries.contains(&("jokers", "6".to_string())));
        let mut again = RuleSpec::new(Preset::Official, 4);
        for (name, value) in rules.option_values() {
            again.options.set(name, &value).unwrap();
        }
        assert_eq!(Rules::new(&again), Ok(rules));
    }

    /// Regression (found by fuzzing): a deck count over 127 overflowed while the black-three
    /// limit was derived from it, a panic in debug builds, before it could be refused.
    #[test]
    fn huge_deck_counts_are_refused_not_overflowed() {
        for decks in ["128", "200", "255"] {
            let spec = RuleSpec::new(Preset::Official, 4)
                .with("decks", decks)
                .unwrap();
            let e = Rules::new(&spec).unwrap_err();
            assert_eq!(e.code(), "OPTION_CONFLICT", "{e}");
            assert!(e.to_string().contains(&format!("decks={decks}")), "{e}");
        }
    }

    #[test]
    fn contradictions_name_the_options() {
        let err = |spec: Result<RuleSpec, RulesError>| Rules::new(&spec.unwrap()).unwrap_err();
        let e = err(RuleSpec::new(Preset::Official, 4)
            .with("decks", "3")
            .and_then(|s| s.with("jokers", "4")));
        assert!(
            e.to_string().contains("jokers=4") && e.to_string().contains("decks=3"),
            "{e}"
        );
        let e = err(RuleSpec::new(Preset::Official, 4).with("decks", "4"));
        assert!(e.to_string().contains("2 or 3 decks"), "{e}");
        let e = err(RuleSpec::new(Preset::Official, 4).with("five_players", "each_alone"));
        assert!(e.to_string().contains("five_players"), "{e}");
        let e = err(RuleSpec::new(Preset::Official, 4).with("hand_size", "30"));
        assert!(e.to_string().contains("hand_size=30"), "{e}");
        // The fuzzer's crash: Samba for two with 63 cards each fits the pack, not the bound.
        let e = err(RuleSpec::new(Preset::Samba, 2).with("hand_size", "63"));
        assert!(e.to_string().contains("at most 45"), "{e}");
        assert_eq!(e.code(), "OPTION_CONFLICT");
        assert!(
            Rules::new(
                &RuleSpec::new(Preset::Samba, 2)
                    .with("hand_size", "45")
                    .unwrap()
            )
            .is_ok()
        );
        let e = err(RuleSpec::new(Preset::Official, 4).with("red_three_scores", "0,100,200"));
        assert!(e.to_string().contains("red_three_scores"), "{e}");
        assert_eq!(e.code(), "OPTION_CONFLICT");
        assert_eq!(Rules::official(7).unwrap_err().code(), "BAD_PLAYER_COUNT");
        assert_eq!(
            RuleSpec::new(Preset::Official, 4)
                .with("nope", "1")
                .unwrap_err()
                .code(),
            "UNKNOWN_OPTION"
        );
        assert_eq!(
            RuleSpec::new(Preset::Official, 4)
                .with("jokers", "many")
                .unwrap_err()
                .code(),
            "BAD_OPTION_VALUE"
        );
    }

    #[test]
    fn three_decks_change_the_red_three_scores() {
        let rules = Rules::new(
            &RuleSpec::new(Preset::Official, 4)
                .with("decks", "3")
                .unwrap()
                .with("jokers", "6")
                .unwrap(),
        )
        .unwrap();
        assert_eq!(rules.red_three_scores.value(6), 1200);
        assert_eq!(rules.red_three_scores.value(5), 1000);
    }
}
