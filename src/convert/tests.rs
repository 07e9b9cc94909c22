//! Table tests for the schema-driven value translation. Pulumi values are written in the
//! engine's `Struct` JSON form and cty values in `testutil`'s compact notation.

use expect_test::{Expect, expect};
use schema_gen::translate::PropertyNames;

use super::values::{UnknownKeys, from_cty, to_cty};
use crate::testutil::{properties, schema, show, show_properties};

const SECRET: &str = r#""4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270""#;
const UNKNOWN: &str = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";

const SCHEMA: &str = r#"{
  "attributes": {
    "id": {"type": "string", "computed": true},
    "name": {"type": "string", "required": true},
    "port_count": {"type": "number", "optional": true},
    "tags": {"type": ["map", "string"], "optional": true},
    "cidr_blocks": {"type": ["list", "string"], "optional": true},
    "labels": {"type": ["set", "string"], "optional": true},
    "password": {"type": "string", "optional": true, "sensitive": true},
    "settings": {"type": ["object", {"max_size": "number", "enabled": "bool"}], "optional": true},
    "extra": {"type": "dynamic", "optional": true},
    "endpoints": {"nested_type": {"nesting_mode": "list", "attributes": {"url_path": {"type": "string", "optional": true}}}, "optional": true}
  },
  "block_types": {
    "encryption": {"nesting_mode": "list", "max_items": 1, "block": {"attributes": {"key_arn": {"type": "string", "optional": true}}}},
    "rule": {"nesting_mode": "list", "block": {"attributes": {"from_port": {"type": "number", "required": true}}}},
    "grp": {"nesting_mode": "group", "block": {"attributes": {"x": {"type": "string", "optional": true}}}}
  }
}"#;

/// Pulumi → cty, then back: the cty value and its secret paths, then the Pulumi value again.
#[track_caller]
fn check(pulumi: &str, expect: Expect) {
    let block = schema(SCHEMA);
    let names = PropertyNames::of_block(&block);
    let input = properties(pulumi);
    let actual = crate::testutil::shown(to_cty(&block, &names, &input, UnknownKeys::Reject), |(value, secrets)| {
        let back = from_cty(&block, &names, &value, &secrets).unwrap();
        let secrets: Vec<String> = secrets.iter().map(ToString::to_string).collect();
        format!("cty: {}\nsecrets: {secrets:?}\nback: {}", show(&value), show_properties(&back))
    });
    expect.assert_eq(&actual);
}

#[test]
fn every_shape_round_trips() {
    check(
        &format!(
            r#"{{"name": "a", "portCount": 3, "tags": {{"Env": "x"}}, "cidrBlocks": ["10.0.0.0/8"], "labels": ["b", "a"],
                "password": {{{SECRET}, "value": "pw"}}, "settings": {{"maxSize": 5, "enabled": true}},
                "extra": {{"any_Key": [1, "two"]}}, "endpoints": [{{"urlPath": "/x"}}],
                "encryption": {{"keyArn": "arn"}}, "rules": [{{"fromPort": 80}}, {{"fromPort": 443}}]}}"#
        ),
        expect![[r#"
            cty: {"cidr_blocks":["10.0.0.0/8"],"encryption":[{"key_arn":"arn"}],"endpoints":[{"url_path":"/x"}],"extra":{"any_Key":[1,"two"]},"grp":{"x":null},"id":null,"labels":["a","b"],"name":"a","password":"pw","port_count":3,"rule":[{"from_port":80},{"from_port":443}],"settings":{"enabled":true,"max_size":5},"tags":{"Env":"x"}}
            secrets: [".password"]
            back: {"cidrBlocks":["10.0.0.0/8"],"encryption":{"keyArn":"arn"},"endpoints":[{"urlPath":"/x"}],"extra":{"any_Key":[1,"two"]},"grp":{},"labels":["a","b"],"name":"a","password":{"secret":"pw"},"portCount":3,"rules":[{"fromPort":80},{"fromPort":443}],"settings":{"enabled":true,"maxSize":5},"tags":{"Env":"x"}}"#]],
    );
}

