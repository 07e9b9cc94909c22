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
    if matches!(ty, Type::Dynamic) {
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
            out.as_mut_vec().push(NIL);
        }
        (View::Bool(b), Type::Bool) => out.as_mut_vec().push(if b { TRUE } else { FALSE }),
        (View::Number(n), Type::Number) => write_number(n, out),
        (View::String(s), Type::String) => write_str(out.as_mut_vec(), s),
        (View::List(_, elems), Type::List(elem_ty)) | (View::Set(_, elems), Type::Set(elem_ty)) => {
            write_container_len(out.as_mut_vec(), len_u32(elems.len())?, ARRAY);
            for (idx, elem) in elems.iter().enumerate() {
                encode_value(elem, elem_ty, out, depth + 1).map_err(|err| err.within(PathStep::Index(idx as u64)))?;
            }
        }
        (View::Tuple(elems), Type::Tuple(elem_tys)) => {
            if elems.len() != elem_tys.len() {
                return Err(Error::new(ErrorKind::TupleLength { expected: elem_tys.len(), given: elems.len() }));
            }
            write_container_len(out.as_mut_vec(), len_u32(elems.len())?, ARRAY);
            for (idx, (elem, elem_ty)) in elems.iter().zip(elem_tys).enumerate() {
                encode_value(elem, elem_ty, out, depth + 1).map_err(|err| err.within(PathStep::Index(idx as u64)))?;
            }
        }
        (View::Map(_, elems), Type::Map(elem_ty)) => {
            write_container_len(out.as_mut_vec(), len_u32(elems.len())?, MAP);
            for (key, elem) in elems {
                write_str(out.as_mut_vec(), key);
                encode_value(elem, elem_ty, out, depth + 1)
                    .map_err(|err| err.within(PathStep::Key(key.to_string())))?;
            }
        }
        (View::Object(attrs), Type::Object(object_ty)) => {
            if attrs.len() != object_ty.attrs.len() {
                check_attribute_names(attrs, &object_ty.attrs)?;
            }
            write_container_len(out.as_mut_vec(), len_u32(attrs.len())?, MAP);
            // Attributes and their types pair up in byte order of the names, which is the
            // order go-cty writes (Go's sort.Strings). The names are checked as they are
            // written, in the one walk over the type's attributes; on any failure the whole
            // check decides the error, so that a wrong name is reported before a wrong value
            // whatever their order.
            for ((name, attr), (ty_name, attr_ty)) in attrs.iter().zip(&object_ty.attrs) {
                if name.as_str() != ty_name.as_str() {
                    check_attribute_names(attrs, &object_ty.attrs)?;
                }
                write_str(out.as_mut_vec(), name);
                encode_value(attr, attr_ty, out, depth + 1).map_err(|err| {
                    check_attribute_names(attrs, &object_ty.attrs)
                        .err()
                        .unwrap_or_else(|| err.within(PathStep::Attr(name.to_string())))
                })?;
            }
        }
        _ => return mismatch(),
    }
    Ok(())
}

const NIL: u8 = 0xc0;
const FALSE: u8 = 0xc2;
const TRUE: u8 = 0xc3;

/// The markers of a container: fix marker base, then the 16- and 32-bit length markers.
const ARRAY: [u8; 3] = [0x90, 0xdc, 0xdd];
const MAP: [u8; 3] = [0x80, 0xde, 0xdf];

/// An array or map header, in the smallest form (as rmp's `write_array_len` and
/// `write_map_len` write it).
#[inline]
fn write_container_len(out: &mut Vec<u8>, len: u32, markers: [u8; 3]) {
    if len < 16 {
        out.push(markers[0] | len as u8);
    } else if let Ok(len) = u16::try_from(len) {
        out.push(markers[1]);
        out.extend_from_slice(&len.to_be_bytes());
    } else {
        out.push(markers[2]);
        out.extend_from_slice(&len.to_be_bytes());
    }
}

/// A string, header and bytes in one go (as rmp's `write_str` writes it: fixstr, str8,
/// str16 or str32).
#[inline]
fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let len = bytes.len() as u32;
    out.reserve(bytes.len() + 5);
    if len < 32 {
        out.push(0xa0 | len as u8);
    } else if len < 256 {
        out.extend_from_slice(&[0xd9, len as u8]);
    } else if let Ok(len) = u16::try_from(len) {
        out.push(0xda);
        out.extend_from_slice(&len.to_be_bytes());
    } else {
        out.push(0xdb);
        out.extend_from_slice(&len.to_be_bytes());
    }
    out.extend_from_slice(bytes);
}

/// An integer in its most compact form (as rmp's `write_sint` writes it).
#[inline]
fn write_int(out: &mut Vec<u8>, n: i64) {
    match n {
        0..=127 => out.push(n as u8),
        -32..=-1 => out.push(n as i8 as u8),
        128..=255 => out.extend_from_slice(&[0xcc, n as u8]),
        256..=65535 => {
            out.push(0xcd);
            out.extend_from_slice(&(n as u16).to_be_bytes());
        }
        65536..=4294967295 => {
            out.push(0xce);
            out.extend_from_slice(&(n as u32).to_be_bytes());
        }
        4294967296.. => {
            out.push(0xcf);
            out.extend_from_slice(&(n as u64).to_be_bytes());
        }
        -128..=-33 => out.extend_from_slice(&[0xd0, n as i8 as u8]),
        -32768..=-129 => {
            out.push(0xd1);
            out.extend_from_slice(&(n as i16).to_be_bytes());
        }
        -2147483648..=-32769 => {
            out.push(0xd2);
            out.extend_from_slice(&(n as i32).to_be_bytes());
        }
        _ => {
            out.push(0xd3);
            out.extend_from_slice(&n.to_be_bytes());
        }
    }
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
    // The cases are disjoint; the common ones come first.
    if let Some(int) = n.as_i64() {
        write_int(out.as_mut_vec(), int);
    } else if let Some(f) = n.exact_f64() {
        ok(enc::write_f64(out, f));
    } else if n.is_infinite() {
        let f = if *n > Number::from_i64(0) { f64::INFINITY } else { f64::NEG_INFINITY };
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
