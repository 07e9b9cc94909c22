//! Terraform's column of `docs/failure-paths.md`: what Terraform 1.14 does with each
//! failure path of issue 41, run against the fixture. For each row: the failing apply (its
//! exit status, error summaries and warnings), what the state then holds (`terraform show
//! -json`: the object, tainted or not, and its `id`), whether the next `apply` of the fixed
//! configuration converges, and whether `destroy` then succeeds.

use expect_test::expect;

use crate::terraform_apply::Workspace;

fn main_tf(misbehave: &str) -> String {
    format!(
        "terraform {{\n  required_providers {{\n    fixture = {{ source = \"pulumi/fixture\" }}\n  }}\n}}\n\
         provider \"fixture\" {{\n  endpoint    = \"e\"\n  max_retries = 1\n}}\n\
         resource \"fixture_misbehave\" \"m\" {{\n  misbehave = \"{misbehave}\"\n  value     = \"v\"\n}}\n"
    )
}

const APPLY: [&str; 4] = ["apply", "-auto-approve", "-input=false", "-no-color"];

/// Error summaries and warning summaries from Terraform's stderr and stdout.
fn diagnostics(output: &std::process::Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let errors: Vec<&str> = stderr.lines().filter_map(|line| line.strip_prefix("Error: ")).collect();
    // The dev_overrides warning comes with every command of the fixture's workspaces.
    let warnings: Vec<&str> = stdout
        .lines()
        .chain(stderr.lines())
        .filter_map(|line| line.strip_prefix("Warning: "))
        .filter(|summary| *summary != "Provider development overrides are in effect")
        .collect();
    let mut text = format!("{errors:?}");
    if !warnings.is_empty() {
        text.push_str(&format!(" warnings {warnings:?}"));
    }
    text
}

/// What the state holds of `fixture_misbehave.m`: nothing, or its id and whether tainted.
fn state(workspace: &Workspace) -> String {
    let output = workspace.terraform(&["show", "-json", "-no-color"]);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap_or_default();
    let resources = json["values"]["root_module"]["resources"].as_array().cloned().unwrap_or_default();
    let Some(m) = resources.iter().find(|r| r["address"] == "fixture_misbehave.m") else {
        return "nothing".to_owned();
    };
    let tainted = if m["tainted"] == serde_json::Value::Bool(true) { " tainted" } else { "" };
    format!("id {}{tainted}", m["values"]["id"])
}

/// One row: `misbehave` on `change` (create, or an update of a well-behaved object, or the
/// destroy of an object created with it), then the fixed configuration and a destroy.
fn row(misbehave: &str, change: &str) -> String {
    let workspace = Workspace::with_config("6", &main_tf(if change == "update" { "" } else { misbehave }));
    let failing = match change {
        "create" => workspace.terraform(&APPLY),
        "update" => {
            workspace.run(&APPLY, 0);
            std::fs::write(workspace.store().join("work/main.tf"), main_tf(misbehave)).unwrap();
            workspace.terraform(&APPLY)
        }
        _ => {
            workspace.run(&APPLY, 0);
            workspace.terraform(&["destroy", "-auto-approve", "-input=false", "-no-color"])
        }
    };
    let mut line = format!(
        "{misbehave} ({change}): exit {:?} {}; state: {}",
        failing.status.code(),
        diagnostics(&failing),
        state(&workspace)
    );
    std::fs::write(workspace.store().join("work/main.tf"), main_tf("")).unwrap();
    let fixed = workspace.terraform(&APPLY);
    line.push_str(&format!("; fixed apply: exit {:?} {}", fixed.status.code(), diagnostics(&fixed)));
    let destroy = workspace.terraform(&["destroy", "-auto-approve", "-input=false", "-no-color"]);
    line.push_str(&format!("; destroy: exit {:?}", destroy.status.code()));
    line
}

