//! The persistent schema cache: what start-up learns from a provider binary, kept across
//! runs so a warm start needs no GetProviderSchema and decodes only what it uses.
//!
//! - [`CacheKey`] (`key`): which binary, as it is on disk now, read by which build of us.
//! - `entry`: one entry's bytes, written with a format version, the key and a SHA-256 of
//!   the payload, and verified on read ([`EntryProblem`] says why one was refused).
//! - [`SchemaCache`] (`store`): the directory, atomic writes, the size bound (least
//!   recently used entries evicted), safe with concurrent processes without locks.
//! - [`LazySchema`] (`lazy`): the schema as start-up holds it, whole or decoded per item.
//! - `package`: the translated Pulumi package schema (GetSchema's answer) per binary and
//!   translation settings, so a warm GetSchema neither translates nor waits for the provider.
//!
//! The cache stores the serde form of the whole [`schema_gen::tf::ProviderSchema`] and a
//! serde value of "start-up facts" the caller defines, so a new field in either is cached
//! with no change here; the bridge's build in the key keeps entries of another model out.
//! Deciding *whether* to trust the cache for a running provider (the
//! `get_provider_schema_optional` its cached GetProviderSchema answer declared) is the
//! caller's (`lifecycle`).
//!
//! Location: `.schema-cache/` inside our plugin cache (`PULUMI_DYNAMIC_TF_PLUGIN_CACHE_DIR`,
//! else `$PULUMI_HOME/dynamic_tf_plugins`), where no provider host name can collide with
//! it. `PULUMI_TF_SCHEMA_CACHE=off` turns it off; `PULUMI_TF_SCHEMA_CACHE_MAX_MB` bounds it
//! (512 MB by default: dozens of AWS-sized entries).
//!
//! Architecture invariant: the file system and serde only; no provider, no gRPC. A failure
//! to read or write is a miss or a skipped write, reported as a value for a debug line, not
//! an error of the run, with one exception: an entry that passed its checks but cannot be
//! read or decoded when an item is first used ([`LazySchemaError`]) fails that use and is
//! removed, so the next run starts cold.

mod entry;
mod key;
mod lazy;
mod package;
mod store;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

pub use entry::{EncodeError, EntryProblem};
pub use key::{CacheKey, FileIdentity};
pub use lazy::{LazySchema, LazySchemaError};
pub use package::inputs_digest as package_inputs_digest;
pub use store::{Miss, SchemaCache, StoreError};

/// The default bound on the cache directory.
pub const DEFAULT_MAX_MB: u64 = 512;

impl SchemaCache {
    /// The cache the environment asks for, or `None` when it is turned off.
    pub fn from_environment() -> Option<SchemaCache> {
        SchemaCache::from_variables(&std::env::vars().collect())
    }

    /// [`SchemaCache::from_environment`] with the variables given explicitly.
    pub fn from_variables(vars: &BTreeMap<String, String>) -> Option<SchemaCache> {
        let setting = vars.get("PULUMI_TF_SCHEMA_CACHE").map(|v| v.to_ascii_lowercase());
        if matches!(setting.as_deref(), Some("off" | "0" | "false")) {
            return None;
        }
        let max_mb = vars
            .get("PULUMI_TF_SCHEMA_CACHE_MAX_MB")
            .and_then(|text| text.trim().parse::<u64>().ok())
            .unwrap_or(DEFAULT_MAX_MB);
        Some(SchemaCache {
            dir: crate::installer::plugin_cache_dir(vars).join(".schema-cache"),
            max_bytes: max_mb.saturating_mul(1024 * 1024),
        })
    }
}
