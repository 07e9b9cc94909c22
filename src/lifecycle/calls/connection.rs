//! [`Connection`]: the launched provider as the calls see it — its client, its schema, the
//! names the translation gave everything, and the features it declared. Every Terraform
//! call is a method on it, or on a handle made from it that binds one subject and its
//! schema: [`Resource`] for a resource type.
//!
//! What the process remembers between Pulumi calls (plans, held write-only values, open
//! ephemerals, listings) is not here but in `lifecycle::session`, one layer up.

use std::collections::BTreeMap;

use schema_gen::tf::{IdentitySchema, Schema};
use schema_gen::translate::ProviderNames;

use super::managed_resource::ResourceType;
use super::{Client, Resource};
use crate::lifecycle::support::error::LifecycleError;
use crate::schema_cache::LazySchema;
use crate::tfplugin::core_rpcs::ServerCapabilities;

/// A launched, described provider.
pub struct Connection {
    /// The Pulumi package name: `--provider-name`, else the provider's type name.
    pub(super) package_name: String,
    /// The exact provider version (`0.0.0` for a local binary), without a leading `v`.
    pub(super) package_version: String,
    /// The provider's own name (its registry type, or the name in a local binary's file name).
    pub(super) terraform_name: String,
    /// The canonical source address, for registry providers.
    pub(super) source_address: Option<String>,
    /// Used only through `calls`.
    pub(super) client: Client,
    /// Decoded per item when it came from the schema cache: prefer its item accessors
    /// (`resource`, `data_source`, `provider`, ...) to the whole model (`whole`, which reads
    /// all of it and fails if a cache entry does not decode).
    pub(super) schema: LazySchema,
    /// Resource identity schemas by resource type (GetResourceIdentitySchemas), read at
    /// start-up right after the schema; empty for providers older than protocol 5.9/6.9.
    pub(super) identity_schemas: BTreeMap<String, IdentitySchema>,
    pub(super) names: ProviderNames,
    /// Optional protocol features the provider declared (e.g. `plan_destroy`).
    pub(super) capabilities: ServerCapabilities,
    by_token: TokenIndex,
    /// Per resource type, what every operation on it needs and the schema alone decides
    /// (its Pulumi property names, its cty type): built once, not per call.
    resource_types: std::sync::Mutex<std::collections::HashMap<String, std::sync::Arc<ResourceType>>>,
}

/// What start-up learned of the provider, to make a [`Connection`] of.
pub(in crate::lifecycle) struct Described {
    pub package_name: String,
    pub package_version: String,
    pub terraform_name: String,
    pub source_address: Option<String>,
    pub client: Client,
    pub schema: LazySchema,
    pub identity_schemas: BTreeMap<String, IdentitySchema>,
    pub names: ProviderNames,
    pub capabilities: ServerCapabilities,
}

/// What a Pulumi token names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Resource,
    DataSource,
    Function,
    /// An ephemeral resource, invoked as a function `open<Name>`.
    EphemeralResource,
    /// A Terraform action, invoked as a function (`lifecycle/operations/action.rs`).
    Action,
}

/// Pulumi token → what it names and the Terraform name behind it, for resources, data
/// sources, functions, ephemeral resources and actions: every token is looked up once, when
/// the connection is made.
struct TokenIndex(BTreeMap<String, (TokenKind, String)>);

impl TokenIndex {
    fn of(names: &ProviderNames) -> TokenIndex {
        let of_kind = |kind| move |(tf, token): (&str, &str)| (token.to_owned(), (kind, tf.to_owned()));
        TokenIndex(
            names
                .resources()
                .map(of_kind(TokenKind::Resource))
                .chain(names.data_sources().map(of_kind(TokenKind::DataSource)))
                .chain(names.functions().map(of_kind(TokenKind::Function)))
                .chain(names.ephemeral_resources().map(of_kind(TokenKind::EphemeralResource)))
                .chain(names.actions().map(of_kind(TokenKind::Action)))
                .collect(),
        )
    }
}

