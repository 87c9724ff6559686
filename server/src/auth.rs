//! Seat tokens: random secrets of 128 bits that act for one seat of one game, sent in the
//! `authorization` metadata as `Bearer <token>`.
//!
//! A [`Token`] is a secret, so it has no `==`, no `Hash` and no printable form: the only way to
//! compare two is [`Token::matches`], which takes the same time wherever they differ. Maps that
//! need a key (rate limits, stream counts) use its [`TokenId`], a keyed fingerprint.

use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use subtle::ConstantTimeEq;
use tonic::Code;
use tonic::metadata::MetadataMap;

use crate::errors::ApiError;
use canasta_proto::Reason;

/// A seat token.
#[derive(Clone)]
pub struct Token(String);

// `Token` must not implement `PartialEq` (a `==` that stops at the first difference would
// leak the secret through timing) nor `Hash` (maps are keyed by `TokenId`). If it did, two
// impls below would apply to it and the reference in the closure would be ambiguous: the
// crate would not compile.
const _: fn() = || {
    trait AmbiguousIfComparable<Marker> {
        fn check() {}
    }
    impl<T: ?Sized> AmbiguousIfComparable<()> for T {}
    struct ByEq;
    impl<T: ?Sized + PartialEq> AmbiguousIfComparable<ByEq> for T {}
    struct ByHash;
    impl<T: ?Sized + std::hash::Hash> AmbiguousIfComparable<ByHash> for T {}
    let _ = <Token as AmbiguousIfComparable<_>>::check;
};

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a secret into a log.
        f.write_str("Token(…)")
    }
}

/// A token's fingerprint, to key maps by: SipHash of the token under a key drawn at random
/// once per process, so it reveals nothing of the token and cannot be aimed at a bucket.
/// Two tokens share a fingerprint with probability 2^-64 (they would then share a rate limit,
/// nothing more: a seat is always found by [`Token::matches`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenId(u64);

impl std::fmt::Debug for TokenId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenId(…)")
    }
}

fn fingerprint_key() -> &'static RandomState {
    static KEY: OnceLock<RandomState> = OnceLock::new();
    KEY.get_or_init(RandomState::new)
}

impl Token {
    /// A fresh token: 128 random bits from `rand`'s thread generator (a CSPRNG seeded by the
    /// operating system), as 32 hex digits.
    pub fn generate() -> Token {
        Token(format!("{:032x}", rand::random::<u128>()))
    }

    /// A token as stored.
    pub fn from_stored(s: String) -> Token {
        Token(s)
    }

    /// The token's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The token's fingerprint, to key maps by.
    pub fn id(&self) -> TokenId {
        TokenId(fingerprint_key().hash_one(self.0.as_bytes()))
    }

    /// Compares in constant time, so the time a check takes reveals nothing of the secret:
    /// `subtle` visits every byte pair whatever the first difference, folds them without a
    /// branch on their values, and keeps the compiler from turning the fold into an early exit.
    /// Lengths are public (every token has 32 digits) and compared first.
    pub fn matches(&self, other: &Token) -> bool {
        self.0.as_bytes().ct_eq(other.0.as_bytes()).into()
    }
}

/// Most seats of a game.
pub const MAX_SEATS: usize = 6;

/// The fingerprints of the tokens holding a game's seats, kept by the game's actor as seats
/// are taken and left, and read by the service without asking the actor: a call whose token
/// holds a seat of the game it names is charged to the token's rate, any other to its
/// address's (see [`crate::ratelimit`]). A fingerprint decides who pays, never what a token may
/// do: the actor finds a seat by [`Token::matches`]. (A made-up token sharing a seat's
/// fingerprint, with probability 2^-64, would share that seat's rate, nothing more.)
#[derive(Debug, Default)]
pub struct SeatIds([AtomicU64; MAX_SEATS]);

impl SeatIds {
    /// 0 says "free"; a fingerprint of 0 is kept as 1 (sharing 1's rate, as above).
    fn word(id: TokenId) -> u64 {
        id.0.max(1)
    }

    /// The seat is held by `token`, or free.
    pub fn set(&self, seat: usize, token: Option<&Token>) {
        let word = token.map_or(0, |t| SeatIds::word(t.id()));
        self.0[seat].store(word, Ordering::Release);
    }

    /// True if the token of this fingerprint holds a seat.
    pub fn holds(&self, id: TokenId) -> bool {
        self.seat_of(id).is_some()
    }

    /// The seat the token of this fingerprint holds, if it holds one.
    pub fn seat_of(&self, id: TokenId) -> Option<usize> {
        let word = SeatIds::word(id);
        self.0
            .iter()
            .position(|s| s.load(Ordering::Acquire) == word)
    }
}

