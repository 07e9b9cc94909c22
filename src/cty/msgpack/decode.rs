//! Reading msgpack as values of a given type.
//!
//! The reader works on a byte slice with [`rmp::Marker`] for classification and reads lengths
//! and payloads itself, so strings are borrowed from the input and every length is checked
//! against what remains before anything is allocated.

use std::borrow::Cow;

use rmp::Marker;
use schema_gen::tf::{ObjectType, Type};

use super::{
    KEY_LENGTH_LOWER, KEY_LENGTH_UPPER, KEY_NULLNESS, KEY_NUMBER_LOWER, KEY_NUMBER_UPPER, KEY_STRING_PREFIX,
    MAX_REFINEMENT_LEN, REFINED_UNKNOWN_EXT,
};
use crate::cty::number::Number;
use crate::cty::path::{Error, ErrorKind, Path, PathStep};
use crate::cty::value::{NumberBound, Refinements, Str, Value, normalize_str};
use crate::cty::{MAX_DEPTH, go_lossy_utf8};

/// Reads `bytes` as one msgpack value of type `ty`. The whole input must be that one value.
pub fn decode(bytes: &[u8], ty: &Type) -> Result<Value, Error> {
    let mut reader = Reader { bytes, pos: 0 };
    let value = decode_value(&mut reader, ty, 0)?;
    if reader.remaining() > 0 {
        return Err(Error::new(ErrorKind::TrailingBytes(reader.remaining())));
    }
    Ok(value)
}

/// The kinds of msgpack value that start with a length.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Prefixed {
    Array,
    Map,
    Str,
    Bin,
    Ext,
}

/// Where a msgpack header keeps its length: in the marker itself, or in the big-endian
/// unsigned integer of 1, 2 or 4 bytes after it.
enum Len {
    Inline(usize),
    U8,
    U16,
    U32,
}

/// The kind and length place of a marker that starts with a length (an extension's length
/// counts its payload, after the one byte of its type).
#[inline]
fn sized(marker: u8) -> Option<(Prefixed, Len)> {
    Some(match marker {
        0x80..=0x8f => (Prefixed::Map, Len::Inline((marker & 0x0f).into())),
        0x90..=0x9f => (Prefixed::Array, Len::Inline((marker & 0x0f).into())),
        0xa0..=0xbf => (Prefixed::Str, Len::Inline((marker & 0x1f).into())),
        0xc4 => (Prefixed::Bin, Len::U8),
        0xc5 => (Prefixed::Bin, Len::U16),
        0xc6 => (Prefixed::Bin, Len::U32),
        0xc7 => (Prefixed::Ext, Len::U8),
        0xc8 => (Prefixed::Ext, Len::U16),
        0xc9 => (Prefixed::Ext, Len::U32),
        0xd4 => (Prefixed::Ext, Len::Inline(1)),
        0xd5 => (Prefixed::Ext, Len::Inline(2)),
        0xd6 => (Prefixed::Ext, Len::Inline(4)),
        0xd7 => (Prefixed::Ext, Len::Inline(8)),
        0xd8 => (Prefixed::Ext, Len::Inline(16)),
        0xd9 => (Prefixed::Str, Len::U8),
        0xda => (Prefixed::Str, Len::U16),
        0xdb => (Prefixed::Str, Len::U32),
        0xdc => (Prefixed::Array, Len::U16),
        0xdd => (Prefixed::Array, Len::U32),
        0xde => (Prefixed::Map, Len::U16),
        0xdf => (Prefixed::Map, Len::U32),
        _ => return None,
    })
}

pub(super) struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

fn end() -> Error {
    Error::new(ErrorKind::UnexpectedEnd)
}

