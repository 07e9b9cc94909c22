//! Where start-up gets the provider's schema: the persistent cache when the running provider
//! allows it, else GetProviderSchema (then cached for the next run).
//!
//! Terraform's rule: a provider whose GetProviderSchema answer declared
//! `get_provider_schema_optional` may be called without GetProviderSchema when the caller
//! has that answer already (and GetResourceIdentitySchemas' with it); Terraform never calls
//! GetMetadata. So a warm start is the launch and reading the cache entry (begun while the provider launches), and the first
//! call the provider sees is the first one the program needs; the schema itself is decoded
//! item by item as the program uses it ([`LazySchema`]). [`decide`] is the whole decision,
//! as a pure function.
//!
//! How another start-up call joins the cache: add a field to [`StartupFacts`] (serde,
//! `#[serde(default)]` is not needed because the bridge's build is in the key), fill it
//! where GetProviderSchema is called in [`startup_schema`], and read it from the
//! facts on the cached path. A new section of the schema model needs nothing: the entry
//! holds the model's serde form.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::lifecycle::calls::{Client, Launch};
use crate::lifecycle::support::error::{BackgroundLaunchError, ParameterizeError};
use crate::schema_cache::{CacheKey, LazySchema, Miss, SchemaCache};
use crate::tfplugin::ProviderClient;
use crate::tfplugin::core_rpcs::ServerCapabilities;
use schema_gen::tf::IdentitySchema;

/// What start-up learns besides the schema, cached with it.
#[derive(Debug, Serialize, Deserialize)]
pub(in crate::lifecycle) struct StartupFacts {
    /// The protocol the provider was launched with; an entry for another is not used.
    pub protocol: u32,
    /// GetProviderSchema's capabilities.
    pub capabilities: ServerCapabilities,
    /// GetResourceIdentitySchemas' answer, which Terraform asks right after
    /// GetProviderSchema and caches with it.
    pub identity_schemas: BTreeMap<String, IdentitySchema>,
}

/// What start-up learns about the schema, from the cache or the provider.
pub(in crate::lifecycle) struct StartupSchema {
    pub schema: LazySchema,
    pub capabilities: ServerCapabilities,
    pub identity_schemas: BTreeMap<String, IdentitySchema>,
    /// The background write of a fresh answer to the cache.
    pub write: Option<CacheWrite>,
}

type Loaded = Result<(StartupFacts, LazySchema), Miss>;

/// A cache read begun before the provider is launched, so the two overlap.
pub(in crate::lifecycle) struct CacheLookup {
    cache: Option<(SchemaCache, CacheKey)>,
    read: Option<tokio::task::JoinHandle<Loaded>>,
}

/// A cache write running in the background, joined at shutdown.
pub(in crate::lifecycle) type CacheWrite = std::thread::JoinHandle<()>;

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

    /// The cache and the binary's key, for the entries kept beside the schema (the
    /// translated package).
    pub fn cache_and_key(&self) -> Option<(SchemaCache, CacheKey)> {
        self.cache.clone()
    }

    /// No cache: a reattached provider has no binary of ours to key on.
    pub fn none() -> CacheLookup {
        CacheLookup { cache: None, read: None }
    }

    /// The entry, verified, once the read is done; `None` on a miss (said in a debug line).
    pub async fn finish(&mut self) -> Option<(StartupFacts, LazySchema)> {
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
pub(in crate::lifecycle) enum Decision {
    /// Use the cached entry; no GetProviderSchema.
    UseCache,
    /// Call GetProviderSchema; write the answer to the cache when `store`.
    Fetch { store: bool },
}

/// How a cached entry compares with the provider just launched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in crate::lifecycle) enum Cached {
    Absent,
    /// An entry, written for this protocol or not; `schema_optional` is the
    /// `get_provider_schema_optional` the provider declared in the GetProviderSchema answer
    /// the entry holds.
    Present {
        same_protocol: bool,
        schema_optional: bool,
    },
}

/// The decision, Terraform's own: it skips GetProviderSchema only for a provider whose
/// earlier GetProviderSchema answer declared `get_provider_schema_optional`, and it never
/// asks GetMetadata first. terraform-plugin-mux records every type GetMetadata lists without
/// marking its discovery done, so after a GetMetadata its first call for a type discovers
/// them again and fails with "Duplicate resource type" (issue 28). The entry's key is the
/// binary's file identity, so the types it lists are the running binary's.
pub(in crate::lifecycle) fn decide(cached: &Cached) -> Decision {
    match *cached {
        Cached::Absent | Cached::Present { same_protocol: false, .. } => Decision::Fetch { store: true },
        // The entry is right already; do not rewrite it on every start.
        Cached::Present { schema_optional: false, .. } => Decision::Fetch { store: false },
        Cached::Present { same_protocol: true, schema_optional: true } => Decision::UseCache,
    }
}

