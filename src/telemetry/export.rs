//! Sending spans: the OTLP gRPC exporter, set up from the endpoint the CLI names, reporting
//! its first failure only, and flushed for a bounded time at exit.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opentelemetry::InstrumentationScope;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig as _, WithTonicConfig as _};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};

use super::TRACER;

/// The variable in which the Pulumi CLI names its OTLP gRPC receiver for plugins
/// (`localhost:<port>`).
pub const ENDPOINT_ENV: &str = "PULUMI_OTEL_EXPORTER_OTLP_ENDPOINT";

/// What our spans say they come from: the binary, as the Go implementation's is called too,
/// with our version and language to tell them apart.
const SERVICE_NAME: &str = "pulumi-resource-terraform-provider";

/// How long the last spans may take to leave at exit. The engine kills a plugin 5 s after
/// its SIGINT, and shutdown may already have spent 4 s of that on ephemeral resources and
/// open connections (`server::serve`).
const FLUSH_LIMIT: Duration = Duration::from_secs(1);

/// How long one export may take, connecting included: a receiver on loopback answers at once.
const EXPORT_LIMIT: Duration = Duration::from_secs(3);
const CONNECT_LIMIT: Duration = Duration::from_secs(1);

/// Why traces could not be turned on.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The variable names no address we can send to (we speak OTLP over plaintext gRPC, to
    /// `host:port` or `http://host:port`).
    #[error("{ENDPOINT_ENV}={endpoint:?} is not an OTLP gRPC address (host:port or http://host:port)")]
    InvalidEndpoint { endpoint: String },
    /// The OTLP exporter refused its configuration.
    #[error("cannot set up the OTLP exporter for {endpoint}: {message}")]
    Exporter { endpoint: String, message: String },
    /// [`start`] ran twice in one process.
    #[error("traces are already being sent")]
    AlreadyStarted,
}

/// The exporter while spans are being sent; [`Exporter::finish`] sends the last ones.
#[derive(Debug)]
pub struct Exporter {
    provider: SdkTracerProvider,
    warning: Arc<Warning>,
}

/// Turns traces on, sending to `endpoint` (the value of [`ENDPOINT_ENV`]). Must run inside
/// the tokio runtime that serves: the exporter's connection is driven by it.
pub fn start(endpoint: &str) -> Result<Exporter, StartError> {
    let invalid = || StartError::InvalidEndpoint { endpoint: endpoint.to_owned() };
    let uri = endpoint_uri(endpoint).ok_or_else(invalid)?;
    let channel = tonic::transport::Endpoint::from_shared(uri)
        .map_err(|_| invalid())?
        .connect_timeout(CONNECT_LIMIT)
        .timeout(EXPORT_LIMIT)
        .connect_lazy();
    let otlp = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_channel(channel)
        .with_timeout(EXPORT_LIMIT)
        .build()
        .map_err(|err| StartError::Exporter { endpoint: endpoint.to_owned(), message: err.to_string() })?;
    let warning = Arc::new(Warning { endpoint: endpoint.to_owned(), given: AtomicBool::new(false) });
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(Reporting { inner: otlp, warning: warning.clone() })
        .with_resource(resource())
        .build();
    let scope = InstrumentationScope::builder(SERVICE_NAME).with_version(env!("CARGO_PKG_VERSION")).build();
    TRACER.set(provider.tracer_with_scope(scope)).map_err(|_| StartError::AlreadyStarted)?;
    Ok(Exporter { provider, warning })
}

impl Exporter {
    /// Sends the spans not sent yet, for at most a second. Spans that end later are
    /// dropped.
    pub async fn finish(self) {
        let Exporter { provider, warning } = self;
        // The SDK's batch thread exports over a connection this runtime drives, so the
        // runtime must go on running while we wait.
        let finished = tokio::task::spawn_blocking(move || provider.shutdown_with_timeout(FLUSH_LIMIT)).await;
        match finished {
            Ok(Ok(())) => {}
            Ok(Err(err)) => warning.give(&format!("the last spans were not sent: {err}")),
            Err(err) => warning.give(&format!("the last spans were not sent: {err}")),
        }
    }
}

/// The OTLP gRPC URI of an endpoint as the CLI names it (`localhost:1234`, no scheme), or as
/// a user may (`http://host:4317`); `None` for anything else. TLS is not supported: the CLI's
/// receiver is on loopback.
pub(super) fn endpoint_uri(endpoint: &str) -> Option<String> {
    let endpoint = endpoint.trim();
    let authority = match endpoint.split_once("://") {
        Some(("http", authority)) => authority,
        Some(_) => return None,
        None => endpoint,
    };
    let authority = authority.strip_suffix('/').unwrap_or(authority);
    let (host, port) = authority.rsplit_once(':')?;
    let valid = !host.is_empty()
        && !host.contains(['/', '@', '?', '#', ' '])
        && port.parse::<u16>().is_ok_and(|port| port != 0);
    valid.then(|| format!("http://{authority}"))
}

fn resource() -> Resource {
    Resource::builder_empty()
        .with_service_name(SERVICE_NAME)
        .with_attributes([
            opentelemetry::KeyValue::new("service.version", env!("CARGO_PKG_VERSION")),
            opentelemetry::KeyValue::new("telemetry.sdk.language", "rust"),
        ])
        .build()
}

/// The one warning about sending spans: the first failure is worth a line on stderr, the
/// same failure every batch after it is not.
#[derive(Debug)]
struct Warning {
    endpoint: String,
    given: AtomicBool,
}

impl Warning {
    fn give(&self, problem: &str) {
        if !self.given.swap(true, Ordering::Relaxed) {
            tracing::warn!("OpenTelemetry traces to {}: {problem}; further failures are not reported", self.endpoint);
        }
    }
}

/// The OTLP exporter, reporting its first failure (the SDK reports none: its own logs are off).
#[derive(Debug)]
struct Reporting<E> {
    inner: E,
    warning: Arc<Warning>,
}

impl<E: SpanExporter> SpanExporter for Reporting<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let result = self.inner.export(batch).await;
        if let Err(err) = &result {
            self.warning.give(&format!("cannot send spans: {err}"));
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}
