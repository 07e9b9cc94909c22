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
//! [`synthetic::synthetic_schema`] builds an AWS-sized schema for benchmarks.
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
//! | `FIXTURE_HANDSHAKE` | `exit` (exit 1 before the handshake), `hang` (never print it), `garbage` (print a line that is not a handshake, then hang), `core-protocol-2` or `netrpc` (a handshake the host must refuse); default `normal` |
//! | `FIXTURE_STDERR_LOGS` | `1`: after the handshake, write [`misbehaviour::SAMPLE_STDERR_LOGS`] (hclog JSON lines at every level and plain lines) to the real stderr |
//!
//! Methods the fixture does not serve answer `UNIMPLEMENTED`.
//!
//! # Still to build (needs the cty value codec)
//!
//! Resource behaviour (plan, apply, read, import, data source reads, function calls) and the
//! per-resource value misbehaviour. The intended switch is an optional string attribute
//! `misbehave` on a dedicated resource `fixture_misbehave`, read from the configuration at
//! plan and apply time, so one process can hold well-behaved and misbehaving resources:
//! `plan_differs_from_config`, `apply_changes_known_value`, `unknown_after_apply`,
//! `set_elements_uncorrelated`, `legacy_type_system` (sets the flag on Plan/Apply
//! responses), `error_with_partial_state` (error diagnostic plus a new state).
//!
//! Architecture invariant: the fixture knows nothing about Pulumi or the bridge; it only
//! speaks the public Terraform plugin protocol, so a test that passes against it would pass
//! against a real provider doing the same.

pub mod config;
pub mod convert;
pub mod misbehaviour;
pub mod provider;
mod provider_v5;
mod provider_v6;
pub mod reads;
#[cfg(test)]
mod resource_tests;
pub mod resources;
pub mod rpc;
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
                "fixture_blocks",
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
