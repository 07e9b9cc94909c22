//! Package authentication as Terraform does it for registry packages: the signed SHA256SUMS
//! document must list the package's file name with the hash the registry announced, the zip
//! must have that hash, and the detached binary OpenPGP signature over SHA256SUMS must verify
//! with one of the signing keys the registry lists for the provider. Also the check of a
//! package's `h1:`/`zh:` hashes against a list of acceptable hashes (lock file, mirror).
//!
//! Architecture invariant: pure checks over bytes and hashes; no network, no file system.

use pgp::composed::{Deserializable, DetachedSignature, SignedPublicKey};
use pgp::types::KeyDetails;

use super::error::Error;

/// What the signature check established.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Authentication {
    /// Signed by the key with this (hex) key ID.
    SignedBy(String),
    /// The registry listed no keys and the host is one where OpenTofu skips signature checks.
    Unsigned,
}

/// Checks that SHA256SUMS lists `filename` with `expected_hex`.
pub(crate) fn check_shasums_lists(
    shasums: &[u8],
    shasums_url: &str,
    filename: &str,
    expected_hex: &str,
) -> Result<(), Error> {
    let text = String::from_utf8_lossy(shasums);
    let listed = text.lines().any(|line| {
        let mut fields = line.split_whitespace();
        let (Some(hash), Some(name), None) = (fields.next(), fields.next(), fields.next()) else {
            return false;
        };
        name == filename && hash.eq_ignore_ascii_case(expected_hex)
    });
    if listed {
        Ok(())
    } else {
        Err(Error::ChecksumNotListed {
            url: shasums_url.to_owned(),
            filename: filename.to_owned(),
            expected: expected_hex.to_owned(),
        })
    }
}

/// Verifies the detached signature (binary, or armored as a courtesy) over `shasums` with the
/// first of `armored_keys` whose primary key or signing subkey made it.
pub(crate) fn verify_signature(
    shasums: &[u8],
    signature: &[u8],
    signature_url: &str,
    armored_keys: &[String],
) -> Result<Authentication, Error> {
    let invalid = |reason: String| Error::SignatureInvalid { url: signature_url.to_owned(), reason };
    let parsed = match DetachedSignature::from_bytes(signature) {
        Ok(parsed) => parsed,
        Err(binary_error) => match std::str::from_utf8(signature).ok().map(DetachedSignature::from_string) {
            Some(Ok((parsed, _headers))) => parsed,
            _ => return Err(invalid(format!("not an OpenPGP signature: {binary_error}"))),
        },
    };
    let issuers: Vec<String> = parsed
        .signature
        .issuer_key_id()
        .iter()
        .map(|key_id| key_id.to_string().to_uppercase())
        .chain(parsed.signature.issuer_fingerprint().iter().map(|fingerprint| fingerprint.to_string().to_uppercase()))
        .collect();
    let mut known = Vec::new();
    let mut last_failure = None;
    for armored in armored_keys {
        let (key, _headers) = SignedPublicKey::from_string(armored)
            .map_err(|error| invalid(format!("a signing key does not parse: {error}")))?;
        let primary_id = key.primary_key.legacy_key_id();
        known.push(primary_id.to_string().to_uppercase());
        let issued_by = |candidate: &pgp::types::KeyId| parsed.signature.issuer_key_id().contains(&candidate);
        if issued_by(&primary_id) || parsed.signature.issuer_key_id().is_empty() {
            match parsed.verify(&key.primary_key, shasums) {
                Ok(()) => return Ok(Authentication::SignedBy(primary_id.to_string().to_uppercase())),
                Err(_) => last_failure = Some(altered(&primary_id)),
            }
        }
        for subkey in &key.public_subkeys {
            let subkey_id = subkey.key.legacy_key_id();
            if !issued_by(&subkey_id) && !parsed.signature.issuer_key_id().is_empty() {
                continue;
            }
            // A subkey only speaks for the primary key when its binding signature is valid.
            if let Err(error) = subkey.verify_bindings(&key.primary_key) {
                last_failure =
                    Some(format!("subkey {} is not validly bound: {error}", subkey_id.to_string().to_uppercase()));
                continue;
            }
            match parsed.verify(&subkey.key, shasums) {
                Ok(()) => return Ok(Authentication::SignedBy(primary_id.to_string().to_uppercase())),
                Err(_) => last_failure = Some(altered(&subkey_id)),
            }
        }
    }
    match last_failure {
        Some(reason) => Err(invalid(reason)),
        None => Err(Error::UnknownSigningKey { url: signature_url.to_owned(), issuers, known }),
    }
}

/// rpgp's own message for a failed check is a low-level assertion; this says what it means.
fn altered(key_id: &pgp::types::KeyId) -> String {
    format!(
        "it was made by key {} but does not match the SHA256SUMS document, so the document or the signature was altered",
        key_id.to_string().to_uppercase()
    )
}

/// Whether any of `actual` (our computed `h1:`/`zh:` hashes) is among `acceptable`.
pub(crate) fn matches_any_hash(actual: &[String], acceptable: &[String]) -> bool {
    actual.iter().any(|hash| acceptable.iter().any(|allowed| allowed == hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shasums_must_list_the_file_with_the_hash() {
        let document =
            b"aaaa  terraform-provider-x_1.0.0_linux_amd64.zip\nbbbb  terraform-provider-x_1.0.0_darwin_arm64.zip\n";
        assert!(check_shasums_lists(document, "u", "terraform-provider-x_1.0.0_linux_amd64.zip", "AAAA").is_ok());
        let wrong_hash = check_shasums_lists(document, "u", "terraform-provider-x_1.0.0_linux_amd64.zip", "bbbb");
        assert_eq!(
            wrong_hash.unwrap_err().to_string(),
            "u does not list terraform-provider-x_1.0.0_linux_amd64.zip with checksum bbbb"
        );
        assert!(check_shasums_lists(document, "u", "terraform-provider-x_1.0.0_windows_amd64.zip", "aaaa").is_err());
    }

    #[test]
    fn garbage_is_not_a_signature() {
        let error = verify_signature(b"x", b"not a signature", "sig-url", &[]).unwrap_err();
        assert!(error.to_string().starts_with("signature sig-url is not valid: not an OpenPGP signature"), "{error}");
    }
}
