//! Terraform attributes and blocks to Pulumi property specs and named object types.
//!
//! [`TypeBuilder`] walks one group of properties (a resource's inputs, outputs or state; a
//! data source's arguments or results; the provider's configuration) and declares every
//! nested object as a named type `pkg:<module>/<Name>:<Name>`. A type reached again from
//! another position of the same property is merged the way the Go implementation merges it:
//! the last declaration decides `required`, and the Node.js `requiredInputs` /
//! `requiredOutputs` overrides record the other positions. A different object that would
//! take an existing name gets a numbered name and a warning (Go silently gives every user of
//! the name the last object's type); once all are declared,
//! [`TypeTable::settle_names_as_go`] gives the unnumbered name to the object Go's type
//! describes.
//!
//! Architecture invariant: knows Terraform schema shapes and Pulumi specs, not tokens of
//! resources; names of properties come from [`PropertyNames`] only.

use std::collections::{BTreeMap, BTreeSet};

use super::Warning;
use super::deprecation::deprecation_message;
use super::docs::reformat_text;
use super::names::{PropertyNames, ProviderNames};
use crate::naming::{singularize, title};
use crate::pulumi::{ObjectTypeSpec, PropertySpec, TypeSpec};
use crate::tf::{
    Attribute, AttributeType, Block, BlockNesting, NestedBlock, NestedObject, ObjectNesting, ObjectType, Type,
};

mod declaration_order;
mod table;

pub(crate) use declaration_order::{go_declaration_order, rename_refs};
use table::DeclaredType;
pub(crate) use table::TypeTable;

/// Objects nested deeper than this become `pulumi.json#/Any` with a warning. Real
/// providers stay far below it; the bound keeps hostile schemas from exhausting the stack.
const MAX_OBJECT_DEPTH: usize = 48;

pub(crate) const WRITE_ONLY_NOTE: &str =
    "**NOTE:** This field is write-only and its value will not be updated in state as part of read operations.\n";

/// Where a group of properties is used. It decides optionality (inputs treat computed
/// values as optional, outputs treat them as always present) and how nested types record
/// their required fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Position {
    Input,
    Output,
}

/// How a property description is written: top-level properties keep the provider's text,
/// properties of named types get Go's doc-comment form (every line ends with `\n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DocStyle {
    Raw,
    DocComment,
}

/// One property's Terraform side.
#[derive(Clone, Copy)]
pub(crate) enum Field<'a> {
    Attribute(&'a Attribute),
    Block(&'a NestedBlock),
    /// An attribute of a cty object type; `optional` follows Go's rule (an object type
    /// that marks no attribute optional has all of them optional).
    ObjectAttribute {
        ty: &'a Type,
        optional: bool,
    },
}

impl<'a> Field<'a> {
    /// Whether the property may be absent at `position`.
    pub(crate) fn optional(self, position: Position) -> bool {
        match (self, position) {
            (Field::Attribute(attr), Position::Input) => attr.optional || attr.computed,
            (Field::Attribute(attr), Position::Output) => attr.optional && !attr.computed,
            (Field::Block(block), _) => block.min_items == 0,
            (Field::ObjectAttribute { optional, .. }, _) => optional,
        }
    }

    /// Whether the user may set it: optional or required attributes, and every block.
    pub(crate) fn is_input(self) -> bool {
        match self {
            Field::Attribute(attr) => attr.optional || attr.required,
            Field::Block(_) | Field::ObjectAttribute { .. } => true,
        }
    }

    fn description(self) -> &'a str {
        match self {
            Field::Attribute(attr) => &attr.description,
            Field::Block(block) => &block.block.description,
            Field::ObjectAttribute { .. } => "",
        }
    }

    fn deprecation(self) -> (bool, &'a str) {
        match self {
            Field::Attribute(attr) => (attr.deprecated, &attr.deprecation_message),
            Field::Block(block) => (block.block.deprecated, &block.block.deprecation_message),
            Field::ObjectAttribute { .. } => (false, ""),
        }
    }

    fn write_only(self) -> bool {
        matches!(self, Field::Attribute(attr) if attr.write_only)
    }

    fn sensitive(self) -> bool {
        matches!(self, Field::Attribute(attr) if attr.sensitive)
    }

    /// Whether the field's type holds an object (which becomes a named type) or a tuple
    /// (which is reported): only then do type names and origins matter.
    pub(crate) fn needs_names(self) -> bool {
        fn cty_needs(ty: &Type) -> bool {
            match ty {
                Type::Object(_) | Type::Tuple(_) => true,
                Type::List(e) | Type::Set(e) | Type::Map(e) => cty_needs(e),
                Type::Bool | Type::Number | Type::String | Type::Dynamic => false,
            }
        }
        match self {
            Field::Attribute(attr) => match &attr.ty {
                AttributeType::Type(ty) => cty_needs(ty),
                AttributeType::Nested(_) => true,
            },
            Field::Block(_) => true,
            Field::ObjectAttribute { ty, .. } => cty_needs(ty),
        }
    }

    /// Whether Pulumi sees an array (after MaxItems=1 flattening): nested type names are
    /// then singularized.
    fn is_array(self) -> bool {
        match self {
            Field::Attribute(attr) => match &attr.ty {
                AttributeType::Type(ty) => matches!(ty, Type::List(_) | Type::Set(_)),
                AttributeType::Nested(n) => matches!(n.nesting, ObjectNesting::List | ObjectNesting::Set),
            },
            Field::Block(block) => {
                matches!(block.nesting, BlockNesting::List | BlockNesting::Set) && block.max_items != 1
            }
            Field::ObjectAttribute { ty, .. } => matches!(ty, Type::List(_) | Type::Set(_)),
        }
    }
}

