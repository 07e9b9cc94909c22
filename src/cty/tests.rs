//! Tables for the value model and the JSON codec.

use std::collections::BTreeMap;

use expect_test::{Expect, expect};

use super::{Number, Path, Refinements, Type, Value, json};

fn ty(spec: &str) -> Type {
    Type::from_json_bytes(spec.as_bytes()).unwrap()
}

fn strings(items: &[&str]) -> Vec<Value> {
    items.iter().map(|s| Value::string(*s)).collect()
}

#[test]
fn paths_render_like_terraform() {
    let tags = Path::root().attr("tags").key("Name");
    let block = Path::root().attr("block").index(0).attr("x");
    let odd = Path::root().key("a\"b");
    assert_eq!(tags.to_string(), r#".tags["Name"]"#);
    assert_eq!(block.to_string(), ".block[0].x");
    assert_eq!(odd.to_string(), r#"["a\"b"]"#);
    assert_eq!(Path::root().to_string(), "");
}

#[test]
fn strings_are_nfc_normalized_on_entry() {
    assert_eq!(Value::string("e\u{301}"), Value::string("\u{e9}"));
    assert_eq!(Value::string("e\u{301}").as_str(), Some("\u{e9}"));
}

#[test]
fn sets_are_sorted_and_merge_known_duplicates_only() {
    let set = Value::set(
        Type::String,
        vec![
            Value::string("b"),
            Value::string("a"),
            Value::string("b"),
            Value::unknown(Type::String),
            Value::unknown(Type::String),
        ],
    )
    .unwrap();
    expect![[r#"set[(unknown string), (unknown string), "a", "b"]"#]].assert_eq(&set.to_string());
    let same = Value::set(Type::String, strings(&["a", "b"])).unwrap();
    let reordered = Value::set(Type::String, strings(&["b", "a"])).unwrap();
    assert!(same.raw_equals(&reordered));
}

#[test]
fn equality_with_and_without_refinements() {
    let plain = Value::unknown(Type::String);
    let refined = Value::unknown_refined(Type::String, Refinements { not_null: true, ..Default::default() }).unwrap();
    assert!(!plain.raw_equals(&refined));
    assert!(plain.equals_ignoring_refinements(&refined));
    let in_list = |v: Value| Value::list(Type::String, vec![v]).unwrap();
    assert!(in_list(plain.clone()).equals_ignoring_refinements(&in_list(refined.clone())));
    assert!(!in_list(plain).equals_ignoring_refinements(&in_list(Value::string("x"))));
}

#[test]
fn accessors_and_predicates() {
    let value = Value::object([
        ("id", Value::string("i-1")),
        (
            "tags",
            Value::map(Type::String, BTreeMap::from([("Name".to_owned(), Value::unknown(Type::String))])).unwrap(),
        ),
        ("ports", Value::list(Type::Number, vec![Value::int(80)]).unwrap()),
        ("gone", Value::null(Type::Bool)),
    ]);
    assert_eq!(value.get_attr("id").and_then(Value::as_str), Some("i-1"));
    assert!(value.get_attr("gone").unwrap().is_null());
    assert!(value.is_known());
    assert!(!value.is_wholly_known());
    assert_eq!(value.get_attr("ports").unwrap().elements().unwrap()[0].as_number(), Some(&Number::from_i64(80)));
    assert_eq!(value.get_attr("tags").unwrap().map_entries().unwrap().len(), 1);
    assert_eq!(
        value.ty().to_json_string(),
        r#"["object",{"gone":"bool","id":"string","ports":["list","number"],"tags":["map","string"]}]"#
    );
    let mut unknown_paths = Vec::new();
    value.walk(&mut |path, part| {
        if !part.is_known() {
            unknown_paths.push(path.to_string());
        }
    });
    assert_eq!(unknown_paths, [r#".tags["Name"]"#]);
}

#[test]
fn conformance_errors_name_the_path() {
    let spec = r#"["object",{"block":["list",["object",{"x":"number"}]],"tags":["map","string"]}]"#;
    let block = |x: Value| Value::list(Type::Dynamic, vec![Value::object([("x", x)])]).unwrap();
    let tags = Value::map(Type::String, BTreeMap::<String, Value>::new()).unwrap();
    let cases = [
        Value::object([("block", block(Value::int(1))), ("tags", tags.clone())]),
        Value::object([("block", block(Value::string("1"))), ("tags", tags.clone())]),
        Value::object([("block", block(Value::int(1)))]),
        Value::object([("block", block(Value::int(1))), ("tags", tags.clone()), ("extra", Value::bool(true))]),
        Value::object([("block", Value::null(ty(r#"["list",["object",{"x":"string"}]]"#))), ("tags", tags)]),
    ];
    let out: Vec<String> = cases
        .iter()
        .map(|value| match value.conforms_to(&ty(spec)) {
            Ok(()) => "ok".to_owned(),
            Err(err) => err.to_string(),
        })
        .collect();
    expect![[r#"
        [
            "ok",
            ".block[0].x: number is required, found string",
            "attribute \"tags\" is required",
            "unsupported attribute \"extra\"",
            ".block: [\"list\",[\"object\",{\"x\":\"number\"}]] is required, found [\"list\",[\"object\",{\"x\":\"string\"}]]",
        ]
    "#]]
    .assert_debug_eq(&out);
    assert!(Value::list(Type::Number, strings(&["a"])).is_err());
    assert!(Value::unknown_refined(Type::Number, Refinements { length_lower: 1, ..Default::default() }).is_err());
}

#[test]
fn json_encoding() {
    let cases = [
        (r#""string""#, Value::string("a\"<b>")),
        (r#""number""#, Value::number(Number::parse("-1e400").unwrap())),
        (r#""number""#, Value::number(Number::parse("0.1").unwrap())),
        (r#""number""#, Value::number(Number::from_f64(1.5).unwrap())),
        (r#"["list","bool"]"#, Value::list(Type::Bool, vec![Value::bool(true), Value::null(Type::Bool)]).unwrap()),
        (
            r#"["object",{"b":"number","a":["map","string"]}]"#,
            Value::object([
                ("b", Value::int(2)),
                ("a", Value::map(Type::String, BTreeMap::from([("k".to_owned(), Value::string("v"))])).unwrap()),
            ]),
        ),
        (r#""dynamic""#, Value::list(Type::String, strings(&["x"])).unwrap()),
        (r#""dynamic""#, Value::null(Type::Dynamic)),
        (r#"["tuple",["string","dynamic"]]"#, Value::tuple(vec![Value::string("x"), Value::int(1)])),
        (r#""string""#, Value::unknown(Type::String)),
        (r#""number""#, Value::number(Number::positive_infinity())),
        (r#""string""#, Value::bool(true)),
    ];
    let out: Vec<String> = cases
        .into_iter()
        .map(|(spec, value)| match json::encode(&value, &ty(spec)) {
            Ok(text) => {
                let back = json::decode(text.as_bytes(), &ty(spec)).unwrap();
                assert!(back.raw_equals(&value), "{text} decoded as {back}, want {value}");
                text
            }
            Err(err) => format!("error: {err}"),
        })
        .collect();
    expect![[r#"
        [
            "\"a\\\"<b>\"",
            "-10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
            "0.1",
            "1.5",
            "[true,null]",
            "{\"a\":{\"k\":\"v\"},\"b\":2}",
            "{\"value\":[\"x\"],\"type\":[\"list\",\"string\"]}",
            "null",
            "[\"x\",{\"value\":1,\"type\":\"number\"}]",
            "error: value is not known",
            "error: infinity cannot be encoded as JSON",
            "error: string is required, found bool",
        ]
    "#]]
    .assert_debug_eq(&out);
}

#[track_caller]
fn check_json_decode(cases: &[(&str, &str)], expect: Expect) {
    let mut out = String::new();
    for (spec, input) in cases {
        let result = crate::testutil::shown(json::decode(input.as_bytes(), &ty(spec)), |value| value.to_string());
        out.push_str(&format!("{spec} {input} => {result}\n"));
    }
    expect.assert_eq(&out);
}

#[test]
fn json_decoding_is_lenient_like_go_cty() {
    let obj = r#"["object",{"a":"string","n":"number","tags":["map","bool"]}]"#;
    check_json_decode(
        &[
            (r#""number""#, "0.1"),
            (r#""number""#, "1e-30"),
            (r#""number""#, r#""12.50""#),
            (r#""number""#, "123456789012345678901234567890"),
            (r#""bool""#, r#""true""#),
            (r#""string""#, "1.50"),
            (r#""string""#, "false"),
            (obj, r#"{"a":"x"}"#),
            (obj, r#"{"a":"x","n":1,"tags":{"k":"false"}}"#),
            (obj, r#"{"a":"x","z":1}"#),
            (obj, r#"{"a":"x","tags":{"k":"maybe"}}"#),
            (obj, r#"{"a":[1]}"#),
            (r#""dynamic""#, r#"{"value":["a"],"type":["set","string"]}"#),
            (r#""dynamic""#, r#"{"value":1}"#),
            (r#"["tuple",["string"]]"#, r#"["a","b"]"#),
            (r#""number""#, "1e99999"),
            (r#""number""#, "[1"),
            (r#""string""#, r#""a" x"#),
        ],
        expect![[r#"
            "number" 0.1 => 0.1
            "number" 1e-30 => 0.000000000000000000000000000001
            "number" "12.50" => 12.5
            "number" 123456789012345678901234567890 => 123456789012345678901234567890
            "bool" "true" => true
            "string" 1.50 => "1.50"
            "string" false => "false"
            ["object",{"a":"string","n":"number","tags":["map","bool"]}] {"a":"x"} => {a = "x", n = null(number), tags = null(map of bool)}
            ["object",{"a":"string","n":"number","tags":["map","bool"]}] {"a":"x","n":1,"tags":{"k":"false"}} => {a = "x", n = 1, tags = map{k = false}}
            ["object",{"a":"string","n":"number","tags":["map","bool"]}] {"a":"x","z":1} => error: unsupported attribute "z"
            ["object",{"a":"string","n":"number","tags":["map","bool"]}] {"a":"x","tags":{"k":"maybe"}} => error: .tags["k"]: bool is required
            ["object",{"a":"string","n":"number","tags":["map","bool"]}] {"a":[1]} => error: .a: string is required
            "dynamic" {"value":["a"],"type":["set","string"]} => set["a"]
            "dynamic" {"value":1} => error: a dynamic value object with "value" and "type" is required
            ["tuple",["string"]] ["a","b"] => error: a tuple of length 1 is required
            "number" 1e99999 => error: number 1e99999 is outside the supported range
            "number" [1 => error: malformed input: EOF while parsing a list at line 1 column 2
            "string" "a" x => error: malformed input: trailing characters at line 1 column 5
        "#]],
    );
}

#[test]
fn json_nesting_is_bounded() {
    // Far deeper than any type: reading stops where the type does, one level down.
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let err = json::decode(deep.as_bytes(), &ty(r#"["list","string"]"#)).unwrap_err();
    assert_eq!(err.to_string(), "[0]: string is required");
    // Dynamic wrappers nest without a type to bound them; our own limit applies.
    let mut nested = r#"{"value":true,"type":"bool"}"#.to_owned();
    for _ in 0..300 {
        nested = format!(r#"{{"value":{nested},"type":"dynamic"}}"#);
    }
    let err = json::decode(nested.as_bytes(), &Type::Dynamic).unwrap_err();
    assert!(err.to_string().contains("deeper than 256"), "{err}");
}

/// Decoding a large state is dominated by allocation and copying, so the size of a value
/// matters: a regression here shows up directly in the benchmarks.
#[test]
fn values_stay_small() {
    assert_eq!(std::mem::size_of::<Value>(), 48);
}
