//! The Pulumi `ResourceProvider` gRPC service.
//!
//! [`Provider`] implements `pulumirpc.ResourceProvider`: each RPC decodes its request into
//! domain terms, calls the layer below, and encodes the answer. [`serve`] runs it on a
//! loopback TCP listener the way the Pulumi engine expects plugins to.
//!
//! Architecture invariant: this is the only module that touches `pulumirpc` types, and
//! the only place where domain errors become `tonic::Status`.

mod actions;
mod call;
mod engine;
mod list;
pub mod plugin_identity;
mod resources;
mod traces;

use std::future::Future;
use std::sync::{Arc, Mutex};

use tfbridge_proto::pulumirpc;
use tokio_util::sync::CancellationToken;

use crate::lifecycle::{self, Session};
use crate::parameterize;
use crate::telemetry;
use tonic::{Request, Response, Status};

pub use engine::{EngineLog, InvalidEngineAddress, Severity};

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
            session.announced_version = parameterize::announced_version(&value.version, session.package_version());
        }
        let severity = origin_severity(session.downloaded);
        self.engine_log.log(severity, None, format!("Using {}", session.origin)).await;
        for warning in &session.warnings {
            self.engine_log.log(Severity::Warning, None, warning.to_string()).await;
        }
        let response = pulumirpc::ParameterizeResponse {
            name: session.package_name().to_owned(),
            version: session.announced_version.clone(),
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
            let schema = serde_json::json!({"name": "terraform-provider", "version": plugin_identity::VERSION});
            return Ok(pulumirpc::GetSchemaResponse { schema: schema.to_string() });
        };
        let wanted_name = &request.subpackage_name;
        let wanted_version = &request.subpackage_version;
        if (!wanted_name.is_empty() && wanted_name != session.package_name())
            || (!wanted_version.is_empty() && *wanted_version != session.announced_version)
        {
            return Err(Status::invalid_argument(format!(
                "GetSchema asked for {wanted_name} {wanted_version}, but this provider is parameterized to ({}, {})",
                session.package_name(),
                session.announced_version
            )));
        }
        // Translating a big provider takes hundreds of milliseconds of CPU; off the runtime's
        // one thread, so Cancel and the other calls are still answered meanwhile.
        let translated = tokio::task::spawn_blocking(move || {
            let (mut spec, warnings) = session.package_schema(plugin_identity::VERSION)?;
            spec.version.clone_from(&session.announced_version);
            Ok((spec.to_json(), warnings))
        })
        .await;
        let (schema, warnings) = translated
            .map_err(|err| Status::internal(format!("the schema translation did not finish: {err}")))?
            .map_err(|err: crate::schema_cache::LazySchemaError| Status::internal(err.to_string()))?;
        for warning in &warnings {
            tracing::debug!("schema translation: {warning}");
        }
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
            let closing = tokio::spawn(async move { close_ephemerals(&session, &engine_log).await });
            let _ = tokio::time::timeout(CLOSE_GRACE, closing).await;
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
        let (connection, package_version) = match self.mapping_source(&request.key).await {
            MappingSource::Session(session) => (session.connection.clone(), session.package_version().to_owned()),
            MappingSource::None => return Ok(pulumirpc::GetMappingResponse::default()),
            MappingSource::Cache(candidates) => {
                // Unparameterized, asked for a provider by type (`pulumi import --from
                // terraform`): start the cached package GetMappings offered for it.
                let Some(package) = candidates.get(&request.provider) else {
                    return Ok(pulumirpc::GetMappingResponse::default());
                };
                // The exact version, which the installer finds in the cache, offline.
                let args = parameterize::parse_args(&[package.address.to_string(), package.version.to_string()])
                    .map_err(|err| Status::internal(format!("the cached package {}: {err}", package.address)))?;
                // Straight from the cache: nothing worth a line, and the engine would print
                // each start on stderr, once per provider of the state.
                let progress = crate::installer::NoProgress;
                let working_dir = working_dir();
                let started = tokio::select! {
                    () = self.cancel.cancelled() => return Err(Status::cancelled("GetMapping was cancelled by the Pulumi engine")),
                    result = lifecycle::start_provider(&args, &working_dir, &progress) => result,
                };
                let started = started.map_err(|err| {
                    Status::failed_precondition(format!(
                        "the mapping of {} {}: {err}",
                        package.address, package.version
                    ))
                })?;
                (started.connection.clone(), started.package_version().to_owned())
            }
        };
        let name = connection.names.resource_prefix().to_owned();
        if !request.provider.is_empty() && request.provider != name {
            return Err(Status::invalid_argument(format!("unknown provider {:?}", request.provider)));
        }
        let schema = connection.schema.whole().map_err(|err| Status::internal(err.to_string()))?;
        let mapping = schema_gen::mapping::provider_mapping(schema, &connection.names, &package_version);
        let data = schema_gen::mapping::to_go_json(&mapping).into_bytes();
        Ok(pulumirpc::GetMappingResponse { provider: name, data })
    }

    async fn do_get_mappings(
        &self,
        request: pulumirpc::GetMappingsRequest,
    ) -> Result<pulumirpc::GetMappingsResponse, Status> {
        let providers = match self.mapping_source(&request.key).await {
            MappingSource::Session(session) => vec![session.connection.names.resource_prefix().to_owned()],
            MappingSource::Cache(candidates) => candidates.into_keys().collect(),
            MappingSource::None => Vec::new(),
        };
        Ok(pulumirpc::GetMappingsResponse { providers })
    }
}

