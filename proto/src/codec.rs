//! The gRPC codec of the generated stubs: protobuf through prost, as `tonic_prost::ProstCodec`
//! does, with the same bytes on the wire, but faster for the many small fields a view holds.
//!
//! - Encoding: prost writes a message as many small pieces (a varint here, a tag there). Into
//!   tonic's buffer each piece is a call through `BytesMut`'s growth checks; into a `Vec` it is a
//!   push. So a message is encoded into a scratch `Vec` the stream keeps, then copied into
//!   tonic's buffer at once: a prompt with its view encodes in about half the time.
//! - Decoding: a message is read from one contiguous slice (tonic's buffer holds a whole message
//!   contiguously almost always; otherwise it is copied out first), where each step forward is an
//!   addition rather than a call into `BytesMut`: about a third faster.

use std::marker::PhantomData;
use std::sync::Arc;

use prost::Message;
use prost::bytes::{Buf, BufMut};
use tonic::Status;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

/// Scratch space a stream keeps between messages; a larger buffer (a big export) is given back
/// after its message rather than held for the stream's life.
const KEEP_SCRATCH: usize = 64 * 1024;

/// The codec of every `canasta.v1` service (named in `build.rs`): encodes `T`, decodes `U`.
#[derive(Debug, Clone)]
pub struct ProtoCodec<T, U> {
    _types: PhantomData<(T, U)>,
}

impl<T, U> Default for ProtoCodec<T, U> {
    fn default() -> Self {
        ProtoCodec {
            _types: PhantomData,
        }
    }
}

impl<T, U> Codec for ProtoCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProtoEncoder<T>;
    type Decoder = ProtoDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProtoEncoder {
            scratch: Vec::new(),
            _type: PhantomData,
        }
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProtoDecoder { _type: PhantomData }
    }
}

/// Encodes the messages of one stream (see the module documentation).
#[derive(Debug)]
pub struct ProtoEncoder<T> {
    scratch: Vec<u8>,
    _type: PhantomData<T>,
}

impl<T: Message> Encoder for ProtoEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        self.scratch.clear();
        // `encode_raw` cannot fail: a `Vec` grows as needed.
        item.encode_raw(&mut self.scratch);
        buf.put_slice(&self.scratch);
        if self.scratch.capacity() > KEEP_SCRATCH {
            self.scratch = Vec::new();
        }
        Ok(())
    }
}

/// Decodes the messages of one stream (see the module documentation).
#[derive(Debug)]
pub struct ProtoDecoder<U> {
    _type: PhantomData<U>,
}

impl<U: Message + Default> Decoder for ProtoDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        let len = buf.remaining();
        let decoded = if buf.chunk().len() >= len {
            let decoded = U::decode(&buf.chunk()[..len]);
            buf.advance(len);
            decoded
        } else {
            U::decode(buf.copy_to_bytes(len).as_ref())
        };
        decoded.map(Some).map_err(unreadable)
    }
}

/// The status of a message that cannot be read: INTERNAL, as tonic's own prost codec answers
/// it (for a client, an answer it cannot read is the server's fault), with prost's error as
/// its source: a server answers a request it cannot read as the caller's mistake instead
/// (INVALID_ARGUMENT), finding it with [`decode_error`].
#[cold]
fn unreadable(e: prost::DecodeError) -> Status {
    let mut status = Status::internal(e.to_string());
    status.set_source(Arc::new(e));
    status
}

