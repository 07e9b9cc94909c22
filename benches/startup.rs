//! Start-up and schema figures for both implementations, measured over gRPC by the tests'
//! stand-in engine (`tests/common`), in one run, on the same machine, with the Terraform
//! provider's own floor beside them. `scripts/bench/rpc.sh` builds what it needs and runs
//! it; run by hand it is
//! `BENCH_SYNTHETIC_SCHEMA=<schema.json> cargo bench --bench startup`.
//!
//! For each Terraform provider (random, and the fixture serving the AWS-sized synthetic
//! schema) and each implementation (ours, and the Go implementation built by
//! `scripts/test-tools.sh anchor`):
//!
//! - **(a)** plugin launch → `Parameterize(args)` → `GetSchema` answered (the whole package
//!   schema read);
//! - **(b)** plugin launch → `Parameterize(value)` → `CheckConfig` → `Configure` answered,
//!   which every `pulumi preview` and `up` pays; the value is the one (a)'s schema embeds,
//!   as an SDK sends it;
//! - the plugin's resident set (`VmRSS`) one second after (b), once start-up has settled,
//!   and its peak (`VmHWM`), and the Terraform provider's resident set beside it; the
//!   plugin's own CPU by then; and when (b)'s phases ended (the port announced,
//!   Parameterize and CheckConfig answered), for the warm runs;
//! - **(d)** the floor: the Terraform provider's launch (go-plugin handshake, mTLS connect)
//!   alone, and its launch plus `GetProviderSchema`, through our `tfplugin` host.
//!
//! (a) and (b) run twice: with a fresh `PULUMI_HOME` every time (cold: nothing cached across
//! runs) and with one `PULUMI_HOME` kept across the runs of an implementation (warm: what a
//! persistent cache under it can save). Runs are paired: each round runs ours and Go back to
//! back, alternating which goes first, so a slow spell of the shared machine hits both. The
//! report gives medians and the median of the per-round ratios ours/Go.
//!
//! Why not criterion or hyperfine: the figures are phases of a conversation with a process
//! (start-up ends when Configure is answered, not when the process exits), and the ratio
//! against Go is only fair when the two alternate within one run, which neither tool does.
//!
//! Environment: `BENCH_RUNS` (rounds, default 10), `BENCH_SYNTHETIC_SCHEMA` (the AWS-sized
//! schema file, from the fixture's `synthetic-schema` example; required), `BENCH_OUT` (a
//! JSON file for `scripts/bench/plot.py`), `BENCH_PROVIDERS` (`random,synthetic` by default; also `dns` and `muxed6`, the muxed ones),
//! `BENCH_OURS_BINARY` (our plugin; default: the one Cargo built for this bench),
//! `BENCH_SMAPS_DIR` (a folder: each warm and cold start-up's `/proc/PID/smaps` of the plugin,
//! read when its resident set is, is written there for `scripts/bench/smaps.py`).

#[path = "../tests/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use common::Implementation;
use common::plugin::Plugin;
use serde_json::{Value as Json, json};
use tfbridge::tfplugin::{LaunchConfig, launch};
use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::parameterize_request::{Parameters, ParametersArgs, ParametersValue};

/// A Terraform provider to measure with, and the provider configuration a program gives it.
struct Provider {
    label: &'static str,
    path: PathBuf,
    config: Json,
}

/// How long start-up is left to settle before the resident set is read.
const SETTLE: Duration = Duration::from_secs(1);

/// Nothing listens on the discard port, so the plugin's Engine.Log calls go nowhere.
const NO_ENGINE: &str = "127.0.0.1:9";

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Cache {
    Cold,
    Warm,
}

