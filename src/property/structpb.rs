//! Property values to and from `google.protobuf.Struct` (Pulumi's `plugin.MarshalProperties`
//! wire form).
//!
//! Plain values map to the `Value` kinds directly. Special values are objects holding the
//! signature key [`SIGNATURE_KEY`] whose value names the kind (secret, asset, archive,
//! resource reference, output value, byte string); an unrecognized signature is an error.
//! Unknowns are plain strings: any of the seven sentinels decodes as unknown, and an unknown
//! encodes as the sentinel of its kind.
//!
//! A `Value` without a kind (an empty message) reads as null. Nesting is bounded by
//! [`crate::cty::MAX_DEPTH`] (prost also refuses messages nested more than 100 deep).

use std::collections::BTreeMap;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use prost_types::value::Kind;
use prost_types::{ListValue, Struct, Value};

use super::{
    Archive, Asset, AssetOrArchive, Error, ErrorKind, OutputValue, PropertyMap, PropertyPathStep, PropertyValue,
    ResourceId, ResourceReference, UnknownKind,
};
use crate::cty::MAX_DEPTH;

/// The key that marks an object as a special value.
pub const SIGNATURE_KEY: &str = "4dabf18193072939515e22adb298388d";
pub const SECRET_SIGNATURE: &str = "1b47061264138c4ac30d75fd1eb44270";
pub const ASSET_SIGNATURE: &str = "c44067f5952c0a294b673a41bacd8c17";
pub const ARCHIVE_SIGNATURE: &str = "0def7320c3a5731c473e5ecbe6d01bc7";
pub const RESOURCE_REFERENCE_SIGNATURE: &str = "5cf8f73096256a8f31e491e813e4eb8e";
pub const OUTPUT_VALUE_SIGNATURE: &str = "d0e6a833031e9bbcd3f4e8bde6ca49a4";
pub const BYTE_STRING_SIGNATURE: &str = "803fd3297a5875dc03ca845dda5d2a98";

/// Reads the properties of a `Struct`.
pub fn decode_struct(message: &Struct) -> Result<PropertyMap, Error> {
    decode_fields(&message.fields, 0)
}

/// Reads one `Value`.
pub fn decode_value(message: &Value) -> Result<PropertyValue, Error> {
    decode(message, 0)
}

/// Writes properties as a `Struct`.
pub fn encode_struct(props: &PropertyMap) -> Struct {
    Struct { fields: props.iter().map(|(k, v)| (k.clone(), encode_value(v))).collect() }
}

