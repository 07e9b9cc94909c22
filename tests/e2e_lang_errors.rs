//! Bad input in TypeScript and Python programs, with both implementations. Each stack first
//! comes up cleanly; then each broken program must fail with a clear error naming the resource
//! and the property in the language's own names, lose nothing (the state and the resources
//! are as they were), and leave the stack working: refresh and destroy afterwards succeed and
//! leave nothing behind.
//!
//! - TypeScript: a wrong type (a compile error from tsc), a missing required input (a runtime
//!   error from the generated SDK), and a failing create (a replacement whose new thing
//!   cannot be created, so the old one must stay).
//! - Python: a value the Terraform provider's validation rejects.
//!
//! Needs `scripts/test-tools.sh providers pulumi languages anchor`.

mod common;

use common::programs::{Language, ProgramWorkspace};
use common::pulumi::{CommandOutput, Implementation};
use serde_json::json;

/// A stack of the language's example, up and settled.
fn stack_up(language: Language, implementation: Implementation) -> anyhow::Result<ProgramWorkspace> {
    let mut ws = ProgramWorkspace::new("errors", implementation, language)?;
    ws.add_example_packages()?;
    let dir = ws.root().join("files");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("input.txt"), "from before\n")?;
    ws.stack_init()?;
    ws.config_set("dir", dir.to_str().expect("a UTF-8 path"))?;
    ws.up()?;
    Ok(ws)
}

/// The managed resources' URNs and ids, to show nothing was lost.
fn inventory(ws: &mut ProgramWorkspace) -> anyhow::Result<Vec<(String, String)>> {
    let mut all: Vec<_> = ws
        .managed_resources()?
        .iter()
        .map(|r| (r["urn"].as_str().unwrap_or_default().to_owned(), r["id"].as_str().unwrap_or_default().to_owned()))
        .collect();
    all.sort();
    Ok(all)
}

/// Runs `pulumi up` on the broken program, checks every `needle` is in its output and that
/// the state is as before, then puts the program back.
fn fails_with(ws: &mut ProgramWorkspace, needles: &[String]) -> anyhow::Result<CommandOutput> {
    let before = inventory(ws)?;
    let failed = ws.up_fails()?;
    let text = failed.all_text();
    eprintln!("{} {}: {failed}", ws.language.label(), ws.implementation.label());
    for needle in needles {
        assert!(text.contains(needle.as_str()), "the error text lacks {needle:?}:\n{failed}");
    }
    assert_eq!(inventory(ws)?, before, "a failed up loses nothing");
    Ok(failed)
}

/// Refresh and destroy work afterwards and leave nothing behind.
fn refresh_and_destroy(ws: &mut ProgramWorkspace) -> anyhow::Result<()> {
    ws.refresh()?;
    ws.destroy()?;
    assert_eq!(ws.managed_resources()?, Vec::<serde_json::Value>::new());
    Ok(())
}

fn typescript(implementation: Implementation) -> anyhow::Result<()> {
    let language = Language::TypeScript;
    let mut ws = stack_up(language, implementation)?;
    let program = ws.program()?;
    let restore = |ws: &ProgramWorkspace| std::fs::write(ws.project_dir().join("index.ts"), &program);

    // A wrong type: tsc rejects the program before anything runs; tsc itself says the same.
    ws.edit_program("{ length: 20, special: false }", "{ length: 20, special: false, minLower: \"two\" }")?;
    let needles = [language.property_name("minLower"), "PasswordArgs".to_owned(), "index.ts".to_owned()];
    fails_with(&mut ws, &needles)?;
    let tsc = ws.compile();
    let tsc_error = format!("{:#}", tsc.expect_err("tsc rejects a wrong type"));
    assert!(tsc_error.contains("minLower") && tsc_error.contains("TS2322"), "{tsc_error}");
    restore(&ws)?;

    // A missing required input, which only the generated SDK notices, at run time.
    ws.edit_program("{ length: 20, special: false }", "{ length: config.getNumber(\"passwordLength\")!, special: false }")?;
    fails_with(&mut ws, &["Missing required property 'length'".to_owned()])?;
    restore(&ws)?;
    ws.preview_expect_no_changes()?;

    // A failing create: the replacement thing's name is taken, so its create fails and the
    // thing it would replace stays in the state and on disk.
    let store = ws.root().join("files/store/sdkv2test_thing");
    std::fs::write(store.join("taken.json"), r#"{"attributes": {"name": "taken"}, "observed": {}}"#)?;
    ws.config_set("thingName", "taken")?;
    fails_with(&mut ws, &["thing".to_owned(), "sdkv2test_thing \\\"taken\\\" already exists".to_owned()])?;
    assert!(store.join("alpha.json").exists(), "the thing that was to be replaced is still there");
    assert_eq!(ws.resource_state("thing")?["id"], json!("alpha"));
    ws.config_set("thingName", "alpha")?;
    ws.preview_expect_no_changes()?;

    refresh_and_destroy(&mut ws)?;
    assert!(store.join("taken.json").exists(), "destroy leaves the thing it never owned");
    Ok(())
}

fn python(implementation: Implementation) -> anyhow::Result<()> {
    let language = Language::Python;
    let mut ws = stack_up(language, implementation)?;
    // Well-typed, so only the Terraform provider's own validation catches it.
    ws.edit_program("length=20, special=False)", "length=20, special=False, min_lower=-1)")?;
    fails_with(&mut ws, &["password".to_owned(), language.property_name("minLower"), "at least 0".to_owned()])?;
    refresh_and_destroy(&mut ws)
}

/// One `#[test]` per implementation for each language's cases.
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

for_both_implementations!(typescript, python);
