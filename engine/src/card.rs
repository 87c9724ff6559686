//! Cards, ranks, suits, point values (R-CARD) and card multisets.
//!
//! A [`Card`] is one byte: `rank * 4 + suit` for the 52 suited cards and 52 for the joker. Two cards
//! of the same rank and suit are interchangeable (R-CARD-4), so hands, melds and batches are stored
//! as [`CardCounts`], a count per card kind, rather than as lists.

use std::fmt;
use std::str::FromStr;

/// A suit. The order (clubs, diamonds, hearts, spades) is the bridge order used for sorting.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Suit {
    /// ♣
    Clubs = 0,
    /// ♦
    Diamonds = 1,
    /// ♥
    Hearts = 2,
    /// ♠
    Spades = 3,
}

impl Suit {
    /// All four suits in sort order.
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    /// Diamonds and hearts are red: a red three is a bonus card, a black three a stop card.
    pub fn is_red(self) -> bool {
        matches!(self, Suit::Diamonds | Suit::Hearts)
    }

    /// The suit symbol, for display.
    pub fn symbol(self) -> char {
        match self {
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
            Suit::Hearts => '♥',
            Suit::Spades => '♠',
        }
    }

    /// The ASCII letter used in card notation (`C`, `D`, `H`, `S`).
    pub fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }

    fn from_index(i: u8) -> Suit {
        Suit::ALL[(i & 3) as usize]
    }
}

/// A rank. Twos and jokers are wild, threes are special, fours to aces are natural (R-CARD-2).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
#[repr(u8)]
pub enum Rank {
    /// Wild.
    Two = 0,
    /// Red threes are bonus cards, black threes stop cards.
    Three = 1,
    /// Natural.
    Four = 2,
    /// Natural.
    Five = 3,
    /// Natural.
    Six = 4,
    /// Natural.
    Seven = 5,
    /// Natural.
    Eight = 6,
    /// Natural.
    Nine = 7,
    /// Natural.
    Ten = 8,
    /// Natural.
    Jack = 9,
    /// Natural.
    Queen = 10,
    /// Natural.
    King = 11,
    /// Natural, high in sequences.
    Ace = 12,
    /// Wild; has no suit.
    Joker = 13,
}

impl Rank {
    /// All ranks, twos to jokers.
    pub const ALL: [Rank; 14] = [
        Rank::Two,
        Rank::Three,
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
        Rank::Joker,
    ];

    /// The natural ranks, four to ace: the only ranks a group meld can have (R-MELD-1).
    pub const NATURALS: [Rank; 11] = [
        Rank::Four,
        Rank::Five,
        Rank::Six,
        Rank::Seven,
        Rank::Eight,
        Rank::Nine,
        Rank::Ten,
        Rank::Jack,
        Rank::Queen,
        Rank::King,
        Rank::Ace,
    ];

    /// The rank with this index (0 = two … 13 = joker).
    pub fn from_index(i: u8) -> Option<Rank> {
        Rank::ALL.get(i as usize).copied()
    }

    /// Jokers and twos (R-CARD-2).
    pub fn is_wild(self) -> bool {
        matches!(self, Rank::Two | Rank::Joker)
    }

    /// Fours to aces.
    pub fn is_natural(self) -> bool {
        (Rank::Four..=Rank::Ace).contains(&self)
    }

    /// Point value of a card of this rank (R-CARD-3). Threes are 5 here: the value of a black
    /// three; a red three never counts as a card (see [`Card::value`]).
    pub fn value(self) -> u32 {
        match self {
            Rank::Joker => 50,
            Rank::Two | Rank::Ace => 20,
            Rank::Eight | Rank::Nine | Rank::Ten | Rank::Jack | Rank::Queen | Rank::King => 10,
            Rank::Three | Rank::Four | Rank::Five | Rank::Six | Rank::Seven => 5,
        }
    }

    /// Short notation: `2`…`10`, `J`, `Q`, `K`, `A`, `Jk`.
    pub fn label(self) -> &'static str {
        match self {
            Rank::Two => "2",
            Rank::Three => "3",
            Rank::Four => "4",
            Rank::Five => "5",
            Rank::Six => "6",
            Rank::Seven => "7",
            Rank::Eight => "8",
            Rank::Nine => "9",
            Rank::Ten => "10",
            Rank::Jack => "J",
            Rank::Queen => "Q",
            Rank::King => "K",
            Rank::Ace => "A",
            Rank::Joker => "Jk",
        }
    }

    /// A plural English name for messages ("kings", "jokers").
    pub fn plural(self) -> &'static str {
        match self {
            Rank::Two => "twos",
            Rank::Three => "threes",
            Rank::Four => "fours",
            Rank::Five => "fives",
            Rank::Six => "sixes",
            Rank::Seven => "sevens",
            Rank::Eight => "eights",
            Rank::Nine => "nines",
            Rank::Ten => "tens",
            Rank::Jack => "jacks",
            Rank::Queen => "queens",
            Rank::King => "kings",
            Rank::Ace => "aces",
            Rank::Joker => "jokers",
        }
    }
}

/// One card. Copy, one byte.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(u8);

/// Number of distinct card kinds: 52 suited cards and the joker.
pub const CARD_KINDS: usize = 53;

