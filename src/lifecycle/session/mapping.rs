//! GetMapping and GetMappings: the mapping a converter (`pulumi convert --from terraform`,
//! `pulumi import --from terraform`) asks for, from the session's provider or, before
//! Parameterize, from a provider package in our cache.

use std::collections::BTreeMap;
use std::path::Path;

use tokio_util::sync::CancellationToken;

use super::super::support::error::ParameterizeError;
use super::{Session, start_provider};
use crate::installer::{self, CachedPackage};
use crate::parameterize::{self, ArgsError};

/// A provider's mapping, as GetMapping answers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mapping {
    /// The provider's Terraform type, the name converters know it by.
    pub provider: String,
    /// The mapping, in the JSON of the Go implementation.
    pub data: Vec<u8>,
}

/// Why GetMapping has no answer.
#[derive(Debug, thiserror::Error)]
pub enum MappingError {
    /// The request names a provider other than the session's.
    #[error("unknown provider {0:?}")]
    UnknownProvider(String),
    /// A cached package whose address and version make no Parameterize arguments (a bug).
    #[error("the cached package {address}: {error}")]
    CachedPackage { address: String, error: ArgsError },
    /// The cached package could not be started.
    #[error("the mapping of {address} {version}: {error}")]
    Start { address: String, version: String, error: Box<ParameterizeError> },
    /// The engine cancelled while the cached package was starting.
    #[error("GetMapping was cancelled by the Pulumi engine")]
    Cancelled,
    /// The mapping needs the whole provider schema, and its cache entry does not decode.
    #[error(transparent)]
    Schema(#[from] crate::schema_cache::LazySchemaError),
}

/// The mapping GetMapping asks for, by converter `key` and provider type (`provider`; empty:
/// the session's): `None` when there is none to give. Unparameterized, asked for a provider
/// by type (`pulumi import --from terraform`), the cached package [`mapped_providers`]
/// offered for it is started, from `working_dir`, unless `cancel` fires first.
pub async fn mapping(
    session: Option<&Session>,
    key: &str,
    provider: &str,
    working_dir: &Path,
    cancel: &CancellationToken,
) -> Result<Option<Mapping>, MappingError> {
    let started;
    let session = match source(session, key).await {
        Source::None => return Ok(None),
        Source::Session(session) => session,
        Source::Cache(candidates) => {
            let Some(package) = candidates.get(provider) else {
                return Ok(None);
            };
            started = start_cached(package, working_dir, cancel).await?;
            &started
        }
    };
    session.own_mapping(provider).map(Some)
}

/// The provider types GetMappings lists for converter `key`: the session's provider, or
/// unparameterized the cached packages' (see [`mapping`]).
pub async fn mapped_providers(session: Option<&Session>, key: &str) -> Vec<String> {
    match source(session, key).await {
        Source::Session(session) => vec![session.connection.names().resource_prefix().to_owned()],
        Source::Cache(candidates) => candidates.into_keys().collect(),
        Source::None => Vec::new(),
    }
}

/// Starts the cached package `package` at its exact version, which the installer finds in
/// the cache, offline.
async fn start_cached(
    package: &CachedPackage,
    working_dir: &Path,
    cancel: &CancellationToken,
) -> Result<Session, MappingError> {
    let args = parameterize::parse_args(&[package.address.to_string(), package.version.to_string()])
        .map_err(|error| MappingError::CachedPackage { address: package.address.to_string(), error })?;
    // Straight from the cache: nothing worth a line, and the engine would print each start
    // on stderr, once per provider of the state.
    let progress = installer::NoProgress;
    let started = tokio::select! {
        () = cancel.cancelled() => return Err(MappingError::Cancelled),
        result = start_provider(&args, working_dir, &progress) => result,
    };
    started.map_err(|error| MappingError::Start {
        address: package.address.to_string(),
        version: package.version.to_string(),
        error: Box::new(error),
    })
}

impl Session {
    /// This session's mapping, if `provider` (empty: any) names its provider.
    fn own_mapping(&self, provider: &str) -> Result<Mapping, MappingError> {
        let connection = &self.connection;
        let name = connection.names().resource_prefix().to_owned();
        if !provider.is_empty() && provider != name {
            return Err(MappingError::UnknownProvider(provider.to_owned()));
        }
        let mapping = schema_gen::mapping::provider_mapping(
            connection.schema().whole()?,
            connection.names(),
            self.package_version(),
        );
        let data = schema_gen::mapping::to_go_json(&mapping).into_bytes();
        Ok(Mapping { provider: name, data })
    }
}

/// Where the mapping a GetMapping(s) key asks for comes from: `terraform` (or the legacy
/// `tf`) once parameterized, the provider; unparameterized, the provider packages in our
/// cache, by type. Other converters' keys get nothing, as in the Go implementation.
///
/// The cache matters to `pulumi import --from terraform`: its converter names a provider
/// by type only (`tfcoremock`, no source, no version) and the CLI asks every installed
/// plugin, unparameterized, whether it maps it. The packages are there once the program
/// (from `pulumi convert`) has run or installed its packages.
async fn source<'a>(session: Option<&'a Session>, key: &str) -> Source<'a> {
    if key != "terraform" && key != "tf" {
        return Source::None;
    }
    if let Some(session) = session {
        return Source::Session(session);
    }
    let cache = installer::plugin_cache_dir(&std::env::vars().collect());
    let platform = installer::Platform::current();
    let listed =
        tokio::task::spawn_blocking(move || installer::cached_packages(&cache, &platform)).await.unwrap_or_default();
    Source::Cache(installer::mapping_candidates(&listed))
}

/// See [`source`].
enum Source<'a> {
    None,
    Session(&'a Session),
    /// By provider type, the cached package that maps it.
    Cache(BTreeMap<String, CachedPackage>),
}
