//! gRPC-Web clients, for the tests and the benchmark that speak it as a browser does: over
//! HTTP/1.1 with requests framed here byte by byte ([`H1`]: a 5-byte header per message, the
//! trailers in a last frame flagged 0x80), and over HTTP/2 with tonic-web's client layer
//! ([`web_client`]).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use prost::Message;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tonic::Code;

use canasta_proto::v1::canasta_service_client::CanastaServiceClient;
use tonic::body::Body;
use tonic::codegen::{Service, http};
use tonic::transport::Channel;

use crate::channel;

/// The service's path prefix.
pub const SERVICE: &str = "/canasta.v1.CanastaService";
/// The binary mode's content type.
pub const BINARY: &str = "application/grpc-web+proto";

/// A guard against a hang: every read of the server's answer comes within it.
pub const READ_LIMIT: Duration = Duration::from_secs(10);

/// A message as a gRPC-Web body carries it: flag 0, its length (big-endian), the message.
pub fn frame(message: &impl Message) -> Vec<u8> {
    let bytes = message.encode_to_vec();
    let mut out = vec![0u8];
    out.extend_from_slice(&(bytes.len() as u32).to_be_bytes());
    out.extend_from_slice(&bytes);
    out
}

/// One HTTP/1.1 connection to the server.
pub struct H1 {
    reader: BufReader<TcpStream>,
}

/// A request's extra headers.
pub type Headers<'a> = &'a [(&'a str, &'a str)];

impl H1 {
    pub async fn connect(addr: SocketAddr) -> H1 {
        let stream = TcpStream::connect(addr).await.expect("the server accepts");
        // As a browser's: a request's head and body, written apart, go out at once (with
        // Nagle's algorithm the body waits for the head's acknowledgement, which the server
        // delays: 40 ms a call).
        stream.set_nodelay(true).expect("TCP_NODELAY");
        H1 {
            reader: BufReader::new(stream),
        }
    }

    /// Sends a request (`body` with its length) and reads its answer's head.
    pub async fn request(
        &mut self,
        method: &str,
        path: &str,
        headers: Headers<'_>,
        body: &[u8],
    ) -> H1Response<'_> {
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nhost: localhost\r\ncontent-length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let stream = self.reader.get_mut();
        stream.write_all(head.as_bytes()).await.expect("sent");
        stream.write_all(body).await.expect("sent");
        let mut status_line = String::new();
        self.read_line(&mut status_line).await;
        let status = status_line
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("an HTTP status line: {status_line:?}"));
        assert!(status_line.starts_with("HTTP/1.1 "), "{status_line:?}");
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.read_line(&mut line).await;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("a header");
            headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
        }
        let length = header_in(&headers, "content-length").map(|l| l.parse().expect("a length"));
        let chunked = header_in(&headers, "transfer-encoding") == Some("chunked");
        H1Response {
            status,
            headers,
            left: if chunked {
                None
            } else {
                Some(length.unwrap_or(0))
            },
            conn: self,
            body: Vec::new(),
            ended: false,
        }
    }

    async fn read_line(&mut self, line: &mut String) {
        let n = tokio::time::timeout(READ_LIMIT, self.reader.read_line(line))
            .await
            .expect("the server answers within 10 s")
            .expect("a line");
        assert!(n > 0, "the server closed the connection");
    }

    /// A gRPC-Web call in binary: its answer read to the end.
    pub async fn call(
        &mut self,
        method: &str,
        message: &impl Message,
        headers: Headers<'_>,
    ) -> Answer {
        let mut all = vec![("content-type", BINARY), ("x-grpc-web", "1")];
        all.extend_from_slice(headers);
        let path = format!("{SERVICE}/{method}");
        let mut response = self.request("POST", &path, &all, &frame(message)).await;
        assert_eq!(response.status, 200, "{:?}", response.headers);
        assert_eq!(response.header("content-type"), Some(BINARY));
        response.answer().await
    }
}

pub fn header_in<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// An answer's head, and its body as it comes.
pub struct H1Response<'a> {
    /// The HTTP status.
    pub status: u16,
    /// The headers, names in lower case.
    pub headers: Vec<(String, String)>,
    conn: &'a mut H1,
    /// What is left of a body of known length; `None` for a chunked one.
    left: Option<usize>,
    /// Body bytes read and not yet taken.
    pub body: Vec<u8>,
    ended: bool,
}

/// The frames of a gRPC-Web answer: its messages, and its trailers (from the last frame, or
/// from the headers of an answer without a body).
#[derive(Debug)]
pub struct Answer {
    /// The messages.
    pub messages: Vec<Vec<u8>>,
    /// The trailers, names in lower case.
    pub trailers: HashMap<String, String>,
}

impl Answer {
    /// The call's status, as a gRPC client reads it from the trailers.
    pub fn status(&self) -> tonic::Status {
        let mut map = http::HeaderMap::new();
        for (name, value) in &self.trailers {
            map.insert(
                http::HeaderName::from_bytes(name.as_bytes()).expect("a header name"),
                value.parse().expect("a header value"),
            );
        }
        tonic::Status::from_header_map(&map).expect("a grpc-status")
    }

