//! The Pulumi `ResourceProvider` gRPC service.
//!
//! [`Provider`] implements `pulumirpc.ResourceProvider`: each RPC decodes its request into
//! domain terms, calls the layer below, and encodes the answer. [`serve`] (`serve.rs`) runs
//! it on a loopback TCP listener the way the Pulumi engine expects plugins to, and shuts it
//! down.
//!
//! Architecture invariant: this is the only module that touches `pulumirpc` types, and
//! the only place where domain errors become `tonic::Status`.

mod actions;
mod call;
mod engine;
mod list;
pub mod plugin_identity;
mod resources;
mod serve;
mod traces;

use std::sync::{Arc, Mutex};

use tfbridge_proto::pulumirpc;
use tokio_util::sync::CancellationToken;

use crate::lifecycle::{self, Session};
use crate::parameterize;
use crate::telemetry;
use tonic::{Request, Response, Status};

pub use engine::{EngineLog, InvalidEngineAddress, Severity};
pub use serve::{ServeConfig, serve};

/// What the engine told us in `Handshake`, kept for the operations that need it later. Its
/// root and program directories are not kept: for a provider they name the plugin binary's
/// folder (see `working_dir`).
#[derive(Clone, Debug, Default)]
pub struct EngineInfo {
    /// Whether the engine sets `InvokeRequest.preview` (Handshake's `invoke_with_preview`);
    /// actions need it to tell a preview from an update.
    pub invoke_with_preview: bool,
}

/// The provider service. One instance serves one engine connection for the life of the
/// process; the engine starts a fresh process per provider instance.
pub struct Provider {
    engine_log: EngineLog,
    engine_info: Mutex<EngineInfo>,
    /// Cancelled by `Cancel` or by shutdown. Every long operation selects on it, so that
    /// in-flight work ends promptly instead of holding the engine's shutdown hostage.
    cancel: CancellationToken,
    /// The Terraform provider this process serves, and what the process remembers of the
    /// deployment, once Parameterize has run. The engine starts one process per package, so
    /// there is at most one.
    session: tokio::sync::Mutex<Option<Arc<Session>>>,
}

impl Provider {
    pub fn new(engine_log: EngineLog, cancel: CancellationToken) -> Provider {
        Provider {
            engine_log,
            engine_info: Mutex::new(EngineInfo::default()),
            cancel,
            session: tokio::sync::Mutex::new(None),
        }
    }
}

/// Where relative local provider paths and lock files are found: our working directory,
/// which the engine sets to its own (the project's, where `pulumi package add ./x` was
/// typed). Not the Handshake's `program_directory`: for a provider the engine names there
/// the folder of the plugin binary itself (pulumi's `NewProvider`, `filepath.Dir(bin)`), so
/// a relative path would be looked up in the plugin cache.
fn working_dir() -> std::path::PathBuf {
    std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."))
}

/// Installer progress, forwarded to the engine as status lines. The installer reports
/// synchronously; the messages are sent from tasks so it never waits on the engine.
struct EngineProgress {
    engine_log: EngineLog,
    runtime: tokio::runtime::Handle,
}

impl crate::installer::Progress for EngineProgress {
    fn step(&self, message: &str) {
        let (log, message) = (self.engine_log.clone(), message.to_owned());
        self.runtime.spawn(async move { log.status(None, message).await });
    }

    fn warning(&self, message: &str) {
        let (log, message) = (self.engine_log.clone(), message.to_owned());
        self.runtime.spawn(async move { log.log(Severity::Warning, None, message).await });
    }

    fn download(&self, url: &str, received: u64, total: Option<u64>) {
        let mib = |bytes: u64| bytes as f64 / (1024.0 * 1024.0);
        let message = match total {
            Some(total) => format!("Downloading {url}: {:.1} of {:.1} MiB", mib(received), mib(total)),
            None => format!("Downloading {url}: {:.1} MiB", mib(received)),
        };
        let log = self.engine_log.clone();
        self.runtime.spawn(async move { log.status(None, message).await });
    }
}

