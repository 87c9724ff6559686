//! Matchmaking: the queues of seeks, one per kind of game (the same rules, time control and
//! ratedness), and how a game is formed from them.
//!
//! A queue holds, in arrival order, the units ready to sit: a lone seeker, or two seekers who
//! named each other as partners (a seeker whose partner has not come yet waits aside, not in
//! the queue). An arrival tries to form one game from the front of its queue: it takes units in
//! order while they fit (distinct players; a pair needs a side with two free seats) and stops
//! once the seats are filled, or after [`SCAN`] units per seat. So an arrival costs a bounded
//! number of steps whatever the queue's length: a thousand seekers are seated in a thousand
//! small steps, never a thousand times a thousand.

use std::collections::{HashMap, VecDeque};

/// A player's number in the lobby.
pub type PlayerId = u32;

/// A seek's number.
pub type SeekId = u64;

/// The units examined per seat to form a game, at most: past them an arrival gives up (the
/// game forms at a later arrival or cancel). Skipped units are those of a player already
/// chosen (one player's several seeks) or pairs that no longer fit.
const SCAN: usize = 8;

/// One seek in a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seeker {
    /// The seek.
    pub seek: SeekId,
    /// Its player.
    pub player: PlayerId,
}

#[derive(Clone, Copy, Debug)]
enum Unit {
    Single(Seeker),
    Pair(Seeker, Seeker),
}

impl Unit {
    fn seekers(&self) -> impl Iterator<Item = Seeker> {
        let (a, b) = match *self {
            Unit::Single(a) => (a, None),
            Unit::Pair(a, b) => (a, Some(b)),
        };
        std::iter::once(a).chain(b)
    }
}

/// The sides of a game: the seats of each.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Each side's seats.
    pub sides: Vec<Vec<usize>>,
}

impl Layout {
    /// Seats in all.
    pub fn seats(&self) -> usize {
        self.sides.iter().map(Vec::len).sum()
    }

    /// How many pairs can sit together, at most.
    fn pair_room(&self) -> usize {
        self.sides.iter().map(|s| s.len() / 2).sum()
    }

    /// True if some side has two seats (partners can be named).
    pub fn has_partners(&self) -> bool {
        self.pair_room() > 0
    }
}

/// One kind of game's queue.
#[derive(Debug)]
struct Queue {
    layout: Layout,
    units: VecDeque<Unit>,
    /// Seekers who named a partner not yet there: (player, partner) -> the seeks, oldest
    /// first.
    awaiting: HashMap<(PlayerId, PlayerId), VecDeque<Seeker>>,
}

impl Queue {
    fn waiting(&self) -> usize {
        self.units
            .iter()
            .map(|u| u.seekers().count())
            .sum::<usize>()
            + self.awaiting.values().map(VecDeque::len).sum::<usize>()
    }
}

/// A game formed: who sits where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formed {
    /// The seekers, in seat order.
    pub seats: Vec<Seeker>,
}

/// Every queue, by kind of game `K`.
#[derive(Debug)]
pub struct Matcher<K> {
    queues: HashMap<K, Queue>,
}

impl<K> Default for Matcher<K> {
    fn default() -> Self {
        Matcher {
            queues: HashMap::new(),
        }
    }
}

impl<K: std::hash::Hash + Eq + Clone> Matcher<K> {
    /// Adds a seek to its kind's queue (`partner`: the player it wants to sit with), and forms
    /// a game if the queue now holds one.
    pub fn add(
        &mut self,
        kind: &K,
        layout: &Layout,
        seeker: Seeker,
        partner: Option<PlayerId>,
    ) -> Option<Formed> {
        let queue = self.queues.entry(kind.clone()).or_insert_with(|| Queue {
            layout: layout.clone(),
            units: VecDeque::new(),
            awaiting: HashMap::new(),
        });
        match partner {
            None => queue.units.push_back(Unit::Single(seeker)),
            Some(partner) => {
                let key = (partner, seeker.player);
                let other = queue.awaiting.get_mut(&key).and_then(VecDeque::pop_front);
                if queue.awaiting.get(&key).is_some_and(VecDeque::is_empty) {
                    queue.awaiting.remove(&key);
                }
                match other {
                    Some(other) => queue.units.push_back(Unit::Pair(other, seeker)),
                    None => queue
                        .awaiting
                        .entry((seeker.player, partner))
                        .or_default()
                        .push_back(seeker),
                }
            }
        }
        let formed = form(queue);
        if queue.units.is_empty() && queue.awaiting.is_empty() {
            self.queues.remove(kind);
        }
        formed
    }