fn required(what: &'static str) -> Error {
    Error::new(ErrorKind::Required { required: what })
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    fn peek(&self) -> Result<Marker, Error> {
        self.peek_byte().map(Marker::from_u8)
    }

    #[inline]
    fn peek_byte(&self) -> Result<u8, Error> {
        self.bytes.get(self.pos).copied().ok_or_else(end)
    }

    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let slice = self.bytes.get(self.pos..).and_then(|rest| rest.get(..n)).ok_or_else(end)?;
        self.pos += n;
        Ok(slice)
    }

    fn take_array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let slice = self.take(N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.take_array::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, Error> {
        Ok(u16::from_be_bytes(self.take_array()?))
    }

    fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_be_bytes(self.take_array()?))
    }

    fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_be_bytes(self.take_array()?))
    }

    /// Consumes the marker peeked before.
    fn skip_marker(&mut self) {
        self.pos += 1;
    }

    /// A capacity for `n` elements that the remaining input could actually hold, each
    /// element taking at least one byte.
    fn capacity_for(&self, n: usize) -> usize {
        n.min(self.remaining())
    }

    /// Reads the header of a `kind` value if the next value is one: its length.
    #[inline]
    fn header(&mut self, kind: Prefixed) -> Result<Option<usize>, Error> {
        let len = match sized(self.peek_byte()?) {
            Some((sized, len)) if sized == kind => len,
            _ => return Ok(None),
        };
        self.skip_marker();
        Ok(Some(match len {
            Len::Inline(n) => n,
            Len::U8 => self.u8()?.into(),
            Len::U16 => self.u16()?.into(),
            Len::U32 => self.u32()? as usize,
        }))
    }

    /// Reads an array header if the next value is an array.
    fn array_len(&mut self) -> Result<Option<usize>, Error> {
        self.header(Prefixed::Array)
    }

    /// Reads a map header if the next value is a map.
    fn map_len(&mut self) -> Result<Option<usize>, Error> {
        self.header(Prefixed::Map)
    }

    /// Reads a string's bytes if the next value is a string.
    fn str_bytes(&mut self) -> Result<Option<&'a [u8]>, Error> {
        self.header(Prefixed::Str)?.map(|len| self.take(len)).transpose()
    }

    /// Reads a string if the next value is one: msgpack str, or bin, which go-cty's reader
    /// (vmihailenco/msgpack's `DecodeString`) takes as a string too; bytes that are not
    /// UTF-8 read as Terraform shows them ([`go_lossy_utf8`]).
    #[inline]
    fn str(&mut self) -> Result<Option<Cow<'a, str>>, Error> {
        Ok(self.bytes_or_str()?.map(go_lossy_utf8))
    }

    /// Reads bin or str bytes (go's msgpack reader accepts either as bytes).
    fn bytes_or_str(&mut self) -> Result<Option<&'a [u8]>, Error> {
        match self.header(Prefixed::Bin)? {
            Some(len) => self.take(len).map(Some),
            None => self.str_bytes(),
        }
    }

    /// Reads an extension if the next value is one: its type and payload.
    fn ext(&mut self) -> Result<Option<(i8, &'a [u8])>, Error> {
        let Some(len) = self.header(Prefixed::Ext)? else { return Ok(None) };
        let ty = self.u8()? as i8;
        Ok(Some((ty, self.take(len)?)))
    }

    /// Reads a bool if the next value is one.
    fn bool(&mut self) -> Result<Option<bool>, Error> {
        let b = match self.peek()? {
            Marker::True => true,
            Marker::False => false,
            _ => return Ok(None),
        };
        self.skip_marker();
        Ok(Some(b))
    }

    /// Reads any msgpack number as a cty number, if the next value is one; decimal strings
    /// are numbers too.
    fn number(&mut self) -> Result<Option<Number>, Error> {
        let number = match self.peek()? {
            marker if is_integer(marker) => self.integer()?,
            Marker::F32 => {
                self.skip_marker();
                finite_or_infinite(f32::from_bits(self.u32()?) as f64)?
            }
            Marker::F64 => {
                self.skip_marker();
                finite_or_infinite(f64::from_bits(self.u64()?))?
            }
            Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => {
                let text = self.str()?.unwrap_or_default();
                Number::parse(&text).map_err(|err| {
                    Error::new(match err {
                        crate::cty::number::NumberError::Invalid(text) => ErrorKind::InvalidNumber(text),
                        crate::cty::number::NumberError::OutOfRange(text) => ErrorKind::NumberOutOfRange(text),
                    })
                })?
            }
            _ => return Ok(None),
        };
        Ok(Some(number))
    }

    /// Reads an integer of any width; the marker was peeked and is an integer marker.
    fn integer(&mut self) -> Result<Number, Error> {
        let marker = self.peek()?;
        self.skip_marker();
        Ok(match marker {
            Marker::FixPos(n) => Number::from_i64(n.into()),
            Marker::FixNeg(n) => Number::from_i64(n.into()),
            Marker::U8 => Number::from_i64(self.u8()?.into()),
            Marker::U16 => Number::from_i64(self.u16()?.into()),
            Marker::U32 => Number::from_i64(self.u32()?.into()),
            Marker::U64 => Number::from_u64(self.u64()?),
            Marker::I8 => Number::from_i64((self.u8()? as i8).into()),
            Marker::I16 => Number::from_i64((self.u16()? as i16).into()),
            Marker::I32 => Number::from_i64((self.u32()? as i32).into()),
            Marker::I64 => Number::from_i64(self.u64()? as i64),
            _ => return Err(required("an integer")),
        })
    }

    /// Skips one value of any kind, for refinement keys this reader does not know.
    fn skip_value(&mut self, depth: usize) -> Result<(), Error> {
        if depth > MAX_DEPTH {
            return Err(Error::new(ErrorKind::TooDeep(MAX_DEPTH)));
        }
        if let Some(n) = self.array_len()? {
            for _ in 0..n {
                self.skip_value(depth + 1)?;
            }
            return Ok(());
        }
        if let Some(n) = self.map_len()? {
            for _ in 0..n {
                self.skip_value(depth + 1)?;
                self.skip_value(depth + 1)?;
            }
            return Ok(());
        }
        if self.bytes_or_str()?.is_some() || self.ext()?.is_some() {
            return Ok(());
        }
        let marker = self.peek()?;
        self.skip_marker();
        let size = match marker {
            Marker::FixPos(_) | Marker::FixNeg(_) | Marker::Null | Marker::True | Marker::False => 0,
            Marker::U8 | Marker::I8 => 1,
            Marker::U16 | Marker::I16 => 2,
            Marker::U32 | Marker::I32 | Marker::F32 => 4,
            Marker::U64 | Marker::I64 | Marker::F64 => 8,
            _ => return Err(Error::new(ErrorKind::Malformed("reserved msgpack marker 0xc1".to_owned()))),
        };
        self.take(size).map(drop)
    }
}

