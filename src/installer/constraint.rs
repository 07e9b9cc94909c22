//! Terraform's version constraint syntax and semantics (`= != > >= < <= ~>`, comma-separated
//! conjunctions), which differ from Cargo's: missing version parts are zero (`= 1.2` means
//! exactly `1.2.0`), `~>` lets only the rightmost given part grow, and a prerelease version is
//! only ever selected when an exact (`=` or bare) clause names it.
//!
//! Architecture invariant: pure; knows nothing about where versions come from.

use std::cmp::Ordering;
use std::fmt;

use semver::{BuildMetadata, Prerelease, Version};

use super::error::{ConstraintProblem, Error};

/// A parsed version constraint: a conjunction of clauses. The empty constraint accepts every
/// released (non-prerelease) version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionConstraints {
    clauses: Vec<Clause>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Clause {
    operator: Operator,
    /// The boundary with missing parts filled with zero.
    boundary: Version,
    /// How many of major, minor and patch the user wrote; `~>` depends on it.
    n_parts: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operator {
    Equal,
    NotEqual,
    Greater,
    GreaterOrEqual,
    Less,
    LessOrEqual,
    Pessimistic,
}

impl VersionConstraints {
    /// Accepts any released version.
    pub fn any() -> VersionConstraints {
        VersionConstraints { clauses: Vec::new() }
    }

    /// Parses a constraint such as `">= 1.2.0, < 2.0.0"` or `"~> 3.9"`. An empty or blank string
    /// means "any version".
    pub fn parse(given: &str) -> Result<VersionConstraints, Error> {
        let mut clauses = Vec::new();
        if given.trim().is_empty() {
            return Ok(VersionConstraints { clauses });
        }
        for clause_text in given.split(',') {
            let clause = parse_clause(clause_text.trim()).map_err(|reason| Error::InvalidConstraint {
                given: given.to_owned(),
                clause: clause_text.trim().to_owned(),
                reason,
            })?;
            clauses.push(clause);
        }
        Ok(VersionConstraints { clauses })
    }

    /// Whether `version` satisfies every clause, applying Terraform's prerelease rule.
    pub fn allows(&self, version: &Version) -> bool {
        if !version.pre.is_empty() {
            let named_exactly = self
                .clauses
                .iter()
                .any(|clause| clause.operator == Operator::Equal && same_version(version, &clause.boundary));
            if !named_exactly {
                return false;
            }
        }
        self.clauses.iter().all(|clause| clause.allows(version))
    }

    /// The newest of `versions` that the constraint allows.
    pub fn newest_allowed<'a>(&self, versions: impl IntoIterator<Item = &'a Version>) -> Option<&'a Version> {
        versions.into_iter().filter(|version| self.allows(version)).max_by(|a, b| a.cmp_precedence(b))
    }
}

impl Clause {
    fn allows(&self, version: &Version) -> bool {
        let ordering = version.cmp_precedence(&self.boundary);
        match self.operator {
            Operator::Equal => same_version(version, &self.boundary),
            Operator::NotEqual => !same_version(version, &self.boundary),
            Operator::Greater => ordering == Ordering::Greater,
            Operator::GreaterOrEqual => ordering != Ordering::Less,
            Operator::Less => ordering == Ordering::Less,
            Operator::LessOrEqual => ordering != Ordering::Greater,
            Operator::Pessimistic => {
                let upper = if self.n_parts == 3 {
                    Version::new(self.boundary.major, self.boundary.minor + 1, 0)
                } else {
                    Version::new(self.boundary.major + 1, 0, 0)
                };
                ordering != Ordering::Less && version.cmp_precedence(&upper) == Ordering::Less
            }
        }
    }
}

/// Exact matches ignore build metadata unless the constraint itself names some.
fn same_version(version: &Version, boundary: &Version) -> bool {
    version.cmp_precedence(boundary) == Ordering::Equal
        && (boundary.build.is_empty() || version.build == boundary.build)
}

