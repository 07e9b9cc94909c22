//! Real Terraform providers (built by `scripts/test-tools.sh providers`) launched exactly as
//! Terraform launches them, with auto-mTLS: schema, metadata and functions read through the
//! protocol-neutral client, then a clean shutdown that leaves no process behind.

use crate::common;

use std::fmt::Write;
use std::time::{Duration, Instant};

use common::versions;
use common::{process_is_alive, real_provider, scratch_dir, wait_until_dead, write_script};
use expect_test::{ExpectFile, expect_file};
use schema_gen::tf;
use tfbridge::tfplugin::core_rpcs::ProviderSchemaResponse;
use tfbridge::tfplugin::{CallError, LaunchConfig, LaunchError, ProviderClient, Support, launch};

async fn launch_with_mtls(path: &std::path::Path) -> anyhow::Result<ProviderClient> {
    let mut config = LaunchConfig::terraform_defaults(path);
    config.auto_mtls = true;
    Ok(launch(&config).await?)
}

fn names<V>(map: &std::collections::BTreeMap<String, V>) -> String {
    map.keys().cloned().collect::<Vec<_>>().join(", ")
}

fn describe_attribute_type(ty: &tf::AttributeType) -> String {
    match ty {
        tf::AttributeType::Type(ty) => ty.to_string(),
        tf::AttributeType::Nested(object) => format!(
            "nested {:?} {{{}}}",
            object.nesting,
            object
                .attributes
                .iter()
                .map(|(name, attribute)| format!("{name}: {}", describe_attribute_type(&attribute.ty)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A readable digest of everything the client read from a provider.
fn summary(client: &ProviderClient, schema: &ProviderSchemaResponse, detail_resource: &str) -> String {
    let mut out = String::new();
    let s = &schema.schema;
    writeln!(out, "protocol {}", client.protocol().number()).unwrap();
    writeln!(out, "capabilities {:?}", schema.capabilities).unwrap();
    writeln!(out, "diagnostics {:?}", schema.diagnostics).unwrap();
    writeln!(out, "provider attributes: {}", names(&s.provider.block.attributes)).unwrap();
    writeln!(out, "resources: {}", names(&s.resources)).unwrap();
    writeln!(out, "data sources: {}", names(&s.data_sources)).unwrap();
    writeln!(out, "ephemeral resources: {}", names(&s.ephemeral_resources)).unwrap();
    writeln!(out, "functions: {}", names(&s.functions)).unwrap();
    if let Some(resource) = s.resources.get(detail_resource) {
        writeln!(out, "{detail_resource} (version {}):", resource.version).unwrap();
        for (name, attribute) in &resource.block.attributes {
            let flags = [
                ("required", attribute.required),
                ("optional", attribute.optional),
                ("computed", attribute.computed),
                ("sensitive", attribute.sensitive),
                ("write_only", attribute.write_only),
            ]
            .iter()
            .filter(|(_, on)| *on)
            .map(|(flag, _)| *flag)
            .collect::<Vec<_>>()
            .join(" ");
            writeln!(out, "  {name}: {} {flags}", describe_attribute_type(&attribute.ty)).unwrap();
        }
        for (name, block) in &resource.block.block_types {
            writeln!(out, "  block {name}: {:?} {}", block.nesting, names(&block.block.attributes)).unwrap();
        }
    }
    out
}

/// Launches, reads schema, metadata and functions, shuts down, and checks the process is gone.
async fn check_real_provider(
    name: &str,
    version: &str,
    detail_resource: &str,
    expect: ExpectFile,
) -> anyhow::Result<ProviderSchemaResponse> {
    let path = real_provider(name, version)?;
    let client = launch_with_mtls(&path).await?;
    assert!(client.uses_tls(), "{name}: the connection should be auto-mTLS");
    let pid = client.pid().expect("a launched provider has a pid");
    assert!(process_is_alive(pid));

    let schema = client.get_provider_schema().await?;
    let mut digest = summary(&client, &schema, detail_resource);
    match client.get_metadata().await? {
        Support::Supported(metadata) => writeln!(
            digest,
            "GetMetadata: {} resources, {} data sources, {} functions, {:?}",
            metadata.resources.len(),
            metadata.data_sources.len(),
            metadata.functions.len(),
            metadata.capabilities
        )?,
        Support::Unsupported => writeln!(digest, "GetMetadata: unsupported")?,
    }
    match client.get_functions().await? {
        Support::Supported(functions) => writeln!(digest, "GetFunctions: {}", names(&functions.functions))?,
        Support::Unsupported => writeln!(digest, "GetFunctions: unsupported")?,
    }
    expect.assert_eq(&digest);

    client.shutdown().await;
    assert!(wait_until_dead(pid, Duration::from_secs(1)), "{name} (pid {pid}) is still running after shutdown");
    Ok(schema)
}

#[tokio::test]
async fn random_3_9_0() -> anyhow::Result<()> {
    let schema =
        check_real_provider("random", versions::RANDOM, "random_pet", expect_file!["../data/tfplugin/random.txt"])
            .await?;
    let length = &schema.schema.resources["random_pet"].block.attributes["length"];
    assert_eq!(length.ty, tf::AttributeType::Type(tf::Type::Number));
    Ok(())
}

#[tokio::test]
async fn local_2_9_0() -> anyhow::Result<()> {
    let schema =
        check_real_provider("local", versions::LOCAL, "local_file", expect_file!["../data/tfplugin/local.txt"]).await?;
    assert_eq!(
        schema.schema.resources["local_file"].block.attributes["filename"].ty,
        tf::AttributeType::Type(tf::Type::String)
    );
    Ok(())
}

/// null 2.1.2 predates terraform-plugin-sdk (Terraform 0.12's helper/schema, protocol 5.1):
/// GetMetadata and GetFunctions answer `Unimplemented`, which must read as "unsupported".
#[tokio::test]
async fn null_2_1_2_old_protocol_5() -> anyhow::Result<()> {
    let schema =
        check_real_provider("null", versions::NULL, "null_resource", expect_file!["../data/tfplugin/null.txt"]).await?;
    let triggers = &schema.schema.resources["null_resource"].block.attributes["triggers"];
    assert_eq!(triggers.ty, tf::AttributeType::Type(tf::Type::map(tf::Type::String)));
    Ok(())
}

#[tokio::test]
async fn time_0_14_2() -> anyhow::Result<()> {
    check_real_provider("time", versions::TIME, "time_sleep", expect_file!["../data/tfplugin/time.txt"]).await?;
    Ok(())
}

#[tokio::test]
async fn tls_4_3_0() -> anyhow::Result<()> {
    check_real_provider("tls", versions::TLS, "tls_private_key", expect_file!["../data/tfplugin/tls.txt"]).await?;
    Ok(())
}

#[tokio::test]
async fn http_3_6_1() -> anyhow::Result<()> {
    check_real_provider("http", versions::HTTP, "", expect_file!["../data/tfplugin/http.txt"]).await?;
    Ok(())
}

#[tokio::test]
async fn sdkv2_test_provider() -> anyhow::Result<()> {
    check_real_provider("sdkv2test", "current", "sdkv2test_thing", expect_file!["../data/tfplugin/sdkv2test.txt"])
        .await?;
    Ok(())
}

/// A plugin-framework provider on protocol 6, with nested attributes.
#[tokio::test]
async fn framework_protocol_6_test_provider() -> anyhow::Result<()> {
    let schema = check_real_provider(
        "framework6test",
        "current",
        "framework6test_widget",
        expect_file!["../data/tfplugin/framework6test.txt"],
    )
    .await?;
    let nested = schema
        .schema
        .resources
        .values()
        .flat_map(|resource| resource.block.attributes.values())
        .any(|attribute| matches!(attribute.ty, tf::AttributeType::Nested(_)));
    assert!(nested, "framework6test declares nested attributes");
    Ok(())
}

/// The launcher pins the certificate from the handshake. A wrapper script rewrites the
/// real provider's handshake to carry another certificate; the real server then presents
/// its own, which must be refused.
#[tokio::test]
async fn a_server_certificate_other_than_the_handshakes_is_refused() -> anyhow::Result<()> {
    let real = real_provider("random", versions::RANDOM)?;
    let other = tfbridge::tfplugin::tls::generate_client_identity()?;
    let other_base64: String =
        other.certificate_pem.lines().filter(|line| !line.starts_with("-----")).collect::<Vec<_>>().join("");
    let dir = scratch_dir("pin");
    let script = write_script(
        &dir,
        "terraform-provider-wrongcert",
        &format!("'{}' | sed -u 's#|grpc|[^|]*$#|grpc|{other_base64}#'", real.display()),
    );
    let mut config = LaunchConfig::terraform_defaults(&script);
    config.auto_mtls = true;
    let err = match launch(&config).await {
        Ok(_) => anyhow::bail!("connecting to a server with another certificate succeeded"),
        Err(err) => err,
    };
    assert!(matches!(err, LaunchError::Connect { .. }), "{err}");
    assert!(err.to_string().contains("invalid peer certificate"), "{err}");
    Ok(())
}

/// A provider killed with SIGKILL between calls: the next call's error says which RPC
/// failed and that the process died, with the signal.
#[tokio::test]
async fn a_call_to_a_killed_provider_reports_the_death() -> anyhow::Result<()> {
    let client = launch_with_mtls(&real_provider("random", versions::RANDOM)?).await?;
    let pid = client.pid().expect("pid");
    // SAFETY: kill(2) on the provider process we own.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);
    let err = match client.get_provider_schema().await {
        Ok(_) => anyhow::bail!("a call to a killed provider succeeded"),
        Err(err) => err,
    };
    let exit = err.process_exit().unwrap_or_else(|| panic!("the error says the process died: {err}"));
    assert!(exit.status.contains("signal: 9"), "{err}");
    assert!(err.to_string().contains("GetSchema failed for provider"), "{err}");
    Ok(())
}

/// A provider that panics: the error of the call that died with it carries the panic text.
/// The wrapper runs the real provider, and on a trigger prints a Go-style panic to stderr,
/// kills the provider and exits 2, as a crashing provider would.
#[tokio::test]
async fn a_call_that_dies_with_a_panic_carries_the_panic_text() -> anyhow::Result<()> {
    let real = real_provider("random", versions::RANDOM)?;
    let dir = scratch_dir("panic");
    let script = write_script(
        &dir,
        "terraform-provider-panics",
        &format!(
            "'{real}' &\nchild=$!\nwhile [ ! -e '{dir}/trigger' ]; do sleep 0.02; done\n\
             echo 'panic: interface conversion: interface {{}} is nil, not string' >&2\n\
             echo '' >&2\necho 'goroutine 42 [running]:' >&2\n\
             kill -9 $child\ntouch '{dir}/done'\nexit 2",
            real = real.display(),
            dir = dir.display()
        ),
    );
    let client = launch_with_mtls(&script).await?;
    std::fs::write(dir.join("trigger"), "")?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while !dir.join("done").exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let err = match client.get_provider_schema().await {
        Ok(_) => anyhow::bail!("a call to a dead provider succeeded"),
        Err(err) => err,
    };
    let CallError::Rpc { exit: Some(exit), .. } = &err else { anyhow::bail!("expected a process death: {err}") };
    assert_eq!(exit.status, "exit status: 2", "{err}");
    let panic_text = exit.panic_text.as_deref().unwrap_or_default();
    assert!(panic_text.starts_with("panic: interface conversion"), "{err}");
    assert!(panic_text.contains("goroutine 42 [running]:"), "{err}");
    assert!(err.to_string().contains("panic: interface conversion"), "{err}");
    Ok(())
}

/// Megabytes on stderr after the handshake, written while we talk to the provider, never
/// block it: the writer finishes and the provider keeps answering.
#[tokio::test]
async fn megabytes_of_stderr_after_the_handshake_do_not_block() -> anyhow::Result<()> {
    let real = real_provider("random", versions::RANDOM)?;
    let dir = scratch_dir("flood-after");
    let script = write_script(
        &dir,
        "terraform-provider-chatty",
        &format!(
            "( sleep 0.2; yes 'a line of provider chatter on stderr' | head -c 8000000 >&2; touch '{dir}/flooded' ) &\nexec '{real}'",
            real = real.display(),
            dir = dir.display()
        ),
    );
    let client = launch_with_mtls(&script).await?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !dir.join("flooded").exists() {
        assert!(Instant::now() < deadline, "8 MB of stderr were not drained within 30 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    client.get_provider_schema().await?;
    let recent = client.recent_stderr();
    assert!(recent.iter().any(|line| line == "a line of provider chatter on stderr"), "{recent:#?}");
    client.shutdown().await;
    Ok(())
}

/// A provider started by someone else in debug mode prints a TF_REATTACH_PROVIDERS value;
/// the bridge attaches to it without TLS, uses it, and leaves it running after shutdown.
#[tokio::test]
async fn reattach_to_a_provider_in_debug_mode_and_leave_it_running() -> anyhow::Result<()> {
    use tokio::io::AsyncBufReadExt;

    let path = real_provider("random", versions::RANDOM)?;
    let mut debug = tokio::process::Command::new(&path)
        .arg("-debug")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let debug_pid = debug.id().expect("a running process has a pid");
    let mut lines = tokio::io::BufReader::new(debug.stdout.take().expect("piped stdout")).lines();
    let json = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await? {
            if let Some((_, value)) = line.split_once("TF_REATTACH_PROVIDERS='") {
                return anyhow::Ok(value.trim_end().trim_end_matches('\'').to_owned());
            }
        }
        anyhow::bail!("the debug-mode provider exited without printing TF_REATTACH_PROVIDERS")
    })
    .await??;

    let mut configs = tfbridge::tfplugin::reattach::parse_reattach_providers("TF_REATTACH_PROVIDERS", &json)?;
    let config = configs.remove("registry.terraform.io/hashicorp/random").expect("an entry for random");
    assert_eq!(config.pid, Some(debug_pid));

    let client = tfbridge::tfplugin::reattach("hashicorp/random", &config).await?;
    assert!(!client.uses_tls());
    assert_eq!(client.pid(), None);
    let schema = client.get_provider_schema().await?;
    assert!(schema.schema.resources.contains_key("random_pet"));
    client.shutdown().await;

    assert!(process_is_alive(debug_pid), "shutting down a reattached provider must not stop it");
    let again = tfbridge::tfplugin::reattach("hashicorp/random", &config).await?;
    assert!(matches!(again.get_metadata().await?, Support::Supported(_)));
    drop(again);
    assert!(process_is_alive(debug_pid), "dropping a reattached client must not kill the provider");

    debug.kill().await?;
    Ok(())
}

/// With auto-mTLS off (Terraform's `TF_DISABLE_PLUGIN_TLS`), no client certificate is
/// offered and the provider serves plaintext gRPC on its socket.
#[tokio::test]
async fn plaintext_when_auto_mtls_is_off() -> anyhow::Result<()> {
    let mut config = LaunchConfig::terraform_defaults(real_provider("random", versions::RANDOM)?);
    config.auto_mtls = false;
    let client = launch(&config).await?;
    assert!(!client.uses_tls());
    assert!(client.get_provider_schema().await?.schema.resources.contains_key("random_pet"));
    let pid = client.pid().expect("pid");
    client.shutdown().await;
    assert!(wait_until_dead(pid, Duration::from_secs(1)));
    Ok(())
}

/// A client dropped without shutdown still takes its process with it.
#[tokio::test]
async fn dropping_the_client_kills_the_provider() -> anyhow::Result<()> {
    let client = launch_with_mtls(&real_provider("random", versions::RANDOM)?).await?;
    let pid = client.pid().expect("pid");
    assert!(process_is_alive(pid));
    drop(client);
    assert!(wait_until_dead(pid, Duration::from_secs(5)), "provider pid {pid} survived its dropped client");
    Ok(())
}