/// Whether a marker starts an integer, of any width and sign.
fn is_integer(marker: Marker) -> bool {
    matches!(
        marker,
        Marker::FixPos(_)
            | Marker::FixNeg(_)
            | Marker::U8
            | Marker::U16
            | Marker::U32
            | Marker::U64
            | Marker::I8
            | Marker::I16
            | Marker::I32
            | Marker::I64
    )
}

fn finite_or_infinite(f: f64) -> Result<Number, Error> {
    Number::from_f64(f).ok_or_else(|| Error::new(ErrorKind::InvalidNumber("NaN".to_owned())))
}

fn decode_value(reader: &mut Reader<'_>, ty: &Type, depth: usize) -> Result<Value, Error> {
    if depth > MAX_DEPTH {
        return Err(Error::new(ErrorKind::TooDeep(MAX_DEPTH)));
    }
    // The common primitives, told by their first byte alone: a fixstr string, a fixint
    // number, a bool. Every other byte takes the general path below.
    let first = reader.peek_byte()?;
    match ty {
        Type::String if first & 0xe0 == 0xa0 => {
            reader.skip_marker();
            let text = go_lossy_utf8(reader.take((first & 0x1f).into())?);
            return Ok(Value::string_normalized(normalize_str(&text)));
        }
        // Positive and negative fixints: the byte is the number, as an i8.
        Type::Number if matches!(first, 0x00..=0x7f | 0xe0..=0xff) => {
            reader.skip_marker();
            return Ok(Value::int((first as i8).into()));
        }
        Type::Bool if matches!(first, 0xc2 | 0xc3) => {
            reader.skip_marker();
            return Ok(Value::bool(first == 0xc3));
        }
        _ => {}
    }
    // Any extension is an unknown value, whatever the type: there are no other extensions.
    if let Some((ext_ty, payload)) = reader.ext()? {
        return decode_unknown(ty, ext_ty, payload);
    }
    if matches!(ty, Type::Dynamic) {
        return decode_dynamic(reader, depth);
    }
    if reader.peek()? == Marker::Null {
        reader.skip_marker();
        return Ok(Value::null(ty.clone()));
    }
    match ty {
        Type::Bool => reader.bool()?.map(Value::bool).ok_or_else(|| required("bool")),
        Type::Number => reader.number()?.map(Value::number).ok_or_else(|| required("number")),
        Type::String => {
            let text = reader.str()?.ok_or_else(|| required("string"))?;
            Ok(Value::string_normalized(normalize_str(&text)))
        }
        Type::List(elem_ty) => decode_sequence(reader, elem_ty, true, depth),
        Type::Set(elem_ty) => decode_sequence(reader, elem_ty, false, depth),
        Type::Map(elem_ty) => decode_map(reader, elem_ty, depth),
        Type::Tuple(elem_tys) => decode_tuple(reader, elem_tys, depth),
        Type::Object(object_ty) => decode_object(reader, object_ty, depth),
        Type::Dynamic => decode_dynamic(reader, depth),
    }
}

