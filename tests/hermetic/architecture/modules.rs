//! The coarsest scale: the modules of `src/` and which may use which. The table is
//! ARCHITECTURE.md's diagram of them (the fenced block tagged `may-use`), read as written:
//! one line per module, top first, `module ──► what it may use`. The check holds the diagram
//! and the code to each other: every module of `src/` has its line, every use in the code is
//! an arrow of the diagram, every arrow is a use, and each arrow points to a line further
//! down, so nothing points up.

use std::collections::{BTreeMap, BTreeSet};

use super::source::{Source, crate_paths};

/// The diagram's rows, in order: module and what it may use.
pub type Table = Vec<(String, BTreeSet<String>)>;

/// The `may-use` block of ARCHITECTURE.md's text, as rows.
pub fn table(architecture: &str) -> Table {
    let block = architecture
        .split("```may-use\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("ARCHITECTURE.md has a ```may-use block");
    block
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let (module, uses) = line.split_once("──►").unwrap_or((line, ""));
            let uses = uses.split(',').map(str::trim).filter(|used| !used.is_empty()).map(str::to_owned).collect();
            (module.trim().to_owned(), uses)
        })
        .collect()
}

/// The diagram's name of the module a file belongs to: its top-level file or folder
/// (`parameterize` for `parameterize.rs`), or the binary's file (`main.rs`,
/// `bin/schema-gen.rs`). `None` for `lib.rs`.
pub fn module_of(file: &Source) -> Option<String> {
    match file.module.first()?.as_str() {
        "bin" => Some(file.relative.clone()),
        first => Some(first.to_owned()),
    }
}

/// Which modules each module's code uses (module → used modules), from `src/`'s files.
pub fn uses(files: &[Source]) -> BTreeMap<String, BTreeSet<String>> {
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let Some(from) = module_of(file) else { continue };
        let used = uses.entry(from.clone()).or_default();
        for path in crate_paths(&file.code, &file.module) {
            if let Some(to) = path.first().filter(|to| **to != from) {
                used.insert(to.clone());
            }
        }
    }
    uses
}

/// Where the diagram and the code disagree, one line each.
pub fn problems(table: &Table, uses: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut problems = Vec::new();
    let rows: BTreeMap<&String, usize> = table.iter().enumerate().map(|(at, (module, _))| (module, at)).collect();
    for module in uses.keys().filter(|module| !rows.contains_key(module)) {
        problems.push(format!("src/{module}: a module ARCHITECTURE.md's diagram does not show; give it its line"));
    }
    for (at, (module, allowed)) in table.iter().enumerate() {
        let Some(used) = uses.get(module) else {
            problems.push(format!("the diagram shows {module}, which src/ does not have"));
            continue;
        };
        for to in used.difference(allowed) {
            problems.push(format!("{module} uses {to}: the diagram has no arrow {module} ──► {to}"));
        }
        for to in allowed.difference(used) {
            problems.push(format!("the diagram's arrow {module} ──► {to} is no use of the code; drop it"));
        }
        for to in allowed {
            if rows.get(to).is_some_and(|&row| row <= at) {
                problems.push(format!("the diagram's arrow {module} ──► {to} points up: {to} is drawn above"));
            }
        }
    }
    problems
}
