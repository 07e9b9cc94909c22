//! The hermetic tier, as one test binary: `cargo test --workspace` runs it on any machine
//! with Rust alone (no Go, no network, no peers). Each module is what used to be a test
//! target of its own; a test's name is `<module>::<test>`, e.g.
//! `cargo test --test hermetic -- plugin_process::`.
//!
//! A test that needs a peer belongs in `tests/peer/`; `tiers.rs` keeps the two apart.

#[path = "../common/mod.rs"]
mod common;

mod debug_log_golden;
mod file_size;
mod go_answers;
mod identity_list_fixture;
mod installer;
mod lifecycle_fixture;
mod lifecycle_planned_private;
mod lifecycle_recovery;
#[cfg(unix)]
mod node_modules_link;
mod otel_traces;
mod parameterize_schema;
mod plugin_process;
mod schema_cache_lazy;
mod schema_gen_cli;
mod schema_golden;
mod tfplugin_fixture;
// Its stand-in provider is a shell script that points at a unix socket.
#[cfg(unix)]
mod tfplugin_goplugin_services;
mod tfplugin_launch;
mod tiers;
