//! Starting a provider exactly as Terraform does, and attaching to one already running.
//!
//! Launch: check the executable, make a client certificate (auto-mTLS), start the process
//! with go-plugin's environment, wait for the handshake line on stdout, connect gRPC, and
//! open GRPCStdio at once so the provider never blocks on its own output.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tfbridge_proto::goplugin;
use tonic::transport::Channel;

use super::client::ProviderClient;
use super::error::LaunchError;
use super::handshake::parse_handshake;
use super::output::{LineSplitter, ProviderOutput, Stream};
use super::process::{EXIT_GRACE, spawn};
use super::reattach::ReattachConfig;
use super::tls::{client_config, generate_client_identity};
use super::transport::connect;

/// The value every Terraform provider checks before serving ("should NEVER be changed").
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
pub const MAGIC_COOKIE_VALUE: &str = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

/// The terraform-plugin-log variables that set a provider's log levels: the SDKs' own
/// loggers (plugin-go's protocol logger, the framework, SDKv2's helper/schema, mux) and the
/// provider's. Unset, each logs at TRACE.
const PROVIDER_LOG_LEVEL_VARS: [&str; 6] = [
    "TF_LOG_SDK",
    "TF_LOG_SDK_PROTO",
    "TF_LOG_SDK_FRAMEWORK",
    "TF_LOG_SDK_HELPER_SCHEMA",
    "TF_LOG_SDK_MUX",
    "TF_LOG_PROVIDER",
];

/// The log levels to start a provider with. Left alone, terraform-plugin-go providers write
/// about a hundred TRACE and DEBUG lines per call to stderr (25,000 for a no-change preview
/// of 200 random resources), which the provider spends CPU writing and we spend CPU reading,
/// only to drop them: we keep those levels only when our own `tfplugin::provider` target
/// logs at DEBUG (`keep_debug`). So unless the user set any `TF_LOG*` variable (then their
/// choice stands, as with Terraform), providers log at INFO: warnings, errors and panics,
/// which crash errors quote, still arrive.
fn provider_log_levels(
    user_vars: impl IntoIterator<Item = std::ffi::OsString>,
    keep_debug: bool,
) -> Vec<(&'static str, &'static str)> {
    let user_chose = user_vars.into_iter().any(|name| name.to_string_lossy().starts_with("TF_LOG"));
    if keep_debug || user_chose {
        return Vec::new();
    }
    PROVIDER_LOG_LEVEL_VARS.iter().map(|name| (*name, "INFO")).collect()
}

/// go-plugin's port range: where a provider listens on Windows (elsewhere it serves on a
/// unix socket and ignores the range). Terraform always sends go-plugin's defaults,
/// 10000–25000, over whatever the user set; we take the user's `PLUGIN_MIN_PORT` and
/// `PLUGIN_MAX_PORT` when set, so a machine whose firewall opens only some loopback ports
/// can still run providers, and refuse values that would only make the provider fail.
fn plugin_port_range(min: Option<&str>, max: Option<&str>) -> Result<(u16, u16), LaunchError> {
    let parse = |name: &str, value: Option<&str>, default: u16| match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(default),
        Some(text) => match text.parse::<u16>() {
            Ok(port) if port > 0 => Ok(port),
            _ => Err(LaunchError::PortRange(format!("{name}={text:?} is not a port number (1-65535)"))),
        },
    };
    let min = parse("PLUGIN_MIN_PORT", min, 10000)?;
    let max = parse("PLUGIN_MAX_PORT", max, 25000)?;
    if min > max {
        return Err(LaunchError::PortRange(format!(
            "PLUGIN_MIN_PORT ({min}) is greater than PLUGIN_MAX_PORT ({max}): providers would find no port to listen on"
        )));
    }
    Ok((min, max))
}

/// What a provider that could not listen says (go-plugin's server, "Couldn't bind" in older
/// releases), and what to tell the user instead of only quoting it.
fn no_free_port_hint(stderr: &[String], (min, max): (u16, u16)) -> Option<String> {
    stderr.iter().any(|line| line.to_ascii_lowercase().contains("couldn't bind plugin tcp listener")).then(|| {
        format!("no port of {min}-{max} was free on 127.0.0.1; set PLUGIN_MIN_PORT and PLUGIN_MAX_PORT to a free range")
    })
}

