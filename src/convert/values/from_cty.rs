//! A cty value of a schema block to Pulumi properties.

use std::collections::BTreeSet;

use schema_gen::tf::{AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting};
use schema_gen::translate::PropertyNames;

use super::{ConvertError, ConvertErrorKind, Walk, kind_name, number_to_property, pulumi_name, unknown_kind};
use crate::cty::{Path, PathStep, Type, Value, View};
use crate::property::{PropertyMap, PropertyPath, PropertyPathStep, PropertyValue, UnknownKind};

/// Converts a cty object of `block` to Pulumi properties named by `names`. Null attributes
/// are left out, as the Go implementation leaves them out. Values at `secret_paths` and
/// sensitive attributes come back secret.
pub fn from_cty(
    block: &Block,
    names: &PropertyNames,
    value: &Value,
    secret_paths: &[Path],
) -> Result<PropertyMap, ConvertError> {
    let secrets: BTreeSet<Path> = secret_paths.iter().cloned().collect();
    let mut walk = FromCty { secrets: &secrets, tf_path: Path::root(), pulumi_path: PropertyPath::default() };
    match walk.block(block, names, value)? {
        PropertyValue::Object(map) => Ok(map),
        PropertyValue::Null => Ok(PropertyMap::new()),
        other => {
            Err(walk.error(ConvertErrorKind::TypeMismatch { expected: "an object".into(), found: kind_name(&other) }))
        }
    }
}

struct FromCty<'a> {
    secrets: &'a BTreeSet<Path>,
    tf_path: Path,
    pulumi_path: PropertyPath,
}

impl Walk for FromCty<'_> {
    fn paths(&mut self) -> (&mut PropertyPath, &mut Path) {
        (&mut self.pulumi_path, &mut self.tf_path)
    }
}

