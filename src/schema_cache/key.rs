//! What a cache entry answers for: one provider binary, as it is on disk now, read by one
//! build of the bridge.
//!
//! The binary is identified by its file's identity and metadata (canonical path, device,
//! inode, size, modification and change times), not by hashing its contents: a real
//! AWS-scale provider is hundreds of megabytes, and hashing it on every start costs more
//! than the schema call the cache saves (see BENCHMARKS.md). Replacing or rewriting the file
//! changes its change time (which no user-level tool can set back) and usually its inode, so
//! a binary that changed on disk never matches an old entry. The bridge's own build is
//! identified the same way (its executable's size and modification time, besides its
//! version), so an entry written by another build, whose schema model may differ, is never
//! read.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use aws_lc_rs::digest;
use serde::{Deserialize, Serialize};

/// The entry format (`entry.rs`): bumped whenever its layout changes; part of the key, so
/// an entry of another format is never taken for this one.
pub const FORMAT_VERSION: u32 = 1;

/// Everything that changes what start-up would learn from a provider binary.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheKey {
    pub format: u32,
    /// `CARGO_PKG_VERSION` of the bridge.
    pub bridge_version: String,
    /// The bridge executable's identity: another build may model schemas differently.
    pub bridge_build: FileIdentity,
    /// The provider binary, canonical.
    pub binary: PathBuf,
    pub binary_identity: FileIdentity,
}

/// A file's identity as `stat` reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileIdentity {
    pub device: u64,
    pub inode: u64,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
}

impl FileIdentity {
    pub fn of(metadata: &std::fs::Metadata) -> FileIdentity {
        FileIdentity {
            device: metadata.dev(),
            inode: metadata.ino(),
            size: metadata.size(),
            mtime_ns: i128::from(metadata.mtime()) * 1_000_000_000 + i128::from(metadata.mtime_nsec()),
            ctime_ns: i128::from(metadata.ctime()) * 1_000_000_000 + i128::from(metadata.ctime_nsec()),
        }
    }
}

impl CacheKey {
    /// The key of `binary` read by the running build, or why there is none.
    pub fn for_binary(binary: &Path, bridge_executable: &Path) -> std::io::Result<CacheKey> {
        let binary = binary.canonicalize()?;
        let binary_identity = FileIdentity::of(&std::fs::metadata(&binary)?);
        let bridge_build = FileIdentity::of(&std::fs::metadata(bridge_executable)?);
        Ok(CacheKey {
            format: FORMAT_VERSION,
            bridge_version: env!("CARGO_PKG_VERSION").to_owned(),
            bridge_build,
            binary,
            binary_identity,
        })
    }

    /// The entry's file name: a digest of the whole key, so any change to it is another
    /// file. The entry repeats the key, which reading checks.
    pub fn file_name(&self) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        let digest = digest::digest(&digest::SHA256, &json);
        let hex: String = digest.as_ref()[..16].iter().map(|b| format!("{b:02x}")).collect();
        format!("{hex}.schema")
    }
}