// The containers are read by separate functions so that the recursive frame of
// `decode_value` stays small: decoding recursion goes as deep as `MAX_DEPTH`, on threads
// whose stacks may be 2 MiB.

fn decode_sequence(reader: &mut Reader<'_>, elem_ty: &Type, is_list: bool, depth: usize) -> Result<Value, Error> {
    let n = reader.array_len()?.ok_or_else(|| required(if is_list { "a list" } else { "a set" }))?;
    let mut elems = Vec::with_capacity(reader.capacity_for(n));
    for idx in 0..n {
        let elem = decode_value(reader, elem_ty, depth + 1).map_err(|err| err.within(PathStep::Index(idx as u64)))?;
        elems.push(elem);
    }
    let elem_ty = elem_ty.clone();
    Ok(if is_list { Value::list_unchecked(elem_ty, elems) } else { Value::set_unchecked(elem_ty, elems) })
}

fn decode_map(reader: &mut Reader<'_>, elem_ty: &Type, depth: usize) -> Result<Value, Error> {
    let n = reader.map_len()?.ok_or_else(|| required("a map"))?;
    let mut elems = Vec::with_capacity(reader.capacity_for(n));
    for _ in 0..n {
        let key = reader.str()?.ok_or_else(|| Error::new(ErrorKind::NonStringKey))?;
        let key = normalize_str(&key);
        let elem =
            decode_value(reader, elem_ty, depth + 1).map_err(|err| err.within(PathStep::Key(key.to_string())))?;
        elems.push((key, elem));
    }
    Ok(Value::map_unchecked(elem_ty.clone(), elems))
}

fn decode_tuple(reader: &mut Reader<'_>, elem_tys: &[Type], depth: usize) -> Result<Value, Error> {
    let n = reader.array_len()?.ok_or_else(|| required("a tuple"))?;
    if n == 0 {
        // go-cty reads an empty array as the empty tuple, whatever the tuple type.
        return Ok(Value::tuple(Vec::new()));
    }
    if n != elem_tys.len() {
        return Err(Error::new(ErrorKind::TupleLength { expected: elem_tys.len(), given: n }));
    }
    let mut elems = Vec::with_capacity(n);
    for (idx, elem_ty) in elem_tys.iter().enumerate() {
        let elem = decode_value(reader, elem_ty, depth + 1).map_err(|err| err.within(PathStep::Index(idx as u64)))?;
        elems.push(elem);
    }
    Ok(Value::tuple(elems))
}

fn decode_object(reader: &mut Reader<'_>, object_ty: &ObjectType, depth: usize) -> Result<Value, Error> {
    let n = reader.map_len()?.ok_or_else(|| required("an object"))?;
    if n == 0 {
        // go-cty reads an empty map as the empty object, whatever the object type.
        return Ok(Value::empty_object());
    }
    if n != object_ty.attrs.len() {
        return Err(Error::new(ErrorKind::ObjectAttributeCount { expected: object_ty.attrs.len(), given: n }));
    }
    let mut attrs = Vec::with_capacity(n);
    // Encoders write attributes in sorted order, which is the type's order: try the next
    // attribute of the type first and search only when the input is in another order.
    let mut expected = object_ty.attrs.iter();
    let mut in_order = true;
    for _ in 0..n {
        let key = reader.bytes_or_str()?.ok_or_else(|| Error::new(ErrorKind::NonStringKey))?;
        // A key equal to the type's name is valid UTF-8 without checking it.
        let next = if in_order { expected.next().filter(|(ty_name, _)| ty_name.as_bytes() == key) } else { None };
        let (name, attr_ty) = match next {
            Some(found) => found,
            None => {
                in_order = false;
                let name = go_lossy_utf8(key);
                let Some(found) = object_ty.attrs.get_key_value(name.as_ref()) else {
                    return Err(Error::at(
                        Path::root().attr(&name),
                        ErrorKind::UnsupportedAttribute(name.into_owned()),
                    ));
                };
                found
            }
        };
        let attr =
            decode_value(reader, attr_ty, depth + 1).map_err(|err| err.within(PathStep::Attr(name.to_string())))?;
        attrs.push((Str::from(name.as_str()), attr));
    }
    if !in_order {
        attrs.sort_by(|a, b| a.0.cmp(&b.0));
        // With the count right and no unknown names, a repeated name means a missing one.
        if let Some(pair) = attrs.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            let repeated = pair[0].0.to_string();
            let missing = object_ty
                .attrs
                .keys()
                .find(|name| attrs.binary_search_by(|(k, _)| k.as_str().cmp(name.as_str())).is_err());
            return Err(Error::new(ErrorKind::MissingAttribute(missing.cloned().unwrap_or(repeated))));
        }
    }
    Ok(Value::object_unchecked(attrs))
}

