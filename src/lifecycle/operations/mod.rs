//! The operations floor: each Pulumi operation run the way Terraform core runs the same
//! step, as a function over the calls handle it works on ([`Resource`] for a resource
//! type, [`Connection`] for the provider) and what the session remembers for it. The
//! `Session` façade calls one function per operation; a definition search for an
//! operation lands in the file that runs it.
//!
//! - resources: `check` (auto-naming, ValidateResourceConfig), `diff`, `create`, `update`,
//!   `delete`, `read` (refresh) and `import`; `prior` holds the prior state Diff, Update,
//!   Delete and refresh plan from, `plan_and_apply` Create's and Update's shared plan and
//!   apply, `interface` the requests' and results' types, `memory` what the process
//!   remembers between operations (plans, generated names), and `values` the handle's
//!   conversions (inputs to configuration, state to outputs);
//! - `write_only`: write-only arguments, held back from the recorded inputs;
//! - `provider_config`: CheckConfig, DiffConfig and Configure;
//! - `invoke`: data sources and provider-defined functions;
//! - `ephemeral`: ephemeral resources as functions: open, renew, close at the end;
//! - `action`: Terraform actions, invoked as functions (planned in a preview, run in an
//!   update);
//! - `list`: the `List` RPC's pages over a Terraform list resource;
//! - `terraform_config`: the provider resource's `terraformConfig` method.
//!
//! Architecture invariant: operations compose calls and never build a request; they never
//! import the session, and no operation file imports another in a circle.
//!
//! [`Resource`]: crate::lifecycle::calls::Resource
//! [`Connection`]: crate::lifecycle::calls::Connection

pub(super) mod action;
pub(super) mod check;
pub(super) mod create;
pub(super) mod delete;
pub(super) mod diff;
pub(super) mod ephemeral;
pub(super) mod import;
pub(super) mod interface;
pub(super) mod invoke;
pub(super) mod list;
pub(super) mod memory;
pub(super) mod plan_and_apply;
pub(super) mod prior;
pub(super) mod provider_config;
pub(super) mod read;
pub(super) mod terraform_config;
pub(super) mod update;
pub(super) mod values;
pub(super) mod write_only;