/// An object whose fields become properties.
#[derive(Clone, Copy)]
pub(crate) enum Object<'a> {
    Block(&'a Block),
    Nested(&'a NestedObject),
    Type(&'a ObjectType),
}

impl<'a> Object<'a> {
    pub(crate) fn names(self) -> PropertyNames {
        match self {
            Object::Block(block) => PropertyNames::of_block(block),
            Object::Nested(nested) => PropertyNames::of_nested_object(nested),
            Object::Type(object) => PropertyNames::of_object_type(object),
        }
    }

    pub(crate) fn field(self, tf_name: &str) -> Option<Field<'a>> {
        match self {
            Object::Block(block) => block
                .attributes
                .get(tf_name)
                .map(Field::Attribute)
                .or_else(|| block.block_types.get(tf_name).map(Field::Block)),
            Object::Nested(nested) => nested.attributes.get(tf_name).map(Field::Attribute),
            Object::Type(object) => object.attrs.get_key_value(tf_name).map(|(name, ty)| Field::ObjectAttribute {
                ty,
                optional: object.optional.is_empty() || object.optional.contains(name),
            }),
        }
    }
}

/// Builds property specs for one position, declaring nested types into a [`TypeTable`].
pub(crate) struct TypeBuilder<'t> {
    /// For the per-language name spans in descriptions.
    pub(crate) names: &'t ProviderNames,
    pub(crate) table: &'t mut TypeTable,
    pub(crate) warnings: &'t mut Vec<Warning>,
    pub(crate) package: &'t str,
    /// `index`, or `config` for the configuration variables' types.
    pub(crate) module: &'static str,
    pub(crate) position: Position,
}

