//! Display names: what JoinGame accepts, and why.
//!
//! A name is shown to every player and spectator next to a seat. It must look like what it is:
//! a name that displays as another player's is a way to impersonate him. So a name may not hold
//! characters that are invisible or that change how the text around them is displayed. The
//! rule follows Unicode's identifier and security guidance:
//!
//! - **UTS 39 (Unicode Security Mechanisms), §3.1 General Security Profile:** the
//!   `Default_Ignorable_Code_Point`s are excluded from identifiers. These are the invisible
//!   characters (zero-width space, joiners, word joiner, soft hyphen, the byte-order mark,
//!   variation selectors, tag characters, the Hangul fillers, the Mongolian vowel separator,
//!   the combining grapheme joiner …) and the bidirectional controls (embeddings, overrides
//!   and isolates, U+202A..U+202E and U+2066..U+2069, the left-to-right, right-to-left and
//!   Arabic letter marks). After U+202E (right-to-left override) text displays reversed:
//!   `x\u{202E}nimda` shows as `xadmin`; an invisible character makes two names that look
//!   the same differ.
//! - **UAX 31 (Unicode Identifiers and Syntax):** identifiers do not hold controls (Cc), line
//!   or paragraph separators (Zl, Zp), private-use characters (Co: their look is whatever a
//!   font says) or noncharacters. Unlike an identifier, a name may hold spaces and
//!   punctuation: "Ann B." is a name.
//!
//! UAX 31 allows the joiners (U+200C, U+200D) in a few scripts' words, and emoji sequences
//! use U+200D and variation selectors; both are refused here: a display name does without them,
//! and deciding where they are harmless takes the tables of UAX 31's rules A1, A2 and B, which
//! this small list does not hold. Names that mix scripts (a Cyrillic `а` in a Latin name,
//! UTS 39's confusables) are accepted: telling those apart takes the confusables data.
//! Unassigned code points are accepted too (they depend on the Unicode version the client uses).

use crate::errors::ApiError;
use canasta_proto::Reason;

/// The most characters of a display name (after trimming spaces at its ends).
pub const MAX_NAME_CHARS: usize = 40;

/// The ranges of characters a display name may not hold besides the controls (Cc, refused by
/// [`char::is_control`]): Unicode 16's `Default_Ignorable_Code_Point`s (DerivedCoreProperties.txt),
/// which include every `Bidi_Control`, then the line and paragraph separators, the
/// interlinear annotation characters, the private-use areas and the noncharacters of the BMP.
const REFUSED: &[(char, char, &str)] = &[
    ('\u{00AD}', '\u{00AD}', "an invisible soft hyphen"),
    (
        '\u{034F}',
        '\u{034F}',
        "an invisible combining grapheme joiner",
    ),
    (
        '\u{061C}',
        '\u{061C}',
        "a direction control (Arabic letter mark)",
    ),
    ('\u{115F}', '\u{1160}', "an invisible Hangul filler"),
    ('\u{17B4}', '\u{17B5}', "an invisible Khmer vowel"),
    (
        '\u{180B}',
        '\u{180F}',
        "an invisible Mongolian selector or separator",
    ),
    (
        '\u{200B}',
        '\u{200D}',
        "an invisible zero-width space or joiner",
    ),
    (
        '\u{200E}',
        '\u{200F}',
        "a direction control (left-to-right or right-to-left mark)",
    ),
    ('\u{2028}', '\u{2029}', "a line or paragraph separator"),
    (
        '\u{202A}',
        '\u{202E}',
        "a direction control (embedding or override)",
    ),
    (
        '\u{2060}',
        '\u{2065}',
        "an invisible word joiner or operator",
    ),
    ('\u{2066}', '\u{2069}', "a direction control (isolate)"),
    (
        '\u{206A}',
        '\u{206F}',
        "an invisible deprecated format character",
    ),
    ('\u{3164}', '\u{3164}', "an invisible Hangul filler"),
    ('\u{E000}', '\u{F8FF}', "a private-use character"),
    ('\u{FDD0}', '\u{FDEF}', "a noncharacter"),
    ('\u{FE00}', '\u{FE0F}', "an invisible variation selector"),
    (
        '\u{FEFF}',
        '\u{FEFF}',
        "an invisible zero-width no-break space (byte-order mark)",
    ),
    ('\u{FFA0}', '\u{FFA0}', "an invisible Hangul filler"),
    ('\u{FFF0}', '\u{FFFB}', "an invisible format character"),
    ('\u{FFFE}', '\u{FFFF}', "a noncharacter"),
    (
        '\u{1BCA0}',
        '\u{1BCA3}',
        "an invisible shorthand format control",
    ),
    (
        '\u{1D173}',
        '\u{1D17A}',
        "an invisible musical format control",
    ),
    (
        '\u{E0000}',
        '\u{E0FFF}',
        "an invisible tag or variation selector",
    ),
    (
        '\u{F0000}',
        '\u{10FFFF}',
        "a private-use character or noncharacter",
    ),
];

/// What `c` is, if a display name may not hold it.
fn refused(c: char) -> Option<&'static str> {
    if c.is_control() {
        return Some("a control character");
    }
    // Every refused character but the controls is at U+00AD or above: most names are spent
    // here.
    if c < '\u{00AD}' {
        return None;
    }
    // Noncharacters at the end of every plane (U+1FFFE, U+1FFFF, U+2FFFE …).
    if (c as u32) & 0xFFFE == 0xFFFE {
        return Some("a noncharacter");
    }
    REFUSED
        .iter()
        .find(|(first, last, _)| (*first..=*last).contains(&c))
        .map(|r| r.2)
}

