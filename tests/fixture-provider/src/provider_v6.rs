//! The `tfplugin6.Provider` service: a thin map onto [`Fixture`].
//!
//! Architecture invariant: no behaviour lives here; every answer comes from `Fixture` or
//! `convert`, so protocol 5 behaves the same.

use std::pin::Pin;
use std::sync::Arc;

use tfbridge_proto::tfplugin6 as pb;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::convert;
use crate::identity_list::{self, IdentityListConfig};
use crate::provider::{Fixture, provider_service};
use crate::rpc::protocol_conversions;

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

pub struct ProviderV6 {
    fixture: Arc<Fixture>,
    identity_list: IdentityListConfig,
    /// Converted once: a big schema is costly to convert and never changes.
    schema: pb::get_provider_schema::Response,
}

impl ProviderV6 {
    /// `schema` is `fixture.schema` converted ([`convert::to_tfplugin6`]).
    pub fn new(
        fixture: Arc<Fixture>,
        identity_list: IdentityListConfig,
        schema: pb::get_provider_schema::Response,
    ) -> ProviderV6 {
        ProviderV6 { fixture, identity_list, schema }
    }
}

protocol_conversions!();

/// The saved plan's private bytes a plan request carries (protocol 6.11).
fn saved_plan_private(request: &pb::plan_resource_change::Request) -> Vec<u8> {
    request.planned_private.clone()
}

