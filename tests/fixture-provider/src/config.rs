//! Everything the fixture reads from its environment at launch, validated once.
//!
//! [`LaunchConfig::from_env`] gathers the go-plugin variables the host sets and the
//! `FIXTURE_*` switches (documented in the crate doc) into one value; nothing else in the
//! crate reads the environment.
//!
//! Architecture invariant: this module knows nothing about gRPC or sockets; it only turns
//! strings into settings.

use std::path::PathBuf;
use std::time::Duration;

use schema_gen::tf;

/// Where the schema the fixture serves comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum SchemaSource {
    /// The built-in fixture schema.
    Fixture,
    /// A `terraform providers schema -json` file with exactly one provider entry.
    File(PathBuf),
}

/// An RPC that waits before answering, until stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlowRpc {
    /// The gRPC method name, e.g. `GetProviderSchema`.
    pub method: String,
    pub delay: Duration,
}

/// How the handshake goes (`FIXTURE_HANDSHAKE`), to exercise the host's launch errors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HandshakeMode {
    /// A correct handshake line.
    #[default]
    Normal,
    /// `exit`: write a line to stderr and exit 1 before any handshake.
    ExitBefore,
    /// `hang`: never print the handshake; sleep until killed.
    Hang,
    /// `garbage`: print a line that is not a handshake, then wait until killed.
    Garbage,
    /// `core-protocol-2`: a handshake whose core protocol version (first field) is 2.
    WrongCoreProtocol,
    /// `netrpc`: a handshake whose protocol type (fifth field) is `netrpc`.
    NetRpc,
}

/// The misbehaviour switched on at launch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Misbehaviour {
    /// The gRPC method whose call panics the process (`FIXTURE_PANIC_ON`).
    pub panic_on: Option<String>,
    /// `FIXTURE_SLOW_ON` with `FIXTURE_SLOW_MS`.
    pub slow: Option<SlowRpc>,
    /// Bytes written to each of stdout and stderr after the handshake (`FIXTURE_FLOOD_BYTES`).
    pub flood_bytes: u64,
    /// `FIXTURE_HANDSHAKE`.
    pub handshake: HandshakeMode,
    /// `FIXTURE_STDERR_LOGS=1`: write sample log lines to the real stderr after the handshake.
    pub stderr_logs: bool,
}

/// The whole launch configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchConfig {
    /// The protocol versions the fixture supports (`FIXTURE_PROTOCOL`), each 5 or 6.
    pub supported_protocols: Vec<u32>,
    /// The versions the host offers (`PLUGIN_PROTOCOL_VERSIONS`); entries that are not
    /// numbers are reported in `warnings` and skipped, as go-plugin does.
    pub host_protocols: Vec<u32>,
    /// `PLUGIN_UNIX_SOCKET_DIR`, else the system temp dir.
    pub socket_dir: PathBuf,
    /// `PLUGIN_CLIENT_CERT`: the host's certificate PEM; `None` means plaintext.
    pub client_cert_pem: Option<String>,
    pub schema: SchemaSource,
    pub misbehaviour: Misbehaviour,
    /// `FIXTURE_IDENTITY_VERSION`, `FIXTURE_LIST_FAIL_AFTER`.
    pub identity_list: crate::identity_list::IdentityListConfig,
    /// `FIXTURE_STORE_DIR`: where apply stores objects and read and import find them.
    pub store_dir: Option<PathBuf>,
    /// `FIXTURE_1_14=1`: serve the Terraform 1.14 features (see `actions_and_generate`).
    pub terraform_1_14: bool,
    /// Messages to print on stderr before the handshake.
    pub warnings: Vec<String>,
}

/// Why the environment is not a usable launch configuration.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A variable holds a value the fixture cannot use.
    #[error("{var}={value:?}: {reason}")]
    BadValue { var: &'static str, value: String, reason: &'static str },
    /// A variable needs another one that is not set.
    #[error("{var} is set but {needs} is not")]
    MissingCompanion { var: &'static str, needs: &'static str },
}

