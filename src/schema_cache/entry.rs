//! One cache entry as bytes: what is written, and what reading it accepts.
//!
//! Layout: the magic line, a little-endian `u32` header length, the header (JSON), then the
//! payload. The payload is three JSON texts back to back: the start-up facts, the index, and
//! the provider schema document. The header names the key the entry answers, the lengths of
//! the three parts, and the SHA-256 of the whole payload, so a truncated, corrupt or foreign
//! entry is refused before any of it is believed.
//!
//! The document is the serde form of the whole [`ProviderSchema`], so a field added to the
//! model is cached with no change here. The index gives, for the sections whose items are
//! [`Schema`]s (resources, data sources, ...), the byte range of each item inside the
//! document, which is what lets [`LazySchema`] decode one resource type without the others.
//! Everything else in the document (the provider block, functions, future sections) is kept
//! again, small, as the "eager" part, decoded at once.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;

use aws_lc_rs::digest;
use schema_gen::tf::ProviderSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::key::{CacheKey, FORMAT_VERSION};
use super::lazy::{LAZY_SECTIONS, LazySchema, LazySchemaError, Source};

/// The first bytes of every entry.
pub const MAGIC: &[u8] = b"tfbridge-schema-cache\n";

/// Why an entry was not used. Each is a miss with a debug line, never an error.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EntryProblem {
    /// The file does not start with the magic line: not an entry, or overwritten.
    #[error("not a schema cache entry (bad magic)")]
    BadMagic,
    /// The file ends before the lengths it declares.
    #[error("truncated: {0}")]
    Truncated(&'static str),
    /// The header is not what this version writes.
    #[error("unreadable header: {0}")]
    BadHeader(String),
    /// Written by another format version of the bridge.
    #[error("written in format {found}, this bridge reads format {FORMAT_VERSION}")]
    OtherFormat { found: u32 },
    /// Written for another key: another build of the bridge, or the binary changed.
    #[error("written for another key (another bridge build, or the provider binary changed)")]
    OtherKey,
    /// The payload's SHA-256 differs from the header's.
    #[error("checksum mismatch: the entry is corrupt")]
    Checksum,
    /// The entry file could not be read.
    #[error("unreadable: {0}")]
    Unreadable(String),
    /// The payload checks out but does not decode (it was not written by this build).
    #[error("payload does not decode: {0}")]
    Payload(String),
}

#[derive(Serialize, Deserialize)]
struct Header {
    format: u32,
    key: CacheKey,
    facts_len: usize,
    index_len: usize,
    document_len: usize,
    /// Lowercase hex SHA-256 of the payload.
    sha256: String,
}

/// For each lazy section (`resource_schemas`, ...), each item's byte range in the document.
#[derive(Serialize, Deserialize, Default)]
struct Index {
    eager_len: usize,
    sections: BTreeMap<String, BTreeMap<String, (usize, usize)>>,
}

/// Why a schema cannot be written as an entry: its model does not serialize, or does not
/// read back as itself. The store skips the write (a debug line).
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// A part of the entry does not serialize.
    #[error("{0}")]
    Serialize(serde_json::Error),
    /// The serialized schema does not parse back as a JSON object.
    #[error("document does not parse: {0}")]
    Document(serde_json::Error),
    /// One of its lazy sections does not parse back as a JSON object.
    #[error("section {name} does not parse: {error}")]
    Section { name: String, error: serde_json::Error },
    /// The header does not fit its 32-bit length.
    #[error("header too long")]
    HeaderTooLong,
    /// The encoded entry is refused by the reader.
    #[error("the entry does not read back: {0}")]
    NoReadBack(EntryProblem),
    /// The encoded entry does not decode as a schema.
    #[error("{0}")]
    Reread(LazySchemaError),
    /// The encoded entry decodes as another schema.
    #[error("the schema does not read back equal")]
    NotEqual,
}

/// Encodes an entry for `key`. `facts` is what start-up learned besides the schema.
pub fn encode<F: Serialize>(key: &CacheKey, facts: &F, schema: &ProviderSchema) -> Result<Vec<u8>, EncodeError> {
    let document = serde_json::to_vec(schema).map_err(EncodeError::Serialize)?;
    // Find each item of the lazy sections by where serde_json's borrowed parse lands in
    // the document we just wrote; the eager part is the document without those sections.
    let top: BTreeMap<&str, &RawValue> = serde_json::from_slice(&document).map_err(EncodeError::Document)?;
    let mut index = Index::default();
    let mut eager: BTreeMap<&str, &RawValue> = BTreeMap::new();
    for (name, raw) in &top {
        if !LAZY_SECTIONS.contains(name) {
            eager.insert(name, raw);
            continue;
        }
        let items: BTreeMap<&str, &RawValue> = serde_json::from_str(raw.get())
            .map_err(|error| EncodeError::Section { name: (*name).to_owned(), error })?;
        let ranges = items
            .into_iter()
            .map(|(item, raw)| {
                let start = raw.get().as_ptr() as usize - document.as_ptr() as usize;
                (item.to_owned(), (start, start + raw.get().len()))
            })
            .collect();
        index.sections.insert((*name).to_owned(), ranges);
    }
    let eager = serde_json::to_vec(&eager).map_err(EncodeError::Serialize)?;
    index.eager_len = eager.len();
    let facts = serde_json::to_vec(facts).map_err(EncodeError::Serialize)?;
    let index_json = serde_json::to_vec(&index).map_err(EncodeError::Serialize)?;

    let mut payload = Vec::with_capacity(facts.len() + index_json.len() + eager.len() + document.len());
    payload.extend_from_slice(&facts);
    payload.extend_from_slice(&index_json);
    payload.extend_from_slice(&eager);
    payload.extend_from_slice(&document);
    let header = Header {
        format: FORMAT_VERSION,
        key: key.clone(),
        facts_len: facts.len(),
        index_len: index_json.len(),
        // The eager part travels with the document: its length is in the index.
        document_len: eager.len() + document.len(),
        sha256: sha256_hex(&payload),
    };
    let header = serde_json::to_vec(&header).map_err(EncodeError::Serialize)?;
    let header_len = u32::try_from(header.len()).map_err(|_| EncodeError::HeaderTooLong)?;
    let mut bytes = Vec::with_capacity(MAGIC.len() + 4 + header.len() + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&header_len.to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&payload);
    Ok(bytes)
}

