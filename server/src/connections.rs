//! The connections being served, so that a shutdown can end those a client keeps open.
//!
//! After its shutdown signal the transport waits for every connection to close, and [`serve`]
//! stops waiting after its grace. The transport's connection tasks outlive that: in the binary
//! the process exits, but a program that embeds the server keeps its runtime, and with it every
//! connection a client never closed. So each accepted socket is registered with a second handle
//! on it; at the end of the grace every registered socket is shut down, the connection's task
//! reads the end and finishes. A connection that ends removes its handle, so a closed
//! connection is not held open by it. Registering costs a system call per connection, nothing
//! per read or write.
//!
//! [`serve`]: crate::serve

use std::collections::HashMap;
use std::io;
use std::net::Shutdown;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tonic::transport::server::{Connected, TcpConnectInfo};

/// The sockets of the connections being served (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct OpenConnections(Arc<Mutex<Registered>>);

#[derive(Debug, Default)]
struct Registered {
    next: u64,
    sockets: HashMap<u64, std::net::TcpStream>,
}

impl OpenConnections {
    /// Wraps an accepted socket, registered while the wrapper lives. A socket that cannot be
    /// registered (no second handle: the process is out of file descriptors) is served all
    /// the same, only not cut at the end of a shutdown's grace.
    pub fn serve(&self, stream: TcpStream) -> Conn {
        let registration = match second_handle(&stream) {
            Ok(handle) => {
                let mut registered = self.lock();
                let id = registered.next;
                registered.next += 1;
                registered.sockets.insert(id, handle);
                Some(Registration {
                    id,
                    open: self.clone(),
                })
            }
            Err(error) => {
                tracing::warn!(%error, "a connection will not be cut at shutdown: no second handle on its socket");
                None
            }
        };
        Conn {
            stream,
            _registration: registration,
        }
    }

    /// Shuts every registered socket down, for reading and writing: the transport's tasks read
    /// the end of their connections and finish. Returns how many there were.
    pub fn cut_all(&self) -> usize {
        let registered = self.lock();
        for socket in registered.sockets.values() {
            // A socket the client has already reset may refuse: it is ending anyway.
            let _ = socket.shutdown(Shutdown::Both);
        }
        registered.sockets.len()
    }

    /// How many connections are registered.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().sockets.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Registered> {
        // The map stays whole whatever panicked while it was held: insertions and removals.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A second handle on a socket, for shutting it down from outside its connection's task.
#[cfg(unix)]
fn second_handle(stream: &TcpStream) -> io::Result<std::net::TcpStream> {
    use std::os::fd::AsFd;
    Ok(stream.as_fd().try_clone_to_owned()?.into())
}

/// A second handle on a socket, for shutting it down from outside its connection's task.
#[cfg(windows)]
fn second_handle(stream: &TcpStream) -> io::Result<std::net::TcpStream> {
    use std::os::windows::io::AsSocket;
    Ok(stream.as_socket().try_clone_to_owned()?.into())
}

/// Removes its socket's second handle when the connection ends.
#[derive(Debug)]
struct Registration {
    id: u64,
    open: OpenConnections,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.open.lock().sockets.remove(&self.id);
    }
}

/// An accepted connection as the transport serves it: the socket, registered while it lives.
#[derive(Debug)]
pub struct Conn {
    stream: TcpStream,
    _registration: Option<Registration>,
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write_vectored(cx, bufs)
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

    #[tokio::test]
    async fn a_connection_is_registered_while_it_lives_and_cut_by_cut_all() {
        let open = OpenConnections::default();
        let (a, mut a_client) = pair().await;
        let (b, b_client) = pair().await;
        let mut a = open.serve(a);
        let b = open.serve(b);
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
        // A connection that ends takes its handle away: its socket closes (the client reads
        // the end) and nothing of it is left to cut.
        drop(b);
        assert_eq!(open.len(), 1);
        let mut rest = Vec::new();
        let mut b_client = b_client;
        let read = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            b_client.read_to_end(&mut rest),
        );
        assert_eq!(read.await.expect("the socket closed").unwrap(), 0);
        // Cut: the served end reads the end at once, as the transport's task would, and so
        // does the client.
        assert_eq!(open.cut_all(), 1);
        let mut buf = [0u8; 8];
        let read = tokio::time::timeout(std::time::Duration::from_secs(5), a.read(&mut buf));
        assert_eq!(read.await.expect("the read ended").unwrap(), 0);
        let read = tokio::time::timeout(
            std::time::Duration::from_secs(5),
            a_client.read_to_end(&mut rest),
        );
        assert_eq!(read.await.expect("the client saw the end").unwrap(), 0);
        drop(a);
        assert_eq!(open.len(), 0);
    }
}
