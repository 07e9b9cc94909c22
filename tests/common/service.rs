//! What the throw-away servers of the peer tier share (`mariadb.rs`, `bind.rs`): finding a
//! Debian program, the system user a server runs as when the tests run as root, a free
//! loopback port, and the command that starts a server so that it never outlives the test.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::Context as _;

/// The program `name` from PATH, /usr/sbin or /usr/bin (Debian puts servers in /usr/sbin);
/// `package` is named in the error when it is missing.
pub fn program(name: &str, package: &str) -> anyhow::Result<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .with_context(|| format!("{name} is missing: run scripts/test-tools.sh services (Debian's {package})"))
}

/// The uid and gid of `user` from /etc/passwd.
fn user_ids(user: &str) -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() > 3 && fields[0] == user).then(|| Some((fields[2].parse().ok()?, fields[3].parse().ok()?)))?
    })
}

/// `(uid, gid)` of the system user `user` when the tests run as root (servers refuse root,
/// or should not have it), `None` when they run as an ordinary user, who owns the server.
pub fn owner_when_root(user: &str) -> anyhow::Result<Option<(u32, u32)>> {
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(None);
    }
    user_ids(user).map(Some).with_context(|| format!("no `{user}` user: run scripts/test-tools.sh services"))
}

/// Gives `path` to `owner`, when there is one.
pub fn chown(path: &Path, owner: Option<(u32, u32)>) -> anyhow::Result<()> {
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::chown(path, Some(uid), Some(gid)).with_context(|| format!("chown {}", path.display()))?;
    }
    Ok(())
}

/// Kills a server started with [`command`] (SIGKILL to its process group) and reaps it; nothing
/// when it is not running.
pub fn stop(child: &mut Option<Child>) {
    if let Some(mut child) = child.take() {
        super::kill_process_group(child.id());
        let _ = child.wait();
    }
}

/// Waits for the server `child` that `name` (`named`, `pdns_server`, `mariadbd`) just
/// started until `ready()` holds, asking every `poll` for at most `timeout`, and hands the
/// child back. Fails, quoting the server's log at `log`, when it exits first or when it does
/// not `waiting_for` (such as `answer on port 5353`) in time (then it is killed).
pub fn wait_until_ready(
    mut child: Child,
    name: &str,
    log: &Path,
    waiting_for: &str,
    timeout: std::time::Duration,
    poll: std::time::Duration,
    mut ready: impl FnMut() -> bool,
) -> anyhow::Result<Child> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if ready() {
            return Ok(child);
        }
        if let Ok(Some(status)) = child.try_wait() {
            anyhow::bail!("{name} exited with {status}: {}", std::fs::read_to_string(log).unwrap_or_default());
        }
        if std::time::Instant::now() >= deadline {
            stop(&mut Some(child));
            anyhow::bail!(
                "{name} did not {waiting_for} within {timeout:?}: {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        std::thread::sleep(poll);
    }
}

/// A loopback port nobody listens on now.
pub fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// A command run in `dir` as `owner`, in its own process group, with the test run's marker
/// (scripts/test.sh kills and reports any process left with it), that dies when the thread
/// that started it ends.
pub fn command(program: &Path, dir: &Path, owner: Option<(u32, u32)>) -> Command {
    let mut command = Command::new(program);
    command.current_dir(dir).stdin(Stdio::null()).process_group(0);
    if let Some((uid, gid)) = owner {
        command.uid(uid).gid(gid).env("HOME", dir);
    }
    if let Ok(run) = std::env::var("TFBRIDGE_TEST_RUN") {
        command.env("TFBRIDGE_TEST_RUN", run);
    }
    // SAFETY: prctl(2) only sets a flag of the calling (child) process; it allocates
    // nothing and is async-signal-safe. Runs after setuid, which would clear it. Linux
    // only, as in src/tfplugin/process.rs: the servers are Debian's, but the tests that
    // start them must still compile for macOS (scripts/cross-test.sh).
    #[cfg(target_os = "linux")]
    unsafe {
        command.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    command
}
