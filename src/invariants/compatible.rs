//! Terraform's rules for an applied state against its plan (`objchange.AssertObjectCompatible`).
//!
//! Every known planned value must come back unchanged, unknown planned values must come back
//! known and within their refinements, and collections may not grow or lose elements. The
//! same check compares a re-plan at apply time against the plan shown at preview.

use schema_gen::tf::{Block, BlockNesting};

use super::gostring;
use super::{Violation, attr_or_null, element_count, elements_of};
use crate::cty::{Path, Refinements, Type, Value, View};

/// Checks that `actual` is a valid completion of the possibly partly unknown `planned`.
///
/// Both values must conform to the schema's implied type. Returns every violation found.
pub fn assert_object_compatible(schema: &Block, planned: &Value, actual: &Value) -> Vec<Violation> {
    let mut violations = Vec::new();
    object_compatible(schema, planned, actual, &Path::root(), &mut violations);
    violations
}

fn object_compatible(schema: &Block, planned: &Value, actual: &Value, path: &Path, out: &mut Vec<Violation>) {
    let at_root = if path.is_root() { "Root object " } else { "" };
    if planned.is_null() && !actual.is_null() {
        out.push(Violation::new(path, format!("{at_root}was absent, but now present")));
        return;
    }
    if actual.is_null() && !planned.is_null() {
        out.push(Violation::new(path, format!("{at_root}was present, but now absent")));
        return;
    }
    if planned.is_null() {
        return;
    }

    for (name, attr) in &schema.attributes {
        let ty = attr.implied_type();
        let path = path.attr(name);
        let mut found = Vec::new();
        value_compatible(&attr_or_null(planned, name, &ty), &attr_or_null(actual, name, &ty), &path, &mut found);
        if attr.sensitive && !found.is_empty() {
            // A vague message on purpose: the detailed ones would quote the secret.
            out.push(Violation::new(&path, "inconsistent values for sensitive attribute"));
        } else {
            out.extend(found);
        }
    }

    for (name, block) in &schema.block_types {
        let block_ty = block.implied_type();
        let planned_v = attr_or_null(planned, name, &block_ty);
        let actual_v = attr_or_null(actual, name, &block_ty);
        let path = path.attr(name);

        if block.block.computed {
            if actual_v.is_null() && block.nesting != BlockNesting::Single {
                out.push(Violation::new(&path, "null block value after apply"));
                continue;
            }
            if !planned_v.is_known() {
                // Terraform stops checking the whole object here; checking the block as a
                // value and carrying on with its siblings loses nothing.
                value_compatible(&planned_v, &actual_v, &path, out);
                continue;
            }
        }

        match block.nesting {
            BlockNesting::Single | BlockNesting::Group => {
                // An unknown block placeholder may have expanded into no block at all.
                if !planned_v.is_known() && actual_v.is_null() {
                    continue;
                }
                object_compatible(&block.block, &planned_v, &actual_v, &path, out);
            }
            BlockNesting::List => {
                if !planned_v.is_known() || !actual_v.is_known() || planned_v.is_null() || actual_v.is_null() {
                    continue;
                }
                let (planned_elems, actual_elems) = (elements_of(&planned_v), elements_of(&actual_v));
                if planned_elems.len() != actual_elems.len() {
                    out.push(Violation::new(
                        &path,
                        format!("block count changed from {} to {}", planned_elems.len(), actual_elems.len()),
                    ));
                    continue;
                }
                for (idx, (planned_ev, actual_ev)) in planned_elems.iter().zip(actual_elems).enumerate() {
                    object_compatible(&block.block, planned_ev, actual_ev, &path.index(idx as u64), out);
                }
            }
            BlockNesting::Map => map_blocks_compatible(&block.block, &planned_v, &actual_v, &path, out),
            BlockNesting::Set => {
                if !planned_v.is_known() || !actual_v.is_known() || planned_v.is_null() || actual_v.is_null() {
                    continue;
                }
                set_elements_correlate(&planned_v, &actual_v, &path, out, |planned_ev, actual_ev| {
                    let mut found = Vec::new();
                    object_compatible(&block.block, planned_ev, actual_ev, &path, &mut found);
                    found.is_empty()
                });
                let (planned_len, actual_len) = (elements_of(&planned_v).len(), elements_of(&actual_v).len());
                // Equal elements may coalesce once unknowns are resolved, so a set may shrink,
                // but it may never grow.
                if planned_len < actual_len {
                    out.push(Violation::new(
                        &path,
                        format!("block set length changed from {planned_len} to {actual_len}"),
                    ));
                }
            }
        }
    }
}

