//! The resource operations: Check, Diff, Create, Update, Delete and Read, each run the way
//! Terraform core runs the same step.
//!
//! - Check validates the configuration (`ValidateResourceConfig`) and auto-names `name`.
//! - Diff loads the state (`UpgradeResourceState`), plans (`PlanResourceChange` from the
//!   proposed new state) and reports what changes, in Pulumi property paths.
//! - Create and Update plan again, as Terraform does at apply time, then apply. A preview
//!   stops after the plan and returns the planned values, unknowns included.
//! - Delete plans a destroy when the provider asks for it, then applies a null plan.
//! - Read refreshes (`ReadResource`) or imports (`ImportResourceState` + `ReadResource`).
//!
//! Nothing created remotely is ever dropped: an apply that fails with a state returns a
//! [`PartialFailure`], which the engine stores.
//!
//! Architecture invariant: no gRPC types; requests come in as Pulumi property maps.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::calls::{Applied, Planned, Resource, Warnings};
use super::checks::{self, CheckFailure, EarlierPlan};
use super::detailed_diff::{PropertyDiff, Sets, detailed_diff, top_level_keys, without_recomputed};
use super::error::{Change, LifecycleError, PartialFailure};
use super::identity::{self, ImportKey};
use super::inputs::{
    inputs_from_outputs, mark_sensitive_inputs, refreshed_inputs, strip_computed_only, with_operation_timeout,
};
use super::state::{self, MISSING_ID, Meta};
use crate::convert::values::{self as convert, UnknownKeys};
use crate::cty::{self, Value};
use crate::property::{PropertyMap, PropertyPath, PropertyValue};

/// How the engine wants `name` auto-named (the program's or stack's autonaming config).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Autonaming {
    /// The provider's default: `<resource name>-<7 random hex digits>`.
    #[default]
    Default,
    /// Use this name (the engine computed it from the configured pattern).
    Propose(String),
    /// Use exactly this name.
    Enforce(String),
    /// Never auto-name.
    Disable,
}

/// Check's result: the inputs to use, or what is wrong with them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checked {
    pub inputs: PropertyMap,
    pub failures: Vec<CheckFailure>,
    pub warnings: Vec<String>,
}

/// Diff's result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diffed {
    pub changes: bool,
    /// Top-level properties that force replacement.
    pub replaces: Vec<String>,
    /// Top-level properties that change.
    pub diffs: Vec<String>,
    pub detailed: Vec<PropertyDiff>,
    pub warnings: Vec<String>,
}

/// The outcome of Create, Update or Read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Written {
    /// Empty in a preview of a create, and after a read that found the object gone.
    pub id: String,
    pub outputs: PropertyMap,
    /// Read only: the inputs to store (derived from the state on import and refresh).
    pub inputs: Option<PropertyMap>,
    pub warnings: Vec<String>,
}

/// Check of one resource.
#[derive(Clone, Debug, Default)]
pub struct CheckRequest {
    /// The resource type's Pulumi token.
    pub token: String,
    pub urn: String,
    /// The resource's name, for auto-naming.
    pub name: String,
    pub olds: PropertyMap,
    pub news: PropertyMap,
    /// The stored outputs an engine of 3.261 or later sends on an update's Check (`None`
    /// from older engines, and on a create or replace).
    pub old_outputs: Option<PropertyMap>,
    pub random_seed: Vec<u8>,
    pub autonaming: Autonaming,
}

/// Diff of one resource.
#[derive(Clone, Debug, Default)]
pub struct DiffRequest {
    pub token: String,
    pub urn: String,
    pub id: String,
    pub olds: PropertyMap,
    pub news: PropertyMap,
}

/// Create of one resource.
#[derive(Clone, Debug, Default)]
pub struct CreateRequest {
    pub token: String,
    pub urn: String,
    pub news: PropertyMap,
    pub preview: bool,
    /// The engine's timeout in seconds; 0 means none.
    pub timeout_seconds: f64,
    pub cancel: CancellationToken,
}

/// Update of one resource.
#[derive(Clone, Debug, Default)]
pub struct UpdateRequest {
    pub token: String,
    pub urn: String,
    pub id: String,
    pub olds: PropertyMap,
    pub news: PropertyMap,
    pub preview: bool,
    pub timeout_seconds: f64,
    pub cancel: CancellationToken,
}

