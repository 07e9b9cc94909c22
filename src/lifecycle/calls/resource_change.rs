//! The calls that change a resource: PlanResourceChange (for a create or update, and for a
//! destroy), ApplyResourceChange (interruptible) and the final-plan check between them,
//! each followed by Terraform core's checks of the answer (decided in `checks`, worded here).

use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::debug_log::{self, Call, Request};
use super::managed_resource::{Applied, Planned, Resource, STOP_GRACE, Stored};
use super::{Warned, Warnings, call_error, decode};
use crate::cty::{self, Path, Value};
use crate::invariants::Violation;
use crate::lifecycle::support::checks::{self, ApplyOutcome, ApplyProblem, DestroyPlanProblem, Message, PlanProblem};
use crate::lifecycle::support::error::{Interruption, LifecycleError, PROVIDER_BUG_SUFFIX, Rpc};
use crate::tfplugin::CallError;
use crate::tfplugin::core_rpcs::{
    ApplyResourceChangeRequest, DeferredReason, DynamicValue, PlanResourceChangeRequest, PlanResourceChangeResponse,
};

/// What one PlanResourceChange for a create or update is asked to plan.
#[derive(Clone, Copy)]
pub struct Plan<'a> {
    /// The upgraded prior object (a null state for a create), its private bytes and identity.
    pub prior: Stored<'a>,
    /// The saved plan's `planned_private` when this is the plan made again at apply time;
    /// empty otherwise.
    pub saved_private: &'a [u8],
    pub config: &'a Value,
    /// What the gRPC debug log redacts besides the schema's sensitive values.
    pub secrets: &'a [Path],
}

/// What one ApplyResourceChange is asked to do.
pub struct Apply<'a> {
    pub prior: &'a Value,
    pub planned: &'a Planned,
    /// The configuration; null for a delete.
    pub config: &'a Value,
    /// What the gRPC debug log redacts besides the schema's sensitive values.
    pub secrets: &'a [Path],
    /// The time limit; past it, and on `cancel`, the provider is asked to stop.
    pub limit: Option<Duration>,
    pub cancel: &'a CancellationToken,
}

