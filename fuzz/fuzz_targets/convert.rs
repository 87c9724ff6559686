//! The wire-to-engine conversions: arbitrary bytes decoded as each request message, action,
//! rule set, card list, game record and view are converted to engine types. Nothing may
//! panic; what converts comes back the same through the wire (engine -> wire -> engine), and
//! setups that convert are validated by the engine without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| canasta_fuzz::targets::convert::run(data));
