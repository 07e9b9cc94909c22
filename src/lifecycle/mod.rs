//! The resource lifecycle over the Terraform plugin protocol, the way Terraform core runs it.
//!
//! - [`parameterize`] obtains, launches and describes the Terraform provider a process
//!   serves ([`Parameterized`], whose `package_schema` is GetSchema).
//! - `calls`: each provider call of a resource operation followed by Terraform core's checks
//!   of its answer ([`Resource`]).
//! - `resource`: Check, Diff, Create, Update, Delete and Read on top of those calls.
//! - `provider_config`: CheckConfig, DiffConfig and Configure.
//! - `invoke`: data sources and provider-defined functions.
//! - `terraform_config`: the provider resource's `terraformConfig` method.
//! - [`proposed_new`]: the proposed new state sent with every `PlanResourceChange`, and the
//!   data-source plan Terraform core makes itself.
//! - `state`: the stored-state layout shared with the Go implementation.
//!
//! Architecture invariant: no `pulumirpc`, tonic or prost types; the server translates
//! Pulumi requests into these terms and [`LifecycleError`]s into statuses.

mod calls;
mod detailed_diff;
mod error;
mod invoke;
mod parameterized;
mod proposed_new;
mod provider_config;
mod resource;
pub mod state;
mod terraform_config;
#[cfg(test)]
mod tests;
pub(crate) mod values;

pub use calls::{Resource, STOP_GRACE};
pub use detailed_diff::{DiffKind, PropertyDiff};
pub use error::{Interruption, LifecycleError, PartialFailure, Reported};
pub use invoke::Invoked;
pub use parameterized::{ParameterizeError, Parameterized, TokenKind, parameterize};
pub use proposed_new::{planned_data_source_object, proposed_new};
pub use provider_config::{ConfigChecked, MissingKey};
pub use resource::{Autonaming, CheckFailure, Checked, Diffed, PlanCache, Written};
pub use terraform_config::TERRAFORM_CONFIG_METHOD;
