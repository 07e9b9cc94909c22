//! The provider registry protocol: service discovery (`/.well-known/terraform.json`,
//! `providers.v1`), the versions list and the per-platform download metadata.
//!
//! Architecture invariant: protocol only; no file system access and no policy about versions.

use semver::Version;
use serde::Deserialize;
use url::Url;

use super::address::{AddressProblem, InvalidAddress, Platform, ProviderAddress};
use super::error::Error;
use super::http::{HttpClient, SmallResponse, resolve};

/// Largest discovery or metadata document we read; Terraform caps discovery at 1 MiB.
const DOCUMENT_LIMIT: u64 = 1 << 20;
/// Versions lists of big providers run to a few hundred kilobytes.
const VERSIONS_LIMIT: u64 = 16 << 20;

/// One entry of the registry's versions list.
#[derive(Clone, Debug)]
pub(crate) struct RegistryVersion {
    pub(crate) version: Version,
    pub(crate) protocols: Vec<String>,
}

/// The download metadata of one version on one platform.
#[derive(Clone, Debug)]
pub(crate) struct DownloadMeta {
    pub(crate) protocols: Vec<String>,
    pub(crate) filename: String,
    pub(crate) download_url: Url,
    pub(crate) shasums_url: Url,
    pub(crate) shasums_signature_url: Url,
    /// Lowercase hex SHA-256 of the zip.
    pub(crate) shasum: String,
    /// ASCII-armored public keys allowed to sign SHA256SUMS.
    pub(crate) signing_keys: Vec<String>,
    /// `h1:`/`zh:` hashes OpenTofu's registry lists for this platform (its `packages` field);
    /// when present the package must match one of them.
    pub(crate) hashes: Vec<String>,
}

#[derive(Deserialize)]
struct VersionsDocument {
    #[serde(default)]
    versions: Vec<VersionsEntry>,
    #[serde(default)]
    warnings: Vec<String>,
}

#[derive(Deserialize)]
struct VersionsEntry {
    version: String,
    #[serde(default)]
    protocols: Vec<String>,
}

#[derive(Deserialize)]
struct DownloadDocument {
    #[serde(default)]
    protocols: Vec<String>,
    os: String,
    arch: String,
    filename: String,
    download_url: String,
    shasums_url: String,
    shasums_signature_url: String,
    shasum: String,
    #[serde(default)]
    signing_keys: SigningKeys,
    #[serde(default)]
    packages: std::collections::BTreeMap<String, PlatformPackage>,
}

#[derive(Deserialize)]
struct PlatformPackage {
    #[serde(default)]
    hashes: Vec<String>,
}

#[derive(Deserialize, Default)]
struct SigningKeys {
    #[serde(default)]
    gpg_public_keys: Vec<GpgPublicKey>,
}

#[derive(Deserialize)]
struct GpgPublicKey {
    ascii_armor: String,
}

/// Finds the base URL of the host's provider registry (`providers.v1`).
pub(crate) async fn discover_providers_service(http: &HttpClient, hostname: &str) -> Result<Url, Error> {
    let discovery_url = Url::parse(&format!("https://{hostname}/.well-known/terraform.json")).map_err(|error| {
        Error::InvalidAddress(InvalidAddress {
            given: hostname.to_owned(),
            reason: AddressProblem::NotUsableInUrl(error),
        })
    })?;
    let response = http.get_small(&discovery_url, "application/json", DOCUMENT_LIMIT).await?;
    if response.status == 404 {
        return Err(Error::NoProviderService { host: hostname.to_owned(), url: discovery_url.to_string() });
    }
    // Like Terraform, discovery insists on a JSON content type, so that an HTML login or error
    // page answered with 200 is reported as such. Other documents are often static files
    // (network mirrors on object storage) whose content type is unreliable, so only their
    // content is checked.
    if response.status == 200 && !response.content_type.starts_with("application/json") {
        return Err(Error::InvalidResponse {
            url: response.final_url.to_string(),
            reason: format!(
                "expected a JSON service discovery document but got content type {:?}",
                response.content_type
            ),
        });
    }
    let document: serde_json::Map<String, serde_json::Value> =
        parse_json(&response, http, "a service discovery document")?;
    let Some(service) = document.get("providers.v1") else {
        return Err(Error::NoProviderService { host: hostname.to_owned(), url: discovery_url.to_string() });
    };
    let Some(service_text) = service.as_str() else {
        return Err(Error::InvalidResponse {
            url: response.final_url.to_string(),
            reason: "providers.v1 is not a string".to_owned(),
        });
    };
    let mut base = resolve(&response.final_url, service_text)?;
    if !base.path().ends_with('/') {
        base.set_path(&format!("{}/", base.path()));
    }
    Ok(base)
}