impl Card {
    /// The joker. All jokers are alike.
    pub const JOKER: Card = Card(52);

    /// A suited card. `Rank::Joker` gives the joker whatever the suit.
    pub const fn new(rank: Rank, suit: Suit) -> Card {
        if rank as u8 == Rank::Joker as u8 {
            Card::JOKER
        } else {
            Card(rank as u8 * 4 + suit as u8)
        }
    }

    /// The card with this kind index (`0..53`), if any.
    pub fn from_index(i: u8) -> Option<Card> {
        ((i as usize) < CARD_KINDS).then_some(Card(i))
    }

    /// The kind index, `0..53`.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The rank.
    pub fn rank(self) -> Rank {
        Rank::ALL[(self.0 >> 2) as usize]
    }

    /// The suit; `None` for the joker.
    pub fn suit(self) -> Option<Suit> {
        (self != Card::JOKER).then(|| Suit::from_index(self.0))
    }

    /// Jokers and twos.
    pub fn is_wild(self) -> bool {
        self.rank().is_wild()
    }

    /// Fours to aces.
    pub fn is_natural(self) -> bool {
        self.rank().is_natural()
    }

    /// ♥3 and ♦3: bonus cards (R-RED).
    pub fn is_red_three(self) -> bool {
        self.rank() == Rank::Three && Suit::from_index(self.0).is_red()
    }

    /// ♠3 and ♣3: stop cards (R-TURN-4).
    pub fn is_black_three(self) -> bool {
        self.rank() == Rank::Three && !Suit::from_index(self.0).is_red()
    }

    /// Point value (R-CARD-3). Red threes have none: they score as bonuses only (R-RED-5).
    pub fn value(self) -> u32 {
        if self.is_red_three() {
            0
        } else {
            self.rank().value()
        }
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.suit() {
            None => f.write_str("Jk"),
            Some(s) => write!(f, "{}{}", self.rank().label(), s.symbol()),
        }
    }
}

impl fmt::Debug for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Why a card could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseCardError(pub String);

impl fmt::Display for ParseCardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot read {:?} as a card: write a rank (2-10, J, Q, K, A) and a suit (C, D, H, S or ♣ ♦ ♥ ♠), like KS or 10♥, or Jk for a joker",
            self.0
        )
    }
}

impl std::error::Error for ParseCardError {}

impl FromStr for Card {
    type Err = ParseCardError;

    /// Reads `KS`, `ks`, `K♠`, `10h`, `TH`, `Jk`, `joker`, `*`.
    fn from_str(s: &str) -> Result<Card, ParseCardError> {
        let err = || ParseCardError(s.to_string());
        let t = s.trim();
        let lower = t.to_ascii_lowercase();
        if matches!(lower.as_str(), "jk" | "joker" | "*" | "jo") {
            return Ok(Card::JOKER);
        }
        let mut chars: Vec<char> = t.chars().collect();
        let suit_char = chars.pop().ok_or_else(err)?;
        let suit = match suit_char {
            'c' | 'C' | '♣' | '♧' => Suit::Clubs,
            'd' | 'D' | '♦' | '♢' => Suit::Diamonds,
            'h' | 'H' | '♥' | '♡' => Suit::Hearts,
            's' | 'S' | '♠' | '♤' => Suit::Spades,
            _ => return Err(err()),
        };
        let rank_text: String = chars.into_iter().collect::<String>().to_ascii_uppercase();
        let rank = match rank_text.as_str() {
            "2" => Rank::Two,
            "3" => Rank::Three,
            "4" => Rank::Four,
            "5" => Rank::Five,
            "6" => Rank::Six,
            "7" => Rank::Seven,
            "8" => Rank::Eight,
            "9" => Rank::Nine,
            "10" | "T" => Rank::Ten,
            "J" => Rank::Jack,
            "Q" => Rank::Queen,
            "K" => Rank::King,
            "A" => Rank::Ace,
            _ => return Err(err()),
        };
        Ok(Card::new(rank, suit))
    }
}

/// The highest count of a suited card a [`CardCounts`] holds: a pack has at most three of each
/// (R-CARD-1), so four bits are plenty, and a count that stops here still names more cards
/// than any hand holds.
const SUITED_MAX: u8 = 15;

/// The top bit of each suit's four in a rank's lane.
const TOP_BITS: u16 = 0x8888;

/// Every byte's low four bits.
const LOW_NIBBLES: u64 = 0x0F0F_0F0F_0F0F_0F0F;

/// Up to four lanes at once (a word of [`CardCounts::words`], or one lane): each byte the sum
/// of its two counts (at most 30).
#[inline]
fn byte_sums(word: u64) -> u64 {
    (word & LOW_NIBBLES) + ((word >> 4) & LOW_NIBBLES)
}

/// Each lane's sum of its four counts (at most 60), in the lane's low byte.
#[inline]
fn lane_sums(word: u64) -> u64 {
    let pairs = byte_sums(word);
    pairs + (pairs >> 8)
}

/// The cards of one rank's lane, all suits together.
#[inline]
fn lane_sum(lane: u16) -> u8 {
    lane_sums(lane as u64) as u8
}

