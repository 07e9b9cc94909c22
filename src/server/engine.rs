//! The way back to the user: the Pulumi engine's `Engine.Log` service.
//!
//! The engine shows a provider's stdout and stderr only at debug verbosity, so anything a
//! user should see (warnings, progress of long work) must be sent through `Engine.Log`.
//! Everything else goes to stderr through `tracing`.
//!
//! Architecture invariant: logging is best effort. A failure to reach the engine is traced
//! and never fails the operation that wanted to log.

use std::sync::{Arc, RwLock};

use tfbridge_proto::pulumirpc;
use tonic::transport::{Channel, Endpoint};

/// How loud a message is, in the engine's terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Debug,
    Info,
    Warning,
    Error,
}

impl From<Severity> for pulumirpc::LogSeverity {
    fn from(severity: Severity) -> Self {
        match severity {
            Severity::Debug => pulumirpc::LogSeverity::Debug,
            Severity::Info => pulumirpc::LogSeverity::Info,
            Severity::Warning => pulumirpc::LogSeverity::Warning,
            Severity::Error => pulumirpc::LogSeverity::Error,
        }
    }
}

/// A cheap, clonable handle to the engine's log service. Until an engine address is known
/// (attach mode before `Attach`), messages only go to the trace log.
#[derive(Clone, Default)]
pub struct EngineLog {
    client: Arc<RwLock<Option<pulumirpc::engine_client::EngineClient<Channel>>>>,
}

/// The engine address was not a usable `host:port`.
#[derive(Debug, thiserror::Error)]
#[error("invalid engine address {address:?}: {source}")]
pub struct InvalidEngineAddress {
    pub address: String,
    #[source]
    pub source: tonic::transport::Error,
}

impl EngineLog {
    /// Points the handle at the engine. The connection is made lazily on the first message,
    /// so a slow or absent engine never delays start-up.
    pub fn connect(&self, address: &str) -> Result<(), InvalidEngineAddress> {
        let endpoint = Endpoint::from_shared(format!("http://{address}"))
            .map_err(|source| InvalidEngineAddress { address: address.to_owned(), source })?;
        let client = pulumirpc::engine_client::EngineClient::new(endpoint.connect_lazy())
            .max_decoding_message_size(tfbridge_proto::MAX_MESSAGE_SIZE)
            .max_encoding_message_size(tfbridge_proto::MAX_MESSAGE_SIZE);
        *self.client.write().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(client);
        Ok(())
    }

    /// A diagnostic shown to the user, attached to `urn` when given.
    pub async fn log(&self, severity: Severity, urn: Option<&str>, message: impl Into<String>) {
        self.send(severity, urn, message.into(), false).await;
    }

    /// A transient status line (e.g. download progress), replaced by the next one.
    pub async fn status(&self, urn: Option<&str>, message: impl Into<String>) {
        self.send(Severity::Info, urn, message.into(), true).await;
    }

    async fn send(&self, severity: Severity, urn: Option<&str>, message: String, ephemeral: bool) {
        tracing::debug!(?severity, urn, ephemeral, "engine log: {message}");
        let client = self.client.read().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
        let Some(mut client) = client else {
            return;
        };
        let request = pulumirpc::LogRequest {
            severity: pulumirpc::LogSeverity::from(severity).into(),
            message,
            urn: urn.unwrap_or_default().to_owned(),
            stream_id: 0,
            ephemeral,
        };
        if let Err(status) = client.log(request).await {
            tracing::debug!("could not send a log message to the engine: {status}");
        }
    }
}
