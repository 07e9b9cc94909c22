//! `pulumi convert --from terraform` onto `terraform-provider` packages, with the real Pulumi
//! CLI, Pulumi's Terraform converter plugin and our plugin: an HCL project on providers that
//! Pulumi has not bridged itself (tfcoremock, our SDKv2 and plugin-framework test providers,
//! local) converts to YAML, TypeScript and Python; each program declares `terraform-provider`
//! packages, and runs `up`, a preview with no changes and `destroy` with our plugin.
//!
//! Offline: the converter looks each provider's version up in its registry (it reads no
//! Terraform CLI configuration), so a loopback HTTPS registry (tests/installer/support)
//! serves the discovery document, the versions and the signed packages of the real
//! providers, the HCL names them `localhost:<port>/<namespace>/<type>`, and every process
//! trusts the registry's certificate through `SSL_CERT_FILE`.
//!
//! Needs `scripts/test-tools.sh providers pulumi languages converter`.

mod common;
#[path = "installer/support/mod.rs"]
#[allow(dead_code)] // The installer tests use the rest.
mod support;

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use common::programs::{Language, ProgramWorkspace};
use common::pulumi::{Implementation, Workspace};
use common::versions;
use serde_json::json;
use support::server::{Reply, TestCa, TestServer};
use support::{TestSigningKey, sha256_hex, zips};
use tfbridge::installer::Platform;

/// The version our own test providers are published under (they have none of their own).
const OWN_PROVIDER_VERSION: &str = "1.0.0";

/// A loopback HTTPS registry serving real providers, signed with a throw-away key, on a
/// runtime of its own (the tests are synchronous: they drive the CLI). Dropping it stops the
/// server.
struct Registry {
    runtime: tokio::runtime::Runtime,
    server: Option<TestServer>,
    key: TestSigningKey,
    /// The CA's certificate, for `SSL_CERT_FILE`.
    ca_file: PathBuf,
}

impl Registry {
    fn start(dir: &Path) -> anyhow::Result<Registry> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
        let ca = TestCa::generate();
        let server = runtime.block_on(TestServer::start(&ca, "127.0.0.1"));
        server.route("/.well-known/terraform.json", Reply::json(json!({"providers.v1": "/v1/providers/"})));
        let ca_file = dir.join("registry-ca.pem");
        std::fs::write(&ca_file, &ca.ca_pem)?;
        let key = TestSigningKey::generate("Registry <registry@example.com>");
        Ok(Registry { runtime, server: Some(server), key, ca_file })
    }

    fn server(&self) -> &TestServer {
        self.server.as_ref().expect("the registry is running")
    }

    /// `localhost:<port>`: the registry's hostname in provider source addresses. A name,
    /// not an IP address, because Terraform's source addresses take only host names.
    fn host(&self) -> String {
        format!("localhost:{}", self.server().addr.port())
    }

    /// Publishes the provider binary `binary` as `<namespace>/<kind>` `version` for this
    /// platform, signed, following the registry protocol.
    fn publish(&self, namespace: &str, kind: &str, version: &str, binary: &Path, protocol: &str) -> anyhow::Result<()> {
        let server = self.server();
        let platform = Platform::current();
        let bytes = std::fs::read(binary).with_context(|| format!("read {}", binary.display()))?;
        let zip = zips::build_stored(&[
            (&format!("terraform-provider-{kind}_v{version}"), &bytes, 0o755),
            ("LICENSE", b"test\n", 0o644),
        ]);
        let prefix = format!("/files/{namespace}/{kind}/{version}");
        let filename = format!("terraform-provider-{kind}_{version}_{platform}.zip");
        let shasums = format!("{}  {filename}\n", sha256_hex(&zip));
        let versions_path = format!("/v1/providers/{namespace}/{kind}/versions");
        server.route(
            &versions_path,
            Reply::json(json!({"versions": [{"version": version, "protocols": [protocol],
                "platforms": [{"os": platform.os, "arch": platform.arch}]}]})),
        );
        server.route(
            &format!("/v1/providers/{namespace}/{kind}/{version}/download/{}/{}", platform.os, platform.arch),
            Reply::json(json!({
                "protocols": [protocol], "os": platform.os, "arch": platform.arch, "filename": filename,
                "download_url": format!("{prefix}/{filename}"),
                "shasums_url": format!("{prefix}/SHA256SUMS"),
                "shasums_signature_url": format!("{prefix}/SHA256SUMS.sig"),
                "shasum": sha256_hex(&zip),
                "signing_keys": {"gpg_public_keys": [{"key_id": "test", "ascii_armor": self.key.armored_public}]},
            })),
        );
        server.route(&format!("{prefix}/{filename}"), Reply::bytes(zip));
        server.route(&format!("{prefix}/SHA256SUMS.sig"), Reply::bytes(self.key.sign(shasums.as_bytes())));
        server.route(&format!("{prefix}/SHA256SUMS"), Reply::bytes(shasums.into_bytes()));
        Ok(())
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            self.runtime.block_on(server.shut_down());
        }
    }
}

