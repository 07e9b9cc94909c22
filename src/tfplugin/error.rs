//! The errors of launching a provider, of calling it, and of reading the schema it sends.

use std::path::PathBuf;
use std::time::Duration;

use super::handshake::HandshakeError;
use super::tls::TlsSetupError;

/// Why a provider could not be started and connected to.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// `PLUGIN_MIN_PORT` or `PLUGIN_MAX_PORT` is set to something that is no port range.
    #[error("{0}")]
    PortRange(String),
    /// Nothing exists at the executable path.
    #[error("provider executable {path} does not exist")]
    ExecutableNotFound { path: PathBuf },
    /// The path exists but cannot be run (a directory, no execute permission, a binary of
    /// another system).
    #[error("provider executable {path} is not executable: {reason}")]
    NotExecutable { path: PathBuf, reason: String },
    /// The operating system refused to start the process.
    #[error("could not start provider {path}: {source}")]
    Spawn { path: PathBuf, source: std::io::Error },
    /// The process closed stdout or exited before printing its handshake line.
    #[error("provider {path} exited before the plugin handshake ({status}){}", stderr_tail(.stderr))]
    ExitedBeforeHandshake { path: PathBuf, status: String, stderr: Vec<String> },
    /// No handshake line within the start timeout.
    #[error("provider {path} printed no plugin handshake within {timeout:?}{}", stderr_tail(.stderr))]
    HandshakeTimeout { path: PathBuf, timeout: Duration, stderr: Vec<String> },
    /// The first stdout line is not a go-plugin handshake the bridge can use.
    #[error("provider {path} printed an invalid plugin handshake {line:?}: {source}{}", stderr_tail(.stderr))]
    InvalidHandshake { path: PathBuf, line: String, source: HandshakeError, stderr: Vec<String> },
    /// The client certificate or TLS configuration could not be made.
    #[error("could not set up TLS for provider {provider}: {source}")]
    Tls { provider: String, source: TlsSetupError },
    /// The provider's gRPC server could not be reached (including a refused certificate).
    #[error("could not connect to provider {provider} at {address}: {message}{}", stderr_tail(.stderr))]
    Connect { provider: String, address: String, message: String, stderr: Vec<String> },
}

/// How a provider process ended, for errors of calls that died with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessExit {
    /// The exit status as the operating system reports it (`exit status: 2`, `signal: 9`).
    pub status: String,
    /// The Go panic or fatal error text the provider printed, if any.
    pub panic_text: Option<String>,
    /// The last lines of its stderr.
    pub recent_stderr: Vec<String>,
}

/// Why a provider RPC failed. Provider diagnostics are not errors: they are returned as data.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The call failed at the gRPC level: the provider returned an error status, the
    /// connection broke, or the process died (then `exit` says how, with any panic text).
    #[error("{rpc} failed for provider {provider}: {message} (gRPC {code:?}){}", exit_note(.exit))]
    Rpc { rpc: &'static str, provider: String, code: tonic::Code, message: String, exit: Option<Box<ProcessExit>> },
    /// The provider answered with a schema or type the bridge cannot read.
    #[error("{rpc} of provider {provider} returned an invalid schema at {source}")]
    InvalidResponse { rpc: &'static str, provider: String, source: SchemaError },
    /// The provider was launched in the background (a warm start answered from the schema
    /// cache) and did not start; `message` is the error a cold start would have shown.
    #[error("the provider {provider} did not start: {message}")]
    NotStarted { provider: String, message: String },
}

impl CallError {
    /// How the process ended, when the call died with it.
    pub fn process_exit(&self) -> Option<&ProcessExit> {
        match self {
            CallError::Rpc { exit, .. } => exit.as_deref(),
            CallError::InvalidResponse { .. } | CallError::NotStarted { .. } => None,
        }
    }
}

/// What a per-protocol client returns before the RPC name and process state are attached.
#[derive(Debug)]
pub(crate) enum RpcFailure {
    Status(tonic::Status),
    InvalidResponse(SchemaError),
}

/// A failed call's span records the provider's status code; an answer we could not read has
/// none.
impl crate::telemetry::SpanError for RpcFailure {
    fn grpc_code(&self) -> Option<tonic::Code> {
        match self {
            RpcFailure::Status(status) => Some(status.code()),
            RpcFailure::InvalidResponse(_) => None,
        }
    }
}

impl From<tonic::Status> for RpcFailure {
    fn from(status: tonic::Status) -> RpcFailure {
        RpcFailure::Status(status)
    }
}

impl From<SchemaError> for RpcFailure {
    fn from(err: SchemaError) -> RpcFailure {
        RpcFailure::InvalidResponse(err)
    }
}

fn stderr_tail(lines: &[String]) -> String {
    if lines.is_empty() {
        return "; it wrote nothing to stderr".to_owned();
    }
    let mut text = "; its last stderr lines:".to_owned();
    for line in lines {
        text.push_str("\n  ");
        text.push_str(line);
    }
    text
}

fn exit_note(exit: &Option<Box<ProcessExit>>) -> String {
    let Some(exit) = exit else { return String::new() };
    match &exit.panic_text {
        Some(panic_text) => {
            format!("; the provider process exited ({}) after a panic:\n{}", exit.status, panic_text.trim_end())
        }
        None => format!("; the provider process exited ({}){}", exit.status, stderr_tail(&exit.recent_stderr)),
    }
}

/// Why a schema from a provider could not be read. `location` names the resource, data
/// source, function or attribute.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{location}: {reason}")]
pub struct SchemaError {
    pub location: String,
    pub reason: String,
}

impl SchemaError {
    pub(in crate::tfplugin) fn new(location: &str, reason: impl std::fmt::Display) -> SchemaError {
        SchemaError { location: location.to_owned(), reason: reason.to_string() }
    }
}
