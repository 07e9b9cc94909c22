//! `pulumi package add terraform-provider <host>/hashicorp/random 3.9.0` as the engine runs
//! it: Parameterize installs the provider from a registry, reports progress and where the
//! provider came from through Engine.Log, and a later process (an SDK embedding the
//! parameter value) starts from the cache with the registry gone.

use crate::common::versions;
use std::ffi::OsStr;
use std::time::Duration;

use tfbridge_proto::pulumirpc;
use tfbridge_proto::pulumirpc::parameterize_request::{Parameters, ParametersArgs, ParametersValue};

use crate::common::engine_service::recording_engine;
use crate::common::plugin::Plugin;
use crate::common::registry::TestSigningKey;
use crate::common::registry::server::{TestCa, TestServer};

/// A loopback registry serving the real random provider, and the CA its certificate is from.
async fn registry_with_random() -> (TestCa, TestServer) {
    let tools = crate::common::tools_dir();
    let binary = std::fs::read(tools.join("providers/random").join(versions::RANDOM).join("terraform-provider-random"))
        .expect("the real random provider: run scripts/test-tools.sh providers");
    let ca = TestCa::generate();
    let key = TestSigningKey::generate("Registry <registry@example.com>");
    let server = TestServer::start(&ca, "127.0.0.1").await;
    super::sources::publish_random(&server, &key, &binary);
    (ca, server)
}

