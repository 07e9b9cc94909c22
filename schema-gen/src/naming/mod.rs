//! Name rules: Terraform names to Pulumi property names, token parts and package names.
//!
//! Every function here reproduces a rule of the Go implementation (pulumi-terraform-bridge)
//! character for character, because generated SDKs must be interchangeable:
//! [`property_name`] is its `TerraformToPulumiNameV2` casing, [`pluralize`] and
//! [`singularize`] are `pulumi/inflector`, [`token_camel_case`] and [`safe_token_name`] are
//! its token rules. [`package_name_from_binary`] is ours: it fixes the Go implementation's
//! `redpanda_v0.10.1` package names.
//!
//! Architecture invariant: pure string functions; nothing here looks at a schema.

mod inflector;

pub use inflector::{pluralize, singularize};

/// Terraform `snake_case` to Pulumi `camelCase`: the letter after each `_` is uppercased
/// (only `a`–`z`; digits stay), leading underscores are kept, and a trailing run of `_`
/// leaves one `_`. Examples: `vpc_id` → `vpcId`, `_private` → `_private`, `a_1b` → `a1b`.
pub fn property_name(tf_name: &str) -> String {
    let mut result = String::with_capacity(tf_name.len());
    let mut capitalize_next = false;
    let mut started = false;
    let mut previous = None;
    for c in tf_name.chars() {
        previous = Some(c);
        if c == '_' && started {
            capitalize_next = true;
            continue;
        }
        if c != '_' {
            started = true;
        }
        if capitalize_next && c.is_ascii_lowercase() {
            result.push(c.to_ascii_uppercase());
        } else {
            result.push(c);
        }
        capitalize_next = false;
    }
    if previous == Some('_') {
        result.push('_');
    }
    result
}

/// The first character uppercased, the rest unchanged.
pub fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The first character lowercased, the rest unchanged.
pub fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Token casing: `_` and `-` are word breaks; each delimiter is removed and the character
/// after it uppercased (`test_my-token` → `testMyToken`, `_id` → `Id`). The first character
/// is left alone, so callers add [`upper_first`] for type names.
pub fn token_camel_case(text: &str) -> String {
    remove_delimiter(&remove_delimiter(text, '_'), '-')
}

fn remove_delimiter(text: &str, delimiter: char) -> String {
    let mut pieces = text.split(delimiter);
    let mut result = pieces.next().unwrap_or_default().to_owned();
    for piece in pieces {
        result.push_str(&upper_first(piece));
    }
    result
}

/// Makes a token name safe to start a token: a leading digit becomes its English word and
/// the character after it is uppercased (`1fDns` → `OneFDns`), as the Go implementation's
/// `makeSafeTokenPart` does.
pub fn safe_token_name(name: &str) -> String {
    const WORDS: [&str; 10] = ["Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"];
    let mut chars = name.chars();
    match chars.next() {
        Some(first) if first.is_ascii_digit() => {
            let word = WORDS[usize::from(first as u8 - b'0')];
            let next: String = chars.next().map(|c| c.to_uppercase().collect()).unwrap_or_default();
            format!("{word}{next}{}", chars.as_str())
        }
        _ => name.to_owned(),
    }
}

/// Title-cases a property name for use inside a type name, like Go's
/// `cases.Title(language.Und, cases.NoLower)` on the identifier-like names the translation
/// produces: the first letter is uppercased and nothing is lowercased.
pub fn title(name: &str) -> String {
    upper_first(name)
}

/// Why a package name could not be derived from a file name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PackageNameError {
    /// Nothing usable was left of the file name after removing the
    /// `terraform-provider-` prefix and the `_vX.Y.Z` suffix.
    #[error("cannot derive a package name from the file name {file_name:?}: {reason}")]
    Unusable { file_name: String, reason: &'static str },
}

/// The package name for a locally built provider binary: the text after the last
/// `terraform-provider-`, without an `.exe` extension and without Terraform's `_v<version>`
/// suffix. `terraform-provider-foo_v1.2.3` → `foo`; `/opt/terraform-provider-foo-bar.exe`
/// → `foo-bar`. Both `/` and `\` separate directories.
pub fn package_name_from_binary(file_name: &str) -> Result<String, PackageNameError> {
    let unusable = |reason| PackageNameError::Unusable { file_name: file_name.to_owned(), reason };
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let base = base.strip_suffix(".exe").unwrap_or(base);
    let name = match base.rfind("terraform-provider-") {
        Some(idx) => &base[idx + "terraform-provider-".len()..],
        None => base,
    };
    let name = strip_version_suffix(name);
    if name.is_empty() {
        return Err(unusable("the name is empty"));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(unusable("a package name must start with a letter"));
    }
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
        return Err(unusable("a package name may hold only letters, digits, `-` and `_`"));
    }
    Ok(name.to_owned())
}

/// Removes a trailing `_v<digit>...` (Terraform's `terraform-provider-<type>_v<version>`
/// binary naming), if there is one.
fn strip_version_suffix(name: &str) -> &str {
    match name.rfind("_v") {
        Some(idx) if name[idx + 2..].starts_with(|c: char| c.is_ascii_digit()) => &name[..idx],
        _ => name,
    }
}

#[cfg(test)]
mod tests;
