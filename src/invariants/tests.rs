//! Table tests for the invariants, in the compact value notation of `crate::testutil`.

use expect_test::{Expect, expect};

use super::{assert_object_compatible, assert_plan_valid};
use crate::testutil::{schema, val};

#[track_caller]
fn check_plan(schema_json: &str, prior: &str, config: &str, planned: &str, expect: Expect) {
    let block = schema(schema_json);
    let ty = block.implied_type();
    let violations = assert_plan_valid(&block, &val(&ty, prior), &val(&ty, config), &val(&ty, planned));
    let rendered: Vec<String> = violations.iter().map(ToString::to_string).collect();
    expect.assert_eq(&rendered.join("\n"));
}

#[track_caller]
fn check_apply(schema_json: &str, planned: &str, actual: &str, expect: Expect) {
    let block = schema(schema_json);
    let ty = block.implied_type();
    let violations = assert_object_compatible(&block, &val(&ty, planned), &val(&ty, actual));
    let rendered: Vec<String> = violations.iter().map(ToString::to_string).collect();
    expect.assert_eq(&rendered.join("\n"));
}

const SIMPLE: &str = r#"{"attributes":{
    "id":{"type":"string","computed":true},
    "name":{"type":"string","required":true},
    "note":{"type":"string","optional":true},
    "size":{"type":"number","optional":true,"computed":true},
    "secret":{"type":"string","optional":true,"sensitive":true},
    "password":{"type":"string","optional":true,"write_only":true}}}"#;

