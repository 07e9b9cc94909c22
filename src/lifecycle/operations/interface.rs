//! What goes into and comes out of the resource operations: the resource a request is about
//! ([`Target`]) and its time limit ([`Deadline`]), and the results ([`Checked`], [`Diffed`],
//! [`Written`]).
//!
//! Architecture invariant: no gRPC types; requests come in as Pulumi property maps.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::lifecycle::support::checks::CheckFailure;
use crate::lifecycle::support::detailed_diff::PropertyDiff;
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
