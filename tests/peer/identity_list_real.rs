//! The `List` RPC and identity import against real tfcoremock, driven by the stand-in engine
//! (`tests/common/engine_client.rs`): what `pulumi do` cannot send (page sizes, unknown or
//! wrongly typed queries, stale continuation tokens) and what it hides (each page's
//! continuation token).
//!
//! Needs `scripts/test-tools.sh providers`.

use crate::common;

use common::Implementation;
use common::engine_client::{Session, UNKNOWN, to_struct};
use common::versions;
use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::list_response::Response;

const SIMPLE: &str = "tfcoremock:index/simpleResource:SimpleResource";

/// What one `List` call streamed: the results' ids, and the continuation token or the
/// error status the stream ended with.
#[derive(Debug)]
struct Page {
    ids: Vec<String>,
    end: Result<String, tonic::Status>,
}

async fn list(session: &mut Session, query: Json, limit: i64, page_size: i64, token: &str) -> Page {
    use tokio_stream::StreamExt as _;
    let request = pulumirpc::ListRequest {
        token: SIMPLE.to_owned(),
        query: Some(to_struct(&query)),
        limit,
        page_size,
        continuation_token: token.to_owned(),
    };
    let mut stream = match session.client.list(request).await {
        Ok(response) => response.into_inner(),
        Err(status) => return Page { ids: Vec::new(), end: Err(status) },
    };
    let mut ids = Vec::new();
    let mut end = Ok(String::new());
    while let Some(item) = stream.next().await {
        match item {
            Ok(pulumirpc::ListResponse { response: Some(Response::Result(result)) }) => {
                assert_eq!(result.id, result.name, "tfcoremock's display name is its id");
                ids.push(result.id);
            }
            Ok(pulumirpc::ListResponse { response: Some(Response::Continuation(next)) }) => {
                end = Ok(next.continuation_token);
            }
            Ok(other) => panic!("unexpected list response {other:?}"),
            Err(status) => {
                end = Err(status);
                break;
            }
        }
    }
    Page { ids, end }
}

/// tfcoremock with `count` simple resources `r0`.. created through the bridge.
async fn mock_with(count: usize) -> anyhow::Result<(Session, std::path::PathBuf)> {
    let binary = common::real_provider("tfcoremock", versions::TFCOREMOCK)?;
    let dir = common::scratch_dir("list-rpc").join("resources");
    let mut session = Session::start(Implementation::Ours, &binary).await;
    session.configure(json!({"resourceDirectory": dir.to_str().expect("utf-8")})).await?;
    for i in 0..count {
        let urn = common::engine_client::urn(SIMPLE, &format!("r{i}"));
        session.create(&urn, json!({"simpleResourceId": format!("r{i}"), "string": "x"})).await;
    }
    Ok((session, dir))
}

#[tokio::test]
async fn pages_follow_their_continuation_tokens() -> anyhow::Result<()> {
    let (mut session, _dir) = mock_with(5).await?;
    let first = list(&mut session, json!({}), 0, 2, "").await;
    assert_eq!(first.ids, ["r0", "r1"]);
    let token = first.end.expect("a continuation");
    assert_eq!(token.len(), 32, "16 random bytes as hex: {token}");

    // A token belongs to its query.
    let other = list(&mut session, json!({"id": "r3"}), 0, 2, &token).await;
    let status = other.end.expect_err("a different query");
    assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
    assert!(status.message().contains("continuation_token was used with a different query"), "{status:?}");
    // ...and is spent by that refusal, as by any use: a listing continues from its latest token.
    let second = list(&mut session, json!({}), 0, 2, &token).await;
    assert!(
        second.end.as_ref().is_err_and(|s| s.message().contains("invalid or expired continuation_token")),
        "{second:?}"
    );

    // Limit 5, pages of 2: three pages, the last with an empty token. A limit below the count
    // is not asked of tfcoremock 0.6.0-beta2: when the framework stops at the limit, its list
    // iterator goes on and the process panics ("range function continued iteration after
    // function for loop body returned false"), sometimes before the first results are read.
    // That was the flake this test showed twice.
    let first = list(&mut session, json!({}), 5, 2, "").await;
    assert_eq!(first.ids, ["r0", "r1"], "{first:?}");
    let second = list(&mut session, json!({}), 5, 2, &first.end.expect("a continuation")).await;
    assert_eq!(second.ids, ["r2", "r3"], "{second:?}");
    let third = list(&mut session, json!({}), 5, 2, &second.end.expect("a continuation")).await;
    assert_eq!(third.ids, ["r4"], "{third:?}");
    assert_eq!(third.end.expect("the end"), "");

    // A page size above the maximum is cut to it; one page holds all five.
    let all = list(&mut session, json!({}), 0, 10_000, "").await;
    assert_eq!(all.ids, ["r0", "r1", "r2", "r3", "r4"]);
    assert_eq!(all.end.expect("the end"), "");
    Ok(())
}

