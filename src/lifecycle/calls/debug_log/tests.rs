use expect_test::expect;

use super::*;
use crate::testutil::{schema, val};

const SCHEMA: &str = r#"{
    "attributes": {
        "name": {"type": "string", "required": true},
        "password": {"type": "string", "optional": true, "sensitive": true},
        "token": {"type": "string", "optional": true, "write_only": true},
        "tags": {"type": ["map", "string"], "optional": true},
        "nested": {"nested_type": {"nesting_mode": "list", "attributes": {
            "key": {"type": "string", "optional": true, "sensitive": true},
            "label": {"type": "string", "optional": true}}}, "optional": true}
    },
    "block_types": {
        "rule": {"nesting_mode": "list", "block": {"attributes": {
            "port": {"type": "number", "optional": true},
            "secret": {"type": "string", "optional": true, "sensitive": true}}}}
    }
}"#;

fn path(steps: &[PathStep]) -> Path {
    Path { steps: steps.to_vec() }
}

#[test]
fn sensitive_write_only_and_secret_values_are_redacted() {
    let block = schema(SCHEMA);
    let value = val(
        &block.implied_type(),
        r#"{"name": "visible", "password": "hunter2", "token": "wo-token", "tags": {"env": "prod", "owner": "s3cr3t-owner"},
            "nested": [{"key": "nested-key", "label": "shown"}],
            "rule": [{"port": 22, "secret": "rule-secret"}, {"port": "?", "secret": null}]}"#,
    );
    let secrets = [path(&[PathStep::Attr("tags".into()), PathStep::Key("owner".into())])];
    let shown = Redaction { block: &block, secrets: &secrets }.value(&value);
    expect![[r#"{"name":"visible","nested":[{"key":"<redacted>","label":"shown"}],"password":"<redacted>","rule":[{"port":22,"secret":"<redacted>"},{"port":"<unknown>","secret":null}],"tags":{"env":"prod","owner":"<redacted>"},"token":"<redacted>"}"#]]
    .assert_eq(&shown.to_string());
}

#[test]
fn a_secret_path_redacts_everything_below_it() {
    let block = schema(SCHEMA);
    let value =
        val(&block.implied_type(), r#"{"name": "n", "rule": [{"port": 1, "secret": null}], "tags": {"a": "b"}}"#);
    let whole_rule = [path(&[PathStep::Attr("rule".into())]), path(&[PathStep::Attr("tags".into())])];
    let shown = Redaction { block: &block, secrets: &whole_rule }.value(&value);
    assert_eq!(shown["rule"], json!(REDACTED));
    assert_eq!(shown["tags"], json!(REDACTED));
    assert_eq!(shown["name"], json!("n"));
    let everything = [path(&[])];
    assert_eq!(Redaction { block: &block, secrets: &everything }.value(&value), json!(REDACTED));
}

#[test]
fn raw_state_json_is_redacted_by_the_same_rules() {
    let block = schema(SCHEMA);
    let raw = br#"{"name":"n","password":"hunter2","rule":[{"port":1,"secret":"x"}],"removed_attr":"kept"}"#;
    let shown = Redaction { block: &block, secrets: &[] }.raw_json(raw);
    expect![[
        r#"{"name":"n","password":"<redacted>","rule":[{"port":1,"secret":"<redacted>"}],"removed_attr":"kept"}"#
    ]]
    .assert_eq(&shown.to_string());
    assert_eq!(Redaction { block: &block, secrets: &[] }.raw_json(b"not json"), json!("<8 bytes that are not JSON>"));
}
