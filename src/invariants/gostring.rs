//! Values and types rendered as go-cty's `GoString` renders them (`cty.StringVal("a")`,
//! `cty.ListValEmpty(cty.Number)`, …).
//!
//! Terraform quotes values this way in its invariant messages, which are written for
//! provider developers, who recognise the notation. Keeping it lets a user paste our message
//! into a provider's issue tracker and be understood.

use std::fmt::Write;

use crate::cty::{Number, ObjectType, Refinements, Type, Value, View};

/// `%#v` of a cty value.
pub fn value(v: &Value) -> String {
    let mut out = String::new();
    write_value(v, &mut out);
    out
}

fn write_type(t: &Type, out: &mut String) {
    match t {
        Type::Bool => out.push_str("cty.Bool"),
        Type::Number => out.push_str("cty.Number"),
        Type::String => out.push_str("cty.String"),
        Type::Dynamic => out.push_str("cty.DynamicPseudoType"),
        Type::List(e) | Type::Set(e) | Type::Map(e) => {
            out.push_str(match t {
                Type::List(_) => "cty.List(",
                Type::Set(_) => "cty.Set(",
                _ => "cty.Map(",
            });
            write_type(e, out);
            out.push(')');
        }
        Type::Tuple(es) if es.is_empty() => out.push_str("cty.EmptyTuple"),
        Type::Tuple(es) => {
            out.push_str("cty.Tuple([]cty.Type{");
            for (idx, e) in es.iter().enumerate() {
                if idx > 0 {
                    out.push_str(", ");
                }
                write_type(e, out);
            }
            out.push_str("})");
        }
        Type::Object(ObjectType { attrs, .. }) if attrs.is_empty() => out.push_str("cty.EmptyObject"),
        Type::Object(ObjectType { attrs, optional }) => {
            out.push_str(if optional.is_empty() { "cty.Object(" } else { "cty.ObjectWithOptionalAttrs(" });
            out.push_str("map[string]cty.Type{");
            for (idx, (name, attr_ty)) in attrs.iter().enumerate() {
                if idx > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "{}:", quote(name));
                write_type(attr_ty, out);
            }
            out.push('}');
            if !optional.is_empty() {
                out.push_str(", []string{");
                let names: Vec<String> = optional.iter().map(|name| quote(name)).collect();
                out.push_str(&names.join(", "));
                out.push('}');
            }
            out.push(')');
        }
    }
}

fn write_value(v: &Value, out: &mut String) {
    match v.view() {
        View::Null(t) => {
            out.push_str("cty.NullVal(");
            write_type(t, out);
            out.push(')');
        }
        View::Unknown(Type::Dynamic, _) => out.push_str("cty.DynamicVal"),
        View::Unknown(t, refinements) => {
            out.push_str("cty.UnknownVal(");
            write_type(t, out);
            out.push(')');
            if let Some(refinements) = refinements {
                write_refinements(refinements, out);
            }
        }
        View::Bool(true) => out.push_str("cty.True"),
        View::Bool(false) => out.push_str("cty.False"),
        View::Number(n) => write_number(n, out),
        View::String(s) => {
            let _ = write!(out, "cty.StringVal({})", quote(s));
        }
        View::List(elem_ty, elems) | View::Set(elem_ty, elems) => {
            let (empty, full) = if matches!(v.view(), View::List(..)) {
                ("ListValEmpty", "ListVal")
            } else {
                ("SetValEmpty", "SetVal")
            };
            if elems.is_empty() {
                let _ = write!(out, "cty.{empty}(");
                write_type(elem_ty, out);
                out.push(')');
            } else {
                let _ = write!(out, "cty.{full}([]cty.Value{{");
                write_elements(elems.iter(), out);
                out.push_str("})");
            }
        }
        View::Tuple([]) => out.push_str("cty.EmptyTupleVal"),
        View::Tuple(elems) => {
            out.push_str("cty.TupleVal([]cty.Value{");
            write_elements(elems.iter(), out);
            out.push_str("})");
        }
        View::Map(elem_ty, []) => {
            out.push_str("cty.MapValEmpty(");
            write_type(elem_ty, out);
            out.push(')');
        }
        View::Map(_, entries) => {
            out.push_str("cty.MapVal(map[string]cty.Value{");
            write_entries(entries.iter().map(|(k, v)| (k.as_str(), v)), out);
            out.push_str("})");
        }
        View::Object([]) => out.push_str("cty.EmptyObjectVal"),
        View::Object(attrs) => {
            out.push_str("cty.ObjectVal(map[string]cty.Value{");
            write_entries(attrs.iter().map(|(k, v)| (k.as_str(), v)), out);
            out.push_str("})");
        }
    }
}

fn write_elements<'a>(elems: impl Iterator<Item = &'a Value>, out: &mut String) {
    for (idx, elem) in elems.enumerate() {
        if idx > 0 {
            out.push_str(", ");
        }
        write_value(elem, out);
    }
}

fn write_entries<'a>(entries: impl Iterator<Item = (&'a str, &'a Value)>, out: &mut String) {
    for (idx, (key, elem)) in entries.enumerate() {
        if idx > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{}:", quote(key));
        write_value(elem, out);
    }
}

fn write_number(n: &Number, out: &mut String) {
    // go-cty picks the shortest initializer that reproduces the number exactly.
    if let Some(int) = n.as_i64() {
        let _ = write!(out, "cty.NumberIntVal({int})");
    } else if let Some(float) = n.exact_f64() {
        let _ = write!(out, "cty.NumberFloatVal({float:?})");
    } else {
        let _ = write!(out, "cty.MustParseNumberVal({})", quote(&n.to_plain_string()));
    }
}

fn write_refinements(refinements: &Refinements, out: &mut String) {
    let only_not_null = Refinements { not_null: true, ..Refinements::default() };
    if *refinements == only_not_null {
        out.push_str(".RefineNotNull()");
        return;
    }
    out.push_str(".Refine()");
    if refinements.not_null {
        out.push_str(".NotNull()");
    }
    if let Some(prefix) = &refinements.string_prefix {
        let _ = write!(out, ".StringPrefixFull({})", quote(prefix));
    }
    let bounds = [("Lower", &refinements.number_lower), ("Upper", &refinements.number_upper)];
    for (side, bound) in bounds {
        if let Some(bound) = bound {
            let value = quote(&bound.value.to_plain_string());
            let _ = write!(out, ".NumberRange{side}Bound(cty.MustParseNumberVal({value}), {})", bound.inclusive);
        }
    }
    if refinements.length_lower != 0 {
        let _ = write!(out, ".CollectionLengthLowerBound({})", refinements.length_lower);
    }
    if let Some(upper) = refinements.length_upper {
        let _ = write!(out, ".CollectionLengthUpperBound({upper})");
    }
    out.push_str(".NewValue()");
}

/// Go's `%q` for the strings that matter here: JSON string quoting is the same for every
/// printable character and for the common escapes.
fn quote(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}
