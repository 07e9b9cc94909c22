//! The `schema-gen` binary: the Terraform schema it read, and clear errors. With a real
//! provider (tests/peer/schema_gen_cli_real.rs): exactly the schema GetSchema serves, and flags.

use crate::common;

use common::schema::{run_schema_gen as run, schema_gen_stdout as stdout};
use schema_gen::tf::{ProviderSchema, ProvidersSchemaFile};

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
    let served: ProvidersSchemaFile =
        serde_json::from_str(include_str!("../fixture-provider/src/fixture_schema.json"))?;
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