    /// Removes a seek (its stream closed); returns whether it was waiting. Its partner, if it
    /// was paired, waits on alone for it (or another seek of it) to come back; a game may form
    /// meanwhile without them.
    pub fn remove(&mut self, kind: &K, seek: SeekId) -> bool {
        let Some(queue) = self.queues.get_mut(kind) else {
            return false;
        };
        let mut found = false;
        if let Some(at) = queue
            .units
            .iter()
            .position(|u| u.seekers().any(|s| s.seek == seek))
        {
            found = true;
            if let Some(Unit::Pair(a, b)) = queue.units.remove(at) {
                let (gone, left) = if a.seek == seek { (a, b) } else { (b, a) };
                queue
                    .awaiting
                    .entry((left.player, gone.player))
                    .or_default()
                    .push_front(left);
            }
        } else if let Some(key) = queue
            .awaiting
            .iter()
            .find(|(_, w)| w.iter().any(|s| s.seek == seek))
            .map(|(k, _)| *k)
        {
            found = true;
            let waiting = queue.awaiting.get_mut(&key).expect("found");
            waiting.retain(|s| s.seek != seek);
            if waiting.is_empty() {
                queue.awaiting.remove(&key);
            }
        }
        if queue.units.is_empty() && queue.awaiting.is_empty() {
            self.queues.remove(kind);
        }
        found
    }

    /// Seekers waiting for a game of this kind.
    pub fn waiting(&self, kind: &K) -> usize {
        self.queues.get(kind).map_or(0, Queue::waiting)
    }

    /// The seeks waiting for a game of this kind (to tell them how the queue stands).
    pub fn seeks(&self, kind: &K) -> Vec<SeekId> {
        self.queues.get(kind).map_or_else(Vec::new, |q| {
            q.units
                .iter()
                .flat_map(Unit::seekers)
                .chain(q.awaiting.values().flatten().copied())
                .map(|s| s.seek)
                .collect()
        })
    }
}

impl<K: std::hash::Hash + Eq + Clone> Matcher<K> {
    /// Takes a seek that waits no more (its seats are to be filled with house bots) out of its
    /// queue, with the units that fit with it from the front of the queue: the seats, in
    /// order, with the seekers taken and `None` for those left empty. `None` if the seek does
    /// not wait (seated, cancelled) or waits aside for its partner (it then has no unit).
    pub fn take_partial(&mut self, kind: &K, seek: SeekId) -> Option<Vec<Option<Seeker>>> {
        let queue = self.queues.get_mut(kind)?;
        let at = queue
            .units
            .iter()
            .position(|u| u.seekers().any(|s| s.seek == seek))?;
        let seated = choose(queue, Some(at), false).map(|units| place(&queue.layout, &units));
        if queue.units.is_empty() && queue.awaiting.is_empty() {
            self.queues.remove(kind);
        }
        seated
    }
}

/// Forms one game from the front of the queue, if its units fill the seats.
fn form(queue: &mut Queue) -> Option<Formed> {
    let units = choose(queue, None, true)?;
    Some(Formed {
        seats: place(&queue.layout, &units)
            .into_iter()
            .map(|s| s.expect("every seat is filled"))
            .collect(),
    })
}