/// The token of a request, if it carries one. A malformed `authorization` value is an error:
/// a client that meant to act for a seat must not be treated as a spectator.
pub fn token_of(metadata: &MetadataMap) -> Result<Option<Token>, ApiError> {
    let Some(value) = metadata.get("authorization") else {
        return Ok(None);
    };
    let text = value.to_str().map_err(|_| bad_header())?;
    let token = text
        .strip_prefix("Bearer ")
        .or_else(|| text.strip_prefix("bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty() && t.len() <= 128)
        .ok_or_else(bad_header)?;
    Ok(Some(Token(token.to_string())))
}

/// The token of a request that must act for a seat.
pub fn require_token(metadata: &MetadataMap) -> Result<Token, ApiError> {
    token_of(metadata)?.ok_or_else(missing_token)
}

/// The refusal of a call that acts for a seat and carries no token.
pub fn missing_token() -> ApiError {
    ApiError::new(
        Code::Unauthenticated,
        Reason::MissingToken,
        "this call acts for a seat: send its token as `authorization: Bearer <token>` (JoinGame returns it)",
    )
}

fn bad_header() -> ApiError {
    ApiError::new(
        Code::Unauthenticated,
        Reason::MalformedToken,
        "the authorization metadata must be `Bearer <token>` with the token JoinGame returned",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_compared_exactly() {
        let a = Token::generate();
        let b = Token::generate();
        assert_eq!(a.as_str().len(), 32);
        assert!(a.matches(&a.clone()));
        assert!(!a.matches(&b));
        assert!(!a.matches(&Token("short".into())));
        assert_eq!(format!("{a:?}"), "Token(…)");
        // Fingerprints: the same for the same token, different for another.
        assert_eq!(a.id(), Token::from_stored(a.as_str().to_string()).id());
        assert_ne!(a.id(), b.id());
        assert_eq!(format!("{:?}", a.id()), "TokenId(…)");
    }

    #[test]
    fn a_token_differing_in_one_byte_anywhere_is_refused() {
        // At each of the 32 positions (the first, the last, each between), every other ASCII
        // byte in its place: a comparison that skipped a position, stopped at a prefix or
        // compared only some bits of a byte would take one of these for the seat's token.
        let a = Token::generate();
        let bytes = a.as_str().as_bytes();
        assert_eq!(bytes.len(), 32);
        for i in 0..bytes.len() {
            for other in (0u8..0x80).filter(|&c| c != bytes[i]) {
                let mut changed = bytes.to_vec();
                changed[i] = other;
                let b = Token::from_stored(String::from_utf8(changed).unwrap());
                assert!(!a.matches(&b), "byte {i} changed to {other:#04x} is missed");
                assert!(!b.matches(&a), "byte {i} changed to {other:#04x} is missed");
            }
        }
        // The same text is accepted, whichever way it arrived.
        assert!(a.matches(&Token::from_stored(a.as_str().to_string())));
        // A prefix (down to the empty token) or an extension is refused: lengths count.
        for len in 0..bytes.len() {
            assert!(!a.matches(&Token::from_stored(a.as_str()[..len].to_string())));
        }
        assert!(!a.matches(&Token::from_stored(format!("{}0", a.as_str()))));
    }

    #[test]
    fn seat_ids_say_which_tokens_hold_a_seat() {
        let seats = SeatIds::default();
        let (a, b) = (Token::generate(), Token::generate());
        assert!(!seats.holds(a.id()));
        seats.set(0, Some(&a));
        seats.set(MAX_SEATS - 1, Some(&b));
        assert!(seats.holds(a.id()) && seats.holds(b.id()));
        assert_eq!(seats.seat_of(b.id()), Some(MAX_SEATS - 1));
        assert_eq!(seats.seat_of(Token::generate().id()), None);
        assert!(seats.holds(Token::from_stored(a.as_str().to_string()).id()));
        assert!(!seats.holds(Token::generate().id()));
        seats.set(0, None);
        assert!(!seats.holds(a.id()) && seats.holds(b.id()));
        // A fingerprint of 0 is not mistaken for a free seat, nor a free seat for it.
        assert!(!seats.holds(TokenId(0)));
        seats.set(1, Some(&a));
        assert_eq!(seats.seat_of(a.id()), Some(1));
    }

    #[test]
    fn authorization_metadata_is_read_strictly() {
        let mut m = MetadataMap::new();
        assert!(matches!(token_of(&m), Ok(None)));
        assert_eq!(require_token(&m).unwrap_err().reason, Reason::MissingToken);
        m.insert("authorization", "Bearer abc".parse().unwrap());
        assert_eq!(token_of(&m).unwrap().unwrap().as_str(), "abc");
        m.insert("authorization", "Basic abc".parse().unwrap());
        assert_eq!(token_of(&m).unwrap_err().reason, Reason::MalformedToken);
        m.insert("authorization", "Bearer ".parse().unwrap());
        assert_eq!(token_of(&m).unwrap_err().reason, Reason::MalformedToken);
    }
}
