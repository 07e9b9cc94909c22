//! The prior state Diff, Update, Delete and refresh plan from: the stored outputs,
//! upgraded, or read again when a failed apply left them, and where it came from
//! ([`Source`]).

use crate::cty::{self, Value};
use crate::lifecycle::calls::{Read, Resource, Stored, Warnings};
use crate::lifecycle::support::error::LifecycleError;
use crate::lifecycle::support::state::Meta;
use crate::property::PropertyMap;

/// The prior state an operation plans from: the stored outputs, upgraded; when a failed
/// apply left them ([`Meta::apply_failed`]), read from the provider first. Terraform
/// refreshes every object before it plans. Pulumi refreshes only on request, and a failed
/// apply's state is the one known to disagree with the object: an SDKv2 provider returns
/// its planned values beside the error, so planning from them fails every later update
/// until a manual refresh (issue 28). An object the read finds gone ([`Source::Gone`]) is
/// planned from the stored state and replaced (Diff), and a Delete of it has nothing to do.
/// A tainted object's read that fails ([`Source::Unread`]) is a warning: its stored state
/// stands in, so its replacement and destroy go ahead.
pub(super) async fn prior(
    resource: &Resource<'_>,
    id: &str,
    olds: &PropertyMap,
    secrets: &[cty::Path],
    warnings: &mut Warnings,
) -> Result<(Value, Meta, Source), LifecycleError> {
    let (state, meta) = warnings.kept(resource.upgrade_resource_state(id, olds, secrets).await)?;
    if !meta.apply_failed {
        return Ok((state, meta, Source::Stored));
    }
    let identity = resource.stored_identity(&meta)?;
    let stored = Stored { state: &state, private: &meta.private, identity: identity.as_ref() };
    let read = match resource.read_resource(stored, secrets).await {
        Ok(read) => warnings.keep(read),
        Err(error) if meta.tainted => {
            unread_tainted(warnings, error);
            return Ok((state, meta, Source::Unread));
        }
        Err(error) => return Err(warnings.fail(error)),
    };
    let Some(read) = read else {
        tracing::debug!(urn = %resource.urn(), "the object a failed apply left is gone");
        return Ok((state, meta, Source::Gone));
    };
    let (state, meta) = after_read(resource, meta, read, identity)?;
    Ok((state, meta, Source::Read))
}

/// A failed read of a tainted object, as a warning: a failed create's object may be a
/// half-made one its provider cannot read (or the id of nothing), so the read stops neither
/// its refresh nor its replacement nor its destroy; its stored state stands in.
pub(super) fn unread_tainted(warnings: &mut Warnings, error: LifecycleError) {
    let (error, earlier) = error.into_parts();
    warnings.extend(earlier);
    warnings
        .extend([format!("the object a failed create left could not be read, so its stored state stands in: {error}")]);
}

/// The state and meta a read found, in place of the stored ones: a provider that sends no
/// identity keeps the stored one, as Terraform keeps it; the failure mark goes.
pub(super) fn after_read(
    resource: &Resource<'_>,
    meta: Meta,
    read: Read,
    stored: Option<Value>,
) -> Result<(Value, Meta), LifecycleError> {
    let identity = read.identity.or(stored).map(|identity| resource.identity_text(&identity)).transpose()?;
    Ok((read.state, Meta { private: read.private, identity, apply_failed: false, ..meta }))
}

/// Where an operation's prior state came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// The stored outputs, upgraded.
    Stored,
    /// Read from the provider just now.
    Read,
    /// Read from the provider just now, and found gone; the stored state stands in.
    Gone,
    /// A tainted object whose read failed; the stored state stands in.
    Unread,
}
