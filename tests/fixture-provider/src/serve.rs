//! The go-plugin server side: listener, handshake line, auto-mTLS, the auxiliary services
//! (`GRPCController`, `GRPCStdio`, `GRPCBroker`, health) and the provider service.
//!
//! [`run`] does what go-plugin's `plugin.Serve` does after the cookie check: negotiate the
//! protocol, listen on a unix socket, print
//! `1|<protocol>|unix|<socket path>|grpc|<server cert>` as the first stdout line, route
//! stdout/stderr into `GRPCStdio`, and serve until `GRPCController.Shutdown`.
//!
//! Architecture invariant: this module knows nothing about what the provider does; it
//! wires a `Fixture` into the protocol service the handshake named.

use std::io::Write;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use tfbridge_proto::{MAX_MESSAGE_SIZE, goplugin, health, tfplugin5, tfplugin6};
use tokio::sync::{Mutex, Notify, mpsc, watch};
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};

use crate::config::{HandshakeMode, LaunchConfig, SchemaFileError};
use crate::convert;
use crate::provider::Fixture;
use crate::provider_v5::ProviderV5;
use crate::provider_v6::ProviderV6;
use crate::{misbehaviour, stdio, tls};

/// go-plugin's core protocol version, the handshake's first field.
const CORE_PROTOCOL_VERSION: u32 = 1;

