//! Finding, downloading, verifying and caching Terraform provider binaries, the way Terraform
//! and OpenTofu do it, online, behind a mirror, or fully offline.
//!
//! [`install`] takes an [`InstallRequest`] (a [`ProviderAddress`] and [`VersionConstraints`]) and
//! an [`InstallerConfig`] (usually [`InstallerConfig::from_environment`]) and returns an
//! [`InstalledProvider`]: the executable to launch and a one-line description of where it came
//! from. Sources are tried in this order:
//!
//! 1. `dev_overrides` from the CLI configuration ([`cliconfig`]): run straight from a directory.
//! 2. Packages already on disk, without any network: our own cache ([`InstallerConfig::cache_dir`],
//!    the Go implementation's layout) and Terraform's plugin cache (`TF_PLUGIN_CACHE_DIR` /
//!    `plugin_cache_dir`). The newest version there that the constraint allows wins, as in the
//!    Go implementation.
//! 3. The CLI configuration's `provider_installation` methods in order (filesystem mirrors in the
//!    packed and unpacked layouts, network mirrors, the direct registry), or without that block
//!    Terraform's implicit local mirror directories and then the registry. The newest allowed
//!    version across them is installed from the first method offering it. Whatever the method,
//!    the package ends up in our cache (an unpacked mirror package is copied, as `terraform
//!    init` does), so later runs work with the mirror or network gone.
//!
//! Downloads are authenticated (registry: SHA256SUMS, its OpenPGP signature and the zip's
//! SHA-256; mirrors: their listed `h1:`/`zh:` hashes), checked against `.terraform.lock.hcl`
//! when it pins the provider, extracted safely into a staging directory and renamed into the
//! cache under a per-provider file lock. Progress goes to the caller's [`Progress`].
//!
//! Not supported yet: `credentials_helper`, `host` blocks (service discovery overrides),
//! OpenTofu's `oci_mirror`, extra `*.tfrc` files in the CLI configuration directory, the
//! official/partner/community classification of signatures (`trust_signature`), OpenPGP key
//! expiry (tolerated, as Terraform does), writing `.terraform.lock.hcl` (deliberately: we must
//! not change a Terraform working directory), and file locking on non-Unix systems.
//!
//! Architecture invariant: knows nothing about Pulumi's protocol or about running providers;
//! the only Pulumi notion here is the location of the cache directory.

// An install fails at most once and far from any hot path, so a large, flat error enum that is
// easy to match on is worth more than a small `Result`.
#![allow(clippy::result_large_err)]

mod address;
mod archive;
mod cache;
mod cached;
pub mod cliconfig;
mod constraint;
mod error;
mod filesystem;
mod hash;
mod http;
mod install;
mod lockfile;
mod mirror;
mod registry;
mod user_dirs;
mod verify;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use address::{DEFAULT_REGISTRY_HOST, Platform, ProviderAddress, TERRAFORM_REGISTRY_HOST};
pub use archive::ArchiveLimits;
pub use cached::{CachedPackage, cached_packages, mapping_candidates};
pub use cliconfig::{CliConfig, Token};
pub use constraint::VersionConstraints;
pub use error::Error;
pub use filesystem::find_executable;
pub use install::install;
use semver::Version;

/// The Terraform version we announce in `X-Terraform-Version`; registries use it to warn about
/// incompatible providers. We speak the protocols of Terraform 1.x.
pub const ADVERTISED_TERRAFORM_VERSION: &str = "1.10.0";

/// What to install.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallRequest {
    pub address: ProviderAddress,
    pub constraints: VersionConstraints,
}

impl InstallRequest {
    /// Parses a source address and a constraint (empty = any version).
    pub fn parse(source: &str, constraint: &str) -> Result<InstallRequest, Error> {
        Ok(InstallRequest {
            address: ProviderAddress::parse(source)?,
            constraints: VersionConstraints::parse(constraint)?,
        })
    }
}

