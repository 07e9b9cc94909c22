//! Ephemeral resources and write-only arguments (issue 13 items 1, 2 and 5), end to end with
//! the real Pulumi CLI, with our provider only (the Go implementation has neither):
//!
//! - a YAML program and a Python program open `random_password` (hashicorp/random 3.9.0) as
//!   the function `random:index/openPassword:openPassword` and pass its result to the
//!   write-only `password_wo` of a fixture resource; they also open the fixture's own
//!   ephemeral `fixture_token` (renewed every 10 ms) and pass it to another write-only
//!   argument. Up, a preview with no changes, and destroy. The fixture records the
//!   write-only values it received at apply and counts its opens, renewals and closes
//!   (`FIXTURE_EPHEMERAL_LOG`): the values reached the provider, yet neither the exported
//!   stack nor any file of the backend holds them, and every open was closed;
//! - the same YAML program with `TFBRIDGE_LOG=trace` and the CLI's `--logtostderr --logflow
//!   -v=11`: no secret, sensitive, write-only or ephemeral value in any log;
//! - bad input: an open that fails, a renewal that fails, a close that fails.
//!
//! Needs `scripts/test-tools.sh providers pulumi languages` and `cargo build -p
//! terraform-provider-fixture`.

use crate::common;

use std::path::{Path, PathBuf};

use common::Implementation;
use common::programs::{Language, ProgramWorkspace};
use common::pulumi::{CommandOutput, Workspace, plugin_lines};
use common::versions;

/// The sensitive provider setting and the config secret the programs use.
const SENSITIVE_SETTING: &str = "sensitive-provider-token-5b1e";
const SENSITIVE_ATTRIBUTE: &str = "sensitive-attribute-value-9c7d";
const CONFIG_SECRET: &str = "config-secret-value-3f2a";

const YAML_PROGRAM: &str = r#"name: e2e-ephemeral
runtime: yaml
config:
  apiKey:
    type: string
    secret: true
resources:
  fixtureProvider:
    type: pulumi:providers:fixture
    properties:
      endpoint: https://fixture.invalid
      maxRetries: 3
      token: sensitive-provider-token-5b1e
  flags:
    type: fixture:index/flags:Flags
    properties:
      name: e2e-flags
      passwordWo: ${password.result}
      passwordWoVersion: 1
      password: sensitive-attribute-value-9c7d
      region: ${apiKey}
    options:
      provider: ${fixtureProvider}
  misbehave:
    type: fixture:index/misbehave:Misbehave
    properties:
      value: plain
      secretWo: ${token.value}
    options:
      provider: ${fixtureProvider}
variables:
  password:
    fn::invoke:
      function: random:index/openPassword:openPassword
      arguments:
        length: 24
        special: false
  token:
    fn::invoke:
      function: fixture:index/openToken:openToken
      arguments:
        renewAfterMs: 10
      options:
        provider: ${fixtureProvider}
outputs:
  flagsId: ${flags.id}
"#;

const PYTHON_PROGRAM: &str = r#""""Ephemeral results passed to write-only arguments."""

import pulumi
import pulumi_fixture as fixture
import pulumi_random as random

api_key = pulumi.Config().require_secret("apiKey")
provider = fixture.Provider(
    "fixtureProvider", endpoint="https://fixture.invalid", max_retries=3, token="sensitive-provider-token-5b1e"
)
invoke = pulumi.InvokeOutputOptions(provider=provider)
password = random.open_password_output(length=24, special=False)
token = fixture.open_token_output(renew_after_ms=10, opts=invoke)

flags = fixture.Flags(
    "flags",
    name="e2e-flags",
    password_wo=password.result,
    password_wo_version=1,
    password="sensitive-attribute-value-9c7d",
    region=api_key,
    opts=pulumi.ResourceOptions(provider=provider),
)
misbehave = fixture.Misbehave(
    "misbehave", value="plain", secret_wo=token.value, opts=pulumi.ResourceOptions(provider=provider)
)
pulumi.export("flagsId", flags.id)
"#;

/// The fixture (protocol 6) with its accounting file, and the file.
fn fixture_with_log(ws: &Workspace) -> anyhow::Result<(PathBuf, PathBuf)> {
    fixture_with_log_and(ws, &[])
}

/// `fixture_with_log` with more of the fixture's switches.
fn fixture_with_log_and(ws: &Workspace, env: &[(&str, &str)]) -> anyhow::Result<(PathBuf, PathBuf)> {
    let log = ws.root().join("fixture-ephemeral.log");
    let log_text = log.to_str().expect("a UTF-8 path").to_owned();
    let mut env = env.to_vec();
    env.push(("FIXTURE_EPHEMERAL_LOG", &log_text));
    let dir = common::fixture::wrapper_dir("6", &env)?;
    Ok((dir.join("terraform-provider-fixture"), log))
}

