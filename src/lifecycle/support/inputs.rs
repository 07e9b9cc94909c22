//! Shaping values between Pulumi inputs and Terraform configuration: computed-only
//! attributes, the `timeouts` block, and the inputs an imported or refreshed resource gets.
//!
//! Architecture invariant: pure functions over the schema and values.

use schema_gen::tf::{AttributeType, Block, BlockNesting, NestedObject, ObjectNesting};
use schema_gen::translate::PropertyNames;

use crate::cty::{Value, View};
use crate::property::{PropertyMap, PropertyValue};

/// `value` with every computed-only attribute null, at every depth: Terraform refuses
/// configuration that sets them ("Value for unconfigurable attribute").
pub fn strip_computed_only(block: &Block, value: &Value) -> Value {
    let View::Object(attrs) = value.view() else { return value.clone() };
    Value::object(attrs.iter().map(|(name, v)| {
        let stripped = if let Some(attr) = block.attributes.get(name.as_str()) {
            if attr.computed && !attr.optional && !attr.required {
                Value::null(v.ty())
            } else if let AttributeType::Nested(nested) = &attr.ty {
                strip_nested(nested, v)
            } else {
                v.clone()
            }
        } else if let Some(nested) = block.block_types.get(name.as_str()) {
            each_element(v, &|elem| strip_computed_only(&nested.block, elem))
        } else {
            v.clone()
        };
        (name.clone(), stripped)
    }))
}

fn strip_nested(nested: &NestedObject, value: &Value) -> Value {
    let block = Block { attributes: nested.attributes.clone(), ..Block::default() };
    match nested.nesting {
        ObjectNesting::Single => strip_computed_only(&block, value),
        ObjectNesting::List | ObjectNesting::Set | ObjectNesting::Map => {
            each_element(value, &|elem| strip_computed_only(&block, elem))
        }
    }
}

/// Applies `f` to each element of a collection (or to the object itself).
fn each_element(value: &Value, f: &dyn Fn(&Value) -> Value) -> Value {
    let rebuilt = match value.view() {
        View::Object(_) => Ok(f(value)),
        View::List(ty, elems) => Value::list(ty.clone(), elems.iter().map(f).collect()),
        View::Set(ty, elems) => Value::set(ty.clone(), elems.iter().map(f).collect()),
        View::Tuple(elems) => Ok(Value::tuple(elems.iter().map(f).collect())),
        View::Map(ty, entries) => Value::map(ty.clone(), entries.iter().map(|(k, v)| (k.as_str(), f(v)))),
        _ => Ok(value.clone()),
    };
    rebuilt.unwrap_or_else(|_| value.clone())
}

/// Fills the resource's Terraform `timeouts.<operation>` from the engine's per-operation
/// timeout, when the resource has such a setting and the program left it unset. Terraform
/// duration syntax: whole seconds, `"90s"`.
pub fn with_operation_timeout(block: &Block, config: &Value, operation: &str, seconds: f64) -> Value {
    if seconds.is_nan() || seconds <= 0.0 || config.is_null() || !config.is_known() {
        return config.clone();
    }
    let has_setting = match (block.block_types.get("timeouts"), block.attributes.get("timeouts")) {
        (Some(nested), _) => {
            matches!(nested.nesting, BlockNesting::Single) && nested.block.attributes.contains_key(operation)
        }
        (None, Some(attr)) => match &attr.ty {
            AttributeType::Nested(nested) => {
                nested.nesting == ObjectNesting::Single && nested.attributes.contains_key(operation)
            }
            AttributeType::Type(schema_gen::tf::Type::Object(object)) => object.attrs.contains_key(operation),
            AttributeType::Type(_) => false,
        },
        (None, None) => false,
    };
    if !has_setting {
        return config.clone();
    }
    let Some(current) = config.get_attr("timeouts") else { return config.clone() };
    let duration = Value::string(format!("{}s", seconds.ceil() as u64));
    let updated = match current.view() {
        View::Null(ty) => {
            let schema_gen::tf::Type::Object(object) = ty else { return config.clone() };
            Value::object(object.attrs.keys().map(|name| {
                let value = if name == operation { duration.clone() } else { Value::null(object.attrs[name].clone()) };
                (name.clone(), value)
            }))
        }
        View::Object(attrs) => match current.get_attr(operation) {
            Some(existing) if existing.is_null() => Value::object(attrs.iter().map(|(name, value)| {
                let value = if name.as_str() == operation { duration.clone() } else { value.clone() };
                (name.clone(), value)
            })),
            _ => return config.clone(),
        },
        _ => return config.clone(),
    };
    crate::cty::with_attribute(config, "timeouts", updated)
}