/// A dynamic slot: nil, or `[type JSON, value]`.
fn decode_dynamic(reader: &mut Reader<'_>, depth: usize) -> Result<Value, Error> {
    if reader.peek()? == Marker::Null {
        reader.skip_marker();
        return Ok(Value::null(Type::Dynamic));
    }
    if reader.array_len()? != Some(2) {
        return Err(Error::new(ErrorKind::DynamicWrapper));
    }
    let spec = reader.bytes_or_str()?.ok_or_else(|| required("a type specification"))?;
    let ty = Type::from_json_bytes(spec).map_err(|err| Error::new(ErrorKind::TypeSpec(err)))?;
    decode_value(reader, &ty, depth + 1)
}

/// An unknown value from an extension: payloads of at most one byte are plain unknowns;
/// longer ones must be refinements.
fn decode_unknown(ty: &Type, ext_ty: i8, payload: &[u8]) -> Result<Value, Error> {
    if payload.len() <= 1 {
        return Ok(Value::unknown(ty.clone()));
    }
    if ext_ty != REFINED_UNKNOWN_EXT {
        return Err(Error::new(ErrorKind::UnsupportedExtension(ext_ty)));
    }
    if payload.len() > MAX_REFINEMENT_LEN {
        return Err(Error::new(ErrorKind::RefinementTooLarge(payload.len())));
    }
    let invalid = |reason| Error::new(ErrorKind::InvalidRefinement(reason));
    let mut reader = Reader { bytes: payload, pos: 0 };
    let n = reader.map_len()?.ok_or_else(|| invalid("the description must be a map"))?;
    let mut refinements = Refinements::default();
    let mut null = false;
    // Trailing bytes after the map are ignored, as go-cty ignores them.
    for _ in 0..n {
        if !is_integer(reader.peek()?) {
            return Err(invalid("keys must be integers"));
        }
        let key = reader.integer()?.as_i64();
        match key {
            Some(KEY_NULLNESS) => {
                null = reader.bool()?.ok_or_else(|| invalid("nullness must be a bool"))?;
                refinements.not_null = !null;
            }
            Some(KEY_STRING_PREFIX) => {
                let prefix = reader.str()?.ok_or_else(|| invalid("a string prefix must be a string"))?;
                refinements.string_prefix = (!prefix.is_empty()).then(|| prefix.into_owned());
            }
            Some(key @ (KEY_NUMBER_LOWER | KEY_NUMBER_UPPER)) => {
                if reader.array_len()? != Some(2) {
                    return Err(invalid("a number bound must be a two-element array"));
                }
                let value = reader.number()?.ok_or_else(|| invalid("a number bound must be a number"))?;
                let inclusive =
                    reader.bool()?.ok_or_else(|| invalid("a number bound's inclusiveness must be a bool"))?;
                let bound = Some(NumberBound { value, inclusive });
                if key == KEY_NUMBER_LOWER {
                    refinements.number_lower = bound;
                } else {
                    refinements.number_upper = bound;
                }
            }
            Some(key @ (KEY_LENGTH_LOWER | KEY_LENGTH_UPPER)) => {
                // A negative fixint is no length: as_u64 refuses it.
                let length = if is_integer(reader.peek()?) { reader.integer()?.as_u64() } else { None };
                let length = length.ok_or_else(|| invalid("a length bound must be a non-negative integer"))?;
                if key == KEY_LENGTH_LOWER {
                    refinements.length_lower = length;
                } else {
                    // go-cty writes "no upper bound" as the largest int, if at all.
                    refinements.length_upper = (length < i64::MAX as u64).then_some(length);
                }
            }
            // Keys this reader does not know are skipped, to allow for future expansion.
            _ => reader.skip_value(1)?,
        }
    }
    if *ty == Type::Dynamic {
        // An unknown of unknown type cannot be refined; go-cty drops whatever was sent.
        return Ok(Value::unknown(Type::Dynamic));
    }
    if null {
        return Ok(Value::null(ty.clone()));
    }
    Value::unknown_refined(ty.clone(), refinements)
}
