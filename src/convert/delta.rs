//! Rebuilding a resource's Terraform raw state from its Pulumi outputs and the
//! `__pulumi_raw_state_delta` the Go implementation stores beside them.
//!
//! The outputs alone lose information Terraform needs: null attributes are left out,
//! MaxItems=1 lists are flattened, names are camelCased, and large numbers become strings.
//! The delta records exactly those differences, so the provider's `UpgradeResourceState` can
//! be sent the raw state JSON a Terraform state file would hold. The format is documented in
//! `docs/state-layout.md`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;

use crate::property::{PropertyMap, PropertyValue};

/// The output keys the bridge reserves for itself; never part of the Terraform state.
pub const META_KEY: &str = "__meta";
pub const RAW_STATE_DELTA_KEY: &str = "__pulumi_raw_state_delta";
pub const DEFAULTS_KEY: &str = "__defaults";

fn is_reserved_key(key: &str) -> bool {
    key == META_KEY || key == RAW_STATE_DELTA_KEY || key == DEFAULTS_KEY
}

/// A parsed raw-state delta.
#[derive(Clone, Debug, PartialEq)]
pub enum Delta {
    /// The Pulumi value converts to JSON as it is.
    Natural,
    /// A MaxItems=1 list flattened to its element (or to null for an empty list).
    Pluralize(Box<Delta>),
    /// A Terraform map; deltas for some of its elements.
    Map(BTreeMap<String, Delta>),
    /// A Terraform object: Pulumi keys to drop, Pulumi keys whose Terraform name is not the
    /// plain camel-to-snake conversion, and deltas for some properties (also for properties
    /// absent from the outputs, which are recovered from null).
    Object { ignored: BTreeSet<String>, renamed: BTreeMap<String, String>, properties: BTreeMap<String, Delta> },
    /// A list or set; deltas for some of its elements by position.
    ArrayOrSet(BTreeMap<usize, Delta>),
    /// A number stored as a Pulumi string because an f64 cannot hold it.
    Number,
    /// An asset or archive translation. Dynamically bridged providers never declare assets,
    /// so this is refused on recovery rather than guessed at.
    Asset,
    /// The raw JSON itself, verbatim.
    Replace(Json),
}

/// Why a delta could not be read or applied. Either means the state was edited by hand or
/// written by something else; the remedy is the same as the Go implementation's: drop the
/// delta key and let the outputs be re-encoded through the current schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "data integrity error: {RAW_STATE_DELTA_KEY:?} does not apply cleanly to the resource state at {path}: {reason}. \
     If you are editing the state manually, try removing the {RAW_STATE_DELTA_KEY:?} key and run Pulumi again"
)]
pub struct DeltaError {
    /// Where in the outputs, in Pulumi property-path syntax (`a.b[0]`); empty at the top.
    pub path: String,
    pub reason: String,
}

fn error(path: &str, reason: impl Into<String>) -> DeltaError {
    DeltaError {
        path: if path.is_empty() { "the top level".to_owned() } else { path.to_owned() },
        reason: reason.into(),
    }
}

impl Delta {
    /// Reads a delta from its stored property value (secrets are unwrapped: only `replace`
    /// entries are secret, and only to keep them out of plain-text state).
    pub fn parse(value: &PropertyValue) -> Result<Delta, DeltaError> {
        parse(value, "")
    }
}

