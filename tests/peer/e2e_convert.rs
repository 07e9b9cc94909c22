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

/// The real Terraform CLI (`scripts/test-tools.sh terraform`).
fn terraform_cli() -> anyhow::Result<PathBuf> {
    let path = common::tools_dir().join("terraform").join(versions::TERRAFORM).join("terraform");
    anyhow::ensure!(
        path.is_file(),
        "the Terraform CLI is missing at {}: run scripts/test-tools.sh terraform",
        path.display()
    );
    Ok(path)
}

/// The HCL project of the migration: the providers that support import (not local).
fn migration_hcl(host: &str, data: &Path) -> String {
    let full = hcl(host, data);
    let without_local = full.replace(
        &format!(
            "resource \"local_file\" \"note\" {{\n  filename = \"{}/note.txt\"\n  content  = \"converted\"\n}}\n\n",
            data.display()
        ),
        "",
    );
    without_local.replace(
        &format!(
            "    local = {{\n      source  = \"{host}/hashicorp/local\"\n      version = \"{}\"\n    }}\n",
            versions::LOCAL
        ),
        "",
    )
}

/// Files' identities under `dir` (path → inode and mtime): an object the migration must not
/// rewrite keeps both.
fn identities(dir: &Path) -> anyhow::Result<std::collections::BTreeMap<PathBuf, (u64, i64, i64)>> {
    use std::os::unix::fs::MetadataExt as _;
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let meta = entry.metadata()?;
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                out.insert(entry.path(), (meta.ino(), meta.mtime(), meta.mtime_nsec()));
            }
        }
    }
    Ok(out)
}

/// A Terraform project applied by the real Terraform CLI, converted to a YAML program with a
/// stack, nothing imported yet.
struct Migration {
    ws: Workspace,
    /// Serves the providers until the test ends.
    registry: Registry,
    data: PathBuf,
    state_file: PathBuf,
    /// The identities of the objects Terraform made.
    before: std::collections::BTreeMap<PathBuf, (u64, i64, i64)>,
}

