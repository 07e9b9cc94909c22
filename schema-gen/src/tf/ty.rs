//! cty types and their JSON type spec.
//!
//! The JSON spec is what travels in schema `type` bytes, function parameter types and the
//! type half of a dynamic value: `"string"`, `["list","number"]`,
//! `["object",{"a":"bool"},["a"]]` (the third element names the optional attributes).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::Value as Json;

/// A cty type. `Dynamic` is cty's `DynamicPseudoType`: "any type, decided by the value".
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    Bool,
    Number,
    String,
    Dynamic,
    List(Box<Type>),
    Set(Box<Type>),
    Map(Box<Type>),
    Object(ObjectType),
    Tuple(Vec<Type>),
}

/// An object type. Attribute names are kept sorted, which is also the order the msgpack and
/// JSON encodings write them in.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectType {
    pub attrs: BTreeMap<String, Type>,
    /// Attributes that may be omitted in a type constraint. Only meaningful in constraints
    /// such as function parameters; a concrete value always has every attribute.
    pub optional: BTreeSet<String>,
}

/// Why a JSON type spec could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid cty type spec {spec}: {reason}")]
pub struct TypeSpecError {
    /// The offending (sub-)spec, as JSON text, cut to a readable length.
    pub spec: String,
    pub reason: &'static str,
}

/// Nesting deeper than this is refused: no real schema comes close, and a bound keeps the
/// recursive parser safe from hostile input.
const MAX_TYPE_DEPTH: usize = 64;

impl Type {
    pub fn list(elem: Type) -> Type {
        Type::List(Box::new(elem))
    }
    pub fn set(elem: Type) -> Type {
        Type::Set(Box::new(elem))
    }
    pub fn map(elem: Type) -> Type {
        Type::Map(Box::new(elem))
    }
    pub fn object<I, S>(attrs: I) -> Type
    where
        I: IntoIterator<Item = (S, Type)>,
        S: Into<String>,
    {
        Type::Object(ObjectType {
            attrs: attrs.into_iter().map(|(k, v)| (k.into(), v)).collect(),
            optional: BTreeSet::new(),
        })
    }

    pub fn is_primitive(&self) -> bool {
        matches!(self, Type::Bool | Type::Number | Type::String)
    }

    /// Whether `Dynamic` appears anywhere inside. Terraform uses this to pick tuple and
    /// object encodings for list and map blocks.
    pub fn has_dynamic(&self) -> bool {
        match self {
            Type::Dynamic => true,
            Type::Bool | Type::Number | Type::String => false,
            Type::List(e) | Type::Set(e) | Type::Map(e) => e.has_dynamic(),
            Type::Object(o) => o.attrs.values().any(Type::has_dynamic),
            Type::Tuple(es) => es.iter().any(Type::has_dynamic),
        }
    }

    /// Reads a JSON type spec from bytes, as found in schema `type` fields.
    pub fn from_json_bytes(bytes: &[u8]) -> Result<Type, TypeSpecError> {
        let json: Json = serde_json::from_slice(bytes).map_err(|_| TypeSpecError {
            spec: abbreviate(&String::from_utf8_lossy(bytes)),
            reason: "not valid JSON",
        })?;
        Type::from_json(&json)
    }

    /// Reads a parsed JSON type spec.
    pub fn from_json(json: &Json) -> Result<Type, TypeSpecError> {
        parse(json, 0)
    }

    /// The JSON type spec, as go-cty writes it (object keys sorted, no spaces).
    pub fn to_json(&self) -> Json {
        match self {
            Type::Bool => Json::from("bool"),
            Type::Number => Json::from("number"),
            Type::String => Json::from("string"),
            Type::Dynamic => Json::from("dynamic"),
            Type::List(e) => Json::Array(vec!["list".into(), e.to_json()]),
            Type::Set(e) => Json::Array(vec!["set".into(), e.to_json()]),
            Type::Map(e) => Json::Array(vec!["map".into(), e.to_json()]),
            Type::Tuple(es) => Json::Array(vec!["tuple".into(), Json::Array(es.iter().map(Type::to_json).collect())]),
            Type::Object(o) => {
                let attrs: serde_json::Map<String, Json> =
                    o.attrs.iter().map(|(k, t)| (k.clone(), t.to_json())).collect();
                let mut spec = vec!["object".into(), Json::Object(attrs)];
                if !o.optional.is_empty() {
                    spec.push(Json::Array(o.optional.iter().map(|s| Json::from(s.as_str())).collect()));
                }
                Json::Array(spec)
            }
        }
    }

