//! The installation flow: dev overrides, local caches, then the configured installation methods;
//! version selection; and the staged, verified install of an archive into our cache.
//!
//! Architecture invariant: the only module that knows the order of sources and ties the others
//! together; it holds no protocol or format details of its own.

use std::path::{Path, PathBuf};

use semver::Version;
use url::Url;

use super::address::{DEFAULT_REGISTRY_HOST, ProviderAddress};
use super::archive::{extract_zip, make_executable};
use super::cache::{ProviderLock, Staging, lock_provider};
use super::cliconfig::{InstallationMethod, MethodLocation};
use super::error::Error;
use super::filesystem::{LocalLocation, find_executable, scan, unpacked_package_dir};
use super::hash::{directory_hash1, zip_hash};
use super::http::{HttpClient, HttpSettings};
use super::lockfile::{LockedProvider, read_locked_provider};
use super::verify::{Authentication, check_shasums_lists, matches_any_hash, verify_signature};
use super::{InstallRequest, InstalledProvider, InstallerConfig, Progress, VersionConstraints, mirror, registry};

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
        let Installing { address, config, locked, progress } = *self;
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
        let http = HttpClient::new(&HttpSettings {
            extra_root_certificates_pem: &config.extra_root_certificates_pem,
            tokens: &config.tokens,
            terraform_version: &config.terraform_version,
            request_timeout: config.request_timeout,
            retries: config.retries,
        })?;

        let mut candidates: Vec<(Version, Origin)> = Vec::new();
        for method in &methods {
            match &method.location {
                MethodLocation::FilesystemMirror(dir) => {
                    for package in scan(dir, address, &config.platform) {
                        let origin = match package.location {
                            LocalLocation::Unpacked(package_dir) => {
                                Origin::Unpacked(UnpackedOrigin { package_dir, mirror: dir.clone() })
                            }
                            LocalLocation::Packed(zip) => {
                                Origin::Archive(ArchiveOrigin::LocalArchive { zip, mirror: dir.clone() })
                            }
                        };
                        candidates.push((package.version, origin));
                    }
                }
                MethodLocation::NetworkMirror(base) => {
                    progress.step(&format!("querying network mirror {base} for versions of {address}"));
                    for version in mirror::available_versions(&http, base, address).await? {
                        candidates
                            .push((version, Origin::Archive(ArchiveOrigin::NetworkMirror { base: base.clone() })));
                    }
                }
                MethodLocation::Direct => {
                    // Without an explicit configuration Terraform consults the registry only for
                    // providers none of the implicit local mirrors has.
                    if implicit && !candidates.is_empty() {
                        continue;
                    }
                    progress.step(&format!(
                        "querying registry {} for versions of {}",
                        address.hostname,
                        address.short_name()
                    ));
                    let base = registry::discover_providers_service(&http, &address.hostname).await?;
                    let (versions, warnings) = registry::list_versions(&http, &base, address).await?;
                    for warning in warnings {
                        progress.step(&format!("warning from registry {}: {warning}", address.hostname));
                    }
                    for entry in versions {
                        candidates.push((
                            entry.version,
                            Origin::Archive(ArchiveOrigin::Registry { base: base.clone(), protocols: entry.protocols }),
                        ));
                    }
                }
            }
        }

        // The newest acceptable version; among equal versions the earliest method wins.
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

        let archive_origin = match origin {
            Origin::Archive(archive_origin) => archive_origin,
            Origin::Unpacked(unpacked) => return self.install_unpacked(&selected, unpacked).await,
        };
        self.install_archive(&selected, archive_origin, &http).await
    }

    /// Brings the archive of `version` into our cache: under the provider lock, into a staging
    /// directory, verified, extracted, then renamed into place.
    async fn install_archive(
        &self,
        version: &Version,
        origin: &ArchiveOrigin,
        http: &HttpClient,
    ) -> Result<InstalledProvider, Error> {
        let Installing { address, config, progress, .. } = *self;
        let locked = self.lock_package(version).await?;
        if let Some(executable) = locked.installed {
            let label = "the plugin cache";
            self.check_locked_hashes(version, label, &[directory_hash1(&locked.final_dir)?])?;
            let from = format!("from {label} at {}", config.cache_dir.display());
            return Ok(InstalledProvider::found(address, version, executable, locked.final_dir, &from, false));
        }
        let staging = Staging::begin(&config.cache_dir, address, version, &config.platform)?;
        let zip_path = staging.zip_path();
        let fetched = self.fetch_archive(version, origin, http, &zip_path).await?;

        progress.step(&format!("extracting {} {version}", address.short_name()));
        let package_dir = staging.package_dir();
        let limits = config.archive_limits;
        let (zip_for_task, dir_for_task) = (zip_path.clone(), package_dir.clone());
        let hashes = off_runtime("extraction task failed for", &zip_path, move || {
            extract_zip(&zip_for_task, &dir_for_task, limits)?;
            Ok(vec![directory_hash1(&dir_for_task)?, zip_hash(&zip_for_task)?])
        })
        .await?;
        if !fetched.acceptable_hashes.is_empty() && !matches_any_hash(&hashes, &fetched.acceptable_hashes) {
            return Err(Error::HashMismatch {
                what: format!("{} {version} from {}", address.short_name(), fetched.origin),
                expected: fetched.acceptable_hashes,
                actual: hashes,
            });
        }
        self.check_locked_hashes(version, &fetched.origin, &hashes)?;
        let executable_in_staging =
            find_executable(&package_dir, &address.type_name).ok_or_else(|| Error::PackageWithoutExecutable {
                type_name: address.type_name.clone(),
                package: format!("{} {version} from {}", address.short_name(), fetched.origin),
            })?;
        make_executable(&executable_in_staging)?;
        let executable_name = executable_in_staging.file_name().map(ToOwned::to_owned).unwrap_or_default();
        self.install_staged(staging, locked.final_dir, &executable_name, version, &fetched.description)
    }

    /// Takes the provider lock, then looks where `version` unpacks in our cache: another
    /// process may have installed it while we were resolving or waiting for the lock.
    async fn lock_package(&self, version: &Version) -> Result<LockedPackage, Error> {
        let Installing { address, config, progress, .. } = *self;
        let final_dir = unpacked_package_dir(&config.cache_dir, address, version, &config.platform);
        let lock = lock_provider(&config.cache_dir, address, progress).await?;
        let installed = find_executable(&final_dir, &address.type_name);
        Ok(LockedPackage { final_dir, installed, _lock: lock })
    }

    /// Moves a checked package from `staging` into `final_dir`, where it is installed.
    fn install_staged(
        &self,
        staging: Staging,
        final_dir: PathBuf,
        executable_name: &std::ffi::OsStr,
        version: &Version,
        from: &str,
    ) -> Result<InstalledProvider, Error> {
        let Installing { address, progress, .. } = *self;
        staging.commit(&final_dir)?;
        progress.step(&format!("installed {} {version} into {}", address.short_name(), final_dir.display()));
        Ok(InstalledProvider::found(address, version, final_dir.join(executable_name), final_dir, from, true))
    }

    /// Copies an unpacked package from a filesystem mirror into our cache, as `terraform init`
    /// copies it into the working directory: a mirror is often a mounted share or a directory
    /// a CI job prepares, and a later run must work after it is gone. The copy is staged,
    /// hashed and renamed into place under the provider lock, like a download.
    async fn install_unpacked(&self, version: &Version, origin: &UnpackedOrigin) -> Result<InstalledProvider, Error> {
        let Installing { address, config, progress, .. } = *self;
        let UnpackedOrigin { package_dir, mirror } = origin;
        let label = format!("the filesystem mirror at {}", mirror.display());
        let mirror_hash = directory_hash1(package_dir)?;
        self.check_locked_hashes(version, &label, std::slice::from_ref(&mirror_hash))?;
        find_executable(package_dir, &address.type_name)
            .ok_or_else(|| Error::NoExecutable { type_name: address.type_name.clone(), dir: package_dir.to_owned() })?;

        let locked = self.lock_package(version).await?;
        if let Some(executable) = locked.installed
            && directory_hash1(&locked.final_dir)? == mirror_hash
        {
            let from = format!("from {label}");
            return Ok(InstalledProvider::found(address, version, executable, locked.final_dir, &from, false));
        }
        let staging = Staging::begin(&config.cache_dir, address, version, &config.platform)?;
        progress.step(&format!("copying {} {version} from {label}", address.short_name()));
        let (from, to) = (package_dir.to_owned(), staging.package_dir());
        let copied_hash = off_runtime("copy task failed for", package_dir, move || {
            copy_dir(&from, &to)?;
            directory_hash1(&to)
        })
        .await?;
        // The mirror may change under us (another job refreshing it): install only what was hashed.
        if copied_hash != mirror_hash {
            return Err(Error::HashMismatch {
                what: format!("{} {version} copied from {label}", address.short_name()),
                expected: vec![mirror_hash],
                actual: vec![copied_hash],
            });
        }
        let executable_name = find_executable(&staging.package_dir(), &address.type_name)
            .and_then(|executable| executable.file_name().map(ToOwned::to_owned))
            .unwrap_or_default();
        self.install_staged(staging, locked.final_dir, &executable_name, version, &format!("from {label}"))
    }

    /// Puts the archive at `zip_path` and authenticates it as its source allows.
    async fn fetch_archive(
        &self,
        version: &Version,
        origin: &ArchiveOrigin,
        http: &HttpClient,
        zip_path: &Path,
    ) -> Result<FetchedArchive, Error> {
        let Installing { address, config, progress, .. } = *self;
        match origin {
            ArchiveOrigin::LocalArchive { zip, mirror } => {
                progress.step(&format!("copying {} from the filesystem mirror", zip.display()));
                std::fs::copy(zip, zip_path).map_err(Error::io("cannot copy", zip))?;
                Ok(FetchedArchive {
                    acceptable_hashes: Vec::new(),
                    origin: format!("the filesystem mirror at {}", mirror.display()),
                    description: format!("from the filesystem mirror at {}", mirror.display()),
                })
            }
            ArchiveOrigin::NetworkMirror { base } => {
                let archive = mirror::archive(http, base, address, version, &config.platform).await?;
                progress.step(&format!("downloading {}", archive.url));
                http.download(&archive.url, zip_path, config.max_download_bytes, progress).await?;
                Ok(FetchedArchive {
                    acceptable_hashes: archive.hashes,
                    origin: format!("network mirror {base}"),
                    description: format!("from network mirror {base}"),
                })
            }
            ArchiveOrigin::Registry { base, .. } => {
                let meta = registry::package_meta(http, base, address, version, &config.platform).await?;
                if !meta.protocols.is_empty() && !registry::protocols_compatible(&meta.protocols) {
                    return Err(Error::IncompatibleProtocol {
                        address: address.clone(),
                        version: version.clone(),
                        protocols: meta.protocols,
                        suggestion: None,
                    });
                }
                progress.step(&format!("downloading {}", meta.download_url));
                let actual = http.download(&meta.download_url, zip_path, config.max_download_bytes, progress).await?;
                if actual != meta.shasum {
                    return Err(Error::ChecksumMismatch {
                        what: format!("{} from {}", meta.filename, meta.download_url),
                        expected: meta.shasum,
                        actual,
                    });
                }
                let shasums = fetch_document(http, &meta.shasums_url).await?;
                let signature = fetch_document(http, &meta.shasums_signature_url).await?;
                let authentication = if meta.signing_keys.is_empty() {
                    if config.allow_unsigned_from_default_registry && address.hostname == DEFAULT_REGISTRY_HOST {
                        progress.step(&format!(
                            "skipping signature verification of {} {version}: the registry provided no signing keys",
                            address.short_name()
                        ));
                        Authentication::Unsigned
                    } else {
                        return Err(Error::MissingSigningKeys { address: address.clone(), version: version.clone() });
                    }
                } else {
                    verify_signature(&shasums, &signature, meta.shasums_signature_url.as_str(), &meta.signing_keys)?
                };
                check_shasums_lists(&shasums, meta.shasums_url.as_str(), &meta.filename, &meta.shasum)?;
                let signed = match &authentication {
                    Authentication::SignedBy(key_id) => format!("signed by key {key_id}"),
                    Authentication::Unsigned => "unsigned".to_owned(),
                };
                progress.step(&format!("verified {} ({signed})", meta.filename));
                Ok(FetchedArchive {
                    acceptable_hashes: meta.hashes,
                    origin: format!("registry {}", address.hostname),
                    description: format!("from registry {} ({signed})", address.hostname),
                })
            }
        }
    }

    /// Whether a package with `actual` hashes matches the lock file's entry, if any.
    fn check_locked_hashes(&self, version: &Version, origin: &str, actual: &[String]) -> Result<(), Error> {
        let Installing { address, locked, .. } = *self;
        let Some(locked) = locked.filter(|locked| !locked.hashes.is_empty()) else { return Ok(()) };
        if matches_any_hash(actual, &locked.hashes) {
            return Ok(());
        }
        Err(Error::LockedHashMismatch {
            address: address.clone(),
            version: version.clone(),
            origin: origin.to_owned(),
            lock_file: locked.lock_file.clone(),
            locked: locked.hashes.clone(),
            actual: actual.to_vec(),
        })
    }
}

