//! The JSON encoding of cty values (go-cty's `cty/json`): Terraform's `DynamicValue.json` and
//! the `RawState.json` of stored states.
//!
//! [`encode`] writes `null`, strings, numbers as plain decimals, bools, arrays for lists, sets
//! and tuples, objects for maps and objects, and `{"value": …, "type": …}` for a value in a
//! dynamic slot. Unknown values and infinities have no JSON form and are errors.
//!
//! [`decode`] is lenient the way go-cty is, because old states were written by many versions:
//! numbers may come as strings, bools as `"true"`/`"false"`, strings as numbers or bools;
//! missing object attributes are null; extra attributes are an error. Number text is read
//! exactly, never through f64. Strings are escaped the way serde_json escapes them (go's
//! encoder also escapes `<`, `>` and `&`; both are the same JSON text to a reader).
//!
//! Architecture invariant: knows nothing about where the JSON comes from.

use std::collections::BTreeMap;

use schema_gen::tf::{ObjectType, Type};
use serde_json::value::RawValue;

use super::MAX_DEPTH;
use super::number::{Number, NumberError};
use super::path::{Error, ErrorKind, PathStep};
use super::value::{Str, Value, View, check_attribute_names, normalize_str};

/// Writes `value` as JSON text in the shape of `ty`.
pub fn encode(value: &Value, ty: &Type) -> Result<String, Error> {
    let mut out = String::with_capacity(256);
    encode_value(value, ty, &mut out, 0)?;
    Ok(out)
}

fn push_json_string(text: &str, out: &mut String) {
    // serde_json's escaping of a plain string cannot fail.
    out.push_str(&serde_json::Value::from(text).to_string());
}

fn encode_value(value: &Value, ty: &Type, out: &mut String, depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(Error::new(ErrorKind::TooDeep(MAX_DEPTH)));
    }
    if *ty == Type::Dynamic && value.ty() != Type::Dynamic {
        let own_ty = value.ty();
        out.push_str("{\"value\":");
        encode_value(value, &own_ty, out, depth + 1)?;
        out.push_str(",\"type\":");
        out.push_str(&own_ty.to_json_string());
        out.push('}');
        return Ok(());
    }
    let mismatch = || Err(Error::new(ErrorKind::type_mismatch(ty, &value.ty())));
    match (value.view(), ty) {
        (View::Null(_), _) => {
            value.conforms_to(ty)?;
            out.push_str("null");
        }
        (View::Unknown(..), _) => return Err(Error::new(ErrorKind::UnknownValue)),
        (View::Bool(b), Type::Bool) => out.push_str(if b { "true" } else { "false" }),
        (View::Number(n), Type::Number) => {
            if n.is_infinite() {
                return Err(Error::new(ErrorKind::InfinityInJson));
            }
            out.push_str(&n.to_plain_string());
        }
        (View::String(s), Type::String) => push_json_string(s, out),
        (View::List(_, elems), Type::List(elem_ty)) | (View::Set(_, elems), Type::Set(elem_ty)) => {
            push_joined(out, ['[', ']'], elems.iter().enumerate(), |(idx, elem), out| {
                encode_value(elem, elem_ty, out, depth + 1).map_err(|err| err.within(PathStep::Index(idx as u64)))
            })?;
        }
        (View::Tuple(elems), Type::Tuple(elem_tys)) => {
            if elems.len() != elem_tys.len() {
                return Err(Error::new(ErrorKind::TupleLength { expected: elem_tys.len(), given: elems.len() }));
            }
            push_joined(out, ['[', ']'], elems.iter().zip(elem_tys).enumerate(), |(idx, (elem, elem_ty)), out| {
                encode_value(elem, elem_ty, out, depth + 1).map_err(|err| err.within(PathStep::Index(idx as u64)))
            })?;
        }
        (View::Map(_, elems), Type::Map(elem_ty)) => {
            push_joined(out, ['{', '}'], elems.iter(), |(key, elem), out| {
                push_json_string(key, out);
                out.push(':');
                encode_value(elem, elem_ty, out, depth + 1).map_err(|err| err.within(PathStep::Key(key.to_string())))
            })?;
        }
        (View::Object(attrs), Type::Object(object_ty)) => {
            check_attribute_names(attrs, &object_ty.attrs)?;
            push_joined(
                out,
                ['{', '}'],
                attrs.iter().zip(object_ty.attrs.values()),
                |((name, attr), attr_ty), out| {
                    push_json_string(name, out);
                    out.push(':');
                    encode_value(attr, attr_ty, out, depth + 1)
                        .map_err(|err| err.within(PathStep::Attr(name.to_string())))
                },
            )?;
        }
        _ => return mismatch(),
    }
    Ok(())
}

