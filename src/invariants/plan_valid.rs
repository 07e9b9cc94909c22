//! Terraform's rules for a planned new state (`objchange.AssertPlanValid`).
//!
//! During planning a provider may only fill in attributes that are null in the
//! configuration and computed in the schema. It may also keep a prior value that it deems
//! equivalent to the configured one. Anything else is a provider bug.

use schema_gen::tf::{Attribute, AttributeType, Block, BlockNesting, NestedObject, ObjectNesting};

use super::gostring;
use super::{Violation, attr_or_null, element_count, elements_of};
use crate::cty::{Path, Type, Value, View};

/// Checks `planned` against the configuration and prior state it was planned from.
///
/// All three values must conform to the schema's implied type; `config` must be exactly
/// what was sent to the provider. Returns every violation found, in schema order.
pub fn assert_plan_valid(schema: &Block, prior: &Value, config: &Value, planned: &Value) -> Vec<Violation> {
    let mut violations = Vec::new();
    block_valid(schema, prior, config, planned, &Path::root(), &mut violations);
    violations
}

/// Whether the plan has a block or object where the config has none, or the other way round.
fn presence_problem(config: &Value, planned: &Value) -> Option<&'static str> {
    match (config.is_null(), planned.is_null()) {
        (false, true) => Some("planned for absence but config wants existence"),
        (true, false) => Some("planned for existence but config wants absence"),
        _ => None,
    }
}

fn block_valid(schema: &Block, prior: &Value, config: &Value, planned: &Value, path: &Path, out: &mut Vec<Violation>) {
    if let Some(problem) = presence_problem(config, planned) {
        out.push(Violation::new(path, problem));
        return;
    }
    if planned.is_null() {
        return;
    }

    attrs_valid(schema.attributes.iter(), prior, config, planned, path, out);

    for (name, block) in &schema.block_types {
        let path = path.attr(name);
        let block_ty = block.implied_type();
        let planned_v = attr_or_null(planned, name, &block_ty);
        let config_v = attr_or_null(config, name, &block_ty);
        let prior_v = attr_or_null(prior, name, &block_ty);

        if block.nesting != BlockNesting::Single && planned_v.is_null() {
            let mode = match block.nesting {
                BlockNesting::List => "list",
                BlockNesting::Map => "map",
                BlockNesting::Set => "set",
                BlockNesting::Group | BlockNesting::Single => "group",
            };
            out.push(Violation::new(
                &path,
                format!(
                    "attribute representing a {mode} of nested blocks must be empty to indicate no blocks, not null"
                ),
            ));
            continue;
        }
        if planned_v.raw_equals(&config_v) {
            continue;
        }
        if !config_v.is_known() {
            // An unknown block in config is a dynamic block whose for_each is unknown; the
            // provider cannot decide its contents.
            out.push(Violation::new(
                &path,
                format!("planned value {} for unknown dynamic block", gostring::value(&planned_v)),
            ));
            continue;
        }
        if config_v.is_null() && block.block.computed {
            continue;
        }
        if !planned_v.is_known() {
            let message = if block.block.computed {
                "planned unknown value for configured block"
            } else {
                "planned unknown value for non-computed block"
            };
            out.push(Violation::new(&path, message));
            continue;
        }

        let element_ty = block.block.implied_type();
        match block.nesting {
            BlockNesting::Single | BlockNesting::Group => {
                block_valid(&block.block, &prior_v, &config_v, &planned_v, &path, out);
            }
            BlockNesting::List => {
                // A legacy provider may have stored a null list, which ignore_changes could
                // have put into config; it counts as no blocks.
                let config_len = element_count(&config_v).unwrap_or(0);
                let planned_len = element_count(&planned_v).unwrap_or(0);
                if planned_len != config_len {
                    out.push(Violation::new(
                        &path,
                        format!("block count in plan ({planned_len}) disagrees with count in config ({config_len})"),
                    ));
                    continue;
                }
                let config_elems = elements_of(&config_v);
                let prior_elems = elements_of(&prior_v);
                for (idx, planned_ev) in elements_of(&planned_v).iter().enumerate() {
                    let path = path.index(idx as u64);
                    if !planned_ev.is_known() {
                        out.push(Violation::new(&path, UNKNOWN_BLOCK_ELEMENT));
                        continue;
                    }
                    let Some(config_ev) = config_elems.get(idx) else { continue };
                    let prior_ev = prior_elems.get(idx).cloned().unwrap_or_else(|| Value::null(element_ty.clone()));
                    block_valid(&block.block, &prior_ev, config_ev, planned_ev, &path, out);
                }
            }
            BlockNesting::Map => {
                map_blocks_valid(&block.block, &element_ty, &prior_v, &config_v, &planned_v, &path, out)
            }
            BlockNesting::Set => {
                // Set elements have no identity to correlate them by, so only the
                // wholly-unknown element rule can be checked.
                for (idx, planned_ev) in elements_of(&planned_v).iter().enumerate() {
                    if !planned_ev.is_known() {
                        out.push(Violation::new(&path.index(idx as u64), UNKNOWN_BLOCK_ELEMENT));
                    }
                }
            }
        }
    }
}

