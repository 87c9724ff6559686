//! Seats, sides and who plays each deal (R-DEAL-1, R-DEAL-2, R-DEAL-3).
//!
//! A *seat* is a participant of the game, numbered `0..players` clockwise. A *side* is a
//! partnership (or a single player): partners share melds, score and initial-meld state. With five
//! players in two sides, or six in two teams of three, four *chairs* are played each deal: the
//! sides alternate round the table and the members of a three-player side take turns sitting
//! out, the one who sat out longest coming back first.

use crate::rules::{FivePlayers, Rules, SixPlayers};

/// Most seats in a game.
pub const MAX_SEATS: usize = 6;

/// A participant, numbered clockwise from 0.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Seat(pub u8);

impl Seat {
    /// The seat number as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A side: a partnership, or a player alone.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Side(pub u8);

impl Side {
    /// The side number as an index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The seats that play one deal, in clockwise playing order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Chairs {
    seats: [Seat; MAX_SEATS],
    len: u8,
}

impl Chairs {
    fn new(seats: &[u8]) -> Chairs {
        let mut s = [Seat(0); MAX_SEATS];
        for (slot, &seat) in s.iter_mut().zip(seats) {
            *slot = Seat(seat);
        }
        Chairs {
            seats: s,
            len: seats.len() as u8,
        }
    }

    /// The playing seats, in order.
    pub fn seats(&self) -> &[Seat] {
        &self.seats[..self.len as usize]
    }

    /// Number of chairs.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Always false: a deal has at least two chairs.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The seat in chair `i`.
    pub fn seat(&self, i: usize) -> Seat {
        self.seats[i % self.len()]
    }

    /// The chair of a seat, if it plays this deal.
    pub fn chair_of(&self, seat: Seat) -> Option<usize> {
        self.seats().iter().position(|&s| s == seat)
    }
}

/// The seating of a game: sides and their members, fixed for the whole match.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Table {
    players: u8,
    sides: u8,
    side_of: [Side; MAX_SEATS],
    rotation: Rotation,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Rotation {
    /// Everyone plays every deal, chair = seat.
    None,
    /// Five players: side 0 is seats 0, 2, 4 (one sits out), side 1 is seats 1, 3.
    FiveTwoSides,
    /// Six players: side 0 is seats 0, 2, 4, side 1 is seats 1, 3, 5; one of each sits out.
    SixTwoTeams,
}

impl Table {
    /// The seating the rules give (R-DEAL-2).
    pub fn new(rules: &Rules) -> Table {
        let players = rules.players;
        // Seats of one side sit every `spread` seats: partners opposite, sides alternating.
        let (sides, spread, rotation) = match (players, rules.five_players, rules.six_players) {
            (4, _, _) => (2, 2, Rotation::None),
            (5, FivePlayers::TwoSides, _) => (2, 2, Rotation::FiveTwoSides),
            (6, _, SixPlayers::ThreePairs) => (3, 3, Rotation::None),
            (6, _, SixPlayers::TwoTeamsOfThree) => (2, 2, Rotation::SixTwoTeams),
            (n, _, _) => (n, n, Rotation::None),
        };
        let side_of = std::array::from_fn(|s| Side(s as u8 % spread));
        Table {
            players,
            sides,
            side_of,
            rotation,
        }
    }

    /// Number of seats.
    pub fn players(&self) -> u8 {
        self.players
    }

    /// Number of sides.
    pub fn sides(&self) -> u8 {
        self.sides
    }

    /// Every seat.
    pub fn seats(&self) -> impl Iterator<Item = Seat> + use<> {
        (0..self.players).map(Seat)
    }

    /// The side of a seat.
    ///
    /// # Panics
    ///
    /// If `seat` is not below [`MAX_SEATS`]: no table has it. (A seat below it that this table
    /// does not have is given the side it would sit in.)
    pub fn side_of(&self, seat: Seat) -> Side {
        self.side_of[seat.index()]
    }

    /// The side of every seat, by seat index (entries past the last seat are unused).
    pub(crate) fn sides_of(&self) -> &[Side; MAX_SEATS] {
        &self.side_of
    }

    /// The members of a side, in seat order.
    pub fn members(&self, side: Side) -> impl Iterator<Item = Seat> + '_ {
        self.seats().filter(move |&s| self.side_of(s) == side)
    }

    /// True if sides are partnerships (at least one side has two members).
    pub fn has_partnerships(&self) -> bool {
        self.sides < self.players
    }

