//! What a Parameterize call asks for: the argument grammar of `pulumi package add
//! terraform-provider …` and the parameter value embedded in generated SDKs.
//!
//! Both formats are the Go implementation's, so that SDKs and Pulumi.yaml files made with
//! either implementation work with the other:
//! - [`Args`]: `<source> [version-constraint]` or one local path (starting with `.` or `/`),
//!   plus `--include`, `--exclude`, `--provider-name` and the hidden docs flags, parsed with
//!   the semantics of the cobra/pflag command the Go implementation uses (`--flag value`,
//!   `--flag=value`, comma lists that accumulate, `--` ending the flags).
//! - [`ParameterValue`]: `{"remote":{"url","version"}}` or `{"local":{"path"}}` plus `includes`,
//!   `excludes` and `providerName`. A value is a fully resolved request: an exact version,
//!   never a constraint, so a program never re-resolves "latest".
//!
//! Architecture invariant: pure parsing. Knows nothing about gRPC, the installer or the
//! schema; resolving a source to a binary happens elsewhere.

use serde::{Deserialize, Serialize};

/// Where the Terraform provider comes from, as the user wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A registry address (`random`, `hashicorp/random`, `host/ns/type`) and an optional
    /// Terraform version constraint.
    Registry { address: String, constraint: Option<String> },
    /// A provider binary on disk. Relative paths resolve against the provider's working
    /// directory, which the engine sets to the program directory.
    Local { path: String },
}

/// A parsed `ParametersArgs` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Args {
    /// Where the provider comes from: a registry address and version, or a local binary.
    pub source: Source,
    /// Terraform type names (resources, data sources, functions) to keep; empty keeps all.
    pub includes: Vec<String>,
    /// Terraform type names to drop.
    pub excludes: Vec<String>,
    /// Overrides the Pulumi package name (to avoid clashes between providers of one name).
    pub provider_name: Option<String>,
    /// The Go implementation's hidden `--fullDocs`, `--upstreamRepoPath` and
    /// `--indexDocOutDir`. Accepted so that recorded arguments keep parsing; full docs need
    /// a clone of the provider's repository, which this implementation does not do.
    pub docs: DocsFlags,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DocsFlags {
    pub full_docs: bool,
    pub upstream_repo_path: Option<String>,
    pub index_doc_out_dir: Option<String>,
}

/// Why Parameterize arguments were rejected. Messages follow the Go implementation's where
/// it has one, so users see the same words from either.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArgsError {
    /// Wrong number of positional arguments.
    #[error("accepts between 1 and 2 arg(s), received {received}\n\n{USAGE}")]
    ArgCount { received: usize },
    /// A flag this command does not have.
    #[error("unknown flag: {flag}\n\n{USAGE}")]
    UnknownFlag { flag: String },
    /// A flag that needs a value came last.
    #[error("flag needs an argument: {flag}\n\n{USAGE}")]
    MissingValue { flag: String },
    /// A boolean flag with a value other than true/false.
    #[error("invalid argument {value:?} for {flag}: expected true or false")]
    InvalidBool { flag: String, value: String },
    /// The same token was both included and excluded.
    #[error("tokens cannot be both included and excluded: {}", conflicts.join(", "))]
    IncludedAndExcluded { conflicts: Vec<String> },
    /// A local path followed by more positional arguments.
    #[error("local providers only accept one argument, found {found}")]
    LocalWithVersion { found: usize },
    /// A docs flag that does not apply to this kind of source.
    #[error("{0}")]
    DocsFlagMisplaced(&'static str),
    /// `--help` was asked for; there is nothing to parameterize.
    #[error("help text displayed\n\n{USAGE}")]
    Help,
}

const USAGE: &str = "Usage:
  pulumi package add terraform-provider <registry-address> [version-constraint] [-- flags]
  pulumi package add terraform-provider <./path/to/terraform-provider-name> [-- flags]

Flags:
      --include strings        Comma-separated Terraform tokens (resources, data sources, functions) to include
      --exclude strings        Comma-separated Terraform tokens to exclude
      --provider-name string   Custom name for the generated Pulumi package, to avoid name collisions";

enum FlagKind {
    Bool,
    String,
    StringList,
}

