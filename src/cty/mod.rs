//! cty values: the Terraform value model, and its msgpack and JSON encodings.
//!
//! Architecture invariant: knows nothing about Pulumi or gRPC.
