//! The resource lifecycle through our binary, driven the way the Pulumi engine drives it,
//! against real Terraform providers: random, local and null (built from the Go module
//! proxy) and our SDKv2 and plugin-framework (protocol 6) test providers.
//!
//! Each test walks one resource through create, a no-change diff, an in-place update or a
//! replacement, a refresh (after an out-of-band change where the provider allows one),
//! import and delete, asserting the outputs at every step.

use crate::common;

use common::Implementation;
use common::engine_client::{Session, UNKNOWN, reveal, secret, summarize_diff, urn};
use common::versions;
use serde_json::{Value as Json, json};

async fn session(provider: &str, version: &str) -> Session {
    let path = common::real_provider(provider, version).unwrap_or_else(|err| panic!("{err}"));
    Session::start(Implementation::Ours, &path).await
}

#[tokio::test]
async fn random_pet_create_no_op_replace_refresh_delete() {
    let mut s = session("random", versions::RANDOM).await;
    s.configure(json!({})).await.expect("Configure");
    let pet = urn("random:index/pet:Pet", "pet");

    // A preview plans with unknowns where the provider computes values.
    let (_, preview) = s.try_create(&pet, &json!({"length": 2}), true).await.expect("preview");
    assert_eq!(preview["id"], UNKNOWN, "{preview}");
    assert_eq!(preview["length"], 2);

    let (inputs, id, outputs) = s.create(&pet, json!({"length": 2, "separator": "_"})).await;
    assert_eq!(id.split('_').count(), 2, "two words joined by the separator: {id}");
    assert_eq!(outputs["id"], json!(id));
    assert_eq!(outputs["length"], 2);
    assert_eq!(outputs["separator"], "_");
    // random_pet is at schema version 0 and keeps no private state: no __meta at all,
    // exactly as the Go implementation stores it.
    assert!(outputs.get("__meta").is_none(), "{outputs}");

    let same = s.diff(&pet, &id, &outputs, &inputs, &inputs).await;
    assert_eq!(summarize_diff(&same), "DIFF_NONE replaces=[] diffs=[] detailed=[]");

    let longer = json!({"length": 3, "separator": "_"});
    let diff = s.diff(&pet, &id, &outputs, &inputs, &longer).await;
    assert_eq!(
        summarize_diff(&diff),
        r#"DIFF_SOME replaces=["length"] diffs=["length"] detailed=["length:UPDATE_REPLACE"]"#
    );

    let refreshed = s.read(&pet, &id, Some(&outputs), Some(&inputs)).await.expect("Read");
    assert_eq!(refreshed.id, id);
    assert_eq!(common::engine_client::from_struct(refreshed.properties.as_ref().unwrap()), outputs);
    assert_eq!(common::engine_client::from_struct(refreshed.inputs.as_ref().unwrap()), inputs);

    s.delete(&pet, &id, &outputs, &inputs).await.expect("Delete");
}

