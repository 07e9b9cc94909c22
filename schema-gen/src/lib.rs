//! Terraform provider schemas, and their translation into Pulumi package schemas.
//!
//! [`tf`] models what a Terraform provider declares: cty types, blocks, attributes, nested
//! blocks and functions, readable from the `terraform providers schema -json` format. It is
//! the lowest layer of the workspace: the provider crate decodes the wire protocol into
//! these types and builds its value codecs on [`tf::Type`].
//!
//! [`translate`] turns a [`tf::ProviderSchema`] into a [`pulumi::PackageSpec`] plus
//! warnings, following the Go implementation's rules so that generated SDKs are
//! interchangeable. [`translate::ProviderNames`] exposes the naming decisions (tokens,
//! property names, MaxItems=1 flattening, the resource ID source) so that the runtime's
//! value translation applies exactly the same names. [`naming`] holds the string rules.
//!
//! Architecture invariant: this crate does no I/O and knows nothing about gRPC, processes or
//! the Pulumi engine. Translation is a pure function from a Terraform schema to a Pulumi
//! schema plus warnings.

pub mod mapping;
pub mod naming;
pub mod pulumi;
pub mod tf;
pub mod translate;
