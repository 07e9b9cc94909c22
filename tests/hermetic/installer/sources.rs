//! Successful installs from each kind of source, and the order in which sources are tried.

use expect_test::expect;
use tfbridge::installer::{InstallRequest, NoProgress, Platform, Token, install};

use crate::common::registry::server::{TestCa, TestServer};
use crate::common::registry::*;

fn request(host: &str, constraint: &str) -> InstallRequest {
    InstallRequest::parse(&format!("{host}/{NAMESPACE}/{TYPE_NAME}"), constraint).unwrap()
}

#[tokio::test]
async fn installs_newest_release_matching_the_constraint_then_reuses_it_with_the_network_gone() {
    let mut beta = Package::new("1.2.0-beta.1");
    beta.protocols = &["6.0"];
    let TestRegistry { ca, server, .. } =
        TestRegistry::start(&[Package::new("1.0.0"), Package::new("1.1.0"), beta, Package::new("2.0.0")]).await;
    let cache = tempfile::tempdir().unwrap();
    let config = test_config(cache.path(), &ca.ca_pem);
    let progress = RecordingProgress::default();
    let host = server.host();

    let installed = install(&request(&host, "~> 1.0"), &config, &progress).await.unwrap();
    assert_eq!(installed.version.to_string(), "1.1.0");
    assert_eq!(run(&installed.executable), "testprov 1.1.0\n");
    let cache_path = cache.path().to_string_lossy().into_owned();
    let replacements = [(host.as_str(), "REGISTRY"), (cache_path.as_str(), "CACHE")];
    expect!["acme/testprov 1.1.0 from registry REGISTRY (signed by key KEYID)"]
        .assert_eq(&normalize(&installed.source, &[replacements[0], (key_id_in(&installed.source).as_str(), "KEYID")]));
    let relative_executable = installed.executable.strip_prefix(cache.path()).unwrap().to_string_lossy().into_owned();
    assert_eq!(
        relative_executable,
        format!("{host}/acme/testprov/1.1.0/{}/terraform-provider-testprov_v1.1.0_x5", Platform::current())
    );
    let steps = progress.steps.lock().unwrap().join("\n");
    expect![[r#"
        no cached version of acme/testprov matches "~> 1.0" in CACHE
        querying registry REGISTRY for versions of acme/testprov
        downloading https://REGISTRY/files/terraform-provider-testprov_1.1.0_PLATFORM.zip
        verified terraform-provider-testprov_1.1.0_PLATFORM.zip (signed by key KEYID)
        extracting acme/testprov 1.1.0
        installed acme/testprov 1.1.0 into CACHE/REGISTRY/acme/testprov/1.1.0/PLATFORM"#]]
    .assert_eq(&normalize(
        &steps,
        &[
            replacements[0],
            replacements[1],
            (&Platform::current().to_string(), "PLATFORM"),
            (key_id_in(&installed.source).as_str(), "KEYID"),
        ],
    ));
    assert!(!progress.downloads.lock().unwrap().is_empty(), "download progress was reported");
    let requests = server.requests();
    assert!(requests.iter().all(|request| request.terraform_version.as_deref() == Some("1.10.0")));
    assert!(requests.iter().all(|request| request.authorization.is_none()), "no credentials configured");
    assert_eq!(files_in_cache(cache.path()).len(), 2, "the executable and LICENSE, no staging leftovers");

    // With the registry gone, a constraint the cache satisfies needs no network at all.
    server.shut_down().await;
    let again = install(&request(&host, ">= 1.0"), &config, &NoProgress).await.unwrap();
    assert_eq!(again.executable, installed.executable);
    expect!["acme/testprov 1.1.0 from the plugin cache at CACHE"].assert_eq(&normalize(&again.source, &replacements));

    // A constraint the cache cannot satisfy does need the registry, and says why it failed.
    let error = install(&request(&host, ">= 2.0"), &config, &NoProgress).await.unwrap_err();
    let message = normalize(&error.to_string(), &replacements);
    assert!(message.starts_with("request to https://REGISTRY/.well-known/terraform.json failed"), "{message}");
}

/// The key ID is random per run; this finds it in a description for normalisation.
fn key_id_in(text: &str) -> String {
    text.split("signed by key ").nth(1).map(|rest| rest.trim_end_matches(')').to_owned()).unwrap_or_default()
}

#[tokio::test]
async fn network_mirror_serves_when_the_registry_is_unreachable() {
    let ca = TestCa::generate();
    let mirror = TestServer::start(&ca, "127.0.0.2").await;
    let registry_host = format!("127.0.0.1:{}", closed_port());
    publish_mirror(&mirror, &registry_host, &[Package::new("3.0.0"), Package::new("3.1.0")]);
    // Mirrors are often static files on object storage, served with a generic content type.
    mirror.route(
        &format!("/mirror/{registry_host}/{NAMESPACE}/{TYPE_NAME}/index.json"),
        server::Reply::bytes(br#"{"versions": {"3.0.0": {}, "3.1.0": {}}}"#.to_vec()),
    );
    let cache = tempfile::tempdir().unwrap();
    let mut config = test_config(cache.path(), &ca.ca_pem);
    config.cli_config = network_mirror_cli_config(cache.path(), &mirror);
    let installed = install(&request(&registry_host, "< 3.1"), &config, &NoProgress).await.unwrap();
    assert_eq!(run(&installed.executable), "testprov 3.0.0\n");
    expect!["acme/testprov 3.0.0 from network mirror https://MIRROR/mirror/"]
        .assert_eq(&normalize(&installed.source, &[(&mirror.host(), "MIRROR")]));
    assert!(mirror.requests().iter().all(|request| request.path.starts_with("/mirror/")));
}

#[tokio::test]
async fn dev_overrides_run_from_their_directory_without_any_network() {
    let work = tempfile::tempdir().unwrap();
    let dev_dir = work.path().join("dev build");
    std::fs::create_dir(&dev_dir).unwrap();
    let executable = dev_dir.join("terraform-provider-testprov");
    std::fs::write(&executable, "#!/bin/sh\necho dev build\n").unwrap();
    make_executable(&executable);
    let mut config = test_config(&work.path().join("cache"), "");
    config.extra_root_certificates_pem.clear();
    config.cli_config = cli_config(
        work.path(),
        &format!(
            "provider_installation {{\n  dev_overrides {{\n    \"example.com/acme/testprov\" = \"{}\"\n  }}\n  direct {{}}\n}}\n",
            dev_dir.display()
        ),
    );
    let installed = install(&request("example.com", "= 9.9.9"), &config, &NoProgress).await.unwrap();
    assert_eq!(installed.executable, executable);
    assert_eq!(installed.version.to_string(), "0.0.0");
    assert_eq!(run(&installed.executable), "dev build\n");
    expect!["acme/testprov from the dev_overrides directory WORK/dev build"]
        .assert_eq(&normalize(&installed.source, &[(&work.path().to_string_lossy(), "WORK")]));
}

#[tokio::test]
async fn credentials_go_only_to_their_own_host() {
    let TestRegistry { ca, key, server: registry } = TestRegistry::start(&[Package::new("1.0.0")]).await;
    let downloads = TestServer::start(&ca, "127.0.0.2").await;
    // The package's files live on another host, reached once directly and once via a redirect.
    let platform = Platform::current();
    let filename = zip_file_name("1.0.0", &platform);
    let zip = provider_zip("1.0.0");
    downloads.route(&format!("/files/{filename}"), server::Reply::bytes(zip.clone()));
    registry
        .route("/redirect-to-downloads", server::Reply::Redirect(format!("{}/files/{filename}", downloads.base_url())));
    let meta_path = format!("/v1/providers/{NAMESPACE}/{TYPE_NAME}/1.0.0/download/{}/{}", platform.os, platform.arch);
    let shasums_name = format!("terraform-provider-{TYPE_NAME}_1.0.0_SHA256SUMS");
    registry.route(
        &meta_path,
        DownloadDocument::new("/files", &filename, &shasums_name, &zip, &key)
            .with("download_url", serde_json::json!("/redirect-to-downloads"))
            .with("shasums_url", serde_json::json!(format!("{}/files/{shasums_name}", downloads.base_url())))
            .reply(),
    );
    let shasums = format!("{}  {filename}\n", sha256_hex(&zip));
    downloads.route(&format!("/files/{shasums_name}"), server::Reply::bytes(shasums.clone().into_bytes()));
    registry.route(&format!("/files/{shasums_name}.sig"), server::Reply::bytes(key.sign(shasums.as_bytes())));

    let cache = tempfile::tempdir().unwrap();
    let mut config = test_config(cache.path(), &ca.ca_pem);
    config.tokens.insert(registry.host(), Token::new("registry-token"));
    install(&request(&registry.host(), ""), &config, &NoProgress).await.unwrap();

    let registry_auth: Vec<String> =
        registry.requests().iter().map(|r| format!("{} {:?}", r.path, r.authorization)).collect();
    assert!(registry_auth.len() >= 5, "{registry_auth:?}");
    assert!(
        registry.requests().iter().all(|r| r.authorization.as_deref() == Some("Bearer registry-token")),
        "{registry_auth:?}"
    );
    let download_auth: Vec<String> =
        downloads.requests().iter().map(|r| format!("{} {:?}", r.path, r.authorization)).collect();
    assert_eq!(download_auth.len(), 2, "{download_auth:?}");
    assert!(downloads.requests().iter().all(|r| r.authorization.is_none()), "{download_auth:?}");
}

#[tokio::test]
async fn filesystem_mirrors_in_both_layouts_and_the_terraform_plugin_cache() {
    let work = tempfile::tempdir().unwrap();
    let host = format!("127.0.0.1:{}", closed_port());
    let platform = Platform::current();
    let mirror = work.path().join("mirror");
    let provider_dir = mirror.join(&host).join(NAMESPACE).join(TYPE_NAME);
    std::fs::create_dir_all(&provider_dir).unwrap();
    std::fs::write(provider_dir.join(zip_file_name("2.0.0", &platform)), provider_zip("2.0.0")).unwrap();
    let unpacked = provider_dir.join("1.5.0").join(platform.to_string());
    std::fs::create_dir_all(&unpacked).unwrap();
    std::fs::write(unpacked.join("terraform-provider-testprov"), "#!/bin/sh\necho unpacked 1.5.0\n").unwrap();
    make_executable(&unpacked.join("terraform-provider-testprov"));

    let cache = work.path().join("cache");
    let mut config = test_config(&cache, "");
    config.cli_config = cli_config(
        work.path(),
        &format!("provider_installation {{\n  filesystem_mirror {{\n    path = \"{}\"\n  }}\n}}\n", mirror.display()),
    );
    let replacements = [(host.as_str(), "HOST"), (&*work.path().to_string_lossy(), "WORK")];

    // The packed 2.0.0 is newest: it is extracted into our cache.
    let packed = install(&request(&host, ""), &config, &NoProgress).await.unwrap();
    assert_eq!(run(&packed.executable), "testprov 2.0.0\n");
    assert!(packed.executable.starts_with(&cache));
    expect!["acme/testprov 2.0.0 from the filesystem mirror at WORK/mirror"]
        .assert_eq(&normalize(&packed.source, &replacements));

    // The unpacked 1.5.0 is copied into our cache, as `terraform init` copies it...
    let copied = install(&request(&host, "< 2.0"), &config, &NoProgress).await.unwrap();
    assert_eq!(run(&copied.executable), "unpacked 1.5.0\n");
    assert!(copied.executable.starts_with(&cache), "{}", copied.executable.display());
    expect!["acme/testprov 1.5.0 from the filesystem mirror at WORK/mirror"]
        .assert_eq(&normalize(&copied.source, &replacements));

    // ...so a later run works with the mirror gone.
    std::fs::rename(&mirror, work.path().join("mirror-gone")).unwrap();
    let offline = install(&request(&host, "< 2.0"), &config, &NoProgress).await.unwrap();
    assert_eq!(run(&offline.executable), "unpacked 1.5.0\n");
    expect!["acme/testprov 1.5.0 from the plugin cache at WORK/cache"]
        .assert_eq(&normalize(&offline.source, &replacements));
    std::fs::rename(work.path().join("mirror-gone"), &mirror).unwrap();

    // Terraform's plugin cache is reused read-only, before any installation method.
    let terraform_cache = work.path().join("terraform-cache");
    let cached = terraform_cache.join(&host).join(NAMESPACE).join(TYPE_NAME).join("1.7.0").join(platform.to_string());
    std::fs::create_dir_all(&cached).unwrap();
    std::fs::write(cached.join("terraform-provider-testprov_v1.7.0_x5"), "#!/bin/sh\necho tf cache 1.7.0\n").unwrap();
    make_executable(&cached.join("terraform-provider-testprov_v1.7.0_x5"));
    config.terraform_plugin_cache_dir = Some(terraform_cache);
    let reused = install(&request(&host, "~> 1.6"), &config, &NoProgress).await.unwrap();
    assert_eq!(run(&reused.executable), "tf cache 1.7.0\n");
    expect!["acme/testprov 1.7.0 from the Terraform plugin cache at WORK/terraform-cache"]
        .assert_eq(&normalize(&reused.source, &replacements));
}

#[tokio::test]
async fn lock_file_pins_the_version_and_its_hashes() {
    let old = Package::new("1.0.0");
    let zh = format!("zh:{}", sha256_hex(&old.zip));
    let h1 = provider_hash1("1.0.0");
    let TestRegistry { ca, server, .. } = TestRegistry::start(&[old, Package::new("1.1.0")]).await;
    let work = tempfile::tempdir().unwrap();
    let lock_file = work.path().join(".terraform.lock.hcl");
    std::fs::write(
        &lock_file,
        format!(
            "provider \"{}/{NAMESPACE}/{TYPE_NAME}\" {{\n  version = \"1.0.0\"\n  hashes = [\"{h1}\", \"{zh}\"]\n}}\n",
            server.host()
        ),
    )
    .unwrap();
    let cache = work.path().join("cache");
    let mut config = test_config(&cache, &ca.ca_pem);
    config.lock_file = Some(lock_file);
    let host = server.host();
    let installed = install(&request(&host, ">= 1.0"), &config, &NoProgress).await.unwrap();
    assert_eq!(installed.version.to_string(), "1.0.0", "the lock file wins over the newer 1.1.0");

    // The cached directory matches the lock file's h1: hash, so the next install needs no network.
    server.shut_down().await;
    let again = install(&request(&host, ">= 1.0"), &config, &NoProgress).await.unwrap();
    assert_eq!(again.executable, installed.executable);
    assert!(again.source.contains("from the plugin cache"), "{}", again.source);
}

#[tokio::test]
async fn concurrent_installs_of_the_same_provider_share_one_download() {
    let TestRegistry { ca, server, .. } = TestRegistry::start(&[Package::new("1.0.0")]).await;
    let cache = tempfile::tempdir().unwrap();
    let config = test_config(cache.path(), &ca.ca_pem);
    let first_request = request(&server.host(), "");
    let second_request = request(&server.host(), "");
    let (first, second) =
        tokio::join!(install(&first_request, &config, &NoProgress), install(&second_request, &config, &NoProgress));
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(first.executable, second.executable);
    assert_eq!(run(&first.executable), "testprov 1.0.0\n");
    let zip_downloads = server.requests().iter().filter(|request| request.path.ends_with(".zip")).count();
    assert_eq!(zip_downloads, 1, "the second install found the first one's result under the lock");
    assert_eq!(files_in_cache(cache.path()).len(), 2);
}

fn make_executable(path: &std::path::Path) {
    #[cfg(unix)]
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    #[cfg(not(unix))]
    assert!(path.is_file(), "{}", path.display());
}

#[tokio::test]
async fn implicit_local_mirrors_keep_the_registry_out_of_it() {
    let work = tempfile::tempdir().unwrap();
    // The registry host is a closed port: asking it anything would fail the install.
    let host = format!("127.0.0.1:{}", closed_port());
    let plugins = work.path().join("terraform.d").join("plugins");
    let provider_dir = plugins.join(&host).join(NAMESPACE).join(TYPE_NAME);
    std::fs::create_dir_all(&provider_dir).unwrap();
    std::fs::write(provider_dir.join(zip_file_name("2.0.0", &Platform::current())), provider_zip("2.0.0")).unwrap();
    let mut config = test_config(&work.path().join("cache"), "");
    config.implicit_mirror_dirs = vec![work.path().join("nonexistent"), plugins];
    let installed = install(&request(&host, ""), &config, &NoProgress).await.unwrap();
    assert_eq!(run(&installed.executable), "testprov 2.0.0\n");
    expect!["acme/testprov 2.0.0 from the filesystem mirror at WORK/terraform.d/plugins"]
        .assert_eq(&normalize(&installed.source, &[(&work.path().to_string_lossy(), "WORK")]));
}

#[tokio::test]
async fn install_waits_for_another_process_holding_the_provider_lock() {
    let TestRegistry { ca, server, .. } = TestRegistry::start(&[Package::new("1.0.0")]).await;
    let cache = tempfile::tempdir().unwrap();
    let config = test_config(cache.path(), &ca.ca_pem);
    let lock_dir = cache.path().join(".locks").join(server.host()).join(NAMESPACE);
    std::fs::create_dir_all(&lock_dir).unwrap();
    let lock_file = lock_dir.join(format!("{TYPE_NAME}.lock"));
    // Another process (util-linux flock(1), the same flock(2) lock) holds the lock for a while.
    let mut holder = std::process::Command::new("flock")
        .arg(&lock_file)
        .args(["sleep", "3"])
        .spawn()
        .unwrap_or_else(|error| panic!("this test needs flock(1) from util-linux: {error}"));
    // Give it time to take the lock before we try.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while std::process::Command::new("flock")
        .args(["--nonblock", "--shared"])
        .arg(&lock_file)
        .arg("true")
        .status()
        .unwrap()
        .success()
    {
        assert!(std::time::Instant::now() < deadline, "the other process never took the lock");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let progress = RecordingProgress::default();
    let started = std::time::Instant::now();
    let installed = install(&request(&server.host(), ""), &config, &progress).await.unwrap();
    let waited = started.elapsed();
    assert_eq!(run(&installed.executable), "testprov 1.0.0\n");
    assert!(holder.wait().unwrap().success());
    let steps = progress.steps.lock().unwrap().clone();
    assert!(steps.iter().any(|step| step.starts_with("waiting for another process installing")), "{steps:?}");
    assert!(waited >= std::time::Duration::from_millis(500), "install did not wait for the lock: {waited:?}");
}

/// The server runs installs on a multi-threaded runtime, so the future must be `Send`.
#[test]
fn install_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let config = test_config(std::path::Path::new("/nonexistent"), "");
    let request = request("example.com", "");
    let future = install(&request, &config, &NoProgress);
    assert_send(&future);
}
