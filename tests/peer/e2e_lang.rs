//! The TypeScript, Python, Go and Java examples (`examples/pulumi-{typescript,python,go,java}`) through
//! their whole lifecycle with the real Pulumi CLI and language hosts, on the SDKs `pulumi
//! package add` generates, once with our provider and once with the Go implementation:
//!
//! - `package add` three ways: random by registry name (offline), local with flags after
//!   `--` (`--include`), our sdkv2test provider by local binary;
//! - up, then a preview with no changes;
//! - bad input in TypeScript, Python and Java (`e2e_lang_errors`): broken programs that
//!   must fail clearly and lose nothing, after which the lifecycle goes on;
//! - an update in place, then a replacement;
//! - refresh after an out-of-band change;
//! - import, with the code the CLI generates added to the program, compiled by the language's
//!   own compiler and previewed with no changes; import through the explicit provider of a
//!   local-binary package, which only ours finishes;
//! - a data source, a provider function, an explicit provider with configuration and its
//!   `terraformConfig` method; secrets shown as `[secret]`;
//! - destroy, leaving nothing behind.
//!
//! One test per (language, implementation) walks every step in one workspace.
//!
//! Needs `scripts/test-tools.sh providers pulumi languages anchor`.

use crate::common;

use common::Implementation;
use common::programs::{Language, ProgramWorkspace};
use serde_json::json;

common::for_both_implementations!(
    typescript => lifecycle(Language::TypeScript),
    python => lifecycle(Language::Python),
    go => lifecycle(Language::Go),
    java => lifecycle(Language::Java),
);

/// What the store of our sdkv2test provider holds for one thing: `<dir>/sdkv2test_thing/<name>.json`.
fn stored_thing(store: &std::path::Path, name: &str) -> anyhow::Result<serde_json::Value> {
    let file = store.join("sdkv2test_thing").join(format!("{name}.json"));
    let text = std::fs::read_to_string(&file).map_err(|e| anyhow::anyhow!("read {}: {e}", file.display()))?;
    Ok(serde_json::from_str(&text)?)
}

