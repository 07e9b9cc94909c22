//! The plugin binary, started the way the Pulumi engine starts it, called over real gRPC.

use crate::common;

use std::io::{BufRead, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::engine_service::recording_engine;
use common::our_plugin;
use common::plugin::Plugin;
use tfbridge_proto::pulumirpc;

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
    plugin.interrupt();
    let exit = plugin.wait_exit(Duration::from_secs(5));
    assert_eq!(exit.code(), Some(0), "clean exit on SIGINT");
}

#[cfg(unix)]
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
async fn before_parameterize_calls_say_what_is_missing() {
    let plugin = Plugin::start(&["127.0.0.1:9"]);
    let mut client = plugin.client().await;
    use tonic::Code::{FailedPrecondition, Unimplemented};
    let not_parameterized = "this terraform-provider instance has not been parameterized";
    let outcomes = [
        (
            "CheckConfig",
            client.check_config(pulumirpc::CheckRequest::default()).await.map(drop),
            FailedPrecondition,
            not_parameterized,
        ),
        (
            "DiffConfig",
            client.diff_config(pulumirpc::DiffRequest::default()).await.map(drop),
            FailedPrecondition,
            not_parameterized,
        ),
        (
            "Configure",
            client.configure(pulumirpc::ConfigureRequest::default()).await.map(drop),
            FailedPrecondition,
            not_parameterized,
        ),
        (
            "Invoke",
            client.invoke(pulumirpc::InvokeRequest::default()).await.map(drop),
            FailedPrecondition,
            not_parameterized,
        ),
        (
            "Check",
            client.check(pulumirpc::CheckRequest::default()).await.map(drop),
            FailedPrecondition,
            not_parameterized,
        ),
        ("Diff", client.diff(pulumirpc::DiffRequest::default()).await.map(drop), FailedPrecondition, not_parameterized),
        (
            "Create",
            client.create(pulumirpc::CreateRequest::default()).await.map(drop),
            FailedPrecondition,
            not_parameterized,
        ),
        ("Read", client.read(pulumirpc::ReadRequest::default()).await.map(drop), FailedPrecondition, not_parameterized),
        (
            "Update",
            client.update(pulumirpc::UpdateRequest::default()).await.map(drop),
            FailedPrecondition,
            not_parameterized,
        ),
        (
            "Delete",
            client.delete(pulumirpc::DeleteRequest::default()).await.map(drop),
            FailedPrecondition,
            not_parameterized,
        ),
        // The provider resource's terraformConfig method needs the provider.
        ("Call", client.call(pulumirpc::CallRequest::default()).await.map(drop), FailedPrecondition, not_parameterized),
        ("List", client.list(pulumirpc::ListRequest::default()).await.map(drop), FailedPrecondition, not_parameterized),
        // Terraform has no components: Construct stays unimplemented.
        (
            "Construct",
            client.construct(pulumirpc::ConstructRequest::default()).await.map(drop),
            Unimplemented,
            "Construct",
        ),
    ];
    for (method, outcome, code, message) in outcomes {
        let status = outcome.expect_err(method);
        assert_eq!(status.code(), code, "{method}: {status}");
        assert!(status.message().starts_with(message), "{method}: {}", status.message());
    }
    // Mappings are asked for by `pulumi convert` of any provider: nothing to map is empty.
    let mapping = client.get_mapping(pulumirpc::GetMappingRequest::default()).await.expect("GetMapping").into_inner();
    assert!(mapping.data.is_empty() && mapping.provider.is_empty());
    let mappings = client.get_mappings(pulumirpc::GetMappingsRequest::default()).await.expect("GetMappings");
    assert!(mappings.into_inner().providers.is_empty());
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
        let output = Command::new(our_plugin()).args(*args).stdin(Stdio::null()).output().expect("runs");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?} printed to stdout: {:?}", String::from_utf8_lossy(&output.stdout));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
}

#[test]
fn help_goes_to_stderr_never_stdout() {
    let output = Command::new(our_plugin()).arg("--help").output().expect("runs");
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("ENGINE_ADDRESS"));
}

#[test]
fn version_prints_cargo_toml_version_on_stdout() {
    for flag in ["--version", "-V"] {
        let output = Command::new(our_plugin()).arg(flag).stdin(Stdio::null()).output().expect("runs");
        assert_eq!(output.status.code(), Some(0), "{flag}");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            format!("pulumi-resource-terraform-provider {} (Rust implementation)\n", env!("CARGO_PKG_VERSION")),
            "{flag}"
        );
        assert!(output.stderr.is_empty(), "{flag}: {}", String::from_utf8_lossy(&output.stderr));
    }
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
    let mut command = Command::new(our_plugin());
    command.arg("127.0.0.1:9").stdout(Stdio::piped()).stderr(Stdio::null());
    #[cfg(windows)]
    std::os::windows::process::CommandExt::creation_flags(
        &mut command,
        windows_sys::Win32::System::Threading::CREATE_NEW_PROCESS_GROUP,
    );
    let mut child = command.spawn().expect("starts");
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("piped"));
    // Ready once the port is announced: the signal handlers are installed before that.
    let mut all = String::new();
    stdout.read_line(&mut all).expect("read the port line");
    common::plugin::interrupt(&child);
    stdout.read_to_string(&mut all).expect("read stdout");
    assert_eq!(child.wait().expect("wait").code(), Some(0));
    let lines: Vec<&str> = all.lines().collect();
    assert_eq!(lines.len(), 1, "stdout: {all:?}");
    assert!(lines[0].parse::<u16>().is_ok(), "stdout: {all:?}");
}