fn parse(value: &PropertyValue, path: &str) -> Result<Delta, DeltaError> {
    let value = unwrap(value);
    let PropertyValue::Object(map) = value else {
        return match value {
            PropertyValue::Null => Ok(Delta::Natural),
            _ => Err(error(path, "a delta must be an object")),
        };
    };
    let Some((kind, payload)) = single_entry(map) else {
        return if map.is_empty() { Ok(Delta::Natural) } else { Err(error(path, "a delta must have exactly one key")) };
    };
    let payload = unwrap(payload);
    let fields = |payload: &PropertyValue| -> Result<PropertyMap, DeltaError> {
        match payload {
            PropertyValue::Object(fields) => Ok(fields.clone()),
            PropertyValue::Null => Ok(PropertyMap::new()),
            _ => Err(error(path, format!("the {kind:?} delta must be an object"))),
        }
    };
    match kind.as_str() {
        "plu" => {
            let fields = fields(payload)?;
            let inner = match fields.get("i") {
                Some(inner) => parse(inner, path)?,
                None => Delta::Natural,
            };
            Ok(Delta::Pluralize(Box::new(inner)))
        }
        "map" => Ok(Delta::Map(keyed_deltas(&fields(payload)?, "el", path)?)),
        "obj" => {
            let fields = fields(payload)?;
            let mut ignored = BTreeSet::new();
            if let Some(list) = fields.get("ignored").map(unwrap) {
                let PropertyValue::Array(items) = list else { return Err(error(path, "obj.ignored must be a list")) };
                for item in items {
                    let PropertyValue::String(key) = unwrap(item) else {
                        return Err(error(path, "obj.ignored must hold strings"));
                    };
                    ignored.insert(key.clone());
                }
            }
            let mut renamed = BTreeMap::new();
            if let Some(map) = fields.get("renamed").map(unwrap) {
                let PropertyValue::Object(map) = map else { return Err(error(path, "obj.renamed must be an object")) };
                for (key, name) in map {
                    let PropertyValue::String(name) = unwrap(name) else {
                        return Err(error(path, "obj.renamed must map to strings"));
                    };
                    renamed.insert(key.clone(), name.clone());
                }
            }
            let properties = keyed_deltas(&fields, "ps", path)?;
            Ok(Delta::Object { ignored, renamed, properties })
        }
        "arr" => {
            let by_key = keyed_deltas(&fields(payload)?, "el", path)?;
            let mut by_index = BTreeMap::new();
            for (key, delta) in by_key {
                let index =
                    key.parse::<usize>().map_err(|_| error(path, format!("arr index {key:?} is not a number")))?;
                by_index.insert(index, delta);
            }
            Ok(Delta::ArrayOrSet(by_index))
        }
        "num" => Ok(Delta::Number),
        "asset" => Ok(Delta::Asset),
        "replace" => {
            let fields = fields(payload)?;
            let raw = fields
                .get("raw")
                .map(property_to_json)
                .transpose()
                .map_err(|reason| error(path, reason.to_string()))?;
            Ok(Delta::Replace(raw.unwrap_or(Json::Null)))
        }
        other => Err(error(path, format!("unknown delta kind {other:?}"))),
    }
}

fn keyed_deltas(fields: &PropertyMap, field: &str, path: &str) -> Result<BTreeMap<String, Delta>, DeltaError> {
    let mut out = BTreeMap::new();
    if let Some(map) = fields.get(field).map(unwrap) {
        let PropertyValue::Object(map) = map else { return Err(error(path, format!("{field} must be an object"))) };
        for (key, value) in map {
            out.insert(key.clone(), parse(value, &child_path(path, key))?);
        }
    }
    Ok(out)
}

/// Rebuilds the raw state JSON from a resource's outputs and its delta.
pub fn recover(outputs: &PropertyValue, delta: &Delta) -> Result<Json, DeltaError> {
    recover_at(outputs, delta, "")
}

fn recover_at(value: &PropertyValue, delta: &Delta, path: &str) -> Result<Json, DeltaError> {
    let value = unwrap(value);
    if matches!(value, PropertyValue::Unknown(_)) || matches!(value, PropertyValue::Output(o) if o.value.is_none()) {
        return Err(error(path, "unknown values cannot be part of a stored state"));
    }
    match delta {
        Delta::Natural => natural(value, path),
        Delta::Replace(raw) => Ok(raw.clone()),
        Delta::Pluralize(inner) => match value {
            PropertyValue::Null => Ok(Json::Array(Vec::new())),
            _ => Ok(Json::Array(vec![recover_at(value, inner, path)?])),
        },
        Delta::Map(elements) => {
            let PropertyValue::Object(map) = value else {
                return Err(error(path, "expected an object encoding a map"));
            };
            let mut out = serde_json::Map::new();
            for (key, element) in map {
                let delta = elements.get(key).unwrap_or(&Delta::Natural);
                out.insert(key.clone(), recover_at(element, delta, &child_path(path, key))?);
            }
            Ok(Json::Object(out))
        }
        Delta::Object { ignored, renamed, properties } => {
            let PropertyValue::Object(map) = value else {
                return Err(error(path, "expected an object encoding a Terraform object"));
            };
            let tf_name = |key: &str| renamed.get(key).cloned().unwrap_or_else(|| pulumi_to_terraform_name(key));
            let mut out = serde_json::Map::new();
            for (key, element) in map {
                if is_reserved_key(key) || ignored.contains(key) {
                    continue;
                }
                let delta = properties.get(key).unwrap_or(&Delta::Natural);
                out.insert(tf_name(key), recover_at(element, delta, &child_path(path, key))?);
            }
            // Deltas for properties missing from the outputs put back what the outputs left
            // out, typically attributes that are null.
            for (key, delta) in properties {
                if !map.contains_key(key) {
                    out.insert(tf_name(key), recover_at(&PropertyValue::Null, delta, &child_path(path, key))?);
                }
            }
            Ok(Json::Object(out))
        }
        Delta::ArrayOrSet(elements) => {
            let PropertyValue::Array(items) = value else { return Err(error(path, "expected an array")) };
            if let Some((index, _)) = elements.iter().find(|(index, _)| **index >= items.len()) {
                return Err(error(path, format!("delta for element {index} of an array of {}", items.len())));
            }
            let mut out = Vec::with_capacity(items.len());
            for (index, item) in items.iter().enumerate() {
                let delta = elements.get(&index).unwrap_or(&Delta::Natural);
                out.push(recover_at(item, delta, &format!("{path}[{index}]"))?);
            }
            Ok(Json::Array(out))
        }
        Delta::Number => match value {
            PropertyValue::String(text) => text
                .parse::<serde_json::Number>()
                .map(Json::Number)
                .map_err(|_| error(path, format!("{text:?} is not a number"))),
            _ => Err(error(path, "expected a string holding a number")),
        },
        Delta::Asset => Err(error(path, "asset translations are not supported for dynamically bridged providers")),
    }
}

