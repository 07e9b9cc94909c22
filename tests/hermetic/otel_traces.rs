//! OpenTelemetry traces, as `pulumi up --otel-traces` collects them: our plugin, told where
//! the CLI's OTLP receiver is by `PULUMI_OTEL_EXPORTER_OTLP_ENDPOINT` (`localhost:<port>`),
//! sends a span for each call the engine makes, the child of the engine's span whose W3C
//! trace context comes in the request's `traceparent` metadata, and beneath it a span for each
//! call to the Terraform provider. No span holds a value, secret or not. With no receiver
//! there, the run goes on and exits on time, with one warning.
//!
//! The receiver is a tonic server on loopback ([`common::otel::collector`]); the fixture
//! provider serves protocol 6. Needs `cargo build -p terraform-provider-fixture`.

use crate::common;

use std::ffi::OsStr;
use std::time::{Duration, Instant};

use common::engine_client::{from_struct, secret, to_struct, urn};
use common::otel;
use common::plugin::Plugin;
use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::parameterize_request::{Parameters, ParametersArgs};

const ENDPOINT_ENV: &str = "PULUMI_OTEL_EXPORTER_OTLP_ENDPOINT";
const FLAGS: &str = "fixture:index/flags:Flags";
/// The trace the stand-in engine's spans belong to.
const ENGINE_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
/// Values that must appear in no span: a secret setting, a sensitive argument, a secret
/// data-source argument.
const SECRETS: [&str; 3] = ["provider-token-8a1f", "hunter2-5c0e", "looked-up-77d2"];

/// The engine's side of tracing: each call gets a span id of its own in [`ENGINE_TRACE`],
/// sent as `traceparent`, and remembered by the call's name.
#[derive(Default)]
struct Engine {
    calls: Vec<(String, &'static str)>,
}

impl Engine {
    fn call<T>(&mut self, name: &'static str, message: T) -> tonic::Request<T> {
        let span_id = format!("{:016x}", 0xe000 + self.calls.len());
        let mut request = tonic::Request::new(message);
        let traceparent = format!("00-{ENGINE_TRACE}-{span_id}-01");
        request.metadata_mut().insert("traceparent", traceparent.parse().expect("ASCII"));
        self.calls.push((span_id, name));
        request
    }

