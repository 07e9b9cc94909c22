//! The parts of the Terraform/OpenTofu CLI configuration file the installer honours:
//! `provider_installation` (dev_overrides, filesystem_mirror, network_mirror, direct, with
//! include/exclude patterns), `plugin_cache_dir` and `credentials "<host>" { token = ... }`.
//! Everything else in the file is ignored, as Terraform ignores settings it does not use.
//!
//! Architecture invariant: reads only the configuration file; knows nothing about registries,
//! the network or the cache.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hcl::{Body, Expression};

use super::address::{DEFAULT_REGISTRY_HOST, ProviderAddress};
use super::error::{CliConfigProblem, Error};

/// What we read from the CLI configuration. `Default` is the configuration of a machine without
/// a CLI configuration file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CliConfig {
    /// `plugin_cache_dir`, with environment variables expanded.
    pub plugin_cache_dir: Option<PathBuf>,
    /// Tokens from `credentials` blocks, keyed by lowercase hostname.
    pub credentials: BTreeMap<String, Token>,
    /// Providers to run straight from a directory, skipping installation entirely.
    pub dev_overrides: BTreeMap<ProviderAddress, PathBuf>,
    /// The `provider_installation` methods in order; `None` when the block is absent, which
    /// means Terraform's implicit local mirrors followed by the direct registry.
    pub installation_methods: Option<Vec<InstallationMethod>>,
}

/// A registry or mirror API token. Its `Debug` output is redacted so that configurations can
/// be logged safely.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    pub fn new(token: impl Into<String>) -> Token {
        Token(token.into())
    }

    /// The token itself, for the `Authorization` header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

/// One method of the `provider_installation` block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallationMethod {
    /// Where the method looks for packages.
    pub location: MethodLocation,
    /// When non-empty, only providers matching one of these patterns use this method.
    pub include: Vec<ProviderPattern>,
    /// Providers matching one of these patterns never use this method.
    pub exclude: Vec<ProviderPattern>,
}

/// The kind of installation method and where it points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MethodLocation {
    /// The provider's origin registry.
    Direct,
    /// A local directory in the packed or unpacked layout.
    FilesystemMirror(PathBuf),
    /// A server speaking the provider network mirror protocol; always ends with `/`.
    NetworkMirror(url::Url),
}

impl InstallationMethod {
    /// Whether this method is responsible for `address` according to include/exclude.
    pub fn covers(&self, address: &ProviderAddress) -> bool {
        let included = self.include.is_empty() || self.include.iter().any(|pattern| pattern.matches(address));
        included && !self.exclude.iter().any(|pattern| pattern.matches(address))
    }
}

/// An include/exclude pattern: `HOST/NAMESPACE/TYPE` where `NAMESPACE` and `TYPE` (and, as a
/// convenience, `HOST`) may be `*`. Short forms default the host like addresses do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProviderPattern {
    hostname: String,
    namespace: String,
    type_name: String,
}

impl ProviderPattern {
    fn parse(given: &str) -> Result<ProviderPattern, CliConfigProblem> {
        let parts: Vec<&str> = given.split('/').collect();
        let (hostname, namespace, type_name) = match parts.as_slice() {
            [namespace, type_name] => (DEFAULT_REGISTRY_HOST, *namespace, *type_name),
            [hostname, namespace, type_name] => (*hostname, *namespace, *type_name),
            _ => return Err(CliConfigProblem::PatternShape(given.to_owned())),
        };
        if namespace == "*" && type_name != "*" {
            return Err(CliConfigProblem::PatternWildcard(given.to_owned()));
        }
        Ok(ProviderPattern {
            hostname: hostname.to_ascii_lowercase(),
            namespace: namespace.to_ascii_lowercase(),
            type_name: type_name.to_ascii_lowercase(),
        })
    }

    fn matches(&self, address: &ProviderAddress) -> bool {
        let part_matches = |pattern: &str, value: &str| pattern == "*" || pattern == value;
        part_matches(&self.hostname, &address.hostname)
            && part_matches(&self.namespace, &address.namespace)
            && part_matches(&self.type_name, &address.type_name)
    }
}

