//! Our own provider cache, in the Go implementation's unpacked layout
//! (`<cache>/<host>/<ns>/<type>/<version>/<os>_<arch>/terraform-provider-<type>...`), so a cache
//! it filled keeps working. Installs are staged in `<cache>/.staging/` and renamed into place,
//! so a package directory is either complete or absent; a per-provider file lock in
//! `<cache>/.locks/` serialises installs of the same provider across processes.
//!
//! Architecture invariant: the only module that lays out, commits or removes anything in the
//! cache (others only write inside a staging directory it hands out); it does not know where
//! packages come from.

use std::path::{Path, PathBuf};
use std::time::Duration;

use semver::Version;

use super::Progress;
use super::address::{Platform, ProviderAddress};
use super::error::Error;

/// An exclusive lock on one provider in one cache, released when dropped (the file is closed).
pub(crate) struct ProviderLock {
    _file: std::fs::File,
}

/// Takes the provider's install lock, waiting (without blocking the runtime) while another
/// process holds it. The lock files stay behind on purpose: deleting a lock file while another
/// process waits on it would let two processes hold "the" lock at once.
pub(crate) async fn lock_provider(
    cache_root: &Path,
    address: &ProviderAddress,
    progress: &dyn Progress,
) -> Result<ProviderLock, Error> {
    let lock_dir = cache_root.join(".locks").join(&address.hostname).join(&address.namespace);
    std::fs::create_dir_all(&lock_dir).map_err(Error::io("cannot create directory", &lock_dir))?;
    let lock_path = lock_dir.join(format!("{}.lock", address.type_name));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(&lock_path)
        .map_err(Error::io("cannot open lock file", &lock_path))?;
    let mut told_user = false;
    loop {
        match try_lock_exclusive(&file) {
            Ok(true) => return Ok(ProviderLock { _file: file }),
            Ok(false) => {
                if !told_user {
                    progress
                        .step(&format!("waiting for another process installing {address} ({})", lock_path.display()));
                    told_user = true;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(source) => return Err(Error::Io { action: "cannot lock", path: lock_path, source }),
        }
    }
}

/// `Ok(false)` while another process holds the lock. std's file lock is `flock` on Unix and
/// `LockFileEx` on Windows: both are released by the system when the holder dies, so a
/// crashed installer never leaves the provider locked.
fn try_lock_exclusive(file: &std::fs::File) -> std::io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(error)) => Err(error),
    }
}

/// A staging directory for one install, removed when dropped whatever happened.
pub(crate) struct Staging {
    dir: PathBuf,
}

impl Staging {
    /// Starts a fresh staging directory for this provider version. The caller holds the
    /// provider lock, so anything already there is the leftover of a crashed install.
    pub(crate) fn begin(
        cache_root: &Path,
        address: &ProviderAddress,
        version: &Version,
        platform: &Platform,
    ) -> Result<Staging, Error> {
        let dir = cache_root
            .join(".staging")
            .join(&address.hostname)
            .join(&address.namespace)
            .join(&address.type_name)
            .join(format!("{version}_{platform}"));
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(Error::io("cannot remove stale staging directory", &dir))?;
        }
        let package_dir = dir.join("package");
        std::fs::create_dir_all(&package_dir).map_err(Error::io("cannot create directory", &package_dir))?;
        Ok(Staging { dir })
    }

    /// Where the downloaded or copied zip goes.
    pub(crate) fn zip_path(&self) -> PathBuf {
        self.dir.join("package.zip")
    }

    /// Where the archive is extracted.
    pub(crate) fn package_dir(&self) -> PathBuf {
        self.dir.join("package")
    }

    /// Moves the extracted package to `final_dir`, replacing a broken leftover there.
    pub(crate) fn commit(self, final_dir: &Path) -> Result<(), Error> {
        if final_dir.exists() {
            std::fs::remove_dir_all(final_dir)
                .map_err(Error::io("cannot remove broken package directory", final_dir))?;
        }
        if let Some(parent) = final_dir.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io("cannot create directory", parent))?;
        }
        let package_dir = self.package_dir();
        std::fs::rename(&package_dir, final_dir).map_err(Error::io("cannot move package into place at", final_dir))?;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        // Best effort: a leftover is removed by the next install of the same version anyway.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
