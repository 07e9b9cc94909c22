//! The provider mapping `pulumi convert --from terraform` asks for (GetMapping with key
//! `terraform`): the Go bridge's "marshallable provider info" JSON, which tells the
//! converter each Terraform resource's Pulumi token and property names.
//!
//! The shape is the Go implementation's, reproduced field for field from what it returns for
//! the same providers:
//!
//! - `provider`: the Terraform schema in the bridge's shim form: `schema` (provider
//!   configuration), `resources`, `dataSources` (each `{attribute: field}`) and `functions`.
//!   A field is `{"type": n, "optional"|"required"|"computed"|"sensitive": true,
//!   "element": {"schema": field} | {"resource": {attribute: field}}, "maxItems"|"minItems": n}`
//!   with the shim's type numbers: 1 bool, 3 number, 4 string, 5 list (and set), 6 map (and
//!   single objects), 8 dynamic.
//! - `name`, `version`: the package.
//! - `resources` / `dataSources`: `{tf_name: {"tok", "fields", "idFields"}}`, where `fields`
//!   lists the renamed `id` and the auto-named `name`.
//! - `functions`: `{tf_name: {"tok"}}`.
//!
//! Architecture invariant: pure, like the rest of this crate.

use serde_json::{Map, Value as Json, json};

use crate::tf::{
    Attribute, AttributeType, Block, BlockNesting, Function, NestedObject, ObjectNesting, ProviderSchema, Type,
};
use crate::translate::ProviderNames;

const BOOL: u8 = 1;
const NUMBER: u8 = 3;
const STRING: u8 = 4;
const LIST: u8 = 5;
const MAP: u8 = 6;
const DYNAMIC: u8 = 8;

/// The mapping JSON of a provider named as `names` names it, at `version`.
pub fn provider_mapping(schema: &ProviderSchema, names: &ProviderNames, version: &str) -> Json {
    let mut provider = Map::new();
    if !schema.provider.block.attributes.is_empty() || !schema.provider.block.block_types.is_empty() {
        provider.insert("schema".into(), block_fields(&schema.provider.block));
    }
    let resources: Map<String, Json> =
        names.resources().map(|(tf, _)| (tf.to_owned(), block_fields(&schema.resources[tf].block))).collect();
    if !resources.is_empty() {
        provider.insert("resources".into(), resources.into());
    }
    let data_sources: Map<String, Json> =
        names.data_sources().map(|(tf, _)| (tf.to_owned(), block_fields(&schema.data_sources[tf].block))).collect();
    if !data_sources.is_empty() {
        provider.insert("dataSources".into(), data_sources.into());
    }
    let functions: Map<String, Json> =
        names.functions().map(|(tf, _)| (tf.to_owned(), function(&schema.functions[tf]))).collect();
    if !functions.is_empty() {
        provider.insert("functions".into(), functions.into());
    }

    let mut out = Map::new();
    out.insert("provider".into(), provider.into());
    out.insert("name".into(), names.package_name().into());
    out.insert("version".into(), version.into());
    let resources: Map<String, Json> = names
        .resources()
        .map(|(tf, token)| {
            let props = names.resource_properties(tf, &schema.resources[tf].block);
            let mut fields = Map::new();
            if let Some(name) = props.names.by_tf_name("id").filter(|n| n.pulumi_name != "id") {
                fields.insert("id".into(), json!({"name": name.pulumi_name, "typeomitempty": ""}));
            }
            if props.autonamed
                && let Some(name) = props.names.by_tf_name("name")
            {
                fields.insert(
                    "name".into(),
                    json!({"name": name.pulumi_name, "typeomitempty": "", "default": {"autonamed": true, "isFunc": true}}),
                );
            }
            (tf.to_owned(), json!({"tok": token, "fields": fields, "idFields": null}))
        })
        .collect();
    if !resources.is_empty() {
        out.insert("resources".into(), resources.into());
    }
    let data_sources: Map<String, Json> =
        names.data_sources().map(|(tf, token)| (tf.to_owned(), json!({"tok": token, "fields": {}}))).collect();
    if !data_sources.is_empty() {
        out.insert("dataSources".into(), data_sources.into());
    }
    let functions: Map<String, Json> =
        names.functions().map(|(tf, token)| (tf.to_owned(), json!({"tok": token}))).collect();
    if !functions.is_empty() {
        out.insert("functions".into(), functions.into());
    }
    Json::Object(out)
}

