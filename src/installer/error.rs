//! The one error type of the installer: one variant per failure class, each carrying what a
//! user needs to act on it (the provider address, the URL or path, and the cause), and the
//! problem types its variants carry (`ConstraintProblem`, `CliConfigProblem`). The files that
//! produce them import this one, never the reverse, so no circle runs through it.
//!
//! Architecture invariant: messages name the provider, URL or path and the cause; no variant
//! carries Pulumi notions.

use std::path::PathBuf;

use semver::Version;

use super::address::{InvalidAddress, Platform, ProviderAddress};

/// Everything that can go wrong while resolving, downloading, verifying or caching a provider.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The provider source address (`type`, `namespace/type` or `host/namespace/type`) is malformed.
    #[error(transparent)]
    InvalidAddress(#[from] InvalidAddress),

    /// The version constraint string does not follow Terraform's constraint syntax.
    #[error("invalid version constraint {given:?}: {reason} in {clause:?}")]
    InvalidConstraint { given: String, clause: String, reason: ConstraintProblem },

    /// The Terraform CLI configuration file could not be read or understood.
    #[error("CLI configuration file {path}: {reason}")]
    CliConfig { path: PathBuf, reason: CliConfigProblem },

    /// The dependency lock file (`.terraform.lock.hcl`) could not be read or understood.
    #[error("dependency lock file {path}: {reason}")]
    LockFile { path: PathBuf, reason: String },

    /// The lock file selects a version that the requested constraint excludes.
    #[error(
        "locked provider {address} {locked} (from {lock_file}) does not match the version constraint {constraint:?}"
    )]
    LockedVersionExcluded { address: ProviderAddress, locked: Version, constraint: String, lock_file: PathBuf },

    /// A package's hashes match none of the hashes the lock file records for that version.
    #[error(
        "{address} {version} from {origin} does not match any checksum in the dependency lock file {lock_file} (package has {actual:?}, lock file allows {locked:?})"
    )]
    LockedHashMismatch {
        address: ProviderAddress,
        version: Version,
        origin: String,
        lock_file: PathBuf,
        locked: Vec<String>,
        actual: Vec<String>,
    },

    /// A package directory (dev override, cache, mirror or fresh install) holds no provider executable.
    #[error("no executable named terraform-provider-{type_name}[_*|.*] in {dir}")]
    NoExecutable { type_name: String, dir: PathBuf },

    /// A downloaded or mirrored package holds no provider executable.
    #[error("the package {package} holds no executable named terraform-provider-{type_name}[_*|.*]")]
    PackageWithoutExecutable { type_name: String, package: String },

    /// The CLI configuration's `provider_installation` block has no method that covers the provider.
    #[error("no provider installation method in the CLI configuration covers {address}")]
    NoInstallationMethod { address: ProviderAddress },

    /// No source offers a version that satisfies the constraint.
    #[error("no available release of {address} matches the constraint {constraint:?} (available: {})", render_versions(.available))]
    NoMatchingVersion { address: ProviderAddress, constraint: String, available: Vec<Version> },

    /// The registry host does not advertise a provider registry (`providers.v1`) in service discovery.
    #[error("host {host} does not offer a Terraform provider registry (service discovery at {url})")]
    NoProviderService { host: String, url: String },

    /// The registry does not know the provider at all (404 on its versions list). A short
    /// name means the OpenTofu registry, which lacks some providers the Terraform registry has,
    /// so the message then names the full Terraform address to try.
    #[error("provider {address} was not found in the registry at {url}{}", terraform_registry_hint(.address))]
    ProviderNotFound { address: ProviderAddress, url: String },

    /// The selected version has no package for the platform we run on.
    #[error("{address} {version} is not available for {platform}")]
    PlatformNotSupported { address: ProviderAddress, version: Version, platform: String },

    /// The selected version only speaks plugin protocols we cannot speak (we need 5.x or 6.x).
    #[error(
        "{address} {version} supports plugin protocols {protocols:?}, but only protocol versions 5 and 6 are supported{}",
        match .suggestion { Some(v) => format!("; the newest compatible version matching the constraint is {v}"), None => String::new() }
    )]
    IncompatibleProtocol {
        address: ProviderAddress,
        version: Version,
        protocols: Vec<String>,
        suggestion: Option<Version>,
    },

    /// The server refused our credentials (401/403).
    #[error("{url} answered {status} (unauthorized){}", if *.had_credentials { "; check the token configured for this host" } else { "; no credentials are configured for this host (set TF_TOKEN_<host> or a credentials block in the CLI configuration)" })]
    Unauthorized { url: String, status: u16, had_credentials: bool },

    /// The server answered with an unexpected HTTP status.
    #[error("{url} answered HTTP {status}{}", if .body.is_empty() { String::new() } else { format!(": {}", .body) })]
    HttpStatus { url: String, status: u16, body: String },

    /// The request failed below HTTP (DNS, connection, TLS, timeout, truncated body).
    #[error("request to {url} failed: {}", render_source_chain(.source))]
    Transport { url: String, source: reqwest::Error },

    /// Following redirects led back to a URL already visited.
    #[error("redirect loop at {url}")]
    RedirectLoop { url: String },

    /// Following redirects went on for longer than the limit.
    #[error("more than {limit} redirects starting from {url}")]
    TooManyRedirects { url: String, limit: usize },

    /// The server answered something other than what the protocol describes.
    #[error("invalid response from {url}: {reason}")]
    InvalidResponse { url: String, reason: String },

    /// A response or download is larger than the configured limit.
    #[error("{url} sent more than {limit} bytes")]
    ResponseTooLarge { url: String, limit: u64 },

    /// The signed SHA256SUMS document does not list the package's file name with the expected hash.
    #[error("{url} does not list {filename} with checksum {expected}")]
    ChecksumNotListed { url: String, filename: String, expected: String },

    /// A downloaded file's SHA-256 is not the one the source promised.
    #[error("checksum mismatch for {what}: expected {expected}, got {actual}")]
    ChecksumMismatch { what: String, expected: String, actual: String },

    /// A package's hashes match none of the hashes its network mirror lists.
    #[error("{what} matches none of the hashes its source lists (package has {actual:?}, source lists {expected:?})")]
    HashMismatch { what: String, expected: Vec<String>, actual: Vec<String> },

    /// The detached OpenPGP signature over SHA256SUMS is malformed or does not verify.
    #[error("signature {url} is not valid: {reason}")]
    SignatureInvalid { url: String, reason: String },

    /// The signature was made by a key the registry did not list for this provider.
    #[error(
        "signature {url} was made by key {issuers:?}, which is not among the signing keys the registry lists for this provider ({known:?})"
    )]
    UnknownSigningKey { url: String, issuers: Vec<String>, known: Vec<String> },

    /// The registry returned no signing keys, so the package cannot be authenticated.
    #[error("the registry lists no signing keys for {address} {version}, so its package cannot be authenticated")]
    MissingSigningKeys { address: ProviderAddress, version: Version },

    /// A provider archive is malformed or tries something unsafe (path escape, symlink, size bomb).
    #[error("unsafe or malformed provider archive {archive}: {reason}")]
    UnsafeArchive { archive: PathBuf, reason: String },

    /// The extra root certificates (configuration or `SSL_CERT_FILE`) are not valid PEM.
    #[error("cannot use the extra root certificates (from the configuration or SSL_CERT_FILE): {reason}")]
    InvalidRootCertificates { reason: String },

    /// A file system operation failed.
    #[error("{action} {path}: {source}")]
    Io { action: &'static str, path: PathBuf, source: std::io::Error },
}

