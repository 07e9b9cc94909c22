//! Table tests for the proposed new state, in the compact value notation of
//! `crate::testutil`.

use expect_test::{Expect, expect};

use super::{planned_data_source_object, proposed_new};
use crate::testutil::{schema, show, val};

#[track_caller]
fn check(schema_json: &str, prior: &str, config: &str, expect: Expect) {
    let block = schema(schema_json);
    let ty = block.implied_type();
    let proposed = proposed_new(&block, &val(&ty, prior), &val(&ty, config)).expect("values fit the schema");
    expect.assert_eq(&show(&proposed));
}

const SIMPLE: &str = r#"{"attributes":{
    "id":{"type":"string","computed":true},
    "name":{"type":"string","required":true},
    "size":{"type":"number","optional":true,"computed":true},
    "note":{"type":"string","optional":true}}}"#;

#[test]
fn create_takes_config_and_leaves_computed_null() {
    check(SIMPLE, "null", r#"{"name":"a"}"#, expect![[r#"{"id":null,"name":"a","note":null,"size":null}"#]]);
    check(SIMPLE, "null", "null", expect![[r#"null"#]]);
}

#[test]
fn update_keeps_computed_values_the_config_leaves_unset() {
    check(
        SIMPLE,
        r#"{"id":"i-1","name":"a","size":3,"note":"old"}"#,
        r#"{"name":"b"}"#,
        expect![[r#"{"id":"i-1","name":"b","note":null,"size":3}"#]],
    );
    // Optional+computed set in config wins over the prior value.
    check(
        SIMPLE,
        r#"{"id":"i-1","name":"a","size":3}"#,
        r#"{"name":"a","size":5}"#,
        expect![[r#"{"id":"i-1","name":"a","note":null,"size":5}"#]],
    );
    // Unknown configuration stays unknown.
    check(
        SIMPLE,
        r#"{"id":"i-1","name":"a","size":3}"#,
        r#"{"name":"?","size":"?"}"#,
        expect![[r#"{"id":"i-1","name":"?","note":null,"size":"?"}"#]],
    );
}

const BLOCKS: &str = r#"{"block_types":{
    "rule":{"nesting_mode":"list","block":{"attributes":{"port":{"type":"number","required":true},"arn":{"type":"string","computed":true}}}},
    "tag":{"nesting_mode":"set","block":{"attributes":{"key":{"type":"string","required":true},"hash":{"type":"string","computed":true}}}},
    "env":{"nesting_mode":"map","block":{"attributes":{"value":{"type":"string","optional":true},"id":{"type":"string","computed":true}}}},
    "opts":{"nesting_mode":"single","block":{"attributes":{"mode":{"type":"string","optional":true,"computed":true}}}}}}"#;

#[test]
fn nested_blocks_correlate_by_index_key_and_value() {
    check(
        BLOCKS,
        r#"{"rule":[{"port":80,"arn":"x"}],"tag":[{"key":"a","hash":"h1"},{"key":"b","hash":"h2"}],"env":{"k":{"value":"1","id":"e1"}},"opts":{"mode":"fast"}}"#,
        r#"{"rule":[{"port":80},{"port":81}],"tag":[{"key":"b"},{"key":"c"}],"env":{"k":{"value":"2"},"n":{"value":"3"}},"opts":{}}"#,
        expect![[
            r#"{"env":{"k":{"id":"e1","value":"2"},"n":{"id":null,"value":"3"}},"opts":{"mode":"fast"},"rule":[{"arn":"x","port":80},{"arn":null,"port":81}],"tag":[{"hash":null,"key":"c"},{"hash":"h2","key":"b"}]}"#
        ]],
    );
    // No blocks configured: empty collections, and a null single block.
    check(
        BLOCKS,
        r#"{"rule":[{"port":80,"arn":"x"}],"tag":[],"env":{},"opts":{"mode":"fast"}}"#,
        r#"{"rule":[],"tag":[],"env":{}}"#,
        expect![[r#"{"env":{},"opts":null,"rule":[],"tag":[]}"#]],
    );
}

const NESTED_ATTRS: &str = r#"{"attributes":{
    "cfg":{"nested_type":{"nesting_mode":"single","attributes":{"name":{"type":"string","optional":true},"id":{"type":"string","computed":true}}},"optional":true,"computed":true},
    "gen":{"nested_type":{"nesting_mode":"single","attributes":{"id":{"type":"string","computed":true}}},"optional":true,"computed":true},
    "rules":{"nested_type":{"nesting_mode":"list","attributes":{"port":{"type":"number","required":true},"id":{"type":"string","computed":true}}},"optional":true}}}"#;

#[test]
fn nested_attributes() {
    check(
        NESTED_ATTRS,
        r#"{"rules":[{"port":1,"id":"r1"}],"cfg":{"name":"x","id":"c1"},"gen":{"id":"g1"}}"#,
        r#"{"rules":[{"port":2},{"port":3}]}"#,
        // cfg held a configured name, so removing it from config removes it; gen was wholly
        // computed and is kept.
        expect![[r#"{"cfg":null,"gen":{"id":"g1"},"rules":[{"id":"r1","port":2},{"id":null,"port":3}]}"#]],
    );
}

#[test]
fn data_sources_plan_unset_computed_attributes_as_unknown() {
    let block = schema(SIMPLE);
    let planned = planned_data_source_object(&block, &val(&block.implied_type(), r#"{"name":"a","size":2}"#)).unwrap();
    expect![[r#"{"id":"?","name":"a","note":null,"size":2}"#]].assert_eq(&show(&planned));
}
