//! The resource lifecycle over the Terraform plugin protocol, the way Terraform core runs it.
//!
//! Four layers; a module imports only from its own layer or the ones below (the
//! `layering` test keeps this, and that no two modules import each other in a circle):
//!
//! 1. **session** — [`Session`]: [`start_provider`] obtains, launches and describes the
//!    Terraform provider a process serves; the session owns what the process remembers
//!    between the engine's calls, and has one method per Pulumi operation, each taking one
//!    request (see `session/`).
//! 2. **operations** — each Pulumi operation run the way Terraform core runs the same step,
//!    on a [`Connection`] or a handle made from it:
//!    - `resource`: Check, Diff, Create, Update, Delete and Read (on [`Resource`]);
//!    - `provider_config`: CheckConfig, DiffConfig and Configure;
//!    - `invoke`: data sources and provider-defined functions;
//!    - `ephemeral`: ephemeral resources as functions: open, renew, close at the end;
//!    - `action`: Terraform actions, invoked as functions (planned in a preview, run in an
//!      update);
//!    - `list`: the `List` RPC's pages over a Terraform list resource;
//!    - `terraform_config`: the provider resource's `terraformConfig` method;
//!    - `write_only`: write-only arguments, held back from the recorded inputs;
//!    - `schema_source`: the schema at start-up, from the schema cache or the provider.
//! 3. **calls** — [`Connection`]: every provider call, each followed by Terraform core's
//!    checks of its answer; the only code that sends requests.
//! 4. **support** — pure decisions and data: `checks` (the checks' decisions, as pure
//!    functions with table tests), `error`, `state` (the stored-state layout shared with the
//!    Go implementation), `identity`, `inputs`, `proposed_new` (the proposed new state sent
//!    with every `PlanResourceChange`, and the data-source plan Terraform core makes
//!    itself), `detailed_diff`, `deferral`, `config_encoding`.
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
#[cfg(test)]
mod layering;
mod list;
mod proposed_new;
mod provider_config;
mod resource;
mod schema_source;
mod session;
mod state;
mod terraform_config;
#[cfg(test)]
mod tests;
mod write_only;

// What the server and the binaries use; everything else stays inside `lifecycle`.
pub use action::ActionMode;
pub use calls::{Connection, Resource, TokenKind};
pub use checks::CheckFailure;
pub use detailed_diff::{DiffKind, PropertyDiff};
pub use ephemeral::Closed;
pub use error::{
    Change, Interruption, LifecycleError, MissingKey, Operation, ParameterizeError, PartialFailure, Reported, Subject,
};
pub use invoke::Invoked;
pub use list::{ListPage, ListQuery};
pub(crate) use proposed_new::proposed_new;
pub use resource::{Autonaming, Checked, Deadline, Diffed, Target, Written};
pub use session::{
    CheckRequest, ConfigureRequest, CreateRequest, DeleteRequest, DiffConfigRequest, DiffRequest, InvokeRequest,
    Mapping, MappingError, Progress, ReadRequest, Session, UpdateRequest, mapped_providers, mapping, start_provider,
    start_provider_with_cache,
};
pub use terraform_config::TERRAFORM_CONFIG_METHOD;
