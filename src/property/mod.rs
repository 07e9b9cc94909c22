//! Pulumi property values and their `google.protobuf.Struct` encoding.
//!
//! Architecture invariant: knows nothing about Terraform.
