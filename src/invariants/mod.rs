//! The invariants Terraform core enforces on providers, as pure functions.
//!
//! - [`assert_plan_valid`]: a planned new state may only fill in what configuration leaves
//!   to the provider (Terraform's `AssertPlanValid`).
//! - [`assert_object_compatible`]: an applied state, or an apply-time re-plan, must keep
//!   every known planned value (Terraform's `AssertObjectCompatible`).
//!
//! Both return every [`Violation`] they find, never just the first. Messages quote
//! Terraform's texts and render values as go-cty does ([`gostring`]), because they are meant
//! for provider developers and will be pasted into their issue trackers.
//!
//! Architecture invariant: no I/O, no logging, no policy. Whether a violation fails the
//! operation or is only logged (Terraform tolerates some for providers on the legacy SDK
//! type system) is the caller's decision.

mod compatible;
pub mod gostring;
mod plan_valid;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::fmt;

pub use compatible::assert_object_compatible;
pub use plan_valid::assert_plan_valid;

use crate::cty::{Path, Type, Value, View};

/// One broken rule, at a path inside the checked object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    pub path: Path,
    pub message: String,
}

impl Violation {
    fn new(path: &Path, message: impl Into<String>) -> Violation {
        Violation { path: path.clone(), message: message.into() }
    }
}

impl fmt::Display for Violation {
    /// Terraform's `<path>: <message>`, e.g. `.tags["Name"]: was cty.StringVal("a"), but now
    /// cty.StringVal("b")`; no path prefix at the root.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_root() { f.write_str(&self.message) } else { write!(f, "{}: {}", self.path, self.message) }
    }
}

/// The attribute `name` of an object value; null of `ty` when the object is null, unknown
/// of `ty` when it is unknown. Values nested in a null parent count as null, as in
/// Terraform.
fn attr_or_null<'a>(object: &'a Value, name: &str, ty: &Type) -> Cow<'a, Value> {
    match object.view() {
        View::Unknown(..) => Cow::Owned(Value::unknown(ty.clone())),
        _ => match object.get_attr(name) {
            Some(value) => Cow::Borrowed(value),
            None => Cow::Owned(Value::null(ty.clone())),
        },
    }
}

/// The number of elements of a known collection (list, set, tuple, map or object); `None`
/// when unknown. Null counts as empty.
fn element_count(v: &Value) -> Option<usize> {
    match v.view() {
        View::Unknown(..) => None,
        View::Null(_) => Some(0),
        View::List(_, elems) | View::Set(_, elems) | View::Tuple(elems) => Some(elems.len()),
        View::Map(_, entries) | View::Object(entries) => Some(entries.len()),
        _ => Some(0),
    }
}

/// The elements of a known list, set or tuple; empty otherwise.
fn elements_of(v: &Value) -> &[Value] {
    match v.view() {
        View::List(_, elems) | View::Set(_, elems) | View::Tuple(elems) => elems,
        _ => &[],
    }
}
