//! The calls of an action (Terraform 1.14): ValidateActionConfig, PlanAction and
//! InvokeAction, whose events stream back while it runs.

use super::handles::{Action, Bound};
use super::{Diagnostics, Warned, call_error, encode};
use crate::cty::Value;
use crate::lifecycle::support::error::{LifecycleError, PROVIDER_BUG_SUFFIX, Rpc};
use crate::tfplugin::actions::ActionEvent;
use crate::tfplugin::core_rpcs::{DeferredReason, Support};

impl Action<'_> {
    /// The error for an action RPC the provider answered `Unimplemented`: it predates
    /// Terraform 1.14's actions, although its schema declares one.
    fn unsupported(&self, rpc: Rpc) -> LifecycleError {
        let Bound { connection, tf_name, subject, .. } = &self.0;
        LifecycleError::ProviderBug {
            subject: subject.clone(),
            summary: "Provider does not support actions",
            problems: vec![format!(
                "provider {:?} answered {rpc} with Unimplemented (it is older than Terraform 1.14's \
                 actions), although its schema declares the action {tf_name}",
                connection.display_name()
            )],
        }
    }

    /// ValidateActionConfig: the provider's diagnostics, errors included (the caller turns
    /// them into failures on the arguments).
    pub(in crate::lifecycle) async fn validate_action_config(
        &self,
        config: &Value,
    ) -> Result<Diagnostics, LifecycleError> {
        let Bound { connection, tf_name, block, names, subject } = &self.0;
        let rpc = Rpc::ValidateActionConfig;
        let encoded = encode(subject, "the action configuration", config, &block.implied_type())?;
        let response = self
            .0
            .unlogged(rpc, "config", async {
                connection.client.ready().await?.validate_action_config(tf_name, &encoded).await
            })
            .await?;
        match response {
            Support::Supported(diagnostics) => Ok(Diagnostics::new(block, names, &diagnostics)),
            Support::Unsupported => Err(self.unsupported(rpc)),
        }
    }

    /// PlanAction; error diagnostics fail it. The answer is the deferral the provider asked
    /// for, if any.
    pub(in crate::lifecycle) async fn plan_action(
        &self,
        config: &Value,
    ) -> Result<Warned<Option<DeferredReason>>, LifecycleError> {
        let Bound { connection, tf_name, block, names, subject } = &self.0;
        let rpc = Rpc::PlanAction;
        let encoded = encode(subject, "the action configuration", config, &block.implied_type())?;
        let response = self
            .0
            .unlogged(rpc, "config", async { connection.client.ready().await?.plan_action(tf_name, &encoded).await })
            .await?;
        let Some(response) = response.supported() else {
            return Err(self.unsupported(rpc));
        };
        let warnings = Diagnostics::new(block, names, &response.diagnostics).fail_on_errors(subject, rpc)?;
        Ok(Warned { value: response.deferred, warnings })
    }

    /// InvokeAction with a wholly known configuration: every progress message goes to
    /// `progress` as it arrives; the final event's error diagnostics fail the action.
    pub(in crate::lifecycle) async fn invoke_action(
        &self,
        config: &Value,
        progress: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<Warned<()>, LifecycleError> {
        let Bound { connection, tf_name, block, names, subject } = &self.0;
        let rpc = Rpc::InvokeAction;
        let encoded = encode(subject, "the action configuration", config, &block.implied_type())?;
        let events = self
            .0
            .unlogged(rpc, "config", async { connection.client.ready().await?.invoke_action(tf_name, &encoded).await })
            .await?;
        let Some(mut events) = events.supported() else {
            return Err(self.unsupported(rpc));
        };
        let mut n_events = 0usize;
        loop {
            match events.next().await.map_err(call_error(subject, rpc))? {
                Some(ActionEvent::Progress(message)) => {
                    n_events += 1;
                    progress(&message);
                }
                Some(ActionEvent::Completed(diagnostics)) => {
                    let warnings = Diagnostics::new(block, names, &diagnostics).fail_on_errors(subject, rpc)?;
                    return Ok(Warned { value: (), warnings });
                }
                None => {
                    // Terraform's words when there were no events at all; the framework always
                    // ends with a Completed event, so a stream without one is broken too.
                    let problem = if n_events == 0 {
                        "Provider response did not include any events".to_owned()
                    } else {
                        format!(
                            "the {rpc} stream of {tf_name} ended after {n_events} progress events without a Completed event"
                        )
                    };
                    return Err(LifecycleError::ProviderBug {
                        subject: subject.clone(),
                        summary: "Provider return invalid response",
                        problems: vec![format!("{problem}. {PROVIDER_BUG_SUFFIX}")],
                    });
                }
            }
        }
    }
}
