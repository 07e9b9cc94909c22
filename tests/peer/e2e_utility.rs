//! Utility providers no other lifecycle test runs (issue 41 item 4): HashiCorp's tls and http
//! (plugin framework, protocol 5; `scripts/test-tools.sh tls http`) in one Pulumi YAML program
//! (`examples/pulumi-yaml/http-tls`), against an HTTPS server on loopback with a throw-away CA
//! (`tests/common/registry/server.rs`), through the real Pulumi CLI, with ours and with the Go
//! implementation. One workspace and one stack per implementation; each step runs once:
//!
//! - `package add` of both providers, up, the outputs a user reads (the key's fingerprint the
//!   same from the resource and the data source, the certificate read back, the server's
//!   certificate fetched over TLS, a JSON document read through the CA the program trusts, a
//!   404 as a status and not an error), the private key a secret in the display, the outputs
//!   and the state;
//! - a no-change preview; an update in place (`early_renewal_hours`) with a new document read;
//!   refresh, and no changes after it;
//! - bad input, each a failed `up` naming the resource or function and the cause, after which
//!   the input fixed converges with no changes and the same objects: a key algorithm the
//!   provider's validator refuses, an unreachable port for the http data source, and a
//!   certificate whose replacement fails in the provider's Create (a key that is not PEM);
//! - destroy, and `pulumi stack export` holding nothing after it.
//!
//! A binary (non-UTF-8) body read by the http data source is `binary_body`: Terraform 1.14
//! shows the provider's warning and the body with U+FFFD for the bytes that are not UTF-8.
//!
//! Needs `scripts/test-tools.sh tls http pulumi anchor`.

use crate::common;

use common::Implementation;
use common::pulumi::{CommandOutput, Workspace};
use common::registry::server::{Reply, TestCa, TestServer};
use common::versions;
use serde_json::json;

/// The HTTPS server on a runtime of its own (the tests are synchronous: they drive the CLI).
/// Dropping it stops the server.
struct Server {
    _runtime: tokio::runtime::Runtime,
    server: TestServer,
    ca: TestCa,
}

impl Server {
    fn start() -> anyhow::Result<Server> {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build()?;
        let ca = TestCa::generate();
        let server = runtime.block_on(TestServer::start(&ca, "127.0.0.1"));
        server.route("/one.json", Reply::json(json!({"document": 1})));
        server.route("/two.json", Reply::json(json!({"document": 2})));
        Ok(Server { _runtime: runtime, server, ca })
    }
}

/// A workspace with the `http-tls` example and both packages, or with `program` (a program
/// of the http package alone) and http, and a stack configured for `server`.
fn start(
    label: &str,
    program: Option<&str>,
    implementation: Implementation,
    server: &Server,
) -> anyhow::Result<Workspace> {
    let mut ws = Workspace::new(label, implementation)?;
    match program {
        Some(text) => std::fs::write(ws.project_dir().join("Pulumi.yaml"), text)?,
        None => ws.copy_example("http-tls")?,
    }
    let providers: &[(&str, &str)] = if program.is_some() {
        &[("http", versions::HTTP)]
    } else {
        &[("tls", versions::TLS), ("http", versions::HTTP)]
    };
    for (name, version) in providers {
        let binary = common::real_provider(name, version)?;
        ws.package_add(&[binary.to_str().expect("a UTF-8 path")])?;
    }
    ws.stack_init()?;
    let base = server.server.base_url();
    ws.config_set("documentBase", &base)?;
    // After `--`: a PEM starts with dashes.
    ws.pulumi_ok(&["config", "set", "caCert", "--non-interactive", "--", &server.ca.ca_pem])?;
    if program.is_none() {
        ws.config_set("serverUrl", &base)?;
    }
    Ok(ws)
}

/// A loopback port nothing listens on: one the system just gave out, closed again.
fn closed_port() -> anyhow::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

/// The ids of the key and the certificate, from one `pulumi stack export`.
fn ids(ws: &mut Workspace) -> anyhow::Result<(serde_json::Value, serde_json::Value)> {
    let resources = ws.managed_resources()?;
    let id = |name: &str| {
        let suffix = format!("::{name}");
        let found = resources.iter().find(|r| r["urn"].as_str().is_some_and(|urn| urn.ends_with(&suffix)));
        found.map(|r| r["id"].clone()).ok_or_else(|| anyhow::anyhow!("no {name} in the state: {resources:#?}"))
    };
    Ok((id("key")?, id("cert")?))
}