/// Delete of one resource.
#[derive(Clone, Debug, Default)]
pub struct DeleteRequest {
    pub token: String,
    pub urn: String,
    pub id: String,
    pub olds: PropertyMap,
    pub timeout_seconds: f64,
    pub cancel: CancellationToken,
}

/// Read of one resource: a refresh when `outputs` are given, else an import of `id`.
#[derive(Clone, Debug, Default)]
pub struct ReadRequest {
    pub token: String,
    pub urn: String,
    pub id: String,
    pub outputs: Option<PropertyMap>,
    pub inputs: Option<PropertyMap>,
}

/// What Create and Update share.
struct Write<'a> {
    id: &'a str,
    /// The upgraded prior state and its meta; `None` for a create.
    prior: Option<(Value, Meta)>,
    news: &'a PropertyMap,
    preview: bool,
    timeout_seconds: f64,
    cancel: &'a CancellationToken,
}

/// Plans made by Diff, kept for the final-plan check of the Update that follows, with the
/// prior state and configuration each was planned from.
///
/// Only plans an Update will consume are kept (`update_follows`), and Update takes its
/// plan out, preview or not: a deployment of thousands of unchanged resources keeps
/// nothing, where it once kept three values per resource until the process exited.
#[derive(Default)]
pub struct PlanCache(Mutex<HashMap<String, EarlierPlan>>);

/// Whether the engine follows this Diff with an Update of the same resource: only when
/// something changes in place. No change means no further call; a replacement means
/// Create (and Delete), which plan from scratch.
pub(crate) fn update_follows(diffed: &Diffed) -> bool {
    diffed.changes && diffed.replaces.is_empty()
}

impl PlanCache {
    /// Keeps `plan` for `urn` if the Diff that made it leads to an Update; otherwise drops
    /// any older plan for it, which no Update will ask for now.
    fn keep(&self, urn: &str, plan: EarlierPlan, diffed: &Diffed) {
        let mut plans = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if update_follows(diffed) {
            plans.insert(urn.to_owned(), plan);
        } else {
            plans.remove(urn);
        }
    }

    /// How many plans are held.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn take(&self, urn: &str) -> Option<EarlierPlan> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).remove(urn)
    }
}

