//! Where Terraform and Pulumi keep per-user files on each system, as pure functions of the
//! environment variables and the system's name (`std::env::consts::OS`), so every system's
//! answer is tested on any of them.
//!
//! - The home directory is Go's `os.UserHomeDir`, which both Pulumi and Terraform use:
//!   `%USERPROFILE%` on Windows, `$HOME` elsewhere.
//! - Terraform's CLI configuration is `%APPDATA%\terraform.rc` on Windows and
//!   `~/.terraformrc` elsewhere; OpenTofu's, read first, `tofu.rc` and `~/.tofurc`.
//! - Terraform's implied local mirrors are `terraform.d/plugins` in the working directory,
//!   then its configuration directory's `plugins` (`%APPDATA%\terraform.d`, `~/.terraform.d`),
//!   then each data directory's `plugins`: `%APPDATA%\HashiCorp\Terraform` on Windows,
//!   `~/Library/Application Support/io.terraform` and `/Library/Application Support/io.terraform`
//!   on macOS, and the XDG data directories elsewhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn var<'a>(vars: &'a BTreeMap<String, String>, name: &str) -> Option<&'a str> {
    vars.get(name).map(String::as_str).filter(|value| !value.is_empty())
}

/// The user's home directory, as Go's `os.UserHomeDir` finds it.
pub(crate) fn home(vars: &BTreeMap<String, String>, os: &str) -> Option<PathBuf> {
    var(vars, if os == "windows" { "USERPROFILE" } else { "HOME" }).map(PathBuf::from)
}

/// The CLI configuration files to try, in order, when `TF_CLI_CONFIG_FILE` is not set.
pub(crate) fn cli_config_files(vars: &BTreeMap<String, String>, os: &str) -> Vec<PathBuf> {
    if os == "windows" {
        let Some(app_data) = var(vars, "APPDATA") else { return Vec::new() };
        return ["tofu.rc", "terraform.rc"].iter().map(|name| Path::new(app_data).join(name)).collect();
    }
    let Some(home) = home(vars, os) else { return Vec::new() };
    [".tofurc", ".terraformrc"].iter().map(|name| home.join(name)).collect()
}

/// Terraform's implied local mirror directories, used when the CLI configuration has no
/// `provider_installation` block.
pub(crate) fn implicit_mirror_dirs(working_dir: &Path, vars: &BTreeMap<String, String>, os: &str) -> Vec<PathBuf> {
    let plugins = |dir: PathBuf| dir.join("plugins");
    let mut dirs = vec![working_dir.join("terraform.d").join("plugins")];
    let home = home(vars, os);
    match os {
        "windows" => {
            if let Some(app_data) = var(vars, "APPDATA").map(PathBuf::from) {
                dirs.push(plugins(app_data.join("terraform.d")));
                dirs.push(plugins(app_data.join("HashiCorp").join("Terraform")));
            }
        }
        "macos" => {
            if let Some(home) = &home {
                dirs.push(plugins(home.join(".terraform.d")));
                dirs.push(plugins(home.join("Library/Application Support/io.terraform")));
            }
            dirs.push(plugins(PathBuf::from("/Library/Application Support/io.terraform")));
        }
        _ => {
            if let Some(home) = &home {
                dirs.push(plugins(home.join(".terraform.d")));
            }
            let data_home =
                var(vars, "XDG_DATA_HOME").map(PathBuf::from).or_else(|| home.map(|h| h.join(".local/share")));
            dirs.extend(data_home.map(|dir| plugins(dir.join("terraform"))));
            let data_dirs = var(vars, "XDG_DATA_DIRS").unwrap_or("/usr/local/share:/usr/share");
            dirs.extend(
                data_dirs.split(':').filter(|dir| !dir.is_empty()).map(|dir| plugins(Path::new(dir).join("terraform"))),
            );
        }
    }
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(name, value)| ((*name).to_owned(), (*value).to_owned())).collect()
    }

    /// Paths with `/` whatever the host joins with, so one expectation holds everywhere.
    fn shown(paths: &[PathBuf]) -> Vec<String> {
        paths.iter().map(|path| path.to_string_lossy().replace('\\', "/")).collect()
    }

    #[test]
    fn home_is_go_s_user_home_dir() {
        let both = vars(&[("HOME", "/home/u"), ("USERPROFILE", r"C:\Users\u")]);
        assert_eq!(home(&both, "linux"), Some(PathBuf::from("/home/u")));
        assert_eq!(home(&both, "macos"), Some(PathBuf::from("/home/u")));
        assert_eq!(home(&both, "windows"), Some(PathBuf::from(r"C:\Users\u")));
        assert_eq!(home(&vars(&[("HOME", "/home/u")]), "windows"), None);
        assert_eq!(home(&vars(&[("HOME", "")]), "linux"), None);
    }

    #[test]
    fn cli_configuration_files_per_system() {
        let env =
            vars(&[("HOME", "/home/u"), ("USERPROFILE", r"C:\Users\u"), ("APPDATA", r"C:\Users\u\AppData\Roaming")]);
        assert_eq!(shown(&cli_config_files(&env, "linux")), ["/home/u/.tofurc", "/home/u/.terraformrc"]);
        assert_eq!(shown(&cli_config_files(&env, "macos")), ["/home/u/.tofurc", "/home/u/.terraformrc"]);
        assert_eq!(
            shown(&cli_config_files(&env, "windows")),
            ["C:/Users/u/AppData/Roaming/tofu.rc", "C:/Users/u/AppData/Roaming/terraform.rc"]
        );
        assert!(cli_config_files(&vars(&[("HOME", "/home/u")]), "windows").is_empty());
    }

    #[test]
    fn implied_mirror_directories_per_system() {
        let env = vars(&[
            ("HOME", "/home/u"),
            ("USERPROFILE", r"C:\Users\u"),
            ("APPDATA", r"C:\Users\u\AppData\Roaming"),
            ("XDG_DATA_DIRS", "/opt/share"),
        ]);
        let work = Path::new("/work");
        assert_eq!(
            shown(&implicit_mirror_dirs(work, &env, "linux")),
            [
                "/work/terraform.d/plugins",
                "/home/u/.terraform.d/plugins",
                "/home/u/.local/share/terraform/plugins",
                "/opt/share/terraform/plugins",
            ]
        );
        assert_eq!(
            shown(&implicit_mirror_dirs(work, &env, "macos")),
            [
                "/work/terraform.d/plugins",
                "/home/u/.terraform.d/plugins",
                "/home/u/Library/Application Support/io.terraform/plugins",
                "/Library/Application Support/io.terraform/plugins",
            ]
        );
        assert_eq!(
            shown(&implicit_mirror_dirs(work, &env, "windows")),
            [
                "/work/terraform.d/plugins",
                "C:/Users/u/AppData/Roaming/terraform.d/plugins",
                "C:/Users/u/AppData/Roaming/HashiCorp/Terraform/plugins",
            ]
        );
        let xdg = vars(&[("HOME", "/h"), ("XDG_DATA_HOME", "/d")]);
        assert_eq!(
            shown(&implicit_mirror_dirs(work, &xdg, "freebsd")),
            [
                "/work/terraform.d/plugins",
                "/h/.terraform.d/plugins",
                "/d/terraform/plugins",
                "/usr/local/share/terraform/plugins",
                "/usr/share/terraform/plugins",
            ]
        );
    }
}
