//! The support floor: pure decisions and data the operations and calls share, none of which
//! calls the provider.
//!
//! - `checks`: the checks Terraform core makes of the provider's answers, as pure functions
//!   with table tests;
//! - `error`: [`LifecycleError`] and the words it is made of;
//! - `state`: the stored-state layout shared with the Go implementation;
//! - `identity`: resource identities (import by identity, their stored text);
//! - `inputs`: Pulumi inputs from and to Terraform values (sensitive marks, computed-only
//!   attributes, inputs from outputs);
//! - `proposed_new`: the proposed new state sent with every `PlanResourceChange`, and the
//!   data-source plan Terraform core makes itself;
//! - `detailed_diff`: what changes, in Pulumi property paths;
//! - `deferral`: the words for Terraform's deferral reasons;
//! - `config_encoding`: provider settings as the Go implementation stores them;
//! - `failed_apply`: what a failed Create or Update leaves in the stack;
//! - `after_plan`: what follows a create's or update's plan (preview, refusal, NoOp or
//!   apply).
//!
//! Architecture invariant: imports nothing from the floors above (session, operations,
//! calls); no provider calls.
//!
//! [`LifecycleError`]: error::LifecycleError

pub(super) mod after_plan;
pub(super) mod checks;
pub(super) mod config_encoding;
pub(super) mod deferral;
pub(super) mod detailed_diff;
pub(super) mod error;
pub(super) mod failed_apply;
pub(super) mod identity;
pub(super) mod inputs;
pub(super) mod proposed_new;
pub(super) mod state;
