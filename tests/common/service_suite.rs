//! The skeleton of the end-to-end suites that run a real provider against a real service on
//! loopback, through the real Pulumi CLI, in YAML: `e2e_dns` (BIND), `e2e_restful` (PowerDNS)
//! and `e2e_mysql` (MariaDB). Each suite describes itself as a [`Suite`] (its server, its
//! provider, its program, its stack configuration) and keeps only its steps and checks; what
//! they all do around those is here: the workspace with the package added, a configured stack,
//! the lifecycle on two stacks of one `PULUMI_HOME`, and the checks every suite makes the same
//! way.

use std::path::PathBuf;

use super::Implementation;
use super::pulumi::{CommandOutput, Workspace};

/// One service-backed suite.
pub trait Suite {
    /// The throw-away server (`bind::Bind`, `pdns::Pdns`, `mariadb::MariaDb`).
    type Server;

    /// Starts a server; `label` names its directory.
    fn start_server(label: &str) -> anyhow::Result<Self::Server>;

    /// The provider binary.
    fn provider() -> anyhow::Result<PathBuf>;

    /// Puts the suite's program into `ws`'s project.
    fn write_program(ws: &Workspace) -> anyhow::Result<()>;

    /// Sets the selected stack's configuration for `server`.
    fn configure(ws: &mut Workspace, server: &Self::Server) -> anyhow::Result<()>;
}

/// A workspace named `label` holding the suite's program, with the package added.
pub fn workspace<S: Suite>(label: &str, implementation: Implementation) -> anyhow::Result<Workspace> {
    let mut ws = Workspace::new(label, implementation)?;
    S::write_program(&ws)?;
    let added = ws.package_add(&[S::provider()?.to_str().expect("a UTF-8 path")])?;
    // Quiet, as the Go implementation is (issue 29): no line saying where the provider is.
    assert!(!added.all_text().contains("from the local binary"), "{added}");
    Ok(ws)
}

/// A new stack named `name`, selected and configured for `server`.
pub fn stack<S: Suite>(ws: &mut Workspace, name: &str, server: &S::Server) -> anyhow::Result<()> {
    ws.pulumi_ok(&["stack", "init", name, "--secrets-provider", "passphrase", "--non-interactive"])?;
    S::configure(ws, server)
}

/// A workspace named `label` (see [`workspace`]) with a stack `dev` configured for `server`.
pub fn workspace_with_stack<S: Suite>(
    label: &str,
    implementation: Implementation,
    server: &S::Server,
) -> anyhow::Result<Workspace> {
    let mut ws = workspace::<S>(label, implementation)?;
    stack::<S>(&mut ws, "dev", server)?;
    Ok(ws)
}

/// A server labelled `bad-<implementation>` and a workspace named `label` with a stack
/// configured for it, after a first successful up: where a suite's bad input starts.
pub fn up_for_bad_input<S: Suite>(
    label: &str,
    implementation: Implementation,
) -> anyhow::Result<(S::Server, Workspace)> {
    let server = S::start_server(&format!("bad-{}", implementation.label()))?;
    let mut ws = workspace_with_stack::<S>(label, implementation, &server)?;
    ws.up()?;
    Ok((server, ws))
}

/// The lifecycle on two stacks of one workspace (named `label`), against one server:
/// `first_pass` on the first stack (named "first stack" in its messages), `second_pass` on the
/// second, every process of which runs on the schema cache the first stack's processes wrote
/// (ours: the cache must then hold an entry).
pub fn lifecycle_on_two_stacks<S: Suite>(
    label: &str,
    implementation: Implementation,
    first_pass: impl FnOnce(&mut Workspace, &mut S::Server, &str) -> anyhow::Result<()>,
    second_pass: impl FnOnce(&mut Workspace, &S::Server) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut server = S::start_server(&format!("lifecycle-{}", implementation.label()))?;
    let mut ws = workspace::<S>(label, implementation)?;
    stack::<S>(&mut ws, "first", &server)?;
    first_pass(&mut ws, &mut server, "first stack")?;
    stack::<S>(&mut ws, "second", &server)?;
    second_pass(&mut ws, &server)?;
    if implementation == Implementation::Ours {
        let cache = ws.root().join("pulumi-home/dynamic_tf_plugins/.schema-cache");
        let entries = std::fs::read_dir(&cache).map(|dir| dir.count()).unwrap_or_default();
        assert!(entries >= 1, "the runs used a schema cache entry in {}", cache.display());
    }
    Ok(())
}

/// `pulumi config set --secret key value`.
pub fn set_secret(ws: &mut Workspace, key: &str, value: &str) -> anyhow::Result<()> {
    ws.pulumi_ok(&["config", "set", "--secret", key, value, "--non-interactive"])?;
    Ok(())
}

/// The replacement, as the CLI shows its steps in the order they run (an up without
/// `--diff`), deleted the original before it created the replacement (ours, for a resource
/// whose name the program gives); `pass` names the pass in the message.
pub fn assert_original_deleted_first(replace: &CommandOutput, pass: &str) {
    let delete_first = replace.stdout.find("deleted original");
    let create = replace.stdout.find("created replacement");
    assert!(
        delete_first.is_some() && delete_first < create,
        "{pass}: the display says the original goes first: {replace}"
    );
}

/// Takes out of the program the resource a test added: from its line `resource` (such as
/// `"  broken:"`) up to the line `next` that followed it (such as `"variables:\n"`).
pub fn remove_added_resource(ws: &Workspace, resource: &str, next: &str) -> anyhow::Result<()> {
    let program = ws.program()?;
    let cut = program.find(resource).expect("the added resource");
    let end = program.find(next).expect("the line after the added resource");
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), format!("{}{}", &program[..cut], &program[end..]))?;
    Ok(())
}

/// Puts the program `original` (from [`Workspace::program`]) back.
pub fn restore_program(ws: &Workspace, original: &str) -> anyhow::Result<()> {
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), original)?;
    Ok(())
}
