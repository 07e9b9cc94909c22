//! go-plugin's side services as the launcher uses them, against a stand-in plugin: a shell
//! script prints a handshake pointing at a unix socket that this test serves in-process
//! with GRPCStdio and GRPCController (plaintext, as go-plugin without auto-mTLS).
//!
//! This shows that the GRPCStdio stream is opened at once and drained, and so is the real
//! stderr after the handshake (megabytes of output never stall the plugin), and that
//! shutdown is the polite Shutdown RPC when the plugin obeys it, and a kill after two
//! seconds when it does not.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::{scratch_dir, wait_until_dead, write_script};
use tfbridge::tfplugin::{LaunchConfig, ProviderClient, launch};
use tfbridge_proto::goplugin;
use tokio_stream::wrappers::{ReceiverStream, UnixListenerStream};

/// The stand-in plugin's gRPC side.
struct StandIn {
    /// Lines to stream over GRPCStdio's stderr channel, each its own message.
    stdio_lines: usize,
    /// Set once every stdio message was handed to the transport.
    stdio_done: Arc<AtomicBool>,
    /// Whether Shutdown makes the plugin process exit (by creating this file).
    stop_file: Option<PathBuf>,
    shutdown_called: Arc<AtomicBool>,
}

/// The gRPC services, over the shared state the test inspects.
#[derive(Clone)]
struct Service(Arc<StandIn>);

#[tonic::async_trait]
impl goplugin::grpc_stdio_server::GrpcStdio for Service {
    type StreamStdioStream = ReceiverStream<Result<goplugin::StdioData, tonic::Status>>;

    async fn stream_stdio(
        &self,
        _request: tonic::Request<()>,
    ) -> Result<tonic::Response<Self::StreamStdioStream>, tonic::Status> {
        // A one-slot channel: sending waits for the client to take each message, as
        // go-plugin's unbuffered channels do.
        let (sender, receiver) = tokio::sync::mpsc::channel(1);
        let (lines, done) = (self.0.stdio_lines, self.0.stdio_done.clone());
        tokio::spawn(async move {
            for idx in 0..lines {
                let data = format!("stdio line {idx} {}\n", "x".repeat(1000)).into_bytes();
                let message = goplugin::StdioData { channel: goplugin::stdio_data::Channel::Stderr as i32, data };
                if sender.send(Ok(message)).await.is_err() {
                    return;
                }
            }
            done.store(true, Ordering::SeqCst);
            // Keep the stream open, as a live plugin does.
            sender.closed().await;
        });
        Ok(tonic::Response::new(ReceiverStream::new(receiver)))
    }
}

#[tonic::async_trait]
impl goplugin::grpc_controller_server::GrpcController for Service {
    async fn shutdown(
        &self,
        _request: tonic::Request<goplugin::Empty>,
    ) -> Result<tonic::Response<goplugin::Empty>, tonic::Status> {
        self.0.shutdown_called.store(true, Ordering::SeqCst);
        if let Some(stop_file) = &self.0.stop_file {
            std::fs::write(stop_file, "").map_err(|err| tonic::Status::internal(err.to_string()))?;
        }
        Ok(tonic::Response::new(goplugin::Empty {}))
    }
}

/// Serves the stand-in on a fresh socket in `dir` and returns the plugin script to launch.
fn serve_stand_in(dir: &Path, stand_in: Arc<StandIn>) -> PathBuf {
    serve_stand_in_with(dir, stand_in, "")
}

/// As [`serve_stand_in`], with shell commands the plugin runs right after its handshake.
fn serve_stand_in_with(dir: &Path, stand_in: Arc<StandIn>, after_handshake: &str) -> PathBuf {
    let socket = dir.join("plugin.sock");
    let listener = tokio::net::UnixListener::bind(&socket).expect("bind the stand-in socket");
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(goplugin::grpc_stdio_server::GrpcStdioServer::new(Service(stand_in.clone())))
            .add_service(goplugin::grpc_controller_server::GrpcControllerServer::new(Service(stand_in)))
            .serve_with_incoming(UnixListenerStream::new(listener)),
    );
    write_script(
        dir,
        "terraform-provider-standin",
        &format!(
            "echo '1|6|unix|{socket}|grpc|'\n{after_handshake}\nwhile [ ! -e '{dir}/stop' ]; do sleep 0.02; done\nexit 0",
            socket = socket.display(),
            dir = dir.display()
        ),
    )
}

