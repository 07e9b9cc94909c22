//! Hostile or broken sources: each must fail with a clear error and leave nothing behind in the
//! cache (only lock files may remain), and a crashed earlier install must not get in the way.

use expect_test::{Expect, expect};
use tfbridge::installer::{InstallRequest, InstallerConfig, NoProgress, Platform, install};

use crate::common::registry::server::{Reply, TestCa, TestServer};
use crate::common::registry::*;

/// A registry publishing `acme/testprov` 1.0.0, and a config with an empty cache.
struct Setup {
    key: TestSigningKey,
    server: TestServer,
    cache: tempfile::TempDir,
    config: InstallerConfig,
}

impl Setup {
    async fn new() -> Setup {
        let TestRegistry { ca, key, server } = TestRegistry::start(&[Package::new("1.0.0")]).await;
        let cache = tempfile::tempdir().unwrap();
        let config = test_config(cache.path(), &ca.ca_pem);
        Setup { key, server, cache, config }
    }

    fn files_path(&self, suffix: &str) -> String {
        format!("/files/terraform-provider-{TYPE_NAME}_1.0.0_{suffix}")
    }

    fn zip_path(&self) -> String {
        self.files_path(&format!("{}.zip", Platform::current()))
    }

    fn meta_path(&self) -> String {
        let platform = Platform::current();
        format!("/v1/providers/{NAMESPACE}/{TYPE_NAME}/1.0.0/download/{}/{}", platform.os, platform.arch)
    }

    /// The download document of the 1.0.0 package, for a test to change.
    fn download_document(&self) -> DownloadDocument {
        let filename = zip_file_name("1.0.0", &Platform::current());
        let shasums_name = format!("terraform-provider-{TYPE_NAME}_1.0.0_SHA256SUMS");
        DownloadDocument::new("/files", &filename, &shasums_name, &provider_zip("1.0.0"), &self.key)
    }

    /// Serves `zip` as the 1.0.0 package with consistent, correctly signed checksums, so only
    /// the archive's contents are wrong.
    fn publish_zip(&self, zip: Vec<u8>) {
        let mut package = Package::new("1.0.0");
        package.zip = zip;
        publish_registry(&self.server, &self.key, &[package]);
    }

    /// Installs, expects an error, checks its normalised message and that the cache is clean.
    async fn check_fails(&self, constraint: &str, expect: Expect) {
        let request =
            InstallRequest::parse(&format!("{}/{NAMESPACE}/{TYPE_NAME}", self.server.host()), constraint).unwrap();
        let error = install(&request, &self.config, &NoProgress).await.unwrap_err();
        let platform = Platform::current().to_string();
        let cache = self.cache.path().to_string_lossy().into_owned();
        let host = self.server.host();
        let replacements = [(host.as_str(), "REGISTRY"), (platform.as_str(), "PLATFORM"), (cache.as_str(), "CACHE")];
        let mut message = normalize(&error.to_string(), &replacements);
        // The h1: of the well-formed package is fixed; zip hashes and key IDs differ per run.
        message = message.replace(&provider_hash1("1.0.0"), "h1:<h1>");
        message = mask_hex_runs(&message);
        expect.assert_eq(&message);
        assert_eq!(files_in_cache(self.cache.path()), Vec::<String>::new(), "nothing half-installed is left behind");
    }
}

/// Replaces runs of 16 or more hex digits (hashes, key IDs) with `<hex>`.
fn mask_hex_runs(text: &str) -> String {
    let mut masked = String::new();
    let mut run = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_hexdigit() {
            run.push(c);
            continue;
        }
        if run.len() >= 16 {
            masked.push_str("<hex>");
        } else {
            masked.push_str(&run);
        }
        run.clear();
        masked.push(c);
    }
    masked.pop();
    masked
}

#[tokio::test]
async fn tampered_zip() {
    let setup = Setup::new().await;
    setup.server.route(&setup.zip_path(), Reply::bytes(provider_zip("6.6.6")));
    setup
        .check_fails(
            "",
            expect!["checksum mismatch for terraform-provider-testprov_1.0.0_PLATFORM.zip from https://REGISTRY/files/terraform-provider-testprov_1.0.0_PLATFORM.zip: expected <hex>, got <hex>"],
        )
        .await;
}

