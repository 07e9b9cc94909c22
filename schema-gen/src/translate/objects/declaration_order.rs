//! The order in which the Go implementation declares object types, and the renaming of
//! `$ref`s once names are settled: what [`super::TypeTable::settle_names_as_go`] needs to
//! give each name to the object Go's schema gives it.

use std::collections::BTreeMap;

use crate::pulumi::TypeSpec;

/// Where the Go implementation declares the object of `origin` in its walk of the schema,
/// as a sortable key: resources, then data sources, each sorted by Terraform name, then the
/// provider; inside one, depth first with properties sorted by Terraform name (the parent
/// before its fields). Go walks every position (inputs, outputs, state), but the last walk
/// of a member reaches all its properties, so this order is the order of the last
/// declarations. `None` for origins Go names by other rules (configuration, functions).
pub(crate) fn go_declaration_order(origin: &str) -> Option<(u8, &str, Vec<&str>)> {
    let (member, path) = origin.split_once(": ")?;
    let (rank, name) = if let Some(name) = member.strip_prefix("resource ") {
        (0, name)
    } else if let Some(name) = member.strip_prefix("data source ") {
        (1, name)
    } else if member == "provider" {
        (2, "")
    } else {
        return None;
    };
    Some((rank, name, path.split('.').collect()))
}

/// Points `$ref`s to renamed types at their new tokens.
pub(crate) fn rename_refs(ty: &mut TypeSpec, renames: &BTreeMap<String, String>) {
    if let Some(token) = ty.reference.strip_prefix("#/types/")
        && let Some(renamed) = renames.get(token)
    {
        ty.reference = format!("#/types/{renamed}");
    }
    if let Some(items) = &mut ty.items {
        rename_refs(items, renames);
    }
    if let Some(values) = &mut ty.additional_properties {
        rename_refs(values, renames);
    }
}
