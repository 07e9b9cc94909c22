//! No provider outlives the process that launched it, even when that process is killed
//! with SIGKILL (nothing of ours runs then; the kernel's parent-death signal does the work).
//!
//! The launcher is this test binary itself, run a second time with only this test and
//! `TFBRIDGE_ORPHAN_TEST_LAUNCHER` set, so the test needs no binary of its own: in that run
//! the test is the launcher, which starts a real provider, prints its pid and waits; the test
//! SIGKILLs the launcher and checks the provider disappears.

use crate::common;

use common::versions;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{process_is_alive, real_provider, wait_until_dead};

const LAUNCHER_ENV: &str = "TFBRIDGE_ORPHAN_TEST_LAUNCHER";

/// This test's full name, which the launcher run selects with `--exact`.
const THIS_TEST: &str = "tfplugin_orphans::no_provider_survives_sigkill_of_its_launcher";

/// What the launcher prints before the provider's pid (libtest prints text of its own, on the
/// same line too).
const PID_LINE: &str = "launched provider pid: ";

fn run_launcher(provider: std::path::PathBuf) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let client =
            tfbridge::tfplugin::launch(&tfbridge::tfplugin::LaunchConfig::terraform_defaults(provider)).await?;
        println!("{PID_LINE}{}", client.pid().unwrap_or_default());
        // Wait to be killed; the client (and so the provider) stays alive until then.
        tokio::time::sleep(Duration::from_secs(120)).await;
        drop(client);
        anyhow::Ok(())
    })
}

/// The launcher process; killed if the test ends before it does.
struct Launcher(Child);

impl Drop for Launcher {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn no_provider_survives_sigkill_of_its_launcher() -> anyhow::Result<()> {
    if let Some(provider) = std::env::var_os(LAUNCHER_ENV) {
        return run_launcher(provider.into());
    }
    let provider = real_provider("random", versions::RANDOM)?;
    let mut launcher = Launcher(
        Command::new(std::env::current_exe()?)
            .args(["--exact", THIS_TEST, "--nocapture", "--test-threads=1"])
            .env(LAUNCHER_ENV, &provider)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?,
    );
    let stdout = BufReader::new(launcher.0.stdout.take().expect("piped stdout"));
    let mut printed = Vec::new();
    let mut line = None;
    for next in stdout.lines() {
        let next = next?;
        // libtest prints `test <name> ... ` without a line break before the test's output.
        if let Some((_, pid)) = next.split_once(PID_LINE) {
            line = Some(pid.to_owned());
            break;
        }
        printed.push(next);
    }
    let line = line.ok_or_else(|| anyhow::anyhow!("the launcher printed no pid line: {printed:?}"))?;
    let provider_pid: u32 = line.trim().parse().map_err(|_| anyhow::anyhow!("launcher printed {line:?}, not a pid"))?;
    anyhow::ensure!(provider_pid != 0 && process_is_alive(provider_pid), "provider {provider_pid} is not running");

    launcher.0.kill()?; // SIGKILL
    launcher.0.wait()?;
    anyhow::ensure!(
        wait_until_dead(provider_pid, Duration::from_secs(5)),
        "provider pid {provider_pid} survived the SIGKILL of its launcher"
    );
    Ok(())
}
