//! Fixtures for the installer tests: signing keys, provider zips, a registry and a network
//! mirror published on [`server::TestServer`]s, an installer configuration pointing at them,
//! and helpers that render results and check that a cache holds nothing half-installed.

pub mod server;
pub mod zips;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use pgp::composed::{
    ArmorOptions, DetachedSignature, KeyType, SecretKeyParamsBuilder, SignedPublicKey, SignedSecretKey,
    SubkeyParamsBuilder,
};
use pgp::crypto::hash::HashAlgorithm;
use pgp::ser::Serialize;
use pgp::types::Password;
use serde_json::json;
use sha2::{Digest, Sha256};
use tfbridge::installer::{ArchiveLimits, CliConfig, InstallerConfig, Platform, Progress};

use self::server::{Reply, TestServer};

/// The namespace and type every test provider uses.
pub const NAMESPACE: &str = "acme";
pub const TYPE_NAME: &str = "testprov";

/// A throwaway OpenPGP key shaped like real registry keys: a certify-only primary key with a
/// signing subkey.
pub struct TestSigningKey {
    secret: SignedSecretKey,
    pub armored_public: String,
}

impl TestSigningKey {
    pub fn generate(user_id: &str) -> TestSigningKey {
        let mut signing_subkey = SubkeyParamsBuilder::default();
        signing_subkey.key_type(KeyType::Ed25519Legacy).can_sign(true);
        let mut params = SecretKeyParamsBuilder::default();
        params
            .key_type(KeyType::Ed25519Legacy)
            .can_certify(true)
            .can_sign(false)
            .primary_user_id(user_id.to_owned())
            .subkeys(vec![signing_subkey.build().unwrap()]);
        let secret = params.build().unwrap().generate(rand::thread_rng()).unwrap();
        let armored_public = SignedPublicKey::from(secret.clone()).to_armored_string(ArmorOptions::default()).unwrap();
        TestSigningKey { secret, armored_public }
    }

    /// A binary detached signature over `data`, made with the signing subkey.
    pub fn sign(&self, data: &[u8]) -> Vec<u8> {
        let signature = DetachedSignature::sign_binary_data(
            rand::thread_rng(),
            &self.secret.secret_subkeys[0].key,
            &Password::empty(),
            HashAlgorithm::Sha256,
            data,
        )
        .unwrap();
        signature.to_bytes().unwrap()
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The files of a provider package: a shell script that prints its version, and a LICENSE.
fn provider_files(version: &str) -> Vec<(String, Vec<u8>, u32)> {
    vec![
        (
            format!("terraform-provider-{TYPE_NAME}_v{version}_x5"),
            format!("#!/bin/sh\necho {TYPE_NAME} {version}\n").into_bytes(),
            0o755,
        ),
        ("LICENSE".to_owned(), b"test license\n".to_vec(), 0o644),
    ]
}

pub fn provider_zip(version: &str) -> Vec<u8> {
    let files = provider_files(version);
    let entries: Vec<(&str, &[u8], u32)> =
        files.iter().map(|(name, content, mode)| (name.as_str(), content.as_slice(), *mode)).collect();
    zips::build(&entries)
}

/// The `h1:` hash of [`provider_zip`], computed here independently of the installer: base64
/// SHA-256 over "<hex sha256>  <name>\n" lines sorted by name.
pub fn provider_hash1(version: &str) -> String {
    use base64::Engine;
    let mut files = provider_files(version);
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let summary: String = files.iter().map(|(name, content, _)| format!("{}  {name}\n", sha256_hex(content))).collect();
    format!("h1:{}", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(summary.as_bytes())))
}

/// One version to publish.
pub struct Package {
    pub version: &'static str,
    pub protocols: &'static [&'static str],
    pub zip: Vec<u8>,
}

impl Package {
    pub fn new(version: &'static str) -> Package {
        Package { version, protocols: &["5.0"], zip: provider_zip(version) }
    }
}

pub fn zip_file_name(version: &str, platform: &Platform) -> String {
    format!("terraform-provider-{TYPE_NAME}_{version}_{platform}.zip")
}

/// The registry's download document for one package (`…/<version>/download/<os>/<arch>`):
/// defaults from [`DownloadDocument::new`], then single fields changed with `with`/`without`.
pub struct DownloadDocument(serde_json::Map<String, serde_json::Value>);

