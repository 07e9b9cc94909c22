//! Pulumi properties to a cty value of a schema block.

use std::collections::{BTreeMap, BTreeSet};

use schema_gen::tf::{
    Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting, ObjectType,
};
use schema_gen::translate::PropertyNames;

use super::{ConvertError, ConvertErrorKind, UnknownKeys, Walk, kind_name, pulumi_name};
use crate::cty::{self, Number, Path, PathStep, Type, Value};
use crate::property::{PropertyMap, PropertyPath, PropertyPathStep, PropertyValue, ResourceId};

/// Converts Pulumi properties to the cty object of `block`, named by `names` (the block's
/// own property names, or a resource's names after the `id`/`urn` fixups). Keys starting
/// with `__` are the bridge's own and are skipped. Returns the value and the Terraform paths
/// of the values that were secret.
pub fn to_cty(
    block: &Block,
    names: &PropertyNames,
    props: &PropertyMap,
    unknown_keys: UnknownKeys,
) -> Result<(Value, Vec<Path>), ConvertError> {
    let mut walk = ToCty {
        unknown_keys,
        secrets: BTreeSet::new(),
        pulumi_path: PropertyPath::default(),
        tf_path: Path::root(),
        set_path: None,
    };
    let value = walk.block(block, names, props)?;
    Ok((value, walk.secrets.into_iter().collect()))
}

struct ToCty {
    unknown_keys: UnknownKeys,
    secrets: BTreeSet<Path>,
    pulumi_path: PropertyPath,
    tf_path: Path,
    /// The path of the innermost set being walked: a secret inside it marks the whole set.
    set_path: Option<Path>,
}

impl Walk for ToCty {
    fn paths(&mut self) -> (&mut PropertyPath, &mut Path) {
        (&mut self.pulumi_path, &mut self.tf_path)
    }
}

impl ToCty {
    fn error(&self, kind: ConvertErrorKind) -> ConvertError {
        ConvertError { path: self.pulumi_path.clone(), kind }
    }

    fn mismatch(&self, expected: impl Into<String>, found: &PropertyValue) -> ConvertError {
        self.error(ConvertErrorKind::TypeMismatch { expected: expected.into(), found: kind_name(found) })
    }

    fn cty<T>(&self, result: Result<T, cty::Error>) -> Result<T, ConvertError> {
        result.map_err(|err| self.error(ConvertErrorKind::Cty(err)))
    }

    /// The attribute `tf_name`, converted from `props` under its Pulumi name; null (of the
    /// type `ty` gives) when absent.
    fn named(
        &mut self,
        props: &PropertyMap,
        names: &PropertyNames,
        tf_name: &str,
        ty: impl FnOnce() -> Type,
        convert: impl FnOnce(&mut Self, &PropertyValue) -> Result<Value, ConvertError>,
    ) -> Result<Value, ConvertError> {
        let pulumi_name = pulumi_name(names, tf_name);
        match props.get(&pulumi_name) {
            None => Ok(Value::null(ty())),
            Some(v) => {
                self.at(PropertyPathStep::Key(pulumi_name), PathStep::Attr(tf_name.to_owned()), |w| convert(w, v))
            }
        }
    }

