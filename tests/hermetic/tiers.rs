//! The test tiers stay apart. `cargo test --workspace` is the hermetic tier; the peer tier
//! (tests that need what `scripts/test-tools.sh` builds: real Terraform providers, the Pulumi
//! CLI, the Go implementation, the Terraform CLI) is the test binary Cargo.toml declares with
//! `required-features = ["peer-tests"]`, run by `scripts/test.sh`. Each tier is one binary
//! whose folder shows the tier: `tests/hermetic/` and `tests/peer/`.
//!
//! The rules, checked here so that a new test file cannot break them silently:
//! - `tests/` holds no test target but those two, and Cargo.toml declares `peer` (and only
//!   it) in the peer tier;
//! - every module file of `tests/hermetic/` and `tests/peer/` is named by a `mod` line of its
//!   `main.rs` (a file that is not is never compiled, so its tests would never run), and every
//!   `mod` line names a file;
//! - every `e2e_*` module is in the peer tier;
//! - no file of the hermetic tier uses a peer (`real_provider`, `tools_dir`, the Go
//!   implementation): it would fail on a machine without them;
//! - no test changes what the whole process shares (its environment, its current directory):
//!   the tests of a tier run in one process, two at a time, so such a change would reach the
//!   tests running beside it and every later one, and the library reads some settings once
//!   per process (`PULUMI_TF_DEBUG_GRPC`). A setting for a child process goes on its
//!   `Command`.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Words that only a peer-tier test has a reason to use.
const PEER_MARKERS: &[&str] = &["real_provider(", "tools_dir(", "Implementation::Go", "tfbridge-tools"];

/// Calls that change what every test of a binary shares.
const PROCESS_WIDE_CHANGES: &[&str] = &["set_var(", "remove_var(", "set_current_dir("];

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

/// The test targets Cargo discovers in `tests/`: each `<name>.rs` and `<name>/main.rs`.
fn test_targets(tests_dir: &Path) -> BTreeSet<String> {
    let mut targets = BTreeSet::new();
    for entry in std::fs::read_dir(tests_dir).expect("read tests/") {
        let path = entry.expect("a directory entry").path();
        let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()).map(str::to_owned) else { continue };
        if path.extension().is_some_and(|ext| ext == "rs") || path.join("main.rs").is_file() {
            targets.insert(stem);
        }
    }
    targets
}

/// The modules of a tier's folder: each `<name>.rs` (but `main.rs`) and `<name>/mod.rs`.
fn module_files(tier_dir: &Path) -> BTreeSet<String> {
    let mut modules = BTreeSet::new();
    for entry in std::fs::read_dir(tier_dir).expect("read a tier's folder") {
        let path = entry.expect("a directory entry").path();
        let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()).map(str::to_owned) else { continue };
        if (path.extension().is_some_and(|ext| ext == "rs") && stem != "main") || path.join("mod.rs").is_file() {
            modules.insert(stem);
        }
    }
    modules
}

/// The modules a `main.rs` declares with a plain `mod <name>;` line (not `#[path]`-included
/// ones such as `common`).
fn declared_modules(main: &str) -> BTreeSet<String> {
    let mut declared = BTreeSet::new();
    let mut after_path_attribute = false;
    for line in main.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix("mod ").and_then(|rest| rest.strip_suffix(';'))
            && !after_path_attribute
        {
            declared.insert(name.to_owned());
        }
        after_path_attribute = line.starts_with("#[path");
    }
    declared
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    common::paths_under(dir).into_iter().filter(|path| path.extension().is_some_and(|ext| ext == "rs")).collect()
}

#[test]
fn every_e2e_test_is_in_the_peer_tier_and_no_other_test_uses_a_peer() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tests = root.join("tests");
    let peer = peer_targets(&std::fs::read_to_string(root.join("Cargo.toml")).expect("read Cargo.toml"));
    let targets = test_targets(&tests);
    assert!(targets.contains("hermetic"), "the scan finds the test targets: {targets:?}");
    assert!(peer.contains("peer"), "the manifest scan finds the peer tier: {peer:?}");

    let mut problems = Vec::new();
    for target in targets.iter().filter(|name| !["hermetic", "peer"].contains(&name.as_str())) {
        problems.push(format!(
            "tests/{target}: a test target of its own; make it a module of tests/hermetic/ or, if it \
             needs a peer, tests/peer/ (a `mod {target};` line in that folder's main.rs)"
        ));
    }
    if peer != BTreeSet::from(["peer".to_owned()]) {
        problems.push(format!("Cargo.toml: the peer tier is the `peer` test target alone, not {peer:?}"));
    }
    for tier in ["hermetic", "peer"] {
        let dir = tests.join(tier);
        let files = module_files(&dir);
        let declared = declared_modules(&std::fs::read_to_string(dir.join("main.rs")).expect("read a main.rs"));
        assert!(files.contains(if tier == "peer" { "e2e_yaml" } else { "tiers" }), "the scan finds {tier}'s modules");
        for module in files.difference(&declared) {
            problems
                .push(format!("tests/{tier}/{module}: no `mod {module};` in tests/{tier}/main.rs, so it never runs"));
        }
        for module in declared.difference(&files) {
            problems.push(format!("tests/{tier}/main.rs declares `mod {module};`, but tests/{tier}/ has no such file"));
        }
        if tier == "hermetic" {
            for module in files.iter().filter(|module| module.starts_with("e2e_")) {
                problems
                    .push(format!("tests/hermetic/{module}: an e2e_ test is in the peer tier; move it to tests/peer/"));
            }
        }
    }
    for file in rust_files(&tests.join("hermetic")) {
        let text = std::fs::read_to_string(&file).expect("read a test file");
        let used: Vec<&str> = PEER_MARKERS.iter().copied().filter(|marker| text.contains(marker)).collect();
        if !used.is_empty() && file.file_name().is_some_and(|name| name != "tiers.rs") {
            problems.push(format!(
                "{}: a hermetic test uses {used:?}; move the test to the peer tier (tests/peer/)",
                file.strip_prefix(root).unwrap_or(&file).display()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_test_changes_the_environment_or_the_current_directory_of_the_process() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = ["hermetic", "peer", "common"]
        .iter()
        .flat_map(|dir| rust_files(&root.join("tests").join(dir)))
        .filter(|file| file.file_name().is_some_and(|name| name != "tiers.rs"))
        .collect();
    files.extend(rust_files(&root.join("benches")));
    assert!(files.iter().any(|file| file.ends_with("tests/common/mod.rs")), "the scan finds tests/common");
    let problems: Vec<String> = files
        .iter()
        .filter_map(|file| {
            let text = std::fs::read_to_string(file).expect("read a test file");
            let used: Vec<&str> = PROCESS_WIDE_CHANGES.iter().copied().filter(|call| text.contains(call)).collect();
            (!used.is_empty()).then(|| {
                format!(
                    "{}: {used:?} changes the process every test of the binary shares; set it on the child's \
                     `Command` (or pass it as an argument) instead",
                    file.strip_prefix(root).unwrap_or(file).display()
                )
            })
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The tests read scripts/peers.env with a parser of their own (tests/common/versions.rs);
/// it must agree with bash, which scripts/test-tools.sh sources it with.
#[test]
#[cfg_attr(windows, ignore = "runs bash, which the scripts run on Linux")]
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
        ("PNPM_VER", versions::PNPM),
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
