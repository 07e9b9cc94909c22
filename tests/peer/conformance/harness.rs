//! What every conformance test shares: where the Go implementation's goldens are, our plugin
//! started as the bridge's tests start theirs (an unconfigured server, parameterized with the
//! arguments the Go test gives), answers turned into the JSON the Go tests compare (protojson,
//! re-marshalled with sorted keys), the leaf-by-leaf difference of two JSON values, and the
//! record of a Go test's expectations that asserts each in the form `expectations.rs` names.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::parameterize_request::{Parameters, ParametersArgs};
use tfbridge_proto::pulumirpc::resource_provider_client::ResourceProviderClient;
use tonic::transport::Channel;

use crate::common;
use crate::common::Implementation;
use crate::common::engine_client::{from_struct, to_struct};
use crate::common::plugin::Plugin;

use super::expectations::{Change, Form, expectation};

/// The Go implementation's test data (pulumi-terraform-bridge v3.136.0, `dynamic/testdata`),
/// read where it is kept: `go-dynamic-tests/testdata` in the shared peers folder, found as
/// `scripts/test-tools.sh` finds it (`$TFBRIDGE_SHARED_PEERS`, `../shared/peers` beside this
/// checkout, or beside the main checkout of a git worktree). Never copied into the project.
pub fn goldens_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(find_goldens_dir).clone()
}

fn find_goldens_dir() -> PathBuf {
    let mut bases = Vec::new();
    if let Some(dir) = std::env::var_os("TFBRIDGE_SHARED_PEERS").filter(|dir| !dir.is_empty()) {
        bases.push(PathBuf::from(dir));
    }
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
    bases.push(checkout.join("../shared/peers"));
    let common_dir = std::process::Command::new("git")
        .args(["rev-parse", "--path-format=absolute", "--git-common-dir"])
        .current_dir(checkout)
        .output();
    if let Some(output) = common_dir.ok().filter(|output| output.status.success()) {
        let common_dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        if let Some(main) = common_dir.parent() {
            bases.push(main.join("../shared/peers"));
        }
    }
    bases
        .iter()
        .map(|base| base.join("go-dynamic-tests/testdata"))
        .find(|dir| dir.is_dir())
        .unwrap_or_else(|| panic!("go-dynamic-tests/testdata is in none of {bases:?} (TFBRIDGE_SHARED_PEERS)"))
}

/// The text of `testdata/<relative>`.
pub fn golden_text(relative: &str) -> String {
    let path = goldens_dir().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("read {}: {err}", path.display()))
}

/// A golden file parsed as JSON.
pub fn golden_json(relative: &str) -> Json {
    let text = golden_text(relative);
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{relative} is not JSON: {err}"))
}

/// A bridge test provider (`scripts/test-tools.sh bridgetests`): `pfprovider`, `sdkv1` or
/// `conflictsprovider`.
pub fn bridge_test_provider(name: &str) -> PathBuf {
    let path = common::tools_dir()
        .join("providers/bridgetests")
        .join(common::versions::BRIDGE)
        .join(format!("terraform-provider-{name}"));
    assert!(path.is_file(), "{} is missing: run scripts/test-tools.sh bridgetests", path.display());
    path
}

/// Our plugin (or the Go implementation, to check the harness itself), started as the Pulumi
/// engine starts a plugin, with a provider cache of its own and an empty Terraform CLI
/// configuration, plus `env`. Like the Go tests' `grpcTestServer`, it is neither
/// parameterized nor configured.
pub struct Server {
    /// Held for its `Drop`, which ends the plugin's process group.
    _plugin: Plugin,
    pub client: ResourceProviderClient<Channel>,
    pub cache: PathBuf,
}

