//! The request size limit (`--max-message-bytes`), enforced by the transport: tonic reads a
//! message's length from its frame header and refuses a longer one before reading its body, so
//! an oversized request costs the server almost nothing. Tonic's refusal (OUT_OF_RANGE with a
//! plain message) is turned here into the service's own: RESOURCE_EXHAUSTED
//! `MESSAGE_TOO_LARGE`, with an ErrorInfo and a RetryInfo like every limit.

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tonic::body::Body;
use tonic::codegen::{BoxFuture, Service, http};
use tonic::server::NamedService;
use tonic::{Code, Status};

use crate::errors::ApiError;
use crate::metrics::Metrics;

/// How tonic's refusal of an oversized message begins.
const TONIC_TOO_LARGE: &str = "Error, decoded message length too large";

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
                    metrics.error("RESOURCE_EXHAUSTED", e.reason);
                    Status::from(e).into_http()
                }
                None => response,
            })
        })
    }
}

/// The service's refusal for tonic's refusal of a message over `limit` bytes; `None` for any
/// other status. (A streaming call, such as Play, meets tonic's refusal when it reads the
/// message, and answers with this.)
pub fn refusal_of(status: &Status, limit: usize) -> Option<ApiError> {
    (status.code() == Code::OutOfRange && status.message().starts_with(TONIC_TOO_LARGE))
        .then(|| too_large(status.message(), limit))
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
        "MESSAGE_TOO_LARGE",
        format!("the request has {size} than the limit of {limit}: send a smaller one"),
        Duration::from_secs(1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_refusal_names_the_size_and_the_limit() {
        let e = too_large(
            "Error, decoded message length too large: found 2000001 bytes, the limit is: 1048576 bytes",
            1 << 20,
        );
        assert_eq!(e.code, Code::ResourceExhausted);
        assert_eq!(e.reason, "MESSAGE_TOO_LARGE");
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