fn flag_kind(name: &str) -> Option<FlagKind> {
    match name {
        "fullDocs" => Some(FlagKind::Bool),
        "upstreamRepoPath" | "indexDocOutDir" | "provider-name" => Some(FlagKind::String),
        "include" | "exclude" => Some(FlagKind::StringList),
        _ => None,
    }
}

/// Parses `ParametersArgs.args` as the Go implementation's command does.
pub fn parse_args(args: &[String]) -> Result<Args, ArgsError> {
    let mut positionals = Vec::new();
    let mut includes = Vec::new();
    let mut excludes = Vec::new();
    let mut provider_name = None;
    let mut docs = DocsFlags::default();

    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == "--" {
            positionals.extend(iter.by_ref().cloned());
            break;
        }
        if arg == "--help" || arg == "-h" {
            return Err(ArgsError::Help);
        }
        let Some(flag) = arg.strip_prefix("--") else {
            if arg.len() > 1 && arg.starts_with('-') {
                // pflag reads a single dash as a bundle of one-letter flags; this command
                // has none besides -h.
                return Err(ArgsError::UnknownFlag { flag: arg.clone() });
            }
            positionals.push(arg.clone());
            continue;
        };
        let (name, inline_value) = match flag.split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (flag, None),
        };
        let Some(kind) = flag_kind(name) else {
            return Err(ArgsError::UnknownFlag { flag: format!("--{name}") });
        };
        let mut value = || -> Result<String, ArgsError> {
            match &inline_value {
                Some(value) => Ok(value.clone()),
                None => iter.next().cloned().ok_or_else(|| ArgsError::MissingValue { flag: format!("--{name}") }),
            }
        };
        match kind {
            FlagKind::Bool => {
                docs.full_docs = match inline_value.as_deref() {
                    None | Some("true") => true,
                    Some("false") => false,
                    Some(other) => {
                        return Err(ArgsError::InvalidBool { flag: format!("--{name}"), value: other.to_owned() });
                    }
                };
            }
            FlagKind::String => {
                let value = value()?;
                match name {
                    "provider-name" => provider_name = Some(value),
                    "upstreamRepoPath" => docs.upstream_repo_path = Some(value),
                    _ => docs.index_doc_out_dir = Some(value),
                }
            }
            FlagKind::StringList => {
                let list = split_comma_list(&value()?);
                if name == "include" { includes.extend(list) } else { excludes.extend(list) }
            }
        }
    }

    if !(1..=2).contains(&positionals.len()) {
        return Err(ArgsError::ArgCount { received: positionals.len() });
    }
    let mut conflicts: Vec<String> = includes.iter().filter(|token| excludes.contains(token)).cloned().collect();
    conflicts.sort();
    conflicts.dedup();
    if !conflicts.is_empty() {
        return Err(ArgsError::IncludedAndExcluded { conflicts });
    }

    let first = positionals.remove(0);
    let source = if is_local_path(&first) {
        if !positionals.is_empty() {
            return Err(ArgsError::LocalWithVersion { found: positionals.len() + 1 });
        }
        if docs.full_docs {
            return Err(ArgsError::DocsFlagMisplaced(
                "fullDocs only applies to remote providers, consider specifying upstreamRepoPath instead",
            ));
        }
        Source::Local { path: first }
    } else {
        if docs.upstream_repo_path.is_some() {
            return Err(ArgsError::DocsFlagMisplaced("upstreamRepoPath only applies to local providers"));
        }
        Source::Registry { address: first, constraint: positionals.pop().filter(|c| !c.is_empty()) }
    };
    Ok(Args { source, includes, excludes, provider_name: provider_name.filter(|n| !n.is_empty()), docs })
}

/// The Go implementation treats an argument as a path when it starts with `.` or `/`. So do
/// we, and also when it starts as a Windows path does: a drive letter (`C:\…`, `C:/…`) or a
/// backslash (`.\…` starts with `.` already; `\\server\share\…`). None of these can be a
/// registry address, whose host may carry a port but never a one-letter host with an empty
/// port. The Go implementation reads `C:\…` as an address ("dots are not allowed").
pub fn is_local_path(arg: &str) -> bool {
    let bytes = arg.as_bytes();
    let drive_letter = matches!(bytes, [letter, b':', b'\\' | b'/', ..] if letter.is_ascii_alphabetic());
    arg.starts_with(['.', '/', '\\']) || drive_letter
}