/// Closes the provider's open ephemeral resources and says what went wrong, to the engine
/// (an error naming the function) and to stderr.
async fn close_ephemerals(session: &Session, engine_log: &EngineLog) {
    let closed = session.close_ephemerals().await;
    if closed.n_closed > 0 {
        tracing::debug!(n_closed = closed.n_closed, "closed the ephemeral resources");
    }
    for warning in &closed.warnings {
        tracing::warn!("{warning}");
        engine_log.log(Severity::Warning, None, warning.clone()).await;
    }
    for error in &closed.errors {
        tracing::error!("{error}");
        engine_log.log(Severity::Error, None, error.clone()).await;
    }
}

impl Provider {
    /// Closes what must not outlive the deployment (ephemeral resources) before the
    /// process exits; bounded, so that the engine's kill 5 s after SIGINT never comes first.
    async fn close_at_shutdown(&self) {
        let Some(session) = self.session.lock().await.clone() else { return };
        let closing = close_ephemerals(&session, &self.engine_log);
        if tokio::time::timeout(CLOSE_GRACE, closing).await.is_err() {
            tracing::error!("ephemeral resources were still closing {CLOSE_GRACE:?} after shutdown began");
        }
    }

    /// Where the mapping a GetMapping(s) key asks for comes from: `terraform` (or the legacy
    /// `tf`) once parameterized, the provider; unparameterized, the provider packages in our
    /// cache, by type. Other converters' keys get nothing, as in the Go implementation.
    ///
    /// The cache matters to `pulumi import --from terraform`: its converter names a provider
    /// by type only (`tfcoremock`, no source, no version) and the CLI asks every installed
    /// plugin, unparameterized, whether it maps it. The packages are there once the program
    /// (from `pulumi convert`) has run or installed its packages.
    async fn mapping_source(&self, key: &str) -> MappingSource {
        if key != "terraform" && key != "tf" {
            return MappingSource::None;
        }
        if let Some(session) = self.session.lock().await.clone() {
            return MappingSource::Session(session);
        }
        let cache = crate::installer::plugin_cache_dir(&std::env::vars().collect());
        let platform = crate::installer::Platform::current();
        let listed = tokio::task::spawn_blocking(move || crate::installer::cached_packages(&cache, &platform))
            .await
            .unwrap_or_default();
        MappingSource::Cache(crate::installer::mapping_candidates(&listed))
    }
}

/// See [`Provider::mapping_source`].
enum MappingSource {
    None,
    Session(Arc<Session>),
    /// By provider type, the cached package that maps it.
    Cache(std::collections::BTreeMap<String, crate::installer::CachedPackage>),
}

/// Everything [`serve`] needs.
pub struct ServeConfig {
    /// The engine's address from the command line; `None` starts in attach mode, where the
    /// engine sends its address with `Attach`.
    pub engine_address: Option<String>,
    /// The path this executable was started by (`argv[0]`, symbolic links unresolved): in
    /// the plugin cache, its folder names the version Pulumi installed it under.
    pub executable: Option<std::path::PathBuf>,
}

