//! Converts a `schema_gen::tf::ProviderSchema` into the `GetProviderSchema` answer of
//! protocol 6 and of protocol 5, and lists its names for `GetMetadata`.
//!
//! Protocol 5 has no nested attributes (`Schema.Object`), so a protocol 5 answer leaves out
//! every resource, data source, ephemeral resource and list resource whose schema uses one,
//! and reports the provider block itself as an error diagnostic if it uses one.
//!
//! Architecture invariant: conversion is pure; it knows nothing about processes, sockets or
//! which RPC is being answered.

use std::collections::HashMap;

use schema_gen::tf;
use tfbridge_proto::{tfplugin5, tfplugin6};

/// The capabilities the fixture advertises in both `GetProviderSchema` and `GetMetadata`.
pub const SERVER_CAPABILITIES: ServerCapabilities =
    ServerCapabilities { plan_destroy: true, get_provider_schema_optional: true, move_resource_state: true };

/// Protocol-neutral server capabilities, mapped to each protocol's message at the edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerCapabilities {
    pub plan_destroy: bool,
    pub get_provider_schema_optional: bool,
    pub move_resource_state: bool,
}

// ---------------------------------------------------------------------------------------
// Protocol 6.

pub fn to_tfplugin6(schema: &tf::ProviderSchema) -> tfplugin6::get_provider_schema::Response {
    let schemas = |map: &std::collections::BTreeMap<String, tf::Schema>| -> HashMap<String, tfplugin6::Schema> {
        map.iter().map(|(name, s)| (name.clone(), schema_v6(s))).collect()
    };
    tfplugin6::get_provider_schema::Response {
        provider: Some(schema_v6(&schema.provider)),
        resource_schemas: schemas(&schema.resources),
        data_source_schemas: schemas(&schema.data_sources),
        diagnostics: Vec::new(),
        provider_meta: schema.provider_meta.as_ref().map(schema_v6),
        server_capabilities: Some(capabilities_v6_of(schema)),
        functions: functions_v6(schema),
        ephemeral_resource_schemas: schemas(&schema.ephemeral_resources),
        list_resource_schemas: schemas(&schema.list_resources),
        state_store_schemas: HashMap::new(),
        action_schemas: schema
            .actions
            .iter()
            .map(|(name, s)| (name.clone(), tfplugin6::ActionSchema { schema: Some(schema_v6(s)) }))
            .collect(),
    }
}

pub fn capabilities_v6() -> tfplugin6::ServerCapabilities {
    tfplugin6::ServerCapabilities {
        plan_destroy: SERVER_CAPABILITIES.plan_destroy,
        get_provider_schema_optional: SERVER_CAPABILITIES.get_provider_schema_optional,
        move_resource_state: SERVER_CAPABILITIES.move_resource_state,
        generate_resource_config: false,
    }
}

/// With `FIXTURE_1_14` (which adds the actions) the fixture also generates resource
/// configuration (see `terraform_1_14`).
fn capabilities_v6_of(schema: &tf::ProviderSchema) -> tfplugin6::ServerCapabilities {
    tfplugin6::ServerCapabilities { generate_resource_config: !schema.actions.is_empty(), ..capabilities_v6() }
}

pub fn functions_v6(schema: &tf::ProviderSchema) -> HashMap<String, tfplugin6::Function> {
    schema.functions.iter().map(|(name, f)| (name.clone(), function_v6(f))).collect()
}

pub fn metadata_v6(schema: &tf::ProviderSchema) -> tfplugin6::get_metadata::Response {
    use tfplugin6::get_metadata as m;
    tfplugin6::get_metadata::Response {
        server_capabilities: Some(capabilities_v6_of(schema)),
        diagnostics: Vec::new(),
        data_sources: schema.data_sources.keys().map(|n| m::DataSourceMetadata { type_name: n.clone() }).collect(),
        resources: schema.resources.keys().map(|n| m::ResourceMetadata { type_name: n.clone() }).collect(),
        functions: schema.functions.keys().map(|n| m::FunctionMetadata { name: n.clone() }).collect(),
        ephemeral_resources: schema
            .ephemeral_resources
            .keys()
            .map(|n| m::EphemeralMetadata { type_name: n.clone() })
            .collect(),
        list_resources: schema
            .list_resources
            .keys()
            .map(|n| m::ListResourceMetadata { type_name: n.clone() })
            .collect(),
        state_stores: Vec::new(),
        actions: schema.actions.keys().map(|n| m::ActionMetadata { type_name: n.clone() }).collect(),
    }
}

fn schema_v6(schema: &tf::Schema) -> tfplugin6::Schema {
    tfplugin6::Schema { version: schema.version, block: Some(block_v6(&schema.block)) }
}

