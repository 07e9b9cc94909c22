//! Terraform actions as Pulumi functions, through the real Pulumi CLI and Pulumi YAML: a
//! preview only plans the action (ValidateActionConfig, PlanAction), an update runs it
//! (InvokeAction) and shows its progress. HashiCorp's tfcoremock (every resource type is also
//! an action) shows the normal case; the fixture provider (`FIXTURE_1_14=1`) shows what no
//! real provider does on demand: an invalid configuration, an action that fails while
//! running, a broken event stream, and a provider that answers the action RPCs
//! `Unimplemented`. Ours only: the Go implementation has no actions.
//!
//! Needs `scripts/test-tools.sh providers pulumi` and `cargo build -p terraform-provider-fixture`.

use crate::common;

use common::Implementation;
use common::pulumi::Workspace;
use common::versions;

const TFCOREMOCK_PROGRAM: &str = r#"name: e2e-actions
runtime: yaml
resources:
  res:
    type: tfcoremock:index/simpleResource:SimpleResource
    properties:
      string: hello
variables:
  notified:
    fn::invoke:
      function: tfcoremock:index/invokeSimpleResource:invokeSimpleResource
      arguments:
        urn: ${res.urn}
        string: from-the-action
        integer: 7
outputs:
  notified: ${notified}
"#;

/// Writes `program` as the project's Pulumi.yaml and adds the provider at `binary`.
fn workspace(label: &str, program: &str, binary: &std::path::Path) -> anyhow::Result<Workspace> {
    let mut ws = Workspace::new(label, Implementation::Ours)?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), program)?;
    ws.package_add(&[binary.to_str().expect("a UTF-8 path")])?;
    ws.stack_init()?;
    Ok(ws)
}

