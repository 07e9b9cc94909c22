//! The Pulumi YAML examples (`examples/pulumi-yaml/`) through their whole lifecycle with the
//! real Pulumi CLI: up, a preview without changes, in-place updates, replacements, refresh
//! after an out-of-band change, import, data sources and provider functions, secrets, and
//! destroy. Every scenario runs twice, once with our provider and once with the Go
//! implementation, from the same code.
//!
//! Needs `scripts/test-tools.sh providers pulumi anchor`.

use crate::common;

use common::Implementation;
use common::pulumi::Workspace;
use common::versions;
use serde_json::json;

/// A workspace with the example copied in, the provider's package added and a stack made.
fn start(example: &str, implementation: Implementation, provider: &str, version: &str) -> anyhow::Result<Workspace> {
    let binary = common::real_provider(provider, version)?;
    let mut workspace = Workspace::new(example, implementation)?;
    workspace.copy_example(example)?;
    workspace.package_add(&[binary.to_str().expect("a UTF-8 path")])?;
    workspace.stack_init()?;
    Ok(workspace)
}

common::for_both_implementations!(random_lifecycle, local_lifecycle, null_lifecycle, time_lifecycle);

fn random_lifecycle(implementation: Implementation) -> anyhow::Result<()> {
    let mut ws = start("random", implementation, "random", versions::RANDOM)?;
    let up = ws.up()?;
    let outputs = ws.stack_outputs(true)?;
    let pet = outputs["petId"].as_str().unwrap_or_default().to_owned();
    assert_eq!(pet.split('-').count(), 3, "prefix plus two words: {outputs:#}");
    assert!(pet.starts_with("e2e-"), "{outputs:#}");
    let password = outputs["password"].as_str().unwrap_or_default().to_owned();
    assert!(password.len() == 20 && password.chars().all(|c| c.is_ascii_alphanumeric()), "{outputs:#}");
    let token = outputs["token"].as_str().unwrap_or_default();
    assert!(token.len() == 12 && token.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()), "{outputs:#}");
    assert_eq!(outputs["tokenLength"], json!(12));

    // The password is a secret: masked in the up display and in the plain outputs.
    assert!(up.stdout.contains("[secret]") && !up.stdout.contains(&password), "{up}");
    assert_eq!(ws.stack_outputs(false)?["password"], json!("[secret]"));
    let state = ws.resource_state("password")?;
    assert_eq!(
        state["outputs"]["result"]["4dabf18193072939515e22adb298388d"],
        json!("1b47061264138c4ac30d75fd1eb44270"),
        "the result is stored as a secret: {state:#}"
    );

    // A quiet happy path (issue 12 item 7): where the provider came from is news only at
    // `package add` or a download, not on every run; the Go implementation never says it.
    let preview = ws.preview_expect_no_changes()?;
    for output in [&up, &preview] {
        assert!(!output.all_text().contains("Using random"), "no origin line on an ordinary run: {output}");
    }

    // Every random_pet input forces a replacement; the other resources stay.
    ws.config_set("petLength", "3")?;
    let up = ws.up()?;
    assert!(up.stdout.contains("replaced"), "{up}");
    let outputs = ws.stack_outputs(true)?;
    let new_pet = outputs["petId"].as_str().unwrap_or_default();
    assert_eq!(new_pet.split('-').count(), 4, "{outputs:#}");
    assert_eq!(outputs["password"], json!(password), "the password is not replaced");
    ws.preview_expect_no_changes()?;

    // random_string imports by its result.
    ws.import("random:index/string:String", "imported", "importedvalue42")?;
    let imported = ws.resource_state("imported")?;
    assert_eq!(imported["id"], json!("importedvalue42"), "{imported:#}");
    assert_eq!(imported["outputs"]["result"], json!("importedvalue42"), "{imported:#}");
    assert_eq!(imported["outputs"]["length"], json!(15), "{imported:#}");

    ws.refresh()?;
    ws.destroy()?;
    assert_eq!(ws.managed_resources()?, Vec::<serde_json::Value>::new());
    Ok(())
}

