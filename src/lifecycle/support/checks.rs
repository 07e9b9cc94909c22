//! What Terraform core decides after a provider answers, as pure functions.
//!
//! `calls` sends each request and hands the decoded answer here; these functions say what
//! is wrong with it, as data: what a plan breaks ([`check_plan`]) and which of its
//! `requires_replace` paths count ([`requires_replace`]), what an apply result breaks ([`check_apply`]), whether the
//! apply-time plan is consistent with the earlier one ([`final_plan_violations`]), whether a
//! destroy plan is one ([`destroy_plan_problem`]), and which provider diagnostics become
//! Check failures ([`check_failures`]). Wording the problems for users (URNs, Pulumi paths,
//! Terraform's texts) stays with the caller, which knows the resource.
//!
//! Architecture invariant: no I/O, no provider calls, no messages; values in, verdicts out,
//! each tested as a table in `checks/tests.rs`.

use schema_gen::tf::Block;

use crate::convert::values::ConvertError;
use crate::cty::{self, Path, Type, Value};
use crate::invariants::{self, Violation};
use crate::lifecycle::support::error::Reported;

/// A problem with one input, for the engine to show next to the property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckFailure {
    /// Pulumi property path; empty for the resource as a whole.
    pub property: String,
    pub reason: String,
}

/// Provider error diagnostics as Check failures, on the Pulumi property they name (the
/// engine shows the property itself, so the reason is the diagnostic's text alone).
/// Diagnostics on a property in `left_out` are dropped: the caller reports those otherwise.
pub fn check_failures(errors: &[Reported], left_out: &[String]) -> Vec<CheckFailure> {
    errors
        .iter()
        .map(|e| CheckFailure {
            property: e.property.as_ref().map(ToString::to_string).unwrap_or_default(),
            reason: e.text(),
        })
        .filter(|failure| failure.property.is_empty() || !left_out.contains(&failure.property))
        .collect()
}

/// A value that does not fit the schema, as a Check failure on its property.
pub fn convert_failure(error: &ConvertError) -> CheckFailure {
    CheckFailure { property: error.path.to_string(), reason: error.kind.to_string() }
}

/// The top-level write-only attributes that hold a value in `value` (providers may never
/// return one).
pub fn write_only_returned(block: &Block, value: &Value) -> Vec<String> {
    block
        .attributes
        .iter()
        .filter(|(name, attr)| attr.write_only && value.get_attr(name).is_some_and(|v| !v.is_null()))
        .map(|(name, _)| name.clone())
        .collect()
}

/// The `requires_replace` paths of a plan, as Terraform filters them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Replacement {
    /// Paths whose value really changes (or is not known yet), each once.
    pub paths: Vec<Path>,
    /// Paths the resource type does not have: a provider bug.
    pub nonexistent: Vec<Path>,
}

/// Terraform keeps a `requires_replace` path only when the value there changes between
/// `prior` and `planned` or is not known yet: providers list attributes that merely *could*
/// force replacement. A create (`prior` null) replaces nothing, and Terraform does not even
/// check the paths then.
pub fn requires_replace(ty: &Type, prior: &Value, planned: &Value, requested: &[Path]) -> Replacement {
    let mut replacement = Replacement::default();
    if prior.is_null() {
        return replacement;
    }
    for path in requested {
        if !cty::path_exists_in_type(ty, path) {
            replacement.nonexistent.push(path.clone());
            continue;
        }
        let changes = match (cty::value_at(prior, path), cty::value_at(planned, path)) {
            (Some(before), Some(after)) => {
                !after.is_wholly_known() || !before.is_wholly_known() || !before.equals_ignoring_refinements(after)
            }
            (None, None) => false,
            _ => true,
        };
        if changes && !replacement.paths.contains(path) {
            replacement.paths.push(path.clone());
        }
    }
    replacement
}

/// One thing wrong with a plan.
#[derive(Clone, Debug, PartialEq)]
pub enum PlanProblem {
    /// A write-only attribute was planned with a value.
    WriteOnlyPlanned(String),
    /// The plan breaks what the configuration or prior state fix (`AssertPlanValid`).
    Invalid(Violation),
    /// `requires_replace` names a path the resource type does not have.
    ReplaceNonexistent(Path),
}

/// What Terraform makes of a plan.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanVerdict {
    pub problems: Vec<PlanProblem>,
    /// `AssertPlanValid` violations Terraform only logs, for providers on the legacy SDK
    /// type system.
    pub tolerated: Vec<Violation>,
    /// The `requires_replace` paths that count (see [`requires_replace`]).
    pub replace_paths: Vec<Path>,
}

