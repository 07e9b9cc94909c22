//! GenerateResourceConfig (Terraform 1.14): the configuration that would manage an imported
//! object, as the provider itself writes it for `terraform plan -generate-config-out`.

use super::managed_resource::Resource;
use super::{Warned, decode, unlogged};
use crate::cty::Value;
use crate::lifecycle::support::error::{LifecycleError, PROVIDER_BUG_SUFFIX, Rpc};

impl Resource<'_> {
    /// The provider's configuration for `state`, when it declares the
    /// `generate_resource_config` capability; `None` otherwise (or when it answers
    /// `Unimplemented` after all: an older provider), and the caller derives the inputs
    /// itself. Error diagnostics fail it, as they fail Terraform's config generation.
    pub async fn generate_resource_config(&self, state: &Value) -> Result<Warned<Option<Value>>, LifecycleError> {
        let none = || Warned { value: None, warnings: super::Warnings::default() };
        if !self.connection.capabilities.generate_resource_config {
            return Ok(none());
        }
        let rpc = Rpc::GenerateResourceConfig;
        let encoded = self.encode("the imported state", state)?;
        let response = unlogged(&self.subject, rpc, self.tf_name, "state", async {
            self.connection.client.ready().await?.generate_resource_config(self.tf_name, &encoded).await
        })
        .await?;
        let Some(response) = response.supported() else {
            tracing::debug!(urn = %self.urn, "{rpc} is unimplemented; deriving the inputs instead");
            return Ok(none());
        };
        let warnings = self.diagnostics(&response.diagnostics).fail_on_errors(&self.subject, rpc)?;
        let config = decode(&response.config, self.ty()).map_err(|err| {
            self.bug(
                "Provider produced invalid configuration",
                vec![format!("{rpc} returned an invalid value for {}: {err}. {PROVIDER_BUG_SUFFIX}", self.urn)],
            )
        })?;
        if config.is_null() || !config.is_wholly_known() {
            return Err(self.bug(
                "Provider produced invalid configuration",
                vec![format!(
                    "{rpc} returned a null or partly unknown configuration for {}. {PROVIDER_BUG_SUFFIX}",
                    self.urn
                )],
            ));
        }
        Ok(Warned { value: Some(config), warnings })
    }
}