impl CliConfig {
    /// Reads the CLI configuration the way Terraform and OpenTofu find it: `TF_CLI_CONFIG_FILE`
    /// (or the legacy `TERRAFORM_CONFIG`) when set, else `~/.tofurc`, else `~/.terraformrc`
    /// (on Windows `%APPDATA%\tofu.rc`, else `%APPDATA%\terraform.rc`).
    /// No file at all is the default configuration. `vars` are the environment variables.
    ///
    /// A file named by the environment that does not exist is, as in Terraform, a warning
    /// (the second value) and the default configuration; a file that exists but cannot be
    /// read or parsed is an error, since installing without its mirrors or credentials could
    /// fetch the wrong thing.
    pub fn load_from_variables(vars: &BTreeMap<String, String>) -> Result<(CliConfig, Option<String>), Error> {
        let var = |name: &str| vars.get(name).filter(|value| !value.is_empty());
        let path = match var("TF_CLI_CONFIG_FILE").or_else(|| var("TERRAFORM_CONFIG")) {
            Some(path) if !Path::new(path).exists() => {
                let warning = format!(
                    "the CLI configuration file {path} (from TF_CLI_CONFIG_FILE) does not exist; \
                     using the default configuration"
                );
                return Ok((CliConfig::default(), Some(warning)));
            }
            Some(path) => Some(PathBuf::from(path)),
            None => {
                super::user_dirs::cli_config_files(vars, std::env::consts::OS).into_iter().find(|path| path.is_file())
            }
        };
        match path {
            Some(path) => Ok((CliConfig::load(&path)?, None)),
            None => Ok((CliConfig::default(), None)),
        }
    }

    /// Reads and parses one CLI configuration file.
    pub fn load(path: &Path) -> Result<CliConfig, Error> {
        let text = std::fs::read_to_string(path).map_err(Error::io("cannot read", path))?;
        CliConfig::parse(&text).map_err(|reason| Error::CliConfig { path: path.to_owned(), reason })
    }

    /// Parses the text of a CLI configuration file.
    pub(crate) fn parse(text: &str) -> Result<CliConfig, CliConfigProblem> {
        // Terraform reads this file with HCL 1, which accepts quoted keys inside a block
        // (`dev_overrides { "hashicorp/null" = "/dir" }`). HCL 2 only allows them in object
        // expressions, so we read `dev_overrides {` as the equivalent `dev_overrides = {`.
        let text = rewrite_dev_overrides_block(text);
        let body: Body = hcl::parse(&text).map_err(CliConfigProblem::Hcl)?;
        let mut config = CliConfig::default();
        for attribute in body.attributes() {
            if attribute.key() == "plugin_cache_dir" {
                let dir = string_value(attribute.expr()).ok_or(CliConfigProblem::PluginCacheDir)?;
                config.plugin_cache_dir = Some(PathBuf::from(expand_env(&dir)));
            }
        }
        for block in body.blocks() {
            match block.identifier() {
                "credentials" => {
                    let [label] = block.labels() else {
                        return Err(CliConfigProblem::CredentialsLabel);
                    };
                    let host = label.as_str().to_ascii_lowercase();
                    let token = block
                        .body()
                        .attributes()
                        .find(|attribute| attribute.key() == "token")
                        .and_then(|attribute| string_value(attribute.expr()));
                    if let Some(token) = token {
                        config.credentials.insert(host, Token::new(token));
                    }
                }
                "provider_installation" => parse_provider_installation(block.body(), &mut config)?,
                _ => {}
            }
        }
        Ok(config)
    }
}

