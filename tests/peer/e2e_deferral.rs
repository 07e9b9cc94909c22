//! Deferred changes, as documented in `docs/actions-deferral-import.md`: we advertise
//! `deferral_allowed`, so tfcoremock's `defer_changes` defers the resource's plan. A preview
//! shows the resource with a warning naming Terraform's reason; `up` fails naming the resource
//! and the reason; nothing is created and the stack stays usable. Ours only (the Go
//! implementation does not allow deferral: tfcoremock refuses to defer there).
//!
//! Needs `scripts/test-tools.sh providers pulumi`.

use crate::common;

use common::Implementation;
use common::pulumi::Workspace;
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

    // Preview: the resource is planned (a create with unknown outputs) and the warning says
    // why the provider deferred it, in Terraform's words.
    let preview = ws.preview()?;
    let text = preview.all_text();
    for needle in ["deferred", "resource_config_unknown", "because the resource configuration is unknown", "create"] {
        assert!(text.contains(needle), "the preview lacks {needle:?}:\n{preview}");
    }
    assert!(!text.contains("Invalid resource deferral"), "the provider was not allowed to defer:\n{preview}");
    // Up: refused, naming the resource and the reason.
    let up = ws.up_fails()?;
    let text = up.all_text();
    for needle in ["deferred", "resource_config_unknown", "Pulumi does not apply deferred changes"] {
        assert!(text.contains(needle), "the error lacks {needle:?}:\n{up}");
    }
    assert!(text.contains("deferred") && text.contains("SimpleResource"), "the error names no resource:\n{up}");
    // Nothing was created: no object in the provider's directory, none in the state.
    assert!(!resources.join("defer_me.json").exists());
    assert!(ws.managed_resources()?.is_empty(), "{:?}", ws.managed_resources()?);
    ws.destroy()?;
    Ok(())
}
