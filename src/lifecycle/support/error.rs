//! What can go wrong in a lifecycle operation, in terms a user can act on.
//!
//! Every variant carries what it is about (a [`Subject`]: the resource's URN, the provider's
//! URN, or the token of an invoke), and its message is the cause alone, with the Pulumi
//! property path where the cause is a value: the engine shows every error under the resource
//! it is about, or after `invocation of <token>`, so a subject in the message would be said
//! twice. A partial failure's reasons are the same texts (the engine lists them as "N errors
//! occurred"). Provider diagnostics keep their summary and detail;
//! broken Terraform invariants quote Terraform's own texts so they can be searched for and
//! reported upstream.
//!
//! Architecture invariant: no gRPC types; the server decides status codes from the variant.

use std::fmt;
use std::time::Duration;

use crate::convert::values::ConvertError;
use crate::property::{PropertyMap, PropertyPath};
use crate::tfplugin::CallError;
use crate::tfplugin::core_rpcs::Severity;

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

/// What an error is about: how messages name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A resource, or the provider itself, by URN.
    Urn(String),
    /// A data source or function, by the token the program invoked.
    Token(String),
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Urn(text) | Subject::Token(text) => f.write_str(text),
        }
    }
}

/// A provider call, as messages name it; defined by `tfplugin`, where each RPC's name is
/// written once.
pub use crate::tfplugin::Rpc;

/// The change an apply makes; also the key of its `timeouts` setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    Create,
    Update,
    Delete,
}

impl Change {
    /// The word users and Terraform's `timeouts` blocks use.
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Create => "create",
            Change::Update => "update",
            Change::Delete => "delete",
        }
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    /// The token names no resource, data source or function of this provider.
    #[error("{token:?} is not a {kind} of the {package} package")]
    UnknownToken { kind: &'static str, token: String, package: String },
    /// A property value does not fit the Terraform schema.
    #[error("invalid value for {}", describe_convert(.error))]
    InvalidProperty { subject: Subject, error: Box<ConvertError> },
    /// The stored state cannot be turned back into Terraform state.
    #[error("the stored state cannot be read: {reason}")]
    State { subject: Subject, reason: String },
    /// The provider answered with error diagnostics.
    #[error("{}", join(.diagnostics))]
    Diagnostics { subject: Subject, rpc: Rpc, diagnostics: Vec<Reported> },
    /// The provider broke one of Terraform core's rules; `summary` is Terraform's text.
    #[error("{summary}: {}", problems.join("; "))]
    ProviderBug { subject: Subject, summary: &'static str, problems: Vec<String> },
    /// The provider call itself failed (crash, connection, protocol).
    #[error("{rpc}: {error}")]
    Call { subject: Subject, rpc: Rpc, error: Box<CallError> },
    /// The call was interrupted and the provider did not answer within the grace period.
    #[error(
        "{rpc} {interruption}; the Terraform provider was asked to stop but did not answer within {}s, \
         so the remote object may exist without being recorded: run `pulumi refresh` (or import it) before retrying",
        grace.as_secs()
    )]
    Interrupted { subject: Subject, rpc: Rpc, interruption: Interruption, grace: Duration },
    /// The provider's answer to a change cannot be read, so whether and how the remote
    /// object exists is unknown.
    #[error(
        "{rpc} answered {reason}; the remote object may exist without being recorded: \
         run `pulumi refresh` (or import it) before retrying"
    )]
    Unreadable { subject: Subject, rpc: Rpc, reason: String },
    /// An apply failed and left no object to record (errors from the provider, a broken
    /// result, an interruption), as reasons already in words.
    #[error("{}", reasons.join("; "))]
    ApplyFailed { subject: Subject, change: Change, reasons: Vec<String> },
    /// The remote object exists but the operation failed.
    #[error("{}", .0.reasons.join("; "))]
    Partial(Box<PartialFailure>),
    /// Required provider settings have no value.
    #[error("missing required configuration for the {package} provider: {}", keys.iter().map(|k| k.name.as_str()).collect::<Vec<_>>().join(", "))]
    MissingConfig { package: String, keys: Vec<MissingKey> },
    /// The user asked for something that cannot be done (e.g. importing an id that names
    /// several objects, or none): the program or command must change.
    #[error("{message}")]
    Invalid { subject: Subject, message: String },
    /// The provider lacks what the request needs (e.g. a list resource, in a provider older
    /// than protocol 5.10/6.10); the engine hears Unimplemented.
    #[error("{message}")]
    Unsupported { subject: Subject, message: String },
    /// The provider deferred a change (protocol 5.6/6.6), which a Pulumi deployment cannot
    /// apply: there is no later run to carry it to, as Terraform has.
    #[error(
        "the provider deferred this change ({reason}); Pulumi does not apply deferred changes, so nothing was changed. Run `pulumi up` again once the provider can plan it"
    )]
    Deferred { subject: Subject, reason: String },
    /// The engine lacks what the request needs (e.g. an action's Invoke without the preview
    /// flag, from an engine too old to send it).
    #[error("{0}")]
    EngineUnsupported(String),
    /// The engine cancelled a call that cannot say what it had done by then (a running
    /// action).
    #[error("{0}")]
    Cancelled(String),
    /// The bridge failed on its own (e.g. a value it built cannot be encoded): a bug here,
    /// not in the program or the provider.
    #[error("{message}")]
    Internal { subject: Subject, message: String },
    /// Another error, with the warnings raised before it in the same operation (a warning
    /// diagnostic beside the provider's errors, a plan's warnings before its apply failed):
    /// Terraform shows those with the error, so the server sends them before the status.
    #[error("{error}")]
    Warned { error: Box<LifecycleError>, warnings: Vec<String> },
}

