//! Resource identity schemas (protocol 5.9/6.9, Terraform 1.12): the attributes that name
//! one remote object, as GetResourceIdentitySchemas answers them and `terraform providers
//! schema -json` prints them (`resource_identity_schemas`).
//!
//! They are kept apart from [`ProviderSchema`](super::ProviderSchema) because they come
//! from a separate call that older providers do not implement, and because nothing in the
//! package schema's translation depends on them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::ty::Type;

/// The identity schema of one resource type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IdentitySchema {
    /// Bumped by the provider when the identity's shape changes; a stored identity of an
    /// older version goes through UpgradeResourceIdentity.
    #[serde(default)]
    pub version: i64,
    #[serde(default)]
    pub attributes: BTreeMap<String, IdentityAttribute>,
}

/// One identity attribute. Identities are flat objects of primitive or collection types.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct IdentityAttribute {
    #[serde(rename = "type", with = "super::schema::type_json")]
    pub ty: Type,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required_for_import: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional_for_import: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}

impl IdentitySchema {
    /// The object type identity values are encoded with.
    pub fn implied_type(&self) -> Type {
        Type::object(self.attributes.iter().map(|(name, attr)| (name.clone(), attr.ty.clone())))
    }
}
