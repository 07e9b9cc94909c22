//! Switching a project between the implementations is one command each way (README, "Which
//! implementation runs"): `pulumi package add terraform-provider@<version> <same arguments>`,
//! with ours' download location. The stack keeps its state; the program does not change.

use super::*;

/// The plugin's start-up line in `--debug` output: only ours writes one.
const OURS_RUNNING: &str = "(Rust implementation): serving pulumirpc.ResourceProvider";

/// The `packages.random` entry of Pulumi.yaml, as (version, pluginDownloadURL).
fn package_entry(ws: &Workspace) -> anyhow::Result<(String, Option<String>)> {
    let program = ws.program()?;
    let value =
        |key: &str| program.lines().find_map(|line| line.trim().strip_prefix(&format!("{key}: ")).map(str::to_owned));
    Ok((value("version").context(program.clone())?, value("pluginDownloadURL")))
}

/// `preview --expect-no-changes --debug`, and whether our plugin served it.
fn no_changes_served_by_ours(ws: &mut Workspace) -> anyhow::Result<bool> {
    let preview = ws.pulumi_ok(&["preview", "--expect-no-changes", "--non-interactive", "--debug"])?;
    Ok(preview.all_text().contains(OURS_RUNNING))
}

#[test]
fn a_go_yaml_stack_switches_to_ours_and_back_with_one_package_add_each() -> anyhow::Result<()> {
    let go_version = Implementation::Go.plugin_version();
    let server = server_with_the_archive()?;
    let random = common::real_provider("random", versions::RANDOM)?;
    let random = random.to_str().context("UTF-8")?;

    // A project and stack made with the Go implementation; ours is not installed.
    let mut ws = Workspace::new("switch", Implementation::Go)?;
    ws.set_env("PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION", "false");
    ws.set_env("PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES", &teammate::overrides(&server));
    ws.copy_example("random")?;
    ws.package_add(&[random])?;
    ws.stack_init()?;
    ws.up()?;
    let first = ws.stack_outputs(true)?;
    assert!(!no_changes_served_by_ours(&mut ws)?);

    // To ours: one command, which also fetches our plugin from the location it records.
    let ours_source = format!("terraform-provider@{OURS}");
    ws.pulumi_ok(&["package", "add", &ours_source, random, "--server", RECORDED_LOCATION])?;
    assert_eq!(server.requests(), vec![format!("/releases/{}", archive_name())]);
    assert_eq!(package_entry(&ws)?, (OURS.to_owned(), Some(RECORDED_LOCATION.to_owned())));
    assert!(no_changes_served_by_ours(&mut ws)?, "ours reads the Go implementation's state with no diff");
    assert_eq!(ws.stack_outputs(true)?, first);
    ws.config_set("petLength", "3")?;
    ws.up()?;
    let by_ours = ws.stack_outputs(true)?;
    assert_eq!(by_ours["petId"].as_str().map(|pet| pet.split('-').count()), Some(4), "{by_ours:#}");

    // And back: the same command with the Go implementation's version and no location.
    let go_source = format!("terraform-provider@{go_version}");
    ws.pulumi_ok(&["package", "add", &go_source, random])?;
    assert_eq!(package_entry(&ws)?, (go_version.to_owned(), None));
    assert!(!no_changes_served_by_ours(&mut ws)?, "the Go implementation reads our state with no diff");
    assert_eq!(ws.stack_outputs(true)?, by_ours);
    ws.destroy()?;
    assert_eq!(ws.managed_resources()?, Vec::<serde_json::Value>::new());
    Ok(())
}