/// How to start one provider.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    pub executable: PathBuf,
    /// How long to wait for the handshake line. Terraform waits one minute.
    pub start_timeout: Duration,
    /// go-plugin auto-mTLS. Terraform turns it off when `TF_DISABLE_PLUGIN_TLS` is set.
    pub auto_mtls: bool,
    /// `PLUGIN_MIN_PORT` and `PLUGIN_MAX_PORT` as the user set them, checked at launch.
    pub plugin_ports: (Option<String>, Option<String>),
}

impl LaunchConfig {
    /// Terraform's settings: a 60 s start timeout, and auto-mTLS unless
    /// `TF_DISABLE_PLUGIN_TLS` is set to a non-empty value; the user's go-plugin port range
    /// (see `plugin_port_range`).
    pub fn terraform_defaults(executable: impl Into<PathBuf>) -> LaunchConfig {
        let tls_disabled = std::env::var_os("TF_DISABLE_PLUGIN_TLS").is_some_and(|value| !value.is_empty());
        let env_text = |name: &str| std::env::var_os(name).map(|value| value.to_string_lossy().into_owned());
        LaunchConfig {
            executable: executable.into(),
            start_timeout: Duration::from_secs(60),
            auto_mtls: !tls_disabled,
            plugin_ports: (env_text("PLUGIN_MIN_PORT"), env_text("PLUGIN_MAX_PORT")),
        }
    }
}

/// What the launcher runs: `path` itself, or on Windows `path` with `.exe` added when only
/// that exists (a user may leave the extension out, as Windows' own shells allow). Refuses,
/// naming the file, what this system cannot run: a directory, a file without execute
/// permission (Unix), or a binary built for another system.
pub fn resolve_executable(path: &Path) -> Result<PathBuf, LaunchError> {
    let mut path = path.to_owned();
    let metadata = match std::fs::metadata(&path) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            let with_exe = exe_sibling(&path).and_then(|exe| Some((std::fs::metadata(&exe).ok()?, exe)));
            match with_exe {
                Some((metadata, exe)) => {
                    path = exe;
                    metadata
                }
                None => return Err(LaunchError::ExecutableNotFound { path }),
            }
        }
        Err(source) => return Err(LaunchError::Spawn { path, source }),
    };
    if metadata.is_dir() {
        return Err(LaunchError::NotExecutable { path, reason: "it is a directory".to_owned() });
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o111 == 0 {
            return Err(LaunchError::NotExecutable { path, reason: "it has no execute permission".to_owned() });
        }
    }
    let mut header = [0u8; 4];
    let read = std::fs::File::open(&path).and_then(|mut file| std::io::Read::read(&mut file, &mut header));
    if let Ok(n) = read
        && let Some(reason) = foreign_binary(binary_format(&header[..n]), std::env::consts::OS)
    {
        return Err(LaunchError::NotExecutable { path, reason });
    }
    Ok(path)
}

/// `path` with `.exe` appended, on Windows, when its name does not end in `.exe` already.
fn exe_sibling(path: &Path) -> Option<PathBuf> {
    if !cfg!(windows) || path.file_name()?.to_string_lossy().to_ascii_lowercase().ends_with(".exe") {
        return None;
    }
    let mut name = path.as_os_str().to_owned();
    name.push(".exe");
    Some(PathBuf::from(name))
}

/// What an executable file is, by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BinaryFormat {
    /// Linux and most other Unix systems.
    Elf,
    /// macOS, thin or universal.
    MachO,
    /// Windows (`MZ`).
    Pe,
    /// Anything else: a script with `#!`, or a file too short to tell.
    Other,
}

fn binary_format(header: &[u8]) -> BinaryFormat {
    match header {
        [0x7f, b'E', b'L', b'F', ..] => BinaryFormat::Elf,
        [0xfe, 0xed, 0xfa, 0xce | 0xcf, ..]
        | [0xce | 0xcf, 0xfa, 0xed, 0xfe, ..]
        | [0xca, 0xfe, 0xba, 0xbe, ..]
        | [0xbe, 0xba, 0xfe, 0xca, ..] => BinaryFormat::MachO,
        [b'M', b'Z', ..] => BinaryFormat::Pe,
        _ => BinaryFormat::Other,
    }
}

