//! The plugin-framework provider magodo/restful 0.25.2 against a throw-away PowerDNS server,
//! from TypeScript on the SDK `pulumi package add` generates, with ours and with the Go
//! implementation (issue 28): up, with a dynamic `body` of nested objects and lists, checked
//! through the API and with `dig`; a no-change preview on a warm schema cache; an update in
//! place; a replacement under the same zone name (ours deletes first and the zone survives;
//! Go creates first and the API answers 409); a wrong API key, then the right one, with no
//! manual refresh; a data source's sensitive attribute and an ephemeral resource's result
//! as secrets in the program (ours; Go's data source result is plain); destroy. The YAML lifecycle, the ephemeral resource, the action, the list,
//! drift, import and bad input are in `e2e_restful.rs`.
//!
//! Needs `scripts/test-tools.sh restful pulumi languages anchor services`.

use crate::common;

use common::Implementation;
use common::pdns::Pdns;
use common::programs::{Language, ProgramWorkspace};
use common::versions;

const PROGRAM: &str = r#"// A PowerDNS zone through an explicit provider; stack config changes it.
import * as pulumi from "@pulumi/pulumi";
import * as restful from "@pulumi/restful";

const config = new pulumi.Config();
const pdns = new restful.Provider("pdns", {
    baseUrl: config.require("baseUrl"),
    client: { retry: { statusCodes: [500], count: 5, waitInSec: 1 } },
    security: { apikeys: [{ name: "X-API-Key", in: "header", value: config.requireSecret("apiKey") }] },
});
const zone = new restful.Resource("zone", {
    path: "/servers/localhost/zones",
    readPath: "$(path)/$(body.id)",
    readQuery: { rrsets: ["false"] },
    writeOnlyAttrs: ["nameservers", "rrsets"],
    forceNewAttrs: ["kind"],
    body: {
        name: "example.org.",
        kind: config.get("kind") ?? "Native",
        account: config.get("account") ?? "team-a",
        nameservers: ["ns1.example.org."],
        rrsets: [{
            name: "www.example.org.",
            type: "A",
            ttl: 300,
            records: ["192.0.2.1", "192.0.2.2"].map(content => ({ content, disabled: false })),
        }],
    },
}, { provider: pdns });

export const zoneId = zone.id;
export const serial = zone.output.apply(output => output.serial);

// The data source's sensitive attribute, and the ephemeral resource's result (a TSIG key made
// for the run and deleted when it ends): secrets in the program (ours).
const server = restful.getResourceOutput({ id: "/servers/localhost", useSensitiveOutput: true }, { provider: pdns });
export const sensitiveDaemon = server.sensitiveOutput.apply(output => output.daemon_type);
// (Go's SDK has no ephemeral resources, hence `any`.)
if (config.getBoolean("ephemeral")) {
    const lease = (restful as any).openResourceOutput({
        path: "/servers/localhost/tsigkeys",
        method: "POST",
        body: { name: "ts-run-key", algorithm: "hmac-sha256" },
        closePath: "$(path)/$(body.id)",
        closeMethod: "DELETE",
    }, { provider: pdns });
    module.exports.leaseKey = lease.output.apply((output: any) => output.key);
}
"#;

fn lifecycle(implementation: Implementation) -> anyhow::Result<()> {
    let mut server = Pdns::start(&format!("ts-{}", implementation.label()))?;
    let mut ws = ProgramWorkspace::new("restful", implementation, Language::TypeScript)?;
    std::fs::write(ws.project_dir().join("index.ts"), PROGRAM)?;
    ws.add_local_binary(&common::real_provider("restful", versions::RESTFUL)?, &[])?;
    ws.compile()?;
    ws.stack_init()?;
    ws.config_set("baseUrl", &server.base_url())?;
    ws.pulumi_ok(&["config", "set", "--secret", "apiKey", server.key(), "--non-interactive"])?;
    let field = |server: &Pdns, name: &str| -> anyhow::Result<serde_json::Value> {
        Ok(server.zone("example.org.")?.map_or(serde_json::Value::Null, |zone| zone[name].clone()))
    };

    if implementation == Implementation::Ours {
        ws.config_set("ephemeral", "true")?;
    }
    let up = ws.up()?;
    assert_eq!(field(&server, "account")?, "team-a", "{up}");
    assert_eq!(server.dig("www.example.org.", "A")?, ["192.0.2.1", "192.0.2.2"], "{up}");
    // Secrets from functions: the data source's sensitive attribute (Go's is plain), and for
    // ours the ephemeral resource's key, closed after the run.
    let outputs = ws.stack_outputs(false)?;
    match implementation {
        Implementation::Ours => {
            assert_eq!(outputs["sensitiveDaemon"], "[secret]", "{outputs:#}");
            assert_eq!(outputs["leaseKey"], "[secret]", "{outputs:#}");
            let shown = ws.stack_outputs(true)?;
            assert_eq!(shown["sensitiveDaemon"], "authoritative", "{shown:#}");
            let keys = server.api("GET", "/servers/localhost/tsigkeys", None)?.body;
            assert_eq!(keys, serde_json::json!([]), "the ephemeral key is closed after the run");
        }
        Implementation::Go => assert_eq!(outputs["sensitiveDaemon"], "authoritative", "{outputs:#}"),
    }
    ws.preview_expect_no_changes()?;

    ws.config_set("account", "team-b")?;
    let update = ws.up()?;
    assert!(update.stdout.contains("updated") && !update.stdout.contains("replaced"), "in place: {update}");
    assert_eq!(field(&server, "account")?, "team-b", "{update}");

    ws.config_set("kind", "Master")?;
    match implementation {
        Implementation::Ours => {
            let replace = ws.up()?;
            assert!(replace.stdout.contains("replaced"), "{replace}");
            assert_eq!(field(&server, "kind")?, "Master", "the replacement kept the zone: {replace}");
        }
        Implementation::Go => {
            let conflict = ws.up_fails()?;
            assert!(conflict.all_text().contains("409"), "Go's replacement now works: {conflict}");
            ws.config_set("kind", "Native")?;
        }
    }

    // A wrong key (401), then the right one: the next up completes the update.
    ws.pulumi_ok(&["config", "set", "--secret", "apiKey", "not-the-key", "--non-interactive"])?;
    ws.config_set("account", "team-c")?;
    let refused = ws.up_fails()?;
    assert!(refused.all_text().contains("401") && !refused.all_text().contains("not-the-key"), "{refused}");
    assert_eq!(field(&server, "account")?, "team-b", "nothing changed on the server: {refused}");
    ws.pulumi_ok(&["config", "set", "--secret", "apiKey", server.key(), "--non-interactive"])?;
    let fixed = ws.up()?;
    assert_eq!(field(&server, "account")?, "team-c", "the next up completes the update: {fixed}");
    ws.preview_expect_no_changes()?;

    // The server stopped during an up, then restarted.
    ws.config_set("account", "team-d")?;
    server.stop();
    ws.up_fails()?;
    server.restart()?;
    let back = ws.up()?;
    assert_eq!(field(&server, "account")?, "team-d", "{back}");

    ws.destroy()?;
    assert!(ws.managed_resources()?.is_empty());
    assert_eq!(server.zone("example.org.")?, None, "nothing left on the server");
    Ok(())
}

common::for_both_implementations!(typescript_lifecycle => lifecycle());
