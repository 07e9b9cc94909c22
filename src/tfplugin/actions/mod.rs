//! Actions and generated configuration (protocol 5.10/6.10, Terraform 1.14):
//! ValidateActionConfig, PlanAction, InvokeAction (a server stream of [`ActionEvent`]s,
//! handed out as [`ActionEvents`]) and GenerateResourceConfig. Their protocol-neutral
//! types are here; `wire` converts them for both protocols.

use tokio_stream::StreamExt as _;

use super::Rpc;
use super::core_rpcs::{DeferredReason, Diagnostic, DynamicValue};
use super::error::CallError;

pub(super) mod wire;

/// PlanAction's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanActionResponse {
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
}

/// One event of InvokeAction's stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ActionEvent {
    /// A progress message, to show while the action runs.
    Progress(String),
    /// The action finished; error diagnostics mean it failed.
    Completed(Vec<Diagnostic>),
}

/// GenerateResourceConfig's answer: the configuration that would manage a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenerateResourceConfigResponse {
    pub config: DynamicValue,
    pub diagnostics: Vec<Diagnostic>,
}

/// InvokeAction's stream as a protocol's client hands it over: each item an event (`None`
/// for one of a type the client does not know) or the status the stream broke with.
pub(super) type ActionStream =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<Option<ActionEvent>, tonic::Status>> + Send>>;

/// The events of one InvokeAction, in the order the provider sent them.
pub struct ActionEvents {
    provider: String,
    stream: ActionStream,
}

impl ActionEvents {
    pub(super) fn new(provider: String, stream: ActionStream) -> ActionEvents {
        ActionEvents { provider, stream }
    }

    /// The next event; `Ok(None)` once the provider closed the stream. A broken stream is
    /// a [`CallError`] naming InvokeAction. Events of a type this client does not know are
    /// skipped (Terraform would crash on them; a newer provider should not fail the action).
    pub async fn next(&mut self) -> Result<Option<ActionEvent>, CallError> {
        loop {
            match self.stream.next().await.transpose() {
                Ok(None) => return Ok(None),
                Ok(Some(Some(event))) => return Ok(Some(event)),
                Ok(Some(None)) => {
                    tracing::debug!(provider = %self.provider, "skipping an {} event of unknown type", Rpc::InvokeAction)
                }
                Err(status) => {
                    return Err(CallError::Rpc {
                        rpc: Rpc::InvokeAction.v6_name(),
                        provider: self.provider.clone(),
                        code: status.code(),
                        message: status.message().to_owned(),
                        exit: None,
                    });
                }
            }
        }
    }
}