impl Resource<'_> {
    fn name_property(&self) -> Option<String> {
        self.props.autonamed.then(|| self.props.names.by_tf_name("name").map(|n| n.pulumi_name.clone()))?
    }

    /// The Terraform configuration of Pulumi inputs, with the secret paths.
    fn config(&self, inputs: &PropertyMap) -> Result<(Value, Vec<cty::Path>), LifecycleError> {
        let (value, secrets) =
            convert::to_cty(&self.schema.block, &self.props.names, inputs, UnknownKeys::Reject).map_err(|error| {
                LifecycleError::InvalidProperty { subject: self.subject().clone(), error: Box::new(error) }
            })?;
        self.note_secrets(&secrets);
        Ok((strip_computed_only(&self.schema.block, &value), secrets))
    }

    fn outputs(&self, state: &Value, secrets: &[cty::Path], meta: &Meta) -> Result<PropertyMap, LifecycleError> {
        state::outputs(self.schema, &self.props, state, secrets, meta).map_err(|err| LifecycleError::ProviderBug {
            subject: self.subject().clone(),
            summary: "Provider produced invalid object",
            problems: vec![format!("the state cannot be shown as Pulumi outputs: {err}")],
        })
    }

    /// The `__meta` to store with a new state: the current schema versions, and the keys
    /// other writers left.
    fn meta(
        &self,
        previous: Option<&Meta>,
        private: Vec<u8>,
        identity: Option<&Value>,
    ) -> Result<Meta, LifecycleError> {
        Ok(Meta {
            schema_version: self.schema.version,
            private,
            identity: identity.map(|identity| self.identity_text(identity)).transpose()?,
            identity_schema_version: self.identity_schema.map_or(0, |schema| schema.version),
            other: previous.map(|m| m.other.clone()).unwrap_or_default(),
        })
    }

    /// Check: auto-names `name`, validates the configuration, and marks sensitive inputs
    /// secret. The inputs otherwise stay exactly as the program wrote them.
    ///
    /// `old_outputs` are the stored outputs an engine of 3.261 or later sends on an update's
    /// Check (`None` from older engines, and on a create or replace). Terraform validates a
    /// configuration without any prior state, and so does this Check; the outputs only keep
    /// an existing object's name (`auto_name`).
    pub async fn check(&self, request: &CheckRequest) -> Result<Checked, LifecycleError> {
        let CheckRequest { name: resource_name, olds, news, old_outputs, random_seed, autonaming, .. } = request;
        let mut inputs = news.clone();
        let mut autonamed = None;
        if let Some(key) = self.name_property()
            && !inputs.contains_key(&key)
        {
            let old_output = old_outputs.as_ref().and_then(|outputs| outputs.get(&key));
            if let Some(name) = auto_name(autonaming, olds.get(&key), old_output, resource_name, random_seed) {
                inputs.insert(key.clone(), PropertyValue::String(name));
                autonamed = Some(key);
            }
        }
        let mut checked = self.validate_inputs(&inputs).await?;
        // Terraform's ConflictsWith is invisible in the schema: when the auto-name is what
        // conflicts (e.g. with `name_prefix`), drop it and validate again.
        if let Some(key) = &autonamed
            && checked
                .failures
                .iter()
                .any(|f| f.property == *key && f.reason.contains("Conflicting configuration arguments"))
        {
            inputs.remove(key);
            checked = self.validate_inputs(&inputs).await?;
        }
        mark_sensitive_inputs(&self.schema.block, &self.props.names, &mut inputs);
        checked.inputs = inputs;
        Ok(checked)
    }

    async fn validate_inputs(&self, inputs: &PropertyMap) -> Result<Checked, LifecycleError> {
        let config = match self.config(inputs) {
            Ok((config, _)) => config,
            Err(LifecycleError::InvalidProperty { error, .. }) => {
                return Ok(Checked { failures: vec![checks::convert_failure(&error)], ..Checked::default() });
            }
            Err(other) => return Err(other),
        };
        let diagnostics = self.validate(&config).await?;
        Ok(Checked {
            inputs: PropertyMap::new(),
            failures: checks::check_failures(&diagnostics.errors, &[]),
            warnings: diagnostics.warnings.iter().map(ToString::to_string).collect(),
        })
    }

    /// Diff: what the provider's plan changes, against the upgraded prior state.
    pub async fn diff(&self, request: &DiffRequest, cache: &PlanCache) -> Result<Diffed, LifecycleError> {
        let DiffRequest { id, olds, news, .. } = request;
        let mut warnings = Warnings::default();
        let (prior, meta) = warnings.keep(self.upgrade(id, olds).await?);
        let (config, _) = self.config(news)?;
        let prior_identity = self.stored_identity(&meta)?;
        let planned = warnings.keep(self.plan(&prior, &meta.private, prior_identity.as_ref(), &[], &config).await?);
        let warnings = warnings.into_vec();
        if planned.deferred.is_some() {
            // A change the provider deferred: shown as an update (its warning says why), never
            // kept for an Update, which refuses to apply it.
            return Ok(Diffed { changes: true, warnings, ..Diffed::default() });
        }
        let diffed = if planned.value.is_wholly_known() && planned.value.equals_ignoring_refinements(&prior) {
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
            Diffed { changes: true, replaces, diffs, detailed, warnings }
        };
        cache.keep(&self.urn, EarlierPlan { prior, config, planned: planned.value, private: planned.private }, &diffed);
        Ok(diffed)
    }

    /// Create: plan from a null prior; unless previewing, apply.
    pub async fn create(&self, request: &CreateRequest) -> Result<Written, LifecycleError> {
        let CreateRequest { news, preview, timeout_seconds, cancel, .. } = request;
        let write = Write { id: "", prior: None, news, preview: *preview, timeout_seconds: *timeout_seconds, cancel };
        self.plan_and_apply(write, Warnings::default(), None).await
    }

    /// Update: upgrade the prior state, plan again (checking the plan against the one Diff
    /// made, as Terraform checks its final plan), and unless previewing, apply.
    pub async fn update(&self, request: &UpdateRequest, cache: &PlanCache) -> Result<Written, LifecycleError> {
        let UpdateRequest { id, olds, news, preview, timeout_seconds, cancel, .. } = request;
        let mut warnings = Warnings::default();
        let prior = warnings.keep(self.upgrade(id, olds).await?);
        let write =
            Write { id, prior: Some(prior), news, preview: *preview, timeout_seconds: *timeout_seconds, cancel };
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
        let config = with_operation_timeout(&self.schema.block, &config, change.as_str(), write.timeout_seconds);
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
        let planned =
            warnings.keep(self.plan(&prior, &meta.private, prior_identity.as_ref(), saved_private, &config).await?);
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
        let limit = limit(write.timeout_seconds);
        let applied = warnings.keep(self.apply(&prior, &planned, &config, limit, write.cancel).await?);
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
        let meta = self.meta(previous, applied.private, applied.identity.as_ref())?;
        let outputs = self.outputs(&applied.new_state, secrets, &meta)?;
        let id = state::resource_id(&self.props, &applied.new_state);
        let mut errors = applied.errors;
        let id = id.unwrap_or_else(|| {
            errors.push(format!(
                "the provider returned no id for the new object; it is recorded as {MISSING_ID:?}: run `pulumi refresh` or import it"
            ));
            MISSING_ID.to_owned()
        });
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

    /// Delete: the upgraded prior state, a destroy plan when the provider wants one, and an
    /// apply with null planned state and null configuration.
    pub async fn delete(&self, request: &DeleteRequest) -> Result<Vec<String>, LifecycleError> {
        let DeleteRequest { id, olds, timeout_seconds, cancel, .. } = request;
        let timeout_seconds = *timeout_seconds;
        let mut warnings = Warnings::default();
        let (prior, meta) = warnings.keep(self.upgrade(id, olds).await?);
        let null = Value::null(self.ty());
        let prior_identity = self.stored_identity(&meta)?;
        let private = if self.provider.capabilities.plan_destroy {
            warnings.keep(self.plan_destroy(&prior, &meta.private, prior_identity.as_ref()).await?)
        } else {
            meta.private
        };
        // Terraform sends no planned identity with a destroy: the plan is null.
        let applied = warnings.keep(
            self.apply(&prior, &Planned::destroy(null.clone(), private), &null, limit(timeout_seconds), cancel).await?,
        );
        if !applied.errors.is_empty() {
            return Err(LifecycleError::ApplyFailed {
                subject: self.subject().clone(),
                change: Change::Delete,
                reasons: applied.errors,
            });
        }
        Ok(warnings.into_vec())
    }

    /// Read: a refresh when outputs are given, else an import of `id`.
    pub async fn read_resource(&self, request: &ReadRequest) -> Result<Written, LifecycleError> {
        match &request.outputs {
            Some(outputs) if !outputs.is_empty() => self.refresh(&request.id, outputs, request.inputs.as_ref()).await,
            _ => self.import_resource(&request.id).await,
        }
    }

    async fn refresh(
        &self,
        id: &str,
        olds: &PropertyMap,
        old_inputs: Option<&PropertyMap>,
    ) -> Result<Written, LifecycleError> {
        let mut warnings = Warnings::default();
        let (prior, meta) = warnings.keep(self.upgrade(id, olds).await?);
        let current_identity = self.stored_identity(&meta)?;
        let Some(read) = warnings.keep(self.read(&prior, &meta.private, current_identity.as_ref()).await?) else {
            let warnings = warnings.into_vec();
            return Ok(Written { id: String::new(), outputs: PropertyMap::new(), inputs: None, warnings });
        };
        // Values that were secret stay secret: the old outputs and inputs say which.
        let mut secrets = secret_paths(self, olds);
        if let Some(old_inputs) = old_inputs {
            secrets.extend(secret_paths(self, old_inputs));
        }
        // A provider that sends no identity keeps the stored one, as Terraform keeps it.
        let identity = read.identity.or(current_identity);
        let outputs = self.outputs(&read.state, &secrets, &self.meta(Some(&meta), read.private, identity.as_ref())?)?;
        let new_id = state::resource_id(&self.props, &read.state).unwrap_or_else(|| id.to_owned());
        let inputs = old_inputs.map(|old| refreshed_inputs(&self.schema.block, &self.props.names, old, &outputs));
        Ok(Written { id: new_id, outputs, inputs, warnings: warnings.into_vec() })
    }

    /// Import by an ID string, or by an identity written as JSON (see
    /// [`identity::import_key`]); then a read, as Terraform does.
    ///
    /// An object the read finds gone is answered as a refresh answers it (an empty ID, no
    /// outputs), not with Terraform's "Cannot import non-existent remote object": this Read
    /// is also how the engine asks whether an object exists (`resourceExists`, the generated
    /// SDKs' `exists` methods, 3.273 and later), where "no" is an answer and not an error;
    /// `pulumi import` reports the empty answer itself ("resource '<id>' does not exist").
    /// The Go implementation answers with properties that are present but empty, which that
    /// engine takes for "unknown" rather than "no".
    async fn import_resource(&self, id: &str) -> Result<Written, LifecycleError> {
        let mut warnings = Warnings::default();
        let key = identity::import_key(id, self.identity_schema).map_err(|err| LifecycleError::Invalid {
            subject: self.subject().clone(),
            message: format!("cannot import {} by identity: {err}", self.tf_name),
        })?;
        let imported = match &key {
            ImportKey::Id(id) => warnings.keep(self.import(id, None).await?),
            // Terraform sends the identity alone. The bridge also sends the identity's own
            // `id`, when it has one, as the ID: Pulumi resources are known by ID, and
            // providers whose ImportState only passes the ID through (tfcoremock, and
            // Terraform 1.14 with it, crash on an identity alone) then import the same object.
            ImportKey::Identity { identity, id } => {
                warnings.keep(self.import(id.as_deref().unwrap_or(""), Some(identity)).await?)
            }
        };
        let Some(read) =
            warnings.keep(self.read(&imported.state, &imported.private, imported.identity.as_ref()).await?)
        else {
            tracing::debug!(resource = self.tf_name, id, "the object to import does not exist");
            return Ok(Written {
                id: String::new(),
                outputs: PropertyMap::new(),
                inputs: None,
                warnings: warnings.into_vec(),
            });
        };
        let identity = read.identity.or(imported.identity);
        let outputs = self.outputs(&read.state, &[], &self.meta(None, read.private, identity.as_ref())?)?;
        let fallback_id = match &key {
            ImportKey::Id(id) => id.clone(),
            ImportKey::Identity { id, .. } => id.clone().unwrap_or_else(|| MISSING_ID.to_owned()),
        };
        let new_id = state::resource_id(&self.props, &read.state).unwrap_or(fallback_id);
        // The provider's own configuration when it writes one (GenerateResourceConfig, as
        // `terraform plan -generate-config-out` uses it); else the Go implementation's
        // derivation, so imports stay identical with either implementation.
        let inputs = match warnings.keep(self.generate_config(&read.state).await?) {
            Some(config) => {
                let generated = self.outputs(&config, &[], &Meta::default())?;
                inputs_from_outputs(&self.schema.block, &self.props.names, &generated)
            }
            None => inputs_from_outputs(&self.schema.block, &self.props.names, &outputs),
        };
        Ok(Written { id: new_id, outputs, inputs: Some(inputs), warnings: warnings.into_vec() })
    }
}

