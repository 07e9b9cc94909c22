//! Provider configuration, data sources and functions: the RPCs that answer from their
//! input alone.
//!
//! - Provider configuration (validate and configure): every required attribute that is null
//!   is a "Missing required argument" error at its path; unknown values are accepted.
//! - `fixture_lookup`: `name = "bad"` fails validation at `name`; a read answers the
//!   configuration with `id = name`, `value = "value-of-<name>"` and
//!   `tags = {name = <name>, filters = "<number of filter blocks>"}`.
//! - `join(separator, parts...)`: the non-null parts joined; an empty separator is a
//!   function error on argument 0, a part `"bad"` one on its own argument index.
//!   `echo(value)` answers its argument unchanged.
//!
//! Architecture invariant: no protocol types here, only the neutral ones of `rpc`.

use rmpv::Value;

use crate::provider::Fixture;
use crate::rpc::{CallFunctionResponse, DataSourceResponse, Diagnostic, FunctionError, PathStep};
use crate::value::{self, attr, attr_str, set_attr};

impl Fixture {
    /// `ValidateProviderConfig` / `PrepareProviderConfig` and `ConfigureProvider`.
    pub fn check_provider_config(&self, config: &[u8]) -> Vec<Diagnostic> {
        let config = match value::decode(config) {
            Ok(config) => config,
            Err(err) => return vec![Diagnostic::error("Invalid provider configuration", err.to_string(), None)],
        };
        self.schema
            .provider
            .block
            .attributes
            .iter()
            .filter(|(name, attribute)| attribute.required && attr(&config, name).is_none_or(Value::is_nil))
            .map(|(name, _)| {
                Diagnostic::error(
                    "Missing required argument",
                    format!("The argument \"{name}\" is required, but no definition was found."),
                    Some(vec![PathStep::Attribute(name.clone())]),
                )
            })
            .collect()
    }

    /// `ValidateDataResourceConfig` / `ValidateDataSourceConfig`.
    pub fn validate_data_source_config(&self, type_name: &str, config: &[u8]) -> Vec<Diagnostic> {
        if let Some(summary) = self.unknown_type_name(crate::provider::TypeKind::DataSource, type_name) {
            return vec![Diagnostic::error(summary, "", None)];
        }
        match value::decode(config) {
            Ok(config) if attr_str(&config, "name") == Some("bad") => vec![Diagnostic::error(
                "Invalid name",
                "The name \"bad\" is reserved by the fixture provider.",
                Some(vec![PathStep::Attribute("name".to_owned())]),
            )],
            Ok(_) => Vec::new(),
            Err(err) => vec![Diagnostic::error("Invalid configuration", err.to_string(), None)],
        }
    }

    /// `ReadDataSource`.
    pub fn read_data_source(&self, type_name: &str, config: &[u8]) -> DataSourceResponse {
        let fail = |summary: String, detail: String| DataSourceResponse {
            state: Vec::new(),
            diagnostics: vec![Diagnostic::error(summary, detail, None)],
        };
        if let Some(summary) = self.unknown_type_name(crate::provider::TypeKind::DataSource, type_name) {
            return fail(summary, String::new());
        }
        let mut state = match value::decode(config) {
            Ok(config) => config,
            Err(err) => return fail("Invalid configuration".to_owned(), err.to_string()),
        };
        let Some(name) = attr_str(&state, "name").map(str::to_owned) else {
            return fail("Cannot read fixture_lookup".to_owned(), "name must be known and not null.".to_owned());
        };
        let filters = match attr(&state, "filter") {
            Some(Value::Array(filters)) => filters.len(),
            _ => 0,
        };
        set_attr(&mut state, "id", Value::from(name.as_str()));
        let mut diagnostics = Vec::new();
        if name == "binary" {
            // What hashicorp/http answers for a binary body: the bytes, and its warning.
            set_attr(&mut state, "value", value::raw_string(crate::resources::NON_UTF8));
            diagnostics.push(Diagnostic::warning(
                "Response body is not recognized as UTF-8",
                "Terraform may not properly handle the response_body if the contents are binary.",
            ));
        } else {
            set_attr(&mut state, "value", Value::from(format!("value-of-{name}")));
        }
        set_attr(
            &mut state,
            "tags",
            Value::Map(vec![
                (Value::from("filters"), Value::from(filters.to_string())),
                (Value::from("name"), Value::from(name.as_str())),
            ]),
        );
        DataSourceResponse { state: value::encode(&state), diagnostics }
    }

    /// `CallFunction`.
    pub fn call_function(&self, name: &str, arguments: &[Vec<u8>]) -> CallFunctionResponse {
        let error = |text: String, argument: Option<i64>| CallFunctionResponse {
            result: Vec::new(),
            error: Some(FunctionError { text, argument }),
        };
        match name {
            "echo" => match arguments {
                [value] => CallFunctionResponse { result: value.clone(), error: None },
                _ => error(format!("echo takes one argument, got {}", arguments.len()), None),
            },
            "join" => {
                let mut strings = Vec::with_capacity(arguments.len());
                for (i, argument) in arguments.iter().enumerate() {
                    match value::decode(argument) {
                        Ok(Value::Nil) if i > 0 => strings.push(None),
                        Ok(Value::String(text)) => strings.push(text.into_str()),
                        Ok(_) => return error(format!("argument {i} must be a known string"), Some(i as i64)),
                        Err(err) => return error(format!("argument {i}: {err}"), Some(i as i64)),
                    }
                }
                let Some((Some(separator), parts)) = strings.split_first() else {
                    return error("join needs a separator".to_owned(), Some(0));
                };
                if separator.is_empty() {
                    return error("separator must not be empty".to_owned(), Some(0));
                }
                if let Some(bad) = parts.iter().position(|part| part.as_deref() == Some("bad")) {
                    return error("a part must not be \"bad\"".to_owned(), Some(bad as i64 + 1));
                }
                let joined: Vec<&str> = parts.iter().flatten().map(String::as_str).collect();
                CallFunctionResponse { result: value::encode(&Value::from(joined.join(separator))), error: None }
            }
            _ => error(format!("the fixture provider has no function named {name:?}"), None),
        }
    }
}