fn map_blocks_compatible(schema: &Block, planned: &Value, actual: &Value, path: &Path, out: &mut Vec<Violation>) {
    match (planned.view(), actual.view()) {
        // Object-typed (label-keyed, dynamic content): keys may not vanish or appear.
        (View::Object(planned_attrs), View::Object(actual_attrs)) => {
            for (key, planned_ev) in planned_attrs {
                let Some(actual_ev) = crate::cty::entry(actual_attrs, key) else {
                    out.push(Violation::new(path, format!("block key {} has vanished", quote(key))));
                    continue;
                };
                object_compatible(schema, planned_ev, actual_ev, &path.attr(key), out);
            }
            for key in actual_attrs.iter().map(|(k, _)| k) {
                if crate::cty::entry(planned_attrs, key).is_none() {
                    out.push(Violation::new(path, format!("new block key {} has appeared", quote(key))));
                }
            }
        }
        (View::Map(_, planned_entries), View::Map(_, actual_entries)) => {
            if planned_entries.len() != actual_entries.len() {
                out.push(Violation::new(
                    path,
                    format!("block count changed from {} to {}", planned_entries.len(), actual_entries.len()),
                ));
                return;
            }
            for (key, planned_ev) in planned_entries {
                if let Some(actual_ev) = crate::cty::entry(actual_entries, key) {
                    object_compatible(schema, planned_ev, actual_ev, &path.key(key), out);
                }
            }
        }
        // Unknown, null or mismatched kinds: nothing can be compared element by element.
        _ => {}
    }
}

fn value_compatible(planned: &Value, actual: &Value, path: &Path, out: &mut Vec<Violation>) {
    let planned_ty = planned.ty();
    if planned_ty == Type::Dynamic {
        return;
    }
    if let Err(err) = actual.conforms_to(&planned_ty) {
        out.push(Violation::new(path, format!("wrong final value type: {err}")));
        return;
    }
    if let View::Unknown(_, refinements) = planned.view() {
        if !refinements_admit(refinements, actual) {
            out.push(Violation::new(
                path,
                format!(
                    "final value {} does not conform to planning placeholder {}",
                    gostring::value(actual),
                    gostring::value(planned)
                ),
            ));
        }
        return;
    }
    match (planned.is_null(), actual.is_null()) {
        (true, true) => return,
        (false, true) => {
            out.push(Violation::new(path, format!("was {}, but now null", gostring::value(planned))));
            return;
        }
        (true, false) => {
            out.push(Violation::new(path, format!("was null, but now {}", gostring::value(actual))));
            return;
        }
        (false, false) => {}
    }
    if !actual.is_known() {
        out.push(Violation::new(path, "was known, but now unknown"));
        return;
    }
    match (planned.view(), actual.view()) {
        (View::Bool(_) | View::Number(_) | View::String(_), _) if planned != actual => {
            out.push(Violation::new(
                path,
                format!("was {}, but now {}", gostring::value(planned), gostring::value(actual)),
            ));
        }
        (View::List(_, planned_elems), View::List(_, actual_elems))
        | (View::Tuple(planned_elems), View::Tuple(actual_elems)) => {
            for (idx, planned_ev) in planned_elems.iter().enumerate() {
                match actual_elems.get(idx) {
                    Some(actual_ev) => value_compatible(planned_ev, actual_ev, &path.index(idx as u64), out),
                    None => out.push(Violation::new(path, format!("element {idx} has vanished"))),
                }
            }
            for idx in planned_elems.len()..actual_elems.len() {
                out.push(Violation::new(path, format!("new element {idx} has appeared")));
            }
        }
        (View::Map(_, planned_entries), View::Map(_, actual_entries)) => {
            for (key, planned_ev) in planned_entries {
                match crate::cty::entry(actual_entries, key) {
                    Some(actual_ev) => value_compatible(planned_ev, actual_ev, &path.key(key), out),
                    None => out.push(Violation::new(path, format!("element {} has vanished", quote(key)))),
                }
            }
            for key in actual_entries.iter().map(|(k, _)| k) {
                if crate::cty::entry(planned_entries, key).is_none() {
                    out.push(Violation::new(path, format!("new element {} has appeared", quote(key))));
                }
            }
        }
        (View::Object(planned_attrs), View::Object(actual_attrs)) => {
            for (name, planned_ev) in planned_attrs {
                if let Some(actual_ev) = crate::cty::entry(actual_attrs, name) {
                    value_compatible(planned_ev, actual_ev, &path.attr(name), out);
                }
            }
        }
        (View::Set(_, _), View::Set(_, _)) => {
            set_elements_correlate(planned, actual, path, out, |planned_ev, actual_ev| {
                let mut found = Vec::new();
                value_compatible(planned_ev, actual_ev, path, &mut found);
                found.is_empty()
            });
            let (planned_len, actual_len) = (element_count(planned).unwrap_or(0), element_count(actual).unwrap_or(0));
            if planned_len < actual_len {
                out.push(Violation::new(path, format!("length changed from {planned_len} to {actual_len}")));
            }
        }
        // conforms_to has already rejected mismatched kinds.
        _ => {}
    }
}