/// Lists the versions the registry offers, with the registry's warnings.
pub(crate) async fn list_versions(
    http: &HttpClient,
    base: &Url,
    address: &ProviderAddress,
) -> Result<(Vec<RegistryVersion>, Vec<String>), Error> {
    let url = resolve(base, &format!("{}/{}/versions", address.namespace, address.type_name))?;
    let response = http.get_small(&url, "application/json", VERSIONS_LIMIT).await?;
    if response.status == 404 {
        return Err(Error::ProviderNotFound { address: address.clone(), url: url.to_string() });
    }
    let document: VersionsDocument = parse_json(&response, http, "a provider versions list")?;
    // Versions that are not valid semver are skipped, as Terraform skips them.
    let versions = document
        .versions
        .into_iter()
        .filter_map(|entry| {
            Version::parse(&entry.version).ok().map(|version| RegistryVersion { version, protocols: entry.protocols })
        })
        .collect();
    Ok((versions, document.warnings))
}

/// Fetches the download metadata of `version` for `platform`.
pub(crate) async fn package_meta(
    http: &HttpClient,
    base: &Url,
    address: &ProviderAddress,
    version: &Version,
    platform: &Platform,
) -> Result<DownloadMeta, Error> {
    let url = resolve(
        base,
        &format!("{}/{}/{}/download/{}/{}", address.namespace, address.type_name, version, platform.os, platform.arch),
    )?;
    let response = http.get_small(&url, "application/json", DOCUMENT_LIMIT).await?;
    if response.status == 404 {
        return Err(Error::platform_not_supported(address, version, platform));
    }
    let document: DownloadDocument = parse_json(&response, http, "provider download metadata")?;
    if document.os != platform.os || document.arch != platform.arch {
        return Err(Error::InvalidResponse {
            url: response.final_url.to_string(),
            reason: format!("asked for {platform} but got {}_{}", document.os, document.arch),
        });
    }
    let shasum = document.shasum.to_ascii_lowercase();
    if shasum.len() != 64 || !shasum.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(Error::InvalidResponse {
            url: response.final_url.to_string(),
            reason: format!("shasum {:?} is not a hex SHA-256", document.shasum),
        });
    }
    if document.filename.contains('/') || document.filename.contains('\\') {
        return Err(Error::InvalidResponse {
            url: response.final_url.to_string(),
            reason: format!("filename {:?} is not a plain file name", document.filename),
        });
    }
    let hashes = document.packages.get(&platform.to_string()).map(|package| package.hashes.clone()).unwrap_or_default();
    Ok(DownloadMeta {
        hashes,
        protocols: document.protocols,
        filename: document.filename,
        download_url: resolve(&response.final_url, &document.download_url)?,
        shasums_url: resolve(&response.final_url, &document.shasums_url)?,
        shasums_signature_url: resolve(&response.final_url, &document.shasums_signature_url)?,
        shasum,
        signing_keys: document.signing_keys.gpg_public_keys.into_iter().map(|key| key.ascii_armor).collect(),
    })
}

/// Whether any of the advertised protocol versions (`"5.0"`, `"6"`) is one we speak.
pub(crate) fn protocols_compatible(protocols: &[String]) -> bool {
    protocols.iter().any(|protocol| {
        let major = protocol.split('.').next().unwrap_or("");
        major == "5" || major == "6"
    })
}

/// Parses a 200 JSON answer, mapping every other status to its error.
pub(crate) fn parse_json<T: serde::de::DeserializeOwned>(
    response: &SmallResponse,
    http: &HttpClient,
    what: &str,
) -> Result<T, Error> {
    response.require_ok(http)?;
    serde_json::from_slice(&response.body).map_err(|error| Error::InvalidResponse {
        url: response.final_url.to_string(),
        reason: format!("not {what}: {error}"),
    })
}
