//! The resource lifecycle over the Terraform plugin protocol, the way Terraform core runs it.
//!
//! - [`start_provider`] obtains, launches and describes the Terraform provider a process
//!   serves ([`Parameterized`], whose `package_schema` is GetSchema).
//! - `calls`: every provider call, each followed by Terraform core's checks of its answer;
//!   the only code that sends requests ([`Resource`] for a resource's calls, [`Parameterized`]
//!   for the provider's, its data sources' and its functions').
//! - `checks`: the decisions those checks make, as pure functions with table tests.
//! - `resource`: Check, Diff, Create, Update, Delete and Read on top of those calls.
//! - `provider_config`: CheckConfig, DiffConfig and Configure.
//! - `invoke`: data sources and provider-defined functions.
//! - `ephemeral`: ephemeral resources as functions: open, renew, close at the end.
//! - `action`: Terraform actions, invoked as functions (planned in a preview, run in an update).
//! - `terraform_config`: the provider resource's `terraformConfig` method.
//! - `proposed_new`: the proposed new state sent with every `PlanResourceChange`, and the
//!   data-source plan Terraform core makes itself.
//! - `write_only`: write-only arguments, held back from the recorded inputs.
//! - `state`: the stored-state layout shared with the Go implementation.
//! - `identity`: resource identity decisions (stored versions, returned identities, import
//!   by identity JSON); `list`: the `List` RPC's pages over a Terraform list resource.
//!
//! Architecture invariant: no `pulumirpc`, tonic or prost types; the server translates
//! Pulumi requests into these terms and [`LifecycleError`]s into statuses.

mod action;
mod calls;
mod checks;
mod config_encoding;
mod deferral;
mod detailed_diff;
mod ephemeral;
mod error;
mod identity;
pub(crate) mod inputs;
mod invoke;
mod list;
mod parameterized;
mod proposed_new;
mod provider_config;
mod resource;
mod schema_source;
mod state;
mod terraform_config;
#[cfg(test)]
mod tests;
mod write_only;

// What the server and the binaries use; everything else stays inside `lifecycle`.
pub use action::{ActionMode, ActionRun};
pub use calls::Resource;
pub use checks::CheckFailure;
pub use detailed_diff::{DiffKind, PropertyDiff};
pub use ephemeral::Closed;
pub use error::{Change, Interruption, LifecycleError, Operation, PartialFailure, Reported, Subject};
pub use invoke::Invoked;
pub use list::{ListPage, ListQuery, ListSessions};
pub use parameterized::{ParameterizeError, Parameterized, start_provider, start_provider_with_cache};
pub(crate) use proposed_new::{planned_data_source_object, proposed_new};
pub use provider_config::{ConfigChecked, MissingKey};
pub use resource::{Autonaming, Checked, Diffed, PlanCache, Written};
pub use terraform_config::TERRAFORM_CONFIG_METHOD;
pub use write_only::WriteOnlyInputs;
