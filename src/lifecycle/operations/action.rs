//! Terraform actions (Terraform 1.14) as Pulumi functions, in the shape of bridge PR #3226:
//! the arguments are the action's configuration plus `urn`, the resource its progress is
//! shown against; the result is empty.
//!
//! A preview plans the action (ValidateActionConfig, PlanAction) and runs nothing; an update
//! runs it (ValidateActionConfig, InvokeAction), passing each progress message on as it
//! arrives. Which of the two an Invoke is comes from the engine (the server reads it from
//! the request), as [`ActionMode`].
//!
//! Architecture invariant: no gRPC types; progress leaves through a callback.

use crate::cty::Value;
use crate::lifecycle::calls::{Connection, TokenKind};
use crate::lifecycle::operations::invoke::{Arguments, Invoked};
use crate::lifecycle::support::checks::{self, CheckFailure};
use crate::lifecycle::support::error::{LifecycleError, Subject};
use crate::property::{PropertyMap, PropertyValue};

pub use schema_gen::translate::ACTION_URN_ARGUMENT;

/// What an Invoke of an action does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionMode {
    /// A preview: validate and plan, run nothing.
    Plan,
    /// An update: validate and run.
    Invoke,
}

/// The `urn` argument: a string, or an unknown one in a preview (the resource it names is
/// not registered yet); anything else is a failure on `urn`. The texts are bridge PR #3226's.
pub(crate) fn action_urn(tf_name: &str, args: &PropertyMap, mode: ActionMode) -> Result<Option<String>, CheckFailure> {
    let failure = |reason: String| CheckFailure { property: ACTION_URN_ARGUMENT.to_owned(), reason };
    let mut value = args.get(ACTION_URN_ARGUMENT);
    while let Some(PropertyValue::Secret(inner)) = value {
        value = Some(inner);
    }
    match value {
        Some(PropertyValue::String(urn)) if !urn.is_empty() => Ok(Some(urn.clone())),
        Some(PropertyValue::Unknown(_)) if mode == ActionMode::Plan => Ok(None),
        None | Some(PropertyValue::Null | PropertyValue::String(_)) => {
            Err(failure(format!("missing required argument 'urn' to Invoke for action {tf_name:?}")))
        }
        Some(PropertyValue::Unknown(_)) => {
            Err(failure(format!("the argument 'urn' to Invoke for action {tf_name:?} is not known during an update")))
        }
        Some(_) => Err(failure(format!("expected argument 'urn' to Invoke for action {tf_name:?} to be a string"))),
    }
}

/// The Terraform action behind a Pulumi function token, if it names one.
pub(crate) fn action_name<'c>(connection: &'c Connection, token: &str) -> Option<&'c str> {
    match connection.lookup_token(token) {
        Some((TokenKind::Action, tf_name)) => Some(tf_name),
        _ => None,
    }
}

/// Plans or runs the action behind `token`: failures on its arguments (nothing ran), or
/// the warnings of a planned or finished action, with the `urn` argument (where the
/// engine shows them); an action has no outputs. `progress` gets `(urn, message)` for
/// every progress event of a running action, in order.
pub(crate) async fn run_action(
    connection: &Connection,
    token: &str,
    args: &PropertyMap,
    mode: ActionMode,
    progress: &(dyn Fn(Option<&str>, &str) + Send + Sync),
) -> Result<Invoked, LifecycleError> {
    let Some(tf_name) = action_name(connection, token) else {
        return Err(LifecycleError::UnknownToken {
            kind: "action",
            token: token.to_owned(),
            package: connection.package_name().to_owned(),
        });
    };
    let action = connection.action(tf_name, Subject::Token(format!("{token} (action {tf_name})")))?;
    let mut run = Invoked::default();
    let mut config_args = args.clone();
    config_args.remove(ACTION_URN_ARGUMENT);
    let earlier = match action_urn(tf_name, args, mode) {
        Ok(urn) => {
            run.urn = urn;
            Vec::new()
        }
        Err(failure) => vec![failure],
    };
    let validate = async |config: &Value, _: &[crate::cty::Path]| action.validate_action_config(config).await;
    let checked = Arguments::check(action.block(), action.names(), &config_args, earlier, validate).await?;
    let (config, mut warnings) = match checked {
        Arguments::Valid { config, warnings, .. } => (config, warnings),
        Arguments::Invalid { failures, warnings } => return Ok(Invoked { failures, warnings, ..run }),
    };
    match mode {
        ActionMode::Plan => {
            if let Some(reason) = warnings.kept(action.plan_action(&config).await)? {
                warnings.note(checks::Message::Deferred, format!(
                    "the action {tf_name} was deferred by the provider ({}); it will be planned again in the next run",
                    crate::lifecycle::support::deferral::reason_text(reason)
                ));
            }
        }
        ActionMode::Invoke => {
            if !config.is_wholly_known() {
                // Terraform's summary for the same situation.
                return Err(LifecycleError::Invalid {
                    subject: action.subject().clone(),
                    message: "Action configuration unknown during apply: the arguments of the action are not all \
                              known, so it cannot run"
                        .to_owned(),
                });
            }
            let urn = run.urn.clone();
            let on_progress = |message: &str| progress(urn.as_deref(), message);
            warnings.kept(action.invoke_action(&config, &on_progress).await)?;
        }
    }
    run.warnings = warnings.into_vec();
    Ok(run)
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::property::UnknownKind;

    #[test]
    fn the_urn_argument_names_the_resource_or_fails_on_urn() {
        let cases: Vec<(&str, Option<PropertyValue>, ActionMode)> = vec![
            ("a string", Some(PropertyValue::String("urn:pulumi:dev::p::t::n".into())), ActionMode::Invoke),
            ("secret", Some(PropertyValue::Secret(Box::new(PropertyValue::String("u".into())))), ActionMode::Invoke),
            ("unknown in a preview", Some(PropertyValue::Unknown(UnknownKind::String)), ActionMode::Plan),
            ("unknown in an update", Some(PropertyValue::Unknown(UnknownKind::String)), ActionMode::Invoke),
            ("missing", None, ActionMode::Plan),
            ("null", Some(PropertyValue::Null), ActionMode::Invoke),
            ("empty", Some(PropertyValue::String(String::new())), ActionMode::Invoke),
            ("a number", Some(PropertyValue::Number(1.0)), ActionMode::Plan),
        ];
        let mut out = String::new();
        for (label, value, mode) in cases {
            let args: PropertyMap = value.into_iter().map(|v| ("urn".to_owned(), v)).collect();
            let outcome = match action_urn("x_notify", &args, mode) {
                Ok(urn) => format!("{urn:?}"),
                Err(failure) => format!("{}: {}", failure.property, failure.reason),
            };
            out.push_str(&format!("{label}: {outcome}\n"));
        }
        expect![[r#"
            a string: Some("urn:pulumi:dev::p::t::n")
            secret: Some("u")
            unknown in a preview: None
            unknown in an update: urn: the argument 'urn' to Invoke for action "x_notify" is not known during an update
            missing: urn: missing required argument 'urn' to Invoke for action "x_notify"
            null: urn: missing required argument 'urn' to Invoke for action "x_notify"
            empty: urn: missing required argument 'urn' to Invoke for action "x_notify"
            a number: urn: expected argument 'urn' to Invoke for action "x_notify" to be a string
        "#]]
        .assert_eq(&out);
    }
}