/// Writes `items` comma-separated between the two `brackets`, each by `write`, as JSON
/// writes arrays and objects (also the Go-style JSON of `lifecycle::config_encoding`).
pub(crate) fn push_joined<T, E>(
    out: &mut String,
    brackets: [char; 2],
    items: impl Iterator<Item = T>,
    mut write: impl FnMut(T, &mut String) -> Result<(), E>,
) -> Result<(), E> {
    out.push(brackets[0]);
    for (idx, item) in items.enumerate() {
        if idx > 0 {
            out.push(',');
        }
        write(item, out)?;
    }
    out.push(brackets[1]);
    Ok(())
}

/// Reads JSON text as a value of type `ty`, leniently (see the module docs).
pub fn decode(bytes: &[u8], ty: &Type) -> Result<Value, Error> {
    // JSON's structure is ASCII, so bytes that are not UTF-8 can only sit inside strings,
    // where Terraform shows them as U+FFFD (see `go_lossy_utf8`).
    let text = crate::cty::go_lossy_utf8(bytes);
    let raw: &RawValue = serde_json::from_str(&text).map_err(malformed)?;
    decode_raw(raw, ty, 0)
}

fn malformed(err: serde_json::Error) -> Error {
    Error::new(ErrorKind::Malformed(err.to_string()))
}

fn number_error(err: NumberError) -> Error {
    Error::new(match err {
        NumberError::Invalid(text) => ErrorKind::InvalidNumber(text),
        NumberError::OutOfRange(text) => ErrorKind::NumberOutOfRange(text),
    })
}

/// Reads one value. Each container level is parsed into its raw parts and each part read by
/// the next call, so number literals reach [`Number::parse`] as written.
fn decode_raw(raw: &RawValue, ty: &Type, depth: usize) -> Result<Value, Error> {
    if depth > MAX_DEPTH {
        return Err(Error::new(ErrorKind::TooDeep(MAX_DEPTH)));
    }
    let text = raw.get().trim();
    let first = text.as_bytes().first().copied().unwrap_or(b' ');
    if first == b'n' {
        return Ok(Value::null(ty.clone()));
    }
    match ty {
        Type::Dynamic => decode_dynamic(text, first, depth),
        Type::Bool | Type::Number | Type::String => decode_primitive(text, first, ty),
        Type::List(elem_ty) | Type::Set(elem_ty) => decode_sequence(text, first, ty, elem_ty, depth),
        Type::Tuple(elem_tys) => decode_tuple(text, first, elem_tys, depth),
        Type::Map(elem_ty) => decode_map(text, first, elem_ty, depth),
        Type::Object(object_ty) => decode_object(text, first, object_ty, depth),
    }
}

// Each kind is read by its own function so that the recursive frame of `decode_raw` stays
// small: recursion goes as deep as `MAX_DEPTH`, on threads whose stacks may be 2 MiB.

fn required(what: &'static str) -> Result<Value, Error> {
    Err(Error::new(ErrorKind::Required { required: what }))
}

fn decode_dynamic(text: &str, first: u8, depth: usize) -> Result<Value, Error> {
    if first != b'{' {
        return required("a dynamic value object with \"value\" and \"type\"");
    }
    let parts: BTreeMap<String, &RawValue> = serde_json::from_str(text).map_err(malformed)?;
    if let Some(extra) = parts.keys().find(|key| *key != "value" && *key != "type") {
        return Err(Error::new(ErrorKind::UnsupportedAttribute(extra.clone())));
    }
    let (Some(value), Some(spec)) = (parts.get("value"), parts.get("type")) else {
        return required("a dynamic value object with \"value\" and \"type\"");
    };
    let ty = Type::from_json_bytes(spec.get().as_bytes()).map_err(|err| Error::new(ErrorKind::TypeSpec(err)))?;
    decode_raw(value, &ty, depth + 1)
}

