//! Resource identity and list resources through the real Pulumi CLI, against HashiCorp's
//! tfcoremock (protocol 6.10, an identity `{id}` and a list resource for every resource):
//!
//! - `pulumi import` by identity (`'{"id":"…"}'`), whose identity is kept in `__meta` and
//!   survives a refresh and an update; identity JSON that is malformed or of the wrong shape
//!   fails naming the expected fields;
//! - a stack with identities moved to the Go implementation and back;
//! - `pulumi do <token> list` of resources a program created, with their identities and
//!   objects (the ID rule), across more than one page.
//!
//! Needs `scripts/test-tools.sh providers pulumi anchor`.

use crate::common;

use std::path::{Path, PathBuf};

use common::Implementation;
use common::pulumi::Workspace;
use common::versions;
use serde_json::{Value, json};

const SIMPLE: &str = "tfcoremock:index/simpleResource:SimpleResource";

/// A workspace with tfcoremock added, a stack, and `resourceDirectory` set to an absolute
/// directory (tfcoremock resolves a relative one against its process's working directory).
fn start(label: &str, implementation: Implementation, program: &str) -> anyhow::Result<(Workspace, PathBuf)> {
    let binary = common::real_provider("tfcoremock", versions::TFCOREMOCK)?;
    let mut ws = Workspace::new(label, implementation)?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), program)?;
    ws.package_add(&[binary.to_str().expect("a UTF-8 path")])?;
    ws.stack_init()?;
    let resources = ws.root().join("mock-resources");
    ws.config_set("tfcoremock:resourceDirectory", resources.to_str().expect("a UTF-8 path"))?;
    Ok((ws, resources))
}

fn program(resources: &str) -> String {
    format!("name: e2e-identity\nruntime: yaml\nresources:\n{resources}")
}

/// A tfcoremock_simple_resource `name` with the given id and string, in YAML.
fn simple(name: &str, id: &str, string: &str) -> String {
    format!("  {name}:\n    type: {SIMPLE}\n    properties:\n      simpleResourceId: {id}\n      string: {string}\n")
}

/// The object tfcoremock stores for a resource, as the program or an import left it.
fn stored(resources: &Path, id: &str) -> anyhow::Result<Value> {
    let text = std::fs::read_to_string(resources.join(format!("{id}.json")))?;
    Ok(serde_json::from_str(&text)?)
}

/// The `__meta` object of a resource's state.
fn meta(state: &Value) -> Value {
    let text = state["outputs"]["__meta"].as_str().unwrap_or("{}");
    serde_json::from_str(text).unwrap_or(Value::Null)
}

