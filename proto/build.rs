//! Compiles `canasta/v1/*.proto` with protox (a pure-Rust protobuf compiler, so no protoc is
//! needed) into Rust types and tonic stubs, and saves the file descriptor set for reflection.

use std::path::PathBuf;

use prost::Message;

const FILES: &[&str] = &[
    "canasta/v1/cards.proto",
    "canasta/v1/actions.proto",
    "canasta/v1/game.proto",
    "canasta/v1/service.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    for file in FILES {
        println!("cargo:rerun-if-changed={file}");
    }
    let descriptors = protox::compile(FILES, ["."])?;
    let out = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out.join("canasta_descriptor.bin"),
        descriptors.encode_to_vec(),
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
