//! The server's own web page (the lobby, the table, replays), embedded in the binary and
//! served on the gRPC port to a browser's `GET` (HTTP/1.1 or HTTP/2).
//!
//! The page is built from `web/` (TypeScript, see `docs/web.md`) into `web/dist/`, which is
//! committed and embedded here with `include_bytes!`: the server needs no Node.js to build or
//! run, and CI checks that `web/dist/` is what its sources build. The page calls the service
//! with gRPC-Web from its own origin, so it needs no CORS.
//!
//! Only the few files of [`ASSETS`] are served, by exact path: no file system is read, so no
//! path (`..`, encoded or not) reaches anything else; any other `GET` or `HEAD` is a 404. A
//! `GET` is answered from its headers alone (its body, which a `GET` should not have, is never
//! read). Other methods pass to the service (gRPC-Web is a `POST`, a CORS preflight an
//! `OPTIONS`). Every answer carries a strict Content-Security-Policy: the page's own script,
//! style and images, and calls to its own origin, nothing else.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use tonic::codegen::{BoxFuture, Bytes, Service, http};

/// One file of the page.
#[derive(Debug)]
pub struct Asset {
    /// The path it is served at.
    pub path: &'static str,
    /// Its `Content-Type`.
    pub content_type: &'static str,
    /// Its bytes, from `web/dist/`.
    pub body: &'static [u8],
}

/// The page's files: the document (at `/` and `/index.html`), its script, its style and its
/// icon.
pub const ASSETS: [Asset; 5] = [
    Asset {
        path: "/",
        content_type: "text/html; charset=utf-8",
        body: include_bytes!("../../web/dist/index.html"),
    },
    Asset {
        path: "/index.html",
        content_type: "text/html; charset=utf-8",
        body: include_bytes!("../../web/dist/index.html"),
    },
    Asset {
        path: "/app.js",
        content_type: "text/javascript; charset=utf-8",
        body: include_bytes!("../../web/dist/app.js"),
    },
    Asset {
        path: "/app.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../../web/dist/app.css"),
    },
    Asset {
        path: "/favicon.svg",
        content_type: "image/svg+xml",
        body: include_bytes!("../../web/dist/favicon.svg"),
    },
];

/// The page's Content-Security-Policy: its own script, style and images, gRPC-Web calls to
/// its own origin; no inline script or style, no plugin, no frame, no form, no other origin.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// The asset served at `path` (the request's path, without its query), if any.
pub fn asset(path: &str) -> Option<&'static Asset> {
    ASSETS.iter().find(|a| a.path == path)
}

/// An asset's entity tag: a hash of its bytes (FNV-1a, 64 bits), so that a browser revalidates
/// it cheaply and a new build is never served from its cache.
fn etag(body: &[u8]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in body {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("\"{hash:016x}\"")
}

/// A whole body of static bytes.
#[derive(Debug, Default)]
pub struct StaticBody(Option<&'static [u8]>);

impl tonic::codegen::Body for StaticBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Infallible>>> {
        Poll::Ready(
            self.0
                .take()
                .map(|b| Ok(http_body::Frame::data(Bytes::from_static(b)))),
        )
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_none()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.0.map_or(0, |b| b.len() as u64))
    }
}

/// The answer to a `GET` or `HEAD` of `path` with these request headers: the asset, a 304 if
/// the browser holds it already, or a 404.
pub fn answer(
    method: &http::Method,
    path: &str,
    headers: &http::HeaderMap,
) -> http::Response<StaticBody> {
    use http::header;
    let found = asset(path);
    let (status, content_type, body, tag) = match found {
        Some(a) => {
            let tag = etag(a.body);
            let fresh = headers
                .get_all(header::IF_NONE_MATCH)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .any(|t| t.trim() == tag || t.trim() == "*");
            if fresh {
                (
                    http::StatusCode::NOT_MODIFIED,
                    a.content_type,
                    &[][..],
                    Some(tag),
                )
            } else {
                (http::StatusCode::OK, a.content_type, a.body, Some(tag))
            }
        }
        None => (
            http::StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            &b"not found: this server serves its page at / (and gRPC, gRPC-Web at POST)\n"[..],
            None,
        ),
    };
    let mut response = http::Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::REFERRER_POLICY, "no-referrer")
        .header(header::X_FRAME_OPTIONS, "DENY")
        // Revalidated on every load (by its tag): a new server's page is never stale.
        .header(header::CACHE_CONTROL, "no-cache");
    if status != http::StatusCode::NOT_MODIFIED {
        response = response.header(header::CONTENT_LENGTH, body.len());
    }
    if let Some(tag) = tag {
        response = response.header(header::ETAG, tag);
    }
    let body = match *method == http::Method::HEAD || status == http::StatusCode::NOT_MODIFIED {
        true => StaticBody(None),
        false => StaticBody(Some(body)),
    };
    response.body(body).expect("a valid response")
}

