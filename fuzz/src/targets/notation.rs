//! The action notation: parsing any text never panics, and what parses prints back to text
//! that parses to the same action.
use canasta_engine::notation::{parse_action, to_notation};

/// Runs the target on one input.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(action) = parse_action(text) {
        let printed = to_notation(&action);
        assert_eq!(
            parse_action(&printed).as_ref(),
            Ok(&action),
            "{text:?} printed as {printed:?}"
        );
        assert_eq!(to_notation(&action), printed);
    }
}
