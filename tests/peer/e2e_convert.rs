//! `pulumi convert --from terraform` onto `terraform-provider` packages, with the real Pulumi
//! CLI, Pulumi's Terraform converter plugin and our plugin: an HCL project on providers that
//! Pulumi has not bridged itself (tfcoremock, our SDKv2 and plugin-framework test providers,
//! local) converts to YAML, TypeScript and Python; each program declares `terraform-provider`
//! packages, and runs `up`, a preview with no changes and `destroy` with our plugin.
//!
//! Offline: the converter looks each provider's version up in its registry (it reads no
//! Terraform CLI configuration), so a loopback HTTPS registry (tests/common/registry)
//! serves the discovery document, the versions and the signed packages of the real
//! providers, the HCL names them `localhost:<port>/<namespace>/<type>`, and every process
//! trusts the registry's certificate through `SSL_CERT_FILE`.
//!
//! Needs `scripts/test-tools.sh providers pulumi languages converter`.

use crate::common;
use crate::common::registry as support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context as _;
use common::Implementation;
use common::programs::{Language, ProgramWorkspace};
use common::pulumi::Workspace;
use common::versions;
use serde_json::json;
use support::server::{Reply, TestCa, TestServer};
use support::{DownloadDocument, TestSigningKey, sha256_hex, zips};
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
            DownloadDocument::new(&prefix, &filename, "SHA256SUMS", &zip, &self.key)
                .with("protocols", json!([protocol]))
                .reply(),
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

fn convert(label: &str, language: Option<Language>, plugin_on_path: bool) -> anyhow::Result<Converted> {
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
    if plugin_on_path {
        // Beside the plugin cache's copy (which the CLI's mapping lookup needs): the program
        // generator asks for the base plugin version the converter writes (0.8.1) exactly,
        // and a plugin on PATH answers for any version.
        let bin = ws.root().join("plugin-bin");
        std::fs::create_dir_all(&bin)?;
        std::os::unix::fs::symlink(
            Implementation::Ours.plugin_binary()?,
            bin.join("pulumi-resource-terraform-provider"),
        )?;
        let path = format!("{}:{}", bin.display(), ws.env_var("PATH").unwrap_or_default());
        ws.set_env("PATH", &path);
    }
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
        Some(Language::Java) => "java",
        Some(Language::Go) => "go",
    };
    let mut args = vec![
        "convert",
        "--from",
        "terraform",
        "--language",
        language_arg,
        "--out",
        out.to_str().context("a UTF-8 path")?,
    ];
    // SDK languages install their dependencies after `pulumi install`, below, once the
    // project's registry ranges are pinned to what the offline caches hold.
    if language.is_some() {
        args.push("--generate-only");
    }
    args.push("--non-interactive");
    let convert = ws.pulumi_ok(&args)?;
    std::fs::rename(&project, ws.root().join("terraform"))?;
    std::fs::rename(&out, &project)?;
    if language == Some(Language::TypeScript) {
        pin_node_dependencies(&project)?;
    }
    if language.is_some() {
        ws.pulumi_ok(&["install"])?;
    }
    Ok(Converted { ws, registry, data, convert })
}

/// The generated package.json asks for ranges (`@pulumi/pulumi` `^3.0.0`, ...); offline, npm
/// resolves a range against whatever metadata its cache holds, which may name a version whose
/// tarball it lacks. Pin them to the versions the cache holds, as `examples/` do.
fn pin_node_dependencies(project: &Path) -> anyhow::Result<()> {
    let file = project.join("package.json");
    let mut package: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file)?)?;
    for section in ["dependencies", "devDependencies"] {
        let Some(deps) = package[section].as_object_mut() else { continue };
        for (name, pinned) in
            [("@pulumi/pulumi", versions::PULUMI), ("typescript", "4.9.5"), ("@types/node", "20.19.43")]
        {
            if let Some(range) = deps.get_mut(name) {
                *range = json!(pinned);
            }
        }
    }
    std::fs::write(&file, serde_json::to_string_pretty(&package)?)?;
    Ok(())
}

/// Each provider of the HCL project is a `terraform-provider` package parameterized with its
/// address on the registry, as the generated SDK (or, for YAML, the package declaration)
/// under `sdks/<name>/` records it: `package.json` (TypeScript), `pulumi-plugin.json`
/// (Python), `<name>-<version>.yaml` (YAML).
fn assert_declares_packages(ws: &Workspace, host: &str) -> anyhow::Result<()> {
    use base64::Engine as _;
    for (kind, namespace, version) in [
        ("tfcoremock", "hashicorp", versions::TFCOREMOCK),
        ("local", "hashicorp", versions::LOCAL),
        ("sdkv2test", "tfbridge", OWN_PROVIDER_VERSION),
        ("framework6test", "tfbridge", OWN_PROVIDER_VERSION),
    ] {
        let value = format!(r#"{{"remote":{{"url":"{host}/{namespace}/{kind}","version":"{version}"}}}}"#);
        let encoded = base64::engine::general_purpose::STANDARD.encode(&value);
        let declarations = declaration_files(&ws.project_dir().join("sdks").join(kind));
        let declared = declarations.iter().any(|file| {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            text.contains("terraform-provider") && text.contains(&encoded)
        });
        anyhow::ensure!(
            declared,
            "{kind} is not declared as a terraform-provider package parameterized with {value}; looked in {declarations:?}"
        );
    }
    Ok(())
}

/// The files under `dir` that can declare a package, outside installed dependencies.
fn declaration_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "node_modules" && name != "__pycache__" {
                    stack.push(path);
                }
            } else if name == "package.json" || name == "pulumi-plugin.json" || name.ends_with(".yaml") {
                found.push(path);
            }
        }
    }
    found
}

fn run_lifecycle(mut converted: Converted) -> anyhow::Result<()> {
    let host = converted.registry.host();
    // The converter found every provider's mapping (else it guesses tokens and warns).
    let said = converted.convert.all_text();
    anyhow::ensure!(!said.contains("Failed to get provider info"), "{}", converted.convert);
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
    let converted = convert("yaml", None, false)?;
    run_lifecycle(converted)
}

#[test]
fn hcl_converts_to_typescript_and_runs() -> anyhow::Result<()> {
    let converted = convert("typescript", Some(Language::TypeScript), true)?;
    let program = std::fs::read_to_string(converted.ws.project_dir().join("index.ts"))?;
    anyhow::ensure!(program.contains("new tfcoremock.SimpleResource(\"simple\""), "{program}");
    let mut pw = ProgramWorkspace { ws: converted.ws, language: Language::TypeScript };
    pw.compile()?;
    let converted = Converted { ws: pw.ws, ..converted };
    run_lifecycle(converted)
}

#[test]
fn hcl_converts_to_python_and_runs() -> anyhow::Result<()> {
    let converted = convert("python", Some(Language::Python), true)?;
    let program = std::fs::read_to_string(converted.ws.project_dir().join("__main__.py"))?;
    anyhow::ensure!(program.contains("tfcoremock.SimpleResource(\"simple\""), "{program}");
    // The converted project names no virtualenv of its own: byte-compile with the cached SDK's.
    let mut converted = converted;
    let python = common::languages::python()?;
    let python = python.to_str().context("a UTF-8 path")?.to_owned();
    let compiled =
        converted.ws.run_in_project(&python, &["-m", "py_compile", "__main__.py"], Duration::from_secs(120))?;
    anyhow::ensure!(compiled.success(), "{compiled}");
    run_lifecycle(converted)
}

mod migrate;