/// Why a binary of `format` cannot run on `os` (`std::env::consts::OS`), or `None` when it
/// may: the provider package of another platform, which the system would refuse with a
/// message that names neither the file nor the platform ("Exec format error", "%1 is not a
/// valid Win32 application"). Windows runs only PE files, whatever their name; Unix systems
/// also run scripts, so only the other systems' formats are refused there.
fn foreign_binary(format: BinaryFormat, os: &str) -> Option<String> {
    let built_for = match format {
        BinaryFormat::Elf => "Linux",
        BinaryFormat::MachO => "macOS",
        BinaryFormat::Pe => "Windows",
        BinaryFormat::Other if os == "windows" => {
            return Some("it is not a Windows executable (a .exe file starts with MZ)".to_owned());
        }
        BinaryFormat::Other => return None,
    };
    let native = match os {
        "windows" => format == BinaryFormat::Pe,
        "macos" => format == BinaryFormat::MachO,
        // Linux and the BSDs run ELF.
        _ => format == BinaryFormat::Elf,
    };
    (!native).then(|| format!("it is a {built_for} executable, and this is {os}: use the provider's {os} build"))
}

/// Starts the provider at `config.executable` and connects to it. The returned client owns
/// the process: dropping it kills the process, [`ProviderClient::shutdown`] stops it politely.
pub async fn launch(config: &LaunchConfig) -> Result<ProviderClient, LaunchError> {
    let path = resolve_executable(&config.executable)?;
    let provider = path.display().to_string();
    let identity = if config.auto_mtls {
        Some(generate_client_identity().map_err(|source| LaunchError::Tls { provider: provider.clone(), source })?)
    } else {
        None
    };

    let ports = plugin_port_range(config.plugin_ports.0.as_deref(), config.plugin_ports.1.as_deref())?;
    let mut command = tokio::process::Command::new(&path);
    command
        .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .env("PLUGIN_MIN_PORT", ports.0.to_string())
        .env("PLUGIN_MAX_PORT", ports.1.to_string());
    let keep_debug = tracing::enabled!(target: "tfplugin::provider", tracing::Level::DEBUG);
    command.envs(provider_log_levels(std::env::vars_os().map(|(name, _)| name), keep_debug));
    match &identity {
        Some(identity) => command.env("PLUGIN_CLIENT_CERT", &identity.certificate_pem),
        // An inherited value would make the provider expect TLS we will not speak.
        None => command.env_remove("PLUGIN_CLIENT_CERT"),
    };

    let output = Arc::new(ProviderOutput::new(provider.clone()));
    let spawned =
        spawn(command, output.clone()).await.map_err(|source| LaunchError::Spawn { path: path.clone(), source })?;
    let mut process = spawned.process;
    tracing::debug!(provider, pid = process.pid, "started provider");

    let line = tokio::select! {
        line = spawned.first_stdout_line => line.ok(),
        () = tokio::time::sleep(config.start_timeout) => {
            process.kill().await;
            process.wait_for_stderr_closed(EXIT_GRACE).await;
            return Err(LaunchError::HandshakeTimeout {
                path,
                timeout: config.start_timeout,
                stderr: output.recent_lines(),
            });
        }
    };
    let Some(line) = line else {
        let status = process.wait_for_exit(EXIT_GRACE).await;
        process.wait_for_stderr_closed(EXIT_GRACE).await;
        let status = match status {
            Some(status) => status.to_string(),
            None => "it closed stdout but kept running".to_owned(),
        };
        let stderr = output.recent_lines();
        let status = match no_free_port_hint(&stderr, ports) {
            Some(hint) => format!("{status}: {hint}"),
            None => status,
        };
        return Err(LaunchError::ExitedBeforeHandshake { path, status, stderr });
    };
    let handshake = match parse_handshake(&line) {
        Ok(handshake) => handshake,
        Err(source) => {
            // Give a crashing provider a moment to explain itself on stderr.
            process.wait_for_exit(Duration::from_millis(200)).await;
            process.wait_for_stderr_closed(Duration::from_millis(200)).await;
            // The line is quoted in the error; a binary that is not a plugin may print anything.
            let line = shorten_for_message(&line);
            return Err(LaunchError::InvalidHandshake { path, line, source, stderr: output.recent_lines() });
        }
    };
    tracing::debug!(provider, protocol = handshake.protocol.number(), address = %handshake.address, "provider handshake");

    let tls = match (identity, handshake.server_certificate) {
        (Some(identity), Some(server_certificate)) => Some(
            client_config(&identity, server_certificate)
                .map_err(|source| LaunchError::Tls { provider: provider.clone(), source })?,
        ),
        (Some(_), None) => {
            // Providers built with a go-plugin older than auto-mTLS ignore the client
            // certificate and serve plaintext on a private socket.
            tracing::warn!(provider, "provider did not enable TLS; connecting without it");
            None
        }
        (None, _) => None,
    };
    let uses_tls = tls.is_some();
    let channel = match connect(&handshake.address, tls, config.start_timeout).await {
        Ok(channel) => channel,
        Err(err) => {
            return Err(LaunchError::Connect {
                provider,
                address: handshake.address.to_string(),
                message: error_chain(&err),
                stderr: output.recent_lines(),
            });
        }
    };
    drain_stdio(channel.clone(), output.clone());
    Ok(ProviderClient::new(provider, handshake.protocol, uses_tls, channel, Some(process), output))
}

