//! Writing values as msgpack, directed by the schema type.

use rmp::encode::{self as enc, ByteBuf, ValueWriteError};
use schema_gen::tf::Type;

use super::{
    KEY_LENGTH_LOWER, KEY_LENGTH_UPPER, KEY_NULLNESS, KEY_NUMBER_LOWER, KEY_NUMBER_UPPER, KEY_STRING_PREFIX,
    REFINED_UNKNOWN_EXT,
};
use crate::cty::MAX_DEPTH;
use crate::cty::number::Number;
use crate::cty::path::{Error, ErrorKind, PathStep};
use crate::cty::value::{Refinements, Value, View, check_attribute_names};

/// Writes `value` as msgpack in the shape of `ty`. Fails, with the path, where the value does
/// not fit the type, or nests deeper than [`MAX_DEPTH`].
pub fn encode(value: &Value, ty: &Type) -> Result<Vec<u8>, Error> {
    let mut out = ByteBuf::with_capacity(256);
    encode_value(value, ty, &mut out, 0)?;
    Ok(out.into_vec())
}

/// Unwraps the result of writing into a `ByteBuf`, whose error type has no values.
fn ok<T>(res: Result<T, ValueWriteError<std::convert::Infallible>>) -> T {
    match res {
        Ok(v) => v,
    }
}

fn len_u32(len: usize) -> Result<u32, Error> {
    u32::try_from(len).map_err(|_| Error::new(ErrorKind::Malformed(format!("length {len} does not fit msgpack"))))
}

fn encode_value(value: &Value, ty: &Type, out: &mut ByteBuf, depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(Error::new(ErrorKind::TooDeep(MAX_DEPTH)));
    }
    if *ty == Type::Dynamic {
        return encode_dynamic(value, out, depth);
    }
    let mismatch = || Err(Error::new(ErrorKind::type_mismatch(ty, &value.ty())));
    match (value.view(), ty) {
        (View::Unknown(_, refinements), _) => {
            value.conforms_to(ty)?;
            write_unknown(refinements, out);
        }
        (View::Null(_), _) => {
            value.conforms_to(ty)?;
            ok(enc::write_nil(out).map_err(ValueWriteError::InvalidMarkerWrite));
        }
        (View::Bool(b), Type::Bool) => ok(enc::write_bool(out, b).map_err(ValueWriteError::InvalidMarkerWrite)),
        (View::Number(n), Type::Number) => write_number(n, out),
        (View::String(s), Type::String) => ok(enc::write_str(out, s)),
        (View::List(_, elems), Type::List(elem_ty)) | (View::Set(_, elems), Type::Set(elem_ty)) => {
            ok(enc::write_array_len(out, len_u32(elems.len())?));
            for (idx, elem) in elems.iter().enumerate() {
                encode_value(elem, elem_ty, out, depth + 1).map_err(|err| err.within(PathStep::Index(idx as u64)))?;
            }
        }
        (View::Tuple(elems), Type::Tuple(elem_tys)) => {
            if elems.len() != elem_tys.len() {
                return Err(Error::new(ErrorKind::TupleLength { expected: elem_tys.len(), given: elems.len() }));
            }
            ok(enc::write_array_len(out, len_u32(elems.len())?));
            for (idx, (elem, elem_ty)) in elems.iter().zip(elem_tys).enumerate() {
                encode_value(elem, elem_ty, out, depth + 1).map_err(|err| err.within(PathStep::Index(idx as u64)))?;
            }
        }
        (View::Map(_, elems), Type::Map(elem_ty)) => {
            ok(enc::write_map_len(out, len_u32(elems.len())?));
            for (key, elem) in elems {
                ok(enc::write_str(out, key));
                encode_value(elem, elem_ty, out, depth + 1)
                    .map_err(|err| err.within(PathStep::Key(key.to_string())))?;
            }
        }
        (View::Object(attrs), Type::Object(object_ty)) => {
            check_attribute_names(attrs, &object_ty.attrs)?;
            ok(enc::write_map_len(out, len_u32(attrs.len())?));
            // Attributes and their types pair up in byte order of the names, which is the
            // order go-cty writes (Go's sort.Strings).
            for ((name, attr), attr_ty) in attrs.iter().zip(object_ty.attrs.values()) {
                ok(enc::write_str(out, name));
                encode_value(attr, attr_ty, out, depth + 1)
                    .map_err(|err| err.within(PathStep::Attr(name.to_string())))?;
            }
        }
        _ => return mismatch(),
    }
    Ok(())
}