fn lifecycle(language: Language, implementation: Implementation) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let mut ws = ProgramWorkspace::new("lifecycle", implementation, language)?;
    ws.add_example_packages()?;

    // `--include` kept local_file (resource and data source) and direxists (not in Go, see
    // examples/pulumi-go/main.go), and nothing else.
    let local_sdk = ws.sdk_files("local")?.join("\n").to_lowercase().replace(['_', '-'], "");
    assert!(local_sdk.contains("getfile") || local_sdk.contains("lookupfile"), "{local_sdk}");
    assert_eq!(
        local_sdk.contains("direxists"),
        matches!(language, Language::TypeScript | Language::Python),
        "{local_sdk}"
    );
    assert!(!local_sdk.contains("sensitivefile") && !local_sdk.contains("command"), "{local_sdk}");

    let dir = ws.root().join("files");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("input.txt"), "from before\n")?;
    let store = dir.join("store");
    ws.stack_init()?;
    ws.config_set("dir", dir.to_str().expect("a UTF-8 path"))?;

    let up = ws.up()?;
    let outputs = ws.stack_outputs(true)?;
    let password = outputs["passwordResult"].as_str().unwrap_or_default().to_owned();
    assert!(password.len() == 20 && password.chars().all(|c| c.is_ascii_alphanumeric()), "{outputs:#}");
    // The data source and the provider function.
    assert_eq!(outputs["inputContent"], json!("from before\n"), "{outputs:#}");
    assert_eq!(
        outputs["inputSha256"],
        json!("55ea54994190cba6a7a93c75f542774ae7bd398182bb4d110ab96a000cb00d52"),
        "{outputs:#}"
    );
    match language {
        Language::TypeScript | Language::Python => {
            assert_eq!(outputs["dirExistsResult"], json!(true), "{outputs:#}")
        }
        // 2026-01-02T00:00:00Z
        Language::Go | Language::Java => assert_eq!(outputs["parsedUnix"], json!(1767312000), "{outputs:#}"),
    }
    // The thing went through the explicit provider, into its configured directory.
    let stored = stored_thing(&store, "alpha")?;
    assert_eq!(outputs["thingId"], json!("alpha"), "{outputs:#}");
    assert_eq!(outputs["thingDescription"], json!("first"), "{outputs:#}");
    assert_eq!(outputs["thingFingerprint"], stored["attributes"]["fingerprint"], "{outputs:#}\n{stored:#}");
    assert_eq!(outputs["thingSecret"], json!("hunter2"), "{outputs:#}");
    assert_eq!(outputs["foundDescription"], json!("first"), "{outputs:#}");
    // terraformConfig: the provider's configuration with Terraform names.
    assert_eq!(outputs["storeConfig"], json!({"dir": store.to_str()}), "{outputs:#}");

    // Secrets: masked in the display and in the plain outputs.
    assert!(up.stdout.contains("[secret]") && !up.stdout.contains(&password), "{up}");
    assert!(!up.stdout.contains("hunter2"), "{up}");
    let masked = ws.stack_outputs(false)?;
    for secret in ["passwordResult", "thingSecret", "storeConfig"] {
        assert_eq!(masked[secret], json!("[secret]"), "{secret} in {masked:#}");
    }
    if (language, implementation) == (Language::Go, Implementation::Go) {
        // With the Go implementation, a Go program's explicit provider is created with the
        // version the Go SDK passes (the package's, 0.0.0) and the next run proposes the
        // plugin's own version instead: one spurious update, then it is stable. Ours keeps
        // the version it was given.
        let preview = ws.preview()?;
        assert!(
            preview.stdout.contains("~ pulumi:providers:sdkv2test: (update)")
                && preview
                    .stdout
                    .contains(&format!(r#"~ version: "0.0.0" => "{}""#, common::versions::GO_IMPLEMENTATION))
                && preview.stdout.contains("~ 1 to update"),
            "{preview}"
        );
        ws.up()?;
    }
    ws.preview_expect_no_changes()?;

    // Bad input (TypeScript, Python, Java), in this workspace: the steps need the same
    // settled stack, and sharing it saves each language a second project, its three
    // generated SDKs and its first up.
    crate::e2e_lang_errors::bad_input(&mut ws)?;

    // An update in place: same id, new value, seen by the data source too.
    ws.config_set("description", "second")?;
    let up = ws.up()?;
    assert!(up.all_text().contains("1 updated") && !up.all_text().contains("replaced"), "{up}");
    let outputs = ws.stack_outputs(true)?;
    assert_eq!((&outputs["thingId"], &outputs["thingDescription"]), (&json!("alpha"), &json!("second")));
    assert_eq!(outputs["foundDescription"], json!("second"), "{outputs:#}");
    assert_eq!(stored_thing(&store, "alpha")?["attributes"]["description"], json!("second"));

    // A replacement: the name forces a new thing; the old one is deleted.
    ws.config_set("thingName", "beta")?;
    let up = ws.up()?;
    assert!(up.all_text().contains("1 replaced"), "{up}");
    assert_eq!(ws.stack_outputs(true)?["thingId"], json!("beta"));
    assert!(!store.join("sdkv2test_thing/alpha.json").exists(), "the replaced thing is deleted");
    assert_eq!(stored_thing(&store, "beta")?["attributes"]["description"], json!("second"));
    ws.preview_expect_no_changes()?;

    // An out-of-band change: refresh takes it into the state, and the next up puts it back.
    let file = store.join("sdkv2test_thing/beta.json");
    let mut record = stored_thing(&store, "beta")?;
    record["attributes"]["description"] = json!("tampered");
    std::fs::write(&file, serde_json::to_string(&record)?)?;
    ws.refresh()?;
    assert_eq!(ws.resource_state("thing")?["outputs"]["description"], json!("tampered"));
    let preview = ws.preview()?;
    assert!(preview.stdout.contains("description") && preview.stdout.contains("1 to update"), "{preview}");
    ws.up()?;
    assert_eq!(stored_thing(&store, "beta")?["attributes"]["description"], json!("second"));
    ws.preview_expect_no_changes()?;

    import_with_generated_code(&mut ws)?;
    import_through_the_explicit_provider(&mut ws, &store)?;

    ws.destroy()?;
    assert_eq!(ws.managed_resources()?, Vec::<serde_json::Value>::new());
    let mut left: Vec<String> = std::fs::read_dir(store.join("sdkv2test_thing"))?
        .map(|entry| entry.map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect::<Result<_, _>>()?;
    left.sort();
    // Destroy deletes every thing it owns, and nothing else: the bad-input steps' thing made
    // out of band stays.
    assert_eq!(left, crate::e2e_lang_errors::things_left_by_bad_input(language), "what destroy left");
    assert!(dir.join("input.txt").exists(), "the data source's file is not ours to delete");
    // The wall time of the whole lifecycle, for comparing the implementations (`--nocapture`).
    eprintln!(
        "{} {}: the whole lifecycle took {:.1}s",
        language.label(),
        implementation.label(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `pulumi import` through the program's explicit provider (`store`), of a thing made out of
/// band. The provider is a local binary, so its package is version 0.0.0, while the provider
/// resource records the plugin's version; after the import the CLI loads the package by the
/// recorded version to write the code. Ours answers the version asked for, so the import
/// finishes and the TypeScript it writes compiles; the Go implementation answers 0.0.0 and
/// the CLI fails after the resource is already in the state.
fn import_through_the_explicit_provider(ws: &mut ProgramWorkspace, store: &std::path::Path) -> anyhow::Result<()> {
    let language = ws.language;
    let mut record = stored_thing(store, "beta")?;
    record["attributes"]["name"] = json!("gamma");
    std::fs::write(store.join("sdkv2test_thing/gamma.json"), serde_json::to_string(&record)?)?;
    let urn = ws.provider_urn("sdkv2test", "store")?;
    let generated = ws.root().join(format!("imported-thing.{}", language.label()));
    let generated_arg = generated.to_str().expect("a UTF-8 path").to_owned();
    let provider = format!("store={urn}");
    let import = ws.pulumi(&[
        "import",
        "sdkv2test:index/thing:Thing",
        "gamma",
        "gamma",
        "--provider",
        &provider,
        "--yes",
        "--skip-preview",
        "--protect=false",
        "--non-interactive",
        "--out",
        &generated_arg,
    ])?;
    // Either way the object is adopted, through the explicit provider.
    let imported = ws.resource_state("gamma")?;
    assert_eq!(imported["outputs"]["name"], json!("gamma"), "{imported:#}");
    assert!(imported["provider"].as_str().is_some_and(|p| p.starts_with(&urn)), "{imported:#}");
    // The Go and Java hosts (3.259.0, pulumi-java 1.22.0) cannot write a program for a
    // resource of a parameterized package under an explicit provider: their program
    // generator stops at the package block it is given ("package block label is
    // deprecated"), whichever implementation answered. The object is adopted all the same.
    let host_cannot = "package block label is deprecated";
    let version_mismatch = "unexpected parameterization response: 0.0.0 != ";
    match (ws.implementation, language) {
        (Implementation::Ours, Language::Go | Language::Java) => {
            let text = import.all_text();
            assert!(!import.success() && text.contains(host_cannot) && !text.contains(version_mismatch), "{import}");
        }
        (Implementation::Ours, _) => {
            assert!(import.success(), "{import}");
            let code = std::fs::read_to_string(&generated)?;
            assert!(code.contains("gamma") && code.contains("store"), "the code names the provider: {code}");
            if language == Language::TypeScript {
                let before = ws.program()?;
                let body: Vec<&str> = code.lines().filter(|line| !line.starts_with("import ")).collect();
                std::fs::write(ws.project_dir().join("index.ts"), format!("{before}\n{}\n", body.join("\n")))?;
                let compiled = ws.compile();
                std::fs::write(ws.project_dir().join("index.ts"), before)?;
                compiled?;
            }
        }
        (Implementation::Go, Language::Java) => {
            assert!(!import.success() && import.all_text().contains(host_cannot), "{import}");
        }
        (Implementation::Go, _) => {
            assert!(
                !import.success() && import.all_text().contains(version_mismatch),
                "the Go implementation's import fails writing the code: {import}"
            );
        }
    }
    Ok(())
}

/// `pulumi import` of a random_string by its value, with the code the CLI generates: added
/// to the program, it compiles, and the program then previews with no changes (the
/// generated inputs match the imported state). Go's and Java's generated code is a whole
/// program, so it goes into a package of its own and is only compiled.
fn import_with_generated_code(ws: &mut ProgramWorkspace) -> anyhow::Result<()> {
    let language = ws.language;
    let generated = ws.root().join(format!("imported.{}", language.label()));
    let generated_arg = generated.to_str().expect("a UTF-8 path").to_owned();
    ws.pulumi_ok(&[
        "import",
        "random:index/string:String",
        "imported",
        "importedvalue42",
        "--yes",
        "--skip-preview",
        "--protect=false",
        "--non-interactive",
        "--out",
        &generated_arg,
    ])?;
    let imported = ws.resource_state("imported")?;
    assert_eq!(imported["outputs"]["result"], json!("importedvalue42"), "{imported:#}");
    let code = std::fs::read_to_string(&generated)?;
    assert!(code.contains("imported") && code.contains("String"), "{code}");
    match language {
        Language::TypeScript => {
            // The program already imports the packages; TypeScript rejects a second import.
            let body: Vec<&str> = code.lines().filter(|line| !line.starts_with("import ")).collect();
            let program = ws.program()?;
            std::fs::write(ws.project_dir().join("index.ts"), format!("{program}\n{}\n", body.join("\n")))?;
        }
        Language::Python => {
            let program = ws.program()?;
            std::fs::write(ws.project_dir().join("__main__.py"), format!("{program}\n{code}\n"))?;
        }
        Language::Go => {
            let package = ws.project_dir().join("imported");
            std::fs::create_dir_all(&package)?;
            std::fs::write(package.join("main.go"), &code)?;
        }
        Language::Java => {
            // `package generated_program;` ... `public class App`.
            let package = code
                .lines()
                .find_map(|line| line.strip_prefix("package ")?.strip_suffix(';'))
                .ok_or_else(|| anyhow::anyhow!("no package line in the generated Java:\n{code}"))?;
            let dir = ws.project_dir().join("src/main/java").join(package.replace('.', "/"));
            std::fs::create_dir_all(&dir)?;
            std::fs::write(dir.join("App.java"), &code)?;
        }
    }
    ws.compile()?;
    if matches!(language, Language::TypeScript | Language::Python) {
        ws.preview_expect_no_changes()?;
    }
    Ok(())
}
