//! A Pulumi command still running ([`Running`]), for the tests that signal or watch it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::{CommandOutput, Workspace};

/// A command started by [`Workspace::spawn_pulumi`], still running.
pub struct Running<'w> {
    pub(super) workspace: &'w Workspace,
    pub child: std::process::Child,
    pub(super) command: String,
    pub(super) stdout_path: PathBuf,
    pub(super) stderr_path: PathBuf,
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
    pub fn wait(mut self, timeout: Duration) -> anyhow::Result<CommandOutput> {
        let deadline = Instant::now() + timeout;
        let (code, timed_out) = loop {
            if let Some(status) = self.child.try_wait()? {
                break (status.code(), false);
            }
            if Instant::now() >= deadline {
                crate::common::kill_process_group(self.child.id());
                let status = self.child.wait()?;
                break (status.code(), true);
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        crate::common::kill_process_group(self.child.id());
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
