//! The failure paths of issue 41 against the Rust fixture provider, one test per row of
//! `docs/failure-paths.md`: what a provider answers when something is wrong, and what the
//! stack holds after it. Each row ends the way a user's next step does: the fixed program
//! converges and the object can be destroyed.
//!
//! The same rows run through the real CLI against ours and the Go implementation in
//! `tests/peer/e2e_failure_paths.rs`, and through Terraform in the fixture's
//! `tests/terraform/misbehave.rs`.

use crate::common;

use std::path::PathBuf;

use common::Implementation;
use common::engine_client::{Session, from_struct, init_failed, summarize_diff, urn};
use common::engine_service::recording_engine;
use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;

const MISBEHAVE: &str = "fixture:index/misbehave:Misbehave";
const LOOKUP: &str = "fixture:index/getLookup:getLookup";

struct Fixture {
    session: Session,
    logs: tokio::sync::mpsc::UnboundedReceiver<pulumirpc::LogRequest>,
    store: PathBuf,
}

/// Our plugin on the fixture (with a store, so reads see what applies made), configured, its
/// engine log recorded.
async fn start(protocol: &str) -> Fixture {
    let store = common::scratch_dir("failure-store");
    let dir = common::fixture::wrapper_dir(protocol, &[("FIXTURE_STORE_DIR", store.to_str().expect("UTF-8"))])
        .expect("the fixture provider is built");
    let (engine, logs) = recording_engine().await;
    let mut session =
        Session::start_with_engine(Implementation::Ours, &dir.join("terraform-provider-fixture"), &engine).await;
    session.configure(json!({"endpoint": "http://127.0.0.1:9", "maxRetries": 3})).await.expect("Configure");
    Fixture { session, logs, store }
}

impl Fixture {
    /// The warnings logged to the engine since the last call.
    async fn warnings(&mut self) -> Vec<String> {
        // The plugin logs before it answers, but the log is a call of its own: let it land.
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let mut warnings = Vec::new();
        while let Ok(log) = self.logs.try_recv() {
            if log.severity == pulumirpc::LogSeverity::Warning as i32 {
                warnings.push(log.message);
            }
        }
        warnings
    }

    /// The ids of the objects the fixture holds of `fixture_misbehave`.
    fn remote_ids(&self) -> Vec<String> {
        common::fixture::stored_ids(&self.store, "fixture_misbehave")
    }

    async fn checked(&mut self, urn: &str, olds: &Json, news: &Json) -> Json {
        let response = self.session.check(urn, olds, news).await;
        assert!(response.failures.is_empty(), "Check failures: {:?}", response.failures);
        from_struct(response.inputs.as_ref().expect("inputs"))
    }
}

fn meta(outputs: &Json) -> Json {
    outputs["__meta"].as_str().map_or(Json::Null, |text| serde_json::from_str(text).expect("__meta is JSON"))
}

/// Issue 41's second failure: a Create that fails and answers its plan (unknown `id`
/// included) beside the error. Terraform saves it tainted and its next refresh fails; we
/// record nothing, so the fixed program simply creates the object.
#[tokio::test]
async fn a_create_that_answers_its_plan_beside_the_error_records_nothing() {
    for protocol in ["5", "6"] {
        let context = format!("protocol {protocol}");
        let mut fx = start(protocol).await;
        let urn = urn(MISBEHAVE, "m");
        let bad = fx.checked(&urn, &json!({}), &json!({"value": "v1", "misbehave": "error_with_planned_state"})).await;
        let status = fx.session.try_create(&urn, &bad, false).await.expect_err("the create fails");
        assert!(init_failed(&status).is_none(), "{context}: a plan was recorded as an object: {status:?}");
        let message = status.message();
        assert!(message.contains("Invalid value"), "{context}: the provider's error: {message}");
        assert!(message.contains("value"), "{context}: the property the diagnostic names: {message}");
        assert!(!message.contains("unknown value"), "{context}: errors about a state not recorded: {message}");
        assert!(message.contains("no object was recorded"), "{context}: {message}");
        assert_eq!(fx.remote_ids(), Vec::<String>::new(), "{context}: the fixture made nothing");

        // The program is fixed: a plain create.
        let good = fx.checked(&urn, &json!({}), &json!({"value": "v1"})).await;
        let (id, outputs) = fx.session.try_create(&urn, &good, false).await.expect("the fixed create");
        assert_eq!(fx.remote_ids(), vec![id.clone()], "{context}");
        fx.session.delete(&urn, &id, &outputs, &good).await.expect("destroy");
        assert_eq!(fx.remote_ids(), Vec::<String>::new(), "{context}");
    }
}

