//! The resource operations of a [`Session`]: each resolves the resource type, brings what
//! the process remembers for it (write-only values Check held back, the plan Diff made),
//! and runs the operation on its [`crate::lifecycle::Resource`] handle.

use super::Session;
use crate::lifecycle::error::LifecycleError;
use crate::lifecycle::resource::{Checked, Diffed, Written};

pub use crate::lifecycle::resource::{
    CheckRequest, CreateRequest, DeleteRequest, DiffRequest, ReadRequest, UpdateRequest,
};

impl Session {
    /// Check: the inputs to record, without the write-only values (held here for the
    /// Diff, Create and Update that follow), and failures for ephemeral values passed
    /// where they would be stored.
    pub async fn check(&self, request: CheckRequest) -> Result<Checked, LifecycleError> {
        let resource = self.connection.resource(&request.target.token, &request.target.urn)?;
        let mut checked = resource.check(&request, &self.generated_names).await?;
        checked.failures.extend(resource.ephemeral_values_misplaced(&request.news, &self.ephemerals));
        resource.hold_write_only(&mut checked.inputs, &self.write_only);
        Ok(checked)
    }

    /// Diff, keeping the plan for the Update that follows.
    pub async fn diff(&self, mut request: DiffRequest) -> Result<Diffed, LifecycleError> {
        let resource = self.connection.resource(&request.target.token, &request.target.urn)?;
        request.news = resource.with_write_only(&request.news, &self.write_only);
        resource.diff(&request, &self.plans, &self.generated_names).await
    }

    /// Create. A partial failure's inputs go to the state: without the write-only values.
    pub async fn create(&self, mut request: CreateRequest) -> Result<Written, LifecycleError> {
        let resource = self.connection.resource(&request.target.token, &request.target.urn)?;
        request.news = resource.with_write_only(&request.news, &self.write_only);
        resource.create(&request).await.map_err(|err| resource.without_write_only_in(err))
    }

    /// Update, checked against the plan Diff made. Like Create, a partial failure keeps no
    /// write-only value.
    pub async fn update(&self, mut request: UpdateRequest) -> Result<Written, LifecycleError> {
        let resource = self.connection.resource(&request.target.token, &request.target.urn)?;
        request.news = resource.with_write_only(&request.news, &self.write_only);
        resource.update(&request, &self.plans).await.map_err(|err| resource.without_write_only_in(err))
    }

    /// Delete.
    pub async fn delete(&self, request: DeleteRequest) -> Result<Vec<String>, LifecycleError> {
        self.connection.resource(&request.target.token, &request.target.urn)?.delete(&request).await
    }

    /// Read: a refresh, or an import.
    pub async fn read(&self, request: ReadRequest) -> Result<Written, LifecycleError> {
        self.connection.resource(&request.target.token, &request.target.urn)?.read_resource(&request).await
    }
}
