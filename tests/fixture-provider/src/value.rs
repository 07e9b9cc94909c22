//! Provider values as generic msgpack trees ([`rmpv::Value`]), with just enough cty
//! knowledge to serve resources: unknowns, object attributes, the JSON state form, flatmap
//! state, and deterministic values for whatever is left unknown at apply time.
//!
//! The fixture deliberately does not use the bridge's cty codec: it decodes and encodes with
//! the generic `rmpv` crate, guided by the schema's implied type where the wire form alone is
//! ambiguous (JSON numbers, dynamic slots), so a bug in the bridge's codec cannot hide behind
//! the same bug here.
//!
//! Architecture invariant: this module knows nothing about RPCs, resources or
//! misbehaviour; it only turns bytes into trees and trees into bytes.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rmpv::Value;
use schema_gen::tf::{self, Type};
use serde_json::Value as Json;

/// Why bytes or JSON could not be read as a value of the expected type.
#[derive(Debug, thiserror::Error)]
pub enum ValueError {
    /// The bytes are not one complete msgpack value.
    #[error("invalid msgpack: {0}")]
    Msgpack(String),
    /// The JSON text could not be parsed.
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// A value does not fit the type at `path`.
    #[error("{path}: {reason}")]
    WrongType { path: String, reason: String },
}

/// The unrefined unknown: msgpack extension 0 with one zero byte (`d4 00 00`).
pub fn unknown() -> Value {
    Value::Ext(0, vec![0])
}

/// A msgpack string whose bytes are `bytes`, UTF-8 or not: what a Go provider sends for a
/// string it read from binary data (Go strings hold any bytes). `rmpv` keeps such a string's
/// bytes when it reads one, so the value is read from its own encoding.
pub fn raw_string(bytes: &[u8]) -> Value {
    let mut encoded = Vec::with_capacity(bytes.len() + 5);
    encoded.push(0xdb);
    encoded.extend_from_slice(&u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_be_bytes());
    encoded.extend_from_slice(bytes);
    rmpv::decode::read_value(&mut encoded.as_slice()).unwrap_or(Value::Nil)
}

/// Whether `value` is unknown. Any extension counts, refined unknowns (ext 12) included, as
/// the object wire format asks of servers.
pub fn is_unknown(value: &Value) -> bool {
    matches!(value, Value::Ext(..))
}

/// Decodes one msgpack value; an empty byte string is a null, as a `DynamicValue` that was
/// never set.
pub fn decode(bytes: &[u8]) -> Result<Value, ValueError> {
    if bytes.is_empty() {
        return Ok(Value::Nil);
    }
    let mut reader = bytes;
    let value = rmpv::decode::read_value(&mut reader).map_err(|err| ValueError::Msgpack(err.to_string()))?;
    if !reader.is_empty() {
        return Err(ValueError::Msgpack(format!("{} trailing bytes after the value", reader.len())));
    }
    Ok(value)
}

pub fn encode(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    write_value(&mut out, value);
    out
}

/// `rmpv`'s writer, except for strings whose bytes are not UTF-8 ([`raw_string`]): `rmpv`
/// writes those as msgpack bin, and a Go provider writes every string as str, whatever its
/// bytes.
fn write_value(out: &mut Vec<u8>, value: &Value) {
    fn header(out: &mut Vec<u8>, fix: u8, wide16: u8, wide32: u8, len: usize) {
        match (u8::try_from(len), u16::try_from(len)) {
            (Ok(short), _) if short < 16 => out.push(fix | short),
            (_, Ok(medium)) => {
                out.push(wide16);
                out.extend_from_slice(&medium.to_be_bytes());
            }
            _ => {
                out.push(wide32);
                out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes());
            }
        }
    }
    match value {
        Value::String(text) if text.as_str().is_none() => {
            out.push(0xdb);
            out.extend_from_slice(&u32::try_from(text.as_bytes().len()).unwrap_or(u32::MAX).to_be_bytes());
            out.extend_from_slice(text.as_bytes());
        }
        Value::Array(items) => {
            header(out, 0x90, 0xdc, 0xdd, items.len());
            items.iter().for_each(|item| write_value(out, item));
        }
        Value::Map(entries) => {
            header(out, 0x80, 0xde, 0xdf, entries.len());
            for (key, item) in entries {
                write_value(out, key);
                write_value(out, item);
            }
        }
        // Writing into a Vec cannot fail.
        other => drop(rmpv::encode::write_value(out, other)),
    }
}

