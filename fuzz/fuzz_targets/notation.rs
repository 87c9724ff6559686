//! The action notation: parsing any text never panics, and what parses prints back to text
//! that parses to the same action.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| canasta_fuzz::targets::notation::run(data));