#[tokio::test]
async fn random_password_is_secret_and_string_imports() {
    let mut s = session("random", versions::RANDOM).await;
    s.configure(json!({})).await.expect("Configure");
    let password = urn("random:index/password:Password", "pw");
    let (inputs, id, outputs) = s.create(&password, json!({"length": 16, "special": false})).await;
    assert_eq!(id, "none");
    // Sensitive attributes come back as secrets; the rest stays plain.
    let result = &outputs["result"];
    assert_eq!(result["4dabf18193072939515e22adb298388d"], "1b47061264138c4ac30d75fd1eb44270", "{outputs}");
    assert_eq!(reveal(result).as_str().map(str::len), Some(16));
    assert!(outputs["bcryptHash"].get("4dabf18193072939515e22adb298388d").is_some(), "{outputs}");
    assert_eq!(outputs["length"], 16);
    // random_password is at schema version 3: __meta records it, as a JSON string.
    assert_eq!(outputs["__meta"], r#"{"schema_version":"3"}"#);
    let same = s.diff(&password, &id, &outputs, &inputs, &inputs).await;
    assert_eq!(summarize_diff(&same), "DIFF_NONE replaces=[] diffs=[] detailed=[]");

    // Import: no outputs, only the id; the inputs come from the imported state.
    let imported = urn("random:index/string:String", "imported");
    let read = s.read(&imported, "Hello123", None, None).await.expect("import");
    assert_eq!(read.id, "Hello123");
    let props = common::engine_client::from_struct(read.properties.as_ref().unwrap());
    assert_eq!(props["result"], "Hello123");
    // As the Go implementation derives them: settable values, without the zero ones (min*).
    assert_eq!(
        common::engine_client::from_struct(read.inputs.as_ref().unwrap()),
        json!({"length": 8, "lower": true, "number": true, "numeric": true, "special": true, "upper": true})
    );
}

#[tokio::test]
async fn local_file_refresh_sees_an_out_of_band_deletion() {
    let dir = common::scratch_dir("local-file");
    let file = dir.join("hello.txt");
    let mut s = session("local", versions::LOCAL).await;
    s.configure(json!({})).await.expect("Configure");
    let f = urn("local:index/file:File", "f");
    let (inputs, id, outputs) =
        s.create(&f, json!({"filename": file.to_str().unwrap(), "content": "hi", "filePermission": "0600"})).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "hi");
    assert_eq!(outputs["contentSha256"], "8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4");
    assert_eq!(id, outputs["contentSha1"].as_str().unwrap());

    // Every local_file attribute forces replacement.
    let changed = json!({"filename": file.to_str().unwrap(), "content": "ho", "filePermission": "0600"});
    let diff = s.diff(&f, &id, &outputs, &inputs, &changed).await;
    assert!(diff.replaces.contains(&"content".to_owned()), "{}", summarize_diff(&diff));

    std::fs::remove_file(&file).unwrap();
    let gone = s.read(&f, &id, Some(&outputs), Some(&inputs)).await.expect("Read");
    assert_eq!(gone.id, "", "a resource deleted behind the provider's back is reported gone");
    assert!(gone.properties.is_none());

    // Functions and data sources.
    let exists = s.invoke("local:index/direxists:direxists", &json!({"path": dir.to_str().unwrap()})).await.unwrap();
    assert_eq!(common::engine_client::from_struct(exists.r#return.as_ref().unwrap()), json!({"result": true}));
    std::fs::write(&file, "data").unwrap();
    let read = s.invoke("local:index/getFile:getFile", &json!({"filename": file.to_str().unwrap()})).await.unwrap();
    assert!(read.failures.is_empty(), "{:?}", read.failures);
    assert_eq!(common::engine_client::from_struct(read.r#return.as_ref().unwrap())["content"], "data");
    // A number converts to a string, as in Terraform; the provider's error names the cause.
    let missing = s.invoke("local:index/getFile:getFile", &json!({"filename": 3})).await.unwrap_err();
    // The cause alone: the engine says which invoke failed ("invocation of <token> returned
    // an error: ..."), so the token is not repeated.
    assert!(!missing.message().contains("local:index/getFile:getFile"), "{}", missing.message());
    assert!(missing.message().contains("open 3: no such file or directory"), "{}", missing.message());
}

#[tokio::test]
async fn null_resource_on_the_legacy_sdk() {
    let mut s = session("null", versions::NULL).await;
    s.configure(json!({})).await.expect("Configure");
    let n = urn("null:index/resource:Resource", "n");
    let (inputs, id, outputs) = s.create(&n, json!({"triggers": {"a": "1"}})).await;
    assert!(id.parse::<u64>().is_ok(), "null_resource ids are random numbers: {id}");
    assert_eq!(outputs["triggers"], json!({"a": "1"}));
    let same = s.diff(&n, &id, &outputs, &inputs, &inputs).await;
    assert_eq!(summarize_diff(&same), "DIFF_NONE replaces=[] diffs=[] detailed=[]");
    let diff = s.diff(&n, &id, &outputs, &inputs, &json!({"triggers": {"a": "2"}})).await;
    assert_eq!(summarize_diff(&diff).split(" diffs").next().unwrap(), r#"DIFF_SOME replaces=["triggers"]"#);
    s.delete(&n, &id, &outputs, &inputs).await.expect("Delete");
}

/// The stored JSON record the SDKv2 and framework test providers keep per object.
fn record(dir: &std::path::Path, ty: &str, id: &str) -> Json {
    let path = dir.join(ty).join(format!("{id}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .expect("JSON record")
}

#[tokio::test]
async fn sdkv2_thing_update_in_place_drift_import_and_timeouts() {
    let dir = common::scratch_dir("sdkv2");
    let mut s = session("sdkv2test", "current").await;

    // A missing required provider setting is a ConfigureErrorMissingKeys.
    let missing = s.configure(json!({})).await;
    let status = missing.expect_err("dir is required");
    assert!(status.message().contains("sdkv2test:dir"), "{}", status.message());
    s.configure(json!({"dir": dir.to_str().unwrap()})).await.expect("Configure");

    let thing = urn("sdkv2test:index/thing:Thing", "t");
    // Provider validation becomes a CheckFailure on the Pulumi property.
    let bad = s.check(&thing, &json!({}), &json!({"name": "not a file name!"})).await;
    assert_eq!(bad.failures.len(), 1, "{:?}", bad.failures);
    assert_eq!(bad.failures[0].property, "name");
    assert!(bad.failures[0].reason.contains("must match"), "{:?}", bad.failures);

    let news = json!({
        "name": "t1", "tags": {"env": "dev"}, "labels": ["b", "a"],
        "settings": {"level": 2}, "rules": [{"port": 80}], "secret": secret(json!("s3cret")),
    });
    let (inputs, id, outputs) = s.create(&thing, news).await;
    assert_eq!(id, "t1");
    assert_eq!(outputs["description"], "managed by sdkv2test");
    assert_eq!(outputs["settings"], json!({"level": 2, "mode": "fast"}), "MaxItems=1 flattened, default applied");
    assert_eq!(outputs["rules"], json!([{"port": 80, "protocol": "tcp"}]));
    assert_eq!(outputs["secret"], secret(json!("s3cret")));
    assert_eq!(record(&dir, "sdkv2test_thing", "t1")["attributes"]["tags"], json!({"env": "dev"}));

    let same = s.diff(&thing, &id, &outputs, &inputs, &inputs).await;
    assert_eq!(summarize_diff(&same), "DIFF_NONE replaces=[] diffs=[] detailed=[]");

    let mut retagged = inputs.clone();
    retagged["tags"] = json!({"env": "prod", "team": "a"});
    let diff = s.diff(&thing, &id, &outputs, &inputs, &retagged).await;
    assert_eq!(
        summarize_diff(&diff),
        r#"DIFF_SOME replaces=[] diffs=["tags"] detailed=["tags.env:UPDATE", "tags.team:ADD"]"#
    );
    let updated = s.update(&thing, &id, &outputs, &inputs, &retagged).await.expect("Update");
    assert_eq!(updated["tags"], json!({"env": "prod", "team": "a"}));
    assert_eq!(record(&dir, "sdkv2test_thing", "t1")["attributes"]["tags"], json!({"env": "prod", "team": "a"}));

    // Drift: edit the stored object behind the provider's back.
    let path = dir.join("sdkv2test_thing/t1.json");
    let mut stored = record(&dir, "sdkv2test_thing", "t1");
    stored["attributes"]["description"] = json!("edited out of band");
    std::fs::write(&path, stored.to_string()).unwrap();
    let refreshed = s.read(&thing, &id, Some(&updated), Some(&retagged)).await.expect("Read");
    let refreshed_outputs = common::engine_client::from_struct(refreshed.properties.as_ref().unwrap());
    assert_eq!(refreshed_outputs["description"], "edited out of band");
    assert_eq!(refreshed_outputs["secret"], secret(json!("s3cret")), "secrets stay secret through a refresh");

    // Import by name.
    let imported = s.read(&urn("sdkv2test:index/thing:Thing", "imp"), "t1", None, None).await.expect("import");
    let imported_inputs = common::engine_client::from_struct(imported.inputs.as_ref().unwrap());
    assert_eq!(imported_inputs["name"], "t1");
    assert_eq!(imported_inputs["tags"], json!({"env": "prod", "team": "a"}));
    assert!(imported_inputs.get("fingerprint").is_none(), "computed-only values are not inputs: {imported_inputs}");

    s.delete(&thing, &id, &refreshed_outputs, &retagged).await.expect("Delete");
    assert!(!path.exists(), "the object is deleted");
}

#[tokio::test]
async fn sdkv2_thing_gets_the_engine_timeout_in_its_timeouts_block() {
    let dir = common::scratch_dir("sdkv2-timeouts");
    let mut s = session("sdkv2test", "current").await;
    s.configure(json!({"dir": dir.to_str().unwrap()})).await.expect("Configure");
    let thing = urn("sdkv2test:index/thing:Thing", "slow");
    let checked = s.check(&thing, &json!({}), &json!({"name": "slow"})).await;
    let inputs = common::engine_client::from_struct(checked.inputs.as_ref().unwrap());
    let response = s
        .client
        .create(tfbridge_proto::pulumirpc::CreateRequest {
            urn: thing.clone(),
            properties: Some(common::engine_client::to_struct(&inputs)),
            timeout: 45.0,
            ..Default::default()
        })
        .await
        .expect("Create")
        .into_inner();
    assert_eq!(response.id, "slow");
    // The provider saw 45 s (from customTimeouts), not its 2-minute default.
    assert_eq!(record(&dir, "sdkv2test_thing", "slow")["observed"]["create_timeout_seconds"], 45);
}

#[tokio::test]
async fn framework_widget_over_protocol_6() {
    let dir = common::scratch_dir("framework6");
    let mut s = session("framework6test", "current").await;
    s.configure(json!({"dir": dir.to_str().unwrap()})).await.expect("Configure");
    let widget = urn("framework6test:index/widget:Widget", "w");
    let (inputs, id, outputs) = s.create(&widget, json!({"name": "w1", "replicas": 2, "passwordWo": "pw"})).await;
    assert_eq!(id, "w1");
    assert_eq!(outputs["tier"], "standard", "framework default applied at plan");
    assert!(outputs.get("passwordWo").is_none(), "write-only values are never stored: {outputs}");

    let same = s.diff(&widget, &id, &outputs, &inputs, &inputs).await;
    assert_eq!(summarize_diff(&same), "DIFF_NONE replaces=[] diffs=[] detailed=[]");
    let mut bigger = inputs.clone();
    bigger["replicas"] = json!(3);
    let diff = s.diff(&widget, &id, &outputs, &inputs, &bigger).await;
    assert_eq!(summarize_diff(&diff), r#"DIFF_SOME replaces=[] diffs=["replicas"] detailed=["replicas:UPDATE"]"#);
    let updated = s.update(&widget, &id, &outputs, &inputs, &bigger).await.expect("Update");
    assert_eq!(updated["replicas"], 3);

    let mut renamed = bigger.clone();
    renamed["name"] = json!("w2");
    let diff = s.diff(&widget, &id, &updated, &bigger, &renamed).await;
    assert!(diff.replaces.contains(&"name".to_owned()), "{}", summarize_diff(&diff));

    let upper = s.invoke("framework6test:index/upper:upper", &json!({"input": "abc"})).await.expect("function");
    assert!(upper.failures.is_empty(), "{:?}", upper.failures);
    assert_eq!(common::engine_client::from_struct(upper.r#return.as_ref().unwrap()), json!({"result": "ABC"}));
    s.delete(&widget, &id, &updated, &bigger).await.expect("Delete");
}

#[tokio::test]
async fn bad_requests_are_clear_errors() {
    let mut s = session("random", versions::RANDOM).await;
    s.configure(json!({})).await.expect("Configure");
    let unknown_type = s.try_check(&urn("random:index/nope:Nope", "x"), &json!({}), &json!({})).await.unwrap_err();
    assert_eq!(unknown_type.message(), r#""random:index/nope:Nope" is not a resource of the random package"#);

    let pet = urn("random:index/pet:Pet", "pet");
    let wrong_type = s.check(&pet, &json!({}), &json!({"length": "three"})).await;
    assert_eq!(wrong_type.failures.len(), 1, "{:?}", wrong_type.failures);
    assert_eq!(wrong_type.failures[0].property, "length");
    assert!(wrong_type.failures[0].reason.contains("\"three\" is not a number"), "{:?}", wrong_type.failures);

    let extra = s.check(&pet, &json!({}), &json!({"lenght": 3})).await;
    assert_eq!(extra.failures[0].property, "lenght");
    assert!(extra.failures[0].reason.contains("unknown property"), "{:?}", extra.failures);
}

#[tokio::test]
async fn name_is_autonamed_unless_the_engine_says_otherwise() {
    use tfbridge_proto::pulumirpc::check_request::{AutonamingOptions, autonaming_options::Mode};
    let dir = common::scratch_dir("autoname");
    let mut s = session("sdkv2test", "current").await;
    s.configure(json!({"dir": dir.to_str().unwrap()})).await.expect("Configure");
    let thing = urn("sdkv2test:index/thing:Thing", "auto");
    let name_of = |response: &tfbridge_proto::pulumirpc::CheckResponse| {
        common::engine_client::from_struct(response.inputs.as_ref().unwrap())["name"].clone()
    };
    // Default: `<resource name>-<7 hex digits>` from the engine's random seed (7s here).
    let checked = s.check(&thing, &json!({}), &json!({})).await;
    assert_eq!(name_of(&checked), "auto-0707070", "{:?}", checked.failures);
    // An update keeps the name chosen before.
    let again = s.check(&thing, &json!({"name": "auto-1234567"}), &json!({})).await;
    assert_eq!(name_of(&again), "auto-1234567");
    // The program's own name wins.
    let own = s.check(&thing, &json!({}), &json!({"name": "mine"})).await;
    assert_eq!(name_of(&own), "mine");
    // Engines of 3.261 and later send the stored outputs on an update's Check too. Stored
    // inputs without the name (the object was made while autonaming was off) keep the name
    // the object has, rather than a fresh one that would replace it.
    let old_outputs = json!({"id": "made-earlier", "name": "made-earlier", "description": "d"});
    let kept = s.try_check_with_old_outputs(&thing, &json!({}), &json!({}), Some(&old_outputs)).await.unwrap();
    assert_eq!(name_of(&kept), "made-earlier", "{:?}", kept.failures);
    // The name the old inputs hold still comes first, and the program's own name wins.
    let olds = json!({"name": "auto-1234567"});
    let both = s.try_check_with_old_outputs(&thing, &olds, &json!({}), Some(&old_outputs)).await.unwrap();
    assert_eq!(name_of(&both), "auto-1234567");
    let own = s.try_check_with_old_outputs(&thing, &olds, &json!({"name": "mine"}), Some(&old_outputs)).await.unwrap();
    assert_eq!(name_of(&own), "mine");

    let with_options = |mode: Mode, proposed: &str| tfbridge_proto::pulumirpc::CheckRequest {
        urn: thing.clone(),
        olds: Some(common::engine_client::to_struct(&json!({}))),
        news: Some(common::engine_client::to_struct(&json!({}))),
        random_seed: vec![7; 32],
        name: "auto".into(),
        r#type: "sdkv2test:index/thing:Thing".into(),
        autonaming: Some(AutonamingOptions { proposed_name: proposed.into(), mode: mode as i32 }),
        old_outputs: None,
    };
    let proposed = s.client.check(with_options(Mode::Propose, "team-auto")).await.unwrap().into_inner();
    assert_eq!(name_of(&proposed), "team-auto");
    let enforced = s.client.check(with_options(Mode::Enforce, "exactly-this")).await.unwrap().into_inner();
    assert_eq!(name_of(&enforced), "exactly-this");
    let disabled = s.client.check(with_options(Mode::Disable, "")).await.unwrap().into_inner();
    assert_eq!(name_of(&disabled), Json::Null);
    assert_eq!(disabled.failures.len(), 1, "name is then required: {:?}", disabled.failures);
    assert_eq!(disabled.failures[0].property, "name");
}

#[tokio::test]
async fn secrets_inside_a_dynamic_value_stay_secret() {
    let dir = common::scratch_dir("dynamic-secret");
    let mut s = session("framework6test", "current").await;
    s.configure(json!({"dir": dir.to_str().unwrap()})).await.expect("Configure");
    let widget = urn("framework6test:index/widget:Widget", "dyn");
    let extra = json!({"plain": "p", "hidden": secret(json!("h"))});
    let (_, _, outputs) = s.create(&widget, json!({"name": "dyn", "extra": extra})).await;
    assert_eq!(outputs["extra"]["plain"], "p", "{outputs}");
    assert_eq!(outputs["extra"]["hidden"], secret(json!("h")), "{outputs}");
}

/// Read as the engine's `resourceExists` sends it (3.273 and later; generated SDKs' `exists`
/// methods): an ID, empty properties, no inputs, a made-up URN. An object that is there comes
/// back with its outputs; a missing one as an empty answer (no ID, no properties at all: the
/// engine takes empty-but-present properties for "unknown"), never an error. On an SDKv2
/// provider and a plugin-framework one; the Go implementation beside ours answers a missing
/// object with empty properties and inputs, so the engine says "unknown" for it.
#[tokio::test]
async fn read_by_id_alone_answers_empty_for_a_missing_object() {
    for implementation in [Implementation::Ours, Implementation::Go] {
        for (provider, token, news) in [
            ("sdkv2test", "sdkv2test:index/thing:Thing", json!({"name": "present"})),
            ("framework6test", "framework6test:index/widget:Widget", json!({"name": "present", "replicas": 1})),
        ] {
            let case = format!("{provider} with {implementation:?}");
            let dir = common::scratch_dir("exists");
            let path = common::real_provider(provider, "current").unwrap_or_else(|err| panic!("{err}"));
            let mut s = Session::start(implementation, &path).await;
            s.configure(json!({"dir": dir.to_str().unwrap()})).await.expect("Configure");
            let (_, id, outputs) = s.create(&urn(token, "made"), news).await;
            assert_eq!(id, "present", "{case}");

            let exists = |id: &str| tfbridge_proto::pulumirpc::ReadRequest {
                id: id.to_owned(),
                urn: urn(token, "__exists__1"),
                properties: Some(common::engine_client::to_struct(&json!({}))),
                name: "__exists__1".into(),
                r#type: token.into(),
                ..Default::default()
            };
            let present = s.client.read(exists("present")).await.unwrap_or_else(|e| panic!("{case}: {e}")).into_inner();
            assert_eq!(present.id, "present", "{case}");
            let read = common::engine_client::from_struct(present.properties.as_ref().expect("properties"));
            assert_eq!(read["name"], outputs["name"], "{case}: {read}");

            let missing = s.client.read(exists("absent")).await.unwrap_or_else(|e| panic!("{case}: {e}")).into_inner();
            assert_eq!(missing.id, "", "{case}: {missing:?}");
            match implementation {
                Implementation::Ours => {
                    assert!(missing.properties.is_none(), "{case}: no properties at all, not empty ones: {missing:?}");
                    assert!(missing.inputs.is_none(), "{case}: {missing:?}");
                }
                Implementation::Go => {
                    let empty = Some(common::engine_client::to_struct(&json!({})));
                    assert_eq!((&missing.properties, &missing.inputs), (&empty, &empty), "{case}");
                }
            }
        }
    }
}
