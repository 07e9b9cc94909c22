//! Invoke of a Terraform action: the engine says whether the Invoke is part of a preview
//! (`InvokeRequest.preview`, meaningful only when its Handshake declared
//! `invoke_with_preview`), which decides between planning and running the action. A running
//! action's progress messages become engine status lines (`Engine.Log` with `ephemeral`)
//! against the resource its `urn` argument names, in order, before the Invoke answers; its
//! warnings are warnings against the same resource.
//!
//! Architecture invariant: translation only; the action itself is run by `lifecycle`.

use tfbridge_proto::pulumirpc;
use tonic::Status;

use super::Provider;
use super::resources::{failures, properties, status};
use crate::lifecycle::ActionMode;
use crate::property::structpb::encode_struct;

impl Provider {
    pub(super) async fn do_invoke_action(
        &self,
        request: pulumirpc::InvokeRequest,
    ) -> Result<pulumirpc::InvokeResponse, Status> {
        let provider = self.parameterized().await?;
        let tf_name = provider.action_name(&request.tok).unwrap_or_default().to_owned();
        let invoke_with_preview =
            self.engine_info.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).invoke_with_preview;
        if !invoke_with_preview {
            // Without it `preview` is always false, and an action would run during a preview.
            return Err(Status::failed_precondition(format!(
                "cannot invoke action {tf_name:?} ({}) without preview information from the engine; ensure you are \
                 using a recent version of the Pulumi CLI",
                request.tok
            )));
        }
        let mode = if request.preview { ActionMode::Plan } else { ActionMode::Invoke };
        let args = properties(request.args.as_ref(), "args")?;

        // Progress arrives synchronously from the stream; a task sends it to the engine in
        // order, and is awaited so that every line is shown before the Invoke answers.
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<(Option<String>, String)>();
        let engine_log = self.engine_log.clone();
        let forwarder = tokio::spawn(async move {
            while let Some((urn, message)) = receiver.recv().await {
                engine_log.status(urn.as_deref(), message).await;
            }
        });
        let progress = move |urn: Option<&str>, message: &str| {
            // The receiver lives until the sender is dropped below, so this cannot fail.
            let _ = sender.send((urn.map(str::to_owned), message.to_owned()));
        };
        let result = tokio::select! {
            result = provider.run_action(&request.tok, &args, mode, &progress) => result,
            () = self.cancel.cancelled() => {
                drop(progress);
                let _ = forwarder.await;
                return Err(Status::cancelled(format!(
                    "the action {tf_name:?} ({}) was cancelled by the Pulumi engine; it may have run in part",
                    request.tok
                )));
            }
        };
        drop(progress);
        let _ = forwarder.await;
        let run = result.map_err(status)?;
        for warning in &run.warnings {
            self.engine_log
                .log(super::Severity::Warning, run.urn.as_deref(), format!("{}: {warning}", request.tok))
                .await;
        }
        Ok(pulumirpc::InvokeResponse {
            r#return: Some(encode_struct(&crate::property::PropertyMap::new())),
            failures: failures(run.failures),
        })
    }
}