/// The Pulumi inputs that reproduce a Terraform state, for an import, as the Go
/// implementation derives them (so `pulumi import` writes the same program with either):
/// at every object level (the resource, nested blocks, nested attribute objects) keep what
/// a program can set (required or optional, optional+computed included) and drop
/// computed-only values; then drop every non-required value that is null or zero (`false`,
/// `0`, `""`, an empty array or object), since a program that leaves it out means the same.
///
/// **Departure:** a top-level optional+computed `id` (SDKv2's implicit one, the Pulumi input
/// `<resource>Id`) is left out. The object's ID already says it, an SDKv2 provider rejects it
/// in configuration ("Invalid or unknown key"), and a provider whose `id` a program may set
/// plans the stored one when the configuration leaves it out. The Go implementation keeps
/// it, and the program `pulumi import` writes then warns on every preview (issue 29).
pub fn inputs_from_outputs(block: &Block, names: &PropertyNames, outputs: &PropertyMap) -> PropertyMap {
    let mut inputs = block_inputs(block, names, outputs);
    if let Some(attr) = block.attributes.get("id")
        && attr.optional
        && attr.computed
        && let Some(name) = names.by_tf_name("id")
    {
        inputs.remove(&name.pulumi_name);
    }
    inputs
}

fn block_inputs(block: &Block, names: &PropertyNames, outputs: &PropertyMap) -> PropertyMap {
    let mut inputs = PropertyMap::new();
    for (key, value) in outputs {
        let Some(name) = names.by_pulumi_name(key) else { continue };
        let (kept, required) = if let Some(attr) = block.attributes.get(&name.tf_name) {
            if !attr.required && !attr.optional {
                continue;
            }
            (attribute_inputs(&attr.ty, value), attr.required)
        } else if let Some(nested) = block.block_types.get(&name.tf_name) {
            let names = PropertyNames::of_block(&nested.block);
            let shape = match nested.nesting {
                BlockNesting::Single | BlockNesting::Group => Shape::Object,
                BlockNesting::List | BlockNesting::Set if name.max_items_one => Shape::Object,
                BlockNesting::List | BlockNesting::Set => Shape::Array,
                BlockNesting::Map => Shape::Map,
            };
            (each_object(value, shape, &|object| block_inputs(&nested.block, &names, object)), nested.min_items > 0)
        } else {
            continue;
        };
        if required || !is_zero(&kept) {
            inputs.insert(key.clone(), kept);
        }
    }
    inputs
}

fn nested_inputs(nested: &NestedObject, names: &PropertyNames, outputs: &PropertyMap) -> PropertyMap {
    let mut inputs = PropertyMap::new();
    for (key, value) in outputs {
        let Some(attr) = names.by_pulumi_name(key).and_then(|name| nested.attributes.get(&name.tf_name)) else {
            continue;
        };
        if !attr.required && !attr.optional {
            continue;
        }
        let kept = attribute_inputs(&attr.ty, value);
        if attr.required || !is_zero(&kept) {
            inputs.insert(key.clone(), kept);
        }
    }
    inputs
}

