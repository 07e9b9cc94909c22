//! A Pulumi command still running ([`Running`]), for the tests that signal or watch it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context as _;

use super::{CommandOutput, Workspace};

/// A command started by [`Workspace::spawn_pulumi`], still running.
pub struct Running<'w> {
    pub(super) workspace: &'w Workspace,
    pub child: std::process::Child,
    pub(super) command: String,
    pub(super) stdout_path: PathBuf,
    pub(super) stderr_path: PathBuf,
    pub(super) started: Instant,
}

impl Running<'_> {
    /// What the command has printed to stdout so far.
    pub fn stdout_so_far(&self) -> String {
        std::fs::read_to_string(&self.stdout_path).unwrap_or_default()
    }

    /// Sends `signal` to the CLI process alone, as `kill -INT <pid>` would.
    pub fn signal(&self, signal: libc::c_int) -> anyhow::Result<()> {
        let pid = libc::pid_t::try_from(self.child.id())?;
        // SAFETY: kill(2) with a pid we own and a valid signal number has no memory effects.
        anyhow::ensure!(unsafe { libc::kill(pid, signal) } == 0, "kill({pid}, {signal})");
        Ok(())
    }

    /// Waits for the command to exit, killing it (and its process group) after `timeout`;
    /// then kills whatever the workspace left running.
    pub fn wait(self, timeout: Duration) -> anyhow::Result<CommandOutput> {
        let deadline = Instant::now() + timeout;
        let (code, timed_out, cpu) = loop {
            if let Some((code, cpu)) = reap(&self.child, false)? {
                break (code, false, cpu);
            }
            if Instant::now() >= deadline {
                crate::common::kill_process_group(self.child.id());
                let (code, cpu) = reap(&self.child, true)?.context("a blocking wait returns the status")?;
                break (code, true, cpu);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        crate::common::kill_process_group(self.child.id());
        self.workspace.record_time(&self.command, self.started.elapsed(), cpu);
        self.workspace.kill_leftovers();
        Ok(CommandOutput {
            command: self.command,
            code,
            timed_out,
            stdout: std::fs::read_to_string(&self.stdout_path).unwrap_or_default(),
            stderr: std::fs::read_to_string(&self.stderr_path).unwrap_or_default(),
        })
    }
}

impl Workspace {
    /// Appends a finished command's wall and CPU time (its own and its reaped descendants') to
    /// `logs/commands.tsv`; best effort, since it only explains where a test's time went.
    pub(crate) fn record_time(&self, command: &str, wall: Duration, cpu: Duration) {
        use std::io::Write as _;
        let line = format!("{}\t{:.2}\t{:.2}\t{command}\n", self.commands_run, wall.as_secs_f64(), cpu.as_secs_f64());
        let file = std::fs::OpenOptions::new().create(true).append(true).open(self.root.join("logs/commands.tsv"));
        if let Ok(mut file) = file {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

/// Reaps `child` if it has exited (or, with `block`, once it has): its exit code, and the CPU
/// time it and the descendants it reaped used. `wait4` rather than `Child::try_wait`, whose
/// status carries no resource usage; the workspace's `logs/commands.tsv` reports it, so a slow
/// test shows which of its commands the time went to.
fn reap(child: &std::process::Child, block: bool) -> anyhow::Result<Option<(Option<i32>, Duration)>> {
    let pid = libc::pid_t::try_from(child.id())?;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let flags = if block { 0 } else { libc::WNOHANG };
    // SAFETY: pid is our own unreaped child; status and usage are valid for writes.
    let reaped = unsafe { libc::wait4(pid, &mut status, flags, &mut usage) };
    anyhow::ensure!(reaped >= 0, "wait4({pid}): {}", std::io::Error::last_os_error());
    if reaped == 0 {
        return Ok(None);
    }
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    let seconds = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Ok(Some((code, seconds(usage.ru_utime) + seconds(usage.ru_stime))))
}