    /// Who plays deal `deal` (0-based), in clockwise order. In a three-player side the member
    /// sitting out rotates: seat 4 (or 4 and 5) first, then seat 0 (and 1), then seat 2 (and 3).
    pub fn chairs(&self, deal: u32) -> Chairs {
        let out = (deal as usize + 2) % 3;
        let rest = |team: [u8; 3]| -> [u8; 2] {
            let mut r = [0; 2];
            let mut k = 0;
            for (i, &s) in team.iter().enumerate() {
                if i != out {
                    r[k] = s;
                    k += 1;
                }
            }
            r
        };
        match self.rotation {
            Rotation::None => Chairs::new(&[0, 1, 2, 3, 4, 5][..self.players as usize]),
            Rotation::FiveTwoSides => {
                let a = rest([0, 2, 4]);
                Chairs::new(&[a[0], 1, a[1], 3])
            }
            Rotation::SixTwoTeams => {
                let a = rest([0, 2, 4]);
                let b = rest([1, 3, 5]);
                Chairs::new(&[a[0], b[0], a[1], b[1]])
            }
        }
    }

    /// The partner of a seat in a deal: the other playing member of its side (R-OUT-3).
    ///
    /// # Panics
    ///
    /// If `seat` is not below [`MAX_SEATS`], as [`Table::side_of`].
    pub fn partner(&self, chairs: &Chairs, seat: Seat) -> Option<Seat> {
        let side = self.side_of(seat);
        chairs
            .seats()
            .iter()
            .copied()
            .find(|&s| s != seat && self.side_of(s) == side)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Preset, RuleSpec};

    fn table(players: u8, opt: Option<(&str, &str)>) -> Table {
        let mut spec = RuleSpec::new(Preset::Official, players);
        if let Some((k, v)) = opt {
            spec = spec.with(k, v).unwrap();
        }
        Table::new(&Rules::new(&spec).unwrap())
    }

    // R-DEAL-2, R-DEAL-3: sides and partners for every player count.
    #[test]
    fn r_deal_2_sides_by_player_count() {
        let t = table(2, None);
        assert_eq!(t.sides(), 2);
        assert!(!t.has_partnerships());
        let t = table(3, None);
        assert_eq!(t.sides(), 3);
        let t = table(4, None);
        assert_eq!(t.sides(), 2);
        assert_eq!(t.side_of(Seat(0)), t.side_of(Seat(2)));
        assert_eq!(t.side_of(Seat(1)), t.side_of(Seat(3)));
        assert_ne!(t.side_of(Seat(0)), t.side_of(Seat(1)));
        let c = t.chairs(0);
        assert_eq!(t.partner(&c, Seat(0)), Some(Seat(2)));
        assert_eq!(t.partner(&c, Seat(3)), Some(Seat(1)));
        let t = table(6, None);
        assert_eq!(t.sides(), 3);
        let c = t.chairs(0);
        assert_eq!(t.partner(&c, Seat(0)), Some(Seat(3)));
        assert_eq!(t.partner(&c, Seat(1)), Some(Seat(4)));
        assert_eq!(t.partner(&c, Seat(5)), Some(Seat(2)));
        let t = table(5, Some(("five_players", "each_alone")));
        assert_eq!(t.sides(), 5);
        assert_eq!(t.chairs(0).len(), 5);
        assert_eq!(t.partner(&t.chairs(0), Seat(0)), None);
    }

    // R-DEAL-2: five players, the side of three rotates who sits out; sides alternate.
    #[test]
    fn r_deal_2_five_player_sit_out_rotation() {
        let t = table(5, None);
        assert_eq!(t.sides(), 2);
        let seats = |d| t.chairs(d).seats().iter().map(|s| s.0).collect::<Vec<_>>();
        assert_eq!(seats(0), vec![0, 1, 2, 3]);
        assert_eq!(seats(1), vec![2, 1, 4, 3]);
        assert_eq!(seats(2), vec![0, 1, 4, 3]);
        assert_eq!(seats(3), vec![0, 1, 2, 3]);
        for d in 0..6 {
            let c = t.chairs(d);
            for i in 0..4 {
                assert_ne!(t.side_of(c.seat(i)), t.side_of(c.seat(i + 1)), "deal {d}");
            }
        }
        // Over three deals each member of the side of three sits out once.
        let mut sat_out = [0; 5];
        for d in 0..3 {
            for s in 0..5u8 {
                if t.chairs(d).chair_of(Seat(s)).is_none() {
                    sat_out[s as usize] += 1;
                }
            }
        }
        assert_eq!(sat_out, [1, 0, 1, 0, 1]);
    }

    // R-DEAL-2: six players option B, two teams of three, one of each sits out.
    #[test]
    fn r_deal_2_six_player_two_teams() {
        let t = table(6, Some(("six_players", "two_teams_of_three")));
        assert_eq!(t.sides(), 2);
        let mut sat_out = [0; 6];
        for d in 0..3 {
            let c = t.chairs(d);
            assert_eq!(c.len(), 4);
            for i in 0..4 {
                assert_ne!(t.side_of(c.seat(i)), t.side_of(c.seat(i + 1)));
            }
            let p = t.partner(&c, c.seat(0)).unwrap();
            assert_eq!(c.chair_of(p), Some(2));
            for s in 0..6u8 {
                if c.chair_of(Seat(s)).is_none() {
                    sat_out[s as usize] += 1;
                }
            }
        }
        assert_eq!(sat_out, [1; 6]);
    }
}