impl Server {
    pub async fn start(implementation: Implementation, env: &[(&str, OsString)]) -> Server {
        let dir = common::scratch_dir("conformance");
        let cache = dir.join("plugins");
        std::fs::create_dir_all(&cache).expect("create the plugin cache");
        let cli_config = dir.join("empty.tfrc");
        std::fs::write(&cli_config, "").expect("write an empty CLI configuration");
        let mut all: Vec<(&str, OsString)> = vec![
            ("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", cache.clone().into_os_string()),
            ("PULUMI_HOME", dir.join("pulumi-home").into_os_string()),
            ("TF_CLI_CONFIG_FILE", cli_config.into_os_string()),
        ];
        all.extend(env.iter().cloned());
        let env: Vec<(&str, &std::ffi::OsStr)> = all.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
        let binary = implementation.plugin_binary().unwrap_or_else(|err| panic!("{err:#}"));
        let plugin = Plugin::start_with_env(&binary, &["127.0.0.1:9"], &env);
        let client = plugin.client().await;
        Server { _plugin: plugin, client, cache }
    }

    /// Puts `binary` in the provider cache as registry.opentofu.org/`source` `version`, in
    /// OpenTofu's unpacked layout, which both implementations read before any registry.
    pub fn cache_provider(&self, source: &str, version: &str, binary: &Path) {
        let (_, type_name) = source.split_once('/').expect("namespace/type");
        let dir = self.cache.join("registry.opentofu.org").join(source).join(version).join(platform());
        std::fs::create_dir_all(&dir).expect("create the package directory");
        let target = dir.join(format!("terraform-provider-{type_name}_v{version}"));
        if std::fs::hard_link(binary, &target).is_err() {
            std::fs::copy(binary, &target).expect("copy the provider into the cache");
        }
    }

    pub async fn parameterize(&mut self, args: &[&str]) -> Result<pulumirpc::ParameterizeResponse, tonic::Status> {
        let args = args.iter().map(|arg| (*arg).to_owned()).collect();
        let request = pulumirpc::ParameterizeRequest { parameters: Some(Parameters::Args(ParametersArgs { args })) };
        self.client.parameterize(request).await.map(tonic::Response::into_inner)
    }
}

fn platform() -> String {
    let os = std::env::consts::OS;
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!("{os}_{arch}")
}

/// A URN as the Go tests make them (`resource.NewURN("test", "test", "", typ, name)`).
pub fn urn(stack: &str, project: &str, token: &str, name: &str) -> String {
    format!("urn:pulumi:{stack}::{project}::{token}::{name}")
}

/// A gRPC answer as the Go tests compare it: protojson (zero values left out, camelCase
/// names), re-marshalled with sorted keys. A failed call is `{"<error>": "<code>: <message>"}`,
/// which no golden has.
pub fn answer<T>(result: Result<T, tonic::Status>, protojson: impl FnOnce(T) -> Json) -> Json {
    match result {
        Ok(response) => protojson(response),
        Err(status) => json!({"<error>": format!("{:?}: {}", status.code(), status.message())}),
    }
}

/// Adds `key: value` to `object` unless `value` is the proto3 zero value protojson leaves out.
fn put(object: &mut serde_json::Map<String, Json>, key: &str, value: Json) {
    let zero = match &value {
        Json::Bool(b) => !b,
        Json::String(s) => s.is_empty(),
        Json::Array(items) => items.is_empty(),
        Json::Null => true,
        _ => false,
    };
    if !zero {
        object.insert(key.to_owned(), value);
    }
}

fn object(fields: Vec<(&str, Json)>) -> Json {
    let mut map = serde_json::Map::new();
    for (key, value) in fields {
        put(&mut map, key, value);
    }
    Json::Object(map)
}

fn structure(value: Option<&prost_types::Struct>) -> Json {
    value.map_or(Json::Null, from_struct)
}

pub fn failures(failures: &[pulumirpc::CheckFailure]) -> Json {
    Json::Array(
        failures.iter().map(|f| object(vec![("property", json!(f.property)), ("reason", json!(f.reason))])).collect(),
    )
}

pub fn parameterize_json(r: pulumirpc::ParameterizeResponse) -> Json {
    object(vec![("name", json!(r.name)), ("version", json!(r.version))])
}

pub fn check_json(r: pulumirpc::CheckResponse) -> Json {
    object(vec![("inputs", structure(r.inputs.as_ref())), ("failures", failures(&r.failures))])
}

