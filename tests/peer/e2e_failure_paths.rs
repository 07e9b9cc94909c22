//! Issue 41's failure paths through the real Pulumi CLI, against ours and the Go
//! implementation: one YAML stack on the fixture provider (with a store, so what each apply
//! made is on disk), taken through each row of `docs/failure-paths.md` in turn. After every
//! failure the fixed program converges, and at the end `destroy` leaves neither a resource in
//! the stack nor an object in the fixture's store.
//!
//! The same rows: hermetic in `tests/hermetic/lifecycle_failure_paths.rs`; Terraform's
//! column in the fixture's `tests/terraform/terraform_failure_paths.rs`.
//!
//! Needs `scripts/test-tools.sh pulumi anchor`.

use crate::common;

use std::path::{Path, PathBuf};

use common::Implementation;
use common::pulumi::Workspace;

const PROGRAM: &str = r#"name: e2e-failure-paths
runtime: yaml
config:
  misbehave:
    type: string
    default: ""
  replaceKey:
    type: string
    default: a
resources:
  fixtureProvider:
    type: pulumi:providers:fixture
    properties:
      endpoint: https://fixture.invalid
      maxRetries: 1
  m:
    type: fixture:index/misbehave:Misbehave
    properties:
      value: v1
      misbehave: ${misbehave}
      replaceKey: ${replaceKey}
    options:
      provider: ${fixtureProvider}
outputs:
  id: ${m.id}
"#;

/// The lookup of a binary body, appended to the program's outputs.
const BINARY_LOOKUP: &str = r#"  body:
    fn::invoke:
      function: fixture:index/getLookup:getLookup
      arguments:
        name: binary
      options:
        provider: ${fixtureProvider}
      return: value
"#;

/// The ids of the objects the fixture holds.
fn remote_ids(store: &Path) -> Vec<String> {
    common::fixture::stored_ids(store, "fixture_misbehave")
}

/// The ids of the `fixture_misbehave` objects the stack records, `missing ID` included.
fn recorded(ws: &mut Workspace) -> anyhow::Result<Vec<String>> {
    let mut ids: Vec<String> = ws
        .managed_resources()?
        .iter()
        .filter(|r| r["type"] == "fixture:index/misbehave:Misbehave")
        .map(|r| r["id"].as_str().unwrap_or("<none>").to_owned())
        .collect();
    ids.sort();
    // Nothing half-known: every object the stack records can be found again.
    assert!(!ids.iter().any(|id| id == "missing ID" || id == "<none>"), "a recorded object has no id: {ids:?}");
    Ok(ids)
}

fn set(ws: &mut Workspace, misbehave: &str, replace_key: &str) -> anyhow::Result<()> {
    ws.config_set("misbehave", misbehave)?;
    ws.config_set("replaceKey", replace_key)
}

/// The fixture's schema cut down to the two types the program uses: the Go implementation
/// cannot translate the rest (it panics on `fixture_types`' tuple).
fn schema_file(dir: &Path) -> anyhow::Result<PathBuf> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture-provider/src/fixture_schema.json");
    let mut schema: serde_json::Value = serde_json::from_slice(&std::fs::read(source)?)?;
    let provider = &mut schema["provider_schemas"]["registry.terraform.io/pulumi/fixture"];
    let keep = |all: &serde_json::Value, name: &str| serde_json::json!({ name: all[name].clone() });
    provider["resource_schemas"] = keep(&provider["resource_schemas"], "fixture_misbehave");
    provider["data_source_schemas"] = keep(&provider["data_source_schemas"], "fixture_lookup");
    provider["ephemeral_resource_schemas"] = serde_json::json!({});
    provider["functions"] = serde_json::json!({});
    let path = dir.join("fixture-schema.json");
    std::fs::write(&path, serde_json::to_vec(&schema)?)?;
    Ok(path)
}

/// A workspace on the fixture with a store of its own.
fn workspace(implementation: Implementation) -> anyhow::Result<(Workspace, PathBuf)> {
    let mut ws = Workspace::new("failure-paths", implementation)?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), PROGRAM)?;
    let store = ws.root().join("fixture-store");
    let schema = schema_file(ws.root())?;
    let env = [
        ("FIXTURE_STORE_DIR", store.to_str().expect("a UTF-8 path")),
        ("FIXTURE_SCHEMA_FILE", schema.to_str().expect("a UTF-8 path")),
    ];
    let dir = common::fixture::wrapper_dir("6", &env)?;
    ws.package_add(&[dir.join("terraform-provider-fixture").to_str().expect("a UTF-8 path")])?;
    ws.stack_init()?;
    Ok((ws, store))
}

