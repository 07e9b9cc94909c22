//! Reading legacy "flatmap" states (Terraform's `RawState.flatmap`, the pre-0.12
//! `attributes_flat`) as a value of a given object type, following Terraform's
//! `hcl2shim.HCL2ValueFromFlatmap`.
//!
//! Keys are dotted paths: `name`, `list.#` (element count) with `list.0`, `list.1`…,
//! `map.%` (entry count) with `map.key`, nested blocks as `block.0.attr`, set elements under
//! arbitrary hash keys (`set.1234567.attr`). A missing key is null; a missing count makes the
//! collection null; the placeholder [`UNKNOWN_PLACEHOLDER`] marks an unknown value. Map
//! elements are primitives by convention, so everything after `map.` is the key, dots and
//! all.
//!
//! Architecture invariant: knows nothing about where the state comes from.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;

use schema_gen::tf::Type;

use super::number::{Number, NumberError};
use super::path::{Error, ErrorKind, PathStep};
use super::value::{Str, Value};

static DYNAMIC: Type = Type::Dynamic;

/// The string legacy Terraform wrote for an unknown value.
pub const UNKNOWN_PLACEHOLDER: &str = "74D93920-ED26-11E3-AC10-0800200C9A66";

/// Reads a flatmap as a value of the object type `ty`.
pub fn decode(flatmap: &HashMap<String, String>, ty: &Type) -> Result<Value, Error> {
    let Type::Object(object_ty) = ty else {
        return Err(Error::new(ErrorKind::TypeMismatch { expected: "object".to_owned(), found: ty.to_string() }));
    };
    // Sorted, so that the entries under a prefix are one range.
    let entries: BTreeMap<&str, &str> = flatmap.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let reader = Reader { entries };
    let mut attrs = BTreeMap::new();
    for (name, attr_ty) in &object_ty.attrs {
        let attr = reader.value(name, attr_ty).map_err(|err| err.within(PathStep::Attr(name.to_string())))?;
        attrs.insert(name.clone(), attr);
    }
    Ok(Value::object(attrs))
}

struct Reader<'a> {
    entries: BTreeMap<&'a str, &'a str>,
}

