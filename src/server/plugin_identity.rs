//! Which implementation of the `terraform-provider` plugin this is, and whether it was
//! installed under its own version.
//!
//! The Go implementation (pulumi-terraform-provider) is the same plugin to Pulumi: same name,
//! same protocol, same plugin cache (`$PULUMI_HOME/plugins/resource-terraform-provider-v<version>`).
//! Only the version tells them apart, so ours has a line of its own (100.x; README, "Which
//! implementation runs"), and every way a user looks says it: `--version`, GetPluginInfo, the
//! start-up log line, and this module's warning when the cache folder the engine started us
//! from names another version (the Go implementation's, say), where a project asking for that
//! version silently runs us.
//!
//! Architecture invariant: pure; the caller reads the executable's path and logs.

use std::path::Path;

/// Cargo.toml's version: `--version`, GetPluginInfo and the base provider version of every
/// schema we write.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// `--version`'s text after the program name, and how the log names us.
pub const VERSION_TEXT: &str = concat!(env!("CARGO_PKG_VERSION"), " (Rust implementation)");

/// The folder name Pulumi's plugin cache gives a resource plugin `terraform-provider` of some
/// version: `resource-terraform-provider-v<version>`.
const CACHE_FOLDER_PREFIX: &str = "resource-terraform-provider-v";

/// The version the plugin cache holds this executable under: `<version>` when `executable`
/// (the path the engine started, before symbolic links are resolved) lies directly in a
/// folder `resource-terraform-provider-v<version>`; `None` for anywhere else (`PATH`, a
/// build directory, attach mode).
pub fn installed_as(executable: &Path) -> Option<&str> {
    let folder = executable.parent()?.file_name()?.to_str()?;
    folder.strip_prefix(CACHE_FOLDER_PREFIX).filter(|version| !version.is_empty())
}

/// The warning for a plugin installed under a version not its own, or `None` when the
/// versions agree. Pulumi picks a plugin by the folder's version (build metadata aside), so
/// equal precedence is agreement, and a folder that is not a version says nothing.
pub fn version_mismatch(installed_as: &str, ours: &str) -> Option<String> {
    let (Ok(installed), Ok(own)) = (semver::Version::parse(installed_as), semver::Version::parse(ours)) else {
        return None;
    };
    if installed.cmp_precedence(&own).is_eq() {
        return None;
    }
    Some(format!(
        "this terraform-provider plugin is pulumi-resource-terraform-provider {ours} (Rust implementation), \
         installed under version {installed_as}: a project that asks for terraform-provider {installed_as} \
         runs it. Install it under its own version (`pulumi plugin install resource terraform-provider {ours} \
         --file <binary>`) and give version {installed_as}'s folder back to the binary that is {installed_as}"
    ))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn cache_folder_names_the_version() {
        let cases = [
            (
                "/home/u/.pulumi/plugins/resource-terraform-provider-v100.0.0/pulumi-resource-terraform-provider",
                Some("100.0.0"),
            ),
            ("/p/plugins/resource-terraform-provider-v1.1.3/pulumi-resource-terraform-provider", Some("1.1.3")),
            ("/p/plugins/resource-terraform-provider-v/pulumi-resource-terraform-provider", None),
            ("/p/plugins/resource-terraform-module-v1.0.0/pulumi-resource-terraform-provider", None),
            ("/home/u/.cargo/bin/pulumi-resource-terraform-provider", None),
            ("pulumi-resource-terraform-provider", None),
        ];
        for (path, want) in cases {
            assert_eq!(installed_as(Path::new(path)), want, "{path}");
        }
    }

    #[test]
    fn only_another_version_warns() {
        // (installed as, ours, warns)
        let cases = [
            ("100.0.0", "100.0.0", false),
            ("100.0.0+local", "100.0.0", false),
            ("1.1.3", "100.0.0", true),
            ("1.2.0", "100.0.0", true),
            ("100.0.1", "100.0.0", true),
            ("100.0.0-rc.1", "100.0.0", true),
            ("latest", "100.0.0", false),
        ];
        for (installed, ours, warns) in cases {
            let warning = version_mismatch(installed, ours);
            assert_eq!(warning.is_some(), warns, "{installed} / {ours}: {warning:?}");
            if let Some(text) = warning {
                assert!(text.contains(&format!("terraform-provider {installed} runs it")), "{text}");
                assert!(text.contains(&format!("pulumi-resource-terraform-provider {ours} (Rust")), "{text}");
            }
        }
    }
}
