//! The Terraform provider a process is parameterized with: resolved, launched, and its
//! schema read once.
//!
//! [`start_provider`] takes a parsed request (arguments or a parameter value), obtains the
//! binary (a local path as given, or the installer for a registry address), launches it,
//! reads its schema and computes every token. The result, [`Parameterized`], is what every
//! later call of the process works against; [`Parameterized::package_schema`] is GetSchema.

use std::collections::BTreeMap;
use std::path::Path;

use schema_gen::pulumi::PackageSpec;
use schema_gen::tf::{IdentitySchema, Schema};
use schema_gen::translate::{ProviderNames, TokenFilter, TranslateConfig, Warning, translate};

use super::calls::{Client, Resource};
use super::error::LifecycleError;
use super::schema_source::{CacheLookup, CacheWrite};
use crate::installer;
use crate::parameterize::{Args, LocalValue, ParameterValue, RemoteValue, Source};
use crate::schema_cache::{LazySchema, SchemaCache};
use crate::tfplugin::reattach::{REATTACH_ENV_VARS, ReattachError, reattach_config_from_env};
use crate::tfplugin::types::ServerCapabilities;
use crate::tfplugin::{CallError, LaunchConfig, LaunchError, launch, reattach};

/// A launched, described provider.
pub struct Parameterized {
    /// The Pulumi package name: `--provider-name`, else the provider's type name.
    pub package_name: String,
    /// The exact provider version (`0.0.0` for a local binary), without a leading `v`.
    pub package_version: String,
    /// The package version Parameterize answers and GetSchema writes: `package_version`,
    /// unless the engine asked for the package by another version (see
    /// [`crate::parameterize::announced_version`]).
    pub announced_version: String,
    /// The provider's own name (its registry type, or the name in a local binary's file name).
    pub terraform_name: String,
    /// The canonical source address, for registry providers.
    pub source_address: Option<String>,
    /// The parameter value that reproduces exactly this provider.
    pub parameter: ParameterValue,
    /// Reached only through `calls`.
    pub(super) client: Client,
    /// Decoded per item when it came from the schema cache: prefer its item accessors
    /// (`resource`, `data_source`, `provider`, ...) to the whole model it derefs to.
    pub schema: LazySchema,
    /// Resource identity schemas by resource type (GetResourceIdentitySchemas), read at
    /// start-up right after the schema; empty for providers older than protocol 5.9/6.9.
    pub identity_schemas: BTreeMap<String, IdentitySchema>,
    pub names: ProviderNames,
    /// Naming warnings, to show the user once.
    pub warnings: Vec<Warning>,
    /// One line saying where the provider came from.
    pub origin: String,
    /// Whether Parameterize downloaded the provider just now (first use), rather than
    /// finding it in a cache, a mirror directory or a local path.
    pub downloaded: bool,
    /// Optional protocol features the provider declared (e.g. `plan_destroy`).
    pub(super) capabilities: ServerCapabilities,
    /// Pulumi token → Terraform name, for resources, data sources, functions and actions.
    by_token: BTreeMap<String, (TokenKind, String)>,
    /// The ephemeral resources open now (`ephemeral.rs`).
    pub(super) ephemerals: super::ephemeral::OpenEphemerals,
    /// The schema cache write begun at start-up, if any, joined at shutdown.
    pub(super) cache_write: std::sync::Mutex<Option<CacheWrite>>,
}

/// What a Pulumi token names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Resource,
    DataSource,
    Function,
    /// An ephemeral resource, invoked as a function `open<Name>`.
    EphemeralResource,
    /// A Terraform action, invoked as a function (`lifecycle/action.rs`).
    Action,
}