#[tokio::test]
async fn checksum_document_lists_another_hash() {
    let setup = Setup::new().await;
    let filename = zip_file_name("1.0.0", &Platform::current());
    let shasums = format!("{}  {filename}\n", "ab".repeat(32));
    setup.server.route(&setup.files_path("SHA256SUMS.sig"), Reply::bytes(setup.key.sign(shasums.as_bytes())));
    setup.server.route(&setup.files_path("SHA256SUMS"), Reply::bytes(shasums.into_bytes()));
    setup
        .check_fails(
            "",
            expect!["https://REGISTRY/files/terraform-provider-testprov_1.0.0_SHA256SUMS does not list terraform-provider-testprov_1.0.0_PLATFORM.zip with checksum <hex>"],
        )
        .await;
}

#[tokio::test]
async fn bad_signature() {
    let setup = Setup::new().await;
    setup.server.route(&setup.files_path("SHA256SUMS.sig"), Reply::bytes(setup.key.sign(b"some other document")));
    setup
        .check_fails(
            "",
            expect!["signature https://REGISTRY/files/terraform-provider-testprov_1.0.0_SHA256SUMS.sig is not valid: it was made by key <hex> but does not match the SHA256SUMS document, so the document or the signature was altered"],
        )
        .await;
}

#[tokio::test]
async fn signature_by_an_unknown_key() {
    let setup = Setup::new().await;
    let stranger = TestSigningKey::generate("Somebody Else <else@example.com>");
    let shasums = format!("{}  {}\n", sha256_hex(&provider_zip("1.0.0")), zip_file_name("1.0.0", &Platform::current()));
    setup.server.route(&setup.files_path("SHA256SUMS.sig"), Reply::bytes(stranger.sign(shasums.as_bytes())));
    setup
        .check_fails(
            "",
            expect![[r#"signature https://REGISTRY/files/terraform-provider-testprov_1.0.0_SHA256SUMS.sig was made by key ["<hex>", "<hex>"], which is not among the signing keys the registry lists for this provider (["<hex>"])"#]],
        )
        .await;
}

#[tokio::test]
async fn missing_platform() {
    let setup = Setup::new().await;
    setup.server.route(&setup.meta_path(), Reply::status(404));
    setup.check_fails("", expect!["REGISTRY/acme/testprov 1.0.0 is not available for PLATFORM"]).await;
}

#[tokio::test]
async fn unknown_provider_unauthorized_and_server_errors() {
    let setup = Setup::new().await;
    let versions_path = format!("/v1/providers/{NAMESPACE}/{TYPE_NAME}/versions");
    setup.server.route(&versions_path, Reply::status(404));
    setup
        .check_fails(
            "",
            expect!["provider REGISTRY/acme/testprov was not found in the registry at https://REGISTRY/v1/providers/acme/testprov/versions"],
        )
        .await;
    setup.server.route(&versions_path, Reply::status(401));
    setup
        .check_fails(
            "",
            expect!["https://REGISTRY/v1/providers/acme/testprov/versions answered 401 (unauthorized); no credentials are configured for this host (set TF_TOKEN_<host> or a credentials block in the CLI configuration)"],
        )
        .await;
    setup.server.route(&versions_path, Reply::status(500));
    let before = setup.server.requests().len();
    setup
        .check_fails("", expect!["https://REGISTRY/v1/providers/acme/testprov/versions answered HTTP 500: status 500"])
        .await;
    let versions_requests =
        setup.server.requests()[before..].iter().filter(|request| request.path == versions_path).count();
    assert_eq!(versions_requests, 2, "one retry, then the error");
}

#[tokio::test]
async fn redirect_loop() {
    let setup = Setup::new().await;
    setup.server.route(&setup.zip_path(), Reply::Redirect("/loop/a".to_owned()));
    setup.server.route("/loop/a", Reply::Redirect("/loop/b".to_owned()));
    setup.server.route("/loop/b", Reply::Redirect("/loop/a".to_owned()));
    setup.check_fails("", expect!["redirect loop at https://REGISTRY/loop/a"]).await;
}

#[tokio::test]
async fn zip_entry_escaping_the_package_directory() {
    let setup = Setup::new().await;
    let script = b"#!/bin/sh\necho evil\n";
    setup.publish_zip(zips::build_raw(&[
        zips::RawEntry {
            name: "terraform-provider-testprov",
            content: script,
            claimed_size: None,
            unix_mode: 0o100755,
        },
        zips::RawEntry { name: "../../escaped", content: script, claimed_size: None, unix_mode: 0o100644 },
    ]));
    setup
        .check_fails(
            "",
            expect![[r#"unsafe or malformed provider archive CACHE/.staging/REGISTRY/acme/testprov/1.0.0_PLATFORM/package.zip: entry "../../escaped" would be written outside the target directory"#]],
        )
        .await;
    assert!(!setup.cache.path().join("escaped").exists() && !setup.cache.path().join("../escaped").exists());
}

#[tokio::test]
async fn zip_entry_claiming_ten_gibibytes() {
    let setup = Setup::new().await;
    // The headers claim 10 GiB through a zip64 extra field; only a few bytes exist anywhere.
    setup.publish_zip(zips::build_raw(&[zips::RawEntry {
        name: "terraform-provider-testprov",
        content: b"#!/bin/sh\n",
        claimed_size: Some(10 << 30),
        unix_mode: 0o100755,
    }]));
    setup
        .check_fails(
            "",
            expect![[r#"unsafe or malformed provider archive CACHE/.staging/REGISTRY/acme/testprov/1.0.0_PLATFORM/package.zip: entry "terraform-provider-testprov" claims 10737418240 bytes, more than the limit of 4294967296"#]],
        )
        .await;
}

#[tokio::test]
async fn zip_entry_larger_than_its_header_says() {
    let mut setup = Setup::new().await;
    setup.config.archive_limits.max_entry_bytes = 1000;
    // A deflated entry whose header sizes are honest but whose content exceeds the limit, and a
    // stored one whose header understates its size: both are caught while decompressing.
    let big = vec![b'x'; 5000];
    setup.publish_zip(zips::build_raw(&[zips::RawEntry {
        name: "terraform-provider-testprov",
        content: &big,
        claimed_size: Some(10),
        unix_mode: 0o100755,
    }]));
    let request = InstallRequest::parse(&format!("{}/{NAMESPACE}/{TYPE_NAME}", setup.server.host()), "").unwrap();
    let error = install(&request, &setup.config, &NoProgress).await.unwrap_err();
    assert!(error.to_string().contains("unsafe or malformed provider archive"), "{error}");
    assert_eq!(files_in_cache(setup.cache.path()), Vec::<String>::new());
}

#[tokio::test]
async fn package_without_an_executable() {
    let setup = Setup::new().await;
    setup.publish_zip(zips::build(&[("README.md", b"nothing to run", 0o644)]));
    setup.check_fails("", expect!["the package acme/testprov 1.0.0 from registry REGISTRY holds no executable named terraform-provider-testprov[_*|.*]"]).await;
}

#[tokio::test]
async fn incompatible_protocol_suggests_a_compatible_version() {
    let setup = Setup::new().await;
    let mut old_protocol = Package::new("2.0.0");
    old_protocol.protocols = &["4.0"];
    publish_registry(&setup.server, &setup.key, &[Package::new("1.0.0"), old_protocol]);
    setup
        .check_fails(
            "",
            expect![[r#"REGISTRY/acme/testprov 2.0.0 supports plugin protocols ["4.0"], but only protocol versions 5 and 6 are supported; the newest compatible version matching the constraint is 1.0.0"#]],
        )
        .await;
}

#[tokio::test]
async fn no_matching_version() {
    let setup = Setup::new().await;
    setup
        .check_fails(
            ">= 5.0",
            expect![[
                r#"no available release of REGISTRY/acme/testprov matches the constraint ">= 5.0.0" (available: 1.0.0)"#
            ]],
        )
        .await;
}

#[tokio::test]
async fn lock_file_hash_mismatch() {
    let mut setup = Setup::new().await;
    let lock_file = setup.cache.path().join("lock.hcl");
    std::fs::write(
        &lock_file,
        format!(
            "provider \"{}/{NAMESPACE}/{TYPE_NAME}\" {{\n  version = \"1.0.0\"\n  hashes = [\"h1:bm90IHRoZSByaWdodCBoYXNo\"]\n}}\n",
            setup.server.host()
        ),
    )
    .unwrap();
    setup.config.lock_file = Some(lock_file.clone());
    let request = InstallRequest::parse(&format!("{}/{NAMESPACE}/{TYPE_NAME}", setup.server.host()), "").unwrap();
    let error = install(&request, &setup.config, &NoProgress).await.unwrap_err();
    let message = mask_hex_runs(&normalize(
        &error.to_string(),
        &[(&setup.server.host(), "REGISTRY"), (&setup.cache.path().to_string_lossy(), "CACHE")],
    ));
    expect![[r#"REGISTRY/acme/testprov 1.0.0 from registry REGISTRY does not match any checksum in the dependency lock file CACHE/lock.hcl (package has ["h1:HASH1", "zh:<hex>"], lock file allows ["h1:bm90IHRoZSByaWdodCBoYXNo"])"#]]
    .assert_eq(&message.replace(&provider_hash1("1.0.0"), "h1:HASH1"));
    let leftovers: Vec<String> =
        files_in_cache(setup.cache.path()).into_iter().filter(|file| file != "lock.hcl").collect();
    assert_eq!(leftovers, Vec::<String>::new());
}

#[tokio::test]
async fn network_mirror_with_a_wrong_hash() {
    let ca = TestCa::generate();
    let mirror = TestServer::start(&ca, "127.0.0.2").await;
    let registry_host = format!("127.0.0.1:{}", closed_port());
    publish_mirror(&mirror, &registry_host, &[Package::new("3.0.0")]);
    // Serve different bytes than the version document's hash describes.
    let filename = zip_file_name("3.0.0", &Platform::current());
    mirror.route(
        &format!("/mirror/{registry_host}/{NAMESPACE}/{TYPE_NAME}/{filename}"),
        Reply::bytes(provider_zip("3.0.1")),
    );
    let cache = tempfile::tempdir().unwrap();
    let mut config = test_config(cache.path(), &ca.ca_pem);
    config.cli_config = network_mirror_cli_config(cache.path(), &mirror);
    let request = InstallRequest::parse(&format!("{registry_host}/{NAMESPACE}/{TYPE_NAME}"), "").unwrap();
    let error = install(&request, &config, &NoProgress).await.unwrap_err();
    let message = mask_hex_runs(&normalize(&error.to_string(), &[(&mirror.host(), "MIRROR")]));
    expect![[r#"acme/testprov 3.0.0 from network mirror https://MIRROR/mirror/ matches none of the hashes its source lists (package has ["h1:HASH1", "zh:<hex>"], source lists ["zh:<hex>"])"#]]
    .assert_eq(&message.replace(&provider_hash1("3.0.1"), "h1:HASH1"));
    let leftovers: Vec<String> = files_in_cache(cache.path()).into_iter().filter(|file| file != "test.tfrc").collect();
    assert_eq!(leftovers, Vec::<String>::new());
}

#[tokio::test]
async fn crashed_earlier_install_is_cleaned_up() {
    let setup = Setup::new().await;
    let host = setup.server.host();
    let platform = Platform::current();
    // A crash during extraction leaves a staging directory with a partial file behind...
    let staging = setup
        .cache
        .path()
        .join(".staging")
        .join(&host)
        .join(NAMESPACE)
        .join(TYPE_NAME)
        .join(format!("1.0.0_{platform}"));
    std::fs::create_dir_all(staging.join("package")).unwrap();
    std::fs::write(staging.join("package.zip"), b"PK\x03\x04 truncated").unwrap();
    std::fs::write(staging.join("package/terraform-provider-testprov_v1.0.0_x5"), b"#!/bin/sh\nech").unwrap();
    // ...and a tool writing straight into the cache (as the Go implementation does) can leave
    // a package directory without an executable.
    let final_dir =
        setup.cache.path().join(&host).join(NAMESPACE).join(TYPE_NAME).join("1.0.0").join(platform.to_string());
    std::fs::create_dir_all(&final_dir).unwrap();
    std::fs::write(final_dir.join("LICENSE"), b"partial").unwrap();

    let request = InstallRequest::parse(&format!("{host}/{NAMESPACE}/{TYPE_NAME}"), "1.0.0").unwrap();
    let installed = install(&request, &setup.config, &NoProgress).await.unwrap();
    assert_eq!(run(&installed.executable), "testprov 1.0.0\n");
    let files = files_in_cache(setup.cache.path());
    let expected: Vec<String> = ["LICENSE", "terraform-provider-testprov_v1.0.0_x5"]
        .iter()
        .map(|name| format!("{host}/{NAMESPACE}/{TYPE_NAME}/1.0.0/{platform}/{name}"))
        .collect();
    assert_eq!(files, expected, "the staging leftovers are gone and the broken directory was replaced");
}

#[tokio::test]
async fn registry_lists_other_package_hashes() {
    let setup = Setup::new().await;
    let platform = Platform::current();
    setup.server.route(
        &setup.meta_path(),
        setup
            .download_document()
            .with("packages", serde_json::json!({platform.to_string(): {"hashes": ["h1:c29tZXRoaW5nIGVsc2U="]}}))
            .reply(),
    );
    setup
        .check_fails(
            "",
            expect![[r#"acme/testprov 1.0.0 from registry REGISTRY matches none of the hashes its source lists (package has ["h1:<h1>", "zh:<hex>"], source lists ["h1:c29tZXRoaW5nIGVsc2U="])"#]],
        )
        .await;
}

#[tokio::test]
async fn untrusted_server_certificate_and_broken_extra_roots() {
    let mut setup = Setup::new().await;
    // Without the test CA the registry's certificate is not trusted.
    setup.config.extra_root_certificates_pem.clear();
    let request = InstallRequest::parse(&format!("{}/{NAMESPACE}/{TYPE_NAME}", setup.server.host()), "").unwrap();
    let error = install(&request, &setup.config, &NoProgress).await.unwrap_err();
    let message = normalize(&error.to_string(), &[(&setup.server.host(), "REGISTRY")]);
    assert!(message.starts_with("request to https://REGISTRY/.well-known/terraform.json failed"), "{message}");
    assert!(message.to_lowercase().contains("certificate"), "{message}");

    setup.config.extra_root_certificates_pem =
        vec![b"-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n".to_vec()];
    let error = install(&request, &setup.config, &NoProgress).await.unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("cannot use the extra root certificates (from the configuration or SSL_CERT_FILE)"),
        "{error}"
    );
    assert_eq!(files_in_cache(setup.cache.path()), Vec::<String>::new());
}

#[tokio::test]
async fn silent_server_times_out() {
    // Accepts connections and never says a word, not even a TLS handshake.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let host = listener.local_addr().unwrap().to_string();
    let holder = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let cache = tempfile::tempdir().unwrap();
    let mut config = test_config(cache.path(), "");
    config.request_timeout = std::time::Duration::from_millis(500);
    config.retries = 1;
    let request = InstallRequest::parse(&format!("{host}/{NAMESPACE}/{TYPE_NAME}"), "").unwrap();
    let started = std::time::Instant::now();
    let error = install(&request, &config, &NoProgress).await.unwrap_err();
    let elapsed = started.elapsed();
    let message = normalize(&error.to_string(), &[(&host, "SILENT")]);
    assert!(message.starts_with("request to https://SILENT/.well-known/terraform.json failed"), "{message}");
    assert!(message.contains("timed out") || message.contains("timeout"), "{message}");
    // Two attempts of 0.5 s plus one 0.25 s pause between them, with slack for a busy machine.
    assert!(elapsed < std::time::Duration::from_secs(10), "took {elapsed:?}");
    holder.abort();
}

#[tokio::test]
async fn discovery_answered_with_an_html_page() {
    let setup = Setup::new().await;
    setup.server.route(
        "/.well-known/terraform.json",
        Reply::Body { status: 200, content_type: "text/html", body: b"<html>Please log in</html>".to_vec() },
    );
    setup
        .check_fails(
            "",
            expect![[r#"invalid response from https://REGISTRY/.well-known/terraform.json: expected a JSON service discovery document but got content type "text/html""#]],
        )
        .await;
}

#[tokio::test]
async fn registry_without_signing_keys() {
    let setup = Setup::new().await;
    setup.server.route(
        &setup.meta_path(),
        setup.download_document().with("signing_keys", serde_json::json!({"gpg_public_keys": []})).reply(),
    );
    // Only OpenTofu's own registry may skip signatures; any other host must provide keys.
    setup
        .check_fails(
            "",
            expect!["the registry lists no signing keys for REGISTRY/acme/testprov 1.0.0, so its package cannot be authenticated"],
        )
        .await;
}

#[tokio::test]
async fn lock_file_version_outside_the_constraint() {
    let mut setup = Setup::new().await;
    let lock_file = setup.cache.path().join("lock.hcl");
    std::fs::write(
        &lock_file,
        format!("provider \"{}/{NAMESPACE}/{TYPE_NAME}\" {{\n  version = \"1.0.0\"\n}}\n", setup.server.host()),
    )
    .unwrap();
    setup.config.lock_file = Some(lock_file);
    let request = InstallRequest::parse(&format!("{}/{NAMESPACE}/{TYPE_NAME}", setup.server.host()), ">= 2.0").unwrap();
    let error = install(&request, &setup.config, &NoProgress).await.unwrap_err();
    expect![[r#"locked provider REGISTRY/acme/testprov 1.0.0 (from CACHE/lock.hcl) does not match the version constraint ">= 2.0.0""#]]
        .assert_eq(&normalize(
            &error.to_string(),
            &[(&setup.server.host(), "REGISTRY"), (&setup.cache.path().to_string_lossy(), "CACHE")],
        ));
    assert!(setup.server.requests().is_empty(), "decided before any network access");
}