/// A Create that made its object and then failed (a known `id`): recorded beside the error,
/// tainted; the next Diff replaces it even where it cannot be read, and a refresh and a
/// destroy get past a read that fails.
#[tokio::test]
async fn a_create_that_made_its_object_is_recorded_tainted_and_replaced() {
    for protocol in ["5", "6"] {
        let context = format!("protocol {protocol}");
        let mut fx = start(protocol).await;
        let urn = urn(MISBEHAVE, "m");
        let bad = json!({"value": "v1", "misbehave": "error_with_partial_state,read_fails"});
        let bad = fx.checked(&urn, &json!({}), &bad).await;
        let status = fx.session.try_create(&urn, &bad, false).await.expect_err("the create fails");
        let partial = init_failed(&status).unwrap_or_else(|| panic!("{context}: the object is forgotten: {status:?}"));
        assert!(partial.reasons.join("\n").contains("Partial failure"), "{context}: {:?}", partial.reasons);
        let outputs = from_struct(partial.properties.as_ref().expect("properties"));
        let id = partial.id.clone();
        assert_eq!(fx.remote_ids(), vec![id.clone()], "{context}: the object the fixture made is recorded");
        assert_eq!(meta(&outputs)["tainted"], json!("true"), "{context}: {outputs}");
        assert_eq!(meta(&outputs)["apply_failed"], json!("true"), "{context}: {outputs}");
        fx.warnings().await;

        // A refresh: the read fails, and the object stays as stored, with a warning.
        let read = fx.session.read(&urn, &id, Some(&outputs), Some(&bad)).await.expect("the refresh goes on");
        assert_eq!(read.id, id, "{context}");
        assert_eq!(from_struct(read.properties.as_ref().expect("properties")), outputs, "{context}");
        let warnings = fx.warnings().await;
        assert!(warnings.iter().any(|w| w.contains("Read failed")), "{context}: {warnings:?}");

        // The fixed program: the tainted object is replaced, though it cannot be read.
        let good = fx.checked(&urn, &bad, &json!({"value": "v1"})).await;
        let diff = fx.session.diff(&urn, &id, &outputs, &bad, &good).await;
        assert!(!diff.replaces.is_empty(), "{context}: {}", summarize_diff(&diff));
        let warnings = fx.warnings().await;
        assert!(warnings.iter().any(|w| w.contains("tainted")), "{context}: {warnings:?}");
        let (new_id, new_outputs) = fx.session.try_create(&urn, &good, false).await.expect("the replacement");
        fx.session.delete(&urn, &id, &outputs, &bad).await.expect("the tainted object is destroyed");
        assert_eq!(fx.remote_ids(), vec![new_id.clone()], "{context}");
        fx.session.delete(&urn, &new_id, &new_outputs, &good).await.expect("destroy");
        assert_eq!(fx.remote_ids(), Vec::<String>::new(), "{context}");
    }
}

