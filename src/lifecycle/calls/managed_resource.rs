//! The provider calls of a resource operation, each followed by the checks Terraform core
//! makes on its answer.
//!
//! [`Resource`] is one managed resource type of the parameterized provider, bound to the URN
//! of the resource being worked on, so every error can name it. Its methods are the calls
//! Terraform makes, in Terraform's words: [`Resource::validate_resource_config`],
//! [`Resource::upgrade_resource_state`] (on every load of stored state),
//! [`Resource::read_resource`] and [`Resource::import_resource_state`] here;
//! [`Resource::plan_resource_change`] (with `AssertPlanValid`, the write-only and
//! `requires_replace` checks), [`Resource::plan_destroy`] and
//! [`Resource::apply_resource_change`] (with `AssertObjectCompatible` and the
//! unknown-after-apply check) in `resource_change.rs`. Checks that Terraform tolerates for providers
//! on the legacy SDK type system become warnings; everything else fails the operation.

use std::time::Duration;

use schema_gen::tf::{IdentitySchema, Schema};
use schema_gen::translate::ResourceProperties;

use super::Connection;
use super::{Diagnostics, Warned, call_error, decode, encode};
use crate::convert::paths::pulumi_path;
use crate::cty::{self, Path, Value};
use crate::invariants::Violation;
use crate::lifecycle::support::error::{LifecycleError, PROVIDER_BUG_SUFFIX, Rpc, Subject};
use crate::lifecycle::support::identity::{self, IdentityProblem, IdentityVersion};
use crate::lifecycle::support::state;
use crate::property::PropertyPath;
use crate::tfplugin::core_rpcs::{
    DeferredReason, DynamicValue, RawState, ReadResourceRequest, UpgradeResourceStateRequest,
};
use crate::tfplugin::identity_list::UpgradeResourceIdentityRequest;

use super::debug_log::{self, Call, Request};

/// How long a provider may take to answer once it was asked to stop (cancellation or a
/// timeout) before the bridge gives up on the call.
pub const STOP_GRACE: Duration = Duration::from_secs(15);

/// One resource type, bound to the resource an operation works on.
pub struct Resource<'p> {
    pub(super) connection: &'p Connection,
    pub(super) tf_name: &'p str,
    pub(super) schema: &'p Schema,
    /// The resource type's identity schema, when the provider declares one.
    pub(super) identity_schema: Option<&'p IdentitySchema>,
    /// The type's property names and cty type, shared by every handle of the type.
    pub(super) facts: std::sync::Arc<ResourceType>,
    pub(super) urn: String,
    pub(super) subject: Subject,
}

/// What every operation on a resource type needs and its schema alone decides, made once
/// per type ([`Connection::resource_type`]).
pub struct ResourceType {
    pub props: ResourceProperties,
    pub ty: cty::Type,
}

/// A plan the provider made and the bridge checked.
pub struct Planned {
    pub value: Value,
    pub private: Vec<u8>,
    /// `requires_replace` paths that really change (Terraform's filtering applied).
    pub replace_paths: Vec<Path>,
    pub legacy_type_system: bool,
    pub identity: Option<Value>,
    /// Why the provider deferred this change, if it did: the planned value is then wholly
    /// unknown, and the change cannot be applied in this run.
    pub deferred: Option<DeferredReason>,
}

impl Planned {
    /// The plan of a destroy: a null object, with the private bytes to send (the prior
    /// state's, or those a destroy plan returned). Terraform sends no planned identity then.
    pub fn destroy(null: Value, private: Vec<u8>) -> Planned {
        Planned {
            value: null,
            private,
            replace_paths: Vec::new(),
            legacy_type_system: false,
            identity: None,
            deferred: None,
        }
    }
}

/// An object as ReadResource or ImportResourceState returned it, checked.
pub struct Read {
    pub state: Value,
    pub private: Vec<u8>,
    /// `None` for types without an identity schema, or when the provider sent none.
    pub identity: Option<Value>,
}

impl Read {
    /// The object, lent to a call that sends it back.
    pub fn stored(&self) -> Stored<'_> {
        Stored { state: &self.state, private: &self.private, identity: self.identity.as_ref() }
    }
}

/// A stored object as ReadResource and a destroy plan send it back to the provider: the
/// (upgraded) state, its private bytes and its identity.
#[derive(Clone, Copy)]
pub struct Stored<'a> {
    pub state: &'a Value,
    pub private: &'a [u8],
    pub identity: Option<&'a Value>,
}