/// The sum of a word's bytes, which must not pass 255 (eight bytes of [`byte_sums`] do not).
#[inline]
fn sum_bytes(x: u64) -> u32 {
    (x.wrapping_mul(0x0101_0101_0101_0101) >> 56) as u32
}

/// Where a suited card's count sits: its rank's lane and the shift within it.
#[inline]
fn slot(card: Card) -> (usize, u32) {
    ((card.0 >> 2) as usize, (card.0 as u32 & 3) * 4)
}

/// A multiset of cards: a count per card kind. Used for hands, melds and the cards of an action.
///
/// Fixed size (30 bytes), `Copy`, no heap. The suited cards are packed four bits a card, one
/// 16-bit lane per rank, so that actions, events and views, which hold several of these, stay
/// small to move, and adding, removing and comparing are a few operations per rank. A suited
/// card's count stops at 15 and the jokers' at 255: more than any pack holds (R-CARD-1).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CardCounts {
    /// Twos to aces by `Rank as usize`; the count of suit `s` in bits `4s..4s + 4`.
    ranks: [u16; 13],
    jokers: u8,
    len: u16,
}

impl Default for CardCounts {
    fn default() -> Self {
        CardCounts::new()
    }
}

impl CardCounts {
    /// The empty multiset.
    pub const fn new() -> CardCounts {
        CardCounts {
            ranks: [0; 13],
            jokers: 0,
            len: 0,
        }
    }

    /// The multiset of these cards.
    pub fn from_cards<I: IntoIterator<Item = Card>>(cards: I) -> CardCounts {
        let cards = cards.into_iter();
        if cards.size_hint().0 < 16 {
            let mut c = CardCounts::new();
            for card in cards {
                c.add(card);
            }
            return c;
        }
        // A long list (a pack, a stock): counted a byte per kind, packed once.
        let mut counts = [0u8; CARD_KINDS];
        for card in cards {
            let n = &mut counts[card.index()];
            *n = n.saturating_add(1);
        }
        CardCounts::from_array(&counts)
    }

    /// The multiset with these counts, indexed by [`Card::index`] (a suited card's count stops
    /// at 15).
    pub fn from_array(counts: &[u8; CARD_KINDS]) -> CardCounts {
        let mut c = CardCounts::new();
        for (lane, four) in c.ranks.iter_mut().zip(counts.chunks_exact(4)) {
            for (s, &n) in four.iter().enumerate() {
                *lane |= (n.min(SUITED_MAX) as u16) << (4 * s);
            }
        }
        c.jokers = counts[Card::JOKER.index()];
        c.len = c.rank_counts().iter().map(|&n| n as u16).sum();
        c
    }

    /// Number of cards.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// No cards.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many copies of this card.
    #[inline]
    pub fn count(&self, card: Card) -> u8 {
        if card == Card::JOKER {
            return self.jokers;
        }
        let (r, shift) = slot(card);
        ((self.ranks[r] >> shift) & 0xF) as u8
    }

    /// Adds one card. Counts stop at 15 for a suited card and 255 for the joker (no pack holds
    /// that many); adding beyond that is ignored rather than overflowing.
    #[inline]
    pub fn add(&mut self, card: Card) {
        // Written out (not `add_n(card, 1)`): dealing and drawing add cards one at a time.
        let full = if card == Card::JOKER {
            let full = self.jokers == u8::MAX;
            self.jokers += !full as u8;
            full
        } else {
            let (r, shift) = slot(card);
            let full = (self.ranks[r] >> shift) & 0xF == SUITED_MAX as u16;
            self.ranks[r] += (!full as u16) << shift;
            full
        };
        self.len += !full as u16;
    }

    /// Adds `n` copies of a card (counts stop at 15, the joker's at 255).
    pub fn add_n(&mut self, card: Card, n: u8) {
        let added = if card == Card::JOKER {
            let after = self.jokers.saturating_add(n);
            let added = after - self.jokers;
            self.jokers = after;
            added
        } else {
            let (r, shift) = slot(card);
            let before = ((self.ranks[r] >> shift) & 0xF) as u8;
            let added = n.min(SUITED_MAX - before);
            self.ranks[r] += (added as u16) << shift;
            added
        };
        self.len += added as u16;
    }

    /// Removes one card; false (and nothing changed) if there is none.
    #[must_use = "false means the card was not there and nothing was removed"]
    pub fn remove(&mut self, card: Card) -> bool {
        if card == Card::JOKER {
            if self.jokers == 0 {
                return false;
            }
            self.jokers -= 1;
        } else {
            let (r, shift) = slot(card);
            if (self.ranks[r] >> shift) & 0xF == 0 {
                return false;
            }
            self.ranks[r] -= 1 << shift;
        }
        self.len -= 1;
        true
    }

    /// True if every card of `other` is here, as many times.
    pub fn contains(&self, other: &CardCounts) -> bool {
        // Every count below 8 (always, in play): a suit's four bits hold `a + 8 - b` without a
        // borrow from the next suit, and its top bit says `a >= b`.
        let mut big = 0u16;
        let mut short = 0u16;
        for (&a, &b) in self.ranks.iter().zip(other.ranks.iter()) {
            big |= a | b;
            short |= !((a | TOP_BITS).wrapping_sub(b)) & TOP_BITS;
        }
        if big & TOP_BITS != 0 {
            return self.missing(other).is_none();
        }
        short == 0 && self.jokers >= other.jokers
    }

