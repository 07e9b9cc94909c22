//! Resources, data sources, the provider resource and the configuration variables.
//!
//! Each member is walked once per position, in the Go implementation's order (resources:
//! inputs, outputs, state; data sources: arguments, results; provider: inputs), so that the
//! nested types' `required` lists come out as Go's do.
//!
//! Architecture invariant: reads names from [`ProviderNames`] and [`PropertyNames`], never
//! derives a name itself.

use std::collections::BTreeMap;

use super::deprecation::deprecation_message;
use super::docs::reformat_text;
use super::names::{PropertyName, PropertyNames, ProviderNames};
use super::objects::{
    DocStyle, Field, Object, Position, TypeBuilder, TypeTable, doc_comment, nested_type_name, rename_refs,
};
use super::{TranslateConfig, Warning, functions, list_inputs, package};
use crate::pulumi::{
    ConfigSpec, FunctionOutputs, FunctionSpec, ObjectTypeSpec, PackageSpec, PropertySpec, ResourceSpec, TypeSpec,
};
use crate::tf::{Block, Schema};

pub(super) fn package(config: &TranslateConfig, names: &ProviderNames, warnings: &mut Vec<Warning>) -> PackageSpec {
    let schema = config.schema;
    let package_name = config.package_name;
    let mut table = TypeTable::default();

    let listed: std::collections::BTreeSet<&str> = names.resources().map(|(tf_name, _)| tf_name).collect();
    for tf_name in schema.list_resources.keys().filter(|tf_name| !listed.contains(tf_name.as_str())) {
        warnings.push(Warning::ListResourceSkipped { tf_name: tf_name.clone() });
    }

    let config_spec = config_variables(&schema.provider.block, names, &mut table, warnings);
    let mut provider = provider_resource(&schema.provider.block, names, &mut table, warnings);

    let mut resources = BTreeMap::new();
    for (tf_name, token) in names.resources() {
        let resource_schema = &schema.resources[tf_name];
        resources.insert(token.to_owned(), resource(tf_name, token, resource_schema, names, &mut table, warnings));
    }
    // After every resource, so that list inputs' nested types never take a name first.
    for (tf_name, token) in names.resources() {
        if let Some(list_schema) = schema.list_resources.get(tf_name) {
            let class_name = token_name(token);
            let inputs = list_inputs::list_inputs(tf_name, class_name, list_schema, names, &mut table, warnings);
            if let Some(spec) = resources.get_mut(token) {
                spec.list_inputs = Some(inputs);
            }
        }
    }

    let mut functions = BTreeMap::new();
    for (tf_name, token) in names.data_sources() {
        let data_source_schema = &schema.data_sources[tf_name];
        functions.insert(
            token.to_owned(),
            data_source(tf_name, token, data_source_schema, names, &mut table, warnings, true),
        );
    }
    for (tf_name, token) in names.functions() {
        let function = &schema.functions[tf_name];
        functions.insert(
            token.to_owned(),
            functions::function(tf_name, token, function, package_name, &mut table, warnings),
        );
    }
    for (tf_name, token) in names.ephemeral_resources() {
        let ephemeral_schema = &schema.ephemeral_resources[tf_name];
        functions.insert(
            token.to_owned(),
            ephemeral_resource(tf_name, token, ephemeral_schema, names, &mut table, warnings),
        );
    }
    for (tf_name, token) in names.actions() {
        if let Some(spec) = action(tf_name, token, &schema.actions[tf_name], names, &mut table, warnings) {
            functions.insert(token.to_owned(), spec);
        }
    }
    let (method_token, method) = package::terraform_config_method(package_name);
    functions.insert(method_token, method);

    let renames = table.settle_names_as_go(warnings);
    if !renames.is_empty() {
        let resource_specs = std::iter::once(&mut provider).chain(resources.values_mut());
        for spec in resource_specs {
            let state = spec
                .state_inputs
                .iter_mut()
                .chain(spec.list_inputs.iter_mut())
                .flat_map(|state| state.properties.values_mut());
            for property in spec.properties.values_mut().chain(spec.input_properties.values_mut()).chain(state) {
                rename_refs(&mut property.ty, &renames);
            }
        }
        for function in functions.values_mut() {
            let inputs = function.inputs.iter_mut().flat_map(|inputs| inputs.properties.values_mut());
            for property in inputs {
                rename_refs(&mut property.ty, &renames);
            }
            match &mut function.outputs {
                Some(FunctionOutputs::Object(object) | FunctionOutputs::ReturnObject(object)) => {
                    for property in object.properties.values_mut() {
                        rename_refs(&mut property.ty, &renames);
                    }
                }
                Some(FunctionOutputs::ReturnType(ty)) => rename_refs(ty, &renames),
                None => {}
            }
        }
    }
    package::package_spec(config, config_spec, table.into_specs(), provider, resources, functions, warnings)
}