/// Writes one value.
pub fn encode_value(value: &PropertyValue) -> Value {
    let kind = match value {
        PropertyValue::Null => Kind::NullValue(0),
        PropertyValue::Bool(b) => Kind::BoolValue(*b),
        PropertyValue::Number(n) => Kind::NumberValue(*n),
        PropertyValue::String(s) => Kind::StringValue(s.clone()),
        PropertyValue::Array(elems) => Kind::ListValue(ListValue { values: elems.iter().map(encode_value).collect() }),
        PropertyValue::Object(props) => Kind::StructValue(encode_struct(props)),
        PropertyValue::Unknown(kind) => Kind::StringValue(kind.sentinel().to_owned()),
        PropertyValue::Secret(inner) => special(SECRET_SIGNATURE, [("value", Some(encode_value(inner)))]),
        PropertyValue::Asset(asset) => encode_asset(asset),
        PropertyValue::Archive(archive) => encode_archive(archive),
        PropertyValue::ResourceReference(reference) => {
            let id = reference.id.as_ref().map(|id| match id {
                ResourceId::Known(id) => string(id),
                ResourceId::Unknown => string(""),
            });
            special(
                RESOURCE_REFERENCE_SIGNATURE,
                [
                    ("urn", Some(string(&reference.urn))),
                    ("id", id),
                    ("name", reference.name.as_deref().map(string)),
                    ("type", reference.r#type.as_deref().map(string)),
                    ("packageVersion", reference.package_version.as_deref().map(string)),
                ],
            )
        }
        PropertyValue::Output(output) => {
            let dependencies = (!output.dependencies.is_empty()).then(|| Value {
                kind: Some(Kind::ListValue(ListValue {
                    values: output.dependencies.iter().map(|d| string(d)).collect(),
                })),
            });
            special(
                OUTPUT_VALUE_SIGNATURE,
                [
                    ("value", output.value.as_deref().map(encode_value)),
                    ("secret", output.secret.then_some(Value { kind: Some(Kind::BoolValue(true)) })),
                    ("dependencies", dependencies),
                ],
            )
        }
        PropertyValue::Bytes(bytes) => special(BYTE_STRING_SIGNATURE, [("value", Some(string(&BASE64.encode(bytes))))]),
    };
    Value { kind: Some(kind) }
}

/// A JSON value as a property value, with secret signature objects (which the Go
/// implementation writes inside JSON-encoded provider settings) made secrets again. Numbers
/// become f64, as Pulumi's are; the Go implementation reads such JSON into f64 too.
pub fn from_json(json: serde_json::Value) -> PropertyValue {
    use serde_json::Value as Json;
    match json {
        Json::Null => PropertyValue::Null,
        Json::Bool(b) => PropertyValue::Bool(b),
        Json::Number(n) => n.as_f64().map_or(PropertyValue::Null, PropertyValue::Number),
        Json::String(s) => PropertyValue::String(s),
        Json::Array(items) => PropertyValue::Array(items.into_iter().map(from_json).collect()),
        Json::Object(mut map) => {
            if map.get(SIGNATURE_KEY).and_then(Json::as_str) == Some(SECRET_SIGNATURE) {
                let inner = map.remove("value").unwrap_or(Json::Null);
                return PropertyValue::Secret(Box::new(from_json(inner)));
            }
            PropertyValue::Object(map.into_iter().map(|(key, item)| (key, from_json(item))).collect())
        }
    }
}

fn string(text: &str) -> Value {
    Value { kind: Some(Kind::StringValue(text.to_owned())) }
}

/// A signature object with the fields that are present.
fn special<const N: usize>(signature: &str, fields: [(&str, Option<Value>); N]) -> Kind {
    let mut out = BTreeMap::from([(SIGNATURE_KEY.to_owned(), string(signature))]);
    for (name, value) in fields {
        if let Some(value) = value {
            out.insert(name.to_owned(), value);
        }
    }
    Kind::StructValue(Struct { fields: out })
}

fn encode_asset(asset: &Asset) -> Kind {
    special(
        ASSET_SIGNATURE,
        [
            ("hash", asset.hash.as_deref().map(string)),
            ("text", asset.text.as_deref().map(string)),
            ("path", asset.path.as_deref().map(string)),
            ("uri", asset.uri.as_deref().map(string)),
        ],
    )
}

fn encode_archive(archive: &Archive) -> Kind {
    let assets = archive.assets.as_ref().map(|assets| {
        let fields = assets
            .iter()
            .map(|(name, member)| {
                let kind = match member {
                    AssetOrArchive::Asset(asset) => encode_asset(asset),
                    AssetOrArchive::Archive(archive) => encode_archive(archive),
                };
                (name.clone(), Value { kind: Some(kind) })
            })
            .collect();
        Value { kind: Some(Kind::StructValue(Struct { fields })) }
    });
    special(
        ARCHIVE_SIGNATURE,
        [
            ("hash", archive.hash.as_deref().map(string)),
            ("assets", assets),
            ("path", archive.path.as_deref().map(string)),
            ("uri", archive.uri.as_deref().map(string)),
        ],
    )
}

fn too_deep(depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH { Err(Error::new(ErrorKind::TooDeep(MAX_DEPTH))) } else { Ok(()) }
}

fn decode_fields(fields: &BTreeMap<String, Value>, depth: usize) -> Result<PropertyMap, Error> {
    too_deep(depth)?;
    fields
        .iter()
        .map(|(key, value)| {
            let value = decode(value, depth + 1).map_err(|err| err.within(PropertyPathStep::Key(key.clone())))?;
            Ok((key.clone(), value))
        })
        .collect()
}

fn decode(message: &Value, depth: usize) -> Result<PropertyValue, Error> {
    too_deep(depth)?;
    Ok(match &message.kind {
        None | Some(Kind::NullValue(_)) => PropertyValue::Null,
        Some(Kind::BoolValue(b)) => PropertyValue::Bool(*b),
        Some(Kind::NumberValue(n)) => PropertyValue::Number(*n),
        Some(Kind::StringValue(s)) => match UnknownKind::from_sentinel(s) {
            Some(kind) => PropertyValue::Unknown(kind),
            None => PropertyValue::String(s.clone()),
        },
        Some(Kind::ListValue(list)) => {
            let mut elems = Vec::with_capacity(list.values.len());
            for (idx, elem) in list.values.iter().enumerate() {
                elems.push(decode(elem, depth + 1).map_err(|err| err.within(PropertyPathStep::Index(idx)))?);
            }
            PropertyValue::Array(elems)
        }
        Some(Kind::StructValue(object)) => match object.fields.get(SIGNATURE_KEY) {
            None => PropertyValue::Object(decode_fields(&object.fields, depth)?),
            Some(signature) => decode_special(signature, &object.fields, depth)?,
        },
    })
}

/// The fields of one signature object, read with errors that name the field.
struct Fields<'a> {
    fields: &'a BTreeMap<String, Value>,
}

