//! The Go tests that drive the bridge's plugin-framework test provider (`dynamic/test/pfprovider`)
//! through the gRPC calls of `dynamic/provider_test.go`: `TestPrimitiveTypes` (goldens in
//! `testdata/TestPrimitiveTypes/`), `TestDynamicConfigure`, `TestDynamicProviderFunction` and
//! `TestDynamicCheckConfig` (goldens inline in the Go test, repeated here as data).

use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;

use super::harness::{self, Record, Server, answer, golden_json, props, urn};
use crate::common::Implementation;

const PRIMITIVE: &str = "pfprovider:index/primitive:Primitive";

fn inputs() -> Json {
    json!({
        "attrBoolRequired": true,
        "attrStringRequired": "s",
        "attrIntRequired": 64,
        "attrNumberRequired": 12.3456,
        "attrStringDefaultOverridden": "overridden",
    })
}

fn outputs() -> Json {
    let mut outputs = inputs();
    outputs["attrStringDefault"] = json!("default-value");
    outputs["attrStringComputed"] = json!("t");
    outputs["id"] = json!("output-id");
    outputs
}

async fn parameterized(implementation: Implementation) -> (Server, Json) {
    let mut server = Server::start(implementation, &[]).await;
    let path = harness::bridge_test_provider("pfprovider");
    let parameterized = server.parameterize(&[path.to_str().expect("utf-8")]).await;
    (server, answer(parameterized, harness::parameterize_json))
}

