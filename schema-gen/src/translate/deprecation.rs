//! Deprecation messages: the provider's text as plain text, names in Pulumi's spelling.
//!
//! A schema's `deprecationMessage` is not documentation. The code generators print it at
//! run time (Python's `warnings.warn` and `pulumi.log.warn`) and copy it into TypeScript's
//! `@deprecated`, Go's `Deprecated:` and Java's `@Deprecated`, as is. So unlike descriptions
//! (`docs`), it gets no `<span pulumi-lang-…>` markup: a name the provider wrote is replaced
//! by the one spelling a single string can give every language, the one in the schema
//! (`remove_vanished` → `removeVanished`, a resource → `pkg.Class`, a data source →
//! `pkg.getFoo`), and everything around it, spaces, backticks and quotes included, is kept.
//! The Go implementation writes the same spellings where it cannot use spans (its registry
//! docs); docs/schema-mapping.md §5 records the choice.
//!
//! Architecture invariant: text in, text out; only [`ProviderNames`] tells it which words are
//! resources and data sources.

use super::docs::reference;
use super::names::ProviderNames;

/// The `deprecationMessage` of something the provider marked deprecated: its message, or
/// `Deprecated` when it gave none; empty when it is not deprecated.
pub(crate) fn deprecation_message(names: &ProviderNames, deprecated: bool, message: &str) -> String {
    if !message.is_empty() {
        plain_references(names, message)
    } else if deprecated {
        "Deprecated".to_owned()
    } else {
        String::new()
    }
}

/// Rewrites the names in `text` the way the span markup's default display does, without
/// the markup. A word is a name when it is lowercase snake_case (`remove_vanished`) standing
/// alone, or any lowercase word in backticks (`` `otp` ``). Standing alone means
/// between the text's start or end, whitespace, quotes, backticks or brackets; a name may
/// also end a sentence (`.`, `,`, `;`, `:`, `!` or `?` and then whitespace or the end).
/// Unlike the doc-comment rule, which consumes the characters around a name, two names
/// one space apart are both found, and so is a name at the start or the end.
pub(crate) fn plain_references(names: &ProviderNames, text: &str) -> String {
    if !text.contains(['`', '_']) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut copied = 0;
    for (start, end) in words(text) {
        let word = &text[start..end];
        let before = text[..start].chars().next_back();
        let mut rest = text[end..].chars();
        let after = rest.next();
        let after_that = rest.next();
        let in_backticks = before == Some('`') && after == Some('`') && is_lower_words(word);
        let alone = is_snake_case(word) && opens(before) && closes(after, after_that);
        if in_backticks || alone {
            out.push_str(&text[copied..start]);
            out.push_str(&reference(names, word).plain_text(names, word));
            copied = end;
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// The byte ranges of the maximal runs of ASCII letters, digits and underscores.
fn words(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, _) = chars.by_ref().find(|&(_, c)| is_word(c))?;
        let mut end = text.len();
        while let Some(&(idx, c)) = chars.peek() {
            if !is_word(c) {
                end = idx;
                break;
            }
            chars.next();
        }
        Some((start, end))
    })
}

/// `[0-9a-z]+(_[0-9a-z]+)*`: no capitals, no leading, trailing or doubled underscore.
fn is_lower_words(word: &str) -> bool {
    word.split('_').all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// Two or more lowercase words joined by underscores, the shape of a Terraform name.
fn is_snake_case(word: &str) -> bool {
    word.contains('_') && is_lower_words(word)
}

fn opens(before: Option<char>) -> bool {
    match before {
        None => true,
        Some(c) => c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '(' | '['),
    }
}

