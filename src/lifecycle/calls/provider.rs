//! The calls about the provider as a whole, its data sources and its functions.

use std::collections::BTreeMap;

use schema_gen::tf::{IdentitySchema, ProviderSchema, Type};
use schema_gen::translate::PropertyNames;

use super::Connection;
use super::handles::{Bound, DataSource};
use super::{Client, Diagnostics, Warned, call_error, decode, encode};
use crate::cty::{self, Value};
use crate::lifecycle::support::error::ParameterizeError;
use crate::lifecycle::support::error::{LifecycleError, PROVIDER_BUG_SUFFIX, Rpc, Subject};

use super::debug_log::{self, Call, Request};
use crate::tfplugin::core_rpcs::{Diagnostic, DynamicValue, ReadDataSourceRequest, ServerCapabilities, Severity};

/// The version string Terraform providers are told they run under: the Go
/// implementation's, so providers that gate features on it behave the same.
pub const TERRAFORM_VERSION: &str = "1.0.0+pulumi-terraform-bridge";

impl Client {
    /// GetProviderSchema, once at launch. Error diagnostics fail it.
    pub(in crate::lifecycle) async fn get_provider_schema(
        &self,
    ) -> Result<(ProviderSchema, ServerCapabilities), ParameterizeError> {
        let response = debug_log::logged(Call::provider(Rpc::GetProviderSchema), Request::Empty, async {
            self.ready().await?.get_provider_schema().await
        })
        .await?;
        if let Some(error) = schema_errors(&response.diagnostics) {
            return Err(error);
        }
        Ok((response.schema, response.capabilities))
    }

    /// GetResourceIdentitySchemas, once at launch, after GetProviderSchema as Terraform
    /// calls it. A provider older than protocol 5.9/6.9 answers `Unimplemented`: no
    /// identities, as Terraform treats it. Error diagnostics fail it.
    pub(in crate::lifecycle) async fn get_resource_identity_schemas(
        &self,
    ) -> Result<BTreeMap<String, IdentitySchema>, ParameterizeError> {
        let Some(response) = debug_log::not_logged(Call::provider(Rpc::GetResourceIdentitySchemas), None, async {
            self.ready().await?.get_resource_identity_schemas().await
        })
        .await?
        .supported() else {
            return Ok(BTreeMap::new());
        };
        if let Some(error) = schema_errors(&response.diagnostics) {
            return Err(error);
        }
        Ok(response.schemas)
    }

    /// The plugin protocol's major version the provider speaks, once launched.
    pub(in crate::lifecycle) fn protocol_number(&self) -> Option<u32> {
        self.launched().map(|client| client.protocol().number())
    }
}

/// The error diagnostics of a schema answer, which fail start-up.
fn schema_errors(diagnostics: &[Diagnostic]) -> Option<ParameterizeError> {
    let errors: Vec<String> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| if d.detail.is_empty() { d.summary.clone() } else { format!("{}: {}", d.summary, d.detail) })
        .collect();
    (!errors.is_empty()).then(|| ParameterizeError::SchemaDiagnostics(errors.join("; ")))
}

/// What a function call answered.
pub enum FunctionResult {
    /// The result, of the function's return type.
    Value(Value),
    /// The function's own error, about the argument at this position when it says so.
    Error { argument: Option<usize>, text: String },
}

impl Connection {
    /// `provider_meta`: sent (as null) only when the provider declares a schema for it.
    pub(super) fn provider_meta(&self) -> Option<DynamicValue> {
        self.schema.provider_meta().map(|_| DynamicValue::null())
    }

    /// ValidateProviderConfig: the provider's diagnostics, errors included (CheckConfig
    /// turns them into failures).
    pub(in crate::lifecycle) async fn validate_provider_config(
        &self,
        subject: &Subject,
        names: &PropertyNames,
        config: &Value,
    ) -> Result<Diagnostics, LifecycleError> {
        let block = &self.schema.provider().block;
        let encoded = encode(subject, "the configuration", config, &block.implied_type())?;
        // The engine sends CheckConfig the settings without their secret marks (a secret stack
        // setting arrives raw), so nothing here tells which are secret: every setting's value
        // is redacted. ConfigureProvider's entry, whose settings carry their marks, shows them.
        let every_setting: Vec<cty::Path> =
            block.attributes.keys().chain(block.block_types.keys()).map(|name| cty::Path::root().attr(name)).collect();
        let response = debug_log::logged(
            Call::of_provider(Rpc::ValidateProviderConfig, block, &every_setting),
            Request::Config(config),
            async { self.client.ready().await?.validate_provider_config(&encoded).await },
        )
        .await
        .map_err(call_error(subject, Rpc::ValidateProviderConfig))?;
        Ok(Diagnostics::new(block, names, &response.diagnostics))
    }

