//! The `terraform-provider-fixture` binary: checks go-plugin's magic cookie, reads the launch
//! configuration and serves. See the library's crate doc for the environment it reads.

use std::process::ExitCode;

use terraform_provider_fixture::config::LaunchConfig;
use terraform_provider_fixture::{MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, serve};

fn main() -> ExitCode {
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
