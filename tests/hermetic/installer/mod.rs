//! Installer tests against loopback HTTPS registries and network mirrors started inside the
//! test process (`common::registry`), serving real zips signed with throwaway OpenPGP keys.

mod bad_input;
mod sources;
