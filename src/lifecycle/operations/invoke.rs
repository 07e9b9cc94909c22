//! Invoke: data sources (`ValidateDataResourceConfig` + `ReadDataSource`),
//! provider-defined functions (`CallFunction`) and ephemeral resources (`ephemeral.rs`).
//!
//! A data source's sensitive attributes come back as secrets, and nothing else does: a value
//! the program marked secret comes back plain (the engine marks results secret itself when
//! arguments were). Provider-defined function results carry no secrets. A function's arguments
//! arrive by name and are passed by position; a non-object result comes back as `result`.
//!
//! Architecture invariant: no gRPC types.

use schema_gen::tf::{Attribute, Block, Function, Type};
use schema_gen::translate::{PropertyNames, argument_names};

use crate::convert::values::{self as convert, UnknownKeys};
use crate::cty::Value;
use crate::lifecycle::calls::Connection;
use crate::lifecycle::calls::{FunctionResult, Warnings};
use crate::lifecycle::support::checks::{self, CheckFailure};
use crate::lifecycle::support::error::{LifecycleError, Subject};
use crate::lifecycle::support::inputs::strip_computed_only;
use crate::property::{PropertyMap, PropertyValue, UnknownKind};

/// Invoke's result: outputs, or failures naming the arguments at fault.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Invoked {
    /// A function's `result`, a data source's state, an open ephemeral resource's result;
    /// empty when there are failures.
    pub outputs: PropertyMap,
    /// What is wrong with the arguments; when there are any, nothing ran.
    pub failures: Vec<CheckFailure>,
    /// The provider's warning diagnostics, each worded for the user.
    pub warnings: Vec<String>,
    /// The resource the warnings are about: an action's `urn` argument; none for the others.
    pub urn: Option<String>,
}

/// The arguments of a data source, ephemeral resource or action, as Terraform checks them
/// before anything runs: converted to the schema's configuration, then validated by the
/// provider. Either the configuration, or what is wrong with the arguments.
pub(in crate::lifecycle) enum Arguments {
    /// `secrets`: the paths the program marked secret, for the gRPC debug log.
    Valid {
        config: Value,
        secrets: Vec<crate::cty::Path>,
        warnings: Warnings,
    },
    Invalid {
        failures: Vec<CheckFailure>,
        warnings: Vec<String>,
    },
}

impl Arguments {
    /// Converts `args` (failing on them after `earlier` failures, if any) and, when nothing
    /// failed, asks `validate` (the kind's Validate…Config call) about the configuration,
    /// which it gets with the secret paths of the arguments.
    pub(in crate::lifecycle) async fn check(
        block: &Block,
        names: &PropertyNames,
        args: &PropertyMap,
        mut earlier: Vec<CheckFailure>,
        validate: impl AsyncFnOnce(
            &Value,
            &[crate::cty::Path],
        ) -> Result<crate::lifecycle::calls::Diagnostics, LifecycleError>,
    ) -> Result<Arguments, LifecycleError> {
        let (config, secrets) = match convert::to_cty(block, names, args, UnknownKeys::Reject) {
            Ok((config, secrets)) => (strip_computed_only(block, &config), secrets),
            Err(error) => {
                earlier.push(checks::convert_failure(&error));
                return Ok(Arguments::Invalid { failures: earlier, warnings: Vec::new() });
            }
        };
        if !earlier.is_empty() {
            return Ok(Arguments::Invalid { failures: earlier, warnings: Vec::new() });
        }
        let diagnostics = validate(&config, &secrets).await?;
        let mut warnings = Warnings::default();
        warnings.extend(diagnostics.warnings.iter().map(ToString::to_string));
        if !diagnostics.errors.is_empty() {
            let failures = checks::check_failures(&diagnostics.errors, &[]);
            return Ok(Arguments::Invalid { failures, warnings: warnings.into_vec() });
        }
        Ok(Arguments::Valid { config, secrets, warnings })
    }
}

