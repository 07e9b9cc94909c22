//! A running Terraform action's progress, as engine status lines: each message becomes an
//! `Engine.Log` with `ephemeral` against the resource the action's `urn` argument names, in
//! order, before the Invoke answers. (Which Invoke plans and which runs an action is decided
//! in `lifecycle`, from the engine's preview flag the server passes on.)
//!
//! Architecture invariant: translation only.

use tokio::task::JoinHandle;

use super::Provider;
use crate::lifecycle::Progress;

impl Provider {
    /// A progress callback for an Invoke, and the task that forwards what it gets to the
    /// engine. The task ends once the callback is dropped; await it before answering.
    pub(super) fn progress_forwarder(&self) -> (Progress, JoinHandle<()>) {
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<(Option<String>, String)>();
        let engine_log = self.engine_log.clone();
        let forwarder = tokio::spawn(async move {
            while let Some((urn, message)) = receiver.recv().await {
                engine_log.status(urn.as_deref(), message).await;
            }
        });
        let progress: Progress = Box::new(move |urn: Option<&str>, message: &str| {
            // The receiver lives until this sender is dropped, so this cannot fail.
            let _ = sender.send((urn.map(str::to_owned), message.to_owned()));
        });
        (progress, forwarder)
    }
}
