//! Bad input in TypeScript, Python and Java programs, with both implementations: steps of
//! `e2e_lang`'s lifecycle, which runs them in its workspace right after its first `up`
//! settles (one project and one set of generated SDKs per language and implementation, not
//! two). Each broken program must fail with a clear error naming the resource and the
//! property in the language's own names, lose nothing (the state and the resources are as they
//! were), and leave the stack working: the lifecycle goes on from there (updates, a
//! replacement, refresh, import, destroy) and leaves nothing behind.
//!
//! - TypeScript: a wrong type (a compile error from tsc), a missing required input (a runtime
//!   error from the generated SDK), and a failing create (a replacement whose new thing
//!   cannot be created, so the old one must stay).
//! - Python: a value the Terraform provider's validation rejects, and a create that panics.
//! - Java: a wrong type (a compile error from javac, through the host's `mvn compile`), and a
//!   value the Terraform provider's validation rejects.
//!
//! Needs `scripts/test-tools.sh providers pulumi languages anchor`.

use crate::common;

use common::Implementation;
use common::programs::{Language, ProgramWorkspace};
use common::pulumi::CommandOutput;
use serde_json::json;

const TSC_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// `text` without ANSI colour sequences (tsc's `--pretty` report).
fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ parameters final-byte
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
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

/// The bad-input steps for `ws`'s language (none for Go), on a stack that is up and settled:
/// the example's program, `files/input.txt` beside it and the thing "alpha" in
/// `files/store`. They end with the program and the configuration as they found them.
pub fn bad_input(ws: &mut ProgramWorkspace) -> anyhow::Result<()> {
    match ws.language {
        Language::TypeScript => typescript(ws),
        Language::Python => python(ws),
        Language::Java => java(ws),
        Language::Go => Ok(()),
    }
}

/// What the steps leave in the store on purpose: TypeScript's thing "taken", made out of band,
/// which no destroy may delete.
pub fn things_left_by_bad_input(language: Language) -> Vec<String> {
    match language {
        Language::TypeScript => vec!["taken.json".to_owned()],
        Language::Python | Language::Java | Language::Go => Vec::new(),
    }
}

