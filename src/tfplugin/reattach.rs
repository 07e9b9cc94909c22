//! Attaching to providers that are already running, for debugging: Terraform's
//! `TF_REATTACH_PROVIDERS` format, also read from `PULUMI_BRIDGE_REATTACH_PROVIDERS` (the
//! name the Go bridge uses), which wins when both are set.
//!
//! ```json
//! {"registry.terraform.io/hashicorp/aws": {"Protocol": "grpc", "ProtocolVersion": 6, "Pid": 123,
//!   "Test": true, "Addr": {"Network": "unix", "String": "/tmp/plugin123"}}}
//! ```
//! Keys are provider source addresses; `hashicorp/aws` means `registry.terraform.io/hashicorp/aws`.
//! A reattached provider is reached without TLS and is never stopped or killed by us.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use super::handshake::{PluginAddress, ProtocolVersion};

/// The environment variables read, in order of precedence.
pub const REATTACH_ENV_VARS: [&str; 2] = ["PULUMI_BRIDGE_REATTACH_PROVIDERS", "TF_REATTACH_PROVIDERS"];

const DEFAULT_REGISTRY_HOST: &str = "registry.terraform.io";

/// One provider to attach to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReattachConfig {
    pub protocol: ProtocolVersion,
    pub address: PluginAddress,
    /// The provider's process id, informational only: we never signal it.
    pub pid: Option<u32>,
}