/// The JSON a Pulumi value stands for when no delta says otherwise.
fn natural(value: &PropertyValue, path: &str) -> Result<Json, DeltaError> {
    match unwrap(value) {
        PropertyValue::Null => Ok(Json::Null),
        PropertyValue::Bool(b) => Ok(Json::Bool(*b)),
        PropertyValue::String(s) => Ok(Json::String(s.clone())),
        PropertyValue::Number(n) => number_json(*n).ok_or_else(|| error(path, format!("{n} is not a finite number"))),
        PropertyValue::Array(items) => items
            .iter()
            .enumerate()
            .map(|(index, item)| natural(item, &format!("{path}[{index}]")))
            .collect::<Result<_, _>>()
            .map(Json::Array),
        // Without a delta an object could be a Terraform map or object; the names of an
        // object's attributes would be unknown. The Go implementation refuses too.
        PropertyValue::Object(_) => Err(error(path, "an object needs a map or obj delta")),
        _ => Err(error(path, "this kind of value has no raw state form")),
    }
}

/// A JSON number for an f64, printed exactly (the shortest text that reads back as the
/// same f64 is exact for the f64 itself, which is what Go's `Text('f', -1)` prints too).
fn number_json(n: f64) -> Option<Json> {
    if !n.is_finite() {
        return None;
    }
    if n.fract() == 0.0 && n.abs() < 1e15 {
        #[allow(clippy::cast_possible_truncation)]
        return Some(Json::from(n as i64));
    }
    serde_json::Number::from_f64(n).map(Json::Number)
}

/// Why a replace delta's value is not JSON.
#[derive(Debug, thiserror::Error)]
enum NotJson {
    /// A NaN or infinite number.
    #[error("{0} is not a finite number")]
    NotFinite(f64),
    /// A secret, an asset, a resource reference or another non-JSON value.
    #[error("a replace delta must hold plain JSON")]
    NotPlain,
}

fn property_to_json(value: &PropertyValue) -> Result<Json, NotJson> {
    match unwrap(value) {
        PropertyValue::Null => Ok(Json::Null),
        PropertyValue::Bool(b) => Ok(Json::Bool(*b)),
        PropertyValue::String(s) => Ok(Json::String(s.clone())),
        PropertyValue::Number(n) => number_json(*n).ok_or(NotJson::NotFinite(*n)),
        PropertyValue::Array(items) => items.iter().map(property_to_json).collect::<Result<_, _>>().map(Json::Array),
        PropertyValue::Object(map) => map
            .iter()
            .map(|(k, v)| Ok((k.clone(), property_to_json(v)?)))
            .collect::<Result<serde_json::Map<_, _>, NotJson>>()
            .map(Json::Object),
        _ => Err(NotJson::NotPlain),
    }
}

