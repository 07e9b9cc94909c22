//! An isolated, offline Pulumi workspace for the end-to-end tests: the real Pulumi CLI and
//! YAML language host (built by `scripts/test-tools.sh pulumi`), a throw-away `PULUMI_HOME`
//! and `HOME`, a file backend, passphrase secrets, no update checks and no plugin
//! acquisition. The `terraform-provider` plugin is either our binary or the Go
//! implementation (`Implementation`), so the same scenario runs against both.
//!
//! Main types: `Implementation` (which plugin serves `terraform-provider`), `Cli` (which
//! Pulumi CLI runs: the pinned one, or the newest with `TFBRIDGE_TEST_PULUMI_VERSION`),
//! `Workspace` (one project, one stack, one `PULUMI_HOME`) and `CommandOutput` (what one CLI
//! run printed, with everything needed for a clear assertion message).
//!
//! Every CLI run has a timeout and its own log files. When it exits or times out, its process
//! group and every process carrying the workspace's marker (`TFBRIDGE_E2E_WORKSPACE`, which
//! plugins, language hosts and Terraform providers inherit) are killed, so none outlives it.
//!
//! Architecture invariant: this helper knows the Pulumi CLI's command line and environment
//! only; it knows nothing about the programs it runs or the Terraform providers they use.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use super::Implementation;

mod running;

pub use running::Running;

/// The environment variable holding a workspace's root in every process it starts.
const WORKSPACE_MARKER: &str = "TFBRIDGE_E2E_WORKSPACE";

const PULUMI_VERSION: &str = super::versions::PULUMI;
const PULUMI_YAML_VERSION: &str = super::versions::PULUMI_YAML;

/// The environment variable that picks the Pulumi CLI every workspace runs: a version
/// scripts/peers.env pins, `PULUMI_VER` (the default) or `PULUMI_NEWEST_VER`. scripts/test.sh
/// runs part of the peer tier a second time with the newest.
pub const CLI_VERSION_VAR: &str = "TFBRIDGE_TEST_PULUMI_VERSION";

/// A Pulumi CLI built by `scripts/test-tools.sh pulumi`. Both run `PULUMI_VER`'s language
/// hosts and YAML host; the newest one's `bin/` links to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cli {
    pub version: &'static str,
}

impl Cli {
    pub const PINNED: Cli = Cli { version: PULUMI_VERSION };
    pub const NEWEST: Cli = Cli { version: super::versions::PULUMI_NEWEST };

    /// The CLI `TFBRIDGE_TEST_PULUMI_VERSION` names, `PINNED` when it is unset or empty; an
    /// error for a version peers.env does not pin.
    pub fn from_env() -> anyhow::Result<Cli> {
        let wanted = std::env::var(CLI_VERSION_VAR).unwrap_or_default();
        Cli::named(&wanted)
    }

    /// The pinned CLI with this version ("" is the default, `PINNED`).
    pub fn named(version: &str) -> anyhow::Result<Cli> {
        match version {
            "" => Ok(Cli::PINNED),
            v if v == Cli::PINNED.version => Ok(Cli::PINNED),
            v if v == Cli::NEWEST.version => Ok(Cli::NEWEST),
            other => anyhow::bail!(
                "{CLI_VERSION_VAR}={other}: scripts/peers.env pins the Pulumi CLIs {} and {}",
                Cli::PINNED.version,
                Cli::NEWEST.version
            ),
        }
    }

    /// Whether this CLI's engine is at least `major.minor.patch` (both pinned versions are
    /// plain `3.N.P`).
    pub fn at_least(self, wanted: (u64, u64, u64)) -> bool {
        let mut parts = self.version.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
        let got = (parts.next().unwrap_or(0), parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        got >= wanted
    }

    /// The directory with this CLI's `pulumi` and, beside it, the Python, Node.js and Go
    /// language hosts (when `scripts/test-tools.sh languages` built them).
    pub fn bin_dir(self) -> anyhow::Result<PathBuf> {
        let bin = super::tools_dir().join("pulumi").join(self.version).join("bin");
        anyhow::ensure!(
            bin.join("pulumi").is_file(),
            "the Pulumi CLI {} is missing at {}: run scripts/test-tools.sh pulumi",
            self.version,
            bin.join("pulumi").display()
        );
        Ok(bin)
    }

    /// The `pulumi` (PyPI) version Python programs use with this CLI: with the newest, one that
    /// has what its engine offers programs (`runtime.exists_resource`, 3.269 and later).
    pub fn python_sdk(self) -> &'static str {
        if self == Cli::NEWEST { super::versions::PULUMI_NEWEST_PYTHON_SDK } else { PULUMI_VERSION }
    }
}

