//! Create's and Update's shared part: configuration and plan, then what
//! `support/after_plan.rs` decides follows it (a preview, a refused deferral, Terraform's
//! NoOp, or the final-plan check and the apply), and what a failed apply leaves (a
//! [`PartialFailure`] while the object exists).

use std::borrow::Cow;

use super::interface::{Deadline, Written};
use super::memory::PlanCache;
use super::prior::after_read;
use super::values::{configuration, new_meta, pulumi_outputs};
use crate::cty::{self, Value};
use crate::lifecycle::calls::{Applied, Apply, Plan, Resource, Stored, Warnings};
use crate::lifecycle::support::after_plan::{AfterPlan, PlanFacts, after_plan, unchanged};
use crate::lifecycle::support::checks::{self};
use crate::lifecycle::support::error::{Change, LifecycleError, PartialFailure};
use crate::lifecycle::support::failed_apply::{AfterFailure, FailedAnswer, after_failed_apply};
use crate::lifecycle::support::inputs::with_operation_timeout;
use crate::lifecycle::support::state::{self, MISSING_ID, Meta};
use crate::property::PropertyMap;

/// What Create and Update share.
pub(super) struct Write<'a> {
    pub(super) id: &'a str,
    /// The upgraded prior state and its meta; `None` for a create.
    pub(super) prior: Option<(Value, Meta)>,
    /// Whether `prior` was just read from the provider (`ReadResource`).
    pub(super) read: bool,
    /// The prior outputs' secret paths, for the gRPC debug log (empty for a create).
    pub(super) stored_secrets: Vec<cty::Path>,
    pub(super) news: &'a PropertyMap,
    pub(super) preview: bool,
    pub(super) deadline: &'a Deadline,
}

/// The shared part of Create and Update: configuration and plan, then what
/// `support/after_plan.rs` decides follows it: a preview's outputs, the refusal of a
/// deferred change, Terraform's NoOp, or the final-plan check and the apply.
pub(super) async fn plan_and_apply(
    resource: &Resource<'_>,
    write: Write<'_>,
    mut warnings: Warnings,
    cache: Option<&PlanCache>,
) -> Result<Written, LifecycleError> {
    let change = if write.prior.is_some() { Change::Update } else { Change::Create };
    let (prior, meta) = write.prior.unwrap_or_else(|| (Value::null(resource.ty().clone()), Meta::default()));
    let previous_meta = (!prior.is_null()).then_some(&meta);
    let (config, secrets) = configuration(resource, write.news)?;
    let log_secrets = log_secrets(&write.stored_secrets, &secrets);
    let config =
        with_operation_timeout(&resource.schema().block, &config, change.as_str(), write.deadline.timeout_seconds);
    let prior_identity = resource.stored_identity(&meta)?;
    // Update takes its plan out whether or not it applies, so nothing outlives it. The
    // plan Diff made of this update is the saved plan: at apply time its private bytes go
    // back to the provider with the plan made now (protocol 6.11, `store_planned_private`).
    let earlier = cache.and_then(|cache| cache.take(resource.urn()));
    let saved_private: &[u8] = if write.preview {
        &[]
    } else {
        checks::saved_plan_private(&resource.schema().block, earlier.as_ref(), &prior, &config)
    };
    let stored = Stored { state: &prior, private: &meta.private, identity: prior_identity.as_ref() };
    let plan = Plan { prior: stored, saved_private, config: &config, secrets: &log_secrets };
    let planned = warnings.keep(resource.plan_resource_change(plan).await?);
    let next = after_plan(PlanFacts {
        preview: write.preview,
        deferred: planned.deferred,
        replaces: !planned.replace_paths.is_empty(),
        unchanged: unchanged(&prior, &planned.value),
        read: write.read,
    });
    if next.checks_final_plan()
        && let Some(earlier) = &earlier
    {
        resource.check_final_plan(earlier, &prior, &config, &planned.value)?;
    }
    let kept = Kept { id: write.id, stored, meta: &meta };
    match next {
        AfterPlan::Preview => preview(resource, previous_meta.map(|_| write.id), &planned.value, &secrets, warnings),
        AfterPlan::Deferred(reason) => Err(LifecycleError::Deferred {
            subject: resource.subject().clone(),
            reason: crate::lifecycle::support::deferral::reason_text(reason),
        }),
        AfterPlan::ReadFirst => {
            // A state no failure marked (the Go implementation's, or an older one of ours)
            // may hold values the object never took: plan again from what it has when that
            // differs.
            match warnings.kept(resource.read_resource(stored, &write.stored_secrets).await)? {
                Some(read) if !read.state.equals_ignoring_refinements(&prior) => {
                    let prior = after_read(resource, meta, read, prior_identity)?;
                    let again = Write { prior: Some(prior), read: true, ..write };
                    Box::pin(plan_and_apply(resource, again, warnings, None)).await
                }
                _ => no_op(resource, kept, &secrets, warnings),
            }
        }
        AfterPlan::NoOp => no_op(resource, kept, &secrets, warnings),
        AfterPlan::Apply => {
            let apply = Apply {
                prior: &prior,
                planned: &planned,
                config: &config,
                secrets: &log_secrets,
                limit: write.deadline.limit(),
                cancel: &write.deadline.cancel,
            };
            let applied = warnings.kept(resource.apply_resource_change(apply).await)?;
            let outcome = Outcome { applied, change, prior_id: write.id, news: write.news, previous: previous_meta };
            finish(resource, outcome, &secrets, warnings)
        }
    }
}

