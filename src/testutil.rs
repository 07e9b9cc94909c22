//! Helpers shared by unit tests: schemas and cty values written compactly.
//!
//! Values are JSON shaped by the schema's implied type: `"?"` is an unknown value, `"?!"` an
//! unknown value refined as not null, `"?ab"` an unknown string known to start with "ab", a
//! string where a number is expected is an exact decimal, and missing object attributes are
//! null.

use schema_gen::tf::Block;

use crate::cty::{Number, Refinements, Type, Value};
use crate::property::{PropertyMap, PropertyValue, structpb};

pub(crate) fn schema(json: &str) -> Block {
    serde_json::from_str(json).unwrap_or_else(|err| panic!("bad test schema {json}: {err}"))
}

/// Builds a value of type `ty` from the compact JSON notation described above.
pub(crate) fn val(ty: &Type, text: &str) -> Value {
    let json: serde_json::Value =
        serde_json::from_str(text).unwrap_or_else(|err| panic!("bad test value {text}: {err}"));
    build(ty, &json)
}

fn build(ty: &Type, json: &serde_json::Value) -> Value {
    use serde_json::Value as J;
    match json {
        J::Null => Value::null(ty.clone()),
        J::String(s) if s == "?" => Value::unknown(ty.clone()),
        J::String(s) if s == "?!" => {
            Value::unknown_refined(ty.clone(), Refinements { not_null: true, ..Refinements::default() }).unwrap()
        }
        J::String(s) if s.starts_with('?') && *ty == Type::String => Value::unknown_refined(
            Type::String,
            Refinements { not_null: true, string_prefix: Some(s[1..].to_owned()), ..Refinements::default() },
        )
        .unwrap(),
        _ => match (ty, json) {
            (Type::Bool, J::Bool(b)) => Value::bool(*b),
            (Type::Number, J::Number(n)) => Value::number(Number::parse(&n.to_string()).unwrap()),
            // JSON numbers pass through f64 in serde_json; exact big numbers are written as strings.
            (Type::Number, J::String(s)) => Value::number(Number::parse(s).unwrap()),
            (Type::String, J::String(s)) => Value::string(s.clone()),
            (Type::List(elem), J::Array(items)) => {
                Value::list((**elem).clone(), items.iter().map(|item| build(elem, item)).collect()).unwrap()
            }
            (Type::Set(elem), J::Array(items)) => {
                Value::set((**elem).clone(), items.iter().map(|item| build(elem, item)).collect()).unwrap()
            }
            (Type::Map(elem), J::Object(entries)) => Value::map(
                (**elem).clone(),
                entries.iter().map(|(k, item)| (k.clone(), build(elem, item))).collect::<Vec<_>>(),
            )
            .unwrap(),
            (Type::Object(object), J::Object(entries)) => {
                for key in entries.keys() {
                    assert!(object.attrs.contains_key(key), "test value has attribute {key} the type lacks");
                }
                Value::object(
                    object
                        .attrs
                        .iter()
                        .map(|(name, attr_ty)| (name.clone(), build(attr_ty, entries.get(name).unwrap_or(&J::Null))))
                        .collect::<Vec<_>>(),
                )
            }
            (Type::Dynamic, J::String(s)) => Value::string(s.clone()),
            (Type::Dynamic, J::Bool(b)) => Value::bool(*b),
            (Type::Dynamic, J::Number(n)) => Value::number(Number::parse(&n.to_string()).unwrap()),
            _ => panic!("test value {json} does not fit type {ty}"),
        },
    }
}

/// Renders a value in the notation [`val`] reads, with every attribute shown (nulls too)
/// so expectations say exactly what is there.
pub(crate) fn show(v: &Value) -> String {
    use crate::cty::View;
    match v.view() {
        View::Null(_) => "null".to_owned(),
        View::Unknown(_, Some(refinements)) if refinements.not_null => "\"?!\"".to_owned(),
        View::Unknown(..) => "\"?\"".to_owned(),
        View::Bool(b) => b.to_string(),
        View::Number(n) => n.to_string(),
        View::String(s) => serde_json::Value::from(s).to_string(),
        View::List(_, elems) | View::Set(_, elems) | View::Tuple(elems) => {
            format!("[{}]", elems.iter().map(show).collect::<Vec<_>>().join(","))
        }
        View::Map(_, entries) | View::Object(entries) => format!(
            "{{{}}}",
            entries
                .iter()
                .map(|(k, v)| format!("{}:{}", serde_json::Value::from(k.as_str()), show(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}

/// A Pulumi property value from JSON in the engine's `Struct` form: special values are
/// signature objects (`{"4dabf18193072939515e22adb298388d": "1b47...", "value": ...}` for a
/// secret) and unknowns are their sentinel strings.
pub(crate) fn property(json: &str) -> PropertyValue {
    let json: serde_json::Value =
        serde_json::from_str(json).unwrap_or_else(|err| panic!("bad test JSON {json}: {err}"));
    structpb::decode_value(&json_to_protobuf(&json)).expect("a valid property value")
}

/// Like [`property`], for an object.
pub(crate) fn properties(json: &str) -> PropertyMap {
    match property(json) {
        PropertyValue::Object(map) => map,
        other => panic!("expected an object, got {other:?}"),
    }
}

/// A JSON value as a protobuf `Value`, the way the engine would send it.
pub(crate) fn json_to_protobuf(json: &serde_json::Value) -> prost_types::Value {
    use prost_types::value::Kind;
    let kind = match json {
        serde_json::Value::Null => Kind::NullValue(0),
        serde_json::Value::Bool(b) => Kind::BoolValue(*b),
        serde_json::Value::Number(n) => Kind::NumberValue(n.as_f64().expect("a finite number")),
        serde_json::Value::String(s) => Kind::StringValue(s.clone()),
        serde_json::Value::Array(items) => {
            Kind::ListValue(prost_types::ListValue { values: items.iter().map(json_to_protobuf).collect() })
        }
        serde_json::Value::Object(map) => Kind::StructValue(prost_types::Struct {
            fields: map.iter().map(|(k, v)| (k.clone(), json_to_protobuf(v))).collect(),
        }),
    };
    prost_types::Value { kind: Some(kind) }
}

/// Renders Pulumi properties compactly: secrets as `{"secret": v}`, unknowns as `"?"`.
pub(crate) fn show_properties(props: &PropertyMap) -> String {
    show_property(&PropertyValue::Object(props.clone()))
}

pub(crate) fn show_property(value: &PropertyValue) -> String {
    match value {
        PropertyValue::Null => "null".to_owned(),
        PropertyValue::Bool(b) => b.to_string(),
        PropertyValue::Number(n) => format!("{n}"),
        PropertyValue::String(s) => serde_json::Value::from(s.as_str()).to_string(),
        PropertyValue::Array(items) => format!("[{}]", items.iter().map(show_property).collect::<Vec<_>>().join(",")),
        PropertyValue::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{}:{}", serde_json::Value::from(k.as_str()), show_property(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        PropertyValue::Secret(inner) => format!("{{\"secret\":{}}}", show_property(inner)),
        PropertyValue::Unknown(_) => "\"?\"".to_owned(),
        other => format!("{other:?}"),
    }
}

/// A table test's answer for one case: what `ok` makes of a success, or `error: <the error>`.
pub(crate) fn shown<T, E: std::fmt::Display>(result: Result<T, E>, ok: impl FnOnce(T) -> String) -> String {
    match result {
        Ok(value) => ok(value),
        Err(err) => format!("error: {err}"),
    }
}
