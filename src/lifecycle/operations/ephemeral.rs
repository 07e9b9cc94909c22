//! Ephemeral resources as functions: Invoke opens one (ValidateEphemeralResourceConfig, then
//! OpenEphemeralResource), returns its result as secrets, keeps it renewed
//! (RenewEphemeralResource before each `renew_at`) and closes it
//! (CloseEphemeralResource) exactly once, when the deployment ends: on the engine's Cancel,
//! which it sends at the end of every run and on Ctrl-C, or at shutdown, whichever comes
//! first. A preview opens them too, as Terraform's plan does; arguments not known yet open
//! nothing and return unknowns, as Terraform does.
//!
//! [`OpenEphemerals`] is the process's list of what is open. Nothing about an ephemeral
//! resource is ever stored: its result goes to the program only, and its private bytes and
//! renewal time stay in this process.
//!
//! Architecture invariant: no gRPC types; every provider call goes through `calls`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use schema_gen::tf::Block;
use schema_gen::translate::PropertyNames;

use crate::convert::values as convert;
use crate::cty::Value;
use crate::lifecycle::calls::Connection;
use crate::lifecycle::calls::Opened;
use crate::lifecycle::operations::invoke::{Arguments, Invoked};
use crate::lifecycle::support::error::{LifecycleError, Subject};
use crate::property::{PropertyMap, PropertyValue};

/// The ephemeral resources this process has open.
#[derive(Default)]
pub struct OpenEphemerals {
    tracked: Mutex<Tracked>,
    /// Held while closing, so that a second close (Cancel, then shutdown) waits for the
    /// first to finish instead of returning while closes are still in flight.
    closing: tokio::sync::Mutex<()>,
    /// Keyed hashes (the key random per process) of the strings each open returned, with the
    /// function's token: Check recognises an ephemeral value by them without keeping it.
    fingerprints: Mutex<std::collections::HashMap<u64, String>>,
    hasher: std::collections::hash_map::RandomState,
}

#[derive(Default)]
struct Tracked {
    next_id: u64,
    open: BTreeMap<u64, OpenEntry>,
    /// Set by the first close: the deployment is ending, and a later open is closed at once.
    ended: bool,
}

struct OpenEntry {
    subject: Subject,
    tf_name: String,
    /// Open's private bytes: Terraform sends these to Close, not the renewed ones.
    private: Option<Vec<u8>>,
    renewal: Option<tokio::task::JoinHandle<()>>,
    /// Why renewing stopped, reported at close as Terraform does.
    renew_failure: Arc<Mutex<Option<String>>>,
}

impl OpenEphemerals {
    fn lock(&self) -> std::sync::MutexGuard<'_, Tracked> {
        self.tracked.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn fingerprint(&self, text: &str) -> u64 {
        use std::hash::BuildHasher;
        self.hasher.hash_one(text)
    }

    fn remember(&self, token: &str, outputs: &PropertyMap) {
        let mut fingerprints = self.fingerprints.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for value in outputs.values() {
            for text in strings(value) {
                fingerprints.insert(self.fingerprint(text), token.to_owned());
            }
        }
    }

    /// The function whose open returned a string in `value`, if one did in this process.
    pub(in crate::lifecycle) fn opened_by(&self, value: &PropertyValue) -> Option<String> {
        let fingerprints = self.fingerprints.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        strings(value).into_iter().find_map(|text| fingerprints.get(&self.fingerprint(text)).cloned())
    }
}

