//! Answers the Go implementation's own tests expect of a provider (pulumi-terraform-bridge
//! v3.136.0, `dynamic/provider_test.go`), which ours once gave differently (issue 42): the
//! plugin's schema before Parameterize, CheckConfig of a setting given as JSON text, Read of
//! a resource by id and state alone, a create's preview, and CheckConfig2 (Pulumi 3.277).
//! What stays different on purpose is in docs/go-differences.md.
//!
//! Our plugin serves the fixture provider (tests/fixture-provider) through the engine's
//! calls (tests/common/engine_client.rs); the expected values are the Go tests' facts.

use crate::common;

use common::Implementation;
use common::engine_client::{Session, from_struct, to_struct, urn};
use common::plugin::Plugin;
use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;

const FLAGS: &str = "fixture:index/flags:Flags";
const VERSIONED: &str = "fixture:index/versioned:Versioned";
const PROVIDER_URN: &str = "urn:pulumi:test::lifecycle::pulumi:providers:fixture::default";

async fn fixture() -> Session {
    let store = common::scratch_dir("go-answers-store");
    let dir = common::fixture::wrapper_dir("6", &[("FIXTURE_STORE_DIR", store.to_str().expect("UTF-8"))])
        .expect("the fixture provider is built");
    Session::start(Implementation::Ours, &dir.join("terraform-provider-fixture")).await
}

/// `TestSchemaGeneration/unparameterized`: every field Go's has, `version` being each
/// build's own.
#[tokio::test]
async fn the_schema_before_parameterize_describes_the_plugin() {
    let plugin = Plugin::start(&["127.0.0.1:9"]);
    let mut client = plugin.client().await;
    let response = client.get_schema(pulumirpc::GetSchemaRequest::default()).await.expect("GetSchema").into_inner();
    let mut schema: Json = serde_json::from_str(&response.schema).expect("JSON");
    let version = schema.as_object_mut().and_then(|schema| schema.remove("version"));
    assert_eq!(version, Some(json!(env!("CARGO_PKG_VERSION"))));
    let token = "pulumi:providers:terraform-provider/terraformConfig";
    let expected = json!({
        "name": "terraform-provider",
        "displayName": "Any Terraform Provider",
        "description": "Use any Terraform provider with Pulumi",
        "keywords": ["category/utility"],
        "license": "Apache-2.0",
        "repository": "https://github.com/pulumi/pulumi-terraform-provider",
        "logoUrl": "https://raw.githubusercontent.com/pulumi/pulumi-terraform-provider/main/assets/logo.png",
        "meta": {"moduleFormat": "(.*)(?:/[^/]*)"},
        "config": {},
        "provider": {},
        "functions": {
            token: {
                "description": "This function returns a Terraform config object with terraform-namecased keys,to be used with the Terraform Module Provider.",
                "inputs": {
                    "properties": {"__self__": {"type": "ref", "$ref": "#/provider"}},
                    "type": token,
                    "required": ["__self__"]
                },
                "outputs": {
                    "properties": {"result": {"additionalProperties": {"$ref": "pulumi.json#/Any"}, "type": "object"}},
                    "required": ["result"],
                    "type": "object"
                }
            }
        }
    });
    assert_eq!(schema, expected);
    // Dropped, not closed: Wine cannot deliver the Ctrl+Break a close sends, and the shutdown
    // is plugin_process's to test.
    drop(plugin);
}