    /// [`Type::to_json`] as compact text with object keys sorted, byte-identical to go-cty's
    /// `Type.MarshalJSON`.
    pub fn to_json_string(&self) -> String {
        let mut out = String::new();
        write_json(self, &mut out);
        out
    }
}

fn write_json(ty: &Type, out: &mut String) {
    // Written by hand rather than through serde_json so that key order never depends on the
    // `preserve_order` feature being on or off somewhere in the dependency graph.
    match ty {
        Type::Bool => out.push_str("\"bool\""),
        Type::Number => out.push_str("\"number\""),
        Type::String => out.push_str("\"string\""),
        Type::Dynamic => out.push_str("\"dynamic\""),
        Type::List(e) | Type::Set(e) | Type::Map(e) => {
            let kind = match ty {
                Type::List(_) => "list",
                Type::Set(_) => "set",
                _ => "map",
            };
            out.push_str("[\"");
            out.push_str(kind);
            out.push_str("\",");
            write_json(e, out);
            out.push(']');
        }
        Type::Tuple(es) => {
            out.push_str("[\"tuple\",[");
            for (idx, e) in es.iter().enumerate() {
                if idx > 0 {
                    out.push(',');
                }
                write_json(e, out);
            }
            out.push_str("]]");
        }
        Type::Object(o) => {
            out.push_str("[\"object\",{");
            for (idx, (name, t)) in o.attrs.iter().enumerate() {
                if idx > 0 {
                    out.push(',');
                }
                out.push_str(&Json::from(name.as_str()).to_string());
                out.push(':');
                write_json(t, out);
            }
            out.push('}');
            if !o.optional.is_empty() {
                out.push_str(",[");
                for (idx, name) in o.optional.iter().enumerate() {
                    if idx > 0 {
                        out.push(',');
                    }
                    out.push_str(&Json::from(name.as_str()).to_string());
                }
                out.push(']');
            }
            out.push(']');
        }
    }
}

impl fmt::Display for Type {
    /// Terraform's friendly type names, e.g. `list of string`, used in error messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Bool => f.write_str("bool"),
            Type::Number => f.write_str("number"),
            Type::String => f.write_str("string"),
            Type::Dynamic => f.write_str("dynamic"),
            Type::List(e) => write!(f, "list of {e}"),
            Type::Set(e) => write!(f, "set of {e}"),
            Type::Map(e) => write!(f, "map of {e}"),
            Type::Tuple(_) => f.write_str("tuple"),
            Type::Object(_) => f.write_str("object"),
        }
    }
}

