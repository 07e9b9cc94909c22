//! The resource lifecycle against the Rust fixture provider (tests/fixture-provider), for
//! what no real provider shows on demand: each way a provider can break Terraform core's
//! plan and apply invariants, a crash, and an apply that only stops when asked to.
//!
//! Every case runs our plugin as the engine would (Parameterize with the fixture's path,
//! CheckConfig/Configure, then Check/Create/Diff/Update/...), and asserts the gRPC status,
//! the words of the message (resource, property path, cause) and, where the object exists
//! remotely, that the `ErrorResourceInitFailed` detail carries its id and outputs so the
//! engine keeps it in the state.
//!
//! Needs `cargo build -p terraform-provider-fixture` (scripts/test.sh builds the workspace).

use crate::common;

use std::path::PathBuf;
use std::time::Duration;

use common::Implementation;
use common::engine_client::{Session, from_struct, init_failed, summarize_diff, to_struct, urn};
use common::engine_service::recording_engine;
use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;
use tokio::sync::mpsc::UnboundedReceiver;
use tonic::Code;

const MISBEHAVE: &str = "fixture:index/misbehave:Misbehave";
const FLAGS: &str = "fixture:index/flags:Flags";

/// Our plugin serving the fixture over `protocol`, configured, with a recording engine and
/// a file store (so Read and import see what apply wrote, as with a real remote API).
struct Fixture {
    session: Session,
    logs: UnboundedReceiver<pulumirpc::LogRequest>,
    store: PathBuf,
}

async fn fixture(protocol: &str) -> Fixture {
    let store = common::scratch_dir("fixture-store");
    let dir = common::fixture::wrapper_dir(protocol, &[("FIXTURE_STORE_DIR", store.to_str().expect("UTF-8"))])
        .expect("the fixture provider is built");
    let (engine, logs) = recording_engine().await;
    let mut session =
        Session::start_with_engine(Implementation::Ours, &dir.join("terraform-provider-fixture"), &engine).await;
    assert_eq!(session.package, "fixture");
    session.configure(json!({"endpoint": "http://127.0.0.1:9", "maxRetries": 3})).await.expect("Configure");
    Fixture { session, logs, store }
}

impl Fixture {
    /// Warnings the plugin logged so far, as text.
    fn warnings(&mut self) -> Vec<String> {
        let mut warnings = Vec::new();
        while let Ok(log) = self.logs.try_recv() {
            if log.severity == pulumirpc::LogSeverity::Warning as i32 {
                warnings.push(log.message);
            }
        }
        warnings
    }

    /// Whether the store holds an object of `tf_type` with id `id`.
    fn stored(&self, tf_type: &str, id: &str) -> bool {
        self.store.join(tf_type).join(format!("{id}.json")).is_file()
    }
}

#[derive(Clone, Copy, Debug)]
enum Operation {
    /// Create with `preview = true` (plan only).
    Preview,
    Create,
    /// Create well-behaved, then Update with the misbehaviour.
    Update,
}

#[derive(Debug)]
enum Expect {
    /// Succeeds with these outputs (a subset) and a warning containing each text.
    Succeeds { outputs: Json, warning: &'static [&'static str] },
    /// Fails with this code; nothing exists remotely that the engine must record.
    Fails { code: Code, texts: &'static [&'static str] },
    /// Fails, but the object exists: the status carries its id and these outputs (a subset).
    Partial { texts: &'static [&'static str], outputs: Json },
}

struct Case {
    misbehave: &'static str,
    operation: Operation,
    expect: Expect,
}

