//! `schema-gen`: prints the Pulumi package schema that `pulumi package add
//! terraform-provider <args>` would generate, or the Terraform provider's own schema.
//!
//! It takes exactly the arguments Parameterize takes (`<registry-address> [constraint]` or a
//! local path, then `--include`, `--exclude`, `--provider-name`, `--`), obtains and launches
//! the provider the way the plugin does, and writes the JSON to stdout. Installer progress
//! and translation warnings go to stderr, so stdout is always just the schema.
//!
//! Architecture invariant: a thin shell over `tfbridge::parameterize::parse_args` and
//! `tfbridge::lifecycle::start_provider`; it knows no translation rule of its own.

use std::process::ExitCode;

use anyhow::Context as _;
use schema_gen::tf::ProvidersSchemaFile;

const HELP: &str = "schema-gen: print the Pulumi package schema of a Terraform provider

Usage:
  schema-gen [--terraform-schema] <registry-address> [version-constraint] [flags]
  schema-gen [--terraform-schema] <./path/to/terraform-provider-name> [flags]

The arguments are those of `pulumi package add terraform-provider ...`:
      --include strings        Comma-separated Terraform tokens to include
      --exclude strings        Comma-separated Terraform tokens to exclude
      --provider-name string   Custom name for the generated Pulumi package

Options of schema-gen itself (before the provider arguments):
      --terraform-schema       Print the provider's Terraform schema in the
                               `terraform providers schema -json` format instead
      --plugin-version string  The terraform-provider plugin version recorded as
                               parameterization.baseProvider.version (default: this build's)
  -h, --help                   Show this text
";

/// What schema-gen itself was asked, apart from the Parameterize arguments.
struct Options {
    terraform_schema: bool,
    plugin_version: String,
    parameterize_args: Vec<String>,
}

/// Takes schema-gen's own flags off the front; everything from the first other argument on
/// belongs to Parameterize, which has its own grammar (`--` included).
fn parse_options(mut args: Vec<String>) -> anyhow::Result<Option<Options>> {
    let mut terraform_schema = false;
    let mut plugin_version = env!("CARGO_PKG_VERSION").to_owned();
    while let Some(first) = args.first() {
        match first.as_str() {
            "-h" | "--help" => return Ok(None),
            "--terraform-schema" => {
                terraform_schema = true;
                args.remove(0);
            }
            "--plugin-version" => {
                anyhow::ensure!(args.len() > 1, "flag needs an argument: --plugin-version");
                plugin_version = args.remove(1);
                args.remove(0);
            }
            other if other.starts_with("--plugin-version=") => {
                plugin_version = other["--plugin-version=".len()..].to_owned();
                args.remove(0);
            }
            _ => break,
        }
    }
    Ok(Some(Options { terraform_schema, plugin_version, parameterize_args: args }))
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
        let key = parameterized.source_address.clone().unwrap_or_else(|| parameterized.terraform_name.clone());
        let file = ProvidersSchemaFile {
            format_version: "1.0".to_owned(),
            provider_schemas: [(key, parameterized.schema.clone())].into_iter().collect(),
        };
        serde_json::to_string_pretty(&file).context("serializing the Terraform schema")?
    } else {
        // These warnings include the naming ones of `parameterized.warnings`.
        let (spec, warnings) = parameterized.package_schema(&options.plugin_version);
        for warning in &warnings {
            eprintln!("warning: {warning}");
        }
        spec.to_json_pretty()
    };
    parameterized.shutdown().await;
    Ok(text)
}

fn main() -> ExitCode {
    let options = match parse_options(std::env::args().skip(1).collect()) {
        Ok(Some(options)) => options,
        Ok(None) => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(err) => {
            eprintln!("schema-gen: {err:#}\n\n{HELP}");
            return ExitCode::from(2);
        }
    };
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