fn local_lifecycle(implementation: Implementation) -> anyhow::Result<()> {
    let mut ws = start("local", implementation, "local", versions::LOCAL)?;
    let files = ws.root().join("files");
    std::fs::create_dir_all(&files)?;
    std::fs::write(files.join("input.txt"), "from before\n")?;
    ws.config_set("dir", files.to_str().expect("a UTF-8 path"))?;
    let greeting = files.join("greeting.txt");

    ws.up()?;
    assert_eq!(read(&greeting)?, "hello");
    let outputs = ws.stack_outputs(true)?;
    assert_eq!(outputs["fileContent"], json!("hello"), "{outputs:#}");
    // local_file's id is the SHA-1 of its content.
    assert_eq!(outputs["fileId"], json!("aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d"), "{outputs:#}");
    // The data source and the provider function.
    assert_eq!(outputs["inputContent"], json!("from before\n"), "{outputs:#}");
    assert_eq!(
        outputs["inputSha256"],
        json!("55ea54994190cba6a7a93c75f542774ae7bd398182bb4d110ab96a000cb00d52"),
        "{outputs:#}"
    );
    assert_eq!(outputs["dirExists"], json!(true), "{outputs:#}");

    ws.preview_expect_no_changes()?;

    // Every local_file input forces a replacement.
    ws.config_set("greeting", "bonjour")?;
    // An honest preview (issue 12 item 8): the content changes; the id and the content
    // hashes are recomputed, not deleted, so no `- id` or `- contentMd5` lines.
    let preview = ws.pulumi_ok(&["preview", "--diff"])?;
    assert!(preview.stdout.contains("content"), "{preview}");
    for computed in ["id", "contentMd5", "contentSha1", "contentSha256", "contentBase64sha256"] {
        let deleted = preview.stdout.lines().any(|line| line.trim_start().starts_with(&format!("- {computed}:")));
        assert!(!deleted, "{computed} is shown as deleted:\n{preview}");
    }
    let up = ws.up()?;
    assert!(up.stdout.contains("replaced"), "{up}");
    assert_eq!(read(&greeting)?, "bonjour");
    ws.preview_expect_no_changes()?;

    // An edit behind the provider's back: local_file's Read drops a file whose content no
    // longer matches, so refresh forgets it and the next up writes it again.
    std::fs::write(&greeting, "tampered")?;
    ws.refresh()?;
    let after_refresh = ws.managed_resources()?;
    assert!(
        !after_refresh.iter().any(|r| r["urn"].as_str().is_some_and(|u| u.ends_with("::greetingFile"))),
        "{after_refresh:#?}"
    );
    ws.up()?;
    assert_eq!(read(&greeting)?, "bonjour");
    ws.preview_expect_no_changes()?;

    ws.destroy()?;
    assert!(!greeting.exists(), "destroy deletes the file");
    assert!(files.join("input.txt").exists(), "the data source's file is not ours to delete");
    assert_eq!(ws.managed_resources()?, Vec::<serde_json::Value>::new());
    Ok(())
}

fn null_lifecycle(implementation: Implementation) -> anyhow::Result<()> {
    let mut ws = start("null", implementation, "null", versions::NULL)?;
    ws.up()?;
    let outputs = ws.stack_outputs(true)?;
    assert_eq!(outputs["markerTriggers"], json!({"release": "v1"}), "{outputs:#}");
    assert_eq!(outputs["echoOutputs"], json!({"release": "v1"}), "{outputs:#}");
    let first_id = ws.resource_state("marker")?["id"].clone();
    ws.preview_expect_no_changes()?;
    ws.refresh()?;
    ws.preview_expect_no_changes()?;

    ws.config_set("release", "v2")?;
    let up = ws.up()?;
    assert!(up.stdout.contains("replaced"), "{up}");
    let outputs = ws.stack_outputs(true)?;
    assert_eq!(outputs["markerTriggers"], json!({"release": "v2"}), "{outputs:#}");
    assert_eq!(outputs["echoOutputs"], json!({"release": "v2"}), "{outputs:#}");
    assert_ne!(ws.resource_state("marker")?["id"], first_id, "a replacement has a new id");

    ws.destroy()?;
    assert_eq!(ws.managed_resources()?, Vec::<serde_json::Value>::new());
    Ok(())
}