/// A shell stands in for the Pulumi CLI: it launches the plugin as its child and waits.
/// Returns the shell, the plugin's pid and the port it announced.
#[cfg(unix)]
fn start_under_a_launcher(plugin: &std::path::Path) -> (std::process::Child, u32, u16) {
    use std::io::BufReader;
    let mut launcher = Command::new("sh")
        .args(["-c", "\"$0\" 127.0.0.1:9 & echo \"pid $!\"; wait", plugin.to_str().expect("a UTF-8 path")])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("sh starts");
    let mut stdout = BufReader::new(launcher.stdout.take().expect("piped"));
    let (mut plugin_pid, mut port) = (None, None);
    while plugin_pid.is_none() || port.is_none() {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).expect("read") > 0, "the launcher's output ended early");
        match line.trim().strip_prefix("pid ") {
            Some(pid) => plugin_pid = Some(pid.parse::<u32>().expect("a pid")),
            None => port = Some(line.trim().parse::<u16>().expect("a port line")),
        }
    }
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    (launcher, plugin_pid.expect("pid"), port.expect("port"))
}

/// Windows: `cmd /c` stands in for the Pulumi CLI; the plugin is its only child.
#[cfg(windows)]
fn start_under_a_launcher(plugin: &std::path::Path) -> (std::process::Child, u32, u16) {
    use std::io::BufReader;
    let mut launcher = Command::new("cmd")
        .arg("/c")
        .arg(plugin)
        .arg("127.0.0.1:9")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("cmd starts");
    let mut stdout = BufReader::new(launcher.stdout.take().expect("piped"));
    let mut line = String::new();
    assert!(stdout.read_line(&mut line).expect("read") > 0, "the launcher's output ended early");
    let port = line.trim().parse::<u16>().expect("a port line");
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let children = common::children_of(launcher.id());
    assert_eq!(children.len(), 1, "cmd runs the plugin only: {children:?}");
    (launcher, children[0], port)
}

/// An engine killed with SIGKILL tells nobody. The plugin notices that its launcher is gone,
/// stops the Terraform provider it runs and exits within seconds, instead of living on.
#[tokio::test]
async fn when_its_launcher_is_killed_the_plugin_and_its_terraform_provider_exit() {
    let fixture = common::fixture::wrapper_dir("6", &[]).expect("the fixture provider");
    let (mut launcher, plugin_pid, port) = start_under_a_launcher(&our_plugin());
    let mut client =
        pulumirpc::resource_provider_client::ResourceProviderClient::connect(format!("http://127.0.0.1:{port}"))
            .await
            .expect("connects to the plugin");
    let args = vec![fixture.join("terraform-provider-fixture").display().to_string()];
    client
        .parameterize(pulumirpc::ParameterizeRequest {
            parameters: Some(pulumirpc::parameterize_request::Parameters::Args(
                pulumirpc::parameterize_request::ParametersArgs { args },
            )),
        })
        .await
        .expect("Parameterize launches the fixture provider");
    let providers = common::children_of(plugin_pid);
    assert_eq!(providers.len(), 1, "the plugin runs one Terraform provider: {providers:?}");
    drop(client);

    // SIGKILL on Unix, TerminateProcess on Windows: either way the launcher tells nobody.
    launcher.kill().expect("kill the launcher");
    launcher.wait().expect("reap the launcher");

    assert!(
        common::wait_until_dead(plugin_pid, Duration::from_secs(5)),
        "the plugin {plugin_pid} still runs 5 s after its launcher was killed"
    );
    for provider in providers {
        assert!(
            common::wait_until_dead(provider, Duration::from_secs(5)),
            "the Terraform provider {provider} outlived the plugin"
        );
    }
}

/// The plugin killed outright (SIGKILL; TerminateProcess on Windows) runs no code of its own
/// to stop its provider: the system must. On Linux the provider's parent-death signal does it,
/// on Windows the provider's Job Object, whose only handle dies with the plugin.
#[tokio::test]
async fn a_plugin_killed_outright_takes_its_terraform_provider_with_it() {
    let fixture = common::fixture::wrapper_dir("6", &[]).expect("the fixture provider");
    let mut plugin = Plugin::start(&["127.0.0.1:9"]);
    let args = vec![fixture.join("terraform-provider-fixture").display().to_string()];
    plugin
        .parameterize(pulumirpc::parameterize_request::Parameters::Args(
            pulumirpc::parameterize_request::ParametersArgs { args },
        ))
        .await
        .expect("Parameterize launches the fixture provider");
    let providers = common::children_of(plugin.child.id());
    assert_eq!(providers.len(), 1, "the plugin runs one Terraform provider: {providers:?}");

    plugin.child.kill().expect("kill the plugin");
    plugin.child.wait().expect("reap the plugin");
    assert!(
        common::wait_until_dead(providers[0], Duration::from_secs(5)),
        "the Terraform provider {} outlived the plugin killed outright",
        providers[0]
    );
}