impl Resource<'_> {
    /// Sends a PlanResourceChange; error diagnostics fail it.
    async fn send_plan(
        &self,
        request: &PlanResourceChangeRequest,
        rpc: Rpc,
        secrets: &[Path],
    ) -> Result<(PlanResourceChangeResponse, Warnings), LifecycleError> {
        let response = debug_log::logged(self.log(rpc, secrets), Request::Plan(request), async {
            self.connection.client.ready().await?.plan_resource_change(request).await
        })
        .await
        .map_err(call_error(&self.subject, rpc))?;
        let warnings = self.diagnostics(&response.diagnostics).fail_on_errors(&self.subject, rpc)?;
        Ok((response, warnings))
    }

    /// PlanResourceChange for an update or create (a null prior state), checked as
    /// Terraform checks plans.
    pub async fn plan_resource_change(&self, plan: Plan<'_>) -> Result<Warned<Planned>, LifecycleError> {
        let Plan {
            prior: Stored { state: prior, private: prior_private, identity: prior_identity },
            saved_private,
            config,
            secrets,
        } = plan;
        let ty = self.ty();
        let proposed = crate::lifecycle::support::proposed_new::proposed_new(&self.schema.block, prior, config)
            .map_err(|err| LifecycleError::Internal {
                subject: self.subject.clone(),
                message: format!("cannot propose a new state: {err}"),
            })?;
        let request = PlanResourceChangeRequest {
            type_name: self.tf_name.to_owned(),
            prior_state: self.encode("the prior state", prior)?,
            proposed_new_state: self.encode("the proposed new state", &proposed)?,
            config: self.encode("the configuration", config)?,
            prior_private: prior_private.to_vec(),
            provider_meta: self.connection.provider_meta(),
            planned_private: saved_private.to_vec(),
            prior_identity: self.encode_identity(prior_identity)?,
        };
        let (response, mut warnings) = self.send_plan(&request, Rpc::PlanResourceChange, secrets).await?;
        if let Some(reason) = response.deferred {
            return Ok(self.deferred_plan(reason, response, warnings));
        }
        let provider = self.connection.display_name();
        let planned = decode(&response.planned_state, ty).map_err(|err| {
            self.bug(
                "Provider produced invalid plan",
                vec![format!("Provider {provider:?} planned an invalid value for {}: {err}", self.urn)],
            )
        })?;
        let requested: Vec<Path> = response.requires_replace.iter().map(super::cty_path).collect();
        let verdict =
            checks::check_plan(&self.schema.block, prior, config, &planned, &requested, response.legacy_type_system);
        if !verdict.tolerated.is_empty() {
            let texts = self.invalid_planned_values(&verdict.tolerated);
            warnings.note(
                Message::LegacyInvalidPlan,
                legacy_warning(provider, "produced an invalid plan", &self.urn, &texts),
            );
        }
        if !verdict.problems.is_empty() {
            let problems = verdict.problems.iter().map(|problem| self.plan_problem(problem)).collect();
            return Err(self.bug("Provider produced invalid plan", problems));
        }
        let identity = self.returned_identity(Rpc::PlanResourceChange, response.planned_identity.as_ref())?;
        let planned = Planned {
            value: planned,
            private: response.planned_private,
            replace_paths: verdict.replace_paths,
            legacy_type_system: response.legacy_type_system,
            identity,
            deferred: None,
        };
        Ok(Warned { value: planned, warnings })
    }

    /// A plan the provider deferred. Terraform shows a deferred change in the plan and
    /// applies it in a later run. A Pulumi deployment has no later run to carry it to: a
    /// preview shows the resource with unknown outputs and a warning; Create and Update
    /// refuse to apply it.
    fn deferred_plan(
        &self,
        reason: DeferredReason,
        response: PlanResourceChangeResponse,
        mut warnings: Warnings,
    ) -> Warned<Planned> {
        warnings.note(Message::Deferred, format!(
            "{}: the provider deferred this change ({}); `pulumi up` will not apply it until the provider can plan it",
            self.urn,
            crate::lifecycle::support::deferral::reason_text(reason)
        ));
        // Every attribute unknown, as Terraform shows a deferred resource's plan.
        let ty = self.ty();
        let value = match ty {
            cty::Type::Object(object) => {
                Value::object(object.attrs.iter().map(|(name, ty)| (name.clone(), Value::unknown(ty.clone()))))
            }
            _ => Value::unknown(ty.clone()),
        };
        let planned = Planned {
            value,
            private: response.planned_private,
            replace_paths: Vec::new(),
            legacy_type_system: response.legacy_type_system,
            identity: None,
            deferred: Some(reason),
        };
        Warned { value: planned, warnings }
    }

    /// PlanResourceChange for a destroy (null proposed state and configuration), which
    /// providers that declare `plan_destroy` expect before a delete. Returns the planned
    /// private bytes for the apply.
    pub async fn plan_destroy(&self, prior: Stored<'_>, secrets: &[Path]) -> Result<Warned<Vec<u8>>, LifecycleError> {
        let request = PlanResourceChangeRequest {
            type_name: self.tf_name.to_owned(),
            prior_state: self.encode("the prior state", prior.state)?,
            proposed_new_state: DynamicValue::null(),
            config: DynamicValue::null(),
            prior_private: prior.private.to_vec(),
            provider_meta: self.connection.provider_meta(),
            planned_private: Vec::new(),
            prior_identity: self.encode_identity(prior.identity)?,
        };
        let (response, warnings) = self.send_plan(&request, Rpc::PlanDestroy, secrets).await?;
        let provider = self.connection.display_name();
        let planned = decode(&response.planned_state, self.ty());
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

    fn write_only_problem(&self, name: &str, when: &str) -> String {
        format!(
            "Provider {:?} returned a value for the write-only attribute {} {when}. Write-only attributes \
             cannot be read back from the provider",
            self.connection.display_name(),
            self.describe(&Path::root().attr(name))
        )
    }

    fn invalid_planned_values(&self, violations: &[Violation]) -> Vec<String> {
        let provider = self.connection.display_name();
        self.violations(violations)
            .into_iter()
            .map(|text| format!("Provider {provider:?} planned an invalid value for {text}"))
            .collect()
    }

    /// Terraform's words for a problem with a plan.
    fn plan_problem(&self, problem: &PlanProblem) -> String {
        let provider = self.connection.display_name();
        match problem {
            PlanProblem::WriteOnlyPlanned(name) => self.write_only_problem(name, "during planning"),
            PlanProblem::Invalid(violation) => self.invalid_planned_values(std::slice::from_ref(violation)).remove(0),
            PlanProblem::ReplaceNonexistent(path) => format!(
                "Provider {provider:?} has indicated \"requires replacement\" on {} for a non-existent attribute path {path}",
                self.urn
            ),
        }
    }

    /// ApplyResourceChange, interruptible, checked as Terraform checks apply results.
    /// A null planned value is a delete.
    pub async fn apply_resource_change(&self, change: Apply<'_>) -> Result<Warned<Applied>, LifecycleError> {
        let Apply { prior, planned, config, secrets, limit, cancel } = change;
        let legacy_plan = planned.legacy_type_system;
        let (planned, planned_private, planned_identity) =
            (&planned.value, planned.private.as_slice(), planned.identity.as_ref());
        let request = ApplyResourceChangeRequest {
            type_name: self.tf_name.to_owned(),
            prior_state: self.encode("the prior state", prior)?,
            planned_state: self.encode("the planned state", planned)?,
            config: if config.is_null() { DynamicValue::null() } else { self.encode("the configuration", config)? },
            planned_private: planned_private.to_vec(),
            provider_meta: self.connection.provider_meta(),
            planned_identity: self.encode_identity(planned_identity)?,
        };
        let rpc = Rpc::ApplyResourceChange;
        let call = debug_log::logged(self.log(rpc, secrets), Request::Apply(&request), async {
            self.connection.client.ready().await?.apply_resource_change(&request).await
        });
        let (response, interruption) = self.interruptible(rpc, call, limit, cancel).await?;
        let response = response.map_err(call_error(&self.subject, rpc))?;
        let provider = self.connection.display_name();
        let (reported, mut warnings) = self.diagnostics(&response.diagnostics).split();
        let mut errors: Vec<String> = reported.iter().map(ToString::to_string).collect();
        let new_state = match decode(&response.new_state, self.ty()) {
            Ok(new_state) => new_state,
            Err(err) => {
                // Undecodable means unknown: the object may exist, but nothing can be stored.
                // The provider's own errors say more than the bytes: they come first.
                let mut reasons = errors;
                reasons.push(format!("a new state that is invalid ({err}), a bug in the provider"));
                let error =
                    LifecycleError::Unreadable { subject: self.subject.clone(), rpc, reason: reasons.join("; ") };
                return Err(warnings.fail(error));
            }
        };
        let outcome = ApplyOutcome {
            provider_errors: !reported.is_empty(),
            interrupted: interruption.is_some(),
            legacy_type_system: response.legacy_type_system || legacy_plan,
        };
        let verdict = checks::check_apply(&self.schema.block, planned, new_state, outcome);
        let mut unknown = Vec::new();
        for problem in &verdict.problems {
            let text = match (problem, interruption) {
                (ApplyProblem::Interrupted, Some(how)) => format!("the rpc {how}"),
                _ => self.apply_problem(problem),
            };
            match problem {
                ApplyProblem::UnknownAfterApply(_) => unknown.push(text),
                _ => errors.push(text),
            }
        }
        if !verdict.tolerated.is_empty() {
            let texts = self.unexpected_new_values(&verdict.tolerated);
            warnings.note(
                Message::LegacyUnexpectedNewValue,
                legacy_warning(provider, "produced an unexpected new value", &self.urn, &texts),
            );
        }
        // A broken identity must not lose the object the apply made: it becomes one more
        // error beside the state, which is still recorded.
        let identity = match self.returned_identity(rpc, response.new_identity.as_ref()) {
            Ok(identity) => identity,
            Err(err) => {
                errors.push(err.to_string());
                None
            }
        };
        let applied = Applied { new_state: verdict.new_state, private: response.private, identity, errors, unknown };
        Ok(Warned { value: applied, warnings })
    }

    fn unexpected_new_values(&self, violations: &[Violation]) -> Vec<String> {
        let provider = self.connection.display_name();
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
        let provider = self.connection.display_name();
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
                "Provider returned invalid result object after apply: after the apply rpc, the provider \
                 still indicated an unknown value for {}. All values must be known after apply, so this is \
                 always a bug in the provider and should be reported in the provider's own repository",
                self.describe(path)
            ),
            ApplyProblem::WriteOnlyReturned(name) => {
                format!("Provider produced invalid object: {}", self.write_only_problem(name, "after apply"))
            }
            ApplyProblem::Interrupted => "the rpc was interrupted".to_owned(),
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
        let provider = self.connection.display_name();
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

    /// Runs a provider call that may be cancelled by the engine or time out. When either
    /// happens the provider is asked to stop and given [`STOP_GRACE`] to answer; its answer
    /// (often an error with a partial state) is still used, so nothing created is lost.
    async fn interruptible<T>(
        &self,
        rpc: Rpc,
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
        tracing::info!(urn = %self.urn, %rpc, "{interruption}; asking the provider to stop");
        let stop = debug_log::logged(Call::provider(Rpc::StopProvider), Request::Empty, async {
            self.connection.client.ready().await?.stop_provider().await
        });
        if let Err(err) = stop.await {
            tracing::warn!("{} failed: {err}", Rpc::StopProvider);
        }
        match tokio::time::timeout(STOP_GRACE, call).await {
            Ok(result) => Ok((result, Some(interruption))),
            Err(_) => {
                Err(LifecycleError::Interrupted { subject: self.subject.clone(), rpc, interruption, grace: STOP_GRACE })
            }
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
