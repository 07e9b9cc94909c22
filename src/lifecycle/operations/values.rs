//! The resource handle's conversions for the operations: Pulumi inputs to a Terraform
//! configuration, a state to Pulumi outputs, and the `__meta` stored beside it.

use crate::convert::values::{self as convert, UnknownKeys};
use crate::cty::{self, Value};
use crate::lifecycle::calls::Resource;
use crate::lifecycle::support::error::LifecycleError;
use crate::lifecycle::support::inputs::strip_computed_only;
use crate::lifecycle::support::state::{self, Meta};
use crate::property::PropertyMap;

/// The Pulumi name of a resource's auto-named `name` attribute, if it has one.
pub(super) fn name_property(resource: &Resource<'_>) -> Option<String> {
    resource.props().autonamed.then(|| resource.props().names.by_tf_name("name").map(|n| n.pulumi_name.clone()))?
}

/// The Terraform configuration of Pulumi inputs, with the secret paths.
pub(super) fn configuration(
    resource: &Resource<'_>,
    inputs: &PropertyMap,
) -> Result<(Value, Vec<cty::Path>), LifecycleError> {
    let (value, secrets) =
        convert::to_cty(&resource.schema().block, &resource.props().names, inputs, UnknownKeys::Reject).map_err(
            |error| LifecycleError::InvalidProperty { subject: resource.subject().clone(), error: Box::new(error) },
        )?;
    Ok((strip_computed_only(&resource.schema().block, &value), secrets))
}

pub(super) fn pulumi_outputs(
    resource: &Resource<'_>,
    state: &Value,
    secrets: &[cty::Path],
    meta: &Meta,
) -> Result<PropertyMap, LifecycleError> {
    state::outputs(resource.schema(), resource.props(), state, secrets, meta).map_err(|err| {
        LifecycleError::ProviderBug {
            subject: resource.subject().clone(),
            summary: "Provider produced invalid object",
            problems: vec![format!("the state cannot be shown as Pulumi outputs: {err}")],
        }
    })
}

/// The `__meta` to store with a new state: the current schema versions, and the keys
/// other writers left.
pub(super) fn new_meta(
    resource: &Resource<'_>,
    previous: Option<&Meta>,
    private: Vec<u8>,
    identity: Option<&Value>,
) -> Result<Meta, LifecycleError> {
    Ok(Meta {
        schema_version: resource.schema().version,
        private,
        identity: identity.map(|identity| resource.identity_text(identity)).transpose()?,
        identity_schema_version: resource.identity_schema().map_or(0, |schema| schema.version),
        apply_failed: false,
        tainted: false,
        other: previous.map(|m| m.other.clone()).unwrap_or_default(),
    })
}
