//! The gRPC debug log: with `PULUMI_TF_DEBUG_GRPC=<file>`, every call to the Terraform
//! provider is appended to that file as one JSON line, for users to attach to bug reports.
//!
//! The Go implementation's variable of the same name writes each call's request and
//! response as the provider sees them, unredacted. Ours writes, per call:
//! `{"method", "type_name"?, "request", "response" | "error", "timestamp", "duration_ns"}`,
//! with values shown as JSON (unknown values as `"<unknown>"`) and every value that must
//! stay secret replaced by `"<redacted>"`: attributes the schema marks sensitive or
//! write-only, with everything below them, and every path the program marked secret
//! (Pulumi secrets in inputs and stored outputs). Private state is shown only by its length,
//! because providers keep whatever they like in it. Redaction is decided here, where the
//! schema is known, and the log is written only after it.
//!
//! Writing never fails a call: a file that cannot be opened or written is reported once on
//! stderr and the log is off.

use std::fs::File;
use std::future::Future;
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use schema_gen::tf::{AttributeType, Block, BlockNesting, ObjectNesting};
use serde_json::{Map, Value as Json, json};

use crate::cty::{Path, PathStep, Value, View};
use crate::tfplugin::types::{Diagnostic, DynamicValue, Severity};

/// The environment variable naming the log file.
pub const DEBUG_GRPC_ENV: &str = "PULUMI_TF_DEBUG_GRPC";

/// What replaces a secret value.
pub const REDACTED: &str = "<redacted>";

const UNKNOWN: &str = "<unknown>";

static LOG: OnceLock<Option<Mutex<File>>> = OnceLock::new();

/// Whether calls are being logged; callers build log values only then.
pub fn enabled() -> bool {
    log_file().is_some()
}

fn log_file() -> Option<&'static Mutex<File>> {
    LOG.get_or_init(|| {
        let path = std::env::var_os(DEBUG_GRPC_ENV).filter(|p| !p.is_empty())?;
        let opened = {
            use std::os::unix::fs::OpenOptionsExt;
            std::fs::OpenOptions::new().create(true).append(true).mode(0o600).open(&path)
        };
        match opened {
            Ok(file) => Some(Mutex::new(file)),
            Err(err) => {
                tracing::warn!("{DEBUG_GRPC_ENV}: cannot open {}: {err}; the gRPC debug log is off", path.display());
                None
            }
        }
    })
    .as_ref()
}

/// Runs `call`; when the log is on, appends its request (built by `request`), its
/// response (built by `response` from the answer) or error, and its duration.
pub async fn logged<T, E: std::fmt::Display>(
    method: &str,
    type_name: Option<&str>,
    request: impl FnOnce() -> Json,
    call: impl Future<Output = Result<T, E>>,
    response: impl FnOnce(&T) -> Json,
) -> Result<T, E> {
    let Some(file) = log_file() else {
        return call.await;
    };
    let request = request();
    let timestamp = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let started = Instant::now();
    let result = call.await;
    let duration = started.elapsed();
    let mut entry = Map::new();
    entry.insert("method".into(), json!(method));
    if let Some(type_name) = type_name {
        entry.insert("type_name".into(), json!(type_name));
    }
    entry.insert("request".into(), request);
    match &result {
        Ok(answer) => entry.insert("response".into(), response(answer)),
        Err(err) => entry.insert("error".into(), json!(err.to_string())),
    };
    entry.insert("timestamp".into(), json!(format!("{}.{:09}", timestamp.as_secs(), timestamp.subsec_nanos())));
    entry.insert("duration_ns".into(), json!(u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)));
    let mut line = Json::Object(entry).to_string();
    line.push('\n');
    let mut file = file.lock().unwrap_or_else(|p| p.into_inner());
    if let Err(err) = file.write_all(line.as_bytes()) {
        tracing::warn!("{DEBUG_GRPC_ENV}: cannot write the gRPC debug log: {err}");
    }
    result
}

/// How to show values of one object type: its schema and the paths that are secret.
#[derive(Clone, Copy)]
pub struct Redaction<'a> {
    pub block: &'a Block,
    pub secrets: &'a [Path],
}