fn block_v6(block: &tf::Block) -> tfplugin6::schema::Block {
    tfplugin6::schema::Block {
        version: 0,
        attributes: block.attributes.iter().map(|(name, a)| attribute_v6(name, a)).collect(),
        block_types: block.block_types.iter().map(|(name, b)| nested_block_v6(name, b)).collect(),
        description: block.description.clone(),
        description_kind: string_kind_v6(block.description_kind) as i32,
        deprecated: block.deprecated,
        deprecation_message: block.deprecation_message.clone(),
        computed: block.computed,
    }
}

fn attribute_v6(name: &str, attr: &tf::Attribute) -> tfplugin6::schema::Attribute {
    let (ty, nested_type) = match &attr.ty {
        tf::AttributeType::Type(ty) => (ty.to_json_string().into_bytes(), None),
        tf::AttributeType::Nested(object) => (Vec::new(), Some(object_v6(object))),
    };
    tfplugin6::schema::Attribute {
        name: name.to_owned(),
        r#type: ty,
        nested_type,
        description: attr.description.clone(),
        required: attr.required,
        optional: attr.optional,
        computed: attr.computed,
        sensitive: attr.sensitive,
        description_kind: string_kind_v6(attr.description_kind) as i32,
        deprecated: attr.deprecated,
        write_only: attr.write_only,
        deprecation_message: attr.deprecation_message.clone(),
    }
}

#[allow(deprecated)] // Object.min_items/max_items are deprecated on the wire but still carried.
fn object_v6(object: &tf::NestedObject) -> tfplugin6::schema::Object {
    use tfplugin6::schema::object::NestingMode;
    let nesting = match object.nesting {
        tf::ObjectNesting::Single => NestingMode::Single,
        tf::ObjectNesting::List => NestingMode::List,
        tf::ObjectNesting::Set => NestingMode::Set,
        tf::ObjectNesting::Map => NestingMode::Map,
    };
    tfplugin6::schema::Object {
        attributes: object.attributes.iter().map(|(name, a)| attribute_v6(name, a)).collect(),
        nesting: nesting as i32,
        min_items: object.min_items,
        max_items: object.max_items,
    }
}

fn nested_block_v6(name: &str, nested: &tf::NestedBlock) -> tfplugin6::schema::NestedBlock {
    use tfplugin6::schema::nested_block::NestingMode;
    let nesting = match nested.nesting {
        tf::BlockNesting::Single => NestingMode::Single,
        tf::BlockNesting::Group => NestingMode::Group,
        tf::BlockNesting::List => NestingMode::List,
        tf::BlockNesting::Set => NestingMode::Set,
        tf::BlockNesting::Map => NestingMode::Map,
    };
    tfplugin6::schema::NestedBlock {
        type_name: name.to_owned(),
        block: Some(block_v6(&nested.block)),
        nesting: nesting as i32,
        min_items: nested.min_items,
        max_items: nested.max_items,
    }
}

fn function_v6(function: &tf::Function) -> tfplugin6::Function {
    let parameter = |p: &tf::Parameter| tfplugin6::function::Parameter {
        name: p.name.clone(),
        r#type: p.r#type.to_json_string().into_bytes(),
        allow_null_value: p.allow_null,
        allow_unknown_values: p.allow_unknown,
        description: p.description.clone(),
        description_kind: string_kind_v6(p.description_kind) as i32,
    };
    tfplugin6::Function {
        parameters: function.parameters.iter().map(parameter).collect(),
        variadic_parameter: function.variadic_parameter.as_ref().map(parameter),
        r#return: Some(tfplugin6::function::Return { r#type: function.return_type.to_json_string().into_bytes() }),
        summary: function.summary.clone(),
        description: function.description.clone(),
        description_kind: string_kind_v6(function.description_kind) as i32,
        deprecation_message: function.deprecation_message.clone(),
    }
}

fn string_kind_v6(kind: tf::StringKind) -> tfplugin6::StringKind {
    match kind {
        tf::StringKind::Plain => tfplugin6::StringKind::Plain,
        tf::StringKind::Markdown => tfplugin6::StringKind::Markdown,
    }
}

// ---------------------------------------------------------------------------------------
// Protocol 5.

/// Whether a block uses a nested attribute anywhere, which protocol 5 cannot express.
pub fn uses_nested_attributes(block: &tf::Block) -> bool {
    block.attributes.values().any(|a| matches!(a.ty, tf::AttributeType::Nested(_)))
        || block.block_types.values().any(|b| uses_nested_attributes(&b.block))
}