#[test]
fn tfcoremock_action_is_planned_in_preview_and_invoked_in_up() -> anyhow::Result<()> {
    let binary = common::real_provider("tfcoremock", versions::TFCOREMOCK)?;
    let mut ws = workspace("actions-tfcoremock", TFCOREMOCK_PROGRAM, &binary)?;

    // tfcoremock's one progress event is the JSON of the configuration it was given.
    let progress_text = r#"{"string":"from-the-action"}"#;
    let preview = ws.pulumi_ok(&["preview", "--non-interactive"])?;
    assert!(preview.stdout.contains("SimpleResource res"), "{preview}");
    assert!(!preview.all_text().contains(progress_text), "a preview must not run the action: {preview}");

    let up = ws.pulumi_ok(&["up", "--yes", "--skip-preview", "--non-interactive"])?;
    // The status line shows on the row of the resource the `urn` argument names.
    let progress_lines: Vec<&str> = up.stdout.lines().filter(|line| line.contains(progress_text)).collect();
    assert_eq!(progress_lines.len(), 1, "one progress event: {up}");
    assert!(progress_lines[0].contains("tfcoremock:index:SimpleResource res"), "{up}");
    assert!(progress_lines[0].contains(r#""integer":{"number":"7"}"#), "{up}");

    // Nothing of the action is stored: the function returns nothing and the state holds the
    // resource alone.
    let names: Vec<String> =
        ws.managed_resources()?.iter().map(|r| r["urn"].as_str().unwrap_or_default().to_owned()).collect();
    assert!(names.len() == 1 && names[0].ends_with("::res"), "{names:?}");

    ws.destroy()?;
    Ok(())
}

const FIXTURE_PROGRAM: &str = r#"name: e2e-actions-fixture
runtime: yaml
config:
  fixture:endpoint: http://127.0.0.1:9
  fixture:maxRetries: 3
resources:
  res:
    type: fixture:index/computedId:ComputedId
    properties:
      value: v
variables:
  notified:
    fn::invoke:
      function: fixture:index/invokeNotify:invokeNotify
      arguments:
        urn: ${res.urn}
        message: hello
        steps: 3
"#;

/// The fixture's record of planned and invoked actions.
fn action_log(store: &std::path::Path) -> String {
    std::fs::read_to_string(store.join("actions.log")).unwrap_or_default()
}

#[test]
fn fixture_actions_plan_run_and_fail_clearly() -> anyhow::Result<()> {
    let store = common::scratch_dir("actions-fixture-store");
    let dir = common::fixture::wrapper_dir(
        "6",
        &[("FIXTURE_STORE_DIR", store.to_str().expect("UTF-8")), ("FIXTURE_1_14", "1")],
    )?;
    let mut ws = workspace("actions-fixture", FIXTURE_PROGRAM, &dir.join("terraform-provider-fixture"))?;

    // A preview plans the action and runs nothing.
    ws.pulumi_ok(&["preview", "--non-interactive"])?;
    let log = action_log(&store);
    assert!(log.contains("planned hello") && !log.contains("invoked"), "{log}");

    // An update runs it once, every progress event shown in order on the resource's row.
    let up = ws.pulumi_ok(&["up", "--yes", "--skip-preview", "--non-interactive"])?;
    let steps: Vec<&str> = up.stdout.lines().filter(|line| line.contains("notify step")).collect();
    assert!(
        steps
            .iter()
            .any(|line| line.contains("fixture:index:ComputedId res") && line.contains("notify step 3 of 3: hello")),
        "{up}"
    );
    assert_eq!(action_log(&store).matches("invoked hello").count(), 1, "{}", action_log(&store));

    // Bad input: each fails the update with the action's name and the cause, and runs nothing
    // it should not. The resource stays recorded.
    let cases: [(&str, &str, &[&str]); 4] = [
        (
            "        message: hello\n",
            "        message: bad\n",
            &["fixture:index/invokeNotify:invokeNotify", "message", "The fixture refuses to notify \"bad\""],
        ),
        (
            "        message: bad\n        steps: 3\n",
            "        message: hello\n        steps: 3\n        fail: completed\n",
            &["fixture:index/invokeNotify:invokeNotify", "Notification failed"],
        ),
        (
            "        fail: completed\n",
            "        fail: stream\n",
            &["fixture:index/invokeNotify:invokeNotify", "InvokeAction", "the notify stream broke after 3 steps"],
        ),
        (
            "      function: fixture:index/invokeNotify:invokeNotify\n      arguments:\n        urn: ${res.urn}\n        message: hello\n        steps: 3\n        fail: stream\n",
            "      function: fixture:index/invokeLegacyAction:invokeLegacyAction\n      arguments:\n        urn: ${res.urn}\n        message: hello\n",
            &[
                "Provider does not support actions",
                "Unimplemented",
                "older than Terraform 1.14",
                "fixture_legacy_action",
            ],
        ),
    ];
    for (from, to, texts) in cases {
        ws.edit_program(from, to)?;
        // Pulumi 3.259 with pulumi-yaml shows an invoke's error and "1 errored" but exits 0,
        // so the text is what is checked.
        let failed = ws.pulumi(&["up", "--yes", "--skip-preview", "--non-interactive"])?;
        let text = failed.all_text();
        assert!(text.contains("1 errored"), "{failed}");
        for needle in texts {
            assert!(text.contains(needle), "{to:?}: the error lacks {needle:?}:\n{failed}");
        }
        assert!(!text.contains("panic"), "{failed}");
    }
    // The invalid configuration was refused before anything ran; the failing runs each ran once.
    let log = action_log(&store);
    assert!(!log.contains("invoked bad"), "{log}");
    assert_eq!(log.matches("invoked hello").count(), 3, "{log}");

    let names: Vec<String> =
        ws.managed_resources()?.iter().map(|r| r["urn"].as_str().unwrap_or_default().to_owned()).collect();
    assert!(names.len() == 1 && names[0].ends_with("::res"), "{names:?}");
    ws.destroy()?;
    Ok(())
}