impl Connection {
    /// The connection to a described provider; every token is looked up here, once.
    pub(in crate::lifecycle) fn new(described: Described) -> Connection {
        let Described {
            package_name,
            package_version,
            terraform_name,
            source_address,
            client,
            schema,
            identity_schemas,
            names,
            capabilities,
        } = described;
        Connection {
            by_token: TokenIndex::of(&names),
            package_name,
            package_version,
            terraform_name,
            source_address,
            client,
            schema,
            identity_schemas,
            names,
            capabilities,
            resource_types: Default::default(),
        }
    }

    /// The facts of resource type `tf_name` (with schema `schema`), made on its first use.
    pub(super) fn resource_type(&self, tf_name: &str, schema: &Schema) -> std::sync::Arc<ResourceType> {
        let mut types = self.resource_types.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(found) = types.get(tf_name) {
            return std::sync::Arc::clone(found);
        }
        let made = std::sync::Arc::new(ResourceType {
            props: self.names.resource_properties(tf_name, &schema.block),
            ty: schema.block.implied_type(),
        });
        types.insert(tf_name.to_owned(), std::sync::Arc::clone(&made));
        made
    }

    /// The Pulumi package name: `--provider-name`, else the provider's type name.
    pub fn package_name(&self) -> &str {
        &self.package_name
    }

    /// The exact provider version (`0.0.0` for a local binary), without a leading `v`.
    pub fn package_version(&self) -> &str {
        &self.package_version
    }

    /// The provider's own name (its registry type, or the name in a local binary's file name).
    pub fn terraform_name(&self) -> &str {
        &self.terraform_name
    }

    /// The canonical source address, for registry providers.
    pub fn source_address(&self) -> Option<&str> {
        self.source_address.as_deref()
    }

    /// The provider schema, decoded per item when it came from the schema cache.
    pub fn schema(&self) -> &LazySchema {
        &self.schema
    }

    /// Resource identity schemas by resource type.
    pub fn identity_schemas(&self) -> &BTreeMap<String, IdentitySchema> {
        &self.identity_schemas
    }

    /// The provider's Pulumi names: tokens and property names.
    pub fn names(&self) -> &ProviderNames {
        &self.names
    }

    /// What a Pulumi token names, and the Terraform name behind it.
    pub fn lookup_token(&self, token: &str) -> Option<(TokenKind, &str)> {
        self.by_token.0.get(token).map(|(kind, tf_name)| (*kind, tf_name.as_str()))
    }

    /// The resource type behind a Pulumi token, bound to `urn`.
    pub fn resource(&self, token: &str, urn: &str) -> Result<Resource<'_>, LifecycleError> {
        let found = match self.lookup_token(token) {
            Some((TokenKind::Resource, tf_name)) => self.schema.resource(tf_name),
            _ => None,
        };
        let Some((tf_name, schema)) = found else {
            return Err(self.unknown_token("resource", token));
        };
        Ok(Resource::new(self, tf_name, schema, urn))
    }

    /// A data source's schema, decoded on first use.
    pub(in crate::lifecycle) fn data_source_schema(&self, tf_name: &str) -> Result<&Schema, LifecycleError> {
        self.schema
            .data_source(tf_name)
            .map(|(_, schema)| schema)
            .ok_or_else(|| self.unknown_token("data source", tf_name))
    }

    pub(in crate::lifecycle) fn unknown_token(&self, kind: &'static str, token: &str) -> LifecycleError {
        LifecycleError::UnknownToken { kind, token: token.to_owned(), package: self.package_name.clone() }
    }

    /// How messages name the provider: its source address, else its name.
    pub(in crate::lifecycle) fn display_name(&self) -> &str {
        self.source_address.as_deref().unwrap_or(&self.terraform_name)
    }

    /// Optional protocol features the provider declared (e.g. `plan_destroy`).
    pub(in crate::lifecycle) fn capabilities(&self) -> &ServerCapabilities {
        &self.capabilities
    }

    /// Stops the provider the polite way (see [`crate::tfplugin::ProviderClient::shutdown`]).
    pub(in crate::lifecycle) async fn shutdown(self) {
        self.client.shutdown().await;
    }
}
