//! The provider calls of a resource operation, each followed by the checks Terraform core
//! makes on its answer (terraform-protocol.md §4.3).
//!
//! [`Resource`] is one resource type of the parameterized provider, bound to the URN of the
//! resource being worked on, so every error can name it. Its methods are the steps
//! Terraform runs: [`Resource::upgrade`] (on every load of stored state),
//! [`Resource::plan`] (with `AssertPlanValid`, the write-only and `requires_replace`
//! checks), [`Resource::apply`] (with `AssertObjectCompatible` and the unknown-after-apply
//! check) and [`Resource::read`]. Checks that Terraform tolerates for providers on the legacy
//! SDK type system become warnings; everything else fails the operation.
//!
//! Architecture invariant: no Pulumi property values here except in error paths; values
//! are cty.

use std::future::Future;
use std::time::Duration;

use schema_gen::tf::{Block, Schema};
use schema_gen::translate::ResourceProperties;
use tokio_util::sync::CancellationToken;

use super::error::{Interruption, LifecycleError, PROVIDER_BUG_SUFFIX, Reported};
use super::parameterized::Parameterized;
use super::state;
use crate::convert::paths::pulumi_path;
use crate::cty::{self, Path, Value};
use crate::invariants::{self, Violation};
use crate::property::PropertyPath;
use crate::tfplugin::CallError;
use crate::tfplugin::types::{
    ApplyResourceChangeRequest, AttributePath, Diagnostic, DynamicValue, PathStep, PlanResourceChangeRequest, RawState,
    ReadResourceRequest, Severity, UpgradeResourceStateRequest,
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
        let Some((tf_name, schema)) =
            self.resource_tf_name(token).and_then(|tf_name| self.schema.resources.get_key_value(tf_name))
        else {
            return Err(LifecycleError::UnknownToken {
                kind: "resource",
                token: token.to_owned(),
                package: self.package_name.clone(),
            });
        };
        let props = self.names.resource_properties(tf_name, &schema.block);
        Ok(Resource { provider: self, tf_name, schema, props, urn: urn.to_owned() })
    }

    /// `provider_meta`: sent (as null) only when the provider declares a schema for it.
    pub(super) fn provider_meta(&self) -> Option<DynamicValue> {
        self.schema.provider_meta.as_ref().map(|_| DynamicValue::null())
    }

    /// How messages name the provider: its source address, else its name.
    pub(super) fn display_name(&self) -> &str {
        self.source_address.as_deref().unwrap_or(&self.terraform_name)
    }
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

/// Diagnostics with Pulumi paths, for an object of `block` named by `names`.
pub fn report(
    block: &Block,
    names: &schema_gen::translate::PropertyNames,
    diagnostics: &[Diagnostic],
) -> (Vec<Reported>, Vec<Reported>) {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for diagnostic in diagnostics {
        let reported = Reported {
            severity: diagnostic.severity,
            summary: diagnostic.summary.clone(),
            detail: diagnostic.detail.clone(),
            property: diagnostic.attribute.as_ref().map(|path| pulumi_path(block, names, &cty_path(path))),
        };
        match diagnostic.severity {
            Severity::Error => errors.push(reported),
            Severity::Warning => warnings.push(reported),
        }
    }
    (errors, warnings)
}

/// Decodes a provider's answer as a value of `ty`.
pub fn decode(value: &DynamicValue, ty: &cty::Type) -> Result<Value, cty::Error> {
    match value {
        DynamicValue::Msgpack(bytes) => cty::msgpack::decode(bytes, ty),
        DynamicValue::Json(bytes) => cty::json::decode(bytes, ty),
    }
}

/// Encodes a value for a request.
pub fn encode(value: &Value, ty: &cty::Type) -> Result<DynamicValue, cty::Error> {
    cty::msgpack::encode(value, ty).map(DynamicValue::Msgpack)
}

