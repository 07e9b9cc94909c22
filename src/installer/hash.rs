//! Terraform's package hash schemes: `zh:` (hex SHA-256 of the zip file, as listed in
//! SHA256SUMS) and `h1:` (Go's dirhash "Hash1": base64 SHA-256 over a summary of the files,
//! sorted by slash-separated relative name). `h1:` gives the same result for a zip and for the
//! directory it extracts to, which is what lets a lock file verify both.
//!
//! Architecture invariant: knows nothing about where a package came from or what it is for.

use std::path::{Path, PathBuf};

use aws_lc_rs::digest;
use base64::Engine;

use super::error::Error;

/// Streaming SHA-256. aws-lc-rs (already our TLS crypto) is used rather than a pure-Rust
/// hash because provider archives run to hundreds of megabytes and are hashed three times.
pub(crate) struct Sha256Hasher(digest::Context);

impl Sha256Hasher {
    pub(crate) fn new() -> Sha256Hasher {
        Sha256Hasher(digest::Context::new(&digest::SHA256))
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        self.0.finish().as_ref().to_vec()
    }
}

impl std::io::Write for Sha256Hasher {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.update(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Lowercase hex of a SHA-256 digest.
pub(crate) fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// SHA-256 of a whole file, as lowercase hex.
pub(crate) fn sha256_file(path: &Path) -> Result<String, Error> {
    let mut file = std::fs::File::open(path).map_err(Error::io("cannot open", path))?;
    let mut hasher = Sha256Hasher::new();
    std::io::copy(&mut file, &mut hasher).map_err(Error::io("cannot read", path))?;
    Ok(to_hex(&hasher.finish()))
}

/// `zh:` hash of a zip archive.
pub(crate) fn zip_hash(zip_path: &Path) -> Result<String, Error> {
    Ok(format!("zh:{}", sha256_file(zip_path)?))
}

/// A file name the `h1:` summary cannot hold: it has a newline.
#[derive(Debug, thiserror::Error)]
#[error("file name {name:?} contains a newline")]
struct NewlineInName {
    name: String,
}

/// Builds the `h1:` hash from `(relative name, content sha256 hex)` pairs.
fn hash1_from_summaries(mut files: Vec<(String, String)>) -> Result<String, NewlineInName> {
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let mut summary = Sha256Hasher::new();
    for (name, content_hex) in &files {
        if name.contains('\n') {
            return Err(NewlineInName { name: name.clone() });
        }
        summary.update(format!("{content_hex}  {name}\n").as_bytes());
    }
    Ok(format!("h1:{}", base64::engine::general_purpose::STANDARD.encode(summary.finish())))
}

/// `h1:` hash of an unpacked package directory. A symlinked package directory is resolved
/// first, as Terraform does.
pub(crate) fn directory_hash1(dir: &Path) -> Result<String, Error> {
    let root = std::fs::canonicalize(dir).map_err(Error::io("cannot resolve", dir))?;
    let mut files = Vec::new();
    let mut pending: Vec<PathBuf> = vec![root.clone()];
    while let Some(current) = pending.pop() {
        let entries = std::fs::read_dir(&current).map_err(Error::io("cannot list", &current))?;
        for entry in entries {
            let entry = entry.map_err(Error::io("cannot list", &current))?;
            let path = entry.path();
            let metadata = std::fs::metadata(&path).map_err(Error::io("cannot inspect", &path))?;
            if metadata.is_dir() {
                pending.push(path);
                continue;
            }
            let relative = path.strip_prefix(&root).unwrap_or(&path);
            let name: Vec<String> =
                relative.components().map(|component| component.as_os_str().to_string_lossy().into_owned()).collect();
            files.push((name.join("/"), sha256_file(&path)?));
        }
    }
    hash1_from_summaries(files)
        .map_err(|error| Error::UnsafeArchive { archive: dir.to_owned(), reason: error.to_string() })
}

/// `h1:` hash of a zip archive, computed over its entries without extracting them. Only the
/// tests need it, to show that it agrees with the hash of the extracted directory.
#[cfg(test)]
pub(crate) fn zip_hash1(zip_path: &Path) -> Result<String, Error> {
    let unsafe_archive = |reason: String| Error::UnsafeArchive { archive: zip_path.to_owned(), reason };
    let file = std::fs::File::open(zip_path).map_err(Error::io("cannot open", zip_path))?;
    use std::io::Read;
    let mut archive = zip::ZipArchive::new(file).map_err(|error| unsafe_archive(error.to_string()))?;
    let mut files = Vec::new();
    for entry_idx in 0..archive.len() {
        let mut entry = archive.by_index(entry_idx).map_err(|error| unsafe_archive(error.to_string()))?;
        if entry.is_dir() {
            continue;
        }
        let name = entry.name().map_err(|error| unsafe_archive(error.to_string()))?.into_owned();
        let mut hasher = Sha256Hasher::new();
        let mut buffer = [0u8; 64 * 1024];
        loop {
            let n_read = entry.read(&mut buffer).map_err(|error| unsafe_archive(format!("{name}: {error}")))?;
            if n_read == 0 {
                break;
            }
            hasher.update(&buffer[..n_read]);
        }
        files.push((name, to_hex(&hasher.finish())));
    }
    hash1_from_summaries(files).map_err(|error| unsafe_archive(error.to_string()))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use sha2::{Digest, Sha256};

    use super::*;

    #[test]
    fn zip_and_its_extraction_hash_alike() {
        let temp = tempfile::tempdir().unwrap();
        let zip_path = temp.path().join("p.zip");
        let mut writer = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
        let options = zip::write::SimpleFileOptions::default();
        writer.start_file("terraform-provider-x_v1.0.0", options).unwrap();
        writer.write_all(b"#!/bin/sh\necho hi\n").unwrap();
        writer.add_directory("docs/", options).unwrap();
        writer.start_file("docs/README", options).unwrap();
        writer.write_all(b"readme").unwrap();
        writer.finish().unwrap();

        let dir = temp.path().join("unpacked");
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        std::fs::write(dir.join("terraform-provider-x_v1.0.0"), b"#!/bin/sh\necho hi\n").unwrap();
        std::fs::write(dir.join("docs/README"), b"readme").unwrap();

        let from_zip = zip_hash1(&zip_path).unwrap();
        assert_eq!(from_zip, directory_hash1(&dir).unwrap());
        // The summary is "<sha256>  docs/README\n<sha256>  terraform-provider-x_v1.0.0\n".
        let expected_summary = format!(
            "{}  docs/README\n{}  terraform-provider-x_v1.0.0\n",
            to_hex(&Sha256::digest(b"readme")),
            to_hex(&Sha256::digest(b"#!/bin/sh\necho hi\n"))
        );
        let expected = format!(
            "h1:{}",
            base64::engine::general_purpose::STANDARD.encode(Sha256::digest(expected_summary.as_bytes()))
        );
        assert_eq!(from_zip, expected);
    }

    #[test]
    fn directory_hash1_golden_value() {
        // The two-file case of Go's dirhash tests; the value was computed outside this code base
        // (Python's hashlib over the same summary format).
        let temp = tempfile::tempdir().unwrap();
        std::fs::write(temp.path().join("xyz"), b"data for xyz").unwrap();
        std::fs::write(temp.path().join("abc"), b"data for abc").unwrap();
        assert_eq!(directory_hash1(temp.path()).unwrap(), "h1:EP6WfDoQTSk9klnxcjriWJOGztueJUywHNmWeq+efB8=");
    }

    #[test]
    fn hash1_of_nothing_is_the_hash_of_the_empty_summary() {
        // sha256("") in base64, the value Go's dirhash gives for an empty file list.
        assert_eq!(hash1_from_summaries(Vec::new()).unwrap(), "h1:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");
    }
}