fn parse(json: &Json, depth: usize) -> Result<Type, TypeSpecError> {
    let err = |reason| TypeSpecError { spec: abbreviate(&json.to_string()), reason };
    if depth > MAX_TYPE_DEPTH {
        return Err(err("nested too deeply"));
    }
    match json {
        Json::String(name) => match name.as_str() {
            "bool" => Ok(Type::Bool),
            "number" => Ok(Type::Number),
            "string" => Ok(Type::String),
            "dynamic" => Ok(Type::Dynamic),
            _ => Err(err("unknown primitive type name")),
        },
        Json::Array(items) => {
            let Some(Json::String(kind)) = items.first() else {
                return Err(err("a compound type must start with its kind name"));
            };
            match (kind.as_str(), items.len()) {
                ("list", 2) => Ok(Type::list(parse(&items[1], depth + 1)?)),
                ("set", 2) => Ok(Type::set(parse(&items[1], depth + 1)?)),
                ("map", 2) => Ok(Type::map(parse(&items[1], depth + 1)?)),
                ("tuple", 2) => {
                    let Json::Array(elems) = &items[1] else {
                        return Err(err("tuple element types must be an array"));
                    };
                    let elems = elems.iter().map(|e| parse(e, depth + 1)).collect::<Result<_, _>>()?;
                    Ok(Type::Tuple(elems))
                }
                ("object", 2 | 3) => {
                    let Json::Object(attrs) = &items[1] else {
                        return Err(err("object attribute types must be a JSON object"));
                    };
                    let attrs = attrs.iter().map(|(k, v)| Ok((k.clone(), parse(v, depth + 1)?))).collect::<Result<
                        BTreeMap<_, _>,
                        TypeSpecError,
                    >>(
                    )?;
                    let mut optional = BTreeSet::new();
                    if let Some(names) = items.get(2) {
                        let Json::Array(names) = names else {
                            return Err(err("optional attribute names must be an array"));
                        };
                        for name in names {
                            let Json::String(name) = name else {
                                return Err(err("optional attribute names must be strings"));
                            };
                            if !attrs.contains_key(name) {
                                return Err(err("an optional attribute is not an attribute of the object"));
                            }
                            optional.insert(name.clone());
                        }
                    }
                    Ok(Type::Object(ObjectType { attrs, optional }))
                }
                ("list" | "set" | "map" | "tuple" | "object", _) => Err(err("wrong number of elements")),
                _ => Err(err("unknown compound type kind")),
            }
        }
        _ => Err(err("a type spec must be a string or an array")),
    }
}

fn abbreviate(text: &str) -> String {
    const LIMIT: usize = 120;
    if text.len() <= LIMIT {
        return text.to_owned();
    }
    let mut cut = LIMIT;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    #[track_caller]
    fn check(spec: &str, expect: Expect) {
        let actual = match Type::from_json_bytes(spec.as_bytes()) {
            Ok(ty) => {
                let back = ty.to_json_string();
                assert_eq!(Type::from_json_bytes(back.as_bytes()).as_ref(), Ok(&ty), "round trip of {spec}");
                format!("{back} ({ty})")
            }
            Err(err) => format!("error: {err}"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn type_specs() {
        check(r#""string""#, expect![[r#""string" (string)"#]]);
        check(r#"["list",["set","number"]]"#, expect![[r#"["list",["set","number"]] (list of set of number)"#]]);
        check(r#"["map","dynamic"]"#, expect![[r#"["map","dynamic"] (map of dynamic)"#]]);
        check(
            r#"["object",{"b":"bool","a":["tuple",["string","number"]]}]"#,
            expect![[r#"["object",{"a":["tuple",["string","number"]],"b":"bool"}] (object)"#]],
        );
        check(
            r#"["object",{"a":"string","b":"number"},["b"]]"#,
            expect![[r#"["object",{"a":"string","b":"number"},["b"]] (object)"#]],
        );
    }

    #[test]
    fn bad_type_specs() {
        check(r#""float""#, expect![[r#"error: invalid cty type spec "float": unknown primitive type name"#]]);
        check(r#"["list"]"#, expect![[r#"error: invalid cty type spec ["list"]: wrong number of elements"#]]);
        check(
            r#"["object",{"a":"string"},["z"]]"#,
            expect![[
                r#"error: invalid cty type spec ["object",{"a":"string"},["z"]]: an optional attribute is not an attribute of the object"#
            ]],
        );
        check(
            r#"{"a":1}"#,
            expect![[r#"error: invalid cty type spec {"a":1}: a type spec must be a string or an array"#]],
        );
        check(r#"["list","#, expect![[r#"error: invalid cty type spec ["list",: not valid JSON"#]]);
        let deep = format!("{}\"string\"{}", "[\"list\",".repeat(100), "]".repeat(100));
        assert!(Type::from_json_bytes(deep.as_bytes()).unwrap_err().reason.contains("deeply"));
    }
}
