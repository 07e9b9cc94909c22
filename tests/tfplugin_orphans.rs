//! No provider outlives the process that launched it, even when that process is killed
//! with SIGKILL (nothing of ours runs then; the kernel's parent-death signal does the work).
//!
//! This test runs its own binary a second time as the launcher (`harness = false`): the
//! launcher starts a real provider, prints its pid and waits; the test SIGKILLs the
//! launcher and checks the provider disappears.

mod common;

use common::versions;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{process_is_alive, real_provider, wait_until_dead};

const LAUNCHER_ENV: &str = "TFBRIDGE_ORPHAN_TEST_LAUNCHER";

fn main() -> anyhow::Result<()> {
    if std::env::args().any(|arg| arg == "--list") {
        println!("no_provider_survives_sigkill_of_its_launcher: test");
        return Ok(());
    }
    if let Some(provider) = std::env::var_os(LAUNCHER_ENV) {
        return run_launcher(provider.into());
    }
    // The same lines libtest prints, so that scripts/test.sh counts this test like the others.
    println!("\nrunning 1 test");
    let outcome = no_provider_survives_sigkill_of_its_launcher();
    let (word, passed, failed) = if outcome.is_ok() { ("ok", 1, 0) } else { ("FAILED", 0, 1) };
    println!("test no_provider_survives_sigkill_of_its_launcher ... {word}");
    println!("\ntest result: {word}. {passed} passed; {failed} failed; 0 ignored; 0 measured; 0 filtered out\n");
    outcome
}

fn run_launcher(provider: std::path::PathBuf) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(async {
        let client =
            tfbridge::tfplugin::launch(&tfbridge::tfplugin::LaunchConfig::terraform_defaults(provider)).await?;
        println!("{}", client.pid().unwrap_or_default());
        // Wait to be killed; the client (and so the provider) stays alive until then.
        tokio::time::sleep(Duration::from_secs(120)).await;
        drop(client);
        anyhow::Ok(())
    })
}

fn no_provider_survives_sigkill_of_its_launcher() -> anyhow::Result<()> {
    let provider = real_provider("random", versions::RANDOM)?;
    let mut launcher = Command::new(std::env::current_exe()?)
        .env(LAUNCHER_ENV, &provider)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let mut line = String::new();
    BufReader::new(launcher.stdout.take().expect("piped stdout")).read_line(&mut line)?;
    let provider_pid: u32 = line.trim().parse().map_err(|_| anyhow::anyhow!("launcher printed {line:?}, not a pid"))?;
    anyhow::ensure!(provider_pid != 0 && process_is_alive(provider_pid), "provider {provider_pid} is not running");

    launcher.kill()?; // SIGKILL
    launcher.wait()?;
    anyhow::ensure!(
        wait_until_dead(provider_pid, Duration::from_secs(5)),
        "provider pid {provider_pid} survived the SIGKILL of its launcher"
    );
    Ok(())
}
