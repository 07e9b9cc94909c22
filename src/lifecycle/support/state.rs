//! A resource's stored state in the Go implementation's layout (`docs/state-layout.md`).
//!
//! Outputs are the Terraform state object under Pulumi names, plus `__meta` (a JSON string
//! holding the schema version and the provider's private bytes) and, in states the Go
//! implementation wrote, `__pulumi_raw_state_delta`. [`Meta`] reads and writes `__meta`;
//! [`raw_state()`] rebuilds the raw state JSON Terraform would have stored, which every
//! operation then sends through `UpgradeResourceState`, as Terraform does on every load.
//!
//! Architecture invariant: pure; the provider calls happen in the operations.

use base64::Engine as _;
use schema_gen::tf::Schema;
use schema_gen::translate::{ResourceId, ResourceProperties};

use crate::convert::delta::{self, Delta, META_KEY, RAW_STATE_DELTA_KEY};
use crate::convert::values::{self, UnknownKeys};
use crate::cty::{self, Value};
use crate::property::{PropertyMap, PropertyValue};

/// The ID the Go implementation gives resources that have no usable `id` attribute.
pub const MISSING_ID: &str = "missing ID";

/// Why stored outputs cannot be turned back into Terraform state.
#[derive(Debug, thiserror::Error)]
pub enum StateError {
    /// `__meta` is not the JSON object the Go implementation writes.
    #[error("__meta{0}")]
    Meta(#[from] MetaError),
    /// The Go implementation's raw-state delta cannot be read or applied.
    #[error(transparent)]
    Delta(#[from] delta::DeltaError),
    /// The outputs do not fit the provider's current schema.
    #[error("the outputs do not fit the current schema: {0}")]
    Outputs(values::ConvertError),
    /// The outputs fit the schema but cannot be written as Terraform's JSON state.
    #[error("the outputs cannot be written as Terraform state: {0}")]
    Encode(cty::Error),
}

/// Which part of `__meta` is wrong; each message is what follows `__meta` in
/// [`StateError::Meta`]'s.
#[derive(Debug, thiserror::Error)]
pub enum MetaError {
    /// `__meta` itself is not a string.
    #[error(" is not a string")]
    NotAString,
    /// `__meta` is not a JSON object.
    #[error(" is not a JSON object: {0}")]
    NotAnObject(#[source] serde_json::Error),
    /// A schema version is neither an integer nor its decimal string.
    #[error(".{key} {shown} is not an integer")]
    NotAnInteger { key: String, shown: String },
    /// `private_state` is not base64.
    #[error(".private_state is not base64: {0}")]
    PrivateNotBase64(#[source] base64::DecodeError),
    /// `identity` is a string, but not of a JSON object.
    #[error(".identity is not a JSON object: {0}")]
    IdentityNotAnObject(#[source] serde_json::Error),
    /// A key that holds a string (`private_state`, `identity`, `apply_failed`, `tainted`) holds
    /// something else.
    #[error(".{0} is not a string")]
    KeyNotAString(&'static str),
}

/// The `__meta` key of [`Meta::apply_failed`]. The Go implementation reads `__meta` into a
/// struct and rewrites it through a map, so it ignores the key and keeps it.
const APPLY_FAILED: &str = "apply_failed";

/// The `__meta` key of [`Meta::tainted`], kept by the Go implementation as `apply_failed` is.
const TAINTED: &str = "tainted";

/// The contents of `__meta`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    pub schema_version: i64,
    pub private: Vec<u8>,
    /// The resource identity (protocol 5.9/6.9) as cty JSON with Terraform's attribute
    /// names, kept as a JSON string under `identity` so the Go implementation, which reads
    /// `__meta` into a struct and rewrites it through a map, ignores and keeps it.
    pub identity: Option<String>,
    /// The identity schema version `identity` was written with (`identity_schema_version`).
    pub identity_schema_version: i64,
    /// The state is what a failed apply returned (`apply_failed`, `"true"`): the provider's
    /// answer beside its error, which may hold values the remote object never took, so the
    /// next operation reads the object before it plans, as Terraform's next plan refreshes.
    pub apply_failed: bool,
    /// The object is what a failed create left (`tainted`, `"true"`), Terraform's tainted
    /// object: the next `up` replaces it, and a read that fails for it stops nothing
    /// (`support/failed_apply.rs`).
    pub tainted: bool,
    /// Keys other writers put there; kept as they are.
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// Takes the schema version `key` out of `__meta`: an integer, or the decimal string the Go
/// implementation writes; absent or null is 0.
fn version(meta: &mut serde_json::Map<String, serde_json::Value>, key: &str) -> Result<i64, MetaError> {
    let not_an_integer =
        |shown: &dyn std::fmt::Display| MetaError::NotAnInteger { key: key.to_owned(), shown: shown.to_string() };
    match meta.remove(key) {
        None | Some(serde_json::Value::Null) => Ok(0),
        Some(serde_json::Value::String(text)) => text.parse().map_err(|_| not_an_integer(&format!("{text:?}"))),
        Some(serde_json::Value::Number(n)) => n.as_i64().ok_or_else(|| not_an_integer(&n)),
        Some(other) => Err(not_an_integer(&other)),
    }
}

/// Takes the mark `key` out of `__meta`: the string `"true"` (as we write it) or a bool.
fn flag(meta: &mut serde_json::Map<String, serde_json::Value>, key: &'static str) -> Result<bool, MetaError> {
    match meta.remove(key) {
        None | Some(serde_json::Value::Null) => Ok(false),
        Some(serde_json::Value::String(text)) => Ok(text == "true"),
        Some(serde_json::Value::Bool(flag)) => Ok(flag),
        Some(_) => Err(MetaError::KeyNotAString(key)),
    }
}

impl Meta {
    /// Reads `__meta` from outputs; absent means version 0 and no private state.
    pub fn from_outputs(outputs: &PropertyMap) -> Result<Meta, StateError> {
        Ok(Meta::read(outputs)?)
    }

    fn read(outputs: &PropertyMap) -> Result<Meta, MetaError> {
        let Some(value) = outputs.get(META_KEY) else { return Ok(Meta::default()) };
        let text = match unwrap_secret(value) {
            PropertyValue::String(text) => text,
            PropertyValue::Null => return Ok(Meta::default()),
            _ => return Err(MetaError::NotAString),
        };
        let mut other: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(MetaError::NotAnObject)?;
        let schema_version = version(&mut other, "schema_version")?;
        let private = match other.remove("private_state") {
            None | Some(serde_json::Value::Null) => Vec::new(),
            Some(serde_json::Value::String(text)) => {
                base64::engine::general_purpose::STANDARD.decode(text).map_err(MetaError::PrivateNotBase64)?
            }
            Some(_) => return Err(MetaError::KeyNotAString("private_state")),
        };
        let identity = match other.remove("identity") {
            None | Some(serde_json::Value::Null) => None,
            Some(serde_json::Value::String(text)) => {
                serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text)
                    .map_err(MetaError::IdentityNotAnObject)?;
                Some(text)
            }
            Some(_) => return Err(MetaError::KeyNotAString("identity")),
        };
        let identity_schema_version = version(&mut other, "identity_schema_version")?;
        let apply_failed = flag(&mut other, APPLY_FAILED)?;
        let tainted = flag(&mut other, TAINTED)?;
        Ok(Meta { schema_version, private, identity, identity_schema_version, apply_failed, tainted, other })
    }

    /// The `__meta` output value, or `None` when there is nothing to store.
    pub fn to_property(&self) -> Option<PropertyValue> {
        let mut object = self.other.clone();
        if self.schema_version != 0 {
            object.insert("schema_version".into(), self.schema_version.to_string().into());
        }
        if !self.private.is_empty() {
            object
                .insert("private_state".into(), base64::engine::general_purpose::STANDARD.encode(&self.private).into());
        }
        if let Some(identity) = &self.identity {
            object.insert("identity".into(), identity.clone().into());
            object.insert("identity_schema_version".into(), self.identity_schema_version.to_string().into());
        }
        if self.apply_failed {
            object.insert(APPLY_FAILED.into(), "true".into());
        }
        if self.tainted {
            object.insert(TAINTED.into(), "true".into());
        }
        // Keys sorted, as Go's encoder writes a map, whatever order they were read in.
        let sorted: std::collections::BTreeMap<_, _> = object.into_iter().collect();
        (!sorted.is_empty()).then(|| PropertyValue::String(serde_json::to_string(&sorted).unwrap_or_default()))
    }
}

pub(crate) fn unwrap_secret(value: &PropertyValue) -> &PropertyValue {
    match value {
        PropertyValue::Secret(inner) => unwrap_secret(inner),
        PropertyValue::Output(output) => output.value.as_deref().map_or(&PropertyValue::Null, unwrap_secret),
        other => other,
    }
}

/// Rebuilds the raw state JSON of a resource from its outputs: through the Go
/// implementation's delta when one is stored, else by re-encoding the outputs through the
/// current schema. `id` fills in the Terraform `id` when the outputs lack it.
pub fn raw_state(
    schema: &Schema,
    props: &ResourceProperties,
    id: &str,
    outputs: &PropertyMap,
) -> Result<Vec<u8>, StateError> {
    if let Some(delta) = outputs.get(RAW_STATE_DELTA_KEY) {
        let delta = Delta::parse(delta)?;
        let json = delta::recover(&PropertyValue::Object(outputs.clone()), &delta)?;
        return Ok(json.to_string().into_bytes());
    }
    let (mut value, _) =
        values::to_cty(&schema.block, &props.names, outputs, UnknownKeys::Ignore).map_err(StateError::Outputs)?;
    if !id.is_empty()
        && id != MISSING_ID
        && schema.block.attributes.contains_key("id")
        && value.get_attr("id").is_none_or(Value::is_null)
    {
        value = cty::with_attribute(&value, "id", Value::string(id));
    }
    let json = cty::json::encode(&value, &schema.block.implied_type()).map_err(StateError::Encode)?;
    Ok(json.into_bytes())
}

/// The Pulumi ID of a Terraform state object, by the resource's ID rule. A numeric `id`
/// (dnsimple's, bunnynet's) is the ID in decimal; the Go implementation answers "missing ID"
/// for it (pulumi-terraform-provider#60, bridge#3610), as for a resource with no `id` at all.
pub fn resource_id(props: &ResourceProperties, state: &Value) -> Option<String> {
    match props.id {
        ResourceId::Missing => Some(
            state.get_attr("id").and_then(Value::as_number).map_or_else(|| MISSING_ID.to_owned(), ToString::to_string),
        ),
        ResourceId::IdAttribute | ResourceId::Delegate { .. } => {
            state.get_attr("id").and_then(Value::as_str).map(str::to_owned).filter(|id| !id.is_empty())
        }
    }
}

/// The outputs of a Terraform state object: its attributes under Pulumi names (secret at
/// `secrets` and where the schema says sensitive) and `__meta`.
pub fn outputs(
    schema: &Schema,
    props: &ResourceProperties,
    state: &Value,
    secrets: &[cty::Path],
    meta: &Meta,
) -> Result<PropertyMap, values::ConvertError> {
    let mut outputs = values::from_cty(&schema.block, &props.names, state, secrets)?;
    if let Some(meta) = meta.to_property() {
        outputs.insert(META_KEY.to_owned(), meta);
    }
    Ok(outputs)
}