/// The default time one CLI command may take before it is killed. Generous: two shared cores
/// and several engineers building at once make a one-second `pulumi up` take much longer.
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(240);

/// The Pulumi CLI and the YAML language host, or an error naming the script that builds them.
fn pulumi_tools(cli: Cli) -> anyhow::Result<(PathBuf, PathBuf)> {
    let cli_dir = cli.bin_dir()?;
    let yaml_dir = super::tools_dir().join("pulumi-yaml").join(PULUMI_YAML_VERSION).join("bin");
    let yaml = yaml_dir.join("pulumi-language-yaml");
    anyhow::ensure!(
        yaml.is_file(),
        "pulumi-language-yaml is missing at {}: run scripts/test-tools.sh pulumi",
        yaml.display()
    );
    Ok((cli_dir, yaml_dir))
}

/// The directory of this checkout's examples (`examples/pulumi-yaml/<name>`).
pub fn example_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pulumi-yaml").join(name)
}

/// What one CLI run printed.
#[derive(Debug)]
pub struct CommandOutput {
    pub command: String,
    /// The exit code; `None` when the process was killed (by the timeout or a signal).
    pub code: Option<i32>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
}

impl CommandOutput {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// stdout and stderr together, for searching error text wherever the CLI put it.
    pub fn all_text(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

impl std::fmt::Display for CommandOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let outcome = if self.timed_out { "timed out".to_owned() } else { format!("exit code {:?}", self.code) };
        write!(f, "`{}`: {outcome}\n--- stdout ---\n{}\n--- stderr ---\n{}", self.command, self.stdout, self.stderr)
    }
}

/// One Pulumi project with one stack, in its own temp directory.
pub struct Workspace {
    pub implementation: Implementation,
    /// The Pulumi CLI every command of this workspace runs.
    pub cli: Cli,
    root: PathBuf,
    project: PathBuf,
    env: Vec<(String, String)>,
    commands_run: usize,
}

impl Workspace {
    /// A fresh workspace with the implementation's plugin installed as `terraform-provider`,
    /// running the CLI `TFBRIDGE_TEST_PULUMI_VERSION` picks ([`Cli::from_env`]).
    pub fn new(label: &str, implementation: Implementation) -> anyhow::Result<Workspace> {
        Workspace::with_cli(label, implementation, Cli::from_env()?)
    }

