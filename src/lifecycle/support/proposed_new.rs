//! Terraform's proposed new state (`objchange.ProposedNew`): the configuration, with every
//! computed attribute the configuration leaves unset carried over from the prior state.
//!
//! This is what `PlanResourceChange` receives as `proposed_new_state`. Providers built on
//! the plugin framework plan from it directly, so it must match Terraform's exactly, or
//! plans differ from what `terraform plan` would show.

use std::collections::BTreeMap;

use schema_gen::tf::{Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting};

use crate::cty::{self, Type, Value, View};

/// Combines `prior` (wholly known, or null for a create) with `config` (which may hold
/// unknowns). Both must conform to the schema's implied type.
pub fn proposed_new(schema: &Block, prior: &Value, config: &Value) -> Result<Value, cty::Error> {
    if config.is_null() && prior.is_null() {
        return Ok(prior.clone());
    }
    if prior.is_null() {
        // A synthetic "empty block" prior gives the top level one non-null object to read
        // attributes from.
        return block(schema, &cty::empty_block_value(schema)?, config);
    }
    block(schema, prior, config)
}

/// Data sources are planned by Terraform core itself: the prior is wholly unknown, so every
/// computed attribute not set in the configuration becomes unknown.
pub fn planned_data_source_object(schema: &Block, config: &Value) -> Result<Value, cty::Error> {
    block(schema, &Value::unknown(schema.implied_type()), config)
}

fn block(schema: &Block, prior: &Value, config: &Value) -> Result<Value, cty::Error> {
    if config.is_null() || !config.is_known() {
        return Ok(prior.clone());
    }
    let mut attrs = attributes(schema.attributes.iter(), prior, config)?;
    for (name, nested) in &schema.block_types {
        let ty = nested.implied_type();
        let prior_v = child(prior, name, &ty);
        let config_v = child(config, name, &ty);
        attrs.insert(name.clone(), nested_block(nested, &prior_v, &config_v)?);
    }
    Ok(Value::object(attrs))
}

fn nested_block(schema: &NestedBlock, prior: &Value, config: &Value) -> Result<Value, cty::Error> {
    // Only a dynamic block with an unknown for_each makes a whole block value unknown.
    if !config.is_known() {
        return Ok(config.clone());
    }
    let element = |prior: &Value, config: &Value| proposed_new(&schema.block, prior, config);
    match schema.nesting {
        BlockNesting::Single if config.is_null() => Ok(config.clone()),
        BlockNesting::Single | BlockNesting::Group => proposed_new(&schema.block, prior, config),
        BlockNesting::List => by_index(prior, config, element),
        BlockNesting::Map => by_key(prior, config, &schema.block.implied_type(), element),
        BlockNesting::Set => {
            by_matching_prior(prior, config, &schema.block.implied_type(), element, |prior, config| {
                prior_matches_config(&schema.block.attributes, &schema.block.block_types, prior, config)
            })
        }
    }
}

fn attributes<'a>(
    schema: impl Iterator<Item = (&'a String, &'a Attribute)>,
    prior: &Value,
    config: &Value,
) -> Result<BTreeMap<String, Value>, cty::Error> {
    let mut out = BTreeMap::new();
    for (name, attr) in schema {
        let ty = attr.implied_type();
        let prior_v = child(prior, name, &ty);
        let config_v = child(config, name, &ty);
        let value = if attr.computed && config_v.is_null() {
            // Computed, or optional+computed left unset: the provider decides, and starts
            // from what it decided last time. Unless the prior value came from config the
            // user has since removed, which the provider cannot have computed.
            if optional_value_not_computable(attr, &prior_v) { config_v } else { prior_v }
        } else if let AttributeType::Nested(nested) = &attr.ty {
            nested_type(nested, &prior_v, &config_v)?
        } else {
            config_v
        };
        out.insert(name.clone(), value);
    }
    Ok(out)
}

fn nested_type(schema: &NestedObject, prior: &Value, config: &Value) -> Result<Value, cty::Error> {
    if !config.is_known() {
        return Ok(config.clone());
    }
    let element = |prior: &Value, config: &Value| -> Result<Value, cty::Error> {
        if config.is_null() {
            return Ok(config.clone());
        }
        Ok(Value::object(attributes(schema.attributes.iter(), prior, config)?))
    };
    let element_ty = match schema.implied_type() {
        Type::List(e) | Type::Set(e) | Type::Map(e) => *e,
        single => single,
    };
    match schema.nesting {
        ObjectNesting::Single => element(prior, config),
        ObjectNesting::List => by_index(prior, config, element),
        ObjectNesting::Map => by_key(prior, config, &element_ty, element),
        ObjectNesting::Set => by_matching_prior(prior, config, &element_ty, element, |prior, config| {
            prior_matches_config(&schema.attributes, &BTreeMap::new(), prior, config)
        }),
    }
}