fn failure_paths(implementation: Implementation) -> anyhow::Result<()> {
    let ours = implementation == Implementation::Ours;
    let (mut ws, store) = workspace(implementation)?;
    ws.up()?;
    let first = remote_ids(&store);
    assert_eq!(first.len(), 1, "{first:?}");

    // Row: an update fails and answers its plan beside the error (SDKv2). Both keep the
    // object; the fixed program converges.
    set(&mut ws, "error_with_unapplied_state", "a")?;
    let failed = ws.up_fails()?;
    assert!(failed.all_text().contains("Update failed"), "{failed}");
    set(&mut ws, "", "a")?;
    ws.up()?;
    ws.preview_expect_no_changes()?;
    assert_eq!(recorded(&mut ws)?, first, "update row");

    // Row: a replacement whose create fails and answers its plan (unknown id) beside the
    // error. Neither records the plan; the old object stays, alone.
    set(&mut ws, "error_with_planned_state,read_fails", "b")?;
    let failed = ws.up_fails()?;
    let text = failed.all_text();
    assert!(text.contains("Invalid value"), "{failed}");
    if ours {
        assert!(!text.contains("unknown value"), "errors about a state not recorded: {failed}");
    }
    assert_eq!(recorded(&mut ws)?, first, "replacement row: the stack holds the old object only");
    assert_eq!(remote_ids(&store), first, "replacement row: the fixture made nothing");
    // Fixed: the replacement goes through, and a second run has nothing to do.
    set(&mut ws, "", "b")?;
    ws.up()?;
    ws.preview_expect_no_changes()?;
    let second = remote_ids(&store);
    assert_eq!((second.len(), recorded(&mut ws)?), (1, second.clone()), "replacement row, fixed");

    // Row: a replacement whose create made its object (a known id) and then failed, and whose
    // reads fail. Ours records it tainted beside the old one and replaces it when fixed; Go
    // records nothing, so the object is left in the fixture with no stack to delete it.
    set(&mut ws, "error_with_partial_state,read_fails", "c")?;
    let failed = ws.up_fails()?;
    assert!(failed.all_text().contains("Partial failure"), "{failed}");
    let made = remote_ids(&store);
    assert_eq!(made.len(), 2, "the failed create made an object: {made:?}");
    let leaked: Vec<String> = made.iter().filter(|id| !second.contains(id)).cloned().collect();
    let after_failure = recorded(&mut ws)?;
    if ours {
        assert!(after_failure.contains(&leaked[0]), "ours records what the provider made: {after_failure:?}");
    } else {
        assert_eq!(after_failure, second, "Go forgets what the provider made (issue 41)");
    }
    set(&mut ws, "", "c")?;
    let fixed = ws.up()?;
    ws.preview_expect_no_changes()?;
    let third: Vec<String> = remote_ids(&store).into_iter().filter(|id| !leaked.contains(id)).collect();
    assert_eq!(third.len(), 1, "{fixed}");
    assert_eq!(recorded(&mut ws)?, third, "partial row, fixed: one object recorded");
    if ours {
        assert!(!remote_ids(&store).contains(&leaked[0]), "ours destroyed the tainted object");
    } else {
        assert!(remote_ids(&store).contains(&leaked[0]), "Go left it behind");
    }

    // Row: a destroy the provider refuses keeps the object, which the fixed program destroys.
    set(&mut ws, "delete_fails", "c")?;
    ws.up()?;
    let refused = ws.pulumi_fails(&["destroy", "--yes", "--skip-preview", "--non-interactive"])?;
    assert!(refused.all_text().contains("Delete failed"), "{refused}");
    assert_eq!(recorded(&mut ws)?, third, "the object the destroy failed on is still recorded");
    set(&mut ws, "", "c")?;
    ws.up()?;

    // Row: a data source answers bytes that are not UTF-8, with a warning (hashicorp/http's
    // binary body). Terraform shows U+FFFD and the warning; Go fails the whole program.
    let program = ws.program()?;
    ws.edit_program("outputs:\n  id: ${m.id}\n", &format!("outputs:\n  id: ${{m.id}}\n{BINARY_LOOKUP}"))?;
    if ours {
        let up = ws.up()?;
        assert!(up.all_text().contains("Response body is not recognized as UTF-8"), "the provider's warning: {up}");
        let outputs = ws.stack_outputs(false)?;
        assert_eq!(outputs["body"], serde_json::json!("GIF89a\u{1}\u{0}\u{FFFD}\u{FFFD}"), "{outputs}");
    } else {
        let failed = ws.up_fails()?;
        assert!(failed.all_text().contains("UTF-8"), "{failed}");
    }
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), program)?;

    ws.destroy()?;
    assert_eq!(recorded(&mut ws)?, Vec::<String>::new(), "destroy leaves nothing in the stack");
    let left = remote_ids(&store);
    if ours {
        assert_eq!(left, Vec::<String>::new(), "destroy leaves nothing in the fixture");
    } else {
        assert_eq!(left, leaked, "Go leaves only the object it forgot");
    }
    Ok(())
}

common::for_both_implementations!(failure_paths);