fn migration(implementation: Implementation) -> anyhow::Result<Migration> {
    let terraform = terraform_cli()?;
    let mut ws = Workspace::new("migrate", implementation)?;
    let registry = Registry::start(ws.root())?;
    publish_providers(&registry)?;
    install_converter(&ws)?;
    let ca_file = registry.ca_file.to_str().context("a UTF-8 path")?.to_owned();
    ws.set_env("SSL_CERT_FILE", &ca_file);
    let data = ws.root().join("data");
    std::fs::create_dir_all(&data)?;

    // Terraform's side, in its own directory and environment.
    let project = ws.project_dir().to_owned();
    let tf_dir = ws.root().join("terraform");
    std::fs::create_dir_all(&tf_dir)?;
    std::fs::write(tf_dir.join("main.tf"), migration_hcl(&registry.host(), &data))?;
    let cli_config = ws.root().join("terraformrc");
    for args in [&["init", "-input=false", "-no-color"][..], &["apply", "-auto-approve", "-input=false", "-no-color"]] {
        let output = std::process::Command::new(&terraform)
            .args(args)
            .current_dir(&tf_dir)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", ws.root().join("home"))
            .env("SSL_CERT_FILE", &ca_file)
            .env("TF_CLI_CONFIG_FILE", &cli_config)
            .env("CHECKPOINT_DISABLE", "1")
            .output()?;
        anyhow::ensure!(
            output.status.success(),
            "terraform {args:?}:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let state_file = tf_dir.join("terraform.tfstate");
    let before = identities(&data)?;
    anyhow::ensure!(before.len() >= 3, "the providers wrote their objects: {before:?}");

    // Pulumi's side: convert the project and make a stack.
    let converted = ws.root().join("converted");
    let tf_dir_arg = tf_dir.to_str().context("a UTF-8 path")?.to_owned();
    ws.pulumi_ok(&[
        "--cwd",
        &tf_dir_arg,
        "convert",
        "--from",
        "terraform",
        "--language",
        "yaml",
        "--out",
        converted.to_str().context("a UTF-8 path")?,
        "--non-interactive",
    ])?;
    std::fs::remove_dir_all(&project)?;
    std::fs::rename(&converted, &project)?;
    ws.stack_init()?;
    Ok(Migration { ws, registry, data, state_file, before })
}

/// `pulumi import --from terraform <state>`, unprotected, without writing code.
fn import_from_terraform(ws: &mut Workspace, state_file: &Path) -> anyhow::Result<common::pulumi::CommandOutput> {
    let state_arg = state_file.to_str().context("a UTF-8 path")?.to_owned();
    ws.pulumi(&[
        "import",
        "--from",
        "terraform",
        &state_arg,
        "--yes",
        "--protect=false",
        "--generate-code=false",
        "--non-interactive",
    ])
}

/// The whole path a Terraform user walks: `terraform apply` with the real Terraform CLI;
/// `pulumi convert` writes the program; `pulumi import --from terraform` adopts every
/// resource from terraform.tfstate; the preview has no changes and `up` touches no object;
/// a later change to the program updates in place.
#[test]
fn terraform_state_migrates_with_no_diff() -> anyhow::Result<()> {
    let Migration { mut ws, registry: _registry, data, state_file, before } = migration(Implementation::Ours)?;
    let project = ws.project_dir().to_owned();
    let tf_state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&state_file)?)?;
    let import = import_from_terraform(&mut ws, &state_file)?;
    anyhow::ensure!(import.success(), "{import}");
    let said = import.all_text();
    anyhow::ensure!(!said.contains("Failed to get provider info"), "every token came from a mapping: {import}");
    let imported = ws.managed_resources()?;
    let types: Vec<&str> = imported.iter().filter_map(|r| r["type"].as_str()).collect();
    anyhow::ensure!(
        types.contains(&"tfcoremock:index/simpleResource:SimpleResource")
            && types.contains(&"sdkv2test:index/thing:Thing")
            && types.contains(&"framework6test:index/widget:Widget"),
        "every resource adopted with our tokens: {types:?}\n{import}"
    );
    // The sensitive value is a secret in the state, never in the clear.
    let export = serde_json::to_string(&ws.stack_export()?)?;
    anyhow::ensure!(!export.contains("s3cret-value"), "the sensitive value is stored as a secret");
    let resources = tf_state["resources"].as_array().map(Vec::len).unwrap_or_default();
    anyhow::ensure!(imported.len() == resources, "{} resources imported, Terraform had {resources}", imported.len());

    ws.preview_expect_no_changes()?;
    let up = ws.up()?;
    anyhow::ensure!(!up.stdout.contains("updated") && !up.stdout.contains("created"), "{up}");
    anyhow::ensure!(identities(&data)? == before, "no object was rewritten by the migration");

    // A later change in the program is an update in place.
    let program = std::fs::read_to_string(project.join("Main.yaml"))?;
    anyhow::ensure!(program.contains("tier: gold"), "{program}");
    std::fs::write(project.join("Main.yaml"), program.replacen("tier: gold", "tier: silver", 1))?;
    let up = ws.up()?;
    anyhow::ensure!(up.stdout.contains("updated") && !up.stdout.contains("replaced"), "{up}");

    // The old Terraform project still describes the objects: its plan would undo the change.
    let plan = terraform_in(&ws, &["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    anyhow::ensure!(plan.status.code() == Some(2), "terraform plan sees the change: {plan:?}");
    let plan_text = String::from_utf8_lossy(&plan.stdout);
    anyhow::ensure!(plan_text.contains(r#""silver" -> "gold""#) && plan_text.contains("1 to change"), "{plan_text}");
    ws.destroy()?;
    Ok(())
}

/// Runs the Terraform CLI in the workspace's Terraform project, as [`migration`] does.
fn terraform_in(ws: &Workspace, args: &[&str]) -> anyhow::Result<std::process::Output> {
    Ok(std::process::Command::new(terraform_cli()?)
        .args(args)
        .current_dir(ws.root().join("terraform"))
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", ws.root().join("home"))
        .env("SSL_CERT_FILE", ws.env_var("SSL_CERT_FILE").unwrap_or_default())
        .env("TF_CLI_CONFIG_FILE", ws.root().join("terraformrc"))
        .env("CHECKPOINT_DISABLE", "1")
        .output()?)
}

/// The same migration with the Go implementation, to say where it stops: `pulumi convert`
/// works, but unparameterized it maps no provider for `pulumi import --from terraform`, so the
/// converter guesses tokens that no package has, and nothing is imported.
#[test]
fn go_implementation_stops_at_the_import() -> anyhow::Result<()> {
    let Migration { mut ws, registry: _registry, state_file, .. } = migration(Implementation::Go)?;
    let import = import_from_terraform(&mut ws, &state_file)?;
    let text = import.all_text();
    anyhow::ensure!(!import.success(), "{import}");
    for needle in [
        "could not find mapping information for provider tfcoremock",
        "unknown resource token: tfcoremock:index:SimpleResource",
    ] {
        anyhow::ensure!(text.contains(needle), "the Go implementation's import does not say {needle:?}:\n{import}");
    }
    anyhow::ensure!(ws.managed_resources()?.is_empty(), "nothing imported");
    Ok(())
}

/// A copy of the state file with `edit` applied, beside it.
fn edited_state(state_file: &Path, name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> anyhow::Result<PathBuf> {
    let mut state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(state_file)?)?;
    edit(&mut state);
    let path = state_file.with_file_name(name);
    std::fs::write(&path, serde_json::to_string_pretty(&state)?)?;
    Ok(path)
}

/// Bad input to `pulumi import --from terraform`: each case fails with a message naming the
/// cause, and nothing is imported; the good state then imports whole.
///
/// A state from a newer Terraform in the same format (version 4, any 1.x) imports: the converter
/// reads only the format, as Terraform 1.x itself keeps states readable across 1.x releases.
#[test]
fn bad_terraform_state_fails_clearly_and_imports_nothing() -> anyhow::Result<()> {
    let Migration { mut ws, registry: _registry, state_file, .. } = migration(Implementation::Ours)?;
    let unknown_provider = edited_state(&state_file, "unknown-provider.tfstate", |state| {
        let resources = state["resources"].as_array_mut().expect("resources");
        let mut extra = resources[0].clone();
        extra["type"] = json!("acme_gadget");
        extra["name"] = json!("gadget");
        extra["provider"] = json!("provider[\"registry.opentofu.org/acme/acme\"]");
        resources.push(extra);
    })?;
    let missing_object = edited_state(&state_file, "missing-object.tfstate", |state| {
        for resource in state["resources"].as_array_mut().expect("resources") {
            if resource["type"] == json!("sdkv2test_thing") {
                resource["instances"][0]["attributes"]["id"] = json!("no-such-thing");
            }
        }
    })?;
    let newer_format = edited_state(&state_file, "newer-format.tfstate", |state| state["version"] = json!(5))?;

    // No converter plugin.
    let converter_dir = ws.root().join(format!("pulumi-home/plugins/converter-terraform-v{}", versions::CONVERTER));
    let aside = ws.root().join("converter-aside");
    std::fs::rename(&converter_dir, &aside)?;
    let no_converter = import_from_terraform(&mut ws, &state_file)?;
    std::fs::rename(&aside, &converter_dir)?;
    let mut outcomes =
        vec![("no converter", no_converter, vec!["no converter plugin 'pulumi-converter-terraform' found"])];
    for (what, file, expected) in [
        (
            "a provider that is not installed",
            &unknown_provider,
            vec!["\"acme_gadget\": could not find mapping information for provider acme", "pulumi-resource-acme"],
        ),
        (
            "an object that is gone",
            &missing_object,
            // The import's Read answers "gone" as a refresh does (see `import_resource`), and
            // the engine names the resource and the ID.
            vec!["sdkv2test:index:Thing (thing)", "resource 'no-such-thing' does not exist"],
        ),
        ("a newer state format", &newer_format, vec!["The state file uses format version 5"]),
    ] {
        outcomes.push((what, import_from_terraform(&mut ws, file)?, expected));
    }
    for (what, output, expected) in outcomes {
        anyhow::ensure!(!output.success() && !output.timed_out, "{what}: expected a failure, got {output}");
        let text = output.all_text();
        for needle in expected {
            anyhow::ensure!(text.contains(needle), "{what}: the message does not say {needle:?}:\n{output}");
        }
        let resources = ws.managed_resources()?;
        anyhow::ensure!(resources.is_empty(), "{what}: nothing may be imported, the stack has {resources:?}");
    }

    // The good state still imports whole.
    let import = import_from_terraform(&mut ws, &state_file)?;
    anyhow::ensure!(import.success() && ws.managed_resources()?.len() == 3, "{import}");
    Ok(())
}
