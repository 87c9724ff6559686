//! The connections being served: how many (for `--max-connections`), the deadline for a new
//! connection's first bytes (`--handshake-timeout-secs`), and a way for a shutdown to end
//! those a client keeps open.
//!
//! After its shutdown signal the transport waits for every connection to close, and [`serve`]
//! stops waiting after its grace. The transport's connection tasks outlive that: in the binary
//! the process exits, but a program that embeds the server keeps its runtime, and with it every
//! connection a client never closed. So each accepted socket is served through a [`Conn`]
//! registered with a small flag (no second descriptor: one descriptor per connection); at the
//! end of the grace every registered flag is raised and its connection's task woken. The
//! connection then reads the end of its stream (writes fail), the transport's task finishes
//! and drops the socket, which closes. A connection that ends removes its flag. Registering
//! costs a lock and a small allocation per connection; a read or write that goes through costs
//! one atomic load, one that must wait also a lock of the connection's own flag.
//!
//! [`serve`]: crate::serve

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// The bytes a new connection must send within its handshake deadline: the length of the
/// HTTP/2 client preface (`PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`); over TLS, the start of the
/// ClientHello, which is longer; for gRPC-Web over HTTP/1.1, the start of the request line
/// (`POST /canasta.v1.CanastaService/…`, longer too).
pub const OPENING_BYTES: usize = 24;

/// The connections being served (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct OpenConnections(Arc<Mutex<Registered>>);

#[derive(Debug, Default)]
struct Registered {
    next: u64,
    cuts: HashMap<u64, Arc<Cut>>,
}

