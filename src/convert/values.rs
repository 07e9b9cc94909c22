//! Pulumi property values ⇄ cty values, driven by the Terraform schema.
//!
//! [`to_cty`] turns a resource's (or provider's, or data source's) Pulumi properties into the
//! cty object of its schema block; [`from_cty`] goes back. Names come from schema-gen's
//! [`PropertyNames`], the same code that named the properties in the package schema, so the
//! two can never disagree. MaxItems=1 blocks are unwrapped to a single object in Pulumi and
//! wrapped back into a one-element list or set for Terraform.
//!
//! Secrets are not part of cty values. [`to_cty`] returns the Terraform paths of every value
//! that was secret; [`from_cty`] takes such paths back (plus the schema's sensitive
//! attributes) and marks those values secret again, so everything derived from a secret
//! input comes back secret. A secret inside a set marks the whole set: set elements have no
//! stable position to carry a mark.
//!
//! Numbers: Pulumi numbers are f64. A fraction enters cty as the shortest decimal that reads
//! back as the same f64 (`0.1`, as Terraform reads configuration), not the f64's binary
//! expansion; an integer enters exactly.
//! A cty number that no f64 prints back as (a large integer, or a decimal with more digits
//! than an f64 keeps) comes back as a Pulumi *string* holding the exact decimal, never
//! silently rounded; strings are read back as numbers where the schema says number. The Go
//! implementation stores such numbers as strings too.
//!
//! Architecture invariant: no gRPC. Errors carry the Pulumi property path.

use std::collections::{BTreeMap, BTreeSet};

use schema_gen::tf::{
    Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting, ObjectType,
};
use schema_gen::translate::PropertyNames;

use crate::cty::{self, Number, Path, PathStep, Type, Value, View};
use crate::property::{PropertyMap, PropertyPath, PropertyPathStep, PropertyValue, ResourceId, UnknownKind};

