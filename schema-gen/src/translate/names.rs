//! The naming decisions of a translation, as data the runtime reuses.
//!
//! [`ProviderNames`] holds every token (resources, data sources, provider functions) and the
//! resource prefix. [`PropertyNames`] maps the Terraform names of one object (a block, a
//! nested attribute object, or a cty object type) to Pulumi names, with the MaxItems=1
//! flattening flag; [`ProviderNames::resource_properties`] adds the top-level resource
//! fixups (`id`, `urn`, `pulumi`) and says where the resource ID comes from
//! ([`ResourceId`]). The schema translation builds its output from these same values, so the
//! runtime's value translation, calling the same functions, can never disagree with the
//! schema.
//!
//! How the runtime uses it: compute [`ProviderNames::new`] once per parameterized provider
//! (it is cheap next to the schema itself), take [`ProviderNames::resource_properties`] for a
//! resource's top level and [`PropertyNames::of_block`] / [`PropertyNames::of_nested_object`]
//! / [`PropertyNames::of_object_type`] for each nested object it descends into, and cache
//! them per object if values are converted often. A property with `max_items_one` holds a
//! Terraform list or set of at most one element that Pulumi sees as the element itself.
//!
//! Architecture invariant: names only; nothing here builds Pulumi schema JSON.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::Warning;
use crate::naming::{lower_first, pluralize, property_name, safe_token_name, token_camel_case, upper_first};
use crate::tf::{AttributeType, Block, BlockNesting, NestedObject, ObjectNesting, ObjectType, ProviderSchema, Type};

/// Which Terraform tokens to translate; the `--include`/`--exclude` filters of the
/// parameter value. Filtered-out tokens still count for prefix inference, as in Go.
#[derive(Clone, Debug)]
pub struct TokenFilter<'a> {
    pub include: &'a [String],
    pub exclude: &'a [String],
}

impl TokenFilter<'_> {
    pub fn keeps(&self, tf_name: &str) -> bool {
        let excluded = self.exclude.iter().any(|x| x == tf_name);
        let not_included = !self.include.is_empty() && !self.include.iter().any(|x| x == tf_name);
        !excluded && !not_included
    }
}

/// Every token of a package, keyed by Terraform name.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderNames {
    package_name: String,
    resource_prefix: String,
    resources: BTreeMap<String, String>,
    data_sources: BTreeMap<String, String>,
    functions: BTreeMap<String, String>,
    /// Ephemeral resources, as functions `open<Name>` (docs/schema-mapping.md, "Ephemeral
    /// resources").
    ephemeral_resources: BTreeMap<String, String>,
    /// Actions, as functions `pkg:index/invoke<Name>:invoke<Name>` (docs/schema-mapping.md).
    actions: BTreeMap<String, String>,
}

/// One property of an object: its two names, and whether it is a list or set block with
/// MaxItems=1 that Pulumi shows as a single object (the value translation must wrap and
/// unwrap it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyName {
    pub tf_name: String,
    pub pulumi_name: String,
    pub max_items_one: bool,
}

/// The property names of one object, sorted by Terraform name (the order the Go
/// implementation lists required properties in).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PropertyNames {
    entries: Vec<PropertyName>,
    /// Indices into `entries`, sorted by Pulumi name.
    by_pulumi: Vec<usize>,
    /// Properties whose natural Pulumi name was taken by another property and that got a
    /// numbered name instead: (Terraform name, natural name).
    collisions: Vec<(String, String)>,
}

/// Where a resource's Pulumi ID comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResourceId {
    /// The Terraform `id` attribute (computed-only string) is the Pulumi ID and is not a
    /// Pulumi property.
    IdAttribute,
    /// Terraform's `id` is an input (required, or optional and computed); it is exposed as
    /// this Pulumi property and the ID is read from it.
    Delegate { pulumi_name: String },
    /// No usable `id`: the Go implementation uses the constant ID `"missing ID"`.
    Missing,
}

