//! Start-up's first part: the provider binary obtained (a local path, the installer, or a
//! running provider to reattach to) and its launch begun as a task of its own, with the
//! schema cache read for that binary started beside it.

use std::path::Path;

use super::schema::CacheLookup;
use crate::installer;
use crate::lifecycle::support::error::ParameterizeError;
use crate::schema_cache::SchemaCache;
use crate::tfplugin::reattach::{REATTACH_ENV_VARS, reattach_config_from_env};
use crate::tfplugin::{LaunchConfig, ProviderClient, launch, reattach, resolve_executable};

/// The provider being launched: a task of its own, so a warm start can answer without it.
pub(super) enum Launching {
    Started(tokio::task::JoinHandle<Result<ProviderClient, ParameterizeError>>),
    /// Reattached: running already.
    Ready(Box<ProviderClient>),
}

impl Launching {
    fn start(config: LaunchConfig) -> Launching {
        Launching::Started(tokio::spawn(async move { Ok(launch(&config).await?) }))
    }

    pub(super) async fn wait(self) -> Result<ProviderClient, ParameterizeError> {
        match self {
            Launching::Ready(client) => Ok(*client),
            Launching::Started(launch) => launch.await.map_err(|err| ParameterizeError::LaunchTask(err.to_string()))?,
        }
    }
}

/// A provider launching, before its schema is read: start-up's first part.
pub(super) struct Launched {
    /// The provider, launching in a task of its own (or reattached, running already).
    pub launching: Launching,
    /// Its Terraform type (`random`).
    pub terraform_name: String,
    /// Its exact version; `0.0.0` for a local binary or a reattached provider.
    pub package_version: String,
    /// Its registry source address; `None` for a local binary.
    pub source_address: Option<String>,
    /// One line saying where it came from.
    pub origin: String,
    /// Whether it was downloaded just now.
    pub downloaded: bool,
    /// The schema cache read, begun beside the launch.
    pub lookup: CacheLookup,
}

/// Starts launching the local binary `path` (relative to `working_dir`). Async like its
/// registry sibling, though nothing here waits.
pub(super) async fn launch_local(
    path: &str,
    working_dir: &Path,
    cache: Option<&SchemaCache>,
) -> Result<Launched, ParameterizeError> {
    let terraform_name = schema_gen::naming::package_name_from_binary(path)?;
    // The file that runs, as the cache keys it: on Windows a path typed without .exe is the
    // .exe beside it.
    let executable = resolve_executable(&working_dir.join(path))?;
    let origin = format!("{terraform_name} from the local binary {}", executable.display());
    // The cache read overlaps the launch.
    let lookup = CacheLookup::start(&executable, cache);
    let launching = Launching::start(LaunchConfig::terraform_defaults(executable));
    Ok(Launched {
        launching,
        terraform_name,
        package_version: "0.0.0".to_owned(),
        source_address: None,
        origin,
        downloaded: false,
        lookup,
    })
}

/// Attaches to the registry provider `address` if it is listed for reattaching, or
/// installs (`constraint`: its version constraint) and starts launching it.
pub(super) async fn launch_registry(
    address: &str,
    constraint: Option<&str>,
    working_dir: &Path,
    progress: &dyn installer::Progress,
    cache: Option<&SchemaCache>,
) -> Result<Launched, ParameterizeError> {
    let request = installer::InstallRequest::parse(address, constraint.unwrap_or(""))?;
    let source = request.address.to_string();
    if let Some(config) = reattach_config_from_env(&source)? {
        // A running provider has no registry version: like the Go implementation, it is
        // 0.0.0 and any version constraint is ignored.
        let origin = format!("{source} reattached at {} (from {})", config.address, REATTACH_ENV_VARS.join(" or "));
        let launching = Launching::Ready(Box::new(reattach(&source, &config).await?));
        return Ok(Launched {
            launching,
            terraform_name: request.address.type_name.clone(),
            package_version: "0.0.0".to_owned(),
            source_address: Some(source),
            origin,
            downloaded: false,
            lookup: CacheLookup::none(),
        });
    }
    let config = installer::InstallerConfig::from_environment(working_dir)?;
    for warning in &config.warnings {
        progress.warning(warning);
    }
    let installed = installer::install(&request, &config, progress).await?;
    let lookup = CacheLookup::start(&installed.executable, cache);
    let launching = Launching::start(LaunchConfig::terraform_defaults(installed.executable));
    Ok(Launched {
        launching,
        terraform_name: installed.address.type_name.clone(),
        package_version: installed.version.to_string(),
        source_address: Some(installed.address.to_string()),
        origin: installed.source,
        downloaded: installed.downloaded,
        lookup,
    })
}
