//! Launching bad providers: every failure is an error naming the executable (with its last
//! stderr lines where it wrote any), promptly; never a panic or a hang. The "providers" are
//! shell scripts, so these tests need no real provider.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{scratch_dir, write_script};
use tfbridge::tfplugin::{LaunchConfig, LaunchError, launch};

async fn launch_script(path: &Path, start_timeout: Duration) -> LaunchError {
    let mut config = LaunchConfig::terraform_defaults(path);
    config.start_timeout = start_timeout;
    config.auto_mtls = true;
    match launch(&config).await {
        Ok(_) => panic!("launching {} unexpectedly succeeded", path.display()),
        Err(err) => err,
    }
}

#[tokio::test]
async fn missing_executable() {
    let path = scratch_dir("missing").join("terraform-provider-nothere");
    let err = launch_script(&path, Duration::from_secs(5)).await;
    assert!(matches!(err, LaunchError::ExecutableNotFound { .. }), "{err}");
    assert_eq!(err.to_string(), format!("provider executable {} does not exist", path.display()));
}

#[cfg_attr(windows, ignore = "Windows has no execute permission")]
#[tokio::test]
async fn file_without_execute_permission() {
    let path = scratch_dir("noexec").join("terraform-provider-noexec");
    std::fs::write(&path, "#!/bin/sh\n").unwrap();
    let err = launch_script(&path, Duration::from_secs(5)).await;
    assert_eq!(
        err.to_string(),
        format!("provider executable {} is not executable: it has no execute permission", path.display())
    );
    let dir = scratch_dir("isdir");
    let err = launch_script(&dir, Duration::from_secs(5)).await;
    assert_eq!(err.to_string(), format!("provider executable {} is not executable: it is a directory", dir.display()));
}

#[cfg_attr(windows, ignore = "a #! shell script stands in for the provider")]
#[tokio::test]
async fn exits_before_the_handshake() {
    let dir = scratch_dir("exits");
    let path = write_script(&dir, "terraform-provider-exits", "echo 'Error: the cookie is wrong' >&2\nexit 3");
    let err = launch_script(&path, Duration::from_secs(30)).await;
    assert_eq!(
        err.to_string(),
        format!(
            "provider {} exited before the plugin handshake (exit status: 3); its last stderr lines:\n  Error: the cookie is wrong",
            path.display()
        )
    );
}

/// go-plugin's environment reaches the child: the script checks it and only then answers
/// with a handshake (pointing nowhere, so the launch stops at the connect stage).
#[cfg_attr(windows, ignore = "a #! shell script stands in for the provider")]
#[tokio::test]
async fn the_child_gets_go_plugins_environment() {
    let dir = scratch_dir("env");
    let path = write_script(
        &dir,
        "terraform-provider-env",
        &format!(
            "[ \"$TF_PLUGIN_MAGIC_COOKIE\" = d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2 ] || exit 10\n\
             [ \"$PLUGIN_PROTOCOL_VERSIONS\" = 5,6 ] || exit 11\n\
             [ \"$PLUGIN_MIN_PORT\" = 10000 ] && [ \"$PLUGIN_MAX_PORT\" = 25000 ] || exit 12\n\
             case \"$PLUGIN_CLIENT_CERT\" in -----BEGIN\\ CERTIFICATE-----*) ;; *) exit 13 ;; esac\n\
             echo '1|6|unix|{}/no.sock|grpc|'\nsleep 30",
            dir.display()
        ),
    );
    let err = launch_script(&path, Duration::from_secs(30)).await;
    assert!(matches!(err, LaunchError::Connect { .. }), "{err}");
}

#[cfg_attr(windows, ignore = "a #! shell script stands in for the provider")]
#[tokio::test]
async fn garbage_handshake_is_quoted() {
    let dir = scratch_dir("garbage");
    let path = write_script(&dir, "terraform-provider-garbage", "echo 'This binary is a plugin.'\nsleep 30");
    let err = launch_script(&path, Duration::from_secs(30)).await;
    assert_eq!(
        err.to_string(),
        format!(
            "provider {} printed an invalid plugin handshake \"This binary is a plugin.\": expected at least 4 '|'-separated fields, found 1; it wrote nothing to stderr",
            path.display()
        )
    );
}

#[cfg_attr(windows, ignore = "a #! shell script stands in for the provider")]
#[tokio::test]
async fn an_endless_first_line_is_cut_in_the_error() {
    let dir = scratch_dir("endless");
    let path =
        write_script(&dir, "terraform-provider-endless", "head -c 1000000 /dev/zero | tr '\\0' y\necho\nsleep 30");
    let err = launch_script(&path, Duration::from_secs(30)).await;
    let LaunchError::InvalidHandshake { line, .. } = &err else { panic!("expected an invalid handshake: {err}") };
    assert_eq!(line, &format!("{}...", "y".repeat(300)));
}

#[cfg_attr(windows, ignore = "a #! shell script stands in for the provider")]
#[tokio::test]
async fn unsupported_protocol_in_the_handshake() {
    let dir = scratch_dir("proto4");
    let path = write_script(&dir, "terraform-provider-old", "echo '1|4|unix|/tmp/x|netrpc|'\nsleep 30");
    let err = launch_script(&path, Duration::from_secs(30)).await;
    assert!(err.to_string().contains("unsupported Terraform plugin protocol version \"4\""), "{err}");
}