fn time_lifecycle(implementation: Implementation) -> anyhow::Result<()> {
    let mut ws = start("time", implementation, "time", versions::TIME)?;
    ws.up()?;
    let outputs = ws.stack_outputs(true)?;
    assert_eq!(outputs, time_outputs("2026-01-02T00:00:00Z", 2), "{outputs:#}");
    ws.preview_expect_no_changes()?;

    // The offset updates in place: same id, new computed values.
    let id = ws.resource_state("later")?["id"].clone();
    ws.config_set("offsetDays", "2")?;
    let up = ws.up()?;
    assert!(up.stdout.contains("updated") && !up.stdout.contains("replaced"), "{up}");
    assert_eq!(ws.stack_outputs(true)?, time_outputs("2026-01-03T00:00:00Z", 3));
    assert_eq!(ws.resource_state("later")?["id"], id);
    ws.preview_expect_no_changes()?;

    // In time 0.14 the base time updates in place too.
    ws.edit_program("2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z")?;
    let up = ws.up()?;
    assert!(up.stdout.contains("updated") && !up.stdout.contains("replaced"), "{up}");
    assert_eq!(ws.resource_state("later")?["id"], id, "Pulumi keeps the id across an update");
    assert_eq!(ws.stack_outputs(true)?["rfc3339"], json!("2026-02-03T00:00:00Z"));

    // time_static imports by its timestamp.
    ws.import("time:index/static:Static", "imported", "2025-05-05T05:05:05Z")?;
    let imported = ws.resource_state("imported")?;
    assert_eq!(imported["outputs"]["rfc3339"], json!("2025-05-05T05:05:05Z"), "{imported:#}");
    assert_eq!(imported["outputs"]["year"], json!(2025), "{imported:#}");
    assert_eq!(imported["outputs"]["unix"], json!(1746421505), "{imported:#}");

    ws.refresh()?;
    ws.destroy()?;
    assert_eq!(ws.managed_resources()?, Vec::<serde_json::Value>::new());
    Ok(())
}

/// A file's content, or an error naming the file.
fn read(path: &std::path::Path) -> anyhow::Result<String> {
    use anyhow::Context as _;
    std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))
}

/// The time example's outputs for a given offset result (the parse function's input is fixed).
fn time_outputs(rfc3339: &str, day: u32) -> serde_json::Value {
    json!({"rfc3339": rfc3339, "day": day, "parsedUnix": 1767312000})
}

/// The same program with both implementations gives the same outputs and the same state
/// shape, so a stack made with one works with the other.
///
/// The one allowed difference is `__pulumi_raw_state_delta`, the record of how the Terraform
/// state differs from what the Pulumi outputs would re-encode to. The Go implementation
/// writes one whenever an attribute is null (here `offsetHours` and the other unset
/// offsets, each as `{"replace": {"raw": null}}`); ours writes one only when re-encoding the
/// outputs would not give the Terraform state back, which for null attributes it does. Both
/// read either form: `a_stack_moves_between_implementations` below and tests/peer/state_interop.rs.
#[test]
fn both_implementations_give_the_same_outputs() -> anyhow::Result<()> {
    let mut results = Vec::new();
    for implementation in Implementation::ALL {
        let mut ws = start("time", implementation, "time", versions::TIME)?;
        ws.up()?;
        let outputs = ws.stack_outputs(true)?;
        let state = ws.resource_state("later")?;
        ws.destroy()?;
        let mut state_outputs = state["outputs"].clone();
        if let Some(outputs) = state_outputs.as_object_mut() {
            outputs.remove("__pulumi_raw_state_delta");
        }
        results.push((implementation, outputs, state_outputs, state["inputs"].clone()));
    }
    let (_, go_outputs, go_state, go_inputs) = results.pop().expect("go ran");
    let (_, our_outputs, our_state, our_inputs) = results.pop().expect("ours ran");
    assert_eq!(our_outputs, go_outputs);
    assert_eq!(our_inputs, go_inputs);
    assert_eq!(our_state, go_state);
    Ok(())
}

/// A stack made with the Go implementation carries on with ours, and back: no changes after
/// either switch, an in-place update by ours, and the Go implementation destroying what ours
/// last wrote.
#[test]
fn a_stack_moves_between_implementations() -> anyhow::Result<()> {
    let mut ws = start("time", Implementation::Go, "time", versions::TIME)?;
    ws.up()?;
    assert_eq!(ws.stack_outputs(true)?, time_outputs("2026-01-02T00:00:00Z", 2));

    ws.switch_to(Implementation::Ours)?;
    ws.preview_expect_no_changes()?;
    ws.refresh()?;
    ws.preview_expect_no_changes()?;
    ws.config_set("offsetDays", "3")?;
    let update = ws.up()?;
    assert!(update.all_text().contains("1 updated"), "{update}");
    assert_eq!(ws.stack_outputs(true)?, time_outputs("2026-01-04T00:00:00Z", 4));
    // The update really went through our plugin: the provider resource records its version.
    let state = ws.stack_export()?;
    let provider = state["deployment"]["resources"]
        .as_array()
        .and_then(|all| all.iter().find(|r| r["type"] == json!("pulumi:providers:time")))
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        provider["inputs"]["__internal"]["version"],
        json!(Implementation::Ours.plugin_version()),
        "{provider:#}"
    );

    ws.switch_to(Implementation::Go)?;
    ws.preview_expect_no_changes()?;
    ws.destroy()?;
    assert_eq!(ws.managed_resources()?, Vec::<serde_json::Value>::new());
    Ok(())
}
