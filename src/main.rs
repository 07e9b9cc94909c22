//! `pulumi-resource-terraform-provider`: the plugin binary the Pulumi engine launches.
//!
//! `--version` prints `pulumi-resource-terraform-provider <version> (Rust implementation)` on
//! stdout and exits; every other message (help, usage errors, logs) goes to stderr.
//!
//! The engine runs `pulumi-resource-terraform-provider [--logtostderr] [-v=N]
//! [--tracing <endpoint>] <engine-address>` and reads the port to dial from the first line
//! of stdout. Without an engine address the plugin starts in attach mode
//! (`PULUMI_DEBUG_PROVIDERS`), where the engine sends its address with `Attach`. With
//! `PULUMI_OTEL_EXPORTER_OTLP_ENDPOINT` set (`pulumi up --otel-traces`), it sends
//! OpenTelemetry traces there (`tfbridge::telemetry`).

use std::process::ExitCode;

use clap::Parser;

/// A parameterized Pulumi resource provider that bridges any Terraform provider.
///
/// The Pulumi engine starts this plugin; it is not meant to be run by hand, except in
/// attach mode for debugging (no engine address: it prints its port and waits).
#[derive(Debug, Parser)]
#[command(
    name = "pulumi-resource-terraform-provider",
    version = tfbridge::server::plugin_identity::VERSION_TEXT,
    disable_help_subcommand = true
)]
struct Cli {
    /// Accepted for compatibility with the engine's glog-style flags; logs always go to
    /// stderr.
    #[arg(long)]
    logtostderr: bool,

    /// Log verbosity, as the engine passes it (`-v=9`): 0 shows info and above, 1–5 our
    /// debug logs, 6–8 our trace logs, 9 also the gRPC internals. `TFBRIDGE_LOG` (tracing
    /// filter syntax) overrides it.
    #[arg(short = 'v', value_name = "N")]
    verbosity: Option<u8>,

    /// The engine's OpenTracing (AppDash or Zipkin) endpoint. Accepted and ignored: this
    /// plugin sends OpenTelemetry traces instead, to `PULUMI_OTEL_EXPORTER_OTLP_ENDPOINT`,
    /// which the CLI sets with `--otel-traces`.
    #[arg(long, value_name = "ENDPOINT")]
    tracing: Option<String>,

    /// The Pulumi engine's gRPC address, `host:port`. Omit it for attach mode.
    #[arg(value_name = "ENGINE_ADDRESS", value_parser = parse_engine_address)]
    engine_address: Option<String>,
}

/// Why the engine address on the command line is not `host:port`.
#[derive(Debug, thiserror::Error)]
enum EngineAddressError {
    /// No colon, or no host before it.
    #[error("expected host:port, e.g. 127.0.0.1:54321")]
    NotHostPort,
    /// A port that is not a number from 1 to 65535.
    #[error("{0:?} is not a port number")]
    Port(String),
}

fn parse_engine_address(text: &str) -> Result<String, EngineAddressError> {
    let Some((host, port)) = text.rsplit_once(':') else {
        return Err(EngineAddressError::NotHostPort);
    };
    if host.is_empty() || host.contains(char::is_whitespace) {
        return Err(EngineAddressError::NotHostPort);
    }
    match port.parse::<u16>() {
        Ok(0) | Err(_) => Err(EngineAddressError::Port(port.to_owned())),
        Ok(_) => Ok(text.to_owned()),
    }
}

