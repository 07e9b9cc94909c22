//! What a failed Create or Update leaves in the stack.
//!
//! Terraform core, after an `ApplyResourceChange` that answered errors
//! (`node_resource_abstract_instance.go`, `apply`): a null new state keeps the prior object
//! (none for a create); a non-null one is saved, its unknowns turned to null
//! (`cty.UnknownAsNull`, one "Provider returned invalid result object after apply" error
//! each), and a create's object is saved *tainted*, so the next plan refreshes it and then
//! replaces it. The Go implementation discards whatever a failed create answered (no partial
//! state) and keeps the state it had.
//!
//! Both lose something. Terraform keeps the plan a sloppy provider returns beside its error
//! (every computed value unknown, the `id` too) as if it were an object; its refresh of that
//! "object" then fails, and so does every later plan and destroy. Go forgets an object a
//! provider really made before it failed. We keep what can be found again and nothing else:
//!
//! | the failed apply answered | Terraform 1.14 | Go | ours |
//! |---|---|---|---|
//! | a null state | prior kept | prior kept | prior kept ([`AfterFailure::Nothing`]) |
//! | create: an object with a known id | saved, tainted | dropped | recorded, tainted: read first, then replaced |
//! | create: no known id (the plan beside the error) | saved, tainted; later runs fail | dropped | not recorded: the error says so |
//! | create, type without an `id`: wholly known | saved, tainted | dropped | recorded, tainted |
//! | create, type without an `id`: unknowns left | saved, tainted | dropped | not recorded |
//! | update: an object | saved | dropped (prior kept) | recorded, read before the next plan |
//!
//! A recorded object carries `apply_failed` (read before it is planned, so values it never
//! took are not planned from) and, for a create, `tainted` (replaced by the next `up`, as
//! Terraform replaces a tainted object; a read that fails for it does not stop the
//! replacement, the refresh or the destroy).

use super::error::Change;
use super::state::MISSING_ID;

/// A failed apply's answer, as the decision needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailedAnswer<'a> {
    pub change: Change,
    /// The new state is null.
    pub null: bool,
    /// The id the new state gives by the resource's id rule, once unknowns are null: `None`
    /// when it is unknown, null or empty; [`MISSING_ID`] for a type with no `id` attribute.
    pub id: Option<&'a str>,
    /// The new state held no unknown value.
    pub wholly_known: bool,
    /// The id of the object an update changed.
    pub prior_id: &'a str,
}

/// What the stack records after a failed apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AfterFailure {
    /// Nothing new: the engine keeps what it had, no object for a create and the prior
    /// state for an update. Nothing was made that could be found again.
    Nothing,
    /// The object, recorded beside the error, under `id`; `tainted` for a create's.
    Record { id: String, tainted: bool },
}

/// What a failed Create or Update leaves (the module's table).
pub fn after_failed_apply(answer: FailedAnswer<'_>) -> AfterFailure {
    if answer.null {
        return AfterFailure::Nothing;
    }
    match (answer.change, answer.id) {
        (Change::Create, Some(MISSING_ID)) if answer.wholly_known => {
            AfterFailure::Record { id: MISSING_ID.to_owned(), tainted: true }
        }
        (Change::Create, Some(MISSING_ID) | None) => AfterFailure::Nothing,
        (Change::Create, Some(id)) => AfterFailure::Record { id: id.to_owned(), tainted: true },
        (Change::Update | Change::Delete, id) => {
            AfterFailure::Record { id: id.unwrap_or(answer.prior_id).to_owned(), tainted: false }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_can_be_found_again_is_recorded() {
        let answer =
            |change, null, id, wholly_known| FailedAnswer { change, null, id, wholly_known, prior_id: "old-1" };
        let record = |id: &str, tainted| AfterFailure::Record { id: id.to_owned(), tainted };
        // (case, answer, what is recorded)
        let table = [
            ("create, null state", answer(Change::Create, true, None, true), AfterFailure::Nothing),
            ("update, null state: the prior stays", answer(Change::Update, true, None, true), AfterFailure::Nothing),
            (
                "create, a known id: the provider made it",
                answer(Change::Create, false, Some("obj-7"), false),
                record("obj-7", true),
            ),
            (
                "create, a known id and no unknowns",
                answer(Change::Create, false, Some("obj-7"), true),
                record("obj-7", true),
            ),
            (
                "create, the id unknown: the plan returned beside the error",
                answer(Change::Create, false, None, false),
                AfterFailure::Nothing,
            ),
            (
                "create, the id null and nothing unknown: nothing to find it by",
                answer(Change::Create, false, None, true),
                AfterFailure::Nothing,
            ),
            (
                "create, a type without an id, wholly known",
                answer(Change::Create, false, Some(MISSING_ID), true),
                record(MISSING_ID, true),
            ),
            (
                "create, a type without an id, unknowns left: the plan",
                answer(Change::Create, false, Some(MISSING_ID), false),
                AfterFailure::Nothing,
            ),
            ("update, the id kept", answer(Change::Update, false, Some("old-1"), true), record("old-1", false)),
            ("update, the id changed", answer(Change::Update, false, Some("new-2"), true), record("new-2", false)),
            (
                "update, the id unknown: still the object it was",
                answer(Change::Update, false, None, false),
                record("old-1", false),
            ),
        ];
        for (case, answer, expected) in table {
            assert_eq!(after_failed_apply(answer), expected, "{case}");
        }
    }
}