/// What the fixture's accounting file says.
#[derive(Debug, Default)]
struct Accounting {
    opens: usize,
    renews: usize,
    closes: usize,
    /// `(type.attribute, value)` of every write-only value an apply received.
    write_only: Vec<(String, String)>,
}

fn accounting(log: &Path) -> anyhow::Result<Accounting> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let mut seen = Accounting::default();
    for line in text.lines() {
        let mut words = line.splitn(3, ' ');
        match (words.next(), words.next(), words.next()) {
            (Some("open"), Some(_), None) => seen.opens += 1,
            (Some("renew"), Some(_), None) => seen.renews += 1,
            (Some("close"), Some(_), None) => seen.closes += 1,
            (Some("write-only"), Some(attribute), Some(value)) => {
                seen.write_only.push((attribute.to_owned(), value.to_owned()));
            }
            _ => anyhow::bail!("unexpected line in {}: {line:?}", log.display()),
        }
    }
    Ok(seen)
}

/// Fails naming each place under `dir` that holds one of `values`.
fn assert_nowhere(dir: &Path, values: &[&str], what: &str) {
    let mut leaks = Vec::new();
    for (path, text) in common::files_under(dir) {
        for value in values {
            if text.contains(value) {
                leaks.push(format!("{} holds {value:?}", path.display()));
            }
        }
    }
    assert!(leaks.is_empty(), "{what}:\n{}", leaks.join("\n"));
}

/// The write-only values the fixture received at the last applies of each attribute.
fn received(seen: &Accounting, attribute: &str) -> Vec<String> {
    seen.write_only.iter().filter(|(a, _)| a == attribute).map(|(_, v)| v.clone()).collect()
}

/// Up, a preview with no changes, destroy; everything the must-show asks, checked on the way.
/// `extra` is added to every up, preview and destroy (the verbose-logging flags).
fn must_show(ws: &mut Workspace, log: &Path, extra: &[&str]) -> anyhow::Result<Vec<String>> {
    let run = |ws: &mut Workspace, args: &[&str]| -> anyhow::Result<CommandOutput> {
        let mut full = args.to_vec();
        full.extend_from_slice(extra);
        ws.pulumi_ok(&full)
    };
    ws.pulumi_ok(&["config", "set", "--secret", "apiKey", CONFIG_SECRET, "--non-interactive"])?;
    let up = run(ws, &["up", "--yes", "--skip-preview", "--non-interactive", "--diff"])?;

    let seen = accounting(log)?;
    let passwords = received(&seen, "fixture_flags.password_wo");
    let tokens = received(&seen, "fixture_misbehave.secret_wo");
    assert_eq!(passwords.len(), 1, "one create received the password: {seen:?}\n{up}");
    assert_eq!(tokens.len(), 1, "one create received the token: {seen:?}\n{up}");
    let password = passwords[0].clone();
    assert!(password.len() == 24 && password.chars().all(|c| c.is_ascii_alphanumeric()), "{password:?}");
    assert!(tokens[0].starts_with("token-"), "{tokens:?}");
    assert_eq!(seen.opens, 1, "up opened the fixture token once: {seen:?}");
    assert_eq!(seen.closes, seen.opens, "every open closed by the end of up: {seen:?}");
    assert!(seen.renews >= 1, "the token (renew after 10 ms) was renewed while up ran: {seen:?}\n{up}");

    // The write-only value is nowhere in the stack: not in the recorded inputs, not in the
    // outputs; the resource records the version only.
    let flags = ws.resource_state("flags")?;
    assert!(flags["inputs"].get("passwordWo").is_none(), "inputs: {:#}", flags["inputs"]);
    assert!(flags["outputs"]["passwordWo"].is_null(), "outputs: {:#}", flags["outputs"]);
    assert_eq!(flags["inputs"]["passwordWoVersion"], serde_json::json!(1), "{flags:#}");
    let export = serde_json::to_string(&ws.stack_export()?)?;
    let mut values: Vec<String> = vec![password.clone(), tokens[0].clone()];
    values.extend([SENSITIVE_SETTING, SENSITIVE_ATTRIBUTE, CONFIG_SECRET].map(str::to_owned));
    for value in &values {
        assert!(!export.contains(value.as_str()), "the exported stack holds {value:?}");
    }
    let all: Vec<&str> = values.iter().map(String::as_str).collect();
    assert_nowhere(&ws.root().join("backend"), &all, "the state files hold a secret value");
    // What the user sees (the CLI's verbose logs on stderr are the CLI's own, see below).
    assert!(!up.stdout.contains(&password) && !up.stdout.contains(&tokens[0]), "{up}");

    // A new password opens on every run, but a write-only value never makes a diff: only
    // `passwordWoVersion` would.
    let preview = run(ws, &["preview", "--expect-no-changes", "--non-interactive", "--diff"])?;
    let seen = accounting(log)?;
    assert_eq!(seen.opens, 2, "the preview opened the token too: {seen:?}");
    assert_eq!(seen.closes, seen.opens, "{seen:?}\n{preview}");
    assert_eq!(received(&seen, "fixture_flags.password_wo").len(), 1, "a preview applies nothing: {seen:?}");

    let destroy = run(ws, &["destroy", "--yes", "--skip-preview", "--non-interactive"])?;
    let seen = accounting(log)?;
    assert_eq!(seen.closes, seen.opens, "{seen:?}\n{destroy}");
    assert_nowhere(&ws.root().join("backend"), &all, "after destroy, the state files hold a secret value");
    Ok(values)
}

