//! Create: a plan from a null prior state and, unless previewing, its apply.

use super::interface::{Deadline, Target, Written};
use super::plan_and_apply::{Write, plan_and_apply};
use crate::lifecycle::calls::{Resource, Warnings};
use crate::lifecycle::support::error::LifecycleError;
use crate::property::PropertyMap;

/// Create of one resource.
#[derive(Clone, Debug, Default)]
pub struct CreateRequest {
    pub target: Target,
    pub news: PropertyMap,
    pub preview: bool,
    pub deadline: Deadline,
}

/// Create: plan from a null prior; unless previewing, apply.
pub(crate) async fn create(resource: &Resource<'_>, request: &CreateRequest) -> Result<Written, LifecycleError> {
    let CreateRequest { news, preview, deadline, .. } = request;
    let write =
        Write { id: "", prior: None, read: false, stored_secrets: Vec::new(), news, preview: *preview, deadline };
    plan_and_apply(resource, write, Warnings::default(), None).await
}
