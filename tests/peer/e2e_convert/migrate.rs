//! `pulumi import --from terraform`: a Terraform state adopted onto `terraform-provider`
//! packages with no diff, the Go implementation stopping at the import, and bad states.

use super::*;

/// The real Terraform CLI (`scripts/test-tools.sh terraform`).
fn terraform_cli() -> anyhow::Result<PathBuf> {
    let path = common::tools_dir().join("terraform").join(versions::TERRAFORM).join("terraform");
    anyhow::ensure!(
        path.is_file(),
        "the Terraform CLI is missing at {}: run scripts/test-tools.sh terraform",
        path.display()
    );
    Ok(path)
}

/// The HCL project of the migration: the providers that support import (not local).
fn migration_hcl(host: &str, data: &Path) -> String {
    let full = hcl(host, data);
    let without_local = full.replace(
        &format!(
            "resource \"local_file\" \"note\" {{\n  filename = \"{}/note.txt\"\n  content  = \"converted\"\n}}\n\n",
            data.display()
        ),
        "",
    );
    without_local.replace(
        &format!(
            "    local = {{\n      source  = \"{host}/hashicorp/local\"\n      version = \"{}\"\n    }}\n",
            versions::LOCAL
        ),
        "",
    )
}

/// Files' identities under `dir` (path → inode and mtime): an object the migration must not
/// rewrite keeps both.
fn identities(dir: &Path) -> anyhow::Result<std::collections::BTreeMap<PathBuf, (u64, i64, i64)>> {
    use std::os::unix::fs::MetadataExt as _;
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let meta = entry.metadata()?;
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                out.insert(entry.path(), (meta.ino(), meta.mtime(), meta.mtime_nsec()));
            }
        }
    }
    Ok(out)
}

/// A Terraform project applied by the real Terraform CLI, converted to a YAML program with a
/// stack, nothing imported yet.
struct Migration {
    ws: Workspace,
    /// Serves the providers until the test ends.
    registry: Registry,
    data: PathBuf,
    state_file: PathBuf,
    /// The identities of the objects Terraform made.
    before: std::collections::BTreeMap<PathBuf, (u64, i64, i64)>,
}

