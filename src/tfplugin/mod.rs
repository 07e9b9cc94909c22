//! Launching Terraform providers and talking to them over protocol 5 or 6.
//!
//! Architecture invariant: the only module that touches the tfplugin5/tfplugin6/go-plugin
//! wire types; knows nothing about Pulumi.
