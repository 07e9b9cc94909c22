//! go-plugin's auto-mTLS, server side: the server certificate, the rustls configuration
//! that requires the host's certificate, and the connection type tonic serves.
//!
//! The certificate and the configuration are go-plugin's recipe (the crate
//! `tfbridge-tls-recipe`, which the host in `src/tfplugin/tls.rs` shares): an ECDSA P-521
//! self-signed `CA:TRUE` certificate; the host's certificate arrives as PEM in
//! `PLUGIN_CLIENT_CERT` and is pinned, as Go's one-element pool pins it.
//!
//! Architecture invariant: this module knows nothing about gRPC services; it produces
//! byte streams.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The socket go-plugin serves on: a unix socket, or TCP on loopback on Windows.
#[cfg(unix)]
pub type Listener = tokio::net::UnixListener;
#[cfg(unix)]
type Socket = tokio::net::UnixStream;
#[cfg(not(unix))]
pub type Listener = tokio::net::TcpListener;
#[cfg(not(unix))]
type Socket = tokio::net::TcpStream;

/// Why auto-mTLS could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// rcgen could not generate the key or the certificate.
    #[error("generating the server certificate: {0}")]
    Generate(#[from] rcgen::Error),
    /// `PLUGIN_CLIENT_CERT` holds no readable certificate.
    #[error("PLUGIN_CLIENT_CERT holds no PEM certificate: {0}")]
    ClientCertPem(String),
    /// rustls refused the configuration.
    #[error("building the TLS configuration: {0}")]
    Rustls(#[from] rustls::Error),
}

/// Generates the server's certificate like go-plugin's `generateCert` (ECDSA P-521).
pub fn generate_server_identity() -> Result<tls_recipe::Identity, TlsError> {
    Ok(tls_recipe::generate(&rcgen::PKCS_ECDSA_P521_SHA512)?)
}

/// The rustls server configuration: TLS 1.2+, ALPN `h2`, the host's certificate required.
pub fn server_config(
    identity: &tls_recipe::Identity,
    client_cert_pem: &str,
) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let pinned = CertificateDer::pem_slice_iter(client_cert_pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| TlsError::ClientCertPem(err.to_string()))?;
    if pinned.is_empty() {
        return Err(TlsError::ClientCertPem("no CERTIFICATE block".to_owned()));
    }
    Ok(Arc::new(tls_recipe::server_config(identity, pinned)?))
}

/// One accepted connection, plaintext (h2c) or TLS.
pub enum Connection {
    Plain(Socket),
    Tls(Box<tokio_rustls::server::TlsStream<Socket>>),
}

impl tonic::transport::server::Connected for Connection {
    // The fixture has no use for peer information.
    type ConnectInfo = ();

    fn connect_info(&self) -> Self::ConnectInfo {}
}

impl AsyncRead for Connection {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_read(cx, buf),
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Connection {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_write(cx, buf),
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_flush(cx),
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_shutdown(cx),
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Connection::Plain(stream) => Pin::new(stream).poll_write_vectored(cx, bufs),
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Connection::Plain(stream) => stream.is_write_vectored(),
            Connection::Tls(stream) => stream.is_write_vectored(),
        }
    }
}

/// Accepts connections on `listener` forever, doing the TLS handshake when `acceptor` is
/// set, and hands the ready connections to tonic through the returned stream. Handshakes
/// run in their own tasks so a stalled client cannot hold up the others.
pub fn incoming(
    listener: Listener,
    acceptor: Option<tokio_rustls::TlsAcceptor>,
) -> tokio_stream::wrappers::ReceiverStream<io::Result<Connection>> {
    let (sender, receiver) = tokio::sync::mpsc::channel(16);
    tokio::spawn(async move {
        loop {
            let stream = match listener.accept().await {
                Ok((stream, _)) => stream,
                Err(_) => {
                    // Accept errors (such as running out of file descriptors) are
                    // transient; back off briefly instead of spinning.
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                }
            };
            match &acceptor {
                None => {
                    if sender.send(Ok(Connection::Plain(stream))).await.is_err() {
                        return;
                    }
                }
                Some(acceptor) => {
                    let acceptor = acceptor.clone();
                    let sender = sender.clone();
                    tokio::spawn(async move {
                        // A failed handshake concerns that one client only; go-plugin's
                        // server drops such connections the same way.
                        if let Ok(tls) = acceptor.accept(stream).await {
                            let _ = sender.send(Ok(Connection::Tls(Box::new(tls)))).await;
                        }
                    });
                }
            }
        }
    });
    tokio_stream::wrappers::ReceiverStream::new(receiver)
}
