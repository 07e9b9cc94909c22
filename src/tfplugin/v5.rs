//! The tfplugin5 client: protocol 5 RPCs in terms of the domain types. Protocol 5 names
//! some RPCs differently (GetSchema, PrepareProviderConfig, ValidateResourceTypeConfig,
//! ValidateDataSourceConfig, Configure, Stop) and lacks nested attributes, computed blocks
//! and the 6.11 client capabilities.

use tfbridge_proto::tfplugin5 as pb;
use tonic::transport::Channel;

use super::error::RpcFailure;
use super::types::{
    PlanResourceChangeRequest, PlanResourceChangeResponse, ReadDataSourceRequest, ReadResourceRequest,
    ValidateProviderConfigResponse,
};

super::wire::shared_conversions!();

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

/// What Terraform sends over protocol 5: no deferral, write-only attributes understood.
fn client_capabilities() -> Option<pb::ClientCapabilities> {
    Some(pb::ClientCapabilities { deferral_allowed: false, write_only_attributes_allowed: true })
}

#[derive(Clone)]
pub(super) struct Client {
    rpc: pb::provider_client::ProviderClient<Channel>,
}

impl Client {
    pub(super) fn new(channel: Channel) -> Client {
        let rpc = pb::provider_client::ProviderClient::new(channel)
            .max_decoding_message_size(tfbridge_proto::MAX_MESSAGE_SIZE)
            .max_encoding_message_size(tfbridge_proto::MAX_MESSAGE_SIZE);
        Client { rpc }
    }

    pub(super) async fn get_provider_schema(&self) -> Result<ProviderSchemaResponse, RpcFailure> {
        let response = self.rpc.clone().get_schema(pb::get_provider_schema::Request {}).await?;
        Ok(provider_schema_from_wire(response.into_inner())?)
    }

    pub(super) async fn get_metadata(&self) -> Result<ProviderMetadata, RpcFailure> {
        let response = self.rpc.clone().get_metadata(pb::get_metadata::Request {}).await?;
        Ok(metadata_from_wire(response.into_inner()))
    }

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

    pub(super) async fn validate_resource_config(
        &self,
        type_name: &str,
        config: &DynamicValue,
    ) -> Result<Vec<Diagnostic>, RpcFailure> {
        let request = pb::validate_resource_type_config::Request {
            type_name: type_name.to_owned(),
            config: Some(dynamic_value_to_wire(config)),
            client_capabilities: client_capabilities(),
        };
        let response = self.rpc.clone().validate_resource_type_config(request).await?.into_inner();
        Ok(diagnostics_from_wire(response.diagnostics))
    }

    pub(super) async fn validate_data_resource_config(
        &self,
        type_name: &str,
        config: &DynamicValue,
    ) -> Result<Vec<Diagnostic>, RpcFailure> {
        let request = pb::validate_data_source_config::Request {
            type_name: type_name.to_owned(),
            config: Some(dynamic_value_to_wire(config)),
        };
        let response = self.rpc.clone().validate_data_source_config(request).await?.into_inner();
        Ok(diagnostics_from_wire(response.diagnostics))
    }

    pub(super) async fn upgrade_resource_state(
        &self,
        request: &UpgradeResourceStateRequest,
    ) -> Result<UpgradeResourceStateResponse, RpcFailure> {
        let response = self.rpc.clone().upgrade_resource_state(upgrade_resource_state_to_wire(request)).await?;
        Ok(upgrade_resource_state_from_wire(response.into_inner()))
    }

    pub(super) async fn configure_provider(
        &self,
        terraform_version: &str,
        config: &DynamicValue,
    ) -> Result<Vec<Diagnostic>, RpcFailure> {
        let request = pb::configure::Request {
            terraform_version: terraform_version.to_owned(),
            config: Some(dynamic_value_to_wire(config)),
            client_capabilities: client_capabilities(),
        };
        let response = self.rpc.clone().configure(request).await?.into_inner();
        Ok(diagnostics_from_wire(response.diagnostics))
    }

