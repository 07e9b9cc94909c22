//! A plugin-framework provider against a real HTTP API (issue 28): magodo/restful v0.25.2
//! (`scripts/test-tools.sh restful`; protocol 6, dynamic attributes, an ephemeral resource, a
//! list resource and an action) against a throw-away PowerDNS server on loopback
//! (`tests/common/pdns.rs`), through the real Pulumi CLI, with ours and with the Go
//! implementation, in YAML (`examples/pulumi-yaml/restful`). Every step is checked on the
//! server: through its API (as `curl` would) and on its DNS side with `dig`.
//!
//! - The lifecycle (and a shorter one on a second stack in the same `PULUMI_HOME`, every
//!   process on the warm schema cache that earlier processes wrote): up, with a dynamic `body`
//!   of nested objects and lists whose record sets the DNS side then serves; the data source;
//!   the ephemeral resource (a TSIG key made for the run, deleted when it ends, its secret a
//!   secret output); the action (only an update runs it); a no-change preview; `preview
//!   --diff` of an update, then the update in place; a replacement forced by a change of `kind`
//!   under the same zone name (the zone survives: the old one is deleted first); drift made
//!   with the API, refreshed and repaired; a wrong API key (401) and then the right one; the
//!   server stopped during an up, then restarted; import by the provider's own JSON import ID;
//!   the list resource through `pulumi do … list`; destroy.
//! - Bad input: a `body` that is not the JSON object the API wants (a string of broken JSON):
//!   a clear error naming the resource, and nothing made.
//!
//! The Go implementation has no ephemeral resources, actions or list resources, so its
//! program leaves those out. Where it fails, the test asserts the failure (see each step).
//!
//! Needs `scripts/test-tools.sh restful pulumi anchor services`.

use crate::common;

use std::path::PathBuf;

use common::Implementation;
use common::pdns::Pdns;
use common::pulumi::Workspace;
use common::service_suite::{self as suite, Suite, set_secret};
use common::versions;
use serde_json::{Value, json};

const TOKEN: &str = "restful:index/resource:Resource";
const ZONES: &str = "/servers/localhost/zones";

fn restful_provider() -> anyhow::Result<PathBuf> {
    common::real_provider("restful", versions::RESTFUL)
}

/// The suite: the restful provider against PowerDNS, the `restful` example (less what the
/// Go implementation has no types for).
struct Restful;

impl Suite for Restful {
    type Server = Pdns;

    fn start_server(label: &str) -> anyhow::Result<Pdns> {
        Pdns::start(label)
    }

    fn provider() -> anyhow::Result<PathBuf> {
        restful_provider()
    }

    fn write_program(ws: &Workspace) -> anyhow::Result<()> {
        std::fs::write(ws.project_dir().join("Pulumi.yaml"), program_for(ws.implementation)?)?;
        Ok(())
    }

    fn configure(ws: &mut Workspace, server: &Pdns) -> anyhow::Result<()> {
        ws.config_set("baseUrl", &server.base_url())?;
        set_secret(ws, "apiKey", server.key())
    }
}

/// The example, without what the Go implementation has no types for (the ephemeral resource
/// and the action).
fn program_for(implementation: Implementation) -> anyhow::Result<String> {
    let example = std::fs::read_to_string(common::pulumi::example_dir("restful").join("Pulumi.yaml"))?;
    if implementation == Implementation::Ours {
        return Ok(example);
    }
    let cut = example.find("  lease:\n").expect("the example's ephemeral resource");
    let end = example.find("outputs:\n").expect("the example's outputs");
    let outputs = example[end..].lines().filter(|line| !line.contains("${lease.")).collect::<Vec<_>>().join("\n");
    Ok(format!("{}{outputs}\n", &example[..cut]))
}

/// The zone `name` as the API shows it; panics when the server does not answer.
fn zone(server: &Pdns, name: &str) -> Option<Value> {
    server.zone(name).unwrap_or_else(|err| panic!("{err:#}"))
}

/// `zone`'s `field` (such as `account`), `null` when the zone is gone.
fn zone_field(server: &Pdns, name: &str, field: &str) -> Value {
    zone(server, name).map_or(Value::Null, |zone| zone[field].clone())
}

fn dig(server: &Pdns, name: &str, rtype: &str) -> Vec<String> {
    server.dig(name, rtype).unwrap_or_else(|err| panic!("{err:#}"))
}

