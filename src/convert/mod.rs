//! Translation between Pulumi property values and Terraform values.
//!
//! - [`values`]: Pulumi properties ⇄ cty values, driven by the Terraform schema, secrets
//!   split out as paths.
//! - [`paths`]: Terraform attribute paths → Pulumi property paths, for messages and diffs.
//! - [`delta`]: the Go implementation's `__pulumi_raw_state_delta`, from which a resource's
//!   Terraform raw state JSON is rebuilt, so stacks it wrote can be read here.
//!
//! Architecture invariant: no gRPC; Pulumi values come in as [`crate::property`] values.

pub mod delta;
pub mod paths;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
pub mod values;
