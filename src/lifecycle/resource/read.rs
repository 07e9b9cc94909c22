//! Read: a refresh (`ReadResource`), or an import (`ImportResourceState`, then
//! `ReadResource`) by ID or by identity.

use super::{ReadRequest, Written};
use crate::convert::values::{self as convert, UnknownKeys};
use crate::cty;
use crate::lifecycle::calls::{Resource, Stored, Warnings};
use crate::lifecycle::error::LifecycleError;
use crate::lifecycle::identity::{self, ImportKey};
use crate::lifecycle::inputs::{inputs_from_outputs, refreshed_inputs};
use crate::lifecycle::state::{self, MISSING_ID, Meta};
use crate::property::PropertyMap;

impl Resource<'_> {
    /// Read: a refresh when outputs are given, else an import of `id`.
    pub async fn read_resource(&self, request: &ReadRequest) -> Result<Written, LifecycleError> {
        match &request.outputs {
            Some(outputs) if !outputs.is_empty() => self.refresh(&request.id, outputs, request.inputs.as_ref()).await,
            _ => self.import_resource(&request.id).await,
        }
    }

    async fn refresh(
        &self,
        id: &str,
        olds: &PropertyMap,
        old_inputs: Option<&PropertyMap>,
    ) -> Result<Written, LifecycleError> {
        let mut warnings = Warnings::default();
        let stored_secrets = self.stored_secrets(olds);
        let (prior, meta) = warnings.keep(self.upgrade(id, olds, &stored_secrets).await?);
        let current_identity = self.stored_identity(&meta)?;
        let stored = Stored { state: &prior, private: &meta.private, identity: current_identity.as_ref() };
        let read = self.read(stored, &stored_secrets).await?;
        let Some(read) = warnings.keep(read) else {
            let warnings = warnings.into_vec();
            return Ok(Written { id: String::new(), outputs: PropertyMap::new(), inputs: None, warnings });
        };
        // Values that were secret stay secret: the old outputs and inputs say which.
        let mut secrets = secret_paths(self, olds);
        if let Some(old_inputs) = old_inputs {
            secrets.extend(secret_paths(self, old_inputs));
        }
        // A provider that sends no identity keeps the stored one, as Terraform keeps it.
        let identity = read.identity.or(current_identity);
        let outputs = self.outputs(&read.state, &secrets, &self.meta(Some(&meta), read.private, identity.as_ref())?)?;
        let new_id = state::resource_id(&self.props, &read.state).unwrap_or_else(|| id.to_owned());
        let inputs = old_inputs.map(|old| refreshed_inputs(&self.schema.block, &self.props.names, old, &outputs));
        Ok(Written { id: new_id, outputs, inputs, warnings: warnings.into_vec() })
    }

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
    async fn import_resource(&self, id: &str) -> Result<Written, LifecycleError> {
        let mut warnings = Warnings::default();
        let key = identity::import_key(id, self.identity_schema).map_err(|err| LifecycleError::Invalid {
            subject: self.subject().clone(),
            message: format!("cannot import {} by identity: {err}", self.tf_name),
        })?;
        let imported = match &key {
            ImportKey::Id(id) => warnings.keep(self.import(id, None).await?),
            // Terraform sends the identity alone. The bridge also sends the identity's own
            // `id`, when it has one, as the ID: Pulumi resources are known by ID, and
            // providers whose ImportState only passes the ID through (tfcoremock, and
            // Terraform 1.14 with it, crash on an identity alone) then import the same object.
            ImportKey::Identity { identity, id } => {
                warnings.keep(self.import(id.as_deref().unwrap_or(""), Some(identity)).await?)
            }
        };
        let Some(read) = warnings.keep(self.read(imported.stored(), &[]).await?) else {
            tracing::debug!(resource = self.tf_name, id, "the object to import does not exist");
            return Ok(Written {
                id: String::new(),
                outputs: PropertyMap::new(),
                inputs: None,
                warnings: warnings.into_vec(),
            });
        };
        let identity = read.identity.or(imported.identity);
        let outputs = self.outputs(&read.state, &[], &self.meta(None, read.private, identity.as_ref())?)?;
        let fallback_id = match &key {
            ImportKey::Id(id) => id.clone(),
            ImportKey::Identity { id, .. } => id.clone().unwrap_or_else(|| MISSING_ID.to_owned()),
        };
        let new_id = state::resource_id(&self.props, &read.state).unwrap_or(fallback_id);
        // The provider's own configuration when it writes one (GenerateResourceConfig, as
        // `terraform plan -generate-config-out` uses it); else the Go implementation's
        // derivation, so imports stay identical with either implementation.
        let inputs = match warnings.keep(self.generate_config(&read.state).await?) {
            Some(config) => {
                let generated = self.outputs(&config, &[], &Meta::default())?;
                inputs_from_outputs(&self.schema.block, &self.props.names, &generated)
            }
            None => inputs_from_outputs(&self.schema.block, &self.props.names, &outputs),
        };
        Ok(Written { id: new_id, outputs, inputs: Some(inputs), warnings: warnings.into_vec() })
    }
}

/// The Terraform paths of the secret values in stored properties.
fn secret_paths(resource: &Resource<'_>, props: &PropertyMap) -> Vec<cty::Path> {
    convert::to_cty(&resource.schema.block, &resource.props.names, props, UnknownKeys::Ignore)
        .map(|(_, secrets)| secrets)
        .unwrap_or_default()
}