    /// How a tree names a parent outside our spans.
    fn label(&self, span_id: &str) -> String {
        match self.calls.iter().find(|(id, _)| id == span_id) {
            Some((_, name)) => format!("the engine's {name}"),
            None if span_id.is_empty() => "no parent".to_owned(),
            None => format!("unknown span {span_id}"),
        }
    }
}

/// Our plugin serving the fixture, sending traces to `endpoint`, its stderr kept in a file.
fn plugin(endpoint: &str, extra_env: &[(&str, &OsStr)]) -> (Plugin, std::path::PathBuf, std::path::PathBuf) {
    let store = common::scratch_dir("otel-store");
    let dir = common::fixture::wrapper_dir("6", &[("FIXTURE_STORE_DIR", store.to_str().expect("UTF-8"))])
        .expect("the fixture provider is built");
    let stderr = common::scratch_dir("otel-stderr").join("stderr.log");
    let mut env = vec![(ENDPOINT_ENV, OsStr::new(endpoint)), ("PULUMI_TF_SCHEMA_CACHE", OsStr::new("off"))];
    env.extend_from_slice(extra_env);
    let file = std::fs::File::create(&stderr).expect("a stderr file");
    let plugin = Plugin::start_with_stderr(&common::our_plugin(), &["127.0.0.1:9"], &env, file);
    (plugin, dir.join("terraform-provider-fixture"), stderr)
}

/// The engine's calls of a short deployment: parameterize, configure with a secret setting,
/// create and delete a resource with a sensitive argument, read a data source with a secret
/// argument. Returns how long the calls took.
async fn deploy(plugin: &Plugin, provider: &std::path::Path, engine: &mut Engine) -> Duration {
    let started = Instant::now();
    let mut client = plugin.client().await;
    let args = vec![provider.to_str().expect("UTF-8").to_owned()];
    let parameters = Some(Parameters::Args(ParametersArgs { args }));
    let package = client
        .parameterize(engine.call("Parameterize", pulumirpc::ParameterizeRequest { parameters }))
        .await
        .expect("Parameterize")
        .into_inner()
        .name;
    let provider_urn = format!("urn:pulumi:test::otel::pulumi:providers:{package}::default");
    let config = json!({
        "endpoint": "http://127.0.0.1:9",
        "maxRetries": 3,
        "version": "0.0.0",
        "token": secret(json!(SECRETS[0])),
    });
    let checked = client
        .check_config(engine.call(
            "CheckConfig",
            pulumirpc::CheckRequest {
                urn: provider_urn.clone(),
                olds: Some(to_struct(&json!({}))),
                news: Some(to_struct(&config)),
                ..Default::default()
            },
        ))
        .await
        .expect("CheckConfig")
        .into_inner();
    let configure = pulumirpc::ConfigureRequest {
        args: checked.inputs,
        accept_secrets: true,
        accept_resources: true,
        urn: Some(provider_urn),
        ..Default::default()
    };
    client.configure(engine.call("Configure", configure)).await.expect("Configure");

    let flags = urn(FLAGS, "traced");
    let news = json!({"name": "one", "password": SECRETS[1]});
    let check = pulumirpc::CheckRequest {
        urn: flags.clone(),
        olds: Some(to_struct(&json!({}))),
        news: Some(to_struct(&news)),
        r#type: FLAGS.to_owned(),
        name: "traced".to_owned(),
        random_seed: vec![7; 32],
        ..Default::default()
    };
    let checked = client.check(engine.call("Check", check)).await.expect("Check").into_inner();
    assert!(checked.failures.is_empty(), "{:?}", checked.failures);
    let create = pulumirpc::CreateRequest {
        urn: flags.clone(),
        properties: checked.inputs.clone(),
        r#type: FLAGS.to_owned(),
        name: "traced".to_owned(),
        ..Default::default()
    };
    let created = client.create(engine.call("Create", create)).await.expect("Create").into_inner();
    let delete = pulumirpc::DeleteRequest {
        id: created.id,
        urn: flags,
        properties: created.properties,
        old_inputs: checked.inputs,
        r#type: FLAGS.to_owned(),
        name: "traced".to_owned(),
        ..Default::default()
    };
    client.delete(engine.call("Delete", delete)).await.expect("Delete");

    let invoke = pulumirpc::InvokeRequest {
        tok: "fixture:index/getLookup:getLookup".to_owned(),
        args: Some(to_struct(&json!({"name": secret(json!(SECRETS[2]))}))),
        preview: false,
    };
    let looked_up = client.invoke(engine.call("Invoke", invoke)).await.expect("Invoke").into_inner();
    let shown = looked_up.r#return.as_ref().map(from_struct).unwrap_or(Json::Null);
    assert!(looked_up.failures.is_empty(), "{shown}");
    started.elapsed()
}

/// Sends SIGINT, as the engine does at the end, and waits for the exit.
fn stop(plugin: &mut Plugin) -> Duration {
    let stopping = Instant::now();
    plugin.interrupt();
    let status = plugin.wait_exit(Duration::from_secs(5));
    assert!(status.success(), "{status}");
    stopping.elapsed()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_call_is_a_span_under_the_engines_with_the_provider_calls_beneath_it() {
    let collector = otel::collector().await;
    let (mut plugin, provider, stderr) = plugin(&format!("localhost:{}", collector.port), &[]);
    let mut engine = Engine::default();
    deploy(&plugin, &provider, &mut engine).await;
    // A call without the engine's context (the CLI sends none when it is not tracing) is a
    // trace of its own.
    plugin.client().await.get_plugin_info(()).await.expect("GetPluginInfo");
    stop(&mut plugin);

    let exports = collector.exports();
    let spans = otel::from_exports(&exports);
    expect_test::expect![[r#"
        under the engine's Parameterize:
          pulumirpc.ResourceProvider/Parameterize (server)
            tfplugin6.Provider/GetProviderSchema (client)
            tfplugin6.Provider/GetResourceIdentitySchemas (client)
        under the engine's CheckConfig:
          pulumirpc.ResourceProvider/CheckConfig (server) pulumi.token=pulumi:providers:fixture
            tfplugin6.Provider/ValidateProviderConfig (client)
        under the engine's Configure:
          pulumirpc.ResourceProvider/Configure (server) pulumi.token=pulumi:providers:fixture
            tfplugin6.Provider/ConfigureProvider (client)
        under the engine's Check:
          pulumirpc.ResourceProvider/Check (server) pulumi.token=fixture:index/flags:Flags
            tfplugin6.Provider/ValidateResourceConfig (client) terraform.type=fixture_flags
        under the engine's Create:
          pulumirpc.ResourceProvider/Create (server) pulumi.token=fixture:index/flags:Flags
            tfplugin6.Provider/PlanResourceChange (client) terraform.type=fixture_flags
            tfplugin6.Provider/ApplyResourceChange (client) terraform.type=fixture_flags
        under the engine's Delete:
          pulumirpc.ResourceProvider/Delete (server) pulumi.token=fixture:index/flags:Flags
            tfplugin6.Provider/UpgradeResourceState (client) terraform.type=fixture_flags
            tfplugin6.Provider/PlanResourceChange (client) terraform.type=fixture_flags
            tfplugin6.Provider/ApplyResourceChange (client) terraform.type=fixture_flags
        under the engine's Invoke:
          pulumirpc.ResourceProvider/Invoke (server) pulumi.token=fixture:index/getLookup:getLookup
            tfplugin6.Provider/ValidateDataResourceConfig (client) terraform.type=fixture_lookup
            tfplugin6.Provider/ReadDataSource (client) terraform.type=fixture_lookup
        under no parent:
          pulumirpc.ResourceProvider/GetPluginInfo (server)
    "#]]
    .assert_eq(&otel::tree(&spans, |id| engine.label(id)));

    for span in &spans {
        assert_eq!(span.service, "pulumi-resource-terraform-provider", "{span:?}");
        let in_engine_trace = span.trace_id == ENGINE_TRACE;
        let own_trace = span.name == "pulumirpc.ResourceProvider/GetPluginInfo";
        assert!(in_engine_trace != own_trace, "{span:?}");
        assert!(span.error.is_none(), "{span:?}");
    }
    let everything = format!("{exports:?}");
    for secret in SECRETS {
        assert!(!everything.contains(secret), "{secret} is in a span");
    }
    let log = std::fs::read_to_string(&stderr).expect("stderr");
    assert!(!log.contains("OpenTelemetry"), "no warning about traces:\n{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_receiver_that_is_gone_costs_one_warning_and_no_time() {
    // A port nothing listens on any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0").expect("binds").local_addr().expect("address").port();
    // Batches every 50 ms, so the run's spans fail in several batches.
    let (mut plugin, provider, stderr) =
        plugin(&format!("localhost:{port}"), &[("OTEL_BSP_SCHEDULE_DELAY", OsStr::new("50"))]);
    let mut engine = Engine::default();
    deploy(&plugin, &provider, &mut engine).await;
    // Several batches fail meanwhile (each after its retries, under a second).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let stopping = stop(&mut plugin);
    assert!(stopping < Duration::from_secs(3), "the plugin took {stopping:?} to exit");

    let log = std::fs::read_to_string(&stderr).expect("stderr");
    let warnings: Vec<&str> = log.lines().filter(|line| line.contains("OpenTelemetry traces to")).collect();
    assert_eq!(warnings.len(), 1, "one warning about traces:\n{log}");
    assert!(warnings[0].contains("WARN") && warnings[0].contains(&format!("localhost:{port}")), "{}", warnings[0]);
    eprintln!("{}", warnings[0]);
}