fn parse_clause(text: &str) -> Result<Clause, ConstraintProblem> {
    if text.is_empty() {
        return Err(ConstraintProblem::EmptyClause);
    }
    let operators = [
        ("!=", Operator::NotEqual),
        (">=", Operator::GreaterOrEqual),
        ("<=", Operator::LessOrEqual),
        ("~>", Operator::Pessimistic),
        ("=<", Operator::LessOrEqual),
        ("=>", Operator::GreaterOrEqual),
        ("=", Operator::Equal),
        (">", Operator::Greater),
        ("<", Operator::Less),
    ];
    let (operator_text, operator, rest) = operators
        .iter()
        .find_map(|(prefix, operator)| text.strip_prefix(prefix).map(|rest| (*prefix, *operator, rest)))
        .unwrap_or(("", Operator::Equal, text));
    if operator_text == "=<" || operator_text == "=>" {
        let suggestion = if operator_text == "=<" { "<=" } else { ">=" };
        return Err(ConstraintProblem::Operator { given: operator_text, suggestion });
    }
    let version_text = rest.trim_start();
    if version_text.starts_with('v') {
        return Err(ConstraintProblem::VPrefix);
    }
    let (boundary, n_parts) = parse_partial_version(version_text)?;
    Ok(Clause { operator, boundary, n_parts })
}

/// Parses `1`, `1.2`, `1.2.3`, each optionally followed by `-prerelease` and `+metadata`.
fn parse_partial_version(text: &str) -> Result<(Version, usize), ConstraintProblem> {
    let (without_build, build) = match text.split_once('+') {
        Some((head, build)) => (head, build),
        None => (text, ""),
    };
    let (numbers, pre) = match without_build.split_once('-') {
        Some((head, pre)) => (head, pre),
        None => (without_build, ""),
    };
    let parts: Vec<&str> = numbers.split('.').collect();
    if parts.len() > 3 {
        return Err(ConstraintProblem::TooManyParts);
    }
    let mut numbers_parsed = [0u64; 3];
    for (part_idx, part) in parts.iter().enumerate() {
        if *part == "*" || *part == "x" {
            return Err(ConstraintProblem::Wildcard);
        }
        numbers_parsed[part_idx] = part.parse::<u64>().map_err(|_| ConstraintProblem::NotANumber(text.to_owned()))?;
    }
    let mut version = Version::new(numbers_parsed[0], numbers_parsed[1], numbers_parsed[2]);
    version.pre = Prerelease::new(pre).map_err(|error| ConstraintProblem::Prerelease { pre: pre.to_owned(), error })?;
    version.build =
        BuildMetadata::new(build).map_err(|error| ConstraintProblem::Build { build: build.to_owned(), error })?;
    Ok((version, parts.len()))
}

