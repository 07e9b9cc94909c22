//! [`LazySchema`]: a provider schema whose resource types are decoded when first used.
//!
//! A schema fresh from GetProviderSchema is whole already. One read from the cache keeps
//! the serialized document and decodes, up front, only the small "eager" part (the provider
//! block, provider_meta, functions, and any section this module does not know) plus the
//! names of every resource, data source, ephemeral and list resource. Program start-up
//! (Parameterize, CheckConfig, Configure, then the resources the program declares) so never
//! decodes the hundreds of resource types it does not touch; only GetSchema (and anything
//! else that asks for the whole [`ProviderSchema`]) decodes all of it, once.
//!
//! [`LazySchema::whole`] gives the whole schema, and says so when a cache entry does not
//! decode ([`LazySchemaError`]) rather than panicking: reading it may take megabytes from
//! disk, so it is a call that can fail, never a deref. The hot paths use the item accessors
//! instead.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use schema_gen::tf::{Function, ProviderSchema, Schema};

/// The document sections whose items are [`Schema`]s decoded one at a time, by their serde
/// names. A section not listed here is decoded eagerly, which is always correct.
pub const LAZY_SECTIONS: &[&str] =
    &["resource_schemas", "data_source_schemas", "ephemeral_resource_schemas", "list_resource_schemas"];

/// Why a cached schema cannot be given whole, or a cache entry's index cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LazySchemaError {
    /// The entry file could not be read (removed from under us on a system without open
    /// file semantics, or an I/O error).
    #[error("reading the schema cache entry: {0}")]
    Read(#[source] std::io::Error),
    /// An entry that passed its checksum does not decode: forged, or written by a build
    /// whose model differs without the format version saying so.
    #[error(
        "the schema cache entry passed its checks but does not decode ({0}); it is removed, so the next run \
         asks the provider for its schema again"
    )]
    Decode(#[source] serde_json::Error),
    /// The entry's index names a section this build does not decode lazily.
    #[error("unknown lazy section {0}")]
    UnknownSection(String),
}

/// A provider schema, whole or decoded on demand.
pub struct LazySchema(Inner);

enum Inner {
    Whole(Arc<ProviderSchema>),
    Cached(Box<Cached>),
}

struct Cached {
    /// The eager part, with every lazy item present under its name as an empty default
    /// schema, so names can be listed; never handed out as the schema of an item.
    skeleton: ProviderSchema,
    /// Where the document is read from; it starts at `document_start` in there.
    source: Source,
    document_start: usize,
    sections: BTreeMap<String, BTreeMap<String, Slot>>,
    whole: OnceLock<ProviderSchema>,
    /// The entry's file, removed if a part of it does not decode: the next start then
    /// fetches the schema and writes the entry anew, instead of failing the same way.
    entry_path: Option<std::path::PathBuf>,
}

/// Where a cache entry's bytes are: in memory (an entry being written, read back), or the
/// entry file, read range by range, so that neither verifying an entry nor using it holds
/// its megabytes of types the program never uses. Entries are replaced by rename and never
/// changed in place, so an open file keeps the contents that were verified even if the entry
/// is evicted or rewritten meanwhile.
pub enum Source {
    Memory(Vec<u8>),
    File(std::fs::File),
}

impl From<Vec<u8>> for Source {
    fn from(bytes: Vec<u8>) -> Source {
        Source::Memory(bytes)
    }
}

impl From<std::fs::File> for Source {
    fn from(file: std::fs::File) -> Source {
        Source::File(file)
    }
}

impl Source {
    /// The entry's length in bytes.
    pub fn byte_len(&self) -> std::io::Result<usize> {
        match self {
            Source::Memory(bytes) => Ok(bytes.len()),
            Source::File(file) => usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other),
        }
    }

    /// The bytes in `range`; an error if the entry is shorter.
    pub fn read(&self, range: Range<usize>) -> std::io::Result<Cow<'_, [u8]>> {
        match self {
            Source::Memory(bytes) => bytes
                .get(range)
                .map(Cow::Borrowed)
                .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "range out of the entry")),
            Source::File(file) => {
                let mut buffer = vec![0; range.len()];
                read_exact_at(file, &mut buffer, range.start as u64)?;
                Ok(Cow::Owned(buffer))
            }
        }
    }
}

