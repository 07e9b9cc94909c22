//! The action RPCs and GenerateResourceConfig on the wire (protocol 5.10/6.10), for both
//! protocols: [`actions_wire!`] is expanded inside `v5` and `v6` after
//! `core_rpcs_wire!` (whose helpers it uses), as every family's wire macro is.

macro_rules! actions_wire {
    () => {
        impl Client {
            crate::tfplugin::wire_method::validate_config_method!(validate_action_config => validate_action_config);

            pub(super) async fn plan_action(
                &self,
                action_type: &str,
                config: &DynamicValue,
            ) -> Result<crate::tfplugin::actions::PlanActionResponse, RpcFailure> {
                let request = pb::plan_action::Request {
                    action_type: action_type.to_owned(),
                    config: Some(dynamic_value_to_wire(config)),
                    client_capabilities: client_capabilities(),
                };
                let response = self.rpc.clone().plan_action(request).await?.into_inner();
                Ok(crate::tfplugin::actions::PlanActionResponse {
                    deferred: deferred_from_wire(response.deferred),
                    diagnostics: diagnostics_from_wire(response.diagnostics),
                })
            }

            pub(super) async fn invoke_action(
                &self,
                action_type: &str,
                config: &DynamicValue,
            ) -> Result<crate::tfplugin::actions::ActionStream, RpcFailure> {
                let request = pb::invoke_action::Request {
                    action_type: action_type.to_owned(),
                    config: Some(dynamic_value_to_wire(config)),
                    client_capabilities: client_capabilities(),
                };
                let stream = self.rpc.clone().invoke_action(request).await?.into_inner();
                Ok(Box::pin(tokio_stream::StreamExt::map(stream, |event| event.map(action_event_from_wire))))
            }

            pub(super) async fn generate_resource_config(
                &self,
                type_name: &str,
                state: &DynamicValue,
            ) -> Result<crate::tfplugin::actions::GenerateResourceConfigResponse, RpcFailure> {
                let request = pb::generate_resource_config::Request {
                    type_name: type_name.to_owned(),
                    state: Some(dynamic_value_to_wire(state)),
                };
                let response = self.rpc.clone().generate_resource_config(request).await?.into_inner();
                Ok(crate::tfplugin::actions::GenerateResourceConfigResponse {
                    config: dynamic_value_from_wire(response.config),
                    diagnostics: diagnostics_from_wire(response.diagnostics),
                })
            }
        }

        /// One InvokeAction event; `None` for an event of a type this client does not know.
        fn action_event_from_wire(event: pb::invoke_action::Event) -> Option<crate::tfplugin::actions::ActionEvent> {
            use crate::tfplugin::actions::ActionEvent;
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

pub(crate) use actions_wire;