/// List elements correlate by position.
fn by_index(
    prior: &Value,
    config: &Value,
    element: impl Fn(&Value, &Value) -> Result<Value, cty::Error>,
) -> Result<Value, cty::Error> {
    let (config_elems, is_tuple, elem_ty) = match config.view() {
        View::List(elem_ty, elems) if !elems.is_empty() => (elems, false, elem_ty.clone()),
        View::Tuple(elems) if !elems.is_empty() => (elems, true, Type::Dynamic),
        _ => return Ok(config.clone()),
    };
    let prior_elems = match prior.view() {
        View::List(_, elems) | View::Tuple(elems) => Some(elems),
        _ => None,
    };
    let mut out = Vec::with_capacity(config_elems.len());
    for (idx, config_ev) in config_elems.iter().enumerate() {
        let new_ev = match (prior.is_known(), prior_elems.and_then(|elems| elems.get(idx))) {
            (true, Some(prior_ev)) => element(prior_ev, config_ev)?,
            // No counterpart in the prior state: the configured element as written.
            (true, None) => config_ev.clone(),
            // An unknown prior (a data source being planned) makes every element's prior unknown.
            (false, _) => element(&Value::unknown(config_ev.ty()), config_ev)?,
        };
        out.push(new_ev);
    }
    if is_tuple { Ok(Value::tuple(out)) } else { Value::list(elem_ty, out) }
}

/// Map elements correlate by key; label-keyed objects (map blocks with dynamic content)
/// the same way.
fn by_key(
    prior: &Value,
    config: &Value,
    element_ty: &Type,
    element: impl Fn(&Value, &Value) -> Result<Value, cty::Error>,
) -> Result<Value, cty::Error> {
    let (config_entries, is_object, map_elem_ty) = match config.view() {
        View::Map(elem_ty, entries) if !entries.is_empty() => (entries, false, elem_ty.clone()),
        View::Object(entries) if !entries.is_empty() => (entries, true, Type::Dynamic),
        _ => return Ok(config.clone()),
    };
    let prior_entries = match prior.view() {
        View::Map(_, entries) | View::Object(entries) => Some(entries),
        _ => None,
    };
    let mut out = BTreeMap::new();
    for (key, config_ev) in config_entries {
        let prior_ev = if !prior.is_known() {
            Value::unknown(config_ev.ty())
        } else {
            match prior_entries.and_then(|entries| crate::cty::entry(entries, key)) {
                Some(prior_ev) => prior_ev.clone(),
                None => Value::null(element_ty.clone()),
            }
        };
        out.insert(key.clone(), element(&prior_ev, config_ev)?);
    }
    if is_object { Ok(Value::object(out)) } else { Value::map(map_elem_ty, out) }
}

/// Set elements have no identity: each configured element takes the first unused prior
/// element that could have produced it (equal, apart from computed attributes the
/// configuration leaves unset).
fn by_matching_prior(
    prior: &Value,
    config: &Value,
    element_ty: &Type,
    element: impl Fn(&Value, &Value) -> Result<Value, cty::Error>,
    matches: impl Fn(&Value, &Value) -> bool,
) -> Result<Value, cty::Error> {
    let (set_elem_ty, config_elems) = match config.view() {
        View::Set(elem_ty, elems) if !elems.is_empty() => (elem_ty.clone(), elems),
        _ => return Ok(config.clone()),
    };
    let prior_elems: &[Value] = match prior.view() {
        View::Set(_, elems) if prior.is_known() => elems,
        _ => &[],
    };
    let mut used = vec![false; prior_elems.len()];
    let mut out = Vec::with_capacity(config_elems.len());
    for config_ev in config_elems {
        let found = prior_elems.iter().enumerate().find(|(idx, prior_ev)| !used[*idx] && matches(prior_ev, config_ev));
        let prior_ev = match found {
            Some((idx, prior_ev)) => {
                used[idx] = true;
                prior_ev.clone()
            }
            None => Value::null(element_ty.clone()),
        };
        out.push(element(&prior_ev, config_ev)?);
    }
    Value::set(set_elem_ty, out)
}

