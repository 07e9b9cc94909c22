//! Spans as the engine's trace will hold them: parents, names, attributes and outcomes, from a
//! tracer whose exporter keeps what it gets. (The global tracer is the plugin's; these tests
//! use tracers of their own, through the same functions.)

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use expect_test::{Expect, expect};
use opentelemetry::Context;
use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider, SpanData, SpanExporter};

use super::export::endpoint_uri;
use super::{EngineContext, SpanName, SpanSubject, end, start_served, start_span, traced};

/// The engine's span of a call: trace 0af7651916cd43dd8448eb211c80319c, span b7ad6b7169203331.
const ENGINE_TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

#[derive(Clone, Debug, Default)]
struct Kept(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Kept {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        self.0.lock().expect("not poisoned").extend(batch);
        Ok(())
    }
}

fn tracer() -> (SdkTracer, SdkTracerProvider, Kept) {
    let kept = Kept::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(kept.clone()).build();
    (provider.tracer("test"), provider, kept)
}

fn create(subject: &str) -> SpanName<'_> {
    SpanName {
        service: "pulumirpc.ResourceProvider",
        method: Cow::Borrowed("Create"),
        subject: Some(SpanSubject::PulumiToken(subject)),
    }
}

fn plan(subject: &str) -> SpanName<'_> {
    SpanName {
        service: "tfplugin6.Provider",
        method: Cow::Borrowed("PlanResourceChange"),
        subject: Some(SpanSubject::TerraformType(subject)),
    }
}

/// The kept spans in the order they ended, one line each, with ids replaced by the name of the
/// span they belong to (`engine` for the engine's, `-` for none).
fn render(kept: &Kept) -> String {
    let spans = kept.0.lock().expect("not poisoned").clone();
    let name_of = |id: opentelemetry::SpanId| {
        if id == opentelemetry::SpanId::INVALID {
            return "-".to_owned();
        }
        if id.to_string() == "b7ad6b7169203331" {
            return "engine".to_owned();
        }
        spans.iter().find(|span| span.span_context.span_id() == id).map_or("?".to_owned(), |s| s.name.to_string())
    };
    let mut out = String::new();
    for span in &spans {
        let trace = if span.span_context.trace_id().to_string() == "0af7651916cd43dd8448eb211c80319c" {
            "engine's trace"
        } else {
            "own trace"
        };
        let kind = match span.span_kind {
            SpanKind::Server => "server",
            SpanKind::Client => "client",
            _ => "other",
        };
        let attributes: Vec<String> = span.attributes.iter().map(|kv| format!("{}={}", kv.key, kv.value)).collect();
        let status = match &span.status {
            Status::Unset => "unset".to_owned(),
            Status::Ok => "ok".to_owned(),
            Status::Error { description } => format!("error {description:?}"),
        };
        out.push_str(&format!(
            "{} ({kind}, {trace}, parent {}): {} [{status}]\n",
            span.name,
            name_of(span.parent_span_id),
            attributes.join(" ")
        ));
    }
    out
}

fn check(kept: &Kept, expect: Expect) {
    expect.assert_eq(&render(kept));
}

