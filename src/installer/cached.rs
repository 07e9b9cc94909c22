//! The provider packages already in our cache, listed without any network: what an
//! unparameterized plugin can offer `pulumi import --from terraform`, which asks every
//! installed plugin for the mapping of a provider it names only by type (`tfcoremock`), with
//! no source address and no version.
//!
//! The cache layout is the Go implementation's (OpenTofu's):
//! `<cache>/<hostname>/<namespace>/<type>/<version>/<os>_<arch>/`.

use std::collections::BTreeMap;
use std::path::Path;

use semver::Version;

use super::{Platform, ProviderAddress};

/// One provider version in the cache, for this platform.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedPackage {
    pub address: ProviderAddress,
    pub version: Version,
}

/// Every package in `cache_root` for `platform`. Unreadable directories and names that are
/// not versions (the cache's own `.locks`, `.staging`, `.schema-cache`) are skipped: a listing
/// is a hint, never an error.
pub fn cached_packages(cache_root: &Path, platform: &Platform) -> Vec<CachedPackage> {
    fn dirs(path: &Path) -> Vec<(String, std::path::PathBuf)> {
        let Ok(entries) = std::fs::read_dir(path) else { return Vec::new() };
        let mut out: Vec<_> = entries
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
            .filter_map(|entry| Some((entry.file_name().into_string().ok()?, entry.path())))
            .filter(|(name, _)| !name.starts_with('.'))
            .collect();
        out.sort();
        out
    }
    let mut packages = Vec::new();
    for (hostname, host_dir) in dirs(cache_root) {
        for (namespace, namespace_dir) in dirs(&host_dir) {
            for (type_name, type_dir) in dirs(&namespace_dir) {
                for (version, version_dir) in dirs(&type_dir) {
                    let Ok(version) = Version::parse(&version) else { continue };
                    if !version_dir.join(platform.to_string()).is_dir() {
                        continue;
                    }
                    let address = ProviderAddress {
                        hostname: hostname.clone(),
                        namespace: namespace.clone(),
                        type_name: type_name.clone(),
                    };
                    packages.push(CachedPackage { address, version });
                }
            }
        }
    }
    packages
}

/// For each provider type in `packages`, the package whose mapping answers for that type: the
/// newest version of the one address that has it. A type cached under two addresses (say
/// `hashicorp/local` and `acme/local`) is left out: the caller names only the type, and
/// guessing between two providers would map resources onto the wrong one without a word.
pub fn mapping_candidates(packages: &[CachedPackage]) -> BTreeMap<String, CachedPackage> {
    let mut by_type: BTreeMap<String, Vec<&CachedPackage>> = BTreeMap::new();
    for package in packages {
        by_type.entry(package.address.type_name.clone()).or_default().push(package);
    }
    by_type
        .into_iter()
        .filter_map(|(type_name, found)| {
            let first = &found.first()?.address;
            if found.iter().any(|package| package.address != *first) {
                return None;
            }
            let newest = found.into_iter().max_by(|a, b| a.version.cmp(&b.version))?;
            Some((type_name, newest.clone()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(address: &str, version: &str) -> CachedPackage {
        CachedPackage { address: ProviderAddress::parse(address).unwrap(), version: Version::parse(version).unwrap() }
    }

    #[test]
    fn candidates_are_the_newest_version_of_an_unambiguous_type() {
        /// (type, address, version) of each candidate.
        type Expected<'a> = &'a [(&'a str, &'a str, &'a str)];
        let cases: [(&[CachedPackage], Expected); 4] = [
            (&[], &[]),
            (
                &[
                    package("hashicorp/local", "2.4.0"),
                    package("hashicorp/local", "2.10.0"),
                    package("hashicorp/local", "2.9.0"),
                ],
                &[("local", "registry.opentofu.org/hashicorp/local", "2.10.0")],
            ),
            (
                &[package("localhost:8443/hashicorp/tfcoremock", "0.6.0-beta2"), package("hashicorp/random", "3.9.0")],
                &[
                    ("random", "registry.opentofu.org/hashicorp/random", "3.9.0"),
                    ("tfcoremock", "localhost:8443/hashicorp/tfcoremock", "0.6.0-beta2"),
                ],
            ),
            // Two providers of one type: neither, rather than a guess.
            (
                &[
                    package("hashicorp/local", "2.9.0"),
                    package("acme/local", "9.0.0"),
                    package("hashicorp/null", "3.0.0"),
                ],
                &[("null", "registry.opentofu.org/hashicorp/null", "3.0.0")],
            ),
        ];
        for (packages, expected) in cases {
            let actual: Vec<(String, String, String)> = mapping_candidates(packages)
                .into_iter()
                .map(|(kind, package)| (kind, package.address.to_string(), package.version.to_string()))
                .collect();
            let expected: Vec<(String, String, String)> =
                expected.iter().map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string())).collect();
            assert_eq!(actual, expected, "{packages:?}");
        }
    }

    #[test]
    fn the_cache_is_listed_for_this_platform_only() {
        let root = tempfile::tempdir().unwrap();
        let platform = Platform::current();
        for leaf in [
            format!("registry.opentofu.org/hashicorp/local/2.9.0/{platform}"),
            "registry.opentofu.org/hashicorp/local/2.8.0/other_arch".to_owned(),
            format!("registry.opentofu.org/hashicorp/local/not-a-version/{platform}"),
            format!(".staging/registry.opentofu.org/hashicorp/x/1.0.0/{platform}"),
        ] {
            std::fs::create_dir_all(root.path().join(leaf)).unwrap();
        }
        let listed = cached_packages(root.path(), &platform);
        assert_eq!(listed, [package("hashicorp/local", "2.9.0")]);
        assert!(cached_packages(&root.path().join("missing"), &platform).is_empty());
    }
}
