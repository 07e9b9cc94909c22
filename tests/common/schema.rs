//! Package schemas in tests: the goldens' one check, shared by tests/hermetic/schema_golden.rs (the
//! fixture) and tests/peer/schema_golden_real.rs (real providers), and the `schema-gen` command.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use expect_test::ExpectFile;
use tfbridge::installer::NoProgress;
use tfbridge::schema_cache::SchemaCache;

/// The plugin version written as `parameterization.baseProvider.version`; fixed so that the
/// goldens do not change with each release.
pub const PLUGIN_VERSION: &str = "1.0.0";

/// Parameterizes with `./terraform-provider-<name>` in `dir` and compares the schema and its
/// warnings with the goldens.
pub async fn check(
    dir: &Path,
    name: &str,
    schema_golden: ExpectFile,
    warnings_golden: ExpectFile,
) -> anyhow::Result<()> {
    let args = tfbridge::parameterize::parse_args(&[format!("./terraform-provider-{name}")])?;
    // The schema cache is given explicitly, in a fresh directory, rather than read from the
    // environment: the tests of a binary share one process, and neither its environment nor
    // the user's own cache has a say in a golden.
    let cache_dir = super::scratch_dir("schema-golden-cache");
    let cache = SchemaCache::from_variables(&BTreeMap::from([(
        "PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR".to_owned(),
        cache_dir.display().to_string(),
    )]));
    let parameterized = tfbridge::lifecycle::start_provider_with_cache(&args, dir, &NoProgress, cache).await?;
    let (spec, warnings) = parameterized.package_schema(PLUGIN_VERSION)?;
    parameterized.shutdown().await;
    let _ = std::fs::remove_dir_all(&cache_dir);
    schema_golden.assert_eq(&(spec.to_json_pretty() + "\n"));
    let warnings: String = warnings.iter().map(|warning| format!("{warning}\n")).collect();
    warnings_golden.assert_eq(&warnings);
    Ok(())
}

/// Runs the `schema-gen` command in `dir`.
pub fn run_schema_gen(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_schema-gen")).args(args).current_dir(dir).output().expect("schema-gen starts")
}

/// The stdout of a `schema-gen` run that must have succeeded.
pub fn schema_gen_stdout(output: &Output) -> String {
    assert!(output.status.success(), "schema-gen failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).expect("utf-8 output")
}
