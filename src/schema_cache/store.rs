//! The cache directory: reading an entry, writing one atomically, keeping the directory
//! under its size bound.
//!
//! Concurrent processes need no lock. An entry is written to a temporary file in the same
//! directory and renamed over its name, so a reader sees a whole old entry or a whole new
//! one; entries are never changed in place. Two processes that miss at once both write and
//! the last rename wins; both entries are correct. A reader that has opened an entry keeps
//! reading it even if another process evicts it meanwhile.
//!
//! Every failure here is a miss or a skipped write with a debug line: the cache only ever
//! saves time, it never fails a run.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use schema_gen::tf::ProviderSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::entry::{self, EncodeError, EntryProblem};
use super::key::{CacheKey, PACKAGE_SUFFIX, TEMP_PREFIX};
use super::lazy::LazySchema;

/// A temporary file this old was left by a process that died mid-write.
const STALE_TEMP_AGE: Duration = Duration::from_secs(3600);

/// The cache directory and its bound.
#[derive(Clone, Debug)]
pub struct SchemaCache {
    pub dir: PathBuf,
    /// The directory is kept under this many bytes by evicting the least recently used
    /// entries after each write.
    pub max_bytes: u64,
}

/// Why an entry was not read, for the debug line.
#[derive(Debug, thiserror::Error)]
pub enum Miss {
    /// No entry for this key (the usual cold start).
    #[error("no entry")]
    Absent,
    /// The entry could not be read.
    #[error("cannot read {path}: {error}")]
    Io { path: PathBuf, error: std::io::Error },
    /// The entry was refused.
    #[error("ignoring {path}: {problem}")]
    Refused { path: PathBuf, problem: EntryProblem },
}

/// Why an entry was not written, for the debug line.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The directory or the file could not be written (read-only, full, ...).
    #[error("cannot write the schema cache in {dir}: {error}")]
    Io { dir: PathBuf, error: std::io::Error },
    /// The schema could not be serialized, or did not read back as itself.
    #[error("the schema cannot be cached: {0}")]
    Encode(EncodeError),
}

impl SchemaCache {
    /// The entry for `key`, verified.
    pub fn load<F: DeserializeOwned>(&self, key: &CacheKey) -> Result<(F, LazySchema), Miss> {
        let path = self.dir.join(key.file_name());
        let file = match std::fs::File::open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(Miss::Absent),
            Err(error) => return Err(Miss::Io { path, error }),
        };
        let mut opened: (F, LazySchema) =
            entry::decode(key, file).map_err(|problem| Miss::Refused { path: path.clone(), problem })?;
        opened.1.set_entry_path(path.clone());
        touch(&path);
        Ok(opened)
    }

    /// Writes the entry for `key` atomically, then evicts down to the bound. The entry is
    /// written only if it reads back as `schema`, so a model that does not round-trip
    /// through serde can never be served from the cache.
    pub fn store<F: Serialize>(&self, key: &CacheKey, facts: &F, schema: &ProviderSchema) -> Result<(), StoreError> {
        let bytes = entry::encode(key, facts, schema).map_err(StoreError::Encode)?;
        let (_, reread): (serde_json::Value, LazySchema) = entry::decode(key, bytes.clone())
            .map_err(|problem| StoreError::Encode(EncodeError::NoReadBack(problem)))?;
        if reread.whole().map_err(|error| StoreError::Encode(EncodeError::Reread(error)))? != schema {
            return Err(StoreError::Encode(EncodeError::NotEqual));
        }
        drop(reread);
        self.put(&key.file_name(), &bytes)
    }

    /// Writes `bytes` as the entry `name` atomically, then evicts down to the bound. Every
    /// kind of entry is written here.
    pub(super) fn put(&self, name: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let io = |error| StoreError::Io { dir: self.dir.clone(), error };
        std::fs::create_dir_all(&self.dir).map_err(io)?;
        match write_atomically(&self.dir, name, bytes) {
            Ok(()) => {}
            // Windows refuses to rename over a file another process has open without POSIX
            // rename semantics (older Windows, other file systems, Wine). The entry there has
            // the same name, so the same key, so the same contents: keep it.
            Err(error) if error.kind() == std::io::ErrorKind::PermissionDenied && self.dir.join(name).is_file() => {
                tracing::debug!("schema cache: kept the entry another process holds open ({error})");
            }
            Err(error) => return Err(io(error)),
        }
        self.evict().map_err(io)
    }

    /// Removes the least recently used entries until the directory is under its bound,
    /// and temporary files left by dead writers.
    pub fn evict(&self) -> std::io::Result<()> {
        let mut files = Vec::new();
        for dir_entry in std::fs::read_dir(&self.dir)? {
            let dir_entry = dir_entry?;
            let Ok(metadata) = dir_entry.metadata() else { continue };
            if !metadata.is_file() {
                continue;
            }
            files.push(CacheFile {
                name: dir_entry.file_name().to_string_lossy().into_owned(),
                size: metadata.len(),
                modified: metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            });
        }
        for name in evictions(files, self.max_bytes, SystemTime::now()) {
            let path = self.dir.join(&name);
            match std::fs::remove_file(&path) {
                Ok(()) => tracing::debug!("schema cache: evicted {}", path.display()),
                // Another process may have evicted it first.
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
                Err(err) => return Err(err),
            }
        }
        Ok(())
    }
}

