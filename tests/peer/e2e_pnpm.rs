//! A TypeScript program whose dependencies pnpm installs (the Node.js host's own
//! package-manager option, `packagemanager: pnpm` in Pulumi.yaml) through its lifecycle with
//! our provider, on the newest Pulumi CLI (`Cli::NEWEST`): `package add` of a local Terraform
//! provider (random) writes the SDK and links it with pnpm's settings, `pulumi install` runs
//! pnpm, then up, a preview with no changes, an update that replaces one resource and keeps
//! the other, and destroy.
//!
//! pnpm (`PNPM_VER` in scripts/peers.env) runs offline from the store and metadata cache
//! `scripts/test-tools.sh pnpm` filled (`ProgramWorkspace::use_pnpm`); every proxy variable
//! points at a closed port. Needs `scripts/test-tools.sh random pulumi languages`.

use crate::common;

use anyhow::Context as _;

use common::Implementation;
use common::programs::{Language, ProgramWorkspace};
use common::pulumi::Cli;
use serde_json::json;

const PROGRAM: &str = r#"import * as pulumi from "@pulumi/pulumi";
import * as random from "@pulumi/random";

const config = new pulumi.Config();
// Every random_pet input forces a replacement.
const pet = new random.Pet("pet", { length: config.requireNumber("petLength"), prefix: "e2e" });
const token = new random.String("token", { length: 12, special: false, upper: false });

export const petId = pet.id;
export const tokenResult = token.result;
"#;

/// The SDK `package add` generates for random, as the program's package.json names it.
const SDK: &str = "@pulumi/random";

#[test]
fn typescript_lifecycle_with_pnpm() -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let mut ws = ProgramWorkspace::with_cli("pnpm", Implementation::Ours, Language::TypeScript, Cli::NEWEST)?;
    ws.use_pnpm()?;
    let project = ws.project_dir().to_path_buf();
    std::fs::write(project.join(Language::TypeScript.program_file()), PROGRAM)?;

    // package add: the SDK, linked by the host through pnpm (npm's `pkg set`, then the SDK's
    // build script allowed in pnpm's project settings), and installed.
    let random = common::real_provider("random", common::versions::RANDOM)?;
    let add = ws.add_local_binary(&random, &[])?;
    assert!(project.join("sdks/random/package.json").is_file(), "{add}");
    let manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(project.join("package.json"))?)?;
    assert_eq!(manifest["dependencies"][SDK], json!("file:sdks/random"), "{manifest:#}");
    let settings = std::fs::read_to_string(project.join("pnpm-workspace.yaml"))
        .context("no pnpm-workspace.yaml: the host did not link the SDK through pnpm")?;
    assert!(settings.contains(&format!("{SDK}@file:sdks/random")), "pnpm-workspace.yaml:\n{settings}");

    // pnpm, not npm, installed the dependencies: its lockfile and layout, the pinned version.
    ws.install()?;
    assert!(!project.join("package-lock.json").exists(), "npm wrote a lockfile");
    let lockfile = std::fs::read_to_string(project.join("pnpm-lock.yaml")).context("no pnpm-lock.yaml")?;
    assert!(lockfile.contains("file:sdks/random") && lockfile.contains("'@pulumi/pulumi'"), "{lockfile}");
    let modules = std::fs::read_to_string(project.join("node_modules/.modules.yaml"))
        .context("no node_modules/.modules.yaml, which pnpm writes")?;
    let pnpm = format!("pnpm@{}", common::languages::PNPM_VERSION);
    assert!(modules.contains(&pnpm), "node_modules/.modules.yaml names no {pnpm}:\n{modules}");
    // The SDK's postinstall (allowed above) compiled it.
    assert!(project.join("node_modules/@pulumi/random/bin/index.js").is_file(), "the SDK is not compiled");
    ws.compile()?;

    ws.stack_init()?;
    ws.config_set("petLength", "2")?;
    ws.up()?;
    let outputs = ws.stack_outputs(true)?;
    let pet = outputs["petId"].as_str().unwrap_or_default().to_owned();
    assert!(pet.starts_with("e2e-") && pet.split('-').count() == 3, "prefix plus two words: {outputs:#}");
    let token = outputs["tokenResult"].as_str().unwrap_or_default().to_owned();
    assert!(token.len() == 12 && token.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()), "{outputs:#}");
    ws.preview_expect_no_changes()?;

    // An update: the pet is replaced, the token stays.
    ws.config_set("petLength", "3")?;
    let up = ws.up()?;
    // Unchanged: the token and the stack.
    assert!(up.stdout.contains("1 replaced") && up.stdout.contains("2 unchanged"), "{up}");
    let outputs = ws.stack_outputs(true)?;
    let new_pet = outputs["petId"].as_str().unwrap_or_default();
    assert!(new_pet.starts_with("e2e-") && new_pet.split('-').count() == 4, "{outputs:#}");
    assert_eq!(outputs["tokenResult"], json!(token), "the token is not replaced");
    ws.preview_expect_no_changes()?;

    ws.destroy()?;
    assert_eq!(ws.managed_resources()?, Vec::<serde_json::Value>::new());
    // The wall time of the whole lifecycle (`--nocapture`).
    eprintln!("typescript with pnpm: the whole lifecycle took {:.1}s", started.elapsed().as_secs_f64());
    Ok(())
}
