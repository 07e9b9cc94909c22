//! Converts a `schema_gen::tf::ProviderSchema` into the `GetProviderSchema` answer of
//! protocol 6 and of protocol 5, and lists its names for `GetMetadata`.
//!
//! Protocol 5 has no nested attributes (`Schema.Object`), so a protocol 5 answer leaves out
//! every resource, data source, ephemeral resource and list resource whose schema uses one,
//! and reports the provider block itself as an error diagnostic if it uses one.
//!
//! Architecture invariant: conversion is pure; it knows nothing about processes, sockets or
//! which RPC is being answered.

use std::collections::{BTreeMap, HashMap};

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

/// The schemas of `map` that `served` keeps, converted by `convert`.
fn schemas<S>(
    map: &BTreeMap<String, tf::Schema>,
    served: fn(&tf::Schema) -> bool,
    convert: fn(&tf::Schema) -> S,
) -> HashMap<String, S> {
    map.iter().filter(|(_, s)| served(s)).map(|(name, s)| (name.clone(), convert(s))).collect()
}

/// The names of `map` that `served` keeps, as `GetMetadata` lists them.
fn names<M>(map: &BTreeMap<String, tf::Schema>, served: fn(&tf::Schema) -> bool, metadata: fn(String) -> M) -> Vec<M> {
    map.iter().filter(|(_, s)| served(s)).map(|(name, _)| metadata(name.clone())).collect()
}

/// Protocol 6 serves every schema.
fn all(_schema: &tf::Schema) -> bool {
    true
}

/// Whether protocol 5 can serve a schema (it has no nested attributes).
fn served_v5(schema: &tf::Schema) -> bool {
    !uses_nested_attributes(&schema.block)
}