/// What the gRPC debug log redacts: secrets of the stored outputs and of the inputs.
/// Nothing stored to add with the log off, or for a create: no copy then.
fn log_secrets<'a>(stored: &[cty::Path], inputs: &'a [cty::Path]) -> Cow<'a, [cty::Path]> {
    if stored.is_empty() { Cow::Borrowed(inputs) } else { Cow::Owned([stored, inputs].concat()) }
}

/// A preview's outputs: the plan's values. Nothing of a preview is stored: they have no
/// `__meta`, as the Go implementation's have none (docs/go-differences.md). An update keeps
/// its id (`prior_id`); a create shows the planned one, if known.
fn preview(
    resource: &Resource<'_>,
    prior_id: Option<&str>,
    planned: &Value,
    secrets: &[cty::Path],
    warnings: Warnings,
) -> Result<Written, LifecycleError> {
    let outputs = pulumi_outputs(resource, planned, secrets, &Meta::default())?;
    let id = match prior_id {
        Some(id) => id.to_owned(),
        None => state::resource_id(resource.props(), planned).unwrap_or_default(),
    };
    Ok(Written { id, outputs, inputs: None, warnings: warnings.into_vec() })
}

/// The object an update keeps as it was.
#[derive(Clone, Copy)]
struct Kept<'a> {
    id: &'a str,
    stored: Stored<'a>,
    meta: &'a Meta,
}

/// Terraform's NoOp: the object stays as it is, and nothing is applied.
fn no_op(
    resource: &Resource<'_>,
    kept: Kept<'_>,
    secrets: &[cty::Path],
    warnings: Warnings,
) -> Result<Written, LifecycleError> {
    let Kept { id, stored, meta } = kept;
    let meta = new_meta(resource, Some(meta), stored.private.to_vec(), stored.identity)?;
    let outputs = pulumi_outputs(resource, stored.state, secrets, &meta)?;
    Ok(Written { id: id.to_owned(), outputs, inputs: None, warnings: warnings.into_vec() })
}

/// What an ApplyResourceChange of a create or update answered, and what the answer is
/// recorded against.
struct Outcome<'a> {
    applied: Applied,
    change: Change,
    /// The id of the object an update changed (the engine's id for a create: empty).
    prior_id: &'a str,
    /// The checked inputs, recorded beside a partial state.
    news: &'a PropertyMap,
    /// The prior state's meta, for an update.
    previous: Option<&'a Meta>,
}

/// Turns an apply result into outputs; after a failed apply, into the error with what
/// `support/failed_apply.rs` decides to record beside it. `secrets` are the paths the
/// outputs mark secret.
fn finish(
    resource: &Resource<'_>,
    outcome: Outcome<'_>,
    secrets: &[cty::Path],
    mut warnings: Warnings,
) -> Result<Written, LifecycleError> {
    let Outcome { applied, change, prior_id, news, previous } = outcome;
    let id = state::resource_id(resource.props(), &applied.new_state);
    if !applied.failed() {
        let mut errors = Vec::new();
        let id = id.unwrap_or_else(|| {
            errors.push(format!(
                "the provider returned no id for the new object; it is recorded as {MISSING_ID:?}: run `pulumi refresh` or import it"
            ));
            MISSING_ID.to_owned()
        });
        let mut meta = new_meta(resource, previous, applied.private, applied.identity.as_ref())?;
        meta.apply_failed = !errors.is_empty();
        let outputs = pulumi_outputs(resource, &applied.new_state, secrets, &meta)?;
        if errors.is_empty() {
            return Ok(Written { id, outputs, inputs: None, warnings: warnings.into_vec() });
        }
        let partial =
            PartialFailure { urn: resource.urn().to_owned(), id, outputs, inputs: news.clone(), reasons: errors };
        return Err(warnings.fail(LifecycleError::Partial(Box::new(partial))));
    }
    let answer = FailedAnswer {
        change,
        null: applied.new_state.is_null(),
        id: id.as_deref(),
        wholly_known: applied.unknown.is_empty(),
        prior_id,
    };
    match after_failed_apply(answer) {
        AfterFailure::Nothing => Err(warnings.fail(LifecycleError::ApplyFailed {
            subject: resource.subject().clone(),
            change,
            reasons: unrecorded_reasons(applied, change),
        })),
        AfterFailure::Record { id, tainted } => {
            let mut meta = new_meta(resource, previous, applied.private, applied.identity.as_ref())?;
            meta.apply_failed = true;
            meta.tainted = tainted;
            let outputs = pulumi_outputs(resource, &applied.new_state, secrets, &meta)?;
            let mut reasons = applied.errors;
            reasons.extend(applied.unknown);
            let partial = PartialFailure { urn: resource.urn().to_owned(), id, outputs, inputs: news.clone(), reasons };
            Err(warnings.fail(LifecycleError::Partial(Box::new(partial))))
        }
    }
}

/// Why a failed apply recorded nothing: the provider's errors, or Terraform's checks when
/// the provider reported none. Beside the provider's errors, the unknown-after-apply
/// errors describe a state that is not recorded: Terraform's log has them, and so has ours.
fn unrecorded_reasons(applied: Applied, change: Change) -> Vec<String> {
    let Applied { mut errors, unknown, new_state, .. } = applied;
    if errors.is_empty() {
        return unknown;
    }
    for text in unknown {
        tracing::warn!(target: "tfbridge::terraform", "{text}");
    }
    if change == Change::Create && !new_state.is_null() {
        errors.push("no object was recorded: the provider's answer has no id to find one by".to_owned());
    }
    errors
}