const UNKNOWN_BLOCK_ELEMENT: &str =
    "element representing nested block must not be unknown itself; set nested attribute values to unknown instead";

/// Map blocks are a map of objects, or an object keyed by label when the content has a
/// dynamic type; both are checked key by key.
fn map_blocks_valid(
    schema: &Block,
    element_ty: &Type,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &Path,
    out: &mut Vec<Violation>,
) {
    let (planned_entries, config_entries, prior_entries) = (entries_of(planned), entries_of(config), entries_of(prior));
    let object_typed = matches!(planned.view(), View::Object(_));
    if !object_typed {
        let (planned_len, config_len) = (planned_entries.len(), config_entries.len());
        if planned_len != config_len {
            out.push(Violation::new(
                path,
                format!("block count in plan ({planned_len}) disagrees with count in config ({config_len})"),
            ));
            return;
        }
    }
    for (key, planned_ev) in &planned_entries {
        let Some(config_ev) = config_entries.iter().find_map(|(k, v)| (k == key).then_some(v)) else {
            out.push(Violation::new(path, format!("block key {} from plan is not present in config", quote(key))));
            continue;
        };
        let path = if object_typed { path.attr(key) } else { path.key(key) };
        if !planned_ev.is_known() {
            out.push(Violation::new(&path, UNKNOWN_BLOCK_ELEMENT));
            continue;
        }
        let prior_ev = prior_entries
            .iter()
            .find_map(|(k, v)| (k == key).then(|| (*v).clone()))
            .unwrap_or_else(|| Value::null(element_ty.clone()));
        block_valid(schema, &prior_ev, config_ev, planned_ev, &path, out);
    }
    for (key, _) in &config_entries {
        if !planned_entries.iter().any(|(k, _)| k == key) {
            out.push(Violation::new(path, format!("block key {} from config is not present in plan", quote(key))));
        }
    }
}

fn attrs_valid<'a>(
    attributes: impl Iterator<Item = (&'a String, &'a Attribute)>,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &Path,
    out: &mut Vec<Violation>,
) {
    for (name, attr) in attributes {
        let ty = attr.implied_type();
        let planned_v = attr_or_null(planned, name, &ty);
        let config_v = attr_or_null(config, name, &ty);
        let prior_v = attr_or_null(prior, name, &ty);
        value_valid(attr, &prior_v, &config_v, &planned_v, &path.attr(name), out);
    }
}

fn value_valid(
    attr: &Attribute,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &Path,
    out: &mut Vec<Violation>,
) {
    if planned.equals_ignoring_refinements(config) {
        return;
    }
    if planned.equals_ignoring_refinements(prior) && !prior.is_null() && !config.is_null() {
        // The provider kept the prior value, declaring it equivalent to the configured one.
        return;
    }
    if attr.write_only {
        if !planned.is_null() {
            out.push(Violation::new(path, "planned value for write-only attribute is not null"));
        }
        return;
    }
    if attr.computed && !attr.optional {
        return;
    }
    if config.is_null() && attr.computed {
        return;
    }
    if config.is_null() && !planned.is_null() {
        let message = if attr.sensitive {
            "sensitive planned value for a non-computed attribute".to_owned()
        } else {
            format!("planned value {} for a non-computed attribute", gostring::value(planned))
        };
        out.push(Violation::new(path, message));
        return;
    }
    if let AttributeType::Nested(nested) = &attr.ty {
        object_valid(nested, prior, config, planned, path, out);
        return;
    }
    let message = match (prior.is_null(), attr.sensitive) {
        (true, true) => "sensitive planned value does not match config value".to_owned(),
        (true, false) => format!(
            "planned value {} does not match config value {}",
            gostring::value(planned),
            gostring::value(config)
        ),
        (false, true) => "sensitive planned value does not match config value nor prior value".to_owned(),
        (false, false) => format!(
            "planned value {} does not match config value {} nor prior value {}",
            gostring::value(planned),
            gostring::value(config),
            gostring::value(prior)
        ),
    };
    out.push(Violation::new(path, message));
}