/// Chooses units from the front of the queue (`first` before all, if given) and takes them
/// out of it: those that fit, until the seats are filled; `None` (and nothing taken) if they
/// must be filled and are not.
fn choose(queue: &mut Queue, first: Option<usize>, fill: bool) -> Option<Vec<Unit>> {
    let seats = queue.layout.seats();
    let pair_room = queue.layout.pair_room();
    let (mut pairs, mut singles) = (0, 0);
    let mut chosen: Vec<usize> = Vec::new();
    let mut players: Vec<PlayerId> = Vec::new();
    let order = first
        .into_iter()
        .chain((0..queue.units.len()).filter(|&i| Some(i) != first))
        .take(SCAN * seats);
    for i in order {
        let unit = &queue.units[i];
        if unit.seekers().any(|s| players.contains(&s.player)) {
            continue;
        }
        let fits = match unit {
            Unit::Single(_) => 2 * pairs + singles < seats,
            Unit::Pair(..) => pairs < pair_room && 2 * pairs + singles + 2 <= seats,
        };
        if !fits {
            continue;
        }
        match unit {
            Unit::Single(_) => singles += 1,
            Unit::Pair(..) => pairs += 1,
        }
        players.extend(unit.seekers().map(|s| s.player));
        chosen.push(i);
        if 2 * pairs + singles == seats {
            break;
        }
    }
    if fill && 2 * pairs + singles < seats {
        return None;
    }
    // Taken out from the back, so that the places of the others hold; kept in their order.
    let mut taken: Vec<(usize, Unit)> = Vec::new();
    let mut by_place = chosen.clone();
    by_place.sort_unstable();
    for &i in by_place.iter().rev() {
        taken.push((i, queue.units.remove(i).expect("a chosen unit")));
    }
    Some(
        chosen
            .iter()
            .map(|i| taken.iter().find(|(j, _)| j == i).expect("taken").1)
            .collect(),
    )
}

/// Seats units: pairs first, each on the side with the most free seats, then the singles in
/// order; `None` for the seats left.
fn place(layout: &Layout, units: &[Unit]) -> Vec<Option<Seeker>> {
    let seats = layout.seats();
    let mut free: Vec<Vec<usize>> = layout.sides.clone();
    let mut seated: Vec<Option<Seeker>> = vec![None; seats];
    for unit in units {
        if let Unit::Pair(a, b) = unit {
            let side = free
                .iter_mut()
                .filter(|s| s.len() >= 2)
                .max_by_key(|s| s.len())
                .expect("room was counted");
            seated[side.remove(0)] = Some(*a);
            seated[side.remove(0)] = Some(*b);
        }
    }
    let mut rest: Vec<usize> = free.into_iter().flatten().collect();
    rest.sort_unstable();
    let mut rest = rest.into_iter();
    for unit in units {
        if let Unit::Single(a) = unit {
            seated[rest.next().expect("room was counted")] = Some(*a);
        }
    }
    seated
}

#[cfg(test)]
mod tests {
    use super::*;

    fn four() -> Layout {
        Layout {
            sides: vec![vec![0, 2], vec![1, 3]],
        }
    }

    fn s(seek: SeekId, player: PlayerId) -> Seeker {
        Seeker { seek, player }
    }

    // Four lone seekers of a four-player game are seated in arrival order; the fifth waits.
    #[test]
    fn lone_seekers_fill_the_seats_in_arrival_order() {
        let mut m = Matcher::default();
        for i in 0..3 {
            assert_eq!(m.add(&"k", &four(), s(i, i as u32), None), None);
        }
        assert_eq!(m.waiting(&"k"), 3);
        let formed = m.add(&"k", &four(), s(3, 3), None).expect("a game");
        assert_eq!(formed.seats, vec![s(0, 0), s(1, 1), s(2, 2), s(3, 3)]);
        assert_eq!(m.waiting(&"k"), 0);
        assert_eq!(m.add(&"k", &four(), s(4, 4), None), None);
        assert_eq!(m.waiting(&"k"), 1);
        // Another kind of game is another queue.
        assert_eq!(m.waiting(&"other"), 0);
    }

    // Two players who name each other sit on one side (seats 0 and 2, or 1 and 3); one who
    // names a partner who does not name it back waits aside and does not block the others.
    #[test]
    fn partners_sit_together_and_an_unanswered_partner_waits_aside() {
        let mut m = Matcher::default();
        assert_eq!(m.add(&"k", &four(), s(0, 10), Some(11)), None);
        assert_eq!(m.add(&"k", &four(), s(1, 20), None), None);
        assert_eq!(m.add(&"k", &four(), s(2, 11), Some(10)), None);
        let formed = m.add(&"k", &four(), s(3, 21), None).expect("a game");
        let side_of = |p: PlayerId| {
            let seat = formed.seats.iter().position(|x| x.player == p).unwrap();
            seat % 2
        };
        assert_eq!(side_of(10), side_of(11));
        assert_eq!(side_of(20), side_of(21));
        // A partner that never comes: the others are seated without it.
        assert_eq!(m.add(&"k", &four(), s(4, 30), Some(99)), None);
        for i in 0..3 {
            assert_eq!(m.add(&"k", &four(), s(5 + i, 40 + i as u32), None), None);
        }
        let formed = m.add(&"k", &four(), s(8, 50), None).expect("a game");
        assert!(formed.seats.iter().all(|x| x.player != 30));
        assert_eq!(m.waiting(&"k"), 1);
        assert!(m.remove(&"k", 4));
        assert_eq!(m.waiting(&"k"), 0);
    }

