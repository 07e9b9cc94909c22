//! The package-schema goldens of tests/hermetic/schema_golden.rs for the real random, null and local
//! providers built by `scripts/test-tools.sh providers` (a peer-tier test), by local path
//! and by registry address. Refresh with
//! `UPDATE_EXPECT=1 cargo test --features peer-tests --test peer -- schema_golden_real::`.

use crate::common;

use common::versions;
use std::path::Path;

use common::schema::{PLUGIN_VERSION, check};
use expect_test::{ExpectFile, expect_file};

/// Runs the `schema-gen` command with a registry address and compares its output with the
/// goldens. The provider is found in Terraform's implicit filesystem mirror under the working
/// directory (`terraform.d/plugins`, unpacked layout), so nothing is downloaded. A child
/// process, because the installer reads its configuration from the environment: here an
/// empty CLI configuration and a PULUMI_HOME of its own.
fn check_registry(
    executable: &Path,
    address: &str,
    version: &str,
    schema_golden: ExpectFile,
    warnings_golden: ExpectFile,
) -> anyhow::Result<()> {
    let (namespace, type_name) = address.split_once('/').expect("namespace/type");
    let work_dir = common::scratch_dir("golden-registry");
    let mirrored = work_dir
        .join("terraform.d/plugins/registry.opentofu.org")
        .join(namespace)
        .join(type_name)
        .join(version)
        .join("linux_amd64");
    std::fs::create_dir_all(&mirrored)?;
    std::os::unix::fs::symlink(executable, mirrored.join(format!("terraform-provider-{type_name}")))?;
    let cli_config = work_dir.join("empty.tfrc");
    std::fs::write(&cli_config, "")?;
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_schema-gen"))
        .args(["--plugin-version", PLUGIN_VERSION, address, version])
        .current_dir(&work_dir)
        .env("TF_CLI_CONFIG_FILE", &cli_config)
        .env("PULUMI_HOME", work_dir.join("pulumi-home"))
        .output()?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    anyhow::ensure!(output.status.success(), "schema-gen {address} {version} failed: {stderr}");
    schema_golden.assert_eq(&String::from_utf8(output.stdout)?);
    // Progress lines name the scratch directory; only the warnings are compared.
    let warnings: String =
        stderr.lines().filter_map(|line| line.strip_prefix("warning: ")).map(|line| format!("{line}\n")).collect();
    warnings_golden.assert_eq(&warnings);
    Ok(())
}

/// The directory of a real provider built by scripts/test-tools.sh.
fn real_provider_dir(name: &str, version: &str) -> anyhow::Result<std::path::PathBuf> {
    let executable = common::real_provider(name, version)?;
    Ok(executable.parent().expect("a provider lives in a directory").to_owned())
}

#[tokio::test]
async fn random_3_9_0() -> anyhow::Result<()> {
    check(
        &real_provider_dir("random", versions::RANDOM)?,
        "random",
        expect_file!["../golden/schema/random-3.9.0.pulumi.json"],
        expect_file!["../golden/schema/random-3.9.0.warnings.txt"],
    )
    .await
}

/// The registry form: version, repository, publisher, the Go import path and a `remote`
/// parameter come from the address.
#[test]
fn random_3_9_0_by_registry_address() -> anyhow::Result<()> {
    check_registry(
        &common::real_provider("random", versions::RANDOM)?,
        "hashicorp/random",
        versions::RANDOM,
        expect_file!["../golden/schema/random-3.9.0-registry.pulumi.json"],
        expect_file!["../golden/schema/random-3.9.0.warnings.txt"],
    )
}

#[tokio::test]
async fn null_2_1_2() -> anyhow::Result<()> {
    check(
        &real_provider_dir("null", versions::NULL)?,
        "null",
        expect_file!["../golden/schema/null-2.1.2.pulumi.json"],
        expect_file!["../golden/schema/null-2.1.2.warnings.txt"],
    )
    .await
}

#[tokio::test]
async fn local_2_9_0() -> anyhow::Result<()> {
    check(
        &real_provider_dir("local", versions::LOCAL)?,
        "local",
        expect_file!["../golden/schema/local-2.9.0.pulumi.json"],
        expect_file!["../golden/schema/local-2.9.0.warnings.txt"],
    )
    .await
}