    /// The first card of `other` (in card order) that is not here often enough, with the count
    /// held here: the slow path of [`Self::contains`] and [`Self::first_missing`].
    fn missing(&self, other: &CardCounts) -> Option<(Card, u8)> {
        other
            .iter_kinds()
            .find(|&(c, n)| n > self.count(c))
            .map(|(c, _)| (c, self.count(c)))
    }

    /// The first card of `other` (in card order) that is not here often enough, with the count
    /// held here.
    pub fn first_missing(&self, other: &CardCounts) -> Option<(Card, u8)> {
        // Mostly asked of cards that are all here: answered at once by the comparison.
        if self.contains(other) {
            return None;
        }
        self.missing(other)
    }

    /// Adds every card of `other` (counts stop at 15, the joker's at 255).
    pub fn add_all(&mut self, other: &CardCounts) {
        let big = self
            .ranks
            .iter()
            .zip(other.ranks.iter())
            .fold(0, |big, (&a, &b)| big | a | b);
        if big & TOP_BITS == 0 && self.jokers as u16 + other.jokers as u16 <= 255 {
            // Every count below 8: the sums stay within their four bits.
            for (a, &b) in self.ranks.iter_mut().zip(other.ranks.iter()) {
                *a += b;
            }
            self.jokers += other.jokers;
            self.len += other.len;
        } else {
            for (card, n) in other.iter_kinds() {
                self.add_n(card, n);
            }
        }
    }

    /// Removes every card of `other`; cards of `other` not here (check with
    /// [`Self::contains`]) are ignored.
    pub fn remove_all(&mut self, other: &CardCounts) {
        if self.contains(other) {
            // No count goes below zero: no borrow between suits.
            for (a, &b) in self.ranks.iter_mut().zip(other.ranks.iter()) {
                *a -= b;
            }
            self.jokers -= other.jokers;
            self.len -= other.len;
        } else {
            for (card, n) in other.iter_kinds() {
                let take = n.min(self.count(card));
                if card == Card::JOKER {
                    self.jokers -= take;
                } else {
                    let (r, shift) = slot(card);
                    self.ranks[r] -= (take as u16) << shift;
                }
                self.len -= take as u16;
            }
        }
    }

    /// Removes every card of `other` that is here: of each kind, as many as `other` has, or
    /// all there are (a count never goes below zero).
    pub fn remove_up_to(&mut self, other: &CardCounts) {
        for (a, &b) in self.ranks.iter_mut().zip(other.ranks.iter()) {
            // Most lanes of `other` (the cards of a meld, a rank or two) are empty.
            if b == 0 || *a == 0 {
                continue;
            }
            let left = if (*a | b) & TOP_BITS == 0 {
                // Every count below 8: a suit's four bits hold `a + 8 - b` without a borrow
                // from the next suit, its top bit set where `a >= b`, and its low three bits
                // `a - b` there. Elsewhere the count becomes 0.
                let t = (*a | TOP_BITS).wrapping_sub(b);
                let keep = (t & TOP_BITS) >> 3;
                t & !TOP_BITS & (keep * 0xF)
            } else {
                (0..4).fold(0, |left, s| {
                    let n = (*a >> (4 * s) & 0xF).saturating_sub(b >> (4 * s) & 0xF);
                    left | n << (4 * s)
                })
            };
            self.len -= (lane_sum(*a) - lane_sum(left)) as u16;
            *a = left;
        }
        let jokers = self.jokers.min(other.jokers);
        self.jokers -= jokers;
        self.len -= jokers as u16;
    }

    /// The rank lanes four at a time: lane `4w + j` in bits `16j..16j + 16` of word `w`. Sums
    /// over several ranks are then a few operations on whole words.
    #[inline]
    fn words(&self) -> [u64; 4] {
        let r = &self.ranks;
        let word = |i: usize| {
            r[i] as u64
                | (r[i + 1] as u64) << 16
                | (r[i + 2] as u64) << 32
                | (r[i + 3] as u64) << 48
        };
        [word(0), word(4), word(8), r[12] as u64]
    }

    /// Number of cards of a rank, all suits together.
    #[inline]
    pub fn rank_count(&self, rank: Rank) -> u8 {
        match self.ranks.get(rank as usize) {
            Some(&lane) => lane_sum(lane),
            None => self.jokers,
        }
    }

    /// The count of every rank at once, indexed by `Rank as usize`: what
    /// [`CardCounts::rank_count`] says of each.
    pub fn rank_counts(&self) -> [u8; 14] {
        let mut out = [0u8; 14];
        for (chunk, word) in out.chunks_mut(4).zip(self.words()) {
            let sums = lane_sums(word);
            for (j, o) in chunk.iter_mut().enumerate() {
                *o = (sums >> (16 * j)) as u8;
            }
        }
        out[Rank::Joker as usize] = self.jokers;
        out
    }

