//! State written by the Go implementation (pulumi-terraform-bridge `dynamic` v3.136.0,
//! built by `scripts/test-tools.sh anchor`) is read by ours with no diff, and the other way
//! round: the two are drop-in replacements for each other on existing stacks.
//!
//! For each resource, one implementation creates it; the other then runs what the engine
//! runs on the next `pulumi up` and `pulumi refresh` with the same program: Check (with the
//! stored inputs as olds), Diff (which must be DIFF_NONE) and Read (which must find the same
//! object with the same values).
//!
//! The provider resource too: a block setting given as JSON text (as stack configuration
//! holds it) is stored in the Go implementation's compact re-encoding by both, so a stack
//! moves from Go to ours and back with no DiffConfig change.

use crate::common;

use common::Implementation;
use common::engine_client::{Session, from_struct, reveal, summarize_diff, to_struct, urn};
use common::versions;
use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;

struct Case {
    provider: (&'static str, &'static str),
    /// Provider configuration; `{dir}` is replaced by a scratch directory.
    config: Json,
    token: &'static str,
    /// The program's inputs; `{name}` is replaced by a name unique to the direction.
    inputs: Json,
    /// Outputs an import computes afresh each time (a new bcrypt salt), left out of the
    /// comparison of two imports.
    volatile: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            provider: ("random", versions::RANDOM),
            config: json!({}),
            token: "random:index/pet:Pet",
            inputs: json!({"length": 3, "prefix": "p"}),
            volatile: &[],
        },
        Case {
            provider: ("random", versions::RANDOM),
            config: json!({}),
            token: "random:index/password:Password",
            inputs: json!({"length": 20, "overrideSpecial": "!#"}),
            volatile: &["bcryptHash"],
        },
        Case {
            provider: ("sdkv2test", "current"),
            config: json!({"dir": "{dir}"}),
            token: "sdkv2test:index/thing:Thing",
            inputs: json!({
                "name": "{name}", "tags": {"a": "b"}, "labels": ["y", "x"], "settings": {"level": 1},
                "rules": [{"port": 22}, {"port": 443, "protocol": "udp"}], "endpoints": [{"host": "h", "weight": 2}],
                "secret": "hidden",
            }),
            volatile: &[],
        },
        Case {
            provider: ("framework6test", "current"),
            config: json!({"dir": "{dir}"}),
            token: "framework6test:index/widget:Widget",
            inputs: json!({"name": "{name}", "replicas": 2, "ratio": 0.5, "amount": 12345678901234567.0, "secret": "s"}),
            volatile: &[],
        },
    ]
}

fn substitute(value: &Json, dir: &str, name: &str) -> Json {
    match value {
        Json::String(s) => Json::String(s.replace("{dir}", dir).replace("{name}", name)),
        Json::Array(items) => Json::Array(items.iter().map(|v| substitute(v, dir, name)).collect()),
        Json::Object(map) => Json::Object(map.iter().map(|(k, v)| (k.clone(), substitute(v, dir, name))).collect()),
        other => other.clone(),
    }
}

/// Outputs without the key only the Go implementation writes (the raw-state delta, which
/// ours reads but does not need to write) and with secrets revealed (the Go
/// implementation returns plain values and lets the engine mark them).
fn comparable(outputs: &Json) -> Json {
    let mut outputs = reveal(outputs);
    if let Some(map) = outputs.as_object_mut() {
        map.remove("__pulumi_raw_state_delta");
    }
    outputs
}