impl Resource<'_> {
    pub fn ty(&self) -> cty::Type {
        self.schema.block.implied_type()
    }

    /// The Pulumi path of a Terraform path in this resource.
    pub fn pulumi_path(&self, path: &Path) -> PropertyPath {
        pulumi_path(&self.schema.block, &self.props.names, path)
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

    fn bug(&self, summary: &'static str, problems: Vec<String>) -> LifecycleError {
        let mut problems = problems;
        if let Some(last) = problems.last_mut() {
            last.push_str(&format!(". {PROVIDER_BUG_SUFFIX}"));
        }
        LifecycleError::ProviderBug { urn: self.urn.clone(), summary, problems }
    }

    pub(super) fn call_error(&self, operation: &'static str, error: CallError) -> LifecycleError {
        LifecycleError::Call { urn: self.urn.clone(), operation, error: Box::new(error) }
    }

    fn cty_error(&self, operation: &'static str, what: &str, error: &cty::Error) -> LifecycleError {
        self.bug(
            "Provider produced invalid object",
            vec![format!("{operation} returned {what} that is invalid: {error}")],
        )
    }

    fn encode(&self, value: &Value) -> Result<DynamicValue, LifecycleError> {
        encode(value, &self.ty()).map_err(|err| LifecycleError::Invalid {
            urn: self.urn.clone(),
            message: format!("the value cannot be encoded for the provider: {err}"),
        })
    }

    /// Collects the warnings of a provider answer and fails with its errors, if any.
    pub(super) fn fail_on_errors(
        &self,
        operation: &'static str,
        diagnostics: &[Diagnostic],
        warnings: &mut Vec<String>,
    ) -> Result<(), LifecycleError> {
        let (errors, warns) = report(&self.schema.block, &self.props.names, diagnostics);
        warnings.extend(warns.iter().map(ToString::to_string));
        if errors.is_empty() {
            Ok(())
        } else {
            Err(LifecycleError::Diagnostics { urn: self.urn.clone(), operation, diagnostics: errors })
        }
    }

    /// Loads stored outputs the way Terraform loads state: rebuilds the raw state and sends
    /// it through `UpgradeResourceState` with the stored schema version. Returns the
    /// upgraded value and the stored private bytes.
    pub async fn upgrade(
        &self,
        id: &str,
        outputs: &crate::property::PropertyMap,
        warnings: &mut Vec<String>,
    ) -> Result<(Value, state::Meta), LifecycleError> {
        let state_error = |reason: String| LifecycleError::State { urn: self.urn.clone(), reason };
        let meta = state::Meta::from_outputs(outputs).map_err(state_error)?;
        if meta.schema_version > self.schema.version {
            return Err(LifecycleError::State {
                urn: self.urn.clone(),
                reason: format!(
                    "Resource instance managed by newer provider version: the stored state has schema version {}, \
                     but {} {} only knows version {}; use a newer provider version",
                    meta.schema_version,
                    self.provider.display_name(),
                    self.provider.package_version,
                    self.schema.version
                ),
            });
        }
        let raw = state::raw_state(self.schema, &self.props, id, outputs).map_err(state_error)?;
        let request = UpgradeResourceStateRequest {
            type_name: self.tf_name.to_owned(),
            version: meta.schema_version,
            raw_state: RawState::Json(raw),
        };
        let response = self
            .provider
            .client
            .upgrade_resource_state(&request)
            .await
            .map_err(|err| self.call_error("UpgradeResourceState", err))?;
        self.fail_on_errors("UpgradeResourceState", &response.diagnostics, warnings)?;
        let value = decode(&response.upgraded_state, &self.ty()).map_err(|err| {
            self.bug("Invalid resource state upgrade", vec![format!("the upgraded state is invalid: {err}")])
        })?;
        let unknown = state::unknown_paths(&value);
        if !unknown.is_empty() {
            return Err(self.bug(
                "Invalid resource state upgrade",
                unknown
                    .iter()
                    .map(|path| format!("{}: the upgraded state holds an unknown value", self.describe(path)))
                    .collect(),
            ));
        }
        Ok((value, meta))
    }

    /// PlanResourceChange for an update or create (`prior` null), checked as Terraform
    /// checks plans.
    pub async fn plan(
        &self,
        prior: &Value,
        prior_private: &[u8],
        config: &Value,
        warnings: &mut Vec<String>,
    ) -> Result<Planned, LifecycleError> {
        let ty = self.ty();
        let proposed = super::proposed_new(&self.schema.block, prior, config).map_err(|err| {
            LifecycleError::Invalid { urn: self.urn.clone(), message: format!("cannot propose a new state: {err}") }
        })?;
        let request = PlanResourceChangeRequest {
            type_name: self.tf_name.to_owned(),
            prior_state: self.encode(prior)?,
            proposed_new_state: self.encode(&proposed)?,
            config: self.encode(config)?,
            prior_private: prior_private.to_vec(),
            provider_meta: self.provider.provider_meta(),
            planned_private: Vec::new(),
        };
        let response = self
            .provider
            .client
            .plan_resource_change(&request)
            .await
            .map_err(|err| self.call_error("PlanResourceChange", err))?;
        self.fail_on_errors("PlanResourceChange", &response.diagnostics, warnings)?;
        if response.deferred.is_some() {
            return Err(LifecycleError::ProviderBug {
                urn: self.urn.clone(),
                summary: "Provider deferred changes when Terraform did not allow deferrals",
                problems: vec![format!(
                    "The provider signaled a deferred action for {:?}, but in this context deferrals are disabled. \
                     This is a bug in the provider, please file an issue with the provider developers",
                    self.tf_name
                )],
            });
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
        let mut replace_paths = Vec::new();
        for path in &response.requires_replace {
            // A create replaces nothing; Terraform ignores (and so does not check) the paths.
            if prior.is_null() {
                continue;
            }
            let path = cty_path(path);
            if !state::path_exists_in_type(&ty, &path) {
                problems.push(format!(
                    "Provider {provider:?} has indicated \"requires replacement\" on {} for a non-existent attribute path {path}",
                    self.urn
                ));
                continue;
            }
            // Terraform keeps a path only when the value there really changes (or is not
            // known yet): providers list attributes that merely *could* force replacement.
            let before = state::value_at(prior, &path);
            let after = state::value_at(&planned, &path);
            let changes = match (before, after) {
                (Some(before), Some(after)) => {
                    !after.is_wholly_known() || !before.is_wholly_known() || !before.equals_ignoring_refinements(after)
                }
                (None, None) => false,
                _ => true,
            };
            if changes && !replace_paths.contains(&path) {
                replace_paths.push(path);
            }
        }
        if !problems.is_empty() {
            return Err(self.bug("Provider produced invalid plan", problems));
        }
        Ok(Planned {
            value: planned,
            private: response.planned_private,
            replace_paths,
            legacy_type_system: response.legacy_type_system,
        })
    }

    /// Non-null write-only attributes in `value` (they may never be returned).
    fn write_only_problems(&self, value: &Value, when: &str) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, attr) in &self.schema.block.attributes {
            if attr.write_only && value.get_attr(name).is_some_and(|v| !v.is_null()) {
                problems.push(format!(
                    "Provider {:?} returned a value for the write-only attribute {} {when}. Write-only attributes \
                     cannot be read back from the provider",
                    self.provider.display_name(),
                    self.describe(&Path::root().attr(name))
                ));
            }
        }
        problems
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
        warnings: &mut Vec<String>,
    ) -> Result<Applied, LifecycleError> {
        let ty = self.ty();
        let request = ApplyResourceChangeRequest {
            type_name: self.tf_name.to_owned(),
            prior_state: self.encode(prior)?,
            planned_state: self.encode(planned)?,
            config: if config.is_null() { DynamicValue::null() } else { self.encode(config)? },
            planned_private: planned_private.to_vec(),
            provider_meta: self.provider.provider_meta(),
        };
        let operation = "ApplyResourceChange";
        let (response, interruption) =
            self.interruptible(operation, self.provider.client.apply_resource_change(&request), limit, cancel).await?;
        let response = response.map_err(|err| self.call_error(operation, err))?;
        let provider = self.provider.display_name();
        let (reported, warns) = report(&self.schema.block, &self.props.names, &response.diagnostics);
        warnings.extend(warns.iter().map(ToString::to_string));
        let mut errors: Vec<String> = reported.iter().map(ToString::to_string).collect();
        if let Some(interruption) = interruption {
            errors.push(format!("the operation {interruption}"));
        }
        let is_delete = planned.is_null();
        let new_state = match decode(&response.new_state, &ty) {
            Ok(value) => value,
            Err(err) => {
                // Undecodable means unknown: the object may exist, but nothing can be stored.
                return Err(LifecycleError::Unreadable {
                    urn: self.urn.clone(),
                    operation,
                    reason: format!("a new state that is invalid ({err}), a bug in the provider"),
                });
            }
        };
        if new_state.is_null() && !is_delete && errors.is_empty() {
            errors.push(format!(
                "Provider produced inconsistent result after apply: provider {provider:?} produced a null object \
                 after apply for {}. {PROVIDER_BUG_SUFFIX}",
                self.urn
            ));
        }
        if !new_state.is_null() && is_delete && errors.is_empty() {
            errors.push(format!(
                "Provider returned invalid result object after apply: provider {provider:?} returned a non-null \
                 object after a delete of {}. {PROVIDER_BUG_SUFFIX}",
                self.urn
            ));
        }
        let mut new_state = new_state;
        if !new_state.is_null() {
            let unknown = state::unknown_paths(&new_state);
            for path in &unknown {
                errors.push(format!(
                    "Provider returned invalid result object after apply: after the apply operation, the provider \
                     still indicated an unknown value for {}. All values must be known after apply, so this is \
                     always a bug in the provider and should be reported in the provider's own repository",
                    self.describe(path)
                ));
            }
            if !unknown.is_empty() {
                new_state = state::unknowns_to_null(&new_state);
            }
            errors.extend(
                self.write_only_problems(&new_state, "after apply")
                    .into_iter()
                    .map(|p| format!("Provider produced invalid object: {p}")),
            );
            if reported.is_empty() && unknown.is_empty() && !is_delete {
                let violations = invariants::assert_object_compatible(&self.schema.block, planned, &new_state);
                if !violations.is_empty() {
                    let texts: Vec<String> = self
                        .violations(&violations)
                        .into_iter()
                        .map(|text| format!("When applying changes to {}, provider {provider:?} produced an unexpected new value: {text}", self.urn))
                        .collect();
                    if response.legacy_type_system || legacy_plan {
                        warnings.push(legacy_warning(provider, "produced an unexpected new value", &self.urn, &texts));
                    } else {
                        errors.extend(texts.into_iter().map(|t| {
                            format!("Provider produced inconsistent result after apply: {t}. {PROVIDER_BUG_SUFFIX}")
                        }));
                    }
                }
            }
        }
        Ok(Applied { new_state, private: response.private, errors })
    }

    /// ReadResource with the (upgraded) state; `None` when the remote object is gone.
    pub async fn read(
        &self,
        current: &Value,
        private: &[u8],
        warnings: &mut Vec<String>,
    ) -> Result<Option<(Value, Vec<u8>)>, LifecycleError> {
        let request = ReadResourceRequest {
            type_name: self.tf_name.to_owned(),
            current_state: self.encode(current)?,
            private: private.to_vec(),
            provider_meta: self.provider.provider_meta(),
        };
        let response =
            self.provider.client.read_resource(&request).await.map_err(|err| self.call_error("ReadResource", err))?;
        self.fail_on_errors("ReadResource", &response.diagnostics, warnings)?;
        if response.deferred.is_some() {
            return Err(LifecycleError::ProviderBug {
                urn: self.urn.clone(),
                summary: "Provider deferred changes when Terraform did not allow deferrals",
                problems: vec![format!("ReadResource of {:?} was deferred", self.tf_name)],
            });
        }
        let value =
            decode(&response.new_state, &self.ty()).map_err(|err| self.cty_error("ReadResource", "a state", &err))?;
        if value.is_null() {
            return Ok(None);
        }
        let unknown = state::unknown_paths(&value);
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
        Ok(Some((value, response.private)))
    }

    /// Runs a provider call that may be cancelled by the engine or time out. When either
    /// happens the provider is asked to stop and given [`STOP_GRACE`] to answer; its answer
    /// (often an error with a partial state) is still used, so nothing created is lost.
    pub async fn interruptible<T>(
        &self,
        operation: &'static str,
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
        if let Err(err) = self.provider.client.stop_provider().await {
            tracing::warn!("StopProvider failed: {err}");
        }
        match tokio::time::timeout(STOP_GRACE, call).await {
            Ok(result) => Ok((result, Some(interruption))),
            Err(_) => {
                Err(LifecycleError::Interrupted { urn: self.urn.clone(), operation, interruption, grace: STOP_GRACE })
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