/// Every sample of one run, keyed by (provider, measure, implementation or `floor`).
type Samples = BTreeMap<(String, String, String), Vec<f64>>;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let rounds: usize = std::env::var("BENCH_RUNS").ok().map(|n| n.parse()).transpose()?.unwrap_or(10);
    let wanted = std::env::var("BENCH_PROVIDERS").unwrap_or_else(|_| "random,synthetic".to_owned());
    let scratch = common::scratch_dir("bench-startup");
    let mut providers = Vec::new();
    for label in wanted.split(',') {
        providers.push(match label {
            "random" => Provider {
                label: "random",
                path: common::real_provider("random", common::versions::RANDOM)?,
                config: json!({}),
            },
            "synthetic" => synthetic_provider(&scratch)?,
            // Muxed (terraform-plugin-mux), where a warm start must send nothing before the
            // program's first call: hashicorp/dns (protocol 5) and muxed6test (protocol 6,
            // proxmox's 115 resources and 91 data sources).
            "dns" => {
                Provider { label: "dns", path: common::real_provider("dns", common::versions::DNS)?, config: json!({}) }
            }
            "muxed6" => {
                Provider { label: "muxed6", path: common::real_provider("muxed6test", "current")?, config: json!({}) }
            }
            other => anyhow::bail!("BENCH_PROVIDERS: unknown provider {other:?} (random, synthetic, dns, muxed6)"),
        });
    }

    let mut samples = Samples::new();
    for provider in &providers {
        let value = parameter_value(provider).await?;
        // One warm-up round, not counted: it fills the warm homes and the page cache.
        for round in 0..=rounds {
            let record = round > 0;
            let (floor_launch, floor_schema) = floor(&provider.path).await?;
            if record {
                push(&mut samples, provider, "d: launch", "floor", floor_launch);
                push(&mut samples, provider, "d: launch + GetProviderSchema", "floor", floor_schema);
            }
            let order = if round.is_multiple_of(2) {
                [Implementation::Ours, Implementation::Go]
            } else {
                [Implementation::Go, Implementation::Ours]
            };
            for implementation in order {
                let name = implementation_name(implementation);
                for cache in [Cache::Cold, Cache::Warm] {
                    // A cold run gets a fresh home for each of (a) and (b), so (b) cannot
                    // profit from what (a) left behind.
                    let fresh_home = |step: &str| -> anyhow::Result<PathBuf> {
                        let dir = scratch.join(format!("{}-{name}-cold-{round}-{step}", provider.label));
                        std::fs::create_dir_all(&dir)?;
                        Ok(dir)
                    };
                    let (schema_home, startup_home) = match cache {
                        Cache::Cold => (fresh_home("a")?, fresh_home("b")?),
                        Cache::Warm => {
                            // Kept across the rounds: the warm-up round fills it.
                            let dir = scratch.join(format!("{}-{name}-warm", provider.label));
                            std::fs::create_dir_all(&dir)?;
                            (dir.clone(), dir)
                        }
                    };
                    let cache_label = match cache {
                        Cache::Cold => "cold",
                        Cache::Warm => "warm",
                    };
                    let schema_time = parameterize_and_get_schema(implementation, provider, &schema_home).await?;
                    let startup = start_up(implementation, provider, &startup_home, &value).await?;
                    if record {
                        push(
                            &mut samples,
                            provider,
                            &format!("a: Parameterize + GetSchema ({cache_label})"),
                            name,
                            schema_time,
                        );
                        push(&mut samples, provider, &format!("b: start-up ({cache_label})"), name, startup.elapsed);
                        if cache == Cache::Warm {
                            // Where (b)'s time goes: each phase's end, since the launch.
                            let phases = ["plugin's port announced", "Parameterize answered", "CheckConfig answered"];
                            for (phase, at) in phases.iter().zip(startup.phases) {
                                push(&mut samples, provider, &format!("b (warm) until {phase}"), name, at);
                            }
                            push(&mut samples, provider, "plugin RSS after start-up (MiB)", name, startup.plugin_rss);
                            push(&mut samples, provider, "plugin CPU in start-up", name, startup.plugin_cpu);
                            push(&mut samples, provider, "plugin peak RSS in start-up (MiB)", name, startup.plugin_hwm);
                            push(&mut samples, provider, "Terraform provider RSS (MiB)", name, startup.provider_rss);
                        }
                    }
                    if cache == Cache::Cold {
                        std::fs::remove_dir_all(&schema_home)?;
                        std::fs::remove_dir_all(&startup_home)?;
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);

    let report = report(&samples);
    print!("{}", report.text);
    if let Ok(out) = std::env::var("BENCH_OUT") {
        std::fs::write(&out, serde_json::to_string_pretty(&report.json)?).with_context(|| format!("writing {out}"))?;
        println!("wrote {out}");
    }
    Ok(())
}

fn implementation_name(implementation: Implementation) -> &'static str {
    match implementation {
        Implementation::Ours => "ours",
        Implementation::Go => "go",
    }
}

fn push(samples: &mut Samples, provider: &Provider, measure: &str, who: &str, value: f64) {
    samples.entry((provider.label.to_owned(), measure.to_owned(), who.to_owned())).or_default().push(value);
}

/// The fixture provider (release build, beside this bench's own `deps/`) serving the
/// AWS-sized schema over protocol 6, behind a script named `terraform-provider-synthetic`
/// (local providers are named after their file), as the CLI benchmarks use it.
fn synthetic_provider(scratch: &Path) -> anyhow::Result<Provider> {
    let schema = std::env::var("BENCH_SYNTHETIC_SCHEMA").context(
        "BENCH_SYNTHETIC_SCHEMA names no schema file: run scripts/bench/rpc.sh, or write one with \
         `cargo run --release -p terraform-provider-fixture --example synthetic-schema`",
    )?;
    let fixture = common::fixture::fixture_binary()?;
    let body = format!("FIXTURE_PROTOCOL=6 FIXTURE_SCHEMA_FILE='{schema}' exec '{}' \"$@\"", fixture.display());
    let path = common::write_script(scratch, "terraform-provider-synthetic", &body);
    Ok(Provider { label: "synthetic", path, config: json!({"region": "us-east-1"}) })
}

fn seconds(since: Instant) -> f64 {
    since.elapsed().as_secs_f64()
}

/// (d): the Terraform provider's launch alone, and its launch plus GetProviderSchema, in
/// seconds, through the same host our plugin uses.
async fn floor(provider: &Path) -> anyhow::Result<(f64, f64)> {
    let started = Instant::now();
    let client = launch(&LaunchConfig::terraform_defaults(provider)).await?;
    let launched = seconds(started);
    let schema = client.get_provider_schema().await?;
    let with_schema = seconds(started);
    anyhow::ensure!(!schema.schema.resources.is_empty(), "{} has no resources", provider.display());
    client.shutdown().await;
    Ok((launched, with_schema))
}

/// The plugin executable: for ours, `BENCH_OURS_BINARY` when set. The shared target dir's
/// release binary can be rebuilt from another checkout mid-run, so scripts/bench/rpc.sh
/// measures a copy taken right after its build.
fn plugin_binary(implementation: Implementation) -> PathBuf {
    match (implementation, std::env::var_os("BENCH_OURS_BINARY")) {
        (Implementation::Ours, Some(binary)) => PathBuf::from(binary),
        _ => implementation.plugin_binary().unwrap_or_else(|err| panic!("{err:#}")),
    }
}

fn start_plugin(implementation: Implementation, home: &Path) -> Plugin {
    Plugin::start_with_env(&plugin_binary(implementation), &[NO_ENGINE], &[("PULUMI_HOME", home.as_os_str())])
}

/// Parameterize with the provider's path, as `pulumi package add` does, and return the
/// parameter value the package schema embeds for programs.
async fn parameter_value(provider: &Provider) -> anyhow::Result<Vec<u8>> {
    let home = common::scratch_dir("bench-parameter");
    let plugin = start_plugin(Implementation::Ours, &home);
    let schema = get_schema(&plugin, provider).await?;
    drop(plugin);
    let _ = std::fs::remove_dir_all(&home);
    let schema: Json = serde_json::from_str(&schema)?;
    let parameter = schema["parameterization"]["parameter"].as_str().context("the schema embeds no parameter")?;
    use base64::Engine as _;
    Ok(base64::engine::general_purpose::STANDARD.decode(parameter)?)
}

async fn get_schema(plugin: &Plugin, provider: &Provider) -> anyhow::Result<String> {
    // The AWS-sized package schema is tens of MB; the engine allows 400 MiB messages too.
    let mut client = plugin.client().await.max_decoding_message_size(400 << 20);
    let args = vec![provider.path.to_str().context("a UTF-8 path")?.to_owned()];
    let parameterized = client
        .parameterize(pulumirpc::ParameterizeRequest { parameters: Some(Parameters::Args(ParametersArgs { args })) })
        .await?
        .into_inner();
    let schema = client
        .get_schema(pulumirpc::GetSchemaRequest {
            version: 0,
            subpackage_name: parameterized.name,
            subpackage_version: parameterized.version,
        })
        .await?
        .into_inner()
        .schema;
    Ok(schema)
}

/// (a), in seconds from the plugin's launch.
async fn parameterize_and_get_schema(
    implementation: Implementation,
    provider: &Provider,
    home: &Path,
) -> anyhow::Result<f64> {
    let started = Instant::now();
    let plugin = start_plugin(implementation, home);
    let schema = get_schema(&plugin, provider).await?;
    let elapsed = seconds(started);
    // Closed as the engine closes it, so what it writes at the end (the translated package
    // in our schema cache) is there for the next warm run, as after a real `package add`.
    plugin.close(std::time::Duration::from_secs(10));
    // Both implementations must have answered a whole schema, or the time means nothing.
    anyhow::ensure!(schema.len() > 10_000, "{implementation:?} answered a schema of {} bytes", schema.len());
    Ok(elapsed)
}

struct StartUp {
    elapsed: f64,
    /// Since launch: the port announced, Parameterize answered, CheckConfig answered.
    phases: [f64; 3],
    plugin_rss: f64,
    plugin_hwm: f64,
    /// The plugin's own CPU (user+sys) from its launch to one second after start-up.
    plugin_cpu: f64,
    provider_rss: f64,
}

/// (b), and the resident sets once it has settled.
async fn start_up(
    implementation: Implementation,
    provider: &Provider,
    home: &Path,
    value: &[u8],
) -> anyhow::Result<StartUp> {
    let started = Instant::now();
    let plugin = start_plugin(implementation, home);
    let port_announced = seconds(started);
    let mut client = plugin.client().await;
    let parameters = Parameters::Value(ParametersValue {
        name: provider.label.to_owned(),
        version: "0.0.0".to_owned(),
        value: value.to_vec(),
    });
    let parameterized =
        client.parameterize(pulumirpc::ParameterizeRequest { parameters: Some(parameters) }).await?.into_inner();
    let parameterized_at = seconds(started);
    let mut args = provider.config.clone();
    args["version"] = json!("0.0.0");
    let urn = format!("urn:pulumi:bench::startup::pulumi:providers:{}::default", parameterized.name);
    let checked = client
        .check_config(pulumirpc::CheckRequest {
            urn: urn.clone(),
            olds: Some(common::engine_client::to_struct(&json!({}))),
            news: Some(common::engine_client::to_struct(&args)),
            ..Default::default()
        })
        .await?
        .into_inner();
    anyhow::ensure!(checked.failures.is_empty(), "CheckConfig failures: {:?}", checked.failures);
    let checked_at = seconds(started);
    client
        .configure(pulumirpc::ConfigureRequest {
            args: checked.inputs,
            accept_secrets: true,
            accept_resources: true,
            sends_old_inputs: true,
            sends_old_inputs_to_delete: true,
            urn: Some(urn),
            ..Default::default()
        })
        .await?;
    let elapsed = seconds(started);
    tokio::time::sleep(SETTLE).await;
    let pid = plugin.child.id();
    let plugin_status = proc_status(pid)?;
    if let Some(dir) = std::env::var_os("BENCH_SMAPS_DIR") {
        // Where the resident set is, mapping by mapping (scripts/bench/smaps.py groups it).
        let name = format!("{}-{}-{pid}.smaps", provider.label, implementation_name(implementation));
        std::fs::write(Path::new(&dir).join(name), std::fs::read(format!("/proc/{pid}/smaps"))?)?;
    }
    let provider_rss = children(pid).iter().filter_map(|child| proc_status(*child).ok()).map(|s| s.rss).sum();
    Ok(StartUp {
        elapsed,
        phases: [port_announced, parameterized_at, checked_at],
        plugin_rss: plugin_status.rss,
        plugin_hwm: plugin_status.hwm,
        plugin_cpu: plugin_status.cpu,
        provider_rss,
    })
}

struct ProcStatus {
    /// `VmRSS`, MiB.
    rss: f64,
    /// `VmHWM`, the peak resident set, MiB.
    hwm: f64,
    /// User plus system CPU so far, seconds.
    cpu: f64,
}

fn proc_status(pid: u32) -> anyhow::Result<ProcStatus> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let field = |name: &str| -> anyhow::Result<f64> {
        let line =
            status.lines().find(|line| line.starts_with(name)).with_context(|| format!("no {name} for {pid}"))?;
        let kib: f64 = line[name.len()..].trim().trim_end_matches("kB").trim().parse()?;
        Ok(kib / 1024.0)
    };
    // utime and stime, fields 14 and 15 of stat, in clock ticks (100 per second on Linux),
    // after the parenthesized command name.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
    let ticks = |idx: usize| -> anyhow::Result<f64> {
        Ok(fields.get(idx).with_context(|| format!("short stat for {pid}"))?.parse::<f64>()? / 100.0)
    };
    Ok(ProcStatus { rss: field("VmRSS:")?, hwm: field("VmHWM:")?, cpu: ticks(11)? + ticks(12)? })
}

/// The direct children of `pid`: the Terraform provider a plugin launched.
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
    let mut children = Vec::new();
    for task in tasks.flatten() {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            children.extend(text.split_whitespace().filter_map(|pid| pid.parse::<u32>().ok()));
        }
    }
    children
}