pub async fn primitive_types(implementation: Implementation) {
    const TEST: &str = "TestPrimitiveTypes";
    let golden = |name: &str| golden_json(&format!("{TEST}/{name}.golden"));
    let mut record = Record::new(TEST, implementation);
    let (mut server, parameterized) = parameterized(implementation).await;
    record.expect("parameterize", &golden("parameterize"), &parameterized);
    let urn = urn("test", "test", PRIMITIVE, "prim");
    let c = &mut server.client;

    let check =
        c.check(pulumirpc::CheckRequest { urn: urn.clone(), news: props(inputs()), ..Default::default() }).await;
    record.expect("check", &golden("check"), &answer(check.map(tonic::Response::into_inner), harness::check_json));

    let create = |preview| pulumirpc::CreateRequest {
        urn: urn.clone(),
        properties: props(inputs()),
        preview,
        ..Default::default()
    };
    let preview = c.create(create(true)).await.map(tonic::Response::into_inner);
    record.expect("create(preview)", &golden("create(preview)"), &answer(preview, harness::create_json));
    let created = c.create(create(false)).await.map(tonic::Response::into_inner);
    record.expect("create", &golden("create"), &answer(created, harness::create_json));

    let olds = json!({
        "attrBoolComputed": false,
        "attrBoolRequired": true,
        "attrIntComputed": 128,
        "attrIntRequired": 64,
        "attrNumberRequired": 12.3456,
        "attrStringComputed": "t",
        "attrStringRequired": "s",
        "id": "example-id",
    });
    let diffs = [
        ("diff(none)", "example-id-0", outputs(), inputs()),
        (
            "diff(some)",
            "example-id-1",
            olds.clone(),
            json!({
                "attrBoolRequired": true,
                "attrStringRequired": "u",
                "attrIntRequired": 64,
                "attrStringDefaultOverridden": "overridden",
            }),
        ),
        (
            "diff(all)",
            "example-id-2",
            olds,
            json!({
                "attrBoolRequired": false,
                "attrStringRequired": "u",
                "attrIntRequired": 65,
                "attrNumberRequired": 12.3456789,
            }),
        ),
    ];
    for (name, id, olds, news) in diffs {
        let diff = c
            .diff(pulumirpc::DiffRequest {
                id: id.to_owned(),
                urn: urn.clone(),
                olds: props(olds),
                news: props(news),
                old_inputs: props(inputs()),
                ..Default::default()
            })
            .await
            .map(tonic::Response::into_inner);
        record.expect(name, &golden(name), &answer(diff, harness::diff_json));
    }

    let delete = c
        .delete(pulumirpc::DeleteRequest {
            id: "example-id-delete".to_owned(),
            urn: urn.clone(),
            properties: props(outputs()),
            ..Default::default()
        })
        .await
        .map(|_| ());
    record.expect("delete", &golden("delete"), &answer(delete, harness::empty_json));

    let mut news = outputs();
    news["attrBoolRequired"] = json!(false);
    let update = c
        .update(pulumirpc::UpdateRequest {
            id: "example-update-id".to_owned(),
            urn: urn.clone(),
            olds: props(outputs()),
            news: props(news),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner);
    record.expect("update", &golden("update"), &answer(update, harness::update_json));

    let read = |properties| pulumirpc::ReadRequest {
        id: "example-read-id".to_owned(),
        urn: urn.clone(),
        properties,
        ..Default::default()
    };
    let refreshed = c.read(read(props(outputs()))).await.map(tonic::Response::into_inner);
    record.expect("read", &golden("read"), &answer(refreshed, harness::read_json));
    let imported = c.read(read(None)).await.map(tonic::Response::into_inner);
    record.expect("import", &golden("import"), &answer(imported, harness::read_json));
    record.finish();
}

/// The `parameterize` golden the three tests below hold inline.
fn pfprovider_parameterized() -> Json {
    json!({"name": "pfprovider", "version": "0.0.0"})
}

pub async fn dynamic_configure(implementation: Implementation) {
    let mut record = Record::new("TestDynamicConfigure", implementation);
    let (mut server, parameterized) = parameterized(implementation).await;
    record.expect("parameterize", &pfprovider_parameterized(), &parameterized);
    let configured = server
        .client
        .configure(pulumirpc::ConfigureRequest {
            args: props(json!({"endpoint": "my-endpoint"})),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner);
    record.expect(
        "configure",
        &json!({"acceptResources": true, "supportsAutonamingConfiguration": true, "supportsPreview": true}),
        &answer(configured, harness::configure_json),
    );
    let invoked = server
        .client
        .invoke(pulumirpc::InvokeRequest {
            tok: "pfprovider:index/getConfigEndpoint:getConfigEndpoint".to_owned(),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner);
    record.expect("invoke", &json!({"return": {"endpoint": "my-endpoint"}}), &answer(invoked, harness::invoke_json));
    record.finish();
}

pub async fn dynamic_provider_function(implementation: Implementation) {
    let mut record = Record::new("TestDynamicProviderFunction", implementation);
    let (mut server, parameterized) = parameterized(implementation).await;
    record.expect("parameterize", &pfprovider_parameterized(), &parameterized);
    let invoked = server
        .client
        .invoke(pulumirpc::InvokeRequest {
            tok: "pfprovider:index/echoUpper:echoUpper".to_owned(),
            args: props(json!({"input": "hello"})),
            ..Default::default()
        })
        .await
        .map(tonic::Response::into_inner);
    record.expect("invoke", &json!({"return": {"result": "HELLO"}}), &answer(invoked, harness::invoke_json));
    record.finish();
}

pub async fn dynamic_check_config(implementation: Implementation) {
    let mut record = Record::new("TestDynamicCheckConfig", implementation);
    let (mut server, parameterized) = parameterized(implementation).await;
    record.expect("parameterize", &pfprovider_parameterized(), &parameterized);
    let cases = [
        (
            "check-config",
            json!({"endpoint": "explicit endpoint"}),
            json!({"inputs": {"endpoint": "explicit endpoint"}}),
        ),
        ("check-config (invalid)", json!({"endpoint": 123.456}), json!({"inputs": {"endpoint": "123.456"}})),
        (
            "json-encoded-nested-config",
            json!({"nested": r#"{"field1": "true", "field2": false}"#}),
            json!({"inputs": {"nested": r#"{"field1":"true","field2":false}"#}}),
        ),
    ];
    for (name, news, golden) in cases {
        let checked = server
            .client
            .check_config(pulumirpc::CheckRequest {
                urn: "urn:pulumi:dev::teststack::pulumi:providers:pfprovider::test".to_owned(),
                news: props(news),
                ..Default::default()
            })
            .await
            .map(tonic::Response::into_inner);
        record.expect(name, &golden, &answer(checked, harness::check_json));
    }
    record.finish();
}