impl TypeBuilder<'_> {
    /// Walks the object types reached through `field` again, at this builder's position,
    /// and records which of their fields are required there, without building specs. The
    /// types must have been declared by an earlier [`TypeBuilder::property`] call.
    ///
    /// The Go implementation declares every type once per position and lets the last
    /// declaration decide `required`; `last` says whether this walk is that last one.
    /// Walking instead of rebuilding keeps the translation of big providers fast.
    pub(crate) fn refresh_field(&mut self, field: Field, type_name: &str, origin: &str, depth: usize, last: bool) {
        match field {
            Field::Attribute(attr) => match &attr.ty {
                AttributeType::Type(ty) => self.refresh_cty(ty, type_name, origin, depth, last),
                AttributeType::Nested(nested) => {
                    self.refresh_object(Object::Nested(nested), type_name, origin, depth, last)
                }
            },
            Field::Block(block) => self.refresh_object(Object::Block(&block.block), type_name, origin, depth, last),
            Field::ObjectAttribute { ty, .. } => self.refresh_cty(ty, type_name, origin, depth, last),
        }
    }

    fn refresh_cty(&mut self, ty: &Type, type_name: &str, origin: &str, depth: usize, last: bool) {
        match ty {
            Type::List(elem) | Type::Set(elem) | Type::Map(elem) => {
                self.refresh_cty(elem, type_name, origin, depth, last)
            }
            Type::Object(object) => self.refresh_object(Object::Type(object), type_name, origin, depth, last),
            Type::Bool | Type::Number | Type::String | Type::Dynamic | Type::Tuple(_) => {}
        }
    }

    fn refresh_object(&mut self, object: Object, type_name: &str, origin: &str, depth: usize, last: bool) {
        if depth >= MAX_OBJECT_DEPTH {
            return;
        }
        let names = object.names();
        let mut required = Vec::new();
        for name in names.iter() {
            let Some(field) = object.field(&name.tf_name) else { continue };
            if field.needs_names() {
                let (child_type_name, child_origin) = child_names(type_name, origin, name, field);
                self.refresh_field(field, &child_type_name, &child_origin, depth + 1, last);
            }
            if !field.optional(self.position) {
                required.push(name.pulumi_name.clone());
            }
        }
        let Some(token) = self.table.by_origin.get(origin) else { return };
        let Some(entry) = self.table.types.get_mut(token) else { return };
        let required_set: BTreeSet<String> = required.iter().cloned().collect();
        match self.position {
            Position::Input => entry.required_inputs = Some(required_set),
            Position::Output => entry.required_outputs = Some(required_set),
        }
        if last {
            entry.required_last = required;
        }
    }

    /// The spec of one property. `type_name` is the name its object types take (before
    /// the property-specific suffix rules, which [`nested_type_name`] applies).
    pub(crate) fn property(
        &mut self,
        field: Field,
        type_name: &str,
        origin: &str,
        style: DocStyle,
        depth: usize,
    ) -> PropertySpec {
        let ty = self.field_type(field, type_name, origin, depth);
        let mut description = reformat_text(self.names, field.description());
        if field.write_only() {
            description = format!("{WRITE_ONLY_NOTE}{description}");
        }
        if style == DocStyle::DocComment {
            description = doc_comment(&description);
        }
        let (deprecated, message) = field.deprecation();
        PropertySpec {
            ty,
            description,
            deprecation_message: deprecation_message(self.names, deprecated, message),
            secret: field.sensitive() || field.write_only(),
        }
    }

    fn field_type(&mut self, field: Field, type_name: &str, origin: &str, depth: usize) -> TypeSpec {
        match field {
            Field::Attribute(attr) => match &attr.ty {
                AttributeType::Type(ty) => self.cty_type(ty, type_name, origin, depth),
                AttributeType::Nested(nested) => {
                    let object = self.object(Object::Nested(nested), type_name, origin, depth);
                    match nested.nesting {
                        ObjectNesting::Single => object,
                        ObjectNesting::List | ObjectNesting::Set => TypeSpec::array(object),
                        ObjectNesting::Map => TypeSpec::map(object),
                    }
                }
            },
            Field::Block(block) => {
                let object = self.object(Object::Block(&block.block), type_name, origin, depth);
                match block.nesting {
                    BlockNesting::Single | BlockNesting::Group => object,
                    BlockNesting::List | BlockNesting::Set if block.max_items == 1 => object,
                    BlockNesting::List | BlockNesting::Set => TypeSpec::array(object),
                    BlockNesting::Map => TypeSpec::map(object),
                }
            }
            Field::ObjectAttribute { ty, .. } => self.cty_type(ty, type_name, origin, depth),
        }
    }

    fn cty_type(&mut self, ty: &Type, type_name: &str, origin: &str, depth: usize) -> TypeSpec {
        match ty {
            Type::Bool => TypeSpec::primitive("boolean"),
            Type::Number => TypeSpec::primitive("number"),
            Type::String => TypeSpec::primitive("string"),
            Type::Dynamic => TypeSpec::any(),
            Type::List(elem) | Type::Set(elem) => TypeSpec::array(self.cty_type(elem, type_name, origin, depth)),
            // Go treats a map whose element type it cannot name as a map of strings; for
            // `map(dynamic)` that is what it emits, so we do too.
            Type::Map(elem) if **elem == Type::Dynamic => TypeSpec::map(TypeSpec::primitive("string")),
            Type::Map(elem) => TypeSpec::map(self.cty_type(elem, type_name, origin, depth)),
            Type::Object(object) => self.object(Object::Type(object), type_name, origin, depth),
            Type::Tuple(_) => {
                self.warnings.push(Warning::UnsupportedType { path: origin.to_owned(), ty: ty.to_json_string() });
                TypeSpec::any()
            }
        }
    }

    /// Declares the named type for `object` and returns a reference to it.
    fn object(&mut self, object: Object, type_name: &str, origin: &str, depth: usize) -> TypeSpec {
        if depth >= MAX_OBJECT_DEPTH {
            self.warnings.push(Warning::TooDeep { path: origin.to_owned() });
            return TypeSpec::any();
        }
        let names = object.names();
        for (tf_name, natural) in names.collisions() {
            self.warnings.push(Warning::PropertyNameCollision {
                path: format!("{origin}.{tf_name}"),
                natural: natural.clone(),
                used: names.by_tf_name(tf_name).map(|n| n.pulumi_name.clone()).unwrap_or_default(),
            });
        }
        let mut properties = BTreeMap::new();
        let mut required = Vec::new();
        for name in names.iter() {
            let Some(field) = object.field(&name.tf_name) else { continue };
            let (child_type_name, child_origin) = child_names(type_name, origin, name, field);
            let spec = self.property(field, &child_type_name, &child_origin, DocStyle::DocComment, depth + 1);
            if !field.optional(self.position) {
                required.push(name.pulumi_name.clone());
            }
            properties.insert(name.pulumi_name.clone(), spec);
        }
        let token = self.declare(type_name, origin, properties, required);
        TypeSpec::reference(format!("#/types/{token}"))
    }

    fn declare(
        &mut self,
        type_name: &str,
        origin: &str,
        properties: BTreeMap<String, PropertySpec>,
        required: Vec<String>,
    ) -> String {
        let base_token = format!("{}:{}/{type_name}:{type_name}", self.package, self.module);
        let mut token = base_token.clone();
        let mut suffix = 2;
        loop {
            match self.table.types.get_mut(&token) {
                Some(existing) if existing.origin == origin || existing.spec.properties == properties => {
                    if !existing.origins.iter().any(|o| o == origin) {
                        existing.origins.push(origin.to_owned());
                    }
                    break;
                }
                Some(_) => {
                    let renamed = format!("{type_name}{suffix}");
                    token = format!("{}:{}/{renamed}:{renamed}", self.package, self.module);
                    suffix += 1;
                }
                None => break,
            }
        }
        if suffix > 2 {
            self.warnings.push(Warning::TypeNameCollision { path: origin.to_owned(), token: token.clone() });
        }
        let required_set: BTreeSet<String> = required.iter().cloned().collect();
        self.table.by_origin.entry(origin.to_owned()).or_insert_with(|| token.clone());
        let entry = self.table.types.entry(token.clone()).or_insert_with(|| DeclaredType {
            origin: origin.to_owned(),
            origins: vec![origin.to_owned()],
            base_token: Some(base_token),
            spec: ObjectTypeSpec { ty: "object".to_owned(), properties, ..ObjectTypeSpec::default() },
            required_last: Vec::new(),
            required_inputs: None,
            required_outputs: None,
        });
        entry.required_last = required;
        match self.position {
            Position::Input => entry.required_inputs = Some(required_set),
            Position::Output => entry.required_outputs = Some(required_set),
        }
        token
    }
}

/// The type name and origin of a field inside an object; empty for fields without
/// object types, which never use them.
fn child_names(type_name: &str, origin: &str, name: &super::names::PropertyName, field: Field) -> (String, String) {
    if field.needs_names() {
        (nested_type_name(type_name, &name.pulumi_name, field), format!("{origin}.{}", name.tf_name))
    } else {
        (String::new(), String::new())
    }
}

/// The name of the types reached through property `pulumi_name` of a type (or resource,
/// or function) named `parent`: `parent` + the title-cased property name, singular when
/// the property is an array.
pub(crate) fn nested_type_name(parent: &str, pulumi_name: &str, field: Field) -> String {
    if field.is_array() {
        format!("{parent}{}", title(&singularize(pulumi_name)))
    } else {
        format!("{parent}{}", title(pulumi_name))
    }
}

/// Go's doc-comment form: every line ends with `\n`, and a blank last line is dropped.
pub(crate) fn doc_comment(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let mut out = String::with_capacity(text.len() + 1);
    for (idx, line) in lines.iter().enumerate() {
        if idx == lines.len() - 1 && line.trim().is_empty() {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests;