    pub(super) async fn read_resource(
        &self,
        request: &ReadResourceRequest,
    ) -> Result<ReadResourceResponse, RpcFailure> {
        let request = pb::read_resource::Request {
            type_name: request.type_name.clone(),
            current_state: Some(dynamic_value_to_wire(&request.current_state)),
            private: request.private.clone(),
            provider_meta: request.provider_meta.as_ref().map(dynamic_value_to_wire),
            client_capabilities: client_capabilities(),
            current_identity: None,
        };
        let response = self.rpc.clone().read_resource(request).await?;
        Ok(read_resource_from_wire(response.into_inner()))
    }

    pub(super) async fn plan_resource_change(
        &self,
        request: &PlanResourceChangeRequest,
    ) -> Result<PlanResourceChangeResponse, RpcFailure> {
        let request = pb::plan_resource_change::Request {
            type_name: request.type_name.clone(),
            prior_state: Some(dynamic_value_to_wire(&request.prior_state)),
            proposed_new_state: Some(dynamic_value_to_wire(&request.proposed_new_state)),
            config: Some(dynamic_value_to_wire(&request.config)),
            prior_private: request.prior_private.clone(),
            provider_meta: request.provider_meta.as_ref().map(dynamic_value_to_wire),
            client_capabilities: client_capabilities(),
            prior_identity: None,
        };
        let response = self.rpc.clone().plan_resource_change(request).await?.into_inner();
        Ok(PlanResourceChangeResponse {
            planned_state: dynamic_value_from_wire(response.planned_state),
            requires_replace: response.requires_replace.into_iter().map(attribute_path_from_wire).collect(),
            planned_private: response.planned_private,
            legacy_type_system: response.legacy_type_system,
            deferred: deferred_from_wire(response.deferred),
            diagnostics: diagnostics_from_wire(response.diagnostics),
        })
    }

    pub(super) async fn apply_resource_change(
        &self,
        request: &ApplyResourceChangeRequest,
    ) -> Result<ApplyResourceChangeResponse, RpcFailure> {
        let response = self.rpc.clone().apply_resource_change(apply_resource_change_to_wire(request)).await?;
        Ok(apply_resource_change_from_wire(response.into_inner()))
    }

    pub(super) async fn import_resource_state(
        &self,
        type_name: &str,
        id: &str,
    ) -> Result<ImportResourceStateResponse, RpcFailure> {
        let request = pb::import_resource_state::Request {
            type_name: type_name.to_owned(),
            id: id.to_owned(),
            client_capabilities: client_capabilities(),
            identity: None,
        };
        let response = self.rpc.clone().import_resource_state(request).await?;
        Ok(import_resource_state_from_wire(response.into_inner()))
    }

    pub(super) async fn move_resource_state(
        &self,
        request: &MoveResourceStateRequest,
    ) -> Result<MoveResourceStateResponse, RpcFailure> {
        let response = self.rpc.clone().move_resource_state(move_resource_state_to_wire(request)).await?;
        Ok(move_resource_state_from_wire(response.into_inner()))
    }

    pub(super) async fn read_data_source(
        &self,
        request: &ReadDataSourceRequest,
    ) -> Result<ReadDataSourceResponse, RpcFailure> {
        let request = pb::read_data_source::Request {
            type_name: request.type_name.clone(),
            config: Some(dynamic_value_to_wire(&request.config)),
            provider_meta: request.provider_meta.as_ref().map(dynamic_value_to_wire),
            client_capabilities: client_capabilities(),
        };
        let response = self.rpc.clone().read_data_source(request).await?;
        Ok(read_data_source_from_wire(response.into_inner()))
    }

    pub(super) async fn get_functions(&self) -> Result<GetFunctionsResponse, RpcFailure> {
        let response = self.rpc.clone().get_functions(pb::get_functions::Request {}).await?;
        Ok(get_functions_from_wire(response.into_inner())?)
    }

    pub(super) async fn call_function(
        &self,
        name: &str,
        arguments: &[DynamicValue],
    ) -> Result<CallFunctionResponse, RpcFailure> {
        let request = pb::call_function::Request {
            name: name.to_owned(),
            arguments: arguments.iter().map(dynamic_value_to_wire).collect(),
        };
        let response = self.rpc.clone().call_function(request).await?;
        Ok(call_function_from_wire(response.into_inner()))
    }

    /// The provider's error text; empty means it accepted the request.
    pub(super) async fn stop_provider(&self) -> Result<String, RpcFailure> {
        let response = self.rpc.clone().stop(pb::stop::Request {}).await?;
        Ok(response.into_inner().error)
    }
}