impl Redaction<'_> {
    /// An encoded value of the block's type, decoded and redacted.
    pub fn dynamic(&self, value: &DynamicValue) -> Json {
        match super::decode(value, &self.block.implied_type()) {
            Ok(value) => self.value(&value),
            Err(err) => json!(format!("<undecodable: {err}>")),
        }
    }

    /// A value of the block's type, redacted.
    pub fn value(&self, value: &Value) -> Json {
        let mut json = to_json(value);
        self.redact(&mut json);
        json
    }

    /// Stored JSON state (UpgradeResourceState's raw state), redacted.
    pub fn raw_json(&self, bytes: &[u8]) -> Json {
        match serde_json::from_slice::<Json>(bytes) {
            Ok(mut json) => {
                self.redact(&mut json);
                json
            }
            Err(_) => json!(format!("<{} bytes that are not JSON>", bytes.len())),
        }
    }

    /// Redacts a JSON rendering of a value of the block's type in place.
    pub fn redact(&self, json: &mut Json) {
        let mut path = Vec::new();
        if self.is_secret(&path) {
            redact_leaf(json);
            return;
        }
        self.object(json, self.block, &mut path);
    }

    fn is_secret(&self, path: &[PathStep]) -> bool {
        self.secrets.iter().any(|secret| path.starts_with(&secret.steps))
    }

    fn object(&self, json: &mut Json, block: &Block, path: &mut Vec<PathStep>) {
        let Json::Object(fields) = json else { return };
        for (name, field) in fields.iter_mut() {
            path.push(PathStep::Attr(name.clone()));
            if self.is_secret(path) {
                redact_leaf(field);
            } else if let Some(attr) = block.attributes.get(name) {
                if attr.sensitive || attr.write_only {
                    redact_leaf(field);
                } else if let AttributeType::Nested(nested) = &attr.ty {
                    let inner = Block { attributes: nested.attributes.clone(), ..Block::default() };
                    match nested.nesting {
                        ObjectNesting::Single => self.object(field, &inner, path),
                        ObjectNesting::List | ObjectNesting::Set | ObjectNesting::Map => {
                            self.each(field, path, |this, elem, path| this.object(elem, &inner, path))
                        }
                    }
                } else {
                    self.secrets_only(field, path);
                }
            } else if let Some(nested) = block.block_types.get(name) {
                match nested.nesting {
                    BlockNesting::Single | BlockNesting::Group => self.object(field, &nested.block, path),
                    BlockNesting::List | BlockNesting::Set | BlockNesting::Map => {
                        self.each(field, path, |this, elem, path| this.object(elem, &nested.block, path))
                    }
                }
            } else {
                self.secrets_only(field, path);
            }
            path.pop();
        }
    }

    /// Applies `visit` to each element of a list or set (by index) or map (by key).
    fn each(&self, json: &mut Json, path: &mut Vec<PathStep>, visit: impl Fn(&Self, &mut Json, &mut Vec<PathStep>)) {
        match json {
            Json::Array(elems) => {
                for (idx, elem) in elems.iter_mut().enumerate() {
                    path.push(PathStep::Index(idx as u64));
                    if self.is_secret(path) {
                        redact_leaf(elem)
                    } else {
                        visit(self, elem, path)
                    }
                    path.pop();
                }
            }
            Json::Object(entries) => {
                for (key, elem) in entries.iter_mut() {
                    path.push(PathStep::Key(key.clone()));
                    if self.is_secret(path) {
                        redact_leaf(elem)
                    } else {
                        visit(self, elem, path)
                    }
                    path.pop();
                }
            }
            _ => {}
        }
    }

    /// Below an attribute the schema says nothing more about: only secret paths.
    fn secrets_only(&self, json: &mut Json, path: &mut Vec<PathStep>) {
        if !self.secrets.iter().any(|secret| secret.steps.starts_with(path)) {
            return;
        }
        match json {
            Json::Array(_) => self.each(json, path, |this, elem, path| this.secrets_only(elem, path)),
            Json::Object(fields) => {
                // Objects and maps are both JSON objects; a secret path names either.
                for (name, field) in fields.iter_mut() {
                    for step in [PathStep::Attr(name.clone()), PathStep::Key(name.clone())] {
                        path.push(step);
                        if self.is_secret(path) {
                            redact_leaf(field);
                        }
                        path.pop();
                    }
                    path.push(PathStep::Attr(name.clone()));
                    self.secrets_only(field, path);
                    path.pop();
                    path.push(PathStep::Key(name.clone()));
                    self.secrets_only(field, path);
                    path.pop();
                }
            }
            _ => {}
        }
    }
}

/// A secret stays visibly absent (null) when it is absent, and unknown when unknown; any
/// value is replaced whole.
fn redact_leaf(json: &mut Json) {
    if !json.is_null() && json.as_str() != Some(UNKNOWN) {
        *json = json!(REDACTED);
    }
}

/// A cty value as plain JSON; unknowns as `"<unknown>"`.
pub fn to_json(value: &Value) -> Json {
    match value.view() {
        View::Null(_) => Json::Null,
        View::Unknown(..) => json!(UNKNOWN),
        View::Bool(b) => json!(b),
        View::Number(n) => {
            let text = n.to_string();
            serde_json::from_str::<serde_json::Number>(&text).map(Json::Number).unwrap_or(Json::String(text))
        }
        View::String(s) => json!(s),
        View::List(_, elems) | View::Set(_, elems) | View::Tuple(elems) => {
            Json::Array(elems.iter().map(to_json).collect())
        }
        View::Map(_, entries) | View::Object(entries) => {
            Json::Object(entries.iter().map(|(k, v)| (k.to_string(), to_json(v))).collect())
        }
    }
}