fn object_valid(
    nested: &NestedObject,
    prior: &Value,
    config: &Value,
    planned: &Value,
    path: &Path,
    out: &mut Vec<Violation>,
) {
    if let Some(problem) = presence_problem(config, planned) {
        out.push(Violation::new(path, problem));
        return;
    }
    if !config.is_null() && !planned.is_known() {
        out.push(Violation::new(path, "planned unknown for configured value"));
        return;
    }
    if planned.is_null() {
        return;
    }
    let element_ty = nested_element_type(nested);
    match nested.nesting {
        ObjectNesting::Single => attrs_valid(nested.attributes.iter(), prior, config, planned, path, out),
        ObjectNesting::List if counts_agree(planned, config, path, out) => {
            let (config_elems, prior_elems) = (elements_of(config), elements_of(prior));
            for (idx, planned_ev) in elements_of(planned).iter().enumerate() {
                let Some(config_ev) = config_elems.get(idx) else { continue };
                let prior_ev = prior_elems.get(idx).cloned().unwrap_or_else(|| Value::null(element_ty.clone()));
                attrs_valid(nested.attributes.iter(), &prior_ev, config_ev, planned_ev, &path.index(idx as u64), out);
            }
        }
        ObjectNesting::Map if counts_agree(planned, config, path, out) => {
            let (planned_entries, config_entries, prior_entries) =
                (entries_of(planned), entries_of(config), entries_of(prior));
            for (key, planned_ev) in &planned_entries {
                let Some(config_ev) = config_entries.iter().find_map(|(k, v)| (k == key).then_some(v)) else {
                    out.push(Violation::new(
                        path,
                        format!("map key {} from plan is not present in config", quote(key)),
                    ));
                    continue;
                };
                let prior_ev = prior_entries
                    .iter()
                    .find_map(|(k, v)| (k == key).then(|| (*v).clone()))
                    .unwrap_or_else(|| Value::null(element_ty.clone()));
                attrs_valid(nested.attributes.iter(), &prior_ev, config_ev, planned_ev, &path.key(key), out);
            }
            for (key, _) in &config_entries {
                if !planned_entries.iter().any(|(k, _)| k == key) {
                    out.push(Violation::new(
                        path,
                        format!("map key {} from config is not present in plan", quote(key)),
                    ));
                }
            }
        }
        ObjectNesting::List | ObjectNesting::Map => {}
        ObjectNesting::Set => {
            // Only the count can be checked; an unknown length admits any count.
            if let (Some(planned_len), Some(config_len)) = (element_count(planned), element_count(config))
                && planned_len != config_len
            {
                out.push(Violation::new(path, count_mismatch(Some(planned_len), Some(config_len))));
            }
        }
    }
}

/// Whether a list or map of nested objects has the same known count in plan and config, so
/// that its elements can be compared; a differing count is reported. Both counts unknown
/// leaves nothing to compare either.
fn counts_agree(planned: &Value, config: &Value, path: &Path, out: &mut Vec<Violation>) -> bool {
    let (planned_len, config_len) = (element_count(planned), element_count(config));
    if planned_len.is_none() && config_len.is_none() {
        return false;
    }
    if planned_len.is_none() || planned_len != config_len {
        out.push(Violation::new(path, count_mismatch(planned_len, config_len)));
        return false;
    }
    true
}

fn count_mismatch(planned_len: Option<usize>, config_len: Option<usize>) -> String {
    format!(
        "count in plan ({}) disagrees with count in config ({})",
        gostring_length(planned_len),
        gostring_length(config_len)
    )
}

/// The object type of one element of a nested attribute.
fn nested_element_type(nested: &NestedObject) -> Type {
    match nested.implied_type() {
        Type::List(elem) | Type::Set(elem) | Type::Map(elem) => *elem,
        object => object,
    }
}

/// A length as Terraform prints it: `cty.NumberIntVal(2)`, or unknown.
fn gostring_length(len: Option<usize>) -> String {
    match len {
        Some(len) => format!("cty.NumberIntVal({len})"),
        None => "cty.UnknownVal(cty.Number)".to_owned(),
    }
}

/// The entries of a map or map-like object, empty for null or unknown.
fn entries_of(v: &Value) -> Vec<(&str, &Value)> {
    match v.view() {
        View::Map(_, entries) | View::Object(entries) => entries.iter().map(|(k, v)| (k.as_str(), v)).collect(),
        _ => Vec::new(),
    }
}

fn quote(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}
