//! Byte vectors for every encoding rule, checked both ways, and decoder tables for input that
//! only a decoder sees (other int widths, refinements it must ignore, bad input).

use std::collections::BTreeMap;

use expect_test::{Expect, expect};

use super::{decode, encode};
use crate::cty::{Number, NumberBound, Refinements, Type, Value};

fn ty(spec: &str) -> Type {
    Type::from_json_bytes(spec.as_bytes()).unwrap()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
}

fn unhex(text: &str) -> Vec<u8> {
    text.split_whitespace().map(|b| u8::from_str_radix(b, 16).unwrap()).collect()
}

fn num(text: &str) -> Value {
    Value::number(Number::parse(text).unwrap())
}

fn refined(spec: &str, refinements: Refinements) -> Value {
    Value::unknown_refined(ty(spec), refinements).unwrap()
}

/// Encodes `value` as `spec`, checks the bytes, then decodes them and checks that the same
/// value comes back.
#[track_caller]
fn check(spec: &str, value: Value, expected_hex: &str) {
    let ty = ty(spec);
    let bytes = encode(&value, &ty).unwrap_or_else(|err| panic!("encoding {value} as {spec}: {err}"));
    assert_eq!(hex(&bytes), expected_hex, "encoding {value} as {spec}");
    let back = decode(&bytes, &ty).unwrap_or_else(|err| panic!("decoding {expected_hex} as {spec}: {err}"));
    assert!(back.raw_equals(&value), "decoding {expected_hex} as {spec}: got {back}, want {value}");
}

/// For values whose bytes decode to a different but equivalent value.
#[track_caller]
fn check_encode_only(spec: &str, value: Value, expected_hex: &str) {
    let bytes = encode(&value, &ty(spec)).unwrap();
    assert_eq!(hex(&bytes), expected_hex, "encoding {value} as {spec}");
}

