//! What OpenTelemetry traces cost one engine call with one provider call beneath it (the
//! wrappers `server/` and `tfplugin/` put around each, over futures that are ready at once,
//! so only the wrappers are timed):
//!
//! - `unwrapped`: the two futures alone, the code before traces existed;
//! - `off`: wrapped, with no endpoint (`telemetry::start` never ran), as every run without
//!   `--otel-traces` is;
//! - `on`: wrapped, sending to an OTLP collector on loopback (`tests/common/otel.rs`'s, on a
//!   runtime of its own), with the engine's `traceparent`: two spans made, ended and queued
//!   for the SDK's batch thread.
//!
//! `off` runs before `on`: `start` turns traces on for the rest of the process.
//!
//! Run: `cargo bench --bench telemetry`.

#[path = "../tests/common/otel.rs"]
#[allow(dead_code)] // The benchmark needs only the collector.
mod otel;

use std::borrow::Cow;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use tfbridge::telemetry::{self, EngineContext, SpanName, SpanSubject};

const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

async fn provider_call() -> Result<u32, tonic::Status> {
    Ok(black_box(7))
}

async fn engine_call() -> Result<u32, tonic::Status> {
    provider_call().await
}

/// The same calls as the plugin wraps them.
async fn wrapped() -> Result<u32, tonic::Status> {
    let served = telemetry::served(|| {
        let rpc = SpanName {
            service: "pulumirpc.ResourceProvider",
            method: Cow::Owned("Create".to_owned()),
            subject: Some(SpanSubject::PulumiToken("random:index/pet:Pet")),
        };
        (rpc, EngineContext { traceparent: Some(TRACEPARENT), tracestate: None })
    });
    telemetry::traced(served, async {
        let called = telemetry::called(|| SpanName {
            service: "tfplugin6.Provider",
            method: Cow::Borrowed("PlanResourceChange"),
            subject: Some(SpanSubject::TerraformType("random_pet")),
        });
        telemetry::traced(called, provider_call()).await
    })
    .await
}

fn calls(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let mut group = c.benchmark_group("telemetry: an engine call with a provider call");
    group.bench_function("unwrapped", |b| b.iter(|| runtime.block_on(engine_call())));
    group.bench_function("off", |b| b.iter(|| runtime.block_on(wrapped())));

    let collector_runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build();
    let collector_runtime = collector_runtime.expect("a runtime");
    let collector = collector_runtime.block_on(otel::collector());
    let exporter = {
        let _entered = runtime.enter();
        telemetry::start(&format!("localhost:{}", collector.port)).expect("traces start")
    };
    group.bench_function("on", |b| b.iter(|| runtime.block_on(wrapped())));
    group.finish();
    runtime.block_on(exporter.finish());
    let n_spans: usize = otel::from_exports(&collector.exports()).len();
    println!("the collector got {n_spans} spans");
}

criterion_group!(benches, calls);
criterion_main!(benches);
