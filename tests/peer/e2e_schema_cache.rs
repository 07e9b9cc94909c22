//! The persistent schema cache through the real Pulumi CLI, with the real random provider:
//! a warm start makes no GetProviderSchema call, and every kind of bad cache (a corrupt,
//! truncated or foreign entry, a binary that changed on disk, a read-only or
//! too-small cache directory) costs one GetProviderSchema and never a failed run or a
//! wrong schema; two `pulumi up` runs sharing one cache both succeed.
//!
//! Which calls reached the provider is read from our gRPC debug log
//! (`PULUMI_TF_DEBUG_GRPC`). Needs `scripts/test-tools.sh providers pulumi`.

use crate::common;

use std::path::{Path, PathBuf};

use common::Implementation;
use common::pulumi::Workspace;
use common::versions;

/// A workspace running the random example on our plugin, with its calls logged.
struct Cached {
    ws: Workspace,
    log: PathBuf,
}

impl Cached {
    /// `provider` is the binary `package add` names; `None` for the shared real one.
    fn start(label: &str, provider: Option<&Path>) -> anyhow::Result<Cached> {
        let mut ws = Workspace::new(label, Implementation::Ours)?;
        let own = private_copy("random", versions::RANDOM, ws.root())?;
        let provider = provider.unwrap_or(&own);
        ws.copy_example("random")?;
        let log = ws.root().join("grpc.jsonl");
        ws.set_env("PULUMI_TF_DEBUG_GRPC", &log.display().to_string());
        ws.package_add(&[provider.to_str().expect("a UTF-8 path")])?;
        ws.stack_init()?;
        Ok(Cached { ws, log })
    }

    fn cache_dir(&self) -> PathBuf {
        self.ws.root().join("pulumi-home/dynamic_tf_plugins/.schema-cache")
    }

    fn entries(&self) -> Vec<PathBuf> {
        entries_in(&self.cache_dir())
    }

    /// The provider calls logged since the last call, by method name; clears the log.
    fn calls(&self) -> anyhow::Result<Vec<String>> {
        Cached::read_calls(&self.log)
    }

    /// The calls logged in `log` so far, by method name; clears it.
    fn read_calls(log: &Path) -> anyhow::Result<Vec<String>> {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        std::fs::write(log, "")?;
        text.lines()
            .map(|line| {
                let entry: serde_json::Value = serde_json::from_str(line)?;
                Ok(entry["method"].as_str().unwrap_or_default().to_owned())
            })
            .collect()
    }

    /// `pulumi preview` of the program; fails unless it succeeds and plans the stack and the
    /// three resources of the random example, so a wrong schema cannot pass.
    fn preview(&mut self) -> anyhow::Result<Vec<String>> {
        let preview = self.ws.preview()?;
        anyhow::ensure!(preview.stdout.contains("4 to create"), "{preview}");
        self.calls()
    }
}

fn entries_in(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|dir| dir.filter_map(Result::ok).map(|e| e.path()).collect()).unwrap_or_default();
    entries.retain(|p| p.extension().is_some_and(|e| e == "schema"));
    entries.sort();
    entries
}

/// The real provider `name`, copied into `dir` (a workspace's, removed with it). The cache keys a binary
/// by its file's identity, change time included, and other tests running at the same time
/// hard-link the shared binaries into their mirrors (and unlink them), which changes that
/// time: on the shared file, a warm start would turn cold under another test's feet.
fn private_copy(name: &str, version: &str, dir: &Path) -> anyhow::Result<PathBuf> {
    let dir = dir.join("providers");
    std::fs::create_dir_all(&dir)?;
    let copy = dir.join(format!("terraform-provider-{name}"));
    std::fs::copy(common::real_provider(name, version)?, &copy)?;
    Ok(copy)
}

/// A folder removed when the test ends, however it ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn fetched(calls: &[String]) -> bool {
    calls.iter().any(|c| c == "GetProviderSchema")
}

#[test]
fn a_warm_start_makes_no_get_provider_schema_call() -> anyhow::Result<()> {
    let mut cached = Cached::start("cache-warm", None)?;
    // `package add` started cold and wrote the entry.
    assert!(fetched(&cached.calls()?), "package add had no entry to use");
    assert_eq!(cached.entries().len(), 1, "one entry for the one binary");

    let calls = cached.preview()?;
    assert!(!fetched(&calls), "a warm start asked for the schema: {calls:?}");
    // Terraform never calls GetMetadata, and a muxed provider breaks after one (issue 28):
    // the permission is the one the cached GetProviderSchema answer gave.
    assert!(!calls.iter().any(|c| c == "GetMetadata"), "a warm start asked GetMetadata: {calls:?}");

    cached.ws.up()?;
    assert!(!fetched(&cached.calls()?));
    let outputs = cached.ws.stack_outputs(true)?;
    assert_eq!(outputs["password"].as_str().map(str::len), Some(20), "{outputs:#}");
    assert_eq!(outputs["tokenLength"], serde_json::json!(12), "{outputs:#}");
    cached.ws.preview_expect_no_changes()?;
    cached.ws.destroy()?;
    Ok(())
}