impl Error {
    pub(crate) fn platform_not_supported(address: &ProviderAddress, version: &Version, platform: &Platform) -> Error {
        Error::PlatformNotSupported {
            address: address.clone(),
            version: version.clone(),
            platform: platform.to_string(),
        }
    }

    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io { action, path, source }
    }
}

fn render_versions(versions: &[Version]) -> String {
    if versions.is_empty() {
        return "none".to_owned();
    }
    let rendered: Vec<String> = versions.iter().map(Version::to_string).collect();
    rendered.join(", ")
}

/// What is wrong with one clause of a version constraint.
#[derive(Debug, thiserror::Error)]
pub enum ConstraintProblem {
    /// Nothing between two commas.
    #[error("empty clause")]
    EmptyClause,
    /// `=<` or `=>`, which Terraform does not accept, and the operator meant.
    #[error("invalid operator {given:?}; did you mean {suggestion:?}?")]
    Operator { given: &'static str, suggestion: &'static str },
    /// `v1.2.3`.
    #[error("a \"v\" prefix must not be used")]
    VPrefix,
    /// More than major, minor and patch.
    #[error("too many version parts; only major, minor and patch are allowed")]
    TooManyParts,
    /// `*` or `x` as a part.
    #[error("wildcards are not allowed; omit the parts that should be unconstrained")]
    Wildcard,
    /// A part that is not a number (the whole version text).
    #[error("{0:?} is not a version number")]
    NotANumber(String),
    /// A malformed prerelease.
    #[error("invalid prerelease {pre:?}: {error}")]
    Prerelease { pre: String, error: semver::Error },
    /// Malformed build metadata.
    #[error("invalid build metadata {build:?}: {error}")]
    Build { build: String, error: semver::Error },
}