/// Why the message was not read, if `status` is this codec's refusal of a message that is not
/// protobuf of its type (invalid UTF-8 in a string, a truncated varint, a wrong wire type,
/// nesting past prost's limit …).
pub fn decode_error(status: &Status) -> Option<&prost::DecodeError> {
    std::error::Error::source(status)?.downcast_ref()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1;
    use http_body_util::{BodyExt, StreamBody};
    use prost::bytes::Bytes;
    use tonic::codec::{EncodeBody, Streaming};
    use tonic::codegen::tokio_stream;

    /// A message with nested and repeated fields, strings and negative numbers.
    fn sample() -> v1::WatchGameResponse {
        let card = |rank: v1::Rank, suit: v1::Suit| v1::Card {
            rank: rank as i32,
            suit: suit as i32,
        };
        v1::WatchGameResponse {
            kind: Some(v1::watch_game_response::Kind::Prompt(v1::Prompt {
                game_id: "g-1".into(),
                seq: 300,
                seat: 2,
                legal: None,
                time_left_ms: Some(1500),
                view: Some(Box::new(v1::GameView {
                    game_id: "g-1".into(),
                    seq: 300,
                    pile: vec![
                        card(v1::Rank::King, v1::Suit::Spades),
                        card(v1::Rank::Joker, v1::Suit::Unspecified),
                    ],
                    sides: vec![v1::SideView {
                        side: 1,
                        seats: vec![1, 3],
                        score: -350,
                        ..Default::default()
                    }],
                    ..Default::default()
                })),
            })),
        }
    }

    /// gRPC's framing of messages: a byte saying "not compressed", the length, the message.
    fn framed(messages: &[Vec<u8>]) -> Vec<u8> {
        let mut out = Vec::new();
        for m in messages {
            out.push(0u8);
            out.extend_from_slice(&(m.len() as u32).to_be_bytes());
            out.extend_from_slice(m);
        }
        out
    }

    /// What a stream reads from these bytes, given to it `chunk` bytes at a time.
    async fn read<U: Message + Default + Send + 'static>(
        bytes: &[u8],
        chunk: usize,
    ) -> Result<Vec<U>, Status> {
        let chunks: Vec<Result<_, Status>> = bytes
            .chunks(chunk)
            .map(|c| Ok(http_body::Frame::data(Bytes::copy_from_slice(c))))
            .collect();
        let body = StreamBody::new(tokio_stream::iter(chunks));
        let decoder = ProtoCodec::<U, U>::default().decoder();
        let mut stream = Streaming::new_request(decoder, body, None, None);
        let mut read = Vec::new();
        while let Some(m) = stream.message().await? {
            read.push(m);
        }
        Ok(read)
    }

    // Clients in every language read what the server writes: the bytes must be prost's own.
    #[tokio::test]
    async fn the_bytes_are_prost_s_and_read_back_whole() {
        let messages = vec![sample(), v1::WatchGameResponse::default(), sample()];
        let encoder =
            ProtoCodec::<v1::WatchGameResponse, v1::WatchGameResponse>::default().encoder();
        let body = EncodeBody::new_server(
            encoder,
            tokio_stream::iter(messages.clone().into_iter().map(Ok)),
            None,
            Default::default(),
            None,
        );
        let bytes = body.collect().await.unwrap().to_bytes();
        let prost_s: Vec<Vec<u8>> = messages.iter().map(|m| m.encode_to_vec()).collect();
        assert_eq!(bytes.as_ref(), &framed(&prost_s)[..]);
        // Read back whole, and in pieces of 7 bytes so that messages straddle the buffer's
        // chunks (the path that copies a message out first).
        for chunk in [bytes.len(), 7] {
            let read: Vec<v1::WatchGameResponse> = read(&bytes, chunk).await.unwrap();
            assert_eq!(read, messages, "in chunks of {chunk}");
        }
    }

    // A streamed message is moved a dozen times between a game's actor and the socket: its big
    // parts (a prompt's view and choices, a deal's start, an answer's error) are boxed by
    // build.rs, so that a new field inline does not make every move copy hundreds of bytes.
    #[test]
    fn streamed_messages_stay_small_to_move() {
        use std::mem::size_of;
        for (name, size) in [
            ("PlayResponse", size_of::<v1::PlayResponse>()),
            ("WatchGameResponse", size_of::<v1::WatchGameResponse>()),
            ("GameEvent", size_of::<v1::GameEvent>()),
            ("Prompt", size_of::<v1::Prompt>()),
        ] {
            assert!(
                size <= 96,
                "{name} is {size} bytes: box its biggest field in build.rs"
            );
        }
    }

    #[tokio::test]
    async fn a_message_that_is_not_protobuf_is_refused_as_internal_with_prost_s_error() {
        // A length-delimited field whose length runs past the end of the message.
        let bytes = framed(&[vec![0x0a, 0x05, 0x01]]);
        let err = read::<v1::Card>(&bytes, bytes.len()).await.unwrap_err();
        assert_eq!(err.code(), tonic::Code::Internal, "{err}");
        assert!(decode_error(&err).is_some(), "{err:?}");
        // Any other status is not a decode error.
        assert!(decode_error(&Status::internal("x")).is_none());
    }
}
