//! The middle scale: in every folder, the files (and subfolders) import each other in no
//! circle. An import from `a/x.rs` of `a/y.rs`'s item is the edge `x → y` in folder `a/`,
//! however it is written (`super::y::T`, `crate::a::y::T`, or from `a/x/z.rs` as
//! `super::super::y::T`, which makes `x/` depend on `y`). A path to an item of the folder's
//! `mod.rs` (`super::T`) is no edge: `mod.rs` is the folder's face, and its re-exports name
//! the files it is made of.

use std::collections::{BTreeMap, BTreeSet};

use super::source::{Source, crate_paths};

/// A folder's graph: file or subfolder → the siblings it imports.
pub type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every folder's graph, keyed by the folder's module path (`""` for the crate's root);
/// `modules` is every module path the crate has, so that an item is told from a module.
pub fn graphs(files: &[Source]) -> BTreeMap<String, Graph> {
    let modules: BTreeSet<&[String]> = files.iter().map(|file| file.module.as_slice()).collect();
    let mut folders: BTreeMap<String, Graph> = BTreeMap::new();
    for file in files {
        for target in crate_paths(&file.code, &file.module) {
            let common = file.module.iter().zip(&target).take_while(|(a, b)| a == b).count();
            let (Some(from), Some(to)) = (file.module.get(common), target.get(common)) else { continue };
            if !modules.contains(&target[..=common]) {
                continue;
            }
            folders
                .entry(file.module[..common].join("/"))
                .or_default()
                .entry(from.clone())
                .or_default()
                .insert(to.clone());
        }
    }
    folders
}

/// The circles of one folder's graph: each strongly connected set of two or more members,
/// as the edges between them (`a → b`).
pub fn circles(graph: &Graph) -> Vec<Vec<String>> {
    let reaches = |start: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.to_owned()];
        while let Some(node) = stack.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> = graph.keys().map(|node| (node, reaches(node))).collect();
    let mut placed = BTreeSet::new();
    let mut found = Vec::new();
    for node in graph.keys() {
        if placed.contains(node) || !reach[node].contains(node) {
            continue;
        }
        let members: BTreeSet<&String> =
            reach[node].iter().filter(|other| reach.get(other).is_some_and(|r| r.contains(node))).collect();
        let mut edges = Vec::new();
        for from in &members {
            placed.insert((*from).clone());
            for to in graph.get(*from).into_iter().flatten().filter(|to| members.contains(to)) {
                edges.push(format!("{from} → {to}"));
            }
        }
        found.push(edges);
    }
    found
}

/// Each folder's circles, as one line each: `src/installer/: error → cliconfig, …`.
pub fn problems(crate_dir: &str, files: &[Source]) -> Vec<String> {
    let mut problems = Vec::new();
    for (folder, graph) in graphs(files) {
        for edges in circles(&graph) {
            let folder = if folder.is_empty() { String::new() } else { format!("{folder}/") };
            problems.push(format!("{crate_dir}/{folder}: files import each other in a circle: {}", edges.join(", ")));
        }
    }
    problems
}
