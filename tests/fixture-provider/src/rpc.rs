//! Protocol-neutral requests and answers of the resource, data source and function RPCs.
//!
//! The protocol 5 and protocol 6 services convert their messages to and from these, so the
//! behaviour in `resources` and `reads` is written once. Values travel as msgpack bytes (an
//! empty byte string is a null); the services take `DynamicValue.msgpack` and leave JSON
//! dynamic values aside, as Terraform core only sends msgpack.
//!
//! Architecture invariant: plain data only; no behaviour and no protocol types.

use std::collections::HashMap;

/// One step of an attribute path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    Attribute(String),
    ElementKeyString(String),
    ElementKeyInt(i64),
}

/// A path from the root object: `[Attribute("list_block"), ElementKeyInt(0), Attribute("value")]`.
pub type AttributePath = Vec<PathStep>;

/// A diagnostic, error or warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub error: bool,
    pub summary: String,
    pub detail: String,
    pub attribute: Option<AttributePath>,
}

impl Diagnostic {
    pub fn error(
        summary: impl Into<String>,
        detail: impl Into<String>,
        attribute: Option<AttributePath>,
    ) -> Diagnostic {
        Diagnostic { error: true, summary: summary.into(), detail: detail.into(), attribute }
    }

    pub fn warning(summary: impl Into<String>, detail: impl Into<String>) -> Diagnostic {
        Diagnostic { error: false, summary: summary.into(), detail: detail.into(), attribute: None }
    }
}

/// `Deferred.Reason.RESOURCE_CONFIG_UNKNOWN`, the same number in both protocols.
pub const DEFERRED_RESOURCE_CONFIG_UNKNOWN: i32 = 1;

#[derive(Clone, Debug, Default)]
pub struct UpgradeRequest {
    pub type_name: String,
    pub version: i64,
    pub raw_json: Vec<u8>,
    pub raw_flatmap: HashMap<String, String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpgradeResponse {
    pub upgraded_state: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default)]
