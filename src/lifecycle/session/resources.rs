//! The resource operations of a [`Session`]: each resolves the resource type, brings what
//! the process remembers for it (write-only values Check held back, the plan Diff made),
//! and runs the operation on its [`crate::lifecycle::Resource`] handle.

use super::Session;
use crate::lifecycle::operations::check::{self, CheckRequest};
use crate::lifecycle::operations::create::{self, CreateRequest};
use crate::lifecycle::operations::delete::{self, DeleteRequest};
use crate::lifecycle::operations::diff::{self, DiffRequest};
use crate::lifecycle::operations::interface::{Checked, Diffed, Written};
use crate::lifecycle::operations::read::{self, ReadRequest};
use crate::lifecycle::operations::update::{self, UpdateRequest};
use crate::lifecycle::operations::write_only;
use crate::lifecycle::support::error::LifecycleError;

impl Session {
    /// Check: the inputs to record, without the write-only values (held here for the
    /// Diff, Create and Update that follow), and failures for ephemeral values passed
    /// where they would be stored.
    pub async fn check(&self, request: CheckRequest) -> Result<Checked, LifecycleError> {
        let resource = self.connection.resource(&request.target.token, &request.target.urn)?;
        let mut checked = check::check(&resource, &request, &self.generated_names).await?;
        checked.failures.extend(write_only::ephemeral_values_misplaced(&resource, &request.news, &self.ephemerals));
        write_only::hold_write_only(&resource, &mut checked.inputs, &self.write_only);
        Ok(checked)
    }

    /// Diff, keeping the plan for the Update that follows.
    pub async fn diff(&self, mut request: DiffRequest) -> Result<Diffed, LifecycleError> {
        let resource = self.connection.resource(&request.target.token, &request.target.urn)?;
        request.news = write_only::with_write_only(&resource, &request.news, &self.write_only);
        diff::diff(&resource, &request, &self.plans, &self.generated_names).await
    }

    /// Create. A partial failure's inputs go to the state: without the write-only values.
    pub async fn create(&self, mut request: CreateRequest) -> Result<Written, LifecycleError> {
        let resource = self.connection.resource(&request.target.token, &request.target.urn)?;
        request.news = write_only::with_write_only(&resource, &request.news, &self.write_only);
        create::create(&resource, &request).await.map_err(|err| write_only::without_write_only_in(&resource, err))
    }

    /// Update, checked against the plan Diff made. Like Create, a partial failure keeps no
    /// write-only value.
    pub async fn update(&self, mut request: UpdateRequest) -> Result<Written, LifecycleError> {
        let resource = self.connection.resource(&request.target.token, &request.target.urn)?;
        request.news = write_only::with_write_only(&resource, &request.news, &self.write_only);
        update::update(&resource, &request, &self.plans)
            .await
            .map_err(|err| write_only::without_write_only_in(&resource, err))
    }

    /// Delete.
    pub async fn delete(&self, request: DeleteRequest) -> Result<Vec<String>, LifecycleError> {
        let resource = self.connection.resource(&request.target.token, &request.target.urn)?;
        delete::delete(&resource, &request).await
    }

    /// Read: a refresh, or an import.
    pub async fn read(&self, request: ReadRequest) -> Result<Written, LifecycleError> {
        let resource = self.connection.resource(&request.target.token, &request.target.urn)?;
        read::read(&resource, &request).await
    }
}