/// The attribute `name` of an object value, if the value is an object holding it.
pub fn attr<'a>(object: &'a Value, name: &str) -> Option<&'a Value> {
    match object {
        Value::Map(entries) => entries.iter().find(|(key, _)| key.as_str() == Some(name)).map(|(_, value)| value),
        _ => None,
    }
}

/// The attribute `name` as a known string.
pub fn attr_str<'a>(object: &'a Value, name: &str) -> Option<&'a str> {
    attr(object, name).and_then(Value::as_str)
}

/// Sets attribute `name` of an object value; adds it when missing, so the caller must only
/// name attributes of the object's type.
pub fn set_attr(object: &mut Value, name: &str, value: Value) {
    if let Value::Map(entries) = object {
        match entries.iter_mut().find(|(key, _)| key.as_str() == Some(name)) {
            Some((_, slot)) => *slot = value,
            None => {
                entries.push((Value::from(name), value));
                entries.sort_by(|(a, _), (b, _)| a.as_str().cmp(&b.as_str()));
            }
        }
    }
}

pub fn attr_mut<'a>(object: &'a mut Value, name: &str) -> Option<&'a mut Value> {
    match object {
        Value::Map(entries) => entries.iter_mut().find(|(key, _)| key.as_str() == Some(name)).map(|(_, value)| value),
        _ => None,
    }
}

/// The value of a block with nothing set: attributes null, single blocks null, group blocks
/// an empty object, list/set/map blocks empty collections (the wire rules of blocks).
pub fn empty_block(block: &tf::Block) -> Value {
    let mut entries: BTreeMap<&str, Value> = block.attributes.keys().map(|name| (name.as_str(), Value::Nil)).collect();
    for (name, nested) in &block.block_types {
        let empty = match nested.nesting {
            tf::BlockNesting::Single => Value::Nil,
            tf::BlockNesting::Group => empty_block(&nested.block),
            tf::BlockNesting::List | tf::BlockNesting::Set | tf::BlockNesting::Map => {
                let collection = if nested.nesting == tf::BlockNesting::Map {
                    Value::Map(Vec::new())
                } else {
                    Value::Array(Vec::new())
                };
                match nested.implied_type() {
                    Type::Dynamic => dynamic(&empty_collection_type(nested), collection),
                    _ => collection,
                }
            }
        };
        entries.insert(name.as_str(), empty);
    }
    Value::Map(entries.into_iter().map(|(name, value)| (Value::from(name), value)).collect())
}

/// The concrete type of an empty list or map block whose implied type is dynamic.
fn empty_collection_type(nested: &tf::NestedBlock) -> Type {
    match nested.nesting {
        tf::BlockNesting::Map => Type::object(Vec::<(String, Type)>::new()),
        _ => Type::Tuple(Vec::new()),
    }
}

/// A value in a dynamic slot: `[bin(type JSON), value]`.
pub fn dynamic(ty: &Type, value: Value) -> Value {
    Value::Array(vec![Value::Binary(ty.to_json_string().into_bytes()), value])
}

/// Splits a dynamic slot into its concrete type and value.
fn undynamic(value: &Value, path: &str) -> Result<(Type, Value), ValueError> {
    match value {
        Value::Array(pair) if pair.len() == 2 => {
            let type_bytes = match &pair[0] {
                Value::Binary(bytes) => bytes.as_slice(),
                Value::String(text) => text.as_bytes(),
                _ => return Err(wrong(path, "a dynamic value's type must be bytes")),
            };
            let ty = Type::from_json_bytes(type_bytes).map_err(|err| wrong(path, &err.to_string()))?;
            Ok((ty, pair[1].clone()))
        }
        _ => Err(wrong(path, "a dynamic value must be a [type, value] pair")),
    }
}