#[cfg_attr(windows, ignore = "a #! shell script stands in for the provider")]
#[tokio::test]
async fn a_handshake_that_never_comes_times_out() {
    let dir = scratch_dir("silent");
    let path = write_script(&dir, "terraform-provider-silent", "echo 'starting up' >&2\nexec sleep 60");
    let started = Instant::now();
    let err = launch_script(&path, Duration::from_millis(500)).await;
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    assert_eq!(
        err.to_string(),
        format!(
            "provider {} printed no plugin handshake within 500ms; its last stderr lines:\n  starting up",
            path.display()
        )
    );
}

/// Megabytes of stderr (including one 8 MB line) before the handshake: the launcher keeps
/// reading, sees the handshake and reaches the connect stage promptly.
#[cfg_attr(windows, ignore = "a #! shell script stands in for the provider")]
#[tokio::test]
async fn megabytes_of_stderr_before_the_handshake_do_not_block() {
    let dir = scratch_dir("flood-before");
    let path = write_script(
        &dir,
        "terraform-provider-flood",
        &format!(
            "head -c 8000000 /dev/zero | tr '\\0' x >&2\necho >&2\nyes 'stderr line' | head -c 4000000 >&2\n\
             echo '1|6|unix|{}/missing.sock|grpc|'\nsleep 30",
            dir.display()
        ),
    );
    let started = Instant::now();
    let err = launch_script(&path, Duration::from_secs(60)).await;
    let LaunchError::Connect { address, .. } = &err else { panic!("expected to reach the connect stage: {err}") };
    assert_eq!(address, &format!("unix:{}/missing.sock", dir.display()));
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
}

/// Windows runs only PE files, whatever their name: a script, or a provider built for Linux,
/// is refused naming the file, before the system's "%1 is not a valid Win32 application".
#[cfg(windows)]
#[tokio::test]
async fn a_file_that_is_no_windows_executable_is_refused_by_name() {
    let dir = scratch_dir("not-pe");
    let path = write_script(&dir, "terraform-provider-script.exe", "exit 0");
    let err = launch_script(&path, Duration::from_secs(5)).await;
    assert_eq!(
        err.to_string(),
        format!(
            "provider executable {} is not executable: it is not a Windows executable (a .exe file starts with MZ)",
            path.display()
        )
    );
    let elf = dir.join("terraform-provider-linux_v1.0.0_x5");
    std::fs::write(&elf, b"\x7fELF\x02\x01\x01").unwrap();
    let err = launch_script(&elf, Duration::from_secs(5)).await;
    assert_eq!(
        err.to_string(),
        format!(
            "provider executable {} is not executable: it is a Linux executable, and this is windows: use the provider's windows build",
            elf.display()
        )
    );
}

/// A path typed without `.exe` finds the `.exe` beside it, as Windows' own shells do; the
/// error for one that is not there at all names the path as typed.
#[cfg(windows)]
#[tokio::test]
async fn a_path_without_exe_finds_the_exe() {
    let dir = scratch_dir("no-exe");
    let fixture = common::fixture::wrapper_dir("6", &[]).expect("the fixture provider");
    let typed = fixture.join("terraform-provider-fixture");
    let mut config = LaunchConfig::terraform_defaults(&typed);
    config.auto_mtls = true;
    let client = launch(&config).await.expect("the .exe beside the typed path starts");
    client.shutdown().await;
    let missing = dir.join("terraform-provider-nothere");
    let err = launch_script(&missing, Duration::from_secs(5)).await;
    assert_eq!(err.to_string(), format!("provider executable {} does not exist", missing.display()));
}

/// On Windows providers listen on TCP loopback in go-plugin's port range. With every port
/// of the range taken, the provider exits at once and the error says why and what to set,
/// besides quoting the provider.
#[cfg(windows)]
#[tokio::test]
async fn a_port_range_with_no_free_port_is_a_clear_error() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let port = taken.local_addr().expect("its address").port().to_string();
    let fixture = common::fixture::wrapper_dir("6", &[]).expect("the fixture provider");
    let path = fixture.join("terraform-provider-fixture.exe");
    let mut config = LaunchConfig::terraform_defaults(&path);
    config.plugin_ports = (Some(port.clone()), Some(port.clone()));
    let started = Instant::now();
    let err = launch(&config).await.expect_err("no port is free");
    assert!(started.elapsed() < Duration::from_secs(20), "took {:?}", started.elapsed());
    let text = err.to_string();
    assert!(
        text.contains(&format!(
            "no port of {port}-{port} was free on 127.0.0.1; set PLUGIN_MIN_PORT and PLUGIN_MAX_PORT"
        )),
        "{text}"
    );
    assert!(text.contains("couldn't bind plugin TCP listener"), "{text}");
}

/// A range that cannot hold a port is refused before anything starts, naming the variable.
#[tokio::test]
async fn a_bad_port_range_is_refused_before_launch() {
    let fixture = common::fixture::wrapper_dir("6", &[]).expect("the fixture provider");
    let mut config = LaunchConfig::terraform_defaults(fixture.join("terraform-provider-fixture"));
    config.plugin_ports = (Some("30000".to_owned()), Some("20000".to_owned()));
    let err = launch(&config).await.expect_err("min above max");
    assert_eq!(
        err.to_string(),
        "PLUGIN_MIN_PORT (30000) is greater than PLUGIN_MAX_PORT (20000): providers would find no port to listen on"
    );
}
