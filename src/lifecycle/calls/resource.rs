//! The provider calls of a resource operation, each followed by the checks Terraform core
//! makes on its answer.
//!
//! [`Resource`] is one resource type of the parameterized provider, bound to the URN of the
//! resource being worked on, so every error can name it. Its methods are the steps
//! Terraform runs: [`Resource::validate`], [`Resource::upgrade`] (on every load of stored
//! state), [`Resource::read`] and [`Resource::import`] here; [`Resource::plan`] (with
//! `AssertPlanValid`, the write-only and `requires_replace` checks),
//! [`Resource::plan_destroy`] and [`Resource::apply`] (with `AssertObjectCompatible` and
//! the unknown-after-apply check) in `change.rs`. Checks that Terraform tolerates for
//! providers on the legacy SDK type system become warnings; everything else fails the
//! operation.

use std::time::Duration;

use schema_gen::tf::Schema;
use schema_gen::translate::ResourceProperties;

use super::{Diagnostics, Warned, call_error, decode, encode};
use crate::convert::paths::pulumi_path;
use crate::cty::{self, Path, Value};
use crate::invariants::Violation;
use crate::lifecycle::error::{LifecycleError, Operation, PROVIDER_BUG_SUFFIX, Subject};
use crate::lifecycle::parameterized::Parameterized;
use crate::lifecycle::state;
use crate::property::PropertyPath;
use crate::tfplugin::types::{DynamicValue, RawState, ReadResourceRequest, UpgradeResourceStateRequest};
use serde_json::json;

use super::debug_log::{self, Redaction};

/// How long a provider may take to answer once it was asked to stop (cancellation or a
/// timeout) before the bridge gives up on the call.
pub const STOP_GRACE: Duration = Duration::from_secs(15);

/// One resource type, bound to the resource an operation works on.
pub struct Resource<'p> {
    pub(in crate::lifecycle) provider: &'p Parameterized,
    pub(in crate::lifecycle) tf_name: &'p str,
    pub(in crate::lifecycle) schema: &'p Schema,
    pub(in crate::lifecycle) props: ResourceProperties,
    pub(in crate::lifecycle) urn: String,
    pub(super) subject: Subject,
    /// Paths this operation's values hold Pulumi secrets at, for the gRPC debug log.
    log_secrets: std::sync::Mutex<Vec<Path>>,
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

impl<'p> Resource<'p> {
    /// `tf_name`'s resource type, bound to `urn` (see [`Parameterized::resource`]).
    pub(in crate::lifecycle) fn new(
        provider: &'p Parameterized,
        tf_name: &'p str,
        schema: &'p Schema,
        urn: &str,
    ) -> Resource<'p> {
        let props = provider.names.resource_properties(tf_name, &schema.block);
        Resource {
            provider,
            tf_name,
            schema,
            props,
            urn: urn.to_owned(),
            subject: Subject::Urn(urn.to_owned()),
            log_secrets: std::sync::Mutex::new(Vec::new()),
        }
    }
}

impl Resource<'_> {
    /// Remembers secret paths of this operation's values, so the gRPC debug log redacts
    /// them. Cheap when the log is off.
    pub(in crate::lifecycle) fn note_secrets(&self, secrets: &[Path]) {
        if debug_log::enabled() && !secrets.is_empty() {
            self.log_secrets.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(secrets);
        }
    }

    /// Shows values of this resource type in the gRPC debug log.
    pub(super) fn shown<R>(&self, show: impl FnOnce(Redaction<'_>) -> R) -> R {
        let secrets = self.log_secrets.lock().unwrap_or_else(|p| p.into_inner());
        show(Redaction { block: &self.schema.block, secrets: &secrets })
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
    pub(super) fn describe(&self, path: &Path) -> String {
        if path.is_root() {
            return "the resource".to_owned();
        }
        format!("property {} (Terraform {}{path})", self.pulumi_path(path), self.tf_name)
    }

    pub(super) fn violations(&self, violations: &[Violation]) -> Vec<String> {
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

    pub(super) fn diagnostics(&self, diagnostics: &[crate::tfplugin::types::Diagnostic]) -> Diagnostics {
        Diagnostics::new(&self.schema.block, &self.props.names, diagnostics)
    }

    pub(super) fn encode(&self, what: &str, value: &Value) -> Result<DynamicValue, LifecycleError> {
        encode(&self.subject, what, value, &self.ty())
    }

    pub(super) fn deferred(&self, problem: String) -> LifecycleError {
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
        let diagnostics = debug_log::logged(
            "ValidateResourceConfig",
            Some(self.tf_name),
            || self.shown(|r| json!({ "config": r.value(config) })),
            self.provider.client.0.validate_resource_config(self.tf_name, &encoded),
            |d| json!({ "diagnostics": debug_log::diagnostics(d) }),
        )
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
        if debug_log::enabled() {
            self.note_secrets(&debug_log::output_secrets(&self.schema.block, &self.props.names, outputs));
        }
        let response = debug_log::logged(
            "UpgradeResourceState",
            Some(self.tf_name),
            || {
                self.shown(|r| {
                    let raw = match &request.raw_state {
                        RawState::Json(bytes) => r.raw_json(bytes),
                        RawState::Flatmap(_) => json!(debug_log::REDACTED),
                    };
                    json!({ "version": request.version, "raw_state": raw })
                })
            },
            self.provider.client.0.upgrade_resource_state(&request),
            |a| {
                self.shown(|r| {
                    json!({ "upgraded_state": r.dynamic(&a.upgraded_state), "diagnostics": debug_log::diagnostics(&a.diagnostics) })
                })
            },
        )
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
        let response = debug_log::logged(
            "ReadResource",
            Some(self.tf_name),
            || self.shown(|r| json!({ "current_state": r.value(current), "private": debug_log::private(private) })),
            self.provider.client.0.read_resource(&request),
            |a| {
                self.shown(|r| {
                    json!({
                        "new_state": r.dynamic(&a.new_state),
                        "private": debug_log::private(&a.private),
                        "diagnostics": debug_log::diagnostics(&a.diagnostics),
                    })
                })
            },
        )
        .await
        .map_err(call_error(&self.subject, operation))?;
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
        let response = debug_log::logged(
            "ImportResourceState",
            Some(self.tf_name),
            || json!({ "id": id }),
            self.provider.client.0.import_resource_state(self.tf_name, id),
            |a| {
                self.shown(|r| {
                    let imported: Vec<_> = a
                        .imported_resources
                        .iter()
                        .map(|i| json!({ "type_name": i.type_name, "state": r.dynamic(&i.state) }))
                        .collect();
                    json!({ "imported_resources": imported, "diagnostics": debug_log::diagnostics(&a.diagnostics) })
                })
            },
        )
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
}
