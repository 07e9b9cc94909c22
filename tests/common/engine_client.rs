//! The engine as the provider's gRPC client: a stand-in for the Pulumi engine's side of the
//! provider protocol that starts a provider binary (ours or the Go implementation),
//! parameterizes and configures it, and makes the resource calls the engine makes, with
//! property values written as JSON.
//!
//! Values use Pulumi's wire JSON: a secret is the signature object
//! `{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": ...}`
//! and an unknown is the string `04da6b54-80e4-46f7-96ec-b56ff0331ba9`.

use std::path::Path;

use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::parameterize_request::{Parameters, ParametersArgs};
use tfbridge_proto::pulumirpc::resource_provider_client::ResourceProviderClient;
use tonic::transport::Channel;

use super::Implementation;
use super::plugin::Plugin;

pub const UNKNOWN: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
pub const SECRET_SIG: &str = "4dabf18193072939515e22adb298388d";
pub const SECRET_VALUE: &str = "1b47061264138c4ac30d75fd1eb44270";

/// `value` wrapped as a Pulumi secret.
pub fn secret(value: Json) -> Json {
    json!({SECRET_SIG: SECRET_VALUE, "value": value})
}

/// `value` with every secret unwrapped.
pub fn reveal(value: &Json) -> Json {
    match value {
        Json::Object(map) if map.get(SECRET_SIG).and_then(Json::as_str) == Some(SECRET_VALUE) => {
            reveal(map.get("value").unwrap_or(&Json::Null))
        }
        Json::Object(map) => Json::Object(map.iter().map(|(k, v)| (k.clone(), reveal(v))).collect()),
        Json::Array(items) => Json::Array(items.iter().map(reveal).collect()),
        other => other.clone(),
    }
}

pub fn to_struct(json: &Json) -> prost_types::Struct {
    match to_value(json).kind {
        Some(prost_types::value::Kind::StructValue(s)) => s,
        _ => panic!("expected a JSON object, got {json}"),
    }
}

fn to_value(json: &Json) -> prost_types::Value {
    use prost_types::value::Kind;
    let kind = match json {
        Json::Null => Kind::NullValue(0),
        Json::Bool(b) => Kind::BoolValue(*b),
        Json::Number(n) => Kind::NumberValue(n.as_f64().expect("a finite number")),
        Json::String(s) => Kind::StringValue(s.clone()),
        Json::Array(items) => Kind::ListValue(prost_types::ListValue { values: items.iter().map(to_value).collect() }),
        Json::Object(map) => Kind::StructValue(prost_types::Struct {
            fields: map.iter().map(|(k, v)| (k.clone(), to_value(v))).collect(),
        }),
    };
    prost_types::Value { kind: Some(kind) }
}

pub fn from_struct(value: &prost_types::Struct) -> Json {
    Json::Object(value.fields.iter().map(|(k, v)| (k.clone(), from_value(v))).collect())
}

fn from_value(value: &prost_types::Value) -> Json {
    use prost_types::value::Kind;
    match &value.kind {
        None | Some(Kind::NullValue(_)) => Json::Null,
        Some(Kind::BoolValue(b)) => Json::Bool(*b),
        // Integral numbers as JSON integers, so expectations can be written as `2`.
        Some(Kind::NumberValue(n)) if n.fract() == 0.0 && n.abs() < 9.0e15 => Json::from(*n as i64),
        Some(Kind::NumberValue(n)) => serde_json::Number::from_f64(*n).map_or(Json::Null, Json::Number),
        Some(Kind::StringValue(s)) => Json::String(s.clone()),
        Some(Kind::ListValue(list)) => Json::Array(list.values.iter().map(from_value).collect()),
        Some(Kind::StructValue(s)) => from_struct(s),
    }
}

/// One provider process, parameterized with one Terraform provider.
pub struct Session {
    pub plugin: Plugin,
    pub client: ResourceProviderClient<Channel>,
    pub package: String,
    pub implementation: Implementation,
}

/// The URN of a resource of type `token` named `name`.
pub fn urn(token: &str, name: &str) -> String {
    format!("urn:pulumi:test::lifecycle::{token}::{name}")
}

impl Session {
    /// Starts `implementation`, parameterized with the provider binary at `provider`.
    pub async fn start(implementation: Implementation, provider: &Path) -> Session {
        // Nothing listens on the discard port, so the plugin's Engine.Log calls go nowhere.
        Session::start_with_engine(implementation, provider, "127.0.0.1:9").await
    }

    /// Like [`Session::start`], with the engine (for Engine.Log) at `engine`.
    pub async fn start_with_engine(implementation: Implementation, provider: &Path, engine: &str) -> Session {
        Session::start_with_env(implementation, provider, engine, &[]).await
    }

