//! Table tests for the proposed new state, in the compact value notation of
//! `crate::testutil`.

use expect_test::{Expect, expect};

use super::support::proposed_new::{planned_data_source_object, proposed_new};
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

mod state_and_values {
    use expect_test::expect;

    use crate::cty::{path_exists_in_type, unknowns_to_null, value_at};
    use crate::lifecycle::support::inputs::{
        inputs_from_outputs, refreshed_inputs, strip_computed_only, with_operation_timeout,
    };
    use crate::lifecycle::support::state::Meta;
    use crate::property::PropertyValue;
    use crate::testutil::{properties, schema, show, show_properties, val};
    use schema_gen::translate::PropertyNames;

    const SCHEMA: &str = r#"{
        "attributes": {
            "id": {"type": "string", "computed": true},
            "name": {"type": "string", "required": true},
            "size": {"type": "number", "optional": true, "computed": true},
            "note": {"type": "string", "optional": true},
            "token": {"type": "string", "optional": true, "sensitive": true}
        },
        "block_types": {
            "rule": {"nesting_mode": "list", "block": {"attributes": {
                "port": {"type": "number", "required": true},
                "arn": {"type": "string", "computed": true}}}},
            "timeouts": {"nesting_mode": "single", "block": {"attributes": {
                "create": {"type": "string", "optional": true},
                "delete": {"type": "string", "optional": true}}}}
        }}"#;

    #[test]
    fn meta_round_trips_and_reads_what_the_go_implementation_writes() {
        // (stored __meta, schema version, private bytes, re-encoded)
        let cases = [
            (None, 0, "", None),
            (Some(r#"{"schema_version":"3"}"#), 3, "", Some(r#"{"schema_version":"3"}"#)),
            (Some(r#"{"private_state":"cHJpdg=="}"#), 0, "priv", Some(r#"{"private_state":"cHJpdg=="}"#)),
            (Some(r#"{"schema_version":2,"x":1}"#), 2, "", Some(r#"{"schema_version":"2","x":1}"#)),
            // Our identity keys, kept as strings and written back the same way.
            (
                Some(r#"{"identity":"{\"id\":\"a\"}","identity_schema_version":"1"}"#),
                0,
                "",
                Some(r#"{"identity":"{\"id\":\"a\"}","identity_schema_version":"1"}"#),
            ),
            // A failed apply's mark, as a string like the Go implementation's keys; a bool
            // is read too, and "false" is no mark.
            (Some(r#"{"apply_failed":"true"}"#), 0, "", Some(r#"{"apply_failed":"true"}"#)),
            (
                Some(r#"{"apply_failed":true,"schema_version":"1"}"#),
                1,
                "",
                Some(r#"{"apply_failed":"true","schema_version":"1"}"#),
            ),
            (Some(r#"{"apply_failed":"false"}"#), 0, "", None),
            // A failed create's object: tainted too.
            (
                Some(r#"{"apply_failed":"true","tainted":"true"}"#),
                0,
                "",
                Some(r#"{"apply_failed":"true","tainted":"true"}"#),
            ),
            (Some(r#"{"tainted":true}"#), 0, "", Some(r#"{"tainted":"true"}"#)),
        ];
        for (stored, version, private, written) in cases {
            let mut outputs = crate::property::PropertyMap::new();
            if let Some(text) = stored {
                outputs.insert("__meta".into(), PropertyValue::String(text.into()));
            }
            let meta = Meta::from_outputs(&outputs).expect("a valid __meta");
            assert_eq!((meta.schema_version, meta.private.as_slice()), (version, private.as_bytes()), "{stored:?}");
            let rewritten = meta.to_property().map(|v| match v {
                PropertyValue::String(text) => text,
                other => panic!("{other:?}"),
            });
            assert_eq!(rewritten.as_deref(), written, "{stored:?}");
        }
        for bad in [
            r#"{"schema_version":"x"}"#,
            "not json",
            r#"{"private_state":"%%"}"#,
            r#"{"identity":{"id":"a"}}"#,
            r#"{"identity":"[1]"}"#,
            r#"{"identity":"{}","identity_schema_version":"v1"}"#,
            r#"{"apply_failed":1}"#,
        ] {
            let outputs = [("__meta".to_owned(), PropertyValue::String(bad.into()))].into();
            assert!(Meta::from_outputs(&outputs).is_err(), "{bad}");
        }
    }

    #[test]
    fn configuration_never_sets_computed_only_values() {
        let block = schema(SCHEMA);
        let ty = block.implied_type();
        let config = val(&ty, r#"{"id":"x","name":"n","size":2,"rule":[{"port":1,"arn":"a"}]}"#);
        expect![[
            r#"{"id":null,"name":"n","note":null,"rule":[{"arn":null,"port":1}],"size":2,"timeouts":null,"token":null}"#
        ]]
        .assert_eq(&show(&strip_computed_only(&block, &config)));
    }

    #[test]
    fn the_engine_timeout_fills_only_an_unset_timeouts_entry() {
        let block = schema(SCHEMA);
        let ty = block.implied_type();
        let unset = val(&ty, r#"{"name":"n"}"#);
        expect![[r#"{"create":"90s","delete":null}"#]]
            .assert_eq(&show(with_operation_timeout(&block, &unset, "create", 89.2).get_attr("timeouts").unwrap()));
        let set = val(&ty, r#"{"name":"n","timeouts":{"create":"5m"}}"#);
        expect![[r#"{"create":"5m","delete":null}"#]]
            .assert_eq(&show(with_operation_timeout(&block, &set, "create", 90.0).get_attr("timeouts").unwrap()));
        // No timeout from the engine, or an operation the block does not have: unchanged.
        assert_eq!(with_operation_timeout(&block, &unset, "create", 0.0), unset);
        assert_eq!(with_operation_timeout(&block, &unset, "update", 30.0), unset);
    }

    #[test]
    fn inputs_of_an_imported_or_refreshed_resource() {
        let block = schema(SCHEMA);
        let names = PropertyNames::of_block(&block);
        // (outputs, the imported inputs), as the Go implementation derives them.
        let cases = [
            // Computed-only values (id, and arn inside each rule) are left to the provider;
            // optional+computed ones (size) are kept.
            (
                r#"{"id":"i","name":"n","size":3,"note":"x","rules":[{"port":1,"arn":"a"}]}"#,
                r#"{"name":"n","note":"x","rules":[{"port":1}],"size":3}"#,
            ),
            // Zero values of what is not required are dropped; required ones stay.
            (
                r#"{"id":"i","name":"","size":0,"note":"","rules":[{"port":0,"arn":""}],"timeouts":{"create":""}}"#,
                r#"{"name":"","rules":[{"port":0}]}"#,
            ),
            // Through secrets, and an emptied nested object counts as zero.
            (
                r#"{"name":"n","token":{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","value":""},"timeouts":{"delete":"5m"}}"#,
                r#"{"name":"n","timeouts":{"delete":"5m"}}"#,
            ),
            (r#"{"name":"n","rules":[]}"#, r#"{"name":"n"}"#),
        ];
        for (outputs, inputs) in cases {
            assert_eq!(
                show_properties(&inputs_from_outputs(&block, &names, &properties(outputs))),
                inputs,
                "{outputs}"
            );
        }
        // SDKv2's implicit `id` (optional+computed, the input `<resource>Id`) is left out:
        // the object's ID says it, and the provider rejects it in configuration.
        let sdkv2 = schema(&SCHEMA.replace(
            r#""id": {"type": "string", "computed": true}"#,
            r#""id": {"type": "string", "optional": true, "computed": true}"#,
        ));
        let sdkv2_names = PropertyNames::of_block(&sdkv2);
        let id_key = sdkv2_names.by_tf_name("id").expect("the id property").pulumi_name.clone();
        let outputs = properties(&format!(r#"{{"{id_key}":"i","name":"n"}}"#));
        assert_eq!(
            show_properties(&inputs_from_outputs(&sdkv2, &sdkv2_names, &outputs)),
            r#"{"name":"n"}"#,
            "{id_key}"
        );
        let outputs = properties(r#"{"id":"i","name":"n","size":3,"note":"x","rules":[{"port":1,"arn":"a"}]}"#);
        let old_inputs = properties(r#"{"name":"old","note":"y","__defaults":[]}"#);
        expect![[r#"{"__defaults":[],"name":"n","note":"x"}"#]].assert_eq(&show_properties(&refreshed_inputs(
            &block,
            &names,
            &old_inputs,
            &outputs,
        )));
    }

    #[test]
    fn paths_into_values_and_types() {
        let block = schema(SCHEMA);
        let ty = block.implied_type();
        let value = val(&ty, r#"{"name":"n","rule":[{"port":1}],"size":"?"}"#);
        let path = |steps: &[&str]| {
            let mut p = crate::cty::Path::root();
            for step in steps {
                p = match step.parse::<u64>() {
                    Ok(idx) => p.index(idx),
                    Err(_) => p.attr(step),
                };
            }
            p
        };
        assert_eq!(value_at(&value, &path(&["rule", "0", "port"])).map(show).as_deref(), Some("1"));
        assert_eq!(value_at(&value, &path(&["rule", "5", "port"])), None);
        assert_eq!(value_at(&value, &path(&["size"])).map(show).as_deref(), Some("\"?\""));
        assert!(path_exists_in_type(&ty, &path(&["rule", "3", "arn"])));
        assert!(!path_exists_in_type(&ty, &path(&["rule", "0", "nope"])));
        assert!(!path_exists_in_type(&ty, &path(&["nope"])));
        expect![[r#"{"id":null,"name":"n","note":null,"rule":[{"arn":null,"port":1}],"size":null,"timeouts":null,"token":null}"#]]
            .assert_eq(&show(&unknowns_to_null(&value)));
    }
}

mod resource_ids {
    use crate::lifecycle::support::state::{MISSING_ID, resource_id};
    use crate::testutil::{schema, val};
    use schema_gen::translate::{PropertyNames, ResourceId, ResourceProperties};

    #[test]
    fn the_pulumi_id_of_a_state() {
        let props = |id: ResourceId| ResourceProperties {
            names: PropertyNames::default(),
            id,
            autonamed: false,
            warnings: Vec::new(),
        };
        let string_id = schema(r#"{"attributes":{"id":{"type":"string","computed":true}}}"#);
        let number_id = schema(r#"{"attributes":{"id":{"type":"number","computed":true}}}"#);
        let no_id = schema(r#"{"attributes":{"name":{"type":"string","required":true}}}"#);
        let of = |block: &schema_gen::tf::Block, json: &str| val(&block.implied_type(), json);
        // (case, ID rule, state, Pulumi ID)
        let cases = [
            ("a string id", ResourceId::IdAttribute, of(&string_id, r#"{"id":"abc"}"#), Some("abc".to_owned())),
            ("an empty string id: none yet", ResourceId::IdAttribute, of(&string_id, r#"{"id":""}"#), None),
            (
                "a numeric id, in decimal",
                ResourceId::Missing,
                of(&number_id, r#"{"id":12345}"#),
                Some("12345".to_owned()),
            ),
            (
                "a numeric id not known",
                ResourceId::Missing,
                of(&number_id, r#"{"id":null}"#),
                Some(MISSING_ID.to_owned()),
            ),
            ("no id at all", ResourceId::Missing, of(&no_id, r#"{"name":"n"}"#), Some(MISSING_ID.to_owned())),
        ];
        for (case, rule, state, expected) in cases {
            assert_eq!(resource_id(&props(rule), &state), expected, "{case}");
        }
    }
}
