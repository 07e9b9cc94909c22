//! The provider network mirror protocol: `<base>/<host>/<ns>/<type>/index.json` lists versions
//! and `<base>/<host>/<ns>/<type>/<version>.json` gives each platform's archive URL and hashes.
//!
//! Architecture invariant: protocol only; no file system access and no policy about versions.

use std::collections::BTreeMap;

use semver::Version;
use serde::Deserialize;
use url::Url;

use super::address::{Platform, ProviderAddress};
use super::error::Error;
use super::http::{HttpClient, resolve};
use super::registry::parse_json;

const DOCUMENT_LIMIT: u64 = 4 << 20;

/// Where a mirror keeps one platform's archive.
#[derive(Clone, Debug)]
pub(crate) struct MirrorArchive {
    pub(crate) url: Url,
    /// `h1:` / `zh:` hashes the package must match one of; empty when the mirror lists none.
    pub(crate) hashes: Vec<String>,
}

#[derive(Deserialize)]
struct IndexDocument {
    #[serde(default)]
    versions: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct VersionDocument {
    #[serde(default)]
    archives: BTreeMap<String, ArchiveEntry>,
}

#[derive(Deserialize)]
struct ArchiveEntry {
    url: String,
    #[serde(default)]
    hashes: Vec<String>,
}

fn provider_url(base: &Url, address: &ProviderAddress, file: &str) -> Result<Url, Error> {
    // The leading "./" keeps a hostname with a port ("localhost:8443") from reading as a scheme.
    resolve(base, &format!("./{}/{}/{}/{file}", address.hostname, address.namespace, address.type_name))
}

/// The versions the mirror holds; a mirror that does not know the provider (404) holds none.
pub(crate) async fn available_versions(
    http: &HttpClient,
    base: &Url,
    address: &ProviderAddress,
) -> Result<Vec<Version>, Error> {
    let url = provider_url(base, address, "index.json")?;
    let response = http.get_small(&url, "application/json", DOCUMENT_LIMIT).await?;
    if response.status == 404 {
        return Ok(Vec::new());
    }
    let document: IndexDocument = parse_json(&response, http, "a network mirror index")?;
    Ok(document.versions.keys().filter_map(|text| Version::parse(text).ok()).collect())
}

/// The archive of `version` for `platform`.
pub(crate) async fn archive(
    http: &HttpClient,
    base: &Url,
    address: &ProviderAddress,
    version: &Version,
    platform: &Platform,
) -> Result<MirrorArchive, Error> {
    let url = provider_url(base, address, &format!("{version}.json"))?;
    let response = http.get_small(&url, "application/json", DOCUMENT_LIMIT).await?;
    if response.status == 404 {
        return Err(Error::platform_not_supported(address, version, platform));
    }
    let document: VersionDocument = parse_json(&response, http, "a network mirror version document")?;
    let Some(entry) = document.archives.get(&platform.to_string()) else {
        return Err(Error::platform_not_supported(address, version, platform));
    };
    Ok(MirrorArchive { url: resolve(&response.final_url, &entry.url)?, hashes: entry.hashes.clone() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_urls_keep_hosts_with_ports_in_the_path() {
        let base = Url::parse("https://mirror.example.com/providers/").unwrap();
        let address = ProviderAddress::parse("localhost:8443/acme/thing").unwrap();
        let url = provider_url(&base, &address, "index.json").unwrap();
        assert_eq!(url.as_str(), "https://mirror.example.com/providers/localhost:8443/acme/thing/index.json");
    }
}
