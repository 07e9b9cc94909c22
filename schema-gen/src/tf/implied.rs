//! The implied type of a schema: the cty type of the values it describes.
//!
//! This is the type every value crossing the plugin protocol is encoded with. Optional
//! attribute markers are not part of it: they only matter to type constraints, and the wire
//! encoding of an object always carries every attribute.

use std::collections::BTreeMap;

use super::schema::{Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting};
use super::ty::{ObjectType, Type};

impl Block {
    /// One attribute per attribute and per nested block type.
    pub fn implied_type(&self) -> Type {
        let mut attrs: BTreeMap<String, Type> =
            self.attributes.iter().map(|(name, attr)| (name.clone(), attr.implied_type())).collect();
        for (name, block) in &self.block_types {
            attrs.insert(name.clone(), block.implied_type());
        }
        Type::Object(ObjectType { attrs, optional: Default::default() })
    }
}

impl Attribute {
    pub fn implied_type(&self) -> Type {
        match &self.ty {
            AttributeType::Type(ty) => ty.clone(),
            AttributeType::Nested(nested) => nested.implied_type(),
        }
    }
}

impl NestedObject {
    /// The object of the nested attributes, wrapped per nesting mode.
    pub fn implied_type(&self) -> Type {
        let attrs = self.attributes.iter().map(|(name, attr)| (name.clone(), attr.implied_type())).collect();
        let object = Type::Object(ObjectType { attrs, optional: Default::default() });
        match self.nesting {
            ObjectNesting::Single => object,
            ObjectNesting::List => Type::list(object),
            ObjectNesting::Set => Type::set(object),
            ObjectNesting::Map => Type::map(object),
        }
    }
}

impl NestedBlock {
    /// The type of the attribute that holds these blocks in the parent object.
    ///
    /// List and map blocks whose content has a dynamic type cannot be a list or map, whose
    /// elements must share one type; Terraform then uses `dynamic`, and the values are
    /// tuples and objects.
    pub fn implied_type(&self) -> Type {
        let object = self.block.implied_type();
        match self.nesting {
            BlockNesting::Single | BlockNesting::Group => object,
            BlockNesting::List if object.has_dynamic() => Type::Dynamic,
            BlockNesting::List => Type::list(object),
            BlockNesting::Map if object.has_dynamic() => Type::Dynamic,
            BlockNesting::Map => Type::map(object),
            BlockNesting::Set => Type::set(object),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(json: &str) -> Block {
        serde_json::from_str(json).expect("a valid block")
    }

    #[test]
    fn implied_types() {
        let cases = [
            (r#"{}"#, r#"["object",{}]"#),
            (
                r#"{"attributes":{"id":{"type":"string","computed":true},"tags":{"type":["map","string"],"optional":true}}}"#,
                r#"["object",{"id":"string","tags":["map","string"]}]"#,
            ),
            (
                r#"{"attributes":{"rules":{"nested_type":{"nesting_mode":"set","attributes":{"port":{"type":"number","optional":true}}},"optional":true}}}"#,
                r#"["object",{"rules":["set",["object",{"port":"number"}]]}]"#,
            ),
            (
                r#"{"block_types":{
                    "one":{"nesting_mode":"single","block":{"attributes":{"a":{"type":"bool","optional":true}}}},
                    "grp":{"nesting_mode":"group","block":{}},
                    "lst":{"nesting_mode":"list","block":{"attributes":{"a":{"type":"string","optional":true}}}},
                    "dyn":{"nesting_mode":"list","block":{"attributes":{"a":{"type":"dynamic","optional":true}}}},
                    "mp":{"nesting_mode":"map","block":{}},
                    "dynmap":{"nesting_mode":"map","block":{"attributes":{"a":{"type":"dynamic","optional":true}}}},
                    "st":{"nesting_mode":"set","block":{}}}}"#,
                r#"["object",{"dyn":"dynamic","dynmap":"dynamic","grp":["object",{}],"lst":["list",["object",{"a":"string"}]],"mp":["map",["object",{}]],"one":["object",{"a":"bool"}],"st":["set",["object",{}]]}]"#,
            ),
        ];
        for (schema, expected) in cases {
            assert_eq!(block(schema).implied_type().to_json_string(), expected, "{schema}");
        }
    }
}