// Values are trees of many small allocations; mimalloc decodes a 10,000-object state about
// 15% faster than the system allocator (benches/values.rs, which uses it too).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // `--version` is the one answer on stdout, so `$(pulumi-resource-terraform-provider
        // --version)` works in scripts; the engine never passes it. The version is Cargo.toml's,
        // the same one GetPluginInfo answers, and the text says which implementation this is
        // (the Go one prints only `v<version>`).
        Err(err) if err.kind() == clap::error::ErrorKind::DisplayVersion => {
            print!("{}", err.render());
            return ExitCode::SUCCESS;
        }
        Err(err) => {
            // Every other message goes to stderr, help included: the engine reads stdout's
            // first line as the port, so nothing else may ever appear there.
            eprint!("{}", err.render());
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
        }
    };
    init_tracing(cli.verbosity);
    if let Some(endpoint) = &cli.tracing {
        tracing::debug!(endpoint, "ignoring the engine's OpenTracing endpoint");
    }

    // One thread: the plugin waits on the engine and the provider almost all the time, and
    // its CPU work per call is small. Worker threads cost more in wake-ups between them than
    // they gain, and their stacks and allocator heaps about 4 MiB of resident memory (measured
    // on `up` of 200 random resources). Blocking work (cache files, hashing an install) goes
    // to `spawn_blocking`'s threads as before.
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: could not start the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    // The exporter's connection runs on the runtime, so traces start inside it.
    let exporter = {
        let _entered = runtime.enter();
        start_traces()
    };
    let config = tfbridge::server::ServeConfig {
        engine_address: cli.engine_address,
        executable: std::env::args_os().next().map(std::path::PathBuf::from),
    };
    // Only a plugin the engine launched watches its launcher: in attach mode the plugin was
    // started by hand and outlives any one engine on purpose.
    let watch_launcher = config.engine_address.is_some();
    let served = runtime.block_on(async {
        // Signal handlers go in before the port is printed: the engine may signal as soon
        // as it has read the port, and an uninstalled handler would let SIGINT kill us.
        let signal = shutdown_signal()?;
        let shutdown = async move {
            tokio::select! {
                () = signal => {}
                () = launcher_gone(LAUNCHER_POLL), if watch_launcher => {}
            }
        };
        tfbridge::server::serve(config, shutdown).await
    });
    if let Some(exporter) = exporter {
        runtime.block_on(exporter.finish());
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err}");
            ExitCode::FAILURE
        }
    }
}

fn init_tracing(verbosity: Option<u8>) {
    // Our own crates get louder first; the HTTP/2 and gRPC internals only join in at the
    // highest levels, where someone is debugging the wire itself.
    let default_level = match verbosity.unwrap_or(0) {
        0 => "info",
        1..=5 => "info,tfbridge=debug,pulumi_resource_terraform_provider=debug",
        6..=8 => "info,tfbridge=trace,pulumi_resource_terraform_provider=trace",
        _ => "debug,tfbridge=trace,pulumi_resource_terraform_provider=trace",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("TFBRIDGE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(filter).with_ansi(false).init();
}

/// Turns OpenTelemetry traces on when the CLI names a receiver (`pulumi up --otel-traces`);
/// a bad address costs the traces, never the run.
fn start_traces() -> Option<tfbridge::telemetry::Exporter> {
    use tfbridge::telemetry::ENDPOINT_ENV;
    let endpoint = std::env::var(ENDPOINT_ENV).ok().filter(|endpoint| !endpoint.trim().is_empty())?;
    match tfbridge::telemetry::start(&endpoint) {
        Ok(exporter) => {
            tracing::debug!(endpoint, "sending OpenTelemetry traces");
            Some(exporter)
        }
        Err(err) => {
            tracing::warn!("{err}; no traces are sent");
            None
        }
    }
}

/// Installs the SIGINT and SIGTERM handlers and returns a future that completes on either.
/// The engine closes a plugin by sending SIGINT to its process group, then waits 5 s before
/// killing it.
#[cfg(unix)]
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt = signal(SignalKind::interrupt())?;
    let mut terminate = signal(SignalKind::terminate())?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => tracing::info!("SIGINT received, shutting down"),
            _ = terminate.recv() => tracing::info!("SIGTERM received, shutting down"),
        }
    })
}

/// Windows' counterparts: Ctrl+C and Ctrl+Break (what a console sends a process group), and
/// the console closing. The engine on Windows mostly terminates plugins outright, which the
/// providers' Job Objects cover (`tfplugin::process`).
#[cfg(windows)]
fn shutdown_signal() -> std::io::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::windows::{ctrl_break, ctrl_c, ctrl_close};
    let mut interrupt = ctrl_c()?;
    let mut brk = ctrl_break()?;
    let mut close = ctrl_close()?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => tracing::info!("Ctrl+C received, shutting down"),
            _ = brk.recv() => tracing::info!("Ctrl+Break received, shutting down"),
            _ = close.recv() => tracing::info!("console closed, shutting down"),
        }
    })
}

/// How often the plugin checks that its launcher is still there.
const LAUNCHER_POLL: std::time::Duration = std::time::Duration::from_secs(1);

/// Completes once the process that launched us (the Pulumi CLI) has gone.
///
/// A CLI killed with SIGKILL sends no SIGINT and closes nothing we could notice on the gRPC
/// side until our next call to it, which may never come: the plugin, and with it the
/// Terraform provider it runs, would live on forever. The kernel re-parents an orphan to a
/// subreaper or init, so a changed parent pid is a reliable sign, whatever the engine did.
/// (The Go implementation polls the engine's gRPC health service every 5 minutes instead.)
#[cfg(unix)]
async fn launcher_gone(poll: std::time::Duration) {
    // SAFETY: getppid(2) has no preconditions and cannot fail.
    let launcher = unsafe { libc::getppid() };
    loop {
        tokio::time::sleep(poll).await;
        // SAFETY: as above.
        if unsafe { libc::getppid() } != launcher {
            tracing::warn!(launcher, "the process that launched this plugin has gone; shutting down");
            return;
        }
    }
}

