//! The `schema-gen` binary: it prints exactly the schema GetSchema serves (the goldens of
//! tests/schema_golden.rs), the Terraform schema it read, and clear errors.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use expect_test::expect;
use schema_gen::tf::{ProviderSchema, ProvidersSchemaFile};

const SCHEMA_GEN: &str = env!("CARGO_BIN_EXE_schema-gen");

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(SCHEMA_GEN).args(args).current_dir(dir).output().expect("schema-gen starts")
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "schema-gen failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).expect("utf-8 output")
}

#[test]
fn prints_the_same_schema_as_get_schema() -> anyhow::Result<()> {
    let random = common::real_provider("random", "3.9.0")?;
    let dir = random.parent().expect("a provider lives in a directory");
    // The golden was made with plugin version 1.0.0 and this relative path.
    let output = run(dir, &["--plugin-version", "1.0.0", "./terraform-provider-random"]);
    assert_eq!(stdout(&output), include_str!("golden/schema/random-3.9.0.pulumi.json"));
    // Warnings go to stderr, never into the JSON.
    expect![[r#"
        warning: ephemeral resource random_bytes is not translated: the package schema has no ephemeral resources
        warning: ephemeral resource random_password is not translated: the package schema has no ephemeral resources
    "#]]
    .assert_eq(&String::from_utf8_lossy(&output.stderr));
    Ok(())
}

#[test]
fn parameterize_flags_apply() -> anyhow::Result<()> {
    let random = common::real_provider("random", "3.9.0")?;
    let path = random.to_str().expect("a utf-8 path");
    let output = run(Path::new("/"), &[path, "--include", "random_pet,random_id", "--provider-name", "dice"]);
    let schema: serde_json::Value = serde_json::from_str(&stdout(&output))?;
    let resources: Vec<&str> = schema["resources"].as_object().expect("resources").keys().map(String::as_str).collect();
    assert_eq!((schema["name"].as_str(), resources), (Some("dice"), vec!["dice:index/id:Id", "dice:index/pet:Pet"]));
    Ok(())
}

/// The Terraform schema survives the trip through protocol 6 and back to JSON: the fixture
/// serves `fixture_schema.json`, and schema-gen prints it again.
#[test]
fn terraform_schema_round_trips_through_protocol_6() -> anyhow::Result<()> {
    let dir = common::fixture_provider_dir(6, None)?;
    let output = run(&dir, &["--terraform-schema", "./terraform-provider-fixture"]);
    let printed: ProvidersSchemaFile = serde_json::from_str(&stdout(&output))?;
    assert_eq!(printed.format_version, "1.0");
    // A local binary has no source address; its entry is keyed by the provider's name.
    let keys: Vec<&String> = printed.provider_schemas.keys().collect();
    assert_eq!(keys, ["fixture"]);
    let served: ProvidersSchemaFile = serde_json::from_str(include_str!("fixture-provider/src/fixture_schema.json"))?;
    let served: &ProviderSchema = served.provider_schemas.values().next().expect("one provider");
    assert_eq!(&printed.provider_schemas["fixture"], served);
    Ok(())
}

#[test]
fn errors_name_the_cause() {
    let dir = common::scratch_dir("schema-gen-cli");
    let cases: [(&[&str], i32, &str); 4] = [
        (&[], 1, "schema-gen: accepts between 1 and 2 arg(s), received 0"),
        (&["./terraform-provider-nope"], 1, "terraform-provider-nope does not exist"),
        (&["--plugin-version"], 2, "a value is required for '--plugin-version <VERSION>'"),
        (&["./terraform-provider-nope", "--bogus"], 1, "schema-gen: unknown flag: --bogus"),
    ];
    for (args, code, message) in cases {
        let output = run(&dir, args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{args:?}: nothing on stdout");
    }
    let help = run(&dir, &["--help"]);
    assert!(help.status.success() && String::from_utf8_lossy(&help.stdout).contains("--terraform-schema"));
}