#[test]
fn damaged_entries_are_ignored_and_rebuilt() -> anyhow::Result<()> {
    let mut cached = Cached::start("cache-damaged", None)?;
    cached.calls()?;
    let [entry] = cached.entries().try_into().map_err(|e| anyhow::anyhow!("one entry expected: {e:?}"))?;
    let good = std::fs::read(&entry)?;
    let mut corrupt = good.clone();
    let middle = corrupt.len() / 2;
    corrupt[middle] ^= 0x55;
    // Another version of us: the same file name, the header naming another bridge version.
    let text = String::from_utf8_lossy(&good).into_owned();
    let version = format!("\"bridge_version\":\"{}\"", env!("CARGO_PKG_VERSION"));
    anyhow::ensure!(text.contains(&version), "the entry's header names our version");
    let other_version = text.replacen(&version, "\"bridge_version\":\"0.0.1\"", 1).into_bytes();
    let damages: [(&str, Vec<u8>); 5] = [
        ("corrupt", corrupt),
        ("truncated", good[..good.len() / 3].to_vec()),
        ("from another version of us", other_version),
        ("empty", Vec::new()),
        ("not an entry", b"{\"resources\": {}}".to_vec()),
    ];
    for (damage, bytes) in damages {
        std::fs::write(&entry, &bytes)?;
        let calls = cached.preview()?;
        assert!(fetched(&calls), "{damage}: the damaged entry was used: {calls:?}");
        assert_eq!(std::fs::read(&entry)?.len(), good.len(), "{damage}: the entry is rebuilt");
        let calls = cached.preview()?;
        assert!(!fetched(&calls), "{damage}: the rebuilt entry is used: {calls:?}");
    }
    Ok(())
}

#[test]
fn a_binary_that_changed_on_disk_is_not_served_from_the_cache() -> anyhow::Result<()> {
    let bin = common::scratch_dir("cache-binary");
    let provider = bin.join("terraform-provider-random");
    std::fs::copy(common::real_provider("random", versions::RANDOM)?, &provider)?;
    let mut cached = Cached::start("cache-binary", Some(&provider))?;
    cached.calls()?;
    assert!(!fetched(&cached.preview()?));

    // Rewritten in place, as an upgrade that keeps the path would: same path, same size.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let bytes = std::fs::read(&provider)?;
    std::fs::write(&provider, &bytes)?;
    let calls = cached.preview()?;
    assert!(fetched(&calls), "the old entry was used for a changed binary: {calls:?}");
    assert_eq!(cached.entries().len(), 2, "a new entry beside the old one (evicted when the cache is full)");
    assert!(!fetched(&cached.preview()?));
    let _ = std::fs::remove_dir_all(&bin);
    Ok(())
}

/// Makes a directory immutable (even root cannot create files in it) for the guard's life.
struct Immutable(PathBuf);

