//! What a Terraform provider declares about itself.
//!
//! The shapes follow the plugin protocol's `Schema` messages. Serialization follows the
//! public `terraform providers schema -json` format, which makes a provider schema a file
//! that tests can keep as golden input and that `schema-gen --terraform` prints.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::ty::Type;

/// A provider's whole schema: the `GetProviderSchema` answer, minus diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProviderSchema {
    pub provider: Schema,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_meta: Option<Schema>,
    #[serde(default, rename = "resource_schemas", skip_serializing_if = "BTreeMap::is_empty")]
    pub resources: BTreeMap<String, Schema>,
    #[serde(default, rename = "data_source_schemas", skip_serializing_if = "BTreeMap::is_empty")]
    pub data_sources: BTreeMap<String, Schema>,
    #[serde(default, rename = "ephemeral_resource_schemas", skip_serializing_if = "BTreeMap::is_empty")]
    pub ephemeral_resources: BTreeMap<String, Schema>,
    #[serde(default, rename = "list_resource_schemas", skip_serializing_if = "BTreeMap::is_empty")]
    pub list_resources: BTreeMap<String, Schema>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub functions: BTreeMap<String, Function>,
    /// Actions (Terraform 1.14): their configuration schemas.
    #[serde(default, rename = "action_schemas", skip_serializing_if = "BTreeMap::is_empty")]
    pub actions: BTreeMap<String, Schema>,
}

/// One resource's, data source's or the provider's configuration schema.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Schema {
    #[serde(default)]
    pub version: i64,
    pub block: Block,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StringKind {
    #[default]
    Plain,
    Markdown,
}

impl StringKind {
    fn is_plain(&self) -> bool {
        *self == StringKind::Plain
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Block {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attributes: BTreeMap<String, Attribute>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub block_types: BTreeMap<String, NestedBlock>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "StringKind::is_plain")]
    pub description_kind: StringKind,
    #[serde(default, skip_serializing_if = "is_false")]
    pub deprecated: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub deprecation_message: String,
    /// Protocol 6.11: the provider may fill in the whole block.
    #[serde(default, skip_serializing_if = "is_false")]
    pub computed: bool,
}

/// An attribute's type: a plain cty type, or (protocol 6) a nested attribute object.
#[derive(Clone, Debug, PartialEq)]
pub enum AttributeType {
    Type(Type),
    Nested(NestedObject),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Attribute {
    #[serde(flatten, with = "attribute_type")]
    pub ty: AttributeType,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "StringKind::is_plain")]
    pub description_kind: StringKind,
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub optional: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub computed: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub sensitive: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub deprecated: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub deprecation_message: String,
    #[serde(default, skip_serializing_if = "is_false")]
    pub write_only: bool,
}

