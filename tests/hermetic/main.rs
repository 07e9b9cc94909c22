//! The hermetic tier, as one test binary: `cargo test --workspace` runs it on any machine
//! with Rust alone (no Go, no network, no peers). Each module is what used to be a test
//! target of its own; a test's name is `<module>::<test>`, e.g.
//! `cargo test --test hermetic -- plugin_process::`.
//!
//! A test that needs a peer belongs in `tests/peer/`; `tiers.rs` keeps the two apart.

#[path = "../common/mod.rs"]
mod common;

// The plan of the house: ARCHITECTURE.md's module diagram, no circle in any folder, lifecycle's floors.
mod architecture;
// PULUMI_TF_DEBUG_GRPC's lines for a fixed call sequence against the fixture, byte for byte.
mod debug_log_golden;
// No Rust source over 600 lines.
mod file_size;
// Where ours answers as the Go implementation's own tests expect (issue 42): schema, reads, previews.
mod go_answers;
// Identity and list-resource failures the fixture provider makes on demand, via the stand-in engine.
mod identity_list_fixture;
// The installer against loopback TLS registries and network mirrors serving signed zips.
mod installer;
// Issue 41's failure paths, one test a row of docs/failure-paths.md: what is recorded, what is shown.
mod lifecycle_failure_paths;
// The lifecycle against the fixture provider: each broken plan or apply invariant, a crash, a stop.
mod lifecycle_fixture;
// Planned private bytes (protocol 6.11) carried from Diff's plan to the apply-time plan.
mod lifecycle_planned_private;
// After a failed update or apply, as Terraform recovers (issue 28), against the fixture.
mod lifecycle_recovery;
// The TypeScript workspaces' node_modules: hard links to the shared cache, top files copied.
#[cfg(unix)]
mod node_modules_link;
// OpenTelemetry spans our plugin sends to a loopback OTLP collector.
mod otel_traces;
// Parameterize through the real binary: bad parameters are clear errors.
mod parameterize_schema;
// The plugin binary started as the engine starts it, called over real gRPC.
mod plugin_process;
// Warm starts against the fixture: the schema cache decodes only what a program uses.
mod schema_cache_lazy;
// The schema-gen binary: the Terraform schema it reads, and its errors.
mod schema_gen_cli;
// Whole package-schema goldens of the fixture provider, protocols 5 and 6.
mod schema_golden;
// The protocol-neutral client's calls against the fixture provider, protocols 5 and 6.
mod tfplugin_fixture;
// go-plugin's GRPCStdio and GRPCController against a shell-script stand-in (unix: it points at a unix socket).
#[cfg(unix)]
mod tfplugin_goplugin_services;
// Launching bad providers (shell scripts): an error naming the executable, never a hang.
mod tfplugin_launch;
// The two tiers stay apart: mod lines, e2e_ modules, peers, process-wide changes.
mod tiers;
