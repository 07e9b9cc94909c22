//! Lazy translation with the schema cache, against the fixture provider: a warm start
//! (Parameterize, CheckConfig, Configure, one resource type) decodes only what it uses and
//! never the whole schema; a warm start with a provider that refuses GetProviderSchema
//! still works, because it is never asked; only the package schema (GetSchema) decodes
//! everything, and it equals the cold one.

use crate::common;

use std::collections::BTreeMap;

use tfbridge::installer::Progress;
use tfbridge::lifecycle::{ConfigureRequest, Session, start_provider_with_cache};
use tfbridge::property::{PropertyMap, PropertyValue};
use tfbridge::schema_cache::SchemaCache;

struct Quiet;

impl Progress for Quiet {
    fn step(&self, _: &str) {}
    fn download(&self, _: &str, _: u64, _: Option<u64>) {}
}

async fn start(dir: &std::path::Path, cache: &SchemaCache) -> anyhow::Result<Session> {
    let binary = dir.join("terraform-provider-fixture");
    let args = tfbridge::parameterize::parse_args(&[binary.display().to_string()])?;
    Ok(start_provider_with_cache(&args, dir, &Quiet, Some(cache.clone())).await?)
}

fn provider_config() -> PropertyMap {
    let mut config = BTreeMap::new();
    config.insert("endpoint".to_owned(), PropertyValue::String("https://example.test".to_owned()));
    config.insert("maxRetries".to_owned(), PropertyValue::Number(3.0));
    config.into_iter().collect()
}

/// A fixture launcher that panics in the RPC named in `flag` (empty: none), read at each
/// launch, so the provider's behaviour changes while its file, and so its cache key, stays.
#[cfg(unix)]
fn switchable_fixture(dir: &std::path::Path, flag: &std::path::Path) -> anyhow::Result<()> {
    let binary = common::fixture::fixture_binary()?;
    common::write_script(
        dir,
        "terraform-provider-fixture",
        &format!(
            "FIXTURE_PROTOCOL=6 FIXTURE_PANIC_ON=\"$(cat '{}' 2>/dev/null)\" exec '{}' \"$@\"",
            flag.display(),
            binary.display()
        ),
    );
    Ok(())
}

/// Windows: the fixture linked in with its settings file beside it (`common::fixture`),
/// which it reads at each launch; the "flag" is that file.
#[cfg(not(unix))]
fn switchable_fixture(dir: &std::path::Path, flag: &std::path::Path) -> anyhow::Result<()> {
    // A copy, not the wrapper's hard link: other tests linking the same file change its
    // change time, and so its cache key, between this test's two starts.
    let wrapper = common::fixture::wrapper_dir("6", &[])?;
    std::fs::copy(common::fixture::fixture_binary()?, dir.join("terraform-provider-fixture.exe"))?;
    std::fs::rename(wrapper.join("terraform-provider-fixture.env"), dir.join("terraform-provider-fixture.env"))?;
    anyhow::ensure!(flag == dir.join("panic-on"), "the flag is panic-on in the fixture's folder");
    Ok(())
}

/// Makes the switchable fixture panic in `rpc` from its next launch on.
fn switch_fixture(flag: &std::path::Path, rpc: &str) -> anyhow::Result<()> {
    if cfg!(unix) {
        std::fs::write(flag, rpc)?;
    } else {
        let settings = flag.with_file_name("terraform-provider-fixture.env");
        std::fs::write(settings, format!("FIXTURE_PROTOCOL=6\nFIXTURE_PANIC_ON={rpc}\n"))?;
    }
    Ok(())
}