/// pflag's string-slice values are one CSV record: commas split, double quotes protect.
fn split_comma_list(text: &str) -> Vec<String> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut items = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if in_quotes && chars.peek() == Some(&'"') => {
                current.push('"');
                chars.next();
            }
            '"' => in_quotes = !in_quotes,
            ',' if !in_quotes => items.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    items.push(current);
    items
}

/// The parameter value embedded in generated SDKs and sent back as `ParametersValue.value`.
/// Unknown fields are ignored, as Go's decoder ignores them: a value written by a newer
/// release of either implementation must still load.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParameterValue {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote: Option<RemoteValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub local: Option<LocalValue>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub includes: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excludes: Vec<String>,
    #[serde(default, rename = "providerName", skip_serializing_if = "String::is_empty")]
    pub provider_name: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemoteValue {
    /// The provider's source address, e.g. `registry.opentofu.org/hashicorp/random`. Values
    /// written by converters may carry an unqualified `hashicorp/random`.
    pub url: String,
    /// The exact resolved version.
    pub version: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalValue {
    pub path: String,
}

/// Why a parameter value could not be used. The value normally comes from a generated SDK,
/// so any of these means the SDK was edited or produced by something else.
#[derive(Debug, thiserror::Error)]
pub enum ParameterValueError {
    /// Not the JSON shape of a parameter value.
    #[error("the parameter value is not valid: {0}")]
    Json(#[from] serde_json::Error),
    /// Both or neither of `remote` and `local`.
    #[error(r#"the parameter value must specify exactly one of "remote" or "local""#)]
    NotExactlyOneSource,
    /// A required field is empty.
    #[error("the parameter value's {0} cannot be empty")]
    Empty(&'static str),
}

impl ParameterValue {
    /// Reads and validates a parameter value.
    pub fn from_json(bytes: &[u8]) -> Result<ParameterValue, ParameterValueError> {
        let value: ParameterValue = serde_json::from_slice(bytes)?;
        match (&value.remote, &value.local) {
            (Some(remote), None) => {
                if remote.url.is_empty() {
                    return Err(ParameterValueError::Empty("remote.url"));
                }
                if remote.version.is_empty() {
                    return Err(ParameterValueError::Empty("remote.version"));
                }
            }
            (None, Some(local)) => {
                if local.path.is_empty() {
                    return Err(ParameterValueError::Empty("local.path"));
                }
            }
            _ => return Err(ParameterValueError::NotExactlyOneSource),
        }
        Ok(value)
    }

    /// The compact JSON, field order as the Go implementation writes it.
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_else(|err| unreachable!("a ParameterValue is plain data: {err}"))
    }

    /// The equivalent arguments: an exact version constraint, so nothing is re-resolved.
    pub fn to_args(&self) -> Args {
        let source = match (&self.remote, &self.local) {
            (Some(remote), _) => {
                Source::Registry { address: remote.url.clone(), constraint: Some(remote.version.clone()) }
            }
            (None, Some(local)) => Source::Local { path: local.path.clone() },
            (None, None) => unreachable!("from_json guarantees one source"),
        };
        Args {
            source,
            includes: self.includes.clone(),
            excludes: self.excludes.clone(),
            provider_name: (!self.provider_name.is_empty()).then(|| self.provider_name.clone()),
            docs: DocsFlags::default(),
        }
    }
}

/// The package version to answer a Parameterize call that carries a parameter value:
/// the version the engine asked for (`requested`, the value's `version` field) when it is a
/// version, else the provider's own (`ours`).
///
/// The engine names a package by the version its provider resource recorded, which for an
/// explicit provider is the plugin's version, not the package's. The schema loader (used
/// after `pulumi import` to write the program's code) then insists that the answer carries
/// the version it asked for: with a local provider (`0.0.0`) the import failed with
/// "unexpected parameterization response: 0.0.0 != 1.2.0", with both implementations.
/// The parameter value alone identifies the provider, so answering with the caller's label
/// loses nothing. `pulumi package add` sends arguments, never a value, so the SDKs it
/// writes keep the provider's own version.
pub fn announced_version(requested: &str, ours: &str) -> String {
    match semver::Version::parse(requested.trim_start_matches('v')) {
        Ok(version) => version.to_string(),
        Err(_) => ours.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{Expect, expect};

    #[track_caller]
    fn check(args: &str, expect: Expect) {
        let args: Vec<String> = args.split_whitespace().map(str::to_owned).collect();
        let actual = match parse_args(&args) {
            Ok(parsed) => format!("{parsed:?}"),
            Err(err) => format!("error: {}", err.to_string().lines().next().unwrap_or_default()),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn registry_sources() {
        check(
            "hashicorp/random",
            expect![[
                r#"Args { source: Registry { address: "hashicorp/random", constraint: None }, includes: [], excludes: [], provider_name: None, docs: DocsFlags { full_docs: false, upstream_repo_path: None, index_doc_out_dir: None } }"#
            ]],
        );
        check(
            "my-registry.io/typ v1.2.3",
            expect![[
                r#"Args { source: Registry { address: "my-registry.io/typ", constraint: Some("v1.2.3") }, includes: [], excludes: [], provider_name: None, docs: DocsFlags { full_docs: false, upstream_repo_path: None, index_doc_out_dir: None } }"#
            ]],
        );
        check(
            "hashicorp/random >=3.0,<4 --include random_pet,random_id --include=random_string --exclude random_uuid --provider-name=rnd",
            expect![[
                r#"Args { source: Registry { address: "hashicorp/random", constraint: Some(">=3.0,<4") }, includes: ["random_pet", "random_id", "random_string"], excludes: ["random_uuid"], provider_name: Some("rnd"), docs: DocsFlags { full_docs: false, upstream_repo_path: None, index_doc_out_dir: None } }"#
            ]],
        );
        check(
            "--include a bpg/proxmox",
            expect![[
                r#"Args { source: Registry { address: "bpg/proxmox", constraint: None }, includes: ["a"], excludes: [], provider_name: None, docs: DocsFlags { full_docs: false, upstream_repo_path: None, index_doc_out_dir: None } }"#
            ]],
        );
        check(
            "hashicorp/random --fullDocs --indexDocOutDir out",
            expect![[
                r#"Args { source: Registry { address: "hashicorp/random", constraint: None }, includes: [], excludes: [], provider_name: None, docs: DocsFlags { full_docs: true, upstream_repo_path: None, index_doc_out_dir: Some("out") } }"#
            ]],
        );
    }

    #[test]
    fn local_sources() {
        check(
            "./bin/terraform-provider-foo",
            expect![[
                r#"Args { source: Local { path: "./bin/terraform-provider-foo" }, includes: [], excludes: [], provider_name: None, docs: DocsFlags { full_docs: false, upstream_repo_path: None, index_doc_out_dir: None } }"#
            ]],
        );
        check(
            "/abs/terraform-provider-foo --upstreamRepoPath /src/foo",
            expect![[
                r#"Args { source: Local { path: "/abs/terraform-provider-foo" }, includes: [], excludes: [], provider_name: None, docs: DocsFlags { full_docs: false, upstream_repo_path: Some("/src/foo"), index_doc_out_dir: None } }"#
            ]],
        );
        // After `--` everything is positional, even what looks like a flag.
        check("-- ./x --include", expect![[r#"error: local providers only accept one argument, found 2"#]]);
    }

    #[test]
    fn windows_paths_are_local() {
        let cases = [
            (r"C:\Users\me\terraform-provider-foo.exe", true),
            ("C:/Users/me/terraform-provider-foo.exe", true),
            (r"d:\bin\terraform-provider-foo_v1.0.0_x5.exe", true),
            (r".\bin\terraform-provider-foo.exe", true),
            ("./bin/terraform-provider-foo.exe", true),
            (r"\\server\share\terraform-provider-foo.exe", true),
            (r"\bin\terraform-provider-foo.exe", true),
            ("hashicorp/random", false),
            ("registry.terraform.io/hashicorp/random", false),
            ("example.com:8443/ns/random", false),
            ("C:", false),
            ("c:random", false),
        ];
        for (arg, local) in cases {
            assert_eq!(is_local_path(arg), local, "{arg}");
        }
    }

    #[test]
    fn bad_arguments() {
        check("", expect![[r#"error: accepts between 1 and 2 arg(s), received 0"#]]);
        check("a b c", expect![[r#"error: accepts between 1 and 2 arg(s), received 3"#]]);
        check("a --bogus", expect![[r#"error: unknown flag: --bogus"#]]);
        check("a -x", expect![[r#"error: unknown flag: -x"#]]);
        check("a --include", expect![[r#"error: flag needs an argument: --include"#]]);
        check(
            "a --include x,y --exclude y,x",
            expect![[r#"error: tokens cannot be both included and excluded: x, y"#]],
        );
        check("./p 1.0", expect![[r#"error: local providers only accept one argument, found 2"#]]);
        check(
            "./p --fullDocs",
            expect![[
                r#"error: fullDocs only applies to remote providers, consider specifying upstreamRepoPath instead"#
            ]],
        );
        check("a --upstreamRepoPath x", expect![[r#"error: upstreamRepoPath only applies to local providers"#]]);
        check(
            "a --fullDocs=maybe",
            expect![[r#"error: invalid argument "maybe" for --fullDocs: expected true or false"#]],
        );
        check("a --help", expect![[r#"error: help text displayed"#]]);
    }

    #[test]
    fn comma_lists_follow_csv_quoting() {
        assert_eq!(split_comma_list(r#"a,"b,c",d"#), ["a", "b,c", "d"]);
        assert_eq!(split_comma_list(""), Vec::<String>::new());
        assert_eq!(split_comma_list("a,"), ["a", ""]);
    }

    #[track_caller]
    fn check_value(json: &str, expect: Expect) {
        let actual = match ParameterValue::from_json(json.as_bytes()) {
            Ok(value) => {
                let back = String::from_utf8(value.to_json()).unwrap();
                assert_eq!(ParameterValue::from_json(back.as_bytes()).unwrap(), value);
                format!("{back} => {:?}", value.to_args().source)
            }
            Err(err) => format!("error: {err}"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn values() {
        // The Go implementation's golden for hashicorp/random 3.3.0, decoded from its schema.
        check_value(
            r#"{"remote":{"url":"registry.opentofu.org/hashicorp/random","version":"3.3.0"}}"#,
            expect![[
                r#"{"remote":{"url":"registry.opentofu.org/hashicorp/random","version":"3.3.0"}} => Registry { address: "registry.opentofu.org/hashicorp/random", constraint: Some("3.3.0") }"#
            ]],
        );
        check_value(
            r#"{"local":{"path":"./bin/terraform-provider-foo"},"providerName":"foo2","includes":["foo_a"],"excludes":["foo_b"]}"#,
            expect![[
                r#"{"local":{"path":"./bin/terraform-provider-foo"},"includes":["foo_a"],"excludes":["foo_b"],"providerName":"foo2"} => Local { path: "./bin/terraform-provider-foo" }"#
            ]],
        );
        check_value(
            r#"{}"#,
            expect![[r#"error: the parameter value must specify exactly one of "remote" or "local""#]],
        );
        check_value(
            r#"{"remote":{"url":"a","version":"1"},"local":{"path":"b"}}"#,
            expect![[r#"error: the parameter value must specify exactly one of "remote" or "local""#]],
        );
        check_value(
            r#"{"remote":{"url":"","version":"1"}}"#,
            expect![[r#"error: the parameter value's remote.url cannot be empty"#]],
        );
        check_value(
            r#"{"remote":{"url":"a","version":""}}"#,
            expect![[r#"error: the parameter value's remote.version cannot be empty"#]],
        );
        check_value(
            r#"{"local":{"path":""}}"#,
            expect![[r#"error: the parameter value's local.path cannot be empty"#]],
        );
        check_value(
            r#"not json"#,
            expect![[r#"error: the parameter value is not valid: expected ident at line 1 column 2"#]],
        );
        check_value(
            r#"{"remote":{"url":"a","version":"1"},"fromTheFuture":1}"#,
            expect![[r#"{"remote":{"url":"a","version":"1"}} => Registry { address: "a", constraint: Some("1") }"#]],
        );
    }

    #[test]
    fn parameterize_answers_the_version_the_engine_asked_for() {
        // (requested, ours, answered)
        let cases = [
            ("100.0.0", "0.0.0", "100.0.0"),
            ("v100.0.0", "0.0.0", "100.0.0"),
            ("3.9.0", "3.9.0", "3.9.0"),
            ("", "3.9.0", "3.9.0"),
            ("not-a-version", "0.0.0", "0.0.0"),
        ];
        for (requested, ours, answered) in cases {
            assert_eq!(super::announced_version(requested, ours), answered, "{requested:?} / {ours:?}");
        }
    }
}
