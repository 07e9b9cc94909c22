//! Update: the prior state upgraded (and read again when a failed apply left it), a plan
//! checked against the one Diff made, as Terraform checks its final plan, and unless
//! previewing, its apply.

use super::plan_and_apply::{Write, plan_and_apply};

use super::interface::{Deadline, Target, Written};
use super::memory::PlanCache;
use super::prior::{Source, prior};
use crate::lifecycle::calls::{Resource, Warnings};
use crate::lifecycle::support::error::LifecycleError;
use crate::property::PropertyMap;

/// Update of one resource.
#[derive(Clone, Debug, Default)]
pub struct UpdateRequest {
    pub target: Target,
    pub id: String,
    pub olds: PropertyMap,
    pub news: PropertyMap,
    pub preview: bool,
    pub deadline: Deadline,
}

/// Update: upgrade the prior state, plan again (checking the plan against the one Diff
/// made, as Terraform checks its final plan), and unless previewing, apply.
pub(crate) async fn update(
    resource: &Resource<'_>,
    request: &UpdateRequest,
    cache: &PlanCache,
) -> Result<Written, LifecycleError> {
    let UpdateRequest { id, olds, news, preview, deadline, .. } = request;
    let mut warnings = Warnings::default();
    let stored_secrets = resource.stored_secrets(olds);
    let (state, meta, source) = prior(resource, id, olds, &stored_secrets, &mut warnings).await?;
    // A gone object is planned from the stored state; reading it again finds nothing more.
    let read = source != Source::Stored;
    let write = Write { id, prior: Some((state, meta)), read, stored_secrets, news, preview: *preview, deadline };
    plan_and_apply(resource, write, warnings, Some(cache)).await
}
