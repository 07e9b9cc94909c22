//! Launching the Rust fixture provider (`tests/fixture-provider`, binary
//! `terraform-provider-fixture`) through `tfbridge::tfplugin`, and building the msgpack
//! values it takes, unknowns included.
//!
//! The fixture is a workspace member, but `cargo test` of the root package does not build
//! other packages' binaries, so [`fixture_binary`] insists the binary exists and is newer
//! than the fixture's sources, and otherwise fails saying how to build it.

use std::path::{Path, PathBuf};

use tfbridge::tfplugin::core_rpcs::DynamicValue;
use tfbridge::tfplugin::{LaunchConfig, ProviderClient, launch};

/// `target/<profile>/terraform-provider-fixture`, next to this test's own `deps/` dir.
pub fn fixture_binary() -> anyhow::Result<PathBuf> {
    // A copy elsewhere, as for the plugin (`TFBRIDGE_TEST_PLUGIN_BINARY`), taken as is.
    if let Some(copy) = std::env::var_os("TFBRIDGE_TEST_FIXTURE_BINARY").filter(|copy| !copy.is_empty()) {
        return Ok(PathBuf::from(copy));
    }
    let exe = std::env::current_exe()?;
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| anyhow::anyhow!("cannot find the target dir from {}", exe.display()))?;
    let binary = profile_dir.join(format!("terraform-provider-fixture{}", std::env::consts::EXE_SUFFIX));
    let how = "build it with `cargo build -p terraform-provider-fixture` (same profile as the tests)";
    let built = match std::fs::metadata(&binary).and_then(|m| m.modified()) {
        Ok(built) => built,
        Err(_) => anyhow::bail!("the fixture provider is missing at {}: {how}", binary.display()),
    };
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture-provider/src");
    for entry in std::fs::read_dir(&sources)? {
        let entry = entry?;
        if entry.metadata()?.modified()? > built {
            anyhow::bail!(
                "the fixture provider at {} is older than {}: {how}",
                binary.display(),
                entry.path().display()
            );
        }
    }
    Ok(binary)
}

/// A fresh directory holding `terraform-provider-fixture`: a script that `exec`s the fixture
/// (so the pid is the fixture's) serving only `protocol` (`"5"` or `"6"`), with the extra
/// environment `env`. Local providers are named after their file, so the Pulumi package is
/// `fixture`.
#[cfg(unix)]
pub fn wrapper_dir(protocol: &str, env: &[(&str, &str)]) -> anyhow::Result<PathBuf> {
    let binary = fixture_binary()?;
    let dir = super::scratch_dir(&format!("fixture-v{protocol}"));
    let mut body = format!("FIXTURE_PROTOCOL='{protocol}' ");
    for (name, value) in env {
        body.push_str(&format!("{name}='{value}' "));
    }
    body.push_str(&format!("exec '{}' \"$@\"", binary.display()));
    super::write_script(&dir, "terraform-provider-fixture", &body);
    Ok(dir)
}

/// Windows runs no `#!` script: the wrapper is the fixture itself, linked (or copied) in as
/// `terraform-provider-fixture.exe`, with its settings in `terraform-provider-fixture.env`
/// beside it, which the fixture reads at start.
#[cfg(not(unix))]
pub fn wrapper_dir(protocol: &str, env: &[(&str, &str)]) -> anyhow::Result<PathBuf> {
    let binary = fixture_binary()?;
    let dir = super::scratch_dir(&format!("fixture-v{protocol}"));
    let link = dir.join("terraform-provider-fixture.exe");
    if std::fs::hard_link(&binary, &link).is_err() {
        std::fs::copy(&binary, &link)?;
    }
    let mut settings = format!("FIXTURE_PROTOCOL={protocol}\n");
    for (name, value) in env {
        settings.push_str(&format!("{name}={value}\n"));
    }
    std::fs::write(dir.join("terraform-provider-fixture.env"), settings)?;
    Ok(dir)
}

/// Launches the fixture serving protocol `protocol` (`"5"` or `"6"`) with the extra
/// environment `env`.
pub async fn launch_fixture(protocol: &str, env: &[(&str, &str)]) -> anyhow::Result<ProviderClient> {
    let dir = wrapper_dir(protocol, env)?;
    let mut config = LaunchConfig::terraform_defaults(dir.join("terraform-provider-fixture"));
    config.auto_mtls = true;
    Ok(launch(&config).await?)
}

/// A value to encode, with unknowns (which `common::msgpack::Msg` has not).
#[derive(Clone, Debug)]
pub enum Val {
    Nil,
    Unknown,
    Bool(bool),
    Int(i64),
    Str(String),
    Array(Vec<Val>),
    /// Keys must be given in sorted order, as cty writes object attributes.
    Object(Vec<(&'static str, Val)>),
}

pub fn s(text: &str) -> Val {
    Val::Str(text.to_owned())
}

impl Val {
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out);
        out
    }

    pub fn dynamic(&self) -> DynamicValue {
        DynamicValue::Msgpack(self.encode())
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Val::Nil => rmp::encode::write_nil(out).unwrap(),
            Val::Unknown => out.extend_from_slice(&[0xd4, 0x00, 0x00]),
            Val::Bool(b) => rmp::encode::write_bool(out, *b).unwrap(),
            Val::Int(n) => {
                rmp::encode::write_sint(out, *n).unwrap();
            }
            Val::Str(text) => rmp::encode::write_str(out, text).unwrap(),
            Val::Array(items) => {
                rmp::encode::write_array_len(out, items.len() as u32).unwrap();
                items.iter().for_each(|item| item.write(out));
            }
            Val::Object(entries) => {
                rmp::encode::write_map_len(out, entries.len() as u32).unwrap();
                for (key, value) in entries {
                    rmp::encode::write_str(out, key).unwrap();
                    value.write(out);
                }
            }
        }
    }
}

/// Renders a dynamic value with `common::msgpack::render`.
pub fn show(value: &DynamicValue) -> String {
    match value {
        DynamicValue::Msgpack(bytes) => super::msgpack::render(bytes),
        DynamicValue::Json(bytes) => format!("json {}", String::from_utf8_lossy(bytes)),
    }
}

/// The ids of the objects of `type_name` the fixture holds in `store` (its
/// `FIXTURE_STORE_DIR`), sorted: what a provider made, whatever a stack records.
pub fn stored_ids(store: &std::path::Path, type_name: &str) -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(store.join(type_name))
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok()?.file_name().to_str()?.strip_suffix(".json").map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids
}