#[test]
fn plan_create_may_fill_in_computed_attributes() {
    check_plan(SIMPLE, "null", r#"{"name":"a"}"#, r#"{"name":"a","id":"?","size":"?"}"#, expect![[""]]);
    check_plan(SIMPLE, "null", r#"{"name":"a"}"#, r#"{"name":"a","id":"x","size":3}"#, expect![[""]]);
}

#[test]
fn plan_must_keep_configured_values() {
    check_plan(
        SIMPLE,
        "null",
        r#"{"name":"a"}"#,
        r#"{"name":"b"}"#,
        expect![[r#".name: planned value cty.StringVal("b") does not match config value cty.StringVal("a")"#]],
    );
    check_plan(
        SIMPLE,
        r#"{"name":"x","id":"i"}"#,
        r#"{"name":"a"}"#,
        r#"{"name":"b","id":"i"}"#,
        expect![[
            r#".name: planned value cty.StringVal("b") does not match config value cty.StringVal("a") nor prior value cty.StringVal("x")"#
        ]],
    );
    // Keeping the prior value signals "equivalent to config": allowed.
    check_plan(SIMPLE, r#"{"name":"A","id":"i"}"#, r#"{"name":"a"}"#, r#"{"name":"A","id":"i"}"#, expect![[""]]);
    // An unknown configured value must stay unknown.
    check_plan(
        SIMPLE,
        "null",
        r#"{"name":"?"}"#,
        r#"{"name":"x"}"#,
        expect![[r#".name: planned value cty.StringVal("x") does not match config value cty.UnknownVal(cty.String)"#]],
    );
}

#[test]
fn plan_may_not_fill_in_non_computed_attributes() {
    check_plan(
        SIMPLE,
        "null",
        r#"{"name":"a"}"#,
        r#"{"name":"a","note":"surprise","secret":"hunter2"}"#,
        expect![[r#"
            .note: planned value cty.StringVal("surprise") for a non-computed attribute
            .secret: sensitive planned value for a non-computed attribute"#]],
    );
}

#[test]
fn plan_write_only_attributes_are_always_null() {
    check_plan(
        SIMPLE,
        "null",
        r#"{"name":"a","password":"pw"}"#,
        r#"{"name":"a","password":"pw2"}"#,
        expect![[r#".password: planned value for write-only attribute is not null"#]],
    );
    check_plan(SIMPLE, "null", r#"{"name":"a","password":"pw"}"#, r#"{"name":"a"}"#, expect![[""]]);
}

#[test]
fn plan_refined_unknowns_may_become_less_refined() {
    check_plan(SIMPLE, "null", r#"{"name":"?!"}"#, r#"{"name":"?"}"#, expect![[""]]);
}

#[test]
fn plan_root_presence() {
    check_plan(
        SIMPLE,
        "null",
        r#"{"name":"a"}"#,
        "null",
        expect![[r#"planned for absence but config wants existence"#]],
    );
    check_plan(
        SIMPLE,
        "null",
        "null",
        r#"{"name":"a"}"#,
        expect![[r#"planned for existence but config wants absence"#]],
    );
    check_plan(SIMPLE, "null", "null", "null", expect![[""]]);
}

const BLOCKS: &str = r#"{"block_types":{
    "rule":{"nesting_mode":"list","block":{"attributes":{"port":{"type":"number","required":true},"arn":{"type":"string","computed":true}}}},
    "tag":{"nesting_mode":"set","block":{"attributes":{"key":{"type":"string","required":true}}}},
    "opts":{"nesting_mode":"single","block":{"attributes":{"mode":{"type":"string","optional":true}}}},
    "env":{"nesting_mode":"map","block":{"attributes":{"value":{"type":"string","optional":true}}}}}}"#;

#[test]
fn plan_nested_blocks() {
    // Filling in a computed attribute inside a list block is fine.
    check_plan(
        BLOCKS,
        "null",
        r#"{"rule":[{"port":80}],"tag":[],"env":{}}"#,
        r#"{"rule":[{"port":80,"arn":"?"}],"tag":[],"env":{}}"#,
        expect![[""]],
    );
    check_plan(
        BLOCKS,
        "null",
        r#"{"rule":[{"port":80}],"tag":[],"env":{}}"#,
        r#"{"rule":[{"port":80},{"port":81}],"tag":[],"env":{}}"#,
        expect![[r#".rule: block count in plan (2) disagrees with count in config (1)"#]],
    );
    check_plan(
        BLOCKS,
        "null",
        r#"{"rule":[{"port":80}],"tag":[],"env":{}}"#,
        r#"{"rule":[{"port":8080}],"tag":[],"env":{}}"#,
        expect![[
            r#".rule[0].port: planned value cty.NumberIntVal(8080) does not match config value cty.NumberIntVal(80)"#
        ]],
    );
    check_plan(
        BLOCKS,
        "null",
        r#"{"rule":[{"port":80}],"tag":[{"key":"a"}],"env":{}}"#,
        r#"{"rule":["?"],"tag":["?"],"env":{}}"#,
        expect![[r#"
            .rule[0]: element representing nested block must not be unknown itself; set nested attribute values to unknown instead
            .tag[0]: element representing nested block must not be unknown itself; set nested attribute values to unknown instead"#]],
    );
    check_plan(
        BLOCKS,
        "null",
        r#"{"rule":[],"tag":[],"env":{}}"#,
        r#"{"rule":null,"tag":[],"env":{},"opts":"?"}"#,
        expect![[r#"
            .opts: planned unknown value for non-computed block
            .rule: attribute representing a list of nested blocks must be empty to indicate no blocks, not null"#]],
    );
    check_plan(
        BLOCKS,
        "null",
        r#"{"rule":[],"tag":[],"env":{"a":{"value":"1"}}}"#,
        r#"{"rule":[],"tag":[],"env":{"b":{"value":"1"}}}"#,
        expect![[r#"
            .env: block key "b" from plan is not present in config
            .env: block key "a" from config is not present in plan"#]],
    );
}

const NESTED_ATTRS: &str = r#"{"attributes":{
    "rules":{"nested_type":{"nesting_mode":"list","attributes":{"port":{"type":"number","required":true},"id":{"type":"string","computed":true}}},"optional":true},
    "main":{"nested_type":{"nesting_mode":"single","attributes":{"name":{"type":"string","optional":true}}},"optional":true},
    "set":{"nested_type":{"nesting_mode":"set","attributes":{"k":{"type":"string","optional":true}}},"optional":true}}}"#;

#[test]
fn plan_nested_attributes() {
    check_plan(NESTED_ATTRS, "null", r#"{"rules":[{"port":1}]}"#, r#"{"rules":[{"port":1,"id":"?"}]}"#, expect![[""]]);
    check_plan(
        NESTED_ATTRS,
        "null",
        r#"{"rules":[{"port":1}]}"#,
        r#"{"rules":[{"port":1},{"port":2}]}"#,
        expect![[
            r#".rules: count in plan (cty.NumberIntVal(2)) disagrees with count in config (cty.NumberIntVal(1))"#
        ]],
    );
    check_plan(
        NESTED_ATTRS,
        "null",
        r#"{"main":{"name":"a"}}"#,
        r#"{"main":{"name":"b"}}"#,
        expect![[r#".main.name: planned value cty.StringVal("b") does not match config value cty.StringVal("a")"#]],
    );
    check_plan(
        NESTED_ATTRS,
        "null",
        r#"{"main":{"name":"a"}}"#,
        r#"{"main":"?"}"#,
        expect![[r#".main: planned unknown for configured value"#]],
    );
    check_plan(
        NESTED_ATTRS,
        "null",
        r#"{"set":[{"k":"a"}]}"#,
        r#"{"set":[{"k":"a"},{"k":"b"}]}"#,
        expect![[r#".set: count in plan (cty.NumberIntVal(2)) disagrees with count in config (cty.NumberIntVal(1))"#]],
    );
}

#[test]
fn apply_keeps_known_planned_values() {
    check_apply(SIMPLE, r#"{"name":"a","id":"?","size":3}"#, r#"{"name":"a","id":"i-1","size":3}"#, expect![[""]]);
    check_apply(
        SIMPLE,
        r#"{"name":"a","id":"?","size":3}"#,
        r#"{"name":"b","id":"i-1","size":4}"#,
        expect![[r#"
            .name: was cty.StringVal("a"), but now cty.StringVal("b")
            .size: was cty.NumberIntVal(3), but now cty.NumberIntVal(4)"#]],
    );
    check_apply(
        SIMPLE,
        r#"{"name":"a","note":"n"}"#,
        r#"{"name":"a"}"#,
        expect![[r#".note: was cty.StringVal("n"), but now null"#]],
    );
    check_apply(
        SIMPLE,
        r#"{"name":"a"}"#,
        r#"{"name":"a","note":"n"}"#,
        expect![[r#".note: was null, but now cty.StringVal("n")"#]],
    );
    check_apply(
        SIMPLE,
        r#"{"name":"a","size":1}"#,
        r#"{"name":"a","size":"?"}"#,
        expect![[r#".size: was known, but now unknown"#]],
    );
}

#[test]
fn apply_never_quotes_sensitive_values() {
    check_apply(
        SIMPLE,
        r#"{"name":"a","secret":"s1"}"#,
        r#"{"name":"a","secret":"s2"}"#,
        expect![[r#".secret: inconsistent values for sensitive attribute"#]],
    );
}

#[test]
fn apply_honours_refinements() {
    check_apply(SIMPLE, r#"{"name":"a","id":"?ab"}"#, r#"{"name":"a","id":"abc"}"#, expect![[""]]);
    check_apply(
        SIMPLE,
        r#"{"name":"a","id":"?ab"}"#,
        r#"{"name":"a","id":"xyz"}"#,
        expect![[
            r#".id: final value cty.StringVal("xyz") does not conform to planning placeholder cty.UnknownVal(cty.String).Refine().NotNull().StringPrefixFull("ab").NewValue()"#
        ]],
    );
    check_apply(
        SIMPLE,
        r#"{"name":"a","id":"?!"}"#,
        r#"{"name":"a"}"#,
        expect![[
            r#".id: final value cty.NullVal(cty.String) does not conform to planning placeholder cty.UnknownVal(cty.String).RefineNotNull()"#
        ]],
    );
}

#[test]
fn apply_root_presence() {
    check_apply(SIMPLE, r#"{"name":"a"}"#, "null", expect![[r#"Root object was present, but now absent"#]]);
    check_apply(SIMPLE, "null", r#"{"name":"a"}"#, expect![[r#"Root object was absent, but now present"#]]);
}

const COLLECTIONS: &str = r#"{"attributes":{
    "list":{"type":["list","string"],"optional":true,"computed":true},
    "set":{"type":["set","string"],"optional":true,"computed":true},
    "map":{"type":["map","string"],"optional":true,"computed":true}}}"#;

#[test]
fn apply_collections() {
    check_apply(
        COLLECTIONS,
        r#"{"list":["a","b"],"map":{"x":"1"}}"#,
        r#"{"list":["a"],"map":{"x":"1","y":"2"}}"#,
        expect![[r#"
            .list: element 1 has vanished
            .map: new element "y" has appeared"#]],
    );
    // Unknown set elements may become anything, but known ones must be found again.
    check_apply(COLLECTIONS, r#"{"set":["a","?"]}"#, r#"{"set":["a","b"]}"#, expect![[""]]);
    check_apply(
        COLLECTIONS,
        r#"{"set":["a","b"]}"#,
        r#"{"set":["a","c"]}"#,
        expect![[r#".set: planned set element cty.StringVal("b") does not correlate with any element in actual"#]],
    );
    check_apply(
        COLLECTIONS,
        r#"{"set":["a"]}"#,
        r#"{"set":["a","b"]}"#,
        expect![[r#"
            .set: actual set element cty.StringVal("b") does not correlate with any element in plan
            .set: length changed from 1 to 2"#]],
    );
}

#[test]
fn apply_nested_blocks() {
    check_apply(
        BLOCKS,
        r#"{"rule":[{"port":80,"arn":"?"},{"port":81,"arn":"?"}],"tag":[],"env":{}}"#,
        r#"{"rule":[{"port":80,"arn":"x"}],"tag":[],"env":{}}"#,
        expect![[r#".rule: block count changed from 2 to 1"#]],
    );
    check_apply(
        BLOCKS,
        r#"{"rule":[{"port":80,"arn":"?"}],"tag":[{"key":"a"}],"env":{}}"#,
        r#"{"rule":[{"port":81,"arn":"x"}],"tag":[{"key":"a"},{"key":"b"}],"env":{}}"#,
        expect![[r#"
            .rule[0].port: was cty.NumberIntVal(80), but now cty.NumberIntVal(81)
            .tag: actual set element cty.ObjectVal(map[string]cty.Value{"key":cty.StringVal("b")}) does not correlate with any element in plan
            .tag: block set length changed from 1 to 2"#]],
    );
}
