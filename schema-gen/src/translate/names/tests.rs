use expect_test::{Expect, expect};

use super::*;
use crate::tf::{Attribute, Schema};

/// Tokens for a provider with the given resources and data sources.
#[track_caller]
fn check_tokens(package: &str, resources: &[&str], data_sources: &[&str], expect: Expect) {
    let schema = ProviderSchema {
        resources: resources.iter().map(|r| (r.to_string(), Schema::default())).collect(),
        data_sources: data_sources.iter().map(|d| (d.to_string(), Schema::default())).collect(),
        ..ProviderSchema::default()
    };
    let (names, warnings) = ProviderNames::new(&schema, package, &TokenFilter { include: &[], exclude: &[] });
    let mut out = format!("prefix {}\n", names.resource_prefix());
    for (tf, token) in names.resources().chain(names.data_sources()) {
        out.push_str(&format!("{tf} -> {token}\n"));
    }
    for warning in warnings {
        out.push_str(&format!("warning: {warning}\n"));
    }
    expect.assert_eq(&out);
}

#[test]
fn tokens() {
    check_tokens(
        "test",
        &[
            "test_my-token",
            "test_index",
            "test_1f_dns",
            "test_provider",
            "test_foo",
            "test_Foo",
            "test_FOO",
            "test_fooV2",
        ],
        &["test_foo", "test"],
        expect![[r#"
            prefix test
            test_1f_dns -> test:index/oneFDns:OneFDns
            test_FOO -> test:index/fOO:FOO
            test_Foo -> test:index/fooV2:FooV2
            test_foo -> test:index/fooV3:FooV3
            test_fooV2 -> test:index/fooV2V2:FooV2V2
            test_index -> test:index/index:Index
            test_my-token -> test:index/myToken:MyToken
            test_provider -> test:index/testProvider:TestProvider
            test -> test:index/getTest:getTest
            test_foo -> test:index/getFoo:getFoo
        "#]],
    );
}

#[test]
fn prefix_inference_falls_back_to_the_package_name() {
    check_tokens(
        "catchpoint",
        &["catchpoint_test", "alibabacloudStack_vpc", "single"],
        &[],
        expect![[r#"
            prefix catchpoint
            alibabacloudStack_vpc -> catchpoint:index/alibabacloudStackVpc:AlibabacloudStackVpc
            catchpoint_test -> catchpoint:index/test:Test
            single -> catchpoint:index/single:Single
            warning: alibabacloudStack_vpc: does not start with the resource prefix `catchpoint`; its token uses the full name
            warning: single: does not start with the resource prefix `catchpoint`; its token uses the full name
        "#]],
    );
}

#[test]
fn filter_keeps_included_and_drops_excluded() {
    let include = vec!["a_x".to_owned(), "a_y".to_owned()];
    let exclude = vec!["a_y".to_owned()];
    let filter = TokenFilter { include: &include, exclude: &exclude };
    let kept: Vec<bool> = ["a_x", "a_y", "a_z"].iter().map(|n| filter.keeps(n)).collect();
    assert_eq!(kept, [true, false, false]);
}

#[test]
fn resource_id_sources() {
    let schema = ProviderSchema::default();
    let (names, _) = ProviderNames::new(&schema, "p", &TokenFilter { include: &[], exclude: &[] });
    let id = |optional: bool, required: bool, computed: bool, ty: Type| {
        let mut attr = Attribute::new(ty);
        (attr.optional, attr.required, attr.computed) = (optional, required, computed);
        let block = Block { attributes: [("id".to_owned(), attr)].into(), ..Block::default() };
        let props = names.resource_properties("p_thing", &block);
        format!("{:?} as {}", props.id, props.names.by_tf_name("id").unwrap().pulumi_name)
    };
    let table = [
        id(false, false, true, Type::String),
        id(true, false, true, Type::String),
        id(false, true, false, Type::String),
        id(true, false, false, Type::String),
        id(false, false, true, Type::Number),
    ];
    expect![[r#"
        [
            "IdAttribute as id",
            "Delegate { pulumi_name: \"thingId\" } as thingId",
            "Delegate { pulumi_name: \"thingId\" } as thingId",
            "Missing as thingId",
            "Missing as thingId",
        ]
    "#]]
    .assert_debug_eq(&table);
}