    /// Strips secret and output wrappers, recording the secret mark at the current path.
    fn unwrap<'v>(&mut self, value: &'v PropertyValue) -> Option<&'v PropertyValue> {
        match value {
            PropertyValue::Secret(inner) => {
                let marked = self.set_path.clone().unwrap_or_else(|| self.tf_path.clone());
                self.secrets.insert(marked);
                self.unwrap(inner)
            }
            PropertyValue::Output(output) => {
                if output.secret {
                    let marked = self.set_path.clone().unwrap_or_else(|| self.tf_path.clone());
                    self.secrets.insert(marked);
                }
                output.value.as_deref().and_then(|inner| self.unwrap(inner))
            }
            // An output without a value is unknown.
            other => Some(other),
        }
    }

    fn block(&mut self, block: &Block, names: &PropertyNames, props: &PropertyMap) -> Result<Value, ConvertError> {
        for key in props.keys() {
            if !key.starts_with("__") && names.by_pulumi_name(key).is_none() && self.unknown_keys == UnknownKeys::Reject
            {
                let path = self.pulumi_path.clone();
                let mut err = ConvertError { path, kind: ConvertErrorKind::UnknownProperty(key.clone()) };
                err.path.steps.push(PropertyPathStep::Key(key.clone()));
                return Err(err);
            }
        }
        let mut attrs = BTreeMap::new();
        for (tf_name, attr) in &block.attributes {
            let value = self.named(props, names, tf_name, || attr.implied_type(), |w, v| w.attribute(attr, v))?;
            attrs.insert(tf_name.clone(), value);
        }
        for (tf_name, nested) in &block.block_types {
            let name = names.by_tf_name(tf_name);
            let pulumi_name = name.map_or_else(|| tf_name.clone(), |n| n.pulumi_name.clone());
            let max_items_one = name.is_some_and(|n| n.max_items_one);
            let v = props.get(&pulumi_name).unwrap_or(&PropertyValue::Null);
            let value = self.at(PropertyPathStep::Key(pulumi_name.clone()), PathStep::Attr(tf_name.clone()), |w| {
                w.nested_block(nested, max_items_one, v)
            })?;
            attrs.insert(tf_name.clone(), value);
        }
        Ok(Value::object(attrs))
    }

    fn nested_block(
        &mut self,
        nested: &NestedBlock,
        max_items_one: bool,
        v: &PropertyValue,
    ) -> Result<Value, ConvertError> {
        let element_ty = nested.block.implied_type();
        let names = PropertyNames::of_block(&nested.block);
        let Some(v) = self.unwrap(v) else { return Ok(Value::unknown(nested.implied_type())) };
        if let PropertyValue::Unknown(_) = v {
            return Ok(Value::unknown(nested.implied_type()));
        }
        let object = |w: &mut Self, v: &PropertyValue| -> Result<Value, ConvertError> {
            match w.unwrap(v) {
                None | Some(PropertyValue::Unknown(_)) => Ok(Value::unknown(element_ty.clone())),
                Some(PropertyValue::Object(map)) => w.block(&nested.block, &names, map),
                Some(other) => Err(w.mismatch("an object", other)),
            }
        };
        match nested.nesting {
            BlockNesting::Single | BlockNesting::Group => match v {
                PropertyValue::Null if nested.nesting == BlockNesting::Single => Ok(Value::null(element_ty)),
                // A group block is never null: absent means "all attributes unset".
                PropertyValue::Null => self.cty(cty::empty_block_value(&nested.block)),
                _ => object(self, v),
            },
            BlockNesting::List | BlockNesting::Set => {
                let is_set = nested.nesting == BlockNesting::Set;
                let items: Vec<&PropertyValue> = match v {
                    // Blocks are never null on the wire: absent means "no blocks".
                    PropertyValue::Null => Vec::new(),
                    PropertyValue::Array(items) => items.iter().collect(),
                    // A MaxItems=1 block is a single object in Pulumi.
                    PropertyValue::Object(_) if max_items_one => vec![v],
                    other => return Err(self.mismatch("a list of objects", other)),
                };
                let outer_set = self.set_path.clone();
                if is_set && self.set_path.is_none() {
                    self.set_path = Some(self.tf_path.clone());
                }
                let mut elems = Vec::with_capacity(items.len());
                for (idx, item) in items.into_iter().enumerate() {
                    let step = if max_items_one { None } else { Some(PropertyPathStep::Index(idx)) };
                    let elem = match step {
                        Some(step) => self.at(step, PathStep::Index(idx as u64), |w| object(w, item))?,
                        None => {
                            self.tf_path.steps.push(PathStep::Index(0));
                            let elem = object(self, item);
                            self.tf_path.steps.pop();
                            elem?
                        }
                    };
                    elems.push(elem);
                }
                self.set_path = outer_set;
                if element_ty.has_dynamic() {
                    return Ok(Value::tuple(elems));
                }
                if is_set { self.cty(Value::set(element_ty, elems)) } else { self.cty(Value::list(element_ty, elems)) }
            }
            BlockNesting::Map => {
                let entries = match v {
                    PropertyValue::Null => PropertyMap::new(),
                    PropertyValue::Object(map) => map.clone(),
                    other => return Err(self.mismatch("a map of objects", other)),
                };
                let mut out = BTreeMap::new();
                for (key, item) in &entries {
                    let elem =
                        self.at(PropertyPathStep::Key(key.clone()), PathStep::Key(key.clone()), |w| object(w, item))?;
                    out.insert(key.clone(), elem);
                }
                if element_ty.has_dynamic() { Ok(Value::object(out)) } else { self.cty(Value::map(element_ty, out)) }
            }
        }
    }

    fn attribute(&mut self, attr: &Attribute, v: &PropertyValue) -> Result<Value, ConvertError> {
        match &attr.ty {
            AttributeType::Type(ty) => self.value(ty, v),
            AttributeType::Nested(nested) => self.nested_object(nested, v),
        }
    }

    fn nested_object(&mut self, nested: &NestedObject, v: &PropertyValue) -> Result<Value, ConvertError> {
        let names = PropertyNames::of_nested_object(nested);
        let object_block = Block { attributes: nested.attributes.clone(), ..Block::default() };
        let element_ty = object_block.implied_type();
        let Some(v) = self.unwrap(v) else { return Ok(Value::unknown(nested.implied_type())) };
        let object = |w: &mut Self, v: &PropertyValue| -> Result<Value, ConvertError> {
            match w.unwrap(v) {
                None | Some(PropertyValue::Unknown(_)) => Ok(Value::unknown(element_ty.clone())),
                Some(PropertyValue::Null) => Ok(Value::null(element_ty.clone())),
                Some(PropertyValue::Object(map)) => w.block(&object_block, &names, map),
                Some(other) => Err(w.mismatch("an object", other)),
            }
        };
        match (nested.nesting, v) {
            (_, PropertyValue::Unknown(_)) => Ok(Value::unknown(nested.implied_type())),
            (_, PropertyValue::Null) => Ok(Value::null(nested.implied_type())),
            (ObjectNesting::Single, _) => object(self, v),
            (ObjectNesting::List | ObjectNesting::Set, PropertyValue::Array(items)) => {
                let is_set = nested.nesting == ObjectNesting::Set;
                let outer_set = self.set_path.clone();
                if is_set && self.set_path.is_none() {
                    self.set_path = Some(self.tf_path.clone());
                }
                let mut elems = Vec::with_capacity(items.len());
                for (idx, item) in items.iter().enumerate() {
                    elems
                        .push(self.at(PropertyPathStep::Index(idx), PathStep::Index(idx as u64), |w| object(w, item))?);
                }
                self.set_path = outer_set;
                if is_set { self.cty(Value::set(element_ty, elems)) } else { self.cty(Value::list(element_ty, elems)) }
            }
            (ObjectNesting::Map, PropertyValue::Object(map)) => {
                let mut out = BTreeMap::new();
                for (key, item) in map {
                    out.insert(
                        key.clone(),
                        self.at(PropertyPathStep::Key(key.clone()), PathStep::Key(key.clone()), |w| object(w, item))?,
                    );
                }
                self.cty(Value::map(element_ty, out))
            }
            (ObjectNesting::List | ObjectNesting::Set, other) => Err(self.mismatch("a list of objects", other)),
            (ObjectNesting::Map, other) => Err(self.mismatch("a map of objects", other)),
        }
    }

    fn value(&mut self, ty: &Type, v: &PropertyValue) -> Result<Value, ConvertError> {
        let Some(v) = self.unwrap(v) else { return Ok(Value::unknown(ty.clone())) };
        match v {
            PropertyValue::Unknown(_) => return Ok(Value::unknown(ty.clone())),
            PropertyValue::Null => return Ok(Value::null(ty.clone())),
            PropertyValue::Asset(_) => return Err(self.error(ConvertErrorKind::Unsupported("asset"))),
            PropertyValue::Archive(_) => return Err(self.error(ConvertErrorKind::Unsupported("archive"))),
            PropertyValue::Bytes(_) => return Err(self.error(ConvertErrorKind::Unsupported("byte string"))),
            PropertyValue::ResourceReference(reference) => {
                // Terraform knows resources only by their ID; a component has none, and
                // its URN is the closest identity there is.
                return match &reference.id {
                    Some(ResourceId::Known(id)) if !id.is_empty() => self.value(ty, &PropertyValue::String(id.clone())),
                    Some(_) => Ok(Value::unknown(ty.clone())),
                    None => self.value(ty, &PropertyValue::String(reference.urn.clone())),
                };
            }
            _ => {}
        }
        match ty {
            Type::Bool => match v {
                PropertyValue::Bool(b) => Ok(Value::bool(*b)),
                PropertyValue::String(s) if s == "true" || s == "false" => Ok(Value::bool(s == "true")),
                other => Err(self.mismatch("a bool", other)),
            },
            Type::Number => match v {
                PropertyValue::Number(n) => Ok(Value::number(self.finite(*n)?)),
                PropertyValue::String(s) => Number::parse(s.trim())
                    .map(Value::number)
                    .map_err(|_| self.error(ConvertErrorKind::InvalidNumber(s.clone()))),
                other => Err(self.mismatch("a number", other)),
            },
            Type::String => match v {
                PropertyValue::String(s) => Ok(Value::string(s.clone())),
                PropertyValue::Bool(b) => Ok(Value::string(b.to_string())),
                PropertyValue::Number(n) => Ok(Value::string(self.finite(*n)?.to_plain_string())),
                other => Err(self.mismatch("a string", other)),
            },
            Type::List(elem) | Type::Set(elem) => {
                let PropertyValue::Array(items) = v else { return Err(self.mismatch(format!("a {ty}"), v)) };
                let is_set = matches!(ty, Type::Set(_));
                let outer_set = self.set_path.clone();
                if is_set && self.set_path.is_none() {
                    self.set_path = Some(self.tf_path.clone());
                }
                let mut elems = Vec::with_capacity(items.len());
                for (idx, item) in items.iter().enumerate() {
                    elems.push(
                        self.at(PropertyPathStep::Index(idx), PathStep::Index(idx as u64), |w| w.value(elem, item))?,
                    );
                }
                self.set_path = outer_set;
                if is_set {
                    self.cty(Value::set((**elem).clone(), elems))
                } else {
                    self.cty(Value::list((**elem).clone(), elems))
                }
            }
            Type::Tuple(elem_tys) => {
                let PropertyValue::Array(items) = v else { return Err(self.mismatch("a tuple", v)) };
                if items.len() != elem_tys.len() {
                    return Err(
                        self.error(ConvertErrorKind::TupleLength { expected: elem_tys.len(), given: items.len() })
                    );
                }
                let mut elems = Vec::with_capacity(items.len());
                for (idx, (item, elem_ty)) in items.iter().zip(elem_tys).enumerate() {
                    elems.push(
                        self.at(PropertyPathStep::Index(idx), PathStep::Index(idx as u64), |w| w.value(elem_ty, item))?,
                    );
                }
                Ok(Value::tuple(elems))
            }
            Type::Map(elem) => {
                let PropertyValue::Object(map) = v else { return Err(self.mismatch(format!("a {ty}"), v)) };
                let mut out = BTreeMap::new();
                for (key, item) in map {
                    out.insert(
                        key.clone(),
                        self.at(PropertyPathStep::Key(key.clone()), PathStep::Key(key.clone()), |w| {
                            w.value(elem, item)
                        })?,
                    );
                }
                self.cty(Value::map((**elem).clone(), out))
            }
            Type::Object(object) => {
                let PropertyValue::Object(map) = v else { return Err(self.mismatch("an object", v)) };
                self.object_type(object, map)
            }
            Type::Dynamic => self.dynamic(v),
        }
    }

    /// An attribute of object type: named like a nested object.
    fn object_type(&mut self, object: &ObjectType, map: &PropertyMap) -> Result<Value, ConvertError> {
        let names = PropertyNames::of_object_type(object);
        for key in map.keys() {
            if names.by_pulumi_name(key).is_none() && self.unknown_keys == UnknownKeys::Reject {
                return Err(self.error(ConvertErrorKind::UnknownProperty(key.clone())));
            }
        }
        let mut attrs = BTreeMap::new();
        for (tf_name, attr_ty) in &object.attrs {
            let value = self.named(map, &names, tf_name, || attr_ty.clone(), |w, item| w.value(attr_ty, item))?;
            attrs.insert(tf_name.clone(), value);
        }
        Ok(Value::object(attrs))
    }

    /// A value whose type the schema leaves open (`pulumi.json#/Any`): its type follows the
    /// value; arrays become tuples and objects keep their keys as written.
    fn dynamic(&mut self, v: &PropertyValue) -> Result<Value, ConvertError> {
        let Some(v) = self.unwrap(v) else { return Ok(Value::unknown(Type::Dynamic)) };
        match v {
            PropertyValue::Null => Ok(Value::null(Type::Dynamic)),
            PropertyValue::Unknown(_) => Ok(Value::unknown(Type::Dynamic)),
            PropertyValue::Bool(b) => Ok(Value::bool(*b)),
            PropertyValue::Number(n) => Ok(Value::number(self.finite(*n)?)),
            PropertyValue::String(s) => Ok(Value::string(s.clone())),
            PropertyValue::Array(items) => {
                let mut elems = Vec::with_capacity(items.len());
                for (idx, item) in items.iter().enumerate() {
                    elems
                        .push(self.at(PropertyPathStep::Index(idx), PathStep::Index(idx as u64), |w| w.dynamic(item))?);
                }
                Ok(Value::tuple(elems))
            }
            PropertyValue::Object(map) => {
                let mut attrs = BTreeMap::new();
                for (key, item) in map {
                    attrs.insert(
                        key.clone(),
                        self.at(PropertyPathStep::Key(key.clone()), PathStep::Attr(key.clone()), |w| w.dynamic(item))?,
                    );
                }
                Ok(Value::object(attrs))
            }
            other => self.value(&Type::String, other),
        }
    }

    /// A Pulumi number as cty reads it from configuration: a fraction as the shortest
    /// decimal that reads back as the same f64 (`0.1`, not the binary expansion
    /// `0.1000000000000000055…`, which would make a stored `0.1` and a configured `0.1`
    /// differ), an integer exactly.
    fn finite(&self, n: f64) -> Result<Number, ConvertError> {
        if !n.is_finite() {
            return Err(self.error(ConvertErrorKind::NotFinite(n)));
        }
        // An integral f64 is exactly the integer the program wrote (2^70 included), while
        // its shortest decimal could be a different integer.
        let exact_integer = if n.fract() == 0.0 { Number::from_f64(n) } else { None };
        match exact_integer {
            Some(number) => Ok(number),
            None => Number::parse(&format!("{n:e}")).map_err(|_| self.error(ConvertErrorKind::NotFinite(n))),
        }
    }
}
