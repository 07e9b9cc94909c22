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

use crate::convert::raw_state::{self, Delta, META_KEY, RAW_STATE_DELTA_KEY};
use crate::convert::values::{self, UnknownKeys};
use crate::cty::{self, Value, View};
use crate::property::{PropertyMap, PropertyValue};

/// The ID the Go implementation gives resources that have no usable `id` attribute.
pub const MISSING_ID: &str = "missing ID";

/// The contents of `__meta`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Meta {
    pub schema_version: i64,
    pub private: Vec<u8>,
    /// Keys other writers put there; kept as they are.
    pub other: serde_json::Map<String, serde_json::Value>,
}

impl Meta {
    /// Reads `__meta` from outputs; absent means version 0 and no private state.
    pub fn from_outputs(outputs: &PropertyMap) -> Result<Meta, String> {
        let Some(value) = outputs.get(META_KEY) else { return Ok(Meta::default()) };
        let text = match unwrap_secret(value) {
            PropertyValue::String(text) => text,
            PropertyValue::Null => return Ok(Meta::default()),
            _ => return Err(format!("{META_KEY} is not a string")),
        };
        let mut other: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(text).map_err(|err| format!("{META_KEY} is not a JSON object: {err}"))?;
        let schema_version = match other.remove("schema_version") {
            None | Some(serde_json::Value::Null) => 0,
            Some(serde_json::Value::String(text)) => {
                text.parse().map_err(|_| format!("{META_KEY}.schema_version {text:?} is not an integer"))?
            }
            Some(serde_json::Value::Number(n)) => {
                n.as_i64().ok_or_else(|| format!("{META_KEY}.schema_version {n} is not an integer"))?
            }
            Some(other) => return Err(format!("{META_KEY}.schema_version {other} is not an integer")),
        };
        let private = match other.remove("private_state") {
            None | Some(serde_json::Value::Null) => Vec::new(),
            Some(serde_json::Value::String(text)) => base64::engine::general_purpose::STANDARD
                .decode(text)
                .map_err(|err| format!("{META_KEY}.private_state is not base64: {err}"))?,
            Some(_) => return Err(format!("{META_KEY}.private_state is not a string")),
        };
        Ok(Meta { schema_version, private, other })
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
        // Keys sorted, as Go's encoder writes a map, whatever order they were read in.
        let sorted: std::collections::BTreeMap<_, _> = object.into_iter().collect();
        (!sorted.is_empty()).then(|| PropertyValue::String(serde_json::to_string(&sorted).unwrap_or_default()))
    }
}

fn unwrap_secret(value: &PropertyValue) -> &PropertyValue {
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
) -> Result<Vec<u8>, String> {
    if let Some(delta) = outputs.get(RAW_STATE_DELTA_KEY) {
        let delta = Delta::parse(delta).map_err(|err| err.to_string())?;
        let json =
            raw_state::recover(&PropertyValue::Object(outputs.clone()), &delta).map_err(|err| err.to_string())?;
        return Ok(json.to_string().into_bytes());
    }
    let (mut value, _) = values::to_cty(&schema.block, &props.names, outputs, UnknownKeys::Ignore)
        .map_err(|err| format!("the outputs do not fit the current schema: {err}"))?;
    if !id.is_empty()
        && id != MISSING_ID
        && schema.block.attributes.contains_key("id")
        && value.get_attr("id").is_none_or(Value::is_null)
    {
        value = with_attribute(&value, "id", Value::string(id));
    }
    let json = cty::json::encode(&value, &schema.block.implied_type())
        .map_err(|err| format!("the outputs cannot be written as Terraform state: {err}"))?;
    Ok(json.into_bytes())
}

/// `object` with one attribute replaced.
pub fn with_attribute(object: &Value, name: &str, new: Value) -> Value {
    match object.view() {
        View::Object(attrs) => Value::object(attrs.iter().map(|(key, value)| {
            let value = if key.as_str() == name { new.clone() } else { value.clone() };
            (key.clone(), value)
        })),
        _ => object.clone(),
    }
}

/// The Pulumi ID of a Terraform state object, by the resource's ID rule.
pub fn resource_id(props: &ResourceProperties, state: &Value) -> Option<String> {
    match props.id {
        ResourceId::Missing => Some(MISSING_ID.to_owned()),
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

/// Every unknown in `value` replaced by null of its type: what Terraform saves when a
/// provider leaves unknowns after apply.
pub fn unknowns_to_null(value: &Value) -> Value {
    match value.view() {
        View::Unknown(ty, _) => Value::null(ty.clone()),
        View::List(ty, elems) => {
            Value::list(ty.clone(), elems.iter().map(unknowns_to_null).collect()).unwrap_or_else(|_| value.clone())
        }
        View::Set(ty, elems) => {
            Value::set(ty.clone(), elems.iter().map(unknowns_to_null).collect()).unwrap_or_else(|_| value.clone())
        }
        View::Map(ty, entries) => {
            Value::map(ty.clone(), entries.iter().map(|(k, v)| (k.as_str(), unknowns_to_null(v))))
                .unwrap_or_else(|_| value.clone())
        }
        View::Object(attrs) => Value::object(attrs.iter().map(|(k, v)| (k.clone(), unknowns_to_null(v)))),
        View::Tuple(elems) => Value::tuple(elems.iter().map(unknowns_to_null).collect()),
        _ => value.clone(),
    }
}

/// The paths of every unknown value in `value`.
pub fn unknown_paths(value: &Value) -> Vec<cty::Path> {
    let mut paths = Vec::new();
    value.walk(&mut |path, v| {
        if !v.is_known() {
            paths.push(path.clone());
        }
    });
    paths
}

/// The value at `path` inside `value`: `None` when the path does not exist, the unknown
/// value itself when the path passes through one. A step into a set stops at the set
/// (set elements have no addresses).
pub fn value_at<'v>(value: &'v Value, path: &cty::Path) -> Option<&'v Value> {
    let mut current = value;
    for step in &path.steps {
        if !current.is_known() || current.is_null() {
            return Some(current);
        }
        current = match (current.view(), step) {
            (View::Set(..), _) => return Some(current),
            (View::Object(_), cty::PathStep::Attr(name)) => current.get_attr(name)?,
            (View::Map(..), cty::PathStep::Key(key)) => current.get_map_entry(key)?,
            (View::List(_, elems) | View::Tuple(elems), cty::PathStep::Index(idx)) => {
                elems.get(usize::try_from(*idx).ok()?)?
            }
            _ => return None,
        };
    }
    Some(current)
}

/// Whether `path` names an attribute or block that the schema's implied type has (or a
/// step inside a value of it), regardless of the values.
pub fn path_exists_in_type(ty: &cty::Type, path: &cty::Path) -> bool {
    let mut current = ty;
    for step in &path.steps {
        current = match (current, step) {
            (cty::Type::Object(object), cty::PathStep::Attr(name)) => match object.attrs.get(name) {
                Some(ty) => ty,
                None => return false,
            },
            (cty::Type::Map(elem), cty::PathStep::Key(_)) => elem,
            (cty::Type::List(elem) | cty::Type::Set(elem), cty::PathStep::Index(_)) => elem,
            (cty::Type::Set(_), _) => return true,
            (cty::Type::Tuple(elems), cty::PathStep::Index(idx)) => {
                match usize::try_from(*idx).ok().and_then(|idx| elems.get(idx)) {
                    Some(ty) => ty,
                    None => return false,
                }
            }
            (cty::Type::Dynamic, _) => return true,
            _ => return false,
        };
    }
    true
}
