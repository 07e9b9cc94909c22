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

mod conformance;
mod diff_terraform;
mod e2e_actions;
mod e2e_bridge_cases;
mod e2e_convert;
mod e2e_deferral;
mod e2e_dns;
mod e2e_dns_lang;
mod e2e_ephemeral;
mod e2e_grpc_debug_log;
mod e2e_identity;
mod e2e_import_generated;
mod e2e_install;
mod e2e_lang;
mod e2e_lang_errors;
mod e2e_lang_interop;
mod e2e_mysql;
mod e2e_mysql_lang;
mod e2e_newest_cli;
mod e2e_otel_traces;
mod e2e_package;
mod e2e_parallel;
mod e2e_pnpm;
mod e2e_restful;
mod e2e_restful_lang;
mod e2e_schema_cache;
mod e2e_sdk_gen;
mod e2e_yaml;
mod e2e_yaml_errors;
mod installer_random;
mod lifecycle_fixture_go;
mod lifecycle_real;
mod list_identity_real;
mod mapping;
mod parameterize_reattach;
mod parameterize_schema_real;
mod schema_anchor;
mod schema_gen_cli_real;
mod schema_golden_real;
mod schema_pulumi_check;
mod state_interop;
mod terraform_config;
mod tfplugin_orphans;
mod tfplugin_real;
mod tfplugin_rpcs;
