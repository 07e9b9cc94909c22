//! The `tfplugin5.Provider` service: a thin map onto [`Fixture`].
//!
//! Architecture invariant: no behaviour lives here; every answer comes from `Fixture` or
//! `convert`, so protocol 6 behaves the same.

use std::pin::Pin;
use std::sync::Arc;

use tfbridge_proto::tfplugin5 as pb;
use tokio_stream::Stream;
use tonic::{Request, Response, Status};

use crate::convert;
use crate::provider::{Fixture, provider_service};
use crate::rpc::protocol_conversions;

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

pub struct ProviderV5 {
    fixture: Arc<Fixture>,
    /// Converted once: a big schema is costly to convert and never changes.
    schema: pb::get_provider_schema::Response,
}

impl ProviderV5 {
    /// `schema` is `fixture.schema` converted ([`convert::to_tfplugin5`]).
    pub fn new(fixture: Arc<Fixture>, schema: pb::get_provider_schema::Response) -> ProviderV5 {
        ProviderV5 { fixture, schema }
    }
}

protocol_conversions!();

/// The saved plan's private bytes a plan request carries (protocol 6.11); protocol 5 has no such field.
fn saved_plan_private(_request: &pb::plan_resource_change::Request) -> Vec<u8> {
    Vec::new()
}

provider_service! {
    impl pb::provider_server::Provider for ProviderV5 {
        type ListResourceStream = BoxStream<pb::list_resource::Event>;
        type InvokeActionStream = BoxStream<pb::invoke_action::Event>;

        async fn get_resource_identity_schemas(
            &self,
            _request: Request<pb::get_resource_identity_schemas::Request>,
        ) -> Result<Response<pb::get_resource_identity_schemas::Response>, Status> {
            self.fixture.enter("GetResourceIdentitySchemas").await?;
            Ok(Response::new(pb::get_resource_identity_schemas::Response::default()))
        }

        async fn prepare_provider_config(
            &self,
            request: Request<pb::prepare_provider_config::Request>,
        ) -> Result<Response<pb::prepare_provider_config::Response>, Status> {
            self.fixture.enter("PrepareProviderConfig").await?;
            // The fixture has no defaults to fill in, so the prepared config is the config.
            let config = request.into_inner().config;
            let diagnostics = self.fixture.check_provider_config(&msgpack_of(config.clone()));
            Ok(Response::new(pb::prepare_provider_config::Response {
                prepared_config: config,
                diagnostics: diagnostics_of(diagnostics),
            }))
        }

        crate::ephemeral::ephemeral_methods!();
    }
    renamed {
        metadata: convert::metadata_v5;
        schema: get_schema(get_provider_schema) = "GetSchema";
        validate_resource: validate_resource_type_config = "ValidateResourceTypeConfig";
        validate_data_source: validate_data_source_config = "ValidateDataSourceConfig";
        configure: configure = "Configure";
        stop: stop = "Stop";
    }
    unimplemented {
        upgrade_resource_identity(pb::upgrade_resource_identity::Request) -> pb::upgrade_resource_identity::Response = "UpgradeResourceIdentity";
        move_resource_state(pb::move_resource_state::Request) -> pb::move_resource_state::Response = "MoveResourceState";
        generate_resource_config(pb::generate_resource_config::Request) -> pb::generate_resource_config::Response = "GenerateResourceConfig";
        list_resource(pb::list_resource::Request) -> Self::ListResourceStream = "ListResource";
        validate_list_resource_config(pb::validate_list_resource_config::Request) -> pb::validate_list_resource_config::Response = "ValidateListResourceConfig";
        plan_action(pb::plan_action::Request) -> pb::plan_action::Response = "PlanAction";
        invoke_action(pb::invoke_action::Request) -> Self::InvokeActionStream = "InvokeAction";
        validate_action_config(pb::validate_action_config::Request) -> pb::validate_action_config::Response = "ValidateActionConfig";
    }
}