/// How loudly to say where the provider came from: shown when it was downloaded just now, as
/// `terraform init` says what it installed; otherwise only in the debug log, on `pulumi
/// package add`, `get-schema` and `gen-sdk` too, where the Go implementation prints nothing
/// (issue 29). (Warnings from installing always show; they are separate.)
fn origin_severity(downloaded: bool) -> Severity {
    if downloaded { Severity::Info } else { Severity::Debug }
}

/// The answer for RPCs that are not built yet. It names the method so a user who hits it
/// knows exactly what is missing, instead of seeing a generic failure.
fn not_implemented(method: &str) -> Status {
    Status::unimplemented(format!("{method} is not implemented yet by pulumi-resource-terraform-provider"))
}

/// The engine's RPCs, as the trait `ResourceProvider`: each RPC unwraps its request, runs
/// its `do_` method (here, in `resources.rs`, `list.rs` and `call.rs`) in the call's span
/// when traces are on (`traces.rs`), and wraps the answer. The associated types follow in
/// braces.
macro_rules! resource_provider {
    ($($rpc:ident($request:ty) -> $response:ty => $method:ident;)* { $($types:tt)* }) => {
        #[tonic::async_trait]
        impl pulumirpc::resource_provider_server::ResourceProvider for Provider {
            $(
                async fn $rpc(&self, request: Request<$request>) -> Result<Response<$response>, Status> {
                    let span = telemetry::served(|| traces::served(stringify!($rpc), &request));
                    Ok(Response::new(telemetry::traced(span, self.$method(request.into_inner())).await?))
                }
            )*

            $($types)*
        }
    };
}

resource_provider! {
    // The plugin: start-up, parameterization, schema, cancellation.
    handshake(pulumirpc::ProviderHandshakeRequest) -> pulumirpc::ProviderHandshakeResponse => do_handshake;
    attach(pulumirpc::PluginAttach) -> () => do_attach;
    get_plugin_info(()) -> pulumirpc::PluginInfo => do_get_plugin_info;
    parameterize(pulumirpc::ParameterizeRequest) -> pulumirpc::ParameterizeResponse => do_parameterize;
    get_schema(pulumirpc::GetSchemaRequest) -> pulumirpc::GetSchemaResponse => do_get_schema;
    cancel(()) -> () => do_cancel;
    // The provider's configuration.
    check_config(pulumirpc::CheckRequest) -> pulumirpc::CheckResponse => do_check_config;
    check_config2(pulumirpc::CheckConfigRequest) -> pulumirpc::CheckConfigResponse => do_check_config2;
    diff_config(pulumirpc::DiffRequest) -> pulumirpc::DiffResponse => do_diff_config;
    configure(pulumirpc::ConfigureRequest) -> pulumirpc::ConfigureResponse => do_configure;
    // Resources.
    check(pulumirpc::CheckRequest) -> pulumirpc::CheckResponse => do_check;
    diff(pulumirpc::DiffRequest) -> pulumirpc::DiffResponse => do_diff;
    create(pulumirpc::CreateRequest) -> pulumirpc::CreateResponse => do_create;
    update(pulumirpc::UpdateRequest) -> pulumirpc::UpdateResponse => do_update;
    delete(pulumirpc::DeleteRequest) -> () => do_delete;
    read(pulumirpc::ReadRequest) -> pulumirpc::ReadResponse => do_read;
    list(pulumirpc::ListRequest) -> Self::ListStream => do_list;
    construct(pulumirpc::ConstructRequest) -> pulumirpc::ConstructResponse => do_construct;
    // Functions, and methods on the provider resource.
    invoke(pulumirpc::InvokeRequest) -> pulumirpc::InvokeResponse => do_invoke;
    call(pulumirpc::CallRequest) -> pulumirpc::CallResponse => do_call;
    // Converters' mappings.
    get_mapping(pulumirpc::GetMappingRequest) -> pulumirpc::GetMappingResponse => do_get_mapping;
    get_mappings(pulumirpc::GetMappingsRequest) -> pulumirpc::GetMappingsResponse => do_get_mappings;
    {
        type ListStream = list::ListStream;
    }
}

