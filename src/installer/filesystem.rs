//! Local provider directories: the unpacked layout
//! (`<base>/<host>/<ns>/<type>/<version>/<os>_<arch>/`) used by caches and mirrors, the packed
//! layout (`<base>/<host>/<ns>/<type>/terraform-provider-<type>_<version>_<os>_<arch>.zip`) used
//! by mirrors, and Terraform's rule for picking the executable inside a package directory.
//!
//! Architecture invariant: read-only; installing into a directory is `cache`'s job.

use std::path::{Path, PathBuf};

use semver::Version;

use super::address::{Platform, ProviderAddress};

/// A package found in a local directory.
#[derive(Clone, Debug)]
pub(crate) struct LocalPackage {
    pub(crate) version: Version,
    pub(crate) location: LocalLocation,
}

#[derive(Clone, Debug)]
pub(crate) enum LocalLocation {
    /// A package directory holding the executable.
    Unpacked(PathBuf),
    /// A zip archive still to be extracted.
    Packed(PathBuf),
}

/// `<base>/<host>/<ns>/<type>`.
pub(crate) fn provider_dir(base: &Path, address: &ProviderAddress) -> PathBuf {
    base.join(&address.hostname).join(&address.namespace).join(&address.type_name)
}

/// `<base>/<host>/<ns>/<type>/<version>/<os>_<arch>`.
pub(crate) fn unpacked_package_dir(
    base: &Path,
    address: &ProviderAddress,
    version: &Version,
    platform: &Platform,
) -> PathBuf {
    provider_dir(base, address).join(version.to_string()).join(platform.to_string())
}

/// Every package for `address` and `platform` under `base`, in both layouts. Unpacked
/// directories without an executable (for example a crashed install) are skipped. A missing
/// or unreadable directory simply holds nothing, as in Terraform.
pub(crate) fn scan(base: &Path, address: &ProviderAddress, platform: &Platform) -> Vec<LocalPackage> {
    let dir = provider_dir(base, address);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let packed_prefix = format!("terraform-provider-{}_", address.type_name);
    let packed_suffix = format!("_{platform}.zip");
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if path.is_dir() {
            let Ok(version) = Version::parse(&name) else { continue };
            let package_dir = path.join(platform.to_string());
            if package_dir.is_dir() && find_executable(&package_dir, &address.type_name).is_some() {
                found.push(LocalPackage { version, location: LocalLocation::Unpacked(package_dir) });
            }
            continue;
        }
        let lowercase = name.to_ascii_lowercase();
        let Some(version_text) =
            lowercase.strip_prefix(&packed_prefix).and_then(|rest| rest.strip_suffix(&packed_suffix))
        else {
            continue;
        };
        if let Ok(version) = Version::parse(version_text) {
            found.push(LocalPackage { version, location: LocalLocation::Packed(path) });
        }
    }
    found
}

/// Terraform's executable selection: the first directory entry in lexical order that is not a
/// directory and is named `terraform-provider-<type>` exactly or followed by `_` or `.`
/// (`terraform-provider-aws_v5.0.0_x5`, `terraform-provider-aws.exe`).
pub fn find_executable(package_dir: &Path, type_name: &str) -> Option<PathBuf> {
    let prefix = format!("terraform-provider-{type_name}");
    let mut names: Vec<String> = std::fs::read_dir(package_dir)
        .ok()?
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names.into_iter().map(|name| package_dir.join(&name)).find(|path| {
        let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
        let Some(rest) = name.strip_prefix(&prefix) else { return false };
        (rest.is_empty() || rest.starts_with('_') || rest.starts_with('.')) && !path.is_dir()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn executable_selection_follows_terraform() {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path();
        for name in
            ["LICENSE", "terraform-provider-awsome", "terraform-provider-aws_v5.0.0_x5", "terraform-provider-aws.exe"]
        {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        std::fs::create_dir(dir.join("terraform-provider-aws")).unwrap();
        let found = find_executable(dir, "aws").unwrap();
        // "terraform-provider-aws" is a directory and "terraform-provider-aws.exe" sorts before "_".
        assert_eq!(found.file_name().unwrap(), "terraform-provider-aws.exe");
        assert_eq!(find_executable(dir, "awsom"), None);
    }

    #[test]
    fn scan_finds_both_layouts_and_skips_broken_dirs() {
        let temp = tempfile::tempdir().unwrap();
        let address = ProviderAddress::parse("example.com/acme/thing").unwrap();
        let platform = Platform { os: "linux".to_owned(), arch: "amd64".to_owned() };
        let provider = provider_dir(temp.path(), &address);
        let good = provider.join("1.0.0/linux_amd64");
        std::fs::create_dir_all(&good).unwrap();
        std::fs::write(good.join("terraform-provider-thing_v1.0.0"), b"").unwrap();
        std::fs::create_dir_all(provider.join("1.1.0/linux_amd64")).unwrap();
        std::fs::create_dir_all(provider.join("1.2.0/darwin_arm64")).unwrap();
        std::fs::write(provider.join("terraform-provider-thing_2.0.0_linux_amd64.zip"), b"").unwrap();
        std::fs::write(provider.join("terraform-provider-thing_3.0.0_darwin_arm64.zip"), b"").unwrap();
        let mut found: Vec<String> = scan(temp.path(), &address, &platform)
            .into_iter()
            .map(|package| match package.location {
                LocalLocation::Unpacked(_) => format!("{} unpacked", package.version),
                LocalLocation::Packed(_) => format!("{} packed", package.version),
            })
            .collect();
        found.sort();
        assert_eq!(found, ["1.0.0 unpacked", "2.0.0 packed"]);
    }
}
