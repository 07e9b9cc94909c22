//! Provider source addresses (`HOSTNAME/NAMESPACE/TYPE`) and target platforms (`OS_ARCH`).
//!
//! Architecture invariant: pure parsing and formatting, no I/O.

use std::fmt;

/// The host a bare `type` or `namespace/type` address refers to. The Go implementation resolves
/// through OpenTofu's registry, so SDKs it generated name `registry.opentofu.org/...`; keeping
/// the same default keeps those SDKs working unchanged.
pub const DEFAULT_REGISTRY_HOST: &str = "registry.opentofu.org";

/// Terraform's own public registry, accepted like any other host.
pub const TERRAFORM_REGISTRY_HOST: &str = "registry.terraform.io";

/// A provider's source address. All three parts are stored lowercase, because Terraform
/// compares addresses case-insensitively.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProviderAddress {
    /// Registry host, possibly with a `:port`.
    pub hostname: String,
    /// The registry namespace (organisation), e.g. `hashicorp`.
    pub namespace: String,
    /// The provider type, e.g. `random`; the executable is `terraform-provider-<type>`.
    pub type_name: String,
}

impl ProviderAddress {
    /// Parses `type`, `namespace/type` or `hostname/namespace/type`. A bare `type` means
    /// `hashicorp/<type>` on the default host, as in Terraform.
    pub fn parse(given: &str) -> Result<ProviderAddress, InvalidAddress> {
        let invalid = |reason: AddressProblem| InvalidAddress { given: given.to_owned(), reason };
        let parts: Vec<&str> = given.trim().split('/').collect();
        let (hostname, namespace, type_name) = match parts.as_slice() {
            [type_name] => (DEFAULT_REGISTRY_HOST, "hashicorp", *type_name),
            [namespace, type_name] => (DEFAULT_REGISTRY_HOST, *namespace, *type_name),
            [hostname, namespace, type_name] => (*hostname, *namespace, *type_name),
            _ => return Err(invalid(AddressProblem::Shape)),
        };
        check_hostname(hostname).map_err(invalid)?;
        if namespace == "-" {
            return Err(invalid(AddressProblem::Legacy));
        }
        check_name_part("namespace", namespace).map_err(invalid)?;
        check_name_part("type", type_name).map_err(invalid)?;
        if let Some(rest) = type_name.to_ascii_lowercase().strip_prefix("terraform-provider-") {
            return Err(invalid(AddressProblem::Prefixed { namespace: namespace.to_owned(), rest: rest.to_owned() }));
        }
        Ok(ProviderAddress {
            hostname: hostname.to_ascii_lowercase(),
            namespace: namespace.to_ascii_lowercase(),
            type_name: type_name.to_ascii_lowercase(),
        })
    }

    /// `namespace/type`, the short form used in progress messages.
    pub fn short_name(&self) -> String {
        format!("{}/{}", self.namespace, self.type_name)
    }
}

impl fmt::Display for ProviderAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.hostname, self.namespace, self.type_name)
    }
}

fn check_hostname(hostname: &str) -> Result<(), AddressProblem> {
    let (host, port) = match hostname.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (hostname, None),
    };
    if host.is_empty() {
        return Err(AddressProblem::EmptyHostname);
    }
    if !host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.') {
        return Err(AddressProblem::Hostname(hostname.to_owned()));
    }
    if let Some(port) = port
        && port.parse::<u16>().is_err()
    {
        return Err(AddressProblem::Port(port.to_owned()));
    }
    Ok(())
}

/// Namespaces and types are letters, digits, `-` and `_`, up to 64 characters, and neither
/// starts nor ends with a hyphen.
fn check_name_part(what: &'static str, part: &str) -> Result<(), AddressProblem> {
    if part.is_empty() {
        return Err(AddressProblem::EmptyPart(what));
    }
    if part.len() > 64 {
        return Err(AddressProblem::TooLong(what));
    }
    if !part.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(AddressProblem::Characters { what, part: part.to_owned() });
    }
    if part.starts_with('-') || part.ends_with('-') {
        return Err(AddressProblem::Hyphen { what, part: part.to_owned() });
    }
    Ok(())
}

/// An operating system and CPU architecture in Terraform's spelling (`linux_amd64`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Platform {
    /// Go's `GOOS`: `linux`, `darwin`, `windows`, `freebsd`, ...
    pub os: String,
    /// Go's `GOARCH`: `amd64`, `arm64`, `386`, `arm`, ...
    pub arch: String,
}

