//! The resource operations: Check, Diff, Create, Update, Delete and Read, each run the way
//! Terraform core runs the same step.
//!
//! - Check validates the configuration (`ValidateResourceConfig`) and auto-names `name`.
//! - Diff loads the state (`UpgradeResourceState`), plans (`PlanResourceChange` from the
//!   proposed new state) and reports what changes, in Pulumi property paths.
//! - Create and Update plan again, as Terraform does at apply time, then apply. A preview
//!   stops after the plan and returns the planned values, unknowns included.
//! - Delete plans a destroy when the provider asks for it, then applies a null plan.
//! - Read refreshes (`ReadResource`) or imports (`ImportResourceState` + `ReadResource`).
//!
//! Nothing created remotely is ever dropped: an apply that fails with a state returns a
//! [`PartialFailure`], which the engine stores.
//!
//! One file per step: `check`, `change` (Diff, Create, Update, Delete) and `read`; here the
//! requests, results and what they share.
//!
//! Architecture invariant: no gRPC types; requests come in as Pulumi property maps.

mod change;
mod check;
mod read;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::calls::Resource;
use super::checks::{CheckFailure, EarlierPlan};
use super::detailed_diff::PropertyDiff;
use super::error::LifecycleError;
use super::inputs::strip_computed_only;
use super::state::{self, Meta};
use crate::convert::values::{self as convert, UnknownKeys};
use crate::cty::{self, Value};
use crate::property::PropertyMap;

/// How the engine wants `name` auto-named (the program's or stack's autonaming config).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Autonaming {
    /// The provider's default: `<resource name>-<7 random hex digits>`.
    #[default]
    Default,
    /// Use this name (the engine computed it from the configured pattern).
    Propose(String),
    /// Use exactly this name.
    Enforce(String),
    /// Never auto-name.
    Disable,
}

/// Check's and CheckConfig's result: the inputs to use, or what is wrong with them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checked {
    pub inputs: PropertyMap,
    pub failures: Vec<CheckFailure>,
    pub warnings: Vec<String>,
}

/// Diff's result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diffed {
    /// Whether anything changes at all (an update or a replacement follows).
    pub changes: bool,
    /// Top-level properties that force replacement.
    pub replaces: Vec<String>,
    /// Top-level properties that change.
    pub diffs: Vec<String>,
    /// What changes, property path by property path, for the engine's detailed diff.
    pub detailed: Vec<PropertyDiff>,
    /// A replacement deletes the old object before it creates the new one
    /// (`lifecycle::resource::delete_before_replace`).
    pub delete_before_replace: bool,
    pub warnings: Vec<String>,
}

/// Where a resource's `name` came from, as Diff sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameSource {
    /// The type is not auto-named, or the inputs have no name.
    None,
    /// This process's Check made it up (auto-naming), or kept one it made before.
    Generated,
    /// The program gave it; `kept` when it is the name the object has now.
    Given { kept: bool },
    /// A type with no auto-named name whose object's id is made only of values the program
    /// gives now ([`id_made_of`]): an identity the program gave, such as a zone path
    /// `/zones/example.org.` from `path` and `body.name`.
    IdGiven,
}

/// Whether a replacement deletes the old object before creating the new one, the order
/// Terraform's `-/+` always uses and Pulumi's engine uses when the provider asks for it.
///
/// Pulumi creates the replacement first, which is right only when the new object cannot be
/// the old one: a name auto-naming made up is made up afresh for the replacement (the engine
/// checks the inputs again without the old ones), and a new name the program gives is another
/// object, but the name the object has now, given again, is the same name. Created first under
/// it, the new object is the old one (a DNS record set) or a conflict (an HTTP API's 409), and
/// deleting the old one then deletes what was just made (issue 28). Where create-first is
/// safe it stays, since a failed create then keeps the old object. Types with no auto-named
/// `name` keep Pulumi's order when their identity is the provider's to give (an id the API
/// assigns), and delete first when their id is made of what the program gives again. The
/// program's `deleteBeforeReplace` option still forces the order; nothing here can force the
/// other.
pub fn delete_before_replace(name: NameSource) -> bool {
    matches!(name, NameSource::Given { kept: true } | NameSource::IdGiven)
}

