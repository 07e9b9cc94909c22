//! Check: auto-naming `name`, `ValidateResourceConfig`, and the sensitive inputs marked
//! secret.

use super::interface::{Checked, Target};

use super::memory::GeneratedNames;

use super::values::{configuration, name_property};
use crate::lifecycle::calls::Resource;
use crate::lifecycle::support::checks;
use crate::lifecycle::support::error::LifecycleError;
use crate::lifecycle::support::inputs::mark_sensitive;
use crate::property::{PropertyMap, PropertyValue};

/// Check of one resource.
#[derive(Clone, Debug, Default)]
pub struct CheckRequest {
    pub target: Target,
    /// The resource's name, for auto-naming.
    pub name: String,
    pub olds: PropertyMap,
    pub news: PropertyMap,
    /// The stored outputs an engine of 3.261 or later sends on an update's Check (`None`
    /// from older engines, and on a create or replace).
    pub old_outputs: Option<PropertyMap>,
    pub random_seed: Vec<u8>,
    pub autonaming: Autonaming,
}

/// How the engine wants `name` auto-named (the program's or stack's autonaming config).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Autonaming {
    /// The provider's default: `<resource name>-<7 random hex digits>`.
    #[default]
    Default,
    /// Use this name (the engine computed it from the configured pattern).
    Propose(String),
    /// Use exactly this name.
    Enforce(String),
    /// Never auto-name.
    Disable,
}

/// Check: auto-names `name`, validates the configuration, and marks sensitive inputs
/// secret. The inputs otherwise stay exactly as the program wrote them.
///
/// `old_outputs` are the stored outputs an engine of 3.261 or later sends on an update's
/// Check (`None` from older engines, and on a create or replace). Terraform validates a
/// configuration without any prior state, and so does this Check; the outputs only keep
/// an existing object's name (`auto_name`).
/// Which names it generated goes to `generated`, for the Diff that follows.
pub(crate) async fn check(
    resource: &Resource<'_>,
    request: &CheckRequest,
    generated: &GeneratedNames,
) -> Result<Checked, LifecycleError> {
    let CheckRequest { name: resource_name, olds, news, old_outputs, random_seed, autonaming, .. } = request;
    let mut inputs = news.clone();
    let mut autonamed = None;
    if let Some(key) = name_property(resource)
        && !inputs.contains_key(&key)
    {
        let old_output = old_outputs.as_ref().and_then(|outputs| outputs.get(&key));
        if let Some(name) = auto_name(autonaming, olds.get(&key), old_output, resource_name, random_seed) {
            inputs.insert(key.clone(), PropertyValue::String(name));
            autonamed = Some(key);
        }
    }
    let mut checked = validate_inputs(resource, &inputs).await?;
    // Terraform's ConflictsWith is invisible in the schema: when the auto-name is what
    // conflicts (e.g. with `name_prefix`), drop it and validate again.
    if let Some(key) = &autonamed
        && checked.failures.iter().any(|f| conflicts_with(f, key))
    {
        inputs.remove(key);
        checked = validate_inputs(resource, &inputs).await?;
    }
    generated.note(resource.urn(), autonamed.as_ref().is_some_and(|key| inputs.contains_key(key)));
    mark_sensitive(&resource.schema().block, &resource.props().names, &mut inputs);
    checked.inputs = inputs;
    Ok(checked)
}

async fn validate_inputs(resource: &Resource<'_>, inputs: &PropertyMap) -> Result<Checked, LifecycleError> {
    let (config, secrets) = match configuration(resource, inputs) {
        Ok(converted) => converted,
        Err(LifecycleError::InvalidProperty { error, .. }) => {
            return Ok(Checked { failures: vec![checks::convert_failure(&error)], ..Checked::default() });
        }
        Err(other) => return Err(other),
    };
    let diagnostics = resource.validate_resource_config(&config, &secrets).await?;
    Ok(Checked {
        inputs: PropertyMap::new(),
        failures: checks::check_failures(&diagnostics.errors, &[]),
        warnings: diagnostics.warnings.iter().map(ToString::to_string).collect(),
    })
}

/// Whether a Check failure is a conflict between the auto-named `key` (the Pulumi name of
/// Terraform's `name`) and another attribute: SDKv2's ConflictsWith ("Conflicting
/// configuration arguments", on the attribute) or the framework validators' ("Invalid
/// Attribute Combination: Attribute "name_prefix" cannot be specified when "name" is
/// specified", on either attribute).
fn conflicts_with(failure: &crate::lifecycle::support::checks::CheckFailure, key: &str) -> bool {
    let sdkv2 = failure.reason.contains("Conflicting configuration arguments");
    let framework = failure.reason.contains("Invalid Attribute Combination");
    (sdkv2 || framework) && (failure.property == key || (framework && failure.reason.contains("\"name\"")))
}