/// The conversions both protocols write the same way, over their own generated types (`pb`):
/// the way `src/tfplugin/` folds them. Each protocol's module defines `block` itself.
macro_rules! shared_conversions {
    () => {
        fn capabilities() -> pb::ServerCapabilities {
            pb::ServerCapabilities {
                plan_destroy: SERVER_CAPABILITIES.plan_destroy,
                get_provider_schema_optional: SERVER_CAPABILITIES.get_provider_schema_optional,
                move_resource_state: SERVER_CAPABILITIES.move_resource_state,
                generate_resource_config: false,
            }
        }

        fn functions(schema: &tf::ProviderSchema) -> HashMap<String, pb::Function> {
            schema.functions.iter().map(|(name, f)| (name.clone(), function(f))).collect()
        }

        /// `GetMetadata`'s lists, with the schemas `served` keeps.
        fn metadata(
            schema: &tf::ProviderSchema,
            served: fn(&tf::Schema) -> bool,
            capabilities: pb::ServerCapabilities,
        ) -> pb::get_metadata::Response {
            use pb::get_metadata as m;
            pb::get_metadata::Response {
                server_capabilities: Some(capabilities),
                diagnostics: Vec::new(),
                data_sources: names(&schema.data_sources, served, |type_name| m::DataSourceMetadata { type_name }),
                resources: names(&schema.resources, served, |type_name| m::ResourceMetadata { type_name }),
                functions: schema.functions.keys().map(|n| m::FunctionMetadata { name: n.clone() }).collect(),
                ephemeral_resources: names(&schema.ephemeral_resources, served, |type_name| m::EphemeralMetadata {
                    type_name,
                }),
                list_resources: names(&schema.list_resources, served, |type_name| m::ListResourceMetadata {
                    type_name,
                }),
                ..Default::default()
            }
        }

        /// A block with `attributes`, and what both protocols carry the same way.
        #[allow(clippy::needless_update)] // Protocol 5 has no other fields; protocol 6 has.
        fn block_with(block: &tf::Block, attributes: Vec<pb::schema::Attribute>) -> pb::schema::Block {
            pb::schema::Block {
                version: 0,
                attributes,
                block_types: block.block_types.iter().map(|(name, b)| nested_block(name, b)).collect(),
                description: block.description.clone(),
                description_kind: string_kind(block.description_kind) as i32,
                deprecated: block.deprecated,
                deprecation_message: block.deprecation_message.clone(),
                ..Default::default()
            }
        }

        /// An attribute of the wire type `ty` (a JSON type spec; empty for a nested one).
        #[allow(clippy::needless_update)] // Protocol 5 has no other fields; protocol 6 has.
        fn attribute_with(name: &str, attr: &tf::Attribute, ty: Vec<u8>) -> pb::schema::Attribute {
            pb::schema::Attribute {
                name: name.to_owned(),
                r#type: ty,
                description: attr.description.clone(),
                required: attr.required,
                optional: attr.optional,
                computed: attr.computed,
                sensitive: attr.sensitive,
                description_kind: string_kind(attr.description_kind) as i32,
                deprecated: attr.deprecated,
                write_only: attr.write_only,
                deprecation_message: attr.deprecation_message.clone(),
                ..Default::default()
            }
        }

        fn schema(schema: &tf::Schema) -> pb::Schema {
            pb::Schema { version: schema.version, block: Some(block(&schema.block)) }
        }

        fn nested_block(name: &str, nested: &tf::NestedBlock) -> pb::schema::NestedBlock {
            use pb::schema::nested_block::NestingMode;
            let nesting = match nested.nesting {
                tf::BlockNesting::Single => NestingMode::Single,
                tf::BlockNesting::Group => NestingMode::Group,
                tf::BlockNesting::List => NestingMode::List,
                tf::BlockNesting::Set => NestingMode::Set,
                tf::BlockNesting::Map => NestingMode::Map,
            };
            pb::schema::NestedBlock {
                type_name: name.to_owned(),
                block: Some(block(&nested.block)),
                nesting: nesting as i32,
                min_items: nested.min_items,
                max_items: nested.max_items,
            }
        }

        fn function(function: &tf::Function) -> pb::Function {
            let parameter = |p: &tf::Parameter| pb::function::Parameter {
                name: p.name.clone(),
                r#type: p.r#type.to_json_string().into_bytes(),
                allow_null_value: p.allow_null,
                allow_unknown_values: p.allow_unknown,
                description: p.description.clone(),
                description_kind: string_kind(p.description_kind) as i32,
            };
            pb::Function {
                parameters: function.parameters.iter().map(parameter).collect(),
                variadic_parameter: function.variadic_parameter.as_ref().map(parameter),
                r#return: Some(pb::function::Return { r#type: function.return_type.to_json_string().into_bytes() }),
                summary: function.summary.clone(),
                description: function.description.clone(),
                description_kind: string_kind(function.description_kind) as i32,
                deprecation_message: function.deprecation_message.clone(),
            }
        }

        fn string_kind(kind: tf::StringKind) -> pb::StringKind {
            match kind {
                tf::StringKind::Plain => pb::StringKind::Plain,
                tf::StringKind::Markdown => pb::StringKind::Markdown,
            }
        }
    };
}

// ---------------------------------------------------------------------------------------
// Protocol 6.

pub use v6::{metadata_v6, to_tfplugin6};

mod v6 {
    use super::*;
    use tfplugin6 as pb;

    shared_conversions!();

    pub fn to_tfplugin6(provider: &tf::ProviderSchema) -> pb::get_provider_schema::Response {
        pb::get_provider_schema::Response {
            provider: Some(schema(&provider.provider)),
            resource_schemas: schemas(&provider.resources, all, schema),
            data_source_schemas: schemas(&provider.data_sources, all, schema),
            diagnostics: Vec::new(),
            provider_meta: provider.provider_meta.as_ref().map(schema),
            server_capabilities: Some(capabilities_of(provider)),
            functions: functions(provider),
            ephemeral_resource_schemas: schemas(&provider.ephemeral_resources, all, schema),
            list_resource_schemas: schemas(&provider.list_resources, all, schema),
            state_store_schemas: HashMap::new(),
            action_schemas: schemas(&provider.actions, all, |s| pb::ActionSchema { schema: Some(schema(s)) }),
        }
    }

    /// With `FIXTURE_1_14` (which adds the actions) the fixture also generates resource
    /// configuration (see `actions_and_generate`).
    fn capabilities_of(schema: &tf::ProviderSchema) -> pb::ServerCapabilities {
        pb::ServerCapabilities { generate_resource_config: !schema.actions.is_empty(), ..capabilities() }
    }

