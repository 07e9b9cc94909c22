//! The gRPC debug log (`PULUMI_TF_DEBUG_GRPC`) of a fixed sequence of calls, byte for byte
//! against `tests/golden/debug_log/fixture_v6.jsonl`, up to the timestamp and duration of
//! each line.
//!
//! The log is a user-facing file (users attach it to bug reports) and its redaction is a
//! promise, so its content must not drift when the code that writes it is reshaped. The
//! sequence touches every shape of entry the fixture can produce: start-up (GetMetadata,
//! GetProviderSchema, GetResourceIdentitySchemas), CheckConfig and Configure with a secret
//! setting, a resource's Check, Create, Diff, Update, Read, import (ImportResourceState,
//! ReadResource, GenerateResourceConfig) and Delete with sensitive, write-only and
//! Pulumi-secret values, a data source with a secret argument, a function, an ephemeral
//! resource opened and closed (Cancel), and an action (ValidateActionConfig, PlanAction,
//! InvokeAction).
//!
//! Our plugin runs as its own process (the variable is read once per process), serving
//! the fixture provider over protocol 6 with the Terraform 1.14 features on. Refresh the
//! golden file with `UPDATE_EXPECT=1`.
//!
//! Needs `cargo build -p terraform-provider-fixture` (scripts/test.sh builds the workspace).

use crate::common;

use std::ffi::OsStr;

use common::engine_client::{Session, from_struct, secret, urn};
use common::implementation::Implementation;
use common::plugin::Plugin;
use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::parameterize_request::{Parameters, ParametersArgs};

const FLAGS: &str = "fixture:index/flags:Flags";

/// One log line with its timestamp and duration, the only fields that vary between runs,
/// replaced by placeholders. The rest is compared as the plugin wrote it, key order included.
fn normalized(line: &str) -> String {
    let entry: Json = serde_json::from_str(line).unwrap_or_else(|err| panic!("not JSON ({err}): {line}"));
    assert!(entry.is_object(), "each line is an object: {line}");
    let line = replace_field(line, "timestamp", "\"<timestamp>\"");
    replace_field(&line, "duration_ns", "0")
}

/// `line` with the value of the top-level `"field":` replaced by `value`. The two fields
/// are the last ones written and hold a string and a number, never a nested value.
fn replace_field(line: &str, field: &str, value: &str) -> String {
    let key = format!("\"{field}\":");
    let start = line.rfind(&key).unwrap_or_else(|| panic!("no {field} in {line}")) + key.len();
    let rest = &line[start..];
    let end = match rest.strip_prefix('"') {
        Some(string) => string.find('"').expect("a closed string") + 2,
        None => rest.find([',', '}']).expect("a number ends"),
    };
    format!("{}{value}{}", &line[..start], &rest[end..])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_debug_log_of_a_fixed_sequence_of_calls_stays_the_same() {
    let store = common::scratch_dir("debug-log-store");
    let dir = common::fixture::wrapper_dir(
        "6",
        &[("FIXTURE_STORE_DIR", store.to_str().expect("UTF-8")), ("FIXTURE_1_14", "1")],
    )
    .expect("the fixture provider is built");
    let log_dir = common::scratch_dir("debug-log");
    let log = log_dir.join("grpc.jsonl");
    let plugin = Plugin::start_with_env(
        &common::our_plugin(),
        &["127.0.0.1:9"],
        &[("PULUMI_TF_DEBUG_GRPC", log.as_os_str()), ("PULUMI_TF_SCHEMA_CACHE", OsStr::new("off"))],
    );
    let mut client = plugin.client().await;
    // As the engine does: only then does Invoke say whether it is a preview, which actions need.
    client
        .handshake(pulumirpc::ProviderHandshakeRequest {
            engine_address: "127.0.0.1:9".to_owned(),
            configure_with_urn: true,
            invoke_with_preview: true,
            ..Default::default()
        })
        .await
        .expect("Handshake");
    let provider = dir.join("terraform-provider-fixture");
    let args = vec![provider.to_str().expect("UTF-8").to_owned()];
    let parameterized = client
        .parameterize(pulumirpc::ParameterizeRequest { parameters: Some(Parameters::Args(ParametersArgs { args })) })
        .await
        .expect("Parameterize")
        .into_inner();
    let mut session = Session { plugin, client, package: parameterized.name, implementation: Implementation::Ours };

    session
        .configure(json!({"endpoint": "http://127.0.0.1:9", "maxRetries": 3, "token": secret(json!("provider-token"))}))
        .await
        .expect("Configure");

    let flags = urn(FLAGS, "golden");
    let news = json!({
        "name": "one",
        "password": "hunter2",
        "passwordWo": "write-only-secret",
        "oldName": secret(json!("pulumi-secret")),
        "sensitiveTags": {"team": "blue"},
    });
    let (inputs, id, outputs) = session.create(&flags, news).await;
    let changed = json!({
        "name": "two",
        "password": "hunter3",
        "passwordWo": "write-only-secret",
        "oldName": secret(json!("pulumi-secret")),
        "sensitiveTags": {"team": "green"},
    });
    let checked = session.check(&flags, &inputs, &changed).await;
    let new_inputs = from_struct(checked.inputs.as_ref().expect("inputs"));
    session.diff(&flags, &id, &outputs, &inputs, &new_inputs).await;
    let updated = session.update(&flags, &id, &outputs, &inputs, &new_inputs).await.expect("Update");
    session.read(&flags, &id, Some(&updated), Some(&new_inputs)).await.expect("Read");
    session.read(&urn(FLAGS, "imported"), &id, None, None).await.expect("import");

    session
        .invoke("fixture:index/getLookup:getLookup", &json!({"name": secret(json!("looked-up"))}))
        .await
        .expect("data source");
    session.invoke("fixture:index/join:join", &json!({"separator": "-", "parts": ["a", "b"]})).await.expect("function");
    session.invoke("fixture:index/openToken:openToken", &json!({"length": 8})).await.expect("ephemeral");
    for preview in [true, false] {
        let args = json!({"urn": flags, "message": "hello", "steps": 2});
        let request = pulumirpc::InvokeRequest {
            tok: "fixture:index/invokeNotify:invokeNotify".to_owned(),
            args: Some(common::engine_client::to_struct(&args)),
            preview,
        };
        session.client.invoke(request).await.expect("action");
    }
    session.delete(&flags, &id, &updated, &new_inputs).await.expect("Delete");
    // Cancel closes the open ephemeral resource before it answers.
    session.client.cancel(()).await.expect("Cancel");
    drop(session);

    let text = std::fs::read_to_string(&log).expect("the debug log was written");
    let mut shown: String = text.lines().map(|line| normalized(line) + "\n").collect();
    // The fixture's store is a fresh directory per run; its path is in no value, but say so
    // if that ever changes rather than fail with a diff of paths.
    assert!(!shown.contains(store.to_str().expect("UTF-8")), "the store path leaked into the log");
    shown = shown.replace(log_dir.to_str().expect("UTF-8"), "<log dir>");
    expect_test::expect_file!["../golden/debug_log/fixture_v6.jsonl"].assert_eq(&shown);
    std::fs::remove_dir_all(&store).ok();
    std::fs::remove_dir_all(&log_dir).ok();
}