pub(crate) async fn invoke_data_source(
    connection: &Connection,
    token: &str,
    tf_name: &str,
    args: &PropertyMap,
) -> Result<Invoked, LifecycleError> {
    let source = connection.data_source(tf_name, Subject::Token(token.to_owned()))?;
    let (block, names, subject) = (source.block(), source.names(), source.subject());
    let mut invoked = Invoked::default();
    let validate = async |config: &Value, secrets: &[crate::cty::Path]| {
        source.validate_data_resource_config(config, secrets).await
    };
    let (config, secrets, mut warnings) = match Arguments::check(block, names, args, Vec::new(), validate).await? {
        Arguments::Valid { config, secrets, warnings } => (config, secrets, warnings),
        Arguments::Invalid { failures, warnings } => return Ok(Invoked { failures, warnings, ..invoked }),
    };
    let state = if config.is_wholly_known() {
        warnings.kept(source.read_data_source(&config, &secrets).await)?
    } else {
        // A preview with arguments not known yet: what Terraform plans for the read.
        crate::lifecycle::support::proposed_new::planned_data_source_object(block, &config).map_err(|err| {
            LifecycleError::Internal {
                subject: subject.clone(),
                message: format!("cannot plan the data source read: {err}"),
            }
        })?
    };
    invoked.warnings = warnings.into_vec();
    let outputs = convert::from_cty(block, names, &state, &[])
        .map_err(|error| LifecycleError::InvalidProperty { subject: subject.clone(), error: Box::new(error) })?;
    invoked.outputs = outputs.into_iter().map(|(k, v)| (k, without_secrets(v))).collect();
    // Sensitive attributes come back as secrets (the Go implementation returns them
    // plain): the engine keeps an Invoke's secrets, and the program's outputs show them
    // as `[secret]`.
    crate::lifecycle::support::inputs::mark_sensitive(block, names, &mut invoked.outputs);
    Ok(invoked)
}

/// A function's arguments, converted from the Invoke's inputs.
struct FunctionArguments<'p> {
    /// Each argument's value and parameter type, in the call's order (variadic ones last).
    values: Vec<(Value, &'p Type)>,
    any_unknown: bool,
    /// The arguments that cannot be converted, and inputs that are no argument.
    failures: Vec<CheckFailure>,
}

/// The arguments of a call of `function` from the Invoke's inputs, by their Pulumi names.
fn function_arguments<'p>(
    function: &'p Function,
    arg_names: &[String],
    args: &PropertyMap,
    tf_name: &str,
) -> FunctionArguments<'p> {
    let mut converted = FunctionArguments { values: Vec::new(), any_unknown: false, failures: Vec::new() };
    let convert_arg =
        |name: &str, ty: &'p Type, value: &PropertyValue, converted: &mut FunctionArguments<'p>| match to_value(
            ty, value,
        ) {
            Ok(value) => {
                converted.any_unknown |= !value.is_wholly_known();
                converted.values.push((value, ty));
            }
            Err(error) => converted.failures.push(CheckFailure {
                property: if error.path.steps.is_empty() {
                    name.to_owned()
                } else {
                    format!("{name}{}", path_suffix(&error.path.to_string()))
                },
                reason: error.kind.to_string(),
            }),
        };
    for (idx, param) in function.parameters.iter().enumerate() {
        let name = &arg_names[idx];
        let value = args.get(name).cloned().unwrap_or(PropertyValue::Null);
        convert_arg(name, &param.r#type, &value, &mut converted);
    }
    if let Some(variadic) = &function.variadic_parameter {
        let name = &arg_names[function.parameters.len()];
        match args.get(name).cloned().map(without_secrets) {
            None | Some(PropertyValue::Null) => {}
            Some(PropertyValue::Array(items)) => {
                for item in &items {
                    convert_arg(name, &variadic.r#type, item, &mut converted);
                }
            }
            Some(_) => converted.failures.push(CheckFailure {
                property: name.clone(),
                reason: "expected an array of the variadic arguments".to_owned(),
            }),
        }
    }
    if let Some(unexpected) = args.keys().find(|key| !arg_names.contains(key)) {
        converted.failures.push(CheckFailure {
            property: unexpected.clone(),
            reason: format!("{tf_name} has no argument {unexpected:?}; it takes {}", arg_names.join(", ")),
        });
    }
    converted
}

pub(crate) async fn call_provider_function<'p>(
    connection: &'p Connection,
    token: &str,
    tf_name: &str,
    args: &PropertyMap,
) -> Result<Invoked, LifecycleError> {
    let Some(function) = connection.schema().function(tf_name) else {
        return Err(connection.unknown_token("function", token));
    };
    let function: &'p Function = function;
    let arg_names = argument_names(function);
    let subject = Subject::Token(token.to_owned());
    let mut invoked = Invoked::default();
    let FunctionArguments { values: arguments, any_unknown, failures } =
        function_arguments(function, &arg_names, args, tf_name);
    invoked.failures = failures;
    if !invoked.failures.is_empty() {
        return Ok(invoked);
    }
    if any_unknown {
        invoked.outputs.insert("result".to_owned(), PropertyValue::Unknown(UnknownKind::String));
        return Ok(invoked);
    }
    let result = match connection.call_function(&subject, tf_name, &arguments, &function.return_type).await? {
        FunctionResult::Value(result) => result,
        FunctionResult::Error { argument, text } => {
            let property = argument
                .and_then(|idx| arg_names.get(idx.min(arg_names.len().saturating_sub(1))))
                .cloned()
                .unwrap_or_default();
            invoked.failures.push(CheckFailure { property, reason: text });
            return Ok(invoked);
        }
    };
    let result = from_value(&function.return_type, &result)
        .map_err(|error| LifecycleError::InvalidProperty { subject, error: Box::new(error) })?;
    invoked.outputs = match (&function.return_type, without_secrets(result)) {
        (Type::Object(_), PropertyValue::Object(map)) => map,
        (_, other) => [("result".to_owned(), other)].into(),
    };
    Ok(invoked)
}

