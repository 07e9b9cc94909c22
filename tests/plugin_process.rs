//! The plugin binary, started the way the Pulumi engine starts it, called over real gRPC.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::plugin::{BINARY, Plugin};
use tfbridge_proto::pulumirpc;
use tokio::sync::mpsc;

/// A stand-in for the engine's `Engine` service that records what the plugin logs.
async fn recording_engine() -> (String, mpsc::UnboundedReceiver<pulumirpc::LogRequest>) {
    struct Recorder(mpsc::UnboundedSender<pulumirpc::LogRequest>);

    #[tonic::async_trait]
    impl pulumirpc::engine_server::Engine for Recorder {
        async fn log(
            &self,
            request: tonic::Request<pulumirpc::LogRequest>,
        ) -> Result<tonic::Response<()>, tonic::Status> {
            let _ = self.0.send(request.into_inner());
            Ok(tonic::Response::new(()))
        }
        async fn get_root_resource(
            &self,
            _: tonic::Request<pulumirpc::GetRootResourceRequest>,
        ) -> Result<tonic::Response<pulumirpc::GetRootResourceResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("not recorded"))
        }
        async fn set_root_resource(
            &self,
            _: tonic::Request<pulumirpc::SetRootResourceRequest>,
        ) -> Result<tonic::Response<pulumirpc::SetRootResourceResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("not recorded"))
        }
        async fn start_debugging(
            &self,
            _: tonic::Request<pulumirpc::StartDebuggingRequest>,
        ) -> Result<tonic::Response<()>, tonic::Status> {
            Err(tonic::Status::unimplemented("not recorded"))
        }
        async fn require_pulumi_version(
            &self,
            _: tonic::Request<pulumirpc::RequirePulumiVersionRequest>,
        ) -> Result<tonic::Response<pulumirpc::RequirePulumiVersionResponse>, tonic::Status> {
            Err(tonic::Status::unimplemented("not recorded"))
        }
    }

    let (sender, receiver) = mpsc::unbounded_channel();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("local addr").to_string();
    tokio::spawn(
        tonic::transport::Server::builder()
            .add_service(pulumirpc::engine_server::EngineServer::new(Recorder(sender)))
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener)),
    );
    (address, receiver)
}

fn handshake_request(engine_address: &str) -> pulumirpc::ProviderHandshakeRequest {
    pulumirpc::ProviderHandshakeRequest {
        engine_address: engine_address.to_owned(),
        root_directory: Some("/tmp".to_owned()),
        program_directory: Some("/tmp".to_owned()),
        configure_with_urn: true,
        supports_views: true,
        supports_refresh_before_update: true,
        invoke_with_preview: true,
        accepts_byte_string: true,
        ..Default::default()
    }
}

#[tokio::test]
async fn started_like_the_engine_answers_and_exits_cleanly_on_sigint() {
    let (engine_address, _logs) = recording_engine().await;
    // The flags the engine adds with --logflow and tracing, then the engine address.
    let mut plugin = Plugin::start(&["--logtostderr", "-v=9", "--tracing", "127.0.0.1:1", &engine_address]);
    let mut client = plugin.client().await;

    let handshake = client.handshake(handshake_request(&engine_address)).await.expect("Handshake").into_inner();
    assert!(handshake.accept_secrets && handshake.accept_resources && handshake.supports_autonaming_configuration);
    assert!(!handshake.accept_outputs, "we do not take output values");

    let info = client.get_plugin_info(()).await.expect("GetPluginInfo").into_inner();
    let version = semver::Version::parse(&info.version).expect("GetPluginInfo answers a strict semver");
    assert_eq!(version.to_string(), env!("CARGO_PKG_VERSION"));

    let status =
        client.construct(pulumirpc::ConstructRequest::default()).await.expect_err("Construct is unimplemented");
    assert_eq!(status.code(), tonic::Code::Unimplemented);
    assert!(status.message().contains("Construct"), "the error names the method: {}", status.message());

    drop(client);
    plugin.signal(libc::SIGINT);
    let exit = plugin.wait_exit(Duration::from_secs(5));
    assert_eq!(exit.code(), Some(0), "clean exit on SIGINT");
}

#[tokio::test]
async fn sigterm_also_exits_cleanly() {
    let mut plugin = Plugin::start(&["127.0.0.1:9"]);
    plugin.signal(libc::SIGTERM);
    assert_eq!(plugin.wait_exit(Duration::from_secs(5)).code(), Some(0));
}

#[tokio::test]
async fn cancel_returns_at_once_and_later_calls_still_answer() {
    let plugin = Plugin::start(&["127.0.0.1:9"]);
    let mut client = plugin.client().await;
    let started = Instant::now();
    client.cancel(()).await.expect("Cancel");
    assert!(started.elapsed() < Duration::from_secs(1), "Cancel took {:?}", started.elapsed());
    // Cancellation stops work, not the server: the engine still calls GetPluginInfo and
    // expects the process to be shut down by signal afterwards.
    client.get_plugin_info(()).await.expect("GetPluginInfo after Cancel");
}