/// Our plugin cache directory, as the Go implementation chooses it:
/// `PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR`, else `$PULUMI_HOME/dynamic_tf_plugins`, else
/// `~/.pulumi/dynamic_tf_plugins`. The schema cache lives beside the packages.
pub fn plugin_cache_dir(vars: &BTreeMap<String, String>) -> PathBuf {
    let var = |name: &str| vars.get(name).filter(|value| !value.is_empty()).cloned();
    match (var("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR"), var("PULUMI_HOME")) {
        (Some(dir), _) => PathBuf::from(dir),
        (None, Some(pulumi_home)) => Path::new(&pulumi_home).join("dynamic_tf_plugins"),
        (None, None) => {
            user_dirs::home(vars, std::env::consts::OS).unwrap_or_default().join(".pulumi").join("dynamic_tf_plugins")
        }
    }
}

/// Everything the installer reads from its surroundings, gathered up front so tests can build
/// it explicitly and nothing below reads the environment.
#[derive(Clone, Debug)]
pub struct InstallerConfig {
    /// The parsed CLI configuration (dev_overrides, installation methods, credentials).
    pub cli_config: CliConfig,
    /// Our own cache, where downloads are installed.
    pub cache_dir: PathBuf,
    /// Terraform's plugin cache, reused read-only when it holds a matching version.
    pub terraform_plugin_cache_dir: Option<PathBuf>,
    /// Terraform's implicit filesystem mirrors, used when the CLI configuration has no
    /// `provider_installation` block.
    pub implicit_mirror_dirs: Vec<PathBuf>,
    /// The dependency lock file to honour if it exists.
    pub lock_file: Option<PathBuf>,
    /// The platform whose packages we install.
    pub platform: Platform,
    /// PEM certificates trusted in addition to the platform's roots.
    pub extra_root_certificates_pem: Vec<Vec<u8>>,
    /// Registry and mirror tokens by lowercase host (`host:port` for non-default ports).
    pub tokens: BTreeMap<String, Token>,
    /// Sent as `X-Terraform-Version`.
    pub terraform_version: String,
    /// Timeout of each metadata request, and the idle timeout of downloads.
    pub request_timeout: Duration,
    /// How many times a failed request (connection error, timeout, 5xx, 429) is retried.
    pub retries: u32,
    /// The largest provider archive we download.
    pub max_download_bytes: u64,
    /// Bounds on archive contents.
    pub archive_limits: ArchiveLimits,
    /// OpenTofu skips signature checks when its default registry lists no signing keys; `false`
    /// (set by `OPENTOFU_ENFORCE_GPG_VALIDATION=true`) makes that an error.
    pub allow_unsigned_from_default_registry: bool,
    /// Problems with the configuration that do not stop an installation (Terraform's "There
    /// are some problems with the CLI configuration"), for the caller to show.
    pub warnings: Vec<String>,
}

impl InstallerConfig {
    /// Gathers the configuration from the process environment and the CLI configuration file.
    /// `working_dir` is where a `.terraform.lock.hcl` and `terraform.d/plugins` are looked for.
    pub fn from_environment(working_dir: &Path) -> Result<InstallerConfig, Error> {
        InstallerConfig::from_variables(working_dir, &std::env::vars().collect())
    }

