//! Start-up: from Parameterize's parsed request to a described provider, the [`Started`]
//! value `Session::new` takes.
//!
//! 1. `launch`: obtain the binary (a local path as given, the installer for a registry
//!    address, or a running provider to reattach to), start its launch as a task, and start
//!    reading the schema cache entry for that binary beside it (`schema::CacheLookup`).
//! 2. `schema`: cold (no entry, or reattached), wait for the launch, then decide
//!    (`schema::decide`), call GetProviderSchema and GetResourceIdentitySchemas and write
//!    the entry in the background; warm (an entry), answer from the entry at once and let
//!    `schema::warm_start` finish the launch in the background, which
//!    `calls::Client::launching` holds and the first Terraform call awaits.
//! 3. here: the names and tokens (`ProviderNames`), the parameter value that reproduces
//!    the provider, and the [`Connection`].
//!
//! Architecture invariant: on the session's floor, beside it: it imports the calls and the
//! support floors, and nothing in `lifecycle` but the session imports it.

mod launch;
mod schema;

pub(super) use schema::CacheWrite;

use std::path::Path;

use schema_gen::translate::{ProviderNames, TokenFilter, Warning};

use self::launch::{Launched, Launching, launch_local, launch_registry};
use self::schema::{StartupFacts, StartupSchema, warm_start};
use crate::installer;
use crate::lifecycle::calls::{Client, Connection, Described};
use crate::lifecycle::support::error::ParameterizeError;
use crate::parameterize::{Args, LocalValue, ParameterValue, RemoteValue, Source};
use crate::schema_cache::{CacheKey, SchemaCache};

/// A started provider: launched (or launching in the background, on a warm start) and
/// described, with what start-up learned that the session keeps.
pub(in crate::lifecycle) struct Started {
    /// The provider's calls, schema, names and capabilities.
    pub connection: Connection,
    /// The parameter value that reproduces exactly this provider.
    pub parameter: ParameterValue,
    /// Naming warnings, to show the user once.
    pub warnings: Vec<Warning>,
    /// One line saying where the provider came from.
    pub origin: String,
    /// Whether the provider was downloaded just now (first use).
    pub downloaded: bool,
    /// The background write of the schema cache entry, if start-up began one.
    pub cache_write: Option<CacheWrite>,
    /// The cache and this binary's key, where GetSchema's translated package is kept.
    pub package_cache: Option<(SchemaCache, CacheKey)>,
}

/// Obtains, launches and describes the provider `args` name, with the schema cache `cache`
/// (`None`: no cache). `working_dir` is where relative local paths and
/// `.terraform.lock.hcl` are looked up.
pub(in crate::lifecycle) async fn start(
    args: &Args,
    working_dir: &Path,
    progress: &dyn installer::Progress,
    cache: Option<SchemaCache>,
) -> Result<Started, ParameterizeError> {
    // Start-up's phases, for the debug line below: where a slow start-up spends its time.
    let started = std::time::Instant::now();
    let Launched { launching, terraform_name, package_version, source_address, origin, downloaded, mut lookup } =
        match &args.source {
            Source::Local { path } => launch_local(path, working_dir, cache.as_ref()).await?,
            Source::Registry { address, constraint } => {
                launch_registry(address, constraint.as_deref(), working_dir, progress, cache.as_ref()).await?
            }
        };
    let found = lookup.finish().await;
    let package_cache = lookup.cache_and_key();
    let display_name = source_address.clone().unwrap_or_else(|| terraform_name.clone());
    let (client, StartupSchema { schema, capabilities, identity_schemas, write: cache_write }) =
        match (launching, found) {
            // Warm: the entry answers start-up; the provider goes on launching meanwhile.
            (Launching::Started(launch), Some((facts, schema))) => {
                let client = Client::launching(display_name, warm_start(launch, &facts, package_cache.clone()));
                let StartupFacts { capabilities, identity_schemas, .. } = facts;
                (client, StartupSchema { schema, capabilities, identity_schemas, write: None })
            }
            (launching, found) => {
                let client = Client::new(launching.wait().await?);
                let startup = schema::startup_schema(&client, found, package_cache.clone()).await?;
                (client, startup)
            }
        };
    let launched = client.launched().map(|_| started.elapsed());
    let schema_done = started.elapsed();

    let package_name = args.provider_name.clone().unwrap_or_else(|| terraform_name.clone());
    let filter = TokenFilter { include: &args.includes, exclude: &args.excludes };
    let (names, warnings) = ProviderNames::new(schema.names(), &package_name, &filter);
    tracing::debug!(
        "start-up: provider ready after {launched:?} (None: launching in the background), schemas after {schema_done:?}, names after {:?}",
        started.elapsed()
    );
    let parameter = parameter_value(args, source_address.as_deref(), &package_version);
    let connection = Connection::new(Described {
        package_name,
        package_version,
        terraform_name,
        source_address,
        client,
        schema,
        identity_schemas,
        names,
        capabilities,
    });
    Ok(Started { connection, parameter, warnings, origin, downloaded, cache_write, package_cache })
}

/// The parameter value that reproduces the provider `args` started: the registry's at the
/// version found, or the local binary's.
fn parameter_value(args: &Args, source_address: Option<&str>, package_version: &str) -> ParameterValue {
    ParameterValue {
        remote: source_address.map(|url| RemoteValue { url: url.to_owned(), version: package_version.to_owned() }),
        local: match &args.source {
            Source::Local { path } => Some(LocalValue { path: path.clone() }),
            Source::Registry { .. } => None,
        },
        includes: args.includes.clone(),
        excludes: args.excludes.clone(),
        provider_name: args.provider_name.clone().unwrap_or_default(),
    }
}
