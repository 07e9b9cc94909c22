//! The tfplugin6 client: protocol 6 RPCs in terms of the domain types.

use tfbridge_proto::tfplugin6 as pb;
use tonic::transport::Channel;

use super::error::RpcFailure;

/// Protocol 6 has nested attributes.
fn attribute_type_from_wire(
    location: &str,
    attribute: &pb::schema::Attribute,
) -> Result<tf::AttributeType, SchemaError> {
    match &attribute.nested_type {
        Some(object) => Ok(tf::AttributeType::Nested(nested_object_from_wire(location, object)?)),
        None => Ok(tf::AttributeType::Type(type_from_wire(location, &attribute.r#type)?)),
    }
}

fn nested_object_from_wire(location: &str, object: &pb::schema::Object) -> Result<tf::NestedObject, SchemaError> {
    use pb::schema::object::NestingMode;
    let nesting = match NestingMode::try_from(object.nesting) {
        Ok(NestingMode::Single) => tf::ObjectNesting::Single,
        Ok(NestingMode::List) => tf::ObjectNesting::List,
        Ok(NestingMode::Set) => tf::ObjectNesting::Set,
        Ok(NestingMode::Map) => tf::ObjectNesting::Map,
        Ok(NestingMode::Invalid) | Err(_) => {
            return Err(SchemaError::new(
                location,
                format!("invalid nested attribute nesting mode {}", object.nesting),
            ));
        }
    };
    let mut attributes = BTreeMap::new();
    for attribute in &object.attributes {
        let attribute_location = format!("{location}.{}", attribute.name);
        attributes.insert(attribute.name.clone(), attribute_from_wire(&attribute_location, attribute)?);
    }
    #[allow(deprecated)]
    let (min_items, max_items) = (object.min_items, object.max_items);
    Ok(tf::NestedObject { attributes, nesting, min_items, max_items })
}

/// Protocol 6.11 computed blocks.
fn block_computed_from_wire(block: &pb::schema::Block) -> bool {
    block.computed
}

/// What Terraform sends (with `-allow-deferral`): deferral allowed (docs/actions-deferral-import.md
/// says what a deferred change does), write-only attributes understood, and (6.11) planned
/// private bytes and computed blocks handled.
fn client_capabilities() -> Option<pb::ClientCapabilities> {
    Some(pb::ClientCapabilities {
        deferral_allowed: true,
        write_only_attributes_allowed: true,
        store_planned_private: true,
        computed_blocks_allowed: true,
    })
}

super::core_rpcs::wire::core_rpcs_wire! {
    get_provider_schema: get_provider_schema,
    validate_provider_config: validate_provider_config,
    validate_resource_config: validate_resource_config,
    validate_data_resource_config: validate_data_resource_config,
    configure_provider: configure_provider,
    stop_provider: stop_provider,
    // Protocol 6.11: the private bytes of the saved plan, when re-planning at apply.
    plan_resource_change_since_5: [planned_private],
}
// The other families, in the same module: they use the helpers core_rpcs_wire! defines.
super::ephemeral::wire::ephemeral_wire!();
super::identity_list::wire::identity_list_wire!();
super::actions::wire::actions_wire!();

/// Protocol 6 returns no prepared configuration (protocol 5's PrepareProviderConfig did).
fn prepared_config_from_wire(_response: &pb::validate_provider_config::Response) -> Option<DynamicValue> {
    None
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use expect_test::expect;

    use super::*;

    fn attribute(name: &str, ty: &str) -> pb::schema::Attribute {
        pb::schema::Attribute {
            name: name.to_owned(),
            r#type: ty.as_bytes().to_vec(),
            optional: true,
            ..Default::default()
        }
    }

    fn response_with_resource(block: pb::schema::Block) -> pb::get_provider_schema::Response {
        pb::get_provider_schema::Response {
            provider: Some(pb::Schema::default()),
            resource_schemas: HashMap::from([(
                "example_thing".to_owned(),
                pb::Schema { version: 3, block: Some(block) },
            )]),
            ..Default::default()
        }
    }

    #[test]
    fn nested_attributes_and_blocks_convert() {
        let block = pb::schema::Block {
            attributes: vec![
                attribute("name", r#""string""#),
                pb::schema::Attribute {
                    name: "ports".to_owned(),
                    nested_type: Some(pb::schema::Object {
                        attributes: vec![attribute("port", r#""number""#)],
                        nesting: pb::schema::object::NestingMode::List as i32,
                        ..Default::default()
                    }),
                    computed: true,
                    ..Default::default()
                },
            ],
            block_types: vec![pb::schema::NestedBlock {
                type_name: "rule".to_owned(),
                block: Some(pb::schema::Block {
                    attributes: vec![attribute("tags", r#"["map","string"]"#)],
                    ..Default::default()
                }),
                nesting: pb::schema::nested_block::NestingMode::Set as i32,
                min_items: 1,
                max_items: 0,
            }],
            computed: true,
            ..Default::default()
        };
        let converted = provider_schema_from_wire(response_with_resource(block)).unwrap();
        expect![[r#"{"version":3,"block":{"attributes":{"name":{"type":"string","optional":true},"ports":{"nested_type":{"attributes":{"port":{"type":"number","optional":true}},"nesting_mode":"list"},"computed":true}},"block_types":{"rule":{"nesting_mode":"set","block":{"attributes":{"tags":{"type":["map","string"],"optional":true}}},"min_items":1}},"computed":true}}"#]]
            .assert_eq(&serde_json::to_string(&converted.schema.resources["example_thing"]).unwrap());
    }

    #[test]
    fn schema_errors_name_the_location() {
        let bad_type = pb::schema::Block {
            block_types: vec![pb::schema::NestedBlock {
                type_name: "rule".to_owned(),
                block: Some(pb::schema::Block {
                    attributes: vec![attribute("port", "nonsense")],
                    ..Default::default()
                }),
                nesting: pb::schema::nested_block::NestingMode::List as i32,
                ..Default::default()
            }],
            ..Default::default()
        };
        let err = provider_schema_from_wire(response_with_resource(bad_type)).unwrap_err();
        expect!["resource example_thing.rule.port: invalid cty type spec nonsense: not valid JSON"]
            .assert_eq(&err.to_string());

        let bad_nesting = pb::schema::Block {
            block_types: vec![pb::schema::NestedBlock {
                type_name: "rule".to_owned(),
                nesting: 0,
                ..Default::default()
            }],
            ..Default::default()
        };
        let err = provider_schema_from_wire(response_with_resource(bad_nesting)).unwrap_err();
        expect![[r#"resource example_thing.rule: invalid nesting mode 0"#]].assert_eq(&err.to_string());
    }

    #[test]
    fn diagnostics_and_values_follow_terraforms_rules() {
        use pb::attribute_path::Step;
        use pb::attribute_path::step::Selector;
        let diagnostics = diagnostics_from_wire(vec![
            pb::Diagnostic {
                severity: pb::diagnostic::Severity::Warning as i32,
                summary: "careful".to_owned(),
                detail: String::new(),
                attribute: Some(pb::AttributePath {
                    steps: vec![
                        Step { selector: Some(Selector::AttributeName("rules".to_owned())) },
                        Step { selector: Some(Selector::ElementKeyInt(2)) },
                        Step { selector: Some(Selector::ElementKeyString("a\"b".to_owned())) },
                    ],
                }),
            },
            // A provider that leaves the severity unset still reports an error.
            pb::Diagnostic { severity: 0, summary: "broken".to_owned(), ..Default::default() },
        ]);
        let rendered: Vec<String> = diagnostics
            .iter()
            .map(|d| format!("{:?} {} at {:?}", d.severity, d.summary, d.attribute.as_ref().map(ToString::to_string)))
            .collect();
        expect![[r#"
            Warning careful at Some(".rules[2][\"a\\\"b\"]")
            Error broken at None"#]]
        .assert_eq(&rendered.join("\n"));

        let msgpack_wins = pb::DynamicValue { msgpack: vec![0x01], json: b"2".to_vec() };
        assert_eq!(dynamic_value_from_wire(Some(msgpack_wins)), DynamicValue::Msgpack(vec![0x01]));
        let json_only = pb::DynamicValue { msgpack: Vec::new(), json: b"{}".to_vec() };
        assert_eq!(dynamic_value_from_wire(Some(json_only)), DynamicValue::Json(b"{}".to_vec()));
        assert_eq!(dynamic_value_from_wire(Some(pb::DynamicValue::default())), DynamicValue::null());
        assert_eq!(dynamic_value_from_wire(None), DynamicValue::null());
    }
}