fn wrong(path: &str, reason: &str) -> ValueError {
    ValueError::WrongType {
        path: if path.is_empty() { "(root)".to_owned() } else { path.to_owned() },
        reason: reason.to_owned(),
    }
}

fn join(path: &str, step: &str) -> String {
    if path.is_empty() { step.to_owned() } else { format!("{path}.{step}") }
}

/// Reads cty's JSON form of a value of type `ty` (state files, `RawState.json`). Lenient
/// like cty's decoder: missing object attributes are null, numbers and bools may be strings;
/// unlike it, attributes the type does not know are dropped rather than refused, because
/// stored state may hold attributes a schema has since removed.
pub fn from_json(json: &Json, ty: &Type, path: &str) -> Result<Value, ValueError> {
    if json.is_null() {
        return Ok(Value::Nil);
    }
    Ok(match ty {
        Type::String => match json {
            Json::String(text) => Value::from(text.as_str()),
            Json::Number(n) => Value::from(n.to_string()),
            Json::Bool(b) => Value::from(b.to_string()),
            _ => return Err(wrong(path, "expected a string")),
        },
        Type::Number => match json {
            Json::Number(n) => number_from_json(n),
            Json::String(text) => match text.parse::<serde_json::Number>() {
                Ok(n) => number_from_json(&n),
                Err(_) => return Err(wrong(path, "expected a number")),
            },
            _ => return Err(wrong(path, "expected a number")),
        },
        Type::Bool => match json {
            Json::Bool(b) => Value::Boolean(*b),
            Json::String(text) if text == "true" => Value::Boolean(true),
            Json::String(text) if text == "false" => Value::Boolean(false),
            _ => return Err(wrong(path, "expected a bool")),
        },
        Type::List(elem) | Type::Set(elem) => match json {
            Json::Array(items) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| from_json(item, elem, &join(path, &i.to_string())))
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Err(wrong(path, "expected an array")),
        },
        Type::Tuple(elems) => match json {
            Json::Array(items) if items.len() == elems.len() => Value::Array(
                items
                    .iter()
                    .zip(elems)
                    .enumerate()
                    .map(|(i, (item, elem))| from_json(item, elem, &join(path, &i.to_string())))
                    .collect::<Result<_, _>>()?,
            ),
            _ => return Err(wrong(path, "expected an array as long as the tuple type")),
        },
        Type::Map(elem) => match json {
            Json::Object(entries) => {
                let sorted: BTreeMap<&String, &Json> = entries.iter().collect();
                Value::Map(
                    sorted
                        .into_iter()
                        .map(|(key, item)| Ok((Value::from(key.as_str()), from_json(item, elem, &join(path, key))?)))
                        .collect::<Result<_, ValueError>>()?,
                )
            }
            _ => return Err(wrong(path, "expected an object")),
        },
        Type::Object(object) => match json {
            Json::Object(entries) => Value::Map(
                object
                    .attrs
                    .iter()
                    .map(|(name, attr_ty)| {
                        let item = entries.get(name).unwrap_or(&Json::Null);
                        Ok((Value::from(name.as_str()), from_json(item, attr_ty, &join(path, name))?))
                    })
                    .collect::<Result<_, ValueError>>()?,
            ),
            _ => return Err(wrong(path, "expected an object")),
        },
        Type::Dynamic => match (json.get("type"), json.get("value")) {
            (Some(type_json), Some(value_json)) => {
                let concrete = Type::from_json(type_json).map_err(|err| wrong(path, &err.to_string()))?;
                dynamic(&concrete, from_json(value_json, &concrete, path)?)
            }
            _ => return Err(wrong(path, "a dynamic value must be {\"value\": ..., \"type\": ...}")),
        },
    })
}

fn number_from_json(n: &serde_json::Number) -> Value {
    if let Some(i) = n.as_i64() {
        Value::from(i)
    } else if let Some(u) = n.as_u64() {
        Value::from(u)
    } else {
        Value::F64(n.as_f64().unwrap_or(0.0))
    }
}

