//! `pulumi import` with a provider that implements GenerateResourceConfig (Terraform 1.14):
//! the imported inputs are the provider's own configuration of the object, as `terraform plan
//! -generate-config-out` writes it. Without the capability they come from the Go
//! implementation's derivation, as before. The fixture provider shows both: with
//! `FIXTURE_1_14=1` it generates configuration that leaves optional-and-computed attributes
//! (`region`) to their defaults, which the derivation would keep. No real provider in our set
//! implements GenerateResourceConfig (tfcoremock 0.6.0-beta2 does not declare it). Ours only.
//!
//! Needs `scripts/test-tools.sh pulumi` and `cargo build -p terraform-provider-fixture`.

use crate::common;

use common::Implementation;
use common::pulumi::Workspace;
use serde_json::json;

const PROGRAM: &str = r#"name: e2e-import-generated
runtime: yaml
config:
  fixture:endpoint: http://127.0.0.1:9
  fixture:maxRetries: 3
resources:
  original:
    type: fixture:index/flags:Flags
    properties:
      name: imported-one
"#;

fn workspace(label: &str, store: &std::path::Path, generate: bool) -> anyhow::Result<Workspace> {
    let mut env = vec![("FIXTURE_STORE_DIR", store.to_str().expect("UTF-8"))];
    if generate {
        env.push(("FIXTURE_1_14", "1"));
    }
    let dir = common::fixture::wrapper_dir("6", &env)?;
    let mut ws = Workspace::new(label, Implementation::Ours)?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), PROGRAM)?;
    ws.package_add(&[dir.join("terraform-provider-fixture").to_str().expect("UTF-8")])?;
    ws.stack_init()?;
    Ok(ws)
}

#[test]
fn import_inputs_are_the_providers_generated_configuration() -> anyhow::Result<()> {
    let store = common::scratch_dir("import-generated-store");
    let mut generating = workspace("import-generated", &store, true)?;
    generating.up()?;
    let original = generating.resource_state("original")?;
    let id = original["id"].as_str().unwrap_or_default().to_owned();
    // The provider filled in the optional-and-computed `region`.
    assert_eq!(original["outputs"]["region"], json!("computed-region"), "{original:#}");

    generating.import("fixture:index/flags:Flags", "copy", &id)?;
    let copy = generating.resource_state("copy")?;
    assert_eq!(copy["inputs"]["name"], json!("imported-one"), "{copy:#}");
    assert!(copy["inputs"].get("region").is_none(), "the provider's configuration leaves region out: {copy:#}");
    assert_eq!(copy["outputs"]["region"], json!("computed-region"), "{copy:#}");

    // The same object imported through a provider without the capability: the derivation
    // keeps the region, as the Go implementation's does.
    let mut deriving = workspace("import-derived", &store, false)?;
    deriving.import("fixture:index/flags:Flags", "copy", &id)?;
    let derived = deriving.resource_state("copy")?;
    assert_eq!(derived["inputs"]["name"], json!("imported-one"), "{derived:#}");
    assert_eq!(derived["inputs"]["region"], json!("computed-region"), "{derived:#}");

    // A preview of the program that matches the generated inputs shows no change for the copy.
    generating.edit_program(
        "      name: imported-one\n",
        "      name: imported-one\n  copy:\n    type: fixture:index/flags:Flags\n    properties:\n      name: imported-one\n",
    )?;
    generating.preview_expect_no_changes()?;
    generating.destroy()?;
    Ok(())
}
