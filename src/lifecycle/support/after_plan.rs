//! What follows a create's or update's plan: a preview's outputs, the refusal of a deferred
//! change, Terraform's NoOp (after reading the object, when its state may hold values it
//! never took), or the apply. Decided from the plan alone, before any of them runs.

use crate::cty::Value;
use crate::tfplugin::core_rpcs::DeferredReason;

/// What the decision needs of one plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanFacts {
    /// The engine asked for a preview.
    pub preview: bool,
    /// Why the provider deferred the change, if it did.
    pub deferred: Option<DeferredReason>,
    /// The plan requires a replacement on some path.
    pub replaces: bool,
    /// The plan changes nothing ([`unchanged`]); never for a create, which has no prior
    /// object to equal.
    pub unchanged: bool,
    /// The prior state was read from the provider in this operation.
    pub read: bool,
}

/// What `plan_and_apply` does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterPlan {
    /// The plan's values are the outputs; nothing is applied or stored.
    Preview,
    /// Refused: Terraform applies a deferred change in a later run, and a Pulumi deployment
    /// has none to carry it to.
    Deferred(DeferredReason),
    /// An update that changes nothing, planned from a state not read in this operation. The
    /// engine sends one only for an object whose last operation failed, so the state may hold
    /// values the object never took: read it, plan again when it differs, else [`NoOp`].
    ///
    /// [`NoOp`]: AfterPlan::NoOp
    ReadFirst,
    /// Terraform's NoOp: nothing is applied (a provider asked to apply a plan that changes
    /// nothing may answer what it never planned, issue 28).
    NoOp,
    /// ApplyResourceChange.
    Apply,
}

impl AfterPlan {
    /// Whether the plan made now must agree with the one Diff made (Terraform's final-plan
    /// check): for everything that goes on to change, or keep, the object.
    pub fn checks_final_plan(self) -> bool {
        matches!(self, AfterPlan::ReadFirst | AfterPlan::NoOp | AfterPlan::Apply)
    }
}

/// What follows a plan. A preview wins over a deferral (a preview shows the deferred change
/// with its warning), and a deferral over everything that would apply.
pub fn after_plan(facts: PlanFacts) -> AfterPlan {
    if facts.preview {
        return AfterPlan::Preview;
    }
    if let Some(reason) = facts.deferred {
        return AfterPlan::Deferred(reason);
    }
    match (!facts.replaces && facts.unchanged, facts.read) {
        (true, false) => AfterPlan::ReadFirst,
        (true, true) => AfterPlan::NoOp,
        (false, _) => AfterPlan::Apply,
    }
}

/// Whether a plan changes nothing: Terraform's NoOp (a wholly known planned value equal to
/// the prior state).
pub fn unchanged(prior: &Value, planned: &Value) -> bool {
    !prior.is_null() && planned.is_wholly_known() && planned.equals_ignoring_refinements(prior)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_follows_a_plan() {
        let facts = PlanFacts { preview: false, deferred: None, replaces: false, unchanged: true, read: false };
        let deferred = DeferredReason::ResourceConfigUnknown;
        // (case, facts, what follows)
        let table = [
            ("a preview", PlanFacts { preview: true, ..facts }, AfterPlan::Preview),
            (
                "a preview of a deferred change shows it",
                PlanFacts { preview: true, deferred: Some(deferred), ..facts },
                AfterPlan::Preview,
            ),
            (
                "a deferred change is refused",
                PlanFacts { deferred: Some(deferred), ..facts },
                AfterPlan::Deferred(deferred),
            ),
            (
                "a deferred create is refused",
                PlanFacts { deferred: Some(deferred), unchanged: false, ..facts },
                AfterPlan::Deferred(deferred),
            ),
            ("an unchanged update of a stored state: read first", facts, AfterPlan::ReadFirst),
            ("an unchanged update of a state just read: NoOp", PlanFacts { read: true, ..facts }, AfterPlan::NoOp),
            ("an update that changes something", PlanFacts { unchanged: false, ..facts }, AfterPlan::Apply),
            ("an unchanged update that replaces", PlanFacts { replaces: true, ..facts }, AfterPlan::Apply),
            ("a create (never unchanged)", PlanFacts { unchanged: false, ..facts }, AfterPlan::Apply),
        ];
        for (case, facts, expected) in table {
            assert_eq!(after_plan(facts), expected, "{case}");
        }
        let checked: Vec<_> = [
            AfterPlan::Preview,
            AfterPlan::Deferred(deferred),
            AfterPlan::ReadFirst,
            AfterPlan::NoOp,
            AfterPlan::Apply,
        ]
        .into_iter()
        .filter(|next| next.checks_final_plan())
        .collect();
        assert_eq!(checked, [AfterPlan::ReadFirst, AfterPlan::NoOp, AfterPlan::Apply]);
    }

    #[test]
    fn unchanged_is_a_wholly_known_equal_plan_of_an_object() {
        use crate::cty::{Type, Value};
        let known = Value::string("a");
        let unknown = Value::unknown(Type::String);
        // (prior, planned, unchanged)
        let table = [
            (known.clone(), known.clone(), true),
            (known.clone(), Value::string("b"), false),
            (known.clone(), unknown, false),
            (Value::null(Type::String), Value::null(Type::String), false),
        ];
        for (prior, planned, expected) in table {
            assert_eq!(unchanged(&prior, &planned), expected, "{prior:?} -> {planned:?}");
        }
    }
}
