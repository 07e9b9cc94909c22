//! Resource identity (protocol 5.9/6.9: GetResourceIdentitySchemas, UpgradeResourceIdentity)
//! and list resources (5.10/6.10: ValidateListResourceConfig, ListResource): their
//! protocol-neutral requests and answers, in the style of [`super::core_rpcs`]; `wire`
//! converts them for both protocols.

use std::collections::BTreeMap;

use schema_gen::tf;

use super::core_rpcs::{Diagnostic, DynamicValue};

pub(super) mod wire;

/// GetResourceIdentitySchemas's answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IdentitySchemasResponse {
    pub schemas: BTreeMap<String, tf::IdentitySchema>,
    pub diagnostics: Vec<Diagnostic>,
}

/// UpgradeResourceIdentity's request: a stored identity of an older schema version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpgradeResourceIdentityRequest {
    pub type_name: String,
    pub version: i64,
    /// The stored identity as JSON, as Terraform's state file keeps it.
    pub raw_identity: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpgradeResourceIdentityResponse {
    pub upgraded_identity: Option<DynamicValue>,
    pub diagnostics: Vec<Diagnostic>,
}

/// ListResource's request. ValidateListResourceConfig sends only the type and config, as
/// Terraform does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListResourceRequest {
    pub type_name: String,
    pub config: DynamicValue,
    pub include_resource_object: bool,
    pub limit: i64,
}

/// One event of a ListResource stream: a found object, or diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListResourceEvent {
    pub identity: Option<DynamicValue>,
    pub display_name: String,
    pub resource_object: Option<DynamicValue>,
    pub diagnostics: Vec<Diagnostic>,
}
