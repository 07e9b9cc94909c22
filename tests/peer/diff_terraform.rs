//! Our detailed diffs against `terraform plan` for the same change (issue 12 item 8).
//!
//! Each case makes one resource with real Terraform 1.11 and with our plugin (the stand-in
//! engine), from the same settings, then changes them. Terraform's plan (`terraform show
//! -json`: actions, `replace_paths`, `before`/`after`/`after_unknown`) is read into one line
//! per changed attribute path; our Diff's detailed diff into one line per property path. Both
//! go into a golden file (`tests/golden/diff/<case>.txt`, refreshed with `UPDATE_EXPECT=1`),
//! and the test asserts they agree:
//! - a replacement in Terraform is one for us, and the other way round;
//! - every value Terraform changes to a known value is in our diff with the same kind (add,
//!   update, delete) and replacement;
//! - a value Terraform shows as "(known after apply)" is either not in our diff or an update,
//!   never a deletion (Pulumi shows an update of a property that is no input as a deletion,
//!   so recomputed values are left out);
//! - nothing else is in our diff.
//!
//! Terraform runs offline: the providers come from the tools cache through `dev_overrides`.
//! Needs `scripts/test-tools.sh providers` and `terraform` (1.11.4) on the PATH.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use common::Implementation;
use common::engine_client::{Session, urn};
use common::versions;
use expect_test::expect_file;
use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;

struct Case {
    /// The golden file's name.
    name: &'static str,
    provider: (&'static str, &'static str),
    /// The Terraform resource type and its Pulumi token.
    tf_type: &'static str,
    token: &'static str,
    /// Settings before and after, as Terraform JSON configuration (Terraform names); the
    /// Pulumi inputs are the same with camelCase names, except for `renames`.
    before: Json,
    after: Json,
    /// Attributes whose Pulumi name is not just camelCase (lists are plural).
    renames: &'static [(&'static str, &'static str)],
}

/// One change Terraform plans, at a Terraform path (`keepers.b`, `input[2]`).
#[derive(Debug)]
enum TfChange {
    Add,
    Update,
    Delete,
    /// "(known after apply)".
    Recomputed,
}

struct TfPlan {
    actions: Vec<String>,
    replace_paths: Vec<String>,
    changes: BTreeMap<String, TfChange>,
}

impl TfPlan {
    fn replaces(&self) -> bool {
        self.actions.iter().any(|a| a == "delete") && self.actions.iter().any(|a| a == "create")
    }

    fn forces_replacement(&self, path: &str) -> bool {
        self.replace_paths.iter().any(|replace| {
            path == replace || path.starts_with(&format!("{replace}.")) || path.starts_with(&format!("{replace}["))
        })
    }
}

fn camel(tf_name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in tf_name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

impl Case {
    fn pulumi_name(&self, tf_name: &str) -> String {
        match self.renames.iter().find(|(tf, _)| *tf == tf_name) {
            Some((_, pulumi)) => (*pulumi).to_owned(),
            None => camel(tf_name),
        }
    }

    /// The Pulumi property path of a Terraform path in these cases: the attribute renamed,
    /// map keys and list indices as they are.
    fn pulumi_path(&self, tf_path: &str) -> String {
        let end = tf_path.find(['.', '[']).unwrap_or(tf_path.len());
        format!("{}{}", self.pulumi_name(&tf_path[..end]), &tf_path[end..])
    }

    fn pulumi_inputs(&self, settings: &Json) -> Json {
        let settings = settings.as_object().expect("settings");
        Json::Object(settings.iter().map(|(k, v)| (self.pulumi_name(k), v.clone())).collect())
    }

    /// Whether the new settings set the top-level attribute of `tf_path`.
    fn is_input(&self, tf_path: &str) -> bool {
        let end = tf_path.find(['.', '[']).unwrap_or(tf_path.len());
        self.after.get(&tf_path[..end]).is_some_and(|v| !v.is_null())
    }
}

/// The leaf changes between `before` and `after` under `path`.
fn leaf_changes(path: &str, before: &Json, after: &Json, unknown: &Json, out: &mut BTreeMap<String, TfChange>) {
    if unknown == &Json::Bool(true) {
        out.insert(path.to_owned(), if before.is_null() { TfChange::Add } else { TfChange::Recomputed });
        return;
    }
    let child = |key: &str| if path.is_empty() { key.to_owned() } else { format!("{path}.{key}") };
    match (before, after) {
        (Json::Object(b), Json::Object(a)) => {
            let keys: std::collections::BTreeSet<&String> = b.keys().chain(a.keys()).collect();
            for key in keys {
                leaf_changes(
                    &child(key),
                    b.get(key).unwrap_or(&Json::Null),
                    a.get(key).unwrap_or(&Json::Null),
                    unknown.get(key).unwrap_or(&Json::Null),
                    out,
                );
            }
        }
        (Json::Array(b), Json::Array(a)) => {
            for idx in 0..b.len().max(a.len()) {
                leaf_changes(
                    &format!("{path}[{idx}]"),
                    b.get(idx).unwrap_or(&Json::Null),
                    a.get(idx).unwrap_or(&Json::Null),
                    unknown.get(idx).unwrap_or(&Json::Null),
                    out,
                );
            }
        }
        (b, a) if b == a => {}
        (Json::Null, _) => {
            out.insert(path.to_owned(), TfChange::Add);
        }
        (_, Json::Null) => {
            out.insert(path.to_owned(), TfChange::Delete);
        }
        _ => {
            out.insert(path.to_owned(), TfChange::Update);
        }
    }
}

fn run(dir: &Path, args: &[&str]) -> String {
    let output = std::process::Command::new("terraform")
        .args(args)
        .current_dir(dir)
        .env("TF_CLI_CONFIG_FILE", dir.join("cli.tfrc"))
        .env("TF_IN_AUTOMATION", "1")
        .env("CHECKPOINT_DISABLE", "1")
        .output()
        .unwrap_or_else(|err| panic!("terraform {args:?}: {err} (is terraform 1.11 on the PATH?)"));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "terraform {args:?}:\n{text}\n{}", String::from_utf8_lossy(&output.stderr));
    text
}