/// Why a schema file could not be served.
#[derive(Debug, thiserror::Error)]
pub enum SchemaFileError {
    /// The file could not be read.
    #[error("reading schema file {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    /// The text is not in the `terraform providers schema -json` format.
    #[error("parsing schema file: {0}")]
    Parse(#[from] serde_json::Error),
    /// The file must hold exactly one provider entry.
    #[error("the schema file holds {0} provider entries; the fixture serves exactly one")]
    NotOneProvider(usize),
}

impl LaunchConfig {
    /// Reads the configuration from the process environment.
    pub fn from_env() -> Result<LaunchConfig, ConfigError> {
        LaunchConfig::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the configuration through `lookup`, so tests can pass a table.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<LaunchConfig, ConfigError> {
        let mut warnings = Vec::new();
        let supported_protocols = match lookup("FIXTURE_PROTOCOL") {
            None => vec![6],
            Some(text) => {
                let mut versions = Vec::new();
                for part in text.split(',') {
                    match part.trim() {
                        "5" => versions.push(5),
                        "6" => versions.push(6),
                        _ => {
                            return Err(ConfigError::BadValue {
                                var: "FIXTURE_PROTOCOL",
                                value: text.clone(),
                                reason: "expected 5, 6 or 5,6",
                            });
                        }
                    }
                }
                versions
            }
        };
        let mut host_protocols = Vec::new();
        if let Some(text) = lookup("PLUGIN_PROTOCOL_VERSIONS").filter(|t| !t.is_empty()) {
            for part in text.split(',') {
                match part.parse::<u32>() {
                    Ok(v) => host_protocols.push(v),
                    // go-plugin's own wording, including its mix-up of client and server.
                    Err(_) => warnings.push(format!("server sent invalid plugin version {part:?}")),
                }
            }
        }
        let socket_dir = lookup("PLUGIN_UNIX_SOCKET_DIR")
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir);
        let client_cert_pem = lookup("PLUGIN_CLIENT_CERT").filter(|p| !p.is_empty());
        let schema = match lookup("FIXTURE_SCHEMA_FILE").filter(|p| !p.is_empty()) {
            Some(path) => SchemaSource::File(PathBuf::from(path)),
            None => SchemaSource::Fixture,
        };
        let slow = match (lookup("FIXTURE_SLOW_ON"), lookup("FIXTURE_SLOW_MS")) {
            (None, None) => None,
            (Some(_), None) => {
                return Err(ConfigError::MissingCompanion { var: "FIXTURE_SLOW_ON", needs: "FIXTURE_SLOW_MS" });
            }
            (None, Some(_)) => {
                return Err(ConfigError::MissingCompanion { var: "FIXTURE_SLOW_MS", needs: "FIXTURE_SLOW_ON" });
            }
            (Some(method), Some(ms)) => {
                let ms: u64 = ms.parse().map_err(|_| ConfigError::BadValue {
                    var: "FIXTURE_SLOW_MS",
                    value: ms.clone(),
                    reason: "expected a whole number of milliseconds",
                })?;
                Some(SlowRpc { method, delay: Duration::from_millis(ms) })
            }
        };
        let flood_bytes = match lookup("FIXTURE_FLOOD_BYTES") {
            None => 0,
            Some(n) => n.parse().map_err(|_| ConfigError::BadValue {
                var: "FIXTURE_FLOOD_BYTES",
                value: n.clone(),
                reason: "expected a whole number of bytes",
            })?,
        };
        let panic_on = lookup("FIXTURE_PANIC_ON").filter(|m| !m.is_empty());
        let handshake = match lookup("FIXTURE_HANDSHAKE").as_deref() {
            None | Some("" | "normal") => HandshakeMode::Normal,
            Some("exit") => HandshakeMode::ExitBefore,
            Some("hang") => HandshakeMode::Hang,
            Some("garbage") => HandshakeMode::Garbage,
            Some("core-protocol-2") => HandshakeMode::WrongCoreProtocol,
            Some("netrpc") => HandshakeMode::NetRpc,
            Some(other) => {
                return Err(ConfigError::BadValue {
                    var: "FIXTURE_HANDSHAKE",
                    value: other.to_owned(),
                    reason: "expected normal, exit, hang, garbage, core-protocol-2 or netrpc",
                });
            }
        };
        let stderr_logs = match lookup("FIXTURE_STDERR_LOGS").as_deref() {
            None | Some("" | "0") => false,
            Some("1") => true,
            Some(other) => {
                return Err(ConfigError::BadValue {
                    var: "FIXTURE_STDERR_LOGS",
                    value: other.to_owned(),
                    reason: "expected 0 or 1",
                });
            }
        };
        Ok(LaunchConfig {
            supported_protocols,
            host_protocols,
            socket_dir,
            client_cert_pem,
            schema,
            misbehaviour: Misbehaviour { panic_on, slow, flood_bytes, handshake, stderr_logs },
            identity_list: crate::identity_list::IdentityListConfig::from_lookup(&lookup).map_err(|reason| {
                ConfigError::BadValue {
                    var: "FIXTURE_IDENTITY_VERSION or FIXTURE_LIST_FAIL_AFTER",
                    value: reason,
                    reason: "see the crate doc",
                }
            })?,
            store_dir: lookup("FIXTURE_STORE_DIR").filter(|d| !d.is_empty()).map(PathBuf::from),
            terraform_1_14: lookup("FIXTURE_1_14").is_some_and(|v| v == "1"),
            warnings,
        })
    }

    /// The protocol version to serve, by go-plugin's rule: the highest supported version the
    /// host offers, else the lowest supported version (the host then refuses it).
    pub fn negotiated_protocol(&self) -> u32 {
        let mut supported = self.supported_protocols.clone();
        supported.sort_unstable_by(|a, b| b.cmp(a));
        for version in &supported {
            if self.host_protocols.contains(version) {
                return *version;
            }
        }
        supported.last().copied().unwrap_or(6)
    }

