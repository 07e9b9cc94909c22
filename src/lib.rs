//! The library behind `pulumi-resource-terraform-provider`: a parameterized Pulumi
//! resource provider that drives any Terraform provider over the Terraform plugin protocol.
//!
//! See ARCHITECTURE.md for the map of modules and the one direction of dependency between
//! them. In short: `server` speaks Pulumi's gRPC protocol and calls into `lifecycle`, which
//! drives a Terraform provider through `tfplugin`, with values translated by `convert`
//! between Pulumi property values (`property`) and cty values (`cty`).

pub mod convert;
pub mod cty;
pub mod installer;
pub mod invariants;
pub mod lifecycle;
pub mod parameterize;
pub mod property;
pub mod server;
pub mod tfplugin;

#[cfg(test)]
mod testutil;
