//! Parameterize through the real binary with a registry provider that is already running
//! in debug mode: `PULUMI_BRIDGE_REATTACH_PROVIDERS` (the Go implementation's variable) or
//! Terraform's `TF_REATTACH_PROVIDERS` make the plugin attach to it instead of installing.

use crate::common;

use std::ffi::OsStr;
use std::time::Duration;

use common::plugin::Plugin;
use common::versions;
use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::parameterize_request::{Parameters, ParametersArgs};

async fn parameterize_and_create_a_pet(variable: &str, json: &str, debug_pid: u32) {
    // No registry is reachable: only the reattach variable can make this work.
    let unreachable = common::scratch_dir("reattach-home");
    let plugin = Plugin::start_with_env(
        &common::our_plugin(),
        &["127.0.0.1:9"],
        &[
            (variable, OsStr::new(json)),
            ("TF_PLUGIN_CACHE_DIR", unreachable.as_os_str()),
            ("HOME", unreachable.as_os_str()),
        ],
    );
    let mut client = plugin.client().await;
    let args = Parameters::Args(ParametersArgs { args: vec!["hashicorp/random".to_owned()] });
    let response = client
        .parameterize(pulumirpc::ParameterizeRequest { parameters: Some(args) })
        .await
        .unwrap_or_else(|status| panic!("{variable}: Parameterize: {status}"))
        .into_inner();
    // The Go implementation's rules for a reattached provider: its type name, version 0.0.0.
    assert_eq!((response.name.as_str(), response.version.as_str()), ("random", "0.0.0"), "{variable}");

    // The attached provider really serves the calls.
    let urn = "urn:pulumi:dev::proj::random:index/pet:Pet::p";
    let length = tfbridge::property::PropertyValue::Number(2.0);
    let news = tfbridge::property::structpb::encode_struct(&[("length".to_owned(), length)].into());
    let created = client
        .create(pulumirpc::CreateRequest {
            urn: urn.to_owned(),
            properties: Some(news),
            r#type: "random:index/pet:Pet".to_owned(),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|status| panic!("{variable}: Create: {status}"))
        .into_inner();
    assert_eq!(created.id.matches('-').count(), 1, "{variable}: a two-word pet: {}", created.id);

    // The provider is not ours: ending the plugin leaves it running.
    drop(client);
    drop(plugin);
    std::thread::sleep(Duration::from_millis(200));
    assert!(common::process_is_alive(debug_pid), "{variable}: the plugin must not stop a reattached provider");
}

#[tokio::test]
async fn a_registry_provider_in_debug_mode_is_attached_to_instead_of_installed() {
    let (mut debug, json) = common::debug_mode("random", versions::RANDOM).await;
    let debug_pid = debug.id().expect("a running process has a pid");
    for variable in ["PULUMI_BRIDGE_REATTACH_PROVIDERS", "TF_REATTACH_PROVIDERS"] {
        parameterize_and_create_a_pet(variable, &json, debug_pid).await;
    }
    debug.kill().await.expect("the debug-mode provider is killed");
}

#[tokio::test]
async fn an_unusable_reattach_value_fails_parameterize_clearly() {
    let plugin = Plugin::start_with_env(
        &common::our_plugin(),
        &["127.0.0.1:9"],
        &[("PULUMI_BRIDGE_REATTACH_PROVIDERS", OsStr::new("{not json"))],
    );
    let mut client = plugin.client().await;
    let args = Parameters::Args(ParametersArgs { args: vec!["hashicorp/random".to_owned()] });
    let status = client.parameterize(pulumirpc::ParameterizeRequest { parameters: Some(args) }).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::FailedPrecondition, "{status}");
    assert!(
        status.message().starts_with("PULUMI_BRIDGE_REATTACH_PROVIDERS is not valid reattach JSON"),
        "{}",
        status.message()
    );
}