/// What is wrong with a CLI configuration file.
#[derive(Debug, thiserror::Error)]
pub enum CliConfigProblem {
    /// Not HCL.
    #[error("{0}")]
    Hcl(hcl::Error),
    /// `plugin_cache_dir` is not a string.
    #[error("plugin_cache_dir must be a string")]
    PluginCacheDir,
    /// A `credentials` block without exactly one label.
    #[error("a credentials block needs exactly one label, the hostname")]
    CredentialsLabel,
    /// An attribute of `provider_installation` other than `dev_overrides`.
    #[error("unexpected attribute {0:?} in provider_installation")]
    UnexpectedAttribute(String),
    /// `dev_overrides` that is not an object.
    #[error("dev_overrides must be a block of \"ADDRESS\" = \"DIRECTORY\" entries")]
    DevOverridesShape,
    /// A `dev_overrides` key that is no provider address.
    #[error("dev_overrides: {0}")]
    DevOverrideAddress(InvalidAddress),
    /// A `dev_overrides` entry (its key) whose directory is not a string.
    #[error("dev_overrides: {0:?} must map to a string")]
    DevOverrideDirectory(String),
    /// A `filesystem_mirror` without a path.
    #[error("filesystem_mirror needs a path")]
    MirrorPath,
    /// A `network_mirror` without a URL.
    #[error("network_mirror needs a url")]
    MirrorUrlMissing,
    /// A `network_mirror` URL that does not parse.
    #[error("network_mirror url {text:?}: {error}")]
    MirrorUrl { text: String, error: url::ParseError },
    /// A `network_mirror` URL that is not HTTPS with a host.
    #[error("network_mirror url {0:?} must be an https URL with a host")]
    MirrorUrlNotHttps(String),
    /// An installation method we do not support.
    #[error("unsupported provider installation method {0:?}")]
    UnsupportedMethod(String),
    /// `include` or `exclude` that is not a list of strings.
    #[error("{0} must be a list of strings")]
    PatternList(&'static str),
    /// A provider pattern with too few or too many parts.
    #[error("invalid provider pattern {0:?}: expected HOST/NAMESPACE/TYPE")]
    PatternShape(String),
    /// A provider pattern `HOST/*/TYPE`.
    #[error("invalid provider pattern {0:?}: a wildcard namespace needs a wildcard type")]
    PatternWildcard(String),
}

/// reqwest's top-level message is often just "error sending request"; the cause sits deeper.
fn render_source_chain(error: &reqwest::Error) -> String {
    let mut rendered = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(inner) = cause {
        rendered.push_str(": ");
        rendered.push_str(&inner.to_string());
        cause = inner.source();
    }
    rendered
}

/// For a provider missing from the OpenTofu registry: the same provider's address on the
/// Terraform registry, which users of the Go implementation may have meant.
fn terraform_registry_hint(address: &ProviderAddress) -> String {
    if address.hostname != super::address::DEFAULT_REGISTRY_HOST {
        return String::new();
    }
    format!(
        "; if it is published on the Terraform registry, name it in full: {}/{}/{}",
        super::address::TERRAFORM_REGISTRY_HOST,
        address.namespace,
        address.type_name
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_missing_from_the_opentofu_registry_suggests_the_terraform_one() {
        let cases = [
            (
                "hashicorp/awscc",
                "provider registry.opentofu.org/hashicorp/awscc was not found in the registry at URL; if it is \
                 published on the Terraform registry, name it in full: registry.terraform.io/hashicorp/awscc",
            ),
            (
                "registry.terraform.io/acme/thing",
                "provider registry.terraform.io/acme/thing was not found in the registry at URL",
            ),
            (
                "example.com:8443/acme/thing",
                "provider example.com:8443/acme/thing was not found in the registry at URL",
            ),
        ];
        for (source, expected) in cases {
            let address = ProviderAddress::parse(source).unwrap();
            let error = Error::ProviderNotFound { address, url: "URL".to_owned() };
            assert_eq!(error.to_string(), expected, "{source}");
        }
    }
}