fn cases() -> Vec<Case> {
    use Expect::*;
    use Operation::*;
    const BUG: &str = "This is a bug in the provider";
    vec![
        Case {
            misbehave: "plan_differs_from_config",
            operation: Preview,
            expect: Fails {
                code: Code::FailedPrecondition,
                texts: &["Provider produced invalid plan", "property value", "planned an invalid value", BUG],
            },
        },
        Case {
            misbehave: "plan_differs_from_config",
            operation: Update,
            expect: Fails {
                code: Code::FailedPrecondition,
                texts: &["Provider produced invalid plan", "property value"],
            },
        },
        Case {
            misbehave: "write_only_in_plan",
            operation: Create,
            expect: Fails {
                code: Code::FailedPrecondition,
                texts: &["Provider produced invalid plan", "write-only attribute property secretWo"],
            },
        },
        // Terraform checks replacement paths only when something could be replaced.
        Case {
            misbehave: "requires_replace_nonexistent",
            operation: Create,
            expect: Succeeds { outputs: json!({"value": "v2"}), warning: &[] },
        },
        Case {
            misbehave: "requires_replace_nonexistent",
            operation: Update,
            expect: Fails {
                code: Code::FailedPrecondition,
                texts: &["\"requires replacement\"", "non-existent attribute path", "no_such_attribute"],
            },
        },
        Case {
            misbehave: "deferred",
            operation: Create,
            expect: Fails {
                code: Code::FailedPrecondition,
                texts: &["the provider deferred this change", "Pulumi does not apply deferred changes"],
            },
        },
        Case {
            misbehave: "apply_changes_known_value",
            operation: Create,
            expect: Partial {
                texts: &["Provider produced inconsistent result after apply", "property value", BUG],
                outputs: json!({"value": "v2-applied", "computedValue": "computed-computed_value"}),
            },
        },
        Case {
            misbehave: "apply_changes_known_value",
            operation: Update,
            expect: Partial {
                texts: &["Provider produced inconsistent result after apply", "property value"],
                outputs: json!({"value": "v2-applied"}),
            },
        },
        Case {
            misbehave: "set_elements_uncorrelated",
            operation: Create,
            expect: Partial {
                texts: &["Provider produced inconsistent result after apply", "property items"],
                outputs: json!({"items": ["a-uncorrelated"]}),
            },
        },
        Case {
            misbehave: "unknown_after_apply",
            operation: Create,
            expect: Partial {
                texts: &["still indicated an unknown value for property computedValue"],
                outputs: json!({"value": "v2"}),
            },
        },
        Case {
            misbehave: "null_after_apply",
            operation: Create,
            expect: Fails {
                code: Code::FailedPrecondition,
                texts: &["Provider produced inconsistent result after apply", "null object", BUG],
            },
        },
        Case {
            misbehave: "error_with_partial_state",
            operation: Create,
            expect: Partial {
                texts: &["Partial failure"],
                outputs: json!({"value": "v2", "computedValue": "computed-computed_value"}),
            },
        },
        Case {
            misbehave: "legacy_type_system,plan_differs_from_config",
            operation: Create,
            // Terraform only logs what it tolerates from a legacy-SDK provider (at WARN); the
            // user sees no warning (checked for every case below).
            expect: Succeeds { outputs: json!({"value": "v2-planned"}), warning: &[] },
        },
        // Diff plans, then Update plans again at apply time and gets another known value.
        Case {
            misbehave: "unstable_plan",
            operation: Update,
            expect: Fails {
                code: Code::FailedPrecondition,
                texts: &[
                    "Provider produced inconsistent final plan",
                    "property computedValue",
                    "cty.StringVal(\"plan-",
                ],
            },
        },
        // The object exists, but its state cannot be read: the engine must hear that the
        // outcome is unknown (Internal), and the user what to do.
        Case {
            misbehave: "garbage_new_state",
            operation: Create,
            expect: Fails {
                code: Code::Internal,
                texts: &["ApplyResourceChange answered a new state that is invalid", "pulumi refresh"],
            },
        },
        Case {
            misbehave: "panic_in_apply",
            operation: Create,
            expect: Fails { code: Code::Internal, texts: &["ApplyResourceChange", "panic"] },
        },
    ]
}

