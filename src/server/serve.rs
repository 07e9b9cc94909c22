//! Serving: the listener the engine's plugin handshake expects, and the process's shutdown
//! sequence (cancel, close the ephemeral resources, finish the schema cache write, let the
//! connections go).

use std::future::Future;
use std::sync::Arc;

use tfbridge_proto::pulumirpc;
use tokio_util::sync::CancellationToken;

use super::{EngineLog, Provider, Severity, plugin_identity};
use crate::lifecycle::Session;

/// Closes the provider's open ephemeral resources and says what went wrong, to the engine
/// (an error naming the function) and to stderr.
pub(super) async fn close_ephemerals(session: &Session, engine_log: &EngineLog) {
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
pub(super) const CLOSE_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// How long shutdown waits for a schema cache write still running.
const CACHE_WRITE_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// How long open connections may linger once shutdown begins.
const SHUTDOWN_GRACE: std::time::Duration = std::time::Duration::from_secs(1);