/// A resource's property names after the resource fixups, and its ID source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceProperties {
    pub names: PropertyNames,
    pub id: ResourceId,
    /// Whether the string input `name` is auto-named (`<resource name>-<random>`, max 255
    /// characters, separator `-`), which also makes it optional.
    pub autonamed: bool,
    /// Warnings about renames the fixups could not make as the Go implementation would.
    pub warnings: Vec<Warning>,
}

impl PropertyNames {
    /// The properties of a block: its attributes and nested blocks.
    pub fn of_block(block: &Block) -> PropertyNames {
        let attributes = block.attributes.iter().map(|(name, attr)| (name.as_str(), attribute_is_array(attr), false));
        let blocks = block.block_types.iter().map(|(name, nested)| {
            let is_list = matches!(nested.nesting, BlockNesting::List | BlockNesting::Set);
            let max_items_one = is_list && nested.max_items == 1;
            (name.as_str(), is_list && !max_items_one, max_items_one)
        });
        PropertyNames::build(attributes.chain(blocks).collect())
    }

    /// The properties of a protocol-6 nested attribute object.
    pub fn of_nested_object(object: &NestedObject) -> PropertyNames {
        PropertyNames::build(
            object.attributes.iter().map(|(name, attr)| (name.as_str(), attribute_is_array(attr), false)).collect(),
        )
    }

    /// The properties of a cty object type. Lists and sets are pluralized (attributes never
    /// carry MaxItems).
    pub fn of_object_type(object: &ObjectType) -> PropertyNames {
        PropertyNames::build(
            object
                .attrs
                .iter()
                .map(|(name, ty)| (name.as_str(), matches!(ty, Type::List(_) | Type::Set(_)), false))
                .collect(),
        )
    }

    /// `(tf_name, pluralize, max_items_one)` in any order.
    fn build(mut fields: Vec<(&str, bool, bool)>) -> PropertyNames {
        fields.sort_by(|a, b| a.0.cmp(b.0));
        fields.dedup_by(|a, b| a.0 == b.0);
        let tf_names: BTreeSet<&str> = fields.iter().map(|f| f.0).collect();
        let entries = fields
            .iter()
            .map(|&(tf_name, plural, max_items_one)| {
                let mut base = tf_name.to_owned();
                if plural {
                    let candidate = pluralize(tf_name);
                    // Keep the singular when the plural is another property's name. An
                    // empty plural (the inflector turns `hive` into nothing) would make Go
                    // drop the property; we keep the singular instead.
                    if !candidate.is_empty() && !tf_names.contains(candidate.as_str()) {
                        base = candidate;
                    }
                }
                // Pulumi reserves `pulumi` as a property name everywhere. Go renames it to
                // `pulumiInfo` on resources only (elsewhere its schema fails to bind); we
                // rename it in every object.
                if tf_name == "pulumi" && !tf_names.contains("pulumi_info") {
                    base = "pulumi_info".to_owned();
                }
                PropertyName { tf_name: tf_name.to_owned(), pulumi_name: property_name(&base), max_items_one }
            })
            .collect();
        let mut names = PropertyNames { entries, by_pulumi: Vec::new(), collisions: Vec::new() };
        names.resolve_collisions();
        names
    }

    /// Gives every property a distinct Pulumi name: the first (in Terraform order) keeps
    /// its natural name, later ones get `2`, `3`, ... appended.
    fn resolve_collisions(&mut self) {
        // Almost every object has distinct names: check that cheaply with a sorted index
        // first, and only then take the slow path.
        let mut by_pulumi: Vec<usize> = (0..self.entries.len()).collect();
        by_pulumi.sort_by(|&a, &b| self.entries[a].pulumi_name.cmp(&self.entries[b].pulumi_name));
        if by_pulumi.windows(2).all(|w| self.entries[w[0]].pulumi_name != self.entries[w[1]].pulumi_name) {
            self.by_pulumi = by_pulumi;
            return;
        }
        let mut taken: HashMap<String, usize> = HashMap::new();
        for idx in 0..self.entries.len() {
            let natural = self.entries[idx].pulumi_name.clone();
            if taken.contains_key(&natural) {
                let mut n = 2;
                while taken.contains_key(&format!("{natural}{n}")) {
                    n += 1;
                }
                let renamed = format!("{natural}{n}");
                self.collisions.push((self.entries[idx].tf_name.clone(), natural));
                self.entries[idx].pulumi_name = renamed.clone();
                taken.insert(renamed, idx);
            } else {
                taken.insert(natural, idx);
            }
        }
        let mut by_pulumi: Vec<usize> = (0..self.entries.len()).collect();
        by_pulumi.sort_by(|&a, &b| self.entries[a].pulumi_name.cmp(&self.entries[b].pulumi_name));
        self.by_pulumi = by_pulumi;
    }

