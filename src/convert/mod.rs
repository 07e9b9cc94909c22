//! Translation between Pulumi property values and Terraform values.
//!
//! Being built (issue 4, part 4). So far: [`raw_state`], which rebuilds a resource's
//! Terraform raw state JSON from the outputs and `__pulumi_raw_state_delta` that the Go
//! implementation stores, so stacks it wrote can be read here.
//!
//! Architecture invariant: no gRPC; Pulumi values come in as [`crate::property`] values.

pub mod paths;
#[cfg(test)]
mod proptests;
pub mod raw_state;
#[cfg(test)]
mod tests;
pub mod values;
