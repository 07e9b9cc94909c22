//! Helpers shared by the two test binaries (`tests/hermetic`, `tests/peer`): which plugin
//! implementation runs and where its binary is, where the real provider binaries are, scratch
//! directories, and whether a process is still alive.
//!
//! The two stand-ins for the Pulumi engine are named for their side of the protocol:
//! `engine_client` is the engine as the provider's gRPC *client* (it starts a plugin and makes
//! the resource calls), `engine_service` is the engine's own `Engine` *service*, which a
//! plugin calls back (to log).

#![allow(dead_code)] // Each test binary uses a different subset.

// The peer tier's real services, Pulumi CLI and language hosts run on Linux only (the
// Windows end-to-end run under Wine is scripts/test-windows.sh).
#[cfg(unix)]
pub mod bind;
pub mod engine_client;
pub mod engine_service;
pub mod fixture;
pub mod implementation;
#[cfg(unix)]
pub mod languages;
#[cfg(unix)]
pub mod mariadb;
pub mod msgpack;
pub mod otel;
#[cfg(unix)]
pub mod pdns;
pub mod plugin;
#[cfg(unix)]
pub mod programs;
#[cfg(unix)]
pub mod pulumi;
pub mod registry;
pub mod schema;
#[cfg(unix)]
pub mod service;
#[cfg(unix)]
pub mod service_suite;
pub mod versions;

pub use implementation::Implementation;
#[allow(unused_imports)] // benches/startup.rs, which includes this module too, does not use it.
pub use implementation::our_plugin;

/// One `#[test]` per implementation, `<name>::ours` and `<name>::go`, for each scenario.
///
/// - `for_both_implementations!(a, b)`: the tests call the scenario functions `a` and `b` of
///   the calling module with the implementation.
/// - `for_both_implementations!(a => run(A), b => run(B, "x"))`: the tests named `a` and `b`
///   call `run` with the arguments given, then the implementation.
#[allow(unused_macros)] // The peer tier's; the hermetic one runs no Go implementation.
macro_rules! for_both_implementations {
    ($($scenario:ident),* $(,)?) => {$(
        mod $scenario {
            #[test]
            fn ours() -> anyhow::Result<()> {
                super::$scenario($crate::common::Implementation::Ours)
            }
            #[test]
            fn go() -> anyhow::Result<()> {
                super::$scenario($crate::common::Implementation::Go)
            }
        }
    )*};
    ($($name:ident => $run:ident($($arg:expr),* $(,)?)),* $(,)?) => {$(
        mod $name {
            #[allow(unused_imports)] // What the arguments name, whatever that is.
            use super::*;
            #[test]
            fn ours() -> anyhow::Result<()> {
                $run($($arg,)* $crate::common::Implementation::Ours)
            }
            #[test]
            fn go() -> anyhow::Result<()> {
                $run($($arg,)* $crate::common::Implementation::Go)
            }
        }
    )*};
}
#[allow(unused_imports)] // As above.
pub(crate) use for_both_implementations;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The directory scripts/test-tools.sh builds into.
pub fn tools_dir() -> PathBuf {
    match std::env::var_os("TFBRIDGE_TOOLS_DIR") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/tfbridge-tools"),
    }
}

/// The executable of a real Terraform provider built by `scripts/test-tools.sh providers`
/// (`version` may be `current` for our own Go test providers).
pub fn real_provider(name: &str, version: &str) -> anyhow::Result<PathBuf> {
    let path = tools_dir().join("providers").join(name).join(version).join(format!("terraform-provider-{name}"));
    if !path.is_file() {
        anyhow::bail!(
            "the real provider {name} {version} is missing at {}: run scripts/test-tools.sh providers",
            path.display()
        );
    }
    Ok(path)
}

/// The real provider `name` started with `-debug` (go-plugin's debug mode, as `terraform
/// providers` debugging does), and the value of TF_REATTACH_PROVIDERS it printed. The process
/// dies with the handle; its stdout is drained meanwhile, so it never blocks on the pipe.
pub async fn debug_mode(name: &str, version: &str) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let path = real_provider(name, version).expect("the provider is built");
    let mut child = tokio::process::Command::new(&path)
        .arg("-debug")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the provider starts in debug mode");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().expect("piped stdout")).lines();
    let value = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.expect("stdout is readable") {
            if let Some((_, value)) = line.split_once("TF_REATTACH_PROVIDERS='") {
                return value.trim_end().trim_end_matches('\'').to_owned();
            }
        }
        panic!("{name} in debug mode exited without printing TF_REATTACH_PROVIDERS")
    })
    .await
    .expect("TF_REATTACH_PROVIDERS within 30 s");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, value)
}

/// A directory holding `terraform-provider-fixture`: a script that runs the fixture provider
/// Cargo built (target/<profile>/terraform-provider-fixture) serving only `protocol` (`5` or
/// `6`), with the schema in `schema_file` (`terraform providers schema -json` format) when one
/// is given. Local providers are named after their file, so the Pulumi package is `fixture`.
pub fn fixture_provider_dir(protocol: u8, schema_file: Option<&Path>) -> anyhow::Result<PathBuf> {
    let schema = schema_file.map(|file| file.display().to_string());
    let env: Vec<(&str, &str)> = schema.iter().map(|file| ("FIXTURE_SCHEMA_FILE", file.as_str())).collect();
    fixture::wrapper_dir(&protocol.to_string(), &env)
}

