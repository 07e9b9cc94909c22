//! The function-like operations of a [`Session`]: Invoke, which a token sends to a data
//! source, a provider function, an ephemeral resource (kept open by this session until
//! [`Session::close_ephemerals`]) or a Terraform action; and List, whose unfinished
//! listings wait here for their next page.

use tokio_util::sync::CancellationToken;

use super::Session;
use crate::lifecycle::calls::TokenKind;
use crate::lifecycle::operations::action::{self, ActionMode};
use crate::lifecycle::operations::ephemeral::{self, Closed};
use crate::lifecycle::operations::invoke::{self, Invoked};
use crate::lifecycle::operations::list::{self, ListPage, ListQuery};
use crate::lifecycle::support::error::LifecycleError;
use crate::property::PropertyMap;

/// Where a running action's progress goes: `(urn, message)` for every event, in order.
pub type Progress = Box<dyn Fn(Option<&str>, &str) + Send + Sync>;

/// One Invoke.
pub struct InvokeRequest {
    pub token: String,
    pub args: PropertyMap,
    /// Whether the Invoke is part of a preview; `None` when the engine does not say (its
    /// Handshake did not declare `invoke_with_preview`). Only actions need it.
    pub preview: Option<bool>,
    /// A running action's progress.
    pub progress: Progress,
    /// The engine's Cancel: a running action stops waiting on it.
    pub cancel: CancellationToken,
}

impl Session {
    /// Invoke: the data source, function, ephemeral resource or action behind the token.
    pub async fn invoke(&self, request: InvokeRequest) -> Result<Invoked, LifecycleError> {
        let InvokeRequest { token, args, preview, progress, cancel } = request;
        let connection = &self.connection;
        match connection.lookup_token(&token) {
            Some((TokenKind::Action, tf_name)) => {
                // Without the engine's word, `preview` is always false and an action would
                // run during a preview.
                let Some(preview) = preview else {
                    return Err(LifecycleError::EngineUnsupported(format!(
                        "cannot invoke action {tf_name:?} ({token}) without preview information from the engine; \
                         ensure you are using a recent version of the Pulumi CLI"
                    )));
                };
                let mode = if preview { ActionMode::Plan } else { ActionMode::Invoke };
                tokio::select! {
                    run = action::run_action(connection, &token, &args, mode, &*progress) => run,
                    () = cancel.cancelled() => Err(LifecycleError::Cancelled(format!(
                        "the action {tf_name:?} ({token}) was cancelled by the Pulumi engine; it may have run in part"
                    ))),
                }
            }
            Some((TokenKind::DataSource, tf_name)) => {
                invoke::invoke_data_source(connection, &token, tf_name, &args).await
            }
            Some((TokenKind::Function, tf_name)) => {
                invoke::call_provider_function(connection, &token, tf_name, &args).await
            }
            Some((TokenKind::EphemeralResource, tf_name)) => {
                let tf_name = tf_name.to_owned();
                ephemeral::open_ephemeral(connection, &self.ephemerals, &token, &tf_name, &args).await
            }
            _ => Err(LifecycleError::UnknownToken {
                kind: "data source, function or ephemeral resource",
                token,
                package: connection.package_name().to_owned(),
            }),
        }
    }

    /// Closes every open ephemeral resource, each exactly once (see `lifecycle/operations/ephemeral.rs`).
    pub async fn close_ephemerals(&self) -> Closed {
        ephemeral::close_ephemerals(&self.connection, &self.ephemerals).await
    }

    /// List: one page of the resources a Terraform list resource finds.
    pub async fn list(&self, query: ListQuery) -> ListPage {
        list::list(&self.connection, &self.lists, &query).await
    }
}