/// The name part of a token (`Bucket` in `b2:index/bucket:Bucket`).
fn token_name(token: &str) -> &str {
    token.rsplit(':').next().unwrap_or(token)
}

fn resource(
    tf_name: &str,
    token: &str,
    schema: &Schema,
    names: &ProviderNames,
    table: &mut TypeTable,
    warnings: &mut Vec<Warning>,
) -> ResourceSpec {
    let block = &schema.block;
    let fixed = names.resource_properties(tf_name, block);
    warnings.extend(fixed.warnings.iter().cloned());
    report_collisions(&fixed.names, &format!("resource {tf_name}"), warnings);
    let class_name = token_name(token);
    let origin = format!("resource {tf_name}");
    let object = Object::Block(block);
    let package = names.package_name();
    // The Pulumi ID is implicit: a property that would be called `id` is left out (the
    // fixups rename every `id` that is not the ID).
    let visible = |pulumi_name: &str| pulumi_name != "id";

    let mut spec =
        ResourceSpec { description: doc_comment(&reformat_text(names, &block.description)), ..ResourceSpec::default() };
    spec.deprecation_message = deprecation_message(names, block.deprecated, &block.deprecation_message);

    let mut state = ObjectTypeSpec {
        description: format!("Input properties used for looking up and filtering {class_name} resources.\n"),
        ty: "object".to_owned(),
        ..ObjectTypeSpec::default()
    };
    // Go declares nested types from the inputs, then the outputs, then the state; the
    // state (an input position holding every property) comes last and decides `required`.
    // The inputs' declarations are all superseded by the state's, so we build every spec
    // once at the output position, copy it to the inputs and the state, and then walk the
    // state's types again to record their input-position required fields.
    let mut builder = TypeBuilder {
        names,
        table: &mut *table,
        warnings: &mut *warnings,
        package,
        module: "index",
        position: Position::Output,
    };
    for name in fixed.names.iter() {
        let Some(field) = object.field(&name.tf_name) else { continue };
        if !visible(&name.pulumi_name) {
            continue;
        }
        let autonamed = fixed.autonamed && name.tf_name == "name";
        let (type_name, field_origin) = top_level_names(class_name, &origin, name, field);
        let property = builder.property(field, &type_name, &field_origin, DocStyle::Raw, 0);
        // An auto-named `name` is optional as an input and always present as an output.
        if autonamed || !field.optional(Position::Output) {
            spec.required.push(name.pulumi_name.clone());
        }
        if field.is_input() {
            if !autonamed && !field.optional(Position::Input) {
                spec.required_inputs.push(name.pulumi_name.clone());
            }
            spec.input_properties.insert(name.pulumi_name.clone(), property.clone());
        }
        state.properties.insert(name.pulumi_name.clone(), property.clone());
        spec.properties.insert(name.pulumi_name.clone(), property);
    }
    let mut builder = TypeBuilder {
        names,
        table: &mut *table,
        warnings: &mut *warnings,
        package,
        module: "index",
        position: Position::Input,
    };
    for name in fixed.names.iter() {
        let Some(field) = object.field(&name.tf_name) else { continue };
        if visible(&name.pulumi_name) && field.needs_names() {
            let (type_name, field_origin) = top_level_names(class_name, &origin, name, field);
            builder.refresh_field(field, &type_name, &field_origin, 0, true);
        }
    }
    spec.state_inputs = Some(state);
    spec
}

