//! The calls of an ephemeral resource: ValidateEphemeralResourceConfig,
//! OpenEphemeralResource, RenewEphemeralResource and CloseEphemeralResource.
//!
//! Results are never quoted in messages: an ephemeral value is a secret by nature.

use std::time::SystemTime;

use schema_gen::tf::Block;

use super::handles::{Bound, EphemeralResource};
use super::{Diagnostics, Warned, decode, encode};
use crate::cty::{self, Value};
use crate::lifecycle::support::error::{LifecycleError, PROVIDER_BUG_SUFFIX, Rpc};

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

impl EphemeralResource<'_> {
    /// ValidateEphemeralResourceConfig: the provider's diagnostics, errors included (Invoke
    /// turns them into failures).
    pub(in crate::lifecycle) async fn validate_ephemeral_resource_config(
        &self,
        config: &Value,
    ) -> Result<Diagnostics, LifecycleError> {
        let Bound { connection, tf_name, block, names, subject } = &self.0;
        let encoded = encode(subject, "the arguments", config, &block.implied_type())?;
        let diagnostics = self
            .0
            .unlogged(Rpc::ValidateEphemeralResourceConfig, "config", async {
                connection.client.ready().await?.validate_ephemeral_resource_config(tf_name, &encoded).await
            })
            .await?;
        Ok(Diagnostics::new(block, names, &diagnostics))
    }

    /// OpenEphemeralResource with a wholly known configuration, checked as Terraform checks
    /// it. An open whose answer fails the checks is closed again before the error returns,
    /// so that nothing stays open that nobody tracks.
    pub(in crate::lifecycle) async fn open_ephemeral_resource(
        &self,
        config: &Value,
    ) -> Result<Warned<Opened>, LifecycleError> {
        let Bound { connection, tf_name, block, names, subject } = &self.0;
        let ty = block.implied_type();
        let rpc = Rpc::OpenEphemeralResource;
        let encoded = encode(subject, "the arguments", config, &ty)?;
        let response = self
            .0
            .unlogged(rpc, "config", async {
                connection.client.ready().await?.open_ephemeral_resource(tf_name, &encoded).await
            })
            .await?;
        // Terraform opens nothing when the open failed, so there is nothing to close then.
        let warnings = Diagnostics::new(block, names, &response.diagnostics).fail_on_errors(subject, rpc)?;
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
            let closed = self.close_ephemeral_resource(response.private.as_deref()).await;
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
        private: Option<&[u8]>,
    ) -> Result<Warned<Renewed>, LifecycleError> {
        let Bound { connection, tf_name, block, names, subject } = &self.0;
        let rpc = Rpc::RenewEphemeralResource;
        let response = self
            .0
            .unlogged(rpc, "private", async {
                connection.client.ready().await?.renew_ephemeral_resource(tf_name, private).await
            })
            .await?;
        let warnings = Diagnostics::new(block, names, &response.diagnostics).fail_on_errors(subject, rpc)?;
        Ok(Warned { value: Renewed { private: response.private, renew_at: response.renew_at }, warnings })
    }

    /// CloseEphemeralResource; error diagnostics fail it.
    pub(in crate::lifecycle) async fn close_ephemeral_resource(
        &self,
        private: Option<&[u8]>,
    ) -> Result<Warned<()>, LifecycleError> {
        let Bound { connection, tf_name, block, names, subject } = &self.0;
        let rpc = Rpc::CloseEphemeralResource;
        let diagnostics = self
            .0
            .unlogged(rpc, "private", async {
                connection.client.ready().await?.close_ephemeral_resource(tf_name, private).await
            })
            .await?;
        let warnings = Diagnostics::new(block, names, &diagnostics).fail_on_errors(subject, rpc)?;
        Ok(Warned { value: (), warnings })
    }
}

/// What is wrong with an open's result, as Terraform checks it (a plan from a null prior),
/// naming paths only: the values are secrets.
pub fn open_result_problems(block: &Block, config: &Value, result: &Value) -> Vec<String> {
    if result.is_null() {
        return vec!["the result is null".to_owned()];
    }
    let mut problems: Vec<String> = cty::unknown_paths(result)
        .into_iter()
        .map(|path| format!("{} is unknown after the open", display_path(&path)))
        .collect();
    let prior = Value::null(block.implied_type());
    problems.extend(
        crate::invariants::assert_plan_valid(block, &prior, config, result)
            .into_iter()
            .map(|violation| format!("{} does not match the configuration", display_path(&violation.path))),
    );
    problems
}

fn display_path(path: &cty::Path) -> String {
    if path.is_root() { "the result".to_owned() } else { format!("the attribute {path}") }
}

#[cfg(test)]
mod tests {
    use schema_gen::tf::{Attribute, Block, Type};

    use super::open_result_problems;
    use crate::cty::Value;

    #[test]
    fn open_results_are_checked_without_quoting_values() {
        let mut length = Attribute::new(Type::Number);
        length.required = true;
        let mut result_attr = Attribute::new(Type::String);
        result_attr.computed = true;
        let block = Block {
            attributes: [("length".to_owned(), length), ("result".to_owned(), result_attr)].into(),
            ..Block::default()
        };
        let config = Value::object([("length", Value::number(8.into())), ("result", Value::null(Type::String))]);
        let good = Value::object([("length", Value::number(8.into())), ("result", Value::string("s3cr3t-value"))]);
        let changed = Value::object([("length", Value::number(9.into())), ("result", Value::string("s3cr3t-value"))]);
        let unknown = Value::object([("length", Value::number(8.into())), ("result", Value::unknown(Type::String))]);
        let cases: [(&str, Value, Vec<&str>); 4] = [
            ("good", good, vec![]),
            ("null", Value::null(block.implied_type()), vec!["the result is null"]),
            ("changed", changed, vec!["the attribute .length does not match the configuration"]),
            ("unknown", unknown, vec!["the attribute .result is unknown after the open"]),
        ];
        for (name, result, want) in cases {
            let problems = open_result_problems(&block, &config, &result);
            assert_eq!(problems, want, "{name}");
            assert!(problems.iter().all(|p| !p.contains("s3cr3t")), "{name}: {problems:?}");
        }
    }
}