#[tokio::test]
async fn parameterize_installs_reports_progress_and_then_runs_offline() {
    let (ca, server) = registry_with_random().await;

    let home = tempfile::tempdir().unwrap();
    let ca_file = home.path().join("ca.pem");
    std::fs::write(&ca_file, &ca.ca_pem).unwrap();
    let cache = home.path().join("plugins");
    // Named but absent, as on machines that export it for a file they never wrote: Terraform
    // warns and goes on with the defaults, and so do we.
    let missing_cli_config = home.path().join("missing.tfrc");
    let env: [(&str, &OsStr); 4] = [
        ("HOME", home.path().as_os_str()),
        ("SSL_CERT_FILE", ca_file.as_os_str()),
        ("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", cache.as_os_str()),
        ("TF_CLI_CONFIG_FILE", missing_cli_config.as_os_str()),
    ];
    let address = format!("{}/hashicorp/random", server.host());

    let (engine, mut logs) = recording_engine().await;
    let plugin = Plugin::start_with_env(&crate::common::our_plugin(), &[&engine], &env);
    let mut client = plugin.client().await;
    let args = Parameters::Args(ParametersArgs { args: vec![address.clone(), versions::RANDOM.into()] });
    let response =
        client.parameterize(pulumirpc::ParameterizeRequest { parameters: Some(args) }).await.expect("Parameterize");
    let response = response.into_inner();
    assert_eq!((response.name.as_str(), response.version.as_str()), ("random", versions::RANDOM));

    let mut messages = Vec::new();
    let mut warnings = Vec::new();
    while let Ok(Some(log)) = tokio::time::timeout(Duration::from_secs(2), logs.recv()).await {
        if log.severity == pulumirpc::LogSeverity::Warning as i32 {
            warnings.push(log.message.clone());
        }
        messages.push((log.ephemeral, log.message));
        if messages.iter().any(|(_, m)| m.starts_with("Using ")) {
            break;
        }
    }
    assert!(
        messages.iter().any(|(ephemeral, m)| *ephemeral && m.starts_with("Downloading ")),
        "download progress as status lines: {messages:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("missing.tfrc") && w.contains("does not exist")),
        "a warning about the missing CLI configuration: {warnings:?}"
    );
    let origin = messages.iter().map(|(_, m)| m).find(|m| m.starts_with("Using ")).expect("an origin line");
    assert!(origin.contains(&server.host()), "{origin}");
    drop(plugin);
    drop(server);

    // A program's SDK parameterizes by value; the registry is gone, the cache answers.
    let (engine, mut logs) = recording_engine().await;
    let plugin = Plugin::start_with_env(&crate::common::our_plugin(), &[&engine], &env);
    let mut client = plugin.client().await;
    let value = format!(r#"{{"remote":{{"url":"{address}","version":"{}"}}}}"#, versions::RANDOM).into_bytes();
    let by_value =
        Parameters::Value(ParametersValue { name: "random".into(), version: versions::RANDOM.into(), value });
    let response = client
        .parameterize(pulumirpc::ParameterizeRequest { parameters: Some(by_value) })
        .await
        .expect("Parameterize from the cache");
    assert_eq!(response.into_inner().version, versions::RANDOM);
    // Nothing new happened, so no info line (issue 12 item 7: the Go implementation prints
    // nothing on every run either); the origin is in the debug log. Warnings (here the missing
    // CLI configuration) still show.
    let mut quiet_run = Vec::new();
    while let Ok(Some(log)) = tokio::time::timeout(Duration::from_secs(1), logs.recv()).await {
        quiet_run.push((pulumirpc::LogSeverity::try_from(log.severity), log.ephemeral, log.message));
    }
    let origin = quiet_run.iter().find(|(_, _, m)| m.starts_with("Using ")).expect("an origin line in the debug log");
    assert_eq!(origin.0, Ok(pulumirpc::LogSeverity::Debug), "{quiet_run:?}");
    let shown: Vec<_> = quiet_run
        .iter()
        .filter(|(severity, ephemeral, _)| !ephemeral && *severity == Ok(pulumirpc::LogSeverity::Info))
        .collect();
    assert!(shown.is_empty(), "a run from the cache prints no info lines: {shown:?}");
    assert!(
        quiet_run
            .iter()
            .any(|(severity, _, m)| *severity == Ok(pulumirpc::LogSeverity::Warning) && m.contains("missing.tfrc")),
        "warnings still show: {quiet_run:?}"
    );
}

/// Several processes install one provider into one empty cache at once (`pulumi up` of
/// stacks in parallel, CI jobs sharing a home; bridge#3425 saw "text file busy" there), with
/// both implementations: every Parameterize succeeds, the cache holds the provider once, and
/// a GetSchema right after each runs the installed binary.
#[tokio::test]
async fn parallel_installs_of_one_provider_all_succeed() {
    const PROCESSES: usize = 4;
    let (ca, server) = registry_with_random().await;
    let address = format!("{}/hashicorp/random", server.host());

    for implementation in [crate::common::Implementation::Ours, crate::common::Implementation::Go] {
        let home = tempfile::tempdir().unwrap();
        let ca_file = home.path().join("ca.pem");
        std::fs::write(&ca_file, &ca.ca_pem).unwrap();
        let cache = home.path().join("plugins");
        let cli_config = home.path().join("empty.tfrc");
        std::fs::write(&cli_config, "").unwrap();
        let env: [(&str, &OsStr); 5] = [
            ("HOME", home.path().as_os_str()),
            ("PULUMI_HOME", home.path().as_os_str()),
            ("SSL_CERT_FILE", ca_file.as_os_str()),
            ("PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR", cache.as_os_str()),
            ("TF_CLI_CONFIG_FILE", cli_config.as_os_str()),
        ];
        let plugin_binary = implementation.plugin_binary().expect("the plugin");
        let (engine, _logs) = recording_engine().await;
        let plugins: Vec<Plugin> =
            (0..PROCESSES).map(|_| Plugin::start_with_env(&plugin_binary, &[&engine], &env)).collect();
        let mut clients = Vec::new();
        for plugin in &plugins {
            clients.push(plugin.client().await);
        }
        let mut runs = tokio::task::JoinSet::new();
        for (i, mut client) in clients.into_iter().enumerate() {
            let address = address.clone();
            runs.spawn(async move {
                let args = Parameters::Args(ParametersArgs { args: vec![address, versions::RANDOM.into()] });
                let parameterized =
                    client.parameterize(pulumirpc::ParameterizeRequest { parameters: Some(args) }).await?;
                let schema = client
                    .get_schema(pulumirpc::GetSchemaRequest {
                        version: 0,
                        subpackage_name: String::new(),
                        subpackage_version: String::new(),
                    })
                    .await?;
                Ok::<_, tonic::Status>((i, parameterized.into_inner().name, schema.into_inner().schema.len()))
            });
        }
        let mut results = Vec::new();
        while let Some(joined) = runs.join_next().await {
            results.push(joined.expect("the task"));
        }
        for result in results {
            match result {
                Ok((i, name, schema)) => {
                    assert!(name == "random" && schema > 1000, "{implementation:?} #{i}: {name} {schema}")
                }
                Err(status) => panic!("{implementation:?}: a process of {PROCESSES} failed: {status}"),
            }
        }
        let executables: Vec<String> = crate::common::registry::files_in_cache(&cache)
            .into_iter()
            .filter(|file| file.ends_with("terraform-provider-random") || file.contains("terraform-provider-random_v"))
            .collect();
        assert_eq!(executables.len(), 1, "{implementation:?}: the provider once in the cache: {executables:?}");
        drop(plugins);
    }
}