/// Fills `buffer` from `offset` without moving a shared cursor, so concurrent decodes of
/// one entry never disturb each other.
#[cfg(unix)]
fn read_exact_at(file: &std::fs::File, buffer: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buffer, offset)
}

/// Windows' positional read (`ReadFile` with an offset) may return fewer bytes than asked;
/// the loop is what `read_exact_at` does on Unix. It moves the file's cursor, which no
/// reader here uses.
#[cfg(windows)]
fn read_exact_at(file: &std::fs::File, mut buffer: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buffer.is_empty() {
        match file.seek_read(buffer, offset) {
            Ok(0) => return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "range out of the entry")),
            Ok(n) => {
                buffer = &mut buffer[n..];
                offset += n as u64;
            }
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

struct Slot {
    range: Range<usize>,
    decoded: OnceLock<Option<Schema>>,
}

impl LazySchema {
    /// A schema that is whole already (from GetProviderSchema).
    pub fn from_provider(schema: ProviderSchema) -> LazySchema {
        LazySchema(Inner::Whole(Arc::new(schema)))
    }

    /// A whole schema shared with another owner (the background cache write).
    pub fn shared(schema: Arc<ProviderSchema>) -> LazySchema {
        LazySchema(Inner::Whole(schema))
    }

    /// A cached schema: the decoded eager part, the document, and each lazy item's range in
    /// it. Fails when the index names a section this build does not decode lazily.
    pub(super) fn cached(
        mut skeleton: ProviderSchema,
        source: Source,
        document_start: usize,
        ranges: BTreeMap<String, BTreeMap<String, Range<usize>>>,
    ) -> Result<LazySchema, LazySchemaError> {
        let mut sections = BTreeMap::new();
        for (section, items) in ranges {
            let map =
                section_mut(&mut skeleton, &section).ok_or_else(|| LazySchemaError::UnknownSection(section.clone()))?;
            map.extend(items.keys().map(|name| (name.clone(), Schema::default())));
            let slots =
                items.into_iter().map(|(name, range)| (name, Slot { range, decoded: OnceLock::new() })).collect();
            sections.insert(section, slots);
        }
        Ok(LazySchema(Inner::Cached(Box::new(Cached {
            skeleton,
            source,
            document_start,
            sections,
            whole: OnceLock::new(),
            entry_path: None,
        }))))
    }

    /// Names the entry file this schema reads from (see `Cached::forget`).
    pub(super) fn set_entry_path(&mut self, path: std::path::PathBuf) {
        if let Inner::Cached(cached) = &mut self.0 {
            cached.entry_path = Some(path);
        }
    }

    /// Whether the whole schema has been decoded (always, for a schema from the provider).
    pub fn is_whole(&self) -> bool {
        match &self.0 {
            Inner::Whole(_) => true,
            Inner::Cached(cached) => cached.whole.get().is_some(),
        }
    }

    /// The provider's configuration schema.
    pub fn provider(&self) -> &Schema {
        &self.eager().provider
    }

    pub fn provider_meta(&self) -> Option<&Schema> {
        self.eager().provider_meta.as_ref()
    }

    /// An action's schema (actions are always decoded eagerly).
    pub fn action(&self, name: &str) -> Option<&Schema> {
        self.eager().actions.get(name)
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.eager().functions.get(name)
    }

    /// A resource type's schema, with the map's own copy of its name.
    pub fn resource(&self, name: &str) -> Option<(&str, &Schema)> {
        self.item("resource_schemas", name, |s| &s.resources)
    }

    pub fn data_source(&self, name: &str) -> Option<(&str, &Schema)> {
        self.item("data_source_schemas", name, |s| &s.data_sources)
    }

    pub fn ephemeral_resource(&self, name: &str) -> Option<(&str, &Schema)> {
        self.item("ephemeral_resource_schemas", name, |s| &s.ephemeral_resources)
    }

    pub fn list_resource(&self, name: &str) -> Option<(&str, &Schema)> {
        self.item("list_resource_schemas", name, |s| &s.list_resources)
    }

    /// The names of every item, with the eager parts filled in: enough for naming tokens,
    /// never for an item's schema.
    pub fn names(&self) -> &ProviderSchema {
        self.eager()
    }

    /// The whole schema, decoding it on first use (megabytes, for a large provider: only
    /// GetSchema and the mappings need it). `Err` only if the cache entry cannot be read
    /// again, or passed its checksum and still does not decode; the caller says so, since
    /// a cache entry is verified (checksum, format, the bridge build that wrote it) before
    /// it is used, and written only after it decoded back to the schema it holds.
    pub fn whole(&self) -> Result<&ProviderSchema, LazySchemaError> {
        match &self.0 {
            Inner::Whole(schema) => Ok(schema),
            Inner::Cached(cached) => {
                if let Some(whole) = cached.whole.get() {
                    return Ok(whole);
                }
                tracing::debug!("schema cache: decoding the whole schema");
                let document = cached.read(None).map_err(LazySchemaError::Read)?;
                let decoded: ProviderSchema = serde_json::from_slice(&document)
                    .map_err(LazySchemaError::Decode)
                    .inspect_err(|_| cached.forget())?;
                Ok(cached.whole.get_or_init(|| decoded))
            }
        }
    }

    fn eager(&self) -> &ProviderSchema {
        match &self.0 {
            Inner::Whole(schema) => schema,
            Inner::Cached(cached) => &cached.skeleton,
        }
    }

    fn item<'s>(
        &'s self,
        section: &str,
        name: &str,
        field: impl Fn(&ProviderSchema) -> &BTreeMap<String, Schema>,
    ) -> Option<(&'s str, &'s Schema)> {
        let cached = match &self.0 {
            Inner::Whole(schema) => return field(schema).get_key_value(name).map(|(k, v)| (k.as_str(), v)),
            Inner::Cached(cached) => cached,
        };
        if let Some(whole) = cached.whole.get() {
            return field(whole).get_key_value(name).map(|(k, v)| (k.as_str(), v));
        }
        let (key, slot) = cached.sections.get(section)?.get_key_value(name)?;
        let decoded = slot.decoded.get_or_init(|| {
            let bytes = cached
                .read(Some(slot.range.clone()))
                .inspect_err(|err| tracing::error!("schema cache: reading {section}.{name}: {err}"))
                .ok()?;
            serde_json::from_slice(&bytes)
                .inspect_err(|err| {
                    tracing::error!("schema cache: {section}.{name} does not decode ({err}); removing the entry");
                    cached.forget();
                })
                .ok()
        });
        decoded.as_ref().map(|schema| (key.as_str(), schema))
    }
}