/// How much of an entry is hashed at a time: a file's payload is verified chunk by chunk.
const HASH_CHUNK: usize = 1 << 20;

/// Verifies and opens the entry in `source` for `key`: the facts now, the schema lazily.
/// Only the header, the facts, the index and the eager part are read whole; the document is
/// hashed a chunk at a time and then left where it is.
pub fn decode<F: DeserializeOwned>(key: &CacheKey, source: impl Into<Source>) -> Result<(F, LazySchema), EntryProblem> {
    let source = source.into();
    let total = source.byte_len().map_err(unreadable)?;
    let (header, payload_start) = verify(&source, total, key)?;
    let read = |range: Range<usize>, what: &'static str| read_part(&source, total, range, what);
    let payload_err = |what: &str, e: serde_json::Error| EntryProblem::Payload(format!("{what}: {e}"));
    let facts_end = payload_start + header.facts_len;
    let facts: F =
        serde_json::from_slice(&read(payload_start..facts_end, "facts")?).map_err(|e| payload_err("facts", e))?;
    let index_end = facts_end + header.index_len;
    let index: Index =
        serde_json::from_slice(&read(facts_end..index_end, "index")?).map_err(|e| payload_err("index", e))?;
    let eager_end = index_end.checked_add(index.eager_len).filter(|end| *end <= total);
    let eager_end = eager_end.ok_or(EntryProblem::Payload("eager part out of range".to_owned()))?;
    let eager: ProviderSchema =
        serde_json::from_slice(&read(index_end..eager_end, "eager part")?).map_err(|e| payload_err("eager part", e))?;
    let document_start = eager_end;
    let document_len = total - document_start;
    let mut sections: BTreeMap<String, BTreeMap<String, Range<usize>>> = BTreeMap::new();
    for (section, items) in index.sections {
        let mut ranges = BTreeMap::new();
        for (item, (start, end)) in items {
            if start > end || end > document_len {
                return Err(EntryProblem::Payload(format!("{section}.{item}: range out of the document")));
            }
            ranges.insert(item, start..end);
        }
        sections.insert(section, ranges);
    }
    let schema = LazySchema::cached(eager, source, document_start, sections)
        .map_err(|error| EntryProblem::Payload(error.to_string()))?;
    Ok((facts, schema))
}

/// Checks everything but the payload's meaning: the magic line, the header (format, key,
/// lengths) and the payload's SHA-256. Answers the header and where the payload starts.
fn verify(source: &Source, total: usize, key: &CacheKey) -> Result<(Header, usize), EntryProblem> {
    let read = |range: Range<usize>, what: &'static str| read_part(source, total, range, what);
    if *read(0..MAGIC.len().min(total), "magic")? != *MAGIC {
        return Err(EntryProblem::BadMagic);
    }
    let len = read(MAGIC.len()..MAGIC.len() + 4, "header length")?;
    let header_len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    let header_start = MAGIC.len() + 4;
    let header: Header = serde_json::from_slice(&read(header_start..header_start + header_len, "header")?)
        .map_err(|e| EntryProblem::BadHeader(e.to_string()))?;
    if header.format != FORMAT_VERSION {
        return Err(EntryProblem::OtherFormat { found: header.format });
    }
    if header.key != *key {
        return Err(EntryProblem::OtherKey);
    }
    let payload_start = header_start + header_len;
    let expected_len = header
        .facts_len
        .checked_add(header.index_len)
        .and_then(|n| n.checked_add(header.document_len))
        .ok_or(EntryProblem::BadHeader("lengths overflow".to_owned()))?;
    let payload_len = total - payload_start;
    if payload_len < expected_len {
        return Err(EntryProblem::Truncated("payload"));
    }
    if payload_len > expected_len {
        return Err(EntryProblem::BadHeader("payload longer than declared".to_owned()));
    }
    let mut digest = digest::Context::new(&digest::SHA256);
    for chunk_start in (payload_start..total).step_by(HASH_CHUNK) {
        digest.update(&read(chunk_start..total.min(chunk_start + HASH_CHUNK), "payload")?);
    }
    if hex(digest.finish().as_ref()) != header.sha256 {
        return Err(EntryProblem::Checksum);
    }
    Ok((header, payload_start))
}

/// The entry's bytes in `range`; `what` names the part for the error when the entry ends
/// before it.
fn read_part<'s>(
    source: &'s Source,
    total: usize,
    range: Range<usize>,
    what: &'static str,
) -> Result<Cow<'s, [u8]>, EntryProblem> {
    if range.end > total {
        return Err(EntryProblem::Truncated(what));
    }
    source.read(range).map_err(unreadable)
}

fn unreadable(error: std::io::Error) -> EntryProblem {
    EntryProblem::Unreadable(error.to_string())
}

pub(super) fn sha256_hex(bytes: &[u8]) -> String {
    hex(digest::digest(&digest::SHA256, bytes).as_ref())
}

pub(super) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
