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
use crate::tfplugin::Rpc;
use crate::tfplugin::core_rpcs::ApplyResourceChangeRequest;
use crate::tfplugin::core_rpcs::{
    ApplyResourceChangeResponse, CallFunctionResponse, Diagnostic, DynamicValue, ImportResourceStateResponse,
    PlanResourceChangeRequest, PlanResourceChangeResponse, ProviderMetadata, ProviderSchemaResponse, RawState,
    ReadDataSourceResponse, ReadResourceResponse, Severity, Support, UpgradeResourceStateRequest,
    UpgradeResourceStateResponse, ValidateProviderConfigResponse,
};

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
        let opened = open_private(std::path::Path::new(&path));
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

/// Opens the log for appending, readable by its owner only: it holds every value a provider
/// is sent (secrets redacted, the rest not). On Unix a new file gets mode 0600. Windows has
/// no mode bits: a new file inherits its folder's access control list, which for the user's
/// profile and temporary folders (where such logs go) grants the user, SYSTEM and
/// Administrators only; an existing file keeps its own, as with Unix.
fn open_private(path: &std::path::Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// One call as the log names it: the RPC, the type it is about, and how to show its
/// values (the type's schema and the secret paths the caller passed).
pub struct Call<'a> {
    rpc: Rpc,
    type_name: Option<&'a str>,
    block: Option<&'a Block>,
    secrets: Vec<Path>,
}

impl<'a> Call<'a> {
    /// A call about the provider as a whole: nothing in it is shown by schema.
    pub fn provider(rpc: Rpc) -> Call<'a> {
        Call { rpc, type_name: None, block: None, secrets: Vec::new() }
    }

    /// A call about the provider's configuration, whose values are of `block`'s type;
    /// `secrets` are the paths its values hold Pulumi secrets at.
    pub fn of_provider(rpc: Rpc, block: &'a Block, secrets: &[Path]) -> Call<'a> {
        let secrets = if enabled() { secrets.to_vec() } else { Vec::new() };
        Call { rpc, type_name: None, block: Some(block), secrets }
    }

    /// A call about `type_name` whose values are not shown by schema (they are counted, or
    /// not logged at all).
    pub fn named(rpc: Rpc, type_name: &'a str) -> Call<'a> {
        Call { rpc, type_name: Some(type_name), block: None, secrets: Vec::new() }
    }

    /// A call about `type_name`, whose values are of `block`'s type; `secrets` are the paths
    /// the operation's values hold Pulumi secrets at.
    pub fn of_type(rpc: Rpc, type_name: &'a str, block: &'a Block, secrets: &[Path]) -> Call<'a> {
        let secrets = if enabled() { secrets.to_vec() } else { Vec::new() };
        Call { rpc, type_name: Some(type_name), block: Some(block), secrets }
    }

    fn redaction(&self) -> Redaction<'_> {
        static NO_SCHEMA: OnceLock<Block> = OnceLock::new();
        Redaction { block: self.block.unwrap_or_else(|| NO_SCHEMA.get_or_init(Block::default)), secrets: &self.secrets }
    }
}