/// The Terraform paths of the secret values in stored properties.
fn secret_paths(resource: &Resource<'_>, props: &PropertyMap) -> Vec<cty::Path> {
    convert::to_cty(&resource.schema.block, &resource.props.names, props, UnknownKeys::Ignore)
        .map(|(_, secrets)| secrets)
        .unwrap_or_default()
}

/// The engine's timeout as a call deadline (0 means none).
fn limit(seconds: f64) -> Option<Duration> {
    (seconds > 0.0 && seconds.is_finite()).then(|| Duration::from_secs_f64(seconds))
}

/// The name Check gives an auto-named resource whose program sets none, or `None` to leave it
/// unset. An existing object keeps its name under the default autonaming, or every update
/// would rename (and, `name` being usually ForceNew, replace) it: the name an earlier Check
/// chose (the old inputs), else the name the object has (the old outputs), which is what an
/// object whose stored inputs lack the name (one created while autonaming was disabled,
/// the provider choosing the name) still has. Only a plain string is kept; a secret or
/// unknown old value is not a name to reuse.
pub(crate) fn auto_name(
    autonaming: &Autonaming,
    old_input: Option<&PropertyValue>,
    old_output: Option<&PropertyValue>,
    resource_name: &str,
    random_seed: &[u8],
) -> Option<String> {
    match autonaming {
        Autonaming::Disable => None,
        Autonaming::Propose(name) | Autonaming::Enforce(name) => Some(name.clone()),
        Autonaming::Default => {
            let reusable = |value: Option<&PropertyValue>| match value {
                Some(PropertyValue::String(old)) => Some(old.clone()),
                _ => None,
            };
            reusable(old_input)
                .or_else(|| reusable(old_output))
                .or_else(|| Some(default_autoname(resource_name, random_seed)))
        }
    }
}

