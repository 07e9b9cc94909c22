//! What every RPC family's wire macro shares: [`validate_config_method!`], the five
//! `Validate…Config` client methods' one shape. Its own module, below the families, so that no
//! family's wire code depends on another's.

/// One `Validate…Config` client method, inside an expansion for `v5` or `v6`: a type name and
/// a configuration in, the diagnostics out. `$rpc` names both the client method and its
/// request's module; the request's other fields follow it.
macro_rules! validate_config_method {
    ($method:ident => $rpc:ident $(, $field:ident: $value:expr)* $(,)?) => {
        pub(super) async fn $method(&self, type_name: &str, config: &DynamicValue) -> Result<Vec<Diagnostic>, RpcFailure> {
            let request = pb::$rpc::Request {
                type_name: type_name.to_owned(),
                config: Some(dynamic_value_to_wire(config)),
                $($field: $value,)*
            };
            let response = self.rpc.clone().$rpc(request).await?.into_inner();
            Ok(diagnostics_from_wire(response.diagnostics))
        }
    };
}

pub(crate) use validate_config_method;
