//! The resource lifecycle over the Terraform plugin protocol, the way Terraform core runs it.
//!
//! Being built (issue 6). So far: [`parameterize`], which obtains, launches and describes the
//! Terraform provider a process serves ([`Parameterized`], whose `package_schema` is
//! GetSchema); [`proposed_new`], the proposed new state sent with every
//! `PlanResourceChange`; and the data-source plan Terraform core makes itself.
//!
//! Architecture invariant: no `pulumirpc`, tonic or prost types; the server translates
//! Pulumi requests into these terms.

mod parameterized;
mod proposed_new;
#[cfg(test)]
mod tests;

pub use parameterized::{ParameterizeError, Parameterized, parameterize};
pub use proposed_new::{planned_data_source_object, proposed_new};
