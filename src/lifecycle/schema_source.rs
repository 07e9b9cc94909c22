//! Where start-up gets the provider's schema: the persistent cache when the running provider
//! allows it, else GetProviderSchema (then cached for the next run).
//!
//! Terraform's rule: a provider whose GetMetadata declares `get_provider_schema_optional`
//! may be called without GetProviderSchema, when the caller has its schema already. So a
//! warm start is launch, GetMetadata, and reading the cache entry (begun while the
//! provider launches); the schema itself is decoded item by item as the program uses it
//! ([`LazySchema`]). [`decide`] is the whole decision, as a pure function.
//!
//! How another start-up call joins the cache: add a field to [`StartupFacts`] (serde,
//! `#[serde(default)]` is not needed because the bridge's build is in the key), fill it
//! where GetProviderSchema is called in [`Client::startup_schema`], and read it from the
//! facts on the cached path. A new section of the schema model needs nothing: the entry
//! holds the model's serde form.

use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::calls::Client;
use super::error::ParameterizeError;
use crate::schema_cache::{CacheKey, LazySchema, Miss, SchemaCache};
use crate::tfplugin::types::{ProviderMetadata, ServerCapabilities};

/// What start-up learns besides the schema, cached with it.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct StartupFacts {
    /// The protocol the provider was launched with; an entry for another is not used.
    pub protocol: u32,
    /// GetProviderSchema's capabilities.
    pub capabilities: ServerCapabilities,
}

type Loaded = Result<(StartupFacts, LazySchema), Miss>;

/// A cache read begun before the provider is launched, so the two overlap.
pub(super) struct CacheLookup {
    cache: Option<(SchemaCache, CacheKey)>,
    read: Option<tokio::task::JoinHandle<Loaded>>,
}

/// A cache write running in the background, joined at shutdown.
pub(super) type CacheWrite = std::thread::JoinHandle<()>;

impl CacheLookup {
    /// Starts reading the entry for `executable` from `cache`, unless the cache is off or
    /// the binary cannot be identified.
    pub fn start(executable: &Path, cache: Option<&SchemaCache>) -> CacheLookup {
        let Some(cache) = cache.cloned() else {
            return CacheLookup::none();
        };
        let key = std::env::current_exe().and_then(|bridge| CacheKey::for_binary(executable, &bridge));
        let key = match key {
            Ok(key) => key,
            Err(err) => {
                tracing::debug!("schema cache: not used for {}: {err}", executable.display());
                return CacheLookup::none();
            }
        };
        let read = {
            let (cache, key) = (cache.clone(), key.clone());
            tokio::task::spawn_blocking(move || cache.load::<StartupFacts>(&key))
        };
        CacheLookup { cache: Some((cache, key)), read: Some(read) }
    }

    /// No cache: a reattached provider has no binary of ours to key on.
    pub fn none() -> CacheLookup {
        CacheLookup { cache: None, read: None }
    }

    async fn finish(&mut self) -> Option<(StartupFacts, LazySchema)> {
        let loaded = match self.read.take()?.await {
            Ok(loaded) => loaded,
            Err(err) => {
                tracing::debug!("schema cache: the read did not finish: {err}");
                return None;
            }
        };
        match loaded {
            Ok(found) => Some(found),
            Err(Miss::Absent) => {
                tracing::debug!("schema cache: no entry yet");
                None
            }
            Err(miss) => {
                tracing::debug!("schema cache: {miss}; rebuilding the entry");
                None
            }
        }
    }
}

/// What start-up does about the schema.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Decision {
    /// Use the cached entry; no GetProviderSchema.
    UseCache,
    /// Call GetProviderSchema; write the answer to the cache when `store`.
    Fetch { store: bool },
}

/// How a cached entry compares with what the running provider says about itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cached {
    Absent,
    /// An entry, written for this protocol or not.
    Present {
        same_protocol: bool,
    },
}

/// The decision. `metadata` is GetMetadata's answer (`None`: not implemented, or not asked
/// because nothing is cached); `names_match` says whether the names it lists agree with the
/// entry's.
pub(super) fn decide(cached: &Cached, metadata: Option<&ProviderMetadata>, names_match: bool) -> Decision {
    let same_protocol = match cached {
        Cached::Absent => return Decision::Fetch { store: true },
        Cached::Present { same_protocol } => *same_protocol,
    };
    if !same_protocol {
        return Decision::Fetch { store: true };
    }
    let Some(metadata) = metadata else {
        // No GetMetadata: the provider may rely on GetProviderSchema being called first.
        // The entry is right already; do not rewrite it on every start.
        return Decision::Fetch { store: false };
    };
    if !metadata.capabilities.get_provider_schema_optional {
        return Decision::Fetch { store: false };
    }
    if !names_match {
        // The provider has other types than the entry says: stale, whatever the key says.
        return Decision::Fetch { store: true };
    }
    Decision::UseCache
}

