//! Reading the sources for the structure checks: each file's module path, its code without
//! comments, string literals and `#[cfg(test)]` items, and every path into its own crate
//! the code names (`crate::`, `super::`, `self::`, and `tfbridge::` in the binaries),
//! resolved from the file's place.
//!
//! The reader is a reader of text, not a parser: a `super` inside an inline module (`mod job
//! { … }`, not a test one) is read as its file's, which can only name the file's own
//! folder; none of ours names a sibling file through it.

use std::path::Path;

use crate::common::paths_under;

/// Module names that only tests compile: a file below one of them is test code.
const TEST_MODULES: &[&str] = &["tests", "proptests", "testutil"];

/// A file of a crate's `src/`.
pub struct Source {
    /// Its path below `src/`, with `/` separators.
    pub relative: String,
    /// Its module path (`lifecycle/calls/mod.rs` → `[lifecycle, calls]`; a binary's root is
    /// named after its file, `[main.rs]`, `[bin, schema-gen.rs]`).
    pub module: Vec<String>,
    /// The whole file, as written.
    pub text: String,
    /// The code: no comments, no string contents, no `#[cfg(test)]` items.
    pub code: String,
}

/// Every Rust file below `src_root` that is not test code.
pub fn sources(src_root: &Path) -> Vec<Source> {
    let mut files = Vec::new();
    for path in paths_under(src_root).into_iter().filter(|path| path.extension().is_some_and(|e| e == "rs")) {
        let relative = path.strip_prefix(src_root).expect("below the root");
        let relative: Vec<&str> = relative.iter().map(|p| p.to_str().expect("a UTF-8 file name")).collect();
        let relative = relative.join("/");
        let module = module_path(&relative);
        if module.iter().any(|segment| TEST_MODULES.contains(&segment.as_str())) {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read a source file");
        let code = without_test_items(&without_comments_and_strings(&text));
        files.push(Source { relative, module, text, code });
    }
    files
}

/// The module path of a file below `src/` (`a/b.rs` → `[a, b]`, `a/mod.rs` → `[a]`, `lib.rs`
/// → `[]`); a binary's root keeps its file name.
pub fn module_path(relative: &str) -> Vec<String> {
    if relative == "main.rs" || relative.starts_with("bin/") {
        return relative.split('/').map(str::to_owned).collect();
    }
    if relative == "lib.rs" {
        return Vec::new();
    }
    let mut parts: Vec<String> = relative.trim_end_matches(".rs").split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    parts
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` with comments removed and string and character literals emptied, so that neither
/// a path in prose nor a brace in a string reaches the readers below.
pub fn without_comments_and_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        let next = chars.get(at + 1).copied();
        if c == '/' && next == Some('/') {
            while at < chars.len() && chars[at] != '\n' {
                at += 1;
            }
        } else if c == '/' && next == Some('*') {
            at += 2;
            while at < chars.len() && !(chars[at] == '*' && chars.get(at + 1) == Some(&'/')) {
                if chars[at] == '\n' {
                    out.push('\n');
                }
                at += 1;
            }
            at += 2;
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !out.ends_with(is_ident_char) {
            // A raw string: r"…", r#"…"#, …
            let hashes = chars[at + 1..].iter().take_while(|&&c| c == '#').count();
            if chars.get(at + 1 + hashes) != Some(&'"') {
                out.push(c);
                at += 1;
                continue;
            }
            at += 2 + hashes;
            out.push_str("\"\"");
            while at < chars.len() {
                if chars[at] == '"' && chars[at + 1..].iter().take(hashes).filter(|&&c| c == '#').count() == hashes {
                    at += 1 + hashes;
                    break;
                }
                if chars[at] == '\n' {
                    out.push('\n');
                }
                at += 1;
            }
        } else if c == '"' {
            at += 1;
            while at < chars.len() && chars[at] != '"' {
                if chars[at] == '\\' {
                    at += 1;
                }
                if chars.get(at) == Some(&'\n') {
                    out.push('\n');
                }
                at += 1;
            }
            at += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (chars.get(at + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal ('"', '{', '\n', '\''); a lifetime has no closing quote.
            at += if next == Some('\\') { 3 } else { 1 };
            while at < chars.len() && chars[at] != '\'' {
                at += 1;
            }
            at += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            at += 1;
        }
    }
    out
}

/// `code` without the items marked `#[cfg(test)]` (a `mod tests;` line, a `mod tests { … }`
/// block, a test helper): they name test modules and their own module's items through `super`.
pub fn without_test_items(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        // The item ends at its `;` or at the brace that closes its body, whichever comes first
        // at depth 0.
        let mut depth = 0usize;
        let mut end = item.len();
        for (offset, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = offset + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = offset + 1;
                    break;
                }
                _ => {}
            }
        }
        out.extend(item[..end].chars().filter(|&c| c == '\n'));
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// Every path into the crate that `code` names, resolved from the module path `from`: the
/// members of each `use` tree, and each `crate::`, `super::`, `self::` or `tfbridge::` path
/// elsewhere. Paths into other crates and bare paths are left out.
pub fn crate_paths(code: &str, from: &[String]) -> Vec<Vec<String>> {
    let mut written = Vec::new();
    let mut rest_of_code = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = find_use(rest) {
        rest_of_code.push_str(&rest[..at]);
        let statement = &rest[at + "use".len()..];
        let end = statement.find(';').unwrap_or(statement.len());
        let tokens = tokens(&statement[..end]);
        let mut position = 0;
        use_tree(&tokens, &mut position, Vec::new(), &mut written);
        rest = &statement[end..];
    }
    rest_of_code.push_str(rest);
    written.extend(inline_paths(&rest_of_code));
    written.into_iter().filter_map(|path| resolve(&path, from)).collect()
}

/// Where the next `use` declaration starts in `code`.
fn find_use(code: &str) -> Option<usize> {
    code.match_indices("use").map(|(at, _)| at).find(|&at| {
        let before = code[..at].trim_end();
        let after = &code[at + 3..];
        after.starts_with(char::is_whitespace)
            && !code[..at].ends_with(is_ident_char)
            && (before.is_empty() || before.ends_with([';', '{', '}', ')', ']']) || before.ends_with("pub"))
    })
}

/// A `use` tree's tokens: identifiers, `::`, `{`, `}`, `,`, `*`.
fn tokens(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if is_ident_char(c) {
            let mut end = at + c.len_utf8();
            while let Some(&(next_at, next)) = chars.peek() {
                if !is_ident_char(next) {
                    break;
                }
                end = next_at + next.len_utf8();
                chars.next();
            }
            found.push(text[at..end].to_owned());
        } else if c == ':' && chars.peek().is_some_and(|&(_, next)| next == ':') {
            chars.next();
            found.push("::".to_owned());
        } else if "{},*".contains(c) {
            found.push(c.to_string());
        }
    }
    found
}