    /// Loads the schema to serve.
    pub fn load_schema(&self) -> Result<tf::ProviderSchema, SchemaFileError> {
        match &self.schema {
            SchemaSource::Fixture => Ok(crate::fixture_schema()),
            SchemaSource::File(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|source| SchemaFileError::Read { path: path.clone(), source })?;
                single_provider_schema(&text)
            }
        }
    }
}

/// The single provider entry of a `terraform providers schema -json` document.
pub fn single_provider_schema(text: &str) -> Result<tf::ProviderSchema, SchemaFileError> {
    let file: tf::ProvidersSchemaFile = serde_json::from_str(text)?;
    let n_providers = file.provider_schemas.len();
    match file.provider_schemas.into_values().next() {
        Some(schema) if n_providers == 1 => Ok(schema),
        _ => Err(SchemaFileError::NotOneProvider(n_providers)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    #[track_caller]
    fn check(env: &[(&str, &str)], expect: Expect) {
        let lookup = |name: &str| env.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string());
        let actual = match LaunchConfig::from_lookup(lookup) {
            Ok(config) => format!(
                "serves {} (supports {:?}, host {:?}) warnings {:?} misbehaviour {:?}",
                config.negotiated_protocol(),
                config.supported_protocols,
                config.host_protocols,
                config.warnings,
                config.misbehaviour
            ),
            Err(err) => format!("error: {err}"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn negotiation_and_switches() {
        check(
            &[],
            expect![[
                r#"serves 6 (supports [6], host []) warnings [] misbehaviour Misbehaviour { panic_on: None, slow: None, flood_bytes: 0, handshake: Normal, stderr_logs: false }"#
            ]],
        );
        check(
            &[("FIXTURE_PROTOCOL", "5,6"), ("PLUGIN_PROTOCOL_VERSIONS", "5,6")],
            expect![[
                r#"serves 6 (supports [5, 6], host [5, 6]) warnings [] misbehaviour Misbehaviour { panic_on: None, slow: None, flood_bytes: 0, handshake: Normal, stderr_logs: false }"#
            ]],
        );
        check(
            &[("FIXTURE_PROTOCOL", "5,6"), ("PLUGIN_PROTOCOL_VERSIONS", "x,5")],
            expect![[
                r#"serves 5 (supports [5, 6], host [5]) warnings ["server sent invalid plugin version \"x\""] misbehaviour Misbehaviour { panic_on: None, slow: None, flood_bytes: 0, handshake: Normal, stderr_logs: false }"#
            ]],
        );
        check(
            &[("FIXTURE_PROTOCOL", "5,6"), ("PLUGIN_PROTOCOL_VERSIONS", "4")],
            expect![[
                r#"serves 5 (supports [5, 6], host [4]) warnings [] misbehaviour Misbehaviour { panic_on: None, slow: None, flood_bytes: 0, handshake: Normal, stderr_logs: false }"#
            ]],
        );
        check(
            &[
                ("FIXTURE_PANIC_ON", "GetSchema"),
                ("FIXTURE_SLOW_ON", "GetSchema"),
                ("FIXTURE_SLOW_MS", "250"),
                ("FIXTURE_FLOOD_BYTES", "1048576"),
            ],
            expect![[
                r#"serves 6 (supports [6], host []) warnings [] misbehaviour Misbehaviour { panic_on: Some("GetSchema"), slow: Some(SlowRpc { method: "GetSchema", delay: 250ms }), flood_bytes: 1048576, handshake: Normal, stderr_logs: false }"#
            ]],
        );
        check(
            &[("FIXTURE_HANDSHAKE", "garbage"), ("FIXTURE_STDERR_LOGS", "1")],
            expect![[
                r#"serves 6 (supports [6], host []) warnings [] misbehaviour Misbehaviour { panic_on: None, slow: None, flood_bytes: 0, handshake: Garbage, stderr_logs: true }"#
            ]],
        );
        check(
            &[("FIXTURE_HANDSHAKE", "late")],
            expect![[
                r#"error: FIXTURE_HANDSHAKE="late": expected normal, exit, hang, garbage, core-protocol-2 or netrpc"#
            ]],
        );
        check(&[("FIXTURE_PROTOCOL", "7")], expect![[r#"error: FIXTURE_PROTOCOL="7": expected 5, 6 or 5,6"#]]);
        check(&[("FIXTURE_SLOW_MS", "5")], expect![[r#"error: FIXTURE_SLOW_MS is set but FIXTURE_SLOW_ON is not"#]]);
        check(
            &[("FIXTURE_FLOOD_BYTES", "lots")],
            expect![[r#"error: FIXTURE_FLOOD_BYTES="lots": expected a whole number of bytes"#]],
        );
    }

    #[test]
    fn schema_file_must_hold_one_provider() {
        let err = single_provider_schema(r#"{"format_version":"1.0","provider_schemas":{}}"#).unwrap_err();
        assert_eq!(err.to_string(), "the schema file holds 0 provider entries; the fixture serves exactly one");
    }
}
