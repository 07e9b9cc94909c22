//! Every call the bridge makes to the Terraform provider, each followed by the checks
//! Terraform core makes on its answer.
//!
//! This is the one place that sends requests: [`Client`] holds the provider's connection,
//! and only this module can reach into it. Each method builds one request, sends it, decodes
//! the answer, asks a pure function in `checks` what is wrong with it, and words the
//! problems for the user ([`LifecycleError`], or warnings in a [`Warned`] answer). Each
//! method is one Terraform call, named in Terraform's words (`plan_resource_change`,
//! `read_data_source`, `configure_provider`); the operations (`lifecycle/operations/`)
//! compose these calls and never see a request. Every `impl` of a type defined here is in
//! this folder (`tests/hermetic/architecture/` keeps it so).
//!
//! - `provider`: calls about the provider as a whole and its functions: GetProviderSchema
//!   and GetResourceIdentitySchemas on [`Client`] (start-up's), ValidateProviderConfig,
//!   ConfigureProvider and CallFunction on [`Connection`], ValidateDataResourceConfig and
//!   ReadDataSource on a `DataSource` handle.
//! - `managed_resource`: [`Resource`] and the calls that read or load a managed resource:
//!   ValidateResourceConfig, UpgradeResourceState, ReadResource, ImportResourceState.
//! - `ephemeral`: an ephemeral resource's calls, on an `EphemeralResource` handle:
//!   ValidateEphemeralResourceConfig, OpenEphemeralResource, RenewEphemeralResource,
//!   CloseEphemeralResource.
//! - `list`: ValidateListResourceConfig and ListResource, on a `ListResource` handle
//!   ([`Listing`]: the pages).
//! - `action`: ValidateActionConfig, PlanAction and InvokeAction (streamed progress), on an
//!   `Action` handle.
//! - `generate`: GenerateResourceConfig on [`Resource`], the provider's own configuration of
//!   an import.
//! - `resource_change`: the calls that change one, on [`Resource`]: PlanResourceChange (and its
//!   destroy form), the final-plan check, ApplyResourceChange (interruptible).
//! - `handles`: the per-kind handles (`DataSource`, `EphemeralResource`, `Action`,
//!   `ListResource`), each made by a [`Connection`] method.
//!
//! A new RPC gets its method here, an [`Rpc`] naming it in errors, and its decisions
//! as pure functions in `checks`; ARCHITECTURE.md ("A new Terraform RPC, place by place")
//! lists every other place, sources and tests.
//!
//! Architecture invariant: no Pulumi property values except in error paths; values are cty.

mod action;
mod connection;
pub(crate) mod debug_log;
mod ephemeral;
mod generate;
mod handles;
mod list;
mod managed_resource;
mod provider;
mod resource_change;

use schema_gen::tf::Block;
use schema_gen::translate::PropertyNames;

pub(in crate::lifecycle) use connection::Described;
pub use connection::{Connection, TokenKind};
pub use ephemeral::Opened;
pub use list::{Listed, Listing};
pub use managed_resource::{Applied, Planned, Read, Resource, Stored};
pub use provider::FunctionResult;
pub use resource_change::{Apply, Plan};

use crate::convert::paths::pulumi_path;
use crate::cty::{self, Path, Value};
use crate::lifecycle::support::checks::{self, Audience, Message};
use crate::lifecycle::support::error::{BackgroundLaunchError, LifecycleError, Reported, Rpc, Subject};
use crate::tfplugin::core_rpcs::{AttributePath, Diagnostic, DynamicValue, PathStep, Severity};
use crate::tfplugin::{CallError, ProviderClient};

/// The connection to the provider. Its client is private to this module, so every request
/// goes through the methods here.
///
/// On a warm start the provider is still launching when start-up returns (Parameterize and
/// GetSchema are answered from the schema cache): the launch runs in the background and the
/// first call that needs the provider waits for it ([`Client::ready`]).
pub struct Client {
    /// The provider once launched, or why its launch failed (said to every call).
    ready: tokio::sync::OnceCell<Result<ProviderClient, BackgroundLaunchError>>,
    /// The launch still running in the background, if any. Behind a lock and awaited in
    /// place, so a waiting call that is cancelled leaves it for the next one.
    launch: tokio::sync::Mutex<Option<Launch>>,
    /// The provider's name, for the error of a launch that failed.
    provider: String,
}

/// A launch running in the background: the provider, or why it did not start.
pub type Launch = tokio::task::JoinHandle<Result<ProviderClient, BackgroundLaunchError>>;