fn migration(implementation: Implementation) -> anyhow::Result<Migration> {
    let terraform = terraform_cli()?;
    let mut ws = Workspace::new("migrate", implementation)?;
    let registry = Registry::start(ws.root())?;
    publish_providers(&registry)?;
    install_converter(&ws)?;
    let ca_file = registry.ca_file.to_str().context("a UTF-8 path")?.to_owned();
    ws.set_env("SSL_CERT_FILE", &ca_file);
    let data = ws.root().join("data");
    std::fs::create_dir_all(&data)?;

    // Terraform's side, in its own directory and environment.
    let project = ws.project_dir().to_owned();
    let tf_dir = ws.root().join("terraform");
    std::fs::create_dir_all(&tf_dir)?;
    std::fs::write(tf_dir.join("main.tf"), migration_hcl(&registry.host(), &data))?;
    let cli_config = ws.root().join("terraformrc");
    for args in [&["init", "-input=false", "-no-color"][..], &["apply", "-auto-approve", "-input=false", "-no-color"]] {
        let output = std::process::Command::new(&terraform)
            .args(args)
            .current_dir(&tf_dir)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", ws.root().join("home"))
            .env("SSL_CERT_FILE", &ca_file)
            .env("TF_CLI_CONFIG_FILE", &cli_config)
            .env("CHECKPOINT_DISABLE", "1")
            .output()?;
        anyhow::ensure!(
            output.status.success(),
            "terraform {args:?}:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let state_file = tf_dir.join("terraform.tfstate");
    let before = identities(&data)?;
    anyhow::ensure!(before.len() >= 3, "the providers wrote their objects: {before:?}");

    // Pulumi's side: convert the project and make a stack.
    let converted = ws.root().join("converted");
    let tf_dir_arg = tf_dir.to_str().context("a UTF-8 path")?.to_owned();
    ws.pulumi_ok(&[
        "--cwd",
        &tf_dir_arg,
        "convert",
        "--from",
        "terraform",
        "--language",
        "yaml",
        "--out",
        converted.to_str().context("a UTF-8 path")?,
        "--non-interactive",
    ])?;
    std::fs::remove_dir_all(&project)?;
    std::fs::rename(&converted, &project)?;
    ws.stack_init()?;
    Ok(Migration { ws, registry, data, state_file, before })
}

/// `pulumi import --from terraform <state>`, unprotected, without writing code.
fn import_from_terraform(ws: &mut Workspace, state_file: &Path) -> anyhow::Result<common::pulumi::CommandOutput> {
    let state_arg = state_file.to_str().context("a UTF-8 path")?.to_owned();
    ws.pulumi(&[
        "import",
        "--from",
        "terraform",
        &state_arg,
        "--yes",
        "--protect=false",
        "--generate-code=false",
        "--non-interactive",
    ])
}

/// The whole path a Terraform user walks: `terraform apply` with the real Terraform CLI;
/// `pulumi convert` writes the program; `pulumi import --from terraform` adopts every
/// resource from terraform.tfstate; the preview has no changes and `up` touches no object;
/// a later change to the program updates in place.
#[test]
fn terraform_state_migrates_with_no_diff() -> anyhow::Result<()> {
    let Migration { mut ws, registry: _registry, data, state_file, before } = migration(Implementation::Ours)?;
    let project = ws.project_dir().to_owned();
    let tf_state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&state_file)?)?;
    let import = import_from_terraform(&mut ws, &state_file)?;
    anyhow::ensure!(import.success(), "{import}");
    let said = import.all_text();
    anyhow::ensure!(!said.contains("Failed to get provider info"), "every token came from a mapping: {import}");
    let imported = ws.managed_resources()?;
    let types: Vec<&str> = imported.iter().filter_map(|r| r["type"].as_str()).collect();
    anyhow::ensure!(
        types.contains(&"tfcoremock:index/simpleResource:SimpleResource")
            && types.contains(&"sdkv2test:index/thing:Thing")
            && types.contains(&"framework6test:index/widget:Widget"),
        "every resource adopted with our tokens: {types:?}\n{import}"
    );
    // The sensitive value is a secret in the state, never in the clear.
    let export = serde_json::to_string(&ws.stack_export()?)?;
    anyhow::ensure!(!export.contains("s3cret-value"), "the sensitive value is stored as a secret");
    let resources = tf_state["resources"].as_array().map(Vec::len).unwrap_or_default();
    anyhow::ensure!(imported.len() == resources, "{} resources imported, Terraform had {resources}", imported.len());

    ws.preview_expect_no_changes()?;
    let up = ws.up()?;
    anyhow::ensure!(!up.stdout.contains("updated") && !up.stdout.contains("created"), "{up}");
    anyhow::ensure!(identities(&data)? == before, "no object was rewritten by the migration");

    // A later change in the program is an update in place.
    let program = std::fs::read_to_string(project.join("Main.yaml"))?;
    anyhow::ensure!(program.contains("tier: gold"), "{program}");
    std::fs::write(project.join("Main.yaml"), program.replacen("tier: gold", "tier: silver", 1))?;
    let up = ws.up()?;
    anyhow::ensure!(up.stdout.contains("updated") && !up.stdout.contains("replaced"), "{up}");

    // The old Terraform project still describes the objects: its plan would undo the change.
    let plan = terraform_in(&ws, &["plan", "-detailed-exitcode", "-input=false", "-no-color"])?;
    anyhow::ensure!(plan.status.code() == Some(2), "terraform plan sees the change: {plan:?}");
    let plan_text = String::from_utf8_lossy(&plan.stdout);
    anyhow::ensure!(plan_text.contains(r#""silver" -> "gold""#) && plan_text.contains("1 to change"), "{plan_text}");
    ws.destroy()?;
    Ok(())
}

/// Runs the Terraform CLI in the workspace's Terraform project, as [`migration`] does.
fn terraform_in(ws: &Workspace, args: &[&str]) -> anyhow::Result<std::process::Output> {
    Ok(std::process::Command::new(terraform_cli()?)
        .args(args)
        .current_dir(ws.root().join("terraform"))
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", ws.root().join("home"))
        .env("SSL_CERT_FILE", ws.env_var("SSL_CERT_FILE").unwrap_or_default())
        .env("TF_CLI_CONFIG_FILE", ws.root().join("terraformrc"))
        .env("CHECKPOINT_DISABLE", "1")
        .output()?)
}

/// The same migration with the Go implementation, to say where it stops: `pulumi convert`
/// works, but unparameterized it maps no provider for `pulumi import --from terraform`, so the
/// converter guesses tokens that no package has, and nothing is imported.
#[test]
fn go_implementation_stops_at_the_import() -> anyhow::Result<()> {
    let Migration { mut ws, registry: _registry, state_file, .. } = migration(Implementation::Go)?;
    let import = import_from_terraform(&mut ws, &state_file)?;
    let text = import.all_text();
    anyhow::ensure!(!import.success(), "{import}");
    for needle in [
        "could not find mapping information for provider tfcoremock",
        "unknown resource token: tfcoremock:index:SimpleResource",
    ] {
        anyhow::ensure!(text.contains(needle), "the Go implementation's import does not say {needle:?}:\n{import}");
    }
    anyhow::ensure!(ws.managed_resources()?.is_empty(), "nothing imported");
    Ok(())
}

/// A copy of the state file with `edit` applied, beside it.
fn edited_state(state_file: &Path, name: &str, edit: impl FnOnce(&mut serde_json::Value)) -> anyhow::Result<PathBuf> {
    let mut state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(state_file)?)?;
    edit(&mut state);
    let path = state_file.with_file_name(name);
    std::fs::write(&path, serde_json::to_string_pretty(&state)?)?;
    Ok(path)
}

/// Bad input to `pulumi import --from terraform`: each case fails with a message naming the
/// cause, and nothing is imported; the good state then imports whole.
///
/// A state from a newer Terraform in the same format (version 4, any 1.x) imports: the converter
/// reads only the format, as Terraform 1.x itself keeps states readable across 1.x releases.
#[test]
fn bad_terraform_state_fails_clearly_and_imports_nothing() -> anyhow::Result<()> {
    let Migration { mut ws, registry: _registry, state_file, .. } = migration(Implementation::Ours)?;
    let unknown_provider = edited_state(&state_file, "unknown-provider.tfstate", |state| {
        let resources = state["resources"].as_array_mut().expect("resources");
        let mut extra = resources[0].clone();
        extra["type"] = json!("acme_gadget");
        extra["name"] = json!("gadget");
        extra["provider"] = json!("provider[\"registry.opentofu.org/acme/acme\"]");
        resources.push(extra);
    })?;
    let missing_object = edited_state(&state_file, "missing-object.tfstate", |state| {
        for resource in state["resources"].as_array_mut().expect("resources") {
            if resource["type"] == json!("sdkv2test_thing") {
                resource["instances"][0]["attributes"]["id"] = json!("no-such-thing");
            }
        }
    })?;
    let newer_format = edited_state(&state_file, "newer-format.tfstate", |state| state["version"] = json!(5))?;

    // No converter plugin.
    let converter_dir = ws.root().join(format!("pulumi-home/plugins/converter-terraform-v{}", versions::CONVERTER));
    let aside = ws.root().join("converter-aside");
    std::fs::rename(&converter_dir, &aside)?;
    let no_converter = import_from_terraform(&mut ws, &state_file)?;
    std::fs::rename(&aside, &converter_dir)?;
    let mut outcomes =
        vec![("no converter", no_converter, vec!["no converter plugin 'pulumi-converter-terraform' found"])];
    for (what, file, expected) in [
        (
            "a provider that is not installed",
            &unknown_provider,
            vec!["\"acme_gadget\": could not find mapping information for provider acme", "pulumi-resource-acme"],
        ),
        (
            "an object that is gone",
            &missing_object,
            // The import's Read answers "gone" as a refresh does (see `import_resource`), and
            // the engine names the resource and the ID.
            vec!["sdkv2test:index:Thing (thing)", "resource 'no-such-thing' does not exist"],
        ),
        ("a newer state format", &newer_format, vec!["The state file uses format version 5"]),
    ] {
        outcomes.push((what, import_from_terraform(&mut ws, file)?, expected));
    }
    for (what, output, expected) in outcomes {
        anyhow::ensure!(!output.success() && !output.timed_out, "{what}: expected a failure, got {output}");
        let text = output.all_text();
        for needle in expected {
            anyhow::ensure!(text.contains(needle), "{what}: the message does not say {needle:?}:\n{output}");
        }
        let resources = ws.managed_resources()?;
        anyhow::ensure!(resources.is_empty(), "{what}: nothing may be imported, the stack has {resources:?}");
    }

    // The good state still imports whole.
    let import = import_from_terraform(&mut ws, &state_file)?;
    anyhow::ensure!(import.success() && ws.managed_resources()?.len() == 3, "{import}");
    Ok(())
}
