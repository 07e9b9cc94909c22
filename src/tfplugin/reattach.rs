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
    /// A key is not a provider source address. Every key is checked, whichever provider is
    /// looked up, so a typo is reported at once rather than as "not reattached".
    #[error("{variable}: provider key {key:?} is not a provider source address: {reason}")]
    Key { variable: String, key: String, reason: AddressProblem },
}

/// Why a reattach key is not a provider source address.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AddressProblem {
    #[error("it must be TYPE, NAMESPACE/TYPE or HOSTNAME/NAMESPACE/TYPE")]
    Shape,
    #[error("invalid hostname {0:?}")]
    Hostname(String),
    #[error("invalid name {0:?} (letters, digits, \"-\" and \"_\" only)")]
    Name(String),
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
        // A bare type means `hashicorp/<type>`, as in Terraform.
        [name] => format!("{DEFAULT_REGISTRY_HOST}/hashicorp/{name}"),
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
        if let Err(reason) = check_source_address(&provider) {
            return Err(ReattachError::Key { variable: variable.to_owned(), key: provider, reason });
        }
        let entry_error =
            |reason: String| ReattachError::Entry { variable: variable.to_owned(), provider: provider.clone(), reason };
        // go-plugin reads an absent protocol as net/rpc, which no Terraform provider serves
        // any more: refused like any other, as Terraform and the Go implementation refuse it.
        let protocol = entry.protocol.as_deref().unwrap_or_default();
        if protocol != "grpc" {
            return Err(entry_error(format!("unsupported protocol {protocol:?} (only \"grpc\" is supported)")));
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
            other => return Err(entry_error(format!("unsupported network {other:?} (only \"unix\" or \"tcp\")"))),
        };
        configs.insert(normalize_source_address(&provider), ReattachConfig { protocol, address, pid: entry.pid });
    }
    Ok(configs)
}

/// Whether `key` has the shape of a provider source address: `type`, `namespace/type` or
/// `hostname/namespace/type`, each part non-empty; names of letters, digits, `-` and `_`,
/// a host of letters, digits, `-`, `.` and an optional `:port`.
fn check_source_address(key: &str) -> Result<(), AddressProblem> {
    let parts: Vec<&str> = key.split('/').collect();
    let (host, names) = match parts.as_slice() {
        [_] | [_, _] => (None, &parts[..]),
        [host, rest @ ..] if rest.len() == 2 => (Some(*host), rest),
        _ => return Err(AddressProblem::Shape),
    };
    if let Some(host) = host
        && (host.is_empty() || !host.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | ':')))
    {
        return Err(AddressProblem::Hostname(host.to_owned()));
    }
    for name in names {
        let valid = !name.is_empty()
            && !name.starts_with('-')
            && !name.ends_with('-')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'));
        if !valid {
            return Err(AddressProblem::Name((*name).to_owned()));
        }
    }
    Ok(())
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
                "hashicorp/Random":{"Protocol":"grpc","Addr":{"Network":"tcp","String":"127.0.0.1:1234"}},
                "mini":{"Protocol":"grpc","Addr":{"Network":"unix","String":"/tmp/mini"}}}"#,
            expect![[r#"
                registry.terraform.io/hashicorp/aws: v6 unix:/tmp/plugin123 pid=Some(123)
                registry.terraform.io/hashicorp/mini: v5 unix:/tmp/mini pid=None
                registry.terraform.io/hashicorp/random: v5 tcp:127.0.0.1:1234 pid=None"#]],
        );
        // The Go implementation's TestReattachProviderRejectsUnsupportedEntries and
        // TestNamedProviderReattachMalformedSiblingKey: the same refusals, quoting the same.
        check(
            r#"{"a/b":{"Protocol":"netrpc","Addr":{"Network":"unix","String":"/x"}}}"#,
            expect![[
                r#"error: TF_REATTACH_PROVIDERS entry "a/b": unsupported protocol "netrpc" (only "grpc" is supported)"#
            ]],
        );
        check(
            r#"{"a/b":{"Protocol":"","Addr":{"Network":"unix","String":"/x"}}}"#,
            expect![[
                r#"error: TF_REATTACH_PROVIDERS entry "a/b": unsupported protocol "" (only "grpc" is supported)"#
            ]],
        );
        check(
            r#"{"a/b":{"Addr":{"Network":"unix","String":"/x"}}}"#,
            expect![[
                r#"error: TF_REATTACH_PROVIDERS entry "a/b": unsupported protocol "" (only "grpc" is supported)"#
            ]],
        );
        check(
            r#"{"a/b":{"Protocol":"grpc","ProtocolVersion":4,"Addr":{"Network":"unix","String":"/x"}}}"#,
            expect![[r#"error: TF_REATTACH_PROVIDERS entry "a/b": protocol version 4 is not supported (5 or 6)"#]],
        );
        check(
            r#"{"a/b":{"Protocol":"grpc","Addr":{"Network":"pipe","String":"/x"}}}"#,
            expect![[r#"error: TF_REATTACH_PROVIDERS entry "a/b": unsupported network "pipe" (only "unix" or "tcp")"#]],
        );
        check(
            r#"{"a/b":{"Protocol":"grpc","Addr":{"Network":"unix","String":"/x"}},"bad key!":{"Addr":{"Network":"","String":""}}}"#,
            expect![[
                r#"error: TF_REATTACH_PROVIDERS: provider key "bad key!" is not a provider source address: invalid name "bad key!" (letters, digits, "-" and "_" only)"#
            ]],
        );
        // (key, why it is refused)
        let refused = [
            ("", AddressProblem::Name(String::new())),
            ("a//b", AddressProblem::Name(String::new())),
            ("h/a/b/c", AddressProblem::Shape),
            ("-a/b", AddressProblem::Name("-a".to_owned())),
            ("exa mple.com/a/b", AddressProblem::Hostname("exa mple.com".to_owned())),
        ];
        for (key, problem) in refused {
            let json = format!(r#"{{"{key}":{{"Protocol":"grpc","Addr":{{"Network":"unix","String":"/x"}}}}}}"#);
            let result = parse_reattach_providers("TF_REATTACH_PROVIDERS", &json);
            assert!(
                matches!(&result, Err(ReattachError::Key { reason, .. }) if *reason == problem),
                "{key:?}: {result:?}"
            );
        }
        let words: Vec<String> = [AddressProblem::Shape, AddressProblem::Hostname("h h".to_owned())]
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(words, ["it must be TYPE, NAMESPACE/TYPE or HOSTNAME/NAMESPACE/TYPE", r#"invalid hostname "h h""#]);
        check(
            r#"[1]"#,
            expect![[
                r#"error: TF_REATTACH_PROVIDERS is not valid reattach JSON: invalid type: sequence, expected a map at line 1 column 0"#
            ]],
        );
    }

    #[test]
    fn the_bridge_variable_wins_and_addresses_are_normalized() {
        let vars = |variable: &str| {
            match variable {
            "PULUMI_BRIDGE_REATTACH_PROVIDERS" => {
                Some(r#"{"hashicorp/random":{"Protocol":"grpc","ProtocolVersion":6,"Addr":{"Network":"unix","String":"/a"}}}"#.to_owned())
            }
            "TF_REATTACH_PROVIDERS" => Some(
                r#"{"registry.terraform.io/hashicorp/random":{"Protocol":"grpc","Addr":{"Network":"unix","String":"/b"}},
                    "hashicorp/null":{"Protocol":"grpc","Addr":{"Network":"unix","String":"/c"}}}"#
                    .to_owned(),
            ),
            _ => None,
        }
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