/// What ApplyResourceChange returned, checked. `errors` are the provider's error
/// diagnostics and any broken invariant; with a non-null `new_state` the object exists.
pub struct Applied {
    /// The new state, its unknowns null (Terraform's `UnknownAsNull`).
    pub new_state: Value,
    pub private: Vec<u8>,
    pub identity: Option<Value>,
    /// Why the apply failed, in words: the provider's errors, an interruption, Terraform's
    /// checks of the answer; empty when it succeeded.
    pub errors: Vec<String>,
    /// Terraform's "Provider returned invalid result object after apply" errors, one for
    /// each unknown value the new state held, kept apart: they describe a state that is
    /// recorded, and say nothing when it is not (`support/failed_apply.rs`).
    pub unknown: Vec<String>,
}

impl Applied {
    /// Whether the apply failed: the provider's errors or Terraform's checks.
    pub fn failed(&self) -> bool {
        !self.errors.is_empty() || !self.unknown.is_empty()
    }
}

impl<'p> Resource<'p> {
    /// `tf_name`'s resource type, bound to `urn` (see [`Connection::resource`]).
    pub(in crate::lifecycle) fn new(
        connection: &'p Connection,
        tf_name: &'p str,
        schema: &'p Schema,
        urn: &str,
    ) -> Resource<'p> {
        let facts = connection.resource_type(tf_name, schema);
        Resource {
            connection,
            tf_name,
            schema,
            identity_schema: connection.identity_schemas.get(tf_name),
            facts,
            urn: urn.to_owned(),
            subject: Subject::Urn(urn.to_owned()),
        }
    }
}

/// What the operations read of the handle; the calls read the fields.
impl<'p> Resource<'p> {
    /// The connection the handle was made from.
    pub(in crate::lifecycle) fn connection(&self) -> &'p Connection {
        self.connection
    }

    /// The resource type's Terraform name.
    pub(in crate::lifecycle) fn tf_name(&self) -> &'p str {
        self.tf_name
    }

    /// The resource type's schema.
    pub(in crate::lifecycle) fn schema(&self) -> &'p Schema {
        self.schema
    }

    /// The resource type's identity schema, when the provider declares one.
    pub(in crate::lifecycle) fn identity_schema(&self) -> Option<&'p IdentitySchema> {
        self.identity_schema
    }

    /// The Pulumi names of the type's properties, and whether it is auto-named.
    pub(in crate::lifecycle) fn props(&self) -> &ResourceProperties {
        &self.facts.props
    }

    /// The URN of the resource the operation works on.
    pub(in crate::lifecycle) fn urn(&self) -> &str {
        &self.urn
    }
}

impl Resource<'_> {
    /// The paths at which stored outputs hold Pulumi secrets, for the gRPC debug log to
    /// redact in the state built from them; nothing when the log is off. An operation passes
    /// these, with its configuration's secret paths, to each call it makes.
    pub(in crate::lifecycle) fn stored_secrets(&self, outputs: &crate::property::PropertyMap) -> Vec<Path> {
        if debug_log::enabled() {
            debug_log::output_secrets(&self.schema.block, &self.facts.props.names, outputs)
        } else {
            Vec::new()
        }
    }

    /// A call about this resource type, for the gRPC debug log, redacting `secrets` too.
    pub(super) fn log<'a>(&'a self, rpc: Rpc, secrets: &'a [Path]) -> Call<'a> {
        Call::of_type(rpc, self.tf_name, &self.schema.block, secrets)
    }
}

