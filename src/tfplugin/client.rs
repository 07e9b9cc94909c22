//! [`ProviderClient`]: the one interface the rest of the bridge uses to call a provider,
//! whatever protocol it speaks.
//!
//! It is one struct with an enum of the two generated clients inside, not a trait: the
//! two protocols are two encodings of one interface, chosen at run time by the handshake,
//! and nothing else implements it. Each method dispatches to `v5` or `v6`, which convert
//! to and from the domain types, then attaches the RPC's name (from [`Rpc`]) and,
//! when the process died, its exit status and panic text to any failure.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use tonic::Code;
use tonic::transport::Channel;

use super::actions::{ActionEvents, GenerateResourceConfigResponse, PlanActionResponse};
use super::core_rpcs::{
    ApplyResourceChangeRequest, ApplyResourceChangeResponse, CallFunctionResponse, Diagnostic, DynamicValue,
    GetFunctionsResponse, ImportResourceStateResponse, PlanResourceChangeRequest, PlanResourceChangeResponse,
    ProviderMetadata, ProviderSchemaResponse, ReadDataSourceRequest, ReadDataSourceResponse, ReadResourceRequest,
    ReadResourceResponse, Support, UpgradeResourceStateRequest, UpgradeResourceStateResponse,
    ValidateProviderConfigResponse,
};
use super::ephemeral::{OpenEphemeralResourceResponse, RenewEphemeralResourceResponse};
use super::error::{CallError, ProcessExit, RpcFailure};
use super::handshake::ProtocolVersion;
use super::identity_list::{
    IdentitySchemasResponse, ListResourceEvent, ListResourceRequest, UpgradeResourceIdentityRequest,
    UpgradeResourceIdentityResponse,
};
use super::output::ProviderOutput;
use super::process::OwnedProcess;
use super::rpc::Rpc;
use super::{v5, v6};
use crate::telemetry::{self, SpanName, SpanSubject};

/// The events of a ListResource stream, each an event or the status the stream broke with.
pub type ListEvents =
    std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<ListResourceEvent, tonic::Status>> + Send>>;

#[derive(Clone)]
enum ProtocolClient {
    V5(v5::Client),
    V6(v6::Client),
}

/// A connected provider. Owns the process when we launched it: dropping the client kills
/// the process; [`ProviderClient::shutdown`] stops it the polite way first.
///
/// Calls take `&self` and may run concurrently, as Terraform's do.
pub struct ProviderClient {
    provider: String,
    protocol: ProtocolVersion,
    uses_tls: bool,
    client: ProtocolClient,
    channel: Channel,
    process: Option<OwnedProcess>,
    output: Arc<ProviderOutput>,
}

impl std::fmt::Debug for ProviderClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderClient")
            .field("provider", &self.provider)
            .field("protocol", &self.protocol)
            .field("uses_tls", &self.uses_tls)
            .field("pid", &self.pid())
            .finish_non_exhaustive()
    }
}

/// Calls the same-named method on whichever protocol client is inside, in a span of the call
/// about `$subject` when traces are on, and turns a failure into a [`CallError`] naming the
/// RPC [`Rpc`] as that protocol names it. (A stream's span covers its opening call.)
macro_rules! dispatch {
    ($self:ident, $rpc:expr, $subject:expr, |$client:ident| $call:expr) => {{
        let span = telemetry::called(|| $self.rpc($rpc, $subject));
        let result = telemetry::traced(span, async {
            match &$self.client {
                ProtocolClient::V5($client) => $call.await,
                ProtocolClient::V6($client) => $call.await,
            }
        })
        .await;
        match result {
            Ok(response) => Ok(response),
            Err(failure) => Err($self.call_failed($rpc, failure).await),
        }
    }};
}

