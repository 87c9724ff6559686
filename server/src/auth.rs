//! Seat tokens: random secrets of 128 bits that act for one seat of one game, sent in the
//! `authorization` metadata as `Bearer <token>`.

use tonic::Code;
use tonic::metadata::MetadataMap;

use crate::errors::ApiError;

/// A seat token.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a secret into a log.
        f.write_str("Token(…)")
    }
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

    /// Compares in constant time, so the time a check takes reveals nothing of the secret.
    pub fn matches(&self, other: &Token) -> bool {
        let (a, b) = (self.0.as_bytes(), other.0.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
        std::hint::black_box(diff) == 0
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
    token_of(metadata)?.ok_or_else(|| {
        ApiError::new(
            Code::Unauthenticated,
            "MISSING_TOKEN",
            "this call acts for a seat: send its token as `authorization: Bearer <token>` (JoinGame returns it)",
        )
    })
}

fn bad_header() -> ApiError {
    ApiError::new(
        Code::Unauthenticated,
        "MALFORMED_TOKEN",
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
        assert_ne!(a, b);
        assert!(a.matches(&a.clone()));
        assert!(!a.matches(&b));
        assert!(!a.matches(&Token("short".into())));
        assert_eq!(format!("{a:?}"), "Token(…)");
    }

    #[test]
    fn comparison_visits_every_byte() {
        // The comparison folds the XOR of every byte pair into one value and branches once at
        // the end, so a difference at any position is caught the same way: the first byte, the
        // last, and each between.
        let a = Token::generate();
        for i in 0..a.as_str().len() {
            let mut bytes = a.as_str().as_bytes().to_vec();
            bytes[i] = if bytes[i] == b'0' { b'1' } else { b'0' };
            let b = Token(String::from_utf8(bytes).unwrap());
            assert!(!a.matches(&b), "a difference at byte {i} is missed");
            assert!(!b.matches(&a), "a difference at byte {i} is missed");
        }
        // Lengths are public (every token has 32 digits): a different length fails at once.
        assert!(!a.matches(&Token(format!("{}0", a.as_str()))));
    }

    #[test]
    fn authorization_metadata_is_read_strictly() {
        let mut m = MetadataMap::new();
        assert_eq!(token_of(&m), Ok(None));
        assert_eq!(require_token(&m).unwrap_err().reason, "MISSING_TOKEN");
        m.insert("authorization", "Bearer abc".parse().unwrap());
        assert_eq!(token_of(&m).unwrap().unwrap().as_str(), "abc");
        m.insert("authorization", "Basic abc".parse().unwrap());
        assert_eq!(token_of(&m).unwrap_err().reason, "MALFORMED_TOKEN");
        m.insert("authorization", "Bearer ".parse().unwrap());
        assert_eq!(token_of(&m).unwrap_err().reason, "MALFORMED_TOKEN");
    }
}
