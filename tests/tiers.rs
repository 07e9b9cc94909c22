//! The test tiers stay apart. `cargo test --workspace` is the hermetic tier; the peer tier
//! (tests that need what `scripts/test-tools.sh` builds: real Terraform providers, the Pulumi
//! CLI, the Go implementation, the Terraform CLI) is every test target declared in Cargo.toml
//! with `required-features = ["peer-tests"]`, run by `scripts/test.sh`.
//!
//! Two rules, checked here so that a new test file cannot break them silently:
//! - every `tests/e2e_*.rs` (or `tests/e2e_*/main.rs`) is declared in the peer tier;
//! - no other test target of this package uses a peer (`real_provider`, `tools_dir`, the Go
//!   implementation): it would fail on a machine without them.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Words that only a peer-tier test has a reason to use.
const PEER_MARKERS: &[&str] = &["real_provider(", "tools_dir(", "Implementation::Go", "tfbridge-tools"];

/// The names of the `[[test]]` targets of a Cargo.toml that require the `peer-tests` feature.
fn peer_targets(manifest: &str) -> BTreeSet<String> {
    manifest
        .split("\n[")
        .filter(|section| section.starts_with("[test]]"))
        .filter(|section| section.lines().any(|line| line.replace(' ', "") == r#"required-features=["peer-tests"]"#))
        .filter_map(|section| {
            section.lines().find_map(|line| Some(line.trim().strip_prefix("name = \"")?.strip_suffix('"')?.to_owned()))
        })
        .collect()
}

/// The test targets Cargo discovers in `tests/`: each `<name>.rs` and `<name>/main.rs`, with
/// the source files that make them up.
fn test_targets(tests_dir: &Path) -> Vec<(String, Vec<PathBuf>)> {
    let mut targets = Vec::new();
    for entry in std::fs::read_dir(tests_dir).expect("read tests/") {
        let path = entry.expect("a directory entry").path();
        let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()).map(str::to_owned) else { continue };
        if path.extension().is_some_and(|ext| ext == "rs") {
            targets.push((stem, vec![path]));
        } else if path.join("main.rs").is_file() {
            let files = std::fs::read_dir(&path)
                .expect("read a test directory")
                .map(|entry| entry.expect("a directory entry").path())
                .filter(|file| file.extension().is_some_and(|ext| ext == "rs"))
                .collect();
            targets.push((stem, files));
        }
    }
    targets.sort();
    targets
}

#[test]
fn every_e2e_test_is_in_the_peer_tier_and_no_other_test_uses_a_peer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let peer = peer_targets(&std::fs::read_to_string(root.join("Cargo.toml")).expect("read Cargo.toml"));
    let targets = test_targets(&root.join("tests"));
    assert!(targets.iter().any(|(name, _)| name == "tiers"), "the scan finds the test targets");
    assert!(peer.contains("e2e_yaml"), "the manifest scan finds the peer tier: {peer:?}");

    let mut problems = Vec::new();
    for (name, files) in &targets {
        if peer.contains(name) {
            continue;
        }
        if name.starts_with("e2e_") {
            problems.push(format!(
                "tests/{name}: an e2e_ test is in the peer tier; add to Cargo.toml:\n\
                 [[test]]\nname = \"{name}\"\nrequired-features = [\"peer-tests\"]"
            ));
            continue;
        }
        for file in files {
            let text = std::fs::read_to_string(file).expect("read a test file");
            let used: Vec<&str> = PEER_MARKERS.iter().copied().filter(|marker| text.contains(marker)).collect();
            if !used.is_empty() && file.file_name().is_some_and(|name| name != "tiers.rs") {
                problems.push(format!(
                    "{}: a hermetic test target uses {used:?}; move the test to a peer-tier target \
                     (required-features = [\"peer-tests\"] in Cargo.toml)",
                    file.strip_prefix(root).unwrap_or(file).display()
                ));
            }
        }
    }
    for declared in &peer {
        if !targets.iter().any(|(name, _)| name == declared) {
            problems.push(format!("Cargo.toml declares the peer-tier test {declared}, but tests/ has no such file"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The tests read scripts/peers.env with a parser of their own (tests/common/versions.rs);
/// it must agree with bash, which scripts/test-tools.sh sources it with.
#[test]
fn the_tests_read_the_peer_versions_as_bash_does() {
    use common::versions;
    let keys = [
        ("RANDOM_VER", versions::RANDOM),
        ("LOCAL_VER", versions::LOCAL),
        ("NULL_VER", versions::NULL),
        ("TLS_VER", versions::TLS),
        ("HTTP_VER", versions::HTTP),
        ("TIME_VER", versions::TIME),
        ("PULUMI_VER", versions::PULUMI),
        ("PULUMI_NEWEST_VER", versions::PULUMI_NEWEST),
        ("PULUMI_NEWEST_PYTHON_SDK", versions::PULUMI_NEWEST_PYTHON_SDK),
        ("YAML_VER", versions::PULUMI_YAML),
        ("BRIDGE_VER", versions::BRIDGE),
        ("ANCHOR_LDVERSION", versions::peer_version("ANCHOR_LDVERSION")),
        ("TERRAFORM_VER", versions::TERRAFORM),
    ];
    let script: String = keys.iter().map(|(key, _)| format!("echo \"${key}\";")).collect();
    let output = std::process::Command::new("bash")
        .args(["-c", &format!(". scripts/peers.env && {script}")])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("bash runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let from_bash: Vec<String> = String::from_utf8_lossy(&output.stdout).lines().map(str::to_owned).collect();
    let ours: Vec<String> = keys.iter().map(|(_, value)| (*value).to_owned()).collect();
    assert_eq!(from_bash, ours);
    assert_eq!(format!("v{}", versions::GO_IMPLEMENTATION), versions::peer_version("ANCHOR_LDVERSION"));
}