#[tokio::test]
async fn a_warm_start_decodes_only_what_the_program_uses() -> anyhow::Result<()> {
    let root = common::scratch_dir("schema-cache-lazy");
    let cache = SchemaCache { dir: root.join(".schema-cache"), max_bytes: u64::MAX };
    let flag = root.join("panic-on");
    switchable_fixture(&root, &flag)?;

    let cold = start(&root, &cache).await?;
    assert!(cold.connection().schema().is_whole(), "a schema from GetProviderSchema is whole");
    let (cold_spec, _) = cold.package_schema("100.0.0")?;
    cold.shutdown().await;

    // From now on the provider panics if asked for its schema.
    switch_fixture(&flag, "GetProviderSchema")?;
    let without_cache = SchemaCache { dir: root.join("elsewhere"), max_bytes: u64::MAX };
    assert!(start(&root, &without_cache).await.is_err(), "the switch works: a cold start fails");

    let warm = start(&root, &cache).await?;
    assert!(!warm.connection().schema().is_whole(), "a warm start keeps the schema encoded");
    let urn = "urn:pulumi:dev::p::pulumi:providers:fixture::default";
    let request = || ConfigureRequest { urn: urn.to_owned(), config: provider_config() };
    let checked = warm.check_config(request()).await?;
    assert!(checked.failures.is_empty(), "{:?}", checked.failures);
    warm.configure(request()).await?;
    warm.connection().resource("fixture:index/types:Types", "urn:pulumi:dev::p::fixture:index/types:Types::t")?;
    assert!(!warm.connection().schema().is_whole(), "start-up and one resource type decoded the whole schema");

    let (warm_spec, _) = warm.package_schema("100.0.0")?;
    assert!(warm.connection().schema().is_whole(), "GetSchema needs everything");
    assert_eq!(warm_spec.to_json(), cold_spec.to_json(), "the cached schema is the provider's");
    warm.shutdown().await;
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}

/// The `.package` entries in the cache directory.
fn package_entries(cache: &SchemaCache) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(&cache.dir) else { return Vec::new() };
    entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "package")).collect()
}

#[tokio::test]
async fn a_warm_get_schema_answers_the_cached_package_without_translating() -> anyhow::Result<()> {
    let root = common::scratch_dir("schema-cache-package");
    let cache = SchemaCache { dir: root.join(".schema-cache"), max_bytes: u64::MAX };
    switchable_fixture(&root, &root.join("panic-on"))?;

    let cold = start(&root, &cache).await?;
    let cold_json = cold.package_schema_json("100.0.0")?;
    cold.shutdown().await; // joins the package write
    let written = package_entries(&cache);
    assert_eq!(written.len(), 1, "one translated package: {written:?}");

    let warm = start(&root, &cache).await?;
    assert_eq!(warm.package_schema_json("100.0.0")?, cold_json);
    // Translating would have decoded every resource type.
    assert!(!warm.connection().schema().is_whole(), "a warm GetSchema translated again");
    // Another plugin version translates anew, into an entry of its own.
    let other: serde_json::Value = serde_json::from_str(&warm.package_schema_json("100.0.1")?)?;
    assert!(warm.connection().schema().is_whole(), "another plugin version is translated");
    assert_eq!(other["version"], serde_json::from_str::<serde_json::Value>(&cold_json)?["version"]);
    warm.shutdown().await;
    assert_eq!(package_entries(&cache).len(), 2);

    // A corrupt entry is a miss: translated again, the same answer, and rewritten.
    let mut bytes = std::fs::read(&written[0])?;
    let last = bytes.len() - 2;
    bytes[last] ^= 0x01;
    std::fs::write(&written[0], &bytes)?;
    let again = start(&root, &cache).await?;
    assert_eq!(again.package_schema_json("100.0.0")?, cold_json);
    assert!(again.connection().schema().is_whole(), "the corrupt entry was believed");
    again.shutdown().await;
    let third = start(&root, &cache).await?;
    assert_eq!(third.package_schema_json("100.0.0")?, cold_json);
    assert!(!third.connection().schema().is_whole(), "the corrupt entry was not replaced");
    third.shutdown().await;
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}