impl DownloadDocument {
    /// The document of `zip`, named `filename`, for this platform and protocol 5: the zip at
    /// `<dir>/<filename>`, its checksums at `<dir>/<shasums_name>` and their signature at
    /// `<dir>/<shasums_name>.sig`, signed by `key`. No `packages` hashes (OpenTofu's field).
    pub fn new(dir: &str, filename: &str, shasums_name: &str, zip: &[u8], key: &TestSigningKey) -> DownloadDocument {
        let platform = Platform::current();
        let json = json!({
            "protocols": ["5.0"],
            "os": platform.os,
            "arch": platform.arch,
            "filename": filename,
            "download_url": format!("{dir}/{filename}"),
            "shasums_url": format!("{dir}/{shasums_name}"),
            "shasums_signature_url": format!("{dir}/{shasums_name}.sig"),
            "shasum": sha256_hex(zip),
            "signing_keys": {"gpg_public_keys": [{"key_id": "test", "ascii_armor": key.armored_public}]},
        });
        let serde_json::Value::Object(fields) = json else { unreachable!("a JSON object") };
        DownloadDocument(fields)
    }

    /// The document with `field` set to `value`.
    pub fn with(mut self, field: &str, value: serde_json::Value) -> DownloadDocument {
        self.0.insert(field.to_owned(), value);
        self
    }

    /// The reply that serves the document.
    pub fn reply(self) -> Reply {
        Reply::json(serde_json::Value::Object(self.0))
    }
}

/// Publishes `packages` for the current platform on `server` following the registry protocol:
/// discovery, versions list, download metadata, and the zip, SHA256SUMS and signature files
/// under `/files/`. Tests then override single routes to inject faults.
pub fn publish_registry(server: &TestServer, key: &TestSigningKey, packages: &[Package]) {
    let platform = Platform::current();
    server.route("/.well-known/terraform.json", Reply::json(json!({"providers.v1": "/v1/providers/"})));
    let versions: Vec<serde_json::Value> = packages
        .iter()
        .map(|package| {
            json!({"version": package.version, "protocols": package.protocols,
                   "platforms": [{"os": platform.os, "arch": platform.arch}]})
        })
        .collect();
    server
        .route(&format!("/v1/providers/{NAMESPACE}/{TYPE_NAME}/versions"), Reply::json(json!({"versions": versions})));
    for package in packages {
        let filename = zip_file_name(package.version, &platform);
        let shasums = format!(
            "{}  {filename}\n{}  terraform-provider-{TYPE_NAME}_{}_other_arch.zip\n",
            sha256_hex(&package.zip),
            "0".repeat(64),
            package.version
        );
        let shasums_name = format!("terraform-provider-{TYPE_NAME}_{}_SHA256SUMS", package.version);
        server.route(
            &format!(
                "/v1/providers/{NAMESPACE}/{TYPE_NAME}/{}/download/{}/{}",
                package.version, platform.os, platform.arch
            ),
            DownloadDocument::new("/files", &filename, &shasums_name, &package.zip, key)
                .with("protocols", json!(package.protocols))
                // OpenTofu's registry also lists the package's hashes.
                .with(
                    "packages",
                    json!({platform.to_string(): {"hashes": [format!("zh:{}", sha256_hex(&package.zip))]}}),
                )
                .reply(),
        );
        server.route(&format!("/files/{filename}"), Reply::bytes(package.zip.clone()));
        server.route(&format!("/files/{shasums_name}.sig"), Reply::bytes(key.sign(shasums.as_bytes())));
        server.route(&format!("/files/{shasums_name}"), Reply::bytes(shasums.into_bytes()));
    }
}

/// A registry on 127.0.0.1 with a fresh test CA and signing key, publishing `packages`
/// ([`publish_registry`]).
pub struct TestRegistry {
    pub ca: server::TestCa,
    pub key: TestSigningKey,
    pub server: TestServer,
}

impl TestRegistry {
    pub async fn start(packages: &[Package]) -> TestRegistry {
        let ca = server::TestCa::generate();
        let key = TestSigningKey::generate("Test Registry <registry@example.com>");
        let server = TestServer::start(&ca, "127.0.0.1").await;
        publish_registry(&server, &key, packages);
        TestRegistry { ca, key, server }
    }
}

