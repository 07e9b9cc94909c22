//! Values a schema implies without any input.

use std::collections::BTreeMap;

use schema_gen::tf::{Block, BlockNesting};

use super::{Error, Value};

/// The value of an empty configuration block: every attribute null, and each nested block
/// type at its "no blocks" value.
pub fn empty_block_value(schema: &Block) -> Result<Value, Error> {
    let mut attrs = BTreeMap::new();
    for (name, attr) in &schema.attributes {
        attrs.insert(name.clone(), Value::null(attr.implied_type()));
    }
    for (name, nested) in &schema.block_types {
        let element_ty = nested.block.implied_type();
        let value = match nested.nesting {
            BlockNesting::Single => Value::null(element_ty),
            BlockNesting::Group => empty_block_value(&nested.block)?,
            BlockNesting::List if element_ty.has_dynamic() => Value::tuple(Vec::new()),
            BlockNesting::List => Value::list(element_ty, Vec::new())?,
            BlockNesting::Map if element_ty.has_dynamic() => Value::empty_object(),
            BlockNesting::Map => Value::map(element_ty, BTreeMap::<String, Value>::new())?,
            BlockNesting::Set => Value::set(element_ty, Vec::new())?,
        };
        attrs.insert(name.clone(), value);
    }
    Ok(Value::object(attrs))
}
