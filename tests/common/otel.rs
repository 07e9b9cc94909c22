//! OpenTelemetry spans as the tests read them, from what an OTLP receiver got (the hermetic
//! tier's collector, [`collector`]) or from the trace file of `pulumi up --otel-traces
//! file://…` (OTLP JSON, one export per line, [`from_trace_file`]), and drawn as a tree.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{TraceService, TraceServiceServer};
use opentelemetry_proto::tonic::collector::trace::v1::{ExportTraceServiceRequest, ExportTraceServiceResponse};
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use serde_json::Value as Json;

/// One span, with what the tests look at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// The `service.name` of the process that sent it.
    pub service: String,
    /// Ids in lower-case hex; `parent_span_id` is empty for a root.
    pub trace_id: String,
    pub span_id: String,
    pub parent_span_id: String,
    pub name: String,
    /// `server`, `client`, `internal`, …
    pub kind: &'static str,
    pub start_unix_nano: u64,
    /// Every attribute's value as text.
    pub attributes: BTreeMap<String, String>,
    /// The status message of a failed span.
    pub error: Option<String>,
}

fn kind_name(kind: i64) -> &'static str {
    match kind {
        1 => "internal",
        2 => "server",
        3 => "client",
        4 => "producer",
        5 => "consumer",
        _ => "unspecified",
    }
}

/// The spans of an OTLP JSON trace file (the CLI writes one `ExportTraceServiceRequest` per
/// line).
pub fn from_trace_file(text: &str) -> anyhow::Result<Vec<Span>> {
    let mut spans = Vec::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let export: Json = serde_json::from_str(line)?;
        for resource_spans in export["resourceSpans"].as_array().into_iter().flatten() {
            let resource = json_attributes(&resource_spans["resource"]["attributes"]);
            let service = resource.get("service.name").cloned().unwrap_or_default();
            for scope_spans in resource_spans["scopeSpans"].as_array().into_iter().flatten() {
                for span in scope_spans["spans"].as_array().into_iter().flatten() {
                    let text = |key: &str| span[key].as_str().unwrap_or_default().to_owned();
                    spans.push(Span {
                        service: service.clone(),
                        trace_id: text("traceId"),
                        span_id: text("spanId"),
                        parent_span_id: text("parentSpanId"),
                        name: text("name"),
                        kind: kind_name(span["kind"].as_i64().unwrap_or_default()),
                        start_unix_nano: text("startTimeUnixNano").parse().unwrap_or_default(),
                        attributes: json_attributes(&span["attributes"]),
                        error: (span["status"]["code"].as_i64() == Some(2))
                            .then(|| span["status"]["message"].as_str().unwrap_or_default().to_owned()),
                    });
                }
            }
        }
    }
    Ok(spans)
}

fn json_attributes(attributes: &Json) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for attribute in attributes.as_array().into_iter().flatten() {
        let key = attribute["key"].as_str().unwrap_or_default().to_owned();
        let value = match attribute["value"].as_object().and_then(|value| value.values().next()) {
            Some(Json::String(text)) => text.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        map.insert(key, value);
    }
    map
}

/// The spans of OTLP exports as a receiver got them.
pub fn from_exports(exports: &[ExportTraceServiceRequest]) -> Vec<Span> {
    let mut spans = Vec::new();
    for resource_spans in exports.iter().flat_map(|export| &export.resource_spans) {
        let resource =
            resource_spans.resource.as_ref().map(|resource| proto_attributes(&resource.attributes)).unwrap_or_default();
        let service = resource.get("service.name").cloned().unwrap_or_default();
        for span in resource_spans.scope_spans.iter().flat_map(|scope| &scope.spans) {
            let error = span.status.as_ref().filter(|status| status.code == 2).map(|status| status.message.clone());
            spans.push(Span {
                service: service.clone(),
                trace_id: hex(&span.trace_id),
                span_id: hex(&span.span_id),
                parent_span_id: hex(&span.parent_span_id),
                name: span.name.clone(),
                kind: kind_name(i64::from(span.kind)),
                start_unix_nano: span.start_time_unix_nano,
                attributes: proto_attributes(&span.attributes),
                error,
            });
        }
    }
    spans
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn proto_attributes(attributes: &[opentelemetry_proto::tonic::common::v1::KeyValue]) -> BTreeMap<String, String> {
    attributes
        .iter()
        .map(|kv| {
            let value = match kv.value.as_ref().and_then(|value| value.value.as_ref()) {
                Some(AnyValue::StringValue(text)) => text.clone(),
                Some(AnyValue::IntValue(number)) => number.to_string(),
                Some(AnyValue::BoolValue(flag)) => flag.to_string(),
                Some(other) => format!("{other:?}"),
                None => String::new(),
            };
            (kv.key.clone(), value)
        })
        .collect()
}

/// `spans` as indented trees, each root (a span whose parent is not among them) with what
/// `label` says of its parent, children in the order they started. A line shows the span's
/// name, the token or Terraform type it names, and a failure's status.
pub fn tree(spans: &[Span], label: impl Fn(&str) -> String) -> String {
    let mut sorted: Vec<&Span> = spans.iter().collect();
    sorted.sort_by_key(|span| span.start_unix_nano);
    let known = |id: &str| spans.iter().any(|span| span.span_id == id);
    let mut out = String::new();
    for root in sorted.iter().filter(|span| !known(&span.parent_span_id)) {
        out.push_str(&format!("under {}:\n", label(&root.parent_span_id)));
        draw(root, &sorted, 1, &mut out);
    }
    out
}

fn draw(span: &Span, sorted: &[&Span], depth: usize, out: &mut String) {
    let mut line = format!("{}{} ({})", "  ".repeat(depth), span.name, span.kind);
    for key in ["pulumi.token", "terraform.type", "terraform.function"] {
        if let Some(value) = span.attributes.get(key) {
            line.push_str(&format!(" {key}={value}"));
        }
    }
    if let Some(error) = &span.error {
        line.push_str(&format!(" error={error}"));
    }
    out.push_str(&line);
    out.push('\n');
    for child in sorted.iter().filter(|child| child.parent_span_id == span.span_id) {
        draw(child, sorted, depth + 1, out);
    }
}

/// An OTLP gRPC receiver on loopback that keeps every export, as the Pulumi CLI's does. Its
/// server task ends with the test's runtime.
pub struct Collector {
    pub port: u16,
    exports: Arc<Mutex<Vec<ExportTraceServiceRequest>>>,
}

struct Keeper(Arc<Mutex<Vec<ExportTraceServiceRequest>>>);

#[tonic::async_trait]
impl TraceService for Keeper {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        self.0.lock().expect("not poisoned").push(request.into_inner());
        Ok(tonic::Response::new(ExportTraceServiceResponse { partial_success: None }))
    }
}

/// Starts a [`Collector`] on a port the system picks.
pub async fn collector() -> Collector {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binds a loopback port");
    let port = listener.local_addr().expect("a local address").port();
    let exports = Arc::new(Mutex::new(Vec::new()));
    let service = TraceServiceServer::new(Keeper(exports.clone()));
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    Collector { port, exports }
}

impl Collector {
    /// Every export received so far.
    pub fn exports(&self) -> Vec<ExportTraceServiceRequest> {
        self.exports.lock().expect("not poisoned").clone()
    }
}
