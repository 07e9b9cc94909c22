//! The package's named object types: each declared under a token, a different object that
//! would take a taken name numbered (with a warning), and, once all are declared, the
//! unnumbered names given back to the objects the Go implementation's types describe
//! ([`TypeTable::settle_names_as_go`]). [`super::TypeBuilder`] declares into it while it walks
//! one position.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::super::Warning;
use super::{go_declaration_order, rename_refs};
use crate::pulumi::{NodejsObjectLanguage, ObjectLanguage, ObjectTypeSpec};

/// A named type as declared so far.
pub(super) struct DeclaredType {
    /// Which Terraform object it came from (`resource foo_bar: rule.action`); a second
    /// declaration from the same origin is the same type seen from another position.
    pub(super) origin: String,
    /// Every origin whose object this type describes (the first, and later ones with the
    /// same properties).
    pub(super) origins: Vec<String>,
    /// The token the name would have without a numeric suffix; `None` for provider
    /// functions' types, which the Go implementation names by other rules.
    pub(super) base_token: Option<String>,
    pub(super) spec: ObjectTypeSpec,
    pub(super) required_last: Vec<String>,
    pub(super) required_inputs: Option<BTreeSet<String>>,
    pub(super) required_outputs: Option<BTreeSet<String>>,
}

/// All named object types of a package.
#[derive(Default)]
pub(crate) struct TypeTable {
    pub(super) types: BTreeMap<String, DeclaredType>,
    /// The token each origin was declared under, for [`TypeBuilder::refresh_field`].
    pub(super) by_origin: HashMap<String, String>,
}

impl TypeTable {
    /// Declares a provider function's object type (fully built; no position rules apply)
    /// as `pkg:index/<name>:<name>`, numbering the name if a different type has it.
    pub(crate) fn declare_function_type(
        &mut self,
        package: &str,
        name: &str,
        spec: ObjectTypeSpec,
        warnings: &mut Vec<Warning>,
        origin: &str,
    ) -> String {
        let mut token = format!("{package}:index/{name}:{name}");
        let mut suffix = 2;
        while let Some(existing) = self.types.get(&token) {
            if existing.spec.properties == spec.properties && existing.required_last == spec.required {
                return token;
            }
            token = format!("{package}:index/{name}{suffix}:{name}{suffix}");
            suffix += 1;
        }
        if suffix > 2 {
            warnings.push(Warning::TypeNameCollision { path: origin.to_owned(), token: token.clone() });
        }
        let required: BTreeSet<String> = spec.required.iter().cloned().collect();
        self.types.insert(
            token.clone(),
            DeclaredType {
                origin: origin.to_owned(),
                origins: vec![origin.to_owned()],
                base_token: None,
                required_last: spec.required.clone(),
                spec: ObjectTypeSpec { required: Vec::new(), ..spec },
                required_inputs: Some(required.clone()),
                required_outputs: Some(required),
            },
        );
        token
    }

    /// Gives each contested name to the object the Go implementation's type of that name
    /// describes, and returns the renames (old token → new token) every `$ref` must follow.
    ///
    /// Go declares a name once per object that reaches it and keeps the *last* declaration's
    /// content for every user of the name ([`go_declaration_order`]). We number the names of
    /// the others instead of sharing a wrong type, but the unnumbered name must stay with the
    /// object Go's type really describes, so that typed code written against a Go-generated
    /// SDK keeps compiling. Declaration happens in our own order (first come, first named);
    /// this swaps names afterwards, and moves the collision warnings along.
    pub(crate) fn settle_names_as_go(&mut self, warnings: &mut [Warning]) -> BTreeMap<String, String> {
        let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (token, declared) in &self.types {
            if let Some(base) = &declared.base_token {
                groups.entry(base.as_str()).or_default().push(token.as_str());
            }
        }
        let mut renames = BTreeMap::new();
        for (base, tokens) in groups {
            // The unnumbered token must belong to the group (not to a function's type).
            if tokens.len() < 2 || !tokens.contains(&base) {
                continue;
            }
            let last_declared = |token: &&str| {
                self.types[*token].origins.iter().map(|origin| go_declaration_order(origin)).max().flatten()
            };
            // Only when Go's order is known for every object of the name.
            if tokens.iter().any(|token| last_declared(token).is_none()) {
                continue;
            }
            let Some(owner) = tokens.iter().copied().max_by_key(|token| last_declared(token)) else { continue };
            if owner != base {
                renames.insert(base.to_owned(), owner.to_owned());
                renames.insert(owner.to_owned(), base.to_owned());
            }
        }
        if renames.is_empty() {
            return renames;
        }
        let types = std::mem::take(&mut self.types);
        self.types = types
            .into_iter()
            .map(|(token, mut declared)| {
                for property in declared.spec.properties.values_mut() {
                    rename_refs(&mut property.ty, &renames);
                }
                (renames.get(&token).cloned().unwrap_or(token), declared)
            })
            .collect();
        for token in self.by_origin.values_mut() {
            if let Some(renamed) = renames.get(token) {
                *token = renamed.clone();
            }
        }
        for warning in warnings.iter_mut() {
            if let Warning::TypeNameCollision { path, token } = warning
                && renames.contains_key(token.as_str())
                && let Some(declared) = self.types.get(token.as_str())
            {
                path.clone_from(&declared.origin);
            }
        }
        renames
    }

    /// The final `types` section.
    pub(crate) fn into_specs(self) -> BTreeMap<String, ObjectTypeSpec> {
        self.types
            .into_iter()
            .map(|(token, declared)| {
                let mut spec = declared.spec;
                let required: BTreeSet<String> = declared.required_last.iter().cloned().collect();
                let mut nodejs = NodejsObjectLanguage::default();
                let differs = |set: &Option<BTreeSet<String>>| match set {
                    Some(set) => *set != required,
                    None => !required.is_empty(),
                };
                if differs(&declared.required_inputs) {
                    nodejs.required_inputs = Some(declared.required_inputs.unwrap_or_default().into_iter().collect());
                }
                if differs(&declared.required_outputs) {
                    nodejs.required_outputs = Some(declared.required_outputs.unwrap_or_default().into_iter().collect());
                }
                if nodejs.required_inputs.is_some() || nodejs.required_outputs.is_some() {
                    spec.language = Some(ObjectLanguage { nodejs });
                }
                spec.required = declared.required_last;
                (token, spec)
            })
            .collect()
    }
}
