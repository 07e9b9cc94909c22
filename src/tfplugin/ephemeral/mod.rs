//! Ephemeral resources (protocol 5.7/6.7): ValidateEphemeralResourceConfig,
//! OpenEphemeralResource, RenewEphemeralResource and CloseEphemeralResource. Their
//! protocol-neutral answers are here; `wire` converts them for both protocols.

use std::time::SystemTime;

use super::core_rpcs::{DeferredReason, Diagnostic, DynamicValue};

pub(super) mod wire;

/// OpenEphemeralResource's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenEphemeralResourceResponse {
    pub result: DynamicValue,
    /// Opaque bytes for Renew and Close; `None` when the provider sent none.
    pub private: Option<Vec<u8>>,
    /// When the provider wants RenewEphemeralResource called; `None`: never.
    pub renew_at: Option<SystemTime>,
    pub deferred: Option<DeferredReason>,
    pub diagnostics: Vec<Diagnostic>,
}

/// RenewEphemeralResource's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RenewEphemeralResourceResponse {
    pub private: Option<Vec<u8>>,
    /// The next renewal; `None`: no more.
    pub renew_at: Option<SystemTime>,
    pub diagnostics: Vec<Diagnostic>,
}