    /// Like [`Session::start_with_engine`], with extra environment variables for the plugin.
    pub async fn start_with_env(
        implementation: Implementation,
        provider: &Path,
        engine: &str,
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Session {
        let binary = implementation.plugin_binary().unwrap_or_else(|err| panic!("{err:#}"));
        let plugin = Plugin::start_with_env(&binary, &[engine], env);
        let mut client = plugin.client().await;
        let args = vec![provider.to_str().expect("utf-8 path").to_owned()];
        let response = client
            .parameterize(pulumirpc::ParameterizeRequest {
                parameters: Some(Parameters::Args(ParametersArgs { args })),
            })
            .await
            .expect("Parameterize")
            .into_inner();
        Session { plugin, client, package: response.name, implementation }
    }

    /// CheckConfig then Configure with `config` (plus the engine's `version` key).
    pub async fn configure(&mut self, config: Json) -> Result<(), tonic::Status> {
        let mut args = config;
        args["version"] = json!("0.0.0");
        let urn = format!("urn:pulumi:test::lifecycle::pulumi:providers:{}::default", self.package);
        let checked = self
            .client
            .check_config(pulumirpc::CheckRequest {
                urn: urn.clone(),
                olds: Some(to_struct(&json!({}))),
                news: Some(to_struct(&args)),
                ..Default::default()
            })
            .await?
            .into_inner();
        assert!(checked.failures.is_empty(), "CheckConfig failures: {:?}", checked.failures);
        self.client
            .configure(pulumirpc::ConfigureRequest {
                args: checked.inputs,
                accept_secrets: true,
                accept_resources: true,
                sends_old_inputs: true,
                sends_old_inputs_to_delete: true,
                urn: Some(urn),
                ..Default::default()
            })
            .await?;
        Ok(())
    }

    pub async fn check(&mut self, urn: &str, olds: &Json, news: &Json) -> pulumirpc::CheckResponse {
        self.try_check(urn, olds, news).await.expect("Check")
    }

    pub async fn try_check(
        &mut self,
        urn: &str,
        olds: &Json,
        news: &Json,
    ) -> Result<pulumirpc::CheckResponse, tonic::Status> {
        self.try_check_with_old_outputs(urn, olds, news, None).await
    }

    /// Check as an engine of 3.261 or later sends it on an update: with the stored outputs.
    pub async fn try_check_with_old_outputs(
        &mut self,
        urn: &str,
        olds: &Json,
        news: &Json,
        old_outputs: Option<&Json>,
    ) -> Result<pulumirpc::CheckResponse, tonic::Status> {
        let (token, name) = split_urn(urn);
        let request = pulumirpc::CheckRequest {
            urn: urn.to_owned(),
            olds: Some(to_struct(olds)),
            news: Some(to_struct(news)),
            random_seed: vec![7; 32],
            name: name.to_owned(),
            r#type: token.to_owned(),
            autonaming: None,
            old_outputs: old_outputs.map(to_struct),
        };
        Ok(self.client.check(request).await?.into_inner())
    }

    /// Check (which must pass) then Create; returns the checked inputs, the id and outputs.
    pub async fn create(&mut self, urn: &str, news: Json) -> (Json, String, Json) {
        let checked = self.check(urn, &json!({}), &news).await;
        assert!(checked.failures.is_empty(), "Check failures for {urn}: {:?}", checked.failures);
        let inputs = from_struct(checked.inputs.as_ref().expect("inputs"));
        let (id, outputs) = self.try_create(urn, &inputs, false).await.expect("Create");
        (inputs, id, outputs)
    }

    pub async fn try_create(
        &mut self,
        urn: &str,
        inputs: &Json,
        preview: bool,
    ) -> Result<(String, Json), tonic::Status> {
        let (token, name) = split_urn(urn);
        let response = self
            .client
            .create(pulumirpc::CreateRequest {
                urn: urn.to_owned(),
                properties: Some(to_struct(inputs)),
                timeout: 0.0,
                preview,
                name: name.to_owned(),
                r#type: token.to_owned(),
                ..Default::default()
            })
            .await?
            .into_inner();
        Ok((response.id, from_struct(response.properties.as_ref().expect("properties"))))
    }

    pub async fn diff(
        &mut self,
        urn: &str,
        id: &str,
        olds: &Json,
        old_inputs: &Json,
        news: &Json,
    ) -> pulumirpc::DiffResponse {
        self.try_diff(urn, id, olds, old_inputs, news)
            .await
            .unwrap_or_else(|status| panic!("Diff of {urn}: {}", status.message()))
    }

    pub async fn try_diff(
        &mut self,
        urn: &str,
        id: &str,
        olds: &Json,
        old_inputs: &Json,
        news: &Json,
    ) -> Result<pulumirpc::DiffResponse, tonic::Status> {
        let (token, name) = split_urn(urn);
        Ok(self
            .client
            .diff(pulumirpc::DiffRequest {
                id: id.to_owned(),
                urn: urn.to_owned(),
                olds: Some(to_struct(olds)),
                news: Some(to_struct(news)),
                ignore_changes: Vec::new(),
                old_inputs: Some(to_struct(old_inputs)),
                name: name.to_owned(),
                r#type: token.to_owned(),
            })
            .await?
            .into_inner())
    }

    pub async fn update(
        &mut self,
        urn: &str,
        id: &str,
        olds: &Json,
        old_inputs: &Json,
        news: &Json,
    ) -> Result<Json, tonic::Status> {
        let (token, name) = split_urn(urn);
        let response = self
            .client
            .update(pulumirpc::UpdateRequest {
                id: id.to_owned(),
                urn: urn.to_owned(),
                olds: Some(to_struct(olds)),
                news: Some(to_struct(news)),
                old_inputs: Some(to_struct(old_inputs)),
                name: name.to_owned(),
                r#type: token.to_owned(),
                ..Default::default()
            })
            .await?
            .into_inner();
        Ok(from_struct(response.properties.as_ref().expect("properties")))
    }

    /// Read: a refresh when `outputs` is given, else an import of `id`.
    pub async fn read(
        &mut self,
        urn: &str,
        id: &str,
        outputs: Option<&Json>,
        inputs: Option<&Json>,
    ) -> Result<pulumirpc::ReadResponse, tonic::Status> {
        let (token, name) = split_urn(urn);
        Ok(self
            .client
            .read(pulumirpc::ReadRequest {
                id: id.to_owned(),
                urn: urn.to_owned(),
                properties: outputs.map(to_struct),
                inputs: inputs.map(to_struct),
                name: name.to_owned(),
                r#type: token.to_owned(),
                ..Default::default()
            })
            .await?
            .into_inner())
    }

    pub async fn delete(
        &mut self,
        urn: &str,
        id: &str,
        outputs: &Json,
        old_inputs: &Json,
    ) -> Result<(), tonic::Status> {
        let (token, name) = split_urn(urn);
        self.client
            .delete(pulumirpc::DeleteRequest {
                id: id.to_owned(),
                urn: urn.to_owned(),
                properties: Some(to_struct(outputs)),
                old_inputs: Some(to_struct(old_inputs)),
                name: name.to_owned(),
                r#type: token.to_owned(),
                ..Default::default()
            })
            .await?;
        Ok(())
    }

    /// Calls the provider resource's method `method` (`terraformConfig`) the way the engine
    /// forwards a program's call: `__self__` is a reference to the provider resource.
    pub async fn call_provider_method(&mut self, method: &str, dry_run: bool) -> Result<Json, tonic::Status> {
        let provider_urn = format!("urn:pulumi:test::lifecycle::pulumi:providers:{}::default", self.package);
        let args = json!({"__self__": {
            "4dabf18193072939515e22adb298388d": "5cf8f73096256a8f31e491e813e4eb8e",
            "urn": provider_urn,
            "id": "00000000-0000-0000-0000-000000000000",
        }});
        let response = self
            .client
            .call(pulumirpc::CallRequest {
                tok: format!("pulumi:providers:{}/{method}", self.package),
                args: Some(to_struct(&args)),
                project: "lifecycle".to_owned(),
                stack: "test".to_owned(),
                dry_run,
                ..Default::default()
            })
            .await?
            .into_inner();
        Ok(response.r#return.as_ref().map(from_struct).unwrap_or(Json::Null))
    }

    pub async fn invoke(&mut self, token: &str, args: &Json) -> Result<pulumirpc::InvokeResponse, tonic::Status> {
        Ok(self
            .client
            .invoke(pulumirpc::InvokeRequest { tok: token.to_owned(), args: Some(to_struct(args)), preview: false })
            .await?
            .into_inner())
    }
}

fn split_urn(urn: &str) -> (&str, &str) {
    let mut parts = urn.splitn(4, "::");
    let token = parts.nth(2).expect("a URN with a type");
    let name = parts.next().expect("a URN with a name");
    (token, name)
}

/// A DiffResponse in a compact, comparable form: `changes`, `replaces`, `diffs` and the
/// detailed diff as `path:KIND` strings, sorted.
pub fn summarize_diff(diff: &pulumirpc::DiffResponse) -> String {
    use pulumirpc::diff_response::DiffChanges;
    use pulumirpc::property_diff::Kind;
    let changes = DiffChanges::try_from(diff.changes).map_or("?", |c| c.as_str_name());
    let mut detailed: Vec<String> = diff
        .detailed_diff
        .iter()
        .map(|(path, d)| format!("{path}:{}", Kind::try_from(d.kind).map_or("?", |k| k.as_str_name())))
        .collect();
    detailed.sort();
    format!("{changes} replaces={:?} diffs={:?} detailed={detailed:?}", diff.replaces, diff.diffs)
}

/// The `ErrorResourceInitFailed` detail of a status, if it has one.
pub fn init_failed(status: &tonic::Status) -> Option<pulumirpc::ErrorResourceInitFailed> {
    let details = <tonic_types::pb::Status as prost::Message>::decode(status.details()).ok()?;
    details
        .details
        .iter()
        .find(|any| any.type_url.ends_with("/pulumirpc.ErrorResourceInitFailed"))
        .and_then(|any| <pulumirpc::ErrorResourceInitFailed as prost::Message>::decode(any.value.as_slice()).ok())
}