fn closes(after: Option<char>, after_that: Option<char>) -> bool {
    match after {
        None => true,
        Some(c) if c.is_whitespace() || matches!(c, '"' | '\'' | '`' | ')' | ']') => true,
        // Sentence punctuation, but not a dot inside `file_name.txt` or `a_b.c_d`.
        Some('.' | ',' | ';' | ':' | '!' | '?') => after_that.is_none_or(char::is_whitespace),
        Some(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::tf::{ProviderSchema, Schema};
    use crate::translate::TokenFilter;

    #[test]
    fn names_in_plain_text() {
        let schema = ProviderSchema {
            resources: [("proxmox_virtual_environment_vm2".to_owned(), Schema::default())].into(),
            data_sources: [("proxmox_virtual_environment_vms".to_owned(), Schema::default())].into(),
            ..ProviderSchema::default()
        };
        let (names, _) = ProviderNames::new(&schema, "proxmox", &TokenFilter { include: &[], exclude: &[] });
        let cases = [
            // Proxmox's messages (bpg/proxmox 0.x), the shapes that lost their spaces.
            "Deprecated by Proxmox: use remove_vanished instead.",
            "use remove_vanished",
            "remove_vanished is deprecated, set mount_options",
            "Use `remove_vanished` instead.",
            "Use \"remove_vanished\" or 'keep_alive' (or [max_size]).",
            "Use remove_vanished and mount_options together.",
            "Use remove_vanished, mount_options; keep_alive: or clone_vm!",
            "Use the proxmox_virtual_environment_vm2 resource instead.",
            "Use proxmox_virtual_environment_vms: it lists them.",
            // No name: left alone, as are words that only look like one.
            "The otp field is deprecated and will be removed.",
            "Use `otp` instead.",
            "See file_name.txt or a_b.c_d, Remove_Vanished, x-remove_vanished, https://example.com/a_b.",
            "Deprecated",
            "",
        ];
        let actual: String =
            cases.iter().map(|text| format!("{text:?}\n -> {:?}\n", plain_references(&names, text))).collect();
        expect![[r#"
            "Deprecated by Proxmox: use remove_vanished instead."
             -> "Deprecated by Proxmox: use removeVanished instead."
            "use remove_vanished"
             -> "use removeVanished"
            "remove_vanished is deprecated, set mount_options"
             -> "removeVanished is deprecated, set mountOptions"
            "Use `remove_vanished` instead."
             -> "Use `removeVanished` instead."
            "Use \"remove_vanished\" or 'keep_alive' (or [max_size])."
             -> "Use \"removeVanished\" or 'keepAlive' (or [maxSize])."
            "Use remove_vanished and mount_options together."
             -> "Use removeVanished and mountOptions together."
            "Use remove_vanished, mount_options; keep_alive: or clone_vm!"
             -> "Use removeVanished, mountOptions; keepAlive: or cloneVm!"
            "Use the proxmox_virtual_environment_vm2 resource instead."
             -> "Use the proxmox.VirtualEnvironmentVm2 resource instead."
            "Use proxmox_virtual_environment_vms: it lists them."
             -> "Use proxmox.getVirtualEnvironmentVms: it lists them."
            "The otp field is deprecated and will be removed."
             -> "The otp field is deprecated and will be removed."
            "Use `otp` instead."
             -> "Use `otp` instead."
            "See file_name.txt or a_b.c_d, Remove_Vanished, x-remove_vanished, https://example.com/a_b."
             -> "See file_name.txt or a_b.c_d, Remove_Vanished, x-remove_vanished, https://example.com/a_b."
            "Deprecated"
             -> "Deprecated"
            ""
             -> ""
        "#]]
        .assert_eq(&actual);
    }

    #[test]
    fn message_or_flag() {
        let (names, _) =
            ProviderNames::new(&ProviderSchema::default(), "acme", &TokenFilter { include: &[], exclude: &[] });
        let cases = [(false, ""), (true, ""), (true, "Use new_field."), (false, "Use `new_field`.")];
        let actual: Vec<String> =
            cases.iter().map(|&(deprecated, message)| deprecation_message(&names, deprecated, message)).collect();
        assert_eq!(actual, ["", "Deprecated", "Use newField.", "Use `newField`."]);
    }
}