impl LifecycleError {
    /// This error with `warnings` shown before it (nothing changes when there are none).
    pub fn with_warnings(self, mut warnings: Vec<String>) -> LifecycleError {
        if warnings.is_empty() {
            return self;
        }
        match self {
            LifecycleError::Warned { error, warnings: later } => {
                warnings.extend(later);
                LifecycleError::Warned { error, warnings }
            }
            error => LifecycleError::Warned { error: Box::new(error), warnings },
        }
    }

    /// The error itself and the warnings to show before it.
    pub fn into_parts(self) -> (LifecycleError, Vec<String>) {
        match self {
            LifecycleError::Warned { error, warnings } => (*error, warnings),
            error => (error, Vec::new()),
        }
    }

    /// The message with what it is about in front (`<subject>: <operation> failed: <cause>`),
    /// for where no engine names it: our own log, and the failures reported when ephemeral
    /// resources close at the end of a deployment.
    pub fn in_context(&self) -> String {
        let about = match self {
            LifecycleError::Warned { error, .. } => return error.in_context(),
            LifecycleError::Diagnostics { subject, rpc, .. } => Some(format!("{subject}: {rpc} failed")),
            LifecycleError::ApplyFailed { subject, change, .. } => Some(format!("{subject}: {change} failed")),
            LifecycleError::Partial(partial) => Some(partial.urn.clone()),
            LifecycleError::InvalidProperty { subject, .. }
            | LifecycleError::State { subject, .. }
            | LifecycleError::ProviderBug { subject, .. }
            | LifecycleError::Call { subject, .. }
            | LifecycleError::Interrupted { subject, .. }
            | LifecycleError::Unreadable { subject, .. }
            | LifecycleError::Invalid { subject, .. }
            | LifecycleError::Unsupported { subject, .. }
            | LifecycleError::Deferred { subject, .. }
            | LifecycleError::Internal { subject, .. } => Some(subject.to_string()),
            LifecycleError::UnknownToken { .. }
            | LifecycleError::MissingConfig { .. }
            | LifecycleError::EngineUnsupported(_)
            | LifecycleError::Cancelled(_) => None,
        };
        match about {
            Some(about) => format!("{about}: {self}"),
            None => self.to_string(),
        }
    }

    /// Whether a remote object may have been created or changed although this error says
    /// nothing about it: the engine must then treat the resource's status as unknown.
    pub fn remote_state_uncertain(&self) -> bool {
        match self {
            LifecycleError::Call { rpc, .. }
            | LifecycleError::Interrupted { rpc, .. }
            | LifecycleError::Unreadable { rpc, .. } => rpc.changes_remote_objects(),
            LifecycleError::Warned { error, .. } => error.remote_state_uncertain(),
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

/// Why a provider could not be made ready.
#[derive(Debug, thiserror::Error)]
pub enum ParameterizeError {
    /// No Pulumi package name can be derived from a local binary's file name.
    #[error("{0}; pass --provider-name to choose one")]
    PackageName(#[from] schema_gen::naming::PackageNameError),
    /// Finding or installing a registry provider failed.
    #[error(transparent)]
    Install(#[from] crate::installer::Error),
    /// A reattach variable is set but cannot be used.
    #[error(transparent)]
    Reattach(#[from] crate::tfplugin::reattach::ReattachError),
    /// The provider binary could not be started.
    #[error(transparent)]
    Launch(#[from] crate::tfplugin::LaunchError),
    /// Reading the provider's schema failed.
    #[error(transparent)]
    Schema(#[from] crate::tfplugin::CallError),
    /// The provider answered its schema with error diagnostics.
    #[error("the Terraform provider reported errors in its schema: {0}")]
    SchemaDiagnostics(String),
    /// The task launching the provider ended without an answer (it panicked or the runtime
    /// is shutting down).
    #[error("the provider's launch did not finish: {0}")]
    LaunchTask(String),
}

/// Why a provider launched in the background (a warm start, `calls::Client::launching`)
/// is not there for the calls: each call fails with it as `CallError::NotStarted`.
#[derive(Debug, thiserror::Error)]
pub enum BackgroundLaunchError {
    /// The client was made with no launch to wait for.
    #[error("the provider was never launched")]
    NeverLaunched,
    /// The launch's task ended without an answer (it panicked or the runtime is shutting
    /// down).
    #[error("the launch did not finish: {0}")]
    Unfinished(tokio::task::JoinError),
    /// The launch, or the schema calls that follow it, failed as a cold start would have.
    #[error(transparent)]
    Failed(Box<ParameterizeError>),
    /// The provider speaks another protocol than the cache entry start-up answered from.
    #[error(
        "it speaks plugin protocol {protocol}, but its cached schema was for protocol {expected}; \
         the cache entry is removed: run the command again"
    )]
    OtherProtocol { protocol: u32, expected: u32 },
    /// The schema calls of the launch did not leave the provider behind.
    #[error("the provider was lost after its schema call")]
    Lost,
}

impl From<ParameterizeError> for BackgroundLaunchError {
    fn from(error: ParameterizeError) -> BackgroundLaunchError {
        BackgroundLaunchError::Failed(Box::new(error))
    }
}

/// A required setting that has no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingKey {
    /// The stack configuration key, `<package>:<property>`, as the engine prints it in
    /// `pulumi config set <name> <value>`.
    pub name: String,
    /// The provider property.
    pub property: String,
    pub description: String,
}