/// A YAML workspace with random and the fixture added.
fn yaml_workspace(label: &str, program: &str) -> anyhow::Result<(Workspace, PathBuf)> {
    let mut ws = Workspace::new(label, Implementation::Ours)?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), program)?;
    let (fixture, log) = fixture_with_log(&ws)?;
    let random = common::real_provider("random", versions::RANDOM)?;
    ws.package_add(&[random.to_str().expect("a UTF-8 path")])?;
    ws.package_add(&[fixture.to_str().expect("a UTF-8 path")])?;
    ws.stack_init()?;
    Ok((ws, log))
}

#[test]
fn yaml_ephemeral_password_to_a_write_only_argument() -> anyhow::Result<()> {
    let (mut ws, log) = yaml_workspace("ephemeral-yaml", YAML_PROGRAM)?;
    must_show(&mut ws, &log, &[])?;
    Ok(())
}

#[test]
fn python_ephemeral_password_to_a_write_only_argument() -> anyhow::Result<()> {
    let mut pw = ProgramWorkspace::new("ephemeral", Implementation::Ours, Language::Python)?;
    std::fs::write(pw.project_dir().join("__main__.py"), PYTHON_PROGRAM)?;
    let (fixture, log) = fixture_with_log(&pw)?;
    let random = common::real_provider("random", versions::RANDOM)?;
    pw.add_local_binary(&random, &[])?;
    pw.add_local_binary(&fixture, &[])?;
    pw.install()?;
    pw.compile()?;
    pw.stack_init()?;
    must_show(&mut pw, &log, &[])?;
    Ok(())
}

/// Item 5: the whole flow with our trace logging and the CLI's most verbose logging, which
/// passes `-v=11` on to the plugins: none of the values appears in anything our plugin
/// writes, nor in what the CLI shows.
#[test]
fn no_secret_in_any_log_at_trace_level() -> anyhow::Result<()> {
    let (mut ws, log) = yaml_workspace("ephemeral-logs", YAML_PROGRAM)?;
    ws.set_env("TFBRIDGE_LOG", "trace");
    let values = must_show(&mut ws, &log, &["--logtostderr", "--logflow", "-v=11"])?;
    let mut ours = Vec::new();
    for (path, text) in common::files_under(&ws.root().join("logs")) {
        if path.extension().is_some_and(|e| e == "stdout") {
            // What the CLI shows: diagnostics our plugin sent through Engine.Log included.
            for value in &values {
                assert!(!text.contains(value.as_str()), "{} shows {value:?}", path.display());
            }
        } else {
            ours.extend(plugin_lines(&text));
        }
    }
    // Guard against a vacuous pass: our trace lines are there, down to the ephemeral steps.
    assert!(ours.len() > 1000, "only {} lines of our plugin in the logs", ours.len());
    for expected in ["opened an ephemeral resource", "renewed an ephemeral resource", "closed the ephemeral resources"]
    {
        assert!(ours.iter().any(|line| line.contains(expected)), "no {expected:?} line in our logs");
    }
    let leaks: Vec<&String> =
        ours.iter().filter(|line| values.iter().any(|value| line.contains(value.as_str()))).collect();
    assert!(leaks.is_empty(), "our plugin logged a secret value:\n{leaks:#?}");
    Ok(())
}

/// A fixture-only program whose token fails at `fail_on`, renewed every 10 ms.
fn failing_program(fail_on: &str) -> String {
    format!(
        r#"name: e2e-ephemeral-bad
runtime: yaml
resources:
  fixtureProvider:
    type: pulumi:providers:fixture
    properties:
      endpoint: https://fixture.invalid
      maxRetries: 3
  flags:
    type: fixture:index/flags:Flags
    properties:
      name: e2e-bad
      passwordWo: ${{token.value}}
    options:
      provider: ${{fixtureProvider}}
variables:
  token:
    fn::invoke:
      function: fixture:index/openToken:openToken
      arguments:
        failOn: {fail_on}
        renewAfterMs: 10
      options:
        provider: ${{fixtureProvider}}
"#
    )
}

