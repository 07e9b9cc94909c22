//! The core RPCs on the wire: conversions between the domain types of [`super`] and the
//! messages, and the client methods, for both protocols.
//!
//! tfplugin5 and tfplugin6 declare most messages identically (same names, fields and
//! numbers), but prost generates distinct Rust types for each package. Rather than write
//! every conversion and method twice, [`core_rpcs_wire!`] expands the same code inside `v5`
//! and `v6`, where `pb` names that protocol's generated module. Its arguments are the RPCs
//! protocol 5 names differently (each also names its request's module) and the fields that
//! PlanResourceChange's request gained after protocol 5. `v5` and `v6` expand the other
//! families' macros right after it, in the same module, so they use its helpers. The few real
//! differences (nested attributes, computed blocks, client capabilities, the prepared
//! configuration only protocol 5 returns) are written by hand in `v5.rs` and `v6.rs`; the
//! expansion calls them by name: `attribute_type_from_wire`, `block_computed_from_wire`,
//! `client_capabilities`, `prepared_config_from_wire`.

macro_rules! core_rpcs_wire {
    (
        get_provider_schema: $get_schema:ident,
        validate_provider_config: $validate_provider:ident,
        validate_resource_config: $validate_resource:ident,
        validate_data_resource_config: $validate_data:ident,
        configure_provider: $configure:ident,
        stop_provider: $stop:ident,
        plan_resource_change_since_5: [$($plan_since_5:ident),*] $(,)?
    ) => {
        use std::collections::BTreeMap;

        use schema_gen::tf;

        use crate::tfplugin::error::SchemaError;
        use crate::tfplugin::core_rpcs::{
            ApplyResourceChangeRequest, ApplyResourceChangeResponse, AttributePath, CallFunctionResponse,
            DeferredReason, Diagnostic, DynamicValue, FunctionError, GetFunctionsResponse, ImportResourceStateResponse,
            ImportedResource, PathStep, ProviderMetadata, ProviderSchemaResponse, RawState, ReadDataSourceResponse,
            PlanResourceChangeRequest, PlanResourceChangeResponse, ReadDataSourceRequest, ReadResourceRequest,
            ReadResourceResponse, ServerCapabilities, Severity, UpgradeResourceStateRequest,
            UpgradeResourceStateResponse, ValidateProviderConfigResponse,
        };

        pub(super) fn dynamic_value_to_wire(value: &DynamicValue) -> pb::DynamicValue {
            match value {
                DynamicValue::Msgpack(bytes) => pb::DynamicValue { msgpack: bytes.clone(), json: Vec::new() },
                DynamicValue::Json(bytes) => pb::DynamicValue { msgpack: Vec::new(), json: bytes.clone() },
            }
        }

        /// Terraform's rule: msgpack if present, else JSON if present, else null.
        pub(super) fn dynamic_value_from_wire(value: Option<pb::DynamicValue>) -> DynamicValue {
            match value {
                Some(value) if !value.msgpack.is_empty() => DynamicValue::Msgpack(value.msgpack),
                Some(value) if !value.json.is_empty() => DynamicValue::Json(value.json),
                _ => DynamicValue::null(),
            }
        }

        /// `ResourceIdentityData`: absent, or present with an empty value, means no identity.
        pub(super) fn identity_from_wire(identity: Option<pb::ResourceIdentityData>) -> Option<DynamicValue> {
            let data = identity?.identity_data?;
            (!data.msgpack.is_empty() || !data.json.is_empty()).then(|| dynamic_value_from_wire(Some(data)))
        }

        pub(super) fn identity_to_wire(identity: Option<&DynamicValue>) -> Option<pb::ResourceIdentityData> {
            identity.map(|value| pb::ResourceIdentityData { identity_data: Some(dynamic_value_to_wire(value)) })
        }

        pub(super) fn raw_state_to_wire(state: &RawState) -> pb::RawState {
            match state {
                RawState::Json(json) => pb::RawState { json: json.clone(), flatmap: Default::default() },
                RawState::Flatmap(map) => pb::RawState {
                    json: Vec::new(),
                    flatmap: map.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                },
            }
        }

        pub(super) fn diagnostics_from_wire(diagnostics: Vec<pb::Diagnostic>) -> Vec<Diagnostic> {
            diagnostics
                .into_iter()
                .map(|diagnostic| Diagnostic {
                    // INVALID (0) is treated as an error: a provider that fails to set the
                    // severity must not have its problem downgraded to a warning.
                    severity: if diagnostic.severity == pb::diagnostic::Severity::Warning as i32 {
                        Severity::Warning
                    } else {
                        Severity::Error
                    },
                    summary: diagnostic.summary,
                    detail: diagnostic.detail,
                    attribute: diagnostic.attribute.map(attribute_path_from_wire),
                })
                .collect()
        }

        pub(super) fn attribute_path_from_wire(path: pb::AttributePath) -> AttributePath {
            use pb::attribute_path::step::Selector;
            AttributePath {
                steps: path
                    .steps
                    .into_iter()
                    .filter_map(|step| match step.selector? {
                        Selector::AttributeName(name) => Some(PathStep::Attribute(name)),
                        Selector::ElementKeyString(key) => Some(PathStep::KeyString(key)),
                        Selector::ElementKeyInt(key) => Some(PathStep::KeyInt(key)),
                    })
                    .collect(),
            }
        }

        pub(super) fn server_capabilities_from_wire(
            capabilities: Option<pb::ServerCapabilities>,
        ) -> ServerCapabilities {
            let capabilities = capabilities.unwrap_or_default();
            ServerCapabilities {
                plan_destroy: capabilities.plan_destroy,
                get_provider_schema_optional: capabilities.get_provider_schema_optional,
                generate_resource_config: capabilities.generate_resource_config,
            }
        }

        pub(super) fn deferred_from_wire(deferred: Option<pb::Deferred>) -> Option<DeferredReason> {
            use pb::deferred::Reason;
            deferred.map(|deferred| match Reason::try_from(deferred.reason) {
                Ok(Reason::ResourceConfigUnknown) => DeferredReason::ResourceConfigUnknown,
                Ok(Reason::ProviderConfigUnknown) => DeferredReason::ProviderConfigUnknown,
                Ok(Reason::AbsentPrereq) => DeferredReason::AbsentPrereq,
                Ok(Reason::Unknown) | Err(_) => DeferredReason::Unknown,
            })
        }

        fn string_kind_from_wire(kind: i32) -> tf::StringKind {
            if kind == pb::StringKind::Markdown as i32 { tf::StringKind::Markdown } else { tf::StringKind::Plain }
        }

        fn type_from_wire(location: &str, bytes: &[u8]) -> Result<tf::Type, SchemaError> {
            tf::Type::from_json_bytes(bytes)
.map_err(|err| SchemaError::new(location, err))
        }

        pub(super) fn schema_from_wire(location: &str, schema: Option<pb::Schema>) -> Result<tf::Schema, SchemaError> {
            let schema = schema.unwrap_or_default();
            Ok(tf::Schema {
                version: schema.version,
                block: block_from_wire(location, schema.block.unwrap_or_default())?,
            })
        }

        fn block_from_wire(location: &str, block: pb::schema::Block) -> Result<tf::Block, SchemaError> {
            use pb::schema::nested_block::NestingMode;
            let computed = block_computed_from_wire(&block);
            let mut attributes = BTreeMap::new();
            for attribute in block.attributes {
                let attribute_location = format!("{location}.{}", attribute.name);
                let converted = attribute_from_wire(&attribute_location, &attribute)?;
                attributes.insert(attribute.name, converted);
            }
            let mut block_types = BTreeMap::new();
            for nested in block.block_types {
                let nested_location = format!("{location}.{}", nested.type_name);
                let nesting = match NestingMode::try_from(nested.nesting) {
                    Ok(NestingMode::Single) => tf::BlockNesting::Single,
                    Ok(NestingMode::Group) => tf::BlockNesting::Group,
                    Ok(NestingMode::List) => tf::BlockNesting::List,
                    Ok(NestingMode::Set) => tf::BlockNesting::Set,
                    Ok(NestingMode::Map) => tf::BlockNesting::Map,
                    Ok(NestingMode::Invalid) | Err(_) => {
                        return Err(SchemaError::new(&nested_location, format!("invalid nesting mode {}", nested.nesting)));
                    }
                };
                let converted = tf::NestedBlock {
                    nesting,
                    block: block_from_wire(&nested_location, nested.block.unwrap_or_default())?,
                    min_items: nested.min_items,
                    max_items: nested.max_items,
                };
                block_types.insert(nested.type_name, converted);
            }
            Ok(tf::Block {
                attributes,
                block_types,
                description: block.description,
                description_kind: string_kind_from_wire(block.description_kind),
                deprecated: block.deprecated,
                deprecation_message: block.deprecation_message,
                computed,
            })
        }

        fn attribute_from_wire(
            location: &str,
            attribute: &pb::schema::Attribute,
        ) -> Result<tf::Attribute, SchemaError> {
            Ok(tf::Attribute {
                ty: attribute_type_from_wire(location, attribute)?,
                description: attribute.description.clone(),
                description_kind: string_kind_from_wire(attribute.description_kind),
                required: attribute.required,
                optional: attribute.optional,
                computed: attribute.computed,
                sensitive: attribute.sensitive,
                deprecated: attribute.deprecated,
                deprecation_message: attribute.deprecation_message.clone(),
                write_only: attribute.write_only,
            })
        }

        fn parameter_from_wire(
            location: &str,
            parameter: pb::function::Parameter,
        ) -> Result<tf::Parameter, SchemaError> {
            Ok(tf::Parameter {
                r#type: type_from_wire(&format!("{location}({})", parameter.name), &parameter.r#type)?,
                name: parameter.name,
                description: parameter.description,
                description_kind: string_kind_from_wire(parameter.description_kind),
                allow_null: parameter.allow_null_value,
                allow_unknown: parameter.allow_unknown_values,
            })
        }

        pub(super) fn function_from_wire(name: &str, function: pb::Function) -> Result<tf::Function, SchemaError> {
            let location = format!("function {name}");
            let return_type = match &function.r#return {
                Some(ret) => type_from_wire(&format!("{location} return"), &ret.r#type)?,
                None => return Err(SchemaError::new(&location, "no return type")),
            };
            Ok(tf::Function {
                parameters: function
                    .parameters
                    .into_iter()
                    .map(|parameter| parameter_from_wire(&location, parameter))
                    .collect::<Result<_, _>>()?,
                variadic_parameter: function
                    .variadic_parameter
                    .map(|parameter| parameter_from_wire(&location, parameter))
                    .transpose()?,
                return_type,
                summary: function.summary,
                description: function.description,
                description_kind: string_kind_from_wire(function.description_kind),
                deprecation_message: function.deprecation_message,
            })
        }

        fn functions_from_wire(
            functions: std::collections::HashMap<String, pb::Function>,
        ) -> Result<BTreeMap<String, tf::Function>, SchemaError> {
            functions
                .into_iter()
                .map(|(name, function)| Ok((name.clone(), function_from_wire(&name, function)?)))
                .collect()
        }

        fn schemas_from_wire(
            kind: &str,
            schemas: std::collections::HashMap<String, pb::Schema>,
        ) -> Result<BTreeMap<String, tf::Schema>, SchemaError> {
            schemas
                .into_iter()
                .map(|(name, schema)| Ok((name.clone(), schema_from_wire(&format!("{kind} {name}"), Some(schema))?)))
                .collect()
        }

        pub(super) fn provider_schema_from_wire(
            response: pb::get_provider_schema::Response,
        ) -> Result<ProviderSchemaResponse, SchemaError> {
            let schema = tf::ProviderSchema {
                provider: schema_from_wire("provider", response.provider)?,
                provider_meta: response
                    .provider_meta
                    .map(|meta| schema_from_wire("provider_meta", Some(meta)))
                    .transpose()?,
                resources: schemas_from_wire("resource", response.resource_schemas)?,
                data_sources: schemas_from_wire("data source", response.data_source_schemas)?,
                ephemeral_resources: schemas_from_wire("ephemeral resource", response.ephemeral_resource_schemas)?,
                list_resources: schemas_from_wire("list resource", response.list_resource_schemas)?,
                functions: functions_from_wire(response.functions)?,
                actions: response
                    .action_schemas
                    .into_iter()
                    .map(|(name, action)| {
                        Ok((name.clone(), schema_from_wire(&format!("action {name}"), action.schema)?))
                    })
                    .collect::<Result<_, SchemaError>>()?,
            };
            Ok(ProviderSchemaResponse {
                schema,
                capabilities: server_capabilities_from_wire(response.server_capabilities),
                diagnostics: diagnostics_from_wire(response.diagnostics),
            })
        }

        pub(super) fn metadata_from_wire(response: pb::get_metadata::Response) -> ProviderMetadata {
            ProviderMetadata {
                capabilities: server_capabilities_from_wire(response.server_capabilities),
                resources: response.resources.into_iter().map(|r| r.type_name).collect(),
                data_sources: response.data_sources.into_iter().map(|d| d.type_name).collect(),
                ephemeral_resources: response.ephemeral_resources.into_iter().map(|e| e.type_name).collect(),
                functions: response.functions.into_iter().map(|f| f.name).collect(),
                diagnostics: diagnostics_from_wire(response.diagnostics),
            }
        }

        pub(super) fn get_functions_from_wire(
            response: pb::get_functions::Response,
        ) -> Result<GetFunctionsResponse, SchemaError> {
            Ok(GetFunctionsResponse {
                functions: functions_from_wire(response.functions)?,
                diagnostics: diagnostics_from_wire(response.diagnostics),
            })
        }

        pub(super) fn upgrade_resource_state_to_wire(
            request: &UpgradeResourceStateRequest,
        ) -> pb::upgrade_resource_state::Request {
            pb::upgrade_resource_state::Request {
                type_name: request.type_name.clone(),
                version: request.version,
                raw_state: Some(raw_state_to_wire(&request.raw_state)),
            }
        }

        pub(super) fn upgrade_resource_state_from_wire(
            response: pb::upgrade_resource_state::Response,
        ) -> UpgradeResourceStateResponse {
            UpgradeResourceStateResponse {
                upgraded_state: dynamic_value_from_wire(response.upgraded_state),
                diagnostics: diagnostics_from_wire(response.diagnostics),
            }
        }

        pub(super) fn read_resource_from_wire(response: pb::read_resource::Response) -> ReadResourceResponse {
            ReadResourceResponse {
                new_state: dynamic_value_from_wire(response.new_state),
                private: response.private,
                deferred: deferred_from_wire(response.deferred),
                diagnostics: diagnostics_from_wire(response.diagnostics),
                new_identity: identity_from_wire(response.new_identity),
            }
        }

        pub(super) fn apply_resource_change_to_wire(
            request: &ApplyResourceChangeRequest,
        ) -> pb::apply_resource_change::Request {
            pb::apply_resource_change::Request {
                type_name: request.type_name.clone(),
                prior_state: Some(dynamic_value_to_wire(&request.prior_state)),
                planned_state: Some(dynamic_value_to_wire(&request.planned_state)),
                config: Some(dynamic_value_to_wire(&request.config)),
                planned_private: request.planned_private.clone(),
                provider_meta: request.provider_meta.as_ref().map(dynamic_value_to_wire),
                planned_identity: identity_to_wire(request.planned_identity.as_ref()),
            }
        }

        pub(super) fn apply_resource_change_from_wire(
            response: pb::apply_resource_change::Response,
        ) -> ApplyResourceChangeResponse {
            ApplyResourceChangeResponse {
                new_state: dynamic_value_from_wire(response.new_state),
                private: response.private,
                legacy_type_system: response.legacy_type_system,
                diagnostics: diagnostics_from_wire(response.diagnostics),
                new_identity: identity_from_wire(response.new_identity),
            }
        }

        pub(super) fn import_resource_state_from_wire(
            response: pb::import_resource_state::Response,
        ) -> ImportResourceStateResponse {
            ImportResourceStateResponse {
                imported_resources: response
                    .imported_resources
                    .into_iter()
                    .map(|imported| ImportedResource {
                        type_name: imported.type_name,
                        state: dynamic_value_from_wire(imported.state),
                        private: imported.private,
                        identity: identity_from_wire(imported.identity),
                    })
                    .collect(),
                deferred: deferred_from_wire(response.deferred),
                diagnostics: diagnostics_from_wire(response.diagnostics),
            }
        }

        pub(super) fn read_data_source_from_wire(response: pb::read_data_source::Response) -> ReadDataSourceResponse {
            ReadDataSourceResponse {
                state: dynamic_value_from_wire(response.state),
                deferred: deferred_from_wire(response.deferred),
                diagnostics: diagnostics_from_wire(response.diagnostics),
            }
        }

        pub(super) fn call_function_from_wire(response: pb::call_function::Response) -> CallFunctionResponse {
            CallFunctionResponse {
                result: dynamic_value_from_wire(response.result),
                error: response
                    .error
                    .map(|error| FunctionError { text: error.text, argument: error.function_argument }),
            }
        }

        /// A protocol's generated client, its RPCs in terms of the domain types.
        #[derive(Clone)]
        pub(super) struct Client {
            rpc: pb::provider_client::ProviderClient<Channel>,
        }

        impl Client {
            pub(super) fn new(channel: Channel) -> Client {
                let rpc = pb::provider_client::ProviderClient::new(channel)
                    .max_decoding_message_size(tfbridge_proto::MAX_MESSAGE_SIZE)
                    .max_encoding_message_size(tfbridge_proto::MAX_MESSAGE_SIZE);
                Client { rpc }
            }

            pub(super) async fn get_provider_schema(&self) -> Result<ProviderSchemaResponse, RpcFailure> {
                let response = self.rpc.clone().$get_schema(pb::get_provider_schema::Request {}).await?;
                Ok(provider_schema_from_wire(response.into_inner())?)
            }

            pub(super) async fn get_metadata(&self) -> Result<ProviderMetadata, RpcFailure> {
                let response = self.rpc.clone().get_metadata(pb::get_metadata::Request {}).await?;
                Ok(metadata_from_wire(response.into_inner()))
            }

            crate::tfplugin::wire_method::validate_config_method!(validate_resource_config => $validate_resource, client_capabilities: client_capabilities());

            crate::tfplugin::wire_method::validate_config_method!(validate_data_resource_config => $validate_data);

            pub(super) async fn upgrade_resource_state(
                &self,
                request: &UpgradeResourceStateRequest,
            ) -> Result<UpgradeResourceStateResponse, RpcFailure> {
                let response = self.rpc.clone().upgrade_resource_state(upgrade_resource_state_to_wire(request)).await?;
                Ok(upgrade_resource_state_from_wire(response.into_inner()))
            }

            pub(super) async fn configure_provider(
                &self,
                terraform_version: &str,
                config: &DynamicValue,
            ) -> Result<Vec<Diagnostic>, RpcFailure> {
                let request = pb::$configure::Request {
                    terraform_version: terraform_version.to_owned(),
                    config: Some(dynamic_value_to_wire(config)),
                    client_capabilities: client_capabilities(),
                };
                let response = self.rpc.clone().$configure(request).await?.into_inner();
                Ok(diagnostics_from_wire(response.diagnostics))
            }

            pub(super) async fn read_resource(
                &self,
                request: &ReadResourceRequest,
            ) -> Result<ReadResourceResponse, RpcFailure> {
                let request = pb::read_resource::Request {
                    type_name: request.type_name.clone(),
                    current_state: Some(dynamic_value_to_wire(&request.current_state)),
                    private: request.private.clone(),
                    provider_meta: request.provider_meta.as_ref().map(dynamic_value_to_wire),
                    client_capabilities: client_capabilities(),
                    current_identity: identity_to_wire(request.current_identity.as_ref()),
                };
                let response = self.rpc.clone().read_resource(request).await?;
                Ok(read_resource_from_wire(response.into_inner()))
            }

            pub(super) async fn plan_resource_change(
                &self,
                request: &PlanResourceChangeRequest,
            ) -> Result<PlanResourceChangeResponse, RpcFailure> {
                let request = pb::plan_resource_change::Request {
                    type_name: request.type_name.clone(),
                    prior_state: Some(dynamic_value_to_wire(&request.prior_state)),
                    proposed_new_state: Some(dynamic_value_to_wire(&request.proposed_new_state)),
                    config: Some(dynamic_value_to_wire(&request.config)),
                    prior_private: request.prior_private.clone(),
                    provider_meta: request.provider_meta.as_ref().map(dynamic_value_to_wire),
                    client_capabilities: client_capabilities(),
                    prior_identity: identity_to_wire(request.prior_identity.as_ref()),
                    $($plan_since_5: request.$plan_since_5.clone(),)*
                };
                let response = self.rpc.clone().plan_resource_change(request).await?.into_inner();
                Ok(PlanResourceChangeResponse {
                    planned_state: dynamic_value_from_wire(response.planned_state),
                    requires_replace: response.requires_replace.into_iter().map(attribute_path_from_wire).collect(),
                    planned_private: response.planned_private,
                    legacy_type_system: response.legacy_type_system,
                    deferred: deferred_from_wire(response.deferred),
                    diagnostics: diagnostics_from_wire(response.diagnostics),
                    planned_identity: identity_from_wire(response.planned_identity),
                })
            }

            pub(super) async fn apply_resource_change(
                &self,
                request: &ApplyResourceChangeRequest,
            ) -> Result<ApplyResourceChangeResponse, RpcFailure> {
                let response = self.rpc.clone().apply_resource_change(apply_resource_change_to_wire(request)).await?;
                Ok(apply_resource_change_from_wire(response.into_inner()))
            }

            pub(super) async fn import_resource_state(
                &self,
                type_name: &str,
                id: &str,
                identity: Option<&DynamicValue>,
            ) -> Result<ImportResourceStateResponse, RpcFailure> {
                let request = pb::import_resource_state::Request {
                    type_name: type_name.to_owned(),
                    id: id.to_owned(),
                    client_capabilities: client_capabilities(),
                    identity: identity_to_wire(identity),
                };
                let response = self.rpc.clone().import_resource_state(request).await?;
                Ok(import_resource_state_from_wire(response.into_inner()))
            }

            pub(super) async fn read_data_source(
                &self,
                request: &ReadDataSourceRequest,
            ) -> Result<ReadDataSourceResponse, RpcFailure> {
                let request = pb::read_data_source::Request {
                    type_name: request.type_name.clone(),
                    config: Some(dynamic_value_to_wire(&request.config)),
                    provider_meta: request.provider_meta.as_ref().map(dynamic_value_to_wire),
                    client_capabilities: client_capabilities(),
                };
                let response = self.rpc.clone().read_data_source(request).await?;
                Ok(read_data_source_from_wire(response.into_inner()))
            }

            pub(super) async fn get_functions(&self) -> Result<GetFunctionsResponse, RpcFailure> {
                let response = self.rpc.clone().get_functions(pb::get_functions::Request {}).await?;
                Ok(get_functions_from_wire(response.into_inner())?)
            }

            pub(super) async fn call_function(
                &self,
                name: &str,
                arguments: &[DynamicValue],
            ) -> Result<CallFunctionResponse, RpcFailure> {
                let request = pb::call_function::Request {
                    name: name.to_owned(),
                    arguments: arguments.iter().map(dynamic_value_to_wire).collect(),
                };
                let response = self.rpc.clone().call_function(request).await?;
                Ok(call_function_from_wire(response.into_inner()))
            }

            pub(super) async fn validate_provider_config(
                &self,
                config: &DynamicValue,
            ) -> Result<ValidateProviderConfigResponse, RpcFailure> {
                let request = pb::$validate_provider::Request { config: Some(dynamic_value_to_wire(config)) };
                let response = self.rpc.clone().$validate_provider(request).await?.into_inner();
                Ok(ValidateProviderConfigResponse {
                    prepared_config: prepared_config_from_wire(&response),
                    diagnostics: diagnostics_from_wire(response.diagnostics),
                })
            }

            /// The provider's error text; empty means it accepted the request.
            pub(super) async fn stop_provider(&self) -> Result<String, RpcFailure> {
                let response = self.rpc.clone().$stop(pb::$stop::Request {}).await?;
                Ok(response.into_inner().error)
            }
        }

    };
}

pub(crate) use core_rpcs_wire;