/// The name Check gives an auto-named resource whose program sets none, or `None` to leave it
/// unset. An existing object keeps its name under the default autonaming, or every update
/// would rename (and, `name` being usually ForceNew, replace) it: the name an earlier Check
/// chose (the old inputs), else the name the object has (the old outputs), which is what an
/// object whose stored inputs lack the name (one created while autonaming was disabled,
/// the provider choosing the name) still has. Only a plain string is kept; a secret or
/// unknown old value is not a name to reuse.
pub(crate) fn auto_name(
    autonaming: &Autonaming,
    old_input: Option<&PropertyValue>,
    old_output: Option<&PropertyValue>,
    resource_name: &str,
    random_seed: &[u8],
) -> Option<String> {
    match autonaming {
        Autonaming::Disable => None,
        Autonaming::Propose(name) | Autonaming::Enforce(name) => Some(name.clone()),
        Autonaming::Default => {
            let reusable = |value: Option<&PropertyValue>| match value {
                Some(PropertyValue::String(old)) => Some(old.clone()),
                _ => None,
            };
            reusable(old_input)
                .or_else(|| reusable(old_output))
                .or_else(|| Some(default_autoname(resource_name, random_seed)))
        }
    }
}

/// `<name>-<7 hex digits>`, the digits from the engine's random seed (so a retried Check
/// picks the same name), as Pulumi's own auto-naming does.
fn default_autoname(resource_name: &str, random_seed: &[u8]) -> String {
    let mut bytes = [0u8; 4];
    if random_seed.len() >= 4 {
        bytes.copy_from_slice(&random_seed[..4]);
    } else {
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write(resource_name.as_bytes());
        bytes.copy_from_slice(&hasher.finish().to_le_bytes()[..4]);
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let mut name = format!("{resource_name}-{}", &hex[..7]);
    name.truncate(255);
    name
}

#[cfg(test)]
mod auto_name_tests {
    use super::*;

    /// (case, autonaming, old input, old output, expected name)
    type Case<'a> = (&'a str, &'a Autonaming, Option<PropertyValue>, Option<PropertyValue>, Option<&'a str>);

    #[test]
    fn an_existing_object_keeps_its_name() {
        let s = |v: &str| PropertyValue::String(v.to_owned());
        let seed = [0xab, 0xcd, 0xef, 0x12, 0x34];
        let fresh = "thing-abcdef1";
        let propose = Autonaming::Propose("proposed".into());
        let enforce = Autonaming::Enforce("enforced".into());
        let secret = PropertyValue::Secret(Box::new(s("hidden")));
        let unknown = PropertyValue::Unknown(crate::property::UnknownKind::String);
        let table: [Case<'_>; 9] = [
            ("a create: a fresh name from the seed", &Autonaming::Default, None, None, Some(fresh)),
            ("an update: the name an earlier Check chose", &Autonaming::Default, Some(s("old")), None, Some("old")),
            (
                "the old inputs win over the old outputs",
                &Autonaming::Default,
                Some(s("in")),
                Some(s("out")),
                Some("in"),
            ),
            (
                "stored inputs without the name: the object's own",
                &Autonaming::Default,
                None,
                Some(s("out")),
                Some("out"),
            ),
            ("a secret old output is not reused", &Autonaming::Default, None, Some(secret), Some(fresh)),
            ("an unknown old output is not reused", &Autonaming::Default, None, Some(unknown), Some(fresh)),
            ("autonaming off: no name, old ones ignored", &Autonaming::Disable, Some(s("old")), Some(s("out")), None),
            ("a proposed name wins over the old ones", &propose, Some(s("old")), Some(s("out")), Some("proposed")),
            ("an enforced name wins over the old ones", &enforce, None, Some(s("out")), Some("enforced")),
        ];
        for (case, autonaming, old_input, old_output, expected) in table {
            let got = auto_name(autonaming, old_input.as_ref(), old_output.as_ref(), "thing", &seed);
            assert_eq!(got.as_deref(), expected, "{case}");
        }
    }
}

#[cfg(test)]
mod conflict_tests {
    use super::conflicts_with;
    use crate::lifecycle::support::checks::CheckFailure;

    #[test]
    fn conflicts_with_the_auto_name() {
        let failure = |property: &str, reason: &str| CheckFailure { property: property.into(), reason: reason.into() };
        // (case, failure, conflicts with the auto-named `name`)
        let table = [
            (
                "SDKv2's ConflictsWith on name",
                failure("name", "Conflicting configuration arguments: \"name\": conflicts with name_prefix"),
                true,
            ),
            (
                "SDKv2's on name_prefix",
                failure("namePrefix", "Conflicting configuration arguments: \"name_prefix\": conflicts with name"),
                false,
            ),
            (
                "the framework validators' on name",
                failure(
                    "name",
                    "Invalid Attribute Combination: Attribute \"name_prefix\" cannot be specified when \"name\" is specified",
                ),
                true,
            ),
            (
                "the framework validators' on name_prefix",
                failure(
                    "namePrefix",
                    "Invalid Attribute Combination: Attribute \"name\" cannot be specified when \"name_prefix\" is specified",
                ),
                true,
            ),
            (
                "another combination",
                failure(
                    "a",
                    "Invalid Attribute Combination: Attribute \"a\" cannot be specified when \"b\" is specified",
                ),
                false,
            ),
            ("another error on name", failure("name", "expected a valid name"), false),
        ];
        for (case, failure, expected) in table {
            assert_eq!(conflicts_with(&failure, "name"), expected, "{case}");
        }
    }
}
