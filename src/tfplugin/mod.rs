//! Launching Terraform providers and talking to them over protocol 5 or 6, exactly as
//! Terraform and OpenTofu do.
//!
//! - [`launch`] starts a provider executable with go-plugin's environment (magic cookie,
//!   protocol versions, auto-mTLS client certificate), reads the handshake line
//!   ([`handshake`]), connects gRPC over the unix socket or TCP with a pinned-certificate
//!   TLS client ([`tls`]), and keeps draining stderr and GRPCStdio into tracing (`output`).
//!   [`reattach()`] connects to a provider started elsewhere (`TF_REATTACH_PROVIDERS`, see
//!   [`mod@reattach`]).
//! - [`ProviderClient`] is the protocol-neutral interface the rest of the bridge calls:
//!   requests and responses are the domain types in [`types`]; values cross it as encoded
//!   [`DynamicValue`] bytes; schemas arrive as `schema_gen::tf::ProviderSchema`.
//! - No provider process outlives us (`process`): parent-death signal, own process group,
//!   kill on drop.
//!
//! Architecture invariant: the only module that touches the tfplugin5/tfplugin6/go-plugin
//! wire types (only `v5`, `v6`, `wire`, `terraform_1_14` and `launch` name them); knows nothing about Pulumi
//! and does not decode values (that is `cty`'s job).

mod client;
pub mod ephemeral;
mod error;
pub mod handshake;
pub mod identity_list;
mod launch;
mod output;
mod process;
pub mod reattach;
mod terraform_1_14;
pub mod tls;
mod transport;
pub mod types;
mod v5;
mod v6;
mod wire;
mod wire_client;
mod wire_identity_list;

pub use client::{ListEvents, ProviderClient};
pub use error::{CallError, LaunchError, ProcessExit};
pub use handshake::{PluginAddress, ProtocolVersion};
pub use launch::{LaunchConfig, MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE, launch, reattach};
pub use terraform_1_14::ActionEvents;
pub use types::{DynamicValue, Support};
pub use wire::SchemaError;
