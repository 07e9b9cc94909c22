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

use std::path::{Path, PathBuf};

use aws_lc_rs::digest;
use serde::{Deserialize, Serialize};

/// The entry format (`entry.rs`): bumped whenever its layout changes; part of the key, so
/// an entry of another format is never taken for this one.
pub const FORMAT_VERSION: u32 = 1;

// The cache's file names live here, on its ground floor, so that every file of the cache
// names them without importing another: entries are `<digest>.schema` (`CacheKey::file_name`)
// and `<digest>-<inputs>.package`.

/// The end of a translated package entry's name; eviction treats such files as entries.
pub const PACKAGE_SUFFIX: &str = ".package";

/// The start of a temporary file's name.
pub const TEMP_PREFIX: &str = ".tmp-";

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

/// A file's identity as the system reports it: on Unix `stat`'s device, inode, size and
/// modification and change times; on Windows the volume serial number, the file index (the
/// NTFS file id), the size, and the last-write and change times of `FILE_BASIC_INFO`. Either
/// way a rewrite changes the change time, which no user-level tool sets back, and a replaced
/// file (a new install, a rename over it) gets another inode or file index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileIdentity {
    pub device: u64,
    pub inode: u64,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
}

impl FileIdentity {
    /// The identity of the file at `path` (links followed).
    #[cfg(unix)]
    pub fn of(path: &Path) -> std::io::Result<FileIdentity> {
        use std::os::unix::fs::MetadataExt;
        let metadata = std::fs::metadata(path)?;
        Ok(FileIdentity {
            device: metadata.dev(),
            inode: metadata.ino(),
            size: metadata.size(),
            mtime_ns: i128::from(metadata.mtime()) * 1_000_000_000 + i128::from(metadata.mtime_nsec()),
            ctime_ns: i128::from(metadata.ctime()) * 1_000_000_000 + i128::from(metadata.ctime_nsec()),
        })
    }

    /// The identity of the file at `path` (links followed). std's `MetadataExt` gives no
    /// change time and keeps the volume serial and file index unstable, so both come from
    /// the system: `GetFileInformationByHandle` and `GetFileInformationByHandleEx`.
    #[cfg(windows)]
    pub fn of(path: &Path) -> std::io::Result<FileIdentity> {
        use std::os::windows::io::AsRawHandle;
        use windows_sys::Win32::Storage::FileSystem::{
            BY_HANDLE_FILE_INFORMATION, FILE_BASIC_INFO, FileBasicInfo, GetFileInformationByHandle,
            GetFileInformationByHandleEx,
        };
        let file = std::fs::File::open(path)?;
        let handle = file.as_raw_handle();
        // SAFETY: both structures are plain data the calls fill in; `handle` stays open
        // (owned by `file`) for the duration of both calls.
        let (info, basic) = unsafe {
            let mut info: BY_HANDLE_FILE_INFORMATION = std::mem::zeroed();
            if GetFileInformationByHandle(handle, &mut info) == 0 {
                return Err(std::io::Error::last_os_error());
            }
            let mut basic: FILE_BASIC_INFO = std::mem::zeroed();
            let size = u32::try_from(std::mem::size_of::<FILE_BASIC_INFO>()).unwrap_or(u32::MAX);
            if GetFileInformationByHandleEx(handle, FileBasicInfo, (&raw mut basic).cast(), size) == 0 {
                return Err(std::io::Error::last_os_error());
            }
            (info, basic)
        };
        let join = |high: u32, low: u32| (u64::from(high) << 32) | u64::from(low);
        // FILETIME ticks are 100 ns since 1601; only equality matters here.
        let ticks_to_ns = |ticks: i64| i128::from(ticks) * 100;
        Ok(FileIdentity {
            device: u64::from(info.dwVolumeSerialNumber),
            inode: join(info.nFileIndexHigh, info.nFileIndexLow),
            size: join(info.nFileSizeHigh, info.nFileSizeLow),
            mtime_ns: ticks_to_ns(basic.LastWriteTime),
            ctime_ns: ticks_to_ns(basic.ChangeTime),
        })
    }
}

impl CacheKey {
    /// The key of `binary` read by the running build, or why there is none.
    pub fn for_binary(binary: &Path, bridge_executable: &Path) -> std::io::Result<CacheKey> {
        let binary = binary.canonicalize()?;
        let binary_identity = FileIdentity::of(&binary)?;
        let bridge_build = FileIdentity::of(bridge_executable)?;
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
