//! The plan of the house, checked on the sources at three scales (ARCHITECTURE.md, "One
//! direction of dependency"):
//! - `modules`: each module of `src/` uses only what ARCHITECTURE.md's diagram allows, and
//!   the diagram's arrows point only down (its `may-use` block is this test's table);
//! - `folders`: in every folder of `src/` and `schema-gen/src/` the files import each other
//!   in no circle;
//! - `lifecycle`: `lifecycle`'s floors (session → operations → calls → support), no circle
//!   between its modules, and every `impl` of a calls type in `calls/`.
//!
//! `source` reads the files: comments, strings and `#[cfg(test)]` items do not count, and
//! test files (`tests.rs`, `proptests`, `testutil.rs`) are not read.

mod folders;
mod lifecycle;
mod modules;
mod source;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use source::{crate_paths, module_path, sources};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn each_module_of_src_uses_only_what_the_diagram_allows() {
    let architecture = std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("read ARCHITECTURE.md");
    let table = modules::table(&architecture);
    let uses = modules::uses(&sources(&root().join("src")));
    assert!(
        table.len() > 10 && uses.get("server").is_some_and(|used| used.contains("lifecycle")),
        "the readers found the diagram ({table:?}) and the uses ({uses:?})"
    );
    let n_arrows: usize = uses.values().map(BTreeSet::len).sum();
    println!("{} modules, {n_arrows} uses between them", uses.len());
    let problems = modules::problems(&table, &uses);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn in_no_folder_do_the_files_import_each_other_in_a_circle() {
    let mut problems = Vec::new();
    let mut n_folders = 0;
    for crate_dir in ["src", "schema-gen/src"] {
        let files = sources(&root().join(crate_dir));
        let graphs = folders::graphs(&files);
        n_folders += graphs.len();
        problems.extend(folders::problems(crate_dir, &files));
    }
    assert!(n_folders > 10, "the reader found the imports of only {n_folders} folders");
    println!("{n_folders} folders with imports between their files, {} circles", problems.len());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn each_lifecycle_module_imports_only_its_own_floor_or_below() {
    let files = lifecycle::lifecycle_files(&sources(&root().join("src")));
    let edges = lifecycle::graph(&files);
    assert!(
        edges.contains_key("session") && edges.contains_key("calls") && edges.contains_key("operations/create"),
        "the reader found the modules: {edges:?}"
    );
    assert_eq!(lifecycle::violations(&edges), Vec::<String>::new());
    assert_eq!(lifecycle::circle(&edges), None);
}

#[test]
fn the_calls_types_are_implemented_only_in_calls() {
    let files = lifecycle::lifecycle_files(&sources(&root().join("src")));
    let types = lifecycle::calls_types(&files);
    assert!(types.contains("Resource") && types.contains("Connection") && types.contains("Client"), "{types:?}");
    let found: Vec<String> =
        files.iter().flat_map(|file| lifecycle::impls_outside_calls(&file.relative, &file.text, &types)).collect();
    assert_eq!(found, Vec::<String>::new(), "an impl of a calls type outside calls/: an operation is a function");
}

/// A graph from `from → to` pairs.
fn edges(pairs: &[(&str, &str)]) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in pairs {
        graph.entry((*from).to_owned()).or_default().insert((*to).to_owned());
        graph.entry((*to).to_owned()).or_default();
    }
    graph
}

#[test]
fn the_reader_finds_every_path_into_the_crate() {
    let paths = |code: &str, relative: &str| {
        let code = source::without_test_items(&source::without_comments_and_strings(code));
        crate_paths(&code, &module_path(relative)).into_iter().map(|path| path.join("::")).collect::<Vec<_>>()
    };
    assert_eq!(
        paths("use super::{Connection, TokenKind};", "lifecycle/calls/handles.rs"),
        ["lifecycle::calls::Connection", "lifecycle::calls::TokenKind"]
    );
    assert_eq!(
        paths("use super::error::LifecycleError;", "lifecycle/calls/mod.rs"),
        ["lifecycle::error::LifecycleError"]
    );
    assert_eq!(
        paths("use crate::{\n    cty::{self, Value},\n    installer::error::*,\n};", "convert/mod.rs"),
        ["cty", "cty::Value", "installer::error"]
    );
    assert_eq!(
        paths("use super::super::session::Session as S;", "lifecycle/calls/resource_change.rs"),
        ["lifecycle::session::Session"]
    );
    assert_eq!(
        paths("let x = crate::lifecycle::operations::diff::diff(r);", "lifecycle/session/mod.rs"),
        ["lifecycle::operations::diff::diff"]
    );
    assert_eq!(paths("// super::session in a comment\nlet s = \"crate::cty::Value\";", "a/b.rs"), Vec::<String>::new());
    assert_eq!(paths("let q = '\"'; let p = self::x::y;", "a/b.rs"), ["a::b::x::y"]);
    assert_eq!(paths("#[cfg(test)]\nmod tests {\n    use super::*;\n}\nuse crate::z;", "a/b.rs"), ["z"]);
    assert_eq!(paths("#[cfg(test)]\nuse crate::y;\nfn f() { crate::z::f() }", "a/b.rs"), ["z::f"]);
    assert_eq!(paths("use tfbridge::server::serve;\nuse crate::cli;", "main.rs"), ["server::serve"]);
    assert_eq!(paths("pub(crate) use super::x::Y;", "a/b.rs"), ["a::x::Y"]);
    assert_eq!(module_path("lifecycle/calls/mod.rs"), ["lifecycle", "calls"]);
    assert_eq!(module_path("bin/schema-gen.rs"), ["bin", "schema-gen.rs"]);
    assert_eq!(module_path("lib.rs"), Vec::<String>::new());
}

#[test]
fn the_checks_see_what_breaks_the_plan() {
    // The diagram.
    let table = modules::table("text\n```may-use\nserver ──► lifecycle, cty\nlifecycle ──► cty\ncty\n```\n");
    assert_eq!(table.len(), 3);
    let uses = |pairs: &[(&str, &str)]| {
        let mut graph = edges(pairs);
        graph.entry("cty".to_owned()).or_default();
        graph
    };
    assert!(
        modules::problems(&table, &uses(&[("server", "lifecycle"), ("server", "cty"), ("lifecycle", "cty")]))
            .is_empty()
    );
    assert_eq!(
        modules::problems(
            &table,
            &uses(&[("server", "lifecycle"), ("server", "cty"), ("lifecycle", "cty"), ("cty", "lifecycle")])
        ),
        ["cty uses lifecycle: the diagram has no arrow cty ──► lifecycle"]
    );
    assert_eq!(
        modules::problems(&table, &uses(&[("server", "lifecycle"), ("lifecycle", "cty")])),
        ["the diagram's arrow server ──► cty is no use of the code; drop it"]
    );
    assert_eq!(
        modules::problems(
            &table,
            &uses(&[("server", "lifecycle"), ("server", "cty"), ("lifecycle", "cty"), ("newcomer", "cty")])
        ),
        ["src/newcomer: a module ARCHITECTURE.md's diagram does not show; give it its line"]
    );
    let upward = modules::table("```may-use\ncty\nlifecycle ──► cty\nserver ──► lifecycle, cty\n```");
    let upward_uses = uses(&[("server", "lifecycle"), ("server", "cty"), ("lifecycle", "cty")]);
    assert_eq!(modules::problems(&upward, &upward_uses).len(), 3);

    // The folders.
    assert_eq!(
        folders::circles(&edges(&[("error", "cliconfig"), ("cliconfig", "error"), ("cache", "error")])),
        [["cliconfig → error", "error → cliconfig"]]
    );
    assert_eq!(
        folders::circles(&edges(&[("store", "entry"), ("entry", "lazy"), ("lazy", "store"), ("key", "store")])),
        [["entry → lazy", "lazy → store", "store → entry"]]
    );
    assert!(folders::circles(&edges(&[("entry", "store"), ("lazy", "store"), ("store", "key")])).is_empty());

    // The floors of lifecycle.
    assert_eq!(
        lifecycle::violations(&edges(&[("calls", "session")])),
        ["calls -> session: calls imports from session, a higher floor"]
    );
    assert_eq!(
        lifecycle::violations(&edges(&[("support/state", "operations/create")])),
        ["support/state -> operations/create: support imports from operations, a higher floor"]
    );
    assert_eq!(lifecycle::violations(&edges(&[("operations/read", "operations/Resource")])).len(), 1);
    assert_eq!(lifecycle::violations(&edges(&[("newcomer", "support/error")])).len(), 1);
    assert!(lifecycle::violations(&edges(&[("session", "calls"), ("operations/diff", "support/checks")])).is_empty());
    let circled =
        edges(&[("operations/invoke", "operations/ephemeral"), ("operations/ephemeral", "operations/invoke")]);
    assert_eq!(lifecycle::circle(&circled).map(|c| c.len()), Some(3));
    assert_eq!(
        lifecycle::circle(&edges(&[
            ("operations/invoke", "support/checks"),
            ("operations/ephemeral", "operations/invoke")
        ])),
        None
    );

    let types: BTreeSet<String> = ["Resource", "Connection", "Client"].iter().map(|t| (*t).to_owned()).collect();
    let impls = |relative: &str, text: &str| lifecycle::impls_outside_calls(relative, text, &types);
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
