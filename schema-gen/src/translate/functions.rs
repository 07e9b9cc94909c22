//! Provider-defined functions as Pulumi functions with positional (multi-argument) inputs.
//!
//! Argument names are the camel-cased parameter names (`arg<N>` when empty, numbered when
//! repeated); a parameter is required unless it accepts null and no later parameter is
//! required; the variadic parameter is a trailing array. Object types are named
//! `<function><Argument>` (or `<function>Result` for the return value) plus the property
//! name for deeper objects, and their attributes are required unless the object type marks
//! them optional.
//!
//! Architecture invariant: shares only [`PropertyNames`] and the type table with the rest of
//! the translation.

use std::collections::{BTreeMap, BTreeSet};

use super::Warning;
use super::names::PropertyNames;
use super::objects::{TypeTable, doc_comment};
use crate::naming::{property_name, upper_first};
use crate::pulumi::{FunctionOutputs, FunctionSpec, ObjectTypeSpec, PropertySpec, TypeSpec};
use crate::tf::{Function, ObjectType, Type};

pub(super) fn function(
    tf_name: &str,
    token: &str,
    function: &Function,
    package: &str,
    table: &mut TypeTable,
    warnings: &mut Vec<Warning>,
) -> FunctionSpec {
    let name = token.rsplit(':').next().unwrap_or(token);
    let mut converter = Converter { package, table, warnings, origin: format!("function {tf_name}") };

    let mut description = function.description.clone();
    if !function.summary.is_empty() {
        description = if description.is_empty() {
            function.summary.clone()
        } else {
            format!("{}\n\n{description}", function.summary)
        };
    }
    let mut spec = FunctionSpec {
        description: doc_comment(&description),
        deprecation_message: function.deprecation_message.clone(),
        ..FunctionSpec::default()
    };

    let argument_names = argument_names(function);
    if !argument_names.is_empty() {
        let mut inputs = ObjectTypeSpec { ty: "object".to_owned(), ..ObjectTypeSpec::default() };
        let n_params = function.parameters.len();
        let mut required = vec![false; n_params];
        let mut any_required_after = false;
        for idx in (0..n_params).rev() {
            required[idx] = !function.parameters[idx].allow_null || any_required_after;
            any_required_after |= required[idx];
        }
        for (idx, param) in function.parameters.iter().enumerate() {
            let arg = &argument_names[idx];
            let ty = converter.type_spec(&param.r#type, &format!("{name}{}", upper_first(arg)), 0);
            inputs.properties.insert(
                arg.clone(),
                PropertySpec { ty, description: doc_comment(&param.description), ..PropertySpec::default() },
            );
            if required[idx] {
                inputs.required.push(arg.clone());
            }
        }
        if let Some(variadic) = &function.variadic_parameter {
            let arg = &argument_names[n_params];
            let elem = converter.type_spec(&variadic.r#type, &format!("{name}{}", upper_first(arg)), 0);
            inputs.properties.insert(
                arg.clone(),
                PropertySpec {
                    ty: TypeSpec::array(elem),
                    description: doc_comment(&variadic.description),
                    ..PropertySpec::default()
                },
            );
        }
        spec.inputs = Some(inputs);
        spec.multi_argument_inputs = argument_names;
    }

    spec.outputs = Some(match &function.return_type {
        Type::Object(object) => {
            FunctionOutputs::ReturnObject(converter.object_spec(object, &format!("{name}Result"), 0))
        }
        other => FunctionOutputs::ReturnType(converter.type_spec(other, &format!("{name}Result"), 0)),
    });
    spec
}

/// The Pulumi argument names: camel case of the parameter names, `arg<N>` for unnamed
/// ones, and `2`, `3`, ... appended to repeats.
pub fn argument_names(function: &Function) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let raw = function
        .parameters
        .iter()
        .map(|p| p.name.as_str())
        .chain(function.variadic_parameter.iter().map(|p| p.name.as_str()));
    raw.enumerate()
        .map(|(idx, raw_name)| {
            let base = if raw_name.is_empty() { String::new() } else { property_name(raw_name) };
            let base = if base.is_empty() { format!("arg{}", idx + 1) } else { base };
            let mut name = base.clone();
            let mut n = 2;
            while seen.contains(&name) {
                name = format!("{base}{n}");
                n += 1;
            }
            seen.insert(name.clone());
            name
        })
        .collect()
}

struct Converter<'t> {
    package: &'t str,
    table: &'t mut TypeTable,
    warnings: &'t mut Vec<Warning>,
    origin: String,
}

/// Function types nest no deeper than this; beyond, `pulumi.json#/Any`.
const MAX_DEPTH: usize = 48;

impl Converter<'_> {
    fn type_spec(&mut self, ty: &Type, name_hint: &str, depth: usize) -> TypeSpec {
        if depth >= MAX_DEPTH {
            self.warnings.push(Warning::TooDeep { path: self.origin.clone() });
            return TypeSpec::any();
        }
        match ty {
            Type::Bool => TypeSpec::primitive("boolean"),
            Type::Number => TypeSpec::primitive("number"),
            Type::String => TypeSpec::primitive("string"),
            Type::Dynamic => TypeSpec::any(),
            Type::List(elem) | Type::Set(elem) => TypeSpec::array(self.type_spec(elem, name_hint, depth + 1)),
            Type::Map(elem) => TypeSpec::map(self.type_spec(elem, name_hint, depth + 1)),
            Type::Object(object) => {
                let spec = self.object_spec(object, name_hint, depth + 1);
                let token =
                    self.table.declare_function_type(self.package, name_hint, spec, self.warnings, &self.origin);
                TypeSpec::reference(format!("#/types/{token}"))
            }
            Type::Tuple(_) => {
                self.warnings.push(Warning::UnsupportedType { path: self.origin.clone(), ty: ty.to_json_string() });
                TypeSpec::any()
            }
        }
    }

    fn object_spec(&mut self, object: &ObjectType, name_hint: &str, depth: usize) -> ObjectTypeSpec {
        let names = PropertyNames::of_object_type(object);
        let mut spec = ObjectTypeSpec { ty: "object".to_owned(), ..ObjectTypeSpec::default() };
        let mut properties = BTreeMap::new();
        for name in names.iter() {
            let ty = &object.attrs[&name.tf_name];
            let spec_ty = self.type_spec(ty, &format!("{name_hint}{}", upper_first(&name.pulumi_name)), depth);
            properties.insert(name.pulumi_name.clone(), PropertySpec { ty: spec_ty, ..PropertySpec::default() });
            if !object.optional.contains(&name.tf_name) {
                spec.required.push(name.pulumi_name.clone());
            }
        }
        spec.properties = properties;
        spec
    }
}