/// Runs one case; `Err` describes how the outcome differs from the expectation.
async fn run(case: &Case, protocol: &str) -> Result<(), String> {
    let mut fx = fixture(protocol).await;
    let urn = urn(MISBEHAVE, "m");
    let news = json!({"misbehave": case.misbehave, "value": "v2", "items": ["a"]});
    let checked = fx.session.check(&urn, &json!({}), &news).await;
    if !checked.failures.is_empty() {
        return Err(format!("Check failures: {:?}", checked.failures));
    }
    let inputs = from_struct(checked.inputs.as_ref().expect("inputs"));
    let result = match case.operation {
        Operation::Preview => fx.session.try_create(&urn, &inputs, true).await.map(|(_, outputs)| outputs),
        Operation::Create => fx.session.try_create(&urn, &inputs, false).await.map(|(_, outputs)| outputs),
        Operation::Update => {
            let (old_inputs, id, olds) = fx.session.create(&urn, json!({"value": "v1", "items": ["a"]})).await;
            // The engine diffs before it updates; a failing Diff is this case's outcome.
            let diffed = fx.session.try_diff(&urn, &id, &olds, &old_inputs, &inputs).await;
            match diffed {
                Ok(_) => fx.session.update(&urn, &id, &olds, &old_inputs, &inputs).await,
                Err(status) => Err(status),
            }
        }
    };
    let warnings = fx.warnings();
    if let Some(shown) = warnings.iter().find(|w| w.contains("legacy plugin SDK")) {
        return Err(format!("a message Terraform only logs was shown: {shown:?}"));
    }
    let contains_all = |text: &str, wanted: &[&str]| wanted.iter().all(|w| text.contains(w));
    let subset = |outputs: &Json, wanted: &Json| {
        wanted.as_object().expect("an object").iter().all(|(key, value)| outputs.get(key) == Some(value))
    };
    match (&case.expect, result) {
        (Expect::Succeeds { outputs: wanted, warning }, Ok(outputs)) => {
            if !subset(&outputs, wanted) {
                return Err(format!("outputs {outputs} lack {wanted}"));
            }
            if !warning.is_empty() && !warnings.iter().any(|w| contains_all(w, warning)) {
                return Err(format!("no warning with {warning:?} in {warnings:?}"));
            }
            Ok(())
        }
        (Expect::Fails { code, texts }, Err(status)) => {
            if status.code() != *code || !contains_all(status.message(), texts) {
                return Err(format!("got {:?}: {}", status.code(), status.message()));
            }
            // The cause, not prefixed with the URN the engine shows it under (Terraform's
            // own texts name the resource where Terraform's do).
            if status.message().starts_with("urn:pulumi:") {
                return Err(format!("the message repeats the URN the engine names: {}", status.message()));
            }
            if let Some(detail) = init_failed(&status) {
                return Err(format!("unexpected partial state {detail:?}"));
            }
            Ok(())
        }
        (Expect::Partial { texts, outputs: wanted }, Err(status)) => {
            let Some(detail) = init_failed(&status) else {
                return Err(format!("no ErrorResourceInitFailed in {:?}: {}", status.code(), status.message()));
            };
            let reasons = detail.reasons.join("\n");
            if !contains_all(&reasons, texts) || !contains_all(status.message(), texts) {
                return Err(format!("reasons {reasons:?} / message {:?} lack {texts:?}", status.message()));
            }
            let outputs = from_struct(detail.properties.as_ref().expect("properties"));
            if detail.id.is_empty() || outputs["id"] != json!(detail.id) || !subset(&outputs, wanted) {
                return Err(format!("partial state id {:?} outputs {outputs} lack {wanted}", detail.id));
            }
            if !fx.stored("fixture_misbehave", &detail.id) {
                return Err(format!("the partial state names {:?}, which the provider does not hold", detail.id));
            }
            Ok(())
        }
        (expect, outcome) => Err(format!("expected {expect:?}, got {outcome:?}")),
    }
}

#[tokio::test]
async fn each_invariant_violation_is_reported_with_resource_path_and_cause() {
    let mut failures = Vec::new();
    for protocol in ["5", "6"] {
        for case in cases() {
            if let Err(problem) = run(&case, protocol).await {
                failures.push(format!("v{protocol} {} ({:?}): {problem}", case.misbehave, case.operation));
            }
        }
    }
    assert!(failures.is_empty(), "{} case(s) failed:\n{}", failures.len(), failures.join("\n"));
}