    /// The ranks present, a bit each (bit `Rank as usize`).
    pub fn ranks_held(&self) -> u16 {
        const LOW_15: u64 = 0x7FFF_7FFF_7FFF_7FFF;
        const TOP: u64 = 0x8000_8000_8000_8000;
        let mut mask = ((self.jokers > 0) as u16) << Rank::Joker as u16;
        for (w, word) in self.words().into_iter().enumerate() {
            // A lane's top bit, set if any of its bits is: four lanes at once.
            let held = (((word & LOW_15) + LOW_15) | word) & TOP;
            let bits = (held >> 15 | held >> 30 | held >> 45 | held >> 60) & 0xF;
            mask |= (bits as u16) << (4 * w);
        }
        mask
    }

    /// Number of jokers.
    pub fn jokers(&self) -> u8 {
        self.jokers
    }

    /// Number of twos.
    pub fn twos(&self) -> u8 {
        self.rank_count(Rank::Two)
    }

    /// Number of wild cards (jokers and twos).
    pub fn wilds(&self) -> u8 {
        self.jokers().saturating_add(self.twos())
    }

    /// Number of natural cards (fours to aces).
    pub fn naturals(&self) -> u8 {
        let sum: u16 = self.ranks[Rank::Four as usize..]
            .iter()
            .map(|&lane| lane_sum(lane) as u16)
            .sum();
        sum.min(255) as u8
    }

    /// Number of red threes.
    pub fn red_threes(&self) -> u8 {
        self.count(Card::new(Rank::Three, Suit::Diamonds))
            .saturating_add(self.count(Card::new(Rank::Three, Suit::Hearts)))
    }

    /// Number of black threes.
    pub fn black_threes(&self) -> u8 {
        self.count(Card::new(Rank::Three, Suit::Clubs))
            .saturating_add(self.count(Card::new(Rank::Three, Suit::Spades)))
    }

    /// Sum of the point values (R-CARD-3).
    pub fn value(&self) -> u32 {
        // A rank's cards are alike in value, but for the threes: the ranks are summed by value,
        // a word of four ranks at a time (R-CARD-3: twos and aces 20, fours to sevens 5, eights
        // to kings 10).
        let [w0, w1, w2, w3] = self.words().map(byte_sums);
        const LANES_0_1: u64 = 0x0000_0000_FFFF_FFFF;
        const LANES_2_3: u64 = 0xFFFF_FFFF_0000_0000;
        let twenty = sum_bytes(w0 & 0xFFFF) + sum_bytes(w3);
        let five = sum_bytes(w0 & LANES_2_3) + sum_bytes(w1 & LANES_0_1);
        let ten = sum_bytes(w1 & LANES_2_3) + sum_bytes(w2);
        20 * twenty + 5 * (five + self.black_threes() as u32) + 10 * ten + 50 * self.jokers as u32
    }

    /// The distinct cards present, with their counts, in sort order.
    pub fn iter_kinds(&self) -> impl Iterator<Item = (Card, u8)> + '_ {
        // Only the lanes that hold cards, and within them only the suits held.
        let suited = self
            .ranks
            .iter()
            .enumerate()
            .filter(|&(_, &lane)| lane != 0)
            .flat_map(|(r, &lane)| {
                (0..4u8).filter_map(move |s| {
                    let n = ((lane >> (s * 4)) & 0xF) as u8;
                    (n > 0).then_some((Card(r as u8 * 4 + s), n))
                })
            });
        suited.chain((self.jokers > 0).then_some((Card::JOKER, self.jokers)))
    }

    /// Every card, repeated by its count, in sort order.
    pub fn iter(&self) -> CardIter<'_> {
        CardIter {
            ranks: &self.ranks,
            rank: 0,
            lane: self.ranks[0],
            jokers: self.jokers,
            left: self.len as usize,
        }
    }

    /// The cards as a sorted list.
    pub fn to_vec(&self) -> Vec<Card> {
        self.iter().collect()
    }

    /// Up to `n` cards of a rank taken from here, lowest suits first: the canonical choice of
    /// suits where any would do.
    #[inline]
    #[must_use = "the cards are copied, not taken from here"]
    pub fn of_rank(&self, rank: Rank, n: u8) -> CardCounts {
        let mut out = CardCounts::new();
        let Some(&lane) = self.ranks.get(rank as usize) else {
            out.jokers = n.min(self.jokers);
            out.len = out.jokers as u16;
            return out;
        };
        let mut need = n;
        let mut taken = 0u16;
        for shift in [0, 4, 8, 12] {
            let k = (((lane >> shift) & 0xF) as u8).min(need);
            taken |= (k as u16) << shift;
            need -= k;
        }
        out.ranks[rank as usize] = taken;
        out.len = (n - need) as u16;
        out
    }

    /// Some card of this rank present here, the lowest suit first; `None` if there is none.
    #[inline]
    pub fn any_of_rank(&self, rank: Rank) -> Option<Card> {
        match self.ranks.get(rank as usize) {
            Some(&0) => None,
            Some(&lane) => Some(Card(rank as u8 * 4 + (lane.trailing_zeros() / 4) as u8)),
            None => (self.jokers > 0).then_some(Card::JOKER),
        }
    }

    /// The counts, indexed by [`Card::index`].
    pub fn to_array(&self) -> [u8; CARD_KINDS] {
        let mut out = [0u8; CARD_KINDS];
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.count(Card(i as u8));
        }
        out
    }
}