/// `TestDynamicCheckConfig/json-encoded-nested-config`: a block or map setting given as JSON
/// text is answered in Go's compact encoding (keys sorted, no spaces), by CheckConfig and by
/// CheckConfig2 alike.
#[tokio::test]
async fn check_config_reencodes_json_text_as_go_does() {
    let mut session = fixture().await;
    let news = json!({
        "endpoint": "http://127.0.0.1:9",
        "maxRetries": "3",
        "features": r#"{"enableMisbehaviour": false}"#,
        "defaultTags": "{\"team\": \"a\",  \"env\": \"<b>\"}",
        "version": "0.0.0",
    });
    let expected = json!({
        "endpoint": "http://127.0.0.1:9",
        "maxRetries": "3",
        "features": r#"{"enableMisbehaviour":false}"#,
        "defaultTags": r#"{"env":"\u003cb\u003e","team":"a"}"#,
        "version": "0.0.0",
    });
    let checked = session
        .client
        .check_config(pulumirpc::CheckRequest {
            urn: PROVIDER_URN.to_owned(),
            olds: Some(to_struct(&json!({}))),
            news: Some(to_struct(&news)),
            ..Default::default()
        })
        .await
        .expect("CheckConfig")
        .into_inner();
    assert!(checked.failures.is_empty(), "{:?}", checked.failures);
    assert_eq!(from_struct(checked.inputs.as_ref().expect("inputs")), expected);

    let checked2 = session
        .client
        .check_config2(pulumirpc::CheckConfigRequest {
            urn: PROVIDER_URN.to_owned(),
            name: "default".to_owned(),
            r#type: "pulumi:providers:fixture".to_owned(),
            new_inputs: Some(to_struct(&news)),
            ..Default::default()
        })
        .await
        .expect("CheckConfig2")
        .into_inner();
    assert!(checked2.failures.is_empty(), "{:?}", checked2.failures);
    assert_eq!(from_struct(checked2.inputs.as_ref().expect("inputs")), expected);

    // A failure is a failure in either call, at the same property.
    let bad = json!({"endpoint": "http://127.0.0.1:9", "maxRetries": "many"});
    let failed = session
        .client
        .check_config2(pulumirpc::CheckConfigRequest {
            urn: PROVIDER_URN.to_owned(),
            new_inputs: Some(to_struct(&bad)),
            ..Default::default()
        })
        .await
        .expect("CheckConfig2")
        .into_inner();
    let old = session
        .client
        .check_config(pulumirpc::CheckRequest {
            urn: PROVIDER_URN.to_owned(),
            news: Some(to_struct(&bad)),
            ..Default::default()
        })
        .await
        .expect("CheckConfig")
        .into_inner();
    let failed: Vec<_> = failed.failures.into_iter().map(|f| (f.property, f.reason)).collect();
    let old: Vec<_> = old.failures.into_iter().map(|f| (f.property, f.reason)).collect();
    assert!(failed.iter().any(|(property, _)| property == "maxRetries"), "a number that is not one: {failed:?}");
    assert_eq!(failed, old);
}

/// `TestPrimitiveTypes/read` (inputs `{}` when the engine sends none), `create(preview)` (no
/// `__meta`, nor in an update's preview), and Read by id alone of an object that is not there, as the engine's
/// `ExistsResource` asks it (3.273): an empty answer, not an error.
#[tokio::test]
async fn read_without_inputs_preview_and_exists() {
    let mut session = fixture().await;
    session.configure(json!({"endpoint": "http://127.0.0.1:9", "maxRetries": 3})).await.expect("Configure");

    // fixture_versioned is at schema version 3 and the fixture plans private bytes, so a
    // stored state has a `__meta`.
    let versioned = urn(VERSIONED, "v");
    let (preview_id, preview) = session.try_create(&versioned, &json!({"value": "x"}), true).await.expect("preview");
    assert!(preview.get("__meta").is_none(), "a create's preview has no __meta: {preview}");
    assert_eq!(preview["value"], json!("x"));
    let (id, created) = session.try_create(&versioned, &json!({"value": "x"}), false).await.expect("Create");
    let meta = created["__meta"].as_str().unwrap_or_default();
    assert!(meta.contains(r#""schema_version":"3""#), "the created state has its __meta: {created}");
    assert!(preview_id.is_empty() || preview_id == id, "{preview_id} / {id}");
    // An update's preview neither (the Go implementation's Update returns the planned state).
    let update_preview = session
        .client
        .update(pulumirpc::UpdateRequest {
            id: id.clone(),
            urn: versioned.clone(),
            olds: Some(to_struct(&created)),
            news: Some(to_struct(&json!({"value": "y"}))),
            old_inputs: Some(to_struct(&json!({"value": "x"}))),
            preview: true,
            name: "v".to_owned(),
            r#type: VERSIONED.to_owned(),
            ..Default::default()
        })
        .await
        .expect("Update preview")
        .into_inner();
    let update_preview = from_struct(update_preview.properties.as_ref().expect("properties"));
    assert_eq!(update_preview["value"], json!("y"));
    assert!(update_preview.get("__meta").is_none(), "an update's preview has no __meta: {update_preview}");

    let flags = urn(FLAGS, "f");
    let (inputs, id, outputs) = session.create(&flags, json!({"name": "a", "region": "r1"})).await;
    let without = session.read(&flags, &id, Some(&outputs), None).await.expect("Read");
    assert_eq!(without.id, id);
    assert_eq!(without.inputs.as_ref().map(from_struct), Some(json!({})), "Go answers empty inputs");
    let with = session.read(&flags, &id, Some(&outputs), Some(&inputs)).await.expect("Read");
    let refreshed = from_struct(with.inputs.as_ref().expect("inputs"));
    assert_eq!((&refreshed["name"], &refreshed["region"]), (&json!("a"), &json!("r1")), "{refreshed}");

    let absent = session.read(&flags, "absent", None, None).await.expect("Read of a missing object");
    assert_eq!(absent.id, "");
    assert!(absent.properties.as_ref().is_none_or(|p| p.fields.is_empty()), "{absent:?}");
    let present = session.read(&flags, &id, None, None).await.expect("Read by id");
    assert_eq!(present.id, id);
    assert_eq!(from_struct(present.properties.as_ref().expect("properties"))["name"], json!("a"));
}
