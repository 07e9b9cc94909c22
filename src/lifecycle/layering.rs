//! The layering rule of `lifecycle` (see the module's header), checked on the source: each
//! module imports only from its own layer or the ones below, and no two modules import each
//! other, however indirectly.
//!
//! The test reads every file of `src/lifecycle` (up to its `#[cfg(test)]` part, whose
//! `super` means something else), finds each path into another `lifecycle` module
//! (`super::x` from a top-level file, `crate::lifecycle::x` or `super::super::x` from a
//! nested one) and checks the edge. A path through the re-exports of `lifecycle/mod.rs`
//! (`super::Resource`) hides its module, so it is refused too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layers, top first. A module not listed here fails the test: a new module picks its
/// layer when it is added.
const LAYERS: &[(&str, &[&str])] = &[
    ("session", &["session"]),
    (
        "operations",
        &[
            "resource",
            "provider_config",
            "invoke",
            "ephemeral",
            "action",
            "list",
            "terraform_config",
            "write_only",
            "schema_source",
        ],
    ),
    ("calls", &["calls"]),
    (
        "support",
        &[
            "checks",
            "error",
            "state",
            "identity",
            "inputs",
            "proposed_new",
            "detailed_diff",
            "deferral",
            "config_encoding",
        ],
    ),
];

/// A module's layer, as its depth from the top (0 = session).
fn depth(module: &str) -> Option<usize> {
    LAYERS.iter().position(|(_, modules)| modules.contains(&module))
}

/// The top-level `lifecycle` modules a file's code names, from the file's place: `nested`
/// is true for a file inside a module folder other than its `mod.rs`.
fn referenced_modules(code: &str, nested: bool) -> Vec<String> {
    let mut found = Vec::new();
    let prefixes: &[&str] =
        if nested { &["crate::lifecycle::", "super::super::"] } else { &["crate::lifecycle::", "super::"] };
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        for prefix in prefixes {
            let mut rest = line;
            while let Some(at) = rest.find(prefix) {
                // `super::super::x` also contains `super::x`: count only a whole prefix.
                let before = &rest[..at];
                rest = &rest[at + prefix.len()..];
                if *prefix == "super::" && before.ends_with("super::") {
                    continue;
                }
                found.extend(first_segments(rest));
            }
        }
    }
    found
}

/// The first path segment after a prefix; for a group `{a::X, b}`, each member's.
fn first_segments(rest: &str) -> Vec<String> {
    let ident = |text: &str| text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    match rest.strip_prefix('{') {
        Some(group) => {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            group.split(',').map(|member| ident(member.trim())).filter(|name| !name.is_empty()).collect()
        }
        None => vec![ident(rest)],
    }
}

/// Every `.rs` file below `dir`, with its top-level module name and whether it is nested.
fn sources(root: &Path) -> Vec<(String, bool, String)> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src/lifecycle") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let relative = path.strip_prefix(root).expect("below the root");
            let parts: Vec<&str> = relative.iter().map(|p| p.to_str().expect("a UTF-8 file name")).collect();
            let module = parts[0].trim_end_matches(".rs").to_owned();
            let file = *parts.last().expect("a file name");
            if module == "mod" || file == "tests.rs" || module == "layering" || module == "tests" {
                continue;
            }
            let nested = parts.len() > 1 && file != "mod.rs";
            let text = std::fs::read_to_string(&path).expect("read a source file");
            // The test part of a file names its own module's items through `super`.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_owned();
            files.push((module, nested, code));
        }
    }
    files
}

/// The module graph: module → the other modules it names.
fn graph(files: &[(String, bool, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, nested, code) in files {
        let targets = edges.entry(module.clone()).or_default();
        for target in referenced_modules(code, *nested) {
            if target != *module {
                targets.insert(target);
            }
        }
    }
    edges
}

/// Layer rule violations, as `from -> to (why)` lines.
fn violations(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut problems = Vec::new();
    for (from, targets) in edges {
        let Some(from_depth) = depth(from) else {
            problems.push(format!("{from}: a module no layer lists (add it to LAYERS)"));
            continue;
        };
        for to in targets {
            match depth(to) {
                _ if to.starts_with(char::is_uppercase) => {
                    problems.push(format!("{from} -> {to}: names a re-export of lifecycle/mod.rs, not its module"))
                }
                Some(to_depth) if to_depth < from_depth => problems.push(format!(
                    "{from} -> {to}: {} imports from {}, a higher layer",
                    LAYERS[from_depth].0, LAYERS[to_depth].0
                )),
                Some(_) => {}
                None => problems.push(format!("{from} -> {to}: a module no layer lists")),
            }
        }
    }
    problems
}

/// A circle in the graph, if there is one, as the modules on it.
fn circle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
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

#[test]
fn each_module_imports_only_its_own_layer_or_below() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lifecycle");
    let edges = graph(&sources(&root));
    assert!(edges.contains_key("session") && edges.contains_key("calls"), "the reader found the modules: {edges:?}");
    assert_eq!(violations(&edges), Vec::<String>::new());
    assert_eq!(circle(&edges), None);
}

#[test]
fn the_checks_see_what_breaks_the_rule() {
    let code = |text: &str, nested| referenced_modules(text, nested);
    assert_eq!(code("use super::calls::{Connection, TokenKind};", false), ["calls"]);
    assert_eq!(code("use super::{error, state::Meta};", false), ["error", "state"]);
    assert_eq!(code("use super::Diagnostics;", true), Vec::<String>::new());
    assert_eq!(code("use super::super::session::Session;", true), ["session"]);
    assert_eq!(code("let x = crate::lifecycle::resource::Written::default();", true), ["resource"]);
    assert_eq!(code("// super::session in a comment", false), Vec::<String>::new());

    let edges = |pairs: &[(&str, &str)]| {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in pairs {
            graph.entry((*from).to_owned()).or_default().insert((*to).to_owned());
        }
        graph
    };
    assert_eq!(
        violations(&edges(&[("calls", "session")])),
        ["calls -> session: calls imports from session, a higher layer"]
    );
    assert_eq!(violations(&edges(&[("resource", "Resource")])).len(), 1);
    assert_eq!(violations(&edges(&[("newcomer", "error")])).len(), 1);
    assert!(violations(&edges(&[("session", "calls"), ("resource", "checks")])).is_empty());
    assert_eq!(circle(&edges(&[("invoke", "ephemeral"), ("ephemeral", "invoke")])).map(|c| c.len()), Some(3));
    assert_eq!(circle(&edges(&[("invoke", "checks"), ("ephemeral", "invoke")])), None);
}
