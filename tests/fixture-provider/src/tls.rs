//! go-plugin's auto-mTLS, server side: the server certificate, the rustls configuration
//! that requires the host's certificate, and the connection type tonic serves.
//!
//! go-plugin generates the same kind of certificate on both ends: ECDSA P-521, CN and SAN
//! `localhost`, `CA:TRUE`, extended key usage server and client auth, valid from 30 s ago
//! for 262,980 hours. The host's certificate arrives as PEM in `PLUGIN_CLIENT_CERT`; Go
//! verifies it against a pool holding exactly that certificate. webpki refuses a `CA:TRUE`
//! certificate as an end entity, so [`PinnedCerts`] compares the presented leaf with
//! the pinned ones byte for byte instead, which is what the one-element Go chain amounts to,
//! and checks the handshake signature with the aws-lc-rs provider.
//!
//! Architecture invariant: this module knows nothing about gRPC services; it produces
//! byte streams.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use rustls::DigitallySignedStruct;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
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

/// The server's certificate and key, generated at launch.
pub struct ServerIdentity {
    pub cert_der: CertificateDer<'static>,
    key_der: PrivatePkcs8KeyDer<'static>,
}

/// Generates a certificate like go-plugin's `generateCert`.
pub fn generate_server_identity() -> Result<ServerIdentity, TlsError> {
    let key_pair = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P521_SHA512)?;
    let mut params = rcgen::CertificateParams::new(vec!["localhost".to_owned()])?;
    let mut name = rcgen::DistinguishedName::new();
    name.push(rcgen::DnType::CommonName, "localhost");
    name.push(rcgen::DnType::OrganizationName, "HashiCorp");
    params.distinguished_name = name;
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.key_usages = vec![
        rcgen::KeyUsagePurpose::DigitalSignature,
        rcgen::KeyUsagePurpose::KeyEncipherment,
        rcgen::KeyUsagePurpose::KeyAgreement,
        rcgen::KeyUsagePurpose::KeyCertSign,
    ];
    params.extended_key_usages =
        vec![rcgen::ExtendedKeyUsagePurpose::ClientAuth, rcgen::ExtendedKeyUsagePurpose::ServerAuth];
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now - time::Duration::seconds(30);
    params.not_after = now + time::Duration::hours(262_980);
    params.serial_number = Some(rcgen::SerialNumber::from_slice(&random_serial()));
    let cert = params.self_signed(&key_pair)?;
    Ok(ServerIdentity { cert_der: cert.der().clone(), key_der: PrivatePkcs8KeyDer::from(key_pair.serialize_der()) })
}

/// A random 128-bit serial with the top bit clear, so DER keeps it positive without padding.
fn random_serial() -> [u8; 16] {
    let mut serial = [0u8; 16];
    if rustls::crypto::aws_lc_rs::default_provider().secure_random.fill(&mut serial).is_err() {
        // Serial numbers only need to be unique per issuer, and every certificate here is its
        // own issuer, so a clock-derived fallback is good enough.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
        serial = nanos.to_be_bytes();
    }
    serial[0] &= 0x7f;
    serial[0] |= 0x01;
    serial
}

/// The rustls server configuration: TLS 1.2+, ALPN `h2`, the host's certificate required.
pub fn server_config(identity: &ServerIdentity, client_cert_pem: &str) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let pinned = CertificateDer::pem_slice_iter(client_cert_pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|err| TlsError::ClientCertPem(err.to_string()))?;
    if pinned.is_empty() {
        return Err(TlsError::ClientCertPem("no CERTIFICATE block".to_owned()));
    }
    let verifier = Arc::new(PinnedCerts::new(pinned, provider.clone()));
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])?
        .with_client_cert_verifier(verifier)
        .with_single_cert(vec![identity.cert_der.clone()], PrivateKeyDer::Pkcs8(identity.key_der.clone_key()))?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(Arc::new(config))
}

/// Trusts exactly the pinned certificates, compared byte for byte with the presented leaf,
/// and checks handshake signatures with the given provider. The fixture's server uses it for
/// the client certificates from `PLUGIN_CLIENT_CERT`; the tests' go-plugin client for the
/// server certificate of a handshake line (webpki would refuse either as an end entity,
/// because go-plugin certificates are `CA:TRUE`).
#[derive(Debug)]
pub struct PinnedCerts {
    pinned: Vec<CertificateDer<'static>>,
    provider: Arc<CryptoProvider>,
}

impl PinnedCerts {
    pub fn new(pinned: Vec<CertificateDer<'static>>, provider: Arc<CryptoProvider>) -> PinnedCerts {
        PinnedCerts { pinned, provider }
    }

    fn check(&self, end_entity: &CertificateDer<'_>) -> Result<(), rustls::Error> {
        if self.pinned.iter().any(|pinned| pinned.as_ref() == end_entity.as_ref()) {
            Ok(())
        } else {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer))
        }
    }

    fn tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

impl ClientCertVerifier for PinnedCerts {
    fn root_hint_subjects(&self) -> &[rustls::DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.check(end_entity).map(|()| ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.schemes()
    }
}

impl ServerCertVerifier for PinnedCerts {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.check(end_entity).map(|()| ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.schemes()
    }
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