/// The Go implementation's schema-less inverse of camelCasing: an underscore before every
/// upper-case ASCII letter (except a leading one), which is lower-cased.
pub fn pulumi_to_terraform_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (idx, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if idx != 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

fn unwrap(value: &PropertyValue) -> &PropertyValue {
    match value {
        PropertyValue::Secret(inner) => unwrap(inner),
        PropertyValue::Output(output) => match &output.value {
            Some(inner) => unwrap(inner),
            None => value,
        },
        _ => value,
    }
}

fn single_entry(map: &PropertyMap) -> Option<(&String, &PropertyValue)> {
    let mut iter = map.iter();
    let first = iter.next()?;
    iter.next().is_none().then_some(first)
}

fn child_path(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::property as outputs;

    #[track_caller]
    fn check(outputs_json: &str, expected_raw: &str) {
        let outputs = outputs(outputs_json);
        let PropertyValue::Object(map) = &outputs else { panic!("outputs must be an object") };
        let delta = map.get(RAW_STATE_DELTA_KEY).map(Delta::parse).transpose().unwrap().unwrap_or(Delta::Natural);
        let raw = recover(&outputs, &delta).unwrap();
        let expected: serde_json::Value = serde_json::from_str(expected_raw).unwrap();
        assert_eq!(raw, expected);
    }

    const SECRET: &str = "4dabf18193072939515e22adb298388d\": \"1b47061264138c4ac30d75fd1eb44270";

    #[test]
    fn a_stack_written_by_the_go_implementation() {
        // random_pet as the Go implementation (bridge v3.136.0) stored it after `pulumi up`;
        // the secrets' plaintext is `{"replace":{"raw":null}}`.
        let outputs = format!(
            r#"{{"id": "truly-summary-mink", "length": 3, "separator": "-",
               "__pulumi_raw_state_delta": {{"obj": {{"ps": {{
                  "keepers": {{"{SECRET}", "value": {{"replace": {{"raw": null}}}}}},
                  "prefix": {{"{SECRET}", "value": {{"replace": {{"raw": null}}}}}}}}}}}}}}"#
        );
        check(
            &outputs,
            r#"{"id": "truly-summary-mink", "keepers": null, "length": 3, "prefix": null, "separator": "-"}"#,
        );
    }

    #[test]
    fn every_delta_kind() {
        check(
            r#"{"fileLockConfiguration": {"enabled": true}, "tags": {"Name": "x"}, "bigNumber": "123456789012345678901234567890",
                "rules": [{"fromPort": 1}], "b2BucketId": "b-1", "legacyThing": 7,
                "__meta": "{\"schema_version\":\"1\"}",
                "__pulumi_raw_state_delta": {"obj": {
                    "ignored": ["legacyThing"],
                    "renamed": {"b2BucketId": "id"},
                    "ps": {"fileLockConfiguration": {"plu": {"i": {"obj": {}}}},
                           "tags": {"map": {}},
                           "bigNumber": {"num": {}},
                           "rules": {"arr": {"el": {"0": {"obj": {}}}}},
                           "emptyList": {"plu": {}}}}}}"#,
            r#"{"file_lock_configuration": [{"enabled": true}], "tags": {"Name": "x"}, "big_number": 123456789012345678901234567890,
                "rules": [{"from_port": 1}], "id": "b-1", "empty_list": []}"#,
        );
    }

    #[test]
    fn without_element_deltas_only_plain_values_recover() {
        check(
            r#"{"name": "a", "count": 2, "ratio": 0.5, "tags": ["x"], "__pulumi_raw_state_delta": {"obj": {}}}"#,
            r#"{"name": "a", "count": 2, "ratio": 0.5, "tags": ["x"]}"#,
        );
        // With no delta at all, the top level could be a map or an object: the caller must
        // re-encode the outputs through the schema instead.
        assert!(recover(&outputs(r#"{"name": "a"}"#), &Delta::Natural).is_err());
        let outputs = outputs(r#"{"nested": {"a": 1}}"#);
        let err = recover(
            &outputs,
            &Delta::Object { ignored: BTreeSet::new(), renamed: BTreeMap::new(), properties: BTreeMap::new() },
        )
        .unwrap_err();
        assert_eq!(err.path, "nested");
        assert!(err.to_string().contains("an object needs a map or obj delta"), "{err}");
    }

    #[test]
    fn bad_deltas_are_clear_errors() {
        let bad = [
            (r#"{"mystery": {}}"#, "unknown delta kind \"mystery\""),
            (r#"{"obj": {}, "map": {}}"#, "exactly one key"),
            (r#"{"arr": {"el": {"x": {}}}}"#, "is not a number"),
            (r#"{"obj": {"ignored": "a"}}"#, "obj.ignored must be a list"),
        ];
        for (delta, message) in bad {
            let err = Delta::parse(&outputs(delta)).unwrap_err();
            assert!(err.to_string().contains(message), "{delta}: {err}");
        }
        let err = recover(&outputs(r#"["a"]"#), &Delta::ArrayOrSet(BTreeMap::from([(3, Delta::Number)]))).unwrap_err();
        assert!(err.to_string().contains("delta for element 3 of an array of 1"), "{err}");
    }

    #[test]
    fn terraform_names() {
        for (pulumi, tf) in
            [("fromPort", "from_port"), ("b2BucketId", "b2_bucket_id"), ("id", "id"), ("ID", "i_d"), ("a", "a")]
        {
            assert_eq!(pulumi_to_terraform_name(pulumi), tf);
        }
    }
}
