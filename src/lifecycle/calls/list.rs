//! The list-resource calls (protocol 5.10/6.10): ValidateListResourceConfig, and
//! ListResource, whose stream of events [`Listing`] decodes and checks one at a time.

use std::sync::Arc;

use schema_gen::tf::{Block, IdentitySchema};
use schema_gen::translate::PropertyNames;

use super::Connection;
use super::handles::{Bound, ListResource};
use super::{Diagnostics, call_error, decode, encode};
use crate::cty::{self, Value};
use crate::lifecycle::support::error::{LifecycleError, PROVIDER_BUG_SUFFIX, Rpc, Subject};
use crate::lifecycle::support::identity::{self, IdentityProblem};
use crate::tfplugin::ListEvents;
use crate::tfplugin::identity_list::ListResourceRequest;

/// One object a ListResource stream found, decoded and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    pub display_name: String,
    /// Terraform core requires one: "missing identity data in ListResource event".
    pub identity: Value,
    /// The resource object, when the provider included it.
    pub object: Option<Value>,
}

/// An open ListResource stream of one list resource type. It holds the connection, so it can
/// wait between pages.
pub struct Listing {
    connection: Arc<Connection>,
    subject: Subject,
    tf_name: String,
    identity_schema: IdentitySchema,
    events: ListEvents,
}

impl ListResource<'_> {
    /// ValidateListResourceConfig, with only the type and the configuration, as Terraform
    /// sends it. The diagnostics are the caller's to judge.
    pub(in crate::lifecycle) async fn validate_list_resource_config(
        &self,
        config: &Value,
    ) -> Result<Diagnostics, LifecycleError> {
        let Bound { connection, tf_name, block, names, subject } = &self.0;
        let encoded = encode(subject, "the list query", config, &block.implied_type())?;
        let rpc = Rpc::ValidateListResourceConfig;
        let response = self
            .0
            .unlogged(rpc, "config", async {
                connection.client.ready().await?.validate_list_resource_config(tf_name, &encoded).await
            })
            .await?;
        let Some(diagnostics) = response.supported() else {
            return Err(self.unsupported(rpc));
        };
        Ok(Diagnostics::new(block, names, &diagnostics))
    }

    /// Starts ListResource, asking for the resource objects and at most `limit` results.
    /// `connection` is the one this handle was made from, which the listing keeps.
    pub(in crate::lifecycle) async fn list_resource(
        &self,
        connection: &Arc<Connection>,
        config: &Value,
        limit: i64,
    ) -> Result<Listing, LifecycleError> {
        let Bound { tf_name, block, subject, .. } = &self.0;
        let rpc = Rpc::ListResource;
        let Some(identity_schema) = connection.identity_schemas.get(*tf_name).cloned() else {
            // Terraform core refuses the same: a list result is known by its identity.
            return Err(LifecycleError::ProviderBug {
                subject: subject.clone(),
                summary: "Identity schema not found",
                problems: vec![format!(
                    "Identity schema not found for resource type {tf_name}; this is a bug in the provider - please \
                     report it there"
                )],
            });
        };
        let request = ListResourceRequest {
            type_name: (*tf_name).to_owned(),
            config: encode(subject, "the list query", config, &block.implied_type())?,
            include_resource_object: true,
            limit,
        };
        let response = self
            .0
            .unlogged(rpc, "config", async { connection.client.ready().await?.list_resource(&request).await })
            .await?;
        let Some(events) = response.supported() else {
            return Err(self.unsupported(rpc));
        };
        let connection = Arc::clone(connection);
        Ok(Listing { connection, subject: subject.clone(), tf_name: (*tf_name).to_owned(), identity_schema, events })
    }

    fn unsupported(&self, rpc: Rpc) -> LifecycleError {
        let Bound { tf_name, subject, .. } = &self.0;
        LifecycleError::ProviderBug {
            subject: subject.clone(),
            summary: "Provider does not support list resources",
            problems: vec![format!(
                "its schema declares the list resource {tf_name}, but it answers {rpc} as unimplemented"
            )],
        }
    }
}

impl Listing {
    /// The next object, `None` at the end of the stream. An event with error diagnostics,
    /// a broken stream or an invalid event ends the listing with an error.
    pub async fn next(&mut self) -> Option<Result<Listed, LifecycleError>> {
        use tokio_stream::StreamExt as _;
        let rpc = Rpc::ListResource;
        loop {
            let event = match self.events.next().await? {
                Ok(event) => event,
                Err(status) => {
                    let error = self.connection.client.stream_failed(rpc, status).await;
                    return Some(Err(call_error(&self.subject, rpc)(error)));
                }
            };
            let connection = Arc::clone(&self.connection);
            let resource_block = connection.schema.resource(&self.tf_name).map(|(_, s)| &s.block);
            let diagnostics = match resource_block {
                Some(block) => {
                    let names = self.connection.names.resource_properties(&self.tf_name, block).names;
                    Diagnostics::new(block, &names, &event.diagnostics)
                }
                None => Diagnostics::new(&Block::default(), &PropertyNames::default(), &event.diagnostics),
            };
            if !diagnostics.errors.is_empty() {
                return Some(Err(LifecycleError::Diagnostics {
                    subject: self.subject.clone(),
                    rpc,
                    diagnostics: diagnostics.errors,
                }));
            }
            // Terraform skips an event that carries only warnings and no identity.
            let Some(identity_data) = event.identity else {
                if !diagnostics.warnings.is_empty() {
                    for warning in &diagnostics.warnings {
                        tracing::warn!(subject = %self.subject, "{rpc}: {warning}");
                    }
                    continue;
                }
                return Some(Err(self.bug(format!("missing identity data in {rpc} event for {}", self.tf_name))));
            };
            let ty = self.identity_schema.implied_type();
            let identity = match identity::check_identity(decode(&identity_data, &ty)) {
                Ok(Some(identity)) => identity,
                Ok(None) => {
                    return Some(Err(self.bug(format!("missing identity data in {rpc} event for {}", self.tf_name))));
                }
                Err(IdentityProblem::Unknown(_)) => {
                    return Some(Err(self.bug(format!("an identity with unknown values for {}", self.tf_name))));
                }
                Err(IdentityProblem::Mismatch(err)) => {
                    return Some(Err(self.bug(format!(
                        "an identity for {} that doesn't match the identity schema: {err}",
                        self.tf_name
                    ))));
                }
            };
            let object = match (event.resource_object, resource_block) {
                (Some(object), Some(block)) => match decode(&object, &block.implied_type()) {
                    Ok(value) if value.is_null() => None,
                    Ok(value) if !value.is_wholly_known() => {
                        return Some(Err(self.bug(format!(
                            "a resource object with unknown values for {} ({})",
                            self.tf_name,
                            cty::unknown_paths(&value).iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
                        ))));
                    }
                    Ok(value) => Some(value),
                    Err(err) => return Some(Err(self.bug(format!("an invalid resource object: {err}")))),
                },
                _ => None,
            };
            return Some(Ok(Listed { display_name: event.display_name, identity, object }));
        }
    }

    fn bug(&self, problem: String) -> LifecycleError {
        LifecycleError::ProviderBug {
            subject: self.subject.clone(),
            summary: "Provider returned an invalid list result",
            problems: vec![format!(
                "Provider {:?} returned {problem}. {PROVIDER_BUG_SUFFIX}",
                self.connection.display_name()
            )],
        }
    }
}
