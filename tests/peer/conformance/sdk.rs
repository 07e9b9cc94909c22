//! The Go tests on SDK-based providers: `TestSDKv1Provider` (the bridge's `dynamic/test/sdkv1provider`,
//! goldens in `testdata/TestSDKv1Provider/`), `TestConflictsWithNamePrefixOnly` and
//! `TestConflictsWithBothUserSpecified` (`dynamic/conflicting_test.go`, the bridge's
//! `dynamic/test/conflictsprovider`), and `TestRandomCreate` (hashicorp/random from the
//! registry, here from the plugin cache). Where the Go test asserts something other than a
//! golden (no error, a length, the texts of failures), the answer is reduced to what it
//! asserts and compared with what it expects.

use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;

use super::harness::{self, Record, Server, answer, golden_json, props, urn};
use crate::common::{self, Implementation, versions};

/// `parameterizedTestServer`: a server parameterized with the local provider `name`, and the
/// answer, as the `parameterize` golden of `test` compares it.
async fn parameterized(implementation: Implementation, name: &str, test: &str, record: &mut Record) -> Server {
    let mut server = Server::start(implementation, &[]).await;
    let path = harness::bridge_test_provider(name);
    let parameterized = server.parameterize(&[path.to_str().expect("utf-8")]).await;
    record.expect(
        "parameterize",
        &golden_json(&format!("{test}/parameterize.golden")),
        &answer(parameterized, harness::parameterize_json),
    );
    server
}

/// What `require.NoError` asserts: `{}` for a call that succeeded, else the error.
fn no_error<T>(result: Result<T, tonic::Status>) -> Json {
    answer(result, |_| json!({}))
}

pub async fn sdkv1_provider(implementation: Implementation) {
    const TEST: &str = "TestSDKv1Provider";
    let mut record = Record::new(TEST, implementation);
    let mut server = parameterized(implementation, "sdkv1", TEST, &mut record).await;
    let configured = server.client.configure(pulumirpc::ConfigureRequest::default()).await;
    record.expect("configure", &json!({}), &no_error(configured));
    let deleted = server
        .client
        .delete(pulumirpc::DeleteRequest {
            id: "example-id-delete".to_owned(),
            urn: urn("test", "test", "sdkv1:index/res:Res", "res"),
            properties: props(json!({"f0": "123", "f1": 123})),
            ..Default::default()
        })
        .await
        .map(|_| ());
    record.expect("delete", &golden_json(&format!("{TEST}/delete.golden")), &answer(deleted, harness::empty_json));
    record.finish();
}

const LOG_GROUP: &str = "conflictsprovider:index/logGroup:LogGroup";

pub async fn conflicts_with_name_prefix_only(implementation: Implementation) {
    const TEST: &str = "TestConflictsWithNamePrefixOnly";
    let mut record = Record::new(TEST, implementation);
    let mut server = parameterized(implementation, "conflictsprovider", TEST, &mut record).await;
    let urn = urn("test", "test", LOG_GROUP, "lg");
    let news = json!({"namePrefix": "example-"});
    let checked = server
        .client
        .check(pulumirpc::CheckRequest { urn: urn.clone(), news: props(news.clone()), ..Default::default() })
        .await;
    // assert.Empty(resp.Failures)
    record.expect("check", &json!([]), &answer(checked, |r| harness::failures(&r.into_inner().failures)));
    let created =
        server.client.create(pulumirpc::CreateRequest { urn, properties: props(news), ..Default::default() }).await;
    record.expect("create", &json!({}), &no_error(created));
    record.finish();
}

pub async fn conflicts_with_both_user_specified(implementation: Implementation) {
    const TEST: &str = "TestConflictsWithBothUserSpecified";
    let mut record = Record::new(TEST, implementation);
    let mut server = parameterized(implementation, "conflictsprovider", TEST, &mut record).await;
    let checked = server
        .client
        .check(pulumirpc::CheckRequest {
            urn: urn("test", "test", LOG_GROUP, "lg"),
            news: props(json!({"name": "explicit-name", "namePrefix": "example-"})),
            ..Default::default()
        })
        .await;
    // Two failures, whose reasons are these two texts (require.Len, assert.Contains).
    let reasons = |r: tonic::Response<pulumirpc::CheckResponse>| {
        let mut reasons: Vec<String> = r.into_inner().failures.into_iter().map(|f| f.reason).collect();
        reasons.sort();
        json!(reasons)
    };
    record.expect(
        "check",
        &json!([
            r#"Conflicting configuration arguments. "name": conflicts with name_prefix. Examine values at 'lg.name'."#,
            r#"Conflicting configuration arguments. "name_prefix": conflicts with name. Examine values at 'lg.namePrefix'."#,
        ]),
        &answer(checked, reasons),
    );
    record.finish();
}

/// hashicorp/random 3.3.0 is refused by the module proxy: the Parameterize expectation, which
/// names that version, is not run; the resource expectations run on 3.6.3, whose
/// `random_string` has the same attributes and defaults.
pub async fn random_create(implementation: Implementation) {
    const TEST: &str = "TestRandomCreate";
    let mut record = Record::new(TEST, implementation);
    let version = versions::RANDOM_GOLDEN;
    let mut server = Server::start(implementation, &[]).await;
    let random = common::real_provider("random", version).expect("scripts/test-tools.sh random-golden");
    server.cache_provider("hashicorp/random", version, &random);
    record.not_run("parameterize");
    let parameterized = server.parameterize(&["hashicorp/random", &format!("={version}")]).await;
    assert!(parameterized.is_ok(), "Parameterize random {version}: {parameterized:?}");
    let urn = urn("dev", "test", "random:index/string:String", "name");
    let create = |length: usize, preview| pulumirpc::CreateRequest {
        urn: urn.clone(),
        preview,
        properties: props(json!({"length": length})),
        ..Default::default()
    };
    let preview = server.client.create(create(6, true)).await.map(tonic::Response::into_inner);
    let golden = json!({"properties": {
        "id": "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
        "length": 6,
        "lower": true,
        "minLower": 0,
        "minNumeric": 0,
        "minSpecial": 0,
        "minUpper": 0,
        "number": true,
        "numeric": true,
        "result": "04da6b54-80e4-46f7-96ec-b56ff0331ba9",
        "special": true,
        "upper": true,
    }});
    record.expect("preview", &golden, &answer(preview, harness::create_json));
    for length in [3, 8, 12] {
        let created = server.client.create(create(length, false)).await;
        // assert.Len(createResp.Id, i)
        let id_length = answer(created, |r| json!(r.into_inner().id.len()));
        record.expect(&format!("up/{length}"), &json!(length), &id_length);
    }
    record.finish();
}