/// Terraform's plan for changing `case` from its `before` to its `after` settings.
fn terraform_plan(case: &Case, provider_dir: &Path) -> TfPlan {
    let dir = common::scratch_dir(&format!("tf-{}", case.name));
    let (provider, _) = case.provider;
    std::fs::write(
        dir.join("cli.tfrc"),
        format!(
            "provider_installation {{\n  dev_overrides {{\n    \"hashicorp/{provider}\" = \"{}\"\n  }}\n  direct {{}}\n}}\n",
            provider_dir.display()
        ),
    )
    .expect("write the CLI configuration");
    let write_config = |settings: &Json| {
        let config = json!({"resource": {case.tf_type: {"r": settings}}});
        std::fs::write(dir.join("main.tf.json"), config.to_string()).expect("write main.tf.json");
    };
    write_config(&case.before);
    run(&dir, &["apply", "-auto-approve", "-no-color", "-input=false"]);
    write_config(&case.after);
    run(&dir, &["plan", "-no-color", "-input=false", "-out=plan.bin"]);
    let shown: Json = serde_json::from_str(&run(&dir, &["show", "-json", "plan.bin"])).expect("plan JSON");
    run(&dir, &["destroy", "-auto-approve", "-no-color", "-input=false"]);
    let _ = std::fs::remove_dir_all(&dir);

    let change = &shown["resource_changes"][0]["change"];
    let actions =
        change["actions"].as_array().expect("actions").iter().map(|a| a.as_str().unwrap().to_owned()).collect();
    let replace_paths = change["replace_paths"]
        .as_array()
        .map(|paths| {
            paths
                .iter()
                .map(|path| {
                    let mut text = String::new();
                    for step in path.as_array().expect("a path") {
                        match step {
                            Json::String(key) if text.is_empty() => text.push_str(key),
                            Json::String(key) => text.push_str(&format!(".{key}")),
                            Json::Number(idx) => text.push_str(&format!("[{idx}]")),
                            other => panic!("unexpected path step {other}"),
                        }
                    }
                    text
                })
                .collect()
        })
        .unwrap_or_default();
    let mut changes = BTreeMap::new();
    leaf_changes("", &change["before"], &change["after"], &change["after_unknown"], &mut changes);
    TfPlan { actions, replace_paths, changes }
}

/// Our Diff for the same change: (replaces, detailed diff path → kind).
async fn our_diff(case: &Case, provider: &Path) -> (Vec<String>, BTreeMap<String, String>) {
    let mut s = Session::start(Implementation::Ours, provider).await;
    s.configure(json!({})).await.expect("Configure");
    let resource = urn(case.token, "r");
    let (inputs, id, outputs) = s.create(&resource, case.pulumi_inputs(&case.before)).await;
    let checked = s.check(&resource, &inputs, &case.pulumi_inputs(&case.after)).await;
    assert!(checked.failures.is_empty(), "{:?}", checked.failures);
    let news = common::engine_client::from_struct(checked.inputs.as_ref().expect("inputs"));
    let diff = s.diff(&resource, &id, &outputs, &inputs, &news).await;
    s.delete(&resource, &id, &outputs, &inputs).await.expect("Delete");
    let detailed = diff
        .detailed_diff
        .iter()
        .map(|(path, d)| {
            let kind = pulumirpc::property_diff::Kind::try_from(d.kind).map_or("?", |k| k.as_str_name());
            (path.clone(), kind.to_owned())
        })
        .collect();
    (diff.replaces, detailed)
}