fn decode_primitive(text: &str, first: u8, ty: &Type) -> Result<Value, Error> {
    let is_number = first == b'-' || first.is_ascii_digit();
    match ty {
        Type::Bool => match first {
            b't' | b'f' => Ok(Value::bool(first == b't')),
            b'"' => match serde_json::from_str::<String>(text).map_err(malformed)?.as_str() {
                "true" => Ok(Value::bool(true)),
                "false" => Ok(Value::bool(false)),
                _ => required("bool"),
            },
            _ => required("bool"),
        },
        Type::Number => {
            if is_number {
                Number::parse(text).map(Value::number).map_err(number_error)
            } else if first == b'"' {
                let text = serde_json::from_str::<String>(text).map_err(malformed)?;
                Number::parse(&text).map(Value::number).map_err(number_error)
            } else {
                required("number")
            }
        }
        _ => match first {
            b'"' => {
                Ok(Value::string_normalized(normalize_str(&serde_json::from_str::<String>(text).map_err(malformed)?)))
            }
            b't' | b'f' => Ok(Value::string(if first == b't' { "true" } else { "false" })),
            _ if is_number => Ok(Value::string(text)),
            _ => required("string"),
        },
    }
}

fn decode_sequence(text: &str, first: u8, ty: &Type, elem_ty: &Type, depth: usize) -> Result<Value, Error> {
    let is_list = matches!(ty, Type::List(_));
    if first != b'[' {
        return required(if is_list { "a list" } else { "a set" });
    }
    let raw_elems: Vec<&RawValue> = serde_json::from_str(text).map_err(malformed)?;
    let mut elems = Vec::with_capacity(raw_elems.len());
    for (idx, raw_elem) in raw_elems.into_iter().enumerate() {
        elems.push(decode_raw(raw_elem, elem_ty, depth + 1).map_err(|err| err.within(PathStep::Index(idx as u64)))?);
    }
    let elem_ty = elem_ty.clone();
    Ok(if is_list { Value::list_unchecked(elem_ty, elems) } else { Value::set_unchecked(elem_ty, elems) })
}

fn decode_tuple(text: &str, first: u8, elem_tys: &[Type], depth: usize) -> Result<Value, Error> {
    if first != b'[' {
        return required("a tuple");
    }
    let raw_elems: Vec<&RawValue> = serde_json::from_str(text).map_err(malformed)?;
    if raw_elems.len() != elem_tys.len() {
        return Err(Error::new(ErrorKind::TupleLength { expected: elem_tys.len(), given: raw_elems.len() }));
    }
    let mut elems = Vec::with_capacity(raw_elems.len());
    for (idx, (raw_elem, elem_ty)) in raw_elems.into_iter().zip(elem_tys).enumerate() {
        elems.push(decode_raw(raw_elem, elem_ty, depth + 1).map_err(|err| err.within(PathStep::Index(idx as u64)))?);
    }
    Ok(Value::tuple(elems))
}

fn decode_map(text: &str, first: u8, elem_ty: &Type, depth: usize) -> Result<Value, Error> {
    if first != b'{' {
        return required("a map");
    }
    let raw_elems: BTreeMap<String, &RawValue> = serde_json::from_str(text).map_err(malformed)?;
    let mut elems = Vec::with_capacity(raw_elems.len());
    for (key, raw_elem) in raw_elems {
        let key = normalize_str(&key);
        let elem =
            decode_raw(raw_elem, elem_ty, depth + 1).map_err(|err| err.within(PathStep::Key(key.to_string())))?;
        elems.push((key, elem));
    }
    Ok(Value::map_unchecked(elem_ty.clone(), elems))
}

fn decode_object(text: &str, first: u8, object_ty: &ObjectType, depth: usize) -> Result<Value, Error> {
    if first != b'{' {
        return required("an object");
    }
    let raw_attrs: BTreeMap<String, &RawValue> = serde_json::from_str(text).map_err(malformed)?;
    if let Some(extra) = raw_attrs.keys().find(|name| !object_ty.attrs.contains_key(*name)) {
        return Err(Error::new(ErrorKind::UnsupportedAttribute(extra.clone())));
    }
    let mut attrs = Vec::with_capacity(object_ty.attrs.len());
    for (name, attr_ty) in &object_ty.attrs {
        let attr = match raw_attrs.get(name) {
            Some(raw_attr) => {
                decode_raw(raw_attr, attr_ty, depth + 1).map_err(|err| err.within(PathStep::Attr(name.to_string())))?
            }
            None => Value::null(attr_ty.clone()),
        };
        attrs.push((Str::from(name.as_str()), attr));
    }
    Ok(Value::object(attrs))
}