    /// A fresh workspace running `cli`, for a test about one CLI version's engine.
    pub fn with_cli(label: &str, implementation: Implementation, cli: Cli) -> anyhow::Result<Workspace> {
        let (cli_dir, yaml_dir) = pulumi_tools(cli)?;
        let plugin = implementation.plugin_binary()?;
        let root = super::scratch_dir(&format!("e2e-{label}-{}", implementation.label()));
        let project = root.join("project");
        for dir in ["pulumi-home", "home", "backend", "logs", "project"] {
            std::fs::create_dir_all(root.join(dir))?;
        }
        // An empty CLI configuration, so the machine's own ~/.terraformrc never leaks in.
        let cli_config = root.join("terraformrc");
        std::fs::write(&cli_config, "")?;
        // The CLI's own directory also holds the other language hosts, when built.
        let path = format!("{}:/usr/local/bin:/usr/bin:/bin", cli_dir.display());
        let mut env: Vec<(String, String)> = vec![
            ("PATH".into(), path),
            ("HOME".into(), root.join("home").display().to_string()),
            ("PULUMI_HOME".into(), root.join("pulumi-home").display().to_string()),
            ("PULUMI_BACKEND_URL".into(), format!("file://{}", root.join("backend").display())),
            ("PULUMI_CONFIG_PASSPHRASE".into(), "e2e-test".into()),
            ("PULUMI_SKIP_UPDATE_CHECK".into(), "true".into()),
            ("PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION".into(), "true".into()),
            ("PULUMI_DISABLE_REGISTRY_RESOLVE".into(), "true".into()),
            ("PULUMI_SKIP_CONFIRMATIONS".into(), "true".into()),
            ("TF_CLI_CONFIG_FILE".into(), cli_config.display().to_string()),
            ("TMPDIR".into(), std::env::temp_dir().display().to_string()),
        ];
        // The provider's own log filter passes through, for debugging a failing run.
        if let Ok(filter) = std::env::var("TFBRIDGE_LOG") {
            env.push(("TFBRIDGE_LOG".into(), filter));
        }
        // Every process of this workspace carries its root, so that the ones the CLI leaves
        // behind can be found (see `kill_leftovers`).
        env.push((WORKSPACE_MARKER.into(), root.display().to_string()));
        // scripts/test.sh marks the processes of its run with this, to find any left behind.
        if let Ok(run) = std::env::var("TFBRIDGE_TEST_RUN") {
            env.push(("TFBRIDGE_TEST_RUN".into(), run));
        }
        install_plugin(&root, implementation, &plugin)?;
        // The YAML host as an installed plugin rather than on PATH, which the CLI warns about
        // in every run.
        let yaml_plugin_dir = root.join(format!("pulumi-home/plugins/language-yaml-v{PULUMI_YAML_VERSION}"));
        std::fs::create_dir_all(&yaml_plugin_dir)?;
        std::os::unix::fs::symlink(
            yaml_dir.join("pulumi-language-yaml"),
            yaml_plugin_dir.join("pulumi-language-yaml"),
        )?;
        Ok(Workspace { implementation, cli, root, project, env, commands_run: 0 })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Moves the project to the other implementation, as a user replacing one with the other
    /// would: installs its plugin and rewrites the base plugin version that `package add`
    /// wrote into Pulumi.yaml and the YAML package lock files. The stack keeps its state.
    pub fn switch_to(&mut self, implementation: Implementation) -> anyhow::Result<()> {
        let from = format!("version: {}", self.implementation.plugin_version());
        let to = format!("version: {}", implementation.plugin_version());
        install_plugin(&self.root, implementation, &implementation.plugin_binary()?)?;
        let mut files = vec![self.project.join("Pulumi.yaml")];
        let sdks = self.project.join("sdks");
        if sdks.is_dir() {
            for package in std::fs::read_dir(&sdks)? {
                for file in std::fs::read_dir(package?.path())? {
                    files.push(file?.path());
                }
            }
        }
        let mut rewritten = 0;
        for file in files {
            let text = std::fs::read_to_string(&file)?;
            // The base plugin's version is the only line with exactly this text: the
            // parameterized package's own version differs from both implementations'.
            if text.contains(&from) {
                std::fs::write(&file, text.replace(&from, &to))?;
                rewritten += 1;
            }
        }
        anyhow::ensure!(rewritten > 0, "no project file names the plugin version ({from})");
        self.implementation = implementation;
        Ok(())
    }

    /// Installs the other implementation's plugin and makes later `package add` runs name
    /// its version, leaving every project file as it is: for projects whose SDKs are
    /// regenerated by running `package add` again, as a user switching would.
    pub fn use_implementation(&mut self, implementation: Implementation) -> anyhow::Result<()> {
        install_plugin(&self.root, implementation, &implementation.plugin_binary()?)?;
        self.implementation = implementation;
        Ok(())
    }

    /// Serves the plugin version this workspace's SDKs name with `other`'s binary instead: the
    /// one installed `terraform-provider` plugin becomes `other`'s executable under this
    /// workspace's implementation's version. SDKs and state stay as they are.
    pub fn serve_with(&mut self, other: Implementation) -> anyhow::Result<PathBuf> {
        let plugins = self.root.join("pulumi-home/plugins");
        for entry in std::fs::read_dir(&plugins)? {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with("resource-terraform-provider-") {
                std::fs::remove_dir_all(entry.path())?;
            }
        }
        let binary = other.plugin_binary()?;
        install_plugin(&self.root, self.implementation, &binary)?;
        Ok(binary)
    }

    pub fn project_dir(&self) -> &Path {
        &self.project
    }

    /// Sets (or replaces) an environment variable for every later CLI run.
    pub fn set_env(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_owned(), value.to_owned()));
    }

    /// The value an environment variable has in later CLI runs, if the workspace sets it.
    pub fn env_var(&self, key: &str) -> Option<&str> {
        self.env.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Copies the files of `examples/pulumi-yaml/<name>` into the project directory.
    pub fn copy_example(&self, name: &str) -> anyhow::Result<()> {
        let source = example_dir(name);
        for entry in std::fs::read_dir(&source).with_context(|| format!("read the example {}", source.display()))? {
            let entry = entry?;
            if entry.file_type()?.is_file() {
                std::fs::copy(entry.path(), self.project.join(entry.file_name()))?;
            }
        }
        Ok(())
    }

    /// The project's Pulumi.yaml.
    pub fn program(&self) -> anyhow::Result<String> {
        Ok(std::fs::read_to_string(self.project.join("Pulumi.yaml"))?)
    }

    /// Rewrites the project's Pulumi.yaml; `from` must occur in it, so a stale edit fails loudly.
    pub fn edit_program(&self, from: &str, to: &str) -> anyhow::Result<()> {
        let text = self.program()?;
        anyhow::ensure!(text.contains(from), "Pulumi.yaml does not contain {from:?}:\n{text}");
        std::fs::write(self.project.join("Pulumi.yaml"), text.replacen(from, to, 1))?;
        Ok(())
    }

    /// Runs the CLI in the project directory with the default timeout.
    pub fn pulumi(&mut self, args: &[&str]) -> anyhow::Result<CommandOutput> {
        self.pulumi_with_timeout(args, COMMAND_TIMEOUT)
    }

    /// Runs the CLI and fails with its full output unless it exits 0.
    pub fn pulumi_ok(&mut self, args: &[&str]) -> anyhow::Result<CommandOutput> {
        let output = self.pulumi(args)?;
        anyhow::ensure!(output.success(), "{output}\n(workspace {})", self.root.display());
        Ok(output)
    }

    /// Runs the CLI and fails unless it exits non-zero (and in time).
    pub fn pulumi_fails(&mut self, args: &[&str]) -> anyhow::Result<CommandOutput> {
        let output = self.pulumi(args)?;
        anyhow::ensure!(!output.success() && !output.timed_out, "expected a failure, got {output}");
        Ok(output)
    }

    pub fn pulumi_with_timeout(&mut self, args: &[&str], timeout: Duration) -> anyhow::Result<CommandOutput> {
        // The global flag goes first: anything after a `--` in `args` belongs to the command.
        let mut full = vec!["--color", "never"];
        full.extend_from_slice(args);
        let name = args.first().copied().unwrap_or("pulumi");
        let mut output = self.run_logged("pulumi", &full, timeout, name)?;
        output.command = format!("pulumi {}", args.join(" "));
        Ok(output)
    }

    /// Runs any program (found on the workspace's `PATH`) in the project directory with the
    /// workspace's environment, killing it and its children after `timeout`.
    pub fn run_in_project(&mut self, program: &str, args: &[&str], timeout: Duration) -> anyhow::Result<CommandOutput> {
        let name = Path::new(program).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        self.run_logged(program, args, timeout, &name)
    }

    /// `run_in_project`, logging to `logs/<n>-<name>.{stdout,stderr}`.
    fn run_logged(
        &mut self,
        program: &str,
        args: &[&str],
        timeout: Duration,
        name: &str,
    ) -> anyhow::Result<CommandOutput> {
        self.spawn_logged(program, args, name)?.wait(timeout)
    }

    /// Starts the CLI in the project directory and returns at once, for a test that acts on
    /// it mid-run (a signal); [`Running::wait`] ends it as [`Workspace::pulumi`] does.
    pub fn spawn_pulumi(&mut self, args: &[&str]) -> anyhow::Result<Running<'_>> {
        let mut full = vec!["--color", "never"];
        full.extend_from_slice(args);
        let name = args.first().copied().unwrap_or("pulumi");
        let mut running = self.spawn_logged("pulumi", &full, name)?;
        running.command = format!("pulumi {}", args.join(" "));
        Ok(running)
    }

    fn spawn_logged(&mut self, program: &str, args: &[&str], name: &str) -> anyhow::Result<Running<'_>> {
        use std::os::unix::process::CommandExt as _;
        self.commands_run += 1;
        let log_stem = self.root.join("logs").join(format!("{:02}-{name}", self.commands_run));
        let stdout_path = log_stem.with_extension("stdout");
        let stderr_path = log_stem.with_extension("stderr");
        let command_line = format!("{program} {}", args.join(" "));
        let path = self.env.iter().find(|(k, _)| k == "PATH").map(|(_, v)| v.clone()).unwrap_or_default();
        let executable = if program.contains('/') {
            PathBuf::from(program)
        } else {
            std::env::split_paths(&path)
                .map(|dir| dir.join(program))
                .find(|candidate| candidate.is_file())
                .with_context(|| format!("{program} is not on the workspace's PATH {path}"))?
        };
        // Files rather than pipes: plugins the CLI starts inherit these descriptors, and a
        // pipe reader would wait for the slowest of them.
        let child = std::process::Command::new(executable)
            .args(args)
            .current_dir(&self.project)
            .env_clear()
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::null())
            .stdout(std::fs::File::create(&stdout_path)?)
            .stderr(std::fs::File::create(&stderr_path)?)
            // Its own process group, so a timeout can kill the plugins too.
            .process_group(0)
            .spawn()
            .with_context(|| format!("start {command_line}"))?;
        Ok(Running { workspace: self, child, command: command_line, stdout_path, stderr_path, started: Instant::now() })
    }

    /// `pulumi package add terraform-provider@<version> <args>...` for the installed plugin.
    pub fn package_add(&mut self, args: &[&str]) -> anyhow::Result<CommandOutput> {
        let source = format!("terraform-provider@{}", self.implementation.plugin_version());
        let mut full = vec!["package", "add", &source];
        full.extend_from_slice(args);
        self.pulumi_ok(&full)
    }

    /// `pulumi stack init dev` with passphrase secrets.
    pub fn stack_init(&mut self) -> anyhow::Result<()> {
        self.pulumi_ok(&["stack", "init", "dev", "--secrets-provider", "passphrase", "--non-interactive"])?;
        Ok(())
    }

    pub fn config_set(&mut self, key: &str, value: &str) -> anyhow::Result<()> {
        self.pulumi_ok(&["config", "set", key, value, "--non-interactive"])?;
        Ok(())
    }

    pub fn up(&mut self) -> anyhow::Result<CommandOutput> {
        self.pulumi_ok(&["up", "--yes", "--skip-preview", "--non-interactive", "--diff"])
    }

    /// `pulumi up` expected to fail; the output carries the CLI's error text.
    pub fn up_fails(&mut self) -> anyhow::Result<CommandOutput> {
        self.pulumi_fails(&["up", "--yes", "--skip-preview", "--non-interactive"])
    }

    pub fn preview(&mut self) -> anyhow::Result<CommandOutput> {
        self.pulumi_ok(&["preview", "--non-interactive", "--diff"])
    }

    /// `pulumi preview --expect-no-changes`: fails if the provider reports any diff.
    pub fn preview_expect_no_changes(&mut self) -> anyhow::Result<CommandOutput> {
        self.pulumi_ok(&["preview", "--expect-no-changes", "--non-interactive", "--diff"])
    }

    pub fn refresh(&mut self) -> anyhow::Result<CommandOutput> {
        self.pulumi_ok(&["refresh", "--yes", "--skip-preview", "--non-interactive", "--diff"])
    }

    /// Imports `id` as resource `name` of type `token`, unprotected, without writing code.
    pub fn import(&mut self, token: &str, name: &str, id: &str) -> anyhow::Result<CommandOutput> {
        self.pulumi_ok(&[
            "import",
            token,
            name,
            id,
            "--yes",
            "--skip-preview",
            "--protect=false",
            "--generate-code=false",
            "--non-interactive",
        ])
    }

    pub fn destroy(&mut self) -> anyhow::Result<CommandOutput> {
        self.pulumi_ok(&["destroy", "--yes", "--skip-preview", "--non-interactive"])
    }

    /// `pulumi stack output --json`, with secrets shown in the clear or as `[secret]`.
    pub fn stack_outputs(&mut self, show_secrets: bool) -> anyhow::Result<serde_json::Value> {
        let mut args = vec!["stack", "output", "--json"];
        if show_secrets {
            args.push("--show-secrets");
        }
        let output = self.pulumi_ok(&args)?;
        serde_json::from_str(&output.stdout).with_context(|| format!("stack outputs are not JSON: {output}"))
    }

    /// `pulumi stack export`: the deployment (state) as JSON.
    pub fn stack_export(&mut self) -> anyhow::Result<serde_json::Value> {
        let output = self.pulumi_ok(&["stack", "export"])?;
        serde_json::from_str(&output.stdout).with_context(|| format!("the export is not JSON: {output}"))
    }

    /// The resources in the state, without the stack and provider resources.
    pub fn managed_resources(&mut self) -> anyhow::Result<Vec<serde_json::Value>> {
        let state = self.stack_export()?;
        let resources = state["deployment"]["resources"].as_array().cloned().unwrap_or_default();
        Ok(resources
            .into_iter()
            .filter(|r| {
                let kind = r["type"].as_str().unwrap_or_default();
                kind != "pulumi:pulumi:Stack" && !kind.starts_with("pulumi:providers:")
            })
            .collect())
    }

    /// The URN of the provider resource of `package` named `name` in the stack's state.
    pub fn provider_urn(&mut self, package: &str, name: &str) -> anyhow::Result<String> {
        let state = self.stack_export()?;
        let suffix = format!("::pulumi:providers:{package}::{name}");
        state["deployment"]["resources"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["urn"].as_str())
            .find(|urn| urn.ends_with(&suffix))
            .map(str::to_owned)
            .ok_or_else(|| anyhow::anyhow!("no provider resource {name} of {package} in the state"))
    }

    /// The state entry of the resource named `name`, or an error listing what is there.
    pub fn resource_state(&mut self, name: &str) -> anyhow::Result<serde_json::Value> {
        let resources = self.managed_resources()?;
        let suffix = format!("::{name}");
        resources.iter().find(|r| r["urn"].as_str().is_some_and(|urn| urn.ends_with(&suffix))).cloned().with_context(
            || {
                let urns: Vec<_> = resources.iter().map(|r| r["urn"].to_string()).collect();
                format!("no resource named {name} in the state; it has {urns:?}")
            },
        )
    }
}