/// The schema, capabilities and identity schemas for start-up, from the cache entry
/// `found` or the provider, and the background write of a fresh answer to `cache`.
pub(super) async fn startup_schema(
    client: &Client,
    found: Option<(StartupFacts, LazySchema)>,
    cache: Option<(SchemaCache, CacheKey)>,
) -> Result<StartupSchema, ParameterizeError> {
    let protocol = client.protocol_number().unwrap_or_default();
    let cached = match &found {
        None => Cached::Absent,
        Some((facts, _)) => Cached::Present {
            same_protocol: facts.protocol == protocol,
            schema_optional: facts.capabilities.get_provider_schema_optional,
        },
    };
    let decision = decide(&cached);
    tracing::debug!("schema cache: {decision:?}");
    if let (Decision::UseCache, Some((facts, schema))) = (&decision, found) {
        let StartupFacts { capabilities, identity_schemas, .. } = facts;
        return Ok(StartupSchema { schema, capabilities, identity_schemas, write: None });
    }
    let (schema, capabilities) = client.get_provider_schema().await?;
    let identity_schemas = client.get_resource_identity_schemas().await?;
    let schema = Arc::new(schema);
    let write = match (decision, cache) {
        (Decision::Fetch { store: true }, Some((cache, key))) => {
            let schema = Arc::clone(&schema);
            let facts = StartupFacts { protocol, capabilities, identity_schemas: identity_schemas.clone() };
            let spawned = std::thread::Builder::new().name("schema-cache-write".to_owned()).spawn(move || match cache
                .store(&key, &facts, &schema)
            {
                Ok(()) => tracing::debug!("schema cache: wrote {}", cache.dir.join(key.file_name()).display()),
                Err(err) => tracing::debug!("schema cache: {err}"),
            });
            spawned.inspect_err(|err| tracing::debug!("schema cache: cannot start the write: {err}")).ok()
        }
        _ => None,
    };
    Ok(StartupSchema { schema: LazySchema::shared(schema), capabilities, identity_schemas, write })
}

/// A warm start: the cache entry answers start-up, so Parameterize and GetSchema need not
/// wait for the provider. Its launch goes on in the background, followed by what Terraform
/// sends such a provider first ([`decide`]: GetProviderSchema and
/// GetResourceIdentitySchemas only when the cached answer did not make the schema
/// optional), and the first call of the program waits for it.
///
/// The entry's key is the binary's identity, so the launched provider is the one the
/// entry describes; it is still checked to speak the entry's protocol. If it does not,
/// the entry is removed and the calls fail with an error saying to run again.
pub(super) fn warm_start(
    launching: tokio::task::JoinHandle<Result<ProviderClient, ParameterizeError>>,
    facts: &StartupFacts,
    cache: Option<(SchemaCache, CacheKey)>,
) -> Launch {
    let decision = decide(&Cached::Present {
        same_protocol: true,
        schema_optional: facts.capabilities.get_provider_schema_optional,
    });
    tracing::debug!("schema cache: {decision:?}, the launch goes on in the background");
    let expected = facts.protocol;
    tokio::spawn(async move {
        let client = match launching.await {
            Ok(Ok(client)) => client,
            Ok(Err(error)) => return Err(error.into()),
            Err(error) => return Err(BackgroundLaunchError::Unfinished(error)),
        };
        let protocol = client.protocol().number();
        if protocol != expected {
            if let Some((cache, key)) = cache {
                let _ = std::fs::remove_file(cache.dir.join(key.file_name()));
            }
            return Err(BackgroundLaunchError::OtherProtocol { protocol, expected });
        }
        if decision == Decision::UseCache {
            return Ok(client);
        }
        let client = Client::new(client);
        client.get_provider_schema().await?;
        client.get_resource_identity_schemas().await?;
        client.into_launched().ok_or(BackgroundLaunchError::Lost)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_replaces_get_provider_schema_only_when_the_provider_allowed_it() {
        use Decision::{Fetch, UseCache};
        let present = |same_protocol, schema_optional| Cached::Present { same_protocol, schema_optional };
        // (case, cache entry, decision)
        let table = [
            ("cold start", Cached::Absent, Fetch { store: true }),
            ("warm, schema optional", present(true, true), UseCache),
            ("warm, schema required", present(true, false), Fetch { store: false }),
            ("entry for another protocol", present(false, true), Fetch { store: true }),
            ("entry for another protocol, schema required", present(false, false), Fetch { store: true }),
        ];
        for (name, cached, expected) in table {
            assert_eq!(decide(&cached), expected, "{name}");
        }
    }
}