impl Resource<'_> {
    /// The resource type's cty type (its block's implied type).
    pub fn ty(&self) -> &cty::Type {
        &self.facts.ty
    }

    /// The Pulumi path of a Terraform path in this resource.
    pub fn pulumi_path(&self, path: &Path) -> PropertyPath {
        pulumi_path(&self.schema.block, &self.facts.props.names, path)
    }

    /// The Pulumi paths of the sets in these values, leaving out sets inside a set's
    /// element (a detailed diff compares those elements whole).
    pub fn set_paths(&self, values: &[&Value]) -> Vec<PropertyPath> {
        let mut sets: Vec<Path> = Vec::new();
        for value in values {
            value.walk(&mut |path, part| {
                let inside_set = sets.iter().any(|set| path.steps.starts_with(&set.steps));
                if matches!(part.ty(), cty::Type::Set(_)) && !inside_set {
                    sets.push(path.clone());
                }
            });
        }
        let mut paths: Vec<PropertyPath> = sets.iter().map(|path| self.pulumi_path(path)).collect();
        paths.dedup();
        paths
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

    /// A provider bug, `summary`, when a state the provider returned holds unknown values: one
    /// problem per unknown, worded by `problem` from the path as the user knows it.
    fn refuse_unknowns(
        &self,
        summary: &'static str,
        value: &Value,
        problem: impl Fn(&str) -> String,
    ) -> Result<(), LifecycleError> {
        let unknown = cty::unknown_paths(value);
        if unknown.is_empty() {
            return Ok(());
        }
        Err(self.bug(summary, unknown.iter().map(|path| problem(&self.describe(path))).collect()))
    }

    pub(super) fn diagnostics(&self, diagnostics: &[crate::tfplugin::core_rpcs::Diagnostic]) -> Diagnostics {
        Diagnostics::new(&self.schema.block, &self.facts.props.names, diagnostics)
    }

    pub(super) fn encode(&self, what: &str, value: &Value) -> Result<DynamicValue, LifecycleError> {
        encode(&self.subject, what, value, self.ty())
    }

    pub(super) fn deferred(&self, problem: String) -> LifecycleError {
        LifecycleError::ProviderBug {
            subject: self.subject.clone(),
            summary: "Provider deferred a call that cannot be deferred",
            problems: vec![problem],
        }
    }

    /// ValidateResourceConfig: the provider's diagnostics, errors included (Check turns them
    /// into failures).
    pub async fn validate_resource_config(
        &self,
        config: &Value,
        secrets: &[Path],
    ) -> Result<Diagnostics, LifecycleError> {
        let encoded = self.encode("the configuration", config)?;
        let diagnostics =
            debug_log::logged(self.log(Rpc::ValidateResourceConfig, secrets), Request::Config(config), async {
                self.connection.client.ready().await?.validate_resource_config(self.tf_name, &encoded).await
            })
            .await
            .map_err(call_error(&self.subject, Rpc::ValidateResourceConfig))?;
        Ok(self.diagnostics(&diagnostics))
    }

    /// Loads stored outputs the way Terraform loads state: rebuilds the raw state and sends
    /// it through `UpgradeResourceState` with the stored schema version. Returns the
    /// upgraded value and the stored private bytes.
    /// `secrets`: the outputs' secret paths (`Resource::stored_secrets`), for the log.
    pub async fn upgrade_resource_state(
        &self,
        id: &str,
        outputs: &crate::property::PropertyMap,
        secrets: &[Path],
    ) -> Result<Warned<(Value, state::Meta)>, LifecycleError> {
        let state_error = |reason: String| LifecycleError::State { subject: self.subject.clone(), reason };
        let meta = state::Meta::from_outputs(outputs).map_err(|err| state_error(err.to_string()))?;
        if meta.schema_version > self.schema.version {
            return Err(state_error(format!(
                "Resource instance managed by newer provider version: the stored state has schema version {}, \
                 but {} {} only knows version {}; use a newer provider version",
                meta.schema_version,
                self.connection.display_name(),
                self.connection.package_version,
                self.schema.version
            )));
        }
        let raw = state::raw_state(self.schema, &self.facts.props, id, outputs)
            .map_err(|err| state_error(err.to_string()))?;
        let request = UpgradeResourceStateRequest {
            type_name: self.tf_name.to_owned(),
            version: meta.schema_version,
            raw_state: RawState::Json(raw),
        };
        let rpc = Rpc::UpgradeResourceState;
        let response = debug_log::logged(self.log(rpc, secrets), Request::UpgradeState(&request), async {
            self.connection.client.ready().await?.upgrade_resource_state(&request).await
        })
        .await
        .map_err(call_error(&self.subject, rpc))?;
        let warnings = self.diagnostics(&response.diagnostics).fail_on_errors(&self.subject, rpc)?;
        let value = decode(&response.upgraded_state, self.ty()).map_err(|err| {
            self.bug("Invalid resource state upgrade", vec![format!("the upgraded state is invalid: {err}")])
        })?;
        self.refuse_unknowns("Invalid resource state upgrade", &value, |path| {
            format!("{path}: the upgraded state holds an unknown value")
        })?;
        let mut warnings = warnings;
        let meta = warnings.keep(self.upgrade_resource_identity(meta).await?);
        Ok(Warned { value: (value, meta), warnings })
    }

    /// The stored identity, at the provider's current identity version: sent through
    /// UpgradeResourceIdentity when it is older, as Terraform does on every load. An
    /// identity the provider no longer declares is dropped.
    async fn upgrade_resource_identity(&self, mut meta: state::Meta) -> Result<Warned<state::Meta>, LifecycleError> {
        let no_warnings = |meta| Ok(Warned { value: meta, warnings: super::Warnings::default() });
        let (Some(schema), Some(stored)) = (self.identity_schema, meta.identity.clone()) else {
            meta.identity = None;
            return no_warnings(meta);
        };
        let state_error = |reason: String| LifecycleError::State { subject: self.subject.clone(), reason };
        match identity::identity_version(meta.identity_schema_version, schema.version) {
            IdentityVersion::Current => {
                // Fail early, with the stored text, rather than in the provider.
                cty::json::decode(stored.as_bytes(), &schema.implied_type()).map_err(|err| {
                    state_error(format!("__meta.identity does not fit the identity schema of {}: {err}", self.tf_name))
                })?;
                return no_warnings(meta);
            }
            IdentityVersion::TooNew => {
                return Err(state_error(format!(
                    "Resource instance managed by newer provider version: the stored identity has schema version {}, but {} {} only knows version {}; use a newer provider version",
                    meta.identity_schema_version,
                    self.connection.display_name(),
                    self.connection.package_version,
                    schema.version
                )));
            }
            IdentityVersion::Upgrade => {}
        }
        let rpc = Rpc::UpgradeResourceIdentity;
        let request = UpgradeResourceIdentityRequest {
            type_name: self.tf_name.to_owned(),
            version: meta.identity_schema_version,
            raw_identity: stored.into_bytes(),
        };
        let response = debug_log::not_logged(self.log(rpc, &[]), Some("identity"), async {
            self.connection.client.ready().await?.upgrade_resource_identity(&request).await
        })
        .await
        .map_err(call_error(&self.subject, rpc))?;
        let Some(response) = response.supported() else {
            return Err(self.bug(
                "Invalid resource identity upgrade",
                vec![format!(
                    "the stored identity has schema version {} and {} declares version {}, but the provider does not implement {rpc}",
                    meta.identity_schema_version, self.tf_name, schema.version
                )],
            ));
        };
        let warnings = self.diagnostics(&response.diagnostics).fail_on_errors(&self.subject, rpc)?;
        let upgraded = response
            .upgraded_identity
            .map(|value| decode(&value, &schema.implied_type()))
            .transpose()
            .map(|value| value.unwrap_or_else(|| Value::null(schema.implied_type())));
        let invalid = |problem: String| {
            self.bug(
                "Invalid resource identity upgrade",
                vec![format!(
                    "The {} provider upgraded the identity for {} from a previous version, but produced an invalid result: {problem}",
                    self.connection.display_name(),
                    self.urn
                )],
            )
        };
        let upgraded = match identity::check_identity(upgraded) {
            Ok(Some(upgraded)) => upgraded,
            Ok(None) => return Err(invalid("The returned identity is null".to_owned())),
            Err(IdentityProblem::Unknown(_)) => {
                return Err(invalid("The returned state contains unknown values".to_owned()));
            }
            Err(IdentityProblem::Mismatch(err)) => return Err(invalid(err)),
        };
        meta.identity = Some(self.identity_text(&upgraded)?);
        meta.identity_schema_version = schema.version;
        Ok(Warned { value: meta, warnings })
    }

    /// The identity stored in `meta` (already at the current version, see
    /// [`Resource::upgrade_resource_state`]), as a value to send.
    pub(in crate::lifecycle) fn stored_identity(&self, meta: &state::Meta) -> Result<Option<Value>, LifecycleError> {
        let (Some(schema), Some(text)) = (self.identity_schema, &meta.identity) else { return Ok(None) };
        cty::json::decode(text.as_bytes(), &schema.implied_type()).map(Some).map_err(|err| LifecycleError::State {
            subject: self.subject.clone(),
            reason: format!("__meta.identity does not fit the identity schema of {}: {err}", self.tf_name),
        })
    }

    /// An identity as `__meta` keeps it.
    pub(in crate::lifecycle) fn identity_text(&self, identity: &Value) -> Result<String, LifecycleError> {
        let schema = self.identity_schema.cloned().unwrap_or_default();
        identity::identity_json(identity, &schema).map_err(|err| LifecycleError::Internal {
            subject: self.subject.clone(),
            message: format!("the identity cannot be stored: {err}"),
        })
    }

    /// An identity for a request: only for resource types that declare an identity schema.
    pub(super) fn encode_identity(&self, identity: Option<&Value>) -> Result<Option<DynamicValue>, LifecycleError> {
        match (self.identity_schema, identity) {
            (Some(schema), Some(identity)) => {
                super::encode(&self.subject, "the identity", identity, &schema.implied_type()).map(Some)
            }
            _ => Ok(None),
        }
    }

    /// An identity the provider returned from `rpc`, checked as Terraform checks it. The
    /// identity of a type without an identity schema is ignored, as there is nothing to
    /// decode it with.
    pub(super) fn returned_identity(
        &self,
        rpc: Rpc,
        identity: Option<&DynamicValue>,
    ) -> Result<Option<Value>, LifecycleError> {
        let (Some(schema), Some(identity)) = (self.identity_schema, identity) else { return Ok(None) };
        identity::check_identity(decode(identity, &schema.implied_type())).map_err(|problem| {
            let (summary, detail) = problem.words(self.connection.display_name(), &self.urn, rpc);
            self.bug(summary, vec![detail])
        })
    }

    /// ReadResource with the (upgraded) state; `None` when the remote object is gone.
    pub async fn read_resource(
        &self,
        current: Stored<'_>,
        secrets: &[Path],
    ) -> Result<Warned<Option<Read>>, LifecycleError> {
        let rpc = Rpc::ReadResource;
        let Stored { state: current, private, identity } = current;
        let request = ReadResourceRequest {
            type_name: self.tf_name.to_owned(),
            current_state: self.encode("the current state", current)?,
            private: private.to_vec(),
            provider_meta: self.connection.provider_meta(),
            current_identity: self.encode_identity(identity)?,
        };
        let response = debug_log::logged(self.log(rpc, secrets), Request::Read { current, private }, async {
            self.connection.client.ready().await?.read_resource(&request).await
        })
        .await
        .map_err(call_error(&self.subject, rpc))?;
        let warnings = self.diagnostics(&response.diagnostics).fail_on_errors(&self.subject, rpc)?;
        warnings.checked(|_| {
            if response.deferred.is_some() {
                return Err(self.deferred(format!(
                    "{rpc} of {:?} was deferred; Pulumi reads every resource it refreshes or imports now",
                    self.tf_name
                )));
            }
            let value = decode(&response.new_state, self.ty()).map_err(|err| {
                self.bug(
                    "Provider produced invalid object",
                    vec![format!("{rpc} returned a state that is invalid: {err}")],
                )
            })?;
            if value.is_null() {
                return Ok(None);
            }
            self.refuse_unknowns("Provider produced invalid object", &value, |path| {
                format!(
                    "Provider {:?} planned an invalid value for {path} during refresh: the returned state contains \
                     unknown values",
                    self.connection.display_name()
                )
            })?;
            let identity = self.returned_identity(rpc, response.new_identity.as_ref())?;
            Ok(Some(Read { state: value, private: response.private, identity }))
        })
    }

    /// ImportResourceState of `id`, or of `identity`: the one object it names, with its
    /// private bytes and identity (to be read next, as Terraform does).
    pub async fn import_resource_state(
        &self,
        id: &str,
        identity: Option<&Value>,
    ) -> Result<Warned<Read>, LifecycleError> {
        let rpc = Rpc::ImportResourceState;
        let identity_data = self.encode_identity(identity)?;
        let response = debug_log::logged(
            self.log(rpc, &[]),
            Request::Import { id, by_identity: identity_data.is_some() },
            async {
                self.connection
                    .client
                    .ready()
                    .await?
                    .import_resource_state_by(self.tf_name, id, identity_data.as_ref())
                    .await
            },
        )
        .await
        .map_err(call_error(&self.subject, rpc))?;
        let warnings = self.diagnostics(&response.diagnostics).fail_on_errors(&self.subject, rpc)?;
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
        let state = decode(&imported.state, self.ty()).map_err(|err| {
            self.bug("Provider produced invalid object", vec![format!("{rpc} returned an invalid state: {err}")])
        })?;
        if state.is_null() {
            return Err(self.bug(
                "Provider produced invalid object",
                vec![format!("Import returned null resource for id {id:?}")],
            ));
        }
        let new_identity = self.returned_identity(rpc, imported.identity.as_ref())?;
        if identity.is_some() && new_identity.is_none() {
            return Err(self.bug(
                "Provider produced invalid identity",
                vec![format!("import of {} didn't return an identity", self.urn)],
            ));
        }
        let read = Read { state, private: imported.private.clone(), identity: new_identity };
        Ok(Warned { value: read, warnings })
    }
}