impl<'a> Fields<'a> {
    fn get(&self, name: &'static str) -> Option<&'a Value> {
        self.fields.get(name)
    }

    fn string(&self, name: &'static str) -> Result<Option<String>, Error> {
        match self.get(name).map(|v| &v.kind) {
            None => Ok(None),
            Some(Some(Kind::StringValue(s))) => Ok(Some(s.clone())),
            Some(_) => Err(field_type(name, "a string")),
        }
    }

    fn required_string(&self, name: &'static str) -> Result<String, Error> {
        self.string(name)?.ok_or_else(|| Error::new(ErrorKind::MissingField(name)))
    }
}

fn field_type(field: &str, expected: &'static str) -> Error {
    Error::new(ErrorKind::FieldType { field: field.to_owned(), expected })
        .within(PropertyPathStep::Key(field.to_owned()))
}

fn decode_special(signature: &Value, fields: &BTreeMap<String, Value>, depth: usize) -> Result<PropertyValue, Error> {
    let Some(Kind::StringValue(signature)) = &signature.kind else {
        return Err(Error::new(ErrorKind::SignatureNotString));
    };
    let fields = Fields { fields };
    Ok(match signature.as_str() {
        SECRET_SIGNATURE => {
            let inner = fields.get("value").ok_or_else(|| Error::new(ErrorKind::MissingField("value")))?;
            let inner =
                decode(inner, depth + 1).map_err(|err| err.within(PropertyPathStep::Key("value".to_owned())))?;
            PropertyValue::Secret(Box::new(inner))
        }
        ASSET_SIGNATURE => PropertyValue::Asset(decode_asset(&fields)?),
        ARCHIVE_SIGNATURE => PropertyValue::Archive(decode_archive(&fields, depth)?),
        RESOURCE_REFERENCE_SIGNATURE => {
            let id = fields.string("id")?.map(|id| {
                if id.is_empty() || UnknownKind::from_sentinel(&id).is_some() {
                    ResourceId::Unknown
                } else {
                    ResourceId::Known(id)
                }
            });
            PropertyValue::ResourceReference(ResourceReference {
                urn: fields.required_string("urn")?,
                id,
                name: fields.string("name")?,
                r#type: fields.string("type")?,
                package_version: fields.string("packageVersion")?,
            })
        }
        OUTPUT_VALUE_SIGNATURE => {
            let value = match fields.get("value") {
                None => None,
                Some(inner) => Some(Box::new(
                    decode(inner, depth + 1).map_err(|err| err.within(PropertyPathStep::Key("value".to_owned())))?,
                )),
            };
            let secret = match fields.get("secret").map(|v| &v.kind) {
                None => false,
                Some(Some(Kind::BoolValue(b))) => *b,
                Some(_) => return Err(field_type("secret", "a bool")),
            };
            let dependencies = match fields.get("dependencies").map(|v| &v.kind) {
                None => Vec::new(),
                Some(Some(Kind::ListValue(list))) => list
                    .values
                    .iter()
                    .enumerate()
                    .map(|(idx, dep)| match &dep.kind {
                        Some(Kind::StringValue(urn)) => Ok(urn.clone()),
                        _ => Err(Error::new(ErrorKind::FieldType {
                            field: "dependencies".to_owned(),
                            expected: "a string",
                        })
                        .within(PropertyPathStep::Index(idx))
                        .within(PropertyPathStep::Key("dependencies".to_owned()))),
                    })
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(field_type("dependencies", "an array of strings")),
            };
            PropertyValue::Output(OutputValue { value, secret, dependencies })
        }
        BYTE_STRING_SIGNATURE => {
            let encoded = fields.required_string("value")?;
            let bytes = BASE64
                .decode(encoded)
                .map_err(|_| Error::new(ErrorKind::InvalidBase64).within(PropertyPathStep::Key("value".to_owned())))?;
            PropertyValue::Bytes(bytes)
        }
        other => return Err(Error::new(ErrorKind::UnrecognizedSignature(other.to_owned()))),
    })
}

fn decode_asset(fields: &Fields<'_>) -> Result<Asset, Error> {
    Ok(Asset {
        hash: fields.string("hash")?,
        text: fields.string("text")?,
        path: fields.string("path")?,
        uri: fields.string("uri")?,
    })
}

fn decode_archive(fields: &Fields<'_>, depth: usize) -> Result<Archive, Error> {
    too_deep(depth)?;
    let assets = match fields.get("assets").map(|v| &v.kind) {
        None => None,
        Some(Some(Kind::StructValue(members))) => {
            let mut assets = BTreeMap::new();
            for (name, member) in &members.fields {
                let member = decode_archive_member(member, depth + 1).map_err(|err| {
                    err.within(PropertyPathStep::Key(name.clone())).within(PropertyPathStep::Key("assets".to_owned()))
                })?;
                assets.insert(name.clone(), member);
            }
            Some(assets)
        }
        Some(_) => return Err(field_type("assets", "an object")),
    };
    Ok(Archive { hash: fields.string("hash")?, assets, path: fields.string("path")?, uri: fields.string("uri")? })
}

fn decode_archive_member(member: &Value, depth: usize) -> Result<AssetOrArchive, Error> {
    let not_member =
        || Error::new(ErrorKind::FieldType { field: "assets".to_owned(), expected: "an asset or archive" });
    let Some(Kind::StructValue(object)) = &member.kind else { return Err(not_member()) };
    let fields = Fields { fields: &object.fields };
    match object.fields.get(SIGNATURE_KEY).map(|v| &v.kind) {
        Some(Some(Kind::StringValue(sig))) if sig == ASSET_SIGNATURE => {
            Ok(AssetOrArchive::Asset(decode_asset(&fields)?))
        }
        Some(Some(Kind::StringValue(sig))) if sig == ARCHIVE_SIGNATURE => {
            Ok(AssetOrArchive::Archive(decode_archive(&fields, depth)?))
        }
        _ => Err(not_member()),
    }
}
