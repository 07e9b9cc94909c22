//! Tables for the `Struct` codec: every special value, every sentinel, and bad input.

use expect_test::{Expect, expect};
use prost_types::value::Kind;
use serde_json::json;

use super::structpb::{decode_value, encode_value};
use super::{PropertyPath, PropertyPathStep, PropertyValue, UnknownKind};
use crate::testutil::json_to_protobuf;

/// Test fixtures are written as JSON and turned into protobuf values.
fn to_json(value: &prost_types::Value) -> serde_json::Value {
    match &value.kind {
        None | Some(Kind::NullValue(_)) => serde_json::Value::Null,
        Some(Kind::BoolValue(b)) => json!(b),
        Some(Kind::NumberValue(n)) => json!(n),
        Some(Kind::StringValue(s)) => json!(s),
        Some(Kind::ListValue(list)) => list.values.iter().map(to_json).collect(),
        Some(Kind::StructValue(object)) => {
            object.fields.iter().map(|(k, v)| (k.clone(), to_json(v))).collect::<serde_json::Map<_, _>>().into()
        }
    }
}

const SIG: &str = "4dabf18193072939515e22adb298388d";

#[track_caller]
fn check(cases: Vec<serde_json::Value>, expect: Expect) {
    let mut out = String::new();
    for case in cases {
        let result = crate::testutil::shown(decode_value(&json_to_protobuf(&case)), |value| {
            // Whatever decodes must encode back to something that decodes the same.
            let again = decode_value(&encode_value(&value)).unwrap();
            assert_eq!(again, value);
            format!("{value:?}")
        });
        out.push_str(&format!("{case} => {result}\n"));
    }
    expect.assert_eq(&out);
}