    /// ConfigureProvider; error diagnostics fail it. `secrets`: where `config` holds Pulumi
    /// secrets, for the gRPC debug log.
    pub(in crate::lifecycle) async fn configure_provider(
        &self,
        subject: &Subject,
        names: &PropertyNames,
        config: &Value,
        secrets: &[cty::Path],
    ) -> Result<Warned<()>, LifecycleError> {
        let block = &self.schema.provider().block;
        let encoded = encode(subject, "the configuration", config, &block.implied_type())?;
        let rpc = Rpc::ConfigureProvider;
        let diagnostics = debug_log::logged(
            Call::of_provider(rpc, block, secrets),
            Request::Configure { terraform_version: TERRAFORM_VERSION, config },
            async { self.client.ready().await?.configure_provider(TERRAFORM_VERSION, &encoded).await },
        )
        .await
        .map_err(call_error(subject, rpc))?;
        let warnings = Diagnostics::new(block, names, &diagnostics).fail_on_errors(subject, rpc)?;
        Ok(Warned { value: (), warnings })
    }

    /// CallFunction with wholly known arguments, each with its parameter's type.
    pub(in crate::lifecycle) async fn call_function(
        &self,
        subject: &Subject,
        tf_name: &str,
        arguments: &[(Value, &Type)],
        return_type: &Type,
    ) -> Result<FunctionResult, LifecycleError> {
        let encoded = arguments
            .iter()
            .map(|(value, ty)| encode(subject, "an argument", value, ty))
            .collect::<Result<Vec<_>, _>>()?;
        // Function parameters carry no sensitivity in the schema, and a program may pass
        // secrets: the log shows how many arguments there were, never their values.
        let response =
            debug_log::logged(Call::named(Rpc::CallFunction, tf_name), Request::Arguments(encoded.len()), async {
                self.client.ready().await?.call_function(tf_name, &encoded).await
            })
            .await
            .map_err(call_error(subject, Rpc::CallFunction))?;
        let Some(response) = response.supported() else {
            return Err(LifecycleError::ProviderBug {
                subject: subject.clone(),
                summary: "Provider does not support CallFunction",
                problems: vec![format!("its schema declares the function {tf_name}, which therefore cannot be called")],
            });
        };
        if let Some(error) = response.error {
            let argument = error.argument.and_then(|idx| usize::try_from(idx).ok());
            return Ok(FunctionResult::Error { argument, text: error.text });
        }
        let result = decode(&response.result, return_type).map_err(|err| LifecycleError::ProviderBug {
            subject: subject.clone(),
            summary: "Provider produced invalid object",
            problems: vec![format!("{tf_name} returned an invalid result: {err}. {PROVIDER_BUG_SUFFIX}")],
        })?;
        Ok(FunctionResult::Value(result))
    }
}

impl DataSource<'_> {
    /// ValidateDataResourceConfig: the provider's diagnostics, errors included (Invoke turns
    /// them into failures).
    pub(in crate::lifecycle) async fn validate_data_resource_config(
        &self,
        config: &Value,
        secrets: &[cty::Path],
    ) -> Result<Diagnostics, LifecycleError> {
        let Bound { connection, tf_name, block, names, subject } = &self.0;
        let encoded = encode(subject, "the arguments", config, &block.implied_type())?;
        let diagnostics = debug_log::logged(
            Call::of_type(Rpc::ValidateDataResourceConfig, tf_name, block, secrets),
            Request::Config(config),
            async { connection.client.ready().await?.validate_data_resource_config(tf_name, &encoded).await },
        )
        .await
        .map_err(call_error(subject, Rpc::ValidateDataResourceConfig))?;
        Ok(Diagnostics::new(block, names, &diagnostics))
    }

    /// ReadDataSource with a wholly known configuration, checked as Terraform checks it:
    /// the result must be a known, non-null object.
    pub(in crate::lifecycle) async fn read_data_source(
        &self,
        config: &Value,
        secrets: &[cty::Path],
    ) -> Result<Warned<Value>, LifecycleError> {
        let Bound { connection, tf_name, block, names, subject } = &self.0;
        let ty = block.implied_type();
        let rpc = Rpc::ReadDataSource;
        let request = ReadDataSourceRequest {
            type_name: (*tf_name).to_owned(),
            config: encode(subject, "the arguments", config, &ty)?,
            provider_meta: connection.provider_meta(),
        };
        let response = debug_log::logged(Call::of_type(rpc, tf_name, block, secrets), Request::Config(config), async {
            connection.client.ready().await?.read_data_source(&request).await
        })
        .await
        .map_err(call_error(subject, rpc))?;
        let warnings = Diagnostics::new(block, names, &response.diagnostics).fail_on_errors(subject, rpc)?;
        let bug = |summary: &'static str, problem: String| LifecycleError::ProviderBug {
            subject: subject.clone(),
            summary,
            problems: vec![format!("{problem}. {PROVIDER_BUG_SUFFIX}")],
        };
        warnings.checked(|_| {
            let state = decode(&response.state, &ty).map_err(|err| {
                bug("Provider produced invalid object", format!("{rpc} returned an invalid value: {err}"))
            })?;
            if state.is_null() {
                return Err(bug("Provider produced null object", format!("{tf_name} returned null")));
            }
            if !state.is_wholly_known() {
                return Err(bug(
                    "Provider produced invalid object",
                    format!("{tf_name} returned a value that is not wholly known"),
                ));
            }
            Ok(state)
        })
    }
}