/// The TSIG keys the server holds (the ephemeral resource's, while a run holds it open).
fn tsig_keys(server: &Pdns) -> Value {
    server.api("GET", "/servers/localhost/tsigkeys", None).expect("the API answers").body
}

/// The whole lifecycle on one stack; `pass` names it in messages. The program is the
/// example's at the start and at the end.
fn lifecycle_pass(ws: &mut Workspace, server: &mut Pdns, pass: &str) -> anyhow::Result<()> {
    let implementation = ws.implementation;
    let ours = implementation == Implementation::Ours;
    let original = ws.program()?;

    // Up: the zone, with the record sets its nested body holds; the data source; for ours the
    // ephemeral TSIG key (closed when the run ends) and the action.
    let up = ws.up()?;
    assert_eq!(zone_field(server, "example.org.", "account"), "team-a", "{pass}: {up}");
    assert_eq!(zone_field(server, "example.org.", "kind"), "Native", "{pass}: {up}");
    assert_eq!(dig(server, "www.example.org.", "A"), ["192.0.2.1", "192.0.2.2"], "{pass}: {up}");
    let outputs = ws.stack_outputs(false)?;
    assert_eq!(outputs["zoneId"], format!("{ZONES}/example.org."), "{pass}: {outputs:#}");
    assert_eq!(outputs["daemon"], "authoritative", "{pass}: {outputs:#}");
    // The data source's sensitive attribute: a secret with ours, plain with Go's.
    let sensitive = if ours { "[secret]" } else { "authoritative" };
    assert_eq!(outputs["sensitiveDaemon"], sensitive, "{pass}: {outputs:#}");
    if ours {
        // The ephemeral resource's results reach the program as secrets and are never stored
        // in the clear; the key exists only while the run holds it.
        assert_eq!(outputs["leaseKey"], "[secret]", "{pass}: {outputs:#}");
        let shown = ws.stack_outputs(true)?;
        assert_eq!(shown["leaseAlgorithm"], "hmac-sha256", "{pass}: {shown:#}");
        let key = shown["leaseKey"].as_str().unwrap_or_default().to_owned();
        assert!(key.len() > 20, "{pass}: the key the API made: {shown:#}");
        let state = ws.stack_export()?.to_string();
        assert!(!state.contains(&key), "{pass}: the ephemeral key is in the state in the clear");
        assert_eq!(tsig_keys(server), json!([]), "{pass}: the ephemeral key is closed after the run");
        assert_eq!(dig(server, "action.example.org.", "TXT"), ["\"ran\""], "{pass}: the action ran: {up}");
        assert!(up.all_text().contains("Invoking the action"), "{pass}: the action's progress is shown: {up}");
    }

    // A no-change preview: a new process on a warm schema cache; the action does not run.
    server.api("PATCH", &format!("{ZONES}/example.org."), Some(&action_cleared()))?;
    ws.preview_expect_no_changes()?;
    assert!(dig(server, "action.example.org.", "TXT").is_empty(), "{pass}: a preview ran the action");

    // An update in place: preview --diff shows it, up makes it, the id stays.
    ws.edit_program("account: team-a", "account: team-b")?;
    let preview = ws.preview()?;
    assert!(preview.stdout.contains("team-b") && preview.stdout.contains("1 to update"), "{pass}: {preview}");
    let update = ws.up()?;
    assert!(update.stdout.contains("updated") && !update.stdout.contains("replaced"), "{pass}: {update}");
    assert_eq!(zone_field(server, "example.org.", "account"), "team-b", "{pass}: {update}");
    ws.preview_expect_no_changes()?;

    // A replacement (`forceNewAttrs: [kind]`) under the same zone name: created first, the new
    // zone would conflict with the old one (409), so ours deletes the old one first.
    ws.edit_program("kind: Native", "kind: Master")?;
    match implementation {
        Implementation::Ours => {
            let replace = ws.pulumi_ok(&["up", "--yes", "--skip-preview", "--non-interactive"])?;
            assert!(replace.stdout.contains("replaced"), "{pass}: {replace}");
            assert_eq!(zone_field(server, "example.org.", "kind"), "Master", "{pass}: {replace}");
            suite::assert_original_deleted_first(&replace, pass);
            ws.preview_expect_no_changes()?;
        }
        // The Go implementation creates first: the API refuses the second zone of that name.
        Implementation::Go => {
            let conflict = ws.up_fails()?;
            assert!(conflict.all_text().contains("409"), "{pass}: Go's replacement now works: {conflict}");
            assert_eq!(zone_field(server, "example.org.", "kind"), "Native", "{pass}: {conflict}");
            ws.edit_program("kind: Master", "kind: Native")?;
            ws.preview_expect_no_changes()?;
        }
    }

    // Drift made through the API: refresh reads it, up repairs it.
    let drift = server.api("PUT", &format!("{ZONES}/example.org."), Some(&json!({"account": "drifted"})))?;
    assert_eq!(drift.status, 204, "{pass}: {drift:?}");
    let refresh = ws.refresh()?;
    let stored = ws.resource_state("zone")?;
    assert_eq!(stored["outputs"]["body"]["account"], "drifted", "{pass}: refresh read the drift: {refresh}");
    let repair = ws.up()?;
    assert_eq!(zone_field(server, "example.org.", "account"), "team-b", "{pass}: {repair}");
    ws.preview_expect_no_changes()?;

    // A wrong API key: a clear error naming the resource, the key never shown, nothing changed;
    // with the right key the next up succeeds, with no manual refresh.
    let wrong = "not-the-key-0123456789";
    set_secret(ws, "apiKey", wrong)?;
    ws.edit_program("account: team-b", "account: team-c")?;
    let refused = ws.up_fails()?;
    let text = refused.all_text();
    assert!(text.contains("restful:index:Resource (zone)") && text.contains("401"), "{pass}: {refused}");
    assert!(!text.contains(wrong), "{pass}: the key is never shown: {refused}");
    assert_eq!(zone_field(server, "example.org.", "account"), "team-b", "{pass}: {refused}");
    set_secret(ws, "apiKey", server.key())?;
    let fixed = ws.up()?;
    assert_eq!(zone_field(server, "example.org.", "account"), "team-c", "{pass}: {fixed}");
    ws.preview_expect_no_changes()?;

    // The server stopped during an up, then restarted: the next up succeeds.
    ws.edit_program("account: team-c", "account: team-d")?;
    server.stop();
    let down = ws.up_fails()?;
    assert!(down.all_text().contains("restful:index:Resource (zone)"), "{pass}: {down}");
    server.restart()?;
    let back = ws.up()?;
    assert_eq!(zone_field(server, "example.org.", "account"), "team-d", "{pass}: {back}");
    ws.preview_expect_no_changes()?;

    // Import by the provider's own import ID (JSON, which ours must not take for an identity),
    // then the program gains the zone with no changes.
    let made = server.api(
        "POST",
        ZONES,
        Some(&json!({"name": "example.net.", "kind": "Native", "nameservers": ["ns1.example.net."], "account": "ops"})),
    )?;
    assert_eq!(made.status, 201, "{pass}: {made:?}");
    let provider = ws.provider_urn("restful", "pdns")?;
    let import_id = json!({
        "id": format!("{ZONES}/example.net."),
        "path": ZONES,
        "query": {"rrsets": ["false"]},
        "body": {"name": null, "kind": null, "account": null},
    })
    .to_string();
    ws.pulumi_ok(&[
        "import",
        TOKEN,
        "imported",
        &import_id,
        "--provider",
        &format!("pdns={provider}"),
        "--yes",
        "--protect=false",
        "--generate-code=false",
        "--non-interactive",
    ])?;
    let imported = ws.resource_state("imported")?;
    assert_eq!(imported["outputs"]["body"]["account"], "ops", "{pass}: {imported:#}");
    ws.edit_program(
        "variables:\n",
        "  imported:\n    type: restful:index/resource:Resource\n    properties:\n      path: \
         /servers/localhost/zones\n      query:\n        rrsets: [\"false\"]\n      body:\n        name: \
         example.net.\n        kind: Native\n        account: ops\n    options:\n      provider: \
         ${pdns}\nvariables:\n",
    )?;
    ws.preview_expect_no_changes()?;

    // The list resource, through Pulumi's List (`pulumi do … list`), with the stack's provider
    // configuration: both zones, by the ids the resources have.
    if ours {
        let listed = list(ws, server)?;
        assert_eq!(
            listed,
            json!([
                {"id": format!("{ZONES}/example.net."), "name": "example.net."},
                {"id": format!("{ZONES}/example.org."), "name": "example.org."},
            ]),
            "{pass}"
        );
    }

    // Destroy: nothing left on the server.
    ws.destroy()?;
    assert_eq!(zone(server, "example.org."), None, "{pass}: example.org. is left on the server");
    assert_eq!(zone(server, "example.net."), None, "{pass}: example.net. is left on the server");
    assert!(dig(server, "www.example.org.", "A").is_empty(), "{pass}");
    suite::restore_program(ws, &original)
}

