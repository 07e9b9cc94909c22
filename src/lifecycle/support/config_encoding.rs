//! The encoding of provider configuration in a stack's state: every setting that is not a
//! string is stored as its JSON text, as the Go implementation stores it.
//!
//! Pulumi's stack configuration (`pulumi config set mysql:port 3306`) holds only strings,
//! and the Go implementation keeps one encoding for all configuration: CheckConfig answers
//! the settings JSON-encoded (`port: "3306"`, `tls: "true"`, a block as a JSON object in a
//! string), and DiffConfig and Configure decode them by the schema. A stack therefore holds
//! strings for a provider's number and bool settings whichever way they were set. We answer
//! CheckConfig with the same encoding ([`fold`]) and decode either form ([`unfold`]) before
//! anything compares or sends the settings, so a stack moves between the implementations,
//! both ways, without a provider update (docs/state-layout.md, "Provider configuration").
//!
//! Architecture invariant: pure, over Pulumi property values; the schema reaches it only as
//! the [`Kind`] of each top-level setting.

use std::collections::BTreeMap;
use std::convert::Infallible;

use crate::cty::json::push_joined;
use crate::property::{PropertyMap, PropertyValue, UnknownKind, structpb};

/// What a top-level setting holds, as far as its encoding cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    String,
    Bool,
    Number,
    /// A list or set (of values or blocks).
    List,
    /// A map, an object, or a block flattened to one object.
    Object,
}

/// The settings of `config` that the schema knows (`kinds`, by Pulumi name), each that is
/// not a string JSON-encoded into one, as the Go implementation's CheckConfig answers them.
/// A value with an unknown in it becomes unknown; a value with a secret in it is encoded
/// without its secrets and made secret as a whole (the encoding cannot hold a nested
/// secret). Keys the schema does not know (the engine's `version`) are kept as they are.
pub fn fold(config: &PropertyMap, kinds: &BTreeMap<String, Kind>) -> PropertyMap {
    config
        .iter()
        .map(|(key, value)| {
            let folded = match kinds.get(key) {
                Some(kind) => fold_value(value, *kind),
                None => value.clone(),
            };
            (key.clone(), folded)
        })
        .collect()
}

fn fold_value(value: &PropertyValue, kind: Kind) -> PropertyValue {
    if has_unknown(value) {
        return PropertyValue::Unknown(UnknownKind::String);
    }
    if has_secret(value) {
        return PropertyValue::Secret(Box::new(fold_value(&without_secrets(value), kind)));
    }
    match value {
        PropertyValue::Null => PropertyValue::String(String::new()),
        PropertyValue::String(text) => match reencoded(text, kind) {
            Some(compact) => PropertyValue::String(compact),
            None => value.clone(),
        },
        other => PropertyValue::String(go_json(other)),
    }
}

/// A setting that is not a string, given as JSON text (stack configuration, or a program
/// that encoded it itself: `nested = '{"field1": "true", "field2": false}'`): Go decodes it
/// and encodes it again, so the stack holds the compact form whatever spacing or key order
/// was given. Text that is not JSON of the setting's kind is kept as given, for the
/// conversion to the provider's configuration to reject by name.
fn reencoded(text: &str, kind: Kind) -> Option<String> {
    let json = serde_json::from_str::<serde_json::Value>(text).ok()?;
    let fits = match kind {
        Kind::String => false,
        Kind::Bool => json.is_boolean(),
        Kind::Number => json.is_number(),
        Kind::List => json.is_array(),
        Kind::Object => json.is_object(),
    };
    fits.then(|| go_json(&structpb::from_json(json)))
}

/// The settings with each JSON-encoded string decoded by its setting's kind (the inverse of
/// [`fold`]); values that are not strings, string settings and keys the schema does not know
/// are kept as they are. A string that is not the JSON its kind needs is kept too, for the
/// conversion to the provider's configuration to reject with the setting's name.
pub fn unfold(config: &PropertyMap, kinds: &BTreeMap<String, Kind>) -> PropertyMap {
    config
        .iter()
        .map(|(key, value)| {
            let unfolded = match kinds.get(key) {
                Some(kind) if *kind != Kind::String => unfold_value(value, *kind),
                _ => value.clone(),
            };
            (key.clone(), unfolded)
        })
        .collect()
}