/// Writes cty's JSON form of `value` of type `ty`. Unknowns cannot be written.
pub fn to_json(value: &Value, ty: &Type, path: &str) -> Result<Json, ValueError> {
    if value.is_nil() {
        return Ok(Json::Null);
    }
    if is_unknown(value) {
        return Err(wrong(path, "value is not known"));
    }
    Ok(match (ty, value) {
        (Type::String, Value::String(text)) => Json::from(text.as_str().unwrap_or_default()),
        (Type::Bool, Value::Boolean(b)) => Json::Bool(*b),
        (Type::Number, Value::Integer(n)) => {
            n.as_i64().map(Json::from).or_else(|| n.as_u64().map(Json::from)).unwrap_or(Json::Null)
        }
        (Type::Number, Value::F64(f)) => serde_json::Number::from_f64(*f).map(Json::Number).unwrap_or(Json::Null),
        (Type::Number, Value::F32(f)) => {
            serde_json::Number::from_f64(f64::from(*f)).map(Json::Number).unwrap_or(Json::Null)
        }
        // A big or decimal number travels as a string; cty's JSON decoder takes it back.
        (Type::Number, Value::String(text)) => Json::from(text.as_str().unwrap_or_default()),
        (Type::List(elem) | Type::Set(elem), Value::Array(items)) => Json::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| to_json(item, elem, &join(path, &i.to_string())))
                .collect::<Result<_, _>>()?,
        ),
        (Type::Tuple(elems), Value::Array(items)) => Json::Array(
            items
                .iter()
                .zip(elems)
                .enumerate()
                .map(|(i, (item, elem))| to_json(item, elem, &join(path, &i.to_string())))
                .collect::<Result<_, _>>()?,
        ),
        (Type::Map(elem), Value::Map(entries)) => Json::Object(
            entries
                .iter()
                .map(|(key, item)| {
                    let key = key.as_str().unwrap_or_default();
                    Ok((key.to_owned(), to_json(item, elem, &join(path, key))?))
                })
                .collect::<Result<_, ValueError>>()?,
        ),
        (Type::Object(object), Value::Map(_)) => Json::Object(
            object
                .attrs
                .iter()
                .map(|(name, attr_ty)| {
                    let item = attr(value, name).unwrap_or(&Value::Nil);
                    Ok((name.clone(), to_json(item, attr_ty, &join(path, name))?))
                })
                .collect::<Result<_, ValueError>>()?,
        ),
        (Type::Dynamic, _) => {
            let (concrete, inner) = undynamic(value, path)?;
            serde_json::json!({"value": to_json(&inner, &concrete, path)?, "type": concrete.to_json()})
        }
        _ => return Err(wrong(path, &format!("the value does not fit type {}", ty.to_json_string()))),
    })
}

/// Reads legacy flatmap state (`name`, `list.#`, `list.0`, `map.%`, `map.key`,
/// `block.0.attr`, set elements under hash keys) into cty's JSON form for type `ty`.
pub fn flatmap_to_json(flatmap: &HashMap<String, String>, ty: &Type) -> Json {
    flat_value(flatmap, ty, "").unwrap_or(Json::Null)
}

fn flat_value(flatmap: &HashMap<String, String>, ty: &Type, prefix: &str) -> Option<Json> {
    let key = |suffix: &str| if prefix.is_empty() { suffix.to_owned() } else { format!("{prefix}.{suffix}") };
    match ty {
        Type::String | Type::Number | Type::Bool | Type::Dynamic => {
            flatmap.get(prefix).map(|text| Json::from(text.as_str()))
        }
        Type::List(elem) | Type::Set(elem) => {
            flatmap.get(&key("#"))?;
            let segments = child_segments(flatmap, prefix, "#");
            Some(Json::Array(segments.iter().filter_map(|segment| flat_value(flatmap, elem, &key(segment))).collect()))
        }
        Type::Tuple(elems) => Some(Json::Array(
            elems
                .iter()
                .enumerate()
                .map(|(i, elem)| flat_value(flatmap, elem, &key(&i.to_string())).unwrap_or(Json::Null))
                .collect(),
        )),
        Type::Map(elem) => {
            flatmap.get(&key("%"))?;
            let segments = child_segments(flatmap, prefix, "%");
            Some(Json::Object(
                segments
                    .iter()
                    .filter_map(|segment| Some((segment.clone(), flat_value(flatmap, elem, &key(segment))?)))
                    .collect(),
            ))
        }
        Type::Object(object) => {
            let fields: serde_json::Map<String, Json> = object
                .attrs
                .iter()
                .filter_map(|(name, attr_ty)| Some((name.clone(), flat_value(flatmap, attr_ty, &key(name))?)))
                .collect();
            (prefix.is_empty() || !fields.is_empty()).then_some(Json::Object(fields))
        }
    }
}