/// `<name>-<7 hex digits>`, the digits from the engine's random seed (so a retried Check
/// picks the same name), as Pulumi's own auto-naming does.
fn default_autoname(resource_name: &str, random_seed: &[u8]) -> String {
    let mut bytes = [0u8; 4];
    if random_seed.len() >= 4 {
        bytes.copy_from_slice(&random_seed[..4]);
    } else {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write(resource_name.as_bytes());
        bytes.copy_from_slice(&hasher.finish().to_le_bytes()[..4]);
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut name = format!("{resource_name}-{}", &hex[..7]);
    name.truncate(255);
    name
}

#[cfg(test)]
mod auto_name_tests {
    use super::*;

    /// (case, autonaming, old input, old output, expected name)
    type Case<'a> = (&'a str, &'a Autonaming, Option<PropertyValue>, Option<PropertyValue>, Option<&'a str>);

    #[test]
    fn an_existing_object_keeps_its_name() {
        let s = |v: &str| PropertyValue::String(v.to_owned());
        let seed = [0xab, 0xcd, 0xef, 0x12, 0x34];
        let fresh = "thing-abcdef1";
        let propose = Autonaming::Propose("proposed".into());
        let enforce = Autonaming::Enforce("enforced".into());
        let secret = PropertyValue::Secret(Box::new(s("hidden")));
        let unknown = PropertyValue::Unknown(crate::property::UnknownKind::String);
        let table: [Case<'_>; 9] = [
            ("a create: a fresh name from the seed", &Autonaming::Default, None, None, Some(fresh)),
            ("an update: the name an earlier Check chose", &Autonaming::Default, Some(s("old")), None, Some("old")),
            (
                "the old inputs win over the old outputs",
                &Autonaming::Default,
                Some(s("in")),
                Some(s("out")),
                Some("in"),
            ),
            (
                "stored inputs without the name: the object's own",
                &Autonaming::Default,
                None,
                Some(s("out")),
                Some("out"),
            ),
            ("a secret old output is not reused", &Autonaming::Default, None, Some(secret), Some(fresh)),
            ("an unknown old output is not reused", &Autonaming::Default, None, Some(unknown), Some(fresh)),
            ("autonaming off: no name, old ones ignored", &Autonaming::Disable, Some(s("old")), Some(s("out")), None),
            ("a proposed name wins over the old ones", &propose, Some(s("old")), Some(s("out")), Some("proposed")),
            ("an enforced name wins over the old ones", &enforce, None, Some(s("out")), Some("enforced")),
        ];
        for (case, autonaming, old_input, old_output, expected) in table {
            let got = auto_name(autonaming, old_input.as_ref(), old_output.as_ref(), "thing", &seed);
            assert_eq!(got.as_deref(), expected, "{case}");
        }
    }
}

