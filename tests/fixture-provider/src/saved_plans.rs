//! `checks_planned_private`: a resource that relies on its saved plan's private bytes coming
//! back when Terraform plans again at apply time (protocol 6.11, `store_planned_private`).
//!
//! A plan made without `planned_private` (the first plan of a change) answers fresh bytes,
//! `fixture-plan:<nanoseconds>`. A plan made with them (the plan made again at apply time)
//! checks that they are bytes this provider planned and answers `fixture-replanned:<them>`.
//! The apply of an update then requires `fixture-replanned:` bytes: a client that advertised
//! `store_planned_private` but did not send the saved plan's bytes back fails there, with
//! the error text below. Creates are exempt: a Pulumi create has no saved plan.
//!
//! Architecture invariant: decisions only, on bytes; the caller reads and writes values.

use crate::rpc::Diagnostic;

const PLANNED: &str = "fixture-plan:";
const REPLANNED: &str = "fixture-replanned:";

/// The `planned_private` to answer for an update plan that received `saved` (empty for a
/// first plan), or the error when `saved` is not bytes this provider planned.
pub fn plan_private(saved: &[u8]) -> Result<Vec<u8>, Diagnostic> {
    if saved.is_empty() {
        // The clock, not a counter: plans of several processes must not collide.
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |elapsed| elapsed.as_nanos());
        return Ok(format!("{PLANNED}{nanos}").into_bytes());
    }
    if !saved.starts_with(PLANNED.as_bytes()) {
        return Err(Diagnostic::error(
            "Unexpected planned private state",
            format!(
                "The planned_private bytes sent with this plan ({:?}) were not made by a plan of this provider.",
                String::from_utf8_lossy(saved)
            ),
            None,
        ));
    }
    let mut replanned = REPLANNED.as_bytes().to_vec();
    replanned.extend_from_slice(saved);
    Ok(replanned)
}

/// The error for the apply of an update whose plan was not made with the saved plan's bytes.
pub fn apply_problem(planned_private: &[u8]) -> Option<Diagnostic> {
    if planned_private.starts_with(REPLANNED.as_bytes()) {
        return None;
    }
    Some(Diagnostic::error(
        "Missing saved plan private state",
        format!(
            "The plan made at apply time did not receive the saved plan's planned_private bytes, although the \
             client declared store_planned_private; this apply got {:?}.",
            String::from_utf8_lossy(planned_private)
        ),
        None,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replan_must_carry_the_saved_plans_bytes_to_the_apply() {
        let first = plan_private(b"").unwrap();
        assert!(first.starts_with(PLANNED.as_bytes()));
        // The client planned again without the saved bytes: a fresh plan, which the apply refuses.
        let fresh = plan_private(b"").unwrap();
        assert!(apply_problem(&fresh).is_some());
        // With them: the apply is satisfied.
        let replanned = plan_private(&first).unwrap();
        assert_eq!(apply_problem(&replanned), None);
        // Bytes this provider never planned are refused at plan time.
        assert!(plan_private(b"something-else").is_err());
    }
}
