//! Delete: the upgraded prior state, a destroy plan when the provider asks for one
//! (`plan_destroy`), and an apply with a null plan and configuration.

use super::interface::{Deadline, Target};
use super::prior::{Source, prior};
use crate::cty::Value;
use crate::lifecycle::calls::{Apply, Planned, Resource, Stored, Warnings};
use crate::lifecycle::support::error::{Change, LifecycleError};
use crate::property::PropertyMap;

/// Delete of one resource.
#[derive(Clone, Debug, Default)]
pub struct DeleteRequest {
    pub target: Target,
    pub id: String,
    pub olds: PropertyMap,
    pub deadline: Deadline,
}

/// Delete: the upgraded prior state, a destroy plan when the provider wants one, and an
/// apply with null planned state and null configuration.
pub(crate) async fn delete(resource: &Resource<'_>, request: &DeleteRequest) -> Result<Vec<String>, LifecycleError> {
    let DeleteRequest { id, olds, deadline, .. } = request;
    let mut warnings = Warnings::default();
    let secrets = resource.stored_secrets(olds);
    let (prior, meta, source) = prior(resource, id, olds, &secrets, &mut warnings).await?;
    if source == Source::Gone {
        // What a failed apply left is gone already: as Terraform's refresh drops it, there
        // is nothing to destroy, and a provider asked to may fail on the missing object.
        return Ok(warnings.into_vec());
    }
    let null = Value::null(resource.ty().clone());
    let prior_identity = resource.stored_identity(&meta)?;
    let private = if resource.connection().capabilities().plan_destroy {
        let stored = Stored { state: &prior, private: &meta.private, identity: prior_identity.as_ref() };
        warnings.kept(resource.plan_destroy(stored, &secrets).await)?
    } else {
        meta.private
    };
    // Terraform sends no planned identity with a destroy: the plan is null.
    let planned = Planned::destroy(null.clone(), private);
    let destroy = Apply {
        prior: &prior,
        planned: &planned,
        config: &null,
        secrets: &secrets,
        limit: deadline.limit(),
        cancel: &deadline.cancel,
    };
    let applied = warnings.kept(resource.apply_resource_change(destroy).await)?;
    if applied.failed() {
        let mut reasons = applied.errors;
        reasons.extend(applied.unknown);
        let error =
            LifecycleError::ApplyFailed { subject: resource.subject().clone(), change: Change::Delete, reasons };
        return Err(warnings.fail(error));
    }
    Ok(warnings.into_vec())
}
