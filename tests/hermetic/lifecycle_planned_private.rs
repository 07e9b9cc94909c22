//! Planned private state (protocol 6.11, `store_planned_private`): we advertise the
//! capability, so the plan made again at apply time must carry the saved plan's
//! `planned_private` bytes, as Terraform 1.16 sends them. The saved plan is the one Diff made
//! of the same update.
//!
//! The fixture's `checks_planned_private` resource fails an update's apply unless its
//! apply-time plan was sent bytes that an earlier plan of the provider answered (see the
//! fixture's `saved_plans` module), so these tests fail if the bytes are dropped.
//!
//! Needs `cargo build -p terraform-provider-fixture` (scripts/test.sh builds the workspace).

use crate::common;

use common::Implementation;
use common::engine_client::{Session, urn};
use serde_json::json;
use tonic::Code;

const MISBEHAVE: &str = "fixture:index/misbehave:Misbehave";

async fn session() -> Session {
    let store = common::scratch_dir("planned-private-store");
    let dir = common::fixture::wrapper_dir("6", &[("FIXTURE_STORE_DIR", store.to_str().expect("UTF-8"))])
        .expect("the fixture provider is built");
    let mut session = Session::start(Implementation::Ours, &dir.join("terraform-provider-fixture")).await;
    session.configure(json!({"endpoint": "http://127.0.0.1:9", "maxRetries": 3})).await.expect("Configure");
    session
}

#[tokio::test]
async fn an_update_sends_the_saved_plans_private_bytes_back() {
    let mut session = session().await;
    let urn = urn(MISBEHAVE, "m");
    let (old_inputs, id, olds) =
        session.create(&urn, json!({"misbehave": "checks_planned_private", "value": "v1"})).await;
    let news = json!({"misbehave": "checks_planned_private", "value": "v2"});
    let diff = session.diff(&urn, &id, &olds, &old_inputs, &news).await;
    assert!(diff.diffs.contains(&"value".to_owned()), "{diff:?}");
    let outputs = session.update(&urn, &id, &olds, &old_inputs, &news).await.expect("Update");
    assert_eq!(outputs["value"], json!("v2"));
    // Two updates in a row: each Diff's plan is the saved plan of its own Update.
    let news2 = json!({"misbehave": "checks_planned_private", "value": "v3"});
    session.diff(&urn, &id, &outputs, &news, &news2).await;
    let outputs = session.update(&urn, &id, &outputs, &news, &news2).await.expect("second Update");
    assert_eq!(outputs["value"], json!("v3"));
}

/// The fixture's check bites: an Update with no Diff before it has no saved plan, so the
/// apply-time plan carries no bytes and the provider refuses the apply, naming the resource.
#[tokio::test]
async fn without_a_saved_plan_the_checking_provider_refuses() {
    let mut session = session().await;
    let urn = urn(MISBEHAVE, "m");
    let (old_inputs, id, olds) =
        session.create(&urn, json!({"misbehave": "checks_planned_private", "value": "v1"})).await;
    let news = json!({"misbehave": "checks_planned_private", "value": "v2"});
    let status = session.update(&urn, &id, &olds, &old_inputs, &news).await.expect_err("no saved plan");
    assert!(
        status.message().contains("Missing saved plan private state") && !status.message().contains(&urn),
        "{:?}: {}",
        status.code(),
        status.message()
    );
    assert_ne!(status.code(), Code::Ok);
}