fn unfold_value(value: &PropertyValue, kind: Kind) -> PropertyValue {
    match value {
        PropertyValue::Secret(inner) => PropertyValue::Secret(Box::new(unfold_value(inner, kind))),
        PropertyValue::String(text) if text.is_empty() => match kind {
            Kind::Bool => PropertyValue::Bool(false),
            Kind::Number => PropertyValue::Number(0.0),
            Kind::List => PropertyValue::Array(Vec::new()),
            Kind::Object | Kind::String => PropertyValue::Object(PropertyMap::new()),
        },
        PropertyValue::String(text) => match serde_json::from_str::<serde_json::Value>(text) {
            Ok(json) => structpb::from_json(json),
            Err(_) => value.clone(),
        },
        other => other.clone(),
    }
}

fn has_unknown(value: &PropertyValue) -> bool {
    match value {
        PropertyValue::Unknown(_) => true,
        PropertyValue::Output(output) => output.value.as_deref().is_none_or(has_unknown),
        PropertyValue::Secret(inner) => has_unknown(inner),
        PropertyValue::Array(items) => items.iter().any(has_unknown),
        PropertyValue::Object(map) => map.values().any(has_unknown),
        _ => false,
    }
}

fn has_secret(value: &PropertyValue) -> bool {
    match value {
        PropertyValue::Secret(_) => true,
        PropertyValue::Output(output) => output.secret || output.value.as_deref().is_some_and(has_secret),
        PropertyValue::Array(items) => items.iter().any(has_secret),
        PropertyValue::Object(map) => map.values().any(has_secret),
        _ => false,
    }
}

fn without_secrets(value: &PropertyValue) -> PropertyValue {
    match value {
        PropertyValue::Secret(inner) => without_secrets(inner),
        PropertyValue::Output(output) => output.value.as_deref().map_or(PropertyValue::Null, without_secrets),
        PropertyValue::Array(items) => PropertyValue::Array(items.iter().map(without_secrets).collect()),
        PropertyValue::Object(map) => {
            PropertyValue::Object(map.iter().map(|(key, item)| (key.clone(), without_secrets(item))).collect())
        }
        other => other.clone(),
    }
}

/// `value` as Go's `json.Marshal` writes it (the Go implementation's encoding, byte for
/// byte): object keys sorted, `<`, `>` and `&` escaped, numbers in Go's float format.
fn go_json(value: &PropertyValue) -> String {
    let mut out = String::new();
    write_go_json(value, &mut out);
    out
}

fn write_go_json(value: &PropertyValue, out: &mut String) {
    match value {
        PropertyValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        PropertyValue::Number(n) => out.push_str(&go_float(*n)),
        PropertyValue::String(s) => write_go_string(s, out),
        PropertyValue::Array(items) => {
            let Ok(()) = push_joined(out, ['[', ']'], items.iter(), |item, out| {
                write_go_json(item, out);
                Ok::<_, Infallible>(())
            });
        }
        // PropertyMap is ordered by key, as Go sorts a map's keys.
        PropertyValue::Object(map) => {
            let Ok(()) = push_joined(out, ['{', '}'], map.iter(), |(key, item), out| {
                write_go_string(key, out);
                out.push(':');
                write_go_json(item, out);
                Ok::<_, Infallible>(())
            });
        }
        PropertyValue::Output(output) => match &output.value {
            Some(inner) => write_go_json(inner, out),
            None => out.push_str("null"),
        },
        PropertyValue::Secret(inner) => write_go_json(inner, out),
        // Assets, archives, references and bytes are no provider setting; null as in Go's
        // Mappable of a value it cannot map.
        _ => out.push_str("null"),
    }
}

fn write_go_string(text: &str, out: &mut String) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Go escapes these for HTML safety, and the line and paragraph separators for
            // JavaScript.
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", ch as u32)),
            ch if (ch as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", ch as u32)),
            ch => out.push(ch),
        }
    }
    out.push('"');
}

