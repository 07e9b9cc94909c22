//! `terraform-provider-fixture`: a Terraform provider written in Rust, used only by tests.
//!
//! It launches and serves exactly like a go-plugin provider (Terraform's plugin host
//! cannot tell it from a Go one): magic cookie check, protocol negotiation, a unix socket
//! listener, the handshake line on stdout, auto-mTLS, the go-plugin auxiliary services
//! (`GRPCController`, `GRPCStdio`, `GRPCBroker`, health) and either the `tfplugin5` or the
//! `tfplugin6` provider service. Its schema is [`fixture_schema`] (every attribute type,
//! every nesting mode, every flag), or any schema file in `terraform providers schema -json`
//! format. Switches set at launch make it misbehave the ways real providers do.
//!
//! Main pieces: [`config::LaunchConfig`] reads the environment, [`serve::run`] does the
//! go-plugin part, [`provider::Fixture`] is the one provider implementation that the
//! protocol 5 and protocol 6 services (`provider_v5`, `provider_v6`) map onto, and
//! [`convert`] turns a `schema_gen::tf::ProviderSchema` into either protocol's schema.
//! [`synthetic::synthetic_schema`] builds an AWS-sized schema for benchmarks. The RPC
//! behaviour is protocol-neutral: [`resources`] (validate, upgrade, plan, apply, read,
//! import), [`reads`] (provider config, data sources, functions) and `store` work on the
//! [`rpc`] types and [`value`] trees; the service modules only convert messages.
//!
//! # Environment
//!
//! Set by the plugin host (go-plugin's names and meanings):
//!
//! | variable | meaning |
//! |---|---|
//! | `TF_PLUGIN_MAGIC_COOKIE` | must be Terraform's cookie, or the binary prints go-plugin's "This binary is a plugin..." text and exits 1 |
//! | `PLUGIN_PROTOCOL_VERSIONS` | comma list of the host's protocol versions; the highest the fixture supports is served, else its lowest (go-plugin's rule) |
//! | `PLUGIN_UNIX_SOCKET_DIR` | directory for the listening socket (default: the temp dir) |
//! | `PLUGIN_CLIENT_CERT` | PEM of the host's client certificate; turns on auto-mTLS (ECDSA P-521 server cert, sent in the handshake) |
//!
//! Ours, to shape the fixture:
//!
//! | variable | meaning |
//! |---|---|
//! | `FIXTURE_PROTOCOL` | the protocol versions the fixture supports: `5`, `6` or `5,6` (default `6`) |
//! | `FIXTURE_SCHEMA_FILE` | serve the single provider entry of this `terraform providers schema -json` file instead of the fixture schema |
//! | `FIXTURE_PANIC_ON` | the gRPC method name (of the served protocol, e.g. `GetProviderSchema` or `GetSchema`) whose call makes the process print a Go-style `panic: ...` and goroutine trace to its real stderr and exit 2 |
//! | `FIXTURE_SLOW_ON`, `FIXTURE_SLOW_MS` | the named method waits this many milliseconds before answering; `StopProvider` (v6) / `Stop` (v5) ends the wait early and the call answers `CANCELLED` |
//! | `FIXTURE_FLOOD_BYTES` | right after the handshake, write this many bytes to stdout and as many to stderr (both go through `GRPCStdio`); `GetProviderSchema`/`GetSchema` answers only once all of it was written, so a host that does not drain `StreamStdio` hangs there |
//! | `FIXTURE_IDENTITY_VERSION` | protocol 6: declare the identity `{id}` at this schema version for every resource type; UpgradeResourceIdentity always fails (`identity_list`) |
//! | `FIXTURE_LIST_FAIL_AFTER` | protocol 6: a list resource (config `{prefix}`) for every resource type, whose ListResource sends this many results and then breaks the stream (`identity_list`) |
//! | `FIXTURE_HANDSHAKE` | `exit` (exit 1 before the handshake), `hang` (never print it), `garbage` (print a line that is not a handshake, then hang), `core-protocol-2` or `netrpc` (a handshake the host must refuse); default `normal` |
//! | `FIXTURE_STDERR_LOGS` | `1`: after the handshake, write [`misbehaviour::SAMPLE_STDERR_LOGS`] (hclog JSON lines at every level and plain lines) to the real stderr |
//! | `FIXTURE_1_14` | `1`: protocol 6 serves the Terraform 1.14 features of [`actions_and_generate`]: the actions `fixture_notify` and `fixture_legacy_action`, and GenerateResourceConfig |
//! | `FIXTURE_STORE_DIR` | a directory: apply writes each object's state as cty JSON to `<dir>/<type>/<id>.json` (a `/` in the id becomes `_`), delete removes it, `ReadResource` answers what the file holds (null `new_state` when the file is gone) and `ImportResourceState` starts from it; generated ids skip files that exist, so several processes can share one store. Unset: read answers the current state unchanged |
//!
//! Served: schema, metadata, provider config (validate/prepare and configure), resource
//! validation, `UpgradeResourceState`, `PlanResourceChange`, `ApplyResourceChange`,
//! `ReadResource`, `ImportResourceState`, data source validation and reads, `GetFunctions`,
//! `CallFunction`, stop. Other methods answer `UNIMPLEMENTED`. Values are read and written
//! with the generic `rmpv` crate ([`value`]), never with the bridge's codec; unknowns are
//! written as `d4 00 00` and any extension (refined unknowns, ext 12) is read as unknown.
//!
//! # Provider and resource behaviour
//!
//! - Provider config: a null `endpoint` or `max_retries` (the required attributes) is an
//!   error "Missing required argument" at that attribute; unknown values are accepted.
//! - Plan (every resource type): starts from the proposed new state; every computed
//!   attribute (top level, in nested blocks, in nested attributes) whose proposed value is
//!   null becomes unknown, so on create `id` and all computed attributes are unknown, and an
//!   update keeps the prior values the proposal carries; write-only attributes are planned
//!   null; a null proposed state plans null (destroy). `planned_private` is the prior private
//!   bytes, or `fixture-private:<type>` when there are none.
//! - Force-new: a change (prior vs planned) of a top-level attribute named `name` or starting
//!   with `replace_` is reported in `requires_replace`: `fixture_flags.name`,
//!   `fixture_blocks.name`, `fixture_misbehave.replace_key`.
//! - Apply: an unknown `id` becomes `<type without fixture_>-<n>` (`flags-1`, `flags-2`, ...
//!   per type and process); every other unknown becomes a deterministic value: string
//!   `computed-<attribute name>`, number 42, bool true, collections of one such element,
//!   dynamic the string `computed-<name>`. Write-only attributes are null in the new state;
//!   `private` is the planned private bytes. A null planned state deletes and answers null.
//! - Read answers the current state (or the store's copy, see `FIXTURE_STORE_DIR`) and
//!   echoes `private`.
//! - Import answers a state with only `id` set (blocks empty) or the store's copy, with
//!   private `fixture-imported:<id>`; an id `multi:<x>` imports two objects, `<x>-1` and
//!   `<x>-2`; an id `partial:<x>` answers the object `<x>` and the error "Import failed"
//!   beside it.
//! - Upgrade decodes `RawState` JSON or flatmap through the current implied type (dropping
//!   attributes the schema does not have); `fixture_versioned` (version 3) states of version
//!   0 to 2 held `value` under the name `legacy_value`, which the upgrade renames. A version
//!   above the schema's is an error.
//! - Validation errors, each at its attribute path: `fixture_flags.name = "bad"`;
//!   `fixture_types.number_value` outside 0..=1000; a `fixture_types.list_value` element
//!   `"bad"` (path `list_value[i]`); `fixture_blocks.list_block[i].value = "bad"`; an unknown
//!   name in `fixture_misbehave.misbehave`.
//! - Data source `fixture_lookup`: `name = "bad"` fails validation at `name`; `name =
//!   "binary"` answers `value` as bytes that are not UTF-8 with hashicorp/http's warning
//!   "Response body is not recognized as UTF-8"; a read answers
//!   the config with `id = name`, `value = "value-of-<name>"`,
//!   `tags = {filters = "<number of filter blocks>", name = <name>}`.
//! - Functions: `join(separator, parts...)` joins the non-null parts; an empty separator is
//!   a function error on argument 0, a part `"bad"` one on its own index. `echo(value)`
//!   answers its (dynamic) argument unchanged.
//!
//! # `fixture_misbehave`
//!
//! Attributes: `id` (computed), `misbehave` (optional string, a comma list read from the
//! configuration at plan and apply time), `value` (optional string), `computed_value`
//! (computed string), `items` (optional set of strings), `secret_wo` (optional write-only
//! string), `replace_key` (optional, force-new). Without `misbehave` it behaves like every
//! other resource. The values ([`resources::Misbehave`]):
//!
//! | value | effect |
//! |---|---|
//! | `plan_differs_from_config` | planned `value` is the configured one plus `-planned` |
//! | `apply_changes_known_value` | apply returns `value` plus `-applied` |
//! | `unknown_after_apply` | apply leaves `computed_value` unknown |
//! | `null_after_apply` | a create/update apply returns a null new state (no diagnostics) |
//! | `set_elements_uncorrelated` | apply appends `-uncorrelated` to every `items` element (`["uncorrelated"]` if empty/null) |
//! | `legacy_type_system` | Plan and Apply answers set `legacy_type_system`; combine, e.g. `legacy_type_system,plan_differs_from_config` |
//! | `error_with_partial_state` | apply answers the error "Partial failure" AND the full new state (known `id`) |
//! | `error_with_unapplied_state` | apply answers the error "Update failed" AND the planned new state, but the store keeps the object as it was (an SDKv2 provider's failed update) |
//! | `requires_replace_nonexistent` | the plan adds `requires_replace` path `no_such_attribute` |
//! | `write_only_in_plan` | planned `secret_wo` is `"leaked"` |
//! | `deferred` | the plan answers deferred `RESOURCE_CONFIG_UNKNOWN` with the proposed state as planned state |
//! | `panic_in_apply` | apply prints a Go panic to the real stderr and exits 2 |
//! | `slow_apply` | apply waits for `StopProvider`/`Stop` (then: error "Apply interrupted" and the prior state) or 30 s (then applies normally) |
//! | `finishes_at_stop` | apply waits for `StopProvider`/`Stop` or 30 s, then applies normally |
//! | `garbage_new_state` | apply stores the object but answers a new state that is not msgpack (`c1`) |
//! | `checks_planned_private` | an update's apply fails ("Missing saved plan private state") unless the plan made at apply time was sent the saved plan's `planned_private` (protocol 6.11); see `saved_plans` |
//! | `unstable_plan` | every plan sets `computed_value` to a new known `plan-<nanoseconds>`, so the apply-time plan contradicts the earlier one |
//! | `error_with_planned_state` | apply answers the error "Invalid value" at path `value` AND the planned state as planned (a create's `id` unknown); nothing is made |
//! | `error_with_null_state` | apply answers a warning "Apply warning", the error "Apply failed" and a null state; nothing is made |
//! | `read_fails` | Read answers the error "Read failed" (the stored `misbehave` decides, as for the next three) |
//! | `read_gone` | Read answers null: the object is gone |
//! | `read_changes_id` | Read answers the object with `id` `<id>-moved` |
//! | `delete_fails` | a destroy answers the error "Delete failed" and the prior state |
//! | `huge_value` | Apply and Read answer `computed_value` as a string of 50 MiB |
//! | `non_utf8_state` | Apply and Read answer `computed_value` as the bytes `GIF89a 01 00 ff fe` (not UTF-8) with the warning "Value is not recognized as UTF-8" |
//!
//! `tests/fixture/terraform_misbehave.rs` records what Terraform 1.11 makes of each: "Provider
//! produced invalid plan" (`plan_differs_from_config`, `write_only_in_plan`, and
//! `requires_replace_nonexistent` on an update only: Terraform checks replace paths only
//! when there is a prior object), "Provider produced inconsistent result after apply"
//! (`apply_changes_known_value`, `set_elements_uncorrelated`, `null_after_apply`), "Provider
//! returned invalid result object after apply" (`unknown_after_apply`), the provider's own
//! "Partial failure" (`error_with_partial_state`), "Provider deferred changes when Terraform
//! did not allow deferrals" (`deferred`), "The terraform-provider-fixture plugin crashed!"
//! (`panic_in_apply`), "Provider produced inconsistent final plan" (`unstable_plan`); with
//! `legacy_type_system,plan_differs_from_config` the apply succeeds.
//!
//! # Launching it from a test
//!
//! Build it with `cargo build -p terraform-provider-fixture`; the binary is
//! `target/debug/terraform-provider-fixture`. Root-package tests use
//! `tests/common/fixture.rs` (`launch_fixture("5" | "6", &[("FIXTURE_STORE_DIR", dir)])`),
//! which finds it next to the test binary and runs it through an `exec` wrapper script that
//! sets the environment. This crate's own tests use `CARGO_BIN_EXE_terraform-provider-fixture`.
//!
//! Architecture invariant: the fixture knows nothing about Pulumi or the bridge; it only
//! speaks the public Terraform plugin protocol, so a test that passes against it would pass
//! against a real provider doing the same.