fn parse_provider_installation(body: &Body, config: &mut CliConfig) -> Result<(), CliConfigProblem> {
    for attribute in body.attributes() {
        if attribute.key() != "dev_overrides" {
            return Err(CliConfigProblem::UnexpectedAttribute(attribute.key().to_owned()));
        }
        let Expression::Object(entries) = attribute.expr() else {
            return Err(CliConfigProblem::DevOverridesShape);
        };
        for (key, value) in entries {
            let key_text = match key {
                hcl::ObjectKey::Identifier(identifier) => identifier.to_string(),
                hcl::ObjectKey::Expression(expression) => string_value(expression).unwrap_or_default(),
                _ => String::new(),
            };
            let address = ProviderAddress::parse(&key_text).map_err(CliConfigProblem::DevOverrideAddress)?;
            let dir = string_value(value).ok_or_else(|| CliConfigProblem::DevOverrideDirectory(key_text.clone()))?;
            config.dev_overrides.insert(address, PathBuf::from(expand_env(&dir)));
        }
    }
    let mut methods = Vec::new();
    for block in body.blocks() {
        let method_body = block.body();
        let string_attribute = |name: &str| {
            method_body.attributes().find(|attribute| attribute.key() == name).and_then(|a| string_value(a.expr()))
        };
        let location = match block.identifier() {
            "direct" => MethodLocation::Direct,
            "filesystem_mirror" => {
                let path = string_attribute("path").ok_or(CliConfigProblem::MirrorPath)?;
                MethodLocation::FilesystemMirror(PathBuf::from(expand_env(&path)))
            }
            "network_mirror" => {
                let text = string_attribute("url").ok_or(CliConfigProblem::MirrorUrlMissing)?;
                let mut url = url::Url::parse(&text)
                    .map_err(|error| CliConfigProblem::MirrorUrl { text: text.clone(), error })?;
                if url.scheme() != "https" || url.host_str().is_none() {
                    return Err(CliConfigProblem::MirrorUrlNotHttps(text));
                }
                if !url.path().ends_with('/') {
                    url.set_path(&format!("{}/", url.path()));
                }
                MethodLocation::NetworkMirror(url)
            }
            other => return Err(CliConfigProblem::UnsupportedMethod(other.to_owned())),
        };
        let patterns = |name: &'static str| -> Result<Vec<ProviderPattern>, CliConfigProblem> {
            let Some(attribute) = method_body.attributes().find(|attribute| attribute.key() == name) else {
                return Ok(Vec::new());
            };
            let Expression::Array(items) = attribute.expr() else {
                return Err(CliConfigProblem::PatternList(name));
            };
            items
                .iter()
                .map(|item| string_value(item).ok_or(CliConfigProblem::PatternList(name)))
                .map(|text| text.and_then(|text| ProviderPattern::parse(&text)))
                .collect()
        };
        methods.push(InstallationMethod { location, include: patterns("include")?, exclude: patterns("exclude")? });
    }
    config.installation_methods = Some(methods);
    Ok(())
}

fn rewrite_dev_overrides_block(text: &str) -> String {
    let mut rewritten = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(found) = rest.find("dev_overrides") {
        let after = &rest[found + "dev_overrides".len()..];
        rewritten.push_str(&rest[..found + "dev_overrides".len()]);
        if after.trim_start().starts_with('{') {
            rewritten.push_str(" =");
        }
        rest = after;
    }
    rewritten.push_str(rest);
    rewritten
}

/// A plain string, or a quoted template (HCL 2 sees `"${HOME}/x"` as a template, which we expand
/// ourselves as Terraform expands environment variables in these settings).
fn string_value(expression: &Expression) -> Option<String> {
    match expression {
        Expression::String(text) => Some(text.clone()),
        Expression::TemplateExpr(template) => match template.as_ref() {
            hcl::TemplateExpr::QuotedString(text) => Some(text.clone()),
            hcl::TemplateExpr::Heredoc(_) => None,
        },
        _ => None,
    }
}

