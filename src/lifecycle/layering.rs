//! The layering rule of `lifecycle` (see the module's header), checked on the source: each
//! module imports only from its own floor or the ones below, no two modules import each
//! other, however indirectly, and the calls types are implemented only in `calls/`.
//!
//! The test reads every file of `src/lifecycle` (up to its `#[cfg(test)]` part for the
//! imports, whose `super` means something else there), finds each path into another
//! `lifecycle` module (`super::x`, `super::super::x` or `crate::lifecycle::x`, resolved from
//! the file's place) and checks the edge. A module is a top-level file or folder, except in
//! `operations/` and `support/`, where each file is a module of its own, so their files
//! cannot import each other in a circle either. A path through a re-export of a `mod.rs`
//! (`super::Resource`) hides its module, so it is refused too.
//!
//! A method needs no import, so the import rule alone cannot see an operation written as a
//! method of a calls type: every `impl` of a type `calls/` defines (including trait impls)
//! must sit in `calls/`, which keeps the receiver telling the floor.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The floors, top first: each folder of `lifecycle` and its floor. A folder not listed
/// here fails the test: a new folder picks its floor when it is added.
const LAYERS: &[(&str, &[&str])] =
    &[("session", &["session"]), ("operations", &["operations"]), ("calls", &["calls"]), ("support", &["support"])];

/// Folders whose files are modules of their own, for the graph.
const FILE_MODULES: &[&str] = &["operations", "support"];

/// The calls types `calls/` defines through a macro (the per-kind handles), which the
/// reader of `struct` and `enum` items does not see.
const MACRO_CALLS_TYPES: &[&str] = &["DataSource", "EphemeralResource", "Action", "ListResource"];

/// A module's floor, as its depth from the top (0 = session).
fn depth(module: &str) -> Option<usize> {
    let folder = module.split('/').next().unwrap_or(module);
    LAYERS.iter().position(|(_, folders)| folders.contains(&folder))
}

/// The module path of a file below `src/lifecycle` (`operations/create.rs` →
/// `[operations, create]`; a `mod.rs` is its folder).
fn module_path(relative: &str) -> Vec<String> {
    let mut parts: Vec<String> = relative.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts
}

/// The graph's module of a module path: its first segment, or its first two in the folders
/// whose files are modules.
fn node(path: &[String]) -> Option<String> {
    let first = path.first()?;
    match path.get(1) {
        Some(second) if FILE_MODULES.contains(&first.as_str()) => Some(format!("{first}/{second}")),
        _ => Some(first.clone()),
    }
}

/// The `lifecycle` paths (their first two segments) a file's code names, resolved from the
/// file's module path `from`.
fn referenced_paths(code: &str, from: &[String]) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some((at, prefix_len, base)) = next_prefix(rest, from) {
            let after = &rest[at + prefix_len..];
            rest = after;
            let Some(base) = base else { continue };
            for tail in first_segments(after) {
                let mut path = base.clone();
                path.extend(tail);
                found.push(path);
            }
        }
    }
    found
}

/// The next `crate::lifecycle::` or run of `super::` in `text`: where it starts, its
/// length, and the module path it stands for (`None` above `lifecycle`).
fn next_prefix(text: &str, from: &[String]) -> Option<(usize, usize, Option<Vec<String>>)> {
    let absolute = text.find("crate::lifecycle::");
    let relative = text.match_indices("super::").map(|(at, _)| at).find(|&at| !text[..at].ends_with("::"));
    match (absolute, relative) {
        (Some(a), r) if r.is_none_or(|r| a < r) => Some((a, "crate::lifecycle::".len(), Some(Vec::new()))),
        (_, Some(r)) => {
            let mut n_supers = 0;
            while text[r + n_supers * "super::".len()..].starts_with("super::") {
                n_supers += 1;
            }
            let base = from.len().checked_sub(n_supers).map(|len| from[..len].to_vec());
            Some((r, n_supers * "super::".len(), base))
        }
        _ => None,
    }
}

/// The first two path segments after a prefix, a group `{a::X, b}` at either giving each
/// member's.
fn first_segments(rest: &str) -> Vec<Vec<String>> {
    let ident = |text: &str| text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    let group = |text: &str| -> Vec<String> {
        let inner = &text[..text.find('}').unwrap_or(text.len())];
        inner.split(',').map(|member| member.trim().to_owned()).filter(|member| !member.is_empty()).collect()
    };
    let members = match rest.strip_prefix('{') {
        Some(inner) => group(inner),
        None => vec![rest.to_owned()],
    };
    let mut paths = Vec::new();
    for member in members {
        let first = ident(&member);
        if first.is_empty() {
            continue;
        }
        let after = &member[first.len()..];
        match after.strip_prefix("::") {
            Some(tail) if tail.starts_with('{') => {
                for inner in group(&tail[1..]) {
                    let second = ident(&inner);
                    paths.push([first.clone(), second].into_iter().filter(|s| !s.is_empty()).collect());
                }
            }
            Some(tail) if !ident(tail).is_empty() => paths.push(vec![first, ident(tail)]),
            _ => paths.push(vec![first]),
        }
    }
    paths
}

/// A file of `src/lifecycle`: its path there, its module path, and its code without the
/// test part.
struct Source {
    relative: String,
    module: Vec<String>,
    code: String,
    text: String,
}

/// Every `.rs` file below `root` but the test files, `lifecycle/mod.rs` and this one.
fn sources(root: &Path) -> Vec<Source> {
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
            let relative: Vec<&str> = relative.iter().map(|p| p.to_str().expect("a UTF-8 file name")).collect();
            let relative = relative.join("/");
            let file = relative.rsplit('/').next().unwrap_or_default();
            if matches!(relative.as_str(), "mod.rs" | "layering.rs") || file == "tests.rs" {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("read a source file");
            // The test part of a file names its own module's items through `super`.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default().to_owned();
            files.push(Source { module: module_path(&relative), relative, code, text });
        }
    }
    files
}

