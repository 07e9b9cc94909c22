//! The peer tier, as one test binary (`required-features = ["peer-tests"]`): the tests that
//! need what `scripts/test-tools.sh` builds, i.e. real Terraform providers, the Pulumi CLI
//! with its language hosts and SDKs, the Go implementation or the Terraform CLI.
//! `scripts/test.sh` runs it. Each module is what used to be a test target of its own; a
//! test's name is `<module>::<test>`, e.g.
//! `cargo test --features peer-tests --test peer -- e2e_yaml::random_lifecycle::ours`.
//!
//! The tests share one process: none may change the process's environment or current
//! directory, and each names its scratch directories with `common::scratch_dir`.

#[path = "../common/mod.rs"]
mod common;

// The Go implementation's own tests (bridge v3.136.0 goldens) made against ours: issue 42's conformance tier.
mod conformance;
// Our detailed diffs against `terraform plan` for the same change.
mod diff_terraform;
// Terraform actions as Pulumi functions (tfcoremock) through the CLI and YAML.
mod e2e_actions;
// What the Go implementation fixed or left open, on our bridgecases provider, both implementations.
mod e2e_bridge_cases;
// `pulumi convert --from terraform` onto terraform-provider packages.
mod e2e_convert;
// Deferred changes (tfcoremock's defer_changes): a preview warns, up fails naming the resource.
mod e2e_deferral;
// The muxed dns provider against a throw-away BIND server, YAML, both implementations.
mod e2e_dns;
// The dns provider from TypeScript on a generated SDK, both implementations.
mod e2e_dns_lang;
// Ephemeral resources and write-only arguments through the CLI (ours only).
mod e2e_ephemeral;
// Issue 41's failure paths through the CLI, ours and Go, one stack taken through every row.
mod e2e_failure_paths;
// PULUMI_TF_DEBUG_GRPC through the CLI and the random provider: every call, no secret.
mod e2e_grpc_debug_log;
// Resource identity and list resources (tfcoremock) through the CLI.
mod e2e_identity;
// `pulumi import` with GenerateResourceConfig, and without it as Go derives inputs.
mod e2e_import_generated;
// Installing our plugin from the release archive through the CLI.
mod e2e_install;
// The TypeScript, Python, Go and Java examples' whole lifecycle, both implementations.
mod e2e_lang;
// Bad input in TypeScript, Python and Java programs, in e2e_lang's workspaces.
mod e2e_lang_errors;
// Both implementations on one TypeScript stack, each carrying on the other's state.
mod e2e_lang_interop;
// An SDKv2 provider (mysql) against a throw-away MariaDB, YAML, both implementations.
mod e2e_mysql;
// The mysql provider from TypeScript on a generated SDK, both implementations.
mod e2e_mysql_lang;
// What the newest Pulumi CLI's engine asks of a provider, both implementations.
mod e2e_newest_cli;
// OpenTelemetry traces through the newest CLI's `--otel-traces`.
mod e2e_otel_traces;
// `pulumi package add` by registry name (offline mirror), get-schema, a program using it.
mod e2e_package;
// `pulumi up --parallel 64` of 200 resources, and Cancel, both implementations.
mod e2e_parallel;
// A TypeScript program whose dependencies pnpm installs, on the newest CLI.
mod e2e_pnpm;
// A plugin-framework provider (restful) against a throw-away PowerDNS, YAML, both implementations.
mod e2e_restful;
// The restful provider from TypeScript on a generated SDK, both implementations.
mod e2e_restful_lang;
// The schema cache through the CLI: warm starts, and every kind of bad cache.
mod e2e_schema_cache;
// `pulumi package gen-sdk` for four languages on real providers, once with each implementation.
mod e2e_sdk_gen;
// hashicorp/tls and hashicorp/http through a whole lifecycle, and http's binary body.
mod e2e_utility;
// The Pulumi YAML examples' whole lifecycle through the CLI.
mod e2e_yaml;
// Bad input through the CLI: each error carries what each implementation says.
mod e2e_yaml_errors;
// Installer tests that need the real random provider (loopback registry, Parameterize).
mod installer_random;
// The fixture's misbehaving creates through both implementations.
mod lifecycle_fixture_go;
// The lifecycle through our binary and the stand-in engine, against real providers.
mod lifecycle_real;
// The List RPC and identity import against tfcoremock, via the stand-in engine.
mod identity_list_real;
// GetMapping(s): the same bytes as the Go implementation's.
mod mapping;
// Parameterize attaching to a running provider instead of installing it.
mod parameterize_reattach;
// Parameterize and GetSchema through the binary with the real random provider.
mod parameterize_schema_real;
// Our package schemas against the Go implementation's, live.
mod schema_anchor;
// schema-gen prints exactly what GetSchema serves, with a real provider.
mod schema_gen_cli_real;
// Package-schema goldens of the real random, null and local providers.
mod schema_golden_real;
// `pulumi schema check` accepts our schemas.
mod schema_pulumi_check;
// State written by the Go implementation read by ours with no diff, and the other way round.
mod state_interop;
// The provider resource's terraformConfig method, the same as Go's.
mod terraform_config;
// No provider outlives its launcher, even one killed with SIGKILL.
mod tfplugin_orphans;
// Real providers launched as Terraform launches them: schema, metadata, functions, shutdown.
mod tfplugin_real;
// Every RPC of the protocol-neutral client against real providers.
mod tfplugin_rpcs;
