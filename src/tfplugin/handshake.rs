//! The go-plugin handshake line a provider prints as its first line on stdout.
//!
//! Format: `CORE|APP|NETWORK|ADDRESS|PROTOCOL|SERVER_CERT`, for example
//! `1|6|unix|/tmp/plugin123|grpc|MIIC...`. The certificate field is the server's leaf
//! certificate as DER in base64 with the standard alphabet and no padding; it is empty when
//! the provider runs without auto-mTLS.

use std::net::SocketAddr;
use std::path::PathBuf;

use base64::Engine;

/// The Terraform plugin protocol major version a provider negotiated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProtocolVersion {
    /// tfplugin5: SDKv2 providers and plugin-framework providers served over protocol 5.
    V5,
    /// tfplugin6: plugin-framework providers; adds nested attributes.
    V6,
}

impl ProtocolVersion {
    pub fn number(self) -> u32 {
        match self {
            ProtocolVersion::V5 => 5,
            ProtocolVersion::V6 => 6,
        }
    }

    pub(crate) fn from_number(number: u32) -> Option<ProtocolVersion> {
        match number {
            5 => Some(ProtocolVersion::V5),
            6 => Some(ProtocolVersion::V6),
            _ => None,
        }
    }
}

/// Where a provider's gRPC server listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PluginAddress {
    /// A unix domain socket path (every platform but Windows).
    Unix(PathBuf),
    /// A TCP address, normally on the loopback interface.
    Tcp(SocketAddr),
}

impl std::fmt::Display for PluginAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PluginAddress::Unix(path) => write!(f, "unix:{}", path.display()),
            PluginAddress::Tcp(addr) => write!(f, "tcp:{addr}"),
        }
    }
}

/// A parsed, validated handshake line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handshake {
    pub protocol: ProtocolVersion,
    pub address: PluginAddress,
    /// The server's certificate (DER) when the provider runs with auto-mTLS.
    pub server_certificate: Option<Vec<u8>>,
}

/// Why a handshake line was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandshakeError {
    /// Fewer than the four fields every go-plugin server prints.
    #[error("expected at least 4 '|'-separated fields, found {0}")]
    TooFewFields(usize),
    /// The first field is not go-plugin core protocol 1.
    #[error("unsupported go-plugin core protocol version {0:?} (only 1 is supported)")]
    CoreVersion(String),
    /// The negotiated application protocol is not 5 or 6.
    #[error("unsupported Terraform plugin protocol version {0:?} (supported: 5, 6)")]
    ProtocolVersion(String),
    /// The network is neither `unix` nor `tcp`.
    #[error("unsupported network {0:?} (supported: unix, tcp)")]
    Network(String),
    /// A TCP address that does not parse as `ip:port`.
    #[error("invalid tcp address {0:?}")]
    TcpAddress(String),
    /// The RPC protocol is not gRPC (absent means net/rpc, which Terraform providers never use).
    #[error("unsupported RPC protocol {0:?} (only grpc is supported)")]
    RpcProtocol(String),
    /// The certificate field is not base64.
    #[error("the server certificate is not valid base64: {0}")]
    Certificate(String),
}

/// Parses one handshake line (surrounding whitespace is ignored, as go-plugin does).
pub fn parse_handshake(line: &str) -> Result<Handshake, HandshakeError> {
    let fields: Vec<&str> = line.trim().split('|').collect();
    if fields.len() < 4 {
        return Err(HandshakeError::TooFewFields(fields.len()));
    }
    if fields[0] != "1" {
        return Err(HandshakeError::CoreVersion(fields[0].to_owned()));
    }
    let protocol = fields[1]
        .parse::<u32>()
        .ok()
        .and_then(ProtocolVersion::from_number)
        .ok_or_else(|| HandshakeError::ProtocolVersion(fields[1].to_owned()))?;
    let address = match fields[2] {
        "unix" => PluginAddress::Unix(PathBuf::from(fields[3])),
        "tcp" => PluginAddress::Tcp(fields[3].parse().map_err(|_| HandshakeError::TcpAddress(fields[3].to_owned()))?),
        other => return Err(HandshakeError::Network(other.to_owned())),
    };
    // go-plugin treats a missing fifth field as net/rpc.
    let rpc_protocol = fields.get(4).copied().unwrap_or("netrpc");
    if rpc_protocol != "grpc" {
        return Err(HandshakeError::RpcProtocol(rpc_protocol.to_owned()));
    }
    let server_certificate = match fields.get(5).copied().unwrap_or("") {
        "" => None,
        // Some encoders pad anyway; accept both forms.
        text => Some(
            base64::engine::general_purpose::STANDARD_NO_PAD
                .decode(text.trim_end_matches('='))
                .map_err(|err| HandshakeError::Certificate(err.to_string()))?,
        ),
    };
    Ok(Handshake { protocol, address, server_certificate })
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    #[track_caller]
    fn check(line: &str, expect: Expect) {
        let actual = crate::testutil::shown(parse_handshake(line), |h| {
            format!(
                "ok v{} {} cert={}",
                h.protocol.number(),
                h.address,
                h.server_certificate.map_or("none".to_owned(), |c| format!("{c:02x?}"))
            )
        });
        expect.assert_eq(&actual);
    }

    #[test]
    fn handshake_lines() {
        check("1|6|unix|/tmp/plugin123|grpc|AQID\n", expect![[r#"ok v6 unix:/tmp/plugin123 cert=[01, 02, 03]"#]]);
        check("1|5|tcp|127.0.0.1:10000|grpc|", expect![[r#"ok v5 tcp:127.0.0.1:10000 cert=none"#]]);
        check("1|5|tcp|127.0.0.1:10000|grpc", expect![[r#"ok v5 tcp:127.0.0.1:10000 cert=none"#]]);
        check("1|6|unix|/tmp/p|grpc|AQIDBA==", expect![[r#"ok v6 unix:/tmp/p cert=[01, 02, 03, 04]"#]]);
        check("1|6|unix|/tmp/p|grpc|AQ|true", expect![[r#"ok v6 unix:/tmp/p cert=[01]"#]]);
        check("hello world", expect![[r#"error: expected at least 4 '|'-separated fields, found 1"#]]);
        check(
            "2|6|unix|/tmp/p|grpc|",
            expect![[r#"error: unsupported go-plugin core protocol version "2" (only 1 is supported)"#]],
        );
        check(
            "1|4|unix|/tmp/p|grpc|",
            expect![[r#"error: unsupported Terraform plugin protocol version "4" (supported: 5, 6)"#]],
        );
        check(
            "1|x|unix|/tmp/p|grpc|",
            expect![[r#"error: unsupported Terraform plugin protocol version "x" (supported: 5, 6)"#]],
        );
        check("1|6|udp|/tmp/p|grpc|", expect![[r#"error: unsupported network "udp" (supported: unix, tcp)"#]]);
        check("1|6|tcp|localhost|grpc|", expect![[r#"error: invalid tcp address "localhost""#]]);
        check(
            "1|6|unix|/tmp/p|netrpc|",
            expect![[r#"error: unsupported RPC protocol "netrpc" (only grpc is supported)"#]],
        );
        check("1|6|unix|/tmp/p", expect![[r#"error: unsupported RPC protocol "netrpc" (only grpc is supported)"#]]);
        check(
            "1|6|unix|/tmp/p|grpc|!!",
            expect![[r#"error: the server certificate is not valid base64: Invalid symbol 33, offset 0."#]],
        );
    }
}
