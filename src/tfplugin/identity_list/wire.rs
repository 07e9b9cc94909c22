//! The identity and list-resource RPCs on the wire, for both protocols: [`identity_list_wire!`]
//! is expanded inside `v5` and `v6` after `core_rpcs_wire!` (whose helpers it uses); the
//! messages are declared identically in both.

/// Conversions and client methods for GetResourceIdentitySchemas, UpgradeResourceIdentity,
/// ValidateListResourceConfig and ListResource. Needs `core_rpcs_wire!` expanded first.
macro_rules! identity_list_wire {
    () => {
        use crate::tfplugin::identity_list::{
            IdentitySchemasResponse, ListResourceEvent, ListResourceRequest, UpgradeResourceIdentityRequest,
            UpgradeResourceIdentityResponse,
        };

        fn identity_schema_from_wire(
            type_name: &str,
            schema: pb::ResourceIdentitySchema,
        ) -> Result<tf::IdentitySchema, SchemaError> {
            let mut attributes = BTreeMap::new();
            for attribute in schema.identity_attributes {
                let location = format!("identity of {type_name}.{}", attribute.name);
                let converted = tf::IdentityAttribute {
                    ty: type_from_wire(&location, &attribute.r#type)?,
                    required_for_import: attribute.required_for_import,
                    optional_for_import: attribute.optional_for_import,
                    description: attribute.description,
                };
                attributes.insert(attribute.name, converted);
            }
            Ok(tf::IdentitySchema { version: schema.version, attributes })
        }

        pub(super) fn identity_schemas_from_wire(
            response: pb::get_resource_identity_schemas::Response,
        ) -> Result<IdentitySchemasResponse, SchemaError> {
            let schemas = response
                .identity_schemas
                .into_iter()
                .map(|(name, schema)| Ok((name.clone(), identity_schema_from_wire(&name, schema)?)))
                .collect::<Result<_, SchemaError>>()?;
            Ok(IdentitySchemasResponse { schemas, diagnostics: diagnostics_from_wire(response.diagnostics) })
        }

        fn list_event_from_wire(event: pb::list_resource::Event) -> ListResourceEvent {
            ListResourceEvent {
                identity: identity_from_wire(event.identity),
                display_name: event.display_name,
                resource_object: event
                    .resource_object
                    .filter(|value| !value.msgpack.is_empty() || !value.json.is_empty())
                    .map(|value| dynamic_value_from_wire(Some(value))),
                diagnostics: diagnostics_from_wire(event.diagnostic),
            }
        }

        impl Client {
            pub(super) async fn get_resource_identity_schemas(&self) -> Result<IdentitySchemasResponse, RpcFailure> {
                let response = self
                    .rpc
                    .clone()
                    .get_resource_identity_schemas(pb::get_resource_identity_schemas::Request {})
                    .await?;
                Ok(identity_schemas_from_wire(response.into_inner())?)
            }

            pub(super) async fn upgrade_resource_identity(
                &self,
                request: &UpgradeResourceIdentityRequest,
            ) -> Result<UpgradeResourceIdentityResponse, RpcFailure> {
                let request = pb::upgrade_resource_identity::Request {
                    type_name: request.type_name.clone(),
                    version: request.version,
                    raw_identity: Some(pb::RawState {
                        json: request.raw_identity.clone(),
                        flatmap: Default::default(),
                    }),
                };
                let response = self.rpc.clone().upgrade_resource_identity(request).await?.into_inner();
                Ok(UpgradeResourceIdentityResponse {
                    upgraded_identity: identity_from_wire(response.upgraded_identity),
                    diagnostics: diagnostics_from_wire(response.diagnostics),
                })
            }

            crate::tfplugin::wire_method::validate_config_method!(validate_list_resource_config => validate_list_resource_config, include_resource_object: None, limit: None);

            /// Starts the stream; each item is one event, or the status the stream broke with.
            pub(super) async fn list_resource(
                &self,
                request: &ListResourceRequest,
            ) -> Result<
                std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<ListResourceEvent, tonic::Status>> + Send>>,
                RpcFailure,
            > {
                let request = pb::list_resource::Request {
                    type_name: request.type_name.clone(),
                    config: Some(dynamic_value_to_wire(&request.config)),
                    include_resource_object: request.include_resource_object,
                    limit: request.limit,
                };
                let stream = self.rpc.clone().list_resource(request).await?.into_inner();
                Ok(Box::pin(tokio_stream::StreamExt::map(stream, |event| event.map(list_event_from_wire))))
            }
        }
    };
}

pub(crate) use identity_list_wire;
