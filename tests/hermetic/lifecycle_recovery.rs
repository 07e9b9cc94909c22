//! After a failure, as Terraform recovers (issue 28), against the Rust fixture provider:
//!
//! - an update that fails and answers its planned state beside the error (an SDKv2
//!   provider's failed update, the fixture's `error_with_unapplied_state`) is kept as a
//!   partial state marked `apply_failed`; the next Diff and Update read the object first, as
//!   Terraform's next plan refreshes, so fixing the program is enough, and the Update the
//!   engine still sends for that object (its init errors) applies nothing when nothing
//!   changes: no `ApplyResourceChange`, and the mark is gone from the new state; such an
//!   Update of a state without the mark reads the object before it settles for nothing;
//! - a replacement deletes first exactly when the program gives the name the object has.
//!
//! Which calls reached the provider is read from our gRPC debug log (`PULUMI_TF_DEBUG_GRPC`).

use crate::common;

use std::path::PathBuf;

use common::Implementation;
use common::engine_client::{Session, from_struct, init_failed, summarize_diff, urn};
use serde_json::{Value as Json, json};

const MISBEHAVE: &str = "fixture:index/misbehave:Misbehave";
const FLAGS: &str = "fixture:index/flags:Flags";

/// Our plugin on the fixture (with a store, so reads see what applies wrote), configured,
/// logging its provider calls to a file.
async fn start(protocol: &str) -> (Session, PathBuf, PathBuf) {
    let store = common::scratch_dir("recovery-store");
    let dir = common::fixture::wrapper_dir(protocol, &[("FIXTURE_STORE_DIR", store.to_str().expect("UTF-8"))])
        .expect("the fixture provider is built");
    let log = common::scratch_dir("recovery-log").join("grpc.jsonl");
    let env = [("PULUMI_TF_DEBUG_GRPC", log.as_os_str())];
    let mut session =
        Session::start_with_env(Implementation::Ours, &dir.join("terraform-provider-fixture"), "127.0.0.1:9", &env)
            .await;
    session.configure(json!({"endpoint": "http://127.0.0.1:9", "maxRetries": 3})).await.expect("Configure");
    (session, log, store)
}

/// The provider calls logged since the last call, by method name; clears the log.
fn calls(log: &PathBuf) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    std::fs::write(log, "").expect("clear the log");
    text.lines()
        .map(|line| {
            let entry: Json = serde_json::from_str(line).expect("a JSON line");
            entry["method"].as_str().unwrap_or_default().to_owned()
        })
        .collect()
}

fn meta(outputs: &Json) -> Json {
    outputs["__meta"].as_str().map_or(Json::Null, |text| serde_json::from_str(text).expect("__meta is JSON"))
}

#[tokio::test]
async fn a_failed_update_is_read_again_and_the_fixed_program_applies_nothing() {
    for protocol in ["5", "6"] {
        let context = format!("protocol {protocol}");
        let (mut session, log, store) = start(protocol).await;
        let urn = urn(MISBEHAVE, "m");
        let good = json!({"value": "v1", "items": ["a"]});
        let (inputs, id, outputs) = session.create(&urn, good.clone()).await;
        calls(&log);

        // The update fails; the state the provider answered is kept, marked.
        let bad = json!({"value": "not-valid", "items": ["a"], "misbehave": "error_with_unapplied_state"});
        let checked = from_struct(session.check(&urn, &inputs, &bad).await.inputs.as_ref().expect("inputs"));
        session.diff(&urn, &id, &outputs, &inputs, &checked).await;
        let status = session.update(&urn, &id, &outputs, &inputs, &checked).await.expect_err("the update fails");
        let partial = init_failed(&status).unwrap_or_else(|| panic!("{context}: no partial state: {status:?}"));
        assert!(partial.reasons.join("\n").contains("Update failed"), "{context}: {:?}", partial.reasons);
        let partial_outputs = from_struct(partial.properties.as_ref().expect("properties"));
        assert_eq!(partial_outputs["value"], json!("not-valid"), "{context}: the provider's answer is kept");
        assert_eq!(meta(&partial_outputs)["apply_failed"], json!("true"), "{context}: {partial_outputs}");
        let stored: Json = serde_json::from_slice(
            &std::fs::read(store.join("fixture_misbehave").join(format!("{id}.json"))).expect("the stored object"),
        )
        .expect("JSON");
        assert_eq!(stored["value"], json!("v1"), "{context}: the remote object did not change");
        calls(&log);

        // Unfixed, and the mark lost (a state the Go implementation wrote has none): the
        // engine's Update for the object's init errors plans nothing new against the stored
        // values, so the object is read, planned again, and the apply fails again, rather
        // than the bad values being recorded as a success.
        let mut unmarked = partial_outputs.clone();
        unmarked.as_object_mut().expect("an object").remove("__meta");
        let again = session.update(&urn, &id, &unmarked, &checked, &checked).await;
        let again_calls = calls(&log);
        let status = again.expect_err("the unchanged bad program fails again");
        assert!(init_failed(&status).is_some(), "{context}: {status:?}");
        for call in ["ReadResource", "ApplyResourceChange"] {
            assert!(again_calls.contains(&call.to_owned()), "{context}: no {call}: {again_calls:?}");
        }

        // The program is fixed: Diff reads the object first and finds nothing to change.
        let checked = from_struct(session.check(&urn, &checked, &good).await.inputs.as_ref().expect("inputs"));
        let diff = session.diff(&urn, &id, &partial_outputs, &checked, &checked).await;
        assert_eq!(summarize_diff(&diff), "DIFF_NONE replaces=[] diffs=[] detailed=[]", "{context}");
        let diff_calls = calls(&log);
        assert!(diff_calls.contains(&"ReadResource".to_owned()), "{context}: Diff did not read: {diff_calls:?}");

        // The engine's Update for an object with init errors: read, plan, and no apply.
        let updated = session.update(&urn, &id, &partial_outputs, &checked, &checked).await.expect("the update");
        let update_calls = calls(&log);
        assert!(update_calls.contains(&"ReadResource".to_owned()), "{context}: {update_calls:?}");
        assert!(update_calls.contains(&"PlanResourceChange".to_owned()), "{context}: {update_calls:?}");
        assert!(
            !update_calls.contains(&"ApplyResourceChange".to_owned()),
            "{context}: a plan that changes nothing was applied: {update_calls:?}"
        );
        assert_eq!((&updated["id"], &updated["value"]), (&json!(id), &json!("v1")), "{context}: {updated}");
        assert_eq!(meta(&updated)["apply_failed"], Json::Null, "{context}: the mark stays: {updated}");

        // A state without the mark is not read before a Diff (Pulumi refreshes on request).
        session.diff(&urn, &id, &updated, &checked, &checked).await;
        let plain = calls(&log);
        assert!(!plain.contains(&"ReadResource".to_owned()), "{context}: {plain:?}");
    }
}