/// Publishes `packages` on `server` following the network mirror protocol under `/mirror/`,
/// for provider address host `registry_host`, listing each zip's `zh:` hash.
pub fn publish_mirror(server: &TestServer, registry_host: &str, packages: &[Package]) {
    let platform = Platform::current();
    let prefix = format!("/mirror/{registry_host}/{NAMESPACE}/{TYPE_NAME}");
    let versions: serde_json::Map<String, serde_json::Value> =
        packages.iter().map(|package| (package.version.to_owned(), json!({}))).collect();
    server.route(&format!("{prefix}/index.json"), Reply::json(json!({"versions": versions})));
    for package in packages {
        let filename = zip_file_name(package.version, &platform);
        server.route(
            &format!("{prefix}/{}.json", package.version),
            Reply::json(json!({"archives": {platform.to_string(): {
                "url": filename, "hashes": [format!("zh:{}", sha256_hex(&package.zip))]}}})),
        );
        server.route(&format!("{prefix}/{filename}"), Reply::bytes(package.zip.clone()));
    }
}

/// An installer configuration that touches nothing outside `cache_dir` and trusts the test CA.
pub fn test_config(cache_dir: &Path, ca_pem: &str) -> InstallerConfig {
    InstallerConfig {
        cli_config: CliConfig::default(),
        cache_dir: cache_dir.to_owned(),
        terraform_plugin_cache_dir: None,
        implicit_mirror_dirs: Vec::new(),
        lock_file: None,
        platform: Platform::current(),
        extra_root_certificates_pem: vec![ca_pem.as_bytes().to_vec()],
        tokens: BTreeMap::new(),
        terraform_version: "1.10.0".to_owned(),
        request_timeout: Duration::from_secs(5),
        retries: 1,
        max_download_bytes: 1 << 30,
        archive_limits: ArchiveLimits::DEFAULT,
        allow_unsigned_from_default_registry: false,
        warnings: Vec::new(),
    }
}

/// Records progress steps and the number of download reports.
#[derive(Default)]
pub struct RecordingProgress {
    pub steps: Mutex<Vec<String>>,
    pub downloads: Mutex<Vec<(u64, Option<u64>)>>,
}

impl Progress for RecordingProgress {
    fn step(&self, message: &str) {
        self.steps.lock().unwrap().push(message.to_owned());
    }
    fn download(&self, _url: &str, received: u64, total: Option<u64>) {
        self.downloads.lock().unwrap().push((received, total));
    }
}

/// Every regular file under `cache_dir` except the lock files, as relative paths. A failed
/// install must leave this empty.
pub fn files_in_cache(cache_dir: &Path) -> Vec<String> {
    super::paths_under(cache_dir)
        .iter()
        .map(|path| path.strip_prefix(cache_dir).unwrap().to_string_lossy().into_owned())
        .filter(|relative| !relative.starts_with(".locks"))
        .collect()
}

/// Replaces run-specific strings (server addresses, temp dirs) with stable placeholders.
pub fn normalize(text: &str, replacements: &[(&str, &str)]) -> String {
    let mut normalized = text.to_owned();
    for (from, to) in replacements {
        normalized = normalized.replace(from, to);
    }
    // Paths below the replaced ones read the same on every system.
    if cfg!(windows) { normalized.replace('\\', "/") } else { normalized }
}

/// Runs the installed executable and returns its stdout.
#[cfg(unix)]
pub fn run(executable: &Path) -> String {
    let output = std::process::Command::new(executable).output().unwrap();
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Windows runs no `#!` script: what the installed stand-in would print is its `echo` line,
/// which tells the installed package apart as well.
#[cfg(not(unix))]
pub fn run(executable: &Path) -> String {
    let script = std::fs::read_to_string(executable).unwrap();
    script.lines().find_map(|line| line.strip_prefix("echo ")).map(|text| format!("{text}\n")).unwrap_or_default()
}

/// Writes `text` into a new CLI configuration under `dir` and parses it.
pub fn cli_config(dir: &Path, text: &str) -> CliConfig {
    let path: PathBuf = dir.join("test.tfrc");
    let mut file = std::fs::File::create(&path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
    CliConfig::load(&path).unwrap()
}

/// A CLI configuration (written into `dir`) whose only installation method is the network
/// mirror under `mirror`'s `/mirror/`.
pub fn network_mirror_cli_config(dir: &Path, mirror: &TestServer) -> CliConfig {
    cli_config(
        dir,
        &format!(
            "provider_installation {{\n  network_mirror {{\n    url = \"{}/mirror/\"\n  }}\n}}\n",
            mirror.base_url()
        ),
    )
}

/// A loopback port where nothing listens, for "unreachable" hosts.
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}