/// Expands `$NAME` and `${NAME}` like Go's `os.ExpandEnv`; unset variables become empty.
pub(crate) fn expand_env(text: &str) -> String {
    let mut expanded = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((idx, c)) = chars.next() {
        if c != '$' {
            expanded.push(c);
            continue;
        }
        let rest = &text[idx + 1..];
        let (name, consumed) = if let Some(braced) = rest.strip_prefix('{') {
            match braced.find('}') {
                Some(end) => (&braced[..end], end + 2),
                None => ("", 0),
            }
        } else {
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
            (&rest[..end], end)
        };
        if consumed == 0 || name.is_empty() {
            expanded.push('$');
            continue;
        }
        expanded.push_str(&std::env::var(name).unwrap_or_default());
        for _ in 0..rest[..consumed].chars().count() {
            chars.next();
        }
    }
    expanded
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;

    #[test]
    fn full_configuration() {
        let text = r#"
plugin_cache_dir = "/var/cache/terraform"
disable_checkpoint = true

credentials "App.Example.com" {
  token = "secret-token"
}

provider_installation {
  dev_overrides {
    "hashicorp/null" = "/home/dev/null-provider"
    "example.com/acme/thing" = "/opt/thing"
  }
  filesystem_mirror {
    path    = "/usr/share/terraform/providers"
    include = ["example.com/*/*"]
  }
  network_mirror {
    url     = "https://mirror.example.com/providers"
    exclude = ["example.com/*/*", "hashicorp/aws"]
  }
  direct {
    exclude = ["example.com/*/*"]
  }
}
"#;
        let config = CliConfig::parse(text).unwrap();
        expect![[r#"
            CliConfig {
                plugin_cache_dir: Some(
                    "/var/cache/terraform",
                ),
                credentials: {
                    "app.example.com": Token(<redacted>),
                },
                dev_overrides: {
                    ProviderAddress {
                        hostname: "example.com",
                        namespace: "acme",
                        type_name: "thing",
                    }: "/opt/thing",
                    ProviderAddress {
                        hostname: "registry.opentofu.org",
                        namespace: "hashicorp",
                        type_name: "null",
                    }: "/home/dev/null-provider",
                },
                installation_methods: Some(
                    [
                        InstallationMethod {
                            location: FilesystemMirror(
                                "/usr/share/terraform/providers",
                            ),
                            include: [
                                ProviderPattern {
                                    hostname: "example.com",
                                    namespace: "*",
                                    type_name: "*",
                                },
                            ],
                            exclude: [],
                        },
                        InstallationMethod {
                            location: NetworkMirror(
                                Url {
                                    scheme: "https",
                                    cannot_be_a_base: false,
                                    username: "",
                                    password: None,
                                    host: Some(
                                        Domain(
                                            "mirror.example.com",
                                        ),
                                    ),
                                    port: None,
                                    path: "/providers/",
                                    query: None,
                                    fragment: None,
                                },
                            ),
                            include: [],
                            exclude: [
                                ProviderPattern {
                                    hostname: "example.com",
                                    namespace: "*",
                                    type_name: "*",
                                },
                                ProviderPattern {
                                    hostname: "registry.opentofu.org",
                                    namespace: "hashicorp",
                                    type_name: "aws",
                                },
                            ],
                        },
                        InstallationMethod {
                            location: Direct,
                            include: [],
                            exclude: [
                                ProviderPattern {
                                    hostname: "example.com",
                                    namespace: "*",
                                    type_name: "*",
                                },
                            ],
                        },
                    ],
                ),
            }
        "#]]
        .assert_debug_eq(&config);
        let methods = config.installation_methods.unwrap();
        let thing = ProviderAddress::parse("example.com/acme/thing").unwrap();
        let aws = ProviderAddress::parse("hashicorp/aws").unwrap();
        let covers: Vec<(bool, bool)> = methods.iter().map(|m| (m.covers(&thing), m.covers(&aws))).collect();
        assert_eq!(covers, [(true, false), (false, false), (false, true)]);
    }

    #[test]
    fn errors_name_the_problem() {
        let check = |text: &str| CliConfig::parse(text).unwrap_err().to_string();
        expect![[r#"
            "network_mirror url \"http://mirror\" must be an https URL with a host"
        "#]]
        .assert_debug_eq(&check("provider_installation {\n network_mirror { url = \"http://mirror\" }\n}"));
        expect![[r#"
            "unsupported provider installation method \"oci_mirror\""
        "#]]
        .assert_debug_eq(&check("provider_installation {\n oci_mirror {}\n}"));
        expect![[r#"
            "invalid provider pattern \"*\": expected HOST/NAMESPACE/TYPE"
        "#]]
        .assert_debug_eq(&check("provider_installation {\n direct { include = [\"*\"] }\n}"));
    }

    #[test]
    fn environment_variables_are_expanded() {
        let home = std::env::var("HOME").unwrap_or_default();
        assert_eq!(expand_env("$HOME/x"), format!("{home}/x"));
        assert_eq!(expand_env("${HOME}/x"), format!("{home}/x"));
        assert_eq!(expand_env("a$"), "a$");
        assert_eq!(expand_env("${TFBRIDGE_SURELY_UNSET_VARIABLE}/y"), "/y");
    }
}
