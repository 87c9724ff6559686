//! Text a caller sent, as an error message quotes it: cut short.
//!
//! Errors echo what they refuse (an option's name or value, a game id) so that the caller sees
//! his mistake. Echoed whole, a huge string makes a huge message: a gRPC status carries its
//! message in a trailer (twice, with its `BadRequest` detail), and a client that limits
//! trailers (16 KiB in grpc-core) would see a transport error instead of the reason. Every
//! error that quotes a caller's string quotes it through [`quoted`].

use std::fmt;

/// The characters of a caller's string an error message shows; the rest is cut, marked `…`.
pub const QUOTED_CHARS: usize = 64;

/// `text` quoted (as `{:?}` does: escapes make control and invisible characters visible) and
/// cut after [`QUOTED_CHARS`] characters, marked `…`.
#[must_use = "this quotes nothing by itself: it returns an object that displays the text quoted"]
pub fn quoted(text: &str) -> Quoted<'_> {
    Quoted(text)
}

/// A caller's string as an error message shows it (see [`quoted`]).
#[derive(Clone, Copy, Debug)]
pub struct Quoted<'a>(&'a str);

impl fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.char_indices().nth(QUOTED_CHARS) {
            Some((cut, _)) => write!(f, "{:?}…", &self.0[..cut]),
            None => write!(f, "{:?}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_string_is_quoted_whole_and_a_long_one_cut() {
        assert_eq!(quoted("target_score").to_string(), "\"target_score\"");
        assert_eq!(quoted("a\u{0}b").to_string(), "\"a\\0b\"");
        let exact = "é".repeat(QUOTED_CHARS);
        assert_eq!(quoted(&exact).to_string(), format!("\"{exact}\""));
        let long = "é".repeat(100_000);
        assert_eq!(
            quoted(&long).to_string(),
            format!("\"{}\"…", "é".repeat(QUOTED_CHARS))
        );
    }
}