impl Cached {
    /// Removes the entry file after a part of it did not decode. What was read stays usable
    /// (an open file keeps its contents); the next start misses and rebuilds the entry.
    ///
    /// Renamed away first: Windows keeps the name of a file that is still open (this schema
    /// holds it) until the last handle closes, so a plain delete would leave the entry in
    /// place for the next start. The renamed file carries the temporary prefix, so eviction
    /// removes it if the delete cannot.
    fn forget(&self) {
        let Some(path) = &self.entry_path else { return };
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let doomed = path.with_file_name(format!("{}removed-{name}", super::key::TEMP_PREFIX));
        let removed = std::fs::rename(path, &doomed).map(|()| {
            // Best effort: on Windows the file goes when this schema lets go of it.
            let _ = std::fs::remove_file(&doomed);
        });
        match removed {
            Ok(()) => tracing::debug!("schema cache: removed {}, which does not decode", path.display()),
            Err(err) => tracing::debug!("schema cache: cannot remove {}: {err}", path.display()),
        }
    }

    /// The document's bytes in `range` (`None`: all of it).
    fn read(&self, range: Option<Range<usize>>) -> std::io::Result<Cow<'_, [u8]>> {
        let range = match range {
            Some(range) => self.document_start + range.start..self.document_start + range.end,
            None => self.document_start..self.source.byte_len()?,
        };
        self.source.read(range)
    }
}

fn section_mut<'s>(schema: &'s mut ProviderSchema, section: &str) -> Option<&'s mut BTreeMap<String, Schema>> {
    match section {
        "resource_schemas" => Some(&mut schema.resources),
        "data_source_schemas" => Some(&mut schema.data_sources),
        "ephemeral_resource_schemas" => Some(&mut schema.ephemeral_resources),
        "list_resource_schemas" => Some(&mut schema.list_resources),
        _ => None,
    }
}