#[test]
fn terraform_on_each_failure_path() {
    let rows = [
        row("error_with_planned_state,read_fails", "create"),
        row("error_with_planned_state", "create"),
        row("error_with_partial_state,read_fails", "create"),
        row("error_with_null_state", "create"),
        row("error_with_unapplied_state", "update"),
        row("delete_fails", "destroy"),
        row("non_utf8_state", "create"),
        row("read_gone", "create"),
        row("read_changes_id", "create"),
    ];
    expect![[r#"
        error_with_planned_state,read_fails (create): exit Some(1) ["Provider returned invalid result object after apply", "Provider returned invalid result object after apply", "Invalid value"]; state: id null tainted; fixed apply: exit Some(1) ["Read failed"]; destroy: exit Some(1)
        error_with_planned_state (create): exit Some(1) ["Provider returned invalid result object after apply", "Provider returned invalid result object after apply", "Invalid value"]; state: id null tainted; fixed apply: exit Some(0) []; destroy: exit Some(0)
        error_with_partial_state,read_fails (create): exit Some(1) ["Partial failure"]; state: id "misbehave-1" tainted; fixed apply: exit Some(1) ["Read failed"]; destroy: exit Some(1)
        error_with_null_state (create): exit Some(1) ["Apply failed"] warnings ["Apply warning"]; state: nothing; fixed apply: exit Some(0) []; destroy: exit Some(0)
        error_with_unapplied_state (update): exit Some(1) ["Update failed"]; state: id "misbehave-1"; fixed apply: exit Some(0) []; destroy: exit Some(0)
        delete_fails (destroy): exit Some(1) ["Delete failed"]; state: id "misbehave-1"; fixed apply: exit Some(0) []; destroy: exit Some(0)
        non_utf8_state (create): exit Some(0) [] warnings ["Value is not recognized as UTF-8"]; state: id "misbehave-1"; fixed apply: exit Some(0) [] warnings ["Value is not recognized as UTF-8"]; destroy: exit Some(0)
        read_gone (create): exit Some(0) []; state: id "misbehave-1"; fixed apply: exit Some(0) []; destroy: exit Some(0)
        read_changes_id (create): exit Some(0) []; state: id "misbehave-1"; fixed apply: exit Some(0) []; destroy: exit Some(0)"#]].assert_eq(&rows.join("\n"));
}

/// Row 8 for a data source: hashicorp/http's binary body, as the fixture's `binary` lookup
/// answers it. Terraform shows the provider's warning and U+FFFD for each bad byte.
#[test]
fn terraform_reads_a_lookup_that_is_not_utf8() {
    let main_tf = "terraform {\n  required_providers {\n    fixture = { source = \"pulumi/fixture\" }\n  }\n}\n\
         provider \"fixture\" {\n  endpoint    = \"e\"\n  max_retries = 1\n}\n\
         data \"fixture_lookup\" \"b\" {\n  name = \"binary\"\n}\n\
         output \"body\" {\n  value = data.fixture_lookup.b.value\n}\n";
    let workspace = Workspace::with_config("6", main_tf);
    let applied = workspace.terraform(&APPLY);
    assert_eq!(applied.status.code(), Some(0), "{}", String::from_utf8_lossy(&applied.stderr));
    assert_eq!(diagnostics(&applied), r#"[] warnings ["Response body is not recognized as UTF-8"]"#);
    let output = workspace.run(&["output", "-json", "body"], 0);
    let body: serde_json::Value = serde_json::from_str(&output).expect("JSON");
    assert_eq!(body, serde_json::json!("GIF89a\u{1}\u{0}\u{FFFD}\u{FFFD}"));
}

/// An import whose provider answers the object and an error beside it: Terraform fails the
/// import and records nothing.
#[test]
fn terraform_imports_nothing_when_the_import_fails_beside_its_object() {
    let main_tf = format!("{}import {{\n  to = fixture_misbehave.m\n  id = \"partial:existing-1\"\n}}\n", main_tf(""));
    let workspace = Workspace::with_config("6", &main_tf);
    let failing = workspace.terraform(&APPLY);
    assert_eq!(failing.status.code(), Some(1), "{}", String::from_utf8_lossy(&failing.stdout));
    assert_eq!(diagnostics(&failing), r#"["Import failed"]"#);
    assert_eq!(state(&workspace), "nothing");
}
