//! How a served call's span names it (`telemetry`): the RPC's wire name, the engine's trace
//! context from the request's metadata, and the token the request is about.
//!
//! Architecture invariant: names only, read from the request's token fields and URN, never
//! from its properties.

use std::borrow::Cow;

use tfbridge_proto::pulumirpc;
use tonic::Request;

use super::resources::urn_type;
use crate::telemetry::{EngineContext, SpanName, SpanSubject};

/// The service the engine calls.
const SERVICE: &str = "pulumirpc.ResourceProvider";

/// The span description of the call of `rpc` (the trait method's name, `check_config`) with
/// `request`.
pub(super) fn served<'a, R: Token>(rpc: &'static str, request: &'a Request<R>) -> (SpanName<'a>, EngineContext<'a>) {
    let metadata = request.metadata();
    let text = |key: &str| metadata.get(key).and_then(|value| value.to_str().ok());
    let engine = EngineContext { traceparent: text("traceparent"), tracestate: text("tracestate") };
    let subject = request.get_ref().token().filter(|token| !token.is_empty()).map(SpanSubject::PulumiToken);
    (SpanName { service: SERVICE, method: Cow::Owned(wire_name(rpc)), subject }, engine)
}

/// A trait method's RPC as the wire names it: `get_plugin_info` → `GetPluginInfo`.
fn wire_name(rpc: &str) -> String {
    rpc.split('_')
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map(|first| first.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

/// The token a request is about: a resource type (from its `type`, else its URN: older
/// engines send only the URN), a function or method, or none.
pub(super) trait Token {
    fn token(&self) -> Option<&str> {
        None
    }
}

/// The resource type of a resource request.
fn resource_type<'a>(ty: &'a str, urn: &'a str) -> &'a str {
    if ty.is_empty() { urn_type(urn) } else { ty }
}

macro_rules! resource_requests {
    ($($request:ty),*) => {
        $(impl Token for $request {
            fn token(&self) -> Option<&str> {
                Some(resource_type(&self.r#type, &self.urn))
            }
        })*
    };
}

resource_requests!(
    pulumirpc::CheckRequest,
    pulumirpc::CheckConfigRequest,
    pulumirpc::DiffRequest,
    pulumirpc::CreateRequest,
    pulumirpc::UpdateRequest,
    pulumirpc::DeleteRequest,
    pulumirpc::ReadRequest
);

impl Token for pulumirpc::ConfigureRequest {
    fn token(&self) -> Option<&str> {
        Some(resource_type(self.r#type.as_deref().unwrap_or_default(), self.urn.as_deref().unwrap_or_default()))
    }
}

impl Token for pulumirpc::InvokeRequest {
    fn token(&self) -> Option<&str> {
        Some(&self.tok)
    }
}

impl Token for pulumirpc::CallRequest {
    fn token(&self) -> Option<&str> {
        Some(&self.tok)
    }
}

impl Token for pulumirpc::ListRequest {
    fn token(&self) -> Option<&str> {
        Some(&self.token)
    }
}

impl Token for pulumirpc::ConstructRequest {
    fn token(&self) -> Option<&str> {
        Some(&self.r#type)
    }
}

/// The plugin's own RPCs are about no token.
impl Token for () {}
impl Token for pulumirpc::ProviderHandshakeRequest {}
impl Token for pulumirpc::PluginAttach {}
impl Token for pulumirpc::ParameterizeRequest {}
impl Token for pulumirpc::GetSchemaRequest {}
impl Token for pulumirpc::GetMappingRequest {}
impl Token for pulumirpc::GetMappingsRequest {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names() {
        let cases = [
            ("check_config", "CheckConfig"),
            ("check_config2", "CheckConfig2"),
            ("get_plugin_info", "GetPluginInfo"),
            ("create", "Create"),
            ("get_mappings", "GetMappings"),
        ];
        for (rpc, want) in cases {
            assert_eq!(wire_name(rpc), want, "{rpc}");
        }
    }

    #[test]
    fn a_span_names_the_engines_context_and_the_token_never_a_property() {
        let check = pulumirpc::CheckRequest {
            urn: "urn:pulumi:dev::proj::random:index/pet:Pet::pet".to_owned(),
            news: Some(prost_types::Struct {
                fields: [(
                    "prefix".to_owned(),
                    prost_types::Value { kind: Some(prost_types::value::Kind::StringValue("hunter2".to_owned())) },
                )]
                .into(),
            }),
            ..Default::default()
        };
        let mut request = Request::new(check);
        request
            .metadata_mut()
            .insert("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".parse().unwrap());
        let (rpc, engine) = served("check", &request);
        assert_eq!(
            format!("{rpc:?}"),
            r#"SpanName { service: "pulumirpc.ResourceProvider", method: "Check", subject: Some(PulumiToken("random:index/pet:Pet")) }"#
        );
        assert_eq!(engine.traceparent, Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
        assert_eq!(engine.tracestate, None);

        let cases: Vec<(Option<&str>, Box<dyn Token>)> = vec![
            // The type field wins over the URN's.
            (
                Some("random:index/pet:Pet"),
                Box::new(pulumirpc::CreateRequest {
                    urn: "urn:pulumi:dev::proj::parent$random:index/pet:Pet::pet".to_owned(),
                    ..Default::default()
                }),
            ),
            (
                Some("random:index/id:Id"),
                Box::new(pulumirpc::DeleteRequest {
                    urn: "urn:pulumi:dev::proj::random:index/pet:Pet::pet".to_owned(),
                    r#type: "random:index/id:Id".to_owned(),
                    ..Default::default()
                }),
            ),
            (
                Some("pulumi:providers:random"),
                Box::new(pulumirpc::ConfigureRequest {
                    urn: Some("urn:pulumi:dev::proj::pulumi:providers:random::default".to_owned()),
                    ..Default::default()
                }),
            ),
            (
                Some("random:index/getPet:getPet"),
                Box::new(pulumirpc::InvokeRequest {
                    tok: "random:index/getPet:getPet".to_owned(),
                    ..Default::default()
                }),
            ),
            (None, Box::new(pulumirpc::ParameterizeRequest::default())),
        ];
        for (want, request) in cases {
            assert_eq!(request.token(), want);
        }
    }
}
