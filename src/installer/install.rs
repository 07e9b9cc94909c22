//! The installation flow: dev overrides, local caches, then the configured installation methods,
//! and version selection. Placing the chosen version in our cache (the staged, verified install
//! of an archive, or a mirror's unpacked package copied) is `place`'s.
//!
//! Architecture invariant: the only module that knows the order of sources and ties the others
//! together; it holds no protocol or format details of its own.

use std::path::{Path, PathBuf};

use semver::Version;
use url::Url;

use super::address::ProviderAddress;
use super::cliconfig::{InstallationMethod, MethodLocation};
use super::error::Error;
use super::filesystem::{LocalLocation, find_executable, scan};
use super::hash::directory_hash1;
use super::http::{HttpClient, HttpSettings};
use super::lockfile::{LockedProvider, read_locked_provider};
use super::verify::matches_any_hash;
use super::{InstallRequest, InstalledProvider, InstallerConfig, Progress, VersionConstraints, mirror, registry};

mod place;

/// Largest SHA256SUMS or signature document we read.
const SMALL_DOCUMENT_LIMIT: u64 = 1 << 20;

/// Resolves, downloads if needed, verifies and caches the provider; see the module docs of
/// [`crate::installer`] for the order of sources.
pub async fn install(
    request: &InstallRequest,
    config: &InstallerConfig,
    progress: &dyn Progress,
) -> Result<InstalledProvider, Error> {
    let address = &request.address;
    if let Some(dir) = config.cli_config.dev_overrides.get(address) {
        let executable = find_executable(dir, &address.type_name)
            .ok_or_else(|| Error::NoExecutable { type_name: address.type_name.clone(), dir: dir.clone() })?;
        progress.step(&format!(
            "using {address} from the dev_overrides directory {}; version constraints and checksums are not checked",
            dir.display()
        ));
        return Ok(InstalledProvider {
            address: address.clone(),
            version: Version::new(0, 0, 0),
            executable,
            package_dir: dir.clone(),
            source: format!("{} from the dev_overrides directory {}", address.short_name(), dir.display()),
            downloaded: false,
        });
    }

    let locked = match &config.lock_file {
        Some(path) => read_locked_provider(path, address)?,
        None => None,
    };
    if let Some(locked) = &locked
        && !request.constraints.allows(&locked.version)
    {
        return Err(Error::LockedVersionExcluded {
            address: address.clone(),
            locked: locked.version.clone(),
            constraint: request.constraints.to_string(),
            lock_file: locked.lock_file.clone(),
        });
    }
    let acceptable = |version: &Version| match &locked {
        Some(locked) => *version == locked.version,
        None => request.constraints.allows(version),
    };

    let installing = Installing { address, config, locked: locked.as_ref(), progress };
    if let Some(found) = installing.find_in_local_caches(&acceptable)? {
        return Ok(found);
    }
    let wanted = match &locked {
        Some(locked) => format!("the locked version {}", locked.version),
        None if request.constraints == VersionConstraints::any() => "any version".to_owned(),
        None => format!("\"{}\"", request.constraints),
    };
    progress.step(&format!(
        "no cached version of {} matches {wanted} in {}",
        address.short_name(),
        config.cache_dir.display()
    ));
    installing.install_from_methods(&request.constraints, &acceptable).await
}

/// One provider being installed: what each step after reading the lock file needs.
#[derive(Clone, Copy)]
struct Installing<'a> {
    address: &'a ProviderAddress,
    config: &'a InstallerConfig,
    /// The lock file's entry for the provider, whose hashes every install must match.
    locked: Option<&'a LockedProvider>,
    progress: &'a dyn Progress,
}