#[test]
fn plain_values_and_unknown_sentinels() {
    check(
        vec![
            json!({"a": [1.5, true, null, "s"]}),
            json!("1c4a061d-8072-4f0a-a4cb-0ff528b18fe7"),
            json!("3eeb2bf0-c639-47a8-9e75-3b44932eb421"),
            json!("04da6b54-80e4-46f7-96ec-b56ff0331ba9"),
            json!("6a19a0b0-7e62-4c92-b797-7f8e31da9cc2"),
            json!("030794c1-ac77-496b-92df-f27374a8bd58"),
            json!("e48ece36-62e2-4504-bad9-02848725956a"),
            json!("dd056dcd-154b-4c76-9bd3-c8f88648b5ff"),
        ],
        expect![[r#"
            {"a":[1.5,true,null,"s"]} => Object({"a": Array([Number(1.5), Bool(true), Null, String("s")])})
            "1c4a061d-8072-4f0a-a4cb-0ff528b18fe7" => Unknown(Bool)
            "3eeb2bf0-c639-47a8-9e75-3b44932eb421" => Unknown(Number)
            "04da6b54-80e4-46f7-96ec-b56ff0331ba9" => Unknown(String)
            "6a19a0b0-7e62-4c92-b797-7f8e31da9cc2" => Unknown(Array)
            "030794c1-ac77-496b-92df-f27374a8bd58" => Unknown(Asset)
            "e48ece36-62e2-4504-bad9-02848725956a" => Unknown(Archive)
            "dd056dcd-154b-4c76-9bd3-c8f88648b5ff" => Unknown(Object)
        "#]],
    );
}

#[test]
fn special_values() {
    check(
        vec![
            json!({SIG: "1b47061264138c4ac30d75fd1eb44270", "value": "s3cr3t"}),
            json!({SIG: "c44067f5952c0a294b673a41bacd8c17", "hash": "h", "text": "hello"}),
            json!({SIG: "0def7320c3a5731c473e5ecbe6d01bc7", "assets": {
                "a.txt": {SIG: "c44067f5952c0a294b673a41bacd8c17", "path": "a.txt"},
                "sub": {SIG: "0def7320c3a5731c473e5ecbe6d01bc7", "uri": "https://example.com/x.zip"},
            }}),
            json!({SIG: "5cf8f73096256a8f31e491e813e4eb8e", "urn": "urn:pulumi:s::p::t::n", "id": "i-1", "packageVersion": "1.0.0"}),
            json!({SIG: "5cf8f73096256a8f31e491e813e4eb8e", "urn": "urn:pulumi:s::p::t::n", "id": ""}),
            json!({SIG: "5cf8f73096256a8f31e491e813e4eb8e", "urn": "urn:pulumi:s::p::t::n", "id": "04da6b54-80e4-46f7-96ec-b56ff0331ba9"}),
            json!({SIG: "d0e6a833031e9bbcd3f4e8bde6ca49a4", "secret": true, "dependencies": ["urn:a"]}),
            json!({SIG: "d0e6a833031e9bbcd3f4e8bde6ca49a4", "value": [1]}),
            json!({SIG: "803fd3297a5875dc03ca845dda5d2a98", "value": "/w=="}),
        ],
        expect![[r#"
            {"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270","value":"s3cr3t"} => Secret(String("s3cr3t"))
            {"4dabf18193072939515e22adb298388d":"c44067f5952c0a294b673a41bacd8c17","hash":"h","text":"hello"} => Asset(Asset { hash: Some("h"), text: Some("hello"), path: None, uri: None })
            {"4dabf18193072939515e22adb298388d":"0def7320c3a5731c473e5ecbe6d01bc7","assets":{"a.txt":{"4dabf18193072939515e22adb298388d":"c44067f5952c0a294b673a41bacd8c17","path":"a.txt"},"sub":{"4dabf18193072939515e22adb298388d":"0def7320c3a5731c473e5ecbe6d01bc7","uri":"https://example.com/x.zip"}}} => Archive(Archive { hash: None, assets: Some({"a.txt": Asset(Asset { hash: None, text: None, path: Some("a.txt"), uri: None }), "sub": Archive(Archive { hash: None, assets: None, path: None, uri: Some("https://example.com/x.zip") })}), path: None, uri: None })
            {"4dabf18193072939515e22adb298388d":"5cf8f73096256a8f31e491e813e4eb8e","urn":"urn:pulumi:s::p::t::n","id":"i-1","packageVersion":"1.0.0"} => ResourceReference(ResourceReference { urn: "urn:pulumi:s::p::t::n", id: Some(Known("i-1")), name: None, type: None, package_version: Some("1.0.0") })
            {"4dabf18193072939515e22adb298388d":"5cf8f73096256a8f31e491e813e4eb8e","urn":"urn:pulumi:s::p::t::n","id":""} => ResourceReference(ResourceReference { urn: "urn:pulumi:s::p::t::n", id: Some(Unknown), name: None, type: None, package_version: None })
            {"4dabf18193072939515e22adb298388d":"5cf8f73096256a8f31e491e813e4eb8e","urn":"urn:pulumi:s::p::t::n","id":"04da6b54-80e4-46f7-96ec-b56ff0331ba9"} => ResourceReference(ResourceReference { urn: "urn:pulumi:s::p::t::n", id: Some(Unknown), name: None, type: None, package_version: None })
            {"4dabf18193072939515e22adb298388d":"d0e6a833031e9bbcd3f4e8bde6ca49a4","secret":true,"dependencies":["urn:a"]} => Output(OutputValue { value: None, secret: true, dependencies: ["urn:a"] })
            {"4dabf18193072939515e22adb298388d":"d0e6a833031e9bbcd3f4e8bde6ca49a4","value":[1]} => Output(OutputValue { value: Some(Array([Number(1.0)])), secret: false, dependencies: [] })
            {"4dabf18193072939515e22adb298388d":"803fd3297a5875dc03ca845dda5d2a98","value":"/w=="} => Bytes([255])
        "#]],
    );
}

#[test]
fn bad_values_name_the_property_path() {
    check(
        vec![
            json!({"a": {"b": [{SIG: "bogus"}]}}),
            json!({"a": {"k.x": {SIG: 1}}}),
            json!({"s": {SIG: "1b47061264138c4ac30d75fd1eb44270"}}),
            json!({SIG: "5cf8f73096256a8f31e491e813e4eb8e", "id": "x"}),
            json!({SIG: "5cf8f73096256a8f31e491e813e4eb8e", "urn": 5}),
            json!({SIG: "c44067f5952c0a294b673a41bacd8c17", "text": ["x"]}),
            json!({SIG: "0def7320c3a5731c473e5ecbe6d01bc7", "assets": {"x": "y"}}),
            json!({SIG: "d0e6a833031e9bbcd3f4e8bde6ca49a4", "dependencies": ["a", 1]}),
            json!({SIG: "d0e6a833031e9bbcd3f4e8bde6ca49a4", "secret": "yes"}),
            json!({SIG: "803fd3297a5875dc03ca845dda5d2a98", "value": "not base64!"}),
        ],
        expect![[r#"
            {"a":{"b":[{"4dabf18193072939515e22adb298388d":"bogus"}]}} => error: a.b[0]: unrecognized signature "bogus"
            {"a":{"k.x":{"4dabf18193072939515e22adb298388d":1}}} => error: a["k.x"]: signature must be a string
            {"s":{"4dabf18193072939515e22adb298388d":"1b47061264138c4ac30d75fd1eb44270"}} => error: s: missing required field "value"
            {"4dabf18193072939515e22adb298388d":"5cf8f73096256a8f31e491e813e4eb8e","id":"x"} => error: missing required field "urn"
            {"4dabf18193072939515e22adb298388d":"5cf8f73096256a8f31e491e813e4eb8e","urn":5} => error: urn: must be a string
            {"4dabf18193072939515e22adb298388d":"c44067f5952c0a294b673a41bacd8c17","text":["x"]} => error: text: must be a string
            {"4dabf18193072939515e22adb298388d":"0def7320c3a5731c473e5ecbe6d01bc7","assets":{"x":"y"}} => error: assets.x: must be an asset or archive
            {"4dabf18193072939515e22adb298388d":"d0e6a833031e9bbcd3f4e8bde6ca49a4","dependencies":["a",1]} => error: dependencies[1]: must be a string
            {"4dabf18193072939515e22adb298388d":"d0e6a833031e9bbcd3f4e8bde6ca49a4","secret":"yes"} => error: secret: must be a bool
            {"4dabf18193072939515e22adb298388d":"803fd3297a5875dc03ca845dda5d2a98","value":"not base64!"} => error: value: byte string value is not valid base64
        "#]],
    );
}

#[test]
fn encoding_uses_signatures_and_sentinels() {
    let values = [
        PropertyValue::Unknown(UnknownKind::Number),
        PropertyValue::Secret(Box::new(PropertyValue::Bytes(vec![0xff, 0x00]))),
        PropertyValue::Array(vec![PropertyValue::Null, PropertyValue::Number(2.0)]),
    ];
    let out: Vec<String> = values.iter().map(|v| to_json(&encode_value(v)).to_string()).collect();
    expect![[r#"
        [
            "\"3eeb2bf0-c639-47a8-9e75-3b44932eb421\"",
            "{\"4dabf18193072939515e22adb298388d\":\"1b47061264138c4ac30d75fd1eb44270\",\"value\":{\"4dabf18193072939515e22adb298388d\":\"803fd3297a5875dc03ca845dda5d2a98\",\"value\":\"/wA=\"}}",
            "[null,2.0]",
        ]
    "#]].assert_debug_eq(&out);
}

#[test]
fn deep_nesting_is_refused() {
    let mut value = json_to_protobuf(&json!(1));
    for _ in 0..300 {
        value = prost_types::Value { kind: Some(Kind::ListValue(prost_types::ListValue { values: vec![value] })) };
    }
    let err = decode_value(&value).unwrap_err();
    assert_eq!(err.kind.to_string(), "value nests deeper than 256 levels");
}

#[test]
fn property_paths_render_like_pulumi() {
    let path = PropertyPath {
        steps: vec![
            PropertyPathStep::Key("a".into()),
            PropertyPathStep::Key("b".into()),
            PropertyPathStep::Index(0),
            PropertyPathStep::Key("k.x".into()),
            PropertyPathStep::Key("q\"".into()),
        ],
    };
    assert_eq!(path.to_string(), r#"a.b[0]["k.x"]["q\""]"#);
    let top = PropertyPath { steps: vec![PropertyPathStep::Key("a.b".into()), PropertyPathStep::Key("c".into())] };
    assert_eq!(top.to_string(), r#"["a.b"].c"#);
}