impl Immutable {
    fn new(dir: &Path) -> anyhow::Result<Immutable> {
        let status = std::process::Command::new("chattr").arg("+i").arg(dir).status()?;
        anyhow::ensure!(status.success(), "chattr +i {} failed", dir.display());
        Ok(Immutable(dir.to_owned()))
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

#[test]
fn a_read_only_cache_directory_costs_a_schema_call_not_a_run() -> anyhow::Result<()> {
    let mut cached = Cached::start("cache-read-only", None)?;
    cached.calls()?;
    for entry in cached.entries() {
        std::fs::remove_file(entry)?;
    }
    let guard = Immutable::new(&cached.cache_dir())?;
    for run in 0..2 {
        let calls = cached.preview()?;
        assert!(fetched(&calls), "run {run}: nothing cached, so the schema is asked for: {calls:?}");
    }
    assert!(cached.entries().is_empty());
    drop(guard);
    Ok(())
}

#[test]
fn a_cache_too_small_for_the_entry_keeps_nothing_and_runs() -> anyhow::Result<()> {
    let mut cached = Cached::start("cache-full", None)?;
    cached.calls()?;
    for entry in cached.entries() {
        std::fs::remove_file(entry)?;
    }
    cached.ws.set_env("PULUMI_TF_SCHEMA_CACHE_MAX_MB", "0");
    for run in 0..2 {
        let calls = cached.preview()?;
        assert!(fetched(&calls), "run {run}: {calls:?}");
        assert!(cached.entries().is_empty(), "run {run}: the bound evicts every entry");
    }
    Ok(())
}

#[test]
fn two_concurrent_ups_share_one_cache() -> anyhow::Result<()> {
    let shared_cache = common::scratch_dir("cache-shared");
    // One binary for both, so one entry.
    let own = Scratch(common::scratch_dir("cache-shared-provider"));
    let provider = private_copy("random", versions::RANDOM, &own.0)?;
    let mut workspaces = Vec::new();
    for label in ["cache-shared-a", "cache-shared-b"] {
        let mut cached = Cached::start(label, Some(&provider))?;
        cached.ws.set_env("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", &shared_cache.display().to_string());
        workspaces.push(cached);
    }
    let entries_dir = shared_cache.join(".schema-cache");
    // Both start cold, at the same time, and both write the entry.
    let _ = std::fs::remove_dir_all(&entries_dir);
    let results: Vec<anyhow::Result<Vec<String>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = workspaces
            .iter_mut()
            .map(|cached| {
                scope.spawn(move || {
                    cached.ws.up()?;
                    cached.calls()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("the thread ran")).collect()
    });
    for result in results {
        result?;
    }
    assert_eq!(entries_in(&entries_dir).len(), 1, "one binary, one entry");
    for cached in &mut workspaces {
        let outputs = cached.ws.stack_outputs(true)?;
        assert_eq!(outputs["password"].as_str().map(str::len), Some(20), "{outputs:#}");
        // The entry they raced to write is whole and used.
        cached.ws.preview_expect_no_changes()?;
        assert!(!fetched(&cached.calls()?));
        cached.ws.destroy()?;
    }
    let _ = std::fs::remove_dir_all(&shared_cache);
    Ok(())
}

/// The calls a provider got before the first one about a resource type, by method name.
fn start_up_calls(calls: &[String]) -> Vec<String> {
    let per_type = ["ValidateResourceConfig", "ValidateDataResourceConfig", "PlanResourceChange", "ReadDataSource"];
    calls.iter().take_while(|c| !per_type.contains(&c.as_str())).cloned().collect()
}

/// A muxed provider (terraform-plugin-mux) on a warm cache, on protocol 5 (hashicorp/dns, an
/// SDKv2 and a framework half, against BIND) and 6 (our muxed6test: an SDKv2 half through
/// tf5to6server and a framework half, proxmox's size). Mux records every type GetMetadata
/// lists without marking its discovery done, so a warm start that asked GetMetadata failed
/// every later call ("Duplicate resource type", issue 28). The provider's first calls must be
/// Terraform's: configuration, then the program's types; a type of each half is used.
#[test]
fn muxed_providers_start_warm_on_protocols_5_and_6() -> anyhow::Result<()> {
    let server = common::bind::Bind::start("cache-muxed")?;
    let own = Scratch(common::scratch_dir("cache-muxed-providers"));
    let dns = private_copy("dns", versions::DNS, &own.0)?;
    let muxed6 = private_copy("muxed6test", "current", &own.0)?;
    let programs = [
        (
            &dns,
            format!(
                "resources:\n  bind:\n    type: pulumi:providers:dns\n    properties:\n      updates:\n        - server: \
                 127.0.0.1\n          port: {}\n          keyName: tf.\n          keyAlgorithm: hmac-sha256\n          \
                 keySecret: {}\n  www:\n    type: dns:index/aRecordSet:ARecordSet\n    properties:\n      zone: \
                 example.com.\n      name: warm\n      addresses: [192.0.2.7]\n    options:\n      provider: ${{bind}}\n  \
                 txt:\n    type: dns:index/txtRecordSet:TxtRecordSet\n    properties:\n      zone: example.com.\n      \
                 name: warm\n      txts: [warm]\n    options:\n      provider: ${{bind}}\n",
                server.port(),
                server.secret()
            ),
        ),
        (
            &muxed6,
            "resources:\n  sdk:\n    type: muxed6test:index/sdk0:Sdk0\n    properties:\n      name: a\n      value: v1\n  \
             fw:\n    type: muxed6test:index/fw56:Fw56\n    properties:\n      name: b\n      members: [warm]\nvariables:\n  \
             looked:\n    fn::invoke:\n      function: muxed6test:index/getFwData44:getFwData44\n      arguments:\n        \
             name: c\noutputs:\n  looked: ${looked.value}\n"
                .to_owned(),
        ),
    ];
    for (provider, resources) in programs {
        let label = provider.file_name().and_then(|n| n.to_str()).unwrap_or("muxed").to_owned();
        let mut ws = Workspace::new("cache-muxed", Implementation::Ours)?;
        std::fs::write(ws.project_dir().join("Pulumi.yaml"), format!("name: warm\nruntime: yaml\n{resources}"))?;
        let log = ws.root().join("grpc.jsonl");
        ws.set_env("PULUMI_TF_DEBUG_GRPC", &log.display().to_string());
        ws.package_add(&[provider.to_str().expect("a UTF-8 path")])?;
        ws.stack_init()?;
        assert!(fetched(&Cached::read_calls(&log)?), "{label}: package add started cold");

        let up = ws.up()?;
        let calls = Cached::read_calls(&log)?;
        assert_eq!(start_up_calls(&calls), ["ValidateProviderConfig", "ConfigureProvider"], "{label}: {calls:?}\n{up}");
        assert!(!calls.iter().any(|c| c == "GetMetadata" || c == "GetProviderSchema"), "{label}: {calls:?}");
        ws.preview_expect_no_changes()?;
        ws.edit_program("warm]", "warmer]")?;
        ws.up()?;
        ws.destroy()?;
        let calls = Cached::read_calls(&log)?;
        assert!(!calls.iter().any(|c| c == "GetMetadata" || c == "GetProviderSchema"), "{label}: {calls:?}");
    }
    assert!(server.dig("warm.example.com.", "A")?.is_empty(), "destroy removed the record");
    Ok(())
}

/// What the provider sees first on a cold and a warm start, on an SDKv2 provider (petoju/mysql
/// 3.0.88, against MariaDB) and a muxed one (hashicorp/dns 3.6.1, against BIND), as
/// `PULUMI_TF_DEBUG_GRPC` records it. Cold (`package add`, no entry): the schema calls. Warm
/// (`pulumi preview`, an entry for the binary): Parameterize and GetSchema are answered from the
/// cache while the provider launches, so each provider process's first calls are the
/// configuration's, exactly Terraform's sequence for a provider whose schema answer declared
/// `get_provider_schema_optional`; never GetMetadata.
#[test]
fn cold_and_warm_start_up_sequences_on_an_sdkv2_and_a_muxed_provider() -> anyhow::Result<()> {
    let mariadb = common::mariadb::MariaDb::start("cache-sequence")?;
    let bind = common::bind::Bind::start("cache-sequence")?;
    let own = Scratch(common::scratch_dir("cache-sequence-providers"));
    let cases: [(&str, PathBuf, &str); 2] = [
        ("mysql (SDKv2)", private_copy("mysql", versions::MYSQL, &own.0)?, "mysql"),
        ("dns (muxed)", private_copy("dns", versions::DNS, &own.0)?, "dns"),
    ];
    for (label, provider, example) in cases {
        let mut ws = Workspace::new("cache-sequence", Implementation::Ours)?;
        ws.copy_example(example)?;
        let log = ws.root().join("grpc.jsonl");
        ws.set_env("PULUMI_TF_DEBUG_GRPC", &log.display().to_string());
        ws.package_add(&[provider.to_str().expect("a UTF-8 path")])?;
        let cold = Cached::read_calls(&log)?;
        println!("{label}, cold (package add): {cold:?}");
        assert_eq!(cold.first().map(String::as_str), Some("GetProviderSchema"), "{label}: {cold:?}");
        assert!(!cold.iter().any(|c| c == "GetMetadata"), "{label}: {cold:?}");

        ws.stack_init()?;
        if example == "mysql" {
            ws.config_set("endpoint", &mariadb.endpoint())?;
            for (key, value) in [("rootPassword", common::mariadb::ROOT_PASSWORD), ("appPassword", "app-pw-seq-1")] {
                ws.pulumi_ok(&["config", "set", "--secret", key, value, "--non-interactive"])?;
            }
            ws.config_set("mysql:endpoint", &mariadb.endpoint())?;
            ws.config_set("mysql:username", "root")?;
            let password = common::mariadb::ROOT_PASSWORD;
            ws.pulumi_ok(&["config", "set", "--secret", "mysql:password", password, "--non-interactive"])?;
        } else {
            ws.config_set("dnsPort", &bind.port().to_string())?;
            ws.pulumi_ok(&["config", "set", "--secret", "tsigSecret", bind.secret(), "--non-interactive"])?;
        }
        let preview = ws.preview()?;
        let warm = Cached::read_calls(&log)?;
        println!("{label}, warm (preview): {warm:?}");
        let first = start_up_calls(&warm);
        assert!(!first.is_empty(), "{label}: nothing before the first per-type call: {warm:?}\n{preview}");
        assert!(
            first.iter().all(|c| c == "ValidateProviderConfig" || c == "ConfigureProvider"),
            "{label}: a warm start sent more than the configuration first: {warm:?}"
        );
        assert!(!warm.iter().any(|c| c == "GetMetadata" || c == "GetProviderSchema"), "{label}: {warm:?}");
    }
    Ok(())
}
