//! Identity and list-resource failures no real provider shows on demand, against the
//! fixture provider (`FIXTURE_IDENTITY_VERSION`, `FIXTURE_LIST_FAIL_AFTER`, protocol 6),
//! driven by the stand-in engine: an identity upgrade that fails, a stored identity newer
//! than the provider's, a list stream that breaks after some results were sent, and a
//! provider without list resources (as older ones are).

use crate::common;

use common::Implementation;
use common::engine_client::{Session, to_struct, urn};
use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::list_response::Response;
use tonic::Code;

const FLAGS: &str = "fixture:index/flags:Flags";

async fn fixture(env: &[(&str, &str)]) -> anyhow::Result<Session> {
    let dir = common::fixture::wrapper_dir("6", env)?;
    let mut session = Session::start(Implementation::Ours, &dir.join("terraform-provider-fixture")).await;
    session.configure(json!({"endpoint": "http://127.0.0.1:9", "maxRetries": 3})).await?;
    Ok(session)
}

/// The results (id, name) and the end (continuation token or error) of one List call.
async fn list(
    session: &mut Session,
    token: &str,
    query: Json,
) -> (Vec<(String, String)>, Result<String, tonic::Status>) {
    use tokio_stream::StreamExt as _;
    let request = pulumirpc::ListRequest {
        token: token.to_owned(),
        query: Some(to_struct(&query)),
        limit: 0,
        page_size: 0,
        continuation_token: String::new(),
    };
    let mut stream = match session.client.list(request).await {
        Ok(response) => response.into_inner(),
        Err(status) => return (Vec::new(), Err(status)),
    };
    let mut results = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(pulumirpc::ListResponse { response: Some(Response::Result(result)) }) => {
                results.push((result.id, result.name));
            }
            Ok(pulumirpc::ListResponse { response: Some(Response::Continuation(next)) }) => {
                return (results, Ok(next.continuation_token));
            }
            Ok(other) => panic!("unexpected {other:?}"),
            Err(status) => return (results, Err(status)),
        }
    }
    (results, Ok(String::new()))
}

/// Stored outputs of a fixture_flags object whose `__meta` holds an identity of `version`.
fn stored_with_identity(version: i64) -> Json {
    let meta = json!({"identity": r#"{"id":"f-1"}"#, "identity_schema_version": version.to_string()});
    json!({"id": "f-1", "__meta": meta.to_string()})
}

#[tokio::test]
async fn a_failing_identity_upgrade_names_the_resource_and_the_cause() -> anyhow::Result<()> {
    let mut session = fixture(&[("FIXTURE_IDENTITY_VERSION", "2")]).await?;
    let flags = urn(FLAGS, "flags");
    // A refresh loads the state, identity included: version 1 is older than 2.
    let error = session
        .client
        .read(pulumirpc::ReadRequest {
            id: "f-1".to_owned(),
            urn: flags.clone(),
            properties: Some(to_struct(&stored_with_identity(1))),
            r#type: FLAGS.to_owned(),
            ..Default::default()
        })
        .await
        .expect_err("the upgrade fails");
    assert_eq!(error.code(), Code::FailedPrecondition, "{error:?}");
    let message = error.message();
    // The cause alone: the engine names the resource, as Terraform names it beside the
    // provider's diagnostic.
    assert_eq!(
        message, "fixture: cannot upgrade identity: fixture_flags identity version 1 cannot become version 2",
        "{message}"
    );

    // A stored identity newer than the provider's is refused before any call, as Terraform does.
    let error = session
        .client
        .read(pulumirpc::ReadRequest {
            id: "f-1".to_owned(),
            urn: flags.clone(),
            properties: Some(to_struct(&stored_with_identity(3))),
            r#type: FLAGS.to_owned(),
            ..Default::default()
        })
        .await
        .expect_err("too new");
    assert!(
        error
            .message()
            .contains("Resource instance managed by newer provider version: the stored identity has schema version 3"),
        "{error:?}"
    );
    Ok(())
}

#[tokio::test]
async fn a_list_stream_that_breaks_sends_its_results_then_the_error() -> anyhow::Result<()> {
    let mut session = fixture(&[("FIXTURE_LIST_FAIL_AFTER", "3")]).await?;
    let (results, end) = list(&mut session, FLAGS, json!({"prefix": "p-"})).await;
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["p-item-0", "p-item-1", "p-item-2"], "the results before the break arrive");
    assert_eq!(results[0].1, "fixture p-item-0", "the display name is the result's name");
    let status = end.expect_err("the break is an error, not an end");
    let message = status.message();
    assert!(!message.contains(FLAGS), "the token once, by the engine: {message}");
    assert!(message.contains("the list stream broke after 3 results"), "{message}");
    // The provider is still usable.
    let (again, _) = list(&mut session, FLAGS, json!({})).await;
    assert_eq!(again.len(), 3);
    Ok(())
}

#[tokio::test]
async fn a_provider_without_list_resources_answers_unimplemented() -> anyhow::Result<()> {
    let mut session = fixture(&[]).await?;
    let (results, end) = list(&mut session, FLAGS, json!({})).await;
    assert!(results.is_empty());
    let status = end.expect_err("no list resource");
    assert_eq!(status.code(), Code::Unimplemented, "{status:?}");
    assert!(status.message().contains(&format!("so {FLAGS} cannot be listed")), "{status:?}");
    assert!(status.message().contains("protocol 5.10/6.10"), "{status:?}");
    Ok(())
}
