//! Terraform provider schema → Pulumi package schema.
//!
//! [`translate`] is the entry point: a [`TranslateConfig`] in, a
//! [`PackageSpec`] and [`Warning`]s out. It never fails: what the
//! Go implementation rejects (unprefixed resources, colliding names, tuple types) becomes a
//! warning and a valid schema. The rules, with examples and the deliberate differences from
//! the Go implementation, are in `docs/schema-mapping.md`.
//!
//! - [`names`]: tokens and property names ([`ProviderNames`], [`PropertyNames`]), shared
//!   with the runtime;
//! - `objects`: property specs and named object types;
//! - `members`: resources, data sources, ephemeral resources (as functions), the provider
//!   and its configuration;
//! - `functions`: provider-defined functions;
//! - `docs`: the clean-up of description text;
//! - `deprecation`: deprecation messages, plain text with names in Pulumi's spelling;
//! - `package`: package-level fields (language sections, parameterization).
//!
//! Architecture invariant: pure and deterministic (the same input gives the same bytes);
//! no I/O, no knowledge of how the schema was obtained or where it is sent.

mod deprecation;
mod docs;
mod functions;
mod list_inputs;
mod members;
pub mod names;
mod objects;
mod package;

pub use functions::argument_names;
pub use members::ACTION_URN_ARGUMENT;
pub use names::{PropertyName, PropertyNames, ProviderNames, ResourceId, ResourceProperties, TokenFilter};
pub use package::base_package_schema;

use crate::pulumi::PackageSpec;
use crate::tf::ProviderSchema;

/// Everything a translation needs. There is deliberately no `Default`: each field is a
/// decision the caller must make.
#[derive(Clone, Debug)]
pub struct TranslateConfig<'a> {
    pub schema: &'a ProviderSchema,
    /// The Pulumi package name (the Parameterize response's `name`; `--provider-name` when
    /// given).
    pub package_name: &'a str,
    /// The package version: the Terraform provider's version (`0.0.0` for local binaries).
    pub package_version: &'a str,
    /// The Terraform provider's own name (its registry type, or the name derived from a
    /// local binary); the package description names it.
    pub terraform_name: &'a str,
    /// The registry source address (`registry.opentofu.org/hashicorp/random`, or the
    /// unqualified `hashicorp/random`); `None` for a local binary. Its namespace becomes the
    /// publisher and the GitHub organization of the repository link.
    pub source_address: Option<&'a str>,
    /// The parameter value bytes (the JSON the SDKs embed); emitted base64-encoded.
    pub parameter_value: &'a [u8],
    /// The version of this plugin (`terraform-provider`); a leading `v` is dropped.
    pub plugin_version: &'a str,
    /// Token filters from the parameter value.
    pub filter: TokenFilter<'a>,
}

/// Something the translation did differently from a plain mapping, or could not map.
/// None of these stop the translation.
#[derive(Clone, Debug, PartialEq, Eq, Hash, thiserror::Error)]
pub enum Warning {
    /// A resource or data source does not start with the inferred prefix; the Go
    /// implementation fails the whole package, we derive its name from the full name.
    #[error("{tf_name}: does not start with the resource prefix `{prefix}`; its token uses the full name")]
    MissingPrefix { tf_name: String, prefix: String },
    /// The name left after removing the prefix was empty.
    #[error("{tf_name}: nothing is left of the name after removing the prefix; using `{used}`")]
    EmptyName { tf_name: String, used: String },
    /// The name held characters a token cannot hold.
    #[error("{tf_name}: the name holds characters a Pulumi token cannot; using `{used}`")]
    InvalidName { tf_name: String, used: String },
    /// A token collided with another one (a function with a data source, or no rename was
    /// free for a `Provider` resource) and got a `V2`-style name.
    #[error("{tf_name}: its token collides with another one; using `{token}`")]
    TokenCollision { tf_name: String, token: String },
    /// An action that cannot be a function.
    #[error("action {tf_name} is not translated: {reason}")]
    ActionSkipped { tf_name: String, reason: String },
    /// A list resource with no resource of the same type to carry its `listInputs`.
    #[error("list resource {tf_name} is not translated: no resource of that type is in the package")]
    ListResourceSkipped { tf_name: String },
    /// Two properties of one object map to the same Pulumi name.
    #[error("{path}: its Pulumi name `{natural}` is taken by another property; using `{used}`")]
    PropertyNameCollision { path: String, natural: String, used: String },
    /// A reserved name (`id`, `urn`, `pulumi`) could not be renamed as the Go
    /// implementation would, because every candidate exists.
    #[error("{path}: the reserved property `{tf_name}` is exposed as `{pulumi_name}`")]
    ReservedNameRenamed { path: String, tf_name: String, pulumi_name: String },
    /// A property name Pulumi reserves where it appears (`version` or `pulumi` on the
    /// provider); kept, but code generation may reject it.
    #[error("{path}: the property name `{name}` is reserved by Pulumi here")]
    ReservedPropertyName { path: String, name: String },
    /// Two different objects would get the same type token; the later one is numbered.
    #[error("{path}: its type name is taken by a different object; using `{token}`")]
    TypeNameCollision { path: String, token: String },
    /// Objects nested too deeply; the rest is typed `pulumi.json#/Any`.
    #[error("{path}: nested too deeply; typed as pulumi.json#/Any")]
    TooDeep { path: String },
    /// A type Pulumi schemas cannot express (tuples); typed `pulumi.json#/Any`.
    #[error("{path}: the type {ty} has no Pulumi equivalent; typed as pulumi.json#/Any")]
    UnsupportedType { path: String, ty: String },
    /// The package name is not a valid Pulumi package name; the schema will not bind.
    #[error("the package name {name:?} is not a valid Pulumi package name: {reason}")]
    InvalidPackageName { name: String, reason: &'static str },
    /// The version is not semver; the Go module path gets no major-version suffix.
    #[error("the package version {version:?} is not a semantic version")]
    InvalidVersion { version: String },
}

/// Translates a Terraform provider schema into a Pulumi package schema.
pub fn translate(config: &TranslateConfig) -> (PackageSpec, Vec<Warning>) {
    let (names, mut warnings) = ProviderNames::new(config.schema, config.package_name, &config.filter);
    let spec = members::package(config, &names, &mut warnings);
    // Each position of a property reports the same problem; say it once.
    let mut seen = std::collections::HashSet::new();
    warnings.retain(|w| seen.insert(w.clone()));
    (spec, warnings)
}
