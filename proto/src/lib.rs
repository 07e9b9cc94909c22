//! Generated Rust types for every wire protocol the bridge speaks.
//!
//! The `.proto` sources next to this crate are this project's own transcriptions of the
//! public protocols (see `proto/README.md` for the versions). This crate only compiles them;
//! it contains no logic.
//!
//! Architecture invariant: the provider crate lets exactly one module touch each protocol:
//! `server` for `pulumirpc`, `tfplugin` for `tfplugin5`/`tfplugin6`/`plugin`/health.

#![allow(clippy::all, clippy::pedantic, missing_docs)]

/// Terraform plugin protocol 5 (5.10).
pub mod tfplugin5 {
    tonic::include_proto!("tfplugin5");
}

/// Terraform plugin protocol 6 (6.10 plus the 6.11 fields).
pub mod tfplugin6 {
    tonic::include_proto!("tfplugin6");
}

/// go-plugin's controller, stdio and broker services.
pub mod goplugin {
    tonic::include_proto!("plugin");
}

/// The standard gRPC health service.
pub mod health {
    tonic::include_proto!("grpc.health.v1");
}

/// The Pulumi resource-provider and engine protocols.
pub mod pulumirpc {
    tonic::include_proto!("pulumirpc");
}

/// Every service's maximum message size, both ways. The Pulumi engine allows 400 MiB, and
/// terraform-plugin-go servers 256 MiB; schemas of the largest providers approach those.
pub const MAX_MESSAGE_SIZE: usize = 400 * 1024 * 1024;
