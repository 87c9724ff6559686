//! A player's key: 128 random bits from the seat tokens' source ([`Token::generate`]), handed
//! to the player once. The server keeps only its SHA-256: a key has the entropy of a random
//! 128-bit secret, so an unsalted fast hash cannot be reversed or guessed (no dictionary
//! reaches it), and a database that leaks gives no key. A presented key is hashed, found by
//! the first 8 bytes of its hash, and then compared whole in constant time (`subtle`), as
//! seat tokens are ([`Token::matches`]). The key never reaches a log: [`Token`] has no
//! printable form.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::auth::Token;

/// The SHA-256 of a key.
pub type KeyHash = [u8; 32];

/// The hash stored for a key.
pub fn hash(key: &Token) -> KeyHash {
    Sha256::digest(key.as_str().as_bytes()).into()
}

/// The bucket a hash is found in (its first 8 bytes).
pub fn bucket(hash: &KeyHash) -> u64 {
    u64::from_le_bytes(hash[..8].try_into().expect("8 bytes"))
}

/// True if two hashes are equal, in a time that does not depend on where they differ.
pub fn matches(stored: &KeyHash, presented: &KeyHash) -> bool {
    stored.ct_eq(presented).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_kept_as_hashes_that_match_only_their_key() {
        let a = Token::generate();
        let b = Token::generate();
        let stored = hash(&a);
        assert!(matches(
            &stored,
            &hash(&Token::from_stored(a.as_str().into()))
        ));
        assert!(!matches(&stored, &hash(&b)));
        // The hash is not the key, nor does it hold it.
        let hex: String = stored.iter().map(|b| format!("{b:02x}")).collect();
        assert!(!hex.contains(a.as_str()));
        // A known vector: SHA-256 of the empty string.
        assert_eq!(
            hex_of(&hash(&Token::from_stored(String::new()))),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    fn hex_of(h: &KeyHash) -> String {
        h.iter().map(|b| format!("{b:02x}")).collect()
    }
}
