//! The RPCs Terraform 1.14 added that the bridge calls: ValidateActionConfig, PlanAction,
//! InvokeAction (a server stream of [`ActionEvent`]s) and GenerateResourceConfig.
//!
//! Like `wire_client`, the per-protocol client methods are one body, [`terraform_1_14_client!`],
//! expanded inside `v5` and `v6` (whose `pb` names that protocol's messages, with the same
//! names and fields in both). [`ActionEvents`] is the protocol-neutral stream of one
//! InvokeAction that `ProviderClient::invoke_action` hands out.

use tfbridge_proto::{tfplugin5, tfplugin6};

use super::error::CallError;
use super::types::ActionEvent;
use super::{v5, v6};

macro_rules! terraform_1_14_client {
    () => {
        impl Client {
            pub(super) async fn validate_action_config(
                &self,
                type_name: &str,
                config: &DynamicValue,
            ) -> Result<Vec<Diagnostic>, RpcFailure> {
                let request = pb::validate_action_config::Request {
                    type_name: type_name.to_owned(),
                    config: Some(dynamic_value_to_wire(config)),
                };
                let response = self.rpc.clone().validate_action_config(request).await?.into_inner();
                Ok(diagnostics_from_wire(response.diagnostics))
            }

            pub(super) async fn plan_action(
                &self,
                action_type: &str,
                config: &DynamicValue,
            ) -> Result<crate::tfplugin::types::PlanActionResponse, RpcFailure> {
                let request = pb::plan_action::Request {
                    action_type: action_type.to_owned(),
                    config: Some(dynamic_value_to_wire(config)),
                    client_capabilities: client_capabilities(),
                };
                let response = self.rpc.clone().plan_action(request).await?.into_inner();
                Ok(crate::tfplugin::types::PlanActionResponse {
                    deferred: deferred_from_wire(response.deferred),
                    diagnostics: diagnostics_from_wire(response.diagnostics),
                })
            }

            pub(super) async fn invoke_action(
                &self,
                action_type: &str,
                config: &DynamicValue,
            ) -> Result<tonic::Streaming<pb::invoke_action::Event>, RpcFailure> {
                let request = pb::invoke_action::Request {
                    action_type: action_type.to_owned(),
                    config: Some(dynamic_value_to_wire(config)),
                    client_capabilities: client_capabilities(),
                };
                Ok(self.rpc.clone().invoke_action(request).await?.into_inner())
            }

            pub(super) async fn generate_resource_config(
                &self,
                type_name: &str,
                state: &DynamicValue,
            ) -> Result<crate::tfplugin::types::GenerateResourceConfigResponse, RpcFailure> {
                let request = pb::generate_resource_config::Request {
                    type_name: type_name.to_owned(),
                    state: Some(dynamic_value_to_wire(state)),
                };
                let response = self.rpc.clone().generate_resource_config(request).await?.into_inner();
                Ok(crate::tfplugin::types::GenerateResourceConfigResponse {
                    config: dynamic_value_from_wire(response.config),
                    diagnostics: diagnostics_from_wire(response.diagnostics),
                })
            }
        }

        /// One InvokeAction event; `None` for an event of a type this client does not know.
        pub(super) fn action_event_from_wire(
            event: pb::invoke_action::Event,
        ) -> Option<crate::tfplugin::types::ActionEvent> {
            use crate::tfplugin::types::ActionEvent;
            use pb::invoke_action::event::Type;
            match event.r#type? {
                Type::Progress(progress) => Some(ActionEvent::Progress(progress.message)),
                Type::Completed(completed) => {
                    Some(ActionEvent::Completed(diagnostics_from_wire(completed.diagnostics)))
                }
            }
        }
    };
}

pub(crate) use terraform_1_14_client;

pub(super) enum ActionStream {
    V5(tonic::Streaming<tfplugin5::invoke_action::Event>),
    V6(tonic::Streaming<tfplugin6::invoke_action::Event>),
}

/// The events of one InvokeAction, in the order the provider sent them.
pub struct ActionEvents {
    provider: String,
    stream: ActionStream,
}

impl ActionEvents {
    pub(super) fn new(provider: String, stream: ActionStream) -> ActionEvents {
        ActionEvents { provider, stream }
    }

    /// The next event; `Ok(None)` once the provider closed the stream. A broken stream is
    /// a [`CallError`] naming InvokeAction. Events of a type this client does not know are
    /// skipped (Terraform would crash on them; a newer provider should not fail the action).
    pub async fn next(&mut self) -> Result<Option<ActionEvent>, CallError> {
        loop {
            let received = match &mut self.stream {
                ActionStream::V5(stream) => stream.message().await.map(|event| event.map(v5::action_event_from_wire)),
                ActionStream::V6(stream) => stream.message().await.map(|event| event.map(v6::action_event_from_wire)),
            };
            match received {
                Ok(None) => return Ok(None),
                Ok(Some(Some(event))) => return Ok(Some(event)),
                Ok(Some(None)) => {
                    tracing::debug!(provider = %self.provider, "skipping an InvokeAction event of unknown type")
                }
                Err(status) => {
                    return Err(CallError::Rpc {
                        rpc: "InvokeAction",
                        provider: self.provider.clone(),
                        code: status.code(),
                        message: status.message().to_owned(),
                        exit: None,
                    });
                }
            }
        }
    }
}
