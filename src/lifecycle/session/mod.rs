//! The session: the Terraform provider a process is parameterized with, and everything the
//! process remembers between the engine's calls.
//!
//! [`start_provider`] takes a parsed request (arguments or a parameter value) and has
//! `startup` obtain the binary, launch it, read its schema and compute every token; the
//! [`Session`] made of the result is what every later call of the process works against. It owns the [`Connection`] (the calls) and the
//! memory of the deployment: the plans Diff made, the write-only values Check held back,
//! the open ephemeral resources, the listings waiting for their next page, the provider
//! configuration last given, and the schema cache write start-up began.
//!
//! Each Pulumi operation is one method taking one request, one file per concern:
//! - `resources`: Check, Diff, Create, Update, Delete and Read of a resource;
//! - `provider`: CheckConfig, DiffConfig, Configure and the `terraformConfig` method;
//! - `functions`: Invoke (data sources, provider functions, ephemeral resources, actions),
//!   the closing of ephemeral resources, and List;
//! - `mapping`: GetMapping and GetMappings;
//! - here: [`start_provider`] (over `lifecycle/startup/`), Parameterize's answer, GetSchema
//!   ([`Session::package_schema`]) and shutdown.
//!
//! Architecture invariant: the top of `lifecycle`; nothing in `lifecycle` imports it.

pub(super) mod functions;
mod mapping;
pub(super) mod provider;
mod resources;

use std::path::Path;
use std::sync::{Arc, Mutex};

use schema_gen::pulumi::PackageSpec;
use schema_gen::translate::{TokenFilter, TranslateConfig, Warning, translate};

use super::calls::Connection;
use super::operations::ephemeral::OpenEphemerals;
use super::operations::list::ListSessions;
use super::operations::memory::{GeneratedNames, PlanCache};
use super::operations::write_only::WriteOnlyInputs;
use super::startup::{self, CacheWrite, Started};
use super::support::error::ParameterizeError;
use crate::installer;
use crate::parameterize::{Args, ParameterValue};
use crate::property::PropertyMap;
use crate::schema_cache::{CacheKey, LazySchemaError, Miss, SchemaCache, package_inputs_digest};

pub use mapping::{Mapping, MappingError, mapped_providers, mapping};

/// A launched, described provider, and what the process remembers of the deployment.
pub struct Session {
    /// The provider's calls. Shared: an open ephemeral resource renews itself in a task of
    /// its own.
    connection: Arc<Connection>,
    /// The package version Parameterize answers and GetSchema writes: `package_version`,
    /// unless the engine asked for the package by another version (see
    /// [`crate::parameterize::announced_version`]).
    announced_version: String,
    /// The parameter value that reproduces exactly this provider.
    parameter: ParameterValue,
    /// Naming warnings, to show the user once.
    warnings: Vec<Warning>,
    /// One line saying where the provider came from.
    origin: String,
    /// Whether Parameterize downloaded the provider just now (first use), rather than
    /// finding it in a cache, a mirror directory or a local path.
    downloaded: bool,
    /// The schema cache writes begun (start-up's schema, GetSchema's package), joined at
    /// shutdown.
    cache_writes: Mutex<Vec<CacheWrite>>,
    /// The cache and this binary's key, where GetSchema's translated package is kept.
    package_cache: Option<(SchemaCache, CacheKey)>,
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
    Ok(Session::new(startup::start(args, working_dir, progress, cache).await?))
}

impl Session {
    /// The session of a started provider, remembering nothing yet; it announces the
    /// provider's own version until [`Self::announce_as`] says otherwise.
    pub(in crate::lifecycle) fn new(started: Started) -> Session {
        let Started { connection, parameter, warnings, origin, downloaded, cache_write, package_cache } = started;
        Session {
            announced_version: connection.package_version().to_owned(),
            connection: Arc::new(connection),
            parameter,
            warnings,
            origin,
            downloaded,
            cache_writes: Mutex::new(cache_write.into_iter().collect()),
            package_cache,
            plans: PlanCache::default(),
            write_only: WriteOnlyInputs::default(),
            generated_names: GeneratedNames::default(),
            ephemerals: OpenEphemerals::default(),
            lists: ListSessions::default(),
            last_config: Mutex::new(PropertyMap::new()),
        }
    }

    /// The Pulumi package name.
    pub fn package_name(&self) -> &str {
        self.connection.package_name()
    }

    /// The exact provider version (`0.0.0` for a local binary), without a leading `v`.
    pub fn package_version(&self) -> &str {
        self.connection.package_version()
    }