/// What the log shows of a request; each variant is one message's shape.
pub enum Request<'a> {
    /// No arguments: `{}`.
    Empty,
    /// `{"config"}`, the configuration as the operation built it.
    Config(&'a Value),
    /// ConfigureProvider's `{"terraform_version", "config"}`.
    Configure {
        terraform_version: &'a str,
        config: &'a Value,
    },
    /// CallFunction's arguments, only counted: parameters carry no sensitivity in the schema.
    Arguments(usize),
    /// UpgradeResourceState's stored state, redacted like a value (a flatmap wholly).
    UpgradeState(&'a UpgradeResourceStateRequest),
    /// ReadResource's current state and private bytes.
    Read {
        current: &'a Value,
        private: &'a [u8],
    },
    /// ImportResourceState's ID, and whether it went by identity (never its value).
    Import {
        id: &'a str,
        by_identity: bool,
    },
    Plan(&'a PlanResourceChangeRequest),
    Apply(&'a ApplyResourceChangeRequest),
    /// A call whose values are never logged (ephemeral resources, actions, list queries,
    /// identities, generated configuration): `{"<field>": "(not logged)"}` or `{}`, and the
    /// answer only as `"answered"`.
    NotLogged(Option<&'static str>),
}

impl Request<'_> {
    fn shown(&self, r: &Redaction<'_>) -> Json {
        match self {
            Request::Empty | Request::NotLogged(None) => json!({}),
            Request::NotLogged(Some(field)) => json!({ *field: NOT_LOGGED }),
            Request::Config(config) => json!({ "config": r.value(config) }),
            Request::Configure { terraform_version, config } => {
                json!({ "terraform_version": terraform_version, "config": r.value(config) })
            }
            Request::Arguments(n_arguments) => json!({ "arguments": format!("<{n_arguments} arguments>") }),
            Request::UpgradeState(request) => {
                let raw = match &request.raw_state {
                    RawState::Json(bytes) => r.raw_json(bytes),
                    RawState::Flatmap(_) => json!(REDACTED),
                };
                json!({ "version": request.version, "raw_state": raw })
            }
            Request::Read { current, private: bytes } => {
                json!({ "current_state": r.value(current), "private": private(bytes) })
            }
            Request::Import { id, by_identity } => {
                json!({ "id": id, "identity": by_identity.then_some("(identity)") })
            }
            Request::Plan(request) => json!({
                "prior_state": r.dynamic(&request.prior_state),
                "proposed_new_state": r.dynamic(&request.proposed_new_state),
                "config": r.dynamic(&request.config),
                "prior_private": private(&request.prior_private),
            }),
            Request::Apply(request) => json!({
                "prior_state": r.dynamic(&request.prior_state),
                "planned_state": r.dynamic(&request.planned_state),
                "config": r.dynamic(&request.config),
                "planned_private": private(&request.planned_private),
            }),
        }
    }
}

const NOT_LOGGED: &str = "(not logged)";

/// What the log shows of an answer; implemented here once per answer type.
pub trait Answer {
    fn shown(&self, r: &Redaction<'_>) -> Json;
}

/// Runs `call`; when the log is on, appends its request, its answer or error, and its
/// duration as one line.
pub async fn logged<T: Answer, E: std::fmt::Display>(
    call: Call<'_>,
    request: Request<'_>,
    answer: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    let opaque = matches!(request, Request::NotLogged(_));
    write_entry(call, request, answer, |answer, r| if opaque { json!("answered") } else { answer.shown(r) }).await
}

/// [`logged`] for a call whose values are never logged ([`Request::NotLogged`]), whatever
/// its answer's type.
pub async fn not_logged<T, E: std::fmt::Display>(
    call: Call<'_>,
    field: Option<&'static str>,
    answer: impl Future<Output = Result<T, E>>,
) -> Result<T, E> {
    write_entry(call, Request::NotLogged(field), answer, |_, _| json!("answered")).await
}

async fn write_entry<T, E: std::fmt::Display>(
    call: Call<'_>,
    request: Request<'_>,
    answer: impl Future<Output = Result<T, E>>,
    shown: impl FnOnce(&T, &Redaction<'_>) -> Json,
) -> Result<T, E> {
    let Some(file) = log_file() else {
        return answer.await;
    };
    let redaction = call.redaction();
    let request = request.shown(&redaction);
    let timestamp = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let started = Instant::now();
    let result = answer.await;
    let duration = started.elapsed();
    let mut entry = Map::new();
    entry.insert("method".into(), json!(call.rpc.v6_name()));
    if let Some(type_name) = call.type_name {
        entry.insert("type_name".into(), json!(type_name));
    }
    entry.insert("request".into(), request);
    match &result {
        Ok(answer) => entry.insert("response".into(), shown(answer, &redaction)),
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

impl Answer for Vec<Diagnostic> {
    fn shown(&self, _: &Redaction<'_>) -> Json {
        json!({ "diagnostics": diagnostics(self) })
    }
}

impl Answer for ValidateProviderConfigResponse {
    fn shown(&self, _: &Redaction<'_>) -> Json {
        json!({ "diagnostics": diagnostics(&self.diagnostics) })
    }
}

impl Answer for ProviderSchemaResponse {
    fn shown(&self, _: &Redaction<'_>) -> Json {
        json!({
            "resources": self.schema.resources.len(),
            "data_sources": self.schema.data_sources.len(),
            "functions": self.schema.functions.len(),
            "capabilities": self.capabilities,
            "diagnostics": diagnostics(&self.diagnostics),
        })
    }
}

impl Answer for Support<ProviderMetadata> {
    fn shown(&self, _: &Redaction<'_>) -> Json {
        match self {
            Support::Supported(m) => json!({
                "capabilities": m.capabilities,
                "resources": m.resources.len(),
                "data_sources": m.data_sources.len(),
                "functions": m.functions.len(),
            }),
            Support::Unsupported => json!("unimplemented"),
        }
    }
}

impl Answer for ReadDataSourceResponse {
    fn shown(&self, r: &Redaction<'_>) -> Json {
        json!({ "state": r.dynamic(&self.state), "diagnostics": diagnostics(&self.diagnostics) })
    }
}

impl Answer for Support<CallFunctionResponse> {
    /// The result is secret to the log: a function of secret arguments returns secrets.
    fn shown(&self, _: &Redaction<'_>) -> Json {
        match self {
            Support::Supported(r) => json!({
                "result": if r.error.is_some() { json!(null) } else { json!(REDACTED) },
                "error": r.error.as_ref().map(|e| e.text.clone()),
            }),
            Support::Unsupported => json!("unimplemented"),
        }
    }
}

impl Answer for UpgradeResourceStateResponse {
    fn shown(&self, r: &Redaction<'_>) -> Json {
        json!({ "upgraded_state": r.dynamic(&self.upgraded_state), "diagnostics": diagnostics(&self.diagnostics) })
    }
}

impl Answer for ReadResourceResponse {
    fn shown(&self, r: &Redaction<'_>) -> Json {
        new_state(r, &self.new_state, &self.private, &self.diagnostics)
    }
}

impl Answer for ImportResourceStateResponse {
    fn shown(&self, r: &Redaction<'_>) -> Json {
        let imported: Vec<_> = self
            .imported_resources
            .iter()
            .map(|i| json!({ "type_name": i.type_name, "state": r.dynamic(&i.state) }))
            .collect();
        json!({ "imported_resources": imported, "diagnostics": diagnostics(&self.diagnostics) })
    }
}

impl Answer for PlanResourceChangeResponse {
    fn shown(&self, r: &Redaction<'_>) -> Json {
        json!({
            "planned_state": r.dynamic(&self.planned_state),
            "requires_replace": self.requires_replace.iter().map(ToString::to_string).collect::<Vec<_>>(),
            "planned_private": private(&self.planned_private),
            "legacy_type_system": self.legacy_type_system,
            "diagnostics": diagnostics(&self.diagnostics),
        })
    }
}

impl Answer for ApplyResourceChangeResponse {
    fn shown(&self, r: &Redaction<'_>) -> Json {
        new_state(r, &self.new_state, &self.private, &self.diagnostics)
    }
}

/// What ReadResource and ApplyResourceChange answer alike: the new state and private bytes.
fn new_state(r: &Redaction<'_>, state: &DynamicValue, private_bytes: &[u8], diagnosed: &[Diagnostic]) -> Json {
    json!({ "new_state": r.dynamic(state), "private": private(private_bytes), "diagnostics": diagnostics(diagnosed) })
}

/// StopProvider's answer: the provider's error text, if any.
impl Answer for Option<String> {
    fn shown(&self, _: &Redaction<'_>) -> Json {
        json!({ "error": self })
    }
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
fn diagnostics(diagnostics: &[Diagnostic]) -> Json {
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
fn private(bytes: &[u8]) -> Json {
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
mod tests;
