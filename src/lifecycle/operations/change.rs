//! What Diff, Create, Update and Delete share: the prior state an operation plans from
//! (read again when a failed apply left it), the plan, the final-plan check and the apply of
//! Create and Update, and what a failed apply leaves (a [`PartialFailure`] while the object
//! exists).

use super::shared::{Deadline, PlanCache, Written, configuration, new_meta, pulumi_outputs};
use crate::cty::{self, Value};
use crate::lifecycle::calls::{Applied, Apply, Read, Resource, Stored, Warnings};
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

/// The shared part of Create and Update: configuration, plan, and unless previewing,
/// the final-plan check and the apply.
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
    // What the gRPC debug log redacts: secrets of the stored outputs and of the inputs.
    // Nothing stored to add with the log off, or for a create: no copy then.
    let log_secrets: std::borrow::Cow<'_, [cty::Path]> = if write.stored_secrets.is_empty() {
        std::borrow::Cow::Borrowed(&secrets)
    } else {
        std::borrow::Cow::Owned([write.stored_secrets.as_slice(), &secrets].concat())
    };
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
    let planned = warnings.keep(
        resource
            .plan_resource_change(&prior, &meta.private, prior_identity.as_ref(), saved_private, &config, &log_secrets)
            .await?,
    );
    if write.preview {
        // Nothing of a preview is stored: its outputs have no `__meta`, as the Go
        // implementation's have none (docs/go-differences.md).
        let outputs = pulumi_outputs(resource, &planned.value, &secrets, &Meta::default())?;
        let id = match previous_meta {
            Some(_) => write.id.to_owned(),
            None => state::resource_id(resource.props(), &planned.value).unwrap_or_default(),
        };
        return Ok(Written { id, outputs, inputs: None, warnings: warnings.into_vec() });
    }
    if let Some(reason) = planned.deferred {
        return Err(LifecycleError::Deferred {
            subject: resource.subject().clone(),
            reason: crate::lifecycle::support::deferral::reason_text(reason),
        });
    }
    if let Some(earlier) = &earlier {
        resource.check_final_plan(earlier, &prior, &config, &planned.value)?;
    }
    if change == Change::Update && planned.replace_paths.is_empty() && unchanged(&prior, &planned.value) {
        // The engine sends an Update with nothing to change only for an object whose last
        // operation failed (its init errors). A state no failure marked (the Go
        // implementation's, or an older one of ours) may hold values the object never
        // took: read it, and plan again from what it has when that differs.
        if !write.read {
            let identity = prior_identity.clone();
            let stored = Stored { state: &prior, private: &meta.private, identity: identity.as_ref() };
            if let Some(read) = warnings.kept(resource.read_resource(stored, &write.stored_secrets).await)?
                && !read.state.equals_ignoring_refinements(&prior)
            {
                let prior = after_read(resource, meta, read, identity)?;
                let again = Write { prior: Some(prior), read: true, ..write };
                return Box::pin(plan_and_apply(resource, again, warnings, None)).await;
            }
        }
        // Terraform's NoOp: nothing is applied. A provider asked to apply a plan that
        // changes nothing may answer what it never planned (issue 28).
        let meta = new_meta(resource, previous_meta, meta.private.clone(), prior_identity.as_ref())?;
        let outputs = pulumi_outputs(resource, &prior, &secrets, &meta)?;
        return Ok(Written { id: write.id.to_owned(), outputs, inputs: None, warnings: warnings.into_vec() });
    }
    let Deadline { cancel, .. } = write.deadline;
    let change_request = Apply {
        prior: &prior,
        planned: &planned,
        config: &config,
        secrets: &log_secrets,
        limit: write.deadline.limit(),
        cancel,
    };
    let applied = warnings.kept(resource.apply_resource_change(change_request).await)?;
    finish(resource, applied, (write.id, write.news), previous_meta, &secrets, warnings, change)
}

