//! Import: `ImportResourceState` by ID or by identity, then `ReadResource`, and the inputs
//! to store (the provider's `GenerateResourceConfig` when it writes them).

use super::interface::Written;

use super::values::{new_meta, pulumi_outputs};
use crate::lifecycle::calls::{Resource, Warnings};
use crate::lifecycle::support::error::LifecycleError;
use crate::lifecycle::support::identity::{self, ImportKey};
use crate::lifecycle::support::inputs::inputs_from_outputs;
use crate::lifecycle::support::state::{self, MISSING_ID, Meta};
use crate::property::PropertyMap;

/// Import by an ID string, or by an identity written as JSON (see
/// [`identity::import_key`]); then a read, as Terraform does.
///
/// An object the read finds gone is answered as a refresh answers it (an empty ID, no
/// outputs), not with Terraform's "Cannot import non-existent remote object": this Read
/// is also how the engine asks whether an object exists (`resourceExists`, the generated
/// SDKs' `exists` methods, 3.273 and later), where "no" is an answer and not an error;
/// `pulumi import` reports the empty answer itself ("resource '<id>' does not exist").
/// The Go implementation answers with properties that are present but empty, which that
/// engine takes for "unknown" rather than "no".
pub(super) async fn import(resource: &Resource<'_>, id: &str) -> Result<Written, LifecycleError> {
    let mut warnings = Warnings::default();
    let key = identity::import_key(id, resource.identity_schema()).map_err(|err| LifecycleError::Invalid {
        subject: resource.subject().clone(),
        message: format!("cannot import {} by identity: {err}", resource.tf_name()),
    })?;
    let imported = match &key {
        ImportKey::Id(id) => warnings.kept(resource.import_resource_state(id, None).await)?,
        // Terraform sends the identity alone. The bridge also sends the identity's own
        // `id`, when it has one, as the ID: Pulumi resources are known by ID, and
        // providers whose ImportState only passes the ID through (tfcoremock, and
        // Terraform 1.14 with it, crash on an identity alone) then import the same object.
        ImportKey::Identity { identity, id } => {
            warnings.kept(resource.import_resource_state(id.as_deref().unwrap_or(""), Some(identity)).await)?
        }
    };
    let Some(read) = warnings.kept(resource.read_resource(imported.stored(), &[]).await)? else {
        tracing::debug!(resource = resource.tf_name(), id, "the object to import does not exist");
        return Ok(Written {
            id: String::new(),
            outputs: PropertyMap::new(),
            inputs: None,
            warnings: warnings.into_vec(),
        });
    };
    let identity = read.identity.or(imported.identity);
    let outputs =
        pulumi_outputs(resource, &read.state, &[], &new_meta(resource, None, read.private, identity.as_ref())?)?;
    let fallback_id = match &key {
        ImportKey::Id(id) => id.clone(),
        ImportKey::Identity { id, .. } => id.clone().unwrap_or_else(|| MISSING_ID.to_owned()),
    };
    let new_id = state::resource_id(resource.props(), &read.state).unwrap_or(fallback_id);
    // The provider's own configuration when it writes one (GenerateResourceConfig, as
    // `terraform plan -generate-config-out` uses it); else the Go implementation's
    // derivation, so imports stay identical with either implementation.
    let inputs = match warnings.kept(resource.generate_resource_config(&read.state).await)? {
        Some(config) => {
            let generated = pulumi_outputs(resource, &config, &[], &Meta::default())?;
            inputs_from_outputs(&resource.schema().block, &resource.props().names, &generated)
        }
        None => inputs_from_outputs(&resource.schema().block, &resource.props().names, &outputs),
    };
    Ok(Written { id: new_id, outputs, inputs: Some(inputs), warnings: warnings.into_vec() })
}