impl ProviderClient {
    pub(crate) fn new(
        provider: String,
        protocol: ProtocolVersion,
        uses_tls: bool,
        channel: Channel,
        process: Option<OwnedProcess>,
        output: Arc<ProviderOutput>,
    ) -> ProviderClient {
        let client = match protocol {
            ProtocolVersion::V5 => ProtocolClient::V5(v5::Client::new(channel.clone())),
            ProtocolVersion::V6 => ProtocolClient::V6(v6::Client::new(channel.clone())),
        };
        ProviderClient { provider, protocol, uses_tls, client, channel, process, output }
    }

    /// The protocol the provider negotiated in its handshake.
    pub fn protocol(&self) -> ProtocolVersion {
        self.protocol
    }

    /// Whether the connection runs over (auto-m)TLS.
    pub fn uses_tls(&self) -> bool {
        self.uses_tls
    }

    /// The process id, when we launched the provider (not when reattached).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(|process| process.pid)
    }

    /// The provider's last stderr lines, oldest first.
    pub fn recent_stderr(&self) -> Vec<String> {
        self.output.recent_lines()
    }

    /// Stops the provider as Terraform does: GRPCController.Shutdown, up to two seconds to
    /// exit, then SIGKILL. A reattached provider is left running.
    pub async fn shutdown(mut self) {
        if let Some(process) = self.process.as_mut() {
            process.shut_down(self.channel.clone()).await;
        }
    }

    /// Kills the process at once (SIGKILL to its process group) and waits for it to be reaped.
    /// Does nothing to a reattached provider.
    pub async fn kill(&mut self) {
        if let Some(process) = self.process.as_mut() {
            process.kill().await;
        }
    }

    /// A call as its span names it: `tfplugin6.Provider/PlanResourceChange`.
    fn rpc<'a>(&self, rpc: Rpc, subject: Option<SpanSubject<'a>>) -> SpanName<'a> {
        let service = match self.protocol {
            ProtocolVersion::V5 => "tfplugin5.Provider",
            ProtocolVersion::V6 => "tfplugin6.Provider",
        };
        SpanName { service, method: Cow::Borrowed(rpc.wire_name(self.protocol)), subject }
    }

    async fn call_failed(&self, rpc: Rpc, failure: RpcFailure) -> CallError {
        let rpc = rpc.wire_name(self.protocol);
        let status = match failure {
            RpcFailure::InvalidResponse(source) => {
                return CallError::InvalidResponse { rpc, provider: self.provider.clone(), source };
            }
            RpcFailure::Status(status) => status,
        };
        let exit = match &self.process {
            Some(process) => {
                // A dying provider breaks the connection a moment before the kernel reports
                // its exit, so for connection-like failures wait a little for the exit.
                let connection_lost = matches!(status.code(), Code::Unavailable | Code::Unknown | Code::Cancelled);
                let exit_status = if connection_lost {
                    process.wait_for_exit(Duration::from_secs(2)).await
                } else {
                    process.exit_status()
                };
                match exit_status {
                    Some(exit_status) => {
                        process.wait_for_stderr_closed(Duration::from_secs(1)).await;
                        Some(Box::new(ProcessExit {
                            status: exit_status.to_string(),
                            panic_text: self.output.panic_text(),
                            recent_stderr: self.output.recent_lines(),
                        }))
                    }
                    None => None,
                }
            }
            None => None,
        };
        CallError::Rpc {
            rpc,
            provider: self.provider.clone(),
            code: status.code(),
            message: status.message().to_owned(),
            exit,
        }
    }

    /// Turns `Unimplemented` into [`Support::Unsupported`] for RPCs older providers lack.
    fn optional<T>(result: Result<T, CallError>) -> Result<Support<T>, CallError> {
        match result {
            Ok(value) => Ok(Support::Supported(value)),
            Err(CallError::Rpc { code: Code::Unimplemented, .. }) => Ok(Support::Unsupported),
            Err(err) => Err(err),
        }
    }

    pub async fn import_resource_state(
        &self,
        type_name: &str,
        id: &str,
    ) -> Result<ImportResourceStateResponse, CallError> {
        self.import_resource_state_by(type_name, id, None).await
    }

    /// ImportResourceState by `id`, by `identity` (protocol 5.9/6.9), or (never from
    /// Terraform, see `lifecycle`) both.
    pub async fn import_resource_state_by(
        &self,
        type_name: &str,
        id: &str,
        identity: Option<&DynamicValue>,
    ) -> Result<ImportResourceStateResponse, CallError> {
        let subject = Some(SpanSubject::TerraformType(type_name));
        dispatch!(self, Rpc::ImportResourceState, subject, |client| client
            .import_resource_state(type_name, id, identity))
    }

    /// A status a stream broke with, with the process's exit when it died.
    pub async fn stream_failed(&self, rpc: Rpc, status: tonic::Status) -> CallError {
        self.call_failed(rpc, RpcFailure::Status(status)).await
    }

    /// Starts an action: its events arrive on the returned stream. Protocol 5.10/6.10
    /// (Terraform 1.14); older providers answer `Unimplemented`.
    pub async fn invoke_action(
        &self,
        action_type: &str,
        config: &DynamicValue,
    ) -> Result<Support<ActionEvents>, CallError> {
        let subject = Some(SpanSubject::TerraformType(action_type));
        let stream = dispatch!(self, Rpc::InvokeAction, subject, |client| client.invoke_action(action_type, config));
        Self::optional(stream.map(|stream| ActionEvents::new(self.provider.clone(), stream)))
    }

    /// Asks the provider to cancel in-flight work (Terraform's Ctrl-C). `Ok(Some(text))` is
    /// the provider's own error text.
    pub async fn stop_provider(&self) -> Result<Option<String>, CallError> {
        let error = dispatch!(self, Rpc::StopProvider, None, |client| client.stop_provider())?;
        Ok(if error.is_empty() { None } else { Some(error) })
    }
}