    pub fn metadata_v6(schema: &tf::ProviderSchema) -> pb::get_metadata::Response {
        pb::get_metadata::Response {
            actions: schema.actions.keys().map(|n| pb::get_metadata::ActionMetadata { type_name: n.clone() }).collect(),
            ..metadata(schema, all, capabilities_of(schema))
        }
    }

    fn block(block: &tf::Block) -> pb::schema::Block {
        let attributes = block.attributes.iter().map(|(name, a)| attribute(name, a)).collect();
        pb::schema::Block { computed: block.computed, ..block_with(block, attributes) }
    }

    fn attribute(name: &str, attr: &tf::Attribute) -> pb::schema::Attribute {
        match &attr.ty {
            tf::AttributeType::Type(ty) => attribute_with(name, attr, ty.to_json_string().into_bytes()),
            tf::AttributeType::Nested(object) => pb::schema::Attribute {
                nested_type: Some(object_type(object)),
                ..attribute_with(name, attr, Vec::new())
            },
        }
    }

    #[allow(deprecated)] // Object.min_items/max_items are deprecated on the wire but still carried.
    fn object_type(object: &tf::NestedObject) -> pb::schema::Object {
        use pb::schema::object::NestingMode;
        let nesting = match object.nesting {
            tf::ObjectNesting::Single => NestingMode::Single,
            tf::ObjectNesting::List => NestingMode::List,
            tf::ObjectNesting::Set => NestingMode::Set,
            tf::ObjectNesting::Map => NestingMode::Map,
        };
        pb::schema::Object {
            attributes: object.attributes.iter().map(|(name, a)| attribute(name, a)).collect(),
            nesting: nesting as i32,
            min_items: object.min_items,
            max_items: object.max_items,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Protocol 5.

/// Whether a block uses a nested attribute anywhere, which protocol 5 cannot express.
pub fn uses_nested_attributes(block: &tf::Block) -> bool {
    block.attributes.values().any(|a| matches!(a.ty, tf::AttributeType::Nested(_)))
        || block.block_types.values().any(|b| uses_nested_attributes(&b.block))
}

pub use v5::{metadata_v5, to_tfplugin5};

mod v5 {
    use super::*;
    use tfplugin5 as pb;

    shared_conversions!();

    pub fn to_tfplugin5(provider: &tf::ProviderSchema) -> pb::get_provider_schema::Response {
        let mut diagnostics = Vec::new();
        for (what, block) in
            [("provider", Some(&provider.provider)), ("provider_meta", provider.provider_meta.as_ref())]
        {
            if let Some(s) = block
                && uses_nested_attributes(&s.block)
            {
                diagnostics.push(pb::Diagnostic {
                    severity: pb::diagnostic::Severity::Error as i32,
                    summary: format!("The {what} schema uses nested attributes, which protocol 5 cannot express"),
                    detail: "Serve this schema with FIXTURE_PROTOCOL=6.".to_owned(),
                    attribute: None,
                });
            }
        }
        pb::get_provider_schema::Response {
            provider: Some(schema(&provider.provider)),
            resource_schemas: schemas(&provider.resources, served_v5, schema),
            data_source_schemas: schemas(&provider.data_sources, served_v5, schema),
            diagnostics,
            provider_meta: provider.provider_meta.as_ref().map(schema),
            server_capabilities: Some(capabilities()),
            functions: functions(provider),
            ephemeral_resource_schemas: schemas(&provider.ephemeral_resources, served_v5, schema),
            list_resource_schemas: schemas(&provider.list_resources, served_v5, schema),
            action_schemas: HashMap::new(),
        }
    }

    pub fn metadata_v5(schema: &tf::ProviderSchema) -> pb::get_metadata::Response {
        metadata(schema, served_v5, capabilities())
    }

    fn block(block: &tf::Block) -> pb::schema::Block {
        // Nested attributes have no protocol 5 form; callers filter such schemas out first,
        // and the provider block is reported as a diagnostic instead.
        let attributes = block
            .attributes
            .iter()
            .filter_map(|(name, a)| match &a.ty {
                tf::AttributeType::Type(ty) => Some(attribute_with(name, a, ty.to_json_string().into_bytes())),
                tf::AttributeType::Nested(_) => None,
            })
            .collect();
        block_with(block, attributes)
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
