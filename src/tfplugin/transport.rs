//! The gRPC channel to a provider: a unix socket or TCP, with or without TLS.
//!
//! tonic's own TLS support refuses unix sockets, so every connection goes through one
//! connector that opens the socket and, with auto-mTLS, runs the rustls handshake on it.
//! The endpoint URI is `http://` either way: the TLS layer is ours, not tonic's.
//!
//! Above the TLS layer, [`Coalesce`] gathers what HTTP/2 writes until it flushes, so a
//! request's HEADERS and DATA frames leave in one TLS record and one system call.

use std::io::IoSlice;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tonic::transport::{Channel, Endpoint, Uri};

use super::handshake::PluginAddress;

/// Any byte stream the channel can run HTTP/2 over.
trait Connection: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> Connection for T {}

/// Connects to `address`, with TLS when `tls` is given. The connection is made before this
/// returns, so a refused certificate or a dead socket is reported here.
pub(crate) async fn connect(
    address: &PluginAddress,
    tls: Option<rustls::ClientConfig>,
    timeout: Duration,
) -> Result<Channel, tonic::transport::Error> {
    let uri = match address {
        PluginAddress::Unix(_) => "http://localhost".to_owned(),
        PluginAddress::Tcp(addr) => format!("http://{addr}"),
    };
    let endpoint = Endpoint::from_shared(uri)?.connect_timeout(timeout);
    let address = Arc::new(address.clone());
    let tls = tls.map(|config| tokio_rustls::TlsConnector::from(Arc::new(config)));
    let connector = tower::service_fn(move |_: Uri| {
        let address = address.clone();
        let tls = tls.clone();
        async move {
            let stream: Pin<Box<dyn Connection>> = match address.as_ref() {
                #[cfg(unix)]
                PluginAddress::Unix(path) => Box::pin(tokio::net::UnixStream::connect(path).await?),
                // go-plugin serves on TCP loopback on Windows; only a hand-written reattach
                // entry can name a unix socket there.
                #[cfg(not(unix))]
                PluginAddress::Unix(path) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::Unsupported,
                        format!("unix socket {} is not supported on this system (only TCP)", path.display()),
                    ));
                }
                PluginAddress::Tcp(addr) => {
                    let stream = tokio::net::TcpStream::connect(addr).await?;
                    // Without this each request's last frame waits for the provider's delayed
                    // ACK (tens of milliseconds per call).
                    stream.set_nodelay(true)?;
                    Box::pin(stream)
                }
            };
            let stream: Pin<Box<dyn Connection>> = match tls {
                // go-plugin servers name themselves "localhost" whatever the address.
                Some(tls) => {
                    let server_name = ServerName::try_from("localhost").map_err(std::io::Error::other)?;
                    Box::pin(tls.connect(server_name, stream).await?)
                }
                None => stream,
            };
            Ok::<_, std::io::Error>(TokioIo::new(Coalesce::new(stream)))
        }
    });
    endpoint.connect_with_connector(connector).await
}

/// Writes to one flush larger than this go out in pieces of at most this size.
const COALESCE_CAPACITY: usize = 64 * 1024;

/// A write at least this large, with nothing gathered, goes straight through (big values
/// are not copied once more).
const COALESCE_PASS_THROUGH: usize = 16 * 1024;

/// Gathers writes until a flush, and lets the runtime run once before the flush reaches the
/// stream.
///
/// hyper's HTTP/2 client writes a request in two flushes: its HEADERS frame as soon as the
/// request is queued, its DATA frame once the body task has run and the connection has
/// given it send capacity. Straight onto the TLS stream that is two TLS records and two
/// `writev` calls per call to the provider, and two reads and wake-ups on the provider's
/// side. The first flush of a batch here wakes the connection task and answers `Pending`
/// once, so the body task (woken already) queues its DATA before the bytes are written: one
/// record, one system call. On the one-thread runtime that costs one turn of the scheduler,
/// no timer. Reads pass straight through.
struct Coalesce<S> {
    inner: S,
    buffer: Vec<u8>,
    /// How much of `buffer` is written already (a drain the stream cut short).
    written: usize,
    /// Whether this flush has let the runtime run once already.
    yielded: bool,
}

impl<S> Coalesce<S> {
    fn new(inner: S) -> Coalesce<S> {
        Coalesce { inner, buffer: Vec::new(), written: 0, yielded: false }
    }
}

