//! Starts the plugin the way the Pulumi engine does and shows it answering.
//!
//! Usage: `smoke <path to pulumi-resource-terraform-provider>`; `scripts/demo.sh` runs it.

use std::io::{BufRead, BufReader};
use std::process::{Command, ExitCode, Stdio};

use anyhow::Context;
use tfbridge_proto::pulumirpc;

fn main() -> ExitCode {
    match tokio::runtime::Runtime::new().map_err(anyhow::Error::from).and_then(|rt| rt.block_on(run())) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("smoke test failed: {err:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> anyhow::Result<()> {
    let binary = std::env::args().nth(1).context("usage: smoke <path to pulumi-resource-terraform-provider>")?;
    // No engine runs here, so the plugin is given an address nobody listens on: it only
    // logs through it, and logging is best effort.
    let mut child = Command::new(&binary)
        .args(["--logtostderr", "-v=1", "127.0.0.1:9"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("starting {binary}"))?;
    let mut first_line = String::new();
    BufReader::new(child.stdout.take().context("stdout")?).read_line(&mut first_line)?;
    let port: u16 = first_line.trim().parse().with_context(|| format!("first stdout line {first_line:?}"))?;
    println!("plugin started, announced port {port}");

    let mut client =
        pulumirpc::resource_provider_client::ResourceProviderClient::connect(format!("http://127.0.0.1:{port}"))
            .await?;
    let handshake = client
        .handshake(pulumirpc::ProviderHandshakeRequest { engine_address: "127.0.0.1:9".into(), ..Default::default() })
        .await?
        .into_inner();
    println!(
        "Handshake: accept_secrets={} accept_resources={} autonaming={}",
        handshake.accept_secrets, handshake.accept_resources, handshake.supports_autonaming_configuration
    );
    let info = client.get_plugin_info(()).await?.into_inner();
    println!("GetPluginInfo: version {}", info.version);
    client.cancel(()).await?;
    println!("Cancel: acknowledged");
    drop(client);

    stop(&mut child)
}

/// Windows has no signal for one process (the engine sends Ctrl+Break to the plugin's
/// process group there): the smoke test ends by terminating the plugin.
#[cfg(not(unix))]
fn stop(child: &mut std::process::Child) -> anyhow::Result<()> {
    child.kill()?;
    println!("terminated: exited with {}", child.wait()?);
    Ok(())
}

#[cfg(unix)]
fn stop(child: &mut std::process::Child) -> anyhow::Result<()> {
    // SAFETY: kill(2) on our own child's pid with a valid signal.
    unsafe { libc::kill(libc::pid_t::try_from(child.id())?, libc::SIGINT) };
    use std::time::{Duration, Instant};
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(5) {
        if let Some(status) = child.try_wait()? {
            println!("SIGINT: exited with {status}");
            anyhow::ensure!(status.success(), "the plugin did not exit cleanly");
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill()?;
    anyhow::bail!("the plugin did not exit within 5 s of SIGINT")
}
