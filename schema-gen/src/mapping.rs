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
//! The bytes are the Go implementation's too ([`to_go_json`]): Go's `encoding/json` writes a
//! struct's fields in declaration order, a map's keys sorted, and escapes `<`, `>`, `&`,
//! U+2028 and U+2029 inside strings. The converter would parse either layout, but equal bytes
//! make the comparison with the Go implementation exact and cheap to read when it fails.
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

/// The mapping JSON as the Go implementation's bytes: `mapping` serialized in its own key
/// order (the builders above insert keys in Go's order), with Go's HTML-safe escapes.
pub fn to_go_json(mapping: &Json) -> String {
    let text = mapping.to_string();
    // These characters occur only inside strings in JSON text, so replacing them everywhere
    // escapes exactly the strings, as Go's encoder does.
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// A shim resource: `{attribute or block name: field}`, a Go map, so its keys are sorted
/// across attributes and blocks alike.
fn block_fields(block: &Block) -> Json {
    let mut fields = std::collections::BTreeMap::new();
    for (name, attr) in &block.attributes {
        fields.insert(name.clone(), attribute(attr));
    }
    for (name, nested) in &block.block_types {
        let mut field = Map::new();
        let (ty, element) = match nested.nesting {
            BlockNesting::List | BlockNesting::Set => (LIST, resource_element(block_fields(&nested.block))),
            BlockNesting::Single | BlockNesting::Group => (MAP, resource_element(block_fields(&nested.block))),
            BlockNesting::Map => (
                MAP,
                json!({"schema": {"type": MAP, "optional": true, "element": resource_element(block_fields(&nested.block))}}),
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
    Json::Object(fields.into_iter().collect())
}

/// An element that is a shim resource: `{"resource": fields}`, where Go's `omitempty` drops
/// a resource without fields, leaving `{}`.
fn resource_element(fields: Json) -> Json {
    match &fields {
        Json::Object(map) if map.is_empty() => json!({}),
        _ => json!({"resource": fields}),
    }
}

fn attribute(attr: &Attribute) -> Json {
    let mut field = match &attr.ty {
        AttributeType::Type(ty) => type_field(ty),
        AttributeType::Nested(nested) => nested_field(nested, attr),
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
    Json::Object(shim_field_order(field))
}

/// A shim field's keys in the struct's field order (MarshallableSchemaShim), which Go's
/// encoder keeps.
fn shim_field_order(mut field: Map<String, Json>) -> Map<String, Json> {
    let mut ordered = Map::new();
    for key in [
        "type",
        "optional",
        "required",
        "computed",
        "forceNew",
        "element",
        "maxItems",
        "minItems",
        "deprecated",
        "sensitive",
    ] {
        if let Some(value) = field.remove(key) {
            ordered.insert(key.into(), value);
        }
    }
    ordered
}

fn nested_field(nested: &NestedObject, attr: &Attribute) -> Map<String, Json> {
    let block = Block { attributes: nested.attributes.clone(), ..Block::default() };
    let resource = resource_element(block_fields(&block));
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
            // The map's value schema carries the attribute's own optional and computed flags
            // (a data source's computed map is `computed` inside too), as the Go shim does.
            let mut value = Map::new();
            value.insert("type".into(), MAP.into());
            if attr.optional || !attr.computed {
                value.insert("optional".into(), true.into());
            }
            if attr.computed {
                value.insert("computed".into(), true.into());
            }
            value.insert("element".into(), resource);
            field.insert("type".into(), MAP.into());
            field.insert("element".into(), json!({"schema": value}));
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
                    (name.clone(), Json::Object(shim_field_order(f)))
                })
                .collect();
            (MAP, Some(resource_element(Json::Object(attrs))))
        }
        Type::Tuple(_) | Type::Dynamic => (DYNAMIC, None),
    };
    field.insert("type".into(), code.into());
    if let Some(element) = element {
        field.insert("element".into(), element);
    }
    field
}

/// The element of a collection type: a schema of the element's type, objects included (a
/// `list(object)` is a list of maps of a resource in the shim).
fn element(ty: &Type) -> Json {
    json!({"schema": type_field(ty)})
}

fn function(function: &Function) -> Json {
    let mut out = Map::new();
    let parameter = |p: &crate::tf::Parameter| {
        let mut param = Map::new();
        param.insert("name".into(), p.name.clone().into());
        param.insert("type".into(), p.r#type.to_json());
        // MarshallableFunctionParameterShim's field order.
        if p.allow_null {
            param.insert("allowNullValue".into(), true.into());
        }
        if !p.description.is_empty() {
            param.insert("description".into(), p.description.clone().into());
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

#[cfg(test)]
mod tests {
    use expect_test::expect;
    use serde_json::json;

    use super::*;
    use crate::translate::TokenFilter;

    /// The mapping bytes of a provider given in `terraform providers schema -json` form.
    fn mapping_bytes(package: &str, schema: Json) -> String {
        let schema: ProviderSchema = serde_json::from_value(schema).expect("a provider schema");
        let (names, _) = ProviderNames::new(&schema, package, &TokenFilter { include: &[], exclude: &[] });
        to_go_json(&provider_mapping(&schema, &names, "1.2.3"))
    }

    /// Each case: a resource schema and the Go implementation's bytes for it (the layout of
    /// pulumi-terraform-bridge's `MarshallableProvider`: struct fields in declaration order,
    /// map keys sorted, HTML characters escaped). The tokens are the ones the converter
    /// writes into programs, so a wrong module here is a program that does not compile.
    #[test]
    fn resources_map_as_the_go_implementation_writes_them() {
        let cases = [
            (
                "attributes and blocks sort together; flags in the shim's field order",
                json!({"block": {
                    "attributes": {
                        "zeta": {"type": "string", "optional": true, "sensitive": true, "computed": true},
                        "alpha": {"type": ["set", "number"], "required": true},
                        "id": {"type": "string", "computed": true}
                    },
                    "block_types": {
                        "middle": {"nesting_mode": "list", "max_items": 1, "min_items": 1,
                                   "block": {"attributes": {"b": {"type": "bool", "optional": true}}}}
                    }
                }}),
            ),
            (
                "an empty nested block is `{}`, as Go's omitempty drops an empty resource",
                json!({"block": {"block_types": {"empty": {"nesting_mode": "set", "block": {}}}}}),
            ),
            (
                "an object attribute is a map of a resource, its attributes optional",
                json!({"block": {"attributes": {
                    "obj": {"type": ["object", {"y": "string", "x": "number"}], "optional": true},
                    "name": {"type": "string", "required": true}
                }}}),
            ),
            (
                "a list of objects is a list of maps of a resource (tls_certificate's certificates)",
                json!({"block": {"attributes": {
                    "items": {"type": ["list", ["object", {"b": "bool"}]], "computed": true}
                }}}),
            ),
            (
                "a map-nested attribute's value schema takes the attribute's flags (tfcoremock's data sources)",
                json!({"block": {"attributes": {
                    "by_key": {"nested_type": {"nesting_mode": "map", "attributes": {"v": {"type": "string", "computed": true}}},
                               "computed": true},
                    "opt": {"nested_type": {"nesting_mode": "map", "attributes": {"v": {"type": "string", "optional": true}}},
                            "optional": true}
                }}}),
            ),
        ];
        let mut actual = String::new();
        for (what, resource) in cases {
            let schema = json!({"provider": {"block": {}}, "resource_schemas": {"acme_file_set": resource}});
            actual.push_str(&format!("{what}:\n{}\n", mapping_bytes("acme", schema)));
        }
        expect![[r#"
            attributes and blocks sort together; flags in the shim's field order:
            {"provider":{"resources":{"acme_file_set":{"alpha":{"type":5,"required":true,"element":{"schema":{"type":3}}},"id":{"type":4,"computed":true},"middle":{"type":5,"required":true,"element":{"resource":{"b":{"type":1,"optional":true}}},"maxItems":1,"minItems":1},"zeta":{"type":4,"optional":true,"computed":true,"sensitive":true}}}},"name":"acme","version":"1.2.3","resources":{"acme_file_set":{"tok":"acme:index/fileSet:FileSet","fields":{},"idFields":null}}}
            an empty nested block is `{}`, as Go's omitempty drops an empty resource:
            {"provider":{"resources":{"acme_file_set":{"empty":{"type":5,"optional":true,"element":{}}}}},"name":"acme","version":"1.2.3","resources":{"acme_file_set":{"tok":"acme:index/fileSet:FileSet","fields":{},"idFields":null}}}
            an object attribute is a map of a resource, its attributes optional:
            {"provider":{"resources":{"acme_file_set":{"name":{"type":4,"required":true},"obj":{"type":6,"optional":true,"element":{"resource":{"x":{"type":3,"optional":true},"y":{"type":4,"optional":true}}}}}}},"name":"acme","version":"1.2.3","resources":{"acme_file_set":{"tok":"acme:index/fileSet:FileSet","fields":{"name":{"name":"name","typeomitempty":"","default":{"autonamed":true,"isFunc":true}}},"idFields":null}}}
            a list of objects is a list of maps of a resource (tls_certificate's certificates):
            {"provider":{"resources":{"acme_file_set":{"items":{"type":5,"computed":true,"element":{"schema":{"type":6,"element":{"resource":{"b":{"type":1,"optional":true}}}}}}}}},"name":"acme","version":"1.2.3","resources":{"acme_file_set":{"tok":"acme:index/fileSet:FileSet","fields":{},"idFields":null}}}
            a map-nested attribute's value schema takes the attribute's flags (tfcoremock's data sources):
            {"provider":{"resources":{"acme_file_set":{"by_key":{"type":6,"computed":true,"element":{"schema":{"type":6,"computed":true,"element":{"resource":{"v":{"type":4,"computed":true}}}}}},"opt":{"type":6,"optional":true,"element":{"schema":{"type":6,"optional":true,"element":{"resource":{"v":{"type":4,"optional":true}}}}}}}}},"name":"acme","version":"1.2.3","resources":{"acme_file_set":{"tok":"acme:index/fileSet:FileSet","fields":{},"idFields":null}}}
        "#]].assert_eq(&actual);
    }

    #[test]
    fn strings_are_escaped_as_go_escapes_them() {
        let cases = [
            ("plain", json!("plain")),
            ("<tag> & more", json!("\\u003ctag\\u003e \\u0026 more")),
            ("line\u{2028}para\u{2029}", json!("line\\u2028para\\u2029")),
            ("quote \" and \\ and \n", json!("quote \\\" and \\\\ and \\n")),
        ];
        for (input, expected) in cases {
            let expected = format!("\"{}\"", expected.as_str().unwrap());
            assert_eq!(to_go_json(&json!(input)), expected, "{input:?}");
        }
    }

    #[test]
    fn functions_and_data_sources_keep_go_field_order() {
        let schema = json!({
            "provider": {"block": {"attributes": {"region": {"type": "string", "optional": true}}}},
            "data_source_schemas": {"acme_thing": {"block": {"attributes": {"id": {"type": "string", "computed": true}}}}},
            "functions": {"parse": {
                "parameters": [{"name": "input", "type": "string", "description": "text", "is_nullable": true}],
                "return_type": ["list", "string"],
                "summary": "Parses <text> & more"
            }}
        });
        expect![[r#"{"provider":{"schema":{"region":{"type":4,"optional":true}},"dataSources":{"acme_thing":{"id":{"type":4,"computed":true}}},"functions":{"parse":{"parameters":[{"name":"input","type":"string","allowNullValue":true,"description":"text"}],"return":["list","string"],"summary":"Parses \u003ctext\u003e \u0026 more"}}},"name":"acme","version":"1.2.3","dataSources":{"acme_thing":{"tok":"acme:index/getThing:getThing","fields":{}}},"functions":{"parse":{"tok":"acme:index/parse:parse"}}}"#]].assert_eq(&mapping_bytes("acme", schema));
    }
}
