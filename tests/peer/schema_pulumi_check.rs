//! The real Pulumi CLI accepts our schemas: `pulumi schema check <our plugin> -- <provider>`
//! starts our plugin, parameterizes it with the provider path and gets the schema exactly as
//! `pulumi package add` does, then validates it against the schema spec and binds it (every
//! `$ref` resolved, every token and type valid for the SDK languages).
//!
//! SDK generation itself (`pulumi package gen-sdk` for nodejs, python and go) is tested in
//! `tests/peer/e2e_sdk_gen.rs`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::versions;

/// The Pulumi CLI `TFBRIDGE_TEST_PULUMI_VERSION` picks (tests/common/pulumi.rs).
fn pulumi_cli() -> anyhow::Result<PathBuf> {
    Ok(common::pulumi::Cli::from_env()?.bin_dir()?.join("pulumi"))
}

/// Runs `pulumi <command> <our plugin> -- <provider>`.
fn pulumi_with_plugin(command: &[&str], provider: &Path) -> anyhow::Result<std::process::Output> {
    let pulumi_home = common::scratch_dir("pulumi-home");
    Ok(Command::new(pulumi_cli()?)
        .args(command)
        .args(["--color", "never", common::our_plugin().to_str().expect("a UTF-8 path"), "--"])
        .arg(provider)
        .current_dir(&pulumi_home)
        // A throw-away PULUMI_HOME, and no network: the CLI must neither look for updates
        // nor download plugins.
        .env("PULUMI_HOME", &pulumi_home)
        .env("PULUMI_SKIP_UPDATE_CHECK", "true")
        .env("PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION", "true")
        .output()?)
}

/// Runs `pulumi schema check` on our plugin parameterized with `provider`, after making sure
/// the CLI really parameterizes it (an unparameterized plugin's schema would pass trivially).
fn check(provider: &Path, package: &str) -> anyhow::Result<()> {
    let output = pulumi_with_plugin(&["package", "get-schema"], provider)?;
    let schema: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|err| anyhow::anyhow!("get-schema: {err}: {}", String::from_utf8_lossy(&output.stderr)))?;
    assert_eq!(schema["name"], package, "pulumi package get-schema parameterized the plugin");
    // Every package has the provider's terraformConfig function; a real one has more.
    let members =
        schema["resources"].as_object().map_or(0, |r| r.len()) + schema["functions"].as_object().map_or(0, |f| f.len());
    assert!(members > 1, "{package} has resources or data sources: {schema}");

    let output = pulumi_with_plugin(&["schema", "check"], provider)?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && !stdout.contains("rror") && !stderr.contains("rror"),
        "pulumi schema check rejected the schema for {}: {}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        provider.display(),
        output.status
    );
    Ok(())
}

#[test]
fn fixture_over_protocol_5() -> anyhow::Result<()> {
    check(&common::fixture_provider_dir(5, None)?.join("terraform-provider-fixture"), "fixture")
}

#[test]
fn fixture_over_protocol_6() -> anyhow::Result<()> {
    check(&common::fixture_provider_dir(6, None)?.join("terraform-provider-fixture"), "fixture")
}

#[test]
fn real_providers() -> anyhow::Result<()> {
    let providers = [
        ("random", versions::RANDOM),
        ("null", versions::NULL),
        ("local", versions::LOCAL),
        ("tls", versions::TLS),
        ("http", versions::HTTP),
        ("time", versions::TIME),
        ("sdkv2test", "current"),
        ("framework6test", "current"),
        // Protocol 6.10: listInputs on every resource.
        ("tfcoremock", versions::TFCOREMOCK),
    ];
    for (name, version) in providers {
        check(&common::real_provider(name, version)?, name)?;
    }
    Ok(())
}
