//! The provider calls of a resource operation, each followed by the checks Terraform core
//! makes on its answer.
//!
//! [`Resource`] is one resource type of the parameterized provider, bound to the URN of the
//! resource being worked on, so every error can name it. Its methods are the steps
//! Terraform runs: [`Resource::validate`], [`Resource::upgrade`] (on every load of stored
//! state), [`Resource::plan`] (with `AssertPlanValid`, the write-only and `requires_replace`
//! checks), [`Resource::plan_destroy`], [`Resource::apply`] (with `AssertObjectCompatible`
//! and the unknown-after-apply check), [`Resource::read`] and [`Resource::import`]. Checks
//! that Terraform tolerates for providers on the legacy SDK type system become warnings;
//! everything else fails the operation.

use std::future::Future;
use std::time::Duration;

use schema_gen::tf::Schema;
use schema_gen::translate::ResourceProperties;
use tokio_util::sync::CancellationToken;

use super::{Diagnostics, Warned, call_error, decode, encode};
use crate::convert::paths::pulumi_path;
use crate::cty::{self, Path, Value};
use crate::invariants::{self, Violation};
use crate::lifecycle::checks::{self, ApplyOutcome, ApplyProblem, DestroyPlanProblem};
use crate::lifecycle::error::{Interruption, LifecycleError, Operation, PROVIDER_BUG_SUFFIX, Subject};
use crate::lifecycle::parameterized::{Parameterized, TokenKind};
use crate::lifecycle::state;
use crate::property::PropertyPath;
use crate::tfplugin::CallError;
use crate::tfplugin::types::{
    ApplyResourceChangeRequest, DynamicValue, PlanResourceChangeRequest, RawState, ReadResourceRequest,
    UpgradeResourceStateRequest,
};

/// How long a provider may take to answer once it was asked to stop (cancellation or a
/// timeout) before the bridge gives up on the call.
pub const STOP_GRACE: Duration = Duration::from_secs(15);

/// One resource type, bound to the resource an operation works on.
pub struct Resource<'p> {
    pub provider: &'p Parameterized,
    pub tf_name: &'p str,
    pub schema: &'p Schema,
    pub props: ResourceProperties,
    pub urn: String,
    subject: Subject,
}

/// A plan the provider made and the bridge checked.
pub struct Planned {
    pub value: Value,
    pub private: Vec<u8>,
    /// `requires_replace` paths that really change (Terraform's filtering applied).
    pub replace_paths: Vec<Path>,
    pub legacy_type_system: bool,
}

/// What ApplyResourceChange returned, checked. `errors` are the provider's error
/// diagnostics and any broken invariant; with a non-null `new_state` the object exists.
pub struct Applied {
    pub new_state: Value,
    pub private: Vec<u8>,
    pub errors: Vec<String>,
}

impl Parameterized {
    /// The resource type behind a Pulumi token, bound to `urn`.
    pub fn resource(&self, token: &str, urn: &str) -> Result<Resource<'_>, LifecycleError> {
        let found = match self.lookup_token(token) {
            Some((TokenKind::Resource, tf_name)) => self.schema.resources.get_key_value(tf_name),
            _ => None,
        };
        let Some((tf_name, schema)) = found else {
            return Err(LifecycleError::UnknownToken {
                kind: "resource",
                token: token.to_owned(),
                package: self.package_name.clone(),
            });
        };
        let props = self.names.resource_properties(tf_name, &schema.block);
        Ok(Resource {
            provider: self,
            tf_name,
            schema,
            props,
            urn: urn.to_owned(),
            subject: Subject::Urn(urn.to_owned()),
        })
    }

    /// How messages name the provider: its source address, else its name.
    pub(in crate::lifecycle) fn display_name(&self) -> &str {
        self.source_address.as_deref().unwrap_or(&self.terraform_name)
    }
}