/// Every resource RPC and both invokes over each protocol, against what the fixture holds.
#[tokio::test]
async fn every_rpc_over_protocols_5_and_6() {
    for protocol in ["5", "6"] {
        let mut fx = fixture(protocol).await;
        let context = format!("protocol {protocol}");
        let urn = urn(FLAGS, "f");

        // Check: the provider's own validation, at the Pulumi property.
        let bad = fx.session.check(&urn, &json!({}), &json!({"name": "bad"})).await;
        assert_eq!(bad.failures.len(), 1, "{context}: {:?}", bad.failures);
        assert_eq!(bad.failures[0].property, "name", "{context}");

        // Create, then the no-op, in-place and replacing diffs.
        let (inputs, id, outputs) = fx.session.create(&urn, json!({"name": "a", "region": "r1"})).await;
        assert_eq!(id, "flags-1", "{context}");
        assert_eq!((&outputs["name"], &outputs["region"]), (&json!("a"), &json!("r1")), "{context}");
        assert!(fx.stored("fixture_flags", &id), "{context}");
        let same = fx.session.diff(&urn, &id, &outputs, &inputs, &inputs).await;
        assert_eq!(summarize_diff(&same), "DIFF_NONE replaces=[] diffs=[] detailed=[]", "{context}");
        let region = json!({"name": "a", "region": "r2"});
        let checked = from_struct(fx.session.check(&urn, &inputs, &region).await.inputs.as_ref().expect("inputs"));
        let in_place = fx.session.diff(&urn, &id, &outputs, &inputs, &checked).await;
        assert_eq!(
            summarize_diff(&in_place),
            r#"DIFF_SOME replaces=[] diffs=["region"] detailed=["region:UPDATE"]"#,
            "{context}"
        );
        let renamed = fx.session.diff(&urn, &id, &outputs, &inputs, &json!({"name": "b", "region": "r1"})).await;
        assert_eq!(
            summarize_diff(&renamed),
            r#"DIFF_SOME replaces=["name"] diffs=["name"] detailed=["name:UPDATE_REPLACE"]"#,
            "{context}"
        );

        // Update in place keeps the id; refresh reads it back.
        let updated = fx.session.update(&urn, &id, &outputs, &inputs, &checked).await.expect("Update");
        assert_eq!((&updated["id"], &updated["region"]), (&json!(id), &json!("r2")), "{context}");
        let read = fx.session.read(&urn, &id, Some(&updated), Some(&checked)).await.expect("Read");
        assert_eq!(read.id, id, "{context}");
        assert_eq!(from_struct(read.properties.as_ref().expect("properties"))["region"], json!("r2"), "{context}");

        // Import of what the provider holds: inputs derived from the state.
        let imported =
            fx.session.read(&common::engine_client::urn(FLAGS, "imported"), &id, None, None).await.expect("import");
        assert_eq!(imported.id, id, "{context}");
        let imported_inputs = from_struct(imported.inputs.as_ref().expect("inputs"));
        assert_eq!((&imported_inputs["name"], &imported_inputs["region"]), (&json!("a"), &json!("r2")), "{context}");
        // An id that imports two objects is ambiguous.
        let multi = fx
            .session
            .read(&common::engine_client::urn(FLAGS, "multi"), "multi:x", None, None)
            .await
            .expect_err("two objects");
        assert!(multi.message().contains("Multiple import states"), "{context}: {}", multi.message());

        // Delete removes it; a refresh afterwards finds nothing.
        fx.session.delete(&urn, &id, &updated, &checked).await.expect("Delete");
        assert!(!fx.stored("fixture_flags", &id), "{context}");
        let gone = fx.session.read(&urn, &id, Some(&updated), Some(&checked)).await.expect("Read");
        assert_eq!(gone.id, "", "{context}: a vanished object reads as empty");

        // A data source and a function.
        let lookup =
            fx.session.invoke("fixture:index/getLookup:getLookup", &json!({"name": "x"})).await.expect("invoke");
        assert!(lookup.failures.is_empty(), "{context}: {:?}", lookup.failures);
        let lookup = from_struct(lookup.r#return.as_ref().expect("return"));
        assert_eq!((&lookup["id"], &lookup["value"]), (&json!("x"), &json!("value-of-x")), "{context}");
        let joined = fx
            .session
            .invoke("fixture:index/join:join", &json!({"separator": "-", "parts": ["a", "b"]}))
            .await
            .expect("invoke");
        assert_eq!(from_struct(joined.r#return.as_ref().expect("return")), json!({"result": "a-b"}), "{context}");
        let refused = fx
            .session
            .invoke("fixture:index/join:join", &json!({"separator": "", "parts": ["a"]}))
            .await
            .expect("invoke");
        assert_eq!(refused.failures.len(), 1, "{context}: {refused:?}");
        assert_eq!(refused.failures[0].property, "separator", "{context}");
    }
}

/// Cancel (what the engine sends on Ctrl-C) stops the provider mid-apply; the update fails
/// naming the cancellation, and the state the provider answered is kept.
#[tokio::test]
async fn cancel_stops_the_provider_and_keeps_the_object() {
    let mut fx = fixture("6").await;
    let urn = urn(MISBEHAVE, "slow");
    let (old_inputs, id, olds) = fx.session.create(&urn, json!({"value": "v1"})).await;
    // An apply that runs until the provider is told to stop.
    let news = json!({"value": "v2", "misbehave": "slow_apply"});
    let mut canceller = fx.session.plugin.client().await;
    let cancel = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        canceller.cancel(()).await
    });
    let started = std::time::Instant::now();
    let status = fx.session.update(&urn, &id, &olds, &old_inputs, &news).await.expect_err("cancelled");
    cancel.await.expect("the cancel task").expect("Cancel");
    assert!(started.elapsed() < Duration::from_secs(20), "the fixture waits 30 s unless stopped");
    assert!(status.message().contains("Apply interrupted"), "{}", status.message());
    assert!(status.message().contains("cancel"), "{}", status.message());
    let detail = init_failed(&status).unwrap_or_else(|| panic!("no partial state: {status:?}"));
    assert_eq!(detail.id, id);
    assert_eq!(from_struct(detail.properties.as_ref().expect("properties"))["value"], json!("v1"));
}

/// A create that finishes as the engine's Cancel stops the provider (a `time_sleep` whose
/// sleep ends then) is a success, recorded whole: Terraform takes the provider's answer as it
/// comes, and does not taint an object it answered without an error. Before, the
/// interruption alone made it a failure, and the next `up` replaced it.
#[tokio::test]
async fn a_create_that_finishes_at_cancel_is_recorded_whole() {
    let mut fx = fixture("6").await;
    let urn = urn(MISBEHAVE, "finishing");
    let news = json!({"value": "v1", "misbehave": "finishes_at_stop"});
    let checked = fx.session.check(&urn, &json!({}), &news).await;
    let inputs = from_struct(checked.inputs.as_ref().expect("inputs"));
    let mut canceller = fx.session.plugin.client().await;
    let cancel = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        canceller.cancel(()).await
    });
    let started = std::time::Instant::now();
    let (id, outputs) = fx.session.try_create(&urn, &inputs, false).await.expect("the create finished");
    cancel.await.expect("the cancel task").expect("Cancel");
    assert!(started.elapsed() < Duration::from_secs(20), "the fixture waits 30 s unless stopped");
    assert!(!id.is_empty());
    assert_eq!(outputs["value"], json!("v1"));
    let meta = outputs["__meta"].as_str().unwrap_or("{}");
    assert!(!meta.contains("tainted") && !meta.contains("apply_failed"), "{meta}");
    let diff = fx.session.diff(&urn, &id, &outputs, &inputs, &inputs).await;
    assert!(diff.replaces.is_empty(), "{diff:?}");
}

/// The engine's create timeout (customTimeouts) stops the provider when it runs out.
#[tokio::test]
async fn create_timeout_stops_the_provider() {
    let mut fx = fixture("5").await;
    let urn = urn(MISBEHAVE, "slow");
    let inputs = json!({"value": "v", "misbehave": "slow_apply"});
    let (token, name) = (MISBEHAVE, "slow");
    let started = std::time::Instant::now();
    let status = fx
        .session
        .client
        .create(pulumirpc::CreateRequest {
            urn: urn.clone(),
            properties: Some(to_struct(&inputs)),
            timeout: 1.0,
            name: name.to_owned(),
            r#type: token.to_owned(),
            ..Default::default()
        })
        .await
        .expect_err("timed out");
    assert!(started.elapsed() < Duration::from_secs(20), "the fixture waits 30 s unless stopped");
    assert!(!status.message().contains(&urn), "the engine names the resource: {}", status.message());
    assert!(status.message().contains("timed out"), "{}", status.message());
    assert!(status.message().contains("Apply interrupted"), "{}", status.message());
}