/// Terraform's checks of a PlanResourceChange answer: no write-only values, a plan valid
/// for the configuration and prior state (tolerated for `legacy_type_system` providers),
/// and `requires_replace` paths that exist.
pub fn check_plan(
    block: &Block,
    prior: &Value,
    config: &Value,
    planned: &Value,
    requested_replace: &[Path],
    legacy_type_system: bool,
) -> PlanVerdict {
    let mut problems: Vec<PlanProblem> =
        write_only_returned(block, planned).into_iter().map(PlanProblem::WriteOnlyPlanned).collect();
    let violations = invariants::assert_plan_valid(block, prior, config, planned);
    let mut tolerated = Vec::new();
    if legacy_type_system {
        tolerated = violations;
    } else {
        problems.extend(violations.into_iter().map(PlanProblem::Invalid));
    }
    let replacement = requires_replace(&block.implied_type(), prior, planned, requested_replace);
    problems.extend(replacement.nonexistent.into_iter().map(PlanProblem::ReplaceNonexistent));
    PlanVerdict { problems, tolerated, replace_paths: replacement.paths }
}

/// One thing wrong with the new state an apply returned.
#[derive(Clone, Debug, PartialEq)]
pub enum ApplyProblem {
    /// A create or update returned no object, and the provider said nothing about why.
    NullAfterApply,
    /// A delete returned an object, and the provider said nothing about why.
    NonNullAfterDelete,
    /// A value is still unknown after apply (it is saved as null).
    UnknownAfterApply(Path),
    /// A write-only attribute came back with a value.
    WriteOnlyReturned(String),
    /// The new state breaks a known planned value (Terraform's `AssertObjectCompatible`).
    Inconsistent(Violation),
    /// The call was interrupted and the provider's answer is not a finished change: it
    /// reported errors, or its state is not the one the change makes (no object after a
    /// create or update, an object after a delete).
    Interrupted,
}

/// What Terraform makes of an apply's new state.
#[derive(Clone, Debug, PartialEq)]
pub struct ApplyVerdict {
    /// The state to record: the returned one, with unknowns replaced by null.
    pub new_state: Value,
    pub problems: Vec<ApplyProblem>,
    /// Inconsistencies Terraform only logs, for providers on the legacy SDK type system.
    pub tolerated: Vec<Violation>,
}

/// How an apply call went, besides its new state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ApplyOutcome {
    /// The provider answered with error diagnostics.
    pub provider_errors: bool,
    /// The call was cancelled or timed out (and the provider still answered).
    pub interrupted: bool,
    /// The plan or the apply said the provider uses the legacy SDK type system.
    pub legacy_type_system: bool,
}

/// Terraform's checks of an apply result. `planned` null is a delete. A provider that
/// reported errors (or an interrupted call) may return what it has, so the null checks and
/// the consistency check only apply to an apply that claims success.
///
/// An interrupted call whose provider still finished the change (no errors, and the state
/// the change makes) is not a failure: Terraform asks the provider to stop and then takes its
/// answer as it comes, so a create that completed as the stop arrived is saved whole, not
/// tainted.
pub fn check_apply(block: &Block, planned: &Value, new_state: Value, outcome: ApplyOutcome) -> ApplyVerdict {
    let is_delete = planned.is_null();
    let failed = outcome.provider_errors || outcome.interrupted;
    let finished = !outcome.provider_errors && new_state.is_null() == is_delete;
    let mut verdict = ApplyVerdict { new_state, problems: Vec::new(), tolerated: Vec::new() };
    if outcome.interrupted && !finished {
        verdict.problems.push(ApplyProblem::Interrupted);
    }
    if verdict.new_state.is_null() {
        if !is_delete && !failed {
            verdict.problems.push(ApplyProblem::NullAfterApply);
        }
        return verdict;
    }
    if is_delete && !failed {
        verdict.problems.push(ApplyProblem::NonNullAfterDelete);
    }
    let unknown = cty::unknown_paths(&verdict.new_state);
    if !unknown.is_empty() {
        verdict.new_state = cty::unknowns_to_null(&verdict.new_state);
    }
    let any_unknown = !unknown.is_empty();
    verdict.problems.extend(unknown.into_iter().map(ApplyProblem::UnknownAfterApply));
    verdict
        .problems
        .extend(write_only_returned(block, &verdict.new_state).into_iter().map(ApplyProblem::WriteOnlyReturned));
    if !outcome.provider_errors && !any_unknown && !is_delete {
        let violations = invariants::assert_object_compatible(block, planned, &verdict.new_state);
        if outcome.legacy_type_system {
            verdict.tolerated = violations;
        } else {
            verdict.problems.extend(violations.into_iter().map(ApplyProblem::Inconsistent));
        }
    }
    verdict
}

