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

/// How to start one provider.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    pub executable: PathBuf,
    /// How long to wait for the handshake line. Terraform waits one minute.
    pub start_timeout: Duration,
    /// go-plugin auto-mTLS. Terraform turns it off when `TF_DISABLE_PLUGIN_TLS` is set.
    pub auto_mtls: bool,
}

impl LaunchConfig {
    /// Terraform's settings: a 60 s start timeout, and auto-mTLS unless
    /// `TF_DISABLE_PLUGIN_TLS` is set to a non-empty value.
    pub fn terraform_defaults(executable: impl Into<PathBuf>) -> LaunchConfig {
        let tls_disabled = std::env::var_os("TF_DISABLE_PLUGIN_TLS").is_some_and(|value| !value.is_empty());
        LaunchConfig { executable: executable.into(), start_timeout: Duration::from_secs(60), auto_mtls: !tls_disabled }
    }
}

fn check_executable(path: &Path) -> Result<(), LaunchError> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(LaunchError::ExecutableNotFound { path: path.to_owned() });
        }
        Err(source) => return Err(LaunchError::Spawn { path: path.to_owned(), source }),
    };
    if metadata.is_dir() {
        return Err(LaunchError::NotExecutable { path: path.to_owned(), reason: "it is a directory" });
    }
    if metadata.permissions().mode() & 0o111 == 0 {
        return Err(LaunchError::NotExecutable { path: path.to_owned(), reason: "it has no execute permission" });
    }
    Ok(())
}

/// Starts the provider at `config.executable` and connects to it. The returned client owns
/// the process: dropping it kills the process, [`ProviderClient::shutdown`] stops it politely.
pub async fn launch(config: &LaunchConfig) -> Result<ProviderClient, LaunchError> {
    let path = config.executable.clone();
    check_executable(&path)?;
    let provider = path.display().to_string();
    let identity = if config.auto_mtls {
        Some(generate_client_identity().map_err(|source| LaunchError::Tls { provider: provider.clone(), source })?)
    } else {
        None
    };

    let mut command = tokio::process::Command::new(&path);
    command
        .env(MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE)
        .env("PLUGIN_PROTOCOL_VERSIONS", "5,6")
        .env("PLUGIN_MIN_PORT", "10000")
        .env("PLUGIN_MAX_PORT", "25000");
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
        return Err(LaunchError::ExitedBeforeHandshake { path, status, stderr: output.recent_lines() });
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
