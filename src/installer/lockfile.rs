//! Reading Terraform's dependency lock file (`.terraform.lock.hcl`): when it has an entry for
//! the provider, that entry's version is the only acceptable one and the package must match
//! one of its hashes. We never write the file: installing for Pulumi must not change a
//! Terraform working directory.
//!
//! Architecture invariant: read-only.

use std::path::{Path, PathBuf};

use semver::Version;

use super::address::ProviderAddress;
use super::error::Error;

/// The lock file's entry for one provider.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LockedProvider {
    pub(crate) lock_file: PathBuf,
    pub(crate) version: Version,
    pub(crate) hashes: Vec<String>,
}

/// Reads the entry for `address` from the lock file at `path`; a missing file or entry is `None`.
pub(crate) fn read_locked_provider(path: &Path, address: &ProviderAddress) -> Result<Option<LockedProvider>, Error> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(Error::Io { action: "cannot read", path: path.to_owned(), source }),
    };
    let lock_error = |reason: String| Error::LockFile { path: path.to_owned(), reason };
    let body = hcl::parse(&text).map_err(|error| lock_error(error.to_string()))?;
    for block in body.blocks().filter(|block| block.identifier() == "provider") {
        let [label] = block.labels() else {
            return Err(lock_error("a provider block needs exactly one label".to_owned()));
        };
        let Ok(locked_address) = ProviderAddress::parse(label.as_str()) else {
            return Err(lock_error(format!("invalid provider address {:?}", label.as_str())));
        };
        if locked_address != *address {
            continue;
        }
        let mut version = None;
        let mut hashes = Vec::new();
        for attribute in block.body().attributes() {
            match (attribute.key(), attribute.expr()) {
                ("version", hcl::Expression::String(text)) => {
                    version = Some(Version::parse(text).map_err(|error| {
                        lock_error(format!(
                            "provider {label}: invalid version {text:?}: {error}",
                            label = label.as_str()
                        ))
                    })?);
                }
                ("hashes", hcl::Expression::Array(items)) => {
                    hashes.extend(items.iter().filter_map(|item| match item {
                        hcl::Expression::String(text) => Some(text.clone()),
                        _ => None,
                    }));
                }
                _ => {}
            }
        }
        let Some(version) = version else {
            return Err(lock_error(format!("provider {:?} has no version", label.as_str())));
        };
        return Ok(Some(LockedProvider { lock_file: path.to_owned(), version, hashes }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_matching_entry() {
        let temp = tempfile::tempdir().unwrap();
        let path = temp.path().join(".terraform.lock.hcl");
        std::fs::write(
            &path,
            r#"
# This file is maintained automatically by "terraform init".
provider "registry.terraform.io/hashicorp/random" {
  version     = "3.6.0"
  constraints = "~> 3.0"
  hashes = [
    "h1:abc=",
    "zh:0123",
  ]
}
provider "registry.opentofu.org/hashicorp/random" {
  version = "3.9.0"
  hashes  = ["h1:def="]
}
"#,
        )
        .unwrap();
        let random = ProviderAddress::parse("registry.terraform.io/hashicorp/random").unwrap();
        let locked = read_locked_provider(&path, &random).unwrap().unwrap();
        assert_eq!(locked.version, Version::new(3, 6, 0));
        assert_eq!(locked.hashes, ["h1:abc=", "zh:0123"]);
        let tofu_random = ProviderAddress::parse("hashicorp/random").unwrap();
        assert_eq!(read_locked_provider(&path, &tofu_random).unwrap().unwrap().version, Version::new(3, 9, 0));
        let null = ProviderAddress::parse("hashicorp/null").unwrap();
        assert_eq!(read_locked_provider(&path, &null).unwrap(), None);
        assert_eq!(read_locked_provider(&temp.path().join("absent"), &null).unwrap(), None);
    }
}
