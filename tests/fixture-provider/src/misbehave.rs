//! The `misbehave` switches of `fixture_misbehave`: what each asks the resource to do wrong
//! (the table in the crate docs), read from a configuration or a stored state.

use rmpv::Value;

use crate::value::attr_str;

/// The `misbehave` values of `fixture_misbehave`, a comma list in the configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Misbehave {
    /// The planned `value` is the configured one with `-planned` appended.
    PlanDiffersFromConfig,
    /// Apply returns `value` with `-applied` appended, though the plan knew it.
    ApplyChangesKnownValue,
    /// Apply leaves `computed_value` unknown in the new state.
    UnknownAfterApply,
    /// A create or update apply returns a null new state.
    NullAfterApply,
    /// Apply appends `-uncorrelated` to every element of the set `items` (or returns
    /// `["uncorrelated"]` for an empty or null set).
    SetElementsUncorrelated,
    /// `legacy_type_system` is set on the Plan and Apply answers.
    LegacyTypeSystem,
    /// Apply answers an error diagnostic together with the full new state (known `id`).
    ErrorWithPartialState,
    /// The plan requires replacement on the path `no_such_attribute`.
    RequiresReplaceNonexistent,
    /// The plan carries `"leaked"` for the write-only `secret_wo`.
    WriteOnlyInPlan,
    /// The plan answers deferred (`RESOURCE_CONFIG_UNKNOWN`) with the proposed state.
    Deferred,
    /// Apply panics the process the Go way (text on the real stderr, exit status 2).
    PanicInApply,
    /// Apply waits until `StopProvider`/`Stop` (then answers an error diagnostic and the
    /// prior state) or 30 seconds (then applies normally).
    SlowApply,
    /// Apply waits until `StopProvider`/`Stop` or 30 seconds, then applies normally: a create
    /// that finishes as the stop arrives (hashicorp/time's `time_sleep` whose sleep ends then).
    FinishesAtStop,
    /// Each plan sets `computed_value` to a new known value, `plan-<nanoseconds since the
    /// epoch>`, so the plan made at apply time differs from the one before it.
    UnstablePlan,
    /// Apply creates the object (the store holds it) but answers a new state that is not
    /// msgpack at all (the byte `c1`, which msgpack never uses).
    GarbageNewState,
    /// Updates rely on the saved plan's private bytes coming back at apply time (see
    /// `saved_plans`).
    ChecksPlannedPrivate,
    /// Apply answers an error diagnostic with the planned new state, but the remote object
    /// keeps what it had (the store is not written): what an SDKv2 provider answers when
    /// its update fails before it changed anything.
    ErrorWithUnappliedState,
    /// Apply answers the error "Invalid value" at the attribute path `value` with the planned
    /// state exactly as planned, unknowns (a create's `id`) included, and makes nothing: a
    /// plugin-framework provider that sets its plan as state before returning the error.
    ErrorWithPlannedState,
    /// Apply answers a warning and the error "Apply failed" with a null state, and makes
    /// nothing.
    ErrorWithNullState,
    /// Read answers the error "Read failed" (the stored `misbehave` decides).
    ReadFails,
    /// Read answers null: the object is gone.
    ReadGone,
    /// Read answers the object under another id (`<id>-moved`).
    ReadChangesId,
    /// A destroy answers the error "Delete failed" and the prior state (the stored
    /// `misbehave` decides).
    DeleteFails,
    /// Apply and Read answer `computed_value` as bytes that are not UTF-8 ([`NON_UTF8`]),
    /// with the warning "Value is not recognized as UTF-8".
    NonUtf8State,
    /// Apply and Read answer `computed_value` as a string of [`HUGE_LEN`] bytes.
    HugeValue,
}

/// The length of `huge_value`'s string: 50 MiB.
pub const HUGE_LEN: usize = 50 << 20;

/// The bytes `non_utf8_state` answers: a GIF's first bytes, as hashicorp/http reads a binary
/// body into a string.
pub const NON_UTF8: &[u8] = b"GIF89a\x01\x00\xff\xfe";

impl Misbehave {
    pub const ALL: [(&'static str, Misbehave); 25] = [
        ("plan_differs_from_config", Misbehave::PlanDiffersFromConfig),
        ("apply_changes_known_value", Misbehave::ApplyChangesKnownValue),
        ("unknown_after_apply", Misbehave::UnknownAfterApply),
        ("null_after_apply", Misbehave::NullAfterApply),
        ("set_elements_uncorrelated", Misbehave::SetElementsUncorrelated),
        ("legacy_type_system", Misbehave::LegacyTypeSystem),
        ("error_with_partial_state", Misbehave::ErrorWithPartialState),
        ("requires_replace_nonexistent", Misbehave::RequiresReplaceNonexistent),
        ("write_only_in_plan", Misbehave::WriteOnlyInPlan),
        ("deferred", Misbehave::Deferred),
        ("panic_in_apply", Misbehave::PanicInApply),
        ("slow_apply", Misbehave::SlowApply),
        ("finishes_at_stop", Misbehave::FinishesAtStop),
        ("unstable_plan", Misbehave::UnstablePlan),
        ("garbage_new_state", Misbehave::GarbageNewState),
        ("checks_planned_private", Misbehave::ChecksPlannedPrivate),
        ("error_with_unapplied_state", Misbehave::ErrorWithUnappliedState),
        ("error_with_planned_state", Misbehave::ErrorWithPlannedState),
        ("error_with_null_state", Misbehave::ErrorWithNullState),
        ("read_fails", Misbehave::ReadFails),
        ("read_gone", Misbehave::ReadGone),
        ("read_changes_id", Misbehave::ReadChangesId),
        ("delete_fails", Misbehave::DeleteFails),
        ("non_utf8_state", Misbehave::NonUtf8State),
        ("huge_value", Misbehave::HugeValue),
    ];

    /// Parses a comma list; the first name that is not a misbehaviour is the error.
    pub fn parse_list(text: &str) -> Result<Vec<Misbehave>, String> {
        text.split(',')
            .map(str::trim)
            .filter(|name| !name.is_empty())
            .map(|name| {
                Misbehave::ALL.iter().find(|(known, _)| *known == name).map(|(_, m)| *m).ok_or_else(|| name.to_owned())
            })
            .collect()
    }

    /// The misbehaviours a configuration asks for; none when `misbehave` is null, unknown
    /// or invalid (validation reports the invalid case).
    pub(crate) fn from_config(config: &Value) -> Vec<Misbehave> {
        attr_str(config, "misbehave").and_then(|text| Misbehave::parse_list(text).ok()).unwrap_or_default()
    }
}
