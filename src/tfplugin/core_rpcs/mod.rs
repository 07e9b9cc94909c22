//! The core RPCs (the provider, resources, data sources, functions): their protocol-neutral
//! requests and responses, and the types every family shares ([`DynamicValue`],
//! [`Diagnostic`], [`DeferredReason`], [`Support`]). `wire` converts them for both protocols.
//!
//! These mirror the tfplugin6 messages with Terraform's field names. Identity data (protocol 5.9/6.9) is an optional
//! [`DynamicValue`]: `None` when the provider sent no `ResourceIdentityData`. Values stay encoded: a [`DynamicValue`] is
//! the bytes a cty codec reads or wrote. The client fills in the fixed parts Terraform
//! always sends (client capabilities), so callers do not.

use std::collections::BTreeMap;

use schema_gen::tf;

pub(super) mod wire;

/// An encoded cty value as it crosses the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DynamicValue {
    /// cty msgpack: what requests always use, and what providers normally answer.
    Msgpack(Vec<u8>),
    /// cty JSON: some providers answer with it.
    Json(Vec<u8>),
}

impl DynamicValue {
    /// msgpack's nil: a null value of any type.
    pub fn null() -> DynamicValue {
        DynamicValue::Msgpack(vec![0xc0])
    }
}

/// Prior state in the stored JSON form, as UpgradeResourceState takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RawState {
    /// The JSON attributes object Terraform state (and Pulumi's stored state) keeps.
    Json(Vec<u8>),
    /// The pre-0.12 flat map form.
    Flatmap(BTreeMap<String, String>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// One step of an attribute path inside a value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    Attribute(String),
    KeyString(String),
    KeyInt(i64),
}

/// Where in a value a diagnostic points, or which attribute requires replacement.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AttributePath {
    pub steps: Vec<PathStep>,
}

impl std::fmt::Display for AttributePath {
    /// Renders like Terraform: `.tags["Name"]`, `.rule[0].port`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for step in &self.steps {
            match step {
                PathStep::Attribute(name) => write!(f, ".{name}")?,
                PathStep::KeyString(key) => write!(f, "[{key:?}]")?,
                PathStep::KeyInt(idx) => write!(f, "[{idx}]")?,
            }
        }
        Ok(())
    }
}

/// A provider's diagnostic. Diagnostics are data: an ERROR fails the operation, but that is
/// the caller's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub summary: String,
    pub detail: String,
    pub attribute: Option<AttributePath>,
}

/// Optional protocol features a provider declares (GetProviderSchema and GetMetadata).
/// Serializable because the schema cache keeps them with the schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ServerCapabilities {
    /// The provider wants PlanResourceChange for destroy plans.
    pub plan_destroy: bool,
    /// GetProviderSchema may be skipped when a cached schema exists.
    pub get_provider_schema_optional: bool,
    // `move_resource_state` is not read: no Pulumi flow can reach MoveResourceState
    // (docs/actions-deferral-import.md).
    pub generate_resource_config: bool,
}

/// Why a provider deferred an operation (protocol 5.6/6.6). The bridge never allows deferral,
/// so any deferral in an answer is a provider error the caller reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeferredReason {
    Unknown,
    ResourceConfigUnknown,
    ProviderConfigUnknown,
    AbsentPrereq,
}

/// GetProviderSchema's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderSchemaResponse {
    pub schema: tf::ProviderSchema,
    pub capabilities: ServerCapabilities,
    pub diagnostics: Vec<Diagnostic>,
}

/// GetMetadata's answer: what the provider has, without the schemas.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProviderMetadata {
    pub capabilities: ServerCapabilities,
    pub resources: Vec<String>,
    pub data_sources: Vec<String>,
    pub ephemeral_resources: Vec<String>,
    pub functions: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// An RPC that older providers may not implement: `Unsupported` is their gRPC
/// `Unimplemented` answer, which is an expected outcome, not a failure.
#[derive(Clone, Debug, PartialEq)]
pub enum Support<T> {
    Supported(T),
    Unsupported,
}

impl<T> Support<T> {
    /// The answer, or `None` when the provider does not implement the RPC.
    pub fn supported(self) -> Option<T> {
        match self {
            Support::Supported(value) => Some(value),
            Support::Unsupported => None,
        }
    }
}

/// ValidateProviderConfig (v6) / PrepareProviderConfig (v5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidateProviderConfigResponse {
    /// v5 only: the provider's defaults applied. Terraform ignores it; kept for logging.
    pub prepared_config: Option<DynamicValue>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpgradeResourceStateRequest {
    pub type_name: String,
    pub version: i64,
    pub raw_state: RawState,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpgradeResourceStateResponse {
    pub upgraded_state: DynamicValue,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadResourceRequest {
    pub type_name: String,
    pub current_state: DynamicValue,
    pub private: Vec<u8>,
    pub provider_meta: Option<DynamicValue>,
    /// Protocol 5.9/6.9: the identity last returned for the object, if any.
    pub current_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadResourceResponse {
    /// Null means the remote object is gone.
    pub new_state: DynamicValue,
    pub private: Vec<u8>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
    pub new_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanResourceChangeRequest {
    pub type_name: String,
    pub prior_state: DynamicValue,
    pub proposed_new_state: DynamicValue,
    pub config: DynamicValue,
    pub prior_private: Vec<u8>,
    pub provider_meta: Option<DynamicValue>,
    /// Protocol 6.11: the private bytes of the saved plan, sent when re-planning at apply.
    /// Dropped for protocol 5, which has no such field.
    pub planned_private: Vec<u8>,
    /// Protocol 5.9/6.9: the identity stored with the prior state.
    pub prior_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanResourceChangeResponse {
    pub planned_state: DynamicValue,
    pub requires_replace: Vec<AttributePath>,
    pub planned_private: Vec<u8>,
    /// SDKv2 providers set this: their plans may break Terraform's invariants, which callers
    /// then log instead of failing.
    pub legacy_type_system: bool,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
    pub planned_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyResourceChangeRequest {
    pub type_name: String,
    pub prior_state: DynamicValue,
    pub planned_state: DynamicValue,
    pub config: DynamicValue,
    pub planned_private: Vec<u8>,
    pub provider_meta: Option<DynamicValue>,
    /// Protocol 5.9/6.9: the identity the plan returned.
    pub planned_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyResourceChangeResponse {
    pub new_state: DynamicValue,
    pub private: Vec<u8>,
    pub legacy_type_system: bool,
    pub diagnostics: Vec<Diagnostic>,
    pub new_identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedResource {
    pub type_name: String,
    pub state: DynamicValue,
    pub private: Vec<u8>,
    pub identity: Option<DynamicValue>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportResourceStateResponse {
    pub imported_resources: Vec<ImportedResource>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadDataSourceRequest {
    pub type_name: String,
    pub config: DynamicValue,
    pub provider_meta: Option<DynamicValue>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadDataSourceResponse {
    pub state: DynamicValue,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct GetFunctionsResponse {
    pub functions: BTreeMap<String, tf::Function>,
    pub diagnostics: Vec<Diagnostic>,
}

/// A provider function's error; `argument` names the offending argument's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionError {
    pub text: String,
    pub argument: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallFunctionResponse {
    pub result: DynamicValue,
    pub error: Option<FunctionError>,
}