/// The inputs within one attribute's value: nested attribute objects are filtered field by
/// field; any other type is kept whole.
fn attribute_inputs(ty: &AttributeType, value: &PropertyValue) -> PropertyValue {
    match ty {
        AttributeType::Nested(nested) => {
            let names = PropertyNames::of_nested_object(nested);
            let shape = match nested.nesting {
                ObjectNesting::Single => Shape::Object,
                ObjectNesting::List | ObjectNesting::Set => Shape::Array,
                ObjectNesting::Map => Shape::Map,
            };
            each_object(value, shape, &|object| nested_inputs(nested, &names, object))
        }
        AttributeType::Type(_) => value.clone(),
    }
}

/// How Pulumi shows a nested object: itself, an array of them, or a map of them.
#[derive(Clone, Copy)]
enum Shape {
    Object,
    Array,
    Map,
}

/// `value` with `f` applied to each object it holds in `shape` (through secrets); values of
/// another shape are kept as they are.
fn each_object(value: &PropertyValue, shape: Shape, f: &dyn Fn(&PropertyMap) -> PropertyMap) -> PropertyValue {
    match (value, shape) {
        (PropertyValue::Secret(inner), _) => PropertyValue::Secret(Box::new(each_object(inner, shape, f))),
        (PropertyValue::Object(object), Shape::Object) => PropertyValue::Object(f(object)),
        (PropertyValue::Array(items), Shape::Array) => {
            PropertyValue::Array(items.iter().map(|item| each_object(item, Shape::Object, f)).collect())
        }
        (PropertyValue::Object(entries), Shape::Map) => PropertyValue::Object(
            entries.iter().map(|(key, item)| (key.clone(), each_object(item, Shape::Object, f))).collect(),
        ),
        _ => value.clone(),
    }
}

/// The Go implementation's "zero value" of an import: null, `false`, `0`, `""`, an empty
/// array or an empty object, looking through secrets.
fn is_zero(value: &PropertyValue) -> bool {
    match value {
        PropertyValue::Null => true,
        PropertyValue::Bool(b) => !b,
        PropertyValue::Number(n) => *n == 0.0,
        PropertyValue::String(s) => s.is_empty(),
        PropertyValue::Array(items) => items.is_empty(),
        PropertyValue::Object(object) => object.is_empty(),
        PropertyValue::Secret(inner) => is_zero(inner),
        _ => false,
    }
}

/// Inputs after a refresh: each input the program set takes the value the provider now
/// reports, so `pulumi refresh` shows drift on inputs too. Keys the schema does not know
/// (the bridge's own) are kept as they were.
pub fn refreshed_inputs(
    block: &Block,
    names: &PropertyNames,
    old_inputs: &PropertyMap,
    outputs: &PropertyMap,
) -> PropertyMap {
    let mut inputs = PropertyMap::new();
    for (key, old) in old_inputs {
        let Some(name) = names.by_pulumi_name(key) else {
            inputs.insert(key.clone(), old.clone());
            continue;
        };
        let computed_only =
            block.attributes.get(&name.tf_name).is_some_and(|attr| attr.computed && !attr.optional && !attr.required);
        if computed_only {
            continue;
        }
        if let Some(new) = outputs.get(key) {
            let secret = matches!(old, PropertyValue::Secret(_)) && !matches!(new, PropertyValue::Secret(_));
            inputs.insert(key.clone(), if secret { PropertyValue::Secret(Box::new(new.clone())) } else { new.clone() });
        }
    }
    inputs
}

/// Wraps the values of sensitive top-level attributes as secrets, so the engine never
/// stores or shows them in plain text even when the program did not mark them: a resource's
/// inputs, and a data source's result (which the engine carries to the program as secrets).
pub fn mark_sensitive(block: &Block, names: &PropertyNames, inputs: &mut PropertyMap) {
    for (tf_name, attr) in &block.attributes {
        let Some(name) = names.by_tf_name(tf_name) else { continue };
        if attr.sensitive
            && let Some(value) = inputs.get_mut(&name.pulumi_name)
            && !matches!(value, PropertyValue::Secret(_) | PropertyValue::Null)
        {
            *value = PropertyValue::Secret(Box::new(value.clone()));
        }
    }
}