impl<S: AsyncWrite + Unpin> Coalesce<S> {
    /// Writes out everything gathered.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while self.written < self.buffer.len() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.buffer[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.written = 0;
        self.buffer.clear();
        // One large write (a big state) should not hold its buffer for the connection's life.
        if self.buffer.capacity() > COALESCE_PASS_THROUGH {
            self.buffer = Vec::new();
        }
        Poll::Ready(Ok(()))
    }

    fn poll_gather(&mut self, cx: &mut Context<'_>, bufs: &[IoSlice<'_>]) -> Poll<std::io::Result<usize>> {
        let len: usize = bufs.iter().map(|buf| buf.len()).sum();
        if self.buffer.len() + len > COALESCE_CAPACITY {
            ready!(self.poll_drain(cx))?;
        }
        if self.buffer.is_empty() && len >= COALESCE_PASS_THROUGH {
            return Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        }
        for buf in bufs {
            self.buffer.extend_from_slice(buf);
        }
        Poll::Ready(Ok(len))
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Coalesce<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Coalesce<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        self.get_mut().poll_gather(cx, &[IoSlice::new(buf)])
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        self.get_mut().poll_gather(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        if this.written < this.buffer.len() && !this.yielded {
            this.yielded = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        ready!(this.poll_drain(cx))?;
        this.yielded = false;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use std::io::IoSlice;
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::io::AsyncWrite;

    use super::{COALESCE_CAPACITY, COALESCE_PASS_THROUGH, Coalesce};

    /// A stream that records each write it is given, and takes at most `limit` bytes a time.
    #[derive(Default)]
    struct Recorder {
        writes: Vec<Vec<u8>>,
        flushes: usize,
        limit: Option<usize>,
    }

    impl AsyncWrite for Recorder {
        fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
            let n = self.limit.map_or(buf.len(), |limit| buf.len().min(limit));
            self.get_mut().writes.push(buf[..n].to_vec());
            Poll::Ready(Ok(n))
        }

        fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            self.get_mut().flushes += 1;
            Poll::Ready(Ok(()))
        }

        fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
            Poll::Ready(Ok(()))
        }
    }

    fn context() -> Context<'static> {
        Context::from_waker(std::task::Waker::noop())
    }

    fn write(stream: &mut Coalesce<Recorder>, bytes: &[u8]) -> usize {
        match Pin::new(stream).poll_write(&mut context(), bytes) {
            Poll::Ready(Ok(n)) => n,
            other => panic!("write: {other:?}"),
        }
    }

    fn flush(stream: &mut Coalesce<Recorder>) -> Poll<std::io::Result<()>> {
        Pin::new(stream).poll_flush(&mut context())
    }

    #[test]
    fn writes_between_two_flushes_leave_in_one_write_after_one_turn() {
        let mut stream = Coalesce::new(Recorder::default());
        assert_eq!(write(&mut stream, b"headers"), 7);
        // The first flush lets the runtime run once: nothing is written yet.
        assert!(flush(&mut stream).is_pending());
        assert!(stream.inner.writes.is_empty());
        // Meanwhile the body arrives; the next flush writes both at once.
        assert_eq!(write(&mut stream, b"data"), 4);
        assert!(matches!(flush(&mut stream), Poll::Ready(Ok(()))));
        assert_eq!(stream.inner.writes, vec![b"headersdata".to_vec()]);
        assert_eq!(stream.inner.flushes, 1);
        // With nothing gathered a flush goes straight through, and the next batch yields again.
        assert!(matches!(flush(&mut stream), Poll::Ready(Ok(()))));
        assert_eq!(write(&mut stream, b"ping"), 4);
        assert!(flush(&mut stream).is_pending());
        assert!(matches!(flush(&mut stream), Poll::Ready(Ok(()))));
        assert_eq!(stream.inner.writes, vec![b"headersdata".to_vec(), b"ping".to_vec()]);
    }

    #[test]
    fn a_short_write_is_resumed_where_it_stopped() {
        let mut stream = Coalesce::new(Recorder { limit: Some(3), ..Recorder::default() });
        write(&mut stream, b"abcdefgh");
        assert!(flush(&mut stream).is_pending());
        assert!(matches!(flush(&mut stream), Poll::Ready(Ok(()))));
        assert_eq!(stream.inner.writes.concat(), b"abcdefgh".to_vec());
        assert_eq!(stream.inner.writes.len(), 3);
    }

    #[test]
    fn large_writes_pass_through_and_a_full_buffer_drains_first() {
        let mut stream = Coalesce::new(Recorder::default());
        let big = vec![7u8; COALESCE_PASS_THROUGH];
        let bufs = [IoSlice::new(&big)];
        let written = match Pin::new(&mut stream).poll_write_vectored(&mut context(), &bufs) {
            Poll::Ready(Ok(n)) => n,
            other => panic!("write: {other:?}"),
        };
        assert_eq!(written, big.len());
        assert_eq!(stream.inner.writes.len(), 1, "written at once, not gathered");

        let mut stream = Coalesce::new(Recorder::default());
        let piece = vec![1u8; COALESCE_PASS_THROUGH - 1];
        let mut total = 0;
        while total <= COALESCE_CAPACITY {
            total += write(&mut stream, &piece);
        }
        // The piece that would overflow the buffer drained what was gathered first.
        assert_eq!(stream.inner.writes.len(), 1);
        assert!(stream.inner.writes[0].len() <= COALESCE_CAPACITY);
        assert!(flush(&mut stream).is_pending());
        assert!(matches!(flush(&mut stream), Poll::Ready(Ok(()))));
        assert_eq!(stream.inner.writes.iter().map(Vec::len).sum::<usize>(), total);
    }

    #[test]
    fn shutdown_writes_what_was_gathered() {
        let mut stream = Coalesce::new(Recorder::default());
        write(&mut stream, b"last");
        assert!(matches!(Pin::new(&mut stream).poll_shutdown(&mut context()), Poll::Ready(Ok(()))));
        assert_eq!(stream.inner.writes, vec![b"last".to_vec()]);
    }
}
