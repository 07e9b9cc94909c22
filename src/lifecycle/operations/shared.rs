//! What the resource operations share: the results ([`Checked`], [`Diffed`], [`Written`]),
//! the resource a request is about ([`Target`]) and its time limit ([`Deadline`]), what the
//! process remembers between them ([`GeneratedNames`], [`PlanCache`]), and the handle's
//! conversions (Pulumi inputs to a Terraform configuration, a state to Pulumi outputs, the
//! `__meta` stored beside it).
//!
//! Architecture invariant: no gRPC types; requests come in as Pulumi property maps.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::convert::values::{self as convert, UnknownKeys};
use crate::cty::{self, Value};
use crate::lifecycle::calls::Resource;
use crate::lifecycle::support::checks::{CheckFailure, EarlierPlan};
use crate::lifecycle::support::detailed_diff::PropertyDiff;
use crate::lifecycle::support::error::LifecycleError;
use crate::lifecycle::support::inputs::strip_computed_only;
use crate::lifecycle::support::state::{self, Meta};
use crate::property::PropertyMap;

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
    /// (`operations/diff.rs`, `delete_before_replace`).
    pub delete_before_replace: bool,
    pub warnings: Vec<String>,
}

/// The resources whose name this process's Check generated, by URN: Diff, which gets the
/// checked inputs, cannot tell a generated name from a given one by the value.
#[derive(Default)]
pub struct GeneratedNames(Mutex<std::collections::HashSet<String>>);

impl GeneratedNames {
    pub(super) fn note(&self, urn: &str, generated: bool) {
        let mut urns = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if generated {
            urns.insert(urn.to_owned());
        } else {
            urns.remove(urn);
        }
    }

    pub(super) fn contains(&self, urn: &str) -> bool {
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
    pub(super) fn limit(&self) -> Option<Duration> {
        let seconds = self.timeout_seconds;
        (seconds > 0.0 && seconds.is_finite()).then(|| Duration::from_secs_f64(seconds))
    }
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
    pub(super) fn keep(&self, urn: &str, plan: EarlierPlan, diffed: &Diffed) {
        let mut plans = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if update_follows(diffed) {
            plans.insert(urn.to_owned(), plan);
        } else {
            plans.remove(urn);
        }
    }

    /// How many plans are held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(super) fn take(&self, urn: &str) -> Option<EarlierPlan> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).remove(urn)
    }
}

pub(super) fn name_property(resource: &Resource<'_>) -> Option<String> {
    resource.props().autonamed.then(|| resource.props().names.by_tf_name("name").map(|n| n.pulumi_name.clone()))?
}

/// The Terraform configuration of Pulumi inputs, with the secret paths.
pub(super) fn configuration(
    resource: &Resource<'_>,
    inputs: &PropertyMap,
) -> Result<(Value, Vec<cty::Path>), LifecycleError> {
    let (value, secrets) =
        convert::to_cty(&resource.schema().block, &resource.props().names, inputs, UnknownKeys::Reject).map_err(
            |error| LifecycleError::InvalidProperty { subject: resource.subject().clone(), error: Box::new(error) },
        )?;
    Ok((strip_computed_only(&resource.schema().block, &value), secrets))
}

pub(super) fn pulumi_outputs(
    resource: &Resource<'_>,
    state: &Value,
    secrets: &[cty::Path],
    meta: &Meta,
) -> Result<PropertyMap, LifecycleError> {
    state::outputs(resource.schema(), resource.props(), state, secrets, meta).map_err(|err| {
        LifecycleError::ProviderBug {
            subject: resource.subject().clone(),
            summary: "Provider produced invalid object",
            problems: vec![format!("the state cannot be shown as Pulumi outputs: {err}")],
        }
    })
}

/// The `__meta` to store with a new state: the current schema versions, and the keys
/// other writers left.
pub(super) fn new_meta(
    resource: &Resource<'_>,
    previous: Option<&Meta>,
    private: Vec<u8>,
    identity: Option<&Value>,
) -> Result<Meta, LifecycleError> {
    Ok(Meta {
        schema_version: resource.schema().version,
        private,
        identity: identity.map(|identity| resource.identity_text(identity)).transpose()?,
        identity_schema_version: resource.identity_schema().map_or(0, |schema| schema.version),
        apply_failed: false,
        tainted: false,
        other: previous.map(|m| m.other.clone()).unwrap_or_default(),
    })
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