pub fn create_json(r: pulumirpc::CreateResponse) -> Json {
    object(vec![
        ("id", json!(r.id)),
        ("properties", structure(r.properties.as_ref())),
        ("refreshBeforeUpdate", json!(r.refresh_before_update)),
    ])
}

pub fn update_json(r: pulumirpc::UpdateResponse) -> Json {
    object(vec![
        ("properties", structure(r.properties.as_ref())),
        ("refreshBeforeUpdate", json!(r.refresh_before_update)),
    ])
}

pub fn read_json(r: pulumirpc::ReadResponse) -> Json {
    object(vec![
        ("id", json!(r.id)),
        ("properties", structure(r.properties.as_ref())),
        ("inputs", structure(r.inputs.as_ref())),
        ("refreshBeforeUpdate", json!(r.refresh_before_update)),
    ])
}

pub fn diff_json(r: pulumirpc::DiffResponse) -> Json {
    use pulumirpc::diff_response::DiffChanges;
    use pulumirpc::property_diff::Kind;
    let changes = match DiffChanges::try_from(r.changes) {
        Ok(DiffChanges::DiffUnknown) => Json::Null,
        Ok(changes) => json!(changes.as_str_name()),
        Err(_) => json!(r.changes),
    };
    let detailed: serde_json::Map<String, Json> = r
        .detailed_diff
        .iter()
        .map(|(path, d)| {
            let kind = match Kind::try_from(d.kind) {
                Ok(Kind::Add) => Json::Null,
                Ok(kind) => json!(kind.as_str_name()),
                Err(_) => json!(d.kind),
            };
            (path.clone(), object(vec![("kind", kind), ("inputDiff", json!(d.input_diff))]))
        })
        .collect();
    let mut fields = vec![
        ("replaces", json!(r.replaces)),
        ("stables", json!(r.stables)),
        ("deleteBeforeReplace", json!(r.delete_before_replace)),
        ("changes", changes),
        ("diffs", json!(r.diffs)),
        ("hasDetailedDiff", json!(r.has_detailed_diff)),
    ];
    if !detailed.is_empty() {
        fields.push(("detailedDiff", Json::Object(detailed)));
    }
    object(fields)
}

pub fn configure_json(r: pulumirpc::ConfigureResponse) -> Json {
    object(vec![
        ("acceptSecrets", json!(r.accept_secrets)),
        ("supportsPreview", json!(r.supports_preview)),
        ("acceptResources", json!(r.accept_resources)),
        ("acceptOutputs", json!(r.accept_outputs)),
        ("supportsAutonamingConfiguration", json!(r.supports_autonaming_configuration)),
    ])
}