impl Platform {
    /// The platform this process runs on, translated from Rust's names to Go's.
    pub fn current() -> Platform {
        let os = match std::env::consts::OS {
            "macos" => "darwin",
            other => other,
        };
        let arch = match std::env::consts::ARCH {
            "x86_64" => "amd64",
            "aarch64" => "arm64",
            "x86" => "386",
            "powerpc64" => "ppc64le",
            other => other,
        };
        Platform { os: os.to_owned(), arch: arch.to_owned() }
    }
}

impl fmt::Display for Platform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.os, self.arch)
    }
}

/// A malformed provider source address (`type`, `namespace/type` or `host/namespace/type`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid provider source address {given:?}: {reason}")]
pub struct InvalidAddress {
    pub given: String,
    pub reason: AddressProblem,
}

/// What is wrong with a provider source address.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AddressProblem {
    /// Not one to three parts.
    #[error("expected TYPE, NAMESPACE/TYPE or HOSTNAME/NAMESPACE/TYPE")]
    Shape,
    /// An empty host name.
    #[error("the hostname is empty")]
    EmptyHostname,
    /// A host name with characters no host name has (the whole hostname, port included).
    #[error("{0:?} is not a valid hostname")]
    Hostname(String),
    /// A port that is not a 16-bit number.
    #[error("{0:?} is not a valid port number")]
    Port(String),
    /// Terraform 0.12's legacy namespace.
    #[error("legacy provider addresses (namespace \"-\") are not supported")]
    Legacy,
    /// An empty namespace or type.
    #[error("the {0} is empty")]
    EmptyPart(&'static str),
    /// A namespace or type over 64 characters.
    #[error("the {0} is longer than 64 characters")]
    TooLong(&'static str),
    /// A namespace or type with a character other than a letter, digit, `-` or `_`.
    #[error("the {what} {part:?} may only contain letters, digits, '-' and '_'")]
    Characters { what: &'static str, part: String },
    /// A namespace or type starting or ending with a hyphen.
    #[error("the {what} {part:?} must not start or end with '-'")]
    Hyphen { what: &'static str, part: String },
    /// A type spelled as the executable is named.
    #[error("the type must not include the \"terraform-provider-\" prefix; did you mean {namespace}/{rest}?")]
    Prefixed { namespace: String, rest: String },
    /// A host name the URL parser refuses.
    #[error("not usable in a URL: {0}")]
    NotUsableInUrl(url::ParseError),
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    #[track_caller]
    fn check(given: &str, expect: Expect) {
        let rendered = crate::testutil::shown(ProviderAddress::parse(given), |address| address.to_string());
        expect.assert_eq(&rendered);
    }

    #[test]
    fn bare_type_is_hashicorp_on_the_default_host() {
        check("random", expect!["registry.opentofu.org/hashicorp/random"]);
    }

    #[test]
    fn namespace_and_type() {
        check("bpg/Proxmox", expect!["registry.opentofu.org/bpg/proxmox"]);
    }

    #[test]
    fn full_address_keeps_its_host() {
        check("registry.terraform.io/hashicorp/aws", expect!["registry.terraform.io/hashicorp/aws"]);
        check("127.0.0.1:8443/acme/thing", expect!["127.0.0.1:8443/acme/thing"]);
    }

    #[test]
    fn malformed_addresses_are_rejected() {
        check(
            "a/b/c/d",
            expect![[
                r#"error: invalid provider source address "a/b/c/d": expected TYPE, NAMESPACE/TYPE or HOSTNAME/NAMESPACE/TYPE"#
            ]],
        );
        check("hashicorp/", expect![[r#"error: invalid provider source address "hashicorp/": the type is empty"#]]);
        check(
            "-/aws",
            expect![[
                r#"error: invalid provider source address "-/aws": legacy provider addresses (namespace "-") are not supported"#
            ]],
        );
        check(
            "host:99999/a/b",
            expect![[r#"error: invalid provider source address "host:99999/a/b": "99999" is not a valid port number"#]],
        );
        check(
            "hashicorp/terraform-provider-aws",
            expect![[
                r#"error: invalid provider source address "hashicorp/terraform-provider-aws": the type must not include the "terraform-provider-" prefix; did you mean hashicorp/aws?"#
            ]],
        );
        check(
            "exa mple.com/a/b",
            expect![[
                r#"error: invalid provider source address "exa mple.com/a/b": "exa mple.com" is not a valid hostname"#
            ]],
        );
    }
}
