//! Deferred changes, as documented in `docs/actions-deferral-import.md`: we do not advertise
//! `deferral_allowed`, so tfcoremock's `defer_changes` makes the provider refuse to defer with
//! its own error, which names the resource; nothing is created and the stack stays usable.
//! Ours only (the Go implementation does not allow deferral either).
//!
//! Needs `scripts/test-tools.sh providers pulumi`.

mod common;

use common::pulumi::{Implementation, Workspace};
use common::versions;

#[test]
fn a_deferring_provider_fails_the_change_clearly_and_loses_nothing() -> anyhow::Result<()> {
    let binary = common::real_provider("tfcoremock", versions::TFCOREMOCK)?;
    let mut ws = Workspace::new("deferral", Implementation::Ours)?;
    let resources = ws.root().join("resources");
    let program = format!(
        r#"name: e2e-deferral
runtime: yaml
resources:
  mock:
    type: pulumi:providers:tfcoremock
    properties:
      resourceDirectory: {dir}
      deferChanges: ["defer_me"]
  deferred:
    type: tfcoremock:index/simpleResource:SimpleResource
    properties:
      simpleResourceId: defer_me
      string: later
    options:
      provider: ${{mock}}
"#,
        dir = resources.display()
    );
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), program)?;
    ws.package_add(&[binary.to_str().expect("a UTF-8 path")])?;
    ws.stack_init()?;

    for output in [ws.pulumi_fails(&["preview", "--non-interactive"])?, ws.up_fails()?] {
        let text = output.all_text();
        for needle in ["deferred", "Invalid resource deferral", "should be deferred", "does not support deferrals"] {
            assert!(text.contains(needle), "the error lacks {needle:?}:\n{output}");
        }
    }
    // Nothing was created: no object in the provider's directory, none in the state.
    assert!(!resources.join("defer_me.json").exists());
    assert!(ws.managed_resources()?.is_empty(), "{:?}", ws.managed_resources()?);
    ws.destroy()?;
    Ok(())
}
