//! [`Operation`]: every provider call by name, the one place an RPC's name is written.
//!
//! The client's dispatch names a failed call by it (the protocol 5 name to a protocol 5
//! provider), the gRPC debug log writes it as each line's `method`, and `lifecycle` names
//! the call in errors and problems with its `Display`.

use std::fmt;

use super::handshake::ProtocolVersion;

/// A provider call, as messages name it: its protocol 6 RPC name. Protocol 5 names six of
/// them differently on the wire ([`Operation::wire_name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    GetProviderSchema,
    GetMetadata,
    ValidateProviderConfig,
    ConfigureProvider,
    ValidateResourceConfig,
    UpgradeResourceState,
    PlanResourceChange,
    /// PlanResourceChange with a null proposed state, for providers that plan destroys;
    /// named apart in messages.
    PlanDestroy,
    ApplyResourceChange,
    ReadResource,
    ImportResourceState,
    ValidateDataResourceConfig,
    ReadDataSource,
    GetFunctions,
    CallFunction,
    StopProvider,
    ValidateEphemeralResourceConfig,
    OpenEphemeralResource,
    RenewEphemeralResource,
    CloseEphemeralResource,
    GetResourceIdentitySchemas,
    UpgradeResourceIdentity,
    ValidateListResourceConfig,
    ListResource,
    ValidateActionConfig,
    PlanAction,
    InvokeAction,
    GenerateResourceConfig,
}

impl Operation {
    /// The protocol 6 RPC name (PlanDestroy is a PlanResourceChange).
    pub fn v6_name(self) -> &'static str {
        match self {
            Operation::GetProviderSchema => "GetProviderSchema",
            Operation::GetMetadata => "GetMetadata",
            Operation::ValidateProviderConfig => "ValidateProviderConfig",
            Operation::ConfigureProvider => "ConfigureProvider",
            Operation::ValidateResourceConfig => "ValidateResourceConfig",
            Operation::UpgradeResourceState => "UpgradeResourceState",
            Operation::PlanResourceChange | Operation::PlanDestroy => "PlanResourceChange",
            Operation::ApplyResourceChange => "ApplyResourceChange",
            Operation::ReadResource => "ReadResource",
            Operation::ImportResourceState => "ImportResourceState",
            Operation::ValidateDataResourceConfig => "ValidateDataResourceConfig",
            Operation::ReadDataSource => "ReadDataSource",
            Operation::GetFunctions => "GetFunctions",
            Operation::CallFunction => "CallFunction",
            Operation::StopProvider => "StopProvider",
            Operation::ValidateEphemeralResourceConfig => "ValidateEphemeralResourceConfig",
            Operation::OpenEphemeralResource => "OpenEphemeralResource",
            Operation::RenewEphemeralResource => "RenewEphemeralResource",
            Operation::CloseEphemeralResource => "CloseEphemeralResource",
            Operation::GetResourceIdentitySchemas => "GetResourceIdentitySchemas",
            Operation::UpgradeResourceIdentity => "UpgradeResourceIdentity",
            Operation::ValidateListResourceConfig => "ValidateListResourceConfig",
            Operation::ListResource => "ListResource",
            Operation::ValidateActionConfig => "ValidateActionConfig",
            Operation::PlanAction => "PlanAction",
            Operation::InvokeAction => "InvokeAction",
            Operation::GenerateResourceConfig => "GenerateResourceConfig",
        }
    }

    /// The RPC's name on the wire of `protocol`.
    pub fn wire_name(self, protocol: ProtocolVersion) -> &'static str {
        match (protocol, self) {
            (ProtocolVersion::V5, Operation::GetProviderSchema) => "GetSchema",
            (ProtocolVersion::V5, Operation::ValidateProviderConfig) => "PrepareProviderConfig",
            (ProtocolVersion::V5, Operation::ValidateResourceConfig) => "ValidateResourceTypeConfig",
            (ProtocolVersion::V5, Operation::ValidateDataResourceConfig) => "ValidateDataSourceConfig",
            (ProtocolVersion::V5, Operation::ConfigureProvider) => "Configure",
            (ProtocolVersion::V5, Operation::StopProvider) => "Stop",
            _ => self.v6_name(),
        }
    }

    /// Whether a failed call may still have changed a remote object: only an apply does.
    /// When it fails without a usable answer, the engine must treat the outcome as unknown.
    pub fn changes_remote_objects(self) -> bool {
        matches!(self, Operation::ApplyResourceChange)
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operation::PlanDestroy => f.write_str("PlanResourceChange (destroy)"),
            other => f.write_str(other.v6_name()),
        }
    }
}