    /// The package version Parameterize answers and GetSchema writes: [`Self::package_version`],
    /// unless [`Self::announce_as`] was given another.
    pub fn announced_version(&self) -> &str {
        &self.announced_version
    }

    /// Takes the version the engine asked for the package by (Parameterize with a parameter
    /// value: the version of the SDK's package) as the one to announce, when it names this
    /// provider's (see [`crate::parameterize::announced_version`]).
    pub fn announce_as(&mut self, requested: &str) {
        self.announced_version = crate::parameterize::announced_version(requested, self.package_version());
    }

    /// Whether GetSchema's subpackage name and version (each empty: any) name this package,
    /// at its announced version.
    pub fn is_package(&self, name: &str, version: &str) -> bool {
        (name.is_empty() || name == self.package_name()) && (version.is_empty() || version == self.announced_version)
    }

    /// One line saying where the provider came from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether start-up downloaded the provider just now (first use), rather than finding it
    /// in a cache, a mirror directory or a local path.
    pub fn downloaded(&self) -> bool {
        self.downloaded
    }

    /// The naming warnings, to show the user once.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// The provider's calls and schema, for tools and tests that look below the session.
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// The Pulumi package schema (GetSchema), at the announced version, with the
    /// translation's warnings. It needs the whole provider schema: an error if a schema cache
    /// entry does not decode.
    pub fn package_schema(&self, plugin_version: &str) -> Result<(PackageSpec, Vec<Warning>), LazySchemaError> {
        let parameter = self.parameter.to_json();
        let connection = &self.connection;
        let (mut spec, warnings) = translate(&TranslateConfig {
            schema: connection.schema().whole()?,
            package_name: connection.package_name(),
            package_version: connection.package_version(),
            terraform_name: connection.terraform_name(),
            source_address: connection.source_address(),
            parameter_value: &parameter,
            plugin_version,
            filter: TokenFilter { include: &self.parameter.includes, exclude: &self.parameter.excludes },
        });
        spec.version.clone_from(&self.announced_version);
        Ok((spec, warnings))
    }

    /// GetSchema's answer: the package schema as JSON, its version the announced one. A
    /// warm start reads it from the schema cache; otherwise it is translated (hundreds of
    /// milliseconds on a big provider) and written to the cache in the background.
    pub fn package_schema_json(&self, plugin_version: &str) -> Result<String, LazySchemaError> {
        let inputs = self.package_inputs(plugin_version);
        if let Some((cache, key)) = &self.package_cache {
            match cache.load_package(key, &inputs) {
                Ok(json) => return Ok(json),
                Err(Miss::Absent) => tracing::debug!("schema cache: no translated package yet"),
                Err(miss) => tracing::debug!("schema cache: {miss}; translating again"),
            }
        }
        let (spec, warnings) = self.package_schema(plugin_version)?;
        for warning in &warnings {
            tracing::debug!("schema translation: {warning}");
        }
        let json = spec.to_json();
        if let Some((cache, key)) = self.package_cache.clone() {
            let stored = json.clone();
            let spawned = std::thread::Builder::new().name("package-cache-write".to_owned()).spawn(move || match cache
                .store_package(&key, &inputs, &stored)
            {
                Ok(()) => tracing::debug!("schema cache: wrote the translated package"),
                Err(err) => tracing::debug!("schema cache: {err}"),
            });
            match spawned {
                Ok(write) => self.cache_writes.lock().unwrap_or_else(|p| p.into_inner()).push(write),
                Err(err) => tracing::debug!("schema cache: cannot start the package write: {err}"),
            }
        }
        Ok(json)
    }

    /// What the translated package depends on besides the binary (which the cache key
    /// names): every setting [`Session::package_schema`] passes to the translation, and
    /// the version GetSchema announces.
    fn package_inputs(&self, plugin_version: &str) -> String {
        let connection = &self.connection;
        package_inputs_digest(&(
            connection.package_name(),
            connection.package_version(),
            connection.terraform_name(),
            connection.source_address(),
            &self.parameter,
            plugin_version,
            &self.announced_version,
        ))
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

    /// Waits for the schema cache writes still running. A short-lived process (schema-gen,
    /// `pulumi package add`) must not exit in the middle of one, or every run would start
    /// cold again.
    pub async fn finish_cache_write(&self) {
        let writes = std::mem::take(&mut *self.cache_writes.lock().unwrap_or_else(|p| p.into_inner()));
        for write in writes {
            let _ = tokio::task::spawn_blocking(move || write.join()).await;
        }
    }
}
