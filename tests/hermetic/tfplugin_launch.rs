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

#[tokio::test]
async fn an_endless_first_line_is_cut_in_the_error() {
    let dir = scratch_dir("endless");
    let path =
        write_script(&dir, "terraform-provider-endless", "head -c 1000000 /dev/zero | tr '\\0' y\necho\nsleep 30");
    let err = launch_script(&path, Duration::from_secs(30)).await;
    let LaunchError::InvalidHandshake { line, .. } = &err else { panic!("expected an invalid handshake: {err}") };
    assert_eq!(line, &format!("{}...", "y".repeat(300)));
}

#[tokio::test]
async fn unsupported_protocol_in_the_handshake() {
    let dir = scratch_dir("proto4");
    let path = write_script(&dir, "terraform-provider-old", "echo '1|4|unix|/tmp/x|netrpc|'\nsleep 30");
    let err = launch_script(&path, Duration::from_secs(30)).await;
    assert!(err.to_string().contains("unsupported Terraform plugin protocol version \"4\""), "{err}");
}

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
