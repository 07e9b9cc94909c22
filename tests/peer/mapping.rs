//! GetMapping / GetMappings: the payload `pulumi convert --from terraform` reads. It must be
//! the Go implementation's, so the converter maps Terraform programs the same way with
//! either; the test asks both implementations for the same providers and compares the bytes
//! (and, when they differ, says where the JSON differs).

use crate::common;

use common::Implementation;
use common::engine_client::Session;
use common::versions;
use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;

/// (provider name, data bytes or the error message) for one request.
async fn mapping(implementation: Implementation, provider: (&str, &str), key: &str, name: &str) -> (String, Vec<u8>) {
    let path = common::real_provider(provider.0, provider.1).unwrap_or_else(|e| panic!("{e}"));
    let mut s = Session::start(implementation, &path).await;
    let request = pulumirpc::GetMappingRequest { key: key.to_owned(), provider: name.to_owned() };
    match s.client.get_mapping(request).await {
        Ok(response) => {
            let response = response.into_inner();
            (response.provider, response.data)
        }
        Err(status) => ("error".to_owned(), status.message().as_bytes().to_vec()),
    }
}

/// The data as JSON for a readable difference (`null` when empty, a string when not JSON).
fn as_json(data: &[u8]) -> Json {
    if data.is_empty() {
        return Json::Null;
    }
    serde_json::from_slice(data).unwrap_or_else(|_| Json::String(String::from_utf8_lossy(data).into_owned()))
}

#[tokio::test]
async fn mappings_match_the_go_implementation_byte_for_byte() {
    let cases = [
        (("random", versions::RANDOM), "terraform", ""),
        (("local", versions::LOCAL), "tf", "local"),
        (("local", versions::LOCAL), "terraform", "local"),
        (("sdkv2test", "current"), "terraform", ""),
        (("framework6test", "current"), "terraform", "framework6test"),
        (("tfcoremock", versions::TFCOREMOCK), "terraform", "tfcoremock"),
        (("time", versions::TIME), "terraform", "time"),
        (("tls", versions::TLS), "terraform", "tls"),
        (("http", versions::HTTP), "terraform", "http"),
        (("null", versions::NULL), "terraform", "null"),
        // Another converter's key: nothing. Another provider: an error.
        (("random", versions::RANDOM), "pulumi", ""),
        (("random", versions::RANDOM), "terraform", "aws"),
    ];
    let mut failures = Vec::new();
    for (provider, key, name) in cases {
        let go = mapping(Implementation::Go, provider, key, name).await;
        let ours = mapping(Implementation::Ours, provider, key, name).await;
        if ours == go {
            continue;
        }
        let mut differences = Vec::new();
        differ(&json!([ours.0, as_json(&ours.1)]), &json!([go.0, as_json(&go.1)]), "", &mut differences);
        if differences.is_empty() {
            // Equal JSON in other bytes: say where the bytes part.
            let at = ours.1.iter().zip(&go.1).position(|(a, b)| a != b).unwrap_or(ours.1.len().min(go.1.len()));
            let around = |data: &[u8]| {
                String::from_utf8_lossy(&data[at.saturating_sub(60)..(at + 60).min(data.len())]).into_owned()
            };
            differences.push(format!(
                "same JSON, bytes differ at {at}: ours …{}… vs Go …{}…",
                around(&ours.1),
                around(&go.1)
            ));
        }
        failures
            .push(format!("GetMapping({key:?}, {name:?}) for {provider:?}, ours vs Go:\n{}", differences.join("\n")));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
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

/// `pulumi import --from terraform` names a provider by type only and asks every installed
/// plugin, unparameterized: ours answers from the packages in its cache, with the mapping the
/// parameterized plugin gives, and nothing for a type it has not cached.
#[tokio::test]
async fn an_unparameterized_plugin_maps_the_providers_in_its_cache() {
    let binary = common::real_provider("local", versions::LOCAL).unwrap_or_else(|e| panic!("{e}"));
    let cache = tempfile::tempdir().unwrap();
    let platform = tfbridge::installer::Platform::current();
    let leaf = cache.path().join(format!("registry.opentofu.org/hashicorp/local/{}/{platform}", versions::LOCAL));
    std::fs::create_dir_all(&leaf).unwrap();
    std::fs::copy(&binary, leaf.join(format!("terraform-provider-local_v{}_x5", versions::LOCAL))).unwrap();
    // Not a usable cache entry: another platform.
    std::fs::create_dir_all(cache.path().join("registry.opentofu.org/hashicorp/random/3.9.0/other_arch")).unwrap();

    let env = [
        ("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", cache.path().as_os_str()),
        // Offline: nothing may be fetched.
        ("HTTPS_PROXY", std::ffi::OsStr::new("http://127.0.0.1:9")),
    ];
    let plugin = common::plugin::Plugin::start_with_env(&common::our_plugin(), &["127.0.0.1:9"], &env);
    let mut client = plugin.client().await;
    let listed = client.get_mappings(pulumirpc::GetMappingsRequest { key: "terraform".into() }).await.unwrap();
    assert_eq!(listed.into_inner().providers, ["local"]);
    let request = pulumirpc::GetMappingRequest { key: "terraform".into(), provider: "local".into() };
    let from_cache = client.get_mapping(request).await.unwrap().into_inner();
    assert_eq!(from_cache.provider, "local");
    let mut from_cache: Json = serde_json::from_slice(&from_cache.data).expect("a mapping");
    assert_eq!(from_cache["version"], json!(versions::LOCAL));
    assert_eq!(from_cache["resources"]["local_file"]["tok"], json!("local:index/file:File"));

    // The same mapping as the plugin parameterized with that provider, but for the version.
    let (_, parameterized) = mapping(Implementation::Ours, ("local", versions::LOCAL), "terraform", "local").await;
    let parameterized: Json = serde_json::from_slice(&parameterized).unwrap();
    from_cache["version"] = parameterized["version"].clone();
    let mut differences = Vec::new();
    differ(&from_cache, &parameterized, "", &mut differences);
    assert!(differences.is_empty(), "{}", differences.join("\n"));

    let request = pulumirpc::GetMappingRequest { key: "terraform".into(), provider: "random".into() };
    let other = client.get_mapping(request).await.unwrap().into_inner();
    assert!(other.provider.is_empty() && other.data.is_empty(), "{other:?}");
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
