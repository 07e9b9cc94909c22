//! What the process remembers between operations: the resources whose name Check generated
//! ([`GeneratedNames`]) and the plans Diff made for the Update that follows ([`PlanCache`]).

use std::collections::HashMap;
use std::sync::Mutex;

use super::interface::Diffed;
use crate::lifecycle::support::checks::EarlierPlan;

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

#[cfg(test)]
mod plan_cache_tests {
    use super::*;
    use crate::cty::{Type, Value};

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
