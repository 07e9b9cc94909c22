//! Auto-mTLS, the way go-plugin clients do it.
//!
//! The client makes a fresh self-signed certificate per launch and hands its PEM to the
//! provider in `PLUGIN_CLIENT_CERT`; the provider answers with its own self-signed
//! certificate in the handshake line. Trust is by pinning: the server must present exactly
//! that certificate. Stock webpki verification cannot be used, because go-plugin's server
//! certificate is a CA certificate (`IsCA: true`) used as a leaf, which webpki refuses, and
//! it is ECDSA P-521, which only the aws-lc-rs crypto provider verifies.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

/// Why the TLS client could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum TlsSetupError {
    /// rcgen could not make the client certificate.
    #[error("could not generate the client certificate: {0}")]
    Certificate(#[from] rcgen::Error),
    /// rustls refused the configuration (for example the key).
    #[error("could not configure TLS: {0}")]
    Config(#[from] rustls::Error),
}

/// The client's certificate and key for one provider launch.
pub struct ClientIdentity {
    /// The PEM text passed to the provider in `PLUGIN_CLIENT_CERT`.
    pub certificate_pem: String,
    certificate_der: CertificateDer<'static>,
    key_pkcs8_der: Vec<u8>,
}

impl std::fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The private key stays out of logs.
        f.debug_struct("ClientIdentity").finish_non_exhaustive()
    }
}

/// Makes a fresh client certificate shaped like go-plugin's own: `CN=localhost`,
/// `O=HashiCorp`, SAN `localhost`, client and server auth, self-signed CA. The provider
/// trusts exactly this certificate, so a CA flag and both usages keep Go's verifier happy.
/// P-256 is used because every Go version verifies it and it is fast to generate.
pub fn generate_client_identity() -> Result<ClientIdentity, TlsSetupError> {
    generate_identity(&rcgen::PKCS_ECDSA_P256_SHA256)
}

/// Shared by the client identity and the tests' stand-in servers (which use P-521 like
/// go-plugin servers do).
pub(crate) fn generate_identity(alg: &'static rcgen::SignatureAlgorithm) -> Result<ClientIdentity, TlsSetupError> {
    let key = rcgen::KeyPair::generate_for(alg)?;
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
    let certificate = params.self_signed(&key)?;
    Ok(ClientIdentity {
        certificate_pem: certificate.pem(),
        certificate_der: certificate.der().clone(),
        key_pkcs8_der: key.serialize_der(),
    })
}

impl ClientIdentity {
    pub(crate) fn certificate_der(&self) -> CertificateDer<'static> {
        self.certificate_der.clone()
    }

    pub(crate) fn private_key_der(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key_pkcs8_der.clone()))
    }
}

/// The crypto provider is chosen explicitly rather than taken from the process default, so
/// linking another provider elsewhere can never take P-521 support away.
pub(crate) fn crypto_provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// A rustls client configuration that presents `identity`, accepts only a server presenting
/// `pinned_server_certificate`, and offers ALPN `h2` (grpc-go servers refuse TLS without it).
pub(crate) fn client_config(
    identity: &ClientIdentity,
    pinned_server_certificate: Vec<u8>,
) -> Result<rustls::ClientConfig, TlsSetupError> {
    let provider = crypto_provider();
    let verifier = PinnedServerCertVerifier {
        pinned: CertificateDer::from(pinned_server_certificate),
        provider: provider.clone(),
    };
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_client_auth_cert(vec![identity.certificate_der()], identity.private_key_der())?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(config)
}

/// Trusts exactly one certificate, compared byte for byte, and still checks that the server
/// proves possession of its key (the TLS signature checks).
#[derive(Debug)]
struct PinnedServerCertVerifier {
    pinned: CertificateDer<'static>,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for PinnedServerCertVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if end_entity.as_ref() == self.pinned.as_ref() {
            Ok(ServerCertVerified::assertion())
        } else {
            Err(rustls::Error::InvalidCertificate(rustls::CertificateError::ApplicationVerificationFailure))
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.provider.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rustls::pki_types::ServerName;

    use super::*;

    /// A TLS server shaped like go-plugin's: a P-521 self-signed CA certificate as the leaf,
    /// requiring the client's certificate.
    fn go_plugin_like_server_config(server: &ClientIdentity, client: &ClientIdentity) -> rustls::ServerConfig {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(client.certificate_der()).unwrap();
        let client_verifier =
            rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), crypto_provider())
                .build()
                .unwrap();
        let mut config = rustls::ServerConfig::builder_with_provider(crypto_provider())
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_client_cert_verifier(client_verifier)
            .with_single_cert(vec![server.certificate_der()], server.private_key_der())
            .unwrap();
        config.alpn_protocols = vec![b"h2".to_vec()];
        config
    }

    /// Runs one TLS handshake over an in-memory pipe; returns the client's outcome.
    async fn handshake(server: &ClientIdentity, pinned: Vec<u8>) -> Result<Option<Vec<u8>>, std::io::Error> {
        let client = generate_client_identity().unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(go_plugin_like_server_config(server, &client)));
        let connector = tokio_rustls::TlsConnector::from(Arc::new(client_config(&client, pinned).unwrap()));
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let server_task = tokio::spawn(async move { acceptor.accept(server_io).await.map(|_| ()) });
        let result = connector.connect(ServerName::try_from("localhost").unwrap(), client_io).await;
        let _ = server_task.await;
        result.map(|stream| stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec))
    }

    #[tokio::test]
    async fn pinned_p521_ca_certificate_is_accepted_and_any_other_refused() {
        let server = generate_identity(&rcgen::PKCS_ECDSA_P521_SHA512).unwrap();
        let other = generate_identity(&rcgen::PKCS_ECDSA_P521_SHA512).unwrap();

        let alpn = handshake(&server, server.certificate_der().to_vec()).await.unwrap();
        assert_eq!(alpn.as_deref(), Some(&b"h2"[..]));

        let err = handshake(&server, other.certificate_der().to_vec()).await.unwrap_err();
        assert!(err.to_string().contains("invalid peer certificate"), "{err}");
    }

    #[test]
    fn client_certificate_is_pem_for_the_environment() {
        let identity = generate_client_identity().unwrap();
        assert!(identity.certificate_pem.starts_with("-----BEGIN CERTIFICATE-----"), "{}", identity.certificate_pem);
        assert!(!format!("{identity:?}").contains("PRIVATE"));
    }
}