/// Why a reattach setting could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ReattachError {
    /// The variable's value is not the expected JSON.
    #[error("{variable} is not valid reattach JSON: {source}")]
    Json { variable: String, source: serde_json::Error },
    /// An entry asks for something the bridge cannot do.
    #[error("{variable} entry {provider:?}: {reason}")]
    Entry { variable: String, provider: String, reason: String },
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Entry {
    #[serde(default)]
    protocol: Option<String>,
    #[serde(default)]
    protocol_version: u32,
    #[serde(default)]
    pid: Option<u32>,
    addr: Address,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Address {
    network: String,
    string: String,
}

/// Normalizes a provider source address for matching: case-insensitive, `hashicorp/aws`
/// means `registry.terraform.io/hashicorp/aws`, and `registry.opentofu.org` counts as the
/// same host. The last is deliberate: a debug-mode provider always prints the Terraform
/// registry's host, while the bridge (like the Go implementation) may resolve providers
/// from OpenTofu's registry; for attaching a debugger the two mean the same provider.
pub fn normalize_source_address(address: &str) -> String {
    let lower = address.trim().to_ascii_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    match parts.as_slice() {
        [namespace, name] => format!("{DEFAULT_REGISTRY_HOST}/{namespace}/{name}"),
        ["registry.opentofu.org", namespace, name] => format!("{DEFAULT_REGISTRY_HOST}/{namespace}/{name}"),
        _ => lower,
    }
}

/// Parses one reattach JSON value; `variable` names its source in errors.
pub fn parse_reattach_providers(variable: &str, json: &str) -> Result<BTreeMap<String, ReattachConfig>, ReattachError> {
    let entries: BTreeMap<String, Entry> =
        serde_json::from_str(json).map_err(|source| ReattachError::Json { variable: variable.to_owned(), source })?;
    let mut configs = BTreeMap::new();
    for (provider, entry) in entries {
        let entry_error =
            |reason: String| ReattachError::Entry { variable: variable.to_owned(), provider: provider.clone(), reason };
        if let Some(protocol) = entry.protocol.as_deref()
            && !protocol.is_empty()
            && protocol != "grpc"
        {
            return Err(entry_error(format!("protocol {protocol:?} is not supported (only grpc)")));
        }
        // Terraform reads 0 (absent) as protocol 5.
        let version = if entry.protocol_version == 0 { 5 } else { entry.protocol_version };
        let protocol = ProtocolVersion::from_number(version)
            .ok_or_else(|| entry_error(format!("protocol version {version} is not supported (5 or 6)")))?;
        let address = match entry.addr.network.as_str() {
            "unix" => PluginAddress::Unix(PathBuf::from(&entry.addr.string)),
            "tcp" => PluginAddress::Tcp(
                entry
                    .addr
                    .string
                    .parse()
                    .map_err(|_| entry_error(format!("invalid tcp address {:?}", entry.addr.string)))?,
            ),
            other => return Err(entry_error(format!("network {other:?} is not supported (unix or tcp)"))),
        };
        configs.insert(normalize_source_address(&provider), ReattachConfig { protocol, address, pid: entry.pid });
    }
    Ok(configs)
}

/// Looks `source_address` up in the reattach variables of this process's environment.
pub fn reattach_config_from_env(source_address: &str) -> Result<Option<ReattachConfig>, ReattachError> {
    reattach_config_from_vars(source_address, |variable| std::env::var(variable).ok())
}

/// [`reattach_config_from_env`] over any variable lookup. The first variable of
/// [`REATTACH_ENV_VARS`] that is set and non-empty decides, even if it lacks the provider:
/// a user who set it means "these providers", as with Terraform's single variable.
pub fn reattach_config_from_vars(
    source_address: &str,
    lookup: impl Fn(&str) -> Option<String>,
) -> Result<Option<ReattachConfig>, ReattachError> {
    for variable in REATTACH_ENV_VARS {
        let Some(json) = lookup(variable) else { continue };
        if json.trim().is_empty() {
            continue;
        }
        let mut configs = parse_reattach_providers(variable, &json)?;
        return Ok(configs.remove(&normalize_source_address(source_address)));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    #[track_caller]
    fn check(json: &str, expect: Expect) {
        let actual = crate::testutil::shown(parse_reattach_providers("TF_REATTACH_PROVIDERS", json), |configs| {
            configs
                .iter()
                .map(|(key, config)| {
                    format!("{key}: v{} {} pid={:?}", config.protocol.number(), config.address, config.pid)
                })
                .collect::<Vec<_>>()
                .join("\n")
        });
        expect.assert_eq(&actual);
    }

    #[test]
    fn reattach_json() {
        check(
            r#"{"registry.terraform.io/hashicorp/aws":{"Protocol":"grpc","ProtocolVersion":6,"Pid":123,"Test":true,"Addr":{"Network":"unix","String":"/tmp/plugin123"}},
                "hashicorp/Random":{"Addr":{"Network":"tcp","String":"127.0.0.1:1234"}}}"#,
            expect![[r#"
                registry.terraform.io/hashicorp/aws: v6 unix:/tmp/plugin123 pid=Some(123)
                registry.terraform.io/hashicorp/random: v5 tcp:127.0.0.1:1234 pid=None"#]],
        );
        check(
            r#"{"a/b":{"Protocol":"netrpc","Addr":{"Network":"unix","String":"/x"}}}"#,
            expect![[r#"error: TF_REATTACH_PROVIDERS entry "a/b": protocol "netrpc" is not supported (only grpc)"#]],
        );
        check(
            r#"{"a/b":{"ProtocolVersion":4,"Addr":{"Network":"unix","String":"/x"}}}"#,
            expect![[r#"error: TF_REATTACH_PROVIDERS entry "a/b": protocol version 4 is not supported (5 or 6)"#]],
        );
        check(
            r#"{"a/b":{"Addr":{"Network":"udp","String":"/x"}}}"#,
            expect![[r#"error: TF_REATTACH_PROVIDERS entry "a/b": network "udp" is not supported (unix or tcp)"#]],
        );
        check(
            r#"[1]"#,
            expect![[
                r#"error: TF_REATTACH_PROVIDERS is not valid reattach JSON: invalid type: sequence, expected a map at line 1 column 0"#
            ]],
        );
    }

    #[test]
    fn the_bridge_variable_wins_and_addresses_are_normalized() {
        let vars = |variable: &str| match variable {
            "PULUMI_BRIDGE_REATTACH_PROVIDERS" => {
                Some(r#"{"hashicorp/random":{"ProtocolVersion":6,"Addr":{"Network":"unix","String":"/a"}}}"#.to_owned())
            }
            "TF_REATTACH_PROVIDERS" => Some(
                r#"{"registry.terraform.io/hashicorp/random":{"Addr":{"Network":"unix","String":"/b"}},
                    "hashicorp/null":{"Addr":{"Network":"unix","String":"/c"}}}"#
                    .to_owned(),
            ),
            _ => None,
        };
        let found = reattach_config_from_vars("registry.terraform.io/HashiCorp/random", vars).unwrap().unwrap();
        assert_eq!(found.address, PluginAddress::Unix(PathBuf::from("/a")));
        assert_eq!(found.protocol, ProtocolVersion::V6);
        // Only the winning variable is consulted.
        assert_eq!(reattach_config_from_vars("hashicorp/null", vars).unwrap(), None);
        let tf_only = |variable: &str| if variable == "TF_REATTACH_PROVIDERS" { vars(variable) } else { None };
        let found = reattach_config_from_vars("hashicorp/null", tf_only).unwrap().unwrap();
        assert_eq!(found.address, PluginAddress::Unix(PathBuf::from("/c")));
        assert_eq!(reattach_config_from_vars("hashicorp/null", |_| None).unwrap(), None);
        assert!(reattach_config_from_vars("registry.opentofu.org/hashicorp/null", tf_only).unwrap().is_some());
        assert_eq!(reattach_config_from_vars("example.com/hashicorp/null", tf_only).unwrap(), None);
    }
}
