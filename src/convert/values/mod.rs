//! Pulumi property values ⇄ cty values, driven by the Terraform schema.
//!
//! [`to_cty`] turns a resource's (or provider's, or data source's) Pulumi properties into the
//! cty object of its schema block; [`from_cty`] goes back. Names come from schema-gen's
//! [`PropertyNames`], the same code that named the properties in the package schema, so the
//! two can never disagree. MaxItems=1 blocks are unwrapped to a single object in Pulumi and
//! wrapped back into a one-element list or set for Terraform.
//!
//! Secrets are not part of cty values. [`to_cty`] returns the Terraform paths of every value
//! that was secret; [`from_cty`] takes such paths back (plus the schema's sensitive
//! attributes) and marks those values secret again, so everything derived from a secret
//! input comes back secret. A secret inside a set marks the whole set: set elements have no
//! stable position to carry a mark.
//!
//! Numbers: Pulumi numbers are f64. A fraction enters cty as the shortest decimal that reads
//! back as the same f64 (`0.1`, as Terraform reads configuration), not the f64's binary
//! expansion; an integer enters exactly.
//! A cty number that no f64 prints back as (a large integer, or a decimal with more digits
//! than an f64 keeps) comes back as a Pulumi *string* holding the exact decimal, never
//! silently rounded; strings are read back as numbers where the schema says number. The Go
//! implementation stores such numbers as strings too.
//!
//! The two directions live in `to_cty` and `from_cty`; the errors and the few helpers they
//! share live here.
//!
//! Architecture invariant: no gRPC. Errors carry the Pulumi property path.

mod from_cty;
mod to_cty;

use schema_gen::translate::PropertyNames;

pub use from_cty::from_cty;
pub use to_cty::to_cty;

use crate::cty::{self, Number, Type};
use crate::property::{PropertyPath, PropertyPathStep, PropertyValue, UnknownKind};

/// Why a Pulumi value does not fit the Terraform schema.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{}{kind}", if path.steps.is_empty() { String::new() } else { format!("{path}: ") })]
pub struct ConvertError {
    /// Where, in Pulumi property-path syntax (`rules[2].ports`).
    pub path: PropertyPath,
    pub kind: ConvertErrorKind,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConvertErrorKind {
    /// A property the schema does not have.
    #[error("unknown property {0:?}")]
    UnknownProperty(String),
    /// A value of the wrong kind for the schema type.
    #[error("expected {expected}, got {found}")]
    TypeMismatch { expected: String, found: &'static str },
    /// A string where a number is expected that is not a number.
    #[error("{0:?} is not a number")]
    InvalidNumber(String),
    /// NaN or an infinity: Pulumi cannot carry these meaningfully and Terraform JSON cannot
    /// hold them.
    #[error("{0} is not a finite number")]
    NotFinite(f64),
    /// A tuple of the wrong length.
    #[error("expected a tuple of {expected} elements, got {given}")]
    TupleLength { expected: usize, given: usize },
    /// Assets, archives and raw bytes have no Terraform equivalent.
    #[error("{0} values are not supported by Terraform providers")]
    Unsupported(&'static str),
    /// The cty layer refused a value (e.g. mixed element types in a collection).
    #[error("{0}")]
    Cty(cty::Error),
}

/// What to do with Pulumi keys the schema does not know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnknownKeys {
    /// Program inputs: an unknown key is a mistake to report.
    Reject,
    /// Stored state: attributes a newer provider version dropped are left behind.
    Ignore,
}

/// A cty number as a Pulumi number when an f64 holds it exactly, else as the exact decimal
/// string (never a silently rounded number).
fn number_to_property(n: &Number) -> PropertyValue {
    let nearest = n.to_f64_lossy();
    if nearest.is_finite() {
        // The f64 is the number itself (integers up to 2^1024, binary fractions)...
        if Number::from_f64(nearest).as_ref() == Some(n) {
            return PropertyValue::Number(nearest);
        }
        // ...or the number is that f64's shortest decimal (`0.1`): nothing is lost either way.
        if Number::parse(&format!("{nearest:e}")).is_ok_and(|shortest| shortest == *n) {
            return PropertyValue::Number(nearest);
        }
    }
    PropertyValue::String(n.to_plain_string())
}

fn unknown_kind(ty: &Type) -> UnknownKind {
    match ty {
        Type::Bool => UnknownKind::Bool,
        Type::Number => UnknownKind::Number,
        Type::List(_) | Type::Set(_) | Type::Tuple(_) => UnknownKind::Array,
        Type::Map(_) | Type::Object(_) => UnknownKind::Object,
        Type::String | Type::Dynamic => UnknownKind::String,
    }
}

/// A conversion that walks a value's Pulumi and Terraform paths in step, so that an error
/// or a secret mark can name either.
trait Walk: Sized {
    fn paths(&mut self) -> (&mut PropertyPath, &mut cty::Path);

    /// Runs `f` one step deeper in both paths.
    fn at<T>(&mut self, pulumi_step: PropertyPathStep, tf_step: cty::PathStep, f: impl FnOnce(&mut Self) -> T) -> T {
        let (pulumi_path, tf_path) = self.paths();
        pulumi_path.steps.push(pulumi_step);
        tf_path.steps.push(tf_step);
        let result = f(self);
        let (pulumi_path, tf_path) = self.paths();
        pulumi_path.steps.pop();
        tf_path.steps.pop();
        result
    }
}

fn pulumi_name(names: &PropertyNames, tf_name: &str) -> String {
    names.by_tf_name(tf_name).map_or_else(|| tf_name.to_owned(), |n| n.pulumi_name.clone())
}

fn kind_name(value: &PropertyValue) -> &'static str {
    match value {
        PropertyValue::Null => "null",
        PropertyValue::Bool(_) => "a bool",
        PropertyValue::Number(_) => "a number",
        PropertyValue::String(_) => "a string",
        PropertyValue::Array(_) => "an array",
        PropertyValue::Object(_) => "an object",
        PropertyValue::Secret(_) => "a secret",
        PropertyValue::Unknown(_) => "an unknown value",
        PropertyValue::ResourceReference(_) => "a resource reference",
        PropertyValue::Asset(_) => "an asset",
        PropertyValue::Archive(_) => "an archive",
        PropertyValue::Output(_) => "an output value",
        PropertyValue::Bytes(_) => "a byte string",
    }
}