pub mod actions_and_generate;
pub mod config;
pub mod convert;
pub mod ephemeral;
pub mod identity_list;
pub mod misbehave;
pub mod misbehaviour;
pub mod provider;
mod provider_v5;
mod provider_v6;
pub mod reads;
#[cfg(test)]
mod resource_tests;
pub mod resources;
pub mod rpc;
mod saved_plans;
pub mod serve;
mod stdio;
mod store;
pub mod synthetic;
mod tls;
pub mod value;

use schema_gen::tf;

/// The fixture provider's own schema, kept as readable data in `fixture_schema.json`.
pub fn fixture_schema() -> tf::ProviderSchema {
    let text = include_str!("fixture_schema.json");
    // The file is part of this crate and a unit test parses it, so failing here is a bug in
    // the crate, not bad input.
    match config::single_provider_schema(text) {
        Ok(schema) => schema,
        Err(err) => unreachable!("fixture_schema.json is invalid: {err}"),
    }
}

/// Terraform's go-plugin handshake cookie, the same for protocol 5 and 6.
pub const MAGIC_COOKIE_KEY: &str = "TF_PLUGIN_MAGIC_COOKIE";
/// See [`MAGIC_COOKIE_KEY`].
pub const MAGIC_COOKIE_VALUE: &str = "d602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_schema_parses_and_covers_the_issue_list() {
        let schema = fixture_schema();
        let names: Vec<&str> = schema.resources.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "fixture_artifacts",
                "fixture_blocks",
                "fixture_bridge",
                "fixture_bridge_output",
                "fixture_computed_id",
                "fixture_flags",
                "fixture_misbehave",
                "fixture_nested_attributes",
                "fixture_required_id",
                "fixture_types",
                "fixture_versioned"
            ]
        );
        assert!(schema.resources["fixture_required_id"].block.attributes["id"].required);
        assert_eq!(schema.resources["fixture_versioned"].version, 3);
        assert!(schema.provider.block.attributes.values().any(|a| a.required));
        assert!(!schema.data_sources.is_empty());
        assert!(!schema.functions.is_empty());
    }
}
