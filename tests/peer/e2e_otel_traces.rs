//! OpenTelemetry traces through the real CLI: `pulumi up --otel-traces file://<dir>/trace.json`
//! on the newest CLI (`Cli::NEWEST`; `--otel-traces` came with 3.274), whose OTLP receiver
//! gets our plugin's spans (`PULUMI_OTEL_EXPORTER_OTLP_ENDPOINT`) and writes them to the file
//! with its own. Our spans say they are ours (`service.name`), each call the engine makes is
//! the child of the engine's span of that call, the Terraform provider's calls are beneath
//! them, and a secret the program passes is nowhere in the file.
//!
//! Only our implementation: the Go implementation is not asked anything here. Needs
//! `scripts/test-tools.sh providers pulumi languages` (with the newest CLI).

use crate::common;

use common::Implementation;
use common::otel::{self, Span};
use common::pulumi::{Cli, Workspace};

const OURS: &str = "pulumi-resource-terraform-provider";

fn program(store: &std::path::Path) -> String {
    format!(
        r#"name: otel-traces
runtime: yaml
config:
  thingSecret:
    type: string
    secret: true
resources:
  store:
    type: pulumi:providers:sdkv2test
    properties:
      dir: {store}
  thing:
    type: sdkv2test:index/thing:Thing
    properties:
      name: traced
      secret: ${{thingSecret}}
      tags:
        kept: ${{thingSecret}}
    options:
      provider: ${{store}}
"#,
        store = store.display()
    )
}

/// Who a span's parent is, for the tree: the CLI's span of the same name, or what else.
fn parent_label(spans: &[Span], parent_id: &str) -> String {
    match spans.iter().find(|span| span.span_id == parent_id) {
        Some(parent) => format!("{}'s {} ({})", parent.service, parent.name, parent.kind),
        None if parent_id.is_empty() => "no parent".to_owned(),
        None => format!("a span not in the file ({parent_id})"),
    }
}

#[test]
fn an_up_with_otel_traces_holds_our_spans_under_the_engines() -> anyhow::Result<()> {
    let cli = Cli::NEWEST;
    assert!(cli.at_least((3, 274, 0)), "--otel-traces needs 3.274, peers.env pins {}", cli.version);
    let mut ws = Workspace::with_cli("otel-traces", Implementation::Ours, cli)?;
    let store = ws.root().join("store");
    std::fs::write(ws.project_dir().join("Pulumi.yaml"), program(&store))?;
    ws.package_add(&[common::real_provider("sdkv2test", "current")?.to_str().expect("a UTF-8 path")])?;
    ws.stack_init()?;
    let secret = "otel-secret-3f9a1c";
    ws.pulumi_ok(&["config", "set", "--secret", "thingSecret", secret, "--non-interactive"])?;

    let trace = ws.root().join("trace.json");
    let destination = format!("file://{}", trace.display());
    let up = ws.pulumi_ok(&["up", "--yes", "--skip-preview", "--non-interactive", "--otel-traces", &destination])?;
    assert!(store.join("sdkv2test_thing/traced.json").is_file(), "the thing was created\n{up}");

    let text = std::fs::read_to_string(&trace)?;
    assert!(!text.contains(secret), "the secret is in the trace file {}", trace.display());
    let spans = otel::from_trace_file(&text)?;
    let ours: Vec<Span> = spans.iter().filter(|span| span.service == OURS).cloned().collect();
    let tree = otel::tree(&ours, |parent| parent_label(&spans, parent));
    eprintln!("our spans in {}:\n{tree}", trace.display());
    assert!(!ours.is_empty(), "no span of ours among {} in {}", spans.len(), trace.display());
    assert!(ours.iter().all(|span| span.attributes.get("rpc.system").map(String::as_str) == Some("grpc")), "{tree}");

    for span in &ours {
        let parent = spans.iter().find(|candidate| candidate.span_id == span.parent_span_id);
        match span.kind {
            // Each engine call: the child of the CLI's client span of the same call.
            "server" => {
                let parent = parent.unwrap_or_else(|| panic!("{} has no parent in the file\n{tree}", span.name));
                assert_eq!(parent.service, "pulumi-cli", "{}\n{tree}", span.name);
                assert_eq!((parent.name.as_str(), parent.kind), (span.name.as_str(), "client"), "{tree}");
                assert_eq!(parent.trace_id, span.trace_id, "{tree}");
            }
            // Each provider call: beneath one of ours.
            "client" => {
                let parent = parent.unwrap_or_else(|| panic!("{} has no parent in the file\n{tree}", span.name));
                assert_eq!((parent.service.as_str(), parent.kind), (OURS, "server"), "{}\n{tree}", span.name);
                assert!(span.name.starts_with("tfplugin5.Provider/"), "sdkv2test speaks protocol 5: {tree}");
            }
            other => panic!("a {other} span: {span:?}"),
        }
    }

    // The calls that made the thing, with the provider's calls beneath them.
    let children = |name: &str| -> Vec<String> {
        let parents: Vec<&Span> = ours.iter().filter(|span| span.name == name).collect();
        ours.iter()
            .filter(|span| parents.iter().any(|parent| parent.span_id == span.parent_span_id))
            .map(|span| span.name.clone())
            .collect()
    };
    assert_eq!(children("pulumirpc.ResourceProvider/Configure"), ["tfplugin5.Provider/Configure"], "{tree}");
    assert_eq!(
        children("pulumirpc.ResourceProvider/Check"),
        ["tfplugin5.Provider/ValidateResourceTypeConfig"],
        "{tree}"
    );
    assert_eq!(
        children("pulumirpc.ResourceProvider/Create"),
        ["tfplugin5.Provider/PlanResourceChange", "tfplugin5.Provider/ApplyResourceChange"],
        "{tree}"
    );
    let create = ours.iter().find(|span| span.name == "pulumirpc.ResourceProvider/Create").expect("a Create span");
    assert_eq!(create.attributes["pulumi.token"], "sdkv2test:index/thing:Thing", "{tree}");

    ws.destroy()?;
    Ok(())
}
