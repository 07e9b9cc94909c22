//! The misbehaving creates of tests/hermetic/lifecycle_fixture.rs through both implementations: what
//! the Go implementation lets through that ours refuses. A peer-tier test (it starts the Go
//! implementation built by `scripts/test-tools.sh anchor`).

use crate::common;

use common::Implementation;
use common::engine_client::{Session, init_failed, urn};
use serde_json::json;

const MISBEHAVE: &str = "fixture:index/misbehave:Misbehave";

/// The same misbehaving creates through both implementations, summarized: what each
/// answers (accepted, or the status code), whether the message repeats the URN the engine
/// shows it under (neither does), and whether the object the provider created stays in the
/// state.
#[tokio::test]
async fn what_the_go_implementation_lets_through() {
    let misbehaviours = [
        "plan_differs_from_config",
        "write_only_in_plan",
        "apply_changes_known_value",
        "set_elements_uncorrelated",
        "unknown_after_apply",
        "null_after_apply",
        "error_with_partial_state",
        "garbage_new_state",
        "panic_in_apply",
    ];
    let mut lines = Vec::new();
    for misbehave in misbehaviours {
        let mut line = format!("{misbehave}:");
        for implementation in [Implementation::Go, Implementation::Ours] {
            let store = common::scratch_dir("fixture-store");
            let dir = common::fixture::wrapper_dir("6", &[("FIXTURE_STORE_DIR", store.to_str().expect("UTF-8"))])
                .expect("the fixture provider is built");
            let mut session = Session::start(implementation, &dir.join("terraform-provider-fixture")).await;
            session.configure(json!({"endpoint": "e", "maxRetries": 3})).await.expect("Configure");
            let urn = urn(MISBEHAVE, "m");
            let news = json!({"misbehave": misbehave, "value": "v", "items": ["a"]});
            let outcome = match session.try_create(&urn, &news, false).await {
                Ok(_) => "accepted".to_owned(),
                Err(status) => format!(
                    "{:?}{}{}",
                    status.code(),
                    if status.message().starts_with("urn:") { ", starts with the URN" } else { "" },
                    if init_failed(&status).is_some() { ", keeps it" } else { "" }
                ),
            };
            line.push_str(&format!(" {}={outcome}", if implementation == Implementation::Go { "go" } else { "ours" }));
        }
        lines.push(line);
    }
    expect_test::expect![[r#"
        plan_differs_from_config: go=accepted ours=FailedPrecondition
        write_only_in_plan: go=accepted ours=FailedPrecondition
        apply_changes_known_value: go=accepted ours=Unknown, keeps it
        set_elements_uncorrelated: go=accepted ours=Unknown, keeps it
        unknown_after_apply: go=accepted ours=Unknown, keeps it
        null_after_apply: go=Unknown ours=FailedPrecondition
        error_with_partial_state: go=Unknown ours=Unknown, keeps it
        garbage_new_state: go=Unknown ours=Internal
        panic_in_apply: go=Unavailable ours=Internal"#]]
    .assert_eq(&lines.join("\n"));
}