/// `record_inputs`: also record the input-position required fields of the nested types (a
/// data source's arguments). Actions do not: their nested types may be shared with a data
/// source's, whose specs must stay exactly as the Go implementation emits them.
fn data_source(
    tf_name: &str,
    token: &str,
    schema: &Schema,
    names: &ProviderNames,
    table: &mut TypeTable,
    warnings: &mut Vec<Warning>,
    record_inputs: bool,
) -> FunctionSpec {
    let block = &schema.block;
    let function_name = token_name(token);
    let package = names.package_name();
    let properties = PropertyNames::of_block(block);
    report_collisions(&properties, &format!("data source {tf_name}"), warnings);
    let object = Object::Block(block);
    let origin = format!("data source {tf_name}");

    // Go declares nested types from the arguments, then from the results, which decide
    // `required`. We build every spec once at the output position and then walk the
    // arguments' types to record their input-position required fields.
    let mut inputs = ObjectTypeSpec { ty: "object".to_owned(), ..ObjectTypeSpec::default() };
    let mut outputs = ObjectTypeSpec { ty: "object".to_owned(), ..ObjectTypeSpec::default() };
    let mut builder = TypeBuilder {
        names,
        table: &mut *table,
        warnings: &mut *warnings,
        package,
        module: "index",
        position: Position::Output,
    };
    for name in properties.iter() {
        let Some(field) = object.field(&name.tf_name) else { continue };
        let (type_name, field_origin) = top_level_names(function_name, &origin, name, field);
        let property = builder.property(field, &type_name, &field_origin, DocStyle::Raw, 0);
        if !field.optional(Position::Output) {
            outputs.required.push(name.pulumi_name.clone());
        }
        if field.is_input() {
            if !field.optional(Position::Input) {
                inputs.required.push(name.pulumi_name.clone());
            }
            inputs.properties.insert(name.pulumi_name.clone(), property.clone());
        }
        outputs.properties.insert(name.pulumi_name.clone(), property);
    }
    let mut builder = TypeBuilder {
        names,
        table: &mut *table,
        warnings: &mut *warnings,
        package,
        module: "index",
        position: Position::Input,
    };
    for name in properties.iter().filter(|_| record_inputs) {
        let Some(field) = object.field(&name.tf_name) else { continue };
        if field.is_input() && field.needs_names() {
            let (type_name, field_origin) = top_level_names(function_name, &origin, name, field);
            builder.refresh_field(field, &type_name, &field_origin, 0, false);
        }
    }
    inputs.description = format!("A collection of arguments for invoking {function_name}.\n");
    outputs.description = format!("A collection of values returned by {function_name}.\n");

    let mut spec =
        FunctionSpec { description: doc_comment(&reformat_text(names, &block.description)), ..FunctionSpec::default() };
    spec.deprecation_message = deprecation_message(names, block.deprecated, &block.deprecation_message);
    if !inputs.properties.is_empty() {
        spec.inputs = Some(inputs);
    }
    if !outputs.properties.is_empty() {
        spec.outputs = Some(FunctionOutputs::Object(outputs));
    }
    spec
}

/// An ephemeral resource as a function: a data source's shape (arguments in, every
/// attribute out), with every result secret, since Terraform never stores them and a
/// program should not print them by accident. No `id` is added: the provider returns none.
fn ephemeral_resource(
    tf_name: &str,
    token: &str,
    schema: &Schema,
    names: &ProviderNames,
    table: &mut TypeTable,
    warnings: &mut Vec<Warning>,
) -> FunctionSpec {
    let mut spec = data_source(tf_name, token, schema, names, table, warnings, true);
    if let Some(FunctionOutputs::Object(outputs)) = &mut spec.outputs {
        for property in outputs.properties.values_mut() {
            property.secret = true;
        }
    }
    spec
}

/// The argument every action function takes besides its configuration: the resource its
/// progress is shown against (bridge PR #3226's shape).
pub const ACTION_URN_ARGUMENT: &str = "urn";

/// An action as a function: its configuration as the arguments (typed as a data source's
/// are), plus the required `urn` to show progress against, and an empty result (see below).
fn action(
    tf_name: &str,
    token: &str,
    schema: &Schema,
    names: &ProviderNames,
    table: &mut TypeTable,
    warnings: &mut Vec<Warning>,
) -> Option<FunctionSpec> {
    let properties = PropertyNames::of_block(&schema.block);
    if properties.by_pulumi_name(ACTION_URN_ARGUMENT).is_some() {
        warnings.push(Warning::ActionSkipped {
            tf_name: tf_name.to_owned(),
            reason: format!(
                "its configuration has an attribute named `{ACTION_URN_ARGUMENT}`, the argument that names the resource"
            ),
        });
        return None;
    }
    let mut spec = data_source(tf_name, token, schema, names, table, warnings, false);
    // An empty result rather than none: Pulumi's Go code generator (3.259) writes a function
    // without outputs that returns two values where its signature declares one, so the Go SDK
    // would not compile.
    spec.outputs =
        Some(FunctionOutputs::Object(ObjectTypeSpec { ty: "object".to_owned(), ..ObjectTypeSpec::default() }));
    let mut inputs =
        spec.inputs.take().unwrap_or_else(|| ObjectTypeSpec { ty: "object".to_owned(), ..ObjectTypeSpec::default() });
    inputs.properties.insert(
        ACTION_URN_ARGUMENT.to_owned(),
        PropertySpec {
            description: "The URN of the resource to show the action's progress against.".to_owned(),
            ty: TypeSpec { ty: "string".into(), ..TypeSpec::default() },
            ..PropertySpec::default()
        },
    );
    inputs.required.push(ACTION_URN_ARGUMENT.to_owned());
    inputs.required.sort();
    inputs.description = format!("A collection of arguments for invoking {}.\n", token_name(token));
    spec.inputs = Some(inputs);
    let note = format!(
        "Invokes the Terraform action `{tf_name}`: a preview only plans it (ValidateActionConfig, PlanAction); \
         an update runs it (InvokeAction) and shows its progress against `urn`. It returns nothing."
    );
    spec.description = if spec.description.is_empty() { note } else { format!("{note}\n\n{}", spec.description) };
    Some(spec)
}

