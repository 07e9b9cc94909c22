//! go-plugin's auto-mTLS, the one recipe both ends here use: the provider's host
//! (`tfbridge::tfplugin::tls`) and the test fixture provider's server and its tests' client.
//!
//! go-plugin generates the same kind of certificate on both ends (`generateCert`): CN and SAN
//! `localhost`, `O=HashiCorp`, `CA:TRUE`, extended key usage server and client auth, valid
//! from 30 s ago for 262,980 hours, a random serial. The client hands its PEM to the
//! provider in `PLUGIN_CLIENT_CERT`; the provider answers with its own in the handshake line.
//! Trust is by pinning: each end must present exactly the certificate the other was given.
//! Stock webpki verification cannot be used, because go-plugin's certificates are CA
//! certificates (`IsCA: true`) used as leaves, which webpki refuses as end entities, and go-plugin's
//! servers use ECDSA P-521, which only the aws-lc-rs crypto provider verifies. So
//! [`PinnedCerts`] compares the presented leaf with the pinned ones byte for byte (what a
//! one-element Go pool amounts to) and still checks the handshake signatures.
//!
//! Architecture invariant: no I/O, no gRPC, no processes; certificates and rustls
//! configurations only.

use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};

/// A certificate made by [`generate`] and its key.
pub struct Identity {
    /// The PEM text (what `PLUGIN_CLIENT_CERT` carries).
    pub certificate_pem: String,
    /// The DER bytes (what the handshake line carries, base64).
    pub certificate_der: CertificateDer<'static>,
    key_pkcs8_der: Vec<u8>,
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The private key stays out of logs.
        f.debug_struct("Identity").finish_non_exhaustive()
    }
}

impl Identity {
    /// The private key, for rustls.
    pub fn private_key_der(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key_pkcs8_der.clone()))
    }
}

/// Generates a certificate like go-plugin's `generateCert`, with a key of `alg` (go-plugin's
/// is ECDSA P-521, `rcgen::PKCS_ECDSA_P521_SHA512`).
pub fn generate(alg: &'static rcgen::SignatureAlgorithm) -> Result<Identity, rcgen::Error> {
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
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now - time::Duration::seconds(30);
    params.not_after = now + time::Duration::hours(262_980);
    params.serial_number = Some(rcgen::SerialNumber::from_slice(&random_serial()));
    let certificate = params.self_signed(&key)?;
    Ok(Identity {
        certificate_pem: certificate.pem(),
        certificate_der: certificate.der().clone(),
        key_pkcs8_der: key.serialize_der(),
    })
}

/// A random 128-bit serial with the top bit clear, so DER keeps it positive without padding.
fn random_serial() -> [u8; 16] {
    let mut serial = [0u8; 16];
    if crypto_provider().secure_random.fill(&mut serial).is_err() {
        // Serial numbers only need to be unique per issuer, and every certificate here is its
        // own issuer, so a clock-derived fallback is good enough.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos();
        serial = nanos.to_be_bytes();
    }
    serial[0] &= 0x7f;
    serial[0] |= 0x01;
    serial
}

/// The crypto provider is chosen explicitly rather than taken from the process default, so
/// linking another provider elsewhere can never take P-521 support away.
pub fn crypto_provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::aws_lc_rs::default_provider())
}

/// The client's configuration: TLS 1.3 and 1.2, presents `identity`, accepts only a server
/// presenting `pinned_server_certificate`, and offers ALPN `h2` (grpc-go servers refuse TLS
/// without it).
pub fn client_config(
    identity: &Identity,
    pinned_server_certificate: CertificateDer<'static>,
) -> Result<rustls::ClientConfig, rustls::Error> {
    let provider = crypto_provider();
    let verifier = PinnedCerts::new(vec![pinned_server_certificate], provider.clone());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_client_auth_cert(vec![identity.certificate_der.clone()], identity.private_key_der())?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(config)
}

/// The server's configuration: TLS 1.3 and 1.2, presents `identity`, requires a client
/// presenting one of `pinned_client_certificates`, and speaks ALPN `h2`.
pub fn server_config(
    identity: &Identity,
    pinned_client_certificates: Vec<CertificateDer<'static>>,
) -> Result<rustls::ServerConfig, rustls::Error> {
    let provider = crypto_provider();
    let verifier = PinnedCerts::new(pinned_client_certificates, provider.clone());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])?
        .with_client_cert_verifier(Arc::new(verifier))
        .with_single_cert(vec![identity.certificate_der.clone()], identity.private_key_der())?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    Ok(config)
}

/// Trusts exactly the pinned certificates, compared byte for byte with the presented leaf,
/// and checks handshake signatures (the peer proves possession of its key) with the given
/// provider. A client refuses any other server certificate with
/// `ApplicationVerificationFailure`; a server any other client certificate with
/// `UnknownIssuer`, as go-plugin's Go server does (its pool is the only issuer it knows).
#[derive(Debug)]
pub struct PinnedCerts {
    pinned: Vec<CertificateDer<'static>>,
    provider: Arc<CryptoProvider>,
}

impl PinnedCerts {
    pub fn new(pinned: Vec<CertificateDer<'static>>, provider: Arc<CryptoProvider>) -> PinnedCerts {
        PinnedCerts { pinned, provider }
    }

    fn check(&self, end_entity: &CertificateDer<'_>, refusal: CertificateError) -> Result<(), rustls::Error> {
        if self.pinned.iter().any(|pinned| pinned.as_ref() == end_entity.as_ref()) {
            Ok(())
        } else {
            Err(rustls::Error::InvalidCertificate(refusal))
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

    fn schemes(&self) -> Vec<SignatureScheme> {
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
        self.check(end_entity, CertificateError::UnknownIssuer).map(|()| ClientCertVerified::assertion())
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

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
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
        self.check(end_entity, CertificateError::ApplicationVerificationFailure)
            .map(|()| ServerCertVerified::assertion())
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

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.schemes()
    }
}