/// Listens on 127.0.0.1 on a port the OS picks, writes that port as the first line of
/// stdout (the engine's plugin handshake), and serves until `shutdown` completes.
///
/// Nothing else may be written to stdout before the port line: the engine takes the first
/// line as the port.
pub async fn serve(config: ServeConfig, shutdown: impl Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
    let engine_log = EngineLog::default();
    if let Some(address) = &config.engine_address {
        engine_log.connect(address).map_err(|err| std::io::Error::new(std::io::ErrorKind::InvalidInput, err))?;
    }
    let cancel = CancellationToken::new();
    let provider = Arc::new(Provider::new(engine_log, cancel.clone()));
    let provider_at_shutdown = provider.clone();

    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
    let port = listener.local_addr()?.port();
    {
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{port}")?;
        stdout.flush()?;
    }
    // The one line that names this implementation in the plugin's log (the engine shows a
    // plugin's stderr only with `--debug` or `--logflow`), as `--version` and GetPluginInfo do.
    let installed_as = config.executable.as_deref().and_then(plugin_identity::installed_as);
    tracing::info!(
        port,
        attach_mode = config.engine_address.is_none(),
        installed_as,
        "pulumi-resource-terraform-provider {}: serving pulumirpc.ResourceProvider",
        plugin_identity::VERSION_TEXT
    );
    // Installed under another version, we run for projects that asked for that one (the Go
    // implementation's, say) and nothing else tells them: the user must see it, once per start.
    if let Some(warning) =
        installed_as.and_then(|installed| plugin_identity::version_mismatch(installed, plugin_identity::VERSION))
    {
        tracing::warn!("{warning}");
        let engine_log = provider.engine_log.clone();
        tokio::spawn(async move { engine_log.log(Severity::Warning, None, warning).await });
    }

    let state = Arc::clone(&provider);
    let service = pulumirpc::resource_provider_server::ResourceProviderServer::from_arc(provider)
        .max_decoding_message_size(tfbridge_proto::MAX_MESSAGE_SIZE)
        .max_encoding_message_size(tfbridge_proto::MAX_MESSAGE_SIZE);
    // Nagle's algorithm would hold back the last frames of each response until the engine's
    // delayed ACK (40 ms on Linux): every RPC would take 40 ms. The engine (Go) disables it
    // on its side; so do we.
    let incoming = tokio_stream::StreamExt::map(tokio_stream::wrappers::TcpListenerStream::new(listener), |stream| {
        if let Ok(stream) = &stream
            && let Err(err) = stream.set_nodelay(true)
        {
            tracing::debug!("cannot disable Nagle's algorithm on an engine connection: {err}");
        }
        stream
    });
    let graceful = Arc::new(tokio::sync::Notify::new());
    let graceful_wait = graceful.clone();
    let server = tonic::transport::Server::builder()
        .add_service(service)
        .serve_with_incoming_shutdown(incoming, async move { graceful_wait.notified().await });
    tokio::pin!(server);
    tokio::select! {
        result = &mut server => return result.map_err(std::io::Error::other),
        () = shutdown => {}
    }
    // Stop in-flight work first, so graceful shutdown does not wait on it; then give open
    // connections a moment to finish. The engine kills the process 5 s after its SIGINT,
    // and a clean exit before that avoids its "exited prematurely" report.
    cancel.cancel();
    // Closing the open ephemeral resources and finishing the schema cache entry start-up
    // is writing (a cold start; without it the next run starts cold too) run side by side,
    // each bounded, so together they stay inside the engine's 5 s.
    let finish_cache_write = async {
        let session = state.session.lock().await.clone();
        if let Some(session) = session {
            let _ = tokio::time::timeout(CACHE_WRITE_GRACE, session.finish_cache_write()).await;
        }
    };
    tokio::join!(provider_at_shutdown.close_at_shutdown(), finish_cache_write);
    graceful.notify_one();
    match tokio::time::timeout(SHUTDOWN_GRACE, server).await {
        Ok(result) => result.map_err(std::io::Error::other),
        Err(_) => {
            tracing::info!("connections still open {SHUTDOWN_GRACE:?} after shutdown began; exiting anyway");
            Ok(())
        }
    }
}

/// How long closing ephemeral resources may take once shutdown begins (with
/// [`SHUTDOWN_GRACE`], well within the engine's 5 s).
const CLOSE_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// How long shutdown waits for a schema cache write still running.
const CACHE_WRITE_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// How long open connections may linger once shutdown begins.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

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