async fn launch_stand_in(script: &Path) -> ProviderClient {
    let mut config = LaunchConfig::terraform_defaults(script);
    config.start_timeout = Duration::from_secs(30);
    launch(&config).await.unwrap_or_else(|err| panic!("launching the stand-in failed: {err}"))
}

fn stand_in(stdio_lines: usize, stop_file: Option<PathBuf>) -> Arc<StandIn> {
    Arc::new(StandIn {
        stdio_lines,
        stdio_done: Arc::new(AtomicBool::new(false)),
        stop_file,
        shutdown_called: Arc::new(AtomicBool::new(false)),
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn megabytes_of_grpc_stdio_are_drained_from_the_start() {
    let dir = scratch_dir("stdio");
    // 20,000 messages of about 1 KiB: about 20 MB, far beyond any transport buffer.
    let plugin = stand_in(20_000, Some(dir.join("stop")));
    let script = serve_stand_in(&dir, plugin.clone());
    let client = launch_stand_in(&script).await;

    let deadline = Instant::now() + Duration::from_secs(60);
    while !plugin.stdio_done.load(Ordering::SeqCst) {
        assert!(Instant::now() < deadline, "the GRPCStdio stream was not drained within 60 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The last message may still be on its way through the client's reader.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let recent = client.recent_stderr();
        if recent.last().is_some_and(|line| line.starts_with("stdio line 19999 ")) {
            break;
        }
        assert!(Instant::now() < deadline, "last stdio line not recorded: {:?}", recent.last());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    client.shutdown().await;
}

/// A plugin that writes megabytes to its real stderr right after the handshake is never
/// blocked by a full pipe: it gets to the end of its output while we are connected.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn megabytes_of_stderr_after_the_handshake_do_not_block_the_plugin() {
    let dir = scratch_dir("stderr-after");
    let plugin = stand_in(0, Some(dir.join("stop")));
    let flood = format!(
        "yes 'chatter after the handshake' | head -c 8000000 >&2\necho >&2\necho 'last words' >&2\ntouch '{}/flooded'",
        dir.display()
    );
    let script = serve_stand_in_with(&dir, plugin, &flood);
    let client = launch_stand_in(&script).await;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !dir.join("flooded").exists() {
        assert!(Instant::now() < deadline, "8 MB of stderr were not drained within 30 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while client.recent_stderr().last().map(String::as_str) != Some("last words") {
        assert!(
            Instant::now() < deadline,
            "the last stderr line was not recorded: {:?}",
            client.recent_stderr().last()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_asks_politely_first() {
    let dir = scratch_dir("shutdown");
    let plugin = stand_in(0, Some(dir.join("stop")));
    let script = serve_stand_in(&dir, plugin.clone());
    let client = launch_stand_in(&script).await;
    let pid = client.pid().expect("pid");

    let started = Instant::now();
    client.shutdown().await;
    assert!(plugin.shutdown_called.load(Ordering::SeqCst), "GRPCController.Shutdown was not called");
    assert!(started.elapsed() < Duration::from_millis(1500), "an obedient plugin took {:?}", started.elapsed());
    assert!(wait_until_dead(pid, Duration::from_secs(1)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_ignoring_shutdown_is_killed_after_two_seconds() {
    let dir = scratch_dir("stubborn");
    let plugin = stand_in(0, None);
    let script = serve_stand_in(&dir, plugin.clone());
    let client = launch_stand_in(&script).await;
    let pid = client.pid().expect("pid");

    let started = Instant::now();
    client.shutdown().await;
    let elapsed = started.elapsed();
    assert!(plugin.shutdown_called.load(Ordering::SeqCst));
    assert!(elapsed >= Duration::from_secs(2) && elapsed < Duration::from_secs(8), "took {elapsed:?}");
    assert!(wait_until_dead(pid, Duration::from_secs(1)), "the stubborn plugin survived shutdown");
}
