//! The pinned versions of the test peers, read at compile time from `scripts/peers.env`, the
//! file `scripts/test-tools.sh` builds them from. Tests name a peer's version through these
//! constants, never as a literal, so a bump is one line in one file. A key missing from
//! peers.env is a compile error naming it.
//!
//! Also used by the fixture provider's tests (`#[path]`-included), so it depends on nothing
//! but `core`.

#![allow(dead_code)] // Each test crate uses a different subset.

const PEERS_ENV: &str = include_str!("../../scripts/peers.env");

/// The random provider (`hashicorp/random`).
pub const RANDOM: &str = peer_version("RANDOM_VER");
/// random at the version of the Go implementation's `--fullDocs` schema golden (the
/// conformance tier, `tests/peer/conformance.rs`).
pub const RANDOM_GOLDEN: &str = peer_version("RANDOM_GOLDEN_VER");
/// The local provider (`hashicorp/local`).
pub const LOCAL: &str = peer_version("LOCAL_VER");
/// The null provider (`hashicorp/null`), a legacy-SDK provider.
pub const NULL: &str = peer_version("NULL_VER");
/// The tls provider (`hashicorp/tls`), a main-branch commit: `<tag>+<commit>`.
pub const TLS: &str = peer_version("TLS_VER");
/// The http provider (`hashicorp/http`).
pub const HTTP: &str = peer_version("HTTP_VER");
/// The time provider (`hashicorp/time`).
pub const TIME: &str = peer_version("TIME_VER");
/// HashiCorp's tfcoremock, a protocol-6 provider with identity, list resources and actions.
pub const TFCOREMOCK: &str = peer_version("TFCOREMOCK_VER");
/// petoju's MySQL provider, an SDKv2 provider against a real database server.
pub const MYSQL: &str = peer_version("MYSQL_VER");
/// hashicorp/dns, a muxed provider (SDKv2 and plugin framework) against a real BIND 9 server.
pub const DNS: &str = peer_version("DNS_VER");
/// magodo/restful, a plugin-framework provider (protocol 6) against PowerDNS's HTTP API.
pub const RESTFUL: &str = peer_version("RESTFUL_VER");
/// The Pulumi CLI.
pub const PULUMI: &str = peer_version("PULUMI_VER");
/// The newest Pulumi CLI, which part of the peer tier also runs on (`tests/common/pulumi.rs`,
/// `TFBRIDGE_TEST_PULUMI_VERSION`); it uses `PULUMI`'s language hosts.
pub const PULUMI_NEWEST: &str = peer_version("PULUMI_NEWEST_VER");
/// The `pulumi` Python programs use with `PULUMI_NEWEST`.
pub const PULUMI_NEWEST_PYTHON_SDK: &str = peer_version("PULUMI_NEWEST_PYTHON_SDK");
/// pnpm, the package manager a TypeScript program can pick (`packagemanager: pnpm`).
pub const PNPM: &str = peer_version("PNPM_VER");
/// The Pulumi YAML language host.
pub const PULUMI_YAML: &str = peer_version("YAML_VER");
/// pulumi-terraform-bridge, whose `dynamic` package is the Go implementation; its cache key.
pub const BRIDGE: &str = peer_version("BRIDGE_VER");
/// The pulumi-terraform-provider release the Go implementation is stamped as, without the `v`.
pub const GO_IMPLEMENTATION: &str = without_v(peer_version("ANCHOR_LDVERSION"));
/// The Java language host (github.com/pulumi/pulumi-java/pkg).
pub const JAVA_HOST: &str = peer_version("JAVA_HOST_VER");
/// The Pulumi Java SDK (`com.pulumi:pulumi`).
pub const JAVA_SDK: &str = peer_version("JAVA_SDK_VER");
/// The Terraform CLI.
pub const TERRAFORM: &str = peer_version("TERRAFORM_VER");
/// Pulumi's Terraform converter plugin (`pulumi-converter-terraform`).
pub const CONVERTER: &str = peer_version("CONVERTER_VER");

/// The value of `key` in peers.env: the text after `KEY=` up to whitespace or the end of
/// the line. Panics (at compile time, in a `const`) when the key is absent.
pub const fn peer_version(key: &str) -> &'static str {
    let file = PEERS_ENV.as_bytes();
    let key = key.as_bytes();
    let mut line_start = 0;
    while line_start < file.len() {
        let mut line_end = line_start;
        while line_end < file.len() && file[line_end] != b'\n' {
            line_end += 1;
        }
        if line_end - line_start > key.len()
            && file[line_start + key.len()] == b'='
            && starts_with(file, line_start, key)
        {
            let value_start = line_start + key.len() + 1;
            let mut value_end = value_start;
            while value_end < line_end && !file[value_end].is_ascii_whitespace() {
                value_end += 1;
            }
            let (_, rest) = file.split_at(value_start);
            let (value, _) = rest.split_at(value_end - value_start);
            match core::str::from_utf8(value) {
                Ok(value) if !value.is_empty() => return value,
                _ => panic!("scripts/peers.env: a key with an empty or non-UTF-8 value"),
            }
        }
        line_start = line_end + 1;
    }
    panic!("scripts/peers.env lacks a key tests/common/versions.rs names")
}

const fn starts_with(file: &[u8], at: usize, key: &[u8]) -> bool {
    let mut i = 0;
    while i < key.len() {
        if file[at + i] != key[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn without_v(version: &'static str) -> &'static str {
    match version.as_bytes() {
        [b'v', rest @ ..] => match core::str::from_utf8(rest) {
            Ok(rest) => rest,
            Err(_) => panic!("not UTF-8"),
        },
        _ => version,
    }
}