pub struct PlanRequest {
    pub type_name: String,
    pub prior_state: Vec<u8>,
    pub proposed_new_state: Vec<u8>,
    pub config: Vec<u8>,
    pub prior_private: Vec<u8>,
    /// Protocol 6.11: the saved plan's private bytes, when planning again at apply time
    /// (always empty over protocol 5).
    pub planned_private: Vec<u8>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanResponse {
    pub planned_state: Vec<u8>,
    pub requires_replace: Vec<AttributePath>,
    pub planned_private: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
    pub legacy_type_system: bool,
    /// A `Deferred.Reason` number when the plan is deferred.
    pub deferred: Option<i32>,
}

#[derive(Clone, Debug, Default)]
pub struct ApplyRequest {
    pub type_name: String,
    pub prior_state: Vec<u8>,
    pub planned_state: Vec<u8>,
    pub config: Vec<u8>,
    pub planned_private: Vec<u8>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ApplyResponse {
    pub new_state: Vec<u8>,
    pub private: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
    pub legacy_type_system: bool,
}

#[derive(Clone, Debug, Default)]
pub struct ReadRequest {
    pub type_name: String,
    pub current_state: Vec<u8>,
    pub private: Vec<u8>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ReadResponse {
    pub new_state: Vec<u8>,
    pub private: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportedResource {
    pub type_name: String,
    pub state: Vec<u8>,
    pub private: Vec<u8>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportResponse {
    pub imported: Vec<ImportedResource>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct DataSourceResponse {
    pub state: Vec<u8>,
    pub diagnostics: Vec<Diagnostic>,
}

/// `FunctionError`: the text and, when one argument is at fault, its index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionError {
    pub text: String,
    pub argument: Option<i64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallFunctionResponse {
    pub result: Vec<u8>,
    pub error: Option<FunctionError>,
}

/// Writes, in a protocol service module whose messages are imported as `pb`, the functions
/// that convert between these neutral types and that protocol's messages. Both protocols
/// spell these messages the same way, so one text serves both.
macro_rules! protocol_conversions {
    () => {
        /// The msgpack bytes of a dynamic value; a missing value is a null (empty bytes).
        fn msgpack_of(value: Option<pb::DynamicValue>) -> Vec<u8> {
            value.map(|value| value.msgpack).unwrap_or_default()
        }

        fn dynamic_value(msgpack: Vec<u8>) -> Option<pb::DynamicValue> {
            Some(pb::DynamicValue { msgpack, json: Vec::new() })
        }

        fn attribute_path(steps: crate::rpc::AttributePath) -> pb::AttributePath {
            use pb::attribute_path::step::Selector;
            pb::AttributePath {
                steps: steps
                    .into_iter()
                    .map(|step| pb::attribute_path::Step {
                        selector: Some(match step {
                            crate::rpc::PathStep::Attribute(name) => Selector::AttributeName(name),
                            crate::rpc::PathStep::ElementKeyString(key) => Selector::ElementKeyString(key),
                            crate::rpc::PathStep::ElementKeyInt(index) => Selector::ElementKeyInt(index),
                        }),
                    })
                    .collect(),
            }
        }

        fn diagnostics_of(diagnostics: Vec<crate::rpc::Diagnostic>) -> Vec<pb::Diagnostic> {
            diagnostics
                .into_iter()
                .map(|diagnostic| pb::Diagnostic {
                    severity: if diagnostic.error {
                        pb::diagnostic::Severity::Error as i32
                    } else {
                        pb::diagnostic::Severity::Warning as i32
                    },
                    summary: diagnostic.summary,
                    detail: diagnostic.detail,
                    attribute: diagnostic.attribute.map(attribute_path),
                })
                .collect()
        }

        fn deferred_of(reason: Option<i32>) -> Option<pb::Deferred> {
            reason.map(|reason| pb::Deferred { reason })
        }

        fn upgrade_request(request: pb::upgrade_resource_state::Request) -> crate::rpc::UpgradeRequest {
            let raw_state = request.raw_state.unwrap_or_default();
            crate::rpc::UpgradeRequest {
                type_name: request.type_name,
                version: request.version,
                raw_json: raw_state.json,
                raw_flatmap: raw_state.flatmap.into_iter().collect(),
            }
        }

        fn upgrade_response(response: crate::rpc::UpgradeResponse) -> pb::upgrade_resource_state::Response {
            pb::upgrade_resource_state::Response {
                upgraded_state: dynamic_value(response.upgraded_state),
                diagnostics: diagnostics_of(response.diagnostics),
            }
        }

        fn read_response(response: crate::rpc::ReadResponse) -> pb::read_resource::Response {
            pb::read_resource::Response {
                new_state: dynamic_value(response.new_state),
                diagnostics: diagnostics_of(response.diagnostics),
                private: response.private,
                deferred: None,
                new_identity: None,
            }
        }

        fn plan_response(response: crate::rpc::PlanResponse) -> pb::plan_resource_change::Response {
            pb::plan_resource_change::Response {
                planned_state: dynamic_value(response.planned_state),
                requires_replace: response.requires_replace.into_iter().map(attribute_path).collect(),
                planned_private: response.planned_private,
                diagnostics: diagnostics_of(response.diagnostics),
                legacy_type_system: response.legacy_type_system,
                deferred: deferred_of(response.deferred),
                planned_identity: None,
            }
        }

        fn apply_request(request: pb::apply_resource_change::Request) -> crate::rpc::ApplyRequest {
            crate::rpc::ApplyRequest {
                type_name: request.type_name,
                prior_state: msgpack_of(request.prior_state),
                planned_state: msgpack_of(request.planned_state),
                config: msgpack_of(request.config),
                planned_private: request.planned_private,
            }
        }

        fn apply_response(response: crate::rpc::ApplyResponse) -> pb::apply_resource_change::Response {
            pb::apply_resource_change::Response {
                new_state: dynamic_value(response.new_state),
                private: response.private,
                diagnostics: diagnostics_of(response.diagnostics),
                legacy_type_system: response.legacy_type_system,
                new_identity: None,
            }
        }

        fn import_response(response: crate::rpc::ImportResponse) -> pb::import_resource_state::Response {
            pb::import_resource_state::Response {
                imported_resources: response
                    .imported
                    .into_iter()
                    .map(|imported| pb::import_resource_state::ImportedResource {
                        type_name: imported.type_name,
                        state: dynamic_value(imported.state),
                        private: imported.private,
                        identity: None,
                    })
                    .collect(),
                diagnostics: diagnostics_of(response.diagnostics),
                deferred: None,
            }
        }

        fn call_function_response(response: crate::rpc::CallFunctionResponse) -> pb::call_function::Response {
            pb::call_function::Response {
                result: response
                    .error
                    .is_none()
                    .then(|| pb::DynamicValue { msgpack: response.result, json: Vec::new() }),
                error: response
                    .error
                    .map(|error| pb::FunctionError { text: error.text, function_argument: error.argument }),
            }
        }
    };
}
pub(crate) use protocol_conversions;
