//! OpenTelemetry traces: a span for every call the engine makes to us and, beneath it, one
//! for every call we make to the Terraform provider, sent to the OTLP endpoint the Pulumi CLI
//! names.
//!
//! `pulumi up --otel-traces <destination>` (CLI 3.274 and later) runs an OTLP gRPC receiver on
//! loopback, hands every plugin its address (`localhost:<port>`, no scheme) in
//! [`ENDPOINT_ENV`], and writes what it receives, its own spans and ours, to the destination.
//! The engine's gRPC client puts the W3C trace context of its span of each call in the
//! request's metadata (`traceparent`, `tracestate`): our span of the call is that span's child
//! ([`served`]). A provider call's span is the child of whatever span is current ([`called`]):
//! [`traced`] makes a span current while its call runs, so the provider calls an engine call
//! makes nest under it. (A call from a task of its own, such as an ephemeral resource's
//! renewal, starts a trace of its own.)
//!
//! `main` calls [`start`] only when the variable names an endpoint; until then [`served`] and
//! [`called`] return `None` without building anything, and [`traced`] only awaits the call.
//! Spans leave in batches from the SDK's own thread; [`Exporter::finish`] sends the last ones,
//! for at most a second, so an endpoint that is gone never holds up the plugin's exit, and a
//! failing export is reported once, not per batch.
//!
//! Architecture invariant: a span holds names only (the RPC, a type token, a Terraform type or
//! function name), never a value from a request or an answer, and a failed call's span holds
//! its gRPC code, never its message: providers' messages quote the configuration they reject.
//! Knows nothing of `pulumirpc` or `tfplugin` types; `server` and `tfplugin` describe their
//! calls in [`SpanName`].

mod export;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::future::Future;
use std::sync::OnceLock;

use opentelemetry::context::FutureExt as _;
use opentelemetry::propagation::{Extractor, TextMapPropagator as _};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt as _, Tracer as _};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracer;

pub use export::{ENDPOINT_ENV, Exporter, StartError, start};

/// The tracer [`start`] made; unset while traces are off.
static TRACER: OnceLock<SdkTracer> = OnceLock::new();

/// Whether spans are being made and sent.
pub fn enabled() -> bool {
    TRACER.get().is_some()
}

/// A gRPC call as its span names it: `<service>/<method>`, as the engine names its own span
/// of the same call.
#[derive(Clone, Debug)]
pub struct SpanName<'a> {
    /// The gRPC service: `pulumirpc.ResourceProvider`, `tfplugin6.Provider`.
    pub service: &'a str,
    /// The method as the wire names it: `Create`, `PlanResourceChange`.
    pub method: Cow<'a, str>,
    pub subject: Option<SpanSubject<'a>>,
}

/// What a call is about, by name. Never a value: a name is all a span may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpanSubject<'a> {
    /// A Pulumi resource type or function token (`random:index/pet:Pet`).
    PulumiToken(&'a str),
    /// A Terraform resource, data source, ephemeral resource, list resource or action type
    /// (`random_pet`).
    TerraformType(&'a str),
    /// A Terraform provider function's name.
    TerraformFunction(&'a str),
}

impl SpanSubject<'_> {
    fn attribute(self) -> KeyValue {
        match self {
            SpanSubject::PulumiToken(token) => KeyValue::new("pulumi.token", token.to_owned()),
            SpanSubject::TerraformType(name) => KeyValue::new("terraform.type", name.to_owned()),
            SpanSubject::TerraformFunction(name) => KeyValue::new("terraform.function", name.to_owned()),
        }
    }
}

/// The engine's trace context of a call, as the request's metadata carries it.
#[derive(Clone, Copy, Debug, Default)]
pub struct EngineContext<'a> {
    pub traceparent: Option<&'a str>,
    pub tracestate: Option<&'a str>,
}

impl Extractor for EngineContext<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => self.traceparent,
            "tracestate" => self.tracestate,
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        let present = [("traceparent", self.traceparent), ("tracestate", self.tracestate)];
        present.into_iter().filter_map(|(key, value)| value.map(|_| key)).collect()
    }
}

/// A started span, inside the context that holds it (the parent of calls made within it).
/// Dropped unfinished (its call was cancelled), it still ends and is sent, without a status.
#[derive(Debug)]
pub struct Span {
    cx: Context,
}

/// A failed call as its span records it: the gRPC status code, when there is one.
pub trait SpanError {
    fn grpc_code(&self) -> Option<tonic::Code>;
}

impl SpanError for tonic::Status {
    fn grpc_code(&self) -> Option<tonic::Code> {
        Some(self.code())
    }
}

/// The span of a call the engine made to us, the child of the engine's span of it. `describe`
/// runs only when traces are on.
pub fn served<'a>(describe: impl FnOnce() -> (SpanName<'a>, EngineContext<'a>)) -> Option<Span> {
    let tracer = TRACER.get()?;
    let (rpc, engine) = describe();
    Some(start_served(tracer, &rpc, engine))
}

/// The span of a call we make to the Terraform provider, the child of the current span (the
/// engine's call it serves). `describe` runs only when traces are on.
pub fn called<'a>(describe: impl FnOnce() -> SpanName<'a>) -> Option<Span> {
    let tracer = TRACER.get()?;
    Some(start_span(tracer, &describe(), SpanKind::Client, &Context::current()))
}

/// Runs `call` with `span` current, so the calls it makes become the span's children, then
/// ends the span with the call's outcome. Without a span, only awaits `call`.
pub async fn traced<T, E: SpanError>(span: Option<Span>, call: impl Future<Output = Result<T, E>>) -> Result<T, E> {
    let Some(span) = span else {
        return call.await;
    };
    let result = call.with_context(span.cx.clone()).await;
    end(&span, result.as_ref().err().map(SpanError::grpc_code));
    result
}

fn start_served(tracer: &SdkTracer, rpc: &SpanName<'_>, engine: EngineContext<'_>) -> Span {
    // A missing or malformed `traceparent` gives a context without a span: a trace of its own.
    let parent = TraceContextPropagator::new().extract(&engine);
    start_span(tracer, rpc, SpanKind::Server, &parent)
}

fn start_span(tracer: &SdkTracer, rpc: &SpanName<'_>, kind: SpanKind, parent: &Context) -> Span {
    let mut attributes = vec![
        KeyValue::new("rpc.system", "grpc"),
        KeyValue::new("rpc.service", rpc.service.to_owned()),
        KeyValue::new("rpc.method", rpc.method.clone().into_owned()),
    ];
    attributes.extend(rpc.subject.map(SpanSubject::attribute));
    let builder =
        tracer.span_builder(format!("{}/{}", rpc.service, rpc.method)).with_kind(kind).with_attributes(attributes);
    let span = tracer.build_with_context(builder, parent);
    Span { cx: parent.with_span(span) }
}

/// Ends `span` with its call's outcome: `None` for success, else the failure's gRPC code (a
/// failure without one, such as an answer we could not read, is an error all the same).
fn end(span: &Span, failure: Option<Option<tonic::Code>>) {
    let otel_span = span.cx.span();
    match failure {
        None => otel_span.set_attribute(KeyValue::new("rpc.grpc.status_code", tonic::Code::Ok as i64)),
        Some(code) => {
            if let Some(code) = code {
                otel_span.set_attribute(KeyValue::new("rpc.grpc.status_code", code as i64));
            }
            // The code's name only: the message may quote configuration.
            let description = code.map_or(Cow::Borrowed("invalid response"), |code| Cow::Owned(format!("{code:?}")));
            otel_span.set_status(Status::error(description));
        }
    }
    otel_span.end();
}