/// What `pulumi plugin install resource terraform-provider <v> --file <binary>` makes, with a
/// symlink instead of a copy: a copy of the debug binary per workspace costs about 80 MB of
/// disk, and the disk is shared.
fn install_plugin(root: &Path, implementation: Implementation, plugin: &Path) -> anyhow::Result<()> {
    let plugin_dir =
        root.join(format!("pulumi-home/plugins/resource-terraform-provider-v{}", implementation.plugin_version()));
    std::fs::create_dir_all(&plugin_dir)?;
    let link = plugin_dir.join("pulumi-resource-terraform-provider");
    if link.symlink_metadata().is_err() {
        std::os::unix::fs::symlink(plugin, link)?;
    }
    Ok(())
}

impl Workspace {
    /// Kills every process the CLI left behind: plugins and language hosts run in process
    /// groups of their own, a language host can outlive a failed run, and the Go
    /// implementation does not stop the Terraform providers it started when the CLI kills
    /// it. They all carry this workspace's marker in their environment.
    fn kill_leftovers(&self) {
        super::kill_processes_with_env(WORKSPACE_MARKER, &self.root.display().to_string());
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        self.kill_leftovers();
        // Keep the workspace (state, logs) for a look after a failure when asked to.
        if std::env::var_os("TFBRIDGE_KEEP_E2E").is_none() {
            let _ = std::fs::remove_dir_all(&self.root);
        }
    }
}