/// Marks an entry recently used, for eviction. A read-only directory simply keeps the old
/// time.
pub(super) fn touch(path: &Path) {
    let _ = std::fs::File::options().write(true).open(path).and_then(|f| f.set_modified(SystemTime::now()));
}

/// Writes `bytes` as `dir/name` through a temporary file and a rename.
pub(super) fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let mut temp = tempfile::Builder::new().prefix(TEMP_PREFIX).tempfile_in(dir)?;
    // Flushed to disk before the rename, so a crash cannot leave an empty entry under the
    // final name. A failed write (a full disk) drops the temporary file.
    temp.as_file_mut().write_all(bytes)?;
    temp.as_file_mut().sync_data()?;
    // std's rename, not tempfile's persist: on Windows std asks for POSIX semantics
    // (FILE_RENAME_FLAG_POSIX_SEMANTICS), so an entry a reader holds open is replaced as on
    // Unix, where persist's MoveFileEx is refused.
    let temp = temp.into_temp_path();
    std::fs::rename(&temp, dir.join(name))?;
    // Renamed away: nothing is left for the guard to delete.
    let _ = temp.keep();
    Ok(())
}

/// A file in the cache directory, as eviction sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct CacheFile {
    pub name: String,
    pub size: u64,
    pub modified: SystemTime,
}

/// Which files to delete: temporary files older than [`STALE_TEMP_AGE`], then the least
/// recently used entries until the rest fits in `max_bytes`. Files that are neither entries
/// nor our temporary files are not ours and are left alone.
pub(super) fn evictions(mut files: Vec<CacheFile>, max_bytes: u64, now: SystemTime) -> Vec<String> {
    let mut evict = Vec::new();
    files.retain(|file| {
        if file.name.starts_with(TEMP_PREFIX) {
            let age = now.duration_since(file.modified).unwrap_or_default();
            if age > STALE_TEMP_AGE {
                evict.push(file.name.clone());
            }
            return false;
        }
        file.name.ends_with(".schema") || file.name.ends_with(PACKAGE_SUFFIX)
    });
    // Newest first; ties by name so the decision is deterministic.
    files.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.name.cmp(&b.name)));
    let mut kept = 0u64;
    for file in files {
        if kept.saturating_add(file.size) <= max_bytes {
            kept += file.size;
        } else {
            evict.push(file.name);
        }
    }
    evict
}
