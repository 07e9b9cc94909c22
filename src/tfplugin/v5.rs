//! The tfplugin5 client: protocol 5 RPCs in terms of the domain types. Protocol 5 names
//! some RPCs differently (GetSchema, PrepareProviderConfig, ValidateResourceTypeConfig,
//! ValidateDataSourceConfig, Configure, Stop) and lacks nested attributes, computed blocks
//! and the 6.11 client capabilities.

use tfbridge_proto::tfplugin5 as pb;
use tonic::transport::Channel;

use super::error::RpcFailure;
use super::resources::{
    PlanResourceChangeRequest, PlanResourceChangeResponse, ReadDataSourceRequest, ReadResourceRequest,
    ValidateProviderConfigResponse,
};

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

super::resources::wire::resources_wire! {
    get_provider_schema: get_schema,
    validate_resource_config: validate_resource_type_config,
    validate_data_resource_config: validate_data_source_config,
    configure_provider: configure,
    stop_provider: stop,
}

super::ephemeral::wire::ephemeral_wire!();
super::identity_list::wire::identity_list_wire!();
super::actions::wire::actions_wire!();

impl Client {
    pub(super) async fn validate_provider_config(
        &self,
        config: &DynamicValue,
    ) -> Result<ValidateProviderConfigResponse, RpcFailure> {
        let request = pb::prepare_provider_config::Request { config: Some(dynamic_value_to_wire(config)) };
        let response = self.rpc.clone().prepare_provider_config(request).await?.into_inner();
        Ok(ValidateProviderConfigResponse {
            prepared_config: response.prepared_config.map(|value| dynamic_value_from_wire(Some(value))),
            diagnostics: diagnostics_from_wire(response.diagnostics),
        })
    }
}

fn plan_resource_change_to_wire(request: &PlanResourceChangeRequest) -> pb::plan_resource_change::Request {
    pb::plan_resource_change::Request {
        type_name: request.type_name.clone(),
        prior_state: Some(dynamic_value_to_wire(&request.prior_state)),
        proposed_new_state: Some(dynamic_value_to_wire(&request.proposed_new_state)),
        config: Some(dynamic_value_to_wire(&request.config)),
        prior_private: request.prior_private.clone(),
        provider_meta: request.provider_meta.as_ref().map(dynamic_value_to_wire),
        client_capabilities: client_capabilities(),
        prior_identity: identity_to_wire(request.prior_identity.as_ref()),
    }
}