/// The distinct next path segments under `prefix`, numeric ones in numeric order.
fn child_segments(flatmap: &HashMap<String, String>, prefix: &str, count_key: &str) -> Vec<String> {
    let start = format!("{prefix}.");
    let segments: BTreeSet<String> = flatmap
        .keys()
        .filter_map(|key| key.strip_prefix(&start))
        .map(|rest| rest.split('.').next().unwrap_or(rest).to_owned())
        .filter(|segment| segment != count_key)
        .collect();
    let mut segments: Vec<String> = segments.into_iter().collect();
    segments.sort_by_key(|segment| (segment.parse::<u64>().unwrap_or(u64::MAX), segment.clone()));
    segments
}

/// A deterministic value of type `ty` for an attribute named `name` that the provider
/// computes: strings `computed-<name>`, numbers 42, bools true, collections of one element.
pub fn computed_value(ty: &Type, name: &str) -> Value {
    match ty {
        Type::String => Value::from(format!("computed-{name}")),
        Type::Number => Value::from(42),
        Type::Bool => Value::Boolean(true),
        Type::List(elem) | Type::Set(elem) => Value::Array(vec![computed_value(elem, name)]),
        Type::Map(elem) => Value::Map(vec![(Value::from("key"), computed_value(elem, name))]),
        Type::Tuple(elems) => Value::Array(elems.iter().map(|elem| computed_value(elem, name)).collect()),
        Type::Object(object) => Value::Map(
            object
                .attrs
                .iter()
                .map(|(attr, attr_ty)| (Value::from(attr.as_str()), computed_value(attr_ty, attr)))
                .collect(),
        ),
        Type::Dynamic => dynamic(&Type::String, Value::from(format!("computed-{name}"))),
    }
}

/// Replaces every unknown inside `value` (of type `ty`, held by attribute `name`) by
/// [`computed_value`].
pub fn fill_unknowns(value: &mut Value, ty: &Type, name: &str) {
    if is_unknown(value) {
        *value = computed_value(ty, name);
        return;
    }
    match (ty, value) {
        (Type::List(elem) | Type::Set(elem), Value::Array(items)) => {
            items.iter_mut().for_each(|item| fill_unknowns(item, elem, name));
        }
        (Type::Tuple(elems), Value::Array(items)) => {
            items.iter_mut().zip(elems).for_each(|(item, elem)| fill_unknowns(item, elem, name));
        }
        (Type::Map(elem), Value::Map(entries)) => {
            entries.iter_mut().for_each(|(_, item)| fill_unknowns(item, elem, name));
        }
        (Type::Object(object), value @ Value::Map(_)) => {
            for (attr_name, attr_ty) in &object.attrs {
                if let Some(item) = attr_mut(value, attr_name) {
                    fill_unknowns(item, attr_ty, attr_name);
                }
            }
        }
        (Type::Dynamic, Value::Array(pair)) if pair.len() == 2 => {
            if let Ok((concrete, _)) = undynamic(&Value::Array(pair.clone()), "") {
                fill_unknowns(&mut pair[1], &concrete, name);
            }
        }
        _ => {}
    }
}

