//! Which program serves the `terraform-provider` plugin, and where each one's binary is: the
//! one answer for the gRPC-level tests (`engine_client`, `plugin`) and the CLI-level ones
//! (`pulumi`) alike, so both always run the same plugin.

use std::path::PathBuf;

/// Which program serves the `terraform-provider` plugin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Implementation {
    /// Our Rust binary, as built by cargo for this test run (or the copy
    /// `TFBRIDGE_TEST_PLUGIN_BINARY` names).
    Ours,
    /// The Go implementation (pulumi-terraform-bridge `dynamic`), built by
    /// `scripts/test-tools.sh anchor`.
    Go,
}

/// The environment variable naming a copy of our plugin to test instead of the one cargo
/// built: when several worktrees share one target directory, another build may replace the
/// binary while a test runs.
pub const PLUGIN_BINARY_VAR: &str = "TFBRIDGE_TEST_PLUGIN_BINARY";

/// Our plugin binary: the copy `TFBRIDGE_TEST_PLUGIN_BINARY` names, else the one cargo built.
pub fn our_plugin() -> PathBuf {
    match std::env::var_os(PLUGIN_BINARY_VAR) {
        Some(copy) if !copy.is_empty() => PathBuf::from(copy),
        _ => PathBuf::from(env!("CARGO_BIN_EXE_pulumi-resource-terraform-provider")),
    }
}

impl Implementation {
    pub const ALL: [Implementation; 2] = [Implementation::Ours, Implementation::Go];

    /// The plugin executable, or an error naming the script that builds it.
    pub fn plugin_binary(self) -> anyhow::Result<PathBuf> {
        match self {
            Implementation::Ours => Ok(our_plugin()),
            Implementation::Go => {
                let path = super::tools_dir()
                    .join("anchor")
                    .join(super::versions::BRIDGE)
                    .join("pulumi-resource-terraform-provider");
                anyhow::ensure!(
                    path.is_file(),
                    "the Go implementation is missing at {}: run scripts/test-tools.sh anchor",
                    path.display()
                );
                Ok(path)
            }
        }
    }

    /// The version the plugin is installed under; `package add terraform-provider@<v>` names it
    /// so the CLI never asks GitHub for the latest release.
    pub fn plugin_version(self) -> &'static str {
        match self {
            Implementation::Ours => env!("CARGO_PKG_VERSION"),
            Implementation::Go => super::versions::GO_IMPLEMENTATION,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Implementation::Ours => "ours",
            Implementation::Go => "go",
        }
    }
}
