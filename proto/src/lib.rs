//! The `canasta.v1` wire protocol: the types and gRPC stubs generated from
//! `proto/canasta/v1/*.proto`, and their conversions to and from the engine's types.
//!
//! - [`v1`]: the generated messages, `canasta_service_client` and `canasta_service_server`.
//! - [`codec`]: the gRPC codec the stubs use (protobuf through prost, with fewer calls per
//!   field).
//! - [`convert`]: wire <-> engine, the one place where that is decided; malformed input is
//!   refused there with a [`convert::WireError`].
//! - [`reason`]: the stable reasons of the service's errors ([`Reason`]), how they travel (an
//!   ErrorInfo detail and plain metadata) and how a client reads them ([`reason::reason_of`]).

/// The generated `canasta.v1` package.
#[allow(clippy::all, missing_docs)]
pub mod v1 {
    tonic::include_proto!("canasta.v1");

    /// The encoded file descriptor set of the package, for gRPC server reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/canasta_descriptor.bin"));
}

/// The encoded file descriptor set of `google/rpc/status.proto` and
/// `google/rpc/error_details.proto` (shipped in `proto/google/rpc/`) with the google.protobuf
/// files they import: the types of the details the service's error statuses carry
/// (`google.rpc.Status`, `ErrorInfo`, `BadRequest`, `RetryInfo`), for server reflection.
pub const ERROR_DETAILS_FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/error_details_descriptor.bin"));

pub mod codec;
pub mod convert;
pub mod reason;

pub use reason::Reason;
