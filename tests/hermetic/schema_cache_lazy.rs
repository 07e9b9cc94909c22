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
    assert!(cold.connection.schema.is_whole(), "a schema from GetProviderSchema is whole");
    let (cold_spec, _) = cold.package_schema("100.0.0")?;
    cold.shutdown().await;

    // From now on the provider panics if asked for its schema.
    switch_fixture(&flag, "GetProviderSchema")?;
    let without_cache = SchemaCache { dir: root.join("elsewhere"), max_bytes: u64::MAX };
    assert!(start(&root, &without_cache).await.is_err(), "the switch works: a cold start fails");

    let warm = start(&root, &cache).await?;
    assert!(!warm.connection.schema.is_whole(), "a warm start keeps the schema encoded");
    let urn = "urn:pulumi:dev::p::pulumi:providers:fixture::default";
    let request = || ConfigureRequest { urn: urn.to_owned(), config: provider_config() };
    let checked = warm.check_config(request()).await?;
    assert!(checked.failures.is_empty(), "{:?}", checked.failures);
    warm.configure(request()).await?;
    warm.connection.resource("fixture:index/types:Types", "urn:pulumi:dev::p::fixture:index/types:Types::t")?;
    assert!(!warm.connection.schema.is_whole(), "start-up and one resource type decoded the whole schema");

    let (warm_spec, _) = warm.package_schema("100.0.0")?;
    assert!(warm.connection.schema.is_whole(), "GetSchema needs everything");
    assert_eq!(warm_spec.to_json(), cold_spec.to_json(), "the cached schema is the provider's");
    warm.shutdown().await;
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}