provider_service! {
    impl pb::provider_server::Provider for ProviderV6 {
        type ListResourceStream = BoxStream<pb::list_resource::Event>;
        type ReadStateBytesStream = BoxStream<pb::read_state_bytes::Response>;
        type InvokeActionStream = BoxStream<pb::invoke_action::Event>;

        async fn get_resource_identity_schemas(
            &self,
            _request: Request<pb::get_resource_identity_schemas::Request>,
        ) -> Result<Response<pb::get_resource_identity_schemas::Response>, Status> {
            self.fixture.enter("GetResourceIdentitySchemas").await?;
            let identity_schemas = self
                .identity_list
                .identity_schemas(&self.fixture.schema)
                .into_iter()
                .map(|(name, version)| {
                    let id = pb::resource_identity_schema::IdentityAttribute {
                        name: "id".to_owned(),
                        r#type: br#""string""#.to_vec(),
                        required_for_import: true,
                        optional_for_import: false,
                        description: "The fixture's id.".to_owned(),
                    };
                    (name, pb::ResourceIdentitySchema { version, identity_attributes: vec![id] })
                })
                .collect();
            Ok(Response::new(pb::get_resource_identity_schemas::Response { identity_schemas, diagnostics: Vec::new() }))
        }

        async fn upgrade_resource_identity(
            &self,
            request: Request<pb::upgrade_resource_identity::Request>,
        ) -> Result<Response<pb::upgrade_resource_identity::Response>, Status> {
            self.fixture.enter("UpgradeResourceIdentity").await?;
            let request = request.into_inner();
            let (summary, detail) =
                identity_list::upgrade_identity_error(&request.type_name, request.version, self.identity_list.identity_version);
            let diagnostic = crate::rpc::Diagnostic { error: true, summary, detail, attribute: None };
            Ok(Response::new(pb::upgrade_resource_identity::Response {
                upgraded_identity: None,
                diagnostics: diagnostics_of(vec![diagnostic]),
            }))
        }

        async fn validate_list_resource_config(
            &self,
            _request: Request<pb::validate_list_resource_config::Request>,
        ) -> Result<Response<pb::validate_list_resource_config::Response>, Status> {
            self.fixture.enter("ValidateListResourceConfig").await?;
            if self.identity_list.list_fail_after.is_none() {
                return Err(Status::unimplemented("unknown method ValidateListResourceConfig for service tfplugin6.Provider"));
            }
            Ok(Response::new(pb::validate_list_resource_config::Response { diagnostics: Vec::new() }))
        }

        async fn list_resource(
            &self,
            request: Request<pb::list_resource::Request>,
        ) -> Result<Response<Self::ListResourceStream>, Status> {
            self.fixture.enter("ListResource").await?;
            let Some(count) = self.identity_list.list_fail_after else {
                return Err(Status::unimplemented("unknown method ListResource for service tfplugin6.Provider"));
            };
            let config = crate::value::decode(&msgpack_of(request.into_inner().config)).unwrap_or(rmpv::Value::Nil);
            let prefix = crate::value::attr_str(&config, "prefix").unwrap_or("").to_owned();
            let mut events: Vec<Result<pb::list_resource::Event, Status>> = identity_list::listed_ids(&prefix, count)
                .into_iter()
                .map(|id| {
                    Ok(pb::list_resource::Event {
                        identity: Some(pb::ResourceIdentityData {
                            identity_data: Some(pb::DynamicValue { msgpack: identity_list::identity_msgpack(&id), json: Vec::new() }),
                        }),
                        display_name: format!("fixture {id}"),
                        resource_object: None,
                        diagnostic: Vec::new(),
                    })
                })
                .collect();
            events.push(Err(Status::internal(format!("fixture: the list stream broke after {count} results"))));
            Ok(Response::new(Box::pin(tokio_stream::iter(events))))
        }

        async fn validate_provider_config(
            &self,
            request: Request<pb::validate_provider_config::Request>,
        ) -> Result<Response<pb::validate_provider_config::Response>, Status> {
            self.fixture.enter("ValidateProviderConfig").await?;
            let diagnostics = self.fixture.check_provider_config(&msgpack_of(request.into_inner().config));
            Ok(Response::new(pb::validate_provider_config::Response { diagnostics: diagnostics_of(diagnostics) }))
        }

        async fn validate_action_config(
            &self,
            request: Request<pb::validate_action_config::Request>,
        ) -> Result<Response<pb::validate_action_config::Response>, Status> {
            self.fixture.enter("ValidateActionConfig").await?;
            let request = request.into_inner();
            if self.fixture.action_unimplemented(&request.type_name) {
                return Err(Fixture::unimplemented("ValidateActionConfig"));
            }
            let diagnostics = self.fixture.validate_action_config(&request.type_name, &msgpack_of(request.config));
            Ok(Response::new(pb::validate_action_config::Response { diagnostics: diagnostics_of(diagnostics) }))
        }

        async fn plan_action(
            &self,
            request: Request<pb::plan_action::Request>,
        ) -> Result<Response<pb::plan_action::Response>, Status> {
            self.fixture.enter("PlanAction").await?;
            let request = request.into_inner();
            if self.fixture.action_unimplemented(&request.action_type) {
                return Err(Fixture::unimplemented("PlanAction"));
            }
            let diagnostics = self.fixture.plan_action(&request.action_type, &msgpack_of(request.config));
            Ok(Response::new(pb::plan_action::Response { diagnostics: diagnostics_of(diagnostics), deferred: None }))
        }

        async fn invoke_action(
            &self,
            request: Request<pb::invoke_action::Request>,
        ) -> Result<Response<Self::InvokeActionStream>, Status> {
            use crate::actions_and_generate::ActionEventOut;
            use pb::invoke_action::event::{Completed, Progress, Type};
            self.fixture.enter("InvokeAction").await?;
            let request = request.into_inner();
            if self.fixture.action_unimplemented(&request.action_type) {
                return Err(Fixture::unimplemented("InvokeAction"));
            }
            let events = self.fixture.invoke_action(&request.action_type, &msgpack_of(request.config));
            let events = events.into_iter().map(|event| match event {
                ActionEventOut::Progress(message) => {
                    Ok(pb::invoke_action::Event { r#type: Some(Type::Progress(Progress { message })) })
                }
                ActionEventOut::Completed(diagnostics) => Ok(pb::invoke_action::Event {
                    r#type: Some(Type::Completed(Completed { diagnostics: diagnostics_of(diagnostics) })),
                }),
                ActionEventOut::StreamError(message) => Err(Status::internal(message)),
            });
            Ok(Response::new(Box::pin(tokio_stream::iter(events.collect::<Vec<_>>()))))
        }

        async fn generate_resource_config(
            &self,
            request: Request<pb::generate_resource_config::Request>,
        ) -> Result<Response<pb::generate_resource_config::Response>, Status> {
            self.fixture.enter("GenerateResourceConfig").await?;
            let request = request.into_inner();
            if self.fixture.schema.actions.is_empty() {
                return Err(Fixture::unimplemented("GenerateResourceConfig"));
            }
            let (config, diagnostics) =
                self.fixture.generate_resource_config(&request.type_name, &msgpack_of(request.state));
            Ok(Response::new(pb::generate_resource_config::Response {
                config: dynamic_value(config),
                diagnostics: diagnostics_of(diagnostics),
            }))
        }

        crate::ephemeral::ephemeral_methods!();
    }
    renamed {
        metadata: convert::metadata_v6;
        schema: get_provider_schema(get_provider_schema) = "GetProviderSchema";
        validate_resource: validate_resource_config = "ValidateResourceConfig";
        validate_data_source: validate_data_resource_config = "ValidateDataResourceConfig";
        configure: configure_provider = "ConfigureProvider";
        stop: stop_provider = "StopProvider";
    }
    unimplemented {
        move_resource_state(pb::move_resource_state::Request) -> pb::move_resource_state::Response = "MoveResourceState";
        validate_state_store_config(pb::validate_state_store::Request) -> pb::validate_state_store::Response = "ValidateStateStoreConfig";
        configure_state_store(pb::configure_state_store::Request) -> pb::configure_state_store::Response = "ConfigureStateStore";
        read_state_bytes(pb::read_state_bytes::Request) -> Self::ReadStateBytesStream = "ReadStateBytes";
        write_state_bytes(tonic::Streaming<pb::write_state_bytes::RequestChunk>) -> pb::write_state_bytes::Response = "WriteStateBytes";
        lock_state(pb::lock_state::Request) -> pb::lock_state::Response = "LockState";
        unlock_state(pb::unlock_state::Request) -> pb::unlock_state::Response = "UnlockState";
        get_states(pb::get_states::Request) -> pb::get_states::Response = "GetStates";
        delete_state(pb::delete_state::Request) -> pb::delete_state::Response = "DeleteState";
    }
}