#[tokio::test]
async fn an_engine_call_is_a_child_of_the_engines_span_and_provider_calls_are_its_children() {
    let (tracer, _provider, kept) = tracer();
    let engine = EngineContext { traceparent: Some(ENGINE_TRACEPARENT), tracestate: None };
    let served = start_served(&tracer, &create("random:index/pet:Pet"), engine);
    let answer = traced(Some(served), async {
        // As `called` does: the current context's span is the parent.
        let planned = start_span(&tracer, &plan("random_pet"), SpanKind::Client, &Context::current());
        traced(Some(planned), async { Ok::<_, tonic::Status>("planned") }).await
    })
    .await;
    assert_eq!(answer.expect("answered"), "planned");
    check(
        &kept,
        expect![[r#"
            tfplugin6.Provider/PlanResourceChange (client, engine's trace, parent pulumirpc.ResourceProvider/Create): rpc.system=grpc rpc.service=tfplugin6.Provider rpc.method=PlanResourceChange terraform.type=random_pet rpc.grpc.status_code=0 [unset]
            pulumirpc.ResourceProvider/Create (server, engine's trace, parent engine): rpc.system=grpc rpc.service=pulumirpc.ResourceProvider rpc.method=Create pulumi.token=random:index/pet:Pet rpc.grpc.status_code=0 [unset]
        "#]],
    );
}

#[tokio::test]
async fn a_failure_records_its_code_and_never_its_message() {
    let (tracer, _provider, kept) = tracer();
    let engine = EngineContext { traceparent: Some(ENGINE_TRACEPARENT), tracestate: None };
    let served = start_served(&tracer, &create("fixture:index/flags:Flags"), engine);
    let failed = traced(Some(served), async {
        Err::<(), _>(tonic::Status::invalid_argument("password \"hunter2\" is too short"))
    })
    .await;
    assert_eq!(failed.expect_err("failed").code(), tonic::Code::InvalidArgument);
    let shown = render(&kept);
    assert!(!shown.contains("hunter2"), "{shown}");
    assert!(!format!("{:?}", kept.0.lock().expect("not poisoned")).contains("hunter2"), "no field holds it");
    check(
        &kept,
        expect![[r#"
            pulumirpc.ResourceProvider/Create (server, engine's trace, parent engine): rpc.system=grpc rpc.service=pulumirpc.ResourceProvider rpc.method=Create pulumi.token=fixture:index/flags:Flags rpc.grpc.status_code=3 [error "InvalidArgument"]
        "#]],
    );
}

#[tokio::test]
async fn without_a_usable_traceparent_a_call_starts_a_trace_of_its_own() {
    let (tracer, _provider, kept) = tracer();
    let cases = [
        None,
        Some("not a traceparent"),
        // An all-zero trace id is invalid (W3C Trace Context).
        Some("00-00000000000000000000000000000000-b7ad6b7169203331-01"),
    ];
    for traceparent in cases {
        let span =
            start_served(&tracer, &create("random:index/pet:Pet"), EngineContext { traceparent, tracestate: None });
        end(&span, None);
    }
    check(
        &kept,
        expect![[r#"
            pulumirpc.ResourceProvider/Create (server, own trace, parent -): rpc.system=grpc rpc.service=pulumirpc.ResourceProvider rpc.method=Create pulumi.token=random:index/pet:Pet rpc.grpc.status_code=0 [unset]
            pulumirpc.ResourceProvider/Create (server, own trace, parent -): rpc.system=grpc rpc.service=pulumirpc.ResourceProvider rpc.method=Create pulumi.token=random:index/pet:Pet rpc.grpc.status_code=0 [unset]
            pulumirpc.ResourceProvider/Create (server, own trace, parent -): rpc.system=grpc rpc.service=pulumirpc.ResourceProvider rpc.method=Create pulumi.token=random:index/pet:Pet rpc.grpc.status_code=0 [unset]
        "#]],
    );
}

#[tokio::test]
async fn a_call_given_up_on_still_ends_its_span() {
    let (tracer, _provider, kept) = tracer();
    let span = start_span(&tracer, &plan("random_pet"), SpanKind::Client, &Context::new());
    let never = traced(Some(span), std::future::pending::<Result<(), tonic::Status>>());
    // As `tokio::select!` drops the losing branch.
    let timed_out = tokio::time::timeout(std::time::Duration::from_millis(1), never).await;
    assert!(timed_out.is_err());
    check(
        &kept,
        expect![[r#"
            tfplugin6.Provider/PlanResourceChange (client, own trace, parent -): rpc.system=grpc rpc.service=tfplugin6.Provider rpc.method=PlanResourceChange terraform.type=random_pet [unset]
        "#]],
    );
}

#[tokio::test]
async fn without_a_span_the_call_only_runs() {
    let answer = traced(None, async { Ok::<_, tonic::Status>(7) }).await;
    assert_eq!(answer.expect("answered"), 7);
}

#[test]
fn endpoints_as_the_cli_and_users_name_them() {
    let cases = [
        // What the CLI hands plugins.
        ("localhost:43567", Some("http://localhost:43567")),
        ("127.0.0.1:4317", Some("http://127.0.0.1:4317")),
        ("[::1]:4317", Some("http://[::1]:4317")),
        (" localhost:4317\n", Some("http://localhost:4317")),
        ("http://collector.example:4317", Some("http://collector.example:4317")),
        ("http://collector.example:4317/", Some("http://collector.example:4317")),
        // No TLS, and no other schemes: the CLI's own destinations are never handed over.
        ("https://collector.example:4317", None),
        ("grpc://collector.example:4317", None),
        ("file:///tmp/trace.json", None),
        ("localhost", None),
        ("localhost:0", None),
        ("localhost:http", None),
        (":4317", None),
        ("user@host:4317", None),
        ("host/path:4317", None),
        ("", None),
    ];
    for (endpoint, want) in cases {
        assert_eq!(endpoint_uri(endpoint).as_deref(), want, "{endpoint:?}");
    }
}
