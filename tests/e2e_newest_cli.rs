//! What the newest Pulumi CLI's engine asks of a provider, through that CLI (`Cli::NEWEST`,
//! `PULUMI_NEWEST_VER` in scripts/peers.env), with our provider and the Go implementation:
//!
//! - `resourceExists` (3.273): a TypeScript program calls the generated SDK's `exists` for a
//!   thing that is there and for one that is not; the engine asks the provider's Read with an
//!   ID alone, and a missing object must be an empty answer, not an error.
//! - `old_outputs` on Check (3.261): a stack whose stored inputs lack a thing's auto-name (as
//!   a program run while autonaming was off leaves them) previews with no changes, because
//!   Check keeps the name the object has; on the pinned CLI, whose engine sends no old
//!   outputs, the same stack proposes a fresh name and so a replacement.
//!
//! These tests pick their CLI themselves; every other test runs the one
//! `TFBRIDGE_TEST_PULUMI_VERSION` names. Needs `scripts/test-tools.sh providers pulumi
//! languages anchor` (with the newest CLI and its Node.js SDK).

mod common;

use common::programs::{Language, ProgramWorkspace};
use common::pulumi::{Cli, Implementation, Workspace};
use serde_json::json;

/// One `#[test]` per implementation for a scenario `fn name(Implementation)`.
macro_rules! for_both_implementations {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[test]
            fn ours() -> anyhow::Result<()> {
                super::$scenario(super::Implementation::Ours)
            }
            #[test]
            fn go() -> anyhow::Result<()> {
                super::$scenario(super::Implementation::Go)
            }
        }
    )*};
}

for_both_implementations!(exists_through_the_generated_sdk, old_outputs_keep_the_name_the_object_has);

const EXISTS_PROGRAM: &str = r#"import * as pulumi from "@pulumi/pulumi";
import * as sdkv2test from "@pulumi/sdkv2test";

const config = new pulumi.Config();
const store = new sdkv2test.Provider("store", { dir: config.require("dir") });
const thing = new sdkv2test.Thing("thing", { name: "present" }, { provider: store });

export const thingId = thing.id;
export const present = sdkv2test.Thing.exists(thing.id, undefined, { provider: store });
export const absent = sdkv2test.Thing.exists("absent", undefined, { provider: store });
"#;

fn exists_through_the_generated_sdk(implementation: Implementation) -> anyhow::Result<()> {
    assert!(Cli::NEWEST.at_least((3, 273, 0)), "resourceExists needs 3.273, peers.env pins {}", Cli::NEWEST.version);
    let mut ws = ProgramWorkspace::with_cli("exists", implementation, Language::TypeScript, Cli::NEWEST)?;
    ws.add_local_binary(&common::real_provider("sdkv2test", "current")?, &[])?;
    std::fs::write(ws.project_dir().join("index.ts"), EXISTS_PROGRAM)?;
    // The newest CLI's SDKs have `exists`; the program compiles against the generated one.
    ws.install()?;
    ws.compile()?;
    let store = ws.root().join("store");
    ws.stack_init()?;
    ws.config_set("dir", store.to_str().expect("a UTF-8 path"))?;

    let up = ws.up()?;
    let outputs = ws.stack_outputs(true)?;
    assert_eq!(outputs["thingId"], json!("present"), "{outputs:#}\n{up}");
    assert!(store.join("sdkv2test_thing/present.json").is_file(), "the thing is in the store");
    assert_eq!(outputs["present"], json!(true), "{outputs:#}\n{up}");
    assert_eq!(outputs["absent"], json!(false), "a missing object is no error: {outputs:#}\n{up}");
    assert!(!up.all_text().contains("error"), "{up}");
    ws.destroy()?;
    assert!(!store.join("sdkv2test_thing/present.json").exists(), "destroyed");
    Ok(())
}

/// A YAML program whose thing is auto-named (`name` unset).
fn autonamed_program(store: &std::path::Path) -> String {
    format!(
        r#"name: old-outputs
runtime: yaml
resources:
  store:
    type: pulumi:providers:sdkv2test
    properties:
      dir: {store}
  thing:
    type: sdkv2test:index/thing:Thing
    properties:
      description: first
    options:
      provider: ${{store}}
outputs:
  thingName: ${{thing.name}}
"#,
        store = store.display()
    )
}

fn old_outputs_keep_the_name_the_object_has(implementation: Implementation) -> anyhow::Result<()> {
    assert!(Cli::NEWEST.at_least((3, 261, 0)) && !Cli::PINNED.at_least((3, 261, 0)));
    // Ours on both CLIs (the pinned one shows the test can fail); Go on the newest only,
    // where it still replaces.
    let clis = match implementation {
        Implementation::Ours => vec![Cli::PINNED, Cli::NEWEST],
        Implementation::Go => vec![Cli::NEWEST],
    };
    for cli in clis {
        let case = format!("{implementation:?} on the Pulumi CLI {}", cli.version);
        let mut ws = Workspace::with_cli("old-outputs", implementation, cli)?;
        let store = ws.root().join("store");
        std::fs::write(ws.project_dir().join("Pulumi.yaml"), autonamed_program(&store))?;
        ws.package_add(&[common::real_provider("sdkv2test", "current")?.to_str().expect("a UTF-8 path")])?;
        ws.stack_init()?;
        ws.up()?;
        let name = ws.stack_outputs(true)?["thingName"].as_str().unwrap_or_default().to_owned();
        assert!(name.starts_with("thing-"), "{case}: auto-named {name:?}");
        assert!(store.join(format!("sdkv2test_thing/{name}.json")).is_file(), "{case}");

        // The stored inputs lose the name, as a run with autonaming off would have left them
        // (the object and its outputs keep it).
        let mut state = ws.stack_export()?;
        let mut edited = 0;
        for resource in state["deployment"]["resources"].as_array_mut().into_iter().flatten() {
            if resource["type"] == "sdkv2test:index/thing:Thing" {
                assert_eq!(resource["outputs"]["name"], json!(name), "{case}");
                edited +=
                    resource["inputs"].as_object_mut().and_then(|inputs| inputs.remove("name")).is_some() as usize;
            }
        }
        assert_eq!(edited, 1, "{case}: one thing with its name in its inputs");
        let file = ws.root().join("edited-state.json");
        std::fs::write(&file, serde_json::to_vec(&state)?)?;
        ws.pulumi_ok(&["stack", "import", "--file", file.to_str().expect("a UTF-8 path")])?;

        let preview = ws.pulumi(&["preview", "--expect-no-changes", "--non-interactive", "--diff"])?;
        match (cli == Cli::NEWEST, implementation) {
            // Our Check keeps the name the old outputs hold.
            (true, Implementation::Ours) => {
                assert!(preview.success(), "{case}: no changes expected\n{preview}");
                ws.up()?;
                let after = ws.stack_outputs(true)?["thingName"].as_str().unwrap_or_default().to_owned();
                assert_eq!(after, name, "{case}");
            }
            // The pinned engine sends no old outputs, and the Go implementation reads none:
            // a fresh auto-name, so a replacement of the thing.
            _ => {
                assert!(!preview.success() && !preview.timed_out, "{case}: a change expected\n{preview}");
                let text = preview.all_text();
                assert!(
                    text.contains("replace") && text.contains(&name),
                    "{case}: a new name replaces {name}\n{preview}"
                );
            }
        }
        ws.destroy()?;
        let left: Vec<_> = std::fs::read_dir(store.join("sdkv2test_thing"))?.collect();
        assert!(left.is_empty(), "{case}: destroy leaves no thing behind: {left:?}");
    }
    Ok(())
}
