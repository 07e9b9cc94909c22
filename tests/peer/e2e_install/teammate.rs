//! A teammate's fresh machine: the project `package add` made, copied to an empty
//! `PULUMI_HOME`; `pulumi install` fetches our plugin from the location the project records.

use super::*;

/// Pulumi's override of a download location: every URL under the recorded host goes to the
/// loopback server, as a corporate mirror would be configured.
pub(super) fn overrides(server: &ReleaseServer) -> String {
    format!("^https://releases\\.example\\.invalid/={}/releases", server.url())
}

/// Copies a project as a teammate gets it from version control: every file and directory but
/// installed dependencies (`node_modules`).
fn copy_project(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "node_modules" {
            continue;
        }
        let (source, target) = (entry.path(), to.join(&name));
        if entry.file_type()?.is_dir() {
            copy_project(&source, &target)?;
        } else if entry.file_type()?.is_file() {
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}

/// A workspace standing for the teammate's machine: no plugin installed, automatic plugin
/// acquisition on (Pulumi's default), downloads from the recorded host redirected to `server`.
fn teammate_setup(ws: &mut Workspace, server: &ReleaseServer) -> anyhow::Result<()> {
    without_our_plugin(ws)?;
    assert!(our_plugin_entries(ws)?.is_empty());
    ws.set_env("PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION", "false");
    ws.set_env("PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES", &overrides(server));
    Ok(())
}

/// After the teammate's `pulumi install`: our archive's binary is installed, fetched once from
/// the server.
fn assert_fetched(ws: &Workspace, server: &ReleaseServer) -> anyhow::Result<()> {
    assert!(
        std::fs::read(installed_binary(ws))? == std::fs::read(&release().binary)?,
        "the release archive's binary is installed"
    );
    assert_eq!(server.requests(), vec![format!("/releases/{}", archive_name())]);
    Ok(())
}

#[test]
fn teammate_yaml_project_installs_the_plugin_from_the_recorded_location() -> anyhow::Result<()> {
    let server = server_with_the_archive()?;
    let random = common::real_provider("random", versions::RANDOM)?;
    let random = random.to_str().context("UTF-8")?;

    // The author built the plugin (Workspace::new installs it) and records where teammates
    // get it: Pulumi's own `package add --server`.
    let mut author = Workspace::new("teammate-yaml-author", Implementation::Ours)?;
    author.copy_example("random")?;
    author.package_add(&[random, "--server", RECORDED_LOCATION])?;
    let program = author.program()?;
    assert!(program.contains(&format!("    pluginDownloadURL: {RECORDED_LOCATION}\n")), "{program}");
    let lock_files: Vec<PathBuf> = std::fs::read_dir(author.project_dir().join("sdks/random"))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    assert_eq!(lock_files.len(), 1, "{lock_files:?}");
    let lock = std::fs::read_to_string(&lock_files[0])?;
    assert!(lock.contains(&format!("downloadUrl: {RECORDED_LOCATION}\n")), "{lock}");
    // The plugin's own schema does not change: the CLI records the location, not us.
    let schema = author.pulumi_ok(&["package", "get-schema", &format!("terraform-provider@{OURS}"), random])?;
    assert!(!schema.stdout.contains("pluginDownloadURL"), "{}", &schema.stdout[..200.min(schema.stdout.len())]);
    assert!(server.requests().is_empty(), "the author's machine downloads nothing");

    // The teammate: the project from version control, nothing installed.
    let mut mate = Workspace::new("teammate-yaml", Implementation::Ours)?;
    teammate_setup(&mut mate, &server)?;
    copy_project(author.project_dir(), mate.project_dir())?;
    mate.pulumi_ok(&["install"])?;
    assert_fetched(&mate, &server)?;
    mate.stack_init()?;
    mate.up()?;
    let outputs = mate.stack_outputs(true)?;
    assert!(outputs["petId"].as_str().is_some_and(|pet| pet.starts_with("e2e-")), "{outputs:#}");
    mate.preview_expect_no_changes()?;
    mate.destroy()?;
    Ok(())
}

const TS_PROGRAM: &str = r#"import * as random from "@pulumi/random";

const pet = new random.Pet("pet", { length: 2, prefix: "mate" });
export const petId = pet.id;
"#;

#[test]
fn teammate_typescript_project_installs_the_plugin_from_the_recorded_location() -> anyhow::Result<()> {
    let server = server_with_the_archive()?;
    let random = common::real_provider("random", versions::RANDOM)?;
    let random = random.to_str().context("UTF-8")?;

    let mut author = ProgramWorkspace::new("teammate-author", Implementation::Ours, Language::TypeScript)?;
    // The teammate installs offline from the author's package-lock.json. Written over the
    // linked tree, it names some packages (yargs-parser) by version and integrity alone, and
    // the offline npm cache holds no registry metadata to find their tarballs by; written by
    // an install from the cache alone, it installs anywhere the cache is.
    author.without_installed_dependencies()?;
    std::fs::write(author.project_dir().join("index.ts"), TS_PROGRAM)?;
    author.ws.package_add(&[random, "--server", RECORDED_LOCATION])?;
    // The generated SDK carries the location in its package.json, where the Node.js host
    // reads it for `pulumi install`.
    let sdk: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(author.project_dir().join("sdks/random/package.json"))?)?;
    assert_eq!(sdk["pulumi"]["server"], RECORDED_LOCATION, "{sdk:#}");
    assert_eq!(sdk["pulumi"]["name"], "terraform-provider", "{sdk:#}");
    assert_eq!(sdk["pulumi"]["version"], OURS, "{sdk:#}");
    assert!(server.requests().is_empty(), "the author's machine downloads nothing");

    let mut mate = ProgramWorkspace::new("teammate", Implementation::Ours, Language::TypeScript)?;
    teammate_setup(&mut mate.ws, &server)?;
    // A clone has no installed dependencies: `pulumi install` installs them all.
    mate.without_installed_dependencies()?;
    copy_project(author.project_dir(), mate.project_dir())?;
    mate.install()?;
    assert_fetched(&mate, &server)?;
    mate.stack_init()?;
    mate.up()?;
    let outputs = mate.stack_outputs(true)?;
    assert!(outputs["petId"].as_str().is_some_and(|pet| pet.starts_with("mate-")), "{outputs:#}");
    mate.destroy()?;
    Ok(())
}