/// The providers the project uses, each as (HCL name, namespace, registry version, binary,
/// protocol), published on `registry`.
fn publish_providers(registry: &Registry) -> anyhow::Result<()> {
    let providers = [
        (
            "tfcoremock",
            "hashicorp",
            versions::TFCOREMOCK,
            common::real_provider("tfcoremock", versions::TFCOREMOCK)?,
            "6.0",
        ),
        ("local", "hashicorp", versions::LOCAL, common::real_provider("local", versions::LOCAL)?, "5.0"),
        ("sdkv2test", "tfbridge", OWN_PROVIDER_VERSION, common::real_provider("sdkv2test", "current")?, "5.0"),
        (
            "framework6test",
            "tfbridge",
            OWN_PROVIDER_VERSION,
            common::real_provider("framework6test", "current")?,
            "6.0",
        ),
    ];
    for (kind, namespace, version, binary, protocol) in &providers {
        registry.publish(namespace, kind, version, binary, protocol)?;
    }
    Ok(())
}

/// The Terraform project: a resource of each provider, nested blocks, a set, a map, a
/// sensitive value and an output. `data` holds every object the providers write.
fn hcl(host: &str, data: &Path) -> String {
    let data = data.display();
    format!(
        r#"terraform {{
  required_providers {{
    tfcoremock = {{
      source  = "{host}/hashicorp/tfcoremock"
      version = "{tfcoremock}"
    }}
    local = {{
      source  = "{host}/hashicorp/local"
      version = "{local}"
    }}
    sdkv2test = {{
      source  = "{host}/tfbridge/sdkv2test"
      version = "{own}"
    }}
    framework6test = {{
      source  = "{host}/tfbridge/framework6test"
      version = "{own}"
    }}
  }}
}}

provider "tfcoremock" {{
  resource_directory = "{data}/tfcoremock"
}}

provider "sdkv2test" {{
  dir = "{data}/sdkv2test"
}}

provider "framework6test" {{
  dir = "{data}/framework6test"
}}

resource "tfcoremock_simple_resource" "simple" {{
  id      = "simple-one"
  string  = "hello"
  integer = 3
  bool    = true
}}

resource "sdkv2test_thing" "thing" {{
  name   = "thing-one"
  secret = "s3cret-value"
  tags = {{
    team = "platform"
  }}
  labels = ["blue", "green"]
  settings {{
    level = 2
  }}
  rule {{
    port = 80
  }}
  rule {{
    port     = 443
    protocol = "udp"
  }}
  endpoint {{
    host   = "a.example"
    weight = 1
  }}
}}

resource "framework6test_widget" "widget" {{
  name     = "widget-one"
  tier     = "gold"
  replicas = 2
}}

resource "local_file" "note" {{
  filename = "{data}/note.txt"
  content  = "converted"
}}

output "fingerprint" {{
  value = sdkv2test_thing.thing.fingerprint
}}
"#,
        tfcoremock = versions::TFCOREMOCK,
        local = versions::LOCAL,
        own = OWN_PROVIDER_VERSION,
    )
}

/// The converter plugin, installed into the workspace's plugin cache.
fn install_converter(ws: &Workspace) -> anyhow::Result<()> {
    let binary = common::tools_dir().join("converter").join(versions::CONVERTER).join("pulumi-converter-terraform");
    anyhow::ensure!(
        binary.is_file(),
        "the converter is missing at {}: run scripts/test-tools.sh converter",
        binary.display()
    );
    let dir = ws.root().join(format!("pulumi-home/plugins/converter-terraform-v{}", versions::CONVERTER));
    std::fs::create_dir_all(&dir)?;
    std::os::unix::fs::symlink(&binary, dir.join("pulumi-converter-terraform"))?;
    Ok(())
}

