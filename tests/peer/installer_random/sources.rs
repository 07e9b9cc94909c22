//! The real random provider published on a loopback registry and installed from it.

use crate::common::versions;
use tfbridge::installer::{InstallRequest, NoProgress, Platform, install};

use crate::common::registry::server::{TestCa, TestServer};
use crate::common::registry::*;

#[tokio::test]
async fn real_random_provider_installs_from_the_registry() {
    let tools_dir = std::env::var("TFBRIDGE_TOOLS_DIR").map(std::path::PathBuf::from).unwrap_or_else(|_| {
        std::path::PathBuf::from(std::env::var("HOME").unwrap_or_default()).join(".cache/tfbridge-tools")
    });
    let binary_path = tools_dir.join("providers/random").join(versions::RANDOM).join("terraform-provider-random");
    let binary = std::fs::read(&binary_path).unwrap_or_else(|error| {
        panic!(
            "this test needs the real random provider at {}: {error}; build it with `scripts/test-tools.sh providers`",
            binary_path.display()
        )
    });
    let ca = TestCa::generate();
    let key = TestSigningKey::generate("HashiCorp-like <security@example.com>");
    let server = TestServer::start(&ca, "127.0.0.1").await;
    let cache = tempfile::tempdir().unwrap();
    let config = test_config(cache.path(), &ca.ca_pem);
    let random = InstallRequest::parse(&format!("{}/hashicorp/random", server.host()), "~> 3.9").unwrap();
    publish_random(&server, &key, &binary);
    let installed = install(&random, &config, &NoProgress).await.unwrap();
    assert_eq!(std::fs::read(&installed.executable).unwrap(), binary);
    let output = std::process::Command::new(&installed.executable).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("plugin"), "the real provider refuses to run outside Terraform: {stderr}");
}

/// Publishes the real random provider as `hashicorp/random` 3.9.0.
pub(crate) fn publish_random(server: &TestServer, key: &TestSigningKey, binary: &[u8]) {
    let platform = Platform::current();
    server.route(
        "/.well-known/terraform.json",
        server::Reply::json(serde_json::json!({"providers.v1": "/v1/providers/"})),
    );
    let zip = zips::build_stored(&[
        (&format!("terraform-provider-random_v{}_x5", versions::RANDOM), binary, 0o755),
        ("LICENSE", b"MPL-2.0\n", 0o644),
    ]);
    let filename = format!("terraform-provider-random_{}_{platform}.zip", versions::RANDOM);
    let shasums = format!("{}  {filename}\n", sha256_hex(&zip));
    server.route(
        "/v1/providers/hashicorp/random/versions",
        server::Reply::json(serde_json::json!({"versions": [{"version": versions::RANDOM, "protocols": ["5.0"]}]})),
    );
    server.route(
        &format!("/v1/providers/hashicorp/random/{}/download/{}/{}", versions::RANDOM, platform.os, platform.arch),
        DownloadDocument::new("/random", &filename, "SHA256SUMS", &zip, key).reply(),
    );
    server.route(&format!("/random/{filename}"), server::Reply::bytes(zip));
    server.route("/random/SHA256SUMS.sig", server::Reply::bytes(key.sign(shasums.as_bytes())));
    server.route("/random/SHA256SUMS", server::Reply::bytes(shasums.into_bytes()));
}
