//! The installer tests of tests/installer/ that need the real random provider built by
//! `scripts/test-tools.sh providers` (a peer-tier test): installed from a loopback registry,
//! and Parameterize installing it as the engine runs it.

#[path = "../common/mod.rs"]
mod common;
mod parameterize;
mod sources;
#[path = "../installer/support/mod.rs"]
#[allow(dead_code)] // The installer tests use the rest.
mod support;