#[test]
fn byte_vectors_for_every_encoding_rule() {
    // Nulls, whatever the type, are msgpack nil.
    check(r#""string""#, Value::null(Type::String), "c0");
    check(r#"["object",{"a":"string"}]"#, Value::null(ty(r#"["object",{"a":"string"}]"#)), "c0");
    check(r#""dynamic""#, Value::null(Type::Dynamic), "c0");
    // Unknowns.
    check(r#""string""#, Value::unknown(Type::String), "d4 00 00");
    check(r#""dynamic""#, Value::unknown(Type::Dynamic), "d4 00 00");
    check(
        r#""string""#,
        refined(r#""string""#, Refinements { not_null: true, string_prefix: Some("ab".into()), ..Default::default() }),
        "c7 07 0c 82 01 c2 02 a2 61 62",
    );
    check(
        r#""number""#,
        refined(
            r#""number""#,
            Refinements {
                number_lower: Some(NumberBound { value: Number::from_i64(0), inclusive: true }),
                number_upper: Some(NumberBound { value: Number::parse("1.5").unwrap(), inclusive: false }),
                ..Default::default()
            },
        ),
        "c7 11 0c 82 03 92 00 c3 04 92 cb 3f f8 00 00 00 00 00 00 c2",
    );
    check(
        r#"["list","string"]"#,
        refined(
            r#"["list","string"]"#,
            Refinements { not_null: true, length_lower: 1, length_upper: Some(5), ..Default::default() },
        ),
        "c7 07 0c 83 01 c2 05 01 06 05",
    );
    // Infinite number bounds say nothing, so they are not written.
    check_encode_only(
        r#""number""#,
        refined(
            r#""number""#,
            Refinements {
                not_null: true,
                number_lower: Some(NumberBound { value: Number::negative_infinity(), inclusive: true }),
                ..Default::default()
            },
        ),
        "c7 03 0c 81 01 c2",
    );
    // Primitives.
    check(r#""bool""#, Value::bool(true), "c3");
    check(r#""bool""#, Value::bool(false), "c2");
    check(r#""string""#, Value::string("hi"), "a2 68 69");
    check(r#""string""#, Value::string("e\u{301}"), "a2 c3 a9");
    // Numbers: compact ints, float64 only for exact non-integers, decimal text otherwise.
    check(r#""number""#, Value::int(0), "00");
    check(r#""number""#, Value::int(127), "7f");
    check(r#""number""#, Value::int(128), "cc 80");
    check(r#""number""#, Value::int(-1), "ff");
    check(r#""number""#, Value::int(-33), "d0 df");
    check(r#""number""#, Value::int(65536), "ce 00 01 00 00");
    check(r#""number""#, Value::int(i64::MAX), "cf 7f ff ff ff ff ff ff ff");
    check(r#""number""#, Value::int(i64::MIN), "d3 80 00 00 00 00 00 00 00");
    check(r#""number""#, num("1.5"), "cb 3f f8 00 00 00 00 00 00");
    check(r#""number""#, num("0.1"), "a3 30 2e 31");
    check(
        r#""number""#,
        num("1e-30"),
        "d9 20 30 2e 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 30 31",
    );
    check(
        r#""number""#,
        num("1180591620717411303424"),
        "b6 31 31 38 30 35 39 31 36 32 30 37 31 37 34 31 31 33 30 33 34 32 34",
    );
    check(r#""number""#, num("9223372036854775808"), "b3 39 32 32 33 33 37 32 30 33 36 38 35 34 37 37 35 38 30 38");
    check(r#""number""#, Value::number(Number::positive_infinity()), "cb 7f f0 00 00 00 00 00 00");
    check(r#""number""#, Value::number(Number::negative_infinity()), "cb ff f0 00 00 00 00 00 00");
    // Collections.
    check(
        r#"["list","string"]"#,
        Value::list(Type::String, vec![Value::string("a"), Value::string("b")]).unwrap(),
        "92 a1 61 a1 62",
    );
    check(r#"["list","string"]"#, Value::list(Type::String, vec![]).unwrap(), "90");
    check(
        r#"["set","number"]"#,
        Value::set(Type::Number, vec![Value::int(2), Value::int(1), Value::int(2)]).unwrap(),
        "92 01 02",
    );
    let map = BTreeMap::from([("b".to_owned(), Value::bool(true)), ("a".to_owned(), Value::bool(false))]);
    check(r#"["map","bool"]"#, Value::map(Type::Bool, map).unwrap(), "82 a1 61 c2 a1 62 c3");
    check(
        r#"["object",{"b":"number","a":"string"}]"#,
        Value::object([("b", Value::int(1)), ("a", Value::string("x"))]),
        "82 a1 61 a1 78 a1 62 01",
    );
    check(r#"["object",{}]"#, Value::empty_object(), "80");
    check(r#"["tuple",["string","bool"]]"#, Value::tuple(vec![Value::string("x"), Value::bool(true)]), "92 a1 78 c3");
    // Dynamic slots carry the type as JSON in a bin.
    check(r#""dynamic""#, Value::unknown(Type::String), "92 c4 08 22 73 74 72 69 6e 67 22 d4 00 00");
    check(r#""dynamic""#, Value::null(Type::String), "92 c4 08 22 73 74 72 69 6e 67 22 c0");
    check(r#""dynamic""#, Value::bool(true), "92 c4 06 22 62 6f 6f 6c 22 c3");
    check(
        r#"["list","dynamic"]"#,
        Value::list(Type::Dynamic, vec![Value::int(1)]).unwrap(),
        "91 92 c4 08 22 6e 75 6d 62 65 72 22 01",
    );
    check(
        r#"["object",{"v":"dynamic"}]"#,
        Value::object([("v", Value::list(Type::String, vec![Value::string("a")]).unwrap())]),
        "81 a1 76 92 c4 11 5b 22 6c 69 73 74 22 2c 22 73 74 72 69 6e 67 22 5d 91 a1 61",
    );
}

#[test]
fn long_string_prefixes_are_cut_at_a_character_boundary() {
    let prefix = format!("{}é", "a".repeat(254));
    let value =
        refined(r#""string""#, Refinements { string_prefix: Some(prefix.clone() + "tail"), ..Default::default() });
    let bytes = encode(&value, &Type::String).unwrap();
    let back = decode(&bytes, &Type::String).unwrap();
    // 254 + 2 bytes of "é" would pass 255, so the cut falls before it.
    assert_eq!(back.refinements().unwrap().string_prefix.as_deref(), Some(&prefix[..254]));
}

#[track_caller]
fn check_decode(cases: &[(&str, &str)], expect: Expect) {
    let mut out = String::new();
    for (spec, input) in cases {
        let result = crate::testutil::shown(decode(&unhex(input), &ty(spec)), |value| format!("{value}"));
        out.push_str(&format!("{spec} {input} => {result}\n"));
    }
    expect.assert_eq(&out);
}

#[test]
fn decoder_accepts_every_number_width() {
    check_decode(
        &[
            (r#""number""#, "cd 00 80"),
            (r#""number""#, "d1 ff 80"),
            (r#""number""#, "d2 ff ff ff 80"),
            (r#""number""#, "cf ff ff ff ff ff ff ff ff"),
            (r#""number""#, "ca 3f c0 00 00"),
            (r#""number""#, "a4 31 65 2d 33"),
            (r#""number""#, "a6 2d 31 65 34 30 30"),
            (r#""number""#, "cb 7f f8 00 00 00 00 00 00"),
            (r#""number""#, "a3 61 62 63"),
            (r#""number""#, "c3"),
        ],
        expect![[r#"
            "number" cd 00 80 => 128
            "number" d1 ff 80 => -128
            "number" d2 ff ff ff 80 => -128
            "number" cf ff ff ff ff ff ff ff ff => 18446744073709551615
            "number" ca 3f c0 00 00 => 1.5
            "number" a4 31 65 2d 33 => 0.001
            "number" a6 2d 31 65 34 30 30 => -10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000
            "number" cb 7f f8 00 00 00 00 00 00 => error: invalid number "NaN"
            "number" a3 61 62 63 => error: invalid number "abc"
            "number" c3 => error: number is required
        "#]],
    );
}

#[test]
fn decoder_reads_unknowns_and_refinements() {
    check_decode(
        &[
            // Any extension with a payload of at most one byte is a plain unknown.
            (r#""string""#, "d4 05 07"),
            (r#"["list","number"]"#, "c7 00 03"),
            // Longer payloads must be refinements.
            (r#""string""#, "d5 05 00 00"),
            // Nullness true means null.
            (r#""string""#, "c7 03 0c 81 01 c3"),
            // Unknown keys are ignored, known ones kept.
            (r#""string""#, "c7 07 0c 82 09 92 c0 c0 01 c2"),
            // Trailing bytes after the map are ignored.
            (r#""string""#, "c7 04 0c 81 01 c2 c0"),
            // A dynamic unknown drops its refinements.
            (r#""dynamic""#, "c7 03 0c 81 01 c2"),
            // Refinements must fit the type.
            (r#""number""#, "c7 04 0c 81 02 a1 61"),
            (r#""string""#, "c7 04 0c 81 05 cc 80"),
            (r#""string""#, "c7 03 0c 81 a1 61"),
            (r#""string""#, "c7 02 0c 91 01"),
            (r#""number""#, "c7 04 0c 81 03 91 00"),
        ],
        expect![[r#"
            "string" d4 05 07 => (unknown string)
            ["list","number"] c7 00 03 => (unknown list of number)
            "string" d5 05 00 00 => error: unsupported msgpack extension type 5
            "string" c7 03 0c 81 01 c3 => null(string)
            "string" c7 07 0c 82 09 92 c0 c0 01 c2 => (unknown string Refinements { not_null: true, string_prefix: None, number_lower: None, number_upper: None, length_lower: 0, length_upper: None })
            "string" c7 04 0c 81 01 c2 c0 => (unknown string Refinements { not_null: true, string_prefix: None, number_lower: None, number_upper: None, length_lower: 0, length_upper: None })
            "dynamic" c7 03 0c 81 01 c2 => (unknown dynamic)
            "number" c7 04 0c 81 02 a1 61 => error: invalid unknown value refinement: a string prefix refinement is only valid for strings
            "string" c7 04 0c 81 05 cc 80 => error: invalid unknown value refinement: length bounds are only valid for collections
            "string" c7 03 0c 81 a1 61 => error: invalid unknown value refinement: keys must be integers
            "string" c7 02 0c 91 01 => error: invalid unknown value refinement: the description must be a map
            "number" c7 04 0c 81 03 91 00 => error: invalid unknown value refinement: a number bound must be a two-element array
        "#]],
    );
    let mut oversized = vec![0xc9, 0, 0, 0x04, 0x01, 0x0c];
    oversized.extend(std::iter::repeat_n(0xc0, 1025));
    assert_eq!(
        decode(&oversized, &Type::String).unwrap_err().to_string(),
        "unknown value refinement is too large (1025 bytes)"
    );
}

#[test]
fn decoder_rejects_bad_input_with_a_path() {
    let obj = r#"["object",{"a":"string","tags":["map","number"]}]"#;
    check_decode(
        &[
            (obj, "82 a1 61 a1 78 a4 74 61 67 73 81 a4 4e 61 6d 65 a3 61 62 63"),
            (obj, "81 a1 61 a1 78"),
            (obj, "82 a1 61 a1 78 a1 7a c0"),
            (obj, "82 a1 61 a1 78 01 c0"),
            (obj, "82 a1 61 a1 78 a1 61 a1 78"),
            (obj, "80"),
            (obj, "90"),
            (r#"["tuple",["string","bool"]]"#, "91 a1 78"),
            (r#"["tuple",["string","bool"]]"#, "90"),
            (r#"["list",["list","bool"]]"#, "91 92 c3 a1 78"),
            (r#"["map","string"]"#, "81 01 a1 78"),
            (r#""string""#, "a2 ff fe"),
            (r#"["map","string"]"#, "81 a2 ff 41 a1 78"),
            (r#""string""#, "c4 03 47 ff 49"),
            (obj, "82 a1 61 a1 78 a2 ff 7a c0"),
            (r#""string""#, "92 a1"),
            (r#"["list","string"]"#, "dd ff ff ff ff"),
            (r#"["list","string"]"#, "92 a1"),
            (r#""string""#, "c0 c0"),
            (r#""string""#, "c1"),
            (r#""string""#, ""),
            (r#""dynamic""#, "93 c4 08 22 73 74 72 69 6e 67 22 c0 c0"),
            (r#""dynamic""#, "92 c4 07 22 66 6c 6f 61 74 22 c0"),
            (r#""dynamic""#, "a1 78"),
        ],
        expect![[r#"
            ["object",{"a":"string","tags":["map","number"]}] 82 a1 61 a1 78 a4 74 61 67 73 81 a4 4e 61 6d 65 a3 61 62 63 => error: .tags["Name"]: invalid number "abc"
            ["object",{"a":"string","tags":["map","number"]}] 81 a1 61 a1 78 => error: an object with 2 attributes is required (1 given)
            ["object",{"a":"string","tags":["map","number"]}] 82 a1 61 a1 78 a1 7a c0 => error: .z: unsupported attribute "z"
            ["object",{"a":"string","tags":["map","number"]}] 82 a1 61 a1 78 01 c0 => error: all keys must be strings
            ["object",{"a":"string","tags":["map","number"]}] 82 a1 61 a1 78 a1 61 a1 78 => error: attribute "tags" is required
            ["object",{"a":"string","tags":["map","number"]}] 80 => {}
            ["object",{"a":"string","tags":["map","number"]}] 90 => error: an object is required
            ["tuple",["string","bool"]] 91 a1 78 => error: a tuple of length 2 is required
            ["tuple",["string","bool"]] 90 => tuple[]
            ["list",["list","bool"]] 91 92 c3 a1 78 => error: [0][1]: bool is required
            ["map","string"] 81 01 a1 78 => error: all keys must be strings
            "string" a2 ff fe => "��"
            ["map","string"] 81 a2 ff 41 a1 78 => map{�A = "x"}
            "string" c4 03 47 ff 49 => "G�I"
            ["object",{"a":"string","tags":["map","number"]}] 82 a1 61 a1 78 a2 ff 7a c0 => error: .�z: unsupported attribute "�z"
            "string" 92 a1 => error: string is required
            ["list","string"] dd ff ff ff ff => error: [0]: unexpected end of input
            ["list","string"] 92 a1 => error: [0]: unexpected end of input
            "string" c0 c0 => error: 1 unexpected bytes after the value
            "string" c1 => error: string is required
            "string"  => error: unexpected end of input
            "dynamic" 93 c4 08 22 73 74 72 69 6e 67 22 c0 c0 => error: dynamic value array must have exactly two elements
            "dynamic" 92 c4 07 22 66 6c 6f 61 74 22 c0 => error: invalid cty type spec "float": unknown primitive type name
            "dynamic" a1 78 => error: dynamic value array must have exactly two elements
        "#]],
    );
}

#[test]
fn nesting_is_bounded() {
    // Dynamic wrappers can nest without limit in the bytes even though types cannot.
    let mut bytes = Vec::new();
    for _ in 0..300 {
        bytes.extend_from_slice(&unhex("92 c4 09 22 64 79 6e 61 6d 69 63 22"));
    }
    bytes.extend_from_slice(&unhex("92 c4 06 22 62 6f 6f 6c 22 c3"));
    assert_eq!(decode(&bytes, &Type::Dynamic).unwrap_err().to_string(), "value nests deeper than 256 levels");
    // Just inside the bound is fine, even on a test thread's small stack.
    let inside = &bytes[12 * 50..];
    assert_eq!(decode(inside, &Type::Dynamic).unwrap(), Value::bool(true));
    // A value nested deeper than the bound cannot be encoded either.
    let mut value = Value::bool(true);
    let mut value_ty = Type::Bool;
    for _ in 0..300 {
        value = Value::tuple(vec![value]);
        value_ty = Type::Tuple(vec![value_ty]);
    }
    assert!(encode(&value, &value_ty).unwrap_err().to_string().contains("deeper than 256"));
}

#[test]
fn encoder_checks_the_value_against_the_type() {
    let cases = [
        (r#""string""#, Value::int(1)),
        (r#"["object",{"a":"string"}]"#, Value::object([("b", Value::string("x"))])),
        (r#"["object",{"a":"string","b":"string"}]"#, Value::object([("a", Value::string("x"))])),
        (r#"["list","string"]"#, Value::list(Type::Dynamic, vec![Value::string("a"), Value::int(2)]).unwrap()),
        (r#""number""#, Value::null(Type::String)),
    ];
    let out: Vec<String> =
        cases.iter().map(|(spec, value)| encode(value, &ty(spec)).unwrap_err().to_string()).collect();
    expect![[r#"
        [
            "string is required, found number",
            "unsupported attribute \"b\"",
            "attribute \"b\" is required",
            "[1]: string is required, found number",
            "number is required, found string",
        ]
    "#]]
    .assert_debug_eq(&out);
}