/// The display name JoinGame keeps for `raw`: trimmed of spaces at its ends, 1 to
/// [`MAX_NAME_CHARS`] characters, none of them invisible, direction-changing or a control (see
/// the module's documentation); or `MISSING_FIELD` if there is none, `BAD_DISPLAY_NAME`
/// saying what is wrong with it otherwise.
pub fn display_name(raw: &str) -> Result<String, ApiError> {
    if raw.is_empty() {
        return Err(ApiError::invalid(
            Reason::MissingField,
            "display_name",
            format!(
                "display_name is required: send the name to show for the seat, 1 to \
                 {MAX_NAME_CHARS} visible characters"
            ),
        ));
    }
    let name = raw.trim();
    let count = name.chars().count();
    if count == 0 || count > MAX_NAME_CHARS {
        return Err(ApiError::invalid(
            Reason::BadDisplayName,
            "display_name",
            format!(
                "a display name has 1 to {MAX_NAME_CHARS} visible characters (this one has \
                 {count} without the spaces at its ends)"
            ),
        ));
    }
    if let Some((i, c, what)) = name
        .chars()
        .enumerate()
        .find_map(|(i, c)| refused(c).map(|what| (i, c, what)))
    {
        return Err(ApiError::invalid(
            Reason::BadDisplayName,
            "display_name",
            format!(
                "character {} of the display name is U+{:04X}, {what}: a name may not hold \
                 invisible, direction-changing or control characters, which make one name \
                 look like another; send the name without it",
                i + 1,
                c as u32
            ),
        ));
    }
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_any_script_with_spaces_and_punctuation_are_kept_trimmed() {
        for name in [
            "Ann",
            "Zoë B.",
            "山田 太郎",
            "Ἀλέξανδρος",
            "أحمد",
            "O'Neil-Smith",
            "🂡 ace",
        ] {
            assert_eq!(display_name(name).unwrap(), name);
        }
        assert_eq!(display_name("  Ann \t").unwrap(), "Ann");
        assert_eq!(display_name(&"é".repeat(40)).unwrap(), "é".repeat(40));
    }

    #[test]
    fn every_class_of_invisible_direction_changing_and_control_character_is_refused() {
        let classes: &[(&str, &[char])] = &[
            (
                "direction controls",
                &[
                    '\u{202A}', '\u{202B}', '\u{202C}', '\u{202D}', '\u{202E}', '\u{2066}',
                    '\u{2067}', '\u{2068}', '\u{2069}', '\u{200E}', '\u{200F}', '\u{061C}',
                ],
            ),
            (
                "zero-width characters",
                &[
                    '\u{200B}', '\u{200C}', '\u{200D}', '\u{2060}', '\u{2064}', '\u{FEFF}',
                ],
            ),
            (
                "other default-ignorables",
                &[
                    '\u{00AD}',
                    '\u{034F}',
                    '\u{180E}',
                    '\u{17B4}',
                    '\u{1D173}',
                    '\u{206F}',
                ],
            ),
            (
                "variation selectors",
                &['\u{FE00}', '\u{FE0F}', '\u{E0100}', '\u{E01EF}'],
            ),
            (
                "tags",
                &['\u{E0000}', '\u{E0001}', '\u{E0041}', '\u{E007F}'],
            ),
            (
                "Hangul fillers",
                &['\u{115F}', '\u{1160}', '\u{3164}', '\u{FFA0}'],
            ),
            (
                "controls and separators",
                &[
                    '\u{0}', '\u{7}', '\u{1B}', '\u{7F}', '\u{85}', '\u{9F}', '\u{2028}',
                    '\u{2029}',
                ],
            ),
            (
                "private use and noncharacters",
                &[
                    '\u{E000}',
                    '\u{F8FF}',
                    '\u{F0000}',
                    '\u{10FFFD}',
                    '\u{FDD0}',
                    '\u{FFFE}',
                    '\u{1FFFF}',
                ],
            ),
        ];
        for (class, chars) in classes {
            for &c in *chars {
                let name = format!("An{c}n");
                let e = display_name(&name).unwrap_err();
                assert_eq!(
                    e.reason,
                    Reason::BadDisplayName,
                    "{class}: U+{:04X}",
                    c as u32
                );
                assert!(
                    e.message.contains(&format!(
                        "character 3 of the display name is U+{:04X}",
                        c as u32
                    )),
                    "{class}: {}",
                    e.message
                );
            }
        }
        // The neighbours of the ranges are ordinary characters.
        for c in [
            '\u{00AC}', '\u{00AE}', '\u{2027}', '\u{2030}', '\u{3163}', '\u{3165}', '\u{FF9F}',
        ] {
            assert!(
                display_name(&format!("An{c}n")).is_ok(),
                "U+{:04X}",
                c as u32
            );
        }
    }

    #[test]
    fn empty_and_long_names_are_refused_with_the_count() {
        // No name at all: the field is required, and the message says so.
        let e = display_name("").unwrap_err();
        assert_eq!(e.reason, Reason::MissingField);
        assert_eq!(e.field.as_deref(), Some("display_name"));
        assert!(
            e.message.contains("display_name is required"),
            "{}",
            e.message
        );
        // A name of spaces only is a name without a visible character.
        for name in ["   ", "\u{3000}"] {
            let e = display_name(name).unwrap_err();
            assert_eq!(e.reason, Reason::BadDisplayName);
            assert!(e.message.contains("this one has 0"), "{}", e.message);
        }
        let e = display_name(&"x".repeat(100_000)).unwrap_err();
        assert!(e.message.contains("this one has 100000"), "{}", e.message);
        assert!(e.message.len() < 200, "{}", e.message);
    }
}