    /// [`InstallerConfig::from_environment`] with the environment variables given explicitly.
    pub fn from_variables(working_dir: &Path, vars: &BTreeMap<String, String>) -> Result<InstallerConfig, Error> {
        let var = |name: &str| vars.get(name).filter(|value| !value.is_empty()).cloned();
        let (cli_config, cli_config_warning) = CliConfig::load_from_variables(vars)?;
        let cache_dir = plugin_cache_dir(vars);
        let terraform_plugin_cache_dir = var("TF_PLUGIN_CACHE_DIR")
            .map(|dir| PathBuf::from(cliconfig::expand_env(&dir)))
            .or(cli_config.plugin_cache_dir.clone());
        let implicit_mirror_dirs = user_dirs::implicit_mirror_dirs(working_dir, vars, std::env::consts::OS);

        let mut extra_root_certificates_pem = Vec::new();
        if let Some(path) = var("SSL_CERT_FILE") {
            let pem = std::fs::read(&path).map_err(Error::io("cannot read SSL_CERT_FILE", &path))?;
            extra_root_certificates_pem.push(pem);
        }
        // Environment tokens take precedence over credentials blocks, as in Terraform.
        let mut tokens = cli_config.credentials.clone();
        tokens.extend(http::tokens_from_environment(vars.iter().map(|(name, value)| (name.clone(), value.clone()))));
        let request_timeout = var("TF_REGISTRY_CLIENT_TIMEOUT").and_then(|text| text.parse::<u64>().ok()).unwrap_or(10);
        let retries = var("TF_REGISTRY_DISCOVERY_RETRY").and_then(|text| text.parse::<u32>().ok()).unwrap_or(1);
        Ok(InstallerConfig {
            cli_config,
            warnings: cli_config_warning.into_iter().collect(),
            cache_dir,
            terraform_plugin_cache_dir,
            implicit_mirror_dirs,
            lock_file: Some(working_dir.join(".terraform.lock.hcl")),
            platform: Platform::current(),
            extra_root_certificates_pem,
            tokens,
            terraform_version: ADVERTISED_TERRAFORM_VERSION.to_owned(),
            request_timeout: Duration::from_secs(request_timeout),
            retries,
            max_download_bytes: 4 << 30,
            archive_limits: ArchiveLimits::DEFAULT,
            allow_unsigned_from_default_registry: var("OPENTOFU_ENFORCE_GPG_VALIDATION").as_deref() != Some("true"),
        })
    }
}

/// The outcome of [`install`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstalledProvider {
    pub address: ProviderAddress,
    /// The resolved version; `0.0.0` for dev overrides, which have no version.
    pub version: Version,
    /// The provider executable to launch.
    pub executable: PathBuf,
    /// The package directory holding the executable.
    pub package_dir: PathBuf,
    /// One line saying where the provider came from, for the user.
    pub source: String,
    /// Whether this call downloaded and installed the provider, rather than finding it
    /// installed already: only news is worth telling the user at every run.
    pub downloaded: bool,
}

/// Receives progress from [`install`]; the caller turns it into status lines. Implementations
/// must be cheap: `download` is called about once per MiB.
pub trait Progress: Sync {
    /// A step of the installation, as a short sentence without a trailing period.
    fn step(&self, message: &str);
    /// Something the user should fix that did not stop the installation.
    fn warning(&self, message: &str) {
        self.step(&format!("warning: {message}"));
    }
    /// Bytes received so far of a download, and its total size when the server announced it.
    fn download(&self, url: &str, received: u64, total: Option<u64>);
}

/// A [`Progress`] that discards everything.
pub struct NoProgress;

impl Progress for NoProgress {
    fn step(&self, _message: &str) {}
    fn download(&self, _url: &str, _received: u64, _total: Option<u64>) {}
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;

    fn config_for(vars: &[(&str, &str)]) -> InstallerConfig {
        let vars: BTreeMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        InstallerConfig::from_variables(Path::new("/work"), &vars).unwrap()
    }