/// Connects to a provider someone else started (see `reattach`). Plaintext; the process is
/// not ours, so it is never stopped or killed.
pub async fn reattach(source_address: &str, config: &ReattachConfig) -> Result<ProviderClient, LaunchError> {
    let provider = format!("{source_address} (reattached at {})", config.address);
    let output = Arc::new(ProviderOutput::new(provider.clone()));
    let channel =
        connect(&config.address, None, Duration::from_secs(10)).await.map_err(|err| LaunchError::Connect {
            provider: provider.clone(),
            address: config.address.to_string(),
            message: error_chain(&err),
            stderr: Vec::new(),
        })?;
    drain_stdio(channel.clone(), output.clone());
    Ok(ProviderClient::new(provider, config.protocol, false, channel, None, output))
}

/// Opens GRPCStdio and forwards what arrives, for as long as the provider runs.
/// `Unavailable` or `Unimplemented` mean the provider has no stdio support, as in go-plugin.
fn drain_stdio(channel: Channel, output: Arc<ProviderOutput>) {
    tokio::spawn(async move {
        let mut client = goplugin::grpc_stdio_client::GrpcStdioClient::new(channel)
            .max_decoding_message_size(tfbridge_proto::MAX_MESSAGE_SIZE);
        let mut stream = match client.stream_stdio(()).await {
            Ok(response) => response.into_inner(),
            Err(status) if matches!(status.code(), tonic::Code::Unavailable | tonic::Code::Unimplemented) => {
                tracing::debug!(code = ?status.code(), "provider has no GRPCStdio support: {}", status.message());
                return;
            }
            // grpc-go sends the stream's headers only with its first message, so a provider
            // that never prints after the handshake ends here when the connection closes.
            Err(status) => {
                tracing::trace!(code = ?status.code(), "GRPCStdio stream ended: {}", status.message());
                return;
            }
        };
        let mut stdout = LineSplitter::default();
        let mut stderr = LineSplitter::default();
        let mut record_stdout = |line: &str| output.record_line(Stream::StdioStdout, line);
        let mut record_stderr = |line: &str| output.record_line(Stream::StdioStderr, line);
        while let Ok(Some(data)) = stream.message().await {
            if data.channel == goplugin::stdio_data::Channel::Stdout as i32 {
                stdout.push(&data.data, &mut record_stdout);
            } else {
                stderr.push(&data.data, &mut record_stderr);
            }
        }
        stdout.finish(&mut record_stdout);
        stderr.finish(&mut record_stderr);
    });
}

fn shorten_for_message(line: &str) -> String {
    const MAX_CHARS: usize = 300;
    if line.chars().count() <= MAX_CHARS {
        return line.to_owned();
    }
    let mut short: String = line.chars().take(MAX_CHARS).collect();
    short.push_str("...");
    short
}