/// Turns an apply result into outputs; after a failed apply, into the error with what
/// `support/failed_apply.rs` decides to record beside it.
fn finish(
    resource: &Resource<'_>,
    applied: Applied,
    (prior_id, news): (&str, &PropertyMap),
    previous: Option<&Meta>,
    secrets: &[cty::Path],
    mut warnings: Warnings,
    change: Change,
) -> Result<Written, LifecycleError> {
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
        AfterFailure::Nothing => {
            let Applied { mut errors, unknown, .. } = applied;
            if errors.is_empty() {
                // Only Terraform's checks failed: they are the reason.
                errors = unknown;
            } else {
                // They describe a state that is not recorded: Terraform's log has them.
                for text in unknown {
                    tracing::warn!(target: "tfbridge::terraform", "{text}");
                }
                if change == Change::Create && !applied.new_state.is_null() {
                    errors.push("no object was recorded: the provider's answer has no id to find one by".to_owned());
                }
            }
            Err(warnings.fail(LifecycleError::ApplyFailed {
                subject: resource.subject().clone(),
                change,
                reasons: errors,
            }))
        }
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

/// The prior state an operation plans from: the stored outputs, upgraded; when a failed
/// apply left them ([`Meta::apply_failed`]), read from the provider first. Terraform
/// refreshes every object before it plans. Pulumi refreshes only on request, and a failed
/// apply's state is the one known to disagree with the object: an SDKv2 provider returns
/// its planned values beside the error, so planning from them fails every later update
/// until a manual refresh (issue 28). An object the read finds gone ([`Source::Gone`]) is
/// planned from the stored state and replaced (Diff), and a Delete of it has nothing to do.
/// A tainted object's read that fails ([`Source::Unread`]) is a warning: its stored state
/// stands in, so its replacement and destroy go ahead.
pub(super) async fn prior(
    resource: &Resource<'_>,
    id: &str,
    olds: &PropertyMap,
    secrets: &[cty::Path],
    warnings: &mut Warnings,
) -> Result<(Value, Meta, Source), LifecycleError> {
    let (state, meta) = warnings.kept(resource.upgrade_resource_state(id, olds, secrets).await)?;
    if !meta.apply_failed {
        return Ok((state, meta, Source::Stored));
    }
    let identity = resource.stored_identity(&meta)?;
    let stored = Stored { state: &state, private: &meta.private, identity: identity.as_ref() };
    let read = match resource.read_resource(stored, secrets).await {
        Ok(read) => warnings.keep(read),
        Err(error) if meta.tainted => {
            unread_tainted(warnings, error);
            return Ok((state, meta, Source::Unread));
        }
        Err(error) => return Err(warnings.fail(error)),
    };
    let Some(read) = read else {
        tracing::debug!(urn = %resource.urn(), "the object a failed apply left is gone");
        return Ok((state, meta, Source::Gone));
    };
    let (state, meta) = after_read(resource, meta, read, identity)?;
    Ok((state, meta, Source::Read))
}

/// A failed read of a tainted object, as a warning: a failed create's object may be a
/// half-made one its provider cannot read (or the id of nothing), so the read stops neither
/// its refresh nor its replacement nor its destroy; its stored state stands in.
pub(super) fn unread_tainted(warnings: &mut Warnings, error: LifecycleError) {
    let (error, earlier) = error.into_parts();
    warnings.extend(earlier);
    warnings
        .extend([format!("the object a failed create left could not be read, so its stored state stands in: {error}")]);
}

/// The state and meta a read found, in place of the stored ones: a provider that sends no
/// identity keeps the stored one, as Terraform keeps it; the failure mark goes.
fn after_read(
    resource: &Resource<'_>,
    meta: Meta,
    read: Read,
    stored: Option<Value>,
) -> Result<(Value, Meta), LifecycleError> {
    let identity = read.identity.or(stored).map(|identity| resource.identity_text(&identity)).transpose()?;
    Ok((read.state, Meta { private: read.private, identity, apply_failed: false, ..meta }))
}

/// Where an operation's prior state came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// The stored outputs, upgraded.
    Stored,
    /// Read from the provider just now.
    Read,
    /// Read from the provider just now, and found gone; the stored state stands in.
    Gone,
    /// A tainted object whose read failed; the stored state stands in.
    Unread,
}

/// Whether a plan changes nothing: Terraform's NoOp (a wholly known planned value equal to
/// the prior state).
pub(super) fn unchanged(prior: &Value, planned: &Value) -> bool {
    !prior.is_null() && planned.is_wholly_known() && planned.equals_ignoring_refinements(prior)
}