/// Whether every word of `id` (its runs of letters and digits) is a word of some string or
/// number the inputs hold: then the id is made of what the program gives, and a replacement
/// made from the same inputs gets the same id. An id the service assigns (a UUID, a serial)
/// has words no input holds. A false match costs only Terraform's own order, delete first.
pub fn id_made_of(id: &str, inputs: &PropertyMap) -> bool {
    use crate::property::PropertyValue;
    fn collect(value: &PropertyValue, words: &mut std::collections::HashSet<String>) {
        match value {
            PropertyValue::String(text) => words.extend(id_words(text).map(str::to_owned)),
            PropertyValue::Number(number) => {
                words.insert(number.to_string());
            }
            PropertyValue::Array(items) => items.iter().for_each(|item| collect(item, words)),
            PropertyValue::Object(map) => map.values().for_each(|item| collect(item, words)),
            PropertyValue::Secret(inner) => collect(inner, words),
            PropertyValue::Output(output) => output.value.iter().for_each(|inner| collect(inner, words)),
            _ => {}
        }
    }
    let mut words = std::collections::HashSet::new();
    inputs.values().for_each(|value| collect(value, &mut words));
    let mut id_words = id_words(id).peekable();
    id_words.peek().is_some() && id_words.all(|word| words.contains(word))
}

fn id_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty())
}

/// The resources whose name this process's Check generated, by URN: Diff, which gets the
/// checked inputs, cannot tell a generated name from a given one by the value.
#[derive(Default)]
pub struct GeneratedNames(Mutex<std::collections::HashSet<String>>);

impl GeneratedNames {
    fn note(&self, urn: &str, generated: bool) {
        let mut urns = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if generated {
            urns.insert(urn.to_owned());
        } else {
            urns.remove(urn);
        }
    }

    fn contains(&self, urn: &str) -> bool {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).contains(urn)
    }
}

/// The outcome of Create, Update or Read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Written {
    /// Empty in a preview of a create, and after a read that found the object gone.
    pub id: String,
    pub outputs: PropertyMap,
    /// Read only: the inputs to store (derived from the state on import and refresh).
    pub inputs: Option<PropertyMap>,
    pub warnings: Vec<String>,
}

/// The resource a request is about.
#[derive(Clone, Debug, Default)]
pub struct Target {
    /// The resource type's Pulumi token.
    pub token: String,
    pub urn: String,
}

/// How long a change may take, and what stops it early (the engine's Cancel).
#[derive(Clone, Debug, Default)]
pub struct Deadline {
    /// The engine's timeout in seconds; 0 means none.
    pub timeout_seconds: f64,
    pub cancel: CancellationToken,
}

impl Deadline {
    /// The time limit, if there is one.
    fn limit(&self) -> Option<Duration> {
        let seconds = self.timeout_seconds;
        (seconds > 0.0 && seconds.is_finite()).then(|| Duration::from_secs_f64(seconds))
    }
}

/// Check of one resource.
#[derive(Clone, Debug, Default)]
pub struct CheckRequest {
    pub target: Target,
    /// The resource's name, for auto-naming.
    pub name: String,
    pub olds: PropertyMap,
    pub news: PropertyMap,
    /// The stored outputs an engine of 3.261 or later sends on an update's Check (`None`
    /// from older engines, and on a create or replace).
    pub old_outputs: Option<PropertyMap>,
    pub random_seed: Vec<u8>,
    pub autonaming: Autonaming,
}

/// Diff of one resource.
#[derive(Clone, Debug, Default)]
pub struct DiffRequest {
    pub target: Target,
    pub id: String,
    pub olds: PropertyMap,
    pub news: PropertyMap,
}

/// Create of one resource.
#[derive(Clone, Debug, Default)]
pub struct CreateRequest {
    pub target: Target,
    pub news: PropertyMap,
    pub preview: bool,
    pub deadline: Deadline,
}

/// Update of one resource.
#[derive(Clone, Debug, Default)]
pub struct UpdateRequest {
    pub target: Target,
    pub id: String,
    pub olds: PropertyMap,
    pub news: PropertyMap,
    pub preview: bool,
    pub deadline: Deadline,
}

/// Delete of one resource.
#[derive(Clone, Debug, Default)]
pub struct DeleteRequest {
    pub target: Target,
    pub id: String,
    pub olds: PropertyMap,
    pub deadline: Deadline,
}

/// Read of one resource: a refresh when `outputs` are given, else an import of `id`.
#[derive(Clone, Debug, Default)]
pub struct ReadRequest {
    pub target: Target,
    pub id: String,
    pub outputs: Option<PropertyMap>,
    pub inputs: Option<PropertyMap>,
}

