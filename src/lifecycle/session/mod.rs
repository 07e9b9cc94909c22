//! The session: the Terraform provider a process is parameterized with, and everything the
//! process remembers between the engine's calls.
//!
//! [`start_provider`] takes a parsed request (arguments or a parameter value), obtains the
//! binary (a local path as given, or the installer for a registry address), launches it,
//! reads its schema and computes every token. The result, [`Session`], is what every later
//! call of the process works against. It owns the [`Connection`] (the calls) and the
//! memory of the deployment: the plans Diff made, the write-only values Check held back,
//! the open ephemeral resources, the listings waiting for their next page, the provider
//! configuration last given, and the schema cache write start-up began.
//!
//! Each Pulumi operation is one method taking one request, one file per concern:
//! - `resources`: Check, Diff, Create, Update, Delete and Read of a resource;
//! - `provider`: CheckConfig, DiffConfig, Configure and the `terraformConfig` method;
//! - `functions`: Invoke (data sources, provider functions, ephemeral resources, actions),
//!   the closing of ephemeral resources, and List;
//! - here: start-up, GetSchema ([`Session::package_schema`]) and shutdown.
//!
//! Architecture invariant: the top of `lifecycle`; nothing in `lifecycle` imports it.

pub(super) mod functions;
pub(super) mod provider;
mod resources;

use std::path::Path;
use std::sync::{Arc, Mutex};

use schema_gen::pulumi::PackageSpec;
use schema_gen::translate::{ProviderNames, TokenFilter, TranslateConfig, Warning, translate};

use super::calls::{Client, Connection, Described};
use super::operations::ephemeral::OpenEphemerals;
use super::operations::list::ListSessions;
use super::operations::schema_source::{self, CacheLookup, CacheWrite, StartupSchema};
use super::operations::shared::{GeneratedNames, PlanCache};
use super::operations::write_only::WriteOnlyInputs;
use super::support::error::ParameterizeError;
use crate::installer;
use crate::parameterize::{Args, LocalValue, ParameterValue, RemoteValue, Source};
use crate::property::PropertyMap;
use crate::schema_cache::{LazySchemaError, SchemaCache};
use crate::tfplugin::reattach::{REATTACH_ENV_VARS, reattach_config_from_env};
use crate::tfplugin::{LaunchConfig, launch, reattach, resolve_executable};

/// A launched, described provider, and what the process remembers of the deployment.
pub struct Session {
    /// The provider's calls. Shared: an open ephemeral resource renews itself in a task of
    /// its own.
    pub connection: Arc<Connection>,
    /// The package version Parameterize answers and GetSchema writes: `package_version`,
    /// unless the engine asked for the package by another version (see
    /// [`crate::parameterize::announced_version`]).
    pub announced_version: String,
    /// The parameter value that reproduces exactly this provider.
    pub parameter: ParameterValue,
    /// Naming warnings, to show the user once.
    pub warnings: Vec<Warning>,
    /// One line saying where the provider came from.
    pub origin: String,
    /// Whether Parameterize downloaded the provider just now (first use), rather than
    /// finding it in a cache, a mirror directory or a local path.
    pub downloaded: bool,
    /// The schema cache write begun at start-up, if any, joined at shutdown.
    cache_write: Mutex<Option<CacheWrite>>,
    /// Plans made by Diff, for the final-plan check of the Update that follows.
    plans: PlanCache,
    /// Write-only values Check kept out of the recorded inputs, for Diff, Create and Update.
    write_only: WriteOnlyInputs,
    /// The names Check generated, for the replacement order Diff answers.
    generated_names: GeneratedNames,
    /// The ephemeral resources open now.
    ephemerals: OpenEphemerals,
    /// Listings (`List`) waiting for their next page.
    lists: ListSessions,
    /// The provider configuration as last given to CheckConfig or Configure, for the
    /// `terraformConfig` method (the Go implementation keeps the same).
    last_config: Mutex<PropertyMap>,
}

/// Obtains, launches and describes the provider `args` name. A registry provider listed in
/// `PULUMI_BRIDGE_REATTACH_PROVIDERS` (or `TF_REATTACH_PROVIDERS`) is not installed: the
/// running one is attached to, as the Go implementation does for debugging. `working_dir` is where relative
/// local paths and `.terraform.lock.hcl` are looked up (the engine's program directory).
pub async fn start_provider(
    args: &Args,
    working_dir: &Path,
    progress: &dyn installer::Progress,
) -> Result<Session, ParameterizeError> {
    start_provider_with_cache(args, working_dir, progress, SchemaCache::from_environment()).await
}