/// Records both sides and asserts they agree (see the module comment).
async fn check(case: Case) {
    let provider = common::real_provider(case.provider.0, case.provider.1).unwrap_or_else(|err| panic!("{err}"));
    let plan = terraform_plan(&case, provider.parent().expect("the provider's directory"));
    let (replaces, ours) = our_diff(&case, &provider).await;

    let mut golden = format!(
        "{} {}\n\nterraform: actions={:?} replace_paths={:?}\n",
        case.tf_type, case.name, plan.actions, plan.replace_paths
    );
    for (path, change) in &plan.changes {
        let replace = if plan.forces_replacement(path) { " (forces replacement)" } else { "" };
        golden.push_str(&format!("  {path}: {change:?}{replace}\n"));
    }
    golden.push_str(&format!("\nours: replaces={replaces:?}\n"));
    for (path, kind) in &ours {
        golden.push_str(&format!("  {path}: {kind}\n"));
    }
    expect_file![format!("../golden/diff/{}.txt", case.name)].assert_eq(&golden);

    assert_eq!(plan.replaces(), !replaces.is_empty(), "replacement agrees:\n{golden}");
    let mut expected_paths = std::collections::BTreeSet::new();
    for (tf_path, change) in &plan.changes {
        let path = case.pulumi_path(tf_path);
        let replace = if plan.forces_replacement(tf_path) { "_REPLACE" } else { "" };
        let ours_kind = ours.get(&path).map(String::as_str);
        match change {
            // A value the provider computes: Pulumi could only show it as a deletion, so it
            // is left out unless it forces the replacement.
            TfChange::Recomputed | TfChange::Update if !case.is_input(tf_path) => {
                let allowed = if replace.is_empty() { None } else { Some("UPDATE_REPLACE") };
                assert_eq!(ours_kind, allowed, "{path} is computed by the provider, never deleted:\n{golden}");
            }
            TfChange::Recomputed => {
                assert!(ours_kind.is_some_and(|k| k.starts_with("UPDATE")), "{path}: an input to unknown:\n{golden}");
            }
            TfChange::Add | TfChange::Update | TfChange::Delete => {
                let kind = match change {
                    TfChange::Add => "ADD",
                    TfChange::Update => "UPDATE",
                    _ => "DELETE",
                };
                assert_eq!(ours_kind, Some(format!("{kind}{replace}").as_str()), "{path}:\n{golden}");
            }
        }
        expected_paths.insert(path);
    }
    for path in ours.keys() {
        assert!(expected_paths.contains(path), "{path} is in our diff but Terraform plans no change there:\n{golden}");
    }
}

#[tokio::test]
async fn local_file_content_change_replaces() {
    let dir = common::scratch_dir("diff-local-file");
    let file = dir.join("out.txt").display().to_string();
    check(Case {
        name: "local_file_content",
        provider: ("local", versions::LOCAL),
        tf_type: "local_file",
        token: "local:index/file:File",
        before: json!({"filename": file, "content": "hello"}),
        after: json!({"filename": file, "content": "hello2"}),
        renames: &[],
    })
    .await;
}

#[tokio::test]
async fn random_pet_length_change_replaces() {
    check(Case {
        name: "random_pet_length",
        provider: ("random", versions::RANDOM),
        tf_type: "random_pet",
        token: "random:index/pet:Pet",
        before: json!({"length": 2, "separator": "-"}),
        after: json!({"length": 3, "separator": "-"}),
        renames: &[],
    })
    .await;
}

#[tokio::test]
async fn random_string_keepers_map_change_replaces() {
    check(Case {
        name: "random_string_keepers",
        provider: ("random", versions::RANDOM),
        tf_type: "random_string",
        token: "random:index/string:String",
        before: json!({"length": 8, "keepers": {"a": "1", "c": "3"}}),
        after: json!({"length": 8, "keepers": {"a": "2", "b": "2"}}),
        renames: &[],
    })
    .await;
}

#[tokio::test]
async fn random_shuffle_list_change_replaces() {
    check(Case {
        name: "random_shuffle_input",
        provider: ("random", versions::RANDOM),
        tf_type: "random_shuffle",
        token: "random:index/shuffle:Shuffle",
        before: json!({"input": ["a", "b"], "seed": "s"}),
        after: json!({"input": ["a", "c", "d"], "seed": "s"}),
        renames: &[("input", "inputs")],
    })
    .await;
}

#[tokio::test]
async fn time_offset_days_change_updates_in_place() {
    check(Case {
        name: "time_offset_days",
        provider: ("time", versions::TIME),
        tf_type: "time_offset",
        token: "time:index/offset:Offset",
        before: json!({"base_rfc3339": "2026-01-01T00:00:00Z", "offset_days": 1}),
        after: json!({"base_rfc3339": "2026-01-01T00:00:00Z", "offset_days": 2}),
        renames: &[],
    })
    .await;
}
