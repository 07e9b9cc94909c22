//! The ephemeral-resource RPCs on the wire, for both protocols: [`ephemeral_wire!`] is
//! expanded inside `v5` and `v6` after `core_rpcs_wire!` (whose helpers it uses); the
//! messages are the same in tfplugin5 and tfplugin6.

use std::time::SystemTime;

/// A protobuf timestamp as a time; one before the epoch or out of range is "now", so a
/// provider's odd answer renews at once rather than never.
pub(in crate::tfplugin) fn time_from_wire(timestamp: Option<prost_types::Timestamp>) -> Option<SystemTime> {
    let timestamp = timestamp?;
    let seconds = u64::try_from(timestamp.seconds).ok();
    let nanos = u32::try_from(timestamp.nanos).ok();
    match (seconds, nanos) {
        (Some(seconds), Some(nanos)) => SystemTime::UNIX_EPOCH
            .checked_add(std::time::Duration::new(seconds, nanos.min(999_999_999)))
            .or(Some(SystemTime::now())),
        _ => Some(SystemTime::now()),
    }
}

/// The ephemeral-resource client methods, expanded inside `v5` and `v6` after
/// `core_rpcs_wire!` (whose helpers they use).
macro_rules! ephemeral_wire {
    () => {
        use crate::tfplugin::ephemeral::wire::time_from_wire;
        use crate::tfplugin::ephemeral::{OpenEphemeralResourceResponse, RenewEphemeralResourceResponse};

        impl Client {
            crate::tfplugin::wire_method::validate_config_method!(validate_ephemeral_resource_config => validate_ephemeral_resource_config);

            pub(super) async fn open_ephemeral_resource(
                &self,
                type_name: &str,
                config: &DynamicValue,
            ) -> Result<OpenEphemeralResourceResponse, RpcFailure> {
                let request = pb::open_ephemeral_resource::Request {
                    type_name: type_name.to_owned(),
                    config: Some(dynamic_value_to_wire(config)),
                    client_capabilities: client_capabilities(),
                };
                let response = self.rpc.clone().open_ephemeral_resource(request).await?.into_inner();
                Ok(OpenEphemeralResourceResponse {
                    result: dynamic_value_from_wire(response.result),
                    private: response.private,
                    renew_at: time_from_wire(response.renew_at),
                    deferred: deferred_from_wire(response.deferred),
                    diagnostics: diagnostics_from_wire(response.diagnostics),
                })
            }

            pub(super) async fn renew_ephemeral_resource(
                &self,
                type_name: &str,
                private: Option<&[u8]>,
            ) -> Result<RenewEphemeralResourceResponse, RpcFailure> {
                let request = pb::renew_ephemeral_resource::Request {
                    type_name: type_name.to_owned(),
                    private: private.map(<[u8]>::to_vec),
                };
                let response = self.rpc.clone().renew_ephemeral_resource(request).await?.into_inner();
                Ok(RenewEphemeralResourceResponse {
                    private: response.private,
                    renew_at: time_from_wire(response.renew_at),
                    diagnostics: diagnostics_from_wire(response.diagnostics),
                })
            }

            pub(super) async fn close_ephemeral_resource(
                &self,
                type_name: &str,
                private: Option<&[u8]>,
            ) -> Result<Vec<Diagnostic>, RpcFailure> {
                let request = pb::close_ephemeral_resource::Request {
                    type_name: type_name.to_owned(),
                    private: private.map(<[u8]>::to_vec),
                };
                let response = self.rpc.clone().close_ephemeral_resource(request).await?.into_inner();
                Ok(diagnostics_from_wire(response.diagnostics))
            }
        }
    };
}

pub(crate) use ephemeral_wire;

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::time_from_wire;

    #[test]
    fn timestamps() {
        let at = |seconds, nanos| time_from_wire(Some(prost_types::Timestamp { seconds, nanos }));
        assert_eq!(time_from_wire(None), None);
        assert_eq!(at(10, 5), Some(SystemTime::UNIX_EPOCH + Duration::new(10, 5)));
        // Before the epoch: renew now (within the test's run time).
        let before = at(-1, 0).expect("a time");
        assert!(before.duration_since(SystemTime::now() - Duration::from_secs(60)).is_ok());
    }
}
