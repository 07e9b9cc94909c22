//! Description text: the Go implementation's clean-up of Terraform markdown (`reformatText`).
//!
//! Outside fenced code blocks it turns `-> `, `~> ` and `!> ` notes into `> ` quotes. It makes
//! Terraform-site links absolute and drops links it cannot resolve. It also rewrites
//! references to names into per-language spans, so that each SDK shows its own spelling:
//! `` `min_upper` `` becomes `<span pulumi-lang-nodejs="`minUpper`" … pulumi-lang-hcl="`min_upper`">`minUpper`</span>`.
//! Resource and data source names become their class and function names in the same way.
//! The result is trimmed. The spans are for doc comments only: deprecation messages, which
//! SDKs print at run time, take the same names as plain text (`deprecation`, sharing
//! [`reference()`] with this module).
//!
//! Architecture invariant: text in, text out; only [`ProviderNames`] tells it which words are
//! resources and data sources.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

use super::names::ProviderNames;
use crate::naming::{property_name, upper_first};

static MARKDOWN_LINK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\[([^\]]*)\]\(([^\)]*)\)").expect("valid regex"));

static CODE_BLOCK: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?ms)```[^\n]*?$.*?```\s*$").expect("valid regex"));

/// A snake_case word between whitespace, quotes, backticks or brackets, or any lowercase
/// word in backticks. Go names both inner groups `name`; the regex crate needs distinct
/// names.
static CODE_LIKE_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"((?P<open>[\s"`\[])(?P<name>([0-9a-z]+_)+[0-9a-z]+)(?P<close>[\s"`\]]))|(`(?P<tick_name>[0-9a-z]+)`)"#,
    )
    .expect("valid regex")
});

static PAGE_REFERENCE_LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[[1-9]+\]: /docs/providers(?:/[a-z1-9_]+)+\.[a-z]+").expect("valid regex"));

/// Cleans a Terraform description as the Go implementation does without upstream docs.
pub(crate) fn reformat_text(names: &ProviderNames, text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    // Most descriptions hold no fenced code; skip the search for it then.
    if !text.contains("```") {
        return clean_up(names, text).trim().to_owned();
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut start = 0;
    for block in CODE_BLOCK.find_iter(text) {
        out.push_str(&clean_up(names, &text[start..block.start()]));
        out.push_str(block.as_str());
        start = block.end();
    }
    if start != text.len() {
        out.push_str(&clean_up(names, &text[start..]));
    }
    out.trim().to_owned()
}

fn clean_up(names: &ProviderNames, text: &str) -> String {
    // Each step is skipped when its marker is absent: big providers have tens of thousands
    // of descriptions and most need only the name spans.
    let text = if text.contains("> ") {
        Cow::Owned(text.replace("-> ", "> ").replace("~> ", "> ").replace("!> ", "> "))
    } else {
        Cow::Borrowed(text)
    };
    let text = text.strip_prefix("\n(Required)\n").unwrap_or(&text);
    let text = text.strip_prefix("\n(Optional)\n").unwrap_or(text);
    if !text.contains('[') {
        return fix_up_references(names, text);
    }
    let text = PAGE_REFERENCE_LINK.replace_all(text, |caps: &Captures| {
        let link = &caps[0];
        let (label, path) = link.split_once(' ').unwrap_or((link, ""));
        format!("{label} https://www.terraform.io{path}")
    });
    let text = MARKDOWN_LINK.replace_all(&text, |caps: &Captures| {
        let (label, url) = (&caps[1], &caps[2]);
        if url.starts_with("http") {
            caps[0].to_owned()
        } else if url.starts_with('/') {
            format!("[{label}](https://www.terraform.io{url})")
        } else {
            // Anchors and relative links cannot be resolved outside the Terraform docs site.
            label.to_owned()
        }
    });
    fix_up_references(names, &text)
}

/// Rewrites references to resources, data sources and properties into per-language spans.
/// Only for doc comments: the spans are markup that the documentation renderer resolves, and
/// the code generators copy them as is, so deprecation messages (printed at run time) use
/// [`super::deprecation::plain_references`] instead.
fn fix_up_references(names: &ProviderNames, text: &str) -> String {
    if !text.contains(['`', '_']) {
        return text.to_owned();
    }
    CODE_LIKE_WORD
        .replace_all(text, |caps: &Captures| {
            let whole = &caps[0];
            let (open, name, close) = match caps.name("name") {
                Some(name) => (&caps["open"], name.as_str(), &caps["close"]),
                None => ("`", &caps["tick_name"], "`"),
            };
            let wrap = |inner: &str| format!("{open}{inner}{close}");
            let reference = reference(names, name);
            let display = wrap(&reference.plain_text(names, name));
            match reference {
                Reference::Resource { class } => {
                    let go_and_python = wrap(class);
                    span(&display, &display, &go_and_python, &go_and_python, &display, &display, &wrap(name), &display)
                }
                Reference::DataSource { function } => span(
                    &display,
                    &display,
                    &wrap(function),
                    &wrap(&python_name(function)),
                    &display,
                    &display,
                    &wrap(&format!("data.{name}")),
                    &display,
                ),
                Reference::Property => {
                    let dotnet = wrap(&upper_first(&property_name(name)));
                    span(&display, &dotnet, &display, whole, &display, &display, whole, &display)
                }
            }
        })
        .into_owned()
}

/// What a code-like word in provider text names.
pub(super) enum Reference<'a> {
    /// A resource type; `class` is its token's last part.
    Resource { class: &'a str },
    /// A data source; `function` is its token's last part (`getFoo`).
    DataSource { function: &'a str },
    /// Anything else is taken for a property name, as the Go implementation does.
    Property,
}

pub(super) fn reference<'a>(names: &'a ProviderNames, word: &str) -> Reference<'a> {
    let last_part = |token: &'a str| token.rsplit(':').next().unwrap_or(token);
    if let Some(token) = names.resource_token(word) {
        Reference::Resource { class: last_part(token) }
    } else if let Some(token) = names.data_source_token(word) {
        Reference::DataSource { function: last_part(token) }
    } else {
        Reference::Property
    }
}