#[tokio::test]
async fn bad_list_queries_fail_clearly() -> anyhow::Result<()> {
    let (mut session, _dir) = mock_with(1).await?;
    let expect_invalid = |page: Page, texts: &[&str]| {
        let status = page.end.expect_err("an error");
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
        for text in texts {
            assert!(status.message().contains(text), "{text:?} in {status:?}");
        }
    };
    // List inputs of the wrong type name the property and the cause (the command names the
    // type: `pulumi do <token> list`).
    let wrong = list(&mut session, json!({"id": ["r0"]}), 0, 0, "").await;
    expect_invalid(wrong, &["id", "string"]);
    let unknown_field = list(&mut session, json!({"name": "r0"}), 0, 0, "").await;
    expect_invalid(unknown_field, &["name"]);
    // An unknown value: Terraform's `query` refuses it too.
    let unknown = list(&mut session, json!({"id": UNKNOWN}), 0, 0, "").await;
    expect_invalid(unknown, &["the list query is not known: the value of id is unknown"]);
    let negative = list(&mut session, json!({}), -1, 0, "").await;
    expect_invalid(negative, &["limit must be >= 0"]);
    let stale = list(&mut session, json!({}), 0, 0, "0123").await;
    expect_invalid(stale, &["invalid or expired continuation_token"]);
    // Still usable afterwards.
    let fine = list(&mut session, json!({"id": "r0"}), 0, 0, "").await;
    assert_eq!(fine.ids, ["r0"]);
    Ok(())
}

/// The null provider 2.1.2 predates identity and list resources: it answers their RPCs
/// Unimplemented. Start-up treats that as no identities, as Terraform does; an ID that looks
/// like identity JSON is then an ID like any other, as with the Go implementation (null's
/// resource refuses every import, which shows it was sent as one); and List
/// says why it cannot list.
#[tokio::test]
async fn an_older_provider_without_identity_or_list_resources() -> anyhow::Result<()> {
    let binary = common::real_provider("null", versions::NULL)?;
    let mut session = Session::start(Implementation::Ours, &binary).await;
    session.configure(json!({})).await?;
    let token = "null:index/resource:Resource";
    let import = session
        .client
        .read(pulumirpc::ReadRequest {
            id: r#"{"id":"x"}"#.to_owned(),
            urn: common::engine_client::urn(token, "imported"),
            r#type: token.to_owned(),
            ..Default::default()
        })
        .await
        .expect_err("null 2.1.2 imports nothing");
    // The provider's own refusal of an import by ID: no identity was parsed or sent.
    assert!(import.message().contains("resource null_resource doesn't support import"), "{import:?}");
    assert!(!import.message().contains("identity"), "{import:?}");
    let request =
        pulumirpc::ListRequest { token: token.to_owned(), query: Some(to_struct(&json!({}))), ..Default::default() };
    let status = session.client.list(request).await.expect_err("no list resources");
    assert_eq!(status.code(), tonic::Code::Unimplemented, "{status:?}");
    assert!(status.message().contains("has no Terraform list resource for null_resource"), "{status:?}");
    Ok(())
}
