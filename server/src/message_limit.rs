//! The request size limit (`--max-message-bytes`), enforced by the transport: tonic reads a
//! message's length from its frame header and refuses a longer one before reading its body, so
//! an oversized request costs the server almost nothing. Tonic's refusal (OUT_OF_RANGE with a
//! plain message) is turned here into the service's own: RESOURCE_EXHAUSTED
//! `MESSAGE_TOO_LARGE`, with an ErrorInfo and a RetryInfo like every limit.
//!
//! Likewise a request that is not protobuf of its type (the codec's INTERNAL, see
//! [`canasta_proto::codec::decode_error`]): the caller's mistake, INVALID_ARGUMENT
//! `MALFORMED_MESSAGE`.
//!
//! Such a call never reaches the service's layer ([`crate::service`]): its metrics are counted
//! here. (A Play stream reads its messages itself, and turns such a refusal into the service's
//! with [`refusal_of`].)

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tonic::body::Body;
use tonic::codegen::{BoxFuture, Service, http};
use tonic::server::NamedService;
use tonic::{Code, Status};

use crate::errors::ApiError;
use crate::metrics::Metrics;
use crate::service::Method;
use canasta_proto::Reason;

/// How tonic's refusal of an oversized message begins.
const TONIC_TOO_LARGE: &str = "Error, decoded message length too large";

/// How tonic-web's refusal of a gRPC-Web request body it cannot read begins (INTERNAL): bad
/// base64 in the text mode, a frame of an unknown kind ([`crate::web`]).
const TONIC_WEB_UNREADABLE: &str = "tonic-web: ";

/// A gRPC service whose requests are limited to `limit` bytes, refused with
/// `MESSAGE_TOO_LARGE`. The inner service must decode with the same limit
/// (`max_decoding_message_size`).
#[derive(Clone)]
pub struct MessageLimit<S> {
    inner: S,
    limit: usize,
    metrics: Arc<Metrics>,
}

impl<S> MessageLimit<S> {
    /// `inner`, with its oversized requests refused as this service's limit.
    pub fn new(inner: S, limit: usize, metrics: Arc<Metrics>) -> MessageLimit<S> {
        MessageLimit {
            inner,
            limit,
            metrics,
        }
    }
}

impl<S: NamedService> NamedService for MessageLimit<S> {
    const NAME: &'static str = S::NAME;
}

impl<S, B> Service<http::Request<B>> for MessageLimit<S>
where
    S: Service<http::Request<B>, Response = http::Response<Body>, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let started = Instant::now();
        let method = Method::from_path(request.uri().path());
        let answer = self.inner.call(request);
        let limit = self.limit;
        let metrics = self.metrics.clone();
        Box::pin(async move {
            let response = answer.await?;
            let too_large = response
                .extensions()
                .get::<Status>()
                .and_then(|s| refusal_of(s, limit));
            Ok(match too_large {
                Some(e) => {
                    // The service never saw the call (the transport refused its message before
                    // the method ran): it is counted here, as the service's layer counts the
                    // others.
                    metrics.refused(e.code, e.reason);
                    if let Some(method) = method {
                        metrics.answered(method.name(), e.code, started.elapsed());
                    }
                    Status::from(e).into_http()
                }
                None => response,
            })
        })
    }
}

/// The service's refusal for the transport's refusal of a request's message: over `limit`
/// bytes, or not protobuf of its type; `None` for any other status. (A streaming call, such as
/// Play, meets the refusal when it reads the message, and answers with this.)
pub fn refusal_of(status: &Status, limit: usize) -> Option<ApiError> {
    if let Some(e) = canasta_proto::codec::decode_error(status) {
        return Some(malformed(e));
    }
    // This service sits inside the gRPC-Web translation: a tonic-web status here comes from
    // reading the request, never from writing the answer.
    if status.code() == Code::Internal
        && let Some(why) = status.message().strip_prefix(TONIC_WEB_UNREADABLE)
    {
        return Some(unreadable_web_body(why));
    }
    (status.code() == Code::OutOfRange && status.message().starts_with(TONIC_TOO_LARGE))
        .then(|| too_large(status.message(), limit))
}