impl Client {
    pub(super) fn new(client: ProviderClient) -> Client {
        Client {
            ready: tokio::sync::OnceCell::new_with(Some(Ok(client))),
            launch: tokio::sync::Mutex::new(None),
            provider: String::new(),
        }
    }

    /// A client whose provider is still being launched by `launch`.
    pub(in crate::lifecycle) fn launching(provider: String, launch: Launch) -> Client {
        Client { ready: tokio::sync::OnceCell::new(), launch: tokio::sync::Mutex::new(Some(launch)), provider }
    }

    /// The launched provider, after waiting for a background launch.
    async fn ready(&self) -> Result<&ProviderClient, CallError> {
        let launched = self
            .ready
            .get_or_init(|| async {
                let mut launch = self.launch.lock().await;
                let Some(handle) = launch.as_mut() else {
                    return Err(BackgroundLaunchError::NeverLaunched);
                };
                let started = std::time::Instant::now();
                let result = handle.await.unwrap_or_else(|err| Err(BackgroundLaunchError::Unfinished(err)));
                *launch = None;
                tracing::debug!("start-up: the first provider call waited {:?} for the launch", started.elapsed());
                result
            })
            .await;
        launched
            .as_ref()
            .map_err(|error| CallError::NotStarted { provider: self.provider.clone(), message: error.to_string() })
    }

    /// The provider if it is launched already (a cold start always is).
    pub(in crate::lifecycle) fn launched(&self) -> Option<&ProviderClient> {
        self.ready.get().and_then(|launched| launched.as_ref().ok())
    }

    /// The provider, for the background launch's own first calls.
    pub(in crate::lifecycle) fn into_launched(self) -> Option<ProviderClient> {
        self.ready.into_inner().and_then(Result::ok)
    }

    /// A stream's failure status, with the process's exit when it died. The stream was
    /// opened, so the provider is launched.
    async fn stream_failed(&self, rpc: crate::tfplugin::Rpc, status: tonic::Status) -> CallError {
        match self.ready().await {
            Ok(client) => client.stream_failed(rpc, status).await,
            Err(error) => error,
        }
    }

    /// Stops the provider the polite way, after waiting for a launch still running (a
    /// provider killed mid-handshake could leave its own children behind).
    pub(in crate::lifecycle) async fn shutdown(self) {
        if self.ready.get().is_none() {
            let _ = self.ready().await;
        }
        if let Some(client) = self.into_launched() {
            client.shutdown().await;
        }
    }
}

/// Warnings gathered during an operation, for the engine to show, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Warnings(Vec<String>);

impl Warnings {
    /// Keeps the warnings of a call's answer and returns its value.
    pub fn keep<T>(&mut self, warned: Warned<T>) -> T {
        self.0.extend(warned.warnings.0);
        warned.value
    }

    /// [`Warnings::keep`] for a call that may have failed: a failure takes the warnings
    /// kept so far with it, so they are shown with the error, as Terraform shows them.
    pub fn kept<T>(&mut self, answer: Result<Warned<T>, LifecycleError>) -> Result<T, LifecycleError> {
        match answer {
            Ok(warned) => Ok(self.keep(warned)),
            Err(error) => Err(self.fail(error)),
        }
    }

    /// An answer's value from `check`, the rest of a call's reading of the answer whose
    /// warnings these are; a failure of it carries them.
    pub(super) fn checked<T>(
        mut self,
        check: impl FnOnce(&mut Warnings) -> Result<T, LifecycleError>,
    ) -> Result<Warned<T>, LifecycleError> {
        match check(&mut self) {
            Ok(value) => Ok(Warned { value, warnings: self }),
            Err(error) => Err(self.fail(error)),
        }
    }

    /// `error`, carrying the warnings kept so far (which leave this list).
    pub fn fail(&mut self, error: LifecycleError) -> LifecycleError {
        error.with_warnings(std::mem::take(&mut self.0))
    }

    /// Sends a message where Terraform core sends it ([`checks::audience`]): to the warnings
    /// the engine shows, or to our log only.
    pub(super) fn note(&mut self, message: Message, text: String) {
        match checks::audience(message) {
            Audience::User => self.0.push(text),
            Audience::Log => tracing::warn!(target: "tfbridge::terraform", "{text}"),
        }
    }