/// Why a Pulumi value does not fit the Terraform schema.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{kind}", if path.steps.is_empty() { String::new() } else { format!("{path}: ") })]
pub struct ConvertError {
    /// Where, in Pulumi property-path syntax (`rules[2].ports`).
    pub path: PropertyPath,
    pub kind: ConvertErrorKind,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertErrorKind {
    /// A property the schema does not have.
    #[error("unknown property {0:?}")]
    UnknownProperty(String),
    /// A value of the wrong kind for the schema type.
    #[error("expected {expected}, got {found}")]
    TypeMismatch { expected: String, found: &'static str },
    /// A string where a number is expected that is not a number.
    #[error("{0:?} is not a number")]
    InvalidNumber(String),
    /// NaN or an infinity: Pulumi cannot carry these meaningfully and Terraform JSON cannot
    /// hold them.
    #[error("{0} is not a finite number")]
    NotFinite(f64),
    /// A tuple of the wrong length.
    #[error("expected a tuple of {expected} elements, got {given}")]
    TupleLength { expected: usize, given: usize },
    /// Assets, archives and raw bytes have no Terraform equivalent.
    #[error("{0} values are not supported by Terraform providers")]
    Unsupported(&'static str),
    /// The cty layer refused a value (e.g. mixed element types in a collection).
    #[error("{0}")]
    Cty(cty::Error),
}

/// What to do with Pulumi keys the schema does not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownKeys {
    /// Program inputs: an unknown key is a mistake to report.
    Reject,
    /// Stored state: attributes a newer provider version dropped are left behind.
    Ignore,
}

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

struct ToCty {
    unknown_keys: UnknownKeys,
    secrets: BTreeSet<Path>,
    pulumi_path: PropertyPath,
    tf_path: Path,
    /// The path of the innermost set being walked: a secret inside it marks the whole set.
    set_path: Option<Path>,
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

    /// Runs `f` one step deeper in both paths.
    fn at<T>(
        &mut self,
        pulumi_step: PropertyPathStep,
        tf_step: PathStep,
        f: impl FnOnce(&mut Self) -> Result<T, ConvertError>,
    ) -> Result<T, ConvertError> {
        self.pulumi_path.steps.push(pulumi_step);
        self.tf_path.steps.push(tf_step);
        let result = f(self);
        self.pulumi_path.steps.pop();
        self.tf_path.steps.pop();
        result
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
            let pulumi_name = pulumi_name(names, tf_name);
            let value = match props.get(&pulumi_name) {
                None => Value::null(attr.implied_type()),
                Some(v) => {
                    self.at(PropertyPathStep::Key(pulumi_name.clone()), PathStep::Attr(tf_name.clone()), |w| {
                        w.attribute(attr, v)
                    })?
                }
            };
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
            let pulumi_name = pulumi_name(&names, tf_name);
            let value = match map.get(&pulumi_name) {
                None => Value::null(attr_ty.clone()),
                Some(item) => {
                    self.at(PropertyPathStep::Key(pulumi_name.clone()), PathStep::Attr(tf_name.clone()), |w| {
                        w.value(attr_ty, item)
                    })?
                }
            };
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

struct FromCty<'a> {
    secrets: &'a BTreeSet<Path>,
    tf_path: Path,
    pulumi_path: PropertyPath,
}

impl FromCty<'_> {
    fn error(&self, kind: ConvertErrorKind) -> ConvertError {
        ConvertError { path: self.pulumi_path.clone(), kind }
    }

    fn at<T>(&mut self, pulumi_step: PropertyPathStep, tf_step: PathStep, f: impl FnOnce(&mut Self) -> T) -> T {
        self.pulumi_path.steps.push(pulumi_step);
        self.tf_path.steps.push(tf_step);
        let result = f(self);
        self.pulumi_path.steps.pop();
        self.tf_path.steps.pop();
        result
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

/// A cty number as a Pulumi number when an f64 holds it exactly, else as the exact decimal
/// string (never a silently rounded number).
fn number_to_property(n: &Number) -> PropertyValue {
    let nearest = n.to_f64_lossy();
    if nearest.is_finite() {
        // The f64 is the number itself (integers up to 2^1024, binary fractions)...
        if Number::from_f64(nearest).as_ref() == Some(n) {
            return PropertyValue::Number(nearest);
        }
        // ...or the number is that f64's shortest decimal (`0.1`): nothing is lost either way.
        if Number::parse(&format!("{nearest:e}")).is_ok_and(|shortest| shortest == *n) {
            return PropertyValue::Number(nearest);
        }
    }
    PropertyValue::String(n.to_plain_string())
}

fn unknown_kind(ty: &Type) -> UnknownKind {
    match ty {
        Type::Bool => UnknownKind::Bool,
        Type::Number => UnknownKind::Number,
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => UnknownKind::Array,
        Type::Map(_) | Type::Object(_) => UnknownKind::Object,
        Type::String | Type::Dynamic => UnknownKind::String,
    }
}

fn pulumi_name(names: &PropertyNames, tf_name: &str) -> String {
    names.by_tf_name(tf_name).map_or_else(|| tf_name.to_owned(), |n| n.pulumi_name.clone())
}

fn kind_name(value: &PropertyValue) -> &'static str {
    match value {
        PropertyValue::Null => "null",
        PropertyValue::Bool(_) => "a bool",
        PropertyValue::Number(_) => "a number",
        PropertyValue::String(_) => "a string",
        PropertyValue::Array(_) => "an array",
        PropertyValue::Object(_) => "an object",
        PropertyValue::Secret(_) => "a secret",
        PropertyValue::Unknown(_) => "an unknown value",
        PropertyValue::ResourceReference(_) => "a resource reference",
        PropertyValue::Asset(_) => "an asset",
        PropertyValue::Archive(_) => "an archive",
        PropertyValue::Output(_) => "an output value",
        PropertyValue::Bytes(_) => "a byte string",
    }
}
