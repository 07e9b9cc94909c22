//! Installer tests against loopback HTTPS registries and network mirrors started inside the
//! test process, serving real zips signed with throwaway OpenPGP keys.

mod bad_input;
#[path = "../common/mod.rs"]
mod common;
mod sources;
mod support;
