//! The tfplugin5 client: protocol 5 RPCs in terms of the domain types. Protocol 5 names
//! some RPCs differently (GetSchema, PrepareProviderConfig, ValidateResourceTypeConfig,
//! ValidateDataSourceConfig, Configure, Stop) and lacks nested attributes, computed blocks
//! and the 6.11 client capabilities.

use tfbridge_proto::tfplugin5 as pb;
use tonic::transport::Channel;

use super::error::RpcFailure;

/// Protocol 5 has no nested attributes: every attribute has a plain type.
fn attribute_type_from_wire(
    location: &str,
    attribute: &pb::schema::Attribute,
) -> Result<tf::AttributeType, SchemaError> {
    Ok(tf::AttributeType::Type(type_from_wire(location, &attribute.r#type)?))
}

/// Protocol 5 has no computed blocks.
fn block_computed_from_wire(_block: &pb::schema::Block) -> bool {
    false
}

/// What Terraform sends over protocol 5 (with `-allow-deferral`): deferral allowed
/// (docs/actions-deferral-import.md says what a deferred change does), write-only attributes
/// understood.
fn client_capabilities() -> Option<pb::ClientCapabilities> {
    Some(pb::ClientCapabilities { deferral_allowed: true, write_only_attributes_allowed: true })
}

super::core_rpcs::wire::core_rpcs_wire! {
    get_provider_schema: get_schema,
    validate_provider_config: prepare_provider_config,
    validate_resource_config: validate_resource_type_config,
    validate_data_resource_config: validate_data_source_config,
    configure_provider: configure,
    stop_provider: stop,
    plan_resource_change_since_5: [],
}
// The other families, in the same module: they use the helpers core_rpcs_wire! defines.
super::ephemeral::wire::ephemeral_wire!();
super::identity_list::wire::identity_list_wire!();
super::actions::wire::actions_wire!();

/// PrepareProviderConfig's provider defaults, which only protocol 5 returns.
fn prepared_config_from_wire(response: &pb::prepare_provider_config::Response) -> Option<DynamicValue> {
    response.prepared_config.clone().map(|value| dynamic_value_from_wire(Some(value)))
}
