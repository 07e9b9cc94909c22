//! The per-kind handles the calls of a data source, an ephemeral resource, an action and a
//! list resource are made on. Like [`super::Resource`], each binds one type of the provider
//! (its Terraform name, schema block and property names) to the subject the operation
//! reports about, so that no call takes them one by one and every error names the subject.

use schema_gen::tf::Block;
use schema_gen::translate::PropertyNames;

use super::Connection;
use crate::lifecycle::support::error::Rpc;
use crate::lifecycle::support::error::{LifecycleError, Subject};
use crate::tfplugin::CallError;

/// What every handle binds.
pub struct Bound<'a> {
    pub(super) connection: &'a Connection,
    pub(super) tf_name: &'a str,
    pub(super) block: &'a Block,
    pub(super) names: PropertyNames,
    pub(super) subject: Subject,
}

impl<'a> Bound<'a> {
    fn new(connection: &'a Connection, tf_name: &'a str, block: &'a Block, subject: Subject) -> Bound<'a> {
        Bound { connection, tf_name, block, names: PropertyNames::of_block(block), subject }
    }

    /// A call about this subject whose values the gRPC debug log never shows (`field` names
    /// what is left out), its failure worded for the subject.
    pub(super) async fn unlogged<T>(
        &self,
        rpc: Rpc,
        field: &'static str,
        answer: impl std::future::Future<Output = Result<T, CallError>>,
    ) -> Result<T, LifecycleError> {
        super::unlogged(&self.subject, rpc, self.tf_name, field, answer).await
    }
}

macro_rules! handle {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        pub struct $name<'a>(pub(super) Bound<'a>);

        // Not every kind's operation reads each part.
        #[allow(dead_code)]
        impl<'a> $name<'a> {
            /// The type's schema block.
            pub fn block(&self) -> &'a Block {
                self.0.block
            }

            /// The Pulumi names of the block's attributes and blocks.
            pub fn names(&self) -> &PropertyNames {
                &self.0.names
            }

            /// What errors name: the function's token, or the query's.
            pub fn subject(&self) -> &Subject {
                &self.0.subject
            }
        }
    };
}

handle!(
    /// A data source (`calls/provider.rs`: ValidateDataResourceConfig, ReadDataSource).
    DataSource
);
handle!(
    /// An ephemeral resource (`calls/ephemeral.rs`: Validate…, Open…, Renew…,
    /// CloseEphemeralResource).
    EphemeralResource
);
handle!(
    /// An action (`calls/action.rs`: ValidateActionConfig, PlanAction, InvokeAction).
    Action
);
handle!(
    /// A list resource (`calls/list.rs`: ValidateListResourceConfig, ListResource).
    ListResource
);

impl Connection {
    /// The data source `tf_name`, about `subject`.
    pub(in crate::lifecycle) fn data_source<'a>(
        &'a self,
        tf_name: &'a str,
        subject: Subject,
    ) -> Result<DataSource<'a>, LifecycleError> {
        let block = &self.data_source_schema(tf_name)?.block;
        Ok(DataSource(Bound::new(self, tf_name, block, subject)))
    }

    /// The ephemeral resource `tf_name` (a name the schema declares), about `subject`; an
    /// error only if its schema, read from the schema cache, does not decode.
    pub(in crate::lifecycle) fn ephemeral_resource<'a>(
        &'a self,
        tf_name: &'a str,
        subject: Subject,
    ) -> Result<EphemeralResource<'a>, LifecycleError> {
        let Some((_, schema)) = self.schema.ephemeral_resource(tf_name) else {
            return Err(self.unknown_token("ephemeral resource", tf_name));
        };
        Ok(EphemeralResource(Bound::new(self, tf_name, &schema.block, subject)))
    }

    /// The action `tf_name` (a name the schema declares), about `subject`.
    pub(in crate::lifecycle) fn action<'a>(
        &'a self,
        tf_name: &'a str,
        subject: Subject,
    ) -> Result<Action<'a>, LifecycleError> {
        let Some(schema) = self.schema.action(tf_name) else {
            return Err(self.unknown_token("action", tf_name));
        };
        Ok(Action(Bound::new(self, tf_name, &schema.block, subject)))
    }

    /// The list resource `tf_name`, whose configuration is `block`, about `subject`.
    pub(in crate::lifecycle) fn list_resource<'a>(
        &'a self,
        tf_name: &'a str,
        block: &'a Block,
        subject: Subject,
    ) -> ListResource<'a> {
        ListResource(Bound::new(self, tf_name, block, subject))
    }
}
