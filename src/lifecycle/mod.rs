//! The resource lifecycle over the Terraform plugin protocol, the way Terraform core runs it.
//!
//! Four floors, one folder each; a module imports only from its own floor or the ones
//! below, no two modules import each other in a circle, and the calls types are
//! implemented only in `calls/` (`tests/hermetic/architecture/` keeps all three):
//!
//! 1. **session** (`session/`, and `startup/` beside it) — [`Session`], the façade:
//!    [`start_provider`] has `startup` obtain, launch and describe the Terraform provider a
//!    process serves (a `Started` value, which `Session::new` takes); the session owns
//!    what the process remembers between the engine's calls, and has one method per
//!    Pulumi operation, each taking one request and calling one operation.
//! 2. **operations** (`operations/`) — each Pulumi operation, run the way Terraform core
//!    runs the same step, as a function over a calls handle: `check`, `diff`, `create`,
//!    `update`, `delete`, `read` and `import` over a [`Resource`]; `provider_config`
//!    (CheckConfig, DiffConfig, Configure), `invoke`, `ephemeral`, `action`, `list`
//!    and `terraform_config` over the [`Connection`]; `write_only` (see
//!    `operations/mod.rs`).
//! 3. **calls** (`calls/`) — [`Connection`], [`Resource`] and the per-kind handles: only
//!    Terraform calls, named in Terraform's words (`plan_resource_change`,
//!    `apply_resource_change`, `configure_provider`, ...), each followed by Terraform
//!    core's checks of its answer; the only code that sends requests.
//! 4. **support** (`support/`) — pure decisions and data: `checks`, `error`, `state` (the
//!    stored-state layout shared with the Go implementation), `identity`, `inputs`,
//!    `proposed_new`, `detailed_diff`, `deferral`, `config_encoding`.
//!
//! Each request type is defined once, beside the operation that takes it (the
//! configuration and Invoke requests beside the session methods), and re-exported once,
//! here.
//!
//! Architecture invariant: no `pulumirpc`, tonic or prost types; the server translates
//! Pulumi requests into these terms and [`LifecycleError`]s into statuses.

mod calls;
mod operations;
mod session;
mod startup;
mod support;
#[cfg(test)]
mod tests;

// What the server and the binaries use; everything else stays inside `lifecycle`.
pub use calls::{Connection, Resource, TokenKind};
pub use operations::action::ActionMode;
pub use operations::check::{Autonaming, CheckRequest};
pub use operations::create::CreateRequest;
pub use operations::delete::DeleteRequest;
pub use operations::diff::DiffRequest;
pub use operations::ephemeral::Closed;
pub use operations::interface::{Checked, Deadline, Diffed, Target, Written};
pub use operations::invoke::Invoked;
pub use operations::list::{ListPage, ListQuery};
pub use operations::read::ReadRequest;
pub use operations::terraform_config::TERRAFORM_CONFIG_METHOD;
pub use operations::update::UpdateRequest;
pub use session::functions::{InvokeRequest, Progress};
pub use session::provider::{ConfigureRequest, DiffConfigRequest};
pub use session::{
    Mapping, MappingError, Session, mapped_providers, mapping, start_provider, start_provider_with_cache,
};
pub use support::checks::CheckFailure;
pub use support::detailed_diff::{DiffKind, PropertyDiff};
pub use support::error::{
    Change, Interruption, LifecycleError, MissingKey, ParameterizeError, PartialFailure, Reported, Subject,
};
