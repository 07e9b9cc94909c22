//! The gRPC channel to a provider: a unix socket or TCP, with or without TLS.
//!
//! tonic's own TLS support refuses unix sockets, so every connection goes through one
//! connector that opens the socket and, with auto-mTLS, runs the rustls handshake on it.
//! The endpoint URI is `http://` either way: the TLS layer is ours, not tonic's.

use std::pin::Pin;
use std::sync::Arc;
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
            Ok::<_, std::io::Error>(TokioIo::new(stream))
        }
    });
    endpoint.connect_with_connector(connector).await
}