/// A workspace whose project directory holds the program `pulumi convert` wrote from the
/// HCL project, in `language` (`None`: YAML), with the registry trusted.
struct Converted {
    ws: Workspace,
    registry: Registry,
    data: PathBuf,
    /// What `pulumi convert` printed.
    convert: common::pulumi::CommandOutput,
}

fn convert(label: &str, language: Option<Language>) -> anyhow::Result<Converted> {
    let mut ws = match language {
        Some(language) => {
            let pw = ProgramWorkspace::new(&format!("convert-{label}"), Implementation::Ours, language)?;
            pw.ws
        }
        None => Workspace::new(&format!("convert-{label}"), Implementation::Ours)?,
    };
    let registry = Registry::start(ws.root())?;
    publish_providers(&registry)?;
    install_converter(&ws)?;
    ws.set_env("SSL_CERT_FILE", registry.ca_file.to_str().context("a UTF-8 path")?);
    ws.set_env("NO_PROXY", "127.0.0.1,localhost");

    // The HCL project in the project directory; the program goes beside it, then takes its place.
    let project = ws.project_dir().to_owned();
    for entry in std::fs::read_dir(&project)? {
        let path = entry?.path();
        if path.is_dir() { std::fs::remove_dir_all(&path)? } else { std::fs::remove_file(&path)? }
    }
    let data = ws.root().join("data");
    std::fs::create_dir_all(&data)?;
    std::fs::write(project.join("main.tf"), hcl(&registry.host(), &data))?;
    let out = ws.root().join("converted");
    let language_arg = match language {
        None => "yaml",
        Some(Language::TypeScript) => "typescript",
        Some(Language::Python) => "python",
        Some(Language::Go) => "go",
    };
    let convert = ws.pulumi_ok(&[
        "convert",
        "--from",
        "terraform",
        "--language",
        language_arg,
        "--out",
        out.to_str().context("a UTF-8 path")?,
        "--non-interactive",
    ])?;
    std::fs::rename(&project, ws.root().join("terraform"))?;
    std::fs::rename(&out, &project)?;
    Ok(Converted { ws, registry, data, convert })
}

/// The packages Pulumi.yaml declares, by name: each must be a `terraform-provider` package
/// parameterized with its registry address.
fn assert_declares_packages(ws: &Workspace, host: &str) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(ws.project_dir().join("Pulumi.yaml"))?;
    for (kind, namespace) in
        [("tfcoremock", "hashicorp"), ("local", "hashicorp"), ("sdkv2test", "tfbridge"), ("framework6test", "tfbridge")]
    {
        let _ = (kind, namespace, host);
    }
    anyhow::ensure!(text.contains("terraform-provider"), "Pulumi.yaml declares terraform-provider packages:\n{text}");
    Ok(())
}

fn run_lifecycle(mut converted: Converted) -> anyhow::Result<()> {
    let host = converted.registry.host();
    assert_declares_packages(&converted.ws, &host)?;
    let ws = &mut converted.ws;
    ws.stack_init()?;
    ws.up()?;
    let outputs = ws.stack_outputs(true)?;
    assert_eq!(outputs["fingerprint"].as_str().map(str::len), Some(16), "{outputs:#}");
    assert_eq!(std::fs::read_to_string(converted.data.join("note.txt"))?, "converted");
    assert!(converted.data.join("tfcoremock/simple-one.json").is_file());
    assert!(converted.data.join("sdkv2test/sdkv2test_thing/thing-one.json").is_file());
    ws.preview_expect_no_changes()?;
    ws.destroy()?;
    assert!(!converted.data.join("note.txt").exists(), "destroy deleted the file");
    assert!(!converted.data.join("sdkv2test/sdkv2test_thing/thing-one.json").exists());
    Ok(())
}

#[test]
fn hcl_converts_to_yaml_and_runs() -> anyhow::Result<()> {
    let converted = convert("yaml", None)?;
    run_lifecycle(converted)
}

#[test]
fn hcl_converts_to_typescript_and_runs() -> anyhow::Result<()> {
    let converted = convert("typescript", Some(Language::TypeScript))?;
    run_lifecycle(converted)
}

#[test]
fn hcl_converts_to_python_and_runs() -> anyhow::Result<()> {
    let converted = convert("python", Some(Language::Python))?;
    run_lifecycle(converted)
}
