//! The provider resource's `terraformConfig` method (issue 12 item 5), through our binary and
//! the Go implementation on the same inputs: the result must be the same, so that programs
//! passing provider configuration on (e.g. to a Terraform module component) work with either.
//!
//! Shape of the result, as both give it: `{"result": {<terraform name>: secret(<value>)}}`
//! with every setting of the provider's schema present (unset ones as secret nulls), values
//! in Terraform's JSON form (Terraform names inside blocks, a list block as an array).
//!
//! Needs `scripts/test-tools.sh providers anchor`.

use crate::common;

use common::Implementation;
use common::engine_client::{SECRET_SIG, Session, UNKNOWN, reveal, secret};
use common::versions;
use serde_json::{Value as Json, json};

async fn session(implementation: Implementation, provider: &str, version: &str) -> Session {
    let path = common::real_provider(provider, version).unwrap_or_else(|err| panic!("{err}"));
    Session::start(implementation, &path).await
}

/// Configures both implementations with `config` and calls `terraformConfig` on each;
/// returns (ours, Go's).
async fn both(
    provider: &str,
    version: &str,
    config: Json,
    dry_run: bool,
) -> (Result<Json, String>, Result<Json, String>) {
    let mut results = Vec::new();
    for implementation in [Implementation::Ours, Implementation::Go] {
        let mut s = session(implementation, provider, version).await;
        s.configure(config.clone()).await.unwrap_or_else(|err| panic!("{implementation:?}: Configure: {err}"));
        let result =
            s.call_provider_method("terraformConfig", dry_run).await.map_err(|status| status.message().to_owned());
        results.push(result);
    }
    let go = results.pop().expect("two results");
    let ours = results.pop().expect("two results");
    (ours, go)
}

/// Every top-level value of the result is secret.
fn assert_all_secret(result: &Json) {
    let entries = result["result"].as_object().unwrap_or_else(|| panic!("a result map: {result}"));
    for (key, value) in entries {
        assert!(value.get(SECRET_SIG).is_some(), "{key} is secret: {result}");
    }
}

#[tokio::test]
async fn a_nested_block_with_a_sensitive_setting() {
    let proxy = json!({"url": "http://proxy.example:3128", "username": "me", "password": secret(json!("hunter2"))});
    let (ours, go) = both("tls", versions::TLS, json!({"proxies": [proxy]}), false).await;
    let (ours, go) = (ours.expect("ours"), go.expect("Go"));
    assert_eq!(ours, go, "ours and Go's terraformConfig");
    assert_all_secret(&ours);
    assert_eq!(
        reveal(&ours),
        json!({"result": {"proxy": [{"from_env": null, "password": "hunter2", "url": "http://proxy.example:3128", "username": "me"}]}}),
        "Terraform names inside the block"
    );
}

#[tokio::test]
async fn a_required_string_setting() {
    let dir = common::scratch_dir("terraform-config");
    let dir = dir.to_str().expect("a utf-8 path");
    let (ours, go) = both("framework6test", "current", json!({"dir": dir}), false).await;
    let (ours, go) = (ours.expect("ours"), go.expect("Go"));
    assert_eq!(ours, go, "ours and Go's terraformConfig");
    assert_eq!(ours, json!({"result": {"dir": secret(json!(dir))}}));
}

#[tokio::test]
async fn a_provider_without_settings() {
    let (ours, go) = both("random", versions::RANDOM, json!({}), false).await;
    assert_eq!(ours, go, "ours and Go's terraformConfig");
    assert_eq!(ours.expect("ours"), json!({"result": {}}));
}

#[tokio::test]
async fn unknown_settings_in_a_preview_are_an_error_with_both() {
    let unknown_url = json!({"proxies": [{"url": UNKNOWN}]});
    let (ours, go) = both("tls", versions::TLS, unknown_url, true).await;
    let go = go.expect_err("Go fails on unknown settings");
    let ours = ours.expect_err("ours fails on unknown settings");
    assert!(go.contains("must be known"), "{go}");
    assert!(ours.contains("must be known") && ours.contains("terraformConfig"), "{ours}");
}
