//! The client methods both protocols share.
//!
//! Like the conversions in `wire`, the protocol 5 and 6 clients differ in their generated
//! types and in a few RPC names, not in what they do, so `shared_client!` expands one
//! body inside `v5` and `v6`.

/// The client methods both protocols share, expanded inside `v5` and `v6` like
/// `shared_conversions!`. The arguments are the RPCs protocol 5 names differently (each
/// also names its request's module). Written by hand in each: `validate_provider_config`
/// (protocol 5 prepares the configuration) and `plan_resource_change_to_wire` (6.11 sends
/// planned private bytes back).
macro_rules! shared_client {
    (
        get_provider_schema: $get_schema:ident,
        validate_resource_config: $validate_resource:ident,
        validate_data_resource_config: $validate_data:ident,
        configure_provider: $configure:ident,
        stop_provider: $stop:ident $(,)?
    ) => {
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
                let response = self.rpc.clone().$get_schema(pb::get_provider_schema::Request {}).await?;
                Ok(provider_schema_from_wire(response.into_inner())?)
            }

            pub(super) async fn get_metadata(&self) -> Result<ProviderMetadata, RpcFailure> {
                let response = self.rpc.clone().get_metadata(pb::get_metadata::Request {}).await?;
                Ok(metadata_from_wire(response.into_inner()))
            }

            pub(super) async fn validate_resource_config(
                &self,
                type_name: &str,
                config: &DynamicValue,
            ) -> Result<Vec<Diagnostic>, RpcFailure> {
                let request = pb::$validate_resource::Request {
                    type_name: type_name.to_owned(),
                    config: Some(dynamic_value_to_wire(config)),
                    client_capabilities: client_capabilities(),
                };
                let response = self.rpc.clone().$validate_resource(request).await?.into_inner();
                Ok(diagnostics_from_wire(response.diagnostics))
            }

            pub(super) async fn validate_data_resource_config(
                &self,
                type_name: &str,
                config: &DynamicValue,
            ) -> Result<Vec<Diagnostic>, RpcFailure> {
                let request = pb::$validate_data::Request {
                    type_name: type_name.to_owned(),
                    config: Some(dynamic_value_to_wire(config)),
                };
                let response = self.rpc.clone().$validate_data(request).await?.into_inner();
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
                let request = pb::$configure::Request {
                    terraform_version: terraform_version.to_owned(),
                    config: Some(dynamic_value_to_wire(config)),
                    client_capabilities: client_capabilities(),
                };
                let response = self.rpc.clone().$configure(request).await?.into_inner();
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
                    current_identity: identity_to_wire(request.current_identity.as_ref()),
                };
                let response = self.rpc.clone().read_resource(request).await?;
                Ok(read_resource_from_wire(response.into_inner()))
            }

            pub(super) async fn plan_resource_change(
                &self,
                request: &PlanResourceChangeRequest,
            ) -> Result<PlanResourceChangeResponse, RpcFailure> {
                let request = plan_resource_change_to_wire(request);
                let response = self.rpc.clone().plan_resource_change(request).await?.into_inner();
                Ok(PlanResourceChangeResponse {
                    planned_state: dynamic_value_from_wire(response.planned_state),
                    requires_replace: response.requires_replace.into_iter().map(attribute_path_from_wire).collect(),
                    planned_private: response.planned_private,
                    legacy_type_system: response.legacy_type_system,
                    deferred: deferred_from_wire(response.deferred),
                    diagnostics: diagnostics_from_wire(response.diagnostics),
                    planned_identity: identity_from_wire(response.planned_identity),
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
                identity: Option<&DynamicValue>,
            ) -> Result<ImportResourceStateResponse, RpcFailure> {
                let request = pb::import_resource_state::Request {
                    type_name: type_name.to_owned(),
                    id: id.to_owned(),
                    client_capabilities: client_capabilities(),
                    identity: identity_to_wire(identity),
                };
                let response = self.rpc.clone().import_resource_state(request).await?;
                Ok(import_resource_state_from_wire(response.into_inner()))
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
                let response = self.rpc.clone().$stop(pb::$stop::Request {}).await?;
                Ok(response.into_inner().error)
            }
        }
    };
}

pub(crate) use shared_client;