/// The lines of our plugin (and the Terraform providers it runs, whose output it logs) in
/// the CLI's verbose JSON log: the CLI relays a plugin's stderr line by line as a message,
/// once plainly and once as `eventSink::<Level>(<{%reset%}>...<{%reset%}>)`; ours start with
/// our tracing format's timestamp and level. The CLI's own lines are not ours: at `-v=9` and
/// above it logs every property value it marshals, secrets included, in the clear.
pub fn plugin_lines(log: &str) -> Vec<String> {
    let mut lines = Vec::new();
    for line in log.lines() {
        let Ok(entry) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        let Some(message) = entry["msg"].as_str() else { continue };
        let message = match message.strip_prefix("eventSink::") {
            Some(rest) => rest.split_once("(<{%reset%}>").map_or("", |(_, inner)| inner),
            None => message,
        };
        let mut words = message.split_whitespace();
        let stamp = words.next().unwrap_or_default();
        let level = words.next().unwrap_or_default();
        let is_timestamp =
            stamp.len() > 20 && stamp.as_bytes()[4] == b'-' && stamp.contains('T') && stamp.ends_with('Z');
        if is_timestamp && ["TRACE", "DEBUG", "INFO", "WARN", "ERROR"].contains(&level) {
            lines.push(message.to_owned());
        }
    }
    lines
}

/// The resources of a program `pulumi import --out` wrote (YAML: `resources:` and what follows),
/// as lines to add to a program's `resources:`.
pub fn generated_resources(file: &std::path::Path) -> anyhow::Result<String> {
    let code = std::fs::read_to_string(file)?;
    let start = code.find("resources:\n").ok_or_else(|| anyhow::anyhow!("no resources in {code}"))?;
    let body = &code[start + "resources:\n".len()..];
    let lines: Vec<&str> = body.lines().take_while(|line| line.is_empty() || line.starts_with(' ')).collect();
    Ok(lines.iter().filter(|line| !line.is_empty()).map(|line| format!("{line}\n")).collect())
}