/// Why the fixture could not serve.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The schema to serve could not be loaded.
    #[error(transparent)]
    Schema(#[from] SchemaFileError),
    /// The unix socket could not be created.
    #[error("listening on a unix socket in {dir}: {source}")]
    Listen { dir: PathBuf, source: std::io::Error },
    /// No port of `PLUGIN_MIN_PORT..=PLUGIN_MAX_PORT` could be bound (Windows).
    #[error("{0}")]
    ListenTcp(String),
    /// Auto-mTLS could not be set up.
    #[error(transparent)]
    Tls(#[from] tls::TlsError),
    /// The handshake line could not be written, or stdio could not be redirected.
    #[error("writing the handshake or redirecting stdio: {0}")]
    Stdio(std::io::Error),
    /// `FIXTURE_HANDSHAKE=exit` asked for an exit before the handshake.
    #[error("exiting before the handshake, as FIXTURE_HANDSHAKE=exit asks")]
    ExitBeforeHandshake,
    /// tonic stopped serving with an error.
    #[error("serving gRPC: {0}")]
    Transport(#[from] tonic::transport::Error),
}

/// Serves until the host calls `GRPCController.Shutdown`, then returns `Ok`.
pub async fn run(config: LaunchConfig) -> Result<(), ServeError> {
    for warning in &config.warnings {
        eprintln!("{warning}");
    }
    let schema = config.identity_list.with_list_resources(config.load_schema()?);
    match config.misbehaviour.handshake {
        HandshakeMode::ExitBefore => return Err(ServeError::ExitBeforeHandshake),
        HandshakeMode::Hang => hang_until_killed().await,
        HandshakeMode::Garbage => {
            let mut stdout = std::io::stdout().lock();
            let _ =
                stdout.write_all(b"fixture: this line is not a go-plugin handshake\n").and_then(|()| stdout.flush());
            drop(stdout);
            hang_until_killed().await
        }
        HandshakeMode::Normal | HandshakeMode::WrongCoreProtocol | HandshakeMode::NetRpc => {}
    }
    // Registered before the handshake so that no interrupt can end the process from then on.
    #[cfg(unix)]
    let interrupts = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok();
    #[cfg(windows)]
    let interrupts = tokio::signal::windows::ctrl_c().ok();
    let protocol = config.negotiated_protocol();

    // Everything the provider service needs is built before the handshake, as go-plugin's
    // `Serve` does (a Terraform provider builds its schema before the server starts): the
    // host may call at once, and the AWS-sized schema takes tens of milliseconds to convert.
    let schema = if config.terraform_1_14 { crate::actions_and_generate::with_actions(schema) } else { schema };
    let served_schema = if protocol == 5 {
        ServedSchema::V5(convert::to_tfplugin5(&schema))
    } else {
        ServedSchema::V6(convert::to_tfplugin6(&schema))
    };

    let (listener, address) = listen(&config.socket_dir)?;
    let (acceptor, cert_field) = match &config.client_cert_pem {
        None => (None, String::new()),
        Some(pem) => {
            let identity = tls::generate_server_identity()?;
            let server_config = tls::server_config(&identity, pem)?;
            let cert_field = base64::engine::general_purpose::STANDARD_NO_PAD.encode(identity.certificate_der.as_ref());
            (Some(tokio_rustls::TlsAcceptor::from(server_config)), cert_field)
        }
    };
    let incoming = tls::incoming(listener, acceptor);

    let core_protocol =
        if config.misbehaviour.handshake == HandshakeMode::WrongCoreProtocol { 2 } else { CORE_PROTOCOL_VERSION };
    let protocol_type = if config.misbehaviour.handshake == HandshakeMode::NetRpc { "netrpc" } else { "grpc" };
    let handshake = format!("{core_protocol}|{protocol}|{}|{protocol_type}|{cert_field}\n", address.handshake_field());
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(handshake.as_bytes()).and_then(|()| stdout.flush()).map_err(ServeError::Stdio)?;
    drop(stdout);
    let redirected = stdio::redirect().map_err(ServeError::Stdio)?;
    if let (Some(interrupts), Ok(log)) = (interrupts, redirected.real_stderr.try_clone()) {
        log_ignored_interrupts(interrupts, log);
    }
    if config.misbehaviour.stderr_logs {
        // Real providers log to the stderr they started with, not through GRPCStdio.
        let mut log = &redirected.real_stderr;
        let _ = log.write_all(misbehaviour::SAMPLE_STDERR_LOGS.as_bytes());
    }

    let (flood_done_sender, flood_done) = watch::channel(config.misbehaviour.flood_bytes == 0);
    if config.misbehaviour.flood_bytes > 0 {
        let n_bytes = config.misbehaviour.flood_bytes;
        std::thread::spawn(move || {
            // A write error means the pipe reader is gone, i.e. the process is exiting.
            let _ = misbehaviour::flood(n_bytes);
            flood_done_sender.send_replace(true);
        });
    }

    let fixture = Arc::new(Fixture::new(
        schema,
        config.misbehaviour.clone(),
        flood_done,
        redirected.real_stderr,
        config.store_dir.clone(),
    ));
    let shutdown = Arc::new(Notify::new());
    let router = tonic::transport::Server::builder()
        .add_service(health::health_server::HealthServer::new(HealthService))
        .add_service(goplugin::grpc_controller_server::GrpcControllerServer::new(ControllerService {
            shutdown: shutdown.clone(),
        }))
        .add_service(goplugin::grpc_stdio_server::GrpcStdioServer::new(StdioService {
            output: Arc::new(Mutex::new(redirected.output)),
        }))
        .add_service(goplugin::grpc_broker_server::GrpcBrokerServer::new(BrokerService));
    let router = match served_schema {
        ServedSchema::V5(schema) => router.add_service(
            tfplugin5::provider_server::ProviderServer::new(ProviderV5::new(fixture, schema))
                .max_decoding_message_size(MAX_MESSAGE_SIZE)
                .max_encoding_message_size(MAX_MESSAGE_SIZE),
        ),
        ServedSchema::V6(schema) => router.add_service(
            tfplugin6::provider_server::ProviderServer::new(ProviderV6::new(
                fixture,
                config.identity_list.clone(),
                schema,
            ))
            .max_decoding_message_size(MAX_MESSAGE_SIZE)
            .max_encoding_message_size(MAX_MESSAGE_SIZE),
        ),
    };

    let result = tokio::select! {
        result = router.serve_with_incoming(incoming) => result.map_err(ServeError::from),
        () = shutdown.notified() => {
            // go-plugin stops the server hard. The pause lets the connection task write the
            // Shutdown response before the process exits.
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok(())
        }
    };
    address.remove();
    result
}

/// GetProviderSchema's answer in the negotiated protocol.
enum ServedSchema {
    V5(tfplugin5::get_provider_schema::Response),
    V6(tfplugin6::get_provider_schema::Response),
}

async fn hang_until_killed() -> ! {
    loop {
        std::future::pending::<()>().await;
    }
}

/// Where the server listens, as the handshake names it.
enum Address {
    #[cfg_attr(not(unix), allow(dead_code))]
    Unix(PathBuf),
    #[cfg_attr(unix, allow(dead_code))]
    Tcp(std::net::SocketAddr),
}

impl Address {
    /// The handshake's network and address fields.
    fn handshake_field(&self) -> String {
        match self {
            Address::Unix(path) => format!("unix|{}", path.display()),
            Address::Tcp(address) => format!("tcp|{address}"),
        }
    }

    /// go-plugin removes its socket file when the server stops.
    fn remove(&self) {
        if let Address::Unix(path) = self {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Binds a unix socket named like go-plugin's (`plugin` plus random digits) in `dir`.
#[cfg(unix)]
fn listen(dir: &std::path::Path) -> Result<(tls::Listener, Address), ServeError> {
    let mut last_error = None;
    for attempt in 0..16u32 {
        let path = dir.join(format!("plugin{}", socket_suffix(attempt)));
        match tokio::net::UnixListener::bind(&path) {
            Ok(listener) => return Ok((listener, Address::Unix(path))),
            Err(err) if err.kind() == std::io::ErrorKind::AddrInUse => last_error = Some(err),
            Err(source) => return Err(ServeError::Listen { dir: dir.to_owned(), source }),
        }
    }
    let source = last_error.unwrap_or_else(|| std::io::Error::other("no free socket name"));
    Err(ServeError::Listen { dir: dir.to_owned(), source })
}

/// go-plugin on Windows: the first free port of `PLUGIN_MIN_PORT..=PLUGIN_MAX_PORT` on
/// 127.0.0.1, in order, and go-plugin's own errors when none is free or the range is wrong.
#[cfg(not(unix))]
fn listen(_dir: &std::path::Path) -> Result<(tls::Listener, Address), ServeError> {
    let port = |name: &str| -> Result<u16, ServeError> {
        match std::env::var(name) {
            Ok(text) if !text.is_empty() => text
                .parse()
                .map_err(|_| ServeError::ListenTcp(format!("couldn't get value from {name}: {text:?} is not a port"))),
            _ => Ok(0),
        }
    };
    let (min, max) = (port("PLUGIN_MIN_PORT")?, port("PLUGIN_MAX_PORT")?);
    if min > max {
        return Err(ServeError::ListenTcp(format!(
            "PLUGIN_MIN_PORT value of {min} is greater than PLUGIN_MAX_PORT value of {max}"
        )));
    }
    for port in min..=max {
        if let Ok(listener) = std::net::TcpListener::bind(("127.0.0.1", port))
            && listener.set_nonblocking(true).is_ok()
            && let Ok(address) = listener.local_addr()
            && let Ok(listener) = tokio::net::TcpListener::from_std(listener)
        {
            return Ok((listener, Address::Tcp(address)));
        }
    }
    Err(ServeError::ListenTcp("couldn't bind plugin TCP listener".to_owned()))
}

#[cfg(unix)]
fn socket_suffix(attempt: u32) -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().subsec_nanos();
    let mixed = (u64::from(std::process::id()) << 32) ^ u64::from(nanos) ^ u64::from(attempt).wrapping_mul(0x9E37_79B9);
    mixed % 10_000_000_000
}

/// go-plugin servers catch SIGINT and ignore it: the host owns cancellation (it sends
/// `StopProvider`) and the terminal's Ctrl-C reaches the whole process group. Like
/// go-plugin's logger, the note goes to the real stderr, not through `GRPCStdio`.
#[cfg(unix)]
type Interrupts = tokio::signal::unix::Signal;
#[cfg(windows)]
type Interrupts = tokio::signal::windows::CtrlC;

fn log_ignored_interrupts(mut interrupts: Interrupts, mut log: std::fs::File) {
    tokio::spawn(async move {
        let mut count = 0u64;
        while interrupts.recv().await.is_some() {
            count += 1;
            let _ = writeln!(log, "[INFO]  plugin received interrupt signal, ignoring: count={count}");
        }
    });
}

type BoxStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

struct HealthService;

#[tonic::async_trait]
impl health::health_server::Health for HealthService {
    type WatchStream = BoxStream<health::HealthCheckResponse>;

    async fn check(
        &self,
        request: Request<health::HealthCheckRequest>,
    ) -> Result<Response<health::HealthCheckResponse>, Status> {
        serving_status(&request.get_ref().service).map(Response::new)
    }

    async fn watch(&self, request: Request<health::HealthCheckRequest>) -> Result<Response<Self::WatchStream>, Status> {
        let status = serving_status(&request.get_ref().service)?;
        // The status never changes while the process lives, so the stream sends it once and
        // then stays open, as a watch does.
        let stream = tokio_stream::once(Ok(status)).chain(tokio_stream::pending());
        Ok(Response::new(Box::pin(stream)))
    }
}

fn serving_status(service: &str) -> Result<health::HealthCheckResponse, Status> {
    match service {
        "" | "plugin" => {
            Ok(health::HealthCheckResponse { status: health::health_check_response::ServingStatus::Serving as i32 })
        }
        _ => Err(Status::not_found("unknown service")),
    }
}

struct ControllerService {
    shutdown: Arc<Notify>,
}

#[tonic::async_trait]
impl goplugin::grpc_controller_server::GrpcController for ControllerService {
    async fn shutdown(&self, _request: Request<goplugin::Empty>) -> Result<Response<goplugin::Empty>, Status> {
        self.shutdown.notify_one();
        Ok(Response::new(goplugin::Empty {}))
    }
}

struct StdioService {
    /// Shared by every `StreamStdio` call, as go-plugin's channels are; each piece of output
    /// goes to exactly one caller.
    output: Arc<Mutex<mpsc::Receiver<goplugin::StdioData>>>,
}

#[tonic::async_trait]
impl goplugin::grpc_stdio_server::GrpcStdio for StdioService {
    type StreamStdioStream = BoxStream<goplugin::StdioData>;

    async fn stream_stdio(&self, _request: Request<()>) -> Result<Response<Self::StreamStdioStream>, Status> {
        let output = self.output.clone();
        let (sender, receiver) = mpsc::channel(1);
        tokio::spawn(async move {
            loop {
                let Some(data) = output.lock().await.recv().await else { return };
                if sender.send(Ok(data)).await.is_err() {
                    // The caller went away; like go-plugin, the piece in hand is lost.
                    return;
                }
            }
        });
        Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(receiver))))
    }
}

struct BrokerService;

#[tonic::async_trait]
impl goplugin::grpc_broker_server::GrpcBroker for BrokerService {
    type StartStreamStream = BoxStream<goplugin::ConnInfo>;

    async fn start_stream(
        &self,
        request: Request<tonic::Streaming<goplugin::ConnInfo>>,
    ) -> Result<Response<Self::StartStreamStream>, Status> {
        // Terraform providers never broker sub-connections: accept the stream, read and
        // drop what the host sends, and end our side when the host ends its side.
        let mut inbound = request.into_inner();
        let (sender, receiver) = mpsc::channel::<Result<goplugin::ConnInfo, Status>>(1);
        tokio::spawn(async move {
            while let Some(Ok(_)) = inbound.next().await {}
            drop(sender);
        });
        Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(receiver))))
    }
}
