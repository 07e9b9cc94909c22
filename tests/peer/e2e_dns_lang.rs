//! The muxed dns provider (hashicorp/dns 3.6.1: an SDKv2 and a framework half) against a
//! throw-away BIND 9 server, from TypeScript on the SDK `pulumi package add` generates, with
//! ours and with the Go implementation (issue 28): up, checked with `dig`; a no-change preview
//! (a warm start of the muxed provider); an update in place; a replacement under the name the
//! program gives (the record survives ours, Go's deletes it); a failed update that the fixed
//! program then completes without a manual refresh; destroy. The YAML lifecycle, drift, import
//! and bad input are in `e2e_dns.rs`.
//!
//! Needs `scripts/test-tools.sh dns pulumi languages anchor services`.

use crate::common;

use common::Implementation;
use common::bind::Bind;
use common::programs::{Language, ProgramWorkspace};
use common::versions;

const PROGRAM: &str = r#"// An A record set (the SDKv2 half) and a TXT record set (the framework half) through an
// explicit provider; stack config changes them.
import * as pulumi from "@pulumi/pulumi";
import * as dns from "@pulumi/dns";

const config = new pulumi.Config();
const bind = new dns.Provider("bind", {
    updates: [{
        server: "127.0.0.1",
        port: config.requireNumber("dnsPort"),
        keyName: "tf.",
        keyAlgorithm: "hmac-sha256",
        keySecret: config.requireSecret("tsigSecret"),
    }],
});
const www = new dns.ARecordSet("www", {
    zone: "example.com.",
    name: "www",
    addresses: (config.get("addresses") ?? "192.0.2.1").split(","),
    ttl: 300,
}, { provider: bind });
const txt = new dns.TxtRecordSet("txt", {
    zone: "example.com.",
    name: "txt",
    txts: ["hello"],
    ttl: config.getNumber("txtTtl") ?? 300,
}, { provider: bind });

export const wwwId = www.id;
export const txtId = txt.id;
"#;

fn lifecycle(implementation: Implementation) -> anyhow::Result<()> {
    let server = Bind::start(&format!("ts-{}", implementation.label()))?;
    let mut ws = ProgramWorkspace::new("dns", implementation, Language::TypeScript)?;
    std::fs::write(ws.project_dir().join("index.ts"), PROGRAM)?;
    ws.add_local_binary(&common::real_provider("dns", versions::DNS)?, &[])?;
    ws.compile()?;
    ws.stack_init()?;
    ws.config_set("dnsPort", &server.port().to_string())?;
    ws.pulumi_ok(&["config", "set", "--secret", "tsigSecret", server.secret(), "--non-interactive"])?;
    let dig = |name: &str, rtype: &str| server.dig(&format!("{name}.example.com."), rtype);

    let up = ws.up()?;
    assert_eq!(dig("www", "A")?, ["192.0.2.1"], "{up}");
    assert_eq!(dig("txt", "TXT")?, ["\"hello\""], "{up}");
    ws.preview_expect_no_changes()?;

    ws.config_set("addresses", "192.0.2.1,192.0.2.2")?;
    let update = ws.up()?;
    assert!(update.stdout.contains("updated") && !update.stdout.contains("replaced"), "in place: {update}");
    assert_eq!(dig("www", "A")?, ["192.0.2.1", "192.0.2.2"], "{update}");

    ws.config_set("txtTtl", "600")?;
    let replace = ws.up()?;
    assert!(replace.stdout.contains("replaced"), "{replace}");
    let survived = dig("txt", "TXT")?;
    match implementation {
        Implementation::Ours => assert_eq!(survived, ["\"hello\""], "the replacement kept the record: {replace}"),
        Implementation::Go => assert!(survived.is_empty(), "Go's replacement now keeps the record: {survived:?}"),
    }

    ws.config_set("addresses", "192.0.2.1,not-an-ip")?;
    let failed = ws.up_fails()?;
    assert!(failed.all_text().contains("not-an-ip"), "{failed}");
    assert_eq!(dig("www", "A")?, ["192.0.2.1", "192.0.2.2"], "nothing changed on the server: {failed}");
    ws.config_set("addresses", "192.0.2.1,192.0.2.3")?;
    let fixed = ws.up()?;
    assert_eq!(dig("www", "A")?, ["192.0.2.1", "192.0.2.3"], "the fixed program completes the update: {fixed}");
    if implementation == Implementation::Ours {
        ws.preview_expect_no_changes()?;
    }

    ws.destroy()?;
    assert!(ws.managed_resources()?.is_empty());
    assert!(dig("www", "A")?.is_empty() && dig("txt", "TXT")?.is_empty(), "nothing left on the server");
    Ok(())
}

common::for_both_implementations!(typescript_lifecycle => lifecycle());
