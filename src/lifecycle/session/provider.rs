//! The provider-configuration operations of a [`Session`]: CheckConfig, DiffConfig,
//! Configure, and the provider resource's `terraformConfig` method, which answers with the
//! configuration last given to CheckConfig or Configure (remembered here).

use super::Session;
use crate::lifecycle::operations::interface::{Checked, Diffed};
use crate::lifecycle::operations::provider_config;
use crate::lifecycle::operations::terraform_config;
use crate::lifecycle::support::error::LifecycleError;
use crate::property::PropertyMap;

/// CheckConfig or Configure of the provider resource `urn`.
#[derive(Clone, Debug, Default)]
pub struct ConfigureRequest {
    pub urn: String,
    /// The settings: CheckConfig's news, Configure's args.
    pub config: PropertyMap,
}

/// DiffConfig: the provider configuration stored (`olds`: the old inputs when the engine
/// sends them) against the new one.
#[derive(Clone, Debug, Default)]
pub struct DiffConfigRequest {
    pub olds: PropertyMap,
    pub news: PropertyMap,
}

impl Session {
    /// CheckConfig; its inputs are remembered for `terraformConfig`.
    pub async fn check_config(&self, request: ConfigureRequest) -> Result<Checked, LifecycleError> {
        let checked = provider_config::check_config(&self.connection, &request.urn, &request.config).await?;
        self.remember_config(&checked.inputs);
        Ok(checked)
    }

    /// DiffConfig: which settings changed.
    pub fn diff_config(&self, request: DiffConfigRequest) -> Diffed {
        provider_config::diff_config(&self.connection, &request.olds, &request.news)
    }

    /// Configure; its settings are remembered for `terraformConfig`. Returns the
    /// provider's warnings.
    pub async fn configure(&self, request: ConfigureRequest) -> Result<Vec<String>, LifecycleError> {
        self.remember_config(&request.config);
        provider_config::configure(&self.connection, &request.urn, &request.config).await
    }

    /// The `terraformConfig` method of the provider resource `urn`.
    pub fn terraform_config(&self, urn: &str) -> Result<PropertyMap, LifecycleError> {
        let config = self.last_config.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone();
        terraform_config::terraform_config(&self.connection, urn, &config)
    }

    fn remember_config(&self, config: &PropertyMap) {
        *self.last_config.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = config.clone();
    }
}
