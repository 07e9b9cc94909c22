//! The resource lifecycle over the Terraform plugin protocol, the way Terraform core runs it.
//!
//! Being built (issue 6). So far: [`proposed_new`], the proposed new state sent with every
//! `PlanResourceChange`, and the data-source plan Terraform core makes itself.
//!
//! Architecture invariant: no `pulumirpc`, tonic or prost types; the server translates
//! Pulumi requests into these terms.

mod proposed_new;
#[cfg(test)]
mod tests;

pub use proposed_new::{planned_data_source_object, proposed_new};
