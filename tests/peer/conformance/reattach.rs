//! The reattach tests (`dynamic/internal/shim/run/reattach_test.go`), from outside: the Go
//! tests call the loader (`NamedProvider`) in-process with `PULUMI_BRIDGE_REATTACH_PROVIDERS`
//! set; here the plugin gets that variable and is parameterized with the provider's address,
//! which makes the same call. The Go tests serve an empty plugin-framework provider in debug
//! mode; here real framework providers in debug mode stand in for it (tfcoremock on protocol
//! 6, random on protocol 5), keyed as the Go tests key theirs (`test/mini`).

use std::ffi::OsString;

use serde_json::{Value as Json, json};
use tfbridge_proto::pulumirpc;

use super::harness::{Record, Server};
use crate::common::{self, Implementation, versions};

const TEST: &str = "reattach_test.go";
const VARIABLE: &str = "PULUMI_BRIDGE_REATTACH_PROVIDERS";

/// A provider started with `-debug`, and the reattach entry it printed (the value of its one
/// key in TF_REATTACH_PROVIDERS).
struct Debugged {
    _child: tokio::process::Child,
    entry: Json,
}

async fn debugged(name: &str, version: &str) -> Debugged {
    let (child, value) = common::debug_mode(name, version).await;
    let all: serde_json::Map<String, Json> = serde_json::from_str(&value).expect("TF_REATTACH_PROVIDERS is JSON");
    let entry = all.into_iter().next().expect("one provider").1;
    Debugged { _child: child, entry }
}

/// Parameterize `address` with the variable set to `value`: the answer (name and version, and
/// whether GetSchema then works), or the error.
async fn parameterize(implementation: Implementation, value: &str, address: &str) -> Result<Json, String> {
    let mut server = Server::start(implementation, &[(VARIABLE, OsString::from(value))]).await;
    let parameterized = server.parameterize(&[address]).await.map_err(|status| status.message().to_owned())?;
    let schema = server
        .client
        .get_schema(pulumirpc::GetSchemaRequest {
            version: 0,
            subpackage_name: parameterized.name.clone(),
            subpackage_version: parameterized.version.clone(),
        })
        .await;
    Ok(json!({"name": parameterized.name, "version": parameterized.version, "schema": schema.is_ok()}))
}

/// What `require.ErrorContains(err, wanted)` asserts, as a value: `wanted` when the error
/// holds it, else the error (or the answer) itself.
fn error_containing(result: Result<Json, String>, wanted: &str) -> Json {
    match result {
        Err(message) if message.contains(wanted) => json!({"errorContains": wanted}),
        Err(message) => json!({"errorContains": message}),
        Ok(answer) => json!({"errorContains": {"no error": answer}}),
    }
}

pub async fn reattach(implementation: Implementation) {
    let mut record = Record::new(TEST, implementation);
    let (v6, v5) = tokio::join!(debugged("tfcoremock", versions::TFCOREMOCK), debugged("random", versions::RANDOM));
    let keyed = |entry: &Json| json!({"test/mini": entry}).to_string();
    let mini = json!({"name": "mini", "version": "0.0.0", "schema": true});
    let answer = |result: Result<Json, String>| result.unwrap_or_else(|message| json!({"<error>": message}));

    let named = parameterize(implementation, &keyed(&v6.entry), "test/mini").await;
    record.expect("TestNamedProviderReattach", &mini, &answer(named));
    let protocol5 = parameterize(implementation, &keyed(&v5.entry), "test/mini").await;
    record.expect(
        "TestNamedProviderReattachProtocol5",
        &json!({"schema": true}),
        &json!({"schema": answer(protocol5)["schema"]}),
    );
    let normalized = parameterize(implementation, &keyed(&v6.entry), "registry.opentofu.org/test/mini").await;
    record.expect(
        "TestNamedProviderReattachNormalizesAddresses",
        &json!({}),
        &normalized.map_or_else(|m| json!({"<error>": m}), |_| json!({})),
    );

    let invalid = parameterize(implementation, "not json", "test/mini").await;
    record.expect(
        "TestNamedProviderReattachInvalidEnv",
        &json!({"errorContains": VARIABLE}),
        &error_containing(invalid, VARIABLE),
    );
    // As the Go test's json.Marshal writes its map: keys sorted, the empty entry with every
    // field at its zero value.
    let zero = r#"{"Protocol":"","ProtocolVersion":0,"Pid":0,"Test":false,"Addr":{"Network":"","String":""}}"#;
    let sibling = format!(r#"{{"bad key!":{zero},"test/mini":{}}}"#, v6.entry);
    let malformed = parameterize(implementation, &sibling, "test/mini").await;
    let wanted = r#"provider key "bad key!""#;
    record.expect(
        "TestNamedProviderReattachMalformedSiblingKey",
        &json!({"errorContains": wanted}),
        &error_containing(malformed, wanted),
    );

    for (name, network, protocol, wanted) in [
        ("unsupported network", "pipe", "grpc", r#"unsupported network "pipe""#),
        ("unsupported protocol", "unix", "netrpc", r#"unsupported protocol "netrpc""#),
        ("empty protocol", "unix", "", r#"unsupported protocol """#),
    ] {
        let entry = json!({"Protocol": protocol, "ProtocolVersion": 6, "Pid": 0, "Test": false,
            "Addr": {"Network": network, "String": "/tmp/plugin.sock"}});
        let result = parameterize(implementation, &keyed(&entry), "test/mini").await;
        record.expect(
            &format!("TestReattachProviderRejectsUnsupportedEntries/{name}"),
            &json!({"errorContains": wanted}),
            &error_containing(result, wanted),
        );
    }
    record.finish();
}