#[tokio::test]
async fn every_unbuilt_rpc_answers_unimplemented_naming_itself() {
    let plugin = Plugin::start(&["127.0.0.1:9"]);
    let mut client = plugin.client().await;
    let outcomes = [
        ("CheckConfig", client.check_config(pulumirpc::CheckRequest::default()).await.map(drop)),
        ("DiffConfig", client.diff_config(pulumirpc::DiffRequest::default()).await.map(drop)),
        ("Configure", client.configure(pulumirpc::ConfigureRequest::default()).await.map(drop)),
        ("Invoke", client.invoke(pulumirpc::InvokeRequest::default()).await.map(drop)),
        ("Call", client.call(pulumirpc::CallRequest::default()).await.map(drop)),
        ("Check", client.check(pulumirpc::CheckRequest::default()).await.map(drop)),
        ("Diff", client.diff(pulumirpc::DiffRequest::default()).await.map(drop)),
        ("Create", client.create(pulumirpc::CreateRequest::default()).await.map(drop)),
        ("Read", client.read(pulumirpc::ReadRequest::default()).await.map(drop)),
        ("List", client.list(pulumirpc::ListRequest::default()).await.map(drop)),
        ("Update", client.update(pulumirpc::UpdateRequest::default()).await.map(drop)),
        ("Delete", client.delete(pulumirpc::DeleteRequest::default()).await.map(drop)),
        ("GetMapping", client.get_mapping(pulumirpc::GetMappingRequest::default()).await.map(drop)),
        ("GetMappings", client.get_mappings(pulumirpc::GetMappingsRequest::default()).await.map(drop)),
    ];
    for (method, outcome) in outcomes {
        let Err(status) = outcome else {
            // As RPCs get built they leave this table; until then an answer is a surprise.
            panic!("{method} answered; move it out of this table and give it its own tests");
        };
        assert_eq!(status.code(), tonic::Code::Unimplemented, "{method}: {status}");
        assert!(status.message().starts_with(method), "{method}: {}", status.message());
    }
}

#[tokio::test]
async fn attach_mode_prints_a_port_and_takes_the_engine_address_from_attach() {
    let (engine_address, _logs) = recording_engine().await;
    let plugin = Plugin::start(&[]);
    let mut client = plugin.client().await;
    // In attach mode the engine handshakes without directories, then attaches.
    let mut request = handshake_request(&engine_address);
    request.root_directory = None;
    request.program_directory = None;
    client.handshake(request).await.expect("Handshake");
    client.attach(pulumirpc::PluginAttach { address: engine_address.clone() }).await.expect("Attach");
    let status = client.attach(pulumirpc::PluginAttach { address: "no port here".to_owned() }).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status}");
}

#[test]
fn bad_arguments_give_usage_on_stderr_exit_2_and_nothing_on_stdout() {
    let cases: &[&[&str]] = &[
        &["--bogus"],
        &["not-an-address"],
        &["127.0.0.1:0"],
        &["127.0.0.1:1", "extra"],
        &["--tracing"],
        &["-v=abc"],
        &[""],
    ];
    for args in cases {
        let output = Command::new(BINARY).args(*args).stdin(Stdio::null()).output().expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?} printed to stdout: {:?}", String::from_utf8_lossy(&output.stdout));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
}

#[test]
fn help_goes_to_stderr_never_stdout() {
    let output = Command::new(BINARY).arg("--help").output().expect("runs");
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("ENGINE_ADDRESS"));
}

#[tokio::test]
async fn engine_log_reaches_the_engine_with_severity_urn_and_ephemeral_flag() {
    let (engine_address, mut logs) = recording_engine().await;
    let log = tfbridge::server::EngineLog::default();
    log.connect(&engine_address).expect("valid address");
    log.log(tfbridge::server::Severity::Warning, Some("urn:pulumi:s::p::t::n"), "careful").await;
    log.status(None, "downloading 3 of 7 MB").await;

    let first = tokio::time::timeout(Duration::from_secs(5), logs.recv()).await.expect("in time").expect("a log");
    assert_eq!(first.severity(), pulumirpc::LogSeverity::Warning);
    assert_eq!(
        (first.urn.as_str(), first.message.as_str(), first.ephemeral),
        ("urn:pulumi:s::p::t::n", "careful", false)
    );
    let second = tokio::time::timeout(Duration::from_secs(5), logs.recv()).await.expect("in time").expect("a log");
    assert_eq!((second.message.as_str(), second.ephemeral), ("downloading 3 of 7 MB", true));
}

#[test]
fn stdout_holds_only_the_port_line() {
    let mut child =
        Command::new(BINARY).arg("127.0.0.1:9").stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("starts");
    let mut stdout = child.stdout.take().expect("piped");
    std::thread::sleep(Duration::from_millis(300));
    // SAFETY: as in Plugin::signal.
    unsafe { libc::kill(libc::pid_t::try_from(child.id()).expect("pid"), libc::SIGINT) };
    let mut all = String::new();
    stdout.read_to_string(&mut all).expect("read stdout");
    assert_eq!(child.wait().expect("wait").code(), Some(0));
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(lines.len(), 1, "stdout: {all:?}");
    assert!(lines[0].parse::<u16>().is_ok(), "stdout: {all:?}");
}