impl Installing<'_> {
    /// Step 2: our cache and Terraform's plugin cache, newest acceptable version first, without
    /// any network access.
    fn find_in_local_caches(
        &self,
        acceptable: &(dyn Fn(&Version) -> bool + Sync),
    ) -> Result<Option<InstalledProvider>, Error> {
        let Installing { address, config, locked, progress } = *self;
        let mut caches = vec![(config.cache_dir.clone(), "the plugin cache")];
        if let Some(dir) = &config.terraform_plugin_cache_dir {
            caches.push((dir.clone(), "the Terraform plugin cache"));
        }
        let mut candidates = Vec::new();
        for (cache_idx, (dir, label)) in caches.iter().enumerate() {
            for package in scan(dir, address, &config.platform) {
                if let LocalLocation::Unpacked(package_dir) = package.location
                    && acceptable(&package.version)
                {
                    candidates.push((package.version, cache_idx, package_dir, *label, dir.clone()));
                }
            }
        }
        // Newest first; on a tie our own cache wins over Terraform's.
        candidates.sort_by(|a, b| b.0.cmp_precedence(&a.0).then(a.1.cmp(&b.1)));
        for (version, _, package_dir, label, cache_root) in candidates {
            if let Some(locked) = locked.filter(|locked| !locked.hashes.is_empty()) {
                let hash1 = directory_hash1(&package_dir)?;
                if !matches_any_hash(std::slice::from_ref(&hash1), &locked.hashes) {
                    progress.step(&format!(
                        "ignoring {} {version} in {label} at {}: it does not match the lock file's checksums",
                        address.short_name(),
                        cache_root.display()
                    ));
                    continue;
                }
            }
            let Some(executable) = find_executable(&package_dir, &address.type_name) else { continue };
            progress.step(&format!(
                "using {} {version} from {label} at {}",
                address.short_name(),
                cache_root.display()
            ));
            let from = format!("from {label} at {}", cache_root.display());
            return Ok(Some(InstalledProvider::found(address, &version, executable, package_dir, &from, false)));
        }
        Ok(None)
    }

    /// Step 3: query the installation methods, select the newest acceptable version, install it.
    async fn install_from_methods(
        &self,
        constraints: &VersionConstraints,
        acceptable: &(dyn Fn(&Version) -> bool + Sync),
    ) -> Result<InstalledProvider, Error> {
        let (methods, implicit) = self.installation_methods()?;
        let http = http_client(self.config)?;
        let candidates = self.candidates(&methods, implicit, &http).await?;
        let (selected, origin) = self.select(&candidates, constraints, acceptable)?;
        let archive_origin = match origin {
            Origin::Archive(archive_origin) => archive_origin,
            Origin::Unpacked(unpacked) => return self.install_unpacked(&selected, unpacked).await,
        };
        self.install_archive(&selected, archive_origin, &http).await
    }

    /// The installation methods that cover the provider, and whether they are the implicit
    /// ones (no `provider_installation` block): the implicit local mirrors, then the registry.
    fn installation_methods(&self) -> Result<(Vec<InstallationMethod>, bool), Error> {
        let Installing { address, config, .. } = *self;
        let (methods, implicit) = match &config.cli_config.installation_methods {
            Some(methods) => (methods.iter().filter(|method| method.covers(address)).cloned().collect(), false),
            None => {
                let mut methods: Vec<InstallationMethod> = config
                    .implicit_mirror_dirs
                    .iter()
                    .map(|dir| InstallationMethod {
                        location: MethodLocation::FilesystemMirror(dir.clone()),
                        include: Vec::new(),
                        exclude: Vec::new(),
                    })
                    .collect();
                methods.push(InstallationMethod {
                    location: MethodLocation::Direct,
                    include: Vec::new(),
                    exclude: Vec::new(),
                });
                (methods, true)
            }
        };
        if methods.is_empty() {
            return Err(Error::NoInstallationMethod { address: address.clone() });
        }
        Ok((methods, implicit))
    }

    /// Every version the methods offer, in the methods' order.
    async fn candidates(
        &self,
        methods: &[InstallationMethod],
        implicit: bool,
        http: &HttpClient,
    ) -> Result<Vec<(Version, Origin)>, Error> {
        let mut candidates: Vec<(Version, Origin)> = Vec::new();
        for method in methods {
            match &method.location {
                MethodLocation::FilesystemMirror(dir) => candidates.extend(self.filesystem_mirror_candidates(dir)),
                MethodLocation::NetworkMirror(base) => {
                    candidates.extend(self.network_mirror_candidates(base, http).await?);
                }
                MethodLocation::Direct => {
                    // Without an explicit configuration Terraform consults the registry only for
                    // providers none of the implicit local mirrors has.
                    if implicit && !candidates.is_empty() {
                        continue;
                    }
                    candidates.extend(self.registry_candidates(http).await?);
                }
            }
        }
        Ok(candidates)
    }

    /// The packages, unpacked or archived, of the filesystem mirror `dir`.
    fn filesystem_mirror_candidates(&self, dir: &Path) -> Vec<(Version, Origin)> {
        scan(dir, self.address, &self.config.platform)
            .into_iter()
            .map(|package| {
                let origin = match package.location {
                    LocalLocation::Unpacked(package_dir) => {
                        Origin::Unpacked(UnpackedOrigin { package_dir, mirror: dir.to_path_buf() })
                    }
                    LocalLocation::Packed(zip) => {
                        Origin::Archive(ArchiveOrigin::LocalArchive { zip, mirror: dir.to_path_buf() })
                    }
                };
                (package.version, origin)
            })
            .collect()
    }

    /// The versions the network mirror at `base` lists.
    async fn network_mirror_candidates(&self, base: &Url, http: &HttpClient) -> Result<Vec<(Version, Origin)>, Error> {
        let address = self.address;
        self.progress.step(&format!("querying network mirror {base} for versions of {address}"));
        let versions = mirror::available_versions(http, base, address).await?;
        Ok(versions
            .into_iter()
            .map(|version| (version, Origin::Archive(ArchiveOrigin::NetworkMirror { base: base.clone() })))
            .collect())
    }

    /// The versions the provider's registry lists, with the protocols each speaks.
    async fn registry_candidates(&self, http: &HttpClient) -> Result<Vec<(Version, Origin)>, Error> {
        let Installing { address, progress, .. } = *self;
        progress.step(&format!("querying registry {} for versions of {}", address.hostname, address.short_name()));
        let base = registry::discover_providers_service(http, &address.hostname).await?;
        let (versions, warnings) = registry::list_versions(http, &base, address).await?;
        for warning in warnings {
            progress.step(&format!("warning from registry {}: {warning}", address.hostname));
        }
        Ok(versions
            .into_iter()
            .map(|entry| {
                let origin =
                    Origin::Archive(ArchiveOrigin::Registry { base: base.clone(), protocols: entry.protocols });
                (entry.version, origin)
            })
            .collect())
    }

    /// The newest acceptable version, and where to get it; among equal versions the earliest
    /// method wins. A registry version whose protocols we do not speak is an error naming the
    /// newest acceptable one we do.
    fn select<'c>(
        &self,
        candidates: &'c [(Version, Origin)],
        constraints: &VersionConstraints,
        acceptable: &(dyn Fn(&Version) -> bool + Sync),
    ) -> Result<(Version, &'c Origin), Error> {
        let Installing { address, locked, .. } = *self;
        let mut best: Option<&(Version, Origin)> = None;
        for candidate in candidates.iter().filter(|(version, _)| acceptable(version)) {
            if best.is_none_or(|(best_version, _)| candidate.0.cmp_precedence(best_version).is_gt()) {
                best = Some(candidate);
            }
        }
        let Some((selected, origin)) = best else {
            let mut available: Vec<Version> = candidates.iter().map(|(version, _)| version.clone()).collect();
            available.sort_by(|a, b| b.cmp_precedence(a));
            available.dedup();
            available.truncate(10);
            let constraint = match locked {
                Some(locked) => format!("= {} (from the lock file {})", locked.version, locked.lock_file.display()),
                None => constraints.to_string(),
            };
            return Err(Error::NoMatchingVersion { address: address.clone(), constraint, available });
        };
        let selected = selected.clone();

        if let Some(protocols) = origin.registry_protocols()
            && !protocols.is_empty()
            && !registry::protocols_compatible(protocols)
        {
            let suggestion = candidates
                .iter()
                .filter(|(version, origin)| {
                    acceptable(version) && origin.registry_protocols().is_some_and(registry::protocols_compatible)
                })
                .map(|(version, _)| version)
                .max_by(|a, b| a.cmp_precedence(b))
                .cloned();
            return Err(Error::IncompatibleProtocol {
                address: address.clone(),
                version: selected,
                protocols: protocols.to_vec(),
                suggestion,
            });
        }
        Ok((selected, origin))
    }
}