/// Windows does not re-parent orphans, so the launcher's process is watched itself: a
/// handle to it, taken at start, becomes signalled when it exits. If it cannot be found or
/// opened this never completes, and the Job Objects still bound the providers to us.
#[cfg(windows)]
async fn launcher_gone(poll: std::time::Duration) {
    let Some(launcher) = windows_launcher::open() else {
        return std::future::pending().await;
    };
    loop {
        tokio::time::sleep(poll).await;
        if launcher.has_exited() {
            tracing::warn!(launcher = launcher.pid, "the process that launched this plugin has gone; shutting down");
            return;
        }
    }
}

#[cfg(windows)]
mod windows_launcher {
    use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};

    use windows_sys::Win32::Foundation::{FILETIME, INVALID_HANDLE_VALUE, WAIT_OBJECT_0};
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW, TH32CS_SNAPPROCESS,
    };
    use windows_sys::Win32::System::Threading::{
        GetCurrentProcess, GetProcessTimes, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_SYNCHRONIZE,
        WaitForSingleObject,
    };

    pub(super) struct Launcher {
        pub(super) pid: u32,
        process: OwnedHandle,
    }

    impl Launcher {
        pub(super) fn has_exited(&self) -> bool {
            // SAFETY: a process handle we own, opened with SYNCHRONIZE; 0 ms never blocks.
            unsafe { WaitForSingleObject(self.process.as_raw_handle(), 0) == WAIT_OBJECT_0 }
        }
    }

    /// Our parent's process, if it is still the one that started us: a parent that exited
    /// before we looked may have left its pid to a newer process, which started after us.
    pub(super) fn open() -> Option<Launcher> {
        let pid = parent_pid()?;
        // SAFETY: OpenProcess returns null on failure, else a handle we own.
        let process = unsafe {
            let handle = OpenProcess(PROCESS_SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
            if handle.is_null() {
                return None;
            }
            OwnedHandle::from_raw_handle(handle)
        };
        // SAFETY: GetCurrentProcess returns a pseudo-handle that needs no closing.
        let ours = unsafe { GetCurrentProcess() };
        let started_before_us = creation_time(process.as_raw_handle())? <= creation_time(ours)?;
        started_before_us.then_some(Launcher { pid, process })
    }

    fn creation_time(process: windows_sys::Win32::Foundation::HANDLE) -> Option<u64> {
        let zero = FILETIME { dwLowDateTime: 0, dwHighDateTime: 0 };
        let (mut created, mut exited, mut kernel, mut user) = (zero, zero, zero, zero);
        // SAFETY: four FILETIMEs for the call to fill; `process` is a valid process handle.
        let ok = unsafe { GetProcessTimes(process, &mut created, &mut exited, &mut kernel, &mut user) };
        (ok != 0).then(|| (u64::from(created.dwHighDateTime) << 32) | u64::from(created.dwLowDateTime))
    }

    fn parent_pid() -> Option<u32> {
        let ours = std::process::id();
        // SAFETY: a snapshot handle we own (closed by OwnedHandle), walked with an entry
        // whose dwSize is set as the API requires.
        unsafe {
            let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
            if snapshot == INVALID_HANDLE_VALUE || snapshot.is_null() {
                return None;
            }
            let snapshot = OwnedHandle::from_raw_handle(snapshot);
            let mut entry: PROCESSENTRY32W = std::mem::zeroed();
            entry.dwSize = u32::try_from(std::mem::size_of::<PROCESSENTRY32W>()).ok()?;
            let mut more = Process32FirstW(snapshot.as_raw_handle(), &mut entry) != 0;
            while more {
                if entry.th32ProcessID == ours {
                    return Some(entry.th32ParentProcessID);
                }
                more = Process32NextW(snapshot.as_raw_handle(), &mut entry) != 0;
            }
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_addresses() {
        let cases = [
            ("127.0.0.1:54321", true),
            ("localhost:1", true),
            ("[::1]:8080", true),
            ("127.0.0.1:0", false),
            ("127.0.0.1:99999", false),
            ("127.0.0.1", false),
            (":80", false),
            ("not an address:1", false),
        ];
        for (text, ok) in cases {
            assert_eq!(parse_engine_address(text).is_ok(), ok, "{text}");
        }
    }
}
