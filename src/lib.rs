//! The library behind `pulumi-resource-terraform-provider`: a parameterized Pulumi
//! resource provider that drives any Terraform provider over the Terraform plugin protocol.
//!
//! See ARCHITECTURE.md for the map of modules and the one direction of dependency between
//! them. The modules public here are those the binaries, tests, benchmarks and fuzz targets
//! use; `invariants` is internal to the lifecycle checks. In short: `server` speaks Pulumi's gRPC protocol and calls into `lifecycle`, which
//! drives a Terraform provider through `tfplugin`, with values translated by `convert`
//! between Pulumi property values (`property`) and cty values (`cty`).

pub mod convert;
pub mod cty;
pub mod installer;
mod invariants;
pub mod lifecycle;
pub mod parameterize;
pub mod property;
pub mod schema_cache;
pub mod server;
pub mod telemetry;
pub mod tfplugin;

#[cfg(test)]
mod testutil;
