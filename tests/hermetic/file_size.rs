//! No Rust source of ours is over 600 lines: past that a file holds more than one concern,
//! and the next change should split it along them instead of growing it.

use std::path::Path;

use crate::common::paths_under;

const MOST_LINES: usize = 600;

#[test]
fn no_rust_source_is_over_600_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut too_long = Vec::new();
    let mut read = 0;
    for dir in ["src", "schema-gen/src", "tls-recipe/src", "tests", "benches", "examples", "fuzz"] {
        for path in paths_under(&root.join(dir)).into_iter().filter(|path| path.extension().is_some_and(|e| e == "rs"))
        {
            read += 1;
            let lines = std::fs::read_to_string(&path).expect("read a Rust source").lines().count();
            if lines > MOST_LINES {
                too_long.push(format!("{} ({lines} lines)", path.strip_prefix(root).unwrap_or(&path).display()));
            }
        }
    }
    // The walk found the sources at all (a wrong root would pass vacuously).
    assert!(read > 100, "read only {read} Rust files under {}", root.display());
    too_long.sort();
    assert!(too_long.is_empty(), "over {MOST_LINES} lines: {}", too_long.join(", "));
}