/// A message a provider call gives rise to that is not a failure of the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Message {
    /// A warning diagnostic the provider returned.
    ProviderWarning,
    /// A change the provider deferred (protocol 6.9 deferred actions).
    Deferred,
    /// A plan that breaks Terraform's plan-valid rules, from a provider on the legacy SDK type
    /// system (`legacy_type_system`), which Terraform tolerates.
    LegacyInvalidPlan,
    /// An apply result that breaks its plan, from a legacy-SDK provider, which Terraform
    /// tolerates.
    LegacyUnexpectedNewValue,
}

/// Who gets to read a [`Message`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    /// The user: Terraform prints it in its UI, so we send it to the engine as a warning.
    User,
    /// The log only: Terraform writes it to its log (`TF_LOG`) and never to the user, so we
    /// write it to ours (`TFBRIDGE_LOG`) and never to the engine.
    Log,
}

/// Where a message goes: where Terraform core sends the same message (the table in
/// `checks/tests.rs` cites where Terraform decides each).
pub fn audience(message: Message) -> Audience {
    match message {
        Message::ProviderWarning | Message::Deferred => Audience::User,
        // Every SDKv2 provider with a `Default` on a non-computed attribute plans such values;
        // shown, they were a dozen warnings on every preview of a small program.
        Message::LegacyInvalidPlan | Message::LegacyUnexpectedNewValue => Audience::Log,
    }
}

/// A plan Diff made, kept for the final-plan check of the Update that follows, with the
/// prior state and configuration it was planned from.
#[derive(Clone, Debug, PartialEq)]
pub struct EarlierPlan {
    pub prior: Value,
    pub config: Value,
    pub planned: Value,
    /// The plan's `planned_private` bytes (protocol 6.11 sends them back when planning again
    /// at apply time).
    pub private: Vec<u8>,
}

/// Whether `earlier` was planned from this prior state and configuration (whose unknowns
/// may since have become known). Only then does it say anything about the plan made now.
fn same_request(block: &Block, earlier: &EarlierPlan, prior: &Value, config: &Value) -> bool {
    earlier.prior.equals_ignoring_refinements(prior)
        && invariants::assert_object_compatible(block, &earlier.config, config).is_empty()
}

/// The `planned_private` to send with the plan made at apply time: the bytes of the saved
/// plan (the one Diff made of the same request), as Terraform 1.16 sends a saved plan's
/// private bytes back to a provider that was told `store_planned_private`. Nothing when
/// there is no such plan (a create, whose only plan is the one made now, or a Diff of
/// another request).
pub fn saved_plan_private<'a>(
    block: &Block,
    earlier: Option<&'a EarlierPlan>,
    prior: &Value,
    config: &Value,
) -> &'a [u8] {
    match earlier {
        Some(earlier) if !prior.is_null() && same_request(block, earlier, prior, config) => &earlier.private,
        _ => &[],
    }
}

/// Terraform's "inconsistent final plan" check: the plan made at apply time may only fill
/// in what the earlier plan left unknown. It only compares plans of the same prior state
/// and configuration (whose unknowns may since have become known): a Diff of another
/// configuration or prior state (an engine that skipped Diff, a `timeouts` block Update
/// filled in) says nothing about this plan.
pub fn final_plan_violations(
    block: &Block,
    earlier: &EarlierPlan,
    prior: &Value,
    config: &Value,
    planned: &Value,
) -> Vec<Violation> {
    if !same_request(block, earlier, prior, config) {
        return Vec::new();
    }
    invariants::assert_object_compatible(block, &earlier.planned, planned)
}

/// What is wrong with the planned state of a destroy plan.
#[derive(Clone, Debug, PartialEq)]
pub enum DestroyPlanProblem {
    /// The planned state is not a value of the resource's type.
    Invalid(String),
    /// A destroy must plan null.
    NotNull,
}

/// A destroy plan must plan null.
pub fn destroy_plan_problem(planned: Result<&Value, &cty::Error>) -> Option<DestroyPlanProblem> {
    match planned {
        Err(err) => Some(DestroyPlanProblem::Invalid(err.to_string())),
        Ok(value) if !value.is_null() => Some(DestroyPlanProblem::NotNull),
        Ok(_) => None,
    }
}

#[cfg(test)]
mod tests;
