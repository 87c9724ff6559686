//! Arbitrary actions on arbitrary reachable games: a game of any preset and player count is
//! played some random legal steps, then actions decoded from the bytes are applied, as engine
//! actions or as wire `canasta.v1.Action`s converted by `canasta_proto::convert`.
//!
//! Nothing may panic; a refused action leaves the state hash as it was; an accepted one was
//! accepted by `check` first and keeps every card of the pack.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| canasta_fuzz::targets::apply_actions::run(data));