/// A value in a `dynamic` slot: `DynamicVal` and the dynamic null are written bare; anything
/// else as `[type JSON as bin, value as that type]`, so the reader can recover the type.
fn encode_dynamic(value: &Value, out: &mut ByteBuf, depth: usize) -> Result<(), Error> {
    match value.view() {
        View::Null(Type::Dynamic) => ok(enc::write_nil(out).map_err(ValueWriteError::InvalidMarkerWrite)),
        View::Unknown(Type::Dynamic, _) => write_unknown(None, out),
        _ => {
            let own_ty = value.ty();
            ok(enc::write_array_len(out, 2));
            ok(enc::write_bin(out, own_ty.to_json_string().as_bytes()));
            encode_value(value, &own_ty, out, depth + 1)?;
        }
    }
    Ok(())
}

pub(super) fn write_number(n: &Number, out: &mut ByteBuf) {
    if n.is_infinite() {
        let f = if *n > Number::from_i64(0) { f64::INFINITY } else { f64::NEG_INFINITY };
        ok(enc::write_f64(out, f));
    } else if let Some(int) = n.as_i64() {
        ok(enc::write_sint(out, int));
    } else if let Some(f) = n.exact_f64() {
        ok(enc::write_f64(out, f));
    } else {
        ok(enc::write_str(out, &n.to_plain_string()));
    }
}

/// Writes an unknown value: the plain `d4 00 00` unless there is a refinement to carry.
fn write_unknown(refinements: Option<&Refinements>, out: &mut ByteBuf) {
    let payload = refinements.map(refinement_payload).unwrap_or_default();
    if payload.is_empty() {
        ok(enc::write_ext_meta(out, 1, 0));
        out.as_mut_vec().push(0);
    } else {
        // The payload is at most a few hundred bytes, so its length fits u32.
        ok(enc::write_ext_meta(out, payload.len() as u32, REFINED_UNKNOWN_EXT));
        out.as_mut_vec().extend_from_slice(&payload);
    }
}

/// The integer-keyed map describing the refinements, or nothing if none is worth writing.
fn refinement_payload(refinements: &Refinements) -> Vec<u8> {
    let mut body = ByteBuf::new();
    let mut n_entries = 0u32;
    if refinements.not_null {
        n_entries += 1;
        ok(enc::write_sint(&mut body, KEY_NULLNESS));
        ok(enc::write_bool(&mut body, false).map_err(ValueWriteError::InvalidMarkerWrite));
    }
    // Values keep prefixes short enough already (see `Value::unknown_refined`).
    if let Some(prefix) = refinements.string_prefix.as_deref() {
        n_entries += 1;
        ok(enc::write_sint(&mut body, KEY_STRING_PREFIX));
        ok(enc::write_str(&mut body, prefix));
    }
    for (key, bound, unbounded) in [
        (KEY_NUMBER_LOWER, &refinements.number_lower, Number::negative_infinity()),
        (KEY_NUMBER_UPPER, &refinements.number_upper, Number::positive_infinity()),
    ] {
        if let Some(bound) = bound
            && bound.value != unbounded
        {
            n_entries += 1;
            ok(enc::write_sint(&mut body, key));
            ok(enc::write_array_len(&mut body, 2));
            write_number(&bound.value, &mut body);
            ok(enc::write_bool(&mut body, bound.inclusive).map_err(ValueWriteError::InvalidMarkerWrite));
        }
    }
    if refinements.length_lower != 0 {
        n_entries += 1;
        ok(enc::write_sint(&mut body, KEY_LENGTH_LOWER));
        ok(enc::write_uint(&mut body, refinements.length_lower));
    }
    if let Some(upper) = refinements.length_upper
        && upper != i64::MAX as u64
    {
        n_entries += 1;
        ok(enc::write_sint(&mut body, KEY_LENGTH_UPPER));
        ok(enc::write_uint(&mut body, upper));
    }
    if n_entries == 0 {
        return Vec::new();
    }
    let mut payload = ByteBuf::with_capacity(body.as_slice().len() + 1);
    ok(enc::write_map_len(&mut payload, n_entries));
    payload.as_mut_vec().extend_from_slice(body.as_slice());
    payload.into_vec()
}
