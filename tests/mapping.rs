//! GetMapping / GetMappings: the payload `pulumi convert --from terraform` reads. It must be
//! the Go implementation's, so the converter maps Terraform programs the same way with
//! either; the test asks both implementations for the same providers and compares.

mod common;

use common::engine::{Implementation, Session};
use common::versions;
use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;

/// (provider name, data as JSON or the error message) for one request.
async fn mapping(
    implementation: Implementation,
    provider: (&str, &str),
    key: &str,
    name: &str,
) -> (String, serde_json::Value) {
    let path = common::real_provider(provider.0, provider.1).unwrap_or_else(|e| panic!("{e}"));
    let mut s = Session::start(implementation, &path).await;
    let request = pulumirpc::GetMappingRequest { key: key.to_owned(), provider: name.to_owned() };
    match s.client.get_mapping(request).await {
        Ok(response) => {
            let response = response.into_inner();
            let data = if response.data.is_empty() {
                serde_json::Value::Null
            } else {
                serde_json::from_slice(&response.data).expect("the mapping is JSON")
            };
            (response.provider, data)
        }
        Err(status) => ("error".to_owned(), status.message().into()),
    }
}

#[tokio::test]
async fn mappings_match_the_go_implementation() {
    let cases = [
        (("random", versions::RANDOM), "terraform", ""),
        (("local", versions::LOCAL), "tf", "local"),
        (("sdkv2test", "current"), "terraform", ""),
        (("framework6test", "current"), "terraform", "framework6test"),
        // Another converter's key: nothing. Another provider: an error.
        (("random", versions::RANDOM), "pulumi", ""),
        (("random", versions::RANDOM), "terraform", "aws"),
    ];
    for (provider, key, name) in cases {
        let go = mapping(Implementation::Go, provider, key, name).await;
        let ours = mapping(Implementation::Ours, provider, key, name).await;
        let mut differences = Vec::new();
        differ(&json!([ours.0, ours.1]), &json!([go.0, go.1]), "", &mut differences);
        assert!(
            differences.is_empty(),
            "GetMapping({key:?}, {name:?}) for {provider:?}, ours vs Go:\n{}",
            differences.join("\n")
        );
    }
}

#[tokio::test]
async fn get_mappings_names_the_provider() {
    let path = common::real_provider("local", versions::LOCAL).unwrap_or_else(|e| panic!("{e}"));
    let mut s = Session::start(Implementation::Ours, &path).await;
    for (key, expected) in
        [("terraform", vec!["local".to_owned()]), ("tf", vec!["local".to_owned()]), ("other", vec![])]
    {
        let response = s.client.get_mappings(pulumirpc::GetMappingsRequest { key: key.to_owned() }).await.unwrap();
        assert_eq!(response.into_inner().providers, expected, "{key}");
    }
}

/// Every path where two JSON values differ, with both sides.
fn differ(ours: &Json, go: &Json, path: &str, out: &mut Vec<String>) {
    match (ours, go) {
        (Json::Object(a), Json::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                let (x, y) = (a.get(key).unwrap_or(&Json::Null), b.get(key).unwrap_or(&Json::Null));
                differ(x, y, &format!("{path}.{key}"), out);
            }
        }
        (Json::Array(a), Json::Array(b)) if a.len() == b.len() => {
            for (idx, (x, y)) in a.iter().zip(b).enumerate() {
                differ(x, y, &format!("{path}[{idx}]"), out);
            }
        }
        _ if ours != go => out.push(format!("{path}: {ours} vs {go}")),
        _ => {}
    }
}