fn typescript(ws: &mut ProgramWorkspace) -> anyhow::Result<()> {
    let language = Language::TypeScript;
    let program = ws.program()?;
    let restore = |ws: &ProgramWorkspace| std::fs::write(ws.project_dir().join("index.ts"), &program);

    // A wrong type: the program does not compile, so nothing runs. `pulumi up` shows
    // ts-node's one-line diagnostic, which gives the file, line and column and the expected
    // type but not the property's name; tsc's own report (as an editor shows it) names the
    // property and the resource's argument type.
    ws.edit_program("{ length: 20, special: false }", "{ length: 20, special: false, minLower: \"two\" }")?;
    let line = 1 + ws.program()?.lines().position(|l| l.contains("minLower: \"two\"")).expect("the edited line");
    let needles = [
        format!("index.ts({line},"),
        "error TS2322: Type 'string' is not assignable to type 'Input<number | undefined>'".to_owned(),
    ];
    fails_with(ws, &needles)?;
    let tsc = ws.project_dir().join("node_modules/.bin/tsc");
    let tsc = ws.run_in_project(tsc.to_str().expect("a UTF-8 path"), &["--noEmit", "--pretty", "true"], TSC_TIMEOUT)?;
    let report = strip_ansi(&tsc.stdout);
    assert!(!tsc.success(), "{tsc}");
    for needle in ["TS2322", "minLower: \"two\"", "property 'minLower'", "type 'PasswordArgs'"] {
        assert!(report.contains(needle), "tsc's report lacks {needle:?}:\n{report}");
    }
    restore(ws)?;

    // A missing required input, which only the generated SDK notices, at run time. The
    // message names the property; the resource shows as the class whose constructor threw
    // and the program line that called it (not the resource's name, "password").
    ws.edit_program(
        "{ length: 20, special: false }",
        "{ length: config.getNumber(\"passwordLength\")!, special: false }",
    )?;
    let line = 1 + ws.program()?.lines().position(|l| l.contains("passwordLength")).expect("the edited line");
    let needles = [
        format!("Error: Missing required property '{}'", language.property_name("length")),
        "at new Password".to_owned(),
        format!("index.ts:{line}:"),
    ];
    fails_with(ws, &needles)?;
    restore(ws)?;
    ws.preview_expect_no_changes()?;

    // A failing create: the replacement thing's name is taken, so its create fails and the
    // thing it would replace stays in the state and on disk.
    let store = ws.root().join("files/store/sdkv2test_thing");
    std::fs::write(store.join("taken.json"), r#"{"attributes": {"name": "taken"}, "observed": {}}"#)?;
    ws.config_set("thingName", "taken")?;
    // The CLI names the resource (its progress line and the heading of its diagnostics); the
    // error is the cause alone, with either implementation.
    let resource = "sdkv2test:index:Thing thing";
    fails_with(ws, &[resource.to_owned(), r#"sdkv2test_thing "taken" already exists"#.to_owned()])?;
    assert!(store.join("alpha.json").exists(), "the thing that was to be replaced is still there");
    assert_eq!(ws.resource_state("thing")?["id"], json!("alpha"));
    ws.config_set("thingName", "alpha")?;
    ws.preview_expect_no_changes()?;
    Ok(())
}

fn python(ws: &mut ProgramWorkspace) -> anyhow::Result<()> {
    let language = Language::Python;
    let implementation = ws.implementation;
    let program = ws.program()?;
    let restore = |ws: &ProgramWorkspace| std::fs::write(ws.project_dir().join("__main__.py"), &program);

    // Well-typed, so only the Terraform provider's own validation catches it. Both
    // implementations give the property's Pulumi name (camelCase), not the Python one: a
    // provider never learns the program's language.
    ws.edit_program(
        "input_file = ",
        "bad_file = local.File(\"bad_file\", filename=f\"{directory}/bad.txt\", content=\"x\", file_permission=\"999\")\ninput_file = ",
    )?;
    let needles: Vec<String> = match implementation {
        Implementation::Ours => vec![
            "local:index/file:File resource 'bad_file': property filePermission".to_owned(),
            "bad mode permission: string must be expressed in octal numeric notation: 999".to_owned(),
        ],
        Implementation::Go => vec![
            "local:index/file:File resource 'bad_file' has a problem".to_owned(),
            "bad mode permission: string must be expressed in octal numeric notation: 999".to_owned(),
            "Examine values at 'bad_file.filePermission'".to_owned(),
        ],
    };
    let failed = fails_with(ws, &needles)?;
    assert!(!failed.all_text().contains(&language.property_name("filePermission")), "{failed}");
    assert!(!ws.root().join("files/bad.txt").exists(), "nothing was created");
    restore(ws)?;

    // A failing create: random 3.9.0 does not validate min_lower, and its create panics on a
    // negative one. Ours names the resource and shows the panic; the Go implementation says
    // only that the connection closed.
    ws.edit_program("length=20, special=False)", "length=20, special=False, min_lower=-1)")?;
    let needles: Vec<String> = match implementation {
        Implementation::Ours => vec![
            "random:index:Password password".to_owned(),
            "the provider process exited (exit status: 2) after a panic".to_owned(),
            "panic: runtime error: makeslice: len out of range".to_owned(),
        ],
        // The tail varies between runs: "EOF" or "connection reset by peer".
        Implementation::Go => vec!["random:index:Password password".to_owned(), "error reading from server".to_owned()],
    };
    fails_with(ws, &needles)?;
    restore(ws)?;
    ws.preview_expect_no_changes()?;
    Ok(())
}

fn java(ws: &mut ProgramWorkspace) -> anyhow::Result<()> {
    let language = Language::Java;
    let implementation = ws.implementation;
    let program = ws.program()?;
    let file = ws.project_dir().join(language.program_file());
    let restore = |ws: &ProgramWorkspace| std::fs::write(ws.project_dir().join(language.program_file()), &program);

    // A wrong type: javac rejects the program, so nothing runs. Maven's report gives the file,
    // line and column, the builder method (the property's Java name) and the types.
    ws.edit_program(".length(20.0).special(false)", ".length(20.0).special(false).minLower(\"two\")")?;
    let line = 1 + ws.program()?.lines().position(|l| l.contains("minLower(\"two\")")).expect("the edited line");
    let needles = [
        format!("{}:[{line},", file.display()),
        format!("{}(java.lang.String)", language.property_name("minLower")),
        "COMPILATION ERROR".to_owned(),
    ];
    fails_with(ws, &needles)?;
    restore(ws)?;
    ws.preview_expect_no_changes()?;

    // Well-typed, so only the Terraform provider's own validation catches it (as in Python).
    ws.edit_program(
        "        var input = ",
        "        new com.pulumi.local.File(\"bad_file\", com.pulumi.local.FileArgs.builder()\
         .filename(dir + \"/bad.txt\").content(\"x\").filePermission(\"999\").build());\n        var input = ",
    )?;
    let needles: Vec<String> = match implementation {
        Implementation::Ours => vec![
            "local:index/file:File resource 'bad_file': property filePermission".to_owned(),
            "bad mode permission: string must be expressed in octal numeric notation: 999".to_owned(),
        ],
        Implementation::Go => vec![
            "local:index/file:File resource 'bad_file' has a problem".to_owned(),
            "bad mode permission: string must be expressed in octal numeric notation: 999".to_owned(),
            "Examine values at 'bad_file.filePermission'".to_owned(),
        ],
    };
    fails_with(ws, &needles)?;
    assert!(!ws.root().join("files/bad.txt").exists(), "nothing was created");
    restore(ws)?;
    ws.preview_expect_no_changes()?;
    Ok(())
}
