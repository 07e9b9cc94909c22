//! Terraform attribute paths → Pulumi property paths.
//!
//! Providers point at values with Terraform paths (`.rule[0].port`, `.tags["Name"]`): in
//! diagnostics, in `requires_replace`, and the invariant checks report violations the same
//! way. Users know the Pulumi names (`rules[0].port`), so every message the bridge shows
//! translates the path with [`pulumi_path`], using the same [`PropertyNames`] the value
//! translation and the package schema use. A MaxItems=1 block is a single object in Pulumi,
//! so its `[0]` step disappears.
//!
//! Architecture invariant: pure; knows the schema and the naming rules, nothing about RPCs.

use schema_gen::tf::{AttributeType, Block, BlockNesting, NestedObject, ObjectNesting, Type};
use schema_gen::translate::PropertyNames;

use crate::cty::{Path, PathStep};
use crate::property::{PropertyPath, PropertyPathStep};

/// The Pulumi property path of the Terraform path `path` inside an object of `block`, whose
/// top-level properties are named by `names`. Steps the schema does not explain (a provider
/// pointing past the schema) are kept as they are, so nothing is hidden from the user.
pub fn pulumi_path(block: &Block, names: &PropertyNames, path: &Path) -> PropertyPath {
    let mut out = PropertyPath::default();
    walk_block(block, names, &path.steps, &mut out);
    out
}

fn walk_block(block: &Block, names: &PropertyNames, steps: &[PathStep], out: &mut PropertyPath) {
    let Some((first, rest)) = steps.split_first() else { return };
    let PathStep::Attr(tf_name) = first else { return raw(steps, out) };
    let name = names.by_tf_name(tf_name);
    out.steps.push(PropertyPathStep::Key(name.map_or_else(|| tf_name.clone(), |n| n.pulumi_name.clone())));
    if let Some(attr) = block.attributes.get(tf_name) {
        match &attr.ty {
            AttributeType::Type(ty) => walk_type(ty, rest, out),
            AttributeType::Nested(nested) => walk_nested_object(nested, rest, out),
        }
    } else if let Some(nested) = block.block_types.get(tf_name) {
        let inner_names = PropertyNames::of_block(&nested.block);
        let max_items_one = name.is_some_and(|n| n.max_items_one);
        match nested.nesting {
            BlockNesting::Single | BlockNesting::Group => walk_block(&nested.block, &inner_names, rest, out),
            BlockNesting::List | BlockNesting::Set | BlockNesting::Map => match rest.split_first() {
                Some((PathStep::Index(_), inner)) if max_items_one => {
                    walk_block(&nested.block, &inner_names, inner, out)
                }
                Some((step @ (PathStep::Index(_) | PathStep::Key(_)), inner)) => {
                    out.steps.push(element_step(step));
                    walk_block(&nested.block, &inner_names, inner, out)
                }
                _ => raw(rest, out),
            },
        }
    } else {
        raw(rest, out)
    }
}

fn walk_nested_object(nested: &NestedObject, steps: &[PathStep], out: &mut PropertyPath) {
    let names = PropertyNames::of_nested_object(nested);
    let block = Block { attributes: nested.attributes.clone(), ..Block::default() };
    match nested.nesting {
        ObjectNesting::Single => walk_block(&block, &names, steps, out),
        ObjectNesting::List | ObjectNesting::Set | ObjectNesting::Map => match steps.split_first() {
            Some((step @ (PathStep::Index(_) | PathStep::Key(_)), inner)) => {
                out.steps.push(element_step(step));
                walk_block(&block, &names, inner, out)
            }
            _ => raw(steps, out),
        },
    }
}

fn walk_type(ty: &Type, steps: &[PathStep], out: &mut PropertyPath) {
    let Some((first, rest)) = steps.split_first() else { return };
    match (ty, first) {
        (Type::List(elem) | Type::Set(elem) | Type::Map(elem), PathStep::Index(_) | PathStep::Key(_)) => {
            out.steps.push(element_step(first));
            walk_type(elem, rest, out)
        }
        (Type::Tuple(elems), PathStep::Index(idx)) => {
            out.steps.push(element_step(first));
            match usize::try_from(*idx).ok().and_then(|idx| elems.get(idx)) {
                Some(elem) => walk_type(elem, rest, out),
                None => raw(rest, out),
            }
        }
        (Type::Object(object), PathStep::Attr(tf_name)) => {
            let names = PropertyNames::of_object_type(object);
            let pulumi = names.by_tf_name(tf_name).map_or_else(|| tf_name.clone(), |n| n.pulumi_name.clone());
            out.steps.push(PropertyPathStep::Key(pulumi));
            match object.attrs.get(tf_name) {
                Some(attr_ty) => walk_type(attr_ty, rest, out),
                None => raw(rest, out),
            }
        }
        _ => raw(steps, out),
    }
}

fn element_step(step: &PathStep) -> PropertyPathStep {
    match step {
        PathStep::Index(idx) => PropertyPathStep::Index(usize::try_from(*idx).unwrap_or(usize::MAX)),
        PathStep::Key(key) | PathStep::Attr(key) => PropertyPathStep::Key(key.clone()),
    }
}

/// Steps past what the schema describes (inside dynamic values, or wrong paths): kept
/// verbatim, attribute names included.
fn raw(steps: &[PathStep], out: &mut PropertyPath) {
    out.steps.extend(steps.iter().map(element_step));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Block {
        serde_json::from_value(serde_json::json!({
            "attributes": {
                "name_prefix": {"type": "string", "optional": true},
                "tags": {"type": ["map", "string"], "optional": true},
                "ports": {"type": ["list", ["object", {"from_port": "number"}]], "optional": true},
                "nested": {"nested_type": {"nesting_mode": "list", "attributes": {"inner_value": {"type": "string", "optional": true}}}, "optional": true}
            },
            "block_types": {
                "rule": {"nesting_mode": "list", "block": {"attributes": {"to_port": {"type": "number", "optional": true}}}},
                "settings": {"nesting_mode": "list", "max_items": 1, "block": {"attributes": {"log_level": {"type": "string", "optional": true}}}}
            }
        }))
        .expect("a valid block")
    }

    fn tf_path(steps: &[PathStep]) -> Path {
        Path { steps: steps.to_vec() }
    }

    #[test]
    fn terraform_paths_become_pulumi_paths() {
        use PathStep::{Attr, Index, Key};
        let block = schema();
        let names = PropertyNames::of_block(&block);
        let attr = |s: &str| Attr(s.to_owned());
        let cases: Vec<(Vec<PathStep>, &str)> = vec![
            (vec![], ""),
            (vec![attr("name_prefix")], "namePrefix"),
            (vec![attr("tags"), Key("Name".into())], "tags.Name"),
            (vec![attr("tags"), Key("a.b".into())], "tags[\"a.b\"]"),
            (vec![attr("rule"), Index(2), attr("to_port")], "rules[2].toPort"),
            (vec![attr("settings"), Index(0), attr("log_level")], "settings.logLevel"),
            (vec![attr("ports"), Index(1), attr("from_port")], "ports[1].fromPort"),
            (vec![attr("nested"), Index(0), attr("inner_value")], "nesteds[0].innerValue"),
            (vec![attr("not_in_schema"), attr("deeper")], "not_in_schema.deeper"),
        ];
        for (steps, expected) in cases {
            assert_eq!(pulumi_path(&block, &names, &tf_path(&steps)).to_string(), expected, "{steps:?}");
        }
    }
}
