//! Compiles `canasta/v1/*.proto` with protox (a pure-Rust protobuf compiler, so no protoc is
//! needed) into Rust types and tonic stubs, and saves the file descriptor sets for reflection:
//! the protocol's, and the google.rpc error details its errors carry (`google/rpc/*.proto`,
//! shipped beside it, with the google.protobuf files they import), so that a client that has
//! nothing but reflection can decode an error's details.

use std::path::PathBuf;

use prost::Message;

const FILES: &[&str] = &[
    "canasta/v1/cards.proto",
    "canasta/v1/actions.proto",
    "canasta/v1/game.proto",
    "canasta/v1/service.proto",
    "canasta/v1/lobby.proto",
];

/// The error detail types of the service's statuses (googleapis, unmodified): served by
/// reflection, not compiled to Rust (tonic-types has them).
const ERROR_DETAILS: &[&str] = &["google/rpc/status.proto", "google/rpc/error_details.proto"];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for file in FILES.iter().chain(ERROR_DETAILS) {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(FILES, ["."])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out.join("canasta_descriptor.bin"),
        descriptors.encode_to_vec(),
    )?;
    // With their imports (google/protobuf/any.proto, duration.proto, from protox's copies of
    // the well-known types): reflection answers for every file a client asks for on the way.
    std::fs::write(
        out.join("error_details_descriptor.bin"),
        protox::compile(ERROR_DETAILS, ["."])?.encode_to_vec(),
    )?;
    tonic_prost_build::configure()
        // The same bytes as tonic_prost's codec, encoded and decoded faster (see src/codec.rs).
        .codec_path("crate::codec::ProtoCodec")
        // A prompt's view and choices are big (about 400 bytes inline): boxed, a prompt is
        // small to move through the channels and streams it passes on its way to the socket
        // (every message is moved a dozen times there). The bytes on the wire are the same.
        .boxed(".canasta.v1.Prompt.view")
        .boxed(".canasta.v1.Prompt.legal")
        // Likewise the biggest event, once a deal, and an answer's error, rare.
        .boxed(".canasta.v1.GameEvent.kind.deal_started")
        .boxed(".canasta.v1.PlayResult.error")
        .compile_fds(descriptors)?;
    Ok(())
}
