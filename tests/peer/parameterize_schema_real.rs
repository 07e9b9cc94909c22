//! Parameterize and GetSchema through the real binary, with the real random provider (a
//! peer-tier test).

use crate::common;

use common::plugin::Plugin;
use common::versions;
use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::parameterize_request::{Parameters, ParametersArgs, ParametersValue};

async fn get_schema(plugin: &Plugin, name: &str, version: &str) -> serde_json::Value {
    let mut client = plugin.client().await;
    let request = pulumirpc::GetSchemaRequest {
        version: 0,
        subpackage_name: name.to_owned(),
        subpackage_version: version.to_owned(),
    };
    let text = client.get_schema(request).await.expect("GetSchema").into_inner().schema;
    serde_json::from_str(&text).expect("GetSchema answers JSON")
}

#[tokio::test]
async fn a_local_provider_by_args_then_by_value() {
    let random = common::real_provider("random", versions::RANDOM).expect("random is built");
    let path = random.to_str().expect("utf-8 path").to_owned();

    let plugin = Plugin::start(&["127.0.0.1:9"]);
    let response = plugin.parameterize(Parameters::Args(ParametersArgs { args: vec![path.clone()] })).await.unwrap();
    // The Go implementation's rules: the type name, and 0.0.0 for a local binary.
    assert_eq!((response.name.as_str(), response.version.as_str()), ("random", "0.0.0"));

    let schema = get_schema(&plugin, "random", "0.0.0").await;
    assert_eq!(schema["name"], "random");
    assert_eq!(schema["parameterization"]["baseProvider"]["name"], "terraform-provider");
    assert!(schema["resources"]["random:index/pet:Pet"]["inputProperties"]["length"].is_object(), "{schema:#}");
    // The embedded parameter is the value a program sends back; it must parameterize a
    // fresh process to the same package.
    let parameter = schema["parameterization"]["parameter"].as_str().expect("a parameter");
    use base64::Engine as _;
    let value = base64::engine::general_purpose::STANDARD.decode(parameter).expect("std base64");
    assert_eq!(String::from_utf8_lossy(&value), format!(r#"{{"local":{{"path":"{path}"}}}}"#));

    let again = Plugin::start(&["127.0.0.1:9"]);
    let by_value = Parameters::Value(ParametersValue { name: "random".into(), version: "0.0.0".into(), value });
    let response = again.parameterize(by_value).await.unwrap();
    assert_eq!(response.name, "random");
    assert_eq!(get_schema(&again, "random", "0.0.0").await, schema);

    // One process serves one package.
    let second = plugin.parameterize(Parameters::Args(ParametersArgs { args: vec![path] })).await.unwrap_err();
    assert_eq!(second.message(), "provider is already parameterized to (random, 0.0.0)");
}