async fn writes_then_reads(writer: Implementation, reader: Implementation) {
    let mut failures = Vec::new();
    for case in cases() {
        let dir = common::scratch_dir("interop");
        let dir = dir.to_str().unwrap();
        let name = format!("{writer:?}-to-{reader:?}").to_lowercase();
        let provider = common::real_provider(case.provider.0, case.provider.1).unwrap_or_else(|e| panic!("{e}"));
        let config = substitute(&case.config, dir, &name);
        let program = substitute(&case.inputs, dir, &name);
        let urn = urn(case.token, &name);

        let mut first = Session::start(writer, &provider).await;
        first.configure(config.clone()).await.expect("Configure");
        let (inputs, id, outputs) = first.create(&urn, program.clone()).await;

        let mut second = Session::start(reader, &provider).await;
        second.configure(config).await.expect("Configure");
        let checked = second.check(&urn, &inputs, &program).await;
        assert!(checked.failures.is_empty(), "{}: {:?}", case.token, checked.failures);
        let news = common::engine_client::from_struct(checked.inputs.as_ref().unwrap());
        let diff = second.diff(&urn, &id, &outputs, &inputs, &news).await;
        let summary = summarize_diff(&diff);
        if summary != "DIFF_NONE replaces=[] diffs=[] detailed=[]" {
            failures.push(format!("{}: {writer:?} state diffed by {reader:?}: {summary}", case.token));
        }
        let read = second.read(&urn, &id, Some(&outputs), Some(&inputs)).await.expect("Read");
        assert_eq!(read.id, id, "{}", case.token);
        let reread = common::engine_client::from_struct(read.properties.as_ref().unwrap());
        if comparable(&reread) != comparable(&outputs) {
            failures.push(format!(
                "{}: {reader:?} refreshed {writer:?} state to different outputs:\n  {writer:?}: {}\n  {reader:?}: {}",
                case.token,
                comparable(&outputs),
                comparable(&reread)
            ));
        }
        // Import of the same object: both derive the same inputs (what `pulumi import` writes
        // as the program) and outputs, or both refuse.
        let import_urn = common::engine_client::urn(case.token, "imported");
        let imports = [first.read(&import_urn, &id, None, None).await, second.read(&import_urn, &id, None, None).await];
        match imports {
            [Ok(a), Ok(b)] => {
                let shown = |r: &tfbridge_proto::pulumirpc::ReadResponse| {
                    let inputs = reveal(&common::engine_client::from_struct(r.inputs.as_ref().unwrap()));
                    let mut outputs = comparable(&common::engine_client::from_struct(r.properties.as_ref().unwrap()));
                    for key in case.volatile {
                        outputs.as_object_mut().map(|o| o.remove(*key));
                    }
                    (inputs, outputs)
                };
                // A provider that writes its own import configuration (GenerateResourceConfig,
                // e.g. terraform-plugin-sdk v2 since Terraform 1.14) gives ours the inputs it
                // generates, which may leave out optional values the Go implementation's
                // derivation keeps (the renamed `id`); every input ours keeps must still be Go's.
                let (ours_side, go_side) = if writer == Implementation::Ours { (&a, &b) } else { (&b, &a) };
                let generated = matches!(
                    (shown(ours_side).0.as_object(), shown(go_side).0.as_object()),
                    (Some(ours), Some(go)) if ours.len() < go.len() && ours.iter().all(|(k, v)| go.get(k) == Some(v))
                );
                let compared = |r| if generated { (Json::Null, shown(r).1) } else { shown(r) };
                if compared(&a) != compared(&b) {
                    failures.push(format!(
                        "{}: imports differ:\n  {writer:?}: {:?}\n  {reader:?}: {:?}",
                        case.token,
                        shown(&a),
                        shown(&b)
                    ));
                }
            }
            [Err(_), Err(_)] => {}
            [a, b] => failures.push(format!("{}: only one import worked: {a:?} / {b:?}", case.token)),
        }
        second.delete(&urn, &id, &outputs, &inputs).await.expect("Delete");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[tokio::test]
async fn state_written_by_the_go_implementation_reads_with_no_diff() {
    writes_then_reads(Implementation::Go, Implementation::Ours).await;
}

#[tokio::test]
async fn state_written_by_ours_reads_with_no_diff_in_the_go_implementation() {
    writes_then_reads(Implementation::Ours, Implementation::Go).await;
}

const TLS_PROVIDER_URN: &str = "urn:pulumi:test::lifecycle::pulumi:providers:tls::default";

/// CheckConfig as the engine sends it on an up: the stored inputs as olds, the program's as
/// news; the checked inputs (what the stack stores).
async fn check_config(session: &mut Session, olds: &Json, news: &Json) -> Json {
    let checked = session
        .client
        .check_config(pulumirpc::CheckRequest {
            urn: TLS_PROVIDER_URN.to_owned(),
            olds: Some(to_struct(olds)),
            news: Some(to_struct(news)),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|status| panic!("{:?} CheckConfig: {status}", session.implementation))
        .into_inner();
    assert!(checked.failures.is_empty(), "{:?}: {:?}", session.implementation, checked.failures);
    from_struct(checked.inputs.as_ref().expect("inputs"))
}

/// DiffConfig of the stored inputs against the new ones, summarized; Configure must accept
/// the new ones.
async fn diff_and_configure(session: &mut Session, stored: &Json, news: &Json) -> String {
    let diff = session
        .client
        .diff_config(pulumirpc::DiffRequest {
            urn: TLS_PROVIDER_URN.to_owned(),
            olds: Some(to_struct(stored)),
            old_inputs: Some(to_struct(stored)),
            news: Some(to_struct(news)),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|status| panic!("{:?} DiffConfig: {status}", session.implementation))
        .into_inner();
    session
        .client
        .configure(pulumirpc::ConfigureRequest {
            args: Some(to_struct(news)),
            accept_secrets: true,
            accept_resources: true,
            urn: Some(TLS_PROVIDER_URN.to_owned()),
            ..Default::default()
        })
        .await
        .unwrap_or_else(|status| panic!("{:?} Configure: {status}", session.implementation));
    summarize_diff(&diff)
}

/// tls's `proxy` block (Pulumi name `proxies`, a list), given as JSON text with spaces and
/// keys out of order (as stack configuration or a program's own encoding may hold it): Go
/// stores its compact re-encoding; ours stores the same bytes, so the stack moves over and
/// back clean.
#[tokio::test]
async fn json_encoded_provider_config_moves_from_go_to_ours_and_back() {
    let provider = common::real_provider("tls", versions::TLS).unwrap_or_else(|e| panic!("{e}"));
    let program = json!({
        "proxies": r#"[{"username": "u",  "url": "http://proxy.example.com:3128"}]"#,
        "version": versions::TLS,
    });
    let compact = r#"[{"url":"http://proxy.example.com:3128","username":"u"}]"#;
    let none = "DIFF_NONE replaces=[] diffs=[] detailed=[]";

    let mut go = Session::start(Implementation::Go, &provider).await;
    let stored_by_go = check_config(&mut go, &json!({}), &program).await;
    assert_eq!(stored_by_go["proxies"], json!(compact), "Go's stored form");

    let mut ours = Session::start(Implementation::Ours, &provider).await;
    let stored_by_ours = check_config(&mut ours, &stored_by_go, &program).await;
    assert_eq!(stored_by_ours, stored_by_go, "ours stores what Go stored");
    assert_eq!(diff_and_configure(&mut ours, &stored_by_go, &stored_by_ours).await, none, "Go -> ours");

    let mut back = Session::start(Implementation::Go, &provider).await;
    let stored_again = check_config(&mut back, &stored_by_ours, &program).await;
    assert_eq!(stored_again, stored_by_ours);
    // Go's DiffConfig leaves the decision to the engine (DIFF_UNKNOWN), which then compares
    // the stored inputs with the new ones: equal, as asserted above.
    let go_diff = diff_and_configure(&mut back, &stored_by_ours, &stored_again).await;
    let unknown = "DIFF_UNKNOWN replaces=[] diffs=[] detailed=[]";
    assert!(go_diff == none || go_diff == unknown, "ours -> Go: {go_diff}");
}
