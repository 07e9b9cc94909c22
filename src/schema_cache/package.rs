//! The translated package: the Pulumi package schema GetSchema answers, kept beside the
//! provider schema it was translated from, so a warm GetSchema neither translates nor waits
//! for the provider.
//!
//! The translation depends on the provider schema (the binary, so the [`CacheKey`]) and on
//! what the request asked: the package name, version, parameter value, token filters and the
//! plugin's version. The caller hashes all of those into the entry's `inputs`; the file name
//! holds the key's digest and the inputs' digest, so one binary may have several packages
//! (two `--provider-name`s, two announced versions) and a changed binary or a new plugin
//! build never finds another's.
//!
//! Layout: the magic line, a little-endian `u32` header length, the header (JSON: format,
//! key, inputs, length and SHA-256 of the payload), then the payload, the schema's JSON as
//! GetSchema sends it. A truncated, corrupt or foreign entry is a miss.

use std::path::PathBuf;

use aws_lc_rs::digest;
use serde::{Deserialize, Serialize};

use super::entry::{EntryProblem, hex, sha256_hex};
use super::key::{CacheKey, FORMAT_VERSION, PACKAGE_SUFFIX};
use super::store::{Miss, SchemaCache, StoreError, touch};

/// The first bytes of every package entry.
pub const PACKAGE_MAGIC: &[u8] = b"tfbridge-package-cache\n";

#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    key: CacheKey,
    inputs: String,
    len: usize,
    /// Lowercase hex SHA-256 of the payload.
    sha256: String,
}

/// The digest that names what a translation depends on besides the binary: `inputs` is
/// anything serializable (the caller's translation settings).
pub fn inputs_digest<T: Serialize>(inputs: &T) -> String {
    let json = serde_json::to_vec(inputs).unwrap_or_default();
    hex(&digest::digest(&digest::SHA256, &json).as_ref()[..16])
}

/// The package entry's file name for `key` and `inputs` (a digest from [`inputs_digest`]).
pub fn file_name(key: &CacheKey, inputs: &str) -> String {
    let schema_name = key.file_name();
    let stem = schema_name.strip_suffix(".schema").unwrap_or(&schema_name);
    format!("{stem}-{inputs}{PACKAGE_SUFFIX}")
}

/// Encodes the entry for `key` and `inputs` holding `schema_json`.
pub fn encode(key: &CacheKey, inputs: &str, schema_json: &str) -> Vec<u8> {
    let header = Header {
        format: FORMAT_VERSION,
        key: key.clone(),
        inputs: inputs.to_owned(),
        len: schema_json.len(),
        sha256: sha256_hex(schema_json.as_bytes()),
    };
    // A header of plain strings and numbers always serializes.
    let header = serde_json::to_vec(&header).unwrap_or_default();
    let header_len = u32::try_from(header.len()).unwrap_or(u32::MAX);
    let mut bytes = Vec::with_capacity(PACKAGE_MAGIC.len() + 4 + header.len() + schema_json.len());
    bytes.extend_from_slice(PACKAGE_MAGIC);
    bytes.extend_from_slice(&header_len.to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(schema_json.as_bytes());
    bytes
}

/// Verifies `bytes` as the entry for `key` and `inputs` and answers its schema JSON.
pub fn decode(key: &CacheKey, inputs: &str, mut bytes: Vec<u8>) -> Result<String, EntryProblem> {
    if !bytes.starts_with(PACKAGE_MAGIC) {
        return Err(EntryProblem::BadMagic);
    }
    let header_start = PACKAGE_MAGIC.len() + 4;
    let len = bytes.get(PACKAGE_MAGIC.len()..header_start).ok_or(EntryProblem::Truncated("header length"))?;
    let header_len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    let payload_start = header_start.checked_add(header_len).ok_or(EntryProblem::Truncated("header"))?;
    let header = bytes.get(header_start..payload_start).ok_or(EntryProblem::Truncated("header"))?;
    let header: Header = serde_json::from_slice(header).map_err(|e| EntryProblem::BadHeader(e.to_string()))?;
    if header.format != FORMAT_VERSION {
        return Err(EntryProblem::OtherFormat { found: header.format });
    }
    if header.key != *key || header.inputs != inputs {
        return Err(EntryProblem::OtherKey);
    }
    let payload_len = bytes.len() - payload_start;
    if payload_len < header.len {
        return Err(EntryProblem::Truncated("payload"));
    }
    if payload_len > header.len {
        return Err(EntryProblem::BadHeader("payload longer than declared".to_owned()));
    }
    if sha256_hex(&bytes[payload_start..]) != header.sha256 {
        return Err(EntryProblem::Checksum);
    }
    // The payload moves out of the buffer it was read into: no second copy of megabytes.
    bytes.drain(..payload_start);
    String::from_utf8(bytes).map_err(|e| EntryProblem::Payload(e.to_string()))
}

impl SchemaCache {
    /// The translated package for `key` and `inputs`, verified.
    pub fn load_package(&self, key: &CacheKey, inputs: &str) -> Result<String, Miss> {
        let path = self.package_path(key, inputs);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Err(Miss::Absent),
            Err(error) => return Err(Miss::Io { path, error }),
        };
        let schema = decode(key, inputs, bytes).map_err(|problem| Miss::Refused { path: path.clone(), problem })?;
        touch(&path);
        Ok(schema)
    }

    /// Writes the translated package for `key` and `inputs` atomically, then evicts down to
    /// the bound.
    pub fn store_package(&self, key: &CacheKey, inputs: &str, schema_json: &str) -> Result<(), StoreError> {
        self.put(&file_name(key, inputs), &encode(key, inputs, schema_json))
    }

    fn package_path(&self, key: &CacheKey, inputs: &str) -> PathBuf {
        self.dir.join(file_name(key, inputs))
    }
}
