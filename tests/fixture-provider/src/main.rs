//! The `terraform-provider-fixture` binary: checks go-plugin's magic cookie, reads the launch
//! configuration and serves. See the library's crate doc for the environment it reads.

use std::process::ExitCode;

use terraform_provider_fixture::config::LaunchConfig;
use terraform_provider_fixture::{MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, serve};

fn main() -> ExitCode {
    if let Err(err) = load_sidecar_env() {
        eprintln!("terraform-provider-fixture: {err:#}");
        return ExitCode::from(1);
    }
    if std::env::var(MAGIC_COOKIE_KEY).as_deref() != Ok(MAGIC_COOKIE_VALUE) {
        // go-plugin's exact text and exit status.
        eprint!(
            "This binary is a plugin. These are not meant to be executed directly.\n\
             Please execute the program that consumes these plugins, which will\n\
             load any plugins automatically\n"
        );
        return ExitCode::from(1);
    }
    match run() {
        Ok(()) => {
            // Exit at once: the stdio copier threads and any open connections must not keep
            // the process alive after Shutdown, as they would not in go-plugin.
            std::process::exit(0)
        }
        Err(err) => {
            eprintln!("terraform-provider-fixture: {err:#}");
            ExitCode::from(1)
        }
    }
}

fn run() -> anyhow::Result<()> {
    let config = LaunchConfig::from_env()?;
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    runtime.block_on(serve::run(config))?;
    Ok(())
}

/// Windows has no `#!` scripts, so the tests' wrapper there is a link to this binary with
/// its settings in a file beside it: `<name>.env`, one `NAME=value` a line, which override
/// the inherited environment as the Unix wrapper script's assignments do.
fn load_sidecar_env() -> anyhow::Result<()> {
    let Ok(exe) = std::env::current_exe() else { return Ok(()) };
    let sidecar = exe.with_extension("env");
    let text = match std::fs::read_to_string(&sidecar) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => anyhow::bail!("reading {}: {err}", sidecar.display()),
    };
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let Some((name, value)) = line.split_once('=') else {
            anyhow::bail!("{}: {line:?} is not NAME=value", sidecar.display());
        };
        // SAFETY: called first thing in main, before any other thread exists.
        unsafe { std::env::set_var(name, value) };
    }
    Ok(())
}