/// The provider's configuration as `config.variables`: every attribute and block, typed
/// as an output (computed values are present), nested types in module `config` named after
/// the variable.
fn config_variables(
    block: &Block,
    names: &ProviderNames,
    table: &mut TypeTable,
    warnings: &mut Vec<Warning>,
) -> ConfigSpec {
    let package = names.package_name();
    let properties = PropertyNames::of_block(block);
    report_collisions(&properties, "provider configuration", warnings);
    let object = Object::Block(block);
    let mut builder = TypeBuilder { names, table, warnings, package, module: "config", position: Position::Output };
    let mut spec = ConfigSpec::default();
    for name in properties.iter() {
        let Some(field) = object.field(&name.tf_name) else { continue };
        let origin = format!("provider configuration: {}", name.tf_name);
        let property = builder.property(field, &name.pulumi_name, &origin, DocStyle::Raw, 0);
        if !field.optional(Position::Output) {
            spec.required.push(name.pulumi_name.clone());
        }
        spec.variables.insert(name.pulumi_name.clone(), property);
    }
    spec
}

fn provider_resource(
    block: &Block,
    names: &ProviderNames,
    table: &mut TypeTable,
    warnings: &mut Vec<Warning>,
) -> ResourceSpec {
    let package = names.package_name();
    let properties = PropertyNames::of_block(block);
    let object = Object::Block(block);
    let mut spec = ResourceSpec {
        description: format!(
            "The provider type for the {package} package. By default, resources use package-wide configuration\n\
             settings, however an explicit `Provider` instance may be created and passed during resource\n\
             construction to achieve fine-grained programmatic control over provider settings. See the\n\
             [documentation](https://www.pulumi.com/docs/reference/programming-model/#providers) for more information.\n"
        ),
        ..ResourceSpec::default()
    };
    let mut reserved = Vec::new();
    {
        let mut builder =
            TypeBuilder { names, table, warnings: &mut *warnings, package, module: "index", position: Position::Input };
        for name in properties.iter() {
            let Some(field) = object.field(&name.tf_name) else { continue };
            if !field.is_input() {
                continue;
            }
            if name.pulumi_name == "version" || name.pulumi_name == "pulumi" {
                reserved.push(name.pulumi_name.clone());
            }
            let type_name = nested_type_name("Provider", &name.pulumi_name, field);
            let origin = format!("provider: {}", name.tf_name);
            let property = builder.property(field, &type_name, &origin, DocStyle::Raw, 0);
            if !field.optional(Position::Input) {
                spec.required_inputs.push(name.pulumi_name.clone());
            }
            spec.input_properties.insert(name.pulumi_name.clone(), property);
        }
    }
    for name in reserved {
        warnings.push(Warning::ReservedPropertyName { path: "provider configuration".to_owned(), name });
    }
    spec.properties = spec.input_properties.clone();
    spec.required = spec.required_inputs.clone();
    let (method_token, _) = package::terraform_config_method(package);
    spec.methods.insert("terraformConfig".to_owned(), method_token);
    spec
}

/// The type name and origin of a top-level property; empty when its type holds no
/// object, where they are never used.
fn top_level_names(parent: &str, origin: &str, name: &PropertyName, field: Field) -> (String, String) {
    if field.needs_names() {
        (nested_type_name(parent, &name.pulumi_name, field), format!("{origin}: {}", name.tf_name))
    } else {
        (String::new(), String::new())
    }
}

fn report_collisions(names: &PropertyNames, path: &str, warnings: &mut Vec<Warning>) {
    for (tf_name, natural) in names.collisions() {
        warnings.push(Warning::PropertyNameCollision {
            path: format!("{path}: {tf_name}"),
            natural: natural.clone(),
            used: names.by_tf_name(tf_name).map(|n| n.pulumi_name.clone()).unwrap_or_default(),
        });
    }
}