/// The PATCH that removes the record set the action adds.
fn action_cleared() -> Value {
    json!({"rrsets": [{"name": "action.example.org.", "type": "TXT", "changetype": "DELETE"}]})
}

/// `pulumi do <token> list --all` of the zones, with the provider configuration of the stack's
/// provider resource (`--provider`) and the base URL as a flag (the CLI checks the required
/// inputs before it merges the stack's); the results sorted by id.
fn list(ws: &mut Workspace, server: &Pdns) -> anyhow::Result<Value> {
    let package =
        format!("terraform-provider@{} {}", ws.implementation.plugin_version(), restful_provider()?.display());
    let provider = ws.provider_urn("restful", "pdns")?;
    let base_url = server.base_url();
    let listed = ws.pulumi_ok(&[
        "do",
        "--package",
        &package,
        TOKEN,
        "list",
        "--provider",
        &provider,
        "--restful:base-url",
        &base_url,
        "--path",
        ZONES,
        "--resource-path",
        ZONES,
        "--resource-id",
        "$(path)/$(body.id)",
        "--all",
        "--output",
        "json",
    ])?;
    let start = listed.stdout.find('[').ok_or_else(|| anyhow::anyhow!("no JSON array in {listed}"))?;
    let mut results: Vec<Value> = serde_json::from_str(&listed.stdout[start..])?;
    results.sort_by_key(|result| result["id"].to_string());
    Ok(Value::Array(results))
}