impl FromCty<'_> {
    fn error(&self, kind: ConvertErrorKind) -> ConvertError {
        ConvertError { path: self.pulumi_path.clone(), kind }
    }

    /// Wraps `value` as secret when its Terraform path was marked (or `sensitive`).
    fn mark(&self, value: PropertyValue, sensitive: bool) -> PropertyValue {
        if matches!(value, PropertyValue::Null) {
            return value;
        }
        if sensitive || self.secrets.contains(&self.tf_path) { PropertyValue::Secret(Box::new(value)) } else { value }
    }

    fn block(&mut self, block: &Block, names: &PropertyNames, value: &Value) -> Result<PropertyValue, ConvertError> {
        match value.view() {
            View::Null(_) => return Ok(PropertyValue::Null),
            View::Unknown(..) => return Ok(PropertyValue::Unknown(UnknownKind::Object)),
            View::Object(_) => {}
            _ => {
                return Err(self.error(ConvertErrorKind::TypeMismatch {
                    expected: "an object".into(),
                    found: "a non-object value",
                }));
            }
        }
        let mut out = PropertyMap::new();
        for (tf_name, attr) in &block.attributes {
            let Some(attr_value) = value.get_attr(tf_name) else { continue };
            let pulumi_name = pulumi_name(names, tf_name);
            let converted =
                self.at(PropertyPathStep::Key(pulumi_name.clone()), PathStep::Attr(tf_name.to_string()), |w| {
                    let converted = match &attr.ty {
                        AttributeType::Type(ty) => w.value(ty, attr_value)?,
                        AttributeType::Nested(nested) => w.nested_object(nested, attr_value)?,
                    };
                    Ok::<_, ConvertError>(w.mark(converted, attr.sensitive))
                })?;
            if !matches!(converted, PropertyValue::Null) {
                out.insert(pulumi_name, converted);
            }
        }
        for (tf_name, nested) in &block.block_types {
            let Some(block_value) = value.get_attr(tf_name) else { continue };
            let name = names.by_tf_name(tf_name);
            let pulumi_name = name.map_or_else(|| tf_name.clone(), |n| n.pulumi_name.clone());
            let max_items_one = name.is_some_and(|n| n.max_items_one);
            let converted =
                self.at(PropertyPathStep::Key(pulumi_name.clone()), PathStep::Attr(tf_name.to_string()), |w| {
                    let converted = w.nested_block(nested, max_items_one, block_value)?;
                    Ok::<_, ConvertError>(w.mark(converted, false))
                })?;
            if !matches!(converted, PropertyValue::Null) {
                out.insert(pulumi_name, converted);
            }
        }
        Ok(PropertyValue::Object(out))
    }

    fn nested_block(
        &mut self,
        nested: &NestedBlock,
        max_items_one: bool,
        value: &Value,
    ) -> Result<PropertyValue, ConvertError> {
        let names = PropertyNames::of_block(&nested.block);
        match value.view() {
            View::Null(_) => Ok(PropertyValue::Null),
            View::Unknown(..)
                if max_items_one || matches!(nested.nesting, BlockNesting::Single | BlockNesting::Group) =>
            {
                Ok(PropertyValue::Unknown(UnknownKind::Object))
            }
            View::Unknown(..) if nested.nesting == BlockNesting::Map => Ok(PropertyValue::Unknown(UnknownKind::Object)),
            View::Unknown(..) => Ok(PropertyValue::Unknown(UnknownKind::Array)),
            View::Object(_) if matches!(nested.nesting, BlockNesting::Single | BlockNesting::Group) => {
                self.block(&nested.block, &names, value)
            }
            View::List(_, elems) | View::Set(_, elems) | View::Tuple(elems) if max_items_one => match elems {
                [] => Ok(PropertyValue::Null),
                [only] => self.at(PropertyPathStep::Index(0), PathStep::Index(0), |w| {
                    // The Pulumi path has no index for a flattened block; take the step back off.
                    w.pulumi_path.steps.pop();
                    let converted = w.block(&nested.block, &names, only);
                    w.pulumi_path.steps.push(PropertyPathStep::Index(0));
                    // A mark on the element becomes a mark on the one Pulumi value for both.
                    Ok(w.mark(converted?, false))
                }),
                // More than one element despite MaxItems=1: show them all rather than drop any.
                _ => self.elements(elems, |w, elem| w.block(&nested.block, &names, elem)),
            },
            View::List(_, elems) | View::Set(_, elems) | View::Tuple(elems) => {
                self.elements(elems, |w, elem| w.block(&nested.block, &names, elem))
            }
            View::Map(_, entries) | View::Object(entries) => {
                let mut out = PropertyMap::new();
                for (key, elem) in entries {
                    let converted =
                        self.at(PropertyPathStep::Key(key.to_string()), PathStep::Key(key.to_string()), |w| {
                            let converted = w.block(&nested.block, &names, elem)?;
                            Ok::<_, ConvertError>(w.mark(converted, false))
                        })?;
                    out.insert(key.to_string(), converted);
                }
                Ok(PropertyValue::Object(out))
            }
            _ => {
                Err(self
                    .error(ConvertErrorKind::TypeMismatch { expected: "nested blocks".into(), found: "another value" }))
            }
        }
    }

    fn nested_object(&mut self, nested: &NestedObject, value: &Value) -> Result<PropertyValue, ConvertError> {
        let names = PropertyNames::of_nested_object(nested);
        let object_block = Block { attributes: nested.attributes.clone(), ..Block::default() };
        match value.view() {
            View::Null(_) => Ok(PropertyValue::Null),
            View::Unknown(..) => Ok(PropertyValue::Unknown(match nested.nesting {
                ObjectNesting::Single | ObjectNesting::Map => UnknownKind::Object,
                ObjectNesting::List | ObjectNesting::Set => UnknownKind::Array,
            })),
            View::Object(_) => self.block(&object_block, &names, value),
            View::List(_, elems) | View::Set(_, elems) => {
                self.elements(elems, |w, elem| w.block(&object_block, &names, elem))
            }
            View::Map(_, entries) => {
                let mut out = PropertyMap::new();
                for (key, elem) in entries {
                    let converted =
                        self.at(PropertyPathStep::Key(key.to_string()), PathStep::Key(key.to_string()), |w| {
                            let converted = w.block(&object_block, &names, elem)?;
                            Ok::<_, ConvertError>(w.mark(converted, false))
                        })?;
                    out.insert(key.to_string(), converted);
                }
                Ok(PropertyValue::Object(out))
            }
            _ => Err(self
                .error(ConvertErrorKind::TypeMismatch { expected: "a nested object".into(), found: "another value" })),
        }
    }

    fn elements(
        &mut self,
        elems: &[Value],
        mut convert: impl FnMut(&mut Self, &Value) -> Result<PropertyValue, ConvertError>,
    ) -> Result<PropertyValue, ConvertError> {
        let mut out = Vec::with_capacity(elems.len());
        for (idx, elem) in elems.iter().enumerate() {
            let converted = self.at(PropertyPathStep::Index(idx), PathStep::Index(idx as u64), |w| {
                let converted = convert(w, elem)?;
                Ok::<_, ConvertError>(w.mark(converted, false))
            })?;
            out.push(converted);
        }
        Ok(PropertyValue::Array(out))
    }

    fn value(&mut self, ty: &Type, value: &Value) -> Result<PropertyValue, ConvertError> {
        let converted = match value.view() {
            View::Null(_) => PropertyValue::Null,
            View::Unknown(actual_ty, _) => {
                PropertyValue::Unknown(unknown_kind(if *ty == Type::Dynamic { actual_ty } else { ty }))
            }
            View::Bool(b) => PropertyValue::Bool(b),
            View::Number(n) => number_to_property(n),
            View::String(s) => PropertyValue::String(s.to_owned()),
            View::List(_, elems) | View::Set(_, elems) => {
                let elem_ty = match ty {
                    Type::List(e) | Type::Set(e) => (**e).clone(),
                    _ => Type::Dynamic,
                };
                self.elements(elems, |w, elem| w.value(&elem_ty, elem))?
            }
            View::Tuple(elems) => {
                let elem_tys: Vec<Type> = match ty {
                    Type::Tuple(tys) => tys.clone(),
                    _ => vec![Type::Dynamic; elems.len()],
                };
                let mut out = Vec::with_capacity(elems.len());
                for (idx, (elem, elem_ty)) in elems.iter().zip(elem_tys.iter()).enumerate() {
                    let converted = self.at(PropertyPathStep::Index(idx), PathStep::Index(idx as u64), |w| {
                        let converted = w.value(elem_ty, elem)?;
                        Ok::<_, ConvertError>(w.mark(converted, false))
                    })?;
                    out.push(converted);
                }
                PropertyValue::Array(out)
            }
            View::Map(_, entries) => {
                let elem_ty = match ty {
                    Type::Map(e) => (**e).clone(),
                    _ => Type::Dynamic,
                };
                let mut out = PropertyMap::new();
                for (key, elem) in entries {
                    let converted =
                        self.at(PropertyPathStep::Key(key.to_string()), PathStep::Key(key.to_string()), |w| {
                            let converted = w.value(&elem_ty, elem)?;
                            Ok::<_, ConvertError>(w.mark(converted, false))
                        })?;
                    out.insert(key.to_string(), converted);
                }
                PropertyValue::Object(out)
            }
            View::Object(attrs) => match ty {
                Type::Object(object) => {
                    let names = PropertyNames::of_object_type(object);
                    let mut out = PropertyMap::new();
                    for (tf_name, elem) in attrs {
                        let attr_ty = object.attrs.get(tf_name.as_str()).cloned().unwrap_or(Type::Dynamic);
                        let pulumi_name = pulumi_name(&names, tf_name);
                        let converted = self.at(
                            PropertyPathStep::Key(pulumi_name.clone()),
                            PathStep::Attr(tf_name.to_string()),
                            |w| {
                                let converted = w.value(&attr_ty, elem)?;
                                Ok::<_, ConvertError>(w.mark(converted, false))
                            },
                        )?;
                        if !matches!(converted, PropertyValue::Null) {
                            out.insert(pulumi_name, converted);
                        }
                    }
                    PropertyValue::Object(out)
                }
                // Inside a dynamic value, keys are kept as written.
                _ => {
                    let mut out = PropertyMap::new();
                    for (key, elem) in attrs {
                        let converted =
                            self.at(PropertyPathStep::Key(key.to_string()), PathStep::Attr(key.to_string()), |w| {
                                let converted = w.value(&Type::Dynamic, elem)?;
                                Ok::<_, ConvertError>(w.mark(converted, false))
                            })?;
                        out.insert(key.to_string(), converted);
                    }
                    PropertyValue::Object(out)
                }
            },
        };
        Ok(converted)
    }
}