/// The non-empty strings in a value.
fn strings(value: &PropertyValue) -> Vec<&str> {
    match value {
        PropertyValue::String(text) if !text.is_empty() => vec![text],
        PropertyValue::Secret(inner) => strings(inner),
        PropertyValue::Array(items) => items.iter().flat_map(strings).collect(),
        PropertyValue::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// What closing every open ephemeral resource did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Closed {
    pub n_closed: usize,
    /// Failed renewals and closes, each naming the function and the cause.
    pub errors: Vec<String>,
    pub warnings: Vec<String>,
}

/// Invoke of an ephemeral resource's function (`<pkg>:index/open<Name>:open<Name>`).
pub(crate) async fn open_ephemeral(
    connection: &Arc<Connection>,
    open: &OpenEphemerals,
    token: &str,
    tf_name: &str,
    args: &PropertyMap,
) -> Result<Invoked, LifecycleError> {
    let resource = connection.ephemeral_resource(tf_name, Subject::Token(token.to_owned()))?;
    let (block, names, subject) = (resource.block(), resource.names(), resource.subject());
    let mut invoked = Invoked::default();
    let validate =
        async |config: &Value, _: &[crate::cty::Path]| resource.validate_ephemeral_resource_config(config).await;
    let (config, mut warnings) = match Arguments::check(block, names, args, Vec::new(), validate).await? {
        Arguments::Valid { config, warnings, .. } => (config, warnings),
        Arguments::Invalid { failures, warnings } => return Ok(Invoked { failures, warnings, ..invoked }),
    };
    if !config.is_wholly_known() {
        // Terraform opens nothing until the configuration is known: the result is the
        // configuration with every computed attribute unknown.
        let planned =
            crate::lifecycle::support::proposed_new::planned_data_source_object(block, &config).map_err(|err| {
                LifecycleError::Internal { subject: subject.clone(), message: format!("cannot plan the open: {err}") }
            })?;
        invoked.outputs = ephemeral_outputs(subject, block, names, &planned)?;
        invoked.warnings = warnings.into_vec();
        return Ok(invoked);
    }
    let opened = warnings.kept(resource.open_ephemeral_resource(&config).await)?;
    let outputs = ephemeral_outputs(subject, block, names, &opened.result);
    let id = track_ephemeral(connection, open, subject, tf_name, opened);
    let problem = match (id, outputs) {
        (Some(_), Ok(outputs)) => {
            // Only what the provider made up: arguments echoed back are the program's own.
            let made_up: PropertyMap = outputs
                .iter()
                .filter(|(key, _)| {
                    names
                        .by_pulumi_name(key)
                        .and_then(|name| block.attributes.get(&name.tf_name))
                        .is_some_and(|attribute| attribute.computed && !attribute.optional && !attribute.required)
                })
                .map(|(key, value)| (key.clone(), value.clone()))
                .collect();
            open.remember(token, &made_up);
            invoked.outputs = outputs;
            invoked.warnings = warnings.into_vec();
            return Ok(invoked);
        }
        (None, _) => LifecycleError::Invalid {
            subject: subject.clone(),
            message: format!(
                "the deployment is ending (the engine sent Cancel), so {tf_name} was closed again as soon as it opened"
            ),
        },
        (Some(id), Err(err)) => {
            close_one_ephemeral(connection, open, id).await;
            err
        }
    };
    Err(problem)
}

/// The result as Pulumi outputs, every value secret.
fn ephemeral_outputs(
    subject: &Subject,
    block: &Block,
    names: &PropertyNames,
    result: &Value,
) -> Result<PropertyMap, LifecycleError> {
    let outputs = convert::from_cty(block, names, result, &[])
        .map_err(|error| LifecycleError::InvalidProperty { subject: subject.clone(), error: Box::new(error) })?;
    Ok(outputs.into_iter().map(|(key, value)| (key, secret(value))).collect())
}

/// Records an open resource and starts renewing it. `None` when the deployment has
/// ended: the resource was closed at once (in the background) and must not be used.
fn track_ephemeral(
    connection: &Arc<Connection>,
    open: &OpenEphemerals,
    subject: &Subject,
    tf_name: &str,
    opened: Opened,
) -> Option<u64> {
    let renew_failure = Arc::new(Mutex::new(None));
    let mut tracked = open.lock();
    if tracked.ended {
        drop(tracked);
        let (provider, subject, tf_name) = (Arc::clone(connection), subject.clone(), tf_name.to_owned());
        tokio::spawn(async move {
            let closed = match provider.ephemeral_resource(&tf_name, subject) {
                Ok(resource) => resource.close_ephemeral_resource(opened.private.as_deref()).await.map(drop),
                Err(err) => Err(err),
            };
            if let Err(err) = closed {
                tracing::warn!("{}", err.in_context());
            }
        });
        return None;
    }
    let id = tracked.next_id;
    tracked.next_id += 1;
    let renewal = opened.renew_at.map(|renew_at| {
        let task = Renewal {
            provider: Arc::clone(connection),
            subject: subject.clone(),
            tf_name: tf_name.to_owned(),
            private: opened.private.clone(),
            renew_at,
            failure: renew_failure.clone(),
        };
        tokio::spawn(task.run())
    });
    let entry = OpenEntry {
        subject: subject.clone(),
        tf_name: tf_name.to_owned(),
        private: opened.private,
        renewal,
        renew_failure,
    };
    tracked.open.insert(id, entry);
    tracing::debug!(ephemeral = tf_name, n_open = tracked.open.len(), "opened an ephemeral resource");
    Some(id)
}

async fn close_one_ephemeral(connection: &Connection, open: &OpenEphemerals, id: u64) {
    let entry = open.lock().open.remove(&id);
    if let Some(entry) = entry {
        let closed = close_entry(connection, entry).await;
        for problem in closed.errors.iter().chain(&closed.warnings) {
            tracing::warn!("{problem}");
        }
    }
}

/// Closes every open ephemeral resource, each exactly once, and opens none after: the
/// deployment is ending. A second call waits for the first to finish.
pub(crate) async fn close_ephemerals(connection: &Connection, open: &OpenEphemerals) -> Closed {
    let _closing = open.closing.lock().await;
    let entries = {
        let mut tracked = open.lock();
        tracked.ended = true;
        std::mem::take(&mut tracked.open)
    };
    let mut closed = Closed::default();
    for entry in entries.into_values() {
        let one = close_entry(connection, entry).await;
        closed.n_closed += one.n_closed;
        closed.errors.extend(one.errors);
        closed.warnings.extend(one.warnings);
    }
    closed
}

async fn close_entry(connection: &Connection, entry: OpenEntry) -> Closed {
    if let Some(renewal) = &entry.renewal {
        renewal.abort();
    }
    let mut closed = Closed { n_closed: 1, ..Closed::default() };
    if let Some(failure) = entry.renew_failure.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).take() {
        closed.errors.push(failure);
    }
    let answer = match connection.ephemeral_resource(&entry.tf_name, entry.subject.clone()) {
        Ok(resource) => resource.close_ephemeral_resource(entry.private.as_deref()).await,
        Err(err) => Err(err),
    };
    match answer {
        Ok(warned) => closed.warnings.extend(warned.warnings.into_vec()),
        Err(err) => closed.errors.push(err.in_context()),
    }
    closed
}