/// The layer of [`Page`]; `serve` false passes every request to the service.
#[derive(Clone, Copy, Debug)]
pub struct PageLayer {
    serve: bool,
}

impl PageLayer {
    /// Serves the page if `serve` ([`Config::web_page`](crate::Config::web_page)).
    pub fn new(serve: bool) -> PageLayer {
        PageLayer { serve }
    }
}

impl<S> tower_layer::Layer<S> for PageLayer {
    type Service = Page<S>;

    fn layer(&self, inner: S) -> Page<S> {
        Page {
            serve: self.serve,
            inner,
        }
    }
}

/// A service that answers `GET` and `HEAD` with the page ([`answer`]) and passes every other
/// request to `S`.
#[derive(Clone, Debug)]
pub struct Page<S> {
    serve: bool,
    inner: S,
}

impl<S, B> Service<http::Request<B>> for Page<S>
where
    S: Service<http::Request<B>, Response = http::Response<tonic::body::Body>, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<http::Response<tonic::body::Body>, Infallible>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // A page's answer needs nothing of the service: the service is readied per call.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let method = request.method();
        if self.serve && (method == http::Method::GET || method == http::Method::HEAD) {
            let response = answer(method, request.uri().path(), request.headers());
            return Box::pin(async move { Ok(response.map(tonic::body::Body::new)) });
        }
        let mut inner = self.inner.clone();
        Box::pin(async move {
            std::future::poll_fn(|cx| inner.poll_ready(cx)).await?;
            inner.call(request).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str) -> http::Response<StaticBody> {
        answer(&http::Method::GET, path, &http::HeaderMap::new())
    }

    #[test]
    fn each_asset_has_its_type_and_its_bytes() {
        for a in &ASSETS {
            let r = get(a.path);
            assert_eq!(r.status(), http::StatusCode::OK, "{}", a.path);
            assert_eq!(r.headers()[http::header::CONTENT_TYPE], a.content_type);
            assert_eq!(r.body().0, Some(a.body));
            assert!(!a.body.is_empty(), "{} is built", a.path);
        }
        assert_eq!(asset("/").unwrap().body, asset("/index.html").unwrap().body);
    }

    #[test]
    fn other_paths_are_not_found() {
        for path in [
            "/../Cargo.toml",
            "/..%2fCargo.toml",
            "/app.js/",
            "//app.js",
            "/APP.JS",
            "/src/main.ts",
            "/dist/app.js",
            "/index.htm",
        ] {
            let r = get(path);
            assert_eq!(r.status(), http::StatusCode::NOT_FOUND, "{path}");
            assert!(
                r.headers()
                    .contains_key(http::header::CONTENT_SECURITY_POLICY)
            );
        }
    }

    #[test]
    fn a_known_tag_is_not_modified_and_head_has_no_body() {
        let tag = get("/app.js").headers()[http::header::ETAG].clone();
        let mut headers = http::HeaderMap::new();
        headers.insert(http::header::IF_NONE_MATCH, tag);
        let r = answer(&http::Method::GET, "/app.js", &headers);
        assert_eq!(r.status(), http::StatusCode::NOT_MODIFIED);
        assert_eq!(r.body().0, None);
        let r = answer(&http::Method::HEAD, "/", &http::HeaderMap::new());
        assert_eq!(r.status(), http::StatusCode::OK);
        assert_eq!(r.body().0, None);
        assert_eq!(
            r.headers()[http::header::CONTENT_LENGTH],
            asset("/").unwrap().body.len().to_string()
        );
    }
}