/// A failed `up` whose text holds every one of `wanted`.
fn up_fails_with(ws: &mut Workspace, step: &str, wanted: &[&str]) -> anyhow::Result<CommandOutput> {
    let failed = ws.up_fails()?;
    let text = failed.all_text();
    for want in wanted {
        assert!(text.contains(want), "{step}: the error does not say {want:?}: {failed}");
    }
    Ok(failed)
}

fn lifecycle(implementation: Implementation) -> anyhow::Result<()> {
    let server = Server::start()?;
    let mut ws = start("http-tls", None, implementation, &server)?;

    // Up: every output as a user reads it.
    let up = ws.up()?;
    let outputs = ws.stack_outputs(true)?;
    let private_key = outputs["privateKey"].as_str().unwrap_or_default().to_owned();
    assert!(private_key.starts_with("-----BEGIN EC PRIVATE KEY-----"), "{outputs:#}");
    assert_eq!(outputs["keyAlgorithm"], json!("ECDSA"), "{outputs:#}");
    let fingerprint = outputs["keyFingerprint"].as_str().unwrap_or_default();
    assert!(fingerprint.starts_with("SHA256:"), "{outputs:#}");
    assert_eq!(outputs["dataFingerprint"], outputs["keyFingerprint"], "the data source reads the same key");
    assert_eq!(outputs["certDnsNames"], json!(["e2e.example.test"]), "{outputs:#}");
    assert_eq!(outputs["readyForRenewal"], json!(false), "{outputs:#}");
    assert_eq!(outputs["ownCertIsCa"], json!(false), "{outputs:#}");
    assert_eq!(
        outputs["ownCertPem"].as_str().map(str::trim),
        outputs["certPem"].as_str().map(str::trim),
        "tls_certificate reads back the certificate the resource made: {outputs:#}"
    );
    let issuer = outputs["serverIssuer"].as_str().unwrap_or_default();
    assert!(issuer.contains("tfbridge installer test CA"), "the server's certificate, over TLS: {outputs:#}");
    assert_eq!(outputs["documentBody"], json!(r#"{"document":1}"#), "{outputs:#}");
    assert_eq!(outputs["documentStatus"], json!(200), "{outputs:#}");
    assert_eq!(outputs["documentType"], json!("application/json"), "{outputs:#}");
    assert_eq!(outputs["missingStatus"], json!(404), "a 404 is a status, not an error: {outputs:#}");

    // The private key is a secret everywhere a user could see it.
    assert!(!up.all_text().contains("PRIVATE KEY"), "the key is never shown: {up}");
    assert_eq!(ws.stack_outputs(false)?["privateKey"], json!("[secret]"));
    let key = ws.resource_state("key")?;
    assert_eq!(
        key["outputs"]["privateKeyPem"]["4dabf18193072939515e22adb298388d"],
        json!("1b47061264138c4ac30d75fd1eb44270"),
        "the key is stored as a secret: {key:#}"
    );
    assert!(!key.to_string().contains("PRIVATE KEY"), "the key is stored encrypted: {key:#}");

    ws.preview_expect_no_changes()?;
    let (key_id, cert_id) = ids(&mut ws)?;

    // An update in place (the certificate keeps its id), and a new document read.
    ws.config_set("earlyRenewalHours", "1")?;
    ws.config_set("jsonPath", "/two.json")?;
    let update = ws.up()?;
    assert!(update.stdout.contains("updated") && !update.stdout.contains("replaced"), "{update}");
    let cert = ws.resource_state("cert")?;
    assert_eq!((&cert["id"], &cert["outputs"]["earlyRenewalHours"]), (&cert_id, &json!(1)), "{cert:#}");
    let outputs = ws.stack_outputs(true)?;
    assert_eq!(outputs["documentBody"], json!(r#"{"document":2}"#), "{outputs:#}");
    ws.preview_expect_no_changes()?;

    // Refresh finds nothing changed.
    let refresh = ws.refresh()?;
    assert!(!refresh.stdout.contains("updated"), "{refresh}");

    // Bad input 1: an algorithm the provider's validator refuses; nothing is replaced.
    ws.config_set("keyAlgorithm", "DSA")?;
    up_fails_with(&mut ws, "key algorithm", &["tls:index:PrivateKey (key)", "algorithm", "DSA"])?;
    ws.config_set("keyAlgorithm", "ECDSA")?;

    // Bad input 2: the document's server is not there.
    ws.config_set("documentBase", &format!("https://127.0.0.1:{}", closed_port()?))?;
    up_fails_with(
        &mut ws,
        "unreachable port",
        &["http:index/getHttp:getHttp", "Error making request", "connection refused"],
    )?;
    ws.config_set("documentBase", &server.server.base_url())?;

    // Bad input 3: the certificate's replacement fails in the provider's Create (the schema
    // takes any string as the key); the certificate the stack has stays.
    ws.edit_program("      privateKeyPem: ${key.privateKeyPem}\n    ", "      privateKeyPem: not a PEM key\n    ")?;
    up_fails_with(&mut ws, "replacement", &["tls:index:SelfSignedCert (cert)", "Failed to parse private key PEM"])?;
    // Nothing half-made is stored: the key and the certificate as they were, nothing pending.
    let state = ws.managed_resources()?;
    let stored: Vec<_> = state.iter().map(|r| &r["id"]).collect();
    assert_eq!(stored, [&key_id, &cert_id], "{state:#?}");
    for resource in &state {
        assert!(resource.get("delete").is_none() && resource.get("pendingReplacement").is_none(), "{resource:#}");
    }
    ws.edit_program("      privateKeyPem: not a PEM key\n    ", "      privateKeyPem: ${key.privateKeyPem}\n    ")?;

    // Each input fixed, the stack converges: no changes, the same objects.
    ws.preview_expect_no_changes()?;
    assert_eq!(ids(&mut ws)?, (key_id, cert_id));
    assert_eq!(ws.stack_outputs(true)?["privateKey"], json!(private_key), "the key is the one made first");

    ws.destroy()?;
    let export = ws.stack_export()?;
    let left = export["deployment"]["resources"].as_array().cloned().unwrap_or_default();
    assert!(left.is_empty(), "destroy leaves nothing: {export:#}");
    Ok(())
}

/// A 1x1 GIF: the bytes 0x80, 0xFF and 0xF9 in it are not UTF-8, each on its own.
const GIF: &[u8] = &[
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00,
    0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02,
    0x02, 0x44, 0x01, 0x00, 0x3b,
];

/// The http data source reading a binary body (issue 41 item 1). Terraform 1.14: exit 0, the
/// provider's warning shown, the body with U+FFFD for each byte that is not UTF-8 and the
/// exact bytes in `response_body_base64`.
const BINARY_PROGRAM: &str = "name: e2e-http-binary
runtime: yaml
config:
  documentBase:
    type: string
  caCert:
    type: string
variables:
  pixel:
    fn::invoke:
      function: http:index/getHttp:getHttp
      arguments:
        url: ${documentBase}/pixel.gif
        caCertPem: ${caCert}
outputs:
  body: ${pixel.responseBody}
  base64: ${pixel.responseBodyBase64}
  status: ${pixel.statusCode}
";

fn binary_body(implementation: Implementation) -> anyhow::Result<()> {
    use base64::Engine as _;
    let server = Server::start()?;
    server.server.route("/pixel.gif", Reply::Body { status: 200, content_type: "image/gif", body: GIF.to_vec() });
    let mut ws = start("http-binary", Some(BINARY_PROGRAM), implementation, &server)?;
    match implementation {
        Implementation::Ours => {
            let up = ws.up()?;
            assert!(up.all_text().contains("Response body is not recognized as UTF-8"), "the provider's warning: {up}");
            let outputs = ws.stack_outputs(true)?;
            // Each of the five bytes that are not UTF-8 stands alone, so a replacement per
            // byte (Terraform, Go's encoding) and per maximal invalid sequence (Rust's
            // from_utf8_lossy) agree.
            assert_eq!(outputs["body"], json!(String::from_utf8_lossy(GIF)), "{outputs:#}");
            assert_eq!(outputs["body"].as_str().unwrap_or_default().matches('\u{FFFD}').count(), 5, "{outputs:#}");
            assert_eq!(outputs["base64"], json!(base64::engine::general_purpose::STANDARD.encode(GIF)), "{outputs:#}");
            assert_eq!(outputs["status"], json!(200), "{outputs:#}");
            ws.destroy()?;
            let export = ws.stack_export()?;
            assert!(export["deployment"]["resources"].as_array().is_none_or(Vec::is_empty), "{export:#}");
        }
        // The Go implementation fails the whole invoke (issue 41 item 1): Go's wrong behaviour,
        // asserted as such.
        Implementation::Go => {
            let failed = up_fails_with(
                &mut ws,
                "binary body",
                &["http:index/getHttp:getHttp", "\"body\" is a string that contains non-UTF8 bytes"],
            )?;
            // It shows the provider's warning beside the error.
            assert!(failed.all_text().contains("Response body is not recognized as UTF-8"), "{failed}");
        }
    }
    Ok(())
}

common::for_both_implementations!(lifecycle, binary_body);