pub fn to_tfplugin5(schema: &tf::ProviderSchema) -> tfplugin5::get_provider_schema::Response {
    let schemas = |map: &std::collections::BTreeMap<String, tf::Schema>| -> HashMap<String, tfplugin5::Schema> {
        map.iter()
            .filter(|(_, s)| !uses_nested_attributes(&s.block))
            .map(|(name, s)| (name.clone(), schema_v5(s)))
            .collect()
    };
    let mut diagnostics = Vec::new();
    for (what, block) in [("provider", Some(&schema.provider)), ("provider_meta", schema.provider_meta.as_ref())] {
        if let Some(s) = block
            && uses_nested_attributes(&s.block)
        {
            diagnostics.push(tfplugin5::Diagnostic {
                severity: tfplugin5::diagnostic::Severity::Error as i32,
                summary: format!("The {what} schema uses nested attributes, which protocol 5 cannot express"),
                detail: "Serve this schema with FIXTURE_PROTOCOL=6.".to_owned(),
                attribute: None,
            });
        }
    }
    tfplugin5::get_provider_schema::Response {
        provider: Some(schema_v5(&schema.provider)),
        resource_schemas: schemas(&schema.resources),
        data_source_schemas: schemas(&schema.data_sources),
        diagnostics,
        provider_meta: schema.provider_meta.as_ref().map(schema_v5),
        server_capabilities: Some(capabilities_v5()),
        functions: functions_v5(schema),
        ephemeral_resource_schemas: schemas(&schema.ephemeral_resources),
        list_resource_schemas: schemas(&schema.list_resources),
        action_schemas: HashMap::new(),
    }
}

pub fn capabilities_v5() -> tfplugin5::ServerCapabilities {
    tfplugin5::ServerCapabilities {
        plan_destroy: SERVER_CAPABILITIES.plan_destroy,
        get_provider_schema_optional: SERVER_CAPABILITIES.get_provider_schema_optional,
        move_resource_state: SERVER_CAPABILITIES.move_resource_state,
        generate_resource_config: false,
    }
}

pub fn functions_v5(schema: &tf::ProviderSchema) -> HashMap<String, tfplugin5::Function> {
    schema.functions.iter().map(|(name, f)| (name.clone(), function_v5(f))).collect()
}

pub fn metadata_v5(schema: &tf::ProviderSchema) -> tfplugin5::get_metadata::Response {
    use tfplugin5::get_metadata as m;
    let served = |s: &&tf::Schema| !uses_nested_attributes(&s.block);
    tfplugin5::get_metadata::Response {
        server_capabilities: Some(capabilities_v5()),
        diagnostics: Vec::new(),
        data_sources: schema
            .data_sources
            .iter()
            .filter(|(_, s)| served(s))
            .map(|(n, _)| m::DataSourceMetadata { type_name: n.clone() })
            .collect(),
        resources: schema
            .resources
            .iter()
            .filter(|(_, s)| served(s))
            .map(|(n, _)| m::ResourceMetadata { type_name: n.clone() })
            .collect(),
        functions: schema.functions.keys().map(|n| m::FunctionMetadata { name: n.clone() }).collect(),
        ephemeral_resources: schema
            .ephemeral_resources
            .iter()
            .filter(|(_, s)| served(s))
            .map(|(n, _)| m::EphemeralMetadata { type_name: n.clone() })
            .collect(),
        list_resources: schema
            .list_resources
            .iter()
            .filter(|(_, s)| served(s))
            .map(|(n, _)| m::ListResourceMetadata { type_name: n.clone() })
            .collect(),
        actions: Vec::new(),
    }
}

fn schema_v5(schema: &tf::Schema) -> tfplugin5::Schema {
    tfplugin5::Schema { version: schema.version, block: Some(block_v5(&schema.block)) }
}

fn block_v5(block: &tf::Block) -> tfplugin5::schema::Block {
    tfplugin5::schema::Block {
        version: 0,
        // Nested attributes have no protocol 5 form; callers filter such schemas out first,
        // and the provider block is reported as a diagnostic instead.
        attributes: block
            .attributes
            .iter()
            .filter_map(|(name, a)| match &a.ty {
                tf::AttributeType::Type(ty) => Some(attribute_v5(name, a, ty)),
                tf::AttributeType::Nested(_) => None,
            })
            .collect(),
        block_types: block.block_types.iter().map(|(name, b)| nested_block_v5(name, b)).collect(),
        description: block.description.clone(),
        description_kind: string_kind_v5(block.description_kind) as i32,
        deprecated: block.deprecated,
        deprecation_message: block.deprecation_message.clone(),
    }
}

fn attribute_v5(name: &str, attr: &tf::Attribute, ty: &tf::Type) -> tfplugin5::schema::Attribute {
    tfplugin5::schema::Attribute {
        name: name.to_owned(),
        r#type: ty.to_json_string().into_bytes(),
        description: attr.description.clone(),
        required: attr.required,
        optional: attr.optional,
        computed: attr.computed,
        sensitive: attr.sensitive,
        description_kind: string_kind_v5(attr.description_kind) as i32,
        deprecated: attr.deprecated,
        write_only: attr.write_only,
        deprecation_message: attr.deprecation_message.clone(),
    }
}

