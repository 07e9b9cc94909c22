//! Launching Terraform providers and talking to them over protocol 5 or 6, exactly as
//! Terraform and OpenTofu do.
//!
//! - [`launch`] starts a provider executable with go-plugin's environment (magic cookie,
//!   protocol versions, auto-mTLS client certificate), reads the handshake line
//!   ([`handshake`]), connects gRPC over the unix socket or TCP with a pinned-certificate
//!   TLS client ([`tls`]), and keeps draining stderr and GRPCStdio into tracing (`output`).
//!   [`reattach()`] connects to a provider started elsewhere (`TF_REATTACH_PROVIDERS`, see
//!   [`mod@reattach`]).
//! - [`ProviderClient`] is the protocol-neutral interface the rest of the bridge calls,
//!   one method per RPC; [`Rpc`] names every RPC, once.
//! - One layout per RPC family: a folder whose `mod.rs` holds the family's
//!   protocol-neutral requests and answers, and whose `wire.rs` holds one macro, the wire
//!   conversions and client methods of the family, expanded inside `v5` and `v6` (where
//!   `pb` names that protocol's generated messages). The families: [`core_rpcs`] (the
//!   core RPCs: the provider, resources, data sources, functions; and the types every
//!   family shares), [`ephemeral`], [`identity_list`] and [`actions`] (actions
//!   and GenerateResourceConfig). `v5.rs` and `v6.rs` hold only what differs between the
//!   protocols. Values cross as encoded [`DynamicValue`] bytes; schemas arrive as
//!   `schema_gen::tf::ProviderSchema`.
//! - No provider process outlives us (`process`): parent-death signal, own process group,
//!   kill on drop, and go-plugin's polite shutdown.
//!
//! Dependencies inside point one way: `client` → `v5`/`v6` → each family's `wire` → the
//! family's types; `launch` → `client` → `process`.
//!
//! Architecture invariant: the only module that touches the tfplugin5/tfplugin6/go-plugin
//! wire types (only `v5`, `v6`, the families' `wire`, `launch` and `process` name them);
//! knows nothing about Pulumi and does not decode values (that is `cty`'s job).

pub mod actions;
mod client;
pub mod core_rpcs;
pub mod ephemeral;
mod error;
pub mod handshake;
pub mod identity_list;
mod launch;
mod output;
mod process;
pub mod reattach;
mod rpc;
pub mod tls;
mod transport;
mod v5;
mod v6;
mod wire_method;

pub use actions::ActionEvents;
pub use client::{ListEvents, ProviderClient};
pub use core_rpcs::{DynamicValue, Support};
pub use error::{CallError, LaunchError, ProcessExit, SchemaError};
pub use handshake::{PluginAddress, ProtocolVersion};
pub use launch::{LaunchConfig, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, launch, reattach, resolve_executable};
pub use rpc::Rpc;
