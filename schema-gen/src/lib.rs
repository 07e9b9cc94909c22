//! Terraform provider schemas, and their translation into Pulumi package schemas.
//!
//! [`tf`] models what a Terraform provider declares: cty types, blocks, attributes, nested
//! blocks and functions, readable from the `terraform providers schema -json` format. It is
//! the lowest layer of the workspace: the provider crate decodes the wire protocol into
//! these types and builds its value codecs on [`tf::Type`].
//!
//! Architecture invariant: this crate does no I/O and knows nothing about gRPC, processes or
//! the Pulumi engine. Translation is a pure function from a Terraform schema to a Pulumi
//! schema plus warnings.

pub mod tf;