/// A failed apply's object that is gone by the time it is deleted (the state marked, the
/// store emptied out of band): the read before the plan finds it gone, and nothing is applied,
/// as Terraform's refresh drops it before a destroy.
#[tokio::test]
async fn deleting_a_failed_apply_s_object_that_is_gone_applies_nothing() {
    let (mut session, log, store) = start("6").await;
    let urn = urn(MISBEHAVE, "gone");
    let (inputs, id, outputs) = session.create(&urn, json!({"value": "v1"})).await;
    let bad = json!({"value": "v2", "misbehave": "error_with_unapplied_state"});
    let checked = from_struct(session.check(&urn, &inputs, &bad).await.inputs.as_ref().expect("inputs"));
    let status = session.update(&urn, &id, &outputs, &inputs, &checked).await.expect_err("the update fails");
    let partial = init_failed(&status).expect("a partial failure");
    let partial_outputs = from_struct(partial.properties.as_ref().expect("properties"));
    std::fs::remove_file(store.join("fixture_misbehave").join(format!("{id}.json"))).expect("the stored object");
    calls(&log);
    session.delete(&urn, &id, &partial_outputs, &checked).await.expect("the delete succeeds");
    let delete_calls = calls(&log);
    assert!(delete_calls.contains(&"ReadResource".to_owned()), "{delete_calls:?}");
    assert!(!delete_calls.contains(&"ApplyResourceChange".to_owned()), "{delete_calls:?}");
}

#[tokio::test]
async fn a_replacement_deletes_first_only_under_the_name_the_object_has() {
    let (mut session, _log, _store) = start("6").await;
    let given = urn(FLAGS, "given");
    let (inputs, id, outputs) = session.create(&given, json!({"name": "given-a", "region": "r1"})).await;
    // The object's own name, given again, with a change: a replacement (replaceOnChanges, or
    // one the provider plans) would be the same object, so it deletes first.
    let kept = json!({"name": "given-a", "region": "r2"});
    let checked = from_struct(session.check(&given, &inputs, &kept).await.inputs.as_ref().expect("inputs"));
    let diff = session.diff(&given, &id, &outputs, &inputs, &checked).await;
    assert_eq!(diff.diffs, ["region"], "{}", summarize_diff(&diff));
    assert!(diff.delete_before_replace, "the name the object has, given again: delete first");
    // A new name: another object, so Pulumi's create-first stays, and a failed create keeps
    // the old object.
    let renamed = json!({"name": "given-b", "region": "r1"});
    let checked = from_struct(session.check(&given, &inputs, &renamed).await.inputs.as_ref().expect("inputs"));
    let diff = session.diff(&given, &id, &outputs, &inputs, &checked).await;
    assert_eq!(diff.replaces, ["name"], "{}", summarize_diff(&diff));
    assert!(!diff.delete_before_replace, "a new name is another object: create first");

    let generated = urn(FLAGS, "generated");
    let (inputs, id, outputs) = session.create(&generated, json!({"region": "r1"})).await;
    let name = inputs["name"].as_str().expect("Check generated a name").to_owned();
    assert!(name.starts_with("generated-"), "{name}");
    let checked = from_struct(
        session.check(&generated, &inputs, &json!({"region": "r2"})).await.inputs.as_ref().expect("inputs"),
    );
    assert_eq!(checked["name"], json!(name), "an existing object keeps its generated name");
    let diff = session.diff(&generated, &id, &outputs, &inputs, &checked).await;
    assert_eq!(diff.diffs, ["region"], "{}", summarize_diff(&diff));
    assert!(!diff.delete_before_replace, "a generated name is generated afresh for a replacement: create first");

    // The same resource, its generated name now given by the program, deletes first.
    let checked = from_struct(
        session
            .check(&generated, &inputs, &json!({"name": name, "region": "r2"}))
            .await
            .inputs
            .as_ref()
            .expect("inputs"),
    );
    let diff = session.diff(&generated, &id, &outputs, &inputs, &checked).await;
    assert!(diff.delete_before_replace, "{}", summarize_diff(&diff));
}
