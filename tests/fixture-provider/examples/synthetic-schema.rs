//! Prints the AWS-sized synthetic schema in `terraform providers schema -json` format:
//! `cargo run -p terraform-provider-fixture --example synthetic-schema > schema.json`, then
//! serve it with `FIXTURE_SCHEMA_FILE=schema.json`.

use std::collections::BTreeMap;
use std::io::Write;

use schema_gen::tf;
use terraform_provider_fixture::synthetic::{AWS_SIZED, synthetic_schema};

fn main() -> anyhow::Result<()> {
    let file = tf::ProvidersSchemaFile {
        format_version: "1.0".to_owned(),
        provider_schemas: BTreeMap::from([(
            "registry.terraform.io/pulumi/synthetic".to_owned(),
            synthetic_schema(&AWS_SIZED),
        )]),
    };
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer(&mut stdout, &file)?;
    stdout.write_all(b"\n")?;
    Ok(())
}