/// `.x` or `[0]` after an argument name.
fn path_suffix(path: &str) -> String {
    if path.starts_with('[') { path.to_owned() } else { format!(".{path}") }
}

/// A one-attribute block holding a value of `ty`: lets the schema-driven translation (and
/// its naming rules) convert a bare value.
fn holder(ty: &Type) -> (Block, String) {
    let mut attr = Attribute::new(ty.clone());
    attr.optional = true;
    let block = Block { attributes: [("value".to_owned(), attr)].into(), ..Block::default() };
    let key = PropertyNames::of_block(&block)
        .by_tf_name("value")
        .map_or_else(|| "value".to_owned(), |n| n.pulumi_name.clone());
    (block, key)
}

fn to_value(ty: &Type, value: &PropertyValue) -> Result<Value, convert::ConvertError> {
    let (block, key) = holder(ty);
    let names = PropertyNames::of_block(&block);
    let props: PropertyMap = [(key, value.clone())].into();
    let (object, _) = convert::to_cty(&block, &names, &props, UnknownKeys::Reject).map_err(|mut err| {
        // The holder's key is not part of what the user wrote.
        if !err.path.steps.is_empty() {
            err.path.steps.remove(0);
        }
        err
    })?;
    Ok(object.get_attr("value").cloned().unwrap_or_else(|| Value::null(ty.clone())))
}

fn from_value(ty: &Type, value: &Value) -> Result<PropertyValue, convert::ConvertError> {
    let (block, key) = holder(ty);
    let names = PropertyNames::of_block(&block);
    let object = Value::object([("value", value.clone())]);
    let mut props = convert::from_cty(&block, &names, &object, &[])?;
    Ok(props.remove(&key).unwrap_or(PropertyValue::Null))
}

fn without_secrets(value: PropertyValue) -> PropertyValue {
    match value {
        PropertyValue::Secret(inner) => without_secrets(*inner),
        PropertyValue::Array(items) => PropertyValue::Array(items.into_iter().map(without_secrets).collect()),
        PropertyValue::Object(map) => {
            PropertyValue::Object(map.into_iter().map(|(k, v)| (k, without_secrets(v))).collect())
        }
        other => other,
    }
}
