//! Finding, downloading, verifying and caching Terraform provider binaries.
//!
//! Architecture invariant: knows nothing about Pulumi's protocol or about running providers.