/// A fixture launcher that waits for the file `gate` before it starts the provider, and
/// fails at once if the file `fail` is there: a launch the test holds or breaks while the
/// launcher's file, and so the cache key, stays the same.
#[cfg(unix)]
fn gated_fixture(dir: &std::path::Path) -> anyhow::Result<(std::path::PathBuf, std::path::PathBuf)> {
    let binary = common::fixture::fixture_binary()?;
    let (gate, fail) = (dir.join("gate"), dir.join("fail"));
    common::write_script(
        dir,
        "terraform-provider-fixture",
        &format!(
            "if [ -e '{fail}' ]; then echo 'the launcher refuses to start' >&2; exit 3; fi\n\
             while [ ! -e '{gate}' ]; do sleep 0.02; done\n\
             FIXTURE_PROTOCOL=6 exec '{binary}' \"$@\"",
            fail = fail.display(),
            gate = gate.display(),
            binary = binary.display()
        ),
    );
    Ok((gate, fail))
}

/// A warm start answers Parameterize and GetSchema from the cache while the provider is
/// still launching, and the program's first call waits for the launch.
#[cfg(unix)]
#[tokio::test]
async fn a_warm_start_answers_before_the_provider_is_up_and_the_first_call_waits() -> anyhow::Result<()> {
    let root = common::scratch_dir("schema-cache-deferred");
    let cache = SchemaCache { dir: root.join(".schema-cache"), max_bytes: u64::MAX };
    let (gate, _) = gated_fixture(&root)?;
    std::fs::write(&gate, b"")?;
    let cold = start(&root, &cache).await?;
    let cold_json = cold.package_schema_json("100.0.0")?;
    cold.shutdown().await;

    // The gate is shut: the provider cannot come up until the test opens it.
    std::fs::remove_file(&gate)?;
    let warm = tokio::time::timeout(std::time::Duration::from_secs(60), start(&root, &cache))
        .await
        .map_err(|_| anyhow::anyhow!("a warm start waited for the provider"))??;
    assert_eq!(warm.package_schema_json("100.0.0")?, cold_json, "GetSchema without the provider");
    let urn = "urn:pulumi:dev::p::pulumi:providers:fixture::default";
    let request = || ConfigureRequest { urn: urn.to_owned(), config: provider_config() };
    let check = tokio::spawn({
        let warm = std::sync::Arc::new(warm);
        async move { (warm.check_config(request()).await.map(|c| c.failures.len()), warm) }
    });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!check.is_finished(), "CheckConfig answered without the provider");
    std::fs::write(&gate, b"")?;
    let (checked, warm) = tokio::time::timeout(std::time::Duration::from_secs(60), check).await??;
    assert_eq!(checked?, 0, "CheckConfig after the launch");
    let warm = std::sync::Arc::try_unwrap(warm).map_err(|_| anyhow::anyhow!("the session is still shared"))?;
    warm.configure(request()).await?;
    warm.shutdown().await;
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}

/// A warm start whose provider then fails to launch: start-up succeeds from the cache, and
/// every call says the provider did not start, and why, instead of hanging.
#[cfg(unix)]
#[tokio::test]
async fn a_failed_background_launch_is_every_call_s_clear_error() -> anyhow::Result<()> {
    let root = common::scratch_dir("schema-cache-deferred-fail");
    let cache = SchemaCache { dir: root.join(".schema-cache"), max_bytes: u64::MAX };
    let (gate, fail) = gated_fixture(&root)?;
    std::fs::write(&gate, b"")?;
    start(&root, &cache).await?.shutdown().await;

    std::fs::write(&fail, b"")?;
    let warm = start(&root, &cache).await?;
    let urn = "urn:pulumi:dev::p::pulumi:providers:fixture::default";
    let request = || ConfigureRequest { urn: urn.to_owned(), config: provider_config() };
    for _ in 0..2 {
        let error = tokio::time::timeout(std::time::Duration::from_secs(60), warm.check_config(request()))
            .await?
            .expect_err("a provider that did not start answered");
        let text = error.to_string();
        assert!(text.contains("did not start"), "{text}");
        assert!(text.contains("the launcher refuses to start") || text.contains("exit"), "the launch's cause: {text}");
    }
    warm.shutdown().await;
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}