#[test]
fn unknowns_and_absent_blocks() {
    check(
        &format!(r#"{{"name": "{UNKNOWN}", "tags": "{UNKNOWN}"}}"#),
        expect![[r#"
            cty: {"cidr_blocks":null,"encryption":[],"endpoints":null,"extra":null,"grp":{"x":null},"id":null,"labels":null,"name":"?","password":null,"port_count":null,"rule":[],"settings":null,"tags":"?"}
            secrets: []
            back: {"grp":{},"name":"?","rules":[],"tags":"?"}"#]],
    );
}

#[test]
fn secrets_inside_sets_and_dynamic_values() {
    check(
        &format!(
            r#"{{"name": "a", "labels": ["x", {{{SECRET}, "value": "y"}}], "extra": {{"k": {{{SECRET}, "value": 1}}}}}}"#
        ),
        expect![[r#"
            cty: {"cidr_blocks":null,"encryption":[],"endpoints":null,"extra":{"k":1},"grp":{"x":null},"id":null,"labels":["x","y"],"name":"a","password":null,"port_count":null,"rule":[],"settings":null,"tags":null}
            secrets: [".extra.k", ".labels"]
            back: {"extra":{"k":{"secret":1}},"grp":{},"labels":{"secret":["x","y"]},"name":"a","rules":[]}"#]],
    );
}

#[test]
fn lenient_scalars_follow_cty_conversions() {
    check(
        r#"{"name": 12, "portCount": "1e3", "tags": {"on": true}}"#,
        expect![[r#"
            cty: {"cidr_blocks":null,"encryption":[],"endpoints":null,"extra":null,"grp":{"x":null},"id":null,"labels":null,"name":"12","password":null,"port_count":1000,"rule":[],"settings":null,"tags":{"on":"true"}}
            secrets: []
            back: {"grp":{},"name":"12","portCount":1000,"rules":[],"tags":{"on":"true"}}"#]],
    );
}

#[test]
fn bad_input_names_the_property_path() {
    check(r#"{"name": "a", "bogus": 1}"#, expect![[r#"error: bogus: unknown property "bogus""#]]);
    check(r#"{"name": "a", "portCount": "lots"}"#, expect![[r#"error: portCount: "lots" is not a number"#]]);
    check(
        r#"{"name": "a", "rules": [{"fromPort": 1}, {"fromPort": true}]}"#,
        expect![[r#"error: rules[1].fromPort: expected a number, got a bool"#]],
    );
    check(
        r#"{"name": "a", "settings": {"maxSize": 1, "colour": "red"}}"#,
        expect![[r#"error: settings: unknown property "colour""#]],
    );
    check(r#"{"name": ["a"]}"#, expect![[r#"error: name: expected a string, got an array"#]]);
    check(
        r#"{"name": "a", "cidrBlocks": "10.0.0.0/8"}"#,
        expect![[r#"error: cidrBlocks: expected a list of string, got a string"#]],
    );
}

#[test]
fn numbers_an_f64_cannot_hold_come_back_as_exact_strings() {
    use crate::property::PropertyValue;
    let block = schema(r#"{"attributes": {"n": {"type": "number", "optional": true}}}"#);
    let names = PropertyNames::of_block(&block);
    let cases = [
        ("1", PropertyValue::Number(1.0)),
        // Config decimals print back the same from the nearest f64: nothing is lost.
        ("0.1", PropertyValue::Number(0.1)),
        // 2^70 is an f64 exactly.
        ("1180591620717411303424", PropertyValue::Number(2f64.powi(70))),
        // 2^70 + 1 is not: the exact decimal comes back as a string, never rounded.
        ("1180591620717411303425", PropertyValue::String("1180591620717411303425".to_owned())),
        ("0.12345678901234567890123", PropertyValue::String("0.12345678901234567890123".to_owned())),
    ];
    for (text, expected) in cases {
        let value = crate::testutil::val(&block.implied_type(), &format!(r#"{{"n": "{text}"}}"#));
        let back = from_cty(&block, &names, &value, &[]).unwrap();
        assert_eq!(back.get("n"), Some(&expected), "{text}");
        // And the string form converts back to the same cty number.
        let (again, _) = to_cty(&block, &names, &back, UnknownKeys::Reject).unwrap();
        assert_eq!(again, value, "{text}");
    }
}

/// Found by the round-trip property: marks on the element of a MaxItems=1 block and on the
/// entries of map blocks and map nested attributes were dropped by `from_cty`.
#[test]
fn marks_on_flattened_and_map_elements_come_back_secret() {
    use crate::cty::Path;
    let block = schema(
        r#"{
          "attributes": {
            "nested_map": {"nested_type": {"nesting_mode": "map", "attributes": {"a": {"type": "string", "optional": true}}}, "optional": true}
          },
          "block_types": {
            "one": {"nesting_mode": "list", "max_items": 1, "block": {"attributes": {"a": {"type": "string", "optional": true}}}},
            "by_key": {"nesting_mode": "map", "block": {"attributes": {"a": {"type": "string", "optional": true}}}}
          }
        }"#,
    );
    let names = PropertyNames::of_block(&block);
    let value = crate::testutil::val(
        &block.implied_type(),
        r#"{"nested_map": {"k": {"a": "x"}}, "one": [{"a": "y"}], "by_key": {"k": {"a": "z"}}}"#,
    );
    let marked = [
        Path::root().attr("nested_map").key("k"),
        Path::root().attr("one").index(0),
        Path::root().attr("by_key").key("k"),
    ];
    let props = from_cty(&block, &names, &value, &marked).unwrap();
    expect![[
        r#"{"byKey":{"k":{"secret":{"a":"z"}}},"nestedMap":{"k":{"secret":{"a":"x"}}},"one":{"secret":{"a":"y"}}}"#
    ]]
    .assert_eq(&show_properties(&props));
    // The flattened element's mark lands on the block, the one Pulumi value for both.
    let (_, secrets) = to_cty(&block, &names, &props, UnknownKeys::Reject).unwrap();
    let secrets: Vec<String> = secrets.iter().map(ToString::to_string).collect();
    expect![[r#"[".by_key[\"k\"]", ".nested_map[\"k\"]", ".one"]"#]].assert_eq(&format!("{secrets:?}"));
}
