//! Safe extraction of provider zip archives. Archives come from the network, so extraction
//! refuses entries that would land outside the target directory, symlinks, absurd entry
//! counts, and entries larger than the limits, and it enforces the limits on the bytes actually
//! decompressed, not only on the sizes the headers claim.
//!
//! Architecture invariant: never writes outside the directory it is given; knows nothing about
//! providers beyond zip files.

use std::io::{Read, Write};
use std::path::Path;

use super::error::Error;

/// Bounds on what one provider archive may contain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArchiveLimits {
    /// Largest uncompressed size of a single entry.
    pub max_entry_bytes: u64,
    /// Largest uncompressed size of all entries together.
    pub max_total_bytes: u64,
    /// Largest number of entries (files and directories).
    pub max_entries: usize,
}

impl ArchiveLimits {
    /// Generous limits: the largest providers today are well under 1 GiB uncompressed.
    pub const DEFAULT: ArchiveLimits =
        ArchiveLimits { max_entry_bytes: 4 << 30, max_total_bytes: 8 << 30, max_entries: 10_000 };
}

/// Extracts `zip_path` into the existing, empty directory `dest`. On error `dest` may hold a
/// partial extraction; the caller owns its cleanup (it is always a staging directory).
pub(crate) fn extract_zip(zip_path: &Path, dest: &Path, limits: ArchiveLimits) -> Result<(), Error> {
    let unsafe_archive = |reason: String| Error::UnsafeArchive { archive: zip_path.to_owned(), reason };
    let file = std::fs::File::open(zip_path).map_err(Error::io("cannot open", zip_path))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|error| unsafe_archive(format!("not a zip file: {error}")))?;
    if archive.len() > limits.max_entries {
        return Err(unsafe_archive(format!(
            "{} entries, more than the limit of {}",
            archive.len(),
            limits.max_entries
        )));
    }
    let mut total_bytes: u64 = 0;
    for entry_idx in 0..archive.len() {
        let mut entry = archive.by_index(entry_idx).map_err(|error| unsafe_archive(error.to_string()))?;
        let name = entry.name().map_err(|error| unsafe_archive(error.to_string()))?.into_owned();
        let Some(relative) = entry.enclosed_name() else {
            return Err(unsafe_archive(format!("entry {name:?} would be written outside the target directory")));
        };
        let mode = entry.unix_mode();
        if entry.is_symlink() || mode.is_some_and(|mode| mode & 0o170000 == 0o120000) {
            return Err(unsafe_archive(format!(
                "entry {name:?} is a symbolic link, which provider packages never need"
            )));
        }
        let target = dest.join(&relative);
        if entry.is_dir() {
            std::fs::create_dir_all(&target).map_err(Error::io("cannot create directory", &target))?;
            continue;
        }
        if entry.size() > limits.max_entry_bytes {
            return Err(unsafe_archive(format!(
                "entry {name:?} claims {} bytes, more than the limit of {}",
                entry.size(),
                limits.max_entry_bytes
            )));
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(Error::io("cannot create directory", parent))?;
        }
        let mut output = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .map_err(Error::io("cannot create", &target))?;
        // The header's size may lie, so the limit is enforced on the decompressed stream too.
        let budget = limits.max_entry_bytes.min(limits.max_total_bytes - total_bytes);
        let mut limited = (&mut entry).take(budget + 1);
        let mut buffer = vec![0u8; 64 * 1024];
        let mut n_written: u64 = 0;
        loop {
            let n_read =
                limited.read(&mut buffer).map_err(|error| unsafe_archive(format!("entry {name:?}: {error}")))?;
            if n_read == 0 {
                break;
            }
            n_written += n_read as u64;
            if n_written > budget {
                return Err(unsafe_archive(format!(
                    "entry {name:?} decompresses to more than {budget} bytes (entry limit {}, total limit {})",
                    limits.max_entry_bytes, limits.max_total_bytes
                )));
            }
            output.write_all(&buffer[..n_read]).map_err(Error::io("cannot write", &target))?;
        }
        total_bytes += n_written;
        set_permissions(&target, mode)?;
    }
    Ok(())
}