fn nested_block_v5(name: &str, nested: &tf::NestedBlock) -> tfplugin5::schema::NestedBlock {
    use tfplugin5::schema::nested_block::NestingMode;
    let nesting = match nested.nesting {
        tf::BlockNesting::Single => NestingMode::Single,
        tf::BlockNesting::Group => NestingMode::Group,
        tf::BlockNesting::List => NestingMode::List,
        tf::BlockNesting::Set => NestingMode::Set,
        tf::BlockNesting::Map => NestingMode::Map,
    };
    tfplugin5::schema::NestedBlock {
        type_name: name.to_owned(),
        block: Some(block_v5(&nested.block)),
        nesting: nesting as i32,
        min_items: nested.min_items,
        max_items: nested.max_items,
    }
}

fn function_v5(function: &tf::Function) -> tfplugin5::Function {
    let parameter = |p: &tf::Parameter| tfplugin5::function::Parameter {
        name: p.name.clone(),
        r#type: p.r#type.to_json_string().into_bytes(),
        allow_null_value: p.allow_null,
        allow_unknown_values: p.allow_unknown,
        description: p.description.clone(),
        description_kind: string_kind_v5(p.description_kind) as i32,
    };
    tfplugin5::Function {
        parameters: function.parameters.iter().map(parameter).collect(),
        variadic_parameter: function.variadic_parameter.as_ref().map(parameter),
        r#return: Some(tfplugin5::function::Return { r#type: function.return_type.to_json_string().into_bytes() }),
        summary: function.summary.clone(),
        description: function.description.clone(),
        description_kind: string_kind_v5(function.description_kind) as i32,
        deprecation_message: function.deprecation_message.clone(),
    }
}

fn string_kind_v5(kind: tf::StringKind) -> tfplugin5::StringKind {
    match kind {
        tf::StringKind::Plain => tfplugin5::StringKind::Plain,
        tf::StringKind::Markdown => tfplugin5::StringKind::Markdown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested_attribute() -> tf::Attribute {
        let object = tf::NestedObject {
            attributes: Default::default(),
            nesting: tf::ObjectNesting::Single,
            min_items: 0,
            max_items: 0,
        };
        tf::Attribute { ty: tf::AttributeType::Nested(object), optional: true, ..tf::Attribute::new(tf::Type::String) }
    }

    #[test]
    fn protocol_5_reports_a_provider_block_with_nested_attributes() {
        let mut schema = tf::ProviderSchema::default();
        schema.provider.block.attributes.insert("settings".to_owned(), nested_attribute());
        schema.provider.block.attributes.insert("name".to_owned(), tf::Attribute::new(tf::Type::String));
        let v5 = to_tfplugin5(&schema);
        let summaries: Vec<&str> = v5.diagnostics.iter().map(|d| d.summary.as_str()).collect();
        assert_eq!(summaries, ["The provider schema uses nested attributes, which protocol 5 cannot express"]);
        let provider_block = v5.provider.unwrap().block.unwrap();
        let names: Vec<&str> = provider_block.attributes.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["name"]);
        // Protocol 6 carries it as it is.
        let v6 = to_tfplugin6(&schema);
        assert!(v6.diagnostics.is_empty());
        assert_eq!(v6.provider.unwrap().block.unwrap().attributes.len(), 2);
    }

    #[test]
    fn protocol_5_leaves_out_schemas_with_nested_attributes_at_any_depth() {
        let mut deep = tf::Block::default();
        deep.attributes.insert("inner".to_owned(), nested_attribute());
        let mut outer = tf::Block::default();
        outer.block_types.insert(
            "wrapper".to_owned(),
            tf::NestedBlock { nesting: tf::BlockNesting::List, block: deep, min_items: 0, max_items: 0 },
        );
        let mut schema = tf::ProviderSchema::default();
        schema.resources.insert("x_deep".to_owned(), tf::Schema { version: 0, block: outer.clone() });
        schema.resources.insert("x_plain".to_owned(), tf::Schema::default());
        schema.data_sources.insert("x_deep".to_owned(), tf::Schema { version: 0, block: outer });
        let v5 = to_tfplugin5(&schema);
        assert_eq!(v5.resource_schemas.keys().collect::<Vec<_>>(), ["x_plain"]);
        assert!(v5.data_source_schemas.is_empty());
        let metadata = metadata_v5(&schema);
        assert_eq!(metadata.resources.iter().map(|r| r.type_name.as_str()).collect::<Vec<_>>(), ["x_plain"]);
        assert_eq!(to_tfplugin6(&schema).resource_schemas.len(), 2);
    }
}