    #[test]
    fn cache_dir_follows_the_go_implementation() {
        let cache_dirs: Vec<PathBuf> = [
            // USERPROFILE is Windows' home (user_dirs), HOME everyone else's.
            vec![("HOME", "/home/u"), ("USERPROFILE", "/home/u")],
            vec![("HOME", "/home/u"), ("PULUMI_HOME", "/p")],
            vec![("HOME", "/home/u"), ("PULUMI_HOME", "/p"), ("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", "/c")],
        ]
        .iter()
        .map(|vars| config_for(vars).cache_dir)
        .map(|dir| PathBuf::from(dir.to_string_lossy().replace('\\', "/")))
        .collect();
        expect![[r#"
            [
                "/home/u/.pulumi/dynamic_tf_plugins",
                "/p/dynamic_tf_plugins",
                "/c",
            ]
        "#]]
        .assert_debug_eq(&cache_dirs);
    }

    #[test]
    fn terraform_settings_from_the_environment() {
        let temp = tempfile::tempdir().unwrap();
        let rc = temp.path().join("custom.tfrc");
        std::fs::write(
            &rc,
            "plugin_cache_dir = \"/from/config\"\ncredentials \"a.example.com\" { token = \"config\" }\ncredentials \"b.example.com\" { token = \"config\" }\n",
        )
        .unwrap();
        let rc = rc.to_string_lossy().into_owned();
        let config = config_for(&[
            ("HOME", "/home/u"),
            ("TF_CLI_CONFIG_FILE", &rc),
            ("TF_TOKEN_a_example_com", "env"),
            ("XDG_DATA_DIRS", "/opt/share"),
            ("TF_REGISTRY_CLIENT_TIMEOUT", "30"),
        ]);
        expect![[r#"
            (
                Some(
                    "/from/config",
                ),
                {
                    "a.example.com": Token(<redacted>),
                    "b.example.com": Token(<redacted>),
                },
                30s,
            )
        "#]]
        .assert_debug_eq(&(&config.terraform_plugin_cache_dir, &config.tokens, config.request_timeout));
        // Each system's list is user_dirs' (tested there).
        let vars: BTreeMap<String, String> = [("HOME", "/home/u"), ("XDG_DATA_DIRS", "/opt/share")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(
            config.implicit_mirror_dirs,
            user_dirs::implicit_mirror_dirs(Path::new("/work"), &vars, std::env::consts::OS)
        );
        assert_eq!(config.tokens["a.example.com"].expose(), "env", "environment tokens win");
        assert!(config.extra_root_certificates_pem.is_empty());
        let pem = temp.path().join("corporate-ca.pem");
        std::fs::write(&pem, "-----BEGIN CERTIFICATE-----\n").unwrap();
        let with_ssl_cert_file = config_for(&[("SSL_CERT_FILE", &pem.to_string_lossy())]);
        assert_eq!(with_ssl_cert_file.extra_root_certificates_pem, [b"-----BEGIN CERTIFICATE-----\n".to_vec()]);
        assert_eq!(config.tokens["b.example.com"].expose(), "config");
        let with_env_cache = config_for(&[("TF_CLI_CONFIG_FILE", &rc), ("TF_PLUGIN_CACHE_DIR", "/from/env")]);
        assert_eq!(with_env_cache.terraform_plugin_cache_dir, Some(PathBuf::from("/from/env")));
        assert!(config.warnings.is_empty());
    }

    #[test]
    fn a_missing_configured_cli_config_file_is_a_warning_and_a_broken_one_an_error() {
        let temp = tempfile::tempdir().unwrap();
        let missing = temp.path().join("missing.tfrc").to_string_lossy().into_owned();
        let config = config_for(&[("HOME", "/home/u"), ("TF_CLI_CONFIG_FILE", &missing)]);
        assert_eq!(config.cli_config, CliConfig::default());
        assert_eq!(
            config.warnings,
            [format!(
                "the CLI configuration file {missing} (from TF_CLI_CONFIG_FILE) does not exist; using the default configuration"
            )]
        );
        let broken = temp.path().join("broken.tfrc");
        std::fs::write(&broken, "provider_installation {").unwrap();
        let vars: BTreeMap<String, String> =
            [("TF_CLI_CONFIG_FILE".to_owned(), broken.to_string_lossy().into_owned())].into();
        let error = InstallerConfig::from_variables(Path::new("/work"), &vars).expect_err("a broken file fails");
        assert!(error.to_string().contains("broken.tfrc"), "{error}");
    }
}
