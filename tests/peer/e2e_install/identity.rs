//! Which implementation runs, wherever a user looks (README, "Which implementation runs"):
//! `--version`, `pulumi plugin ls`, `pulumi about`, the plugin's start-up line in the debug
//! output; and a plugin cache folder holding the other implementation's binary, both ways.

use super::*;

/// The rows of `pulumi plugin ls` (NAME KIND VERSION …) naming `terraform-provider`, as
/// (kind, version).
fn plugin_rows(listing: &str) -> Vec<(String, String)> {
    let mut rows: Vec<(String, String)> = listing
        .lines()
        .filter_map(|line| {
            let mut cells = line.split_whitespace();
            match (cells.next(), cells.next(), cells.next()) {
                (Some("terraform-provider"), Some(kind), Some(version)) => Some((kind.to_owned(), version.to_owned())),
                _ => None,
            }
        })
        .collect();
    rows.sort();
    rows
}

/// Our start-up line, as the CLI relays it with `--debug`.
fn our_startup_line() -> String {
    format!("{NAME} {OURS} (Rust implementation): serving pulumirpc.ResourceProvider")
}

/// The random example, added with this workspace's implementation, and a stack.
fn random_project(ws: &mut Workspace) -> anyhow::Result<()> {
    ws.copy_example("random")?;
    let random = common::real_provider("random", versions::RANDOM)?;
    ws.package_add(&[random.to_str().context("UTF-8")?])?;
    ws.stack_init()
}

#[test]
fn every_place_a_user_looks_names_the_implementation() -> anyhow::Result<()> {
    let go_version = Implementation::Go.plugin_version();
    let mut ws = Workspace::new("identity", Implementation::Ours)?;
    // Both implementations installed, as on a machine moving from one to the other.
    ws.use_implementation(Implementation::Go)?;
    ws.use_implementation(Implementation::Ours)?;

    let ours = Command::new(installed_binary(&ws)).arg("--version").output()?;
    assert_eq!(String::from_utf8_lossy(&ours.stdout), format!("{NAME} {OURS} (Rust implementation)\n"));
    let go = Command::new(Implementation::Go.plugin_binary()?).arg("--version").output()?;
    assert_eq!(String::from_utf8_lossy(&go.stdout), format!("v{go_version}\n"), "the Go implementation's");

    let listing = ws.pulumi_ok(&["plugin", "ls"])?;
    let mut expected = vec![("resource".to_owned(), OURS.to_owned()), ("resource".to_owned(), go_version.to_owned())];
    expected.sort();
    assert_eq!(plugin_rows(&listing.stdout), expected, "{listing}");

    random_project(&mut ws)?;
    let about = ws.pulumi_ok(&["about"])?;
    let plugins: Vec<Vec<&str>> = about
        .stdout
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .filter(|cells| cells.get(1) == Some(&"terraform-provider"))
        .collect();
    assert_eq!(plugins, vec![vec!["resource", "terraform-provider", OURS]], "{about}");

    // The start-up line is in the plugin's log, which the CLI shows only with --debug.
    let quiet = ws.preview()?;
    assert!(!quiet.all_text().contains("Rust implementation"), "{quiet}");
    let debug = ws.pulumi_ok(&["preview", "--non-interactive", "--debug"])?;
    assert!(debug.all_text().contains(&our_startup_line()), "{debug}");
    Ok(())
}

/// Go's binary in our version's cache folder (`pulumi plugin install … <ours> --file <Go's>`):
/// it runs, and the engine names it on the console, because it answers GetPluginInfo with a
/// version below the one the project asked for. Our start-up line is missing.
#[test]
fn the_go_binary_under_our_version_runs_and_the_engine_says_so() -> anyhow::Result<()> {
    let mut ws = Workspace::new("identity-go-as-ours", Implementation::Ours)?;
    random_project(&mut ws)?;
    ws.serve_with(Implementation::Go)?;
    let preview = ws.pulumi_ok(&["preview", "--non-interactive", "--debug"])?;
    let text = preview.all_text();
    let engine_warning = format!(
        "warning: resource plugin terraform-provider is expected to have version >={OURS}, but has {}",
        Implementation::Go.plugin_version()
    );
    assert!(text.contains(&engine_warning), "{preview}");
    assert!(!text.contains("Rust implementation"), "{preview}");
    Ok(())
}

/// Our binary in another version's folder (the Go implementation's): the engine says nothing
/// (100.x is at least any 1.x it asks for), so our plugin warns on the console itself.
#[test]
fn our_binary_under_another_version_warns() -> anyhow::Result<()> {
    let go_version = Implementation::Go.plugin_version();
    let mut ws = Workspace::new("identity-ours-as-go", Implementation::Go)?;
    random_project(&mut ws)?;
    ws.serve_with(Implementation::Ours)?;
    let preview = ws.preview()?;
    let text = preview.all_text();
    assert!(
        text.contains(&format!(
            "this terraform-provider plugin is {NAME} {OURS} (Rust implementation), installed under version \
             {go_version}: a project that asks for terraform-provider {go_version} runs it"
        )),
        "{preview}"
    );
    assert!(!text.contains("is expected to have version"), "{preview}");
    Ok(())
}
