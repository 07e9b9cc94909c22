//! Auto-mTLS, the way go-plugin clients do it, with go-plugin's recipe (the crate
//! `tfbridge-tls-recipe`, which the tests' fixture provider shares).
//!
//! The client makes a fresh self-signed certificate per launch and hands its PEM to the
//! provider in `PLUGIN_CLIENT_CERT`; the provider answers with its own self-signed
//! certificate in the handshake line. Trust is by pinning: the server must present exactly
//! that certificate. Stock webpki verification cannot be used, because go-plugin's server
//! certificate is a CA certificate (`IsCA: true`) used as a leaf, which webpki refuses, and
//! it is ECDSA P-521, which only the aws-lc-rs crypto provider verifies.

use rustls::pki_types::CertificateDer;

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

/// The client's certificate and key for one provider launch; `certificate_pem` is passed to
/// the provider in `PLUGIN_CLIENT_CERT`. Its `Debug` leaves the private key out.
pub type ClientIdentity = tls_recipe::Identity;

/// Makes a fresh client certificate shaped like go-plugin's own: `CN=localhost`,
/// `O=HashiCorp`, SAN `localhost`, client and server auth, self-signed CA. The provider
/// trusts exactly this certificate, so a CA flag and both usages keep Go's verifier happy.
/// P-256 is used because every Go version verifies it and it is fast to generate.
pub fn generate_client_identity() -> Result<ClientIdentity, TlsSetupError> {
    Ok(tls_recipe::generate(&rcgen::PKCS_ECDSA_P256_SHA256)?)
}

/// A rustls client configuration that presents `identity`, accepts only a server presenting
/// `pinned_server_certificate`, and offers ALPN `h2` (grpc-go servers refuse TLS without it).
pub(crate) fn client_config(
    identity: &ClientIdentity,
    pinned_server_certificate: Vec<u8>,
) -> Result<rustls::ClientConfig, TlsSetupError> {
    Ok(tls_recipe::client_config(identity, CertificateDer::from(pinned_server_certificate))?)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use rustls::pki_types::ServerName;

    use super::*;

    /// Runs one TLS handshake over an in-memory pipe with a server shaped like go-plugin's
    /// (a P-521 self-signed CA certificate as the leaf, requiring the client's certificate);
    /// returns the client's outcome.
    async fn handshake(server: &ClientIdentity, pinned: Vec<u8>) -> Result<Option<Vec<u8>>, std::io::Error> {
        let client = generate_client_identity().unwrap();
        let server_config = tls_recipe::server_config(server, vec![client.certificate_der.clone()]).unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(server_config));
        let connector = tokio_rustls::TlsConnector::from(Arc::new(client_config(&client, pinned).unwrap()));
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let server_task = tokio::spawn(async move { acceptor.accept(server_io).await.map(|_| ()) });
        let result = connector.connect(ServerName::try_from("localhost").unwrap(), client_io).await;
        let _ = server_task.await;
        result.map(|stream| stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec))
    }

    #[tokio::test]
    async fn pinned_p521_ca_certificate_is_accepted_and_any_other_refused() {
        let server = tls_recipe::generate(&rcgen::PKCS_ECDSA_P521_SHA512).unwrap();
        let other = tls_recipe::generate(&rcgen::PKCS_ECDSA_P521_SHA512).unwrap();

        let alpn = handshake(&server, server.certificate_der.to_vec()).await.unwrap();
        assert_eq!(alpn.as_deref(), Some(&b"h2"[..]));

        let err = handshake(&server, other.certificate_der.to_vec()).await.unwrap_err();
        assert!(err.to_string().contains("invalid peer certificate"), "{err}");
    }

    #[test]
    fn client_certificate_is_pem_for_the_environment() {
        let identity = generate_client_identity().unwrap();
        assert!(identity.certificate_pem.starts_with("-----BEGIN CERTIFICATE-----"), "{}", identity.certificate_pem);
        assert!(!format!("{identity:?}").contains("PRIVATE"));
    }
}