/// Where a version unpacks in our cache, while we hold the provider lock.
struct LockedPackage {
    final_dir: PathBuf,
    /// The executable, when the version is already there.
    installed: Option<PathBuf>,
    _lock: ProviderLock,
}

/// Runs file work (extracting, copying, hashing) off the runtime's threads. A task that
/// dies is reported as an I/O failure on `path`.
async fn off_runtime<T: Send + 'static>(
    action: &'static str,
    path: &Path,
    work: impl FnOnce() -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    tokio::task::spawn_blocking(work).await.map_err(|error| Error::Io {
        action,
        path: path.to_owned(),
        source: std::io::Error::other(error.to_string()),
    })?
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

/// Copies a directory tree, following symbolic links (a mirror may link to the real files)
/// and keeping permission bits, so executables stay executable.
fn copy_dir(from: &Path, to: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(to).map_err(Error::io("cannot create directory", to))?;
    for entry in std::fs::read_dir(from).map_err(Error::io("cannot read directory", from))? {
        let entry = entry.map_err(Error::io("cannot read directory", from))?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if source.is_dir() {
            copy_dir(&source, &target)?;
        } else {
            std::fs::copy(&source, &target).map_err(Error::io("cannot copy", &source))?;
        }
    }
    Ok(())
}

struct FetchedArchive {
    /// Hashes the package must match one of (network mirrors, OpenTofu's registry); empty when
    /// the source lists none.
    acceptable_hashes: Vec<String>,
    /// Short origin for error messages, e.g. `network mirror https://...`.
    origin: String,
    /// How the final description continues after "namespace/type version".
    description: String,
}

async fn fetch_document(http: &HttpClient, url: &Url) -> Result<Vec<u8>, Error> {
    let response = http.get_small(url, "*/*", SMALL_DOCUMENT_LIMIT).await?;
    response.require_ok(http)?;
    Ok(response.body)
}