impl fmt::Display for VersionConstraints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (clause_idx, clause) in self.clauses.iter().enumerate() {
            if clause_idx > 0 {
                f.write_str(", ")?;
            }
            let operator = match clause.operator {
                Operator::Equal => "=",
                Operator::NotEqual => "!=",
                Operator::Greater => ">",
                Operator::GreaterOrEqual => ">=",
                Operator::Less => "<",
                Operator::LessOrEqual => "<=",
                Operator::Pessimistic => "~>",
            };
            // `~>` keeps the user's precision because it changes the meaning.
            let boundary = &clause.boundary;
            let version = match (clause.operator, clause.n_parts) {
                (Operator::Pessimistic, 1) => boundary.major.to_string(),
                (Operator::Pessimistic, 2) => format!("{}.{}", boundary.major, boundary.minor),
                _ => boundary.to_string(),
            };
            write!(f, "{operator} {version}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    /// Renders which of a fixed list of versions the constraint allows.
    #[track_caller]
    fn check(constraint: &str, expect: Expect) {
        let versions = [
            "0.9.0",
            "1.0.0",
            "1.2.0-beta.1",
            "1.2.0",
            "1.2.3",
            "1.2.9",
            "1.3.0",
            "1.10.0",
            "2.0.0-rc.1",
            "2.0.0",
            "2.1.0",
        ];
        let rendered = crate::testutil::shown(VersionConstraints::parse(constraint), |parsed| {
            let allowed: Vec<&str> =
                versions.iter().copied().filter(|text| parsed.allows(&Version::parse(text).unwrap())).collect();
            format!("{parsed} => {}", allowed.join(" "))
        });
        expect.assert_eq(&rendered);
    }

    #[test]
    fn empty_allows_every_release_but_no_prerelease() {
        check("", expect![" => 0.9.0 1.0.0 1.2.0 1.2.3 1.2.9 1.3.0 1.10.0 2.0.0 2.1.0"]);
    }

    #[test]
    fn exact_versions_fill_missing_parts_with_zero() {
        check("1.2", expect!["= 1.2.0 => 1.2.0"]);
        check("= 1.2.3", expect!["= 1.2.3 => 1.2.3"]);
        check("=1.2.3", expect!["= 1.2.3 => 1.2.3"]);
    }

    #[test]
    fn comparisons() {
        check(">= 1.2", expect![">= 1.2.0 => 1.2.0 1.2.3 1.2.9 1.3.0 1.10.0 2.0.0 2.1.0"]);
        check("> 1.2.3", expect!["> 1.2.3 => 1.2.9 1.3.0 1.10.0 2.0.0 2.1.0"]);
        check("< 1.2.3", expect!["< 1.2.3 => 0.9.0 1.0.0 1.2.0"]);
        check("<= 1.2.3", expect!["<= 1.2.3 => 0.9.0 1.0.0 1.2.0 1.2.3"]);
        check("!= 1.2.3", expect!["!= 1.2.3 => 0.9.0 1.0.0 1.2.0 1.2.9 1.3.0 1.10.0 2.0.0 2.1.0"]);
        check(">= 1.2.0, < 2.0.0, != 1.3.0", expect![">= 1.2.0, < 2.0.0, != 1.3.0 => 1.2.0 1.2.3 1.2.9 1.10.0"]);
    }

    #[test]
    fn pessimistic_lets_only_the_rightmost_part_grow() {
        check("~> 1", expect!["~> 1 => 1.0.0 1.2.0 1.2.3 1.2.9 1.3.0 1.10.0"]);
        check("~> 1.2", expect!["~> 1.2 => 1.2.0 1.2.3 1.2.9 1.3.0 1.10.0"]);
        check("~> 1.2.3", expect!["~> 1.2.3 => 1.2.3 1.2.9"]);
    }

    #[test]
    fn prereleases_only_when_named_exactly() {
        check("1.2.0-beta.1", expect!["= 1.2.0-beta.1 => 1.2.0-beta.1"]);
        check(">= 1.2.0-beta.1", expect![">= 1.2.0-beta.1 => 1.2.0 1.2.3 1.2.9 1.3.0 1.10.0 2.0.0 2.1.0"]);
        check("~> 2.0.0-rc.1", expect!["~> 2.0.0-rc.1 => 2.0.0"]);
    }

    #[test]
    fn syntax_errors() {
        check(
            "=> 1.0",
            expect![[
                r#"error: invalid version constraint "=> 1.0": invalid operator "=>"; did you mean ">="? in "=> 1.0""#
            ]],
        );
        check(
            "v1.0.0",
            expect![[r#"error: invalid version constraint "v1.0.0": a "v" prefix must not be used in "v1.0.0""#]],
        );
        check(
            "1.2.3.4",
            expect![[
                r#"error: invalid version constraint "1.2.3.4": too many version parts; only major, minor and patch are allowed in "1.2.3.4""#
            ]],
        );
        check(">= 1.0,", expect![[r#"error: invalid version constraint ">= 1.0,": empty clause in """#]]);
        check(
            "1.*",
            expect![[
                r#"error: invalid version constraint "1.*": wildcards are not allowed; omit the parts that should be unconstrained in "1.*""#
            ]],
        );
        check(
            "latest",
            expect![[r#"error: invalid version constraint "latest": "latest" is not a version number in "latest""#]],
        );
    }
}