/// What Create and Update share.
struct Write<'a> {
    id: &'a str,
    /// The upgraded prior state and its meta; `None` for a create.
    prior: Option<(Value, Meta)>,
    /// Whether `prior` was just read from the provider (`ReadResource`).
    read: bool,
    /// The prior outputs' secret paths, for the gRPC debug log (empty for a create).
    stored_secrets: Vec<cty::Path>,
    news: &'a PropertyMap,
    preview: bool,
    deadline: &'a Deadline,
}

/// Plans made by Diff, kept for the final-plan check of the Update that follows, with the
/// prior state and configuration each was planned from.
///
/// Only plans an Update will consume are kept (`update_follows`), and Update takes its
/// plan out, preview or not: a deployment of thousands of unchanged resources keeps
/// nothing, where it once kept three values per resource until the process exited.
#[derive(Default)]
pub struct PlanCache(Mutex<HashMap<String, EarlierPlan>>);

/// Whether the engine follows this Diff with an Update of the same resource: only when
/// something changes in place. No change means no further call; a replacement means
/// Create (and Delete), which plan from scratch.
pub(crate) fn update_follows(diffed: &Diffed) -> bool {
    diffed.changes && diffed.replaces.is_empty()
}

impl PlanCache {
    /// Keeps `plan` for `urn` if the Diff that made it leads to an Update; otherwise drops
    /// any older plan for it, which no Update will ask for now.
    fn keep(&self, urn: &str, plan: EarlierPlan, diffed: &Diffed) {
        let mut plans = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if update_follows(diffed) {
            plans.insert(urn.to_owned(), plan);
        } else {
            plans.remove(urn);
        }
    }

    /// How many plans are held.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn take(&self, urn: &str) -> Option<EarlierPlan> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).remove(urn)
    }
}

impl Resource<'_> {
    fn name_property(&self) -> Option<String> {
        self.props.autonamed.then(|| self.props.names.by_tf_name("name").map(|n| n.pulumi_name.clone()))?
    }

    /// Where the `name` in checked inputs came from, and whether it is the one in `olds`,
    /// the stored outputs; for a type with no auto-named name, whether the object's `id` is
    /// made of the inputs.
    fn name_source(
        &self,
        id: &str,
        inputs: &PropertyMap,
        olds: &PropertyMap,
        generated: &GeneratedNames,
    ) -> NameSource {
        use crate::property::PropertyValue;
        let Some(key) = self.name_property() else {
            return if id_made_of(id, inputs) { NameSource::IdGiven } else { NameSource::None };
        };
        let name = |props: &PropertyMap| props.get(&key).map(state::unwrap_secret).cloned();
        match name(inputs) {
            None | Some(PropertyValue::Null) => NameSource::None,
            Some(_) if generated.contains(&self.urn) => NameSource::Generated,
            given => NameSource::Given { kept: given == name(olds) },
        }
    }

    /// The Terraform configuration of Pulumi inputs, with the secret paths.
    fn config(&self, inputs: &PropertyMap) -> Result<(Value, Vec<cty::Path>), LifecycleError> {
        let (value, secrets) =
            convert::to_cty(&self.schema.block, &self.props.names, inputs, UnknownKeys::Reject).map_err(|error| {
                LifecycleError::InvalidProperty { subject: self.subject().clone(), error: Box::new(error) }
            })?;
        Ok((strip_computed_only(&self.schema.block, &value), secrets))
    }

    fn outputs(&self, state: &Value, secrets: &[cty::Path], meta: &Meta) -> Result<PropertyMap, LifecycleError> {
        state::outputs(self.schema, &self.props, state, secrets, meta).map_err(|err| LifecycleError::ProviderBug {
            subject: self.subject().clone(),
            summary: "Provider produced invalid object",
            problems: vec![format!("the state cannot be shown as Pulumi outputs: {err}")],
        })
    }

    /// The `__meta` to store with a new state: the current schema versions, and the keys
    /// other writers left.
    fn meta(
        &self,
        previous: Option<&Meta>,
        private: Vec<u8>,
        identity: Option<&Value>,
    ) -> Result<Meta, LifecycleError> {
        Ok(Meta {
            schema_version: self.schema.version,
            private,
            identity: identity.map(|identity| self.identity_text(identity)).transpose()?,
            identity_schema_version: self.identity_schema.map_or(0, |schema| schema.version),
            apply_failed: false,
            other: previous.map(|m| m.other.clone()).unwrap_or_default(),
        })
    }
}

#[cfg(test)]
mod replacement_order_tests {
    use super::*;