/// Diagnostics as the log shows them. Their text is the provider's, and is kept.
pub fn diagnostics(diagnostics: &[Diagnostic]) -> Json {
    Json::Array(
        diagnostics
            .iter()
            .map(|d| {
                json!({
                    "severity": match d.severity { Severity::Error => "error", Severity::Warning => "warning" },
                    "summary": d.summary,
                    "detail": d.detail,
                    "attribute": d.attribute.as_ref().map(ToString::to_string),
                })
            })
            .collect(),
    )
}

/// Private state: its length only.
pub fn private(bytes: &[u8]) -> Json {
    json!(format!("<{} bytes>", bytes.len()))
}

/// The secret paths of stored outputs, for redacting the state built from them.
pub fn output_secrets(
    block: &Block,
    names: &schema_gen::translate::PropertyNames,
    outputs: &crate::property::PropertyMap,
) -> Vec<Path> {
    crate::convert::values::to_cty(block, names, outputs, crate::convert::values::UnknownKeys::Ignore)
        .map(|(_, secrets)| secrets)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::testutil::{schema, val};

    const SCHEMA: &str = r#"{
        "attributes": {
            "name": {"type": "string", "required": true},
            "password": {"type": "string", "optional": true, "sensitive": true},
            "token": {"type": "string", "optional": true, "write_only": true},
            "tags": {"type": ["map", "string"], "optional": true},
            "nested": {"nested_type": {"nesting_mode": "list", "attributes": {
                "key": {"type": "string", "optional": true, "sensitive": true},
                "label": {"type": "string", "optional": true}}}, "optional": true}
        },
        "block_types": {
            "rule": {"nesting_mode": "list", "block": {"attributes": {
                "port": {"type": "number", "optional": true},
                "secret": {"type": "string", "optional": true, "sensitive": true}}}}
        }
    }"#;

    fn path(steps: &[PathStep]) -> Path {
        Path { steps: steps.to_vec() }
    }

    #[test]
    fn sensitive_write_only_and_secret_values_are_redacted() {
        let block = schema(SCHEMA);
        let value = val(
            &block.implied_type(),
            r#"{"name": "visible", "password": "hunter2", "token": "wo-token", "tags": {"env": "prod", "owner": "s3cr3t-owner"},
                "nested": [{"key": "nested-key", "label": "shown"}],
                "rule": [{"port": 22, "secret": "rule-secret"}, {"port": "?", "secret": null}]}"#,
        );
        let secrets = [path(&[PathStep::Attr("tags".into()), PathStep::Key("owner".into())])];
        let shown = Redaction { block: &block, secrets: &secrets }.value(&value);
        expect![[r#"{"name":"visible","nested":[{"key":"<redacted>","label":"shown"}],"password":"<redacted>","rule":[{"port":22,"secret":"<redacted>"},{"port":"<unknown>","secret":null}],"tags":{"env":"prod","owner":"<redacted>"},"token":"<redacted>"}"#]]
        .assert_eq(&shown.to_string());
    }

    #[test]
    fn a_secret_path_redacts_everything_below_it() {
        let block = schema(SCHEMA);
        let value =
            val(&block.implied_type(), r#"{"name": "n", "rule": [{"port": 1, "secret": null}], "tags": {"a": "b"}}"#);
        let whole_rule = [path(&[PathStep::Attr("rule".into())]), path(&[PathStep::Attr("tags".into())])];
        let shown = Redaction { block: &block, secrets: &whole_rule }.value(&value);
        assert_eq!(shown["rule"], json!(REDACTED));
        assert_eq!(shown["tags"], json!(REDACTED));
        assert_eq!(shown["name"], json!("n"));
        let everything = [path(&[])];
        assert_eq!(Redaction { block: &block, secrets: &everything }.value(&value), json!(REDACTED));
    }

    #[test]
    fn raw_state_json_is_redacted_by_the_same_rules() {
        let block = schema(SCHEMA);
        let raw = br#"{"name":"n","password":"hunter2","rule":[{"port":1,"secret":"x"}],"removed_attr":"kept"}"#;
        let shown = Redaction { block: &block, secrets: &[] }.raw_json(raw);
        expect![[
            r#"{"name":"n","password":"<redacted>","rule":[{"port":1,"secret":"<redacted>"}],"removed_attr":"kept"}"#
        ]]
        .assert_eq(&shown.to_string());
        assert_eq!(
            Redaction { block: &block, secrets: &[] }.raw_json(b"not json"),
            json!("<8 bytes that are not JSON>")
        );
    }
}
