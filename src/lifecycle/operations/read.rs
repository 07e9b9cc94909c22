//! Read: a refresh (`ReadResource`) when the engine sends outputs, else an import
//! (`import.rs`).

use super::import::import;
use super::interface::{Target, Written};
use super::prior::unread_tainted;
use super::values::{new_meta, pulumi_outputs};
use crate::convert::values::{self as convert, UnknownKeys};
use crate::cty;
use crate::lifecycle::calls::{Resource, Stored, Warnings};
use crate::lifecycle::support::error::LifecycleError;
use crate::lifecycle::support::inputs::refreshed_inputs;
use crate::lifecycle::support::state::{self};
use crate::property::PropertyMap;

/// Read of one resource: a refresh when `outputs` are given, else an import of `id`.
#[derive(Clone, Debug, Default)]
pub struct ReadRequest {
    pub target: Target,
    pub id: String,
    pub outputs: Option<PropertyMap>,
    pub inputs: Option<PropertyMap>,
}

/// Read: a refresh when outputs are given, else an import of `id`.
pub(crate) async fn read(resource: &Resource<'_>, request: &ReadRequest) -> Result<Written, LifecycleError> {
    match &request.outputs {
        Some(outputs) if !outputs.is_empty() => refresh(resource, &request.id, outputs, request.inputs.as_ref()).await,
        _ => import(resource, &request.id).await,
    }
}

async fn refresh(
    resource: &Resource<'_>,
    id: &str,
    olds: &PropertyMap,
    old_inputs: Option<&PropertyMap>,
) -> Result<Written, LifecycleError> {
    let mut warnings = Warnings::default();
    let stored_secrets = resource.stored_secrets(olds);
    let (prior, meta) = warnings.kept(resource.upgrade_resource_state(id, olds, &stored_secrets).await)?;
    let current_identity = resource.stored_identity(&meta)?;
    let stored = Stored { state: &prior, private: &meta.private, identity: current_identity.as_ref() };
    let read = match resource.read_resource(stored, &stored_secrets).await {
        Ok(read) => read,
        Err(error) if meta.tainted => {
            // As Diff and Delete do (`prior.rs: prior`).
            unread_tainted(&mut warnings, error);
            let inputs = old_inputs.cloned();
            return Ok(Written { id: id.to_owned(), outputs: olds.clone(), inputs, warnings: warnings.into_vec() });
        }
        Err(error) => return Err(warnings.fail(error)),
    };
    let Some(read) = warnings.keep(read) else {
        let warnings = warnings.into_vec();
        return Ok(Written { id: String::new(), outputs: PropertyMap::new(), inputs: None, warnings });
    };
    // Values that were secret stay secret: the old outputs and inputs say which.
    let mut secrets = secret_paths(resource, olds);
    if let Some(old_inputs) = old_inputs {
        secrets.extend(secret_paths(resource, old_inputs));
    }
    // A provider that sends no identity keeps the stored one, as Terraform keeps it.
    let identity = read.identity.or(current_identity);
    let outputs = pulumi_outputs(
        resource,
        &read.state,
        &secrets,
        &new_meta(resource, Some(&meta), read.private, identity.as_ref())?,
    )?;
    let new_id = state::resource_id(resource.props(), &read.state).unwrap_or_else(|| id.to_owned());
    // Without old inputs (state given, inputs not: a read by id and state) there are none
    // to refresh: empty inputs, as the Go implementation answers (its TestPrimitiveTypes
    // read golden), so the engine records the same either way.
    let inputs = match old_inputs {
        Some(old) => refreshed_inputs(&resource.schema().block, &resource.props().names, old, &outputs),
        None => PropertyMap::new(),
    };
    Ok(Written { id: new_id, outputs, inputs: Some(inputs), warnings: warnings.into_vec() })
}

/// The Terraform paths of the secret values in stored properties.
fn secret_paths(resource: &Resource<'_>, props: &PropertyMap) -> Vec<cty::Path> {
    convert::to_cty(&resource.schema().block, &resource.props().names, props, UnknownKeys::Ignore)
        .map(|(_, secrets)| secrets)
        .unwrap_or_default()
}