/// The cards of a [`CardCounts`], each repeated by its count, in sort order
/// ([`CardCounts::iter`]). Walks the packed lanes directly: a card is a few operations, and the
/// exact length lets a `collect` allocate once (the server lists every card of a view this way).
#[derive(Clone, Debug)]
pub struct CardIter<'a> {
    ranks: &'a [u16; 13],
    /// The rank being listed, and what is left of its lane.
    rank: usize,
    lane: u16,
    jokers: u8,
    left: usize,
}

impl Iterator for CardIter<'_> {
    type Item = Card;

    #[inline]
    fn next(&mut self) -> Option<Card> {
        while self.lane == 0 {
            if self.rank + 1 >= self.ranks.len() {
                self.rank = self.ranks.len();
                if self.jokers == 0 {
                    return None;
                }
                self.jokers -= 1;
                self.left -= 1;
                return Some(Card::JOKER);
            }
            self.rank += 1;
            self.lane = self.ranks[self.rank];
        }
        // The lowest suit left of the rank; taking one off its count lists it again while
        // copies remain.
        let suit = self.lane.trailing_zeros() / 4;
        self.lane -= 1 << (4 * suit);
        self.left -= 1;
        Some(Card(self.rank as u8 * 4 + suit as u8))
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl ExactSizeIterator for CardIter<'_> {}

impl std::iter::FusedIterator for CardIter<'_> {}

impl fmt::Debug for CardCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for CardCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, card) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{card}")?;
        }
        f.write_str("]")
    }
}

impl FromIterator<Card> for CardCounts {
    fn from_iter<I: IntoIterator<Item = Card>>(iter: I) -> Self {
        CardCounts::from_cards(iter)
    }
}

/// Reads a space- or comma-separated list of cards, e.g. `"KS KH 2C Jk"`.
pub fn parse_cards(text: &str) -> Result<Vec<Card>, ParseCardError> {
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .map(str::parse)
        .collect()
}