/// One open resource's renewals, as a task of its own.
struct Renewal {
    provider: Arc<Connection>,
    subject: Subject,
    tf_name: String,
    private: Option<Vec<u8>>,
    renew_at: SystemTime,
    failure: Arc<Mutex<Option<String>>>,
}

impl Renewal {
    async fn run(mut self) {
        loop {
            tokio::time::sleep(renew_delay(SystemTime::now(), self.renew_at)).await;
            let renewed = match self.provider.ephemeral_resource(&self.tf_name, self.subject.clone()) {
                Ok(resource) => resource.renew_ephemeral_resource(self.private.as_deref()).await,
                Err(err) => Err(err),
            };
            match renewed {
                Ok(warned) => {
                    for warning in warned.warnings.into_vec() {
                        tracing::warn!("{}: {warning}", self.subject);
                    }
                    tracing::debug!(ephemeral = self.tf_name, "renewed an ephemeral resource");
                    if warned.value.private.is_some() {
                        self.private = warned.value.private;
                    }
                    match warned.value.renew_at {
                        Some(next) => self.renew_at = next,
                        None => return,
                    }
                }
                Err(err) => {
                    // Terraform stops renewing and reports the failure when it closes.
                    let failure = err.in_context();
                    tracing::warn!("{failure}");
                    *self.failure.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(failure);
                    return;
                }
            }
        }
    }
}

/// How long to wait before renewing: a tenth of the time left early (at most 5 s), so the
/// renewal lands before `renew_at` rather than at it; at once when it has passed.
pub fn renew_delay(now: SystemTime, renew_at: SystemTime) -> Duration {
    let left = renew_at.duration_since(now).unwrap_or(Duration::ZERO);
    left - (left / 10).min(Duration::from_secs(5))
}

fn secret(value: PropertyValue) -> PropertyValue {
    match value {
        PropertyValue::Secret(_) | PropertyValue::Null => value,
        other => PropertyValue::Secret(Box::new(other)),
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::renew_delay;

    #[test]
    fn renewals_land_before_renew_at() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000);
        let cases = [
            // (seconds until renew_at, expected delay in ms)
            (0.0, 0),
            (-30.0, 0),
            (1.0, 900),
            (10.0, 9_000),
            (50.0, 45_000),
            (3_600.0, 3_595_000),
        ];
        for (seconds, want_ms) in cases {
            let renew_at = if seconds >= 0.0 {
                now + Duration::from_secs_f64(seconds)
            } else {
                now - Duration::from_secs_f64(-seconds)
            };
            assert_eq!(renew_delay(now, renew_at), Duration::from_millis(want_ms), "{seconds}s");
        }
    }
}
