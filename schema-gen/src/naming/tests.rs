use expect_test::{Expect, expect};

use super::*;

/// Renders `f` over every input as `input -> output` lines, so a table reads as a golden.
#[track_caller]
fn check_table(inputs: &[&str], f: impl Fn(&str) -> String, expect: Expect) {
    let actual: String = inputs.iter().map(|input| format!("{input:?} -> {:?}\n", f(input))).collect();
    expect.assert_eq(&actual);
}

#[test]
fn property_names() {
    check_table(
        &["vpc_id", "ip_address", "name", "_private", "__two_leading", "a__b", "trailing_", "a_1b", "x_y_z", "___", ""],
        property_name,
        expect![[r#"
            "vpc_id" -> "vpcId"
            "ip_address" -> "ipAddress"
            "name" -> "name"
            "_private" -> "_private"
            "__two_leading" -> "__twoLeading"
            "a__b" -> "aB"
            "trailing_" -> "trailing_"
            "a_1b" -> "a1b"
            "x_y_z" -> "xYZ"
            "___" -> "____"
            "" -> ""
        "#]],
    );
}

#[test]
fn plurals() {
    check_table(
        &[
            "rule",
            "tag",
            "tags",
            "policy",
            "day",
            "ip_address",
            "status",
            "bus",
            "quiz",
            "ox",
            "mouse",
            "index",
            "matrix",
            "vertex",
            "box",
            "church",
            "wish",
            "knife",
            "leaf",
            "shelf",
            "half",
            "roof",
            "ref",
            "analysis",
            "medium",
            "datum",
            "person",
            "human",
            "child",
            "file_child",
            "foo-child",
            "potato",
            "tomato",
            "virus",
            "radius",
            "alias",
            "axis",
            "crisis",
            "hive",
            "archive",
            "objective",
            "news",
            "information",
            "series",
            "social_media",
            "sheep",
            "catfish",
            "chinese",
            "foot",
            "tooth",
            "Child",
            "octopus",
            "cow",
            "move",
            "menu",
            "buffalo",
            "file_lock_configuration",
            "",
        ],
        pluralize,
        expect![[r#"
            "rule" -> "rules"
            "tag" -> "tags"
            "tags" -> "tags"
            "policy" -> "policies"
            "day" -> "days"
            "ip_address" -> "ip_addresses"
            "status" -> "statuses"
            "bus" -> "buses"
            "quiz" -> "quizzes"
            "ox" -> "oxen"
            "mouse" -> "mice"
            "index" -> "indices"
            "matrix" -> "matrices"
            "vertex" -> "vertices"
            "box" -> "boxes"
            "church" -> "churches"
            "wish" -> "wishes"
            "knife" -> "knives"
            "leaf" -> "leafs"
            "shelf" -> "shelves"
            "half" -> "halves"
            "roof" -> "roofs"
            "ref" -> "reves"
            "analysis" -> "analyses"
            "medium" -> "media"
            "datum" -> "data"
            "person" -> "people"
            "human" -> "humen"
            "child" -> "children"
            "file_child" -> "file_children"
            "foo-child" -> "foo-fhildren"
            "potato" -> "potatoes"
            "tomato" -> "tomatoes"
            "virus" -> "viri"
            "radius" -> "radii"
            "alias" -> "aliases"
            "axis" -> "axes"
            "crisis" -> "crises"
            "hive" -> ""
            "archive" -> "arc"
            "objective" -> "objectives"
            "news" -> "news"
            "information" -> "information"
            "series" -> "series"
            "social_media" -> "social_media"
            "sheep" -> "sheep"
            "catfish" -> "catfish"
            "chinese" -> "chinese"
            "foot" -> "feet"
            "tooth" -> "teeth"
            "Child" -> "Children"
            "octopus" -> "octopuses"
            "cow" -> "cows"
            "move" -> "moves"
            "menu" -> "menus"
            "buffalo" -> "buffalo"
            "file_lock_configuration" -> "file_lock_configurations"
            "" -> ""
        "#]],
    );
}

#[test]
fn singulars() {
    check_table(
        &[
            "rules",
            "corsRules",
            "policies",
            "statuses",
            "menus",
            "quizzes",
            "matrices",
            "indices",
            "aliases",
            "alumni",
            "taxes",
            "crises",
            "shoes",
            "heroes",
            "houses",
            "buses",
            "mice",
            "caches",
            "boxes",
            "movies",
            "series",
            "babies",
            "objectives",
            "wolves",
            "knives",
            "hives",
            "drives",
            "analyses",
            "bases",
            "media",
            "people",
            "women",
            "children",
            "news",
            "bureaus",
            "virus",
            "address",
            "fileLockConfiguration",
            "feet",
            "data",
        ],
        singularize,
        expect![[r#"
            "rules" -> "rule"
            "corsRules" -> "corsRule"
            "policies" -> "policy"
            "statuses" -> "status"
            "menus" -> "menu"
            "quizzes" -> "quiz"
            "matrices" -> "matrix"
            "indices" -> "index"
            "aliases" -> "alias"
            "alumni" -> "alumnus"
            "taxes" -> "tax"
            "crises" -> "crisis"
            "shoes" -> "shoe"
            "heroes" -> "hero"
            "houses" -> "house"
            "buses" -> "bus"
            "mice" -> "mouse"
            "caches" -> "cache"
            "boxes" -> "box"
            "movies" -> "movie"
            "series" -> "series"
            "babies" -> "baby"
            "objectives" -> "objective"
            "wolves" -> "wolf"
            "knives" -> "knife"
            "hives" -> "hife"
            "drives" -> "drife"
            "analyses" -> "analysis"
            "bases" -> "basis"
            "media" -> "media"
            "people" -> "person"
            "women" -> "woman"
            "children" -> "child"
            "news" -> "news"
            "bureaus" -> "bureau"
            "virus" -> "virus"
            "address" -> "address"
            "fileLockConfiguration" -> "fileLockConfiguration"
            "feet" -> "foot"
            "data" -> "datum"
        "#]],
    );
}

#[test]
fn token_names() {
    let type_name = |tf: &str| safe_token_name(&upper_first(&token_camel_case(tf)));
    check_table(
        &["_id", "_pet", "_my-token", "_1f_dns_record", "_9", "_index", "parse_arn", "a__b", "trailing_", "_"],
        type_name,
        expect![[r#"
            "_id" -> "Id"
            "_pet" -> "Pet"
            "_my-token" -> "MyToken"
            "_1f_dns_record" -> "OneFDnsRecord"
            "_9" -> "Nine"
            "_index" -> "Index"
            "parse_arn" -> "ParseArn"
            "a__b" -> "AB"
            "trailing_" -> "Trailing"
            "_" -> ""
        "#]],
    );
}

#[test]
fn package_names_from_binaries() {
    let derive = |file: &str| match package_name_from_binary(file) {
        Ok(name) => name,
        Err(err) => format!("error: {err}"),
    };
    check_table(
        &[
            "terraform-provider-foo_v1.2.3",
            "./bin/terraform-provider-redpanda_v0.10.1",
            "/opt/plugins/terraform-provider-foo-bar",
            r"C:\plugins\terraform-provider-foo_v2.0.0-beta1.exe",
            "terraform-provider-my_vpn",
            "terraform-provider-_v1.0.0",
            "terraform-provider-1password",
            "custom-binary",
        ],
        derive,
        expect![[r#"
            "terraform-provider-foo_v1.2.3" -> "foo"
            "./bin/terraform-provider-redpanda_v0.10.1" -> "redpanda"
            "/opt/plugins/terraform-provider-foo-bar" -> "foo-bar"
            "C:\\plugins\\terraform-provider-foo_v2.0.0-beta1.exe" -> "foo"
            "terraform-provider-my_vpn" -> "my_vpn"
            "terraform-provider-_v1.0.0" -> "error: cannot derive a package name from the file name \"terraform-provider-_v1.0.0\": the name is empty"
            "terraform-provider-1password" -> "error: cannot derive a package name from the file name \"terraform-provider-1password\": a package name must start with a letter"
            "custom-binary" -> "custom-binary"
        "#]],
    );
}