/// A failed replacement's create records nothing, so the object it was to replace stays as
/// it was, and the fixed program replaces it.
#[tokio::test]
async fn a_failed_replacement_leaves_the_old_object() {
    let mut fx = start("6").await;
    let urn = urn(MISBEHAVE, "m");
    let first = fx.checked(&urn, &json!({}), &json!({"value": "v1", "replaceKey": "a"})).await;
    let (id, outputs) = fx.session.try_create(&urn, &first, false).await.expect("create");
    let bad = json!({"value": "v1", "replaceKey": "b", "misbehave": "error_with_planned_state"});
    let bad = fx.checked(&urn, &first, &bad).await;
    let diff = fx.session.diff(&urn, &id, &outputs, &first, &bad).await;
    assert!(!diff.replaces.is_empty(), "{}", summarize_diff(&diff));
    let status = fx.session.try_create(&urn, &bad, false).await.expect_err("the replacement fails");
    assert!(init_failed(&status).is_none(), "{status:?}");
    assert_eq!(fx.remote_ids(), vec![id.clone()], "the old object stays, alone");
    let good = fx.checked(&urn, &first, &json!({"value": "v1", "replaceKey": "b"})).await;
    let (new_id, _) = fx.session.try_create(&urn, &good, false).await.expect("the fixed replacement");
    fx.session.delete(&urn, &id, &outputs, &first).await.expect("the old object goes");
    assert_eq!(fx.remote_ids(), vec![new_id], "only the replacement is left");
}

/// Warnings beside errors are shown with the error, and a null state beside the error
/// records nothing.
#[tokio::test]
async fn warnings_beside_errors_are_shown() {
    let mut fx = start("6").await;
    let urn = urn(MISBEHAVE, "m");
    let bad = fx.checked(&urn, &json!({}), &json!({"value": "v1", "misbehave": "error_with_null_state"})).await;
    fx.warnings().await;
    let status = fx.session.try_create(&urn, &bad, false).await.expect_err("the create fails");
    assert!(init_failed(&status).is_none(), "{status:?}");
    assert!(status.message().contains("Apply failed"), "{}", status.message());
    let warnings = fx.warnings().await;
    assert!(warnings.iter().any(|w| w.contains("Apply warning")), "the warning beside the error: {warnings:?}");
    assert_eq!(fx.remote_ids(), Vec::<String>::new());
}

/// An import whose provider answers the object and an error beside it: the import fails
/// naming the resource and the provider's error, and nothing is recorded, as Terraform
/// imports nothing then. The object is the provider's to begin with: nothing is lost.
#[tokio::test]
async fn an_import_that_fails_beside_its_object_records_nothing() {
    let mut fx = start("6").await;
    let made = urn(MISBEHAVE, "made");
    let inputs = fx.checked(&made, &json!({}), &json!({"value": "v1"})).await;
    let (id, _) = fx.session.try_create(&made, &inputs, false).await.expect("the create");
    let urn = urn(MISBEHAVE, "imported");
    let status = fx.session.read(&urn, &format!("partial:{id}"), None, None).await.expect_err("the import fails");
    assert!(init_failed(&status).is_none(), "nothing is recorded: {status:?}");
    assert!(status.message().contains("Import failed"), "{}", status.message());
    // The same id without the failure imports the object.
    let imported = fx.session.read(&urn, &id, None, None).await.expect("the import");
    assert_eq!(imported.id, id);
    assert_eq!(from_struct(imported.properties.as_ref().expect("properties"))["value"], json!("v1"));
}