    #[test]
    fn only_a_name_the_program_gave_deletes_first() {
        // (case, where the name came from, delete before replace)
        let table = [
            ("no auto-named name, an id the provider assigned", NameSource::None, false),
            ("no auto-named name, an id made of the program's values", NameSource::IdGiven, true),
            ("a generated name: the replacement gets a new one", NameSource::Generated, false),
            ("the object's name, given again: the replacement would be it", NameSource::Given { kept: true }, true),
            (
                "a new name given: another object; a failed create keeps the old",
                NameSource::Given { kept: false },
                false,
            ),
        ];
        for (case, name, expected) in table {
            assert_eq!(delete_before_replace(name), expected, "{case}");
        }
    }

    #[test]
    fn ids_made_of_the_inputs() {
        use crate::property::PropertyValue as V;
        let inputs =
            |pairs: &[(&str, V)]| -> PropertyMap { pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect() };
        let s = |text: &str| V::String(text.to_owned());
        let zone = inputs(&[
            ("path", s("/zones")),
            ("body", V::Object(inputs(&[("name", s("example.org.")), ("kind", s("Native"))]))),
        ]);
        let record = inputs(&[("zone", s("example.com.")), ("name", V::Secret(Box::new(s("txt"))))]);
        let numbered = inputs(&[("project", s("p1")), ("number", V::Number(42.0))]);
        // (case, id, inputs, made of them)
        let table = [
            ("a path from `path` and `body.name`", "/zones/example.org.", &zone, true),
            (
                "a new name: `org` is no longer given",
                "/zones/example.org.",
                &inputs(&[("path", s("/zones")), ("body", V::Object(inputs(&[("name", s("example.net."))])))]),
                false,
            ),
            ("a record's name in its zone, a secret name too", "txt.example.com.", &record, true),
            ("a UUID the API assigned", "4341cb18-739d-4e0c-a764-18049a46f7e1", &zone, false),
            ("a serial the API assigned", "projects/p1/items/7", &numbered, false),
            ("a number the program gave", "p1/42", &numbered, true),
            ("no words at all", "/", &zone, false),
            ("an empty id", "", &zone, false),
        ];
        for (case, id, inputs, expected) in table {
            assert_eq!(id_made_of(id, inputs), expected, "{case}");
        }
    }

    #[test]
    fn generated_names_follow_the_last_check() {
        let names = GeneratedNames::default();
        assert!(!names.contains("urn:a"));
        names.note("urn:a", true);
        assert!(names.contains("urn:a"));
        names.note("urn:a", false);
        assert!(!names.contains("urn:a"), "a later Check with a given name forgets the generated one");
    }
}

#[cfg(test)]
mod plan_cache_tests {
    use super::*;
    use crate::cty::Type;

    fn diffed(changes: bool, replaces: &[&str]) -> Diffed {
        Diffed { changes, replaces: replaces.iter().map(|s| (*s).to_owned()).collect(), ..Diffed::default() }
    }

    fn plan() -> EarlierPlan {
        EarlierPlan {
            prior: Value::null(Type::String),
            config: Value::null(Type::String),
            planned: Value::null(Type::String),
            private: Vec::new(),
        }
    }

    #[test]
    fn only_an_in_place_change_is_followed_by_an_update() {
        let table = [
            ("no change", diffed(false, &[]), false),
            ("an in-place change", diffed(true, &[]), true),
            ("a replacement", diffed(true, &["length"]), false),
        ];
        for (name, diffed, expected) in table {
            assert_eq!(update_follows(&diffed), expected, "{name}");
        }
    }

    /// The memory bug: every Diff used to leave its plan behind, unchanged resources
    /// included, until the process exited.
    #[test]
    fn the_cache_holds_only_plans_an_update_will_take() {
        let cache = PlanCache::default();
        for n in 0..100 {
            cache.keep(&format!("urn:unchanged:{n}"), plan(), &diffed(false, &[]));
            cache.keep(&format!("urn:replaced:{n}"), plan(), &diffed(true, &["length"]));
        }
        assert!(cache.is_empty(), "unchanged and replaced resources keep no plan");

        cache.keep("urn:updated", plan(), &diffed(true, &[]));
        assert_eq!(cache.len(), 1);
        // A later Diff of the same resource that finds nothing to do drops the old plan.
        cache.keep("urn:updated", plan(), &diffed(false, &[]));
        assert!(cache.is_empty());

        cache.keep("urn:updated", plan(), &diffed(true, &[]));
        assert!(cache.take("urn:updated").is_some());
        assert!(cache.take("urn:updated").is_none(), "Update takes the plan out");
        assert!(cache.is_empty());
    }
}
