//! Diff, Create, Update and Delete: the plan, the final-plan check and the apply, and what a
//! failed apply leaves (a [`PartialFailure`] while the object exists).

use super::{
    CreateRequest, Deadline, DeleteRequest, DiffRequest, Diffed, GeneratedNames, PlanCache, UpdateRequest, Write,
    Written, delete_before_replace,
};
use crate::cty::{self, Value};
use crate::lifecycle::calls::{Applied, Apply, Planned, Read, Resource, Stored, Warnings};
use crate::lifecycle::checks::{self, EarlierPlan};
use crate::lifecycle::detailed_diff::{Sets, detailed_diff, top_level_keys, without_recomputed};
use crate::lifecycle::error::{Change, LifecycleError, PartialFailure};
use crate::lifecycle::inputs::with_operation_timeout;
use crate::lifecycle::state::{self, MISSING_ID, Meta};
use crate::property::{PropertyMap, PropertyPath};

impl Resource<'_> {
    /// Diff: what the provider's plan changes, against the upgraded prior state.
    /// Where the name came from (`generated`) decides the order of a replacement.
    pub async fn diff(
        &self,
        request: &DiffRequest,
        cache: &PlanCache,
        generated: &GeneratedNames,
    ) -> Result<Diffed, LifecycleError> {
        let DiffRequest { id, olds, news, .. } = request;
        let mut warnings = Warnings::default();
        let mut secrets = self.stored_secrets(olds);
        let (prior, meta, _) = self.prior(id, olds, &secrets, &mut warnings).await?;
        let (config, config_secrets) = self.config(news)?;
        secrets.extend(config_secrets);
        let prior_identity = self.stored_identity(&meta)?;
        let planned =
            warnings.keep(self.plan(&prior, &meta.private, prior_identity.as_ref(), &[], &config, &secrets).await?);
        let warnings = warnings.into_vec();
        if planned.deferred.is_some() {
            // A change the provider deferred: shown as an update (its warning says why), never
            // kept for an Update, which refuses to apply it.
            return Ok(Diffed { changes: true, warnings, ..Diffed::default() });
        }
        let diffed = if unchanged(&prior, &planned.value) {
            Diffed { warnings, ..Diffed::default() }
        } else {
            let no_secrets: &[cty::Path] = &[];
            let before = self.outputs(&prior, no_secrets, &Meta::default())?;
            let after = self.outputs(&planned.value, no_secrets, &Meta::default())?;
            let replace: Vec<PropertyPath> = planned.replace_paths.iter().map(|p| self.pulumi_path(p)).collect();
            let sets = Sets { paths: self.set_paths(&[&prior, &planned.value]), inputs: Some(news) };
            let detailed = without_recomputed(detailed_diff(&before, &after, &replace, &sets), news);
            let replaces = top_level_keys(replace.iter());
            let diffs = top_level_keys(detailed.iter().map(|d| &d.path));
            // Set whenever a name was given, not only for the provider's replacements: the
            // engine reads it for any replacement, `replaceOnChanges`' too.
            let delete_before_replace = delete_before_replace(self.name_source(id, news, olds, generated));
            Diffed { changes: true, replaces, diffs, detailed, delete_before_replace, warnings }
        };
        cache.keep(&self.urn, EarlierPlan { prior, config, planned: planned.value, private: planned.private }, &diffed);
        Ok(diffed)
    }

    /// Create: plan from a null prior; unless previewing, apply.
    pub async fn create(&self, request: &CreateRequest) -> Result<Written, LifecycleError> {
        let CreateRequest { news, preview, deadline, .. } = request;
        let write =
            Write { id: "", prior: None, read: false, stored_secrets: Vec::new(), news, preview: *preview, deadline };
        self.plan_and_apply(write, Warnings::default(), None).await
    }

    /// Update: upgrade the prior state, plan again (checking the plan against the one Diff
    /// made, as Terraform checks its final plan), and unless previewing, apply.
    pub async fn update(&self, request: &UpdateRequest, cache: &PlanCache) -> Result<Written, LifecycleError> {
        let UpdateRequest { id, olds, news, preview, deadline, .. } = request;
        let mut warnings = Warnings::default();
        let stored_secrets = self.stored_secrets(olds);
        let (state, meta, source) = self.prior(id, olds, &stored_secrets, &mut warnings).await?;
        // A gone object is planned from the stored state; reading it again finds nothing more.
        let read = source != Source::Stored;
        let write = Write { id, prior: Some((state, meta)), read, stored_secrets, news, preview: *preview, deadline };
        self.plan_and_apply(write, warnings, Some(cache)).await
    }

    /// The shared part of Create and Update: configuration, plan, and unless previewing,
    /// the final-plan check and the apply.
    async fn plan_and_apply(
        &self,
        write: Write<'_>,
        mut warnings: Warnings,
        cache: Option<&PlanCache>,
    ) -> Result<Written, LifecycleError> {
        let change = if write.prior.is_some() { Change::Update } else { Change::Create };
        let (prior, meta) = write.prior.unwrap_or_else(|| (Value::null(self.ty()), Meta::default()));
        let previous_meta = (!prior.is_null()).then_some(&meta);
        let (config, secrets) = self.config(write.news)?;
        // What the gRPC debug log redacts: secrets of the stored outputs and of the inputs.
        // Nothing stored to add with the log off, or for a create: no copy then.
        let log_secrets: std::borrow::Cow<'_, [cty::Path]> = if write.stored_secrets.is_empty() {
            std::borrow::Cow::Borrowed(&secrets)
        } else {
            std::borrow::Cow::Owned([write.stored_secrets.as_slice(), &secrets].concat())
        };
        let config =
            with_operation_timeout(&self.schema.block, &config, change.as_str(), write.deadline.timeout_seconds);
        let prior_identity = self.stored_identity(&meta)?;
        // Update takes its plan out whether or not it applies, so nothing outlives it. The
        // plan Diff made of this update is the saved plan: at apply time its private bytes go
        // back to the provider with the plan made now (protocol 6.11, `store_planned_private`).
        let earlier = cache.and_then(|cache| cache.take(&self.urn));
        let saved_private: &[u8] = if write.preview {
            &[]
        } else {
            checks::saved_plan_private(&self.schema.block, earlier.as_ref(), &prior, &config)
        };
        let planned = warnings.keep(
            self.plan(&prior, &meta.private, prior_identity.as_ref(), saved_private, &config, &log_secrets).await?,
        );
        if write.preview {
            // The planned identity may still be unknown-free but is not the provider's final
            // word; a preview keeps the stored one.
            let meta = self.meta(previous_meta, meta.private.clone(), prior_identity.as_ref())?;
            let outputs = self.outputs(&planned.value, &secrets, &meta)?;
            let id = match previous_meta {
                Some(_) => write.id.to_owned(),
                None => state::resource_id(&self.props, &planned.value).unwrap_or_default(),
            };
            return Ok(Written { id, outputs, inputs: None, warnings: warnings.into_vec() });
        }
        if let Some(reason) = planned.deferred {
            return Err(LifecycleError::Deferred {
                subject: self.subject().clone(),
                reason: crate::lifecycle::deferral::reason_text(reason),
            });
        }
        if let Some(earlier) = &earlier {
            self.check_final_plan(earlier, &prior, &config, &planned.value)?;
        }
        if change == Change::Update && planned.replace_paths.is_empty() && unchanged(&prior, &planned.value) {
            // The engine sends an Update with nothing to change only for an object whose last
            // operation failed (its init errors). A state no failure marked (the Go
            // implementation's, or an older one of ours) may hold values the object never
            // took: read it, and plan again from what it has when that differs.
            if !write.read {
                let identity = prior_identity.clone();
                let stored = Stored { state: &prior, private: &meta.private, identity: identity.as_ref() };
                if let Some(read) = warnings.keep(self.read(stored, &write.stored_secrets).await?)
                    && !read.state.equals_ignoring_refinements(&prior)
                {
                    let prior = self.after_read(meta, read, identity)?;
                    let again = Write { prior: Some(prior), read: true, ..write };
                    return Box::pin(self.plan_and_apply(again, warnings, None)).await;
                }
            }
            // Terraform's NoOp: nothing is applied. A provider asked to apply a plan that
            // changes nothing may answer what it never planned (issue 28).
            let meta = self.meta(previous_meta, meta.private.clone(), prior_identity.as_ref())?;
            let outputs = self.outputs(&prior, &secrets, &meta)?;
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
        let applied = warnings.keep(self.apply(change_request).await?);
        self.finish(applied, write.news, previous_meta, &secrets, warnings.into_vec(), change)
    }

    /// Turns an apply result into outputs, or a partial failure when the object exists but
    /// the apply failed.
    fn finish(
        &self,
        applied: Applied,
        news: &PropertyMap,
        previous: Option<&Meta>,
        secrets: &[cty::Path],
        warnings: Vec<String>,
        change: Change,
    ) -> Result<Written, LifecycleError> {
        if applied.new_state.is_null() {
            return Err(LifecycleError::ApplyFailed {
                subject: self.subject().clone(),
                change,
                reasons: applied.errors,
            });
        }
        let id = state::resource_id(&self.props, &applied.new_state);
        let mut errors = applied.errors;
        let id = id.unwrap_or_else(|| {
            errors.push(format!(
                "the provider returned no id for the new object; it is recorded as {MISSING_ID:?}: run `pulumi refresh` or import it"
            ));
            MISSING_ID.to_owned()
        });
        let mut meta = self.meta(previous, applied.private, applied.identity.as_ref())?;
        meta.apply_failed = !errors.is_empty();
        let outputs = self.outputs(&applied.new_state, secrets, &meta)?;
        if errors.is_empty() {
            return Ok(Written { id, outputs, inputs: None, warnings });
        }
        Err(LifecycleError::Partial(Box::new(PartialFailure {
            urn: self.urn.clone(),
            id,
            outputs,
            inputs: news.clone(),
            reasons: errors,
        })))
    }

    /// The prior state an operation plans from: the stored outputs, upgraded; when a failed
    /// apply left them ([`Meta::apply_failed`]), read from the provider first. Terraform
    /// refreshes every object before it plans. Pulumi refreshes only on request, and a failed
    /// apply's state is the one known to disagree with the object: an SDKv2 provider returns
    /// its planned values beside the error, so planning from them fails every later update
    /// until a manual refresh (issue 28). An object the read finds gone ([`Source::Gone`]) is
    /// planned from the stored state, whose apply then reports what the provider says, and a
    /// Delete of it has nothing to do.
    async fn prior(
        &self,
        id: &str,
        olds: &PropertyMap,
        secrets: &[cty::Path],
        warnings: &mut Warnings,
    ) -> Result<(Value, Meta, Source), LifecycleError> {
        let (state, meta) = warnings.keep(self.upgrade(id, olds, secrets).await?);
        if !meta.apply_failed {
            return Ok((state, meta, Source::Stored));
        }
        let identity = self.stored_identity(&meta)?;
        let stored = Stored { state: &state, private: &meta.private, identity: identity.as_ref() };
        let Some(read) = warnings.keep(self.read(stored, secrets).await?) else {
            tracing::debug!(urn = %self.urn, "the object a failed apply left is gone");
            return Ok((state, meta, Source::Gone));
        };
        let (state, meta) = self.after_read(meta, read, identity)?;
        Ok((state, meta, Source::Read))
    }

    /// The state and meta a read found, in place of the stored ones: a provider that sends no
    /// identity keeps the stored one, as Terraform keeps it; the failure mark goes.
    fn after_read(&self, meta: Meta, read: Read, stored: Option<Value>) -> Result<(Value, Meta), LifecycleError> {
        let identity = read.identity.or(stored).map(|identity| self.identity_text(&identity)).transpose()?;
        Ok((read.state, Meta { private: read.private, identity, apply_failed: false, ..meta }))
    }

    /// Delete: the upgraded prior state, a destroy plan when the provider wants one, and an
    /// apply with null planned state and null configuration.
    pub async fn delete(&self, request: &DeleteRequest) -> Result<Vec<String>, LifecycleError> {
        let DeleteRequest { id, olds, deadline, .. } = request;
        let mut warnings = Warnings::default();
        let secrets = self.stored_secrets(olds);
        let (prior, meta, source) = self.prior(id, olds, &secrets, &mut warnings).await?;
        if source == Source::Gone {
            // What a failed apply left is gone already: as Terraform's refresh drops it, there
            // is nothing to destroy, and a provider asked to may fail on the missing object.
            return Ok(warnings.into_vec());
        }
        let null = Value::null(self.ty());
        let prior_identity = self.stored_identity(&meta)?;
        let private = if self.provider.capabilities.plan_destroy {
            let stored = Stored { state: &prior, private: &meta.private, identity: prior_identity.as_ref() };
            warnings.keep(self.plan_destroy(stored, &secrets).await?)
        } else {
            meta.private
        };
        // Terraform sends no planned identity with a destroy: the plan is null.
        let planned = Planned::destroy(null.clone(), private);
        let destroy = Apply {
            prior: &prior,
            planned: &planned,
            config: &null,
            secrets: &secrets,
            limit: deadline.limit(),
            cancel: &deadline.cancel,
        };
        let applied = warnings.keep(self.apply(destroy).await?);
        if !applied.errors.is_empty() {
            return Err(LifecycleError::ApplyFailed {
                subject: self.subject().clone(),
                change: Change::Delete,
                reasons: applied.errors,
            });
        }
        Ok(warnings.into_vec())
    }
}

/// Where an operation's prior state came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The stored outputs, upgraded.
    Stored,
    /// Read from the provider just now.
    Read,
    /// Read from the provider just now, and found gone; the stored state stands in.
    Gone,
}

/// Whether a plan changes nothing: Terraform's NoOp (a wholly known planned value equal to
/// the prior state).
fn unchanged(prior: &Value, planned: &Value) -> bool {
    !prior.is_null() && planned.is_wholly_known() && planned.equals_ignoring_refinements(prior)
}