/// Issue 41's first failure: strings that are not UTF-8 read as Terraform shows them (U+FFFD
/// for each bad byte), with the provider's warning, from a data source and a resource.
#[tokio::test]
async fn strings_that_are_not_utf8_read_as_terraform_shows_them() {
    const READ: &str = "GIF89a\u{1}\u{0}\u{FFFD}\u{FFFD}";
    let mut fx = start("6").await;
    fx.warnings().await;
    let invoked = fx.session.invoke(LOOKUP, &json!({"name": "binary"})).await.expect("the invoke");
    let result = from_struct(invoked.r#return.as_ref().expect("a result"));
    assert_eq!(result["value"], json!(READ), "{result}");
    let warnings = fx.warnings().await;
    assert!(
        warnings.iter().any(|w| w.contains("Response body is not recognized as UTF-8")),
        "the provider's warning: {warnings:?}"
    );

    let urn = urn(MISBEHAVE, "m");
    let inputs = fx.checked(&urn, &json!({}), &json!({"value": "v1", "misbehave": "non_utf8_state"})).await;
    let (id, outputs) = fx.session.try_create(&urn, &inputs, false).await.expect("the create");
    assert_eq!(outputs["computedValue"], json!(READ), "{outputs}");
    let read = fx.session.read(&urn, &id, Some(&outputs), Some(&inputs)).await.expect("the refresh");
    let refreshed = from_struct(read.properties.as_ref().expect("properties"));
    assert_eq!(refreshed["computedValue"], json!(READ), "{refreshed}");
    let diff = fx.session.diff(&urn, &id, &refreshed, &inputs, &inputs).await;
    assert_eq!(summarize_diff(&diff), "DIFF_NONE replaces=[] diffs=[] detailed=[]", "no change after a refresh");
    fx.session.delete(&urn, &id, &refreshed, &inputs).await.expect("destroy");
}

/// Reads that answer oddly: gone (the refresh drops the object), another id (the refresh
/// records it), and a destroy that fails keeps the object, which a fixed program destroys.
#[tokio::test]
async fn reads_that_answer_gone_or_another_id_and_a_failing_delete() {
    let mut fx = start("6").await;
    let urn = urn(MISBEHAVE, "m");

    let gone = fx.checked(&urn, &json!({}), &json!({"value": "v1", "misbehave": "read_gone"})).await;
    let (id, outputs) = fx.session.try_create(&urn, &gone, false).await.expect("create");
    let read = fx.session.read(&urn, &id, Some(&outputs), Some(&gone)).await.expect("the refresh");
    assert_eq!(read.id, "", "a gone object is dropped from the stack");
    fx.session.delete(&urn, &id, &outputs, &gone).await.expect("destroy");

    let moved = fx.checked(&urn, &json!({}), &json!({"value": "v1", "misbehave": "read_changes_id"})).await;
    let (id, outputs) = fx.session.try_create(&urn, &moved, false).await.expect("create");
    let read = fx.session.read(&urn, &id, Some(&outputs), Some(&moved)).await.expect("the refresh");
    assert_eq!(read.id, format!("{id}-moved"), "the id the read answers is recorded");
    fx.session.delete(&urn, &id, &outputs, &moved).await.expect("destroy");

    let stuck = fx.checked(&urn, &json!({}), &json!({"value": "v1", "misbehave": "delete_fails"})).await;
    let (id, outputs) = fx.session.try_create(&urn, &stuck, false).await.expect("create");
    let status = fx.session.delete(&urn, &id, &outputs, &stuck).await.expect_err("the destroy fails");
    assert!(status.message().contains("Delete failed"), "{}", status.message());
    assert!(fx.remote_ids().contains(&id), "the object is still there, and still recorded");
    // The fix: the program no longer asks for the failure, then the destroy goes through.
    let fixed = fx.checked(&urn, &stuck, &json!({"value": "v1"})).await;
    fx.session.diff(&urn, &id, &outputs, &stuck, &fixed).await;
    let updated = fx.session.update(&urn, &id, &outputs, &stuck, &fixed).await.expect("the update");
    fx.session.delete(&urn, &id, &updated, &fixed).await.expect("destroy");
    assert!(!fx.remote_ids().contains(&id));
}

/// A huge value (a 50 MiB string attribute) is a working call, create and refresh, within
/// the message limits (ours and Terraform's are both above it).
#[tokio::test]
async fn a_huge_value_is_a_working_call() {
    let mut fx = start("6").await;
    let urn = urn(MISBEHAVE, "m");
    let inputs = fx.checked(&urn, &json!({}), &json!({"value": "v1", "misbehave": "huge_value"})).await;
    let (id, outputs) = fx.session.try_create(&urn, &inputs, false).await.expect("the create");
    assert_eq!(outputs["computedValue"].as_str().map(str::len), Some(50 << 20));
    let read = fx.session.read(&urn, &id, Some(&outputs), Some(&inputs)).await.expect("the refresh");
    let refreshed = from_struct(read.properties.as_ref().expect("properties"));
    assert_eq!(refreshed["computedValue"], outputs["computedValue"]);
    fx.session.delete(&urn, &id, &refreshed, &inputs).await.expect("destroy");
}