/// The full pack in canonical order: for each deck, twos to aces in suit order, then the jokers.
/// Shuffling starts from this order (R-DEAL-4), so it is part of the portable deal definition.
pub fn pack(decks: u8, jokers: u8) -> Vec<Card> {
    let mut cards = Vec::with_capacity(decks as usize * 52 + jokers as usize);
    for _ in 0..decks {
        cards.extend((0..52).map(Card));
    }
    cards.extend(std::iter::repeat_n(Card::JOKER, jokers as usize));
    cards
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_counts_value_is_its_cards_values() {
        for i in 0..CARD_KINDS as u8 {
            let card = Card::from_index(i).unwrap();
            let one = CardCounts::from_cards([card]);
            assert_eq!(one.value(), card.value(), "{card}");
        }
        let mut all = CardCounts::from_cards(pack(2, 4));
        assert_eq!(
            all.value(),
            all.iter().map(|c| c.value()).sum::<u32>(),
            "a double pack"
        );
        all.add_n(Card::JOKER, 200);
        assert_eq!(all.value(), all.iter().map(|c| c.value()).sum::<u32>());
    }

    /// The plain model of a [`CardCounts`]: a byte per card kind, with the same caps.
    #[derive(Clone, Debug, PartialEq)]
    struct Model([u8; CARD_KINDS]);

    impl Model {
        fn cap(i: usize) -> u8 {
            if i == Card::JOKER.index() {
                255
            } else {
                SUITED_MAX
            }
        }
        fn add_n(&mut self, i: usize, n: u8) {
            self.0[i] = self.0[i].saturating_add(n).min(Model::cap(i));
        }
        fn len(&self) -> usize {
            self.0.iter().map(|&n| n as usize).sum()
        }
    }

    /// A random multiset and its model: mostly counts of a real pack (up to 3, jokers up to
    /// 9), sometimes counts near or past the caps.
    fn random_counts(rng: &mut crate::rng::Xoshiro256) -> (CardCounts, Model) {
        let mut c = CardCounts::new();
        let mut m = Model([0; CARD_KINDS]);
        let max = [4, 4, 4, 10, 20, 300][rng.below(6) as usize];
        for _ in 0..rng.below(40) {
            let i = rng.below(CARD_KINDS as u64) as usize;
            let n = rng.below(max) as u8;
            c.add_n(Card(i as u8), n);
            m.add_n(i, n);
        }
        (c, m)
    }

    // The packed counts behave as a byte per card kind would, with counts stopping at 15 (255
    // for the joker): every query, and adding, removing and comparing multisets, whether the
    // fast paths for play-sized counts apply or not.
    #[test]
    fn packed_counts_agree_with_a_count_per_card() {
        let mut rng = crate::rng::Xoshiro256::seed_from_u64(11);
        for _ in 0..5000 {
            let (a, ma) = random_counts(&mut rng);
            let (b, mb) = random_counts(&mut rng);
            assert_eq!(a.to_array(), ma.0);
            assert_eq!(CardCounts::from_array(&ma.0), a);
            let listed: Vec<Card> = a.iter().collect();
            let expanded: Vec<Card> = (0..CARD_KINDS)
                .flat_map(|i| std::iter::repeat_n(Card(i as u8), ma.0[i] as usize))
                .collect();
            assert_eq!(listed, expanded, "{a:?}");
            assert_eq!(a.iter().len(), listed.len());
            let mut it = a.iter();
            it.by_ref().for_each(drop);
            assert_eq!((it.next(), it.next(), it.len()), (None, None, 0));
            assert_eq!(CardCounts::from_cards(listed.iter().copied()), a);
            assert_eq!(
                CardCounts::from_cards(listed.iter().copied().take(10)).len(),
                listed.len().min(10)
            );
            assert_eq!(a.len(), ma.len(), "{a:?}");
            let kinds: Vec<(Card, u8)> = (0..CARD_KINDS)
                .filter(|&i| ma.0[i] > 0)
                .map(|i| (Card(i as u8), ma.0[i]))
                .collect();
            assert_eq!(a.iter_kinds().collect::<Vec<_>>(), kinds);
            let value: u32 = kinds.iter().map(|&(c, n)| c.value() * n as u32).sum();
            assert_eq!(a.value(), value);
            let held = Rank::ALL
                .iter()
                .filter(|&&r| kinds.iter().any(|(c, _)| c.rank() == r))
                .fold(0u16, |mask, &r| mask | 1 << r as u16);
            assert_eq!(a.ranks_held(), held, "{a:?}");
            for r in Rank::ALL {
                let n = rng.below(12) as u8;
                let mut need = n;
                let mut taken = [0u8; CARD_KINDS];
                for i in (0..CARD_KINDS).filter(|&i| Card(i as u8).rank() == r) {
                    taken[i] = ma.0[i].min(need);
                    need -= taken[i];
                }
                let of_rank = a.of_rank(r, n);
                assert_eq!(of_rank.to_array(), taken, "{n} {r:?} of {a:?}");
                assert_eq!(of_rank.len(), (n - need) as usize);
                let first = (0..CARD_KINDS)
                    .map(|i| Card(i as u8))
                    .find(|c| c.rank() == r && ma.0[c.index()] > 0);
                assert_eq!(a.any_of_rank(r), first, "{r:?} in {a:?}");
            }
            let missing = (0..CARD_KINDS)
                .find(|&i| mb.0[i] > ma.0[i])
                .map(|i| (Card(i as u8), ma.0[i]));
            assert_eq!(a.first_missing(&b), missing, "{b:?} from {a:?}");
            assert_eq!(a.contains(&b), missing.is_none(), "{b:?} in {a:?}");
            assert!(a.contains(&a) && a.contains(&CardCounts::new()));

            let mut sum = a;
            sum.add_all(&b);
            let mut msum = ma.clone();
            for i in 0..CARD_KINDS {
                msum.add_n(i, mb.0[i]);
            }
            assert_eq!(sum.to_array(), msum.0, "{a:?} + {b:?}");
            assert_eq!(sum.len(), msum.len());
            assert!(sum.contains(&a));

            let mut diff = a;
            diff.remove_all(&b);
            let mdiff: Vec<u8> = (0..CARD_KINDS)
                .map(|i| ma.0[i].saturating_sub(mb.0[i]))
                .collect();
            assert_eq!(diff.to_array().to_vec(), mdiff, "{a:?} - {b:?}");
            assert_eq!(diff.len(), mdiff.iter().map(|&n| n as usize).sum::<usize>());
            if missing.is_none() {
                let mut back = diff;
                back.add_all(&b);
                assert_eq!(back, a, "{a:?} - {b:?} + {b:?}");
            }

            let mut one = a;
            let card = Card(rng.below(CARD_KINDS as u64) as u8);
            assert_eq!(one.remove(card), ma.0[card.index()] > 0);
            assert_eq!(one.len(), a.len() - (ma.0[card.index()] > 0) as usize);
        }
    }

    // The counts of a rank, one by one and all at once, are the sum of its cards' counts: a
    // triple pack, small counts, and counts past the caps (15 a suited card, 255 the joker).
    #[test]
    fn rank_counts_agree_with_the_cards_counts() {
        let mut rng = crate::rng::Xoshiro256::seed_from_u64(7);
        let mut cases = vec![CardCounts::new(), CardCounts::from_cards(pack(3, 6))];
        for max in [4, 70, 120] {
            for _ in 0..500 {
                let mut c = CardCounts::new();
                for _ in 0..rng.below(60) {
                    let card = Card::from_index(rng.below(CARD_KINDS as u64) as u8).unwrap();
                    c.add_n(card, rng.below(max) as u8);
                }
                cases.push(c);
            }
        }
        for n in [63, 64, 65] {
            let mut c = CardCounts::new();
            c.add_n(Card::new(Rank::Ace, Suit::Spades), n);
            c.add_n(Card::new(Rank::King, Suit::Hearts), n);
            c.add_n(Card::new(Rank::King, Suit::Clubs), 63);
            cases.push(c);
        }
        for c in cases {
            let all = c.rank_counts();
            for r in Rank::ALL {
                let expected = if r == Rank::Joker {
                    c.jokers()
                } else {
                    let sum: u16 = Suit::ALL
                        .iter()
                        .map(|&s| c.count(Card::new(r, s)) as u16)
                        .sum();
                    sum.min(255) as u8
                };
                assert_eq!(c.rank_count(r), expected, "{r:?} in {c:?}");
                assert_eq!(all[r as usize], expected, "{r:?} in {c:?}");
            }
        }
    }

    // Removing what is there, kind by kind, whatever the counts: small ones (the lanes at
    // once) and big ones (a kind at a time), jokers too.
    #[test]
    fn remove_up_to_removes_each_kind_down_to_zero() {
        let mut rng = crate::rng::Xoshiro256::seed_from_u64(11);
        let random = |rng: &mut crate::rng::Xoshiro256, max: u64| {
            let mut c = CardCounts::new();
            for _ in 0..rng.below(30) {
                let card = Card::from_index(rng.below(CARD_KINDS as u64) as u8).unwrap();
                c.add_n(card, rng.below(max) as u8);
            }
            c
        };
        for max in [2, 4, 8, 16] {
            for _ in 0..2000 {
                let (a, b) = (random(&mut rng, max), random(&mut rng, max));
                let mut fast = a;
                fast.remove_up_to(&b);
                let mut counts = a.to_array();
                for (n, m) in counts.iter_mut().zip(b.to_array()) {
                    *n = n.saturating_sub(m);
                }
                let expected = CardCounts::from_array(&counts);
                assert_eq!(fast, expected, "{a:?} less {b:?}");
                assert_eq!(fast.len(), expected.len());
            }
        }
    }

    // R-CARD-1: 2 decks + 4 jokers = 108 cards; options 6 jokers, 3 decks.
    #[test]
    fn r_card_1_pack_sizes() {
        assert_eq!(pack(2, 4).len(), 108);
        assert_eq!(pack(2, 6).len(), 110);
        assert_eq!(pack(3, 6).len(), 162);
        let p = CardCounts::from_cards(pack(2, 4));
        assert_eq!(p.jokers(), 4);
        assert_eq!(p.twos(), 8);
        assert_eq!(p.red_threes(), 4);
        assert_eq!(p.black_threes(), 4);
        assert_eq!(p.naturals(), 88);
    }

    // R-CARD-2: classes of cards.
    #[test]
    fn r_card_2_card_classes() {
        let c = |s: &str| s.parse::<Card>().unwrap();
        assert!(c("Jk").is_wild() && c("2H").is_wild());
        assert!(c("3H").is_red_three() && c("3D").is_red_three());
        assert!(c("3S").is_black_three() && c("3C").is_black_three());
        assert!(!c("3S").is_red_three() && !c("3H").is_black_three());
        assert!(c("4C").is_natural() && c("AS").is_natural());
        assert!(!c("3C").is_natural() && !c("2C").is_natural() && !c("Jk").is_natural());
    }

    // R-CARD-3: point values.
    #[test]
    fn r_card_3_values() {
        let v = |s: &str| s.parse::<Card>().unwrap().value();
        assert_eq!(v("Jk"), 50);
        assert_eq!(v("AS"), 20);
        assert_eq!(v("2D"), 20);
        for s in ["KS", "QH", "JD", "10C", "9S", "8H"] {
            assert_eq!(v(s), 10, "{s}");
        }
        for s in ["7S", "6H", "5D", "4C", "3S", "3C"] {
            assert_eq!(v(s), 5, "{s}");
        }
        assert_eq!(v("3H"), 0, "red threes count only as bonuses");
        assert_eq!(v("3D"), 0);
    }

    // R-CARD-4: cards of the same rank and suit are interchangeable: a multiset of kinds.
    #[test]
    fn r_card_4_same_kind_interchangeable() {
        let a = CardCounts::from_cards(parse_cards("KS KH KS").unwrap());
        let b = CardCounts::from_cards(parse_cards("KS KS KH").unwrap());
        assert_eq!(a, b);
        assert_eq!(a.count("KS".parse().unwrap()), 2);
        assert_eq!(a.rank_count(Rank::King), 3);
    }

    #[test]
    fn parse_and_display_round_trip() {
        for i in 0..CARD_KINDS as u8 {
            let card = Card::from_index(i).unwrap();
            let shown = card.to_string();
            assert_eq!(shown.parse::<Card>().unwrap(), card, "{shown}");
        }
        assert!("1S".parse::<Card>().is_err());
        assert!("K".parse::<Card>().is_err());
        assert!("".parse::<Card>().is_err());
        assert!("KX".parse::<Card>().is_err());
    }

    #[test]
    fn counts_contains_and_remove() {
        let mut h = CardCounts::from_cards(parse_cards("KS KS 2C Jk").unwrap());
        let sub = CardCounts::from_cards(parse_cards("KS Jk").unwrap());
        assert!(h.contains(&sub));
        h.remove_all(&sub);
        assert_eq!(h.len(), 2);
        assert!(!h.contains(&sub));
        assert_eq!(h.first_missing(&sub), Some((Card::JOKER, 0)));
        assert!(!h.remove(Card::JOKER));
        assert_eq!(h.value(), 30);
    }
}