/// The module graph: module → the other modules (or re-exports) it names.
fn graph(files: &[Source]) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let Some(from) = node(&file.module) else { continue };
        let targets = edges.entry(from.clone()).or_default();
        for path in referenced_paths(&file.code, &file.module) {
            let Some(to) = node(&path) else { continue };
            if to != from {
                targets.insert(to);
            }
        }
    }
    edges
}

/// Floor rule violations, as `from -> to (why)` lines.
fn violations(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
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

/// The types `calls/` defines: its `struct` and `enum` items, and the handles its macro
/// makes.
fn calls_types(files: &[Source]) -> BTreeSet<String> {
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
fn impls_outside_calls(relative: &str, text: &str, types: &BTreeSet<String>) -> Vec<String> {
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

#[test]
fn each_module_imports_only_its_own_floor_or_below() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lifecycle");
    let files = sources(&root);
    let edges = graph(&files);
    assert!(
        edges.contains_key("session") && edges.contains_key("calls") && edges.contains_key("operations/create"),
        "the reader found the modules: {edges:?}"
    );
    assert_eq!(violations(&edges), Vec::<String>::new());
    assert_eq!(circle(&edges), None);
}

#[test]
fn the_calls_types_are_implemented_only_in_calls() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/lifecycle");
    let files = sources(&root);
    let types = calls_types(&files);
    assert!(types.contains("Resource") && types.contains("Connection") && types.contains("Client"), "{types:?}");
    let found: Vec<String> =
        files.iter().flat_map(|file| impls_outside_calls(&file.relative, &file.text, &types)).collect();
    assert_eq!(found, Vec::<String>::new(), "an impl of a calls type outside calls/: an operation is a function");
}

#[test]
fn the_checks_see_what_breaks_the_rule() {
    let path = |relative: &str| module_path(relative);
    let code = |text: &str, relative: &str| {
        referenced_paths(text, &path(relative)).iter().filter_map(|p| node(p)).collect::<Vec<_>>()
    };
    assert_eq!(code("use super::{Connection, TokenKind};", "calls/handles.rs"), ["calls", "calls"]);
    assert_eq!(code("use super::error::LifecycleError;", "calls/mod.rs"), ["error"]);
    assert_eq!(code("use super::support::{error, state::Meta};", "calls/mod.rs"), ["support/error", "support/state"]);
    assert_eq!(code("use super::super::session::Session;", "calls/change.rs"), ["session"]);
    assert_eq!(code("use super::shared::{Written, new_meta};", "operations/create.rs"), ["operations/shared"; 2]);
    assert_eq!(
        code("use crate::lifecycle::support::{error::X, state};", "operations/create.rs"),
        ["support/error", "support/state"]
    );
    assert_eq!(code("let x = crate::lifecycle::operations::diff::diff(r);", "session/mod.rs"), ["operations/diff"]);
    assert_eq!(code("// super::session in a comment", "operations/read.rs"), Vec::<String>::new());
    assert_eq!(code("use super::Resource;", "session/resources.rs"), ["session"]);

    let edges = |pairs: &[(&str, &str)]| {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, to) in pairs {
            graph.entry((*from).to_owned()).or_default().insert((*to).to_owned());
            graph.entry((*to).to_owned()).or_default();
        }
        graph
    };
    assert_eq!(
        violations(&edges(&[("calls", "session")])),
        ["calls -> session: calls imports from session, a higher floor"]
    );
    assert_eq!(
        violations(&edges(&[("support/state", "operations/create")])),
        ["support/state -> operations/create: support imports from operations, a higher floor"]
    );
    assert_eq!(violations(&edges(&[("operations/read", "operations/Resource")])).len(), 1);
    assert_eq!(violations(&edges(&[("newcomer", "support/error")])).len(), 1);
    assert!(violations(&edges(&[("session", "calls"), ("operations/diff", "support/checks")])).is_empty());
    let circled =
        edges(&[("operations/invoke", "operations/ephemeral"), ("operations/ephemeral", "operations/invoke")]);
    assert_eq!(circle(&circled).map(|c| c.len()), Some(3));
    assert_eq!(
        circle(&edges(&[("operations/invoke", "support/checks"), ("operations/ephemeral", "operations/invoke")])),
        None
    );

    let types: BTreeSet<String> = ["Resource", "Connection", "Client"].iter().map(|t| (*t).to_owned()).collect();
    let impls = |relative: &str, text: &str| impls_outside_calls(relative, text, &types);
    assert_eq!(
        impls("operations/foo.rs", "impl Resource { fn x() {} }"),
        ["operations/foo.rs:1: impl Resource { fn x() {} }"]
    );
    assert_eq!(impls("operations/foo.rs", "impl<'p> Resource<'p> {").len(), 1);
    assert_eq!(impls("support/foo.rs", "    impl Resource<'_> {").len(), 1);
    assert_eq!(impls("session/foo.rs", "impl fmt::Display for crate::lifecycle::calls::Connection {").len(), 1);
    assert_eq!(impls("operations/foo.rs", "impl<T: Into<String>> From<T> for &Client {").len(), 1);
    assert_eq!(impls("calls/foo.rs", "impl Resource<'_> {"), Vec::<String>::new());
    assert_eq!(impls("operations/foo.rs", "impl Resources {"), Vec::<String>::new());
    assert_eq!(impls("operations/foo.rs", "impl From<Resource> for Planner {"), Vec::<String>::new());
    assert_eq!(impls("operations/foo.rs", "fn implies(resource: Resource) {}"), Vec::<String>::new());
}