impl Resource<'_> {
    pub fn ty(&self) -> cty::Type {
        self.schema.block.implied_type()
    }

    /// The Pulumi path of a Terraform path in this resource.
    pub fn pulumi_path(&self, path: &Path) -> PropertyPath {
        pulumi_path(&self.schema.block, &self.props.names, path)
    }

    pub(in crate::lifecycle) fn subject(&self) -> &Subject {
        &self.subject
    }

    /// `<pulumi path> (<terraform path>)` for messages: users know the first, provider
    /// developers the second.
    fn describe(&self, path: &Path) -> String {
        if path.is_root() {
            return "the resource".to_owned();
        }
        format!("property {} (Terraform {}{path})", self.pulumi_path(path), self.tf_name)
    }

    fn violations(&self, violations: &[Violation]) -> Vec<String> {
        violations.iter().map(|v| format!("{}: {}", self.describe(&v.path), v.message)).collect()
    }

    /// A provider bug, with Terraform's suffix after the last problem.
    pub(in crate::lifecycle) fn bug(&self, summary: &'static str, problems: Vec<String>) -> LifecycleError {
        let mut problems = problems;
        if let Some(last) = problems.last_mut() {
            last.push_str(&format!(". {PROVIDER_BUG_SUFFIX}"));
        }
        LifecycleError::ProviderBug { subject: self.subject.clone(), summary, problems }
    }

    fn diagnostics(&self, diagnostics: &[crate::tfplugin::types::Diagnostic]) -> Diagnostics {
        Diagnostics::new(&self.schema.block, &self.props.names, diagnostics)
    }

    fn encode(&self, what: &str, value: &Value) -> Result<DynamicValue, LifecycleError> {
        encode(&self.subject, what, value, &self.ty())
    }

    fn deferred(&self, problem: String) -> LifecycleError {
        LifecycleError::ProviderBug {
            subject: self.subject.clone(),
            summary: "Provider deferred changes when Terraform did not allow deferrals",
            problems: vec![problem],
        }
    }

    /// ValidateResourceConfig: the provider's diagnostics, errors included (Check turns them
    /// into failures).
    pub async fn validate(&self, config: &Value) -> Result<Diagnostics, LifecycleError> {
        let encoded = self.encode("the configuration", config)?;
        let diagnostics = self
            .provider
            .client
            .0
            .validate_resource_config(self.tf_name, &encoded)
            .await
            .map_err(call_error(&self.subject, Operation::ValidateResourceConfig))?;
        Ok(self.diagnostics(&diagnostics))
    }

    /// Loads stored outputs the way Terraform loads state: rebuilds the raw state and sends
    /// it through `UpgradeResourceState` with the stored schema version. Returns the
    /// upgraded value and the stored private bytes.
    pub async fn upgrade(
        &self,
        id: &str,
        outputs: &crate::property::PropertyMap,
    ) -> Result<Warned<(Value, state::Meta)>, LifecycleError> {
        let state_error = |reason: String| LifecycleError::State { subject: self.subject.clone(), reason };
        let meta = state::Meta::from_outputs(outputs).map_err(|err| state_error(err.to_string()))?;
        if meta.schema_version > self.schema.version {
            return Err(state_error(format!(
                "Resource instance managed by newer provider version: the stored state has schema version {}, \
                 but {} {} only knows version {}; use a newer provider version",
                meta.schema_version,
                self.provider.display_name(),
                self.provider.package_version,
                self.schema.version
            )));
        }
        let raw =
            state::raw_state(self.schema, &self.props, id, outputs).map_err(|err| state_error(err.to_string()))?;
        let request = UpgradeResourceStateRequest {
            type_name: self.tf_name.to_owned(),
            version: meta.schema_version,
            raw_state: RawState::Json(raw),
        };
        let operation = Operation::UpgradeResourceState;
        let response = self
            .provider
            .client
            .0
            .upgrade_resource_state(&request)
            .await
            .map_err(call_error(&self.subject, operation))?;
        let warnings = self.diagnostics(&response.diagnostics).fail_on_errors(&self.subject, operation)?;
        let value = decode(&response.upgraded_state, &self.ty()).map_err(|err| {
            self.bug("Invalid resource state upgrade", vec![format!("the upgraded state is invalid: {err}")])
        })?;
        let unknown = cty::unknown_paths(&value);
        if !unknown.is_empty() {
            return Err(self.bug(
                "Invalid resource state upgrade",
                unknown
                    .iter()
                    .map(|path| format!("{}: the upgraded state holds an unknown value", self.describe(path)))
                    .collect(),
            ));
        }
        Ok(Warned { value: (value, meta), warnings })
    }

    /// PlanResourceChange for an update or create (`prior` null), checked as Terraform
    /// checks plans.
    pub async fn plan(
        &self,
        prior: &Value,
        prior_private: &[u8],
        config: &Value,
    ) -> Result<Warned<Planned>, LifecycleError> {
        let ty = self.ty();
        let proposed = crate::lifecycle::proposed_new(&self.schema.block, prior, config).map_err(|err| {
            LifecycleError::Internal {
                subject: self.subject.clone(),
                message: format!("cannot propose a new state: {err}"),
            }
        })?;
        let request = PlanResourceChangeRequest {
            type_name: self.tf_name.to_owned(),
            prior_state: self.encode("the prior state", prior)?,
            proposed_new_state: self.encode("the proposed new state", &proposed)?,
            config: self.encode("the configuration", config)?,
            prior_private: prior_private.to_vec(),
            provider_meta: self.provider.provider_meta(),
            planned_private: Vec::new(),
        };
        let operation = Operation::PlanResourceChange;
        let response = self
            .provider
            .client
            .0
            .plan_resource_change(&request)
            .await
            .map_err(call_error(&self.subject, operation))?;
        let mut warnings = self.diagnostics(&response.diagnostics).fail_on_errors(&self.subject, operation)?;
        if response.deferred.is_some() {
            return Err(self.deferred(format!(
                "The provider signaled a deferred action for {:?}, but in this context deferrals are disabled. \
                 This is a bug in the provider, please file an issue with the provider developers",
                self.tf_name
            )));
        }
        let provider = self.provider.display_name();
        let planned = decode(&response.planned_state, &ty).map_err(|err| {
            self.bug(
                "Provider produced invalid plan",
                vec![format!("Provider {provider:?} planned an invalid value for {}: {err}", self.urn)],
            )
        })?;
        let mut problems = self.write_only_problems(&planned, "during planning");
        let violations = invariants::assert_plan_valid(&self.schema.block, prior, config, &planned);
        if !violations.is_empty() {
            let texts: Vec<String> = self
                .violations(&violations)
                .into_iter()
                .map(|text| format!("Provider {provider:?} planned an invalid value for {text}"))
                .collect();
            if response.legacy_type_system {
                warnings.push(legacy_warning(provider, "produced an invalid plan", &self.urn, &texts));
            } else {
                problems.extend(texts);
            }
        }
        let requested: Vec<Path> = response.requires_replace.iter().map(super::cty_path).collect();
        let replacement = checks::requires_replace(&ty, prior, &planned, &requested);
        problems.extend(replacement.nonexistent.iter().map(|path| {
            format!(
                "Provider {provider:?} has indicated \"requires replacement\" on {} for a non-existent attribute path {path}",
                self.urn
            )
        }));
        if !problems.is_empty() {
            return Err(self.bug("Provider produced invalid plan", problems));
        }
        let planned = Planned {
            value: planned,
            private: response.planned_private,
            replace_paths: replacement.paths,
            legacy_type_system: response.legacy_type_system,
        };
        Ok(Warned { value: planned, warnings })
    }

    /// PlanResourceChange for a destroy (null proposed state and configuration), which
    /// providers that declare `plan_destroy` expect before a delete. Returns the planned
    /// private bytes for the apply.
    pub async fn plan_destroy(&self, prior: &Value, prior_private: &[u8]) -> Result<Warned<Vec<u8>>, LifecycleError> {
        let request = PlanResourceChangeRequest {
            type_name: self.tf_name.to_owned(),
            prior_state: self.encode("the prior state", prior)?,
            proposed_new_state: DynamicValue::null(),
            config: DynamicValue::null(),
            prior_private: prior_private.to_vec(),
            provider_meta: self.provider.provider_meta(),
            planned_private: Vec::new(),
        };
        let operation = Operation::PlanDestroy;
        let response = self
            .provider
            .client
            .0
            .plan_resource_change(&request)
            .await
            .map_err(call_error(&self.subject, operation))?;
        let warnings = self.diagnostics(&response.diagnostics).fail_on_errors(&self.subject, operation)?;
        let provider = self.provider.display_name();
        let planned = decode(&response.planned_state, &self.ty());
        match checks::destroy_plan_problem(planned.as_ref()) {
            None => Ok(Warned { value: response.planned_private, warnings }),
            Some(DestroyPlanProblem::NotNull) => Err(self.bug(
                "Provider produced invalid plan",
                vec![format!("Provider {provider:?} planned a non-null destroy value for {}", self.urn)],
            )),
            Some(DestroyPlanProblem::Invalid(err)) => Err(self.bug(
                "Provider produced invalid plan",
                vec![format!("Provider {provider:?} planned an invalid value for the destroy of {}: {err}", self.urn)],
            )),
        }
    }

    /// Non-null write-only attributes in `value` (they may never be returned).
    fn write_only_problems(&self, value: &Value, when: &str) -> Vec<String> {
        checks::write_only_returned(&self.schema.block, value)
            .iter()
            .map(|name| self.write_only_problem(name, when))
            .collect()
    }

    fn write_only_problem(&self, name: &str, when: &str) -> String {
        format!(
            "Provider {:?} returned a value for the write-only attribute {} {when}. Write-only attributes \
             cannot be read back from the provider",
            self.provider.display_name(),
            self.describe(&Path::root().attr(name))
        )
    }

    /// ApplyResourceChange, interruptible, checked as Terraform checks apply results.
    /// `planned` null is a delete.
    #[allow(clippy::too_many_arguments)]
    pub async fn apply(
        &self,
        prior: &Value,
        planned: &Value,
        planned_private: &[u8],
        config: &Value,
        legacy_plan: bool,
        limit: Option<Duration>,
        cancel: &CancellationToken,
    ) -> Result<Warned<Applied>, LifecycleError> {
        let request = ApplyResourceChangeRequest {
            type_name: self.tf_name.to_owned(),
            prior_state: self.encode("the prior state", prior)?,
            planned_state: self.encode("the planned state", planned)?,
            config: if config.is_null() { DynamicValue::null() } else { self.encode("the configuration", config)? },
            planned_private: planned_private.to_vec(),
            provider_meta: self.provider.provider_meta(),
        };
        let operation = Operation::ApplyResourceChange;
        let call = self.provider.client.0.apply_resource_change(&request);
        let (response, interruption) = self.interruptible(operation, call, limit, cancel).await?;
        let response = response.map_err(call_error(&self.subject, operation))?;
        let provider = self.provider.display_name();
        let (reported, mut warnings) = self.diagnostics(&response.diagnostics).split();
        let mut errors: Vec<String> = reported.iter().map(ToString::to_string).collect();
        if let Some(interruption) = interruption {
            errors.push(format!("the operation {interruption}"));
        }
        let new_state = decode(&response.new_state, &self.ty()).map_err(|err| {
            // Undecodable means unknown: the object may exist, but nothing can be stored.
            LifecycleError::Unreadable {
                subject: self.subject.clone(),
                operation,
                reason: format!("a new state that is invalid ({err}), a bug in the provider"),
            }
        })?;
        let outcome = ApplyOutcome {
            provider_errors: !reported.is_empty(),
            interrupted: interruption.is_some(),
            legacy_type_system: response.legacy_type_system || legacy_plan,
        };
        let verdict = checks::check_apply(&self.schema.block, planned, new_state, outcome);
        errors.extend(verdict.problems.iter().map(|problem| self.apply_problem(problem)));
        if !verdict.tolerated.is_empty() {
            let texts = self.unexpected_new_values(&verdict.tolerated);
            warnings.push(legacy_warning(provider, "produced an unexpected new value", &self.urn, &texts));
        }
        let applied = Applied { new_state: verdict.new_state, private: response.private, errors };
        Ok(Warned { value: applied, warnings })
    }

    fn unexpected_new_values(&self, violations: &[Violation]) -> Vec<String> {
        let provider = self.provider.display_name();
        self.violations(violations)
            .into_iter()
            .map(|text| {
                format!(
                    "When applying changes to {}, provider {provider:?} produced an unexpected new value: {text}",
                    self.urn
                )
            })
            .collect()
    }

    /// Terraform's words for a problem with an apply result.
    fn apply_problem(&self, problem: &ApplyProblem) -> String {
        let provider = self.provider.display_name();
        match problem {
            ApplyProblem::NullAfterApply => format!(
                "Provider produced inconsistent result after apply: provider {provider:?} produced a null object \
                 after apply for {}. {PROVIDER_BUG_SUFFIX}",
                self.urn
            ),
            ApplyProblem::NonNullAfterDelete => format!(
                "Provider returned invalid result object after apply: provider {provider:?} returned a non-null \
                 object after a delete of {}. {PROVIDER_BUG_SUFFIX}",
                self.urn
            ),
            ApplyProblem::UnknownAfterApply(path) => format!(
                "Provider returned invalid result object after apply: after the apply operation, the provider \
                 still indicated an unknown value for {}. All values must be known after apply, so this is \
                 always a bug in the provider and should be reported in the provider's own repository",
                self.describe(path)
            ),
            ApplyProblem::WriteOnlyReturned(name) => {
                format!("Provider produced invalid object: {}", self.write_only_problem(name, "after apply"))
            }
            ApplyProblem::Inconsistent(violation) => {
                let text = self.unexpected_new_values(std::slice::from_ref(violation)).remove(0);
                format!("Provider produced inconsistent result after apply: {text}. {PROVIDER_BUG_SUFFIX}")
            }
        }
    }

    /// Terraform's "inconsistent final plan" check of the plan made at apply time against
    /// the one Diff made (see [`checks::final_plan_violations`]).
    pub(in crate::lifecycle) fn check_final_plan(
        &self,
        earlier: &checks::EarlierPlan,
        prior: &Value,
        config: &Value,
        planned: &Value,
    ) -> Result<(), LifecycleError> {
        let violations = checks::final_plan_violations(&self.schema.block, earlier, prior, config, planned);
        if violations.is_empty() {
            return Ok(());
        }
        let provider = self.provider.display_name();
        Err(LifecycleError::ProviderBug {
            subject: self.subject.clone(),
            summary: "Provider produced inconsistent final plan",
            problems: violations
                .iter()
                .map(|v| {
                    format!(
                        "When expanding the plan for {} to include new values learned so far during apply, \
                         provider {provider:?} produced an invalid new value for property {}: {}. {PROVIDER_BUG_SUFFIX}",
                        self.urn,
                        self.pulumi_path(&v.path),
                        v.message
                    )
                })
                .collect(),
        })
    }

    /// ReadResource with the (upgraded) state; `None` when the remote object is gone.
    pub async fn read(
        &self,
        current: &Value,
        private: &[u8],
    ) -> Result<Warned<Option<(Value, Vec<u8>)>>, LifecycleError> {
        let request = ReadResourceRequest {
            type_name: self.tf_name.to_owned(),
            current_state: self.encode("the current state", current)?,
            private: private.to_vec(),
            provider_meta: self.provider.provider_meta(),
        };
        let operation = Operation::ReadResource;
        let response =
            self.provider.client.0.read_resource(&request).await.map_err(call_error(&self.subject, operation))?;
        let warnings = self.diagnostics(&response.diagnostics).fail_on_errors(&self.subject, operation)?;
        if response.deferred.is_some() {
            return Err(self.deferred(format!("ReadResource of {:?} was deferred", self.tf_name)));
        }
        let value = decode(&response.new_state, &self.ty()).map_err(|err| {
            self.bug(
                "Provider produced invalid object",
                vec![format!("ReadResource returned a state that is invalid: {err}")],
            )
        })?;
        if value.is_null() {
            return Ok(Warned { value: None, warnings });
        }
        let unknown = cty::unknown_paths(&value);
        if !unknown.is_empty() {
            return Err(self.bug(
                "Provider produced invalid object",
                unknown
                    .iter()
                    .map(|path| {
                        format!(
                            "Provider {:?} planned an invalid value for {} during refresh: the returned state contains \
                             unknown values",
                            self.provider.display_name(),
                            self.describe(path)
                        )
                    })
                    .collect(),
            ));
        }
        Ok(Warned { value: Some((value, response.private)), warnings })
    }

    /// ImportResourceState of `id`: the one object it names, with its private bytes (to be
    /// read next, as Terraform does).
    pub async fn import(&self, id: &str) -> Result<Warned<(Value, Vec<u8>)>, LifecycleError> {
        let operation = Operation::ImportResourceState;
        let response = self
            .provider
            .client
            .0
            .import_resource_state(self.tf_name, id)
            .await
            .map_err(call_error(&self.subject, operation))?;
        let warnings = self.diagnostics(&response.diagnostics).fail_on_errors(&self.subject, operation)?;
        let invalid = |message: String| LifecycleError::Invalid { subject: self.subject.clone(), message };
        let imported = match response.imported_resources.as_slice() {
            [] => {
                return Err(invalid(format!(
                    "Import returned no resources: {:?} found nothing to import for id {id:?}",
                    self.tf_name
                )));
            }
            [one] => one,
            several => {
                let types: Vec<&str> = several.iter().map(|r| r.type_name.as_str()).collect();
                return Err(invalid(format!(
                    "Multiple import states not supported: importing id {id:?} returned {} objects ({}); import each \
                     of them as its own resource",
                    several.len(),
                    types.join(", ")
                )));
            }
        };
        let state = decode(&imported.state, &self.ty()).map_err(|err| {
            self.bug(
                "Provider produced invalid object",
                vec![format!("ImportResourceState returned an invalid state: {err}")],
            )
        })?;
        if state.is_null() {
            return Err(self.bug(
                "Provider produced invalid object",
                vec![format!("Import returned null resource for id {id:?}")],
            ));
        }
        Ok(Warned { value: (state, imported.private.clone()), warnings })
    }

    /// Runs a provider call that may be cancelled by the engine or time out. When either
    /// happens the provider is asked to stop and given [`STOP_GRACE`] to answer; its answer
    /// (often an error with a partial state) is still used, so nothing created is lost.
    async fn interruptible<T>(
        &self,
        operation: Operation,
        call: impl Future<Output = Result<T, CallError>>,
        limit: Option<Duration>,
        cancel: &CancellationToken,
    ) -> Result<(Result<T, CallError>, Option<Interruption>), LifecycleError> {
        tokio::pin!(call);
        let deadline = async {
            match limit {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        let interruption = tokio::select! {
            result = &mut call => return Ok((result, None)),
            () = cancel.cancelled() => Interruption::Cancelled,
            () = deadline => Interruption::TimedOut(limit.unwrap_or_default()),
        };
        tracing::info!(urn = %self.urn, %operation, "{interruption}; asking the provider to stop");
        if let Err(err) = self.provider.client.0.stop_provider().await {
            tracing::warn!("StopProvider failed: {err}");
        }
        match tokio::time::timeout(STOP_GRACE, call).await {
            Ok(result) => Ok((result, Some(interruption))),
            Err(_) => Err(LifecycleError::Interrupted {
                subject: self.subject.clone(),
                operation,
                interruption,
                grace: STOP_GRACE,
            }),
        }
    }
}

/// Terraform's log text for a check it tolerates from legacy-SDK providers.
fn legacy_warning(provider: &str, what: &str, urn: &str, problems: &[String]) -> String {
    let mut text = format!(
        "Provider {provider:?} {what} for {urn}, but we are tolerating it because it is using the legacy plugin SDK.\n    \
         The following problems may be the cause of any confusing errors from downstream operations:"
    );
    for problem in problems {
        text.push_str("\n      - ");
        text.push_str(problem);
    }
    text
}