impl Reference<'_> {
    /// The spelling one string can give every language: `pkg.Class`, `pkg.getFoo` or the
    /// camelCase property name. It is the span's default display, and what the Go
    /// implementation writes where spans cannot go (its registry-docs rendering).
    pub(super) fn plain_text(&self, names: &ProviderNames, word: &str) -> String {
        match self {
            Reference::Resource { class } => format!("{}.{class}", names.package_name()),
            Reference::DataSource { function } => format!("{}.{function}", names.package_name()),
            Reference::Property => property_name(word),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn span(node: &str, dotnet: &str, go: &str, python: &str, yaml: &str, java: &str, hcl: &str, display: &str) -> String {
    format!(
        "<span pulumi-lang-nodejs=\"{node}\" pulumi-lang-dotnet=\"{dotnet}\" pulumi-lang-go=\"{go}\" \
         pulumi-lang-python=\"{python}\" pulumi-lang-yaml=\"{yaml}\" pulumi-lang-java=\"{java}\" \
         pulumi-lang-hcl=\"{hcl}\">{display}</span>"
    )
}

/// Python's snake_case spelling of a camelCase function name (`getBucket` → `get_bucket`).
fn python_name(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (idx, &c) in chars.iter().enumerate() {
        if c.is_uppercase() && idx > 0 {
            let prev = chars[idx - 1];
            let next_lower = chars.get(idx + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                out.push('_');
            }
        }
        out.extend(c.to_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::tf::{ProviderSchema, Schema};
    use crate::translate::TokenFilter;

    #[test]
    fn reformats_like_go() {
        let schema = ProviderSchema {
            resources: [("acme_bucket".to_owned(), Schema::default())].into(),
            data_sources: [("acme_bucket_policy".to_owned(), Schema::default())].into(),
            ..ProviderSchema::default()
        };
        let (names, _) = ProviderNames::new(&schema, "acme", &TokenFilter { include: &[], exclude: &[] });
        let inputs = [
            "  -> **Note** see [the guide](/docs/providers/acme/guide.html) and [below](#args).  ",
            "Set `min_upper` to `true`.",
            "Use with acme_bucket or acme_bucket_policy.",
            "```hcl\nresource \"acme_bucket\" \"b\" {}\n```\nThen `max_size`.",
        ];
        let actual: String = inputs.iter().map(|text| format!("{:?}\n", reformat_text(&names, text))).collect();
        expect![[r#"
            "> **Note** see [the guide](https://www.terraform.io/docs/providers/acme/guide.html) and below."
            "Set <span pulumi-lang-nodejs=\"`minUpper`\" pulumi-lang-dotnet=\"`MinUpper`\" pulumi-lang-go=\"`minUpper`\" pulumi-lang-python=\"`min_upper`\" pulumi-lang-yaml=\"`minUpper`\" pulumi-lang-java=\"`minUpper`\" pulumi-lang-hcl=\"`min_upper`\">`minUpper`</span> to <span pulumi-lang-nodejs=\"`true`\" pulumi-lang-dotnet=\"`True`\" pulumi-lang-go=\"`true`\" pulumi-lang-python=\"`true`\" pulumi-lang-yaml=\"`true`\" pulumi-lang-java=\"`true`\" pulumi-lang-hcl=\"`true`\">`true`</span>."
            "Use with<span pulumi-lang-nodejs=\" acme.Bucket \" pulumi-lang-dotnet=\" acme.Bucket \" pulumi-lang-go=\" Bucket \" pulumi-lang-python=\" Bucket \" pulumi-lang-yaml=\" acme.Bucket \" pulumi-lang-java=\" acme.Bucket \" pulumi-lang-hcl=\" acme_bucket \"> acme.Bucket </span>or acme_bucket_policy."
            "```hcl\nresource \"acme_bucket\" \"b\" {}\n```\nThen <span pulumi-lang-nodejs=\"`maxSize`\" pulumi-lang-dotnet=\"`MaxSize`\" pulumi-lang-go=\"`maxSize`\" pulumi-lang-python=\"`max_size`\" pulumi-lang-yaml=\"`maxSize`\" pulumi-lang-java=\"`maxSize`\" pulumi-lang-hcl=\"`max_size`\">`maxSize`</span>."
        "#]]
        .assert_eq(&actual);
        assert_eq!(python_name("getBucketPolicy"), "get_bucket_policy");
    }
}
