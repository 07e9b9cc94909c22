//! `listInputs`: the inputs `pulumi do <token> list` (Pulumi's `List` RPC) takes, from the
//! config schema of the Terraform list resource that shares the resource's type name.
//!
//! The rules are the Go bridge's for its statically built providers (pulumi-terraform-bridge
//! #3446, `generate.go`): input attributes only, named as every other property is (camelCase,
//! plurals, MaxItems=1 flattening), `required` the non-optional ones, and `id` kept (unlike
//! `inputProperties`, `listInputs` has no implicit ID). An empty config gives an object with no
//! properties, which still declares list support. The Go implementation's dynamic provider
//! emits no `listInputs`, so this is purely additive.
//!
//! Architecture invariant: reads names from [`PropertyNames`]; nested object types get names
//! of their own (`<Resource>List<Property>`) so they never collide with the resource's types.

use super::Warning;
use super::names::{PropertyNames, ProviderNames};
use super::objects::{DocStyle, Object, Position, TypeBuilder, TypeTable, nested_type_name};
use crate::pulumi::ObjectTypeSpec;
use crate::tf::Schema;

/// The `listInputs` object of the resource `class_name`, from the list resource's schema.
pub(super) fn list_inputs(
    tf_name: &str,
    class_name: &str,
    list_schema: &Schema,
    names: &ProviderNames,
    table: &mut TypeTable,
    warnings: &mut Vec<Warning>,
) -> ObjectTypeSpec {
    let block = &list_schema.block;
    let properties = PropertyNames::of_block(block);
    let object = Object::Block(block);
    let origin = format!("list resource {tf_name}");
    let type_parent = format!("{class_name}List");
    let mut spec = ObjectTypeSpec { ty: "object".to_owned(), ..ObjectTypeSpec::default() };
    let mut builder = TypeBuilder {
        names,
        table: &mut *table,
        warnings: &mut *warnings,
        package: names.package_name(),
        module: "index",
        position: Position::Input,
    };
    for name in properties.iter() {
        let Some(field) = object.field(&name.tf_name) else { continue };
        if !field.is_input() {
            continue;
        }
        let (type_name, field_origin) = if field.needs_names() {
            (nested_type_name(&type_parent, &name.pulumi_name, field), format!("{origin}: {}", name.tf_name))
        } else {
            (String::new(), String::new())
        };
        let property = builder.property(field, &type_name, &field_origin, DocStyle::Raw, 0);
        if !field.optional(Position::Input) {
            spec.required.push(name.pulumi_name.clone());
        }
        spec.properties.insert(name.pulumi_name.clone(), property);
    }
    spec
}
