//! What the Go implementation fixed or still has open in 2026 (issue 29 item 5), through the
//! real CLI with both implementations, on our test provider bridgecases
//! (`tests/go-providers/bridgecases`: plugin framework, protocol 6), since no real provider in
//! the suite does these on demand:
//!
//! - a numeric `id` is the resource's ID in decimal (Go: `"missing ID"`, bridge#3610, open);
//! - a resource with no `id` at all works through its lifecycle, with the ID `"missing ID"`
//!   (as Go's);
//! - `namePrefix` given and `name` left out: no automatic `name` conflicts with it, in the
//!   framework validators' wording (bridge#3457 fixed SDKv2's wording only);
//! - `ignoreChanges` on a list index past the prior list's end (bridge#3560);
//! - a `dynamic` attribute in the provider's own configuration (ptp#88), read back through a
//!   data source;
//! - a data source that returns no object (bridge#3549): a clear error naming it, as
//!   Terraform's "Provider produced null object".
//!
//! Parallel installs of one provider by several processes (bridge#3425) are in
//! `installer_random/parameterize.rs`.
//!
//! Needs `scripts/test-tools.sh bridgecases pulumi anchor`.

use crate::common;

use common::Implementation;
use common::pulumi::Workspace;
use serde_json::json;

const PROGRAM: &str = r#"name: e2e-bridge-cases
runtime: yaml
resources:
  cases:
    type: pulumi:providers:bridgecases
    properties:
      settings:
        name: dynamic
        nested:
          level: 2
          flags: [true, false]
  counter:
    type: bridgecases:index/counter:Counter
    properties:
      label: one
      note: first
    options:
      provider: ${cases}
  noid:
    type: bridgecases:index/noid:Noid
    properties:
      key: k1
      value: v1
    options:
      provider: ${cases}
  tags:
    type: bridgecases:index/tags:Tags
    properties:
      items: [a, b]
    options:
      provider: ${cases}
      ignoreChanges: ["items[3]"]
variables:
  settings:
    fn::invoke:
      function: bridgecases:index/getSettings:getSettings
      arguments: {}
      options:
        provider: ${cases}
outputs:
  counterId: ${counter.id}
  counterNumber: ${counter.counterId}
  noidId: ${noid.id}
  tagItems: ${tags.items}
  settingsJson: ${settings.json}
"#;

const PREFIXED: &str = "  prefixed:\n    type: bridgecases:index/prefixed:Prefixed\n    properties:\n      \
                        namePrefix: web-\n    options:\n      provider: ${cases}\n";

const MISSING: &str = "  missing:\n    fn::invoke:\n      function: bridgecases:index/getLookup:getLookup\n      \
                       arguments:\n        key: missing\n      options:\n        provider: ${cases}\n";

fn cases(implementation: Implementation) -> anyhow::Result<()> {
    let go = implementation == Implementation::Go;
    let mut ws = Workspace::new("bridge-cases", implementation)?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), PROGRAM)?;
    let provider = common::real_provider("bridgecases", "current")?;
    ws.package_add(&[provider.to_str().expect("a UTF-8 path")])?;
    ws.stack_init()?;

    let up = ws.up()?;
    let outputs = ws.stack_outputs(false)?;
    // A numeric id: the ID is the number (Go: "missing ID").
    let number = outputs["counterNumber"].as_u64().unwrap_or_else(|| panic!("{outputs:#}\n{up}"));
    let expected_id = if go { "missing ID".to_owned() } else { number.to_string() };
    assert_eq!(outputs["counterId"], expected_id, "{outputs:#}");
    // No id at all: "missing ID", as Go's.
    assert_eq!(outputs["noidId"], "missing ID", "{outputs:#}");
    // The provider's dynamic setting reached it whole.
    let settings: serde_json::Value = serde_json::from_str(outputs["settingsJson"].as_str().unwrap_or("null"))?;
    assert_eq!(settings, json!({"name": "dynamic", "nested": {"level": 2, "flags": [true, false]}}), "{outputs:#}");
    ws.preview_expect_no_changes()?;

    // Updates in place: the numeric id and the missing one stay; a list grows past the index
    // `ignoreChanges` names.
    ws.edit_program("note: first", "note: second")?;
    ws.edit_program("value: v1", "value: v2")?;
    ws.edit_program("items: [a, b]", "items: [a, b, c, d, e]")?;
    let update = ws.up()?;
    assert!(!update.stdout.contains("replaced"), "{update}");
    let outputs = ws.stack_outputs(false)?;
    assert_eq!(outputs["counterId"], expected_id, "{outputs:#}");
    assert_eq!(outputs["tagItems"], json!(["a", "b", "c", "d", "e"]), "{outputs:#}");
    ws.preview_expect_no_changes()?;
    // A replacement of the resource with no id.
    ws.edit_program("key: k1", "key: k2")?;
    let replace = ws.up()?;
    assert!(replace.stdout.contains("replaced"), "{replace}");

    // namePrefix without name: no automatic name may conflict with it.
    ws.edit_program("variables:\n", &format!("{PREFIXED}variables:\n"))?;
    ws.edit_program("outputs:\n", "outputs:\n  prefixedName: ${prefixed.name}\n")?;
    if go {
        let conflict = ws.up_fails()?;
        assert!(conflict.all_text().contains("Invalid Attribute Combination"), "Go now takes namePrefix: {conflict}");
        let program = ws.program()?.replace(PREFIXED, "").replace("  prefixedName: ${prefixed.name}\n", "");
        std::fs::write(ws.project_dir().join("Pulumi.yaml"), program)?;
    } else {
        let prefixed = ws.up()?;
        let name = ws.stack_outputs(false)?["prefixedName"].as_str().unwrap_or_default().to_owned();
        assert!(name.starts_with("web-") && name.len() > 4, "{name:?}: {prefixed}");
        ws.preview_expect_no_changes()?;
    }

    // A data source that returns no object: a clear error naming it, nothing else lost.
    ws.edit_program("variables:\n", &format!("variables:\n{MISSING}"))?;
    let missing = ws.pulumi_fails(&["preview", "--non-interactive"])?;
    let text = missing.all_text();
    assert!(text.contains("getLookup") || text.contains("bridgecases_lookup"), "{missing}");
    if !go {
        assert!(text.contains("null object"), "{missing}");
        assert!(!text.contains("panic"), "{missing}");
    }
    let program = ws.program()?.replace(MISSING, "");
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), program)?;

    ws.destroy()?;
    assert!(ws.managed_resources()?.is_empty());
    Ok(())
}

common::for_both_implementations!(cases);