/// Go's `encoding/json` float format: the shortest decimal that reads back as the same
/// number, without an exponent from 1e-6 up to 1e21, with one (`1e+21`, `1e-07`) outside.
fn go_float(n: f64) -> String {
    let magnitude = n.abs();
    if magnitude != 0.0 && !(1e-6..1e21).contains(&magnitude) {
        let text = format!("{n:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        let (sign, digits) = match exponent.strip_prefix('-') {
            Some(digits) => ('-', digits),
            None => ('+', exponent),
        };
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    // Rust's Display is the shortest round-trip decimal, without an exponent.
    format!("{n}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::properties;

    fn kinds() -> BTreeMap<String, Kind> {
        [
            ("endpoint", Kind::String),
            ("port", Kind::Number),
            ("tls", Kind::Bool),
            ("hosts", Kind::List),
            ("awsConfig", Kind::Object),
        ]
        .into_iter()
        .map(|(key, kind)| (key.to_owned(), kind))
        .collect()
    }

    fn show(map: &PropertyMap) -> String {
        crate::testutil::show_properties(map)
    }

    #[test]
    fn settings_are_stored_as_the_go_implementation_stores_them() {
        // (the program's settings, what CheckConfig answers, in Pulumi's JSON notation)
        let secret = |v: &str| {
            format!(r#"{{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": {v}}}"#)
        };
        let u = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
        let cases: Vec<(String, String)> = vec![
            // Typed values from a program, or strings from stack config: the same state.
            (r#"{"port": 3306, "tls": true}"#.into(), r#"{"port":"3306","tls":"true"}"#.into()),
            (r#"{"port": "3306", "tls": "true"}"#.into(), r#"{"port":"3306","tls":"true"}"#.into()),
            (r#"{"port": 1.5, "endpoint": "a<b"}"#.into(), r#"{"endpoint":"a<b","port":"1.5"}"#.into()),
            (r#"{"port": 1e21}"#.into(), r#"{"port":"1e+21"}"#.into()),
            // Collections as JSON, keys sorted, `<` escaped as Go escapes it.
            (
                r#"{"hosts": ["a", "<b>"], "awsConfig": {"region": "r", "key": "k"}}"#.into(),
                r#"{"awsConfig":"{\"key\":\"k\",\"region\":\"r\"}","hosts":"[\"a\",\"\\u003cb\\u003e\"]"}"#.into(),
            ),
            // A secret inside: the whole setting secret, the JSON without it.
            (format!(r#"{{"hosts": ["a", {}]}}"#, secret(r#""b""#)), r#"{"hosts":{"secret":"[\"a\",\"b\"]"}}"#.into()),
            // Unknown stays unknown; null becomes the empty string; the engine's keys stay.
            (format!(r#"{{"port": "{u}", "version": "100.0.0"}}"#), r#"{"port":"?","version":"100.0.0"}"#.into()),
            (r#"{"tls": null}"#.into(), r#"{"tls":""}"#.into()),
            // JSON text for a setting that is not a string: Go's compact re-encoding
            // (TestDynamicCheckConfig/json-encoded-nested-config).
            (
                r#"{"awsConfig": "{\"region\": \"r\", \"key\": false}"}"#.into(),
                r#"{"awsConfig":"{\"key\":false,\"region\":\"r\"}"}"#.into(),
            ),
            (r#"{"hosts": "[ \"a\" , \"<b>\" ]"}"#.into(), r#"{"hosts":"[\"a\",\"\\u003cb\\u003e\"]"}"#.into()),
            (r#"{"port": "1.50", "tls": " true"}"#.into(), r#"{"port":"1.5","tls":"true"}"#.into()),
            // Text that is not JSON of the setting's kind: kept, for Configure to reject.
            (r#"{"awsConfig": "[1]", "port": "many"}"#.into(), r#"{"awsConfig":"[1]","port":"many"}"#.into()),
        ];
        for (given, expected) in cases {
            let folded = fold(&properties(&given), &kinds());
            assert_eq!(show(&folded), expected, "{given}");
            // Decoding the stored form gives the typed settings back (but for null, which
            // is stored as "" and read back as the type's zero value, as in Go).
            if !given.contains("null") {
                let typed = unfold(&folded, &kinds());
                assert_eq!(fold(&typed, &kinds()), folded, "{given} round trip");
            }
        }
    }

    #[test]
    fn stored_strings_decode_by_kind() {
        let cases = [
            (
                r#"{"port": "3306", "tls": "false", "endpoint": "3306"}"#,
                r#"{"endpoint":"3306","port":3306,"tls":false}"#,
            ),
            (
                r#"{"hosts": "[\"a\"]", "awsConfig": "{\"region\":\"r\"}"}"#,
                r#"{"awsConfig":{"region":"r"},"hosts":["a"]}"#,
            ),
            (r#"{"port": "", "hosts": "", "tls": ""}"#, r#"{"hosts":[],"port":0,"tls":false}"#),
            // Already typed (a stack written before this encoding): kept.
            (r#"{"port": 3306}"#, r#"{"port":3306}"#),
            // Not JSON: kept, for the conversion to reject by name.
            (r#"{"port": "many"}"#, r#"{"port":"many"}"#),
        ];
        for (given, expected) in cases {
            assert_eq!(show(&unfold(&properties(given), &kinds())), expected, "{given}");
        }
    }
}
