//! Golden files of the whole Pulumi package schema, made the way GetSchema makes it: the
//! provider is launched and described by `tfbridge::lifecycle::parameterize`, then
//! translated. Covers the fixture provider over protocol 5 and 6 (every type, nesting mode
//! and flag) and the real random, null and local providers.
//!
//! Each provider is named by a relative local path (`./terraform-provider-<name>`, resolved
//! against its own directory), so the parameter embedded in the schema is the same on every
//! machine. Refresh with `UPDATE_EXPECT=1 cargo test --test schema_golden`.

mod common;

use std::path::Path;

use expect_test::{ExpectFile, expect_file};
use tfbridge::installer::NoProgress;

/// The plugin version written as `parameterization.baseProvider.version`; fixed so that the
/// goldens do not change with each release.
const PLUGIN_VERSION: &str = "1.0.0";

/// Parameterizes with `./terraform-provider-<name>` in `dir` and compares the schema and its
/// warnings with the goldens.
async fn check(dir: &Path, name: &str, schema_golden: ExpectFile, warnings_golden: ExpectFile) -> anyhow::Result<()> {
    let args = tfbridge::parameterize::parse_args(&[format!("./terraform-provider-{name}")])?;
    let parameterized = tfbridge::lifecycle::parameterize(&args, dir, &NoProgress).await?;
    let (spec, warnings) = parameterized.package_schema(PLUGIN_VERSION);
    parameterized.client.shutdown().await;
    schema_golden.assert_eq(&(spec.to_json_pretty() + "\n"));
    let warnings: String = warnings.iter().map(|warning| format!("{warning}\n")).collect();
    warnings_golden.assert_eq(&warnings);
    Ok(())
}

/// The directory of a real provider built by scripts/test-tools.sh.
fn real_provider_dir(name: &str, version: &str) -> anyhow::Result<std::path::PathBuf> {
    let executable = common::real_provider(name, version)?;
    Ok(executable.parent().expect("a provider lives in a directory").to_owned())
}

#[tokio::test]
async fn fixture_over_protocol_5() -> anyhow::Result<()> {
    check(
        &common::fixture_provider_dir(5, None)?,
        "fixture",
        expect_file!["golden/schema/fixture-v5.pulumi.json"],
        expect_file!["golden/schema/fixture-v5.warnings.txt"],
    )
    .await
}

#[tokio::test]
async fn fixture_over_protocol_6() -> anyhow::Result<()> {
    check(
        &common::fixture_provider_dir(6, None)?,
        "fixture",
        expect_file!["golden/schema/fixture-v6.pulumi.json"],
        expect_file!["golden/schema/fixture-v6.warnings.txt"],
    )
    .await
}

#[tokio::test]
async fn random_3_9_0() -> anyhow::Result<()> {
    check(
        &real_provider_dir("random", "3.9.0")?,
        "random",
        expect_file!["golden/schema/random-3.9.0.pulumi.json"],
        expect_file!["golden/schema/random-3.9.0.warnings.txt"],
    )
    .await
}

#[tokio::test]
async fn null_2_1_2() -> anyhow::Result<()> {
    check(
        &real_provider_dir("null", "2.1.2")?,
        "null",
        expect_file!["golden/schema/null-2.1.2.pulumi.json"],
        expect_file!["golden/schema/null-2.1.2.warnings.txt"],
    )
    .await
}

#[tokio::test]
async fn local_2_9_0() -> anyhow::Result<()> {
    check(
        &real_provider_dir("local", "2.9.0")?,
        "local",
        expect_file!["golden/schema/local-2.9.0.pulumi.json"],
        expect_file!["golden/schema/local-2.9.0.warnings.txt"],
    )
    .await
}