struct Report {
    text: String,
    json: Json,
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) { (sorted[mid - 1] + sorted[mid]) / 2.0 } else { sorted[mid] }
}

/// One table per provider: each measure's median for ours, Go and the floor, the median of
/// the per-round ratios ours/Go, and the range of ours' and Go's samples.
fn report(samples: &Samples) -> Report {
    use std::fmt::Write as _;
    let mut text = String::new();
    let mut json = Vec::new();
    let mut provider_label = None;
    // The lettered measures of the issue first, then the resident sets.
    let measures: std::collections::BTreeSet<(&str, bool, &str)> = samples
        .keys()
        .map(|(provider, measure, _)| (provider.as_str(), measure.contains("RSS"), measure.as_str()))
        .collect();
    for (provider, _, measure) in measures {
        if provider_label != Some(provider) {
            let _ = writeln!(text, "\n## {provider}\n");
            let _ = writeln!(text, "| measure | ours (median, min–max) | Go (median, min–max) | ours/Go | floor |");
            let _ = writeln!(text, "|---|---|---|---|---|");
            provider_label = Some(provider);
        }
        let get = |who: &str| samples.get(&(provider.to_owned(), measure.to_owned(), who.to_owned()));
        let unit_ms = !measure.contains("MiB");
        let show = |value: f64| if unit_ms { format!("{:.0} ms", value * 1000.0) } else { format!("{value:.1}") };
        let cell = |values: Option<&Vec<f64>>| match values {
            Some(values) => {
                let min = values.iter().copied().fold(f64::INFINITY, f64::min);
                let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                format!("{} ({}–{})", show(median(values)), show(min), show(max))
            }
            None => "".to_owned(),
        };
        let ratio = match (get("ours"), get("go")) {
            (Some(ours), Some(go)) => {
                let ratios: Vec<f64> = ours.iter().zip(go).map(|(ours, go)| ours / go).collect();
                Some(median(&ratios))
            }
            _ => None,
        };
        let floor = get("floor").map(|values| median(values));
        let _ = writeln!(
            text,
            "| {measure} | {} | {} | {} | {} |",
            cell(get("ours")),
            cell(get("go")),
            ratio.map_or(String::new(), |ratio| format!("{ratio:.2}×")),
            floor.map_or(String::new(), show),
        );
        json.push(json!({
            "provider": provider,
            "measure": measure,
            "unit": if unit_ms { "s" } else { "MiB" },
            "ours": get("ours").map(|values| median(values)),
            "go": get("go").map(|values| median(values)),
            "floor": floor,
            "ratio": ratio,
            "samples": {"ours": get("ours"), "go": get("go"), "floor": get("floor")},
        }));
    }
    Report { text, json: Json::Array(json) }
}