pub fn invoke_json(r: pulumirpc::InvokeResponse) -> Json {
    object(vec![("return", structure(r.r#return.as_ref())), ("failures", failures(&r.failures))])
}

pub fn empty_json(_: ()) -> Json {
    json!({})
}

/// A `Struct` from JSON, as `plugin.MarshalProperties` makes it.
pub fn props(value: Json) -> Option<prost_types::Struct> {
    Some(to_struct(&value))
}

/// Every leaf where `golden` and `ours` differ, as (JSON pointer, golden's value, ours), the
/// values as compact JSON text and `None` where absent. Objects are compared key by key;
/// arrays of the same length item by item; anything else as a whole.
pub fn differences(golden: &Json, ours: &Json) -> Vec<(String, Option<String>, Option<String>)> {
    let mut found = Vec::new();
    walk("", Some(golden), Some(ours), &mut found);
    found
}

fn walk(
    path: &str,
    golden: Option<&Json>,
    ours: Option<&Json>,
    found: &mut Vec<(String, Option<String>, Option<String>)>,
) {
    match (golden, ours) {
        (Some(Json::Object(g)), Some(Json::Object(o))) => {
            let keys: BTreeSet<&String> = g.keys().chain(o.keys()).collect();
            for key in keys {
                let escaped = key.replace('~', "~0").replace('/', "~1");
                walk(&format!("{path}/{escaped}"), g.get(key), o.get(key), found);
            }
        }
        (Some(Json::Array(g)), Some(Json::Array(o))) if g.len() == o.len() => {
            for (i, (g, o)) in g.iter().zip(o).enumerate() {
                walk(&format!("{path}/{i}"), Some(g), Some(o), found);
            }
        }
        (g, o) if g == o => {}
        (g, o) => found.push((path.to_owned(), g.map(Json::to_string), o.map(Json::to_string))),
    }
}

/// `text` re-indented as Go's `json.Indent(dst, src, "", indent)` does: keys keep their
/// order and strings their escapes; only the whitespace between tokens changes.
pub fn go_indent(text: &str, indent: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut need_newline = false;
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(indent);
        }
    };
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        if c.is_ascii_whitespace() {
            continue;
        }
        if need_newline {
            need_newline = false;
            if c == ']' || c == '}' {
                // An empty container stays `[]` or `{}`.
                out.push(c);
                continue;
            }
            depth += 1;
            newline(&mut out, depth);
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                need_newline = true;
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// One Go test's expectations: each is checked against the form `expectations.rs` gives it,
/// and [`Record::finish`] prints the count and fails naming every expectation that is not in
/// that form.
pub struct Record {
    test: &'static str,
    /// The Go implementation is held to every golden strictly: that checks the harness.
    go: bool,
    strict: usize,
    documented: usize,
    not_run: Vec<(String, &'static str)>,
    wrong: Vec<String>,
}

impl Record {
    pub fn new(test: &'static str, implementation: Implementation) -> Record {
        Record {
            test,
            go: implementation == Implementation::Go,
            strict: 0,
            documented: 0,
            not_run: Vec::new(),
            wrong: Vec::new(),
        }
    }

    /// Checks `ours` against `golden` for the expectation `name` of this Go test.
    pub fn expect(&mut self, name: &str, golden: &Json, ours: &Json) {
        let found = differences(golden, ours);
        self.judge(name, found, || format!("ours: {ours}"));
    }

    /// Checks a schema as `requireGoldenFileEqual` does: ours, indented as Go indents it,
    /// byte for byte against the golden. Where the bytes differ but the JSON values are equal
    /// the one difference is the order of keys, recorded at path `#order`.
    pub fn expect_text(&mut self, name: &str, golden: &str, ours: &str) {
        let ours_indented = go_indent(ours, "    ");
        let found = if ours_indented == golden {
            Vec::new()
        } else {
            let golden_json: Json = serde_json::from_str(golden).expect("the golden is JSON");
            let ours_json: Json = serde_json::from_str(ours).expect("our schema is JSON");
            let found = differences(&golden_json, &ours_json);
            if found.is_empty() { vec![("#order".to_owned(), None, None)] } else { found }
        };
        self.judge(name, found, || "(schema)".to_owned());
    }

    /// An expectation that could not be run here; `expectations.rs` must say so, and why.
    pub fn not_run(&mut self, name: &str) {
        match expectation(self.test, name).form {
            Form::NotRun(reason) => self.not_run.push((name.to_owned(), reason)),
            _ => self.wrong.push(format!("{}/{name}: not run, but expectations.rs expects it to run", self.test)),
        }
    }

    fn judge(&mut self, name: &str, found: Vec<(String, Option<String>, Option<String>)>, ours: impl Fn() -> String) {
        let expectation = expectation(self.test, name);
        let form = match expectation.form {
            Form::Differs { .. } | Form::DiffersInMany { .. } if self.go => &Form::Strict,
            ref form => form,
        };
        let shown = |found: &[(String, Option<String>, Option<String>)]| {
            found
                .iter()
                .map(|(path, g, o)| format!("\n    {path}: golden {} / ours {}", show(g), show(o)))
                .collect::<String>()
        };
        match form {
            Form::Strict if found.is_empty() => self.strict += 1,
            Form::Strict => self.wrong.push(format!(
                "{}/{name}: differs from its golden:{}\n    {}\n  as a documented difference (expectations.rs):{}",
                self.test,
                shown(&found),
                ours(),
                suggested(&found),
            )),
            Form::DiffersInMany { leaves, changes, count, .. } if in_many(leaves, changes, *count, &found) => {
                // The first few, to show what kind of difference it is.
                println!(
                    "conformance: {}/{name}: differs from Go as documented ({count} leaves):{}",
                    self.test,
                    shown(&found[..found.len().min(3)])
                );
                self.documented += 1
            }
            Form::DiffersInMany { count, .. } => self.wrong.push(format!(
                "{}/{name}: not in its documented form (expectations.rs: {count} differences expected, {} found):{}",
                self.test,
                found.len(),
                shown(&found),
            )),
            Form::Differs { changes, .. } if same_changes(changes, &found) => {
                // The exact difference, for whoever fixes it or checks a fix.
                println!("conformance: {}/{name}: differs from Go as documented:{}", self.test, shown(&found));
                self.documented += 1
            }
            Form::Differs { changes, .. } => self.wrong.push(format!(
                "{}/{name}: not in its documented form (expectations.rs; fix it there{}):\n  now:{}\n  documented:{}",
                self.test,
                if found.is_empty() { ": it now meets its golden strictly, make it Strict" } else { "" },
                shown(&found),
                changes
                    .iter()
                    .map(|c| format!("\n    {}: ours {}", c.path, c.ours.unwrap_or("(absent)")))
                    .collect::<String>(),
            )),
            Form::NotRun(_) => {
                self.wrong.push(format!("{}/{name}: ran, but expectations.rs says it cannot run", self.test))
            }
        }
    }

    /// Prints `conformance: N of M expectations met strictly; K asserted as documented
    /// differences; S not run (reason)` for this Go test, and fails naming every expectation
    /// not in its expected form.
    pub fn finish(self) {
        let total = self.strict + self.documented + self.not_run.len() + self.wrong.len();
        let reasons: BTreeSet<&str> = self.not_run.iter().map(|(_, reason)| *reason).collect();
        let reasons = if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.into_iter().collect::<Vec<_>>().join("; "))
        };
        for (name, reason) in &self.not_run {
            println!("conformance: {}/{name}: not run: {reason}", self.test);
        }
        println!(
            "conformance{}: {}: {} of {total} expectations met strictly; {} asserted as documented differences; {} not run{reasons}",
            if self.go { " (the Go implementation)" } else { "" },
            self.test,
            self.strict,
            self.documented,
            self.not_run.len(),
        );
        assert!(self.wrong.is_empty(), "{}", self.wrong.join("\n"));
    }
}

/// `found` as the `changes` of a `Form::Differs` entry, to paste into expectations.rs.
fn suggested(found: &[(String, Option<String>, Option<String>)]) -> String {
    let text = |v: &Option<String>| v.as_ref().map_or_else(|| "None".to_owned(), |v| format!("Some(r#\"{v}\"#)"));
    found.iter().map(|(path, _, o)| format!("\n        change(r#\"{path}\"#, {}),", text(o))).collect()
}

/// Whether `found` holds exactly `count` differences: each of `changes`, the rest at leaves
/// whose path ends with one of `leaves`.
fn in_many(
    leaves: &[&str],
    changes: &[Change],
    count: usize,
    found: &[(String, Option<String>, Option<String>)],
) -> bool {
    found.len() == count
        && changes.iter().all(|change| found.iter().any(|f| is(change, f)))
        && found
            .iter()
            .all(|f| changes.iter().any(|change| is(change, f)) || leaves.iter().any(|leaf| f.0.ends_with(leaf)))
}

fn show(value: &Option<String>) -> String {
    value
        .as_deref()
        .map_or_else(|| "(absent)".to_owned(), |v| if v.len() > 300 { format!("{}…", &v[..300]) } else { v.to_owned() })
}

fn same_changes(documented: &[Change], found: &[(String, Option<String>, Option<String>)]) -> bool {
    documented.len() == found.len() && documented.iter().zip(found).all(|(d, f)| is(d, f))
}

/// Whether the found difference `f` is the documented `change`: the same path, and our value
/// there the same JSON (or absent in both).
fn is(change: &Change, f: &(String, Option<String>, Option<String>)) -> bool {
    let parse = |text: Option<&str>| text.map(|text| serde_json::from_str::<Json>(text).ok());
    change.path == f.0 && parse(change.ours) == parse(f.2.as_deref())
}
