//! [`Rpc`]: every provider call by name, the one place an RPC's name is written.
//!
//! The client's dispatch names a failed call by it (the protocol 5 name to a protocol 5
//! provider), the gRPC debug log writes it as each line's `method`, and `lifecycle` names
//! the call in errors and problems with its `Display`.

use std::fmt;

use super::handshake::ProtocolVersion;

/// A provider call, as messages name it: its protocol 6 RPC name. Protocol 5 names six of
/// them differently on the wire ([`Rpc::wire_name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rpc {
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

impl Rpc {
    /// The protocol 6 RPC name (PlanDestroy is a PlanResourceChange).
    pub fn v6_name(self) -> &'static str {
        match self {
            Rpc::GetProviderSchema => "GetProviderSchema",
            Rpc::GetMetadata => "GetMetadata",
            Rpc::ValidateProviderConfig => "ValidateProviderConfig",
            Rpc::ConfigureProvider => "ConfigureProvider",
            Rpc::ValidateResourceConfig => "ValidateResourceConfig",
            Rpc::UpgradeResourceState => "UpgradeResourceState",
            Rpc::PlanResourceChange | Rpc::PlanDestroy => "PlanResourceChange",
            Rpc::ApplyResourceChange => "ApplyResourceChange",
            Rpc::ReadResource => "ReadResource",
            Rpc::ImportResourceState => "ImportResourceState",
            Rpc::ValidateDataResourceConfig => "ValidateDataResourceConfig",
            Rpc::ReadDataSource => "ReadDataSource",
            Rpc::GetFunctions => "GetFunctions",
            Rpc::CallFunction => "CallFunction",
            Rpc::StopProvider => "StopProvider",
            Rpc::ValidateEphemeralResourceConfig => "ValidateEphemeralResourceConfig",
            Rpc::OpenEphemeralResource => "OpenEphemeralResource",
            Rpc::RenewEphemeralResource => "RenewEphemeralResource",
            Rpc::CloseEphemeralResource => "CloseEphemeralResource",
            Rpc::GetResourceIdentitySchemas => "GetResourceIdentitySchemas",
            Rpc::UpgradeResourceIdentity => "UpgradeResourceIdentity",
            Rpc::ValidateListResourceConfig => "ValidateListResourceConfig",
            Rpc::ListResource => "ListResource",
            Rpc::ValidateActionConfig => "ValidateActionConfig",
            Rpc::PlanAction => "PlanAction",
            Rpc::InvokeAction => "InvokeAction",
            Rpc::GenerateResourceConfig => "GenerateResourceConfig",
        }
    }

    /// The RPC's name on the wire of `protocol`.
    pub fn wire_name(self, protocol: ProtocolVersion) -> &'static str {
        match (protocol, self) {
            (ProtocolVersion::V5, Rpc::GetProviderSchema) => "GetSchema",
            (ProtocolVersion::V5, Rpc::ValidateProviderConfig) => "PrepareProviderConfig",
            (ProtocolVersion::V5, Rpc::ValidateResourceConfig) => "ValidateResourceTypeConfig",
            (ProtocolVersion::V5, Rpc::ValidateDataResourceConfig) => "ValidateDataSourceConfig",
            (ProtocolVersion::V5, Rpc::ConfigureProvider) => "Configure",
            (ProtocolVersion::V5, Rpc::StopProvider) => "Stop",
            _ => self.v6_name(),
        }
    }

    /// Whether a failed call may still have changed a remote object: only an apply does.
    /// When it fails without a usable answer, the engine must treat the outcome as unknown.
    pub fn changes_remote_objects(self) -> bool {
        matches!(self, Rpc::ApplyResourceChange)
    }
}

impl fmt::Display for Rpc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rpc::PlanDestroy => f.write_str("PlanResourceChange (destroy)"),
            other => f.write_str(other.v6_name()),
        }
    }
}