/// Where Pulumi fetches a `terraform-provider` it has no recorded location for: the GitHub
/// releases of pulumi/pulumi-terraform-provider, then get.pulumi.com, both of which publish the
/// Go implementation. Both go to `server`, standing in for Pulumi's own site.
fn pulumis_site_overrides(server: &ReleaseServer) -> String {
    let site = format!("{}/pulumi-site", server.url());
    format!(
        "^github://api\\.github\\.com/pulumi/pulumi-terraform-provider$={site},^https://get\\.pulumi\\.com/releases/plugins$={site}"
    )
}

/// A project that records no download location, on a fresh machine: Pulumi asks its own site
/// for our version, which it does not have (only the Go implementation's 1.x versions are
/// there), and fails naming the plugin and the version; no plugin is installed and nothing
/// runs. Before our own version line (100.x), the same project asked for the Go
/// implementation's version number and silently got the Go implementation.
#[test]
fn teammate_project_without_a_recorded_location_fails_and_runs_nothing() -> anyhow::Result<()> {
    let server = ReleaseServer::start()?;
    let random = common::real_provider("random", versions::RANDOM)?;
    let mut author = Workspace::new("teammate-unrecorded-author", Implementation::Ours)?;
    author.copy_example("random")?;
    author.package_add(&[random.to_str().context("UTF-8")?])?;
    assert!(!author.program()?.contains("pluginDownloadURL"), "{}", author.program()?);

    let mut mate = Workspace::new("teammate-unrecorded", Implementation::Ours)?;
    without_our_plugin(&mate)?;
    mate.set_env("PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION", "false");
    mate.set_env("PULUMI_PLUGIN_DOWNLOAD_URL_OVERRIDES", &pulumis_site_overrides(&server));
    copy_project(author.project_dir(), mate.project_dir())?;

    let asked = format!("/pulumi-site/{}", archive_name());
    let install = mate.pulumi_fails(&["install"])?;
    let text = install.all_text();
    for want in [format!("failed to download plugin: terraform-provider-{OURS}: 404 HTTP error"), asked.clone()] {
        assert!(text.contains(&want), "expected {want:?} in\n{install}");
    }
    assert_eq!(server.requests(), vec![asked.clone()], "one request, for our version's archive");
    assert!(our_plugin_entries(&mate)?.is_empty(), "{:?}", our_plugin_entries(&mate)?);

    // `pulumi up` tries the same download and stops before any resource.
    mate.stack_init()?;
    let up = mate.up_fails()?;
    let text = up.all_text();
    let want = format!("Could not automatically download and install resource plugin '{NAME}' at version v{OURS}");
    assert!(text.contains(&want), "{up}");
    assert!(server.requests().iter().all(|path| *path == asked), "{:?}", server.requests());
    assert!(our_plugin_entries(&mate)?.is_empty(), "{:?}", our_plugin_entries(&mate)?);
    // Nothing ran: no provider resource (no plugin served the package), no resource.
    let state = mate.stack_export()?;
    let types: Vec<&str> = state["deployment"]["resources"]
        .as_array()
        .map(|all| all.iter().filter_map(|r| r["type"].as_str()).collect())
        .unwrap_or_default();
    assert!(types.iter().all(|ty| *ty == "pulumi:pulumi:Stack"), "{types:?}");
    Ok(())
}
