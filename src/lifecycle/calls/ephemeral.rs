//! The calls of an ephemeral resource: ValidateEphemeralResourceConfig,
//! OpenEphemeralResource, RenewEphemeralResource and CloseEphemeralResource.
//!
//! Results are never quoted in messages: an ephemeral value is a secret by nature.

use std::time::SystemTime;

use schema_gen::tf::Block;
use schema_gen::translate::PropertyNames;

use super::{Diagnostics, Warned, decode, encode, unlogged};
use crate::cty::Value;
use crate::lifecycle::ephemeral::open_result_problems;
use crate::lifecycle::error::{LifecycleError, Operation, PROVIDER_BUG_SUFFIX, Subject};
use crate::lifecycle::parameterized::Parameterized;

/// An open ephemeral resource, as OpenEphemeralResource answered.
pub struct Opened {
    pub result: Value,
    pub private: Option<Vec<u8>>,
    pub renew_at: Option<SystemTime>,
}

/// What RenewEphemeralResource answered.
pub struct Renewed {
    pub private: Option<Vec<u8>>,
    pub renew_at: Option<SystemTime>,
}

impl Parameterized {
    fn ephemeral_block(&self, tf_name: &str) -> &Block {
        &self.schema.ephemeral_resources[tf_name].block
    }

    /// ValidateEphemeralResourceConfig: the provider's diagnostics, errors included (Invoke
    /// turns them into failures).
    pub(in crate::lifecycle) async fn validate_ephemeral_resource_config(
        &self,
        subject: &Subject,
        tf_name: &str,
        names: &PropertyNames,
        config: &Value,
    ) -> Result<Diagnostics, LifecycleError> {
        let block = self.ephemeral_block(tf_name);
        let encoded = encode(subject, "the arguments", config, &block.implied_type())?;
        let diagnostics = unlogged(
            subject,
            Operation::ValidateEphemeralResourceConfig,
            tf_name,
            "config",
            self.client.0.validate_ephemeral_resource_config(tf_name, &encoded),
        )
        .await?;
        Ok(Diagnostics::new(block, names, &diagnostics))
    }

    /// OpenEphemeralResource with a wholly known configuration, checked as Terraform checks
    /// it. An open whose answer fails the checks is closed again before the error returns,
    /// so that nothing stays open that nobody tracks.
    pub(in crate::lifecycle) async fn open_ephemeral_resource(
        &self,
        subject: &Subject,
        tf_name: &str,
        names: &PropertyNames,
        config: &Value,
    ) -> Result<Warned<Opened>, LifecycleError> {
        let block = self.ephemeral_block(tf_name);
        let ty = block.implied_type();
        let operation = Operation::OpenEphemeralResource;
        let encoded = encode(subject, "the arguments", config, &ty)?;
        let response =
            unlogged(subject, operation, tf_name, "config", self.client.0.open_ephemeral_resource(tf_name, &encoded))
                .await?;
        // Terraform opens nothing when the open failed, so there is nothing to close then.
        let warnings = Diagnostics::new(block, names, &response.diagnostics).fail_on_errors(subject, operation)?;
        let mut problems = Vec::new();
        if response.deferred.is_some() {
            problems.push(format!(
                "the provider deferred opening {tf_name}, which the bridge does not allow (as Terraform does not \
                 without -allow-deferral)"
            ));
        }
        let result = match decode(&response.result, &ty) {
            Ok(result) => {
                problems.extend(open_result_problems(block, config, &result));
                result
            }
            Err(err) => {
                problems.push(format!("the result cannot be read: {err}"));
                Value::null(ty)
            }
        };
        if !problems.is_empty() {
            let closed = self.close_ephemeral_resource(subject, tf_name, response.private.as_deref()).await;
            let mut problems: Vec<String> = problems
                .into_iter()
                .map(|problem| {
                    format!(
                        "The provider for {tf_name} produced an inconsistent result: {problem}. {PROVIDER_BUG_SUFFIX}"
                    )
                })
                .collect();
            if let Err(err) = closed {
                problems.push(format!("closing it again failed too: {err}"));
            }
            return Err(LifecycleError::ProviderBug {
                subject: subject.clone(),
                summary: "Provider produced invalid ephemeral resource instance",
                problems,
            });
        }
        let opened = Opened { result, private: response.private, renew_at: response.renew_at };
        Ok(Warned { value: opened, warnings })
    }

    /// RenewEphemeralResource; error diagnostics fail it.
    pub(in crate::lifecycle) async fn renew_ephemeral_resource(
        &self,
        subject: &Subject,
        tf_name: &str,
        private: Option<&[u8]>,
    ) -> Result<Warned<Renewed>, LifecycleError> {
        let operation = Operation::RenewEphemeralResource;
        let response =
            unlogged(subject, operation, tf_name, "private", self.client.0.renew_ephemeral_resource(tf_name, private))
                .await?;
        let block = self.ephemeral_block(tf_name);
        let names = PropertyNames::of_block(block);
        let warnings = Diagnostics::new(block, &names, &response.diagnostics).fail_on_errors(subject, operation)?;
        Ok(Warned { value: Renewed { private: response.private, renew_at: response.renew_at }, warnings })
    }

    /// CloseEphemeralResource; error diagnostics fail it.
    pub(in crate::lifecycle) async fn close_ephemeral_resource(
        &self,
        subject: &Subject,
        tf_name: &str,
        private: Option<&[u8]>,
    ) -> Result<Warned<()>, LifecycleError> {
        let operation = Operation::CloseEphemeralResource;
        let diagnostics =
            unlogged(subject, operation, tf_name, "private", self.client.0.close_ephemeral_resource(tf_name, private))
                .await?;
        let block = self.ephemeral_block(tf_name);
        let names = PropertyNames::of_block(block);
        let warnings = Diagnostics::new(block, &names, &diagnostics).fail_on_errors(subject, operation)?;
        Ok(Warned { value: (), warnings })
    }
}