/// The calls that only dispatch, one line each: `required` ones return the response,
/// `optional` ones (RPCs older providers lack) turn `Unimplemented` into
/// [`Support::Unsupported`]. Each method has the name of the protocol clients' method it
/// calls; after its [`Rpc`], what its span says the call is about: `(type: name)` a
/// Terraform type, `(function: name)` a provider function, nothing the provider as a whole.
macro_rules! calls {
    (
        required { $($(#[$rdoc:meta])* $rname:ident($($rarg:ident: $rty:ty),*) -> $rret:ty
            => $rop:ident $(($($rsubject:tt)*))?;)* }
        optional { $($(#[$odoc:meta])* $oname:ident($($oarg:ident: $oty:ty),*) -> $oret:ty
            => $oop:ident $(($($osubject:tt)*))?;)* }
    ) => {
        impl ProviderClient {
            $(
                $(#[$rdoc])*
                pub async fn $rname(&self, $($rarg: $rty),*) -> Result<$rret, CallError> {
                    let subject = subject!($($($rsubject)*)?);
                    dispatch!(self, Rpc::$rop, subject, |client| client.$rname($($rarg),*))
                }
            )*
            $(
                $(#[$odoc])*
                pub async fn $oname(&self, $($oarg: $oty),*) -> Result<Support<$oret>, CallError> {
                    let subject = subject!($($($osubject)*)?);
                    Self::optional(dispatch!(self, Rpc::$oop, subject, |client| client.$oname($($oarg),*)))
                }
            )*
        }
    };
}

/// A `calls!` line's subject as a span's [`SpanSubject`].
macro_rules! subject {
    () => {
        None
    };
    (type: $name:expr) => {
        Some(SpanSubject::TerraformType($name))
    };
    (function: $name:expr) => {
        Some(SpanSubject::TerraformFunction($name))
    };
}

calls! {
    required {
        get_provider_schema() -> ProviderSchemaResponse => GetProviderSchema;
        validate_provider_config(config: &DynamicValue) -> ValidateProviderConfigResponse => ValidateProviderConfig;
        validate_resource_config(type_name: &str, config: &DynamicValue) -> Vec<Diagnostic>
            => ValidateResourceConfig(type: type_name);
        validate_data_resource_config(type_name: &str, config: &DynamicValue) -> Vec<Diagnostic>
            => ValidateDataResourceConfig(type: type_name);
        upgrade_resource_state(request: &UpgradeResourceStateRequest) -> UpgradeResourceStateResponse
            => UpgradeResourceState(type: &request.type_name);
        configure_provider(terraform_version: &str, config: &DynamicValue) -> Vec<Diagnostic> => ConfigureProvider;
        read_resource(request: &ReadResourceRequest) -> ReadResourceResponse => ReadResource(type: &request.type_name);
        plan_resource_change(request: &PlanResourceChangeRequest) -> PlanResourceChangeResponse
            => PlanResourceChange(type: &request.type_name);
        apply_resource_change(request: &ApplyResourceChangeRequest) -> ApplyResourceChangeResponse
            => ApplyResourceChange(type: &request.type_name);
        read_data_source(request: &ReadDataSourceRequest) -> ReadDataSourceResponse
            => ReadDataSource(type: &request.type_name);
        /// Protocol 5.7/6.7; older providers answer `Unimplemented`, which is an error here: the
        /// schema declared the ephemeral resource.
        validate_ephemeral_resource_config(type_name: &str, config: &DynamicValue) -> Vec<Diagnostic>
            => ValidateEphemeralResourceConfig(type: type_name);
        open_ephemeral_resource(type_name: &str, config: &DynamicValue) -> OpenEphemeralResourceResponse
            => OpenEphemeralResource(type: type_name);
        renew_ephemeral_resource(type_name: &str, private: Option<&[u8]>) -> RenewEphemeralResourceResponse
            => RenewEphemeralResource(type: type_name);
        close_ephemeral_resource(type_name: &str, private: Option<&[u8]>) -> Vec<Diagnostic>
            => CloseEphemeralResource(type: type_name);
    }
    optional {
        /// Protocol 5.4/6.4.
        get_metadata() -> ProviderMetadata => GetMetadata;
        /// Protocol 5.9/6.9; to Terraform, `Unimplemented` means no identities.
        get_resource_identity_schemas() -> IdentitySchemasResponse => GetResourceIdentitySchemas;
        upgrade_resource_identity(request: &UpgradeResourceIdentityRequest) -> UpgradeResourceIdentityResponse
            => UpgradeResourceIdentity(type: &request.type_name);
        /// Protocol 5.10/6.10.
        validate_list_resource_config(type_name: &str, config: &DynamicValue) -> Vec<Diagnostic>
            => ValidateListResourceConfig(type: type_name);
        /// Protocol 5.10/6.10: starts a ListResource stream. A status the stream breaks with
        /// later comes as an item; turn it into a [`CallError`] with [`ProviderClient::stream_failed`].
        list_resource(request: &ListResourceRequest) -> ListEvents => ListResource(type: &request.type_name);
        /// Protocol 5.5/6.5.
        get_functions() -> GetFunctionsResponse => GetFunctions;
        /// Calls a provider function. Each argument is encoded with its parameter's type.
        call_function(name: &str, arguments: &[DynamicValue]) -> CallFunctionResponse => CallFunction(function: name);
        /// Protocol 5.10/6.10 (Terraform 1.14).
        validate_action_config(type_name: &str, config: &DynamicValue) -> Vec<Diagnostic>
            => ValidateActionConfig(type: type_name);
        /// Protocol 5.10/6.10 (Terraform 1.14).
        plan_action(action_type: &str, config: &DynamicValue) -> PlanActionResponse => PlanAction(type: action_type);
        /// The configuration that would manage `state` (Terraform 1.14, for
        /// `-generate-config-out`); providers without the `generate_resource_config`
        /// capability answer `Unimplemented`.
        generate_resource_config(type_name: &str, state: &DynamicValue) -> GenerateResourceConfigResponse
            => GenerateResourceConfig(type: type_name);
    }
}