    pub fn only<M: Message + Default>(&self) -> M {
        assert_eq!(self.status().code(), Code::Ok, "{:?}", self.status());
        assert_eq!(self.messages.len(), 1, "one message");
        M::decode(&self.messages[0][..]).expect("the message decodes")
    }
}

impl H1Response<'_> {
    pub fn header(&self, name: &str) -> Option<&str> {
        header_in(&self.headers, name)
    }

    /// Reads more of the body; false at its end.
    pub async fn more(&mut self) -> bool {
        if self.ended {
            return false;
        }
        let reader = &mut self.conn.reader;
        match &mut self.left {
            Some(0) => {
                self.ended = true;
                false
            }
            Some(left) => {
                let mut buf = vec![0u8; (*left).min(8192)];
                let n = tokio::time::timeout(READ_LIMIT, reader.read(&mut buf))
                    .await
                    .expect("the body within 10 s")
                    .expect("read");
                assert!(n > 0, "the server closed the connection within a body");
                *left -= n;
                self.body.extend_from_slice(&buf[..n]);
                true
            }
            None => {
                let mut size = String::new();
                self.conn.read_line(&mut size).await;
                let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
                let reader = &mut self.conn.reader;
                let mut chunk = vec![0u8; size + 2];
                tokio::time::timeout(READ_LIMIT, reader.read_exact(&mut chunk))
                    .await
                    .expect("a chunk within 10 s")
                    .expect("a whole chunk");
                assert_eq!(&chunk[size..], b"\r\n");
                if size == 0 {
                    self.ended = true;
                    return false;
                }
                self.body.extend_from_slice(&chunk[..size]);
                true
            }
        }
    }

    /// The next frame of the body (its flag and bytes), or `None` at its end.
    pub async fn next_frame(&mut self) -> Option<(u8, Vec<u8>)> {
        loop {
            if self.body.len() >= 5 {
                let len = u32::from_be_bytes(self.body[1..5].try_into().unwrap()) as usize;
                if self.body.len() >= 5 + len {
                    let flag = self.body[0];
                    let payload = self.body[5..5 + len].to_vec();
                    self.body.drain(..5 + len);
                    return Some((flag, payload));
                }
            }
            if !self.more().await {
                assert!(self.body.is_empty(), "a cut frame: {:?}", self.body);
                return None;
            }
        }
    }

    /// The whole answer: its messages, then its trailers.
    pub async fn answer(&mut self) -> Answer {
        let mut messages = Vec::new();
        let mut trailers = None;
        while let Some((flag, bytes)) = self.next_frame().await {
            assert!(trailers.is_none(), "a frame after the trailers");
            match flag {
                0 => messages.push(bytes),
                0x80 => trailers = Some(parse_trailers(&bytes)),
                _ => panic!("an unknown frame flag {flag:#x}"),
            }
        }
        // An answer without a message may come as headers alone ("trailers-only").
        let trailers = trailers.unwrap_or_else(|| {
            self.headers
                .iter()
                .filter(|(n, _)| n.starts_with("grpc-") || n.starts_with("canasta-"))
                .cloned()
                .collect()
        });
        Answer { messages, trailers }
    }
}

/// A trailers frame's `name: value` lines.
pub fn parse_trailers(bytes: &[u8]) -> HashMap<String, String> {
    let text = std::str::from_utf8(bytes).expect("trailers are text");
    text.split("\r\n")
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (n, v) = l.split_once(':').expect("name: value");
            (n.trim().to_ascii_lowercase(), v.trim().to_string())
        })
        .collect()
}

/// tonic-web's client layer marks its requests HTTP/1.1 and wraps their bodies: this puts
/// them back on an HTTP/2 channel, as a browser that speaks HTTP/2 to the server sends them.
#[derive(Clone)]
pub struct OverH2(pub Channel);

impl Service<http::Request<tonic_web::GrpcWebCall<Body>>> for OverH2 {
    type Response = http::Response<Body>;
    type Error = tonic::transport::Error;
    type Future = <Channel as Service<http::Request<Body>>>::Future;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        Service::<http::Request<Body>>::poll_ready(&mut self.0, cx)
    }

    fn call(&mut self, request: http::Request<tonic_web::GrpcWebCall<Body>>) -> Self::Future {
        let mut request = request.map(Body::new);
        *request.version_mut() = http::Version::HTTP_2;
        self.0.call(request)
    }
}

/// A generated client whose calls are gRPC-Web over HTTP/2.
pub type WebClient = CanastaServiceClient<tonic_web::GrpcWebClientService<OverH2>>;

/// A generated client whose calls are gRPC-Web over HTTP/2.
pub async fn web_client(addr: SocketAddr) -> WebClient {
    CanastaServiceClient::new(tonic_web::GrpcWebClientService::new(OverH2(
        channel(addr).await,
    )))
}

/// A generated client whose calls are gRPC-Web over HTTP/2 on TLS, trusting the certificate
/// authority `ca_pem` for the name `localhost`: as a browser on an https page speaks to the
/// server.
pub async fn web_client_tls(addr: SocketAddr, ca_pem: &str) -> WebClient {
    let channel = crate::tls_channel(addr, ca_pem)
        .await
        .expect("a TLS connection");
    CanastaServiceClient::new(tonic_web::GrpcWebClientService::new(OverH2(channel)))
}