    /// Warnings for the user, in order (the operations' own, as Terraform shows the like in
    /// its UI, and those a failed call carried).
    pub(in crate::lifecycle) fn extend(&mut self, warnings: impl IntoIterator<Item = String>) {
        self.0.extend(warnings);
    }

    fn reported(&mut self, reported: &[Reported]) {
        for warning in reported {
            self.note(Message::ProviderWarning, warning.to_string());
        }
    }

    pub fn into_vec(self) -> Vec<String> {
        self.0
    }
}

/// A call's answer with the warnings raised on the way (provider warnings, checks
/// Terraform tolerates).
#[derive(Debug)]
pub struct Warned<T> {
    pub value: T,
    pub warnings: Warnings,
}

/// A cty path from a Terraform attribute path.
pub fn cty_path(path: &AttributePath) -> Path {
    Path {
        steps: path
            .steps
            .iter()
            .map(|step| match step {
                PathStep::Attribute(name) => cty::PathStep::Attr(name.clone()),
                PathStep::KeyString(key) => cty::PathStep::Key(key.clone()),
                PathStep::KeyInt(idx) => cty::PathStep::Index(u64::try_from(*idx).unwrap_or(u64::MAX)),
            })
            .collect(),
    }
}

/// Provider diagnostics, on an object of `block` named by `names`, with Pulumi paths.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    pub errors: Vec<Reported>,
    pub warnings: Vec<Reported>,
}

impl Diagnostics {
    pub fn new(block: &Block, names: &PropertyNames, diagnostics: &[Diagnostic]) -> Diagnostics {
        let mut sorted = Diagnostics::default();
        for diagnostic in diagnostics {
            let reported = Reported {
                severity: diagnostic.severity,
                summary: diagnostic.summary.clone(),
                detail: diagnostic.detail.clone(),
                property: diagnostic.attribute.as_ref().map(|path| pulumi_path(block, names, &cty_path(path))),
            };
            match diagnostic.severity {
                Severity::Error => sorted.errors.push(reported),
                Severity::Warning => sorted.warnings.push(reported),
            }
        }
        sorted
    }

    /// The warnings as text, and `Err` with the errors, if any.
    fn fail_on_errors(self, subject: &Subject, rpc: Rpc) -> Result<Warnings, LifecycleError> {
        let mut warnings = Warnings::default();
        warnings.reported(&self.warnings);
        if !self.errors.is_empty() {
            // The warnings beside the errors are shown too, as Terraform shows every
            // diagnostic of an answer.
            let error = LifecycleError::Diagnostics { subject: subject.clone(), rpc, diagnostics: self.errors };
            return Err(warnings.fail(error));
        }
        Ok(warnings)
    }

    /// The warnings as text, keeping the errors for the caller.
    fn split(self) -> (Vec<Reported>, Warnings) {
        let mut warnings = Warnings::default();
        warnings.reported(&self.warnings);
        (self.errors, warnings)
    }
}

/// Decodes a provider's answer as a value of `ty`.
pub fn decode(value: &DynamicValue, ty: &cty::Type) -> Result<Value, cty::Error> {
    match value {
        DynamicValue::Msgpack(bytes) => cty::msgpack::decode(bytes, ty),
        DynamicValue::Json(bytes) => cty::json::decode(bytes, ty),
    }
}

/// Encodes a value of `ty` for a request. The values are ours (built from the program's
/// inputs or a decoded answer), so a failure is the bridge's.
fn encode(subject: &Subject, what: &str, value: &Value, ty: &cty::Type) -> Result<DynamicValue, LifecycleError> {
    cty::msgpack::encode(value, ty).map(DynamicValue::Msgpack).map_err(|err| LifecycleError::Internal {
        subject: subject.clone(),
        message: format!("{what} cannot be encoded for the provider: {err}"),
    })
}

/// A call whose values the gRPC debug log never shows (see [`debug_log::not_logged`]),
/// its failure worded for `subject`.
async fn unlogged<T>(
    subject: &Subject,
    rpc: Rpc,
    tf_name: &str,
    field: &'static str,
    answer: impl std::future::Future<Output = Result<T, CallError>>,
) -> Result<T, LifecycleError> {
    debug_log::not_logged(debug_log::Call::named(rpc, tf_name), Some(field), answer)
        .await
        .map_err(call_error(subject, rpc))
}

fn call_error(subject: &Subject, rpc: Rpc) -> impl FnOnce(CallError) -> LifecycleError + '_ {
    move |error| LifecycleError::Call { subject: subject.clone(), rpc, error: Box::new(error) }
}