/// A fresh, empty directory under the system temp dir, unique to this process and call.
pub fn scratch_dir(label: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("tfbridge-{label}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

/// Every file under `dir`, sorted (not the directories); what cannot be listed is skipped.
pub fn paths_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() { stack.push(path) } else { found.push(path) }
        }
    }
    found.sort();
    found
}

/// Every file under `dir`, as text (lossy), with its path: for tests that search logs and
/// state for what must not be there.
pub fn files_under(dir: &Path) -> Vec<(PathBuf, String)> {
    let read = |path: PathBuf| {
        let bytes = std::fs::read(&path).ok()?;
        Some((path, String::from_utf8_lossy(&bytes).into_owned()))
    };
    paths_under(dir).into_iter().filter_map(read).collect()
}

/// Writes an executable shell script (on Windows a file that is no executable at all,
/// which tests of that refusal use; the tests that run scripts are Unix's).
pub fn write_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write the script");
    #[cfg(unix)]
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("make the script executable");
    path
}

/// The pids of `pid`'s children, from every thread's `children` list.
#[cfg(unix)]
pub fn children_of(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    let mut children = Vec::new();
    for task in tasks.flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        children.extend(list.split_whitespace().filter_map(|child| child.parse::<u32>().ok()));
    }
    children
}

/// The pids of `pid`'s children that are still running, from a process snapshot.
#[cfg(windows)]
pub fn children_of(pid: u32) -> Vec<u32> {
    use windows_sys::Win32::Foundation::{CloseHandle, INVALID_HANDLE_VALUE};
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, PROCESSENTRY32W, Process32FirstW, Process32NextW, TH32CS_SNAPPROCESS,
    };
    let mut children = Vec::new();
    // SAFETY: a snapshot handle we close, walked with an entry whose dwSize is set.
    unsafe {
        let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
        if snapshot == INVALID_HANDLE_VALUE {
            return children;
        }
        let mut entry: PROCESSENTRY32W = std::mem::zeroed();
        entry.dwSize = std::mem::size_of::<PROCESSENTRY32W>() as u32;
        let mut more = Process32FirstW(snapshot, &mut entry) != 0;
        while more {
            if entry.th32ParentProcessID == pid && process_is_alive(entry.th32ProcessID) {
                children.push(entry.th32ProcessID);
            }
            more = Process32NextW(snapshot, &mut entry) != 0;
        }
        CloseHandle(snapshot);
    }
    children
}

/// Whether `pid` is a live process: one that can be opened and has no exit code yet.
#[cfg(windows)]
pub fn process_is_alive(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{CloseHandle, STILL_ACTIVE};
    use windows_sys::Win32::System::Threading::{GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION};
    // SAFETY: the handle OpenProcess returns, when not null, is ours to query and close.
    unsafe {
        let handle = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if handle.is_null() {
            return false;
        }
        let mut code = 0u32;
        let ok = GetExitCodeProcess(handle, &mut code);
        CloseHandle(handle);
        ok != 0 && code == STILL_ACTIVE as u32
    }
}

/// Whether `pid` is a live process. A zombie (exited, not yet reaped) counts as dead.
#[cfg(unix)]
pub fn process_is_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state letter follows the parenthesized command name.
        Ok(stat) => !stat.rsplit_once(')').is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// SIGKILLs every process in the process group `pgid` (a child started with
/// `process_group(0)` leads the group whose id is its pid). Its members are gone, or
/// zombies of their parents, when this returns. Nothing happens when the group is empty.
#[cfg(unix)]
pub fn kill_process_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else { return };
    // SAFETY: kill(2) with a negative pid signals the process group; no memory is touched.
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
}

/// SIGKILLs every process (of this user) whose environment holds `key=value`, and returns
/// how many there were. For processes that left the process group they were started in.
#[cfg(unix)]
pub fn kill_processes_with_env(key: &str, value: &str) -> usize {
    let wanted = format!("{key}={value}");
    let Ok(entries) = std::fs::read_dir("/proc") else { return 0 };
    let mut killed = 0;
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<libc::pid_t>().ok()) else { continue };
        if pid == libc::pid_t::try_from(std::process::id()).unwrap_or_default() {
            continue;
        }
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else { continue };
        if environ.split(|byte| *byte == 0).any(|var| var == wanted.as_bytes()) {
            // SAFETY: kill(2) on a pid read from /proc; no memory is touched.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            killed += 1;
        }
    }
    killed
}

/// Waits up to `timeout` for `pid` to be gone.
pub fn wait_until_dead(pid: u32, timeout: std::time::Duration) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    while std::time::Instant::now() < deadline {
        if !process_is_alive(pid) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    !process_is_alive(pid)
}
