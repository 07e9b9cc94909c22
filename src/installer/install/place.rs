//! Placing one chosen version in our cache: under the provider lock, an archive fetched
//! (or found), authenticated, checked against the lock file's hashes, extracted into a
//! staging directory and renamed into place, or a mirror's unpacked package copied. Which
//! version, and from where, is [`super`]'s to decide.

use std::path::{Path, PathBuf};

use semver::Version;
use url::Url;

use super::{ArchiveOrigin, Installing, SMALL_DOCUMENT_LIMIT, UnpackedOrigin};
use crate::installer::address::DEFAULT_REGISTRY_HOST;
use crate::installer::archive::{extract_zip, make_executable};
use crate::installer::cache::{ProviderLock, Staging, lock_provider};
use crate::installer::error::Error;
use crate::installer::filesystem::{find_executable, unpacked_package_dir};
use crate::installer::hash::{directory_hash1, zip_hash};
use crate::installer::http::HttpClient;
use crate::installer::verify::{Authentication, check_shasums_lists, matches_any_hash, verify_signature};
use crate::installer::{InstalledProvider, mirror, registry};

impl Installing<'_> {
    /// Brings the archive of `version` into our cache: under the provider lock, into a staging
    /// directory, verified, extracted, then renamed into place.
    pub(super) async fn install_archive(
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
    pub(super) async fn install_unpacked(
        &self,
        version: &Version,
        origin: &UnpackedOrigin,
    ) -> Result<InstalledProvider, Error> {
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
