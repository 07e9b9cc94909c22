//! Table tests of the resource, data source and function behaviour, on the neutral RPC
//! types, without a process or a socket.

use std::fs::File;
use std::path::PathBuf;

use expect_test::{Expect, expect};
use rmpv::Value;
use tokio::sync::watch;

use crate::provider::Fixture;
use crate::rpc::{ApplyRequest, Diagnostic, PlanRequest, ReadRequest, UpgradeRequest};
use crate::value;

fn fixture(store_dir: Option<PathBuf>) -> Fixture {
    let (_sender, flood_done) = watch::channel(true);
    let sink = File::options().write(true).open("/dev/null").expect("open /dev/null");
    Fixture::new(crate::fixture_schema(), Default::default(), flood_done, sink, store_dir)
}

/// Encodes `json` (cty JSON) as a value of `type_name`'s schema; `null` stays null.
fn state(fixture: &Fixture, type_name: &str, json: serde_json::Value) -> Vec<u8> {
    let ty = fixture.schema.resources[type_name].block.implied_type();
    value::encode(&value::from_json(&json, &ty, "").expect("test JSON fits the schema"))
}

/// Renders msgpack compactly, leaving out null attributes: `{id: (unknown), name: "a"}`.
fn render(bytes: &[u8]) -> String {
    fn go(value: &Value) -> String {
        match value {
            Value::Nil => "null".to_owned(),
            Value::Ext(..) => "(unknown)".to_owned(),
            Value::String(text) => format!("{:?}", text.as_str().unwrap_or_default()),
            Value::Binary(bytes) => format!("bin({})", String::from_utf8_lossy(bytes)),
            Value::Array(items) => format!("[{}]", items.iter().map(go).collect::<Vec<_>>().join(", ")),
            Value::Map(entries) => format!(
                "{{{}}}",
                entries
                    .iter()
                    .filter(|(_, item)| !item.is_nil())
                    .map(|(key, item)| format!("{}: {}", key.as_str().unwrap_or("?"), go(item)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            other => other.to_string(),
        }
    }
    match value::decode(bytes) {
        Ok(value) => go(&value),
        Err(err) => format!("<{err}>"),
    }
}

fn render_diagnostics(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(|d| {
            format!("{} {:?} {:?} at {:?}", if d.error { "error" } else { "warning" }, d.summary, d.detail, d.attribute)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn plan(
    fixture: &Fixture,
    type_name: &str,
    prior: serde_json::Value,
    config: serde_json::Value,
) -> crate::rpc::PlanResponse {
    // The fixture's plan reads only the proposed state's shape, so the config doubles as
    // the proposal except that computed attributes keep their prior values, as Terraform's
    // ProposedNewState does.
    let mut proposed = config.clone();
    if let (Some(prior), Some(proposed)) = (prior.as_object(), proposed.as_object_mut()) {
        for (name, attribute) in &fixture.schema.resources[type_name].block.attributes {
            if attribute.computed && proposed.get(name).is_none_or(serde_json::Value::is_null) {
                proposed.insert(name.clone(), prior.get(name).cloned().unwrap_or_default());
            }
        }
    }
    fixture.plan_resource_change(&PlanRequest {
        type_name: type_name.to_owned(),
        prior_state: state(fixture, type_name, prior),
        proposed_new_state: state(fixture, type_name, proposed),
        config: state(fixture, type_name, config),
        prior_private: Vec::new(),
        planned_private: Vec::new(),
    })
}

fn check_plan(type_name: &str, prior: serde_json::Value, config: serde_json::Value, expect: Expect) {
    let fixture = fixture(None);
    let response = plan(&fixture, type_name, prior, config);
    let text = format!(
        "planned {}\nrequires_replace {:?}\nlegacy {} deferred {:?}\n{}",
        render(&response.planned_state),
        response.requires_replace,
        response.legacy_type_system,
        response.deferred,
        render_diagnostics(&response.diagnostics)
    );
    expect.assert_eq(text.trim_end());
}

#[test]
fn plans() {
    use serde_json::json;
    let null = serde_json::Value::Null;
    // Create: computed attributes unknown, write-only planned null.
    check_plan(
        "fixture_flags",
        null.clone(),
        json!({"name": "a", "password_wo": "secret", "region": null}),
        expect![[r#"
            planned {created_at: (unknown), id: (unknown), name: "a", region: (unknown)}
            requires_replace []
            legacy false deferred None"#]],
    );
    // Update of a force-new attribute: prior computed values kept, replacement required.
    check_plan(
        "fixture_flags",
        json!({"id": "flags-1", "name": "a", "created_at": "then", "region": "r"}),
        json!({"name": "b"}),
        expect![[r#"
            planned {created_at: "then", id: "flags-1", name: "b", region: "r"}
            requires_replace [[Attribute("name")]]
            legacy false deferred None"#]],
    );
    // An in-place update.
    check_plan(
        "fixture_misbehave",
        json!({"id": "m-1", "value": "a", "computed_value": "c"}),
        json!({"value": "b"}),
        expect![[r#"
            planned {computed_value: "c", id: "m-1", value: "b"}
            requires_replace []
            legacy false deferred None"#]],
    );
    // Computed attributes inside nested blocks and nested attributes.
    check_plan(
        "fixture_blocks",
        null.clone(),
        json!({"name": "n", "list_block": [{"value": "x", "inner_set": []}], "group_block": {"value": "g"}, "set_block": [], "map_block": {}, "single_list_block": [], "dynamic_list_block": {"value": [], "type": ["tuple", []]}}),
        expect![[r#"
            planned {dynamic_list_block: [bin(["tuple",[]]), []], group_block: {count: (unknown), value: "g"}, id: (unknown), list_block: [{computed_value: (unknown), inner_set: [], value: "x"}], map_block: {}, name: "n", set_block: [], single_list_block: []}
            requires_replace []
            legacy false deferred None"#]],
    );
    check_plan(
        "fixture_nested_attributes",
        null.clone(),
        json!({"single_nested": {"name": "s"}}),
        expect![[r#"
            planned {computed_nested: (unknown), id: (unknown), single_nested: {name: "s", size: (unknown)}}
            requires_replace []
            legacy false deferred None"#]],
    );
    // Destroy.
    check_plan(
        "fixture_flags",
        json!({"id": "flags-1", "name": "a"}),
        null.clone(),
        expect![[r#"
            planned null
            requires_replace []
            legacy false deferred None"#]],
    );
}

#[test]
fn plan_misbehaviours() {
    use serde_json::json;
    let cases: [(&str, Expect); 5] = [
        (
            "legacy_type_system,plan_differs_from_config",
            expect![[r#"
                planned {computed_value: (unknown), id: (unknown), misbehave: "legacy_type_system,plan_differs_from_config", value: "v-planned"}
                requires_replace []
                legacy true deferred None"#]],
        ),
        (
            "plan_differs_from_config",
            expect![[r#"
                planned {computed_value: (unknown), id: (unknown), misbehave: "plan_differs_from_config", value: "v-planned"}
                requires_replace []
                legacy false deferred None"#]],
        ),
        (
            "requires_replace_nonexistent",
            expect![[r#"
                planned {computed_value: (unknown), id: (unknown), misbehave: "requires_replace_nonexistent", value: "v"}
                requires_replace [[Attribute("no_such_attribute")]]
                legacy false deferred None"#]],
        ),
        (
            "write_only_in_plan",
            expect![[r#"
                planned {computed_value: (unknown), id: (unknown), misbehave: "write_only_in_plan", secret_wo: "leaked", value: "v"}
                requires_replace []
                legacy false deferred None"#]],
        ),
        (
            "deferred",
            expect![[r#"
                planned {misbehave: "deferred", secret_wo: "s", value: "v"}
                requires_replace []
                legacy false deferred Some(1)"#]],
        ),
    ];
    for (misbehave, expect) in cases {
        check_plan(
            "fixture_misbehave",
            serde_json::Value::Null,
            json!({"misbehave": misbehave, "value": "v", "secret_wo": "s"}),
            expect,
        );
    }
}

async fn plan_and_apply(fixture: &Fixture, type_name: &str, config: serde_json::Value) -> crate::rpc::ApplyResponse {
    let planned = plan(fixture, type_name, serde_json::Value::Null, config.clone());
    fixture
        .apply_resource_change(&ApplyRequest {
            type_name: type_name.to_owned(),
            prior_state: value::encode(&Value::Nil),
            planned_state: planned.planned_state,
            config: state(fixture, type_name, config),
            planned_private: planned.planned_private,
        })
        .await
}

async fn check_apply(type_name: &str, config: serde_json::Value, expect: Expect) {
    let fixture = fixture(None);
    let response = plan_and_apply(&fixture, type_name, config).await;
    let text = format!(
        "new {}\nprivate {:?} legacy {}\n{}",
        render(&response.new_state),
        String::from_utf8_lossy(&response.private),
        response.legacy_type_system,
        render_diagnostics(&response.diagnostics)
    );
    expect.assert_eq(text.trim_end());
}

#[tokio::test]
async fn applies() {
    use serde_json::json;
    check_apply(
        "fixture_flags",
        json!({"name": "a", "password_wo": "secret"}),
        expect![[r#"
            new {created_at: "computed-created_at", id: "flags-1", name: "a", region: "computed-region"}
            private "fixture-private:fixture_flags" legacy false"#]],
    )
    .await;
    check_apply(
        "fixture_nested_attributes",
        json!({"single_nested": {"name": "s"}}),
        expect![[r#"
            new {computed_nested: [{address: "computed-address", inner: {depth: 42}}], id: "nested_attributes-1", single_nested: {name: "s", size: 42}}
            private "fixture-private:fixture_nested_attributes" legacy false"#]],
    )
    .await;
    let cases: [(&str, Expect); 6] = [
        (
            "apply_changes_known_value",
            expect![[r#"
                new {computed_value: "computed-computed_value", id: "misbehave-1", items: ["a"], misbehave: "apply_changes_known_value", value: "v-applied"}
                private "fixture-private:fixture_misbehave" legacy false"#]],
        ),
        (
            "unknown_after_apply",
            expect![[r#"
                new {computed_value: (unknown), id: "misbehave-1", items: ["a"], misbehave: "unknown_after_apply", value: "v"}
                private "fixture-private:fixture_misbehave" legacy false"#]],
        ),
        (
            "null_after_apply",
            expect![[r#"
                new null
                private "fixture-private:fixture_misbehave" legacy false"#]],
        ),
        (
            "set_elements_uncorrelated",
            expect![[r#"
                new {computed_value: "computed-computed_value", id: "misbehave-1", items: ["a-uncorrelated"], misbehave: "set_elements_uncorrelated", value: "v"}
                private "fixture-private:fixture_misbehave" legacy false"#]],
        ),
        (
            "legacy_type_system",
            expect![[r#"
                new {computed_value: "computed-computed_value", id: "misbehave-1", items: ["a"], misbehave: "legacy_type_system", value: "v"}
                private "fixture-private:fixture_misbehave" legacy true"#]],
        ),
        (
            "error_with_partial_state",
            expect![[r#"
                new {computed_value: "computed-computed_value", id: "misbehave-1", items: ["a"], misbehave: "error_with_partial_state", value: "v"}
                private "fixture-private:fixture_misbehave" legacy false
                error "Partial failure" "The fixture created the object but failed to finish configuring it." at None"#]],
        ),
    ];
    for (misbehave, expect) in cases {
        check_apply("fixture_misbehave", json!({"misbehave": misbehave, "value": "v", "items": ["a"]}), expect).await;
    }
}

#[tokio::test]
async fn slow_apply_ends_at_stop() {
    let fixture = std::sync::Arc::new(fixture(None));
    let stopper = fixture.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        stopper.stop();
    });
    let started = std::time::Instant::now();
    let response = plan_and_apply(&fixture, "fixture_misbehave", serde_json::json!({"misbehave": "slow_apply"})).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    assert_eq!(render(&response.new_state), "null");
    assert_eq!(response.diagnostics[0].summary, "Apply interrupted");
}

#[tokio::test]
async fn store_backs_read_import_and_delete() {
    let dir = std::env::temp_dir().join(format!("fixture-store-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let fixture = fixture(Some(dir.clone()));
    let applied = plan_and_apply(&fixture, "fixture_computed_id", serde_json::json!({"value": "v"})).await;
    let file = dir.join("fixture_computed_id/computed_id-1.json");
    let stored: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(stored, serde_json::json!({"id": "computed_id-1", "value": "v"}));

    // An out-of-band change shows up on read and import.
    std::fs::write(&file, r#"{"id": "computed_id-1", "value": "changed"}"#).unwrap();
    let read = |current: &[u8]| {
        fixture.read_resource(&ReadRequest {
            type_name: "fixture_computed_id".to_owned(),
            current_state: current.to_vec(),
            private: b"p".to_vec(),
        })
    };
    let response = read(&applied.new_state);
    assert_eq!(render(&response.new_state), r#"{id: "computed_id-1", value: "changed"}"#);
    assert_eq!(response.private, b"p");
    let imported = fixture.import_resource_state("fixture_computed_id", "computed_id-1");
    assert_eq!(render(&imported.imported[0].state), r#"{id: "computed_id-1", value: "changed"}"#);

    // A second apply skips ids the store holds, even from a fresh process.
    let again = self::fixture(Some(dir.clone()));
    let second = plan_and_apply(&again, "fixture_computed_id", serde_json::json!({})).await;
    assert_eq!(render(&second.new_state), r#"{id: "computed_id-2"}"#);

    // Deleting out of band: read answers null.
    std::fs::remove_file(&file).unwrap();
    assert_eq!(render(&read(&applied.new_state).new_state), "null");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn imports() {
    let fixture = fixture(None);
    let single = fixture.import_resource_state("fixture_blocks", "b-7");
    assert_eq!(single.imported.len(), 1);
    expect![[r#"{dynamic_list_block: [bin(["tuple",[]]), []], group_block: {}, id: "b-7", list_block: [], map_block: {}, set_block: [], single_list_block: []}"#]]
        .assert_eq(&render(&single.imported[0].state));
    let multi = fixture.import_resource_state("fixture_flags", "multi:x");
    let ids: Vec<String> = multi.imported.iter().map(|imported| render(&imported.state)).collect();
    assert_eq!(ids, [r#"{id: "x-1"}"#, r#"{id: "x-2"}"#]);
    assert_eq!(
        render_diagnostics(&fixture.import_resource_state("fixture_nope", "x").diagnostics),
        r#"error "The fixture provider has no resource type named \"fixture_nope\"" "" at None"#
    );
}

#[test]
fn upgrades() {
    let fixture = fixture(None);
    let upgrade = |type_name: &str, version: i64, json: &str| {
        let response = fixture.upgrade_resource_state(&UpgradeRequest {
            type_name: type_name.to_owned(),
            version,
            raw_json: json.as_bytes().to_vec(),
            raw_flatmap: Default::default(),
        });
        format!("{} {}", render(&response.upgraded_state), render_diagnostics(&response.diagnostics))
    };
    expect![[r#"{id: "v-1", value: "old"} "#]].assert_eq(&upgrade(
        "fixture_versioned",
        1,
        r#"{"id": "v-1", "legacy_value": "old"}"#,
    ));
    expect![[r#"{id: "v-1", value: "now"} "#]].assert_eq(&upgrade(
        "fixture_versioned",
        3,
        r#"{"id": "v-1", "value": "now", "removed": 1}"#,
    ));
    expect![[r#"null error "State version is newer than the provider" "fixture_versioned state is at schema version 4, but this provider knows versions up to 3." at None"#]]
        .assert_eq(&upgrade("fixture_versioned", 4, "{}"));
    expect![[r#"null error "Invalid raw state" "number_value: expected a number" at None"#]].assert_eq(&upgrade(
        "fixture_types",
        0,
        r#"{"number_value": [1]}"#,
    ));
    let flatmap = fixture.upgrade_resource_state(&UpgradeRequest {
        type_name: "fixture_flags".to_owned(),
        version: 0,
        raw_json: Vec::new(),
        raw_flatmap: [("id", "f-1"), ("name", "n"), ("sensitive_tags.%", "1"), ("sensitive_tags.k", "v")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
    });
    assert_eq!(render(&flatmap.upgraded_state), r#"{id: "f-1", name: "n", sensitive_tags: {k: "v"}}"#);
}

#[test]
fn validation() {
    use serde_json::json;
    let fixture = fixture(None);
    let cases = [
        ("fixture_flags", json!({"name": "ok"}), ""),
        (
            "fixture_flags",
            json!({"name": "bad"}),
            r#"error "Invalid name" "The name \"bad\" is reserved by the fixture provider." at Some([Attribute("name")])"#,
        ),
        (
            "fixture_types",
            json!({"number_value": 1001, "list_value": ["ok", "bad"]}),
            "error \"Value out of range\" \"number_value must be between 0 and 1000, got 1001.\" at Some([Attribute(\"number_value\")])\n\
             error \"Invalid list element\" \"\\\"bad\\\" is not allowed.\" at Some([Attribute(\"list_value\"), ElementKeyInt(1)])",
        ),
        (
            "fixture_blocks",
            json!({"name": "n", "list_block": [{"value": "bad"}]}),
            r#"error "Invalid block value" "\"bad\" is not allowed." at Some([Attribute("list_block"), ElementKeyInt(0), Attribute("value")])"#,
        ),
        (
            "fixture_misbehave",
            json!({"misbehave": "deferred,nonsense"}),
            r#"error "Unknown misbehaviour" "\"nonsense\" is not one of plan_differs_from_config, apply_changes_known_value, unknown_after_apply, null_after_apply, set_elements_uncorrelated, legacy_type_system, error_with_partial_state, requires_replace_nonexistent, write_only_in_plan, deferred, panic_in_apply, slow_apply, finishes_at_stop, unstable_plan, garbage_new_state, checks_planned_private, error_with_unapplied_state, error_with_planned_state, error_with_null_state, read_fails, read_gone, read_changes_id, delete_fails, non_utf8_state, huge_value." at Some([Attribute("misbehave")])"#,
        ),
    ];
    for (type_name, config, want) in cases {
        let diagnostics = fixture.validate_resource_config(type_name, &state(&fixture, type_name, config));
        assert_eq!(render_diagnostics(&diagnostics), want, "{type_name}");
    }
    // Unknown values are not validated.
    let mut config =
        value::from_json(&json!({"name": "x"}), &fixture.schema.resources["fixture_flags"].block.implied_type(), "")
            .unwrap();
    value::set_attr(&mut config, "name", value::unknown());
    assert!(fixture.validate_resource_config("fixture_flags", &value::encode(&config)).is_empty());
}

#[test]
fn provider_config_requires_its_required_attributes() {
    use serde_json::json;
    let fixture = fixture(None);
    let ty = fixture.schema.provider.block.implied_type();
    let encode = |json: serde_json::Value| value::encode(&value::from_json(&json, &ty, "").unwrap());
    assert!(fixture.check_provider_config(&encode(json!({"endpoint": "e", "max_retries": 3}))).is_empty());
    expect![[r#"error "Missing required argument" "The argument \"max_retries\" is required, but no definition was found." at Some([Attribute("max_retries")])"#]]
        .assert_eq(&render_diagnostics(&fixture.check_provider_config(&encode(json!({"endpoint": "e"})))));
    // Unknown values are fine at configure time.
    let mut config = value::decode(&encode(json!({"endpoint": "e"}))).unwrap();
    value::set_attr(&mut config, "max_retries", value::unknown());
    assert!(fixture.check_provider_config(&value::encode(&config)).is_empty());
}

#[test]
fn data_source_and_functions() {
    use serde_json::json;
    let fixture = fixture(None);
    let ty = fixture.schema.data_sources["fixture_lookup"].block.implied_type();
    let config = value::encode(
        &value::from_json(&json!({"name": "n", "filter": [{"key": "k", "values": ["v"]}]}), &ty, "").unwrap(),
    );
    assert!(fixture.validate_data_source_config("fixture_lookup", &config).is_empty());
    let read = fixture.read_data_source("fixture_lookup", &config);
    expect![[r#"{filter: [{key: "k", values: ["v"]}], id: "n", name: "n", tags: {filters: "1", name: "n"}, value: "value-of-n"}"#]]
        .assert_eq(&render(&read.state));

    let s = |text: &str| value::encode(&Value::from(text));
    let call = |name: &str, arguments: &[Vec<u8>]| {
        let response = fixture.call_function(name, arguments);
        format!("{} {:?}", render(&response.result), response.error)
    };
    let echo = value::encode(&value::dynamic(&schema_gen::tf::Type::Number, Value::from(3)));
    let cases = [
        call("join", &[s("-"), s("a"), value::encode(&Value::Nil), s("b")]),
        call("join", &[s(""), s("a")]),
        call("join", &[s(","), s("a"), s("bad")]),
        call("echo", &[echo]),
        call("nope", &[]),
    ];
    expect![[r#"
        "a-b" None
        null Some(FunctionError { text: "separator must not be empty", argument: Some(0) })
        null Some(FunctionError { text: "a part must not be \"bad\"", argument: Some(2) })
        [bin("number"), 3] None
        null Some(FunctionError { text: "the fixture provider has no function named \"nope\"", argument: None })"#]]
    .assert_eq(&cases.join("\n"));
}