impl Attribute {
    /// A plain attribute of type `ty` with every flag off.
    pub fn new(ty: Type) -> Attribute {
        Attribute {
            ty: AttributeType::Type(ty),
            description: String::new(),
            description_kind: StringKind::Plain,
            required: false,
            optional: false,
            computed: false,
            sensitive: false,
            deprecated: false,
            deprecation_message: String::new(),
            write_only: false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjectNesting {
    Single,
    List,
    Set,
    Map,
}

/// A protocol-6 nested attribute type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NestedObject {
    #[serde(default)]
    pub attributes: BTreeMap<String, Attribute>,
    #[serde(rename = "nesting_mode")]
    pub nesting: ObjectNesting,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub min_items: i64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_items: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockNesting {
    Single,
    Group,
    List,
    Set,
    Map,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NestedBlock {
    #[serde(rename = "nesting_mode")]
    pub nesting: BlockNesting,
    pub block: Block,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub min_items: i64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_items: i64,
}

/// A provider-defined function.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Function {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<Parameter>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variadic_parameter: Option<Parameter>,
    #[serde(with = "type_json")]
    pub return_type: Type,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "StringKind::is_plain")]
    pub description_kind: StringKind,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub deprecation_message: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parameter {
    pub name: String,
    #[serde(with = "type_json")]
    pub r#type: Type,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    #[serde(default, skip_serializing_if = "StringKind::is_plain")]
    pub description_kind: StringKind,
    /// `allow_null_value` on the wire.
    #[serde(default, rename = "is_nullable", skip_serializing_if = "is_false")]
    pub allow_null: bool,
    /// `allow_unknown_values` on the wire. Not part of Terraform's JSON format; kept as an
    /// extension so a schema file holds everything the bridge uses.
    #[serde(default, skip_serializing_if = "is_false")]
    pub allow_unknown: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

/// Serde glue: a [`Type`] as its JSON type spec.
pub(super) mod type_json {
    use super::Type;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(ty: &Type, s: S) -> Result<S::Ok, S::Error> {
        ty.to_json().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Type, D::Error> {
        let json = serde_json::Value::deserialize(d)?;
        Type::from_json(&json).map_err(serde::de::Error::custom)
    }
}

/// Serde glue: an attribute has either `type` or `nested_type`, never both.
mod attribute_type {
    use super::{AttributeType, NestedObject, Type};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    struct Repr {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        r#type: Option<serde_json::Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        nested_type: Option<NestedObject>,
    }

    pub fn serialize<S: Serializer>(ty: &AttributeType, s: S) -> Result<S::Ok, S::Error> {
        let repr = match ty {
            AttributeType::Type(t) => Repr { r#type: Some(t.to_json()), nested_type: None },
            AttributeType::Nested(n) => Repr { r#type: None, nested_type: Some(n.clone()) },
        };
        repr.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<AttributeType, D::Error> {
        let repr = Repr::deserialize(d)?;
        match (repr.r#type, repr.nested_type) {
            (Some(t), None) => Type::from_json(&t).map(AttributeType::Type).map_err(serde::de::Error::custom),
            (None, Some(n)) => Ok(AttributeType::Nested(n)),
            (Some(_), Some(_)) => Err(serde::de::Error::custom("an attribute has both type and nested_type")),
            (None, None) => Err(serde::de::Error::custom("an attribute has neither type nor nested_type")),
        }
    }
}

/// The top level of `terraform providers schema -json`: provider schemas keyed by source
/// address.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProvidersSchemaFile {
    pub format_version: String,
    #[serde(default)]
    pub provider_schemas: BTreeMap<String, ProviderSchema>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn providers_schema_json_round_trips() {
        let text = r#"{
          "format_version": "1.0",
          "provider_schemas": {
            "registry.terraform.io/hashicorp/example": {
              "provider": {"version": 0, "block": {"attributes": {"token": {"type": "string", "optional": true, "sensitive": true}}}},
              "resource_schemas": {
                "example_thing": {"version": 2, "block": {
                  "attributes": {
                    "id": {"type": "string", "computed": true},
                    "tags": {"type": ["map", "string"], "optional": true, "description": "Tags", "description_kind": "markdown"},
                    "rules": {"nested_type": {"nesting_mode": "list", "attributes": {"port": {"type": "number", "required": true}}}, "optional": true}
                  },
                  "block_types": {"timeouts": {"nesting_mode": "single", "block": {"attributes": {"create": {"type": "string", "optional": true}}}}}
                }}
              },
              "functions": {"parse": {"return_type": ["list", "string"], "parameters": [{"name": "input", "type": "string", "is_nullable": true}]}}
            }
          }
        }"#;
        let file: ProvidersSchemaFile = serde_json::from_str(text).unwrap();
        let schema = &file.provider_schemas["registry.terraform.io/hashicorp/example"];
        let thing = &schema.resources["example_thing"];
        assert_eq!(thing.version, 2);
        assert!(matches!(
            thing.block.attributes["rules"].ty,
            AttributeType::Nested(NestedObject { nesting: ObjectNesting::List, .. })
        ));
        assert_eq!(thing.block.attributes["tags"].ty, AttributeType::Type(Type::map(Type::String)));
        assert_eq!(thing.block.block_types["timeouts"].nesting, BlockNesting::Single);
        assert!(schema.functions["parse"].parameters[0].allow_null);
        let again: ProvidersSchemaFile = serde_json::from_str(&serde_json::to_string(&file).unwrap()).unwrap();
        assert_eq!(again, file);
    }

    #[test]
    fn attribute_needs_exactly_one_type() {
        let err = serde_json::from_str::<Attribute>(r#"{"optional": true}"#).unwrap_err();
        assert!(err.to_string().contains("neither type nor nested_type"), "{err}");
        let err = serde_json::from_str::<Attribute>(
            r#"{"type": "string", "nested_type": {"nesting_mode": "single", "attributes": {}}}"#,
        )
        .unwrap_err();
        assert!(err.to_string().contains("both"), "{err}");
    }
}