/// tonic's transport errors put the cause (refused certificate, missing socket) in the
/// source chain; error messages need all of it.
pub(crate) fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_ranges() {
        let cases: [(Option<&str>, Option<&str>, &str); 9] = [
            (None, None, "10000-25000"),
            (Some(""), Some(" "), "10000-25000"),
            (Some("20000"), None, "20000-25000"),
            (Some("30000"), Some("30010"), "30000-30010"),
            (Some("40000"), Some("40000"), "40000-40000"),
            (
                Some("30000"),
                None,
                "PLUGIN_MIN_PORT (30000) is greater than PLUGIN_MAX_PORT (25000): providers would find no port to listen on",
            ),
            (Some("abc"), None, r#"PLUGIN_MIN_PORT="abc" is not a port number (1-65535)"#),
            (None, Some("70000"), r#"PLUGIN_MAX_PORT="70000" is not a port number (1-65535)"#),
            (Some("0"), None, r#"PLUGIN_MIN_PORT="0" is not a port number (1-65535)"#),
        ];
        for (min, max, expected) in cases {
            let shown = match plugin_port_range(min, max) {
                Ok((min, max)) => format!("{min}-{max}"),
                Err(err) => err.to_string(),
            };
            assert_eq!(shown, expected, "{min:?} {max:?}");
        }
    }

    #[test]
    fn a_provider_without_a_port_gets_a_hint() {
        let lines = |text: &[&str]| text.iter().map(|line| (*line).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            no_free_port_hint(
                &lines(&["[ERROR] plugin: plugin init error: error=\"couldn't bind plugin TCP listener\""]),
                (9, 9)
            )
            .as_deref(),
            Some("no port of 9-9 was free on 127.0.0.1; set PLUGIN_MIN_PORT and PLUGIN_MAX_PORT to a free range")
        );
        assert!(no_free_port_hint(&lines(&["Couldn't bind plugin TCP listener"]), (1, 2)).is_some());
        assert_eq!(no_free_port_hint(&lines(&["panic: boom"]), (1, 2)), None);
    }

    #[test]
    fn binary_formats_and_where_they_run() {
        let cases: [(&[u8], &str, &str); 12] = [
            (b"\x7fELF\x02\x01", "linux", "Elf: runs"),
            (
                b"\x7fELF",
                "windows",
                "Elf: it is a Linux executable, and this is windows: use the provider's windows build",
            ),
            (b"\x7fELF", "macos", "Elf: it is a Linux executable, and this is macos: use the provider's macos build"),
            (b"\xcf\xfa\xed\xfe", "macos", "MachO: runs"),
            (
                b"\xca\xfe\xba\xbe",
                "linux",
                "MachO: it is a macOS executable, and this is linux: use the provider's linux build",
            ),
            (b"MZ\x90\x00", "windows", "Pe: runs"),
            (
                b"MZ\x90\x00",
                "linux",
                "Pe: it is a Windows executable, and this is linux: use the provider's linux build",
            ),
            (b"MZ", "freebsd", "Pe: it is a Windows executable, and this is freebsd: use the provider's freebsd build"),
            (b"#!/bin/sh", "linux", "Other: runs"),
            (b"#!/bin/sh", "windows", "Other: it is not a Windows executable (a .exe file starts with MZ)"),
            (b"", "linux", "Other: runs"),
            (b"", "windows", "Other: it is not a Windows executable (a .exe file starts with MZ)"),
        ];
        for (header, os, expected) in cases {
            let format = binary_format(header);
            let verdict = foreign_binary(format, os).unwrap_or_else(|| "runs".to_owned());
            assert_eq!(format!("{format:?}: {verdict}"), expected, "{header:?} on {os}");
        }
    }

    #[test]
    fn a_missing_exe_extension_is_added_on_windows_only() {
        let dir = tempfile::tempdir().unwrap();
        let typed = dir.path().join("terraform-provider-x_v1.0.0_x5");
        std::fs::write(dir.path().join("terraform-provider-x_v1.0.0_x5.exe"), b"MZ").unwrap();
        let resolved = resolve_executable(&typed);
        if cfg!(windows) {
            assert_eq!(resolved.unwrap(), dir.path().join("terraform-provider-x_v1.0.0_x5.exe"));
        } else {
            assert!(matches!(resolved, Err(LaunchError::ExecutableNotFound { .. })), "{resolved:?}");
        }
        assert_eq!(exe_sibling(Path::new("a/terraform-provider-x.EXE")), None);
    }

    #[test]
    fn providers_log_at_info_unless_the_user_or_our_debug_level_asks_for_more() {
        let vars = |names: &[&str]| names.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        let info: Vec<_> = PROVIDER_LOG_LEVEL_VARS.iter().map(|name| (*name, "INFO")).collect();
        let cases: &[(&[&str], bool, bool)] = &[
            // (the user's variables, keep_debug, quieted)
            (&["PATH", "HOME"], false, true),
            (&[], false, true),
            (&["PATH"], true, false),
            (&["TF_LOG"], false, false),
            (&["TF_LOG_PROVIDER_RANDOM"], false, false),
            (&["TF_LOG_SDK_PROTO", "PATH"], false, false),
            // Not a TF_LOG variable.
            (&["TF_PLUGIN_MAGIC_COOKIE", "TF_CLI_ARGS"], false, true),
        ];
        for (names, keep_debug, quieted) in cases {
            let levels = provider_log_levels(vars(names), *keep_debug);
            let expected = if *quieted { info.clone() } else { Vec::new() };
            assert_eq!(levels, expected, "{names:?}, keep_debug {keep_debug}");
        }
    }
}
