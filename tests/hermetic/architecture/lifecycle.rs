//! The finest scale: the floors of `lifecycle` (see its module header). Each module imports
//! only from its own floor or the ones below, no two modules import each other, however
//! indirectly, and the calls types are implemented only in `calls/`.
//!
//! A module is a top-level file or folder of `src/lifecycle`, except in `operations/` and
//! `support/`, where each file is a module of its own, so their files cannot import each
//! other in a circle either. A path through a re-export of a `mod.rs` (`super::Resource`)
//! hides its module, so it is refused too.
//!
//! A method needs no import, so the import rule alone cannot see an operation written as a
//! method of a calls type: every `impl` of a type `calls/` defines (including trait impls)
//! must sit in `calls/`, which keeps the receiver telling the floor.

use std::collections::{BTreeMap, BTreeSet};

use super::source::{Source, crate_paths};

/// The floors, top first: each floor and its folders of `lifecycle`. A folder not listed
/// here fails the test: a new folder picks its floor when it is added.
pub const LAYERS: &[(&str, &[&str])] = &[
    ("session", &["session", "startup"]),
    ("operations", &["operations"]),
    ("calls", &["calls"]),
    ("support", &["support"]),
];

/// Folders whose files are modules of their own, for the graph.
const FILE_MODULES: &[&str] = &["operations", "support"];

/// The calls types `calls/` defines through a macro (the per-kind handles), which the
/// reader of `struct` and `enum` items does not see.
const MACRO_CALLS_TYPES: &[&str] = &["DataSource", "EphemeralResource", "Action", "ListResource"];

/// A module's floor, as its depth from the top (0 = session).
pub fn depth(module: &str) -> Option<usize> {
    let folder = module.split('/').next().unwrap_or(module);
    LAYERS.iter().position(|(_, folders)| folders.contains(&folder))
}

/// The graph's module of a module path: its first segment, or its first two in the folders
/// whose files are modules.
pub fn node(path: &[String]) -> Option<String> {
    let first = path.first()?;
    match path.get(1) {
        Some(second) if FILE_MODULES.contains(&first.as_str()) => Some(format!("{first}/{second}")),
        _ => Some(first.clone()),
    }
}

/// The files of `src/lifecycle` but its `mod.rs`, their paths and module paths taken from
/// there (`calls/mod.rs`, `[calls]`).
pub fn lifecycle_files(files: &[Source]) -> Vec<Source> {
    files
        .iter()
        .filter(|file| file.module.len() > 1 && file.module[0] == "lifecycle")
        .map(|file| Source {
            relative: file.relative.trim_start_matches("lifecycle/").to_owned(),
            module: file.module[1..].to_vec(),
            text: file.text.clone(),
            code: file.code.clone(),
        })
        .collect()
}

/// The module graph of `lifecycle`'s files (from `lifecycle_files`): module → the other
/// modules (or re-exports) it names.
pub fn graph(files: &[Source]) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let Some(from) = node(&file.module) else { continue };
        let targets = edges.entry(from.clone()).or_default();
        let mut module = vec!["lifecycle".to_owned()];
        module.extend(file.module.iter().cloned());
        for path in crate_paths(&file.code, &module) {
            if path.first().is_none_or(|first| first != "lifecycle") {
                continue;
            }
            let Some(to) = node(&path[1..]) else { continue };
            if to != from {
                targets.insert(to);
            }
        }
    }
    edges
}

/// Floor rule violations, as `from -> to (why)` lines.
pub fn violations(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let modules: BTreeSet<&String> = edges.keys().collect();
    let mut problems = Vec::new();
    for (from, targets) in edges {
        let Some(from_depth) = depth(from) else {
            problems.push(format!("{from}: a folder no floor lists (add it to LAYERS)"));
            continue;
        };
        for to in targets {
            let last = to.rsplit('/').next().unwrap_or(to);
            match depth(to) {
                _ if last.starts_with(char::is_uppercase) => {
                    problems.push(format!("{from} -> {to}: names a re-export of a mod.rs, not its module"))
                }
                _ if !modules.contains(to) => problems.push(format!("{from} -> {to}: not a module of lifecycle")),
                Some(to_depth) if to_depth < from_depth => problems.push(format!(
                    "{from} -> {to}: {} imports from {}, a higher floor",
                    LAYERS[from_depth].0, LAYERS[to_depth].0
                )),
                Some(_) => {}
                None => problems.push(format!("{from} -> {to}: a module no floor lists")),
            }
        }
    }
    problems
}

/// A circle in the graph, if there is one, as the modules on it.
pub fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut found = path[at..].to_vec();
            found.push(node.to_owned());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    edges.keys().find_map(|node| visit(node, edges, &mut Vec::new(), &mut done))
}

/// The types `calls/` defines: its `struct` and `enum` items, and the handles its macro
/// makes.
pub fn calls_types(files: &[Source]) -> BTreeSet<String> {
    let mut types: BTreeSet<String> = MACRO_CALLS_TYPES.iter().map(|name| (*name).to_owned()).collect();
    for file in files.iter().filter(|file| file.relative.starts_with("calls/")) {
        for line in file.text.lines() {
            let line = line.trim_start();
            let line = line.strip_prefix("pub").map_or(line, |rest| match rest.strip_prefix('(') {
                Some(scoped) => scoped.split_once(')').map_or(scoped, |(_, rest)| rest),
                None => rest,
            });
            let line = line.trim_start();
            if let Some(rest) = line.strip_prefix("struct ").or_else(|| line.strip_prefix("enum ")) {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                types.insert(name);
            }
        }
    }
    types
}

/// The `impl` blocks of `types` in a file outside `calls/`, as `file:line: impl line`
/// lines: `impl X`, `impl<'a> X<'a>`, `impl Trait for X` and `impl Trait for &X` alike.
pub fn impls_outside_calls(relative: &str, text: &str, types: &BTreeSet<String>) -> Vec<String> {
    if relative.starts_with("calls/") {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (n_line, line) in text.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("impl") else { continue };
        let rest = match rest.strip_prefix('<') {
            // The generics: up to their matching `>`.
            Some(generics) => {
                let mut open = 1;
                let end = generics.char_indices().find_map(|(at, c)| {
                    match c {
                        '<' => open += 1,
                        '>' => open -= 1,
                        _ => {}
                    }
                    (open == 0).then_some(at + 1)
                });
                &generics[end.unwrap_or(generics.len())..]
            }
            None if rest.starts_with(char::is_whitespace) => rest,
            None => continue,
        };
        let header = rest.split('{').next().unwrap_or(rest);
        let header = header.split(" where ").next().unwrap_or(header);
        let self_type = header.rsplit_once(" for ").map_or(header, |(_, ty)| ty).trim();
        let self_type = self_type.trim_start_matches('&').trim_start_matches("mut ");
        let path = self_type.split('<').next().unwrap_or(self_type);
        let name = path.rsplit("::").next().unwrap_or(path).trim();
        if types.contains(name) {
            found.push(format!("{relative}:{}: {}", n_line + 1, line.trim()));
        }
    }
    found
}