/// What a second stack in the same `PULUMI_HOME` runs, every process on the schema cache the
/// first stack's processes wrote (ours): up, a no-change preview, an update, destroy.
fn second_pass(ws: &mut Workspace, server: &Pdns) -> anyhow::Result<()> {
    let up = ws.up()?;
    assert_eq!(zone_field(server, "example.org.", "account"), "team-a", "second stack: {up}");
    assert_eq!(dig(server, "www.example.org.", "A"), ["192.0.2.1", "192.0.2.2"], "second stack: {up}");
    ws.preview_expect_no_changes()?;
    ws.edit_program("account: team-a", "account: team-e")?;
    let update = ws.up()?;
    assert_eq!(zone_field(server, "example.org.", "account"), "team-e", "second stack: {update}");
    ws.edit_program("account: team-e", "account: team-a")?;
    ws.destroy()?;
    assert_eq!(zone(server, "example.org."), None, "second stack: destroyed");
    Ok(())
}

/// The lifecycle on one stack, then a shorter one on a second stack of the same workspace.
fn lifecycle(implementation: Implementation) -> anyhow::Result<()> {
    suite::lifecycle_on_two_stacks::<Restful>("restful", implementation, lifecycle_pass, second_pass)
}

/// A `body` that is not the JSON object the API wants (a string holding broken JSON): a clear
/// error naming the resource, nothing made, and the rest untouched.
fn bad_input(implementation: Implementation) -> anyhow::Result<()> {
    let (server, mut ws) = suite::up_for_bad_input::<Restful>("restful-bad", implementation)?;
    ws.edit_program(
        "variables:\n",
        "  broken:\n    type: restful:index/resource:Resource\n    properties:\n      path: \
         /servers/localhost/zones\n      body: '{\"name\": \"broken.org.\", '\n    options:\n      provider: \
         ${pdns}\nvariables:\n",
    )?;
    let failed = ws.up_fails()?;
    let text = failed.all_text();
    assert!(text.contains("restful:index:Resource (broken)") && text.contains("422"), "{failed}");
    assert!(ws.resource_state("broken").is_err(), "nothing was made, so nothing is recorded: {failed}");
    assert_eq!(zone(&server, "broken.org."), None, "{failed}");
    assert_eq!(zone_field(&server, "example.org.", "account"), "team-a", "the rest is untouched: {failed}");
    suite::remove_added_resource(&ws, "  broken:", "variables:\n")?;
    ws.destroy()?;
    assert_eq!(zone(&server, "example.org."), None);
    Ok(())
}

common::for_both_implementations!(lifecycle, bad_input);