/// [`start_provider`] with the schema cache given explicitly (`None`: no cache), rather
/// than from the environment.
pub async fn start_provider_with_cache(
    args: &Args,
    working_dir: &Path,
    progress: &dyn installer::Progress,
    cache: Option<SchemaCache>,
) -> Result<Session, ParameterizeError> {
    // Start-up's phases, for the debug line below: where a slow start-up spends its time.
    let started = std::time::Instant::now();
    let (client, terraform_name, package_version, source_address, origin, downloaded, lookup) = match &args.source {
        Source::Local { path } => {
            let terraform_name = schema_gen::naming::package_name_from_binary(path)?;
            // The file that runs, as the cache keys it: on Windows a path typed without .exe
            // is the .exe beside it.
            let executable = resolve_executable(&working_dir.join(path))?;
            let origin = format!("{terraform_name} from the local binary {}", executable.display());
            // The cache read overlaps the launch.
            let lookup = CacheLookup::start(&executable, cache.as_ref());
            let client = launch(&LaunchConfig::terraform_defaults(executable)).await?;
            (client, terraform_name, "0.0.0".to_owned(), None, origin, false, lookup)
        }
        Source::Registry { address, constraint } => {
            let request = installer::InstallRequest::parse(address, constraint.as_deref().unwrap_or(""))?;
            let source = request.address.to_string();
            if let Some(config) = reattach_config_from_env(&source)? {
                // A running provider has no registry version: like the Go implementation, it
                // is 0.0.0 and any version constraint is ignored.
                let origin =
                    format!("{source} reattached at {} (from {})", config.address, REATTACH_ENV_VARS.join(" or "));
                let client = reattach(&source, &config).await?;
                let lookup = CacheLookup::none();
                (client, request.address.type_name.clone(), "0.0.0".to_owned(), Some(source), origin, false, lookup)
            } else {
                let config = installer::InstallerConfig::from_environment(working_dir)?;
                for warning in &config.warnings {
                    progress.warning(warning);
                }
                let installed = installer::install(&request, &config, progress).await?;
                let lookup = CacheLookup::start(&installed.executable, cache.as_ref());
                let client = launch(&LaunchConfig::terraform_defaults(installed.executable)).await?;
                (
                    client,
                    installed.address.type_name.clone(),
                    installed.version.to_string(),
                    Some(installed.address.to_string()),
                    installed.source,
                    installed.downloaded,
                    lookup,
                )
            }
        }
    };
    let launched = started.elapsed();
    let client = Client::new(client);
    let StartupSchema { schema, capabilities, identity_schemas, write: cache_write } =
        schema_source::startup_schema(&client, lookup).await?;
    let schema_done = started.elapsed();

    let package_name = args.provider_name.clone().unwrap_or_else(|| terraform_name.clone());
    let filter = TokenFilter { include: &args.includes, exclude: &args.excludes };
    let (names, warnings) = ProviderNames::new(schema.names(), &package_name, &filter);
    tracing::debug!(
        "start-up: provider ready after {launched:?}, schemas after {schema_done:?}, names after {:?}",
        started.elapsed()
    );
    let parameter = ParameterValue {
        remote: source_address.as_ref().map(|url| RemoteValue { url: url.clone(), version: package_version.clone() }),
        local: match &args.source {
            Source::Local { path } => Some(LocalValue { path: path.clone() }),
            Source::Registry { .. } => None,
        },
        includes: args.includes.clone(),
        excludes: args.excludes.clone(),
        provider_name: args.provider_name.clone().unwrap_or_default(),
    };
    let connection = Connection::new(Described {
        package_name,
        package_version: package_version.clone(),
        terraform_name,
        source_address,
        client,
        schema,
        identity_schemas,
        names,
        capabilities,
    });
    Ok(Session {
        connection: Arc::new(connection),
        announced_version: package_version,
        parameter,
        warnings,
        origin,
        downloaded,
        cache_write: Mutex::new(cache_write),
        plans: PlanCache::default(),
        write_only: WriteOnlyInputs::default(),
        generated_names: GeneratedNames::default(),
        ephemerals: OpenEphemerals::default(),
        lists: ListSessions::default(),
        last_config: Mutex::new(PropertyMap::new()),
    })
}

impl Session {
    /// The Pulumi package name.
    pub fn package_name(&self) -> &str {
        &self.connection.package_name
    }

    /// The exact provider version (`0.0.0` for a local binary), without a leading `v`.
    pub fn package_version(&self) -> &str {
        &self.connection.package_version
    }

    /// The Pulumi package schema (GetSchema), with the translation's warnings. It needs the
    /// whole provider schema: an error if a schema cache entry does not decode.
    pub fn package_schema(&self, plugin_version: &str) -> Result<(PackageSpec, Vec<Warning>), LazySchemaError> {
        let parameter = self.parameter.to_json();
        let connection = &self.connection;
        Ok(translate(&TranslateConfig {
            schema: connection.schema.whole()?,
            package_name: &connection.package_name,
            package_version: &connection.package_version,
            terraform_name: &connection.terraform_name,
            source_address: connection.source_address.as_deref(),
            parameter_value: &parameter,
            plugin_version,
            filter: TokenFilter { include: &self.parameter.includes, exclude: &self.parameter.excludes },
        }))
    }

    /// Stops the provider the polite way (see [`crate::tfplugin::ProviderClient::shutdown`]),
    /// after the schema cache write. A connection still shared (an ephemeral resource's
    /// renewal task) is dropped instead, which kills the provider.
    pub async fn shutdown(self) {
        self.finish_cache_write().await;
        match Arc::try_unwrap(self.connection) {
            Ok(connection) => connection.shutdown().await,
            Err(_) => tracing::debug!("the provider connection is still shared at shutdown; dropping it"),
        }
    }

    /// Waits for the schema cache write start-up began, if it is still running. A
    /// short-lived process (schema-gen, `pulumi package add`) must not exit in the middle
    /// of it, or every run would start cold again.
    pub async fn finish_cache_write(&self) {
        let write = self.cache_write.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(write) = write {
            let _ = tokio::task::spawn_blocking(move || write.join()).await;
        }
    }
}