/// One `use` tree from `tokens[*position..]`, its members' paths (below `prefix`) pushed to
/// `out`: `a::b`, `a::{b, c::d}`, `a::*`, `a as b`, `self` in a group.
fn use_tree(tokens: &[String], position: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    loop {
        match tokens.get(*position).map(String::as_str) {
            Some("{") => {
                *position += 1;
                while !matches!(tokens.get(*position).map(String::as_str), Some("}") | None) {
                    use_tree(tokens, position, path.clone(), out);
                    if tokens.get(*position).is_some_and(|t| t == ",") {
                        *position += 1;
                    }
                }
                *position += 1;
                return;
            }
            Some("*") => {
                *position += 1;
                out.push(path);
                return;
            }
            Some("self") if !path.is_empty() => *position += 1,
            Some("::") => *position += 1,
            Some("as") => *position += 2,
            Some(token) if token != "," && token != "}" => {
                path.push(token.to_owned());
                *position += 1;
            }
            _ => {
                out.push(path);
                return;
            }
        }
    }
}

/// The paths outside `use` declarations that start at `crate`, `super`, `self` or `tfbridge`.
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for start in ["crate::", "super::", "self::", "tfbridge::"] {
        for (at, _) in code.match_indices(start) {
            let before = &code[..at];
            if before.ends_with(is_ident_char) || before.ends_with("::") {
                continue;
            }
            let mut path = Vec::new();
            let mut rest = &code[at..];
            loop {
                let ident: String = rest.chars().take_while(|&c| is_ident_char(c)).collect();
                if ident.is_empty() {
                    break;
                }
                rest = &rest[ident.len()..];
                path.push(ident);
                match rest.strip_prefix("::") {
                    Some(after) => rest = after,
                    None => break,
                }
            }
            found.push(path);
        }
    }
    found
}

/// A written path as a module path from the library's root, if it is one into the library:
/// a binary names the library `tfbridge`, and its own `crate` is not the library.
fn resolve(path: &[String], from: &[String]) -> Option<Vec<String>> {
    let first = path.first()?;
    let in_binary = from.first().is_some_and(|root| root == "main.rs" || root == "bin");
    let (mut base, rest) = match first.as_str() {
        "tfbridge" if in_binary => (Vec::new(), &path[1..]),
        _ if in_binary => return None,
        "crate" => (Vec::new(), &path[1..]),
        "self" => (from.to_vec(), &path[1..]),
        "super" => {
            let n_supers = path.iter().take_while(|segment| *segment == "super").count();
            (from[..from.len().checked_sub(n_supers)?].to_vec(), &path[n_supers..])
        }
        _ => return None,
    };
    base.extend(rest.iter().cloned());
    Some(base)
}