impl<'a> Reader<'a> {
    /// The keys that start with `prefix`, in order.
    fn under<'p>(&'p self, prefix: &'p str) -> impl Iterator<Item = &'a str> + 'p {
        self.entries
            .range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
            .map(|(k, _)| *k)
            .take_while(move |k| k.starts_with(prefix))
    }

    fn value(&self, key: &str, ty: &Type) -> Result<Value, Error> {
        match ty {
            Type::Bool | Type::Number | Type::String => self.primitive(key, ty),
            Type::Object(object_ty) => {
                let mut attrs = BTreeMap::new();
                for (name, attr_ty) in &object_ty.attrs {
                    let attr = self
                        .value(&format!("{key}.{name}"), attr_ty)
                        .map_err(|err| err.within(PathStep::Attr(name.to_string())))?;
                    attrs.insert(name.clone(), attr);
                }
                Ok(Value::object(attrs))
            }
            Type::List(_) | Type::Tuple(_) => {
                let Some(count) = self.count(&format!("{key}.#"))? else {
                    return Ok(self.null_or_unknown(&format!("{key}.#"), ty));
                };
                if let Type::Tuple(elem_tys) = ty
                    && count != elem_tys.len()
                {
                    return Err(Error::new(ErrorKind::TupleLength { expected: elem_tys.len(), given: count }));
                }
                let mut elems = Vec::with_capacity(count);
                for idx in 0..count {
                    let elem_ty = match ty {
                        Type::Tuple(elem_tys) => &elem_tys[idx],
                        _ => ty.element_type().unwrap_or(&DYNAMIC),
                    };
                    let elem = self
                        .value(&format!("{key}.{idx}"), elem_ty)
                        .map_err(|err| err.within(PathStep::Index(idx as u64)))?;
                    elems.push(elem);
                }
                Ok(match ty {
                    Type::List(elem_ty) => Value::list_unchecked((**elem_ty).clone(), elems),
                    _ => Value::tuple(elems),
                })
            }
            Type::Set(elem_ty) => {
                let count_key = format!("{key}.#");
                if !self.entries.contains_key(count_key.as_str())
                    || self.entries[count_key.as_str()] == UNKNOWN_PLACEHOLDER
                {
                    return Ok(self.null_or_unknown(&count_key, ty));
                }
                // The count is not needed: the elements are whatever sits under hash keys.
                let prefix = format!("{key}.");
                let hashes: BTreeSet<&str> = self
                    .under(&prefix)
                    .map(|full| &full[prefix.len()..])
                    .filter(|rest| *rest != "#")
                    .map(|rest| rest.split_once('.').map_or(rest, |(hash, _)| hash))
                    .collect();
                let mut elems = Vec::with_capacity(hashes.len());
                for (idx, hash) in hashes.into_iter().enumerate() {
                    let elem = self
                        .value(&format!("{prefix}{hash}"), elem_ty)
                        .map_err(|err| err.within(PathStep::Index(idx as u64)))?;
                    elems.push(elem);
                }
                Ok(Value::set_unchecked((**elem_ty).clone(), elems))
            }
            Type::Map(elem_ty) => {
                let count_key = format!("{key}.%");
                match self.entries.get(count_key.as_str()) {
                    None => return Ok(Value::null(ty.clone())),
                    Some(&UNKNOWN_PLACEHOLDER) => return Ok(Value::unknown(ty.clone())),
                    Some(_) => {}
                }
                let prefix = format!("{key}.");
                let mut elems = Vec::new();
                for full in self.under(&prefix) {
                    let map_key = &full[prefix.len()..];
                    if map_key == "%" {
                        continue;
                    }
                    let elem =
                        self.value(full, elem_ty).map_err(|err| err.within(PathStep::Key(map_key.to_owned())))?;
                    elems.push((Str::from(map_key), elem));
                }
                Ok(Value::map_unchecked((**elem_ty).clone(), elems))
            }
            Type::Dynamic => {
                Err(Error::new(ErrorKind::Malformed("a dynamic value cannot be read from a flatmap".to_owned())))
            }
        }
    }

    fn primitive(&self, key: &str, ty: &Type) -> Result<Value, Error> {
        let Some(&raw) = self.entries.get(key) else {
            return Ok(Value::null(ty.clone()));
        };
        if raw == UNKNOWN_PLACEHOLDER {
            return Ok(Value::unknown(ty.clone()));
        }
        match ty {
            Type::String => Ok(Value::string(raw)),
            // cty's string-to-bool conversion accepts these four spellings.
            Type::Bool => match raw {
                "true" | "1" => Ok(Value::bool(true)),
                "false" | "0" => Ok(Value::bool(false)),
                _ => Err(Error::new(ErrorKind::Required { required: "bool" })),
            },
            _ => Number::parse(raw).map(Value::number).map_err(|err| {
                Error::new(match err {
                    NumberError::Invalid(text) => ErrorKind::InvalidNumber(text),
                    NumberError::OutOfRange(text) => ErrorKind::NumberOutOfRange(text),
                })
            }),
        }
    }

    /// The count under `count_key`; `None` when it is missing or unknown. A count larger than
    /// the number of entries is refused: it cannot describe real elements, and believing it
    /// would let a few bytes of input ask for unbounded work.
    fn count(&self, count_key: &str) -> Result<Option<usize>, Error> {
        let Some(&raw) = self.entries.get(count_key) else { return Ok(None) };
        if raw == UNKNOWN_PLACEHOLDER {
            return Ok(None);
        }
        let count: usize = raw
            .parse()
            .map_err(|_| Error::new(ErrorKind::Malformed(format!("invalid count {raw:?} in {count_key:?}"))))?;
        if count > self.entries.len() {
            return Err(Error::new(ErrorKind::Malformed(format!(
                "count {count} in {count_key:?} is larger than the whole state"
            ))));
        }
        Ok(Some(count))
    }

    fn null_or_unknown(&self, count_key: &str, ty: &Type) -> Value {
        match self.entries.get(count_key) {
            Some(&UNKNOWN_PLACEHOLDER) => Value::unknown(ty.clone()),
            _ => Value::null(ty.clone()),
        }
    }
}