/// Every planned element must match some actual element and the other way round. Set
/// elements have no identity but their value, and an unknown planned element may become any
/// value, so "matches" is the compatibility check itself.
fn set_elements_correlate(
    planned: &Value,
    actual: &Value,
    path: &Path,
    out: &mut Vec<Violation>,
    compatible: impl Fn(&Value, &Value) -> bool,
) {
    let (planned_elems, actual_elems) = (elements_of(planned), elements_of(actual));
    let mut planned_matched = vec![false; planned_elems.len()];
    let mut actual_matched = vec![false; actual_elems.len()];
    for (planned_idx, planned_ev) in planned_elems.iter().enumerate() {
        for (actual_idx, actual_ev) in actual_elems.iter().enumerate() {
            if planned_matched[planned_idx] && actual_matched[actual_idx] {
                continue;
            }
            if compatible(planned_ev, actual_ev) {
                planned_matched[planned_idx] = true;
                actual_matched[actual_idx] = true;
            }
        }
    }
    // Unmatched planned elements first; the other direction would mostly repeat the same
    // mismatch, so it is reported only when every planned element found a partner.
    let sides =
        [("planned", &planned_matched, planned_elems, "actual"), ("actual", &actual_matched, actual_elems, "plan")];
    for (side, matched, elems, other) in sides {
        let before = out.len();
        for (elem, _) in elems.iter().zip(matched.iter()).filter(|(_, matched)| !**matched) {
            out.push(Violation::new(
                path,
                format!("{side} set element {} does not correlate with any element in {other}", gostring::value(elem)),
            ));
        }
        if out.len() > before {
            return;
        }
    }
}

/// Whether a known (or unknown) actual value lies in the range an unknown planned value's
/// refinements promised.
fn refinements_admit(refinements: Option<&Refinements>, actual: &Value) -> bool {
    let Some(refinements) = refinements else { return true };
    if !actual.is_known() {
        return true;
    }
    if actual.is_null() {
        return !refinements.not_null;
    }
    match actual.view() {
        View::String(text) => refinements.string_prefix.as_deref().is_none_or(|prefix| text.starts_with(prefix)),
        View::Number(n) => {
            let above = refinements
                .number_lower
                .as_ref()
                .is_none_or(|bound| if bound.inclusive { *n >= bound.value } else { *n > bound.value });
            let below = refinements
                .number_upper
                .as_ref()
                .is_none_or(|bound| if bound.inclusive { *n <= bound.value } else { *n < bound.value });
            above && below
        }
        View::List(..) | View::Set(..) | View::Map(..) => {
            let len = element_count(actual).unwrap_or(0) as u64;
            len >= refinements.length_lower && refinements.length_upper.is_none_or(|upper| len <= upper)
        }
        _ => true,
    }
}

fn quote(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}