/// The refusal of a request that is not protobuf of its type; `e` says where and why.
fn malformed(e: &prost::DecodeError) -> ApiError {
    // prost names the fields it was in, at most 100 deep: a bounded message, kept short.
    const SHOWN: usize = 300;
    let why = e.to_string();
    let why = why
        .strip_prefix("failed to decode Protobuf message: ")
        .unwrap_or(&why);
    let why = match why.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &why[..cut]),
        None => why.to_string(),
    };
    ApiError::new(
        Code::InvalidArgument,
        Reason::MalformedMessage,
        format!(
            "the request's bytes are not a protobuf message of its type ({why}): encode it with \
             a protobuf library from proto/canasta/v1/*.proto, or the server's reflection"
        ),
    )
}

/// The refusal of a gRPC-Web request whose body is not framed messages; `why` is
/// tonic-web's reason.
fn unreadable_web_body(why: &str) -> ApiError {
    const SHOWN: usize = 200;
    let why = match why.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &why[..cut]),
        None => why.to_string(),
    };
    ApiError::new(
        Code::InvalidArgument,
        Reason::MalformedMessage,
        format!(
            "the gRPC-Web request's body cannot be read ({why}): send the framed messages as \
             they are with content-type application/grpc-web+proto, or encoded in base64 with \
             application/grpc-web-text"
        ),
    )
}

/// The refusal of a request over `limit` bytes; `tonic_message` names its size.
fn too_large(tonic_message: &str, limit: usize) -> ApiError {
    let size = tonic_message
        .split("found ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse::<usize>().ok());
    let size = match size {
        Some(n) => format!("{n} bytes, more"),
        None => "more bytes".to_string(),
    };
    ApiError::exhausted(
        Reason::MessageTooLarge,
        format!("the request has {size} than the limit of {limit}: send a smaller one"),
        Duration::from_secs(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decode_error_is_the_caller_s_mistake_with_prost_s_reason() {
        use prost::Message;
        let bytes: &[u8] = &[0x1a, 0x02, 0xff, 0xfe];
        let e = canasta_proto::v1::JoinGameRequest::decode(bytes).unwrap_err();
        let mut status = Status::internal(e.to_string());
        status.set_source(std::sync::Arc::new(e));
        let refusal = refusal_of(&status, 10).expect("a refusal");
        assert_eq!(
            (refusal.code, refusal.reason),
            (Code::InvalidArgument, Reason::MalformedMessage)
        );
        assert!(
            refusal.message.contains(
                "(JoinGameRequest.display_name: invalid string value: data is not UTF-8 encoded)"
            ),
            "{}",
            refusal.message
        );
        assert!(refusal_of(&Status::internal("x"), 10).is_none());
        // A gRPC-Web body tonic-web cannot read (bad base64 in the text mode).
        let web = Status::internal("tonic-web: Invalid symbol 0, offset 0.");
        let refusal = refusal_of(&web, 10).expect("a refusal");
        assert_eq!(
            (refusal.code, refusal.reason),
            (Code::InvalidArgument, Reason::MalformedMessage)
        );
        assert!(
            refusal.message.contains("(Invalid symbol 0, offset 0.)"),
            "{}",
            refusal.message
        );
    }

    #[test]
    fn the_refusal_names_the_size_and_the_limit() {
        let e = too_large(
            "Error, decoded message length too large: found 2000001 bytes, the limit is: 1048576 bytes",
            1 << 20,
        );
        assert_eq!(e.code, Code::ResourceExhausted);
        assert_eq!(e.reason, Reason::MessageTooLarge);
        assert_eq!(
            e.message,
            "the request has 2000001 bytes, more than the limit of 1048576: send a smaller one"
        );
        assert!(e.retry_after.is_some());
        let e = too_large("Error, decoded message length too large", 10);
        assert!(
            e.message.contains("more bytes than the limit of 10"),
            "{}",
            e.message
        );
    }
}