#[cfg(test)]
mod plan_cache_tests {
    use super::*;
    use crate::cty::Type;

    fn diffed(changes: bool, replaces: &[&str]) -> Diffed {
        Diffed { changes, replaces: replaces.iter().map(|s| (*s).to_owned()).collect(), ..Diffed::default() }
    }

    fn plan() -> EarlierPlan {
        EarlierPlan {
            prior: Value::null(Type::String),
            config: Value::null(Type::String),
            planned: Value::null(Type::String),
            private: Vec::new(),
        }
    }

    #[test]
    fn only_an_in_place_change_is_followed_by_an_update() {
        let table = [
            ("no change", diffed(false, &[]), false),
            ("an in-place change", diffed(true, &[]), true),
            ("a replacement", diffed(true, &["length"]), false),
        ];
        for (name, diffed, expected) in table {
            assert_eq!(update_follows(&diffed), expected, "{name}");
        }
    }

    /// The memory bug: every Diff used to leave its plan behind, unchanged resources
    /// included, until the process exited.
    #[test]
    fn the_cache_holds_only_plans_an_update_will_take() {
        let cache = PlanCache::default();
        for n in 0..100 {
            cache.keep(&format!("urn:unchanged:{n}"), plan(), &diffed(false, &[]));
            cache.keep(&format!("urn:replaced:{n}"), plan(), &diffed(true, &["length"]));
        }
        assert!(cache.is_empty(), "unchanged and replaced resources keep no plan");

        cache.keep("urn:updated", plan(), &diffed(true, &[]));
        assert_eq!(cache.len(), 1);
        // A later Diff of the same resource that finds nothing to do drops the old plan.
        cache.keep("urn:updated", plan(), &diffed(false, &[]));
        assert!(cache.is_empty());

        cache.keep("urn:updated", plan(), &diffed(true, &[]));
        assert!(cache.take("urn:updated").is_some());
        assert!(cache.take("urn:updated").is_none(), "Update takes the plan out");
        assert!(cache.is_empty());
    }
}