    // One player's several seeks never seat it twice in one game: its second seek waits for
    // the next game.
    #[test]
    fn one_player_is_never_seated_twice_in_a_game() {
        let mut m = Matcher::default();
        for i in 0..3 {
            assert_eq!(m.add(&"k", &four(), s(i, 7), None), None);
        }
        assert_eq!(m.add(&"k", &four(), s(3, 1), None), None);
        assert_eq!(m.add(&"k", &four(), s(4, 2), None), None);
        let formed = m.add(&"k", &four(), s(5, 3), None).expect("a game");
        let mut players: Vec<_> = formed.seats.iter().map(|x| x.player).collect();
        players.sort();
        assert_eq!(players, vec![1, 2, 3, 7]);
        assert_eq!(m.waiting(&"k"), 2);
    }

    // A cancelled seek leaves the queue; a cancelled half of a pair leaves its partner
    // waiting for it.
    #[test]
    fn removed_seeks_leave_and_a_pair_s_other_half_waits() {
        let mut m = Matcher::default();
        m.add(&"k", &four(), s(0, 1), Some(2));
        m.add(&"k", &four(), s(1, 2), Some(1));
        assert_eq!(m.waiting(&"k"), 2);
        assert!(m.remove(&"k", 1));
        assert!(!m.remove(&"k", 1));
        assert_eq!(m.waiting(&"k"), 1);
        m.add(&"k", &four(), s(2, 2), Some(1));
        m.add(&"k", &four(), s(3, 5), None);
        let formed = m.add(&"k", &four(), s(4, 6), None).expect("a game");
        let seat = |p| formed.seats.iter().position(|x| x.player == p).unwrap();
        assert_eq!(seat(1) % 2, seat(2) % 2);
    }

    // A seek whose wait is over is taken with the units that fit with it, and the seats left
    // are empty; the others wait on.
    #[test]
    fn a_seek_filled_with_bots_takes_who_fits_and_leaves_the_rest_empty() {
        let mut m = Matcher::default();
        m.add(&"k", &four(), s(0, 1), None);
        m.add(&"k", &four(), s(1, 1), None);
        m.add(&"k", &four(), s(2, 2), None);
        let seats = m.take_partial(&"k", 1).expect("waiting");
        assert_eq!(seats, vec![Some(s(1, 1)), Some(s(2, 2)), None, None]);
        assert_eq!(m.seeks(&"k"), vec![0]);
        assert_eq!(m.take_partial(&"k", 1), None, "taken already");
        assert_eq!(
            m.take_partial(&"k", 0),
            Some(vec![Some(s(0, 1)), None, None, None])
        );
        assert_eq!(m.waiting(&"k"), 0);
    }

    // Two-player games have no partners: the layout says so.
    #[test]
    fn layouts_tell_partnership_games() {
        let two = Layout {
            sides: vec![vec![0], vec![1]],
        };
        assert!(!two.has_partners());
        assert!(four().has_partners());
        assert_eq!(four().seats(), 4);
    }

    // A thousand seekers of one kind are seated in 250 games, each arrival a bounded number of
    // steps (the queue never holds more than a game's worth).
    #[test]
    fn a_thousand_seekers_are_seated_in_full_games() {
        let mut m = Matcher::default();
        let mut games = 0;
        for i in 0..1000u64 {
            if m.add(&"k", &four(), s(i, i as u32), None).is_some() {
                games += 1;
            }
            assert!(m.waiting(&"k") < 4);
        }
        assert_eq!(games, 250);
    }
}
