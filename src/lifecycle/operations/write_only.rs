//! Write-only arguments (Terraform 1.11): values the provider receives in its configuration
//! and never returns, which must never reach the stack's state.
//!
//! The engine records the inputs Check returns, so Check returns them without the
//! write-only values and this process keeps those values in memory, by URN
//! ([`WriteOnlyInputs`]), for the Diff, Create and Update of the same deployment, which put
//! them back into the configuration they send. The provider then sees what Terraform sends:
//! the value in `config` (and so in the proposed new state), null in prior, planned and new
//! state. Nothing else can make an update happen for a changed write-only value (its planned
//! value is null on both sides), which is Terraform's rule too: a companion `*_version`
//! argument does. The trade-off: a later deployment that updates the resource for another
//! reason sends the value only if the program passes it again (it always does, when the
//! program is run), and `pulumi destroy` or `refresh`, which run no Check, send none; that is
//! also what Terraform does, which holds the value only while it plans and applies.
//!
//! Only top-level write-only attributes are held back; a write-only attribute inside a
//! nested block or nested attribute object stays in the inputs (the schema marks it secret).
//!
//! Architecture invariant: no gRPC types; decisions are the pure [`write_only_keys`] and
//! [`split_write_only`].

use std::collections::HashMap;
use std::sync::Mutex;

use schema_gen::tf::Block;
use schema_gen::translate::PropertyNames;

use crate::lifecycle::calls::Resource;
use crate::lifecycle::operations::ephemeral::OpenEphemerals;
use crate::lifecycle::support::checks::CheckFailure;
use crate::lifecycle::support::error::LifecycleError;
use crate::property::PropertyMap;

/// The write-only values Check held back, by URN, for the rest of the deployment.
#[derive(Default)]
pub struct WriteOnlyInputs(Mutex<HashMap<String, PropertyMap>>);

impl WriteOnlyInputs {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, PropertyMap>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The Pulumi names of the top-level write-only attributes of `block`.
pub fn write_only_keys(block: &Block, names: &PropertyNames) -> Vec<String> {
    block
        .attributes
        .iter()
        .filter(|(_, attribute)| attribute.write_only)
        .filter_map(|(tf_name, _)| names.by_tf_name(tf_name).map(|name| name.pulumi_name.clone()))
        .collect()
}

/// Removes the `keys` from `inputs` and returns them.
pub fn split_write_only(keys: &[String], inputs: &mut PropertyMap) -> PropertyMap {
    keys.iter().filter_map(|key| inputs.remove(key).map(|value| (key.clone(), value))).collect()
}

/// The write-only keys of the resource type.
fn resource_write_only_keys(resource: &Resource<'_>) -> Vec<String> {
    write_only_keys(&resource.schema().block, &resource.props().names)
}

/// After Check: takes the write-only values out of the inputs the engine will record,
/// and keeps them for this URN (replacing what an earlier Check kept).
pub(crate) fn hold_write_only(resource: &Resource<'_>, inputs: &mut PropertyMap, held: &WriteOnlyInputs) {
    let values = split_write_only(&resource_write_only_keys(resource), inputs);
    if !values.is_empty() {
        tracing::debug!(urn = resource.urn(), n_values = values.len(), "holding write-only values back from the state");
    }
    held.lock().insert(resource.urn().to_owned(), values);
}

/// Before Diff, Create and Update: the inputs with the held write-only values put back.
pub(crate) fn with_write_only(resource: &Resource<'_>, inputs: &PropertyMap, held: &WriteOnlyInputs) -> PropertyMap {
    let mut inputs = inputs.clone();
    if let Some(values) = held.lock().get(resource.urn()) {
        for (key, value) in values {
            inputs.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    inputs
}

/// Terraform's rule that an ephemeral value may only go to a write-only argument: a
/// failure for each other input holding a string an ephemeral resource of this provider
/// returned in this deployment (values from another provider's process cannot be
/// recognised), since it would be stored in the state.
pub(crate) fn ephemeral_values_misplaced(
    resource: &Resource<'_>,
    inputs: &PropertyMap,
    open: &OpenEphemerals,
) -> Vec<CheckFailure> {
    let write_only = resource_write_only_keys(resource);
    inputs
        .iter()
        .filter(|(key, _)| !write_only.contains(key))
        .filter_map(|(key, value)| {
            let token = open.opened_by(value)?;
            let tf_name = &resource.props().names.by_pulumi_name(key).map_or(key.as_str(), |n| n.tf_name.as_str());
            Some(CheckFailure {
                property: key.clone(),
                reason: format!(
                    "the value comes from the ephemeral resource {token}, and ephemeral values may only be \
                     passed to write-only arguments; {} does not declare {tf_name} write-only, so the value \
                     would be stored in the stack's state",
                    resource.tf_name()
                ),
            })
        })
        .collect()
}

/// A partial failure's inputs are stored by the engine: the write-only values put back
/// for the provider must not go with them.
pub(crate) fn without_write_only_in(resource: &Resource<'_>, error: LifecycleError) -> LifecycleError {
    match error {
        LifecycleError::Partial(mut partial) => {
            split_write_only(&resource_write_only_keys(resource), &mut partial.inputs);
            LifecycleError::Partial(partial)
        }
        LifecycleError::Warned { error, warnings } => without_write_only_in(resource, *error).with_warnings(warnings),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use schema_gen::tf::{Attribute, Block, Type};
    use schema_gen::translate::PropertyNames;

    use super::{split_write_only, write_only_keys};
    use crate::property::{PropertyMap, PropertyValue};

    #[test]
    fn write_only_values_are_split_out_by_pulumi_name() {
        let attribute = |write_only: bool| {
            let mut attribute = Attribute::new(Type::String);
            attribute.optional = true;
            attribute.write_only = write_only;
            attribute
        };
        let block = Block {
            attributes: [
                ("password_wo".to_owned(), attribute(true)),
                ("password_wo_version".to_owned(), attribute(false)),
                ("name".to_owned(), attribute(false)),
            ]
            .into(),
            ..Block::default()
        };
        let keys = write_only_keys(&block, &PropertyNames::of_block(&block));
        assert_eq!(keys, ["passwordWo"]);
        let secret = PropertyValue::Secret(Box::new(PropertyValue::String("hunter2".to_owned())));
        let cases: [(&str, PropertyMap, PropertyMap, PropertyMap); 2] = [
            (
                "with a value",
                [("passwordWo".to_owned(), secret.clone()), ("name".to_owned(), PropertyValue::String("a".to_owned()))]
                    .into(),
                [("name".to_owned(), PropertyValue::String("a".to_owned()))].into(),
                [("passwordWo".to_owned(), secret.clone())].into(),
            ),
            ("without", PropertyMap::new(), PropertyMap::new(), PropertyMap::new()),
        ];
        for (name, mut inputs, want_inputs, want_held) in cases {
            let held = split_write_only(&keys, &mut inputs);
            assert_eq!((inputs, held), (want_inputs, want_held), "{name}");
        }
    }
}