    /// Renames one property (a fixup), keeping the lookup index right.
    fn rename(&mut self, tf_name: &str, pulumi_name: String) {
        if let Ok(idx) = self.entries.binary_search_by(|e| e.tf_name.as_str().cmp(tf_name)) {
            self.entries[idx].pulumi_name = pulumi_name;
            self.resolve_collisions();
        }
    }

    /// All properties, in Terraform name order.
    pub fn iter(&self) -> impl Iterator<Item = &PropertyName> {
        self.entries.iter()
    }

    pub fn by_tf_name(&self, tf_name: &str) -> Option<&PropertyName> {
        self.entries.binary_search_by(|e| e.tf_name.as_str().cmp(tf_name)).ok().map(|idx| &self.entries[idx])
    }

    pub fn by_pulumi_name(&self, pulumi_name: &str) -> Option<&PropertyName> {
        self.by_pulumi
            .binary_search_by(|&idx| self.entries[idx].pulumi_name.as_str().cmp(pulumi_name))
            .ok()
            .map(|pos| &self.entries[self.by_pulumi[pos]])
    }

    /// Properties renamed because their natural Pulumi name was taken:
    /// (Terraform name, natural Pulumi name).
    pub fn collisions(&self) -> &[(String, String)] {
        &self.collisions
    }

    fn has_tf_name(&self, tf_name: &str) -> bool {
        self.by_tf_name(tf_name).is_some()
    }
}

impl ProviderNames {
    /// Computes every token of the package, as the Go implementation's token strategy does
    /// (prefix inference, module `index`, `get` for data sources, digit words, the
    /// `Provider` rename, `V2` deduplication), except that it never fails: problems become
    /// warnings and a usable token.
    pub fn new(schema: &ProviderSchema, package_name: &str, filter: &TokenFilter) -> (ProviderNames, Vec<Warning>) {
        let mut warnings = Vec::new();
        let inferred = infer_resource_prefix(schema.resources.keys().map(String::as_str));
        let resource_prefix = if inferred.is_empty() { package_name.to_owned() } else { inferred };
        let mut names = ProviderNames {
            package_name: package_name.to_owned(),
            resource_prefix,
            resources: BTreeMap::new(),
            data_sources: BTreeMap::new(),
            functions: BTreeMap::new(),
            ephemeral_resources: BTreeMap::new(),
            actions: BTreeMap::new(),
        };

        let mut resource_dedup = Deduplicator::default();
        for tf_name in schema.resources.keys().filter(|k| filter.keeps(k)) {
            let name = names.member_name(tf_name, "", &mut warnings);
            let name = resource_dedup.unique(&name);
            names.resources.insert(tf_name.clone(), names.token(&name));
        }
        names.rename_provider_resource(schema, &mut warnings);

        let mut data_source_dedup = Deduplicator::default();
        for tf_name in schema.data_sources.keys().filter(|k| filter.keeps(k)) {
            let name = names.member_name(tf_name, "get", &mut warnings);
            let name = data_source_dedup.unique(&name);
            names.data_sources.insert(tf_name.clone(), names.token(&name));
        }

        // Provider functions share the function namespace with data sources. Go fails on a
        // collision; we give the function a `V2` name.
        let mut function_dedup = data_source_dedup;
        for tf_name in schema.functions.keys().filter(|k| filter.keeps(k)) {
            let natural = sanitize_token_name(&safe_token_name(&token_camel_case(tf_name)), tf_name, &mut warnings);
            let name = function_dedup.unique(&natural);
            if name != natural {
                warnings.push(Warning::TokenCollision { tf_name: tf_name.clone(), token: names.token(&name) });
            }
            names.functions.insert(tf_name.clone(), names.token(&name));
        }

        // Ephemeral resources are functions too (the shape of bridge PR #3229), named
        // `open<Name>`: the PR's own pattern (`index/ephemeral:<Name>`) gives Go SDKs a
        // function and an args type that clash with the resource of the same name, which
        // every provider we know has (random_password, tls_private_key). `open` is
        // Terraform's verb for them and never meets a data source's `get`.
        for tf_name in schema.ephemeral_resources.keys().filter(|k| filter.keeps(k)) {
            let natural = names.member_name(tf_name, "open", &mut warnings);
            let name = function_dedup.unique(&natural);
            if name != natural {
                warnings.push(Warning::TokenCollision { tf_name: tf_name.clone(), token: names.token(&name) });
            }
            names.ephemeral_resources.insert(tf_name.clone(), names.token(&name));
        }

        // Actions are functions too, named with Terraform's verb for them so that they never
        // meet a resource's module (Python puts both in one directory) or a data source's
        // `get` name.
        for tf_name in schema.actions.keys().filter(|k| filter.keeps(k)) {
            let natural = names.member_name(tf_name, "invoke", &mut warnings);
            let name = function_dedup.unique(&natural);
            if name != natural {
                warnings.push(Warning::TokenCollision { tf_name: tf_name.clone(), token: names.token(&name) });
            }
            names.actions.insert(tf_name.clone(), names.token(&name));
        }

        (names, warnings)
    }