/// Why a provider could not be made ready.
#[derive(Debug, thiserror::Error)]
pub enum ParameterizeError {
    /// No Pulumi package name can be derived from a local binary's file name.
    #[error("{0}; pass --provider-name to choose one")]
    PackageName(#[from] schema_gen::naming::PackageNameError),
    /// Finding or installing a registry provider failed.
    #[error(transparent)]
    Install(#[from] installer::Error),
    /// A reattach variable is set but cannot be used.
    #[error(transparent)]
    Reattach(#[from] ReattachError),
    /// The provider binary could not be started.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// Reading the provider's schema failed.
    #[error(transparent)]
    Schema(#[from] CallError),
    /// The provider answered its schema with error diagnostics.
    #[error("the Terraform provider reported errors in its schema: {0}")]
    SchemaDiagnostics(String),
}

/// Obtains, launches and describes the provider `args` name. A registry provider listed in
/// `PULUMI_BRIDGE_REATTACH_PROVIDERS` (or `TF_REATTACH_PROVIDERS`) is not installed: the
/// running one is attached to, as the Go implementation does for debugging. `working_dir` is where relative
/// local paths and `.terraform.lock.hcl` are looked up (the engine's program directory).
pub async fn start_provider(
    args: &Args,
    working_dir: &Path,
    progress: &dyn installer::Progress,
) -> Result<Parameterized, ParameterizeError> {
    start_provider_with_cache(args, working_dir, progress, SchemaCache::from_environment()).await
}

/// [`start_provider`] with the schema cache given explicitly (`None`: no cache), rather
/// than from the environment.
pub async fn start_provider_with_cache(
    args: &Args,
    working_dir: &Path,
    progress: &dyn installer::Progress,
    cache: Option<SchemaCache>,
) -> Result<Parameterized, ParameterizeError> {
    // Start-up's phases, for the debug line below: where a slow start-up spends its time.
    let started = std::time::Instant::now();
    let (client, terraform_name, package_version, source_address, origin, downloaded, lookup) = match &args.source {
        Source::Local { path } => {
            let terraform_name = schema_gen::naming::package_name_from_binary(path)?;
            let executable = working_dir.join(path);
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
    let (schema, capabilities, cache_write) = client.startup_schema(lookup).await?;
    let schema_done = started.elapsed();
    let identity_schemas = client.identity_schemas().await?;
    let identity_done = started.elapsed();

    let package_name = args.provider_name.clone().unwrap_or_else(|| terraform_name.clone());
    let filter = TokenFilter { include: &args.includes, exclude: &args.excludes };
    let (names, warnings) = ProviderNames::new(schema.names(), &package_name, &filter);
    let by_token = names
        .resources()
        .map(|(tf, token)| (token.to_owned(), (TokenKind::Resource, tf.to_owned())))
        .chain(names.data_sources().map(|(tf, token)| (token.to_owned(), (TokenKind::DataSource, tf.to_owned()))))
        .chain(names.functions().map(|(tf, token)| (token.to_owned(), (TokenKind::Function, tf.to_owned()))))
        .chain(
            names
                .ephemeral_resources()
                .map(|(tf, token)| (token.to_owned(), (TokenKind::EphemeralResource, tf.to_owned()))),
        )
        .chain(names.actions().map(|(tf, token)| (token.to_owned(), (TokenKind::Action, tf.to_owned()))))
        .collect();
    tracing::debug!(
        "start-up: provider ready after {launched:?}, schema after {schema_done:?}, identity schemas after \
         {identity_done:?}, names after {:?}",
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
    Ok(Parameterized {
        package_name,
        announced_version: package_version.clone(),
        package_version,
        terraform_name,
        source_address,
        parameter,
        client,
        schema,
        identity_schemas,
        names,
        warnings,
        origin,
        downloaded,
        capabilities,
        by_token,
        ephemerals: Default::default(),
        cache_write: std::sync::Mutex::new(cache_write),
    })
}

impl Parameterized {
    /// What a Pulumi token names, and the Terraform name behind it.
    pub fn lookup_token(&self, token: &str) -> Option<(TokenKind, &str)> {
        self.by_token.get(token).map(|(kind, tf_name)| (*kind, tf_name.as_str()))
    }

    /// The resource type behind a Pulumi token, bound to `urn`.
    pub fn resource(&self, token: &str, urn: &str) -> Result<Resource<'_>, LifecycleError> {
        let found = match self.lookup_token(token) {
            Some((TokenKind::Resource, tf_name)) => self.schema.resource(tf_name),
            _ => None,
        };
        let Some((tf_name, schema)) = found else {
            return Err(self.unknown_token("resource", token));
        };
        Ok(Resource::new(self, tf_name, schema, urn))
    }

    /// A data source's schema, decoded on first use.
    pub(super) fn data_source_schema(&self, tf_name: &str) -> Result<&Schema, LifecycleError> {
        self.schema
            .data_source(tf_name)
            .map(|(_, schema)| schema)
            .ok_or_else(|| self.unknown_token("data source", tf_name))
    }

    pub(super) fn unknown_token(&self, kind: &'static str, token: &str) -> LifecycleError {
        LifecycleError::UnknownToken { kind, token: token.to_owned(), package: self.package_name.clone() }
    }

    /// How messages name the provider: its source address, else its name.
    pub(super) fn display_name(&self) -> &str {
        self.source_address.as_deref().unwrap_or(&self.terraform_name)
    }

    /// The Pulumi package schema (GetSchema), with the translation's warnings.
    pub fn package_schema(&self, plugin_version: &str) -> (PackageSpec, Vec<Warning>) {
        let parameter = self.parameter.to_json();
        translate(&TranslateConfig {
            schema: &self.schema,
            package_name: &self.package_name,
            package_version: &self.package_version,
            terraform_name: &self.terraform_name,
            source_address: self.source_address.as_deref(),
            parameter_value: &parameter,
            plugin_version,
            filter: TokenFilter { include: &self.parameter.includes, exclude: &self.parameter.excludes },
        })
    }
}