#[test]
fn import_by_identity_survives_refresh_and_update() -> anyhow::Result<()> {
    // The object exists before the stack knows it: made by another program.
    let (mut ws, resources) =
        start("identity-import", Implementation::Ours, &program(&simple("made", "abc", "hello")))?;
    ws.up()?;
    ws.pulumi_ok(&[
        "state",
        "delete",
        "--yes",
        "--non-interactive",
        &format!("urn:pulumi:dev::e2e-identity::{SIMPLE}::made"),
    ])?;
    std::fs::write(
        ws.project_dir().join("Pulumi.yaml"),
        program("  {}\n").replace("resources:\n  {}", "resources: {}"),
    )?;
    assert_eq!(stored(&resources, "abc")?["values"]["string"], json!({"string": "hello"}));

    // Bad identity JSON: malformed, or of the wrong types. Each names the resource type and
    // the fields the identity has, and nothing reaches the state.
    let malformed = ws.pulumi_fails(&[
        "import",
        SIMPLE,
        "bad",
        r#"{"id":"abc""#,
        "--yes",
        "--generate-code=false",
        "--non-interactive",
    ])?;
    let text = malformed.all_text();
    assert!(text.contains("cannot import tfcoremock_simple_resource by identity"), "{malformed}");
    assert!(
        text.contains("not valid identity JSON")
            && text.contains(r#"expected a JSON object with the fields id ("string", required)"#),
        "{malformed}"
    );
    let wrong = ws.pulumi_fails(&[
        "import",
        SIMPLE,
        "bad",
        r#"{"name":"abc"}"#,
        "--yes",
        "--generate-code=false",
        "--non-interactive",
    ])?;
    // A field the identity does not have makes the JSON an ID string (restful's import IDs
    // are JSON): tfcoremock has no object with that ID.
    assert!(wrong.all_text().contains("does not exist"), "{wrong}");
    let typed = ws.pulumi_fails(&[
        "import",
        SIMPLE,
        "bad",
        r#"{"id":7}"#,
        "--yes",
        "--generate-code=false",
        "--non-interactive",
    ])?;
    assert!(typed.all_text().contains(r#"the identity field "id" must be "string": got 7"#), "{typed}");
    assert_eq!(ws.managed_resources()?, Vec::<Value>::new());

    ws.import(SIMPLE, "imported", r#"{"id":"abc"}"#)?;
    let imported = ws.resource_state("imported")?;
    assert_eq!(imported["id"], json!("abc"), "{imported:#}");
    assert_eq!(imported["outputs"]["string"], json!("hello"), "{imported:#}");
    assert_eq!(meta(&imported)["identity"], json!(r#"{"id":"abc"}"#), "{imported:#}");
    assert_eq!(meta(&imported)["identity_schema_version"], json!("0"), "{imported:#}");

    // The program takes the imported resource over; a refresh keeps the identity.
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), program(&simple("imported", "abc", "hello")))?;
    ws.preview_expect_no_changes()?;
    ws.refresh()?;
    let refreshed = ws.resource_state("imported")?;
    assert_eq!(meta(&refreshed)["identity"], json!(r#"{"id":"abc"}"#), "{refreshed:#}");

    // An update in place sends the stored identity and keeps the one the provider returns.
    ws.edit_program("string: hello", "string: world")?;
    let up = ws.up()?;
    assert!(up.stdout.contains("updated"), "{up}");
    let updated = ws.resource_state("imported")?;
    assert_eq!(updated["outputs"]["string"], json!("world"), "{updated:#}");
    assert_eq!(meta(&updated)["identity"], json!(r#"{"id":"abc"}"#), "{updated:#}");
    assert_eq!(stored(&resources, "abc")?["values"]["string"], json!({"string": "world"}));
    ws.preview_expect_no_changes()?;

    ws.destroy()?;
    assert!(!resources.join("abc.json").exists(), "destroy removed the object");
    Ok(())
}

/// A stack whose state carries identities, updated by the Go implementation (which has no
/// identity: it reads `__meta` without complaint and writes its own, without the identity)
/// and then by ours again, which reads the identity back from the provider.
#[test]
fn identities_survive_the_go_implementation_both_ways() -> anyhow::Result<()> {
    let (mut ws, resources) = start("identity-interop", Implementation::Ours, &program(&simple("thing", "one", "a")))?;
    ws.up()?;
    assert_eq!(meta(&ws.resource_state("thing")?)["identity"], json!(r#"{"id":"one"}"#));

    ws.switch_to(Implementation::Go)?;
    ws.preview_expect_no_changes()?;
    ws.edit_program("string: a", "string: b")?;
    ws.up()?;
    let by_go = ws.resource_state("thing")?;
    assert_eq!(by_go["outputs"]["string"], json!("b"), "{by_go:#}");
    assert_eq!(meta(&by_go)["identity"], Value::Null, "Go drops the identity with the rest of __meta: {by_go:#}");

    // Back with ours: the update's apply returns the identity again, and a refresh (served
    // by the provider version the state now records, ours) keeps it.
    ws.switch_to(Implementation::Ours)?;
    ws.preview_expect_no_changes()?;
    ws.edit_program("string: b", "string: c")?;
    ws.up()?;
    let back = ws.resource_state("thing")?;
    assert_eq!(back["outputs"]["string"], json!("c"), "{back:#}");
    assert_eq!(meta(&back)["identity"], json!(r#"{"id":"one"}"#), "{back:#}");
    ws.refresh()?;
    let refreshed = ws.resource_state("thing")?;
    assert_eq!(meta(&refreshed)["identity"], json!(r#"{"id":"one"}"#), "{refreshed:#}");
    assert_eq!(stored(&resources, "one")?["values"]["string"], json!({"string": "c"}));
    ws.destroy()?;
    Ok(())
}

/// `pulumi do <token> list`: its lines of `{id, name}` JSON, or the failed run.
fn list(ws: &mut Workspace, resources: &Path, extra: &[&str]) -> anyhow::Result<common::pulumi::CommandOutput> {
    // The package as `pulumi do` parameterizes it: the plugin, then Parameterize's arguments.
    let binary = common::real_provider("tfcoremock", versions::TFCOREMOCK)?;
    let package = format!("terraform-provider@{} {}", ws.implementation.plugin_version(), binary.display());
    // The provider configuration as the flags `pulumi do` makes of the provider's inputs
    // (`--provider-file` needs the YAML converter plugin, which we do not build).
    let directory = resources.to_str().expect("a UTF-8 path").to_owned();
    let mut args = vec!["do", "--package", &package, SIMPLE, "list", "--tfcoremock:resource-directory", &directory];
    args.extend_from_slice(extra);
    ws.pulumi(&args)
}

/// The JSON array `pulumi do ... --output json` printed (after any status lines).
fn listed_results(output: &common::pulumi::CommandOutput) -> anyhow::Result<Vec<Value>> {
    let start = output.stdout.find('[').ok_or_else(|| anyhow::anyhow!("no JSON array in {output}"))?;
    let results: Vec<Value> = serde_json::from_str(&output.stdout[start..])?;
    Ok(results)
}

/// More resources than one page holds (100, the page size when the engine sets none, as
/// `pulumi do` never does), plus one of another type that the listing must leave out.
#[test]
fn pulumi_do_lists_what_a_program_created() -> anyhow::Result<()> {
    let n = 105;
    let mut resources: String =
        (0..n).map(|i| simple(&format!("r{i:03}"), &format!("r{i:03}"), &format!("value {i}"))).collect();
    resources.push_str("  other:\n    type: tfcoremock:index/complexResource:ComplexResource\n    properties:\n      complexResourceId: c000\n      string: complex\n");
    let (mut ws, dir) = start("list", Implementation::Ours, &program(&resources))?;
    ws.up()?;
    let expected: Vec<Value> = (0..n).map(|i| json!({"id": format!("r{i:03}"), "name": format!("r{i:03}")})).collect();

    // Every page: the CLI follows the continuation tokens to the end.
    let started = std::time::Instant::now();
    let all = list(&mut ws, &dir, &["--all", "--output", "json"])?;
    println!("pulumi do list --all of {n} resources (2 pages): {:?}", started.elapsed());
    anyhow::ensure!(all.success(), "{all}");
    assert_eq!(listed_results(&all)?, expected, "{all}");

    // Without --all the CLI stops after the first page; --count crosses into the second.
    let first = list(&mut ws, &dir, &["--output", "json"])?;
    anyhow::ensure!(first.success(), "{first}");
    assert_eq!(listed_results(&first)?, expected[..100].to_vec(), "{first}");
    let count = list(&mut ws, &dir, &["--count", "103", "--output", "json"])?;
    anyhow::ensure!(count.success(), "{count}");
    assert_eq!(listed_results(&count)?, expected[..103].to_vec(), "{count}");

    // The list inputs filter (tfcoremock's `id`); an id nothing has lists nothing.
    let one = list(&mut ws, &dir, &["--id", "r042", "--all", "--output", "json"])?;
    anyhow::ensure!(one.success(), "{one}");
    assert_eq!(listed_results(&one)?, vec![json!({"id": "r042", "name": "r042"})], "{one}");
    let none = list(&mut ws, &dir, &["--id", "nothing", "--all", "--output", "json"])?;
    anyhow::ensure!(none.success(), "{none}");
    assert_eq!(listed_results(&none)?, Vec::<Value>::new(), "{none}");

    // A listed result imports by its identity into another stack of the same project.
    ws.pulumi_ok(&["stack", "init", "other", "--secrets-provider", "passphrase", "--non-interactive"])?;
    ws.config_set("tfcoremock:resourceDirectory", dir.to_str().expect("a UTF-8 path"))?;
    ws.import(SIMPLE, "found", r#"{"id":"r007"}"#)?;
    let found = ws.resource_state("found")?;
    assert_eq!(found["outputs"]["string"], json!("value 7"), "{found:#}");
    ws.pulumi_ok(&["state", "delete", "--yes", "--non-interactive", found["urn"].as_str().unwrap_or_default()])?;
    ws.pulumi_ok(&["stack", "select", "dev", "--non-interactive"])?;
    ws.destroy()?;
    Ok(())
}
