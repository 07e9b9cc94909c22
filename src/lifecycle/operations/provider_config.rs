//! Provider configuration: CheckConfig (`ValidateProviderConfig`), DiffConfig (from the
//! schema alone) and Configure (`ConfigureProvider`).
//!
//! The engine adds keys of its own to the configuration (`version`, and sometimes
//! `pluginDownloadURL`); they are not Terraform settings and never reach the provider,
//! unless the provider really has a setting of that name.
//!
//! Architecture invariant: no gRPC types.

use std::collections::BTreeMap;

use schema_gen::translate::PropertyNames;

use crate::convert::values::{self as convert, UnknownKeys};
use crate::cty;
use crate::lifecycle::calls::Connection;
use crate::lifecycle::calls::Warnings;
use crate::lifecycle::operations::interface::{Checked, Diffed};
use crate::lifecycle::support::checks::{self, CheckFailure};
use crate::lifecycle::support::config_encoding::{self, Kind};
use crate::lifecycle::support::detailed_diff::{PropertyDiff, Sets, detailed_diff, top_level_keys};
use crate::lifecycle::support::error::{LifecycleError, MissingKey, Subject};
use crate::property::{PropertyMap, PropertyValue};

/// Keys the engine and SDKs put into provider configuration for themselves.
const ENGINE_KEYS: &[&str] = &["version", "pluginDownloadURL", "parameterization", "name"];

pub(crate) fn config_names(connection: &Connection) -> PropertyNames {
    PropertyNames::of_block(&connection.schema().provider().block)
}

/// The configuration without the engine's own keys, with settings stored JSON-encoded
/// (by the Go implementation, or by us: see [`config_encoding`]) decoded.
pub(crate) fn terraform_settings(connection: &Connection, names: &PropertyNames, config: &PropertyMap) -> PropertyMap {
    let settings: PropertyMap = config
        .iter()
        .filter(|(key, _)| !(ENGINE_KEYS.contains(&key.as_str()) && names.by_pulumi_name(key).is_none()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    config_encoding::unfold(&settings, &config_kinds(connection, names))
}

/// The encoding kind of each top-level setting, by Pulumi name.
fn config_kinds(connection: &Connection, names: &PropertyNames) -> BTreeMap<String, Kind> {
    let cty::Type::Object(object) = connection.schema().provider().block.implied_type() else { return BTreeMap::new() };
    object
        .attrs
        .iter()
        .map(|(tf_name, ty)| {
            let name = names.by_tf_name(tf_name).map_or_else(|| tf_name.clone(), |n| n.pulumi_name.clone());
            let kind = match ty {
                cty::Type::String => Kind::String,
                cty::Type::Bool => Kind::Bool,
                cty::Type::Number => Kind::Number,
                cty::Type::List(_) | cty::Type::Set(_) | cty::Type::Tuple(_) => Kind::List,
                cty::Type::Map(_) | cty::Type::Object(_) | cty::Type::Dynamic => Kind::Object,
            };
            (name, kind)
        })
        .collect()
}

/// Required settings that have no value (unknown counts as a value).
fn missing_keys(connection: &Connection, names: &PropertyNames, settings: &PropertyMap) -> Vec<MissingKey> {
    connection
        .schema()
        .provider()
        .block
        .attributes
        .iter()
        .filter(|(_, attr)| attr.required)
        .filter_map(|(tf_name, attr)| {
            let name = names.by_tf_name(tf_name).map_or_else(|| tf_name.clone(), |n| n.pulumi_name.clone());
            let present = settings.get(&name).is_some_and(|v| !matches!(v, PropertyValue::Null));
            (!present).then(|| MissingKey {
                name: format!("{}:{name}", connection.package_name()),
                property: name,
                description: attr.description.clone(),
            })
        })
        .collect()
}

/// CheckConfig: unknown keys and the provider's own validation become failures on
/// Pulumi names; sensitive settings are marked secret.
pub(crate) async fn check_config(
    connection: &Connection,
    urn: &str,
    news: &PropertyMap,
) -> Result<Checked, LifecycleError> {
    let names = config_names(connection);
    let block = &connection.schema().provider().block;
    let settings = terraform_settings(connection, &names, news);
    let mut inputs = news.clone();
    crate::lifecycle::support::inputs::mark_sensitive(block, &names, &mut inputs);
    // Stored as the Go implementation stores them, so a stack moves between the two
    // without a provider update either way.
    let inputs = config_encoding::fold(&inputs, &config_kinds(connection, &names));
    let mut checked = Checked { inputs, ..Checked::default() };
    let config = match convert::to_cty(block, &names, &settings, UnknownKeys::Reject) {
        // CheckConfig's settings arrive without their secret marks: ValidateProviderConfig's
        // log entry redacts every setting.
        Ok((config, _)) => config,
        Err(error) => {
            let reason = match &error.kind {
                convert::ConvertErrorKind::UnknownProperty(key) => {
                    format!("{key:?} is not a configuration setting of the {} provider", connection.package_name())
                }
                other => other.to_string(),
            };
            checked.failures.push(CheckFailure { property: error.path.to_string(), reason });
            return Ok(checked);
        }
    };
    let subject = Subject::Urn(urn.to_owned());
    let diagnostics = connection.validate_provider_config(&subject, &names, &config).await?;
    checked.warnings = diagnostics.warnings.iter().map(ToString::to_string).collect();
    // Required settings without a value are left to Configure, whose
    // ConfigureErrorMissingKeys makes the engine print how to set them.
    let missing: Vec<String> = missing_keys(connection, &names, &settings).into_iter().map(|k| k.property).collect();
    checked.failures = checks::check_failures(&diagnostics.errors, &missing);
    Ok(checked)
}

/// DiffConfig: which settings changed. Terraform never replaces a provider, so nothing
/// here forces a replacement.
pub(crate) fn diff_config(connection: &Connection, olds: &PropertyMap, news: &PropertyMap) -> Diffed {
    let names = config_names(connection);
    let detailed: Vec<PropertyDiff> = detailed_diff(
        &terraform_settings(connection, &names, olds),
        &terraform_settings(connection, &names, news),
        &[],
        &Sets { paths: Vec::new(), inputs: None },
    );
    Diffed {
        changes: !detailed.is_empty(),
        diffs: top_level_keys(detailed.iter().map(|d| &d.path)),
        detailed,
        ..Diffed::default()
    }
}

/// Configure: required settings must have a value (unknown is fine during a preview);
/// then ConfigureProvider. Returns the provider's warnings.
pub(crate) async fn configure(
    connection: &Connection,
    urn: &str,
    args: &PropertyMap,
) -> Result<Vec<String>, LifecycleError> {
    let names = config_names(connection);
    let block = &connection.schema().provider().block;
    let settings = terraform_settings(connection, &names, args);
    let missing = missing_keys(connection, &names, &settings);
    if !missing.is_empty() {
        return Err(LifecycleError::MissingConfig { package: connection.package_name().to_owned(), keys: missing });
    }
    let subject = Subject::Urn(urn.to_owned());
    let (config, secrets) = convert::to_cty(block, &names, &settings, UnknownKeys::Ignore)
        .map_err(|error| LifecycleError::InvalidProperty { subject: subject.clone(), error: Box::new(error) })?;
    let mut warnings = Warnings::default();
    warnings.kept(connection.configure_provider(&subject, &names, &config, &secrets).await)?;
    Ok(warnings.into_vec())
}