fn block_fields(block: &Block) -> Json {
    let mut fields = Map::new();
    for (name, attr) in &block.attributes {
        fields.insert(name.clone(), attribute(attr));
    }
    for (name, nested) in &block.block_types {
        let mut field = Map::new();
        let (ty, element) = match nested.nesting {
            BlockNesting::List | BlockNesting::Set => (LIST, json!({"resource": block_fields(&nested.block)})),
            BlockNesting::Single | BlockNesting::Group => (MAP, json!({"resource": block_fields(&nested.block)})),
            BlockNesting::Map => (
                MAP,
                json!({"schema": {"type": MAP, "optional": true, "element": {"resource": block_fields(&nested.block)}}}),
            ),
        };
        field.insert("type".into(), ty.into());
        if nested.min_items > 0 {
            field.insert("required".into(), true.into());
        } else {
            field.insert("optional".into(), true.into());
        }
        field.insert("element".into(), element);
        if nested.max_items > 0 {
            field.insert("maxItems".into(), nested.max_items.into());
        }
        if nested.min_items > 0 {
            field.insert("minItems".into(), nested.min_items.into());
        }
        fields.insert(name.clone(), field.into());
    }
    Json::Object(fields)
}

fn attribute(attr: &Attribute) -> Json {
    let mut field = match &attr.ty {
        AttributeType::Type(ty) => type_field(ty),
        AttributeType::Nested(nested) => nested_field(nested),
    };
    for (flag, on) in [
        ("optional", attr.optional),
        ("required", attr.required),
        ("computed", attr.computed),
        ("sensitive", attr.sensitive),
    ] {
        if on {
            field.insert(flag.into(), true.into());
        }
    }
    if attr.deprecated {
        // The shim's fixed text: the Go implementation does not carry the message here.
        field.insert("deprecated".into(), "Deprecated".into());
    }
    // The shim lists `type` first and `element` last; keep that order for readability.
    let mut ordered = Map::new();
    for key in
        ["type", "optional", "required", "computed", "sensitive", "deprecated", "element", "maxItems", "minItems"]
    {
        if let Some(value) = field.remove(key) {
            ordered.insert(key.into(), value);
        }
    }
    Json::Object(ordered)
}

fn nested_field(nested: &NestedObject) -> Map<String, Json> {
    let block = Block { attributes: nested.attributes.clone(), ..Block::default() };
    let resource = json!({"resource": block_fields(&block)});
    let mut field = Map::new();
    match nested.nesting {
        ObjectNesting::Single => {
            field.insert("type".into(), MAP.into());
            field.insert("element".into(), resource);
        }
        ObjectNesting::List | ObjectNesting::Set => {
            field.insert("type".into(), LIST.into());
            field.insert("element".into(), resource);
        }
        ObjectNesting::Map => {
            field.insert("type".into(), MAP.into());
            field.insert("element".into(), json!({"schema": {"type": MAP, "optional": true, "element": resource}}));
        }
    }
    field
}

fn type_field(ty: &Type) -> Map<String, Json> {
    let mut field = Map::new();
    let (code, element) = match ty {
        Type::Bool => (BOOL, None),
        Type::Number => (NUMBER, None),
        Type::String => (STRING, None),
        Type::List(elem) | Type::Set(elem) => (LIST, Some(element(elem))),
        Type::Map(elem) => (MAP, Some(element(elem))),
        Type::Object(object) => {
            let attrs: Map<String, Json> = object
                .attrs
                .iter()
                .map(|(name, ty)| {
                    let mut f = type_field(ty);
                    f.insert("optional".into(), true.into());
                    (name.clone(), Json::Object(f))
                })
                .collect();
            (MAP, Some(json!({"resource": attrs})))
        }
        Type::Tuple(_) | Type::Dynamic => (DYNAMIC, None),
    };
    field.insert("type".into(), code.into());
    if let Some(element) = element {
        field.insert("element".into(), element);
    }
    field
}

fn element(ty: &Type) -> Json {
    match ty {
        Type::Object(_) => {
            let field = type_field(ty);
            field.get("element").cloned().unwrap_or(Json::Null)
        }
        other => json!({"schema": type_field(other)}),
    }
}

fn function(function: &Function) -> Json {
    let mut out = Map::new();
    let parameter = |p: &crate::tf::Parameter| {
        let mut param = Map::new();
        param.insert("name".into(), p.name.clone().into());
        param.insert("type".into(), p.r#type.to_json());
        if !p.description.is_empty() {
            param.insert("description".into(), p.description.clone().into());
        }
        if p.allow_null {
            param.insert("allowNullValue".into(), true.into());
        }
        Json::Object(param)
    };
    if !function.parameters.is_empty() {
        out.insert("parameters".into(), function.parameters.iter().map(parameter).collect());
    }
    if let Some(variadic) = &function.variadic_parameter {
        out.insert("variadicParameter".into(), parameter(variadic));
    }
    out.insert("return".into(), function.return_type.to_json());
    for (key, text) in [
        ("summary", &function.summary),
        ("description", &function.description),
        ("deprecationMessage", &function.deprecation_message),
    ] {
        if !text.is_empty() {
            out.insert(key.into(), text.clone().into());
        }
    }
    Json::Object(out)
}