/// A fixture-only YAML workspace running `program`. Every apply takes a second, so that a
/// token renewed every 10 ms is renewed while the deployment runs.
fn fixture_workspace(label: &str, program: &str) -> anyhow::Result<(Workspace, PathBuf)> {
    let mut ws = Workspace::new(label, Implementation::Ours)?;
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), program)?;
    let slow = [("FIXTURE_SLOW_ON", "ApplyResourceChange"), ("FIXTURE_SLOW_MS", "1000")];
    let (fixture, log) = fixture_with_log_and(&ws, &slow)?;
    ws.package_add(&[fixture.to_str().expect("a UTF-8 path")])?;
    ws.stack_init()?;
    Ok((ws, log))
}

const TOKEN_FUNCTION: &str = "fixture:index/openToken:openToken";

#[test]
fn an_open_that_fails_names_the_function_and_the_cause() -> anyhow::Result<()> {
    let (mut ws, log) = fixture_workspace("ephemeral-open-fails", &failing_program("open"))?;
    let up = ws.up_fails()?;
    let text = up.all_text();
    assert!(text.contains(TOKEN_FUNCTION) && text.contains("Open failed"), "{up}");
    let seen = accounting(&log)?;
    assert_eq!((seen.opens, seen.closes), (0, 0), "nothing was opened, so nothing to close: {seen:?}");
    assert!(ws.managed_resources()?.is_empty(), "nothing was created");
    Ok(())
}

#[test]
fn a_renewal_that_fails_is_reported_at_close_naming_the_function() -> anyhow::Result<()> {
    let (mut ws, log) = fixture_workspace("ephemeral-renew-fails", &failing_program("renew"))?;
    let up = ws.pulumi(&["up", "--yes", "--skip-preview", "--non-interactive"])?;
    let seen = accounting(&log)?;
    assert!(seen.renews >= 1, "a renewal was tried: {seen:?}\n{up}");
    assert_eq!(seen.renews, 1, "renewing stops at the first failure: {seen:?}");
    assert_eq!(seen.closes, seen.opens, "still closed: {seen:?}");
    let text = up.all_text();
    assert!(
        text.contains(TOKEN_FUNCTION) && text.contains("RenewEphemeralResource") && text.contains("Renew failed"),
        "{up}"
    );
    // The resource was created all the same: nothing is lost.
    assert_eq!(ws.managed_resources()?.len(), 1, "{up}");
    ws.destroy()?;
    Ok(())
}

#[test]
fn a_close_that_fails_names_the_function_and_the_cause() -> anyhow::Result<()> {
    let (mut ws, log) = fixture_workspace("ephemeral-close-fails", &failing_program("close"))?;
    let up = ws.pulumi(&["up", "--yes", "--skip-preview", "--non-interactive"])?;
    let seen = accounting(&log)?;
    assert_eq!((seen.opens, seen.closes), (1, 1), "closed once, though it failed: {seen:?}\n{up}");
    let text = up.all_text();
    assert!(
        text.contains(TOKEN_FUNCTION) && text.contains("CloseEphemeralResource") && text.contains("Close failed"),
        "{up}"
    );
    assert_eq!(ws.managed_resources()?.len(), 1, "{up}");
    ws.destroy()?;
    Ok(())
}

/// Terraform accepts an ephemeral value only in a write-only argument; `region` is not one.
/// (Recognised for the provider's own ephemeral resources: a value from another provider's
/// process is not recognisable, see docs/schema-mapping.md §9.)
#[test]
fn an_ephemeral_value_for_an_argument_that_is_not_write_only_is_refused() -> anyhow::Result<()> {
    let program =
        failing_program("nothing").replace("      passwordWo: ${token.value}", "      region: ${token.value}");
    let (mut ws, log) = fixture_workspace("ephemeral-not-write-only", &program)?;
    let up = ws.up_fails()?;
    let text = up.all_text();
    assert!(
        text.contains("region") && text.contains(TOKEN_FUNCTION) && text.contains("does not declare region write-only"),
        "{up}"
    );
    let seen = accounting(&log)?;
    assert!(seen.write_only.is_empty(), "nothing applied: {seen:?}");
    assert_eq!((seen.opens, seen.closes), (1, 1), "{seen:?}");
    assert!(ws.managed_resources()?.is_empty(), "nothing was created, so nothing stored the value");
    let export = serde_json::to_string(&ws.stack_export()?)?;
    assert!(!export.contains("token-"), "{export}");
    Ok(())
}
