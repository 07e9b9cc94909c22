//! `schema-gen`: prints the Pulumi package schema that `pulumi package add
//! terraform-provider <args>` would generate, or the Terraform provider's own schema.
//!
//! It takes exactly the arguments Parameterize takes (`<registry-address> [constraint]` or a
//! local path, then `--include`, `--exclude`, `--provider-name`, `--`), obtains and launches
//! the provider the way the plugin does, and writes the JSON to stdout. Installer progress
//! and translation warnings go to stderr, so stdout is always just the schema.
//!
//! Its own flags are parsed with clap; the Parameterize arguments after them keep their own
//! grammar (the Go implementation's), so they are handed over untouched.
//!
//! Architecture invariant: a thin shell over `tfbridge::parameterize::parse_args` and
//! `tfbridge::lifecycle::start_provider`; it knows no translation rule of its own.

use std::process::ExitCode;

use anyhow::Context as _;
use schema_gen::tf::ProvidersSchemaFile;

/// The Parameterize arguments, shown after clap's own help.
const PROVIDER_ARGS_HELP: &str = "The provider arguments are those of `pulumi package add terraform-provider ...`:
  <registry-address> [version-constraint] | <./path/to/terraform-provider-name>
      --include strings        Comma-separated Terraform tokens to include
      --exclude strings        Comma-separated Terraform tokens to exclude
      --provider-name string   Custom name for the generated Pulumi package";

/// schema-gen's own flags come first; everything from the first other argument on belongs
/// to Parameterize, which has its own grammar (`--` included) and its own errors.
#[derive(Debug, clap::Parser)]
#[command(
    name = "schema-gen",
    about = "schema-gen: print the Pulumi package schema of a Terraform provider",
    after_help = PROVIDER_ARGS_HELP
)]
struct Options {
    /// Print the provider's Terraform schema in the `terraform providers schema -json`
    /// format instead
    #[arg(long)]
    terraform_schema: bool,
    /// The terraform-provider plugin version recorded as parameterization.baseProvider.version
    #[arg(long, value_name = "VERSION", default_value = env!("CARGO_PKG_VERSION"))]
    plugin_version: String,
    /// The provider: a registry address and optional version constraint, or a local path,
    /// then Parameterize's flags
    #[arg(value_name = "PROVIDER ARGS", trailing_var_arg = true, allow_hyphen_values = true)]
    parameterize_args: Vec<String>,
}

/// Installer progress as plain lines on stderr; downloads report every 10%, so a slow
/// connection shows life without flooding the terminal.
struct StderrProgress {
    last_tenth: std::sync::Mutex<Option<(String, u64)>>,
}

impl tfbridge::installer::Progress for StderrProgress {
    fn step(&self, message: &str) {
        eprintln!("{message}");
    }

    fn download(&self, url: &str, received: u64, total: Option<u64>) {
        let Some(total) = total.filter(|total| *total > 0) else {
            return;
        };
        let tenth = received.saturating_mul(10) / total;
        let mut last = self.last_tenth.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if last.as_ref().is_some_and(|(last_url, last_tenth)| last_url == url && *last_tenth == tenth) {
            return;
        }
        *last = Some((url.to_owned(), tenth));
        eprintln!("downloading {url}: {}%", tenth * 10);
    }
}

async fn run(options: Options) -> anyhow::Result<String> {
    let args = tfbridge::parameterize::parse_args(&options.parameterize_args)?;
    let working_dir = std::env::current_dir().context("reading the current directory")?;
    let progress = StderrProgress { last_tenth: std::sync::Mutex::new(None) };
    let parameterized = tfbridge::lifecycle::start_provider(&args, &working_dir, &progress).await?;
    let text = if options.terraform_schema {
        // Terraform keys a provider by its source address; a local binary has none, so its
        // entry is keyed by the provider's name alone.
        let connection = parameterized.connection();
        let key = connection.source_address().unwrap_or(connection.terraform_name()).to_owned();
        let file = ProvidersSchemaFile {
            format_version: "1.0".to_owned(),
            provider_schemas: [(key, connection.schema().whole()?.clone())].into_iter().collect(),
        };
        serde_json::to_string_pretty(&file).context("serializing the Terraform schema")?
    } else {
        // These warnings include the naming ones of `parameterized.warnings()`.
        let (spec, warnings) = parameterized.package_schema(&options.plugin_version)?;
        for warning in &warnings {
            eprintln!("warning: {warning}");
        }
        spec.to_json_pretty()
    };
    parameterized.shutdown().await;
    Ok(text)
}

fn main() -> ExitCode {
    use clap::Parser as _;
    let options = match Options::try_parse() {
        Ok(options) => options,
        // Help goes to stdout with success; usage errors to stderr with exit code 2.
        Err(err) => {
            let _ = err.print();
            return ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(2));
        }
    };
    // Quiet unless asked: stderr carries the translation warnings. `TFBRIDGE_LOG` takes the
    // same filters as the plugin's (e.g. `tfbridge=debug` shows the schema cache's decisions).
    if let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("TFBRIDGE_LOG") {
        tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(filter).with_ansi(false).init();
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("schema-gen: starting the async runtime: {err}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(options)) {
        Ok(text) => {
            use std::io::Write as _;
            match writeln!(std::io::stdout().lock(), "{text}") {
                Ok(()) => ExitCode::SUCCESS,
                // A reader that stopped early (`| head`) is not an error worth a message.
                Err(err) if err.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(err) => {
                    eprintln!("schema-gen: writing the schema to stdout: {err}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(err) => {
            eprintln!("schema-gen: {err:#}");
            ExitCode::FAILURE
        }
    }
}