/// Whether GetMetadata's lists name exactly the entry's resources, data sources,
/// ephemeral resources and functions.
pub(super) fn names_match(metadata: &ProviderMetadata, schema: &LazySchema) -> bool {
    let names = schema.names();
    let same = |listed: &[String], cached: Vec<&String>| {
        let mut listed: Vec<&String> = listed.iter().collect();
        listed.sort();
        listed.dedup();
        listed == cached
    };
    same(&metadata.resources, names.resources.keys().collect())
        && same(&metadata.data_sources, names.data_sources.keys().collect())
        && same(&metadata.ephemeral_resources, names.ephemeral_resources.keys().collect())
        && same(&metadata.functions, names.functions.keys().collect())
}

impl Client {
    /// The schema and capabilities for start-up, from the cache or the provider, and the
    /// background write of a fresh answer to the cache.
    pub(super) async fn startup_schema(
        &self,
        mut lookup: CacheLookup,
    ) -> Result<(LazySchema, ServerCapabilities, Option<CacheWrite>), ParameterizeError> {
        let protocol = self.protocol_number();
        let started = std::time::Instant::now();
        let found = lookup.finish().await;
        let read = started.elapsed();
        let (cached, metadata, matches) = match &found {
            None => (Cached::Absent, None, false),
            Some((facts, schema)) => {
                // A provider that fails GetMetadata is asked for its schema, which reports
                // the failure properly if it persists.
                let metadata = self.metadata().await.ok().flatten();
                tracing::debug!(
                    "schema cache: entry read {read:?} after the launch, GetMetadata answered {:?} after",
                    started.elapsed()
                );
                let matches = metadata.as_ref().is_some_and(|m| names_match(m, schema));
                (Cached::Present { same_protocol: facts.protocol == protocol }, metadata, matches)
            }
        };
        let decision = decide(&cached, metadata.as_ref(), matches);
        tracing::debug!("schema cache: {decision:?}");
        if let (Decision::UseCache, Some((_, schema)), Some(metadata)) = (&decision, found, metadata) {
            return Ok((schema, metadata.capabilities, None));
        }
        let (schema, capabilities) = self.provider_schema().await?;
        let schema = Arc::new(schema);
        let write = match (decision, lookup.cache) {
            (Decision::Fetch { store: true }, Some((cache, key))) => {
                let schema = Arc::clone(&schema);
                let facts = StartupFacts { protocol, capabilities };
                let spawned = std::thread::Builder::new().name("schema-cache-write".to_owned()).spawn(move || {
                    match cache.store(&key, &facts, &schema) {
                        Ok(()) => tracing::debug!("schema cache: wrote {}", cache.dir.join(key.file_name()).display()),
                        Err(err) => tracing::debug!("schema cache: {err}"),
                    }
                });
                spawned.inspect_err(|err| tracing::debug!("schema cache: cannot start the write: {err}")).ok()
            }
            _ => None,
        };
        Ok((LazySchema::shared(schema), capabilities, write))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(optional: bool) -> ProviderMetadata {
        ProviderMetadata {
            capabilities: ServerCapabilities { get_provider_schema_optional: optional, ..Default::default() },
            ..Default::default()
        }
    }

    #[test]
    fn the_cache_replaces_get_provider_schema_only_when_the_provider_allows_it() {
        use Cached::{Absent, Present};
        use Decision::{Fetch, UseCache};
        let (same, other) = (Present { same_protocol: true }, Present { same_protocol: false });
        let (optional, required) = (Some(metadata(true)), Some(metadata(false)));
        // (case, cache entry, GetMetadata's answer, whether its names match the entry's, decision)
        let table = [
            ("cold start", Absent, None, false, Fetch { store: true }),
            ("warm, schema optional, same names", same, optional.clone(), true, UseCache),
            ("warm, schema required", same, required, true, Fetch { store: false }),
            ("warm, no GetMetadata", same, None, false, Fetch { store: false }),
            ("warm, names differ", same, optional.clone(), false, Fetch { store: true }),
            ("entry for another protocol", other, optional, true, Fetch { store: true }),
        ];
        for (name, cached, metadata, matches, expected) in table {
            assert_eq!(decide(&cached, metadata.as_ref(), matches), expected, "{name}");
        }
    }

    #[test]
    fn names_match_compares_every_list_as_a_set() {
        let mut schema = schema_gen::tf::ProviderSchema::default();
        schema.resources.insert("x_a".to_owned(), Default::default());
        schema.resources.insert("x_b".to_owned(), Default::default());
        schema.data_sources.insert("x_d".to_owned(), Default::default());
        let lazy = LazySchema::whole(schema);
        let listed = |resources: &[&str], data_sources: &[&str]| ProviderMetadata {
            resources: resources.iter().map(|s| (*s).to_owned()).collect(),
            data_sources: data_sources.iter().map(|s| (*s).to_owned()).collect(),
            ..Default::default()
        };
        assert!(names_match(&listed(&["x_b", "x_a"], &["x_d"]), &lazy));
        assert!(!names_match(&listed(&["x_a"], &["x_d"]), &lazy));
        assert!(!names_match(&listed(&["x_a", "x_b", "x_c"], &["x_d"]), &lazy));
        assert!(!names_match(&listed(&["x_a", "x_b"], &[]), &lazy));
    }
}