/// A connection's cut flag, and the task to wake when it is raised.
#[derive(Debug, Default)]
struct Cut {
    cut: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Cut {
    fn is_cut(&self) -> bool {
        self.cut.load(Ordering::Acquire)
    }

    fn raise(&self) {
        self.cut.store(true, Ordering::Release);
        let waker = self
            .waker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Keeps the task of `cx` to wake at the cut; true if the flag is already up (raised
    /// before the waker was kept: the caller must not wait).
    fn wake_on_cut(&self, cx: &Context<'_>) -> bool {
        {
            let mut waker = self.waker.lock().unwrap_or_else(PoisonError::into_inner);
            match &*waker {
                Some(w) if w.will_wake(cx.waker()) => {}
                _ => *waker = Some(cx.waker().clone()),
            }
        }
        self.is_cut()
    }
}

impl OpenConnections {
    /// Wraps an accepted socket, registered while the wrapper lives, which must send its first
    /// [`OPENING_BYTES`] within `handshake` (else its reads fail with `TimedOut` and the
    /// transport closes it). Refused (the socket given back, for the caller to close) if
    /// `limit` connections are open already.
    pub fn serve(
        &self,
        stream: TcpStream,
        limit: usize,
        handshake: Duration,
    ) -> Result<Conn, TcpStream> {
        let cut = Arc::new(Cut::default());
        let id = {
            let mut registered = self.lock();
            if registered.cuts.len() >= limit {
                return Err(stream);
            }
            let id = registered.next;
            registered.next += 1;
            registered.cuts.insert(id, cut.clone());
            id
        };
        Ok(Conn {
            _registration: Registration {
                id,
                open: self.clone(),
            },
            stream,
            cut,
            opening: Some(Opening {
                left: OPENING_BYTES,
                deadline: Box::pin(tokio::time::sleep(handshake)),
            }),
        })
    }

    /// Cuts every registered connection: its reads see the end of the stream, its writes
    /// fail, its task is woken, and the transport finishes it and closes its socket. Returns
    /// how many there were.
    pub fn cut_all(&self) -> usize {
        let registered = self.lock();
        for cut in registered.cuts.values() {
            cut.raise();
        }
        registered.cuts.len()
    }

    /// How many connections are open.
    pub fn len(&self) -> usize {
        self.lock().cuts.len()
    }

    /// True if no connection is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registered> {
        // The map stays whole whatever panicked while it was held: insertions and removals.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Removes its connection's flag when the connection ends.
#[derive(Debug)]
struct Registration {
    id: u64,
    open: OpenConnections,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.open.lock().cuts.remove(&self.id);
    }
}

/// What a new connection has still to send, and by when.
#[derive(Debug)]
struct Opening {
    left: usize,
    deadline: Pin<Box<Sleep>>,
}

/// An accepted connection as the transport serves it: the socket, registered while it lives.
#[derive(Debug)]
pub struct Conn {
    /// Dropped first (fields drop in order): the connection's place is free before its socket
    /// closes, so a client that sees the close may connect again at once.
    _registration: Registration,
    stream: TcpStream,
    cut: Arc<Cut>,
    /// Until the first bytes have come.
    opening: Option<Opening>,
}

/// Why a connection whose socket must wait stops waiting.
enum Stop {
    /// Its first bytes are overdue.
    Overdue,
    /// It was cut at the end of a shutdown's grace.
    Cut,
}

impl Conn {
    /// Called when the socket has nothing to give or take: why the connection must stop, if
    /// it must (else its task is woken by the deadline or the cut).
    fn waiting(&mut self, cx: &mut Context<'_>) -> Option<Stop> {
        if let Some(opening) = &mut self.opening
            && opening.deadline.as_mut().poll(cx).is_ready()
        {
            return Some(Stop::Overdue);
        }
        self.cut.wake_on_cut(cx).then_some(Stop::Cut)
    }

    /// A write's answer when the connection must stop.
    fn write_stopped(stop: Option<Stop>) -> Poll<io::Result<usize>> {
        match stop {
            None => Poll::Pending,
            Some(Stop::Overdue) => Poll::Ready(Err(overdue())),
            Some(Stop::Cut) => Poll::Ready(Err(cut_error())),
        }
    }
}

fn overdue() -> io::Error {
    io::Error::new(
        io::ErrorKind::TimedOut,
        "the connection did not send its first bytes in time",
    )
}

fn cut_error() -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionAborted,
        "the connection was cut at the end of the shutdown's grace",
    )
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.cut.is_cut() {
            // The end of the stream: the transport finishes the connection.
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        match Pin::new(&mut this.stream).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                let read = buf.filled().len() - before;
                if let Some(opening) = &mut this.opening {
                    if read >= opening.left {
                        this.opening = None;
                    } else {
                        opening.left -= read;
                    }
                }
                Poll::Ready(Ok(()))
            }
            Poll::Ready(Err(e)) => Poll::Ready(Err(e)),
            Poll::Pending => match this.waiting(cx) {
                None => Poll::Pending,
                Some(Stop::Overdue) => Poll::Ready(Err(overdue())),
                // The end of the stream.
                Some(Stop::Cut) => Poll::Ready(Ok(())),
            },
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.cut.is_cut() {
            return Poll::Ready(Err(cut_error()));
        }
        match Pin::new(&mut this.stream).poll_write(cx, buf) {
            Poll::Pending => Conn::write_stopped(this.waiting(cx)),
            done => done,
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.cut.is_cut() {
            return Poll::Ready(Err(cut_error()));
        }
        match Pin::new(&mut this.stream).poll_write_vectored(cx, bufs) {
            Poll::Pending => Conn::write_stopped(this.waiting(cx)),
            done => done,
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

impl Connected for Conn {
    // The socket's addresses, as for a plain socket: the service limits requests by the
    // client's address.
    type ConnectInfo = TcpConnectInfo;

    fn connect_info(&self) -> TcpConnectInfo {
        self.stream.connect_info()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    /// A connected pair of loopback sockets: the accepted end, and the client's.
    async fn pair() -> (TcpStream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap());
        let (accepted, client) = tokio::join!(listener.accept(), client);
        (accepted.unwrap().0, client.unwrap())
    }

    const LONG: Duration = Duration::from_secs(3600);

    #[tokio::test]
    async fn a_connection_is_registered_while_it_lives_and_cut_by_cut_all() {
        let open = OpenConnections::default();
        let (a, mut a_client) = pair().await;
        let (b, b_client) = pair().await;
        let mut a = open.serve(a, usize::MAX, LONG).unwrap();
        let b = open.serve(b, usize::MAX, LONG).unwrap();
        assert_eq!(open.len(), 2);
        // Served as the socket itself: bytes both ways, the client's address.
        a_client.write_all(b"ping").await.unwrap();
        let mut got = [0u8; 4];
        a.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"ping");
        a.write_all(b"pong").await.unwrap();
        a_client.read_exact(&mut got).await.unwrap();
        assert_eq!(&got, b"pong");
        assert_eq!(
            a.connect_info().remote_addr(),
            Some(a_client.local_addr().unwrap())
        );
        // A connection that ends takes its flag away: its socket closes (the client reads
        // the end) and nothing of it is left to cut.
        drop(b);
        assert_eq!(open.len(), 1);
        let mut rest = Vec::new();
        let mut b_client = b_client;
        let read = tokio::time::timeout(Duration::from_secs(5), b_client.read_to_end(&mut rest));
        assert_eq!(read.await.expect("the socket closed").unwrap(), 0);
        // Cut while a read waits: the waiting read is woken and reads the end, as the
        // transport's task would; writes fail; the client sees the end once the transport
        // drops the connection.
        let (mut reader, mut writer) = tokio::io::split(a);
        let mut buf = [0u8; 8];
        let waiting = tokio::spawn(async move {
            let n = reader.read(&mut buf).await;
            (n.map_err(|e| e.kind()), reader)
        });
        tokio::task::yield_now().await;
        assert_eq!(open.cut_all(), 1);
        let (read, reader) = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("the read ended")
            .unwrap();
        assert_eq!(read, Ok(0));
        let write = writer.write_all(b"more").await.unwrap_err();
        assert_eq!(write.kind(), io::ErrorKind::ConnectionAborted);
        drop(reader.unsplit(writer));
        assert_eq!(open.len(), 0);
        let read = tokio::time::timeout(Duration::from_secs(5), a_client.read_to_end(&mut rest));
        assert_eq!(read.await.expect("the client saw the end").unwrap(), 0);
    }

    #[tokio::test]
    async fn beyond_the_limit_a_socket_is_given_back() {
        let open = OpenConnections::default();
        let (a, _a_client) = pair().await;
        let (b, _b_client) = pair().await;
        let (c, _c_client) = pair().await;
        let a = open.serve(a, 2, LONG).unwrap();
        let _b = open.serve(b, 2, LONG).unwrap();
        let c = open
            .serve(c, 2, LONG)
            .expect_err("a third is over the limit");
        assert_eq!(open.len(), 2);
        // A connection that ends makes room.
        drop(a);
        let _c = open.serve(c, 2, LONG).expect("room again");
        assert_eq!(open.len(), 2);
    }

    /// Holds a paused clock still until the returned sender is dropped. Tokio moves a paused
    /// clock on by itself, to the next timer, whenever the runtime only waits, which it does
    /// for every byte a socket reads: a deadline would pass while a read waits for bytes
    /// already sent. A blocking task holds that off while it runs (tokio's documentation of
    /// `time::pause`), so the clock moves only when the test advances it.
    fn hold_clock() -> std::sync::mpsc::Sender<()> {
        let (hold, held) = std::sync::mpsc::channel::<()>();
        tokio::task::spawn_blocking(move || {
            let _ = held.recv();
        });
        hold
    }

    /// Reads `conn` on a task of its own: the read's result when it ends, and the connection.
    fn read_on_task(
        mut conn: Conn,
    ) -> tokio::task::JoinHandle<(Result<usize, io::ErrorKind>, Conn)> {
        tokio::spawn(async move {
            let mut buf = [0u8; 64];
            let read = conn.read(&mut buf).await.map_err(|e| e.kind());
            (read, conn)
        })
    }

    // A connection that has not sent its first 24 bytes by the deadline fails its reads (the
    // transport then closes it), not a moment before; one that has, in pieces, is served past
    // it. On a paused clock that only the test moves.
    #[tokio::test(start_paused = true)]
    async fn the_first_bytes_must_come_before_the_deadline() {
        let _hold = hold_clock();
        let open = OpenConnections::default();
        let deadline = Duration::from_secs(10);
        let millisecond = Duration::from_millis(1);
        let (silent, _silent_client) = pair().await;
        let silent = read_on_task(open.serve(silent, usize::MAX, deadline).unwrap());
        tokio::time::advance(deadline - millisecond).await;
        tokio::task::yield_now().await;
        assert!(!silent.is_finished(), "the read failed before the deadline");
        tokio::time::advance(millisecond).await;
        let (read, _) = silent.await.unwrap();
        assert_eq!(read, Err(io::ErrorKind::TimedOut));
        // 23 bytes are not enough.
        let mut buf = [0u8; 64];
        let (short, mut short_client) = pair().await;
        let mut short = open.serve(short, usize::MAX, deadline).unwrap();
        short_client.write_all(&[0u8; 23]).await.unwrap();
        short.read_exact(&mut buf[..23]).await.unwrap();
        let short = read_on_task(short);
        tokio::time::advance(deadline).await;
        let (read, _) = short.await.unwrap();
        assert_eq!(read, Err(io::ErrorKind::TimedOut));
        // 24 in two pieces are, the second just before the deadline.
        let (talking, mut client) = pair().await;
        let mut talking = open.serve(talking, usize::MAX, deadline).unwrap();
        client.write_all(&[1u8; 20]).await.unwrap();
        talking.read_exact(&mut buf[..20]).await.unwrap();
        tokio::time::advance(deadline - millisecond).await;
        client.write_all(&[2u8; 4]).await.unwrap();
        talking.read_exact(&mut buf[..4]).await.unwrap();
        // Past the deadline (ten times over), the read waits for bytes, and gets them.
        let talking = read_on_task(talking);
        tokio::time::advance(deadline * 10).await;
        tokio::task::yield_now().await;
        assert!(!talking.is_finished(), "the read ended without bytes");
        client.write_all(b"late").await.unwrap();
        let (read, _) = talking.await.unwrap();
        assert_eq!(read, Ok(4));
    }

    // Serving a socket opens no descriptor: the registry keeps a flag, not a second handle
    // (it kept a duplicate of every socket before: 2 descriptors a connection).
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn serving_a_socket_opens_no_descriptor() {
        let descriptors = || std::fs::read_dir("/proc/self/fd").unwrap().count();
        let mut pairs = Vec::new();
        for _ in 0..200 {
            pairs.push(pair().await);
        }
        let open = OpenConnections::default();
        let before = descriptors();
        let served: Vec<_> = pairs
            .into_iter()
            .map(|(s, c)| (open.serve(s, usize::MAX, LONG).unwrap(), c))
            .collect();
        let after = descriptors();
        assert_eq!(open.len(), 200);
        // Other tests of this process open and close files meanwhile: a margin for them.
        assert!(
            after < before + 100,
            "{before} descriptors before serving 200 sockets, {after} after"
        );
        drop(served);
    }
}
