//! What can go wrong in a lifecycle operation, in terms a user can act on.
//!
//! Every variant names the resource (its URN, or the token for invokes) and, where the cause
//! is a value, the Pulumi property path. Provider diagnostics keep their summary and detail;
//! broken Terraform invariants quote Terraform's own texts so they can be searched for and
//! reported upstream.
//!
//! Architecture invariant: no gRPC types; the server decides status codes from the variant.

use std::fmt;
use std::time::Duration;

use crate::convert::values::ConvertError;
use crate::property::{PropertyMap, PropertyPath};
use crate::tfplugin::CallError;
use crate::tfplugin::types::Severity;

/// Terraform's suffix for every provider-bug diagnostic.
pub const PROVIDER_BUG_SUFFIX: &str =
    "This is a bug in the provider, which should be reported in the provider's own issue tracker.";

/// A provider diagnostic with its attribute path translated to a Pulumi property path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reported {
    pub severity: Severity,
    pub summary: String,
    pub detail: String,
    /// Where the provider pointed, in Pulumi names; `None` for resource-level diagnostics.
    pub property: Option<PropertyPath>,
}

impl Reported {
    /// `summary: detail`, or the summary alone. Used both in errors and as a CheckFailure
    /// reason (where the engine adds the property itself).
    pub fn text(&self) -> String {
        let summary = self.summary.trim_end_matches('.');
        match self.detail.trim() {
            "" => summary.to_owned(),
            detail => format!("{summary}: {detail}"),
        }
    }
}

impl fmt::Display for Reported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.property {
            Some(path) if !path.steps.is_empty() => write!(f, "property {path}: {}", self.text()),
            _ => f.write_str(&self.text()),
        }
    }
}

/// Why an in-flight provider call was interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interruption {
    /// The engine sent `Cancel` (Ctrl-C, or shutdown).
    Cancelled,
    /// The operation ran past the resource's `customTimeouts`.
    TimedOut(Duration),
}

impl fmt::Display for Interruption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Interruption::Cancelled => f.write_str("was cancelled"),
            Interruption::TimedOut(limit) => write!(f, "timed out after {}s", limit.as_secs_f64()),
        }
    }
}

/// A resource that exists remotely but whose operation failed: the engine must store it.
#[derive(Clone, Debug, PartialEq)]
pub struct PartialFailure {
    pub urn: String,
    pub id: String,
    pub outputs: PropertyMap,
    pub inputs: PropertyMap,
    pub reasons: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    /// The token names no resource, data source or function of this provider.
    #[error("{token:?} is not a {kind} of the {package} package")]
    UnknownToken { kind: &'static str, token: String, package: String },
    /// A property value does not fit the Terraform schema.
    #[error("{urn}: invalid value for {}", describe_convert(.error))]
    InvalidProperty { urn: String, error: ConvertError },
    /// The stored state cannot be turned back into Terraform state.
    #[error("{urn}: the stored state cannot be read: {reason}")]
    State { urn: String, reason: String },
    /// The provider answered with error diagnostics.
    #[error("{urn}: {operation} failed: {}", join(.diagnostics))]
    Diagnostics { urn: String, operation: &'static str, diagnostics: Vec<Reported> },
    /// The provider broke one of Terraform core's rules; `summary` is Terraform's text.
    #[error("{urn}: {summary}: {}", problems.join("; "))]
    ProviderBug { urn: String, summary: &'static str, problems: Vec<String> },
    /// The provider call itself failed (crash, connection, protocol).
    #[error("{urn}: {operation}: {error}")]
    Call { urn: String, operation: &'static str, error: Box<CallError> },
    /// The call was interrupted and the provider did not answer within the grace period.
    #[error(
        "{urn}: {operation} {interruption}; the Terraform provider was asked to stop but did not answer within {}s, \
         so the remote object may exist without being recorded: run `pulumi refresh` (or import it) before retrying",
        grace.as_secs()
    )]
    Interrupted { urn: String, operation: &'static str, interruption: Interruption, grace: Duration },
    /// The provider's answer to a change cannot be read, so whether and how the remote
    /// object exists is unknown.
    #[error(
        "{urn}: {operation} answered {reason}; the remote object may exist without being recorded: \
         run `pulumi refresh` (or import it) before retrying"
    )]
    Unreadable { urn: String, operation: &'static str, reason: String },
    /// An apply failed and left no object to record (errors from the provider, a broken
    /// result, an interruption), as reasons already in words.
    #[error("{urn}: {operation} failed: {}", reasons.join("; "))]
    ApplyFailed { urn: String, operation: &'static str, reasons: Vec<String> },
    /// The remote object exists but the operation failed.
    #[error("{}: {}", .0.urn, .0.reasons.join("; "))]
    Partial(Box<PartialFailure>),
    /// Required provider settings have no value.
    #[error("missing required configuration for the {package} provider: {}", keys.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", "))]
    MissingConfig { package: String, keys: Vec<super::MissingKey> },
    /// A request that does not make sense (e.g. several objects from one import).
    #[error("{urn}: {message}")]
    Invalid { urn: String, message: String },
}

impl LifecycleError {
    /// Whether a remote object may have been created or changed although this error says
    /// nothing about it: the engine must then treat the resource's status as unknown.
    pub fn remote_state_uncertain(&self) -> bool {
        match self {
            LifecycleError::Call { operation, .. }
            | LifecycleError::Interrupted { operation, .. }
            | LifecycleError::Unreadable { operation, .. } => operation.starts_with("ApplyResourceChange"),
            _ => false,
        }
    }
}

fn describe_convert(error: &ConvertError) -> String {
    if error.path.steps.is_empty() {
        error.kind.to_string()
    } else {
        format!("property {}: {}", error.path, error.kind)
    }
}

fn join(diagnostics: &[Reported]) -> String {
    diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}