/// Whether `prior` could be the state a provider produced from `config`: everywhere they
/// differ, the difference must be a computed attribute the configuration leaves null.
/// Walks the prior value as Terraform's `validPriorFromConfig` does.
fn prior_matches_config(
    attributes: &BTreeMap<String, Attribute>,
    blocks: &BTreeMap<String, NestedBlock>,
    prior: &Value,
    config: &Value,
) -> bool {
    if prior.equals_ignoring_refinements(config) {
        return true;
    }
    // Nothing below a null or unknown prior to compare.
    if prior.is_null() || !prior.is_known() {
        return true;
    }
    if config.is_null() || !config.is_known() {
        return false;
    }
    for (name, attr) in attributes {
        let ty = attr.implied_type();
        let (prior_v, config_v) = (child(prior, name, &ty), child(config, name, &ty));
        if prior_v.equals_ignoring_refinements(&config_v) {
            continue;
        }
        if matches!(ty, Type::Set(_)) {
            // Elements of a set cannot be correlated any further.
            return false;
        }
        let ok = match &attr.ty {
            AttributeType::Nested(nested) => nested_values_match(nested, &prior_v, &config_v),
            AttributeType::Type(_) => attr.computed && config_v.is_null(),
        };
        if !ok {
            return false;
        }
    }
    for (name, nested) in blocks {
        let ty = nested.implied_type();
        let (prior_v, config_v) = (child(prior, name, &ty), child(config, name, &ty));
        if prior_v.equals_ignoring_refinements(&config_v) {
            continue;
        }
        if nested.nesting == BlockNesting::Set {
            return false;
        }
        let each =
            |p: &Value, c: &Value| prior_matches_config(&nested.block.attributes, &nested.block.block_types, p, c);
        if !collection_matches(&prior_v, &config_v, each) {
            return false;
        }
    }
    true
}

fn nested_values_match(nested: &NestedObject, prior: &Value, config: &Value) -> bool {
    let each = |p: &Value, c: &Value| prior_matches_config(&nested.attributes, &BTreeMap::new(), p, c);
    match nested.nesting {
        ObjectNesting::Single => each(prior, config),
        ObjectNesting::List | ObjectNesting::Map => collection_matches(prior, config, each),
        ObjectNesting::Set => false,
    }
}

/// Descends into a list, map or single object alongside its configured counterpart.
fn collection_matches(prior: &Value, config: &Value, each: impl Fn(&Value, &Value) -> bool) -> bool {
    if prior.is_null() || !prior.is_known() {
        return true;
    }
    match (prior.view(), config.view()) {
        (View::List(_, p) | View::Tuple(p), View::List(_, c) | View::Tuple(c)) => {
            p.iter().enumerate().all(|(idx, pe)| c.get(idx).is_some_and(|ce| each(pe, ce)))
        }
        (View::Map(_, p), View::Map(_, c)) => {
            p.iter().all(|(key, pe)| crate::cty::entry(c, key).is_some_and(|ce| each(pe, ce)))
        }
        (View::Object(_), View::Object(_)) => each(prior, config),
        _ => false,
    }
}

/// An optional nested attribute whose prior value holds something only configuration could
/// have set (a non-computed nested attribute) was removed from configuration by the user;
/// the provider did not compute it, so the proposal must not resurrect it.
fn optional_value_not_computable(attr: &Attribute, prior: &Value) -> bool {
    let AttributeType::Nested(nested) = &attr.ty else { return false };
    attr.optional && holds_configured_value(nested, prior)
}

fn holds_configured_value(nested: &NestedObject, value: &Value) -> bool {
    let object_holds = |object: &Value| {
        nested.attributes.iter().any(|(name, attr)| {
            let Some(v) = object.get_attr(name) else { return false };
            if v.is_null() {
                return false;
            }
            match &attr.ty {
                AttributeType::Nested(inner) => !attr.computed || holds_configured_value(inner, v),
                AttributeType::Type(_) => !attr.computed,
            }
        })
    };
    match value.view() {
        View::Object(_) => object_holds(value),
        View::List(_, elems) | View::Set(_, elems) | View::Tuple(elems) => elems.iter().any(object_holds),
        View::Map(_, entries) => entries.iter().any(|(_, v)| object_holds(v)),
        _ => false,
    }
}

/// `object.name`, or null of `ty` for a null object, unknown of `ty` for an unknown one.
fn child(object: &Value, name: &str, ty: &Type) -> Value {
    match object.view() {
        View::Unknown(..) => Value::unknown(ty.clone()),
        _ => object.get_attr(name).cloned().unwrap_or_else(|| Value::null(ty.clone())),
    }
}