impl Provider {
    async fn do_handshake(
        &self,
        request: pulumirpc::ProviderHandshakeRequest,
    ) -> Result<pulumirpc::ProviderHandshakeResponse, Status> {
        // What the engine offers. `sends_old_outputs_to_check` needs no answer: Check uses
        // `old_outputs` when they come. The output-value capabilities stay off (we accept no
        // output values anywhere), so the engine sends plain values.
        tracing::debug!(
            sends_old_outputs_to_check = request.sends_old_outputs_to_check,
            accepts_outputs_in_check = request.accepts_outputs_in_check,
            "engine handshake"
        );
        if let Err(err) = self.engine_log.connect(&request.engine_address) {
            return Err(Status::invalid_argument(err.to_string()));
        }
        *self.engine_info.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) =
            EngineInfo { invoke_with_preview: request.invoke_with_preview };
        Ok(pulumirpc::ProviderHandshakeResponse {
            accept_secrets: true,
            accept_resources: true,
            accept_outputs: false,
            supports_autonaming_configuration: true,
            accepts_byte_string: false,
            accepts_outputs_in_invoke: false,
            accepts_outputs_in_call: false,
            accepts_outputs_in_check: false,
        })
    }

    async fn do_parameterize(
        &self,
        request: pulumirpc::ParameterizeRequest,
    ) -> Result<pulumirpc::ParameterizeResponse, Status> {
        use pulumirpc::parameterize_request::Parameters;
        let Some(parameters) = request.parameters else {
            return Err(Status::invalid_argument("Parameterize needs arguments or a parameter value"));
        };
        let args = match &parameters {
            Parameters::Args(args) => parameterize::parse_args(&args.args)
                .map_err(|err| Status::invalid_argument(format!("invalid Parameterize arguments: {err}")))?,
            Parameters::Value(value) => parameterize::ParameterValue::from_json(&value.value)
                .map_err(|err| Status::invalid_argument(err.to_string()))?
                .to_args(),
        };
        let mut slot = self.session.lock().await;
        if let Some(current) = slot.as_ref() {
            return Err(Status::failed_precondition(format!(
                "provider is already parameterized to ({}, {})",
                current.package_name(),
                current.package_version()
            )));
        }
        let progress =
            EngineProgress { engine_log: self.engine_log.clone(), runtime: tokio::runtime::Handle::current() };
        let working_dir = working_dir();
        let work = lifecycle::start_provider(&args, &working_dir, &progress);
        let mut session = tokio::select! {
            () = self.cancel.cancelled() => return Err(Status::cancelled("Parameterize was cancelled by the Pulumi engine")),
            result = work => result.map_err(|err| Status::failed_precondition(err.to_string()))?,
        };
        if let Parameters::Value(value) = &parameters {
            session.announce_as(&value.version);
        }
        let severity = origin_severity(session.downloaded());
        self.engine_log.log(severity, None, format!("Using {}", session.origin())).await;
        for warning in session.warnings() {
            self.engine_log.log(Severity::Warning, None, warning.to_string()).await;
        }
        let response = pulumirpc::ParameterizeResponse {
            name: session.package_name().to_owned(),
            version: session.announced_version().to_owned(),
        };
        *slot = Some(Arc::new(session));
        Ok(response)
    }

    async fn do_get_schema(
        &self,
        request: pulumirpc::GetSchemaRequest,
    ) -> Result<pulumirpc::GetSchemaResponse, Status> {
        let Some(session) = self.session.lock().await.clone() else {
            // Without a provider there is nothing to describe but the plugin itself.
            let schema = schema_gen::translate::base_package_schema(plugin_identity::VERSION);
            return Ok(pulumirpc::GetSchemaResponse { schema: schema.to_string() });
        };
        let wanted_name = &request.subpackage_name;
        let wanted_version = &request.subpackage_version;
        if !session.is_package(wanted_name, wanted_version) {
            return Err(Status::invalid_argument(format!(
                "GetSchema asked for {wanted_name} {wanted_version}, but this provider is parameterized to ({}, {})",
                session.package_name(),
                session.announced_version()
            )));
        }
        // Translating a big provider takes hundreds of milliseconds of CPU; off the runtime's
        // one thread, so Cancel and the other calls are still answered meanwhile.
        let translated =
            tokio::task::spawn_blocking(move || session.package_schema_json(plugin_identity::VERSION)).await;
        let schema = translated
            .map_err(|err| Status::internal(format!("the schema translation did not finish: {err}")))?
            .map_err(|err| Status::internal(err.to_string()))?;
        Ok(pulumirpc::GetSchemaResponse { schema })
    }

    async fn do_construct(
        &self,
        _request: pulumirpc::ConstructRequest,
    ) -> Result<pulumirpc::ConstructResponse, Status> {
        // Terraform has no components; this will stay unimplemented.
        Err(not_implemented("Construct"))
    }

    async fn do_cancel(&self, _request: ()) -> Result<(), Status> {
        // Cancelling flips the token: in-flight calls notice and answer on their own. The
        // engine sends Cancel at the end of every run too (with a 5 s deadline), so it is
        // also when ephemeral resources close. That is waited for, briefly: the engine shows
        // a failed close only while the deployment is still reporting, which ends soon after
        // Cancel returns. Shutdown waits for a close still running.
        tracing::info!("cancellation requested by the engine");
        self.cancel.cancel();
        if let Some(session) = self.session.lock().await.clone() {
            let engine_log = self.engine_log.clone();
            let closing = tokio::spawn(async move { serve::close_ephemerals(&session, &engine_log).await });
            let _ = tokio::time::timeout(serve::CLOSE_GRACE, closing).await;
        }
        Ok(())
    }

    async fn do_get_plugin_info(&self, _request: ()) -> Result<pulumirpc::PluginInfo, Status> {
        Ok(pulumirpc::PluginInfo { version: plugin_identity::VERSION.to_owned() })
    }

    async fn do_attach(&self, request: pulumirpc::PluginAttach) -> Result<(), Status> {
        let address = request.address;
        self.engine_log.connect(&address).map_err(|err| Status::invalid_argument(err.to_string()))?;
        tracing::info!(engine = %address, "attached to the engine");
        Ok(())
    }

    async fn do_get_mapping(
        &self,
        request: pulumirpc::GetMappingRequest,
    ) -> Result<pulumirpc::GetMappingResponse, Status> {
        let session = self.session.lock().await.clone();
        let working_dir = working_dir();
        let mapping =
            lifecycle::mapping(session.as_deref(), &request.key, &request.provider, &working_dir, &self.cancel).await;
        match mapping.map_err(mapping_status)? {
            Some(lifecycle::Mapping { provider, data }) => Ok(pulumirpc::GetMappingResponse { provider, data }),
            None => Ok(pulumirpc::GetMappingResponse::default()),
        }
    }

    async fn do_get_mappings(
        &self,
        request: pulumirpc::GetMappingsRequest,
    ) -> Result<pulumirpc::GetMappingsResponse, Status> {
        let session = self.session.lock().await.clone();
        let providers = lifecycle::mapped_providers(session.as_deref(), &request.key).await;
        Ok(pulumirpc::GetMappingsResponse { providers })
    }
}

/// The status for a GetMapping that has no answer.
fn mapping_status(error: lifecycle::MappingError) -> Status {
    use lifecycle::MappingError;
    let message = error.to_string();
    match error {
        MappingError::UnknownProvider(_) => Status::invalid_argument(message),
        MappingError::CachedPackage { .. } | MappingError::Schema(_) => Status::internal(message),
        MappingError::Start { .. } => Status::failed_precondition(message),
        MappingError::Cancelled => Status::cancelled(message),
    }
}

#[cfg(test)]
mod tests {
    use super::{Severity, origin_severity};

    #[test]
    fn where_the_provider_came_from_is_news_only_when_downloaded() {
        let cases = [
            // A download, at `package add` or on a program's first run on a machine: shown.
            (true, Severity::Info),
            // A local binary or a cached provider, at `package add` or on every run: quiet.
            (false, Severity::Debug),
        ];
        for (downloaded, want) in cases {
            assert_eq!(origin_severity(downloaded), want, "downloaded={downloaded}");
        }
    }
}