    pub fn package_name(&self) -> &str {
        &self.package_name
    }

    /// The prefix stripped from resource and data source names: the first `_`-separated
    /// part shared by every resource name, or the package name when they disagree.
    pub fn resource_prefix(&self) -> &str {
        &self.resource_prefix
    }

    pub fn resource_token(&self, tf_name: &str) -> Option<&str> {
        self.resources.get(tf_name).map(String::as_str)
    }

    pub fn data_source_token(&self, tf_name: &str) -> Option<&str> {
        self.data_sources.get(tf_name).map(String::as_str)
    }

    pub fn function_token(&self, tf_name: &str) -> Option<&str> {
        self.functions.get(tf_name).map(String::as_str)
    }

    /// `(tf_name, token)` of every translated resource, sorted by Terraform name.
    pub fn resources(&self) -> impl Iterator<Item = (&str, &str)> {
        self.resources.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn data_sources(&self) -> impl Iterator<Item = (&str, &str)> {
        self.data_sources.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn functions(&self) -> impl Iterator<Item = (&str, &str)> {
        self.functions.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// `(tf_name, token)` of every translated ephemeral resource (a function `open<Name>`).
    pub fn ephemeral_resources(&self) -> impl Iterator<Item = (&str, &str)> {
        self.ephemeral_resources.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    pub fn action_token(&self, tf_name: &str) -> Option<&str> {
        self.actions.get(tf_name).map(String::as_str)
    }

    pub fn actions(&self) -> impl Iterator<Item = (&str, &str)> {
        self.actions.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// `pkg:index/<lowerName>:<Name>`.
    fn token(&self, name: &str) -> String {
        format!("{}:index/{}:{name}", self.package_name, lower_first(name))
    }

    /// The Pulumi name of a resource (`get_prefix` = "") or data source ("get").
    fn member_name(&self, tf_name: &str, get_prefix: &str, warnings: &mut Vec<Warning>) -> String {
        let stripped = match tf_name.strip_prefix(self.resource_prefix.as_str()) {
            Some("") => Some(tf_name),
            Some(rest) => Some(rest.strip_prefix("index").unwrap_or(rest)),
            None => None,
        };
        let base = match stripped {
            Some(rest) => upper_first(&token_camel_case(rest)),
            None => {
                warnings
                    .push(Warning::MissingPrefix { tf_name: tf_name.to_owned(), prefix: self.resource_prefix.clone() });
                upper_first(&token_camel_case(tf_name))
            }
        };
        let base = if base.is_empty() {
            let fallback = upper_first(&token_camel_case(tf_name));
            let fallback = if fallback.is_empty() { "Unnamed".to_owned() } else { fallback };
            warnings.push(Warning::EmptyName { tf_name: tf_name.to_owned(), used: fallback.clone() });
            fallback
        } else {
            base
        };
        let name = safe_token_name(&format!("{get_prefix}{base}"));
        sanitize_token_name(&name, tf_name, warnings)
    }

    /// A resource whose token would be `pkg:index/provider:Provider` clashes with the
    /// package's provider type; Go renames it to the first free of
    /// `<prefix>_<pkg>_provider`, `<prefix>_provider_resource`,
    /// `<prefix>_<pkg>_provider_resource`.
    fn rename_provider_resource(&mut self, schema: &ProviderSchema, warnings: &mut Vec<Warning>) {
        let tf_name = format!("{}_provider", self.resource_prefix);
        let standard = self.token("Provider");
        if self.resources.get(&tf_name) != Some(&standard) {
            return;
        }
        let prefix = self.resource_prefix.clone();
        let package = self.package_name.clone();
        let candidates = [
            format!("{prefix}_{package}_provider"),
            format!("{prefix}_provider_resource"),
            format!("{prefix}_{package}_provider_resource"),
        ];
        let mut scratch = Vec::new();
        let token = match candidates.iter().find(|c| !schema.resources.contains_key(c.as_str())) {
            Some(candidate) => self.token(&self.member_name(candidate, "", &mut scratch)),
            None => {
                warnings.push(Warning::TokenCollision { tf_name: tf_name.clone(), token: self.token("ProviderV2") });
                self.token("ProviderV2")
            }
        };
        self.resources.insert(tf_name, token);
    }

    /// The property names of a resource, with the Go implementation's fixups of the
    /// reserved names `id`, `urn` and `pulumi`, and its ID source.
    pub fn resource_properties(&self, tf_name: &str, block: &Block) -> ResourceProperties {
        let mut names = PropertyNames::of_block(block);
        let mut warnings = Vec::new();
        let provider_name = self.package_name.as_str();
        let short_name = {
            let rest = tf_name.strip_prefix(self.resource_prefix.as_str()).unwrap_or(tf_name);
            let rest = if rest.is_empty() { tf_name } else { rest };
            rest.trim_start_matches('_').to_owned()
        };

        let id = match block.attributes.get("id") {
            None => ResourceId::Missing,
            Some(attr) => {
                let computed_only = attr.computed && !attr.optional && !attr.required;
                let is_string = matches!(attr.ty, AttributeType::Type(Type::String));
                if computed_only && is_string {
                    ResourceId::IdAttribute
                } else {
                    let provider_snake = provider_name.replace('-', "_");
                    let candidates = [
                        format!("{short_name}_id"),
                        format!("{provider_snake}_{short_name}_id"),
                        "resource_id".to_owned(),
                        format!("{provider_snake}_id"),
                    ];
                    let new_name = match candidates.iter().find(|c| !names.has_tf_name(c)) {
                        Some(candidate) => safe_property_name(candidate, tf_name, &mut warnings),
                        None => {
                            let fallback = format!("{}Id2", property_name(&short_name));
                            warnings.push(Warning::ReservedNameRenamed {
                                path: format!("resource {tf_name}"),
                                tf_name: "id".to_owned(),
                                pulumi_name: fallback.clone(),
                            });
                            fallback
                        }
                    };
                    names.rename("id", new_name.clone());
                    let pulumi_name = names.by_tf_name("id").map(|n| n.pulumi_name.clone()).unwrap_or(new_name);
                    if attr.required || (attr.optional && attr.computed) {
                        ResourceId::Delegate { pulumi_name }
                    } else {
                        ResourceId::Missing
                    }
                }
            }
        };

        for (reserved, replacement) in [("urn", format!("{provider_name}_urn")), ("pulumi", "pulumi_info".to_owned())] {
            if !names.has_tf_name(reserved) {
                continue;
            }
            if names.has_tf_name(&replacement) {
                // Go fails the whole package here; we take a numbered name.
                let fallback = format!("{}2", property_name(&replacement));
                warnings.push(Warning::ReservedNameRenamed {
                    path: format!("resource {tf_name}"),
                    tf_name: reserved.to_owned(),
                    pulumi_name: fallback.clone(),
                });
                names.rename(reserved, fallback);
            } else {
                names.rename(reserved, property_name(&replacement));
            }
        }

        let autonamed = block.attributes.get("name").is_some_and(|attr| {
            (attr.optional || attr.required) && matches!(attr.ty, AttributeType::Type(Type::String))
        });
        ResourceProperties { names, id, autonamed, warnings }
    }
}

/// Whether an attribute is a list or set (and so gets a plural name).
fn attribute_is_array(attr: &crate::tf::Attribute) -> bool {
    match &attr.ty {
        AttributeType::Type(ty) => matches!(ty, Type::List(_) | Type::Set(_)),
        AttributeType::Nested(nested) => matches!(nested.nesting, ObjectNesting::List | ObjectNesting::Set),
    }
}

/// The common first `_`-separated part of all resource names, or "" if they disagree.
/// Names without `_` are ignored.
pub fn infer_resource_prefix<'a>(resource_names: impl Iterator<Item = &'a str>) -> String {
    let mut candidate: Option<&str> = None;
    for name in resource_names {
        let mut parts = name.split('_');
        let first = parts.next().unwrap_or_default();
        if parts.next().is_none() {
            continue;
        }
        match candidate {
            None => candidate = Some(first),
            Some(c) if c == first => {}
            Some(_) => return String::new(),
        }
    }
    candidate.unwrap_or_default().to_owned()
}

/// The camel-case name of a fixup candidate. A candidate built from a digit-leading
/// resource name (`1f_dns_record_id`) would start with a digit, which no SDK language
/// accepts; Go emits it anyway, we spell the digit out (`oneFDnsRecordId`) and warn.
fn safe_property_name(candidate: &str, tf_resource: &str, warnings: &mut Vec<Warning>) -> String {
    let name = property_name(candidate);
    if !name.starts_with(|c: char| c.is_ascii_digit()) {
        return name;
    }
    let safe = lower_first(&safe_token_name(&name));
    warnings.push(Warning::ReservedNameRenamed {
        path: format!("resource {tf_resource}"),
        tf_name: "id".to_owned(),
        pulumi_name: safe.clone(),
    });
    safe
}

/// Keeps only the characters a token name may hold (`A-Z a-z 0-9`), warning when that
/// changes anything.
fn sanitize_token_name(name: &str, tf_name: &str, warnings: &mut Vec<Warning>) -> String {
    if name.chars().all(|c| c.is_ascii_alphanumeric()) && !name.is_empty() {
        return name.to_owned();
    }
    let cleaned: String = name.chars().filter(char::is_ascii_alphanumeric).collect();
    let cleaned = safe_token_name(&cleaned);
    let cleaned = if cleaned.is_empty() { "Unnamed".to_owned() } else { cleaned };
    warnings.push(Warning::InvalidName { tf_name: tf_name.to_owned(), used: cleaned.clone() });
    cleaned
}

/// Case-insensitive deduplication of token names: the first keeps its name, later ones
/// get `V2`, `V3`, ...
#[derive(Default)]
struct Deduplicator {
    next_variant: HashMap<String, u32>,
}

impl Deduplicator {
    fn unique(&mut self, name: &str) -> String {
        let key = name.to_lowercase();
        let Some(&start) = self.next_variant.get(&key) else {
            self.next_variant.insert(key, 2);
            return name.to_owned();
        };
        let mut variant = start;
        loop {
            let candidate = format!("{name}V{variant}");
            let candidate_key = candidate.to_lowercase();
            if !self.next_variant.contains_key(&candidate_key) {
                self.next_variant.insert(key, variant + 1);
                self.next_variant.insert(candidate_key, 2);
                return candidate;
            }
            variant += 1;
        }
    }
}

#[cfg(test)]
mod tests;