/// The HTTP client for the network mirrors and registries, with the configuration's
/// certificates, credentials, timeout and retries.
fn http_client(config: &InstallerConfig) -> Result<HttpClient, Error> {
    HttpClient::new(&HttpSettings {
        extra_root_certificates_pem: &config.extra_root_certificates_pem,
        tokens: &config.tokens,
        terraform_version: &config.terraform_version,
        request_timeout: config.request_timeout,
        retries: config.retries,
    })
}

/// Where a candidate version can be had.
enum Origin {
    /// An unpacked package in a filesystem mirror, copied into our cache.
    Unpacked(UnpackedOrigin),
    /// A zip archive to bring into our cache.
    Archive(ArchiveOrigin),
}

/// An unpacked package: its directory, in the filesystem mirror at `mirror`.
struct UnpackedOrigin {
    package_dir: PathBuf,
    mirror: PathBuf,
}

/// Where a zip archive comes from, which decides how it is authenticated.
enum ArchiveOrigin {
    LocalArchive { zip: PathBuf, mirror: PathBuf },
    Registry { base: Url, protocols: Vec<String> },
    NetworkMirror { base: Url },
}

impl Origin {
    /// The protocol versions the registry's versions list announced, if this is the registry.
    fn registry_protocols(&self) -> Option<&[String]> {
        match self {
            Origin::Archive(ArchiveOrigin::Registry { protocols, .. }) => Some(protocols),
            _ => None,
        }
    }
}

impl InstalledProvider {
    /// `version` of `address` in `package_dir`, run by `executable`; `from` says where it
    /// came from ("from the plugin cache at …").
    fn found(
        address: &ProviderAddress,
        version: &Version,
        executable: PathBuf,
        package_dir: PathBuf,
        from: &str,
        downloaded: bool,
    ) -> InstalledProvider {
        let source = format!("{} {version} {from}", address.short_name());
        InstalledProvider {
            address: address.clone(),
            version: version.clone(),
            executable,
            package_dir,
            source,
            downloaded,
        }
    }
}