#[cfg(unix)]
fn set_permissions(path: &Path, mode: Option<u32>) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    // Only the permission bits are kept: no setuid/setgid/sticky from an archive.
    let bits = mode.map_or(0o644, |mode| mode & 0o777) | 0o600;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(bits))
        .map_err(Error::io("cannot set permissions on", path))
}

#[cfg(not(unix))]
fn set_permissions(_path: &Path, _mode: Option<u32>) -> Result<(), Error> {
    Ok(())
}

/// Makes sure the provider executable can be executed even when the archive recorded no mode.
#[cfg(unix)]
pub(crate) fn make_executable(path: &Path) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = std::fs::metadata(path).map_err(Error::io("cannot inspect", path))?;
    let mode = metadata.permissions().mode();
    if mode & 0o111 != 0o111 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode | 0o755))
            .map_err(Error::io("cannot set permissions on", path))?;
    }
    Ok(())
}

#[cfg(not(unix))]
pub(crate) fn make_executable(_path: &Path) -> Result<(), Error> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use proptest::prelude::*;

    use super::*;

    fn zip_with_names(names: &[String]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for name in names {
            // The writer refuses some names (duplicates); the archive is simply built without them.
            if writer.start_file(name.as_str(), zip::write::SimpleFileOptions::default()).is_ok() {
                writer.write_all(b"content").unwrap();
            }
        }
        writer.finish().unwrap().into_inner()
    }

    /// Every regular file under `root`, relative to it.
    fn files_under(root: &Path) -> Vec<String> {
        let mut found = Vec::new();
        let mut pending = vec![root.to_owned()];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                if entry.path().is_dir() {
                    pending.push(entry.path());
                } else {
                    // With `/` on every system, so the checks below read the same.
                    found.push(entry.path().strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/"));
                }
            }
        }
        found
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever the entry names, extraction either fails or writes only below `dest`.
        #[test]
        fn nothing_lands_outside_the_target(
            names in proptest::collection::vec(
                proptest::collection::vec(prop_oneof!["\\.\\.", "\\.", "a", "b", "", "C:", "\\\\"], 1..5)
                    .prop_map(|parts| parts.join("/")),
                1..4,
            )
        ) {
            let temp = tempfile::tempdir().unwrap();
            let zip_path = temp.path().join("p.zip");
            std::fs::write(&zip_path, zip_with_names(&names)).unwrap();
            let dest = temp.path().join("deep").join("dest");
            std::fs::create_dir_all(&dest).unwrap();
            let _ = extract_zip(&zip_path, &dest, ArchiveLimits::DEFAULT);
            let outside: Vec<String> = files_under(temp.path())
                .into_iter()
                .filter(|file| file != "p.zip" && !file.starts_with("deep/dest/"))
                .collect();
            prop_assert!(outside.is_empty(), "{names:?} wrote {outside:?}");
        }
    }

    #[test]
    fn limits_on_entry_count_and_total_size() {
        let temp = tempfile::tempdir().unwrap();
        let zip_path = temp.path().join("p.zip");
        let names: Vec<String> = (0..5).map(|idx| format!("file{idx}")).collect();
        std::fs::write(&zip_path, zip_with_names(&names)).unwrap();
        let check = |limits: ArchiveLimits| {
            let dest = tempfile::tempdir().unwrap();
            extract_zip(&zip_path, dest.path(), limits)
                .map_err(|error| error.to_string().replace(&zip_path.display().to_string(), "ZIP"))
        };
        assert_eq!(
            check(ArchiveLimits { max_entries: 4, ..ArchiveLimits::DEFAULT }),
            Err("unsafe or malformed provider archive ZIP: 5 entries, more than the limit of 4".to_owned())
        );
        // Five entries of seven bytes each: the fifth crosses a 30-byte total.
        assert_eq!(
            check(ArchiveLimits { max_total_bytes: 30, ..ArchiveLimits::DEFAULT }),
            Err("unsafe or malformed provider archive ZIP: entry \"file4\" decompresses to more than 2 bytes (entry limit 4294967296, total limit 30)".to_owned())
        );
        assert_eq!(check(ArchiveLimits::DEFAULT), Ok(()));
    }
}
