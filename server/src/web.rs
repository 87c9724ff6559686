//! gRPC-Web on the gRPC port, and CORS for the origins the operator allows
//! ([`Config::cors_origins`]).
//!
//! A browser cannot speak gRPC (it gives a page no HTTP/2 trailers): it speaks gRPC-Web, over
//! HTTP/1.1 or HTTP/2, with the trailers in the body's last frame. [`tonic_web::GrpcWebLayer`]
//! translates such a call (`application/grpc-web`, `+proto`, or base64 `-text`) into a gRPC
//! call before anything else sees it, and the answer back, so that every call of either kind
//! goes through the same message limit, admission, rate limits and metrics, and a refusal
//! carries the same `grpc-status`, `grpc-message` and `canasta-reason`. A plain gRPC call
//! passes through it untouched.
//!
//! A page of another origin may call only after a CORS preflight, which [`CrossOrigin`]
//! answers for the allowed origins alone, with tower-http's CORS layer: the methods and
//! headers a gRPC-Web call sends (`authorization` among them) and the headers its script may
//! read (the status, the reason, the retry delay, the seq). A request from any other origin,
//! or without one, passes by the CORS layer: its preflight gets no `Access-Control-*` header
//! at all, and the browser refuses the page the call.
//!
//! [`Config::cors_origins`]: crate::Config::cors_origins

use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tonic::codegen::{BoxFuture, Service, http};
use tower_http::cors::{AllowOrigin, Cors, CorsLayer};

/// The request headers a gRPC-Web call may send: the call's own, its time-out, the clients'
/// markers, and the token.
pub const ALLOWED_HEADERS: [&str; 6] = [
    "content-type",
    "x-grpc-web",
    "x-user-agent",
    "grpc-timeout",
    "grpc-accept-encoding",
    "authorization",
];

/// The response headers a page's script may read: a gRPC-Web response carries its trailers in
/// its body, but a refusal before the first message comes as headers alone (a
/// "trailers-only" response), and a browser shows a page only the headers it is allowed to.
pub const EXPOSED_HEADERS: [&str; 8] = [
    "grpc-status",
    "grpc-message",
    "grpc-status-details-bin",
    "grpc-encoding",
    "canasta-reason",
    "canasta-retry-after-ms",
    "canasta-seq",
    "content-type",
];

/// How long a browser may keep a preflight's answer: 2 hours (Chromium's own cap).
pub const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(2 * 3600);

/// The origins allowed, as [`CrossOrigin`] checks a request's `Origin` header.
#[derive(Clone, Debug)]
enum Allowed {
    Any,
    /// In lower case; empty for none.
    List(Arc<[http::HeaderValue]>),
}

impl Allowed {
    fn of(origins: &[String]) -> Allowed {
        if origins.iter().any(|o| o == "*") {
            return Allowed::Any;
        }
        Allowed::List(
            origins
                .iter()
                // The configuration checked that each is a header value (ASCII, no controls).
                .filter_map(|o| http::HeaderValue::from_str(o).ok())
                .collect(),
        )
    }

    fn is_none(&self) -> bool {
        matches!(self, Allowed::List(list) if list.is_empty())
    }

    /// Whether a request with these headers comes from an allowed origin. A browser sends
    /// the origin in lower case (its scheme and host); it is compared so.
    fn allows(&self, headers: &http::HeaderMap) -> bool {
        let Some(origin) = headers.get(http::header::ORIGIN) else {
            return false;
        };
        match self {
            Allowed::Any => true,
            Allowed::List(list) => list
                .iter()
                .any(|allowed| allowed.as_bytes().eq_ignore_ascii_case(origin.as_bytes())),
        }
    }
}

/// The layer of [`CrossOrigin`], for `origins` (see [`Config::cors_origins`]).
///
/// [`Config::cors_origins`]: crate::Config::cors_origins
#[derive(Clone, Debug)]
pub struct CrossOriginLayer {
    allowed: Allowed,
    cors: CorsLayer,
}

impl CrossOriginLayer {
    /// CORS for `origins` (`*` for any); none if empty.
    pub fn new(origins: &[String]) -> CrossOriginLayer {
        let allowed = Allowed::of(origins);
        let allow_origin = match &allowed {
            Allowed::Any => AllowOrigin::any(),
            Allowed::List(list) => AllowOrigin::list(list.iter().cloned()),
        };
        let cors = CorsLayer::new()
            .allow_origin(allow_origin)
            .allow_methods([http::Method::POST])
            .allow_headers(ALLOWED_HEADERS.map(http::HeaderName::from_static))
            .expose_headers(EXPOSED_HEADERS.map(http::HeaderName::from_static))
            .max_age(PREFLIGHT_MAX_AGE);
        CrossOriginLayer { allowed, cors }
    }
}

impl<S: Clone> tower_layer::Layer<S> for CrossOriginLayer {
    type Service = CrossOrigin<S>;

    fn layer(&self, inner: S) -> CrossOrigin<S> {
        CrossOrigin {
            allowed: self.allowed.clone(),
            cors: (!self.allowed.is_none()).then(|| self.cors.layer(inner.clone())),
            inner,
        }
    }
}

/// A service whose requests from an allowed origin go through tower-http's CORS layer, and
/// the others straight to the service (see the module's documentation).
#[derive(Clone, Debug)]
pub struct CrossOrigin<S> {
    allowed: Allowed,
    /// `None` when no origin is allowed.
    cors: Option<Cors<S>>,
    inner: S,
}

impl<S, B, R> Service<http::Request<B>> for CrossOrigin<S>
where
    S: Service<http::Request<B>, Response = http::Response<R>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
    R: Default + Send + 'static,
{
    type Response = http::Response<R>;
    type Error = Infallible;
    type Future = BoxFuture<http::Response<R>, Infallible>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Each call readies the service it goes to (below): which one is known only then.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        match &self.cors {
            Some(cors) if self.allowed.allows(request.headers()) => {
                let mut cors = cors.clone();
                Box::pin(async move {
                    std::future::poll_fn(|cx| cors.poll_ready(cx)).await?;
                    cors.call(request).await
                })
            }
            _ => {
                let mut inner = self.inner.clone();
                Box::pin(async move {
                    std::future::poll_fn(|cx| inner.poll_ready(cx)).await?;
                    inner.call(request).await
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_origin(origin: &str) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::ORIGIN, origin.parse().unwrap());
        headers
    }

    #[test]
    fn only_the_listed_origins_are_allowed() {
        let allowed = Allowed::of(&["https://app.example".into(), "http://localhost:5173".into()]);
        assert!(allowed.allows(&with_origin("https://app.example")));
        assert!(allowed.allows(&with_origin("HTTPS://APP.EXAMPLE")));
        assert!(allowed.allows(&with_origin("http://localhost:5173")));
        assert!(!allowed.allows(&with_origin("http://app.example")));
        assert!(!allowed.allows(&with_origin("https://app.example:444")));
        assert!(!allowed.allows(&with_origin("https://evil.example")));
        assert!(!allowed.allows(&with_origin("null")));
        assert!(!allowed.allows(&http::HeaderMap::new()));
        assert!(!allowed.is_none());
    }

    #[test]
    fn a_star_allows_any_origin_and_an_empty_list_none() {
        let any = Allowed::of(&["https://app.example".into(), "*".into()]);
        assert!(any.allows(&with_origin("https://evil.example")));
        assert!(!any.allows(&http::HeaderMap::new()), "no origin: not CORS");
        let none = Allowed::of(&[]);
        assert!(none.is_none());
        assert!(!none.allows(&with_origin("https://app.example")));
    }
}
