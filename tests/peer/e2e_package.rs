//! Packages through the real Pulumi CLI with our provider: `pulumi package add` by registry
//! name, resolved offline through a filesystem mirror (the Go implementation cannot do
//! that), `pulumi package get-schema`, and a program using the package added by name.
//! `pulumi package gen-sdk` for nodejs, python and go is in `tests/peer/e2e_sdk_gen.rs`.
//!
//! Needs `scripts/test-tools.sh providers pulumi`.

use crate::common;

use base64::Engine as _;
use common::Implementation;
use common::pulumi::Workspace;
use common::versions;
use serde_json::json;

/// The parameter a by-name package embeds: the Go implementation's JSON format.
fn random_by_name_parameter() -> String {
    format!(r#"{{"remote":{{"url":"registry.opentofu.org/hashicorp/random","version":"{}"}}}}"#, versions::RANDOM)
}

/// Our plugin's version.
const OURS: &str = env!("CARGO_PKG_VERSION");

/// A workspace for our provider whose Terraform CLI configuration points at a filesystem
/// mirror holding random 3.9.0 in the unpacked layout, and where any attempt to reach the
/// network goes to a closed loopback port.
fn workspace_with_a_mirror(label: &str) -> anyhow::Result<Workspace> {
    let random = common::real_provider("random", versions::RANDOM)?;
    let mut ws = Workspace::new(label, Implementation::Ours)?;
    let mirror = ws.root().join("mirror");
    let leaf = mirror.join(format!("registry.opentofu.org/hashicorp/random/{}/linux_amd64", versions::RANDOM));
    std::fs::create_dir_all(&leaf)?;
    // A hard link costs no disk; fall back to a copy across file systems.
    let target = leaf.join("terraform-provider-random");
    if std::fs::hard_link(&random, &target).is_err() {
        std::fs::copy(&random, &target)?;
    }
    let rc = ws.root().join("mirror.tfrc");
    std::fs::write(
        &rc,
        format!("provider_installation {{\n  filesystem_mirror {{\n    path = \"{}\"\n  }}\n}}\n", mirror.display()),
    )?;
    ws.set_env("TF_CLI_CONFIG_FILE", rc.to_str().expect("a UTF-8 path"));
    for proxy in ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"] {
        ws.set_env(proxy, "http://127.0.0.1:9");
    }
    Ok(ws)
}

#[test]
fn package_add_by_name_through_a_filesystem_mirror() -> anyhow::Result<()> {
    let mut ws = workspace_with_a_mirror("by-name")?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), "name: by-name\nruntime: yaml\n")?;
    ws.package_add(&["hashicorp/random", versions::RANDOM])?;

    let program = ws.program()?;
    assert!(
        program.contains(&format!(
            "  random:\n    source: terraform-provider\n    version: {OURS}\n    parameters:\n      - hashicorp/random\n      - {}\n",
            versions::RANDOM
        )),
        "{program}"
    );
    // The YAML package lock file carries the embedded parameter value.
    let lock = std::fs::read_to_string(ws.project_dir().join(format!("sdks/random/random-{}.yaml", versions::RANDOM)))?;
    let value = base64::engine::general_purpose::STANDARD.encode(random_by_name_parameter());
    assert!(
        lock.contains(&format!("    name: random\n    version: {}\n    value: {value}\n", versions::RANDOM)),
        "{lock}"
    );

    let output = ws.pulumi_ok(&[
        "package",
        "get-schema",
        &format!("terraform-provider@{OURS}"),
        "hashicorp/random",
        versions::RANDOM,
    ])?;
    let schema: serde_json::Value = serde_json::from_str(&output.stdout)?;
    assert_eq!((&schema["name"], &schema["version"]), (&json!("random"), &json!(versions::RANDOM)));
    assert_eq!(
        schema["parameterization"],
        json!({"baseProvider": {"name": "terraform-provider", "version": OURS}, "parameter": value})
    );
    assert!(schema["resources"]["random:index/pet:Pet"].is_object(), "{schema:#}");
    Ok(())
}

/// The random example with the package added by name: the engine parameterizes a fresh
/// provider process by value, which installs from the mirror again.
#[test]
fn a_program_using_a_package_added_by_name() -> anyhow::Result<()> {
    let mut ws = workspace_with_a_mirror("by-name-program")?;
    ws.copy_example("random")?;
    ws.package_add(&["hashicorp/random", versions::RANDOM])?;
    ws.stack_init()?;
    ws.up()?;
    let outputs = ws.stack_outputs(false)?;
    assert_eq!(outputs["password"], json!("[secret]"), "{outputs:#}");
    assert_eq!(outputs["tokenLength"], json!(12), "{outputs:#}");
    ws.preview_expect_no_changes()?;

    // `pulumi import` through an explicit provider of the package added by name: the provider
    // resource records the plugin's version, the package is random's 3.9.0, and the CLI
    // loads the package by the former to write the code (see parameterize::announced_version).
    ws.edit_program("resources:\n", "resources:\n  explicit:\n    type: pulumi:providers:random\n")?;
    ws.up()?;
    let urn = ws.provider_urn("random", "explicit")?;
    let generated = ws.root().join("imported.yaml");
    let provider = format!("explicit={urn}");
    ws.pulumi_ok(&[
        "import",
        "random:index/string:String",
        "imported",
        "importedvalue42",
        "--provider",
        &provider,
        "--yes",
        "--skip-preview",
        "--protect=false",
        "--non-interactive",
        "--out",
        generated.to_str().expect("a UTF-8 path"),
    ])?;
    let code = std::fs::read_to_string(&generated)?;
    assert!(code.contains("type: random:String") && code.contains("provider: ${explicit}"), "{code}");
    assert!(ws.resource_state("imported")?["provider"].as_str().is_some_and(|p| p.starts_with(&urn)));

    ws.destroy()?;
    assert_eq!(ws.managed_resources()?, Vec::<serde_json::Value>::new());
    Ok(())
}

/// Every `package add` prints "reference to provider resource '/resources/pulumi:providers:<pkg>'
/// is deprecated, use '#/provider' instead" twice (issue 20). Our schema already says
/// `#/provider`, and binding it warns of nothing (`get-schema`); the CLI writes the bound
/// package back out with its own spelling of a resource reference
/// (`pkg/codegen/schema/schema.go`, `marshalType` → `#/resources/<token>`) and binds that
/// again while generating the SDK. No spelling of ours avoids it; the Go implementation's
/// `package add` prints the same two.
#[test]
fn the_provider_reference_warning_comes_from_the_clis_own_spelling() -> anyhow::Result<()> {
    let random = common::real_provider("random", versions::RANDOM)?;
    let path = random.to_str().expect("a UTF-8 path");
    let mut ws = Workspace::new("self-reference", Implementation::Ours)?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), "name: self-reference\nruntime: yaml\n")?;
    let warning = "reference to provider resource '/resources/pulumi:providers:random' is deprecated";

    let source = format!("terraform-provider@{OURS}");
    let schema = ws.pulumi_ok(&["package", "get-schema", &source, path])?;
    assert!(!schema.stderr.contains("is deprecated"), "{}", schema.stderr);
    let spec: serde_json::Value = serde_json::from_str(&schema.stdout)?;
    assert_eq!(
        spec["functions"]["pulumi:providers:random/terraformConfig"]["inputs"]["properties"]["__self__"]["$ref"],
        json!("#/provider")
    );

    let added = ws.package_add(&[path])?;
    assert_eq!(added.all_text().matches(warning).count(), 2, "{added}");
    Ok(())
}