/// Whether any unknown is left anywhere inside `value`.
pub fn contains_unknown(value: &Value) -> bool {
    match value {
        Value::Ext(..) => true,
        Value::Array(items) => items.iter().any(contains_unknown),
        Value::Map(entries) => entries.iter().any(|(_, item)| contains_unknown(item)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ty(spec: &str) -> Type {
        Type::from_json_bytes(spec.as_bytes()).unwrap()
    }

    #[test]
    fn json_round_trips_through_values_of_every_type() {
        let cases = [
            (r#""string""#, r#""text""#),
            (r#""number""#, "12"),
            (r#""number""#, "1.5"),
            (r#""bool""#, "true"),
            (r#"["list","string"]"#, r#"["a","b"]"#),
            (r#"["set","number"]"#, "[1,2]"),
            (r#"["map","bool"]"#, r#"{"a":true,"b":false}"#),
            (r#"["tuple",["string","number"]]"#, r#"["a",1]"#),
            (r#"["object",{"a":"string","b":"number"}]"#, r#"{"a":"x","b":null}"#),
            (r#""dynamic""#, r#"{"value":["a"],"type":["list","string"]}"#),
        ];
        for (spec, json) in cases {
            let ty = ty(spec);
            let json: Json = serde_json::from_str(json).unwrap();
            let value = from_json(&json, &ty, "").unwrap();
            let bytes = encode(&value);
            assert_eq!(to_json(&decode(&bytes).unwrap(), &ty, "").unwrap(), json, "{spec}");
        }
    }

    #[test]
    fn lenient_json_and_errors_name_the_path() {
        let ty = ty(r#"["object",{"n":"number","b":"bool","gone":"string"}]"#);
        let value = from_json(&serde_json::json!({"n": "7", "b": "true", "extra": 1}), &ty, "").unwrap();
        assert_eq!(to_json(&value, &ty, "").unwrap(), serde_json::json!({"n": 7, "b": true, "gone": null}));
        let err = from_json(&serde_json::json!({"n": [1]}), &ty, "").unwrap_err();
        assert_eq!(err.to_string(), "n: expected a number");
        assert_eq!(to_json(&unknown(), &ty, "").unwrap_err().to_string(), "(root): value is not known");
    }

    #[test]
    fn flatmap_reads_lists_maps_sets_and_blocks() {
        let ty = ty(
            r#"["object",{"id":"string","tags":["map","string"],"names":["list","string"],"ports":["set","number"],"block":["list",["object",{"v":"string"}]]}]"#,
        );
        let flatmap: HashMap<String, String> = [
            ("id", "x"),
            ("tags.%", "1"),
            ("tags.k", "v"),
            ("names.#", "2"),
            ("names.0", "a"),
            ("names.1", "b"),
            ("ports.#", "1"),
            ("ports.12345", "80"),
            ("block.#", "1"),
            ("block.0.v", "inner"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        let json = flatmap_to_json(&flatmap, &ty);
        let value = from_json(&json, &ty, "").unwrap();
        assert_eq!(
            to_json(&value, &ty, "").unwrap(),
            serde_json::json!({"block": [{"v": "inner"}], "id": "x", "names": ["a", "b"], "ports": [80], "tags": {"k": "v"}})
        );
    }

    #[test]
    fn unknowns_are_filled_deterministically_and_refined_unknowns_count() {
        let ty = ty(r#"["object",{"a":"string","l":["list","number"],"d":"dynamic","o":["object",{"x":"bool"}]}]"#);
        // The refined unknown "not null, prefix ab" from the wire format notes.
        let refined = decode(&[0xc7, 0x07, 0x0c, 0x82, 0x01, 0xc2, 0x02, 0xa2, 0x61, 0x62]).unwrap();
        assert!(is_unknown(&refined));
        let mut value = Value::Map(vec![
            (Value::from("a"), refined),
            (Value::from("d"), unknown()),
            (Value::from("l"), Value::Array(vec![Value::from(1), unknown()])),
            (Value::from("o"), unknown()),
        ]);
        fill_unknowns(&mut value, &ty, "");
        assert!(!contains_unknown(&value));
        assert_eq!(
            to_json(&value, &ty, "").unwrap(),
            serde_json::json!({"a": "computed-a", "d": {"value": "computed-d", "type": "string"}, "l": [1, 42], "o": {"x": true}})
        );
    }
}
