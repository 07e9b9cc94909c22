//! The provider resource's `terraformConfig` method: the provider's configuration as a
//! Terraform module would write it, for programs that hand it on (e.g. to a Pulumi
//! Terraform-module component's required provider).
//!
//! The result has the Go implementation's shape, so programs work with either:
//! `{"result": {<terraform name>: secret(<value>)}}`. Every attribute and block of the
//! provider's schema is there, unset ones as (secret) null; values are the Terraform JSON
//! encoding of the configuration (Terraform names inside nested blocks too, a list block as
//! an array, numbers as f64). Every top-level value is secret, whether or not it was: the
//! method cannot know which settings are sensitive to the module that receives them.
//!
//! Architecture invariant: no gRPC types; pure apart from reading the schema.

use super::provider_config::{config_names, terraform_settings};
use crate::convert::values::{self as convert, UnknownKeys};
use crate::cty;
use crate::lifecycle::calls::Connection;
use crate::lifecycle::support::error::{LifecycleError, Subject};
use crate::property::{PropertyMap, PropertyValue, structpb};

/// The method's name, the part after `/` in its token `pulumi:providers:<pkg>/terraformConfig`.
pub const TERRAFORM_CONFIG_METHOD: &str = "terraformConfig";

/// `terraformConfig` for the provider configured with `config` (its last CheckConfig or
/// Configure inputs, Pulumi names). `urn` names the provider resource in errors.
///
/// All settings must be known: the result is meant for another tool's configuration,
/// which cannot hold an unknown. A preview with unknown settings therefore fails, with
/// the Go implementation's explanation.
pub(crate) fn terraform_config(
    connection: &Connection,
    urn: &str,
    config: &PropertyMap,
) -> Result<PropertyMap, LifecycleError> {
    let names = config_names(connection);
    let block = &connection.schema().provider().block;
    let settings = terraform_settings(connection, &names, config);
    let (value, _) = convert::to_cty(block, &names, &settings, UnknownKeys::Ignore).map_err(|error| {
        LifecycleError::InvalidProperty { subject: Subject::Urn(urn.to_owned()), error: Box::new(error) }
    })?;
    let json = config_json(&value, &block.implied_type()).map_err(|message| LifecycleError::Invalid {
        subject: Subject::Urn(urn.to_owned()),
        message: format!("{TERRAFORM_CONFIG_METHOD}: {message}"),
    })?;
    Ok(result(json))
}

/// Why the configuration has no Terraform JSON.
#[derive(Debug, thiserror::Error)]
enum ConfigJsonError {
    /// A setting is unknown (a preview): another tool's configuration cannot hold it.
    #[error(
        "all inputs to the provider configuration must be known: the result of this method is meant for use as the \
         configuration of a required provider of a Pulumi Terraform module"
    )]
    Unknown,
    /// The configuration does not encode as Terraform JSON.
    #[error("cannot encode the configuration: {0}")]
    Encode(#[source] cty::Error),
    /// The encoded configuration is not JSON after all.
    #[error("cannot read back the encoded configuration: {0}")]
    ReadBack(#[source] serde_json::Error),
}

/// The configuration as Terraform JSON, or why it has none.
fn config_json(value: &cty::Value, ty: &schema_gen::tf::Type) -> Result<serde_json::Value, ConfigJsonError> {
    if !value.is_wholly_known() {
        return Err(ConfigJsonError::Unknown);
    }
    let text = cty::json::encode(value, ty).map_err(ConfigJsonError::Encode)?;
    serde_json::from_str(&text).map_err(ConfigJsonError::ReadBack)
}

/// The method's result: `{"result": {key: secret(value)}}` for the configuration object
/// `json` (a null configuration gives an empty map).
fn result(json: serde_json::Value) -> PropertyMap {
    let entries = match json {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    let secret_entries: PropertyMap = entries
        .into_iter()
        .map(|(key, value)| (key, PropertyValue::Secret(Box::new(structpb::from_json(value)))))
        .collect();
    PropertyMap::from([("result".to_owned(), PropertyValue::Object(secret_entries))])
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;
    use crate::testutil::{show_properties, val};

    #[track_caller]
    fn check(ty: &str, value: &str, expect: Expect) {
        let ty = schema_gen::tf::Type::from_json_bytes(ty.as_bytes()).expect("a type");
        let value = val(&ty, value);
        let rendered = match config_json(&value, &ty) {
            Ok(json) => show_properties(&result(json)),
            Err(message) => format!("error: {message}"),
        };
        expect.assert_eq(&rendered);
    }

    #[test]
    fn terraform_config_results() {
        // Every attribute is there, each secret; nulls stay null; names are Terraform's.
        check(
            r#"["object",{"api_key":"string","max_retries":"number","proxy":["list",["object",{"from_env":"bool","url":"string"}]]}]"#,
            r#"{"api_key": "k", "max_retries": 3, "proxy": [{"from_env": true, "url": null}]}"#,
            expect![[
                r#"{"result":{"api_key":{"secret":"k"},"max_retries":{"secret":3},"proxy":{"secret":[{"from_env":true,"url":null}]}}}"#
            ]],
        );
        check(
            r#"["object",{"region":"string","tags":["map","string"]}]"#,
            r#"{"region": null, "tags": null}"#,
            expect![[r#"{"result":{"region":{"secret":null},"tags":{"secret":null}}}"#]],
        );
        // A provider without settings.
        check(r#"["object",{}]"#, r#"{}"#, expect![[r#"{"result":{}}"#]]);
        // Unknown settings (a preview) have no Terraform configuration.
        check(
            r#"["object",{"region":"string"}]"#,
            r#"{"region": "?"}"#,
            expect![[
                r#"error: all inputs to the provider configuration must be known: the result of this method is meant for use as the configuration of a required provider of a Pulumi Terraform module"#
            ]],
        );
        check(
            r#"["object",{"proxy":["list",["object",{"url":"string"}]]}]"#,
            r#"{"proxy": [{"url": "?"}]}"#,
            expect![[
                r#"error: all inputs to the provider configuration must be known: the result of this method is meant for use as the configuration of a required provider of a Pulumi Terraform module"#
            ]],
        );
    }
}
